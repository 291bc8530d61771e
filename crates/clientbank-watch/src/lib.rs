//! The watch daemon and its journal: drops of accounting software checked, uploaded to the
//! bank at most once, their ids collected and signed.
//!
//! - [`daemon::Daemon`] claims complete files of `DIR/inbox` and moves each through
//!   `processing/` to `done/`, `rejected/` or `review/`, with a report beside it.
//! - [`journal::Journal`] (SQLite, WAL, fsync before every send) records intents before
//!   anything is sent and every answer after: a crash leaves at most the payment in flight in
//!   doubt, and a payment in doubt is never re-sent automatically.
//! - [`drop::read`] is the one place where a drop's bytes become validated payments.
//! - [`engine::Engine`] sends a file's payments and signs; `clientbank upload` and
//!   `clientbank sign` use it too.
//! - [`statement`] brings the bank's operations back as `kl_to_1c.txt`.

#![warn(missing_docs)]

pub mod commands;
pub mod complete;
pub mod daemon;
pub mod demo;
pub mod drop;
pub mod engine;
pub mod folders;
pub mod init;
pub mod journal;
mod last_errors;
pub mod lock;
pub mod notify;
pub mod report;
mod service;
pub mod state;

pub use clientbank_bank::{Route, Settings, Signing, config, signer, statement, webhook};
pub use daemon::{Daemon, Options, Summary};
pub use engine::Engine;

/// What stops the daemon or a command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The configuration is wrong or incomplete.
    #[error("configuration: {0}")]
    Config(String),
    /// The journal cannot be read or written.
    #[error("journal: {0}")]
    Journal(String),
    /// The journal is damaged: refused, with how to recover.
    #[error("the journal {0}")]
    JournalDamaged(String),
    /// The journal is missing where the folders show earlier use, or a command was given a
    /// folder without one (in both languages).
    #[error("{}", .0.en())]
    JournalMissing(clientbank_format::Message),
    /// Another daemon runs on the folder.
    #[error("{0}")]
    Busy(String),
    /// A file or folder cannot be read or written.
    #[error("{0}")]
    Io(String),
    /// The signer command failed.
    #[error("signer: {0}")]
    Signer(String),
    /// A statement cannot be made: the history and the balance disagree (in both languages).
    #[error("statement: {}", .0.en())]
    Statement(clientbank_format::Message),
    /// An account the token does not see, or a period that cannot be: the user's input (in
    /// both languages).
    #[error("{}", .0.en())]
    Usage(clientbank_format::Message),
    /// The bank (before anything was sent: companies for signing).
    #[error("{0}")]
    Bank(clientbank_api::Error),
}

impl From<clientbank_bank::Error> for Error {
    fn from(e: clientbank_bank::Error) -> Error {
        use clientbank_bank::Error as Bank;
        match e {
            Bank::Config(s) => Error::Config(s),
            Bank::Io(s) => Error::Io(s),
            Bank::Signer(s) => Error::Signer(s),
            Bank::Statement(m) => Error::Statement(m),
            Bank::Usage(m) => Error::Usage(m),
            Bank::Bank(e) => Error::Bank(e),
            Bank::Store(e) => match e.downcast::<Error>() {
                Ok(e) => *e,
                Err(e) => Error::Journal(e.to_string()),
            },
        }
    }
}

impl Error {
    /// What people read, in both languages: the Russian of what the variant says, with the
    /// text it carries (which is English where it comes from below: a file system, the bank).
    pub fn message(&self) -> clientbank_format::Message {
        use clientbank_format::Message;
        let both = |ru: &str| Message::new(self.to_string(), format!("{ru}{}", self.detail()));
        match self {
            Error::Statement(m) => Message::new(
                format!("statement: {}", m.en()),
                format!("выписка: {}", m.ru()),
            ),
            Error::Usage(m) | Error::JournalMissing(m) => m.clone(),
            Error::Config(_) => both("настройки: "),
            Error::Journal(_) => both("журнал: "),
            Error::JournalDamaged(_) => both("журнал "),
            Error::Signer(_) => both("подпись: "),
            Error::Busy(_) | Error::Io(_) | Error::Bank(_) => both(""),
        }
    }

    /// The text a variant carries.
    fn detail(&self) -> String {
        match self {
            Error::Config(s)
            | Error::Journal(s)
            | Error::JournalDamaged(s)
            | Error::Busy(s)
            | Error::Io(s)
            | Error::Signer(s) => s.clone(),
            Error::Bank(e) => e.to_string(),
            Error::Statement(m) | Error::Usage(m) | Error::JournalMissing(m) => m.en().to_string(),
        }
    }

    /// The exit code: 3 when the bank is unavailable, 2 otherwise (usage, configuration, I/O).
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Bank(
                clientbank_api::Error::Config(_) | clientbank_api::Error::InvalidId { .. },
            ) => 2,
            Error::Bank(e) if e.not_taken() || e.retryable_read() => 3,
            _ => 2,
        }
    }
}
