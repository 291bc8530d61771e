//! Payment orders checked against a table of the errors the validator must find in them, with
//! why each is a real defect of its file. A new error, or one that disappears, fails the test.
//!
//! Two sets of files: the project's own hand-made `testdata/corpus-like/` (its table is
//! `PAYMENTS.tsv` there), always checked, and the shared corpus of real files
//! (`../shared/corpus/public/` beside the checkout, read in place, nothing of it copied here),
//! checked when it is there. Without it that test says so in one line and passes; with
//! `CLIENTBANK_REQUIRE_CORPUS` set (`.ci/run` sets it when it finds the corpus) it fails.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use clientbank_format::parse;
use clientbank_payment::{Context, onec, validate};

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
    // Straight to stderr, past the test harness's capture, so that the skip is seen.
    let _ = writeln!(
        std::io::stderr(),
        "skipped: the shared corpus is not beside the checkout (../shared/corpus/public)"
    );
    None
}

/// The project's own hand-made files.
fn corpus_like() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/corpus-like")
}

type Found = BTreeMap<(String, String, String), usize>;

/// The errors of every payment order of every file the reader accepts in `dir`, counted by
/// (file, code, 1C key); and how many payment orders there were.
/// Every error of the payment orders of `dir`'s files, the orders checked, and the files whose
/// ordinary payments carry a payee's identifier in field 22.
fn errors_of(dir: &Path) -> (Found, usize, Vec<String>) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt" || e == "bin"))
        .collect();
    files.sort();
    let mut found = Found::new();
    let mut orders_checked = 0;
    let mut identifiers = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(parsed) = parse(std::fs::read(&path).unwrap()) else {
            continue;
        };
        let (orders, _) = onec::payment_orders(&parsed.tree);
        for order in orders {
            orders_checked += 1;
            let findings = validate(&order.payment, &Context::history());
            if findings
                .iter()
                .any(|f| f.code.as_str() == "payee-identifier")
                && identifiers.last() != Some(&name)
            {
                identifiers.push(name.clone());
            }
            for finding in findings.iter().filter(|f| f.is_error()) {
                let key = finding.key.as_deref().unwrap_or("");
                *found
                    .entry((name.clone(), finding.code.as_str().into(), key.into()))
                    .or_default() += 1;
            }
        }
    }
    (found, orders_checked, identifiers)
}

/// Why each file's payment orders have errors.
const WHY: &[(&str, &str)] = &[
    (
        "dmdv-statement-demo-1.01-crlf.txt",
        "demo data: made-up BIK 087654321, accounts and INN 1122334455 without valid keys, \
         correspondent accounts that are not 301…",
    ),
    (
        "dronm-statement-vtb-1.03-crlf.txt",
        "test data: INNs 7123456789/7123456777 with wrong check digits, a 13-digit INN, an \
         account with a wrong key",
    ),
    (
        "kilylabs-statement-one-day-1.02-crlf-utf8.txt",
        "placeholder requisites: INN 123123123123, a 17-digit account, an account with a wrong key",
    ),
    (
        "kilylabs-statement-one-day-1.02-crlf.txt",
        "placeholder requisites: INN 123123123123, a 17-digit account, an account with a wrong key",
    ),
    (
        "odin-statement-sber-1.03.txt",
        "anonymised: zeros replace the digits of INNs and accounts (check digits no longer \
         hold), KPP and INN cut to one digit",
    ),
    (
        "odin-statement-sber-daily-sections-1.03-large.txt",
        "anonymised: zeros replace the digits of INNs and accounts (check digits no longer \
         hold), KPP cut to `2`, three orders without a recipient name",
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "anonymised as above, plus a 12-digit account, a 2-digit correspondent account, no \
         recipient BIK and a number with letters (FDC240; field 3 is digits)",
    ),
    (
        "odoo-ru-statement-kl_to_1c-1.01.txt",
        "placeholder requisites: accounts, INNs and correspondent accounts of zeros and ones",
    ),
    (
        "xini1-all-keys-synthetic-1.03-utf8.txt",
        "synthetic: every value is a placeholder (BIK 123456789, INN 1234567890, the key's own \
         name as its value)",
    ),
];

// No longer errors (issue 8), and why:
// - condo-statement-1.03-utf8.txt: `Код=50133547364` (a housing account number) in an ordinary
//   payment is the payee's own payment identifier, not a UIN: a `payee-identifier` warning.
// - xini1-to-bank-oebs-1.01-utf8.txt (`Код=2021730100412217000244871`, check digit fails) and
//   xini1-to-bank-oebs-six-orders-1.03-utf8.txt (`Код=424330352486400000000ЛС12`): the same,
//   ordinary payments whose field 22 is the payee's identifier.
// - dmdv-statement-demo-1.01-crlf.txt: `Очередность=6` in orders of January 2013, when there
//   were six priorities and ordinary payments took the sixth.

/// (file, code, 1C key, how many).
const ERRORS: &[(&str, &str, &str, usize)] = &[
    (
        "dmdv-statement-demo-1.01-crlf.txt",
        "account-key",
        "ПлательщикСчет",
        2,
    ),
    (
        "dmdv-statement-demo-1.01-crlf.txt",
        "account-key",
        "ПолучательСчет",
        2,
    ),
    (
        "dmdv-statement-demo-1.01-crlf.txt",
        "corr-account-format",
        "ПлательщикКорсчет",
        2,
    ),
    (
        "dmdv-statement-demo-1.01-crlf.txt",
        "corr-account-format",
        "ПолучательКорсчет",
        2,
    ),
    (
        "dmdv-statement-demo-1.01-crlf.txt",
        "inn-check-digit",
        "ПолучательИНН",
        2,
    ),
    (
        "dronm-statement-vtb-1.03-crlf.txt",
        "account-key",
        "ПлательщикСчет",
        1,
    ),
    (
        "dronm-statement-vtb-1.03-crlf.txt",
        "inn-check-digit",
        "ПлательщикИНН",
        2,
    ),
    (
        "dronm-statement-vtb-1.03-crlf.txt",
        "inn-format",
        "ПолучательИНН",
        2,
    ),
    (
        "kilylabs-statement-one-day-1.02-crlf-utf8.txt",
        "account-format",
        "ПлательщикСчет",
        7,
    ),
    (
        "kilylabs-statement-one-day-1.02-crlf-utf8.txt",
        "account-key",
        "ПолучательСчет",
        3,
    ),
    (
        "kilylabs-statement-one-day-1.02-crlf-utf8.txt",
        "inn-check-digit",
        "ПлательщикИНН",
        7,
    ),
    (
        "kilylabs-statement-one-day-1.02-crlf-utf8.txt",
        "inn-check-digit",
        "ПолучательИНН",
        7,
    ),
    (
        "kilylabs-statement-one-day-1.02-crlf.txt",
        "account-format",
        "ПлательщикСчет",
        7,
    ),
    (
        "kilylabs-statement-one-day-1.02-crlf.txt",
        "account-key",
        "ПолучательСчет",
        3,
    ),
    (
        "kilylabs-statement-one-day-1.02-crlf.txt",
        "inn-check-digit",
        "ПлательщикИНН",
        7,
    ),
    (
        "kilylabs-statement-one-day-1.02-crlf.txt",
        "inn-check-digit",
        "ПолучательИНН",
        7,
    ),
    (
        "odin-statement-sber-1.03.txt",
        "account-key",
        "ПлательщикКорсчет",
        2,
    ),
    (
        "odin-statement-sber-1.03.txt",
        "account-key",
        "ПлательщикСчет",
        1,
    ),
    (
        "odin-statement-sber-1.03.txt",
        "account-key",
        "ПолучательКорсчет",
        2,
    ),
    (
        "odin-statement-sber-1.03.txt",
        "account-key",
        "ПолучательСчет",
        1,
    ),
    (
        "odin-statement-sber-1.03.txt",
        "inn-check-digit",
        "ПлательщикИНН",
        2,
    ),
    (
        "odin-statement-sber-1.03.txt",
        "inn-check-digit",
        "ПолучательИНН",
        1,
    ),
    (
        "odin-statement-sber-1.03.txt",
        "inn-format",
        "ПолучательИНН",
        1,
    ),
    (
        "odin-statement-sber-1.03.txt",
        "kpp-format",
        "ПлательщикКПП",
        2,
    ),
    (
        "odin-statement-sber-1.03.txt",
        "kpp-format",
        "ПолучательКПП",
        2,
    ),
    (
        "odin-statement-sber-daily-sections-1.03-large.txt",
        "account-key",
        "ПлательщикКорсчет",
        123,
    ),
    (
        "odin-statement-sber-daily-sections-1.03-large.txt",
        "account-key",
        "ПлательщикСчет",
        121,
    ),
    (
        "odin-statement-sber-daily-sections-1.03-large.txt",
        "account-key",
        "ПолучательКорсчет",
        123,
    ),
    (
        "odin-statement-sber-daily-sections-1.03-large.txt",
        "account-key",
        "ПолучательСчет",
        123,
    ),
    (
        "odin-statement-sber-daily-sections-1.03-large.txt",
        "inn-check-digit",
        "ПлательщикИНН",
        123,
    ),
    (
        "odin-statement-sber-daily-sections-1.03-large.txt",
        "inn-check-digit",
        "ПолучательИНН",
        115,
    ),
    (
        "odin-statement-sber-daily-sections-1.03-large.txt",
        "kpp-format",
        "ПлательщикКПП",
        20,
    ),
    (
        "odin-statement-sber-daily-sections-1.03-large.txt",
        "kpp-format",
        "ПолучательКПП",
        115,
    ),
    (
        "odin-statement-sber-daily-sections-1.03-large.txt",
        "missing",
        "Получатель1",
        3,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "account-format",
        "ПлательщикСчет",
        1,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "account-key",
        "ПлательщикКорсчет",
        1,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "account-key",
        "ПлательщикСчет",
        1,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "account-key",
        "ПолучательКорсчет",
        1,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "account-key",
        "ПолучательСчет",
        1,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "corr-account-format",
        "ПолучательКорсчет",
        1,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "inn-check-digit",
        "ПлательщикИНН",
        1,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "inn-check-digit",
        "ПолучательИНН",
        2,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "inn-format",
        "ПлательщикИНН",
        1,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "kpp-format",
        "ПлательщикКПП",
        1,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "kpp-format",
        "ПолучательКПП",
        1,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "missing",
        "ПолучательБИК",
        1,
    ),
    (
        "odin-statement-unknown-direction-1.03.txt",
        "number-invalid",
        "Номер",
        1,
    ),
    (
        "odoo-ru-statement-kl_to_1c-1.01.txt",
        "account-key",
        "ПлательщикСчет",
        1,
    ),
    (
        "odoo-ru-statement-kl_to_1c-1.01.txt",
        "account-key",
        "ПолучательСчет",
        1,
    ),
    (
        "odoo-ru-statement-kl_to_1c-1.01.txt",
        "corr-account-format",
        "ПлательщикКорсчет",
        1,
    ),
    (
        "odoo-ru-statement-kl_to_1c-1.01.txt",
        "corr-account-format",
        "ПолучательКорсчет",
        1,
    ),
    (
        "odoo-ru-statement-kl_to_1c-1.01.txt",
        "inn-check-digit",
        "ПлательщикИНН",
        1,
    ),
    (
        "odoo-ru-statement-kl_to_1c-1.01.txt",
        "inn-check-digit",
        "ПолучательИНН",
        1,
    ),
    (
        "xini1-all-keys-synthetic-1.03-utf8.txt",
        "basis-invalid",
        "ПоказательОснования",
        1,
    ),
    (
        "xini1-all-keys-synthetic-1.03-utf8.txt",
        "bik-format",
        "ПлательщикБИК",
        1,
    ),
    (
        "xini1-all-keys-synthetic-1.03-utf8.txt",
        "bik-format",
        "ПолучательБИК",
        1,
    ),
    (
        "xini1-all-keys-synthetic-1.03-utf8.txt",
        "corr-account-format",
        "ПлательщикКорсчет",
        1,
    ),
    (
        "xini1-all-keys-synthetic-1.03-utf8.txt",
        "corr-account-format",
        "ПолучательКорсчет",
        1,
    ),
    (
        "xini1-all-keys-synthetic-1.03-utf8.txt",
        "doc-number-invalid",
        "ПоказательНомера",
        1,
    ),
    (
        "xini1-all-keys-synthetic-1.03-utf8.txt",
        "inn-check-digit",
        "ПлательщикИНН",
        1,
    ),
    (
        "xini1-all-keys-synthetic-1.03-utf8.txt",
        "inn-check-digit",
        "ПолучательИНН",
        1,
    ),
    (
        "xini1-all-keys-synthetic-1.03-utf8.txt",
        "payer-status-invalid",
        "СтатусСоставителя",
        1,
    ),
    (
        "xini1-all-keys-synthetic-1.03-utf8.txt",
        "period-invalid",
        "ПоказательПериода",
        1,
    ),
];

#[test]
fn payment_orders_of_the_corpus_have_only_real_errors() {
    let Some(dir) = corpus() else { return };
    let (found, orders_checked, identifiers) = errors_of(&dir);
    assert!(orders_checked > 150, "{orders_checked} payment orders");
    let expected: Found = ERRORS
        .iter()
        .map(|&(file, code, key, n)| ((file.into(), code.into(), key.into()), n))
        .collect();
    assert_eq!(found, expected);
    assert_eq!(
        identifiers,
        [
            "condo-statement-1.03-utf8.txt",
            "xini1-to-bank-oebs-1.01-utf8.txt",
            "xini1-to-bank-oebs-six-orders-1.03-utf8.txt"
        ],
        "field 22 of ordinary payments: the payee's identifier, a warning"
    );
    for (file, ..) in found.keys() {
        assert!(
            WHY.iter().any(|(f, _)| f == file),
            "{file}: errors without a reason"
        );
    }
    for (file, _) in WHY {
        assert!(
            found.keys().any(|(f, ..)| f == file),
            "{file}: no error left"
        );
    }
}

/// `PAYMENTS.tsv`: file, code, 1C key, how many, why — one row per kind of error.
#[test]
fn payment_orders_of_the_hand_made_files_have_exactly_their_listed_errors() {
    let dir = corpus_like();
    let table = dir.join("PAYMENTS.tsv");
    let text = std::fs::read_to_string(&table).unwrap();
    let mut expected = Found::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        assert!(
            c.len() == 5 && !c[4].trim().is_empty(),
            "PAYMENTS.tsv:{}: file, code, key, count and why",
            i + 1
        );
        let count = c[3].parse().expect("a count");
        expected.insert((c[0].into(), c[1].into(), c[2].into()), count);
    }
    let (found, orders_checked, _) = errors_of(&dir);
    assert!(orders_checked >= 20, "{orders_checked} payment orders");
    assert_eq!(found, expected);
    // The clean files stay clean: budget, single tax payment, UIN, third party, statements.
    for clean in [
        "to-bank-budget-third-party-1.03-cp1251-crlf.txt",
        "statement-payment-orders-1.03-utf8-bom-crlf.txt",
        "statement-payment-orders-1.03-cp866-dos-crlf.txt",
        "to-bank-one-order-1.01-utf8.txt",
    ] {
        assert!(
            !found.keys().any(|(f, ..)| f == clean),
            "{clean}: must have no payment error"
        );
    }
}
