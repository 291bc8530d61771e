//! `clientbank webhook [--addr ADDR] [--dir DIR] [--config FILE]`: the webhook listener alone,
//! recording the bank's notifications in the journal of DIR until interrupted.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clientbank_watch::folders::Layout;
use clientbank_watch::webhook::Webhook;

use super::setup::{configured, shutdown, warn_of};
use crate::exit::{Failure, Outcome};
use crate::term::tr;
use clientbank_bank::config::LogFormat;
use clientbank_format::Message;

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Where to listen (default: `addr` of the [webhook] table). Plain HTTP: the bank posts
    /// to HTTPS addresses, so a reverse proxy terminates TLS in front of it.
    #[arg(long)]
    pub(crate) addr: Option<std::net::SocketAddr>,
    /// The folder whose journal (`DIR/.clientbank/journal.sqlite`) and configuration are
    /// used.
    #[arg(long, default_value = ".")]
    pub(crate) dir: PathBuf,
    /// The configuration file (default `DIR/clientbank.toml`).
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// Log lines as text (default) or JSON.
    #[arg(long, value_parser = crate::cli::log_format())]
    pub(crate) log_format: Option<LogFormat>,
}

pub(crate) fn run(args: Args) -> Result<Outcome, Failure> {
    let settings = configured(&args.dir, args.config.as_deref(), args.log_format)?;
    warn_of(&settings);
    crate::runtime::run(async move {
        let webhook = Webhook::of_folder(&args.dir, &settings, args.addr).await?;
        say_listening(webhook.addr(), &Layout::new(&args.dir).journal())?;
        if let Err(e) = webhook.serve(shutdown()).await {
            return Err(Failure::Stopped(Message::new(
                format!("the webhook listener stopped: {e}"),
                format!(
                    "приём уведомлений остановлен: {}",
                    clientbank_diagnostic::os::Ru(&e)
                ),
            )));
        }
        crate::term::outln!("{}", tr("stopped", "остановлено"))?;
        Ok(Outcome::Clean)
    })
}

/// Says where the listener listens (on stdout, flushed), warning first of an address that is
/// not loopback.
fn say_listening(bound: SocketAddr, journal: &Path) -> std::io::Result<()> {
    if !bound.ip().is_loopback() {
        crate::term::warning(&tr(
            format!(
                "{bound} is not a loopback address and the listener speaks plain HTTP: the \
                 bank posts to HTTPS addresses only, so put an HTTPS reverse proxy in front"
            ),
            format!(
                "{bound} — не адрес loopback, а приёмник говорит по HTTP без TLS: банк шлёт \
                 уведомления только на адреса HTTPS, поставьте перед ним обратный прокси с \
                 HTTPS"
            ),
        ));
    }
    let (mut out, journal) = (std::io::stdout().lock(), journal.display());
    writeln!(
        out,
        "{}",
        tr(
            format!("listening for webhooks on http://{bound}/ (journal {journal}); Ctrl-C stops"),
            format!("приём уведомлений на http://{bound}/ (журнал {journal}); Ctrl-C — остановить"),
        )
    )?;
    out.flush()
}
