//! The OAuth sign-in of `clientbank login` (API.md, Authentication §3–5): a random `state`, the
//! bank's redirect caught on the loopback address of `[app] redirect_uri`, `state` checked, the
//! single-use code exchanged at once, the token stored in a file only the user can read; the
//! browser is answered with a short page in Russian and English.
//!
//! What the terminal shows (the address, the wait) is the caller's: this module returns the
//! token or an [`Error`] saying why not.

use std::io::{self, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use axum::Router;
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use clientbank_api::{Client, Token, TokenRequest};
use clientbank_diagnostic::os::{Act, cannot};
use clientbank_format::{Message, tr};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use url::Url;

use crate::Error;
use crate::config::App;

/// Where the bank's redirect is caught: a loopback address and the path of `redirect_uri`.
#[derive(Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The loopback address listened on.
    pub addr: SocketAddr,
    /// The path the bank redirects to.
    pub path: String,
}

impl Redirect {
    /// The redirect of `redirect_uri`: `http://` to `127.0.0.1`, `[::1]` or `localhost` only
    /// (anything else would take the code where this program cannot catch it, or over the
    /// network).
    pub fn of(redirect_uri: &str) -> Result<Redirect, Error> {
        let url = Url::parse(redirect_uri).map_err(|e| {
            Error::Usage(Message::new(
                format!("[app] redirect_uri {redirect_uri:?} is not an address: {e}"),
                format!("[app] redirect_uri {redirect_uri:?} — не адрес: {e}"),
            ))
        })?;
        let refuse = || {
            Error::Usage(Message::new(
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
            ))
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
        Ok(Redirect {
            addr: SocketAddr::new(ip, port),
            path: url.path().to_string(),
        })
    }

    /// Listens on its address (before the sign-in address is shown: the redirect cannot come
    /// too early).
    pub async fn listen(&self) -> Result<TcpListener, Error> {
        TcpListener::bind(self.addr).await.map_err(|e| {
            Error::Usage(Message::new(
                format!(
                    "cannot listen on {} for the bank's redirect ([app] redirect_uri): {e}",
                    self.addr
                ),
                format!(
                    "не удалось принять перенаправление банка на {} ([app] redirect_uri): {}",
                    self.addr,
                    clientbank_diagnostic::os::Ru(&e)
                ),
            ))
        })
    }
}

/// 32 random bytes of the operating system's CSPRNG, in hex: the sign-in's `state`.
pub fn random_state() -> Result<String, Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| {
        Error::Usage(Message::new(
            format!("no random state: {e}"),
            format!("не удалось получить случайное значение state: {e}"),
        ))
    })?;
    Ok(hex::encode(bytes))
}

/// One sign-in, waiting for the browser.
pub struct SignIn<'a> {
    /// A client of the bank without a token (the code exchange).
    pub client: &'a Client,
    /// The application registered at the bank.
    pub app: &'a App,
    /// Its secret word.
    pub secret: &'a Token,
    /// This sign-in's `state` ([`random_state`]).
    pub state: &'a str,
    /// The path of the redirect.
    pub path: &'a str,
    /// Where the token is stored (`None`: kept in memory only, the sandbox's).
    pub token_file: Option<&'a Path>,
}

/// What the browser is told.
#[derive(Clone, Copy)]
enum Page {
    Done,
    Failed,
    NotFound,
}

impl IntoResponse for Page {
    fn into_response(self) -> Response {
        let (status, body) = match self {
            Page::Done => (
                StatusCode::OK,
                "<h1>Вход выполнен</h1><p>clientbank получил токен. Это окно можно закрыть.</p>\
                 <h1>Signed in</h1><p>clientbank has its token. You may close this window.</p>",
            ),
            Page::Failed => (
                StatusCode::BAD_REQUEST,
                "<h1>Вход не выполнен</h1><p>Причина — в окне терминала, где запущен clientbank \
                 login.</p><h1>Sign-in failed</h1><p>The terminal running clientbank login says \
                 why.</p>",
            ),
            Page::NotFound => (StatusCode::NOT_FOUND, "<p>Not found / Не найдено</p>"),
        };
        let html = format!(
            "<!doctype html><html lang=\"ru\"><head><meta charset=\"utf-8\"><title>clientbank\
             </title></head><body>{body}</body></html>"
        );
        (
            status,
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CACHE_CONTROL, "no-store"),
            ],
            html,
        )
            .into_response()
    }
}

/// A request on the redirect's path: its query, and where to say which page it gets.
type Arrived = (Vec<(String, String)>, oneshot::Sender<Page>);

impl SignIn<'_> {
    /// Serves `listener` until the bank's redirect comes: other paths are answered 404, a
    /// request without this sign-in's `state` (an old tab, someone else's link) is refused and
    /// waited past, with `on_stray` told; the redirect ends the sign-in either way.
    pub async fn wait(
        &self,
        listener: TcpListener,
        on_stray: impl Fn(&Message),
    ) -> Result<Token, Error> {
        let (arrived, mut requests) = mpsc::channel::<Arrived>(4);
        let path = self.path.to_string();
        let router = Router::new().fallback(move |method: Method, uri: Uri| {
            let (arrived, path) = (arrived.clone(), path.clone());
            async move {
                if method != Method::GET || uri.path() != path {
                    return Page::NotFound;
                }
                let query = url::form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
                    .into_owned()
                    .collect();
                let (page, shown) = oneshot::channel();
                if arrived.send((query, page)).await.is_err() {
                    return Page::Failed;
                }
                shown.await.unwrap_or(Page::Failed)
            }
        });
        let (stop, stopped) = oneshot::channel::<()>();
        let server = tokio::spawn(
            axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .into_future(),
        );
        let result = loop {
            let Some((query, page)) = requests.recv().await else {
                break Err(Error::Usage(Message::new(
                    "the listener for the bank's redirect stopped",
                    "приём перенаправления банка остановился",
                )));
            };
            let param = |name: &str| query.iter().find(|(k, _)| k == name).map(|(_, v)| v);
            if param("state").map(String::as_str) != Some(self.state) {
                on_stray(&Message::new(
                    "state mismatch: a request that does not answer the sign-in started here (an \
                     old browser tab, or someone else's link) was refused; still waiting for the \
                     bank's redirect",
                    "state не совпадает: запрос, не относящийся к входу, начатому здесь (старая \
                     вкладка браузера или чужая ссылка), отклонён; ожидание перенаправления банка \
                     продолжается",
                ));
                let _ = page.send(Page::Failed);
                continue;
            }
            let result = self.redirected(param("error"), param("code")).await;
            let _ = page.send(if result.is_ok() {
                Page::Done
            } else {
                Page::Failed
            });
            break result;
        };
        let _ = stop.send(());
        let _ = server.await;
        result
    }

    /// The redirect, `state` checked: the code exchanged at once, the token stored.
    async fn redirected(
        &self,
        error: Option<&String>,
        code: Option<&String>,
    ) -> Result<Token, Error> {
        if let Some(error) = error {
            let error = shown(error);
            return Err(Error::Refused(Message::new(
                format!("the bank refused the sign-in: {error}"),
                format!("банк отказал во входе: {error}"),
            )));
        }
        let Some(code) = code.filter(|c| !c.is_empty()) else {
            return Err(Error::Refused(Message::new(
                "the bank's redirect carries no code; run clientbank login again",
                "в перенаправлении банка нет кода; выполните clientbank login заново",
            )));
        };
        let request = TokenRequest {
            client_id: self.app.client_id.clone(),
            client_secret: self.secret.expose_secret().to_string(),
            redirect_uri: self.app.redirect_uri.clone(),
            code: code.clone(),
        };
        let token = self
            .client
            .exchange_code(&request)
            .await
            .map_err(exchange_failure)?;
        if let Err(why) = token.check() {
            return Err(Error::Refused(Message::new(
                format!("the bank's token cannot be used: {why}"),
                format!("токен банка непригоден: {why}"),
            )));
        }
        if let Some(path) = self.token_file {
            store_token(path, &token).map_err(Error::io(tr!(
                "cannot store the token in {}", path.display() ;
                "не удалось сохранить токен в {}", path.display()
            )))?;
        }
        Ok(token)
    }
}

/// Text from the redirect, for the terminal: control characters as spaces, at most 200
/// characters (the 200th an ellipsis when cut).
fn shown(text: &str) -> String {
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().count() <= 200 {
        return text;
    }
    text.chars().take(199).chain(['…']).collect()
}

/// The exchange's refusal, named: an expired code, a code used twice, a wrong application;
/// any other error of the bank as it is.
fn exchange_failure(e: clientbank_api::Error) -> Error {
    let clientbank_api::Error::Api {
        status: 400..=499,
        exception_type,
        message,
    } = &e
    else {
        return Error::Api(e);
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
        return Error::Api(e);
    };
    let said = e.message();
    Error::Refused(Message::new(
        format!("{en} ({})", said.en()),
        format!("{ru} ({})", said.ru()),
    ))
}

/// Opens the address with the desktop's opener, when there is a desktop; failures ignored
/// (the caller shows the address anyway).
pub fn open_browser(url: &str) {
    let desktop = cfg!(any(windows, target_os = "macos"))
        || ["DISPLAY", "WAYLAND_DISPLAY"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()));
    if desktop {
        let _ = webbrowser::open(url);
    }
}

/// Writes the token to `path` so that no other user can ever read it: a temporary file in the
/// same folder (0600 on Unix, set before the secret is written), synced, then renamed over
/// the old one. On Windows the file lies in the user's profile, which only the user reads.
pub fn store_token(path: &Path, token: &Token) -> io::Result<()> {
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

/// What `clientbank login` needs before it starts: the application, its client secret, and
/// where the token goes (`None` for the sandbox bank: its token ends with the process).
#[derive(Debug)]
pub struct Prepared {
    /// The application registered at the bank (the sandbox's own with `sandbox`).
    pub app: App,
    /// The application's client secret.
    pub secret: Token,
    /// The token file.
    pub token_file: Option<PathBuf>,
}

impl Prepared {
    /// What `settings` give for a sign-in; what is missing is said with what to do instead.
    pub fn of(settings: &crate::Settings, sandbox: bool) -> Result<Prepared, Error> {
        let app = match (&settings.app, sandbox) {
            (Some(app), true) => App {
                redirect_uri: app.redirect_uri.clone(),
                ..App::sandbox()
            },
            (None, true) => App::sandbox(),
            (Some(app), false) => app.clone(),
            (None, false) => {
                return Err(Error::Config(Message::new(
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
            return Err(Error::Config(Message::new(
                "the application's client secret is not configured ([app] client_secret_file, or \
                 CLIENTBANK_CLIENT_SECRET): without it the bank's code cannot be exchanged. Without \
                 the secret, put a token generated in the bank's cabinet in the file named by \
                 `token_file` or in CLIENTBANK_TOKEN instead",
                "не задан секрет приложения ([app] client_secret_file или CLIENTBANK_CLIENT_SECRET): \
                 без него код банка не обменять на токен. Без секрета положите токен, выпущенный в \
                 кабинете банка, в файл из `token_file` или в CLIENTBANK_TOKEN",
            )));
        };
        // The sandbox's token dies with this process: nothing is stored over a real one.
        let token_file = match (sandbox, settings.token_file.clone()) {
            (true, _) => None,
            (false, Some(path)) => Some(path),
            (false, None) => {
                return Err(Error::Config(Message::new(
                    "no folder for the token: set `token_file` in clientbank.toml",
                    "некуда сохранить токен: задайте `token_file` в clientbank.toml",
                )));
            }
        };
        Ok(Prepared {
            app,
            secret,
            token_file,
        })
    }
}

/// One `clientbank login`: what the settings give for it ([`Prepared`]), where the bank's
/// redirect is caught ([`Redirect`]) and its random `state`; the address to sign in at, then
/// the token.
#[derive(Debug)]
pub struct Login {
    prepared: Prepared,
    redirect: Redirect,
    state: String,
}

impl Login {
    /// A sign-in with `settings` (the sandbox bank's application with `sandbox`); what is
    /// missing is said with what to do instead.
    pub fn prepare(settings: &crate::Settings, sandbox: bool) -> Result<Login, Error> {
        let prepared = Prepared::of(settings, sandbox)?;
        let redirect = Redirect::of(&prepared.app.redirect_uri)?;
        let state = random_state()?;
        Ok(Login {
            prepared,
            redirect,
            state,
        })
    }

    /// The application's redirect address.
    pub fn redirect_uri(&self) -> &str {
        &self.prepared.app.redirect_uri
    }

    /// Where the token is stored (`None` for the sandbox bank: its token ends with the process).
    pub fn token_file(&self) -> Option<&Path> {
        self.prepared.token_file.as_deref()
    }

    /// The bank's address to sign in at (`client`: a client of the bank without a token).
    pub fn authorize_url(&self, client: &Client) -> Result<Url, Error> {
        let app = &self.prepared.app;
        let scopes: Vec<&str> = app.scope.split(' ').filter(|s| !s.is_empty()).collect();
        Ok(client.authorize_url(&app.client_id, &app.redirect_uri, &scopes, &self.state)?)
    }

    /// Listens where the bank's redirect comes.
    pub async fn listen(&self) -> Result<TcpListener, Error> {
        self.redirect.listen().await
    }

    /// Waits up to `timeout` for the bank to send the browser back to `listener`, then
    /// exchanges its code for the token and stores it ([`SignIn::wait`]).
    pub async fn wait(
        &self,
        client: &Client,
        listener: TcpListener,
        timeout: std::time::Duration,
        on_stray: impl Fn(&Message),
    ) -> Result<Token, Error> {
        let sign_in = SignIn {
            client,
            app: &self.prepared.app,
            secret: &self.prepared.secret,
            state: &self.state,
            path: &self.redirect.path,
            token_file: self.token_file(),
        };
        let Ok(token) = tokio::time::timeout(timeout, sign_in.wait(listener, on_stray)).await
        else {
            let secs = timeout.as_secs();
            return Err(Error::Refused(Message::new(
                format!(
                    "timeout: the browser did not come back from the bank in {secs} s; run \
                     clientbank login again"
                ),
                format!(
                    "время вышло: браузер не вернулся из банка за {secs} с; выполните \
                     clientbank login заново"
                ),
            )));
        };
        token
    }
}

/// How many accounts `token` sees at the bank of `settings`: the sandbox's token shown to
/// work before it is forgotten.
pub async fn accounts_seen(settings: &crate::Settings, token: Token) -> Result<usize, Error> {
    let mut check = settings.clone();
    check.token = Some(token);
    check.sandbox = false;
    Ok(check.client()?.accounts().await?.len())
}

/// What [`logout`] did.
#[derive(Debug)]
pub enum LoggedOut {
    /// No token file is configured, or there is none: nothing to revoke (a warning).
    NotLoggedIn(Message),
    /// The token file held no usable token: removed without asking the bank (a warning).
    Unusable(Message),
    /// The bank revoked the token, or said it was already invalid: the file removed.
    Revoked(Message),
    /// The bank refused or could not be reached: the file kept (`said`, a warning after the
    /// bank's `error`).
    Kept {
        /// The bank's error.
        error: clientbank_api::Error,
        /// That the file is kept, and what to do.
        said: Message,
    },
}

/// `clientbank logout`: the token of the token file revoked at the bank, then the file removed.
pub async fn logout(mut settings: crate::Settings) -> Result<LoggedOut, Error> {
    let Some(path) = settings.token_file.clone() else {
        return Ok(LoggedOut::NotLoggedIn(Message::new(
            "not logged in: no token file is configured",
            "вход не выполнен: файл токена не задан",
        )));
    };
    let shown = path.display();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(LoggedOut::NotLoggedIn(Message::new(
                format!("not logged in: there is no token file {shown}"),
                format!("вход не выполнен: файла токена {shown} нет"),
            )));
        }
        Err(e) => {
            return Err(Error::io(tr!(
                "cannot read the token file {shown}" ;
                "не удалось прочитать файл токена {shown}"
            ))(e));
        }
    };
    let token = Token::new(text.trim());
    if let Err(why) = token.check() {
        remove(&path)?;
        return Ok(LoggedOut::Unusable(Message::new(
            format!(
                "the token file {shown} holds no usable token ({why}): removed without asking the bank"
            ),
            format!("в файле {shown} нет годного токена ({why}): удалён без обращения к банку"),
        )));
    }
    settings.token = Some(token);
    settings.token_from_login = true;
    let client = settings.client()?;
    match client.revoke().await {
        Ok(()) => {
            remove(&path)?;
            Ok(LoggedOut::Revoked(Message::new(
                format!("logged out: the bank revoked the token; {shown} removed"),
                format!("выход выполнен: банк отозвал токен; {shown} удалён"),
            )))
        }
        Err(clientbank_api::Error::Unauthorized { .. }) => {
            remove(&path)?;
            Ok(LoggedOut::Revoked(Message::new(
                format!(
                    "logged out: the bank says the token was already invalid (revoked or \
                     expired); {shown} removed"
                ),
                format!(
                    "выход выполнен: банк считает токен уже недействительным (отозван или \
                     истёк); {shown} удалён"
                ),
            )))
        }
        Err(error) => Ok(LoggedOut::Kept {
            error,
            said: Message::new(
                format!("the token file {shown} is kept: run clientbank logout again"),
                format!("файл токена {shown} оставлен: выполните clientbank logout ещё раз"),
            ),
        }),
    }
}

/// Removes the token file (one already gone is fine).
fn remove(path: &Path) -> Result<(), Error> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            Err(Error::io(cannot(Act::Remove, path.display()))(e))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_loopback_redirect_is_listened_on() {
        let r = Redirect::of("http://127.0.0.1:8080/callback").unwrap();
        assert_eq!(r.addr, "127.0.0.1:8080".parse().unwrap());
        assert_eq!(r.path, "/callback");
        let r = Redirect::of("http://localhost/cb?app=1").unwrap();
        assert_eq!(r.addr, "127.0.0.1:80".parse().unwrap());
        assert_eq!(r.path, "/cb");
        assert_eq!(
            Redirect::of("http://[::1]:9/").unwrap().addr,
            "[::1]:9".parse().unwrap()
        );
        for bad in [
            "https://127.0.0.1:8080/callback",
            "http://192.168.1.5:8080/callback",
            "http://example.com/callback",
            "http://0.0.0.0:8080/",
            "not a url",
        ] {
            let message = Redirect::of(bad).unwrap_err().message();
            assert!(
                message.en().contains("redirect_uri") && message.ru().contains("redirect_uri"),
                "{}",
                message.en()
            );
        }
    }

    #[test]
    fn the_state_is_random_and_long() {
        let (a, b) = (random_state().unwrap(), random_state().unwrap());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
    }

    #[test]
    fn what_the_redirect_carries_is_shown_escaped_and_short() {
        assert_eq!(shown("a\nb\u{1b}[2J"), "a b [2J");
        assert_eq!(shown(&"x".repeat(300)).chars().count(), 200);
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
