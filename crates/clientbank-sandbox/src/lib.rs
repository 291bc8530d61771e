//! A local sandbox bank: the bank API v1 (`../shared/API.md`) on 127.0.0.1, holding its state
//! in memory, faithful to the documented behaviour, and able to fail on purpose.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let sandbox = clientbank_sandbox::Sandbox::start(clientbank_sandbox::Config::default()).await?;
//! println!("the bank is at {}", sandbox.url()); // http://127.0.0.1:PORT/v1
//! sandbox.control().set_maintenance(true);      // every /v1 request now answers 503
//! # Ok(()) }
//! ```
//!
//! Behaviour (API.md Part 1, with clientbank's decisions of Part 3 where it is silent):
//! - Sandbox mode (`sandbox: on` header or `?sandbox=on`): the fixed credentials `sandboxapp`,
//!   `sandboxappsecret`, `sandboxtoken`; the history honours only `records` and `skip`.
//! - Rights: `account-info` (companies, accounts, balances), `operation-history` (history,
//!   webhooks), `money-transfer` (upload, sign), `assistant-service` (nominal accounts, SBP).
//!   A missing right answers 403 `AccessDenied`; no valid token answers 401.
//! - Another user's company or account: 400 `AccessDenied`; signing another user's payments:
//!   401 `AccessDenied`.
//! - Uploads create drafts, or payments awaiting signature with `targetStatus: InSigning`; the
//!   1C upload makes one draft per valid payment order and lists the refused ones in `errors`.
//! - Signing checks a detached CMS signature over the sorted, comma-joined ids with `openssl`,
//!   by a certificate valid now; the payments are then sent and executed at once, the balance
//!   follows, and a webhook goes to the registered address (retried after 10 minutes and an
//!   hour more, times [`Config::time_scale`]).
//! - Signing takes the payments out of the signable state under the lock before the signature
//!   is checked (and puts them back if it fails): one payment is executed once, however many
//!   signatures race for it. Only payments awaiting signature (`InSigning`) can be signed, each
//!   id once, and only by a certificate of the company that owns them: its subject's INNLE
//!   (OID 1.2.643.100.4) or INN (1.2.643.3.131.1.1; `00` + a 10-digit INN, as older qualified
//!   certificates write a legal entity's) must be the company's INN.
//! - Webhooks go only to HTTPS addresses (plain HTTP to loopback for tests), and only for
//!   tokens with the `operation-history` right; redirects are not followed.
//! - The admin interface under `/admin` switches maintenance, injects faults, moves the clock,
//!   registers the webhook address (with the token keying notifications not caused by a
//!   signature), adds operations that arrive without a signature ([`Control::receive`],
//!   `POST /admin/operations`: incoming money and the other kinds, each notified) and shows
//!   the payments and deliveries. It wants the per-run
//!   token ([`Sandbox::admin_token`]) as `Authorization: Bearer …`, a loopback `Host` with the
//!   bank's port, and `Content-Type: application/json` on `POST`.

#![warn(missing_docs)]

mod api;
mod companies;
mod data;
mod sign;
mod state;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tower::ServiceExt;

pub use companies::{MAX_COMPANIES, MadeCompany, NewCompany};
pub use state::{
    Control, ControlError, Delivery, Drop as DropConnection, Fault, MAX_RECEIVE, MAX_TIME_SCALE,
    OTHER_USER_TOKEN, OperationKind, PaymentView, Receive, check_time_scale, check_webhook_url,
};

/// Why the sandbox bank cannot check signatures on this machine (the `openssl` program it
/// runs is missing), naming the program; `None` when it can.
pub fn signature_checker_missing() -> Option<String> {
    sign::checker_missing()
}

/// The largest request body the bank reads (the 1C upload of a big file fits); a larger one is
/// answered 413 with the bank's error body.
pub const BODY_LIMIT: usize = 8 * 1024 * 1024;

/// How the sandbox bank is set up.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where to listen; port 0 picks a free one. Only loopback addresses are accepted.
    pub addr: SocketAddr,
    /// Multiplies the webhook retry delays (10 minutes, then an hour): `0.001` makes them
    /// 0.6 s and 3.6 s for tests. Above 0 and at most [`MAX_TIME_SCALE`]; anything else
    /// (0, negative, NaN, infinite) is refused by [`Sandbox::start`].
    pub time_scale: f64,
    /// The redirect address registered for the application `sandboxapp`.
    pub redirect_uri: String,
    /// Tokens "generated in the bank cabinet": the token and its rights.
    pub cabinet_tokens: Vec<(String, Vec<String>)>,
    /// An `OPENSSL_CONF` for checking signatures (one that loads the gost engine for GOST R
    /// 34.10-2012); `None` uses openssl's own.
    pub openssl_conf: Option<std::path::PathBuf>,
}

/// The rights a token can hold.
pub const RIGHTS: &[&str] = &[
    "account-info",
    "operation-history",
    "money-transfer",
    "assistant-service",
];

impl Default for Config {
    fn default() -> Config {
        Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            time_scale: 1.0,
            redirect_uri: "http://127.0.0.1:8080/callback".into(),
            cabinet_tokens: vec![
                (
                    "cabinet-token-full-rights".into(),
                    RIGHTS.iter().map(|r| r.to_string()).collect(),
                ),
                (
                    "cabinet-token-account-info".into(),
                    vec!["account-info".into()],
                ),
            ],
            openssl_conf: None,
        }
    }
}

/// A running sandbox bank. Dropping it stops the server.
#[derive(Debug)]
pub struct Sandbox {
    addr: SocketAddr,
    control: Control,
    task: JoinHandle<()>,
}

impl Sandbox {
    /// Starts the bank on `config.addr`, with a fresh random admin token.
    pub async fn start(config: Config) -> std::io::Result<Sandbox> {
        if !config.addr.ip().is_loopback() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the sandbox bank listens on loopback addresses only",
            ));
        }
        check_time_scale(config.time_scale)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        let admin_token = state::random_secret()?;
        let listener = TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(state::Shared::new(config, addr, admin_token));
        let router = api::router(shared.clone());
        let control = Control::new(shared.clone());
        let task = tokio::spawn(serve(listener, router, shared));
        Ok(Sandbox {
            addr,
            control,
            task,
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The service root for clients: `http://127.0.0.1:PORT/v1`.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Switches, faults, clock and records, from the same process.
    pub fn control(&self) -> &Control {
        &self.control
    }

    /// The per-run secret of the admin interface (`Authorization: Bearer …` on `/admin`).
    pub fn admin_token(&self) -> &str {
        self.control.admin_token()
    }

    /// Serves until the task ends (it does not, unless the listener fails).
    pub async fn wait(mut self) {
        let _ = (&mut self.task).await;
    }
}

impl std::ops::Drop for Sandbox {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The connection was closed on purpose (fault injection): hyper drops it without an answer.
#[derive(Debug)]
struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection closed by fault injection")
    }
}

impl std::error::Error for Closed {}

async fn serve(listener: TcpListener, router: Router, shared: Arc<state::Shared>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let router = router.clone();
        let shared = shared.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                handle(router.clone(), shared.clone(), request)
            });
            let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn handle(
    router: Router,
    shared: Arc<state::Shared>,
    request: Request<Incoming>,
) -> Result<Response<Body>, Closed> {
    let request = request.map(Body::new);
    // A body announced over the limit is refused before it is read, on every path.
    let announced = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > BODY_LIMIT as u64) {
        return Ok(api::too_large());
    }
    if !request.uri().path().starts_with("/v1/") {
        return Ok(call(router, request).await);
    }
    if shared.maintenance() {
        return Ok(api::maintenance());
    }
    let Some(fault) = shared.take_fault() else {
        return Ok(call(router, request).await);
    };
    if let Some(delay) = fault.delay {
        tokio::time::sleep(delay).await;
    }
    match (fault.drop, fault.status) {
        (Some(DropConnection::BeforeActing), _) => {
            // Read as the normal path would, never more than it would.
            let _ = axum::body::to_bytes(request.into_body(), BODY_LIMIT).await;
            Err(Closed)
        }
        (Some(DropConnection::AfterActing), _) => {
            let _ = call(router, request).await;
            Err(Closed)
        }
        (None, Some(status)) => Ok(api::failure(status)),
        (None, None) => Ok(call(router, request).await),
    }
}

async fn call(router: Router, request: Request<Body>) -> Response<Body> {
    match router.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}
