//! The subcommands.

use clientbank_format::Lang;

use crate::cli::{Cli, Command};
use crate::exit::{Failure, Outcome};

mod check;
mod convert;
mod parse;
mod sandbox;

pub(crate) fn run(cli: Cli) -> Result<Outcome, Failure> {
    // The language of messages: the locale's (`LANG=ru_RU.UTF-8` → Russian).
    let lang = Lang::from_locale();
    match cli.command {
        Command::Parse { file, json } => parse::run(&file, json, lang),
        Command::Check {
            files,
            strict,
            json,
            today,
        } => check::run(&files, strict, json, today, lang),
        Command::Convert {
            file,
            to,
            output,
            encoding,
            in_signing,
            today,
        } => convert::run(
            &file,
            &convert::Options {
                to,
                output,
                encoding,
                in_signing,
                today,
                lang,
            },
        ),
        Command::Sandbox { addr, time_scale } => sandbox::run(addr, time_scale),
    }
}
