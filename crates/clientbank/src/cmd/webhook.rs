//! `clientbank webhook [--addr ADDR] [--dir DIR] [--config FILE]`: the webhook listener alone,
//! recording the bank's notifications in the journal of DIR until interrupted.

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clientbank_bank::webhook::{self, Listener};
use clientbank_watch::daemon::open_journal;
use clientbank_watch::folders::Layout;

use super::watch::{init_logging, load, shutdown};
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
    let settings = load(&args.dir, args.config.as_deref())?;
    let json_logs = args.log_format.unwrap_or(settings.log_format) == LogFormat::Json;
    init_logging(json_logs);
    for warning in &settings.warnings {
        crate::term::warning(warning.get(crate::term::lang()));
    }
    let Some(addr) = args
        .addr
        .or_else(|| settings.webhook.as_ref().map(|w| w.addr))
    else {
        return Err(Failure::Stopped(Message::new(
            "no address to listen on: give --addr (e.g. 127.0.0.1:8091) or `addr` in the \
             [webhook] table of clientbank.toml",
            "не указан адрес для приёма уведомлений: укажите --addr (например, 127.0.0.1:8091) \
             или `addr` в таблице [webhook] файла clientbank.toml",
        )));
    };
    let key = settings.webhook_key()?;
    if !args.dir.is_dir() {
        return Err(Failure::Stopped(Message::new(
            format!(
                "{} does not exist or is not a folder: give the exchange folder whose journal \
                 records the notifications (--dir)",
                args.dir.display()
            ),
            format!(
                "{} не существует или не папка: укажите папку обмена, в журнал которой \
                 записываются уведомления (--dir)",
                args.dir.display()
            ),
        )));
    }
    let layout = Layout::new(&args.dir);
    let (journal, _) = open_journal(&layout, settings.journal.as_ref(), false)?;
    let journal = Arc::new(Mutex::new(journal));
    crate::runtime::run(async move {
        let socket = webhook::bind(addr).await?;
        let bound = socket.local_addr().unwrap_or(addr);
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
        {
            let mut out = std::io::stdout().lock();
            writeln!(
                out,
                "{}",
                tr(
                    format!(
                        "listening for webhooks on http://{bound}/ (journal {}); Ctrl-C stops",
                        layout.journal().display()
                    ),
                    format!(
                        "приём уведомлений на http://{bound}/ (журнал {}); Ctrl-C — остановить",
                        layout.journal().display()
                    ),
                )
            )?;
            out.flush()?;
        }
        let listener = Listener::new(key, journal);
        if let Err(e) = listener.serve(socket, shutdown()).await {
            return Err(Failure::Stopped(Message::new(
                format!("the webhook listener stopped: {e}"),
                format!("приём уведомлений остановлен: {e}"),
            )));
        }
        println!("{}", tr("stopped", "остановлено"));
        Ok(Outcome::Clean)
    })
}
