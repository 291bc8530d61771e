//! `clientbank convert FILE [--to json|1c] [-o OUT] [--encoding windows|dos|utf-8]`: 1C payment
//! orders to JSON upload requests, upload requests to a canonical 1.03 file, and a 1C file to
//! a canonical 1C file in another encoding.
//!
//! The conversion is faithful: what one side cannot carry is reported on stderr with its line,
//! never dropped silently. Validation findings are reported too; an error among them (or a
//! character the target encoding lacks) exits 1. The output is written unless the input is
//! unreadable or the file cannot be encoded.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clientbank_format::{Encoding, Renderer, Severity};
use clientbank_payment::json::PaymentJson;
use clientbank_payment::{Code, Finding, UploadRequest, onec, validate};

use crate::cli::{Mode, Target, TargetEncoding};
use crate::dedupe::SameDefect;
use crate::exit::{Failure, Outcome};
use crate::io::Sink;
use crate::output::Input;
use crate::payments;
use crate::report::FileOut;
use crate::term::{self, tr};

pub(crate) struct Options {
    pub(crate) to: Option<Target>,
    pub(crate) output: Option<PathBuf>,
    pub(crate) encoding: TargetEncoding,
    pub(crate) in_signing: bool,
    pub(crate) today: Option<NaiveDate>,
    pub(crate) payer_from: Option<PathBuf>,
    pub(crate) json: bool,
    pub(crate) strict: bool,
    pub(crate) force: bool,
}

impl Options {
    fn encoding(&self) -> Encoding {
        match self.encoding {
            TargetEncoding::Windows => Encoding::Cp1251,
            TargetEncoding::Dos => Encoding::Cp866,
            TargetEncoding::Utf8 => Encoding::Utf8,
        }
    }

    fn mode(&self) -> Mode {
        if self.json {
            Mode::JsonLines
        } else {
            Mode::Text
        }
    }
}

/// Findings on stderr, a document at a time (around the progress bar).
struct Findings {
    buffer: Vec<u8>,
    bar: indicatif::ProgressBar,
}

impl Findings {
    fn pass_on(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        let buffer = &self.buffer;
        self.bar.suspend(|| {
            let _ = io::stderr().lock().write_all(buffer);
        });
        self.buffer.clear();
    }
}

fn refuse(message: &str) -> Result<Outcome, Failure> {
    term::error(message);
    Ok(Outcome::Unreadable)
}

pub(crate) fn run(path: &Path, options: &Options) -> Result<Outcome, Failure> {
    if let Some(output) = &options.output
        && let Some(message) = crate::io::same_as_input(path, output)
    {
        return refuse(&message);
    }
    let payers = match &options.payer_from {
        Some(file) => match crate::payer::load(file) {
            Ok(payers) => Some(payers),
            Err(message) => return refuse(&message),
        },
        None => None,
    };
    let today = options.today.unwrap_or_else(payments::today_in_moscow);
    let sink = Sink::new(options.output.as_deref());
    let bar = term::progress(0, sink.is_terminal(), false);
    bar.set_prefix(tr("reading", "чтение"));
    let bytes = match crate::io::read(path, &bar) {
        Ok(bytes) => bytes,
        Err(e) => return refuse(&crate::io::cannot_read(path, &e)),
    };
    let from_json = payments::is_json(&bytes);
    let to = options.to.unwrap_or(if from_json {
        Target::OneC
    } else {
        Target::Json
    });
    let encoding = options.encoding();
    if to == Target::OneC && encoding != Encoding::Utf8 && sink.is_terminal() && !options.force {
        return refuse(&tr(
            format!(
                "not writing {encoding} bytes to a terminal: give -o FILE, pipe the output, or \
                 add --force"
            ),
            format!(
                "байты {encoding} не выводятся на терминал: укажите -o ФАЙЛ, перенаправьте вывод \
                 или добавьте --force"
            ),
        ));
    }
    let mut findings = Findings {
        buffer: Vec::new(),
        bar,
    };
    let outcome = match (from_json, to) {
        (false, Target::Json) => {
            exchange_to_json(path, bytes, options, today, &sink, &mut findings)
        }
        (false, Target::OneC) => {
            exchange_to_exchange(path, bytes, options, today, &sink, &mut findings)
        }
        (true, Target::OneC) => json_to_exchange(
            path,
            &bytes,
            options,
            payers.as_deref(),
            today,
            &sink,
            &mut findings,
        ),
        (true, Target::Json) => {
            return refuse(&tr(
                format!(
                    "{} is already JSON; convert goes from 1C to JSON, from JSON to 1C and \
                     from 1C to 1C",
                    crate::io::shown(path)
                ),
                format!(
                    "{} уже в JSON; convert переводит 1С в JSON, JSON в 1С и 1С в 1С",
                    crate::io::shown(path)
                ),
            ));
        }
    };
    findings.bar.finish_and_clear();
    findings.pass_on();
    outcome
}

/// Where the findings of one input go.
fn file_out<'a>(
    buffer: &'a mut Vec<u8>,
    options: &Options,
    name: &str,
    encoding: Option<Encoding>,
    readable: bool,
) -> io::Result<FileOut<'a, Vec<u8>>> {
    Ok(FileOut::start(
        buffer,
        options.mode(),
        options.strict,
        name.to_string(),
        encoding.map(crate::output::encoding_name),
        readable,
    )?
    .on_stderr())
}

fn outcome_of(file: FileOut<'_, Vec<u8>>) -> Result<Outcome, Failure> {
    Ok(file.finish()?.0)
}

/// 1C payment orders to a JSON array of upload requests, one document at a time: each
/// request is written as it is made (formatted as `serde_json::to_vec_pretty` formats the
/// whole array), each document's findings go to stderr as they are found.
fn exchange_to_json(
    path: &Path,
    bytes: Vec<u8>,
    options: &Options,
    today: NaiveDate,
    sink: &Sink,
    findings: &mut Findings,
) -> Result<Outcome, Failure> {
    let input = Input::from_bytes(path, bytes);
    let bar = findings.bar.clone();
    let mut file = file_out(
        &mut findings.buffer,
        options,
        &input.path,
        input.encoding(),
        input.read.is_ok(),
    )?;
    let renderer = input.renderer();
    let parsed = match &input.read {
        Ok(parsed) => parsed,
        Err(crate::output::Unreadable::Refused(refused)) => {
            file.refusal(&refused.diagnostic, &renderer)?;
            return outcome_of(file);
        }
        Err(crate::output::Unreadable::Io(e)) => {
            file.io_error(&crate::io::cannot_read(path, e))?;
            return outcome_of(file);
        }
    };
    let tree = &parsed.tree;
    let context = payments::tree_context(tree, today);
    let same = SameDefect::new(tree, &parsed.diagnostics, &context);
    for diagnostic in &parsed.diagnostics {
        let severity = same.severity(diagnostic);
        if severity == Severity::Error || options.strict {
            file.diagnostic_as(diagnostic, severity, &renderer)?;
        }
    }
    let mut out = sink.open()?;
    let mut count = 0;
    bar.set_length(u64::try_from(tree.documents().count()).unwrap_or(0));
    bar.set_position(0);
    bar.set_prefix(tr("converting", "перевод"));
    for (index, section) in tree.documents().enumerate() {
        bar.inc(1);
        let kind = section.document_type().unwrap_or_default();
        if !onec::is_payment_order(&kind) {
            // As `onec::payment_orders` reports a document of another type.
            let mut finding = Finding::new(
                Code::NotAPaymentOrder,
                None,
                format!("document {} is a {kind:?}, not a payment order", index + 1),
            )
            .found(kind.into_owned());
            finding.line = Some(section.line()).filter(|&l| l > 0);
            finding.payment = Some(index);
            file.finding(finding, Some(&renderer))?;
            pass_on(&bar, file.writer());
            continue;
        }
        let mut order = onec::from_section(index, &section);
        let (json, mut not_carried) = PaymentJson::from_payment(&order.payment);
        order.lines.locate(&mut not_carried, Some(order.document));
        order.findings.append(&mut not_carried);
        let mut found = validate(&order.payment, &context);
        order.lines.locate(&mut found, Some(order.document));
        order.findings.append(&mut found);
        for finding in order.findings {
            if !same.repeats(&finding) {
                file.finding(finding, Some(&renderer))?;
            }
        }
        pass_on(&bar, file.writer());
        let request = UploadRequest::new(json, options.in_signing);
        let text = serde_json::to_string_pretty(&request).map_err(io::Error::other)?;
        out.write_all(if count == 0 { b"[\n  " } else { b",\n  " })?;
        out.write_all(text.replace('\n', "\n  ").as_bytes())?;
        count += 1;
    }
    out.write_all(if count == 0 { b"[]\n" } else { b"\n]\n" })?;
    out.flush()?;
    outcome_of(file)
}

fn pass_on(bar: &indicatif::ProgressBar, buffer: &mut Vec<u8>) {
    if buffer.is_empty() {
        return;
    }
    bar.suspend(|| {
        let _ = io::stderr().lock().write_all(buffer);
    });
    buffer.clear();
}

/// A 1C file written anew canonically (CRLF, 1C's key order) in the encoding asked for: the
/// way to re-encode a UTF-8 file for 1C. Its findings are `check`'s.
fn exchange_to_exchange(
    path: &Path,
    bytes: Vec<u8>,
    options: &Options,
    today: NaiveDate,
    sink: &Sink,
    findings: &mut Findings,
) -> Result<Outcome, Failure> {
    let input = Input::from_bytes(path, bytes);
    let mut file = file_out(
        &mut findings.buffer,
        options,
        &input.path,
        input.encoding(),
        input.read.is_ok(),
    )?;
    let renderer = input.renderer();
    let parsed = match &input.read {
        Ok(parsed) => parsed,
        Err(crate::output::Unreadable::Refused(refused)) => {
            file.refusal(&refused.diagnostic, &renderer)?;
            return outcome_of(file);
        }
        Err(crate::output::Unreadable::Io(e)) => {
            file.io_error(&crate::io::cannot_read(path, e))?;
            return outcome_of(file);
        }
    };
    let context = payments::tree_context(&parsed.tree, today);
    let same = SameDefect::new(&parsed.tree, &parsed.diagnostics, &context);
    for diagnostic in &parsed.diagnostics {
        let severity = same.severity(diagnostic);
        if severity == Severity::Error || options.strict {
            file.diagnostic_as(diagnostic, severity, &renderer)?;
        }
    }
    payments::validate_tree(&parsed.tree, today, |finding| {
        if same.repeats(&finding) {
            return Ok(());
        }
        file.finding(finding, Some(&renderer))
    })?;
    let written = parsed.tree.to_exchange().to_bytes(options.encoding());
    let (outcome, _, _) = file.finish()?;
    match written {
        Ok(text) => {
            let mut out = sink.open()?;
            out.write_all(&text)?;
            out.flush()?;
            Ok(outcome)
        }
        Err(e) => {
            findings.pass_on();
            term::error(&tr(
                format!("{}: the 1C file is not written: {e}", input.path),
                format!("{}: файл 1С не записан: {e}", input.path),
            ));
            Ok(Outcome::Findings)
        }
    }
}

fn json_to_exchange(
    path: &Path,
    bytes: &[u8],
    options: &Options,
    payers: Option<&[crate::payer::Payer]>,
    today: NaiveDate,
    sink: &Sink,
    findings: &mut Findings,
) -> Result<Outcome, Failure> {
    let shown = crate::io::shown(path);
    let encoding = options.encoding();
    let renderer: Option<&Renderer<'_>> = None;
    let (requests, mut found) = match payments::read_json_in(bytes, today, encoding) {
        Ok(read) => read,
        Err(refused) => {
            let mut file = file_out(
                &mut findings.buffer,
                options,
                &shown,
                Some(Encoding::Utf8),
                false,
            )?;
            file.finding(refused, renderer)?;
            return outcome_of(file);
        }
    };
    let mut file = file_out(
        &mut findings.buffer,
        options,
        &shown,
        Some(Encoding::Utf8),
        true,
    )?;
    let mut payments: Vec<_> = requests.iter().map(|r| r.payment.to_payment()).collect();
    found.extend(crate::payer::fill(
        &mut payments,
        payers.unwrap_or_default(),
    ));
    found.extend(crate::payer::recipient_banks(&mut payments));
    let (exchange, mapping) = onec::to_exchange(&payments, encoding);
    found.extend(mapping);
    let unwritable = payments::unwritable(&found);
    for finding in found {
        file.finding(finding, renderer)?;
    }
    let (outcome, _, _) = file.finish()?;
    findings.pass_on();
    if unwritable {
        term::error(&tr(
            format!("{shown}: the 1C file is not written: a value holds a character it cannot"),
            format!(
                "{shown}: файл 1С не записан: в значении есть символ, которого он не может хранить"
            ),
        ));
        return Ok(Outcome::Findings);
    }
    match exchange.to_bytes(encoding) {
        Ok(text) => {
            let mut out = sink.open()?;
            out.write_all(&text)?;
            out.flush()?;
            Ok(outcome)
        }
        Err(e) => {
            term::error(&tr(
                format!("{shown}: cannot write the 1C file: {e}"),
                format!("{shown}: не удалось записать файл 1С: {e}"),
            ));
            Ok(Outcome::Findings)
        }
    }
}
