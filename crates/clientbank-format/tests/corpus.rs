//! Files checked against a table of their facts (MANIFEST.tsv: encoding, version, sections,
//! documents, sum of the documents, accepted or refused), with the byte-exact round trip of
//! every file the reader accepts — in memory, streaming, and by two threads.
//!
//! Two sets of files: the project's own hand-made `testdata/corpus-like/`, which covers every
//! behaviour below and is always checked, and the shared corpus of real files
//! (`../shared/corpus/public/` beside the checkout, read in place, nothing of it copied here),
//! which is checked when it is there. Without it those tests say so in one line and pass;
//! with `CLIENTBANK_REQUIRE_CORPUS` set (`.ci/run` sets it when it finds the corpus) they fail.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clientbank_format::{Encoding, Key, Reader, SectionKind, parse};
use rust_decimal::Decimal;

/// The shared corpus, or `None` after one line on stderr saying it is absent.
fn corpus() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/public");
    if dir.join("MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CLIENTBANK_REQUIRE_CORPUS").is_none(),
        "CLIENTBANK_REQUIRE_CORPUS is set but the shared corpus is not at {}",
        dir.display()
    );
    // Straight to stderr, past the test harness's capture, so that the skip is seen.
    let _ = writeln!(
        std::io::stderr(),
        "skipped: the shared corpus is not beside the checkout (../shared/corpus/public)"
    );
    None
}

/// The project's own hand-made files of the same kinds.
fn corpus_like() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/corpus-like")
}

struct Row {
    file: String,
    bytes: String,
    encoding: String,
    version: String,
    accounts: String,
    documents: String,
    sum: String,
    expect: String,
    why: String,
}

fn manifest(dir: &Path) -> Vec<Row> {
    let path = dir.join("MANIFEST.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            let c: Vec<&str> = line.split('\t').collect();
            assert!(
                c.len() >= 10,
                "{}:{}: {} columns, expected 10 or 11",
                path.display(),
                i + 2,
                c.len()
            );
            Row {
                file: c[0].into(),
                bytes: c[1].into(),
                encoding: c[2].into(),
                version: c[5].into(),
                accounts: c[6].into(),
                documents: c[7].into(),
                sum: c[8].into(),
                expect: c[9].into(),
                why: c.get(10).copied().unwrap_or("").into(),
            }
        })
        .collect()
}

/// Every row's facts against what the reader makes of its file; the list of what differs.
fn check_facts(dir: &Path, rows: &[Row]) -> Vec<String> {
    let mut failures = Vec::new();
    for row in rows {
        let bytes = std::fs::read(dir.join(&row.file))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(&row.file).display()));
        if bytes.len().to_string() != row.bytes {
            failures.push(format!(
                "{}: {} bytes, manifest says {}",
                row.file,
                bytes.len(),
                row.bytes
            ));
        }
        match (row.expect.as_str(), parse(bytes.clone())) {
            ("error", Ok(_)) => {
                failures.push(format!("{}: accepted, but must be refused", row.file))
            }
            ("error", Err(refused)) => {
                // A hand-made row names the refusal's code first: "`mixed-encoding`: …".
                if let Some(code) = row
                    .why
                    .strip_prefix('`')
                    .and_then(|w| w.split_once('`'))
                    .map(|(code, _)| code)
                    && refused.diagnostic.code.as_str() != code
                {
                    failures.push(format!(
                        "{}: refused as {}, manifest says {code}",
                        row.file,
                        refused.diagnostic.code.as_str()
                    ));
                }
            }
            ("parse", Err(refused)) => failures.push(format!("{}: refused: {}", row.file, refused)),
            ("parse", Ok(parsed)) => {
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
            (other, _) => failures.push(format!(
                "{}: expect is {other:?}, not parse or error",
                row.file
            )),
        }
    }
    failures
}

/// The streaming reader yields the same sections, byte for byte, as the in-memory one.
fn check_streaming(dir: &Path, rows: &[Row]) {
    for row in rows.iter().filter(|r| r.expect == "parse") {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
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
fn every_corpus_file_yields_its_manifest_facts() {
    let Some(dir) = corpus() else { return };
    let rows = manifest(&dir);
    assert_eq!(rows.len(), 32, "MANIFEST.tsv lists 32 files");
    let failures = check_facts(&dir, &rows);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn streaming_reads_the_same_sections_and_bytes() {
    let Some(dir) = corpus() else { return };
    check_streaming(&dir, &manifest(&dir));
}

#[test]
fn two_threads_read_every_file_as_one_pass_does() {
    let Some(dir) = corpus() else { return };
    for row in manifest(&dir) {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        clientbank_format::fuzz::parallel_agrees(&bytes);
    }
}

#[test]
fn every_hand_made_corpus_like_file_yields_its_manifest_facts() {
    let dir = corpus_like();
    let rows = manifest(&dir);
    let failures = check_facts(&dir, &rows);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    // Every file of the folder is in the table, and the table covers what the shared corpus
    // shows: each encoding, each version, LF and CRLF, a BOM, statements and files to the
    // bank, truncated sections, and every kind of refusal.
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "MANIFEST.tsv" && name != "PAYMENTS.tsv" && name != "README.md")
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = rows.iter().map(|r| r.file.clone()).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "files of testdata/corpus-like/ not in MANIFEST.tsv"
    );
    let read: Vec<&Row> = rows.iter().filter(|r| r.expect == "parse").collect();
    for encoding in ["cp1251", "cp866", "utf-8"] {
        assert!(
            read.iter().any(|r| r.encoding == encoding),
            "no accepted {encoding} file"
        );
    }
    for version in ["1.01", "1.02", "1.03", "-"] {
        assert!(
            read.iter().any(|r| r.version == version),
            "no file of version {version}"
        );
    }
    let has_bom = read.iter().any(|r| {
        std::fs::read(dir.join(&r.file))
            .unwrap()
            .starts_with(b"\xEF\xBB\xBF")
    });
    assert!(has_bom, "no file with a UTF-8 BOM");
    let refusals: Vec<&str> = rows
        .iter()
        .filter(|r| r.expect == "error")
        .filter_map(|r| r.why.strip_prefix('`')?.split_once('`').map(|(c, _)| c))
        .collect();
    for code in [
        "empty-input",
        "not-an-exchange-file",
        "mixed-encoding",
        "replacement-character",
    ] {
        assert!(refusals.contains(&code), "no file refused as {code}");
    }
}

#[test]
fn hand_made_corpus_like_files_stream_and_split_as_one_pass_does() {
    let dir = corpus_like();
    let rows = manifest(&dir);
    check_streaming(&dir, &rows);
    for row in &rows {
        let bytes = std::fs::read(dir.join(&row.file)).unwrap();
        clientbank_format::fuzz::parallel_agrees(&bytes);
    }
}

#[test]
fn hand_made_files_with_a_lying_label_are_read_by_their_bytes() {
    // `Кодировка` says one thing, the bytes another: the bytes win, with a finding.
    let dir = corpus_like();
    for (file, label) in [
        (
            "statement-bank-orders-1.02-utf8-says-windows.txt",
            "Windows",
        ),
        ("statement-payment-orders-1.03-utf8-bom-crlf.txt", "Windows"),
    ] {
        let parsed = parse(std::fs::read(dir.join(file)).unwrap()).unwrap();
        assert_eq!(parsed.tree.encoding(), Encoding::Utf8, "{file}");
        assert!(
            parsed
                .diagnostics
                .iter()
                .any(|d| d.code.as_str() == "encoding-mismatch"),
            "{file}: says {label}, is UTF-8, and no encoding-mismatch finding"
        );
    }
}
