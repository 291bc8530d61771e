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
    /// Check and upload files of payment orders (1C or JSON) to the bank, print each payment
    /// with its id, and record everything in the journal of --dir. A file with an error
    /// finding is refused whole (exit 1, nothing sent).
    Upload {
        /// The files: 1C exchange files or JSON upload requests.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The folder whose journal (`DIR/.clientbank/journal.sqlite`) and configuration
        /// (`DIR/clientbank.toml`) are used.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// How payments go: auto (JSON payment by payment when it carries everything, else the
        /// 1C file whole), json, 1c.
        #[arg(long)]
        route: Option<clientbank_watch::Route>,
        /// Send the payments straight to signing (`targetStatus: InSigning`; the configuration's
        /// `in_signing`, true by default, otherwise).
        #[arg(long)]
        in_signing: bool,
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
        /// The configuration file (default `DIR/clientbank.toml`).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Check dates as of this day instead of today in Moscow.
        #[arg(long, value_parser = parse_day)]
        today: Option<NaiveDate>,
    },
    /// Sign the payments awaiting signature: one detached signature per company, made by the
    /// signer command of the configuration, sent to the bank.
    Sign {
        /// The folder whose journal and configuration are used.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// Only this company (its id or INN).
        #[arg(long)]
        company: Option<String>,
        /// Show what would be signed; sign nothing.
        #[arg(long)]
        dry_run: bool,
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
        /// The configuration file (default `DIR/clientbank.toml`).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// The daemon: takes complete files of DIR/inbox, checks and uploads them at most once,
    /// moves each to done/, rejected/ or review/ with a report beside it.
    Watch {
        /// The exchange folder (inbox/, processing/, done/, rejected/, review/, outbox/).
        dir: PathBuf,
        /// Process what is in the inbox, print a summary and exit (0: nothing rejected or in
        /// review; 1 otherwise; 3: the bank stayed unavailable).
        #[arg(long)]
        once: bool,
        /// Use the built-in sandbox bank, started in-process on a free loopback port.
        #[arg(long)]
        sandbox: bool,
        /// Copy the sample drops into DIR/inbox first and sign with throwaway openssl
        /// certificates (with --sandbox: the whole flow offline). DIR must be new.
        #[arg(long)]
        demo: bool,
        /// The configuration file (default `DIR/clientbank.toml`).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Log lines as text (default) or JSON.
        #[arg(long)]
        log_format: Option<LogFormat>,
        /// Start a new journal although the folders show earlier use (after the old one was
        /// lost: the files of processing/ go to review/).
        #[arg(long)]
        new_journal: bool,
    },
    /// Files per folder, payments per state, ids awaiting signature per company, last errors.
    Status {
        /// The exchange folder.
        dir: PathBuf,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Settle a file of review/: its doubtful payments are at the bank (--sent) or not
    /// (--not-sent: the file goes back to the inbox and they are sent once).
    Resolve {
        /// The exchange folder.
        dir: PathBuf,
        /// The file's name in review/.
        file: String,
        /// The payments in doubt are at the bank.
        #[arg(
            long,
            conflicts_with = "not_sent",
            required_unless_present = "not_sent"
        )]
        sent: bool,
        /// The payments in doubt are not at the bank.
        #[arg(long)]
        not_sent: bool,
    },
}

/// How the daemon logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogFormat {
    /// Lines for people.
    Text,
    /// One JSON object per line.
    Json,
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
