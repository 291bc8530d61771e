//! `clientbank history ACCOUNT --from D --till D [--json|--csv]`: an account's operations executed in a period.

use std::io::{self, Write};

use chrono::NaiveDate;
use clientbank_api::types::OperationCategory;
use clientbank_api::{BankAccount, Decimal, Operation};
use clientbank_format::Message;
use clientbank_watch::report::{excel_cell, excel_writer, sum_in};
use serde::Serialize;

use super::balance::account_named;
use super::bank::{bank_failure, with_client};
use crate::cli::{BankArgs, TableArgs, parse_day};
use crate::exit::{Failure, Outcome};
use crate::output::print_json;
use crate::table::{
    csv_error, cut, direction, excel_moment, headers, operation_status, opt, table,
};
use crate::term::tr;

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The account: its number or its id.
    pub(crate) account: String,
    /// The first day (ДД.ММ.ГГГГ or YYYY-MM-DD).
    #[arg(long, value_parser = parse_day, value_name = "D")]
    pub(crate) from: NaiveDate,
    /// The last day, included.
    #[arg(long, value_parser = parse_day, value_name = "D")]
    pub(crate) till: NaiveDate,
    #[command(flatten)]
    pub(crate) bank: BankArgs,
    #[command(flatten)]
    pub(crate) format: TableArgs,
}

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

pub(crate) fn run(args: &Args) -> Result<Outcome, Failure> {
    let (from, till) = (args.from, args.till);
    if from > till {
        return Err(Failure::Stopped(Message::new(
            format!("--from {from} is after --till {till}"),
            format!("--from {from} позже --till {till}"),
        )));
    }
    with_client(&args.bank, |client| async move {
        let account = account_named(&client, &args.account).await?;
        let operations = match client.operations_between(&account.id, from, till).await {
            Ok(operations) => operations,
            Err(e) => return Ok(bank_failure(&e)),
        };
        // The bank filters by execution day, but its sandbox mode honours only paging: the
        // period is applied here as well. A cancelled operation, never executed, is listed on
        // the day it was made (with its status), as the bank's filter places it.
        let operations: Vec<&Operation> = operations
            .iter()
            .filter(|op| {
                op.executed
                    .or(op.created)
                    .is_some_and(|at| (from..=till).contains(&at.date()))
            })
            .collect();
        let rows: Vec<OperationRow> = operations.iter().map(|op| OperationRow::of(op)).collect();
        if args.format.json {
            print_json(&rows)?;
        } else if args.format.csv {
            write_csv(&rows)?;
        } else {
            write_table(&account, args, &operations, &rows)?;
        }
        Ok(Outcome::Clean)
    })
}

/// `--csv`: for Excel (`clientbank_watch::report::excel_writer`), headers in the user's language.
fn write_csv(rows: &[OperationRow]) -> Result<(), Failure> {
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
    for r in rows {
        let amount = r.amount.map(|a| a.to_string()).unwrap_or_default();
        out.write_record([
            &excel_moment(opt(&r.executed)),
            &direction(opt(&r.direction)),
            &sum_in(&amount, crate::term::lang()),
            opt(&r.currency),
            &excel_cell(opt(&r.doc_number)),
            &excel_cell(opt(&r.counterparty)),
            &excel_cell(opt(&r.counterparty_inn)),
            &excel_cell(opt(&r.counterparty_account)),
            &excel_cell(opt(&r.purpose)),
            &operation_status(opt(&r.status)),
            &r.id,
        ])
        .map_err(csv_error)?;
    }
    out.flush()?;
    Ok(())
}

/// For people: the account and period, an aligned table (Moscow time, words for the
/// direction), the sums in and out.
fn write_table(
    account: &BankAccount,
    args: &Args,
    operations: &[&Operation],
    rows: &[OperationRow],
) -> Result<(), Failure> {
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
    let body: Vec<Vec<String>> = operations
        .iter()
        .zip(rows)
        .map(|(op, r)| {
            let direction = r.direction.as_deref().map_or("-".to_string(), direction);
            let executed = op
                .executed
                .map(|at| at.format("%d.%m.%Y %H:%M").to_string());
            vec![
                executed.unwrap_or_default(),
                direction,
                r.amount.map(|a| a.to_string()).unwrap_or_default(),
                opt(&r.doc_number).to_string(),
                cut(&excel_cell(opt(&r.counterparty)), 30),
                opt(&r.counterparty_inn).to_string(),
                opt(&r.counterparty_account).to_string(),
                cut(&excel_cell(opt(&r.purpose)), 40),
                operation_status(opt(&r.status)),
                r.id.clone(),
            ]
        })
        .collect();
    let (mut incoming, mut outgoing) = (Decimal::ZERO, Decimal::ZERO);
    for r in rows {
        match r.direction.as_deref() {
            Some("in") => incoming = incoming.saturating_add(r.amount.unwrap_or_default()),
            Some("out") => outgoing = outgoing.saturating_add(r.amount.unwrap_or_default()),
            _ => {}
        }
    }
    let mut out = io::stdout().lock();
    let number = account.number.as_deref().unwrap_or(&account.id);
    let (f, t) = (args.from.format("%d.%m.%Y"), args.till.format("%d.%m.%Y"));
    writeln!(out, "{number}, {f}–{t}:")?;
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
    Ok(())
}
