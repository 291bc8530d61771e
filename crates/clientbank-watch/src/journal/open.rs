//! Where a folder's journal is (its SQLite file, or its schema in PostgreSQL), opening it, and
//! the folder's lease (PostgreSQL).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clientbank_diagnostic::os::{Act, cannot};
use rusqlite::{Connection, TransactionBehavior};
use sha2::Digest;

use super::postgres::{Pg, valid_schema};
use super::store::{DbError, Store};
use super::{Journal, SCHEMA_VERSION, db_error, schema};
use crate::Error;
use crate::folders::{Folder, Layout};
use clientbank_bank::config::SharedJournal;
use clientbank_format::tr;

/// Where a folder's journal is.
#[derive(Clone, Debug)]
pub enum Location {
    /// The SQLite file (`DIR/.clientbank/journal.sqlite`).
    Sqlite(PathBuf),
    /// The folder's schema in a PostgreSQL database.
    Postgres {
        /// The database.
        journal: SharedJournal,
        /// The folder's schema, as `DIR/.clientbank/journal.postgres` names it.
        schema: String,
    },
}

impl Location {
    /// Where a folder's journal is: the SQLite file, or (`shared` given) the schema that
    /// `DIR/.clientbank/journal.postgres` names, made and named there first when `create`.
    /// `None`: in PostgreSQL, not made yet.
    pub fn of(
        layout: &Layout,
        shared: Option<&SharedJournal>,
        create: bool,
    ) -> Result<Option<Location>, Error> {
        let Some(journal) = shared else {
            return Ok(Some(Location::Sqlite(layout.journal())));
        };
        let file = schema_file(layout);
        let schema = match read_schema(&file)? {
            Some(schema) => schema,
            None if !create => return Ok(None),
            None => name_schema(layout, &file)?,
        };
        Ok(Some(Location::Postgres {
            journal: journal.clone(),
            schema,
        }))
    }

    /// Whether the journal is there already (the SQLite file; the schema's name in the folder).
    pub fn exists(&self) -> bool {
        match self {
            Location::Sqlite(path) => path.exists(),
            Location::Postgres { .. } => true,
        }
    }

    /// Where it is, for people: the file, or the database and the schema (no password).
    pub fn label(&self) -> String {
        match self {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres { journal, schema } => format!("{} (schema {schema})", journal.url),
        }
    }
}

/// `DIR/.clientbank/journal.postgres`: the name of the folder's schema in PostgreSQL.
pub fn schema_file(layout: &Layout) -> PathBuf {
    layout.folder(Folder::Private).join("journal.postgres")
}

fn read_schema(file: &Path) -> Result<Option<String>, Error> {
    match std::fs::read_to_string(file) {
        Ok(text) => {
            let schema = text.trim().to_string();
            if valid_schema(&schema) {
                Ok(Some(schema))
            } else {
                let shown = file.display();
                Err(Error::JournalDamaged(tr!(
                    "{shown} names no schema clientbank made ({schema:?}): restore it from a \
                     backup, or from the schema list of the database (`\\dn folder_*` in psql)" ;
                    "{shown} называет схему, которую clientbank не создавал ({schema:?}): \
                     восстановите его из резервной копии или по списку схем базы (`\\dn \
                     folder_*` в psql)"
                )))
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(cannot(Act::Read, file.display()))(e)),
    }
}

/// Names a new schema for the folder, once: written whole beside the name file, then linked
/// to it (a link never replaces a file), so that two daemons starting together agree on the
/// first name and nobody reads half a name.
fn name_schema(layout: &Layout, file: &Path) -> Result<String, Error> {
    let seed = format!(
        "{}|{}|{:?}|{:?}",
        layout.root.display(),
        std::process::id(),
        std::time::SystemTime::now(),
        std::thread::current().id()
    );
    let tag = hex::encode(sha2::Sha256::digest(seed));
    let schema = format!("folder_{}", &tag[..20]);
    let written = file.with_extension(format!("postgres.{}", &tag[..8]));
    let cannot = |e| Error::io(cannot(Act::Write, file.display()))(e);
    std::fs::create_dir_all(layout.folder(Folder::Private)).map_err(cannot)?;
    let linked = std::fs::File::create(&written)
        .and_then(|mut out| {
            out.write_all(format!("{schema}\n").as_bytes())?;
            out.sync_all()
        })
        .and_then(|()| std::fs::hard_link(&written, file));
    let _ = std::fs::remove_file(&written);
    match linked {
        Ok(()) => Ok(schema),
        // Named meanwhile by another daemon: its name.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            read_schema(file)?.ok_or_else(|| {
                let shown = file.display();
                Error::JournalRefused(tr!("{shown} is gone" ; "{shown} исчез"))
            })
        }
        Err(e) => Err(cannot(e)),
    }
}

/// Whether DIR has a journal: its SQLite file, or the name of its schema in PostgreSQL.
pub fn exists_in(layout: &Layout) -> bool {
    layout.journal().exists() || schema_file(layout).exists()
}

/// A name for this daemon in the folders' leases: the machine, the process, and a part of its
/// own (a daemon that starts again is another holder, which recovers what the last one left).
pub fn owner_id() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map_or_else(|| "host".to_string(), |h| h.trim().to_string());
    let seed = format!(
        "{host}|{}|{:?}",
        std::process::id(),
        std::time::SystemTime::now()
    );
    let tag = &hex::encode(sha2::Sha256::digest(seed))[..8];
    format!("{host}:{}:{tag}", std::process::id())
}

/// Whether a command opens a journal to change it or only to read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Reads and writes; an older schema is brought forward.
    Write,
    /// Reads only (`status`, metrics, the statement's orders): nothing of the journal is
    /// written, so a user who may only read the folder can still look at it.
    Read,
}

/// Opens the journal of DIR as the commands find it (nothing is created): in PostgreSQL when
/// `DIR/.clientbank/journal.postgres` names its schema (the database, the password and the
/// lease from DIR's `clientbank.toml` and the environment), else the SQLite file. `None`: the
/// folder has no journal yet.
pub fn open_folder(layout: &Layout, access: Access) -> Result<Option<Journal>, Error> {
    let file = schema_file(layout);
    if file.exists() {
        let settings = clientbank_bank::Settings::load(
            &layout.root,
            None,
            &clientbank_bank::config::ProcessEnv,
        )?;
        let Some(shared) = settings.journal else {
            let (shown, config) = (
                file.display(),
                layout.root.join(clientbank_bank::config::CONFIG_FILE),
            );
            let config = config.display();
            return Err(Error::JournalRefused(tr!(
                "{shown} says the journal is in PostgreSQL, but {config} names no `journal = \
                 \"postgres://…\"`" ;
                "{shown} говорит, что журнал в PostgreSQL, но в {config} нет `journal = \
                 \"postgres://…\"`"
            )));
        };
        let location = Location::of(layout, Some(&shared), false)?;
        return location
            .map(|l| Journal::open_with(&l, false, access))
            .transpose();
    }
    let path = layout.journal();
    if !path.exists() {
        return Ok(None);
    }
    Journal::open_with(&Location::Sqlite(path), false, access).map(Some)
}

impl Journal {
    /// Opens the journal at `location`, creating it when `create` (else it must exist),
    /// checking it (SQLite: `PRAGMA quick_check`) and bringing its schema forward.
    pub fn open_at(location: &Location, create: bool) -> Result<Journal, Error> {
        Journal::open_with(location, create, Access::Write)
    }

    /// [`Journal::open_at`] with the access the command needs: [`Access::Read`] writes
    /// nothing and refuses a journal whose schema is older than this version's.
    fn open_with(location: &Location, create: bool, access: Access) -> Result<Journal, Error> {
        let label = location.label();
        let db = match location {
            Location::Sqlite(path) => open_sqlite(path, create, access)?,
            Location::Postgres { journal, schema } => {
                match Pg::connect(journal, schema, create).map_err(db_error(&label))? {
                    Some(pg) => Store::Postgres(Box::new(pg)),
                    None => {
                        return Err(Error::JournalRefused(tr!(
                            "{label} is not in the database, though the folder's \
                             .clientbank/journal.postgres names it: the journal is lost (another \
                             database, or one restored from before the folder was first served). \
                             Point `journal` at the right database or restore it; or check the \
                             files of processing/, review/ and rejected/ at the bank, remove \
                             .clientbank/journal.postgres and start with `clientbank watch DIR \
                             --new-journal`" ;
                            "{label} нет в базе, хотя его называет .clientbank/journal.postgres \
                             папки: журнал потерян (другая база или восстановленная из времени до \
                             первого обслуживания папки). Укажите в `journal` нужную базу или \
                             восстановите её; или сверьте с банком файлы processing/, review/ и \
                             rejected/, удалите .clientbank/journal.postgres и запустите \
                             `clientbank watch DIR --new-journal`"
                        )));
                    }
                }
            }
        };
        let version = db.version().map_err(db_error(&label))?;
        if version > SCHEMA_VERSION {
            return Err(Error::JournalRefused(tr!(
                "{label} was written by a newer clientbank (schema {version}, this one knows \
                 {SCHEMA_VERSION}): use that version" ;
                "{label} записан более новым clientbank (схема {version}, эта версия знает \
                 {SCHEMA_VERSION}): используйте ту версию"
            )));
        }
        if access == Access::Read && version < SCHEMA_VERSION {
            let dir = match location {
                Location::Sqlite(path) => folder_in_commands(path),
                Location::Postgres { .. } => "DIR".to_string(),
            };
            return Err(Error::JournalRefused(tr!(
                "{label} was written by an older clientbank (schema {version}, this one knows \
                 {SCHEMA_VERSION}) and is only read here: run `clientbank watch {dir} --once` \
                 to bring it forward" ;
                "{label} записан более старым clientbank (схема {version}, эта версия знает \
                 {SCHEMA_VERSION}), а здесь журнал только читается: запустите `clientbank \
                 watch {dir} --once`, чтобы обновить его"
            )));
        }
        let mut journal = Journal {
            db,
            location: location.clone(),
            label,
            bank: None,
            bank_recorded: false,
        };
        schema::bring_forward(&mut journal.db, version).map_err(db_error(&journal.label))?;
        Ok(journal)
    }

    /// Takes the folder's lease for this daemon (PostgreSQL; the SQLite journal's folder is
    /// owned through its lock file): [`Error::Leased`] while another daemon holds it. `owner`
    /// names this daemon; `dir` is the folder as this machine sees it.
    pub fn take_lease(&mut self, owner: &str, dir: &Path) -> Result<(), Error> {
        let Store::Postgres(pg) = &mut self.db else {
            return Ok(());
        };
        let held = pg
            .take_lease(owner, &dir.display().to_string())
            .map_err(db_error(&self.label))?;
        match held {
            None => Ok(()),
            Some((holder, at, left)) => Err(Error::leased(
                &dir.display().to_string(),
                &holder,
                &at,
                left,
                pg.lease_time(),
            )),
        }
    }

    /// Renews the folder's lease when a third of it has passed (PostgreSQL): [`Error::LeaseLost`]
    /// when it ran out and may be another daemon's. Called on every pass and before each file.
    pub fn keep_lease(&mut self) -> Result<(), Error> {
        match &mut self.db {
            Store::Postgres(pg) => pg.keep_lease().map_err(db_error(&self.label)),
            Store::Sqlite(_) => Ok(()),
        }
    }

    /// Gives the folder's lease up (a daemon that stops; done when the journal is dropped too):
    /// another takes the folder at once.
    pub fn release_lease(&mut self) -> Result<(), Error> {
        match &mut self.db {
            Store::Postgres(pg) => pg.release_lease().map_err(db_error(&self.label)),
            Store::Sqlite(_) => Ok(()),
        }
    }

    /// How long a lease lasts (PostgreSQL), `None` for SQLite.
    pub fn lease_time(&self) -> Option<std::time::Duration> {
        match &self.db {
            Store::Postgres(pg) => Some(pg.lease_time()),
            Store::Sqlite(_) => None,
        }
    }
}

/// SQLite's report of a damaged file runs to many lines (`*** in database main ***`, then a
/// line a page): its first finding says enough.
fn first_finding(report: &str) -> &str {
    report
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("***"))
        .unwrap_or("")
}

/// DIR of `DIR/.clientbank/journal.sqlite`, as the commands we advise write it.
fn folder_in_commands(journal: &Path) -> String {
    journal.parent().and_then(Path::parent).map_or_else(
        || "DIR".to_string(),
        |d| crate::report::shell_quote(&d.display().to_string()),
    )
}

/// Opens (or creates) the SQLite journal at `path`, checked, in WAL mode with `synchronous=FULL`;
/// to read only, as it is (see [`read_only`]).
fn open_sqlite(path: &Path, create: bool, access: Access) -> Result<Store, Error> {
    let existed = path.exists();
    if !existed && !create {
        let shown = path.display();
        return Err(Error::JournalRefused(tr!(
            "{shown} does not exist (run `clientbank watch` on the folder first)" ;
            "{shown} не существует (сначала запустите `clientbank watch` на этой папке)"
        )));
    }
    let label = path.display().to_string();
    let map = |e: rusqlite::Error| db_error(&label)(DbError::from(e));
    let dir = folder_in_commands(path);
    // `what`: SQLite's words; `ru`: the same said in Russian (SQLite speaks only English).
    let damaged = |what: String, ru: &str| {
        let shown = path.display();
        let what = first_finding(&what);
        Error::JournalDamaged(tr!(
            "{shown} is damaged ({what}). Restore it (and the -wal file beside it) from a \
             backup; or move it aside, check the files of review/, processing/ and \
             rejected/ at the bank, and start with `clientbank watch {dir} --new-journal`" ;
            "{shown} повреждён ({ru}; SQLite: {what}). Восстановите его (и файл -wal рядом) из \
             резервной копии; или уберите его в сторону, сверьте с банком файлы review/, \
             processing/ и rejected/ и запустите `clientbank watch {dir} --new-journal`"
        ))
    };
    // Reading to open (`read_only` reads the version) can find the file damaged already.
    let said = |e: rusqlite::Error| {
        let e = DbError::from(e);
        if e.damaged() {
            damaged(e.to_string(), "файл базы повреждён или не база")
        } else {
            db_error(&label)(e)
        }
    };
    let db = match access {
        Access::Write => Connection::open(path),
        Access::Read => read_only(path),
    }
    .map_err(said)?;
    db.busy_timeout(std::time::Duration::from_secs(30))
        .map_err(map)?;
    if existed {
        // Only what says the file itself is broken is "damaged"; a journal that cannot be
        // opened or written (permissions, a read-only folder, a lock) is said as such: moving
        // a good journal aside would lose what it knows.
        let check: String = db
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(said)?;
        if check != "ok" {
            return Err(damaged(check, "проверка целостности нашла ошибки"));
        }
    }
    if access == Access::Read {
        return Ok(Store::Sqlite(db));
    }
    // SQLite opens a file this user may not write read-only, without a word: said here, before
    // anything is claimed, with what to do.
    if db.is_readonly(rusqlite::MAIN_DB).map_err(map)? {
        let (shown, folder) = (path.display(), path.parent().unwrap_or(path).display());
        return Err(Error::JournalRefused(tr!(
            "{shown} cannot be written by this user (it opens read-only): nothing can be \
             recorded, so nothing is sent. Give the user clientbank runs as (the service's) \
             write access to {folder} and the files in it" ;
            "{shown} этот пользователь не может записывать (файл открывается только для \
             чтения): ничего не записать, поэтому ничего не отправляется. Дайте пользователю, \
             от имени которого работает clientbank (пользователю службы), право записи в \
             {folder} и файлы в ней"
        )));
    }
    db.pragma_update(None, "journal_mode", "WAL").map_err(map)?;
    db.pragma_update(None, "synchronous", "FULL").map_err(map)?;
    db.pragma_update(None, "foreign_keys", true).map_err(map)?;
    let mut db = db;
    // Every write transaction takes the write lock at its start (BEGIN IMMEDIATE): what it
    // read (is this payment active elsewhere?) cannot change before it commits, whichever
    // process writes too.
    db.set_transaction_behavior(TransactionBehavior::Immediate);
    Ok(Store::Sqlite(db))
}

/// Opens the SQLite journal to read only. A journal in WAL mode is read through its `-shm`
/// file, which SQLite must be able to create when it is not there; where the user may not
/// write the folder and no daemon has it open (no `-shm`), nothing can change the file while
/// it is read, so it is opened as immutable.
fn read_only(path: &Path) -> rusqlite::Result<Connection> {
    use rusqlite::OpenFlags;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = Connection::open_with_flags(path, flags)?;
    match db.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)) {
        Ok(_) => Ok(db),
        // SQLite says it cannot make the -shm file as "cannot open" or, with the extended
        // code of a read-only WAL, as "read-only".
        Err(e)
            if matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly)
            ) =>
        {
            drop(db);
            Connection::open_with_flags(immutable_uri(path), flags | OpenFlags::SQLITE_OPEN_URI)
        }
        Err(e) => Err(e),
    }
}

/// `file:PATH?immutable=1`, the path percent-encoded as SQLite's URIs want it (on Windows,
/// `C:\a\b` is `file:/C:/a/b`).
fn immutable_uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let drive = text.as_bytes().get(1) == Some(&b':');
    let text = if drive { format!("/{text}") } else { text };
    let mut uri = String::from("file:");
    for byte in text.bytes() {
        match byte {
            b'?' | b'#' | b'%' | b' ' | 0..=0x1f | 0x7f..=0xff => {
                uri.push_str(&format!("%{byte:02X}"));
            }
            _ => uri.push(byte as char),
        }
    }
    uri.push_str("?immutable=1");
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_files_report_is_cut_to_its_first_finding() {
        let report = "*** in database main ***\nPage 5: btreeInitPage() returns error code 11\n\
                      On tree page 3 cell 0: invalid page number 9\n";
        assert_eq!(
            first_finding(report),
            "Page 5: btreeInitPage() returns error code 11"
        );
        assert_eq!(
            first_finding("database disk image is malformed"),
            "database disk image is malformed"
        );
        assert_eq!(first_finding(""), "");
    }

    #[test]
    fn an_immutable_uri_keeps_any_path() {
        for (path, uri) in [
            (
                "/srv/обмен/.clientbank/journal.sqlite",
                "file:/srv/%D0%BE%D0%B1%D0%BC%D0%B5%D0%BD/.clientbank/journal.sqlite?immutable=1",
            ),
            (
                r"C:\1C Обмен\#1?\journal.sqlite",
                "file:/C:/1C%20%D0%9E%D0%B1%D0%BC%D0%B5%D0%BD/%231%3F/journal.sqlite?immutable=1",
            ),
            ("d/journal 100%", "file:d/journal%20100%25?immutable=1"),
        ] {
            assert_eq!(immutable_uri(Path::new(path)), uri, "{path}");
        }
    }

    #[test]
    fn a_journal_opened_to_read_is_read_through_its_uri() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ж #1?.sqlite");
        drop(Journal::open(&path, true).unwrap());
        let db = Connection::open_with_flags(
            immutable_uri(&path),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
        )
        .unwrap();
        let version: i64 = db
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
    }
}
