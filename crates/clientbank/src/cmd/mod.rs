//! The subcommands.

use crate::cli::{Cli, Command};
use crate::exit::{Failure, Outcome};

mod check;
mod convert;
mod generate;
mod parse;
mod sandbox;

pub(crate) fn run(cli: Cli) -> Result<Outcome, Failure> {
    match cli.command {
        Command::Parse { file, json } => parse::run(&file, json.mode()),
        Command::Check {
            files,
            strict,
            json,
            today,
        } => check::run(&files, strict, json.mode(), today),
        Command::Convert {
            file,
            to,
            output,
            encoding,
            in_signing,
            today,
            payer_from,
            json,
            strict,
            force,
        } => convert::run(
            &file,
            &convert::Options {
                to,
                output,
                encoding,
                in_signing,
                today,
                payer_from,
                json,
                strict,
                force,
            },
        ),
        Command::Sandbox { addr, time_scale } => sandbox::run(addr, time_scale),
        Command::Completions { shell } => generate::completions(shell),
        Command::Man => generate::man(),
    }
}
