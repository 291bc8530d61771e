//! The 1C client-bank exchange format (`1CClientBankExchange`, versions 1.01–1.03):
//! a lossless reader and writer.
//!
//! - [`parse`] reads a whole file into a [`SyntaxTree`] that keeps every line: writing it back
//!   gives the same bytes, whatever the encoding (CP1251, CP866, UTF-8 with or without BOM),
//!   line endings (CRLF, LF, CR, mixed, none at the end), blank lines and key order.
//! - The tree has typed accessors ([`SectionRef::date`], [`SectionRef::amount`], …) and edits
//!   ([`SectionMut::set`], [`SyntaxTree::push_document`]) that rewrite only the lines they touch.
//! - [`SyntaxTree::to_exchange`] gives the owned, typed [`Exchange`]; [`Exchange::to_bytes`]
//!   writes new files canonically; [`Writer`] writes them section by section, for any size;
//!   [`Scan::write_canonical`] writes a file read anew from its scan, holding no section.
//! - [`Reader`] streams sections from any `io::Read` for statements of any size.
//! - Every finding is a [`Diagnostic`] (the workspace's one, from `clientbank-diagnostic`)
//!   with a stable [`Code`], line, column and key, and its message in English and Russian;
//!   [`Renderer`] shows it to people.
//!
//! # Read a statement: its documents with typed date and amount
//!
//! ```
//! use clientbank_format::{parse, Decimal, Encoding, Key, NaiveDate};
//!
//! let text = "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
//!             СекцияДокумент=Платежное поручение\r\nНомер=7\r\nДата=01.04.2024\r\nСумма=1000.50\r\n\
//!             КонецДокумента\r\nСекцияДокумент=Платежное поручение\r\nНомер=8\r\n\
//!             Дата=02.04.2024\r\nСумма=20\r\nКонецДокумента\r\nКонецФайла\r\n";
//! let bytes = Encoding::Cp1251.encode(text).unwrap().into_owned(); // as 1C writes it
//!
//! let parsed = parse(bytes.clone()).unwrap();
//! assert_eq!(parsed.tree.encoding(), Encoding::Cp1251);
//! assert!(parsed.diagnostics.is_empty());
//! let documents: Vec<(String, NaiveDate, Decimal)> = parsed
//!     .tree
//!     .documents()
//!     .map(|d| {
//!         let number = d.get(Key::Number).unwrap().into_owned();
//!         (number, d.date(Key::Date).unwrap(), d.amount(Key::Sum).unwrap())
//!     })
//!     .collect();
//! assert_eq!(
//!     documents,
//!     [
//!         ("7".to_string(), NaiveDate::from_ymd_opt(2024, 4, 1).unwrap(), Decimal::new(100050, 2)),
//!         ("8".to_string(), NaiveDate::from_ymd_opt(2024, 4, 2).unwrap(), Decimal::from(20)),
//!     ]
//! );
//!
//! // Written back byte for byte; an edit changes its own line and nothing else.
//! assert_eq!(parsed.tree.to_bytes(), bytes);
//! let mut tree = parsed.tree;
//! tree.document_mut(0).unwrap().set(Key::Number, "9").unwrap();
//! let edited = Encoding::Cp1251.encode(&text.replacen("Номер=7", "Номер=9", 1)).unwrap().into_owned();
//! assert_eq!(tree.to_bytes(), edited);
//! ```
//!
//! # Stream a statement of any size
//!
//! [`Reader`] reads sections one at a time from any `io::Read` (a file, a socket, a slice),
//! holding no more than the largest section.
//!
//! ```
//! use clientbank_format::{Encoding, Key, Reader, SectionKind};
//!
//! # let text = "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
//! #             СекцияДокумент=Платежное поручение\r\nНомер=7\r\nДата=01.04.2024\r\nСумма=1000.50\r\n\
//! #             КонецДокумента\r\nКонецФайла\r\n";
//! # let bytes = Encoding::Cp1251.encode(text).unwrap().into_owned();
//! let input: &[u8] = &bytes; // or a std::fs::File, stdin, a socket
//! let mut reader = Reader::new(input);
//! for section in reader.by_ref() {
//!     let section = section?;
//!     if section.kind() == SectionKind::Document {
//!         let document = section.to_document(); // the owned, typed document
//!         println!("№ {:?} of {:?}: {:?}", document.number, document.date, document.sum);
//!         assert_eq!(section.view().amount(Key::Sum).unwrap().to_string(), "1000.50");
//!     }
//! }
//! assert_eq!(reader.encoding(), Some(Encoding::Cp1251));
//! assert!(reader.diagnostics().is_empty());
//! # Ok::<(), clientbank_format::StreamError>(())
//! ```
//!
//! # Limitations
//! - The in-memory reader holds up to 4 GiB; use [`Reader`] beyond that.
//! - The typed [`Exchange`] trims values and reads `Key=` as absent; the tree keeps both.
//! - Writing canonically emits `Кодировка=UTF-8` for UTF-8, which 1C itself does not read.

#![warn(missing_docs)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod diagnostic;
mod encoding;
mod fields;
mod key;
mod model;
mod parse;
mod stream;
mod syntax;
mod tree;
pub mod value;

#[doc(hidden)]
pub mod fuzz;

pub use chrono::NaiveDate;
pub use clientbank_diagnostic::{
    Code, Diagnostic, DiagnosticJson, LIMIT_PER_CODE, Lang, Message, Renderer, Severity,
    SourceText, make_strict,
};
/// A [`Message`] made with `format!` in each language: `tr!("{n} keys" ; "ключей: {n}")`.
pub use clientbank_diagnostic::{say, tr};
pub use encoding::{Detection, Encoding};
pub use fields::{DocumentFields, ExtraLine, TextBuffer};
pub use key::{Key, Place, ValueKind};
pub use model::{
    AccountSection, Budget, Document, Exchange, Extra, Header, Party, Receipt, Terms, WriteError,
    WriteErrorKind, Writer,
};
pub use parse::{Refused, SectionKind};
pub use rust_decimal::Decimal;
pub use stream::{OwnedSection, Reader, StreamError};
pub use syntax::{LineEnding, Marker};
pub use tree::{
    Documents, Entry, Parsed, Scan, ScannedDocument, SectionMut, SectionRef, SyntaxTree, ValueAt,
    parse, parse_owned, scan,
};

/// Counters of work done, for tests that bound it (the payment crate's among them); not part
/// of the API.
#[doc(hidden)]
pub mod counters {
    pub use crate::tree::key_decodes;
}
