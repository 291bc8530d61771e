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
use clientbank_payment::clock::today_in_moscow;
use serde::Serialize;

use crate::config::{Settings, Signing};
use crate::engine::{Begun, Engine, Sent, Verdict, content_hash};
use crate::folders::{Claimer, Layout, move_into, rename_no_replace, unique_name};
use crate::journal::{Journal, file_state, payment_state as ps};
use crate::{Error, drop, report};

/// How the daemon is opened.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Start a new journal although the folders show earlier use (the files of processing/
    /// then go to review/, their state unknown).
    pub new_journal: bool,
    /// Check dates as of this day (default: today in Moscow).
    pub today: Option<NaiveDate>,
}

/// What a run did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Files moved to done/.
    pub done: Vec<String>,
    /// Files moved to rejected/.
    pub rejected: Vec<String>,
    /// Files moved to review/.
    pub review: Vec<String>,
    /// Files still in processing/ (the bank did not take them yet).
    pub waiting: Vec<String>,
    /// Inbox files that could not be opened.
    pub unreadable: Vec<String>,
    /// Payments uploaded.
    pub uploaded: usize,
    /// Payments not sent because they are already at the bank.
    pub already: usize,
    /// Payments the bank refused.
    pub refused: usize,
    /// Payments in doubt.
    pub doubt: usize,
    /// Payments signed.
    pub signed: usize,
    /// Signatures that failed or were refused.
    pub sign_failures: Vec<String>,
    /// The bank refused the token.
    pub token_refused: Option<String>,
    /// The bank was unavailable (maintenance, no connection).
    pub bank_unavailable: Option<String>,
}

impl Summary {
    /// Whether anything needs a person: a rejected file, one in review, a refused signature,
    /// a file that could not be read.
    pub fn needs_attention(&self) -> bool {
        !self.rejected.is_empty()
            || !self.review.is_empty()
            || !self.sign_failures.is_empty()
            || !self.unreadable.is_empty()
    }
}

/// Creates the folders and takes the per-DIR lock: one daemon per DIR.
fn lock(layout: &Layout) -> Result<fs::File, Error> {
    let path = layout.root.join(".clientbank").join("lock");
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::Io(format!("cannot open {}: {e}", path.display())))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(fs::TryLockError::WouldBlock) => Err(Error::Busy(format!(
            "another clientbank watch is running on {} (it holds {}); one daemon per folder",
            layout.root.display(),
            path.display()
        ))),
        Err(fs::TryLockError::Error(e)) => {
            Err(Error::Io(format!("cannot lock {}: {e}", path.display())))
        }
    }
}

/// Opens the journal of `layout`: created on first use; refused when it is missing although
/// the folders show earlier use, unless `new_journal`; refused when damaged.
pub fn open_journal(layout: &Layout, new_journal: bool) -> Result<(Journal, bool), Error> {
    let path = layout.journal();
    let fresh = !path.exists();
    if fresh && layout.used() && !new_journal {
        return Err(Error::JournalMissing(format!(
            "the journal {} is missing, but {} shows earlier use (files in processing/, done/, \
             rejected/ or review/). clientbank does not start afresh by itself: a new journal \
             would not know which payments are already at the bank. Restore the journal (with \
             its -wal file) from a backup; or check the files of processing/ and review/ at \
             the bank and start with `clientbank watch {} --new-journal` (the files of \
             processing/ then go to review/)",
            path.display(),
            layout.root.display(),
            layout.root.display()
        )));
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| Error::Io(format!("cannot create {}: {e}", parent.display())))?;
    }
    Ok((Journal::open(&path, true)?, fresh))
}

/// The daemon over one DIR.
pub struct Daemon {
    layout: Layout,
    /// The engine (journal, settings, bank).
    pub engine: Engine,
    claimer: Claimer,
    waiting: HashMap<String, (Instant, Duration)>,
    unmoved: HashMap<String, i64>,
    token_refused: Option<Instant>,
    next_settle: Option<Instant>,
    settling: usize,
    today: Option<NaiveDate>,
    /// What the run did so far.
    pub summary: Summary,
    config_stamp: Option<SystemTime>,
    sign_leftovers: bool,
    reload: Option<Box<dyn Fn() -> Result<Settings, Error> + Send>>,
    _lock: fs::File,
}

impl std::fmt::Debug for Daemon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Daemon")
            .field("dir", &self.layout.root)
            .finish_non_exhaustive()
    }
}

fn stamp(path: Option<&PathBuf>) -> Option<SystemTime> {
    path.and_then(|p| fs::metadata(p).ok())
        .and_then(|m| m.modified().ok())
}

impl Daemon {
    /// Opens DIR: creates the folders, takes the lock, opens (or creates) the journal, and
    /// settles what an earlier run left: payments being sent are in doubt (their files go to
    /// review/), files whose move was interrupted are moved.
    pub fn open(dir: &Path, settings: Settings, options: Options) -> Result<Daemon, Error> {
        let layout = Layout::new(dir);
        layout.create().map_err(|e| Error::Io(e.to_string()))?;
        let lock = lock(&layout)?;
        let (journal, fresh) = open_journal(&layout, options.new_journal)?;
        let config_stamp = stamp(settings.file.as_ref());
        for warning in &settings.warnings {
            tracing::warn!("{warning}");
        }
        let mut daemon = Daemon {
            layout,
            engine: Engine::new(journal, settings),
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
            reload: None,
            _lock: lock,
        };
        if fresh && options.new_journal {
            daemon.quarantine_processing()?;
        }
        daemon.recover()?;
        Ok(daemon)
    }

    /// The folders.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The flag that stops the daemon between payments (SIGINT/SIGTERM set it).
    pub fn stop_flag(&self) -> Arc<std::sync::atomic::AtomicBool> {
        self.engine.stop.clone()
    }

    /// How to read the configuration again when its file changes (or after a refused token).
    pub fn set_reloader(&mut self, reload: Box<dyn Fn() -> Result<Settings, Error> + Send>) {
        self.reload = Some(reload);
    }

    /// With a new journal, the files of processing/ have an unknown past: review/.
    fn quarantine_processing(&mut self) -> Result<(), Error> {
        for name in self.layout.files("processing") {
            let from = self.layout.folder("processing").join(&name);
            let review = self.layout.folder("review");
            let moved = move_into(&from, &review, &name)
                .map_err(|e| Error::Io(format!("cannot move {}: {e}", from.display())))?;
            let text = format!(
                "{moved} was in processing/ when the journal was started anew: whether its \
                 payments reached the bank is not known. Check them at the bank (the \
                 cabinet, or the account's history), then put the file back in the inbox \
                 only if they are not there.\n"
            );
            let _ = fs::write(review.join(format!("{moved}.review.txt")), text);
            tracing::warn!(file = %moved, "journal started anew: file moved to review/");
        }
        Ok(())
    }

    fn recover(&mut self) -> Result<(), Error> {
        let sending = self.engine.journal.payments_in(ps::SENDING)?;
        if !sending.is_empty() {
            let outcomes: Vec<_> = sending
                .iter()
                .map(|r| {
                    (
                        r.id,
                        crate::journal::Outcome {
                            state: ps::DOUBT,
                            message: Some(
                                "clientbank stopped while this payment was being sent: it may \
                                 or may not be at the bank"
                                    .into(),
                            ),
                            ..Default::default()
                        },
                    )
                })
                .collect();
            self.engine.journal.record(&outcomes, &[])?;
            tracing::warn!(
                count = outcomes.len(),
                "payments found in flight at start: in doubt, never re-sent"
            );
        }
        for file in self.engine.journal.files_in(file_state::PROCESSING)? {
            if !self.layout.path_of(&file.place).exists() {
                let message = format!(
                    "{} was no longer in processing/ at start; its payments stay as recorded",
                    file.place
                );
                self.engine
                    .journal
                    .set_file(file.id, "missing", "", Some(&message))?;
                self.engine.journal.event(Some(&file.name), &message)?;
                tracing::error!("{message}");
                continue;
            }
            if self.engine.verdict(file.id)? == Verdict::Review {
                self.finish(
                    file.id,
                    &file.name,
                    Verdict::Review,
                    Some("clientbank stopped while sending this file's payments."),
                )?;
            }
        }
        for state in [file_state::DONE, file_state::REJECTED, file_state::REVIEW] {
            for file in self.engine.journal.files_in(state)? {
                let target = self.layout.path_of(&file.place);
                let source = self.layout.folder("processing").join(&file.name);
                if !target.exists() && source.exists() {
                    self.complete_move(file.id)?;
                }
            }
        }
        Ok(())
    }

    fn today(&self) -> NaiveDate {
        self.today.unwrap_or_else(today_in_moscow)
    }

    /// One look at the folders: claims complete inbox files, processes the files of
    /// processing/ that are due, signs when the policy is `auto`.
    pub async fn pass(&mut self) -> Result<(), Error> {
        self.maybe_reload();
        let inbox = self.layout.folder("inbox");
        let settings = self.engine.settings.clone();
        let scan = self
            .claimer
            .scan(&inbox, settings.settle, |n| settings.takes(n));
        self.next_settle = scan.next;
        self.settling = scan.settling;
        for (name, why) in &self.claimer.reported {
            if !self.summary.unreadable.contains(name) {
                tracing::error!(file = %name, "cannot open the inbox file: {why}");
                self.summary.unreadable.push(name.clone());
            }
        }
        for name in scan.complete {
            self.claim(&name);
        }
        let unmoved: Vec<(String, i64)> = self.unmoved.drain().collect();
        for (_, file_id) in unmoved {
            self.complete_move(file_id)?;
        }
        let now = Instant::now();
        let token_blocked = self
            .token_refused
            .is_some_and(|at| now < at + self.engine.settings.token_retry);
        if !token_blocked {
            for name in self.layout.files("processing") {
                if self.engine.stop.load(Ordering::SeqCst) {
                    break;
                }
                if self.unmoved.contains_key(&name) {
                    continue;
                }
                if self.waiting.get(&name).is_some_and(|(due, _)| *due > now) {
                    continue;
                }
                self.process(&name).await?;
                if self.token_refused.is_some_and(|at| at >= now) {
                    break;
                }
            }
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
        Ok(())
    }

    async fn sign_now(&mut self, file: Option<i64>) {
        match self.engine.sign_file(file, None, false).await {
            Ok(groups) => {
                for group in groups {
                    if group.signed {
                        self.summary.signed += group.ids.len();
                    } else {
                        self.summary.sign_failures.push(format!(
                            "{}: {}",
                            group.company.label(),
                            group.result
                        ));
                    }
                }
            }
            Err(e) => {
                tracing::warn!("signing did not run: {e}");
                self.summary.sign_failures.push(e.to_string());
            }
        }
    }

    fn maybe_reload(&mut self) {
        let Some(reload) = &self.reload else { return };
        let now = stamp(self.engine.settings.file.as_ref());
        if now == self.config_stamp {
            return;
        }
        self.config_stamp = now;
        match reload() {
            Ok(settings) => {
                tracing::info!("configuration changed: read again");
                for warning in &settings.warnings {
                    tracing::warn!("{warning}");
                }
                self.engine.set_settings(settings);
                if self.token_refused.take().is_some() {
                    self.summary.token_refused = None;
                }
                self.sign_leftovers = true;
            }
            Err(e) => tracing::error!("the changed configuration is not used: {e}"),
        }
    }

    /// Moves a complete inbox file to processing/ (a failed rename — on Windows, a file its
    /// writer still holds open — means "not complete yet").
    fn claim(&mut self, name: &str) {
        let from = self.layout.folder("inbox").join(name);
        match move_into(&from, &self.layout.folder("processing"), name) {
            Ok(claimed) => {
                self.claimer.forget(name);
                tracing::info!(file = %claimed, "claimed");
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => self.claimer.forget(name),
            Err(e) => tracing::debug!(file = %name, "not claimed yet: {e}"),
        }
    }

    fn backoff(&mut self, name: &str) -> Duration {
        let settings = &self.engine.settings;
        let delay = match self.waiting.get(name) {
            Some((_, last)) => (*last * 2).min(settings.retry_max),
            None => settings.retry_min,
        };
        self.waiting
            .insert(name.to_string(), (Instant::now() + delay, delay));
        delay
    }

    /// Processes one file of processing/: reads and checks it, records the intents, sends,
    /// and moves it to where its payments say.
    pub async fn process(&mut self, name: &str) -> Result<(), Error> {
        let place = Layout::place("processing", name);
        let path = self.layout.path_of(&place);
        let bytes = match read_limited(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let message = format!("{place} vanished before it was read: nothing was sent");
                tracing::warn!("{message}");
                self.engine.journal.event(Some(name), &message)?;
                self.waiting.remove(name);
                return Ok(());
            }
            Err(e) => {
                let text = format!("error: cannot read {name}: {e}\n");
                return self.reject_whole(name, "", &text);
            }
        };
        let hash = content_hash(&bytes);
        let drop = drop::read(Path::new(name), &bytes, self.today());
        let (file_id, route) = match self.engine.journal.processing_file(&place)? {
            Some(row) if row.hash != hash => {
                self.finish(
                    row.id,
                    name,
                    Verdict::Review,
                    Some("the file changed while it was in processing/: its new content is not sent."),
                )?;
                return Ok(());
            }
            Some(row) => {
                let route = if row.route.as_deref() == Some("1c") {
                    "1c"
                } else {
                    "json"
                };
                (row.id, route)
            }
            None => {
                if drop.has_errors {
                    tracing::warn!(file = %name, errors = drop.errors, "rejected: error findings, nothing sent");
                    return self.reject_whole(name, &hash, &drop.errors_text);
                }
                match self.engine.begin(name, &place, &hash, &drop).await {
                    Ok(Begun::Recorded { file_id, route }) => (file_id, route),
                    Ok(Begun::CannotRoute(reason)) => {
                        let text = format!("{}error: {reason}\n", drop.errors_text);
                        return self.reject_whole(name, &hash, &text);
                    }
                    Err(e) => return self.journal_failed(name, e),
                }
            }
        };
        let sent = match self.engine.send(file_id, &drop, route).await {
            Ok(sent) => sent,
            Err(Error::Config(e)) => return Err(Error::Config(e)),
            Err(e) => return self.journal_failed(name, e),
        };
        match sent {
            Sent::NotTaken(why) => {
                let delay = self.backoff(name);
                tracing::warn!(file = %name, "the bank did not take it ({why}); it waits in processing/, next try in {delay:?}");
                self.summary.bank_unavailable = Some(why);
                return Ok(());
            }
            Sent::TokenRefused(why) => {
                tracing::error!(
                    "the bank refuses the token ({why}): uploads stop; files wait in \
                     processing/; tried again in {:?} or when the configuration changes",
                    self.engine.settings.token_retry
                );
                let _ = self.engine.journal.event(Some(name), &why);
                self.summary.token_refused = Some(why);
                self.token_refused = Some(Instant::now());
                return Ok(());
            }
            Sent::Interrupted => return Ok(()),
            Sent::Finished => {}
        }
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
            self.finish(file_id, name, verdict, None)?;
        }
        Ok(())
    }

    /// A journal write failed (a full disk): nothing more is sent; the file waits.
    fn journal_failed(&mut self, name: &str, e: Error) -> Result<(), Error> {
        let delay = self.backoff(name);
        tracing::error!(
            file = %name,
            "the journal cannot be written ({e}): nothing of the file is sent; it waits in \
             processing/ (next try in {delay:?})"
        );
        self.summary
            .bank_unavailable
            .get_or_insert_with(|| format!("journal: {e}"));
        Ok(())
    }

    fn reject_whole(&mut self, name: &str, hash: &str, text: &str) -> Result<(), Error> {
        let rejected = self.layout.folder("rejected");
        let new_name = unique_name(&rejected, name);
        let place = Layout::place("rejected", &new_name);
        let id =
            match self
                .engine
                .journal
                .record_file(name, hash, &place, file_state::REJECTED, text)
            {
                Ok(id) => id,
                Err(e) => return self.journal_failed(name, e),
            };
        self.waiting.remove(name);
        self.complete_move(id)
    }

    /// Records where a file goes and moves it there, with what is written beside it.
    fn finish(
        &mut self,
        file_id: i64,
        name: &str,
        verdict: Verdict,
        why: Option<&str>,
    ) -> Result<(), Error> {
        let (folder, state) = match verdict {
            Verdict::Done => ("done", file_state::DONE),
            Verdict::Rejected => ("rejected", file_state::REJECTED),
            Verdict::Review | Verdict::Pending => ("review", file_state::REVIEW),
        };
        let new_name = unique_name(&self.layout.folder(folder), name);
        let place = Layout::place(folder, &new_name);
        self.engine.journal.set_file(file_id, state, &place, why)?;
        self.complete_move(file_id)
    }

    /// Writes the sidecars of a finished file and moves it from processing/ to its place. A
    /// failure (a read-only folder) leaves it in processing/, tried again on the next pass.
    fn complete_move(&mut self, file_id: i64) -> Result<(), Error> {
        let Some(file) = self.engine.journal.file(file_id)? else {
            return Ok(());
        };
        let rows = self.engine.journal.payments_of(file_id)?;
        let target = self.layout.path_of(&file.place);
        let final_name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let folder = target.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut sidecars: Vec<(String, Vec<u8>)> = Vec::new();
        match file.state.as_str() {
            file_state::DONE => {
                sidecars.push((format!("{final_name}.report.csv"), report::csv(&rows)));
            }
            file_state::REJECTED => {
                let text = if rows.is_empty() {
                    file.message.clone().unwrap_or_default()
                } else {
                    report::refusals(&final_name, &rows)
                };
                sidecars.push((format!("{final_name}.errors.txt"), text.into_bytes()));
                if !rows.is_empty() {
                    sidecars.push((format!("{final_name}.report.csv"), report::csv(&rows)));
                }
            }
            _ => {
                let text = report::review(&final_name, file.message.as_deref(), &rows);
                sidecars.push((format!("{final_name}.review.txt"), text.into_bytes()));
            }
        }
        let source = self.layout.folder("processing").join(&file.name);
        let moved = sidecars
            .iter()
            .try_for_each(|(name, bytes)| fs::write(folder.join(name), bytes))
            .and_then(|()| {
                if target.exists() && !source.exists() {
                    Ok(())
                } else {
                    rename_no_replace(&source, &target)
                }
            });
        match moved {
            Ok(()) => {
                let counts = |state: &str| rows.iter().filter(|r| r.state == state).count();
                self.summary.uploaded += counts(ps::UPLOADED);
                self.summary.already += counts(ps::ALREADY);
                self.summary.refused += counts(ps::REFUSED);
                self.summary.doubt += counts(ps::DOUBT);
                let list = match file.state.as_str() {
                    file_state::DONE => &mut self.summary.done,
                    file_state::REJECTED => &mut self.summary.rejected,
                    _ => &mut self.summary.review,
                };
                list.push(final_name.clone());
                tracing::info!(file = %file.name, to = %file.place, "moved");
                if file.state != file_state::DONE {
                    let _ = self.engine.journal.event(
                        Some(&final_name),
                        &format!("{} → {}", file.name, file.place),
                    );
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound && !source.exists() => {
                let message = format!(
                    "processing/{} vanished before it could be moved to {}",
                    file.name, file.place
                );
                tracing::error!("{message}");
                self.engine.journal.event(Some(&file.name), &message)?;
            }
            Err(e) => {
                let message = format!(
                    "cannot move processing/{} to {}: {e}; it stays in processing/ and is \
                     moved when that is possible",
                    file.name, file.place
                );
                tracing::error!("{message}");
                let _ = self.engine.journal.event(Some(&file.name), &message);
                self.unmoved.insert(file.name.clone(), file_id);
            }
        }
        Ok(())
    }

    /// Processes what is in the inbox and processing/, then returns: waits for inbox files to
    /// settle, retries files the bank did not take for up to `once_patience`.
    pub async fn run_once(&mut self) -> Result<Summary, Error> {
        let started = Instant::now();
        loop {
            self.pass().await?;
            if self.engine.stop.load(Ordering::SeqCst) {
                break;
            }
            let pending = self.layout.files("processing");
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
        Ok(self.finish_summary())
    }

    fn finish_summary(&mut self) -> Summary {
        self.summary.waiting = self.layout.files("processing");
        let mut summary = self.summary.clone();
        summary.unreadable.sort();
        summary.unreadable.dedup();
        summary
    }

    /// Runs until `shutdown` completes: file events are hints, the rescan every
    /// `poll_interval` is the truth. A shutdown finishes the payment in flight, records it and
    /// returns.
    pub async fn run(
        &mut self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<Summary, Error> {
        let wake = Arc::new(tokio::sync::Notify::new());
        let stop = self.engine.stop.clone();
        let on_stop = wake.clone();
        tokio::spawn(async move {
            shutdown.await;
            stop.store(true, Ordering::SeqCst);
            on_stop.notify_one();
        });
        let on_event = wake.clone();
        // The debouncer's thread wakes every tick: 200 ms keeps an idle daemon near zero CPU.
        let watcher = notify_debouncer_full::new_debouncer(
            Duration::from_millis(200),
            Some(Duration::from_millis(200)),
            move |_: notify_debouncer_full::DebounceEventResult| on_event.notify_one(),
        )
        .and_then(|mut debouncer| {
            debouncer.watch(
                self.layout.folder("inbox"),
                notify_debouncer_full::notify::RecursiveMode::NonRecursive,
            )?;
            Ok(debouncer)
        });
        let _watcher = match watcher {
            Ok(watcher) => Some(watcher),
            Err(e) => {
                tracing::warn!(
                    "no file events ({e}): the inbox is rescanned every {:?}",
                    self.engine.settings.poll_interval
                );
                None
            }
        };
        tracing::info!(dir = %self.layout.root.display(), "watching");
        loop {
            self.pass().await?;
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
            let wait = wake_at
                .saturating_duration_since(now)
                .max(Duration::from_millis(10));
            tokio::select! {
                _ = wake.notified() => {}
                _ = tokio::time::sleep(wait) => {}
            }
            if self.engine.stop.load(Ordering::SeqCst) {
                break;
            }
        }
        tracing::info!("stopped");
        Ok(self.finish_summary())
    }
}

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
