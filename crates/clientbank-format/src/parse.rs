//! Grouping lines into sections, checking keys and values, collecting every finding.
//!
//! One [`Grouper`] serves both readers: the in-memory one feeds it every line of a buffer,
//! the streaming one feeds it lines as they arrive and takes each finished section away.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use clientbank_diagnostic::{Message, tr};

use crate::diagnostic::{Code, Diagnostic, LIMIT_PER_CODE, short, short_bytes};
use crate::encoding::{self, Detection};
use crate::key::{Place, ValueKind};
use crate::syntax::{
    Line, LineEnding, LineKind, LinesRef, Marker, NO_EQ, PackedLines, Shape, StoredLine, next_line,
    shape,
};
use crate::value;
use crate::{Encoding, Key};

/// What a section is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SectionKind {
    /// Line 1 and the header keys.
    Header,
    /// `СекцияРасчСчет … КонецРасчСчет`.
    Account,
    /// `СекцияДокумент=… … КонецДокумента`.
    Document,
    /// `КонецФайла` and whatever follows it.
    End,
}

/// A run of consecutive lines: a section, then any blank or stray lines before the next one.
#[derive(Clone, Debug)]
pub(crate) struct Section {
    pub(crate) kind: SectionKind,
    pub(crate) lines: Lines,
}

/// A section's lines: its own, or a range of one of the tree's vectors of lines (no allocation
/// per section when reading a whole file; one vector per thread that read it).
#[derive(Clone, Debug)]
pub(crate) enum Lines {
    Owned(Vec<Line>),
    /// Lines `start..end` of vector `arena`, numbered from `number` on.
    Shared {
        arena: u32,
        start: u32,
        end: u32,
        number: u32,
    },
    /// Words `start..end` of the packed lines of store `store` (a [`crate::scan`]'s; see
    /// [`Section::packed`]).
    Packed {
        store: u32,
        start: u32,
        end: u32,
    },
}

impl Section {
    pub(crate) fn owned(kind: SectionKind, lines: Vec<Line>) -> Section {
        Section {
            kind,
            lines: Lines::Owned(lines),
        }
    }

    /// The lines, `arenas` being the vectors shared ranges point into (a packed section's
    /// are not there: none).
    pub(crate) fn lines<'a>(&'a self, arenas: &'a [Vec<StoredLine>]) -> LinesRef<'a> {
        match &self.lines {
            Lines::Owned(lines) => LinesRef::Whole(lines),
            Lines::Packed { .. } => LinesRef::Whole(&[]),
            Lines::Shared {
                arena,
                start,
                end,
                number,
            } => LinesRef::Stored {
                lines: arenas
                    .get(*arena as usize)
                    .and_then(|a| a.get(*start as usize..*end as usize))
                    .unwrap_or_default(),
                first: *number,
            },
        }
    }

    /// The lines for editing: a shared range becomes the section's own.
    pub(crate) fn lines_mut(&mut self, arenas: &[Vec<StoredLine>]) -> &mut Vec<Line> {
        if let Lines::Shared { .. } = self.lines {
            self.lines = Lines::Owned(self.lines(arenas).iter().collect());
        }
        if let Lines::Packed { .. } = self.lines {
            // Not the tree's: nothing of it here to edit.
            self.lines = Lines::Owned(Vec::new());
        }
        match &mut self.lines {
            Lines::Owned(lines) => lines,
            Lines::Shared { .. } | Lines::Packed { .. } => unreachable!("made owned above"),
        }
    }

    /// The store and the words of a packed section.
    pub(crate) fn packed(&self) -> Option<(usize, u32, u32)> {
        match self.lines {
            Lines::Packed { store, start, end } => Some((store as usize, start, end)),
            _ => None,
        }
    }

    /// Its shared range is in vector (or packed store) `index` of the reading.
    pub(crate) fn in_arena(&mut self, index: u32) {
        if let Lines::Shared { arena: at, .. } | Lines::Packed { store: at, .. } = &mut self.lines {
            *at = index;
        }
    }

    /// Where the section's bytes end in its buffer (the last line's ending included).
    pub(crate) fn end(&self, arenas: &[Vec<StoredLine>]) -> usize {
        self.lines(arenas).last().map_or(0, |l| l.end())
    }
}

/// The reader refused the input: it is not an exchange file we can read without guessing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The finding that made the reader stop; its code is fatal.
    pub diagnostic: Box<Diagnostic>,
    /// The encoding the input was being read in, when it got that far.
    pub encoding: Option<Encoding>,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.diagnostic.fmt(f)
    }
}

impl std::error::Error for Refused {}

/// What the start of an input says: where line 1 starts, and the encoding.
pub(crate) struct Preamble {
    pub(crate) body: usize,
    pub(crate) encoding: Encoding,
    pub(crate) detection: Detection,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Checks line 1 and chooses the encoding from the first bytes (`buf` holds at least
/// [`encoding::SAMPLE`] bytes, or the whole input).
pub(crate) fn preamble(buf: &[u8]) -> Result<Preamble, Refused> {
    let refuse = |diagnostic: Diagnostic| Refused {
        diagnostic: Box::new(diagnostic),
        encoding: None,
    };
    if buf.is_empty() {
        return Err(refuse(
            Diagnostic::new(
                Code::EmptyInput,
                Message::new("the input is empty", "файл пуст"),
            )
            .at(0..0, 1, 1)
            .expected(Message::new(
                "an exchange file starting with 1CClientBankExchange",
                "файл обмена, начинающийся строкой 1CClientBankExchange",
            )),
        ));
    }
    let body = if buf.starts_with(BOM) { BOM.len() } else { 0 };
    let first_end = next_line(buf, body, true).map_or(buf.len(), |(end, ..)| end);
    let first = &buf[body..first_end];
    if !first
        .trim_ascii()
        .eq_ignore_ascii_case(Marker::Start.name().as_bytes())
    {
        let binary = first.iter().any(|&b| b == 0 || (b < 0x20 && b != b'\t'));
        let found = if utf16(buf) {
            "UTF-16 text".to_string()
        } else if binary {
            "binary data".to_string()
        } else {
            String::from_utf8_lossy(&first[..first.len().min(60)]).into_owned()
        };
        let message = if utf16(buf) {
            Message::new(
                "this file is in UTF-16 (\"Unicode\" in Notepad), which an exchange file never \
                 is: save it again as ANSI (Windows-1251) or UTF-8, or export it again from the \
                 accounting software",
                "файл в кодировке UTF-16 («Юникод» в Блокноте), а файл обмена в ней не бывает: \
                 сохраните его заново в ANSI (Windows-1251) или UTF-8 либо выгрузите заново из \
                 учётной программы",
            )
        } else if binary {
            Message::new(
                "this is binary data, not an exchange file",
                "это двоичные данные, а не файл обмена",
            )
        } else {
            Message::new(
                "line 1 is not 1CClientBankExchange: this is not an exchange file",
                "в строке 1 нет 1CClientBankExchange: это не файл обмена",
            )
        };
        let end = body + first.len().min(60);
        return Err(refuse(
            Diagnostic::new(Code::NotAnExchangeFile, message)
                .at(body..end.max(body + 1).min(buf.len()), 1, 1)
                .found(found)
                .expected(Message::same("1CClientBankExchange")),
        ));
    }
    let sample = &buf[body..buf.len().min(body + encoding::SAMPLE)];
    let declared = encoding::declared(sample).map(|(e, _)| e);
    let (encoding, detection) = encoding::detect(sample, declared);
    Ok(Preamble {
        body,
        encoding,
        detection,
    })
}

/// Whether `buf` looks like UTF-16 text: a UTF-16 byte order mark, or ASCII letters with a
/// zero byte beside each at the start (Notepad's "Unicode" without its mark).
fn utf16(buf: &[u8]) -> bool {
    if buf.starts_with(b"\xFF\xFE") || buf.starts_with(b"\xFE\xFF") {
        return true;
    }
    let pairs = || buf.chunks_exact(2).take(8);
    let ascii = |b: u8| b.is_ascii_graphic() || b == b' ';
    pairs().count() >= 4
        && (pairs().all(|p| ascii(p[0]) && p[1] == 0) || pairs().all(|p| p[0] == 0 && ascii(p[1])))
}

/// Chooses the encoding again when the sample of the start was ASCII: `sample` is
/// [`encoding::SAMPLE`] bytes (or the rest of the input) from the start of the first line that
/// is not ASCII. Both readers decide on the same bytes, so they agree.
pub(crate) fn redecide(sample: &[u8]) -> (Encoding, Detection) {
    let declared = encoding::declared(sample).map(|(e, _)| e);
    encoding::detect(sample, declared)
}

/// Where the line holding the first byte that is not ASCII starts in `buf[body..]`, if any.
pub(crate) fn first_non_ascii_line(buf: &[u8], body: usize) -> Option<usize> {
    let rest = &buf[body..];
    // Whole blocks first: `is_ascii` is much faster than a byte-by-byte search.
    let mut from = 0;
    while from < rest.len() && rest[from..(from + 4096).min(rest.len())].is_ascii() {
        from += 4096;
    }
    let at = from + rest.get(from..)?.iter().position(|b| !b.is_ascii())?;
    Some(body + memchr::memrchr2(b'\n', b'\r', &rest[..at]).map_or(0, |i| i + 1))
}

/// Refuses a line that is not in the file's encoding: UTF-8 among CP1251, CP1251 among
/// UTF-8, text already destroyed into U+FFFD, or zero bytes.
pub(crate) fn check_line_encoding(
    content: &[u8],
    encoding: Encoding,
) -> Result<(), (Code, usize, Message)> {
    // One pass over the ASCII start, which is valid in every encoding: it stops at a zero
    // byte or at the first byte that is not ASCII, from which UTF-8 is checked (and zero bytes
    // looked for) on the rest.
    let Some(first) = content.iter().position(|&b| b == 0 || !b.is_ascii()) else {
        return Ok(());
    };
    let zero = if content[first] == 0 {
        Some(first)
    } else {
        memchr::memchr(0, &content[first..]).map(|at| first + at)
    };
    if let Some(at) = zero {
        return Err((
            Code::NulByte,
            at,
            Message::new(
                "the line holds a zero byte: the file is damaged (zero-filled by a crash or a copy \
                 cut short) or is not a text file; export it again from the accounting software",
                "в строке нулевой байт: файл повреждён (забит нулями при сбое или недокопирован) \
                 или это не текстовый файл; выгрузите его из учётной программы заново",
            ),
        ));
    }
    let utf8 = std::str::from_utf8(&content[first..]).map_err(|e| (e, first));
    let fffd = || memchr::memmem::find(content, "\u{FFFD}".as_bytes());
    match (encoding, utf8) {
        (Encoding::Utf8, Err((error, first))) => {
            Err((Code::MixedEncoding, first + error.valid_up_to(), {
                let shown = short_bytes(content, Encoding::Cp1251);
                tr!(
                    "this line is not UTF-8 like the rest of the file (it reads as CP1251: {shown})" ;
                    "эта строка не в UTF-8, как остальной файл (в CP1251 она читается так: {shown})"
                )
            }))
        }
        (_, Ok(_)) if fffd().is_some() => Err((
            Code::ReplacementCharacter,
            fffd().unwrap_or(0),
            Message::new(
                "the text holds U+FFFD: it was destroyed by a lossy conversion before it got here and cannot be recovered",
                "в тексте есть символ U+FFFD: текст испортили при перекодировании ещё до нас, восстановить его нельзя",
            ),
        )),
        (Encoding::Cp1251 | Encoding::Cp866, Ok(text))
            if encoding::plausible_utf8(text)
                && encoding::reads_better_as_utf8(&content[first..], text, encoding) =>
        {
            Err((Code::MixedEncoding, first, {
                let shown = short_bytes(content, Encoding::Utf8);
                tr!(
                    "this line is UTF-8 ({shown}) while the rest of the file is {encoding}" ;
                    "эта строка в UTF-8 ({shown}), а остальной файл — в {encoding}"
                )
            }))
        }
        _ => Ok(()),
    }
}

/// What one pass over a chunk of whole lines tells of [`check_line_encoding`]'s verdict on
/// each of its lines, so that most lines need not be checked one by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChunkEncoding {
    /// A UTF-8 file's chunk that is valid UTF-8 with no zero byte and no U+FFFD: every line
    /// passes.
    Clean,
    /// A single-byte file's chunk with no zero byte: a line passes when it is ASCII or when
    /// its first byte that is not ASCII begins no UTF-8 sequence (the line is not UTF-8).
    NoZero,
    /// Every line is checked in full.
    PerLine,
}

impl ChunkEncoding {
    pub(crate) fn of(chunk: &[u8], encoding: Encoding) -> ChunkEncoding {
        if memchr::memchr(0, chunk).is_some() {
            return ChunkEncoding::PerLine;
        }
        match encoding {
            Encoding::Utf8
                if std::str::from_utf8(chunk).is_ok()
                    && memchr::memmem::find(chunk, "\u{FFFD}".as_bytes()).is_none() =>
            {
                ChunkEncoding::Clean
            }
            Encoding::Utf8 => ChunkEncoding::PerLine,
            Encoding::Cp1251 | Encoding::Cp866 => ChunkEncoding::NoZero,
        }
    }

    /// Whether the line `content` of the chunk surely passes [`check_line_encoding`]; when
    /// not sure, false (and the line is checked in full).
    #[inline]
    pub(crate) fn passes(self, content: &[u8]) -> bool {
        match self {
            ChunkEncoding::Clean => true,
            ChunkEncoding::NoZero => {
                let Some(first) = content.iter().position(|b| !b.is_ascii()) else {
                    return true;
                };
                // A lead byte of UTF-8 is C2–F4, followed by one of 80–BF: else the line is
                // not UTF-8, which in a single-byte file is as it should be.
                let lead = content[first];
                !(0xC2..=0xF4).contains(&lead)
                    || !content
                        .get(first + 1)
                        .is_some_and(|b| (0x80..=0xBF).contains(b))
            }
            ChunkEncoding::PerLine => false,
        }
    }
}

pub(crate) fn refuse_line(
    code: Code,
    message: Message,
    content: &[u8],
    at: usize,
    absolute_start: usize,
    number: u32,
    encoding: Encoding,
) -> Refused {
    Refused {
        diagnostic: Box::new(
            Diagnostic::new(code, message)
                .at(
                    absolute_start + at..absolute_start + content.len().max(at + 1),
                    number,
                    column(content, at, encoding),
                )
                .expected(tr!("{encoding} text throughout" ; "весь текст в {encoding}")),
        ),
        encoding: Some(encoding),
    }
}

/// 1-based column, in characters, of byte `offset` of a line.
pub(crate) fn column(content: &[u8], offset: usize, encoding: Encoding) -> u32 {
    let prefix = &content[..offset.min(content.len())];
    let chars = match encoding {
        Encoding::Utf8 => prefix.iter().filter(|&&b| (b & 0xC0) != 0x80).count(),
        _ => prefix.len(),
    };
    chars as u32 + 1
}

/// Keys that need a value where they stand, reported as `empty-value` when written `Key=`
/// (FORMAT.md §2–4: required both to the bank and in statements). An empty `ВерсияФормата`
/// is `unsupported-version`.
fn required_value(kind: SectionKind) -> &'static [Key] {
    match kind {
        SectionKind::Header => &[Key::Encoding, Key::StartDate, Key::EndDate, Key::Account],
        SectionKind::Account => &[Key::Account, Key::StartDate, Key::OpeningBalance],
        SectionKind::Document => &[Key::Number, Key::Date, Key::Sum],
        SectionKind::End => &[],
    }
}

/// Whether byte `b` is a Russian letter (А–я, Ё, ё) in a single-byte `encoding`.
fn russian_letter(b: u8, encoding: Encoding) -> bool {
    match encoding {
        Encoding::Cp1251 => b >= 0xC0 || b == 0xA8 || b == 0xB8,
        Encoding::Cp866 => (0x80..=0xAF).contains(&b) || (0xE0..=0xF1).contains(&b),
        Encoding::Utf8 => false,
    }
}

/// Whether byte `b` (not ASCII) reads in a single-byte `encoding` as a character that Russian
/// text does not hold: CP866's box drawing, Ukrainian letters and rare signs; CP1251's Serbian and Ukrainian letters and rare
/// signs (its quotes, dashes, `№`, `§`, `°`, `±`, `·`, `…`, `Ё`, `ё` and no-break space are usual).
fn implausible(b: u8, encoding: Encoding) -> bool {
    match encoding {
        Encoding::Cp866 => {
            (0xB0..=0xDF).contains(&b) || matches!(b, 0xF2..=0xF7 | 0xF9 | 0xFB | 0xFD | 0xFE)
        }
        Encoding::Cp1251 => {
            (0x80..=0xBF).contains(&b)
                && !matches!(
                    b,
                    0x84 | 0x85
                        | 0x91..=0x94
                        | 0x96
                        | 0x97
                        | 0xA0
                        | 0xA7
                        | 0xA8
                        | 0xAB
                        | 0xB0
                        | 0xB1
                        | 0xB7..=0xB9
                        | 0xBB
                )
        }
        Encoding::Utf8 => false,
    }
}

/// For a value of a single-byte file: the other single-byte encoding when the value reads
/// far better in it — every byte that is not ASCII a Russian letter there, while in the file's
/// encoding at least two of them are characters Russian text does not hold: the value was pasted from a file of the other encoding and reads as mojibake.
pub(crate) fn other_encoding(value: &[u8], encoding: Encoding) -> Option<Encoding> {
    let other = match encoding {
        Encoding::Cp1251 => Encoding::Cp866,
        Encoding::Cp866 => Encoding::Cp1251,
        Encoding::Utf8 => return None,
    };
    // The first byte that is no Russian letter in the other encoding decides: not pasted from
    // it (Russian text in the file's own encoding stops at its first capital or so).
    if value.is_ascii() {
        return None;
    }
    let mut odd = 0usize;
    for &b in value {
        if b.is_ascii() {
            continue;
        }
        if !russian_letter(b, other) {
            return None;
        }
        odd += usize::from(implausible(b, encoding));
    }
    (odd >= 2).then_some(other)
}

/// Required keys per place, reported as `missing-key`.
fn required(kind: SectionKind) -> &'static [Key] {
    match kind {
        SectionKind::Header => &[Key::FormatVersion, Key::Encoding],
        SectionKind::Account => &[Key::Account, Key::StartDate, Key::OpeningBalance],
        SectionKind::Document => &[Key::Number, Key::Date, Key::Sum],
        SectionKind::End => &[],
    }
}

const REPORTED_BLANK: u8 = 1;
const REPORTED_ENDING: u8 = 2;
const REPORTED_AFTER_END: u8 = 4;

/// What a finished [`Grouper`] leaves: the last section, every finding, and the shared lines.
pub(crate) struct Finished {
    pub(crate) last: Section,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) arena: Vec<StoredLine>,
    /// The packed lines (with [`Grouper::packing`]).
    pub(crate) packed: PackedLines,
    /// How many documents were read (the last section included).
    pub(crate) documents: usize,
}

/// How many lines of a section a scan's [`Grouper`] holds as records before it packs them.
const FLUSH_LINES: usize = 4096;

/// The state machine that turns lines into sections.
pub(crate) struct Grouper {
    encoding: Encoding,
    detection: Detection,
    /// Absolute offset of the buffer's first byte in the input.
    pub(crate) base: usize,
    /// What the pending section is, and its lines so far when they are not in `arena`.
    kind: SectionKind,
    lines: Vec<Line>,
    /// Finished sections' lines, when they go to one shared vector (the in-memory tree). The
    /// pending section's lines are its last ones, from `pending_from` on, numbered from
    /// `pending_number` — unless one of them could not be stored so (it does not follow the
    /// line before, or its `=` is far on): then they are all in `lines`.
    arena: Option<Vec<StoredLine>>,
    /// Every line, packed, when sections are given as ranges of it (a scan); the pending
    /// section's words start at `pending_from`. Its lines are packed a section at a time,
    /// and every [`FLUSH_LINES`] within a section: a section of any size is held in about a
    /// word a line.
    packed: Option<PackedLines>,
    pending_from: usize,
    pending_number: u32,
    /// The first and the last of the pending section's lines packed so far, when it is
    /// packed in parts.
    flushed: Option<(Line, Line)>,
    /// The current section still awaits its end marker.
    open: bool,
    /// `КонецФайла` was seen.
    ended: bool,
    /// Keys seen in the current section (bit = key index).
    seen: u128,
    /// Balances of the current account section: opening, credited, debited, closing.
    amounts: [Option<Decimal>; 4],
    /// `ДатаНачала`, `ДатаКонца` of the current header or account section, with the line.
    period: [Option<(NaiveDate, Line)>; 2],
    reported: u8,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Findings reported so far per code (kept or not).
    counts: Vec<u32>,
    /// Per code, the first finding past [`LIMIT_PER_CODE`] (where its summary stands).
    first_omitted: Vec<Option<Diagnostic>>,
    /// How many document sections were finished.
    documents: usize,
    /// Per key (and [`Key::COUNT`] for a line that is no known key's), the key on the line
    /// after it the last time: the likely key of the next line, compared before the table is
    /// asked (documents list their keys in the same order).
    follows: [Option<Key>; Key::COUNT + 1],
    /// The index into `follows` of the line before.
    last_key: usize,
}

impl Grouper {
    pub(crate) fn new(encoding: Encoding, detection: Detection, base: usize) -> Grouper {
        Grouper {
            encoding,
            detection,
            base,
            kind: SectionKind::Header,
            lines: Vec::new(),
            arena: None,
            packed: None,
            pending_from: 0,
            pending_number: 0,
            flushed: None,
            open: true,
            ended: false,
            seen: 0,
            amounts: [None; 4],
            period: [None; 2],
            reported: 0,
            diagnostics: Vec::new(),
            counts: vec![0; Code::ALL.len()],
            first_omitted: vec![None; Code::ALL.len()],
            documents: 0,
            follows: [None; Key::COUNT + 1],
            last_key: Key::COUNT,
        }
    }

    /// Whether `КонецФайла` was seen.
    pub(crate) fn has_ended(&self) -> bool {
        self.ended
    }

    pub(crate) fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The encoding as decided again at the first line that is not ASCII (the lines before
    /// are ASCII and read alike in every encoding).
    pub(crate) fn redecided(&mut self, encoding: Encoding, detection: Detection) {
        self.encoding = encoding;
        self.detection = detection;
    }

    /// Closes the pending section as `next` (a section's first line) would, and returns it.
    pub(crate) fn close_before(&mut self, buf: &[u8], next: &Line) -> Section {
        self.finish_section(buf, next)
    }

    /// This grouper read the lines right after `earlier`'s, starting with the marker line
    /// `first_line` that closed `earlier`'s last section: its findings come after the earlier
    /// ones, except what one pass reports about that line before closing the section (its
    /// ending, an empty document type), which goes before the closing findings, at
    /// `closing_at`. A finding reported once per file keeps its first occurrence.
    pub(crate) fn follow(&mut self, earlier: Grouper, first_line: u32, closing_at: usize) {
        let once = |code: Code| match code {
            Code::BlankLine => REPORTED_BLANK,
            Code::LineEnding => REPORTED_ENDING,
            Code::ContentAfterEndOfFile => REPORTED_AFTER_END,
            _ => 0,
        };
        let already = earlier.reported;
        let mine: Vec<Diagnostic> = std::mem::take(&mut self.diagnostics)
            .into_iter()
            .filter(|d| once(d.code) & already == 0)
            .collect();
        let (before_closing, after): (Vec<_>, Vec<_>) = mine.into_iter().partition(|d| {
            d.line == Some(first_line)
                && matches!(d.code, Code::LineEnding | Code::EmptyDocumentType)
        });
        self.diagnostics = earlier.diagnostics;
        let at = closing_at.min(self.diagnostics.len());
        self.diagnostics.splice(at..at, before_closing);
        self.diagnostics.extend(after);
        self.reported |= already;
        self.documents += earlier.documents;
        // The limit per code over both readings, as one pass keeps it: the first ones in order.
        let mut kept = vec![0u32; Code::ALL.len()];
        let mut dropped: Vec<Option<Diagnostic>> = vec![None; Code::ALL.len()];
        let mut dropped_count = vec![0u32; Code::ALL.len()];
        self.diagnostics.retain(|d| {
            let index = d.code as usize;
            kept[index] += 1;
            if kept[index] as usize <= LIMIT_PER_CODE {
                return true;
            }
            dropped_count[index] += 1;
            if dropped[index].is_none() {
                dropped[index] = Some(d.clone());
            }
            false
        });
        let mine_first = std::mem::take(&mut self.first_omitted);
        self.first_omitted = earlier
            .first_omitted
            .into_iter()
            .zip(dropped)
            .zip(mine_first)
            .map(|((earlier, dropped), mine)| earlier.or(dropped).or(mine))
            .collect();
        // Counts: the earlier lines', plus these lines' less what `once` filtered out.
        for (index, count) in self.counts.iter_mut().enumerate() {
            let once_filtered = once(Code::ALL[index]) & already != 0;
            let mine = if once_filtered { 0 } else { *count };
            *count = earlier.counts[index] + mine;
        }
    }

    /// The lines of the pending section not packed yet.
    fn pending(&self) -> LinesRef<'_> {
        match &self.arena {
            Some(arena) if self.lines.is_empty() => LinesRef::Stored {
                lines: &arena[self.pending_from..],
                first: self.pending_number,
            },
            _ => LinesRef::Whole(&self.lines),
        }
    }

    /// The pending section's first line.
    fn pending_first(&self) -> Option<Line> {
        self.flushed
            .map(|(first, _)| first)
            .or_else(|| self.pending().first())
    }

    /// The pending section's last line.
    fn pending_last(&self) -> Option<Line> {
        self.pending().last().or(self.flushed.map(|(_, last)| last))
    }

    #[inline]
    fn push_line(&mut self, line: Line) {
        if self.arena.is_some() && self.lines.is_empty() {
            self.push_stored(line);
        } else {
            self.lines.push(line);
            if self.lines.len() >= FLUSH_LINES && self.packed.is_some() {
                self.flush();
            }
        }
    }

    /// Packs the pending lines held as records, after those of the section packed before.
    fn flush(&mut self) {
        let Some(packed) = &mut self.packed else {
            return;
        };
        let (Some(&first), Some(&last)) = (self.lines.first(), self.lines.last()) else {
            return;
        };
        let before = self.flushed.map(|(_, last)| last);
        packed.push_run(before.as_ref(), &self.lines);
        let first = self.flushed.map_or(first, |(first, _)| first);
        self.flushed = Some((first, last));
        self.lines.clear();
    }

    /// Pushes a line of the pending section to the shared vector, or, when it cannot be stored
    /// there, moves the section's lines to records of its own.
    fn push_stored(&mut self, line: Line) {
        if let Some(arena) = &mut self.arena {
            let held = arena.len() - self.pending_from;
            let follows =
                held == 0 || self.pending_number.checked_add(held as u32) == Some(line.number);
            if let Some(stored) = StoredLine::new(&line).filter(|_| follows) {
                if held == 0 {
                    self.pending_number = line.number;
                }
                arena.push(stored);
                return;
            }
            // The section goes on as records of its own.
            let number = self.pending_number;
            self.lines.extend(
                arena
                    .drain(self.pending_from..)
                    .enumerate()
                    .map(|(i, l)| l.line(number.wrapping_add(i as u32))),
            );
        }
        self.lines.push(line);
    }

    /// How many findings so far.
    pub(crate) fn findings(&self) -> usize {
        self.diagnostics.len()
    }

    /// Where the pending section starts in the buffer, if it has lines.
    pub(crate) fn pending_start(&self) -> Option<usize> {
        self.pending_first().map(|l| l.start as usize)
    }

    /// The buffer lost its first `by` bytes (streaming): move the pending lines.
    pub(crate) fn rebase(&mut self, by: usize) {
        self.base += by;
        // A streaming grouper keeps no shared vector: its pending lines are all in `lines`.
        debug_assert!(self.arena.is_none() && self.packed.is_none());
        let periods = self.period.iter_mut().flatten().map(|(_, line)| line);
        for line in self.lines.iter_mut().chain(periods) {
            line.start -= by as u32;
        }
    }

    fn report(
        &mut self,
        code: Code,
        buf: &[u8],
        line: &Line,
        range: std::ops::Range<usize>,
        message: impl FnOnce() -> Message,
    ) -> Reported<'_> {
        let index = code as usize;
        self.counts[index] += 1;
        let kept = self.counts[index] as usize <= LIMIT_PER_CODE;
        if !kept && self.first_omitted[index].is_some() {
            return Reported(None);
        }
        let content = line.content(buf);
        let start = self.base + line.start as usize;
        let diagnostic = Diagnostic::new(code, message()).at(
            start + range.start..start + range.end.max(range.start),
            line.number,
            column(content, range.start, self.encoding),
        );
        if !kept {
            // Past the limit: only where the first omitted one stood is kept, for the summary.
            return Reported(Some(self.first_omitted[index].insert(diagnostic)));
        }
        let index = self.diagnostics.len();
        self.diagnostics.push(diagnostic);
        Reported(Some(&mut self.diagnostics[index]))
    }

    /// The findings of each code past the limit, as one summary finding each (in code order),
    /// at the end of the list.
    fn summarise(&mut self) {
        for (index, first) in self.first_omitted.iter_mut().enumerate() {
            if let Some(first) = first.take() {
                let omitted = self.counts[index] - LIMIT_PER_CODE as u32;
                let mut summary = Diagnostic::summary(first.code, omitted);
                summary.span = first.span;
                summary.line = first.line;
                summary.column = first.column;
                self.diagnostics.push(summary);
            }
        }
    }

    /// Reports `code` at `line` unless `flag` says it was reported already; the message is
    /// written only then (a file of LF endings has one on every line).
    fn report_once(
        &mut self,
        flag: u8,
        code: Code,
        buf: &[u8],
        line: &Line,
        message: impl FnOnce() -> Message,
    ) {
        if self.reported & flag == 0 {
            self.reported |= flag;
            let len = line.len as usize;
            self.report(code, buf, line, 0..len, message);
        }
    }

    /// Takes one line; returns the section it finished, if any.
    pub(crate) fn push(&mut self, buf: &[u8], mut line: Line) -> Option<Section> {
        let content = line.content(buf);
        if line.ending != LineEnding::Crlf && line.ending != LineEnding::None {
            let (name, name_ru) = if line.ending == LineEnding::Lf {
                ("LF", "LF")
            } else {
                ("a lone CR", "одиночным CR")
            };
            let number = line.number;
            self.report_once(
                REPORTED_ENDING,
                Code::LineEnding,
                buf,
                &line,
                || tr!(
                    "line {number} ends with {name}; 1C writes CRLF (reported once per file)" ;
                    "строка {number} заканчивается {name_ru}, а 1С пишет CRLF (сообщается один раз на файл)"
                ),
            );
        }
        let shape = shape(content, self.encoding, self.follows[self.last_key]);
        let key = match shape {
            Shape::Pair(_, Some(key)) => {
                self.follows[self.last_key] = Some(key);
                key.index()
            }
            _ => Key::COUNT,
        };
        self.last_key = key;
        if self.ended {
            line.kind = match shape {
                Shape::Blank => LineKind::Blank,
                _ => {
                    self.report_once(
                        REPORTED_AFTER_END,
                        Code::ContentAfterEndOfFile,
                        buf,
                        &line,
                        || {
                            Message::new(
                                "text after КонецФайла is ignored",
                                "текст после КонецФайла не читается",
                            )
                        },
                    );
                    LineKind::Junk
                }
            };
            self.push_line(line);
            return None;
        }
        match shape {
            Shape::Blank => {
                line.kind = LineKind::Blank;
                self.report_once(REPORTED_BLANK, Code::BlankLine, buf, &line, || {
                    Message::new(
                        "blank line (1C skips them; reported once per file)",
                        "пустая строка (1С их пропускает; сообщается один раз на файл)",
                    )
                });
                self.push_line(line);
                None
            }
            Shape::Junk => {
                line.kind = LineKind::Junk;
                let len = content.len();
                self.report(Code::LineWithoutEquals, buf, &line, 0..len, || {
                    Message::new(
                        "this line is neither a marker nor Key=Value; it is kept and ignored",
                        "строка — не маркер и не Ключ=Значение; она сохранена, но не читается",
                    )
                })
                .expected(|| {
                    Message::new(
                        "Key=Value or a section marker",
                        "Ключ=Значение или маркер секции",
                    )
                });
                self.push_line(line);
                None
            }
            Shape::Pair(eq, exact) => {
                line.eq = eq as u32;
                self.pair(buf, &mut line, exact);
                self.push_line(line);
                None
            }
            Shape::Marker(marker, folded) => {
                line.kind = LineKind::Marker(marker);
                if folded {
                    // Read as keys are: the marker stands, with a warning.
                    let written = content.trim_ascii();
                    let written = memchr::memchr(b'=', written)
                        .map_or(written, |eq| written[..eq].trim_ascii());
                    let name = short_bytes(written, self.encoding);
                    let at = content.len() - content.trim_ascii_start().len();
                    self.report(Code::KeyCase, buf, &line, at..at + written.len(), || {
                        tr!(
                            "`{name}` is read as `{}`", marker.name() ;
                            "`{name}` прочитан как `{}`", marker.name()
                        )
                    })
                    .key(|| name.clone())
                    .expected(|| Message::same(marker.name()));
                }
                if content.trim_ascii().len() != content.len() && marker != Marker::DocumentStart {
                    let len = content.len();
                    self.report(
                        Code::StraySpaces,
                        buf,
                        &line,
                        0..len,
                        || tr!("spaces around {}", marker.name() ; "пробелы вокруг {}", marker.name()),
                    );
                }
                self.marker(buf, line, marker)
            }
        }
    }

    fn marker(&mut self, buf: &[u8], mut line: Line, marker: Marker) -> Option<Section> {
        let expected_end = match self.kind {
            SectionKind::Account => Some(Marker::AccountEnd),
            SectionKind::Document => Some(Marker::DocumentEnd),
            _ => None,
        };
        match marker {
            Marker::Start => {
                if line.number != 1 {
                    let len = line.len as usize;
                    self.report(Code::RepeatedStartMarker, buf, &line, 0..len, || {
                        Message::new(
                            "1CClientBankExchange again: only line 1 may hold it",
                            "1CClientBankExchange ещё раз: эта строка допустима только первой",
                        )
                    });
                }
                self.push_line(line);
                None
            }
            Marker::AccountEnd | Marker::DocumentEnd => {
                let len = line.len as usize;
                if self.open && expected_end == Some(marker) {
                    self.open = false;
                } else if self.open && expected_end.is_some() {
                    self.report(Code::UnexpectedEndMarker, buf, &line, 0..len, || {
                        tr!(
                            "{} closes a section of the other kind", marker.name() ;
                            "{} закрывает секцию другого вида", marker.name()
                        )
                    })
                    .expected(|| Message::same(expected_end.map_or("", Marker::name)));
                    self.open = false;
                } else {
                    self.report(Code::UnexpectedEndMarker, buf, &line, 0..len, || {
                        tr!(
                            "{} with no section open", marker.name() ;
                            "{} без открытой секции", marker.name()
                        )
                    });
                }
                self.push_line(line);
                None
            }
            Marker::AccountStart | Marker::DocumentStart | Marker::FileEnd => {
                let kind = match marker {
                    Marker::AccountStart => SectionKind::Account,
                    Marker::DocumentStart => SectionKind::Document,
                    _ => SectionKind::End,
                };
                if marker == Marker::DocumentStart {
                    let content = line.content(buf);
                    match memchr::memchr(b'=', content) {
                        Some(eq) => line.eq = eq as u32,
                        None => line.eq = NO_EQ,
                    }
                    if line.value_bytes(buf).trim_ascii().is_empty() {
                        let len = line.len as usize;
                        self.report(Code::EmptyDocumentType, buf, &line, 0..len, || {
                            Message::new(
                                "СекцияДокумент names no document type",
                                "в СекцияДокумент не указан вид документа",
                            )
                        })
                        .expected(|| {
                            Message::new(
                                "СекцияДокумент=Платежное поручение (or another document type)",
                                "СекцияДокумент=Платежное поручение (или другой вид документа)",
                            )
                        });
                    }
                }
                let finished = self.finish_section(buf, &line);
                self.kind = kind;
                self.push_line(line);
                self.open = kind != SectionKind::End;
                self.ended = kind == SectionKind::End;
                self.seen = 0;
                self.amounts = [None; 4];
                self.period = [None; 2];
                Some(finished)
            }
        }
    }

    /// A `Key=Value` line; `exact` is its key when [`shape`] found it spelled exactly.
    #[inline(always)]
    fn pair(&mut self, buf: &[u8], line: &mut Line, exact: Option<Key>) {
        let content = line.content(buf);
        let eq = line.eq as usize;
        let raw_key = &content[..eq];
        let key_bytes = raw_key.trim_ascii();
        let place = match (self.kind, self.open) {
            (SectionKind::Header, _) => Some(Place::Header),
            (SectionKind::Account, true) => Some(Place::Account),
            (SectionKind::Document, true) => Some(Place::Document),
            _ => None,
        };
        let encoding = self.encoding;
        let key_name = || short_bytes(key_bytes, encoding);
        line.kind = if place.is_some() {
            LineKind::Pair
        } else {
            LineKind::StrayPair
        };
        if key_bytes.len() != raw_key.len() {
            self.report(Code::StraySpaces, buf, line, 0..eq + 1, || {
                let key = key_name();
                tr!(
                    "spaces around the key `{key}`: 1C would not know it" ;
                    "пробелы вокруг ключа `{key}`: 1С его не распознает"
                )
            })
            .key(key_name);
        }
        let value = &content[eq + 1..];
        if let Some(other) = other_encoding(value, encoding) {
            let shown = short_bytes(value, encoding);
            let read = short_bytes(value, other);
            self.report(
                Code::ValueInOtherEncoding,
                buf,
                line,
                eq + 1..content.len(),
                || {
                    let key = key_name();
                    tr!(
                        "the value of `{key}` reads as mojibake in {encoding} but as {other} text: {read}; it was written in another encoding than the file" ;
                        "значение `{key}` в {encoding} читается как набор случайных знаков, а в {other} — как текст: {read}; его записали не в той кодировке, что весь файл"
                    )
                },
            )
            .key(key_name)
            .found(|| shown)
            .expected(|| tr!("{encoding} text" ; "текст в {encoding}"));
        }
        // `Кодировка` spelled in another encoding than the one the content chose is still the
        // encoding key: its (ASCII) value is checked against the choice and a mismatch warned.
        let found = match exact {
            Some(key) => Some((key, false)),
            None => Key::lookup(key_bytes, self.encoding),
        }
        .or_else(|| {
            Encoding::ALL
                .iter()
                .any(|&e| key_bytes == Key::Encoding.bytes(e))
                .then_some((Key::Encoding, false))
        });
        let Some(place) = place else {
            self.report(Code::KeyOutsideSection, buf, line, 0..eq, || {
                let key = key_name();
                tr!(
                    "`{key}` stands between sections; it belongs to none and is ignored" ;
                    "`{key}` стоит между секциями, не относится ни к одной и не читается"
                )
            })
            .key(key_name);
            return;
        };
        let Some((key, folded)) = found else {
            self.report(Code::UnknownKey, buf, line, 0..eq, || {
                let key = key_name();
                tr!(
                    "`{key}` is not a key of the 1.03 format; it is kept as written" ;
                    "`{key}` — не ключ формата 1.03; он сохранён как есть"
                )
            })
            .key(key_name)
            .expected(|| tr!("a key of {}", place.describe() ; "ключ {}", place.of_ru()));
            return;
        };
        line.key = Some(key);
        if folded {
            self.report(Code::KeyCase, buf, line, 0..eq, || {
                tr!(
                    "`{}` is read as `{}`", key_name(), key.name() ;
                    "`{}` прочитан как `{}`", key_name(), key.name()
                )
            })
            .key(key_name)
            .expected(|| Message::same(key.name()));
        }
        if !key.allowed_in(place) {
            self.report(Code::KeyInWrongSection, buf, line, 0..eq, || {
                tr!(
                    "`{}` does not belong in {}", key.name(), place.describe() ;
                    "`{}` не допускается {}", key.name(), place.in_ru()
                )
            })
            .key(|| key.name());
            return;
        }
        let bit = 1u128 << (key as u32);
        if self.seen & bit != 0 && !key.repeats() {
            self.report(
                Code::DuplicateKey,
                buf,
                line,
                0..eq,
                || tr!(
                    "`{}` stands twice in this section: which value is meant cannot be told (the first is read)", key.name() ;
                    "`{}` повторяется в этой секции: какое значение верно, не понять (читается первое)", key.name()
                ),
            )
            .key(|| key.name());
            return;
        }
        self.seen |= bit;
        self.check_value(buf, line, key);
    }

    fn check_value(&mut self, buf: &[u8], line: &Line, key: Key) {
        let content = line.content(buf);
        let start = line.eq as usize + 1;
        let value = &content[start..];
        let span = start..content.len().max(start + 1);
        let trimmed = value.trim_ascii();
        if trimmed.is_empty() && key.kind() != ValueKind::Version {
            if required_value(self.kind).contains(&key) {
                let (place, place_ru) = match self.kind {
                    SectionKind::Header => ("the header", "в заголовке"),
                    SectionKind::Account => ("an account section", "в секции расчётного счёта"),
                    _ => ("a document", "в документе"),
                };
                let expected = match key.kind() {
                    ValueKind::Date => Message::new("a date, ДД.ММ.ГГГГ", "дата ДД.ММ.ГГГГ"),
                    ValueKind::Amount { .. } => {
                        Message::new("an amount, e.g. 1500.00", "сумма, например 1500.00")
                    }
                    ValueKind::EncodingLabel => Message::new("Windows or DOS", "Windows или DOS"),
                    _ if key == Key::Account => {
                        Message::new("the 20-digit account number", "номер счёта из 20 цифр")
                    }
                    _ => Message::new("the document number", "номер документа"),
                };
                self.report(Code::EmptyValue, buf, line, start..start, || {
                    tr!(
                        "`{}` has no value; {place} needs one", key.name() ;
                        "у ключа `{}` нет значения, а {place_ru} оно обязательно", key.name()
                    )
                })
                .key(|| key.name())
                .expected(|| expected);
            }
            return;
        }
        let shown = || short_bytes(value, self.encoding);
        let (code, expected) = match key.kind() {
            ValueKind::Text => return,
            ValueKind::Date => match value::parse_date(value) {
                Some(date) => {
                    let slot = match key {
                        Key::StartDate => Some(0),
                        Key::EndDate => Some(1),
                        _ => None,
                    };
                    if let Some(slot) = slot {
                        self.period[slot] = Some((date, *line));
                    }
                    return;
                }
                None => (
                    Code::InvalidDate,
                    Message::new(
                        "ДД.ММ.ГГГГ, a calendar date",
                        "ДД.ММ.ГГГГ, существующая дата",
                    ),
                ),
            },
            ValueKind::Time => match value::parse_time(value) {
                Some((_, false)) => return,
                Some((_, true)) => (Code::TimeWithDots, Message::same("ЧЧ:ММ:СС")),
                None => (Code::InvalidTime, Message::same("ЧЧ:ММ:СС")),
            },
            ValueKind::Amount { signed } => {
                let slot = match key {
                    Key::OpeningBalance => Some(0),
                    Key::TotalCredited => Some(1),
                    Key::TotalDebited => Some(2),
                    Key::ClosingBalance => Some(3),
                    _ => None,
                };
                // The balances are kept for the balance check; other sums only checked.
                let valid = match slot {
                    Some(slot) => {
                        self.amounts[slot] = value::parse_amount(value, signed);
                        self.amounts[slot].is_some()
                    }
                    None => value::is_amount(value, signed),
                };
                match valid {
                    true => return,
                    false if signed => (
                        Code::InvalidSum,
                        Message::new(
                            "rubles with up to two decimals after a dot, e.g. 1500.00 or -20.5",
                            "рубли и не больше двух знаков копеек после точки, например 1500.00 или -20.5",
                        ),
                    ),
                    false => (
                        Code::InvalidSum,
                        Message::new(
                            "rubles with up to two decimals after a dot, e.g. 1500.00, not negative",
                            "рубли и не больше двух знаков копеек после точки, например 1500.00, без минуса",
                        ),
                    ),
                }
            }
            ValueKind::Integer => match value::parse_integer(value) {
                Some(_) => return,
                None => (
                    Code::InvalidInteger,
                    Message::new("a whole number of days", "целое число дней"),
                ),
            },
            ValueKind::Version => match value::parse_version(value) {
                Some(_) => return,
                None => (
                    Code::UnsupportedVersion,
                    Message::new("1.01, 1.02 or 1.03", "1.01, 1.02 или 1.03"),
                ),
            },
            ValueKind::EncodingLabel => {
                self.check_label(buf, line, value, span);
                return;
            }
        };
        let (name, value) = (key.name(), shown());
        let message = match code {
            Code::InvalidDate => tr!(
                "`{name}` is not a valid date: {value}" ;
                "`{name}` — неверная дата: {value}"
            ),
            Code::InvalidTime => tr!(
                "`{name}` is not a valid time: {value}" ;
                "`{name}` — неверное время: {value}"
            ),
            Code::TimeWithDots => tr!(
                "`{name}` is written with dots: {value}" ;
                "`{name}` записано через точки: {value}"
            ),
            Code::InvalidSum => tr!(
                "`{name}` is not a valid amount: {value}" ;
                "`{name}` — неверная сумма: {value}"
            ),
            Code::InvalidInteger => tr!(
                "`{name}` is not a whole number: {value}" ;
                "`{name}` — не целое число: {value}"
            ),
            _ => tr!(
                "format version {value} is not supported" ;
                "версия формата {value} не поддерживается"
            ),
        };
        let found = shown();
        self.report(code, buf, line, span, || message)
            .key(|| key.name())
            .found(|| found)
            .expected(|| expected);
    }

    fn check_label(&mut self, buf: &[u8], line: &Line, value: &[u8], span: std::ops::Range<usize>) {
        let label = short_bytes(value, self.encoding);
        match Encoding::from_label(&label) {
            None => {
                let encoding = self.encoding;
                self.report(
                    Code::UnknownEncodingLabel,
                    buf,
                    line,
                    span,
                    || {
                        tr!(
                            "Кодировка={label} names no encoding we know; the file is read as {encoding}" ;
                            "Кодировка={label} — неизвестная кодировка; файл прочитан как {encoding}"
                        )
                    },
                )
                .key(|| Key::Encoding.name())
                .found(|| label)
                .expected(|| Message::new("Windows or DOS", "Windows или DOS"));
            }
            Some((declared, standard)) => {
                if declared != self.encoding && self.detection != Detection::Ascii {
                    let (actual, encoding) = (self.encoding.label(), self.encoding);
                    self.report(
                        Code::EncodingMismatch,
                        buf,
                        line,
                        span.clone(),
                        || {
                            tr!(
                                "the file says Кодировка={label} but its bytes are {encoding}; it is read as {encoding}" ;
                                "в файле указано Кодировка={label}, но его байты — в {encoding}; он прочитан как {encoding}"
                            )
                        },
                    )
                    .key(|| Key::Encoding.name())
                    .found(|| label.clone())
                    .expected(|| Message::same(actual));
                } else if !standard {
                    self.report(Code::NonstandardEncodingLabel, buf, line, span, || {
                        tr!(
                            "Кодировка={label} is not one of the two values 1C knows" ;
                            "Кодировка={label} — не одно из двух значений, которые знает 1С"
                        )
                    })
                    .key(|| Key::Encoding.name())
                    .found(|| label)
                    .expected(|| Message::same(declared.label()));
                }
            }
        }
    }

    /// The checks that need the whole section: required keys, balances, period.
    fn finish_section(&mut self, buf: &[u8], next: &Line) -> Section {
        let kind = self.kind;
        if self.open && matches!(kind, SectionKind::Account | SectionKind::Document) {
            let end = if kind == SectionKind::Account {
                Marker::AccountEnd
            } else {
                Marker::DocumentEnd
            };
            let first = self.pending_first().unwrap_or(*next);
            let len = first.len as usize;
            let (opened, next_line) = (first.number, next.number);
            let message = if next.len == 0 && next.number == 0 {
                tr!(
                    "the section opened at line {opened} is not closed before the end of the input" ;
                    "секция, открытая в строке {opened}, не закрыта до конца файла"
                )
            } else {
                tr!(
                    "the section opened at line {opened} is not closed before line {next_line}" ;
                    "секция, открытая в строке {opened}, не закрыта до строки {next_line}"
                )
            };
            self.report(Code::UnclosedSection, buf, &first, 0..len, || message)
                .expected(|| Message::same(end.name()));
        }
        if let Some(first) = self.pending_first() {
            for &key in required(kind) {
                if self.seen & (1u128 << (key as u32)) == 0 {
                    let len = first.len as usize;
                    let (place, place_ru) = match kind {
                        SectionKind::Header => ("the header", "в заголовке"),
                        SectionKind::Account => {
                            ("this account section", "в этой секции расчётного счёта")
                        }
                        _ => ("this document", "в этом документе"),
                    };
                    self.report(Code::MissingKey, buf, &first, 0..len, || {
                        tr!(
                            "{place} has no `{}`", key.name() ;
                            "{place_ru} нет `{}`", key.name()
                        )
                    })
                    .key(|| key.name());
                }
            }
            if let [Some(opening), credited, debited, Some(closing)] = self.amounts {
                let computed = opening + credited.unwrap_or_default() - debited.unwrap_or_default();
                if computed != closing {
                    let len = first.len as usize;
                    self.report(
                        Code::BalanceMismatch,
                        buf,
                        &first,
                        0..len,
                        || {
                            let (credited, debited) =
                                (credited.unwrap_or_default(), debited.unwrap_or_default());
                            tr!(
                                "closing balance {closing} is not opening {opening} + credited {credited} − debited {debited} = {computed}" ;
                                "конечный остаток {closing} не равен начальному {opening} + поступило {credited} − списано {debited} = {computed}"
                            )
                        },
                    )
                    .key(|| Key::ClosingBalance.name());
                }
            }
            if let [Some((start, _)), Some((end, line))] = self.period
                && start > end
            {
                let len = line.len as usize;
                self.report(Code::PeriodReversed, buf, &line, 0..len, || {
                    let (start, end) = (value::format_date(start), value::format_date(end));
                    tr!(
                        "ДатаНачала {start} is after ДатаКонца {end}" ;
                        "ДатаНачала {start} позже ДатаКонца {end}"
                    )
                })
                .key(|| Key::EndDate.name());
            }
        }
        self.take_section()
    }

    /// The current section with exactly the memory its lines need; the scratch vector is kept
    /// for the next section (a section's lines are few, but there are many sections). With a
    /// shared vector, the pending lines were pushed straight to it (a huge section is not held
    /// twice).
    fn take_section(&mut self) -> Section {
        self.flush();
        self.flushed = None;
        let (start, shared) = (self.pending_from as u32, self.lines.is_empty());
        let lines = match (&self.arena, &self.packed) {
            // The pending lines are the packed lines' last words now.
            (_, Some(packed)) => {
                self.pending_from = packed.len();
                let end = packed.len() as u32;
                Lines::Packed {
                    store: 0,
                    start,
                    end,
                }
            }
            // The pending lines are already the arena's last ones.
            (Some(arena), None) if shared => {
                self.pending_from = arena.len();
                let (end, number) = (arena.len() as u32, self.pending_number);
                Lines::Shared {
                    arena: 0,
                    start,
                    end,
                    number,
                }
            }
            _ => Lines::Owned(self.lines.to_vec()),
        };
        self.lines.clear();
        if self.kind == SectionKind::Document {
            self.documents += 1;
        }
        Section {
            kind: self.kind,
            lines,
        }
    }

    /// Finished sections go to one shared vector of lines, with room for `lines`.
    pub(crate) fn with_arena(mut self, lines: usize) -> Grouper {
        self.arena = Some(Vec::with_capacity(lines));
        self
    }

    /// The shared vector of lines (empty without [`Grouper::with_arena`]).
    pub(crate) fn take_arena(&mut self) -> Vec<StoredLine> {
        self.arena.take().unwrap_or_default()
    }

    /// Every line goes to packed lines, with room for about `lines`, and each finished
    /// section is a range of them ([`Lines::Packed`]): a section of any size is held in
    /// about a word a line, blank and repeated lines in less.
    pub(crate) fn packing(mut self, lines: usize) -> Grouper {
        self.packed = Some(PackedLines::with_capacity(lines));
        self
    }

    /// The packed lines (empty without [`Grouper::packing`]).
    pub(crate) fn take_packed(&mut self) -> PackedLines {
        self.packed.take().unwrap_or_default()
    }

    /// The input ended: returns the last section.
    pub(crate) fn finish(mut self, buf: &[u8]) -> Finished {
        let end = Line {
            start: 0,
            len: 0,
            eq: NO_EQ,
            number: 0,
            ending: LineEnding::None,
            kind: LineKind::Blank,
            key: None,
        };
        let was_ended = self.ended;
        let last_line = self.pending_last();
        let section = if self.ended {
            self.take_section()
        } else {
            self.finish_section(buf, &end)
        };
        if !was_ended && let Some(line) = last_line {
            let len = line.len as usize;
            self.report(Code::MissingEndOfFile, buf, &line, len..len, || {
                Message::new(
                    "the file has no КонецФайла; it may have been cut short",
                    "в файле нет КонецФайла; возможно, он обрезан",
                )
            })
            .expected(|| Message::same("КонецФайла"));
        }
        self.summarise();
        Finished {
            last: section,
            diagnostics: self.diagnostics,
            arena: self.arena.unwrap_or_default(),
            packed: self.packed.unwrap_or_default(),
            documents: self.documents,
        }
    }
}

/// A finding just reported, to add details to (none when it was past the limit of its code).
/// Texts taken from the input are cut short: a finding holds no copy of a big value.
struct Reported<'a>(Option<&'a mut Diagnostic>);

impl Reported<'_> {
    // Each detail is made only when the finding is (not past its code's limit).
    fn key<K: Into<std::borrow::Cow<'static, str>>>(mut self, key: impl FnOnce() -> K) -> Self {
        if let Some(d) = &mut self.0 {
            d.key = Some(match key().into() {
                std::borrow::Cow::Owned(key) => std::borrow::Cow::Owned(short(&key)),
                key => key,
            });
        }
        self
    }
    fn found<F: AsRef<str>>(mut self, found: impl FnOnce() -> F) -> Self {
        if let Some(d) = &mut self.0 {
            d.found = Some(short(found().as_ref()).into());
        }
        self
    }
    fn expected(mut self, expected: impl FnOnce() -> Message) -> Self {
        if let Some(d) = &mut self.0 {
            d.expected = Some(expected());
        }
        self
    }
}

/// A line as the lexer hands it to the grouper.
pub(crate) fn raw_line(start: usize, end: usize, ending: LineEnding, number: u32) -> Line {
    Line {
        start: start as u32,
        len: (end - start) as u32,
        eq: NO_EQ,
        number,
        ending,
        kind: LineKind::Blank,
        key: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;

    /// A zero byte is found wherever it stands in a line: in its ASCII start, after Russian
    /// letters, in every encoding; a line without one passes.
    #[test]
    fn a_zero_byte_is_found_anywhere_in_a_line() {
        for encoding in [Encoding::Cp1251, Encoding::Cp866, Encoding::Utf8] {
            let text = encoding
                .encode("Плательщик=ООО Ромашка")
                .unwrap()
                .into_owned();
            assert!(check_line_encoding(&text, encoding).is_ok());
            for at in [0, 3, text.len() - 1, text.len()] {
                let mut line = text.clone();
                line.insert(at, 0);
                let Err((code, found, _)) = check_line_encoding(&line, encoding) else {
                    panic!("{encoding}: a zero byte at {at} passed")
                };
                assert_eq!((code, found), (Code::NulByte, at), "{encoding}");
            }
        }
    }

    /// Issue 19: a file saved as UTF-16 ("Unicode" in Notepad), with its mark or without,
    /// in either byte order, is named as such with what to do, not called binary data.
    #[test]
    fn a_utf16_file_is_named_with_what_to_do() {
        let text = "1CClientBankExchange\r\nВерсияФормата=1.03\r\n";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        for bytes in [
            [&b"\xFF\xFE"[..], &le].concat(),
            le.clone(),
            [&b"\xFE\xFF"[..], &be].concat(),
            be.clone(),
        ] {
            let Err(refused) = preamble(&bytes) else {
                panic!("a UTF-16 file was read")
            };
            let d = &refused.diagnostic;
            assert_eq!(d.code, Code::NotAnExchangeFile);
            assert!(d.message(Lang::En).contains("UTF-16"), "{d:?}");
            assert!(
                d.message(Lang::Ru).contains("сохраните его заново"),
                "{d:?}"
            );
        }
        // Binary data stays binary data.
        let Err(refused) = preamble(b"\x7FELF\x02\x01\x01\0\0\0\0\0") else {
            panic!("binary data was read")
        };
        assert!(refused.diagnostic.message(Lang::En).contains("binary"));
    }

    #[test]
    fn values_in_the_other_encoding_are_told_from_russian_text() {
        let (w, d) = (Encoding::Cp1251, Encoding::Cp866);
        let bytes = |e: Encoding, text: &str| e.encode(text).unwrap().into_owned();
        // Pasted from the other encoding.
        assert_eq!(other_encoding(&bytes(d, "ООО Ромашка"), w), Some(d));
        assert_eq!(other_encoding(&bytes(w, "ООО Ромашка"), d), Some(w));
        assert_eq!(other_encoding(&bytes(w, "Иванов Иван"), d), Some(w));
        // Russian text of the file's own encoding, with its usual signs.
        for text in [
            "ООО Ромашка",
            "Оплата по счету № 5 от 01.11.2026, НДС не облагается",
            "A№№ё",
            "Ёлки - 5°",
            "оплата",
        ] {
            assert_eq!(other_encoding(&bytes(w, text), w), None, "{text}");
            assert_eq!(other_encoding(&bytes(d, text), d), None, "{text}");
        }
        assert_eq!(other_encoding(&bytes(w, "«Лютик» – 5 ±"), w), None);
        assert_eq!(other_encoding(b"ascii", w), None);
        assert_eq!(
            other_encoding(&bytes(d, "ООО Ромашка"), Encoding::Utf8),
            None
        );
    }
}
