//! systemd's service protocol (issue 19 item 6): `READY=1` once the daemon watches (a unit of
//! `Type=notify` is started only then), `WATCHDOG=1` from the daemon's loop at least twice per
//! `WatchdogSec=` (a loop stuck longer is restarted by systemd), `STOPPING=1` at a clean stop.
//!
//! The messages are datagrams to the Unix socket named by `$NOTIFY_SOCKET` (a path, or `@name`
//! for Linux's abstract namespace). Without that variable — not under systemd, or on
//! Windows — every call does nothing.

use std::time::Duration;

use clientbank_format::{say, tr};

/// The daemon's link to its service manager.
#[derive(Debug, Default)]
pub(crate) struct Service {
    socket: Option<String>,
    /// Half of `WATCHDOG_USEC`, when the watchdog is on for this process.
    watchdog: Option<Duration>,
}

impl Service {
    /// From `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` (the watchdog is this
    /// process's only when the pid is absent or its own).
    pub(crate) fn from_env() -> Service {
        let socket = std::env::var("NOTIFY_SOCKET")
            .ok()
            .filter(|s| !s.is_empty());
        let ours = std::env::var("WATCHDOG_PID")
            .ok()
            .and_then(|pid| pid.trim().parse::<u32>().ok())
            .is_none_or(|pid| pid == std::process::id());
        let watchdog = std::env::var("WATCHDOG_USEC")
            .ok()
            .and_then(|usec| usec.trim().parse::<u64>().ok())
            .filter(|usec| *usec > 0 && ours && socket.is_some())
            .map(|usec| Duration::from_micros(usec / 2));
        Service { socket, watchdog }
    }

    /// The daemon watches.
    pub(crate) fn ready(&self) {
        self.send("READY=1\nSTATUS=watching the inbox");
    }

    /// The daemon's loop went round.
    pub(crate) fn alive(&self) {
        if self.watchdog.is_some() {
            self.send("WATCHDOG=1");
        }
    }

    /// The daemon stops cleanly.
    pub(crate) fn stopping(&self) {
        self.send("STOPPING=1");
    }

    /// `wait` shortened so the loop comes round before the watchdog's time runs out.
    pub(crate) fn cap(&self, wait: Duration) -> Duration {
        self.watchdog.map_or(wait, |half| wait.min(half))
    }

    fn send(&self, message: &str) {
        let Some(socket) = &self.socket else {
            return;
        };
        if let Err(e) = send(socket, message) {
            say!(
                warn,
                tr!(
                    "cannot tell systemd {message:?} at NOTIFY_SOCKET {socket}: {e}" ;
                    "не удалось сообщить systemd {message:?} через NOTIFY_SOCKET {socket}: {}"
                , clientbank_diagnostic::os::Ru(&e))
            );
        }
    }
}

#[cfg(unix)]
fn send(socket: &str, message: &str) -> std::io::Result<()> {
    use std::os::unix::net::UnixDatagram;
    let datagram = UnixDatagram::unbound()?;
    if let Some(name) = socket.strip_prefix('@') {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            use std::os::linux::net::SocketAddrExt;
            let address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
            datagram.send_to_addr(message.as_bytes(), &address)?;
            return Ok(());
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        {
            let _ = name;
            return Err(std::io::Error::other(
                "abstract sockets exist on Linux only",
            ));
        }
    }
    datagram.send_to(message.as_bytes(), socket)?;
    Ok(())
}

#[cfg(not(unix))]
fn send(_socket: &str, _message: &str) -> std::io::Result<()> {
    Ok(())
}
