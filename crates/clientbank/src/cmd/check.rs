//! `clientbank check FILE... [--strict] [--json]`: the format's findings and the payment rules'
//! findings of every file (1C or JSON upload requests), and an exit code.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clientbank_format::{Diagnostic, Renderer, Severity};
use clientbank_payment::Finding;
use serde_json::{Value, json};

use crate::exit::{Failure, Outcome};
use crate::output::{Input, Unreadable, diagnostic_json, encoding_name, print_json};
use crate::payments;

/// What one file gave.
struct Report {
    file: String,
    encoding: Option<&'static str>,
    readable: bool,
    /// Rendered for people.
    text: String,
    /// For `--json`.
    diagnostics: Vec<Value>,
    errors: usize,
    warnings: usize,
}

impl Report {
    fn new(file: String, encoding: Option<&'static str>, readable: bool) -> Report {
        Report {
            file,
            encoding,
            readable,
            text: String::new(),
            diagnostics: Vec::new(),
            errors: 0,
            warnings: 0,
        }
    }

    fn count(&mut self, severity: Severity) {
        match severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
        }
    }

    fn diagnostic(&mut self, diagnostic: &Diagnostic, renderer: &Renderer<'_>) {
        self.count(diagnostic.severity);
        self.text.push_str(&renderer.render(diagnostic));
        self.diagnostics.push(diagnostic_json(diagnostic));
    }

    fn finding(&mut self, finding: &Finding, renderer: Option<&Renderer<'_>>) {
        self.count(finding.severity);
        self.text
            .push_str(&payments::render(finding, &self.file, renderer));
        self.diagnostics.push(payments::finding_json(finding));
    }

    fn outcome(&self) -> Outcome {
        if !self.readable {
            Outcome::Unreadable
        } else if self.errors > 0 {
            Outcome::Findings
        } else {
            Outcome::Clean
        }
    }
}

fn check_exchange(path: &Path, bytes: Vec<u8>, strict: bool, today: NaiveDate) -> Report {
    let input = Input::from_bytes(path, bytes);
    let encoding = input.encoding().map(encoding_name);
    let renderer = input.renderer();
    match &input.read {
        Ok(parsed) => {
            let mut report = Report::new(input.path.clone(), encoding, true);
            let mut diagnostics = parsed.diagnostics.clone();
            let mut findings = payments::validate_tree(&parsed.tree, today);
            if strict {
                clientbank_format::make_strict(&mut diagnostics);
                payments::make_strict(&mut findings);
            }
            for diagnostic in &diagnostics {
                report.diagnostic(diagnostic, &renderer);
            }
            for finding in &findings {
                report.finding(finding, Some(&renderer));
            }
            report
        }
        Err(Unreadable::Refused(refused)) => {
            let mut report = Report::new(input.path.clone(), encoding, false);
            report.diagnostic(&refused.diagnostic, &renderer);
            report
        }
        Err(Unreadable::Io(e)) => io_report(input.path.clone(), e),
    }
}

fn io_report(file: String, e: &io::Error) -> Report {
    let mut report = Report::new(file, None, false);
    report.errors = 1;
    report.text = format!("error: cannot read {}: {e}\n", report.file);
    report
        .diagnostics
        .push(json!({"severity": "error", "code": "io", "message": e.to_string()}));
    report
}

fn check_json(path: &Path, bytes: &[u8], strict: bool, today: NaiveDate) -> Report {
    let file = path.display().to_string();
    match payments::read_json(bytes, today) {
        Ok((_, mut findings)) => {
            let mut report = Report::new(file, Some("utf-8"), true);
            if strict {
                payments::make_strict(&mut findings);
            }
            for finding in &findings {
                report.finding(finding, None);
            }
            report
        }
        Err(refused) => {
            let mut report = Report::new(file, Some("utf-8"), false);
            report.finding(&refused, None);
            report
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
    let mut reports = Vec::new();
    for path in files {
        let report = match std::fs::read(path) {
            Ok(bytes) if payments::is_json(&bytes) => check_json(path, &bytes, strict, today),
            Ok(bytes) => check_exchange(path, bytes, strict, today),
            Err(e) => io_report(path.display().to_string(), &e),
        };
        outcome = outcome.max(report.outcome());
        errors += report.errors;
        warnings += report.warnings;
        if json {
            reports.push(json!({
                "file": report.file,
                "encoding": report.encoding,
                "readable": report.readable,
                "diagnostics": report.diagnostics,
            }));
        } else if report.readable {
            let mut out = io::stdout().lock();
            write!(out, "{}", report.text)?;
            let verdict = if report.errors > 0 { "FAILED" } else { "ok" };
            writeln!(
                out,
                "{}: {verdict} ({} error(s), {} warning(s))",
                report.file, report.errors, report.warnings
            )?;
        } else {
            eprint!("{}", report.text);
        }
    }
    if json {
        print_json(&json!({"files": reports, "errors": errors, "warnings": warnings}))?;
    } else {
        writeln!(
            io::stdout().lock(),
            "\n{} file(s) checked: {errors} error(s), {warnings} warning(s)",
            files.len()
        )?;
    }
    Ok(outcome)
}
