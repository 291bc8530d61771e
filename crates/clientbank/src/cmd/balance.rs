//! `clientbank balance ACCOUNT [--on D]`: an account's balance, now or on a day.

use std::io::{self, Write};

use chrono::NaiveDate;
use clientbank_api::{BankAccount, Client, Decimal};
use clientbank_format::Message;
use serde::Serialize;

use super::bank::{bank_failure, with_client};
use crate::cli::{BankArgs, parse_day};
use crate::exit::{Failure, Outcome};
use crate::output::print_json;
use crate::term::tr;

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The account: its number or its id.
    pub(crate) account: String,
    /// The balance on this day (ДД.ММ.ГГГГ or YYYY-MM-DD) instead of now.
    #[arg(long, value_parser = parse_day, value_name = "D")]
    pub(crate) on: Option<NaiveDate>,
    #[command(flatten)]
    pub(crate) bank: BankArgs,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
}

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

pub(crate) fn run(args: &Args) -> Result<Outcome, Failure> {
    let on = args.on;
    with_client(&args.bank, |client| async move {
        let account = account_named(&client, &args.account).await?;
        let answer = match on {
            Some(day) => client.balance_on(&account.id, day).await,
            None => client.balance(&account.id).await,
        };
        let balance = match answer {
            Ok(balance) => balance,
            Err(e) => return Ok(bank_failure(&e)),
        };
        let currency = account.currency.as_ref().map(|c| c.to_string());
        if args.json {
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
pub(super) async fn account_named(client: &Client, wanted: &str) -> Result<BankAccount, Failure> {
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
