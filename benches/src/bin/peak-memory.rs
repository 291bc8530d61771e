//! Peak resident memory of one way of reading a generated statement, as a multiple of its size.
//! One way per process, so that peaks do not mix:
//!
//! cargo run --release -p clientbank-benches --bin peak-memory -- tree|typed|stream|odin_palace [DOCUMENTS]
//!
//! The input is written to a temporary file first and read from there, as a user would.

/// A line of /proc/self/status, in bytes (Linux).
fn status_bytes(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        .map(|kb| kb * 1024)
        .expect("the field is there")
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "tree".into());
    let documents: usize = args
        .next()
        .map_or(100_000, |n| n.parse().expect("a number of documents"));
    let path = std::env::temp_dir().join(format!("clientbank-peak-{documents}.txt"));
    if !path.exists() {
        std::fs::write(&path, clientbank_benches::statement(documents, 42)).expect("temp file");
    }
    let size = std::fs::metadata(&path).expect("temp file").len() as usize;
    // The peak resident set (VmHWM) above what the process held before reading.
    let base = status_bytes("VmRSS:");
    let count = match mode.as_str() {
        "tree" | "typed" => {
            let bytes = std::fs::read(&path).expect("read");
            let parsed = clientbank_format::parse(bytes).expect("parse");
            if mode == "typed" {
                parsed.tree.to_exchange().documents.len()
            } else {
                parsed.tree.documents().count()
            }
        }
        "stream" => {
            let file = std::fs::File::open(&path).expect("open");
            clientbank_format::Reader::new(file)
                .filter(|s| {
                    s.as_ref()
                        .is_ok_and(|s| s.kind() == clientbank_format::SectionKind::Document)
                })
                .count()
        }
        "odin_palace" => {
            let bytes = std::fs::read(&path).expect("read");
            let parser = odin_palace::parser::ParserBuilder::new().build();
            parser
                .parse(&bytes)
                .expect("odin_palace parses")
                .documents
                .len()
        }
        other => panic!("unknown mode {other}: tree, typed, stream or odin_palace"),
    };
    let peak = status_bytes("VmHWM:").saturating_sub(base);
    println!(
        "{mode}: {count} documents, file {:.1} MB, peak resident memory {:.1} MB = {:.2}x the file",
        size as f64 / 1e6,
        peak as f64 / 1e6,
        peak as f64 / size as f64
    );
}
