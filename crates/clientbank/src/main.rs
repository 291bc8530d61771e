//! `clientbank`: connects accounting software to a business bank.

use std::process::ExitCode;

use clap::Parser;

mod cli;
mod cmd;
mod exit;
mod output;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    exit::finish(cmd::run(cli))
}
