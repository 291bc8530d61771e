//! The bank's state in memory, the injectable clock, faults, and the control handle.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{NaiveDate, NaiveDateTime};
use clientbank_api::types::{OperationCategory, OperationStatus};
use clientbank_api::{Notification, Operation};
use clientbank_payment::Payment;
use rust_decimal::Decimal;

use crate::Config;
use crate::data::{self, AccountRecord, CompanyRecord};

/// How a token was obtained: it decides the webhook hash key.
#[derive(Clone, Debug)]
pub(crate) enum TokenKind {
    /// Generated in the cabinet (or the sandbox token): keyed by its first 10 characters.
    Cabinet,
    /// Obtained through the authorization flow: keyed by the application's secret word.
    Authorized { client_secret: String },
}

#[derive(Clone, Debug)]
pub(crate) struct TokenRecord {
    pub(crate) user: &'static str,
    pub(crate) rights: Vec<String>,
    pub(crate) expires: NaiveDateTime,
    pub(crate) revoked: bool,
    pub(crate) kind: TokenKind,
}

#[derive(Clone, Debug)]
pub(crate) struct CodeRecord {
    pub(crate) client_id: String,
    pub(crate) redirect_uri: String,
    pub(crate) scopes: Vec<String>,
    pub(crate) created: NaiveDateTime,
    pub(crate) used: bool,
}

/// A payment uploaded to the sandbox.
#[derive(Clone, Debug)]
pub(crate) struct PaymentRecord {
    pub(crate) id: String,
    pub(crate) company_id: String,
    pub(crate) account_number: String,
    pub(crate) status: OperationStatus,
    pub(crate) awaiting_signature: bool,
    pub(crate) payment: Payment,
}

/// A payment as the control handle shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaymentView {
    /// Its id.
    pub id: String,
    /// `Draft`, `SendToBank`, `Executed`, …
    pub status: String,
    /// Created with `targetStatus: InSigning` (and not signed yet).
    pub awaiting_signature: bool,
    /// Its sum.
    pub sum: Option<Decimal>,
    /// Its number.
    pub number: Option<String>,
}

/// How an injected fault closes the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drop {
    /// After reading the request, without acting on it.
    BeforeActing,
    /// After acting on the request, without answering.
    AfterActing,
}

/// A fault applied to the next `/v1` requests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fault {
    /// Wait this long before anything else.
    pub delay: Option<Duration>,
    /// Close the connection instead of answering.
    pub drop: Option<Drop>,
    /// Answer with this status (a 5xx, or 503) instead of acting.
    pub status: Option<u16>,
    /// How many requests it applies to; `None`: all until cleared.
    pub times: Option<u32>,
}

/// One attempt to deliver a webhook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The operation notified.
    pub operation_id: String,
    /// 1, 2 or 3.
    pub attempt: u32,
    /// The receiver's status, or `None` when it could not be reached.
    pub status: Option<u16>,
    /// The body sent.
    pub body: String,
}

/// A cabinet token of another user, who owns the third company: for the access-denied cases.
pub const OTHER_USER_TOKEN: &str = "cabinet-token-other-user";

pub(crate) struct State {
    pub(crate) companies: Vec<CompanyRecord>,
    pub(crate) accounts: Vec<AccountRecord>,
    pub(crate) operations: Vec<Operation>,
    pub(crate) payments: Vec<PaymentRecord>,
    pub(crate) tokens: HashMap<String, TokenRecord>,
    pub(crate) codes: HashMap<String, CodeRecord>,
    pub(crate) maintenance: bool,
    pub(crate) fault: Option<Fault>,
    pub(crate) clock_offset: chrono::Duration,
    pub(crate) webhook: Option<String>,
    pub(crate) deliveries: Vec<Delivery>,
    pub(crate) counter: u64,
}

pub(crate) struct Shared {
    pub(crate) config: Config,
    state: Mutex<State>,
    pub(crate) http: reqwest::Client,
}

impl Shared {
    pub(crate) fn new(config: Config) -> Shared {
        let (companies, accounts) = data::companies();
        let start = NaiveDate::from_ymd_opt(2026, 6, 1).unwrap_or_default();
        let operations = data::operations(&accounts, start);
        let far = NaiveDate::from_ymd_opt(2099, 12, 31)
            .unwrap_or_default()
            .and_time(chrono::NaiveTime::MIN);
        let tokens = config
            .cabinet_tokens
            .iter()
            .map(|(token, rights)| {
                (
                    token.clone(),
                    TokenRecord {
                        user: data::USER,
                        rights: rights.clone(),
                        expires: far,
                        revoked: false,
                        kind: TokenKind::Cabinet,
                    },
                )
            })
            .chain(std::iter::once((
                OTHER_USER_TOKEN.to_string(),
                TokenRecord {
                    user: data::OTHER_USER,
                    rights: crate::RIGHTS.iter().map(|r| r.to_string()).collect(),
                    expires: far,
                    revoked: false,
                    kind: TokenKind::Cabinet,
                },
            )))
            .collect();
        Shared {
            config,
            state: Mutex::new(State {
                companies,
                accounts,
                operations,
                payments: Vec::new(),
                tokens,
                codes: HashMap::new(),
                maintenance: false,
                fault: None,
                clock_offset: chrono::Duration::zero(),
                webhook: None,
                deliveries: Vec::new(),
                counter: 0,
            }),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .build()
                .unwrap_or_default(),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn maintenance(&self) -> bool {
        self.lock().maintenance
    }

    /// The fault for this request, counting it down.
    pub(crate) fn take_fault(&self) -> Option<Fault> {
        let mut state = self.lock();
        let fault = state.fault.clone()?;
        match fault.times {
            Some(0) => {
                state.fault = None;
                None
            }
            Some(n) => {
                state.fault = (n > 1).then(|| Fault {
                    times: Some(n - 1),
                    ..fault.clone()
                });
                Some(fault)
            }
            None => Some(fault),
        }
    }

    /// Now, UTC, on the sandbox's clock.
    pub(crate) fn now_utc(&self) -> NaiveDateTime {
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let now = chrono::DateTime::from_timestamp(since.as_secs() as i64, since.subsec_nanos())
            .unwrap_or_default()
            .naive_utc();
        now + self.lock().clock_offset
    }

    /// Now in Moscow (UTC+3), as the bank writes times.
    pub(crate) fn now_moscow(&self) -> NaiveDateTime {
        self.now_utc() + chrono::Duration::hours(3)
    }

    /// The webhook retry schedule: at once, 10 minutes after a failure, an hour after that.
    pub(crate) fn webhook_delays(&self) -> [Duration; 3] {
        let scale = self.config.time_scale.max(0.0);
        [
            Duration::ZERO,
            Duration::from_secs_f64(600.0 * scale),
            Duration::from_secs_f64(3600.0 * scale),
        ]
    }
}

impl State {
    pub(crate) fn next_id(&mut self, kind: u32) -> String {
        self.counter += 1;
        data::uuid(kind, 1_000_000 + self.counter)
    }

    /// Whose account this is: its record, if the user may see it.
    pub(crate) fn account(&self, id_or_number: &str) -> Option<&AccountRecord> {
        self.accounts.iter().find(|a| {
            a.account.id == id_or_number || a.account.number.as_deref() == Some(id_or_number)
        })
    }

    pub(crate) fn owner(&self, company_id: &str) -> Option<&'static str> {
        self.companies
            .iter()
            .find(|c| c.company.company_id == company_id)
            .map(|c| c.user)
    }

    /// The balance of an account from its opening and every executed operation up to `until`.
    pub(crate) fn balance(&self, record: &AccountRecord, until: Option<NaiveDateTime>) -> Decimal {
        let number = record.account.number.as_deref();
        self.operations
            .iter()
            .filter(|op| op.bank_account_number.as_deref() == number)
            .filter(|op| {
                matches!(
                    op.status,
                    Some(OperationStatus::Executed | OperationStatus::Received)
                )
            })
            .filter(|op| match (op.executed, until) {
                (Some(at), Some(until)) => at <= until,
                (Some(_), None) => true,
                (None, _) => false,
            })
            .fold(record.opening, |balance, op| match op.category {
                Some(OperationCategory::Debet) => balance + op.amount.unwrap_or_default(),
                Some(OperationCategory::Credit) => balance - op.amount.unwrap_or_default(),
                _ => balance,
            })
    }
}

/// Switches, faults, clock and records of a running sandbox bank.
#[derive(Clone)]
pub struct Control {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Control")
    }
}

impl Control {
    pub(crate) fn new(shared: Arc<Shared>) -> Control {
        Control { shared }
    }

    /// Maintenance: every `/v1` request answers 503.
    pub fn set_maintenance(&self, on: bool) {
        self.shared.lock().maintenance = on;
    }

    /// Injects a fault into the next `/v1` requests (`None` clears it).
    pub fn set_fault(&self, fault: Option<Fault>) {
        self.shared.lock().fault = fault;
    }

    /// Moves the clock (codes expire, certificates age).
    pub fn advance_clock(&self, by: chrono::Duration) {
        self.shared.lock().clock_offset += by;
    }

    /// Registers the webhook address (any http(s) URL here; the real bank uses HTTPS only).
    pub fn set_webhook(&self, url: Option<String>) {
        self.shared.lock().webhook = url;
    }

    /// Every webhook delivery attempt so far.
    pub fn deliveries(&self) -> Vec<Delivery> {
        self.shared.lock().deliveries.clone()
    }

    /// Every payment uploaded so far.
    pub fn payments(&self) -> Vec<PaymentView> {
        self.shared
            .lock()
            .payments
            .iter()
            .map(|p| PaymentView {
                id: p.id.clone(),
                status: p.status.to_string(),
                awaiting_signature: p.awaiting_signature,
                sum: p.payment.sum,
                number: p.payment.number.clone(),
            })
            .collect()
    }
}

/// Delivers a notification with the documented retries, recording each attempt.
pub(crate) fn deliver(shared: Arc<Shared>, url: String, notification: Notification) {
    tokio::spawn(async move {
        let body = serde_json::to_string(&notification).unwrap_or_default();
        for (attempt, delay) in shared.webhook_delays().into_iter().enumerate() {
            tokio::time::sleep(delay).await;
            let status = shared
                .http
                .post(&url)
                .header("content-type", "application/json")
                .body(body.clone())
                .send()
                .await
                .ok()
                .map(|r| r.status().as_u16());
            shared.lock().deliveries.push(Delivery {
                operation_id: notification.operation.id.clone(),
                attempt: attempt as u32 + 1,
                status,
                body: body.clone(),
            });
            if status == Some(200) {
                return;
            }
        }
    });
}
