//! Writes a generated statement to a file, for whole-process measurements by hand:
//! `target/release/generate DOCUMENTS OUT [SEED]` (the same file as the benches' generator
//! makes for that count and seed; 42 by default).

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(documents), Some(out)) = (args.next(), args.next()) else {
        eprintln!("usage: generate DOCUMENTS OUT [SEED]");
        std::process::exit(2);
    };
    let documents: usize = documents.parse().expect("DOCUMENTS is a number");
    let seed: u64 = args
        .next()
        .map_or(42, |s| s.parse().expect("SEED is a number"));
    let bytes = clientbank_benches::statement(documents, seed);
    std::fs::write(&out, &bytes).expect("write the file");
    println!("{out}: {documents} documents, {} bytes", bytes.len());
}
