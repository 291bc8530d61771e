//! The folders under DIR, moves that never overwrite, and claiming complete files.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use clientbank_diagnostic::os::{Act, cannot};
use clientbank_format::{Message, say, tr};

/// The folders of a watched DIR.
#[derive(Clone, Debug)]
pub struct Layout {
    /// DIR itself.
    pub root: PathBuf,
}

/// A folder under DIR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Folder {
    /// Drops from the accounting software.
    Inbox,
    /// Claimed files, being sent or waiting for the bank.
    Processing,
    /// Every payment at the bank.
    Done,
    /// Not (wholly) uploaded.
    Rejected,
    /// A person decides.
    Review,
    /// Statements for the accounting software.
    Outbox,
    /// The journal and the locks (`.clientbank`).
    Private,
}

impl Folder {
    /// Every folder, as made under DIR.
    pub const ALL: [Folder; 7] = [
        Folder::Inbox,
        Folder::Processing,
        Folder::Done,
        Folder::Rejected,
        Folder::Review,
        Folder::Outbox,
        Folder::Private,
    ];

    /// The folders a file goes to when it leaves processing/, and processing/ itself: where
    /// files of earlier use are.
    pub const USED: [Folder; 4] = [
        Folder::Processing,
        Folder::Done,
        Folder::Rejected,
        Folder::Review,
    ];

    /// Its name under DIR.
    pub const fn as_str(self) -> &'static str {
        match self {
            Folder::Inbox => "inbox",
            Folder::Processing => "processing",
            Folder::Done => "done",
            Folder::Rejected => "rejected",
            Folder::Review => "review",
            Folder::Outbox => "outbox",
            Folder::Private => ".clientbank",
        }
    }
}

impl std::str::FromStr for Folder {
    type Err = String;
    fn from_str(name: &str) -> Result<Folder, String> {
        Folder::ALL
            .into_iter()
            .find(|f| f.as_str() == name)
            .ok_or_else(|| format!("{name:?} is no folder of DIR"))
    }
}

impl std::fmt::Display for Folder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The suffixes of the files written beside a file: not files of their own.
pub const SIDECARS: &[&str] = &[".report.csv", ".errors.txt", ".review.txt"];

/// The longest inbox name taken, in bytes: 255 (what most file systems take) less the longest
/// note suffix (`.report.csv`) and a suffix for a name already taken (` (99)`).
pub const LONGEST_NAME: usize = 236;

/// A file name as people are shown it: control characters (a line break, an escape) escaped,
/// so that a name never forges a line of a listing or drives the terminal.
pub fn shown(name: &str) -> std::borrow::Cow<'_, str> {
    if name.chars().any(char::is_control) {
        name.escape_debug().to_string().into()
    } else {
        name.into()
    }
}

impl Layout {
    /// The layout of `root` (nothing is created).
    pub fn new(root: impl Into<PathBuf>) -> Layout {
        Layout { root: root.into() }
    }

    /// Creates the folders that are missing.
    pub fn create(&self) -> Result<(), crate::Error> {
        self.restore().map(drop)
    }

    /// Creates the folders that are missing (deleted while the daemon ran) and says which.
    pub fn restore(&self) -> Result<Vec<Folder>, crate::Error> {
        let mut created = Vec::new();
        for folder in Folder::ALL {
            let path = self.folder(folder);
            if path.is_dir() {
                continue;
            }
            not_a_file(&path)?;
            fs::create_dir_all(&path)
                .map_err(crate::Error::io(cannot(Act::Create, path.display())))?;
            created.push(folder);
        }
        Ok(created)
    }

    /// A folder.
    pub fn folder(&self, folder: Folder) -> PathBuf {
        self.root.join(folder.as_str())
    }

    /// The journal's path.
    pub fn journal(&self) -> PathBuf {
        self.folder(Folder::Private).join("journal.sqlite")
    }

    /// The files of a folder (not the sidecars beside them), sorted by name.
    pub fn files(&self, folder: Folder) -> Vec<String> {
        let mut names: Vec<String> = match fs::read_dir(self.folder(folder)) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| !SIDECARS.iter().any(|s| n.ends_with(s)))
                .collect(),
            Err(_) => Vec::new(),
        };
        names.sort();
        names
    }

    /// Whether the folders show earlier use: files in processing/, done/, rejected/ or review/.
    pub fn used(&self) -> bool {
        Folder::USED.iter().any(|&f| !self.files(f).is_empty())
    }

    /// The place (relative to DIR, `/`-separated) of a file name in a folder.
    pub fn place(folder: Folder, name: &str) -> String {
        format!("{folder}/{name}")
    }

    /// The folder a place is in (`None`: a file `clientbank upload` recorded where it lies).
    pub fn folder_of(place: &str) -> Option<Folder> {
        let (first, _) = place.split_once('/')?;
        Folder::ALL.into_iter().find(|f| f.as_str() == first)
    }

    /// The path of a place.
    pub fn path_of(&self, place: &str) -> PathBuf {
        let mut path = self.root.clone();
        for part in place.split('/') {
            path.push(part);
        }
        path
    }
}

/// A name not yet taken in `folder`: `name`, else `name (2).ext`, `name (3).ext`, …; the
/// sidecars a file would have are checked too.
pub fn unique_name(folder: &Path, name: &str) -> String {
    let (stem, ext) = match name.rfind('.') {
        Some(at) if at > 0 => (&name[..at], &name[at..]),
        _ => (name, ""),
    };
    let taken = |candidate: &str| {
        folder.join(candidate).exists()
            || SIDECARS
                .iter()
                .any(|s| folder.join(format!("{candidate}{s}")).exists())
    };
    if !taken(name) {
        return name.to_string();
    }
    (2..)
        .map(|n| format!("{stem} ({n}){ext}"))
        .find(|c| !taken(c))
        .unwrap_or_else(|| name.to_string())
}

/// Moves `from` into `folder` under a name not taken there; the new name. A failed rename
/// leaves the file where it was.
pub fn move_into(from: &Path, folder: &Path, name: &str) -> io::Result<String> {
    let name = unique_name(folder, name);
    rename_no_replace(from, &folder.join(&name))?;
    Ok(name)
}

/// A rename that refuses to replace an existing file (checked just before: within DIR only
/// this daemon moves files, and one daemon runs per DIR).
pub fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    if to.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} exists", to.display()),
        ));
    }
    fs::rename(from, to)
}

/// What the claimer knows of an inbox file.
#[derive(Clone, Debug)]
struct Seen {
    size: u64,
    modified: Option<SystemTime>,
    since: Instant,
    /// For this size and time: `Some(None)` complete, `Some(Some(why))` not complete yet.
    checked: Option<Option<Message>>,
}

/// Claims complete files: a file is complete when its size and modification time have not
/// changed over the settle interval and it can be opened for reading.
#[derive(Debug, Default)]
pub struct Claimer {
    seen: HashMap<String, Seen>,
    /// Files found unreadable, reported once: why, in both languages.
    pub reported: HashMap<String, Message>,
    /// Files not complete yet (a 1C file without `КонецФайла` or with a section left open,
    /// JSON that stops early), with why: logged once, claimed (and rejected as cut short) only
    /// when unchanged for `incomplete_after`.
    pub incomplete: HashMap<String, Message>,
    /// Names matching the patterns that are no regular file (a symlink, a FIFO, a folder):
    /// ignored, logged once, counted by `clientbank status`.
    pub ignored: HashMap<String, Message>,
}

/// What a scan of the inbox found.
#[derive(Debug, Default)]
pub struct Scan {
    /// Files complete now, by name.
    pub complete: Vec<String>,
    /// Files still settling (or being written), by name.
    pub settling: usize,
    /// When the next settling file may be complete.
    pub next: Option<Instant>,
    /// Files complete because they stayed incomplete and unchanged for `incomplete_after`:
    /// they are claimed and rejected as cut short.
    pub cut_short: Vec<String>,
}

/// Why the inbox leaves an entry where it is, for people: a name that is not valid Unicode (a
/// network share mounted without its character set: the name cannot be recorded or reported
/// faithfully), or no regular file. `None`: a file it takes. The name is given lossily.
pub fn ignored_entry(entry: &fs::DirEntry) -> Option<(String, Message)> {
    let name = entry.file_name();
    let Some(text) = name.to_str() else {
        return Some((
            name.to_string_lossy().into_owned(),
            Message::new(
                "a file whose name is not valid Unicode (rename it)",
                "файл с именем не в Юникоде (переименуйте его)",
            ),
        ));
    };
    // A line break or an escape in a name would forge log lines or drive the terminal: shown
    // escaped, never taken.
    if text.chars().any(char::is_control) {
        return Some((
            shown(text).into_owned(),
            Message::new(
                "a file whose name holds control characters (rename it)",
                "файл с управляющими символами в имени (переименуйте его)",
            ),
        ));
    }
    // A name of clientbank's own notes would be taken for the notes of another file, and never
    // shown as a file of its own.
    // Case does not matter: Windows and SMB shares take `X.Errors.Txt` for `x.errors.txt`.
    let lower = text.to_lowercase();
    if SIDECARS.iter().any(|s| lower.ends_with(s)) {
        return Some((
            text.to_string(),
            Message::new(
                "a name clientbank gives its notes beside a file (….report.csv, ….errors.txt, \
                 ….review.txt): rename it",
                "такие имена clientbank даёт своим заметкам рядом с файлом (….report.csv, \
                 ….errors.txt, ….review.txt): переименуйте его",
            ),
        ));
    }
    // Its notes (`NAME.report.csv`, and `NAME (2).report.csv` when the name is taken) must fit
    // in a name the file system takes (255 bytes on most).
    if text.len() > LONGEST_NAME {
        return Some((
            text.to_string(),
            Message::new(
                "a name too long for the notes written beside it (at most 236 bytes): rename \
                 it shorter",
                "имя слишком длинное для заметок рядом с файлом (не больше 236 байт): \
                 сократите его",
            ),
        ));
    }
    let file_type = entry.file_type().ok()?;
    (!file_type.is_file()).then(|| {
        (
            name.to_string_lossy().into_owned(),
            clientbank_bank::files::kind_of(file_type),
        )
    })
}

impl Claimer {
    /// Looks at the inbox: which files are complete now (in name order).
    pub fn scan(
        &mut self,
        inbox: &Path,
        settle: std::time::Duration,
        incomplete_after: std::time::Duration,
        takes: impl Fn(&str) -> bool,
    ) -> Scan {
        let now = Instant::now();
        let mut scan = Scan::default();
        let mut present = Vec::new();
        let Ok(entries) = fs::read_dir(inbox) else {
            return scan;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !takes(&name) {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            present.push(name.clone());
            if let Some((shown, kind)) = ignored_entry(&entry) {
                if !self.ignored.contains_key(&shown) {
                    let said = tr!(
                        "inbox/{shown} is {}: ignored (move a copy of the file itself, under a \
                         readable name, into the inbox)", kind.en() ;
                        "inbox/{shown}: {} — пропущен (положите во входящие копию самого \
                         файла под читаемым именем)", kind.ru()
                    );
                    say!(warn, said, file = %shown);
                    self.ignored.insert(shown.clone(), kind);
                }
                present.push(shown);
                continue;
            }
            self.ignored.remove(&name);
            let modified = meta.modified().ok();
            let seen = self.seen.entry(name.clone()).or_insert(Seen {
                size: meta.len(),
                modified,
                since: now,
                checked: None,
            });
            if seen.size != meta.len() || seen.modified != modified {
                *seen = Seen {
                    size: meta.len(),
                    modified,
                    since: now,
                    checked: None,
                };
            }
            let ready_at = seen.since + settle;
            if ready_at <= now {
                match fs::File::open(entry.path()) {
                    Ok(file) => {
                        if seen.checked.is_none() {
                            seen.checked = Some(check_complete(file, meta.len()));
                        }
                        match seen.checked.clone().flatten() {
                            None => {
                                self.incomplete.remove(&name);
                                scan.complete.push(name);
                            }
                            Some(_) if seen.since + incomplete_after <= now => {
                                self.incomplete.remove(&name);
                                scan.cut_short.push(name.clone());
                                scan.complete.push(name);
                            }
                            Some(why) => {
                                let due = seen.since + incomplete_after;
                                if !self.incomplete.contains_key(&name) {
                                    let incomplete_after =
                                        clientbank_diagnostic::duration(incomplete_after);
                                    let (incomplete_after_en, incomplete_after_ru) =
                                        (incomplete_after.en(), incomplete_after.ru());
                                    let said = tr!(
                                        "inbox/{name} is not complete yet ({}): it waits; \
                                         unchanged for {incomplete_after_en}, it is taken and \
                                         rejected as cut short", why.en() ;
                                        "inbox/{name} ещё не дописан ({}): он ждёт; если он \
                                         не изменится за {incomplete_after_ru}, он будет взят и \
                                         отклонён как оборванный", why.ru()
                                    );
                                    say!(warn, said, file = %name);
                                }
                                self.incomplete.insert(name, why);
                                scan.settling += 1;
                                scan.next = Some(scan.next.map_or(due, |n| n.min(due)));
                            }
                        }
                    }
                    Err(e) => {
                        self.reported
                            .entry(name)
                            .or_insert_with(|| clientbank_diagnostic::os::io_error(&e));
                        scan.settling += 1;
                        let retry = now + settle.max(std::time::Duration::from_millis(100));
                        scan.next = Some(scan.next.map_or(retry, |n| n.min(retry)));
                    }
                }
            } else {
                scan.settling += 1;
                scan.next = Some(scan.next.map_or(ready_at, |n| n.min(ready_at)));
            }
        }
        self.seen.retain(|name, _| present.contains(name));
        self.reported.retain(|name, _| present.contains(name));
        self.incomplete.retain(|name, _| present.contains(name));
        self.ignored.retain(|name, _| present.contains(name));
        scan.complete.sort();
        scan
    }

    /// Forgets a file (claimed, or gone).
    pub fn forget(&mut self, name: &str) {
        self.seen.remove(name);
        self.reported.remove(name);
        self.incomplete.remove(name);
    }
}

/// Whether an open inbox file is a complete drop ([`crate::complete::incomplete`]); a file too
/// big to be a drop, or one that cannot be read, counts as complete (it is rejected with why).
fn check_complete(mut file: fs::File, size: u64) -> Option<Message> {
    use std::io::Read as _;
    if size > crate::daemon::MAX_DROP {
        return None;
    }
    let mut bytes = Vec::with_capacity(size as usize);
    if file.read_to_end(&mut bytes).is_err() {
        return None;
    }
    crate::complete::incomplete(&bytes)
}

/// Refuses a file (not a folder) where a folder must be, at `path` or above it (DIR itself a
/// file, for `DIR/inbox`): said as such, with what to do, not as "already exists" or the
/// system's "not a directory".
pub fn not_a_file(path: &Path) -> Result<(), crate::Error> {
    for place in path.ancestors().filter(|p| !p.as_os_str().is_empty()) {
        match fs::metadata(place) {
            Ok(meta) if meta.is_dir() => return Ok(()),
            Ok(_) => {
                let shown = place.display();
                return Err(crate::Error::Usage(tr!(
                    "{shown} is a file, not a folder: move it away and clientbank makes the \
                     folder" ;
                    "{shown} — файл, а не папка: уберите его, и clientbank создаст папку"
                )));
            }
            Err(_) => {}
        }
    }
    Ok(())
}

/// Refuses a DIR that is a part of an exchange folder rather than the folder: one of its
/// folders (`exchange/inbox`) or its configuration file (`exchange/clientbank.toml`). Said
/// with the folder to give instead, before anything is made or looked for in the part (which
/// would make an exchange folder inside the inbox, or say "no configuration: run init").
pub fn not_a_part(dir: &Path) -> Result<(), crate::Error> {
    let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return Ok(());
    };
    let is_exchange = |folder: &Path| {
        folder.join(clientbank_bank::config::CONFIG_FILE).is_file()
            || folder.join(Folder::Private.as_str()).is_dir()
    };
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let (shown, parent_shown) = (dir.display(), parent.display());
    if name == clientbank_bank::config::CONFIG_FILE && dir.is_file() {
        return Err(crate::Error::Usage(tr!(
            "{shown} is the configuration file: give the folder it is in, {parent_shown} (or \
             --config {shown})" ;
            "{shown} — файл настроек: укажите папку, в которой он лежит, {parent_shown} (или \
             --config {shown})"
        )));
    }
    let part = Folder::ALL.iter().any(|f| f.as_str() == name);
    if part && !is_exchange(dir) && is_exchange(parent) {
        return Err(crate::Error::Usage(tr!(
            "{shown} is the {name}/ folder of the exchange folder {parent_shown}: give \
             {parent_shown} itself" ;
            "{shown} — папка {name}/ папки обмена {parent_shown}: укажите саму {parent_shown}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_names_never_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(unique_name(dir.path(), "a.txt"), "a.txt");
        fs::write(dir.path().join("a.txt"), "1").unwrap();
        assert_eq!(unique_name(dir.path(), "a.txt"), "a (2).txt");
        fs::write(dir.path().join("a (2).txt.report.csv"), "1").unwrap();
        assert_eq!(unique_name(dir.path(), "a.txt"), "a (3).txt");
        assert_eq!(unique_name(dir.path(), "платёж.txt"), "платёж.txt");
        fs::write(dir.path().join("b"), "1").unwrap();
        assert_eq!(unique_name(dir.path(), "b"), "b (2)");
    }

    #[test]
    fn a_file_where_a_folder_must_be_is_named_at_any_depth() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("обмен");
        fs::write(&file, "1").unwrap();
        for path in [file.clone(), file.join("inbox"), file.join("a/b")] {
            let said = not_a_file(&path).unwrap_err().to_string();
            assert!(
                said.starts_with(&format!("{} is a file", file.display())),
                "{said}"
            );
        }
        assert!(not_a_file(&dir.path().join("new/inbox")).is_ok());
        assert!(not_a_file(dir.path()).is_ok());
        let layout = Layout::new(&file);
        assert!(matches!(layout.create(), Err(crate::Error::Usage(_))));
    }
}
