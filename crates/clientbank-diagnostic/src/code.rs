//! The one registry of finding codes of the workspace.

use std::fmt;

use crate::Severity;

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $severity:ident, $fatal:literal; )*) => {
        /// What a finding is about: a stable kebab-case name that users filter by. Every code of
        /// the workspace — the format reader's, the payment rules', a JSON upload's — is here,
        /// once.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code { $( $(#[$doc])* $variant, )* }

        impl Code {
            /// Every code, in the order of this registry.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The stable kebab-case name.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// The severity outside strict mode.
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }

            /// Whether the input is refused on this finding (it is not read at all: exit 2).
            pub fn is_fatal(self) -> bool {
                match self { $(Code::$variant => $fatal,)* }
            }
        }
    };
}

codes! {
    // --- The 1C format reader: refusals. ---
    /// The input has no bytes.
    EmptyInput = "empty-input", Error, true;
    /// Line 1 is not `1CClientBankExchange`.
    NotAnExchangeFile = "not-an-exchange-file", Error, true;
    /// Lines in two different encodings.
    MixedEncoding = "mixed-encoding", Error, true;
    /// U+FFFD in the text: it was destroyed by a lossy conversion before it reached us.
    ReplacementCharacter = "replacement-character", Error, true;
    /// A zero byte in a line: the file was damaged (zero-filled by a crash or a copy cut
    /// short) or is not a text file; no 1C program writes one.
    NulByte = "nul-byte", Error, true;
    /// Larger than the in-memory reader holds (4 GiB); the streaming reader has no limit.
    TooLarge = "too-large", Error, true;
    /// A file that cannot be read at all (an I/O error).
    Io = "io", Error, true;
    // --- The 1C format reader: findings. ---
    /// The bytes are in another encoding than `Кодировка` says.
    EncodingMismatch = "encoding-mismatch", Warning, false;
    /// `Кодировка` is not `Windows` or `DOS` but a known alias.
    NonstandardEncodingLabel = "nonstandard-encoding-label", Warning, false;
    /// `Кодировка` names no encoding we know.
    UnknownEncodingLabel = "unknown-encoding-label", Warning, false;
    /// `ВерсияФормата` is not 1.01, 1.02 or 1.03.
    UnsupportedVersion = "unsupported-version", Error, false;
    /// A key the section needs is absent.
    MissingKey = "missing-key", Warning, false;
    /// A key that is not in the 1.03 format.
    UnknownKey = "unknown-key", Warning, false;
    /// A known key spelled in another letter case.
    KeyCase = "key-case", Warning, false;
    /// A known key in a section where it does not belong.
    KeyInWrongSection = "key-in-wrong-section", Warning, false;
    /// A `Key=Value` line between sections.
    KeyOutsideSection = "key-outside-section", Warning, false;
    /// A key that may stand once stands again.
    DuplicateKey = "duplicate-key", Error, false;
    /// Spaces around a key or a marker.
    StraySpaces = "stray-spaces", Warning, false;
    /// A line that is neither a marker nor `Key=Value`.
    LineWithoutEquals = "line-without-equals", Warning, false;
    /// A section that is not closed by its end marker.
    UnclosedSection = "unclosed-section", Warning, false;
    /// An end marker with no section open, or of the other kind.
    UnexpectedEndMarker = "unexpected-end-marker", Warning, false;
    /// A second `1CClientBankExchange` line.
    RepeatedStartMarker = "repeated-start-marker", Warning, false;
    /// No `КонецФайла`.
    MissingEndOfFile = "missing-end-of-file", Warning, false;
    /// Text after `КонецФайла` (1C ignores it).
    ContentAfterEndOfFile = "content-after-end-of-file", Warning, false;
    /// `СекцияДокумент` without a document type.
    EmptyDocumentType = "empty-document-type", Warning, false;
    /// Line endings other than CRLF (reported once per file).
    LineEnding = "line-ending", Warning, false;
    /// Blank lines (reported once per file).
    BlankLine = "blank-line", Warning, false;
    /// A date that is not `ДД.ММ.ГГГГ` or not in the calendar.
    InvalidDate = "invalid-date", Error, false;
    /// A time that is not `ЧЧ:ММ:СС`.
    InvalidTime = "invalid-time", Error, false;
    /// A time written `ЧЧ.ММ.СС`.
    TimeWithDots = "time-with-dots", Warning, false;
    /// An amount that is not `руб[.коп]`.
    InvalidSum = "invalid-sum", Error, false;
    /// A number of days that is not a whole number.
    InvalidInteger = "invalid-integer", Error, false;
    /// Closing balance ≠ opening + credited − debited.
    BalanceMismatch = "balance-mismatch", Warning, false;
    /// `ДатаНачала` after `ДатаКонца`.
    PeriodReversed = "period-reversed", Warning, false;
    /// A key the section needs stands with no value (`Сумма=`).
    EmptyValue = "empty-value", Warning, false;
    /// A value whose bytes read as words in the other single-byte encoding and as mojibake in
    /// the file's.
    ValueInOtherEncoding = "value-in-other-encoding", Warning, false;
    // --- Payments: the rules. ---
    /// A field the bank needs is empty.
    Missing = "missing", Error, false;
    /// The document number is not 1–6 digits, or is zero.
    NumberInvalid = "number-invalid", Error, false;
    /// The document number is longer than the form's six digits.
    NumberLong = "number-long", Warning, false;
    /// The date is after today.
    DateInFuture = "date-in-future", Warning, false;
    /// The date is more than ten days ago: the bank takes a payment order for ten days.
    DateStale = "date-stale", Warning, false;
    /// The sum is zero or negative.
    SumNotPositive = "sum-not-positive", Error, false;
    /// The sum has more than two decimals or more than 18 digits.
    SumPrecision = "sum-precision", Error, false;
    /// An INN that is not 10 or 12 digits (5, 10 or 12 for a budget payer).
    InnFormat = "inn-format", Error, false;
    /// An INN whose check digit is wrong.
    InnCheckDigit = "inn-check-digit", Error, false;
    /// An INN starting with `00` in a budget payment.
    InnZeroPrefix = "inn-zero-prefix", Error, false;
    /// A KPP that is not `NNNNPPNNN` (or `0` where allowed).
    KppFormat = "kpp-format", Error, false;
    /// A KPP starting with `00` in a budget payment.
    KppZeroPrefix = "kpp-zero-prefix", Error, false;
    /// A BIK that is not nine digits starting with `0`.
    BikFormat = "bik-format", Error, false;
    /// An account that is not 20 digits.
    AccountFormat = "account-format", Error, false;
    /// An account whose control key disagrees with the bank's BIK.
    AccountKey = "account-key", Error, false;
    /// A treasury account (`03…`) without the structure of one.
    TreasuryAccount = "treasury-account", Error, false;
    /// A correspondent account that is not `301…` (or the treasury's `40102…`).
    CorrAccountFormat = "corr-account-format", Error, false;
    /// A budget payment's UIN that is not `0`, 20 or 25 digits, or is all zeros.
    UinFormat = "uin-format", Error, false;
    /// A UIN whose check digit is wrong.
    UinCheckDigit = "uin-check-digit", Error, false;
    /// Field 22 of an ordinary payment holding something other than a valid UIN: the payee's
    /// own payment identifier, which has no check digit.
    PayeeIdentifier = "payee-identifier", Warning, false;
    /// A KBK that is not 20 digits or is all zeros.
    KbkFormat = "kbk-format", Error, false;
    /// A KBK with the template administrator `000`.
    KbkTemplate = "kbk-template", Warning, false;
    /// An OKTMO that is not 8 or 11 digits (or `0`).
    OktmoFormat = "oktmo-format", Error, false;
    /// A payer status that is not two digits of 107n's list.
    PayerStatusInvalid = "payer-status-invalid", Error, false;
    /// A payer status removed in 2021 (`09`–`12`).
    PayerStatusRemoved = "payer-status-removed", Error, false;
    /// A basis of payment (field 106) not in 107n's list.
    BasisInvalid = "basis-invalid", Error, false;
    /// A tax period (field 107) not in 107n's forms.
    PeriodInvalid = "period-invalid", Error, false;
    /// A basis document number (field 108) that is too long, contains `№`, or is `0` where the
    /// basis needs one.
    DocNumberInvalid = "doc-number-invalid", Error, false;
    /// A basis document date (field 109) that is neither `ДД.ММ.ГГГГ` nor `0`.
    DocDateInvalid = "doc-date-invalid", Error, false;
    /// A budget field left empty: 107n wants `0` when there is no value.
    BudgetPlaceholder = "budget-placeholder", Warning, false;
    /// A payment to a treasury revenue account (`03100…`) without budget fields.
    BudgetFieldsMissing = "budget-fields-missing", Warning, false;
    /// Field 110 filled: it is obsolete since 2015.
    PaymentTypeObsolete = "payment-type-obsolete", Warning, false;
    /// A single tax payment (ЕНП) whose requisites differ from the ones the FNS publishes.
    EnpRequisite = "enp-requisite", Error, false;
    /// A single tax payment with an outdated or unusual, but not wrong, requisite.
    EnpOutdated = "enp-outdated", Warning, false;
    /// A payment to the single tax payment's account with a KBK that does not go there: another
    /// administrator's, or (since 2024) a tax that is paid only as the ЕНП.
    EnpKbk = "enp-kbk", Error, false;
    /// A payment to the single tax payment's account with an FNS KBK that neither the ЕНП nor
    /// the FNS's list of payments outside it settles.
    EnpKbkUnsure = "enp-kbk-unsure", Warning, false;
    /// A KBK whose administrator (digits 1–3) is not the payee's, the payee known by its INN.
    KbkPayee = "kbk-payee", Error, false;
    /// A KBK whose administrator is not the one the payee's name points to.
    KbkPayeeUnsure = "kbk-payee-unsure", Warning, false;
    /// A payer status (field 101) that the KBK's administrator does not take (a customs payment
    /// with a taxpayer's status, a tax payment with a customs status).
    PayerStatusKbk = "payer-status-kbk", Error, false;
    /// A customs payment with a payer status the published customs lists do not name.
    PayerStatusKbkUnsure = "payer-status-kbk-unsure", Warning, false;
    /// An organisation's budget payment with field 102 (its KPP) empty.
    PayerKppMissing = "payer-kpp-missing", Error, false;
    /// A payment to a federal custody account (`03212…`, a court's deposit) without the code of
    /// the legal act (код НПА) in field 22.
    NpaCode = "npa-code", Error, false;
    /// A payment to a treasury account that is not budget revenue whose fields 22 or 104–110 the
    /// payee's own rules decide: what to check with the payee.
    NonRevenueTreasury = "non-revenue-treasury", Warning, false;
    /// A third-party payment whose purpose does not start with `ИНН//КПП//name//`.
    ThirdPartyPurpose = "third-party-purpose", Warning, false;
    /// A third-party payment that 107n does not allow (a tax agent's payment).
    ThirdPartyNotAllowed = "third-party-not-allowed", Warning, false;
    /// The salary-deduction INN given with a payer status other than `19`.
    DeductionInnStatus = "deduction-inn-status", Warning, false;
    /// Field 21 is not one digit 1–5.
    PriorityInvalid = "priority-invalid", Error, false;
    /// Field 21 other than 5 for an ordinary or a voluntary tax payment.
    PriorityUnusual = "priority-unusual", Warning, false;
    /// Field 20 other than one digit 1–5.
    PurposeCodeInvalid = "purpose-code-invalid", Error, false;
    /// Field 18 other than `01` in a payment order.
    OperationKindUnusual = "operation-kind-unusual", Warning, false;
    /// The purpose is longer than 210 characters.
    PurposeTooLong = "purpose-too-long", Error, false;
    /// A name longer than 160 characters.
    NameTooLong = "name-too-long", Error, false;
    /// A line break, tab or other control character in any field: a 1C file cannot hold it.
    ControlCharacter = "control-character", Error, false;
    /// A character the 1C file's encoding (CP1251, or the one asked for) cannot hold.
    Unrepresentable = "unrepresentable-character", Error, false;
    /// A commercial payment whose purpose does not mention VAT (Tax Code art. 168).
    VatNotMentioned = "vat-not-mentioned", Warning, false;
    /// The VAT amount in the purpose does not match the sum and rate.
    VatAmount = "vat-amount", Warning, false;
    /// A code with spaces around it.
    Whitespace = "whitespace", Warning, false;
    // --- Payments: the mapping and the JSON upload. ---
    /// A 1C key that the payment (or the JSON upload request) cannot carry; the bank will not
    /// see it.
    NotCarried = "not-carried", Warning, false;
    /// A document that is not a payment order; it is not converted or uploaded.
    NotAPaymentOrder = "not-a-payment-order", Warning, false;
    /// A payer's requisite (INN, KPP, name, bank) that a 1C payment order needs but the JSON
    /// upload request does not carry, and no `--payer-from` file gave: the keys are written
    /// empty.
    PayerUnknown = "payer-unknown", Warning, false;
    /// The payee's bank name (`ПолучательБанк1`), which a JSON upload request does not carry
    /// (the bank takes it from the BIK): the 1C file holds the key empty.
    RecipientBankUnknown = "recipient-bank-unknown", Warning, false;
    /// A JSON field that the upload request does not have.
    UnknownField = "unknown-field", Warning, false;
    /// JSON that is not an upload request (or an array of them), or a value of the wrong form;
    /// JSON that is no upload at all (not UTF-8, a syntax error) is refused with it.
    JsonInvalid = "json-invalid", Error, false;
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Code {
    type Err = ();

    /// A code by its stable name.
    fn from_str(name: &str) -> Result<Code, ()> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == name)
            .ok_or(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_unique_kebab_case_and_listed_in_the_readme() {
        let mut names: Vec<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
        for name in &names {
            assert!(
                !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{name}"
            );
        }
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a code stands twice");
        let readme = include_str!("../../../README.md");
        let unlisted: Vec<_> = names
            .iter()
            .filter(|name| !readme.contains(&format!("`{name}`")))
            .collect();
        assert!(unlisted.is_empty(), "codes not in README.md: {unlisted:?}");
        for code in Code::ALL {
            assert_eq!(code.as_str().parse::<Code>(), Ok(*code));
        }
    }
}
