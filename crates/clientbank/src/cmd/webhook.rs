//! `clientbank webhook [--addr ADDR] [--dir DIR] [--config FILE]`: the webhook listener alone,
//! recording the bank's notifications in the journal of DIR until interrupted.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clientbank_watch::daemon::open_journal;
use clientbank_watch::folders::Layout;
use clientbank_watch::webhook::{self, Listener};

use super::watch::{error_outcome, init_logging, load, shutdown};
use crate::cli::LogFormat;
use crate::exit::{Failure, Outcome};
use crate::term::tr;

pub(crate) struct Args {
    pub(crate) addr: Option<SocketAddr>,
    pub(crate) dir: PathBuf,
    pub(crate) config: Option<PathBuf>,
    pub(crate) log_format: Option<LogFormat>,
}

pub(crate) fn run(args: Args) -> Result<Outcome, Failure> {
    let settings = match load(&args.dir, args.config.as_deref()) {
        Ok(settings) => settings,
        Err(outcome) => return Ok(outcome),
    };
    let json_logs = match args.log_format {
        Some(format) => format == LogFormat::Json,
        None => settings.log_format == "json",
    };
    init_logging(json_logs);
    for warning in &settings.warnings {
        crate::term::warning(warning);
    }
    let Some(addr) = args
        .addr
        .or_else(|| settings.webhook.as_ref().map(|w| w.addr))
    else {
        crate::term::error(&tr(
            "no address to listen on: give --addr (e.g. 127.0.0.1:8091) or `addr` in the \
             [webhook] table of clientbank.toml",
            "не указан адрес для приёма уведомлений: укажите --addr (например, 127.0.0.1:8091) \
             или `addr` в таблице [webhook] файла clientbank.toml",
        ));
        return Ok(Outcome::Unreadable);
    };
    let key = match settings.webhook_key() {
        Ok(key) => key,
        Err(e) => {
            crate::term::error(e.message().get(crate::term::lang()));
            return Ok(Outcome::Unreadable);
        }
    };
    if !args.dir.is_dir() {
        crate::term::error(&tr(
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
        ));
        return Ok(Outcome::Unreadable);
    }
    let layout = Layout::new(&args.dir);
    let journal = match open_journal(&layout, false) {
        Ok((journal, _)) => Arc::new(Mutex::new(journal)),
        Err(e) => {
            crate::term::error(e.message().get(crate::term::lang()));
            return Ok(error_outcome(e.exit_code()));
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let socket = match webhook::bind(addr).await {
            Ok(socket) => socket,
            Err(e) => {
                crate::term::error(e.message().get(crate::term::lang()));
                return Ok(Outcome::Unreadable);
            }
        };
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
            crate::term::error(&tr(
                format!("the webhook listener stopped: {e}"),
                format!("приём уведомлений остановлен: {e}"),
            ));
            return Ok(Outcome::Unreadable);
        }
        println!("{}", tr("stopped", "остановлено"));
        Ok(Outcome::Clean)
    })
}
