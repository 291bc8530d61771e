//! The canonical writer on a real file: `target/release/writer FILE [RUNS]` reads FILE into
//! the owned `Exchange` (outside the timing), then writes it with `Exchange::to_bytes` (CP1251)
//! RUNS times (5 by default) and prints the median throughput of the bytes written, with an
//! FNV-1a hash of them so that two builds can be compared for the same output.

use std::hint::black_box;
use std::time::Instant;

use clientbank_format::{Encoding, parse};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: writer FILE [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args
        .next()
        .map_or(5, |r| r.parse().expect("RUNS is a number"));
    let bytes = std::fs::read(&path).expect("read the file");
    let exchange = parse(bytes).expect("the file reads").tree.to_exchange();
    let mut times = Vec::new();
    let mut written = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        written = black_box(&exchange)
            .to_bytes(Encoding::Cp1251)
            .expect("it writes");
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let hash = written.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    println!(
        "{} documents, {} bytes written, median of {runs}: {:.3} s, {:.0} MB/s ({:.0} MiB/s); hash {hash:016x}",
        exchange.documents.len(),
        written.len(),
        median,
        written.len() as f64 / median / 1e6,
        written.len() as f64 / median / f64::from(1 << 20),
    );
}
