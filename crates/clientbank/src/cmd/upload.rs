//! `clientbank upload FILE... [--dir DIR] [--route auto|json|1c] [--in-signing] [--json]`.

use std::io::{self, Write};
use std::path::PathBuf;

use chrono::NaiveDate;
use clientbank_bank::Route;
use clientbank_watch::commands::{self, UploadOutcome};
use clientbank_watch::folders::{Folder, Layout};

use super::watch::{init_logging, load};
use crate::exit::{Failure, Outcome};
use crate::output::print_json;

pub(crate) struct Args {
    pub(crate) files: Vec<PathBuf>,
    pub(crate) dir: Option<PathBuf>,
    pub(crate) route: Option<Route>,
    pub(crate) in_signing: bool,
    pub(crate) json: bool,
    pub(crate) config: Option<PathBuf>,
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
