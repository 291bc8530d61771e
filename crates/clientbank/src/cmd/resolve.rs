//! `clientbank resolve DIR FILE [--sent [N…]] [--not-sent [N…]]`.

use std::path::Path;

use clientbank_watch::commands;

use crate::exit::{Failure, Outcome};

pub(crate) fn run(
    dir: &Path,
    file: &str,
    settlement: &commands::Settlement,
) -> Result<Outcome, Failure> {
    println!(
        "{}",
        commands::settle(dir, file, settlement, crate::term::lang())?
    );
    Ok(Outcome::Clean)
}
