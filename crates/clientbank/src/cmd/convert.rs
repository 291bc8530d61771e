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
use clientbank_format::{Encoding, Renderer};
use clientbank_payment::json::PaymentJson;
use clientbank_payment::{Code, Finding, UploadRequest, onec, validate};

use crate::cli::{Target, TargetEncoding};
use crate::exit::{Failure, Outcome};
use crate::output::Input;
use crate::payments;

pub(crate) struct Options {
    pub(crate) to: Option<Target>,
    pub(crate) output: Option<PathBuf>,
    pub(crate) encoding: TargetEncoding,
    pub(crate) in_signing: bool,
    pub(crate) today: Option<NaiveDate>,
}

pub(crate) fn run(path: &Path, options: &Options) -> Result<Outcome, Failure> {
    let today = options.today.unwrap_or_else(payments::today_in_moscow);
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            return Ok(Outcome::Unreadable);
        }
    };
    let from_json = payments::is_json(&bytes);
    let to = options.to.unwrap_or(if from_json {
        Target::OneC
    } else {
        Target::Json
    });
    match (from_json, to) {
        (false, Target::Json) => exchange_to_json(path, bytes, options, today),
        (true, Target::OneC) => json_to_exchange(path, &bytes, options, today),
        (true, Target::Json) | (false, Target::OneC) => {
            eprintln!(
                "error: {} is already {}; convert goes from 1C to JSON and from JSON to 1C",
                path.display(),
                if from_json { "JSON" } else { "a 1C file" }
            );
            Ok(Outcome::Unreadable)
        }
    }
}

fn report(findings: &[Finding], path: &str, renderer: Option<&Renderer<'_>>) -> Outcome {
    let mut stderr = BufWriter::new(io::stderr().lock());
    for finding in findings {
        let _ = stderr.write_all(payments::render(finding, path, renderer).as_bytes());
    }
    let _ = stderr.flush();
    if findings.iter().any(Finding::is_error) {
        Outcome::Findings
    } else {
        Outcome::Clean
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
/// whole array), each document's findings go to stderr as they are found.
fn exchange_to_json(
    path: &Path,
    bytes: Vec<u8>,
    options: &Options,
    today: NaiveDate,
) -> Result<Outcome, Failure> {
    let input = Input::from_bytes(path, bytes);
    let parsed = match &input.read {
        Ok(parsed) => parsed,
        Err(why) => {
            input.report_unreadable(why);
            return Ok(Outcome::Unreadable);
        }
    };
    let renderer = input.renderer();
    let mut stderr = BufWriter::new(io::stderr().lock());
    let mut outcome = Outcome::Clean;
    for diagnostic in parsed.diagnostics.iter().filter(|d| d.is_error()) {
        let _ = stderr.write_all(renderer.render(diagnostic).as_bytes());
        outcome = Outcome::Findings;
    }
    let tree = &parsed.tree;
    let context = payments::tree_context(tree, today);
    let mut findings_out = |findings: &[Finding], outcome: &mut Outcome| {
        for finding in findings {
            let _ = stderr
                .write_all(payments::render(finding, &input.path, Some(&renderer)).as_bytes());
            if finding.is_error() {
                *outcome = Outcome::Findings;
            }
        }
    };
    let mut out = open_output(options.output.as_deref())?;
    let mut count = 0;
    for (index, section) in tree.documents().enumerate() {
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
            findings_out(&[finding], &mut outcome);
            continue;
        }
        let mut order = onec::from_section(index, &section);
        let (json, mut not_carried) = PaymentJson::from_payment(&order.payment);
        order.lines.locate(&mut not_carried, Some(order.document));
        order.findings.append(&mut not_carried);
        let mut found = validate(&order.payment, &context);
        order.lines.locate(&mut found, Some(order.document));
        order.findings.append(&mut found);
        findings_out(&order.findings, &mut outcome);
        let request = UploadRequest::new(json, options.in_signing);
        let text = serde_json::to_string_pretty(&request).map_err(io::Error::other)?;
        out.write_all(if count == 0 { b"[\n  " } else { b",\n  " })?;
        out.write_all(text.replace('\n', "\n  ").as_bytes())?;
        count += 1;
    }
    out.write_all(if count == 0 { b"[]\n" } else { b"\n]\n" })?;
    out.flush()?;
    let _ = stderr.flush();
    Ok(outcome)
}

fn json_to_exchange(
    path: &Path,
    bytes: &[u8],
    options: &Options,
    today: NaiveDate,
) -> Result<Outcome, Failure> {
    let shown = path.display().to_string();
    let encoding = match options.encoding {
        TargetEncoding::Windows => Encoding::Cp1251,
        TargetEncoding::Dos => Encoding::Cp866,
        TargetEncoding::Utf8 => Encoding::Utf8,
    };
    let (requests, mut findings) = match payments::read_json_in(bytes, today, encoding) {
        Ok(read) => read,
        Err(refused) => {
            report(&[refused], &shown, None);
            return Ok(Outcome::Unreadable);
        }
    };
    let payments: Vec<_> = requests.iter().map(|r| r.payment.to_payment()).collect();
    let (exchange, mapping) = onec::to_exchange(&payments, encoding);
    findings.extend(mapping);
    let outcome = report(&findings, &shown, None);
    if payments::unwritable(&findings) {
        eprintln!(
            "error: {shown}: the 1C file is not written: a value holds a character it cannot"
        );
        return Ok(Outcome::Findings);
    }
    match exchange.to_bytes(encoding) {
        Ok(text) => {
            write_output(options.output.as_deref(), &text)?;
            Ok(outcome)
        }
        Err(e) => {
            eprintln!("error: {shown}: cannot write the 1C file: {e}");
            Ok(Outcome::Findings)
        }
    }
}
