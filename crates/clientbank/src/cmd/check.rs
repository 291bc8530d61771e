//! `clientbank check FILE... [--strict] [--json]`: findings of every file, and an exit code.

use std::io::{self, Write};
use std::path::PathBuf;

use clientbank_format::{Diagnostic, Severity, make_strict};
use serde_json::{Value, json};

use crate::exit::{Failure, Outcome};
use crate::output::{Input, Unreadable, diagnostic_json, encoding_name, print_json};

pub(crate) fn run(files: &[PathBuf], strict: bool, json: bool) -> Result<Outcome, Failure> {
    let mut outcome = Outcome::Clean;
    let mut reports = Vec::new();
    let (mut errors, mut warnings) = (0usize, 0usize);
    for path in files {
        let input = Input::load(path);
        let diagnostics: Vec<Diagnostic> = match &input.read {
            Ok(parsed) => {
                let mut diagnostics = parsed.diagnostics.clone();
                if strict {
                    make_strict(&mut diagnostics);
                }
                diagnostics
            }
            Err(why) => {
                outcome = outcome.max(Outcome::Unreadable);
                if !json {
                    input.report_unreadable(why);
                }
                errors += 1;
                let (code, message) = match why {
                    Unreadable::Io(e) => ("io", e.to_string()),
                    Unreadable::Refused(r) => {
                        (r.diagnostic.code.as_str(), r.diagnostic.message.clone())
                    }
                };
                reports.push(json!({
                    "file": input.path,
                    "encoding": input.encoding().map(encoding_name),
                    "readable": false,
                    "diagnostics": match why {
                        Unreadable::Refused(r) => vec![diagnostic_json(&r.diagnostic)],
                        Unreadable::Io(_) => vec![json!({"severity": "error", "code": code, "message": message})],
                    },
                }));
                continue;
            }
        };
        let file_errors = diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        errors += file_errors;
        warnings += diagnostics.len() - file_errors;
        if file_errors > 0 {
            outcome = outcome.max(Outcome::Findings);
        }
        if json {
            reports.push(json!({
                "file": input.path,
                "encoding": input.encoding().map(encoding_name),
                "readable": true,
                "diagnostics": diagnostics.iter().map(diagnostic_json).collect::<Vec<Value>>(),
            }));
        } else {
            let renderer = input.renderer();
            let mut out = io::stdout().lock();
            for diagnostic in &diagnostics {
                write!(out, "{}", renderer.render(diagnostic))?;
            }
            let verdict = if file_errors > 0 { "FAILED" } else { "ok" };
            writeln!(
                out,
                "{}: {verdict} ({file_errors} error(s), {} warning(s))",
                input.path,
                diagnostics.len() - file_errors
            )?;
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
