//! `check`'s report, written as it is produced: text for people, one JSON object (`--json`),
//! or JSON Lines (`--json-lines`, also `convert --json` on stderr).
//!
//! JSON Lines shapes, one object per line:
//! - `{"kind": "diagnostic", "file": F, <the members of a finding in --json>}` for each finding;
//! - `{"kind": "file", "file": F, "encoding": E, "readable": B, "mode": M, "errors": N,
//!   "warnings": N}` after each file's findings (`mode`, in `check` only: `"orders"`,
//!   `"statement"`, or `null` for a file not read);
//! - `{"kind": "summary", "files": N, "errors": N, "warnings": N}` last.

use std::io::{self, Write};

use clientbank_format::{Diagnostic, DiagnosticJson, Renderer, Severity};
use serde::Serialize;
use serde_json::{Value, json};

use crate::cli::Mode;
use crate::exit::Outcome;
use crate::term::{self, Stream, tr};

/// What `check` took a readable file for: orders to send (a 1C file without account sections,
/// or a JSON upload), checked by every rule; or a statement (a 1C file with account sections),
/// the bank's record, checked for what is wrong with its data only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Checked {
    Orders,
    Statement,
}

impl Checked {
    fn name(self) -> &'static str {
        match self {
            Checked::Orders => "orders",
            Checked::Statement => "statement",
        }
    }
}

/// Where one file's findings go, as they come.
pub(crate) struct FileOut<'a, W: Write> {
    out: &'a mut W,
    mode: Mode,
    file: String,
    encoding: Option<&'static str>,
    readable: bool,
    errors: usize,
    warnings: usize,
    first: bool,
    /// The findings go to stderr beside another output (`convert`): no verdict line for
    /// people, no second line on stderr for a refusal.
    on_stderr: bool,
    /// `check`'s report: its mode is said (`Some(None)` for a file that was not read).
    checked: Option<Option<Checked>>,
}

impl<'a, W: Write> FileOut<'a, W> {
    /// A file of `check`'s report, with what it was checked as (`None` when it could not be
    /// read): the `mode` member in JSON, and for a statement a line for people before its
    /// findings.
    pub(crate) fn for_check(
        out: &'a mut W,
        mode: Mode,
        file: String,
        encoding: Option<&'static str>,
        readable: bool,
        checked: Option<Checked>,
    ) -> io::Result<FileOut<'a, W>> {
        FileOut::open(out, mode, file, encoding, readable, Some(checked))
    }

    /// A file of the report (`checked`: `check`'s, with what it was checked as, see
    /// [`FileOut::for_check`]).
    pub(crate) fn open(
        out: &'a mut W,
        mode: Mode,
        file: String,
        encoding: Option<&'static str>,
        readable: bool,
        checked: Option<Option<Checked>>,
    ) -> io::Result<FileOut<'a, W>> {
        match mode {
            Mode::Json => {
                write!(
                    out,
                    "    {{\"file\": {}, \"encoding\": {}, \"readable\": {readable}, ",
                    json!(file),
                    json!(encoding)
                )?;
                if let Some(checked) = checked {
                    write!(out, "\"mode\": {}, ", json!(checked.map(Checked::name)))?;
                }
                write!(out, "\"diagnostics\": [")?;
            }
            Mode::Text if checked == Some(Some(Checked::Statement)) => {
                let line = tr(
                    format!(
                        "{file}: statement: the bank's record checked, payment-preparation advice \
                         left out\n"
                    ),
                    format!(
                        "{file}: выписка: проверены данные банка, советы по подготовке платежей \
                         не выводятся\n"
                    ),
                );
                out.write_all(term::paint(&line, Stream::Out).as_bytes())?;
            }
            _ => {}
        }
        Ok(FileOut {
            out,
            mode,
            file,
            encoding,
            readable,
            errors: 0,
            warnings: 0,
            first: true,
            on_stderr: false,
            checked,
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

    /// One finding, as it is: the batch layer gave it the severity it has in this run
    /// (`--strict` makes every finding an error).
    pub(crate) fn diagnostic(
        &mut self,
        diagnostic: &Diagnostic,
        renderer: &Renderer<'_>,
    ) -> io::Result<()> {
        self.count(diagnostic.severity, diagnostic.count());
        let lang = term::lang();
        match self.mode {
            Mode::JsonLines => diagnostic_record(&mut *self.out, diagnostic, Some(&self.file)),
            Mode::Json => {
                let separator: &[u8] = if self.first {
                    b"\n      "
                } else {
                    b",\n      "
                };
                self.first = false;
                self.out.write_all(separator)?;
                serde_json::to_writer(&mut *self.out, &diagnostic.to_json(lang))
                    .map_err(io::Error::from)
            }
            Mode::Text => self.text(&renderer.render(diagnostic)),
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
            format!("{}: unreadable: {}", self.file, diagnostic.message.en()),
            format!("{}: не прочитан: {}", self.file, diagnostic.message.ru()),
        ));
        Ok(())
    }

    /// A file that cannot be read at all (or a JSON input refused): in the report, and one
    /// line on stderr.
    pub(crate) fn io_error(&mut self, diagnostic: &Diagnostic) -> io::Result<()> {
        let message = diagnostic.message(term::lang()).to_string();
        if self.mode != Mode::Text {
            self.diagnostic(diagnostic, &Renderer::new(&self.file.clone(), b"", None))?;
        } else {
            self.errors += 1;
            let line = format!("{} {message}\n", term::error_prefix());
            self.text(&line)?;
        }
        // Said on stderr too, for a report read elsewhere (a file, a pipe, JSON); not when
        // both streams are the terminal, where the report's line already said it.
        if !self.on_stderr && !term::one_screen() {
            term::error(&message);
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
            Mode::JsonLines => {
                let mut head = vec![
                    ("kind", json!("file")),
                    ("file", json!(self.file)),
                    ("encoding", json!(self.encoding)),
                    ("readable", json!(self.readable)),
                ];
                if let Some(checked) = self.checked {
                    head.push(("mode", json!(checked.map(Checked::name))));
                }
                head.push(("errors", json!(self.errors)));
                head.push(("warnings", json!(self.warnings)));
                record(&mut *self.out, &head, &mut Value::Null)?
            }
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

/// A finding as one JSON Lines record: `kind`, then `file` (when given), then the members of
/// the finding's one JSON form.
pub(crate) fn diagnostic_record(
    out: &mut impl Write,
    diagnostic: &Diagnostic,
    file: Option<&str>,
) -> io::Result<()> {
    #[derive(Serialize)]
    struct Record<'a> {
        kind: &'static str,
        #[serde(flatten)]
        diagnostic: DiagnosticJson<'a>,
    }
    let mut json = diagnostic.to_json(term::lang());
    if let Some(file) = file {
        json = json.with_file(file);
    }
    serde_json::to_writer(
        &mut *out,
        &Record {
            kind: "diagnostic",
            diagnostic: json,
        },
    )?;
    out.write_all(b"\n")
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
