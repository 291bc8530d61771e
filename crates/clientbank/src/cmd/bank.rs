//! What every command that talks to the bank shares: the configuration, `--sandbox`, the bank's
//! errors as exit codes.

use std::future::Future;

use clientbank_api::{Client, Token};
use clientbank_bank::Settings;

use super::setup::{load, warn_of};
use crate::cli::BankArgs;
use crate::exit::{Failure, Outcome, api_failure};
use crate::sandbox_bank::{self, Sandbox};

/// The fixed token of the sandbox bank's sandbox mode (API.md, Sandbox mode).
pub(crate) const SANDBOX_TOKEN: &str = "sandboxtoken";

/// The configuration of `--dir`/`--config` and the environment; on failure the error is said
/// and the exit code returned.
pub(crate) fn settings(args: &BankArgs) -> Result<Settings, Failure> {
    let settings = load(&args.dir, args.config.as_deref())?;
    warn_of(&settings);
    Ok(settings)
}

/// With `wanted` (`--sandbox`): the in-process sandbox bank, started and `settings` pointed at
/// it ([`use_sandbox`]); `None` otherwise.
pub(crate) async fn sandbox_if(
    wanted: bool,
    redirect_uri: Option<&str>,
    settings: &mut Settings,
) -> Result<Option<Sandbox>, Failure> {
    if !wanted {
        return Ok(None);
    }
    let bank = sandbox_bank::start(redirect_uri).await?;
    use_sandbox(settings, &bank);
    Ok(Some(bank))
}

/// Points the settings at the in-process sandbox bank: its address, and its fixed token in
/// sandbox mode unless a token is configured (in the file or the environment, not login's).
pub(crate) fn use_sandbox(settings: &mut Settings, bank: &Sandbox) {
    settings.bank_url = Some(bank.url());
    settings.built_in_bank = true;
    if settings.token.is_some() && !settings.token_from_login {
        settings.sandbox = false;
    } else {
        settings.token = Some(Token::new(SANDBOX_TOKEN));
        settings.token_from_login = false;
        settings.sandbox = true;
    }
}

/// The API client of the settings; a configuration that cannot make one is said (exit 2).
pub(crate) fn client(settings: &Settings) -> Result<Client, Failure> {
    Ok(settings.client()?)
}

/// Says what the bank's error means and returns the exit code (see [`api_failure`]).
pub(crate) fn bank_failure(e: &clientbank_api::Error) -> Outcome {
    let (message, outcome) = api_failure(e);
    crate::term::error(&message);
    outcome
}

/// Runs `work` with a client of the settings (against the in-process sandbox bank with
/// `--sandbox`), on a runtime of its own.
pub(super) fn with_client<W, F>(args: &BankArgs, work: W) -> Result<Outcome, Failure>
where
    W: FnOnce(Client) -> F,
    F: Future<Output = Result<Outcome, Failure>>,
{
    let mut settings = settings(args)?;
    crate::runtime::run(async move {
        let bank = sandbox_if(args.sandbox, None, &mut settings).await?;
        let client = client(&settings)?;
        let outcome = work(client).await;
        drop(bank);
        outcome
    })
}
