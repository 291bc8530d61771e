//! `clientbank statement` against the sandbox bank over loopback: the file 1C loads, read back by
//! our reader (no finding under `check --strict`, the balance identity on every day) and by
//! odin_palace, with the counts and sums of the bank's own history.

use std::collections::HashSet;
use std::path::Path;
use std::process::{Command, Output};

use chrono::NaiveDate;
use clientbank_api::types::{OperationCategory, OperationStatus};
use clientbank_api::{Client, Token};
use clientbank_format::{Encoding, Key, parse};
use clientbank_sandbox::{Config, OperationKind, Receive, Sandbox};
use rust_decimal::Decimal;

const TOKEN: &str = "cabinet-token-full-rights";
const ACCOUNT: &str = "40702810938000012345";
const OTHER_ACCOUNT: &str = "40802810438000054321";
const FROM: &str = "2026-07-01";
const TILL: &str = "2026-09-30";

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

fn clientbank(args: &[&str], url: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(args)
        .env("CLIENTBANK_TOKEN", TOKEN)
        .env("CLIENTBANK_BASE_URL", url)
        .env_remove("CLIENTBANK_ROOT_CA")
        .env("RUST_LOG", "warn")
        .env("LANG", "C")
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// What the bank's own history says of an account in the period.
#[derive(Debug, Default, PartialEq, Eq)]
struct Expected {
    documents: usize,
    incoming: Decimal,
    outgoing: Decimal,
    cancelled: usize,
    opening: Decimal,
    closing: Decimal,
    budget: usize,
    sbp: usize,
}

async fn expected(client: &Client, number: &str) -> Expected {
    let accounts = client.accounts().await.unwrap();
    let (_, account) = accounts
        .iter()
        .find(|(_, a)| a.number.as_deref() == Some(number))
        .unwrap();
    let (from, till) = (day(FROM), day(TILL));
    let mut e = Expected {
        opening: client
            .balance_on(&account.id, from.pred_opt().unwrap())
            .await
            .unwrap(),
        closing: client.balance_on(&account.id, till).await.unwrap(),
        ..Expected::default()
    };
    let mut seen = HashSet::new();
    for op in client
        .operations_between(&account.id, from, till)
        .await
        .unwrap()
    {
        assert!(seen.insert(op.id.clone()), "the client dedupes");
        if op.status == Some(OperationStatus::Canceled) {
            e.cancelled += 1;
            continue;
        }
        let executed = op.executed.unwrap().date();
        if executed < from || executed > till {
            continue;
        }
        e.documents += 1;
        match op.category {
            Some(OperationCategory::Debet) => e.incoming += op.amount.unwrap(),
            _ => e.outgoing += op.amount.unwrap(),
        }
        if op.kbk.as_deref().is_some_and(|k| !k.is_empty()) {
            e.budget += 1;
        }
        if op.sbp_oper_id.is_some() {
            e.sbp += 1;
        }
    }
    e
}

/// What our reader makes of a written statement of one account: checks the balance identity
/// on every day and returns the same figures.
fn read_back(path: &Path, number: &str) -> Expected {
    let parsed = parse(std::fs::read(path).unwrap()).unwrap();
    assert!(
        parsed.diagnostics.is_empty(),
        "{:?}",
        &parsed.diagnostics[..parsed.diagnostics.len().min(3)]
    );
    let exchange = parsed.tree.to_exchange();
    assert_eq!(exchange.header.version.as_deref(), Some("1.03"));
    assert!(exchange.header.accounts.iter().any(|a| a == number));
    let sections: Vec<_> = exchange
        .accounts
        .iter()
        .filter(|s| s.account.as_deref() == Some(number))
        .collect();
    assert!(!sections.is_empty());
    let mut previous: Option<Decimal> = None;
    for s in &sections {
        let (open, close) = (s.opening_balance.unwrap(), s.closing_balance.unwrap());
        assert_eq!(
            open + s.credited.unwrap() - s.debited.unwrap(),
            close,
            "the identity on {:?}",
            s.start_date
        );
        if let Some(previous) = previous {
            assert_eq!(previous, open, "a day opens on the day before's close");
        }
        assert_eq!(s.start_date, s.end_date, "one section per day");
        previous = Some(close);
    }
    let mut e = Expected {
        opening: sections[0].opening_balance.unwrap(),
        closing: previous.unwrap(),
        ..Expected::default()
    };
    for d in &exchange.documents {
        let incoming = d.recipient.account.as_deref() == Some(number);
        let outgoing = d.payer.account.as_deref() == Some(number);
        if !incoming && !outgoing {
            continue;
        }
        e.documents += 1;
        if incoming {
            assert!(d.recipient.date.is_some() && d.payer.date.is_none());
            e.incoming += d.sum.unwrap();
        } else {
            assert!(d.payer.date.is_some() && d.recipient.date.is_none());
            e.outgoing += d.sum.unwrap();
        }
        if d.budget.kbk.is_some() {
            e.budget += 1;
        }
        if d.kind == "Банковский ордер" {
            e.sbp += 1;
        }
    }
    e
}

#[test]
fn a_statement_round_trips_with_the_banks_counts_sums_and_balances() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let sandbox = runtime.block_on(Sandbox::start(Config::default())).unwrap();
    // Three pages on one day, of every kind the bank has.
    let busy = day("2026-08-14");
    for (kind, count) in [
        (OperationKind::Incoming, 60),
        (OperationKind::Outgoing, 40),
        (OperationKind::Budget, 10),
        (OperationKind::Sbp, 15),
        (OperationKind::Cancelled, 5),
    ] {
        sandbox
            .control()
            .receive(&Receive {
                count,
                date: Some(busy),
                kind,
                ..Receive::new(ACCOUNT)
            })
            .unwrap();
    }
    let client = Client::builder(sandbox.url())
        .token(Token::new(TOKEN))
        .build()
        .unwrap();
    let mut bank = runtime.block_on(expected(&client, ACCOUNT));
    assert!(bank.documents > 175, "pages on one day: {bank:?}");
    assert!(
        bank.budget > 0 && bank.sbp > 0 && bank.cancelled > 0,
        "{bank:?}"
    );
    assert!(bank.incoming > Decimal::ZERO && bank.outgoing > Decimal::ZERO);

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kl_to_1c.txt");
    let args = [
        "statement",
        "--account",
        ACCOUNT,
        "--from",
        FROM,
        "--till",
        TILL,
        "-o",
        out.to_str().unwrap(),
        "--json",
    ];
    let run = clientbank(&args, &sandbox.url());
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));

    // The summary: the bank's figures, cancelled ones counted and left out.
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let account = &summary["files"][0]["accounts"][0];
    assert_eq!(account["account"], ACCOUNT);
    assert_eq!(account["counts"]["documents"], bank.documents as u64);
    assert_eq!(account["counts"]["cancelled"], bank.cancelled as u64);
    assert_eq!(
        account["counts"]["incoming_sum"].as_str().unwrap(),
        bank.incoming.to_string()
    );
    assert_eq!(
        account["closing"].as_str().unwrap(),
        bank.closing.to_string()
    );

    // CP1251 with CRLF, as 1C expects.
    let bytes = std::fs::read(&out).unwrap();
    assert!(bytes.starts_with(b"1CClientBankExchange\r\n"));
    assert_eq!(
        bytes.iter().filter(|&&b| b == b'\n').count(),
        bytes.windows(2).filter(|w| w == b"\r\n").count(),
        "every line ends in CRLF"
    );
    assert!(
        bytes
            .windows(b"\xca\xee\xe4\xe8\xf0\xee\xe2\xea\xe0=Windows".len())
            .any(|w| w == b"\xca\xee\xe4\xe8\xf0\xee\xe2\xea\xe0=Windows"),
        "Кодировка=Windows in CP1251"
    );

    // Our reader: the same counts, sums and balances, the identity on every day.
    bank.cancelled = 0;
    assert_eq!(read_back(&out, ACCOUNT), bank);
    let parsed = parse(bytes.clone()).unwrap();
    let on_busy_day = parsed
        .tree
        .documents()
        .filter(|d| d.date(Key::DebitedDate).or(d.date(Key::CreditedDate)) == Some(busy))
        .count();
    assert!(
        on_busy_day >= 125,
        "{on_busy_day} documents executed on the busy day"
    );

    // No finding under `check --strict` (the reader's balance-mismatch rule included).
    let check = clientbank(&["check", "--strict", out.to_str().unwrap()], "");
    assert_eq!(check.status.code(), Some(0), "{}", text(&check));

    // odin_palace, the independent reader: the same documents and sums.
    let odin = odin_palace::parser::ParserBuilder::new()
        .build()
        .parse(&bytes)
        .unwrap();
    assert!(odin.warnings.is_empty(), "{:?}", &odin.warnings[..1]);
    assert_eq!(odin.documents.len(), bank.documents);
    let odin_in: Decimal = odin
        .documents
        .iter()
        .filter(|d| d.income_date.is_some())
        .map(|d| d.amount)
        .sum();
    let odin_out: Decimal = odin
        .documents
        .iter()
        .filter(|d| d.outcome_date.is_some())
        .map(|d| d.amount)
        .sum();
    assert_eq!((odin_in, odin_out), (bank.incoming, bank.outgoing));
    let intervals = &odin.accounts[ACCOUNT].intervals;
    assert_eq!(intervals[0].start_amount, bank.opening);
    assert_eq!(intervals.last().unwrap().end_amount, Some(bank.closing));
}

#[test]
fn several_accounts_in_one_file_per_account_and_in_cp866() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let sandbox = runtime.block_on(Sandbox::start(Config::default())).unwrap();
    let client = Client::builder(sandbox.url())
        .token(Token::new(TOKEN))
        .build()
        .unwrap();
    let mut first = runtime.block_on(expected(&client, ACCOUNT));
    let mut second = runtime.block_on(expected(&client, OTHER_ACCOUNT));
    (first.cancelled, second.cancelled) = (0, 0);
    let dir = tempfile::tempdir().unwrap();
    let both = dir.path().join("kl_to_1c.txt");
    let run = clientbank(
        &[
            "statement",
            "--account",
            ACCOUNT,
            "--account",
            OTHER_ACCOUNT,
            "--from",
            FROM,
            "--till",
            TILL,
            "-o",
            both.to_str().unwrap(),
            "--encoding",
            "dos",
        ],
        &sandbox.url(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    let parsed = parse(std::fs::read(&both).unwrap()).unwrap();
    assert_eq!(parsed.tree.encoding(), Encoding::Cp866);
    let header: Vec<_> = parsed
        .tree
        .header()
        .get_all(Key::Account)
        .map(|a| a.into_owned())
        .collect();
    assert_eq!(header, [ACCOUNT, OTHER_ACCOUNT]);
    assert_eq!(read_back(&both, ACCOUNT), first);
    assert_eq!(read_back(&both, OTHER_ACCOUNT), second);
    let check = clientbank(&["check", "--strict", both.to_str().unwrap()], "");
    assert_eq!(check.status.code(), Some(0), "{}", text(&check));

    let run = clientbank(
        &[
            "statement",
            "--account",
            ACCOUNT,
            "--account",
            OTHER_ACCOUNT,
            "--from",
            FROM,
            "--till",
            TILL,
            "-o",
            both.to_str().unwrap(),
            "--per-account",
        ],
        &sandbox.url(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    for (number, expected) in [(ACCOUNT, &first), (OTHER_ACCOUNT, &second)] {
        let path = dir.path().join(format!("kl_to_1c_{number}.txt"));
        assert_eq!(&read_back(&path, number), expected);
        let parsed = parse(std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(parsed.tree.header().get_all(Key::Account).count(), 1);
    }
}

#[test]
fn an_unknown_account_and_a_backward_period_are_clear_errors_and_write_nothing() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let sandbox = runtime.block_on(Sandbox::start(Config::default())).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kl_to_1c.txt");
    let run = clientbank(
        &[
            "statement",
            "--account",
            "40702810000000000000",
            "--from",
            FROM,
            "--till",
            TILL,
            "-o",
            out.to_str().unwrap(),
        ],
        &sandbox.url(),
    );
    assert_eq!(run.status.code(), Some(2), "{}", text(&run));
    assert!(
        text(&run).contains("no account 40702810000000000000"),
        "{}",
        text(&run)
    );
    // The same account by number and by id: one account, its documents once.
    let client = Client::builder(sandbox.url())
        .token(Token::new(TOKEN))
        .build()
        .unwrap();
    let accounts = runtime.block_on(client.accounts()).unwrap();
    let id = accounts
        .iter()
        .find(|(_, a)| a.number.as_deref() == Some(ACCOUNT))
        .unwrap()
        .1
        .id
        .clone();
    let twice = dir.path().join("twice.txt");
    let run = clientbank(
        &[
            "statement",
            "--account",
            ACCOUNT,
            "--account",
            &id.to_uppercase(),
            "--from",
            FROM,
            "--till",
            TILL,
            "-o",
            twice.to_str().unwrap(),
            "--json",
        ],
        &sandbox.url(),
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(summary["files"][0]["accounts"].as_array().unwrap().len(), 1);
    std::fs::remove_file(&twice).unwrap();
    let run = clientbank(
        &[
            "statement",
            "--account",
            ACCOUNT,
            "--from",
            TILL,
            "--till",
            FROM,
            "-o",
            out.to_str().unwrap(),
        ],
        &sandbox.url(),
    );
    assert_eq!(run.status.code(), Some(2), "{}", text(&run));
    assert!(text(&run).contains("after it ends"), "{}", text(&run));
    // The bank unavailable: exit 3, and an older statement stays as it was.
    std::fs::write(&out, b"older").unwrap();
    sandbox.control().set_maintenance(true);
    let run = clientbank(
        &[
            "statement",
            "--account",
            ACCOUNT,
            "--from",
            FROM,
            "--till",
            TILL,
            "-o",
            out.to_str().unwrap(),
        ],
        &sandbox.url(),
    );
    assert_eq!(run.status.code(), Some(3), "{}", text(&run));
    assert_eq!(std::fs::read(&out).unwrap(), b"older");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary file left behind");
}
