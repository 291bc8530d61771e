//! Hand-made payments in `testdata/payments/`: each `valid-*` file passes, each other file has
//! exactly one defect, named by the start of its file name, and `clientbank check` prints what
//! `NAME.expected` holds (`BLESS=1` rewrites them). Then `convert` both ways.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rust_decimal::Decimal;
use serde_json::Value;

const TODAY: &str = "20.11.2026";

/// The files that are not upload requests at all: refused (exit 2).
const REFUSED: &[&str] = &["json-invalid-syntax.json"];

fn payments_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/payments")
}

fn clientbank(dir: &Path, args: &[&str]) -> Output {
    clientbank_in(dir, args, "C.UTF-8")
}

/// The binary run with the locale `lang` (`LANG`; `LC_ALL` and `LC_MESSAGES` unset).
fn clientbank_in(dir: &Path, args: &[&str], lang: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .current_dir(dir)
        .args(args)
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", lang)
        .output()
        .expect("the binary runs")
}

#[test]
fn check_speaks_the_locale_s_language_with_the_same_codes_and_keys() {
    let dir = payments_dir();
    let args = ["check", "--today", TODAY, "inn-check-digit.txt"];
    let ru = clientbank_in(&dir, &args, "ru_RU.UTF-8");
    let en = clientbank_in(&dir, &args, "en_US.UTF-8");
    assert_eq!(ru.status.code(), en.status.code());
    let text = String::from_utf8(ru.stdout).unwrap();
    assert_eq!(
        text,
        "ошибка[inn-check-digit]: неверное контрольное число ИНН: сверьте ИНН с документами контрагента\n\
         \x20 --> inn-check-digit.txt:24:15\n\
         \x20  |\n\
         24 | ПолучательИНН=5009876547\n\
         \x20  |               ^^^^^^^^^^\n\
         \x20  = примечание: файл прочитан как CP1251\n\
         \x20  = 1-й платёж файла (№ 301), ПолучательИНН (RecipientINN): найдено \"5009876547\"\n\
         inn-check-digit.txt: ОШИБКИ (ошибок: 1, предупреждений: 0)\n\
         \n\
         проверено файлов: 1; ошибок: 1, предупреждений: 0\n"
    );
    assert!(
        String::from_utf8(en.stdout)
            .unwrap()
            .starts_with("error[inn-check-digit]: the INN's")
    );
    // JSON: only `message` (and `expected`) change with the language.
    let json = |lang| {
        let output = clientbank_in(
            &dir,
            &["check", "--json", "--today", TODAY, "inn-check-digit.txt"],
            lang,
        );
        serde_json::from_slice::<Value>(&output.stdout).unwrap()["files"][0]["diagnostics"][0]
            .clone()
    };
    let (mut ru, mut en) = (json("ru_RU.UTF-8"), json("C"));
    assert!(
        ru["message"]
            .as_str()
            .unwrap()
            .starts_with("неверное контрольное число ИНН")
    );
    ru["message"] = Value::Null;
    en["message"] = Value::Null;
    assert_eq!(ru, en);
    // A payment finding from a 1C line has the value's column.
    assert_eq!(en["line"], 24);
    assert_eq!(en["column"], 15);
    assert_eq!(en["payment"], 1);
    assert_eq!(en["field"], "RecipientINN");
    assert_eq!(en["key"], "ПолучательИНН");
}

fn inputs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(payments_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".txt") || n.ends_with(".json"))
        .collect();
    names.sort();
    assert!(names.len() > 30, "{names:?}");
    names
}

#[test]
fn each_bad_payment_has_its_one_finding() {
    let dir = payments_dir();
    for name in inputs() {
        let output = clientbank(&dir, &["check", "--json", "--today", TODAY, &name]);
        let report: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {}", String::from_utf8_lossy(&output.stdout)));
        let diagnostics = report["files"][0]["diagnostics"].as_array().unwrap();
        let codes: Vec<&str> = diagnostics
            .iter()
            .map(|d| d["code"].as_str().unwrap())
            .collect();
        if name.starts_with("valid-") {
            assert!(codes.is_empty(), "{name}: {codes:?}");
            assert_eq!(output.status.code(), Some(0), "{name}");
            continue;
        }
        assert_eq!(codes.len(), 1, "{name}: {codes:?}");
        assert!(name.starts_with(codes[0]), "{name}: {codes:?}");
        // Only input that is no upload request at all is refused; a bad value is its
        // payment's finding, located by line.
        let refused = REFUSED.contains(&name.as_str());
        assert_eq!(report["files"][0]["readable"], !refused, "{name}");
        let expected_exit = match diagnostics[0]["severity"].as_str() {
            _ if refused => 2,
            Some("error") => 1,
            _ => 0,
        };
        assert_eq!(output.status.code(), Some(expected_exit), "{name}");
        assert!(diagnostics[0]["line"].is_number(), "{name}: has a line");
        if !refused {
            assert!(diagnostics[0]["payment"].is_number(), "{name}: located");
        }
        if name.ends_with(".txt") {
            // The key's line, or the section's (line 9) when the key is absent.
            assert!(
                diagnostics[0]["line"].as_u64().unwrap() >= 9,
                "{name}: has a line"
            );
        }
    }
}

#[test]
fn rendered_findings_match_their_snapshots() {
    let dir = payments_dir();
    let mut goldens = clientbank_testkit::Goldens::new();
    for name in inputs() {
        let output = clientbank(&dir, &["check", "--today", TODAY, &name]);
        let text = format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            output.status.code().unwrap(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        goldens.check(dir.join(format!("{name}.expected")), &text);
    }
    goldens.finish();
}

fn canonical(requests: &Value) -> Value {
    let mut requests = requests.clone();
    for request in requests.as_array_mut().unwrap() {
        request.as_object_mut().unwrap().remove("parameters");
    }
    requests
}

#[test]
fn json_to_1c_to_json_is_the_identity() {
    let temp = std::env::temp_dir().join(format!("clientbank-convert-{}", std::process::id()));
    std::fs::create_dir_all(&temp).unwrap();
    let source =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/valid/upload-requests.json");
    for encoding in ["windows", "dos", "utf-8"] {
        let first = clientbank(
            &temp,
            &[
                "convert",
                "--today",
                TODAY,
                source.to_str().unwrap(),
                "--to",
                "json",
            ],
        );
        assert_eq!(first.status.code(), Some(2), "JSON to JSON is refused");
        let onec = temp.join(format!("requests-{encoding}.txt"));
        let out = clientbank(
            &temp,
            &[
                "convert",
                "--today",
                TODAY,
                source.to_str().unwrap(),
                "-o",
                onec.to_str().unwrap(),
                "--encoding",
                encoding,
            ],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let check = clientbank(&temp, &["check", "--today", TODAY, onec.to_str().unwrap()]);
        assert_eq!(
            check.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&check.stdout)
        );
        let back = clientbank(
            &temp,
            &["convert", "--today", TODAY, onec.to_str().unwrap()],
        );
        assert_eq!(
            back.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&back.stderr)
        );
        let back: Value = serde_json::from_slice(&back.stdout).unwrap();
        // The canonical form of the source: through the library, once.
        let canon = clientbank(
            &temp,
            &[
                "convert",
                "--today",
                TODAY,
                onec.to_str().unwrap(),
                "--in-signing",
            ],
        );
        let canon: Value = serde_json::from_slice(&canon.stdout).unwrap();
        assert_eq!(canon[0]["parameters"]["targetStatus"], "InSigning");
        assert_eq!(canonical(&back), canonical(&canon));
        let source: Value = serde_json::from_slice(&std::fs::read(&source).unwrap()).unwrap();
        assert_eq!(back.as_array().unwrap().len(), 3);
        for (got, want) in back
            .as_array()
            .unwrap()
            .iter()
            .zip(source.as_array().unwrap())
        {
            for (field, value) in want["payment"].as_object().unwrap() {
                let got = &got["payment"][field];
                match field.as_str() {
                    // Canonical forms: a number with two decimals, ДД.ММ.ГГГГ.
                    "Sum" => {
                        let want = value
                            .to_string()
                            .trim_matches('"')
                            .parse::<Decimal>()
                            .unwrap();
                        let got = got.to_string();
                        assert_eq!(got.parse::<Decimal>().unwrap(), want);
                        assert_eq!(got.split_once('.').map(|(_, d)| d.len()), Some(2), "{got}");
                    }
                    "Date" => assert_eq!(got, "20.11.2026"),
                    _ => assert_eq!(got, value, "{field}"),
                }
            }
        }
    }
    std::fs::remove_dir_all(&temp).ok();
}

#[test]
fn convert_reports_what_json_cannot_carry() {
    let dir = payments_dir();
    let output = clientbank(&dir, &["convert", "--today", TODAY, "priority-invalid.txt"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not-carried"), "{stderr}");
    assert!(stderr.contains("priority-invalid"), "{stderr}");
    assert_eq!(output.status.code(), Some(1), "an error finding");
    // Issue 19 item 10: nothing is written of a file with errors…
    assert!(
        output.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(stderr.contains("nothing written"), "{stderr}");
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("out.json");
    let to_file = clientbank(
        &dir,
        &[
            "convert",
            "--today",
            TODAY,
            "priority-invalid.txt",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(to_file.status.code(), Some(1));
    assert!(!out.exists(), "no file made");
    assert_eq!(
        std::fs::read_dir(temp.path()).unwrap().count(),
        0,
        "no temporary left"
    );
    // …unless --force.
    let forced = clientbank(
        &dir,
        &[
            "convert",
            "--force",
            "--today",
            TODAY,
            "priority-invalid.txt",
        ],
    );
    assert_eq!(forced.status.code(), Some(1), "an error finding");
    let requests: Value = serde_json::from_slice(&forced.stdout).unwrap();
    assert_eq!(
        requests[0]["payment"]["Number"], "301",
        "converted when forced"
    );
}

/// A payment with one field changed, as a JSON file in `dir`.
fn payment_with(dir: &Path, name: &str, field: &str, value: &str) -> PathBuf {
    let mut request: Value =
        serde_json::from_slice(&std::fs::read(payments_dir().join("valid-ordinary.json")).unwrap())
            .unwrap();
    request["payment"][field] = Value::String(value.to_string());
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(&request).unwrap()).unwrap();
    path
}

#[test]
fn check_and_convert_agree_on_characters_that_cannot_be_written() {
    let temp = std::env::temp_dir().join(format!("clientbank-chars-{}", std::process::id()));
    std::fs::create_dir_all(&temp).unwrap();
    // A tab or a line break in a code field: an error in `check`, and `convert` writes no 1C
    // file (a tab used to be written into it).
    for (name, field, value) in [
        ("tab-number.json", "Number", "401\t"),
        (
            "tab-account.json",
            "RecipientAccount",
            "40702810210000054321\t",
        ),
        ("lf-kpp.json", "RecipientKPP", "500901001\n"),
        ("cr-bik.json", "RecipientBankBik", "\r044525974"),
    ] {
        let path = payment_with(&temp, name, field, value);
        let check = clientbank(&temp, &["check", "--json", "--today", TODAY, name]);
        assert_eq!(check.status.code(), Some(1), "{name}");
        let report: Value = serde_json::from_slice(&check.stdout).unwrap();
        let codes: Vec<_> = report["files"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| (d["code"].as_str().unwrap(), d["field"].as_str().unwrap()))
            .collect();
        assert_eq!(codes, [("control-character", field)], "{name}");
        let out = temp.join(format!("{name}.txt"));
        let convert = clientbank(
            &temp,
            &[
                "convert",
                "--today",
                TODAY,
                name,
                "-o",
                out.to_str().unwrap(),
            ],
        );
        let stderr = String::from_utf8_lossy(&convert.stderr);
        assert_eq!(convert.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains("error[control-character]"), "{stderr}");
        assert!(!out.exists(), "{name}: no 1C file is written");
        std::fs::remove_file(path).ok();
    }
    // CP866 lacks the em dash that Windows-1251 has: reported with its payment and field for
    // `--encoding dos`, and that file is not written; `check` (Windows-1251) passes.
    let name = "dash.json";
    payment_with(
        &temp,
        name,
        "PaymentPurpose",
        "Оплата по счету 45 — в т.ч. НДС 22% - 10639.34",
    );
    let check = clientbank(&temp, &["check", "--today", TODAY, name]);
    assert_eq!(check.status.code(), Some(0));
    let out = temp.join("dash-dos.txt");
    let dos = clientbank(
        &temp,
        &[
            "convert",
            "--today",
            TODAY,
            name,
            "--encoding",
            "dos",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&dos.stderr);
    assert_eq!(dos.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error[unrepresentable-character]"),
        "{stderr}"
    );
    assert!(stderr.contains("DOS (CP866)"), "{stderr}");
    assert!(
        stderr.contains("payment 1 (№ 401), PaymentPurpose"),
        "{stderr}"
    );
    assert!(!out.exists());
    let out = temp.join("dash-windows.txt");
    let windows = clientbank(
        &temp,
        &[
            "convert",
            "--today",
            TODAY,
            name,
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(windows.status.code(), Some(0));
    assert!(out.exists());
    std::fs::remove_dir_all(&temp).ok();
}

#[test]
fn one_bad_json_value_fails_its_payment_not_the_file() {
    // Payment 2 of 3 has an impossible date and payment 3 a mistyped sum: both are findings
    // with their JSON lines, exit 1, and payment 1's own defect is still reported.
    let temp = std::env::temp_dir().join(format!("clientbank-badvalue-{}", std::process::id()));
    std::fs::create_dir_all(&temp).unwrap();
    let request: Value =
        serde_json::from_slice(&std::fs::read(payments_dir().join("valid-ordinary.json")).unwrap())
            .unwrap();
    let mut requests = vec![request.clone(), request.clone(), request];
    requests[0]["payment"]["RecipientINN"] = Value::String("5009876547".into());
    requests[1]["payment"]["Date"] = Value::String("31.11.2026".into());
    requests[2]["payment"]["Sum"] = Value::String("59000,00".into());
    let text = format!(
        "\u{feff}{}",
        serde_json::to_string_pretty(&requests).unwrap()
    );
    std::fs::write(temp.join("three.json"), &text).unwrap();
    let line_of = |needle: &str| -> u64 {
        let at = text.find(needle).unwrap();
        text[..at].matches('\n').count() as u64 + 1
    };
    let check = clientbank(&temp, &["check", "--json", "--today", TODAY, "three.json"]);
    assert_eq!(check.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(report["files"][0]["readable"], true);
    let found: Vec<_> = report["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["payment"].as_u64().unwrap(),
                d["code"].as_str().unwrap(),
                d["field"].as_str().unwrap(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                1,
                "inn-check-digit",
                "RecipientINN",
                line_of("\"RecipientINN\": \"5009876547\"")
            ),
            (2, "json-invalid", "Date", line_of("\"31.11.2026\"")),
            (3, "json-invalid", "Sum", line_of("\"59000,00\"")),
        ]
    );
    std::fs::remove_dir_all(&temp).ok();
}
