//! `clientbank login` (the OAuth flow of API.md, Authentication §3–5) and `clientbank logout`.
//!
//! Login prints (and on a desktop opens) the bank's authorize address with a random `state`,
//! listens on the loopback address of `[app] redirect_uri`, takes the browser's redirect, checks
//! `state`, exchanges the single-use code at once, stores the token in a file only the user can
//! read (written to a 0600 temporary file beside it, then renamed) and answers the browser with
//! a short page in Russian and English.

use std::io::{self, Write};
use std::time::Duration;

use clientbank_api::Token;
use clientbank_bank::Settings;
use clientbank_bank::login::{Login, accounts_seen, open_browser};

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
    let (args, timeout) = (&login.bank, login.timeout);
    let mut settings = settings(args)?;
    let flow = Login::prepare(&settings, args.sandbox)?;
    crate::runtime::run(async move {
        let bank = sandbox_if(args.sandbox, Some(flow.redirect_uri()), &mut settings).await?;
        let anonymous = settings.anonymous_client()?;
        bank_is_there(&anonymous).await?;
        let url = flow.authorize_url(&anonymous)?;
        let listener = flow.listen().await?;
        say_where(url.as_str(), flow.redirect_uri(), timeout)?;
        if !login.no_browser {
            open_browser(url.as_str());
        }
        let stray = |m: &Message| crate::term::warning(m.get(crate::term::lang()));
        let waiting = Duration::from_secs(timeout);
        let token = flow.wait(&anonymous, listener, waiting, stray).await?;
        let said = logged_in(&flow, &settings, token).await?;
        writeln!(io::stdout().lock(), "{said}")?;
        drop(bank);
        Ok(Outcome::Clean)
    })
}

/// The bank's API answers at `bank_url`: asked once without a token (its 401 is the answer
/// wanted), so that a `bank_url` without `/v1`, `https` to a plain-HTTP bank or no bank at all
/// is said now, with what to do, as every bank command says it, not after the browser's wait.
async fn bank_is_there(anonymous: &clientbank_api::Client) -> Result<(), Failure> {
    use clientbank_api::Error as E;
    match anonymous.companies().await {
        Ok(_) | Err(E::Unauthorized { .. } | E::AccessDenied { .. }) => Ok(()),
        Err(e) => Err(Failure::Api(e)),
    }
}

/// What a login says once it has the token: where it is stored; the sandbox's token is shown
/// to work, then forgotten with it.
async fn logged_in(flow: &Login, settings: &Settings, token: Token) -> Result<String, Failure> {
    Ok(match flow.token_file() {
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
        // The sandbox's token is shown to work, then forgotten with it.
        None => {
            let seen = accounts_seen(settings, token).await?;
            tr(
                format!(
                    "logged in to the sandbox bank: the token sees {seen} account(s); it \
                     ends with this process, nothing stored"
                ),
                format!(
                    "вход в тестовый банк выполнен: токену видно счетов: {seen}; он живёт, \
                     пока идёт эта команда, ничего не сохранено"
                ),
            )
        }
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
    use clientbank_bank::login::LoggedOut;
    let mut settings = settings(args)?;
    crate::runtime::run(async move {
        if args.sandbox {
            let bank = crate::sandbox_bank::start(None).await?;
            settings.token = None;
            use_sandbox(&mut settings, &bank);
            if let Err(e) = client(&settings)?.revoke().await {
                return Ok(bank_failure(&e));
            }
            let said = tr(
                "the sandbox bank took the revocation of its fixed token; no file was touched",
                "тестовый банк принял отзыв своего постоянного токена; файлы не тронуты",
            );
            writeln!(io::stdout().lock(), "{said}")?;
            return Ok(Outcome::Clean);
        }
        let lang = crate::term::lang();
        match clientbank_bank::login::logout(settings).await? {
            LoggedOut::NotLoggedIn(said) | LoggedOut::Unusable(said) => {
                crate::term::warning(said.get(lang));
            }
            LoggedOut::Revoked(said) => writeln!(io::stdout().lock(), "{}", said.get(lang))?,
            LoggedOut::Kept { error, said } => {
                let outcome = bank_failure(&error);
                crate::term::warning(said.get(lang));
                return Ok(outcome);
            }
        }
        Ok(Outcome::Clean)
    })
}
