//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`) and every testdata file
//! through the fuzz targets' properties, on stable, in every test run.

use std::path::PathBuf;

fn inputs(dir: &str) -> Vec<Vec<u8>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    for sub in [
        format!("fuzz/corpus/{dir}"),
        "testdata/valid".into(),
        "testdata/odd".into(),
        "testdata/invalid".into(),
    ] {
        let entries = std::fs::read_dir(root.join(&sub)).unwrap_or_else(|e| panic!("{sub}: {e}"));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_file() {
                found.push(std::fs::read(path).unwrap());
            }
        }
    }
    assert!(
        found.len() > 20,
        "the corpus of {dir} is too small to mean anything"
    );
    found
}

#[test]
fn parse_target_corpus() {
    for input in inputs("parse") {
        clientbank_format::fuzz::parse_agrees(&input);
    }
}

#[test]
fn roundtrip_target_corpus() {
    for input in inputs("roundtrip") {
        clientbank_format::fuzz::roundtrip(&input);
    }
}
