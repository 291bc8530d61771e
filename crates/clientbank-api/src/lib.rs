//! The async client of the business bank's API v1 (`../shared/API.md`) and its wire types.
//!
//! - [`Client`] covers every endpoint of the API: companies and accounts, balances, operation
//!   history (page by page with [`Client::history_pages`], or whole and deduplicated with
//!   [`Client::operations_between`]), payment upload as
//!   JSON or 1C, signing, the OAuth flow, nominal accounts and SBP.
//! - TLS is always verified (extra root certificates from a PEM file); plain `http://` only
//!   to loopback, for the sandbox bank.
//! - Reads are repeated on 503, 429, timeouts and resets; uploads and signatures only when the
//!   bank provably did not take them ([`Error::not_taken`]: no connection, or the bank's own
//!   maintenance answer). [`Error::in_doubt`] says when a request may have been acted on
//!   without an answer — a 2xx on a write whose answer cannot be read included
//!   ([`Error::Unreadable`], with the raw body).
//! - Every wire parser is total: history records are read leniently ([`Operation::from_json`]),
//!   date-times with an offset are converted to Moscow time, nothing panics on input.
//! - The [`Token`] and [`TokenRequest`]'s secrets never show in `Debug`, logs or errors.
//! - [`webhook::verify`] checks a notification's `SHA1Hash` before reading the body.

#![warn(missing_docs)]

mod client;
mod error;
#[doc(hidden)]
pub mod fuzz;
mod token;
pub mod types;
pub mod webhook;

pub use chrono::{NaiveDate, NaiveDateTime};
pub use client::{Client, ClientBuilder, HistoryPages, Retry, bank_address, on_this_machine};
pub use error::Error;
pub use rust_decimal::Decimal;
pub use token::{Token, TokenResponse};
pub use types::{
    BankAccount, Company, ErrorBody, HistoryFilter, Notification, Operation, SignRequest,
    TokenRequest, UnreadableUpload, UploadResult,
};

/// The README's Rust blocks, compiled as doc tests (the crate that sees every library).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
