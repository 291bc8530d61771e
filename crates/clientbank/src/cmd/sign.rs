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
    if !dry_run && let Err(e) = clientbank_watch::signer::try_signers(&settings) {
        crate::term::error(e.message().get(crate::term::lang()));
        return Ok(error_outcome(e.exit_code()));
    }
    let mut engine = match commands::signing_engine(dir, settings) {
        Ok(engine) => engine,
        Err(e) => {
            crate::term::error(e.message().get(crate::term::lang()));
            return Ok(error_outcome(e.exit_code()));
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let groups = match runtime.block_on(engine.sign(company, dry_run)) {
        Ok(groups) => groups,
        Err(e) => {
            crate::term::error(e.message().get(crate::term::lang()));
            return Ok(error_outcome(e.exit_code()));
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
            writeln!(
                out,
                "{}",
                crate::term::tr("nothing awaits signature", "подписи ничего не ждёт")
            )?;
        }
        for g in &groups {
            let (label, count) = (g.company.label(), g.ids.len());
            let said = if g.signed {
                crate::term::tr("signed", "подписаны")
            } else {
                g.result.clone()
            };
            writeln!(
                out,
                "{}",
                crate::term::tr(
                    format!("{label}: {count} payment(s): {said}"),
                    format!("{label}: платежей {count}: {said}")
                )
            )?;
            if dry_run {
                writeln!(
                    out,
                    "  {}: {}",
                    crate::term::tr("signed string", "подписываемая строка"),
                    g.content
                )?;
            }
        }
    }
    Ok(if failed {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}
