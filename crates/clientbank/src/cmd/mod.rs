//! The subcommands.

use crate::cli::{Cli, Command};
use crate::exit::{Failure, Outcome};

mod check;
mod convert;
mod generate;
mod parse;
mod resolve;
mod sandbox;
mod sign;
mod status;
mod upload;
mod watch;
mod webhook;

pub(crate) fn run(cli: Cli) -> Result<Outcome, Failure> {
    // The daemon's `FILE.errors.txt` and reports speak the language chosen here.
    clientbank_watch::drop::set_lang(crate::term::lang());
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
        Command::Upload {
            files,
            dir,
            route,
            in_signing,
            json,
            config,
            today,
        } => upload::run(&upload::Args {
            files,
            dir,
            route,
            in_signing,
            json,
            config,
            today,
        }),
        Command::Sign {
            dir,
            company,
            dry_run,
            json,
            config,
        } => sign::run(&dir, config.as_deref(), company.as_deref(), dry_run, json),
        Command::Watch {
            dir,
            once,
            sandbox,
            demo,
            config,
            log_format,
            new_journal,
        } => watch::run(watch::Args {
            dir,
            once,
            sandbox,
            demo,
            config,
            log_format,
            new_journal,
        }),
        Command::Webhook {
            addr,
            dir,
            config,
            log_format,
        } => webhook::run(webhook::Args {
            addr,
            dir,
            config,
            log_format,
        }),
        Command::Status { dir, json } => status::run(&dir, json),
        Command::Resolve {
            dir,
            file,
            sent,
            not_sent: _,
        } => resolve::run(&dir, &file, sent),
        Command::Completions { shell } => generate::completions(shell),
        Command::Man => generate::man(),
    }
}
