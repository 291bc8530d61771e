//! `clientbank check` on the hand-made bank statements of `testdata/statements/`: no finding,
//! exit 0, and the statement mode said in both languages and in JSON; a real defect still
//! fails the file.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/statements")
}

fn files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".txt"))
        .collect();
    names.sort();
    names
}

fn check(args: &[&str], lang: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .current_dir(dir())
        .arg("check")
        .args(["--today", "20.11.2026"])
        .args(args)
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", lang)
        .output()
        .expect("the binary runs")
}

#[test]
fn statements_are_checked_clean_and_say_their_mode() {
    let names = files();
    assert!(names.len() >= 5);
    let args: Vec<&str> = names.iter().map(String::as_str).collect();
    let en = check(&args, "C.UTF-8");
    assert_eq!(en.status.code(), Some(0));
    let text = String::from_utf8(en.stdout).unwrap();
    for name in &names {
        assert!(
            text.contains(&format!(
                "{name}: statement: the bank's record checked, payment-preparation advice left out\n"
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!("{name}: ok (0 error(s), 0 warning(s))\n")),
            "{text}"
        );
    }
    let ru = check(&args[..1], "ru_RU.UTF-8");
    let text = String::from_utf8(ru.stdout).unwrap();
    assert!(
        text.starts_with(&format!(
            "{}: выписка: проверены данные банка, советы по подготовке платежей не выводятся\n",
            names[0]
        )),
        "{text}"
    );
    let json = check(&[&["--json"], &args[..]].concat(), "C.UTF-8");
    assert_eq!(json.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        (report["errors"].as_u64(), report["warnings"].as_u64()),
        (Some(0), Some(0))
    );
    for file in report["files"].as_array().unwrap() {
        assert_eq!(file["mode"], "statement", "{file}");
        assert_eq!(file["diagnostics"], Value::Array(vec![]), "{file}");
    }
    let lines = check(&["--json-lines", args[0]], "C.UTF-8");
    let text = String::from_utf8(lines.stdout).unwrap();
    let file: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        (&file["kind"], &file["mode"]),
        (&Value::from("file"), &Value::from("statement"))
    );
}

#[test]
fn a_statement_with_a_wrong_account_key_fails_and_orders_say_their_mode() {
    let tmp = std::env::temp_dir().join(format!("clientbank-stmt-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let bytes = std::fs::read(dir().join("sber-2024-1.03-cp1251-crlf.txt")).unwrap();
    // `ПолучательСчет=40817810` → `…40817811`: the payee's account no longer keys.
    let from = b"\xcf\xee\xeb\xf3\xf7\xe0\xf2\xe5\xeb\xfc\xd1\xf7\xe5\xf2=40817810";
    let at = bytes.windows(from.len()).position(|w| w == from).unwrap();
    let mut broken = bytes.clone();
    broken[at + from.len() - 1] = b'1';
    let path = tmp.join("broken.txt");
    std::fs::write(&path, broken).unwrap();
    let out = check(&["--json", path.to_str().unwrap()], "C.UTF-8");
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = &report["files"][0];
    assert_eq!(file["mode"], "statement");
    assert_eq!(file["diagnostics"][0]["code"], "account-key");
    // The same bytes without account sections are orders to send.
    let orders =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/drops/1c_to_kl.txt");
    let out = check(
        &["--json", orders.to_str().unwrap(), "missing.txt"],
        "C.UTF-8",
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["files"][0]["mode"], "orders");
    assert_eq!(report["files"][1]["mode"], Value::Null);
    std::fs::remove_dir_all(&tmp).unwrap();
}
