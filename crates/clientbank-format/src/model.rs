//! The typed, owned view: `Exchange { header, accounts, documents }`, and the canonical
//! writer of new files.
//!
//! Every key of the format has one home here (a field, or a group such as [`Party`],
//! [`Budget`], [`Receipt`], [`Terms`]); unknown keys stay in `extra`, in order. Empty values
//! read as `None`: the typed view does not tell `Key=` from an absent key (the
//! [`SyntaxTree`](crate::SyntaxTree) does).

use std::borrow::Cow;
use std::fmt;

use chrono::{NaiveDate, NaiveTime};
use rust_decimal::Decimal;

use crate::fields::{Slot, SlotKind};
use crate::syntax::Marker;
use crate::tree::SectionRef;
use crate::{Encoding, Key, value};

/// A value of a typed field: read from the raw text, written canonically.
trait FieldValue: Sized {
    /// What the field holds, for [`DocumentFields`](crate::DocumentFields).
    const KIND: SlotKind;
    /// The value, borrowed.
    fn slot(&self) -> Slot<'_>;
    fn read(raw: &[u8], section: &SectionRef<'_>) -> Option<Self>;
    fn write(&self) -> Result<Cow<'_, str>, Decimal>;
    /// [`FieldValue::write`] without a `String`: the value itself, or its text made in
    /// `scratch` (cleared first).
    fn text<'a>(&'a self, scratch: &'a mut String) -> Result<&'a str, Decimal>;
    /// Whether [`FieldValue::write`] succeeds, without writing.
    fn precise(&self) -> Result<(), Decimal> {
        Ok(())
    }
}

impl FieldValue for String {
    const KIND: SlotKind = SlotKind::Text;
    fn slot(&self) -> Slot<'_> {
        Slot::Text(self)
    }
    fn read(raw: &[u8], section: &SectionRef<'_>) -> Option<Self> {
        let raw = raw.trim_ascii();
        (!raw.is_empty()).then(|| section.encoding().decode(raw).into_owned())
    }
    fn write(&self) -> Result<Cow<'_, str>, Decimal> {
        Ok(Cow::Borrowed(self))
    }
    fn text<'a>(&'a self, _: &'a mut String) -> Result<&'a str, Decimal> {
        Ok(self)
    }
}

impl FieldValue for NaiveDate {
    const KIND: SlotKind = SlotKind::Date;
    fn slot(&self) -> Slot<'_> {
        Slot::Date(*self)
    }
    fn read(raw: &[u8], _: &SectionRef<'_>) -> Option<Self> {
        value::parse_date(raw)
    }
    fn write(&self) -> Result<Cow<'_, str>, Decimal> {
        Ok(value::format_date(*self).into())
    }
    fn text<'a>(&'a self, scratch: &'a mut String) -> Result<&'a str, Decimal> {
        scratch.clear();
        value::format_date_into(*self, scratch);
        Ok(scratch)
    }
}

impl FieldValue for NaiveTime {
    const KIND: SlotKind = SlotKind::Time;
    fn slot(&self) -> Slot<'_> {
        Slot::Time(*self)
    }
    fn read(raw: &[u8], _: &SectionRef<'_>) -> Option<Self> {
        value::parse_time(raw).map(|(t, _)| t)
    }
    fn write(&self) -> Result<Cow<'_, str>, Decimal> {
        Ok(value::format_time(*self).into())
    }
    fn text<'a>(&'a self, scratch: &'a mut String) -> Result<&'a str, Decimal> {
        scratch.clear();
        scratch.push_str(&value::format_time(*self));
        Ok(scratch)
    }
}

impl FieldValue for Decimal {
    const KIND: SlotKind = SlotKind::Amount;
    fn slot(&self) -> Slot<'_> {
        Slot::Amount(*self)
    }
    fn read(raw: &[u8], _: &SectionRef<'_>) -> Option<Self> {
        value::parse_amount(raw, true)
    }
    fn write(&self) -> Result<Cow<'_, str>, Decimal> {
        value::format_amount(*self).map(Cow::Owned).ok_or(*self)
    }
    fn text<'a>(&'a self, scratch: &'a mut String) -> Result<&'a str, Decimal> {
        scratch.clear();
        if value::format_amount_into(*self, scratch) {
            Ok(scratch)
        } else {
            Err(*self)
        }
    }
    fn precise(&self) -> Result<(), Decimal> {
        if self.round_dp(2) == *self {
            Ok(())
        } else {
            Err(*self)
        }
    }
}

impl FieldValue for u32 {
    const KIND: SlotKind = SlotKind::Integer;
    fn slot(&self) -> Slot<'_> {
        Slot::Integer(*self)
    }
    fn read(raw: &[u8], _: &SectionRef<'_>) -> Option<Self> {
        value::parse_integer(raw)
    }
    fn write(&self) -> Result<Cow<'_, str>, Decimal> {
        Ok(self.to_string().into())
    }
    fn text<'a>(&'a self, scratch: &'a mut String) -> Result<&'a str, Decimal> {
        use std::fmt::Write;
        scratch.clear();
        let _ = write!(scratch, "{self}");
        Ok(scratch)
    }
}

/// Generates, from one list of `Key => field path`, reading a section into the struct and
/// listing its fields in canonical order.
macro_rules! fields {
    ($ty:ident { $($key:ident => [$($field:tt)+]),* $(,)? }) => {
        impl $ty {
            /// Reads `raw` into the field of `key`, unless it has a value already.
            fn read_known(&mut self, key: Key, raw: &[u8], section: &SectionRef<'_>) {
                match key {
                    $(Key::$key if self.$($field)+.is_none() => {
                        self.$($field)+ = FieldValue::read(raw, section);
                    })*
                    _ => {}
                }
            }

            /// Whether the struct has a field for `key`.
            fn is_field(key: Key) -> bool {
                matches!(key, $(Key::$key)|*)
            }

            /// The kind of each key's field (`None`: no place for the key).
            #[allow(dead_code)]
            pub(crate) fn slot_kinds() -> [Option<SlotKind>; Key::COUNT] {
                fn kind<T: FieldValue>(_: &Option<T>) -> SlotKind {
                    T::KIND
                }
                let this = Self::default();
                let mut kinds = [None; Key::COUNT];
                $(kinds[Key::$key.index()] = Some(kind(&this.$($field)+));)*
                kinds
            }

            /// Each set field's value, borrowed, at its key's index.
            #[allow(dead_code)]
            pub(crate) fn fill_slots<'a>(&'a self, slots: &mut [Slot<'a>; Key::COUNT]) {
                $(
                    if let Some(value) = &self.$($field)+ {
                        slots[Key::$key.index()] = FieldValue::slot(value);
                    }
                )*
            }

            /// The typed fields that are set, as `(key, canonical text)`, in 1C's order.
            /// Fails on an amount with more than two decimals.
            pub fn fields(&self) -> Result<Vec<(Key, String)>, WriteError> {
                Ok(self
                    .texts()?
                    .into_iter()
                    .map(|(key, text)| (key, text.into_owned()))
                    .collect())
            }

            /// As [`Self::fields`], texts borrowed where the field is one.
            pub(crate) fn texts(&self) -> Result<Vec<(Key, Cow<'_, str>)>, WriteError> {
                let mut out = Vec::new();
                $(
                    if let Some(value) = &self.$($field)+ {
                        let text = FieldValue::write(value)
                            .map_err(|amount| WriteError::precision(None, Key::$key.name(), amount))?;
                        out.push((Key::$key, text));
                    }
                )*
                Ok(out)
            }

            /// The first amount [`Self::texts`] would refuse, as it would refuse it.
            fn check_amounts(&self) -> Result<(), WriteError> {
                $(
                    if let Some(value) = &self.$($field)+ {
                        FieldValue::precise(value)
                            .map_err(|amount| WriteError::precision(None, Key::$key.name(), amount))?;
                    }
                )*
                Ok(())
            }

            /// [`Self::texts`] one at a time into `write`, each made in `scratch` when it is
            /// not a text already: no list, no `String` per field.
            fn each_text(
                &self,
                scratch: &mut String,
                mut write: impl FnMut(Key, &str) -> Result<(), WriteError>,
            ) -> Result<(), WriteError> {
                $(
                    if let Some(value) = &self.$($field)+ {
                        let text = FieldValue::text(value, scratch)
                            .map_err(|amount| WriteError::precision(None, Key::$key.name(), amount))?;
                        write(Key::$key, text)?;
                    }
                )*
                Ok(())
            }
        }
    };
}

/// An unknown `Key=Value`, kept in order.
pub type Extra = (String, String);

/// Reads the keys of a section that `holds` into `target` (`read_known` takes each line of
/// one), the rest into `extra` when asked, decoded.
fn read_section<T>(
    section: &SectionRef<'_>,
    target: &mut T,
    holds: fn(Key) -> bool,
    extra: Option<&mut Vec<Extra>>,
    mut read_known: impl FnMut(&mut T, Key, &[u8]),
) {
    let encoding = section.encoding();
    let mut extra = extra;
    for (known, key, value, _) in section.raw_fields() {
        match known.filter(|&k| holds(k)) {
            Some(known) => read_known(target, known, value),
            None => {
                if let Some(extra) = extra.as_deref_mut() {
                    extra.push((
                        encoding.decode(key).into_owned(),
                        encoding.decode(value).into_owned(),
                    ));
                }
            }
        }
    }
}

/// The lines of a section that `holds` has no place for (what [`read_section`] makes its
/// `extra` of), decoded one at a time, in order.
fn extra_of<'s>(
    section: &SectionRef<'s>,
    holds: fn(Key) -> bool,
) -> impl Iterator<Item = (Cow<'s, str>, Cow<'s, str>)> + 's {
    let encoding = section.encoding();
    section
        .extra_lines(move |known| known.is_none_or(|k| !holds(k)))
        .map(move |(_, key, value, _)| (encoding.decode(key), encoding.decode(value)))
}

/// The file header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// `ВерсияФормата`.
    pub version: Option<String>,
    /// `Кодировка` as written (the writer writes the target encoding's label instead).
    pub encoding: Option<String>,
    /// `Отправитель`.
    pub sender: Option<String>,
    /// `Получатель`.
    pub recipient: Option<String>,
    /// `ДатаСоздания`.
    pub created_on: Option<NaiveDate>,
    /// `ВремяСоздания`.
    pub created_at: Option<NaiveTime>,
    /// `ДатаНачала`.
    pub start_date: Option<NaiveDate>,
    /// `ДатаКонца`.
    pub end_date: Option<NaiveDate>,
    /// `РасчСчет`, one per line.
    pub accounts: Vec<String>,
    /// `Документ`, one per line.
    pub document_types: Vec<String>,
    /// Unknown keys, in order.
    pub extra: Vec<Extra>,
}

fields!(Header {
    Sender => [sender],
    Recipient => [recipient],
    CreationDate => [created_on],
    CreationTime => [created_at],
    StartDate => [start_date],
    EndDate => [end_date],
});

impl Header {
    pub(crate) fn from_section(section: &SectionRef<'_>) -> Header {
        let mut extra = Vec::new();
        let mut header = Header::read(section, Some(&mut extra));
        header.extra = extra;
        header
    }

    /// The header of `section`, its keys without a field read into `extra` when asked.
    fn read(section: &SectionRef<'_>, extra: Option<&mut Vec<Extra>>) -> Header {
        let mut header = Header::default();
        read_section(
            section,
            &mut header,
            Header::holds,
            extra,
            |h, key, raw| match key {
                Key::FormatVersion => h.version = String::read(raw, section),
                Key::Encoding => h.encoding = String::read(raw, section),
                Key::Account | Key::DocumentType => {}
                _ => h.read_known(key, raw, section),
            },
        );
        header.accounts = section
            .get_all(Key::Account)
            .map(|v| v.trim().to_string())
            .collect();
        header.document_types = section
            .get_all(Key::DocumentType)
            .map(|v| v.trim().to_string())
            .collect();
        header
    }

    /// Whether the header has a place for `key` (a key it has none for is one of its `extra`).
    fn holds(key: Key) -> bool {
        matches!(
            key,
            Key::FormatVersion | Key::Encoding | Key::Account | Key::DocumentType
        ) || Header::is_field(key)
    }
}

/// An account-balance section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccountSection {
    /// `ДатаНачала`.
    pub start_date: Option<NaiveDate>,
    /// `ДатаКонца`.
    pub end_date: Option<NaiveDate>,
    /// `РасчСчет`.
    pub account: Option<String>,
    /// `НачальныйОстаток`.
    pub opening_balance: Option<Decimal>,
    /// `ВсегоПоступило`.
    pub credited: Option<Decimal>,
    /// `ВсегоСписано`.
    pub debited: Option<Decimal>,
    /// `КонечныйОстаток`.
    pub closing_balance: Option<Decimal>,
    /// Unknown keys, in order.
    pub extra: Vec<Extra>,
    /// 1-based line of `СекцияРасчСчет` in the source, when read from a file.
    pub line: Option<u32>,
}

fields!(AccountSection {
    StartDate => [start_date],
    EndDate => [end_date],
    Account => [account],
    OpeningBalance => [opening_balance],
    TotalCredited => [credited],
    TotalDebited => [debited],
    ClosingBalance => [closing_balance],
});

impl AccountSection {
    pub(crate) fn from_section(section: &SectionRef<'_>) -> AccountSection {
        let mut extra = Vec::new();
        let mut account = AccountSection::read(section, Some(&mut extra));
        account.extra = extra;
        account
    }

    /// The account section of `section`, its keys without a field read into `extra` when
    /// asked.
    fn read(section: &SectionRef<'_>, extra: Option<&mut Vec<Extra>>) -> AccountSection {
        let mut account = AccountSection::default();
        read_section(
            section,
            &mut account,
            Self::is_field,
            extra,
            |a, key, raw| a.read_known(key, raw, section),
        );
        account.line = Some(section.line()).filter(|&l| l > 0);
        account
    }
}

/// One side of a payment: the payer (`Плательщик…`) or the recipient (`Получатель…`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Party {
    /// `…Счет`: the account as the statement sees it.
    pub account: Option<String>,
    /// `ДатаСписано` (payer) / `ДатаПоступило` (recipient).
    pub date: Option<NaiveDate>,
    /// `Плательщик` / `Получатель`: the party as one line.
    pub name: Option<String>,
    /// `…ИНН`.
    pub inn: Option<String>,
    /// `…1`..`…4`: name, and in indirect settlements account, bank and city.
    pub lines: [Option<String>; 4],
    /// `…РасчСчет`.
    pub settlement_account: Option<String>,
    /// `…Банк1`: bank name.
    pub bank_name: Option<String>,
    /// `…Банк2`: bank city.
    pub bank_city: Option<String>,
    /// `…БИК`.
    pub bik: Option<String>,
    /// `…Корсчет`.
    pub corr_account: Option<String>,
    /// `…КПП` (fields 102 and 103).
    pub kpp: Option<String>,
}

/// The bank's receipt of a document (statements only).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Receipt {
    /// `КвитанцияДата`.
    pub date: Option<NaiveDate>,
    /// `КвитанцияВремя`.
    pub time: Option<NaiveTime>,
    /// `КвитанцияСодержание`.
    pub text: Option<String>,
}

/// Budget payment fields 101–110: texts owned (`String`), or borrowed where a caller reads them
/// without a `String` each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Budget<T = String> {
    /// `СтатусСоставителя` (101).
    pub payer_status: Option<T>,
    /// `ПоказательКБК` (104).
    pub kbk: Option<T>,
    /// `ОКАТО` (105, an OKTMO code).
    pub oktmo: Option<T>,
    /// `ПоказательОснования` (106).
    pub basis: Option<T>,
    /// `ПоказательПериода` (107), text.
    pub period: Option<T>,
    /// `ПоказательНомера` (108).
    pub number: Option<T>,
    /// `ПоказательДаты` (109), text (`0` is valid).
    pub date: Option<T>,
    /// `ПоказательТипа` (110).
    pub payment_type: Option<T>,
}

/// Keys of payment requirements and letters of credit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    /// `СрокАкцепта`, days.
    pub acceptance_days: Option<u32>,
    /// `ВидАккредитива`.
    pub letter_of_credit_kind: Option<String>,
    /// `СрокПлатежа`.
    pub payment_due: Option<NaiveDate>,
    /// `УсловиеОплаты1`..`3`.
    pub conditions: [Option<String>; 3],
    /// `ПлатежПоПредст`.
    pub payment_on_presentation: Option<String>,
    /// `ДополнУсловия`.
    pub additional_conditions: Option<String>,
    /// `НомерСчетаПоставщика`.
    pub supplier_account: Option<String>,
    /// `ДатаОтсылкиДок`.
    pub documents_sent_on: Option<NaiveDate>,
}

/// One document of any type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    /// The type after `СекцияДокумент=`, verbatim (`Платежное поручение`, `Банковский ордер`, …).
    pub kind: String,
    /// `Номер` (text: `БА8170433` occurs).
    pub number: Option<String>,
    /// `Дата`.
    pub date: Option<NaiveDate>,
    /// `Сумма`.
    pub sum: Option<Decimal>,
    /// `Квитанция…`.
    pub receipt: Receipt,
    /// `Плательщик…`.
    pub payer: Party,
    /// `Получатель…`.
    pub recipient: Party,
    /// `ВидПлатежа` (field 5).
    pub payment_method: Option<String>,
    /// `КодНазПлатежа` (field 20).
    pub purpose_code: Option<String>,
    /// `ВидОплаты` (field 18).
    pub operation_kind: Option<String>,
    /// `Код` (field 22, УИН).
    pub uin: Option<String>,
    /// `НазначениеПлатежа` (field 24).
    pub purpose: Option<String>,
    /// `НазначениеПлатежа1`..`6`.
    pub purpose_lines: [Option<String>; 6],
    /// Fields 101, 104–110.
    pub budget: Budget,
    /// `Очередность` (field 21).
    pub priority: Option<String>,
    /// Requirement and letter-of-credit keys.
    pub terms: Terms,
    /// Unknown keys, in order.
    pub extra: Vec<Extra>,
    /// 1-based line of `СекцияДокумент` in the source, when read from a file.
    pub line: Option<u32>,
}

fields!(Document {
    Number => [number],
    Date => [date],
    Sum => [sum],
    ReceiptDate => [receipt.date],
    ReceiptTime => [receipt.time],
    ReceiptText => [receipt.text],
    PayerAccount => [payer.account],
    DebitedDate => [payer.date],
    Payer => [payer.name],
    PayerInn => [payer.inn],
    Payer1 => [payer.lines[0]],
    Payer2 => [payer.lines[1]],
    Payer3 => [payer.lines[2]],
    Payer4 => [payer.lines[3]],
    PayerSettlementAccount => [payer.settlement_account],
    PayerBank1 => [payer.bank_name],
    PayerBank2 => [payer.bank_city],
    PayerBik => [payer.bik],
    PayerCorrAccount => [payer.corr_account],
    RecipientAccount => [recipient.account],
    CreditedDate => [recipient.date],
    Recipient => [recipient.name],
    RecipientInn => [recipient.inn],
    Recipient1 => [recipient.lines[0]],
    Recipient2 => [recipient.lines[1]],
    Recipient3 => [recipient.lines[2]],
    Recipient4 => [recipient.lines[3]],
    RecipientSettlementAccount => [recipient.settlement_account],
    RecipientBank1 => [recipient.bank_name],
    RecipientBank2 => [recipient.bank_city],
    RecipientBik => [recipient.bik],
    RecipientCorrAccount => [recipient.corr_account],
    PaymentMethod => [payment_method],
    PurposeCode => [purpose_code],
    OperationKind => [operation_kind],
    Code => [uin],
    Purpose => [purpose],
    Purpose1 => [purpose_lines[0]],
    Purpose2 => [purpose_lines[1]],
    Purpose3 => [purpose_lines[2]],
    Purpose4 => [purpose_lines[3]],
    Purpose5 => [purpose_lines[4]],
    Purpose6 => [purpose_lines[5]],
    PayerStatus => [budget.payer_status],
    PayerKpp => [payer.kpp],
    RecipientKpp => [recipient.kpp],
    Kbk => [budget.kbk],
    Oktmo => [budget.oktmo],
    Basis => [budget.basis],
    Period => [budget.period],
    BasisNumber => [budget.number],
    BasisDate => [budget.date],
    PaymentType => [budget.payment_type],
    Priority => [priority],
    AcceptanceTerm => [terms.acceptance_days],
    LetterOfCreditKind => [terms.letter_of_credit_kind],
    PaymentTerm => [terms.payment_due],
    PaymentCondition1 => [terms.conditions[0]],
    PaymentCondition2 => [terms.conditions[1]],
    PaymentCondition3 => [terms.conditions[2]],
    PaymentOnPresentation => [terms.payment_on_presentation],
    AdditionalConditions => [terms.additional_conditions],
    SupplierAccount => [terms.supplier_account],
    DocumentsSentDate => [terms.documents_sent_on],
});

impl Document {
    /// The typed view of a document section.
    pub fn from_section(section: &SectionRef<'_>) -> Document {
        let mut extra = Vec::new();
        let mut document = Document::read(section, Some(&mut extra));
        document.extra = extra;
        document
    }

    /// The document of `section`, its keys without a field read into `extra` when asked.
    fn read(section: &SectionRef<'_>, extra: Option<&mut Vec<Extra>>) -> Document {
        let mut document = Document {
            kind: section
                .document_type()
                .map(|t| t.into_owned())
                .unwrap_or_default(),
            ..Document::default()
        };
        read_section(
            section,
            &mut document,
            Self::is_field,
            extra,
            |d, key, raw| d.read_known(key, raw, section),
        );
        document.line = Some(section.line()).filter(|&l| l > 0);
        document
    }
}

/// An exchange file as typed data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exchange {
    /// General information and selection conditions.
    pub header: Header,
    /// Account-balance sections (statements).
    pub accounts: Vec<AccountSection>,
    /// Documents of every type.
    pub documents: Vec<Document>,
}

/// Why a new file could not be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteError {
    /// The document (0-based), when the problem is in one.
    pub document: Option<usize>,
    /// Its `Номер`, if it has one.
    pub number: Option<String>,
    /// The 1C key whose value could not be written.
    pub key: String,
    /// What went wrong.
    pub kind: WriteErrorKind,
}

/// What went wrong in a [`WriteError`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriteErrorKind {
    /// The target encoding has no such character.
    Unmappable {
        /// The character.
        character: char,
        /// The target encoding.
        encoding: Encoding,
    },
    /// An amount with more than two decimals (it would have to be rounded).
    Precision(Decimal),
    /// A line break (CR or LF) inside a value: it would split the `Key=Value` line.
    LineBreak,
    /// The line would not read back as written: in a CP1251 or CP866 file its bytes read
    /// better as UTF-8 text (the reader would refuse the file as mixed), or it holds U+FFFD.
    Unreadable {
        /// The target encoding.
        encoding: Encoding,
        /// What the reader would say of the line.
        reason: crate::Message,
    },
    /// The output failed ([`Writer`] only): its kind and message.
    Io(std::io::ErrorKind, String),
}

/// Encodes one `Key=Value` line of a file being written: refuses a character the encoding
/// lacks and a line break, which would split the line; and a line the reader would not read
/// back as written (checked as the reader checks every line), so that nothing written here is
/// refused when read.
pub(crate) fn encode_line(encoding: Encoding, text: &str) -> Result<Vec<u8>, WriteErrorKind> {
    let mut out = Vec::with_capacity(text.len());
    encode_line_into(&mut out, encoding, &[text])?;
    Ok(out)
}

/// [`encode_line`] of the line made of `parts` (as if joined), appended to `out`; on an error
/// `out` is left as it was.
pub(crate) fn encode_line_into(
    out: &mut Vec<u8>,
    encoding: Encoding,
    parts: &[&str],
) -> Result<(), WriteErrorKind> {
    encode_after(out, encoding, b"", parts)
}

/// [`encode_line_into`] of a line that starts with `prefix`, text already encoded in
/// `encoding` without a line break (a key's name and `=`), then `parts`.
fn encode_after(
    out: &mut Vec<u8>,
    encoding: Encoding,
    prefix: &[u8],
    parts: &[&str],
) -> Result<(), WriteErrorKind> {
    let start = out.len();
    out.extend_from_slice(prefix);
    let encoded = parts.iter().try_for_each(|part| {
        encoding
            .encode_into(out, part)
            .map_err(|character| WriteErrorKind::Unmappable {
                character,
                encoding,
            })
    });
    // A line break is said before a character that cannot be written, wherever they are;
    // CR and LF are the same bytes in every encoding here, and no other character is
    // encoded as either.
    let line_break = || {
        parts
            .iter()
            .any(|part| part.bytes().any(|b| b == b'\r' || b == b'\n'))
    };
    let checked = match encoded {
        Err(_) if line_break() => Err(WriteErrorKind::LineBreak),
        Err(e) => Err(e),
        Ok(()) if out[start..].iter().any(|&b| b == b'\r' || b == b'\n') => {
            Err(WriteErrorKind::LineBreak)
        }
        Ok(()) => reads_back(&out[start..], encoding),
    };
    if checked.is_err() {
        out.truncate(start);
    }
    checked
}

/// `Name=` of a known key encoded in an encoding, and whether a line that starts with it
/// reads back as written whatever follows: in a single-byte encoding, when its bytes from the
/// first one that is not ASCII already hold a sequence that cannot be UTF-8 (as a Cyrillic
/// name's do), the reader's check of the line stops there (see [`reads_back`]).
struct KeyPrefix {
    bytes: Vec<u8>,
    reads_back: bool,
}

impl KeyPrefix {
    fn new(encoding: Encoding, text: &str) -> KeyPrefix {
        let bytes = encoding.encode_lossless(text);
        let reads_back = encoding != Encoding::Utf8
            && bytes
                .iter()
                .position(|b| !b.is_ascii())
                .is_some_and(|first| {
                    std::str::from_utf8(&bytes[first..]).is_err_and(|e| e.error_len().is_some())
                });
        KeyPrefix { bytes, reads_back }
    }
}

/// The [`KeyPrefix`] of `key` in `encoding`, made once for every key.
fn key_prefix(encoding: Encoding, key: Key) -> &'static KeyPrefix {
    use std::sync::OnceLock;
    static PREFIXES: [OnceLock<Vec<KeyPrefix>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    static NO_KEY: KeyPrefix = KeyPrefix {
        bytes: Vec::new(),
        reads_back: false,
    };
    let all = PREFIXES[encoding as usize % 3].get_or_init(|| {
        Key::ALL
            .iter()
            .map(|key| KeyPrefix::new(encoding, &format!("{}=", key.name())))
            .collect()
    });
    all.get(key as usize).unwrap_or(&NO_KEY)
}

/// The [`KeyPrefix`] of a document's two lines that are not keys: `СекцияДокумент=` (before
/// the document's type) and `КонецДокумента` (the whole line).
fn document_prefixes(encoding: Encoding) -> &'static [KeyPrefix; 2] {
    use std::sync::OnceLock;
    static PREFIXES: [OnceLock<[KeyPrefix; 2]>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    PREFIXES[encoding as usize % 3].get_or_init(|| {
        [
            KeyPrefix::new(encoding, &format!("{}=", Marker::DocumentStart.name())),
            KeyPrefix::new(encoding, Marker::DocumentEnd.name()),
        ]
    })
}

/// Whether the reader reads `line` (encoded in `encoding`) back as written. The reader decides
/// a file's encoding by its content, so a CP866 file may be read as CP1251 (and back): a
/// single-byte line is checked as either — at once when its text past the ASCII start is not
/// UTF-8, which both readings take as they are.
fn reads_back(line: &[u8], encoding: Encoding) -> Result<(), WriteErrorKind> {
    let readings: &[Encoding] = match encoding {
        Encoding::Utf8 => &[Encoding::Utf8],
        Encoding::Cp1251 | Encoding::Cp866 => {
            let first = line.iter().position(|b| !b.is_ascii());
            if first.is_none_or(|first| std::str::from_utf8(&line[first..]).is_err()) {
                return Ok(());
            }
            &[Encoding::Cp1251, Encoding::Cp866]
        }
    };
    readings.iter().try_for_each(|&reading| {
        crate::parse::check_line_encoding(line, reading)
            .map_err(|(_, _, reason)| WriteErrorKind::Unreadable { encoding, reason })
    })
}

impl WriteError {
    pub(crate) fn new(document: &Document, key: &str, kind: WriteErrorKind) -> WriteError {
        WriteError {
            document: None,
            number: document.number.clone(),
            key: key.to_string(),
            kind,
        }
    }

    fn io(error: std::io::Error) -> WriteError {
        WriteError {
            document: None,
            number: None,
            key: String::new(),
            kind: WriteErrorKind::Io(error.kind(), error.to_string()),
        }
    }

    pub(crate) fn precision(index: Option<usize>, key: &str, amount: Decimal) -> WriteError {
        WriteError {
            document: index,
            number: None,
            key: key.to_string(),
            kind: WriteErrorKind::Precision(amount),
        }
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.document, &self.number) {
            (Some(i), Some(n)) => write!(f, "document {} (№ {n}), ", i + 1)?,
            (Some(i), None) => write!(f, "document {}, ", i + 1)?,
            (None, Some(n)) => write!(f, "document № {n}, ")?,
            (None, None) => {}
        }
        match &self.kind {
            WriteErrorKind::Unmappable {
                character,
                encoding,
            } => write!(
                f,
                "key {}: the character {character:?} (U+{:04X}) cannot be written in {encoding}",
                self.key, *character as u32
            ),
            WriteErrorKind::Precision(amount) => write!(
                f,
                "key {}: the amount {amount} has more than two decimals",
                self.key
            ),
            WriteErrorKind::LineBreak => write!(
                f,
                "key {}: a line break inside the value would split the line",
                self.key
            ),
            WriteErrorKind::Unreadable { encoding, reason } => write!(
                f,
                "key {}: in {encoding} the line would not read back as written ({}); write the \
                 file in another encoding",
                self.key,
                reason.en()
            ),
            WriteErrorKind::Io(_, message) => write!(f, "the file could not be written: {message}"),
        }
    }
}

impl std::error::Error for WriteError {}

impl Exchange {
    /// Writes a new file canonically: CRLF, 1C's key order, sums with two decimals,
    /// `ДД.ММ.ГГГГ`, in `encoding` (1C's default is [`Encoding::Cp1251`]). A character the
    /// encoding cannot hold is an error naming the document and key. [`Writer`] does the same
    /// section by section, for files too big to hold.
    pub fn to_bytes(&self, encoding: Encoding) -> Result<Vec<u8>, WriteError> {
        // One pass into one buffer: the sections are encoded where they end up (a failed one
        // fails the whole), not into a section's buffer and copied.
        let mut lines = Lines::new(Vec::new(), encoding);
        lines.header(&self.header, &mut |l, at| l.extra(&self.header.extra, at))?;
        for account in &self.accounts {
            lines.account(account, &mut |l, at| l.extra(&account.extra, at))?;
        }
        for document in &self.documents {
            lines.document(document, &mut |l, at| l.extra(&document.extra, at))?;
        }
        lines.line(Marker::FileEnd.name(), None, None)?;
        Ok(lines.out)
    }
}

/// The canonical writer, one section at a time: the header when made, then account sections,
/// then documents, then [`Writer::finish`] for `КонецФайла`. A section is encoded whole before
/// any of it is written, so a value that cannot be written leaves nothing of its section
/// behind. Memory stays that of one section whatever the file's size.
///
/// ```
/// use clientbank_format::{Document, Encoding, Header, Writer, parse};
///
/// let mut writer = Writer::new(Vec::new(), Encoding::Cp1251, &Header::default()).unwrap();
/// for number in 1..=3 {
///     let document = Document {
///         kind: "Платежное поручение".into(),
///         number: Some(number.to_string()),
///         ..Document::default()
///     };
///     writer.document(&document).unwrap();
/// }
/// let bytes = writer.finish().unwrap();
/// assert_eq!(parse(bytes).unwrap().tree.documents().count(), 3);
/// ```
#[derive(Debug)]
pub struct Writer<W: std::io::Write> {
    out: W,
    /// The section being encoded.
    section: Lines,
}

impl<W: std::io::Write> Writer<W> {
    /// Starts a file: writes `1CClientBankExchange` and the header, with `Кодировка` naming
    /// `encoding` whatever `header.encoding` says.
    pub fn new(out: W, encoding: Encoding, header: &Header) -> Result<Writer<W>, WriteError> {
        let mut writer = Writer {
            out,
            section: Lines::new(Vec::new(), encoding),
        };
        writer
            .section
            .header(header, &mut |l, at| l.extra(&header.extra, at))?;
        writer.flush_section()?;
        Ok(writer)
    }

    /// Writes a `СекцияРасчСчет` … `КонецРасчСчет` section (before the first document, as
    /// 1C expects).
    pub fn account(&mut self, account: &AccountSection) -> Result<(), WriteError> {
        let written = self
            .section
            .account(account, &mut |l, at| l.extra(&account.extra, at));
        self.end_section(written)
    }

    /// Writes a `СекцияДокумент=…` … `КонецДокумента` section.
    pub fn document(&mut self, document: &Document) -> Result<(), WriteError> {
        let written = self
            .section
            .document(document, &mut |l, at| l.extra(&document.extra, at));
        self.end_section(written)
    }

    /// Writes `КонецФайла`, flushes, and gives the output back.
    pub fn finish(mut self) -> Result<W, WriteError> {
        self.section.line(Marker::FileEnd.name(), None, None)?;
        self.flush_section()?;
        self.out.flush().map_err(WriteError::io)?;
        Ok(self.out)
    }

    fn end_section(&mut self, written: Result<(), WriteError>) -> Result<(), WriteError> {
        match written {
            Ok(()) => self.flush_section(),
            Err(e) => {
                self.section.out.clear();
                Err(e)
            }
        }
    }

    fn flush_section(&mut self) -> Result<(), WriteError> {
        let written = self.out.write_all(&self.section.out);
        self.section.out.clear();
        written.map_err(WriteError::io)
    }
}

/// Writes a file canonically, as [`Exchange::to_bytes`] writes the exchange read from the same
/// sections, from the sections as read (the header, the account sections, then each document
/// that `documents` hands to its callback): each section's known keys are read into its struct,
/// its other keys are decoded one at a time from the input, and the bytes go to `out` every
/// [`DRAIN_AT`] bytes. Memory stays that of one section's struct whatever the file's size or a
/// section's number of lines. On an error, what was written before it stays in `out`: write to
/// a file that is dropped then.
pub(crate) fn write_sections<'s, W: std::io::Write>(
    mut out: W,
    encoding: Encoding,
    header: &SectionRef<'_>,
    accounts: impl Iterator<Item = SectionRef<'s>>,
    documents: impl FnOnce(
        &mut dyn FnMut(&SectionRef<'_>) -> Result<(), WriteError>,
    ) -> Result<(), WriteError>,
) -> Result<W, WriteError> {
    let mut lines = Lines::new(Vec::new(), encoding);
    let o = &mut out;
    let mut header_extra = extra_of(header, Header::holds);
    lines.header(&Header::read(header, None), &mut |l, at| {
        l.extra_from(header_extra.by_ref(), at, o)
    })?;
    for account in accounts {
        lines.drain(o, DRAIN_AT)?;
        let mut extra = extra_of(&account, AccountSection::is_field);
        lines.account(&AccountSection::read(&account, None), &mut |l, at| {
            l.extra_from(extra.by_ref(), at, o)
        })?;
    }
    documents(&mut |document| {
        lines.drain(o, DRAIN_AT)?;
        let mut extra = extra_of(document, Document::is_field);
        lines.document(&Document::read(document, None), &mut |l, at| {
            l.extra_from(extra.by_ref(), at, o)
        })
    })?;
    lines.line(Marker::FileEnd.name(), None, None)?;
    lines.drain(o, 0)?;
    out.flush().map_err(WriteError::io)?;
    Ok(out)
}

/// Encodes a file's lines onto the end of a buffer: the whole file ([`Exchange::to_bytes`]),
/// one section at a time ([`Writer`]), or handed on as it grows ([`write_sections`]). A method
/// that fails may leave part of its section.
#[derive(Debug)]
struct Lines {
    out: Vec<u8>,
    encoding: Encoding,
    /// Documents written so far (the index a [`WriteError`] names).
    documents: usize,
    /// Where a field that is not a text has its text made.
    scratch: String,
}

/// The document (its index and `Номер`) a line is in, for a [`WriteError`].
type At<'a> = Option<(usize, Option<&'a str>)>;

/// Writes a section's keys that its struct has no field for, after its other keys.
type WriteExtra<'e> = &'e mut dyn FnMut(&mut Lines, At<'_>) -> Result<(), WriteError>;

/// How many bytes [`write_sections`] encodes before it hands them on.
const DRAIN_AT: usize = 1 << 16;

impl Lines {
    fn new(out: Vec<u8>, encoding: Encoding) -> Lines {
        Lines {
            out,
            encoding,
            documents: 0,
            scratch: String::new(),
        }
    }

    /// `1CClientBankExchange` and the header.
    fn header(&mut self, header: &Header, extra: WriteExtra<'_>) -> Result<(), WriteError> {
        self.line(Marker::Start.name(), None, None)?;
        self.pair(
            Key::FormatVersion.name(),
            header.version.as_deref().unwrap_or("1.03"),
            None,
        )?;
        self.pair(Key::Encoding.name(), self.encoding.label(), None)?;
        header.check_amounts()?;
        let (out, encoding) = (&mut self.out, self.encoding);
        header.each_text(&mut self.scratch, |key, text| {
            known(out, encoding, key, text, None)
        })?;
        for account in &header.accounts {
            self.pair(Key::Account.name(), account, None)?;
        }
        for kind in &header.document_types {
            self.pair(Key::DocumentType.name(), kind, None)?;
        }
        extra(self, None)
    }

    fn account(
        &mut self,
        account: &AccountSection,
        extra: WriteExtra<'_>,
    ) -> Result<(), WriteError> {
        self.line(Marker::AccountStart.name(), None, None)?;
        account.check_amounts()?;
        let (out, encoding) = (&mut self.out, self.encoding);
        account.each_text(&mut self.scratch, |key, text| {
            known(out, encoding, key, text, None)
        })?;
        extra(self, None)?;
        self.line(Marker::AccountEnd.name(), None, None)
    }

    fn document(&mut self, document: &Document, extra: WriteExtra<'_>) -> Result<(), WriteError> {
        let index = self.documents;
        let at = Some((index, document.number.as_deref()));
        document.check_amounts().map_err(|e| WriteError {
            document: Some(index),
            number: document.number.clone(),
            ..e
        })?;
        let (out, encoding) = (&mut self.out, self.encoding);
        let [start, end] = document_prefixes(encoding);
        let marker = Marker::DocumentStart.name();
        after_prefix(out, encoding, start, &document.kind, marker, at)?;
        document.each_text(&mut self.scratch, |key, text| {
            known(out, encoding, key, text, at)
        })?;
        extra(self, at)?;
        let marker = Marker::DocumentEnd.name();
        after_prefix(&mut self.out, encoding, end, "", marker, at)?;
        self.documents += 1;
        Ok(())
    }

    /// The lines of `extra` ([`WriteExtra`] for a model's own `extra`).
    fn extra(&mut self, extra: &[Extra], at: At<'_>) -> Result<(), WriteError> {
        for (key, value) in extra {
            self.pair(key, value, at)?;
        }
        Ok(())
    }

    /// The lines of `extra`, decoded from a section as read one at a time, each handed to
    /// `out` once the buffer holds [`DRAIN_AT`] bytes.
    fn extra_from<'s>(
        &mut self,
        extra: impl Iterator<Item = (Cow<'s, str>, Cow<'s, str>)>,
        at: At<'_>,
        out: &mut impl std::io::Write,
    ) -> Result<(), WriteError> {
        for (key, value) in extra {
            self.pair(&key, &value, at)?;
            self.drain(out, DRAIN_AT)?;
        }
        Ok(())
    }

    /// Hands what is encoded to `out` once there are at least `at_least` bytes of it.
    fn drain(&mut self, out: &mut impl std::io::Write, at_least: usize) -> Result<(), WriteError> {
        if self.out.len() >= at_least {
            out.write_all(&self.out).map_err(WriteError::io)?;
            self.out.clear();
        }
        Ok(())
    }

    fn line(&mut self, text: &str, key: Option<&str>, at: At<'_>) -> Result<(), WriteError> {
        parts(
            &mut self.out,
            self.encoding,
            b"",
            &[text],
            key.unwrap_or(text),
            at,
        )
    }

    fn pair(&mut self, key: &str, value: &str, at: At<'_>) -> Result<(), WriteError> {
        parts(
            &mut self.out,
            self.encoding,
            b"",
            &[key, "=", value],
            key,
            at,
        )
    }
}

/// The line `Name=value` of a known key onto `out`.
fn known(
    out: &mut Vec<u8>,
    encoding: Encoding,
    key: Key,
    value: &str,
    at: At<'_>,
) -> Result<(), WriteError> {
    after_prefix(
        out,
        encoding,
        key_prefix(encoding, key),
        value,
        key.name(),
        at,
    )
}

/// The line of `prefix` then `value` onto `out`. In a single-byte encoding, where the prefix
/// settles whether the line reads back, it is encoded in one pass that also looks for line
/// breaks; otherwise as any line ([`parts`]).
fn after_prefix(
    out: &mut Vec<u8>,
    encoding: Encoding,
    prefix: &KeyPrefix,
    value: &str,
    key: &str,
    at: At<'_>,
) -> Result<(), WriteError> {
    if !prefix.reads_back {
        return parts(out, encoding, &prefix.bytes, &[value], key, at);
    }
    let start = out.len();
    out.extend_from_slice(&prefix.bytes);
    let kind = match encoding.encode_part(out, value) {
        Ok(false) => {
            out.extend_from_slice(b"\r\n");
            return Ok(());
        }
        Ok(true) => WriteErrorKind::LineBreak,
        // A line break is said before a character that cannot be written.
        Err(_) if value.bytes().any(|b| b == b'\r' || b == b'\n') => WriteErrorKind::LineBreak,
        Err(character) => WriteErrorKind::Unmappable {
            character,
            encoding,
        },
    };
    out.truncate(start);
    Err(line_error(key, kind, at))
}

/// Encodes the line made of `prefix` (encoded already) and `parts` onto `out`, with its CRLF.
fn parts(
    out: &mut Vec<u8>,
    encoding: Encoding,
    prefix: &[u8],
    parts: &[&str],
    key: &str,
    at: At<'_>,
) -> Result<(), WriteError> {
    encode_after(out, encoding, prefix, parts).map_err(|kind| line_error(key, kind, at))?;
    out.extend_from_slice(b"\r\n");
    Ok(())
}

fn line_error(key: &str, kind: WriteErrorKind, at: At<'_>) -> WriteError {
    WriteError {
        document: at.map(|(index, _)| index),
        number: at.and_then(|(_, number)| number.map(str::to_string)),
        key: key.to_string(),
        kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(number: &str, purpose: &str) -> Document {
        Document {
            kind: "Платежное поручение".into(),
            number: Some(number.into()),
            date: NaiveDate::from_ymd_opt(2026, 11, 23),
            sum: Some(Decimal::new(12345, 2)),
            purpose: Some(purpose.into()),
            ..Document::default()
        }
    }

    #[test]
    fn a_section_that_cannot_be_written_leaves_nothing_behind() {
        let mut writer = Writer::new(Vec::new(), Encoding::Cp1251, &Header::default()).unwrap();
        writer.document(&order("1", "первый")).unwrap();
        let e = writer
            .document(&order("2", "строка\nразорвана"))
            .unwrap_err();
        assert_eq!((e.document, e.number.as_deref()), (Some(1), Some("2")));
        assert_eq!(e.kind, WriteErrorKind::LineBreak);
        let e = writer.document(&order("3", "Ωmega")).unwrap_err();
        assert_eq!(e.document, Some(1), "a refused document takes no index");
        writer.document(&order("4", "четвёртый")).unwrap();
        let bytes = writer.finish().unwrap();
        let parsed = crate::parse(bytes).unwrap();
        let numbers: Vec<String> = parsed
            .tree
            .documents()
            .filter_map(|d| d.text(Key::Number).map(|n| n.into_owned()))
            .collect();
        assert_eq!(numbers, ["1", "4"]);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    }

    #[test]
    fn the_streamed_file_is_the_one_to_bytes_writes() {
        let exchange = Exchange {
            header: Header {
                accounts: vec!["40702810938000012345".into()],
                ..Header::default()
            },
            accounts: vec![AccountSection {
                account: Some("40702810938000012345".into()),
                opening_balance: Some(Decimal::new(-500, 2)),
                ..AccountSection::default()
            }],
            documents: vec![order("1", "a"), order("2", "b")],
        };
        let mut writer = Writer::new(Vec::new(), Encoding::Cp866, &exchange.header).unwrap();
        writer.account(&exchange.accounts[0]).unwrap();
        for document in &exchange.documents {
            writer.document(document).unwrap();
        }
        let streamed = writer.finish().unwrap();
        assert_eq!(streamed, exchange.to_bytes(Encoding::Cp866).unwrap());
        assert!(streamed.ends_with(&Encoding::Cp866.encode("КонецФайла\r\n").unwrap()));
    }

    #[test]
    fn a_known_key_is_written_as_any_line() {
        // The one-pass line of a known key against the general one: the same bytes, or the
        // same refusal with nothing left behind, for values that stop at every check.
        let values = [
            "",
            "40702810938000012345",
            "Оплата по счёту № 17 — «сырьё», в т.ч. НДС 20%",
            "строка\r\nразорвана",
            "a\nb",
            "Ωmega",
            "Ω\n",
            "\n€Ω",
            "text \u{FFFD} lost",
            "ðŸ˜€ Ð¿Ñ€Ð¸Ð²ÐµÑ‚",
            "\u{0}",
            "╔═╗ √ ∙",
        ];
        for encoding in [Encoding::Cp1251, Encoding::Cp866, Encoding::Utf8] {
            let [start, end] = document_prefixes(encoding);
            let lines = Key::ALL
                .iter()
                .map(|&key| (key_prefix(encoding, key), key.name(), "="))
                .chain([
                    (start, Marker::DocumentStart.name(), "="),
                    (end, Marker::DocumentEnd.name(), ""),
                ]);
            for (prefix, name, equals) in lines {
                for value in values {
                    let (mut one, mut general) = (b"x".to_vec(), b"x".to_vec());
                    let at = Some((3, Some("7")));
                    let a = after_prefix(&mut one, encoding, prefix, value, name, at);
                    let b = parts(
                        &mut general,
                        encoding,
                        b"",
                        &[name, equals, value],
                        name,
                        at,
                    );
                    assert_eq!((a, one), (b, general), "{encoding} {name} {value:?}");
                }
            }
        }
    }

    #[test]
    fn a_field_s_text_is_its_written_text() {
        let mut scratch = String::from("left over");
        for amount in [
            Decimal::new(12345, 2),
            Decimal::new(-5, 0),
            Decimal::new(1, 3),
        ] {
            assert_eq!(
                amount.text(&mut scratch).map(str::to_string),
                amount.write().map(Cow::into_owned)
            );
            assert_eq!(amount.precise(), amount.write().map(|_| ()));
        }
        for date in [(2026, 11, 23), (1, 1, 1), (10000, 1, 1), (-5, 6, 7)] {
            let date = NaiveDate::from_ymd_opt(date.0, date.1, date.2).unwrap();
            assert_eq!(date.text(&mut scratch).unwrap(), date.write().unwrap());
        }
        let time = NaiveTime::from_hms_opt(9, 5, 0).unwrap();
        assert_eq!(time.text(&mut scratch).unwrap(), time.write().unwrap());
        assert_eq!(17u32.text(&mut scratch).unwrap(), "17");
    }

    #[derive(Debug)]
    struct Full;

    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "disk full",
            ))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn an_output_that_fails_is_an_error_not_a_short_file() {
        let e = Writer::new(Full, Encoding::Cp1251, &Header::default()).unwrap_err();
        assert!(matches!(
            e.kind,
            WriteErrorKind::Io(std::io::ErrorKind::StorageFull, _)
        ));
        assert!(e.to_string().contains("disk full"), "{e}");
    }
}
