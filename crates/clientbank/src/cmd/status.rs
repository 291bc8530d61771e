//! `clientbank status DIR [--json]`.

use std::io::{self, Write};
use std::path::Path;

use clientbank_watch::commands;

use super::watch::error_outcome;
use crate::exit::{Failure, Outcome};
use crate::output::print_json;

pub(crate) fn run(dir: &Path, json: bool) -> Result<Outcome, Failure> {
    let status = match commands::status(dir) {
        Ok(status) => status,
        Err(e) => {
            crate::term::error(&e.to_string());
            return Ok(error_outcome(&e));
        }
    };
    if json {
        print_json(&status)?;
        return Ok(Outcome::Clean);
    }
    let mut out = io::stdout().lock();
    writeln!(out, "{}:", dir.display())?;
    for (folder, names) in &status.folders {
        writeln!(
            out,
            "  {:<12} {} file(s)",
            format!("{folder}/"),
            names.len()
        )?;
        for name in names.iter().take(20) {
            writeln!(out, "      {name}")?;
        }
        if names.len() > 20 {
            writeln!(out, "      … and {} more", names.len() - 20)?;
        }
    }
    for entry in &status.ignored {
        writeln!(out, "  inbox/{entry}: not a regular file: ignored")?;
    }
    writeln!(out, "  payments:")?;
    if status.payments.is_empty() {
        writeln!(out, "      none recorded")?;
    }
    for (state, count) in &status.payments {
        writeln!(out, "      {count:>6}  {state}")?;
    }
    for (company, ids) in &status.awaiting_signature {
        writeln!(out, "  awaiting signature, {company}: {}", ids.join(", "))?;
    }
    if !status.last_errors.is_empty() {
        writeln!(out, "  last errors:")?;
        for (at, file, message) in &status.last_errors {
            writeln!(
                out,
                "      {at} {} {message}",
                file.as_deref().unwrap_or("-")
            )?;
        }
    }
    Ok(Outcome::Clean)
}
