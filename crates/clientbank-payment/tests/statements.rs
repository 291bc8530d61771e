//! Bank statements checked as what they are: the bank's record, not payments being prepared.
//!
//! `testdata/statements/` holds hand-made statements modelled on the shapes of real ones of
//! several banks (see its README): each is read with no finding at all. A real defect of a
//! statement (a wrong account key, balances that do not add up, an impossible date) is still
//! reported, and the same documents sent as orders still meet every rule. The shared corpus of
//! real files (`../shared/corpus/public/`, read in place) is checked when it is there: its
//! statements give no advice meant for a payment being prepared.

use std::io::Write as _;
use std::path::PathBuf;

use clientbank_format::Encoding;
use clientbank_payment::batch::{Batch, Form};
use clientbank_payment::{Code, Context, NaiveDate, Severity, in_statement};

fn today() -> Context {
    Context::as_of(NaiveDate::from_ymd_opt(2026, 11, 20).unwrap())
}

fn statements_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/statements")
}

/// The hand-made statements, by name.
fn statements() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(statements_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn text(bytes: &[u8]) -> String {
    Encoding::Cp1251.decode(bytes).into_owned()
}

fn bytes(text: &str) -> Vec<u8> {
    Encoding::Cp1251.encode(text).unwrap().into_owned()
}

/// Every finding of a drop: (severity, code, 1C key).
fn findings(bytes: Vec<u8>) -> Vec<(Severity, &'static str, Option<String>)> {
    let batch = Batch::read(bytes, &today()).unwrap();
    batch
        .findings()
        .map(|f| (f.severity, f.code.as_str(), f.key.map(|k| k.into_owned())))
        .collect()
}

/// The file with its account sections taken out: the same documents as orders to send.
fn as_orders(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        match line.trim_end() {
            "СекцияРасчСчет" => inside = true,
            "КонецРасчСчет" => inside = false,
            _ if !inside => out.push_str(line),
            _ => {}
        }
    }
    out
}

#[test]
fn statements_of_the_banks_have_no_finding() {
    let files = statements();
    let banks: std::collections::BTreeSet<&str> = files
        .iter()
        .map(|(name, _)| name.split('-').next().unwrap())
        .collect();
    assert!(
        banks.len() >= 5,
        "modelled on at least five banks: {banks:?}"
    );
    for (name, bytes) in files {
        let batch = Batch::read(bytes.clone(), &today()).unwrap();
        assert_eq!(batch.form(), Form::Statement, "{name}");
        assert!(batch.item_count() >= 2, "{name}");
        assert!(
            batch.items().any(|i| i.payment().is_some()),
            "{name}: has payment orders"
        );
        assert_eq!(findings(bytes), [], "{name}");
    }
}

#[test]
fn a_real_defect_of_a_statement_is_still_reported() {
    let sber =
        text(&std::fs::read(statements_dir().join("sber-2024-1.03-cp1251-crlf.txt")).unwrap());
    // A wrong control key in the payee's account (one digit changed).
    let wrong_key = sber.replacen("ПолучательСчет=40817810", "ПолучательСчет=40817811", 1);
    assert_ne!(wrong_key, sber);
    assert!(
        findings(bytes(&wrong_key))
            .iter()
            .any(|(s, c, k)| *s == Severity::Error
                && *c == "account-key"
                && k.as_deref() == Some("ПолучательСчет")),
        "{:?}",
        findings(bytes(&wrong_key))
    );
    // A closing balance that is not opening + credited − debited.
    let balance = sber.replacen("КонечныйОстаток=", "КонечныйОстаток=1", 1);
    assert!(
        findings(bytes(&balance))
            .iter()
            .any(|(_, c, _)| *c == "balance-mismatch")
    );
    // An impossible date.
    let date = sber.replacen("Дата=05.03.2024", "Дата=31.02.2024", 1);
    assert_ne!(date, sber);
    assert!(
        findings(bytes(&date))
            .iter()
            .any(|(s, c, k)| *s == Severity::Error
                && *c == "invalid-date"
                && k.as_deref() == Some("Дата"))
    );
    // An INN whose check digit is wrong.
    let inn = sber.replacen("ПлательщикИНН=5048123458", "ПлательщикИНН=5048123459", 1);
    let inn = inn.replacen("ПлательщикИНН=6163123458", "ПлательщикИНН=6163123459", 1);
    assert!(
        findings(bytes(&inn))
            .iter()
            .any(|(s, c, _)| *s == Severity::Error && *c == "inn-check-digit")
    );
}

#[test]
fn advice_is_left_out_of_a_statement_and_kept_for_orders() {
    let vtb = text(&std::fs::read(statements_dir().join("vtb-2024-1.03-cp1251-crlf.txt")).unwrap());
    // No VAT wording, an unusual priority, spaces around a code: advice for an order.
    let advised = vtb
        .replacen(
            "НазначениеПлатежа=Оплата по договору 5 от 10.01.2024 за услуги дизайна. НДС не облагается",
            "НазначениеПлатежа=Оплата по договору 5 от 10.01.2024 за услуги дизайна",
            1,
        )
        .replacen("Очередность=5", "Очередность=4", 1);
    assert_ne!(advised, vtb);
    assert_eq!(findings(bytes(&advised)), [], "a statement: no advice");
    let orders = as_orders(&advised);
    let batch = Batch::read(bytes(&orders), &today()).unwrap();
    assert_eq!(batch.form(), Form::Orders);
    let codes: Vec<&str> = batch.findings().map(|f| f.code.as_str()).collect();
    for code in ["vat-not-mentioned", "priority-unusual", "date-stale"] {
        assert!(codes.contains(&code), "orders keep {code}: {codes:?}");
    }
}

#[test]
fn wages_with_the_third_priority_and_field_109_of_ordinary_payments_pass_as_orders() {
    // Every hand-made statement, sent as orders: the salaries with priority 3, the VAT amounts
    // as 1C and banks write them, `ПоказательДаты=..` of ordinary payments — no finding but
    // the orders' own (the dates are old, statement keys are not carried).
    for (name, bytes) in statements() {
        let orders = as_orders(&text(&bytes));
        let batch = Batch::read(self::bytes(&orders), &today()).unwrap();
        let codes: Vec<&str> = batch
            .findings()
            .map(|f| f.code.as_str())
            .filter(|c| !matches!(*c, "date-stale" | "not-carried" | "not-a-payment-order"))
            .collect();
        assert_eq!(codes, [] as [&str; 0], "{name}");
    }
}

/// The shared corpus, or `None` after one line on stderr saying it is absent.
fn corpus() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/public");
    if dir.join("MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CLIENTBANK_REQUIRE_CORPUS").is_none(),
        "CLIENTBANK_REQUIRE_CORPUS is set but the shared corpus is not at {}",
        dir.display()
    );
    let _ = writeln!(
        std::io::stderr(),
        "skipped: the shared corpus is not beside the checkout (../shared/corpus/public)"
    );
    None
}

#[test]
fn statements_of_the_corpus_get_no_payment_advice() {
    let Some(dir) = corpus() else { return };
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    names.sort();
    let mut statements = 0;
    for path in names {
        let Ok(batch) = Batch::read(std::fs::read(&path).unwrap(), &today()) else {
            continue;
        };
        if batch.form() != Form::Statement {
            continue;
        }
        statements += 1;
        // The items carry their upload requests (`convert`): what a request loses of a record
        // (`not-carried`) is told there, and is no finding about the record itself.
        for item in batch.items() {
            for finding in item.findings() {
                assert!(
                    in_statement(finding.code) || finding.code == Code::NotCarried,
                    "{}: {} is advice, not news about a statement",
                    path.display(),
                    finding.code
                );
            }
        }
        // `check` tells neither.
        for finding in batch.findings() {
            assert!(
                finding.code != Code::NotCarried,
                "{}: `check` of a statement tells what its requests would lose",
                path.display()
            );
        }
    }
    assert!(statements >= 15, "{statements} statements");
}

#[test]
fn the_statement_rules_keep_data_and_drop_advice() {
    for code in [
        Code::AccountKey,
        Code::InnCheckDigit,
        Code::DocDateInvalid,
        Code::SumNotPositive,
        Code::Missing,
    ] {
        assert!(in_statement(code), "{code}");
    }
    for code in [
        Code::VatNotMentioned,
        Code::VatAmount,
        Code::PriorityUnusual,
        Code::DateStale,
        Code::BudgetPlaceholder,
        Code::PayeeIdentifier,
        Code::OperationKindUnusual,
        Code::NumberInvalid,
        Code::Whitespace,
    ] {
        assert!(!in_statement(code), "{code}");
    }
}
