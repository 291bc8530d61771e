//! The payment order as the bank and the tax authority understand it.

use chrono::NaiveDate;
pub use clientbank_format::Budget;
use rust_decimal::Decimal;

/// Which rules a payment order follows. It follows from the data: see [`Payment::kind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A commercial payment.
    Ordinary,
    /// A payment to the budget (tax, contribution, fee): fields 101–109 are filled.
    Budget,
    /// A budget payment made for somebody else (107n, since 2017).
    ThirdParty,
}

impl Kind {
    /// `ordinary`, `budget` or `third-party`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Ordinary => "ordinary",
            Kind::Budget => "budget",
            Kind::ThirdParty => "third-party",
        }
    }
}

/// A bank: BIK, correspondent account, name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bank<T = String> {
    /// Fields 11/14.
    pub bik: Option<T>,
    /// Fields 12/15.
    pub corr_account: Option<T>,
    /// Fields 10/13: the bank's name (`…Банк1`).
    pub name: Option<T>,
    /// The bank's city (`…Банк2`).
    pub city: Option<T>,
}

/// One side of a payment: who holds the account the money leaves or reaches.
///
/// For the payer the bank knows all of it from the account; the JSON request carries the
/// account only.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccountHolder<T = String> {
    /// Fields 9/17.
    pub account: Option<T>,
    /// Fields 60/61 (a third-party payment puts the third party's INN in field 60).
    pub inn: Option<T>,
    /// Fields 102/103.
    pub kpp: Option<T>,
    /// Fields 8/16.
    pub name: Option<T>,
    /// Fields 10–12/13–15.
    pub bank: Bank<T>,
}

/// The person whose obligation a third-party payment settles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThirdParty<T = String> {
    /// Name.
    pub name: T,
    /// INN (field 60 in the payment order).
    pub inn: T,
    /// KPP (field 102), `0` for a person.
    pub kpp: T,
}

/// One payment order (платёжное поручение). Its texts are `String`s; the rules read a payment
/// whose texts are borrowed (`Payment<&str>`), made without a `String` per field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Payment<T = String> {
    /// Field 3.
    pub number: Option<T>,
    /// Field 4.
    pub date: Option<NaiveDate>,
    /// Field 7.
    pub sum: Option<Decimal>,
    /// The sender.
    pub payer: AccountHolder<T>,
    /// The receiver.
    pub recipient: AccountHolder<T>,
    /// Field 24.
    pub purpose: Option<T>,
    /// Field 22, the UIN; `None` is written `0`.
    pub uin: Option<T>,
    /// Field 21; `None` is the usual `5`.
    pub priority: Option<T>,
    /// Field 18; `None` is `01`, a payment order.
    pub operation_kind: Option<T>,
    /// Field 20.
    pub purpose_code: Option<T>,
    /// Fields 101, 104–110, as written (`0` where the rules say there is no value), when the
    /// payment goes to the budget.
    pub budget: Option<Budget<T>>,
    /// For deductions from a salary (status `19`): the INN of the person they are made for
    /// (field 60 in the payment order, `PayerInn` in JSON).
    pub deduction_inn: Option<T>,
    /// Whose obligation is paid, when it is not the payer's own.
    pub third_party: Option<ThirdParty<T>>,
}

impl<T> Payment<T> {
    /// The kind follows from the data: a third party makes it [`Kind::ThirdParty`], budget
    /// fields make it [`Kind::Budget`], anything else is [`Kind::Ordinary`].
    pub fn kind(&self) -> Kind {
        if self.third_party.is_some() {
            Kind::ThirdParty
        } else if self.budget.is_some() {
            Kind::Budget
        } else {
            Kind::Ordinary
        }
    }
}

/// The requisites of the single tax payment (ЕНП) that the FNS publishes (docs/rules.md §4.9).
pub mod enp {
    /// Payee INN (field 61).
    pub const INN: &str = "7727406020";
    /// Payee KPP (field 103), since December 2025.
    pub const KPP: &str = "770701001";
    /// Payee KPP before December 2025.
    pub const OLD_KPP: &str = "770801001";
    /// Payee bank BIK (field 14).
    pub const BIK: &str = "017003983";
    /// Payee bank account, the single treasury account (field 15).
    pub const CORR_ACCOUNT: &str = "40102810445370000059";
    /// Payee account (field 17).
    pub const ACCOUNT: &str = "03100643000000018500";
    /// KBK (field 104).
    pub const KBK: &str = "18201061201010000510";
}
