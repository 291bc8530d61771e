//! The text and JSON forms of findings, in both languages, as golden files: every file of
//! `testdata/invalid/`, `testdata/odd/` and `testdata/payments/` read by the batch layer (as
//! `clientbank check` reads it, dated 20.11.2026), every finding rendered in English
//! (`testdata/render/findings.en.txt`), in Russian (`findings.ru.txt`) and as JSON Lines
//! (`findings.jsonl`, English messages). `BLESS=1` rewrites them after a deliberate change.

use std::fmt::Write as _;
use std::path::PathBuf;

use clientbank_payment::batch::Batch;
use clientbank_payment::{Context, Lang, NaiveDate};

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn inputs() -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    for folder in ["invalid", "odd", "payments"] {
        for entry in std::fs::read_dir(testdata().join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".txt") || name.ends_with(".json") {
                files.push((format!("{folder}/{name}"), path));
            }
        }
    }
    files.sort();
    assert!(files.len() > 60, "{}", files.len());
    files
}

/// Every finding of every input: in `lang` as text, or as JSON Lines.
fn rendered(lang: Lang, json: bool) -> String {
    let context = Context::as_of(NaiveDate::from_ymd_opt(2026, 11, 20).unwrap());
    let mut out = String::new();
    for (name, path) in inputs() {
        let bytes = std::fs::read(&path).unwrap();
        match Batch::read(bytes, &context) {
            Ok(batch) => {
                for finding in batch.findings() {
                    if json {
                        let line = finding.to_json(lang).with_file(&name);
                        writeln!(out, "{}", serde_json::to_string(&line).unwrap()).unwrap();
                    } else {
                        out.push_str(&batch.renderer(&name).lang(lang).render(&finding));
                    }
                }
            }
            Err(refusal) if json => {
                let line = refusal.diagnostic.to_json(lang).with_file(&name);
                writeln!(out, "{}", serde_json::to_string(&line).unwrap()).unwrap();
            }
            Err(refusal) => out.push_str(&refusal.render(&name, lang)),
        }
    }
    out
}

fn golden(file: &str, actual: &str) {
    clientbank_testkit::assert_golden(testdata().join("render").join(file), actual);
}

#[test]
fn findings_in_english_match_their_golden_file() {
    golden("findings.en.txt", &rendered(Lang::En, false));
}

#[test]
fn findings_in_russian_match_their_golden_file() {
    let text = rendered(Lang::Ru, false);
    // Only the words change: codes stay, and no English fixed word is left.
    assert!(text.contains("ошибка[invalid-date]"), "{text}");
    assert!(text.contains("предупреждение[unknown-key]"), "{text}");
    assert!(text.contains("= примечание: файл прочитан как CP1251"));
    for english in ["error[", "warning[", "= note:", " expected ", "= payment "] {
        assert!(!text.contains(english), "{english:?} in the Russian text");
    }
    golden("findings.ru.txt", &text);
}

#[test]
fn findings_as_json_match_their_golden_file() {
    let en = rendered(Lang::En, true);
    golden("findings.jsonl", &en);
    // The keys and codes of the JSON form do not change with the language.
    let ru = rendered(Lang::Ru, true);
    for (en, ru) in en.lines().zip(ru.lines()) {
        let mut en: serde_json::Value = serde_json::from_str(en).unwrap();
        let mut ru: serde_json::Value = serde_json::from_str(ru).unwrap();
        for member in ["message", "expected"] {
            en[member] = serde_json::Value::Null;
            ru[member] = serde_json::Value::Null;
        }
        assert_eq!(en, ru);
    }
    assert_eq!(en.lines().count(), ru.lines().count());
}
