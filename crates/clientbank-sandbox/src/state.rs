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
    pub(crate) user: data::User,
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
    /// Taken out of the signable state by a signature being checked (one at a time).
    pub(crate) signing: bool,
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
    /// The payer's account (its number).
    pub account: String,
    /// The company that owns the payer's account.
    pub company_id: String,
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
    /// The key of notifications not caused by a signature ([`Control::receive`]): the token
    /// given with the address (the sandbox token `sandboxtoken` when none was).
    pub(crate) webhook_key: HookKey,
    pub(crate) deliveries: Vec<Delivery>,
    /// How many operations [`Control::receive`] has added.
    pub(crate) received: u64,
    /// The SBP retail points, by company.
    pub(crate) retail_points: Vec<RetailPoint>,
    /// Which retail point an SBP operation was paid at (the wire `Operation` does not say).
    pub(crate) operation_points: HashMap<String, String>,
    /// The history's order per account: positions in `operations`, newest first, built again
    /// only when operations were added since (a page then costs its size, not the history's).
    pub(crate) history_index: HistoryIndex,
    /// How many companies [`Control::add_company`] has made.
    pub(crate) made_companies: usize,
}

/// Positions of each account's operations, newest first (by execution, else creation).
#[derive(Debug, Default)]
pub(crate) struct HistoryIndex {
    /// `operations.len()` when built.
    built_for: usize,
    by_account: HashMap<String, Vec<usize>>,
}

/// An SBP retail point of a company.
#[derive(Clone, Debug)]
pub(crate) struct RetailPoint {
    pub(crate) id: String,
    pub(crate) company_id: String,
    pub(crate) name: String,
    pub(crate) status: &'static str,
}

/// How many unused OAuth codes the bank keeps at once (expired ones are purged first).
pub(crate) const MAX_CODES: usize = 1_000;
/// How many tokens obtained through the authorization flow the bank keeps at once.
pub(crate) const MAX_TOKENS: usize = 10_000;
/// How many uploaded payments the bank keeps.
pub(crate) const MAX_PAYMENTS: usize = 100_000;
/// How many webhook delivery attempts are remembered (the oldest are forgotten).
pub(crate) const MAX_DELIVERIES: usize = 10_000;
/// How many SBP retail points may be registered.
pub(crate) const MAX_RETAIL_POINTS: usize = 1_000;
/// How far the clock may be moved either way from the real time: far enough for any test of
/// expiry (codes, certificates, three-year tokens), near enough that every date stays readable.
pub(crate) const MAX_CLOCK_OFFSET_DAYS: i64 = 100 * 366;
/// The largest time scale: the last webhook retry then comes after 1000 hours.
pub const MAX_TIME_SCALE: f64 = 1000.0;
/// The longest injected delay.
pub(crate) const MAX_FAULT_DELAY: Duration = Duration::from_secs(600);

/// Why a control request was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlError(pub(crate) String);

impl std::fmt::Display for ControlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ControlError {}

/// Checks a time scale: a finite number above 0 and at most [`MAX_TIME_SCALE`].
pub fn check_time_scale(scale: f64) -> Result<f64, ControlError> {
    if scale.is_finite() && scale > 0.0 && scale <= MAX_TIME_SCALE {
        Ok(scale)
    } else {
        Err(ControlError(format!(
            "the time scale is {scale}: expected a number above 0 and at most {MAX_TIME_SCALE} \
             (it multiplies the webhook retry delays of 10 minutes and an hour; 0.001 makes them \
             0.6 s and 3.6 s)"
        )))
    }
}

/// Checks a webhook address: HTTPS, as the bank uses only HTTPS addresses (API.md, Events),
/// or plain HTTP to a loopback address, for tests.
pub fn check_webhook_url(url: &str) -> Result<(), ControlError> {
    let refused = |why: &str| {
        Err(ControlError(format!(
            "the webhook address {url:?} {why}: expected an HTTPS address (https://…), or \
             http:// to 127.0.0.1, [::1] or localhost for tests"
        )))
    };
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return refused("is not a URL");
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return refused("carries credentials");
    }
    let Some(host) = parsed.host_str() else {
        return refused("has no host");
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = bare.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        "http" => refused("is plain HTTP to a host that is not loopback"),
        _ => refused("is neither HTTPS nor HTTP"),
    }
}

/// Random bytes from the operating system's CSPRNG.
pub(crate) fn random_bytes<const N: usize>() -> std::io::Result<[u8; N]> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(bytes)
}

/// A random (version 4) UUID.
pub(crate) fn random_uuid() -> std::io::Result<String> {
    let mut b = random_bytes::<16>()?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex = hex::encode(b);
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

/// A random secret of 32 bytes, as 64 hexadecimal digits.
pub(crate) fn random_secret() -> std::io::Result<String> {
    Ok(hex::encode(random_bytes::<32>()?))
}

/// Equal strings, compared in time independent of where they differ.
pub(crate) fn same_secret(a: &str, b: &str) -> bool {
    subtle::ConstantTimeEq::ct_eq(a.as_bytes(), b.as_bytes()).into()
}

pub(crate) struct Shared {
    pub(crate) config: Config,
    /// Where the bank listens: admin requests must name it in `Host`.
    pub(crate) addr: std::net::SocketAddr,
    /// The per-run secret of the admin interface.
    pub(crate) admin_token: String,
    state: Mutex<State>,
    pub(crate) http: reqwest::Client,
    /// The runtime the bank was started on: deliveries started from [`Control`] outside a
    /// runtime are spawned there.
    runtime: Option<tokio::runtime::Handle>,
}

impl Shared {
    pub(crate) fn new(config: Config, addr: std::net::SocketAddr, admin_token: String) -> Shared {
        let (companies, accounts) = data::companies();
        let start = NaiveDate::from_ymd_opt(2026, 6, 1).unwrap_or_default();
        let operations = data::operations(&accounts, start);
        let (retail_points, operation_points) = data::retail_points(&companies, &operations);
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
                        user: data::USER.into(),
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
                    user: data::OTHER_USER.into(),
                    rights: crate::RIGHTS.iter().map(|r| r.to_string()).collect(),
                    expires: far,
                    revoked: false,
                    kind: TokenKind::Cabinet,
                },
            )))
            .collect();
        Shared {
            config,
            addr,
            admin_token,
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
                webhook_key: HookKey::sandbox(),
                deliveries: Vec::new(),
                history_index: HistoryIndex::default(),
                made_companies: 0,
                received: 0,
                retail_points,
                operation_points,
            }),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                // A webhook goes where it was registered, never where a redirect points.
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap_or_default(),
            runtime: tokio::runtime::Handle::try_current().ok(),
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
        // The offset is kept within MAX_CLOCK_OFFSET_DAYS, so this cannot overflow; if it
        // could, the real time is the better answer than none.
        let offset = self.lock().clock_offset;
        now.checked_add_signed(offset).unwrap_or(now)
    }

    /// Now in Moscow (UTC+3), as the bank writes times.
    pub(crate) fn now_moscow(&self) -> NaiveDateTime {
        let now = self.now_utc();
        now.checked_add_signed(chrono::Duration::seconds(i64::from(
            clientbank_payment::clock::MOSCOW_OFFSET_SECONDS,
        )))
        .unwrap_or(now)
    }

    /// Moves the clock by `by`, within [`MAX_CLOCK_OFFSET_DAYS`] of the real time.
    pub(crate) fn advance_clock(
        &self,
        by: chrono::Duration,
    ) -> Result<NaiveDateTime, ControlError> {
        let limit = chrono::Duration::days(MAX_CLOCK_OFFSET_DAYS);
        {
            let mut state = self.lock();
            match state.clock_offset.checked_add(&by) {
                Some(offset) if offset.abs() <= limit => state.clock_offset = offset,
                _ => {
                    return Err(ControlError(format!(
                        "the clock cannot move by {} s: it would end more than {} days away \
                         from the real time",
                        by.num_seconds(),
                        MAX_CLOCK_OFFSET_DAYS
                    )));
                }
            }
        }
        Ok(self.now_utc())
    }

    /// The webhook retry schedule: at once, 10 minutes after a failure, an hour after that.
    pub(crate) fn webhook_delays(&self) -> [Duration; 3] {
        // The scale was checked at start; a scale that was not is taken as 1.
        let scale = check_time_scale(self.config.time_scale).unwrap_or(1.0);
        let scaled = |seconds: f64| {
            Duration::try_from_secs_f64(seconds * scale).unwrap_or(Duration::from_secs(3600))
        };
        [Duration::ZERO, scaled(600.0), scaled(3600.0)]
    }
}

impl State {
    /// The positions of `account`'s operations in `operations`, newest first (operations are
    /// only ever added: the index is rebuilt when their number changed).
    pub(crate) fn history_of(&mut self, account: &str) -> &[usize] {
        if self.history_index.built_for != self.operations.len() {
            let mut by_account: HashMap<String, Vec<usize>> = HashMap::new();
            for (position, op) in self.operations.iter().enumerate() {
                if let Some(number) = &op.bank_account_number {
                    by_account.entry(number.clone()).or_default().push(position);
                }
            }
            let operations = &self.operations;
            for positions in by_account.values_mut() {
                positions.sort_by_key(|&p| {
                    let op = &operations[p];
                    (std::cmp::Reverse(op.executed.or(op.created)), p)
                });
            }
            self.history_index = HistoryIndex {
                built_for: self.operations.len(),
                by_account,
            };
        }
        self.history_index
            .by_account
            .get(account)
            .map_or(&[], Vec::as_slice)
    }

    /// Whose account this is: its record, if the user may see it.
    pub(crate) fn account(&self, id_or_number: &str) -> Option<&AccountRecord> {
        self.accounts.iter().find(|a| {
            a.account.id == id_or_number || a.account.number.as_deref() == Some(id_or_number)
        })
    }

    pub(crate) fn owner(&self, company_id: &str) -> Option<&str> {
        self.companies
            .iter()
            .find(|c| c.company.company_id == company_id)
            .map(|c| &*c.user)
    }

    /// The balance of an account from its opening and every executed operation up to the end
    /// of the day `until` (all of them without it).
    pub(crate) fn balance(&self, record: &AccountRecord, until: Option<NaiveDate>) -> Decimal {
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
                (Some(at), Some(until)) => at.date() <= until,
                (Some(_), None) => true,
                (None, _) => false,
            })
            .fold(record.opening, |balance, op| match op.category {
                Some(OperationCategory::Debet) => {
                    balance.saturating_add(op.amount.unwrap_or_default())
                }
                Some(OperationCategory::Credit) => {
                    balance.saturating_sub(op.amount.unwrap_or_default())
                }
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

    /// Moves the clock (codes expire, certificates age); the sandbox's time now (UTC). The
    /// clock stays within 100 years of the real time: a move beyond is refused.
    pub fn advance_clock(&self, by: chrono::Duration) -> Result<NaiveDateTime, ControlError> {
        self.shared.advance_clock(by)
    }

    /// Registers the webhook address: HTTPS, or plain HTTP to loopback for tests
    /// ([`check_webhook_url`]); `None` removes it. Notifications not caused by a signature
    /// ([`Control::receive`]) are keyed by the sandbox token `sandboxtoken`; see
    /// [`Control::set_webhook_with_token`] for another.
    pub fn set_webhook(&self, url: Option<String>) -> Result<(), ControlError> {
        self.set_webhook_with_token(url, None)
    }

    /// Registers the webhook address as [`Control::set_webhook`] does, with the token whose
    /// kind keys the notifications not caused by a signature ([`Control::receive`]): a cabinet
    /// token (or `sandboxtoken`, the default) by its first 10 characters, a token obtained
    /// through the authorization flow by its application's secret word. The token must be
    /// known, valid and hold `operation-history`; the error never quotes it. (Notifications of
    /// signed payments stay keyed by the token that signed, as before.)
    pub fn set_webhook_with_token(
        &self,
        url: Option<String>,
        token: Option<&str>,
    ) -> Result<(), ControlError> {
        if let Some(url) = &url {
            check_webhook_url(url)?;
        }
        let key = match token {
            None => HookKey::sandbox(),
            Some(token) => self.shared.hook_key(token)?,
        };
        let mut state = self.shared.lock();
        state.webhook = url;
        state.webhook_key = key;
        Ok(())
    }

    /// Adds `receive.count` operations to an account, executed on `receive.date` (today in
    /// Moscow on the sandbox's clock by default), without a signature: money coming in (or
    /// going out, a tax payment, an SBP payment, a cancelled payment), as the bank's own
    /// history would show it. Each executed one is notified to the registered webhook address
    /// (if the registered token's user owns the account), keyed as
    /// [`Control::set_webhook_with_token`] says, with the documented retries. Cheap for
    /// thousands: one lock, no scan of the existing operations. Returns the operations added.
    pub fn receive(&self, receive: &Receive) -> Result<Vec<Operation>, ControlError> {
        self.shared.receive(receive)
    }

    /// Makes a company of its own user, with a checking account in roubles and a cabinet
    /// token of every right that sees this company only (a bureau's clients, each paying from
    /// its own folder). At most [`crate::MAX_COMPANIES`].
    pub fn add_company(&self, new: &crate::NewCompany) -> Result<crate::MadeCompany, ControlError> {
        self.shared.add_company(new)
    }

    /// The per-run secret the admin interface wants in `Authorization: Bearer …`.
    pub fn admin_token(&self) -> &str {
        &self.shared.admin_token
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
                account: p.account_number.clone(),
                company_id: p.company_id.clone(),
            })
            .collect()
    }
}

/// Delivers a notification with the documented retries, recording each attempt.
pub(crate) fn deliver(shared: Arc<Shared>, url: String, notification: Notification) {
    let runtime = match tokio::runtime::Handle::try_current() {
        Ok(current) => current,
        Err(_) => match &shared.runtime {
            Some(handle) => handle.clone(),
            // No runtime to deliver on: nothing is sent (the bank's own failure to deliver).
            None => return,
        },
    };
    runtime.spawn(async move {
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
            {
                let mut state = shared.lock();
                if state.deliveries.len() >= MAX_DELIVERIES {
                    state.deliveries.remove(0);
                }
                state.deliveries.push(Delivery {
                    operation_id: notification.operation.id.clone(),
                    attempt: attempt as u32 + 1,
                    status,
                    body: body.clone(),
                });
            }
            if status == Some(200) {
                return;
            }
        }
    });
}

/// The sandbox token of sandbox mode (API.md): the default key of notifications.
pub(crate) const SANDBOX_TOKEN: &str = "sandboxtoken";

/// What keys the notifications not caused by a signature, and whose accounts they cover.
#[derive(Clone)]
pub(crate) struct HookKey {
    pub(crate) kind: TokenKind,
    /// The token itself (cabinet) — its first 10 characters key the hash.
    pub(crate) token: String,
    /// The token's user: only operations of this user's companies are notified.
    pub(crate) user: data::User,
}

impl std::fmt::Debug for HookKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HookKey(****)")
    }
}

impl HookKey {
    pub(crate) fn sandbox() -> HookKey {
        HookKey {
            kind: TokenKind::Cabinet,
            token: SANDBOX_TOKEN.into(),
            user: data::USER.into(),
        }
    }

    /// The `SHA1Hash` of a notification of `operation_id`.
    pub(crate) fn hash(&self, operation_id: &str) -> String {
        use clientbank_api::webhook::{WebhookKey, hash};
        match &self.kind {
            TokenKind::Cabinet => hash(
                WebhookKey::CabinetToken(&clientbank_api::Token::new(self.token.clone())),
                operation_id,
            ),
            TokenKind::Authorized { client_secret } => hash(
                WebhookKey::ClientSecret(&clientbank_api::Token::new(client_secret.clone())),
                operation_id,
            ),
        }
    }
}

/// What kind of operation [`Control::receive`] adds (as the sandbox's own test data has them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OperationKind {
    /// Money in from a counterparty (`Debet`, `Received`).
    #[default]
    Incoming,
    /// Money out to a counterparty (`Credit`, `Executed`).
    Outgoing,
    /// The single tax payment to the treasury, with the budget fields (`Credit`, `Executed`).
    Budget,
    /// An SBP payment by QR code, in (`Debet`, `Received`), with its SBP ids.
    Sbp,
    /// A payment out that was cancelled: `Canceled`, no execution date, never notified.
    Cancelled,
}

impl std::str::FromStr for OperationKind {
    type Err = ControlError;
    fn from_str(text: &str) -> Result<OperationKind, ControlError> {
        match text {
            "incoming" => Ok(OperationKind::Incoming),
            "outgoing" => Ok(OperationKind::Outgoing),
            "budget" => Ok(OperationKind::Budget),
            "sbp" => Ok(OperationKind::Sbp),
            "cancelled" | "canceled" => Ok(OperationKind::Cancelled),
            _ => Err(ControlError(format!(
                "the kind {text:?} is not known: expected incoming, outgoing, budget, sbp or \
                 cancelled"
            ))),
        }
    }
}

/// Operations for [`Control::receive`] to add.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Receive {
    /// The account: its number or its id.
    pub account: String,
    /// How many (1 to [`MAX_RECEIVE`]).
    pub count: usize,
    /// The day they are executed on; `None`: today in Moscow on the sandbox's clock.
    pub date: Option<NaiveDate>,
    /// Their kind.
    pub kind: OperationKind,
    /// The amount of each (positive, kopecks at most); `None`: believable amounts that vary.
    pub amount: Option<Decimal>,
}

impl Receive {
    /// One incoming operation today on `account`.
    pub fn new(account: impl Into<String>) -> Receive {
        Receive {
            account: account.into(),
            count: 1,
            date: None,
            kind: OperationKind::Incoming,
            amount: None,
        }
    }
}

/// The most operations one [`Control::receive`] adds.
pub const MAX_RECEIVE: usize = 100_000;
/// The most operations the bank holds (its own test data included).
pub(crate) const MAX_OPERATIONS: usize = 1_000_000;

/// A 64-bit mix of `n` (splitmix64): varied, deterministic amounts and counterparties.
fn mix(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Shared {
    /// The key a registered token gives notifications; refused (without quoting the token)
    /// when the token is unknown, revoked, expired or lacks `operation-history`.
    pub(crate) fn hook_key(&self, token: &str) -> Result<HookKey, ControlError> {
        if token == SANDBOX_TOKEN {
            return Ok(HookKey::sandbox());
        }
        let now = self.now_utc();
        let state = self.lock();
        let Some(record) = state.tokens.get(token) else {
            return Err(ControlError(
                "the webhook token is not a token of this bank: give a cabinet token, a token \
                 obtained through the authorization flow, or sandboxtoken"
                    .into(),
            ));
        };
        if record.revoked || record.expires < now {
            return Err(ControlError(
                "the webhook token is revoked or expired".into(),
            ));
        }
        if !record.rights.iter().any(|r| r == "operation-history") {
            return Err(ControlError(
                "the webhook token lacks the right operation-history, which notifications need"
                    .into(),
            ));
        }
        Ok(HookKey {
            kind: record.kind.clone(),
            token: token.to_string(),
            user: record.user.clone(),
        })
    }

    /// See [`Control::receive`].
    pub(crate) fn receive(
        self: &Arc<Self>,
        receive: &Receive,
    ) -> Result<Vec<Operation>, ControlError> {
        if receive.count == 0 || receive.count > MAX_RECEIVE {
            return Err(ControlError(format!(
                "count is {}: expected 1 to {MAX_RECEIVE}",
                receive.count
            )));
        }
        if let Some(amount) = receive.amount
            && (amount <= Decimal::ZERO
                || amount.scale() > 2
                || amount > Decimal::new(i64::MAX / 1000, 2))
        {
            return Err(ControlError(format!(
                "amount {amount}: expected a positive sum with at most two decimals"
            )));
        }
        let day = receive.date.unwrap_or_else(|| self.now_moscow().date());
        let (operations, company, webhook) = {
            let mut state = self.lock();
            let Some(record) = state.account(&receive.account).cloned() else {
                return Err(ControlError(format!(
                    "no account {:?} in the sandbox bank (give its number or id)",
                    receive.account
                )));
            };
            if state.operations.len() + receive.count > MAX_OPERATIONS {
                return Err(ControlError(format!(
                    "the bank holds at most {MAX_OPERATIONS} operations"
                )));
            }
            let company = state
                .companies
                .iter()
                .find(|c| c.company.company_id == record.company_id)
                .cloned();
            let point = state
                .retail_points
                .iter()
                .find(|p| p.company_id == record.company_id)
                .map(|p| p.id.clone());
            let first = state.received;
            state.received += receive.count as u64;
            let mut operations = Vec::with_capacity(receive.count);
            for i in 0..receive.count {
                let n = first + i as u64 + 1;
                // Spread over the working day, 09:00 to 18:00, in order.
                let second = 9 * 3600 + (i as u64 * 9 * 3600 / receive.count as u64) as u32;
                let at = day.and_time(
                    chrono::NaiveTime::from_num_seconds_from_midnight_opt(second, 0)
                        .unwrap_or(chrono::NaiveTime::MIN),
                );
                let id = random_uuid().map_err(|e| ControlError(e.to_string()))?;
                let op = received_operation(id, n, &record, receive, at);
                if receive.kind == OperationKind::Sbp
                    && let Some(point) = &point
                {
                    state.operation_points.insert(op.id.clone(), point.clone());
                }
                state.operations.push(op.clone());
                operations.push(op);
            }
            let owner = company.as_ref().map(|c| c.user.clone());
            let webhook = state
                .webhook
                .clone()
                .filter(|_| owner.as_ref() == Some(&state.webhook_key.user))
                .map(|url| (url, state.webhook_key.clone()));
            (operations, company, webhook)
        };
        if let Some((url, key)) = webhook {
            let company = company.map(|c| c.company).unwrap_or_default();
            for operation in operations.iter().filter(|op| op.executed.is_some()) {
                deliver(
                    self.clone(),
                    url.clone(),
                    Notification {
                        company_inn: company.inn.clone().unwrap_or_default(),
                        company_kpp: company.kpp.clone().unwrap_or_default(),
                        operation: operation.clone(),
                        sha1_hash: key.hash(&operation.id),
                    },
                );
            }
        }
        Ok(operations)
    }
}

/// One operation of [`Control::receive`], shaped as `data::operations` shapes its kind.
fn received_operation(
    id: String,
    n: u64,
    record: &AccountRecord,
    receive: &Receive,
    at: NaiveDateTime,
) -> Operation {
    let r = mix(n);
    let party = data::COUNTERPARTIES[(r % data::COUNTERPARTIES.len() as u64) as usize];
    let amount = receive
        .amount
        .unwrap_or_else(|| Decimal::new(10_000 + ((r >> 8) % 30_000_000) as i64, 2));
    let number = 5000 + n;
    data::operation(
        receive.kind,
        &data::Shape {
            id,
            n,
            record,
            party,
            amount,
            at,
            doc_number: number,
            invoice: number % 1000,
            series: 'B',
        },
    )
}
