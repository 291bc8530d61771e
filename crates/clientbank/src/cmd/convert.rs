//! `clientbank convert FILE [--to json|1c] [-o OUT] [--encoding windows|dos|utf-8]`: 1C payment
//! orders to JSON upload requests, and upload requests to a canonical 1.03 file.
//!
//! The conversion is faithful: what one side cannot carry is reported on stderr with its line,
//! never dropped silently. Validation findings are reported too; an error among them (or a
//! character the target encoding lacks) exits 1. The output is written unless the input is
//! unreadable or the file cannot be encoded.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clientbank_format::{Diagnostic, Encoding, Lang, Renderer};
use clientbank_payment::batch::{Batch, is_json};
use clientbank_payment::{Code, Context, onec};

use crate::cli::{Target, TargetEncoding};
use crate::exit::{Failure, Outcome};
use crate::output::cannot_read;

pub(crate) struct Options {
    pub(crate) to: Option<Target>,
    pub(crate) output: Option<PathBuf>,
    pub(crate) encoding: TargetEncoding,
    pub(crate) in_signing: bool,
    pub(crate) today: Option<NaiveDate>,
    pub(crate) lang: Lang,
}

pub(crate) fn run(path: &Path, options: &Options) -> Result<Outcome, Failure> {
    let context = options
        .today
        .map_or_else(Context::today_in_moscow, Context::as_of);
    let shown = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprint!("{}", cannot_read(&shown, &e, options.lang));
            return Ok(Outcome::Unreadable);
        }
    };
    let from_json = is_json(&bytes);
    let to = options.to.unwrap_or(if from_json {
        Target::OneC
    } else {
        Target::Json
    });
    if from_json == (to == Target::Json) {
        match options.lang {
            Lang::Ru => eprintln!(
                "ошибка: {shown} уже {}; convert переводит из 1С в JSON и из JSON в 1С",
                if from_json { "в JSON" } else { "файл 1С" }
            ),
            _ => eprintln!(
                "error: {shown} is already {}; convert goes from 1C to JSON and from JSON to 1C",
                if from_json { "JSON" } else { "a 1C file" }
            ),
        }
        return Ok(Outcome::Unreadable);
    }
    let encoding = match options.encoding {
        TargetEncoding::Windows => Encoding::Cp1251,
        TargetEncoding::Dos => Encoding::Cp866,
        TargetEncoding::Utf8 => Encoding::Utf8,
    };
    let batch = match Batch::read(bytes, &context) {
        Ok(batch) => batch,
        Err(refusal) => {
            eprint!("{}", refusal.render(&shown, options.lang));
            return Ok(Outcome::Unreadable);
        }
    };
    if from_json {
        json_to_exchange(&shown, &batch.with_encoding(encoding), options, encoding)
    } else {
        exchange_to_json(&shown, &batch, options)
    }
}

/// Findings to stderr, as they come; whether one was an error.
struct Report<'a> {
    stderr: BufWriter<io::StderrLock<'static>>,
    renderer: Renderer<'a>,
    errors: bool,
}

impl<'a> Report<'a> {
    fn new(renderer: Renderer<'a>) -> Report<'a> {
        Report {
            stderr: BufWriter::new(io::stderr().lock()),
            renderer,
            errors: false,
        }
    }

    fn all<'d>(&mut self, findings: impl IntoIterator<Item = &'d Diagnostic>) {
        for finding in findings {
            let _ = self
                .stderr
                .write_all(self.renderer.render(finding).as_bytes());
            self.errors |= finding.is_error();
        }
    }

    fn outcome(mut self) -> Outcome {
        let _ = self.stderr.flush();
        if self.errors {
            Outcome::Findings
        } else {
            Outcome::Clean
        }
    }
}

/// Where the converted output goes: `-o OUT` (created now) or stdout, buffered.
fn open_output(output: Option<&Path>) -> Result<Box<dyn Write>, Failure> {
    Ok(match output {
        Some(path) => Box::new(BufWriter::with_capacity(
            1 << 16,
            std::fs::File::create(path).map_err(|e| {
                Failure::Output(io::Error::new(e.kind(), format!("{}: {e}", path.display())))
            })?,
        )),
        None => Box::new(BufWriter::with_capacity(1 << 16, io::stdout().lock())),
    })
}

fn write_output(output: Option<&Path>, bytes: &[u8]) -> Result<(), Failure> {
    let mut out = open_output(output)?;
    out.write_all(bytes)?;
    Ok(out.flush()?)
}

/// 1C payment orders to a JSON array of upload requests, one document at a time: each
/// request is written as it is made (formatted as `serde_json::to_vec_pretty` formats the
/// whole array), each document's findings (and what the JSON route cannot carry) go to stderr
/// as they are found. Each document is mapped once.
fn exchange_to_json(shown: &str, batch: &Batch, options: &Options) -> Result<Outcome, Failure> {
    let mut report = Report::new(batch.renderer(shown).lang(options.lang));
    report.all(batch.file_diagnostics().iter().filter(|d| d.is_error()));
    let mut out = open_output(options.output.as_deref())?;
    let mut count = 0;
    for item in batch.items() {
        report.all(item.findings().iter().chain(item.json_route()));
        let Some(request) = item.request() else {
            continue;
        };
        let mut request = request.clone();
        if options.in_signing {
            request = clientbank_payment::UploadRequest::new(request.payment, true);
        }
        let text = serde_json::to_string_pretty(&request).map_err(io::Error::other)?;
        out.write_all(if count == 0 { b"[\n  " } else { b",\n  " })?;
        out.write_all(text.replace('\n', "\n  ").as_bytes())?;
        count += 1;
    }
    out.write_all(if count == 0 { b"[]\n" } else { b"\n]\n" })?;
    out.flush()?;
    Ok(report.outcome())
}

/// Whether a finding is a character the 1C file cannot hold: such a file is not written.
fn unwritable(finding: &Diagnostic) -> bool {
    matches!(finding.code, Code::ControlCharacter | Code::Unrepresentable)
}

fn json_to_exchange(
    shown: &str,
    batch: &Batch,
    options: &Options,
    encoding: Encoding,
) -> Result<Outcome, Failure> {
    let mut report = Report::new(batch.renderer(shown).lang(options.lang));
    let mut payments = Vec::new();
    let mut blocked = false;
    for item in batch.items() {
        report.all(item.findings());
        blocked |= item.findings().iter().any(unwritable);
        if let Some(payment) = item.into_payment() {
            payments.push(payment);
        }
    }
    let (exchange, mapping) = onec::to_exchange(&payments, encoding);
    report.all(&mapping);
    let outcome = report.outcome();
    if blocked {
        match options.lang {
            Lang::Ru => eprintln!(
                "ошибка: {shown}: файл 1С не записан: в значении есть символ, которого в нём быть не может"
            ),
            _ => eprintln!(
                "error: {shown}: the 1C file is not written: a value holds a character it cannot"
            ),
        }
        return Ok(Outcome::Findings);
    }
    match exchange.to_bytes(encoding) {
        Ok(text) => {
            write_output(options.output.as_deref(), &text)?;
            Ok(outcome)
        }
        Err(e) => {
            match options.lang {
                Lang::Ru => eprintln!("ошибка: {shown}: не удалось записать файл 1С: {e}"),
                _ => eprintln!("error: {shown}: cannot write the 1C file: {e}"),
            }
            Ok(Outcome::Findings)
        }
    }
}
