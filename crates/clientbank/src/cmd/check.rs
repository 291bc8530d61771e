//! `clientbank check FILE... [--strict] [--json]`: the format's findings and the payment rules'
//! findings of every file (1C or JSON upload requests), and an exit code.
//!
//! Each finding is rendered (or serialised, with `--json`) as it is written, through one
//! buffered writer: no report is held, and rendering costs the length of the finding's line.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clientbank_format::{Diagnostic, Renderer, Severity};
use clientbank_payment::Finding;
use serde_json::json;

use crate::exit::{Failure, Outcome};
use crate::output::{Input, Unreadable, diagnostic_json, encoding_name};
use crate::payments;

/// Where one file's findings go, as they come: text for people (stdout when the file was
/// read, stderr when it was not) or the members of its JSON `diagnostics` array.
struct FileOut<'a, W: Write> {
    out: &'a mut W,
    json: bool,
    strict: bool,
    file: String,
    readable: bool,
    errors: usize,
    warnings: usize,
    first: bool,
}

impl<'a, W: Write> FileOut<'a, W> {
    fn start(
        out: &'a mut W,
        json: bool,
        strict: bool,
        file: String,
        encoding: Option<&'static str>,
        readable: bool,
    ) -> io::Result<FileOut<'a, W>> {
        if json {
            write!(
                out,
                "    {{\"file\": {}, \"encoding\": {}, \"readable\": {readable}, \"diagnostics\": [",
                json!(file),
                json!(encoding)
            )?;
        } else if !readable {
            // Findings of an unreadable file go to stderr: what stdout holds so far first.
            out.flush()?;
        }
        Ok(FileOut {
            out,
            json,
            strict,
            file,
            readable,
            errors: 0,
            warnings: 0,
            first: true,
        })
    }

    fn severity(&self, severity: Severity) -> Severity {
        if self.strict {
            Severity::Error
        } else {
            severity
        }
    }

    fn count(&mut self, severity: Severity, count: usize) {
        match severity {
            Severity::Error => self.errors += count,
            Severity::Warning => self.warnings += count,
        }
    }

    fn text(&mut self, text: &str) -> io::Result<()> {
        if self.readable {
            self.out.write_all(text.as_bytes())
        } else {
            io::stderr().lock().write_all(text.as_bytes())
        }
    }

    fn json(&mut self, value: &serde_json::Value) -> io::Result<()> {
        let separator: &[u8] = if self.first {
            b"\n      "
        } else {
            b",\n      "
        };
        self.first = false;
        self.out.write_all(separator)?;
        serde_json::to_writer(&mut *self.out, value).map_err(io::Error::from)
    }

    fn diagnostic(&mut self, diagnostic: &Diagnostic, renderer: &Renderer<'_>) -> io::Result<()> {
        let severity = self.severity(diagnostic.severity);
        self.count(severity, diagnostic.count());
        if self.json {
            self.json(&diagnostic_json(diagnostic, severity))
        } else if severity == diagnostic.severity {
            self.text(&renderer.render(diagnostic))
        } else {
            let mut strict = diagnostic.clone();
            strict.severity = severity;
            self.text(&renderer.render(&strict))
        }
    }

    fn finding(&mut self, mut finding: Finding, renderer: Option<&Renderer<'_>>) -> io::Result<()> {
        if self.strict {
            payments::make_strict(std::slice::from_mut(&mut finding));
        }
        self.count(finding.severity, 1);
        if self.json {
            self.json(&payments::finding_json(&finding))
        } else {
            let file = self.file.clone();
            self.text(&payments::render(&finding, &file, renderer))
        }
    }

    fn io_error(&mut self, e: &io::Error) -> io::Result<()> {
        self.errors += 1;
        if self.json {
            self.json(&json!({"severity": "error", "code": "io", "message": e.to_string()}))
        } else {
            self.text(&format!("error: cannot read {}: {e}\n", self.file))
        }
    }

    /// Closes the file's output; gives its outcome and counts.
    fn finish(self) -> io::Result<(Outcome, usize, usize)> {
        if self.json {
            let close: &[u8] = if self.first { b"]}" } else { b"\n    ]}" };
            self.out.write_all(close)?;
        } else if self.readable {
            let verdict = if self.errors > 0 { "FAILED" } else { "ok" };
            writeln!(
                self.out,
                "{}: {verdict} ({} error(s), {} warning(s))",
                self.file, self.errors, self.warnings
            )?;
        }
        let outcome = if !self.readable {
            Outcome::Unreadable
        } else if self.errors > 0 {
            Outcome::Findings
        } else {
            Outcome::Clean
        };
        Ok((outcome, self.errors, self.warnings))
    }
}

fn check_exchange<W: Write>(
    out: &mut W,
    json: bool,
    strict: bool,
    path: &Path,
    bytes: Vec<u8>,
    today: NaiveDate,
) -> io::Result<(Outcome, usize, usize)> {
    let input = Input::from_bytes(path, bytes);
    let encoding = input.encoding().map(encoding_name);
    let renderer = input.renderer();
    let readable = input.read.is_ok();
    let mut file = FileOut::start(out, json, strict, input.path.clone(), encoding, readable)?;
    match &input.read {
        Ok(parsed) => {
            for diagnostic in &parsed.diagnostics {
                file.diagnostic(diagnostic, &renderer)?;
            }
            payments::validate_tree(&parsed.tree, today, |finding| {
                file.finding(finding, Some(&renderer))
            })?;
        }
        Err(Unreadable::Refused(refused)) => {
            // A refusal stays an error whatever `--strict` says.
            file.diagnostic(&refused.diagnostic, &renderer)?;
        }
        Err(Unreadable::Io(e)) => file.io_error(e)?,
    }
    file.finish()
}

fn check_json<W: Write>(
    out: &mut W,
    json: bool,
    strict: bool,
    path: &Path,
    bytes: &[u8],
    today: NaiveDate,
) -> io::Result<(Outcome, usize, usize)> {
    let name = path.display().to_string();
    match payments::read_json(bytes, today) {
        Ok((_, findings)) => {
            let mut file = FileOut::start(out, json, strict, name, Some("utf-8"), true)?;
            for finding in findings {
                file.finding(finding, None)?;
            }
            file.finish()
        }
        Err(refused) => {
            let mut file = FileOut::start(out, json, strict, name, Some("utf-8"), false)?;
            file.finding(refused, None)?;
            file.finish()
        }
    }
}

pub(crate) fn run(
    files: &[PathBuf],
    strict: bool,
    json: bool,
    today: Option<NaiveDate>,
) -> Result<Outcome, Failure> {
    let today = today.unwrap_or_else(payments::today_in_moscow);
    let mut outcome = Outcome::Clean;
    let (mut errors, mut warnings) = (0, 0);
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    if json {
        out.write_all(b"{\n  \"files\": [")?;
    }
    for (i, path) in files.iter().enumerate() {
        if json {
            out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
        }
        let (file_outcome, file_errors, file_warnings) = match std::fs::read(path) {
            Ok(bytes) if payments::is_json(&bytes) => {
                check_json(&mut out, json, strict, path, &bytes, today)?
            }
            Ok(bytes) => check_exchange(&mut out, json, strict, path, bytes, today)?,
            Err(e) => {
                let name = path.display().to_string();
                let mut file = FileOut::start(&mut out, json, strict, name, None, false)?;
                file.io_error(&e)?;
                file.finish()?
            }
        };
        outcome = outcome.max(file_outcome);
        errors += file_errors;
        warnings += file_warnings;
    }
    if json {
        let close = if files.is_empty() { "]" } else { "\n  ]" };
        writeln!(
            out,
            "{close},\n  \"errors\": {errors},\n  \"warnings\": {warnings}\n}}"
        )?;
    } else {
        writeln!(
            out,
            "\n{} file(s) checked: {errors} error(s), {warnings} warning(s)",
            files.len()
        )?;
    }
    out.flush()?;
    Ok(outcome)
}
