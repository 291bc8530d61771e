//! Statements back to the accounting software: the bank's operations of a period as a 1.03
//! `kl_to_1c.txt` that 1C loads.
//!
//! One [`Collector`] per account takes the operations in any order and any number (from the
//! history's pages, or from the journal): it keeps each executed operation of the period once
//! (by id) in a spool file beside nothing else in memory than its index entry and the day's
//! totals, and counts what it leaves out (cancelled, not executed, outside the period, seen
//! twice). [`Collector::finish`] checks the balance identity on every day against the bank's
//! opening and closing balances; [`write`] writes the header, one `СекцияРасчСчет` per day
//! with movement, and every document oldest first, with the format crate's canonical
//! [`Writer`] (CP1251 and CRLF by default).
//!
//! What an operation lacks for a 1C key is left out, never invented; what a key cannot hold (a
//! character the encoding lacks, a line break) is replaced and reported in
//! [`Written::notes`].
//!
//! 1C matches an outgoing document to its own payment order by number, date, sum and account; a
//! document it cannot match becomes a second one in the books. So a payment this project
//! uploaded comes back as its order: [`write`] takes the order the journal kept
//! ([`Journal::order_of`](crate::operations::Orders::order_of)) with every requisite as the order
//! had it, and only the bank's own facts (the day the money left, `ДатаСписано`) from the bank.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};

use chrono::{Duration, NaiveDate, NaiveDateTime};
use clientbank_api::types::{OperationCategory, OperationStatus};
use clientbank_api::{BankAccount, Client, Company, Operation};
use clientbank_format::{AccountSection, Document, Encoding, Header, Message, Party, Writer, tr};
use clientbank_payment::{AccountHolder, Bank};
use rust_decimal::Decimal;
use serde::Serialize;

use crate::Error;
use crate::operations::{OperationRow, Operations, Orders, StatementSync, source};

mod orders;

use orders::{fill_from, order_of};
pub use orders::{order_from_text, order_text};

/// The document type of an ordinary operation.
const PAYMENT_ORDER: &str = "Платежное поручение";
/// The document type of an SBP or card operation: the bank's own order.
const BANK_ORDER: &str = "Банковский ордер";

/// An account of the user's own, with what a statement says of its owner and bank.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnAccount {
    /// The bank's id of the account.
    pub id: String,
    /// The company that holds it, as one side of a payment: the account's number, the
    /// company's name, INN and KPP, and its bank (name, BIK, correspondent account).
    pub holder: AccountHolder,
}

impl OwnAccount {
    /// The account as `/account-info` shows it.
    pub fn of(company: &Company, account: &BankAccount) -> OwnAccount {
        OwnAccount {
            id: account.id.clone(),
            holder: AccountHolder {
                account: account.number.clone(),
                inn: company.inn.clone(),
                kpp: company.kpp.clone(),
                name: company.company_name.clone(),
                bank: Bank {
                    bik: account.bank_bic.clone(),
                    corr_account: account.bank_correspondent_account.clone(),
                    name: account.bank_name.clone(),
                    city: None,
                },
            },
        }
    }

    /// The 20-digit number (empty if the bank did not say).
    pub fn number(&self) -> &str {
        self.holder.account.as_deref().unwrap_or_default()
    }
}

/// The accounts named (by number or id), from `/account-info`, in the order named, each once;
/// an account the user cannot see is an error naming it.
pub async fn accounts(client: &Client, wanted: &[String]) -> Result<Vec<OwnAccount>, Error> {
    let companies = client.companies().await.map_err(Error::Api)?;
    let mut all = Vec::new();
    for company in &companies {
        for account in &company.bank_accounts {
            all.push(OwnAccount::of(company, account));
        }
    }
    let mut seen = HashSet::new();
    wanted
        .iter()
        .map(|name| {
            let name = name.trim();
            all.iter()
                .find(|a| a.id.eq_ignore_ascii_case(name) || a.number() == name)
                .cloned()
                .ok_or_else(|| {
                    let n = all.len();
                    Error::Usage(Message::new(
                        format!(
                            "no account {name} among the {n} accounts this token sees \
                             (`clientbank accounts` lists them)"
                        ),
                        format!(
                            "счёта {name} нет среди {n} счетов, доступных по этому токену \
                             (их список: `clientbank accounts`)"
                        ),
                    ))
                })
        })
        // The same account named twice (by number and by id): once.
        .filter(|found| found.as_ref().map_or(true, |a| seen.insert(a.id.clone())))
        .collect()
}

/// The days a statement covers, both inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Period {
    /// The first day.
    pub from: NaiveDate,
    /// The last day.
    pub till: NaiveDate,
}

impl Period {
    /// The period, if `from` is not after `till`.
    pub fn new(from: NaiveDate, till: NaiveDate) -> Result<Period, Error> {
        if from > till {
            let day = |d: NaiveDate| d.format("%d.%m.%Y").to_string();
            let (ru_from, ru_till) = (day(from), day(till));
            return Err(Error::Usage(Message::new(
                format!("the period starts {from} after it ends {till}"),
                format!("период начинается {ru_from} — позже, чем кончается ({ru_till})"),
            )));
        }
        Ok(Period { from, till })
    }

    /// Whether `day` is in the period.
    pub fn contains(&self, day: NaiveDate) -> bool {
        (self.from..=self.till).contains(&day)
    }
}

/// What one account's operations came to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Documents in the statement.
    pub documents: u64,
    /// Incoming documents and their sum.
    pub incoming: u64,
    /// See `incoming`.
    pub incoming_sum: Decimal,
    /// Outgoing documents and their sum.
    pub outgoing: u64,
    /// See `outgoing`.
    pub outgoing_sum: Decimal,
    /// Cancelled operations, left out.
    pub cancelled: u64,
    /// Operations not executed (sent to the bank, rejected), left out.
    pub not_executed: u64,
    /// Operations executed outside the period (the sandbox's history ignores dates), left out.
    pub outside_period: u64,
    /// Records seen again (the same id), left out.
    pub duplicates: u64,
    /// Records without a readable id, amount, direction or execution time, left out and named
    /// in the notes.
    pub unreadable: u64,
}

/// The totals of one day.
#[derive(Clone, Copy, Debug, Default)]
struct Day {
    credited: Decimal,
    debited: Decimal,
}

/// Where a spooled operation is.
#[derive(Clone, Copy, Debug)]
struct Spooled {
    executed: NaiveDateTime,
    /// The document number, for a stable order within one time: all-digit numbers by value,
    /// before any other.
    number: (u64, u64),
    /// The order it came in, to keep the bank's order within one time.
    sequence: u64,
    offset: u64,
    len: u32,
}

/// Collects one account's operations for a period.
#[derive(Debug)]
pub struct Collector {
    account: OwnAccount,
    period: Period,
    spool: BufWriter<File>,
    written: u64,
    index: Vec<Spooled>,
    days: BTreeMap<NaiveDate, Day>,
    seen: HashSet<String>,
    counts: Counts,
    notes: Vec<Message>,
}

impl Collector {
    /// A collector spooling to a temporary file (removed when it is dropped).
    pub fn new(account: OwnAccount, period: Period) -> Result<Collector, Error> {
        let spool = tempfile::tempfile().map_err(Error::io(Message::new(
            "cannot make a temporary file",
            "не удалось создать временный файл",
        )))?;
        Ok(Collector {
            account,
            period,
            spool: BufWriter::new(spool),
            written: 0,
            index: Vec::new(),
            days: BTreeMap::new(),
            seen: HashSet::new(),
            counts: Counts::default(),
            notes: Vec::new(),
        })
    }

    /// The account collected.
    pub fn account(&self) -> &OwnAccount {
        &self.account
    }

    /// Operations seen so far (kept or not).
    pub fn seen(&self) -> u64 {
        let c = &self.counts;
        c.documents + c.cancelled + c.not_executed + c.outside_period + c.duplicates + c.unreadable
    }

    /// Takes one operation: kept when executed in the period and not seen before.
    pub fn push(&mut self, operation: &Operation) -> Result<(), Error> {
        let c = &mut self.counts;
        // Outside the period whatever its state (a cancelled operation of another month is
        // not one of this period's cancelled ones).
        if operation
            .executed
            .or(operation.created)
            .is_some_and(|at| !self.period.contains(at.date()))
        {
            c.outside_period += 1;
            return Ok(());
        }
        match operation.status {
            Some(OperationStatus::Canceled) => {
                c.cancelled += 1;
                return Ok(());
            }
            Some(OperationStatus::SendToBank | OperationStatus::RejectByBank) => {
                c.not_executed += 1;
                return Ok(());
            }
            _ => {}
        }
        let (Some(executed), Some(amount), Some(incoming), false) = (
            operation.executed,
            operation.amount,
            match operation.category {
                Some(OperationCategory::Debet) => Some(true),
                Some(OperationCategory::Credit) => Some(false),
                _ => None,
            },
            operation.id.is_empty(),
        ) else {
            c.unreadable += 1;
            if self.notes.len() < NOTES_LIMIT {
                let (id, problems) = (&operation.id, operation.problems.join("; "));
                let problems = if problems.is_empty() {
                    problems
                } else {
                    format!(" ({problems})")
                };
                self.notes.push(Message::new(
                    format!(
                        "operation {id:?} left out: no readable id, amount, category or \
                         execution time{problems}"
                    ),
                    format!(
                        "операция {id:?} не вошла: нет читаемого id, суммы, направления или \
                         времени исполнения{problems}"
                    ),
                ));
            }
            return Ok(());
        };
        if !self.period.contains(executed.date()) {
            c.outside_period += 1;
            return Ok(());
        }
        if !self.seen.insert(operation.id.clone()) {
            c.duplicates += 1;
            return Ok(());
        }
        let day = self.days.entry(executed.date()).or_default();
        let (day_total, sum) = if incoming {
            c.incoming += 1;
            (&mut day.credited, &mut c.incoming_sum)
        } else {
            c.outgoing += 1;
            (&mut day.debited, &mut c.outgoing_sum)
        };
        // Checked: amounts near the decimal's limit (a broken answer) end the statement with
        // an error, never a panic.
        *day_total = day_total
            .checked_add(amount)
            .ok_or_else(|| overflow(&operation.id))?;
        *sum = sum
            .checked_add(amount)
            .ok_or_else(|| overflow(&operation.id))?;
        c.documents += 1;
        let mut line = serde_json::to_vec(operation).map_err(Error::io(tr!(
            "cannot spool operation {}", operation.id ;
            "не удалось отложить на диск операцию {}", operation.id
        )))?;
        line.push(b'\n');
        self.spool.write_all(&line).map_err(Error::io(Message::new(
            "cannot write the spool file",
            "не удалось записать временный файл операций",
        )))?;
        self.index.push(Spooled {
            executed,
            number: number_key(operation.doc_number.as_deref()),
            sequence: self.index.len() as u64,
            offset: self.written,
            len: line.len() as u32,
        });
        self.written += line.len() as u64;
        Ok(())
    }

    /// Ends the account: the day sections from the bank's balance at the end of the day before
    /// the period (`opening`), checked against its balance at the end of the last day
    /// (`closing`). A difference means the history and the balance disagree: an error naming
    /// both figures, and no statement.
    pub fn finish(mut self, opening: Decimal, closing: Decimal) -> Result<AccountStatement, Error> {
        let mut sections = Vec::new();
        let mut balance = opening;
        for (day, totals) in &self.days {
            let end = balance
                .checked_add(totals.credited)
                .and_then(|b| b.checked_sub(totals.debited))
                .ok_or_else(|| overflow(&day.to_string()))?;
            sections.push(AccountSection {
                start_date: Some(*day),
                end_date: Some(*day),
                account: Some(self.account.number().to_string()),
                opening_balance: Some(balance),
                credited: Some(totals.credited),
                debited: Some(totals.debited),
                closing_balance: Some(end),
                ..AccountSection::default()
            });
            balance = end;
        }
        if sections.is_empty() {
            sections.push(AccountSection {
                start_date: Some(self.period.from),
                end_date: Some(self.period.till),
                account: Some(self.account.number().to_string()),
                opening_balance: Some(opening),
                credited: Some(Decimal::ZERO),
                debited: Some(Decimal::ZERO),
                closing_balance: Some(opening),
                ..AccountSection::default()
            });
        }
        if balance != closing {
            let (number, till) = (self.account.number(), self.period.till);
            let before = self.period.from - Duration::days(1);
            let c = &self.counts;
            let (n, credited, debited) = (c.documents, c.incoming_sum, c.outgoing_sum);
            return Err(Error::Unbalanced(Message::new(
                format!(
                    "account {number}: the bank's balance at the end of {till} is {closing}, but \
                     the balance at the end of {before} ({opening}) with the period's {n} \
                     operations (in {credited}, out {debited}) comes to {balance}: the history \
                     and the balance disagree; no statement written"
                ),
                format!(
                    "счёт {number}: остаток банка на конец {till} — {closing}, а остаток на \
                     конец {before} ({opening}) с {n} операциями периода (поступило {credited}, \
                     списано {debited}) даёт {balance}: история и остаток расходятся; выписка не \
                     записана"
                ),
            )));
        }
        let spool = self.spool.into_inner().map_err(|e| {
            Error::io(Message::new(
                "cannot write the spool file",
                "не удалось записать временный файл операций",
            ))(e.into_error())
        })?;
        self.index
            .sort_by_key(|s| (s.executed, s.number, s.sequence));
        Ok(AccountStatement {
            account: self.account,
            sections,
            spool,
            index: self.index,
            counts: self.counts,
            notes: self.notes,
        })
    }
}

/// How documents of one execution time are ordered: an all-digit number by its value, before
/// any other number or none (which keep the bank's order).
fn number_key(number: Option<&str>) -> (u64, u64) {
    match number.map(str::trim).and_then(|n| n.parse::<u64>().ok()) {
        Some(n) => (0, n),
        None => (1, 0),
    }
}

fn overflow(at: &str) -> Error {
    Error::Unbalanced(Message::new(
        format!("the sums overflow at {at}: the bank's amounts are beyond what can be added"),
        format!("суммы переполняются на {at}: суммы банка больше, чем можно сложить"),
    ))
}

/// The most notes kept per account (then only counted).
const NOTES_LIMIT: usize = 100;

/// One account's part of a statement, ready to write.
#[derive(Debug)]
pub struct AccountStatement {
    account: OwnAccount,
    sections: Vec<AccountSection>,
    spool: File,
    index: Vec<Spooled>,
    counts: Counts,
    notes: Vec<Message>,
}

impl AccountStatement {
    /// The account.
    pub fn account(&self) -> &OwnAccount {
        &self.account
    }

    /// What its operations came to.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// Its `СекцияРасчСчет` sections, one per day with movement.
    pub fn sections(&self) -> &[AccountSection] {
        &self.sections
    }
}

/// Fetches one account's statement from the bank: the history of the period page by page (50
/// at a time, `skip += 50` until a short page), each page into the collector as it comes, and
/// the balances at the end of the day before and of the last day. `progress` is called with the
/// operations seen so far after each page.
pub async fn fetch(
    client: &Client,
    account: OwnAccount,
    period: Period,
    progress: &mut (dyn FnMut(u64) + Send),
) -> Result<AccountStatement, Error> {
    let mut collector = Collector::new(account, period)?;
    let id = collector.account().id.clone();
    let mut pages = client.history_pages(&id, period.from, period.till);
    while let Some(page) = pages.next().await.map_err(Error::Api)? {
        for operation in &page {
            collector.push(operation)?;
        }
        progress(collector.seen());
    }
    balanced(client, collector).await
}

/// Brings the journal's operations of `account` up to date: the history from the last day
/// synced (with `resume`; or `from`, whichever is later) to `today`, each operation recorded once
/// ([`Journal::record_operation`](crate::operations::Operations::record_operation)); then the day
/// reached and the newest operation are recorded, so a restart fetches only from there.
/// Says how many records the bank sent and how many of them were new.
pub async fn sync(
    client: &Client,
    journal: &mut dyn Operations,
    account: &OwnAccount,
    from: NaiveDate,
    today: NaiveDate,
    resume: bool,
) -> Result<Synced, Error> {
    let synced = journal.statement_sync(account.number())?;
    let start = synced
        .as_ref()
        .filter(|_| resume)
        .and_then(|s| NaiveDate::parse_from_str(&s.synced_till, "%Y-%m-%d").ok())
        .map_or(from, |day| day.max(from))
        .min(today);
    let mut newest: Option<(NaiveDateTime, String)> = None;
    let mut synced_now = Synced::default();
    let mut pages = client.history_pages(&account.id, start, today);
    while let Some(page) = pages.next().await.map_err(Error::Api)? {
        synced_now.fetched += page.len() as u64;
        for operation in &page {
            if operation.id.is_empty() {
                continue;
            }
            if let Some(at) = operation.executed
                && newest.as_ref().is_none_or(|(t, _)| at > *t)
            {
                newest = Some((at, operation.id.clone()));
            }
            let body = serde_json::to_string(operation).map_err(Error::io(tr!(
                "operation {}", operation.id ;
                "операция {}", operation.id
            )))?;
            let row = OperationRow {
                id: operation.id.clone(),
                account: account.number().to_string(),
                executed: operation
                    .executed
                    .map(|at| at.format("%Y-%m-%dT%H:%M:%S").to_string()),
                source: source::HISTORY.into(),
                body,
                confirmed: false,
            };
            if journal.record_operation(&row)? {
                synced_now.added += 1;
            }
        }
    }
    journal.set_statement_sync(&StatementSync {
        account: account.number().to_string(),
        synced_till: today.format("%Y-%m-%d").to_string(),
        last_operation: newest
            .map(|(_, id)| id)
            .or(synced.and_then(|s| s.last_operation)),
    })?;
    Ok(synced_now)
}

/// What [`sync`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Synced {
    /// Records the bank sent.
    pub fetched: u64,
    /// Operations recorded for the first time.
    pub added: u64,
}

/// A collector holding the journal's operations of `account` in `period` (see [`sync`]); end
/// it with [`balanced`].
pub fn from_journal(
    journal: &dyn Operations,
    account: OwnAccount,
    period: Period,
) -> Result<Collector, Error> {
    let rows = journal.operations_between(
        account.number(),
        &period.from.format("%Y-%m-%d").to_string(),
        &period.till.format("%Y-%m-%d").to_string(),
    )?;
    let mut collector = Collector::new(account, period)?;
    // Only what the history confirmed: a webhook proves its operation id, not its contents.
    for row in rows.into_iter().filter(|r| r.confirmed) {
        let value: serde_json::Value = serde_json::from_str(&row.body)
            .map_err(|e| Error::Store(format!("operation {}: {e}", row.id).into()))?;
        collector.push(&Operation::from_json(value))?;
    }
    Ok(collector)
}

/// Ends `collector` on the bank's balances: at the end of the day before the period and at
/// the end of its last day ([`Collector::finish`] checks the identity).
pub async fn balanced(client: &Client, collector: Collector) -> Result<AccountStatement, Error> {
    let id = collector.account.id.clone();
    let period = collector.period;
    let opening = client
        .balance_on(&id, period.from - Duration::days(1))
        .await
        .map_err(Error::Api)?;
    let closing = client
        .balance_on(&id, period.till)
        .await
        .map_err(Error::Api)?;
    collector.finish(opening, closing)
}

/// What [`write`] wrote.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Written {
    /// Documents written.
    pub documents: u64,
    /// Values changed to fit a key (a character the encoding lacks, a line break), values
    /// longer than 1C's field, and operations left out for want of something 1C needs, one
    /// each (JSON: the English text).
    #[serde(serialize_with = "english")]
    pub notes: Vec<Message>,
}

/// Writes a statement of `accounts` for `period` to `out`: the header (with one `РасчСчет` per
/// account), each account's day sections, then the documents of each account oldest first
/// (by execution time, then number). An outgoing operation that `orders` knows as a payment
/// it uploaded is written as that order (see the module's text). `progress` is called with
/// the documents written so far.
pub fn write<W: Write>(
    out: W,
    encoding: Encoding,
    period: Period,
    now: NaiveDateTime,
    accounts: &mut [AccountStatement],
    orders: Option<&dyn Orders>,
    progress: &mut dyn FnMut(u64),
) -> Result<Written, Error> {
    let header = Header {
        version: Some("1.03".into()),
        sender: Some(format!("clientbank {}", env!("CARGO_PKG_VERSION"))),
        recipient: Some("1С:Предприятие".into()),
        created_on: Some(now.date()),
        created_at: Some(now.time()),
        start_date: Some(period.from),
        end_date: Some(period.till),
        accounts: accounts
            .iter()
            .map(|a| a.account.number().to_string())
            .collect(),
        ..Header::default()
    };
    let failed = |e: clientbank_format::WriteError| {
        Error::io(Message::new("statement", "выписка"))(e)
    };
    let mut writer = Writer::new(out, encoding, &header).map_err(failed)?;
    for account in accounts.iter() {
        for section in &account.sections {
            writer.account(section).map_err(failed)?;
        }
    }
    let mut written = Written::default();
    for account in accounts.iter_mut() {
        written.notes.append(&mut account.notes);
        account
            .spool
            .seek(SeekFrom::Start(0))
            .map_err(Error::io(Message::new(
                "cannot read the spool file",
                "не удалось прочитать временный файл операций",
            )))?;
        let mut reader = BufReader::new(&account.spool);
        let mut position = 0u64;
        let mut line = Vec::new();
        for spooled in &account.index {
            if spooled.offset != position {
                reader
                    .seek(SeekFrom::Start(spooled.offset))
                    .map_err(Error::io(Message::new(
                        "cannot read the spool file",
                        "не удалось прочитать временный файл операций",
                    )))?;
            }
            line.clear();
            line.resize(spooled.len as usize, 0);
            reader
                .read_exact(&mut line)
                .map_err(Error::io(Message::new(
                    "cannot read the spool file",
                    "не удалось прочитать временный файл операций",
                )))?;
            position = spooled.offset + u64::from(spooled.len);
            let value: serde_json::Value =
                serde_json::from_slice(&line).map_err(Error::io(Message::new(
                    "the spool file is damaged",
                    "временный файл операций повреждён",
                )))?;
            let operation = Operation::from_json(value);
            let mut fit = Fit {
                encoding,
                id: &operation.id,
                notes: &mut written.notes,
            };
            let order = match orders {
                Some(journal) if operation.category == Some(OperationCategory::Credit) => {
                    order_of(journal, &operation, &account.account)?
                }
                _ => None,
            };
            let document = document_of(&operation, &account.account, order, &mut fit);
            writer.document(&document).map_err(failed)?;
            written.documents += 1;
            if written.documents.is_multiple_of(256) {
                progress(written.documents);
            }
        }
    }
    progress(written.documents);
    writer.finish().map_err(failed)?;
    Ok(written)
}

fn english<S: serde::Serializer>(notes: &[Message], out: S) -> Result<S::Ok, S::Error> {
    out.collect_seq(notes.iter().map(Message::en))
}

/// Makes text fit a 1C key: one line, characters of the target encoding; each change noted.
struct Fit<'a> {
    encoding: Encoding,
    id: &'a str,
    notes: &'a mut Vec<Message>,
}

impl Fit<'_> {
    /// `text` as one line of the target encoding, noting a change; and noting (not cutting) a
    /// value longer than `max` characters, which 1C's loader refuses.
    fn text(&mut self, field: &str, text: Option<&str>, max: usize) -> Option<String> {
        let text = text?.trim();
        if text.is_empty() {
            return None;
        }
        let (mut breaks, mut lacking) = (false, false);
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            if c == '\r' || c == '\n' || c == '\t' {
                breaks = true;
                out.push(' ');
            } else if self.encoding.encode(c.encode_utf8(&mut [0; 4])).is_err() {
                lacking = true;
                out.push('?');
            } else {
                out.push(c);
            }
        }
        let id = self.id;
        let mut note = |en: String, ru: String| {
            if self.notes.len() < NOTES_LIMIT {
                self.notes.push(Message::new(en, ru));
            }
        };
        if breaks {
            note(
                format!("operation {id}: {field} held a line break or tab, now a space"),
                format!("операция {id}: в {field} был перевод строки или табуляция, теперь пробел"),
            );
        }
        if lacking {
            note(
                format!("operation {id}: {field} held a character the encoding lacks, now `?`"),
                format!("операция {id}: в {field} был знак, которого нет в кодировке, теперь `?`"),
            );
        }
        let length = out.chars().count();
        if length > max {
            note(
                format!(
                    "operation {id}: {field} has {length} characters, more than the {max} 1C \
                     takes: 1C may refuse the document"
                ),
                format!(
                    "операция {id}: в {field} {length} знаков, больше {max}, которые принимает \
                     1С: 1С может не загрузить документ"
                ),
            );
        }
        Some(out)
    }
}

/// The document 1C loads for an operation of `account`: the `order` this project uploaded when
/// there is one (its requisites as written; the day the money left and what the order lacks
/// from the bank), else what the bank says.
fn document_of(
    operation: &Operation,
    account: &OwnAccount,
    order: Option<Document>,
    fit: &mut Fit<'_>,
) -> Document {
    let incoming = operation.category == Some(OperationCategory::Debet);
    let executed = operation.executed.map(|at| at.date());
    let bank_order = operation
        .sbp_oper_id
        .as_deref()
        .is_some_and(|s| !s.is_empty())
        || operation
            .rcv_qrc_id
            .as_deref()
            .is_some_and(|s| !s.is_empty())
        || operation.card_id.as_deref().is_some_and(|s| !s.is_empty());
    let own = Party {
        account: Some(account.number().to_string()),
        name: fit.text("companyName", account.holder.name.as_deref(), 160),
        inn: fit.text("inn", account.holder.inn.as_deref(), 12),
        lines: [
            fit.text("companyName", account.holder.name.as_deref(), 160),
            None,
            None,
            None,
        ],
        settlement_account: Some(account.number().to_string()),
        bank_name: fit.text("bankName", account.holder.bank.name.as_deref(), 160),
        bik: fit.text("bankBic", account.holder.bank.bik.as_deref(), 9),
        corr_account: fit.text(
            "bankCorrespondentAccount",
            account.holder.bank.corr_account.as_deref(),
            20,
        ),
        kpp: fit.text("kpp", account.holder.kpp.as_deref(), 9),
        ..Party::default()
    };
    let name = fit.text("contragentName", operation.contragent_name.as_deref(), 160);
    let other = Party {
        account: fit.text(
            "contragentBankAccountNumber",
            operation.contragent_bank_account_number.as_deref(),
            20,
        ),
        name: name.clone(),
        inn: fit.text("contragentInn", operation.contragent_inn.as_deref(), 12),
        lines: [name, None, None, None],
        settlement_account: fit.text(
            "contragentBankAccountNumber",
            operation.contragent_bank_account_number.as_deref(),
            20,
        ),
        bank_name: fit.text(
            "contragentBankName",
            operation.contragent_bank_name.as_deref(),
            160,
        ),
        bik: fit.text(
            "contragentBankBic",
            operation.contragent_bank_bic.as_deref(),
            9,
        ),
        kpp: fit.text("contragentKpp", operation.contragent_kpp.as_deref(), 9),
        ..Party::default()
    };
    if let Some(mut order) = order {
        fill_from(&mut order.payer, own);
        fill_from(&mut order.recipient, other);
        order.payer.date = executed;
        order.sum = order.sum.or(operation.amount);
        order.line = None;
        return order;
    }
    let (mut payer, mut recipient) = if incoming { (other, own) } else { (own, other) };
    if incoming {
        recipient.date = executed;
    } else {
        payer.date = executed;
    }
    let budget = clientbank_format::Budget {
        payer_status: fit.text("payerStatus", operation.payer_status.as_deref(), 2),
        kbk: fit.text("kbk", operation.kbk.as_deref(), 20),
        oktmo: fit.text("oktmo", operation.oktmo.as_deref(), 11),
        basis: fit.text("paymentBasis", operation.payment_basis.as_deref(), 2),
        period: fit.text("taxCode", operation.tax_code.as_deref(), 10),
        number: fit.text("taxDocNum", operation.tax_doc_num.as_deref(), 15),
        date: fit.text("taxDocDate", operation.tax_doc_date.as_deref(), 10),
        payment_type: None,
    };
    Document {
        kind: if bank_order {
            BANK_ORDER
        } else {
            PAYMENT_ORDER
        }
        .into(),
        number: fit.text("docNumber", operation.doc_number.as_deref(), 15),
        date: operation.created.map(|at| at.date()).or(executed),
        sum: operation.amount,
        payer,
        recipient,
        operation_kind: Some(if bank_order { "17" } else { "01" }.into()),
        uin: fit.text("uin", operation.uin.as_deref(), 25),
        purpose: fit.text("paymentPurpose", operation.payment_purpose.as_deref(), 210),
        budget,
        ..Document::default()
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_backward_period_is_said_in_the_dates_people_write() {
        let Err(Error::Usage(said)) = Period::new(day(30), day(1)) else {
            panic!("a backward period was taken");
        };
        assert_eq!(
            said.ru(),
            "период начинается 30.11.2026 — позже, чем кончается (01.11.2026)"
        );
    }

    use super::*;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
    }

    fn op(id: &str, d: u32, incoming: bool, kopecks: i64) -> Operation {
        Operation {
            id: id.into(),
            status: Some(if incoming {
                OperationStatus::Received
            } else {
                OperationStatus::Executed
            }),
            category: Some(if incoming {
                OperationCategory::Debet
            } else {
                OperationCategory::Credit
            }),
            amount: Some(Decimal::new(kopecks, 2)),
            executed: day(d).and_hms_opt(10, 0, 0),
            doc_number: Some(id.into()),
            contragent_inn: Some("5009876546".into()),
            contragent_bank_account_number: Some("40702810210000054321".into()),
            ..Operation::default()
        }
    }

    fn own() -> OwnAccount {
        OwnAccount {
            holder: AccountHolder {
                account: Some("40702810938000012345".into()),
                inn: Some("7701234560".into()),
                ..AccountHolder::default()
            },
            ..OwnAccount::default()
        }
    }

    fn written(mut part: AccountStatement) -> (Vec<u8>, Written) {
        let period = Period::new(day(20), day(23)).unwrap();
        let mut out = Vec::new();
        let now = day(23).and_hms_opt(12, 0, 0).unwrap();
        let w = write(
            &mut out,
            Encoding::Cp1251,
            period,
            now,
            std::slice::from_mut(&mut part),
            None,
            &mut |_| {},
        )
        .unwrap();
        (out, w)
    }

    fn documents(bytes: &[u8]) -> Vec<Document> {
        let parsed = clientbank_format::parse(bytes.to_vec()).unwrap();
        parsed.tree.to_exchange().documents
    }

    #[test]
    fn documents_of_one_time_come_by_number() {
        let period = Period::new(day(20), day(23)).unwrap();
        let mut c = Collector::new(own(), period).unwrap();
        for number in ["10", "9", "x", "100"] {
            c.push(&op(number, 21, false, 100)).unwrap();
        }
        c.push(&op("1", 22, false, 100)).unwrap();
        let opening = Decimal::new(1000, 0);
        let part = c.finish(opening, opening - Decimal::new(5, 0)).unwrap();
        let (out, _) = written(part);
        let numbers: Vec<_> = documents(&out)
            .into_iter()
            .map(|d| d.number.unwrap())
            .collect();
        assert_eq!(numbers, ["9", "10", "100", "x", "1"]);
    }

    #[test]
    fn an_uploaded_payment_comes_back_as_its_order() {
        let order = |number: &str| Document {
            kind: PAYMENT_ORDER.into(),
            number: Some(number.into()),
            date: Some(day(2)),
            sum: Some(Decimal::new(100, 2)),
            priority: Some("3".into()),
            uin: Some("0".into()),
            payer: Party {
                account: Some(own().number().to_string()),
                ..Party::default()
            },
            recipient: Party {
                account: Some("40702810210000054321".into()),
                bank_name: Some("АО \"ТБАНК\"".into()),
                bik: Some("044525974".into()),
                corr_account: Some("30101810145250000974".into()),
                ..Party::default()
            },
            ..Document::default()
        };
        /// The orders kept: "7" by the bank's id; "8" (its id not known) by its requisites.
        /// "9" is not one of ours (the journal's rules of matching are tested there).
        struct Kept(Vec<(Option<&'static str>, [String; 4], String)>);
        impl Orders for Kept {
            fn order_of(
                &self,
                bank_id: &str,
                identity: [&str; 4],
            ) -> Result<Option<String>, crate::operations::StoreError> {
                Ok(self
                    .0
                    .iter()
                    .find(|(id, requisites, _)| match id {
                        Some(id) => *id == bank_id,
                        None => requisites.iter().map(String::as_str).eq(identity),
                    })
                    .map(|(_, _, text)| text.clone()))
            }
        }
        let requisites = |number: &str| {
            [
                own().number().to_string(),
                number.to_string(),
                "1.00".to_string(),
                "40702810210000054321".to_string(),
            ]
        };
        let journal = Kept(vec![
            (
                Some("op-7"),
                requisites("7"),
                order_text(order("7")).unwrap(),
            ),
            (None, requisites("8"), order_text(order("8")).unwrap()),
        ]);
        let period = Period::new(day(20), day(23)).unwrap();
        let mut c = Collector::new(own(), period).unwrap();
        for (id, number, incoming) in [
            ("op-7", "7", false),
            ("op-8", "8", false),
            ("op-9", "9", false),
            ("in", "8", true),
        ] {
            let mut operation = op(id, 21, incoming, 100);
            operation.doc_number = Some(number.into());
            c.push(&operation).unwrap();
        }
        let opening = Decimal::new(1000, 0);
        let part = c.finish(opening, opening - Decimal::new(2, 0)).unwrap();
        let mut out = Vec::new();
        let now = day(23).and_hms_opt(12, 0, 0).unwrap();
        let mut parts = [part];
        write(
            &mut out,
            Encoding::Cp1251,
            period,
            now,
            &mut parts,
            Some(&journal),
            &mut |_| {},
        )
        .unwrap();
        let back = documents(&out);
        assert_eq!(back.len(), 4);
        let theirs = back
            .iter()
            .find(|d| d.number.as_deref() == Some("9"))
            .unwrap();
        assert_eq!(theirs.date, Some(day(21)), "the bank's record: {theirs:?}");
        assert_eq!(theirs.priority, None);
        for document in back.iter().filter(|d| {
            d.payer.account == Some(own().number().to_string()) && d.number.as_deref() != Some("9")
        }) {
            // The order's date, priority, code and payee bank; the day it left from the bank.
            assert_eq!(document.date, Some(day(2)), "{document:?}");
            assert_eq!(document.priority.as_deref(), Some("3"));
            assert_eq!(document.uin.as_deref(), Some("0"));
            assert_eq!(document.recipient.bik.as_deref(), Some("044525974"));
            assert_eq!(
                document.recipient.bank_name.as_deref(),
                Some("АО \"ТБАНК\"")
            );
            assert_eq!(document.payer.date, Some(day(21)));
            // What the order lacks, from the bank.
            assert_eq!(document.payer.inn.as_deref(), Some("7701234560"));
        }
        // Money coming in is the bank's record.
        let incoming = back
            .iter()
            .find(|d| d.recipient.account == Some(own().number().to_string()))
            .unwrap();
        assert_eq!(incoming.date, Some(day(21)));
        assert_eq!(incoming.priority, None);
    }

    #[test]
    fn days_balance_and_what_is_left_out_is_counted() {
        let period = Period::new(day(20), day(23)).unwrap();
        let mut c = Collector::new(own(), period).unwrap();
        // 120 operations on one day: more than two pages.
        for i in 0..120 {
            c.push(&op(&format!("a{i}"), 21, i % 2 == 0, 100)).unwrap();
        }
        c.push(&op("a0", 21, true, 100)).unwrap();
        c.push(&op("late", 24, true, 100)).unwrap();
        let mut cancelled = op("x", 22, false, 5000);
        cancelled.status = Some(OperationStatus::Canceled);
        c.push(&cancelled).unwrap();
        // Cancelled in another month: outside the period, not one of its cancelled ones.
        let mut cancelled_before = op("y", 5, false, 5000);
        cancelled_before.status = Some(OperationStatus::Canceled);
        c.push(&cancelled_before).unwrap();
        let mut sent = op("s", 22, false, 5000);
        sent.status = Some(OperationStatus::SendToBank);
        c.push(&sent).unwrap();
        let mut odd = op("odd", 22, false, 1);
        odd.amount = None;
        c.push(&odd).unwrap();
        c.push(&op("b", 23, false, 2550)).unwrap();
        assert_eq!(c.seen(), 127);
        let part = c
            .finish(Decimal::new(100_000, 2), Decimal::new(97_450, 2))
            .unwrap();
        let counts = part.counts().clone();
        assert_eq!(
            (counts.documents, counts.duplicates, counts.outside_period),
            (121, 1, 2)
        );
        assert_eq!(
            (counts.cancelled, counts.not_executed, counts.unreadable),
            (1, 1, 1)
        );
        assert_eq!(counts.incoming_sum, Decimal::new(6000, 2));
        let days: Vec<_> = part
            .sections()
            .iter()
            .map(|s| {
                (
                    s.start_date.unwrap(),
                    s.opening_balance.unwrap(),
                    s.closing_balance.unwrap(),
                )
            })
            .collect();
        assert_eq!(
            days,
            [
                (day(21), Decimal::new(100_000, 2), Decimal::new(100_000, 2)),
                (day(23), Decimal::new(100_000, 2), Decimal::new(97_450, 2)),
            ]
        );
        let (bytes, w) = written(part);
        assert_eq!(w.documents, 121);
        assert!(
            w.notes.iter().any(|n| n.en().contains("odd")),
            "{:?}",
            w.notes
        );
        let parsed = clientbank_format::parse(bytes).unwrap();
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        // Oldest first: the day-23 document is the last.
        let last = parsed.tree.documents().last().unwrap();
        assert_eq!(
            last.text(clientbank_format::Key::Number).as_deref(),
            Some("b")
        );
    }

    #[test]
    fn a_balance_the_history_does_not_explain_is_an_error() {
        let period = Period::new(day(20), day(23)).unwrap();
        let mut c = Collector::new(own(), period).unwrap();
        c.push(&op("a", 21, true, 100)).unwrap();
        let e = c.finish(Decimal::ZERO, Decimal::new(200, 2)).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("2.00") && text.contains("1.00"), "{text}");
        // Without operations, one section spans the period.
        let c = Collector::new(own(), period).unwrap();
        let part = c.finish(Decimal::ONE, Decimal::ONE).unwrap();
        assert_eq!(part.sections().len(), 1);
        assert_eq!(part.sections()[0].end_date, Some(day(23)));
    }

    #[test]
    fn what_a_key_cannot_hold_is_replaced_and_noted() {
        let period = Period::new(day(20), day(23)).unwrap();
        let mut c = Collector::new(own(), period).unwrap();
        let mut odd = op("p", 21, true, 100);
        odd.payment_purpose = Some("строка\r\nвторая 😀 ok".into());
        c.push(&odd).unwrap();
        let part = c.finish(Decimal::ZERO, Decimal::ONE).unwrap();
        let (bytes, w) = written(part);
        assert_eq!(w.notes.len(), 2, "{:?}", w.notes);
        assert!(w.notes[0].en().contains("paymentPurpose"), "{:?}", w.notes);
        assert!(w.notes[1].ru().contains("нет в кодировке"), "{:?}", w.notes);
        let parsed = clientbank_format::parse(bytes).unwrap();
        let purpose = parsed
            .tree
            .documents()
            .next()
            .unwrap()
            .text(clientbank_format::Key::Purpose)
            .unwrap()
            .into_owned();
        assert_eq!(purpose, "строка  вторая ? ok");
    }

    #[test]
    fn a_value_longer_than_1c_takes_is_kept_and_noted() {
        let period = Period::new(day(20), day(23)).unwrap();
        let mut c = Collector::new(own(), period).unwrap();
        let mut long = op("l", 21, true, 100);
        long.payment_purpose = Some("а".repeat(300));
        c.push(&long).unwrap();
        let part = c.finish(Decimal::ZERO, Decimal::ONE).unwrap();
        let (bytes, w) = written(part);
        assert_eq!(w.notes.len(), 1, "{:?}", w.notes);
        assert!(
            w.notes[0]
                .en()
                .contains("300 characters, more than the 210")
        );
        let parsed = clientbank_format::parse(bytes).unwrap();
        let document = parsed.tree.documents().next().unwrap();
        let purpose = document.text(clientbank_format::Key::Purpose).unwrap();
        assert_eq!(
            purpose.chars().count(),
            300,
            "kept whole: the journal and 1C decide"
        );
    }

    #[test]
    fn amounts_beyond_what_adds_up_are_an_error_not_a_panic() {
        let period = Period::new(day(20), day(23)).unwrap();
        let mut c = Collector::new(own(), period).unwrap();
        let mut huge = op("h1", 21, true, 0);
        huge.amount = Some(Decimal::MAX);
        c.push(&huge).unwrap();
        huge.id = "h2".into();
        let e = c.push(&huge).unwrap_err();
        assert!(e.to_string().contains("overflow"), "{e}");
    }
}
