//! What can go wrong talking to the bank, typed by what the caller must do about it.

use clientbank_diagnostic::Message;

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
    /// The connection could not be made: nothing was sent. The text is the cause as the
    /// network library says it; what to check, for a known cause, is said after it
    /// ([`Error::message`] in both languages).
    #[error("cannot connect to the bank: {}{}", .0, connect_hint_en(.0.en()))]
    Connect(Message),
    /// No answer in time: the request may or may not have reached the bank.
    #[error("the bank did not answer in time")]
    Timeout,
    /// The connection broke: the request may or may not have reached the bank.
    #[error("the connection to the bank broke: {0}")]
    Transport(Message),
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
    /// [`Error::in_doubt`]. Said in both languages.
    #[error("{0}")]
    Config(Message),
}

/// Why a connection failed, where the network library's (English) words tell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ConnectCause {
    /// `https://` to an address that answers plain HTTP (rustls: "received corrupt message
    /// of type InvalidContentType").
    PlainHttp,
    /// Nobody listens at the address and port.
    Refused,
    /// The host name does not resolve.
    UnknownHost,
    /// The bank's certificate is of an issuer not trusted.
    Untrusted,
}

impl ConnectCause {
    fn of(cause: &str) -> Option<ConnectCause> {
        Some(if cause.contains("InvalidContentType") {
            ConnectCause::PlainHttp
        } else if cause.contains("Connection refused") || cause.contains("os error 10061") {
            ConnectCause::Refused
        } else if cause.contains("dns error") || cause.contains("failed to lookup address") {
            ConnectCause::UnknownHost
        } else if cause.contains("UnknownIssuer") || cause.contains("invalid peer certificate") {
            ConnectCause::Untrusted
        } else {
            return None;
        })
    }

    /// What to check, in both languages.
    fn hint(self) -> Message {
        let (en, ru) = match self {
            ConnectCause::PlainHttp => (
                "the address answers plain HTTP, not HTTPS: check bank_url's scheme and port",
                "адрес отвечает по HTTP, а не по HTTPS: проверьте схему и порт bank_url",
            ),
            ConnectCause::Refused => (
                "nothing listens at that address and port: check bank_url",
                "по этому адресу и порту никто не принимает соединения: проверьте bank_url",
            ),
            ConnectCause::UnknownHost => (
                "the bank's host name is not found: check bank_url and the network",
                "имя сервера банка не найдено: проверьте bank_url и сеть",
            ),
            ConnectCause::Untrusted => (
                "the bank's certificate is not trusted: give its root certificate in root_ca",
                "сертификату банка нет доверия: укажите его корневой сертификат в root_ca",
            ),
        };
        Message::new(en, ru)
    }

    /// Whether the library's own words say nothing in Russian that the hint does not (TLS's
    /// and the resolver's English).
    fn said_by_hint(self) -> bool {
        self != ConnectCause::Refused
    }
}

fn connect_hint_en(cause: &str) -> String {
    ConnectCause::of(cause).map_or(String::new(), |c| format!(" ({})", c.hint().en()))
}

fn suffix(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(": {text}")
    }
}

/// The Russian name of an id parameter of [`Error::InvalidId`].
fn id_ru(what: &str) -> &str {
    match what {
        "account id" => "идентификатор счёта",
        "account number" => "номер счёта",
        "operation id" => "идентификатор операции",
        "part id" => "идентификатор части",
        "refund id" => "идентификатор возврата",
        "report id" => "идентификатор отчёта",
        "retail point id" => "идентификатор торговой точки",
        "QR code id" => "идентификатор QR-кода",
        other => other,
    }
}

fn retry_text(after: &Option<std::time::Duration>) -> String {
    after.map_or_else(String::new, |d| {
        format!(" (the bank asks to wait {} s)", d.as_secs())
    })
}

impl Error {
    /// What people read, in English and Russian. The texts carried from elsewhere stay as
    /// they came: the bank's own `message` (the bank writes Russian), and the network
    /// library's cause of a failed connection (English; the Russian says what happened, and
    /// what to check for a known cause, first).
    pub fn message(&self) -> Message {
        let en = match self {
            // As in Russian: a known cause said whole, without the network library's chain.
            Error::Connect(cause) => match ConnectCause::of(cause.en()) {
                Some(known) if known.said_by_hint() => {
                    format!("cannot connect to the bank: {}", known.hint().en())
                }
                _ => self.to_string(),
            },
            _ => self.to_string(),
        };
        let ru = match self {
            Error::Maintenance => "банк на техническом обслуживании (503): повторите позже".into(),
            Error::Unauthorized { message } => {
                format!("банк не принимает токен (401){}", suffix(message))
            }
            Error::AccessDenied { status, message } => {
                format!("доступ запрещён ({status}): {message}")
            }
            Error::SignCheck { message } => format!("банк отклонил подпись: {message}"),
            Error::NotTaken {
                status,
                retry_after,
                message,
            } => format!(
                "банк не принял запрос ({status}{}): повторите позже{}",
                suffix(message),
                retry_after.map_or_else(String::new, |d| format!(
                    " (банк просит подождать {} с)",
                    d.as_secs()
                ))
            ),
            Error::Api {
                status,
                exception_type,
                message,
            } => format!(
                "банк ответил {status}{}{}",
                suffix(exception_type),
                suffix(message)
            ),
            // A known cause is said in Russian whole; the network library's English is kept
            // only where there is nothing better.
            Error::Connect(cause) => match ConnectCause::of(cause.en()) {
                Some(known) if known.said_by_hint() => {
                    format!("не удалось соединиться с банком: {}", known.hint().ru())
                }
                Some(known) => format!(
                    "не удалось соединиться с банком ({}): {}",
                    known.hint().ru(),
                    cause.ru()
                ),
                None => format!("не удалось соединиться с банком: {}", cause.ru()),
            },
            Error::Timeout => "банк не ответил вовремя".into(),
            Error::Transport(cause) => format!("соединение с банком оборвалось: {}", cause.ru()),
            Error::Decode(what) => format!("непонятный ответ банка: {what}"),
            Error::Unreadable { status, reason, .. } => {
                format!("банк принял запрос ({status}), но его ответ не прочитать: {reason}")
            }
            Error::InvalidId { what, value } => format!(
                "{} {value:?} не отправить: идентификатор не может быть пустым, «.» или «..»",
                id_ru(what)
            ),
            Error::Config(message) => message.ru().to_string(),
        };
        Message::new(en, ru)
    }

    /// Whether the connection failed because of the client's own configuration, which no
    /// waiting mends: `https://` to an address that answers plain HTTP, or a certificate of an
    /// issuer not trusted (`root_ca`). Nothing was sent.
    pub fn misconfigured_connection(&self) -> bool {
        match self {
            Error::Connect(cause) => matches!(
                ConnectCause::of(cause.en()),
                Some(ConnectCause::PlainHttp | ConnectCause::Untrusted)
            ),
            _ => false,
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 19 item 8: every error the client makes is said in Russian too, with no English of
    /// its own in the Russian (the bank's text and the network library's cause are carried as
    /// they came).
    #[test]
    fn every_error_is_said_in_russian() {
        let errors = [
            Error::Maintenance,
            Error::Unauthorized {
                message: String::new(),
            },
            Error::AccessDenied {
                status: 403,
                message: "нет права".into(),
            },
            Error::SignCheck {
                message: "подпись неверна".into(),
            },
            Error::NotTaken {
                status: 429,
                retry_after: Some(std::time::Duration::from_secs(7)),
                message: String::new(),
            },
            Error::Api {
                status: 400,
                exception_type: String::new(),
                message: "неверный запрос".into(),
            },
            Error::Connect(Message::new(
                "tcp connect error: Connection refused (os error 111)",
                "соединение отвергнуто (ошибка системы 111)",
            )),
            Error::Timeout,
            Error::Transport(Message::new(
                "connection reset",
                "соединение сброшено другой стороной",
            )),
            Error::Decode("an account without its id".into()),
            Error::Unreadable {
                status: 200,
                ids: Vec::new(),
                reason: "no JSON".into(),
                body: String::new(),
            },
            Error::InvalidId {
                what: "account id",
                value: "..".into(),
            },
            Error::Config(Message::new("a setting is wrong", "настройка неверна")),
        ];
        let carried = ["an account without its id", "no JSON"];
        for e in errors {
            let said = e.message();
            assert_eq!(said.en(), e.to_string());
            let mut ru = said.ru().to_string();
            for text in carried {
                ru = ru.replace(text, "");
            }
            let english = ru
                .split(|c: char| !c.is_ascii_alphabetic() && c != '_')
                .filter(|w| w.len() > 2)
                .filter(|w| !["bank_url", "HTTP", "HTTPS"].contains(w))
                .collect::<Vec<_>>();
            assert!(english.is_empty(), "{ru:?}: {english:?}");
            assert!(ru.chars().any(|c| ('а'..='я').contains(&c)), "{ru:?}");
        }
    }

    /// A connection refused is said with what to check, in each language apart.
    #[test]
    fn a_refused_connection_says_what_to_check() {
        let e = Error::Connect(Message::same(
            "tcp connect error: Connection refused (os error 111)",
        ));
        assert!(e.to_string().contains("nothing listens"), "{e}");
        // The bank may be down: waited for, not the configuration's fault.
        assert!(!e.misconfigured_connection());
        let ru = e.message().ru().to_string();
        assert!(ru.contains("никто не принимает"), "{ru}");
    }
}
