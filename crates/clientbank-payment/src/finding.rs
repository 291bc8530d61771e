//! The fields of a payment, and where a payment order's keys stood in its 1C file: what
//! findings about payments are located by. The findings themselves are the workspace's one
//! [`Diagnostic`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use clientbank_diagnostic::{Code, Diagnostic, Message};
use clientbank_format::{Key, SectionRef, ValueAt};

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

impl Field {
    /// The field a finding is about, told by its JSON name and 1C key.
    pub fn of(finding: &Diagnostic) -> Option<Field> {
        let key = finding.key.as_deref()?;
        Field::ALL
            .iter()
            .copied()
            .find(|f| f.json() == finding.field && f.key().name() == key)
    }
}

/// A finding of `code` about `field` (its JSON name and 1C key), not located yet.
pub(crate) fn about(code: Code, field: Option<Field>, message: Message) -> Diagnostic {
    let mut finding = Diagnostic::new(code, message);
    if let Some(field) = field {
        finding = finding.key(field.key().name());
        if let Some(json) = field.json() {
            finding = finding.field(json);
        }
    }
    finding
}

/// Codes whose findings a caller only counts: those past its per-code limit
/// ([`clientbank_diagnostic::Limit`]). The rules give only the code of such a finding, which
/// the limit counts; the mapping makes its stand-in, with no message, value or place, which
/// the limit counts and drops like the finding itself.
/// A caller that keeps such a limit and drops none of a document's findings otherwise also
/// [limits](Quiet::limits) each document: what is past the limit within it is only counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Quiet {
    codes: u128,
    limits: bool,
}

impl Quiet {
    /// No code: every finding made whole.
    pub(crate) const NONE: Quiet = Quiet {
        codes: 0,
        limits: false,
    };

    /// Every code: each finding a stand-in (a document limited).
    pub(crate) const ALL: Quiet = Quiet {
        codes: u128::MAX,
        limits: true,
    };

    /// Whether findings of `code` are only counted.
    pub(crate) fn has(self, code: Code) -> bool {
        let bit = code as usize;
        bit < 128 && (self.codes >> bit) & 1 == 1
    }

    /// Whether the caller keeps a file's limit per code over every finding a document makes,
    /// so that those past it within a run of documents made in order may be counted rather
    /// than made ([`crate::onec::MADE_PER_RUN`]).
    pub(crate) fn limits(self) -> bool {
        self.limits
    }

    /// What stands for a finding of `code` that is only counted.
    pub(crate) fn stand_in(code: Code) -> Diagnostic {
        Diagnostic::new(code, Message::same(""))
    }
}

/// The codes a [`crate::batch::Findings`] has seen past their limit, shared with the threads
/// that make its items ahead of it: a code once quiet stays quiet.
#[derive(Debug, Default)]
pub(crate) struct QuietCodes([AtomicU64; 2]);

impl QuietCodes {
    /// `code` is past its limit from now on.
    pub(crate) fn add(&self, code: Code) {
        let bit = code as usize;
        if let Some(word) = self.0.get(bit / 64) {
            word.fetch_or(1 << (bit % 64), Ordering::Relaxed);
        }
    }

    /// The codes past their limit so far; each document limited (the limit is kept).
    pub(crate) fn get(&self) -> Quiet {
        let [low, high] = &self.0;
        Quiet {
            codes: u128::from(low.load(Ordering::Relaxed))
                | (u128::from(high.load(Ordering::Relaxed)) << 64),
            limits: true,
        }
    }
}

/// The 1-based position of the payment at 0-based `index`.
pub(crate) fn position(index: usize) -> u32 {
    u32::try_from(index).map_or(u32::MAX, |i| i.saturating_add(1))
}

/// Where each 1C key of a payment order stood in its file, for locating findings: built in
/// one pass over the section (only keys that are not the format's are decoded).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lines {
    /// The line of `СекцияДокумент`.
    section: Option<u32>,
    /// Where the first value of each known key stands, indexed by the key.
    keys: Vec<Option<ValueAt>>,
    /// Where the first value of each key that is not the format's stands, by name.
    unknown: HashMap<String, ValueAt>,
}

impl Lines {
    /// The places of a document section's keys, in one pass.
    pub fn of_section(section: &SectionRef<'_>) -> Lines {
        let mut lines = Lines::at_section(Some(section.line()).filter(|&l| l > 0));
        lines.keys = vec![None; Key::ALL.len()];
        for (key, at) in section.value_places() {
            if let Some(key) = key {
                lines.keys[key as usize].get_or_insert(at);
            }
        }
        for (name, at) in section.unknown_keys() {
            if !lines.unknown.contains_key(name.as_ref()) {
                lines.unknown.insert(name.into_owned(), at);
            }
        }
        lines
    }

    /// No keys located yet (nothing allocated); the section's line, if known.
    pub fn at_section(section: Option<u32>) -> Lines {
        Lines {
            section,
            keys: Vec::new(),
            unknown: HashMap::new(),
        }
    }

    /// Locates `findings` as [`Lines::locate`] does, looking the section's keys up first when
    /// one of them is about a key and they have not been looked up yet: once a section, and
    /// only when a finding needs a place. A finding of a code in `quiet` needs none: it is
    /// past its code's limit (only counted), and is left at the section's line.
    pub(crate) fn locate_in(
        &mut self,
        section: &SectionRef<'_>,
        findings: &mut [Diagnostic],
        payment: u32,
        quiet: Quiet,
    ) {
        let placed = |f: &Diagnostic| f.line.is_none() && f.key.is_some() && !quiet.has(f.code);
        if self.keys.is_empty() && findings.iter().any(placed) {
            *self = Lines::of_section(section);
        }
        self.locate(findings, payment);
    }

    /// The line of the section's marker.
    pub fn section(&self) -> Option<u32> {
        self.section
    }

    /// Where the value of `key` stands, when the section has it.
    pub fn of(&self, key: Key) -> Option<ValueAt> {
        self.keys.get(key as usize).copied().flatten()
    }

    /// The line of `key`, or of the section when the key is absent.
    pub fn line_of(&self, key: Key) -> Option<u32> {
        self.of(key).map(|at| at.line).or(self.section)
    }

    /// Where the key named `name` (the format's or not) stands.
    fn named(&self, name: &str) -> Option<ValueAt> {
        match Key::from_name(name) {
            Some(key) => self.of(key),
            None => self.unknown.get(name).copied(),
        }
    }

    /// Locates findings: at the value of their key (line, column and bytes), or at the
    /// section's line when the key is absent; and marks them as payment `payment` (1-based)
    /// when they are about none yet.
    pub fn locate(&self, findings: &mut [Diagnostic], payment: u32) {
        for finding in findings {
            if finding.line.is_none() {
                let at = finding.key.as_deref().and_then(|name| self.named(name));
                match at {
                    Some(at) if at.line > 0 => {
                        finding.span = Some(at.start..at.end);
                        finding.line = Some(at.line);
                        finding.column = Some(at.column);
                    }
                    _ => finding.line = self.section,
                }
            }
            finding.payment = finding.payment.or(Some(payment));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_codes_hold_every_code() {
        assert!(Code::ALL.len() <= 128);
        let shared = QuietCodes::default();
        assert!(shared.get().limits());
        for &code in Code::ALL {
            assert!(!shared.get().has(code));
            shared.add(code);
            assert!(shared.get().has(code));
        }
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
    fn findings_stand_at_their_value_or_the_section() {
        let text = "1CClientBankExchange\nСекцияДокумент=Платежное поручение\nНомер=1\n\
                    Сумма=10\nМойКлюч=x\nКонецДокумента\nКонецФайла\n";
        let parsed = clientbank_format::parse(text.as_bytes()).unwrap();
        let section = parsed.tree.documents().next().unwrap();
        let lines = Lines::of_section(&section);
        assert_eq!(lines.line_of(Key::Sum), Some(4));
        assert_eq!(lines.line_of(Key::Date), Some(2));
        let mut findings = vec![
            about(Code::SumNotPositive, Some(Field::Sum), Message::same("x")),
            about(Code::Missing, Some(Field::Date), Message::same("x")),
            Diagnostic::new(Code::NotCarried, Message::same("x")).key("МойКлюч".to_string()),
        ];
        lines.locate(&mut findings, 3);
        let at: Vec<_> = findings
            .iter()
            .map(|f| (f.line, f.column, f.payment))
            .collect();
        assert_eq!(
            at,
            [
                (Some(4), Some(7), Some(3)),
                (Some(2), None, Some(3)),
                (Some(5), Some(9), Some(3))
            ]
        );
        let span = findings[0].span.clone().unwrap();
        assert_eq!(&text.as_bytes()[span], b"10");
    }
}
