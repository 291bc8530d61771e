//! The webhook listener against the sandbox bank's real deliveries over loopback: good hashes
//! recorded once, retries after a 500 and after a listener that was not there, bad and missing
//! hashes refused, the same notification many times at once, a huge body; and the sandbox's
//! operations that arrive without a signature.

mod common;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clientbank_api::webhook::{WebhookKey, hash};
use clientbank_api::{Client, Notification, Operation, Token};
use clientbank_bank::operations::OperationRow;
use clientbank_bank::webhook::{self, Key, Listener, NewOperation};
use clientbank_sandbox::{Config, Delivery, OperationKind, Receive, Sandbox};
use clientbank_watch::journal::Journal;
use common::journal_of;
use rust_decimal::Decimal;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::sync::oneshot;

const ROMASHKA: &str = "40702810938000012345";
const OTHER_USER: &str = "40702810938000099999";
const DAY: &str = "2026-11-20";

fn day() -> chrono::NaiveDate {
    DAY.parse().unwrap()
}

async fn bank() -> Sandbox {
    Sandbox::start(Config {
        time_scale: 0.001,
        ..Config::default()
    })
    .await
    .expect("the sandbox bank starts")
}

/// A listener on a free loopback port, its journal, its signals; dropping `stop` stops it.
struct Hook {
    url: String,
    addr: SocketAddr,
    journal: Arc<Mutex<Journal>>,
    path: std::path::PathBuf,
    news: UnboundedReceiver<NewOperation>,
    _stop: oneshot::Sender<()>,
    _dir: tempfile::TempDir,
}

impl Hook {
    async fn start(key: Key) -> Hook {
        let socket = webhook::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
        Hook::on(socket, key).await
    }

    async fn on(socket: tokio::net::TcpListener, key: Key) -> Hook {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".clientbank").join("journal.sqlite");
        let journal = Arc::new(Mutex::new(journal_of(dir.path(), true)));
        let (tx, news) = tokio::sync::mpsc::unbounded_channel();
        let (stop, stopped) = oneshot::channel::<()>();
        let addr = socket.local_addr().unwrap();
        let listener = Listener::new(key, journal.clone()).on_new(tx);
        tokio::spawn(listener.serve(socket, async {
            let _ = stopped.await;
        }));
        Hook {
            url: format!("http://{addr}/hook"),
            addr,
            journal,
            path,
            news,
            _stop: stop,
            _dir: dir,
        }
    }

    fn recorded(&self, account: &str) -> Vec<OperationRow> {
        self.journal
            .lock()
            .unwrap()
            .operations_between(account, DAY, DAY)
            .unwrap()
    }

    fn news(&mut self) -> Vec<NewOperation> {
        let mut out = Vec::new();
        while let Ok(new) = self.news.try_recv() {
            out.push(new);
        }
        out
    }
}

fn sandbox_key() -> Key {
    Key::Token(Token::new("sandboxtoken"))
}

/// The deliveries once `done` holds of them (within 20 s).
async fn deliveries_when(bank: &Sandbox, done: impl Fn(&[Delivery]) -> bool) -> Vec<Delivery> {
    let started = Instant::now();
    loop {
        let deliveries = bank.control().deliveries();
        if done(&deliveries) {
            return deliveries;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "deliveries: {deliveries:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn receive(account: &str, count: usize, kind: OperationKind) -> Receive {
    Receive {
        account: account.into(),
        count,
        date: Some(day()),
        kind,
        amount: None,
    }
}

async fn post(url: &str, content_type: &str, body: impl Into<reqwest::Body>) -> u16 {
    reqwest::Client::new()
        .post(url)
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// A notification of `id` on ROMASHKA, hashed with `key` (or with `SHA1Hash` left out).
fn notification(id: &str, key: Option<WebhookKey<'_>>) -> String {
    let mut value = serde_json::json!({
        "companyInn": "7701234560",
        "companyKpp": "770101001",
        "operation": {
            "id": id, "status": "Received", "category": "Debet", "amount": 1500.50,
            "bankAccountNumber": ROMASHKA, "executed": format!("{DAY}T10:15:00"),
            "contragentName": "ООО \"Лютик\"", "currency": "RUR"
        },
    });
    if let Some(key) = key {
        value["SHA1Hash"] = hash(key, id).into();
    }
    value.to_string()
}

on_both! {
    async fn notifications_of_every_kind_are_verified_and_recorded_once() {
        let bank = bank().await;
        let mut hook = Hook::start(sandbox_key()).await;
        bank.control().set_webhook(Some(hook.url.clone())).unwrap();
        let mut added = Vec::new();
        for kind in [
            OperationKind::Incoming,
            OperationKind::Outgoing,
            OperationKind::Budget,
            OperationKind::Sbp,
            OperationKind::Cancelled,
        ] {
            added.extend(bank.control().receive(&receive(ROMASHKA, 2, kind)).unwrap());
        }
        let executed: Vec<&Operation> = added.iter().filter(|op| op.executed.is_some()).collect();
        assert_eq!(executed.len(), 8, "the cancelled ones are not executed");
        let deliveries = deliveries_when(&bank, |d| {
            d.iter().filter(|d| d.status == Some(200)).count() == 8
        })
        .await;
        assert!(deliveries.iter().all(|d| d.attempt == 1), "{deliveries:?}");
        let rows = hook.recorded(ROMASHKA);
        assert_eq!(rows.len(), 8, "{rows:?}");
        for op in &executed {
            let row = rows.iter().find(|r| r.id == op.id).expect("recorded");
            assert_eq!(row.source, "webhook");
            assert_eq!(row.account, ROMASHKA);
            assert_eq!(
                row.executed.as_deref(),
                Some(
                    op.executed
                        .unwrap()
                        .format("%Y-%m-%dT%H:%M:%S")
                        .to_string()
                        .as_str()
                )
            );
            let body = Operation::from_json(serde_json::from_str(&row.body).unwrap());
            assert_eq!(body.amount, op.amount);
            assert_eq!(body.category, op.category);
            assert_eq!(body.kbk, op.kbk);
            assert_eq!(body.sbp_oper_id, op.sbp_oper_id);
        }
        let news = hook.news();
        assert_eq!(news.len(), 8);
        assert!(news.iter().all(|n| n.account == ROMASHKA));
        // The delivered bodies are the bank's notifications, checked by the API client too.
        for delivery in &deliveries {
            let n: Notification = clientbank_api::webhook::verify(
                delivery.body.as_bytes(),
                WebhookKey::CabinetToken(&Token::new("sandboxtoken")),
            )
            .unwrap();
            assert_eq!(n.company_inn, "7701234560");
        }
    }
}

#[tokio::test]
async fn a_notification_answered_500_is_retried_and_recorded_once() {
    let bank = bank().await;
    let mut hook = Hook::start(sandbox_key()).await;
    bank.control().set_webhook(Some(hook.url.clone())).unwrap();
    // The journal fails (its table is away): the listener answers 500, the bank retries.
    let side = rusqlite::Connection::open(&hook.path).unwrap();
    side.execute_batch("ALTER TABLE operations RENAME TO operations_away")
        .unwrap();
    let op = bank
        .control()
        .receive(&receive(ROMASHKA, 1, OperationKind::Incoming))
        .unwrap()
        .remove(0);
    deliveries_when(&bank, |d| d.iter().any(|d| d.attempt == 1)).await;
    side.execute_batch("ALTER TABLE operations_away RENAME TO operations")
        .unwrap();
    assert!(hook.recorded(ROMASHKA).is_empty());
    assert!(
        hook.news().is_empty(),
        "nothing signalled before the commit"
    );
    let deliveries = deliveries_when(&bank, |d| d.iter().any(|d| d.status == Some(200))).await;
    let attempts: Vec<(u32, Option<u16>)> = deliveries
        .iter()
        .filter(|d| d.operation_id == op.id)
        .map(|d| (d.attempt, d.status))
        .collect();
    assert_eq!(attempts, [(1, Some(500)), (2, Some(200))]);
    let rows = hook.recorded(ROMASHKA);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].id, op.id);
    assert_eq!(hook.news().len(), 1);
}

on_both! {
    async fn a_listener_started_after_the_first_attempt_gets_the_retry() {
        let bank = bank().await;
        // A free port with nobody listening yet.
        let addr = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        bank.control()
            .set_webhook(Some(format!("http://{addr}/hook")))
            .unwrap();
        let op = bank
            .control()
            .receive(&receive(ROMASHKA, 1, OperationKind::Sbp))
            .unwrap()
            .remove(0);
        deliveries_when(&bank, |d| d.iter().any(|d| d.attempt == 1)).await;
        let hook = Hook::on(webhook::bind(addr).await.unwrap(), sandbox_key()).await;
        let deliveries = deliveries_when(&bank, |d| d.iter().any(|d| d.status == Some(200))).await;
        let attempts: Vec<(u32, Option<u16>)> =
            deliveries.iter().map(|d| (d.attempt, d.status)).collect();
        assert_eq!(attempts, [(1, None), (2, Some(200))]);
        let rows = hook.recorded(ROMASHKA);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].id, op.id);
    }
}

on_both! {
    async fn bad_missing_and_oversized_notifications_are_refused_and_nothing_is_recorded() {
        let mut hook = Hook::start(sandbox_key()).await;
        let id = "a4b825ca-a6f8-4996-a1db-a5f3028bb68d";
        let other = Token::new("cabinet-token-full-rights");
        let json = "application/json";
        // Hashed with another token's key, altered, missing, empty: refused.
        assert_eq!(
            post(
                &hook.url,
                json,
                notification(id, Some(WebhookKey::CabinetToken(&other)))
            )
            .await,
            403
        );
        let forged = notification(
            id,
            Some(WebhookKey::CabinetToken(&Token::new("sandboxtoken"))),
        )
        .replace("1500.5", "9999999.99")
        .replace(id, "a4b825ca-a6f8-4996-a1db-a5f3028bb68e");
        assert_eq!(post(&hook.url, json, forged).await, 403);
        assert_eq!(post(&hook.url, json, notification(id, None)).await, 401);
        let empty = notification(id, None).replace("}}", "}, \"SHA1Hash\": \"\"}");
        assert_eq!(post(&hook.url, json, empty).await, 401);
        // Not a notification, not JSON, not POST, too large.
        assert_eq!(post(&hook.url, json, "{\"a\": 1").await, 400);
        assert_eq!(post(&hook.url, json, "[1, 2]").await, 400);
        let good = notification(id, Some(sandbox_key().as_webhook_key()));
        assert_eq!(post(&hook.url, "text/plain", good.clone()).await, 415);
        let got = reqwest::get(&hook.url).await.unwrap();
        assert_eq!(got.status().as_u16(), 405);
        assert_eq!(got.headers()["allow"], "POST");
        let huge = format!(
            "{{\"pad\": \"{}\", {}",
            "x".repeat(2 * 1024 * 1024),
            &good[1..]
        );
        assert_eq!(post(&hook.url, json, huge.clone()).await, 413);
        // The same without a length announced (chunked): refused while read.
        assert_eq!(post_chunked(hook.addr, huge.as_bytes()).await, 413);
        assert!(hook.recorded(ROMASHKA).is_empty());
        assert!(hook.news().is_empty());
        // The good one, after all that: recorded.
        assert_eq!(post(&hook.url, json, good).await, 200);
        assert_eq!(hook.recorded(ROMASHKA).len(), 1);
        // The listener answers on any path, as the registered address names one.
        assert_eq!(
            post(&format!("http://{}/", hook.addr), "text/plain", "x").await,
            415
        );
    }
}

/// POSTs `body` in chunks of 64 KiB without a length (chunked), over a raw connection; the
/// status the listener answers.
async fn post_chunked(addr: SocketAddr, body: &[u8]) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /hook HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    for chunk in body.chunks(64 * 1024) {
        // The listener may answer and close before the whole body is sent.
        if stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .await
            .is_err()
            || stream.write_all(chunk).await.is_err()
            || stream.write_all(b"\r\n").await.is_err()
        {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    let answer = String::from_utf8_lossy(&answer);
    answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status: {answer:?}"))
}

on_both! {
    async fn the_same_notification_twice_and_eight_times_at_once_is_recorded_once() {
        let mut hook = Hook::start(sandbox_key()).await;
        let key = sandbox_key();
        let json = "application/json";
        let first = notification("op-twice", Some(key.as_webhook_key()));
        assert_eq!(post(&hook.url, json, first.clone()).await, 200);
        assert_eq!(post(&hook.url, json, first).await, 200);
        let body = notification("op-eight", Some(key.as_webhook_key()));
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let (url, body) = (hook.url.clone(), body.clone());
            tasks.push(tokio::spawn(async move { post(&url, json, body).await }));
        }
        for task in tasks {
            assert_eq!(task.await.unwrap(), 200);
        }
        let rows = hook.recorded(ROMASHKA);
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids.len(), 2, "{ids:?}");
        assert!(ids.contains(&"op-twice") && ids.contains(&"op-eight"));
        let news = hook.news();
        assert_eq!(news.len(), 2, "one signal per new operation: {news:?}");
        assert_eq!(news[0].amount, Some(Decimal::new(150050, 2)));
        assert_eq!(news[0].category.as_deref(), Some("Debet"));
        assert_eq!(news[0].executed.as_deref(), Some("2026-11-20T10:15:00"));
    }
}

on_both! {
    async fn notifications_keyed_by_the_registered_token() {
        let bank = bank().await;
        // A cabinet token: its first 10 characters key the hash.
        let cabinet = "cabinet-token-full-rights";
        let mut hook = Hook::start(Key::Token(Token::new(cabinet))).await;
        bank.control()
            .set_webhook_with_token(Some(hook.url.clone()), Some(cabinet))
            .unwrap();
        bank.control()
            .receive(&receive(ROMASHKA, 3, OperationKind::Incoming))
            .unwrap();
        deliveries_when(&bank, |d| {
            d.iter().filter(|d| d.status == Some(200)).count() == 3
        })
        .await;
        assert_eq!(hook.recorded(ROMASHKA).len(), 3);
        assert_eq!(hook.news().len(), 3);
        // A listener keyed by another token refuses them all (403), three times each.
        let wrong = Hook::start(sandbox_key()).await;
        bank.control()
            .set_webhook_with_token(Some(wrong.url.clone()), Some(cabinet))
            .unwrap();
        let op = bank
            .control()
            .receive(&receive(ROMASHKA, 1, OperationKind::Incoming))
            .unwrap()
            .remove(0);
        let deliveries = deliveries_when(&bank, |d| {
            d.iter().any(|d| d.operation_id == op.id && d.attempt == 2)
        })
        .await;
        assert!(
            deliveries
                .iter()
                .filter(|d| d.operation_id == op.id)
                .all(|d| d.status == Some(403)),
            "{deliveries:?}"
        );
        assert!(wrong.recorded(ROMASHKA).is_empty());
        // Tokens that cannot key notifications are refused, without being quoted.
        for token in ["no-such-token-xyz", "cabinet-token-account-info"] {
            let e = bank
                .control()
                .set_webhook_with_token(Some(hook.url.clone()), Some(token))
                .unwrap_err();
            assert!(!e.to_string().contains(token), "{e}");
        }
        // Accounts of another user are not notified to this user's token.
        let before = bank.control().deliveries().len();
        bank.control()
            .set_webhook_with_token(Some(hook.url.clone()), Some(cabinet))
            .unwrap();
        bank.control()
            .receive(&receive(OTHER_USER, 2, OperationKind::Incoming))
            .unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let after: Vec<Delivery> = bank.control().deliveries()[before..]
            .iter()
            .filter(|d| d.attempt == 1 && d.status != Some(403))
            .cloned()
            .collect();
        assert!(after.is_empty(), "{after:?}");
    }
}

async fn admin(bank: &Sandbox, path: &str, body: serde_json::Value) -> (u16, serde_json::Value) {
    let response = reqwest::Client::new()
        .post(format!("http://{}/admin{path}", bank.addr()))
        .bearer_auth(bank.admin_token())
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

on_both! {
    async fn thousands_of_operations_on_one_day_through_the_admin_interface_and_history() {
        let bank = bank().await;
        let started = Instant::now();
        let (status, answer) = admin(
            &bank,
            "/operations",
            serde_json::json!({"account": ROMASHKA, "count": 3000, "date": "20.11.2026",
                               "kind": "incoming", "amount": "10.25"}),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["count"], 3000);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        // The history shows them, paged by 50, all on that day, each once.
        let client = Client::builder(bank.url())
            .token(Token::new("cabinet-token-full-rights"))
            .build()
            .unwrap();
        let account_id = client
            .companies()
            .await
            .unwrap()
            .into_iter()
            .flat_map(|c| c.bank_accounts)
            .find(|a| a.number.as_deref() == Some(ROMASHKA))
            .unwrap()
            .id;
        let ops = client
            .operations_between(&account_id, day(), day())
            .await
            .unwrap();
        let ids: std::collections::HashSet<&str> = ops.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(ids.len(), 3000);
        assert!(ops.iter().all(|o| o.amount == Some(Decimal::new(1025, 2))));
        let sum: Decimal = ops.iter().filter_map(|o| o.amount).sum();
        assert_eq!(sum, Decimal::new(3000 * 1025, 2));
        // By the account's id too; bad requests are refused with a reason.
        let (status, _) = admin(
            &bank,
            "/operations",
            serde_json::json!({"account": account_id, "kind": "budget"}),
        )
        .await;
        assert_eq!(status, 200);
        for (body, says) in [
            (serde_json::json!({"account": "nope"}), "no account"),
            (
                serde_json::json!({"account": ROMASHKA, "kind": "gift"}),
                "kind",
            ),
            (
                serde_json::json!({"account": ROMASHKA, "count": 0}),
                "count",
            ),
            (
                serde_json::json!({"account": ROMASHKA, "date": "31.02.2026"}),
                "date",
            ),
            (
                serde_json::json!({"account": ROMASHKA, "amount": -1}),
                "amount",
            ),
            (
                serde_json::json!({"account": ROMASHKA, "amount": "1.005"}),
                "amount",
            ),
            (
                serde_json::json!({"account": ROMASHKA, "colour": "red"}),
                "colour",
            ),
        ] {
            let (status, answer) = admin(&bank, "/operations", body.clone()).await;
            assert_eq!(status, 400, "{body}: {answer}");
            assert!(answer.to_string().contains(says), "{body}: {answer}");
        }
        // The admin guard holds: no token, no entry.
        let response = reqwest::Client::new()
            .post(format!("http://{}/admin/operations", bank.addr()))
            .json(&serde_json::json!({"account": ROMASHKA}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 401);
        // The webhook registration takes a token, refused without quoting it.
        let (status, answer) = admin(
            &bank,
            "/webhook",
            serde_json::json!({"url": "http://127.0.0.1:9/hook", "token": "secret-unknown-token"}),
        )
        .await;
        assert_eq!(status, 400);
        assert!(
            !answer.to_string().contains("secret-unknown-token"),
            "{answer}"
        );
        let (status, answer) = admin(
            &bank,
            "/webhook",
            serde_json::json!({"url": "http://127.0.0.1:9/hook", "token": 5}),
        )
        .await;
        assert_eq!(status, 400, "{answer}");
        let (status, answer) = admin(
            &bank,
            "/webhook",
            serde_json::json!({"url": "http://127.0.0.1:9/hook", "token": "cabinet-token-full-rights"}),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        assert!(!answer.to_string().contains("cabinet-token"), "{answer}");
    }
}

/// Open file descriptors of this process (Linux).
fn open_files() -> Option<usize> {
    std::fs::read_dir("/proc/self/fd").ok().map(|d| d.count())
}

#[tokio::test]
async fn connections_held_open_are_bounded_and_a_notification_gets_through_after() {
    use tokio::io::AsyncWriteExt;
    let hook = Hook::start(sandbox_key()).await;
    let before = open_files();
    // Many more connections than the listener serves at once, each sending half a request head.
    let mut held = Vec::new();
    for _ in 0..(webhook::MAX_CONNECTIONS + 300) {
        let Ok(mut stream) = tokio::net::TcpStream::connect(hook.addr).await else {
            break;
        };
        let _ = stream
            .write_all(b"POST /hook HTTP/1.1\r\nHost: x\r\n")
            .await;
        held.push(stream);
    }
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    if let (Some(before), Some(now)) = (before, open_files()) {
        // This process holds both ends: ours (held) and the listener's (at most its slots; the
        // other tests running beside this one open some files too, hence the margin).
        let listener_side = now.saturating_sub(before + held.len());
        assert!(
            listener_side <= webhook::MAX_CONNECTIONS + 120,
            "the listener holds {listener_side} connections"
        );
    }
    drop(held);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let key = sandbox_key();
    let body = notification("op-after-the-flood", Some(key.as_webhook_key()));
    assert_eq!(post(&hook.url, "application/json", body).await, 200);
    assert_eq!(hook.recorded(ROMASHKA).len(), 1);
}
