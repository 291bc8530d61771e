//! The daemon: claims complete files of `DIR/inbox`, moves them through `processing/` to
//! `done/`, `rejected/` or `review/`, and signs what awaits signature when the policy says so.

use std::collections::HashMap;
use std::fs;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

use chrono::NaiveDate;
use clientbank_format::{Message, say, tr};
use clientbank_payment::clock::today_in_moscow;

use crate::engine::{Engine, Intake, Processed, Sent, Verdict, content_hash};
use crate::folders::{Claimer, Folder, Layout, move_into, rename_no_replace, unique_name};
use crate::journal::NewFile;
use crate::lock::{DirLock, Holder};
use crate::state::{FileState, PaymentState};
use crate::{Error, drop, report};
use clientbank_bank::config::{Settings, Signing};

mod endings;
mod held;
pub(crate) mod open;
mod recover;
mod serve;
mod statements;
mod summary;

pub use summary::{FileEnd, PaymentCounts, Summary};

pub use open::open_journal;
pub use serve::{Reloader, Serving, keep_command_line};

use recover::unreadable_names;

/// How the daemon is opened.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Start a new journal although the folders show earlier use (the files of processing/
    /// then go to review/, their state unknown).
    pub new_journal: bool,
    /// Check dates as of this day (default: today in Moscow).
    pub today: Option<NaiveDate>,
}

/// The daemon over one DIR.
pub struct Daemon {
    layout: Layout,
    /// The engine (journal, settings, bank): [`Daemon::engine`] outside the crate.
    pub(crate) engine: Engine,
    claimer: Claimer,
    waiting: HashMap<String, (Instant, Duration)>,
    unmoved: HashMap<String, i64>,
    token_refused: Option<Instant>,
    next_settle: Option<Instant>,
    settling: usize,
    today: Option<NaiveDate>,
    /// What the run did so far.
    pub summary: Summary,
    config_stamp: [Option<SystemTime>; 2],
    sign_leftovers: bool,
    reload: Option<Reloader>,
    interrupted: Vec<String>,
    /// Payments `[notify]` was told of as awaiting their signature too long.
    told_unsigned: std::collections::HashSet<i64>,
    move_failures: HashMap<i64, (Instant, String)>,
    /// When the outbox statement is due again (`None`: now).
    next_statement: Option<Instant>,
    /// The last error making DIR's folders, said once.
    folder_problem: Option<String>,
    /// Whether the bank's last answer was a failure, for the metrics.
    bank: std::sync::Arc<crate::metrics::BankHealth>,
    /// One of a [`crate::fleet::Fleet`]'s daemons: the fleet speaks to systemd, not each.
    in_fleet: bool,
    /// A fleet's daemon: woken by the fleet's watcher of every inbox, not a watcher of its own.
    fleet_wake: Option<Arc<tokio::sync::Notify>>,
}

debug_shows!(Daemon { dir: layout.root });

fn stamp(path: Option<&PathBuf>) -> Option<SystemTime> {
    path.and_then(|p| fs::metadata(p).ok())
        .and_then(|m| m.modified().ok())
}

/// When the configuration file and the token file were last changed: a change of either reads
/// the configuration again (a token put right in its file is taken at once).
fn config_stamps(settings: &Settings) -> [Option<SystemTime>; 2] {
    [
        stamp(settings.file.as_ref()),
        stamp(settings.token_file.as_ref()),
    ]
}

impl Daemon {
    /// Opens DIR: creates the folders, takes the lock, opens (or creates) the journal, and
    /// settles what an earlier run left: payments being sent are in doubt (their files go to
    /// review/), files whose move was interrupted are moved.
    pub fn open(dir: &Path, settings: Settings, options: Options) -> Result<Daemon, Error> {
        let layout = Layout::new(dir);
        layout.create()?;
        // PostgreSQL: owned through its lease there (network file systems may not keep locks).
        let shared = settings.journal.clone();
        let lock = match shared {
            Some(_) => None,
            None => Some(DirLock::acquire(&layout, Holder::Daemon, Duration::ZERO)?),
        };
        if options.new_journal && !crate::journal::exists_in(&layout) {
            unreadable_names(&layout)?;
        }
        let (mut journal, fresh) = open_journal(&layout, shared.as_ref(), options.new_journal)?;
        // Before anything is touched: recovery below moves what another daemon left in flight.
        journal.take_lease(&crate::journal::owner_id(), dir)?;
        let config_stamp = config_stamps(&settings);
        for warning in &settings.warnings {
            say!(warn, warning);
        }
        let engine = Engine::new(journal, settings);
        engine.check_bank()?;
        let mut daemon = Daemon {
            layout,
            engine,
            claimer: Claimer::default(),
            waiting: HashMap::new(),
            unmoved: HashMap::new(),
            token_refused: None,
            next_settle: None,
            settling: 0,
            today: options.today,
            summary: Summary::default(),
            config_stamp,
            sign_leftovers: true,
            told_unsigned: std::collections::HashSet::new(),
            reload: None,
            interrupted: Vec::new(),
            move_failures: HashMap::new(),
            next_statement: None,
            folder_problem: None,
            bank: Default::default(),
            in_fleet: false,
            fleet_wake: None,
        };
        daemon.engine.lock = lock;
        if fresh && options.new_journal {
            daemon.quarantine_processing()?;
            let seeded = daemon.seed()?;
            say!(warn, seeded);
            daemon.summary.journal_seeded = Some(seeded);
        }
        daemon.recover()?;
        Ok(daemon)
    }

    /// Makes this daemon one of a fleet's: it sends systemd nothing (the fleet does), and is
    /// woken by `wake` (the fleet's one watcher of every inbox) when given, instead of a
    /// watcher of its own (a system gives a process few: Linux 128 by default).
    pub fn in_fleet(&mut self, wake: Option<Arc<tokio::sync::Notify>>) {
        self.in_fleet = true;
        self.fleet_wake = wake;
    }

    /// The folders.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The flag that stops the daemon between payments (SIGINT/SIGTERM set it).
    pub fn stop_flag(&self) -> Arc<std::sync::atomic::AtomicBool> {
        self.engine.stop.clone()
    }

    /// What the metrics say of the bank ([`crate::metrics::serve`]).
    pub fn bank_health(&self) -> std::sync::Arc<crate::metrics::BankHealth> {
        self.bank.clone()
    }

    /// How to read the configuration again when its file changes (or after a refused token).
    pub fn set_reloader(&mut self, reload: Reloader) {
        self.reload = Some(reload);
    }

    /// Whether uploads stop: the bank refused the token less than `token_retry` ago.
    fn token_blocked(&self) -> bool {
        let retry = self.engine.settings.token_retry;
        self.token_refused
            .is_some_and(|at| Instant::now() < at + retry)
    }

    fn today(&self) -> NaiveDate {
        self.today.unwrap_or_else(today_in_moscow)
    }

    /// One look at the folders: claims complete inbox files, processes the files of
    /// processing/ that are due, signs when the policy is `auto`.
    pub async fn pass(&mut self) -> Result<(), Error> {
        // The lock file still ours (D3): else another daemon may work here; stop.
        self.engine.check_lock()?;
        // The journal or its write-ahead log deleted under a running daemon: what it writes
        // would be lost with the deleted file, and a new one would not know what is at the
        // bank. Stop.
        self.engine.journal.check_files()?;
        self.maybe_reload();
        // A folder deleted while the daemon runs is made again: else claims and moves would
        // fail as if the file had vanished, and the inbox would stall without a word.
        match self.layout.restore() {
            Ok(created) if !created.is_empty() => {
                for folder in created {
                    say!(
                        warn,
                        tr!(
                            "{folder}/ was missing (deleted while clientbank ran?): created again" ;
                            "папки {folder}/ не было (удалена во время работы?): создана заново"
                        )
                    );
                }
                self.folder_problem = None;
            }
            Ok(_) => self.folder_problem = None,
            Err(e) => {
                // Said once; the moves that need the folder fail and say so themselves.
                let said = e.message();
                if self.folder_problem.as_deref() != Some(said.en()) {
                    let shown = self.layout.root.display();
                    say!(
                        error,
                        tr!(
                            "the folders of {shown} cannot be made again: {}", said.en() ;
                            "папки в {shown} не удаётся создать заново: {}", said.ru()
                        )
                    );
                    self.folder_problem = Some(said.en().to_string());
                }
            }
        }
        let inbox = self.layout.folder(Folder::Inbox);
        let settings = self.engine.settings.clone();
        let scan = self
            .claimer
            .scan(&inbox, settings.settle, settings.incomplete_after, |n| {
                settings.takes(n)
            });
        self.next_settle = scan.next;
        self.settling = scan.settling;
        for (name, why) in &self.claimer.reported {
            if !self.summary.files(FileEnd::Unreadable).contains(name) {
                let said = tr!(
                    "cannot open the inbox file: {why}" ;
                    "файл во входящих не открывается: {}", why.ru()
                );
                say!(error, said, file = %name);
                self.summary
                    .files_mut(FileEnd::Unreadable)
                    .push(name.clone());
            }
        }
        for name in scan.complete {
            self.claim(&name);
        }
        let unmoved: Vec<(String, i64)> = self.unmoved.drain().collect();
        for (_, file_id) in unmoved {
            self.complete_move(file_id)?;
        }
        self.tell_of_unsigned()?;
        // A file of processing/ deleted, or moved away (back to the inbox), while it waited:
        // its payments are released, so that another copy sends each once.
        for file in self.engine.journal.files_in(FileState::Processing)? {
            if self.vanished(&file) {
                self.release_vanished(&file)?;
            }
        }
        let now = Instant::now();
        // While the bank refuses the token, files are still read: one with errors is rejected
        // (that needs no bank), the others wait (`process`).
        for name in self.layout.files(Folder::Processing) {
            if self.engine.stop.load(Ordering::SeqCst) {
                break;
            }
            if self.unmoved.contains_key(&name) {
                continue;
            }
            if self.waiting.get(&name).is_some_and(|(due, _)| *due > now) {
                continue;
            }
            self.engine.check_lock()?;
            self.process(&name).await?;
            // The other folders of a fleet get their turn between two files of this one.
            tokio::task::yield_now().await;
        }
        // Payments left awaiting signature (a refused or failed signature) are signed again at
        // start and after the configuration changed, not on every pass.
        if self.sign_leftovers
            && self.engine.settings.signing == Signing::Auto
            && self.token_refused.is_none()
            && !self.engine.stop.load(Ordering::SeqCst)
        {
            self.sign_leftovers = false;
            self.sign_now(None).await;
        }
        if self.next_statement.is_none_or(|due| Instant::now() >= due)
            && !self.engine.stop.load(Ordering::SeqCst)
        {
            self.refresh_statement().await?;
        }
        Ok(())
    }

    async fn sign_now(&mut self, file: Option<i64>) {
        // `clientbank sign` may be signing beside the daemon: one signer at a time.
        let signing = crate::lock::DirLock::acquire_signing(&self.layout, Duration::from_secs(10));
        let signed = match signing {
            Ok(_lock) => self.engine.sign_file(file, None, false).await,
            Err(e) => Err(e),
        };
        let groups = match signed {
            Ok(groups) => groups,
            Err(e) => {
                let why = e.message();
                let said =
                    tr!("signing did not run: {}", why.en() ; "подпись не запущена: {}", why.ru());
                say!(warn, said);
                self.summary.sign_failures.push(why);
                return;
            }
        };
        for group in groups {
            if group.result.is_signed() {
                self.summary.payments.signed += group.ids.len();
            } else {
                let label = group.company.label_message();
                let why = group.result.message();
                self.summary.sign_failures.push(Message::new(
                    format!("{}: {}", label.en(), why.en()),
                    format!("{}: {}", label.ru(), why.ru()),
                ));
            }
        }
    }

    fn maybe_reload(&mut self) {
        let Some(reload) = &self.reload else { return };
        let now = config_stamps(&self.engine.settings);
        if now == self.config_stamp {
            return;
        }
        self.config_stamp = now;
        match reload() {
            Ok(settings) => {
                tracing::info!("configuration changed: read again");
                for warning in &settings.warnings {
                    say!(warn, warning);
                }
                self.engine.set_settings(settings);
                if self.token_refused.take().is_some() {
                    self.summary.token_refused = None;
                    self.summary.config_error = None;
                }
                self.sign_leftovers = true;
            }
            Err(e) => {
                let why = e.message();
                say!(
                    error,
                    tr!(
                        "the changed configuration is not used: {}", why.en() ;
                        "изменённые настройки не применены: {}", why.ru()
                    )
                );
            }
        }
    }

    /// Moves a complete inbox file to processing/ (a failed rename — on Windows, a file its
    /// writer still holds open — means "not complete yet").
    fn claim(&mut self, name: &str) {
        let from = self.layout.folder(Folder::Inbox).join(name);
        match move_into(&from, &self.layout.folder(Folder::Processing), name) {
            Ok(claimed) => {
                self.claimer.forget(name);
                tracing::info!(file = %claimed, "claimed");
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => self.claimer.forget(name),
            // Windows: its writer still holds it open (a sharing or lock violation).
            Err(e) if cfg!(windows) && matches!(e.raw_os_error(), Some(32 | 33)) => {
                tracing::debug!(file = %name, "not claimed yet: {e}")
            }
            // Anything else (an inbox this user cannot write, say) lasts: said once, and the
            // summary names the file, which stays in the inbox.
            Err(e) => {
                if !self
                    .summary
                    .files(FileEnd::Unreadable)
                    .iter()
                    .any(|n| n == name)
                {
                    let why = clientbank_diagnostic::os::io_error(&e);
                    say!(
                        error,
                        tr!(
                            "cannot move the inbox file to processing/: {why}; it stays in the \
                             inbox" ;
                            "файл не перенести из входящих в processing/: {}; он остаётся во \
                             входящих", why.ru()
                        ),
                        file = %name
                    );
                    self.summary
                        .files_mut(FileEnd::Unreadable)
                        .push(name.to_string());
                }
            }
        }
    }

    fn backoff(&mut self, name: &str, at_least: Option<Duration>) -> Duration {
        let settings = &self.engine.settings;
        let delay = match self.waiting.get(name) {
            Some((_, last)) => (*last * 2).min(settings.retry_max),
            None => settings.retry_min,
        };
        // The bank's own `Retry-After` (429, 408) is kept, however short our backoff is.
        let delay = at_least.map_or(delay, |after| delay.max(after));
        self.waiting
            .insert(name.to_string(), (Instant::now() + delay, delay));
        delay
    }

    /// Processes one file of processing/: reads and checks it, records the intents, sends,
    /// and moves it to where its payments say.
    pub async fn process(&mut self, name: &str) -> Result<(), Error> {
        let place = Layout::place(Folder::Processing, name);
        let path = self.layout.path_of(&place);
        let stamp_read = file_stamp(&path);
        let bytes = match read_limited(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.waiting.remove(name);
                if let Some(file) = self.engine.journal.processing_file(&place)? {
                    return self.release_vanished(&file);
                }
                let message = Message::new(
                    format!("{place} vanished before it was read: nothing was sent"),
                    format!("{place} исчез до того, как был прочитан: ничего не отправлено"),
                );
                say!(warn, message);
                self.engine.journal.note(Some(name), None, &message)?;
                return Ok(());
            }
            Err(e) => {
                let text = format!("error: cannot read {name}: {e}\n");
                return self.reject_whole(name, "", &text);
            }
        };
        let intake = Intake {
            name,
            place: &place,
            bytes: &bytes,
            today: self.today(),
            resume: true,
            cut_short_after: Some(self.engine.settings.incomplete_after),
            may_send: !self.token_blocked(),
        };
        let processed = match self.engine.process_file(intake).await {
            Ok(processed) => processed,
            Err(e @ (Error::Bank(clientbank_bank::Error::Config(_)) | Error::Busy(_))) => {
                return Err(e);
            }
            Err(e) => return self.journal_failed(name, e),
        };
        let (file_id, sent) = match processed {
            Processed::Rejected { hash, text, errors } => {
                tracing::warn!(file = %name, errors, "rejected: nothing sent");
                return self.reject_whole(name, &hash, &text);
            }
            Processed::Held => return Ok(()),
            Processed::Changed { file_id } => {
                let why = crate::journal::note::both(
                    "the file changed while it was in processing/: its new content is not sent.",
                    "файл изменился, пока лежал в processing/: его новое содержимое не отправлено.",
                );
                return self.finish(file_id, name, Verdict::Review, Some(&why));
            }
            Processed::Sent {
                file_id,
                sent,
                uploaded,
            } => {
                // Counted as they reach the bank, whatever happens to the file next.
                self.summary.payments.uploaded += uploaded;
                (file_id, sent)
            }
        };
        let sent = match sent {
            Ok(sent) => sent,
            Err(e @ (Error::Bank(clientbank_bank::Error::Config(_)) | Error::Busy(_))) => {
                return Err(e);
            }
            Err(e) => return self.journal_failed(name, e),
        };
        if self.held_back(name, sent) {
            return Ok(());
        }
        self.interrupted.retain(|n| n != name);
        if self.token_refused.take().is_some() {
            tracing::info!("the bank takes the token again: uploads go on");
            self.summary.token_refused = None;
        }
        self.waiting.remove(name);
        if self.engine.settings.signing == Signing::Auto && !self.engine.stop.load(Ordering::SeqCst)
        {
            self.sign_now(Some(file_id)).await;
        }
        let verdict = self.engine.verdict(file_id)?;
        if verdict != Verdict::Pending {
            // A writer that still held the file when it was claimed may have added to it
            // since it was read: what it added was not read, so not sent.
            // (A file deleted meanwhile did not change: it is said so when it is moved.)
            if path.exists() && file_stamp(&path) != stamp_read {
                let lines = crate::complete::line_count(&bytes);
                let said = tr!(
                    "{name} changed after it was read (its size or time is not what was read): \
                     it was read up to line {lines}; the payments after line {lines} may not be \
                     sent. Compare the file with the report below, and send what is missing anew." ;
                    "{name} изменился после чтения (его размер или время не те, что были при \
                     чтении): он прочитан до строки {lines}; платежи после строки {lines} \
                     могли не быть отправлены. Сверьте файл с отчётом ниже и отправьте \
                     недостающее заново."
                );
                say!(error, said, file = %name);
                let note = crate::journal::note::both(said.en(), said.ru());
                self.finish(file_id, name, Verdict::Review, Some(&note))?;
                return Ok(());
            }
            self.finish(file_id, name, verdict, None)?;
        }
        Ok(())
    }

    /// Processes what is in the inbox and processing/, then returns: waits for inbox files to
    /// settle, retries files the bank did not take for up to `once_patience`.
    pub async fn run_once(&mut self) -> Result<Summary, Error> {
        let started = Instant::now();
        // The statement is written once, at the end.
        self.next_statement = Some(started + Duration::from_secs(86_400));
        loop {
            self.pass().await?;
            if self.engine.stop.load(Ordering::SeqCst) {
                break;
            }
            let pending = self.layout.files(Folder::Processing);
            let patience_left = started.elapsed() < self.engine.settings.once_patience;
            let unreadable_only =
                self.settling > 0 && self.settling <= self.claimer.reported.len() && !patience_left;
            let settle_wait = self.settling > 0 && !unreadable_only && patience_left;
            let retry_wait = !pending.is_empty() && self.token_refused.is_none() && patience_left;
            if !settle_wait && !retry_wait {
                break;
            }
            let now = Instant::now();
            let mut wake = now + Duration::from_secs(1);
            if let Some(next) = self.next_settle {
                wake = wake.min(next);
            }
            for (due, _) in self.waiting.values() {
                wake = wake.min(*due);
            }
            let wait = wake
                .saturating_duration_since(now)
                .max(Duration::from_millis(20));
            tokio::time::sleep(wait).await;
        }
        // The statement written last, with what this run uploaded and signed.
        if self.engine.settings.statements.is_some() && !self.engine.stop.load(Ordering::SeqCst) {
            self.refresh_statement().await?;
        }
        Ok(self.finish_summary())
    }

    fn finish_summary(&mut self) -> Summary {
        self.summary.files_mut(FileEnd::Waiting).clear();
        self.summary.files_mut(FileEnd::Queued).clear();
        self.summary.files_mut(FileEnd::Interrupted).clear();
        self.summary.files_mut(FileEnd::Unmoved).clear();
        for name in self.layout.files(Folder::Processing) {
            if self.unmoved.contains_key(&name) {
                self.summary.files_mut(FileEnd::Unmoved).push(name);
                continue;
            }
            let place = Layout::place(Folder::Processing, &name);
            let row = self.engine.journal.processing_file(&place).ok().flatten();
            let rows = row
                .map(|r| self.engine.journal.payments_of(r.id).unwrap_or_default())
                .unwrap_or_default();
            if self.interrupted.contains(&name) {
                self.summary.files_mut(FileEnd::Interrupted).push(name);
            } else if !rows.is_empty()
                && rows.iter().any(|r| r.outcome.state == PaymentState::Queued)
                && !rows
                    .iter()
                    .any(|r| r.outcome.state == PaymentState::Planned)
            {
                self.summary.files_mut(FileEnd::Queued).push(name);
            } else {
                self.summary.files_mut(FileEnd::Waiting).push(name);
            }
        }
        let lang = self.engine.settings.lang;
        // The inbox's names with why they wait, or what they are.
        for (end, noted) in [
            (FileEnd::Incomplete, &self.claimer.incomplete),
            (FileEnd::Ignored, &self.claimer.ignored),
        ] {
            let mut names: Vec<String> = noted
                .iter()
                .map(|(name, why)| format!("{name}: {}", why.get(lang)))
                .collect();
            names.sort();
            *self.summary.files_mut(end) = names;
        }
        self.summary.payments.awaiting_signature = self.engine.awaiting_signature();
        let mut summary = self.summary.clone();
        summary.files_mut(FileEnd::Unreadable).sort();
        summary.files_mut(FileEnd::Unreadable).dedup();
        summary
    }

    /// Runs until `shutdown` completes: file events are hints, the rescan every
    /// `poll_interval` is the truth. A shutdown finishes the payment in flight, records it and
    /// returns.
    pub async fn run(
        &mut self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<Summary, Error> {
        let wake = self.fleet_wake.clone().unwrap_or_default();
        let stop = self.engine.stop.clone();
        let on_stop = wake.clone();
        tokio::spawn(async move {
            shutdown.await;
            stop.store(true, Ordering::SeqCst);
            on_stop.notify_one();
        });
        // A fleet's daemon is woken by the fleet's one watcher of every inbox.
        let _watcher = match self.fleet_wake {
            Some(_) => None,
            None => self.watch_inbox(wake.clone()),
        };
        // The webhook listener beside the loop, on its own journal connection: a new operation
        // brings the outbox statement up to date at once.
        let (new_operations, mut arrived) = tokio::sync::mpsc::unbounded_channel();
        let listener_stop = Arc::new(tokio::sync::Notify::new());
        let _listener = crate::webhook::beside_daemon(
            &self.engine.settings,
            self.engine.journal.location(),
            new_operations,
            listener_stop.clone(),
        )
        .await?;
        tracing::info!(dir = %self.layout.root.display(), "watching");
        let service = if self.in_fleet {
            crate::service::Service::default()
        } else {
            crate::service::Service::from_env()
        };
        service.ready();
        loop {
            self.pass().await?;
            service.alive();
            if self.engine.stop.load(Ordering::SeqCst) {
                break;
            }
            let now = Instant::now();
            let mut wake_at = now + self.engine.settings.poll_interval;
            if let Some(next) = self.next_settle {
                wake_at = wake_at.min(next);
            }
            for (due, _) in self.waiting.values() {
                wake_at = wake_at.min(*due);
            }
            if let Some(at) = self.token_refused {
                wake_at = wake_at.min(at + self.engine.settings.token_retry);
            }
            if let Some(at) = self.next_statement {
                wake_at = wake_at.min(at);
            }
            let wait = service.cap(
                wake_at
                    .saturating_duration_since(now)
                    .max(Duration::from_millis(10)),
            );
            tokio::select! {
                _ = wake.notified() => {}
                _ = tokio::time::sleep(wait) => {}
                Some(new) = arrived.recv() => {
                    tracing::info!(account = %new.account, operation = %new.operation_id, "a new operation");
                    if self.engine.settings.statements.is_some() {
                        self.statement_due();
                    }
                }
            }
            if self.engine.stop.load(Ordering::SeqCst) {
                break;
            }
        }
        listener_stop.notify_one();
        service.stopping();
        tracing::info!("stopped");
        Ok(self.finish_summary())
    }
}

impl Daemon {
    /// File events of the inbox wake `wake`; `None` (said) when the system gives none.
    fn watch_inbox(
        &self,
        wake: Arc<tokio::sync::Notify>,
    ) -> Option<
        notify_debouncer_full::Debouncer<
            notify_debouncer_full::notify::RecommendedWatcher,
            notify_debouncer_full::RecommendedCache,
        >,
    > {
        // The debouncer's thread wakes every tick: 200 ms keeps an idle daemon near zero CPU.
        let watcher = notify_debouncer_full::new_debouncer(
            Duration::from_millis(200),
            Some(Duration::from_millis(200)),
            move |_: notify_debouncer_full::DebounceEventResult| wake.notify_one(),
        )
        .and_then(|mut debouncer| {
            debouncer.watch(
                self.layout.folder(Folder::Inbox),
                notify_debouncer_full::notify::RecursiveMode::NonRecursive,
            )?;
            Ok(debouncer)
        });
        match watcher {
            Ok(watcher) => Some(watcher),
            Err(e) => {
                let every = clientbank_diagnostic::duration(self.engine.settings.poll_interval);
                say!(
                    warn,
                    tr!(
                        "no file events ({e}): the inbox is rescanned every {every}" ;
                        "события файловой системы недоступны ({}): входящие просматриваются \
                         каждые {}", clientbank_diagnostic::os::Ru(&e), every.ru()
                    )
                );
                None
            }
        }
    }
}

/// A file's size and modification time, to tell whether it changed since it was read.
fn file_stamp(path: &Path) -> Option<(u64, Option<SystemTime>)> {
    fs::metadata(path)
        .ok()
        .map(|m| (m.len(), m.modified().ok()))
}

/// How often a move that keeps failing is logged again.
const MOVE_LOG_EVERY: Duration = Duration::from_secs(60);

/// The largest drop read (a payment file is kilobytes; a bigger one is no payment file).
pub const MAX_DROP: u64 = 64 * 1024 * 1024;

fn read_limited(path: &Path) -> io::Result<Vec<u8>> {
    let meta = fs::metadata(path)?;
    if meta.len() > MAX_DROP {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "it is {} bytes, more than the {} MiB a payment file may be",
                meta.len(),
                MAX_DROP / 1024 / 1024
            ),
        ));
    }
    fs::read(path)
}
