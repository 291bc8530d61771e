//! `clientbank`: connects accounting software to a business bank.
//!
//! Nothing prints with `println!` or `eprintln!`: they panic when the stream fails (`| head`,
//! `2>/dev/full`). Lines go through `term::outln!` (its error ends the command, quietly for a
//! broken pipe) and `term::err_line`/`term::error` (an error ignored).
#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

mod cli;
mod cmd;
mod exit;
mod help_ru;
mod io;
mod log;
mod output;
mod parse_error;
mod payer;
mod report;
mod runtime;
mod sandbox_bank;
mod table;
mod term;
mod view;

/// The allocator on Unix: jemalloc, whose threads do not wait on each other to allocate and
/// free (glibc's did: a block made by one thread and freed by another takes its arena's lock).
/// `check`, `parse --json` and `convert` make their items and texts in two threads and free
/// them in a third.
#[cfg(unix)]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    // clap answers `--help` itself: the language of the help is chosen before it parses.
    let args = help_ru::help_of_help(std::env::args_os().collect());
    let lang = help_ru::lang_of(&args);
    let command = help_ru::localize(cli::Cli::command(), lang);
    let cli = match command
        .try_get_matches_from(args)
        .and_then(|matches| cli::Cli::from_arg_matches(&matches))
    {
        Ok(cli) => cli,
        Err(e) => parse_error::exit(e, lang),
    };
    term::init(&cli.global);
    exit::finish(cmd::run(cli))
}
