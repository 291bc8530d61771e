//! The webhook listener: the bank's notifications of new executed operations (API.md, Events),
//! verified, recorded once in the journal ([`Operations`]), and signalled to the caller.
//!
//! ```no_run
//! # async fn demo(journal: impl clientbank_bank::operations::Operations + 'static) -> Result<(), clientbank_bank::Error> {
//! use std::sync::{Arc, Mutex};
//! use clientbank_bank::webhook::{self, Key, Listener};
//!
//! let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
//! let key = Key::Token(clientbank_api::Token::new("cabinet-token"));
//! let listener = Listener::new(key, Arc::new(Mutex::new(journal))).on_new(tx);
//! let socket = webhook::bind("127.0.0.1:8091".parse().unwrap()).await?;
//! tokio::spawn(listener.serve(socket, std::future::pending()));
//! while let Some(new) = rx.recv().await {
//!     println!("account {} has a new operation {}", new.account, new.operation_id);
//! }
//! # Ok(()) }
//! ```
//!
//! What one request goes through, in order:
//! 1. `POST` only (else 405, by axum's method routing), a body of at most [`BODY_LIMIT`] (else
//!    413, by `DefaultBodyLimit`: refused before it is read when announced), `Content-Type:
//!    application/json` (else 415).
//! 2. The body is read for `operation.id` and `SHA1Hash` alone (nothing else of it is
//!    trusted yet): not a notification, 400; no hash, 401; a hash that does not match the
//!    configured key, 403. Refusals are logged (`warn`) with the operation id and the remote
//!    address, never the key, the token or either hash, and answer without detail.
//! 3. The verified operation is recorded in the journal (`operations`, source `webhook`) once
//!    per id; the answer is 200 only after the commit (a crash before it means the bank
//!    retries), 500 when the journal fails. A notification received again (the bank retries
//!    after 10 minutes and an hour when it saw no 200) is answered 200 and recorded once.
//! 4. A new operation is signalled on the channel given to [`Listener::on_new`].

use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, DefaultBodyLimit};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use clientbank_api::webhook::{self as check, WebhookError, WebhookKey};
use clientbank_api::{Notification, Token};
use clientbank_format::{say, tr};
use hyper::body::Incoming;
use rust_decimal::Decimal;
use tokio::net::TcpListener;
use tokio::sync::mpsc::UnboundedSender;
use tower::ServiceExt;

use crate::Error;
use crate::operations::{OperationRow, Operations, source};

/// The largest notification body read (a notification is a few kilobytes).
pub const BODY_LIMIT: usize = 1024 * 1024;

/// What the notifications' `SHA1Hash` is keyed with (API.md, Events §4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// A token generated in the bank cabinet: its first 10 characters are the key.
    Token(Token),
    /// The application's secret word (`clientSecret`), for tokens obtained through the
    /// authorization flow (`clientbank login`).
    ClientSecret(Token),
}

impl Key {
    /// The key as the API client's check takes it.
    pub fn as_webhook_key(&self) -> WebhookKey<'_> {
        match self {
            Key::Token(token) => WebhookKey::CabinetToken(token),
            Key::ClientSecret(secret) => WebhookKey::ClientSecret(secret),
        }
    }
}

/// A new operation, recorded: what [`Listener::on_new`] signals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewOperation {
    /// The own account number (`operation.bankAccountNumber`): its statement has news.
    pub account: String,
    /// The bank's id of the operation.
    pub operation_id: String,
    /// Its amount, if the bank said.
    pub amount: Option<Decimal>,
    /// `Debet` (money in) or `Credit` (money out), if the bank said.
    pub category: Option<String>,
    /// Its execution, Moscow time (`YYYY-MM-DDTHH:MM:SS`), if the bank said.
    pub executed: Option<String>,
}

/// The listener: the key, the journal, and whom to tell.
#[derive(Clone)]
pub struct Listener {
    key: Arc<Key>,
    journal: Arc<Mutex<dyn Operations>>,
    on_new: Option<UnboundedSender<NewOperation>>,
}

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listener")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// How long a connection may take to send its request head.
pub const HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// How long a connection may last.
pub const CONNECTION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);
/// Connections served at once; more are closed at once.
pub const MAX_CONNECTIONS: usize = 256;

/// Binds the listener's address, with an error that says which and why.
pub async fn bind(addr: SocketAddr) -> Result<TcpListener, Error> {
    TcpListener::bind(addr).await.map_err(Error::io(tr!(
        "cannot listen for webhooks on {addr}" ;
        "не удалось принимать вебхуки на {addr}"
    )))
}

impl Listener {
    /// A listener checking notifications with `key` and recording them in `journal` (the
    /// journal of the folder, opened once; the lock is held only while one row is written).
    pub fn new(key: Key, journal: Arc<Mutex<dyn Operations>>) -> Listener {
        Listener {
            key: Arc::new(key),
            journal,
            on_new: None,
        }
    }

    /// Signals each new operation (not one received again) on `sender`, after its commit.
    /// A closed channel is not an error: the operation stays recorded.
    pub fn on_new(mut self, sender: UnboundedSender<NewOperation>) -> Listener {
        self.on_new = Some(sender);
        self
    }

    /// The routes: every path takes notifications (the address registered at the bank names
    /// one). Serve it with `ConnectInfo<SocketAddr>` for the remote address in the logs (as
    /// [`Listener::serve`] does).
    pub fn router(self) -> Router {
        // Any path: POST only (405 with `Allow` else), a body of at most BODY_LIMIT (413).
        let notification = axum::routing::post(
            move |ConnectInfo(remote): ConnectInfo<SocketAddr>,
                  headers: HeaderMap,
                  body: axum::body::Bytes| {
                let listener = self.clone();
                async move { listener.handle(&headers, &body, remote.to_string()).await }
            },
        )
        .layer(DefaultBodyLimit::max(BODY_LIMIT));
        Router::new().fallback_service(notification)
    }

    /// Serves notifications on `listener` until `shutdown` completes. A connection must send
    /// its request head within [`HEAD_TIMEOUT`] and is closed after [`CONNECTION_TIMEOUT`];
    /// beyond [`MAX_CONNECTIONS`] at once, new ones are closed at once: connections held open
    /// by anyone cannot use up the process's files (the daemon's inbox and journal need them).
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let router = self.router();
        let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
        tokio::pin!(shutdown);
        loop {
            let (stream, remote) = tokio::select! {
                () = &mut shutdown => return Ok(()),
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        // Out of files, or the peer gone before it was taken: wait a little.
                        let said = tr!(
                            "webhook listener: cannot accept a connection: {e}" ;
                            "приём вебхуков: соединение не принимается: {}"
                        , clientbank_diagnostic::os::Ru(&e));
                        say!(warn, said);
                        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                        continue;
                    }
                },
            };
            let Ok(slot) = slots.clone().try_acquire_owned() else {
                drop(stream);
                continue;
            };
            let router = router.clone();
            tokio::spawn(async move {
                let _slot = slot;
                let service =
                    hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                        let mut request = request.map(Body::new);
                        request.extensions_mut().insert(ConnectInfo(remote));
                        let router = router.clone();
                        async move {
                            Ok::<_, std::convert::Infallible>(match router.oneshot(request).await {
                                Ok(response) => response,
                                Err(never) => match never {},
                            })
                        }
                    });
                let connection = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(HEAD_TIMEOUT)
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                let _ = tokio::time::timeout(CONNECTION_TIMEOUT, connection).await;
            });
        }
    }

    async fn handle(self, headers: &HeaderMap, body: &[u8], remote: String) -> Response {
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "a notification is Content-Type: application/json",
            );
        }
        let notification = match self.verify(body) {
            Ok(notification) => notification,
            Err(refusal) => {
                let (en, ru) = refusal.why;
                let said = tr!("webhook refused: {en}" ; "вебхук отклонён: {ru}");
                say!(warn, said, operation = %refusal.operation, %remote);
                return plain(refusal.status, refusal.answer);
            }
        };
        self.record(notification, remote).await
    }

    /// The notification, if its `SHA1Hash` is the key's for its operation id.
    fn verify(&self, body: &[u8]) -> Result<Notification, Refusal> {
        let probe: Probe = serde_json::from_slice(body).map_err(|_| Refusal {
            status: StatusCode::BAD_REQUEST,
            operation: "-".into(),
            why: NOT_A_NOTIFICATION,
            answer: "not a webhook notification",
        })?;
        let operation = probe
            .operation
            .and_then(|op| op.id)
            .map_or_else(|| "-".to_string(), |id| shown(&id));
        if probe
            .sha1_hash
            .as_deref()
            .is_none_or(|h| h.trim().is_empty())
        {
            return Err(Refusal {
                status: StatusCode::UNAUTHORIZED,
                operation,
                why: ("no SHA1Hash", "нет SHA1Hash"),
                answer: "SHA1Hash is missing",
            });
        }
        match check::verify(body, self.key.as_webhook_key()) {
            Ok(notification) => Ok(notification),
            Err(WebhookError::Hash) => Err(Refusal {
                status: StatusCode::FORBIDDEN,
                operation,
                why: (
                    "SHA1Hash does not match the configured key (not from the bank, altered, or \
                     the key of another token)",
                    "SHA1Hash не сходится с ключом из настроек (не от банка, изменено или ключ \
                     другого токена)",
                ),
                answer: "SHA1Hash does not match",
            }),
            Err(WebhookError::Body(_)) => Err(Refusal {
                status: StatusCode::BAD_REQUEST,
                operation,
                why: NOT_A_NOTIFICATION,
                answer: "not a webhook notification",
            }),
        }
    }

    /// Records a verified notification; 200 after the commit, 500 when the journal fails.
    async fn record(&self, notification: Notification, remote: String) -> Response {
        let operation = notification.operation;
        let account = operation.bank_account_number.clone().unwrap_or_default();
        let executed = operation
            .executed
            .map(|at| at.format("%Y-%m-%dT%H:%M:%S").to_string());
        // The record as the bank sent it when it was read with problems, else as read.
        let body = match &operation.raw {
            Some(raw) => raw.to_string(),
            None => serde_json::to_string(&operation).unwrap_or_default(),
        };
        let row = OperationRow {
            id: operation.id.clone(),
            account: account.clone(),
            executed: executed.clone(),
            source: source::WEBHOOK.into(),
            body,
            confirmed: false,
        };
        let journal = self.journal.clone();
        let written = tokio::task::spawn_blocking(move || {
            // A panic elsewhere while holding the lock leaves a usable connection behind.
            let mut journal = journal.lock().unwrap_or_else(|e| e.into_inner());
            journal.record_operation(&row)
        })
        .await;
        let new = match written {
            Ok(Ok(new)) => new,
            Ok(Err(e)) => {
                let said = tr!(
                    "webhook not recorded, answered 500 (the bank retries): {e}" ;
                    "вебхук не записан, ответ 500 (банк пришлёт его снова): {e}"
                );
                say!(error, said, operation = %shown(&operation.id), %remote);
                return plain(StatusCode::INTERNAL_SERVER_ERROR, "not recorded; try again");
            }
            Err(e) => {
                let said = tr!(
                    "webhook not recorded, answered 500: {e}" ;
                    "вебхук не записан, ответ 500: {e}"
                );
                say!(error, said, operation = %shown(&operation.id));
                return plain(StatusCode::INTERNAL_SERVER_ERROR, "not recorded; try again");
            }
        };
        let amount = operation.amount;
        let category = operation.category.as_ref().map(|c| c.to_string());
        if new {
            tracing::info!(
                operation = %shown(&operation.id),
                account = %shown(&account),
                amount = %amount.map_or_else(|| "-".to_string(), |a| a.to_string()),
                category = category.as_deref().unwrap_or("-"),
                executed = executed.as_deref().unwrap_or("-"),
                "webhook: new operation recorded"
            );
            if account.is_empty() {
                tracing::warn!(
                    operation = %shown(&operation.id),
                    "the notified operation names no account (bankAccountNumber)"
                );
            } else if let Some(sender) = &self.on_new {
                let _ = sender.send(NewOperation {
                    account,
                    operation_id: operation.id,
                    amount,
                    category,
                    executed,
                });
            }
        } else {
            tracing::info!(
                operation = %shown(&operation.id),
                account = %shown(&account),
                "webhook: received again, already recorded"
            );
        }
        StatusCode::OK.into_response()
    }
}

/// Why a request is refused: its status, what the log says, what the answer says.
struct Refusal {
    status: StatusCode,
    operation: String,
    /// Why, for the log: English and Russian.
    why: (&'static str, &'static str),
    answer: &'static str,
}

const NOT_A_NOTIFICATION: (&str, &str) = (
    "not a notification (JSON with operation.id and SHA1Hash)",
    "не уведомление (JSON с operation.id и SHA1Hash)",
);

/// The least of a body read before its hash is checked; every other member is skipped.
#[derive(serde::Deserialize)]
struct Probe {
    #[serde(default)]
    operation: Option<ProbeOperation>,
    #[serde(rename = "SHA1Hash", default)]
    sha1_hash: Option<String>,
}

#[derive(serde::Deserialize)]
struct ProbeOperation {
    #[serde(default)]
    id: Option<String>,
}

/// Text from outside, fit for a log line: at most 64 characters, control characters escaped.
fn shown(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(64)
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect();
    if text.chars().count() > 64 {
        out.push('…');
    }
    out
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    (status, Body::from(text)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_never_shows_in_debug() {
        let key = Key::ClientSecret(Token::new("sandboxappsecret"));
        assert!(!format!("{key:?}").contains("sandboxappsecret"));
    }

    #[test]
    fn text_from_outside_is_shortened_and_escaped() {
        assert_eq!(shown("a\nb"), "a\\nb");
        assert_eq!(shown(&"x".repeat(70)).chars().count(), 65);
    }
}
