//! The `clientbank` binary on the files in `testdata/`: exit codes and output shapes.

use std::path::PathBuf;
use std::process::{Command, Output};

fn testdata(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(path)
        .display()
        .to_string()
}

fn clientbank(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited")
}

#[test]
fn check_exit_codes() {
    let valid = testdata("valid/payment-orders-cp1251-crlf.txt");
    let odd = testdata("odd/unknown-key.txt");
    let bad = testdata("invalid/invalid-date.txt");
    let empty = testdata("invalid/empty.txt");
    assert_eq!(code(&clientbank(&["check", &valid])), 0);
    assert_eq!(
        code(&clientbank(&["check", &valid, &odd])),
        0,
        "warnings alone do not fail"
    );
    assert_eq!(
        code(&clientbank(&["check", "--strict", &odd])),
        1,
        "strict makes warnings errors"
    );
    assert_eq!(code(&clientbank(&["check", &valid, &bad])), 1);
    assert_eq!(
        code(&clientbank(&["check", &bad, &empty])),
        2,
        "unreadable wins"
    );
    assert_eq!(code(&clientbank(&["check", "no-such-file.txt"])), 2);
    assert_eq!(code(&clientbank(&["check"])), 2, "usage");
    assert_eq!(code(&clientbank(&["frobnicate"])), 2, "usage");
}

#[test]
fn check_renders_the_line_and_caret() {
    let output = clientbank(&["check", &testdata("invalid/invalid-sum-comma.txt")]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("error[invalid-sum]"), "{stdout}");
    assert!(
        stdout.contains("15 | Сумма=175000,00\n   |       ^^^^^^^^^"),
        "{stdout}"
    );
    assert!(stdout.contains("file read as CP1251"), "{stdout}");
}

#[test]
fn parse_json_is_the_documented_object() {
    let output = clientbank(&["parse", "--json", &testdata("odd/unknown-key.txt")]);
    assert_eq!(code(&output), 0);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["encoding"], "cp1251");
    assert_eq!(value["version"], "1.03");
    assert_eq!(
        value["header"][0],
        serde_json::json!(["ВерсияФормата", "1.03"])
    );
    assert_eq!(value["accounts"], serde_json::json!([]));
    let document = &value["documents"][0];
    assert_eq!(document["type"], "Платежное поручение");
    assert_eq!(document["line"], 12);
    assert_eq!(document["fields"][0], serde_json::json!(["Номер", "101"]));
    let diagnostic = &value["diagnostics"][0];
    assert_eq!(diagnostic["code"], "unknown-key");
    assert_eq!(diagnostic["severity"], "warning");
    assert_eq!(diagnostic["key"], "ИдентификаторПлатежа");
    assert_eq!(diagnostic["column"], 1);
    assert!(diagnostic["line"].as_u64().unwrap() > 12);
}

#[test]
fn parse_json_keeps_values_exactly_as_written() {
    let output = clientbank(&["parse", "--json", &testdata("odd/spaces-around-key.txt")]);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let fields = value["documents"][0]["fields"].as_array().unwrap();
    assert!(fields.contains(&serde_json::json!(["Сумма", "175000.00"])));
    assert!(fields.contains(&serde_json::json!(["Получатель", "ООО \"Лютик\""])));
}

#[test]
fn parse_refuses_unreadable_input_with_exit_2() {
    let output = clientbank(&["parse", "--json", &testdata("invalid/mixed-encoding.txt")]);
    assert_eq!(code(&output), 2);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["diagnostics"][0]["code"], "mixed-encoding");
    assert_eq!(value["diagnostics"][0]["line"], 42);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("error[mixed-encoding]"), "{stderr}");
}

#[test]
fn check_json_counts_findings() {
    let output = clientbank(&[
        "check",
        "--json",
        "--today",
        "16.11.2026",
        &testdata("odd/key-case.txt"),
        &testdata("invalid/empty.txt"),
    ]);
    assert_eq!(code(&output), 2);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["files"][0]["diagnostics"][0]["code"], "key-case");
    assert_eq!(value["files"][1]["readable"], false);
    assert_eq!(value["files"][1]["diagnostics"][0]["code"], "empty-input");
    assert_eq!(value["warnings"], 1);
    assert_eq!(value["errors"], 1);
}

/// A generated CP1251 file in a temporary directory.
fn generated(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path.display().to_string()
}

fn cp1251(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for c in text.chars() {
        out.push(match c {
            'А'..='я' => (c as u32 - 'А' as u32 + 0xC0) as u8,
            'Ё' => 0xA8,
            'ё' => 0xB8,
            '№' => 0xB9,
            c if c.is_ascii() => c as u8,
            c => panic!("{c:?} is not in this test's CP1251 table"),
        });
    }
    out
}

#[test]
fn check_counts_every_repeat_but_shows_the_first_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from(
        "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
         СекцияДокумент=Банковский ордер\r\nДата=01.11.2026\r\nСумма=1.00\r\nНомер=1\r\n",
    );
    text.push_str(&"Номер=1\r\n".repeat(1500));
    text.push_str("КонецДокумента\r\nКонецФайла\r\n");
    let file = generated(&dir, "repeats.txt", &cp1251(&text));
    let output = clientbank(&["check", "--json", &file]);
    assert_eq!(code(&output), 1, "a key twice is an error");
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let diagnostics: Vec<_> = value["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "duplicate-key")
        .collect();
    assert_eq!(diagnostics.len(), 1001, "the first 1000 and one summary");
    assert_eq!(diagnostics[1000]["omitted"], 500);
    // And the document, a bank order, is not a payment order: one finding.
    assert_eq!(value["errors"], 1500, "every finding counted");
    assert_eq!(value["warnings"], 1);
    let output = clientbank(&["check", "--strict", &file]);
    assert_eq!(code(&output), 1);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.matches("error[duplicate-key]").count(), 1001);
    assert!(
        stdout.contains("and 500 more `duplicate-key` finding(s)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("FAILED (1501 error(s), 0 warning(s))"),
        "{stdout}"
    );
}

#[test]
fn check_strict_fails_an_empty_required_value_in_any_document() {
    let file = testdata("odd/empty-value.txt");
    assert_eq!(code(&clientbank(&["check", &file])), 0);
    let output = clientbank(&["check", "--strict", &file]);
    assert_eq!(code(&output), 1);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains("error[empty-value]: `Сумма` has no value"),
        "{stdout}"
    );
    assert!(stdout.contains("3 error(s)"), "{stdout}");
}

#[test]
fn parse_decides_the_encoding_past_an_ascii_start() {
    let dir = tempfile::tempdir().unwrap();
    // 100 KB of blank lines, then CP866 text.
    let mut bytes = b"1CClientBankExchange\r\n".to_vec();
    bytes.extend(b"\r\n".repeat(50_000));
    let cp866 = |text: &str| -> Vec<u8> {
        text.chars()
            .map(|c| match c {
                'А'..='п' => (c as u32 - 'А' as u32 + 0x80) as u8,
                'р'..='я' => (c as u32 - 'р' as u32 + 0xE0) as u8,
                c => c as u8,
            })
            .collect()
    };
    bytes.extend(cp866(
        "ВерсияФормата=1.03\r\nКодировка=DOS\r\nСекцияДокумент=Банковский ордер\r\nНомер=7\r\n\
         Дата=01.11.2026\r\nСумма=1.00\r\nКонецДокумента\r\nКонецФайла\r\n",
    ));
    let file = generated(&dir, "late.txt", &bytes);
    let output = clientbank(&["parse", "--json", &file]);
    assert_eq!(code(&output), 0);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["encoding"], "cp866");
    assert_eq!(value["documents"][0]["type"], "Банковский ордер");
    assert_eq!(
        value["documents"][0]["fields"][0],
        serde_json::json!(["Номер", "7"])
    );
}

/// `clientbank sandbox` serves the README's curl example: the sandbox companies.
#[test]
fn sandbox_command_serves_the_companies() {
    use std::io::{Read, Write};
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(["sandbox", "--addr", &addr])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("the binary runs");
    let request = format!(
        "POST /v1/account-info HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer sandboxtoken\r\nsandbox: on\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    // Asked until the sandbox answers: before it listens, a connection is refused, and on a
    // loaded machine one may be reset while it starts.
    let mut answer = String::new();
    for _ in 0..100 {
        let asked = std::net::TcpStream::connect(&addr).and_then(|mut stream| {
            stream.write_all(request.as_bytes())?;
            answer.clear();
            stream.read_to_string(&mut answer)
        });
        if asked.is_ok() && !answer.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().ok();
    child.wait().ok();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.contains("\"companyName\":\"ООО \\\"Ромашка\\\"\""),
        "{answer}"
    );
    assert!(
        !answer.contains("Чужая"),
        "the other user's company is not listed"
    );
    // Loopback only.
    let refused = clientbank(&["sandbox", "--addr", "0.0.0.0:0"]);
    assert_eq!(code(&refused), 2);
    let refused = clientbank(&["--lang", "ru", "sandbox", "--addr", "0.0.0.0:0"]);
    assert_eq!(code(&refused), 2);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("слушает только адреса этой машины"), "{said}");
}

/// `clientbank sandbox` prints a per-run admin token; the admin interface wants it.
#[test]
fn sandbox_command_prints_the_admin_token() {
    use std::io::{BufRead, Read, Write};
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(["sandbox", "--addr", &addr])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let stdout = child.stdout.take().unwrap();
    let token = std::io::BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|line| {
            line.trim()
                .strip_prefix("admin token: ")
                .and_then(|rest| rest.split_whitespace().next())
                .map(str::to_string)
        });
    let exchange = |token: &str| {
        let body = r#"{"on": false}"#;
        let request = format!(
            "POST /admin/maintenance HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let mut stream = std::net::TcpStream::connect(&addr).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    let (with, without) = match &token {
        Some(token) => (exchange(token), exchange("not-the-token")),
        None => (String::new(), String::new()),
    };
    child.kill().ok();
    child.wait().ok();
    let token = token.expect("the admin token is printed");
    assert_eq!(token.len(), 64, "{token}");
    assert!(with.starts_with("HTTP/1.1 200"), "{with}");
    assert!(without.starts_with("HTTP/1.1 401"), "{without}");
}

/// `--time-scale` must be a number above 0 and at most 1000: the rest is refused, exit 2.
#[test]
fn sandbox_command_refuses_bad_time_scales() {
    for scale in ["1e300", "-1", "nan", "inf", "0", "-0"] {
        let output = clientbank(&[
            "sandbox",
            "--addr",
            "127.0.0.1:0",
            &format!("--time-scale={scale}"),
        ]);
        assert_eq!(code(&output), 2, "{scale}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.contains("--time-scale") && stderr.contains("above 0"),
            "{scale}: {stderr}"
        );
    }
}

/// `convert` shows a file's findings as `check` does: the first 1,000 of a code, then one
/// summary of the rest; every request is written all the same.
#[test]
fn convert_shows_the_first_findings_of_a_code_and_converts_every_payment() {
    let dir = tempfile::tempdir().unwrap();
    let one = std::fs::read(testdata("payments/account-key.txt")).unwrap();
    let start = memchr_find(&one, &cp1251("СекцияДокумент=")).unwrap();
    let end = memchr_find(&one, &cp1251("КонецДокумента\r\n")).unwrap() + 16;
    let mut bytes = one[..start].to_vec();
    for number in 1..=1200 {
        let section = one[start..end].to_vec();
        let at = memchr_find(&section, b"=301\r\n").unwrap();
        bytes.extend_from_slice(&section[..at + 1]);
        bytes.extend_from_slice(number.to_string().as_bytes());
        bytes.extend_from_slice(&section[at + 4..]);
    }
    bytes.extend_from_slice(&one[end..]);
    let file = generated(&dir, "many.txt", &bytes);
    let out = dir.path().join("many.json");
    let output = clientbank(&[
        "convert",
        "--json",
        "--force",
        "--today",
        "20.11.2026",
        &file,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        code(&output),
        1,
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let shown: Vec<serde_json::Value> = String::from_utf8(output.stderr)
        .unwrap()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .filter(|record: &serde_json::Value| record["code"] == "account-key")
        .collect();
    assert_eq!(shown.len(), 1001, "the first 1000 and one summary");
    assert_eq!(shown[1000]["omitted"], 200);
    let requests: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(requests.as_array().unwrap().len(), 1200);
    assert_eq!(requests[1199]["payment"]["Number"], "1200");
    // `check` shows the same.
    let output = clientbank(&["check", "--json", "--today", "20.11.2026", &file]);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let checked = value["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "account-key")
        .count();
    assert_eq!(checked, 1001);
    // The array is written as serde_json pretty-prints it whole, though each request is
    // serialised on its own, in the thread that made it; also sent straight to signing, and
    // for a file of one payment and one of none.
    let pretty = |bytes: &[u8]| {
        let requests: Vec<clientbank_payment::UploadRequest> =
            serde_json::from_slice(bytes).unwrap();
        let mut text = serde_json::to_vec_pretty(&requests).unwrap();
        text.push(b'\n');
        (requests.len(), text)
    };
    let written = std::fs::read(&out).unwrap();
    assert_eq!(pretty(&written), (1200, written.clone()));
    let single = testdata("payments/account-key.txt");
    let none = generated(&dir, "none.txt", &[&one[..start], &one[end..]].concat());
    for (file, count) in [(&file, 1200), (&single, 1), (&none, 0)] {
        let output = clientbank(&[
            "convert",
            "--in-signing",
            "--force",
            "--today",
            "20.11.2026",
            file,
            "-o",
            "-",
        ]);
        assert_eq!(
            pretty(&output.stdout),
            (count, output.stdout.clone()),
            "{file}"
        );
        let signing = output
            .stdout
            .windows(9)
            .filter(|w| w == b"InSigning")
            .count();
        assert_eq!(signing, count, "{file}");
    }
}

fn memchr_find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `parse --json` of a file of many chunks of documents: every document once, in file order
/// (the text is made by two threads); a reader that stops early (`| head`) ends the command.
#[test]
fn parse_json_writes_every_document_in_order_and_stops_with_its_reader() {
    let dir = tempfile::tempdir().unwrap();
    let mut text =
        String::from("1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n");
    for number in 1..=1300 {
        text.push_str(&format!(
            "СекцияДокумент=Банковский ордер\r\nНомер={number}\r\nДата=01.11.2026\r\nСумма=1.00\r\n\
             КонецДокумента\r\n"
        ));
    }
    text.push_str("КонецФайла\r\n");
    let file = generated(&dir, "many.txt", &cp1251(&text));
    let output = clientbank(&["parse", "--json", &file]);
    assert_eq!(code(&output), 0);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let numbers: Vec<String> = value["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["fields"][0][1].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = (1..=1300).map(|n| n.to_string()).collect();
    assert_eq!(numbers, expected);

    let mut child = Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(["parse", "--json", &file])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut start = [0u8; 100];
    std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut start).unwrap();
    drop(child.stdout.take());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "parse --json waits for no one"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
