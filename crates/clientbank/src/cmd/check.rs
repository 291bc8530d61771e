//! `clientbank check FILE... [--strict] [--json]`: the format's findings and the payment rules'
//! findings of every file (1C or JSON upload requests), and an exit code.
//!
//! Each file is read by the batch layer (`clientbank_payment::batch`); each finding is
//! rendered (or serialised, with `--json`) as it is produced, through one buffered writer: no
//! report is held, and rendering costs the length of the finding's line.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clientbank_format::{Diagnostic, Lang, Renderer, Severity};
use clientbank_payment::Context;
use clientbank_payment::batch::{Batch, Form};

use crate::exit::{Failure, Outcome};
use crate::output::{encoding_name, io_diagnostic};

/// Where one file's findings go, as they come: text for people (stdout when the file was
/// read, stderr when it was not) or the members of its JSON `diagnostics` array.
struct FileOut<'a, W: Write> {
    out: &'a mut W,
    json: bool,
    lang: Lang,
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
        lang: Lang,
        file: String,
        encoding: Option<&'static str>,
        readable: bool,
    ) -> io::Result<FileOut<'a, W>> {
        if json {
            out.write_all(b"    {\"file\": ")?;
            serde_json::to_writer(&mut *out, &file)?;
            out.write_all(b", \"encoding\": ")?;
            serde_json::to_writer(&mut *out, &encoding)?;
            write!(out, ", \"readable\": {readable}, \"diagnostics\": [")?;
        } else if !readable {
            // Findings of an unreadable file go to stderr: what stdout holds so far first.
            out.flush()?;
        }
        Ok(FileOut {
            out,
            json,
            lang,
            file,
            readable,
            errors: 0,
            warnings: 0,
            first: true,
        })
    }

    fn text(&mut self, text: &str) -> io::Result<()> {
        if self.readable {
            self.out.write_all(text.as_bytes())
        } else {
            io::stderr().lock().write_all(text.as_bytes())
        }
    }

    /// One finding, with the severity it has in this run.
    fn diagnostic(&mut self, diagnostic: &Diagnostic, renderer: &Renderer<'_>) -> io::Result<()> {
        match diagnostic.severity {
            Severity::Error => self.errors += diagnostic.count(),
            Severity::Warning => self.warnings += diagnostic.count(),
        }
        if self.json {
            let separator: &[u8] = if self.first {
                b"\n      "
            } else {
                b",\n      "
            };
            self.first = false;
            self.out.write_all(separator)?;
            serde_json::to_writer(&mut *self.out, &diagnostic.to_json(self.lang))
                .map_err(io::Error::from)
        } else {
            self.text(&renderer.render(diagnostic))
        }
    }

    /// Closes the file's output; gives its outcome and counts.
    fn finish(self) -> io::Result<(Outcome, usize, usize)> {
        if self.json {
            let close: &[u8] = if self.first { b"]}" } else { b"\n    ]}" };
            self.out.write_all(close)?;
        } else if self.readable {
            let (errors, warnings) = (self.errors, self.warnings);
            match (self.lang, errors > 0) {
                (Lang::Ru, failed) => writeln!(
                    self.out,
                    "{}: {} (ошибок: {errors}, предупреждений: {warnings})",
                    self.file,
                    if failed {
                        "ЕСТЬ ОШИБКИ"
                    } else {
                        "ok"
                    }
                )?,
                (_, failed) => writeln!(
                    self.out,
                    "{}: {} ({errors} error(s), {warnings} warning(s))",
                    self.file,
                    if failed { "FAILED" } else { "ok" }
                )?,
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

/// The options of one run.
struct Run {
    json: bool,
    strict: bool,
    lang: Lang,
    context: Context,
}

fn check_file<W: Write>(
    out: &mut W,
    run: &Run,
    path: &Path,
    bytes: Vec<u8>,
) -> io::Result<(Outcome, usize, usize)> {
    let name = path.display().to_string();
    match Batch::read(bytes, &run.context) {
        Ok(batch) => {
            let batch = batch.strict(run.strict);
            let encoding = batch.encoding().map_or("utf-8", encoding_name);
            let renderer = batch.renderer(&name).lang(run.lang);
            let mut file =
                FileOut::start(out, run.json, run.lang, name.clone(), Some(encoding), true)?;
            for diagnostic in batch.findings() {
                file.diagnostic(&diagnostic, &renderer)?;
            }
            file.finish()
        }
        Err(refusal) => {
            // A refusal stays an error whatever `--strict` says.
            let encoding = match refusal.form() {
                Form::Json => Some("utf-8"),
                _ => refusal.encoding.map(encoding_name),
            };
            let renderer = Renderer::new(
                &name,
                refusal.bytes(),
                refusal.encoding.map(clientbank_format::Encoding::as_source),
            )
            .lang(run.lang);
            let mut file = FileOut::start(out, run.json, run.lang, name.clone(), encoding, false)?;
            file.diagnostic(&refusal.diagnostic, &renderer)?;
            file.finish()
        }
    }
}

pub(crate) fn run(
    files: &[PathBuf],
    strict: bool,
    json: bool,
    today: Option<NaiveDate>,
    lang: Lang,
) -> Result<Outcome, Failure> {
    let run = Run {
        json,
        strict,
        lang,
        context: today.map_or_else(Context::today_in_moscow, Context::as_of),
    };
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
            Ok(bytes) => check_file(&mut out, &run, path, bytes)?,
            Err(e) => {
                let name = path.display().to_string();
                let diagnostic = io_diagnostic(&name, &e);
                let renderer = Renderer::new(&name, b"", None).lang(lang);
                let mut file = FileOut::start(&mut out, json, lang, name.clone(), None, false)?;
                file.diagnostic(&diagnostic, &renderer)?;
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
        match lang {
            Lang::Ru => writeln!(
                out,
                "\nпроверено файлов: {}; ошибок: {errors}, предупреждений: {warnings}",
                files.len()
            )?,
            _ => writeln!(
                out,
                "\n{} file(s) checked: {errors} error(s), {warnings} warning(s)",
                files.len()
            )?,
        }
    }
    out.flush()?;
    Ok(outcome)
}
