//! Every real file of the shared corpus, checked against its MANIFEST.tsv facts, and the
//! byte-exact round trip of every file the reader accepts — in memory and streaming.
//!
//! The corpus stays in `shared/corpus/public/` beside the checkout; nothing of it is copied here.

use std::path::PathBuf;

use clientbank_format::{Encoding, Key, Reader, SectionKind, parse};
use rust_decimal::Decimal;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/public")
}

struct Row {
    file: String,
    encoding: String,
    version: String,
    accounts: String,
    documents: String,
    sum: String,
    expect: String,
}

fn manifest() -> Vec<Row> {
    let path = corpus().join("MANIFEST.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the shared corpus must sit beside the checkout)",
            path.display()
        )
    });
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let c: Vec<&str> = line.split('\t').collect();
            Row {
                file: c[0].into(),
                encoding: c[2].into(),
                version: c[5].into(),
                accounts: c[6].into(),
                documents: c[7].into(),
                sum: c[8].into(),
                expect: c[9].into(),
            }
        })
        .collect()
}

#[test]
fn every_corpus_file_yields_its_manifest_facts() {
    let rows = manifest();
    assert_eq!(rows.len(), 32, "MANIFEST.tsv lists 32 files");
    let mut failures = Vec::new();
    for row in &rows {
        let bytes = std::fs::read(corpus().join(&row.file)).unwrap();
        let result = parse(bytes.clone());
        match (row.expect.as_str(), result) {
            ("error", Ok(_)) => {
                failures.push(format!("{}: accepted, but must be refused", row.file))
            }
            ("error", Err(_)) => {}
            (_, Err(refused)) => failures.push(format!("{}: refused: {}", row.file, refused)),
            (_, Ok(parsed)) => {
                let tree = &parsed.tree;
                let mut problems = Vec::new();
                if tree.to_bytes() != bytes {
                    problems.push("round trip differs".to_string());
                }
                let accounts = tree.accounts().count().to_string();
                let documents = tree.documents().count().to_string();
                let sum: Decimal = tree.documents().filter_map(|d| d.amount(Key::Sum)).sum();
                if accounts != row.accounts {
                    problems.push(format!(
                        "{accounts} account sections, manifest says {}",
                        row.accounts
                    ));
                }
                if documents != row.documents {
                    problems.push(format!(
                        "{documents} documents, manifest says {}",
                        row.documents
                    ));
                }
                if sum.round_dp(2).to_string() != row.sum && format!("{:.2}", sum) != row.sum {
                    problems.push(format!("documents sum {sum}, manifest says {}", row.sum));
                }
                let version = tree.version().unwrap_or("-");
                if version != row.version {
                    problems.push(format!("version {version}, manifest says {}", row.version));
                }
                let encoding = match tree.encoding() {
                    Encoding::Cp1251 => "cp1251",
                    Encoding::Cp866 => "cp866",
                    Encoding::Utf8 => "utf-8",
                };
                if row.encoding != "ascii" && encoding != row.encoding {
                    problems.push(format!(
                        "read as {encoding}, manifest says {}",
                        row.encoding
                    ));
                }
                if !problems.is_empty() {
                    failures.push(format!("{}: {}", row.file, problems.join("; ")));
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn streaming_reads_the_same_sections_and_bytes() {
    for row in manifest().iter().filter(|r| r.expect == "parse") {
        let bytes = std::fs::read(corpus().join(&row.file)).unwrap();
        let tree = parse(bytes.clone()).unwrap().tree;
        let mut joined = Vec::new();
        let sections: Vec<_> = Reader::new(&bytes[..]).collect::<Result<_, _>>().unwrap();
        let bom = if tree.has_bom() { 3 } else { 0 };
        joined.extend_from_slice(&bytes[..bom]);
        for section in &sections {
            joined.extend_from_slice(section.as_bytes());
        }
        assert_eq!(joined, bytes, "{}", row.file);
        let documents = sections
            .iter()
            .filter(|s| s.kind() == SectionKind::Document)
            .count();
        assert_eq!(documents, tree.documents().count(), "{}", row.file);
    }
}

#[test]
fn two_threads_read_every_file_as_one_pass_does() {
    for row in manifest() {
        let bytes = std::fs::read(corpus().join(&row.file)).unwrap();
        clientbank_format::fuzz::parallel_agrees(&bytes);
    }
}
