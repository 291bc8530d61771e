//! Exit codes: the one place that maps outcomes to them.
//!
//! - 0: success (warnings alone do not fail)
//! - 1: an error finding (or, with `--strict`, any finding)
//! - 2: usage, I/O or unreadable input
//! - 3: bank unavailable

use std::io;
use std::process::ExitCode;

use clientbank_format::{Message, tr};

/// How a command ended when it did not fail outright.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Outcome {
    /// Nothing to complain about (warnings allowed).
    Clean = 0,
    /// At least one error finding.
    Findings = 1,
    /// At least one input could not be read.
    Unreadable = 2,
    /// The bank is unavailable (maintenance, no connection).
    BankUnavailable = 3,
    /// No daemon works on the folder (`status --check`).
    NotRunning = 4,
}

/// What stops a command: the error of the layer it came from, kept with its causes, said once
/// by [`finish`] in the user's language.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Writing the output failed.
    Output(io::Error),
    /// The daemon's side: the journal, the folders, an upload or signing.
    Watch(clientbank_watch::Error),
    /// The bank's side: the configuration, the signer, a statement.
    Bank(clientbank_bank::Error),
    /// The bank answered with an error or could not be reached.
    Api(clientbank_api::Error),
    /// The command cannot go on, for the reason given (in both languages): what the command
    /// line asks cannot be, or what it needs (a folder, a port) is not there. Exit 2.
    Stopped(clientbank_format::Message),
    /// Said already, where more than a line had to be said: the exit code alone.
    Said(Outcome),
}

pub(crate) fn finish(result: Result<Outcome, Failure>) -> ExitCode {
    let outcome = match result {
        Ok(outcome) => outcome,
        // Output piped into `head`: not an error.
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => Outcome::Clean,
        Err(Failure::Said(outcome)) => outcome,
        Err(failure) => {
            let (message, outcome) = failure.said();
            crate::term::error(&message);
            outcome
        }
    };
    ExitCode::from(outcome as u8)
}

/// A command's outcome once its report is printed: standard output gone (`| head -1`) ends it
/// quietly with that outcome, as ripgrep ends; another error writing it (a full disk) is the
/// command's failure.
pub(crate) fn after_printing(
    printed: io::Result<()>,
    outcome: Outcome,
) -> Result<Outcome, Failure> {
    match printed {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(Failure::Output(e)),
        _ => Ok(outcome),
    }
}

impl Failure {
    /// What the user reads, in their language, and the exit code.
    fn said(self) -> (String, Outcome) {
        let lang = crate::term::lang();
        match self {
            Failure::Output(e) => (
                crate::term::tr(
                    format!("cannot write the output: {e}"),
                    format!(
                        "не удалось записать результат: {}",
                        clientbank_diagnostic::os::Ru(&e)
                    ),
                ),
                Outcome::Unreadable,
            ),
            // The bank's answer, wherever it came through: said with what to do, alike for
            // every command.
            Failure::Watch(clientbank_watch::Error::Bank(clientbank_bank::Error::Api(e)))
            | Failure::Bank(clientbank_bank::Error::Api(e))
            | Failure::Api(e) => api_failure(&e),
            Failure::Watch(e) => (e.message().get(lang).to_string(), exit_code(e.exit_code())),
            // The history and the balance disagree, or the sign-in was refused: the bank's
            // answer (exit 1).
            Failure::Bank(
                e @ (clientbank_bank::Error::Unbalanced(_) | clientbank_bank::Error::Refused(_)),
            ) => (e.message().get(lang).to_string(), Outcome::Findings),
            Failure::Bank(e) => (e.message().get(lang).to_string(), exit_code(e.exit_code())),
            Failure::Stopped(message) => (message.get(lang).to_string(), Outcome::Unreadable),
            Failure::Said(outcome) => (String::new(), outcome),
        }
    }
}

/// The outcome of a library's exit code: 3 when the bank is unavailable, 2 otherwise.
fn exit_code(code: u8) -> Outcome {
    if code == 3 {
        Outcome::BankUnavailable
    } else {
        Outcome::Unreadable
    }
}

/// What the bank's error means, with what to do, and the exit code: 3 when the bank is
/// unavailable (maintenance, no connection, no answer), 2 for the client's own configuration or
/// an address that is not the bank's API, 1 for a refused request (401, 403, 400 …).
pub(crate) fn api_failure(e: &clientbank_api::Error) -> (String, Outcome) {
    let (message, outcome) = api_said(e);
    (message.get(crate::term::lang()).to_string(), outcome)
}

/// [`api_failure`] in both languages: the bank's error said by [`clientbank_api::Error::message`]
/// in each, with what to do.
pub(crate) fn api_said(e: &clientbank_api::Error) -> (Message, Outcome) {
    use clientbank_api::Error as E;
    let said = e.message();
    let (en, ru) = (said.en(), said.ru());
    match e {
        // The client's own configuration (https to plain HTTP, a certificate not trusted):
        // no waiting mends it.
        E::Connect(_) if e.misconfigured_connection() => (
            tr!("{en}" ; "неверные настройки: {ru}"),
            Outcome::Unreadable,
        ),
        E::Maintenance | E::Connect(_) | E::Timeout | E::Transport(_) => (
            tr!("the bank is unavailable: {en}" ; "банк недоступен: {ru}"),
            Outcome::BankUnavailable,
        ),
        E::Api { status, .. } if *status >= 500 || *status == 429 => (
            tr!("the bank is unavailable: {en}" ; "банк недоступен: {ru}"),
            Outcome::BankUnavailable,
        ),
        E::Unauthorized { .. } => (
            tr!(
                "{en}: run `clientbank login` again, or check the token (`token_file`, \
                 CLIENTBANK_TOKEN)" ;
                "{ru}: выполните `clientbank login` заново или проверьте токен (`token_file`, \
                 CLIENTBANK_TOKEN)"
            ),
            Outcome::Findings,
        ),
        E::AccessDenied { status: 403, .. } => (
            tr!(
                "{en}: the token lacks the right this needs (account-info for accounts and \
                 balances, operation-history for the history and statements, money-transfer \
                 for uploading and signing): get a token with it in the bank's cabinet, or run \
                 `clientbank login`" ;
                "{ru}: у токена нет нужного права (account-info для счетов и остатков, \
                 operation-history для истории и выписок, money-transfer для загрузки и \
                 подписи): получите токен с ним в интернет-банке или выполните \
                 `clientbank login`"
            ),
            Outcome::Findings,
        ),
        E::AccessDenied { .. } => (said, Outcome::Findings),
        E::Config(_) | E::InvalidId { .. } => (
            tr!("{en}" ; "неверные настройки: {ru}"),
            Outcome::Unreadable,
        ),
        // An address with no such endpoint: a bank_url without /v1, or not the bank — the
        // hint `watch` gives.
        E::Api {
            status: 404 | 405 | 415,
            ..
        } => (
            tr!(
                "{en}: the address is not the bank's API: bank_url must be the API's root, \
                 ending in /v1" ;
                "{ru}: по этому адресу нет API банка: bank_url — корень API, он \
                 оканчивается на /v1"
            ),
            Outcome::Unreadable,
        ),
        _ => (
            tr!("the bank refused the request: {en}" ; "банк отклонил запрос: {ru}"),
            Outcome::Findings,
        ),
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Output(e)
    }
}

impl From<clientbank_watch::Error> for Failure {
    fn from(e: clientbank_watch::Error) -> Failure {
        Failure::Watch(e)
    }
}

impl From<clientbank_bank::Error> for Failure {
    fn from(e: clientbank_bank::Error) -> Failure {
        Failure::Bank(e)
    }
}

impl From<clientbank_api::Error> for Failure {
    fn from(e: clientbank_api::Error) -> Failure {
        Failure::Api(e)
    }
}

impl From<Outcome> for Failure {
    fn from(outcome: Outcome) -> Failure {
        Failure::Said(outcome)
    }
}
