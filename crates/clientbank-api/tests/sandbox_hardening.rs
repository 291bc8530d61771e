//! The sandbox bank under attack, over real sockets on 127.0.0.1 (issue 8): one payment is
//! executed once however many signatures race for it; only payments awaiting signature, of the
//! certificate's company, can be signed; the admin interface wants its token, a loopback Host
//! and JSON; webhooks go only to HTTPS (or loopback) and only for `operation-history`; time
//! arithmetic is checked; memory is bounded; refusals come in the bank's error shape.

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use clientbank_api::{Client, Error, HistoryFilter, Retry, SignRequest, Token};
use clientbank_payment::UploadRequest;
use clientbank_payment::json::{Parameters, read_requests};
use clientbank_sandbox::{Config, DropConnection, Fault, Sandbox};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The main account of the first sandbox company (ООО "Ромашка", ИНН 7701234560).
const MAIN: &str = "5a4d0002-0000-4000-8000-000000000001";
const MAIN_NUMBER: &str = "40702810938000012345";
/// The first company and the other user's.
const ROMASHKA: &str = "5a4d0001-0000-4000-8000-000000000001";
const FOREIGN_COMPANY: &str = "5a4d0001-0000-4000-8000-000000000003";
const FULL: &str = "cabinet-token-full-rights";

/// The sandbox bank's day (Moscow) on its own clock: what it executes now is dated so.
fn bank_day(bank: &Sandbox) -> chrono::NaiveDate {
    let now = bank
        .control()
        .advance_clock(chrono::Duration::zero())
        .unwrap();
    (now + chrono::Duration::hours(3)).date()
}

/// The history of `bank`'s day: what it executed now, whatever its sample history holds.
fn of_the_day(bank: &Sandbox) -> HistoryFilter {
    let day = bank_day(bank);
    HistoryFilter {
        from: Some(day),
        till: Some(day),
        ..HistoryFilter::default()
    }
}

async fn bank() -> Sandbox {
    bank_with(Config {
        time_scale: 0.001,
        ..Config::default()
    })
    .await
}

async fn bank_with(config: Config) -> Sandbox {
    Sandbox::start(config)
        .await
        .expect("the sandbox bank starts")
}

fn client(bank: &Sandbox, token: &str) -> Client {
    Client::builder(bank.url())
        .token(Token::new(token))
        .retry(Retry::NONE)
        .build()
        .unwrap()
}

/// The sample upload requests, dated today, awaiting signature unless `draft`.
fn requests(draft: bool) -> Vec<UploadRequest> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/valid/upload-requests.json");
    let (mut requests, _) = read_requests(&std::fs::read(path).unwrap()).unwrap();
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let today = chrono::DateTime::from_timestamp(seconds + 3 * 3600, 0)
        .unwrap()
        .date_naive();
    for request in &mut requests {
        request.payment.date = Some(today);
        request.parameters = (!draft).then(|| Parameters {
            target_status: Some("InSigning".into()),
        });
    }
    requests
}

/// One payment of the first company awaiting signature: its id.
async fn awaiting(client: &Client) -> String {
    client.upload(&requests(false)[0]).await.unwrap().created()[0].to_string()
}

/// A throwaway EC certificate with the subject given, and detached CMS signatures by it.
struct Signer {
    dir: tempfile::TempDir,
}

fn openssl(dir: &std::path::Path, args: &[&str]) {
    let output = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl runs");
    assert!(
        output.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

impl Signer {
    fn new(subject: &str) -> Signer {
        let dir = tempfile::tempdir().unwrap();
        openssl(
            dir.path(),
            &[
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                "key.pem",
                "-out",
                "cert.pem",
                "-days",
                "30",
                "-utf8",
                "-subj",
                subject,
            ],
        );
        Signer { dir }
    }

    /// A certificate of ООО "Ромашка" (INN written as older qualified certificates do).
    fn romashka() -> Signer {
        Signer::new("/CN=Иванов Иван Иванович/O=Ромашка/INN=007701234560")
    }

    fn sign(&self, content: &str) -> String {
        std::fs::write(self.dir.path().join("content"), content).unwrap();
        openssl(
            self.dir.path(),
            &[
                "cms", "-sign", "-binary", "-in", "content", "-signer", "cert.pem", "-inkey",
                "key.pem", "-outform", "DER", "-out", "sig.der",
            ],
        );
        base64::engine::general_purpose::STANDARD
            .encode(std::fs::read(self.dir.path().join("sig.der")).unwrap())
    }

    fn request(&self, ids: &[&str]) -> SignRequest {
        let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        SignRequest {
            sign_base64: self.sign(&SignRequest::signed_content(&ids)),
            operations: ids,
        }
    }
}

fn status_of(bank: &Sandbox, id: &str) -> (String, bool) {
    let payment = bank
        .control()
        .payments()
        .into_iter()
        .find(|p| p.id == id)
        .expect("the payment is there");
    (payment.status, payment.awaiting_signature)
}

async fn executed_count(bank: &Sandbox, client: &Client, id: &str) -> usize {
    let history = client
        .operation_history(MAIN, &of_the_day(bank))
        .await
        .unwrap();
    history.iter().filter(|op| op.id == id).count()
}

/// A raw HTTP/1.1 exchange (any Host, any header): the status and the body.
async fn raw(addr: std::net::SocketAddr, request: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("the bank answers")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// An admin request over a raw socket.
async fn admin(
    bank: &Sandbox,
    method: &str,
    path: &str,
    host: &str,
    token: Option<&str>,
    content_type: Option<&str>,
    body: &str,
) -> (u16, Value) {
    let mut request = format!("{method} /admin{path} HTTP/1.1\r\nHost: {host}\r\n");
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    if let Some(content_type) = content_type {
        request.push_str(&format!("Content-Type: {content_type}\r\n"));
    }
    request.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    let (status, body) = raw(bank.addr(), &request).await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

// --- Item 2: one payment, executed once ------------------------------------------------------

#[tokio::test]
async fn duplicate_ids_in_one_signature_are_refused() {
    let bank = bank().await;
    let client = client(&bank, FULL);
    let signer = Signer::romashka();
    let id = awaiting(&client).await;
    let before = client.balance(MAIN).await.unwrap();
    match client.sign(&signer.request(&[&id, &id])).await.unwrap_err() {
        Error::Api {
            status: 400,
            message,
            ..
        } => assert!(message.contains("дважды"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(client.balance(MAIN).await.unwrap(), before);
    assert_eq!(executed_count(&bank, &client, &id).await, 0);
    assert_eq!(
        status_of(&bank, &id),
        ("Draft".into(), true),
        "still signable"
    );
    client.sign(&signer.request(&[&id])).await.unwrap();
    let sum = requests(false)[0].payment.sum.unwrap();
    assert_eq!(client.balance(MAIN).await.unwrap(), before - sum);
    assert_eq!(executed_count(&bank, &client, &id).await, 1);
}

#[tokio::test]
async fn sixteen_parallel_signatures_execute_a_payment_once() {
    let bank = bank().await;
    let (url, received) = receiver(vec![]).await;
    bank.control().set_webhook(Some(url)).unwrap();
    let client = client(&bank, FULL);
    let signer = Signer::romashka();
    let id = awaiting(&client).await;
    let before = client.balance(MAIN).await.unwrap();
    let operations_before = client
        .operation_history(MAIN, &HistoryFilter::default())
        .await
        .unwrap()
        .len();
    let request = signer.request(&[&id]);
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let client = client.clone();
            let request = request.clone();
            tokio::spawn(async move { client.sign(&request).await })
        })
        .collect();
    let mut accepted = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(_) => accepted += 1,
            Err(Error::Api { status, .. }) => assert!(status == 400 || status == 409, "{status}"),
            Err(other) => panic!("{other:?}"),
        }
    }
    assert_eq!(accepted, 1, "exactly one signature executes the payment");
    let sum = requests(false)[0].payment.sum.unwrap();
    assert_eq!(client.balance(MAIN).await.unwrap(), before - sum, "once");
    assert_eq!(
        executed_count(&bank, &client, &id).await,
        1,
        "one history record"
    );
    assert!(operations_before > 0);
    assert_eq!(status_of(&bank, &id), ("Executed".into(), false));
    // One notification, not sixteen.
    for _ in 0..40 {
        if !received.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(received.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_refused_signature_leaves_the_payment_signable() {
    let bank = bank().await;
    let client = client(&bank, FULL);
    let signer = Signer::romashka();
    let id = awaiting(&client).await;
    // Over other content.
    let wrong = SignRequest {
        operations: vec![id.clone()],
        sign_base64: signer.sign("something else"),
    };
    assert!(matches!(
        client.sign(&wrong).await,
        Err(Error::SignCheck { .. })
    ));
    assert_eq!(status_of(&bank, &id), ("Draft".into(), true));
    // Not Base64.
    let garbage = SignRequest {
        operations: vec![id.clone()],
        sign_base64: "not base64!".into(),
    };
    assert!(matches!(
        client.sign(&garbage).await,
        Err(Error::SignCheck { .. })
    ));
    // Expired.
    bank.control()
        .advance_clock(chrono::Duration::days(45))
        .unwrap();
    assert!(matches!(
        client.sign(&signer.request(&[&id])).await,
        Err(Error::SignCheck { .. })
    ));
    bank.control()
        .advance_clock(chrono::Duration::days(-45))
        .unwrap();
    assert_eq!(status_of(&bank, &id), ("Draft".into(), true));
    client.sign(&signer.request(&[&id])).await.unwrap();
    assert_eq!(status_of(&bank, &id), ("Executed".into(), false));
}

#[tokio::test]
async fn drafts_cannot_be_signed() {
    let bank = bank().await;
    let client = client(&bank, FULL);
    let signer = Signer::romashka();
    let draft = client.upload(&requests(true)[0]).await.unwrap().created()[0].to_string();
    let ready = awaiting(&client).await;
    match client.sign(&signer.request(&[&draft])).await.unwrap_err() {
        Error::Api {
            status: 400,
            exception_type,
            message,
        } => {
            assert_eq!(exception_type, "InvalidState");
            assert!(message.contains("черновик"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // A draft among payments awaiting signature refuses the whole request.
    assert!(
        client
            .sign(&signer.request(&[&draft, &ready]))
            .await
            .is_err()
    );
    assert_eq!(status_of(&bank, &draft), ("Draft".into(), false));
    assert_eq!(status_of(&bank, &ready), ("Draft".into(), true));
    client.sign(&signer.request(&[&ready])).await.unwrap();
}

#[tokio::test]
async fn only_a_certificate_of_the_owning_company_signs() {
    let bank = bank().await;
    let client = client(&bank, FULL);
    let id = awaiting(&client).await;
    // The user's other company (ИП Иванов, 12-digit INN) does not sign Ромашка's payment.
    let ivanov = Signer::new("/CN=Иванов Иван Иванович/INN=500100732259");
    match client.sign(&ivanov.request(&[&id])).await.unwrap_err() {
        Error::SignCheck { message } => {
            assert!(message.contains("7701234560"), "{message}");
            assert!(message.contains("500100732259"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // A certificate that names no INN signs nothing.
    let nobody = Signer::new("/CN=Иванов Иван Иванович/O=Ромашка");
    match client.sign(&nobody.request(&[&id])).await.unwrap_err() {
        Error::SignCheck { message } => assert!(message.contains("ИНН"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(status_of(&bank, &id), ("Draft".into(), true));
    // The 10-digit form of the INN is the company's too.
    let plain = Signer::new("/CN=Петров Пётр/INN=7701234560");
    client.sign(&plain.request(&[&id])).await.unwrap();
}

// --- Item 4: the admin interface ----------------------------------------------------------

#[tokio::test]
async fn the_admin_interface_refuses_strangers() {
    let bank = bank().await;
    let token = bank.admin_token().to_string();
    assert_eq!(token.len(), 64, "a 256-bit secret");
    let other = bank_with(Config::default()).await;
    assert_ne!(token, other.admin_token(), "a new token every run");
    let host = bank.addr().to_string();
    let on = r#"{"on": true}"#;
    let json = Some("application/json");
    // No token, a wrong one, another run's.
    for wrong in [None, Some("nope"), Some(other.admin_token())] {
        let (status, body) = admin(&bank, "POST", "/maintenance", &host, wrong, json, on).await;
        assert_eq!(status, 401, "{body}");
        assert_eq!(body["exceptionType"], "Unauthorized");
    }
    let (status, _) = admin(&bank, "GET", "/payments", &host, None, None, "").await;
    assert_eq!(status, 401, "reads want the token too");
    // A Host that is not loopback with this port: DNS rebinding.
    let port = bank.addr().port();
    for host in [
        format!("evil.example:{port}"),
        "127.0.0.1".to_string(),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        format!("localhost.evil.example:{port}"),
    ] {
        let (status, body) = admin(&bank, "GET", "/payments", &host, Some(&token), None, "").await;
        assert_eq!(status, 403, "{host}: {body}");
        assert_eq!(body["exceptionType"], "AccessDenied");
    }
    for host in [
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        format!("127.0.0.1:{port}"),
    ] {
        let (status, _) = admin(&bank, "GET", "/payments", &host, Some(&token), None, "").await;
        assert_eq!(status, 200, "{host}");
    }
    // Writes are JSON: a form or text/plain post (what a web page can send) is refused.
    for content_type in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ] {
        let (status, body) = admin(
            &bank,
            "POST",
            "/maintenance",
            &host,
            Some(&token),
            content_type,
            on,
        )
        .await;
        assert_eq!(status, 415, "{content_type:?}: {body}");
    }
    // An empty or incomplete body does not switch maintenance on.
    for body in ["", "{}", r#"{"on": "yes"}"#, r#"{"on": true, "extra": 1}"#] {
        let (status, answer) = admin(
            &bank,
            "POST",
            "/maintenance",
            &host,
            Some(&token),
            json,
            body,
        )
        .await;
        assert_eq!(status, 400, "{body:?}: {answer}");
        assert_eq!(answer["exceptionType"], "ValidationError");
    }
    let client = client(&bank, FULL);
    assert!(client.companies().await.is_ok(), "maintenance still off");
    let (status, _) = admin(
        &bank,
        "POST",
        "/maintenance",
        &host,
        Some(&token),
        Some("application/json; charset=utf-8"),
        on,
    )
    .await;
    assert_eq!(status, 200);
    assert!(matches!(client.companies().await, Err(Error::Maintenance)));
    // Faults out of range.
    for body in [
        r#"{"delay_ms": 18446744073709551615}"#,
        r#"{"status": 200}"#,
        r#"{"times": 0}"#,
        r#"{"status": "500"}"#,
    ] {
        let (status, answer) =
            admin(&bank, "POST", "/faults", &host, Some(&token), json, body).await;
        assert_eq!(status, 400, "{body}: {answer}");
    }
}

// --- Item 5: webhooks ---------------------------------------------------------------------

/// A webhook receiver on 127.0.0.1 answering the statuses given, then 200; what it received.
async fn receiver(statuses: Vec<u16>) -> (String, Arc<Mutex<Vec<Vec<u8>>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let statuses = Arc::new(Mutex::new(statuses));
    let store = received.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: axum::body::Bytes| {
            let store = store.clone();
            let statuses = statuses.clone();
            async move {
                store.lock().unwrap().push(body.to_vec());
                let mut statuses = statuses.lock().unwrap();
                let status = if statuses.is_empty() {
                    200
                } else {
                    statuses.remove(0)
                };
                axum::http::StatusCode::from_u16(status).unwrap()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/hook"), received)
}

#[tokio::test]
async fn webhook_addresses_are_https_or_loopback() {
    let bank = bank().await;
    let control = bank.control();
    for url in [
        "http://example.com/hook",
        "http://10.0.0.1/hook",
        "http://127.0.0.1.evil.example/hook",
        "ftp://127.0.0.1/hook",
        "file:///etc/passwd",
        "https://user:secret@bank.example/hook",
        "not a url",
    ] {
        assert!(control.set_webhook(Some(url.into())).is_err(), "{url}");
    }
    for url in [
        "https://bank.example/hook",
        "http://127.0.0.1:9/hook",
        "http://[::1]:9/hook",
        "http://localhost:9/hook",
    ] {
        control.set_webhook(Some(url.into())).unwrap();
    }
    control.set_webhook(None).unwrap();
    let host = bank.addr().to_string();
    let token = bank.admin_token().to_string();
    let json = Some("application/json");
    let (status, body) = admin(
        &bank,
        "POST",
        "/webhook",
        &host,
        Some(&token),
        json,
        r#"{"url": "http://192.168.1.1/hook"}"#,
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("HTTPS"),
        "{body}"
    );
    let (status, _) = admin(&bank, "POST", "/webhook", &host, Some(&token), json, "{}").await;
    assert_eq!(status, 400, "url is required (null removes it)");
    let (status, _) = admin(
        &bank,
        "POST",
        "/webhook",
        &host,
        Some(&token),
        json,
        r#"{"url": null}"#,
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn webhooks_need_the_operation_history_right_and_never_follow_redirects() {
    let mut config = Config {
        time_scale: 0.001,
        ..Config::default()
    };
    config.cabinet_tokens.push((
        "cabinet-token-pay-only".into(),
        vec!["account-info".into(), "money-transfer".into()],
    ));
    let bank = bank_with(config).await;
    let (url, received) = receiver(vec![]).await;
    bank.control().set_webhook(Some(url.clone())).unwrap();
    let signer = Signer::romashka();
    let pay_only = client(&bank, "cabinet-token-pay-only");
    let silent = awaiting(&pay_only).await;
    pay_only.sign(&signer.request(&[&silent])).await.unwrap();
    let full = client(&bank, FULL);
    let notified = awaiting(&full).await;
    full.sign(&signer.request(&[&notified])).await.unwrap();
    for _ in 0..100 {
        if !received.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let bodies: Vec<Value> = received
        .lock()
        .unwrap()
        .iter()
        .map(|b| serde_json::from_slice(b).unwrap())
        .collect();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    assert_eq!(bodies[0]["operation"]["id"], notified.as_str());
    assert!(
        bank.control()
            .deliveries()
            .iter()
            .all(|d| d.operation_id != silent)
    );

    // A receiver that redirects elsewhere: the bank does not follow.
    let (elsewhere, followed) = receiver(vec![]).await;
    let redirecting = axum::Router::new().route(
        "/hook",
        axum::routing::post(move || {
            let elsewhere = elsewhere.clone();
            async move { axum::response::Redirect::temporary(&elsewhere) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, redirecting).await.unwrap() });
    bank.control()
        .set_webhook(Some(format!("http://{addr}/hook")))
        .unwrap();
    let id = awaiting(&full).await;
    full.sign(&signer.request(&[&id])).await.unwrap();
    for _ in 0..100 {
        if bank
            .control()
            .deliveries()
            .iter()
            .any(|d| d.operation_id == id)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let first = bank
        .control()
        .deliveries()
        .into_iter()
        .find(|d| d.operation_id == id)
        .expect("an attempt was made");
    assert_eq!(first.status, Some(307), "the redirect is the answer");
    assert!(followed.lock().unwrap().is_empty(), "not followed");
}

// --- Item 6: checked time -----------------------------------------------------------------

#[tokio::test]
async fn the_clock_refuses_moves_that_would_overflow() {
    let bank = bank().await;
    let client = client(&bank, FULL);
    let host = bank.addr().to_string();
    let token = bank.admin_token().to_string();
    let json = Some("application/json");
    for seconds in [
        i64::MAX.to_string(),
        i64::MIN.to_string(),
        "9223372036854775".to_string(),
        (200_i64 * 366 * 86_400).to_string(),
        "1e300".to_string(),
        "\"soon\"".to_string(),
    ] {
        let body = format!(r#"{{"advance_seconds": {seconds}}}"#);
        let (status, answer) =
            admin(&bank, "POST", "/clock", &host, Some(&token), json, &body).await;
        assert_eq!(status, 400, "{seconds}: {answer}");
        assert!(client.companies().await.is_ok(), "{seconds}: still answers");
    }
    assert!(bank.control().advance_clock(chrono::Duration::MAX).is_err());
    assert!(bank.control().advance_clock(chrono::Duration::MIN).is_err());
    // Many moves within the bound add up, and past it are refused.
    let year = r#"{"advance_seconds": 31622400}"#;
    let mut refused = false;
    for _ in 0..120 {
        let (status, _) = admin(&bank, "POST", "/clock", &host, Some(&token), json, year).await;
        if status == 400 {
            refused = true;
            break;
        }
        assert_eq!(status, 200);
    }
    assert!(refused, "the clock stops at 100 years");
    bank.control()
        .advance_clock(chrono::Duration::days(-100 * 366))
        .unwrap();
    assert!(client.companies().await.is_ok());
}

#[tokio::test]
async fn time_scales_out_of_range_are_refused() {
    for scale in [1e300, -1.0, f64::NAN, f64::INFINITY, 0.0, -0.0, 1001.0] {
        let err = Sandbox::start(Config {
            time_scale: scale,
            ..Config::default()
        })
        .await
        .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{scale}");
        assert!(err.to_string().contains("time scale"), "{scale}: {err}");
    }
    for scale in [1e-9, 0.001, 1.0, 1000.0] {
        assert!(
            clientbank_sandbox::check_time_scale(scale).is_ok(),
            "{scale}"
        );
    }
}

// --- Item 7: bounded memory, unpredictable secrets ----------------------------------------

#[tokio::test]
async fn the_fault_path_reads_no_more_than_the_normal_path() {
    let bank = bank().await;
    bank.control().set_fault(Some(Fault {
        drop: Some(DropConnection::BeforeActing),
        ..Fault::default()
    }));
    // A body announced far over the limit is not waited for: the connection is closed at once.
    let mut stream = tokio::net::TcpStream::connect(bank.addr()).await.unwrap();
    let head = "POST /v1/operation-upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&[b' '; 1024]).await.unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut rest)).await;
    assert!(
        closed.is_ok(),
        "the bank closed the connection without reading 1 GiB"
    );
    // A chunked body of unannounced size is read up to the limit, not further.
    let mut stream = tokio::net::TcpStream::connect(bank.addr()).await.unwrap();
    let head = "POST /v1/operation-upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
    let chunk = format!("10000\r\n{}\r\n", " ".repeat(0x10000));
    let mut sent = 0;
    while sent <= clientbank_sandbox::BODY_LIMIT + 0x10000 {
        if stream.write_all(chunk.as_bytes()).await.is_err() {
            break;
        }
        sent += 0x10000;
    }
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut rest)).await;
    assert!(
        closed.is_ok(),
        "the bank stopped reading at the limit ({sent} bytes sent)"
    );
    bank.control().set_fault(None);
    // The normal path: 413, in the bank's error shape.
    let (status, body) = raw(
        bank.addr(),
        "POST /v1/operation-upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer cabinet-token-full-rights\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 413, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["exceptionType"], "PayloadTooLarge");
}

/// An authorization request's code, or the refusal's status.
async fn authorize(http: &reqwest::Client, bank: &Sandbox) -> Result<String, u16> {
    let redirect = Config::default().redirect_uri;
    let answer = http
        .get(format!(
            "{}/oauth/authorize?model.clientId=sandboxapp&model.redirectUri={redirect}&model.scope=account-info",
            bank.url()
        ))
        .send()
        .await
        .unwrap();
    if answer.status() != 302 {
        return Err(answer.status().as_u16());
    }
    let location = answer.headers()["location"].to_str().unwrap().to_string();
    Ok(location
        .split("code=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap()
        .to_string())
}

#[tokio::test]
async fn oauth_codes_are_random_bounded_and_purged() {
    let bank = bank().await;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let first = authorize(&http, &bank).await.unwrap();
    let second = authorize(&http, &bank).await.unwrap();
    assert_ne!(first, second);
    for code in [&first, &second] {
        assert_eq!(code.len(), 64, "{code}");
        assert!(code.bytes().all(|b| b.is_ascii_hexdigit()), "{code}");
    }
    let common = first
        .bytes()
        .zip(second.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    assert!(common < 16, "{first} {second}: not from a counter");
    // Tokens: random too, and not derived from the code.
    let anonymous = Client::builder(bank.url())
        .retry(Retry::NONE)
        .build()
        .unwrap();
    let token = anonymous
        .exchange_code(&clientbank_api::TokenRequest {
            client_id: "sandboxapp".into(),
            client_secret: "sandboxappsecret".into(),
            redirect_uri: Config::default().redirect_uri,
            code: first.clone(),
        })
        .await
        .unwrap();
    let user = Client::builder(bank.url())
        .token(token)
        .retry(Retry::NONE)
        .build()
        .unwrap();
    assert!(user.companies().await.is_ok());
    // Unused codes are bounded: 1000 pending at most …
    let mut refused = None;
    for i in 0..1_100 {
        if let Err(status) = authorize(&http, &bank).await {
            refused = Some((i, status));
            break;
        }
    }
    let (at, status) = refused.expect("the pending codes are bounded");
    assert_eq!(status, 429);
    assert!(at >= 990, "{at}");
    // … and expired ones are forgotten.
    bank.control()
        .advance_clock(chrono::Duration::seconds(61))
        .unwrap();
    assert!(authorize(&http, &bank).await.is_ok());
}

#[tokio::test]
async fn payment_ids_are_random_uuids() {
    let bank = bank().await;
    let client = client(&bank, FULL);
    let a = awaiting(&client).await;
    let b = awaiting(&client).await;
    for id in [&a, &b] {
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'), "version 4: {id}");
    }
    assert_ne!(a[..8], b[..8], "{a} {b}");
}

// --- Item 9: fidelity to API.md ---------------------------------------------------------------

#[tokio::test]
async fn history_filters_by_retail_point() {
    let bank = bank().await;
    let client = client(&bank, FULL);
    let points = client.retail_points(ROMASHKA).await.unwrap();
    let points: Vec<String> = points
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(points.len(), 2);
    let page = |point: Option<String>| {
        let client = client.clone();
        async move {
            let mut all = Vec::new();
            for skip in (0..400).step_by(50) {
                let filter = HistoryFilter {
                    records: Some(50),
                    skip: Some(skip),
                    sbp_retail_point_id: point.clone(),
                    ..HistoryFilter::default()
                };
                all.extend(client.operation_history(MAIN, &filter).await.unwrap());
            }
            all
        }
    };
    let everything = page(None).await;
    let sbp = everything
        .iter()
        .filter(|op| op.rcv_qrc_id.is_some())
        .count();
    assert!(sbp >= 2, "{sbp}");
    let mut by_point = 0;
    for point in &points {
        let at = page(Some(point.clone())).await;
        assert!(!at.is_empty(), "{point}");
        assert!(
            at.iter().all(|op| op.rcv_qrc_id.is_some()),
            "SBP payments only"
        );
        by_point += at.len();
    }
    assert_eq!(by_point, sbp, "every SBP payment is at one point");
    assert!(
        page(Some("5a4d000a-0000-4000-8000-00000000ffff".into()))
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn retail_points_want_a_company_and_registration_answers_the_point() {
    let bank = bank().await;
    let client = client(&bank, FULL);
    let (status, body) = raw(
        bank.addr(),
        "GET /v1/sbp/retail-points HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer cabinet-token-full-rights\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 400, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["exceptionType"], "ValidationError");
    assert!(body["message"].as_str().unwrap().contains("companyId"));
    assert!(matches!(
        client.retail_points(FOREIGN_COMPANY).await,
        Err(Error::AccessDenied { status: 400, .. })
    ));
    let registered = client
        .register_retail_point(&json!({"companyId": ROMASHKA, "name": "Киоск на Пушкинской"}))
        .await
        .unwrap();
    assert!(
        registered.is_object(),
        "the registration result, not the list: {registered}"
    );
    assert_eq!(registered["name"], "Киоск на Пушкинской");
    let id = registered["id"].as_str().unwrap();
    let listed = client.retail_points(ROMASHKA).await.unwrap();
    assert!(listed.as_array().unwrap().iter().any(|p| p["id"] == id));
    assert!(matches!(
        client
            .register_retail_point(&json!({"companyId": FOREIGN_COMPANY, "name": "x"}))
            .await,
        Err(Error::AccessDenied { status: 400, .. })
    ));
    assert!(matches!(
        client.register_retail_point(&json!({"name": "x"})).await,
        Err(Error::Api { status: 400, .. })
    ));
}

#[tokio::test]
async fn refusals_of_the_framework_come_in_the_bank_error_shape() {
    let bank = bank().await;
    // 405: a path that exists, a method it does not take.
    let (status, body) = raw(
        bank.addr(),
        "GET /v1/account-info HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer cabinet-token-full-rights\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 405, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["exceptionType"], "MethodNotAllowed");
    assert!(body["message"].is_string());
    // 413: a body over the limit, sent in full.
    let big = format!(
        r#"{{"document": "{}"}}"#,
        "x".repeat(clientbank_sandbox::BODY_LIMIT)
    );
    let answer = reqwest::Client::new()
        .post(format!("{}/operation-upload/1c", bank.url()))
        .bearer_auth(FULL)
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await;
    if let Ok(answer) = answer {
        assert_eq!(answer.status(), 413);
        let body: Value = answer.json().await.unwrap();
        assert_eq!(body["exceptionType"], "PayloadTooLarge");
    }
}

#[tokio::test]
async fn unknown_target_statuses_are_refused() {
    let bank = bank().await;
    let client = client(&bank, FULL);
    for status in ["Signed", "insigning", "Draft", ""] {
        let mut request = requests(true).remove(0);
        request.parameters = Some(Parameters {
            target_status: Some(status.into()),
        });
        match client.upload(&request).await.unwrap_err() {
            Error::Api {
                status: 400,
                exception_type,
                message,
            } => {
                assert_eq!(exception_type, "ValidationError");
                assert!(message.contains("targetStatus"), "{message}");
                assert!(
                    message.contains("не статус"),
                    "in the bank's Russian: {message}"
                );
            }
            other => panic!("{status}: {other:?}"),
        }
    }
    assert!(bank.control().payments().is_empty(), "nothing created");
}

#[tokio::test]
async fn nominal_account_sends_check_the_signature() {
    let bank = bank().await;
    let client = client(&bank, FULL);
    let romashka = Signer::romashka();
    let report =
        String::from_utf8(client.beneficiaries_report(MAIN_NUMBER).await.unwrap()).unwrap();
    // Any Base64 is not a signature.
    assert!(matches!(
        client.beneficiaries_report_send(MAIN_NUMBER, "AA==").await,
        Err(Error::SignCheck { .. })
    ));
    // A signature of another file.
    assert!(matches!(
        client
            .beneficiaries_report_send(MAIN_NUMBER, &romashka.sign("another report"))
            .await,
        Err(Error::SignCheck { .. })
    ));
    // Another company's certificate.
    let ivanov = Signer::new("/CN=Иванов Иван Иванович/INN=500100732259");
    assert!(matches!(
        client
            .beneficiaries_report_send(MAIN_NUMBER, &ivanov.sign(&report))
            .await,
        Err(Error::SignCheck { .. })
    ));
    // Another user's account.
    assert!(matches!(
        client
            .beneficiaries_report_send("40702810938000099999", &romashka.sign(&report))
            .await,
        Err(Error::AccessDenied { status: 400, .. })
    ));
    client
        .beneficiaries_report_send(MAIN_NUMBER, &romashka.sign(&report))
        .await
        .unwrap();
    // The v2 and form-part sends: the signature of their own file only.
    let part = "5a4d0008-0000-4000-8000-000000000001";
    let form = String::from_utf8(client.form_part(MAIN_NUMBER, part).await.unwrap()).unwrap();
    assert!(matches!(
        client
            .form_part_send(MAIN_NUMBER, part, &romashka.sign(&report))
            .await,
        Err(Error::SignCheck { .. })
    ));
    client
        .form_part_send(MAIN_NUMBER, part, &romashka.sign(&form))
        .await
        .unwrap();
    let v2 = String::from_utf8(client.report_v2(MAIN_NUMBER, part).await.unwrap()).unwrap();
    assert!(matches!(
        client.report_v2_send(MAIN_NUMBER, part, "").await,
        Err(Error::Api { status: 400, .. })
    ));
    client
        .report_v2_send(MAIN_NUMBER, part, &romashka.sign(&v2))
        .await
        .unwrap();
}

/// A request the bank cannot read is answered in the bank's language, Russian, as the real
/// bank's answers are (a client carries the message to a person); serde's own words may follow.
#[tokio::test]
async fn malformed_requests_are_answered_in_russian() {
    let bank = bank().await;
    let upload = |body: &'static str| {
        reqwest::Client::new()
            .post(format!("{}/operation-upload", bank.url()))
            .bearer_auth(FULL)
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let one = serde_json::to_string(&requests(true).remove(0)).unwrap();
    let two: &'static str = format!("[{one}, {one}]").leak();
    for (body, said) in [
        ("{", "ошибка синтаксиса JSON"),
        (two, "один запрос загрузки на вызов"),
        ("[]", "один запрос загрузки на вызов"),
    ] {
        let answer = upload(body).await.unwrap();
        assert_eq!(answer.status(), 400, "{body}");
        let answer: Value = answer.json().await.unwrap();
        assert_eq!(answer["exceptionType"], "ValidationError");
        let message = answer["message"].as_str().unwrap();
        assert!(message.contains(said), "{body}: {message}");
    }
    assert!(bank.control().payments().is_empty(), "nothing created");
}
