//! The wire types of the bank API v1, tolerant as API.md Part 2 asks: fields present or
//! absent, unknown enum values kept, Moscow-time date-times without offset and with optional
//! fractions, amounts read exactly into `Decimal`.

use std::fmt;

use chrono::NaiveDateTime;
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A string enumeration whose unknown values are kept, never fatal.
macro_rules! open_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
            /// A value this client does not know yet, kept as sent.
            Other(String),
        }

        impl $name {
            /// The value as the bank writes it.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $text,)*
                    $name::Other(text) => text,
                }
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> $name {
                match text {
                    $($text => $name::$variant,)*
                    other => $name::Other(other.to_string()),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                let text = String::deserialize(deserializer)?;
                Ok($name::from(text.as_str()))
            }
        }
    };
}

open_enum!(
    /// A payment's (operation's) status.
    OperationStatus {
        /// Draft.
        Draft = "Draft",
        /// Sent to the bank, awaiting execution.
        SendToBank = "SendToBank",
        /// Executed (outgoing).
        Executed = "Executed",
        /// Rejected by the bank.
        RejectByBank = "RejectByBank",
        /// Sent and then cancelled by the user.
        Canceled = "Canceled",
        /// Executed (incoming).
        Received = "Received",
        /// Executed (paid).
        PayReceived = "PayReceived",
        /// Requires clarification.
        ClarifyRequiredOutcome = "ClarifyRequiredOutcome",
    }
);

open_enum!(
    /// The direction of an operation.
    OperationCategory {
        /// Incoming.
        Debet = "Debet",
        /// Outgoing.
        Credit = "Credit",
    }
);

open_enum!(
    /// An account's kind.
    AccountCategory {
        /// Checking account.
        CheckingAccount = "CheckingAccount",
        /// Deposit account.
        DepositAccount = "DepositAccount",
        /// Card account.
        CardAccount = "CardAccount",
        /// Deposit-rate account.
        DepositRateAccount = "DepositRateAccount",
        /// Reservation accounting.
        ReservationAccounting = "ReservationAccounting",
        /// Transit account (seen in public clients).
        TransitAccount = "TransitAccount",
    }
);

open_enum!(
    /// An account's status.
    AccountStatus {
        /// Open.
        New = "New",
        /// Deleted.
        Deleted = "Deleted",
        /// Closed.
        Closed = "Closed",
        /// Frozen.
        Freezed = "Freezed",
        /// Being closed.
        ToClosed = "ToClosed",
        /// Being opened.
        ToOpen = "ToOpen",
    }
);

open_enum!(
    /// A currency code as the bank writes it.
    Currency {
        /// Russian rouble.
        Rur = "RUR",
        /// US dollar.
        Usd = "USD",
        /// Euro.
        Eur = "EUR",
        /// Yuan.
        Cny = "CNY",
    }
);

/// Bank date-times: Moscow time without an offset, with optional fractions; absent, `null` or
/// empty read as `None`.
pub mod moscow_time {
    use super::*;
    use serde::de::Error;

    /// The format written: seconds, and fractions only when there are any.
    pub const FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.f";

    /// Moscow time is UTC+3 all year (no daylight saving since 2014).
    const MOSCOW_OFFSET_MINUTES: i64 = clientbank_payment::clock::MOSCOW_OFFSET_SECONDS as i64 / 60;

    /// Reads `YYYY-MM-DDTHH:MM[:SS[.fff]]` or `YYYY-MM-DD` as Moscow time. A time with an offset
    /// (`Z`, `+05:00`, `+0500`, `+05`) is converted to Moscow time. Total: any text gives a
    /// time or `None`, never a panic.
    pub fn parse(text: &str) -> Option<NaiveDateTime> {
        let text = text.trim();
        let Some(t) = text.find('T') else {
            return chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .ok()
                .map(|d| d.and_time(chrono::NaiveTime::MIN));
        };
        // `T` is ASCII: `t + 1` is a character boundary.
        let time = &text[t + 1..];
        let (bare, offset) = if let Some(bare) = text.strip_suffix(['Z', 'z']) {
            (bare, Some(0))
        } else if let Some(at) = time.rfind(['+', '-']) {
            // `at` indexes an ASCII sign: both slices are on character boundaries.
            let minutes = offset_minutes(&time[at..])?;
            (&text[..t + 1 + at], Some(minutes))
        } else {
            (text, None)
        };
        let local = NaiveDateTime::parse_from_str(bare, "%Y-%m-%dT%H:%M:%S%.f")
            .or_else(|_| NaiveDateTime::parse_from_str(bare, "%Y-%m-%dT%H:%M"))
            .ok()?;
        match offset {
            None => Some(local),
            Some(minutes) => local.checked_add_signed(chrono::TimeDelta::try_minutes(
                MOSCOW_OFFSET_MINUTES - minutes,
            )?),
        }
    }

    /// `+HH:MM`, `+HHMM` or `+HH` (or `-`), in minutes east of UTC; hours up to 23, minutes up
    /// to 59.
    fn offset_minutes(text: &str) -> Option<i64> {
        let (sign, digits) = match text.as_bytes().first()? {
            b'+' => (1, &text[1..]),
            b'-' => (-1, &text[1..]),
            _ => return None,
        };
        let digits: Vec<u8> = match digits.as_bytes() {
            [h1, h2, b':', m1, m2] => vec![*h1, *h2, *m1, *m2],
            [h1, h2, m1, m2] => vec![*h1, *h2, *m1, *m2],
            [h1, h2] => vec![*h1, *h2, b'0', b'0'],
            _ => return None,
        };
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let number = |a: u8, b: u8| i64::from(a - b'0') * 10 + i64::from(b - b'0');
        let (hours, minutes) = (number(digits[0], digits[1]), number(digits[2], digits[3]));
        (hours <= 23 && minutes <= 59).then_some(sign * (hours * 60 + minutes))
    }

    #[allow(missing_docs)]
    pub fn serialize<S: Serializer>(
        value: &Option<NaiveDateTime>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(at) => serializer.serialize_str(&at.format(FORMAT).to_string()),
            None => serializer.serialize_none(),
        }
    }

    #[allow(missing_docs)]
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<NaiveDateTime>, D::Error> {
        let text: Option<String> = Option::deserialize(deserializer)?;
        match text.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(text) => parse(text).map(Some).ok_or_else(|| {
                D::Error::custom(format!("not a bank date-time: {:?}", super::excerpt(text)))
            }),
        }
    }
}

/// At most 40 characters of a value, for messages.
pub(crate) fn excerpt(text: &str) -> String {
    excerpt_of(text, 40)
}

/// At most 500 characters of a bank's message.
pub(crate) fn excerpt_long(text: &str) -> String {
    excerpt_of(text, 500)
}

fn excerpt_of(text: &str, limit: usize) -> String {
    let mut chars = text.chars();
    let mut out: String = chars.by_ref().take(limit).collect();
    if chars.next().is_some() {
        out.push('…');
    }
    out
}

/// A company of the `/account-info` answer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Company {
    /// Identifier (uuid).
    pub company_id: String,
    /// Name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub company_name: Option<String>,
    /// Accounts.
    #[serde(default)]
    pub bank_accounts: Vec<BankAccount>,
    /// Whether registration is finished (absent in older variants: `false`).
    #[serde(default)]
    pub registration_completed: bool,
    /// Tax id.
    #[serde(rename = "Inn", default, skip_serializing_if = "Option::is_none")]
    pub inn: Option<String>,
    /// Registration reason code.
    #[serde(rename = "Kpp", default, skip_serializing_if = "Option::is_none")]
    pub kpp: Option<String>,
    /// State registration number.
    #[serde(rename = "Ogrn", default, skip_serializing_if = "Option::is_none")]
    pub ogrn: Option<String>,
}

/// A bank account.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct BankAccount {
    /// Identifier (uuid).
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_name: Option<String>,
    /// Balance, read exactly.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub balance: Decimal,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_bic: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_inn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_kpp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_correspondent_account: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_name: Option<String>,
    /// Opening date, Moscow time.
    #[serde(default, with = "moscow_time", skip_serializing_if = "Option::is_none")]
    pub begin_date: Option<NaiveDateTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<AccountCategory>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<Currency>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<AccountStatus>,
}

/// An operation of the history, or of a webhook.
///
/// Read leniently ([`Operation::from_json`]): a record with an odd field (a number where text
/// is expected, an amount missing or unreadable, a date-time that is not one) is kept with
/// what could be read; [`Operation::problems`] says what could not be, and
/// [`Operation::raw`] keeps the record as the bank sent it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct Operation {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub company_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<OperationStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<OperationCategory>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contragent_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contragent_inn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contragent_kpp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contragent_bank_account_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contragent_bank_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contragent_bank_bic: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<Currency>,
    /// Amount without commission; always positive, the direction is `category`. `None` when
    /// the record has none that can be read (then [`Operation::problems`] says so).
    #[serde(
        default,
        with = "rust_decimal::serde::arbitrary_precision_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub amount: Option<Decimal>,
    /// Amount with commission (some variants only; may be `null`).
    #[serde(
        default,
        with = "rust_decimal::serde::arbitrary_precision_option",
        skip_serializing_if = "Option::is_none"
    )]
    pub amount_with_commission: Option<Decimal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_account_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_purpose: Option<String>,
    /// Execution, Moscow time (missing for cancelled operations).
    #[serde(default, with = "moscow_time", skip_serializing_if = "Option::is_none")]
    pub executed: Option<NaiveDateTime>,
    /// Creation, Moscow time.
    #[serde(default, with = "moscow_time", skip_serializing_if = "Option::is_none")]
    pub created: Option<NaiveDateTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_number: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abs_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ibso_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kbk: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oktmo: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment_basis: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tax_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tax_doc_num: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tax_doc_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payer_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sbp_oper_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sbp_oper_id_for_refund: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcv_qrc_id: Option<String>,
    /// What could not be read as API.md describes it, one line per field (`"amount: missing"`,
    /// `"docNumber: a number where text was expected; kept as \"123\""`). Empty for a
    /// regular record. Never sent.
    #[serde(skip)]
    pub problems: Vec<String>,
    /// The record as the bank sent it, kept when [`Operation::problems`] is not empty. Never
    /// sent.
    #[serde(skip)]
    pub raw: Option<serde_json::Value>,
}

impl Operation {
    /// Whether every field the record carries was read as API.md describes it.
    pub fn is_regular(&self) -> bool {
        self.problems.is_empty()
    }

    /// Reads one record of a history page or a webhook, whatever its shape: never fails. A
    /// value that is not an object, a missing `id` or `amount`, or a field of the wrong type
    /// is recorded in [`Operation::problems`] and the record is kept (with [`Operation::raw`]).
    pub fn from_json(value: serde_json::Value) -> Operation {
        let serde_json::Value::Object(map) = &value else {
            return Operation {
                problems: vec![format!(
                    "the record is {}, not an object",
                    lenient::kind(&value)
                )],
                raw: Some(value),
                ..Operation::default()
            };
        };
        let mut r = lenient::Fields::new(map);
        let id = r.text("id");
        if id.is_none() {
            r.missing("id");
        }
        let amount = r.amount("amount");
        if amount.is_none() && !r.has("amount") {
            r.missing("amount");
        }
        let mut operation = Operation {
            id: id.unwrap_or_default(),
            company_id: r.text("companyId"),
            status: r.text("status").map(|t| OperationStatus::from(t.as_str())),
            category: r
                .text("category")
                .map(|t| OperationCategory::from(t.as_str())),
            contragent_name: r.text("contragentName"),
            contragent_inn: r.text("contragentInn"),
            contragent_kpp: r.text("contragentKpp"),
            contragent_bank_account_number: r.text("contragentBankAccountNumber"),
            contragent_bank_name: r.text("contragentBankName"),
            contragent_bank_bic: r.text("contragentBankBic"),
            currency: r.text("currency").map(|t| Currency::from(t.as_str())),
            amount,
            amount_with_commission: r.amount("amountWithCommission"),
            bank_account_number: r.text("bankAccountNumber"),
            payment_purpose: r.text("paymentPurpose"),
            executed: r.time("executed"),
            created: r.time("created"),
            doc_number: r.text("docNumber"),
            abs_id: r.text("absId"),
            ibso_id: r.text("ibsoId"),
            kbk: r.text("kbk"),
            oktmo: r.text("oktmo"),
            payment_basis: r.text("paymentBasis"),
            tax_code: r.text("taxCode"),
            tax_doc_num: r.text("taxDocNum"),
            tax_doc_date: r.text("taxDocDate"),
            payer_status: r.text("payerStatus"),
            uin: r.text("uin"),
            card_id: r.text("cardId"),
            sbp_oper_id: r.text("sbpOperId"),
            sbp_oper_id_for_refund: r.text("sbpOperIdForRefund"),
            rcv_qrc_id: r.text("rcvQrcId"),
            problems: Vec::new(),
            raw: None,
        };
        operation.problems = r.problems;
        if !operation.problems.is_empty() {
            operation.raw = Some(value);
        }
        operation
    }
}

/// A JSON object (any other value is refused); its fields are read as
/// [`Operation::from_json`] reads them.
impl<'de> Deserialize<'de> for Operation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Operation, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        if !value.is_object() {
            return Err(serde::de::Error::custom(format!(
                "an operation is a JSON object, not {}",
                lenient::kind(&value)
            )));
        }
        Ok(Operation::from_json(value))
    }
}

/// Reading the fields of a record one by one, noting what cannot be read.
pub(crate) mod lenient {
    use super::*;
    use serde_json::{Map, Value};

    /// What kind of JSON value this is, for messages.
    pub(crate) fn kind(value: &Value) -> &'static str {
        match value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }

    /// An exact decimal of a JSON number's text or of a numeric string (never through a
    /// float); `None` when it is not one or does not fit.
    pub(crate) fn decimal(text: &str) -> Option<Decimal> {
        let text = text.trim();
        if text.is_empty() || text.len() > 64 {
            return None;
        }
        if text.contains(['e', 'E']) {
            Decimal::from_scientific(text).ok()
        } else {
            Decimal::from_str_exact(text).ok()
        }
    }

    pub(crate) struct Fields<'a> {
        map: &'a Map<String, Value>,
        pub(crate) problems: Vec<String>,
    }

    impl<'a> Fields<'a> {
        pub(crate) fn new(map: &'a Map<String, Value>) -> Fields<'a> {
            Fields {
                map,
                problems: Vec::new(),
            }
        }

        pub(crate) fn has(&self, key: &str) -> bool {
            self.map.get(key).is_some_and(|v| !v.is_null())
        }

        pub(crate) fn missing(&mut self, key: &str) {
            self.problems.push(format!("{key}: missing"));
        }

        /// Text; a number or boolean is kept as its JSON text (and noted); `null` is absent.
        pub(crate) fn text(&mut self, key: &str) -> Option<String> {
            match self.map.get(key)? {
                Value::Null => None,
                Value::String(text) => Some(text.clone()),
                value @ (Value::Number(_) | Value::Bool(_)) => {
                    let text = value.to_string();
                    self.problems.push(format!(
                        "{key}: {} where text was expected; kept as {:?}",
                        kind(value),
                        excerpt(&text)
                    ));
                    Some(text)
                }
                value => {
                    self.problems.push(format!(
                        "{key}: {} where text was expected; not read",
                        kind(value)
                    ));
                    None
                }
            }
        }

        /// An amount: a JSON number or a numeric string, exactly.
        pub(crate) fn amount(&mut self, key: &str) -> Option<Decimal> {
            let value = self.map.get(key)?;
            let text = match value {
                Value::Null => return None,
                Value::Number(n) => {
                    let amount = decimal(&n.to_string());
                    if amount.is_none() {
                        // Not the number's text: how a number out of range is spelled
                        // depends on how it was parsed (an exponent, or every digit).
                        self.problems.push(format!(
                            "{key}: a number out of the range of an amount; not read"
                        ));
                    }
                    return amount;
                }
                Value::String(s) => s.clone(),
                other => {
                    self.problems.push(format!(
                        "{key}: {} where an amount was expected; not read",
                        kind(other)
                    ));
                    return None;
                }
            };
            let amount = decimal(&text);
            if amount.is_none() {
                self.problems.push(format!(
                    "{key}: {:?} is not an amount; not read",
                    excerpt(&text)
                ));
            }
            amount
        }

        /// A bank date-time ([`moscow_time::parse`]); empty text is absent.
        pub(crate) fn time(&mut self, key: &str) -> Option<NaiveDateTime> {
            match self.map.get(key)? {
                Value::Null => None,
                Value::String(text) if text.trim().is_empty() => None,
                Value::String(text) => {
                    let at = moscow_time::parse(text);
                    if at.is_none() {
                        self.problems.push(format!(
                            "{key}: {:?} is not a date-time; not read",
                            excerpt(text)
                        ));
                    }
                    at
                }
                other => {
                    self.problems.push(format!(
                        "{key}: {} where a date-time was expected; not read",
                        kind(other)
                    ));
                    None
                }
            }
        }
    }
}

/// The body of `/operation-history/{accountId}`; every field optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct HistoryFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<OperationCategory>,
    /// Lower bound on the execution date, `YYYY-MM-DD`, inclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<chrono::NaiveDate>,
    /// Upper bound, inclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub till: Option<chrono::NaiveDate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<u32>,
    /// 0 to 50; the bank's default is 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sbp_oper_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sbp_oper_id_for_refund: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcv_qrc_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sbp_retail_point_id: Option<String>,
    /// One id or several, comma-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operations: Option<String>,
}

/// The answer to an upload (API.md Part 3): `id` or `ids`, `totalLoaded`, `errors`, `warnings`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadResult {
    /// The created payment, for a JSON upload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The created payments, for a 1C upload.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ids: Vec<String>,
    /// How many payments were created.
    #[serde(default)]
    pub total_loaded: u32,
    /// Refused payment orders: strings, or objects whose `message` is the text.
    #[serde(default, deserialize_with = "messages")]
    pub errors: Vec<String>,
    /// Warnings, in the same shapes.
    #[serde(default, deserialize_with = "messages")]
    pub warnings: Vec<String>,
    /// What of the answer could not be read as API.md Part 3 describes it (the ids always
    /// could, or the answer would be [`crate::Error::Unreadable`]). Never sent.
    #[serde(skip)]
    pub problems: Vec<String>,
    /// The answer's body as received (UTF-8, invalid bytes replaced), for the journal. Filled
    /// by the client; never sent.
    #[serde(skip)]
    pub raw: String,
}

/// An upload answer from which the created payments cannot be told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnreadableUpload {
    /// The ids that could be read (perhaps not all).
    pub ids: Vec<String>,
    /// What is wrong.
    pub reason: String,
}

impl UploadResult {
    /// Reads the body of a successful upload answer leniently: a JSON object whose ids (`id`,
    /// `ids`) are readable, and that names them or says in `totalLoaded` how many payments
    /// were created (`{"totalLoaded": 0, "errors": [...]}` created none); anything
    /// else odd (`totalLoaded: null` beside the ids, `errors` of an unknown shape) is kept in
    /// [`UploadResult::problems`]. The raw body is kept in [`UploadResult::raw`]. Never panics.
    pub fn from_answer(body: &[u8]) -> Result<UploadResult, UnreadableUpload> {
        use serde_json::Value;
        let raw = String::from_utf8_lossy(body).into_owned();
        let unreadable = |ids: Vec<String>, reason: String| UnreadableUpload { ids, reason };
        let value: Value = serde_json::from_slice(body)
            .map_err(|e| unreadable(Vec::new(), format!("the answer is not JSON: {e}")))?;
        let Value::Object(map) = &value else {
            return Err(unreadable(
                Vec::new(),
                format!("the answer is {}, not an object", lenient::kind(&value)),
            ));
        };
        let mut id_problems = Vec::new();
        let id = match map.get("id") {
            None | Some(Value::Null) => None,
            Some(Value::String(id)) => Some(id.clone()),
            Some(other) => {
                id_problems.push(format!(
                    "id: {} where text was expected",
                    lenient::kind(other)
                ));
                None
            }
        };
        let mut ids = Vec::new();
        match map.get("ids") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for item in items {
                    match item {
                        Value::String(id) => ids.push(id.clone()),
                        other => id_problems.push(format!(
                            "ids: {} where an id was expected",
                            lenient::kind(other)
                        )),
                    }
                }
            }
            Some(other) => id_problems.push(format!(
                "ids: {} where a list was expected",
                lenient::kind(other)
            )),
        }
        let found: Vec<String> = id.iter().chain(&ids).cloned().collect();
        if !id_problems.is_empty() {
            return Err(unreadable(found, id_problems.join("; ")));
        }
        let mut problems = Vec::new();
        let total_loaded = match map.get("totalLoaded") {
            Some(Value::Number(n)) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
            _ => None,
        };
        let total_loaded = match total_loaded {
            Some(total) => total,
            None if !found.is_empty() => {
                let what = match map.get("totalLoaded") {
                    None => "missing".to_string(),
                    Some(value) => format!("{} is not a count", excerpt(&value.to_string())),
                };
                problems.push(format!(
                    "totalLoaded: {what}; taken as the {} id(s) named",
                    found.len()
                ));
                u32::try_from(found.len()).unwrap_or(u32::MAX)
            }
            None => {
                return Err(unreadable(
                    found,
                    "totalLoaded is not a count and no id is named: how many payments were \
                     created is not known"
                        .into(),
                ));
            }
        };
        let mut list = |key: &str| -> Vec<String> {
            match map.get(key) {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => messages_of(items.clone()),
                Some(other) => {
                    problems.push(format!(
                        "{key}: {} where a list was expected; kept as text",
                        lenient::kind(other)
                    ));
                    vec![other.to_string()]
                }
            }
        };
        let errors = list("errors");
        let warnings = list("warnings");
        Ok(UploadResult {
            id,
            ids,
            total_loaded,
            errors,
            warnings,
            problems,
            raw,
        })
    }

    /// Every created id, whichever member named it.
    pub fn created(&self) -> Vec<&str> {
        self.id
            .iter()
            .chain(&self.ids)
            .map(String::as_str)
            .collect()
    }
}

/// A list of strings, or of objects with a `message` (or anything else, kept as its JSON).
fn messages<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let items: Option<Vec<serde_json::Value>> = Option::deserialize(deserializer)?;
    Ok(messages_of(items.unwrap_or_default()))
}

fn messages_of(items: Vec<serde_json::Value>) -> Vec<String> {
    items
        .into_iter()
        .map(|item| match item {
            serde_json::Value::String(text) => text,
            serde_json::Value::Object(map) => match map.get("message") {
                Some(serde_json::Value::String(text)) => text.clone(),
                _ => serde_json::Value::Object(map).to_string(),
            },
            other => other.to_string(),
        })
        .collect()
}

/// The body of `/operation-upload/sign`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignRequest {
    /// The ids of the payments signed.
    #[serde(rename = "Operations", alias = "operations")]
    pub operations: Vec<String>,
    /// Base64 of the detached CMS signature of [`SignRequest::signed_content`].
    #[serde(rename = "SignBase64", alias = "signBase64")]
    pub sign_base64: String,
}

impl SignRequest {
    /// What the bank signs: the ids sorted, joined with `,` (no spaces, no quotes).
    pub fn signed_content(ids: &[impl AsRef<str>]) -> String {
        let mut ids: Vec<&str> = ids.iter().map(AsRef::as_ref).collect();
        ids.sort_unstable();
        ids.join(",")
    }
}

/// The bank's error body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// `AccessDenied`, `SignCheckError`, …
    #[serde(default)]
    pub exception_type: String,
    /// The text for people.
    #[serde(default)]
    pub message: String,
}

/// The body of `POST /oauth/token`. `Debug` hides `client_secret` and `code`.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct TokenRequest {
    pub client_id: String,
    /// The application's secret word: a secret.
    pub client_secret: String,
    pub redirect_uri: String,
    /// The temporary authorization code: a secret until it is spent.
    pub code: String,
}

impl fmt::Debug for TokenRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenRequest")
            .field("client_id", &self.client_id)
            .field("client_secret", &"****")
            .field("redirect_uri", &self.redirect_uri)
            .field("code", &"****")
            .finish()
    }
}

/// A webhook notification.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notification {
    /// Tax id of the company.
    #[serde(rename = "companyInn", default)]
    pub company_inn: String,
    /// Registration reason code of the company.
    #[serde(rename = "companyKpp", default)]
    pub company_kpp: String,
    /// The new executed operation.
    pub operation: Operation,
    /// Hex SHA-1 of `<key>&<operation.id>`.
    #[serde(rename = "SHA1Hash")]
    pub sha1_hash: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_as_public_clients_saw_them() {
        let json = r#"{"id": "a4b825ca", "status": "ClarifyRequiredOutcome", "category": "Debet",
            "currency": "KZT", "amount": 4917.7600, "amountWithCommission": null,
            "executed": "2019-08-31T00:00:00", "created": "2019-10-10T12:20:34.192",
            "kbk": "", "transitAccountId": "x"}"#;
        let op: Operation = serde_json::from_str(json).unwrap();
        assert_eq!(op.status, Some(OperationStatus::ClarifyRequiredOutcome));
        assert_eq!(op.currency, Some(Currency::Other("KZT".into())));
        assert_eq!(op.amount.unwrap().to_string(), "4917.7600");
        assert_eq!(op.amount_with_commission, None);
        assert_eq!(
            op.created.unwrap().format("%H:%M:%S%.3f").to_string(),
            "12:20:34.192"
        );
        let cancelled: Operation =
            serde_json::from_str(r#"{"id": "b", "amount": 900000.0}"#).unwrap();
        assert_eq!(cancelled.executed, None);
        assert_eq!(cancelled.amount, Some(Decimal::new(9000000, 1)));
    }

    #[test]
    fn companies_old_and_new() {
        let old: Company = serde_json::from_str(
            r#"{"companyId": "c1", "companyName": "ООО", "bankAccounts": []}"#,
        )
        .unwrap();
        assert!(!old.registration_completed && old.inn.is_none());
        let new: Company = serde_json::from_str(
            r#"{"companyId": "c1", "registrationCompleted": true, "Inn": "7701234560", "Kpp": "770101001", "Ogrn": "1"}"#,
        )
        .unwrap();
        assert_eq!(new.inn.as_deref(), Some("7701234560"));
    }

    #[test]
    fn upload_results_in_every_shape() {
        let r: UploadResult = serde_json::from_str(
            r#"{"ids": ["b", "a"], "totalLoaded": 2, "errors": ["bad", {"message": "worse", "line": 3}]}"#,
        )
        .unwrap();
        assert_eq!(r.created(), ["b", "a"]);
        assert_eq!(r.errors, ["bad", "worse"]);
        assert!(r.warnings.is_empty());
        let one: UploadResult = serde_json::from_str(r#"{"id": "x", "totalLoaded": 1}"#).unwrap();
        assert_eq!(one.created(), ["x"]);
    }

    #[test]
    fn signed_content_is_sorted_and_comma_joined() {
        assert_eq!(SignRequest::signed_content(&["b", "c", "a"]), "a,b,c");
        let sent = serde_json::to_string(&SignRequest {
            operations: vec!["a".into()],
            sign_base64: "AA==".into(),
        })
        .unwrap();
        assert_eq!(sent, r#"{"Operations":["a"],"SignBase64":"AA=="}"#);
    }
}
