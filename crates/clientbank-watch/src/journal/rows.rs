//! The journal's rows as Rust values: a file, a payment, what identifies it and what became of
//! it ([`Outcome`]), read in the order of their columns; and what is recorded of a new file and
//! payment.

use super::store::{DbError, Row};
use crate::state::{FileState, PaymentState, SignState};
use clientbank_bank::config::Route;

/// A file row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRow {
    /// Row id.
    pub id: i64,
    /// The name as dropped.
    pub name: String,
    /// SHA-256 of the content, hex.
    pub hash: String,
    /// Where it is now, relative to DIR (`processing/a.txt`), or the path given to `upload`.
    pub place: String,
    /// Where it is in its life.
    pub state: FileState,
    /// How its payments went: [`Route::Json`] or [`Route::OneC`].
    pub route: Option<Route>,
    /// When it was first recorded.
    pub created_at: String,
    /// What a person should know.
    pub message: Option<String>,
}

/// What a payment is, as recorded: what identifies it at the bank and what people read of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Requisites {
    /// [`clientbank_payment::identity::Identity::key`].
    pub identity: String,
    /// Payer account.
    pub payer_account: String,
    /// The number as payments are matched by
    /// ([`clientbank_payment::identity::normalise_number`]: `0402` is `402`).
    pub number: String,
    /// The number as the file wrote it, where that differs from `number` (`0402`): what people
    /// read ([`Requisites::shown_number`]).
    pub number_written: Option<String>,
    /// Date, `ДД.ММ.ГГГГ`.
    pub date: String,
    /// Sum.
    pub sum: String,
    /// Recipient name.
    pub recipient: String,
    /// Recipient account.
    pub recipient_account: String,
    /// The company (name and INN) that owns the payer account, when known.
    pub company: Option<String>,
}

impl Requisites {
    /// The number as people read it: as the file wrote it.
    pub fn shown_number(&self) -> &str {
        self.number_written.as_deref().unwrap_or(&self.number)
    }
}

/// A payment row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaymentRow {
    /// Row id.
    pub id: i64,
    /// The file's row id.
    pub file_id: i64,
    /// Position in the file (0-based).
    pub position: i64,
    /// What the payment is.
    pub payment: Requisites,
    /// What became of it.
    pub outcome: Outcome,
    /// When the bank took it.
    pub uploaded_at: Option<String>,
}

#[cfg(test)]
impl PaymentRow {
    /// A row of file 1, for tests: payment `number` (its identity too) at position `id - 1`,
    /// in `state`, nothing else known.
    pub(crate) fn example(id: i64, number: &str, state: PaymentState) -> PaymentRow {
        PaymentRow {
            id,
            file_id: 1,
            position: id - 1,
            payment: Requisites {
                identity: number.into(),
                number: number.into(),
                ..Requisites::default()
            },
            outcome: Outcome {
                state,
                ..Outcome::default()
            },
            uploaded_at: None,
        }
    }
}

/// A file to record.
#[derive(Clone, Copy, Debug)]
pub struct NewFile<'a> {
    /// Its name, as dropped.
    pub name: &'a str,
    /// SHA-256 of its content, hex.
    pub hash: &'a str,
    /// Where it is, relative to DIR (`processing/a.txt`), or the path given to `upload`.
    pub place: &'a str,
}

/// A payment to record as an intent.
#[derive(Clone, Debug, Default)]
pub struct NewPayment {
    /// What the payment is.
    pub payment: Requisites,
    /// What it starts in: `planned`; or `already` or `held`, with the bank's id and a message
    /// (its state, bank id and message are recorded with the intent).
    pub outcome: Outcome,
    /// The order as its file had it: a one-document 1.03 file in UTF-8
    /// ([`clientbank_bank::statement::order_text`]); what the statement gives back to 1C.
    pub order: Option<String>,
}

impl FileRow {
    /// The columns of `files` a [`FileRow`] is read from, in its order.
    pub(super) const COLUMNS: &str = "id, name, hash, place, state, route, created_at, message";

    /// The row of a `SELECT` of [`FileRow::COLUMNS`].
    pub(super) fn from_row(r: &Row) -> Result<FileRow, DbError> {
        let (id, name, hash, place, state, route, created_at, message) = r.columns(0)?;
        Ok(FileRow {
            id,
            name,
            hash,
            place,
            state,
            route: route_of(route),
            created_at,
            message,
        })
    }
}

/// A file's route as recorded: one this version does not know reads as none.
fn route_of(recorded: Option<String>) -> Option<Route> {
    recorded.and_then(|route| route.parse().ok())
}

impl PaymentRow {
    /// The columns of `payments` a [`PaymentRow`] is read from, in its order.
    pub(super) const COLUMNS: &str = "id, file_id, position, identity, payer_account, number, \
        date, sum, recipient, recipient_account, company, state, bank_id, sign, answer, message, \
        uploaded_at, number_written";

    /// The row of a `SELECT` of [`PaymentRow::COLUMNS`].
    pub(super) fn from_row(r: &Row) -> Result<PaymentRow, DbError> {
        let (id, file_id, position) = r.columns(0)?;
        let (identity, payer_account, number, date, sum, recipient, recipient_account, company) =
            r.columns(3)?;
        let (state, bank_id, sign, answer, message, uploaded_at, number_written) = r.columns(11)?;
        let payment = Requisites {
            identity,
            payer_account,
            number,
            number_written,
            date,
            sum,
            recipient,
            recipient_account,
            company,
        };
        Ok(PaymentRow {
            id,
            file_id,
            position,
            payment,
            outcome: Outcome {
                state,
                bank_id,
                sign,
                answer,
                message,
            },
            uploaded_at,
        })
    }
}

/// What became of a payment: recorded after its upload ([`Journal::record_outcomes`]), read
/// back in its row, and what an intent starts in.
///
/// [`Journal::record_outcomes`]: super::Journal::record_outcomes
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Where the payment now is.
    pub state: PaymentState,
    /// The bank's id.
    pub bank_id: Option<String>,
    /// Its signing state, once uploaded.
    pub sign: Option<SignState>,
    /// The bank's raw answer.
    pub answer: Option<String>,
    /// What a person should know (the bank's message, "already at the bank: id X …").
    pub message: Option<String>,
}

impl Outcome {
    /// `state`, for the reason given.
    pub fn said(state: PaymentState, message: impl Into<String>) -> Outcome {
        Outcome {
            state,
            message: Some(message.into()),
            ..Outcome::default()
        }
    }

    /// In doubt, for the reason given: it may or may not be at the bank.
    pub fn doubt(message: impl Into<String>) -> Outcome {
        Outcome::said(PaymentState::Doubt, message)
    }
}
