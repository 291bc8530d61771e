//! `clientbank sign [--dir DIR] [--company ID] [--dry-run] [--json]`.

use std::io::{self, Write};
use std::path::PathBuf;

use clientbank_watch::commands;
use clientbank_watch::engine::SignGroup;
use serde_json::json;

use super::setup::configured;
use crate::exit::{Failure, Outcome};
use crate::output::print_json;
use crate::term::Lang;
use clientbank_bank::config::LogFormat;

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
    let settings = configured(dir, args.config.as_deref(), Some(LogFormat::Text))?;
    if !dry_run {
        clientbank_bank::signer::try_signers(&settings)?;
    }
    let mut engine = commands::signing_engine(dir, settings)?;
    let groups = crate::runtime::block_on(engine.sign(args.company.as_deref(), dry_run))??;
    let failed = groups.iter().any(|g| !g.result.is_signed()) && !dry_run;
    if args.json {
        let items: Vec<_> = groups
            .iter()
            .map(|g| {
                json!({
                    "company": g.company.id, "name": g.company.name, "inn": g.company.inn,
                    "ids": g.ids, "signed_content": g.content, "signed": g.result.is_signed(),
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
            write!(out, "{}", shown(g, dry_run, crate::term::lang()))?;
        }
    }
    Ok(if failed {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// What `sign` says of one company's group for people, in `lang`.
fn shown(g: &SignGroup, dry_run: bool, lang: Lang) -> String {
    let ru = lang == Lang::Ru;
    let (label, count) = (g.company.label_in(lang), g.ids.len());
    let said = g.result.message();
    let said = said.get(lang);
    let mut out = if ru {
        format!("{label}: платежей {count}: {said}\n")
    } else {
        format!("{label}: {count} payment(s): {said}\n")
    };
    if dry_run {
        let what = if ru {
            "подписываемая строка"
        } else {
            "signed string"
        };
        out.push_str(&format!("  {what}: {}\n", g.content));
    }
    out
}

#[cfg(test)]
mod tests {
    use clientbank_format::Message;
    use clientbank_watch::engine::{CompanyInfo, SignResult};

    use super::*;

    fn group(result: SignResult) -> SignGroup {
        SignGroup {
            company: CompanyInfo {
                id: "c1".into(),
                inn: Some("7701234560".into()),
                name: "ООО Ромашка".into(),
            },
            ids: vec!["a".into(), "b".into(), "c".into()],
            content: "a,b,c".into(),
            result,
        }
    }

    #[test]
    fn sign_speaks_russian_to_a_russian_user() {
        let dry = group(SignResult::DryRun);
        let said = shown(&dry, true, Lang::Ru);
        assert!(
            said.starts_with("ООО Ромашка (ИНН 7701234560): платежей 3: пробный запуск"),
            "{said}"
        );
        assert!(said.contains("подписываемая строка: a,b,c"), "{said}");
        assert!(!said.contains("dry run") && !said.contains("INN"), "{said}");
        let failed = group(SignResult::Failed(Message::new(
            "failed: no signer for X: add [signers.7701234560]",
            "не подписано: для X не настроена подпись",
        )));
        let said = shown(&failed, false, Lang::Ru);
        assert!(said.contains("не настроена подпись"), "{said}");
        assert!(
            !said.contains("failed") && !said.contains("no signer"),
            "{said}"
        );
        let said = shown(&failed, false, Lang::En);
        assert!(
            said.contains("(INN 7701234560): 3 payment(s): failed: no signer"),
            "{said}"
        );
    }
}
