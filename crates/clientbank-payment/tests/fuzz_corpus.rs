//! Replays the committed fuzz corpus (`fuzz/corpus/json`, `fuzz/corpus/mapping`) and the
//! hand-made payments of `testdata/` through the fuzz targets' properties, on stable.

use std::path::PathBuf;

fn inputs(dirs: &[&str]) -> Vec<Vec<u8>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    for dir in dirs {
        for entry in std::fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("{dir}: {e}")) {
            let path = entry.unwrap().path();
            if path.is_file() && path.extension().is_none_or(|e| e != "expected") {
                found.push(std::fs::read(path).unwrap());
            }
        }
    }
    assert!(found.len() > 10, "too small a corpus to mean anything");
    found
}

#[test]
fn json_target_corpus() {
    for input in inputs(&["fuzz/corpus/json", "testdata/payments", "testdata/valid"]) {
        clientbank_payment::fuzz::json(&input);
    }
}

#[test]
fn mapping_target_corpus() {
    for input in inputs(&[
        "fuzz/corpus/mapping",
        "testdata/payments",
        "testdata/valid",
        "testdata/odd",
    ]) {
        clientbank_payment::fuzz::mapping(&input);
    }
}
