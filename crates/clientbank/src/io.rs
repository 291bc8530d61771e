//! Where input comes from and output goes: files, or `-` for the standard streams.

use clientbank_diagnostic::os::AtPath;
use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;

use crate::term::tr;

/// Whether a path argument means a standard stream.
pub(crate) fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How a path argument is shown: `<stdin>` for `-`.
pub(crate) fn shown(path: &Path) -> String {
    if is_std(path) {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// The bytes of a file, or of standard input for `-`; `progress` sees each chunk read.
pub(crate) fn read(path: &Path, progress: &indicatif::ProgressBar) -> io::Result<Vec<u8>> {
    read_with(path, progress, READ_IN_TWO_FROM)
}

/// A file from this size on is read in two halves at once, each by its own thread: copying a
/// big file out of the system's cache, into pages the system must first clear, is a good part
/// of what a whole command does with it, and the second core would wait meanwhile.
const READ_IN_TWO_FROM: u64 = 32 << 20;

/// [`read`], in two halves from `in_two_from` bytes on.
fn read_with(
    path: &Path,
    progress: &indicatif::ProgressBar,
    in_two_from: u64,
) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if is_std(path) {
        read_counted(io::stdin().lock(), &mut bytes, progress)?;
        return Ok(bytes);
    }
    let mut file = std::fs::File::open(path)?;
    let size = file.metadata().map_or(0, |meta| meta.len());
    // The bar may count earlier files too (`check A B`).
    let before = progress.position();
    if size >= in_two_from
        && let Ok(len) = usize::try_from(size)
        && let Some(mut bytes) = in_two(&file, len, progress)?
    {
        // What the file grew by since its size was asked.
        io::Seek::seek(&mut file, io::SeekFrom::Start(size))?;
        file.read_to_end(&mut bytes)?;
        return Ok(bytes);
    }
    // Read as a stream: from the start, and counted from where the bar stood.
    progress.set_position(before);
    io::Seek::seek(&mut file, io::SeekFrom::Start(0))?;
    bytes.reserve_exact(usize::try_from(size).unwrap_or(0));
    read_counted(file, &mut bytes, progress)?;
    Ok(bytes)
}

/// Reads `input` to its end onto `bytes`, telling `progress` a block at a time. Straight into
/// the vector's room: a reader wrapped to count what it reads (as indicatif's is) would have
/// that room zeroed first, a pass over every byte of the file.
fn read_counted(
    mut input: impl Read,
    bytes: &mut Vec<u8>,
    progress: &indicatif::ProgressBar,
) -> io::Result<()> {
    const BLOCK: u64 = 4 << 20;
    loop {
        match input.by_ref().take(BLOCK).read_to_end(bytes)? {
            0 => return Ok(()),
            read => progress.inc(read as u64),
        }
    }
}

/// The first `len` bytes of `file`, its two halves read at once; `None` where the file is
/// shorter by now (it is read again from its start, as a stream) or this system reads no
/// file at a place.
fn in_two(
    file: &std::fs::File,
    len: usize,
    progress: &indicatif::ProgressBar,
) -> io::Result<Option<Vec<u8>>> {
    // Zeroed pages come fresh from the system (no pass over them here); each is filled by the
    // thread that reads into it.
    let mut bytes = vec![0u8; len];
    let middle = len / 2;
    let (first, second) = bytes.split_at_mut(middle);
    let halves = std::thread::scope(|scope| {
        // No second thread to be had: the file is read as a stream instead.
        let Some(later) = clientbank_diagnostic::threads::spawn_scoped(scope, || {
            read_part(file, second, middle as u64, progress)
        }) else {
            return Ok(false);
        };
        let earlier = read_part(file, first, 0, progress);
        match later.join() {
            Ok(later) => earlier.and(later),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    match halves {
        Ok(true) => Ok(Some(bytes)),
        Ok(false) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Fills `part` from `file` at `offset`, telling `progress` a block at a time; false where the
/// file ends before the part does.
fn read_part(
    file: &std::fs::File,
    part: &mut [u8],
    offset: u64,
    progress: &indicatif::ProgressBar,
) -> io::Result<bool> {
    const BLOCK: usize = 4 << 20;
    let mut at = offset;
    for block in part.chunks_mut(BLOCK) {
        match read_exact_at(file, block, at) {
            Ok(true) => {}
            other => return other,
        }
        at += block.len() as u64;
        progress.inc(block.len() as u64);
    }
    Ok(true)
}

/// Fills `buf` from `file` at `offset`, leaving the file's cursor where it is on Unix; false
/// where the file ends first, or where this system cannot read at a place.
#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<bool> {
    match std::os::unix::fs::FileExt::read_exact_at(file, buf, offset) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

/// See the Unix one; Windows moves the cursor (the caller seeks after).
#[cfg(windows)]
fn read_exact_at(file: &std::fs::File, mut buf: &mut [u8], mut offset: u64) -> io::Result<bool> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Ok(false),
            Ok(n) => {
                let rest = buf;
                buf = &mut rest[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

#[cfg(not(any(unix, windows)))]
fn read_exact_at(_: &std::fs::File, _: &mut [u8], _: u64) -> io::Result<bool> {
    Ok(false)
}

/// The `io::Error` of a file that cannot be read, for people.
pub(crate) fn cannot_read(path: &Path, e: &io::Error) -> String {
    tr(
        format!("cannot read {}: {e}", shown(path)),
        format!(
            "не удалось прочитать {}: {}",
            shown(path),
            clientbank_diagnostic::os::Ru(e)
        ),
    )
}

/// `-` given for more than one input: standard input can be read once.
pub(crate) fn stdin_twice(paths: &[std::path::PathBuf]) -> Option<String> {
    (paths.iter().filter(|p| is_std(p)).count() > 1).then(|| {
        tr(
            "`-` (standard input) is given more than once",
            "`-` (стандартный ввод) указан больше одного раза",
        )
    })
}

/// Why `convert` will not write to `output`: it is the input itself (the same file, by any
/// path, hard link or symbolic link, or the file standard input was given from for `-`).
pub(crate) fn same_as_input(input: &Path, output: &Path) -> Option<String> {
    if is_std(output) {
        return None;
    }
    // Comparing opens both files: only regular ones (opening a FIFO waits for its writer).
    let regular = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file());
    let same = if is_std(input) {
        // `convert - -o x.txt < x.txt`: standard input is the output's file.
        regular(output)
            && matches!(
                (same_file::Handle::stdin(), same_file::Handle::from_path(output)),
                (Ok(stdin), Ok(out)) if stdin == out
            )
    } else {
        (regular(input) && regular(output))
            && same_file::is_same_file(input, output).unwrap_or(false)
            || match (input.canonicalize(), absolute_parent(output)) {
                (Ok(a), Some(b)) => a == b,
                _ => false,
            }
    };
    same.then(|| {
        tr(
            format!(
                "{} is the input file: write the output to another file",
                output.display()
            ),
            format!(
                "{} — это входной файл: запишите результат в другой файл",
                output.display()
            ),
        )
    })
}

/// `output` resolved through its folder when it does not exist yet.
fn absolute_parent(output: &Path) -> Option<std::path::PathBuf> {
    if let Ok(path) = output.canonicalize() {
        return Some(path);
    }
    let name = output.file_name()?;
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.canonicalize().ok()?,
        _ => std::env::current_dir().ok()?,
    };
    Some(parent.join(name))
}

/// Where a command's main output goes: a file (`-o OUT`, created only when asked for) or
/// standard output.
pub(crate) enum Sink {
    Stdout,
    File(std::path::PathBuf),
}

impl Sink {
    pub(crate) fn new(output: Option<&Path>) -> Sink {
        match output {
            Some(path) if !is_std(path) => Sink::File(path.to_path_buf()),
            _ => Sink::Stdout,
        }
    }

    /// Whether the output goes to a terminal.
    pub(crate) fn is_terminal(&self) -> bool {
        matches!(self, Sink::Stdout) && io::stdout().is_terminal()
    }

    /// A writer whose output counts only once [`Pending::commit`] says so: a file is written
    /// beside its place and renamed over it then (dropped, nothing is left); standard output,
    /// or a path that is not a file (a pipe, a device: `/dev/null`), is written as it
    /// goes — never replaced by a file — or not at all when `hold` (a pass that knows
    /// beforehand that the output will not count).
    pub(crate) fn open_pending(&self, hold: bool) -> io::Result<Pending> {
        Ok(match self {
            Sink::File(path) if is_not_a_file(path) => {
                if hold {
                    Pending::Held
                } else {
                    let device = std::fs::OpenOptions::new()
                        .write(true)
                        .open(path)
                        .map_err(|e| AtPath::new(path, e).into_io())?;
                    Pending::Device(io::BufWriter::with_capacity(1 << 16, device))
                }
            }
            Sink::File(path) => {
                // A link is written through: its file is replaced (or made), the link stays.
                let path = &through_links(path).map_err(|e| AtPath::new(path, e).into_io())?;
                let folder = match path.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => std::path::PathBuf::from("."),
                };
                interrupted::listen();
                let temp = clientbank_bank::files::temporary_in(&folder)
                    .map_err(|e| AtPath::new(path, e).into_io())?;
                interrupted::writing(temp.path());
                Pending::File(Box::new(FileOut {
                    out: io::BufWriter::with_capacity(1 << 16, temp),
                    path: path.to_path_buf(),
                    flush: EarlyFlush::new(FLUSH_EVERY),
                }))
            }
            Sink::Stdout if hold => Pending::Held,
            Sink::Stdout => Pending::Stdout(io::BufWriter::with_capacity(1 << 16, io::stdout())),
        })
    }

    /// The buffered writer (a file is created now).
    pub(crate) fn open(&self) -> io::Result<Box<dyn Write>> {
        Ok(match self {
            Sink::File(path) => Box::new(io::BufWriter::with_capacity(
                1 << 16,
                std::fs::File::create(path).map_err(|e| AtPath::new(path, e).into_io())?,
            )),
            Sink::Stdout => Box::new(io::BufWriter::with_capacity(1 << 16, io::stdout().lock())),
        })
    }
}

/// How many links in a row [`through_links`] follows before it calls them a loop (as Linux
/// does).
const MAX_LINKS: usize = 40;

/// The path a file written at `path` takes: `path` itself, or for a symbolic link the path it
/// names, followed link by link — to a file that does not exist yet too, which writing then
/// makes (a link left dangling is not replaced by a file). A loop of links is an error.
fn through_links(path: &Path) -> io::Result<std::path::PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)?;
                // Relative to the link's folder; an absolute target replaces the path.
                path = match path.parent() {
                    Some(folder) => folder.join(target),
                    None => target,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(io::Error::other(tr(
        "too many symbolic links, one naming the next (a loop?)",
        "слишком много символьных ссылок подряд (ссылки по кругу?)",
    )))
}

/// Whether `path` is there and is not a file: a pipe or a device, which a file put in its
/// place would replace (`-o /dev/null` must not leave a file as `/dev/null`).
fn is_not_a_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Output that counts only when committed ([`Sink::open_pending`]).
pub(crate) enum Pending {
    File(Box<FileOut>),
    Stdout(io::BufWriter<io::Stdout>),
    /// A pipe or a device, written as it goes.
    Device(io::BufWriter<std::fs::File>),
    Held,
}

impl Write for Pending {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            Pending::File(file) => {
                let written = file.out.write(bytes).map_err(|e| file.at(e))?;
                file.flush.wrote(written, file.out.get_ref().as_file());
                Ok(written)
            }
            Pending::Stdout(out) => out.write(bytes),
            Pending::Device(out) => out.write(bytes),
            Pending::Held => Ok(bytes.len()),
        }
    }

    fn write_vectored(&mut self, bytes: &[io::IoSlice<'_>]) -> io::Result<usize> {
        match self {
            // More than the buffer holds goes to the file in one system call that copies from
            // each slice: the buffered writer would copy them into its buffer first (it cannot
            // tell that a temporary file writes vectored).
            Pending::File(file) => {
                let out = &mut file.out;
                let written = if bytes.iter().map(|b| b.len()).sum::<usize>() >= out.capacity() {
                    out.flush()
                        .and_then(|()| out.get_mut().as_file_mut().write_vectored(bytes))
                } else {
                    out.write_vectored(bytes)
                }
                .map_err(|e| file.at(e))?;
                file.flush.wrote(written, file.out.get_ref().as_file());
                Ok(written)
            }
            Pending::Stdout(out) => out.write_vectored(bytes),
            Pending::Device(out) => out.write_vectored(bytes),
            Pending::Held => Ok(bytes.iter().map(|b| b.len()).sum()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Pending::File(file) => file.out.flush().map_err(|e| file.at(e)),
            Pending::Stdout(out) => out.flush(),
            Pending::Device(out) => out.flush(),
            Pending::Held => Ok(()),
        }
    }
}

/// A file being written beside its place ([`Pending::File`]).
pub(crate) struct FileOut {
    out: io::BufWriter<tempfile::NamedTempFile>,
    path: std::path::PathBuf,
    flush: EarlyFlush,
}

impl FileOut {
    /// A failure to write the output, naming it (not its temporary file).
    fn at(&self, e: io::Error) -> io::Error {
        AtPath::new(&self.path, e).into_io()
    }
}

/// How much is written to a file between two early flushes ([`EarlyFlush`]).
const FLUSH_EVERY: u64 = 64 << 20;

/// Writes a big output's data to the disk while the rest is still being made: every `every`
/// bytes, a thread of its own asks the system to write what the file holds so far
/// (`sync_data` on a second handle of it), so that the `sync_all` before the file is renamed
/// into place has only the end left, not the whole file (hundreds of megabytes for a million
/// payments, a wait with both cores idle). The writer never waits for it: a flush asked for
/// while one runs is one flush. An error the thread meets is given by [`EarlyFlush::finish`]:
/// a handle shares its file's error state with the other, so the last `sync_all` might not
/// see it again. Where no second handle or no thread can be had, nothing is flushed early.
struct EarlyFlush {
    every: u64,
    /// Written since the last flush was asked for.
    since: u64,
    /// The flushing thread, once the file is big enough to need one.
    thread: Option<Flusher>,
    /// No second handle or no thread could be had: nothing is flushed early.
    alone: bool,
}

struct Flusher {
    ask: std::sync::mpsc::SyncSender<()>,
    done: std::thread::JoinHandle<io::Result<usize>>,
}

impl EarlyFlush {
    fn new(every: u64) -> EarlyFlush {
        EarlyFlush {
            every,
            since: 0,
            thread: None,
            alone: false,
        }
    }

    /// `written` more bytes went to `file`.
    fn wrote(&mut self, written: usize, file: &std::fs::File) {
        self.since += written as u64;
        if self.since < self.every {
            return;
        }
        self.since = 0;
        if self.thread.is_none() && !self.alone {
            // No second handle or no thread to be had (a limit on open files or processes):
            // nothing is flushed early, and the last sync writes it all, as it used to.
            match file.try_clone().ok().and_then(Flusher::start) {
                Some(flusher) => self.thread = Some(flusher),
                None => self.alone = true,
            }
        }
        if let Some(flusher) = &self.thread {
            // Full: a flush is waiting already, which will write this too.
            let _ = flusher.ask.try_send(());
        }
    }

    /// Waits for the flush under way; how many flushes ran, or the first error one met.
    fn finish(self) -> io::Result<usize> {
        let Some(Flusher { ask, done }) = self.thread else {
            return Ok(0);
        };
        drop(ask);
        done.join()
            .unwrap_or_else(|_| Err(io::Error::other("the early flush of the output failed")))
    }
}

impl Flusher {
    fn start(file: std::fs::File) -> Option<Flusher> {
        let (ask, asked) = std::sync::mpsc::sync_channel::<()>(1);
        let done = clientbank_diagnostic::threads::spawn(move || {
            let mut flushes = 0;
            while asked.recv().is_ok() {
                file.sync_data()?;
                flushes += 1;
            }
            Ok(flushes)
        })?;
        Some(Flusher { ask, done })
    }
}

impl Pending {
    /// The output counts: a file takes its place (a file that was there is replaced whole).
    pub(crate) fn commit(self) -> io::Result<()> {
        match self {
            Pending::File(file) => {
                let FileOut { out, path, flush } = *file;
                let at = |e| AtPath::new(&path, e).into_io();
                let temp = out
                    .into_inner()
                    .map_err(|e| at(io::IntoInnerError::into_error(e)))?;
                clientbank_bank::files::readable_as(&path, temp.path()).map_err(at)?;
                // What the early flushes wrote is on the disk; any error they met is this one.
                flush.finish().map_err(at)?;
                temp.as_file().sync_all().map_err(at)?;
                let written = temp.path().to_path_buf();
                let persisted = temp.persist(&path).map(drop).map_err(|e| at(e.error));
                interrupted::written(&written);
                persisted
            }
            Pending::Stdout(mut out) => out.flush(),
            Pending::Device(mut out) => out.flush(),
            Pending::Held => Ok(()),
        }
    }
}

/// A command stopped from outside (Ctrl-C, its terminal closed, `kill`) before its output took
/// its place leaves no temporary file behind: the temporary files being written are removed,
/// and the process ends as a stopped one would (exit 130 for Ctrl-C, 129 and 143 for the
/// others). Nothing is listened for until a command is about to make one.
mod interrupted {
    use std::path::{Path, PathBuf};
    use std::sync::{Mutex, Once};

    /// The temporary files being written now.
    static WRITING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    static LISTENING: Once = Once::new();

    fn paths() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
        WRITING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Listens for a stop from now on (before a temporary file is made, so that none is made
    /// while a stop would still end the process as the system does). The stops are taken over
    /// only by a thread of their own: where none can be had (`CLIENTBANK_THREADS=1`), a stop
    /// ends the process as the system does.
    pub(super) fn listen() {
        LISTENING.call_once(|| {
            let (ready, registered) = std::sync::mpsc::sync_channel::<()>(1);
            let spawned = clientbank_diagnostic::threads::spawn(move || {
                let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                    .enable_io()
                    .build()
                else {
                    return;
                };
                let Some(stops) = Stops::new(&runtime) else {
                    return;
                };
                let _ = ready.send(());
                let code = runtime.block_on(stops.first());
                for path in paths().iter() {
                    let _ = std::fs::remove_file(path);
                }
                std::process::exit(code);
            });
            if spawned.is_some() {
                // Taken over before this returns (or given up: the thread dropped `ready`).
                let _ = registered.recv();
            }
        });
    }

    /// `temp` is being written: removed if the process is stopped.
    pub(super) fn writing(temp: &Path) {
        paths().push(temp.to_path_buf());
    }

    /// `temp` took its place (or is gone): nothing to remove.
    pub(super) fn written(temp: &Path) {
        paths().retain(|p| p != temp);
    }

    /// The stops listened for.
    #[cfg(unix)]
    struct Stops([(tokio::signal::unix::Signal, i32); 3]);

    #[cfg(unix)]
    impl Stops {
        fn new(runtime: &tokio::runtime::Runtime) -> Option<Stops> {
            use tokio::signal::unix::{SignalKind, signal};
            let _inside = runtime.enter();
            Some(Stops([
                (signal(SignalKind::interrupt()).ok()?, 130),
                (signal(SignalKind::hangup()).ok()?, 129),
                (signal(SignalKind::terminate()).ok()?, 143),
            ]))
        }

        /// The exit code of the first stop that comes.
        async fn first(self) -> i32 {
            let [(mut interrupt, i), (mut hangup, h), (mut terminate, t)] = self.0;
            tokio::select! {
                _ = interrupt.recv() => i,
                _ = hangup.recv() => h,
                _ = terminate.recv() => t,
            }
        }
    }

    /// Ctrl-C, as Windows tells it.
    #[cfg(windows)]
    struct Stops(tokio::signal::windows::CtrlC);

    #[cfg(windows)]
    impl Stops {
        fn new(runtime: &tokio::runtime::Runtime) -> Option<Stops> {
            let _inside = runtime.enter();
            tokio::signal::windows::ctrl_c().ok().map(Stops)
        }

        async fn first(mut self) -> i32 {
            self.0.recv().await;
            130
        }
    }

    /// Elsewhere nothing is listened for: a stop ends the process as the system does.
    #[cfg(not(any(unix, windows)))]
    struct Stops;

    #[cfg(not(any(unix, windows)))]
    impl Stops {
        fn new(_: &tokio::runtime::Runtime) -> Option<Stops> {
            None
        }

        async fn first(self) -> i32 {
            130
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file written past the flush size is flushed early, as it grows, by the flushing
    /// thread (never more often than asked); one that stays small never starts the thread.
    #[test]
    fn a_growing_output_is_flushed_as_it_grows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        let mut file = std::fs::File::create(&path).unwrap();
        let mut flush = EarlyFlush::new(1000);
        let mut written = Vec::new();
        for i in 0..50u8 {
            let chunk = vec![i; 301];
            file.write_all(&chunk).unwrap();
            flush.wrote(chunk.len(), &file);
            written.extend(chunk);
        }
        let flushes = flush.finish().unwrap();
        // 15,050 bytes: a flush asked for at each 1,000 (fewer when one was under way).
        assert!((1..=15).contains(&flushes), "{flushes}");
        assert_eq!(std::fs::read(&path).unwrap(), written);
        // Where no thread can be had, nothing is flushed early, and nothing fails.
        let mut alone = EarlyFlush::new(1000);
        clientbank_diagnostic::threads::refuse_next(1);
        alone.wrote(4096, &file);
        alone.wrote(4096, &file);
        assert!(alone.thread.is_none() && alone.alone);
        assert_eq!(alone.finish().unwrap(), 0);
        let mut small = EarlyFlush::new(1 << 20);
        small.wrote(4096, &file);
        assert!(small.thread.is_none());
        assert_eq!(small.finish().unwrap(), 0);
    }

    /// A file read in two halves is the file, byte for byte, at any size (odd, empty, smaller
    /// than a block, over several blocks), and the progress bar counts every byte once.
    #[test]
    fn a_file_read_in_two_halves_is_the_file() {
        let dir = tempfile::tempdir().unwrap();
        for len in [0usize, 1, 2, 3, 4097, (4 << 20) * 2 + 12345] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let path = dir.path().join(format!("{len}.txt"));
            std::fs::write(&path, &bytes).unwrap();
            let progress = indicatif::ProgressBar::hidden();
            assert_eq!(read_with(&path, &progress, 0).unwrap(), bytes, "{len}");
            assert_eq!(progress.position(), len as u64, "{len}");
            let progress = indicatif::ProgressBar::hidden();
            assert_eq!(
                read_with(&path, &progress, u64::MAX).unwrap(),
                bytes,
                "{len}"
            );
        }
    }

    /// The progress bar goes on from where earlier files left it, read in two halves or not.
    #[test]
    fn the_bar_counts_on_from_earlier_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, vec![b'x'; 5000]).unwrap();
        for in_two_from in [0, u64::MAX] {
            let progress = indicatif::ProgressBar::hidden();
            progress.set_position(1000);
            read_with(&path, &progress, in_two_from).unwrap();
            assert_eq!(progress.position(), 6000, "{in_two_from}");
        }
    }

    /// A file that is shorter than its size said by the time it is read (another program
    /// truncated it) is read as it is then, as a stream.
    #[test]
    fn a_file_shorter_than_its_size_is_read_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("short.txt");
        std::fs::write(&path, b"0123456789").unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let progress = indicatif::ProgressBar::hidden();
        assert_eq!(in_two(&file, 20, &progress).unwrap(), None);
        assert_eq!(
            in_two(&file, 10, &progress).unwrap().unwrap(),
            b"0123456789"
        );
    }

    #[test]
    fn the_input_is_recognised_by_any_path() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.txt");
        std::fs::write(&input, b"x").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let other = dir.path().join("sub/../in.txt");
        assert!(same_as_input(&input, &other).is_some());
        assert!(same_as_input(&input, &input).is_some());
        assert!(same_as_input(&input, &dir.path().join("out.txt")).is_none());
        #[cfg(unix)]
        {
            let link = dir.path().join("link.txt");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            assert!(same_as_input(&input, &link).is_some(), "a symbolic link");
            let hard = dir.path().join("hard.txt");
            std::fs::hard_link(&input, &hard).unwrap();
            assert!(same_as_input(&input, &hard).is_some(), "a hard link");
        }
        assert!(same_as_input(Path::new("-"), Path::new("-")).is_none());
        // A FIFO is not opened to be compared (that would wait for its writer).
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap();
            assert!(made.success());
            assert!(same_as_input(&input, &fifo).is_none());
        }
    }
}

#[cfg(all(test, unix))]
mod modes {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    /// `-o FILE` is as readable as the file it replaces, or as any new file is (`0666` less
    /// the umask): not the owner-only mode of the temporary file it was written in (1C may read
    /// it as another user), the same for every output (`clientbank_bank::files::temporary_in`).
    #[test]
    fn an_output_file_is_as_readable_as_any_file() {
        let dir = tempfile::tempdir().unwrap();
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        let plain = dir.path().join("plain.json");
        std::fs::File::create(&plain).unwrap();
        let new = dir.path().join("new.json");
        let mut out = Sink::File(new.clone()).open_pending(false).unwrap();
        out.write_all(b"[]").unwrap();
        out.commit().unwrap();
        assert_eq!(mode(&new), mode(&plain));
        let old = dir.path().join("old.json");
        std::fs::write(&old, b"x").unwrap();
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o640)).unwrap();
        let mut out = Sink::File(old.clone()).open_pending(false).unwrap();
        out.write_all(b"[]").unwrap();
        out.commit().unwrap();
        assert_eq!(mode(&old), 0o640);
        assert_eq!(std::fs::read(&old).unwrap(), b"[]");
    }
}
