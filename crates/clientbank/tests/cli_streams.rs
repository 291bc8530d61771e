//! Issue 9 item 5: standard streams, JSON Lines, and `convert`'s refusals, re-encoding,
//! `--json`, `--strict` and `--payer-from` (read back by odin_palace).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const TODAY: &str = "20.11.2026";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn testdata(path: &str) -> String {
    root().join("testdata").join(path).display().to_string()
}

fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clientbank"));
    command
        .args(args)
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "C.UTF-8")
        .env_remove("CLICOLOR_FORCE");
    command
}

fn clientbank(args: &[&str]) -> Output {
    command(args).output().expect("the binary runs")
}

/// `convert --today TODAY INPUT -o OUTPUT`, to run (`-` as the input reads standard input).
fn convert_to(input: &str, output: &Path) -> Command {
    command(&[
        "convert",
        "--today",
        TODAY,
        input,
        "-o",
        output.to_str().unwrap(),
    ])
}

/// Runs with `stdin` on standard input.
fn clientbank_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    text(bytes)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn a_dash_reads_standard_input() {
    for file in [
        "invalid/invalid-sum-comma.txt",
        "valid/upload-requests.json",
    ] {
        let path = testdata(file);
        let bytes = std::fs::read(&path).unwrap();
        let from_file = clientbank(&["check", "--json", "--today", TODAY, &path]);
        let from_stdin = clientbank_stdin(&["check", "--json", "--today", TODAY, "-"], &bytes);
        assert_eq!(code(&from_file), code(&from_stdin), "{file}");
        let mut a: Value = serde_json::from_slice(&from_file.stdout).unwrap();
        let b: Value = serde_json::from_slice(&from_stdin.stdout).unwrap();
        assert_eq!(b["files"][0]["file"], "<stdin>");
        a["files"][0]["file"] = "<stdin>".into();
        assert_eq!(a, b, "{file}");
    }
    let bytes = std::fs::read(testdata("odd/unknown-key.txt")).unwrap();
    let parsed = clientbank_stdin(&["parse", "--json", "-"], &bytes);
    assert_eq!(code(&parsed), 0);
    let value: Value = serde_json::from_slice(&parsed.stdout).unwrap();
    assert_eq!(value["documents"][0]["type"], "Платежное поручение");
    // 1C from standard input to JSON on standard output.
    let bytes = std::fs::read(testdata("valid/payment-orders-cp1251-crlf.txt")).unwrap();
    let converted = clientbank_stdin(&["convert", "--today", TODAY, "-", "-o", "-"], &bytes);
    let requests: Value = serde_json::from_slice(&converted.stdout).unwrap();
    assert_eq!(requests.as_array().map(Vec::len), Some(3));
    // Standard input is read once.
    let twice = clientbank_stdin(&["check", "-", "-"], b"");
    assert_eq!(code(&twice), 2);
    assert!(
        text(&twice.stderr).starts_with("error: `-`"),
        "{}",
        text(&twice.stderr)
    );
}

#[test]
fn json_lines_hold_what_the_json_object_holds() {
    let files = [
        testdata("odd/key-case.txt"),
        testdata("invalid/empty.txt"),
        testdata("payments/inn-check-digit.txt"),
    ];
    let mut args = vec!["check", "--today", TODAY, "--json"];
    args.extend(files.iter().map(String::as_str));
    let object = clientbank(&args);
    args[3] = "--json-lines";
    let jsonl = clientbank(&args);
    assert_eq!(code(&object), code(&jsonl));
    let object: Value = serde_json::from_slice(&object.stdout).unwrap();
    let records = lines(&jsonl.stdout);
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.last(), Some(&"summary"));
    assert_eq!(kinds.iter().filter(|k| **k == "file").count(), 3);
    for (i, file) in object["files"].as_array().unwrap().iter().enumerate() {
        let name = file["file"].as_str().unwrap();
        let mut diagnostics: Vec<Value> = records
            .iter()
            .filter(|r| r["kind"] == "diagnostic" && r["file"] == name)
            .cloned()
            .collect();
        for d in &mut diagnostics {
            let d = d.as_object_mut().unwrap();
            d.remove("kind");
            d.remove("file");
        }
        assert_eq!(
            &Value::from(diagnostics),
            &file["diagnostics"],
            "{i}: {name}"
        );
        let summary = records
            .iter()
            .find(|r| r["kind"] == "file" && r["file"] == name)
            .unwrap();
        assert_eq!(summary["readable"], file["readable"]);
        assert_eq!(summary["encoding"], file["encoding"]);
    }
    let total = records.last().unwrap();
    assert_eq!(total["errors"], object["errors"]);
    assert_eq!(total["warnings"], object["warnings"]);
    assert_eq!(total["files"], 3);

    // parse: one line per section and finding, in the object's order.
    let path = testdata("odd/unknown-key.txt");
    let object: Value =
        serde_json::from_slice(&clientbank(&["parse", "--json", &path]).stdout).unwrap();
    let records = lines(&clientbank(&["parse", "--json-lines", &path]).stdout);
    assert_eq!(records[0]["kind"], "file");
    assert_eq!(records[0]["encoding"], object["encoding"]);
    assert_eq!(records[1]["kind"], "header");
    assert_eq!(records[1]["fields"], object["header"]);
    let documents: Vec<&Value> = records.iter().filter(|r| r["kind"] == "document").collect();
    assert_eq!(
        documents.len(),
        object["documents"].as_array().unwrap().len()
    );
    assert_eq!(documents[0]["fields"], object["documents"][0]["fields"]);
    assert_eq!(documents[0]["line"], object["documents"][0]["line"]);
    let diagnostics = records.iter().filter(|r| r["kind"] == "diagnostic").count();
    assert_eq!(diagnostics, object["diagnostics"].as_array().unwrap().len());
    // A refused file: its file line and its one finding; exit 2.
    let refused = clientbank(&[
        "parse",
        "--json-lines",
        &testdata("invalid/mixed-encoding.txt"),
    ]);
    assert_eq!(code(&refused), 2);
    let records = lines(&refused.stdout);
    assert_eq!(records.len(), 2);
    assert_eq!(records[1]["code"], "mixed-encoding");
}

#[test]
fn convert_never_writes_over_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("orders.txt");
    let original = std::fs::read(testdata("valid/payment-orders-cp1251-crlf.txt")).unwrap();
    std::fs::write(&input, &original).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let same = [
        input.clone(),
        dir.path().join("sub/../orders.txt"),
        dir.path().join("./orders.txt"),
    ];
    for output in &same {
        let out = convert_to(input.to_str().unwrap(), output)
            .output()
            .unwrap();
        assert_eq!(code(&out), 2, "{}", output.display());
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with("error: ") && stderr.contains("is the input file"),
            "{stderr}"
        );
        assert_eq!(
            std::fs::read(&input).unwrap(),
            original,
            "the input is untouched"
        );
    }
    // `convert - -o orders.txt < orders.txt`: standard input is the output's file.
    let out = convert_to("-", &input)
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("is the input file"));
    assert_eq!(std::fs::read(&input).unwrap(), original, "stdin untouched");
    // From another file on standard input, the same output is written.
    let other = dir.path().join("other.txt");
    std::fs::write(&other, &original).unwrap();
    let out = convert_to("-", &dir.path().join("out.json"))
        .stdin(std::fs::File::open(&other).unwrap())
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
}

/// `convert` of a bank statement tells every key its upload requests lose but the bank's own
/// marks (`ДатаСписано`, `ДатаПоступило`): nothing is dropped silently. `check` says none of it.
#[test]
fn convert_of_a_statement_tells_what_it_drops() {
    let original = std::fs::read(testdata("valid/statement-cp866-crlf.txt")).unwrap();
    // CP866: `Номер=554`, then a key of our own and an indirect settlement's payer line.
    let cp866 = |text: &str| -> Vec<u8> {
        text.chars()
            .map(|c| match c {
                'А'..='П' => (c as u32 - 'А' as u32 + 0x80) as u8,
                'а'..='п' => (c as u32 - 'а' as u32 + 0xA0) as u8,
                'Р'..='Я' => (c as u32 - 'Р' as u32 + 0x90) as u8,
                'р'..='я' => (c as u32 - 'р' as u32 + 0xE0) as u8,
                c => u8::try_from(c).expect("ASCII"),
            })
            .collect()
    };
    let after = cp866("Номер=554\r\n");
    let at = original
        .windows(after.len())
        .position(|w| w == after.as_slice())
        .expect("the statement's first record")
        + after.len();
    let mut bytes = original[..at].to_vec();
    bytes.extend(cp866("МойКлюч=важное\r\nПлательщик2=р/с 123\r\n"));
    bytes.extend_from_slice(&original[at..]);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("statement.txt");
    std::fs::write(&input, &bytes).unwrap();
    let out = clientbank(&["convert", "--today", TODAY, input.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    for key in ["МойКлюч", "Плательщик2"] {
        assert!(
            stderr.contains("warning[not-carried]") && stderr.contains(key),
            "{key}: {stderr}"
        );
    }
    for mark in ["ДатаСписано", "ДатаПоступило"] {
        assert!(!stderr.contains(mark), "the bank's mark {mark}: {stderr}");
    }
    assert!(!text(&out.stdout).contains("важное"));
    let checked = clientbank(&["check", "--today", TODAY, input.to_str().unwrap()]);
    assert!(!text(&checked.stdout).contains("not-carried"));
}

/// Stopped while it writes `-o` (Ctrl-C, a closed terminal, `kill`), `convert` leaves no
/// temporary file beside the output, and the output as it was; it ends as a stopped process
/// (130, 129, 143).
#[cfg(unix)]
#[test]
fn convert_stopped_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.txt");
    std::fs::write(&input, big_statement(60_000)).unwrap();
    let output = dir.path().join("out.json");
    let temporaries = || {
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .count()
    };
    // `convert` to `output` (which says "old"), stopped by `signal` once its temporary file
    // is there, while it converts; how it ended.
    let stopped = |signal: &str, threads: Option<&str>| {
        std::fs::write(&output, b"old").unwrap();
        let mut command = convert_to(input.to_str().unwrap(), &output);
        if let Some(threads) = threads {
            command.env("CLIENTBANK_THREADS", threads);
        }
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while temporaries() == 0 {
            assert!(
                child.try_wait().unwrap().is_none(),
                "finished before it could be stopped: make the input bigger"
            );
            assert!(started.elapsed().as_secs() < 60, "no temporary file made");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let killed = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        child.wait().unwrap()
    };
    for (signal, expected) in [("INT", 130), ("HUP", 129), ("TERM", 143)] {
        let status = stopped(signal, None);
        assert_eq!(status.code(), Some(expected), "{signal}: {status:?}");
        assert_eq!(temporaries(), 0, "{signal}: a temporary file is left");
        assert_eq!(std::fs::read(&output).unwrap(), b"old", "{signal}");
    }
    // Without a thread to take the stops over (`CLIENTBANK_THREADS=1`), Ctrl-C ends it as the
    // system does: never swallowed. The output is as it was.
    use std::os::unix::process::ExitStatusExt;
    let status = stopped("INT", Some("1"));
    assert_eq!(status.signal(), Some(2), "ended by the signal: {status:?}");
    assert_eq!(std::fs::read(&output).unwrap(), b"old");
}

/// `-o` a pipe (or a device): written as it goes, never replaced by a file (as root, `-o
/// /dev/null` once left a file as `/dev/null`); `-o` a link: its file is replaced, the link
/// stays.
#[cfg(unix)]
#[test]
fn convert_writes_through_pipes_and_links() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let input = testdata("valid/payment-orders-cp1251-crlf.txt");
    let args = |output: &Path| {
        let out = convert_to(&input, output).output().unwrap();
        assert_eq!(code(&out), 0, "{}", text(&out.stderr));
    };
    let is_link = |path: &Path| {
        std::fs::symlink_metadata(path)
            .unwrap()
            .file_type()
            .is_symlink()
    };
    let expected = clientbank(&["convert", "--today", TODAY, &input]).stdout;
    assert!(expected.starts_with(b"[\n"), "{}", text(&expected));
    let pipe = dir.path().join("pipe");
    if Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .is_ok_and(|s| s.success())
    {
        let reader = {
            let pipe = pipe.clone();
            std::thread::spawn(move || std::fs::read(pipe).unwrap())
        };
        args(&pipe);
        assert_eq!(reader.join().unwrap(), expected);
        let kind = std::fs::symlink_metadata(&pipe).unwrap().file_type();
        assert!(kind.is_fifo(), "the pipe is still a pipe");
    } else {
        println!("skipped the pipe: `mkfifo` is missing");
    }
    let file = dir.path().join("requests.json");
    std::fs::write(&file, b"old").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    args(&link);
    assert!(is_link(&link));
    assert_eq!(std::fs::read(&file).unwrap(), expected);
    // A link to a file not made yet: the file is made where the link points (in a folder of
    // its own, by a relative path), and the link stays a link.
    std::fs::create_dir(dir.path().join("there")).unwrap();
    let dangling = dir.path().join("dangling.json");
    std::os::unix::fs::symlink("there/new.json", &dangling).unwrap();
    args(&dangling);
    assert!(is_link(&dangling));
    assert_eq!(
        std::fs::read(dir.path().join("there/new.json")).unwrap(),
        expected
    );
    // Links naming each other: refused, and neither is replaced.
    let (one, two) = (dir.path().join("one.json"), dir.path().join("two.json"));
    std::os::unix::fs::symlink(&two, &one).unwrap();
    std::os::unix::fs::symlink(&one, &two).unwrap();
    let out = convert_to(&input, &one).output().unwrap();
    assert_ne!(code(&out), 0);
    assert!(
        text(&out.stderr).contains("symbolic links"),
        "{}",
        text(&out.stderr)
    );
    for link in [&one, &two] {
        assert!(is_link(link), "{} is still a link", link.display());
    }
}

#[test]
fn convert_refuses_single_byte_output_on_a_terminal() {
    if Command::new("script").arg("--version").output().is_err() {
        println!("skipped: the `script` command (a terminal for the test) is missing");
        return;
    }
    let run = |extra: &str| {
        let line = format!(
            "{} convert --today {TODAY} {} --to 1c{extra}",
            env!("CARGO_BIN_EXE_clientbank"),
            testdata("valid/upload-requests.json")
        );
        Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    let refused = run("");
    assert_eq!(code(&refused), 2);
    assert!(
        text(&refused.stdout).contains("error: not writing CP1251 bytes to a terminal"),
        "{}",
        text(&refused.stdout)
    );
    let utf8 = run(" --encoding utf-8");
    assert!(
        text(&utf8.stdout).contains("1CClientBankExchange"),
        "UTF-8 is text"
    );
    let forced = run(" --force");
    assert!(!text(&forced.stdout).contains("not writing"));
}

#[test]
fn convert_writes_a_1c_file_anew_in_another_encoding() {
    let dir = tempfile::tempdir().unwrap();
    for source in [
        "corpus-like/to-bank-one-order-1.01-utf8.txt",
        "corpus-like/statement-payment-orders-1.03-utf8-bom-crlf.txt",
    ] {
        let out = dir.path().join("windows.txt");
        let converted = clientbank(&[
            "convert",
            "--today",
            TODAY,
            &testdata(source),
            "--to",
            "1c",
            "--encoding",
            "windows",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(
            code(&converted) < 2,
            "{source}: {}",
            text(&converted.stderr)
        );
        let before: Value =
            serde_json::from_slice(&clientbank(&["parse", "--json", &testdata(source)]).stdout)
                .unwrap();
        let after: Value =
            serde_json::from_slice(&clientbank(&["parse", "--json", out.to_str().unwrap()]).stdout)
                .unwrap();
        assert_eq!(before["encoding"], "utf-8");
        assert_eq!(after["encoding"], "cp1251", "{source}");
        let header = &after["header"];
        assert!(
            header
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f == &serde_json::json!(["Кодировка", "Windows"])),
            "{header}"
        );
        let bytes = std::fs::read(&out).unwrap();
        assert!(bytes.windows(2).any(|w| w == b"\r\n"), "CRLF");
        let documents = |v: &Value| v["documents"].as_array().unwrap().len();
        assert_eq!(documents(&before), documents(&after), "{source}");
        // Every value of every document is still there, in CP1251 now.
        for (a, b) in before["documents"]
            .as_array()
            .unwrap()
            .iter()
            .zip(after["documents"].as_array().unwrap())
        {
            for field in a["fields"].as_array().unwrap() {
                let value = field[1].as_str().unwrap().trim();
                if value.is_empty() {
                    continue;
                }
                let found = b["fields"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|f| f[0] == field[0] && f[1].as_str().unwrap().trim() == value);
                assert!(found, "{source}: {field} lost");
            }
        }
    }
}

#[test]
fn convert_findings_as_json_and_strict() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let source = testdata("valid/upload-requests.json");
    let args = [
        "convert",
        "--today",
        TODAY,
        &source,
        "-o",
        out.to_str().unwrap(),
    ];
    let plain = clientbank(&args);
    assert_eq!(code(&plain), 0, "payer-unknown is a warning");
    assert!(text(&plain.stderr).contains("warning[payer-unknown]"));
    let mut json = args.to_vec();
    json.push("--json");
    let json = clientbank(&json);
    assert_eq!(code(&json), 0);
    assert!(json.stdout.is_empty());
    let records = lines(&json.stderr);
    assert_eq!(records[0]["kind"], "diagnostic");
    assert_eq!(records[0]["code"], "payer-unknown");
    assert_eq!(records[0]["field"], "PayerAccount");
    assert_eq!(records[0]["found"], "40702810938000012345");
    assert_eq!(records.last().unwrap()["kind"], "file");
    assert_eq!(
        records.last().unwrap()["warnings"],
        2,
        "payer-unknown, recipient-bank-unknown"
    );
    let mut strict = args.to_vec();
    strict.push("--strict");
    let strict = clientbank(&strict);
    assert_eq!(code(&strict), 1, "with --strict a warning fails");
    assert!(text(&strict.stderr).contains("error[payer-unknown]"));
}

/// JSON upload requests: the three of `valid/upload-requests.json` (ordinary, budget, third
/// party), `copies` times with numbers of their own.
fn requests(dir: &Path, copies: usize) -> PathBuf {
    let source: Value =
        serde_json::from_slice(&std::fs::read(testdata("valid/upload-requests.json")).unwrap())
            .unwrap();
    let mut all = Vec::new();
    for copy in 0..copies {
        for request in source.as_array().unwrap() {
            let mut request = request.clone();
            request["payment"]["Number"] = Value::String((all.len() + 1).to_string());
            all.push(request);
        }
        let _ = copy;
    }
    let path = dir.join("requests.json");
    std::fs::write(&path, serde_json::to_vec(&all).unwrap()).unwrap();
    path
}

const PAYER: &str = r#"account = "40702810938000012345"
name = "ООО \"Ромашка\""
inn = "7701234560"
kpp = "770101001"
bank = "ПАО СБЕРБАНК"
bank_city = "г. Москва"
bik = "044525225"
corr_account = "30101810400000000225"
"#;

#[test]
fn odin_palace_reads_every_document_convert_writes_with_the_payer() {
    let dir = tempfile::tempdir().unwrap();
    let source = requests(dir.path(), 200);
    let payer = dir.path().join("payer.toml");
    std::fs::write(&payer, PAYER).unwrap();
    let parser = odin_palace::parser::ParserBuilder::new().build();
    // odin_palace reads CP1251 and UTF-8 (not CP866).
    for encoding in ["windows", "utf-8"] {
        let out = dir.path().join(format!("1c-{encoding}.txt"));
        let converted = clientbank(&[
            "convert",
            "--today",
            TODAY,
            source.to_str().unwrap(),
            "--payer-from",
            payer.to_str().unwrap(),
            "--encoding",
            encoding,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code(&converted), 0, "{}", text(&converted.stderr));
        assert!(
            !text(&converted.stderr).contains("payer-unknown"),
            "{}",
            text(&converted.stderr)
        );
        let statement = parser
            .parse(&std::fs::read(&out).unwrap())
            .unwrap_or_else(|e| panic!("{encoding}: {e:?}"));
        let first_warnings: Vec<_> = statement.warnings.iter().take(3).collect();
        assert_eq!(
            statement.documents.len(),
            600,
            "{encoding}: {first_warnings:?}"
        );
        assert!(statement.warnings.is_empty(), "{first_warnings:?}");
        let first = &statement.documents[0];
        assert_eq!(first.counterparty_inn, "7701234560");
        assert_eq!(first.counterparty_bic, "044525225");
        // The third party's INN stays in ПлательщикИНН of a third-party payment.
        assert_eq!(statement.documents[2].counterparty_inn, "500100732259");
        // And `check` finds the file as good as the requests.
        let check = clientbank(&["check", "--today", TODAY, out.to_str().unwrap()]);
        assert_eq!(code(&check), 0, "{}", text(&check.stdout));
    }
    // Without the payer: a finding, never a key silently absent (and odin_palace reads none).
    let out = dir.path().join("no-payer.txt");
    let converted = clientbank(&[
        "convert",
        "--today",
        TODAY,
        source.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let stderr = text(&converted.stderr);
    assert_eq!(code(&converted), 0, "warnings");
    assert_eq!(
        stderr.matches("warning[payer-unknown]").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("in 600 payment(s)"), "{stderr}");
    // The payee's bank name is never in JSON: one finding for the file.
    assert_eq!(
        stderr.matches("warning[recipient-bank-unknown]").count(),
        1,
        "{stderr}"
    );
    let parsed: Value =
        serde_json::from_slice(&clientbank(&["parse", "--json", out.to_str().unwrap()]).stdout)
            .unwrap();
    let fields = &parsed["documents"][0]["fields"];
    for key in [
        "ПлательщикИНН",
        "ПлательщикБИК",
        "ПлательщикБанк1",
        "ПолучательБанк1",
    ] {
        assert!(
            fields
                .as_array()
                .unwrap()
                .contains(&serde_json::json!([key, ""])),
            "{key} is written, empty: {fields}"
        );
    }
    // A bad account file is refused with its place, exit 2, and nothing is written.
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, PAYER.replace("bik", "bic")).unwrap();
    let out = dir.path().join("not-written.txt");
    let refused = clientbank(&[
        "convert",
        source.to_str().unwrap(),
        "--payer-from",
        bad.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&refused), 2);
    assert!(
        text(&refused.stderr).starts_with("error: "),
        "{}",
        text(&refused.stderr)
    );
    assert!(
        text(&refused.stderr).contains("bad.toml:7:1"),
        "{}",
        text(&refused.stderr)
    );
    assert!(!out.exists());
}

/// Printing never panics (`println!` does, on a stream that fails): standard output whose
/// reader is gone (`| head -1`) ends the run quietly with its own exit code; standard error on
/// a full disk (`2>/dev/full`) is ignored, the log lines with it, and the summary printed.
#[cfg(unix)]
#[test]
fn a_closed_stdout_or_a_full_stderr_never_makes_it_panic() {
    let root = tempfile::tempdir().unwrap();
    let demo = |name: &str| {
        let dir = root.path().join(name);
        let mut command = command(&["--lang", "ru", "watch", "--sandbox", "--once", "--demo"]);
        command.arg(dir).env("RUST_LOG", "info");
        command
    };
    // Standard output: a pipe whose reader is closed before the program starts.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = demo("closed")
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(!said.contains("panicked"), "{said}");
    assert!(
        !said.contains("Broken pipe") && !said.contains("канал"),
        "{said}"
    );
    // Standard error on a full disk.
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped the full stderr: no /dev/full here");
        return;
    };
    let out = demo("full").stderr(full).output().unwrap();
    let said = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(!said.contains("panicked"), "{said}");
    assert!(said.contains("done/       файлов: 2"), "{said}");
}

/// A statement of `documents` payment orders (each one with findings), CP1251 and CRLF, big
/// enough past a few thousand documents for every part of a command to use a second thread.
fn big_statement(documents: u32) -> Vec<u8> {
    let mut text = String::from(
        "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
         РасчСчет=40702810938000012345\r\n",
    );
    for n in 1..=documents {
        text.push_str(&format!(
            "СекцияДокумент=Платежное поручение\r\nНомер={n}\r\nДата=15.11.2026\r\n\
             Сумма={n}.50\r\nПлательщикСчет=40702810938000012345\r\nДатаСписано=15.11.2026\r\n\
             Плательщик1=ООО \"Ромашка\"\r\nПлательщикИНН=7701234560\r\nПлательщикКПП=770101001\r\n\
             ПлательщикБИК=044525225\r\nПлательщикКорсчет=30101810400000000225\r\n\
             ПолучательСчет=40702810{n:012}\r\nПолучатель1=ООО \"Лютик\" {n}\r\n\
             ПолучательИНН=5009876546\r\nПолучательБИК=044525974\r\n\
             ПолучательКорсчет=30101810145250000974\r\nВидОплаты=01\r\nОчередность=5\r\n\
             НазначениеПлатежа=Оплата по счёту № {n} от 14.11.2026, в т.ч. НДС 20% - {n}.00 руб.\r\n\
             КонецДокумента\r\n"
        ));
    }
    text.push_str("КонецФайла\r\n");
    clientbank_format::Encoding::Cp1251
        .encode(&text)
        .unwrap()
        .into_owned()
}

/// Where no second thread can be had (`CLIENTBANK_THREADS=1`, as where the system refuses
/// them), every command says and writes exactly what it does with them: reading the file in
/// two halves, grouping it in two, making the items and the JSON ahead all fall back to the
/// one thread.
#[test]
fn one_thread_gives_the_same_as_many() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.txt");
    // Past 32 MiB: read in two halves; past 4 MiB: grouped in two.
    let bytes = big_statement(60_000);
    assert!(bytes.len() > 33 << 20, "{}", bytes.len());
    std::fs::write(&input, &bytes).unwrap();
    let input = input.display().to_string();
    for args in [
        &["check", "--today", TODAY][..],
        &["check", "--today", TODAY, "--json"],
        &["parse", "--json"],
        &["convert", "--today", TODAY, "--force"],
    ] {
        let args: Vec<&str> = args.iter().copied().chain([input.as_str()]).collect();
        let many = clientbank(&args);
        let one = command(&args)
            .env("CLIENTBANK_THREADS", "1")
            .output()
            .unwrap();
        assert!(many.stdout.len() > 1000, "{args:?}");
        assert_eq!(one.status.code(), many.status.code(), "{args:?}");
        assert!(
            one.stdout == many.stdout,
            "{args:?}: standard output differs"
        );
        assert_eq!(
            String::from_utf8_lossy(&one.stderr),
            String::from_utf8_lossy(&many.stderr),
            "{args:?}"
        );
    }
    let (many, one) = (dir.path().join("many.json"), dir.path().join("one.json"));
    for (out, threads) in [(&many, None), (&one, Some("1"))] {
        let mut convert = command(&[
            "convert",
            "--today",
            TODAY,
            "--force",
            &input,
            "-o",
            &out.display().to_string(),
        ]);
        if let Some(threads) = threads {
            convert.env("CLIENTBANK_THREADS", threads);
        }
        assert_eq!(convert.output().unwrap().status.code(), Some(1));
    }
    let written = std::fs::read(&many).unwrap();
    assert!(written.len() > 20 << 20, "{}", written.len());
    assert!(
        written == std::fs::read(&one).unwrap(),
        "the outputs differ"
    );
}

/// A 1C file written anew is written a section at a time from the input: a document of many
/// keys the payment has no place for comes out whole, the same on standard output and in a
/// file; a value the target encoding cannot hold, found only by the writer (in a key the rules
/// do not read) past many sections, leaves nothing behind on standard output or at the path.
#[test]
fn convert_writes_a_1c_file_a_section_at_a_time_and_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let order = |n: usize, extra: &str| {
        format!(
            "СекцияДокумент=Платежное поручение\r\nНомер={n}\r\nДата=20.11.2026\r\nСумма=10.00\r\n{extra}КонецДокумента\r\n"
        )
    };
    let many: String = (0..30_000)
        .map(|i| format!("Ключ{i}=значение {i}\r\n"))
        .collect();
    let mut file =
        String::from("1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n");
    file.push_str(&order(1, &many));
    for n in 2..200 {
        file.push_str(&order(n, "Примечание=обычное\r\n"));
    }
    let good = file.clone() + "КонецФайла\r\n";
    let bad = file + &order(200, "Примечание=5 € за ё\r\n") + "КонецФайла\r\n";
    let (good_path, bad_path) = (dir.path().join("good.txt"), dir.path().join("bad.txt"));
    let cp1251 = |t: &str| {
        clientbank_format::Encoding::Cp1251
            .encode(t)
            .unwrap()
            .into_owned()
    };
    std::fs::write(&good_path, cp1251(&good)).unwrap();
    std::fs::write(&bad_path, cp1251(&bad)).unwrap();
    let convert = |input: &Path, out: Option<&Path>| {
        let mut args = vec![
            "convert".to_string(),
            "--today".into(),
            TODAY.into(),
            "--force".into(),
            input.display().to_string(),
            "--to".into(),
            "1c".into(),
            "--encoding".into(),
            "dos".into(),
        ];
        if let Some(out) = out {
            args.extend(["-o".into(), out.display().to_string()]);
        }
        clientbank(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let out = dir.path().join("good-dos.txt");
    let to_file = convert(&good_path, Some(&out));
    assert!(code(&to_file) < 2, "{}", text(&to_file.stderr));
    let to_stdout = convert(&good_path, None);
    assert!(code(&to_stdout) < 2, "{}", text(&to_stdout.stderr));
    let written = std::fs::read(&out).unwrap();
    assert!(
        written == to_stdout.stdout,
        "a file and standard output differ"
    );
    let parsed: Value =
        serde_json::from_slice(&clientbank(&["parse", "--json", out.to_str().unwrap()]).stdout)
            .unwrap();
    assert_eq!(parsed["encoding"], "cp866");
    let documents = parsed["documents"].as_array().unwrap();
    assert_eq!(documents.len(), 199);
    let first = documents[0].to_string();
    assert!(
        first.contains("\"Ключ29999\",\"значение 29999\""),
        "the last key of 30,000"
    );
    // CP866 has no `€`: refused by the writer, naming the document and key, nothing written.
    let out = dir.path().join("bad-dos.txt");
    for refused in [convert(&bad_path, Some(&out)), convert(&bad_path, None)] {
        let stderr = text(&refused.stderr);
        assert_eq!(code(&refused), 1, "{stderr}");
        assert!(stderr.contains("the 1C file is not written"), "{stderr}");
        assert!(stderr.contains("document 200"), "{stderr}");
        assert!(stderr.contains("Примечание"), "{stderr}");
        assert!(
            refused.stdout.is_empty(),
            "{} bytes on standard output",
            refused.stdout.len()
        );
    }
    assert!(!out.exists(), "no file at the path");
}

/// A new output file is made as any new file is, `0666` less the umask of the process that
/// writes it (a umask of `077` keeps a payment file private; `022` lets 1C read it as another
/// user), on the JSON route and on the 1C one; a file replaced keeps its own mode.
#[cfg(unix)]
#[test]
fn a_new_output_takes_the_umask_and_a_replaced_one_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let input = testdata("valid/payment-orders-cp1251-crlf.txt");
    for (umask, expected) in [("077", 0o600), ("027", 0o640), ("022", 0o644)] {
        for to in ["json", "1c"] {
            let out = dir.path().join(format!("{umask}.{to}"));
            let run = Command::new("sh")
                .arg("-c")
                .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
                .arg(env!("CARGO_BIN_EXE_clientbank"))
                .args(["convert", "--today", TODAY, "--force", &input, "--to", to])
                .arg("-o")
                .arg(&out)
                .env("LANG", "C.UTF-8")
                .output()
                .unwrap();
            assert!(code(&run) < 2, "{}", text(&run.stderr));
            assert_eq!(mode(&out), expected, "umask {umask}, --to {to}");
            // Written again under another umask, it keeps the mode it has.
            std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o604)).unwrap();
            let again = convert_to(&input, &out)
                .args(["--force", "--to", to])
                .output()
                .unwrap();
            assert!(code(&again) < 2, "{}", text(&again.stderr));
            assert_eq!(mode(&out), 0o604, "replaced, --to {to}");
        }
    }
}
