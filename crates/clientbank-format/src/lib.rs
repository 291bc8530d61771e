//! The 1C client-bank exchange format (`1CClientBankExchange`, versions 1.01–1.03):
//! a lossless reader and writer.
//!
//! - [`parse`] reads a whole file into a [`SyntaxTree`] that keeps every line: writing it back
//!   gives the same bytes, whatever the encoding (CP1251, CP866, UTF-8 with or without BOM),
//!   line endings (CRLF, LF, CR, mixed, none at the end), blank lines and key order.
//! - The tree has typed accessors ([`SectionRef::date`], [`SectionRef::amount`], …) and edits
//!   ([`SectionMut::set`], [`SyntaxTree::push_document`]) that rewrite only the lines they touch.
//! - [`SyntaxTree::to_exchange`] gives the owned, typed [`Exchange`]; [`Exchange::to_bytes`]
//!   writes new files canonically; [`Writer`] writes them section by section, for any size.
//! - [`Reader`] streams sections from any `io::Read` for statements of any size.
//! - Every finding is a [`Diagnostic`] (the workspace's one, from `clientbank-diagnostic`)
//!   with a stable [`Code`], line, column and key, and its message in English and Russian;
//!   [`Renderer`] shows it to people.
//!
//! ```
//! use clientbank_format::{parse, Encoding, Key};
//!
//! let text = "1CClientBankExchange\nВерсияФормата=1.03\nКодировка=Windows\n\
//!             СекцияДокумент=Платежное поручение\nНомер=7\nДата=01.04.2024\nСумма=1000\n\
//!             КонецДокумента\nКонецФайла";
//! let bytes = Encoding::Cp1251.encode(text).unwrap().into_owned();
//! let mut parsed = parse(bytes.clone()).unwrap();
//! assert_eq!(parsed.tree.encoding(), Encoding::Cp1251);
//! assert_eq!(parsed.tree.to_bytes(), bytes); // byte for byte
//!
//! let document = parsed.tree.documents().next().unwrap();
//! assert_eq!(document.amount(Key::Sum).unwrap().to_string(), "1000");
//!
//! // An edit changes one line and nothing else.
//! parsed.tree.document_mut(0).unwrap().set(Key::Number, "8").unwrap();
//! let edited = String::from_utf8(parsed.tree.to_bytes()).ok();
//! let expected = Encoding::Cp1251.encode(&text.replace("Номер=7", "Номер=8")).unwrap().into_owned();
//! assert_eq!(parsed.tree.to_bytes(), expected);
//! # let _ = edited;
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
    Code, Diagnostic, DiagnosticJson, LIMIT_PER_CODE, Lang, Limit, Message, Renderer, Severity,
    SourceText, make_strict,
};
pub use encoding::{Detection, Encoding};
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
    Entry, Parsed, SectionMut, SectionRef, SyntaxTree, ValueAt, key_decodes, parse, parse_owned,
};
