//! Crash safety (issue 10 item 15): `clientbank watch` as a child process, killed with SIGKILL
//! at random moments and restarted, against a sandbox bank in another process. At the end,
//! from the bank's `/admin/payments` and the folders: no payment twice, every dropped file in
//! exactly one of done/, rejected/, review/, every payment of done/ at the bank, every payment
//! at the bank known to the journal.
//!
//! `CLIENTBANK_SOAK_KILLS=1000` (see `scripts/soak-kill`) runs the soak; 30 kills by default.
#![cfg(unix)]

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clientbank_watch::journal::{Journal, payment_state};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_clientbank")
}

/// The sandbox bank in its own process: (process, base URL, admin token, port).
fn sandbox() -> (Child, String, String, u16) {
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
fn bank_payments(port: u16, token: &str) -> Vec<(String, String)> {
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

fn dechunk(body: &str) -> String {
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
struct Random(u64);

impl Random {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

fn today() -> String {
    clientbank_payment::clock::today_in_moscow()
        .format("%d.%m.%Y")
        .to_string()
}

fn drop_file(dir: &Path, index: u32) {
    let date = today();
    let items: Vec<String> = (0..3)
        .map(|k| {
            let number = index * 10 + k + 1;
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
    let name = format!("drop-{index:04}.json");
    // Written beside the inbox and renamed in, as accounting software does it at best; the
    // settle interval covers the other case.
    let tmp = dir.join(format!("{name}.tmp"));
    std::fs::write(&tmp, format!("[{}]\n", items.join(",\n"))).unwrap();
    std::fs::rename(&tmp, dir.join("inbox").join(name)).unwrap();
}

fn names(dir: &Path, folder: &str) -> Vec<String> {
    clientbank_watch::folders::Layout::new(dir).files(folder)
}

#[test]
fn killed_at_random_moments_nothing_is_sent_twice_nothing_is_lost() {
    let kills: u32 = std::env::var("CLIENTBANK_SOAK_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    println!("seed {seed}, {kills} kills");
    let mut random = Random(seed);
    let (mut bank, url, admin, port) = sandbox();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("inbox")).unwrap();
    std::fs::write(
        root.join("clientbank.toml"),
        format!(
            "bank_url = \"{url}\"\ntoken = \"cabinet-token-full-rights\"\nsettle = \"50ms\"\n\
             poll_interval = \"100ms\"\nretry_min = \"50ms\"\nretry_max = \"200ms\"\n\
             once_patience = \"20s\"\n"
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            root.join("clientbank.toml"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
    }
    let mut dropped = 0u32;
    for _ in 0..10 {
        drop_file(root, dropped);
        dropped += 1;
    }
    let started = Instant::now();
    for kill in 0..kills {
        let mut daemon = Command::new(bin())
            .args(["watch", root.to_str().unwrap()])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let wait = 20 + random.next(300);
        std::thread::sleep(Duration::from_millis(wait));
        if random.next(3) == 0 {
            drop_file(root, dropped);
            dropped += 1;
        }
        std::thread::sleep(Duration::from_millis(random.next(40)));
        daemon.kill().unwrap(); // SIGKILL
        daemon.wait().unwrap();
        if kill % 100 == 99 {
            println!("{} kills, {:?}", kill + 1, started.elapsed());
        }
    }
    // Then once to the end, undisturbed.
    let end = Command::new(bin())
        .args(["watch", root.to_str().unwrap(), "--once"])
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&end.stdout);
    println!("{stdout}");

    let at_bank = bank_payments(port, &admin);
    let _ = bank.kill();
    let _ = bank.wait();

    // No payment identity twice (each dropped payment has its own number).
    let mut seen = BTreeSet::new();
    for (_, number) in &at_bank {
        assert!(
            seen.insert(number.clone()),
            "payment {number} reached the bank twice"
        );
    }
    // Every dropped file in exactly one of done/, rejected/, review/.
    assert!(
        names(root, "inbox").is_empty(),
        "{:?}",
        names(root, "inbox")
    );
    assert!(
        names(root, "processing").is_empty(),
        "{:?}",
        names(root, "processing")
    );
    let mut places: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for folder in ["done", "rejected", "review"] {
        for name in names(root, folder) {
            places.entry(name).or_default().push(folder);
        }
    }
    for index in 0..dropped {
        let name = format!("drop-{index:04}.json");
        let found = places.get(&name).cloned().unwrap_or_default();
        assert_eq!(found.len(), 1, "{name} is in {found:?}");
    }
    assert_eq!(places.len() as u32, dropped, "{places:?}");
    if let Some(name) = names(root, "rejected").first() {
        let why = std::fs::read_to_string(root.join("rejected").join(format!("{name}.errors.txt")))
            .unwrap_or_default();
        panic!("{name} rejected although nothing is wrong with it: {why}");
    }
    // Every payment of done/ at the bank.
    let ids: BTreeSet<&str> = at_bank.iter().map(|(id, _)| id.as_str()).collect();
    for name in names(root, "done") {
        let report =
            std::fs::read_to_string(root.join("done").join(format!("{name}.report.csv"))).unwrap();
        let mut reader = csv::Reader::from_reader(report.as_bytes());
        let mut rows = 0;
        for record in reader.records() {
            let record = record.unwrap();
            let id = &record[5];
            assert!(
                ids.contains(id),
                "{name}: payment {} id {id} is not at the bank",
                &record[0]
            );
            rows += 1;
        }
        assert_eq!(rows, 3, "{name}");
    }
    // Every payment at the bank accounted for in the journal: by its id, or in doubt.
    let journal = Journal::open(&root.join(".clientbank").join("journal.sqlite"), false).unwrap();
    let rows = journal.all_payments().unwrap();
    for (id, number) in &at_bank {
        let known = rows.iter().any(|r| r.bank_id.as_deref() == Some(id))
            || rows
                .iter()
                .any(|r| r.number == *number && r.state == payment_state::DOUBT);
        assert!(
            known,
            "payment {number} ({id}) is at the bank but not in the journal"
        );
    }
    println!(
        "{kills} kills, {dropped} files: {} done, {} in review, {} payment(s) at the bank, {:?}",
        names(root, "done").len(),
        names(root, "review").len(),
        at_bank.len(),
        started.elapsed()
    );
}
