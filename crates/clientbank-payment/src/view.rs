//! A payment borrowed: [`Payment`] with its texts as `&str`, so that a payment read from a 1C
//! file can be checked without a `String` per field (the texts stay in the file's bytes or in
//! one buffer per document). The rules run on the view as on an owned payment; the owned
//! [`Payment`] is made from it only where it is kept (an upload request, the daemon's
//! journal).

use crate::payment::{AccountHolder, Bank, Budget, Payment, ThirdParty};

/// [`Payment`], borrowed.
pub(crate) type PaymentView<'a> = Payment<&'a str>;
/// [`AccountHolder`], borrowed.
pub(crate) type HolderView<'a> = AccountHolder<&'a str>;
/// [`Bank`], borrowed.
pub(crate) type BankView<'a> = Bank<&'a str>;
/// [`Budget`], borrowed.
pub(crate) type BudgetView<'a> = Budget<&'a str>;
/// [`ThirdParty`], borrowed.
pub(crate) type ThirdPartyView<'a> = ThirdParty<&'a str>;

impl PaymentView<'_> {
    /// The owned payment: a `String` per text.
    pub(crate) fn to_payment(&self) -> Payment {
        let owned = |v: Option<&str>| v.map(str::to_owned);
        let holder = |h: &HolderView<'_>| AccountHolder {
            account: owned(h.account),
            inn: owned(h.inn),
            kpp: owned(h.kpp),
            name: owned(h.name),
            bank: Bank {
                bik: owned(h.bank.bik),
                corr_account: owned(h.bank.corr_account),
                name: owned(h.bank.name),
                city: owned(h.bank.city),
            },
        };
        let budget = |b: &BudgetView<'_>| Budget {
            payer_status: owned(b.payer_status),
            kbk: owned(b.kbk),
            oktmo: owned(b.oktmo),
            basis: owned(b.basis),
            period: owned(b.period),
            number: owned(b.number),
            date: owned(b.date),
            payment_type: owned(b.payment_type),
        };
        Payment {
            number: owned(self.number),
            date: self.date,
            sum: self.sum,
            payer: holder(&self.payer),
            recipient: holder(&self.recipient),
            purpose: owned(self.purpose),
            uin: owned(self.uin),
            priority: owned(self.priority),
            operation_kind: owned(self.operation_kind),
            purpose_code: owned(self.purpose_code),
            budget: self.budget.as_ref().map(budget),
            deduction_inn: owned(self.deduction_inn),
            third_party: self.third_party.as_ref().map(|t| ThirdParty {
                name: t.name.to_owned(),
                inn: t.inn.to_owned(),
                kpp: t.kpp.to_owned(),
            }),
        }
    }
}
