//! `clientbank status DIR [--json] [--check]`; `clientbank status --root ROOT` or several DIRs:
//! one line per folder.

use std::io::{self, Write};
use std::path::Path;

use clientbank_watch::commands;

use super::setup::Folders;
use crate::exit::{Failure, Outcome};
use crate::output::print_json;
use crate::term::{Lang, tr};

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    pub(crate) folders: Folders,
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    /// A health probe for monitoring: exit 0 when a daemon works on the folder and nothing
    /// needs a person, 1 when something does (files in review/ or rejected/, payments in doubt,
    /// a file waiting over an hour, an error not fixed yet), 2 when the folder cannot be read, 4 when no daemon works on it.
    #[arg(long)]
    pub(crate) check: bool,
}

/// One folder in detail (or its health with `--check`); several, or a root: a line each.
pub(crate) fn run(mut args: Args) -> Result<Outcome, Failure> {
    let Some(dir) = args.folders.single() else {
        return glance(args.folders, args.json, args.check);
    };
    if args.check {
        check(&dir, args.json)
    } else {
        detail(&dir, args.json)
    }
}

fn detail(dir: &Path, json: bool) -> Result<Outcome, Failure> {
    let status = commands::status(dir)?;
    if json {
        print_json(&status)?;
        return Ok(Outcome::Clean);
    }
    let mut out = io::stdout().lock();
    writeln!(out, "{}:", dir.display())?;
    folders(&mut out, &status)?;
    payments(&mut out, &status)?;
    last_errors(&mut out, &status)?;
    Ok(Outcome::Clean)
}

/// Each folder's files (the first 20 named), and the inbox names not taken.
fn folders(out: &mut impl Write, status: &commands::Status) -> io::Result<()> {
    for (folder, names) in &status.folders {
        let (folder, n) = (format!("{folder}/"), names.len());
        writeln!(out, "  {folder:<12} {n} {}", tr("file(s)", "файл(ов)"))?;
        for name in names.iter().take(20) {
            writeln!(out, "      {name}")?;
        }
        if names.len() > 20 {
            writeln!(out, "      … {} {}", tr("and", "и ещё"), names.len() - 20)?;
        }
    }
    for entry in &status.ignored {
        let entry = entry.shown(crate::term::lang());
        let ignored = tr("ignored", "не обрабатывается");
        writeln!(out, "  inbox/{entry}: {ignored}")?;
    }
    Ok(())
}

/// The payments counted by standing, and the ids awaiting a signature per company.
fn payments(out: &mut impl Write, status: &commands::Status) -> io::Result<()> {
    let lang = crate::term::lang();
    writeln!(out, "  {}", tr("payments:", "платежи:"))?;
    if status.payments.is_empty() {
        writeln!(out, "      {}", tr("none recorded", "ни одного"))?;
    }
    for counted in &status.payments {
        let (en, ru) = counted.label;
        let label = if lang == Lang::Ru { ru } else { en };
        writeln!(out, "      {:>6}  {label}", counted.count)?;
    }
    for (company, ids) in &status.awaiting_signature {
        writeln!(out, "{}", awaiting(company, ids, lang))?;
    }
    Ok(())
}

/// The journal's errors not fixed yet, newest first, in local time.
fn last_errors(out: &mut impl Write, status: &commands::Status) -> io::Result<()> {
    if status.last_errors.is_empty() {
        return Ok(());
    }
    writeln!(out, "  {}", tr("last errors:", "последние ошибки:"))?;
    for error in &status.last_errors {
        let at = crate::log::local_time(&error.at);
        let file = error.file.as_deref().unwrap_or("-");
        let said = error.message.get(crate::term::lang());
        writeln!(out, "      {at} {file} {said}")?;
    }
    Ok(())
}

/// `  awaiting signature, COMPANY: IDS` in `lang` (the company as the journal names it in
/// English: `NAME (INN …)` or `payer account …`).
fn awaiting(company: &str, ids: &[String], lang: Lang) -> String {
    let (said, company) = (
        match lang {
            Lang::Ru => "ждут подписи",
            _ => "awaiting signature",
        },
        clientbank_watch::engine::label_in(company, lang),
    );
    format!("  {said}, {company}: {}", ids.join(", "))
}

/// `status --check`: the health probe (exit codes in the help).
fn check(dir: &Path, json: bool) -> Result<Outcome, Failure> {
    let health = match commands::health(dir) {
        Ok(health) => health,
        // A monitor reading JSON gets JSON: the folder cannot be read, and why.
        Err(e) if json => {
            let said = e.message();
            crate::term::error(said.get(crate::term::lang()));
            print_json(&serde_json::json!({
                "running": null,
                "attention": [said.en()],
                "exit": Outcome::Unreadable as u8,
            }))?;
            return Ok(Outcome::Unreadable);
        }
        Err(e) => return Err(e.into()),
    };
    let outcome = if !health.running {
        Outcome::NotRunning
    } else if health.attention.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Findings
    };
    let lang = crate::term::lang();
    if json {
        let attention: Vec<&str> = health.attention.iter().map(|m| m.en()).collect();
        print_json(&serde_json::json!({
            "running": health.running,
            "attention": attention,
            "exit": outcome as u8,
        }))?;
        return Ok(outcome);
    }
    let mut out = io::stdout().lock();
    let shown = dir.display();
    if health.running {
        writeln!(
            out,
            "{}",
            tr(
                format!("{shown}: a clientbank watch works on it"),
                format!("{shown}: с ней работает clientbank watch")
            )
        )?;
    } else {
        writeln!(
            out,
            "{}",
            tr(
                format!("{shown}: no clientbank watch works on it"),
                format!("{shown}: с ней не работает ни один clientbank watch")
            )
        )?;
    }
    for message in &health.attention {
        writeln!(out, "  {}", message.get(lang))?;
    }
    if health.running && health.attention.is_empty() {
        writeln!(out, "  {}", tr("ok", "всё в порядке"))?;
    }
    Ok(outcome)
}

/// Many folders at a glance: one line each (files per folder, payments in doubt, the last
/// error); `clientbank status DIR` shows one in detail.
fn glance(folders: Folders, json: bool, check: bool) -> Result<Outcome, Failure> {
    use clientbank_format::Message;
    if check {
        return Err(Failure::Stopped(Message::new(
            "--check probes one folder: give one DIR",
            "--check проверяет одну папку: укажите одну DIR",
        )));
    }
    let mut dirs = folders.dirs;
    if let Some(root) = &folders.root {
        dirs.extend(clientbank_watch::fleet::folders_under_root(root)?);
    }
    let load = |dir: &Path| {
        Ok(clientbank_bank::Settings::load(
            dir,
            None,
            &clientbank_bank::config::ProcessEnv,
        )?)
    };
    let glances = clientbank_watch::fleet::glance(&dirs, &load);
    if json {
        print_json(&glances)?;
        return Ok(Outcome::Clean);
    }
    print_glances(&glances)?;
    Ok(Outcome::Clean)
}

/// One line a folder: files per folder, payments in doubt, the last error.
fn print_glances(glances: &[clientbank_watch::fleet::Glance]) -> io::Result<()> {
    let lang = crate::term::lang();
    let mut out = io::stdout().lock();
    for g in glances {
        use clientbank_watch::folders::Folder;
        let files: Vec<String> = [
            Folder::Inbox,
            Folder::Processing,
            Folder::Done,
            Folder::Rejected,
            Folder::Review,
        ]
        .iter()
        .map(|folder| {
            let count = g.files.get(folder.as_str()).copied().unwrap_or(0);
            format!("{folder} {count}")
        })
        .collect();
        let doubt = tr(
            format!("{} in doubt", g.in_doubt),
            format!("под сомнением {}", g.in_doubt),
        );
        write!(out, "{}: {}; {doubt}", g.dir.display(), files.join(", "))?;
        match &g.last_error {
            Some(error) => writeln!(
                out,
                "; {} {}",
                tr("last error:", "последняя ошибка:"),
                error.get(lang)
            )?,
            None => writeln!(out)?,
        }
    }
    if glances.is_empty() {
        writeln!(
            out,
            "{}",
            tr(
                "no folder (none under the root holds a clientbank.toml)",
                "папок нет (ни в одной папке внутри корневой нет clientbank.toml)"
            )
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payments_awaiting_signature_name_their_company_in_the_language() {
        let ids = ["a1".to_string(), "b2".to_string()];
        let said = awaiting("payer account 40702810900000000001", &ids, Lang::Ru);
        assert_eq!(
            said,
            "  ждут подписи, счёт плательщика 40702810900000000001: a1, b2"
        );
        let said = awaiting("ООО \"Ромашка\" (INN 7701234560)", &ids, Lang::Ru);
        assert!(said.contains("ООО \"Ромашка\" (ИНН 7701234560)"), "{said}");
        assert!(!said.contains("INN") && !said.contains("payer"), "{said}");
        let said = awaiting("payer account 40702810900000000001", &ids, Lang::En);
        assert!(
            said.contains("awaiting signature, payer account 407028"),
            "{said}"
        );
    }
}
