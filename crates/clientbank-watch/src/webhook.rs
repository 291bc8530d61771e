//! The webhook listener over a folder's journal: `clientbank webhook` alone, or beside the
//! daemon, which learns of each new operation at once.

use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

use clientbank_bank::config::Settings;
use clientbank_bank::webhook::{Key, Listener, NewOperation};
use clientbank_format::{Message, say, tr};
use tokio::net::TcpListener;
use tokio::sync::mpsc::UnboundedSender;

use crate::Error;
use crate::daemon::open_journal;
use crate::folders::Layout;
use crate::journal::{Journal, Location};

/// A webhook listener bound to its address, recording in a journal.
#[derive(Debug)]
pub struct Webhook {
    socket: TcpListener,
    listener: Listener,
    addr: SocketAddr,
}

impl Webhook {
    /// Binds `addr` for notifications checked with `key` and recorded in `journal`.
    pub async fn bind(addr: SocketAddr, key: Key, journal: Journal) -> Result<Webhook, Error> {
        let socket = clientbank_bank::webhook::bind(addr).await?;
        let addr = socket.local_addr().unwrap_or(addr);
        let listener = Listener::new(key, Arc::new(Mutex::new(journal)));
        Ok(Webhook {
            socket,
            listener,
            addr,
        })
    }

    /// `clientbank webhook`: the listener of the folder `dir`, recording in its journal, on
    /// `addr` (default: `addr` of the [webhook] table). Refused without an address, or when
    /// `dir` is not a folder.
    pub async fn of_folder(
        dir: &Path,
        settings: &Settings,
        addr: Option<SocketAddr>,
    ) -> Result<Webhook, Error> {
        let Some(addr) = addr.or_else(|| settings.webhook.as_ref().map(|w| w.addr)) else {
            return Err(Error::Usage(Message::new(
                "no address to listen on: give --addr (e.g. 127.0.0.1:8091) or `addr` in the \
                 [webhook] table of clientbank.toml",
                "не указан адрес для приёма уведомлений: укажите --addr (например, \
                 127.0.0.1:8091) или `addr` в таблице [webhook] файла clientbank.toml",
            )));
        };
        let key = settings.webhook_key()?;
        if !dir.is_dir() {
            let shown = dir.display();
            return Err(Error::Usage(tr!(
                "{shown} does not exist or is not a folder: give the exchange folder whose \
                 journal records the notifications (--dir)" ;
                "{shown} не существует или не папка: укажите папку обмена, в журнал которой \
                 записываются уведомления (--dir)"
            )));
        }
        let (journal, _) = open_journal(&Layout::new(dir), settings.journal.as_ref(), false)?;
        Webhook::bind(addr, key, journal).await
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves notifications until `shutdown` completes ([`Listener::serve`]).
    pub async fn serve(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        self.listener.serve(self.socket, shutdown).await
    }
}

/// The daemon's listener, when the settings have a [webhook] table: on its own connection to
/// the journal at `journal`, telling `new_operations` of each new operation, until `stop` is notified.
pub(crate) async fn beside_daemon(
    settings: &Settings,
    journal: &Location,
    new_operations: UnboundedSender<NewOperation>,
    stop: Arc<tokio::sync::Notify>,
) -> Result<Option<tokio::task::JoinHandle<()>>, Error> {
    let Some(config) = &settings.webhook else {
        return Ok(None);
    };
    let key = settings.webhook_key()?;
    let journal = Journal::open_at(journal, false)?;
    let mut webhook = Webhook::bind(config.addr, key, journal).await?;
    webhook.listener = webhook.listener.on_new(new_operations);
    let addr = webhook.addr;
    tracing::info!(%addr, "webhook listener");
    if !addr.ip().is_loopback() {
        let said = Message::new(
            "the webhook listener speaks plain HTTP on an address that is not loopback: put an \
             HTTPS reverse proxy in front of it",
            "приём вебхуков работает по HTTP без шифрования на адресе не из loopback: \
             поставьте перед ним обратный прокси с HTTPS",
        );
        say!(warn, said, %addr);
    }
    Ok(Some(tokio::spawn(async move {
        let shutdown = async move { stop.notified().await };
        if let Err(e) = webhook.serve(shutdown).await {
            say!(
                error,
                tr!("the webhook listener stopped: {}" , clientbank_diagnostic::os::Ru(&e); "приём вебхуков остановлен: {e}")
            );
        }
    })))
}
