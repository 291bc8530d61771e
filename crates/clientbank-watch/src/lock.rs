//! The per-DIR lock: one process at a time works on a DIR (the daemon, or `upload`, `sign`,
//! `resolve`), and a lock whose file was deleted or replaced is noticed.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clientbank_diagnostic::os::{Act, cannot};
use clientbank_format::{Message, tr};

use crate::Error;
use crate::folders::{Folder, Layout};

/// The lock of a DIR, held while this value lives (`DIR/.clientbank/lock`, `File::try_lock`).
#[derive(Debug)]
pub struct DirLock {
    file: fs::File,
    path: PathBuf,
    root: PathBuf,
}

/// What the caller is, for the message when the lock is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// `clientbank watch`.
    Daemon,
    /// `clientbank upload`.
    Upload,
    /// `clientbank resolve`.
    Resolve,
    /// `clientbank sign`, or the daemon signing on its own (the signing lock).
    Signer,
    /// `clientbank status --check`, which only looks whether a daemon holds the folder.
    Probe,
}

impl DirLock {
    /// Takes the lock of `layout`'s DIR (its `.clientbank/` must exist), waiting up to `wait`
    /// for another holder to let go; then [`Error::Busy`].
    pub fn acquire(layout: &Layout, holder: Holder, wait: Duration) -> Result<DirLock, Error> {
        DirLock::acquire_at(layout, "lock", holder, wait)
    }

    /// The signing lock (`DIR/.clientbank/sign.lock`): `clientbank sign` and the daemon's own
    /// signing (policy `auto`) take it, so that one set of ids is never signed twice at once,
    /// while `clientbank sign` still runs beside a daemon that uploads.
    pub fn acquire_signing(layout: &Layout, wait: Duration) -> Result<DirLock, Error> {
        DirLock::acquire_at(layout, "sign.lock", Holder::Signer, wait)
    }

    fn acquire_at(
        layout: &Layout,
        name: &str,
        holder: Holder,
        wait: Duration,
    ) -> Result<DirLock, Error> {
        let path = layout.folder(Folder::Private).join(name);
        let started = Instant::now();
        loop {
            let file = open(&path)?;
            match file.try_lock() {
                Ok(()) => {
                    let lock = DirLock {
                        file,
                        path: path.clone(),
                        root: layout.root.clone(),
                    };
                    // Deleted between our open and our lock (by a holder that just let go, or
                    // by a person): take the lock of the file that is there now.
                    if lock.check().is_ok() {
                        return Ok(lock);
                    }
                    continue;
                }
                Err(fs::TryLockError::WouldBlock) => {
                    if started.elapsed() >= wait {
                        return Err(Error::Busy(busy(&layout.root, &path, holder, wait)));
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(fs::TryLockError::Error(e)) => {
                    return Err(Error::io(cannot(Act::Lock, path.display()))(e));
                }
            }
        }
    }

    /// Whether the lock file at its path is still the file this lock holds. On Unix a person
    /// (or a cleaning script) can delete or replace `DIR/.clientbank/lock` while it is held;
    /// another daemon would then take a lock of its own and both would work on the DIR. So
    /// the holder checks, after locking and at every rescan, that the path still names the
    /// same file (device and inode), and stops otherwise. On Windows the lock file is opened
    /// without `FILE_SHARE_DELETE`, so it cannot be deleted or replaced while it is open.
    pub fn check(&self) -> Result<(), Error> {
        let replaced = || {
            let (lock, root) = (self.path.display(), self.root.display());
            Error::Busy(tr!(
                "the lock file {lock} was deleted or replaced while this clientbank worked on \
                 {root}: another clientbank may be working on the folder now. Stopping here, \
                 before anything more is sent; make sure only one `clientbank watch` runs on the \
                 folder, then start it again (never delete .clientbank/lock by hand)" ;
                "файл блокировки {lock} удалён или заменён, пока этот clientbank работал с \
                 {root}: с папкой, возможно, уже работает другой clientbank. Остановлено здесь, \
                 пока больше ничего не отправлено; убедитесь, что на папке работает только один \
                 `clientbank watch`, и запустите его снова (никогда не удаляйте \
                 .clientbank/lock вручную)"
            ))
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let held = self
                .file
                .metadata()
                .map_err(Error::io(cannot(Act::Read, self.path.display())))?;
            match fs::metadata(&self.path) {
                Ok(now) if now.dev() == held.dev() && now.ino() == held.ino() => Ok(()),
                Ok(_) => Err(replaced()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(replaced()),
                Err(e) => Err(Error::io(cannot(Act::Read, self.path.display()))(e)),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = &self.file;
            if self.path.exists() {
                Ok(())
            } else {
                Err(replaced())
            }
        }
    }
}

fn open(path: &Path) -> Result<fs::File, Error> {
    let mut options = fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt;
        // FILE_SHARE_READ | FILE_SHARE_WRITE, without FILE_SHARE_DELETE: nobody can delete or
        // rename the lock file while it is open.
        options.share_mode(0x1 | 0x2);
    }
    options
        .open(path)
        .map_err(Error::io(cannot(Act::Open, path.display())))
}

fn busy(root: &Path, path: &Path, holder: Holder, wait: Duration) -> Message {
    let (root_shown, lock) = (root.display(), path.display());
    match holder {
        Holder::Daemon => tr!(
            "another clientbank is working on {root_shown} (it holds {lock}): a clientbank \
             watch, or an upload, sign or resolve that has not finished; one at a time per \
             folder" ;
            "с {root_shown} уже работает другой clientbank (он держит {lock}): clientbank \
             watch или незавершённые upload, sign или resolve; с папкой — по одному"
        ),
        Holder::Signer => {
            let waited = wait.as_secs();
            tr!(
                "another signing of {root_shown} is running (a clientbank sign, or the daemon \
                 signing on its own; it holds {lock}); waited {waited} s. One signer at a time, \
                 so that no id is signed twice: wait for it to end and try again" ;
                "для {root_shown} уже идёт подпись (clientbank sign или сам демон; она держит \
                 {lock}); ждали {waited} с. Подписывает один, чтобы ни один id не был подписан \
                 дважды: дождитесь её конца и повторите"
            )
        }
        Holder::Upload | Holder::Resolve | Holder::Probe => {
            let waited = wait.as_secs();
            let held = tr!(
                "a clientbank watch (or another clientbank command) is working on {root_shown} \
                 (it holds {lock}); waited {waited} s. One at a time per folder, so that no \
                 payment goes twice: stop the daemon (or wait for the command) and try again" ;
                "с {root_shown} работает clientbank watch (или другая команда clientbank; она \
                 держит {lock}); ждали {waited} с. С папкой — по одному, чтобы ни один платёж не \
                 ушёл дважды: остановите демон (или дождитесь команды) и повторите"
            );
            if holder != Holder::Upload {
                return held;
            }
            let inbox = root.join(Folder::Inbox.as_str());
            let inbox = inbox.display();
            tr!(
                "{}; a file to upload can instead be dropped into {inbox}, where the daemon \
                 takes it", held.en() ;
                "{}; файл для загрузки можно вместо этого положить в {inbox}, откуда его возьмёт \
                 демон", held.ru()
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder (kept while the `TempDir` lives) whose daemon holds its lock.
    fn held_by_the_daemon() -> (tempfile::TempDir, Layout, DirLock) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".clientbank")).unwrap();
        let layout = Layout::new(dir.path());
        let daemon = DirLock::acquire(&layout, Holder::Daemon, Duration::ZERO).unwrap();
        (dir, layout, daemon)
    }

    #[test]
    fn signing_has_its_own_lock_for_one_signer_at_a_time() {
        let (_dir, layout, _daemon) = held_by_the_daemon();
        let signer = DirLock::acquire_signing(&layout, Duration::ZERO).expect("beside the daemon");
        let second = DirLock::acquire_signing(&layout, Duration::ZERO);
        assert!(matches!(second, Err(Error::Busy(_))), "{second:?}");
        drop(signer);
        DirLock::acquire_signing(&layout, Duration::ZERO).expect("free again");
    }

    #[test]
    fn a_busy_folder_is_said_with_what_the_refused_one_can_do() {
        let (_dir, layout, _daemon) = held_by_the_daemon();
        let _signer = DirLock::acquire_signing(&layout, Duration::ZERO).unwrap();
        let said = |result: Result<DirLock, Error>| match result {
            Err(Error::Busy(m)) => m,
            other => panic!("{other:?}"),
        };
        let upload = said(DirLock::acquire(&layout, Holder::Upload, Duration::ZERO));
        let resolve = said(DirLock::acquire(&layout, Holder::Resolve, Duration::ZERO));
        let sign = said(DirLock::acquire_signing(&layout, Duration::ZERO));
        assert!(upload.en().contains("dropped into"), "{}", upload.en());
        assert!(upload.ru().contains("положить в"), "{}", upload.ru());
        for other in [&resolve, &sign] {
            assert!(!other.en().contains("inbox"), "{}", other.en());
            assert!(!other.ru().contains("inbox"), "{}", other.ru());
        }
        assert!(resolve.en().contains("stop the daemon"), "{}", resolve.en());
        assert!(sign.en().contains("another signing"), "{}", sign.en());
        assert!(sign.ru().contains("уже идёт подпись"), "{}", sign.ru());
    }
}
