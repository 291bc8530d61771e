//! Exit codes: the one place that maps outcomes to them.
//!
//! - 0: success (warnings alone do not fail)
//! - 1: an error finding (or, with `--strict`, any finding)
//! - 2: usage, I/O or unreadable input
//! - 3: bank unavailable

use std::io;
use std::process::ExitCode;

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

/// What stops a command.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Writing the output failed.
    Output(io::Error),
}

pub(crate) fn finish(result: Result<Outcome, Failure>) -> ExitCode {
    match result {
        Ok(outcome) => ExitCode::from(outcome as u8),
        // Output piped into `head`: not an error.
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Output(e)) => {
            crate::term::error(&crate::term::tr(
                format!("cannot write the output: {e}"),
                format!("не удалось записать результат: {e}"),
            ));
            ExitCode::from(Outcome::Unreadable as u8)
        }
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Output(e)
    }
}
