//! `clientbank upload FILE... [--dir DIR] [--route auto|json|1c] [--in-signing] [--json]`.

use std::io::{self, Write};
use std::path::PathBuf;

use chrono::NaiveDate;
use clientbank_watch::commands::{self, FileUpload, UploadOutcome};

use super::setup::configured;
use crate::cli::parse_day;
use crate::exit::{Failure, Outcome};
use crate::output::print_json;
use crate::term::Lang;
use clientbank_bank::config::LogFormat;

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The files: 1C exchange files or JSON upload requests.
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,
    /// The folder whose journal (`DIR/.clientbank/journal.sqlite`) and configuration
    /// (`DIR/clientbank.toml`) are used; a folder without a journal gets one. Without it,
    /// the folder with a journal that the files lie in (a file in no such folder is
    /// refused: a journal is never made by itself).
    #[arg(long)]
    pub(crate) dir: Option<PathBuf>,
    /// How payments go: auto (JSON payment by payment when it carries everything, else the
    /// 1C file whole), json, 1c.
    #[arg(long, value_parser = crate::cli::parse_route)]
    pub(crate) route: Option<clientbank_bank::Route>,
    /// Send the payments straight to signing (`targetStatus: InSigning`; the configuration's
    /// `in_signing`, true by default, otherwise).
    #[arg(long)]
    pub(crate) in_signing: bool,
    /// Print a JSON array.
    #[arg(long)]
    pub(crate) json: bool,
    /// The configuration file (default `DIR/clientbank.toml`).
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// Check dates as of this day instead of today in Moscow.
    #[arg(long, value_parser = parse_day)]
    pub(crate) today: Option<NaiveDate>,
}

pub(crate) fn run(args: &Args) -> Result<Outcome, Failure> {
    let (dir, create_journal) = commands::upload_dir(&args.files, args.dir.as_deref())?;
    let mut settings = configured(&dir, args.config.as_deref(), Some(LogFormat::Text))?;
    if let Some(route) = args.route {
        settings.route = route;
    }
    if args.in_signing {
        settings.in_signing = true;
    }
    // A configuration that cannot reach a bank, or a signer that cannot sign, is refused
    // before any journal is made and anything is uploaded.
    settings.ready_to_send()?;
    let today = args
        .today
        .unwrap_or_else(clientbank_payment::clock::today_in_moscow);
    let uploads = crate::runtime::block_on(commands::upload_in(
        &dir,
        settings,
        create_journal,
        &args.files,
        today,
    ))??;
    let outcome = uploads.iter().map(|u| exit_of(u.outcome)).max();
    let outcome = outcome.unwrap_or(Outcome::Clean);
    if args.json {
        print_json(&uploads)?;
        return Ok(outcome);
    }
    let mut out = io::stdout().lock();
    for upload in &uploads {
        write!(out, "{}", shown(upload, crate::term::lang()))?;
    }
    Ok(outcome)
}

/// The exit code of a file's upload.
fn exit_of(outcome: UploadOutcome) -> Outcome {
    match outcome {
        UploadOutcome::Uploaded | UploadOutcome::Already => Outcome::Clean,
        UploadOutcome::Unavailable => Outcome::BankUnavailable,
        UploadOutcome::TokenRefused
        | UploadOutcome::Interrupted
        | UploadOutcome::Misconfigured
        | UploadOutcome::Unreadable => Outcome::Unreadable,
        UploadOutcome::Rejected
        | UploadOutcome::Refused
        | UploadOutcome::Review
        | UploadOutcome::Held => Outcome::Findings,
    }
}

/// What `upload` says of one file for people, in `lang`: how it ended and a table of its
/// payments (times in local time).
fn shown(upload: &FileUpload, lang: Lang) -> String {
    let ru = lang == Lang::Ru;
    let tr = |en: &'static str, ru_text: &'static str| if ru { ru_text } else { en };
    let mut out = String::new();
    if let Some(findings) = &upload.findings {
        out.push_str(findings);
        let refused = match upload.outcome {
            UploadOutcome::Unreadable => upload.outcome.shown(lang),
            _ => tr("refused, nothing sent", "отклонён, ничего не отправлено"),
        };
        out.push_str(&format!("{}: {refused}\n", upload.file));
        return out;
    }
    out.push_str(&format!(
        "{}: {}\n",
        upload.file,
        upload.outcome.shown(lang)
    ));
    out.push_str(&format!(
        "  {:<8} {:<10} {:>14}  {:<36}  {:<28}  {}\n",
        tr("number", "номер"),
        tr("date", "дата"),
        tr("sum", "сумма"),
        tr("id", "id в банке"),
        tr("state", "состояние"),
        tr("recipient", "получатель"),
    ));
    for p in &upload.payments {
        out.push_str(&format!(
            "  {:<8} {:<10} {:>14}  {:<36}  {:<28}  {}\n",
            p.number,
            p.date,
            p.sum,
            p.id.as_deref().unwrap_or("-"),
            p.state_shown,
            p.recipient
        ));
        if let Some(message) = &p.message {
            out.push_str(&format!("           {}\n", local_times(message)));
        }
    }
    out
}

/// `text` with each journal time in it (`2026-11-26T08:35:59Z`) in local time, as people read
/// it.
fn local_times(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';') {
            if word.len() >= 20 && word.as_bytes()[4] == b'-' && word.contains('T') {
                out.push_str(&crate::log::local_time(&word));
            } else {
                out.push_str(&word);
            }
            word.clear();
            out.push(c);
        } else {
            word.push(c);
        }
    }
    out.pop();
    out
}

#[cfg(test)]
mod tests {
    use clientbank_watch::commands::{PaymentLine, UploadOutcome};

    use super::*;

    fn upload() -> FileUpload {
        FileUpload {
            file: "up/u.txt".into(),
            outcome: UploadOutcome::Uploaded,
            findings: None,
            payments: vec![PaymentLine {
                file: "up/u.txt".into(),
                number: "171".into(),
                date: "26.11.2026".into(),
                sum: "100.00".into(),
                recipient: "ООО Ромашка".into(),
                id: Some("op-1".into()),
                state: "already at the bank".into(),
                state_shown: "уже в банке",
                message: Some("уже в банке: id op-1 (загружен 2026-11-26T08:35:59Z)".into()),
            }],
        }
    }

    #[test]
    fn upload_speaks_russian_to_a_russian_user() {
        let said = shown(&upload(), Lang::Ru);
        for russian in [
            "up/u.txt: загружен",
            "номер",
            "сумма",
            "получатель",
            "уже в банке",
        ] {
            assert!(said.contains(russian), "{russian}: {said}");
        }
        for english in [
            "uploaded",
            "number",
            "recipient",
            "already",
            "2026-11-26T08:35:59Z",
        ] {
            assert!(!said.contains(english), "{english}: {said}");
        }
        let mut refused = upload();
        refused.outcome = UploadOutcome::TokenRefused;
        assert!(shown(&refused, Lang::Ru).contains("банк не принял токен"));
        refused.findings = Some("ошибка: …\n".into());
        let said = shown(&refused, Lang::Ru);
        assert!(
            said.ends_with("up/u.txt: отклонён, ничего не отправлено\n"),
            "{said}"
        );
        assert!(!said.contains("refused"), "{said}");
    }

    #[test]
    fn a_journal_time_in_a_message_is_local() {
        let said = local_times("уже в банке: id op-1 (загружен 2026-11-26T08:35:59Z)");
        assert!(
            said.starts_with("уже в банке: id op-1 (загружен "),
            "{said}"
        );
        assert!(
            said.ends_with(')') && !said.contains("T08:35:59Z"),
            "{said}"
        );
        assert!(said.contains(":35:59"), "{said}");
        assert_eq!(local_times("no time here (id 1)"), "no time here (id 1)");
    }
}
