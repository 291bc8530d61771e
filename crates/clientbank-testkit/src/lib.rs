//! What the workspace's tests share: golden files.
//!
//! A golden file holds what a test produced when it was last reviewed (the rendered findings
//! of `testdata/**/NAME.txt` beside it as `NAME.expected`, a command's output in
//! `tests/snapshots/`). [`Goldens`] compares what a test produces now with each file in place,
//! and fails with a unified diff of every file that differs; with `BLESS=1` in the
//! environment it rewrites them instead, to be reviewed in the change.
//!
//! ```
//! # let dir = tempfile_dir();
//! # let path = dir.join("example.expected");
//! # std::fs::write(&path, "one\ntwo\n").unwrap();
//! let mut goldens = clientbank_testkit::Goldens::new();
//! goldens.check(&path, "one\ntwo\n");
//! goldens.finish(); // panics with the diffs if a file differed
//! # fn tempfile_dir() -> std::path::PathBuf {
//! #     let dir = std::env::temp_dir().join(format!("clientbank-testkit-{}", std::process::id()));
//! #     std::fs::create_dir_all(&dir).unwrap();
//! #     dir
//! # }
//! ```

use std::fmt::Write as _;
use std::path::Path;

/// The environment variable that makes [`Goldens`] rewrite the files instead of comparing.
pub const BLESS: &str = "BLESS";

/// Golden files compared (or, with `BLESS=1`, rewritten) one after another, failing at
/// [`Goldens::finish`] with every difference at once.
#[derive(Debug)]
pub struct Goldens {
    bless: bool,
    stale: Vec<String>,
    finished: bool,
}

impl Default for Goldens {
    fn default() -> Goldens {
        Goldens::new()
    }
}

impl Goldens {
    /// Compares, or rewrites when `BLESS` is set in the environment.
    pub fn new() -> Goldens {
        Goldens::blessing(std::env::var_os(BLESS).is_some())
    }

    /// Rewrites the files when `bless`, compares them otherwise.
    pub fn blessing(bless: bool) -> Goldens {
        Goldens {
            bless,
            stale: Vec::new(),
            finished: false,
        }
    }

    /// Holds `actual` against the file at `path`: byte for byte, line endings included. When
    /// blessing, writes it there (creating the folder) if it differs.
    pub fn check(&mut self, path: impl AsRef<Path>, actual: &str) {
        let path = path.as_ref();
        let expected = std::fs::read(path).ok();
        if expected.as_deref() == Some(actual.as_bytes()) {
            return;
        }
        if self.bless {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
            }
            std::fs::write(path, actual)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
            return;
        }
        let report = match expected {
            None => format!("{} is missing ({BLESS}=1 writes it)", path.display()),
            Some(expected) => diff(path, &String::from_utf8_lossy(&expected), actual),
        };
        self.stale.push(report);
    }

    /// The files that differed so far, each with its diff.
    pub fn stale(&self) -> &[String] {
        &self.stale
    }

    /// Fails with the diff of every file that differed.
    #[track_caller]
    pub fn finish(mut self) {
        self.finished = true;
        let stale = std::mem::take(&mut self.stale);
        assert!(
            stale.is_empty(),
            "{} golden file(s) differ from what the test produces now \
             ({BLESS}=1 rewrites them; review the change):\n\n{}",
            stale.len(),
            stale.join("\n")
        );
    }
}

impl Drop for Goldens {
    fn drop(&mut self) {
        if !self.finished && !self.stale.is_empty() && !std::thread::panicking() {
            panic!(
                "golden files differ and Goldens::finish was not called:\n{}",
                self.stale.join("\n")
            );
        }
    }
}

/// Holds `actual` against the file at `path` ([`Goldens`] for one file).
#[track_caller]
pub fn assert_golden(path: impl AsRef<Path>, actual: &str) {
    let mut goldens = Goldens::new();
    goldens.check(path, actual);
    goldens.finish();
}

/// A unified diff from the file to what is produced now; a carriage return shows as `\r`, so
/// a change of line endings is seen.
fn diff(path: &Path, expected: &str, actual: &str) -> String {
    let visible = |text: &str| text.replace('\r', "\\r");
    let (expected, actual) = (visible(expected), visible(actual));
    let mut out = String::new();
    let name = path.display().to_string();
    let _ = write!(
        out,
        "{}",
        similar::TextDiff::from_lines(&expected, &actual)
            .unified_diff()
            .context_radius(3)
            .header(&name, "produced now")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("clientbank-testkit-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_same_bytes_pass_and_a_line_ending_does_not() {
        let dir = dir("compare");
        let path = dir.join("a.expected");
        std::fs::write(&path, "one\r\ntwo\n").unwrap();
        let mut goldens = Goldens::blessing(false);
        goldens.check(&path, "one\r\ntwo\n");
        assert!(goldens.stale().is_empty());
        goldens.check(&path, "one\ntwo\n");
        goldens.check(dir.join("missing.expected"), "x");
        assert_eq!(goldens.stale().len(), 2);
        assert!(
            goldens.stale()[0].contains("-one\\r\n+one\n"),
            "{:?}",
            goldens.stale()
        );
        assert!(goldens.stale()[1].contains("is missing (BLESS=1 writes it)"));
        let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| goldens.finish()));
        assert!(failed.is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn blessing_writes_what_differs_or_is_missing() {
        let dir = dir("bless");
        let path = dir.join("new/b.expected");
        let mut goldens = Goldens::blessing(true);
        goldens.check(&path, "written\r\n");
        goldens.finish();
        assert_eq!(std::fs::read(&path).unwrap(), b"written\r\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
