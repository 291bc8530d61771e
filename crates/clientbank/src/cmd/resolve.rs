//! `clientbank resolve DIR FILE [--sent [N…]] [--not-sent [N…]]`.

use std::path::Path;

use clientbank_watch::commands;

use super::watch::error_outcome;
use crate::exit::{Failure, Outcome};

pub(crate) fn run(
    dir: &Path,
    file: &str,
    settlement: &commands::Settlement,
) -> Result<Outcome, Failure> {
    match commands::settle(dir, file, settlement) {
        Ok(message) => {
            println!("{message}");
            Ok(Outcome::Clean)
        }
        Err(e) => {
            crate::term::error(e.message().get(crate::term::lang()));
            Ok(error_outcome(e.exit_code()))
        }
    }
}
