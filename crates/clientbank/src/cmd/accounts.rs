//! `clientbank accounts [--json|--csv]`: every company and account the token sees.

use std::io::{self, Write};

use clientbank_api::Decimal;
use clientbank_watch::report::{excel_cell, excel_writer, sum_in};
use serde::Serialize;

use super::bank::{bank_failure, with_client};
use crate::cli::{BankArgs, TableArgs};
use crate::exit::{Failure, Outcome};
use crate::output::print_json;
use crate::table::{account_category, account_status, csv_error, cut, headers, opt, table};
use crate::term::tr;

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    pub(crate) bank: BankArgs,
    #[command(flatten)]
    pub(crate) format: TableArgs,
}

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

pub(crate) fn run(args: &Args) -> Result<Outcome, Failure> {
    with_client(&args.bank, |client| async move {
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
        if args.format.json {
            print_json(&rows)?;
        } else if args.format.csv {
            write_csv(&rows)?;
        } else {
            write_table(&rows, companies.len())?;
        }
        Ok(Outcome::Clean)
    })
}

/// `--csv`: for Excel (`clientbank_watch::report::excel_writer`), headers in the user's language.
fn write_csv(rows: &[AccountRow]) -> Result<(), Failure> {
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
    for r in rows {
        out.write_record([
            r.company_id.as_str(),
            &excel_cell(opt(&r.company)),
            &excel_cell(opt(&r.inn)),
            &excel_cell(opt(&r.kpp)),
            &r.account_id,
            &excel_cell(opt(&r.number)),
            &excel_cell(opt(&r.name)),
            &account_category(opt(&r.category)),
            opt(&r.currency),
            &account_status(opt(&r.status)),
            &sum_in(&r.balance.to_string(), crate::term::lang()),
        ])
        .map_err(csv_error)?;
    }
    out.flush()?;
    Ok(())
}

/// For people: an aligned table and a count.
fn write_table(rows: &[AccountRow], companies: usize) -> Result<(), Failure> {
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
                account_status(opt(&r.status)),
                r.balance.to_string(),
                r.account_id.clone(),
            ]
        })
        .collect();
    let mut out = io::stdout().lock();
    table(&mut out, &head, &body, &[5])?;
    let n = rows.len();
    writeln!(
        out,
        "{}",
        tr(
            format!("{n} account(s) of {companies} company(ies)"),
            format!("счетов: {n}, организаций: {companies}"),
        )
    )?;
    Ok(())
}
