//! The bank's JSON payment upload request (`POST /operation-upload`), field names exactly as
//! the API writes them, and its mapping to and from [`Payment`].
//!
//! Reading accepts `Date` as `ДД.ММ.ГГГГ`, an ISO 8601 date or date-time (with an offset it is
//! taken in Moscow time), and `Sum` as a JSON number or a numeric string, read exactly (never
//! through `f64`). Writing has one canonical form: `Date` as `ДД.ММ.ГГГГ`, `Sum` a number with
//! two decimals, `TypeIndicator` `0` when there is no UIN, and budget fields `0` when they have
//! no value.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::finding::{Code, Field, Finding};
use crate::payment::{Budget, Payment, ThirdParty};

/// `parameters.targetStatus` that sends a payment straight to signing.
pub const IN_SIGNING: &str = "InSigning";

/// The body of `POST /operation-upload`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadRequest {
    /// The payment order.
    pub payment: PaymentJson,
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
#[serde(rename_all = "PascalCase")]
#[allow(missing_docs)]
pub struct PaymentJson {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    #[serde(default, with = "date", skip_serializing_if = "Option::is_none")]
    pub date: Option<NaiveDate>,
    #[serde(
        default,
        with = "rust_decimal::serde::arbitrary_precision_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub sum: Option<Decimal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer_account: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient_name: Option<String>,
    #[serde(
        rename = "RecipientINN",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub recipient_inn: Option<String>,
    #[serde(
        rename = "RecipientKPP",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub recipient_kpp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient_account: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient_bank_bik: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient_bank_corr_account: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_purpose: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_indicator: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer_status: Option<String>,
    #[serde(rename = "KBK", default, skip_serializing_if = "Option::is_none")]
    pub kbk: Option<String>,
    #[serde(rename = "OKTMO", default, skip_serializing_if = "Option::is_none")]
    pub oktmo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_base: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_doc_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_doc_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_purpose_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer_inn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payform_data_third_person: Option<ThirdPersonJson>,
}

/// `PayformDataThirdPerson`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct ThirdPersonJson {
    #[serde(rename = "Name", default)]
    pub name: String,
    #[serde(rename = "INN", default)]
    pub inn: String,
    #[serde(rename = "KPP", default)]
    pub kpp: String,
}

/// The field names of `payment`, for reporting the ones the request does not have.
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
        let moscow = FixedOffset::east_opt(3 * 3600)?;
        return Some(at.with_timezone(&moscow).date_naive());
    }
    NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
        .or_else(|_| NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M"))
        .ok()
        .map(|at| at.date())
}

/// Reads a JSON file holding one upload request or an array of them. Syntax and type errors
/// refuse the input with the line and column; fields the request does not have are findings.
pub fn read_requests(bytes: &[u8]) -> Result<(Vec<UploadRequest>, Vec<Finding>), Finding> {
    let refuse = |e: serde_json::Error| {
        let mut finding = Finding::new(Code::JsonInvalid, None, e.to_string());
        finding.line = u32::try_from(e.line()).ok().filter(|&l| l > 0);
        finding
    };
    let value: Value = serde_json::from_slice(bytes).map_err(refuse)?;
    let requests = match &value {
        Value::Array(_) => serde_json::from_slice::<Vec<UploadRequest>>(bytes),
        Value::Object(_) => serde_json::from_slice::<UploadRequest>(bytes).map(|r| vec![r]),
        _ => {
            return Err(Finding::new(
                Code::JsonInvalid,
                None,
                "expected an upload request {\"payment\": {…}} or an array of them",
            ));
        }
    }
    .map_err(refuse)?;
    let objects: Vec<&Value> = match &value {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let mut findings = Vec::new();
    for (index, object) in objects.iter().enumerate() {
        let mut unknown = |name: String| {
            let mut finding = Finding::new(
                Code::UnknownField,
                None,
                format!("the upload request has no field {name}; it is ignored"),
            )
            .found(name);
            finding.payment = Some(index);
            findings.push(finding);
        };
        if let Some(map) = object.as_object() {
            for key in map.keys() {
                if !matches!(key.as_str(), "payment" | "parameters") {
                    unknown(key.clone());
                }
            }
            if let Some(payment) = map.get("payment").and_then(Value::as_object) {
                for key in payment.keys() {
                    if !PAYMENT_FIELDS.contains(&key.as_str()) {
                        unknown(format!("payment.{key}"));
                    }
                }
            }
        }
    }
    Ok((requests, findings))
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
    pub fn from_payment(payment: &Payment) -> (PaymentJson, Vec<Finding>) {
        let mut findings = Vec::new();
        let zero = |v: &Option<String>| Some(v.clone().unwrap_or_else(|| "0".to_string()));
        let mut json = PaymentJson {
            number: payment.number.clone(),
            date: payment.date,
            sum: payment.sum.map(|mut sum| {
                if sum.scale() < 2 {
                    sum.rescale(2);
                }
                sum
            }),
            payer_account: payment.payer.account.clone(),
            recipient_name: payment.recipient.name.clone(),
            recipient_inn: payment.recipient.inn.clone(),
            recipient_kpp: payment.recipient.kpp.clone(),
            recipient_account: payment.recipient.account.clone(),
            recipient_bank_bik: payment.recipient.bank.bik.clone(),
            recipient_bank_corr_account: payment.recipient.bank.corr_account.clone(),
            payment_purpose: payment.purpose.clone(),
            type_indicator: zero(&payment.uin),
            payment_purpose_code: payment.purpose_code.clone(),
            payer_inn: payment.deduction_inn.clone(),
            ..PaymentJson::default()
        };
        if payment.budget.is_some() || payment.third_party.is_some() {
            let budget = payment.budget.clone().unwrap_or_default();
            json.payer_status = budget.payer_status.clone();
            json.kbk = zero(&budget.kbk);
            json.oktmo = zero(&budget.oktmo);
            json.payment_base = zero(&budget.basis);
            json.period = zero(&budget.period);
            json.budget_doc_number = zero(&budget.number);
            json.budget_doc_date = zero(&budget.date);
            if let Some(kind) = budget
                .payment_type
                .filter(|t| !matches!(t.trim(), "" | "0"))
            {
                findings.push(
                    Finding::new(
                        Code::NotCarried,
                        Some(Field::PaymentType),
                        "the JSON request has no field 110 (obsolete since 2015); it is not sent",
                    )
                    .found(kind),
                );
            }
        }
        json.payform_data_third_person = payment.third_party.as_ref().map(|t| ThirdPersonJson {
            name: t.name.clone(),
            inn: t.inn.clone(),
            kpp: if t.kpp.is_empty() {
                "0".to_string()
            } else {
                t.kpp.clone()
            },
        });
        if let Some(priority) = payment.priority.as_deref().filter(|p| p.trim() != "5") {
            findings.push(
                Finding::new(
                    Code::NotCarried,
                    Some(Field::Priority),
                    "the JSON request cannot carry the priority; the bank assigns 5 — \
                     upload the 1C file instead to keep it",
                )
                .found(priority),
            );
        }
        if let Some(kind) = payment
            .operation_kind
            .as_deref()
            .filter(|k| k.trim() != "01")
        {
            findings.push(
                Finding::new(
                    Code::NotCarried,
                    Some(Field::OperationKind),
                    "the JSON request creates payment orders (01) only; this kind of operation \
                     is not sent",
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
        UploadRequest {
            payment,
            parameters: in_signing.then(|| Parameters {
                target_status: Some(IN_SIGNING.to_string()),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
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
    fn type_errors_refuse_with_the_line() {
        let bad = b"[\n {\"payment\": {\n  \"RecipientINN\": 7707083893\n }}\n]";
        let finding = read_requests(bad).unwrap_err();
        assert_eq!(finding.code, Code::JsonInvalid);
        assert_eq!(finding.line, Some(3));
        assert!(finding.message.contains("expected a string"), "{finding}");
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
