//! One folder served to its end (`clientbank watch DIR`): opened when it is free, run once or
//! until shut down, stood by for again when its lease is lost, its metrics beside it.

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clientbank_bank::config::{ProcessEnv, Settings, Signing};
use clientbank_format::{say, tr};

use super::{Daemon, Options, Summary};
use crate::{Engine, Error};

/// How the daemon reads its configuration again ([`Daemon::set_reloader`]).
pub type Reloader = Box<dyn Fn() -> Result<Settings, Error> + Send>;

impl Daemon {
    /// The engine (journal, settings, bank), to read what it holds.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The engine, to act through it (plan, sign, replace the settings).
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}

/// What a command line set over a folder's configuration, kept when it is read again (`next`):
/// the language; the bank's address and token when `bank` (the built-in sandbox); the
/// throwaway signers of `--demo`, signing as soon as payments are uploaded.
pub fn keep_command_line(next: &mut Settings, fixed: &Settings, bank: bool) {
    next.lang = fixed.lang;
    if bank {
        next.bank_url = fixed.bank_url.clone();
        next.token = fixed.token.clone();
        next.sandbox = fixed.sandbox;
        next.built_in_bank = fixed.built_in_bank;
    }
    if fixed.signing == Signing::Auto && !fixed.signers.is_empty() {
        next.signers.extend(fixed.signers.clone());
        next.signing = fixed.signing;
    }
}

/// One folder served by its daemon: `clientbank watch DIR`.
#[derive(Clone, Debug)]
pub struct Serving {
    /// The folder.
    pub dir: PathBuf,
    /// Its configuration file, when not `DIR/clientbank.toml`.
    pub config: Option<PathBuf>,
    /// How its daemon is opened.
    pub options: Options,
    /// Process what is there and return ([`Daemon::run_once`]), not run until shut down.
    pub once: bool,
    /// The bank's address and token were set by the command line (the built-in sandbox):
    /// kept when the configuration is read again.
    pub fixed_bank: bool,
    /// Serve metrics at `http://ADDR/metrics` beside the daemon (a loopback address).
    pub metrics: Option<SocketAddr>,
}

impl Serving {
    /// Serves the folder with `settings` until `shutdown()` completes (or once): the daemon
    /// opened when the folder is free ([`Serving::open_when_free`]); a changed configuration
    /// file read again, keeping what the command line set ([`keep_command_line`]); a daemon
    /// whose lease of a folder in PostgreSQL ran out (paused, cut off) stands by again, having
    /// sent nothing more, and takes the folder over when it is free. The last run's summary.
    pub async fn run<F>(
        &self,
        settings: Settings,
        shutdown: impl Fn() -> F,
    ) -> Result<Summary, Error>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let fixed = settings.clone();
        let mut daemon = self.open_when_free(settings).await?;
        daemon.set_reloader(self.reloader(&fixed));
        let _metrics = match self.metrics {
            Some(addr) => Some(serve_metrics(addr, &self.dir, &daemon).await?),
            None => None,
        };
        loop {
            let summary = if self.once {
                daemon.run_once().await
            } else {
                daemon.run(shutdown()).await
            };
            match summary {
                Err(Error::LeaseLost(lost)) if !self.once => {
                    say!(warn, lost);
                    let settings = daemon.engine.settings.clone();
                    drop(daemon);
                    daemon = self.open_when_free(settings).await?;
                    daemon.set_reloader(self.reloader(&fixed));
                }
                summary => return summary,
            }
        }
    }

    /// How the daemon reads its configuration again: from the folder (or `config`), keeping
    /// what the command line set (`fixed`).
    fn reloader(&self, fixed: &Settings) -> Reloader {
        let (dir, config) = (self.dir.clone(), self.config.clone());
        let (fixed, bank) = (fixed.clone(), self.fixed_bank);
        Box::new(move || {
            let mut next = Settings::load(&dir, config.as_deref(), &ProcessEnv)?;
            keep_command_line(&mut next, &fixed, bank);
            Ok(next)
        })
    }

    /// Opens the folder; with a journal in PostgreSQL whose lease another daemon holds, stands
    /// by (said once) and takes the folder over when that lease runs out. With `once`, only as
    /// long as a lease of a daemon that died can last: a folder another daemon serves is
    /// refused.
    pub async fn open_when_free(&self, settings: Settings) -> Result<Daemon, Error> {
        let mut tries = 0;
        loop {
            match Daemon::open(&self.dir, settings.clone(), self.options.clone()) {
                // A third of the lease each: six tries outlast a lease twice over.
                Err(Error::Leased { message, retry }) if !self.once || tries < 6 => {
                    if tries == 0 {
                        say!(info, crate::fleet::standing_by(&message));
                    }
                    tries += 1;
                    tokio::time::sleep(retry).await;
                }
                opened => return opened,
            }
        }
    }
}

/// Serves the metrics of `dir` on `addr` beside its daemon; they stop when the guard is
/// dropped.
async fn serve_metrics(
    addr: SocketAddr,
    dir: &Path,
    daemon: &Daemon,
) -> Result<tokio::sync::oneshot::Sender<()>, Error> {
    let listener = crate::metrics::bind(addr).await?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = crate::metrics::serve(
        listener,
        dir.to_path_buf(),
        daemon.bank_health(),
        async move {
            let _ = stopped.await;
        },
    );
    tokio::spawn(async move {
        if let Err(e) = serving.await {
            say!(
                warn,
                tr!("metrics: {}" , clientbank_diagnostic::os::Ru(&e); "метрики: {e}")
            );
        }
    });
    tracing::info!(addr = %addr, "metrics served at /metrics");
    Ok(stop)
}
