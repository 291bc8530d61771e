//! `clientbank statement --account ACCOUNT... --from D --till D [-o FILE]`: the bank's
//! operations of a period as a 1.03 statement (`kl_to_1c.txt`) that 1C loads.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clientbank_api::Client;
use clientbank_bank::statement::{self, AccountStatement, Period};
use serde_json::json;

use super::setup::init_logging;
use crate::cli::{BankArgs, TargetEncoding, parse_day};
use crate::exit::{Failure, Outcome};
use crate::term::{self, tr};
use clientbank_format::Message;

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The account: its 20-digit number or the bank's id (repeat for several).
    #[arg(long = "account", required = true, value_name = "ACCOUNT")]
    pub(crate) accounts: Vec<String>,
    /// The first day (ДД.ММ.ГГГГ or YYYY-MM-DD).
    #[arg(long, value_parser = parse_day)]
    pub(crate) from: NaiveDate,
    /// The last day, inclusive.
    #[arg(long, value_parser = parse_day)]
    pub(crate) till: NaiveDate,
    /// Where to write (`-`: standard output); replaced whole, never half-written.
    #[arg(short, long, default_value = "kl_to_1c.txt")]
    pub(crate) output: PathBuf,
    /// The encoding of the file.
    #[arg(long, value_enum, default_value = "windows")]
    pub(crate) encoding: TargetEncoding,
    /// One file per account (the account number added to the file name).
    #[arg(long)]
    pub(crate) per_account: bool,
    /// Print what was written as one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) bank: BankArgs,
}

pub(crate) fn run(args: Args) -> Result<Outcome, Failure> {
    let period = Period::new(args.from, args.till)?;
    warn_if_after_today(period, clientbank_payment::clock::today_in_moscow());
    let to_stdout = crate::io::is_std(&args.output);
    if to_stdout && (args.per_account || args.json) {
        return Err(Failure::Stopped(Message::new(
            "-o - writes one statement to standard output: not with --per-account or --json",
            "-o - выводит одну выписку на стандартный вывод: без --per-account и --json",
        )));
    }
    let mut settings = super::bank::settings(&args.bank)?;
    init_logging(false);
    crate::runtime::run(async move {
        let _bank = super::bank::sandbox_if(args.bank.sandbox, None, &mut settings).await?;
        let client = super::bank::client(&settings)?;
        let parts = fetch_all(&client, &args, period).await?;
        // The orders this folder's journal uploaded come back as their orders (1C matches
        // them to its own); without a journal, what the bank says.
        let layout = clientbank_watch::folders::Layout::new(&args.bank.dir);
        let journal = clientbank_watch::journal::open_folder(
            &layout,
            clientbank_watch::journal::Access::Read,
        )?;
        let orders = journal
            .as_ref()
            .map(|journal| journal as &dyn clientbank_bank::operations::Orders);
        let groups: Vec<Vec<AccountStatement>> = if args.per_account {
            parts.into_iter().map(|p| vec![p]).collect()
        } else {
            vec![parts]
        };
        let files = groups
            .into_iter()
            .map(|group| write_file(&args, period, orders, group))
            .collect::<Result<Vec<File>, Failure>>()?;
        if args.json {
            print_json(period, &files)?;
        } else {
            print_lines(&files, to_stdout)?;
        }
        Ok(Outcome::Clean)
    })
}

/// A period that ends after `today` has no operations in its last days yet: said.
fn warn_if_after_today(period: Period, today: NaiveDate) {
    if period.till > today {
        term::warning(&tr(
            format!(
                "the period ends after today ({today}): its last days have no operations yet, and \
                 the balance at their end is the balance now"
            ),
            format!(
                "период кончается позже сегодняшнего дня ({today}): в последних днях операций ещё \
                 нет, а остаток на их конец — нынешний"
            ),
        ));
    }
}

/// A statement file written: where, of which accounts, what the writer said.
struct File {
    target: PathBuf,
    accounts: Vec<AccountStatement>,
    written: statement::Written,
}

/// Every account's operations of the period (a count on a terminal: how many the history
/// holds is not known beforehand).
async fn fetch_all(
    client: &Client,
    args: &Args,
    period: Period,
) -> Result<Vec<AccountStatement>, Failure> {
    let accounts = statement::accounts(client, &args.accounts).await?;
    let bar = term::progress(0, false, args.json);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{prefix:>10} {pos} {msg}") {
        bar.set_style(style);
    }
    bar.set_prefix(tr("history", "история"));
    let mut parts = Vec::new();
    for account in accounts {
        bar.set_message(account.number().to_string());
        let seen_before = bar.position();
        let mut progress = |seen: u64| bar.set_position(seen_before + seen);
        let part = statement::fetch(client, account, period, &mut progress).await;
        match part {
            Ok(part) => parts.push(part),
            Err(e) => {
                bar.finish_and_clear();
                return Err(e.into());
            }
        }
    }
    bar.finish_and_clear();
    Ok(parts)
}

/// Writes the statement of `accounts` to its file (replaced whole) or standard output.
fn write_file(
    args: &Args,
    period: Period,
    orders: Option<&dyn clientbank_bank::operations::Orders>,
    mut accounts: Vec<AccountStatement>,
) -> Result<File, Failure> {
    let target = if args.per_account {
        per_account_path(&args.output, accounts[0].account().number())
    } else {
        args.output.clone()
    };
    let total: u64 = accounts.iter().map(|p| p.counts().documents).sum();
    let bar = term::progress(total, false, args.json);
    bar.set_prefix(tr("writing", "запись"));
    let mut progress = |done: u64| bar.set_position(done);
    let now = clientbank_payment::clock::now_in_moscow();
    let encoding = args.encoding.into();
    let mut write = |out: &mut dyn Write| {
        let accounts = &mut accounts;
        statement::write(out, encoding, period, now, accounts, orders, &mut progress)
    };
    let written = if crate::io::is_std(&args.output) {
        write(&mut std::io::BufWriter::new(std::io::stdout().lock()))
    } else {
        clientbank_bank::files::replace_atomically(&target, |out| write(out))
    };
    bar.finish_and_clear();
    let written = written?;
    for note in &written.notes {
        term::warning(note.get(term::lang()));
    }
    Ok(File {
        target,
        accounts,
        written,
    })
}

/// `--json`: the period and each file with its accounts.
fn print_json(period: Period, files: &[File]) -> Result<(), Failure> {
    let files: Vec<_> = files
        .iter()
        .map(|file| {
            json!({
                "file": file.target.display().to_string(),
                "documents": file.written.documents,
                "notes": file.written.notes.iter().map(|n| n.en()).collect::<Vec<_>>(),
                "accounts": file.accounts.iter().map(|p| json!({
                    "account": p.account().number(),
                    "id": p.account().id,
                    "opening": p.sections().first().and_then(|s| s.opening_balance),
                    "closing": p.sections().last().and_then(|s| s.closing_balance),
                    "days": p.sections().len(),
                    "counts": p.counts(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    crate::output::print_json(&json!({
        "from": period.from, "till": period.till, "files": files
    }))?;
    Ok(())
}

/// For people, on standard error: a line per account.
fn print_lines(files: &[File], to_stdout: bool) -> Result<(), Failure> {
    let mut err = std::io::stderr().lock();
    for file in files {
        let shown = if to_stdout {
            "-".to_string()
        } else {
            file.target.display().to_string()
        };
        for part in &file.accounts {
            let c = part.counts();
            let opening = money(part.sections().first().and_then(|s| s.opening_balance));
            let closing = money(part.sections().last().and_then(|s| s.closing_balance));
            let (number, documents) = (part.account().number(), c.documents);
            let (incoming, incoming_sum) = (c.incoming, c.incoming_sum);
            let (outgoing, outgoing_sum) = (c.outgoing, c.outgoing_sum);
            let (cancelled, not_executed) = (c.cancelled, c.not_executed);
            let line = tr(
                format!(
                    "{shown}: account {number}: {documents} documents ({incoming} in, \
                     {incoming_sum}; {outgoing} out, {outgoing_sum}), balance {opening} \
                     -> {closing}; left out: {cancelled} cancelled, {not_executed} not \
                     executed"
                ),
                format!(
                    "{shown}: счёт {number}: документов {documents} (поступило {incoming} \
                     на {incoming_sum}; списано {outgoing} на {outgoing_sum}), остаток \
                     {opening} -> {closing}; не вошли: отменённых {cancelled}, \
                     неисполненных {not_executed}"
                ),
            );
            writeln!(err, "{line}")?;
        }
    }
    Ok(())
}

fn money(amount: Option<clientbank_format::Decimal>) -> String {
    amount.map_or_else(|| "?".into(), |a| a.to_string())
}

/// `kl_to_1c.txt` and account `40702…` give `kl_to_1c_40702….txt`.
fn per_account_path(output: &Path, account: &str) -> PathBuf {
    let stem = output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kl_to_1c".into());
    let name = match output.extension() {
        Some(ext) => format!("{stem}_{account}.{}", ext.to_string_lossy()),
        None => format!("{stem}_{account}"),
    };
    output.with_file_name(name)
}
