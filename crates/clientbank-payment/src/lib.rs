//! Russian payment orders: the [`Payment`] model, the bank's JSON [`UploadRequest`], the
//! mapping both ways to the 1C exchange format, and every validation rule of a payment order.
//!
//! ```
//! use clientbank_payment::{json::PaymentJson, validate, Context, Kind, NaiveDate};
//!
//! let json = r#"{"payment": {
//!     "Number": "42", "Date": "28.03.2024", "Sum": "1200.00",
//!     "PayerAccount": "40702810938000012345",
//!     "RecipientName": "ООО Ромашка", "RecipientINN": "5009876546", "RecipientKPP": "500901001",
//!     "RecipientAccount": "40702810210000054321", "RecipientBankBik": "044525974",
//!     "RecipientBankCorrAccount": "30101810145250000974",
//!     "PaymentPurpose": "Оплата по счету 17, в т.ч. НДС 20% - 200.00", "TypeIndicator": "0"
//! }}"#;
//! let (requests, unknown) = clientbank_payment::json::read_requests(json.as_bytes()).unwrap();
//! assert!(unknown.is_empty());
//! let payment = requests[0].payment.to_payment();
//! assert_eq!(payment.kind(), Kind::Ordinary);
//! assert!(validate(&payment, &Context::as_of(NaiveDate::from_ymd_opt(2024, 3, 28).unwrap())).is_empty());
//!
//! // To a 1C payment order and back.
//! let (document, _) = clientbank_payment::onec::to_document(&payment);
//! let (again, _) = clientbank_payment::onec::from_document(&document);
//! assert_eq!(PaymentJson::from_payment(&again).0, requests[0].payment);
//! ```

#![warn(missing_docs)]

pub mod batch;
pub mod clock;
mod finding;
#[doc(hidden)]
pub mod fuzz;
pub mod json;
pub mod onec;
mod payment;
pub mod rules;
mod validate;

pub use chrono::NaiveDate;
pub use clientbank_diagnostic::{
    Code, Diagnostic, DiagnosticJson, LIMIT_PER_CODE, Lang, Limit, Message, Renderer, Severity,
    make_strict,
};
pub use finding::{Field, Lines};
pub use json::{PaymentJson, UploadRequest};
pub use payment::{AccountHolder, Bank, Budget, Kind, Payment, ThirdParty, enp};
pub use rust_decimal::Decimal;
pub use validate::{
    Context, MAX_NAME, MAX_PURPOSE, VALID_DAYS, in_statement, validate, validate_in,
};
