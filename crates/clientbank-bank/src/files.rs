//! Files written whole or not at all: what 1C reads (`kl_to_1c.txt`) must never be seen half
//! written.

use std::fs;
use std::io;
use std::path::Path;

use clientbank_diagnostic::os::{Act, cannot};
use clientbank_format::Message;

use crate::Error;

/// Writes `target` whole or not at all: `write` fills a temporary file beside it (hidden, in
/// the same folder, so the rename cannot cross file systems), which is flushed, synced and then
/// renamed over `target` in one step. A reader (1C loading `kl_to_1c.txt`) sees the old file or
/// the new one, never half of one; on any error the temporary file is removed and `target` is
/// left as it was.
pub fn replace_atomically<T>(
    target: &Path,
    write: impl FnOnce(&mut io::BufWriter<&fs::File>) -> Result<T, Error>,
) -> Result<T, Error> {
    let failed = |e: io::Error| {
        let shown = target.display();
        Error::io(cannot(Act::Write, shown))(e)
    };
    // A link is written through (its file is replaced, the link stays); anything but a regular
    // file (a FIFO, a device, a folder) or a read-only file is refused, never replaced.
    let refused = |en: String, ru: String| Error::Usage(clientbank_format::Message::new(en, ru));
    let shown = target.display().to_string();
    let resolved;
    let target = match fs::symlink_metadata(target) {
        Ok(meta) if meta.file_type().is_symlink() => {
            resolved = fs::canonicalize(target).map_err(|e| {
                refused(
                    format!("{shown} is a link to nothing that can be written ({e}): not replaced"),
                    format!(
                        "{shown} — ссылка, по которой нечего записать ({}): не заменён",
                        clientbank_diagnostic::os::Ru(&e)
                    ),
                )
            })?;
            resolved.as_path()
        }
        _ => target,
    };
    if let Ok(meta) = fs::metadata(target) {
        if !meta.is_file() {
            let kind = kind_of(meta.file_type());
            return Err(refused(
                format!("{shown} is {}: not replaced", kind.en()),
                format!("{shown} — {}: не заменён", kind.ru()),
            ));
        }
        if meta.permissions().readonly() {
            return Err(refused(
                format!("{shown} is read-only: not replaced"),
                format!("{shown} только для чтения: не заменён"),
            ));
        }
    }
    let folder = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        let folder = folder.display();
        return Err(refused(
            format!("{shown}: the folder {folder} does not exist"),
            format!("{shown}: папки {folder} нет"),
        ));
    }
    let temporary = temporary_in(folder).map_err(failed)?;
    remove_stale_temporaries(folder, temporary.path());
    let value = {
        let mut out = io::BufWriter::with_capacity(1 << 16, temporary.as_file());
        let value = write(&mut out)?;
        io::Write::flush(&mut out).map_err(failed)?;
        value
    };
    readable_as(target, temporary.path()).map_err(failed)?;
    temporary.as_file().sync_all().map_err(failed)?;
    temporary.persist(target).map_err(|e| failed(e.error))?;
    Ok(value)
}

/// A temporary file in `folder` that is to become a file there: `.clientbank-*.tmp` (what
/// [`remove_stale_temporaries`] knows as ours), made as any new file is, `0666` less the
/// process's umask (a temporary file is otherwise readable by its owner only, and 1C or the
/// accountant may read the result as another user; a umask of `077` keeps it private).
pub fn temporary_in(folder: &Path) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".clientbank-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(folder)
}

/// Makes the temporary file that is to become `target` as readable as the file it replaces
/// (a new file keeps the mode [`temporary_in`] made it with). Nothing to do on Windows, where
/// a file takes its folder's rights.
pub fn readable_as(target: &Path, temporary: &Path) -> io::Result<()> {
    #[cfg(unix)]
    if let Ok(meta) = fs::metadata(target) {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        fs::set_permissions(temporary, fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = (target, temporary);
    Ok(())
}

/// Removes what an interrupted [`replace_atomically`] left in `folder` (killed between making
/// its temporary file and renaming it): `.clientbank-*.tmp` files untouched for an hour. The
/// hour is counted on the file system's clock — from the time of `ours`, the temporary file
/// just made — not this machine's: a file server's clock may differ from ours by more than
/// that, and a writer's fresh file on it must not look stale. Best effort: what cannot be
/// removed stays.
fn remove_stale_temporaries(folder: &Path, ours: &Path) {
    let Some(hour_ago) = fs::metadata(ours)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|now| now.checked_sub(std::time::Duration::from_secs(3600)))
    else {
        return;
    };
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with(".clientbank-") && name.ends_with(".tmp")) || entry.path() == ours {
            continue;
        }
        let stale = entry
            .metadata()
            .ok()
            .filter(fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
            .is_some_and(|at| at < hour_ago);
        if stale {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// What kind of thing a directory entry that is no regular file is, for people.
pub fn kind_of(file_type: fs::FileType) -> Message {
    let (en, ru) = kind_words(file_type);
    Message::new(en, ru)
}

fn kind_words(file_type: fs::FileType) -> (&'static str, &'static str) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return ("a FIFO", "именованный канал (FIFO)");
        }
        if file_type.is_socket() {
            return ("a socket", "сокет");
        }
        if file_type.is_block_device() || file_type.is_char_device() {
            return ("a device", "устройство");
        }
    }
    if file_type.is_symlink() {
        ("a symbolic link", "символическая ссылка")
    } else if file_type.is_dir() {
        ("a folder", "папка")
    } else {
        ("not a regular file", "не обычный файл")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt;

    fn write(target: &Path, text: &str) -> Result<(), Error> {
        replace_atomically(target, |out| {
            io::Write::write_all(out, text.as_bytes())
                .map_err(Error::io(Message::new("write", "запись")))
        })
    }

    #[test]
    fn a_file_is_replaced_whole_and_nothing_else_is() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("kl_to_1c.txt");
        write(&target, "one").unwrap();
        write(&target, "two").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "two");
        // A write that fails leaves the old file and no temporary one.
        let failed = replace_atomically(&target, |_| -> Result<(), Error> {
            Err(Error::Usage(clientbank_format::Message::new(
                "stopped",
                "остановлено",
            )))
        });
        assert!(failed.is_err());
        assert_eq!(fs::read_to_string(&target).unwrap(), "two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        // A folder and a read-only file are refused, not replaced.
        let folder = dir.path().join("folder");
        fs::create_dir(&folder).unwrap();
        let e = write(&folder, "x").unwrap_err().to_string();
        assert!(e.contains("a folder: not replaced"), "{e}");
        let locked = dir.path().join("locked.txt");
        fs::write(&locked, "keep").unwrap();
        let mut read_only = fs::metadata(&locked).unwrap().permissions();
        read_only.set_readonly(true);
        fs::set_permissions(&locked, read_only).unwrap();
        let e = write(&locked, "x").unwrap_err().to_string();
        assert!(e.contains("read-only"), "{e}");
        let e = write(&dir.path().join("nowhere/kl_to_1c.txt"), "x").unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        assert!(!e.to_string().contains(".clientbank-"), "{e}");
        assert_eq!(fs::read_to_string(&locked).unwrap(), "keep");
        // A temporary file an interrupted write left an hour ago is cleared; a fresh one stays.
        let stale = dir.path().join(".clientbank-old.tmp");
        let fresh = dir.path().join(".clientbank-new.tmp");
        fs::write(&stale, "x").unwrap();
        fs::write(&fresh, "x").unwrap();
        fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(
                fs::metadata(&fresh).unwrap().modified().unwrap()
                    - std::time::Duration::from_secs(7200),
            )
            .unwrap();
        write(&target, "three").unwrap();
        assert!(!stale.exists() && fresh.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_written_through_and_a_fifo_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&link, "new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let e = write(&fifo, "x").unwrap_err().to_string();
        assert!(e.contains("FIFO"), "{e}");
        assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    }
}
