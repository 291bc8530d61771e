//! The bank's JSON payment upload request (`POST /operation-upload`), field names exactly as
//! the API writes them, and its mapping to and from [`Payment`].
//!
//! Reading accepts `Date` as `ДД.ММ.ГГГГ`, an ISO 8601 date or date-time (with an offset it is
//! taken in Moscow time), and `Sum` as a JSON number or a numeric string, read exactly (never
//! through `f64`). Writing has one canonical form: `Date` as `ДД.ММ.ГГГГ`, `Sum` a number with
//! two decimals, `TypeIndicator` `0` when there is no UIN, and budget fields `0` when they have
//! no value.

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use clientbank_format::Encoding;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use clientbank_diagnostic::{Code, Diagnostic, Message, tr};

use crate::finding::{Field, about, position};
use crate::payment::{Budget, Payment, ThirdParty};
use crate::validate::{Context, validate_in};

/// `parameters.targetStatus` that sends a payment straight to signing.
pub const IN_SIGNING: &str = "InSigning";

/// The body of `POST /operation-upload`. Its texts are `String`s; `convert` serialises
/// requests whose texts are borrowed from the 1C file (`UploadRequest<&str>`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de> + Default"))]
pub struct UploadRequest<T = String> {
    /// The payment order.
    pub payment: PaymentJson<T>,
    /// Upload options; absent: the payment is created as a draft.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Parameters>,
}

/// Upload options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parameters {
    /// `InSigning` sends the payment straight to signing; absent: a draft.
    #[serde(
        rename = "targetStatus",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub target_status: Option<String>,
}

/// The `payment` object of an upload request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    rename_all = "PascalCase",
    bound(deserialize = "T: Deserialize<'de> + Default")
)]
#[allow(missing_docs)]
pub struct PaymentJson<T = String> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<T>,
    #[serde(default, with = "date", skip_serializing_if = "Option::is_none")]
    pub date: Option<NaiveDate>,
    #[serde(
        default,
        with = "rust_decimal::serde::arbitrary_precision_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub sum: Option<Decimal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer_account: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient_name: Option<T>,
    #[serde(
        rename = "RecipientINN",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub recipient_inn: Option<T>,
    #[serde(
        rename = "RecipientKPP",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub recipient_kpp: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient_account: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient_bank_bik: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient_bank_corr_account: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_purpose: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_indicator: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer_status: Option<T>,
    #[serde(rename = "KBK", default, skip_serializing_if = "Option::is_none")]
    pub kbk: Option<T>,
    #[serde(rename = "OKTMO", default, skip_serializing_if = "Option::is_none")]
    pub oktmo: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_base: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_doc_number: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_doc_date: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_purpose_code: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer_inn: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payform_data_third_person: Option<ThirdPersonJson<T>>,
}

/// `PayformDataThirdPerson`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de> + Default"))]
#[allow(missing_docs)]
pub struct ThirdPersonJson<T = String> {
    #[serde(rename = "Name", default)]
    pub name: T,
    #[serde(rename = "INN", default)]
    pub inn: T,
    #[serde(rename = "KPP", default)]
    pub kpp: T,
}

/// The field names of `payment`: [`read_field`] reads each (a test holds them together).
#[cfg(test)]
const PAYMENT_FIELDS: &[&str] = &[
    "Number",
    "Date",
    "Sum",
    "PayerAccount",
    "RecipientName",
    "RecipientINN",
    "RecipientKPP",
    "RecipientAccount",
    "RecipientBankBik",
    "RecipientBankCorrAccount",
    "PaymentPurpose",
    "TypeIndicator",
    "PayerStatus",
    "KBK",
    "OKTMO",
    "PaymentBase",
    "Period",
    "BudgetDocNumber",
    "BudgetDocDate",
    "PaymentPurposeCode",
    "PayerInn",
    "PayformDataThirdPerson",
];

/// `Date`: `ДД.ММ.ГГГГ` written; read also as ISO 8601.
mod date {
    use super::*;
    use serde::{Deserializer, Serializer, de::Error};

    pub(super) fn serialize<S: Serializer>(
        date: &Option<NaiveDate>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match date {
            Some(date) => serializer.serialize_str(&clientbank_format::value::format_date(*date)),
            None => serializer.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<NaiveDate>, D::Error> {
        let text: Option<String> = Option::deserialize(deserializer)?;
        match text.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(text) => parse_date(text).map(Some).ok_or_else(|| {
                D::Error::custom(format!(
                    "Date: expected ДД.ММ.ГГГГ or an ISO 8601 date-time, found {text:?}"
                ))
            }),
        }
    }
}

/// A date as the upload request may carry it: `ДД.ММ.ГГГГ`, `YYYY-MM-DD`, or an ISO 8601
/// date-time with optional fractions and offset. A date-time with an offset is taken in Moscow
/// time (UTC+3), the bank's time.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    if let Some(date) = clientbank_format::value::parse_date(text.as_bytes()) {
        return Some(date);
    }
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Some(date);
    }
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some(at.with_timezone(&crate::clock::MOSCOW).date_naive());
    }
    NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
        .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M"))
        .ok()
        .map(|at| at.date())
}

/// One request of a JSON upload, as far as it could be read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadRequest {
    /// The request; a value that could not be read leaves its field empty.
    pub request: UploadRequest,
    /// Whether it is an upload request at all (an object with a `payment` object). One that is
    /// not has only its reading finding and is not validated.
    pub readable: bool,
    /// What reading found, located: fields the request does not have (`unknown-field`),
    /// values of the wrong type or form (`json-invalid`).
    pub findings: Vec<Diagnostic>,
    /// The 1-based line where the request starts.
    pub line: Option<u32>,
    /// The line of each payment field present, by its JSON name (`Date`,
    /// `PayformDataThirdPerson.INN`).
    pub lines: Vec<(String, u32)>,
    /// The fields whose values could not be read.
    pub unread: Vec<Field>,
}

impl ReadRequest {
    /// The line of the field named `field` (`RecipientINN`) when the JSON has it, else the
    /// request's.
    pub fn line_of(&self, field: Option<&str>) -> Option<u32> {
        field
            .and_then(|name| self.lines.iter().find(|(n, _)| n == name))
            .map(|&(_, line)| line)
            .or(self.line)
    }

    /// The request's findings: reading's, then every rule's (characters checked against
    /// `encoding`), each located by its field's line and marked as payment `index` (0-based).
    /// A field whose value could not be read is not reported missing as well.
    pub fn validate(&self, index: usize, context: &Context, encoding: Encoding) -> Vec<Diagnostic> {
        let mut findings = self.findings.clone();
        if self.readable {
            let payment = self.request.payment.to_payment();
            findings.extend(self.locate(validate_in(&payment, context, encoding)));
        }
        for finding in &mut findings {
            finding.payment = Some(position(index));
        }
        findings
    }

    /// Validation findings of this request located by their field's line; a field whose value
    /// could not be read is not reported missing as well.
    pub(crate) fn locate(&self, mut found: Vec<Diagnostic>) -> Vec<Diagnostic> {
        found.retain(|f| {
            f.code != Code::Missing
                || !self
                    .unread
                    .iter()
                    .any(|x| x.json().is_some() && x.json() == f.field)
        });
        for finding in &mut found {
            if finding.line.is_none() {
                finding.line = self.line_of(finding.field);
            }
        }
        found
    }
}

/// The lines of a text, for locating offsets without rescanning it. The text's buffer must
/// not move while the index is used (the index of an [`Upload`] is of its own bytes).
#[derive(Debug)]
struct LineIndex {
    base: usize,
    newlines: Vec<usize>,
}

impl LineIndex {
    fn new(text: &[u8]) -> LineIndex {
        LineIndex {
            base: text.as_ptr() as usize,
            newlines: memchr::memchr_iter(b'\n', text).collect(),
        }
    }

    /// The 1-based line of a slice of the text.
    fn line_of(&self, slice: &str) -> u32 {
        let offset = (slice.as_ptr() as usize).saturating_sub(self.base);
        u32::try_from(self.newlines.partition_point(|&nl| nl < offset) + 1).unwrap_or(u32::MAX)
    }

    /// The line of an error serde_json reports inside `slice`.
    fn line_in(&self, slice: &str, error: &serde_json::Error) -> u32 {
        self.line_of(slice)
            .saturating_add(u32::try_from(error.line().saturating_sub(1)).unwrap_or(0))
    }
}

/// The members of a JSON object in file order, values unread.
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Entries<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Entries<'de>, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(Members)
    }
}

/// What a JSON value is, for messages, in English and Russian.
fn kind_of(raw: &str) -> (&'static str, &'static str) {
    match raw.trim_start().bytes().next() {
        Some(b'{') => ("an object", "объект"),
        Some(b'[') => ("an array", "массив"),
        Some(b'"') => ("a string", "строка"),
        Some(b't' | b'f') => ("a boolean", "логическое значение"),
        Some(b'n') => ("null", "null"),
        _ => ("a number", "число"),
    }
}

/// A value as found (a string's text, other values as written), short enough for a message.
fn shown(raw: &str) -> String {
    let decoded = serde_json::from_str::<String>(raw).ok();
    let raw = decoded.as_deref().unwrap_or(raw.trim());
    match raw.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &raw[..at]),
        None => raw.to_string(),
    }
}

fn object_members(raw: &RawValue) -> Option<Vec<(String, &RawValue)>> {
    if !raw.get().trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str::<Entries<'_>>(raw.get())
        .ok()
        .map(|e| e.0)
}

fn text_value(raw: &str) -> Result<Option<String>, Message> {
    serde_json::from_str::<Option<String>>(raw).map_err(|_| {
        let (kind, kind_ru) = kind_of(raw);
        tr!(
            "expected a string in quotes, found {kind}" ;
            "ожидается строка в кавычках, а найдено: {kind_ru}"
        )
    })
}

/// Reads one member of `payment` into `json`; `None` when the request has no such field.
fn read_field(json: &mut PaymentJson, name: &str, raw: &str) -> Option<Result<(), Message>> {
    let text = |slot: &mut Option<String>| text_value(raw).map(|v| *slot = v);
    Some(match name {
        "Number" => text(&mut json.number),
        "Date" => text_value(raw).and_then(|v| {
            json.date = match v.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(value) => Some(parse_date(value).ok_or_else(|| {
                    Message::new(
                        "expected a date that exists, written ДД.ММ.ГГГГ, YYYY-MM-DD or as an ISO \
                         8601 date-time",
                        "ожидается существующая дата в виде ДД.ММ.ГГГГ, ГГГГ-ММ-ДД или даты-времени \
                         ISO 8601",
                    )
                })?),
            };
            Ok(())
        }),
        "Sum" => {
            let mut deserializer = serde_json::Deserializer::from_str(raw);
            rust_decimal::serde::arbitrary_precision_option::deserialize(&mut deserializer)
                .map(|sum| json.sum = sum)
                .map_err(|_| {
                    Message::new(
                        "expected an amount: a number or a numeric string such as 1500.00",
                        "ожидается сумма: число или строка с числом, например 1500.00",
                    )
                })
        }
        "PayerAccount" => text(&mut json.payer_account),
        "RecipientName" => text(&mut json.recipient_name),
        "RecipientINN" => text(&mut json.recipient_inn),
        "RecipientKPP" => text(&mut json.recipient_kpp),
        "RecipientAccount" => text(&mut json.recipient_account),
        "RecipientBankBik" => text(&mut json.recipient_bank_bik),
        "RecipientBankCorrAccount" => text(&mut json.recipient_bank_corr_account),
        "PaymentPurpose" => text(&mut json.payment_purpose),
        "TypeIndicator" => text(&mut json.type_indicator),
        "PayerStatus" => text(&mut json.payer_status),
        "KBK" => text(&mut json.kbk),
        "OKTMO" => text(&mut json.oktmo),
        "PaymentBase" => text(&mut json.payment_base),
        "Period" => text(&mut json.period),
        "BudgetDocNumber" => text(&mut json.budget_doc_number),
        "BudgetDocDate" => text(&mut json.budget_doc_date),
        "PaymentPurposeCode" => text(&mut json.payment_purpose_code),
        "PayerInn" => text(&mut json.payer_inn),
        _ => return None,
    })
}

/// Reads requests one by one, field by field, so that one bad value is that payment's finding.
struct Reading<'t> {
    lines: &'t LineIndex,
    read: ReadRequest,
    seen: Vec<String>,
}

impl Reading<'_> {
    fn invalid(&mut self, field: Option<Field>, raw: &str, line: u32, message: Message) {
        let finding = about(Code::JsonInvalid, field, message)
            .found(shown(raw))
            .line(line);
        self.read.findings.push(finding);
        if let Some(field) = field {
            self.read.unread.push(field);
        }
    }

    fn unknown(&mut self, name: String, line: u32) {
        let finding = Diagnostic::new(
            Code::UnknownField,
            tr!(
                "the upload request has no field {name}; it is ignored" ;
                "в запросе на загрузку нет поля {name}; оно пропущено"
            ),
        )
        .found(name)
        .line(line);
        self.read.findings.push(finding);
    }

    /// A member seen before: the request has each field once.
    fn repeated(&mut self, name: &str, field: Option<Field>, raw: &RawValue) -> bool {
        if !self.seen.iter().any(|n| n == name) {
            self.seen.push(name.to_string());
            return false;
        }
        let line = self.lines.line_of(raw.get());
        let finding = about(
            Code::JsonInvalid,
            field,
            tr!(
                "{name} is given twice; the first value is read — keep one" ;
                "{name} указано дважды; читается первое значение — оставьте одно"
            ),
        )
        .found(shown(raw.get()))
        .line(line);
        self.read.findings.push(finding);
        true
    }

    fn payment(&mut self, members: Vec<(String, &RawValue)>) {
        for (name, raw) in members {
            let field = Field::ALL.iter().copied().find(|f| f.json() == Some(&name));
            if self.repeated(&format!("payment.{name}"), field, raw) {
                continue;
            }
            let line = self.lines.line_of(raw.get());
            if name == "PayformDataThirdPerson" {
                self.read.lines.push((name, line));
                self.third_person(raw);
                continue;
            }
            match read_field(&mut self.read.request.payment, &name, raw.get()) {
                None => self.unknown(format!("payment.{name}"), line),
                Some(Ok(())) => self.read.lines.push((name, line)),
                Some(Err(why)) => {
                    let message = tr!("{name}: {}", why.en() ; "{name}: {}", why.ru());
                    self.read.lines.push((name, line));
                    self.invalid(field, raw.get(), line, message);
                }
            }
        }
    }

    fn third_person(&mut self, raw: &RawValue) {
        let line = self.lines.line_of(raw.get());
        if raw.get().trim() == "null" {
            return;
        }
        let Some(members) = object_members(raw) else {
            let (kind, kind_ru) = kind_of(raw.get());
            let message = tr!(
                "PayformDataThirdPerson: expected an object {{\"Name\", \"INN\", \"KPP\"}}, \
                 found {kind}" ;
                "PayformDataThirdPerson: ожидается объект {{\"Name\", \"INN\", \"KPP\"}}, \
                 а найдено: {kind_ru}"
            );
            self.invalid(Some(Field::ThirdPartyName), raw.get(), line, message);
            return;
        };
        let mut third = ThirdPersonJson::default();
        for (name, value) in members {
            let full = format!("PayformDataThirdPerson.{name}");
            let field = Field::ALL.iter().copied().find(|f| f.json() == Some(&full));
            if self.repeated(&format!("payment.{full}"), field, value) {
                continue;
            }
            let line = self.lines.line_of(value.get());
            let slot = match name.as_str() {
                "Name" => &mut third.name,
                "INN" => &mut third.inn,
                "KPP" => &mut third.kpp,
                _ => {
                    self.unknown(format!("payment.{full}"), line);
                    continue;
                }
            };
            self.read.lines.push((full.clone(), line));
            match text_value(value.get()) {
                Ok(text) => *slot = text.unwrap_or_default(),
                Err(why) => {
                    let message = tr!("{full}: {}", why.en() ; "{full}: {}", why.ru());
                    self.invalid(field, value.get(), line, message);
                }
            }
        }
        self.read.request.payment.payform_data_third_person = Some(third);
    }

    fn request(&mut self, raw: &RawValue) {
        let line = self.lines.line_of(raw.get());
        self.read.line = Some(line);
        let Some(members) = object_members(raw) else {
            let (kind, kind_ru) = kind_of(raw.get());
            let message = tr!(
                "expected an upload request {{\"payment\": {{…}}}}, found {kind}" ;
                "ожидается запрос на загрузку {{\"payment\": {{…}}}}, а найдено: {kind_ru}"
            );
            self.invalid(None, raw.get(), line, message);
            return;
        };
        let mut payment = None;
        let mut top = Vec::new();
        for (name, value) in members {
            if self.repeated(&name, None, value) {
                continue;
            }
            let line = self.lines.line_of(value.get());
            match name.as_str() {
                "payment" => payment = Some(value),
                "parameters" => match serde_json::from_str::<Option<Parameters>>(value.get()) {
                    Ok(parameters) => self.read.request.parameters = parameters,
                    Err(e) => {
                        let line = self.lines.line_in(value.get(), &e);
                        let message = tr!(
                            "parameters: {e}" ;
                            "parameters: неверное значение ({e})"
                        );
                        self.invalid(None, value.get(), line, message);
                    }
                },
                _ => top.push((name, line)),
            }
        }
        for (name, line) in top {
            self.unknown(name, line);
        }
        match payment {
            None => {
                let message = Message::new(
                    "the request has no \"payment\" object",
                    "в запросе нет объекта \"payment\"",
                );
                self.invalid(None, "", line, message);
                if let Some(finding) = self.read.findings.last_mut() {
                    finding.found = None;
                }
            }
            Some(raw) => match object_members(raw) {
                Some(members) => {
                    self.read.readable = true;
                    self.payment(members);
                }
                None => {
                    let line = self.lines.line_of(raw.get());
                    let (kind, kind_ru) = kind_of(raw.get());
                    let message = tr!(
                        "payment: expected an object, found {kind}" ;
                        "payment: ожидается объект, а найдено: {kind_ru}"
                    );
                    self.invalid(None, raw.get(), line, message);
                }
            },
        }
    }
}

/// Reads a JSON upload: one upload request or an array of them, in UTF-8 (a byte order mark
/// before it is skipped). Input that is not an upload at all — not UTF-8, a syntax error, a
/// value other than an object or an array — is refused with one finding and its line. Anything
/// else is read request by request and field by field: a request that is not an object, a
/// value of the wrong type or form (`"Date": "31.11.2026"`, `"Sum": "12,50"`), a field the
/// request does not have are findings of that request, located by line, and every other
/// request and field is still read.
pub fn read_upload(bytes: &[u8]) -> Result<Vec<ReadRequest>, Box<Diagnostic>> {
    let upload = Upload::new(bytes.to_vec()).map_err(|(refusal, _)| refusal)?;
    Ok((0..upload.len()).map(|index| upload.read(index)).collect())
}

/// A JSON upload checked and cut into its requests; each request is read when asked for, so
/// that the requests are never all held at once.
#[derive(Debug)]
pub(crate) struct Upload {
    bytes: Vec<u8>,
    /// Where each request stands in `bytes`.
    elements: Vec<std::ops::Range<usize>>,
    lines: LineIndex,
}

impl Upload {
    /// Checks that `bytes` are an upload (UTF-8, JSON, an object or an array); refused with
    /// one finding and the bytes back otherwise.
    pub(crate) fn new(bytes: Vec<u8>) -> Result<Upload, (Box<Diagnostic>, Vec<u8>)> {
        let body = if bytes.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let (elements, lines) = match Upload::cut(&bytes, body) {
            Ok(cut) => cut,
            Err(refusal) => return Err((refusal, bytes)),
        };
        Ok(Upload {
            bytes,
            elements,
            lines,
        })
    }

    fn cut(
        bytes: &[u8],
        body: usize,
    ) -> Result<(Vec<std::ops::Range<usize>>, LineIndex), Box<Diagnostic>> {
        let refuse = |message: Message, line: usize| {
            let mut finding = Diagnostic::new(Code::JsonInvalid, message);
            finding.line = u32::try_from(line).ok().filter(|&l| l > 0);
            Box::new(finding)
        };
        let text = std::str::from_utf8(&bytes[body..]).map_err(|e| {
            let at = e.valid_up_to();
            let line = bytes[body..body + at]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            let byte = at + 1;
            refuse(
                tr!(
                    "the upload request is not UTF-8 (byte {byte} is not)" ;
                    "запрос на загрузку не в UTF-8 (байт {byte} — не UTF-8)"
                ),
                line,
            )
        })?;
        // A syntax error is described as a plain reading describes it ("trailing comma").
        let syntax = |e: serde_json::Error| {
            let e = serde_json::from_str::<serde_json::Value>(text)
                .err()
                .unwrap_or(e);
            refuse(syntax_message(&e), e.line())
        };
        let top: &RawValue = serde_json::from_str(text).map_err(syntax)?;
        let lines = LineIndex::new(bytes);
        let items: Vec<&RawValue> = match top.get().trim_start().bytes().next() {
            Some(b'[') => {
                serde_json::from_str(top.get()).map_err(|e| refuse(syntax_message(&e), e.line()))?
            }
            Some(b'{') => vec![top],
            _ => {
                let (kind, kind_ru) = kind_of(top.get());
                return Err(refuse(
                    tr!(
                        "expected an upload request {{\"payment\": {{…}}}} or an array of them, \
                         found {kind}" ;
                        "ожидается запрос на загрузку {{\"payment\": {{…}}}} или массив таких \
                         запросов, а найдено: {kind_ru}"
                    ),
                    lines.line_of(top.get()) as usize,
                ));
            }
        };
        let base = bytes.as_ptr() as usize;
        let elements = items
            .into_iter()
            .map(|raw| {
                let start = (raw.get().as_ptr() as usize).saturating_sub(base);
                start..start + raw.get().len()
            })
            .collect();
        Ok((elements, lines))
    }

    /// How many requests (elements of the array) the upload holds.
    pub(crate) fn len(&self) -> usize {
        self.elements.len()
    }

    /// The bytes as given.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Request `index` (0-based), read field by field.
    pub(crate) fn read(&self, index: usize) -> ReadRequest {
        let mut reading = Reading {
            lines: &self.lines,
            read: ReadRequest::default(),
            seen: Vec::new(),
        };
        let element = self
            .elements
            .get(index)
            .and_then(|range| self.bytes.get(range.clone()))
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
            .and_then(|text| serde_json::from_str::<&RawValue>(text).ok());
        if let Some(raw) = element {
            reading.request(raw);
        }
        for finding in &mut reading.read.findings {
            finding.payment = Some(position(index));
        }
        reading.read
    }
}

/// Reads a JSON file holding one upload request or an array of them: [`read_upload`], with
/// one request per element of the array (empty where the element is not a request) and
/// reading's findings of them all.
pub fn read_requests(
    bytes: &[u8],
) -> Result<(Vec<UploadRequest>, Vec<Diagnostic>), Box<Diagnostic>> {
    let mut requests = Vec::new();
    let mut findings = Vec::new();
    for read in read_upload(bytes)? {
        findings.extend(read.findings);
        requests.push(read.request);
    }
    Ok((requests, findings))
}

/// A syntax error as serde_json describes it ("trailing comma at line 3 column 5"), and in
/// Russian words ("лишняя запятая (строка 3, столбец 5)"); a description not known here stays
/// as serde_json gives it.
fn syntax_message(e: &serde_json::Error) -> Message {
    let en = e.to_string();
    let what = en
        .rsplit_once(" at line ")
        .map_or(en.as_str(), |(what, _)| what);
    let words = [
        (
            "EOF while parsing a value",
            "файл кончился, не дойдя до значения",
        ),
        (
            "EOF while parsing a list",
            "файл кончился внутри списка [ … ]",
        ),
        (
            "EOF while parsing an object",
            "файл кончился внутри объекта { … }",
        ),
        ("EOF while parsing a string", "файл кончился внутри строки"),
        ("trailing comma", "лишняя запятая"),
        ("trailing characters", "лишние символы после конца JSON"),
        ("expected value", "ожидается значение"),
        ("expected `,` or `]`", "ожидается `,` или `]`"),
        ("expected `,` or `}`", "ожидается `,` или `}`"),
        ("expected `:`", "ожидается `:`"),
        ("expected ident", "ожидается true, false или null"),
        (
            "key must be a string",
            "ключ должен быть строкой в кавычках",
        ),
        ("invalid escape", "неверная escape-последовательность (\\…)"),
        ("invalid number", "неверное число"),
        ("number out of range", "число вне допустимого диапазона"),
        ("invalid unicode code point", "неверный код символа Unicode"),
        (
            "control character (\\u0000-\\u001F) found while parsing a string",
            "управляющий символ внутри строки",
        ),
        ("recursion limit exceeded", "слишком глубокая вложенность"),
    ];
    let ru = words
        .iter()
        .find(|(said, _)| *said == what)
        .map_or_else(|| what.to_string(), |(_, ru)| ru.to_string());
    let place = if e.line() > 0 {
        format!(" (строка {}, столбец {})", e.line(), e.column())
    } else {
        String::new()
    };
    Message::new(en.clone(), format!("ошибка синтаксиса JSON: {ru}{place}"))
}

fn nonempty(value: &Option<String>) -> Option<String> {
    value
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .map(str::to_string)
}

/// A budget field that is filled: not empty and not the `0` placeholder.
fn filled(value: &Option<String>) -> bool {
    value
        .as_deref()
        .is_some_and(|v| !matches!(v.trim(), "" | "0"))
}

impl PaymentJson {
    /// The payment this request describes. Fields the JSON does not have (the payer's INN,
    /// KPP, name and bank, which the bank takes from `PayerAccount`; priority) stay empty.
    pub fn to_payment(&self) -> Payment {
        let budget_present = nonempty(&self.payer_status).is_some()
            || [
                &self.kbk,
                &self.oktmo,
                &self.payment_base,
                &self.period,
                &self.budget_doc_number,
                &self.budget_doc_date,
                &self.payer_inn,
            ]
            .into_iter()
            .any(filled)
            || self.payform_data_third_person.is_some();
        let mut payment = Payment {
            number: nonempty(&self.number),
            date: self.date,
            sum: self.sum,
            purpose: nonempty(&self.payment_purpose),
            uin: nonempty(&self.type_indicator).filter(|v| v.trim() != "0"),
            purpose_code: nonempty(&self.payment_purpose_code),
            ..Payment::default()
        };
        payment.payer.account = nonempty(&self.payer_account);
        let recipient = &mut payment.recipient;
        recipient.name = nonempty(&self.recipient_name);
        recipient.inn = nonempty(&self.recipient_inn);
        recipient.kpp = nonempty(&self.recipient_kpp);
        recipient.account = nonempty(&self.recipient_account);
        recipient.bank.bik = nonempty(&self.recipient_bank_bik);
        recipient.bank.corr_account = nonempty(&self.recipient_bank_corr_account);
        if budget_present {
            payment.budget = Some(Budget {
                payer_status: nonempty(&self.payer_status),
                kbk: nonempty(&self.kbk),
                oktmo: nonempty(&self.oktmo),
                basis: nonempty(&self.payment_base),
                period: nonempty(&self.period),
                number: nonempty(&self.budget_doc_number),
                date: nonempty(&self.budget_doc_date),
                payment_type: None,
            });
        }
        payment.deduction_inn = nonempty(&self.payer_inn);
        payment.third_party = self.payform_data_third_person.as_ref().map(|t| ThirdParty {
            name: t.name.clone(),
            inn: t.inn.clone(),
            kpp: t.kpp.clone(),
        });
        payment
    }

    /// The request for a payment, canonically; and a finding for each field of the payment that
    /// the JSON route cannot carry.
    pub fn from_payment(payment: &Payment) -> (PaymentJson, Vec<Diagnostic>) {
        PaymentJson::from_payment_with(payment, str::to_string)
    }
}

impl<U: Default> PaymentJson<U> {
    /// The request for `payment`, canonically, each text made by `text` (`str::to_string`
    /// for an owned request, nothing for one that borrows the payment's texts); and a finding
    /// for each field of the payment that the JSON route cannot carry.
    pub fn from_payment_with<'a, T: AsRef<str>>(
        payment: &'a Payment<T>,
        text: impl Fn(&'a str) -> U,
    ) -> (PaymentJson<U>, Vec<Diagnostic>) {
        let mut findings = Vec::new();
        let some = |v: &'a Option<T>| v.as_ref().map(|v| text(v.as_ref()));
        let zero = |v: Option<&'a T>| Some(text(v.map_or("0", AsRef::as_ref)));
        let mut json = PaymentJson {
            number: some(&payment.number),
            date: payment.date,
            sum: payment.sum.map(|mut sum| {
                if sum.scale() < 2 {
                    sum.rescale(2);
                }
                sum
            }),
            payer_account: some(&payment.payer.account),
            recipient_name: some(&payment.recipient.name),
            recipient_inn: some(&payment.recipient.inn),
            recipient_kpp: some(&payment.recipient.kpp),
            recipient_account: some(&payment.recipient.account),
            recipient_bank_bik: some(&payment.recipient.bank.bik),
            recipient_bank_corr_account: some(&payment.recipient.bank.corr_account),
            payment_purpose: some(&payment.purpose),
            type_indicator: zero(payment.uin.as_ref()),
            payment_purpose_code: some(&payment.purpose_code),
            payer_inn: some(&payment.deduction_inn),
            ..PaymentJson::default()
        };
        if payment.budget.is_some() || payment.third_party.is_some() {
            let budget = payment.budget.as_ref();
            let field = |f: fn(&Budget<T>) -> &Option<T>| budget.and_then(|b| f(b).as_ref());
            json.payer_status = field(|b| &b.payer_status).map(|v| text(v.as_ref()));
            json.kbk = zero(field(|b| &b.kbk));
            json.oktmo = zero(field(|b| &b.oktmo));
            json.payment_base = zero(field(|b| &b.basis));
            json.period = zero(field(|b| &b.period));
            json.budget_doc_number = zero(field(|b| &b.number));
            json.budget_doc_date = zero(field(|b| &b.date));
            if let Some(kind) = field(|b| &b.payment_type)
                .map(AsRef::as_ref)
                .filter(|t| !matches!(t.trim(), "" | "0"))
            {
                findings.push(
                    about(
                        Code::NotCarried,
                        Some(Field::PaymentType),
                        Message::new(
                            "the JSON request has no field 110 (obsolete since 2015); it is not sent",
                            "в JSON-запросе нет поля 110 (не заполняется с 2015 года); оно не \
                             отправляется",
                        ),
                    )
                    .found(kind),
                );
            }
        }
        json.payform_data_third_person = payment.third_party.as_ref().map(|t| {
            let kpp = t.kpp.as_ref();
            ThirdPersonJson {
                name: text(t.name.as_ref()),
                inn: text(t.inn.as_ref()),
                kpp: text(if kpp.is_empty() { "0" } else { kpp }),
            }
        });
        if let Some(priority) = payment
            .priority
            .as_ref()
            .map(AsRef::as_ref)
            .filter(|p| p.trim() != "5")
        {
            findings.push(
                about(
                    Code::NotCarried,
                    Some(Field::Priority),
                    Message::new(
                        "the JSON request cannot carry the priority; the bank assigns 5 — \
                         upload the 1C file instead to keep it",
                        "JSON-запрос не передаёт очерёдность, банк поставит 5 — чтобы сохранить \
                         её, загрузите файл 1С",
                    ),
                )
                .found(priority),
            );
        }
        if let Some(kind) = payment
            .operation_kind
            .as_ref()
            .map(AsRef::as_ref)
            .filter(|k| k.trim() != "01")
        {
            findings.push(
                about(
                    Code::NotCarried,
                    Some(Field::OperationKind),
                    Message::new(
                        "the JSON request creates payment orders (01) only; this kind of \
                         operation is not sent",
                        "JSON-запрос создаёт только платёжные поручения (01); этот вид операции \
                         не отправляется",
                    ),
                )
                .found(kind),
            );
        }
        (json, findings)
    }
}

impl UploadRequest {
    /// A request for `payment`, created as a draft, or sent straight to signing when
    /// `in_signing`.
    pub fn new(payment: PaymentJson, in_signing: bool) -> UploadRequest {
        UploadRequest::of(payment, in_signing)
    }
}

impl<T> UploadRequest<T> {
    /// As [`UploadRequest::new`], for a payment of any texts (`UploadRequest<&str>` borrows
    /// them).
    pub fn of(payment: PaymentJson<T>, in_signing: bool) -> UploadRequest<T> {
        UploadRequest {
            payment,
            parameters: in_signing.then(|| Parameters {
                target_status: Some(IN_SIGNING.to_string()),
            }),
        }
    }
}

impl<T: AsRef<str>> UploadRequest<T> {
    /// The request as `serde_json`'s pretty printer writes it `depth` levels in (an element of
    /// an array: 1), by hand: `convert` writes a million of them, and serde's printer makes
    /// several calls for each key and value. Field for field, the order and the names of the
    /// `Serialize` derived above; a test holds the two to the same bytes.
    pub fn write_pretty(&self, depth: usize, out: &mut Vec<u8>) {
        let mut json = Pretty {
            out,
            depth,
            first: true,
        };
        let p = &self.payment;
        json.open();
        json.key("payment");
        json.open();
        json.text("Number", p.number.as_ref());
        if let Some(date) = p.date {
            json.text("Date", Some(&clientbank_format::value::format_date(date)));
        }
        if let Some(sum) = p.sum {
            json.key("Sum");
            json.out.extend_from_slice(sum.to_string().as_bytes());
        }
        for (key, value) in [
            ("PayerAccount", &p.payer_account),
            ("RecipientName", &p.recipient_name),
            ("RecipientINN", &p.recipient_inn),
            ("RecipientKPP", &p.recipient_kpp),
            ("RecipientAccount", &p.recipient_account),
            ("RecipientBankBik", &p.recipient_bank_bik),
            ("RecipientBankCorrAccount", &p.recipient_bank_corr_account),
            ("PaymentPurpose", &p.payment_purpose),
            ("TypeIndicator", &p.type_indicator),
            ("PayerStatus", &p.payer_status),
            ("KBK", &p.kbk),
            ("OKTMO", &p.oktmo),
            ("PaymentBase", &p.payment_base),
            ("Period", &p.period),
            ("BudgetDocNumber", &p.budget_doc_number),
            ("BudgetDocDate", &p.budget_doc_date),
            ("PaymentPurposeCode", &p.payment_purpose_code),
            ("PayerInn", &p.payer_inn),
        ] {
            json.text(key, value.as_ref());
        }
        if let Some(third) = &p.payform_data_third_person {
            json.key("PayformDataThirdPerson");
            json.open();
            json.text("Name", Some(&third.name));
            json.text("INN", Some(&third.inn));
            json.text("KPP", Some(&third.kpp));
            json.close();
        }
        json.close();
        if let Some(parameters) = &self.parameters {
            json.key("parameters");
            json.open();
            json.text("targetStatus", parameters.target_status.as_ref());
            json.close();
        }
        json.close();
    }
}

/// An object being written as `serde_json`'s `PrettyFormatter` writes it: two spaces a level.
struct Pretty<'o> {
    out: &'o mut Vec<u8>,
    depth: usize,
    /// No key yet in the object open.
    first: bool,
}

impl Pretty<'_> {
    fn open(&mut self) {
        self.out.push(b'{');
        self.depth += 1;
        self.first = true;
    }

    fn close(&mut self) {
        self.depth -= 1;
        if !self.first {
            self.out.push(b'\n');
            self.indent();
        }
        self.out.push(b'}');
        self.first = false;
    }

    fn indent(&mut self) {
        // The indentation of any request's depth, written at once; deeper, two spaces a level.
        const SPACES: &[u8; 16] = b"                ";
        match SPACES.get(..2 * self.depth) {
            Some(spaces) => self.out.extend_from_slice(spaces),
            None => (0..self.depth).for_each(|_| self.out.extend_from_slice(b"  ")),
        }
    }

    /// `"key": `, after a comma unless it is the object's first. Inlined, so that each call's
    /// key is written as the constant it is.
    #[inline]
    fn key(&mut self, key: &str) {
        self.out
            .extend_from_slice(if self.first { b"\n" } else { b",\n" });
        self.indent();
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\": ");
        self.first = false;
    }

    /// `"key": "value"`, nothing for no value.
    #[inline]
    fn text(&mut self, key: &str, value: Option<&impl AsRef<str>>) {
        if let Some(value) = value {
            self.key(key);
            self.out.push(b'"');
            write_escaped(self.out, value.as_ref().as_bytes());
            self.out.push(b'"');
        }
    }
}

/// The inside of a JSON string (UTF-8 text), escaped exactly as `serde_json` escapes it: `"`,
/// `\\` and the control characters below U+0020 (the short forms where JSON has them, else
/// `\u00xx`).
pub fn write_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    // Most values need no escape: one pass without an early exit finds that out.
    let special = bytes.iter().fold(false, |any, &b| {
        any | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if !special {
        out.extend_from_slice(bytes);
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xF)]);
            }
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

#[cfg(test)]
mod tests {

    #[test]
    fn escaped_as_serde_json_escapes() {
        let mut text: String = (0..0x100u32).filter_map(char::from_u32).collect();
        text.push_str("Назначение «№ 5» — \u{2028}\u{FFFD}");
        let mut ours = b"\"".to_vec();
        super::write_escaped(&mut ours, text.as_bytes());
        ours.push(b'"');
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            serde_json::to_string(&text).unwrap()
        );
    }

    /// Issue 19: serde_json's syntax errors in Russian words, with the line and column.
    #[test]
    fn syntax_errors_are_said_in_russian() {
        for (text, ru) in [
            (
                "[{\"a\": 1,}]",
                "ошибка синтаксиса JSON: лишняя запятая (строка 1, столбец 10)",
            ),
            (
                "[{\"a\": ",
                "ошибка синтаксиса JSON: файл кончился, не дойдя до значения",
            ),
            (
                "{\"a\": \"\\q\"}",
                "ошибка синтаксиса JSON: неверная escape-последовательность",
            ),
        ] {
            let e = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
            let said = syntax_message(&e);
            assert_eq!(said.en(), e.to_string());
            assert!(said.ru().starts_with(ru), "{text}: {}", said.ru());
            assert!(!said.ru().contains("at line"), "{}", said.ru());
        }
    }
    use super::*;

    #[test]
    fn dates_in_every_accepted_form() {
        let d = NaiveDate::from_ymd_opt(2024, 3, 28).unwrap();
        for text in [
            "28.03.2024",
            "2024-03-28",
            "2024-03-28T00:00:00",
            "2024-03-28T12:20:34.192",
            "2024-03-28T10:00",
            "2024-03-28T10:00:00+03:00",
            "2024-03-27T22:30:00Z",
        ] {
            assert_eq!(parse_date(text), Some(d), "{text}");
        }
        for text in [
            "28.3.2024",
            "2024-02-30",
            "yesterday",
            "2024-03-28T25:00:00",
        ] {
            assert_eq!(parse_date(text), None, "{text}");
        }
    }

    #[test]
    fn sums_are_read_exactly_from_numbers_and_strings() {
        for (text, expected) in [
            ("1234.5", "1234.5"),
            ("\"1234.50\"", "1234.50"),
            ("0.1", "0.1"),
            ("12345678901234567.89", "12345678901234567.89"),
        ] {
            let json = format!(r#"{{"payment": {{"Sum": {text}}}}}"#);
            let request: UploadRequest = serde_json::from_str(&json).unwrap();
            assert_eq!(request.payment.sum.unwrap().to_string(), expected);
        }
    }

    #[test]
    fn writes_one_canonical_form() {
        let request = UploadRequest::new(
            PaymentJson {
                number: Some("7".into()),
                date: NaiveDate::from_ymd_opt(2024, 3, 28),
                sum: Some(Decimal::new(15000, 2)),
                ..PaymentJson::default()
            },
            true,
        );
        assert_eq!(
            serde_json::to_string(&request).unwrap(),
            r#"{"payment":{"Number":"7","Date":"28.03.2024","Sum":150.00},"parameters":{"targetStatus":"InSigning"}}"#
        );
    }

    #[test]
    fn every_field_of_the_request_is_read() {
        for name in PAYMENT_FIELDS {
            let mut json = PaymentJson::default();
            let known =
                *name == "PayformDataThirdPerson" || read_field(&mut json, name, "null").is_some();
            assert!(known, "{name}");
        }
        let request = UploadRequest::new(
            PaymentJson {
                number: Some("7".into()),
                date: NaiveDate::from_ymd_opt(2024, 3, 28),
                sum: Some(Decimal::new(15000, 2)),
                payer_account: Some("40702810938000012345".into()),
                recipient_name: Some("ООО".into()),
                recipient_inn: Some("7707083893".into()),
                recipient_kpp: Some("773601001".into()),
                recipient_account: Some("40702810210000054321".into()),
                recipient_bank_bik: Some("044525974".into()),
                recipient_bank_corr_account: Some("30101810145250000974".into()),
                payment_purpose: Some("Налог".into()),
                type_indicator: Some("0".into()),
                payer_status: Some("01".into()),
                kbk: Some("18201061201010000510".into()),
                oktmo: Some("0".into()),
                payment_base: Some("0".into()),
                period: Some("0".into()),
                budget_doc_number: Some("0".into()),
                budget_doc_date: Some("0".into()),
                payment_purpose_code: Some("1".into()),
                payer_inn: Some("500100732259".into()),
                payform_data_third_person: Some(ThirdPersonJson {
                    name: "Иванов".into(),
                    inn: "500100732259".into(),
                    kpp: "0".into(),
                }),
            },
            true,
        );
        let text = serde_json::to_string_pretty(&request).unwrap();
        let read = read_upload(text.as_bytes()).unwrap();
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].findings, []);
        assert_eq!(read[0].request, request);
        assert_eq!(read[0].lines.len(), 25, "{:?}", read[0].lines);
    }

    #[test]
    fn a_bad_value_is_its_payments_finding_with_its_line() {
        let bad = "[\n {\"payment\": {\n  \"RecipientINN\": 7707083893\n }},\n                    {\"payment\": {\"Number\": \"2\", \"Date\": \"31.11.2026\"}},\n                    {\"payment\": {\"Number\": \"3\",\n  \"Sum\": \"1 500,00\"}},\n                    {\"payment\": {\"Number\": \"4\", \"Sum\": 12.5}},\n 7\n]";
        let read = read_upload(bad.as_bytes()).unwrap();
        assert_eq!(read.len(), 5);
        let summary: Vec<_> = read
            .iter()
            .flat_map(|r| &r.findings)
            .map(|f| (f.code, f.field, f.payment, f.line))
            .collect();
        assert_eq!(
            summary,
            [
                (Code::JsonInvalid, Some("RecipientINN"), Some(1), Some(3)),
                (Code::JsonInvalid, Some("Date"), Some(2), Some(5)),
                (Code::JsonInvalid, Some("Sum"), Some(3), Some(7)),
                (Code::JsonInvalid, None, Some(5), Some(9)),
            ]
        );
        let inn = &read[0].findings[0];
        assert!(inn.message.en().contains("expected a string"), "{inn}");
        assert_eq!(inn.found.as_deref(), Some("7707083893"));
        assert!(
            read[1].findings[0].message.en().contains("exists"),
            "{}",
            read[1].findings[0]
        );
        // The rest of each payment is read.
        assert_eq!(read[1].request.payment.number.as_deref(), Some("2"));
        assert_eq!(read[1].request.payment.date, None);
        assert_eq!(read[3].request.payment.sum, Some(Decimal::new(125, 1)));
        assert!(read[..4].iter().all(|r| r.readable));
        assert!(!read[4].readable);
        // Validation does not call the unreadable Date missing, and locates by line.
        let found = read[1].validate(1, &Context::history(), Encoding::Cp1251);
        assert_eq!(found[0].code, Code::JsonInvalid);
        assert!(
            !found
                .iter()
                .any(|f| f.field == Some("Date") && f.code == Code::Missing)
        );
        assert!(
            found
                .iter()
                .all(|f| f.payment == Some(2) && f.line == Some(5))
        );
        // The unreadable element is not validated.
        assert_eq!(
            read[4]
                .validate(4, &Context::history(), Encoding::Cp1251)
                .len(),
            1
        );
    }

    #[test]
    fn only_input_that_is_no_upload_at_all_is_refused() {
        for (bad, line) in [
            (&b"[{\"payment\": {\"Number\": \"1\",}}]"[..], Some(1)),
            (b"\n\n42", Some(3)),
            (b"\"text\"", Some(1)),
            (b"{\"payment\": {\"Number\": \"\xff\"}}", Some(1)),
            (b"", Some(1)),
        ] {
            let finding = read_upload(bad).unwrap_err();
            assert_eq!(finding.code, Code::JsonInvalid);
            assert_eq!(finding.line, line, "{finding}");
        }
        // A byte order mark is not a reason to refuse.
        let with_bom = b"\xEF\xBB\xBF{\"payment\": {\"Number\": \"1\"}}";
        let read = read_upload(with_bom).unwrap();
        assert_eq!(read[0].request.payment.number.as_deref(), Some("1"));
        // Requests that are not requests, and fields given twice.
        let odd = br#"[{"parameters": {}}, {"payment": 5}, {"payment": {"Sum": 1, "Sum": 2}}]"#;
        let read = read_upload(odd).unwrap();
        let codes: Vec<_> = read
            .iter()
            .map(|r| (r.readable, r.findings.len()))
            .collect();
        assert_eq!(codes, [(false, 1), (false, 1), (true, 1)]);
        assert_eq!(read[2].request.payment.sum, Some(Decimal::ONE));
        assert!(read[2].findings[0].message.en().contains("twice"));
    }

    #[test]
    fn unknown_fields_are_findings() {
        let json = br#"{"payment": {"Number": "1", "Priority": "3"}, "extra": 1}"#;
        let (requests, findings) = read_requests(json).unwrap();
        assert_eq!(requests.len(), 1);
        let found: Vec<_> = findings.iter().map(|f| f.found.as_deref()).collect();
        assert_eq!(found, [Some("extra"), Some("payment.Priority")]);
    }
}
