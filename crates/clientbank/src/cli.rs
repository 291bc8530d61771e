//! Command-line arguments.

use std::path::PathBuf;

use chrono::NaiveDate;
use clap::{Parser, Subcommand, ValueEnum};

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
    /// Check files (1C or JSON upload requests): the format and every payment rule. Exit 0 when
    /// no error was found, 1 when one was, 2 when a file is unreadable.
    Check {
        /// The files: 1C exchange files or JSON upload requests.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Every finding is an error, as 1C's own loader would treat it.
        #[arg(long)]
        strict: bool,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Check dates as of this day (ДД.ММ.ГГГГ or YYYY-MM-DD) instead of today in Moscow.
        #[arg(long, value_parser = parse_day)]
        today: Option<NaiveDate>,
    },
    /// Convert 1C payment orders to JSON upload requests (an array), or JSON upload requests
    /// (one or an array) to a canonical 1.03 file.
    Convert {
        /// A 1C exchange file or a JSON file of upload requests.
        file: PathBuf,
        /// What to write; by default the other format than the input's.
        #[arg(long, value_enum)]
        to: Option<Target>,
        /// Where to write; standard output by default.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The encoding of a 1C file written.
        #[arg(long, value_enum, default_value = "windows")]
        encoding: TargetEncoding,
        /// Upload requests send the payments straight to signing (`targetStatus: InSigning`)
        /// instead of creating drafts.
        #[arg(long)]
        in_signing: bool,
        /// Check dates as of this day instead of today in Moscow.
        #[arg(long, value_parser = parse_day)]
        today: Option<NaiveDate>,
    },
    /// Run the local sandbox bank: the bank API v1 on a loopback address, with test data,
    /// the fixed sandbox credentials and an admin interface for faults.
    Sandbox {
        /// Where to listen (loopback only).
        #[arg(long, default_value = "127.0.0.1:8800")]
        addr: std::net::SocketAddr,
        /// Multiplies the webhook retry delays (10 minutes, then an hour).
        #[arg(long, default_value_t = 1.0)]
        time_scale: f64,
    },
}

/// What `convert` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Target {
    /// JSON upload requests.
    Json,
    /// A 1C exchange file, version 1.03.
    #[value(name = "1c")]
    OneC,
}

/// The encoding of a 1C file written (the values of `Кодировка=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TargetEncoding {
    /// CP1251, `Кодировка=Windows` (1C's default).
    Windows,
    /// CP866, `Кодировка=DOS`.
    Dos,
    /// UTF-8 (1C itself does not read it).
    #[value(name = "utf-8")]
    Utf8,
}

fn parse_day(text: &str) -> Result<NaiveDate, String> {
    clientbank_payment::json::parse_date(text)
        .ok_or_else(|| format!("{text:?} is not a date (ДД.ММ.ГГГГ or YYYY-MM-DD)"))
}
