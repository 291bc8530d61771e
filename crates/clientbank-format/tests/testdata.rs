//! The hand-made files in `testdata/`: valid ones read without a finding, odd ones are
//! accepted with warnings, invalid ones hold one defect each. The rendered findings of
//! every odd and invalid file are kept beside it as `NAME.expected`; a change of wording
//! shows in review. Run with `BLESS=1` to rewrite them after a deliberate change.

use std::path::{Path, PathBuf};

use clientbank_format::{Encoding, Reader, Renderer, Severity, parse};
use clientbank_testkit::Goldens;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(testdata().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no files in testdata/{dir}");
    files
}

/// The findings as a person sees them (or the refusal).
fn rendered(path: &Path, bytes: &[u8]) -> String {
    let shown = format!(
        "testdata/{}/{}",
        path.parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy(),
        path.file_name().unwrap().to_string_lossy()
    );
    match parse(bytes) {
        Ok(parsed) => {
            let renderer = Renderer::new(&shown, bytes, Some(parsed.tree.encoding().as_source()));
            parsed
                .diagnostics
                .iter()
                .map(|d| renderer.render(d))
                .collect()
        }
        Err(refused) => Renderer::new(&shown, bytes, refused.encoding.map(Encoding::as_source))
            .render(&refused.diagnostic),
    }
}

/// The rendered findings against `NAME.expected` beside the file.
fn check_expected(goldens: &mut Goldens, path: &Path, actual: &str) {
    goldens.check(path.with_extension("expected"), actual);
}

fn round_trips(path: &Path, bytes: &[u8]) {
    let tree = parse(bytes).unwrap().tree;
    assert_eq!(tree.to_bytes(), bytes, "{}", path.display());
    let mut streamed = bytes[..if tree.has_bom() { 3 } else { 0 }].to_vec();
    for section in Reader::new(bytes) {
        streamed.extend_from_slice(section.unwrap().as_bytes());
    }
    assert_eq!(streamed, bytes, "{} streamed", path.display());
}

#[test]
fn valid_files_have_no_findings_and_round_trip() {
    for path in files("valid") {
        let bytes = std::fs::read(&path).unwrap();
        let parsed = parse(&bytes[..]).unwrap();
        assert_eq!(parsed.diagnostics, [], "{}", path.display());
        round_trips(&path, &bytes);
    }
}

#[test]
fn odd_files_are_accepted_with_warnings() {
    let mut goldens = Goldens::new();
    for path in files("odd") {
        let bytes = std::fs::read(&path).unwrap();
        let parsed = parse(&bytes[..]).unwrap();
        assert!(
            !parsed.diagnostics.is_empty(),
            "{}: no finding",
            path.display()
        );
        assert!(
            parsed
                .diagnostics
                .iter()
                .all(|d| d.severity == Severity::Warning),
            "{}: {:?}",
            path.display(),
            parsed.diagnostics
        );
        round_trips(&path, &bytes);
        check_expected(&mut goldens, &path, &rendered(&path, &bytes));
    }
    goldens.finish();
}

#[test]
fn invalid_files_are_refused_or_have_an_error() {
    let mut goldens = Goldens::new();
    for path in files("invalid") {
        let bytes = std::fs::read(&path).unwrap();
        match parse(&bytes[..]) {
            Ok(parsed) => {
                let errors = parsed.diagnostics.iter().filter(|d| d.is_error()).count();
                assert_eq!(errors, 1, "{}: one defect each", path.display());
                round_trips(&path, &bytes);
            }
            Err(refused) => assert!(refused.diagnostic.code.is_fatal()),
        }
        check_expected(&mut goldens, &path, &rendered(&path, &bytes));
    }
    goldens.finish();
}
