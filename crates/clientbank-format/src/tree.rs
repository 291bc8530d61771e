//! The lossless syntax tree: every line of the input, in order, with typed access and edits.

use std::borrow::Cow;
use std::io::{self, Write};

use chrono::{NaiveDate, NaiveTime};
use rust_decimal::Decimal;

use crate::diagnostic::Diagnostic;
use crate::encoding::Detection;
use crate::model::{self, WriteError};
use crate::parse::{self, Grouper, Lines, Refused, Section, SectionKind, raw_line};
use crate::syntax::{
    Line, LineEnding, LineKind, LinesRef, Marker, NO_EQ, PackedLines, StoredLine, next_line,
};
use crate::{Encoding, Key, value};

/// A parsed exchange file: the tree and everything the reader noticed.
#[derive(Debug)]
pub struct Parsed {
    /// The file, line by line.
    pub tree: SyntaxTree,
    /// Every finding, in file order (warnings and errors; never fatal ones).
    pub diagnostics: Vec<Diagnostic>,
}

/// An exchange file held in memory, line by line, so that writing it back gives the same
/// bytes and edits change only the lines they touch.
///
/// The tree keeps the input bytes as they are (in their encoding) and an index of lines.
/// Values are decoded when asked for; dates and sums are read straight from the bytes.
#[derive(Clone, Debug)]
pub struct SyntaxTree {
    /// The input; edited lines are appended at the end (the lines say what is written).
    buf: Vec<u8>,
    /// How long the input was: where it ends in `buf`, before any edit's bytes.
    input_len: usize,
    encoding: Encoding,
    detection: Detection,
    bom: bool,
    sections: Vec<Section>,
    /// The lines of the sections read, one after the other (one vector per thread that read
    /// them); sections point into them.
    lines: Vec<Vec<StoredLine>>,
}

/// What reading found, before it is put together with the bytes.
struct Index {
    encoding: Encoding,
    detection: Detection,
    bom: bool,
    sections: Vec<Section>,
    lines: Vec<Vec<StoredLine>>,
    diagnostics: Vec<Diagnostic>,
    /// How many documents were read.
    documents: usize,
    /// The documents' lines, kept compactly ([`scan`]; empty for the tree), one store per
    /// thread that read them, in file order.
    packed: Vec<PackedDocuments>,
}

impl Index {
    fn with(self, buf: Vec<u8>) -> Parsed {
        Parsed {
            tree: SyntaxTree {
                input_len: buf.len(),
                buf,
                encoding: self.encoding,
                detection: self.detection,
                bom: self.bom,
                sections: self.sections,
                lines: self.lines,
            },
            diagnostics: self.diagnostics,
        }
    }
}

/// Reads an exchange file as [`parse`] does, without copying the input, and gives it back
/// when the reader refuses it (to show where).
pub fn parse_owned(input: Vec<u8>) -> Result<Parsed, (Refused, Vec<u8>)> {
    let pieces = pieces_for(input.len());
    SyntaxTree::parse_keeping(input, pieces)
}

/// Reads an exchange file from bytes in any of the supported encodings.
///
/// Every finding is collected; only input that cannot be read without guessing is refused
/// (empty, not an exchange file, two encodings, text destroyed into U+FFFD, over 4 GiB —
/// the streaming [`Reader`](crate::Reader) has no size limit).
///
/// An input of 4 MiB or more is read by two threads when the machine has two cores, in
/// pieces each takes as it is free; the result is exactly that of one pass.
pub fn parse(input: impl Into<Vec<u8>>) -> Result<Parsed, Refused> {
    SyntaxTree::parse(input.into())
}

/// Inputs from this size on are read by two threads when the machine has two cores.
const PARALLEL_FROM: usize = 4 << 20;
/// About how much of a large input is one piece for the two threads to take; at most
/// [`MOST_PIECES`] pieces.
const PIECE: usize = 16 << 20;
const MOST_PIECES: usize = 64;

/// How many pieces an input of `len` bytes is read in: one (one pass) when small or on one
/// core; else pieces that two threads take as each is free, so that a thread that runs slower
/// (a core shared with other work, as beside the accounting software) is not waited for
/// at the end: with two halves, one thread stood idle for a tenth of a `check` of 1M documents.
fn pieces_for(len: usize) -> usize {
    if len >= PARALLEL_FROM && std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2) {
        (len / PIECE).clamp(2, MOST_PIECES)
    } else {
        1
    }
}

/// The lines of `buf[from..to]` grouped by one [`Grouper`], not yet finished.
struct Chunk {
    grouper: Grouper,
    sections: Vec<Section>,
    /// The documents, when they are not kept as sections.
    packed: PackedDocuments,
    /// The number of the chunk's last line (its first is `first_number`).
    last_number: u32,
}

/// Groups the lines of `buf[from..to]`, numbering them from `first_number`; refuses a line
/// in another encoding.
fn group(
    buf: &[u8],
    encoding: Encoding,
    detection: Detection,
    from: usize,
    to: usize,
    first_number: u32,
    keep: Keep,
) -> Result<Chunk, Refused> {
    // Room for every line, reserved once: the lines are counted first (a memory-speed pass;
    // a file of CR endings alone is counted short, and grows). A vector that grows by moving
    // holds the old and the new copy at once: a file of short lines would peak at half as
    // much again.
    let lines = memchr::memchr_iter(b'\n', &buf[from..to]).count() + 16;
    let grouper = Grouper::new(encoding, detection, 0);
    let mut grouper = match keep {
        Keep::All => grouper.with_arena(lines),
        Keep::AllButDocuments => grouper.packing(lines),
    };
    let mut sections = Vec::new();
    let mut packed = PackedDocuments::default();
    let number = feed(
        &mut grouper,
        &mut sections,
        &mut packed,
        buf,
        from,
        to,
        first_number - 1,
    )?;
    Ok(Chunk {
        grouper,
        sections,
        packed,
        last_number: number,
    })
}

impl Chunk {
    /// Reads on from `from` (where the chunk ended) to the end of `buf`: the chunk saw
    /// `КонецФайла`, and one pass reads everything after it as "after the end".
    fn read_on(&mut self, buf: &[u8], from: usize) -> Result<(), Refused> {
        self.last_number = feed(
            &mut self.grouper,
            &mut self.sections,
            &mut self.packed,
            buf,
            from,
            buf.len(),
            self.last_number,
        )?;
        Ok(())
    }
}

/// The lines a scan read, kept compactly as [`PackedLines`], with what the reading found of
/// each line, so that giving a section back finds, shapes and looks up nothing again; and
/// where each document's words are.
#[derive(Clone, Debug, Default)]
struct PackedDocuments {
    lines: PackedLines,
    /// Where each document's words start and end in `lines`.
    documents: Vec<[u32; 2]>,
}

/// A document of more lines than this is not given whole: its lines are decoded from its
/// words each time they are read ([`LinesRef::Packed`]), so that a document of a million
/// lines holds no record of each.
const WHOLE_UP_TO: usize = 4096;

impl PackedDocuments {
    /// The lines of document `index`: whole, or the range of its words when it is large.
    fn document(&self, index: usize) -> Option<Lines> {
        let [start, end] = *self.documents.get(index)?;
        let mut lines = Vec::with_capacity(((end - start) as usize).min(WHOLE_UP_TO));
        match self
            .lines
            .run_up_to(start as usize..end as usize, &mut lines, WHOLE_UP_TO)?
        {
            true => Some(Lines::Owned(lines)),
            false => Some(Lines::Packed {
                store: 0,
                start,
                end,
            }),
        }
    }
}

/// Keeps a finished section: in `sections`, or its words' range in `packed` when it is a
/// document and documents are not kept as sections.
fn keep_section(section: Section, sections: &mut Vec<Section>, packed: &mut PackedDocuments) {
    match section.packed() {
        Some((_, start, end)) if section.kind == SectionKind::Document => {
            packed.documents.push([start, end]);
        }
        _ => sections.push(section),
    }
}

/// The lines of `section`: its own, or its words in one of `stores`.
fn lines_in<'a>(stores: &'a [PackedDocuments], section: &'a Section) -> LinesRef<'a> {
    match section.packed() {
        Some((store, start, end)) => match stores.get(store) {
            Some(store) => LinesRef::Packed {
                lines: &store.lines,
                start,
                end,
            },
            None => LinesRef::Whole(&[]),
        },
        None => section.lines(&[]),
    }
}

/// Which sections a reading keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keep {
    /// Every section, its lines in shared vectors (the tree).
    All,
    /// All but the documents, each section's lines its own; the documents' lines packed
    /// ([`scan`]).
    AllButDocuments,
}

/// Feeds the lines of `buf[from..to]` to `grouper`, the first numbered `number + 1`, keeping
/// the sections it finishes ([`keep_section`]); returns the last line's number. Refuses a line in
/// another encoding.
#[allow(clippy::too_many_arguments)]
fn feed(
    grouper: &mut Grouper,
    sections: &mut Vec<Section>,
    packed: &mut PackedDocuments,
    buf: &[u8],
    from: usize,
    to: usize,
    mut number: u32,
) -> Result<u32, Refused> {
    let encoding = grouper.encoding();
    let eof = to == buf.len();
    let mut pos = from;
    let chunk = parse::ChunkEncoding::of(&buf[from..to], encoding);
    while let Some((end, ending, next)) = next_line(&buf[..to], pos, eof) {
        number += 1;
        let content = &buf[pos..end];
        if !chunk.passes(content)
            && let Err((code, at, message)) = parse::check_line_encoding(content, encoding)
        {
            return Err(parse::refuse_line(
                code, message, content, at, pos, number, encoding,
            ));
        }
        if let Some(section) = grouper.push(buf, raw_line(pos, end, ending, number)) {
            keep_section(section, sections, packed);
        }
        pos = next;
    }
    Ok(number)
}

/// How many lines `buf[from..to]` holds (`to` is a line start): every `\n`, and every `\r`
/// not followed by one — the endings [`next_line`] splits at.
///
/// One pass over byte pairs, counted in a byte a block at a time, which the compiler turns into
/// vector instructions: the pieces of a large input are counted before they are read, to
/// number their lines, and looking each `\r` of a CRLF file up one by one, as this did before,
/// took a quarter of a second at 1M documents.
fn count_lines(buf: &[u8], from: usize, to: usize) -> u32 {
    let part = &buf[from..to];
    let Some((&last, _)) = part.split_last() else {
        return 0;
    };
    // Up to 255 bytes a block, so that a block's count fits in a byte.
    const BLOCK: usize = 128;
    let (bytes, nexts) = (&part[..part.len() - 1], &part[1..]);
    let mut lines = usize::from(last == b'\n' || last == b'\r');
    for (bytes, nexts) in bytes.chunks(BLOCK).zip(nexts.chunks(BLOCK)) {
        let ends = bytes.iter().zip(nexts).fold(0u8, |ends, (&byte, &next)| {
            let lone_return = u8::from(byte == b'\r') & u8::from(next != b'\n');
            ends + (u8::from(byte == b'\n') | lone_return)
        });
        lines += usize::from(ends);
    }
    lines as u32
}

/// Where the pieces of a reading start, each with the number of its first line: the body's
/// start, then (for `pieces` over 1) the start of a `СекцияДокумент=` line at or past each
/// `k / pieces` of the body — a new section, so that no piece needs another's state. Fewer
/// pieces where there are fewer documents.
fn piece_starts(buf: &[u8], body: usize, encoding: Encoding, pieces: usize) -> Vec<(usize, u32)> {
    let marker = Marker::DocumentStart.bytes(encoding);
    let finder = memchr::memmem::Finder::new(marker);
    let mut starts = vec![body];
    for k in 1..pieces {
        let past = starts.last().map_or(body, |&at| at + 1);
        let mut from = (body + (buf.len() - body) / pieces * k).max(past);
        let found = loop {
            let Some(at) = buf.get(from..).and_then(|rest| finder.find(rest)) else {
                break None;
            };
            let at = from + at;
            if at > body && buf[at - 1] == b'\n' && buf.get(at + marker.len()) == Some(&b'=') {
                break Some(at);
            }
            from = at + 1;
        };
        match found {
            Some(at) => starts.push(at),
            None => break,
        }
    }
    // Each piece's lines counted (a pass at memory speed, in two threads) to number the next.
    let counts = in_two_threads(starts.len() - 1, |piece| {
        count_lines(buf, starts[piece], starts[piece + 1])
    });
    let mut number = 1;
    let mut numbered = vec![(body, number)];
    for (&start, count) in starts[1..].iter().zip(counts) {
        number += count;
        numbered.push((start, number));
    }
    numbered
}

/// `work` of every index below `count`, in the order of the indices: done by two threads,
/// each taking the next index as it is free (by this thread alone when there is at most one,
/// or no second thread to be had).
fn in_two_threads<T: Send>(count: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let take = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if index >= count {
                return done;
            }
            done.push((index, work(index)));
        }
    };
    let mut done = if count < 2 {
        take()
    } else {
        std::thread::scope(|scope| {
            let other = clientbank_diagnostic::threads::spawn_scoped(scope, take);
            let mut done = take();
            if let Some(other) = other {
                match other.join() {
                    Ok(theirs) => done.extend(theirs),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            done
        })
    };
    done.sort_unstable_by_key(|&(index, _)| index);
    done.into_iter().map(|(_, value)| value).collect()
}

/// Puts the pieces together, in file order, as one pass over the whole would have left them
/// ([`Joined::follow`]). The piece that saw `КонецФайла` read on to the end of the input
/// ([`Chunk::read_on`]): the pieces after it are not needed (`None`, when they were not
/// read). Were one not read before the end, the rest would be read here, in one pass.
fn join(
    buf: &[u8],
    first: Chunk,
    rest: impl Iterator<Item = Option<Result<Chunk, Refused>>>,
    starts: &[(usize, u32)],
) -> Result<Joined, Refused> {
    let mut joined = Joined {
        sections: first.sections,
        packed: Vec::new(),
        arenas: Vec::new(),
        grouper: first.grouper,
        current: first.packed,
        current_from: 0,
        last_number: first.last_number,
    };
    for (next, &(start, _)) in rest.zip(starts.iter().skip(1)) {
        if joined.grouper.has_ended() {
            break;
        }
        let Some(next) = next else {
            joined.last_number = feed(
                &mut joined.grouper,
                &mut joined.sections,
                &mut joined.current,
                buf,
                start,
                buf.len(),
                joined.last_number,
            )?;
            break;
        };
        joined.follow(buf, next?, start);
    }
    Ok(joined)
}

/// The pieces put together so far: their sections, and the grouper that goes on.
struct Joined {
    sections: Vec<Section>,
    /// The earlier pieces' documents' packed lines, in file order (when not kept as sections).
    packed: Vec<PackedDocuments>,
    /// The earlier pieces' lines (the tree's): each piece's sections point into its own.
    arenas: Vec<Vec<StoredLine>>,
    /// The last piece's grouper, with the earlier ones' findings.
    grouper: Grouper,
    /// The last piece's packed documents.
    current: PackedDocuments,
    /// Where the last piece's sections start in `sections`.
    current_from: usize,
    /// The number of the last piece's last line.
    last_number: u32,
}

impl Joined {
    /// The piece `next`, which starts at `start`, follows: its first line (a
    /// `СекцияДокумент=`) closes the open section; a finding reported once per file stays
    /// with its first occurrence.
    fn follow(&mut self, buf: &[u8], next: Chunk, start: usize) {
        let (end, ending, _) =
            next_line(buf, start, true).unwrap_or((start, LineEnding::None, start));
        let marker = raw_line(start, end, ending, self.last_number + 1);
        let closing_at = self.grouper.findings();
        let closed = self.grouper.close_before(buf, &marker);
        keep_section(closed, &mut self.sections, &mut self.current);
        let index = self.arenas.len() as u32;
        for section in &mut self.sections[self.current_from..] {
            section.in_arena(index);
        }
        self.arenas.push(self.grouper.take_arena());
        self.current.lines = self.grouper.take_packed();
        let Chunk {
            grouper,
            sections,
            packed,
            last_number,
        } = next;
        self.packed
            .push(std::mem::replace(&mut self.current, packed));
        self.current_from = self.sections.len();
        // The next piece's grouper started with an empty header, closed by its first line.
        self.sections.extend(sections.into_iter().skip(1));
        let earlier = std::mem::replace(&mut self.grouper, grouper);
        self.grouper.follow(earlier, marker.number, closing_at);
        self.last_number = last_number;
    }
}

/// An exchange file read once for what it says of itself — its encoding, header, account
/// sections and every finding, exactly as [`parse`] finds them — without keeping its
/// documents as sections: each document line is kept as a word of 4 bytes (its length, `=`,
/// known key, kind and ending; its start and number follow from the line before; two words
/// for a line of 4 KiB or more, or whose `=` is far on), from which [`Scan::documents`]
/// rebuilds the documents one at a time without reading a line again. The memory of a big
/// file is its bytes and a word per line, where [`parse`]'s tree holds a record of 12 bytes
/// for every line.
///
/// ```
/// use clientbank_format::{scan, Encoding, Key};
/// let text = "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
///             СекцияДокумент=Платежное поручение\r\nНомер=7\r\nСумма=10.50\r\n\
///             КонецДокумента\r\nКонецФайла\r\n";
/// let bytes = Encoding::Cp1251.encode(text).unwrap().into_owned();
/// let scanned = scan(&bytes).unwrap();
/// // The findings are those of the whole tree: here, the missing `Дата`.
/// assert_eq!(scanned.diagnostics(), clientbank_format::parse(bytes.clone()).unwrap().diagnostics);
/// assert_eq!(scanned.document_count(), 1);
/// let numbers: Vec<String> = scanned
///     .documents(&bytes)
///     .map(|d| d.view().get(Key::Number).unwrap().into_owned())
///     .collect();
/// assert_eq!(numbers, ["7"]);
/// ```
pub fn scan(input: &[u8]) -> Result<Scan, Refused> {
    scan_with(input, pieces_for(input.len()))
}

/// As [`scan`], in one pass (`pieces` 1) or in up to `pieces` pieces read by two threads.
pub(crate) fn scan_with(input: &[u8], pieces: usize) -> Result<Scan, Refused> {
    let index = SyntaxTree::read_index(input, pieces, Keep::AllButDocuments)?;
    Ok(Scan {
        len: input.len(),
        encoding: index.encoding,
        detection: index.detection,
        bom: index.bom,
        sections: index.sections,
        diagnostics: index.diagnostics,
        documents: index.documents,
        packed: index.packed,
    })
}

/// What [`scan`] found in an exchange file: its findings, header and account sections, and its
/// documents' lines packed, which [`Scan::documents`] rebuilds.
///
/// The methods that take the bytes must be given the bytes that were scanned; other bytes
/// give nothing.
#[derive(Clone, Debug)]
pub struct Scan {
    len: usize,
    encoding: Encoding,
    detection: Detection,
    bom: bool,
    /// The header, the account sections and the end, each with its own lines.
    sections: Vec<Section>,
    diagnostics: Vec<Diagnostic>,
    documents: usize,
    /// The documents' lines, packed, in file order.
    packed: Vec<PackedDocuments>,
}

impl Scan {
    /// How many documents the file holds.
    pub fn document_count(&self) -> usize {
        self.documents
    }

    /// The encoding the file was read in.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// How the encoding was chosen.
    pub fn detection(&self) -> Detection {
        self.detection
    }

    /// Whether the file starts with a UTF-8 byte order mark.
    pub fn has_bom(&self) -> bool {
        self.bom
    }

    /// Every finding, in file order, as [`parse`] gives them.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Every finding, given away.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }

    fn view<'a>(&'a self, input: &'a [u8], section: &'a Section) -> SectionRef<'a> {
        SectionRef::new(
            input,
            self.encoding,
            section.kind,
            lines_in(&self.packed, section),
            input.len(),
        )
    }

    fn fits(&self, input: &[u8]) -> bool {
        input.len() == self.len
    }

    /// The header (line 1 and the general keys) of `input`, the bytes scanned.
    pub fn header<'a>(&'a self, input: &'a [u8]) -> Option<SectionRef<'a>> {
        let first = self.sections.first()?;
        (self.fits(input) && first.kind == SectionKind::Header).then(|| self.view(input, first))
    }

    /// Whether the file has account sections (a statement).
    pub fn has_accounts(&self) -> bool {
        self.sections.iter().any(|s| s.kind == SectionKind::Account)
    }

    /// The account-balance sections of `input`, the bytes scanned, in order.
    pub fn accounts<'a>(&'a self, input: &'a [u8]) -> impl Iterator<Item = SectionRef<'a>> + 'a {
        let fits = self.fits(input);
        self.sections
            .iter()
            .filter(move |s| fits && s.kind == SectionKind::Account)
            .map(move |s| self.view(input, s))
    }

    /// The owned, typed exchange of `input`, the bytes scanned, as
    /// [`SyntaxTree::to_exchange`] gives it (`None` for other bytes).
    pub fn to_exchange(&self, input: &[u8]) -> Option<model::Exchange> {
        Some(model::Exchange {
            header: model::Header::from_section(&self.header(input)?),
            accounts: self
                .accounts(input)
                .map(|a| model::AccountSection::from_section(&a))
                .collect(),
            documents: self
                .documents(input)
                .map(|d| model::Document::from_section(&d.view()))
                .collect(),
        })
    }

    /// Writes `input`, the bytes scanned, canonically to `out` in `encoding`: the bytes
    /// [`Scan::to_exchange`]`(input)` then [`model::Exchange::to_bytes`] would give, and the
    /// same error, but a section at a time, a key the model has no field for decoded from the
    /// input when it is written, so that memory stays that of one document's fields whatever
    /// the file. On an error, what was written before it stays in `out` (write to a file that
    /// is dropped then). `None` for other bytes than those scanned.
    pub fn write_canonical<W: std::io::Write>(
        &self,
        input: &[u8],
        encoding: Encoding,
        out: W,
    ) -> Option<Result<W, model::WriteError>> {
        let header = self.header(input)?;
        Some(model::write_sections(
            out,
            encoding,
            &header,
            self.accounts(input),
            |write| {
                for document in self.documents(input) {
                    write(&document.view())?;
                }
                Ok(())
            },
        ))
    }

    /// The documents of `input`, the bytes scanned, one at a time, in order: each rebuilt
    /// from what the scan kept of its lines (nothing is read again).
    pub fn documents<'a>(&'a self, input: &'a [u8]) -> Documents<'a> {
        let fits = self.fits(input);
        Documents {
            input,
            encoding: self.encoding,
            packed: if fits { &self.packed } else { &[] },
            store: 0,
            document: 0,
        }
    }
}

/// The documents of a scanned file, one at a time ([`Scan::documents`]).
pub struct Documents<'a> {
    input: &'a [u8],
    encoding: Encoding,
    packed: &'a [PackedDocuments],
    /// The store of the next document, and its place there.
    store: usize,
    document: usize,
}

impl std::fmt::Debug for Documents<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Documents")
            .field("store", &self.store)
            .field("document", &self.document)
            .finish_non_exhaustive()
    }
}

/// A document of a scanned file, its lines its own (or, for a document of very many, its
/// words in the scan), its bytes the input's.
#[derive(Clone, Debug)]
pub struct ScannedDocument<'a> {
    input: &'a [u8],
    encoding: Encoding,
    /// The store its words are in.
    packed: &'a [PackedDocuments],
    section: Section,
}

impl ScannedDocument<'_> {
    /// The read-only view (the same one the in-memory tree gives).
    pub fn view(&self) -> SectionRef<'_> {
        SectionRef::new(
            self.input,
            self.encoding,
            self.section.kind,
            lines_in(self.packed, &self.section),
            self.input.len(),
        )
    }
}

impl<'a> Iterator for Documents<'a> {
    type Item = ScannedDocument<'a>;

    fn next(&mut self) -> Option<ScannedDocument<'a>> {
        loop {
            let store = self.packed.get(self.store)?;
            if self.document >= store.documents.len() {
                self.store += 1;
                self.document = 0;
                continue;
            }
            let mut section = Section {
                kind: SectionKind::Document,
                lines: store.document(self.document)?,
            };
            section.in_arena(self.store as u32);
            self.document += 1;
            return Some(ScannedDocument {
                input: self.input,
                encoding: self.encoding,
                packed: self.packed,
                section,
            });
        }
    }

    /// Skips `n` documents without rebuilding them.
    fn nth(&mut self, mut n: usize) -> Option<ScannedDocument<'a>> {
        loop {
            let left = self
                .packed
                .get(self.store)?
                .documents
                .len()
                .saturating_sub(self.document);
            if n < left {
                self.document += n;
                return self.next();
            }
            n -= left;
            self.store += 1;
            self.document = 0;
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left: usize = self
            .packed
            .iter()
            .skip(self.store)
            .map(|p| p.documents.len())
            .sum::<usize>()
            .saturating_sub(self.document);
        (left, Some(left))
    }
}

impl SyntaxTree {
    fn parse(buf: Vec<u8>) -> Result<Parsed, Refused> {
        let pieces = pieces_for(buf.len());
        SyntaxTree::parse_with(buf, pieces)
    }

    /// Reads in one pass (`pieces` 1), or in up to `pieces` pieces that two threads take as
    /// each is free (the result is the same: `fuzz::parallel_agrees` checks it).
    pub(crate) fn parse_with(buf: Vec<u8>, pieces: usize) -> Result<Parsed, Refused> {
        SyntaxTree::parse_keeping(buf, pieces).map_err(|(refused, _)| refused)
    }

    /// As [`SyntaxTree::parse_with`], giving the input back with a refusal.
    fn parse_keeping(buf: Vec<u8>, pieces: usize) -> Result<Parsed, (Refused, Vec<u8>)> {
        match SyntaxTree::read_index(&buf, pieces, Keep::All) {
            Ok(index) => Ok(index.with(buf)),
            Err(refused) => Err((refused, buf)),
        }
    }

    fn read_index(buf: &[u8], pieces: usize, keep: Keep) -> Result<Index, Refused> {
        if u32::try_from(buf.len()).is_err() {
            return Err(Refused {
                diagnostic: Box::new(
                    Diagnostic::new(
                        crate::Code::TooLarge,
                        crate::Message::new(
                            "the input is larger than 4 GiB; read it with the streaming reader",
                            "файл больше 4 ГиБ; читайте его потоковым чтением (Reader)",
                        ),
                    )
                    .at(0..0, 1, 1),
                ),
                encoding: None,
            });
        }
        let preamble = parse::preamble(buf)?;
        let (mut encoding, mut detection) = (preamble.encoding, preamble.detection);
        // An ASCII start tells nothing: decide on the first bytes that are not ASCII, wherever
        // they are (as the streaming reader does when they arrive).
        if detection == Detection::Ascii
            && let Some(start) = parse::first_non_ascii_line(buf, preamble.body)
        {
            let end = buf.len().min(start + crate::encoding::SAMPLE);
            (encoding, detection) = parse::redecide(&buf[start..end]);
        }
        let starts = piece_starts(buf, preamble.body, encoding, pieces);
        // The first piece seen to end with `КонецФайла`: it reads on to the end, and the
        // pieces after it are not read.
        let ended = std::sync::atomic::AtomicUsize::new(usize::MAX);
        let read = in_two_threads(starts.len(), |piece| {
            use std::sync::atomic::Ordering::Relaxed;
            if piece > ended.load(Relaxed) {
                return None;
            }
            let end = starts.get(piece + 1).map_or(buf.len(), |&(at, _)| at);
            let (start, number) = starts[piece];
            let read = group(buf, encoding, detection, start, end, number, keep);
            Some(read.and_then(|mut chunk| {
                if chunk.grouper.has_ended() {
                    // Told before reading on, so that the other thread takes no more.
                    ended.fetch_min(piece, Relaxed);
                    chunk.read_on(buf, end)?;
                }
                Ok(chunk)
            }))
        });
        let mut read = read.into_iter();
        // There is a first piece (the body's start is one), always read; were there none,
        // one pass.
        let first = read.next().flatten().unwrap_or_else(|| {
            group(buf, encoding, detection, preamble.body, buf.len(), 1, keep)
        })?;
        let Joined {
            mut sections,
            mut packed,
            mut arenas,
            grouper,
            mut current,
            current_from,
            ..
        } = join(buf, first, read, &starts)?;
        let finished = grouper.finish(buf);
        keep_section(finished.last, &mut sections, &mut current);
        current.lines = finished.packed;
        packed.push(current);
        // The last piece's ranges point into the last vector.
        for section in &mut sections[current_from..] {
            section.in_arena(arenas.len() as u32);
        }
        arenas.push(finished.arena);
        Ok(Index {
            encoding,
            detection,
            bom: preamble.body > 0,
            sections,
            lines: arenas,
            diagnostics: finished.diagnostics,
            documents: finished.documents,
            packed: if keep == Keep::All {
                Vec::new()
            } else {
                packed
            },
        })
    }

    /// The input as read, followed by the bytes of any edits (the findings' spans point
    /// into it; a [`Renderer`](crate::Renderer) takes it).
    pub fn source(&self) -> &[u8] {
        &self.buf
    }
    /// The section and line index, for comparing two readings.
    pub(crate) fn index_debug(&self) -> String {
        let sections: Vec<_> = self
            .sections
            .iter()
            .map(|s| (s.kind, s.lines(&self.lines).iter().collect::<Vec<_>>()))
            .collect();
        format!("{sections:?}")
    }

    /// The encoding the file was read in (and is written back in).
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// How the encoding was chosen.
    pub fn detection(&self) -> Detection {
        self.detection
    }

    /// Whether the file starts with a UTF-8 byte order mark.
    pub fn has_bom(&self) -> bool {
        self.bom
    }

    /// `ВерсияФормата`, when it is one we know.
    pub fn version(&self) -> Option<&'static str> {
        self.header()
            .raw(Key::FormatVersion)
            .and_then(value::parse_version)
    }

    fn view<'a>(&'a self, section: &'a Section) -> SectionRef<'a> {
        SectionRef::new(
            &self.buf,
            self.encoding,
            section.kind,
            section.lines(&self.lines),
            self.input_len,
        )
    }

    /// Every section in file order: the header first, `КонецФайла` last if present.
    pub fn sections(&self) -> impl Iterator<Item = SectionRef<'_>> {
        self.sections.iter().map(|s| self.view(s))
    }

    /// The header (line 1 and the general keys).
    pub fn header(&self) -> SectionRef<'_> {
        self.view(&self.sections[0])
    }

    /// The account-balance sections, in order.
    pub fn accounts(&self) -> impl Iterator<Item = SectionRef<'_>> {
        self.sections().filter(|s| s.kind() == SectionKind::Account)
    }

    /// The documents, in order.
    pub fn documents(&self) -> impl Iterator<Item = SectionRef<'_>> {
        self.sections()
            .filter(|s| s.kind() == SectionKind::Document)
    }

    fn document_index(&self, index: usize) -> Option<usize> {
        self.sections
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == SectionKind::Document)
            .nth(index)
            .map(|(i, _)| i)
    }

    /// The ending new lines get: the one line 1 has (CRLF if it has none).
    fn dominant_ending(&self) -> LineEnding {
        match self.sections[0]
            .lines(&self.lines)
            .first()
            .map(|l| l.ending)
        {
            Some(LineEnding::None) | None => LineEnding::Crlf,
            Some(ending) => ending,
        }
    }

    /// The header, for editing.
    pub fn header_mut(&mut self) -> SectionMut<'_> {
        self.section_mut(0)
    }

    /// The `index`th document, for editing.
    pub fn document_mut(&mut self, index: usize) -> Option<SectionMut<'_>> {
        let at = self.document_index(index)?;
        Some(self.section_mut(at))
    }

    fn section_mut(&mut self, at: usize) -> SectionMut<'_> {
        let ending = self.dominant_ending();
        let section = &mut self.sections[at];
        SectionMut {
            buf: &mut self.buf,
            encoding: self.encoding,
            ending,
            kind: section.kind,
            lines: section.lines_mut(&self.lines),
            input_end: self.input_len,
        }
    }

    /// Removes the `index`th document with the blank lines that follow it.
    pub fn remove_document(&mut self, index: usize) -> bool {
        match self.document_index(index) {
            Some(at) => {
                self.sections.remove(at);
                true
            }
            None => false,
        }
    }

    /// Adds a document after the last section (before `КонецФайла`), written canonically in
    /// the file's encoding and line ending.
    pub fn push_document(&mut self, document: &model::Document) -> Result<(), WriteError> {
        let ending = self.dominant_ending();
        let mut lines = Vec::new();
        let mut push = |buf: &mut Vec<u8>, content: &[u8], kind, key| {
            let start = buf.len();
            buf.extend_from_slice(content);
            let mut line = raw_line(start, buf.len(), ending, 0);
            line.kind = kind;
            line.key = key;
            line.eq = memchr::memchr(b'=', content).map_or(NO_EQ, |i| i as u32);
            lines.push(line);
        };
        let encoding = self.encoding;
        let encode = |text: &str, key: &str| -> Result<Vec<u8>, WriteError> {
            model::encode_line(encoding, text).map_err(|kind| WriteError::new(document, key, kind))
        };
        let opening = format!("{}={}", Marker::DocumentStart.name(), document.kind);
        push(
            &mut self.buf,
            &encode(&opening, Marker::DocumentStart.name())?,
            LineKind::Marker(Marker::DocumentStart),
            None,
        );
        for (key, value) in document.fields()? {
            let content = format!("{}={value}", key.name());
            push(
                &mut self.buf,
                &encode(&content, key.name())?,
                LineKind::Pair,
                Some(key),
            );
        }
        for (key, value) in &document.extra {
            push(
                &mut self.buf,
                &encode(&format!("{key}={value}"), key)?,
                LineKind::Pair,
                None,
            );
        }
        push(
            &mut self.buf,
            Marker::DocumentEnd.bytes(encoding),
            LineKind::Marker(Marker::DocumentEnd),
            None,
        );
        let at = match self.sections.last() {
            Some(s) if s.kind == SectionKind::End => self.sections.len() - 1,
            _ => self.sections.len(),
        };
        // The line before the new document must end, and the file's last line keeps its
        // (missing) ending.
        if at == self.sections.len()
            && let Some(last) = self.sections[at - 1].lines_mut(&self.lines).last_mut()
            && last.ending == LineEnding::None
        {
            last.ending = ending;
            if let Some(new_last) = lines.last_mut() {
                new_last.ending = LineEnding::None;
            }
        }
        self.sections
            .insert(at, Section::owned(SectionKind::Document, lines));
        Ok(())
    }

    /// Writes the file: byte for byte what was read, but for the lines edits changed.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        if self.bom {
            out.write_all(&self.buf[..3])?;
        }
        for section in &self.sections {
            for line in section.lines(&self.lines).iter() {
                out.write_all(line.content(&self.buf))?;
                out.write_all(line.ending.as_bytes())?;
            }
        }
        Ok(())
    }

    /// The file as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.buf.len());
        // Writing into a Vec cannot fail.
        let _ = self.write_to(&mut out);
        out
    }

    /// The typed, owned view of the whole file.
    pub fn to_exchange(&self) -> model::Exchange {
        model::Exchange {
            header: model::Header::from_section(&self.header()),
            accounts: self
                .accounts()
                .map(|a| model::AccountSection::from_section(&a))
                .collect(),
            documents: self
                .documents()
                .map(|d| model::Document::from_section(&d))
                .collect(),
        }
    }
}

/// One `Key=Value` line of a section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The key as written (spaces around it removed).
    pub key: Cow<'a, str>,
    /// The value exactly as written after the first `=`.
    pub value: Cow<'a, str>,
    /// The known key it is, if it is one.
    pub known: Option<Key>,
    /// 1-based line in the input; 0 for a line added by an edit.
    pub line: u32,
}

/// Where a `Key=Value` line's value stands in the input: what a finding about the value
/// points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValueAt {
    /// 1-based line (0 for a line added by an edit).
    pub line: u32,
    /// 1-based column of the value's first character, in characters.
    pub column: u32,
    /// Byte offset of the value in the input.
    pub start: usize,
    /// Byte offset just past the value (the line's end); at least `start + 1`, so that an
    /// empty value still has a place to point at.
    pub end: usize,
}

fn value_at(line: &Line, buf: &[u8], encoding: Encoding) -> ValueAt {
    let content = line.content(buf);
    let eq = if line.eq == NO_EQ {
        content.len()
    } else {
        line.eq as usize + 1
    };
    let start = line.start as usize + eq;
    ValueAt {
        line: line.number,
        column: parse::column(content, eq, encoding),
        start,
        end: (line.start as usize + content.len()).max(start + 1),
    }
}

thread_local! {
    static KEY_DECODES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn count_key_decode() {
    KEY_DECODES.with(|c| c.set(c.get() + 1));
}

/// How many keys this thread decoded through [`SectionRef::fields`] and
/// [`SectionRef::unknown_keys`] (for tests that bound the work done per key).
#[doc(hidden)]
pub fn key_decodes() -> usize {
    KEY_DECODES.with(std::cell::Cell::get)
}

/// A read-only view of one section.
#[derive(Clone, Copy, Debug)]
pub struct SectionRef<'a> {
    buf: &'a [u8],
    encoding: Encoding,
    kind: SectionKind,
    lines: LinesRef<'a>,
    /// Where the input ended in `buf` (`usize::MAX` when it went on past it): a section whose
    /// last line ends there is the input's last.
    input_end: usize,
}

impl<'a> SectionRef<'a> {
    /// Its kind, line records and whether the input ends inside it, for comparing two readings.
    pub(crate) fn lines_debug(&self) -> String {
        format!(
            "{:?} {:?} cut short: {}",
            self.kind,
            self.lines.iter().collect::<Vec<_>>(),
            self.is_cut_short()
        )
    }

    pub(crate) fn new(
        buf: &'a [u8],
        encoding: Encoding,
        kind: SectionKind,
        lines: LinesRef<'a>,
        input_end: usize,
    ) -> SectionRef<'a> {
        SectionRef {
            buf,
            encoding,
            kind,
            lines,
            input_end,
        }
    }

    /// What the section is.
    pub fn kind(&self) -> SectionKind {
        self.kind
    }

    /// The encoding its bytes are in.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The 1-based line of the section's first line (0 when an edit added it).
    pub fn line(&self) -> u32 {
        self.lines.first().map_or(0, |l| l.number)
    }

    /// Whether the input ends inside this section: an account or document section with no end
    /// marker whose last line is the input's last (a file cut short, or still being written).
    /// Its last value may be cut too, and keys after it are lost: nothing in it can be trusted.
    /// A section closed by the next section's start, or followed by `КонецФайла`, is not.
    pub fn is_cut_short(&self) -> bool {
        let (Some(last), SectionKind::Account | SectionKind::Document) =
            (self.lines.last(), self.kind)
        else {
            return false;
        };
        let closed = self.lines.iter().any(|l| {
            matches!(
                l.kind,
                LineKind::Marker(Marker::AccountEnd | Marker::DocumentEnd)
            )
        });
        !closed && last.number != 0 && last.end() == self.input_end
    }

    /// The document type after `СекцияДокумент=`, verbatim; `None` outside documents.
    pub fn document_type(&self) -> Option<Cow<'a, str>> {
        let first = self.lines.first()?;
        (first.kind == LineKind::Marker(Marker::DocumentStart))
            .then(|| self.encoding.decode(first.value_bytes(self.buf)))
    }

    /// Whether the document type after `СекцияДокумент=` is `text` exactly; nothing decoded.
    pub fn document_type_is(&self, text: &str) -> bool {
        self.lines.first().is_some_and(|first| {
            first.kind == LineKind::Marker(Marker::DocumentStart)
                && self.encoding.decodes_to(first.value_bytes(self.buf), text)
        })
    }

    fn pairs(&self) -> impl Iterator<Item = Line> + 'a {
        self.lines.iter().filter(|l| l.is_pair())
    }

    /// The raw bytes of the first value of `key`.
    pub(crate) fn raw(&self, key: Key) -> Option<&'a [u8]> {
        let buf = self.buf;
        self.pairs()
            .find(|l| l.key == Some(key))
            .map(|l| l.value_bytes(buf))
    }

    /// The value of `key` exactly as written, or `None` when the key is absent.
    /// (`Key=` gives `Some("")`: absent and empty stay apart here.)
    pub fn get(&self, key: Key) -> Option<Cow<'a, str>> {
        self.raw(key).map(|v| self.encoding.decode(v))
    }

    /// Every value of a key that repeats (`РасчСчет`, `Документ` in the header).
    pub fn get_all(&self, key: Key) -> impl Iterator<Item = Cow<'a, str>> + 'a {
        let (buf, encoding) = (self.buf, self.encoding);
        self.pairs()
            .filter(move |l| l.key == Some(key))
            .map(move |l| encoding.decode(l.value_bytes(buf)))
    }

    /// The value with surrounding spaces removed; `None` when absent or empty.
    pub fn text(&self, key: Key) -> Option<Cow<'a, str>> {
        let raw = self.raw(key)?.trim_ascii();
        (!raw.is_empty()).then(|| self.encoding.decode(raw))
    }

    /// The 1-based line of `key` in the input.
    pub fn line_of(&self, key: Key) -> Option<u32> {
        self.pairs().find(|l| l.key == Some(key)).map(|l| l.number)
    }

    /// A date value (`None` when absent, empty or not a date).
    pub fn date(&self, key: Key) -> Option<NaiveDate> {
        self.raw(key).and_then(value::parse_date)
    }

    /// A time value (`ЧЧ:ММ:СС`, or the dotted form some generators write).
    pub fn time(&self, key: Key) -> Option<NaiveTime> {
        self.raw(key).and_then(value::parse_time).map(|(t, _)| t)
    }

    /// An amount, exact (balances may be negative).
    pub fn amount(&self, key: Key) -> Option<Decimal> {
        self.raw(key).and_then(|v| {
            value::parse_amount(
                v,
                matches!(key.kind(), crate::ValueKind::Amount { signed: true }),
            )
        })
    }

    /// Every `Key=Value` line as raw bytes: the known key, the key and value bytes (in
    /// [`SectionRef::encoding`]), the line; nothing decoded.
    pub fn raw_fields(&self) -> impl Iterator<Item = (Option<Key>, &'a [u8], &'a [u8], u32)> + 'a {
        self.raw_fields_where(|_| true)
    }

    /// The known key (if any) and the raw value bytes of every `Key=Value` line, in order
    /// (the key's bytes are not looked at).
    pub(crate) fn values(&self) -> impl Iterator<Item = (Option<Key>, &'a [u8])> + 'a {
        let buf = self.buf;
        self.pairs().map(move |l| (l.key, l.value_bytes(buf)))
    }

    /// [`SectionRef::raw_fields`] of the lines whose known key (or `None`) `which` takes; the
    /// others' bytes are not looked at.
    pub(crate) fn raw_fields_where(
        &self,
        which: impl Fn(Option<Key>) -> bool + 'a,
    ) -> impl Iterator<Item = (Option<Key>, &'a [u8], &'a [u8], u32)> + 'a {
        let buf = self.buf;
        self.pairs()
            .filter(move |l| which(l.key))
            .map(move |l| (l.key, l.key_bytes(buf), l.value_bytes(buf), l.number))
    }

    /// The known key (if any), the key and value bytes and where the value stands, of every
    /// `Key=Value` line whose known key (or `None`) `which` takes; nothing decoded.
    pub(crate) fn extra_lines(
        &self,
        which: impl Fn(Option<Key>) -> bool + 'a,
    ) -> impl Iterator<Item = (Option<Key>, &'a [u8], &'a [u8], ValueAt)> + 'a {
        let (buf, encoding) = (self.buf, self.encoding);
        self.pairs().filter(move |l| which(l.key)).map(move |l| {
            (
                l.key,
                l.key_bytes(buf),
                l.value_bytes(buf),
                value_at(&l, buf, encoding),
            )
        })
    }

    /// The line of every known key, in order, without decoding anything.
    pub fn key_lines(&self) -> impl Iterator<Item = (Key, u32)> + 'a {
        self.pairs().filter_map(|l| l.key.map(|k| (k, l.number)))
    }

    /// Where the value of every `Key=Value` line stands, in order, with the known key it is
    /// (if any), without decoding anything.
    pub fn value_places(&self) -> impl Iterator<Item = (Option<Key>, ValueAt)> + 'a {
        let (buf, encoding) = (self.buf, self.encoding);
        self.pairs()
            .map(move |l| (l.key, value_at(&l, buf, encoding)))
    }

    /// The keys that are not the format's, as written, each with where its value stands;
    /// only these keys are decoded.
    pub fn unknown_keys(&self) -> impl Iterator<Item = (Cow<'a, str>, ValueAt)> + 'a {
        let (buf, encoding) = (self.buf, self.encoding);
        self.pairs().filter(|l| l.key.is_none()).map(move |l| {
            count_key_decode();
            (
                encoding.decode(l.key_bytes(buf)),
                value_at(&l, buf, encoding),
            )
        })
    }

    /// Every `Key=Value` line of the section in order, known keys and unknown.
    pub fn fields(&self) -> impl Iterator<Item = Entry<'a>> + 'a {
        let (buf, encoding) = (self.buf, self.encoding);
        self.pairs().map(move |l| Entry {
            key: {
                count_key_decode();
                encoding.decode(l.key_bytes(buf))
            },
            value: encoding.decode(l.value_bytes(buf)),
            known: l.key,
            line: l.number,
        })
    }

    /// The section's bytes as they will be written.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for line in self.lines.iter() {
            out.extend_from_slice(line.content(self.buf));
            out.extend_from_slice(line.ending.as_bytes());
        }
        out
    }
}

/// A section open for editing. Each edit rewrites one line; all others stay as they were.
#[derive(Debug)]
pub struct SectionMut<'a> {
    buf: &'a mut Vec<u8>,
    encoding: Encoding,
    ending: LineEnding,
    kind: SectionKind,
    /// The section's own lines (an edited section stops sharing the tree's).
    lines: &'a mut Vec<Line>,
    /// Where the input ended in `buf`.
    input_end: usize,
}

impl SectionMut<'_> {
    /// A read-only view.
    pub fn as_ref(&self) -> SectionRef<'_> {
        SectionRef::new(
            self.buf,
            self.encoding,
            self.kind,
            LinesRef::Whole(self.lines),
            self.input_end,
        )
    }

    /// Sets `key` to `value` as written: the first line of the key is rewritten in place, or a
    /// new line is added before the section's end marker. A character the file's encoding
    /// cannot hold is an error, never a `?`.
    pub fn set(&mut self, key: Key, value: &str) -> Result<(), WriteError> {
        let content = format!("{}={value}", key.name());
        let bytes = model::encode_line(self.encoding, &content)
            .map_err(|kind| WriteError::new(&model::Document::default(), key.name(), kind))?;
        let start = self.buf.len();
        self.buf.extend_from_slice(&bytes);
        let mut line = raw_line(start, self.buf.len(), self.ending, 0);
        line.kind = LineKind::Pair;
        line.key = Some(key);
        line.eq = key.bytes(self.encoding).len() as u32;
        let lines = &mut *self.lines;
        if let Some(existing) = lines.iter_mut().find(|l| l.is_pair() && l.key == Some(key)) {
            line.number = existing.number;
            line.ending = existing.ending;
            *existing = line;
            return Ok(());
        }
        // Before the end marker, or after the last line of the section's body.
        let at = lines
            .iter()
            .rposition(|l| {
                matches!(
                    l.kind,
                    LineKind::Marker(Marker::AccountEnd | Marker::DocumentEnd)
                )
            })
            .or_else(|| {
                lines
                    .iter()
                    .rposition(|l| l.kind != LineKind::Blank)
                    .map(|i| i + 1)
            })
            .unwrap_or(lines.len());
        if at > 0 && lines[at - 1].ending == LineEnding::None {
            lines[at - 1].ending = self.ending;
            line.ending = LineEnding::None;
        }
        lines.insert(at, line);
        Ok(())
    }

    /// Sets a date key to `ДД.ММ.ГГГГ`.
    pub fn set_date(&mut self, key: Key, date: NaiveDate) -> Result<(), WriteError> {
        self.set(key, &value::format_date(date))
    }

    /// Sets an amount key to exactly two decimals.
    pub fn set_amount(&mut self, key: Key, amount: Decimal) -> Result<(), WriteError> {
        let text = value::format_amount(amount)
            .ok_or_else(|| WriteError::precision(None, key.name(), amount))?;
        self.set(key, &text)
    }

    /// Removes every line of `key`; says whether there was one.
    pub fn remove(&mut self, key: Key) -> bool {
        let lines = &mut *self.lines;
        let before = lines.len();
        let last_ending = lines.last().map(|l| l.ending);
        lines.retain(|l| !(l.is_pair() && l.key == Some(key)));
        if lines.len() != before
            && let (Some(last), Some(LineEnding::None)) = (lines.last_mut(), last_ending)
        {
            last.ending = LineEnding::None;
        }
        lines.len() != before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "1CClientBankExchange\nВерсияФормата=1.03\nКодировка=Windows\n\nСекцияДокумент=Платежное поручение\nНомер=7\nДата=01.04.2024\nСумма=1000\nНазначениеПлатежа=Оплата  \nКонецДокумента\nКонецФайла";

    fn tree(text: &str, encoding: Encoding) -> SyntaxTree {
        parse(encoding.encode(text).unwrap().into_owned())
            .unwrap()
            .tree
    }

    fn text(tree: &SyntaxTree) -> String {
        tree.encoding().decode(&tree.to_bytes()).into_owned()
    }

    /// A line whose `=` is too far on to be stored compactly makes its section keep records of
    /// its own, from the section's first line on; every line keeps its number, the sections
    /// after it are stored compactly again, and the tree reads as the scan and the stream do.
    #[test]
    fn a_far_eq_keeps_its_section_whole_and_every_number_right() {
        let far = "Я".repeat(600_000);
        let text = format!(
            "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
             СекцияДокумент=Платежное поручение\r\nНомер=1\r\n{far}=x\r\nСумма=10.00\r\n\
             КонецДокумента\r\nСекцияДокумент=Платежное поручение\r\nНомер=2\r\n\
             Сумма=20.00\r\nКонецДокумента\r\nКонецФайла\r\n"
        );
        let bytes = Encoding::Cp1251.encode(&text).unwrap().into_owned();
        crate::fuzz::parse_agrees(&bytes);
        let parsed = parse(bytes.clone()).unwrap();
        let tree = &parsed.tree;
        assert!(matches!(tree.sections[1].lines, parse::Lines::Owned(_)));
        assert!(matches!(
            tree.sections[2].lines,
            parse::Lines::Shared { .. }
        ));
        let documents: Vec<SectionRef<'_>> = tree.documents().collect();
        assert_eq!(documents[0].line(), 4);
        assert_eq!(documents[0].line_of(Key::Number), Some(5));
        let unknown: Vec<(String, u32)> = documents[0]
            .unknown_keys()
            .map(|(key, at)| (key.into_owned(), at.line))
            .collect();
        assert_eq!(unknown, [(far, 6)]);
        assert_eq!(documents[0].line_of(Key::Sum), Some(7));
        assert_eq!(documents[1].line(), 9);
        assert_eq!(documents[1].line_of(Key::Sum), Some(11));
        assert_eq!(tree.to_bytes(), bytes);
    }

    /// Whether the input ends inside a document is the same from the tree, the scan and the
    /// streaming reader, wherever each keeps the section's bytes: a document closed only by the
    /// next one or by `КонецФайла` is not cut short, one the input ends inside is.
    #[test]
    fn every_reader_tells_alike_where_the_input_ends() {
        let head = "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
                    СекцияДокумент=Платежное поручение\r\nНомер=1\r\n\
                    СекцияДокумент=Платежное поручение\r\nНомер=2\r\n";
        for (tail, expected) in [
            ("КонецФайла\r\n", [false, false]),
            ("Сумма=1", [false, true]),
            ("Сумма=1\r\n", [false, true]),
        ] {
            let bytes = Encoding::Cp1251
                .encode(&format!("{head}{tail}"))
                .unwrap()
                .into_owned();
            crate::fuzz::parse_agrees(&bytes);
            let tree = parse(bytes.clone()).unwrap().tree;
            let in_tree: Vec<bool> = tree.documents().map(|d| d.is_cut_short()).collect();
            let streamed: Vec<bool> = crate::Reader::new(&bytes[..])
                .map(|s| s.unwrap())
                .filter(|s| s.kind() == SectionKind::Document)
                .map(|s| s.view().is_cut_short())
                .collect();
            let scanned: Vec<bool> = scan(&bytes)
                .unwrap()
                .documents(&bytes)
                .map(|d| d.view().is_cut_short())
                .collect();
            assert_eq!(
                (in_tree, streamed, scanned),
                (expected.to_vec(), expected.to_vec(), expected.to_vec()),
                "{tail:?}"
            );
        }
    }

    /// An edit appends its bytes after the input: a document the input ends inside stays cut
    /// short after another document is edited, and one that was not cut short does not become so.
    #[test]
    fn an_edit_elsewhere_does_not_move_where_the_input_ended() {
        let text = "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
                    СекцияДокумент=Платежное поручение\r\nНомер=1\r\n\
                    СекцияДокумент=Платежное поручение\r\nНомер=2\r\nСумма=1";
        let mut t = tree(text, Encoding::Cp1251);
        let cut = |t: &SyntaxTree| t.documents().map(|d| d.is_cut_short()).collect::<Vec<_>>();
        assert_eq!(cut(&t), [false, true]);
        t.document_mut(0).unwrap().set(Key::Number, "7").unwrap();
        assert_eq!(cut(&t), [false, true]);
        assert!(!t.document_mut(0).unwrap().as_ref().is_cut_short());
    }

    #[test]
    fn setting_a_key_rewrites_only_its_line() {
        let mut t = tree(FILE, Encoding::Cp1251);
        t.document_mut(0).unwrap().set(Key::Number, "8").unwrap();
        assert_eq!(text(&t), FILE.replace("Номер=7", "Номер=8"));
        let document = t.documents().next().unwrap();
        assert_eq!(document.line_of(Key::Number), Some(6));
        assert_eq!(document.get(Key::Purpose).as_deref(), Some("Оплата  "));
    }

    #[test]
    fn a_new_key_goes_before_the_end_marker_with_the_file_s_ending() {
        let mut t = tree(FILE, Encoding::Cp866);
        let mut document = t.document_mut(0).unwrap();
        document.set(Key::Priority, "5").unwrap();
        document
            .set_amount(Key::Sum, Decimal::new(150050, 2))
            .unwrap();
        assert_eq!(
            text(&t),
            FILE.replace("Сумма=1000", "Сумма=1500.50")
                .replace("КонецДокумента", "Очередность=5\nКонецДокумента")
        );
        assert_eq!(t.encoding(), Encoding::Cp866);
    }

    #[test]
    fn removing_keys_and_documents() {
        let mut t = tree(FILE, Encoding::Utf8);
        assert!(t.document_mut(0).unwrap().remove(Key::Purpose));
        assert!(!t.document_mut(0).unwrap().remove(Key::Purpose));
        assert_eq!(text(&t), FILE.replace("НазначениеПлатежа=Оплата  \n", ""));
        assert!(t.remove_document(0));
        assert_eq!(t.documents().count(), 0);
        assert_eq!(
            text(&t),
            "1CClientBankExchange\nВерсияФормата=1.03\nКодировка=Windows\n\nКонецФайла"
        );
        assert!(!t.remove_document(0));
    }

    #[test]
    fn pushing_a_document_keeps_the_rest_and_the_missing_final_newline() {
        let unterminated = FILE.replace("\nКонецФайла", "");
        let mut t = tree(&unterminated, Encoding::Cp1251);
        let mut document = t.to_exchange().documents.remove(0);
        document.number = Some("9".into());
        t.push_document(&document).unwrap();
        let written = text(&t);
        assert!(written.starts_with(&format!("{unterminated}\n")));
        assert!(written.ends_with("СекцияДокумент=Платежное поручение\nНомер=9\nДата=01.04.2024\nСумма=1000.00\nНазначениеПлатежа=Оплата\nКонецДокумента"));
        let reread = parse(t.to_bytes()).unwrap();
        assert_eq!(reread.tree.documents().count(), 2);
    }

    #[test]
    fn a_character_the_encoding_lacks_is_an_error_naming_the_key() {
        let mut t = tree(FILE, Encoding::Cp1251);
        let error = t
            .document_mut(0)
            .unwrap()
            .set(Key::Purpose, "100 ₽")
            .unwrap_err();
        assert_eq!(error.key, "НазначениеПлатежа");
        assert!(error.to_string().contains("'₽'"), "{error}");
        assert_eq!(text(&t), FILE, "a failed edit changes nothing");
    }

    #[test]
    fn absent_and_empty_stay_apart() {
        let t = tree(&FILE.replace("Номер=7", "Номер="), Encoding::Cp1251);
        let document = t.documents().next().unwrap();
        assert_eq!(document.get(Key::Number).as_deref(), Some(""));
        assert_eq!(document.text(Key::Number), None);
        assert_eq!(document.get(Key::Code), None);
    }

    #[test]
    fn a_line_break_in_a_value_is_refused_everywhere() {
        let mut t = tree(FILE, Encoding::Cp1251);
        let before = t.to_bytes();
        let e = t
            .document_mut(0)
            .unwrap()
            .set(Key::Purpose, "two\nlines")
            .unwrap_err();
        assert_eq!(e.kind, model::WriteErrorKind::LineBreak);
        assert_eq!(e.key, "НазначениеПлатежа");
        let document = model::Document {
            kind: "Платежное поручение".into(),
            purpose: Some("two\rlines".into()),
            ..model::Document::default()
        };
        let e = t.push_document(&document).unwrap_err();
        assert_eq!(e.kind, model::WriteErrorKind::LineBreak);
        assert_eq!(t.to_bytes(), before, "nothing half-written");
        let exchange = model::Exchange {
            documents: vec![document],
            ..model::Exchange::default()
        };
        let e = exchange.to_bytes(Encoding::Cp1251).unwrap_err();
        assert_eq!(
            (e.kind, e.document),
            (model::WriteErrorKind::LineBreak, Some(0))
        );
    }

    /// Files built to put every cross-section state right at the cut: an unclosed section
    /// before it, the first LF ending or an empty type on the cut line, blank lines on both
    /// sides, `КонецФайла` in the first half, a line in another encoding in the second.
    /// Skipping scanned documents (`nth`, read in two halves: two stores) gives the document
    /// one at a time would, from any place.
    #[test]
    fn skipping_documents_lands_where_reading_them_does() {
        let mut text = String::from("1CClientBankExchange\r\nВерсияФормата=1.03\r\n");
        for n in 0..100_000 {
            text.push_str(&format!(
                "СекцияДокумент=Платежное поручение\r\nНомер={n}\r\nКонецДокумента\r\n"
            ));
        }
        text.push_str("КонецФайла\r\n");
        let bytes = Encoding::Cp1251.encode(&text).unwrap().into_owned();
        let scanned = scan(&bytes).unwrap();
        assert!(scanned.packed.len() > 1, "two stores, one a thread");
        let number = |d: Option<ScannedDocument<'_>>| {
            d.map(|d| d.view().get(Key::Number).unwrap().into_owned())
        };
        for (from, skip) in [
            (0, 0),
            (0, 1),
            (5, 29_990),
            (29_000, 2_000),
            (0, 59_999),
            (1, 59_999),
            (59_999, 0),
        ] {
            let mut documents = scanned.documents(&bytes);
            if from > 0 {
                documents.nth(from - 1);
            }
            let expected = (from + skip < 100_000).then(|| (from + skip).to_string());
            assert_eq!(number(documents.nth(skip)), expected, "{from} {skip}");
            assert_eq!(
                documents.size_hint().0,
                100_000usize.saturating_sub(from + skip + 1)
            );
        }
    }

    /// How many lines [`next_line`] splits `buf[from..]` into.
    fn lines_split(buf: &[u8], from: usize) -> u32 {
        let (mut split, mut pos) = (0, from);
        while let Some((_, _, next)) = next_line(buf, pos, false) {
            split += 1;
            pos = next;
        }
        split
    }

    #[test]
    fn counting_lines_agrees_with_splitting_them() {
        let buf = b"a\r\nb\nc\rd\r\r\ne\n";
        assert_eq!(count_lines(buf, 0, buf.len()), lines_split(buf, 0));
        assert_eq!(lines_split(buf, 0), 6);
        assert_eq!(count_lines(b"", 0, 0), 0);
        assert_eq!(count_lines(b"a\r", 0, 2), 1);
    }

    proptest::proptest! {
        /// Over blocks of any length and endings anywhere, a CR and its LF in two blocks
        /// included; the part may start in the middle of a CRLF, and ends at a line start.
        #[test]
        fn counting_lines_agrees_with_splitting_them_anywhere(
            mut buf in proptest::collection::vec(
                proptest::sample::select(vec![b'\r', b'\n', b'a', 0xC0]),
                0..700,
            ),
            from in 0..700usize,
        ) {
            buf.push(b'\n');
            let from = from.min(buf.len());
            proptest::prop_assert_eq!(count_lines(&buf, from, buf.len()), lines_split(&buf, from));
        }
    }

    #[test]
    fn two_threads_agree_with_one_pass_at_the_cut() {
        let document = |n: usize| {
            format!(
                "СекцияДокумент=Платежное поручение\r\nНомер={n}\r\nДата=01.04.2024\r\nСумма=1{n}.00\r\nКонецДокумента\r\n"
            )
        };
        let file = |docs: Vec<String>, tail: &str| {
            format!(
                "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n{}{tail}",
                docs.concat()
            )
        };
        let plain: Vec<String> = (0..10).map(document).collect();
        let mut unclosed = plain.clone();
        unclosed[4] = unclosed[4].replace("КонецДокумента\r\n", "");
        unclosed[5] = unclosed[5].replace("Сумма=15.00", "Сумма=15,00");
        let mut lf_at_cut = plain.clone();
        lf_at_cut[5] = lf_at_cut[5].replacen("\r\n", "\n", 1);
        let mut empty_type = unclosed.clone();
        empty_type[5] = empty_type[5].replace("=Платежное поручение", "= ");
        let mut blanks = plain.clone();
        blanks[4].push_str("\r\n\r\n");
        blanks[6].push_str("\r\n");
        let mut ended = plain.clone();
        ended[2].push_str("КонецФайла\r\n");
        let cases = [
            file(plain.clone(), "КонецФайла\r\n"),
            file(unclosed, "КонецФайла\r\n"),
            file(lf_at_cut, "КонецФайла"),
            file(empty_type, ""),
            file(blanks, "КонецФайла\r\n"),
            file(ended, "КонецФайла\r\n"),
        ];
        for (i, text) in cases.iter().enumerate() {
            let bytes = Encoding::Cp1251.encode(text).unwrap().into_owned();
            assert_eq!(
                piece_starts(&bytes, 0, Encoding::Cp1251, 2).len(),
                2,
                "case {i} must be cut"
            );
            // Seven pieces of ten documents: cut at five places at least.
            assert!(
                piece_starts(&bytes, 0, Encoding::Cp1251, 7).len() >= 6,
                "case {i} must be cut in pieces"
            );
            crate::fuzz::parallel_agrees(&bytes);
        }
        // No second thread to be had (a system at its limit), for counting the pieces' lines or
        // for reading them too: this thread does it all, with the same result.
        let bytes = Encoding::Cp1251
            .encode(&file(plain.clone(), "КонецФайла\r\n"))
            .unwrap()
            .into_owned();
        let one = SyntaxTree::parse_with(bytes.clone(), 1).unwrap();
        for refused in [1, 2] {
            clientbank_diagnostic::threads::refuse_next(refused);
            let pieces = SyntaxTree::parse_with(bytes.clone(), 7).unwrap();
            // Both threads were asked for: the refusals are used up.
            let asked = std::thread::scope(|scope| {
                clientbank_diagnostic::threads::spawn_scoped(scope, || ()).is_some()
            });
            assert!(asked, "{refused} refused");
            assert_eq!(pieces.diagnostics, one.diagnostics);
            assert_eq!(pieces.tree.index_debug(), one.tree.index_debug());
        }
        // `КонецФайла` in a middle piece, then documents and a line in another encoding: the
        // piece that ends reads on to the end, as one pass does, whatever the pieces after it.
        let mut after_end = Encoding::Cp1251
            .encode(&file(plain[..6].to_vec(), "КонецФайла\r\n"))
            .unwrap()
            .into_owned();
        after_end.extend(
            Encoding::Cp1251
                .encode(&plain[6..].concat())
                .unwrap()
                .iter(),
        );
        for tail in ["", "НазначениеПлатежа=по-русски\r\n"] {
            let mut bytes = after_end.clone();
            bytes.extend_from_slice(tail.as_bytes());
            assert!(piece_starts(&bytes, 0, Encoding::Cp1251, 7).len() >= 6);
            crate::fuzz::parallel_agrees(&bytes);
        }
        // Lines in another encoding in two pieces: the first one in the file refuses it.
        let mut twice = plain.clone();
        twice[3].push_str("НазначениеПлатежа=раз\r\n");
        twice[8].push_str("НазначениеПлатежа=два\r\n");
        let (mut bytes, mut first_utf8) = (Vec::new(), 0);
        for (n, document) in twice.iter().enumerate() {
            let text = if n == 0 {
                file(vec![document.clone()], "")
            } else {
                document.clone()
            };
            match n {
                3 | 8 => {
                    let (cp1251, utf8) = text.split_at(text.find("НазначениеПлатежа").unwrap());
                    bytes.extend_from_slice(&Encoding::Cp1251.encode(cp1251).unwrap());
                    if n == 3 {
                        first_utf8 = bytes.len();
                    }
                    bytes.extend_from_slice(utf8.as_bytes());
                }
                _ => bytes.extend_from_slice(&Encoding::Cp1251.encode(&text).unwrap()),
            }
        }
        bytes.extend_from_slice(&Encoding::Cp1251.encode("КонецФайла\r\n").unwrap());
        crate::fuzz::parallel_agrees(&bytes);
        let line = memchr::memchr_iter(b'\n', &bytes[..first_utf8]).count() as u32 + 1;
        let refused = SyntaxTree::parse_with(bytes, 7).unwrap_err();
        assert_eq!(refused.diagnostic.line, Some(line));
        // A UTF-8 line in the second half of a CP1251 file: the same refusal, same line.
        let mut mixed = Encoding::Cp1251
            .encode(&file(plain, ""))
            .unwrap()
            .into_owned();
        mixed.extend_from_slice("НазначениеПлатежа=по-русски\r\nКонецФайла\r\n".as_bytes());
        crate::fuzz::parallel_agrees(&mixed);
        assert!(SyntaxTree::parse_with(mixed, 2).is_err());
    }
}
