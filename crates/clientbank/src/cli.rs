//! Command-line arguments.

use std::path::PathBuf;

use chrono::NaiveDate;
use clap::{Args, Parser, Subcommand, ValueEnum};

use clientbank_bank::config::LogFormat;

use crate::cmd;

/// Moves payment orders from accounting software to the bank and statements back,
/// in the 1C client-bank exchange format (1CClientBankExchange 1.01–1.03).
#[derive(Debug, Parser)]
#[command(name = "clientbank", version, about, after_help = EXAMPLES)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) global: Global,
    #[command(subcommand)]
    pub(crate) command: Command,
}

const EXAMPLES: &str = "\
Examples:
  clientbank check inbox/*.txt                      check every file; exit 1 on an error
  clientbank convert 1c_to_kl.txt -o requests.json  1C payment orders -> JSON upload requests
  clientbank parse --json statement.txt | jq .documents

Exit codes: 0 no error, 1 an error finding, 2 usage, I/O or unreadable input.";

/// Flags every command takes.
#[derive(Debug, Args)]
pub(crate) struct Global {
    /// When to colour the output: `auto` colours a terminal unless `NO_COLOR` is set.
    #[arg(
        long,
        value_enum,
        default_value = "auto",
        global = true,
        value_name = "WHEN"
    )]
    pub(crate) color: Color,
    /// The language of messages (the default follows LC_ALL, LC_MESSAGES or LANG: `ru_RU…` is
    /// Russian). Codes, JSON keys and exit codes are the same in both.
    #[arg(long, value_enum, global = true, ignore_case = true)]
    pub(crate) lang: Option<LangArg>,
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Color {
    /// Colour when writing to a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// `--lang`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum LangArg {
    /// Russian.
    Ru,
    /// English.
    En,
}

/// `--json` or `--json-lines`.
#[derive(Debug, Args)]
pub(crate) struct JsonArgs {
    /// Print one JSON object (the stable interface documented in the README).
    #[arg(long, conflicts_with = "json_lines")]
    pub(crate) json: bool,
    /// Print JSON Lines: one JSON object per line (for large inputs; shapes in the README).
    #[arg(long)]
    pub(crate) json_lines: bool,
}

impl JsonArgs {
    pub(crate) fn mode(&self) -> Mode {
        if self.json_lines {
            Mode::JsonLines
        } else if self.json {
            Mode::Json
        } else {
            Mode::Text
        }
    }
}

/// How a command writes its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// For people.
    Text,
    /// One JSON object.
    Json,
    /// One JSON object per line.
    JsonLines,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Show a file as the reader sees it: encoding, sections, keys and values, findings.
    #[command(after_help = "\
Examples:
  clientbank parse statement.txt                    sections and keys; findings on stderr
  clientbank parse --json statement.txt             one JSON object
  clientbank parse --json-lines - < statement.txt   one JSON object per section and finding")]
    Parse(cmd::parse::Args),
    /// Check files (1C or JSON upload requests): the format and every payment rule. Exit 0 when
    /// no error was found, 1 when one was, 2 when a file is unreadable.
    #[command(after_help = "\
Examples:
  clientbank check inbox/*.txt                      findings of every file, a summary line
  clientbank check --strict 1c_to_kl.txt            every finding is an error
  clientbank check --json-lines big.txt > f.jsonl   one JSON object per finding and file
  cat requests.json | clientbank check -            standard input")]
    Check(cmd::check::Args),
    /// Convert 1C payment orders to JSON upload requests (an array), JSON upload requests
    /// (one or an array) to a canonical 1.03 file, or a 1C file to a canonical 1C file in
    /// another encoding.
    #[command(after_help = "\
Examples:
  clientbank convert 1c_to_kl.txt -o requests.json                 1C -> JSON
  clientbank convert requests.json --payer-from payer.toml -o 1c_to_kl.txt
                                                                   JSON -> 1C, with the payer's requisites
  clientbank convert utf8.txt --to 1c --encoding windows -o cp1251.txt
                                                                   1C -> canonical 1C in CP1251
  clientbank convert - --to json < 1c_to_kl.txt                    standard input to standard output")]
    Convert(cmd::convert::Args),
    /// Run the local sandbox bank: the bank API v1 on a loopback address, with test data,
    /// the fixed sandbox credentials and an admin interface for faults.
    #[command(after_help = "\
Examples:
  clientbank sandbox                                127.0.0.1:8800
  clientbank sandbox --addr 127.0.0.1:0             any free port (printed)
  clientbank sandbox --time-scale 0.01              webhook retries 100 times sooner")]
    Sandbox(cmd::sandbox::Args),
    /// Check and upload files of payment orders (1C or JSON) to the bank, print each payment
    /// with its id, and record everything in the journal of --dir (or of the folder the files lie in). A file with an error
    /// finding is refused whole (exit 1, nothing sent).
    #[command(after_help = "\
Examples:
  clientbank upload --dir exchange 1c_to_kl.txt         check, upload, print each payment's id
  clientbank upload --dir exchange --route 1c file.txt  the 1C file whole to /operation-upload/1c
  clientbank upload --dir exchange --json requests.json a JSON array of the payments and ids")]
    Upload(cmd::upload::Args),
    /// Sign the payments awaiting signature: one detached signature per company, made by the
    /// signer command of the configuration, sent to the bank.
    #[command(after_help = "\
Examples:
  clientbank sign --dir exchange --dry-run      what would be signed, per company
  clientbank sign --dir exchange                sign and send every id awaiting signature
  clientbank sign --dir exchange --company 7701234560 --json")]
    Sign(cmd::sign::Args),
    /// The daemon: takes complete files of DIR/inbox, checks and uploads them at most once,
    /// moves each to done/, rejected/ or review/ with a report beside it.
    #[command(after_help = "\
Examples:
  clientbank watch --sandbox --once --demo clientbank-demo   the whole flow offline, then a summary
  clientbank watch exchange                           the daemon (DIR/clientbank.toml)
  clientbank watch exchange --once --log-format json  what is in the inbox now, JSON logs
  clientbank watch --root clients                     every clients/*/ with a clientbank.toml
  clientbank watch acme globex --once                 two folders, each with its own settings")]
    Watch(cmd::watch::Args),
    /// The bank's operations of a period as a 1.03 statement (kl_to_1c.txt) that 1C loads: one
    /// balance section per day, one document per executed operation (cancelled ones left out
    /// and counted), the balance identity checked against the bank's balances.
    #[command(after_help = "\
Examples:
  clientbank statement --account 40702810938000012345 --from 2026-11-01 --till 2026-11-23
  clientbank statement --sandbox --account 40702810938000012345 --from 2026-08-01 --till 2026-11-23 -o kl_to_1c.txt
  clientbank statement --account A --account B --from 01.11.2026 --till 23.11.2026 --per-account

Several accounts go into one file with one РасчСчет line each (1C's exchange folder takes one
kl_to_1c.txt and loads the accounts it knows); --per-account writes kl_to_1c_ACCOUNT.txt each.")]
    Statement(cmd::statement::Args),
    /// Receive the bank's webhook notifications: each is verified (SHA1Hash) and its operation
    /// recorded once in the journal of --dir; runs until Ctrl-C.
    #[command(after_help = "\
Examples:
  clientbank webhook --addr 127.0.0.1:8091 --dir exchange   listen, record in exchange's journal
  clientbank webhook --dir exchange                         the [webhook] addr of clientbank.toml
  clientbank webhook --addr 127.0.0.1:0 --log-format json   any free port (printed), JSON logs")]
    Webhook(cmd::webhook::Args),
    /// Set up an exchange folder in one step: its folders and a commented clientbank.toml
    /// (every key, its default and what it is for, in Russian and English); then what to do
    /// next. An existing clientbank.toml is kept.
    #[command(after_help = "\
Examples:
  clientbank init exchange            make exchange/ and exchange/clientbank.toml")]
    Init(cmd::init::Args),
    /// Files per folder, payments per state, ids awaiting signature per company, last errors.
    #[command(after_help = "\
Examples:
  clientbank status exchange          files per folder, payments per state, ids to sign
  clientbank status exchange --json   one JSON object
  clientbank status exchange --check  a health probe: exit 0 well, 1 a person is needed, 4 no daemon
  clientbank status --root clients    one line per folder: files, payments in doubt, last error")]
    Status(cmd::status::Args),
    /// Settle a file of review/, payment by payment: the payments in doubt that are at the bank
    /// (--sent) and those that are not (--not-sent: sent once, from the inbox), by document
    /// number; a flag without numbers stands for every payment in doubt not named on the
    /// other side. Look each up in the bank's cabinet or history first.
    #[command(after_help = "\
Examples:
  clientbank resolve exchange 1c_to_kl.txt --sent                 every payment in doubt is at the bank
  clientbank resolve exchange 1c_to_kl.txt --not-sent             none is: back to the inbox, sent once
  clientbank resolve exchange 1c_to_kl.txt --sent 301 302 --not-sent 303
                                                                  301 and 302 are at the bank, 303 is not")]
    Resolve(cmd::resolve::Args),
    /// Sign in to the bank (OAuth): prints (and on a desktop opens) the bank's sign-in address,
    /// catches the redirect on the loopback listener of `[app] redirect_uri`, exchanges the
    /// code at once and stores the token in a file only you can read.
    #[command(after_help = "\
Examples:
  clientbank login                                   sign in; the token goes to the login token file
  clientbank login --no-browser --timeout 600        print the address only, wait 10 minutes
  clientbank login --sandbox                         the whole flow against the built-in sandbox bank")]
    Login(cmd::login::Args),
    /// Revoke the stored token at the bank and remove the token file.
    #[command(after_help = "\
Examples:
  clientbank logout                                  revoke the token, remove the token file
  clientbank logout --config ~/clientbank.toml")]
    Logout(BankArgs),
    /// Every company and account the token sees: name, INN, account number, currency, status,
    /// balance, account id.
    #[command(after_help = "\
Examples:
  clientbank accounts --sandbox                      the sandbox bank's test accounts
  clientbank accounts --json | jq '.[].balance'
  clientbank accounts --csv > accounts.csv")]
    Accounts(cmd::accounts::Args),
    /// An account's balance, now or on a day (the bank's balance of that date).
    #[command(after_help = "\
Examples:
  clientbank balance 40702810938000012345            by account number
  clientbank balance 40702810938000012345 --on 01.11.2026
  clientbank balance ACCOUNT-ID --json")]
    Balance(cmd::balance::Args),
    /// An account's operations executed in a period (both days included), newest first.
    #[command(after_help = "\
Examples:
  clientbank history 40702810938000012345 --from 01.11.2026 --till 30.11.2026
  clientbank history 40702810938000012345 --from 2026-11-01 --till 2026-11-30 --csv > nov.csv
  clientbank history ACCOUNT-ID --from 01.11.2026 --till 01.11.2026 --json")]
    History(cmd::history::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "\
Examples:
  clientbank completions bash > ~/.local/share/bash-completion/completions/clientbank
  clientbank completions zsh > ~/.zfunc/_clientbank")]
    Completions(cmd::generate::Completions),
    /// Print the man page (roff).
    #[command(after_help = "\
Examples:
  clientbank man > clientbank.1 && man ./clientbank.1")]
    Man,
}

/// What the commands that talk to the bank take: where the configuration is, or the sandbox.
#[derive(Debug, Args)]
pub(crate) struct BankArgs {
    /// The folder whose configuration (`DIR/clientbank.toml`) is used.
    #[arg(long, default_value = ".")]
    pub(crate) dir: PathBuf,
    /// The configuration file (default `DIR/clientbank.toml`).
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// Use the built-in sandbox bank, started in-process on a free loopback port (its fixed
    /// token `sandboxtoken` unless a token is configured).
    #[arg(long)]
    pub(crate) sandbox: bool,
}

/// `--json` or `--csv` for tables.
#[derive(Debug, Args)]
pub(crate) struct TableArgs {
    /// Print a JSON array (shape in the README).
    #[arg(long, conflicts_with = "csv")]
    pub(crate) json: bool,
    /// Print CSV with a header line.
    #[arg(long)]
    pub(crate) csv: bool,
}

/// `--log-format text|json`: the configuration's [`clientbank_bank::config::LogFormat`].
pub(crate) fn log_format() -> impl clap::builder::TypedValueParser<Value = LogFormat> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new([LogFormat::Text.as_str(), LogFormat::Json.as_str()])
        .map(|text| text.parse().unwrap_or_default())
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

impl From<TargetEncoding> for clientbank_format::Encoding {
    fn from(encoding: TargetEncoding) -> Self {
        match encoding {
            TargetEncoding::Windows => Self::Cp1251,
            TargetEncoding::Dos => Self::Cp866,
            TargetEncoding::Utf8 => Self::Utf8,
        }
    }
}

pub(crate) fn parse_day(text: &str) -> Result<NaiveDate, crate::parse_error::BadValue> {
    clientbank_payment::json::parse_date(text).ok_or_else(|| {
        crate::parse_error::BadValue(clientbank_format::tr!(
            "{text:?} is not a date (ДД.ММ.ГГГГ or YYYY-MM-DD)" ;
            "«{text}» не дата (ДД.ММ.ГГГГ или ГГГГ-ММ-ДД)"
        ))
    })
}

pub(crate) fn parse_route(
    text: &str,
) -> Result<clientbank_bank::Route, crate::parse_error::BadValue> {
    text.parse().map_err(|_| {
        crate::parse_error::BadValue(clientbank_format::tr!(
            "{text:?}: expected auto, json or 1c" ;
            "«{text}»: нужно auto, json или 1c"
        ))
    })
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_command_has_examples() {
        let command = Cli::command();
        assert!(command.get_after_help().is_some());
        for sub in command.get_subcommands() {
            let help = sub.get_after_help().map(ToString::to_string);
            assert!(
                help.as_deref().is_some_and(|h| h.contains("Examples:")),
                "{} has no examples",
                sub.get_name()
            );
        }
    }
}
