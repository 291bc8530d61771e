//! `clientbank login` (the OAuth flow of API.md, Authentication §3–5) and `clientbank logout`.
//!
//! Login prints (and on a desktop opens) the bank's authorize address with a random `state`,
//! listens on the loopback address of `[app] redirect_uri`, takes the browser's redirect, checks
//! `state`, exchanges the single-use code at once, stores the token in a file only the user can
//! read (written to a 0600 temporary file beside it, then renamed) and answers the browser with
//! a short page in Russian and English.

use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

use clientbank_api::Token;
use clientbank_bank::config::App;
use clientbank_bank::login::{Redirect, SignIn, open_browser, random_state};

use super::bank::{bank_failure, client, sandbox_if, settings, use_sandbox};
use crate::cli::BankArgs;
use crate::exit::{Failure, Outcome};
use crate::term::tr;
use clientbank_format::Message;

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    pub(crate) bank: BankArgs,
    /// Print the address only; do not open a browser.
    #[arg(long)]
    pub(crate) no_browser: bool,
    /// How long to wait for the bank's redirect, in seconds.
    #[arg(long, default_value_t = 300, value_name = "SECS")]
    pub(crate) timeout: u64,
}

pub(crate) fn login(login: &Args) -> Result<Outcome, Failure> {
    let (args, no_browser, timeout) = (&login.bank, login.no_browser, login.timeout);
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
    let redirect = Redirect::of(&app.redirect_uri)?;
    // The sandbox's token dies with this process: nothing is stored over a real one.
    let token_file = match (args.sandbox, settings.token_file.clone()) {
        (true, _) => None,
        (false, Some(path)) => Some(path),
        (false, None) => {
            return Err(Failure::Stopped(Message::new(
                "no folder for the token: set `token_file` in clientbank.toml",
                "некуда сохранить токен: задайте `token_file` в clientbank.toml",
            )));
        }
    };
    let state = random_state()?;
    crate::runtime::run(async move {
        let bank = sandbox_if(args.sandbox, Some(&app.redirect_uri), &mut settings).await?;
        let anonymous = settings.anonymous_client()?;
        let scopes: Vec<&str> = app.scope.split(' ').filter(|s| !s.is_empty()).collect();
        let url = anonymous.authorize_url(&app.client_id, &app.redirect_uri, &scopes, &state)?;
        let listener = redirect.listen().await?;
        say_where(url.as_str(), &app.redirect_uri, timeout)?;
        if !no_browser {
            open_browser(url.as_str());
        }
        let sign_in = SignIn {
            client: &anonymous,
            app: &app,
            secret: &secret,
            state: &state,
            path: &redirect.path,
            token_file: token_file.as_deref(),
        };
        let stray = |m: &Message| crate::term::warning(m.get(crate::term::lang()));
        let waited =
            tokio::time::timeout(Duration::from_secs(timeout), sign_in.wait(listener, stray));
        let Ok(token) = waited.await else {
            return Err(Failure::Bank(clientbank_bank::Error::Refused(
                Message::new(
                    format!(
                        "timeout: the browser did not come back from the bank in {timeout} s; run \
                     clientbank login again"
                    ),
                    format!(
                        "время вышло: браузер не вернулся из банка за {timeout} с; выполните \
                     clientbank login заново"
                    ),
                ),
            )));
        };
        let token = token?;
        let said = match &token_file {
            Some(path) => tr(
                format!(
                    "logged in: the token is stored in {} (only you can read it)",
                    path.display()
                ),
                format!(
                    "вход выполнен: токен сохранён в {} (читать его можете только вы)",
                    path.display()
                ),
            ),
            None => {
                // The sandbox's token is shown to work, then forgotten with it.
                let mut check = settings.clone();
                check.token = Some(token);
                check.sandbox = false;
                let accounts = client(&check)?.accounts().await?;
                tr(
                    format!(
                        "logged in to the sandbox bank: the token sees {} account(s); it ends \
                         with this process, nothing stored",
                        accounts.len()
                    ),
                    format!(
                        "вход в тестовый банк выполнен: токену видно счетов: {}; он живёт, пока \
                         идёт эта команда, ничего не сохранено",
                        accounts.len()
                    ),
                )
            }
        };
        writeln!(io::stdout().lock(), "{said}")?;
        drop(bank);
        Ok(Outcome::Clean)
    })
}

/// Says where to sign in, and for how long the answer is awaited (on stderr, flushed: it is
/// seen at once, also through a pipe).
fn say_where(url: &str, redirect_uri: &str, timeout: u64) -> io::Result<()> {
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
                "Waiting up to {timeout} s for the bank to send the browser back to {redirect_uri}"
            ),
            format!("Ждём до {timeout} с, пока банк вернёт браузер на {redirect_uri}"),
        )
    )?;
    err.flush()
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
