//! `clientbank`: connects accounting software to a business bank.

use std::process::ExitCode;

use clap::Parser;

mod cli;
mod cmd;
mod exit;
mod io;
mod output;
mod payer;
mod report;
mod runtime;
mod sandbox_bank;
mod term;
mod view;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    term::init(&cli.global);
    exit::finish(cmd::run(cli))
}
