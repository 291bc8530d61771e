//! The payer's requisites for JSON → 1C (`convert --payer-from ACCOUNT-FILE`).
//!
//! A JSON upload request names the payer by `PayerAccount` only (the bank knows the rest); a
//! 1C payment order going to the bank needs the payer's name, INN, KPP and bank. The file
//! gives them, in TOML or JSON (JSON when it is an object or an array of objects):
//!
//! ```toml
//! account = "40702810938000012345"   # the payer's account (PayerAccount)
//! name = "ООО \"Ромашка\""           # Плательщик, Плательщик1
//! inn = "7701234560"                 # ПлательщикИНН
//! kpp = "770101001"                  # ПлательщикКПП (leave out for a sole proprietor)
//! bank = "ПАО Сбербанк"              # ПлательщикБанк1
//! bank_city = "г. Москва"            # ПлательщикБанк2 (optional)
//! bik = "044525225"                  # ПлательщикБИК
//! corr_account = "30101810400000000225"  # ПлательщикКорсчет
//! ```
//!
//! Several accounts: `[[payer]]` tables in TOML, an array of such objects in JSON.

use std::path::Path;

use clientbank_payment::{Code, Diagnostic, Field, Message, Payment};
use serde::Deserialize;

use crate::term::tr;

/// One account's holder, as the file gives it.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Payer {
    pub(crate) account: String,
    pub(crate) name: String,
    pub(crate) inn: String,
    #[serde(default)]
    pub(crate) kpp: Option<String>,
    pub(crate) bank: String,
    #[serde(default)]
    pub(crate) bank_city: Option<String>,
    pub(crate) bik: String,
    pub(crate) corr_account: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Json {
    One(Payer),
    Many(Vec<Payer>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlMany {
    payer: Vec<Payer>,
}

/// The payers of an account file; a clear error naming the file when it cannot be read.
pub(crate) fn load(path: &Path) -> Result<Vec<Payer>, String> {
    let shown = path.display();
    let bytes = std::fs::read(path).map_err(|e| crate::io::cannot_read(path, &e))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        tr(
            format!("{shown}: not UTF-8 text ({e})"),
            format!("{shown}: не текст в UTF-8 ({e})"),
        )
    })?;
    let text = text.trim_start_matches('\u{feff}');
    let start = text.trim_start();
    // JSON: an object, or an array of them (`[[payer]]` is TOML's array of tables).
    let json = start.starts_with('{')
        || start
            .strip_prefix('[')
            .is_some_and(|rest| matches!(rest.trim_start().chars().next(), Some('{' | ']')));
    let payers = if json {
        match serde_json::from_str::<Json>(text) {
            Ok(Json::One(payer)) => vec![payer],
            Ok(Json::Many(payers)) => payers,
            // The untagged enum's own error says nothing: read as one object for the reason.
            Err(_) => vec![serde_json::from_str::<Payer>(text).map_err(|e| {
                let said = e.to_string();
                let what = said
                    .rsplit_once(" at line ")
                    .map_or(said.as_str(), |(w, _)| w);
                let ru = format!(
                    "{} (строка {}, столбец {})",
                    clientbank_bank::config::serde_in_russian(what),
                    e.line(),
                    e.column()
                );
                tr(
                    format!("{shown}: not an account file: {e}"),
                    format!("{shown}: это не файл счёта: {ru}"),
                )
            })?],
        }
    } else if text.contains("[[payer]]") {
        toml::from_str::<TomlMany>(text)
            .map_err(|e| toml_error(path, &e))?
            .payer
    } else {
        vec![toml::from_str::<Payer>(text).map_err(|e| toml_error(path, &e))?]
    };
    if payers.is_empty() {
        return Err(tr(
            format!("{shown}: no account in the file"),
            format!("{shown}: в файле нет ни одного счёта"),
        ));
    }
    Ok(payers)
}

fn toml_error(path: &Path, e: &toml::de::Error) -> String {
    let message = e.message();
    let place = e
        .span()
        .and_then(|span| std::fs::read_to_string(path).ok().map(|t| (span, t)))
        .map(|(span, text)| {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
            format!(":{line}:{column}")
        })
        .unwrap_or_default();
    tr(
        format!("{}{place}: not an account file: {message}", path.display()),
        format!(
            "{}{place}: это не файл счёта: {}",
            path.display(),
            clientbank_bank::config::serde_in_russian(message)
        ),
    )
}

/// Fills each payment's payer requisites that are empty from the payer of its account. Every
/// account without its payer gets one `payer-unknown` finding (at its first payment) naming
/// what the 1C file will lack and in how many payments.
pub(crate) fn fill(payments: &mut [Payment], payers: &[Payer]) -> Vec<Diagnostic> {
    // (account, first payment, count), in order of first appearance.
    let mut unknown: Vec<(Option<String>, usize, usize)> = Vec::new();
    for (index, payment) in payments.iter_mut().enumerate() {
        let account = payment.payer.account.clone();
        let found = account
            .as_deref()
            .and_then(|a| payers.iter().find(|p| p.account.trim() == a.trim()));
        let Some(payer) = found else {
            // The keys are written, empty, beside the finding: never silently absent.
            let holder = &mut payment.payer;
            for slot in [
                &mut holder.name,
                &mut holder.inn,
                &mut holder.bank.name,
                &mut holder.bank.bik,
                &mut holder.bank.corr_account,
            ] {
                slot.get_or_insert_with(String::new);
            }
            match unknown.iter_mut().find(|(a, _, _)| *a == account) {
                Some((_, _, count)) => *count += 1,
                None => unknown.push((account, index, 1)),
            }
            continue;
        };
        let holder = &mut payment.payer;
        let set = |slot: &mut Option<String>, value: Option<&String>| {
            if slot.as_deref().is_none_or(str::is_empty)
                && let Some(value) = value
            {
                *slot = Some(value.clone());
            }
        };
        set(&mut holder.name, Some(&payer.name));
        set(&mut holder.inn, Some(&payer.inn));
        set(&mut holder.kpp, payer.kpp.as_ref());
        set(&mut holder.bank.name, Some(&payer.bank));
        set(&mut holder.bank.city, payer.bank_city.as_ref());
        set(&mut holder.bank.bik, Some(&payer.bik));
        set(&mut holder.bank.corr_account, Some(&payer.corr_account));
    }
    unknown
        .into_iter()
        .map(|(account, index, count)| {
            let (whose_en, whose_ru) = match &account {
                Some(account) => (format!("account {account}"), format!("счёта {account}")),
                None => (
                    "a payment without PayerAccount".to_string(),
                    "платежа без PayerAccount".to_string(),
                ),
            };
            let message = Message::new(
                format!(
                    "the payer's name, INN, KPP and bank of {whose_en} are not known: the 1C file \
                     leaves `Плательщик`, `ПлательщикИНН`, `ПлательщикКПП`, `ПлательщикБанк1`, \
                     `ПлательщикБИК` and `ПлательщикКорсчет` empty in {count} payment(s); give \
                     them with --payer-from ACCOUNT-FILE"
                ),
                format!(
                    "наименование, ИНН, КПП и банк плательщика для {whose_ru} неизвестны: в файле 1С \
                     `Плательщик`, `ПлательщикИНН`, `ПлательщикКПП`, `ПлательщикБанк1`, \
                     `ПлательщикБИК` и `ПлательщикКорсчет` останутся пустыми в платежах: {count}; \
                     укажите их в --payer-from ФАЙЛ-СЧЁТА"
                ),
            );
            let mut finding = about(Code::PayerUnknown, Field::PayerAccount, message, index);
            if let Some(account) = account {
                finding = finding.found(account);
            }
            finding
        })
        .collect()
}

/// The payee's bank name is not in a JSON request: each payment without one gets the key
/// empty, and the file one `recipient-bank-unknown` finding (at the first such payment).
pub(crate) fn recipient_banks(payments: &mut [Payment]) -> Option<Diagnostic> {
    let mut first = None;
    let mut count = 0;
    for (index, payment) in payments.iter_mut().enumerate() {
        if payment.recipient.bank.name.is_none() {
            payment.recipient.bank.name = Some(String::new());
            first.get_or_insert(index);
            count += 1;
        }
    }
    let message = Message::new(
        format!(
            "the payee's bank name is not in a JSON upload request (the bank takes it from the \
             BIK): `ПолучательБанк1` is written empty in {count} payment(s)"
        ),
        format!(
            "наименования банка получателя нет в запросе JSON (банк берёт его по БИК): \
             `ПолучательБанк1` записан пустым в платежах: {count}"
        ),
    );
    first.map(|index| {
        about(
            Code::RecipientBankUnknown,
            Field::RecipientBankName,
            message,
            index,
        )
    })
}

/// A finding of `code` about `field` of the payment at 0-based `index`.
fn about(code: Code, field: Field, message: Message, index: usize) -> Diagnostic {
    let mut finding = Diagnostic::new(code, message)
        .key(field.key().name())
        .payment(u32::try_from(index + 1).unwrap_or(u32::MAX));
    if let Some(json) = field.json() {
        finding = finding.field(json);
    }
    finding
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    const TOML: &str = r#"account = "40702810938000012345"
name = "ООО \"Ромашка\""
inn = "7701234560"
kpp = "770101001"
bank = "ПАО Сбербанк"
bik = "044525225"
corr_account = "30101810400000000225"
"#;

    #[test]
    fn toml_and_json_files_give_the_same_payer() {
        let dir = tempfile::tempdir().unwrap();
        let toml = load(&write(&dir, "p.toml", TOML)).unwrap();
        let json = load(&write(
            &dir,
            "p.json",
            r#"[{"account": "40702810938000012345", "name": "ООО \"Ромашка\"", "inn": "7701234560",
               "kpp": "770101001", "bank": "ПАО Сбербанк", "bik": "044525225",
               "corr_account": "30101810400000000225"}]"#,
        ))
        .unwrap();
        assert_eq!(toml, json);
        assert_eq!(toml[0].inn, "7701234560");
        let many = load(&write(
            &dir,
            "many.toml",
            &format!(
                "[[payer]]\n{TOML}\n[[payer]]\n{}",
                TOML.replace("12345", "54321")
            ),
        ))
        .unwrap();
        assert_eq!(many.len(), 2);
    }

    #[test]
    fn a_bad_file_is_refused_with_its_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "bad.toml", &TOML.replace("bik", "bic"));
        let error = load(&path).unwrap_err();
        assert!(error.contains("bad.toml:"), "{error}");
        assert!(error.contains("bic"), "{error}");
        let missing = write(&dir, "missing.toml", "account = \"1\"\n");
        let error = load(&missing).unwrap_err();
        assert!(error.contains("missing field"), "{error}");
    }

    #[test]
    fn payments_get_their_payer_and_the_rest_one_finding_per_account() {
        let dir = tempfile::tempdir().unwrap();
        let payers = load(&write(&dir, "p.toml", TOML)).unwrap();
        let mut payments = vec![Payment::default(); 4];
        payments[0].payer.account = Some("40702810938000012345".into());
        payments[1].payer.account = Some("40702810900000000001".into());
        payments[2].payer.account = Some("40702810900000000001".into());
        payments[3].payer.account = Some("40702810938000012345".into());
        payments[3].payer.inn = Some("500100732259".into());
        let findings = fill(&mut payments, &payers);
        assert_eq!(payments[0].payer.inn.as_deref(), Some("7701234560"));
        assert_eq!(payments[0].payer.bank.bik.as_deref(), Some("044525225"));
        assert_eq!(
            payments[3].payer.inn.as_deref(),
            Some("500100732259"),
            "a value the payment has is kept"
        );
        assert_eq!(
            payments[1].payer.inn.as_deref(),
            Some(""),
            "an unknown payer's key is written empty"
        );
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].code, Code::PayerUnknown);
        assert_eq!(findings[0].payment, Some(2), "the second payment, 1-based");
        assert_eq!(findings[0].field, Some("PayerAccount"));
        assert!(
            findings[0].message.en().contains("2 payment(s)"),
            "{}",
            findings[0].message
        );
        assert!(
            findings[0].message.ru().contains("в платежах: 2"),
            "{}",
            findings[0].message.ru()
        );
        let none = fill(&mut [Payment::default()], &[]);
        assert_eq!(none.len(), 1);
        assert_eq!(none[0].found, None);
    }
}
