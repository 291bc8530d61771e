//! The errors `clientbank status` shows (issue 19 item 8): each in English and Russian, and
//! forgotten once what went wrong has gone right (the file reached done/, the statement was
//! brought up to date, the company's payments were signed).
//!
//! An error is noted with its file, or with a topic when it belongs to no file (`statement`,
//! `sign COMPANY`). Forgetting marks it fixed (`fixed_at`); `last_events` shows the unfixed.

use super::store::values;
use super::{Journal, now};
use crate::Error;
use clientbank_format::Message;

/// One error not yet fixed: when (UTC), the file it is of, what (both languages). In JSON an
/// array `[at, file, message]`, the message in English, as before the Russian was kept.
#[derive(Clone, Debug)]
pub struct LastError {
    /// When, in UTC (`2026-11-16T09:30:00Z`).
    pub at: String,
    /// The file it is of, if any.
    pub file: Option<String>,
    /// What went wrong.
    pub message: Message,
}

impl serde::Serialize for LastError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (&self.at, &self.file, self.message.en()).serialize(serializer)
    }
}

impl Journal {
    /// Notes an error for `clientbank status`, of `file` or of `topic`, in both languages.
    pub fn note(
        &mut self,
        file: Option<&str>,
        topic: Option<&str>,
        message: &Message,
    ) -> Result<(), Error> {
        self.run(|db| {
            db.exec(
                "INSERT INTO events (at, file, message, message_ru, topic)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                values![now(), file, message.en(), message.ru(), topic],
            )
        })?;
        Ok(())
    }

    /// The errors of `file` are fixed: it reached done/.
    pub fn forget_file(&mut self, file: &str) -> Result<(), Error> {
        self.forget("file", file)
    }

    /// The errors of `topic` are fixed: the same work went well since.
    pub fn forget_topic(&mut self, topic: &str) -> Result<(), Error> {
        self.forget("topic", topic)
    }

    fn forget(&mut self, column: &str, value: &str) -> Result<(), Error> {
        let sql =
            format!("UPDATE events SET fixed_at = ?1 WHERE fixed_at IS NULL AND {column} = ?2");
        self.run(|db| db.exec(&sql, values![now(), value]))?;
        Ok(())
    }

    /// The last `n` errors not fixed, newest first (an error noted before the Russian was kept
    /// shows its English in both).
    pub fn last_events(&self, n: usize) -> Result<Vec<LastError>, Error> {
        let rows = self.run(|db| {
            db.map(
                "SELECT at, file, message, message_ru FROM events WHERE fixed_at IS NULL
                 ORDER BY id DESC LIMIT ?1",
                values![n],
                |r| {
                    Ok((
                        r.get::<String>(0)?,
                        r.get(1)?,
                        r.get::<String>(2)?,
                        r.get(3)?,
                    ))
                },
            )
        })?;
        let rows = rows
            .into_iter()
            .map(
                |(at, file, en, ru): (String, Option<String>, String, Option<String>)| LastError {
                    at,
                    file,
                    message: Message::new(en.clone(), ru.unwrap_or(en)),
                },
            )
            .collect();
        Ok(rows)
    }
}
