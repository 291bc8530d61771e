//! The routes: the API v1 under `/v1`, the admin interface under `/admin`.

// Handlers refuse with a finished response; it is built once per request, boxing buys nothing.
#![allow(clippy::result_large_err)]

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{HeaderMap, Method, Response, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::routing::{get, post};
use base64::Engine;
use chrono::{NaiveDate, NaiveDateTime};
use clientbank_api::types::{OperationCategory, OperationStatus, moscow_time};
use clientbank_api::webhook::{self, WebhookKey};
use clientbank_api::{ErrorBody, HistoryFilter, Notification, Operation, Token};
use clientbank_payment::batch::{Batch, Item};
use clientbank_payment::{Context, Diagnostic, Lang, Payment};
use serde::Serialize;
use serde_json::{Value, json};

use crate::data;
use crate::sign::{self, SignProblem, Signer};
use crate::state::{
    self, CodeRecord, Drop, Fault, MAX_CODES, MAX_FAULT_DELAY, MAX_PAYMENTS, MAX_RETAIL_POINTS,
    MAX_TOKENS, PaymentRecord, RetailPoint, Shared, TokenKind, TokenRecord,
};

type Reply = Response<Body>;
type Shr = State<Arc<Shared>>;

/// The fixed sandbox credentials.
const SANDBOX_CLIENT_ID: &str = "sandboxapp";
const SANDBOX_CLIENT_SECRET: &str = "sandboxappsecret";
const SANDBOX_TOKEN: &str = "sandboxtoken";

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    let v1 = Router::new()
        .route("/account-info", post(companies))
        .route("/account-info/balance/{id}", post(balance))
        .route("/account-info/balance/{id}/{date}", post(balance_on))
        .route("/account-info/balance-details/{id}", post(balance_details))
        .route("/operation-history/{id}", post(history))
        .route("/operation-upload", post(upload))
        .route("/operation-upload/1c", post(upload_1c))
        .route("/operation-upload/sign", post(sign_payments))
        .route("/oauth/authorize", get(authorize_get).post(authorize_post))
        .route("/oauth/token", post(token))
        .route("/revoke", post(revoke))
        .route("/beneficial/{account}/import", post(assistant_json))
        .route("/beneficial/{account}/report", get(assistant_file))
        .route("/beneficial/{account}/report/send", post(assistant_sent))
        .route("/beneficial/{account}/forms/parts", get(form_parts))
        .route(
            "/beneficial/{account}/forms/parts/{part}",
            get(assistant_file),
        )
        .route(
            "/beneficial/{account}/forms/parts/{part}/send",
            post(assistant_sent),
        )
        .route(
            "/beneficiaries/v2/{account}/reports/unsigned",
            get(unsigned_reports),
        )
        .route(
            "/beneficiaries/v2/{account}/report/{id}",
            get(assistant_file),
        )
        .route(
            "/beneficiaries/v2/{account}/report/{id}/send",
            post(assistant_sent),
        )
        .route(
            "/sbp/retail-points",
            get(retail_points).post(register_retail_point),
        )
        .route("/sbp/retail-points/{id}", get(sbp_json))
        .route("/sbp/retail-points/{id}/status", get(sbp_json))
        .route("/sbp/qr-codes/dynamic", post(sbp_json))
        .route("/sbp/qr-codes/refund", post(sbp_json))
        .route("/sbp/qr-codes/refund/{id}", get(sbp_json))
        .route("/sbp/qr-codes/{id}", get(sbp_json))
        .route("/sbp/qr-codes/{id}/image", get(qr_image))
        .route("/sbp/mcc", get(sbp_json))
        .route("/sbp/cash-links", post(sbp_json))
        .route("/sbp/cash-links/{id}/activate", post(sbp_json))
        .route("/sbp/cash-links/{id}/deactivate", post(sbp_no_content))
        .route("/sbp/cash-links/{id}/status", get(sbp_json))
        .route("/sbp/cash-links/{id}/operations", get(sbp_json))
        .route(
            "/sbp/cash-links/{id}/operations/{params}/status",
            get(sbp_json),
        );
    let admin = Router::new()
        .route("/maintenance", post(admin_maintenance))
        .route("/faults", post(admin_fault).delete(admin_clear_fault))
        .route("/clock", post(admin_clock))
        .route("/webhook", post(admin_webhook))
        .route("/webhook/deliveries", get(admin_deliveries))
        .route("/operations", post(admin_operations))
        .route("/payments", get(admin_payments))
        .route("/companies", post(admin_companies))
        .route_layer(middleware::from_fn_with_state(shared.clone(), admin_guard));
    Router::new()
        .nest("/v1", v1)
        .nest("/admin", admin)
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(crate::BODY_LIMIT))
        .layer(middleware::map_response(bank_error_shape))
        .with_state(shared)
}

/// Every refusal in the bank's error shape: axum's own answers (413 for a body over the
/// limit, 405 for a method a path does not take, 400/415/422 for a body or path it cannot
/// extract) come as text; they are rewritten as `{"exceptionType", "message"}`.
async fn bank_error_shape(response: Reply) -> Reply {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text).trim().to_string();
    let (kind, message) = match status {
        StatusCode::PAYLOAD_TOO_LARGE => ("PayloadTooLarge", too_large_message()),
        StatusCode::METHOD_NOT_ALLOWED => (
            "MethodNotAllowed",
            "this endpoint does not take this method".to_string(),
        ),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ("UnsupportedMediaType", text),
        s if s.is_server_error() => ("InternalError", text),
        _ => ("ValidationError", text),
    };
    let fresh = error(status, kind, message);
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, fresh.into_body())
}

fn reply(status: StatusCode, value: &impl Serialize) -> Reply {
    let body = serde_json::to_vec(value).unwrap_or_default();
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body))
        .unwrap_or_default()
}

fn ok(value: &impl Serialize) -> Reply {
    reply(StatusCode::OK, value)
}

fn error(status: StatusCode, kind: &str, message: impl Into<String>) -> Reply {
    reply(
        status,
        &ErrorBody {
            exception_type: kind.to_string(),
            message: message.into(),
        },
    )
}

/// The answer to every request during maintenance.
pub(crate) fn maintenance() -> Reply {
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        "Maintenance",
        "Сервис временно недоступен: идут технические работы",
    )
}

/// The answer to a body over [`crate::BODY_LIMIT`].
pub(crate) fn too_large() -> Reply {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        "PayloadTooLarge",
        too_large_message(),
    )
}

fn too_large_message() -> String {
    format!(
        "the request body is larger than the bank takes ({} bytes)",
        crate::BODY_LIMIT
    )
}

/// An injected failure.
pub(crate) fn failure(status: u16) -> Reply {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match status {
        StatusCode::SERVICE_UNAVAILABLE => maintenance(),
        // A rate limit or a request not received in time: nothing acted on, and the bank
        // says when to come back.
        StatusCode::TOO_MANY_REQUESTS | StatusCode::REQUEST_TIMEOUT => {
            let mut reply = error(
                status,
                "TooManyRequests",
                "injected failure: try again later",
            );
            reply.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("1"),
            );
            reply
        }
        _ => error(status, "InternalError", "injected failure"),
    }
}

async fn not_found() -> Reply {
    error(StatusCode::NOT_FOUND, "NotFound", "нет такого метода API")
}

/// Who is calling, with which right.
struct Caller {
    user: crate::data::User,
    token: String,
    kind: TokenKind,
    sandbox: bool,
    /// Holds `operation-history`: webhooks are sent for its payments.
    history: bool,
}

fn is_sandbox(headers: &HeaderMap, uri: &Uri) -> bool {
    headers
        .get("sandbox")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("on"))
        || uri
            .query()
            .is_some_and(|q| q.split('&').any(|p| p.eq_ignore_ascii_case("sandbox=on")))
}

fn caller(shared: &Shared, headers: &HeaderMap, uri: &Uri, right: &str) -> Result<Caller, Reply> {
    let sandbox = is_sandbox(headers, uri);
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .unwrap_or_default()
        .to_string();
    let unauthorized = || {
        error(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            "нет действующего токена доступа",
        )
    };
    if token.is_empty() {
        return Err(unauthorized());
    }
    if sandbox {
        if token != SANDBOX_TOKEN {
            return Err(unauthorized());
        }
        return Ok(Caller {
            user: data::USER.into(),
            token,
            kind: TokenKind::Cabinet,
            sandbox,
            history: true,
        });
    }
    let now = shared.now_utc();
    let state = shared.lock();
    let Some(record) = state.tokens.get(&token) else {
        return Err(unauthorized());
    };
    if record.revoked || record.expires < now {
        return Err(unauthorized());
    }
    if !record.rights.iter().any(|r| r == right) {
        return Err(error(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            format!("у токена нет права {right}"),
        ));
    }
    Ok(Caller {
        user: record.user.clone(),
        token: token.clone(),
        kind: record.kind.clone(),
        sandbox,
        history: record.rights.iter().any(|r| r == "operation-history"),
    })
}

macro_rules! authorized {
    ($shared:expr, $headers:expr, $uri:expr, $right:expr) => {
        match caller(&$shared, &$headers, &$uri, $right) {
            Ok(caller) => caller,
            Err(reply) => return reply,
        }
    };
}

fn no_access_to_account() -> Reply {
    error(
        StatusCode::BAD_REQUEST,
        "AccessDenied",
        "У пользователя нет доступа к счёту",
    )
}

// --- Data retrieval -------------------------------------------------------------------------

async fn companies(State(shared): Shr, headers: HeaderMap, uri: Uri) -> Reply {
    let who = authorized!(shared, headers, uri, "account-info");
    let state = shared.lock();
    let companies: Vec<_> = state
        .companies
        .iter()
        .filter(|c| c.user == who.user)
        .map(|c| {
            let mut company = c.company.clone();
            company.bank_accounts = state
                .accounts
                .iter()
                .filter(|a| a.company_id == company.company_id)
                .map(|a| {
                    let mut account = a.account.clone();
                    account.balance = state.balance(a, None);
                    account
                })
                .collect();
            company
        })
        .collect();
    ok(&companies)
}

/// The account if the caller's user may see it.
fn visible_account(
    shared: &Shared,
    who: &Caller,
    id: &str,
) -> Result<crate::data::AccountRecord, Reply> {
    let state = shared.lock();
    let record = state.account(id).ok_or_else(no_access_to_account)?;
    if state.owner(&record.company_id) != Some(&*who.user) {
        return Err(no_access_to_account());
    }
    Ok(record.clone())
}

async fn balance(
    State(shared): Shr,
    headers: HeaderMap,
    uri: Uri,
    Path(id): Path<String>,
) -> Reply {
    let who = authorized!(shared, headers, uri, "account-info");
    match visible_account(&shared, &who, &id) {
        Ok(record) => ok(&Number(shared.lock().balance(&record, None))),
        Err(reply) => reply,
    }
}

async fn balance_on(
    State(shared): Shr,
    headers: HeaderMap,
    uri: Uri,
    Path((id, date)): Path<(String, String)>,
) -> Reply {
    let who = authorized!(shared, headers, uri, "account-info");
    let Some(at) = moscow_time::parse(&date) else {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            format!("{date:?} is not a date-time"),
        );
    };
    // The balance at the end of that day: everything executed before the next one begins
    // (an operation executed at 23:59:59.4 is of that day).
    match visible_account(&shared, &who, &id) {
        Ok(record) => ok(&Number(shared.lock().balance(&record, Some(at.date())))),
        Err(reply) => reply,
    }
}

async fn balance_details(
    State(shared): Shr,
    headers: HeaderMap,
    uri: Uri,
    Path(id): Path<String>,
) -> Reply {
    let who = authorized!(shared, headers, uri, "account-info");
    match visible_account(&shared, &who, &id) {
        Ok(record) => {
            let balance = shared.lock().balance(&record, None);
            ok(
                &json!({"balance": Number(balance), "overdraft": Number(rust_decimal::Decimal::ZERO)}),
            )
        }
        Err(reply) => reply,
    }
}

/// A JSON number written exactly.
#[derive(Serialize)]
struct Number(#[serde(with = "rust_decimal::serde::arbitrary_precision")] rust_decimal::Decimal);

async fn history(
    State(shared): Shr,
    headers: HeaderMap,
    uri: Uri,
    Path(id): Path<String>,
    body: Bytes,
) -> Reply {
    let who = authorized!(shared, headers, uri, "operation-history");
    let filter: HistoryFilter = if body.iter().all(u8::is_ascii_whitespace) {
        HistoryFilter::default()
    } else {
        match parse_body(&headers, &body) {
            Ok(filter) => filter,
            Err(reply) => return reply,
        }
    };
    let records = filter.records.unwrap_or(10);
    if records > 50 {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            "records: от 0 до 50",
        );
    }
    let record = match visible_account(&shared, &who, &id) {
        Ok(record) => record,
        Err(reply) => return reply,
    };
    let mut state = shared.lock();
    let number = record.account.number.clone().unwrap_or_default();
    let positions = state.history_of(&number).to_vec();
    let state = &*state;
    let day = |p: &usize| {
        let op = &state.operations[*p];
        op.executed.or(op.created).map(|at| at.date())
    };
    // Newest first: the days after `till` lead, those before `from` (and undated ones) trail.
    let in_period: &[usize] = if who.sandbox {
        &positions
    } else {
        let start = filter.till.map_or(0, |till| {
            positions.partition_point(|p| day(p).is_some_and(|d| d > till))
        });
        let end = filter.from.map_or(positions.len(), |from| {
            positions.partition_point(|p| day(p).is_some_and(|d| d >= from))
        });
        &positions[start..end.max(start)]
    };
    let skip = filter.skip.unwrap_or(0) as usize;
    let narrowed = !who.sandbox
        && (filter.category.is_some()
            || filter.sbp_oper_id.is_some()
            || filter.sbp_oper_id_for_refund.is_some()
            || filter.rcv_qrc_id.is_some()
            || filter.sbp_retail_point_id.is_some());
    let page: Vec<&Operation> = if narrowed {
        in_period
            .iter()
            .map(|&p| &state.operations[p])
            .filter(|op| {
                matches_filter(op, &filter)
                    && filter
                        .sbp_retail_point_id
                        .as_ref()
                        .is_none_or(|point| state.operation_points.get(&op.id) == Some(point))
            })
            .skip(skip)
            .take(records as usize)
            .collect()
    } else {
        in_period
            .iter()
            .skip(skip)
            .take(records as usize)
            .map(|&p| &state.operations[p])
            .collect()
    };
    ok(&page)
}

fn matches_filter(op: &Operation, filter: &HistoryFilter) -> bool {
    // A cancelled operation has no execution time: it belongs to the day it was made.
    let day = op.executed.or(op.created).map(|at| at.date());
    let eq = |wanted: &Option<String>, have: &Option<String>| {
        wanted.is_none() || wanted.as_deref() == have.as_deref()
    };
    filter
        .category
        .as_ref()
        .is_none_or(|c| op.category.as_ref() == Some(c))
        && filter
            .from
            .is_none_or(|from| day.is_some_and(|d| d >= from))
        && filter
            .till
            .is_none_or(|till| day.is_some_and(|d| d <= till))
        && eq(&filter.sbp_oper_id, &op.sbp_oper_id)
        && eq(&filter.sbp_oper_id_for_refund, &op.sbp_oper_id_for_refund)
        && eq(&filter.rcv_qrc_id, &op.rcv_qrc_id)
        && filter
            .operations
            .as_deref()
            .is_none_or(|ids| ids.split(',').any(|id| id.trim() == op.id))
}

/// A JSON or form-encoded body.
fn parse_body<T: serde::de::DeserializeOwned>(
    headers: &HeaderMap,
    body: &[u8],
) -> Result<T, Reply> {
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    let parsed = if form {
        serde_urlencoded::from_bytes(body).map_err(|e| e.to_string())
    } else {
        serde_json::from_slice(body).map_err(|e| e.to_string())
    };
    parsed.map_err(|e| {
        let said = format!("тело запроса не разобрано: {e}");
        error(StatusCode::BAD_REQUEST, "ValidationError", said)
    })
}

// --- Payment upload -------------------------------------------------------------------------

fn today(shared: &Shared) -> NaiveDate {
    shared.now_moscow().date()
}

/// A finding as the bank's answer says it, in the bank's Russian: `code: place: message`.
fn said(finding: &Diagnostic) -> String {
    let place = finding.place();
    let message = finding.message(Lang::Ru);
    if place.is_empty() {
        format!("{}: {message}", finding.code)
    } else {
        format!("{}: {place}: {message}", finding.code)
    }
}

/// The errors of an uploaded payment (as the bank refuses it), and its warnings.
fn verdict(item: &Item) -> (Vec<String>, Vec<String>) {
    let (errors, warnings): (Vec<_>, Vec<_>) = item.findings().iter().partition(|f| f.is_error());
    (
        errors.into_iter().map(said).collect(),
        warnings.into_iter().map(said).collect(),
    )
}

/// Stores one payment the rules let through; its id, or the reason it was refused.
fn create_payment(
    shared: &Shared,
    who: &Caller,
    payment: Payment,
    in_signing: bool,
) -> Result<String, (StatusCode, String, String)> {
    let mut state = shared.lock();
    let number = payment.payer.account.clone().unwrap_or_default();
    let Some(account) = state.account(&number).cloned() else {
        return Err((
            StatusCode::BAD_REQUEST,
            "AccessDenied".into(),
            format!("У пользователя нет доступа к счёту {number}"),
        ));
    };
    if state.owner(&account.company_id) != Some(&*who.user) {
        return Err((
            StatusCode::BAD_REQUEST,
            "AccessDenied".into(),
            format!("У пользователя нет доступа к счёту {number}"),
        ));
    }
    if state.payments.len() >= MAX_PAYMENTS {
        return Err((
            StatusCode::SERVICE_UNAVAILABLE,
            "Maintenance".into(),
            format!("the sandbox bank holds {MAX_PAYMENTS} payments: restart it"),
        ));
    }
    let id = state::random_uuid().map_err(|e| {
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError".into(),
            format!("no random id: {e}"),
        )
    })?;
    state.payments.push(PaymentRecord {
        id: id.clone(),
        company_id: account.company_id.clone(),
        account_number: number,
        status: OperationStatus::Draft,
        awaiting_signature: in_signing,
        signing: false,
        payment,
    });
    Ok(id)
}

/// The drop of an upload: read by the same layer `clientbank check` reads files with, dated
/// by the bank's clock.
fn read_drop(shared: &Shared, bytes: impl Into<Vec<u8>>) -> Result<Batch, Reply> {
    Batch::read(bytes, &Context::as_of(today(shared))).map_err(|refusal| {
        error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            said(&refusal.diagnostic),
        )
    })
}

async fn upload(State(shared): Shr, headers: HeaderMap, uri: Uri, body: Bytes) -> Reply {
    let who = authorized!(shared, headers, uri, "money-transfer");
    let batch = match read_drop(&shared, body.to_vec()) {
        Ok(batch) => batch,
        Err(reply) => return reply,
    };
    if batch.form() != clientbank_payment::batch::Form::Json {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            "тело — один запрос загрузки: объект JSON {\"payment\": {…}}",
        );
    }
    let mut items = batch.items();
    let (Some(item), None) = (items.next(), items.next()) else {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            "один запрос загрузки на вызов: объект JSON {\"payment\": {…}}",
        );
    };
    let (errors, warnings) = verdict(&item);
    if !errors.is_empty() {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            errors.join("; "),
        );
    }
    // Absent: a draft; `InSigning`: awaiting signature; anything else is refused, not guessed.
    let in_signing = match item
        .request()
        .and_then(|r| r.parameters.as_ref())
        .and_then(|p| p.target_status.as_deref())
    {
        None => false,
        Some(clientbank_payment::json::IN_SIGNING) => true,
        Some(other) => {
            return error(
                StatusCode::BAD_REQUEST,
                "ValidationError",
                format!(
                    "parameters.targetStatus: {other:?} — не статус, в котором создаётся \
                     платёж; ожидается \"InSigning\" или, для черновика, без targetStatus"
                ),
            );
        }
    };
    let Some(payment) = item.into_payment() else {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            "тело — не запрос загрузки",
        );
    };
    match create_payment(&shared, &who, payment, in_signing) {
        Ok(id) => ok(&json!({
            "id": id, "totalLoaded": 1, "errors": [], "warnings": warnings,
        })),
        Err((status, kind, message)) => error(status, &kind, message),
    }
}

async fn upload_1c(State(shared): Shr, headers: HeaderMap, uri: Uri, body: Bytes) -> Reply {
    let who = authorized!(shared, headers, uri, "money-transfer");
    let request: Value = match parse_body(&headers, &body) {
        Ok(value) => value,
        Err(reply) => return reply,
    };
    let Some(document) = request.get("document").and_then(Value::as_str) else {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            "document: the whole exchange file as a string is required",
        );
    };
    if clientbank_payment::batch::is_json(document.as_bytes()) {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            "document: an exchange file (1CClientBankExchange) is expected, not JSON",
        );
    }
    let batch = match read_drop(&shared, document.as_bytes()) {
        Ok(batch) => batch,
        Err(reply) => return reply,
    };
    let mut ids = Vec::new();
    let mut errors = Vec::new();
    for item in batch.items() {
        let Some(payment) = item.payment() else {
            // Documents other than payment orders are not uploaded.
            continue;
        };
        let number = payment.number.clone().unwrap_or_default();
        let place = format!(
            "документ {} (№ {number}, строка {})",
            item.position(),
            item.line().unwrap_or(0)
        );
        let (refused, _) = verdict(&item);
        if !refused.is_empty() {
            errors.push(format!("{place}: {}", refused.join("; ")));
            continue;
        }
        let Some(payment) = item.into_payment() else {
            continue;
        };
        match create_payment(&shared, &who, payment, false) {
            Ok(id) => ids.push(id),
            Err((_, _, message)) => errors.push(format!("{place}: {message}")),
        }
    }
    ok(&json!({"ids": ids, "totalLoaded": ids.len(), "errors": errors}))
}

async fn sign_payments(State(shared): Shr, headers: HeaderMap, uri: Uri, body: Bytes) -> Reply {
    let who = authorized!(shared, headers, uri, "money-transfer");
    let request: Value = match parse_body(&headers, &body) {
        Ok(value) => value,
        Err(reply) => return reply,
    };
    let member = |name: &str| {
        request
            .as_object()
            .and_then(|m| m.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))
            .map(|(_, v)| v.clone())
    };
    let ids: Vec<String> = member("operations")
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let signature = member("signbase64")
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    if ids.is_empty() || signature.is_empty() {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            "Operations and SignBase64 are required",
        );
    }
    let mut seen = HashSet::new();
    if let Some(twice) = ids.iter().find(|id| !seen.insert(id.as_str())) {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            format!("платёж {twice} указан в Operations дважды"),
        );
    }
    // Taken out of the signable state now, under the lock; put back if anything below refuses.
    let claim = match Claim::take(&shared, &who, &ids) {
        Ok(claim) => claim,
        Err(reply) => return reply,
    };
    let content = clientbank_api::SignRequest::signed_content(&ids);
    let signer = match check_signature(&shared, content.into_bytes(), &signature).await {
        Ok(signer) => signer,
        Err(reply) => return reply,
    };
    match execute(&shared, &who, claim, &signer) {
        Ok(executed) => ok(&json!({"operations": executed})),
        Err(reply) => reply,
    }
}

/// Payments taken out of the signable state while their signature is checked. Dropped
/// without [`Claim::done`] (a refusal, or the request abandoned), they are signable again.
struct Claim {
    shared: Arc<Shared>,
    ids: HashSet<String>,
    done: bool,
}

impl Claim {
    /// Every payment must exist, be the caller's user's, await signature and not be claimed by
    /// another signature; then all are claimed at once.
    fn take(shared: &Arc<Shared>, who: &Caller, ids: &[String]) -> Result<Claim, Reply> {
        let mut state = shared.lock();
        for id in ids {
            let Some(payment) = state.payments.iter().find(|p| &p.id == id) else {
                return Err(error(
                    StatusCode::BAD_REQUEST,
                    "NotFound",
                    format!("платёж {id} не найден"),
                ));
            };
            if state.owner(&payment.company_id) != Some(&*who.user) {
                return Err(error(
                    StatusCode::UNAUTHORIZED,
                    "AccessDenied",
                    "Доступ запрещён",
                ));
            }
            if payment.status != OperationStatus::Draft {
                return Err(error(
                    StatusCode::BAD_REQUEST,
                    "InvalidState",
                    format!("платёж {id} уже {}", payment.status),
                ));
            }
            if payment.signing {
                return Err(error(
                    StatusCode::CONFLICT,
                    "InvalidState",
                    format!("платёж {id} уже подписывается другим запросом"),
                ));
            }
            if !payment.awaiting_signature {
                return Err(error(
                    StatusCode::BAD_REQUEST,
                    "InvalidState",
                    format!(
                        "платёж {id} — черновик: подписать можно только платёж, ожидающий \
                         подписи (targetStatus InSigning); черновик подписывают в интернет-банке"
                    ),
                ));
            }
        }
        let ids: HashSet<String> = ids.iter().cloned().collect();
        for payment in state.payments.iter_mut().filter(|p| ids.contains(&p.id)) {
            payment.signing = true;
        }
        Ok(Claim {
            shared: shared.clone(),
            ids,
            done: false,
        })
    }
}

impl std::ops::Drop for Claim {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut state = self.shared.lock();
        for payment in state
            .payments
            .iter_mut()
            .filter(|p| self.ids.contains(&p.id))
        {
            payment.signing = false;
        }
    }
}

/// Checks a Base64 detached CMS signature over `content` as of the sandbox's now: the signer,
/// or the bank's refusal (400 `SignCheckError`).
async fn check_signature(
    shared: &Shared,
    content: Vec<u8>,
    signature: &str,
) -> Result<Signer, Reply> {
    let refuse = |why: String| {
        error(
            StatusCode::BAD_REQUEST,
            "SignCheckError",
            format!("Подпись не прошла проверку: {why}"),
        )
    };
    let Ok(der) = base64::engine::general_purpose::STANDARD.decode(signature.trim()) else {
        return Err(refuse("SignBase64 — не Base64".into()));
    };
    let now = shared.now_utc();
    let conf = shared.config.openssl_conf.clone();
    let checked =
        tokio::task::spawn_blocking(move || sign::verify(&content, &der, now, conf.as_deref()))
            .await
            .unwrap_or_else(|e| Err(SignProblem::Invalid(e.to_string())));
    match checked {
        Ok(signer) => Ok(signer),
        Err(SignProblem::Invalid(why)) => Err(refuse(why)),
        // The bank's own fault, not the signature's: say which program is missing.
        Err(SignProblem::Unavailable(why)) => Err(error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "SignCheckUnavailable",
            why,
        )),
        Err(SignProblem::Expired { subject, not_after }) => Err(error(
            StatusCode::BAD_REQUEST,
            "SignCheckError",
            format!("Срок действия подписи {subject} закончился {not_after}"),
        )),
        Err(SignProblem::NotYetValid {
            subject,
            not_before,
        }) => Err(error(
            StatusCode::BAD_REQUEST,
            "SignCheckError",
            format!("Подпись {subject} действительна только с {not_before}"),
        )),
    }
}

/// Refuses a signer that is not of the company with this INN.
fn signer_of(signer: &Signer, inn: &str, what: &str) -> Result<(), Reply> {
    if signer.is_of(inn) {
        return Ok(());
    }
    let named = if signer.inns.is_empty() {
        "не указывает ИНН организации (INNLE 1.2.643.100.4 или INN 1.2.643.3.131.1.1)".to_string()
    } else {
        format!("выдан ИНН {}", signer.inns.join(", "))
    };
    Err(error(
        StatusCode::BAD_REQUEST,
        "SignCheckError",
        format!(
            "Подпись не прошла проверку: сертификат {} {named}, а {what} принадлежит организации \
             с ИНН {inn}",
            signer.subject
        ),
    ))
}

/// Sends the claimed payments to the bank and executes them, if the signer is of the company
/// of each: history, balance, webhook. One step under the lock.
fn execute(
    shared: &Arc<Shared>,
    who: &Caller,
    mut claim: Claim,
    signer: &Signer,
) -> Result<Vec<Value>, Reply> {
    let now = shared.now_moscow();
    let mut notifications = Vec::new();
    let mut answer = Vec::new();
    let webhook = {
        let mut state = shared.lock();
        let mut indexes = Vec::new();
        for (index, payment) in state.payments.iter().enumerate() {
            if !claim.ids.contains(&payment.id) {
                continue;
            }
            let inn = state
                .companies
                .iter()
                .find(|c| c.company.company_id == payment.company_id)
                .and_then(|c| c.company.inn.clone())
                .unwrap_or_default();
            signer_of(signer, &inn, &format!("платёж {}", payment.id))?;
            indexes.push(index);
        }
        for index in indexes {
            let record = &mut state.payments[index];
            record.status = OperationStatus::SendToBank;
            let record = record.clone();
            let operation = operation_of(&record, now);
            let payment = &mut state.payments[index];
            payment.status = OperationStatus::Executed;
            payment.awaiting_signature = false;
            payment.signing = false;
            let company = state
                .companies
                .iter()
                .find(|c| c.company.company_id == record.company_id)
                .map(|c| c.company.clone())
                .unwrap_or_default();
            notifications.push((company, operation.clone()));
            state.operations.push(operation);
            answer.push(json!({"id": record.id, "status": "Executed"}));
        }
        claim.done = true;
        state.webhook.clone()
    };
    // The notification needs the right operation-history (API.md, Events).
    if let Some(url) = webhook.filter(|_| who.history) {
        let key = match &who.kind {
            TokenKind::Cabinet => Token::new(who.token.clone()),
            TokenKind::Authorized { client_secret } => Token::new(client_secret.clone()),
        };
        for (company, operation) in notifications {
            let hash = match who.kind {
                TokenKind::Cabinet => webhook::hash(WebhookKey::CabinetToken(&key), &operation.id),
                TokenKind::Authorized { .. } => {
                    webhook::hash(WebhookKey::ClientSecret(&key), &operation.id)
                }
            };
            crate::state::deliver(
                shared.clone(),
                url.clone(),
                Notification {
                    company_inn: company.inn.unwrap_or_default(),
                    company_kpp: company.kpp.unwrap_or_default(),
                    operation,
                    sha1_hash: hash,
                },
            );
        }
    }
    Ok(answer)
}

fn operation_of(record: &PaymentRecord, now: NaiveDateTime) -> Operation {
    let p = &record.payment;
    let budget = p.budget.clone().unwrap_or_default();
    Operation {
        id: record.id.clone(),
        company_id: Some(record.company_id.clone()),
        status: Some(OperationStatus::Executed),
        category: Some(OperationCategory::Credit),
        contragent_name: p.recipient.name.clone(),
        contragent_inn: p.recipient.inn.clone(),
        contragent_kpp: p.recipient.kpp.clone(),
        contragent_bank_account_number: p.recipient.account.clone(),
        contragent_bank_name: p.recipient.bank.name.clone(),
        contragent_bank_bic: p.recipient.bank.bik.clone(),
        currency: Some(clientbank_api::types::Currency::Rur),
        amount: Some(two_decimals(p.sum.unwrap_or_default())),
        amount_with_commission: p.sum.map(two_decimals),
        bank_account_number: Some(record.account_number.clone()),
        payment_purpose: p.purpose.clone(),
        executed: Some(now),
        created: Some(now),
        doc_number: p.number.clone(),
        kbk: Some(budget.kbk.unwrap_or_default()),
        oktmo: Some(budget.oktmo.unwrap_or_default()),
        payment_basis: Some(budget.basis.unwrap_or_default()),
        tax_code: Some(budget.period.unwrap_or_default()),
        tax_doc_num: Some(budget.number.unwrap_or_default()),
        tax_doc_date: Some(budget.date.unwrap_or_default()),
        payer_status: Some(budget.payer_status.unwrap_or_default()),
        uin: Some(p.uin.clone().unwrap_or_default()),
        ..Operation::default()
    }
}

fn two_decimals(mut amount: rust_decimal::Decimal) -> rust_decimal::Decimal {
    if amount.scale() < 2 {
        amount.rescale(2);
    }
    amount
}

// --- Authorization --------------------------------------------------------------------------

/// The authorization request, with or without the `model.` prefix.
fn authorize_params(pairs: &[(String, String)]) -> [Option<String>; 4] {
    ["clientId", "redirectUri", "scope", "state"].map(|name| {
        pairs
            .iter()
            .find(|(k, _)| k.strip_prefix("model.").unwrap_or(k) == name)
            .map(|(_, v)| v.clone())
    })
}

async fn authorize_get(State(shared): Shr, uri: Uri) -> Reply {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(uri.query().unwrap_or_default()).unwrap_or_default();
    authorize(&shared, &pairs)
}

async fn authorize_post(State(shared): Shr, headers: HeaderMap, body: Bytes) -> Reply {
    let pairs: Vec<(String, String)> = match parse_body::<Value>(&headers, &body) {
        Ok(Value::Object(map)) => map
            .into_iter()
            .map(|(k, v)| (k, v.as_str().map_or_else(|| v.to_string(), str::to_string)))
            .collect(),
        _ => serde_urlencoded::from_bytes(&body).unwrap_or_default(),
    };
    authorize(&shared, &pairs)
}

/// Exact redirect matching, trailing application parameters ignored.
fn redirect_matches(registered: &str, given: &str) -> bool {
    given
        .strip_prefix(registered)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['?', '&']))
}

fn authorize(shared: &Shared, pairs: &[(String, String)]) -> Reply {
    let [client_id, redirect, scope, state] = authorize_params(pairs);
    if client_id.as_deref() != Some(SANDBOX_CLIENT_ID) {
        return error(
            StatusCode::BAD_REQUEST,
            "InvalidClient",
            "неизвестное приложение",
        );
    }
    let redirect = redirect.unwrap_or_default();
    if !redirect_matches(&shared.config.redirect_uri, &redirect) {
        return error(
            StatusCode::BAD_REQUEST,
            "InvalidRedirect",
            "адрес возврата не совпадает с зарегистрированным",
        );
    }
    let scopes: Vec<String> = scope
        .unwrap_or_default()
        .split(' ')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if let Some(unknown) = scopes.iter().find(|s| !crate::RIGHTS.contains(&s.as_str())) {
        return error(
            StatusCode::BAD_REQUEST,
            "InvalidScope",
            format!("неизвестное право {unknown}"),
        );
    }
    let now = shared.now_utc();
    let code = {
        let mut state = shared.lock();
        // Expired and used codes are forgotten; the rest are bounded.
        state
            .codes
            .retain(|_, code| !code.used && !code_expired(code, now));
        if state.codes.len() >= MAX_CODES {
            return error(
                StatusCode::TOO_MANY_REQUESTS,
                "TooManyRequests",
                "слишком много незавершённых авторизаций: повторите через минуту",
            );
        }
        let code = match state::random_secret() {
            Ok(code) => code,
            Err(e) => {
                return error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "InternalError",
                    format!("no random code: {e}"),
                );
            }
        };
        state.codes.insert(
            code.clone(),
            CodeRecord {
                client_id: SANDBOX_CLIENT_ID.into(),
                redirect_uri: redirect.clone(),
                scopes,
                created: now,
                used: false,
            },
        );
        code
    };
    let joiner = if redirect.contains('?') { '&' } else { '?' };
    let mut location = format!("{redirect}{joiner}code={code}");
    if let Some(state) = state {
        let encoded = serde_urlencoded::to_string([("state", state)]).unwrap_or_default();
        location.push('&');
        location.push_str(&encoded);
    }
    Response::builder()
        .status(StatusCode::FOUND)
        .header(header::LOCATION, location)
        .body(Body::empty())
        .unwrap_or_default()
}

/// Temporary codes live under a minute.
const CODE_LIFETIME: i64 = 59;

fn code_expired(code: &CodeRecord, now: NaiveDateTime) -> bool {
    now.signed_duration_since(code.created).num_seconds() > CODE_LIFETIME
}
/// Access tokens live three years.
const TOKEN_DAYS: i64 = 3 * 365 + 1;

async fn token(State(shared): Shr, headers: HeaderMap, body: Bytes) -> Reply {
    let request: clientbank_api::TokenRequest = match parse_body(&headers, &body) {
        Ok(request) => request,
        Err(reply) => return reply,
    };
    if request.client_id != SANDBOX_CLIENT_ID || request.client_secret != SANDBOX_CLIENT_SECRET {
        return error(
            StatusCode::BAD_REQUEST,
            "InvalidClient",
            "неверное приложение или секрет",
        );
    }
    let now = shared.now_utc();
    let mut state = shared.lock();
    let Some(code) = state.codes.get_mut(&request.code) else {
        return error(
            StatusCode::BAD_REQUEST,
            "InvalidGrant",
            "временный токен не найден",
        );
    };
    if code.used {
        return error(
            StatusCode::BAD_REQUEST,
            "InvalidGrant",
            "временный токен уже использован",
        );
    }
    code.used = true;
    if code_expired(code, now) {
        return error(
            StatusCode::BAD_REQUEST,
            "InvalidGrant",
            "временный токен истёк",
        );
    }
    if code.redirect_uri != request.redirect_uri || code.client_id != request.client_id {
        return error(
            StatusCode::BAD_REQUEST,
            "InvalidGrant",
            "адрес возврата не совпадает с запросом авторизации",
        );
    }
    let rights = code.scopes.clone();
    let issued = |t: &TokenRecord| matches!(t.kind, TokenKind::Authorized { .. });
    state
        .tokens
        .retain(|_, t| !issued(t) || (!t.revoked && t.expires >= now));
    if state.tokens.values().filter(|t| issued(t)).count() >= MAX_TOKENS {
        return error(
            StatusCode::TOO_MANY_REQUESTS,
            "TooManyRequests",
            "the sandbox bank holds too many tokens: revoke some or restart it",
        );
    }
    let access = match state::random_secret() {
        Ok(access) => access,
        Err(e) => {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "InternalError",
                format!("no random token: {e}"),
            );
        }
    };
    let expires = now
        .checked_add_signed(chrono::Duration::days(TOKEN_DAYS))
        .unwrap_or(NaiveDateTime::MAX);
    state.tokens.insert(
        access.clone(),
        TokenRecord {
            user: data::USER.into(),
            rights,
            expires,
            revoked: false,
            kind: TokenKind::Authorized {
                client_secret: request.client_secret,
            },
        },
    );
    ok(&json!({
        "accessToken": access,
        "expiresIn": TOKEN_DAYS * 86_400,
    }))
}

async fn revoke(State(shared): Shr, headers: HeaderMap, uri: Uri) -> Reply {
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default()
        .trim()
        .to_string();
    if is_sandbox(&headers, &uri) && token == SANDBOX_TOKEN {
        return ok(&json!({}));
    }
    let mut state = shared.lock();
    match state.tokens.get_mut(&token) {
        Some(record) if !record.revoked => {
            record.revoked = true;
            ok(&json!({}))
        }
        _ => error(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            "нет действующего токена доступа",
        ),
    }
}

// --- Nominal accounts and SBP: shapes the bank does not publish; believable stand-ins -------

fn assistant(shared: &Shared, headers: &HeaderMap, uri: &Uri) -> Result<Caller, Reply> {
    caller(shared, headers, uri, "assistant-service")
}

async fn assistant_json(State(shared): Shr, headers: HeaderMap, uri: Uri) -> Reply {
    let _ = authorized!(shared, headers, uri, "assistant-service");
    ok(&json!({"result": "accepted", "imported": 1}))
}

/// The report or form file served at `path`: what its `…/send` must carry a signature of.
fn assistant_document(path: &str) -> String {
    format!("report for {path}\n")
}

async fn assistant_file(State(shared): Shr, headers: HeaderMap, uri: Uri) -> Reply {
    if let Err(reply) = assistant(&shared, &headers, &uri) {
        return reply;
    }
    Response::builder()
        .header(header::CONTENT_TYPE, "application/octet-stream")
        .body(Body::from(assistant_document(uri.path())))
        .unwrap_or_default()
}

/// The send operations check the signature as the sign endpoint does (API.md: "The send
/// operations check the signature"): a Base64 detached CMS signature of the file served at the
/// path without `/send`, by a valid certificate of the company that owns the account.
async fn assistant_sent(
    State(shared): Shr,
    headers: HeaderMap,
    uri: Uri,
    Path(params): Path<HashMap<String, String>>,
    body: Bytes,
) -> Reply {
    let who = match assistant(&shared, &headers, &uri) {
        Ok(who) => who,
        Err(reply) => return reply,
    };
    let account = params.get("account").cloned().unwrap_or_default();
    let record = match visible_account(&shared, &who, &account) {
        Ok(record) => record,
        Err(reply) => return reply,
    };
    let request: Value = match parse_body(&headers, &body) {
        Ok(value) => value,
        Err(reply) => return reply,
    };
    let signature = match &request {
        Value::String(text) => Some(text.clone()),
        Value::Object(map) => map
            .iter()
            .find(|(k, _)| {
                k.eq_ignore_ascii_case("signbase64") || k.eq_ignore_ascii_case("signature")
            })
            .and_then(|(_, v)| v.as_str().map(str::to_string)),
        _ => None,
    };
    let Some(signature) = signature.filter(|s| !s.trim().is_empty()) else {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            "the body is the Base64 detached signature of the file, as a JSON string",
        );
    };
    let path = uri.path().strip_suffix("/send").unwrap_or(uri.path());
    let signer =
        match check_signature(&shared, assistant_document(path).into_bytes(), &signature).await {
            Ok(signer) => signer,
            Err(reply) => return reply,
        };
    let inn = {
        let state = shared.lock();
        state
            .companies
            .iter()
            .find(|c| c.company.company_id == record.company_id)
            .and_then(|c| c.company.inn.clone())
            .unwrap_or_default()
    };
    if let Err(reply) = signer_of(&signer, &inn, &format!("счёт {account}")) {
        return reply;
    }
    Response::builder()
        .status(StatusCode::NO_CONTENT)
        .body(Body::empty())
        .unwrap_or_default()
}

async fn form_parts(State(shared): Shr, headers: HeaderMap, uri: Uri) -> Reply {
    let _ = authorized!(shared, headers, uri, "assistant-service");
    ok(&json!([{"id": data::uuid(8, 1), "name": "Анкета бенефициара, часть 1"}]))
}

async fn unsigned_reports(State(shared): Shr, headers: HeaderMap, uri: Uri) -> Reply {
    let _ = authorized!(shared, headers, uri, "assistant-service");
    ok(&json!([{"id": data::uuid(9, 1), "period": "2026-10"}]))
}

async fn sbp_json(State(shared): Shr, headers: HeaderMap, uri: Uri) -> Reply {
    let _ = authorized!(shared, headers, uri, "assistant-service");
    let path = uri.path();
    let value = if path.ends_with("/mcc") {
        json!([{"code": "5411", "name": "Продуктовые магазины"}, {"code": "5812", "name": "Рестораны"}])
    } else if path.ends_with("/status") {
        json!({"status": "Registered"})
    } else if path.ends_with("/operations") {
        json!([])
    } else {
        json!({"id": data::uuid(11, 1), "status": "Created", "path": path})
    };
    ok(&value)
}

fn retail_point_json(point: &RetailPoint) -> Value {
    json!({
        "id": point.id, "companyId": point.company_id, "name": point.name, "status": point.status,
    })
}

/// The company the caller's user may see, by id.
fn visible_company(shared: &Shared, who: &Caller, id: &str) -> Result<(), Reply> {
    if shared.lock().owner(id) == Some(&*who.user) {
        Ok(())
    } else {
        Err(error(
            StatusCode::BAD_REQUEST,
            "AccessDenied",
            format!("У пользователя нет доступа к организации {id}"),
        ))
    }
}

/// `GET /sbp/retail-points?companyId=…`: `companyId` is required (API.md).
async fn retail_points(State(shared): Shr, headers: HeaderMap, uri: Uri) -> Reply {
    let who = authorized!(shared, headers, uri, "assistant-service");
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(uri.query().unwrap_or_default()).unwrap_or_default();
    let Some(company) = pairs
        .iter()
        .find(|(k, _)| k == "companyId")
        .map(|(_, v)| v.clone())
        .filter(|v| !v.is_empty())
    else {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            "companyId: the company's id is required",
        );
    };
    if let Err(reply) = visible_company(&shared, &who, &company) {
        return reply;
    }
    let points: Vec<Value> = shared
        .lock()
        .retail_points
        .iter()
        .filter(|p| p.company_id == company)
        .map(retail_point_json)
        .collect();
    ok(&points)
}

/// `POST /sbp/retail-points`: registers one and answers the registration result (the new
/// point), not the list. The body names `companyId` and `name`.
async fn register_retail_point(
    State(shared): Shr,
    headers: HeaderMap,
    uri: Uri,
    body: Bytes,
) -> Reply {
    let who = authorized!(shared, headers, uri, "assistant-service");
    let request: Value = match parse_body(&headers, &body) {
        Ok(value) => value,
        Err(reply) => return reply,
    };
    let text = |name: &str| {
        request
            .get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let (Some(company), Some(name)) = (text("companyId"), text("name")) else {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            "companyId and name of the retail point are required",
        );
    };
    if let Err(reply) = visible_company(&shared, &who, &company) {
        return reply;
    }
    let id = match state::random_uuid() {
        Ok(id) => id,
        Err(e) => {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "InternalError",
                format!("no random id: {e}"),
            );
        }
    };
    let point = RetailPoint {
        id,
        company_id: company,
        name,
        status: "OnRegistration",
    };
    let mut state = shared.lock();
    if state.retail_points.len() >= MAX_RETAIL_POINTS {
        return error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            format!("the sandbox bank holds {MAX_RETAIL_POINTS} retail points at most"),
        );
    }
    let answer = retail_point_json(&point);
    state.retail_points.push(point);
    ok(&answer)
}

async fn sbp_no_content(State(shared): Shr, headers: HeaderMap, uri: Uri) -> Reply {
    let _ = authorized!(shared, headers, uri, "assistant-service");
    Response::builder()
        .status(StatusCode::NO_CONTENT)
        .body(Body::empty())
        .unwrap_or_default()
}

/// A 1×1 PNG: the sandbox's QR code image.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

async fn qr_image(State(shared): Shr, headers: HeaderMap, uri: Uri) -> Reply {
    let _ = authorized!(shared, headers, uri, "assistant-service");
    Response::builder()
        .header(header::CONTENT_TYPE, "image/png")
        .body(Body::from(PNG))
        .unwrap_or_default()
}

// --- Admin ----------------------------------------------------------------------------------

/// Guards `/admin`: a loopback `Host` naming the bank's port (no DNS rebinding), the per-run
/// token (no other process or web page), and JSON on writes (no cross-site form posts).
async fn admin_guard(State(shared): Shr, request: Request, next: Next) -> Reply {
    let port = shared.addr.port();
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()))
        .unwrap_or_default();
    let loopback = ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .any(|name| host.eq_ignore_ascii_case(&format!("{name}:{port}")));
    if !loopback {
        return error(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            format!(
                "the admin interface answers only to Host 127.0.0.1:{port}, localhost:{port} or \
                 [::1]:{port}, not {host:?}"
            ),
        );
    }
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .unwrap_or_default();
    if !state::same_secret(token, &shared.admin_token) {
        return error(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            "the admin interface wants the token `clientbank sandbox` printed at start, as \
             Authorization: Bearer TOKEN",
        );
    }
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
    if request.method() == Method::POST && !json {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UnsupportedMediaType",
            "admin writes take Content-Type: application/json",
        );
    }
    next.run(request).await
}

/// An admin request's JSON body, every member known.
fn admin_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Reply> {
    serde_json::from_slice(body).map_err(|e| {
        error(
            StatusCode::BAD_REQUEST,
            "ValidationError",
            format!("the body: {e}"),
        )
    })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct MaintenanceBody {
    on: bool,
}

async fn admin_maintenance(State(shared): Shr, body: Bytes) -> Reply {
    let on = match admin_body::<MaintenanceBody>(&body) {
        Ok(body) => body.on,
        Err(reply) => return reply,
    };
    shared.lock().maintenance = on;
    ok(&json!({"maintenance": on}))
}

#[derive(serde::Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct FaultBody {
    delay_ms: Option<u64>,
    drop: Option<String>,
    status: Option<u16>,
    times: Option<u32>,
}

async fn admin_fault(State(shared): Shr, body: Bytes) -> Reply {
    let body = match admin_body::<FaultBody>(&body) {
        Ok(body) => body,
        Err(reply) => return reply,
    };
    let invalid = |message: String| error(StatusCode::BAD_REQUEST, "ValidationError", message);
    let drop = match body.drop.as_deref() {
        Some("before") => Some(Drop::BeforeActing),
        Some("after") => Some(Drop::AfterActing),
        None => None,
        Some(other) => return invalid(format!("drop is before or after, not {other}")),
    };
    let delay = body.delay_ms.map(Duration::from_millis);
    if delay.is_some_and(|d| d > MAX_FAULT_DELAY) {
        return invalid(format!(
            "delay_ms is at most {}",
            MAX_FAULT_DELAY.as_millis()
        ));
    }
    if body.status.is_some_and(|s| !(400..=599).contains(&s)) {
        return invalid("status is an error status, 400 to 599".into());
    }
    if body.times == Some(0) {
        return invalid("times is at least 1 (leave it out for every request)".into());
    }
    let fault = Fault {
        delay,
        drop,
        status: body.status,
        times: body.times,
    };
    shared.lock().fault = Some(fault);
    ok(&body)
}

async fn admin_clear_fault(State(shared): Shr) -> Reply {
    shared.lock().fault = None;
    ok(&json!({}))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ClockBody {
    advance_seconds: i64,
}

async fn admin_clock(State(shared): Shr, body: Bytes) -> Reply {
    let seconds = match admin_body::<ClockBody>(&body) {
        Ok(body) => body.advance_seconds,
        Err(reply) => return reply,
    };
    let moved = chrono::Duration::try_seconds(seconds)
        .ok_or_else(|| state::ControlError(format!("{seconds} s is not a duration")))
        .and_then(|by| shared.advance_clock(by));
    match moved {
        Ok(now) => ok(&json!({"now": now.format(moscow_time::FORMAT).to_string()})),
        Err(e) => error(StatusCode::BAD_REQUEST, "ValidationError", e.to_string()),
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WebhookBody {
    /// Required; `null` removes the address.
    #[serde(deserialize_with = "present")]
    url: Option<String>,
    /// The token whose kind keys notifications not caused by a signature (default
    /// `sandboxtoken`).
    #[serde(default)]
    token: Option<String>,
}

/// A member that must be present, though it may be `null`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    <Option<String> as serde::Deserialize>::deserialize(d)
}

async fn admin_webhook(State(shared): Shr, body: Bytes) -> Reply {
    let WebhookBody { url, token } = match serde_json::from_slice::<WebhookBody>(&body) {
        Ok(body) => body,
        // A body that may hold a token: serde's message could quote it, so it is not passed on.
        Err(_) if body.windows(5).any(|w| w == b"token") => {
            return error(
                StatusCode::BAD_REQUEST,
                "ValidationError",
                "the body: expected {\"url\": URL or null, \"token\": a token, optional}",
            );
        }
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                "ValidationError",
                format!("the body: {e}"),
            );
        }
    };
    if let Err(e) =
        crate::Control::new(shared.clone()).set_webhook_with_token(url.clone(), token.as_deref())
    {
        return error(StatusCode::BAD_REQUEST, "ValidationError", e.to_string());
    }
    ok(&json!({"url": url}))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct OperationsBody {
    /// The account's number or id.
    account: String,
    count: Option<usize>,
    /// `YYYY-MM-DD` or `DD.MM.YYYY`.
    date: Option<String>,
    kind: Option<String>,
    /// A number or a string of rubles.
    amount: Option<Value>,
}

async fn admin_operations(State(shared): Shr, body: Bytes) -> Reply {
    let body = match admin_body::<OperationsBody>(&body) {
        Ok(body) => body,
        Err(reply) => return reply,
    };
    let invalid = |message: String| error(StatusCode::BAD_REQUEST, "ValidationError", message);
    let mut receive = state::Receive::new(body.account);
    if let Some(count) = body.count {
        receive.count = count;
    }
    if let Some(date) = &body.date {
        match clientbank_payment::json::parse_date(date) {
            Some(date) => receive.date = Some(date),
            None => return invalid(format!("date {date:?}: expected YYYY-MM-DD or DD.MM.YYYY")),
        }
    }
    if let Some(kind) = &body.kind {
        match kind.parse() {
            Ok(kind) => receive.kind = kind,
            Err(e) => return invalid(format!("{e}")),
        }
    }
    if let Some(amount) = &body.amount {
        let text = match amount {
            Value::String(text) => text.trim().to_string(),
            Value::Number(number) => number.to_string(),
            other => return invalid(format!("amount {other}: expected rubles, e.g. 1500.00")),
        };
        match text.parse::<rust_decimal::Decimal>() {
            Ok(amount) => receive.amount = Some(amount),
            Err(_) => return invalid(format!("amount {text:?}: expected rubles, e.g. 1500.00")),
        }
    }
    match shared.receive(&receive) {
        Ok(operations) => {
            let ids: Vec<&str> = operations.iter().map(|op| op.id.as_str()).collect();
            ok(&json!({"count": ids.len(), "ids": ids}))
        }
        Err(e) => invalid(e.to_string()),
    }
}

async fn admin_deliveries(State(shared): Shr) -> Reply {
    let deliveries: Vec<Value> = shared
        .lock()
        .deliveries
        .iter()
        .map(|d| json!({"operationId": d.operation_id, "attempt": d.attempt, "status": d.status}))
        .collect();
    ok(&deliveries)
}

async fn admin_payments(State(shared): Shr) -> Reply {
    let payments: Vec<Value> = shared
        .lock()
        .payments
        .iter()
        .map(|p| {
            json!({
                "id": p.id, "status": p.status.to_string(), "awaitingSignature": p.awaiting_signature,
                "number": p.payment.number, "account": p.account_number,
                "companyId": p.company_id,
            })
        })
        .collect();
    ok(&payments)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CompanyBody {
    name: String,
    inn: Option<String>,
    kpp: Option<String>,
}

/// `POST /admin/companies {"name", "inn"?, "kpp"?}`: a company of its own user, with a checking
/// account and a cabinet token of every right (the token is answered here, and only here).
async fn admin_companies(State(shared): Shr, body: Bytes) -> Reply {
    let body = match admin_body::<CompanyBody>(&body) {
        Ok(body) => body,
        Err(reply) => return reply,
    };
    let new = crate::NewCompany {
        name: body.name,
        inn: body.inn,
        kpp: body.kpp,
    };
    match shared.add_company(&new) {
        Ok(made) => ok(&json!({
            "companyId": made.company_id, "name": made.name, "inn": made.inn, "kpp": made.kpp,
            "account": made.account, "accountId": made.account_id, "token": made.token,
        })),
        Err(e) => error(StatusCode::BAD_REQUEST, "ValidationError", e.to_string()),
    }
}
