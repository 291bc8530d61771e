//! Replays the committed fuzz corpus (`fuzz/corpus/wire/`, `fuzz/corpus/webhook/`) through
//! the fuzz targets' properties, on stable, in every test run.

use std::path::PathBuf;

fn inputs(dir: &str) -> Vec<Vec<u8>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    let entries = std::fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("{dir}: {e}"));
    let mut found = Vec::new();
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_file() {
            found.push(std::fs::read(path).unwrap());
        }
    }
    assert!(
        found.len() >= 8,
        "the corpus of {dir} is too small to mean anything"
    );
    found
}

#[test]
fn wire_target_corpus() {
    for input in inputs("wire") {
        clientbank_api::fuzz::wire(&input);
    }
}

#[test]
fn webhook_target_corpus() {
    for input in inputs("webhook").into_iter().chain(inputs("wire")) {
        clientbank_api::fuzz::webhook(&input);
    }
}
