//! The bank side of clientbank: what talks to the bank and what the bank talks to.
//!
//! - [`config`]: the configuration file `clientbank.toml` (one schema for every command), the
//!   environment, and the connection settings resolved from them ([`Settings::client`] sets the
//!   API client up).
//! - [`signer`]: the signer command that makes detached CMS signatures of payment ids, and a
//!   throwaway `openssl` signer for the sandbox.
//! - [`statement`]: the bank's operations of a period written back as `kl_to_1c.txt`, with the
//!   orders this project uploaded given back as 1C wrote them.
//! - [`login`]: the OAuth sign-in of `clientbank login`, the token stored where only the user
//!   reads it.
//! - [`webhook`]: the listener for the bank's notifications of new operations.
//! - [`operations`]: the store those two keep the bank's operations in — the watch daemon's
//!   journal implements it, so nothing here depends on the daemon.

#![warn(missing_docs)]

pub mod config;
pub mod files;
pub mod login;
pub mod operations;
pub mod signer;
pub mod statement;
pub mod webhook;

pub use config::{Route, Settings, Signing};

use clientbank_format::Message;

/// What stops a bank-side step. Each variant keeps what caused it (`source()`); [`message`]
/// says it in both languages.
///
/// [`message`]: Error::message
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The configuration is wrong or incomplete (in both languages).
    #[error("configuration: {}", .0.en())]
    Config(Message),
    /// A file, folder or socket cannot be used: what was being done, and why.
    #[error("{what}: {source}")]
    Io {
        /// What could not be done (`cannot create outbox/`), in both languages.
        what: Message,
        /// The cause: the file system's error, or what the write stopped on.
        #[source]
        source: Cause,
    },
    /// The signer command failed (in both languages).
    #[error("signer: {}", .0.en())]
    Signer(Message),
    /// The history and the balances disagree (in both languages): the statement is not written.
    #[error("statement: {}", .0.en())]
    Unbalanced(Message),
    /// An account the token does not see, a period that cannot be, a file that must not be
    /// replaced: the user's input (in both languages).
    #[error("{}", .0.en())]
    Usage(Message),
    /// The bank or the browser's redirect refused the sign-in (in both languages).
    #[error("{}", .0.en())]
    Refused(Message),
    /// The bank refused or could not be reached.
    #[error(transparent)]
    Api(#[from] clientbank_api::Error),
    /// The store of operations (the journal) failed.
    #[error("journal: {0}")]
    Store(#[source] operations::StoreError),
}

/// What an [`Error::Io`] was caused by.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

impl From<operations::StoreError> for Error {
    fn from(e: operations::StoreError) -> Error {
        Error::Store(e)
    }
}

impl Error {
    /// A configuration error, said in both languages.
    pub fn config(
        en: impl Into<std::borrow::Cow<'static, str>>,
        ru: impl Into<std::borrow::Cow<'static, str>>,
    ) -> Error {
        Error::Config(Message::new(en, ru))
    }

    /// An [`Error::Io`] of `what`, for `map_err`:
    /// `.map_err(Error::io(cannot(Act::Read, x)))`.
    pub fn io<E: Into<Cause>>(what: Message) -> impl FnOnce(E) -> Error {
        move |source| Error::Io {
            what,
            source: source.into(),
        }
    }

    /// What people read, in both languages: the Russian of what the variant says, with the
    /// text it carries (which is English where it comes from below: a file system, the bank).
    pub fn message(&self) -> Message {
        let both =
            |ru: &str, detail: String| Message::new(self.to_string(), format!("{ru}{detail}"));
        match self {
            Error::Unbalanced(m) => Message::new(
                format!("statement: {}", m.en()),
                format!("выписка: {}", m.ru()),
            ),
            Error::Usage(m) | Error::Refused(m) => m.clone(),
            Error::Config(m) => Message::new(
                format!("configuration: {}", m.en()),
                format!("настройки: {}", m.ru()),
            ),
            Error::Signer(m) => both("подпись: ", m.ru().to_string()),
            Error::Api(e) => e.message(),
            Error::Io { what, source } => Message::new(
                self.to_string(),
                format!(
                    "{}: {}",
                    what.ru(),
                    clientbank_diagnostic::os::cause(source.as_ref()).ru()
                ),
            ),
            Error::Store(e) => both(
                "журнал: ",
                clientbank_diagnostic::os::cause(e.as_ref())
                    .ru()
                    .to_string(),
            ),
        }
    }

    /// The exit code: 3 when the bank is unavailable, 2 otherwise (usage, configuration, I/O).
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Api(
                clientbank_api::Error::Config(_) | clientbank_api::Error::InvalidId { .. },
            ) => 2,
            Error::Api(e) if e.not_taken() || e.retryable_read() => 3,
            _ => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 19 item 8: an I/O error reads in Russian whole — what could not be done and the
    /// system's reason in words — wherever the I/O error stands in the cause.
    #[test]
    fn an_io_error_is_said_in_both_languages() {
        let what = || Message::new("cannot read a.txt", "не удалось прочитать a.txt");
        let gone = Error::io(what())(std::io::Error::from(std::io::ErrorKind::NotFound));
        assert_eq!(gone.message().en(), "cannot read a.txt: entity not found");
        assert_eq!(
            gone.message().ru(),
            "не удалось прочитать a.txt: нет такого файла или папки"
        );
        // Where the write stopped on an I/O error, as a writer says it.
        #[derive(Debug)]
        struct Stopped(std::io::Error);
        impl std::fmt::Display for Stopped {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the file could not be written")
            }
        }
        impl std::error::Error for Stopped {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let wrapped = Stopped(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        let denied = Error::io(what())(wrapped);
        assert_eq!(
            denied.message().ru(),
            "не удалось прочитать a.txt: нет доступа"
        );
    }
}
