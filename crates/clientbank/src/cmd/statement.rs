//! `clientbank statement --account ACCOUNT... --from D --till D [-o FILE]`: the bank's
//! operations of a period as a 1.03 statement (`kl_to_1c.txt`) that 1C loads.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clientbank_bank::statement::{self, AccountStatement, Period};
use clientbank_format::Encoding;
use serde_json::json;

use super::watch::init_logging;
use crate::cli::{BankArgs, TargetEncoding};
use crate::exit::{Failure, Outcome};
use crate::term::{self, tr};
use clientbank_format::Message;

pub(crate) struct Args {
    pub(crate) accounts: Vec<String>,
    pub(crate) from: NaiveDate,
    pub(crate) till: NaiveDate,
    pub(crate) output: PathBuf,
    pub(crate) encoding: TargetEncoding,
    pub(crate) per_account: bool,
    pub(crate) json: bool,
    pub(crate) bank: BankArgs,
}

pub(crate) fn run(args: Args) -> Result<Outcome, Failure> {
    let period = Period::new(args.from, args.till)?;
    let today = clientbank_payment::clock::today_in_moscow();
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
    let to_stdout = crate::io::is_std(&args.output);
    if to_stdout && (args.per_account || args.json) {
        return Err(Failure::Stopped(Message::new(
            "-o - writes one statement to standard output: not with --per-account or --json",
            "-o - выводит одну выписку на стандартный вывод: без --per-account и --json",
        )));
    }
    let mut settings = super::bank::settings(&args.bank)?;
    init_logging(false);
    let encoding = match args.encoding {
        TargetEncoding::Windows => Encoding::Cp1251,
        TargetEncoding::Dos => Encoding::Cp866,
        TargetEncoding::Utf8 => Encoding::Utf8,
    };
    crate::runtime::run(async move {
        let _bank = super::bank::sandbox_if(args.bank.sandbox, None, &mut settings).await?;
        let client = super::bank::client(&settings)?;
        let accounts = statement::accounts(&client, &args.accounts).await?;
        // How many operations the history holds is not known beforehand: a count, not a bar.
        let bar = term::progress(0, false, args.json);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{prefix:>10} {pos} {msg}") {
            bar.set_style(style);
        }
        bar.set_prefix(tr("history", "история"));
        let mut parts = Vec::new();
        for account in accounts {
            bar.set_message(account.number.clone());
            let seen_before = bar.position();
            let mut progress = |seen: u64| bar.set_position(seen_before + seen);
            match statement::fetch(&client, account, period, &mut progress).await {
                Ok(part) => parts.push(part),
                Err(e) => {
                    bar.finish_and_clear();
                    return Err(e.into());
                }
            }
        }
        bar.finish_and_clear();
        // The orders this folder's journal uploaded come back as their orders (1C matches
        // them to its own); without a journal, what the bank says.
        let layout = clientbank_watch::folders::Layout::new(&args.bank.dir);
        let orders = match clientbank_watch::journal::open_folder(&layout) {
            Ok(journal) => journal,
            Err(e) => return Err(e.into()),
        };
        let groups: Vec<Vec<AccountStatement>> = if args.per_account {
            parts.into_iter().map(|p| vec![p]).collect()
        } else {
            vec![parts]
        };
        let mut report = Vec::new();
        for mut group in groups {
            let target = if args.per_account {
                per_account_path(&args.output, &group[0].account().number)
            } else {
                args.output.clone()
            };
            let total: u64 = group.iter().map(|p| p.counts().documents).sum();
            let bar = term::progress(total, false, args.json);
            bar.set_prefix(tr("writing", "запись"));
            let mut progress = |done: u64| bar.set_position(done);
            let now = clientbank_payment::clock::now_in_moscow();
            let orders = orders
                .as_ref()
                .map(|journal| journal as &dyn clientbank_bank::operations::Orders);
            let mut write = |out: &mut dyn Write| {
                statement::write(
                    out,
                    encoding,
                    period,
                    now,
                    &mut group,
                    orders,
                    &mut progress,
                )
            };
            let written = if to_stdout {
                write(&mut std::io::BufWriter::new(std::io::stdout().lock()))
            } else {
                clientbank_bank::files::replace_atomically(&target, |out| write(out))
            };
            bar.finish_and_clear();
            let written = match written {
                Ok(written) => written,
                Err(e) => return Err(e.into()),
            };
            for note in &written.notes {
                term::warning(note.get(term::lang()));
            }
            report.push((target, group, written));
        }
        if args.json {
            let files: Vec<_> = report
                .iter()
                .map(|(target, group, written)| {
                    json!({
                        "file": target.display().to_string(),
                        "documents": written.documents,
                        "notes": written.notes.iter().map(|n| n.en()).collect::<Vec<_>>(),
                        "accounts": group.iter().map(|p| json!({
                            "account": p.account().number,
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
        } else {
            let mut err = std::io::stderr().lock();
            for (target, group, _) in &report {
                for part in group {
                    let c = part.counts();
                    let opening = part.sections().first().and_then(|s| s.opening_balance);
                    let closing = part.sections().last().and_then(|s| s.closing_balance);
                    let shown = if to_stdout {
                        "-".to_string()
                    } else {
                        target.display().to_string()
                    };
                    let (number, documents) = (&part.account().number, c.documents);
                    let (incoming, incoming_sum) = (c.incoming, c.incoming_sum);
                    let (outgoing, outgoing_sum) = (c.outgoing, c.outgoing_sum);
                    let (opening, closing) = (money(opening), money(closing));
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
        }
        Ok(Outcome::Clean)
    })
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
