//! The bank at the terminal: `clientbank accounts`, `balance ACCOUNT [--on D]` and
//! `history ACCOUNT --from D --till D`, and what every command that talks to the bank shares
//! (the configuration, `--sandbox`, the bank's errors as exit codes).

use std::future::Future;
use std::io::{self, Write};

use chrono::NaiveDate;
use clientbank_api::types::OperationCategory;
use clientbank_api::{BankAccount, Client, Decimal, Operation, Token};
use clientbank_bank::Settings;
use clientbank_watch::report::{excel_cell, excel_sum, excel_writer};
use serde::Serialize;

use super::watch::load;
use crate::cli::{BankArgs, TableArgs};
use crate::exit::{Failure, Outcome, api_failure};
use crate::output::print_json;
use crate::sandbox_bank::{self, Sandbox};
use crate::term::tr;
use clientbank_format::Message;

/// The fixed token of the sandbox bank's sandbox mode (API.md, Sandbox mode).
pub(crate) const SANDBOX_TOKEN: &str = "sandboxtoken";

/// The configuration of `--dir`/`--config` and the environment; on failure the error is said
/// and the exit code returned.
pub(crate) fn settings(args: &BankArgs) -> Result<Settings, Failure> {
    let settings = load(&args.dir, args.config.as_deref())?;
    for warning in &settings.warnings {
        crate::term::warning(warning);
    }
    Ok(settings)
}

/// With `wanted` (`--sandbox`): the in-process sandbox bank, started and `settings` pointed at
/// it ([`use_sandbox`]); `None` otherwise.
pub(crate) async fn sandbox_if(
    wanted: bool,
    redirect_uri: Option<&str>,
    settings: &mut Settings,
) -> Result<Option<Sandbox>, Failure> {
    if !wanted {
        return Ok(None);
    }
    let bank = sandbox_bank::start(redirect_uri).await?;
    use_sandbox(settings, &bank);
    Ok(Some(bank))
}

/// Points the settings at the in-process sandbox bank: its address, and its fixed token in
/// sandbox mode unless a token is configured (in the file or the environment, not login's).
pub(crate) fn use_sandbox(settings: &mut Settings, bank: &Sandbox) {
    settings.bank_url = Some(bank.url());
    if settings.token.is_some() && !settings.token_from_login {
        settings.sandbox = false;
    } else {
        settings.token = Some(Token::new(SANDBOX_TOKEN));
        settings.token_from_login = false;
        settings.sandbox = true;
    }
}

/// The API client of the settings; a configuration that cannot make one is said (exit 2).
pub(crate) fn client(settings: &Settings) -> Result<Client, Failure> {
    Ok(settings.client()?)
}

/// Says what the bank's error means and returns the exit code (see [`api_failure`]).
pub(crate) fn bank_failure(e: &clientbank_api::Error) -> Outcome {
    let (message, outcome) = api_failure(e);
    crate::term::error(&message);
    outcome
}

/// Runs `work` with a client of the settings (against the in-process sandbox bank with
/// `--sandbox`), on a runtime of its own.
fn with_client<W, F>(args: &BankArgs, work: W) -> Result<Outcome, Failure>
where
    W: FnOnce(Client) -> F,
    F: Future<Output = Result<Outcome, Failure>>,
{
    let mut settings = settings(args)?;
    crate::runtime::run(async move {
        let bank = sandbox_if(args.sandbox, None, &mut settings).await?;
        let client = client(&settings)?;
        let outcome = work(client).await;
        drop(bank);
        outcome
    })
}

// --- accounts -------------------------------------------------------------------------------

/// One account as `accounts --json` prints it.
#[derive(Debug, Serialize)]
struct AccountRow {
    company_id: String,
    company: Option<String>,
    inn: Option<String>,
    kpp: Option<String>,
    account_id: String,
    number: Option<String>,
    name: Option<String>,
    category: Option<String>,
    currency: Option<String>,
    status: Option<String>,
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    balance: Decimal,
}

pub(crate) fn accounts(args: &BankArgs, format: &TableArgs) -> Result<Outcome, Failure> {
    with_client(args, |client| async move {
        let companies = match client.companies().await {
            Ok(companies) => companies,
            Err(e) => return Ok(bank_failure(&e)),
        };
        let rows: Vec<AccountRow> = companies
            .iter()
            .flat_map(|c| {
                c.bank_accounts.iter().map(move |a| AccountRow {
                    company_id: c.company_id.clone(),
                    company: c.company_name.clone(),
                    inn: c.inn.clone(),
                    kpp: c.kpp.clone(),
                    account_id: a.id.clone(),
                    number: a.number.clone(),
                    name: a.account_name.clone(),
                    category: a.category.as_ref().map(|c| c.to_string()),
                    currency: a.currency.as_ref().map(|c| c.to_string()),
                    status: a.status.as_ref().map(|s| s.to_string()),
                    balance: a.balance,
                })
            })
            .collect();
        if format.json {
            print_json(&rows)?;
        } else if format.csv {
            let mut out = excel_writer(io::stdout().lock())?;
            out.write_record(headers(&[
                ("company_id", "id организации"),
                ("company", "организация"),
                ("inn", "ИНН"),
                ("kpp", "КПП"),
                ("account_id", "id счёта"),
                ("number", "номер счёта"),
                ("name", "название"),
                ("category", "вид"),
                ("currency", "валюта"),
                ("status", "состояние"),
                ("balance", "остаток"),
            ]))
            .map_err(csv_error)?;
            for r in &rows {
                out.write_record([
                    r.company_id.as_str(),
                    &excel_cell(opt(&r.company)),
                    opt(&r.inn),
                    opt(&r.kpp),
                    &r.account_id,
                    opt(&r.number),
                    &excel_cell(opt(&r.name)),
                    opt(&r.category),
                    opt(&r.currency),
                    opt(&r.status),
                    &excel_sum(&r.balance.to_string(), crate::term::lang()),
                ])
                .map_err(csv_error)?;
            }
            out.flush()?;
        } else {
            let head = [
                tr("company", "организация"),
                tr("INN", "ИНН"),
                tr("account", "счёт"),
                tr("currency", "валюта"),
                tr("status", "состояние"),
                tr("balance", "остаток"),
                tr("account id", "id счёта"),
            ];
            let body: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        cut(&excel_cell(opt(&r.company)), 40),
                        opt(&r.inn).to_string(),
                        opt(&r.number).to_string(),
                        opt(&r.currency).to_string(),
                        opt(&r.status).to_string(),
                        r.balance.to_string(),
                        r.account_id.clone(),
                    ]
                })
                .collect();
            let mut out = io::stdout().lock();
            table(&mut out, &head, &body, &[5])?;
            let companies = companies.len();
            let n = rows.len();
            writeln!(
                out,
                "{}",
                tr(
                    format!("{n} account(s) of {companies} company(ies)"),
                    format!("счетов: {n}, организаций: {companies}"),
                )
            )?;
        }
        Ok(Outcome::Clean)
    })
}

// --- balance --------------------------------------------------------------------------------

/// `balance --json`.
#[derive(Debug, Serialize)]
struct BalanceJson {
    account_id: String,
    number: Option<String>,
    currency: Option<String>,
    /// The day asked for (`YYYY-MM-DD`), or `null` for now.
    on: Option<NaiveDate>,
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    balance: Decimal,
}

pub(crate) fn balance(
    args: &BankArgs,
    account: &str,
    on: Option<NaiveDate>,
    json: bool,
) -> Result<Outcome, Failure> {
    with_client(args, |client| async move {
        let account = resolve(&client, account).await?;
        let answer = match on {
            Some(day) => client.balance_on(&account.id, day).await,
            None => client.balance(&account.id).await,
        };
        let balance = match answer {
            Ok(balance) => balance,
            Err(e) => return Ok(bank_failure(&e)),
        };
        let currency = account.currency.as_ref().map(|c| c.to_string());
        if json {
            print_json(&BalanceJson {
                account_id: account.id.clone(),
                number: account.number.clone(),
                currency,
                on,
                balance,
            })?;
        } else {
            let number = account.number.as_deref().unwrap_or(&account.id);
            let currency = currency.unwrap_or_default();
            let line = match on {
                Some(day) => {
                    let day = day.format("%d.%m.%Y");
                    tr(
                        format!("{number} {currency}: balance on {day}: {balance}"),
                        format!("{number} {currency}: остаток на {day}: {balance}"),
                    )
                }
                None => tr(
                    format!("{number} {currency}: balance now: {balance}"),
                    format!("{number} {currency}: остаток сейчас: {balance}"),
                ),
            };
            writeln!(io::stdout().lock(), "{line}")?;
        }
        Ok(Outcome::Clean)
    })
}

/// The account a person named by its number or its id, among those the token sees.
async fn resolve(client: &Client, wanted: &str) -> Result<BankAccount, Failure> {
    let wanted = wanted.trim();
    let accounts = client.accounts().await?;
    let count = accounts.len();
    accounts
        .into_iter()
        .map(|(_, account)| account)
        .find(|a| a.id == wanted || a.number.as_deref() == Some(wanted))
        .ok_or_else(|| {
            Failure::Stopped(Message::new(
                format!(
                    "no account {wanted:?} among the {count} account(s) the token sees (by \
                     number or id: see `clientbank accounts`)"
                ),
                format!(
                    "счёта {wanted:?} нет среди видимых токену (их {count}; номер или id — см. \
                     `clientbank accounts`)"
                ),
            ))
        })
}

// --- history --------------------------------------------------------------------------------

/// One operation as `history --json` prints it.
#[derive(Debug, Serialize)]
struct OperationRow {
    id: String,
    /// Moscow time, `YYYY-MM-DDTHH:MM:SS`.
    executed: Option<String>,
    /// `in` (Debet), `out` (Credit), or the bank's own word.
    direction: Option<String>,
    #[serde(with = "rust_decimal::serde::arbitrary_precision_option")]
    amount: Option<Decimal>,
    currency: Option<String>,
    doc_number: Option<String>,
    counterparty: Option<String>,
    counterparty_inn: Option<String>,
    counterparty_account: Option<String>,
    counterparty_bank_bic: Option<String>,
    purpose: Option<String>,
    status: Option<String>,
}

impl OperationRow {
    fn of(op: &Operation) -> OperationRow {
        OperationRow {
            id: op.id.clone(),
            executed: op
                .executed
                .map(|at| at.format("%Y-%m-%dT%H:%M:%S").to_string()),
            direction: op.category.as_ref().map(|c| match c {
                OperationCategory::Debet => "in".to_string(),
                OperationCategory::Credit => "out".to_string(),
                other => other.to_string(),
            }),
            amount: op.amount,
            currency: op.currency.as_ref().map(|c| c.to_string()),
            doc_number: op.doc_number.clone(),
            counterparty: op.contragent_name.clone(),
            counterparty_inn: op.contragent_inn.clone(),
            counterparty_account: op.contragent_bank_account_number.clone(),
            counterparty_bank_bic: op.contragent_bank_bic.clone(),
            purpose: op.payment_purpose.clone(),
            status: op.status.as_ref().map(|s| s.to_string()),
        }
    }
}

pub(crate) fn history(
    args: &BankArgs,
    account: &str,
    from: NaiveDate,
    till: NaiveDate,
    format: &TableArgs,
) -> Result<Outcome, Failure> {
    if from > till {
        return Err(Failure::Stopped(Message::new(
            format!("--from {from} is after --till {till}"),
            format!("--from {from} позже --till {till}"),
        )));
    }
    with_client(args, |client| async move {
        let account = resolve(&client, account).await?;
        let operations = match client.operations_between(&account.id, from, till).await {
            Ok(operations) => operations,
            Err(e) => return Ok(bank_failure(&e)),
        };
        // The bank filters by execution day, but its sandbox mode honours only paging: the
        // period is applied here as well. A cancelled operation, never executed, is listed on
        // the day it was made (with its status), as the bank's filter places it.
        let rows: Vec<OperationRow> = operations
            .iter()
            .filter(|op| {
                op.executed
                    .or(op.created)
                    .is_some_and(|at| (from..=till).contains(&at.date()))
            })
            .map(OperationRow::of)
            .collect();
        if format.json {
            print_json(&rows)?;
            return Ok(Outcome::Clean);
        }
        if format.csv {
            let mut out = excel_writer(io::stdout().lock())?;
            out.write_record(headers(&[
                ("executed", "исполнена"),
                ("direction", "направление"),
                ("amount", "сумма"),
                ("currency", "валюта"),
                ("doc_number", "номер документа"),
                ("counterparty", "контрагент"),
                ("counterparty_inn", "ИНН контрагента"),
                ("counterparty_account", "счёт контрагента"),
                ("purpose", "назначение"),
                ("status", "состояние"),
                ("id", "id"),
            ]))
            .map_err(csv_error)?;
            for r in &rows {
                let amount = r.amount.map(|a| a.to_string()).unwrap_or_default();
                out.write_record([
                    opt(&r.executed),
                    opt(&r.direction),
                    &excel_sum(&amount, crate::term::lang()),
                    opt(&r.currency),
                    &excel_cell(opt(&r.doc_number)),
                    &excel_cell(opt(&r.counterparty)),
                    opt(&r.counterparty_inn),
                    opt(&r.counterparty_account),
                    &excel_cell(opt(&r.purpose)),
                    opt(&r.status),
                    &r.id,
                ])
                .map_err(csv_error)?;
            }
            out.flush()?;
            return Ok(Outcome::Clean);
        }
        let head = [
            tr("executed", "исполнена"),
            tr("direction", "направление"),
            tr("amount", "сумма"),
            tr("doc no.", "номер"),
            tr("counterparty", "контрагент"),
            tr("INN", "ИНН"),
            tr("account", "счёт"),
            tr("purpose", "назначение"),
            tr("status", "состояние"),
            tr("id", "id"),
        ];
        let body: Vec<Vec<String>> = rows
            .iter()
            .map(|r| {
                let direction = match r.direction.as_deref() {
                    Some("in") => tr("in", "приход"),
                    Some("out") => tr("out", "расход"),
                    other => other.unwrap_or("-").to_string(),
                };
                let executed = operations
                    .iter()
                    .find(|op| op.id == r.id)
                    .and_then(|op| op.executed)
                    .map(|at| at.format("%d.%m.%Y %H:%M").to_string())
                    .unwrap_or_default();
                vec![
                    executed,
                    direction,
                    r.amount.map(|a| a.to_string()).unwrap_or_default(),
                    opt(&r.doc_number).to_string(),
                    cut(&excel_cell(opt(&r.counterparty)), 30),
                    opt(&r.counterparty_inn).to_string(),
                    opt(&r.counterparty_account).to_string(),
                    cut(&excel_cell(opt(&r.purpose)), 40),
                    opt(&r.status).to_string(),
                    r.id.clone(),
                ]
            })
            .collect();
        let (mut incoming, mut outgoing) = (Decimal::ZERO, Decimal::ZERO);
        for r in &rows {
            match r.direction.as_deref() {
                Some("in") => incoming = incoming.saturating_add(r.amount.unwrap_or_default()),
                Some("out") => outgoing = outgoing.saturating_add(r.amount.unwrap_or_default()),
                _ => {}
            }
        }
        let mut out = io::stdout().lock();
        let number = account.number.as_deref().unwrap_or(&account.id);
        let (f, t) = (from.format("%d.%m.%Y"), till.format("%d.%m.%Y"));
        writeln!(
            out,
            "{}",
            tr(format!("{number}, {f}–{t}:"), format!("{number}, {f}–{t}:"))
        )?;
        table(&mut out, &head, &body, &[2])?;
        let n = rows.len();
        writeln!(
            out,
            "{}",
            tr(
                format!("{n} operation(s): in {incoming}, out {outgoing}"),
                format!("операций: {n}; поступило {incoming}, списано {outgoing}"),
            )
        )?;
        Ok(Outcome::Clean)
    })
}

// --- tables ---------------------------------------------------------------------------------

fn opt(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("")
}

/// A CSV's headers in the user's language (`--lang`, or the locale).
fn headers(names: &[(&str, &str)]) -> Vec<String> {
    names.iter().map(|&(en, ru)| tr(en, ru)).collect()
}

fn csv_error(e: csv::Error) -> Failure {
    Failure::Output(io::Error::other(e.to_string()))
}

/// The text cut to `width` characters (an ellipsis marks the cut), on one line.
fn cut(text: &str, width: usize) -> String {
    let text: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().count() <= width {
        return text;
    }
    let mut short: String = text.chars().take(width.saturating_sub(1)).collect();
    short.push('…');
    short
}

/// An aligned table: columns as wide as their widest cell (in characters), the columns of
/// `right` (amounts) aligned right.
fn table(
    out: &mut impl Write,
    head: &[String],
    rows: &[Vec<String>],
    right: &[usize],
) -> io::Result<()> {
    let width = |text: &str| text.chars().count();
    let mut widths: Vec<usize> = head.iter().map(|h| width(h)).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    let line = |out: &mut dyn Write, cells: &[String]| -> io::Result<()> {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            let pad = " ".repeat(w.saturating_sub(width(cell)));
            if right.contains(&i) {
                text.push_str(&pad);
                text.push_str(cell);
            } else {
                text.push_str(cell);
                if i + 1 < cells.len() {
                    text.push_str(&pad);
                }
            }
        }
        writeln!(out, "{}", text.trim_end())
    };
    line(out, head)?;
    for row in rows {
        line(out, row)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_by_characters_and_amounts_right() {
        let mut out = Vec::new();
        let head = ["счёт".to_string(), "sum".to_string(), "x".to_string()];
        let rows = vec![
            vec!["Ромашка".to_string(), "1.50".to_string(), "a".to_string()],
            vec!["b".to_string(), "1000.00".to_string(), "b".to_string()],
        ];
        table(&mut out, &head, &rows, &[1]).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "счёт         sum  x\nРомашка     1.50  a\nb        1000.00  b\n"
        );
        assert_eq!(cut("абвгдеж", 4), "абв…");
        assert_eq!(cut("a\nb", 4), "a b");
    }
}
