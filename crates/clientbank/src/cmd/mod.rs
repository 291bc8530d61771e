//! The subcommands.

use crate::cli::{Cli, Command};
use crate::exit::{Failure, Outcome};

mod check;
mod parse;

pub(crate) fn run(cli: Cli) -> Result<Outcome, Failure> {
    match cli.command {
        Command::Parse { file, json } => parse::run(&file, json),
        Command::Check {
            files,
            strict,
            json,
        } => check::run(&files, strict, json),
    }
}
