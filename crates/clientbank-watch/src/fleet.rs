//! Many exchange folders served by one process (issue 20): a bureau keeping the books of many
//! companies, each with its own folder, configuration, token, signer, journal and lock.
//!
//! [`Fleet`] runs one [`Daemon`] per folder, each as its own tokio task, so isolation and
//! fairness come by construction: a folder whose configuration is broken, whose token the bank
//! refuses, whose disk is full or whose bank fails stops only its own task (a folder that
//! cannot be opened is said and tried again every [`Fleet::retry`]), and a folder with
//! thousands of files yields between them, so a folder with one is not kept waiting behind it.
//! The folders are named ([`Fleet::dir`]) or found under a root ([`Fleet::root`]: every direct
//! subfolder holding a `clientbank.toml`), looked at again every [`Fleet::rescan`]: folders
//! added are started, folders removed are stopped (the payment in flight finished first).

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use notify_debouncer_full::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache};
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;
use tracing::Instrument;

use crate::folders::Folder;
use crate::{Daemon, Error, Options, Summary};
use clientbank_bank::config::{ProcessEnv, Settings};
use clientbank_format::{Message, say, tr};

/// Reads a folder's settings (its `clientbank.toml`, then what the caller adds): called when
/// the folder is started and again when its configuration file changes.
pub type Loader = Arc<dyn Fn(&Path) -> Result<Settings, Error> + Send + Sync>;

/// The configuration file that makes a subfolder of a root an exchange folder.
pub use clientbank_bank::config::CONFIG_FILE;

/// What one folder's daemon did, or why it could not run.
#[derive(Debug)]
pub struct FolderRun {
    /// The folder.
    pub dir: PathBuf,
    /// Its run's summary, or why it could not be opened or stopped.
    pub outcome: Result<Summary, Error>,
}

/// One daemon per folder, as tokio tasks of one process.
#[derive(Clone)]
pub struct Fleet {
    dirs: Vec<PathBuf>,
    root: Option<PathBuf>,
    load: Loader,
    options: Options,
    rescan: Duration,
    retry: Duration,
}

debug_shows!(Fleet { dirs, root });

/// The fleet's [`Loader`]: each folder's configuration and the environment, with what the
/// command line set over it (`fixed`; its bank when `bank`: [`crate::daemon::keep_command_line`]).
pub fn loader(fixed: Settings, bank: bool) -> Loader {
    Arc::new(move |dir: &Path| {
        let mut settings = Settings::load(dir, None, &ProcessEnv)?;
        crate::daemon::keep_command_line(&mut settings, &fixed, bank);
        Ok(settings)
    })
}

/// [`folders_under`] `root`, or why the root cannot be read (for people).
pub fn folders_under_root(root: &Path) -> Result<Vec<PathBuf>, Error> {
    let shown = root.display();
    folders_under(root).map_err(Error::io(tr!(
        "cannot read the root {shown}" ;
        "не удалось прочитать корневую папку {shown}"
    )))
}

/// The direct subfolders of `root` that hold a [`CONFIG_FILE`] (hidden ones left out), sorted.
pub fn folders_under(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(root)? {
        let path = entry?.path();
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if !hidden && path.is_dir() && path.join(CONFIG_FILE).is_file() {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// A folder's name in the log: its last component (the whole path when it has none).
fn label(dir: &Path) -> String {
    dir.file_name()
        .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into())
}

impl Fleet {
    /// A fleet of no folder yet, reading each folder's settings with `load`.
    pub fn new(load: Loader) -> Fleet {
        Fleet {
            dirs: Vec::new(),
            root: None,
            load,
            options: Options::default(),
            rescan: Duration::from_secs(5),
            retry: Duration::from_secs(60),
        }
    }

    /// Serves `dir` (whether or not it holds a `clientbank.toml`).
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Fleet {
        self.dirs.push(dir.into());
        self
    }

    /// Serves every direct subfolder of `root` holding a `clientbank.toml`, found again at
    /// every rescan.
    pub fn root(mut self, root: impl Into<PathBuf>) -> Fleet {
        self.root = Some(root.into());
        self
    }

    /// The options every daemon is opened with.
    pub fn options(mut self, options: Options) -> Fleet {
        self.options = options;
        self
    }

    /// How often the root is looked at again (default 5 s).
    pub fn rescan(mut self, every: Duration) -> Fleet {
        self.rescan = every;
        self
    }

    /// How long a folder that could not be opened (or whose daemon stopped on an error) waits
    /// before it is tried again (default 60 s).
    pub fn retry(mut self, after: Duration) -> Fleet {
        self.retry = after;
        self
    }

    /// The folders served now: those named, then those under the root. `None` when the root
    /// cannot be read (the folders running then go on).
    pub fn folders(&self) -> Option<Vec<PathBuf>> {
        let mut all = self.dirs.clone();
        if let Some(root) = &self.root {
            match folders_under(root) {
                Ok(found) => all.extend(found.into_iter().filter(|d| !self.dirs.contains(d))),
                Err(e) => {
                    let shown = root.display();
                    say!(
                        error,
                        tr!(
                            "cannot read the root {shown}: {e}" ;
                            "не удалось прочитать корневую папку {shown}: {}"
                        , clientbank_diagnostic::os::Ru(&e))
                    );
                    return None;
                }
            }
        }
        Some(all)
    }

    /// Processes every folder once, all at the same time (each as `watch --once` would), and
    /// returns what each did, in the order of [`Fleet::folders`].
    pub async fn run_once(&self) -> Vec<FolderRun> {
        let handles: Vec<_> = self
            .folders()
            .unwrap_or_default()
            .into_iter()
            .map(|dir| {
                let (_, stop) = watch::channel(false);
                (dir.clone(), self.start(dir, true, stop, None))
            })
            .collect();
        let mut runs = Vec::new();
        for (dir, handle) in handles {
            runs.push(joined(dir, handle.await));
        }
        runs
    }

    fn start(
        &self,
        dir: PathBuf,
        once: bool,
        stop: watch::Receiver<bool>,
        events: Option<Arc<Events>>,
    ) -> JoinHandle<FolderRun> {
        let span = tracing::info_span!("folder", folder = %label(&dir));
        let (load, options) = (self.load.clone(), self.options.clone());
        let serving = serve(dir, load, options, once, stop, events);
        tokio::spawn(serving.instrument(span))
    }

    /// Serves the folders until `shutdown` completes, then stops every daemon (each finishes
    /// the payment in flight) and returns what each did since it was last started.
    pub async fn run(&self, shutdown: impl Future<Output = ()> + Send + 'static) -> Vec<FolderRun> {
        let mut members: HashMap<PathBuf, Member> = HashMap::new();
        let mut failed: HashMap<PathBuf, Failed> = HashMap::new();
        let mut stopped = Vec::new();
        let service = crate::service::Service::from_env();
        let mut ready = false;
        let events = Events::new();
        tokio::pin!(shutdown);
        loop {
            if let Some(wanted) = self.folders() {
                self.leave(&wanted, &mut members, &mut failed, &mut stopped)
                    .await;
                for dir in wanted {
                    let due = failed
                        .get(&dir)
                        .is_none_or(|f| Instant::now() >= f.retry_at);
                    if !members.contains_key(&dir) && due {
                        let (tell, stop) = watch::channel(false);
                        let handle = self.start(dir.clone(), false, stop, events.clone());
                        members.insert(dir, Member { handle, tell });
                    }
                }
            }
            if !ready {
                service.ready();
                ready = true;
            }
            service.alive();
            tokio::select! {
                () = &mut shutdown => break,
                () = tokio::time::sleep(service.cap(self.rescan)) => {}
            }
            self.reap(&mut members, &mut failed).await;
        }
        let n = members.len();
        say!(
            info,
            tr!("stopping {n} folder(s)" ; "останавливаю папки: {n}")
        );
        for member in members.values() {
            let _ = member.tell.send(true);
        }
        for (dir, member) in members {
            stopped.push(joined(dir, member.handle.await));
        }
        service.stopping();
        stopped
    }

    /// Runs the fleet as [`Fleet::run`] does, as a task of its own: [`Running::stop`] ends it.
    pub fn spawn(&self) -> Running {
        let (tell, told) = tokio::sync::oneshot::channel::<()>();
        let fleet = self.clone();
        let task = tokio::spawn(async move {
            fleet
                .run(async move {
                    let _ = told.await;
                })
                .await
        });
        Running { tell, task }
    }

    /// Stops the folders no longer wanted (removed from the root, or their configuration gone).
    async fn leave(
        &self,
        wanted: &[PathBuf],
        members: &mut HashMap<PathBuf, Member>,
        failed: &mut HashMap<PathBuf, Failed>,
        stopped: &mut Vec<FolderRun>,
    ) {
        failed.retain(|dir, _| wanted.contains(dir));
        let gone: Vec<PathBuf> = members
            .keys()
            .filter(|dir| !wanted.contains(dir))
            .cloned()
            .collect();
        for dir in gone {
            if let Some(member) = members.remove(&dir) {
                tracing::info!(folder = %label(&dir), "no longer served (removed, or its clientbank.toml is gone): stopping it");
                let _ = member.tell.send(true);
                stopped.push(joined(dir, member.handle.await));
            }
        }
    }

    /// Takes the tasks that ended on their own (an error: said, and tried again later).
    async fn reap(
        &self,
        members: &mut HashMap<PathBuf, Member>,
        failed: &mut HashMap<PathBuf, Failed>,
    ) {
        let ended: Vec<PathBuf> = members
            .iter()
            .filter(|(_, m)| m.handle.is_finished())
            .map(|(dir, _)| dir.clone())
            .collect();
        for dir in ended {
            let Some(member) = members.remove(&dir) else {
                continue;
            };
            let run = joined(dir.clone(), member.handle.await);
            let why = match &run.outcome {
                Ok(_) => Message::new("it stopped", "она остановилась"),
                Err(e) => e.message(),
            };
            let said = why.en().to_string();
            let again = failed.get(&dir).is_some_and(|f| f.said == said);
            if again {
                tracing::debug!(folder = %label(&dir), "still cannot be served: {said}");
            } else {
                let retry = self.retry;
                let retry = clientbank_diagnostic::duration(retry);
                let (retry_en, retry_ru) = (retry.en(), retry.ru());
                let message = tr!(
                    "this folder is not served ({}); the others go on; tried again in {retry_en}",
                    why.en() ;
                    "эта папка не обслуживается ({}); остальные работают; новая попытка через \
                     {retry_ru}", why.ru()
                );
                say!(error, message, folder = %label(&dir));
            }
            let retry_at = Instant::now() + self.retry;
            failed.insert(dir, Failed { retry_at, said });
        }
    }
}

/// The fleet's one watcher of every inbox (a system gives a process few watchers: Linux 128 by
/// default): an event in a folder's inbox wakes that folder's daemon.
struct Events {
    debouncer: Mutex<Debouncer<RecommendedWatcher, RecommendedCache>>,
    wakes: Arc<Mutex<HashMap<PathBuf, Arc<Notify>>>>,
}

impl Events {
    /// `None` (said) when the system gives no file events: each daemon then watches its own.
    fn new() -> Option<Arc<Events>> {
        let wakes: Arc<Mutex<HashMap<PathBuf, Arc<Notify>>>> = Arc::default();
        let on_event = wakes.clone();
        // The debouncer's thread wakes every tick: 200 ms keeps an idle fleet near zero CPU.
        let debouncer = notify_debouncer_full::new_debouncer(
            Duration::from_millis(200),
            Some(Duration::from_millis(200)),
            move |result: DebounceEventResult| {
                let wakes = on_event.lock().unwrap_or_else(|e| e.into_inner());
                for event in result.unwrap_or_default() {
                    for path in &event.paths {
                        if let Some(wake) = path.parent().and_then(|inbox| wakes.get(inbox)) {
                            wake.notify_one();
                        }
                    }
                }
            },
        );
        match debouncer {
            Ok(debouncer) => Some(Arc::new(Events {
                debouncer: Mutex::new(debouncer),
                wakes,
            })),
            Err(e) => {
                say!(
                    warn,
                    tr!(
                        "no shared watcher of the inboxes ({e}): each folder watches its own" ;
                        "общего наблюдения за входящими нет ({}): каждая папка следит за своими"
                    , clientbank_diagnostic::os::Ru(&e))
                );
                None
            }
        }
    }

    /// Watches `inbox`: the wake of its daemon; `None` when it cannot be watched (the daemon
    /// then watches it itself, or rescans it every `poll_interval`).
    fn watch(&self, inbox: &Path) -> Option<Arc<Notify>> {
        let mut debouncer = self.debouncer.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = debouncer.watch(inbox, RecursiveMode::NonRecursive) {
            tracing::debug!("the shared watcher cannot watch {}: {e}", inbox.display());
            return None;
        }
        let wake = Arc::new(Notify::new());
        let mut wakes = self.wakes.lock().unwrap_or_else(|e| e.into_inner());
        wakes.insert(inbox.to_path_buf(), wake.clone());
        Some(wake)
    }

    fn unwatch(&self, inbox: &Path) {
        let mut debouncer = self.debouncer.lock().unwrap_or_else(|e| e.into_inner());
        let _ = debouncer.unwatch(inbox);
        let mut wakes = self.wakes.lock().unwrap_or_else(|e| e.into_inner());
        wakes.remove(inbox);
    }
}

/// A fleet running as a task ([`Fleet::spawn`]).
#[derive(Debug)]
pub struct Running {
    tell: tokio::sync::oneshot::Sender<()>,
    task: JoinHandle<Vec<FolderRun>>,
}

impl Running {
    /// Stops every folder (each finishing its payment in flight) and returns what each did.
    pub async fn stop(self) -> Vec<FolderRun> {
        let _ = self.tell.send(());
        self.task.await.unwrap_or_default()
    }
}

struct Member {
    handle: JoinHandle<FolderRun>,
    tell: watch::Sender<bool>,
}

struct Failed {
    retry_at: Instant,
    said: String,
}

/// A task's run, or its panic as an error.
fn joined(dir: PathBuf, result: Result<FolderRun, tokio::task::JoinError>) -> FolderRun {
    result.unwrap_or_else(|e| FolderRun {
        outcome: Err(Error::Usage(clientbank_format::Message::new(
            format!("the daemon of {} ended unexpectedly: {e}", dir.display()),
            format!(
                "обработка папки {} неожиданно прервалась: {e}",
                dir.display()
            ),
        ))),
        dir,
    })
}

/// What a daemon standing by for a folder says, once.
pub fn standing_by(leased: &Message) -> Message {
    tr!(
        "standing by until that lease runs out: {}", leased.en() ;
        "ожидание, пока не истечёт эта аренда: {}", leased.ru()
    )
}

/// One folder's daemon ([`serve_daemon`]); with a journal in PostgreSQL, a folder another
/// daemon holds is stood by for, and taken over when that lease runs out, and a daemon whose
/// own lease ran out (paused, cut off) stands by again.
async fn serve(
    dir: PathBuf,
    load: Loader,
    options: Options,
    once: bool,
    mut stop: watch::Receiver<bool>,
    events: Option<Arc<Events>>,
) -> FolderRun {
    let mut waiting = false;
    loop {
        let run = serve_daemon(&dir, &load, &options, once, stop.clone(), &events).await;
        let retry = match &run.outcome {
            Err(Error::Leased { message, retry }) if !once => {
                if !waiting {
                    say!(info, standing_by(message));
                    waiting = true;
                }
                *retry
            }
            Err(e @ Error::LeaseLost(_)) if !once => {
                say!(warn, e.message());
                waiting = false;
                Duration::from_millis(100)
            }
            _ => return run,
        };
        tokio::select! {
            () = tokio::time::sleep(retry) => {}
            _ = stop.wait_for(|stop| *stop) => return run,
        }
    }
}

/// One folder's daemon: its settings read and tried (a configuration that cannot reach a bank,
/// a signer that cannot sign, is refused before the folder is touched), the folder opened,
/// then run once or until told to stop.
async fn serve_daemon(
    dir: &Path,
    load: &Loader,
    options: &Options,
    once: bool,
    mut stop: watch::Receiver<bool>,
    events: &Option<Arc<Events>>,
) -> FolderRun {
    let dir = dir.to_path_buf();
    let options = options.clone();
    let inbox = crate::folders::Layout::new(&dir).folder(Folder::Inbox);
    let opened = load(&dir).and_then(|settings| {
        settings.ready_to_send()?;
        let mut daemon = Daemon::open(&dir, settings, options)?;
        let (reload_dir, reload) = (dir.clone(), load.clone());
        daemon.set_reloader(Box::new(move || reload(&reload_dir)));
        let wake = events.as_ref().and_then(|events| events.watch(&inbox));
        daemon.in_fleet(wake);
        Ok(daemon)
    });
    let mut daemon = match opened {
        Ok(daemon) => daemon,
        Err(e) => {
            return FolderRun {
                dir,
                outcome: Err(e),
            };
        }
    };
    let outcome = if once {
        daemon.run_once().await
    } else {
        let shutdown = async move {
            let _ = stop.wait_for(|stop| *stop).await;
        };
        daemon.run(shutdown).await
    };
    if let Some(events) = &events {
        events.unwatch(&inbox);
    }
    FolderRun { dir, outcome }
}

/// One folder at a glance (`clientbank status --root ROOT`, or several DIRs): files per folder
/// state, payments in doubt, the last error.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Glance {
    /// The folder.
    pub dir: PathBuf,
    /// Files per folder (inbox, processing, done, rejected, review, outbox).
    pub files: std::collections::BTreeMap<String, usize>,
    /// Payments in doubt (or, while a daemon runs, being sent).
    pub in_doubt: usize,
    /// The last error: the folder's configuration when it cannot be read, else the journal's
    /// last error not fixed since (JSON: English).
    #[serde(serialize_with = "english")]
    pub last_error: Option<clientbank_format::Message>,
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

/// Each folder at a glance, in order; a folder that cannot be read says why in its
/// `last_error` (its counts then empty). `load` is the fleet's: a configuration that cannot
/// be read is the folder's last error.
pub fn glance(dirs: &[PathBuf], load: &dyn Fn(&Path) -> Result<Settings, Error>) -> Vec<Glance> {
    dirs.iter()
        .map(|dir| {
            // Read, not tried: a bank address may come from the command line (`--sandbox`).
            let config = load(dir);
            let mut glance = Glance {
                dir: dir.clone(),
                files: Default::default(),
                in_doubt: 0,
                last_error: config.err().map(|e| e.message()),
            };
            match crate::commands::status(dir) {
                Ok(status) => {
                    glance.files = status
                        .folders
                        .iter()
                        .map(|(f, n)| (f.clone(), n.len()))
                        .collect();
                    glance.in_doubt = status.in_doubt();
                    if glance.last_error.is_none() {
                        glance.last_error = status.last_errors.first().map(|e| e.message.clone());
                    }
                }
                Err(e) => {
                    glance.last_error.get_or_insert(e.message());
                }
            }
            glance
        })
        .collect()
}
