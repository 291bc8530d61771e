//! What `clientbank upload`, `status` and `resolve` do, as functions.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::NaiveDate;
use clientbank_diagnostic::os::{self, Act, cannot};
use serde::Serialize;

use crate::daemon::open_journal;
use crate::engine::{Engine, Intake, Processed, Sent, Verdict};
use crate::folders::{Folder, Layout, move_into, shown};
use crate::journal::{Access, Journal, Outcome, PaymentRow, note};
use crate::lock::{DirLock, Holder};
use crate::state::{FileState, PaymentState, Standing};
use crate::{Error, report};
use clientbank_format::{Lang, Message, tr};

mod settle;

pub use settle::{Settlement, resolve, settle};

/// Why a payment queued behind the same payment elsewhere is not sent from this file.
fn not_from_here(row: &PaymentRow) -> String {
    let said = row.outcome.message.as_deref();
    let en = said.map_or("interrupted", |m| note::in_lang(m, Lang::En));
    let ru = said.map_or("прервано", |m| note::in_lang(m, Lang::Ru));
    note::both(
        format!("not sent from here: {en}"),
        format!("отсюда не отправлен: {ru}"),
    )
}

/// One payment of `clientbank upload`'s answer.
#[derive(Clone, Debug, Serialize)]
pub struct PaymentLine {
    /// The file.
    pub file: String,
    /// Number.
    pub number: String,
    /// Date.
    pub date: String,
    /// Sum.
    pub sum: String,
    /// Recipient.
    pub recipient: String,
    /// The bank's id.
    pub id: Option<String>,
    /// The state, for people in English (`--json`).
    pub state: String,
    /// The state in the language of the settings (not in `--json`: `state` is its interface).
    #[serde(skip)]
    pub state_shown: &'static str,
    /// The bank's message or ours.
    pub message: Option<String>,
}

impl PaymentLine {
    fn of(file: &str, row: &PaymentRow, lang: Lang) -> PaymentLine {
        PaymentLine {
            file: file.to_string(),
            number: row.payment.shown_number().to_string(),
            date: row.payment.date.clone(),
            sum: row.payment.sum.clone(),
            recipient: row.payment.recipient.clone(),
            id: row.outcome.bank_id.clone(),
            state: report::state_label(row),
            state_shown: report::state_label_in(row, lang),
            message: row
                .outcome
                .message
                .as_deref()
                .map(|m| note::in_lang(m, lang).to_string()),
        }
    }
}

/// How `clientbank upload` ended for one file (`--json`: the kebab-case name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UploadOutcome {
    /// Every payment uploaded (some may have been at the bank already).
    Uploaded,
    /// Every payment was at the bank already: nothing sent again.
    Already,
    /// Error findings (or a route that cannot carry it): nothing sent.
    Rejected,
    /// The bank refused a payment (the others are reported).
    Refused,
    /// A payment in doubt.
    Review,
    /// Payments waiting in another file of processing/ are not sent from here.
    Held,
    /// The bank took nothing (maintenance, no connection, too many requests).
    Unavailable,
    /// The bank refused the token.
    TokenRefused,
    /// The configuration keeps requests from being made.
    Misconfigured,
    /// Stopped on request between payments.
    Interrupted,
    /// The file could not be read: nothing sent.
    Unreadable,
}

impl UploadOutcome {
    /// Its name, as `--json` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            UploadOutcome::Uploaded => "uploaded",
            UploadOutcome::Already => "already",
            UploadOutcome::Rejected => "rejected",
            UploadOutcome::Refused => "refused",
            UploadOutcome::Review => "review",
            UploadOutcome::Held => "held",
            UploadOutcome::Unavailable => "unavailable",
            UploadOutcome::TokenRefused => "token-refused",
            UploadOutcome::Misconfigured => "misconfigured",
            UploadOutcome::Interrupted => "interrupted",
            UploadOutcome::Unreadable => "unreadable",
        }
    }

    /// What the journal records of the file.
    fn file_state(self) -> FileState {
        match self {
            UploadOutcome::Uploaded | UploadOutcome::Already => FileState::Uploaded,
            UploadOutcome::Refused | UploadOutcome::Rejected => FileState::Rejected,
            UploadOutcome::Review => FileState::Review,
            _ => FileState::NotSent,
        }
    }
}

impl UploadOutcome {
    /// How it ended, for people in `lang`.
    pub fn shown(self, lang: Lang) -> &'static str {
        if lang != Lang::Ru {
            return self.as_str();
        }
        match self {
            UploadOutcome::Uploaded => "загружен",
            UploadOutcome::Already => "всё уже в банке, ничего не отправлено повторно",
            UploadOutcome::Rejected => "отклонён",
            UploadOutcome::Refused => "банк отклонил платёж",
            UploadOutcome::Review => "под сомнением",
            UploadOutcome::Held => "задержан: отсюда не отправлен",
            UploadOutcome::Unavailable => "банк недоступен",
            UploadOutcome::TokenRefused => "банк не принял токен",
            UploadOutcome::Misconfigured => "настройки не позволяют отправить",
            UploadOutcome::Interrupted => "прервано",
            UploadOutcome::Unreadable => "не читается, ничего не отправлено",
        }
    }
}

impl std::fmt::Display for UploadOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `clientbank upload` did with one file.
#[derive(Clone, Debug, Serialize)]
pub struct FileUpload {
    /// The file.
    pub file: String,
    /// How it ended.
    pub outcome: UploadOutcome,
    /// The findings, rendered, when the file was rejected.
    pub findings: Option<String>,
    /// Its payments.
    pub payments: Vec<PaymentLine>,
}

/// How long `upload`, `sign` and `resolve` wait for the DIR lock before they refuse.
pub const LOCK_WAIT: Duration = Duration::from_secs(3);

/// Refuses a DIR that does not exist, or (unless `create_journal`) has no journal; takes the
/// DIR lock (waiting up to [`LOCK_WAIT`]: one process at a time works on a DIR).
fn open_dir(dir: &Path, create_journal: bool, holder: Holder) -> Result<DirLock, Error> {
    check_dir(dir, create_journal)?;
    DirLock::acquire(&Layout::new(dir), holder, LOCK_WAIT)
}

/// Refuses a DIR that does not exist, or (unless `create_journal`) has no journal.
fn check_dir(dir: &Path, create_journal: bool) -> Result<(), Error> {
    usable(dir, !create_journal)?;
    let private = Layout::new(dir).folder(Folder::Private);
    fs::create_dir_all(&private).map_err(Error::io(cannot(Act::Create, private.display())))
}

/// Refuses a DIR that does not exist, or (when `journal`) has no journal: the user gave
/// another folder than the one `clientbank watch` works on.
fn usable(dir: &Path, journal: bool) -> Result<(), Error> {
    crate::folders::not_a_part(dir)?;
    let shown = dir.display();
    if !dir.is_dir() {
        return Err(Error::Usage(clientbank_format::Message::new(
            format!(
                "{shown} does not exist or is not a folder: give the folder `clientbank watch` \
                 works on"
            ),
            format!(
                "{shown} не существует или не папка: укажите папку, с которой работает \
                 `clientbank watch`"
            ),
        )));
    }
    let layout = Layout::new(dir);
    let path = layout.journal();
    // A folder this user cannot read is not a folder without a journal.
    fs::read_dir(dir).map_err(Error::io(cannot(Act::Read, dir.display())))?;
    if journal && !crate::journal::exists_in(&layout) && layout.used() {
        return Err(crate::daemon::open::lost_journal(&layout, &path));
    }
    if journal && !crate::journal::exists_in(&layout) {
        let quoted = report::shell_quote(&shown.to_string());
        let path = path.display();
        return Err(Error::JournalMissing(clientbank_format::Message::new(
            format!(
                "{shown} has no journal ({path}): nothing was uploaded from it; give the folder \
                 `clientbank watch` works on, or run `clientbank watch {quoted}` first"
            ),
            format!(
                "в {shown} нет журнала ({path}): из неё ничего не загружалось; укажите папку, с \
                 которой работает `clientbank watch`, или сначала запустите `clientbank watch \
                 {quoted}`"
            ),
        )));
    }
    Ok(())
}

/// The folder with a journal that `file` lies in (its own folder or one above it): the folder
/// of a `clientbank watch` whose inbox, processing/ or done/ holds it, for instance.
pub fn journal_folder_of(file: &Path) -> Option<PathBuf> {
    let file = fs::canonicalize(file).ok()?;
    file.ancestors()
        .skip(1)
        .find(|folder| crate::journal::exists_in(&Layout::new(folder)))
        .map(Path::to_path_buf)
}

/// The folder whose journal `clientbank upload FILES [--dir DIR]` records in, and whether its
/// journal may be made. A file that lies in a folder with a journal is uploaded with that
/// journal (and its lock: refused while a daemon works there) and no other, so a payment is
/// never recorded in two journals and sent twice. Without `--dir`, that folder; a file in no
/// such folder needs `--dir` (a journal is never made somewhere by itself). With `--dir`, a
/// folder without a journal gets one.
pub fn upload_dir(files: &[PathBuf], dir: Option<&Path>) -> Result<(PathBuf, bool), Error> {
    let usage = |en: String, ru: String| Error::Usage(clientbank_format::Message::new(en, ru));
    let wanted = dir.map(|d| fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf()));
    // A folder inside one with a journal (its archive/, done/, …) would get a second journal
    // beside the first: the same payments could then be recorded, and sent, from both.
    if let Some(wanted) = &wanted
        && let Some(outer) = journal_folder_of(wanted)
    {
        let (shown, outer) = (wanted.display(), outer.display());
        return Err(usage(
            format!(
                "{shown} lies inside {outer}, which has its own journal: give --dir {outer} \
                 (one journal per folder, so that no payment is sent from two); nothing was \
                 sent"
            ),
            format!(
                "{shown} лежит внутри {outer}, у которой свой журнал: укажите --dir {outer} \
                 (один журнал на папку, чтобы ни один платёж не ушёл из двух); ничего не \
                 отправлено"
            ),
        ));
    }
    let mut found: Option<PathBuf> = None;
    for file in files {
        let Some(owner) = journal_folder_of(file) else {
            continue;
        };
        let (shown, folder) = (file.display(), owner.display());
        if wanted.as_ref().is_some_and(|w| *w != owner) {
            return Err(usage(
                format!(
                    "{shown} lies in {folder}, whose journal records what is sent from there: \
                     upload it with --dir {folder} (or drop it into {folder}/inbox); nothing \
                     was sent"
                ),
                format!(
                    "{shown} лежит в {folder}, журнал которой записывает отправленное оттуда: \
                     загрузите его с --dir {folder} (или положите в {folder}/inbox); ничего не \
                     отправлено"
                ),
            ));
        }
        match &found {
            Some(other) if *other != owner => {
                let other = other.display();
                return Err(usage(
                    format!(
                        "the files lie in two folders with journals ({other} and {folder}): \
                         upload each folder's files with its --dir; nothing was sent"
                    ),
                    format!(
                        "файлы лежат в двух папках с журналами ({other} и {folder}): загрузите \
                         файлы каждой с её --dir; ничего не отправлено"
                    ),
                ));
            }
            _ => found = Some(owner),
        }
    }
    match (dir, found) {
        (Some(dir), _) => Ok((dir.to_path_buf(), true)),
        (None, Some(owner)) => Ok((owner, false)),
        (None, None) => Err(usage(
            "no journal would say what was sent: give --dir DIR, the folder `clientbank watch` \
             works on (a folder without a journal gets one); nothing was sent"
                .into(),
            "нет журнала, который записал бы отправленное: укажите --dir DIR, папку, с которой \
             работает `clientbank watch` (в папке без журнала он будет создан); ничего не \
             отправлено"
                .into(),
        )),
    }
}

/// Opens the journal of DIR for `clientbank sign`, under the signing lock only: signing sends
/// no payment, so it runs beside a daemon that uploads (the journal is shared through
/// SQLite's own locking); two signers at once are not allowed.
pub fn signing_engine(
    dir: &Path,
    settings: clientbank_bank::config::Settings,
) -> Result<Engine, Error> {
    check_dir(dir, false)?;
    let layout = Layout::new(dir);
    let lock = DirLock::acquire_signing(&layout, LOCK_WAIT)?;
    let (journal, _) = open_journal(&layout, settings.journal.as_ref(), false)?;
    let mut engine = Engine::new(journal, settings);
    engine.signing_lock = Some(lock);
    Ok(engine)
}

/// Opens the journal of DIR for a command, under the DIR lock. `create_journal` (`upload`):
/// an existing DIR without a journal gets one; else (`sign`) a DIR without one is refused.
pub fn engine(
    dir: &Path,
    settings: clientbank_bank::config::Settings,
    create_journal: bool,
) -> Result<Engine, Error> {
    let lock = open_dir(dir, create_journal, Holder::Upload)?;
    let layout = Layout::new(dir);
    let (mut journal, _) = open_journal(&layout, settings.journal.as_ref(), false)?;
    // A journal in PostgreSQL: the folder's lease too, as a daemon holds it.
    journal.take_lease(&crate::journal::owner_id(), dir)?;
    let mut engine = Engine::new(journal, settings);
    engine.check_bank()?;
    engine.lock = Some(lock);
    Ok(engine)
}

/// What an upload whose every payment has its answer came to, by the file's verdict.
fn finished(engine: &mut Engine, file_id: i64) -> Result<UploadOutcome, Error> {
    Ok(match engine.verdict(file_id)? {
        Verdict::Done => {
            let rows = engine.journal.payments_of(file_id)?;
            if rows
                .iter()
                .all(|r| r.outcome.state == PaymentState::Already)
            {
                UploadOutcome::Already
            } else {
                UploadOutcome::Uploaded
            }
        }
        Verdict::Rejected => UploadOutcome::Refused,
        Verdict::Review => UploadOutcome::Review,
        Verdict::Pending => {
            // Payments queued behind the same payments in a file of processing/ that
            // waits for the bank: sent once, from there; not from here.
            let rows = engine.journal.payments_of(file_id)?;
            let queued: Vec<_> = rows
                .iter()
                .filter(|r| {
                    r.outcome.state == PaymentState::Queued
                        || r.outcome.state == PaymentState::Planned
                })
                .map(|r| (r.id, Outcome::said(PaymentState::NotSent, not_from_here(r))))
                .collect();
            engine.journal.record_outcomes(&queued)?;
            UploadOutcome::Held
        }
    })
}

/// `clientbank upload FILE...` with the journal of `dir` ([`engine`], under its lock; made
/// when `create_journal`): [`upload`]; a journal made here that recorded nothing is not left
/// behind.
pub async fn upload_in(
    dir: &Path,
    settings: clientbank_bank::config::Settings,
    create_journal: bool,
    files: &[PathBuf],
    today: NaiveDate,
) -> Result<Vec<FileUpload>, Error> {
    let private = Layout::new(dir).folder(Folder::Private);
    let made_here = !private.exists();
    let mut engine = engine(dir, settings, create_journal)?;
    let uploads = upload(&mut engine, files, today).await;
    if made_here && !engine.recorded_any() {
        drop(engine);
        let _ = fs::remove_dir_all(&private);
    }
    uploads
}

/// `clientbank upload FILE...`: each file checked (one with an error finding is refused,
/// nothing sent), then uploaded and recorded in the journal; the files stay where they are.
pub async fn upload(
    engine: &mut Engine,
    files: &[PathBuf],
    today: NaiveDate,
) -> Result<Vec<FileUpload>, Error> {
    let mut out = Vec::new();
    for path in files {
        engine.check_lock()?;
        let file = path.display().to_string();
        let bytes = match fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) => {
                let (what, why) = (cannot(Act::Read, &file), os::io_error(&e));
                let said = tr!(
                    "error[io]: {what}: {why}\n" ;
                    "ошибка[io]: {}: {}\n", what.ru(), why.ru()
                );
                out.push(FileUpload {
                    file: file.clone(),
                    outcome: UploadOutcome::Unreadable,
                    findings: Some(said.get(engine.settings.lang).to_string()),
                    payments: Vec::new(),
                });
                continue;
            }
        };
        let place = fs::canonicalize(path)
            .unwrap_or_else(|_| path.clone())
            .display()
            .to_string();
        let intake = Intake {
            name: &file,
            place: &place,
            bytes: &bytes,
            today,
            resume: false,
            cut_short_after: None,
            may_send: true,
        };
        let (file_id, sent) = match engine.process_file(intake).await? {
            Processed::Rejected { text, .. } => {
                out.push(FileUpload {
                    file,
                    outcome: UploadOutcome::Rejected,
                    findings: Some(text),
                    payments: Vec::new(),
                });
                continue;
            }
            // Only a file the journal had recorded at its place can have changed.
            Processed::Changed { file_id } => (file_id, Sent::Finished),
            Processed::Sent { file_id, sent, .. } => (file_id, sent?),
            // Not given: `may_send` is true here.
            Processed::Held => continue,
        };
        let outcome = match &sent {
            Sent::NotTaken { why, .. } | Sent::TokenRefused(why) | Sent::Misconfigured(why) => {
                // Nothing of it was taken: the file is closed as not sent.
                let rows = engine.journal.payments_of(file_id)?;
                let why = note::both(
                    format!("not sent: {}", why.en()),
                    format!("не отправлен: {}", why.ru()),
                );
                let not_sent: Vec<_> = rows
                    .iter()
                    .filter(|r| r.outcome.state == PaymentState::Planned)
                    .map(|r| (r.id, Outcome::said(PaymentState::NotSent, &why)))
                    .collect();
                engine.journal.record_outcomes(&not_sent)?;
                match sent {
                    Sent::TokenRefused(_) => UploadOutcome::TokenRefused,
                    Sent::Misconfigured(_) => UploadOutcome::Misconfigured,
                    _ => UploadOutcome::Unavailable,
                }
            }
            Sent::Interrupted => UploadOutcome::Interrupted,
            Sent::Finished => finished(engine, file_id)?,
        };
        engine
            .journal
            .set_file(file_id, outcome.file_state(), &place, None)?;
        let rows = engine.journal.payments_of(file_id)?;
        out.push(FileUpload {
            file: file.clone(),
            outcome,
            findings: None,
            payments: rows
                .iter()
                .map(|r| PaymentLine::of(&file, r, engine.settings.lang))
                .collect(),
        });
    }
    Ok(out)
}

/// `clientbank status DIR`.
#[derive(Clone, Debug, Serialize)]
pub struct Status {
    /// Files per folder.
    pub folders: BTreeMap<String, Vec<String>>,
    /// Payments per state: uploaded, awaiting signature, signed, drafts, in doubt, refused, …
    /// (JSON: an object from the English label to the count).
    #[serde(serialize_with = "by_label")]
    pub payments: Vec<Counted>,
    /// Ids awaiting signature per company (or payer account when the company is not known).
    pub awaiting_signature: BTreeMap<String, Vec<String>>,
    /// The last errors not fixed since: when, file, message (JSON: `[at, file, English]`).
    pub last_errors: Vec<crate::journal::LastError>,
    /// Inbox entries that are no regular file (a symlink, a FIFO, a folder): "not a regular
    /// file: ignored", with what each is.
    pub ignored: Vec<Ignored>,
}

/// How many payments stand one way ([`Standing::status_label`]: several states may share one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted {
    /// The label in English and in Russian.
    pub label: (&'static str, &'static str),
    /// Whether these payments are in doubt (or, while a daemon runs, being sent).
    pub in_doubt: bool,
    /// How many.
    pub count: usize,
}

/// [`Status::payments`] in JSON: `{"awaiting signature": 3, …}`.
fn by_label<S: serde::Serializer>(counted: &[Counted], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(counted.iter().map(|c| (c.label.0, c.count)))
}

/// An inbox entry the daemon leaves alone, and what it is (JSON: `"NAME (what it is)"`).
#[derive(Clone, Debug)]
pub struct Ignored {
    /// Its name (escaped where it holds control characters).
    pub name: String,
    /// What it is, for people.
    pub kind: Message,
}

impl Ignored {
    /// `NAME (what it is)` in `lang`.
    pub fn shown(&self, lang: Lang) -> String {
        format!("{} ({})", self.name, self.kind.get(lang))
    }
}

impl std::fmt::Display for Ignored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown(Lang::En))
    }
}

impl Serialize for Ignored {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl Status {
    /// Payments in doubt (or, while a daemon runs, being sent).
    pub fn in_doubt(&self) -> usize {
        self.payments
            .iter()
            .filter(|c| c.in_doubt)
            .map(|c| c.count)
            .sum()
    }
}

/// What `clientbank status --check` finds: whether a daemon works on the folder, and what
/// needs a person (each in English and Russian).
#[derive(Clone, Debug, Default)]
pub struct Health {
    /// A `clientbank watch` (or another clientbank command) holds the folder's lock.
    pub running: bool,
    /// What needs a person: files in review/ or rejected/, payments in doubt, files waiting
    /// too long, errors not fixed yet (the bank, the token, the statement, signing).
    pub attention: Vec<clientbank_format::Message>,
}

/// How long a file may wait in inbox/ or processing/ before `status --check` says so.
pub const WAITING_TOO_LONG: Duration = Duration::from_secs(3600);

/// The health probe of a folder (`clientbank status --check`), for monitoring: nothing is
/// changed.
pub fn health(dir: &Path) -> Result<Health, Error> {
    let status = status(dir)?;
    let layout = Layout::new(dir);
    let running = match DirLock::acquire(&layout, Holder::Probe, Duration::ZERO) {
        Ok(lock) => {
            drop(lock);
            false
        }
        Err(Error::Busy(_)) => true,
        Err(e) => return Err(e),
    };
    let mut attention = Vec::new();
    let count = |folder: Folder| status.folders.get(folder.as_str()).map_or(0, Vec::len);
    let review = count(Folder::Review);
    if review > 0 {
        attention.push(clientbank_format::Message::new(
            format!("{review} file(s) in review/: a person settles them (`clientbank resolve`)"),
            format!("в review/ файлов: {review}: их разбирает человек (`clientbank resolve`)"),
        ));
    }
    let rejected = count(Folder::Rejected);
    if rejected > 0 {
        attention.push(clientbank_format::Message::new(
            format!(
                "{rejected} file(s) in rejected/: mend them in the accounting software and export \
                 again (FILE.errors.txt says what is wrong), then remove them from rejected/"
            ),
            format!(
                "в rejected/ файлов: {rejected}: исправьте их в учётной программе и выгрузите \
                 заново (что не так — в ФАЙЛ.errors.txt), затем уберите их из rejected/"
            ),
        ));
    }
    // An error not fixed yet of no file (the bank, the statement, a company's signing) or of a
    // file still waiting (a refused token): the newest says what.
    let waiting: Vec<&String> = [Folder::Inbox, Folder::Processing]
        .iter()
        .filter_map(|f| status.folders.get(f.as_str()))
        .flatten()
        .collect();
    let open: Vec<&crate::journal::LastError> = status
        .last_errors
        .iter()
        .filter(|e| e.file.as_ref().is_none_or(|f| waiting.contains(&f)))
        .collect();
    if let Some(newest) = open.first() {
        let (n, said) = (open.len(), &newest.message);
        attention.push(clientbank_format::Message::new(
            format!("{n} error(s) not fixed yet, the newest: {}", said.en()),
            format!("неисправленных ошибок: {n}, последняя: {}", said.ru()),
        ));
    }
    let doubt = status.in_doubt();
    if doubt > 0 && running {
        // (While a daemon runs, a payment being sent is counted with those in doubt.)
        attention.push(clientbank_format::Message::new(
            format!("{doubt} payment(s) being sent or in doubt"),
            format!("платежей отправляется или под сомнением: {doubt}"),
        ));
    } else if doubt > 0 {
        attention.push(clientbank_format::Message::new(
            format!("{doubt} payment(s) in doubt: may or may not be at the bank"),
            format!("платежей под сомнением: {doubt}: возможно, они уже в банке"),
        ));
    }
    for folder in [Folder::Inbox, Folder::Processing] {
        let oldest = layout
            .files(folder)
            .iter()
            .filter_map(|name| fs::metadata(layout.folder(folder).join(name)).ok())
            .filter_map(|m| m.modified().ok())
            .min();
        let waited = oldest
            .and_then(|at| at.elapsed().ok())
            .filter(|w| *w > WAITING_TOO_LONG);
        if let Some(waited) = waited {
            let minutes = waited.as_secs() / 60;
            attention.push(clientbank_format::Message::new(
                format!("a file has waited in {folder}/ for {minutes} min"),
                format!("файл ждёт в {folder}/ уже {minutes} мин"),
            ));
        }
    }
    Ok(Health { running, attention })
}

/// Reads the folders and the journal of DIR (nothing is changed).
pub fn status(dir: &Path) -> Result<Status, Error> {
    usable(dir, true)?;
    let layout = Layout::new(dir);
    let mut folders = BTreeMap::new();
    for folder in Folder::ALL.into_iter().filter(|&f| f != Folder::Private) {
        let names = layout.files(folder);
        let names = names.iter().map(|n| shown(n).into_owned()).collect();
        folders.insert(folder.to_string(), names);
    }
    let mut payments = BTreeMap::new();
    let mut awaiting = BTreeMap::new();
    let mut last_errors = Vec::new();
    if let Some(journal) = crate::journal::open_folder(&layout, Access::Read)? {
        // Each payment once: the same payment in several files (dropped again, a file
        // retried) is counted by the row that says most of what the bank has of it.
        let mut by_identity: HashMap<String, PaymentRow> = HashMap::new();
        for row in journal.all_payments()? {
            match by_identity.entry(row.payment.identity.clone()) {
                Entry::Occupied(mut seen) => {
                    if row.outcome.state.weight() >= seen.get().outcome.state.weight() {
                        seen.insert(row);
                    }
                }
                Entry::Vacant(slot) => {
                    slot.insert(row);
                }
            }
        }
        for row in by_identity.values() {
            let standing = Standing {
                state: row.outcome.state,
                sign: row.outcome.sign,
            };
            let label = standing.status_label();
            payments
                .entry(label.0)
                .or_insert(Counted {
                    label,
                    in_doubt: row.outcome.state.in_doubt(),
                    count: 0,
                })
                .count += 1;
        }
        for row in journal.awaiting_signature()? {
            let company = row
                .payment
                .company
                .clone()
                .unwrap_or_else(|| format!("payer account {}", row.payment.payer_account));
            awaiting
                .entry(company)
                .or_insert_with(Vec::new)
                .extend(row.outcome.bank_id.clone());
        }
        last_errors = journal.last_events(10)?;
    }
    let mut ignored: Vec<Ignored> = fs::read_dir(layout.folder(Folder::Inbox))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| crate::folders::ignored_entry(&e))
                .map(|(name, kind)| Ignored { name, kind })
                .collect()
        })
        .unwrap_or_default();
    ignored.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Status {
        folders,
        payments: payments.into_values().collect(),
        awaiting_signature: awaiting,
        last_errors,
        ignored,
    })
}
