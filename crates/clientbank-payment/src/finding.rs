//! Findings about payments: what a rule or a mapping found, where, and what to do about it.

use std::fmt;

use clientbank_format::{Key, Severity};

macro_rules! fields {
    ($( $(#[$doc:meta])* $variant:ident = $json:expr, $key:ident; )*) => {
        /// A field of a payment order, with its name in the bank's JSON (when it has one) and its
        /// 1C key.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Field { $( $(#[$doc])* $variant, )* }

        impl Field {
            /// Every field.
            pub const ALL: &'static [Field] = &[$(Field::$variant),*];

            /// The field's name in the JSON upload request, if the JSON route carries it.
            pub fn json(self) -> Option<&'static str> {
                match self { $(Field::$variant => $json,)* }
            }

            /// The 1C key that holds it.
            pub fn key(self) -> Key {
                match self { $(Field::$variant => Key::$key,)* }
            }
        }
    };
}

fields! {
    /// Field 3, the document number.
    Number = Some("Number"), Number;
    /// Field 4, the document date.
    Date = Some("Date"), Date;
    /// Field 7, the amount.
    Sum = Some("Sum"), Sum;
    /// Field 9, the payer's account.
    PayerAccount = Some("PayerAccount"), PayerAccount;
    /// Field 8, the payer's name.
    PayerName = None, Payer1;
    /// Field 60, the payer's INN.
    PayerInn = None, PayerInn;
    /// Field 102, the payer's KPP.
    PayerKpp = None, PayerKpp;
    /// Field 11, the payer bank's BIK.
    PayerBik = None, PayerBik;
    /// Field 12, the payer bank's correspondent account.
    PayerCorrAccount = None, PayerCorrAccount;
    /// Field 10, the payer's bank.
    PayerBankName = None, PayerBank1;
    /// The payer bank's city.
    PayerBankCity = None, PayerBank2;
    /// Field 13, the recipient's bank.
    RecipientBankName = None, RecipientBank1;
    /// The recipient bank's city.
    RecipientBankCity = None, RecipientBank2;
    /// Field 16, the recipient's name.
    RecipientName = Some("RecipientName"), Recipient1;
    /// Field 61, the recipient's INN.
    RecipientInn = Some("RecipientINN"), RecipientInn;
    /// Field 103, the recipient's KPP.
    RecipientKpp = Some("RecipientKPP"), RecipientKpp;
    /// Field 17, the recipient's account.
    RecipientAccount = Some("RecipientAccount"), RecipientAccount;
    /// Field 14, the recipient bank's BIK.
    RecipientBik = Some("RecipientBankBik"), RecipientBik;
    /// Field 15, the recipient bank's correspondent account.
    RecipientCorrAccount = Some("RecipientBankCorrAccount"), RecipientCorrAccount;
    /// Field 24, the purpose.
    Purpose = Some("PaymentPurpose"), Purpose;
    /// Field 22, the UIN (`Код`).
    Uin = Some("TypeIndicator"), Code;
    /// Field 18, the kind of operation (`01` for a payment order).
    OperationKind = None, OperationKind;
    /// Field 21, the priority.
    Priority = None, Priority;
    /// Field 20, the purpose code.
    PurposeCode = Some("PaymentPurposeCode"), PurposeCode;
    /// Field 101, the payer status.
    PayerStatus = Some("PayerStatus"), PayerStatus;
    /// Field 104, the KBK.
    Kbk = Some("KBK"), Kbk;
    /// Field 105, the OKTMO code.
    Oktmo = Some("OKTMO"), Oktmo;
    /// Field 106, the basis of payment.
    Basis = Some("PaymentBase"), Basis;
    /// Field 107, the tax period.
    Period = Some("Period"), Period;
    /// Field 108, the number of the basis document.
    BudgetDocNumber = Some("BudgetDocNumber"), BasisNumber;
    /// Field 109, the date of the basis document.
    BudgetDocDate = Some("BudgetDocDate"), BasisDate;
    /// Field 110, the payment type (obsolete).
    PaymentType = None, PaymentType;
    /// The INN of the person a salary deduction is made for (budget payments, status `19`).
    DeductionInn = Some("PayerInn"), PayerInn;
    /// The name of the third party whose obligation is paid.
    ThirdPartyName = Some("PayformDataThirdPerson.Name"), Purpose;
    /// The third party's INN.
    ThirdPartyInn = Some("PayformDataThirdPerson.INN"), PayerInn;
    /// The third party's KPP.
    ThirdPartyKpp = Some("PayformDataThirdPerson.KPP"), PayerKpp;
}

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $severity:ident; )*) => {
        /// What a finding is about: stable kebab-case names that users filter by.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code { $( $(#[$doc])* $variant, )* }

        impl Code {
            /// Every code.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The stable name.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// Error (blocks an upload) or warning (does not).
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }
        }
    };
}

codes! {
    /// A field the bank needs is empty.
    Missing = "missing", Error;
    /// The document number is not 1–6 digits, or is zero.
    NumberInvalid = "number-invalid", Error;
    /// The document number is longer than the form's six digits.
    NumberLong = "number-long", Warning;
    /// The date is after today.
    DateInFuture = "date-in-future", Warning;
    /// The date is more than ten days ago: the bank takes a payment order for ten days.
    DateStale = "date-stale", Warning;
    /// The sum is zero or negative.
    SumNotPositive = "sum-not-positive", Error;
    /// The sum has more than two decimals or more than 18 digits.
    SumPrecision = "sum-precision", Error;
    /// An INN that is not 10 or 12 digits (5, 10 or 12 for a budget payer).
    InnFormat = "inn-format", Error;
    /// An INN whose check digit is wrong.
    InnCheckDigit = "inn-check-digit", Error;
    /// An INN starting with `00` in a budget payment.
    InnZeroPrefix = "inn-zero-prefix", Error;
    /// A KPP that is not `NNNNPPNNN` (or `0` where allowed).
    KppFormat = "kpp-format", Error;
    /// A KPP starting with `00` in a budget payment.
    KppZeroPrefix = "kpp-zero-prefix", Error;
    /// A BIK that is not nine digits starting with `0`.
    BikFormat = "bik-format", Error;
    /// An account that is not 20 digits.
    AccountFormat = "account-format", Error;
    /// An account whose control key disagrees with the bank's BIK.
    AccountKey = "account-key", Error;
    /// A treasury account (`03…`) without the structure of one.
    TreasuryAccount = "treasury-account", Error;
    /// A correspondent account that is not `301…` (or the treasury's `40102…`).
    CorrAccountFormat = "corr-account-format", Error;
    /// A budget payment's UIN that is not `0`, 20 or 25 digits, or is all zeros.
    UinFormat = "uin-format", Error;
    /// A UIN whose check digit is wrong.
    UinCheckDigit = "uin-check-digit", Error;
    /// Field 22 of an ordinary payment holding something other than a valid UIN: the payee's
    /// own payment identifier, which has no check digit.
    PayeeIdentifier = "payee-identifier", Warning;
    /// A KBK that is not 20 digits or is all zeros.
    KbkFormat = "kbk-format", Error;
    /// A KBK with the template administrator `000`.
    KbkTemplate = "kbk-template", Warning;
    /// An OKTMO that is not 8 or 11 digits (or `0`).
    OktmoFormat = "oktmo-format", Error;
    /// A payer status that is not two digits of 107n's list.
    PayerStatusInvalid = "payer-status-invalid", Error;
    /// A payer status removed in 2021 (`09`–`12`).
    PayerStatusRemoved = "payer-status-removed", Error;
    /// A basis of payment (field 106) not in 107n's list.
    BasisInvalid = "basis-invalid", Error;
    /// A tax period (field 107) not in 107n's forms.
    PeriodInvalid = "period-invalid", Error;
    /// A basis document number (field 108) that is too long, contains `№`, or is `0` where the
    /// basis needs one.
    DocNumberInvalid = "doc-number-invalid", Error;
    /// A basis document date (field 109) that is neither `ДД.ММ.ГГГГ` nor `0`.
    DocDateInvalid = "doc-date-invalid", Error;
    /// A budget field left empty: 107n wants `0` when there is no value.
    BudgetPlaceholder = "budget-placeholder", Warning;
    /// A payment to a treasury revenue account (`03100…`) without budget fields.
    BudgetFieldsMissing = "budget-fields-missing", Warning;
    /// Field 110 filled: it is obsolete since 2015.
    PaymentTypeObsolete = "payment-type-obsolete", Warning;
    /// A single tax payment (ЕНП) whose requisites differ from the ones the FNS publishes.
    EnpRequisite = "enp-requisite", Error;
    /// A single tax payment with an outdated or unusual, but not wrong, requisite.
    EnpOutdated = "enp-outdated", Warning;
    /// A third-party payment whose purpose does not start with `ИНН//КПП//name//`.
    ThirdPartyPurpose = "third-party-purpose", Warning;
    /// A third-party payment that 107n does not allow (a tax agent's payment).
    ThirdPartyNotAllowed = "third-party-not-allowed", Warning;
    /// The salary-deduction INN given with a payer status other than `19`.
    DeductionInnStatus = "deduction-inn-status", Warning;
    /// Field 21 is not one digit 1–5.
    PriorityInvalid = "priority-invalid", Error;
    /// Field 21 other than 5 for an ordinary or a voluntary tax payment.
    PriorityUnusual = "priority-unusual", Warning;
    /// Field 20 other than one digit 1–5.
    PurposeCodeInvalid = "purpose-code-invalid", Error;
    /// Field 18 other than `01` in a payment order.
    OperationKindUnusual = "operation-kind-unusual", Warning;
    /// The purpose is longer than 210 characters.
    PurposeTooLong = "purpose-too-long", Error;
    /// A name longer than 160 characters.
    NameTooLong = "name-too-long", Error;
    /// A line break, tab or other control character in any field: a 1C file cannot hold it.
    ControlCharacter = "control-character", Error;
    /// A character the 1C file's encoding (CP1251, or the one asked for) cannot hold.
    Unrepresentable = "unrepresentable-character", Error;
    /// A commercial payment whose purpose does not mention VAT (Tax Code art. 168).
    VatNotMentioned = "vat-not-mentioned", Warning;
    /// The VAT amount in the purpose does not match the sum and rate.
    VatAmount = "vat-amount", Warning;
    /// A code with spaces around it.
    Whitespace = "whitespace", Warning;
    /// A 1C key that the JSON upload request cannot carry; the bank will not see it.
    NotCarried = "not-carried", Warning;
    /// A document that is not a payment order; it is not converted.
    NotAPaymentOrder = "not-a-payment-order", Warning;
    /// A payer's requisite (INN, KPP, name, bank) that a 1C payment order needs but the JSON
    /// upload request does not carry, and no `--payer-from` file gave: the keys are written
    /// empty.
    PayerUnknown = "payer-unknown", Warning;
    /// The payee's bank name (`ПолучательБанк1`), which a JSON upload request does not carry
    /// (the bank takes it from the BIK): the 1C file holds the key empty.
    RecipientBankUnknown = "recipient-bank-unknown", Warning;
    /// A JSON field that the upload request does not have.
    UnknownField = "unknown-field", Warning;
    /// JSON that is not an upload request (or an array of them).
    JsonInvalid = "json-invalid", Error;
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding about one payment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What it is about.
    pub code: Code,
    /// Error blocks an upload; warning does not.
    pub severity: Severity,
    /// The payment field, if the finding is about one.
    pub field: Option<Field>,
    /// The 1C key, if any (a field's key, or a key that has no field).
    pub key: Option<Key>,
    /// The payment's position among the payments of its input (0-based).
    pub payment: Option<usize>,
    /// The 1-based line in the 1C file, when the payment came from one.
    pub line: Option<u32>,
    /// The value found, as text.
    pub found: Option<String>,
    /// What to fix, for a person.
    pub message: String,
}

impl Finding {
    /// A finding about `field`.
    pub fn new(code: Code, field: Option<Field>, message: impl Into<String>) -> Finding {
        Finding {
            code,
            severity: code.severity(),
            field,
            key: field.map(Field::key),
            payment: None,
            line: None,
            found: None,
            message: message.into(),
        }
    }

    /// With the value found.
    pub fn found(mut self, found: impl Into<String>) -> Finding {
        self.found = Some(found.into());
        self
    }

    /// With the 1C key (when it is not the field's own).
    pub fn key(mut self, key: Key) -> Finding {
        self.key = Some(key);
        self
    }

    /// Whether it blocks an upload.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Where the finding is, for a person: the JSON field and 1C key.
    pub fn place(&self) -> String {
        let json = self.field.and_then(Field::json);
        match (json, self.key) {
            (Some(json), Some(key)) => format!("{json} ({})", key.name()),
            (Some(json), None) => json.to_string(),
            (None, Some(key)) => key.name().to_string(),
            (None, None) => String::new(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.severity.as_str(), self.code)?;
        if let Some(line) = self.line {
            write!(f, " at line {line}")?;
        }
        let place = self.place();
        if !place.is_empty() {
            write!(f, " {place}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Where each 1C key of a payment order stood in its file, for locating findings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lines {
    /// The line of `СекцияДокумент`.
    pub section: Option<u32>,
    /// The line of each key present.
    pub keys: Vec<(Key, u32)>,
}

impl Lines {
    /// The line of `key`, or of the section when the key is absent.
    pub fn of(&self, key: Key) -> Option<u32> {
        self.keys
            .iter()
            .find(|(k, _)| *k == key)
            .map(|&(_, line)| line)
            .or(self.section)
    }

    /// Locates findings: their line in the file, and which payment they are about.
    pub fn locate(&self, findings: &mut [Finding], payment: Option<usize>) {
        for finding in findings {
            if finding.line.is_none() {
                finding.line = match finding.key {
                    Some(key) => self.of(key),
                    None => self.section,
                };
            }
            finding.payment = finding.payment.or(payment);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case() {
        let mut names: Vec<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
        assert!(
            names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        );
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
    }

    #[test]
    fn json_names_are_unique() {
        let mut names: Vec<_> = Field::ALL.iter().filter_map(|f| f.json()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
    }

    #[test]
    fn lines_fall_back_to_the_section() {
        let lines = Lines {
            section: Some(10),
            keys: vec![(Key::Sum, 13)],
        };
        assert_eq!(lines.of(Key::Sum), Some(13));
        assert_eq!(lines.of(Key::Number), Some(10));
    }
}
