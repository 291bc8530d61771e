//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Moves payment orders from accounting software to the bank and statements back,
/// in the 1C client-bank exchange format (1CClientBankExchange 1.01–1.03).
#[derive(Debug, Parser)]
#[command(name = "clientbank", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Show a file as the reader sees it: encoding, sections, keys and values, findings.
    Parse {
        /// The exchange file.
        file: PathBuf,
        /// Print one JSON object (the stable interface documented in the README).
        #[arg(long)]
        json: bool,
    },
    /// Check files: exit 0 when no error was found, 1 when one was, 2 when a file is unreadable.
    Check {
        /// The exchange files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Every finding is an error, as 1C's own loader would treat it.
        #[arg(long)]
        strict: bool,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}
