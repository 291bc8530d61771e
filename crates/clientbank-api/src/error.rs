//! What can go wrong talking to the bank, typed by what the caller must do about it.

/// An error of the bank API client. No variant ever holds the token.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bank's own maintenance answer: 503 with the bank's error body whose `exceptionType`
    /// is `Maintenance`. The bank answers every request so and acted on none. Any other 503 (a
    /// proxy's page, an empty body) is [`Error::Api`] with status 503: on a write it is in doubt.
    #[error("the bank is under maintenance (503); try again later")]
    Maintenance,
    /// 401 without a known error body: the token is missing, wrong, expired or revoked.
    #[error("the bank does not accept the token (401){}", suffix(.message))]
    Unauthorized {
        /// The bank's text, if any.
        message: String,
    },
    /// `exceptionType: AccessDenied`: the token may not see this company, account or payment.
    #[error("access denied ({status}): {message}")]
    AccessDenied {
        /// The HTTP status (400 for another company's account, 401 on sign, 403 for a right).
        status: u16,
        /// The bank's text.
        message: String,
    },
    /// `exceptionType: SignCheckError`: the signature is bad or its certificate expired.
    #[error("the bank refused the signature: {message}")]
    SignCheck {
        /// The bank's text.
        message: String,
    },
    /// The bank did not take the request: too many requests (429) or the request was not
    /// received whole in time (408). Nothing was acted on, so it may be repeated (an upload
    /// too), after `retry_after` when the bank said it (`Retry-After`).
    #[error("the bank did not take the request ({status}{}): try again later{}", suffix(.message), retry_text(.retry_after))]
    NotTaken {
        /// 429 or 408.
        status: u16,
        /// How long the bank asked to wait (`Retry-After`), when it said.
        retry_after: Option<std::time::Duration>,
        /// `message`, or the start of the body.
        message: String,
    },
    /// Any other answer that is not a success.
    #[error("the bank answered {status}{}{}", suffix(.exception_type), suffix(.message))]
    Api {
        /// The HTTP status.
        status: u16,
        /// `exceptionType`, if the body had one.
        exception_type: String,
        /// `message`, or the start of the body.
        message: String,
    },
    /// The connection could not be made: nothing was sent.
    #[error("cannot connect to the bank: {0}")]
    Connect(String),
    /// No answer in time: the request may or may not have reached the bank.
    #[error("the bank did not answer in time")]
    Timeout,
    /// The connection broke: the request may or may not have reached the bank.
    #[error("the connection to the bank broke: {0}")]
    Transport(String),
    /// A read whose successful answer is not what the API describes.
    #[error("unexpected answer from the bank: {0}")]
    Decode(String),
    /// A write (upload, signature, any POST that acts) the bank took — it answered 2xx — but
    /// whose answer cannot be read, so what it did is not known: in doubt, never repeated.
    /// `ids` holds the created payments' ids that could be read; `body` the answer as
    /// received (withheld for the token exchange, whose answer holds the token).
    #[error("the bank took the request ({status}) but its answer cannot be read: {reason}")]
    Unreadable {
        /// The HTTP status (2xx).
        status: u16,
        /// Ids found in the answer (perhaps not all of them).
        ids: Vec<String>,
        /// What could not be read.
        reason: String,
        /// The body as received (UTF-8, invalid bytes replaced).
        body: String,
    },
    /// An id that cannot be a path segment (empty, `.` or `..`, which would change the
    /// address the request goes to): refused before anything is sent.
    #[error("{what} {value:?} cannot be sent: an id must not be empty, `.` or `..`")]
    InvalidId {
        /// Which parameter (`account id`, `part id`, …).
        what: &'static str,
        /// The value refused.
        value: String,
    },
    /// The client's own configuration is wrong (an address, a root certificate, a token that
    /// cannot be a header), found before anything was sent: [`Error::not_taken`], never
    /// [`Error::in_doubt`].
    #[error("{0}")]
    Config(String),
}

fn suffix(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(": {text}")
    }
}

fn retry_text(after: &Option<std::time::Duration>) -> String {
    after.map_or_else(String::new, |d| {
        format!(" (the bank asks to wait {} s)", d.as_secs())
    })
}

impl Error {
    /// How long the bank asked to wait before the request is made again (`Retry-After` of a
    /// 429 or 408).
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            Error::NotTaken { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Whether a read may be repeated: any 503, 429, no connection, timeouts and resets.
    pub fn retryable_read(&self) -> bool {
        match self {
            Error::Maintenance
            | Error::NotTaken { .. }
            | Error::Connect(_)
            | Error::Timeout
            | Error::Transport(_) => true,
            Error::Api { status, .. } => *status == 503,
            _ => false,
        }
    }

    /// Whether the bank provably did not take a request (so an upload may be repeated): it
    /// gave its own maintenance answer ([`Error::Maintenance`]) or said it did not take it
    /// ([`Error::NotTaken`]: 429, 408), or no connection was made, or
    /// the request could not even be built ([`Error::Config`], [`Error::InvalidId`]: a
    /// configuration problem, nothing left this process; never in doubt). A 503 of any other
    /// shape does not prove it: a proxy may answer so after the bank took
    /// the request.
    pub fn not_taken(&self) -> bool {
        matches!(
            self,
            Error::Maintenance
                | Error::NotTaken { .. }
                | Error::Connect(_)
                | Error::Config(_)
                | Error::InvalidId { .. }
        )
    }

    /// Whether the request may have been acted on although no answer says so: a timeout, a
    /// broken connection, a server error after sending (a 503 that is not the bank's own
    /// maintenance answer included), or a 2xx whose answer cannot be read. An upload in doubt
    /// is never repeated automatically.
    pub fn in_doubt(&self) -> bool {
        match self {
            Error::Timeout | Error::Transport(_) | Error::Unreadable { .. } => true,
            Error::Api { status, .. } => *status >= 500,
            _ => false,
        }
    }

    /// The HTTP status, when the bank answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Maintenance => Some(503),
            Error::Unauthorized { .. } => Some(401),
            Error::AccessDenied { status, .. }
            | Error::Api { status, .. }
            | Error::NotTaken { status, .. }
            | Error::Unreadable { status, .. } => Some(*status),
            Error::SignCheck { .. } => Some(400),
            _ => None,
        }
    }
}
