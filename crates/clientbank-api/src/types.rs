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

    /// The format written.
    pub const FORMAT: &str = "%Y-%m-%dT%H:%M:%S";

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fff]` (a trailing offset is tolerated and dropped: the bank's
    /// times are Moscow time).
    pub fn parse(text: &str) -> Option<NaiveDateTime> {
        let text = text.trim();
        let bare = text
            .strip_suffix('Z')
            .or_else(|| {
                let tail = text.get(text.len().saturating_sub(6)..)?;
                (tail.starts_with(['+', '-']) && tail.as_bytes()[3] == b':')
                    .then(|| &text[..text.len() - 6])
            })
            .unwrap_or(text);
        NaiveDateTime::parse_from_str(bare, "%Y-%m-%dT%H:%M:%S%.f")
            .or_else(|_| NaiveDateTime::parse_from_str(bare, "%Y-%m-%dT%H:%M"))
            .or_else(|_| {
                chrono::NaiveDate::parse_from_str(bare, "%Y-%m-%d")
                    .map(|d| d.and_time(chrono::NaiveTime::MIN))
            })
            .ok()
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
            Some(text) => parse(text)
                .map(Some)
                .ok_or_else(|| D::Error::custom(format!("not a bank date-time: {text:?}"))),
        }
    }
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Amount without commission; always positive, the direction is `category`.
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub amount: Decimal,
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
}

impl UploadResult {
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
    Ok(items
        .unwrap_or_default()
        .into_iter()
        .map(|item| match item {
            serde_json::Value::String(text) => text,
            serde_json::Value::Object(map) => match map.get("message") {
                Some(serde_json::Value::String(text)) => text.clone(),
                _ => serde_json::Value::Object(map).to_string(),
            },
            other => other.to_string(),
        })
        .collect())
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

/// The body of `POST /oauth/token`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct TokenRequest {
    pub client_id: String,
    pub client_secret: String,
    pub redirect_uri: String,
    pub code: String,
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
        assert_eq!(op.amount.to_string(), "4917.7600");
        assert_eq!(op.amount_with_commission, None);
        assert_eq!(
            op.created.unwrap().format("%H:%M:%S%.3f").to_string(),
            "12:20:34.192"
        );
        let cancelled: Operation =
            serde_json::from_str(r#"{"id": "b", "amount": 900000.0}"#).unwrap();
        assert_eq!(cancelled.executed, None);
        assert_eq!(cancelled.amount, Decimal::new(9000000, 1));
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
