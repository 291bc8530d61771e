//! Metrics in the Prometheus text format (issue 19 item 6), served on a loopback address when
//! asked (`[metrics] listen` in `clientbank.toml`, or `watch --metrics ADDR`): files per
//! folder, payments per state of the journal, whether the bank's last answer was an error and
//! when one last came, and the age of the oldest file in the inbox. Each scrape reads the
//! folders and the journal (through its own connection) afresh; nothing here holds a secret
//! (no token, no bank message: only counts, 0/1 and times).

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::http::header;
use axum::routing::get;
use clientbank_format::{Message, say, tr};
use tokio::net::TcpListener;

use crate::Error;
use crate::folders::{Folder, Layout};
use crate::journal::{Access, Journal};
use crate::state::PaymentState;

/// The folders counted, in this order.
const FOLDERS: [Folder; 5] = [
    Folder::Inbox,
    Folder::Processing,
    Folder::Done,
    Folder::Rejected,
    Folder::Review,
];

/// What the daemon knows of the bank that the journal does not keep: whether its last request
/// to the bank failed (unavailable, the token refused, a configuration that keeps requests from
/// being made), and when a request last failed. Shared by the daemon and the metrics listener.
#[derive(Debug, Default)]
pub struct BankHealth {
    failing: AtomicBool,
    /// Unix seconds of the last failure; 0: none since the daemon started.
    last_failure: AtomicI64,
}

impl BankHealth {
    /// A request to the bank failed at `at`. Whether this began a run of failures (the last
    /// request before it did not fail).
    pub fn failed(&self, at: SystemTime) -> bool {
        self.last_failure.store(unix(at), Ordering::Relaxed);
        !self.failing.swap(true, Ordering::Relaxed)
    }

    /// The bank answered (whatever it said of the payments). Whether this ended a run of
    /// failures.
    pub fn answered(&self) -> bool {
        self.failing.swap(false, Ordering::Relaxed)
    }
}

fn unix(at: SystemTime) -> i64 {
    at.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Refuses an address other than loopback: the metrics are not for the network.
pub fn check_loopback(addr: SocketAddr) -> Result<(), Error> {
    if addr.ip().is_loopback() {
        return Ok(());
    }
    Err(Error::Usage(tr!(
        "metrics are served on a loopback address only (127.0.0.1 or [::1]), not on {addr}: \
         they are for a collector on this machine (Prometheus, or an agent that forwards them)" ;
        "метрики отдаются только на адресе этой машины (127.0.0.1 или [::1]), не на {addr}: \
         их забирает сборщик на этой же машине (Prometheus или агент, который их пересылает)"
    )))
}

/// Binds `addr` (loopback only), with an error that says which and why.
pub async fn bind(addr: SocketAddr) -> Result<TcpListener, Error> {
    check_loopback(addr)?;
    TcpListener::bind(addr).await.map_err(|e| {
        Error::Usage(Message::new(
            format!("cannot serve metrics on {addr}: {e}"),
            format!(
                "не удалось отдавать метрики на {addr}: {}",
                clientbank_diagnostic::os::Ru(&e)
            ),
        ))
    })
}

/// Serves `GET /metrics` of the folder `dir` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    dir: PathBuf,
    bank: std::sync::Arc<BankHealth>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // One connection to the journal for every scrape: opening checks the whole file
    // (`quick_check`), which a scrape every few seconds must not repeat.
    let journal: Arc<Mutex<Option<Journal>>> = Arc::default();
    let router = Router::new().route(
        "/metrics",
        get(move || {
            let (dir, bank, journal) = (dir.clone(), bank.clone(), journal.clone());
            async move {
                let text = tokio::task::spawn_blocking(move || {
                    let mut journal = journal.lock().unwrap_or_else(|e| e.into_inner());
                    if journal.is_none() {
                        *journal = crate::journal::open_folder(&Layout::new(&dir), Access::Read)?;
                    }
                    let text = render(&dir, journal.as_ref(), &bank, SystemTime::now());
                    if text.is_err() {
                        // Opened again at the next scrape (the journal may have been replaced).
                        *journal = None;
                    }
                    text
                })
                .await;
                match text {
                    Ok(Ok(text)) => (
                        axum::http::StatusCode::OK,
                        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
                        text,
                    ),
                    Ok(Err(e)) => {
                        let why = e.message();
                        say!(warn, tr!("metrics: {}", why.en() ; "метрики: {}", why.ru()));
                        unavailable()
                    }
                    Err(_) => unavailable(),
                }
            }
        }),
    );
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
}

fn unavailable() -> (
    axum::http::StatusCode,
    [(header::HeaderName, &'static str); 1],
    String,
) {
    (
        axum::http::StatusCode::SERVICE_UNAVAILABLE,
        [(header::CONTENT_TYPE, "text/plain")],
        "the journal cannot be read now\n".into(),
    )
}

/// The metrics of `dir` at `now`, in the Prometheus text format; the payments are counted in
/// `journal` (none yet: every state 0).
pub fn render(
    dir: &Path,
    journal: Option<&Journal>,
    bank: &BankHealth,
    now: SystemTime,
) -> Result<String, Error> {
    let layout = Layout::new(dir);
    let mut out = String::new();
    let mut gauge = |name: &str, help: &str| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
    };
    gauge(
        "clientbank_files",
        "Files in each folder of the exchange folder.",
    );
    let mut files = String::new();
    for folder in FOLDERS {
        let count = layout.files(folder).len();
        let _ = writeln!(files, "clientbank_files{{folder=\"{folder}\"}} {count}");
    }
    out.push_str(&files);

    let mut counts: std::collections::BTreeMap<PaymentState, usize> =
        PaymentState::ALL.iter().map(|&s| (s, 0)).collect();
    if let Some(journal) = journal {
        counts.extend(journal.payments_by_state()?);
    }
    let mut payments = String::new();
    for (state, count) in counts {
        let _ = writeln!(payments, "clientbank_payments{{state=\"{state}\"}} {count}");
    }

    let oldest = layout
        .files(Folder::Inbox)
        .iter()
        .filter_map(|name| std::fs::metadata(layout.folder(Folder::Inbox).join(name)).ok())
        .filter_map(|m| m.modified().ok())
        .min()
        .map_or(0, |at| now.duration_since(at).map_or(0, |d| d.as_secs()));
    let failing = u8::from(bank.failing.load(Ordering::Relaxed));
    let last = bank.last_failure.load(Ordering::Relaxed);

    let mut gauge = |name: &str, help: &str, value: &str| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{value}");
    };
    gauge(
        "clientbank_payments",
        "Payments in the journal per state (one per file they were dropped in).",
        payments.trim_end(),
    );
    gauge(
        "clientbank_bank_error",
        "1 when the last request to the bank failed (unavailable, token refused, \
         misconfigured), else 0.",
        &format!("clientbank_bank_error {failing}"),
    );
    gauge(
        "clientbank_last_bank_error_timestamp_seconds",
        "When a request to the bank last failed (Unix time); 0 when none since the daemon \
         started.",
        &format!("clientbank_last_bank_error_timestamp_seconds {last}"),
    );
    gauge(
        "clientbank_inbox_oldest_age_seconds",
        "Age of the oldest file in inbox/ (since its last change); 0 when the inbox is empty.",
        &format!("clientbank_inbox_oldest_age_seconds {oldest}"),
    );
    Ok(out)
}
