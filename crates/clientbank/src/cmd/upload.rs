//! `clientbank upload FILE... [--dir DIR] [--route auto|json|1c] [--in-signing] [--json]`.

use std::io::{self, Write};
use std::path::PathBuf;

use chrono::NaiveDate;
use clientbank_watch::commands::{self, UploadOutcome};
use clientbank_watch::folders::{Folder, Layout};

use super::watch::{init_logging, load};
use crate::cli::parse_day;
use crate::exit::{Failure, Outcome};
use crate::output::print_json;

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
    let mut settings = load(&dir, args.config.as_deref())?;
    init_logging(false);
    if let Some(route) = args.route {
        settings.route = route;
    }
    if args.in_signing {
        settings.in_signing = true;
    }
    // A configuration that cannot reach a bank, or a signer that cannot sign, is refused
    // before any journal is made and anything is uploaded.
    settings.client()?;
    clientbank_bank::signer::try_signers(&settings)?;
    let private = Layout::new(&dir).folder(Folder::Private);
    let made_here = !private.exists();
    let mut engine = commands::engine(&dir, settings, create_journal)?;
    let today = args
        .today
        .unwrap_or_else(clientbank_payment::clock::today_in_moscow);
    let uploads = crate::runtime::block_on(commands::upload(&mut engine, &args.files, today));
    // A journal this command made and recorded nothing in is not left behind.
    let recorded = engine
        .journal
        .payments_by_state()
        .map_or(true, |counts| !counts.is_empty());
    if made_here && !recorded {
        drop(engine);
        let _ = std::fs::remove_dir_all(&private);
    }
    let uploads = uploads??;
    let mut outcome = Outcome::Clean;
    for upload in &uploads {
        let this = match upload.outcome {
            UploadOutcome::Uploaded => Outcome::Clean,
            UploadOutcome::Unavailable => Outcome::BankUnavailable,
            UploadOutcome::TokenRefused
            | UploadOutcome::Interrupted
            | UploadOutcome::Misconfigured => Outcome::Unreadable,
            UploadOutcome::Rejected
            | UploadOutcome::Refused
            | UploadOutcome::Review
            | UploadOutcome::Held => Outcome::Findings,
        };
        outcome = outcome.max(this);
    }
    if args.json {
        print_json(&uploads)?;
        return Ok(outcome);
    }
    let mut out = io::stdout().lock();
    for upload in &uploads {
        if let Some(findings) = &upload.findings {
            write!(out, "{findings}")?;
            writeln!(out, "{}: refused, nothing sent", upload.file)?;
            continue;
        }
        writeln!(out, "{}: {}", upload.file, upload.outcome)?;
        writeln!(
            out,
            "  {:<8} {:<10} {:>14}  {:<36}  {:<28}  recipient",
            "number", "date", "sum", "id", "state"
        )?;
        for p in &upload.payments {
            writeln!(
                out,
                "  {:<8} {:<10} {:>14}  {:<36}  {:<28}  {}",
                p.number,
                p.date,
                p.sum,
                p.id.as_deref().unwrap_or("-"),
                p.state,
                p.recipient
            )?;
            if let Some(message) = &p.message {
                writeln!(out, "           {message}")?;
            }
        }
    }
    Ok(outcome)
}
