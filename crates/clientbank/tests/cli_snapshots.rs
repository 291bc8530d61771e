//! Snapshots of every command's text and JSON output, in English and Russian:
//! `tests/snapshots/NAME.expected` holds the command, its exit code, stdout and stderr
//! (`BLESS=1` rewrites them after a deliberate change). And the README's command lines and
//! JSON examples are what the binary prints.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the binary in `dir` with a fixed locale and no colour; the transcript.
fn run(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(args)
        .current_dir(dir)
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "C.UTF-8")
        .env_remove("CLICOLOR_FORCE")
        .env("COLUMNS", "100")
        .output()
        .expect("the binary runs");
    format!(
        "$ clientbank {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

const CHECKED: [&str; 3] = [
    "odd/key-case.txt",
    "invalid/empty.txt",
    "payments/inn-check-digit.txt",
];

/// (name, arguments) of every case; each runs in both languages unless it is clap's help.
fn cases() -> Vec<(String, Vec<String>)> {
    let today = ["--today", "16.11.2026"];
    let mut cases: Vec<(&str, Vec<&str>)> = vec![
        ("parse-text", vec!["parse", "odd/unknown-key.txt"]),
        ("parse-json", vec!["parse", "--json", "odd/unknown-key.txt"]),
        (
            "parse-json-lines",
            vec!["parse", "--json-lines", "odd/unknown-key.txt"],
        ),
        ("parse-refused", vec!["parse", "invalid/mixed-encoding.txt"]),
        ("parse-missing", vec!["parse", "no-such-file.txt"]),
        (
            "check-strict",
            [&["check", "--strict"][..], &today, &["odd/unknown-key.txt"]].concat(),
        ),
        (
            "convert-1c-to-json",
            vec![
                "convert",
                "--today",
                "20.11.2026",
                "valid/payment-orders-cp1251-crlf.txt",
            ],
        ),
        (
            "convert-json-to-1c",
            vec![
                "convert",
                "--today",
                "20.11.2026",
                "valid/upload-requests.json",
                "--encoding",
                "utf-8",
            ],
        ),
        (
            "convert-json-findings",
            vec![
                "convert",
                "--json",
                "--today",
                "20.11.2026",
                "valid/upload-requests.json",
                "--encoding",
                "utf-8",
            ],
        ),
        (
            "convert-1c-to-1c",
            vec![
                "convert",
                "--to",
                "1c",
                "--encoding",
                "utf-8",
                "--today",
                "20.11.2026",
                "corpus-like/to-bank-one-order-1.01-utf8.txt",
            ],
        ),
        (
            "convert-json-to-json",
            vec!["convert", "valid/upload-requests.json", "--to", "json"],
        ),
    ];
    for (name, mode) in [
        ("check-text", None),
        ("check-json", Some("--json")),
        ("check-json-lines", Some("--json-lines")),
    ] {
        let mut args = vec!["check"];
        args.extend(mode);
        args.extend(today);
        args.extend(CHECKED);
        cases.push((name, args));
    }
    let mut all = Vec::new();
    for (name, args) in cases {
        for lang in ["en", "ru"] {
            let mut with = vec!["--lang".to_string(), lang.to_string()];
            with.extend(args.iter().map(|a| a.to_string()));
            all.push((format!("{name}.{lang}"), with));
        }
    }
    for command in ["", "parse", "check", "convert", "sandbox"] {
        let mut args: Vec<String> = Vec::new();
        if !command.is_empty() {
            args.push(command.into());
        }
        args.push("--help".into());
        let name = if command.is_empty() {
            "help".to_string()
        } else {
            format!("help-{command}")
        };
        all.push((name, args));
    }
    all
}

#[test]
fn every_command_matches_its_snapshot() {
    let testdata = root().join("testdata");
    let snapshots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let mut goldens = clientbank_testkit::Goldens::new();
    for (name, args) in cases() {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let got = run(&testdata, &args);
        goldens.check(snapshots.join(format!("{name}.expected")), &got);
    }
    goldens.finish();
}

/// The fenced blocks of the README: (info string, text).
fn fenced_blocks(readme: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in readme.lines() {
        match &mut open {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    open = Some((info.trim().to_string(), String::new()));
                }
            }
            Some((_, body)) => {
                if line.trim_end() == "```" {
                    blocks.push(open.take().unwrap());
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    blocks
}

/// Every `console` block of the README: each `$ clientbank …` line, run from the repository's
/// root, prints the lines under it (stdout and stderr, as a terminal shows them piped).
#[test]
fn the_readmes_command_lines_print_what_it_shows() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut ran = 0;
    for (info, body) in fenced_blocks(&readme) {
        if info != "console" {
            continue;
        }
        let mut commands: Vec<(String, String)> = Vec::new();
        for line in body.lines() {
            if let Some(command) = line.strip_prefix("$ ") {
                commands.push((command.to_string(), String::new()));
            } else if let Some((_, shown)) = commands.last_mut() {
                shown.push_str(line);
                shown.push('\n');
            }
        }
        for (command, shown) in commands {
            let words: Vec<&str> = command.split_whitespace().collect();
            assert_eq!(words[0], "clientbank", "{command}");
            let output = Command::new(env!("CARGO_BIN_EXE_clientbank"))
                .args(&words[1..])
                .current_dir(root())
                .env("LANG", "C.UTF-8")
                .env_remove("LC_ALL")
                .env_remove("LC_MESSAGES")
                .output()
                .unwrap();
            let printed = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stderr),
                String::from_utf8_lossy(&output.stdout)
            );
            assert_eq!(printed, shown, "README: $ {command}");
            ran += 1;
        }
    }
    assert!(
        ran >= 3,
        "the README shows commands with their output ({ran} found)"
    );
}

/// The README's `parse --json` example has the members the binary prints (its values are
/// shortened with `…`).
#[test]
fn the_readmes_json_example_has_the_binarys_shape() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let example = fenced_blocks(&readme)
        .into_iter()
        .find(|(info, body)| info == "json" && body.contains("\"diagnostics\""))
        .expect("the parse --json example")
        .1;
    let example: Value = serde_json::from_str(&example).expect("the example is JSON");
    let output = Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(["parse", "--json", "testdata/odd/unknown-key.txt"])
        .current_dir(root())
        .output()
        .unwrap();
    let real: Value = serde_json::from_slice(&output.stdout).unwrap();
    let keys = |v: &Value| -> Vec<String> {
        let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    assert_eq!(keys(&example), keys(&real));
    assert_eq!(keys(&example["documents"][0]), keys(&real["documents"][0]));
    assert_eq!(
        keys(&example["diagnostics"][0]),
        keys(&real["diagnostics"][0])
    );
    assert_eq!(example["encoding"], real["encoding"]);
    assert_eq!(example["version"], real["version"]);
    assert_eq!(
        example["diagnostics"][0]["code"],
        real["diagnostics"][0]["code"]
    );
    assert_eq!(
        example["diagnostics"][0]["key"],
        real["diagnostics"][0]["key"]
    );
    assert_eq!(
        example["documents"][0]["line"],
        real["documents"][0]["line"]
    );
}
