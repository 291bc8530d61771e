//! `clientbank webhook` end to end: the binary listens, the sandbox bank delivers real
//! notifications (of operations it receives and of a refusal made by hand), the journal holds
//! each operation once, and the log names refusals without the token.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clientbank_api::Token;
use clientbank_api::webhook::{WebhookKey, hash};
use clientbank_sandbox::{Config, Delivery, OperationKind, Receive, Sandbox};
use clientbank_watch::journal::Journal;

const ROMASHKA: &str = "40702810938000012345";

fn clientbank(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clientbank"));
    command
        .args(args)
        .env_remove("CLIENTBANK_TOKEN")
        .env_remove("CLIENTBANK_BASE_URL")
        .env_remove("CLIENTBANK_ROOT_CA")
        .env("RUST_LOG", "info");
    command
}

/// The listener's child process, killed when dropped.
struct Listening {
    child: Child,
    url: String,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Listening {
    /// Stops the listener; what it logged on stderr.
    fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut stderr = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            let _ = err.read_to_string(&mut stderr);
        }
        stderr
    }
}

/// Starts `clientbank webhook` on a free port; waits for the line naming its address.
fn listen(dir: &std::path::Path, token: &str) -> Listening {
    let mut child = clientbank(&[
        "--lang",
        "en",
        "webhook",
        "--addr",
        "127.0.0.1:0",
        "--dir",
        dir.to_str().unwrap(),
    ])
    .env("CLIENTBANK_TOKEN", token)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    Listening { child, url }
}

async fn deliveries_when(bank: &Sandbox, done: impl Fn(&[Delivery]) -> bool) -> Vec<Delivery> {
    let started = Instant::now();
    loop {
        let deliveries = bank.control().deliveries();
        if done(&deliveries) {
            return deliveries;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "deliveries: {deliveries:?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn the_listener_records_the_banks_notifications_once_and_refuses_forgeries() {
    let bank = Sandbox::start(Config {
        time_scale: 0.001,
        ..Config::default()
    })
    .await
    .unwrap();
    let root = tempfile::tempdir().unwrap();
    let listening = listen(root.path(), "sandboxtoken");
    bank.control()
        .set_webhook(Some(format!("{}hook", listening.url)))
        .unwrap();
    let added = bank
        .control()
        .receive(&Receive {
            account: ROMASHKA.into(),
            count: 3,
            date: Some("2026-11-20".parse().unwrap()),
            kind: OperationKind::Incoming,
            amount: Some("1234.56".parse().unwrap()),
        })
        .unwrap();
    deliveries_when(&bank, |d| {
        d.iter().filter(|d| d.status == Some(200)).count() == 3
    })
    .await;
    // A forgery with the hash of another key, and one without a hash: refused.
    let forged_id = "forged-operation-0001";
    let other = Token::new("cabinet-token-full-rights");
    let body = |hash: Option<String>| {
        let mut value = serde_json::json!({
            "companyInn": "7701234560", "companyKpp": "770101001",
            "operation": {"id": forged_id, "amount": 1000000, "category": "Debet",
                          "bankAccountNumber": ROMASHKA, "executed": "2026-11-20T12:00:00"}
        });
        if let Some(hash) = hash {
            value["SHA1Hash"] = hash.into();
        }
        value.to_string()
    };
    let http = reqwest::Client::new();
    for (body, status) in [
        (
            body(Some(hash(WebhookKey::CabinetToken(&other), forged_id))),
            403,
        ),
        (body(None), 401),
    ] {
        let answer = http
            .post(&listening.url)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status().as_u16(), status);
    }
    let stderr = listening.stop();
    // The journal holds the three, once each, and not the forgery.
    let journal = Journal::open(&root.path().join(".clientbank/journal.sqlite"), false).unwrap();
    let rows = journal
        .operations_between(ROMASHKA, "2026-11-20", "2026-11-20")
        .unwrap();
    let mut ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    ids.sort();
    let mut expected: Vec<&str> = added.iter().map(|o| o.id.as_str()).collect();
    expected.sort();
    assert_eq!(ids, expected);
    assert!(rows.iter().all(|r| r.source == "webhook"));
    // Each notification logged with its id, account and amount; the refusals with the id and
    // the remote address; never the token, its key or a hash.
    for op in &added {
        assert!(stderr.contains(&op.id), "{stderr}");
    }
    assert!(
        stderr.contains("1234.56") && stderr.contains(ROMASHKA),
        "{stderr}"
    );
    let refused: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("webhook refused"))
        .collect();
    assert_eq!(refused.len(), 2, "{stderr}");
    assert!(
        refused
            .iter()
            .all(|l| l.contains(forged_id) && l.contains("127.0.0.1:")),
        "{refused:?}"
    );
    let secrets = [
        "sandboxtoken".to_string(),
        "sandboxtok".to_string(),
        hash(
            WebhookKey::CabinetToken(&Token::new("sandboxtoken")),
            forged_id,
        ),
        hash(WebhookKey::CabinetToken(&other), forged_id),
        "cabinet-to".to_string(),
    ];
    for secret in &secrets {
        assert!(!stderr.contains(secret.as_str()), "{secret} in {stderr}");
    }
}

#[test]
fn without_an_address_or_a_key_the_command_says_what_is_missing() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().to_str().unwrap();
    let out = clientbank(&["--lang", "en", "webhook", "--dir", dir])
        .env("CLIENTBANK_TOKEN", "sandboxtoken")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error: no address") && stderr.contains("--addr"),
        "{stderr}"
    );
    let out = clientbank(&[
        "--lang",
        "ru",
        "webhook",
        "--addr",
        "127.0.0.1:0",
        "--dir",
        dir,
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("CLIENTBANK_TOKEN"), "{stderr}");
    let missing = root.path().join("nowhere");
    let out = clientbank(&[
        "--lang",
        "en",
        "webhook",
        "--addr",
        "127.0.0.1:0",
        "--dir",
        missing.to_str().unwrap(),
    ])
    .env("CLIENTBANK_TOKEN", "sandboxtoken")
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("does not exist"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The address and the key from the [webhook] table.
    std::fs::write(
        root.path().join("clientbank.toml"),
        "[webhook]\naddr = \"127.0.0.1:0\"\nkey = \"client-secret\"\n",
    )
    .unwrap();
    let out = clientbank(&["--lang", "en", "webhook", "--dir", dir])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("client_secret_file"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
