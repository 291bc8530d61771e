//! The engine: one file's payments recorded, sent at most once and answered; signing. Shared
//! by the daemon and by `clientbank upload` and `clientbank sign`.

use std::collections::{BTreeMap, HashMap};

use clientbank_api::{Client, SignRequest};
use clientbank_format::{Lang, Message, say, tr};
use clientbank_payment::json::{IN_SIGNING, Parameters};
use sha2::{Digest, Sha256};

use crate::Error;
use crate::drop::{Drop, Kind};
use crate::journal::{Journal, NewFile, NewPayment, Outcome, Requisites, note};
use crate::last_errors::{Unsigned, sign_failed, sign_topic};
use crate::state::{PaymentState, SignState};
use clientbank_bank::config::{Route, Settings};
use clientbank_bank::signer;

mod route_1c;
mod sign;

/// SHA-256 of the content, hex.
pub fn content_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    hex::encode(digest)
}

/// A payment of a drop as the journal records it, `planned`.
pub fn new_payment(payment: &crate::drop::Planned, company: Option<String>) -> NewPayment {
    let id = &payment.identity;
    NewPayment {
        payment: Requisites {
            identity: id.key(),
            payer_account: id.payer_account.clone(),
            number: id.number.clone(),
            number_written: written_number(payment, &id.number),
            date: id
                .date
                .map(|d| d.format("%d.%m.%Y").to_string())
                .unwrap_or_default(),
            sum: id.sum.map(|s| format!("{:.2}", s)).unwrap_or_default(),
            recipient: payment.recipient().to_string(),
            recipient_account: id.recipient_account.clone(),
            company,
        },
        outcome: Outcome::default(),
        order: payment.order.clone(),
    }
}

/// The number as the drop wrote it, where it is not the normalised one (`0402`).
fn written_number(payment: &crate::drop::Planned, normalised: &str) -> Option<String> {
    let written = payment.request.payment.number.as_deref()?.trim();
    (written != normalised).then(|| written.to_string())
}

/// Today in Moscow, the bank's day: the workspace's one clock (`clientbank_payment::clock`).
pub use clientbank_payment::clock::today_in_moscow;

/// How sending a file's payments ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sent {
    /// Every payment has its answer (uploaded, refused, already, in doubt…).
    Finished,
    /// The bank did not take the request (maintenance, no connection, too many requests):
    /// try again later, not before `retry_after` when the bank asked for it. Nothing of the
    /// file is in doubt.
    NotTaken {
        /// Why, for people.
        why: Message,
        /// The wait the bank asked for (`Retry-After`).
        retry_after: Option<std::time::Duration>,
    },
    /// The bank refused the token (401): uploads stop until it changes.
    TokenRefused(Message),
    /// The request could not even be made (a token that cannot be a header, an address):
    /// nothing was sent; uploads stop until the configuration changes.
    Misconfigured(Message),
    /// Stopped on request between payments; the rest is sent on the next start.
    Interrupted,
}

/// A company as the bank names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompanyInfo {
    /// Its id.
    pub id: String,
    /// Its INN.
    pub inn: Option<String>,
    /// Its name.
    pub name: String,
}

impl CompanyInfo {
    /// "ООО "Ромашка" (INN 7701234560)": the one English form (JSON, English logs, the
    /// journal's keys); [`CompanyInfo::label_in`] is what people read.
    pub fn label(&self) -> String {
        match &self.inn {
            Some(inn) => format!("{} (INN {inn})", self.name),
            None => self.name.clone(),
        }
    }

    /// The label in `lang`: "ООО "Ромашка" (ИНН 7701234560)" in Russian.
    pub fn label_in(&self, lang: Lang) -> String {
        label_in(&self.label(), lang)
    }

    /// The label in both languages.
    pub fn label_message(&self) -> Message {
        Message::new(self.label(), self.label_in(Lang::Ru))
    }
}

/// A company as the journal and the logs name it in English — `NAME (INN …)`, or `payer account
/// …` when the company is not known — in `lang`, for people.
pub fn label_in(label: &str, lang: Lang) -> String {
    if lang != Lang::Ru {
        return label.to_string();
    }
    if let Some(account) = label.strip_prefix("payer account ") {
        return format!("счёт плательщика {account}");
    }
    match label.rsplit_once(" (INN ") {
        Some((name, inn)) if inn.ends_with(')') => format!("{name} (ИНН {inn}"),
        _ => label.to_string(),
    }
}

/// One company's signature.
#[derive(Clone, Debug)]
pub struct SignGroup {
    /// The company.
    pub company: CompanyInfo,
    /// The ids signed (sorted).
    pub ids: Vec<String>,
    /// The signed string.
    pub content: String,
    /// How it ended.
    pub result: SignResult,
}

impl SignGroup {
    /// The group of `ids` of `company`, ended as `result`.
    fn new(company: &CompanyInfo, ids: Vec<String>, result: SignResult) -> SignGroup {
        SignGroup {
            content: SignRequest::signed_content(&ids),
            company: company.clone(),
            ids,
            result,
        }
    }
}

/// How one company's signature ended; not signed, why (in both languages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignResult {
    /// The bank took the signature.
    Signed,
    /// A dry run: nothing signed.
    DryRun,
    /// The bank refused the signature.
    Refused(Message),
    /// The bank no longer awaits a signature of the payment (signed already, or cancelled).
    NotAwaiting(Message),
    /// No signer for the company, the signer failed, or the signature did not reach the bank.
    Failed(Message),
}

impl SignResult {
    /// Its machine code: `signed`, `dry-run`, `refused`, `not-awaiting`, `failed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            SignResult::Signed => "signed",
            SignResult::DryRun => "dry-run",
            SignResult::Refused(_) => "refused",
            SignResult::NotAwaiting(_) => "not-awaiting",
            SignResult::Failed(_) => "failed",
        }
    }

    /// Whether the bank took the signature.
    pub fn is_signed(&self) -> bool {
        *self == SignResult::Signed
    }

    /// What people read of it, in both languages: `signed`, `dry run: not signed`, or why not
    /// (`failed: …`, `refused: …`, `not signed: …` in English).
    pub fn message(&self) -> Message {
        match self {
            SignResult::Signed => Message::new("signed", "подписаны"),
            SignResult::DryRun => {
                Message::new("dry run: not signed", "пробный запуск: не подписаны")
            }
            SignResult::Refused(why) | SignResult::NotAwaiting(why) | SignResult::Failed(why) => {
                why.clone()
            }
        }
    }
}

impl std::fmt::Display for SignResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// In JSON (`clientbank sign --json`'s `result`): what it says in English.
impl serde::Serialize for SignResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.message().en())
    }
}

/// The journal, the settings and the bank: what one file's upload and a signature need.
#[derive(Debug)]
pub struct Engine {
    /// The journal ([`Engine::journal`] outside the crate).
    pub(crate) journal: Journal,
    /// The settings ([`Engine::settings`]; replaced by [`Engine::set_settings`] only, so that
    /// the client is made anew).
    pub(crate) settings: Settings,
    client: Option<Client>,
    companies: Option<HashMap<String, CompanyInfo>>,
    /// Set to stop between payments.
    pub(crate) stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// The DIR lock, when this engine works on a DIR (the daemon, `upload`, `sign`, `resolve`).
    pub(crate) lock: Option<crate::lock::DirLock>,
    /// The signing lock, when this engine is `clientbank sign`'s.
    pub(crate) signing_lock: Option<crate::lock::DirLock>,
}

/// The bank the settings send to, as the journal records it.
fn bank_of(settings: &Settings) -> Option<crate::journal::Bank> {
    let address = settings
        .bank_url
        .as_ref()?
        .trim_end_matches('/')
        .to_string();
    Some(crate::journal::Bank {
        address,
        kind: settings.bank_kind(),
    })
}

impl Engine {
    /// An engine over an open journal.
    pub fn new(mut journal: Journal, settings: Settings) -> Engine {
        journal.send_to(bank_of(&settings));
        Engine {
            journal,
            settings,
            client: None,
            companies: None,
            stop: Default::default(),
            lock: None,
            signing_lock: None,
        }
    }

    /// Whether the DIR lock is still ours ([`crate::lock::DirLock::check`]); `Ok` without one.
    /// With a journal in PostgreSQL, the folder's lease is renewed here when due
    /// ([`Journal::keep_lease`]): a daemon whose lease ran out stops before the next file.
    pub fn check_lock(&mut self) -> Result<(), Error> {
        for lock in [&self.lock, &self.signing_lock].into_iter().flatten() {
            lock.check()?;
        }
        self.journal.keep_lease()
    }

    /// The journal, to read what it recorded.
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// The journal, to record in it.
    pub fn journal_mut(&mut self) -> &mut Journal {
        &mut self.journal
    }

    /// The settings in use.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// How many payments of the journal await their signature (none when it cannot be read).
    pub fn awaiting_signature(&self) -> usize {
        self.journal
            .awaiting_signature()
            .map_or(0, |rows| rows.len())
    }

    /// Whether the journal holds any payment (a journal that recorded nothing may be removed).
    pub fn recorded_any(&self) -> bool {
        self.journal
            .payments_by_state()
            .map_or(true, |counts| !counts.is_empty())
    }

    /// Replaces the settings (a changed configuration): the client is made anew.
    pub fn set_settings(&mut self, settings: Settings) {
        self.journal.send_to(bank_of(&settings));
        self.settings = settings;
        self.client = None;
    }

    /// Refuses, before anything is sent, a bank of another kind than the one the journal's
    /// payments went to (a sandbox and the real bank): see [`crate::journal::Bank`].
    pub fn check_bank(&self) -> Result<(), Error> {
        match bank_of(&self.settings) {
            Some(bank) => self.journal.check_bank(&bank),
            None => Ok(()),
        }
    }

    fn stopping(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The bank client (made once from the settings).
    pub fn client(&mut self) -> Result<Client, Error> {
        if let Some(client) = &self.client {
            return Ok(client.clone());
        }
        let client = self.settings.client()?;
        self.client = Some(client.clone());
        Ok(client)
    }

    /// The companies by account number (asked once).
    pub async fn companies(&mut self) -> Result<HashMap<String, CompanyInfo>, Error> {
        if let Some(companies) = &self.companies {
            return Ok(companies.clone());
        }
        let client = self.client()?;
        let list = client.companies().await?;
        let mut map = HashMap::new();
        for company in list {
            let info = CompanyInfo {
                id: company.company_id.clone(),
                inn: company.inn.clone(),
                name: company
                    .company_name
                    .clone()
                    .unwrap_or_else(|| company.company_id.clone()),
            };
            for account in &company.bank_accounts {
                if let Some(number) = &account.number {
                    map.insert(number.clone(), info.clone());
                }
            }
        }
        self.companies = Some(map.clone());
        Ok(map)
    }

    /// Plans a drop's payments: each is `planned`, or `already` (twice in this drop). Whether
    /// the same identity is active in another file (then `already`, `held` or `queued`) is
    /// decided when the intents are recorded, in their transaction. The company of each payer
    /// account is named when the bank is reachable.
    pub async fn plan(&mut self, drop: &Drop) -> Result<Vec<NewPayment>, Error> {
        let companies = self.companies().await.unwrap_or_default();
        let mut planned = Vec::with_capacity(drop.payments.len());
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (position, payment) in drop.payments.iter().enumerate() {
            let key = payment.identity.key();
            let company = companies
                .get(&payment.identity.payer_account)
                .map(CompanyInfo::label);
            let mut row = new_payment(payment, company);
            // Payments active in other files are decided inside the intent transaction
            // (Journal::record_intents): already, held or queued.
            if let Some(first) = seen.get(&key) {
                row.outcome = Outcome::said(
                    PaymentState::Already,
                    format!(
                        "the same payment as payment {} of this file: sent once",
                        first + 1
                    ),
                );
            }
            seen.entry(key).or_insert(position);
            planned.push(row);
        }
        Ok(planned)
    }

    /// Which route a drop takes under the settings; `Err` with the reason when it cannot be
    /// sent without losing something.
    pub fn route(&self, drop: &Drop) -> Result<Route, String> {
        match (drop.kind, self.settings.route) {
            (Kind::Json, _) => Ok(Route::Json),
            (Kind::OneC, Route::OneC) => Ok(Route::OneC),
            (Kind::OneC, Route::Auto) if drop.carried_by_json() => Ok(Route::Json),
            (Kind::OneC, Route::Auto) => Ok(Route::OneC),
            (Kind::OneC, Route::Json) if drop.carried_by_json() => Ok(Route::Json),
            (Kind::OneC, Route::Json) => Err(
                "route = \"json\", but the JSON request cannot carry everything of this file \
                 (see the not-carried findings): it is not sent incompletely; use route \
                 \"auto\" or \"1c\""
                    .into(),
            ),
        }
    }

    /// Sends the payments of a recorded file that are `planned` (the first of them may already
    /// be marked `sending` by the intent transaction), recording each answer.
    pub async fn send(&mut self, file_id: i64, drop: &Drop, route: Route) -> Result<Sent, Error> {
        let client = self.client()?;
        self.check_lock()?;
        // Payments queued behind the same payment in another file: sent from here only once
        // that one ended without sending it.
        self.journal.requeue(file_id)?;
        let rows = self.journal.payments_of(file_id)?;
        // A payment marked `sending` whose answer was not recorded (a journal write that
        // failed after the send) is in doubt: never sent again.
        let stale: Vec<(i64, Outcome)> = rows
            .iter()
            .filter(|r| r.outcome.state == PaymentState::Sending)
            .map(|r| {
                (
                    r.id,
                    Outcome::doubt(note::both(
                        "its answer was not recorded: it may or may not be at the bank",
                        "его ответ не записан: он может быть в банке, а может и не быть",
                    )),
                )
            })
            .collect();
        if !stale.is_empty() {
            self.journal.record_outcomes(&stale)?;
            return Ok(Sent::Finished);
        }
        let todo: Vec<_> = rows
            .iter()
            .filter(|r| r.outcome.state == PaymentState::Planned)
            .cloned()
            .collect();
        if todo.is_empty() {
            return Ok(Sent::Finished);
        }
        if route == Route::OneC {
            return self.send_1c(&client, drop, &todo).await;
        }
        let in_signing = self.settings.in_signing;
        let mut marked = false;
        for (n, row) in todo.iter().enumerate() {
            if !marked {
                if self.stopping() {
                    return Ok(Sent::Interrupted);
                }
                // Marked `sending` only if its identity is active nowhere else (checked again
                // at send time, in the marking transaction).
                if self.journal.mark_sending(&[row.id])?.is_empty() {
                    tracing::warn!(number = %row.payment.shown_number(), "not sent: the same payment is active in another file");
                    continue;
                }
            }
            let Some(planned) = drop.payments.get(row.position as usize) else {
                self.journal.record_outcomes(&[(
                    row.id,
                    Outcome::doubt(note::both(
                        "the file no longer holds this payment",
                        "в файле больше нет этого платежа",
                    )),
                )])?;
                return Ok(Sent::Finished);
            };
            let mut request = planned.request.clone();
            request.parameters = in_signing.then(|| Parameters {
                target_status: Some(IN_SIGNING.to_string()),
            });
            let answer = client.upload(&request).await;
            if let Err(e) = &answer
                && let Some(sent) = set_up_problem(e)
            {
                self.journal
                    .set_payment(row.id, PaymentState::Planned, None)?;
                return Ok(sent);
            }
            let outcome = match answer {
                Ok(result) => uploaded(
                    row.payment.shown_number(),
                    &row.payment.sum,
                    &result,
                    in_signing,
                ),
                Err(e) if e.not_taken() => {
                    self.journal
                        .set_payment(row.id, PaymentState::Planned, None)?;
                    let said = not_taken(&e);
                    say!(warn, said, number = %row.payment.shown_number());
                    return Ok(Sent::NotTaken {
                        why: e.message(),
                        retry_after: e.retry_after(),
                    });
                }
                Err(e) if e.in_doubt() => {
                    let said = because(&e, "payment in doubt", "платёж под сомнением");
                    say!(error, said, number = %row.payment.shown_number());
                    self.journal.record_outcomes(&[(row.id, in_doubt(&e))])?;
                    // The bank is not answering as it should: the rest waits for a person.
                    return Ok(Sent::Finished);
                }
                Err(e) => {
                    let said = because(&e, "payment refused by the bank", "банк отклонил платёж");
                    say!(warn, said, number = %row.payment.shown_number());
                    Outcome {
                        state: PaymentState::Refused,
                        message: Some(note::both(e.message().en(), e.message().ru())),
                        ..Outcome::default()
                    }
                }
            };
            let next = todo.get(n + 1).filter(|_| !self.stopping()).map(|r| r.id);
            marked = self
                .journal
                .record_outcome_and_mark_next((row.id, outcome), next)?;
            if self.stopping() && n + 1 < todo.len() {
                return Ok(Sent::Interrupted);
            }
        }
        Ok(Sent::Finished)
    }
}

/// The outcome of a payment the bank took: uploaded, awaiting its signature when it was
/// uploaded `InSigning` and the bank named its id, with the bank's warnings.
fn uploaded(
    number: &str,
    sum: &str,
    result: &clientbank_api::UploadResult,
    in_signing: bool,
) -> Outcome {
    let created = result.created();
    // The bank's own words, the same in both languages; ours in each.
    let mut notes: Vec<String> = result.warnings.clone();
    notes.extend(result.problems.iter().cloned());
    let bank_id = created.first().map(|s| s.to_string());
    let (mut en, mut ru) = (notes.clone(), notes);
    if bank_id.is_none() {
        en.push("the bank took it without naming its id: sign it in the bank's cabinet".into());
        ru.push("банк принял его, не назвав id: подпишите его в интернет-банке".into());
    }
    tracing::info!(
        number = %number, sum = %sum, id = bank_id.as_deref().unwrap_or("-"),
        "payment uploaded"
    );
    Outcome {
        state: PaymentState::Uploaded,
        sign: Some(if in_signing && bank_id.is_some() {
            SignState::Awaiting
        } else {
            SignState::Draft
        }),
        bank_id,
        answer: Some(result.raw.clone()),
        message: (!en.is_empty()).then(|| note::both(en.join("; "), ru.join("; "))),
    }
}

/// The outcome of a payment sent whose answer was lost: in doubt, with what the bank's
/// unreadable answer said (its body, an id it named).
fn in_doubt(e: &clientbank_api::Error) -> Outcome {
    let (answer, bank_id) = match e {
        clientbank_api::Error::Unreadable { body, ids, .. } => {
            (Some(body.clone()), ids.first().cloned())
        }
        _ => (None, None),
    };
    Outcome {
        bank_id,
        answer,
        ..Outcome::doubt(note::both(
            format!("sent, but the answer was lost ({e}): it may or may not be at the bank"),
            format!(
                "отправлен, но ответ потерян ({}): он может быть в банке, а может и не быть",
                e.message().ru()
            ),
        ))
    }
}

/// `what: why` in both languages, `why` what the bank's error says.
fn because(e: &clientbank_api::Error, en: &str, ru: &str) -> Message {
    let why = e.message();
    Message::new(format!("{en}: {}", why.en()), format!("{ru}: {}", why.ru()))
}

/// An answer to an upload that says nothing was taken because of the set-up, not because of
/// the payment, so the file waits instead of being rejected: a request that could not be
/// built; an address with no upload endpoint (404, 405, 415: a `bank_url` without `/v1`, or
/// not the bank); a token the bank refuses (401) or that lacks the right to upload (403).
/// A payment the bank did not take (`e`): not reached, or not taken.
fn not_taken(e: &clientbank_api::Error) -> Message {
    match e {
        clientbank_api::Error::Connect(_) => because(
            e,
            "the payment was not sent: no connection to the bank",
            "платёж не отправлен: нет соединения с банком",
        ),
        _ => because(
            e,
            "the bank did not take the payment",
            "банк не принял платёж",
        ),
    }
}

fn set_up_problem(e: &clientbank_api::Error) -> Option<Sent> {
    use clientbank_api::Error as E;
    let said = e.message();
    let (en, ru) = (said.en(), said.ru());
    match e {
        E::Config(_) | E::InvalidId { .. } => Some(Sent::Misconfigured(said)),
        _ if e.misconfigured_connection() => Some(Sent::Misconfigured(said)),
        E::Api {
            status: 404 | 405 | 415,
            ..
        } => Some(Sent::Misconfigured(Message::new(
            format!(
                "the address is not the bank's upload endpoint ({en}): bank_url must be the \
                 API's root, ending in /v1"
            ),
            format!(
                "по этому адресу нет загрузки платежей банка ({ru}): bank_url — корень API, он \
                 оканчивается на /v1"
            ),
        ))),
        E::Unauthorized { .. } => Some(Sent::TokenRefused(said)),
        E::AccessDenied { status: 403, .. } | E::Api { status: 403, .. } => {
            Some(Sent::TokenRefused(Message::new(
                format!(
                    "{en}: the token may not upload payments (it needs the money-transfer right)"
                ),
                format!("{ru}: токену нельзя загружать платежи (нужно право money-transfer)"),
            )))
        }
        _ => None,
    }
}

/// Where a recorded file goes, by its payments' states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every payment uploaded now or already at the bank.
    Done,
    /// The bank refused a payment (the others are reported).
    Rejected,
    /// A payment may or may not be at the bank, or is held: a person decides.
    Review,
    /// Payments not sent yet (interrupted, waiting for the bank, or queued behind the same
    /// payment in another file).
    Pending,
}

/// What [`Engine::begin`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Begun {
    /// The intents are recorded: send them with [`Engine::send`].
    Recorded {
        /// The file's row.
        file_id: i64,
        /// [`Route::Json`] or [`Route::OneC`].
        route: Route,
    },
    /// The drop cannot go by the configured route without losing something.
    CannotRoute(String),
}

/// A file to process ([`Engine::process_file`]).
#[derive(Clone, Copy, Debug)]
pub struct Intake<'a> {
    /// Its name, as dropped.
    pub name: &'a str,
    /// Where it is: `processing/NAME` for the daemon, the path given to `clientbank upload`.
    pub place: &'a str,
    /// Its content.
    pub bytes: &'a [u8],
    /// The day dates are checked as of.
    pub today: chrono::NaiveDate,
    /// Go on with the journal's record of a file at `place` (the daemon: a file that waited
    /// for the bank, or was interrupted); else a new record.
    pub resume: bool,
    /// A file cut short (a 1C file without `КонецФайла`, JSON that does not parse to its end)
    /// is rejected, saying it stayed so for this long (the daemon's `incomplete_after`).
    pub cut_short_after: Option<std::time::Duration>,
    /// Whether anything may be sent now. While the bank refuses the token the daemon still
    /// rejects a file with errors (that needs no bank) and holds the others
    /// ([`Processed::Held`]).
    pub may_send: bool,
}

/// What [`Engine::process_file`] did.
#[derive(Debug)]
pub enum Processed {
    /// Nothing sent: error findings, a file cut short, or a route that cannot carry it. The
    /// text of `FILE.errors.txt`, and the file's hash.
    Rejected {
        /// SHA-256 of the content.
        hash: String,
        /// What is wrong, rendered.
        text: String,
        /// How many error findings.
        errors: usize,
    },
    /// The file is not what the journal recorded at its place (replaced while it waited): its
    /// new content is not sent.
    Changed {
        /// The recorded file's row.
        file_id: i64,
    },
    /// Nothing may be sent now ([`Intake::may_send`]) and nothing is wrong with the file: it
    /// is left as it is, unrecorded or as recorded.
    Held,
    /// Recorded and sent as far as the bank let it.
    Sent {
        /// The file's row.
        file_id: i64,
        /// How sending ended: an error is the journal's (a write that failed) or the set-up's.
        sent: Result<Sent, Error>,
        /// How many of its payments reached the bank now (counted whatever happens next).
        uploaded: usize,
    },
}

impl Engine {
    /// The one path from a dropped file to its payments at the bank, for `watch` and `upload`:
    /// read and checked ([`crate::drop::read`]), its intents recorded before anything is sent
    /// ([`Engine::begin`]), sent at most once ([`Engine::send`]). Where the file goes next is
    /// the caller's (the daemon moves it; `upload` leaves it where it is).
    pub async fn process_file(&mut self, file: Intake<'_>) -> Result<Processed, Error> {
        let hash = content_hash(file.bytes);
        let drop = crate::drop::read(
            std::path::Path::new(file.name),
            file.bytes,
            file.today,
            self.settings.lang,
        );
        let recorded = if file.resume {
            self.journal.processing_file(file.place)?
        } else {
            None
        };
        let (file_id, route) = match recorded {
            Some(row) if row.hash != hash => return Ok(Processed::Changed { file_id: row.id }),
            Some(_) if !file.may_send => return Ok(Processed::Held),
            Some(row) => (row.id, row.route.unwrap_or(Route::Json)),
            None => {
                let rejected = |text: String| Processed::Rejected {
                    hash: hash.clone(),
                    text,
                    errors: drop.errors.max(1),
                };
                if let Some(after) = file.cut_short_after
                    && let Some(why) = crate::complete::incomplete(file.bytes)
                {
                    let name = file.name;
                    let after = clientbank_diagnostic::duration(after);
                    let (after_en, after_ru) = (after.en(), after.ru());
                    let whole = match drop.kind {
                        crate::drop::Kind::OneC => Message::new(
                            "A complete 1C file ends with КонецФайла",
                            "Полный файл 1С кончается строкой КонецФайла",
                        ),
                        crate::drop::Kind::Json => Message::new(
                            "A complete JSON file closes every [ and { it opens",
                            "В полном файле JSON закрыта каждая открытая [ и {",
                        ),
                    };
                    let said = tr!(
                        "error: {name} is cut short: {}. It stayed so, unchanged, for {after_en} \
                         (incomplete_after), so it was taken as it is and rejected: nothing of \
                         it was sent. {whole}; export it again from the accounting software.",
                        why.en() ;
                        "ошибка: {name} оборван: {}. Он оставался таким, не меняясь, \
                         {after_ru} (incomplete_after), поэтому взят как есть и отклонён: ничего \
                         из него не отправлено. {}; выгрузите его из учётной программы заново.",
                        why.ru(), whole.ru()
                    );
                    let said = said.get(self.settings.lang);
                    return Ok(rejected(format!("{said}\n{}", drop.errors_text)));
                }
                if drop.has_errors() {
                    // A person reads this first: the whole file went, and what to do.
                    let (name, n, errors) = (file.name, drop.payments.len(), drop.errors);
                    let said = if n == 0 {
                        tr!(
                            "{name} is rejected: nothing was sent, because of the error(s) \
                             below." ;
                            "{name} отклонён: ничего не отправлено из-за ошибок ниже."
                        )
                    } else {
                        tr!(
                            "{name} is rejected whole: none of its {n} payment(s) was sent, \
                             because of {errors} error(s) below. Mend them in the accounting \
                             software and export the file again." ;
                            "{name} отклонён целиком: ни один из его платежей ({n}) не \
                             отправлен из-за ошибок ниже ({errors}). Исправьте их в учётной \
                             программе и выгрузите файл заново."
                        )
                    };
                    let said = said.get(self.settings.lang);
                    return Ok(rejected(format!("{said}\n\n{}", drop.errors_text)));
                }
                if !file.may_send {
                    return Ok(Processed::Held);
                }
                match self.begin(file.name, file.place, &hash, &drop).await? {
                    Begun::Recorded { file_id, route } => (file_id, route),
                    Begun::CannotRoute(reason) => {
                        return Ok(rejected(format!("{}error: {reason}\n", drop.errors_text)));
                    }
                }
            }
        };
        let before = self.journal.count_of(file_id, PaymentState::Uploaded)?;
        let sent = self.send(file_id, &drop, route).await;
        let uploaded = self
            .journal
            .count_of(file_id, PaymentState::Uploaded)
            .map_or(0, |now| now.saturating_sub(before));
        Ok(Processed::Sent {
            file_id,
            sent,
            uploaded,
        })
    }

    /// Plans a drop and records its intents (one durable transaction), before anything is sent.
    pub async fn begin(
        &mut self,
        name: &str,
        place: &str,
        hash: &str,
        drop: &Drop,
    ) -> Result<Begun, Error> {
        let route = match self.route(drop) {
            Ok(route) => route,
            Err(reason) => return Ok(Begun::CannotRoute(reason)),
        };
        let plan = self.plan(drop).await?;
        let (file_id, _) =
            self.journal
                .record_intents(NewFile { name, hash, place }, route, &plan)?;
        tracing::info!(file = %name, %route, payments = plan.len(), "intents recorded");
        Ok(Begun::Recorded { file_id, route })
    }

    /// Where a file goes, by its payments.
    pub fn verdict(&self, file_id: i64) -> Result<Verdict, Error> {
        let rows = self.journal.payments_of(file_id)?;
        let any = |state: PaymentState| rows.iter().any(|r| r.outcome.state == state);
        Ok(
            if any(PaymentState::Doubt) || any(PaymentState::Held) || any(PaymentState::Sending) {
                Verdict::Review
            } else if any(PaymentState::Planned) || any(PaymentState::Queued) {
                Verdict::Pending
            } else if any(PaymentState::Refused) {
                Verdict::Rejected
            } else {
                Verdict::Done
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::route_1c::{partly_created, refused_payment};
    use super::*;
    use crate::journal::PaymentRow;

    fn row(id: i64, number: &str) -> PaymentRow {
        PaymentRow::example(id, number, PaymentState::Sending)
    }

    fn drop() -> Drop {
        Drop {
            kind: crate::drop::Kind::OneC,
            errors_text: String::new(),
            errors: 0,
            payments: Vec::new(),
            document_1c: None,
        }
    }

    fn states(answer: &str) -> Vec<(PaymentState, Option<String>)> {
        let todo = [row(1, "7"), row(2, "8"), row(3, "9")];
        let result = clientbank_api::UploadResult::from_answer(answer.as_bytes()).unwrap();
        partly_created(&todo, &drop(), &result)
            .into_iter()
            .map(|(_, o)| (o.state, o.bank_id))
            .collect()
    }

    /// The answer names the refused payment: the others are created, ids in the file's order.
    #[test]
    fn a_refusal_that_names_its_payment_settles_each() {
        let named = r#"{"ids": ["a", "b"], "totalLoaded": 2,
            "errors": ["документ 2 (№ 8, строка 40): нет доступа к счёту"]}"#;
        assert_eq!(
            states(named),
            [
                (PaymentState::Uploaded, Some("a".into())),
                (PaymentState::Refused, None),
                (PaymentState::Uploaded, Some("b".into())),
            ]
        );
    }

    /// A refusal that names no payment of the file, or ids that do not add up: who was created
    /// cannot be told, so the payments not named are in doubt (never guessed).
    #[test]
    fn an_answer_that_does_not_say_which_leaves_the_rest_in_doubt() {
        let unnamed = r#"{"ids": ["a", "b"], "totalLoaded": 2, "errors": ["one refused"]}"#;
        assert!(
            states(unnamed)
                .iter()
                .all(|s| *s == (PaymentState::Doubt, None))
        );
        let short = r#"{"ids": ["a"], "totalLoaded": 1, "errors": ["№ 8: refused"]}"#;
        assert_eq!(
            states(short),
            [
                (PaymentState::Doubt, None),
                (PaymentState::Refused, None),
                (PaymentState::Doubt, None)
            ]
        );
        // A number shared by two payments names neither.
        let todo = [row(1, "7"), row(2, "7")];
        assert_eq!(refused_payment("№ 7: refused", &todo, &drop()), None);
    }
}
