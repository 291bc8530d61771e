//! Writes the bank took but whose answer cannot be read, 503s that are not the bank's own
//! maintenance answer, odd history records and ids that would change the address: over real
//! sockets on 127.0.0.1, to the sandbox bank and to a tiny hand-written server that answers
//! what a proxy or a confused bank could.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use clientbank_api::{Client, Error, HistoryFilter, Retry, SignRequest, Token, TokenRequest};
use clientbank_payment::UploadRequest;
use clientbank_payment::json::read_requests;
use clientbank_sandbox::{Config, DropConnection, Fault, Sandbox};
use rust_decimal::Decimal;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The main account of the first sandbox company.
const MAIN: &str = "5a4d0002-0000-4000-8000-000000000001";

/// One answer of the hand-written server.
#[derive(Clone)]
struct Answer {
    status: u16,
    content_type: &'static str,
    body: String,
}

fn answer(status: u16, content_type: &'static str, body: &str) -> Answer {
    Answer {
        status,
        content_type,
        body: body.to_string(),
    }
}

/// A request as the hand-written server saw it: request line and body.
type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// A server on 127.0.0.1 that answers every request with `answers` in turn (the last one
/// repeated) and records what it was sent.
async fn server(answers: Vec<Answer>) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Seen = Arc::default();
    let record = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let mut buffer = Vec::new();
            let mut chunk = [0u8; 4096];
            let head_end = loop {
                if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                    break Some(at + 4);
                }
                match stream.read(&mut chunk).await {
                    Ok(0) | Err(_) => break None,
                    Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                }
            };
            let Some(head_end) = head_end else { continue };
            let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
            let length: usize = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse().ok())?
                })
                .unwrap_or(0);
            while buffer.len() < head_end + length {
                match stream.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                }
            }
            let body = String::from_utf8_lossy(&buffer[head_end..]).into_owned();
            let line = head.lines().next().unwrap_or_default().to_string();
            let index = {
                let mut seen = record.lock().unwrap();
                seen.push((line, body));
                seen.len() - 1
            };
            let reply = answers[index.min(answers.len() - 1)].clone();
            let text = format!(
                "HTTP/1.1 {} X\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                reply.status,
                reply.content_type,
                reply.body.len(),
                reply.body
            );
            let _ = stream.write_all(text.as_bytes()).await;
            let _ = stream.shutdown().await;
        }
    });
    (format!("http://{addr}/v1"), seen)
}

fn retry() -> Retry {
    Retry {
        retries: 2,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(20),
    }
}

fn client(url: &str) -> Client {
    Client::builder(url)
        .token(Token::new("sandboxtoken"))
        .sandbox(true)
        .retry(retry())
        .build()
        .unwrap()
}

/// The sample upload requests of `testdata/`, dated today in Moscow so that they validate.
fn requests() -> Vec<UploadRequest> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/valid/upload-requests.json");
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
        request.parameters = None;
    }
    requests
}

#[tokio::test]
async fn a_taken_upload_whose_answer_cannot_be_read_is_in_doubt_with_its_body() {
    let cases: [(&str, &str, &[&str]); 5] = [
        ("text/plain", "OK", &[]),
        ("application/json", r#"{"totalLoaded": null}"#, &[]),
        ("application/json", r#"{"result": "done"}"#, &[]),
        (
            "application/json",
            r#"{"ids": ["p1", 5], "totalLoaded": 2}"#,
            &["p1"],
        ),
        ("application/json", r#"["p1"]"#, &[]),
    ];
    let request = &requests()[0];
    for (content_type, body, ids) in cases {
        let (url, seen) = server(vec![answer(200, content_type, body)]).await;
        let error = client(&url).upload(request).await.unwrap_err();
        assert!(error.in_doubt() && !error.not_taken(), "{body}: {error:?}");
        match &error {
            Error::Unreadable {
                status: 200,
                ids: found,
                body: kept,
                ..
            } => {
                assert_eq!(kept, body);
                assert_eq!(found, ids, "{body}");
            }
            other => panic!("{body}: {other:?}"),
        }
        assert_eq!(seen.lock().unwrap().len(), 1, "{body}: repeated");
    }
}

#[tokio::test]
async fn a_taken_upload_with_readable_ids_is_a_result_with_its_oddities() {
    let body = r#"{"id": "p1", "totalLoaded": null, "errors": "none"}"#;
    let (url, seen) = server(vec![answer(200, "application/json", body)]).await;
    let result = client(&url).upload(&requests()[0]).await.unwrap();
    assert_eq!(result.created(), ["p1"]);
    assert_eq!(result.total_loaded, 1);
    assert_eq!(result.raw, body);
    assert_eq!(result.problems.len(), 2, "{:?}", result.problems);
    assert_eq!(seen.lock().unwrap().len(), 1);
    // An answer that says nothing was created is a result, not a doubt.
    let (url, _) = server(vec![answer(
        200,
        "application/json",
        r#"{"totalLoaded": 0, "errors": [{"message": "bad"}]}"#,
    )])
    .await;
    let result = client(&url).upload_1c("whatever").await.unwrap();
    assert_eq!((result.total_loaded, result.errors.len()), (0, 1));
}

#[tokio::test]
async fn a_taken_signature_or_token_exchange_whose_answer_cannot_be_read_is_in_doubt() {
    let (url, seen) = server(vec![answer(200, "text/html", "<html>signed</html>")]).await;
    let request = SignRequest {
        operations: vec!["p1".into()],
        sign_base64: "AA==".into(),
    };
    match client(&url).sign(&request).await.unwrap_err() {
        Error::Unreadable { body, .. } => assert_eq!(body, "<html>signed</html>"),
        other => panic!("{other:?}"),
    }
    assert_eq!(seen.lock().unwrap().len(), 1);
    // The token exchange's answer holds the token: never kept in the error.
    let (url, _) = server(vec![answer(
        200,
        "application/json",
        r#"{"accessToken": ["very-secret-token"]}"#,
    )])
    .await;
    let error = client(&url)
        .exchange_code(&TokenRequest {
            client_id: "app".into(),
            client_secret: "app-secret-word".into(),
            redirect_uri: "http://127.0.0.1:8080/callback".into(),
            code: "one-time-code".into(),
        })
        .await
        .unwrap_err();
    assert!(error.in_doubt());
    let shown = format!("{error:?} {error}");
    for secret in ["very-secret-token", "app-secret-word", "one-time-code"] {
        assert!(!shown.contains(secret), "{shown}");
    }
}

#[tokio::test]
async fn a_503_that_is_not_the_banks_maintenance_answer_is_not_retried_on_writes() {
    let html = "<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>";
    let (url, seen) = server(vec![answer(503, "text/html", html)]).await;
    let client = client(&url);
    let error = client.upload(&requests()[0]).await.unwrap_err();
    assert!(
        matches!(&error, Error::Api { status: 503, message, .. } if message == html),
        "{error:?}"
    );
    assert!(error.in_doubt() && !error.not_taken());
    assert_eq!(seen.lock().unwrap().len(), 1, "a write was repeated");
    // An empty 503 neither.
    let (url, seen) = server(vec![answer(503, "text/plain", "")]).await;
    assert!(
        self::client(&url)
            .upload_1c("x")
            .await
            .unwrap_err()
            .in_doubt()
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
    // A read is repeated on any 503.
    let (url, seen) = server(vec![
        answer(503, "text/html", html),
        answer(200, "application/json", "1500.25"),
    ])
    .await;
    assert_eq!(
        self::client(&url).balance(MAIN).await.unwrap(),
        Decimal::new(150025, 2)
    );
    assert_eq!(seen.lock().unwrap().len(), 2);
    // The bank's own maintenance answer is repeated, even on a write.
    let maintenance = r#"{"exceptionType": "Maintenance", "message": "технические работы"}"#;
    let (url, seen) = server(vec![
        answer(503, "application/json", maintenance),
        answer(200, "application/json", r#"{"id": "p1", "totalLoaded": 1}"#),
    ])
    .await;
    let result = self::client(&url).upload(&requests()[0]).await.unwrap();
    assert_eq!(result.created(), ["p1"]);
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn the_sandbox_banks_faults_on_uploads() {
    let bank = Sandbox::start(Config {
        time_scale: 0.001,
        ..Config::default()
    })
    .await
    .unwrap();
    let client = client(&bank.url());
    // The sandbox bank's injected 503 is its maintenance answer: provably not acted on, so the
    // upload is repeated and made once.
    bank.control().set_fault(Some(Fault {
        status: Some(503),
        times: Some(1),
        ..Fault::default()
    }));
    let result = client.upload(&requests()[0]).await.unwrap();
    assert_eq!(result.created().len(), 1);
    assert!(!result.raw.is_empty());
    assert_eq!(bank.control().payments().len(), 1);
    // Maintenance that lasts: the write is not in doubt, and was never acted on.
    bank.control().set_maintenance(true);
    let error = client.upload(&requests()[1]).await.unwrap_err();
    assert!(matches!(error, Error::Maintenance) && error.not_taken() && !error.in_doubt());
    bank.control().set_maintenance(false);
    assert_eq!(bank.control().payments().len(), 1);
    // Any other server error: in doubt, not repeated.
    bank.control().set_fault(Some(Fault {
        status: Some(502),
        times: Some(1),
        ..Fault::default()
    }));
    assert!(client.upload(&requests()[1]).await.unwrap_err().in_doubt());
    // Closed after acting: in doubt, made exactly once.
    bank.control().set_fault(Some(Fault {
        drop: Some(DropConnection::AfterActing),
        times: Some(1),
        ..Fault::default()
    }));
    let error = client.upload(&requests()[1]).await.unwrap_err();
    assert!(error.in_doubt() && !error.not_taken(), "{error:?}");
    bank.control().set_fault(None);
    assert_eq!(
        bank.control().payments().len(),
        2,
        "acted on once, not repeated"
    );
}

#[tokio::test]
async fn the_sandbox_bank_answers_a_short_offset_in_the_address_with_an_error() {
    let bank = Sandbox::start(Config::default()).await.unwrap();
    let http = reqwest::Client::new();
    for tail in ["%2B1", "-01", "-", "%2B", "2026-06-01T10:00:00%2B1"] {
        let response = http
            .post(format!("{}/account-info/balance/{MAIN}/{tail}", bank.url()))
            .bearer_auth("sandboxtoken")
            .header("sandbox", "on")
            .send()
            .await
            .unwrap_or_else(|e| panic!("{tail}: the connection was dropped: {e}"));
        assert!(
            response.status().is_client_error(),
            "{tail}: {}",
            response.status()
        );
    }
    // The bank still answers, and an offset is read as the instant it names.
    let client = client(&bank.url());
    assert!(client.balance(MAIN).await.is_ok());
}

#[tokio::test]
async fn ids_that_would_change_the_address_are_refused_before_sending() {
    let (url, seen) = server(vec![answer(200, "application/json", "1")]).await;
    let client = client(&url);
    for id in ["..", ".", ""] {
        match client.balance(id).await {
            Err(Error::InvalidId { value, .. }) => assert_eq!(value, id),
            other => panic!("{id:?}: {other:?}"),
        }
        assert!(matches!(
            client
                .operation_history(id, &HistoryFilter::default())
                .await,
            Err(Error::InvalidId { .. })
        ));
        assert!(matches!(
            client.form_part("40702810938000012345", id).await,
            Err(Error::InvalidId { .. })
        ));
    }
    assert!(seen.lock().unwrap().is_empty(), "a request was sent");
    // Dots and slashes inside an id travel as one encoded segment.
    client.balance("../x/..").await.unwrap();
    client.balance("...").await.unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen[0].0,
        "POST /v1/account-info/balance/..%2Fx%2F.. HTTP/1.1"
    );
    assert_eq!(seen[1].0, "POST /v1/account-info/balance/... HTTP/1.1");
}

#[tokio::test]
async fn one_odd_history_record_does_not_fail_the_page() {
    let page = r#"[
        {"id": "a", "amount": 1500.50, "executed": "2026-06-01T23:30:00+05:00", "docNumber": "7"},
        {"id": "b", "docNumber": 123, "executed": "+1"},
        {"id": "c", "amount": "12.30", "status": {"x": 1}},
        7
    ]"#;
    let (url, _) = server(vec![answer(200, "application/json", page)]).await;
    let history = client(&url)
        .operation_history(MAIN, &HistoryFilter::default())
        .await
        .unwrap();
    assert_eq!(history.len(), 4);
    let [a, b, c, d] = &history[..] else {
        unreachable!()
    };
    assert!(a.is_regular() && a.raw.is_none(), "{a:?}");
    assert_eq!(a.amount, Some(Decimal::new(150050, 2)));
    assert_eq!(
        a.executed.unwrap().to_string(),
        "2026-06-01 21:30:00",
        "converted to Moscow time"
    );
    assert_eq!(b.id, "b");
    assert_eq!(b.doc_number.as_deref(), Some("123"));
    assert_eq!((b.amount, b.executed), (None, None));
    assert_eq!(b.problems.len(), 3, "{:?}", b.problems);
    assert!(b.problems.iter().any(|p| p == "amount: missing"));
    assert_eq!(b.raw.as_ref().unwrap()["docNumber"], 123);
    assert_eq!(c.amount, Some(Decimal::new(1230, 2)));
    assert_eq!(c.status, None);
    assert_eq!(c.problems.len(), 1, "{:?}", c.problems);
    assert_eq!(d.id, "");
    assert_eq!(d.raw.as_ref().unwrap(), &serde_json::json!(7));
}

#[test]
fn token_requests_never_show_their_secrets() {
    let request = TokenRequest {
        client_id: "sandboxapp".into(),
        client_secret: "sandboxappsecret".into(),
        redirect_uri: "http://127.0.0.1:8080/callback".into(),
        code: "temporary-code-42".into(),
    };
    let shown = format!("{request:?} {request:#?}");
    assert!(
        shown.contains("sandboxapp") && shown.contains("callback"),
        "{shown}"
    );
    assert!(!shown.contains("sandboxappsecret"), "{shown}");
    assert!(!shown.contains("temporary-code-42"), "{shown}");
    let builder = Client::builder("http://127.0.0.1:1/v1").token(Token::new("the-token-itself"));
    assert!(!format!("{builder:?}").contains("the-token-itself"));
    let client = builder.build().unwrap();
    assert!(!format!("{client:?}").contains("the-token-itself"));
}

/// A connection the server closes before its answer: the HTTP library's reason said in Russian
/// words, not "error sending request for url (…)" inside a Russian sentence.
#[tokio::test]
async fn a_connection_closed_before_the_answer_is_said_in_russian() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let mut buffer = [0u8; 4096];
            let _ = socket.read(&mut buffer).await;
            drop(socket);
        }
    });
    let e = client(&url).companies().await.unwrap_err();
    let said = e.message();
    assert!(matches!(e, Error::Transport(_)), "{e:?}");
    assert!(
        said.en()
            .contains("connection closed before message completed"),
        "{}",
        said.en()
    );
    assert_eq!(
        said.ru(),
        "соединение с банком оборвалось: соединение закрыто до конца ответа"
    );
}
