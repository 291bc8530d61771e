//! `clientbank sign [--dir DIR] [--company ID] [--dry-run] [--json]`.

use std::io::{self, Write};
use std::path::Path;

use clientbank_watch::commands;
use serde_json::json;

use super::watch::{error_outcome, init_logging, load};
use crate::exit::{Failure, Outcome};
use crate::output::print_json;

pub(crate) fn run(
    dir: &Path,
    config: Option<&Path>,
    company: Option<&str>,
    dry_run: bool,
    json: bool,
) -> Result<Outcome, Failure> {
    let settings = match load(dir, config) {
        Ok(settings) => settings,
        Err(outcome) => return Ok(outcome),
    };
    init_logging(false);
    let mut engine = match commands::signing_engine(dir, settings) {
        Ok(engine) => engine,
        Err(e) => {
            crate::term::error(&e.to_string());
            return Ok(error_outcome(&e));
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let groups = match runtime.block_on(engine.sign(company, dry_run)) {
        Ok(groups) => groups,
        Err(e) => {
            crate::term::error(&e.to_string());
            return Ok(error_outcome(&e));
        }
    };
    let failed = groups.iter().any(|g| !g.signed) && !dry_run;
    if json {
        let items: Vec<_> = groups
            .iter()
            .map(|g| {
                json!({
                    "company": g.company.id, "name": g.company.name, "inn": g.company.inn,
                    "ids": g.ids, "signed_content": g.content, "signed": g.signed,
                    "result": g.result,
                })
            })
            .collect();
        print_json(&json!(items))?;
    } else {
        let mut out = io::stdout().lock();
        if groups.is_empty() {
            writeln!(out, "nothing awaits signature")?;
        }
        for g in &groups {
            writeln!(
                out,
                "{}: {} payment(s): {}",
                g.company.label(),
                g.ids.len(),
                g.result
            )?;
            if dry_run {
                writeln!(out, "  signed string: {}", g.content)?;
            }
        }
    }
    Ok(if failed {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}
