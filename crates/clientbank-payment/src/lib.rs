//! Russian payment orders: the [`Payment`] model, the bank's JSON [`UploadRequest`], the
//! mapping both ways to the 1C exchange format, and every validation rule of a payment order.
//!
//! A drop — the bytes 1C writes to `1c_to_kl.txt`, or a JSON upload — is read once by
//! [`batch::Batch::read`] into its payments, each with its findings (the reader's, the
//! mapping's and every rule's, located at their lines) and its upload request for the bank:
//!
//! ```
//! use clientbank_payment::batch::Batch;
//! use clientbank_payment::{Context, Decimal, Kind, Lang, NaiveDate};
//!
//! let order = |number: &str, sum: &str| {
//!     format!(
//!         "СекцияДокумент=Платежное поручение\r\nНомер={number}\r\nДата=20.11.2026\r\n\
//!          Сумма={sum}\r\nПлательщикСчет=40702810938000012345\r\nПлательщик=ООО \"Ромашка\"\r\n\
//!          ПлательщикИНН=7701234560\r\nПлательщикКПП=770101001\r\nПлательщикБИК=044525225\r\n\
//!          ПлательщикКорсчет=30101810400000000225\r\nПолучательСчет=40702810210000054321\r\n\
//!          Получатель=ООО \"Лютик\"\r\nПолучательИНН=5009876546\r\nПолучательКПП=500101001\r\n\
//!          ПолучательБИК=044525974\r\nПолучательКорсчет=30101810145250000974\r\nВидОплаты=01\r\n\
//!          Очередность=5\r\nНазначениеПлатежа=Оплата по счету № 9125, в т.ч. НДС 20% 29166.67\r\n\
//!          КонецДокумента\r\n"
//!     )
//! };
//! let text = format!(
//!     "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n{}{}КонецФайла\r\n",
//!     order("301", "175000.00"),
//!     order("302", "0"),
//! );
//! let bytes = clientbank_format::Encoding::Cp1251.encode(&text).unwrap().into_owned();
//!
//! let today = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
//! let batch = Batch::read(bytes, &Context::as_of(today)).unwrap();
//! assert_eq!(batch.item_count(), 2);
//! let items: Vec<_> = batch.items().collect();
//!
//! // The first order is clean: its payment, and the request the bank's JSON route takes.
//! let payment = items[0].payment().unwrap();
//! assert_eq!(payment.kind(), Kind::Ordinary);
//! assert_eq!(payment.sum, Some(Decimal::new(17500000, 2)));
//! assert!(items[0].findings().is_empty(), "{:?}", items[0].findings());
//! let json = serde_json::to_value(items[0].request().unwrap()).unwrap();
//! assert_eq!(json["payment"]["Number"], "301");
//!
//! // The second is not: each finding has a stable code, a line and a message in two languages.
//! assert!(items[1].has_errors());
//! assert!(items[1].findings().iter().any(|f| f.code.as_str() == "sum-not-positive"));
//! assert!(batch.has_errors());
//! let report = batch.render("1c_to_kl.txt", Lang::En);
//! assert!(report.contains("error[sum-not-positive]"), "{report}");
//! ```
//!
//! The pieces it stands on are public too: [`Payment`] and [`validate`] with its
//! [`Context`]; [`json`] for the bank's upload requests ([`UploadRequest`], [`PaymentJson`]);
//! [`onec`] for the mapping to and from the format crate's documents.

#![warn(missing_docs)]

mod ahead;
pub mod batch;
pub mod clock;
mod finding;
#[doc(hidden)]
pub mod fuzz;
pub mod identity;
pub mod json;
pub mod onec;
mod payment;
pub mod rules;
mod validate;
mod view;

pub use chrono::NaiveDate;
pub use clientbank_diagnostic::{Code, Diagnostic, Lang, Message, Renderer, Severity};
pub use finding::{Field, Lines};
pub use json::{PaymentJson, UploadRequest};
pub use payment::{AccountHolder, Bank, Budget, Kind, Payment, ThirdParty, enp};
pub use rust_decimal::Decimal;
pub use validate::{
    Context, MAX_NAME, MAX_PURPOSE, VALID_DAYS, in_statement, validate, validate_in,
};
