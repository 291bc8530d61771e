//! The client against the sandbox bank over real sockets on 127.0.0.1: every endpoint and every
//! error path, signing with real detached CMS signatures made by the `openssl` command.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use chrono::NaiveDate;
use clientbank_api::types::{AccountCategory, AccountStatus, Currency, OperationStatus};
use clientbank_api::webhook::{self, WebhookKey};
use clientbank_api::{Client, Error, HistoryFilter, Retry, SignRequest, Token, TokenRequest};
use clientbank_payment::UploadRequest;
use clientbank_payment::json::{PaymentJson, read_requests};
use clientbank_sandbox::{Config, DropConnection, Fault, OTHER_USER_TOKEN, Receive, Sandbox};
use rust_decimal::Decimal;
use serde_json::json;

/// The main account of the first sandbox company (ООО "Ромашка").
const MAIN: &str = "5a4d0002-0000-4000-8000-000000000001";
/// The other user's company's account.
const FOREIGN: &str = "5a4d0002-0000-4000-8000-00000000000b";

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

fn fast() -> Retry {
    Retry {
        retries: 3,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
    }
}

fn sandbox_client(bank: &Sandbox) -> Client {
    Client::builder(bank.url())
        .token(Token::new("sandboxtoken"))
        .sandbox(true)
        .retry(fast())
        .build()
        .unwrap()
}

fn client(bank: &Sandbox, token: &str) -> Client {
    Client::builder(bank.url())
        .token(Token::new(token))
        .retry(fast())
        .build()
        .unwrap()
}

/// The sample upload requests of `testdata/`, dated today so that they validate.
fn requests() -> Vec<UploadRequest> {
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
        request.parameters = None;
    }
    requests
}

#[tokio::test]
async fn companies_accounts_and_balances() {
    let bank = bank().await;
    let client = sandbox_client(&bank);
    let companies = client.companies().await.unwrap();
    assert_eq!(companies.len(), 2, "the other user's company is not shown");
    assert!(
        companies
            .iter()
            .all(|c| c.registration_completed && c.inn.is_some())
    );
    let accounts: Vec<_> = companies.iter().flat_map(|c| &c.bank_accounts).collect();
    for category in [
        "CheckingAccount",
        "DepositAccount",
        "CardAccount",
        "ReservationAccounting",
        "DepositRateAccount",
    ] {
        assert!(
            accounts
                .iter()
                .any(|a| a.category == Some(AccountCategory::from(category))),
            "{category}"
        );
    }
    for currency in [Currency::Rur, Currency::Usd, Currency::Eur, Currency::Cny] {
        assert!(
            accounts
                .iter()
                .any(|a| a.currency == Some(currency.clone()))
        );
    }
    for status in ["New", "Closed", "Freezed", "ToClosed", "ToOpen", "Deleted"] {
        assert!(
            accounts
                .iter()
                .any(|a| a.status == Some(AccountStatus::from(status))),
            "{status}"
        );
    }
    let main = accounts.iter().find(|a| a.id == MAIN).unwrap();
    assert_eq!(client.balance(MAIN).await.unwrap(), main.balance);
    let early = client
        .balance_on(MAIN, NaiveDate::from_ymd_opt(2026, 5, 31).unwrap())
        .await
        .unwrap();
    assert_eq!(
        early,
        Decimal::new(150_000_000, 2),
        "the opening balance before any operation"
    );
    let details = client.balance_details(MAIN).await.unwrap();
    assert!(details.get("balance").is_some() && details.get("overdraft").is_some());
    assert_eq!(client.accounts().await.unwrap().len(), accounts.len());
}

#[tokio::test]
async fn tokens_rights_and_access() {
    let bank = bank().await;
    let none = Client::builder(bank.url()).build().unwrap();
    assert!(matches!(
        none.companies().await,
        Err(Error::Unauthorized { .. })
    ));
    let wrong = client(&bank, "not-a-token");
    assert!(matches!(
        wrong.companies().await,
        Err(Error::Unauthorized { .. })
    ));
    // The sandbox token works only in sandbox mode, and sandbox mode only with it.
    assert!(matches!(
        client(&bank, "sandboxtoken").companies().await,
        Err(Error::Unauthorized { .. })
    ));
    let limited = client(&bank, "cabinet-token-account-info");
    assert_eq!(limited.companies().await.unwrap().len(), 2);
    let err = limited
        .operation_history(MAIN, &HistoryFilter::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::AccessDenied { status: 403, .. }),
        "{err:?}"
    );
    let full = client(&bank, "cabinet-token-full-rights");
    let err = full
        .operation_history(FOREIGN, &HistoryFilter::default())
        .await
        .unwrap_err();
    match err {
        Error::AccessDenied { status, message } => {
            assert_eq!(status, 400);
            assert!(message.contains("нет доступа"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        full.balance(FOREIGN).await,
        Err(Error::AccessDenied { status: 400, .. })
    ));
    // The token never shows.
    assert!(!format!("{full:?}").contains("cabinet-token"));
    let text = format!("{}", full.balance(FOREIGN).await.unwrap_err());
    assert!(!text.contains("cabinet-token"), "{text}");
}

#[tokio::test]
async fn history_limits_filters_and_paging() {
    let bank = bank().await;
    let sandbox = sandbox_client(&bank);
    let default = sandbox
        .operation_history(MAIN, &HistoryFilter::default())
        .await
        .unwrap();
    assert_eq!(default.len(), 10, "records defaults to 10");
    let page = |skip, records| HistoryFilter {
        skip: Some(skip),
        records: Some(records),
        ..HistoryFilter::default()
    };
    let fifty = sandbox.operation_history(MAIN, &page(0, 50)).await.unwrap();
    assert_eq!(fifty.len(), 50);
    let next = sandbox.operation_history(MAIN, &page(10, 5)).await.unwrap();
    assert_eq!(next[0].id, fifty[10].id, "skip");
    assert_eq!(
        sandbox
            .operation_history(MAIN, &page(0, 0))
            .await
            .unwrap()
            .len(),
        0
    );
    let err = sandbox
        .operation_history(MAIN, &page(0, 51))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Api { status: 400, .. }), "{err:?}");
    // Sandbox mode honours records and skip only; the bank mode filters by date.
    let july = HistoryFilter {
        from: NaiveDate::from_ymd_opt(2026, 7, 1),
        till: NaiveDate::from_ymd_opt(2026, 7, 31),
        records: Some(50),
        ..HistoryFilter::default()
    };
    let unfiltered = sandbox.operation_history(MAIN, &july).await.unwrap();
    assert!(unfiltered.iter().any(|op| {
        op.executed
            .is_some_and(|e| e.date() > NaiveDate::from_ymd_opt(2026, 7, 31).unwrap())
    }));
    let bank_mode = client(&bank, "cabinet-token-full-rights");
    let filtered = bank_mode.operation_history(MAIN, &july).await.unwrap();
    assert!(!filtered.is_empty());
    // A cancelled operation, never executed, is placed on the day it was made.
    assert!(filtered.iter().all(|op| {
        op.executed
            .or(op.created)
            .is_some_and(|e| e.date().format("%m").to_string() == "07")
    }));
    assert!(
        filtered.iter().any(|op| op.executed.is_none()),
        "a cancelled one in July"
    );
    // Paging through a whole period: more than one page, no duplicates.
    let all = bank_mode
        .operations_between(
            MAIN,
            NaiveDate::from_ymd_opt(2026, 6, 1).unwrap(),
            NaiveDate::from_ymd_opt(2026, 12, 31).unwrap(),
        )
        .await
        .unwrap();
    assert!(all.len() > 200, "{}", all.len());
    let mut ids: Vec<_> = all.iter().map(|op| op.id.clone()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), all.len());
    assert!(
        all.iter()
            .any(|op| op.kbk.as_deref() == Some("18201061201010000510")),
        "budget operations"
    );
    assert!(
        all.iter().any(|op| op.sbp_oper_id.is_some()),
        "SBP operations"
    );
    // Cancelled ones come with the period they were made in, without an execution date.
    let cancelled: Vec<_> = all
        .iter()
        .filter(|op| op.status == Some(OperationStatus::Canceled))
        .collect();
    assert!(!cancelled.is_empty());
    assert!(
        cancelled
            .iter()
            .all(|op| op.executed.is_none() && op.created.is_some())
    );
}

#[tokio::test]
async fn history_pages_end_on_the_first_short_page() {
    let bank = bank().await;
    let api = client(&bank, "cabinet-token-full-rights");
    let quiet = NaiveDate::from_ymd_opt(2025, 3, 10).unwrap();
    let (bank, api) = (&bank, &api);
    let pages = |count: usize| async move {
        if count > 0 {
            bank.control()
                .receive(&Receive {
                    count,
                    date: Some(quiet),
                    ..Receive::new(MAIN)
                })
                .unwrap();
        }
        let mut sizes = Vec::new();
        let mut pager = api.history_pages(MAIN, quiet, quiet);
        while let Some(page) = pager.next().await.unwrap() {
            sizes.push(page.len());
        }
        assert_eq!(pager.next().await.unwrap(), None, "stays ended");
        sizes
    };
    // An empty period is one empty page; a full last page needs one more (empty) to end.
    assert_eq!(pages(0).await, [0]);
    assert_eq!(pages(49).await, [49]);
    assert_eq!(pages(1).await, [50, 0]);
    assert_eq!(pages(51).await, [50, 50, 1]);
    let all = api.operations_between(MAIN, quiet, quiet).await.unwrap();
    assert_eq!(all.len(), 101);
}

#[tokio::test]
async fn oauth_flow() {
    let bank = bank().await;
    let client = Client::builder(bank.url())
        .retry(Retry::NONE)
        .build()
        .unwrap();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let redirect = Config::default().redirect_uri;
    let authorize = |redirect: String, state: &str| {
        let url = client
            .authorize_url(
                "sandboxapp",
                &redirect,
                &["account-info", "operation-history"],
                state,
            )
            .unwrap();
        let http = http.clone();
        async move { http.get(url).send().await.unwrap() }
    };
    // Trailing application parameters are ignored in the comparison; state comes back as is.
    let answer = authorize(format!("{redirect}?tab=bank"), "xyz 1").await;
    assert_eq!(answer.status(), 302);
    let location = answer.headers()["location"].to_str().unwrap().to_string();
    assert!(
        location.starts_with(&format!("{redirect}?tab=bank&code=")),
        "{location}"
    );
    assert!(location.ends_with("&state=xyz+1"), "{location}");
    let code = location
        .split("code=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap()
        .to_string();
    // Exact matching otherwise.
    let refused = authorize(format!("{redirect}x"), "s").await;
    assert_eq!(refused.status(), 400);
    let request = TokenRequest {
        client_id: "sandboxapp".into(),
        client_secret: "sandboxappsecret".into(),
        redirect_uri: format!("{redirect}?tab=bank"),
        code: code.clone(),
    };
    let token = client.exchange_code(&request).await.unwrap();
    let user = Client::builder(bank.url())
        .token(token.clone())
        .build()
        .unwrap();
    assert_eq!(user.companies().await.unwrap().len(), 2);
    assert!(
        user.operation_history(MAIN, &HistoryFilter::default())
            .await
            .is_ok()
    );
    assert!(
        matches!(
            user.upload(&requests()[0]).await,
            Err(Error::AccessDenied { status: 403, .. })
        ),
        "no money-transfer right"
    );
    // Single use.
    assert!(matches!(
        client.exchange_code(&request).await,
        Err(Error::Api { status: 400, .. })
    ));
    // Under a minute.
    let answer = authorize(redirect.clone(), "s").await;
    let location = answer.headers()["location"].to_str().unwrap().to_string();
    let late = location
        .split("code=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap()
        .to_string();
    bank.control()
        .advance_clock(chrono::Duration::seconds(61))
        .unwrap();
    let expired = TokenRequest {
        redirect_uri: redirect.clone(),
        code: late,
        ..request.clone()
    };
    assert!(matches!(
        client.exchange_code(&expired).await,
        Err(Error::Api { status: 400, .. })
    ));
    // Tokens last three years.
    bank.control()
        .advance_clock(chrono::Duration::days(3 * 365 - 2))
        .unwrap();
    assert!(user.companies().await.is_ok());
    bank.control()
        .advance_clock(chrono::Duration::days(5))
        .unwrap();
    assert!(matches!(
        user.companies().await,
        Err(Error::Unauthorized { .. })
    ));
    bank.control()
        .advance_clock(chrono::Duration::days(-(3 * 365 + 3)))
        .unwrap();
    // Revoke.
    user.revoke().await.unwrap();
    assert!(matches!(
        user.companies().await,
        Err(Error::Unauthorized { .. })
    ));
}

/// A throwaway signer made with the `openssl` command.
struct Signer {
    dir: tempfile::TempDir,
    conf: Option<PathBuf>,
}

fn openssl(conf: Option<&Path>, args: &[&str]) {
    let mut command = Command::new("openssl");
    if let Some(conf) = conf {
        command.env("OPENSSL_CONF", conf);
    }
    let output = command.args(args).output().expect("openssl runs");
    assert!(
        output.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

impl Signer {
    /// `algorithm`: `rsa`, `ec` or `gost`.
    fn new(algorithm: &str, conf: Option<PathBuf>) -> Signer {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("key.pem");
        let cert = dir.path().join("cert.pem");
        let (key_s, cert_s) = (key.to_str().unwrap(), cert.to_str().unwrap());
        match algorithm {
            "rsa" => openssl(
                None,
                &[
                    "genpkey",
                    "-algorithm",
                    "RSA",
                    "-pkeyopt",
                    "rsa_keygen_bits:2048",
                    "-out",
                    key_s,
                ],
            ),
            "ec" => openssl(
                None,
                &[
                    "genpkey",
                    "-algorithm",
                    "EC",
                    "-pkeyopt",
                    "ec_paramgen_curve:prime256v1",
                    "-out",
                    key_s,
                ],
            ),
            _ => openssl(
                conf.as_deref(),
                &[
                    "genpkey",
                    "-algorithm",
                    "gost2012_256",
                    "-pkeyopt",
                    "paramset:A",
                    "-out",
                    key_s,
                ],
            ),
        }
        openssl(
            conf.as_deref(),
            &[
                "req",
                "-new",
                "-x509",
                "-key",
                key_s,
                "-out",
                cert_s,
                "-days",
                "30",
                "-utf8",
                "-subj",
                // The company is the certificate's INN (as qualified certificates write a
                // legal entity's: 00 and its 10 digits).
                "/CN=Иванов Иван Иванович/O=Ромашка/INN=007701234560",
            ],
        );
        Signer { dir, conf }
    }

    fn sign(&self, content: &str) -> String {
        let data = self.dir.path().join("content");
        let sig = self.dir.path().join("sig.der");
        std::fs::write(&data, content).unwrap();
        let p = |name: &str| self.dir.path().join(name).to_str().unwrap().to_string();
        openssl(
            self.conf.as_deref(),
            &[
                "cms",
                "-sign",
                "-binary",
                "-in",
                &p("content"),
                "-signer",
                &p("cert.pem"),
                "-inkey",
                &p("key.pem"),
                "-outform",
                "DER",
                "-out",
                sig.to_str().unwrap(),
            ],
        );
        base64::engine::general_purpose::STANDARD.encode(std::fs::read(sig).unwrap())
    }
}

/// The webhook deliveries once there are `count` of them (or after 20 s, for the assertions
/// to say what is missing): the retries run on the sandbox's scaled clock, the test's pace is
/// the machine's.
async fn deliveries_when(bank: &Sandbox, count: usize) -> Vec<clientbank_sandbox::Delivery> {
    for _ in 0..400 {
        let deliveries = bank.control().deliveries();
        if deliveries.len() >= count {
            return deliveries;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    bank.control().deliveries()
}

/// A webhook receiver on 127.0.0.1: answers with the statuses given, in turn, then 200.
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

/// The request with `targetStatus: InSigning`: only payments awaiting signature can be signed.
fn in_signing(mut request: UploadRequest) -> UploadRequest {
    request.parameters = Some(clientbank_payment::json::Parameters {
        target_status: Some("InSigning".into()),
    });
    request
}

async fn upload_and_sign(bank: &Sandbox, signer: &Signer) {
    let client = sandbox_client(bank);
    let before = client.balance(MAIN).await.unwrap();
    let mut ids = Vec::new();
    let mut sum = Decimal::ZERO;
    for request in requests() {
        sum += request.payment.sum.unwrap();
        let result = client.upload(&in_signing(request)).await.unwrap();
        assert_eq!(result.total_loaded, 1);
        ids.push(result.created()[0].to_string());
    }
    let payments = bank.control().payments();
    assert!(payments.iter().all(|p| p.awaiting_signature));
    assert!(payments.iter().all(|p| p.status == "Draft"));
    let content = SignRequest::signed_content(&ids);
    // A signature over other content is refused.
    let wrong = SignRequest {
        operations: ids.clone(),
        sign_base64: signer.sign("something else"),
    };
    match client.sign(&wrong).await.unwrap_err() {
        Error::SignCheck { message } => {
            assert!(message.contains("не прошла проверку"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    let request = SignRequest {
        operations: ids.clone(),
        sign_base64: signer.sign(&content),
    };
    let answer = client.sign(&request).await.unwrap();
    assert_eq!(answer["operations"].as_array().unwrap().len(), 3);
    assert!(
        bank.control()
            .payments()
            .iter()
            .all(|p| p.status == "Executed")
    );
    assert_eq!(
        client.balance(MAIN).await.unwrap(),
        before - sum,
        "the balance follows"
    );
    // Sandbox mode reads the history by `records` and `skip` only (API.md): asked for the
    // bank's day with a cabinet token.
    let history = self::client(bank, "cabinet-token-full-rights")
        .operation_history(MAIN, &of_the_day(bank))
        .await
        .unwrap();
    assert!(ids.iter().all(|id| history.iter().any(|op| &op.id == id)));
    // Signed twice: refused.
    assert!(matches!(
        client.sign(&request).await,
        Err(Error::Api { status: 400, .. })
    ));
}

#[tokio::test]
async fn signing_with_rsa_and_ec_executes_payments_and_notifies() {
    let bank = bank().await;
    let (url, received) = receiver(vec![500]).await;
    bank.control().set_webhook(Some(url)).unwrap();
    upload_and_sign(&bank, &Signer::new("rsa", None)).await;
    // Webhooks: the first attempt fails, the retry (10 minutes × 0.001) delivers.
    let deliveries = deliveries_when(&bank, 4).await;
    assert_eq!(deliveries.iter().filter(|d| d.attempt == 1).count(), 3);
    assert_eq!(
        deliveries
            .iter()
            .filter(|d| d.attempt == 2 && d.status == Some(200))
            .count(),
        1
    );
    let bodies = received.lock().unwrap().clone();
    for body in &bodies {
        let notification =
            webhook::verify(body, WebhookKey::CabinetToken(&Token::new("sandboxtoken"))).unwrap();
        assert_eq!(notification.company_inn, "7701234560");
    }
    let other = bank_with(Config::default()).await;
    upload_and_sign(&other, &Signer::new("ec", None)).await;
}

#[tokio::test]
async fn expired_certificates_and_foreign_payments_are_refused() {
    let bank = bank().await;
    let client = sandbox_client(&bank);
    let signer = Signer::new("rsa", None);
    let id = client
        .upload(&in_signing(requests().remove(0)))
        .await
        .unwrap()
        .created()[0]
        .to_string();
    bank.control()
        .advance_clock(chrono::Duration::days(45))
        .unwrap();
    let request = SignRequest {
        operations: vec![id.clone()],
        sign_base64: signer.sign(&id),
    };
    match client.sign(&request).await.unwrap_err() {
        Error::SignCheck { message } => {
            assert!(
                message.contains("Срок действия подписи Иванов Иван Иванович закончился"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
    bank.control()
        .advance_clock(chrono::Duration::days(-45))
        .unwrap();
    let stranger = client_of(&bank, OTHER_USER_TOKEN);
    match stranger.sign(&request).await.unwrap_err() {
        Error::AccessDenied { status, .. } => assert_eq!(status, 401),
        other => panic!("{other:?}"),
    }
    assert!(
        client.sign(&request).await.is_ok(),
        "and the owner may sign"
    );
}

fn client_of(bank: &Sandbox, token: &str) -> Client {
    client(bank, token)
}

#[tokio::test]
async fn signing_with_gost_when_the_engine_is_installed() {
    let Some(conf) = gost_conf() else {
        // .ci/run installs the engine and sets CLIENTBANK_REQUIRE_GOST: there it must run.
        assert!(
            std::env::var_os("CLIENTBANK_REQUIRE_GOST").is_none(),
            "CLIENTBANK_REQUIRE_GOST is set but the gost engine is not installed"
        );
        eprintln!(
            "the GOST engine (libengine-gost-openssl) is not installed: GOST signing not tried"
        );
        return;
    };
    let bank = bank_with(Config {
        openssl_conf: Some(conf.path().to_path_buf()),
        ..Config::default()
    })
    .await;
    upload_and_sign(&bank, &Signer::new("gost", Some(conf.path().to_path_buf()))).await;
}

/// An `OPENSSL_CONF` that loads the gost engine, if the engine is there.
fn gost_conf() -> Option<tempfile::NamedTempFile> {
    let output = Command::new("openssl")
        .args(["version", "-e"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let dir = text.split('"').nth(1)?;
    let engine = Path::new(dir).join("gost.so");
    if !engine.exists() {
        return None;
    }
    let conf = tempfile::NamedTempFile::new().ok()?;
    std::fs::write(
        conf.path(),
        format!(
            "openssl_conf = openssl_def\n[openssl_def]\nengines = engine_section\n[engine_section]\ngost = gost_section\n[gost_section]\nengine_id = gost\ndynamic_path = {}\ndefault_algorithms = ALL\n",
            engine.display()
        ),
    )
    .ok()?;
    Some(conf)
}

#[tokio::test]
async fn uploads_json_and_1c() {
    let bank = bank().await;
    let client = sandbox_client(&bank);
    let requests = requests();
    let result = client.upload(&requests[1]).await.unwrap();
    assert_eq!(result.total_loaded, 1);
    // A payment the rules refuse.
    let mut bad = requests[0].clone();
    bad.payment.recipient_inn = Some("5009876547".into());
    match client.upload(&bad).await.unwrap_err() {
        Error::Api {
            status: 400,
            message,
            ..
        } => assert!(message.contains("inn-check-digit"), "{message}"),
        other => panic!("{other:?}"),
    }
    // Another user's account.
    let mut foreign = requests[0].clone();
    foreign.payment.payer_account = Some("40702810938000099999".into());
    assert!(matches!(
        client.upload(&foreign).await,
        Err(Error::AccessDenied { status: 400, .. })
    ));
    // 1C: one valid order, one refused.
    let payments: Vec<_> = [requests[0].payment.clone(), bad.payment.clone()]
        .iter()
        .map(PaymentJson::to_payment)
        .collect();
    let (exchange, _) =
        clientbank_payment::onec::to_exchange(&payments, clientbank_format::Encoding::Utf8);
    let text = String::from_utf8(
        exchange
            .to_bytes(clientbank_format::Encoding::Utf8)
            .unwrap(),
    )
    .unwrap();
    let result = client.upload_1c(&text).await.unwrap();
    assert_eq!(result.ids.len(), 1);
    assert_eq!(result.total_loaded, 1);
    assert_eq!(result.errors.len(), 1);
    assert!(
        result.errors[0].contains("inn-check-digit"),
        "{:?}",
        result.errors
    );
    assert!(matches!(
        client.upload_1c("not an exchange file").await,
        Err(Error::Api { status: 400, .. })
    ));
    assert_eq!(bank.control().payments().len(), 2);
}

#[tokio::test]
async fn maintenance_faults_and_retries() {
    let bank = bank().await;
    let client = sandbox_client(&bank);
    bank.control().set_maintenance(true);
    assert!(matches!(client.companies().await, Err(Error::Maintenance)));
    assert!(matches!(
        client.upload(&requests()[0]).await,
        Err(Error::Maintenance)
    ));
    bank.control().set_maintenance(false);
    // Reads ride out two 503s and a 429.
    bank.control().set_fault(Some(Fault {
        status: Some(503),
        times: Some(2),
        ..Fault::default()
    }));
    assert!(client.companies().await.is_ok());
    bank.control().set_fault(Some(Fault {
        status: Some(429),
        times: Some(1),
        ..Fault::default()
    }));
    assert!(client.companies().await.is_ok());
    // An upload after a 503 is repeated: the bank provably did not take it.
    bank.control().set_fault(Some(Fault {
        status: Some(503),
        times: Some(1),
        ..Fault::default()
    }));
    assert!(client.upload(&requests()[0]).await.is_ok());
    assert_eq!(bank.control().payments().len(), 1);
    // A 500 on upload is in doubt and not repeated.
    bank.control().set_fault(Some(Fault {
        status: Some(500),
        times: Some(1),
        ..Fault::default()
    }));
    let err = client.upload(&requests()[0]).await.unwrap_err();
    assert!(err.in_doubt() && !err.not_taken(), "{err:?}");
    // A connection closed after acting: the payment exists, the client is in doubt, no repeat.
    bank.control().set_fault(Some(Fault {
        drop: Some(DropConnection::AfterActing),
        times: Some(1),
        ..Fault::default()
    }));
    let err = client.upload(&requests()[1]).await.unwrap_err();
    assert!(err.in_doubt(), "{err:?}");
    assert_eq!(
        bank.control().payments().len(),
        2,
        "acted on once, not repeated"
    );
    // Closed before acting: nothing there, but the client cannot know.
    bank.control().set_fault(Some(Fault {
        drop: Some(DropConnection::BeforeActing),
        times: Some(1),
        ..Fault::default()
    }));
    assert!(client.upload(&requests()[2]).await.unwrap_err().in_doubt());
    assert_eq!(bank.control().payments().len(), 2);
    // Reads are repeated after a dropped connection.
    bank.control().set_fault(Some(Fault {
        drop: Some(DropConnection::BeforeActing),
        times: Some(1),
        ..Fault::default()
    }));
    assert!(client.companies().await.is_ok());
    // Slow answers against a short timeout.
    bank.control().set_fault(Some(Fault {
        delay: Some(Duration::from_millis(700)),
        ..Fault::default()
    }));
    let impatient = Client::builder(bank.url())
        .token(Token::new("sandboxtoken"))
        .sandbox(true)
        .timeout(Duration::from_millis(200))
        .retry(Retry::NONE)
        .build()
        .unwrap();
    assert!(matches!(impatient.companies().await, Err(Error::Timeout)));
    bank.control().set_fault(None);
    assert!(impatient.companies().await.is_ok());
}

#[tokio::test]
async fn nothing_listening_and_addresses() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let client = Client::builder(format!("http://{addr}/v1"))
        .token(Token::new("sandboxtoken"))
        .retry(Retry::NONE)
        .build()
        .unwrap();
    let err = client.upload(&requests()[0]).await.unwrap_err();
    assert!(
        matches!(err, Error::Connect(_)) && err.not_taken(),
        "{err:?}"
    );
    assert!(matches!(
        Client::builder("http://bank.example/v1").build(),
        Err(Error::Config(_))
    ));
    assert!(Client::builder("https://bank.example/v1").build().is_ok());
    assert!(Client::builder("http://localhost:1/v1").build().is_ok());
    assert!(matches!(
        Client::builder("https://bank.example/v1").add_root_certificates_pem(b"not pem"),
        Err(Error::Config(_))
    ));
    // A root certificate of our own (as the Ministry's root would be) is taken.
    let signer = Signer::new("ec", None);
    let pem = std::fs::read(signer.dir.path().join("cert.pem")).unwrap();
    let builder = Client::builder("https://bank.example/v1")
        .add_root_certificates_pem(&pem)
        .unwrap();
    assert!(builder.build().is_ok());
}

#[tokio::test]
async fn webhooks_of_authorized_tokens_and_the_third_attempt() {
    let bank = bank_with(Config {
        time_scale: 0.0005,
        ..Config::default()
    })
    .await;
    let (url, received) = receiver(vec![500, 503]).await;
    bank.control().set_webhook(Some(url)).unwrap();
    let anonymous = Client::builder(bank.url())
        .retry(Retry::NONE)
        .build()
        .unwrap();
    let redirect = Config::default().redirect_uri;
    let authorize = anonymous
        .authorize_url(
            "sandboxapp",
            &redirect,
            &["money-transfer", "account-info", "operation-history"],
            "s",
        )
        .unwrap();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let location = http.get(authorize).send().await.unwrap().headers()["location"]
        .to_str()
        .unwrap()
        .to_string();
    let code = location
        .split("code=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap();
    let token = anonymous
        .exchange_code(&TokenRequest {
            client_id: "sandboxapp".into(),
            client_secret: "sandboxappsecret".into(),
            redirect_uri: redirect,
            code: code.into(),
        })
        .await
        .unwrap();
    let client = Client::builder(bank.url())
        .token(token)
        .retry(fast())
        .build()
        .unwrap();
    let id = client
        .upload(&in_signing(requests().remove(0)))
        .await
        .unwrap()
        .created()[0]
        .to_string();
    let signer = Signer::new("ec", None);
    client
        .sign(&SignRequest {
            operations: vec![id.clone()],
            sign_base64: signer.sign(&id),
        })
        .await
        .unwrap();
    // Attempts at once, 10 minutes and an hour later (× 0.0005: 0.3 s, then 1.8 s more).
    let attempts: Vec<_> = deliveries_when(&bank, 3)
        .await
        .iter()
        .map(|d| (d.attempt, d.status))
        .collect();
    assert_eq!(attempts, [(1, Some(500)), (2, Some(503)), (3, Some(200))]);
    let secret = Token::new("sandboxappsecret");
    for body in received.lock().unwrap().iter() {
        let notification = webhook::verify(body, WebhookKey::ClientSecret(&secret)).unwrap();
        assert_eq!(notification.operation.id, id);
    }
}

#[tokio::test]
async fn the_admin_interface() {
    let bank = bank().await;
    let client = sandbox_client(&bank);
    let http = reqwest::Client::new();
    let admin = format!("http://{}/admin", bank.addr());
    let token = bank.admin_token().to_string();
    let post = |path: &str, body: serde_json::Value| {
        http.post(format!("{admin}{path}"))
            .bearer_auth(&token)
            .json(&body)
            .send()
    };
    assert_eq!(
        post("/maintenance", json!({"on": true}))
            .await
            .unwrap()
            .status(),
        200
    );
    assert!(matches!(client.companies().await, Err(Error::Maintenance)));
    post("/maintenance", json!({"on": false})).await.unwrap();
    post("/faults", json!({"status": 500, "times": 1}))
        .await
        .unwrap();
    assert!(matches!(
        client.companies().await,
        Err(Error::Api { status: 500, .. })
    ));
    assert!(client.companies().await.is_ok(), "one time only");
    post("/faults", json!({"drop": "after", "times": 1}))
        .await
        .unwrap();
    assert!(client.upload(&requests()[0]).await.unwrap_err().in_doubt());
    let payments: serde_json::Value = http
        .get(format!("{admin}/payments"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(payments.as_array().unwrap().len(), 1);
    post("/faults", json!({"delay_ms": 10})).await.unwrap();
    http.delete(format!("{admin}/faults"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    let clock: serde_json::Value = post("/clock", json!({"advance_seconds": 86400}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(clock["now"].is_string());
    assert_eq!(
        post("/faults", json!({"drop": "sideways"}))
            .await
            .unwrap()
            .status(),
        400
    );
    let hooks: serde_json::Value = http
        .get(format!("{admin}/webhook/deliveries"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(hooks.as_array().unwrap().is_empty());
}

#[tokio::test]
async fn nominal_accounts_and_sbp() {
    let bank = bank().await;
    let client = sandbox_client(&bank);
    let account = "40702810938000012345";
    assert!(
        client
            .beneficiaries_import(account, &json!({"beneficiaries": []}))
            .await
            .is_ok()
    );
    assert!(
        !client
            .beneficiaries_report(account)
            .await
            .unwrap()
            .is_empty()
    );
    // The send operations check a signature of the file, as signing does.
    let signer = Signer::new("ec", None);
    let signed = |file: Vec<u8>| signer.sign(&String::from_utf8(file).unwrap());
    let report = client.beneficiaries_report(account).await.unwrap();
    client
        .beneficiaries_report_send(account, &signed(report))
        .await
        .unwrap();
    assert!(client.form_parts(account).await.unwrap().is_array());
    assert!(!client.form_part(account, MAIN).await.unwrap().is_empty());
    let part = client.form_part(account, MAIN).await.unwrap();
    client
        .form_part_send(account, MAIN, &signed(part))
        .await
        .unwrap();
    assert!(client.unsigned_reports(account).await.unwrap().is_array());
    assert!(!client.report_v2(account, MAIN).await.unwrap().is_empty());
    let report = client.report_v2(account, MAIN).await.unwrap();
    client
        .report_v2_send(account, MAIN, &signed(report))
        .await
        .unwrap();
    let company = "5a4d0001-0000-4000-8000-000000000001";
    assert!(client.retail_points(company).await.unwrap().is_array());
    assert!(
        client
            .register_retail_point(&json!({"companyId": company, "name": "Магазин"}))
            .await
            .is_ok()
    );
    assert!(client.retail_point("tsp").await.is_ok());
    assert!(client.retail_point_status("tsp").await.is_ok());
    assert!(client.qr_code("qrc").await.is_ok());
    assert!(
        client
            .qr_code_image("qrc")
            .await
            .unwrap()
            .starts_with(b"\x89PNG")
    );
    assert!(
        client
            .create_dynamic_qr_code(&json!({"amount": 100}))
            .await
            .is_ok()
    );
    assert!(client.refund(&json!({"sbpOperId": "A1"})).await.is_ok());
    assert!(client.refund_status("r1").await.is_ok());
    assert!(client.mcc().await.unwrap().is_array());
    assert!(client.create_cash_link(&json!({})).await.is_ok());
    assert!(
        client
            .activate_cash_link("qrc", &json!({"amount": 1}))
            .await
            .is_ok()
    );
    client.deactivate_cash_link("qrc").await.unwrap();
    assert!(client.cash_link_status("qrc").await.is_ok());
    assert!(client.cash_link_operation_status("qrc", "p1").await.is_ok());
    assert!(client.cash_link_operations("qrc").await.unwrap().is_array());
    let limited = client_of(&bank, "cabinet-token-account-info");
    assert!(matches!(
        limited.mcc().await,
        Err(Error::AccessDenied { status: 403, .. })
    ));
}

#[tokio::test]
async fn form_encoded_authorization_and_retried_timeouts() {
    let bank = bank().await;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let redirect = Config::default().redirect_uri;
    let answer = http
        .post(format!("{}/oauth/authorize", bank.url()))
        .form(&[
            ("clientId", "sandboxapp"),
            ("redirectUri", redirect.as_str()),
            ("scope", "account-info"),
            ("state", "st"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 302);
    let location = answer.headers()["location"].to_str().unwrap().to_string();
    let code = location
        .split("code=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap();
    let token: serde_json::Value = http
        .post(format!("{}/oauth/token", bank.url()))
        .form(&[
            ("clientId", "sandboxapp"),
            ("clientSecret", "sandboxappsecret"),
            ("redirectUri", redirect.as_str()),
            ("code", code),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(token["accessToken"].is_string());
    let scopes_refused = http
        .get(format!(
            "{}/oauth/authorize?model.clientId=sandboxapp&model.redirectUri={redirect}&model.scope=Account-Info",
            bank.url()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(
        scopes_refused.status(),
        400,
        "scope names are case-sensitive"
    );
    // A read that times out once is repeated.
    bank.control().set_fault(Some(Fault {
        delay: Some(Duration::from_millis(600)),
        times: Some(1),
        ..Fault::default()
    }));
    let patient = Client::builder(bank.url())
        .token(Token::new("sandboxtoken"))
        .sandbox(true)
        .timeout(Duration::from_millis(300))
        .retry(fast())
        .build()
        .unwrap();
    assert!(patient.companies().await.is_ok());
}

/// Issue 19 item 4: `https://` to an address that answers plain HTTP says so, with what to
/// check, instead of a bare "received corrupt message of type InvalidContentType".
#[tokio::test]
async fn https_to_a_plain_http_address_says_what_to_check() {
    let bank = bank().await;
    let url = bank.url().replacen("http://", "https://", 1);
    let client = Client::builder(url)
        .token(Token::new("cabinet-token-full-rights"))
        .retry(fast())
        .build()
        .unwrap();
    let e = client.companies().await.unwrap_err();
    assert!(matches!(e, Error::Connect(_)), "{e:?}");
    assert!(e.to_string().contains("answers plain HTTP"), "{e}");
    // The client's own configuration, which no waiting mends (the daemon stops uploads).
    assert!(e.misconfigured_connection(), "{e:?}");
    assert!(e.not_taken() && !e.in_doubt());
    // Issue 19 item 8: said in each language apart, never "English / Russian" in one text.
    let said = e.message();
    assert!(
        said.ru().contains("адрес отвечает по HTTP"),
        "{}",
        said.ru()
    );
    assert!(!said.en().contains("адрес"), "{}", said.en());
    assert!(!said.ru().contains("answers plain HTTP"), "{}", said.ru());
    // The TLS library's own English is not carried into the Russian.
    assert!(!said.ru().contains("InvalidContentType"), "{}", said.ru());
}
