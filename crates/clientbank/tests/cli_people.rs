//! Issue 9 items 6–8: colour, one error prefix, refusals in the report, examples in every
//! help, completions and the man page, no internal names, one finding per defect, a missing
//! `openssl` named, the language flag and locale, no progress bar when piped.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

const TODAY: &str = "16.11.2026";

fn testdata(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(path)
        .display()
        .to_string()
}

fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clientbank"));
    command
        .args(args)
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "C.UTF-8")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE");
    command
}

fn clientbank(args: &[&str]) -> Output {
    command(args).output().expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const ESC: &str = "\u{1b}[";

#[test]
fn colour_follows_the_flag_and_no_color() {
    let file = testdata("invalid/invalid-sum-comma.txt");
    let piped = clientbank(&["check", &file]);
    assert!(!text(&piped.stdout).contains(ESC), "no colour into a pipe");
    let always = clientbank(&["--color", "always", "check", &file]);
    let painted = text(&always.stdout);
    assert!(
        painted.contains(&format!("{ESC}1m{ESC}31merror[invalid-sum]:")),
        "{painted}"
    );
    // Colour changes nothing but the escapes.
    let stripped = painted
        .split(ESC)
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                part
            } else {
                part.split_once('m').map_or(part, |(_, rest)| rest)
            }
        })
        .collect::<String>();
    assert_eq!(stripped, text(&piped.stdout));
    let forced = command(&["check", &file])
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    assert!(
        text(&forced.stdout).contains(ESC),
        "CLICOLOR_FORCE colours a pipe"
    );
    let no_color = command(&["check", &file])
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!text(&no_color.stdout).contains(ESC), "NO_COLOR wins");
    let never = command(&["--color", "never", "check", &file])
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    assert!(!text(&never.stdout).contains(ESC));
    // Errors on stderr too.
    let error = clientbank(&["--color", "always", "check", "no-such-file.txt"]);
    assert!(text(&error.stderr).starts_with(&format!("{ESC}1m{ESC}31merror:")));
}

#[test]
fn every_message_has_one_error_prefix_in_both_languages() {
    let cases: [&[&str]; 4] = [
        &["check", "no-such-file.txt"],
        &["convert", "no-such-file.txt"],
        &["sandbox", "--addr", "127.0.0.1:0", "--time-scale", "0"],
        &["check", "-", "-"],
    ];
    for args in cases {
        let en = clientbank(args);
        assert_eq!(en.status.code(), Some(2), "{args:?}");
        let stderr = text(&en.stderr);
        assert!(
            stderr.lines().all(|l| l.starts_with("error: ")),
            "{args:?}: {stderr}"
        );
        let mut ru_args = vec!["--lang", "ru"];
        ru_args.extend(args);
        let ru = clientbank(&ru_args);
        let stderr = text(&ru.stderr);
        assert!(
            stderr.lines().all(|l| l.starts_with("ошибка: ")),
            "{args:?}: {stderr}"
        );
    }
    // The locale chooses Russian; --lang overrides it.
    let file = testdata("odd/unknown-key.txt");
    let ru = command(&["check", "--today", TODAY, &file])
        .env("LANG", "ru_RU.UTF-8")
        .output()
        .unwrap();
    assert!(
        text(&ru.stdout).contains("проверено файлов: 1; ошибок: 0, предупреждений: 1"),
        "{}",
        text(&ru.stdout)
    );
    let en = command(&["--lang", "en", "check", "--today", TODAY, &file])
        .env("LANG", "ru_RU.UTF-8")
        .output()
        .unwrap();
    assert!(text(&en.stdout).contains("1 file(s) checked: 0 error(s), 1 warning(s)"));
    // Codes and JSON keys do not change with the language; the messages do.
    let json = |lang: &str| -> (Value, Vec<Value>) {
        let mut value: Value = serde_json::from_slice(
            &clientbank(&["--lang", lang, "check", "--json", "--today", TODAY, &file]).stdout,
        )
        .unwrap();
        let mut texts = Vec::new();
        for d in value["files"][0]["diagnostics"].as_array_mut().unwrap() {
            for member in ["message", "expected"] {
                texts.push(d[member].take());
            }
        }
        (value, texts)
    };
    let (ru, ru_texts) = json("ru");
    let (en, en_texts) = json("en");
    assert_eq!(ru, en);
    assert!(!ru_texts.is_empty());
    assert_ne!(
        ru_texts, en_texts,
        "the messages are in the language asked for"
    );
}

#[test]
fn refusals_are_in_checks_report_with_their_file() {
    let empty = testdata("invalid/empty.txt");
    let output = clientbank(&["check", &empty, "no-such-file.txt"]);
    assert_eq!(output.status.code(), Some(2));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("error[empty-input]"), "{stdout}");
    assert!(
        stdout.contains(&format!("{empty}: unreadable (1 error(s)")),
        "{stdout}"
    );
    assert!(
        stdout.contains("error: cannot read no-such-file.txt")
            && stdout.contains("no-such-file.txt: unreadable"),
        "{stdout}"
    );
    assert!(stdout.contains("2 file(s) checked: 2 error(s)"), "{stdout}");
    // One line each on stderr.
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
    assert!(stderr.contains(&format!("error: {empty}: unreadable: the input is empty")));
}

#[test]
fn every_help_has_examples() {
    for command in ["parse", "check", "convert", "sandbox", "completions", "man"] {
        let help = clientbank(&[command, "--help"]);
        assert_eq!(help.status.code(), Some(0));
        assert!(
            text(&help.stdout).contains("Examples:\n  clientbank "),
            "{command}"
        );
    }
    let top = clientbank(&["--help"]);
    assert!(text(&top.stdout).contains("Examples:"));
    assert!(text(&top.stdout).contains("--color <WHEN>"));
    assert!(text(&top.stdout).contains("--lang <LANG>"));
    // The generators are listed with the other commands: a reader of `--help` finds them.
    for generator in ["\n  completions ", "\n  man "] {
        assert!(text(&top.stdout).contains(generator), "{generator:?}");
    }
}

/// `help` answers its own `--help`, and takes the global options and `--help` anywhere, as
/// every other command does (they were refused as unknown commands).
#[test]
fn help_answers_its_own_help() {
    let shown = |args: &[&str]| {
        let output = clientbank(args);
        let stdout = text(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&output.stderr)
        );
        stdout
    };
    for args in [&["help", "--help"][..], &["help", "-h"], &["help", "help"]] {
        let page = shown(args);
        assert!(
            page.contains("Usage: clientbank help [COMMAND]"),
            "{args:?}: {page}"
        );
    }
    let check = shown(&["check", "--help"]);
    assert_eq!(shown(&["help", "check", "--help"]), check);
    assert_eq!(shown(&["help", "-h", "check"]), check);
    let russian = shown(&["--lang", "ru", "check", "--help"]);
    assert_eq!(shown(&["help", "--lang", "ru", "check"]), russian);
    assert_eq!(shown(&["help", "check", "--lang=ru"]), russian);
    assert!(shown(&["help", "--lang", "ru", "--help"]).contains("Использование: clientbank help"));
    // An unknown command after `help` is still refused.
    assert_eq!(clientbank(&["help", "--nonsense"]).status.code(), Some(2));
}

/// Issue 19 item 8: `--help` is Russian under `--lang ru` (before or after the command, with
/// `=`) and under a Russian locale; `--lang en` keeps it English under a Russian locale.
#[test]
fn help_is_russian_under_russian() {
    let russian = |help: &Output| {
        let shown = text(&help.stdout);
        assert_eq!(help.status.code(), Some(0), "{shown}");
        for english in [
            "Usage:",
            "Options:",
            "Examples:",
            "Print help",
            "[default:",
            "[OPTIONS]",
            "<COMMAND>",
            "<WHEN>",
            "<FILE",
            "<DIR>",
        ] {
            assert!(!shown.contains(english), "{english:?} in\n{shown}");
        }
        assert!(shown.contains("Использование: clientbank"), "{shown}");
        assert!(shown.contains("Примеры:\n  clientbank "), "{shown}");
        shown
    };
    let top = russian(&clientbank(&["--lang", "ru", "--help"]));
    assert!(top.contains("Команды:"), "{top}");
    assert!(top.contains("Проверить файлы"), "{top}");
    let check = russian(&clientbank(&["check", "--lang=ru", "-h"]));
    assert!(check.contains("Каждое замечание — ошибка"), "{check}");
    let in_russia = |args: &[&str]| command(args).env("LANG", "ru_RU.UTF-8").output().unwrap();
    let watch = russian(&in_russia(&["watch", "--help"]));
    assert!(watch.contains("Папка обмена"), "{watch}");
    // `--once` names every exit code it gives, 2 among them, in both languages.
    assert!(watch.contains("2 — мешают настройки"), "{watch}");
    let english = text(&clientbank(&["--lang", "en", "watch", "--help"]).stdout);
    assert!(
        english.contains("2: the configuration, the journal"),
        "{english}"
    );
    let login = russian(&clientbank(&["--lang", "ru", "help", "login"]));
    assert!(login.contains("--no-browser"), "{login}");
    let english = text(&in_russia(&["--lang", "en", "status", "--help"]).stdout);
    assert!(english.contains("Examples:"), "{english}");
}

#[test]
fn completions_and_the_man_page_come_from_the_definition() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = clientbank(&["completions", shell]);
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = text(&output.stdout);
        for word in ["clientbank", "convert", "payer-from", "json-lines"] {
            assert!(script.contains(word), "{shell}: {word}");
        }
    }
    let man = clientbank(&["man"]);
    assert_eq!(man.status.code(), Some(0));
    let page = text(&man.stdout);
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq") || page.contains(".TH clientbank"),
        "{page}"
    );
    for word in [
        "\\fBclientbank check\\fR",
        "\\-\\-payer\\-from",
        "Examples:",
    ] {
        assert!(page.contains(word), "{word}");
    }
    let bad = clientbank(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// Issue 19 item 11: the man page names no page that is not made (only clientbank(1) is:
/// the commands are its sections) and carries every key of the configuration with its default,
/// taken from the template `clientbank init` writes.
#[test]
fn the_man_page_names_only_pages_that_exist_and_has_the_configuration() {
    // Under Russian, the page speaks `--help`'s Russian.
    let ru = text(&clientbank(&["--lang", "ru", "man"]).stdout);
    assert!(
        ru.contains(".SH КОМАНДЫ") && ru.contains("(см. CLIENTBANK CHECK ниже)"),
        "{ru}"
    );
    for english in [
        "Print help",
        "When to colour",
        "(see CLIENTBANK",
        ".SH DESCRIPTION",
        ".SH SYNOPSIS",
        ".SH OPTIONS",
        ".SH CONFIGURATION",
        ".SH FILES",
        "the exchange folders",
    ] {
        assert!(!ru.contains(english), "{english}");
    }
    assert!(
        ru.contains(".SH ОПИСАНИЕ") && ru.contains(".SH НАСТРОЙКИ"),
        "{ru}"
    );
    let man = clientbank(&["--lang", "en", "man"]);
    assert_eq!(man.status.code(), Some(0));
    let page = text(&man.stdout);
    // Every `name(N)` the page names is this page.
    let mut rest = page.as_str();
    while let Some(at) = rest.find("(1)") {
        let before = &rest[..at];
        let name = before
            .rsplit(|c: char| c.is_whitespace() || c == '>')
            .next()
            .unwrap_or("");
        assert_eq!(
            name.replace("\\fB", ""),
            "clientbank",
            "a page that does not exist: {before:?}"
        );
        rest = &rest[at + 3..];
    }
    // No `clientbank-parse`: neither a program nor a page of that name exists (the demo's
    // folder `clientbank-demo` in an example is no page).
    assert!(
        !page
            .replace("clientbank\\-demo", "")
            .contains("clientbank\\-"),
        "{page}"
    );
    assert!(
        !page.contains("CLIENTBANK\\-") && !page.contains("CLIENTBANK-"),
        "{page}"
    );
    for sub in ["parse", "check", "watch", "status", "login"] {
        let section = format!(".SH \"CLIENTBANK {}\"", sub.to_uppercase());
        assert!(page.contains(&section), "{section}");
        assert!(page.contains(&format!("\\fBclientbank {sub}\\fR")), "{sub}");
    }
    assert!(page.contains(".SH CONFIGURATION"), "{page}");
    assert!(page.contains(".SH FILES"), "{page}");
    // Every key of the template, as a commented assignment with its default.
    let keys: Vec<&str> = clientbank_watch::init::TEMPLATE
        .lines()
        .filter_map(|line| line.strip_prefix("# "))
        .filter(|line| {
            line.split_once(" = ").is_some_and(|(key, _)| {
                !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            })
        })
        .collect();
    assert!(keys.len() > 20, "{keys:?}");
    for line in keys {
        let shown = line.replace('\\', "\\e").replace('-', "\\-");
        assert!(page.contains(&shown), "{line:?} not in the man page");
    }
}

/// Rust names of the libraries' types are not for people.
#[test]
fn no_internal_names_in_any_output() {
    let mut names: Vec<String> = ["Utf8Content", "SingleByteKeys", "Ascii", "Cp1251", "Cp866"]
        .map(String::from)
        .to_vec();
    names.extend(
        clientbank_payment::Code::ALL
            .iter()
            .map(|c| format!("{c:?}"))
            .filter(|n| n.chars().skip(1).any(char::is_uppercase)),
    );
    let mut files = Vec::new();
    for dir in ["valid", "odd", "invalid", "payments", "corpus-like"] {
        for entry in std::fs::read_dir(testdata(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path
                .extension()
                .is_some_and(|e| e != "expected" && e != "tsv" && e != "md")
            {
                files.push(path.display().to_string());
            }
        }
    }
    files.sort();
    for file in &files {
        for args in [
            vec!["parse", file.as_str()],
            vec!["check", "--today", TODAY, file.as_str()],
            vec![
                "convert",
                "--today",
                TODAY,
                file.as_str(),
                "-o",
                "-",
                "--force",
            ],
        ] {
            let output = clientbank(&args);
            let all = text(&output.stdout) + &text(&output.stderr);
            for name in &names {
                assert!(
                    !all.contains(name.as_str()),
                    "{args:?} shows {name}:\n{all}"
                );
            }
        }
    }
}

/// A file with one line of `invalid/invalid-sum-comma.txt` replaced.
fn with_line(dir: &tempfile::TempDir, name: &str, from: &str, to: &str) -> String {
    let bytes = std::fs::read(testdata("invalid/invalid-sum-comma.txt")).unwrap();
    let cp1251 = |s: &str| -> Vec<u8> {
        s.chars()
            .map(|c| match c {
                'А'..='я' => (c as u32 - 'А' as u32 + 0xC0) as u8,
                c => c as u8,
            })
            .collect()
    };
    let (from, to) = (cp1251(from), cp1251(to));
    let at = bytes
        .windows(from.len())
        .position(|w| w == from.as_slice())
        .unwrap_or_else(|| panic!("{name}: the line is not in the file"));
    let mut changed = bytes[..at].to_vec();
    changed.extend(&to);
    changed.extend(&bytes[at + from.len()..]);
    let path = dir.path().join(name);
    std::fs::write(&path, changed).unwrap();
    path.display().to_string()
}

#[test]
fn one_defect_is_one_finding() {
    let dir = tempfile::tempdir().unwrap();
    // (file, the line, its one code, severity, exit)
    let cases = [
        (
            testdata("invalid/invalid-sum-comma.txt"),
            15,
            "invalid-sum",
            "error",
            1,
        ),
        (
            with_line(&dir, "sum-text.txt", "Сумма=175000,00", "Сумма=сто"),
            15,
            "invalid-sum",
            "error",
            1,
        ),
        (
            with_line(
                &dir,
                "sum-negative.txt",
                "Сумма=175000,00",
                "Сумма=-175000.00",
            ),
            15,
            "invalid-sum",
            "error",
            1,
        ),
        (
            with_line(&dir, "sum-empty.txt", "Сумма=175000,00", "Сумма="),
            15,
            "empty-value",
            "error",
            1,
        ),
        (
            with_line(&dir, "number-empty.txt", "Номер=101", "Номер="),
            13,
            "empty-value",
            "error",
            1,
        ),
        (
            testdata("invalid/invalid-date.txt"),
            14,
            "invalid-date",
            "error",
            1,
        ),
    ];
    for (file, line, code, severity, exit) in cases {
        let output = clientbank(&["check", "--json", "--today", TODAY, &file]);
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        let at_line: Vec<&Value> = report["files"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["line"] == line)
            .collect();
        assert_eq!(at_line.len(), 1, "{file}: {at_line:?}");
        assert_eq!(at_line[0]["code"], code, "{file}");
        assert_eq!(
            at_line[0]["severity"], severity,
            "{file}: the worse of the two"
        );
        assert_eq!(output.status.code(), Some(exit), "{file}");
        // convert says it once too.
        let converted = clientbank(&["convert", "--today", TODAY, &file]);
        let stderr = text(&converted.stderr);
        assert_eq!(
            stderr.matches(&format!(":{line}:")).count(),
            1,
            "{file}: {stderr}"
        );
    }
    // Outside a payment order (a bank order) an empty sum stays the format's warning.
    let statement = testdata("odd/empty-value.txt");
    let output = clientbank(&["check", "--json", &statement]);
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn a_missing_openssl_is_named() {
    use std::io::{BufRead, BufReader};
    let empty = tempfile::tempdir().unwrap();
    let mut child = command(&["sandbox", "--addr", "127.0.0.1:0"])
        .env("PATH", empty.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let first = BufReader::new(stderr).lines().next();
    child.kill().ok();
    child.wait().ok();
    let first = first.expect("a warning").unwrap();
    assert!(
        first.starts_with("warning: the `openssl` program was not found on the PATH"),
        "{first}"
    );
}

#[test]
fn no_progress_bar_when_piped() {
    let file = testdata("valid/payment-orders-cp1251-crlf.txt");
    let output = clientbank(&["check", &file]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stderr.is_empty(),
        "quiet on success: {}",
        text(&output.stderr)
    );
    let output = clientbank(&["convert", "--today", TODAY, &file, "-o", "-"]);
    assert!(
        !text(&output.stderr).contains('\r'),
        "no bar: {}",
        text(&output.stderr)
    );
}

/// What a person sees on a terminal (`script`) when the shell runs `line` (the binary's path
/// first); `None`, said in one line, where there is no `script` to make a terminal.
fn on_a_terminal(line: &str) -> Option<String> {
    if Command::new("script").arg("--version").output().is_err() {
        println!("skipped: the `script` command (a terminal for the test) is missing");
        return None;
    }
    let output = Command::new("script")
        .args(["-qec", line, "/dev/null"])
        .env("LANG", "C.UTF-8")
        .output()
        .unwrap();
    Some(text(&output.stdout))
}

#[test]
fn a_progress_bar_on_a_terminal_for_long_work() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    // A terminal on stderr, the report to a file: the bar is drawn (and cleared).
    let line = format!(
        "{} convert --today {TODAY} {} -o {}",
        env!("CARGO_BIN_EXE_clientbank"),
        testdata("valid/payment-orders-cp1251-crlf.txt"),
        out.display()
    );
    let Some(shown) = on_a_terminal(&line) else {
        return;
    };
    assert!(
        shown.contains("converting") || shown.contains("reading"),
        "{shown:?}"
    );
    let requests: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(requests.as_array().map(Vec::len), Some(3));
}

/// Issue 19 item 9: `check` lists findings in file order, whoever found them (the reader's
/// unknown key of line 41 after the payment rules' wrong INN of line 27, not before it).
#[test]
fn check_lists_findings_in_file_order() {
    let original = std::fs::read(testdata("drops/with-error.txt")).unwrap();
    let text = clientbank_format::Encoding::Cp1251
        .decode(&original)
        .into_owned();
    let text = text.replacen("Очередность=5", "Очередность=5\r\nНеизвестныйКлюч=1", 1);
    let bytes = clientbank_format::Encoding::Cp1251.encode(&text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("order.txt");
    std::fs::write(&file, bytes.as_ref()).unwrap();
    let output = clientbank(&[
        "check",
        "--json",
        "--today",
        "20.11.2026",
        file.to_str().unwrap(),
    ]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let lines: Vec<u64> = report["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["line"].as_u64())
        .collect();
    assert!(lines.len() >= 2, "{report}");
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "{report}");
    let codes: Vec<&str> = report["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["inn-check-digit", "unknown-key"], "{report}");
}

/// Issue 19 item 9: `check` lists every file's findings in file order — by line, then column —
/// also where the reader finds one only later (a section left open is said at the end of the
/// input, at the line that opened it) and where one line has several. Every file of testdata/.
#[test]
fn findings_come_in_file_order() {
    let root = PathBuf::from(testdata(""));
    let mut files = Vec::new();
    let mut folders = vec![root];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "txt" || e == "json") {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 20, "{files:?}");
    let mut checked = 0;
    for file in &files {
        let out = clientbank(&["check", "--json-lines", file.to_str().unwrap()]);
        // A finding about a whole line (no column) is in order anywhere on its line.
        let (mut last_line, mut last_column) = (0, 0);
        for line in text(&out.stdout).lines() {
            let finding: Value = serde_json::from_str(line).unwrap();
            let (Some(at), column) = (finding["line"].as_u64(), finding["column"].as_u64()) else {
                continue;
            };
            let shown = file.display();
            assert!(at >= last_line, "{shown}: line {at} after {last_line}");
            if at > last_line {
                (last_line, last_column) = (at, 0);
            }
            if let Some(column) = column {
                assert!(
                    column >= last_column,
                    "{shown}: {at}:{column} after {at}:{last_column}"
                );
                last_column = column;
            }
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked} findings looked at");
}

/// Issue 19 item 8: a file the system cannot give is said in Russian to the last word — what
/// could not be done and the system's reason in words with its code — by every command that
/// reads files and by the output that cannot be written.
#[test]
fn the_systems_refusals_are_said_in_russian() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("нет.txt");
    let missing = missing.to_str().unwrap();
    let folder = dir.path().to_str().unwrap();
    let nowhere = dir.path().join("нет-папки").join("out.json");
    let valid = testdata("valid/payment-orders-cp1251-crlf.txt");
    for args in [
        vec!["--lang", "ru", "check", missing],
        vec!["--lang", "ru", "parse", missing],
        vec!["--lang", "ru", "check", folder],
        vec![
            "--lang",
            "ru",
            "convert",
            "--today",
            "15.11.2026",
            &valid,
            "-o",
            nowhere.to_str().unwrap(),
        ],
    ] {
        let out = clientbank(&args);
        let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
        assert!(said.contains("(ошибка системы "), "{args:?}: {said}");
        for english in ["No such file", "Is a directory", "os error", "at path"] {
            assert!(!said.contains(english), "{args:?}: {english} in {said}");
        }
    }
}

/// Issue 19: an account file that is not one is said in Russian words, with its place.
#[test]
fn a_bad_account_file_is_said_in_russian() {
    let dir = tempfile::tempdir().unwrap();
    let payer = dir.path().join("payer.json");
    std::fs::write(&payer, "{\"account\": 5}").unwrap();
    let requests = testdata("valid/upload-requests.json");
    let out = clientbank(&[
        "--lang",
        "ru",
        "convert",
        "--today",
        "15.11.2026",
        &requests,
        "--payer-from",
        payer.to_str().unwrap(),
        "-o",
        dir.path().join("out.txt").to_str().unwrap(),
    ]);
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("это не файл счёта: неверный тип значения")
            && said.contains("(строка 1, столбец "),
        "{said}"
    );
    assert!(
        !said.contains("invalid type") && !said.contains("at line"),
        "{said}"
    );
}

/// An unreadable file's error is said once where a person reads it: on a terminal (stdout and
/// stderr the same screen) the report's line only; with the report sent to a file, once in the
/// report and once on the terminal.
#[test]
fn an_unreadable_file_is_said_once_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.txt");
    let report = dir.path().join("report.txt");
    let on_terminal = |redirect: &str| {
        let line = format!(
            "{} --color never check {}{redirect}",
            env!("CARGO_BIN_EXE_clientbank"),
            missing.display()
        );
        on_a_terminal(&line)
    };
    let said = |shown: &str| shown.matches("cannot read").count();
    let Some(screen) = on_terminal("") else {
        return;
    };
    assert_eq!(said(&screen), 1, "{screen}");
    assert!(screen.contains("unreadable"), "{screen}");
    let screen = on_terminal(&format!(" > {}", report.display())).unwrap_or_default();
    assert_eq!(said(&screen), 1, "{screen}");
    let written = std::fs::read_to_string(&report).unwrap();
    assert_eq!(said(&written), 1, "{written}");
}
