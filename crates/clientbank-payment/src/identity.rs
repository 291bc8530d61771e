//! What tells one payment from another: the key a journal records a payment under, so that
//! the same payment dropped again is never sent twice.

use std::fmt;

use chrono::NaiveDate;
use rust_decimal::Decimal;

use crate::payment::Payment;

/// What identifies a payment at the bank: payer account, number (normalised: `0402` and `402`
/// are one number), date, sum (normalised: `1500`, `1500.0` and `1500.00` are one sum) and
/// recipient account; texts trimmed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Identity {
    /// The payer's account.
    pub payer_account: String,
    /// The document number ([`normalise_number`]).
    pub number: String,
    /// The document date.
    pub date: Option<NaiveDate>,
    /// The sum.
    pub sum: Option<Decimal>,
    /// The recipient's account.
    pub recipient_account: String,
}

impl Identity {
    /// The identity of a payment.
    pub fn of(p: &Payment) -> Identity {
        let text = |v: &Option<String>| v.as_deref().unwrap_or("").trim().to_string();
        Identity {
            payer_account: text(&p.payer.account),
            number: normalise_number(p.number.as_deref().unwrap_or("")),
            date: p.date,
            sum: p.sum.map(|s| s.normalize()),
            recipient_account: text(&p.recipient.account),
        }
    }

    /// The journal's key: `payer|number|YYYY-MM-DD|sum|recipient`.
    pub fn key(&self) -> String {
        format!(
            "{}|{}|{}|{}|{}",
            self.payer_account,
            self.number,
            self.date.map(|d| d.to_string()).unwrap_or_default(),
            self.sum.map(|s| s.to_string()).unwrap_or_default(),
            self.recipient_account
        )
    }
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = |v: &str| if v.is_empty() { "?" } else { v }.to_string();
        write!(
            f,
            "№ {} of {} for {} from {} to {}",
            text(&self.number),
            self.date
                .map_or_else(|| "?".into(), clientbank_format::value::format_date),
            self.sum.map_or_else(|| "?".into(), |s| s.to_string()),
            text(&self.payer_account),
            text(&self.recipient_account)
        )
    }
}

/// A document number as the identity holds it: trimmed, and an all-digit number without its
/// leading zeros (`0402` is `402`, `000` is `0`); any other number as written.
pub fn normalise_number(number: &str) -> String {
    let number = number.trim();
    if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) {
        let stripped = number.trim_start_matches('0');
        if stripped.is_empty() { "0" } else { stripped }.to_string()
    } else {
        number.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_one_with_or_without_leading_zeros() {
        assert_eq!(normalise_number(" 0402 "), "402");
        assert_eq!(normalise_number("000"), "0");
        assert_eq!(normalise_number("А-0402"), "А-0402");
        assert_ne!(normalise_number("4020"), normalise_number("402"));
    }

    #[test]
    fn one_payment_written_two_ways_has_one_key() {
        let a = Payment {
            number: Some("0402".into()),
            sum: Some(Decimal::new(150000, 2)),
            ..Payment::default()
        };
        let mut b = a.clone();
        b.number = Some(" 402".into());
        b.sum = Some(Decimal::new(1500, 0));
        assert_eq!(Identity::of(&a).key(), Identity::of(&b).key());
        b.sum = Some(Decimal::new(1501, 0));
        assert_ne!(Identity::of(&a).key(), Identity::of(&b).key());
    }
}
