//! The subcommands.

use crate::cli::{Cli, Command};
use crate::exit::{Failure, Outcome};

pub(crate) mod accounts;
pub(crate) mod balance;
mod bank;
pub(crate) mod check;
pub(crate) mod convert;
pub(crate) mod generate;
pub(crate) mod history;
pub(crate) mod init;
pub(crate) mod login;
pub(crate) mod parse;
pub(crate) mod resolve;
pub(crate) mod sandbox;
pub(crate) mod setup;
pub(crate) mod sign;
pub(crate) mod statement;
pub(crate) mod status;
mod summary;
pub(crate) mod upload;
pub(crate) mod watch;
pub(crate) mod webhook;

/// Each command's arguments go whole to its module (their fields are written once, there).
pub(crate) fn run(cli: Cli) -> Result<Outcome, Failure> {
    match cli.command {
        Command::Parse(args) => parse::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Sandbox(args) => sandbox::run(&args),
        Command::Upload(args) => upload::run(&args),
        Command::Sign(args) => sign::run(&args),
        Command::Watch(args) => watch::run(args),
        Command::Statement(args) => statement::run(args),
        Command::Webhook(args) => webhook::run(args),
        Command::Status(args) => status::run(args),
        Command::Init(args) => init::run(&args.dir),
        Command::Resolve(args) => resolve::run(args),
        Command::Login(args) => login::login(&args),
        Command::Logout(bank) => login::logout(&bank),
        Command::Accounts(args) => accounts::run(&args),
        Command::Balance(args) => balance::run(&args),
        Command::History(args) => history::run(&args),
        Command::Completions(args) => generate::completions(args.shell),
        Command::Man => generate::man(),
    }
}
