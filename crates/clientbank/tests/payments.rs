//! Hand-made payments in `testdata/payments/`: each `valid-*` file passes, each other file has
//! exactly one defect, named by the start of its file name, and `clientbank check` prints what
//! `NAME.expected` holds (`BLESS=1` rewrites them). Then `convert` both ways.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rust_decimal::Decimal;
use serde_json::Value;

const TODAY: &str = "20.11.2026";

fn payments_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/payments")
}

fn clientbank(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the binary runs")
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
        let expected_exit = match diagnostics[0]["severity"].as_str() {
            _ if name.starts_with("json-invalid") => 2,
            Some("error") => 1,
            _ => 0,
        };
        assert_eq!(output.status.code(), Some(expected_exit), "{name}");
        if !name.starts_with("json-") {
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
    let bless = std::env::var_os("BLESS").is_some();
    let mut stale = Vec::new();
    for name in inputs() {
        let output = clientbank(&dir, &["check", "--today", TODAY, &name]);
        let text = format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            output.status.code().unwrap(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let path = dir.join(format!("{name}.expected"));
        if bless {
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(format!("{name}:\n{text}"));
        }
    }
    assert!(
        stale.is_empty(),
        "output differs from NAME.expected (BLESS=1 to rewrite):\n{}",
        stale.join("\n")
    );
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
    let requests: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(requests[0]["payment"]["Number"], "301", "still converted");
}
