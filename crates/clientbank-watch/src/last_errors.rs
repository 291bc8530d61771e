//! What the daemon notes for `clientbank status` ("last errors"), in English and Russian, and
//! when it forgets it (issue 19 item 8): the errors of a file once it reaches done/, the
//! statement's once a statement is written, a company's signing errors once its payments are
//! signed, the bank's unavailability once it answers again.

use clientbank_format::Message;

use crate::Error;
use crate::folders::{Folder, Layout};
use crate::journal::Journal;

/// The topic of the statement's errors.
pub(crate) const STATEMENT: &str = "statement";

/// The topic of the bank's unavailability: noted when a run of failed uploads begins,
/// forgotten when the bank answers again.
pub(crate) const BANK: &str = "bank";

/// `file` is not sent yet (`why`: the bank did not take it, or cannot be reached): it waits in
/// processing/.
pub(crate) fn bank_unavailable(file: &str, why: &Message) -> Message {
    Message::new(
        format!(
            "{file} is not sent yet ({}): it waits in processing/ and is sent when the bank takes \
             it",
            why.en()
        ),
        format!(
            "{file} пока не отправлен ({}): файл ждёт в processing/ и будет отправлен, когда \
             банк его примет",
            why.ru()
        ),
    )
}

/// The topic of the signing errors of a company.
pub(crate) fn sign_topic(company: &str) -> String {
    format!("sign {company}")
}

/// A file went to rejected/ or review/ (`place` is `rejected/NAME` or `review/NAME`).
pub(crate) fn moved_to(place: &str) -> Message {
    let rejected = Layout::folder_of(place) == Some(Folder::Rejected);
    let (note, en, ru) = if rejected {
        ("errors.txt", "nothing was sent", "ничего не отправлено")
    } else {
        (
            "review.txt",
            "a person decides: clientbank resolve",
            "решает человек: clientbank resolve",
        )
    };
    Message::new(
        format!("moved to {place}: {en} (see {place}.{note})"),
        format!("перенесён в {place}: {ru} (см. {place}.{note})"),
    )
}

/// The statement could not be brought up to date.
pub(crate) fn statement_failed(e: &Error) -> Message {
    let said = e.message();
    Message::new(
        format!("the statement was not brought up to date: {}", said.en()),
        format!("выписка не обновлена: {}", said.ru()),
    )
}

/// Why a company's payments were not signed (`en` the English the journal keeps per payment).
pub(crate) fn sign_failed(en: &str, why: Unsigned<'_>) -> Message {
    let ru = match why {
        Unsigned::Signer(e) => format!("подпись не сделана: {}", e.message().ru()),
        Unsigned::Refused(message) => format!("банк отклонил подпись: {message}"),
        Unsigned::NotAwaiting(message) => format!(
            "не подписано: банк больше не ждёт подписи этого платежа ({message}); возможно, он \
             уже подписан (прежним запуском, чей ответ потерян, или в кабинете) или отменён: \
             посмотрите его в кабинете банка. На подпись он больше не предлагается"
        ),
        Unsigned::Failed(e) => format!("подпись не отправлена: {}", e.message().ru()),
    };
    Message::new(en.to_string(), ru)
}

/// What kept a signature from the bank.
pub(crate) enum Unsigned<'a> {
    /// The signer command failed.
    Signer(&'a clientbank_bank::Error),
    /// The bank refused the signature.
    Refused(&'a str),
    /// The bank no longer awaits a signature of the payment.
    NotAwaiting(&'a str),
    /// Anything else between here and the bank.
    Failed(&'a clientbank_api::Error),
}

/// A file reached done/ (named `name` before, `final_name` now): its errors are fixed.
pub(crate) fn forget_fixed(
    journal: &mut Journal,
    name: &str,
    final_name: &str,
) -> Result<(), Error> {
    journal.forget_file(name)?;
    if final_name != name {
        journal.forget_file(final_name)?;
    }
    Ok(())
}
