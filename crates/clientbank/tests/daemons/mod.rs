//! Shared by the tests that run `clientbank watch` as child processes and kill them: the sandbox
//! bank in its own process, its admin interface, drops, review/ settled from the bank's list.
#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use clientbank_watch::journal::Journal;
use clientbank_watch::state::PaymentState;

/// The journal of folder `root`, wherever its configuration keeps it (SQLite, PostgreSQL).
pub fn folder_journal(root: &Path) -> Journal {
    let layout = clientbank_watch::folders::Layout::new(root);
    clientbank_watch::journal::open_folder(&layout, clientbank_watch::journal::Access::Write)
        .unwrap()
        .expect("the folder has a journal")
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_clientbank")
}

/// The sandbox bank in its own process: (process, base URL, admin token, port).
pub fn sandbox() -> (Child, String, String, u16) {
    let mut child = Command::new(bin())
        .args(["sandbox", "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("clientbank sandbox");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut url = String::new();
    let mut token = String::new();
    while url.is_empty() || token.is_empty() {
        let line = lines.next().expect("sandbox output").unwrap();
        if let Some(rest) = line.strip_prefix("sandbox bank at ") {
            url = rest.trim().to_string();
        }
        if let Some(rest) = line.trim().strip_prefix("admin token: ") {
            token = rest.split_whitespace().next().unwrap().to_string();
        }
    }
    std::thread::spawn(move || for _ in lines {});
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/v1")
        .parse()
        .unwrap();
    (child, url, token, port)
}

/// `GET /admin/payments`: (id, number) of every payment at the bank.
pub fn bank_payments(port: u16, token: &str) -> Vec<(String, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET /admin/payments HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer \
         {token}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    let list: serde_json::Value = serde_json::from_str(&body).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_string(),
                p["number"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

pub fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.push_str(&tail[..size]);
        rest = &tail[size + 2..];
    }
    out
}

/// A tiny deterministic generator (xorshift), seeded from the clock and printed.
pub struct Random(pub u64);

impl Random {
    pub fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

pub fn today() -> String {
    clientbank_payment::clock::today_in_moscow()
        .format("%d.%m.%Y")
        .to_string()
}

/// Writes drop `index` into the inbox: three payments numbered `index·10 + 1…3`; an even index
/// as JSON (sent payment by payment), an odd one as a 1C file with priority 3, which JSON
/// cannot carry (sent whole through `/operation-upload/1c`).
pub fn drop_file(dir: &Path, index: u32) {
    let date = today();
    let numbers: Vec<u32> = (1..=3).map(|k| index * 10 + k).collect();
    let (name, bytes) = if index.is_multiple_of(2) {
        let items: Vec<String> = numbers
            .iter()
            .map(|number| {
                format!(
                    r#"{{"payment": {{"Number": "{number}", "Date": "{date}", "Sum": "{number}.00",
  "PayerAccount": "40702810938000012345", "RecipientName": "ООО \"Лютик\"",
  "RecipientINN": "5009876546", "RecipientKPP": "500901001",
  "RecipientAccount": "40702810210000054321", "RecipientBankBik": "044525974",
  "RecipientBankCorrAccount": "30101810145250000974",
  "PaymentPurpose": "Оплата по счету № {number}, НДС не облагается", "TypeIndicator": "0"}}}}"#
                )
            })
            .collect();
        (
            format!("drop-{index:04}.json"),
            format!("[{}]\n", items.join(",\n")).into_bytes(),
        )
    } else {
        let mut text = format!(
            "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
             ДатаСоздания={date}\r\nВремяСоздания=10:00:00\r\nДатаНачала={date}\r\n\
             ДатаКонца={date}\r\nРасчСчет=40702810938000012345\r\n"
        );
        for number in &numbers {
            text.push_str(&format!(
                "СекцияДокумент=Платежное поручение\r\nНомер={number}\r\nДата={date}\r\n\
                 Сумма={number}.00\r\nПлательщикСчет=40702810938000012345\r\n\
                 Плательщик=ООО \"Ромашка\"\r\nПлательщикИНН=7701234560\r\n\
                 ПлательщикКПП=770101001\r\nПлательщикБИК=044525225\r\n\
                 ПлательщикКорсчет=30101810400000000225\r\n\
                 ПолучательСчет=40702810210000054321\r\nПолучатель=ООО \"Лютик\"\r\n\
                 ПолучательИНН=5009876546\r\nПолучательКПП=500901001\r\n\
                 ПолучательБИК=044525974\r\nПолучательКорсчет=30101810145250000974\r\n\
                 ВидОплаты=01\r\nКод=0\r\n\
                 НазначениеПлатежа=Оплата по счету № {number}, НДС не облагается\r\n\
                 Очередность=3\r\nКонецДокумента\r\n"
            ));
        }
        text.push_str("КонецФайла\r\n");
        let bytes = clientbank_format::Encoding::Cp1251
            .encode(&text)
            .expect("CP1251 holds the sample");
        (format!("drop-{index:04}.txt"), bytes.into_owned())
    };
    // Written beside the inbox and renamed in, as accounting software does it at best; the
    // settle interval covers the other case.
    let tmp = dir.join(format!("{name}.part"));
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, dir.join("inbox").join(name)).unwrap();
}

pub fn names(dir: &Path, folder: &str) -> Vec<String> {
    clientbank_watch::folders::Layout::new(dir).files(folder.parse().expect("a folder of DIR"))
}

/// An admin request to the sandbox bank; its status.
pub fn admin(port: u16, token: &str, method: &str, path: &str, body: &str) -> u16 {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// A fault for the next requests, at random: none, maintenance answers, a server error, too
/// many requests, a connection dropped before or after the bank acted, or a slow bank.
pub fn toggle_fault(random: &mut Random, port: u16, token: &str) -> &'static str {
    let (what, body) = match random.next(8) {
        0 | 1 => ("none", None),
        2 => ("503", Some(r#"{"status": 503, "times": 3}"#.to_string())),
        3 => ("500", Some(r#"{"status": 500, "times": 1}"#.to_string())),
        4 => ("429", Some(r#"{"status": 429, "times": 1}"#.to_string())),
        5 => (
            "drop before",
            Some(r#"{"drop": "before", "times": 1}"#.to_string()),
        ),
        6 => (
            "drop after",
            Some(r#"{"drop": "after", "times": 1}"#.to_string()),
        ),
        _ => (
            "slow",
            Some(format!(
                r#"{{"delay_ms": {}, "times": 4}}"#,
                50 + random.next(400)
            )),
        ),
    };
    let status = match body {
        Some(body) => admin(port, token, "POST", "/admin/faults", &body),
        None => admin(port, token, "DELETE", "/admin/faults", ""),
    };
    assert_eq!(status, 200, "{what}");
    what
}

/// Settles review/ from the bank's own list, payment by payment: a payment in doubt whose number
/// the bank has is `--sent`, the others `--not-sent`. How many files were settled.
pub fn settle_review(root: &Path, at_bank: &[(String, String)]) -> usize {
    let journal = folder_journal(root);
    let mut settled = 0;
    for name in names(root, "review") {
        let file = journal
            .file_at(&format!("review/{name}"))
            .unwrap()
            .unwrap_or_else(|| panic!("review/{name} has no record"));
        let rows = journal.payments_of(file.id).unwrap();
        let (mut sent, mut not_sent) = (Vec::new(), Vec::new());
        for row in rows.iter().filter(|r| {
            r.outcome.state == PaymentState::Doubt || r.outcome.state == PaymentState::Sending
        }) {
            if at_bank.iter().any(|(_, n)| *n == row.payment.number) {
                sent.push(row.payment.number.clone());
            } else {
                not_sent.push(row.payment.number.clone());
            }
        }
        let mut args = vec![
            "resolve".to_string(),
            root.display().to_string(),
            name.clone(),
        ];
        for (flag, numbers) in [("--sent", &sent), ("--not-sent", &not_sent)] {
            if !numbers.is_empty() {
                args.push(flag.into());
                args.extend(numbers.iter().cloned());
            }
        }
        if sent.is_empty() && not_sent.is_empty() {
            // Nothing in doubt (held payments): back through the inbox.
            args.push("--not-sent".into());
        }
        let out = Command::new(bin()).args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        settled += 1;
    }
    settled
}

pub fn run_once(root: &Path) -> String {
    let end = Command::new(bin())
        .args(["watch", root.to_str().unwrap(), "--once"])
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    String::from_utf8_lossy(&end.stdout).into_owned()
}

pub fn count(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
