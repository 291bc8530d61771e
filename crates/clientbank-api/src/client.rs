//! The client: every endpoint of API.md Part 1, with the behaviour of Part 3 (retries, TLS,
//! maintenance, typed errors).

use std::net::IpAddr;
use std::time::Duration;

use chrono::NaiveDate;
use clientbank_diagnostic::{Message, tr};
use clientbank_payment::UploadRequest;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::{Method, StatusCode, Url};
use rust_decimal::Decimal;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::Error;
use crate::token::{Token, TokenResponse};
use crate::types::{
    BankAccount, Company, ErrorBody, HistoryFilter, Operation, SignRequest, TokenRequest,
    UploadResult,
};

/// How reads are repeated (API.md Part 3): on 503, 429, timeouts and resets, with exponential
/// backoff. Uploads and signing are repeated only when the bank provably did not take them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retry {
    /// Attempts after the first.
    pub retries: u32,
    /// The first pause; each next one doubles.
    pub base_delay: Duration,
    /// The longest pause.
    pub max_delay: Duration,
}

impl Default for Retry {
    fn default() -> Retry {
        Retry {
            retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
        }
    }
}

impl Retry {
    /// No repetition at all.
    pub const NONE: Retry = Retry {
        retries: 0,
        base_delay: Duration::ZERO,
        max_delay: Duration::ZERO,
    };

    fn delay(&self, attempt: u32) -> Duration {
        self.base_delay
            .saturating_mul(1 << attempt.min(16))
            .min(self.max_delay)
    }
}

/// Builds a [`Client`].
#[derive(Debug)]
pub struct ClientBuilder {
    base_url: String,
    token: Option<Token>,
    sandbox: bool,
    timeout: Duration,
    connect_timeout: Duration,
    retry: Retry,
    roots: Vec<reqwest::Certificate>,
}

impl ClientBuilder {
    /// The access token sent as `Authorization: Bearer`.
    pub fn token(mut self, token: Token) -> ClientBuilder {
        self.token = Some(token);
        self
    }

    /// Sandbox mode: every request carries `sandbox: on`.
    pub fn sandbox(mut self, on: bool) -> ClientBuilder {
        self.sandbox = on;
        self
    }

    /// The longest wait for a whole answer (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> ClientBuilder {
        self.timeout = timeout;
        self
    }

    /// The longest wait for a connection (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> ClientBuilder {
        self.connect_timeout = timeout;
        self
    }

    /// How reads are repeated.
    pub fn retry(mut self, retry: Retry) -> ClientBuilder {
        self.retry = retry;
        self
    }

    /// Trusts the root certificates of a PEM file besides the common ones (the bank's chain
    /// may end in the Russian Ministry of Digital Development's root). Verification is never
    /// switched off.
    pub fn add_root_certificates_pem(mut self, pem: &[u8]) -> Result<ClientBuilder, Error> {
        let certificates = reqwest::Certificate::from_pem_bundle(pem).map_err(|e| {
            Error::Config(tr!(
                "the root certificate file is not PEM: {e}";
                "файл корневого сертификата — не PEM: {e}"
            ))
        })?;
        if certificates.is_empty() {
            return Err(Error::Config(Message::new(
                "the root certificate file holds no certificate",
                "в файле корневого сертификата нет ни одного сертификата",
            )));
        }
        self.roots.extend(certificates);
        Ok(self)
    }

    /// The client. The base URL must be `https://…`, or `http://` to a loopback address.
    pub fn build(self) -> Result<Client, Error> {
        if let Some(token) = &self.token {
            token.check_said().map_err(Error::Config)?;
        }
        let base = bank_address(&self.base_url)?;
        let mut http = reqwest::Client::builder()
            .use_rustls_tls()
            .tls_built_in_root_certs(true)
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("clientbank/", env!("CARGO_PKG_VERSION")));
        for root in self.roots {
            http = http.add_root_certificate(root);
        }
        let http = http.build().map_err(|e| {
            Error::Config(tr!(
                "cannot set up HTTPS: {e}";
                "не удалось настроить HTTPS: {e}"
            ))
        })?;
        Ok(Client {
            http,
            base: base.as_str().trim_end_matches('/').to_string(),
            token: self.token,
            sandbox: self.sandbox,
            retry: self.retry,
        })
    }
}

/// Whether the bank at `address` (a `bank_url`) is on this machine: a loopback host (a sandbox
/// bank, or a proxy to the bank). `false` for an address that is not one.
pub fn on_this_machine(address: &str) -> bool {
    Url::parse(address).is_ok_and(|url| is_loopback(&url))
}

fn is_loopback(url: &Url) -> bool {
    let host = url.host_str().unwrap_or_default();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether an operation may be repeated after a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Idempotence {
    /// A read: repeated on 503, 429, timeouts and resets.
    Read,
    /// An upload or a signature: repeated only when the bank provably did not take it.
    Write,
}

/// A body to send.
enum Body<'a> {
    None,
    Json(&'a (dyn ErasedSerialize + Sync)),
}

/// Object-safe `Serialize` for the request bodies.
trait ErasedSerialize {
    fn to_json(&self) -> Result<Vec<u8>, serde_json::Error>;
}

impl<T: Serialize> ErasedSerialize for T {
    fn to_json(&self) -> Result<Vec<u8>, serde_json::Error> {
        serde_json::to_vec(self)
    }
}

/// The bank API v1 client.
#[derive(Clone, Debug)]
pub struct Client {
    http: reqwest::Client,
    base: String,
    token: Option<Token>,
    sandbox: bool,
    retry: Retry,
}

impl Client {
    /// A builder for the service root `base_url` (it ends with `/v1`).
    pub fn builder(base_url: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.into(),
            token: None,
            sandbox: false,
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            retry: Retry::default(),
            roots: Vec::new(),
        }
    }

    /// The service root.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Body<'_>,
        idempotence: Idempotence,
    ) -> Result<reqwest::Response, Error> {
        let url = format!("{}{path}", self.base);
        let payload = match body {
            Body::None => None,
            Body::Json(value) => Some(value.to_json().map_err(|e| {
                Error::Config(tr!(
                    "cannot encode the request: {e}";
                    "не удалось закодировать запрос: {e}"
                ))
            })?),
        };
        let mut attempt = 0;
        loop {
            let mut request = self.http.request(method.clone(), &url);
            if let Some(token) = &self.token {
                request = request.bearer_auth(token.expose_secret());
            }
            if self.sandbox {
                request = request.header("sandbox", "on");
            }
            if let Some(payload) = &payload {
                request = request
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(payload.clone());
            }
            let error = match request.send().await {
                Ok(response) if response.status().is_success() => return Ok(response),
                Ok(response) => error_of(response).await,
                Err(e) => transport_error(&e),
            };
            let again = !matches!(error, Error::Config(_))
                && match idempotence {
                    Idempotence::Read => error.retryable_read(),
                    Idempotence::Write => error.not_taken(),
                };
            // A bank that asks for a long wait is asked again by the caller's schedule (the
            // daemon's backoff), not by a request held open here.
            let long_wait = error
                .retry_after()
                .is_some_and(|a| a > RETRY_AFTER_IN_PLACE);
            if !again || long_wait || attempt >= self.retry.retries {
                return Err(error);
            }
            let delay = self.retry.delay(attempt);
            tokio::time::sleep(error.retry_after().map_or(delay, |after| after.max(delay))).await;
            attempt += 1;
        }
    }

    async fn json<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Body<'_>,
        idempotence: Idempotence,
    ) -> Result<T, Error> {
        let (status, bytes) = self.answer(method, path, body, idempotence).await?;
        decode(status, &bytes, idempotence, RawBody::Kept)
    }

    /// A successful answer's status and whole body (a body cut off is a broken connection:
    /// on a write, in doubt).
    async fn answer(
        &self,
        method: Method,
        path: &str,
        body: Body<'_>,
        idempotence: Idempotence,
    ) -> Result<(u16, Vec<u8>), Error> {
        let response = self.send(method, path, body, idempotence).await?;
        let status = response.status().as_u16();
        let bytes = response.bytes().await.map_err(|e| transport_error(&e))?;
        Ok((status, bytes.to_vec()))
    }

    /// An upload: the answer read leniently ([`UploadResult::from_answer`]); a 2xx whose
    /// created payments cannot be told is [`Error::Unreadable`], in doubt.
    async fn upload_answer(&self, path: &str, body: Body<'_>) -> Result<UploadResult, Error> {
        let (status, bytes) = self
            .answer(Method::POST, path, body, Idempotence::Write)
            .await?;
        read_upload_answer(status, &bytes)
    }

    async fn bytes(&self, method: Method, path: &str) -> Result<Vec<u8>, Error> {
        let (_, bytes) = self
            .answer(method, path, Body::None, Idempotence::Read)
            .await?;
        Ok(bytes)
    }

    async fn empty(&self, method: Method, path: &str, body: Body<'_>) -> Result<(), Error> {
        self.send(method, path, body, Idempotence::Write).await?;
        Ok(())
    }

    // --- Data retrieval -------------------------------------------------------------------

    /// `POST /account-info`: the companies and their accounts.
    pub async fn companies(&self) -> Result<Vec<Company>, Error> {
        self.json(Method::POST, "/account-info", Body::None, Idempotence::Read)
            .await
    }

    /// Every account of every company, with its company's id.
    pub async fn accounts(&self) -> Result<Vec<(String, BankAccount)>, Error> {
        Ok(self
            .companies()
            .await?
            .into_iter()
            .flat_map(|c| {
                let id = c.company_id;
                c.bank_accounts.into_iter().map(move |a| (id.clone(), a))
            })
            .collect())
    }

    /// `POST /account-info/balance/{accountId}`.
    pub async fn balance(&self, account_id: &str) -> Result<Decimal, Error> {
        let path = format!(
            "/account-info/balance/{}",
            segment("account id", account_id)?
        );
        self.json::<Number>(Method::POST, &path, Body::None, Idempotence::Read)
            .await
            .map(|n| n.0)
    }

    /// `POST /account-info/balance/{accountId}/{date}`: the balance on a day.
    pub async fn balance_on(&self, account_id: &str, date: NaiveDate) -> Result<Decimal, Error> {
        let at = date
            .and_time(chrono::NaiveTime::MIN)
            .format("%Y-%m-%dT%H:%M:%S");
        let path = format!(
            "/account-info/balance/{}/{at}",
            segment("account id", account_id)?
        );
        self.json::<Number>(Method::POST, &path, Body::None, Idempotence::Read)
            .await
            .map(|n| n.0)
    }

    /// `POST /account-info/balance-details/{accountId}`: balance and overdraft (shape not
    /// published).
    pub async fn balance_details(&self, account_id: &str) -> Result<Value, Error> {
        let path = format!(
            "/account-info/balance-details/{}",
            segment("account id", account_id)?
        );
        self.json(Method::POST, &path, Body::None, Idempotence::Read)
            .await
    }

    /// `POST /operation-history/{accountId}` with a filter. The page is an array; each record
    /// is read leniently ([`Operation::from_json`]): an odd record is kept with what could be
    /// read and its [`Operation::problems`], never failing the page.
    pub async fn operation_history(
        &self,
        account_id: &str,
        filter: &HistoryFilter,
    ) -> Result<Vec<Operation>, Error> {
        let path = format!("/operation-history/{}", segment("account id", account_id)?);
        let page: Vec<Value> = self
            .json(Method::POST, &path, Body::Json(filter), Idempotence::Read)
            .await?;
        Ok(page.into_iter().map(Operation::from_json).collect())
    }

    /// The history of `account_id` from `from` to `till` (inclusive) page by page: 50 records
    /// at a time (`records`, `skip += 50`) until a short page. Callers that hold the whole
    /// period in memory use [`Client::operations_between`]; a long period is better taken a
    /// page at a time, as it comes.
    pub fn history_pages<'c>(
        &'c self,
        account_id: &'c str,
        from: NaiveDate,
        till: NaiveDate,
    ) -> HistoryPages<'c> {
        HistoryPages {
            client: self,
            account_id,
            from,
            till,
            skip: Some(0),
        }
    }

    /// All operations executed from `from` to `till` (inclusive), read by
    /// [`Client::history_pages`], deduplicated by id (records without a readable id are all
    /// kept), in the bank's order.
    pub async fn operations_between(
        &self,
        account_id: &str,
        from: NaiveDate,
        till: NaiveDate,
    ) -> Result<Vec<Operation>, Error> {
        let mut seen = std::collections::HashSet::new();
        let mut all = Vec::new();
        let mut pages = self.history_pages(account_id, from, till);
        while let Some(page) = pages.next().await? {
            for operation in page {
                // A record without a readable id cannot be told from another: kept.
                if operation.id.is_empty() || seen.insert(operation.id.clone()) {
                    all.push(operation);
                }
            }
        }
        Ok(all)
    }

    // --- Payment upload -------------------------------------------------------------------

    /// `POST /operation-upload`: one payment as JSON. Repeated only when the bank provably did
    /// not take it; an [`Error::in_doubt`] answer means it may exist at the bank.
    pub async fn upload(&self, request: &UploadRequest) -> Result<UploadResult, Error> {
        self.upload_answer("/operation-upload", Body::Json(request))
            .await
    }

    /// `POST /operation-upload/1c`: a whole 1.03 document, sent as a JSON string (UTF-8).
    pub async fn upload_1c(&self, document: &str) -> Result<UploadResult, Error> {
        let body = serde_json::json!({ "document": document });
        self.upload_answer("/operation-upload/1c", Body::Json(&body))
            .await
    }

    /// `POST /operation-upload/sign`: sends the payments to execution. A 2xx whose body is not
    /// JSON is [`Error::Unreadable`] (in doubt, with the body).
    pub async fn sign(&self, request: &SignRequest) -> Result<Value, Error> {
        self.json(
            Method::POST,
            "/operation-upload/sign",
            Body::Json(request),
            Idempotence::Write,
        )
        .await
    }

    // --- Authorization --------------------------------------------------------------------

    /// The address to send the user's browser to (`GET /oauth/authorize`).
    pub fn authorize_url(
        &self,
        client_id: &str,
        redirect_uri: &str,
        scopes: &[&str],
        state: &str,
    ) -> Result<Url, Error> {
        let mut url = Url::parse(&format!("{}/oauth/authorize", self.base)).map_err(|e| {
            Error::Config(tr!(
                "the sign-in address cannot be made: {e}";
                "не удалось составить адрес входа: {e}"
            ))
        })?;
        url.query_pairs_mut()
            .append_pair("model.clientId", client_id)
            .append_pair("model.redirectUri", redirect_uri)
            .append_pair("model.scope", &scopes.join(" "))
            .append_pair("model.state", state);
        Ok(url)
    }

    /// `POST /oauth/token`: exchanges the temporary `code` for an access token.
    pub async fn exchange_code(&self, request: &TokenRequest) -> Result<Token, Error> {
        let (status, bytes) = self
            .answer(
                Method::POST,
                "/oauth/token",
                Body::Json(request),
                Idempotence::Write,
            )
            .await?;
        decode::<TokenResponse>(status, &bytes, Idempotence::Write, RawBody::Withheld)
            .map(|r| r.access_token)
    }

    /// `POST /revoke`: annuls this client's token.
    pub async fn revoke(&self) -> Result<(), Error> {
        self.empty(Method::POST, "/revoke", Body::None).await
    }

    // --- Nominal accounts (beneficiaries) -------------------------------------------------

    /// `POST /beneficial/{accountNumber}/import`.
    pub async fn beneficiaries_import(&self, account: &str, data: &Value) -> Result<Value, Error> {
        let path = format!("/beneficial/{}/import", segment("account number", account)?);
        self.json(Method::POST, &path, Body::Json(data), Idempotence::Write)
            .await
    }

    /// `GET /beneficial/{nominalAccountNumber}/report`: the report file.
    pub async fn beneficiaries_report(&self, account: &str) -> Result<Vec<u8>, Error> {
        let path = format!("/beneficial/{}/report", segment("account number", account)?);
        self.bytes(Method::GET, &path).await
    }

    /// `POST /beneficial/{nominalAccountNumber}/report/send` with the report's detached
    /// signature in Base64.
    pub async fn beneficiaries_report_send(
        &self,
        account: &str,
        signature_base64: &str,
    ) -> Result<(), Error> {
        let path = format!(
            "/beneficial/{}/report/send",
            segment("account number", account)?
        );
        self.empty(Method::POST, &path, Body::Json(&signature_base64))
            .await
    }

    /// `GET /beneficial/{nominalAccountNumber}/forms/parts`.
    pub async fn form_parts(&self, account: &str) -> Result<Value, Error> {
        let path = format!(
            "/beneficial/{}/forms/parts",
            segment("account number", account)?
        );
        self.json(Method::GET, &path, Body::None, Idempotence::Read)
            .await
    }

    /// `GET /beneficial/{nominalAccountNumber}/forms/parts/{partId}`: the part's file.
    pub async fn form_part(&self, account: &str, part_id: &str) -> Result<Vec<u8>, Error> {
        let path = format!(
            "/beneficial/{}/forms/parts/{}",
            segment("account number", account)?,
            segment("part id", part_id)?
        );
        self.bytes(Method::GET, &path).await
    }

    /// `POST /beneficial/{nominalAccountNumber}/forms/parts/{partId}/send`.
    pub async fn form_part_send(
        &self,
        account: &str,
        part_id: &str,
        signature_base64: &str,
    ) -> Result<(), Error> {
        let path = format!(
            "/beneficial/{}/forms/parts/{}/send",
            segment("account number", account)?,
            segment("part id", part_id)?
        );
        self.empty(Method::POST, &path, Body::Json(&signature_base64))
            .await
    }

    /// `GET /beneficiaries/v2/{nominalAccountNumber}/reports/unsigned`.
    pub async fn unsigned_reports(&self, account: &str) -> Result<Value, Error> {
        let path = format!(
            "/beneficiaries/v2/{}/reports/unsigned",
            segment("account number", account)?
        );
        self.json(Method::GET, &path, Body::None, Idempotence::Read)
            .await
    }

    /// `GET /beneficiaries/v2/{bankAccountNumber}/report/{id}`: the report file.
    pub async fn report_v2(&self, account: &str, id: &str) -> Result<Vec<u8>, Error> {
        let path = format!(
            "/beneficiaries/v2/{}/report/{}",
            segment("account number", account)?,
            segment("report id", id)?
        );
        self.bytes(Method::GET, &path).await
    }

    /// `POST /beneficiaries/v2/{nominalAccountNumber}/report/{id}/send`.
    pub async fn report_v2_send(
        &self,
        account: &str,
        id: &str,
        signature_base64: &str,
    ) -> Result<(), Error> {
        let path = format!(
            "/beneficiaries/v2/{}/report/{}/send",
            segment("account number", account)?,
            segment("report id", id)?
        );
        self.empty(Method::POST, &path, Body::Json(&signature_base64))
            .await
    }

    // --- SBP ------------------------------------------------------------------------------

    async fn get_value(&self, path: &str) -> Result<Value, Error> {
        self.json(Method::GET, path, Body::None, Idempotence::Read)
            .await
    }

    async fn post_value(&self, path: &str, body: &Value) -> Result<Value, Error> {
        self.json(Method::POST, path, Body::Json(body), Idempotence::Write)
            .await
    }

    /// `GET /sbp/retail-points?companyId=…`.
    pub async fn retail_points(&self, company_id: &str) -> Result<Value, Error> {
        self.get_value(&format!(
            "/sbp/retail-points?companyId={}",
            query_value(company_id)
        ))
        .await
    }

    /// `POST /sbp/retail-points`: registers a retail point.
    pub async fn register_retail_point(&self, data: &Value) -> Result<Value, Error> {
        self.post_value("/sbp/retail-points", data).await
    }

    /// `GET /sbp/retail-points/{tspId}`.
    pub async fn retail_point(&self, tsp_id: &str) -> Result<Value, Error> {
        self.get_value(&format!(
            "/sbp/retail-points/{}",
            segment("retail point id", tsp_id)?
        ))
        .await
    }

    /// `GET /sbp/retail-points/{tspId}/status`.
    pub async fn retail_point_status(&self, tsp_id: &str) -> Result<Value, Error> {
        self.get_value(&format!(
            "/sbp/retail-points/{}/status",
            segment("retail point id", tsp_id)?
        ))
        .await
    }

    /// `GET /sbp/qr-codes/{qrcId}`.
    pub async fn qr_code(&self, qrc_id: &str) -> Result<Value, Error> {
        self.get_value(&format!("/sbp/qr-codes/{}", segment("QR code id", qrc_id)?))
            .await
    }

    /// `GET /sbp/qr-codes/{qrcId}/image`: the PNG image.
    pub async fn qr_code_image(&self, qrc_id: &str) -> Result<Vec<u8>, Error> {
        self.bytes(
            Method::GET,
            &format!("/sbp/qr-codes/{}/image", segment("QR code id", qrc_id)?),
        )
        .await
    }

    /// `POST /sbp/qr-codes/dynamic`.
    pub async fn create_dynamic_qr_code(&self, data: &Value) -> Result<Value, Error> {
        self.post_value("/sbp/qr-codes/dynamic", data).await
    }

    /// `POST /sbp/qr-codes/refund`.
    pub async fn refund(&self, data: &Value) -> Result<Value, Error> {
        self.post_value("/sbp/qr-codes/refund", data).await
    }

    /// `GET /sbp/qr-codes/refund/{refundId}`.
    pub async fn refund_status(&self, refund_id: &str) -> Result<Value, Error> {
        self.get_value(&format!(
            "/sbp/qr-codes/refund/{}",
            segment("refund id", refund_id)?
        ))
        .await
    }

    /// `GET /sbp/mcc`.
    pub async fn mcc(&self) -> Result<Value, Error> {
        self.get_value("/sbp/mcc").await
    }

    /// `POST /sbp/cash-links`.
    pub async fn create_cash_link(&self, data: &Value) -> Result<Value, Error> {
        self.post_value("/sbp/cash-links", data).await
    }

    /// `POST /sbp/cash-links/{qrcId}/activate`.
    pub async fn activate_cash_link(&self, qrc_id: &str, data: &Value) -> Result<Value, Error> {
        self.post_value(
            &format!(
                "/sbp/cash-links/{}/activate",
                segment("QR code id", qrc_id)?
            ),
            data,
        )
        .await
    }

    /// `POST /sbp/cash-links/{qrcId}/deactivate`.
    pub async fn deactivate_cash_link(&self, qrc_id: &str) -> Result<(), Error> {
        self.empty(
            Method::POST,
            &format!(
                "/sbp/cash-links/{}/deactivate",
                segment("QR code id", qrc_id)?
            ),
            Body::None,
        )
        .await
    }

    /// `GET /sbp/cash-links/{qrcId}/status`.
    pub async fn cash_link_status(&self, qrc_id: &str) -> Result<Value, Error> {
        self.get_value(&format!(
            "/sbp/cash-links/{}/status",
            segment("QR code id", qrc_id)?
        ))
        .await
    }

    /// `GET /sbp/cash-links/{qrcId}/operations/{paramsId}/status`.
    pub async fn cash_link_operation_status(
        &self,
        qrc_id: &str,
        params_id: &str,
    ) -> Result<Value, Error> {
        self.get_value(&format!(
            "/sbp/cash-links/{}/operations/{}/status",
            segment("QR code id", qrc_id)?,
            segment("operation id", params_id)?
        ))
        .await
    }

    /// `GET /sbp/cash-links/{qrcId}/operations`.
    pub async fn cash_link_operations(&self, qrc_id: &str) -> Result<Value, Error> {
        self.get_value(&format!(
            "/sbp/cash-links/{}/operations",
            segment("QR code id", qrc_id)?
        ))
        .await
    }
}

/// A bare JSON number as the whole body (the balance endpoints), read exactly.
#[derive(serde::Deserialize)]
struct Number(#[serde(with = "rust_decimal::serde::arbitrary_precision")] Decimal);

/// A path segment: every byte but the unreserved ones percent-encoded, so that it can never
/// hold `/`, `?` or `#`. Empty, `.` and `..` are refused: URL parsing takes `.`, `..` and their
/// encoded forms (`%2E`) as "this" and "the parent" segment, so no encoding can carry them.
pub(crate) fn segment(what: &'static str, text: &str) -> Result<String, Error> {
    if matches!(text, "" | "." | "..") {
        return Err(Error::InvalidId {
            what,
            value: text.to_string(),
        });
    }
    Ok(query_value(text))
}

/// What stays as it is in a path segment or a query value: the unreserved characters of
/// RFC 3986 (letters, digits, `-`, `_`, `.`, `~`); every other byte is percent-encoded.
const NOT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// A query parameter's value, percent-encoded.
fn query_value(text: &str) -> String {
    utf8_percent_encode(text, NOT_UNRESERVED).to_string()
}

/// Whether the raw body of an unreadable answer may be kept in the error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RawBody {
    Kept,
    /// The answer holds a secret (the token exchange's holds the access token).
    Withheld,
}

/// A successful answer's body as `T`: a read that does not decode is [`Error::Decode`]; a
/// write the bank took is [`Error::Unreadable`] (in doubt).
fn decode<T: DeserializeOwned>(
    status: u16,
    bytes: &[u8],
    idempotence: Idempotence,
    raw: RawBody,
) -> Result<T, Error> {
    serde_json::from_slice(bytes).map_err(|e| match idempotence {
        Idempotence::Read => Error::Decode(e.to_string()),
        Idempotence::Write => Error::Unreadable {
            status,
            ids: Vec::new(),
            reason: e.to_string(),
            body: match raw {
                RawBody::Kept => String::from_utf8_lossy(bytes).into_owned(),
                RawBody::Withheld => "(withheld: it may hold a secret)".into(),
            },
        },
    })
}

/// The successful answer to an upload, read leniently.
pub(crate) fn read_upload_answer(status: u16, bytes: &[u8]) -> Result<UploadResult, Error> {
    UploadResult::from_answer(bytes).map_err(|unreadable| Error::Unreadable {
        status,
        ids: unreadable.ids,
        reason: unreadable.reason,
        body: String::from_utf8_lossy(bytes).into_owned(),
    })
}

/// The error an answer that is not a success stands for.
async fn error_of(response: reqwest::Response) -> Error {
    let status = response.status().as_u16();
    let after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| retry_after(v, chrono::Utc::now()));
    let bytes = response.bytes().await.unwrap_or_default();
    match error_from(status, &bytes) {
        Error::NotTaken {
            status, message, ..
        } => Error::NotTaken {
            status,
            retry_after: after,
            message,
        },
        other => other,
    }
}

/// The longest `Retry-After` the client waits out itself before asking again.
const RETRY_AFTER_IN_PLACE: Duration = Duration::from_secs(30);

/// The longest wait a `Retry-After` is followed for: a bank asking for more is asked again then.
pub(crate) const RETRY_AFTER_MAX: Duration = Duration::from_secs(3600);

/// A `Retry-After` value (RFC 9110 §10.2.3): seconds, or an HTTP date, as a wait from `now`
/// (at most [`RETRY_AFTER_MAX`]); `None` when it is neither.
pub(crate) fn retry_after(value: &str, now: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    let value = value.trim();
    let wait = match value.parse::<u64>() {
        Ok(seconds) => Duration::from_secs(seconds),
        Err(_) => {
            let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
            (at.with_timezone(&chrono::Utc) - now)
                .to_std()
                .unwrap_or(Duration::ZERO)
        }
    };
    Some(wait.min(RETRY_AFTER_MAX))
}

/// The `exceptionType` of the bank's own maintenance answer (the sandbox bank's too).
pub(crate) const MAINTENANCE: &str = "Maintenance";

/// The error a status that is not a success and its body stand for. A 503 is the bank's
/// maintenance answer ([`Error::Maintenance`], provably not acted on) only when its body is the
/// bank's error body with `exceptionType` `Maintenance`; any other 503 (a proxy's page) is
/// [`Error::Api`], in doubt on a write.
pub(crate) fn error_from(status: u16, bytes: &[u8]) -> Error {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body: Option<ErrorBody> = serde_json::from_slice(bytes).ok();
    let (kind, message) = match body {
        Some(body) => (
            body.exception_type,
            crate::types::excerpt_long(&body.message),
        ),
        None => (
            String::new(),
            crate::types::excerpt_long(&String::from_utf8_lossy(&bytes[..bytes.len().min(300)])),
        ),
    };
    match (status, kind.as_str()) {
        (StatusCode::SERVICE_UNAVAILABLE, MAINTENANCE) => Error::Maintenance,
        // The bank's typed refusals are client errors; on a server status the status rules.
        (_, "AccessDenied") if status.is_client_error() => Error::AccessDenied {
            status: status.as_u16(),
            message,
        },
        (StatusCode::BAD_REQUEST, "SignCheckError") => Error::SignCheck { message },
        (StatusCode::UNAUTHORIZED, _) => Error::Unauthorized { message },
        (StatusCode::TOO_MANY_REQUESTS | StatusCode::REQUEST_TIMEOUT, _) => Error::NotTaken {
            status: status.as_u16(),
            retry_after: None,
            message,
        },
        _ => Error::Api {
            status: status.as_u16(),
            exception_type: kind,
            message,
        },
    }
}

/// The bank's address checked as the client takes it: a URL, `https://` (or `http://` to a
/// loopback address); [`Error::Config`] says what is wrong, in both languages.
pub fn bank_address(address: &str) -> Result<Url, Error> {
    let base = Url::parse(address.trim_end_matches('/')).map_err(|e| {
        use url::ParseError as P;
        let ru = match e {
            P::RelativeUrlWithoutBase => "нет схемы и сервера (ожидается https://…/v1)",
            P::EmptyHost => "нет имени сервера",
            P::InvalidPort => "неверный номер порта",
            P::InvalidIpv4Address => "неверный адрес IPv4",
            P::InvalidIpv6Address => "неверный адрес IPv6",
            P::InvalidDomainCharacter => "недопустимый символ в имени сервера",
            _ => "адрес не разобрать",
        };
        Error::Config(tr!(
            "the bank's address is not a URL: {e}";
            "адрес банка — не URL: {ru}"
        ))
    })?;
    match base.scheme() {
        "https" => {}
        "http" if is_loopback(&base) => {}
        "http" => {
            let host = base.host_str().unwrap_or_default();
            return Err(Error::Config(tr!(
                "plain http:// is allowed only to a loopback address, not to {host}";
                "http:// без шифрования допустим только к адресу этой машины (loopback), не к {host}"
            )));
        }
        other => {
            return Err(Error::Config(tr!(
                "unsupported scheme {other}://";
                "схема {other}:// не поддерживается"
            )));
        }
    }
    Ok(base)
}

/// A transport failure, by whether anything can have reached the bank.
fn transport_error(e: &reqwest::Error) -> Error {
    // The URL in reqwest's text never holds the token (it travels in a header).
    if e.is_builder() {
        // The request could not even be made (a header value or a URL it refuses): nothing
        // left this process. A configuration error, never "sent, answer lost".
        let cause = source_text(e);
        let cause = cause.en();
        Error::Config(tr!(
            "the request cannot be made, nothing was sent (check the configuration: the \
             token, the bank's address): {cause}";
            "запрос не составить, ничего не отправлено (проверьте настройки: токен, адрес \
             банка): {cause}"
        ))
    } else if e.is_connect() {
        Error::Connect(source_text(e))
    } else if e.is_timeout() {
        Error::Timeout
    } else {
        Error::Transport(source_text(e))
    }
}

/// reqwest's error with its causes: in English the whole chain, in Russian the system's
/// reason in words where an I/O error stands in it, else the HTTP library's (hyper's) reason
/// in words where it is one it gives, else its words after a Russian one.
fn source_text(e: &reqwest::Error) -> Message {
    let said = clientbank_diagnostic::os::cause(e);
    if said.ru() != said.en() {
        return said;
    }
    let mut innermost: &(dyn std::error::Error + 'static) = e;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    let text = innermost.to_string();
    let ru = HTTP_REASONS
        .iter()
        .find(|(en, _)| text.starts_with(en))
        .map_or_else(|| format!("причина: {text}"), |(_, ru)| (*ru).to_string());
    Message::new(said.en().to_string(), ru)
}

/// The HTTP library's reasons a connection failed, in Russian.
const HTTP_REASONS: &[(&str, &str)] = &[
    (
        "connection closed before message completed",
        "соединение закрыто до конца ответа",
    ),
    (
        "received unexpected message from connection",
        "по соединению пришло неожиданное сообщение",
    ),
    ("connection error", "ошибка соединения"),
    ("operation was canceled", "запрос отменён"),
    ("channel closed", "соединение закрыто"),
    (
        "error reading a body from connection",
        "ответ не дочитан: соединение оборвалось",
    ),
    (
        "error writing a body to connection",
        "запрос не дописан: соединение оборвалось",
    ),
    (
        "error shutting down connection",
        "соединение не закрылось как следует",
    ),
    (
        "message head is too large",
        "заголовок ответа слишком велик",
    ),
    ("invalid HTTP", "ответ не по протоколу HTTP"),
    ("invalid URI", "неверный адрес"),
    ("http2 error", "ошибка HTTP/2"),
    (
        "read header from client timeout",
        "заголовок не пришёл вовремя",
    ),
];

#[cfg(test)]
mod not_sent_tests {
    use super::*;

    /// Issue 19: an address that is not a URL is said in Russian words, not the URL library's.
    #[test]
    fn an_address_that_is_not_a_url_is_said_in_russian() {
        for (address, ru) in [
            ("notaurl", "нет схемы и сервера"),
            ("http://127.0.0.1:99999/v1", "неверный номер порта"),
            ("http://[::1/v1", "неверный адрес IPv6"),
        ] {
            let Err(Error::Config(said)) = Client::builder(address).build() else {
                panic!("{address} was taken")
            };
            assert!(said.en().contains("not a URL"), "{}", said.en());
            assert!(
                said.ru()
                    .starts_with(&format!("адрес банка — не URL: {ru}")),
                "{}",
                said.ru()
            );
        }
    }

    /// reqwest refuses to build a request (a header value, a URL): nothing left the process,
    /// so it is a configuration error, not taken, never in doubt.
    #[test]
    fn a_request_that_cannot_be_built_is_not_sent() {
        let e = reqwest::Client::new()
            .get("http://127.0.0.1:1/v1")
            .header("authorization", "Bearer bad\nX")
            .build()
            .unwrap_err();
        assert!(e.is_builder(), "{e:?}");
        let error = transport_error(&e);
        assert!(matches!(error, Error::Config(_)), "{error:?}");
        assert!(error.not_taken() && !error.in_doubt(), "{error:?}");
        assert!(error.to_string().contains("nothing was sent"), "{error}");
        assert!(!error.to_string().contains("bad"), "{error}");
        let e = reqwest::Client::new()
            .get("http://[::1")
            .build()
            .unwrap_err();
        assert!(matches!(transport_error(&e), Error::Config(_)));
    }
}

/// The pages of an account's history ([`Client::history_pages`]).
#[derive(Debug)]
pub struct HistoryPages<'c> {
    client: &'c Client,
    account_id: &'c str,
    from: NaiveDate,
    till: NaiveDate,
    /// Where the next page starts; `None` once a short page has come.
    skip: Option<u32>,
}

impl HistoryPages<'_> {
    /// The most records the bank gives at once.
    pub const PAGE: u32 = 50;

    /// The next page, or `None` after the last one (the first page shorter than
    /// [`HistoryPages::PAGE`]; an empty period gives one empty page).
    pub async fn next(&mut self) -> Result<Option<Vec<Operation>>, Error> {
        let Some(skip) = self.skip else {
            return Ok(None);
        };
        let filter = HistoryFilter {
            from: Some(self.from),
            till: Some(self.till),
            skip: Some(skip),
            records: Some(Self::PAGE),
            ..HistoryFilter::default()
        };
        let page = self
            .client
            .operation_history(self.account_id, &filter)
            .await?;
        self.skip = if (page.len() as u32) < Self::PAGE {
            None
        } else {
            Some(skip.checked_add(Self::PAGE).ok_or_else(|| {
                Error::Decode("the history does not end: more than 4 billion records".into())
            })?)
        };
        Ok(Some(page))
    }
}

#[cfg(test)]
mod not_taken_tests {
    use super::*;

    /// A 429 or 408 is the bank not taking the request: an upload may be repeated, nothing is
    /// in doubt; 500 stays in doubt.
    #[test]
    fn too_many_requests_and_request_timeout_are_not_taken() {
        for status in [429, 408] {
            let e = error_from(status, br#"{"exceptionType":"X","message":"slow down"}"#);
            assert!(matches!(e, Error::NotTaken { .. }), "{e:?}");
            assert!(
                e.not_taken() && e.retryable_read() && !e.in_doubt(),
                "{status}"
            );
            assert_eq!(e.status(), Some(status));
        }
        assert!(error_from(500, b"").in_doubt());
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-20T08:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        assert_eq!(retry_after("120", now), Some(Duration::from_secs(120)));
        assert_eq!(
            retry_after("Fri, 20 Nov 2026 08:01:30 GMT", now),
            Some(Duration::from_secs(90))
        );
        // A date already past: at once; a huge wait: at most an hour; nonsense: none.
        assert_eq!(
            retry_after("Fri, 20 Nov 2026 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("99999999999", now), Some(RETRY_AFTER_MAX));
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-5", now), None);
    }
}
