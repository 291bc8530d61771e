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
use crate::engine::{Engine, Intake, Processed, Sent, Verdict, content_hash};
use crate::folders::{Claimer, Folder, Layout, move_into, rename_no_replace, unique_name};
use crate::journal::{Journal, NewFile};
use crate::lock::{DirLock, Holder};
use crate::state::{FileState, PaymentState};
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
    /// Files still in processing/ because the bank did not take them yet (or the journal
    /// could not be written).
    pub waiting: Vec<String>,
    /// Files in processing/ whose payments wait for the same payments in another file that
    /// waits for the bank (sent once, from that file).
    pub queued: Vec<String>,
    /// Files in processing/ stopped part-way by SIGINT/SIGTERM: the rest is sent on the next
    /// start.
    pub interrupted: Vec<String>,
    /// Inbox files that could not be opened.
    pub unreadable: Vec<String>,
    /// Inbox files not complete yet (no `КонецФайла`, a section left open, JSON that stops
    /// early), with why: they wait.
    pub incomplete: Vec<String>,
    /// Inbox names that are no regular file (a symlink, a FIFO, a folder): ignored.
    pub ignored: Vec<String>,
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
    /// Files of processing/ whose payments are all answered but that cannot be moved to their
    /// folder (done/ read-only, say): the log says why; moved when that is possible.
    pub unmoved: Vec<String>,
    /// The bank refused the token.
    pub token_refused: Option<String>,
    /// The configuration kept requests from being made (nothing was sent).
    pub config_error: Option<String>,
    /// A new journal was started and seeded from done/, review/ and rejected/: what it learnt.
    pub journal_seeded: Option<String>,
    /// The bank was unavailable (maintenance, no connection).
    pub bank_unavailable: Option<String>,
    /// The journal could not be written (a full disk, a read-only file): nothing was sent.
    pub journal_error: Option<String>,
    /// The last statement written to outbox/: its place and what it holds (in JSON, English).
    #[serde(serialize_with = "english")]
    pub statement: Option<clientbank_format::Message>,
    /// Why the last statement could not be written, if it could not.
    pub statement_error: Option<String>,
}

/// A message in JSON: its English text.
fn english<S: serde::Serializer>(
    message: &Option<clientbank_format::Message>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match message {
        Some(message) => serializer.serialize_some(message.en()),
        None => serializer.serialize_none(),
    }
}

impl Summary {
    /// Whether anything needs a person: a rejected file, one in review, a refused signature,
    /// a file that could not be read.
    pub fn needs_attention(&self) -> bool {
        !self.rejected.is_empty()
            || !self.review.is_empty()
            || !self.sign_failures.is_empty()
            || !self.unreadable.is_empty()
            || !self.unmoved.is_empty()
    }
}

/// Opens the journal of `layout`: created on first use; refused when it is missing although
/// the folders show earlier use, unless `new_journal`; refused when damaged.
pub fn open_journal(layout: &Layout, new_journal: bool) -> Result<(Journal, bool), Error> {
    let path = layout.journal();
    let fresh = !path.exists();
    if fresh && layout.used() && !new_journal {
        let (shown, root) = (path.display(), layout.root.display());
        let quoted = report::shell_quote(&root.to_string());
        return Err(Error::JournalMissing(clientbank_format::Message::new(
            format!(
                "the journal {shown} is missing, but {root} shows earlier use (files in \
                 processing/, done/, rejected/ or review/). clientbank does not start afresh by \
                 itself: a new journal would not know which payments are already at the bank. \
                 Restore the journal (with its -wal file) from a backup; or check the files of \
                 processing/, review/ and rejected/ at the bank and start with `clientbank \
                 watch {quoted} --new-journal` (the files of processing/ then go to review/; the \
                 new journal is seeded from done/, review/ and the reports of rejected/)"
            ),
            format!(
                "журнала {shown} нет, а папка {root} уже использовалась (есть файлы в \
                 processing/, done/, rejected/ или review/). clientbank не начинает с чистого \
                 листа сам: новый журнал не знал бы, какие платежи уже в банке. Восстановите \
                 журнал (вместе с файлом -wal) из резервной копии; или проверьте в банке файлы \
                 processing/, review/ и rejected/ и запустите `clientbank watch {quoted} \
                 --new-journal` (файлы processing/ уйдут в review/; новый журнал узнает \
                 done/, review/ и отчёты rejected/)"
            ),
        )));
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .map_err(Error::io(format!("cannot create {}", parent.display())))?;
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
    interrupted: Vec<String>,
    /// Payments `[notify]` was told of as awaiting their signature too long.
    told_unsigned: std::collections::HashSet<i64>,
    move_failures: HashMap<i64, (Instant, String)>,
    /// When the outbox statement is due again (`None`: now).
    next_statement: Option<Instant>,
    /// The last error making DIR's folders, said once.
    folder_problem: Option<String>,
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
        layout.create().map_err(Error::io(format!(
            "cannot create the folders of {}",
            dir.display()
        )))?;
        let lock = DirLock::acquire(&layout, Holder::Daemon, Duration::ZERO)?;
        if options.new_journal && !layout.journal().exists() {
            unreadable_names(&layout)?;
        }
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
            told_unsigned: std::collections::HashSet::new(),
            reload: None,
            interrupted: Vec::new(),
            move_failures: HashMap::new(),
            next_statement: None,
            folder_problem: None,
        };
        daemon.engine.lock = Some(lock);
        if fresh && options.new_journal {
            daemon.quarantine_processing()?;
            let seeded = daemon.seed()?;
            tracing::warn!("{seeded}");
            daemon.summary.journal_seeded = Some(seeded);
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
        for name in self.layout.files(Folder::Processing) {
            let from = self.layout.folder(Folder::Processing).join(&name);
            let review = self.layout.folder(Folder::Review);
            let moved = move_into(&from, &review, &name)
                .map_err(Error::io(format!("cannot move {}", from.display())))?;
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

    /// A new journal over a used DIR learns what the folders say: each file of done/ (its
    /// content hash, its payments' identities as at the bank, with the ids of its
    /// `FILE.report.csv` where present), of review/ (its payments in doubt) and of rejected/
    /// (the payments its `FILE.report.csv` names at the bank or in doubt: a file the bank
    /// refused a payment of may have had others uploaded). A file dropped again is then not
    /// sent again.
    fn seed(&mut self) -> Result<String, Error> {
        let today = self.today();
        let mut said = Vec::new();
        for (folder, file_state) in [
            (Folder::Done, FileState::Done),
            (Folder::Review, FileState::Review),
            (Folder::Rejected, FileState::Rejected),
        ] {
            let (mut files, mut payments) = (0, 0);
            for name in self.layout.files(folder) {
                let place = Layout::place(folder, &name);
                let path = self.layout.path_of(&place);
                let bytes = match read_limited(&path) {
                    Ok(bytes) => bytes,
                    Err(e) => {
                        tracing::error!(
                            "{place} cannot be read ({e}): the new journal does not know its \
                             payments; check them at the bank"
                        );
                        continue;
                    }
                };
                let drop = drop::read(Path::new(&name), &bytes, today);
                let report = if folder == Folder::Review {
                    Vec::new()
                } else {
                    report_rows(
                        &self
                            .layout
                            .folder(folder)
                            .join(format!("{name}.report.csv")),
                    )
                };
                let rows: Vec<_> = drop
                    .payments
                    .iter()
                    .enumerate()
                    .map(|(position, p)| {
                        let mut row = crate::engine::new_payment(p, None);
                        let line = report.get(position).filter(|line| {
                            clientbank_bank::statement::normalise_number(&line.number)
                                == p.identity.number
                        });
                        row.state = match folder {
                            Folder::Done => PaymentState::Uploaded,
                            Folder::Review => PaymentState::Doubt,
                            // A file with error findings was refused before anything was
                            // sent. One without went to the bank: its report says which
                            // payments are there; a payment the report does not name (or
                            // no report at all) is in doubt, the safe side.
                            _ => match line {
                                Some(line) => {
                                    report::state_of_report_row(line.code.as_deref(), &line.id)
                                }
                                None if drop.has_errors => PaymentState::NotSent,
                                None => PaymentState::Doubt,
                            },
                        };
                        row.bank_id = line
                            .filter(|line| {
                                !line.id.is_empty() && row.state == PaymentState::Uploaded
                            })
                            .map(|line| line.id.clone());
                        if row.state == PaymentState::NotSent {
                            row.message = Some(format!(
                                "not at the bank by {place} (its findings or its report) when \
                                 the journal was started anew"
                            ));
                        }
                        row
                    })
                    .collect();
                let message = format!(
                    "recorded from {place} when the journal was started anew (--new-journal)"
                );
                let file = NewFile {
                    name: &name,
                    hash: &content_hash(&bytes),
                    place: &place,
                };
                payments += self
                    .engine
                    .journal
                    .seed_file(file, file_state, &rows, &message)?;
                files += 1;
            }
            said.push(format!(
                "{folder}/ ({files} file(s), {payments} payment(s) {})",
                match folder {
                    Folder::Done => "recorded as at the bank",
                    Folder::Review => "recorded as in doubt",
                    _ => "recorded as at the bank or in doubt by their reports",
                }
            ));
        }
        Ok(format!(
            "journal started anew: it was seeded from {}; payments of these files dropped again \
             are not sent again",
            said.join(", ")
        ))
    }

    fn recover(&mut self) -> Result<(), Error> {
        let sending = self.engine.journal.payments_in(PaymentState::Sending)?;
        if !sending.is_empty() {
            let outcomes: Vec<_> = sending
                .iter()
                .map(|r| {
                    (
                        r.id,
                        crate::journal::Outcome {
                            state: PaymentState::Doubt,
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
            self.engine.journal.record_outcomes(&outcomes)?;
            tracing::warn!(
                count = outcomes.len(),
                "payments found in flight at start: in doubt, never re-sent"
            );
        }
        for file in self.engine.journal.files_in(FileState::Processing)? {
            if self.vanished(&file) {
                self.release_vanished(&file)?;
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
        for state in [FileState::Done, FileState::Rejected, FileState::Review] {
            for file in self.engine.journal.files_in(state)? {
                let target = self.layout.path_of(&file.place);
                let source = self.layout.folder(Folder::Processing).join(&file.name);
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
                    tracing::warn!(
                        "{folder}/ was missing (deleted while clientbank ran?): created again"
                    );
                }
                self.folder_problem = None;
            }
            Ok(_) => self.folder_problem = None,
            Err(e) => {
                // Said once; the moves that need the folder fail and say so themselves.
                let said = e.to_string();
                if self.folder_problem.as_ref() != Some(&said) {
                    tracing::error!("{said}");
                    self.folder_problem = Some(said);
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
        self.tell_of_unsigned()?;
        // A file of processing/ deleted, or moved away (back to the inbox), while it waited:
        // its payments are released, so that another copy sends each once.
        for file in self.engine.journal.files_in(FileState::Processing)? {
            if self.vanished(&file) {
                self.release_vanished(&file)?;
            }
        }
        let now = Instant::now();
        let token_blocked = self
            .token_refused
            .is_some_and(|at| now < at + self.engine.settings.token_retry);
        if !token_blocked {
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
        if self.next_statement.is_none_or(|due| Instant::now() >= due)
            && !self.engine.stop.load(Ordering::SeqCst)
        {
            self.refresh_statement().await?;
        }
        Ok(())
    }

    /// Asks for the outbox statement to be brought up to date on the next pass (a webhook told
    /// of a new operation).
    pub fn statement_due(&mut self) {
        self.next_statement = None;
    }

    /// Brings `outbox/FILE` up to date, if statements are configured: the journal's operations
    /// of each account synced from the bank's history, the statement of the period (ending
    /// today) written whole and renamed over the old one. The bank unavailable or a balance the
    /// history does not explain is logged and tried again later (the old statement stays);
    /// only a journal failure stops the daemon.
    pub async fn refresh_statement(&mut self) -> Result<(), Error> {
        let Some(config) = self.engine.settings.statements.clone() else {
            self.next_statement = Some(Instant::now() + Duration::from_secs(3600));
            return Ok(());
        };
        let retry = config.interval.min(Duration::from_secs(60));
        match self.write_statement(&config).await {
            Ok(written) => {
                tracing::info!("{}", written.en());
                self.summary.statement = Some(written);
                self.summary.statement_error = None;
                self.engine
                    .journal
                    .forget_topic(crate::last_errors::STATEMENT)?;
                self.next_statement = Some(Instant::now() + config.interval);
                Ok(())
            }
            Err(
                e @ (Error::Journal { .. } | Error::JournalRefused(_) | Error::JournalDamaged(_)),
            ) => Err(e),
            Err(e) => {
                let message = format!("the statement was not brought up to date: {e}");
                tracing::error!("{message}");
                let noted = crate::last_errors::statement_failed(&e);
                let topic = Some(crate::last_errors::STATEMENT);
                self.engine.journal.note(None, topic, &noted)?;
                self.summary.statement_error = Some(message);
                self.next_statement = Some(Instant::now() + retry);
                Ok(())
            }
        }
    }

    async fn write_statement(
        &mut self,
        config: &crate::config::Statements,
    ) -> Result<clientbank_format::Message, Error> {
        use crate::statement;
        let client = self.engine.client()?;
        let today = self.today();
        let from = today - chrono::Duration::days(i64::from(config.days) - 1);
        let period = statement::Period::new(from, today)?;
        let accounts = statement::accounts(&client, &config.accounts).await?;
        let mut parts = Vec::new();
        for account in accounts {
            let journal = &mut self.engine.journal;
            statement::sync(&client, journal, &account, from, today, true).await?;
            let collector = statement::from_journal(journal, account.clone(), period)?;
            let part = match statement::balanced(&client, collector).await {
                // The balance disagrees with what was synced: an operation may have come late
                // to a day already synced, or changed. The whole period once more, then again.
                Err(clientbank_bank::Error::Unbalanced(_)) => {
                    let journal = &mut self.engine.journal;
                    statement::sync(&client, journal, &account, from, today, false).await?;
                    let collector = statement::from_journal(journal, account, period)?;
                    statement::balanced(&client, collector).await?
                }
                other => other?,
            };
            parts.push(part);
        }
        let outbox = self.layout.folder(Folder::Outbox);
        fs::create_dir_all(&outbox)
            .map_err(Error::io(format!("cannot create {}", outbox.display())))?;
        let target = outbox.join(&config.file);
        let now = clientbank_payment::clock::now_in_moscow();
        let journal = &self.engine.journal;
        let written = clientbank_bank::files::replace_atomically(&target, |out| {
            let orders: Option<&dyn clientbank_bank::operations::Orders> = Some(journal);
            statement::write(
                out,
                config.encoding,
                period,
                now,
                &mut parts,
                orders,
                &mut |_| {},
            )
        })?;
        for note in &written.notes {
            tracing::warn!("statement: {}", note.en());
        }
        let place = Layout::place(Folder::Outbox, &config.file);
        let (documents, accounts) = (written.documents, parts.len());
        let (from, till) = (period.from, period.till);
        Ok(clientbank_format::Message::new(
            format!("{place}: {documents} document(s) of {accounts} account(s), {from} to {till}"),
            format!("{place}: документов {documents}, счетов {accounts}, с {from} по {till}"),
        ))
    }

    async fn sign_now(&mut self, file: Option<i64>) {
        // `clientbank sign` may be signing beside the daemon: one signer at a time.
        let _signing = match crate::lock::DirLock::acquire_signing(
            &self.layout,
            std::time::Duration::from_secs(10),
        ) {
            Ok(lock) => lock,
            Err(e) => {
                tracing::warn!("signing did not run: {e}");
                self.summary.sign_failures.push(e.to_string());
                return;
            }
        };
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
                    self.summary.config_error = None;
                }
                self.sign_leftovers = true;
            }
            Err(e) => tracing::error!("the changed configuration is not used: {e}"),
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
            Err(e) => tracing::debug!(file = %name, "not claimed yet: {e}"),
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
                let message = format!("{place} vanished before it was read: nothing was sent");
                tracing::warn!("{message}");
                self.engine.journal.event(Some(name), &message)?;
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
            Processed::Changed { file_id } => {
                let why =
                    "the file changed while it was in processing/: its new content is not sent.";
                return self.finish(file_id, name, Verdict::Review, Some(why));
            }
            Processed::Sent {
                file_id,
                sent,
                uploaded,
            } => {
                // Counted as they reach the bank, whatever happens to the file next.
                self.summary.uploaded += uploaded;
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
        match sent {
            Sent::NotTaken { why, retry_after } => {
                let delay = self.backoff(name, retry_after);
                tracing::warn!(file = %name, "the bank did not take it ({why}); it waits in processing/, next try in {delay:?}");
                self.summary.bank_unavailable = Some(why);
                return Ok(());
            }
            Sent::Misconfigured(why) => {
                tracing::error!(
                    "the configuration keeps requests from being made ({why}): nothing was \
                     sent; uploads stop, files wait in processing/; tried again in {:?} or when \
                     the configuration changes",
                    self.engine.settings.token_retry
                );
                let _ = self.engine.journal.event(Some(name), &why);
                self.summary.config_error = Some(why);
                self.token_refused = Some(Instant::now());
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
            Sent::Interrupted => {
                if !self.interrupted.iter().any(|n| n == name) {
                    self.interrupted.push(name.to_string());
                }
                return Ok(());
            }
            Sent::Finished => {}
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
                let note = format!(
                    "{name} changed after it was read (its size or time is not what was read): \
                     it was read up to line {}; the payments after line {} may not be sent. \
                     Compare the file with the report below, and send what is missing anew.",
                    crate::complete::line_count(&bytes),
                    crate::complete::line_count(&bytes)
                );
                tracing::error!(file = %name, "{note}");
                self.finish(file_id, name, Verdict::Review, Some(&note))?;
                return Ok(());
            }
            self.finish(file_id, name, verdict, None)?;
        }
        Ok(())
    }

    /// Tells `[notify]` once of the payments that have awaited their signature longer than
    /// `signature_after` (each payment once while the daemon runs).
    fn tell_of_unsigned(&mut self) -> Result<(), Error> {
        let Some(notify) = self.engine.settings.notify.clone() else {
            return Ok(());
        };
        let limit = chrono::Utc::now().naive_utc()
            - chrono::Duration::from_std(notify.signature_after).unwrap_or_default();
        let late: Vec<_> = self
            .engine
            .journal
            .awaiting_signature()?
            .into_iter()
            .filter(|r| !self.told_unsigned.contains(&r.id))
            .filter(|r| {
                r.uploaded_at.as_deref().is_some_and(|at| {
                    chrono::NaiveDateTime::parse_from_str(at, "%Y-%m-%dT%H:%M:%SZ")
                        .is_ok_and(|at| at < limit)
                })
            })
            .collect();
        if late.is_empty() {
            return Ok(());
        }
        self.told_unsigned.extend(late.iter().map(|r| r.id));
        crate::notify::tell(
            &notify,
            &serde_json::json!({
                "event": "awaiting-signature",
                "dir": self.layout.root.display().to_string(),
                "longer_than_seconds": notify.signature_after.as_secs(),
                "payments": late.iter().map(|r| serde_json::json!({
                    "number": r.number, "date": r.date, "sum": r.sum,
                    "recipient": r.recipient, "id": r.bank_id,
                    "company": r.company, "uploaded_at": r.uploaded_at,
                })).collect::<Vec<_>>(),
            }),
        );
        Ok(())
    }

    /// Whether the journal's file of processing/ is gone from there (deleted, or moved away by
    /// hand). Files `clientbank upload` recorded where they lie are not the daemon's.
    fn vanished(&self, file: &crate::journal::FileRow) -> bool {
        file.place.starts_with("processing/") && !self.layout.path_of(&file.place).exists()
    }

    /// Releases the payments of a file that vanished from processing/ while they waited: those
    /// never sent are `not-sent` (another copy of the file sends each once); one being sent is
    /// in doubt. With payments in doubt the file's record goes to review/ with a note saying
    /// which (for `clientbank resolve`, though the file itself is gone); else it is closed.
    fn release_vanished(&mut self, file: &crate::journal::FileRow) -> Result<(), Error> {
        let journal = &mut self.engine.journal;
        let rows = journal.payments_of(file.id)?;
        let place = &file.place;
        let outcome = |state: PaymentState, message: String| crate::journal::Outcome {
            state,
            message: Some(message),
            ..Default::default()
        };
        let released: Vec<_> = rows
            .iter()
            .filter_map(|r| match r.state {
                PaymentState::Planned | PaymentState::Queued | PaymentState::Held => Some((
                    r.id,
                    outcome(
                        PaymentState::NotSent,
                        format!(
                            "not sent: {place} vanished before this payment was sent; from \
                             another file it is sent once"
                        ),
                    ),
                )),
                PaymentState::Sending => Some((
                    r.id,
                    outcome(
                        PaymentState::Doubt,
                        format!(
                            "{place} vanished while this payment was being sent: it may or may \
                             not be at the bank"
                        ),
                    ),
                )),
                _ => None,
            })
            .collect();
        journal.record_outcomes(&released)?;
        let rows = journal.payments_of(file.id)?;
        let doubt = rows.iter().filter(|r| r.state.in_doubt()).count();
        let not_sent = rows
            .iter()
            .filter(|r| r.state == PaymentState::NotSent)
            .count();
        let message = format!(
            "{place} vanished (deleted or moved away) while its payments waited: {not_sent} not \
             sent (a copy dropped again sends them once){}",
            if doubt > 0 {
                format!("; {doubt} in doubt: see review/{}.review.txt", file.name)
            } else {
                String::new()
            }
        );
        if doubt > 0 {
            let review = self.layout.folder(Folder::Review);
            let note = report::review(&self.layout.root, &file.name, Some(&message), &rows);
            fs::write(review.join(format!("{}.review.txt", file.name)), note)
                .map_err(Error::io("cannot write the review note"))?;
            let review_place = Layout::place(Folder::Review, &file.name);
            journal.set_file(file.id, FileState::Review, &review_place, Some(&message))?;
            self.summary.review.push(file.name.clone());
        } else {
            journal.set_file(file.id, FileState::Missing, "", Some(&message))?;
        }
        journal.event(Some(&file.name), &message)?;
        tracing::error!(file = %file.name, "{message}");
        self.waiting.remove(&file.name);
        Ok(())
    }

    /// A journal write failed (a full disk): nothing more is sent; the file waits.
    fn journal_failed(&mut self, name: &str, e: Error) -> Result<(), Error> {
        let delay = self.backoff(name, None);
        // Reading still works on a full disk: how many of the file's payments the bank has.
        let place = Layout::place(Folder::Processing, name);
        let uploaded = self
            .engine
            .journal
            .processing_file(&place)
            .ok()
            .flatten()
            .and_then(|file| {
                let journal = &self.engine.journal;
                journal.count_of(file.id, PaymentState::Uploaded).ok()
            })
            .unwrap_or(0);
        let said = format!(
            "the journal cannot be written ({e}): nothing more of {name} is sent; {uploaded} of \
             its payments reached the bank before and stay recorded (one being sent when the \
             write failed is in doubt, never sent again)"
        );
        tracing::error!(file = %name, "{said}; it waits in processing/ (next try in {delay:?})");
        self.summary.journal_error.get_or_insert(said);
        Ok(())
    }

    fn reject_whole(&mut self, name: &str, hash: &str, text: &str) -> Result<(), Error> {
        let rejected = self.layout.folder(Folder::Rejected);
        let new_name = unique_name(&rejected, name);
        let place = Layout::place(Folder::Rejected, &new_name);
        let id =
            match self
                .engine
                .journal
                .record_file(name, hash, &place, FileState::Rejected, text)
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
            Verdict::Done => (Folder::Done, FileState::Done),
            Verdict::Rejected => (Folder::Rejected, FileState::Rejected),
            Verdict::Review | Verdict::Pending => (Folder::Review, FileState::Review),
        };
        let new_name = unique_name(&self.layout.folder(folder), name);
        let place = Layout::place(folder, &new_name);
        if folder != Folder::Done {
            self.engine.journal.close_planned(
                file_id,
                &format!("not sent: the file went to {folder}/ before this payment was sent"),
            )?;
        }
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
        match file.state {
            FileState::Done => {
                sidecars.push((format!("{final_name}.report.csv"), report::csv(&rows)));
            }
            FileState::Rejected => {
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
                let text = report::review(
                    &self.layout.root,
                    &final_name,
                    file.message.as_deref(),
                    &rows,
                );
                sidecars.push((format!("{final_name}.review.txt"), text.into_bytes()));
            }
        }
        let source = self.layout.folder(Folder::Processing).join(&file.name);
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
                if self.move_failures.remove(&file_id).is_some() {
                    tracing::info!(file = %file.name, to = %file.place, "moved at last");
                }
                let counts = |state: PaymentState| rows.iter().filter(|r| r.state == state).count();
                self.summary.already += counts(PaymentState::Already);
                self.summary.refused += counts(PaymentState::Refused);
                self.summary.doubt += counts(PaymentState::Doubt);
                let list = match file.state {
                    FileState::Done => &mut self.summary.done,
                    FileState::Rejected => &mut self.summary.rejected,
                    _ => &mut self.summary.review,
                };
                list.push(final_name.clone());
                tracing::info!(file = %file.name, to = %file.place, "moved");
                if file.state == FileState::Done {
                    let _ = crate::last_errors::forget_fixed(
                        &mut self.engine.journal,
                        &file.name,
                        &final_name,
                    );
                } else {
                    let _ = self.engine.journal.note(
                        Some(&final_name),
                        None,
                        &crate::last_errors::moved_to(&file.place),
                    );
                    if let Some(notify) = &self.engine.settings.notify {
                        let note = if file.state == FileState::Rejected {
                            "errors.txt"
                        } else {
                            "review.txt"
                        };
                        crate::notify::tell(
                            notify,
                            &serde_json::json!({
                                "event": file.state.as_str(),
                                "dir": self.layout.root.display().to_string(),
                                "file": final_name,
                                "place": file.place,
                                "note": format!("{}.{note}", file.place),
                                "reason": file.message,
                                "payments": rows.iter().map(|r| serde_json::json!({
                                    "number": r.number, "date": r.date, "sum": r.sum,
                                    "recipient": r.recipient, "state": r.state.as_str(),
                                    "message": r.message,
                                })).collect::<Vec<_>>(),
                            }),
                        );
                    }
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
                // Tried again on every pass: a repeated failure is logged once, then at most
                // once a minute.
                let now = Instant::now();
                let repeated = self.move_failures.get(&file_id).is_some_and(|(at, said)| {
                    *said == message && now.duration_since(*at) < MOVE_LOG_EVERY
                });
                if !repeated {
                    tracing::error!("{message}");
                    let _ = self.engine.journal.event(Some(&file.name), &message);
                    self.move_failures.insert(file_id, (now, message));
                }
                self.unmoved.insert(file.name.clone(), file_id);
            }
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
        self.summary.waiting.clear();
        self.summary.queued.clear();
        self.summary.interrupted.clear();
        self.summary.unmoved.clear();
        for name in self.layout.files(Folder::Processing) {
            if self.unmoved.contains_key(&name) {
                self.summary.unmoved.push(name);
                continue;
            }
            let place = Layout::place(Folder::Processing, &name);
            let row = self.engine.journal.processing_file(&place).ok().flatten();
            let rows = row
                .map(|r| self.engine.journal.payments_of(r.id).unwrap_or_default())
                .unwrap_or_default();
            if self.interrupted.contains(&name) {
                self.summary.interrupted.push(name);
            } else if !rows.is_empty()
                && rows.iter().any(|r| r.state == PaymentState::Queued)
                && !rows.iter().any(|r| r.state == PaymentState::Planned)
            {
                self.summary.queued.push(name);
            } else {
                self.summary.waiting.push(name);
            }
        }
        self.summary.incomplete = self
            .claimer
            .incomplete
            .iter()
            .map(|(name, why)| format!("{name}: {why}"))
            .collect();
        self.summary.incomplete.sort();
        self.summary.ignored = self
            .claimer
            .ignored
            .iter()
            .map(|(name, kind)| format!("{name}: {kind}"))
            .collect();
        self.summary.ignored.sort();
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
                self.layout.folder(Folder::Inbox),
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
        // The webhook listener beside the loop, on its own journal connection: a new operation
        // brings the outbox statement up to date at once.
        let (new_operations, mut arrived) = tokio::sync::mpsc::unbounded_channel();
        let listener_stop = Arc::new(tokio::sync::Notify::new());
        let _listener = match self.engine.settings.webhook.clone() {
            Some(config) => {
                let key = self.engine.settings.webhook_key()?;
                let journal = Journal::open(&self.layout.journal(), false)?;
                let socket = crate::webhook::bind(config.addr).await?;
                let addr = socket.local_addr().unwrap_or(config.addr);
                tracing::info!(%addr, "webhook listener");
                if !addr.ip().is_loopback() {
                    tracing::warn!(
                        %addr,
                        "the webhook listener speaks plain HTTP on an address that is not \
                         loopback: put an HTTPS reverse proxy in front of it"
                    );
                }
                let listener =
                    crate::webhook::Listener::new(key, Arc::new(std::sync::Mutex::new(journal)))
                        .on_new(new_operations);
                let stop = listener_stop.clone();
                Some(tokio::spawn(async move {
                    let shutdown = async move { stop.notified().await };
                    if let Err(e) = listener.serve(socket, shutdown).await {
                        tracing::error!("the webhook listener stopped: {e}");
                    }
                }))
            }
            None => {
                drop(new_operations);
                None
            }
        };
        tracing::info!(dir = %self.layout.root.display(), "watching");
        let service = crate::service::Service::from_env();
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

/// A journal started anew learns processing/, done/, review/ and rejected/ by their files'
/// names: one it cannot read (not valid Unicode) would be left out, and its payments sent
/// again. Refused before anything is made, with the names to fix.
fn unreadable_names(layout: &Layout) -> Result<(), Error> {
    let mut names = Vec::new();
    for folder in Folder::USED {
        let Ok(entries) = fs::read_dir(layout.folder(folder)) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            if name.to_str().is_none() {
                names.push(format!("{folder}/{}", name.to_string_lossy()));
            }
        }
    }
    if names.is_empty() {
        return Ok(());
    }
    let names = names.join(", ");
    Err(Error::Usage(clientbank_format::Message::new(
        format!(
            "a new journal learns the folders by their files, and these names are not valid \
             Unicode (a share mounted without its character set?): {names}. Rename them, then \
             start with --new-journal again"
        ),
        format!(
            "новый журнал узнаёт папки по их файлам, а эти имена — не в Юникоде (сетевая папка \
             подключена без кодировки?): {names}. Переименуйте их и снова запустите с \
             --new-journal"
        ),
    )))
}

/// A row of a `FILE.report.csv`: what a journal started anew reads of it.
struct ReportRow {
    number: String,
    id: String,
    /// The machine-readable state code ([`crate::state::Standing::code`]); none in a report
    /// written before codes were.
    code: Option<String>,
}

/// The rows of a `FILE.report.csv`, in file order; empty when it cannot be read.
fn report_rows(path: &Path) -> Vec<ReportRow> {
    let bytes = fs::read(path).unwrap_or_default();
    report::read_csv(&bytes)
        .into_iter()
        .map(|(number, id, code)| ReportRow { number, id, code })
        .collect()
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
