//! What the operating system said, in both languages.
//!
//! An `std::io::Error` prints the system's own English ("No such file or directory (os error
//! 2)"), and a network library's error prints a chain of such texts. A Russian reader gets
//! the error's kind in Russian words, with the system's code kept for whoever searches it.

use std::error::Error;
use std::io::{self, ErrorKind};

use crate::Message;

/// What could not be done to a file or folder: the start of an I/O error's message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// Making a file or folder.
    Create,
    /// Reading one.
    Read,
    /// Writing one.
    Write,
    /// Opening one.
    Open,
    /// Locking one.
    Lock,
    /// Moving one.
    Move,
    /// Removing one.
    Remove,
}

/// `cannot ACT WHAT` in both languages: `cannot create inbox/`, `не удалось создать inbox/`.
pub fn cannot(act: Act, what: impl std::fmt::Display) -> Message {
    let (en, ru) = match act {
        Act::Create => ("create", "создать"),
        Act::Read => ("read", "прочитать"),
        Act::Write => ("write", "записать"),
        Act::Open => ("open", "открыть"),
        Act::Lock => ("lock", "заблокировать"),
        Act::Move => ("move", "переместить"),
        Act::Remove => ("remove", "удалить"),
    };
    Message::new(
        format!("cannot {en} {what}"),
        format!("не удалось {ru} {what}"),
    )
}

/// An I/O error in both languages: the system's own text in English, its kind in Russian
/// words (with the system's code, where it gave one) or the English text where the kind is
/// one not named here.
///
/// ```
/// use clientbank_diagnostic::os;
///
/// let e = std::io::Error::from_raw_os_error(2);
/// # #[cfg(unix)]
/// assert_eq!(os::io_error(&e).ru(), "нет такого файла или папки (ошибка системы 2)");
/// ```
pub fn io_error(e: &io::Error) -> Message {
    let en = e.to_string();
    if let Some(at) = e.get_ref().and_then(|inner| inner.downcast_ref::<AtPath>()) {
        return Message::new(en, format!("{}: {}", at.path, io_error(&at.source).ru()));
    }
    // A library's error about a path (tempfile's "… at path …") around the system's own: the
    // system's, in Russian; the English keeps the whole.
    if let Some(inner) = e.get_ref().and_then(|inner| inner.source())
        && let Some(system) = inner.downcast_ref::<io::Error>()
    {
        return Message::new(en, io_error(system).ru().to_string());
    }
    let ru = match (kind_ru(e.kind()), e.raw_os_error()) {
        (Some(words), Some(code)) => format!("{words} (ошибка системы {code})"),
        (Some(words), None) if e.get_ref().is_none() => words.to_string(),
        // A library's wrapping of the system's error (tempfile's "… (os error 2) at path …"):
        // the system's code is in its text.
        (Some(words), None) if os_code(&en).is_some() => {
            format!(
                "{words} (ошибка системы {})",
                os_code(&en).unwrap_or_default()
            )
        }
        // An error made with a text of its own (`io::Error::other("…")`): the text says more
        // than its kind.
        (Some(words), None) => format!("{words}: {en}"),
        (None, _) => en.clone(),
    };
    Message::new(en, ru)
}

/// How a program that failed ended, in both languages, with what it said on its standard
/// error after it (nothing when it said nothing): `exit code 1: bad key` / `код выхода 1: …`.
pub fn failed_run(status: std::process::ExitStatus, stderr: &[u8]) -> Message {
    let said = String::from_utf8_lossy(stderr);
    let said: String = said.trim().chars().take(600).collect();
    let said = if said.is_empty() {
        String::new()
    } else {
        format!(": {said}")
    };
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return Message::new(
            format!("killed by signal {signal}{said}"),
            format!("прервана сигналом {signal}{said}"),
        );
    }
    match status.code() {
        Some(code) => Message::new(
            format!("exit code {code}{said}"),
            format!("код выхода {code}{said}"),
        ),
        None => Message::new(format!("{status}{said}"), format!("{status}{said}")),
    }
}

/// An I/O error with the path it happened at (`out.json: No such file or directory`), for
/// `io::Error::new(e.kind(), AtPath::new(path, e))`: [`io_error`] says it in Russian with the
/// path kept.
#[derive(Debug)]
pub struct AtPath {
    path: String,
    source: io::Error,
}

impl AtPath {
    /// `source`, which happened at `path`.
    pub fn new(path: &std::path::Path, source: io::Error) -> AtPath {
        AtPath {
            path: path.display().to_string(),
            source,
        }
    }

    /// The same error as an `io::Error` of the same kind.
    pub fn into_io(self) -> io::Error {
        io::Error::new(self.source.kind(), self)
    }
}

impl std::fmt::Display for AtPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.source)
    }
}

impl Error for AtPath {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.source)
    }
}

/// The cause of an error in both languages: its own text in English; in Russian, the first
/// I/O error found down its chain of sources said by [`io_error`], or else its own text.
pub fn cause(e: &(dyn Error + 'static)) -> Message {
    let mut next = Some(e);
    while let Some(link) = next {
        if let Some(io) = link.downcast_ref::<io::Error>() {
            return Message::new(full(e), io_error(io).ru().to_string());
        }
        next = link.source();
    }
    Message::same(full(e))
}

/// An error shown in Russian in a `format!`: [`cause`]'s Russian.
/// `format!("не удалось прочитать {}: {}", path, os::Ru(&e))`.
#[derive(Clone, Copy, Debug)]
pub struct Ru<'a>(pub &'a (dyn Error + 'static));

impl std::fmt::Display for Ru<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(cause(self.0).ru())
    }
}

/// An error's text with its sources' after it, each said once (a library often repeats its
/// source's text in its own).
fn full(e: &(dyn Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut next = e.source();
    while let Some(source) = next {
        let said = source.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        next = source.source();
    }
    text
}

/// The system's code a library's text carries (`… (os error 2) …`).
fn os_code(text: &str) -> Option<&str> {
    let (_, rest) = text.split_once("(os error ")?;
    let code = rest.split(')').next()?;
    code.chars().all(|c| c.is_ascii_digit()).then_some(code)
}

/// The Russian words for an error's kind, where there are some.
fn kind_ru(kind: ErrorKind) -> Option<&'static str> {
    use ErrorKind as K;
    Some(match kind {
        K::NotFound => "нет такого файла или папки",
        K::PermissionDenied => "нет доступа",
        K::AlreadyExists => "уже существует",
        K::ConnectionRefused => "соединение отвергнуто",
        K::ConnectionReset => "соединение сброшено другой стороной",
        K::ConnectionAborted => "соединение прервано",
        K::NotConnected => "нет соединения",
        K::AddrInUse => "адрес уже занят другой программой",
        K::AddrNotAvailable => "адрес недоступен на этой машине",
        K::HostUnreachable => "узел недоступен",
        K::NetworkUnreachable => "сеть недоступна",
        K::NetworkDown => "сеть отключена",
        K::BrokenPipe => "другая сторона закрыла канал",
        K::TimedOut => "время ожидания истекло",
        K::Interrupted => "операция прервана",
        K::WouldBlock | K::ResourceBusy => "занято другой программой",
        K::InvalidInput => "недопустимый аргумент",
        K::InvalidData => "неверные данные",
        K::InvalidFilename => "недопустимое имя файла",
        K::UnexpectedEof => "данные кончились раньше времени",
        K::WriteZero => "не удалось записать ни байта",
        K::StorageFull => "нет места на диске",
        K::QuotaExceeded => "превышена квота на диске",
        K::FileTooLarge => "файл слишком велик",
        K::ReadOnlyFilesystem => "файловая система только для чтения",
        K::IsADirectory => "это папка, а не файл",
        K::NotADirectory => "это не папка",
        K::DirectoryNotEmpty => "папка не пуста",
        K::CrossesDevices => "перемещение между разными дисками невозможно",
        K::TooManyLinks => "слишком много ссылок",
        K::ExecutableFileBusy => "исполняемый файл занят",
        K::StaleNetworkFileHandle => "сетевой файл больше недоступен",
        K::Deadlock => "взаимная блокировка",
        K::OutOfMemory => "не хватает памяти",
        K::Unsupported => "не поддерживается",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_failed_run_is_said_with_its_code_and_words() {
        let run = |script: &str| {
            std::process::Command::new("sh")
                .args(["-c", script])
                .output()
                .unwrap()
        };
        let out = run("echo 'Ошибка ключа' >&2; exit 3");
        let said = failed_run(out.status, &out.stderr);
        assert_eq!(said.en(), "exit code 3: Ошибка ключа");
        assert_eq!(said.ru(), "код выхода 3: Ошибка ключа");
        let out = run("exit 1");
        assert_eq!(failed_run(out.status, &out.stderr).ru(), "код выхода 1");
        let out = run("kill -9 $$");
        assert_eq!(
            failed_run(out.status, &out.stderr).ru(),
            "прервана сигналом 9"
        );
    }

    #[test]
    fn a_system_error_is_said_in_russian_words_with_its_code() {
        let e = io::Error::from_raw_os_error(13);
        let said = io_error(&e);
        assert_eq!(said.en(), e.to_string());
        #[cfg(unix)]
        assert_eq!(said.ru(), "нет доступа (ошибка системы 13)");
    }

    #[test]
    fn an_error_with_a_text_of_its_own_keeps_it() {
        let e = io::Error::new(ErrorKind::InvalidData, "stream did not contain valid UTF-8");
        assert_eq!(
            io_error(&e).ru(),
            "неверные данные: stream did not contain valid UTF-8"
        );
        let bare = io::Error::from(ErrorKind::NotFound);
        assert_eq!(io_error(&bare).ru(), "нет такого файла или папки");
        let other = io::Error::other("disk on fire");
        assert_eq!(io_error(&other).ru(), "disk on fire");
        let wrapped = io::Error::new(
            ErrorKind::NotFound,
            "No such file or directory (os error 2) at path \"/x/.tmp\"",
        );
        assert_eq!(
            io_error(&wrapped).ru(),
            "нет такого файла или папки (ошибка системы 2)"
        );
        let at = AtPath::new(std::path::Path::new("out.json"), wrapped).into_io();
        assert_eq!(
            io_error(&at).ru(),
            "out.json: нет такого файла или папки (ошибка системы 2)"
        );
    }

    /// A library error wrapping an I/O error, as a network client's does.
    #[derive(Debug)]
    struct Wrapped(io::Error);

    impl std::fmt::Display for Wrapped {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("tcp connect error")
        }
    }

    impl Error for Wrapped {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_cause_down_the_chain_is_found_and_said_in_russian() {
        let e = Wrapped(io::Error::from(ErrorKind::ConnectionRefused));
        let said = cause(&e);
        assert_eq!(said.en(), "tcp connect error: connection refused");
        assert_eq!(said.ru(), "соединение отвергнуто");
        let plain = std::fmt::Error;
        assert_eq!(cause(&plain).ru(), plain.to_string());
    }
}
