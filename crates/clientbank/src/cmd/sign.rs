//! `clientbank sign [--dir DIR] [--company ID] [--dry-run] [--json]`.

use std::io::{self, Write};
use std::path::PathBuf;

use clientbank_watch::commands;
use serde_json::json;

use super::watch::{init_logging, load};
use crate::exit::{Failure, Outcome};
use crate::output::print_json;

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The folder whose journal and configuration are used.
    #[arg(long, default_value = ".")]
    pub(crate) dir: PathBuf,
    /// Only this company (its id or INN).
    #[arg(long)]
    pub(crate) company: Option<String>,
    /// Show what would be signed; sign nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Print a JSON array.
    #[arg(long)]
    pub(crate) json: bool,
    /// The configuration file (default `DIR/clientbank.toml`).
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
}

pub(crate) fn run(args: &Args) -> Result<Outcome, Failure> {
    let (dir, dry_run) = (&args.dir, args.dry_run);
    let settings = load(dir, args.config.as_deref())?;
    init_logging(false);
    if !dry_run {
        clientbank_bank::signer::try_signers(&settings)?;
    }
    let mut engine = commands::signing_engine(dir, settings)?;
    let groups = crate::runtime::block_on(engine.sign(args.company.as_deref(), dry_run))??;
    let failed = groups.iter().any(|g| !g.signed) && !dry_run;
    if args.json {
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
