//! The banks a journal's payments were sent to. A payment the journal holds as sent is never
//! sent again; so a journal that sent to a sandbox (the built-in bank of `--sandbox`, or the
//! bank's sandbox mode) must never be used with the real bank, nor the other way round: its
//! payments would be taken for sent where they never were.

use clientbank_bank::config::BankKind;
use clientbank_format::{Message, tr};

use super::store::{DbError, Sql, values};
use super::{Journal, now};
use crate::Error;

/// The bank payments go to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bank {
    /// Its address (`bank_url`).
    pub address: String,
    /// What kind of bank it is.
    pub kind: BankKind,
}

impl Bank {
    /// Whether payments sent to `self` may not be taken for sent to `other`: another kind, or
    /// the bank on this machine (a sandbox bank of `clientbank sandbox`, or a proxy) and one
    /// elsewhere. The same kind at another address of the same sort is the bank moved.
    fn is_other_than(&self, other: &Bank) -> bool {
        self.kind != other.kind || self.on_this_machine() != other.on_this_machine()
    }

    fn on_this_machine(&self) -> bool {
        self.kind == BankKind::Real && clientbank_api::on_this_machine(&self.address)
    }

    /// What it is, for people: its kind, and for the bank, whether it is on this machine.
    fn described(&self) -> Message {
        if self.on_this_machine() {
            Message::new(
                "a bank on this machine (the sandbox bank of `clientbank sandbox`, or a proxy)",
                "банк на этой машине (тестовый банк `clientbank sandbox` или прокси)",
            )
        } else {
            self.kind.message()
        }
    }
}

impl Journal {
    /// Sets the bank the payments this journal marks `sending` go to: recorded (and checked
    /// against the banks recorded) with the first mark after it is set, in its transaction.
    pub fn send_to(&mut self, bank: Option<Bank>) {
        if self.bank != bank {
            self.bank = bank;
            self.bank_recorded = false;
        }
    }

    /// Refuses `bank` when payments of this journal went to a bank of another kind; see
    /// [`Journal::send_to`]. Nothing is written.
    pub fn check_bank(&self, bank: &Bank) -> Result<(), Error> {
        let label = self.label.clone();
        let recorded = self.run(recorded_banks)?;
        match recorded.into_iter().find(|used| used.is_other_than(bank)) {
            Some(used) => Err(other_kind(&label, &used, bank)),
            None => Ok(()),
        }
    }
}

/// The banks recorded.
fn recorded_banks(db: &mut dyn Sql) -> Result<Vec<Bank>, DbError> {
    let rows = db.map(
        "SELECT address, kind FROM banks ORDER BY address",
        &[],
        |r| Ok((r.get::<String>(0)?, r.get::<String>(1)?)),
    )?;
    rows.into_iter()
        .map(|(address, kind)| match BankKind::from_name(&kind) {
            Some(kind) => Ok(Bank { address, kind }),
            None => Err(DbError::Value(format!("a bank of kind {kind:?}"))),
        })
        .collect()
}

/// Records `bank` in the transaction that marks payments `sending`; refuses (nothing marked,
/// so nothing sent) when payments went to a bank of another kind.
pub(super) fn record_bank(db: &mut dyn Sql, bank: &Bank) -> Result<(), DbError> {
    if let Some(used) = recorded_banks(db)?
        .into_iter()
        .find(|u| u.is_other_than(bank))
    {
        return Err(DbError::OtherBank {
            used: Box::new(used),
            now: Box::new(bank.clone()),
        });
    }
    db.exec(
        "INSERT INTO banks (address, kind, first_used_at) VALUES (?1, ?2, ?3)
         ON CONFLICT DO NOTHING",
        values![bank.address.as_str(), bank.kind.as_str(), now()],
    )?;
    Ok(())
}

/// The refusal of a bank of another kind than the one the journal's payments went to.
pub(super) fn other_kind(label: &str, used: &Bank, now: &Bank) -> Error {
    let (was, is): (Message, Message) = (used.described(), now.described());
    let (used_at, now_at) = (&used.address, &now.address);
    Error::JournalRefused(tr!(
        "{label} records payments sent to {} ({used_at}); this run sends to {} ({now_at}). A \
         payment the journal holds as sent is never sent again, though it is not at this bank. \
         Work with this bank in a folder of its own: a new one (`clientbank init NEWDIR`), or \
         move this folder's .clientbank/, done/, rejected/ and review/ away first",
        was.en(), is.en() ;
        "{label} хранит платежи, отправленные по адресу {used_at}, — это {}; этот запуск \
         отправляет по адресу {now_at}, — это {}. Платёж, который журнал считает отправленным, повторно не отправляется, хотя \
         в этом банке его нет. Работайте с этим банком в отдельной папке: новой (`clientbank \
         init НОВАЯ_ПАПКА`) или сначала уберите из этой папки .clientbank/, done/, rejected/ и \
         review/",
        was.ru(), is.ru()
    ))
}
