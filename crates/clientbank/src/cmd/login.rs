//! `clientbank login` (the OAuth flow of API.md, Authentication §3–5) and `clientbank logout`.
//!
//! Login prints (and on a desktop opens) the bank's authorize address with a random `state`,
//! listens on the loopback address of `[app] redirect_uri`, takes the browser's redirect, checks
//! `state`, exchanges the single-use code at once, stores the token in a file only the user can
//! read (written to a 0600 temporary file beside it, then renamed) and answers the browser with
//! a short page in Russian and English.

use std::io::{self, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clientbank_api::{Client, Token, TokenRequest};
use clientbank_watch::Settings;
use clientbank_watch::config::App;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use url::Url;

use super::bank::{bank_failure, client, sandbox_if, settings, use_sandbox};
use crate::cli::BankArgs;
use crate::exit::{Failure, Outcome};
use crate::term::tr;
use clientbank_format::Message;

/// The longest request head the listener reads from the browser.
const HEAD_LIMIT: usize = 16 * 1024;

pub(crate) fn login(args: &BankArgs, no_browser: bool, timeout: u64) -> Result<Outcome, Failure> {
    let mut settings = settings(args)?;
    let app = match (&settings.app, args.sandbox) {
        (Some(app), true) => App {
            redirect_uri: app.redirect_uri.clone(),
            ..App::sandbox()
        },
        (None, true) => App::sandbox(),
        (Some(app), false) => app.clone(),
        (None, false) => {
            return Err(Failure::Stopped(Message::new(
                "no application is configured for login: add an [app] table (client_id, \
                 client_secret_file, redirect_uri) to clientbank.toml — or, without one, put a \
                 token generated in the bank's cabinet in the file named by `token_file` or in \
                 CLIENTBANK_TOKEN instead",
                "для входа не настроено приложение: добавьте в clientbank.toml таблицу [app] \
                 (client_id, client_secret_file, redirect_uri) — или, без неё, положите токен, \
                 выпущенный в кабинете банка, в файл из `token_file` или в CLIENTBANK_TOKEN",
            )));
        }
    };
    let Some(secret) = app.client_secret.clone() else {
        return Err(Failure::Stopped(Message::new(
            "the application's client secret is not configured ([app] client_secret_file, or \
             CLIENTBANK_CLIENT_SECRET): without it the bank's code cannot be exchanged. Without \
             the secret, put a token generated in the bank's cabinet in the file named by \
             `token_file` or in CLIENTBANK_TOKEN instead",
            "не задан секрет приложения ([app] client_secret_file или CLIENTBANK_CLIENT_SECRET): \
             без него код банка не обменять на токен. Без секрета положите токен, выпущенный в \
             кабинете банка, в файл из `token_file` или в CLIENTBANK_TOKEN",
        )));
    };
    let redirect = match Listen::of(&app.redirect_uri) {
        Ok(redirect) => redirect,
        Err((en, ru)) => {
            crate::term::error(&tr(en, ru));
            return Ok(Outcome::Unreadable);
        }
    };
    // The sandbox's token dies with this process: nothing is stored over a real one.
    let token_file = if args.sandbox {
        None
    } else {
        match settings.token_file.clone() {
            Some(path) => Some(path),
            None => {
                return Err(Failure::Stopped(Message::new(
                    "no folder for the token: set `token_file` in clientbank.toml",
                    "некуда сохранить токен: задайте `token_file` в clientbank.toml",
                )));
            }
        }
    };
    let state = match random_state() {
        Ok(state) => state,
        Err(e) => {
            return Err(Failure::Stopped(Message::new(
                format!("no random state: {e}"),
                format!("не удалось получить случайное значение state: {e}"),
            )));
        }
    };
    crate::runtime::run(async move {
        let bank = sandbox_if(args.sandbox, Some(&app.redirect_uri), &mut settings).await?;
        let anonymous = anonymous_client(&settings)?;
        let scopes: Vec<&str> = app.scope.split(' ').filter(|s| !s.is_empty()).collect();
        let url = match anonymous.authorize_url(&app.client_id, &app.redirect_uri, &scopes, &state)
        {
            Ok(url) => url,
            Err(e) => return Ok(bank_failure(&e)),
        };
        // Listening before the address is shown: the redirect cannot come too early.
        let listener = match TcpListener::bind(redirect.addr).await {
            Ok(listener) => listener,
            Err(e) => {
                return Err(Failure::Stopped(Message::new(
                    format!(
                        "cannot listen on {} for the bank's redirect ([app] redirect_uri): {e}",
                        redirect.addr
                    ),
                    format!(
                        "не удалось принять перенаправление банка на {} ([app] redirect_uri): {e}",
                        redirect.addr
                    ),
                )));
            }
        };
        {
            let mut err = io::stderr().lock();
            writeln!(
                err,
                "{}",
                tr(
                    "Sign in to the bank at this address:",
                    "Войдите в банк по этому адресу:"
                )
            )?;
            writeln!(err, "  {url}")?;
            writeln!(
                err,
                "{}",
                tr(
                    format!(
                        "Waiting up to {timeout} s for the bank to send the browser back to {}",
                        app.redirect_uri
                    ),
                    format!(
                        "Ждём до {timeout} с, пока банк вернёт браузер на {}",
                        app.redirect_uri
                    ),
                )
            )?;
            err.flush()?;
        }
        if !no_browser {
            open_browser(url.as_str());
        }
        let flow = Flow {
            client: &anonymous,
            app: &app,
            secret: &secret,
            state: &state,
            path: &redirect.path,
            token_file: token_file.as_deref(),
        };
        let result = tokio::time::timeout(Duration::from_secs(timeout), flow.wait(&listener)).await;
        let outcome = match result {
            Err(_) => {
                crate::term::error(&tr(
                    format!(
                        "timeout: the browser did not come back from the bank in {timeout} s; \
                         run clientbank login again"
                    ),
                    format!(
                        "время вышло: браузер не вернулся из банка за {timeout} с; выполните \
                         clientbank login заново"
                    ),
                ));
                Outcome::Findings
            }
            Ok(Err(outcome)) => outcome,
            Ok(Ok(token)) => {
                let mut out = io::stdout().lock();
                match &token_file {
                    Some(path) => writeln!(
                        out,
                        "{}",
                        tr(
                            format!(
                                "logged in: the token is stored in {} (only you can read it)",
                                path.display()
                            ),
                            format!(
                                "вход выполнен: токен сохранён в {} (читать его можете только вы)",
                                path.display()
                            ),
                        )
                    )?,
                    None => {
                        // The sandbox's token is shown to work, then forgotten with it.
                        let mut check = settings.clone();
                        check.token = Some(token);
                        check.sandbox = false;
                        let accounts = match client(&check) {
                            Ok(c) => c.accounts().await,
                            Err(failure) => return Err(failure),
                        };
                        match accounts {
                            Ok(accounts) => writeln!(
                                out,
                                "{}",
                                tr(
                                    format!(
                                        "logged in to the sandbox bank: the token sees {} \
                                         account(s); it ends with this process, nothing stored",
                                        accounts.len()
                                    ),
                                    format!(
                                        "вход в тестовый банк выполнен: токену видно счетов: {}; \
                                         он живёт, пока идёт эта команда, ничего не сохранено",
                                        accounts.len()
                                    ),
                                )
                            )?,
                            Err(e) => return Ok(bank_failure(&e)),
                        }
                    }
                }
                Outcome::Clean
            }
        };
        drop(bank);
        Ok(outcome)
    })
}

pub(crate) fn logout(args: &BankArgs) -> Result<Outcome, Failure> {
    let mut settings = settings(args)?;
    if args.sandbox {
        return crate::runtime::run(async move {
            let bank = crate::sandbox_bank::start(None).await?;
            settings.token = None;
            use_sandbox(&mut settings, &bank);
            let client = client(&settings)?;
            if let Err(e) = client.revoke().await {
                return Ok(bank_failure(&e));
            }
            writeln!(
                io::stdout().lock(),
                "{}",
                tr(
                    "the sandbox bank took the revocation of its fixed token; no file was touched",
                    "тестовый банк принял отзыв своего постоянного токена; файлы не тронуты",
                )
            )?;
            Ok(Outcome::Clean)
        });
    }
    let Some(path) = settings.token_file.clone() else {
        crate::term::warning(&tr(
            "not logged in: no token file is configured",
            "вход не выполнен: файл токена не задан",
        ));
        return Ok(Outcome::Clean);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            crate::term::warning(&tr(
                format!("not logged in: there is no token file {}", path.display()),
                format!("вход не выполнен: файла токена {} нет", path.display()),
            ));
            return Ok(Outcome::Clean);
        }
        Err(e) => {
            return Err(Failure::Stopped(Message::new(
                format!("cannot read the token file {}: {e}", path.display()),
                format!("не удалось прочитать файл токена {}: {e}", path.display()),
            )));
        }
    };
    let token = Token::new(text.trim());
    if let Err(why) = token.check() {
        crate::term::warning(&tr(
            format!(
                "the token file {} holds no usable token ({why}): removed without asking the bank",
                path.display()
            ),
            format!(
                "в файле {} нет годного токена ({why}): удалён без обращения к банку",
                path.display()
            ),
        ));
        return remove(&path).map(|()| Outcome::Clean);
    }
    settings.token = Some(token);
    settings.token_from_login = true;
    crate::runtime::run(async move {
        let client = client(&settings)?;
        let mut out = io::stdout().lock();
        match client.revoke().await {
            Ok(()) => {
                remove(&path)?;
                writeln!(
                    out,
                    "{}",
                    tr(
                        format!(
                            "logged out: the bank revoked the token; {} removed",
                            path.display()
                        ),
                        format!(
                            "выход выполнен: банк отозвал токен; {} удалён",
                            path.display()
                        ),
                    )
                )?;
                Ok(Outcome::Clean)
            }
            Err(clientbank_api::Error::Unauthorized { .. }) => {
                remove(&path)?;
                writeln!(
                    out,
                    "{}",
                    tr(
                        format!(
                            "logged out: the bank says the token was already invalid (revoked \
                             or expired); {} removed",
                            path.display()
                        ),
                        format!(
                            "выход выполнен: банк считает токен уже недействительным (отозван \
                             или истёк); {} удалён",
                            path.display()
                        ),
                    )
                )?;
                Ok(Outcome::Clean)
            }
            Err(e) => {
                let outcome = bank_failure(&e);
                crate::term::warning(&tr(
                    format!(
                        "the token file {} is kept: run clientbank logout again",
                        path.display()
                    ),
                    format!(
                        "файл токена {} оставлен: выполните clientbank logout ещё раз",
                        path.display()
                    ),
                ));
                Ok(outcome)
            }
        }
    })
}

/// Removes the token file; a failure is an I/O failure (exit 2) naming it.
fn remove(path: &Path) -> Result<(), Failure> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Failure::Output(io::Error::new(
            e.kind(),
            format!("cannot remove {}: {e}", path.display()),
        ))),
    }
}

/// A client without a token (authorize address, code exchange).
fn anonymous_client(settings: &Settings) -> Result<Client, Outcome> {
    let Some(url) = &settings.bank_url else {
        crate::term::error(&tr(
            "no bank address: set `bank_url` in clientbank.toml or CLIENTBANK_BASE_URL (or use \
             --sandbox)",
            "не задан адрес банка: `bank_url` в clientbank.toml или CLIENTBANK_BASE_URL (или \
             --sandbox)",
        ));
        return Err(Outcome::Unreadable);
    };
    let mut builder = Client::builder(url.clone())
        .timeout(Duration::from_secs(30))
        .retry(clientbank_api::Retry::NONE);
    if let Some(ca) = &settings.root_ca {
        let pem = std::fs::read(ca).map_err(|e| {
            crate::term::error(&tr(
                format!("root_ca: cannot read {}: {e}", ca.display()),
                format!("root_ca: не удалось прочитать {}: {e}", ca.display()),
            ));
            Outcome::Unreadable
        })?;
        builder = builder
            .add_root_certificates_pem(&pem)
            .map_err(|e| bank_failure(&e))?;
    }
    builder.build().map_err(|e| bank_failure(&e))
}

/// 32 random bytes of the operating system's CSPRNG, in hex.
fn random_state() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Where the redirect is caught: a loopback address and the path of `redirect_uri`.
#[derive(Debug, PartialEq, Eq)]
struct Listen {
    addr: SocketAddr,
    path: String,
}

impl Listen {
    /// The listener of a redirect address: `http://` to `127.0.0.1`, `[::1]` or `localhost`
    /// only (anything else would take the code where this program cannot catch it, or over
    /// the network).
    fn of(redirect_uri: &str) -> Result<Listen, (String, String)> {
        let url = Url::parse(redirect_uri).map_err(|e| {
            (
                format!("[app] redirect_uri {redirect_uri:?} is not an address: {e}"),
                format!("[app] redirect_uri {redirect_uri:?} — не адрес: {e}"),
            )
        })?;
        let refuse = || {
            (
                format!(
                    "[app] redirect_uri {redirect_uri:?}: login catches the redirect on this \
                     computer, so it must be http:// to 127.0.0.1, [::1] or localhost with a \
                     port (e.g. http://127.0.0.1:8080/callback), registered so at the bank"
                ),
                format!(
                    "[app] redirect_uri {redirect_uri:?}: login принимает перенаправление на \
                     этом компьютере, поэтому адрес должен быть http:// на 127.0.0.1, [::1] или \
                     localhost с портом (например http://127.0.0.1:8080/callback) и так же \
                     зарегистрирован в банке"
                ),
            )
        };
        if url.scheme() != "http" {
            return Err(refuse());
        }
        let ip = match url.host() {
            Some(url::Host::Ipv4(ip)) if ip.is_loopback() => IpAddr::V4(ip),
            Some(url::Host::Ipv6(ip)) if ip.is_loopback() => IpAddr::V6(ip),
            Some(url::Host::Domain(name)) if name.eq_ignore_ascii_case("localhost") => {
                IpAddr::V4(Ipv4Addr::LOCALHOST)
            }
            _ => return Err(refuse()),
        };
        let port = url.port_or_known_default().unwrap_or(80);
        Ok(Listen {
            addr: SocketAddr::new(ip, port),
            path: url.path().to_string(),
        })
    }
}

/// One run of the flow, waiting for the browser.
struct Flow<'a> {
    client: &'a Client,
    app: &'a App,
    secret: &'a Token,
    state: &'a str,
    path: &'a str,
    token_file: Option<&'a Path>,
}

/// What the browser is told.
enum Page {
    Done,
    Failed,
    NotFound,
}

impl Flow<'_> {
    /// Accepts connections until the redirect comes: other paths are answered 404 and
    /// waited past; the redirect ends the flow either way.
    async fn wait(&self, listener: &TcpListener) -> Result<Token, Outcome> {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let Some(target) = read_target(&mut stream).await else {
                let _ = answer(&mut stream, Page::NotFound).await;
                continue;
            };
            let Ok(url) = Url::parse(&format!("http://localhost{target}")) else {
                let _ = answer(&mut stream, Page::NotFound).await;
                continue;
            };
            if url.path() != self.path {
                let _ = answer(&mut stream, Page::NotFound).await;
                continue;
            }
            // A request without this sign-in's `state` (a stray request, an old tab, a page
            // that knows the address) is refused and waited past: it cannot end the flow.
            let state = url
                .query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(_, v)| v);
            if state.as_deref() != Some(self.state) {
                crate::term::warning(&tr(
                    "state mismatch: a request that does not answer the sign-in started here (an \
                     old browser tab, or someone else's link) was refused; still waiting for the \
                     bank's redirect",
                    "state не совпадает: запрос, не относящийся к входу, начатому здесь (старая \
                     вкладка браузера или чужая ссылка), отклонён; ожидание перенаправления банка \
                     продолжается",
                ));
                let _ = answer(&mut stream, Page::Failed).await;
                continue;
            }
            let result = self.redirected(&url).await;
            let page = if result.is_ok() {
                Page::Done
            } else {
                Page::Failed
            };
            let _ = answer(&mut stream, page).await;
            return result;
        }
    }

    /// The redirect: `state` checked, the code exchanged at once, the token stored.
    async fn redirected(&self, url: &Url) -> Result<Token, Outcome> {
        let param = |name: &str| {
            url.query_pairs()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.into_owned())
        };
        if param("state").as_deref() != Some(self.state) {
            crate::term::error(&tr(
                "state mismatch: the redirect does not answer the sign-in started here (an old \
                 browser tab, or someone else's link); nothing was exchanged or stored. Run \
                 clientbank login again",
                "state не совпадает: перенаправление не относится к входу, начатому здесь \
                 (старая вкладка браузера или чужая ссылка); ничего не обменено и не сохранено. \
                 Выполните clientbank login заново",
            ));
            return Err(Outcome::Findings);
        }
        if let Some(error) = param("error") {
            let error = super::bank::printable(&error);
            crate::term::error(&tr(
                format!("the bank refused the sign-in: {error}"),
                format!("банк отказал во входе: {error}"),
            ));
            return Err(Outcome::Findings);
        }
        let Some(code) = param("code").filter(|c| !c.is_empty()) else {
            crate::term::error(&tr(
                "the bank's redirect carries no code; run clientbank login again",
                "в перенаправлении банка нет кода; выполните clientbank login заново",
            ));
            return Err(Outcome::Findings);
        };
        let request = TokenRequest {
            client_id: self.app.client_id.clone(),
            client_secret: self.secret.expose_secret().to_string(),
            redirect_uri: self.app.redirect_uri.clone(),
            code,
        };
        let token = self
            .client
            .exchange_code(&request)
            .await
            .map_err(|e| exchange_failure(&e))?;
        if let Err(why) = token.check() {
            crate::term::error(&tr(
                format!("the bank's token cannot be used: {why}"),
                format!("токен банка непригоден: {why}"),
            ));
            return Err(Outcome::Findings);
        }
        if let Some(path) = self.token_file
            && let Err(e) = store_token(path, &token)
        {
            crate::term::error(&tr(
                format!("cannot store the token in {}: {e}", path.display()),
                format!("не удалось сохранить токен в {}: {e}", path.display()),
            ));
            return Err(Outcome::Unreadable);
        }
        Ok(token)
    }
}

/// The exchange's refusal, named: an expired code, a code used twice, a wrong application.
fn exchange_failure(e: &clientbank_api::Error) -> Outcome {
    let clientbank_api::Error::Api {
        status: 400..=499,
        exception_type,
        message,
    } = e
    else {
        return bank_failure(e);
    };
    let text = message.to_lowercase();
    let (en, ru) = if text.contains("истёк") || text.contains("истек") || text.contains("expired")
    {
        (
            "the code expired; run clientbank login again (the bank's code lives under a minute)",
            "код истёк; выполните clientbank login заново (код банка живёт меньше минуты)",
        )
    } else if text.contains("использован") || text.contains("used") {
        (
            "the code was already used (a code is exchanged once); run clientbank login again",
            "код уже использован (код обменивается один раз); выполните clientbank login заново",
        )
    } else if exception_type == "InvalidClient" {
        (
            "the bank refused the application: check [app] client_id and the client secret",
            "банк не принял приложение: проверьте [app] client_id и секрет приложения",
        )
    } else {
        return bank_failure(e);
    };
    let said = e.message();
    crate::term::error(&tr(
        format!("{en} ({})", said.en()),
        format!("{ru} ({})", said.ru()),
    ));
    Outcome::Findings
}

/// The request target of the browser's request (`/callback?code=…`), or `None` for anything
/// that is not a GET request head within the limit.
async fn read_target(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::with_capacity(1024);
    let mut buffer = [0u8; 2048];
    let read = async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < HEAD_LIMIT {
            let n = stream.read(&mut buffer).await.ok()?;
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buffer[..n]);
        }
        Some(())
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .ok()??;
    let line = head.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?.trim_end();
    let mut parts = line.split(' ');
    let (method, target) = (parts.next()?, parts.next()?);
    (method == "GET" && target.starts_with('/')).then(|| target.to_string())
}

/// The page for the browser: Russian first, then English; never anything of the request.
async fn answer(stream: &mut TcpStream, page: Page) -> io::Result<()> {
    let (status, body) = match page {
        Page::Done => (
            "200 OK",
            "<h1>Вход выполнен</h1><p>clientbank получил токен. Это окно можно закрыть.</p>\
             <h1>Signed in</h1><p>clientbank has its token. You may close this window.</p>",
        ),
        Page::Failed => (
            "400 Bad Request",
            "<h1>Вход не выполнен</h1><p>Причина — в окне терминала, где запущен clientbank \
             login.</p><h1>Sign-in failed</h1><p>The terminal running clientbank login says \
             why.</p>",
        ),
        Page::NotFound => ("404 Not Found", "<p>Not found / Не найдено</p>"),
    };
    let html = format!(
        "<!doctype html><html lang=\"ru\"><head><meta charset=\"utf-8\"><title>clientbank\
         </title></head><body>{body}</body></html>"
    );
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{html}",
        html.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

/// Opens the address with the desktop's opener, when there is a desktop; failures ignored
/// (the address is printed anyway).
fn open_browser(url: &str) {
    use std::process::{Command, Stdio};
    let command = if cfg!(windows) {
        // Not `cmd /c start`: cmd would split the address at its `&`.
        let mut c = Command::new("rundll32");
        c.arg("url.dll,FileProtocolHandler").arg(url);
        c
    } else if cfg!(target_os = "macos") {
        let mut c = Command::new("open");
        c.arg(url);
        c
    } else {
        let desktop = ["DISPLAY", "WAYLAND_DISPLAY"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()));
        if !desktop {
            return;
        }
        let mut c = Command::new("xdg-open");
        c.arg(url);
        c
    };
    let mut command = command;
    if let Ok(mut child) = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        std::thread::spawn(move || {
            let _ = child.wait();
        });
    }
}

/// Writes the token to `path` so that no other user can ever read it: a temporary file in the
/// same folder (0600 on Unix, set before the secret is written), synced, then renamed over
/// the old one. On Windows the file lies in the user's profile, which only the user reads.
pub(crate) fn store_token(path: &Path, token: &Token) -> io::Result<()> {
    let dir: PathBuf = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.exists() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        builder.create(&dir)?;
    }
    let mut file = tempfile::Builder::new()
        .prefix(".token-")
        .tempfile_in(&dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    writeln!(file, "{}", token.expose_secret())?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_loopback_redirect_is_listened_on() {
        let l = Listen::of("http://127.0.0.1:8080/callback").unwrap();
        assert_eq!(l.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(l.path, "/callback");
        let l = Listen::of("http://localhost/cb?app=1").unwrap();
        assert_eq!(l.addr, "127.0.0.1:80".parse().unwrap());
        assert_eq!(l.path, "/cb");
        assert_eq!(
            Listen::of("http://[::1]:9/").unwrap().addr,
            "[::1]:9".parse().unwrap()
        );
        for bad in [
            "https://127.0.0.1:8080/callback",
            "http://192.168.1.5:8080/callback",
            "http://example.com/callback",
            "http://0.0.0.0:8080/",
            "not a url",
        ] {
            let (en, ru) = Listen::of(bad).unwrap_err();
            assert!(
                en.contains("redirect_uri") && ru.contains("redirect_uri"),
                "{en}"
            );
        }
    }

    #[test]
    fn the_state_is_random_and_long() {
        let (a, b) = (random_state().unwrap(), random_state().unwrap());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
    }

    #[cfg(unix)]
    #[test]
    fn the_token_file_is_written_0600_and_replaced_whole() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new").join("token");
        store_token(&path, &Token::new("first-token")).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let folder = std::fs::metadata(path.parent().unwrap()).unwrap();
        assert_eq!(folder.permissions().mode() & 0o077, 0);
        store_token(&path, &Token::new("second-token")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second-token\n");
        // No temporary file is left beside it.
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
    }
}
