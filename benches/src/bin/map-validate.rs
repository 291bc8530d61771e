//! Mapping and validation of payment orders once over a generated statement, for counting
//! instructions (criterion's own runs repeat the work a number of times that depends on the
//! machine, so a count over them is not per payment):
//!
//! ```text
//! cargo build --release -p clientbank-benches
//! valgrind --tool=callgrind --toggle-collect='clientbank_payment::onec::check_section*' \
//!     target/release/map-validate [DOCUMENTS] [--valid-requisites] [--past-limits]   (default 10000)
//! ```
//!
//! Each document is read borrowed, mapped, and checked by every rule with every finding made
//! whole (what the bench `map-and-validate-borrowed` times), or with `--past-limits` each finding
//! a stand-in, as `check` makes them once every code is past its per-file limit; the
//! instructions collected divided by the documents printed is the cost of one payment.

use clientbank_format::{Encoding, parse};
use clientbank_payment::{Context, onec};

fn main() {
    let (flags, args): (Vec<String>, Vec<String>) =
        std::env::args().skip(1).partition(|a| a.starts_with("--"));
    let (mut valid, mut past_limits) = (false, false);
    for flag in &flags {
        match flag.as_str() {
            "--valid-requisites" => valid = true,
            "--past-limits" => past_limits = true,
            _ => usage(),
        }
    }
    let documents = match args.as_slice() {
        [] => 10_000,
        [n] => n.parse().unwrap_or_else(|_| usage()),
        _ => usage(),
    };
    let bytes = if valid {
        clientbank_benches::statement_with_valid_requisites(documents, 42)
    } else {
        clientbank_benches::statement(documents, 42)
    };
    let Ok(parsed) = parse(&bytes[..]) else {
        eprintln!("the generated statement does not read");
        std::process::exit(1);
    };
    let context = Context::history();
    let (mut payments, mut findings) = (0usize, 0usize);
    for section in parsed.tree.documents() {
        payments += 1;
        let (made, counted) =
            onec::check_section(&section, &context, Encoding::Cp1251, past_limits);
        findings += made.len() + counted;
    }
    println!("{payments} payments, {findings} findings");
}

fn usage() -> ! {
    eprintln!("usage: map-validate [DOCUMENTS] [--valid-requisites] [--past-limits]");
    std::process::exit(2);
}
