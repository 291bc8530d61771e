//! `clientbank watch DIR [--once] [--sandbox] [--demo] [--config FILE]`: the daemon; with
//! several DIRs or `--root ROOT`, one process serving many folders (`clientbank_watch::fleet`).

use std::path::PathBuf;

use clientbank_api::Token;
use clientbank_bank::Settings;
use clientbank_watch::daemon::Serving;
use clientbank_watch::{Options, demo};

use crate::exit::{Failure, Outcome};
use clientbank_bank::config::LogFormat;
use clientbank_format::Message;

use super::setup::{Folders, configured, init_logging, shutdown};
use super::summary;

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    pub(crate) folders: Folders,
    /// Process what is in the inbox, print a summary and exit (0: nothing rejected or in
    /// review; 1 otherwise; 2: the configuration, the journal, the folder or the token stops
    /// it; 3: the bank stayed unavailable).
    #[arg(long)]
    pub(crate) once: bool,
    /// Use the built-in sandbox bank, started in-process on a free loopback port.
    #[arg(long)]
    pub(crate) sandbox: bool,
    /// Copy the sample drops into DIR/inbox first and sign with throwaway openssl
    /// certificates (with --sandbox: the whole flow offline). DIR must be new.
    #[arg(long)]
    pub(crate) demo: bool,
    /// The configuration file (default `DIR/clientbank.toml`).
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// Log lines as text (default) or JSON.
    #[arg(long, value_parser = crate::cli::log_format())]
    pub(crate) log_format: Option<LogFormat>,
    /// Start a new journal although the folders show earlier use (after the old one was
    /// lost: the files of processing/ go to review/).
    #[arg(long)]
    pub(crate) new_journal: bool,
    /// Serve metrics in the Prometheus text format at http://ADDR/metrics (a loopback
    /// address only; default `[metrics] listen` of the configuration).
    #[arg(long, value_name = "ADDR")]
    pub(crate) metrics: Option<std::net::SocketAddr>,
}

/// The token of the built-in sandbox bank with every right.
const SANDBOX_TOKEN: &str = "cabinet-token-full-rights";

/// With `sandbox`: the built-in sandbox bank, started in-process on a free loopback port, and
/// `settings` pointed at it with its full-rights cabinet token (the daemon uploads and signs).
async fn sandbox_bank(
    sandbox: bool,
    settings: &mut Settings,
) -> Result<Option<crate::sandbox_bank::Sandbox>, Failure> {
    if !sandbox {
        return Ok(None);
    }
    let bank = crate::sandbox_bank::start(None).await?;
    tracing::info!(url = %bank.url(), "the built-in sandbox bank runs in-process");
    settings.bank_url = Some(bank.url());
    settings.built_in_bank = true;
    settings.token = Some(Token::new(SANDBOX_TOKEN));
    settings.sandbox = false;
    Ok(Some(bank))
}

/// One folder, or many (several DIRs, or `--root`) in one process.
pub(crate) fn run(mut args: Args) -> Result<Outcome, Failure> {
    match args.folders.single() {
        Some(dir) => one(args, dir),
        None => many(args),
    }
}

/// One folder: its daemon, with `--demo`, `--sandbox` and `--metrics`.
fn one(args: Args, dir: PathBuf) -> Result<Outcome, Failure> {
    // Before the configuration is looked for in it, or a sandbox bank is started for it.
    clientbank_watch::folders::not_a_part(&dir)?;
    clientbank_watch::folders::not_a_file(&dir)?;
    let mut settings = configured(&dir, args.config.as_deref(), args.log_format)?;
    let today = clientbank_payment::clock::today_in_moscow();
    let _keys = (args.demo)
        .then(|| demo::prepare(&dir, &mut settings, today))
        .transpose()?;
    let serving = Serving {
        fixed_bank: args.sandbox || args.demo && settings.bank_url.is_none(),
        metrics: args.metrics.or(settings.metrics),
        once: args.once,
        options: Options {
            new_journal: args.new_journal,
            today: None,
        },
        config: args.config,
        dir,
    };
    if let Some(addr) = serving.metrics {
        clientbank_watch::metrics::check_loopback(addr)?;
    }
    crate::runtime::run(async move {
        let bank = sandbox_bank(serving.fixed_bank, &mut settings).await?;
        // A configuration that cannot reach a bank, or a signer that cannot sign, is refused
        // before DIR is touched and anything is uploaded.
        settings.ready_to_send()?;
        if serving.once && nothing_to_send(&serving.dir) {
            bank_answers(&settings).await?;
        }
        let summary = serving.run(settings, shutdown).await;
        drop(bank);
        let summary = summary?;
        let outcome = exit_of(&summary, args.demo, serving.once);
        crate::exit::after_printing(summary::print(&serving.dir, &summary), outcome)
    })
}

/// Whether DIR has no file to send (inbox/ and processing/ empty): `watch --once` then only
/// tries the set-up (with files, sending them tries it, waiting for the bank as it does).
fn nothing_to_send(dir: &std::path::Path) -> bool {
    use clientbank_watch::folders::{Folder, Layout};
    let layout = Layout::new(dir);
    [Folder::Inbox, Folder::Processing]
        .into_iter()
        .all(|folder| layout.files(folder).is_empty())
}

/// `watch --once` on an empty inbox is how a set-up is tried: one harmless request (the
/// companies) says whether the bank is reached and takes the token — an address without
/// `/v1`, `https` to plain HTTP, a refused token. A token without the right to see companies
/// is no failure here.
async fn bank_answers(settings: &Settings) -> Result<(), Failure> {
    let client = super::bank::client(settings)?;
    match client.companies().await {
        Ok(_) | Err(clientbank_api::Error::AccessDenied { .. }) => Ok(()),
        Err(e) => {
            let (said, outcome) = crate::exit::api_said(&e);
            crate::term::error(said.get(crate::term::lang()));
            // What keeps anything from being sent is the set-up's: exit 2, as a run that met
            // it on its first file says.
            Err(Failure::Said(outcome.max(Outcome::Unreadable)))
        }
    }
}

/// The exit code of one folder's run. The daemon stopped by SIGINT/SIGTERM has done what it
/// should: exit 0. The demo's samples include a file with an error: it went as designed when
/// exactly that one was rejected and the others are done.
fn exit_of(summary: &clientbank_watch::Summary, demo: bool, once: bool) -> Outcome {
    if demo {
        if demo::went_as_designed(summary) {
            Outcome::Clean
        } else {
            Outcome::Findings
        }
    } else if once {
        summary::outcome(summary)
    } else {
        Outcome::Clean
    }
}

fn many(args: Args) -> Result<Outcome, Failure> {
    let one_folder_only = [
        ("--demo", args.demo),
        ("--config", args.config.is_some()),
        ("--new-journal", args.new_journal),
        ("--metrics", args.metrics.is_some()),
    ];
    if let Some((flag, _)) = one_folder_only.iter().find(|(_, given)| *given) {
        return Err(Failure::Stopped(Message::new(
            format!("{flag} serves one folder: give one DIR, not several or --root"),
            format!("{flag} — для одной папки: укажите одну DIR, а не несколько и не --root"),
        )));
    }
    if let Some(root) = &args.folders.root {
        clientbank_watch::fleet::folders_under_root(root)?;
    }
    init_logging(args.log_format == Some(LogFormat::Json));
    crate::runtime::run(async move {
        let mut fixed = Settings {
            lang: crate::term::lang(),
            ..Settings::default()
        };
        let bank = sandbox_bank(args.sandbox, &mut fixed).await?;
        let load = clientbank_watch::fleet::loader(fixed, bank.is_some());
        let mut fleet = clientbank_watch::Fleet::new(load);
        for dir in args.folders.dirs {
            fleet = fleet.dir(dir);
        }
        if let Some(root) = args.folders.root {
            fleet = fleet.root(root);
        }
        let runs = if args.once {
            fleet.run_once().await
        } else {
            fleet.run(shutdown()).await
        };
        drop(bank);
        said(&runs, args.once)
    })
}

/// The exit code of the worst folder's run; prints what each folder's daemon did (its summary,
/// or why it could not run). Standard output gone (`| head -1`): the rest is not printed and
/// the exit code stays the runs'.
fn said(runs: &[clientbank_watch::FolderRun], once: bool) -> Result<Outcome, Failure> {
    let worst = runs
        .iter()
        .map(|run| match &run.outcome {
            Ok(summary) if once => summary::outcome(summary),
            Ok(_) => Outcome::Clean,
            Err(_) => Outcome::Unreadable,
        })
        .max()
        .unwrap_or(Outcome::Clean);
    crate::exit::after_printing(print_runs(runs, once), worst)
}

/// What each folder's daemon did, on standard output.
fn print_runs(runs: &[clientbank_watch::FolderRun], once: bool) -> std::io::Result<()> {
    if once && runs.is_empty() {
        crate::term::outln!(
            "{}",
            crate::term::tr(
                "no folder to serve (none under the root holds a clientbank.toml)",
                "обслуживать нечего (ни в одной папке внутри корневой нет clientbank.toml)"
            )
        )?;
    }
    for run in runs {
        match &run.outcome {
            Ok(summary) => summary::print(&run.dir, summary)?,
            Err(e) => {
                let lang = crate::term::lang();
                crate::term::outln!("{}:\n  {}", run.dir.display(), e.message().get(lang))?;
            }
        }
    }
    Ok(())
}
