//! `check`'s report, written as it is produced: text for people, one JSON object (`--json`),
//! or JSON Lines (`--json-lines`, also `convert --json` on stderr).
//!
//! JSON Lines shapes, one object per line:
//! - `{"kind": "diagnostic", "file": F, <the members of a finding in --json>}` for each finding;
//! - `{"kind": "file", "file": F, "encoding": E, "readable": B, "errors": N, "warnings": N}`
//!   after each file's findings;
//! - `{"kind": "summary", "files": N, "errors": N, "warnings": N}` last.

use std::io::{self, Write};

use clientbank_format::{Diagnostic, Renderer, Severity};
use clientbank_payment::Finding;
use serde_json::{Value, json};

use crate::cli::Mode;
use crate::exit::Outcome;
use crate::output::diagnostic_json;
use crate::payments;
use crate::term::{self, Stream, tr};

/// Where one file's findings go, as they come.
pub(crate) struct FileOut<'a, W: Write> {
    out: &'a mut W,
    mode: Mode,
    strict: bool,
    file: String,
    encoding: Option<&'static str>,
    readable: bool,
    errors: usize,
    warnings: usize,
    first: bool,
    /// The findings go to stderr beside another output (`convert`): no verdict line for
    /// people, no second line on stderr for a refusal.
    on_stderr: bool,
}

impl<'a, W: Write> FileOut<'a, W> {
    pub(crate) fn start(
        out: &'a mut W,
        mode: Mode,
        strict: bool,
        file: String,
        encoding: Option<&'static str>,
        readable: bool,
    ) -> io::Result<FileOut<'a, W>> {
        if mode == Mode::Json {
            write!(
                out,
                "    {{\"file\": {}, \"encoding\": {}, \"readable\": {readable}, \"diagnostics\": [",
                json!(file),
                json!(encoding)
            )?;
        }
        Ok(FileOut {
            out,
            mode,
            strict,
            file,
            encoding,
            readable,
            errors: 0,
            warnings: 0,
            first: true,
            on_stderr: false,
        })
    }

    /// The findings go to stderr beside another output (see `on_stderr`).
    pub(crate) fn on_stderr(mut self) -> FileOut<'a, W> {
        self.on_stderr = true;
        self
    }

    /// The writer, to pass on what was written so far.
    pub(crate) fn writer(&mut self) -> &mut W {
        self.out
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
        let stream = if self.on_stderr {
            Stream::Err
        } else {
            Stream::Out
        };
        self.out.write_all(term::paint(text, stream).as_bytes())
    }

    fn json(&mut self, mut value: Value) -> io::Result<()> {
        match self.mode {
            Mode::JsonLines => record(
                &mut *self.out,
                &[("kind", json!("diagnostic")), ("file", json!(self.file))],
                &mut value,
            ),
            _ => {
                let separator: &[u8] = if self.first {
                    b"\n      "
                } else {
                    b",\n      "
                };
                self.first = false;
                self.out.write_all(separator)?;
                serde_json::to_writer(&mut *self.out, &value).map_err(io::Error::from)
            }
        }
    }

    /// A finding of the format.
    pub(crate) fn diagnostic(
        &mut self,
        diagnostic: &Diagnostic,
        renderer: &Renderer<'_>,
    ) -> io::Result<()> {
        self.diagnostic_as(diagnostic, diagnostic.severity, renderer)
    }

    /// A finding of the format, with a severity of its own (see `dedupe`).
    pub(crate) fn diagnostic_as(
        &mut self,
        diagnostic: &Diagnostic,
        severity: Severity,
        renderer: &Renderer<'_>,
    ) -> io::Result<()> {
        let severity = self.severity(severity);
        self.count(severity, diagnostic.count());
        if self.mode != Mode::Text {
            self.json(diagnostic_json(diagnostic, severity))
        } else if severity == diagnostic.severity {
            self.text(&renderer.render(diagnostic))
        } else {
            let mut strict = diagnostic.clone();
            strict.severity = severity;
            self.text(&renderer.render(&strict))
        }
    }

    /// The refusal of an unreadable file: in the report, and one line on stderr.
    pub(crate) fn refusal(
        &mut self,
        diagnostic: &Diagnostic,
        renderer: &Renderer<'_>,
    ) -> io::Result<()> {
        self.diagnostic(diagnostic, renderer)?;
        if self.on_stderr {
            return Ok(());
        }
        term::error(&tr(
            format!("{}: unreadable: {}", self.file, diagnostic.message),
            format!("{}: не прочитан: {}", self.file, diagnostic.message),
        ));
        Ok(())
    }

    /// A finding of the payment rules.
    pub(crate) fn finding(
        &mut self,
        mut finding: Finding,
        renderer: Option<&Renderer<'_>>,
    ) -> io::Result<()> {
        if self.strict {
            payments::make_strict(std::slice::from_mut(&mut finding));
        }
        self.count(finding.severity, 1);
        if self.mode != Mode::Text {
            self.json(payments::finding_json(&finding))
        } else {
            let file = self.file.clone();
            self.text(&payments::render(&finding, &file, renderer))
        }
    }

    /// A file that cannot be read at all (or a JSON input refused): in the report, and one
    /// line on stderr.
    pub(crate) fn io_error(&mut self, message: &str) -> io::Result<()> {
        self.errors += 1;
        if self.mode != Mode::Text {
            self.json(json!({"severity": "error", "code": "io", "message": message}))?;
        } else {
            let line = format!("{} {message}\n", term::error_prefix());
            self.text(&line)?;
        }
        if !self.on_stderr {
            term::error(message);
        }
        Ok(())
    }

    /// Closes the file's output; gives its outcome and counts.
    pub(crate) fn finish(self) -> io::Result<(Outcome, usize, usize)> {
        match self.mode {
            Mode::Json => {
                let close: &[u8] = if self.first { b"]}" } else { b"\n    ]}" };
                self.out.write_all(close)?;
            }
            Mode::JsonLines => record(
                &mut *self.out,
                &[
                    ("kind", json!("file")),
                    ("file", json!(self.file)),
                    ("encoding", json!(self.encoding)),
                    ("readable", json!(self.readable)),
                    ("errors", json!(self.errors)),
                    ("warnings", json!(self.warnings)),
                ],
                &mut Value::Null,
            )?,
            Mode::Text if self.on_stderr => {}
            Mode::Text => {
                let verdict = if !self.readable {
                    tr("unreadable", "не прочитан")
                } else if self.errors > 0 {
                    tr("FAILED", "ОШИБКИ")
                } else {
                    tr("ok", "ок")
                };
                let counts = tr(
                    format!("{} error(s), {} warning(s)", self.errors, self.warnings),
                    format!("ошибок: {}, предупреждений: {}", self.errors, self.warnings),
                );
                writeln!(self.out, "{}: {verdict} ({counts})", self.file)?;
            }
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

/// One JSON Lines record: the `head` members in their order, then the members of `rest` (an
/// object, or null for none), then a line break.
pub(crate) fn record(
    out: &mut impl Write,
    head: &[(&str, Value)],
    rest: &mut Value,
) -> io::Result<()> {
    let mut first = true;
    out.write_all(b"{")?;
    let members = head.iter().map(|(k, v)| (*k, v)).chain(
        rest.as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| !head.iter().any(|(h, _)| h == k))
            .map(|(k, v)| (k.as_str(), v)),
    );
    for (key, value) in members {
        if !first {
            out.write_all(b",")?;
        }
        first = false;
        serde_json::to_writer(&mut *out, key)?;
        out.write_all(b":")?;
        serde_json::to_writer(&mut *out, value)?;
    }
    out.write_all(b"}\n")
}

/// Opens the whole report.
pub(crate) fn open(out: &mut impl Write, mode: Mode) -> io::Result<()> {
    if mode == Mode::Json {
        out.write_all(b"{\n  \"files\": [")?;
    }
    Ok(())
}

/// Between two files (the JSON array's separators).
pub(crate) fn next_file(out: &mut impl Write, mode: Mode, index: usize) -> io::Result<()> {
    if mode == Mode::Json {
        out.write_all(if index == 0 { b"\n" } else { b",\n" })?;
    }
    Ok(())
}

/// Closes the report with its totals.
pub(crate) fn close(
    out: &mut impl Write,
    mode: Mode,
    files: usize,
    errors: usize,
    warnings: usize,
) -> io::Result<()> {
    match mode {
        Mode::Json => {
            let close = if files == 0 { "]" } else { "\n  ]" };
            writeln!(
                out,
                "{close},\n  \"errors\": {errors},\n  \"warnings\": {warnings}\n}}"
            )
        }
        Mode::JsonLines => record(
            out,
            &[
                ("kind", json!("summary")),
                ("files", json!(files)),
                ("errors", json!(errors)),
                ("warnings", json!(warnings)),
            ],
            &mut Value::Null,
        ),
        Mode::Text => writeln!(
            out,
            "\n{}",
            tr(
                format!("{files} file(s) checked: {errors} error(s), {warnings} warning(s)"),
                format!("проверено файлов: {files}; ошибок: {errors}, предупреждений: {warnings}"),
            )
        ),
    }
}
