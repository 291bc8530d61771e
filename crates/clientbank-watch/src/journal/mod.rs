//! The journal: an SQLite database in `DIR/.clientbank/journal.sqlite` (WAL) that says, for
//! every file and payment, what was intended, what was sent and what the bank answered.
//!
//! At most once: before a payment is sent, it is marked `sending` in a transaction committed
//! with `synchronous=FULL` (fsync); after the answer, its result. A payment found `sending` at
//! start is in doubt and is never re-sent automatically.

use std::path::{Path, PathBuf};

use crate::Error;
use crate::state::{FileState, PaymentState, SignState};
use clientbank_bank::config::Route;
use clientbank_bank::operations::{
    OperationRow, Operations, Orders, StatementSync, StoreError, source as operation_source,
};

mod banks;
mod events;
mod intents;
mod open;
mod operations;
mod postgres;
mod rows;
mod schema;
pub(crate) mod store;

pub use banks::Bank;
pub use events::LastError;
pub use open::{Access, Location, exists_in, open_folder, owner_id, schema_file};
pub use rows::{FileRow, NewFile, NewPayment, Outcome, PaymentRow, Requisites};
pub use schema::SCHEMA_VERSION;
pub use store::DbError;

use clientbank_format::tr;
use intents::{Active, active_elsewhere};
use store::{Sql, Store, Value, values};

/// The messages the journal keeps for people (a payment's, a file's), in both languages in one
/// column: `English\u{1f}Russian`. A message of an earlier journal, or the bank's own, is one
/// text for both.
pub mod note {
    use clientbank_format::Lang;

    /// Between the English and the Russian.
    pub const BOTH: char = '\u{1f}';

    /// A message in both languages, as the journal keeps it.
    pub fn both(en: impl std::fmt::Display, ru: impl std::fmt::Display) -> String {
        format!("{en}{BOTH}{ru}")
    }

    /// The message in `lang`.
    pub fn in_lang(text: &str, lang: Lang) -> &str {
        match text.split_once(BOTH) {
            Some((_, ru)) if lang == Lang::Ru => ru,
            Some((en, _)) => en,
            None => text,
        }
    }
}

/// The journal of one DIR.
#[derive(Debug)]
pub struct Journal {
    db: Store,
    location: Location,
    /// Where it is, for messages: the file, or the database and schema (never a password).
    label: String,
    /// The bank the payments it marks `sending` go to ([`Journal::send_to`]).
    bank: Option<Bank>,
    /// Whether `bank` is recorded already (by this journal's first mark since it was set):
    /// the marks after it skip the check and the insert.
    bank_recorded: bool,
}

/// The current time, for the journal (UTC, RFC 3339).
pub fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn db_error(label: &str) -> impl Fn(DbError) -> Error + '_ {
    move |source| match source {
        DbError::LeaseLost => Error::lease_lost(label),
        DbError::OtherBank { used, now } => banks::other_kind(label, &used, &now),
        source => Error::Journal {
            path: label.to_string(),
            source,
        },
    }
}

impl Journal {
    /// Opens the SQLite journal at `path`, creating it when `create` (else it must exist),
    /// checking it (`PRAGMA quick_check`) and bringing its schema forward.
    pub fn open(path: &Path, create: bool) -> Result<Journal, Error> {
        Journal::open_at(&Location::Sqlite(path.to_path_buf()), create)
    }

    /// Where this journal is.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The SQLite file, if the journal is one.
    fn sqlite_path(&self) -> Option<&Path> {
        match &self.location {
            Location::Sqlite(path) => Some(path),
            Location::Postgres { .. } => None,
        }
    }

    /// The write-ahead log beside the journal (`journal.sqlite-wal`), where SQLite keeps the
    /// last transactions until it copies them into the journal file (none in PostgreSQL).
    pub fn wal_path(&self) -> PathBuf {
        let mut name = self
            .sqlite_path()
            .unwrap_or(Path::new(""))
            .as_os_str()
            .to_owned();
        name.push("-wal");
        PathBuf::from(name)
    }

    /// Refuses to go on when the journal's files are not whole on disk: the journal file
    /// deleted, or its write-ahead log (a process keeps writing into a deleted log, and a crash
    /// then loses every record since the last checkpoint: payments sent again). What the
    /// deleted log still holds is first copied into the journal file (a checkpoint), so that
    /// nothing recorded so far is lost; nothing more is sent until clientbank starts again.
    /// Called before any payment is marked `sending`, and by the daemon on every pass. A journal
    /// in PostgreSQL has no files here: always well.
    pub fn check_files(&mut self) -> Result<(), Error> {
        let Some(path) = self.sqlite_path() else {
            return Ok(());
        };
        if !path.exists() {
            let shown = path.display();
            return Err(Error::JournalRefused(tr!(
                "{shown} was deleted while clientbank ran: stopped, nothing more is sent. \
                 Restore it from a backup, or start with --new-journal (see `clientbank watch \
                 --help`)" ;
                "{shown} удалён во время работы clientbank: остановлено, больше ничего не \
                 отправляется. Восстановите его из резервной копии или запустите с \
                 --new-journal (см. `clientbank watch --help`)"
            )));
        }
        let wal = self.wal_path();
        if wal.exists() {
            return Ok(());
        }
        let (saved_en, saved_ru) = if self.checkpoint() {
            (
                "Its records were saved into the journal file.",
                "Его записи сохранены в файл журнала.",
            )
        } else {
            (
                "Its records could not all be saved into the journal file: check the journal \
                 against the bank before sending anything else.",
                "Не все его записи удалось сохранить в файл журнала: сверьте журнал с банком, \
                 прежде чем отправлять что-то ещё.",
            )
        };
        let shown = wal.display();
        Err(Error::JournalRefused(tr!(
            "{shown} (the journal's write-ahead log) was deleted while clientbank ran: what it \
             held would be lost in a crash, and payments sent again. {saved_en} Stopped, nothing \
             more is sent: start clientbank again (the log is made anew)" ;
            "{shown} (журнал упреждающей записи) удалён во время работы clientbank: его записи \
             пропали бы при сбое, и платежи ушли бы снова. {saved_ru} Остановлено, больше ничего \
             не отправляется: запустите clientbank снова (журнал будет создан заново)"
        )))
    }

    /// Copies the write-ahead log into the journal file (`wal_checkpoint(TRUNCATE)`); whether
    /// all of it was copied.
    fn checkpoint(&self) -> bool {
        match &self.db {
            Store::Sqlite(db) => db
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                    r.get::<_, i64>(0)
                })
                .map(|busy| busy == 0)
                .unwrap_or(false),
            Store::Postgres(_) => true,
        }
    }

    fn err(&self) -> impl Fn(DbError) -> Error + '_ {
        db_error(&self.label)
    }

    /// Reads (or writes one statement), errors said with the journal's place.
    fn run<T: Send>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, DbError> + Send,
    ) -> Result<T, Error> {
        self.db.run(f).map_err(self.err())
    }

    /// Writes in one durable transaction.
    fn write<T: Send>(
        &mut self,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, DbError> + Send,
    ) -> Result<T, Error> {
        self.db.write(f).map_err(db_error(&self.label))
    }

    /// Writes in one durable transaction, only while this daemon holds the folder's lease
    /// (PostgreSQL; see [`Journal::take_lease`]): intents, send marks, and every change of a
    /// file's or a payment's state that is not the bank's answer (an answer had is recorded
    /// whoever holds the lease: it is the truth, and it is never a send).
    fn write_leased<T: Send>(
        &mut self,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, DbError> + Send,
    ) -> Result<T, Error> {
        self.db.write_leased(f).map_err(db_error(&self.label))
    }

    /// The file row whose place is `place` and whose state is `processing`.
    pub fn processing_file(&self, place: &str) -> Result<Option<FileRow>, Error> {
        self.files_where(
            "place = ?1 AND state = ?2 ORDER BY id DESC LIMIT 1",
            values![place, FileState::Processing],
        )
        .map(|rows| rows.into_iter().next())
    }

    fn files_where(&self, condition: &str, params: &[Value]) -> Result<Vec<FileRow>, Error> {
        let sql = format!("SELECT {} FROM files WHERE {condition}", FileRow::COLUMNS);
        self.run(|db| db.map(&sql, params, FileRow::from_row))
    }

    /// Every file row in `state`.
    pub fn files_in(&self, state: FileState) -> Result<Vec<FileRow>, Error> {
        self.files_where("state = ?1 ORDER BY id", values![state])
    }

    /// The last file row at `place` (any state).
    pub fn file_at(&self, place: &str) -> Result<Option<FileRow>, Error> {
        self.files_where("place = ?1 ORDER BY id DESC LIMIT 1", values![place])
            .map(|rows| rows.into_iter().next())
    }

    /// The payments of a file, in file order.
    pub fn payments_of(&self, file_id: i64) -> Result<Vec<PaymentRow>, Error> {
        self.payments_where("file_id = ?1 ORDER BY position", values![file_id])
    }

    fn payments_where(&self, condition: &str, params: &[Value]) -> Result<Vec<PaymentRow>, Error> {
        let sql = format!(
            "SELECT {} FROM payments WHERE {condition}",
            PaymentRow::COLUMNS
        );
        self.run(|db| db.map(&sql, params, PaymentRow::from_row))
    }

    /// A payment with this identity that is at the bank (uploaded), or may be (sending, in
    /// doubt), other than in `except_file` (for reports; the decisions are taken inside the
    /// journal's transactions).
    pub fn known_identity(
        &self,
        identity: &str,
        except_file: Option<i64>,
    ) -> Result<Option<PaymentRow>, Error> {
        let rows = self.payments_where(
            "identity = ?1 AND state IN (?3, ?4, ?5) AND file_id != ?2
             ORDER BY state = ?3 DESC, id LIMIT 1",
            values![
                identity,
                except_file.unwrap_or(-1),
                PaymentState::Uploaded,
                PaymentState::Sending,
                PaymentState::Doubt
            ],
        )?;
        Ok(rows.into_iter().next())
    }

    /// The file row `id`.
    pub fn file(&self, id: i64) -> Result<Option<FileRow>, Error> {
        self.files_where("id = ?1", values![id])
            .map(|rows| rows.into_iter().next())
    }

    /// How many payments of file `file_id` are in `state`.
    pub fn count_of(&self, file_id: i64, state: PaymentState) -> Result<usize, Error> {
        let n: Option<i64> = self.run(|db| {
            db.one(
                "SELECT COUNT(*) FROM payments WHERE file_id = ?1 AND state = ?2",
                values![file_id, state],
            )
        })?;
        Ok(n.map_or(0, |n| usize::try_from(n).unwrap_or(0)))
    }

    /// Every payment in `state`.
    pub fn payments_in(&self, state: PaymentState) -> Result<Vec<PaymentRow>, Error> {
        self.payments_where("state = ?1 ORDER BY id", values![state])
    }

    /// The database's size in pages (SQLite; 0 in PostgreSQL).
    pub fn page_count(&self) -> Result<u32, Error> {
        match &self.db {
            Store::Sqlite(db) => db
                .query_row("PRAGMA page_count", [], |r| r.get(0))
                .map_err(|e| self.err()(e.into())),
            Store::Postgres(_) => Ok(0),
        }
    }

    /// Limits the database's size (`PRAGMA max_page_count`, SQLite): tests make "the disk is
    /// full" with it.
    pub fn limit_pages(&self, pages: u32) -> Result<(), Error> {
        match &self.db {
            Store::Sqlite(db) => db
                .pragma_update(None, "max_page_count", pages)
                .map_err(|e| self.err()(e.into())),
            Store::Postgres(_) => Ok(()),
        }
    }

    /// Payments awaiting signature.
    pub fn awaiting_signature(&self) -> Result<Vec<PaymentRow>, Error> {
        self.payments_where(
            "state = ?1 AND sign = ?2 AND bank_id IS NOT NULL ORDER BY id",
            values![PaymentState::Uploaded, SignState::Awaiting],
        )
    }

    /// Every payment (for status and tests).
    pub fn all_payments(&self) -> Result<Vec<PaymentRow>, Error> {
        self.payments_where("TRUE ORDER BY id", &[])
    }

    /// How many payment rows are in each state (counted by the database, no row read).
    pub fn payments_by_state(&self) -> Result<Vec<(PaymentState, usize)>, Error> {
        self.run(|db| {
            db.map(
                "SELECT state, COUNT(*) FROM payments GROUP BY state",
                &[],
                |r| Ok((r.get(0)?, usize::try_from(r.get::<i64>(1)?).unwrap_or(0))),
            )
        })
    }

    /// The payments among `ids` whose identity is active in another row, with what each
    /// becomes: (row id, state, bank id, message).
    pub fn conflicts(&self, ids: &[i64]) -> Result<Vec<(i64, Outcome)>, Error> {
        self.run(|db| {
            let mut out = Vec::new();
            for &id in ids {
                if let Some(active) = active_for(db, id)? {
                    out.push((id, active.blocks()));
                }
            }
            Ok(out)
        })
    }

    /// Records the outcomes of payments (their answers, or states a person or the daemon
    /// decided), in one durable transaction.
    pub fn record_outcomes(&mut self, results: &[(i64, Outcome)]) -> Result<(), Error> {
        self.record_and_mark(results, &[]).map(drop)
    }

    /// Marks payments `sending`, in one durable transaction, before they are sent: a payment
    /// is marked on disk before its request goes out. A payment whose identity is active in
    /// another row is not marked (checked again here, at send time): it becomes `already`,
    /// `held` or `queued`. Returns the ids marked.
    pub fn mark_sending(&mut self, ids: &[i64]) -> Result<Vec<i64>, Error> {
        self.record_and_mark(&[], ids)
    }

    /// Records one payment's outcome and marks the next one `sending`, in one durable
    /// transaction (one fsync per payment sent, not two). Whether `next` was marked.
    pub fn record_outcome_and_mark_next(
        &mut self,
        result: (i64, Outcome),
        next: Option<i64>,
    ) -> Result<bool, Error> {
        let marked = self.record_and_mark(&[result], next.as_slice())?;
        Ok(next.is_some() && marked == next.as_slice())
    }

    /// [`Journal::record_outcomes`] and [`Journal::mark_sending`] in one transaction. A mark
    /// needs the journal's files whole and (PostgreSQL) the folder's lease: without them, the
    /// answers had are still recorded, and nothing is marked, so nothing more is sent.
    fn record_and_mark(
        &mut self,
        results: &[(i64, Outcome)],
        sending: &[i64],
    ) -> Result<Vec<i64>, Error> {
        if sending.is_empty() {
            return self.write(|db| record_results(db, results).map(|()| Vec::new()));
        }
        if let Err(e) = self.check_files() {
            // The answers already had are kept (saved into the journal file itself), then
            // nothing more is marked, so nothing more is sent.
            if !results.is_empty() {
                self.record_and_mark(results, &[])?;
                self.checkpoint();
            }
            return Err(e);
        }
        let bank = self.bank.clone().filter(|_| !self.bank_recorded);
        let marked = self.write_leased(|db| {
            record_results(db, results)?;
            if let Some(bank) = &bank {
                banks::record_bank(db, bank)?;
            }
            mark(db, sending)
        });
        if let Err(Error::LeaseLost(_)) = &marked
            && !results.is_empty()
        {
            self.record_and_mark(results, &[])?;
        }
        if marked.is_ok() && bank.is_some() {
            self.bank_recorded = true;
        }
        marked
    }

    /// Sets a payment's state back (a send the bank provably did not take), or sets its
    /// message.
    pub fn set_payment(
        &mut self,
        id: i64,
        state: PaymentState,
        message: Option<&str>,
    ) -> Result<(), Error> {
        self.write_leased(|db| {
            db.exec(
                "UPDATE payments SET state = ?2, message = COALESCE(?3, message), updated_at = ?4
                 WHERE id = ?1",
                values![id, state, message, now()],
            )
        })
        .map(drop)
    }

    /// Closes the payments of a file that are still `planned` (the file leaves for review/ or
    /// rejected/ before they were sent): `not-sent`, so that their identities are no longer
    /// active in this file and the same payments can go from another file (or from this one
    /// when it comes back through the inbox).
    pub fn close_planned(&mut self, file_id: i64, message: &str) -> Result<(), Error> {
        self.write_leased(|db| {
            db.exec(
                "UPDATE payments SET state = ?4, message = COALESCE(message, ?2),
                    updated_at = ?3
                 WHERE file_id = ?1 AND state = ?5",
                values![
                    file_id,
                    message,
                    now(),
                    PaymentState::NotSent,
                    PaymentState::Planned
                ],
            )
        })
        .map(drop)
    }

    /// Records the result of signing: `signed` for the ids taken, or the bank's message for
    /// ids that stay awaiting signature.
    pub fn record_signature(
        &mut self,
        bank_ids: &[String],
        signed: bool,
        message: &str,
    ) -> Result<(), Error> {
        self.record_sign_state(bank_ids, signed.then_some(SignState::Signed), message)
    }

    /// Records the answer to a signature of payments awaiting one: their new sign state
    /// (`None`: still awaiting, only the message changes).
    pub fn record_sign_state(
        &mut self,
        bank_ids: &[String],
        state: Option<SignState>,
        message: &str,
    ) -> Result<(), Error> {
        let now = now();
        self.write(|db| {
            for id in bank_ids {
                db.exec(
                    "UPDATE payments SET sign = COALESCE(?4, sign), message = ?2, updated_at = ?3
                     WHERE bank_id = ?1 AND sign = ?5",
                    values![id, message, &now, state, SignState::Awaiting],
                )?;
            }
            Ok(())
        })
    }

    /// Sets a file's state, place and message.
    pub fn set_file(
        &mut self,
        id: i64,
        state: FileState,
        place: &str,
        message: Option<&str>,
    ) -> Result<(), Error> {
        self.write_leased(|db| {
            db.exec(
                "UPDATE files SET state = ?2, place = ?3, message = COALESCE(?4, message),
                    updated_at = ?5 WHERE id = ?1",
                values![id, state, place, message, now()],
            )
        })
        .map(drop)
    }

    /// Records a file that never got as far as its payments (rejected as a whole).
    pub fn record_file(
        &mut self,
        name: &str,
        hash: &str,
        place: &str,
        state: FileState,
        message: &str,
    ) -> Result<i64, Error> {
        let now = now();
        self.write_leased(|db| {
            db.insert(
                "INSERT INTO files (name, hash, place, state, created_at, updated_at, message)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6)",
                values![name, hash, place, state, now, message],
            )
        })
    }
}

/// Records payments' outcomes.
fn record_results(db: &mut dyn Sql, results: &[(i64, Outcome)]) -> Result<(), DbError> {
    let now = now();
    for (id, outcome) in results {
        let uploaded_at = (outcome.state == PaymentState::Uploaded).then_some(&now);
        db.exec(
            "UPDATE payments SET state = ?2, bank_id = COALESCE(?3, bank_id),
                sign = COALESCE(?4, sign), answer = COALESCE(?5, answer),
                message = COALESCE(?6, message),
                uploaded_at = COALESCE(?7, uploaded_at), updated_at = ?8
             WHERE id = ?1",
            values![
                *id,
                outcome.state,
                outcome.bank_id.as_deref(),
                outcome.sign,
                outcome.answer.as_deref(),
                outcome.message.as_deref(),
                uploaded_at,
                &now
            ],
        )?;
    }
    Ok(())
}

/// The active row of payment `id`'s identity in another row, if any.
fn active_for(db: &mut dyn Sql, id: i64) -> Result<Option<Active>, DbError> {
    let identity: Option<String> =
        db.one("SELECT identity FROM payments WHERE id = ?1", values![id])?;
    match identity {
        Some(identity) => active_elsewhere(db, &identity, Some(id)),
        None => Ok(None),
    }
}

/// Marks payments `sending` whose identity is active nowhere else; the others become what the
/// active row makes them. The ids marked.
fn mark(db: &mut dyn Sql, sending: &[i64]) -> Result<Vec<i64>, DbError> {
    let now = now();
    let mut marked = Vec::with_capacity(sending.len());
    for &id in sending {
        if let Some(active) = active_for(db, id)? {
            intents::set_outcome(db, id, &active.blocks(), &now)?;
            continue;
        }
        let changed = db.exec(
            "UPDATE payments SET state = ?3, updated_at = ?2 WHERE id = ?1",
            values![id, &now, PaymentState::Sending],
        )?;
        if changed == 1 {
            marked.push(id);
        }
    }
    Ok(marked)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A schema-1 journal in which the old defect left one payment active in two files (and
    /// one uploaded twice) opens as schema 2: one active row each, the numbers normalised.
    #[test]
    fn schema_1_with_duplicates_is_brought_forward() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.sqlite");
        {
            let db = rusqlite::Connection::open(&path).unwrap();
            db.execute_batch(schema::SCHEMA_1).unwrap();
            db.pragma_update(None, "user_version", 1).unwrap();
            db.execute_batch(
                "INSERT INTO files (id, name, hash, place, state, created_at, updated_at)
                    VALUES (1, 'a', 'h', 'done/a', 'done', 't', 't'),
                           (2, 'b', 'h', 'processing/b', 'processing', 't', 't');
                 INSERT INTO payments (file_id, position, identity, payer_account, number, date,
                    sum, recipient, recipient_account, state, updated_at) VALUES
                    (2, 0, 'p|0402|d|1|r', 'p', '0402', 'd', '1', 'x', 'r', 'planned', 't'),
                    (1, 0, 'p|402|d|1|r', 'p', '402', 'd', '1', 'x', 'r', 'uploaded', 't'),
                    (1, 1, 'p|7|d|1|r', 'p', '7', 'd', '1', 'x', 'r', 'uploaded', 't'),
                    (2, 1, 'p|7|d|1|r', 'p', '7', 'd', '1', 'x', 'r', 'uploaded', 't');",
            )
            .unwrap();
        }
        let journal = Journal::open(&path, false).unwrap();
        let rows = journal.all_payments().unwrap();
        let states: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r.payment.identity.as_str(), r.outcome.state.as_str()))
            .collect();
        assert_eq!(
            states,
            [
                ("p|402|d|1|r", "held"),
                ("p|402|d|1|r", "uploaded"),
                ("p|7|d|1|r", "uploaded"),
                ("p|7|d|1|r", "duplicate"),
            ]
        );
        assert_eq!(journal.db.version().unwrap(), SCHEMA_VERSION);
    }
}
