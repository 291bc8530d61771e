//! The in-memory reader's throughput beside odin_palace's on the 100k-document statement, best
//! of seven runs each, and their ratio (issue 2's target). `taskset -c 0` shows one core.
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
    let parser = odin_palace::parser::ParserBuilder::new().build();
    for _ in 0..7 {
        // `parse` takes the bytes, as from `std::fs::read`: the copy is made before timing.
        let input = bytes.clone();
        let start = Instant::now();
        let parsed = parse(input).expect("the generated statement reads");
        let mut total = Decimal::ZERO;
        for document in parsed.tree.documents() {
            total += document.amount(Key::Sum).unwrap_or_default();
            black_box(document.date(Key::Date));
        }
        black_box(total);
        drop(parsed);
        ours = ours.min(start.elapsed().as_secs_f64());
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
}
