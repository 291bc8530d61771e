//! The orders this project uploaded, given back to 1C as 1C wrote them: kept as one-document text, found again for the bank's operation, completed from the bank's record.

use super::*;
use clientbank_payment::identity::normalise_number;

/// A payment order as a one-document 1.03 file in UTF-8: how the journal keeps the order, so
/// that the statement gives 1C back the order's own number, date and requisites
/// ([`order_from_text`] reads it). `None` when it cannot be written (the drop's findings say
/// why).
pub fn order_text(order: clientbank_format::Document) -> Option<String> {
    let exchange = clientbank_format::Exchange {
        header: clientbank_format::Header {
            version: Some("1.03".into()),
            ..clientbank_format::Header::default()
        },
        documents: vec![order],
        ..clientbank_format::Exchange::default()
    };
    let bytes = exchange.to_bytes(clientbank_format::Encoding::Utf8).ok()?;
    String::from_utf8(bytes).ok()
}

/// The order [`order_text`] wrote; `None` when the text is not one.
pub fn order_from_text(text: &str) -> Option<clientbank_format::Document> {
    let parsed = clientbank_format::parse(text.as_bytes()).ok()?;
    parsed.tree.to_exchange().documents.into_iter().next()
}

/// The order the journal kept of an outgoing `operation` of `account`, if this project
/// uploaded it.
pub(super) fn order_of(
    journal: &dyn Orders,
    operation: &Operation,
    account: &OwnAccount,
) -> Result<Option<Document>, Error> {
    let number = normalise_number(operation.doc_number.as_deref().unwrap_or(""));
    let sum = operation
        .amount
        .map(|s| format!("{s:.2}"))
        .unwrap_or_default();
    let recipient = operation
        .contragent_bank_account_number
        .as_deref()
        .unwrap_or("");
    let text = journal.order_of(&operation.id, [account.number(), &number, &sum, recipient])?;
    Ok(text.as_deref().and_then(order_from_text))
}

/// What `order` lacks, taken from the bank's record of the same party.
pub(super) fn fill_from(order: &mut Party, bank: Party) {
    fn keep(mine: &mut Option<String>, theirs: Option<String>) {
        if mine.as_deref().is_none_or(|v| v.trim().is_empty()) {
            *mine = theirs;
        }
    }
    keep(&mut order.account, bank.account);
    keep(&mut order.name, bank.name);
    keep(&mut order.inn, bank.inn);
    keep(&mut order.kpp, bank.kpp);
    keep(&mut order.settlement_account, bank.settlement_account);
    keep(&mut order.bank_name, bank.bank_name);
    keep(&mut order.bank_city, bank.bank_city);
    keep(&mut order.bik, bank.bik);
    keep(&mut order.corr_account, bank.corr_account);
    if order.lines.iter().all(Option::is_none) {
        order.lines = bank.lines;
    }
}
