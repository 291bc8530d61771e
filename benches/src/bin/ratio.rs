//! The in-memory reader's throughput beside odin_palace's on the 100k-document statement, best
//! of seven runs each, and their ratio (issue 2's target); then where our time goes (the best
//! of each part): `parse`, the loop over the documents' sums and dates, dropping the tree.
//! `taskset -c 0` shows one core.
//!
//! cargo run --release -p clientbank-benches --bin ratio

use std::hint::black_box;
use std::time::Instant;

use clientbank_format::{Key, parse};
use rust_decimal::Decimal;

fn main() {
    let bytes = clientbank_benches::statement(100_000, 42);
    let mib = bytes.len() as f64 / f64::from(1 << 20);
    let (mut ours, mut odin) = (f64::MAX, f64::MAX);
    let mut parts = [f64::MAX; 3];
    let parser = odin_palace::parser::ParserBuilder::new().build();
    for _ in 0..7 {
        // `parse` takes the bytes, as from `std::fs::read`: the copy is made before timing.
        let input = bytes.clone();
        let start = Instant::now();
        let parsed = parse(input).expect("the generated statement reads");
        let parsed_at = start.elapsed().as_secs_f64();
        let mut total = Decimal::ZERO;
        for document in parsed.tree.documents() {
            total += document.amount(Key::Sum).unwrap_or_default();
            black_box(document.date(Key::Date));
        }
        black_box(total);
        let read_at = start.elapsed().as_secs_f64();
        drop(parsed);
        let end = start.elapsed().as_secs_f64();
        ours = ours.min(end);
        for (best, took) in parts
            .iter_mut()
            .zip([parsed_at, read_at - parsed_at, end - read_at])
        {
            *best = best.min(took);
        }
        let start = Instant::now();
        drop(black_box(parser.parse(&bytes)));
        odin = odin.min(start.elapsed().as_secs_f64());
    }
    println!(
        "clientbank-format {:.0} MiB/s, odin_palace {:.0} MiB/s: {:.2}x",
        mib / ours,
        mib / odin,
        odin / ours
    );
    let [parsing, documents, dropping] = parts.map(|s| s * 1000.0);
    println!(
        "parse {parsing:.1} ms ({:.0} MiB/s), sums and dates {documents:.1} ms, drop {dropping:.1} ms",
        mib / (parsing / 1000.0)
    );
}
