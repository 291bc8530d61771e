//! Writes a generated statement to a file, for whole-process measurements by hand:
//! `target/release/generate DOCUMENTS OUT [SEED] [--valid-requisites]` (the same file as the
//! benches' generator makes for that count and seed; 42 by default; with valid INNs and
//! accounts when asked).

fn main() {
    let (flags, mut args): (Vec<String>, Vec<String>) =
        std::env::args().skip(1).partition(|a| a.starts_with("--"));
    let valid = match flags.as_slice() {
        [] => false,
        [flag] if flag == "--valid-requisites" => true,
        _ => usage(),
    };
    args.reverse();
    let (Some(documents), Some(out)) = (args.pop(), args.pop()) else {
        usage()
    };
    let documents: usize = documents.parse().expect("DOCUMENTS is a number");
    let seed: u64 = args
        .pop()
        .map_or(42, |s| s.parse().expect("SEED is a number"));
    let bytes = if valid {
        clientbank_benches::statement_with_valid_requisites(documents, seed)
    } else {
        clientbank_benches::statement(documents, seed)
    };
    std::fs::write(&out, &bytes).expect("write the file");
    println!("{out}: {documents} documents, {} bytes", bytes.len());
}

fn usage() -> ! {
    eprintln!("usage: generate DOCUMENTS OUT [SEED] [--valid-requisites]");
    std::process::exit(2);
}
