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
    let mut answer = String::new();
    for _ in 0..100 {
        if let Ok(mut stream) = std::net::TcpStream::connect(&addr) {
            stream.write_all(request.as_bytes()).unwrap();
            stream.read_to_string(&mut answer).unwrap();
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
