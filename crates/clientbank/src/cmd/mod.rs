//! The subcommands.

use crate::cli::{Cli, Command};
use crate::exit::{Failure, Outcome};

mod bank;
mod check;
mod convert;
mod generate;
mod init;
mod login;
mod parse;
mod resolve;
mod sandbox;
mod sign;
mod statement;
mod status;
mod upload;
mod watch;
mod webhook;

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
            mut dirs,
            root,
            once,
            sandbox,
            demo,
            config,
            log_format,
            new_journal,
            metrics,
        } => {
            if dirs.len() != 1 || root.is_some() {
                let refused = [
                    ("--demo", demo),
                    ("--config", config.is_some()),
                    ("--new-journal", new_journal),
                    ("--metrics", metrics.is_some()),
                ];
                let refused = refused.into_iter().filter(|(_, given)| *given);
                watch::run_many(watch::ManyArgs {
                    dirs,
                    root,
                    once,
                    sandbox,
                    refused: refused.map(|(flag, _)| flag).collect(),
                    log_format,
                })
            } else {
                watch::run(watch::Args {
                    dir: dirs.remove(0),
                    once,
                    sandbox,
                    demo,
                    config,
                    log_format,
                    new_journal,
                    metrics,
                })
            }
        }
        Command::Statement {
            accounts,
            from,
            till,
            output,
            encoding,
            per_account,
            json,
            bank,
        } => statement::run(statement::Args {
            accounts,
            from,
            till,
            output,
            encoding,
            per_account,
            json,
            bank,
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
        Command::Status {
            dirs,
            root,
            json,
            check,
        } if dirs.len() != 1 || root.is_some() => status::glance(dirs, root, json, check),
        Command::Status {
            mut dirs,
            check: true,
            json,
            ..
        } => status::check(&dirs.remove(0), json),
        Command::Status { mut dirs, json, .. } => status::run(&dirs.remove(0), json),
        Command::Init { dir } => init::run(&dir),
        Command::Resolve {
            dir,
            file,
            sent,
            not_sent,
        } => resolve::run(
            &dir,
            &file,
            &clientbank_watch::commands::Settlement { sent, not_sent },
        ),
        Command::Login {
            bank,
            no_browser,
            timeout,
        } => login::login(&bank, no_browser, timeout),
        Command::Logout { bank } => login::logout(&bank),
        Command::Accounts { bank, format } => bank::accounts(&bank, &format),
        Command::Balance {
            account,
            on,
            bank,
            json,
        } => bank::balance(&bank, &account, on, json),
        Command::History {
            account,
            from,
            till,
            bank,
            format,
        } => bank::history(&bank, &account, from, till, &format),
        Command::Completions { shell } => generate::completions(shell),
        Command::Man => generate::man(),
    }
}
