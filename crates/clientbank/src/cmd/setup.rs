//! What the commands over an exchange folder share: its configuration, the log, the folders
//! given, the shutdown signal.

use std::path::{Path, PathBuf};

use clientbank_bank::Settings;
use clientbank_bank::config::{LogFormat, ProcessEnv};

use crate::exit::Failure;

/// The exchange folders a command works on: one or several DIRs, or those under a root.
#[derive(Debug, clap::Args)]
pub(crate) struct Folders {
    /// The exchange folder (inbox/, processing/, done/, rejected/, review/, outbox/); several:
    /// each with its own clientbank.toml (`watch` serves them all in one process, `status`
    /// gives a line each).
    #[arg(value_name = "DIR", required_unless_present = "root")]
    pub(crate) dirs: Vec<PathBuf>,
    /// Every direct subfolder of ROOT that holds a clientbank.toml (`watch` looks at ROOT
    /// again every 5 s: folders added are served, folders removed are let go).
    #[arg(long, value_name = "ROOT")]
    pub(crate) root: Option<PathBuf>,
}

impl Folders {
    /// The one DIR given (no other, no `--root`), taken out; `None` for several or a root.
    pub(crate) fn single(&mut self) -> Option<PathBuf> {
        (self.dirs.len() == 1 && self.root.is_none()).then(|| self.dirs.remove(0))
    }
}

/// The configuration of DIR (or `config`) with the log started: as `log_format` (a flag)
/// says, else as the configuration says.
pub(crate) fn configured(
    dir: &Path,
    config: Option<&Path>,
    log_format: Option<LogFormat>,
) -> Result<Settings, Failure> {
    let settings = load(dir, config)?;
    init_logging(log_format.unwrap_or(settings.log_format) == LogFormat::Json);
    Ok(settings)
}

/// Says the configuration's warnings (on stderr, in the command line's language).
pub(crate) fn warn_of(settings: &Settings) {
    for warning in &settings.warnings {
        crate::term::warning(warning.get(crate::term::lang()));
    }
}

/// What is logged when `RUST_LOG` does not say: our `info` and above, and nothing of the
/// libraries' own lines (the file watcher's English notes to its developers): what matters of
/// theirs reaches us as errors, which we say.
pub(crate) const DEFAULT_LOG: &str = "info,notify=off,notify_debouncer_full=off";

/// Logs to stderr, as text (local time, plain words: `crate::log`) or JSON lines (`RUST_LOG`
/// filters; [`DEFAULT_LOG`] by default).
pub(crate) fn init_logging(json: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // A log line that cannot be written (stderr closed, on a full disk) is lost, not said
        // with `eprintln!`, which panics on the same stream.
        .log_internal_errors(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false);
    let _ = if json {
        builder.json().try_init()
    } else {
        builder
            .event_format(crate::log::Plain(crate::term::lang()))
            .try_init()
    };
}

/// The configuration of DIR (or `config`), then the environment.
pub(crate) fn load(dir: &Path, config: Option<&Path>) -> Result<Settings, Failure> {
    if config.is_none() {
        clientbank_watch::folders::not_a_part(dir)?;
    }
    let mut settings = Settings::load(dir, config, &ProcessEnv)?;
    // The daemon's `FILE.errors.txt` and reports speak the language of the command line.
    settings.lang = crate::term::lang();
    Ok(settings)
}

/// SIGINT, or SIGTERM on Unix.
pub(crate) async fn shutdown() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    /// The default filter parses, keeps our lines and drops the file watcher's own.
    #[test]
    fn the_default_log_keeps_ours_and_drops_the_watchers_notes() {
        let filter = tracing_subscriber::EnvFilter::try_new(super::DEFAULT_LOG).unwrap();
        let said = filter.to_string();
        assert!(
            said.contains("notify=off") && said.ends_with(",info"),
            "{said}"
        );
    }
}
