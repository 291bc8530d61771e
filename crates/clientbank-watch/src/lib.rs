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

/// `Debug` for a type that holds what cannot or must not be printed (a connection, a closure,
/// a lease): its name, the fields named (`name: path` shows `self.path` as `name`), then `..`.
macro_rules! debug_shows {
    ($type:ident { $($name:ident $(: $($path:ident).+)?),+ $(,)? }) => {
        impl std::fmt::Debug for $type {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($type))
                    $(.field(stringify!($name), &debug_shows!(@get self $name $($($path).+)?)))+
                    .finish_non_exhaustive()
            }
        }
    };
    (@get $self:ident $name:ident) => { $self.$name };
    (@get $self:ident $name:ident $($path:ident).+) => { $self.$($path).+ };
}

pub mod commands;
pub mod complete;
pub mod daemon;
pub mod demo;
pub mod drop;
pub mod engine;
pub mod fleet;
pub mod folders;
pub mod init;
pub mod journal;
mod last_errors;
pub mod lock;
pub mod metrics;
pub mod notify;
pub mod report;
mod service;
pub mod state;
pub mod webhook;

pub use daemon::{Daemon, FileEnd, Options, Summary};
pub use engine::Engine;
pub use fleet::{Fleet, FolderRun};

/// What stops the daemon or a command. Each variant keeps what caused it (`source()`);
/// [`message`] says it in both languages, the binary says it once.
///
/// [`message`]: Error::message
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bank's side: the configuration, the signer, the bank's answers, a statement, a file
    /// written whole.
    #[error(transparent)]
    Bank(#[from] clientbank_bank::Error),
    /// The journal's database failed.
    #[error("journal: {path}: {source}")]
    Journal {
        /// The journal file.
        path: String,
        /// The database's error (SQLite's or PostgreSQL's).
        #[source]
        source: journal::DbError,
    },
    /// Another daemon holds the folder's lease (a journal in PostgreSQL): this one waits and
    /// tries again after `retry`.
    #[error("{}", .message.en())]
    Leased {
        /// Whose lease it is, and until when (both languages).
        message: clientbank_format::Message,
        /// When to try again.
        retry: std::time::Duration,
    },
    /// This daemon's lease of the folder ran out (it was paused, or cut off from the database):
    /// another daemon may serve the folder now, so this one stopped before sending anything
    /// more (both languages).
    #[error("{}", .0.en())]
    LeaseLost(clientbank_format::Message),
    /// The journal cannot serve: missing where it must exist, of a newer version, its files
    /// deleted while in use.
    #[error("journal: {}", .0.en())]
    JournalRefused(clientbank_format::Message),
    /// The journal is damaged: refused, with how to recover.
    #[error("the journal {}", .0.en())]
    JournalDamaged(clientbank_format::Message),
    /// The journal is missing where the folders show earlier use, or a command was given a
    /// folder without one (in both languages).
    #[error("{}", .0.en())]
    JournalMissing(clientbank_format::Message),
    /// Another daemon runs on the folder.
    #[error("{}", .0.en())]
    Busy(clientbank_format::Message),
    /// A file or folder cannot be read or written: what was being done, and why.
    #[error("{what}: {source}")]
    Io {
        /// What could not be done (`cannot move processing/a.txt`), in both languages.
        what: clientbank_format::Message,
        /// The file system's error.
        #[source]
        source: std::io::Error,
    },
    /// What the user asked cannot be done (in both languages).
    #[error("{}", .0.en())]
    Usage(clientbank_format::Message),
}

impl From<clientbank_api::Error> for Error {
    fn from(e: clientbank_api::Error) -> Error {
        Error::Bank(e.into())
    }
}

impl Error {
    /// An [`Error::Io`] of `what`, for `map_err`:
    /// `.map_err(Error::io(cannot(Act::Read, x)))`.
    pub fn io(what: clientbank_format::Message) -> impl FnOnce(std::io::Error) -> Error {
        move |source| Error::Io { what, source }
    }

    /// [`Error::LeaseLost`] of the journal at `label`.
    pub fn lease_lost(label: &str) -> Error {
        Error::LeaseLost(clientbank_format::Message::new(
            format!(
                "the lease of this folder in {label} ran out (this daemon was paused or cut off \
                 from the database) and may be another daemon's now: stopped before sending \
                 anything more; what was in flight goes to review/"
            ),
            format!(
                "аренда этой папки в {label} истекла (демон был приостановлен или потерял связь \
                 с базой), и папку может обслуживать другой демон: остановлено, больше ничего не \
                 отправлено; то, что было в пути, уходит в review/"
            ),
        ))
    }

    /// [`Error::Leased`]: `dir` is served by `holder` (on `at`) for `left` seconds yet; tried
    /// again after a third of `lease`.
    pub fn leased(
        dir: &str,
        holder: &str,
        at: &str,
        left: f64,
        lease: std::time::Duration,
    ) -> Error {
        let at = if at.is_empty() {
            String::new()
        } else {
            format!(" ({at})")
        };
        Error::Leased {
            message: clientbank_format::Message::new(
                format!(
                    "{dir} is served by another daemon, {holder}{at}, whose lease of it runs \
                     {left:.1} s more"
                ),
                format!(
                    "{dir} обслуживает другой демон, {holder}{at}, его аренда папки длится ещё \
                     {left:.1} с"
                ),
            ),
            retry: lease / 3,
        }
    }

    /// What people read, in both languages: the Russian of what the variant says, with the
    /// text it carries (which is English where it comes from below: a file system, the bank).
    pub fn message(&self) -> clientbank_format::Message {
        use clientbank_format::Message;
        let both =
            |ru: &str, detail: String| Message::new(self.to_string(), format!("{ru}{detail}"));
        match self {
            Error::Bank(e) => e.message(),
            Error::Usage(m)
            | Error::JournalMissing(m)
            | Error::LeaseLost(m)
            | Error::Leased { message: m, .. } => m.clone(),
            Error::Journal { path, source } => both("журнал: ", format!("{path}: {}", source.ru())),
            Error::JournalRefused(m) => both("журнал: ", m.ru().to_string()),
            Error::JournalDamaged(m) => both("журнал ", m.ru().to_string()),
            Error::Busy(m) => m.clone(),
            Error::Io { what, source } => {
                // Refused by the file system's rights: what to do about it, for every file.
                let (hint, hint_ru) = if source.kind() == std::io::ErrorKind::PermissionDenied {
                    (
                        ": give the user clientbank runs as (the service's) the right to read and \
                         write the exchange folder and everything in it",
                        ": дайте пользователю, от имени которого работает clientbank (служба), \
                         права на чтение и запись папки обмена и всего в ней",
                    )
                } else {
                    ("", "")
                };
                Message::new(
                    format!("{self}{hint}"),
                    format!(
                        "{}: {}{hint_ru}",
                        what.ru(),
                        clientbank_diagnostic::os::io_error(source).ru()
                    ),
                )
            }
        }
    }

    /// The exit code: 3 when the bank is unavailable, 2 otherwise (usage, configuration, I/O).
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Bank(e) => e.exit_code(),
            _ => 2,
        }
    }

    /// The bank's error, where the bank answered (or could not be reached).
    pub fn api(&self) -> Option<&clientbank_api::Error> {
        match self {
            Error::Bank(clientbank_bank::Error::Api(e)) => Some(e),
            _ => None,
        }
    }
}
