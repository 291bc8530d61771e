//! Intents recorded before anything is sent: a file's payments planned (or held, where the same payment is active elsewhere), files seeded from reports, files requeued.

use super::store::DbError;
use super::*;

/// Inserts one payment row of file `file_id` in `outcome` (its state, bank id and message);
/// its row id.
pub(super) fn insert_payment(
    tx: &mut dyn Sql,
    file_id: i64,
    position: usize,
    p: &NewPayment,
    outcome: &Outcome,
    now: &str,
) -> Result<i64, DbError> {
    tx.insert(
        "INSERT INTO payments (file_id, position, identity, payer_account, number, date, sum,
            recipient, recipient_account, company, state, bank_id, message, order_text,
            updated_at, number_written)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        values![
            file_id,
            position,
            &p.payment.identity,
            &p.payment.payer_account,
            &p.payment.number,
            &p.payment.date,
            &p.payment.sum,
            &p.payment.recipient,
            &p.payment.recipient_account,
            p.payment.company.as_deref(),
            outcome.state,
            outcome.bank_id.as_deref(),
            outcome.message.as_deref(),
            p.order.as_deref(),
            now,
            p.payment.number_written.as_deref()
        ],
    )
}

/// Sets payment `id` to `outcome`: its state, bank id and message.
pub(super) fn set_outcome(
    db: &mut dyn Sql,
    id: i64,
    outcome: &Outcome,
    now: &str,
) -> Result<(), DbError> {
    db.exec(
        "UPDATE payments SET state = ?2, bank_id = ?3, message = ?4, updated_at = ?5
         WHERE id = ?1",
        values![
            id,
            outcome.state,
            outcome.bank_id.as_deref(),
            outcome.message.as_deref(),
            now
        ],
    )?;
    Ok(())
}

/// Inserts a file row; its id.
fn insert_file(
    tx: &mut dyn Sql,
    file: NewFile<'_>,
    (state, route, message): (FileState, Option<Route>, Option<&str>),
    now: &str,
) -> Result<i64, DbError> {
    tx.insert(
        "INSERT INTO files (name, hash, place, state, route, created_at, updated_at, message)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7)",
        values![
            file.name,
            file.hash,
            file.place,
            state,
            route.map(Route::as_str),
            now,
            message
        ],
    )
}

impl Journal {
    /// Records a file and its payments (the intents) in one durable transaction. A payment
    /// planned whose identity is active in another file is not planned: `already` (that one is
    /// at the bank), `held` (that one is in doubt) or `queued` (that one waits to be sent:
    /// this one waits for it). The check and the insert are one IMMEDIATE transaction (in
    /// PostgreSQL, one under the folder's lock, and only while this daemon holds the folder's
    /// lease), and the UNIQUE index over active identities backs it. On the 1C route the file
    /// goes to the bank whole, so when any of its payments is not planned, none is. Returns
    /// the file's row id and the payments' row ids.
    pub fn record_intents(
        &mut self,
        file: NewFile<'_>,
        route: Route,
        payments: &[NewPayment],
    ) -> Result<(i64, Vec<i64>), Error> {
        let whole = route == Route::OneC;
        let now = now();
        self.write_leased(|tx| {
            let row = (FileState::Processing, Some(route), None);
            let file_id = insert_file(tx, file, row, &now)?;
            let mut rows: Vec<Outcome> = Vec::with_capacity(payments.len());
            for p in payments {
                let mut row = p.outcome.clone();
                if p.outcome.state == PaymentState::Planned
                    && let Some(active) = active_elsewhere(tx, &p.payment.identity, None)?
                {
                    row = active.blocks();
                }
                rows.push(row);
            }
            if whole && rows.iter().any(|r| r.state != PaymentState::Planned) {
                for row in rows.iter_mut().filter(|r| r.state == PaymentState::Planned) {
                    *row = Outcome::said(
                        PaymentState::Held,
                        "not sent: other payments of this 1C file are already at the bank or \
                         elsewhere, and the 1C route sends whole files; send this one alone (or \
                         from a JSON file)",
                    );
                }
            }
            let mut ids = Vec::with_capacity(payments.len());
            for (position, (p, row)) in payments.iter().zip(&rows).enumerate() {
                ids.push(insert_payment(tx, file_id, position, p, row, &now)?);
            }
            Ok((file_id, ids))
        })
    }

    /// Records a file found in done/, review/ or rejected/ when a journal is started anew: each
    /// payment in its own `state` (`uploaded`, with the id of its report where known; `doubt`;
    /// or `not-sent`), each one at the bank or in doubt whose identity is already active as
    /// `already` or `held` instead. Returns how many payments were recorded at the bank or in
    /// doubt.
    pub fn seed_file(
        &mut self,
        file: NewFile<'_>,
        file_state: FileState,
        payments: &[NewPayment],
        message: &str,
    ) -> Result<usize, Error> {
        let now = now();
        self.write_leased(|tx| {
            let file_id = insert_file(tx, file, (file_state, None, Some(message)), &now)?;
            let mut taken = 0;
            for (position, p) in payments.iter().enumerate() {
                let state = p.outcome.state;
                let active = if state == PaymentState::NotSent {
                    None
                } else {
                    active_elsewhere(tx, &p.payment.identity, None)?
                };
                let row = match active {
                    Some(active) => {
                        let mut row = active.blocks();
                        if row.state == PaymentState::Queued {
                            row.state = PaymentState::Held;
                        }
                        row
                    }
                    None if state == PaymentState::NotSent => Outcome {
                        state,
                        message: p.outcome.message.clone(),
                        ..Outcome::default()
                    },
                    None => {
                        taken += 1;
                        Outcome {
                            state,
                            bank_id: p.outcome.bank_id.clone(),
                            message: Some(message.to_string()),
                            ..Outcome::default()
                        }
                    }
                };
                insert_payment(tx, file_id, position, p, &row, &now)?;
            }
            Ok(taken)
        })
    }

    /// Looks again at the `queued` payments of a file, in one transaction: a payment whose
    /// identity is no longer active elsewhere becomes `planned` (it is sent from this file);
    /// one now at the bank elsewhere becomes `already`, one in doubt elsewhere `held`; the
    /// others stay queued. Returns how many stay queued.
    pub fn requeue(&mut self, file_id: i64) -> Result<usize, Error> {
        let now = now();
        self.write_leased(|tx| {
            let queued: Vec<(i64, String)> = tx.map(
                "SELECT id, identity FROM payments WHERE file_id = ?1 AND state = ?2",
                values![file_id, PaymentState::Queued],
                |r| r.columns(0),
            )?;
            let mut still = 0;
            for (id, identity) in queued {
                let row = match active_elsewhere(tx, &identity, Some(id))? {
                    Some(active) => active.blocks(),
                    None => Outcome::default(),
                };
                if row.state == PaymentState::Queued {
                    still += 1;
                    continue;
                }
                set_outcome(tx, id, &row, &now)?;
            }
            Ok(still)
        })
    }
}

/// What blocks a payment: the active row of its identity in another file.
pub(super) struct Active {
    pub(super) state: PaymentState,
    pub(super) bank_id: Option<String>,
    pub(super) uploaded_at: Option<String>,
    pub(super) place: String,
}

/// The active row of `identity` other than `except` (a payment row id), with its file's place.
pub(super) fn active_elsewhere(
    db: &mut dyn Sql,
    identity: &str,
    except: Option<i64>,
) -> Result<Option<Active>, DbError> {
    let row = db.row(
        &format!(
            "SELECT p.state, p.bank_id, p.uploaded_at, f.place FROM payments p
             JOIN files f ON f.id = p.file_id
             WHERE p.identity = ?1 AND p.id != ?2 AND p.state IN {active}
             ORDER BY p.state = ?3 DESC, p.id LIMIT 1",
            active = PaymentState::active_sql()
        ),
        values![identity, except.unwrap_or(-1), PaymentState::Uploaded],
    )?;
    row.map(|r| {
        let (state, bank_id, uploaded_at, place) = r.columns(0)?;
        Ok(Active {
            state,
            bank_id,
            uploaded_at,
            place,
        })
    })
    .transpose()
}

impl Active {
    /// What a payment whose identity is active here becomes: its state, bank id and message.
    pub(super) fn blocks(&self) -> Outcome {
        let (place, place_ru) = if self.place.is_empty() {
            ("another file".to_string(), "другом файле".to_string())
        } else {
            (self.place.clone(), self.place.clone())
        };
        match self.state {
            PaymentState::Uploaded => Outcome {
                bank_id: self.bank_id.clone(),
                ..Outcome::said(
                    PaymentState::Already,
                    note::both(
                        format!(
                            "already at the bank: id {} (uploaded {})",
                            self.bank_id.as_deref().unwrap_or("not named"),
                            self.uploaded_at.as_deref().map_or("earlier".into(), |at| {
                                moscow_moment(at, "%Y-%m-%d %H:%M:%S MSK")
                            })
                        ),
                        format!(
                            "уже в банке: id {} (загружен {})",
                            self.bank_id.as_deref().unwrap_or("не назван"),
                            self.uploaded_at.as_deref().map_or("раньше".into(), |at| {
                                moscow_moment(at, "%d.%m.%Y %H:%M:%S МСК")
                            })
                        ),
                    ),
                )
            },
            PaymentState::Doubt => Outcome::said(
                PaymentState::Held,
                note::both(
                    format!(
                        "not sent: the same payment may already be at the bank (it is in doubt \
                         in {place}); resolve that file first"
                    ),
                    format!(
                        "не отправлен: этот же платёж, возможно, уже в банке (он под сомнением в \
                         {place_ru}); сначала решите судьбу того файла"
                    ),
                ),
            ),
            _ => Outcome::said(
                PaymentState::Queued,
                note::both(
                    format!(
                        "the same payment is in {place}, waiting for the bank: sent once (this \
                         file waits for it)"
                    ),
                    format!(
                        "этот же платёж в {place_ru} ждёт банка: он будет отправлен один раз \
                         (этот файл ждёт его)"
                    ),
                ),
            ),
        }
    }
}

/// A moment the journal keeps (UTC, RFC 3339) as the bank and its customers say it: in Moscow
/// time, in `format`; as it is when it is no such moment.
fn moscow_moment(at: &str, format: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(at).map_or_else(
        |_| at.to_string(),
        |at| {
            let at = at.with_timezone(&clientbank_payment::clock::MOSCOW);
            at.format(format).to_string()
        },
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_moment_is_said_in_moscow_time() {
        let at = "2026-11-26T13:17:56Z";
        assert_eq!(
            super::moscow_moment(at, "%d.%m.%Y %H:%M:%S МСК"),
            "26.11.2026 16:17:56 МСК"
        );
        assert_eq!(
            super::moscow_moment("2026-12-31T22:00:00Z", "%Y-%m-%d %H:%M:%S MSK"),
            "2027-01-01 01:00:00 MSK"
        );
        assert_eq!(super::moscow_moment("earlier", "%d.%m.%Y"), "earlier");
    }
}
