//! The streaming reader: sections one at a time from any `io::Read`, in memory bounded by
//! the largest section.

use std::io::{self, Read};

use crate::diagnostic::Diagnostic;
use crate::parse::{self, Grouper, Refused, Section, SectionKind, raw_line};
use crate::syntax::next_line;
use crate::tree::SectionRef;
use crate::{Encoding, model};

const CHUNK: usize = 64 * 1024;

/// A section read by the [`Reader`], owning its bytes.
#[derive(Clone, Debug)]
pub struct OwnedSection {
    bytes: Vec<u8>,
    encoding: Encoding,
    section: Section,
    /// The input ended with this section (no line came after it).
    ends_input: bool,
}

impl OwnedSection {
    /// The read-only view (the same one the in-memory tree gives).
    pub fn view(&self) -> SectionRef<'_> {
        SectionRef::new(
            &self.bytes,
            self.encoding,
            self.section.kind,
            self.section.lines(&[]),
            if self.ends_input {
                self.bytes.len()
            } else {
                usize::MAX
            },
        )
    }

    /// What the section is.
    pub fn kind(&self) -> SectionKind {
        self.section.kind
    }

    /// The section's bytes exactly as read; concatenated in order they give back the input
    /// (after any BOM).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The typed view of a document.
    pub fn to_document(&self) -> model::Document {
        model::Document::from_section(&self.view())
    }
}

/// Why the streaming reader stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum StreamError {
    /// Reading the input failed.
    Io(io::Error),
    /// The input is not an exchange file that can be read without guessing.
    Refused(Refused),
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::Io(e) => write!(f, "reading failed: {e}"),
            StreamError::Refused(r) => r.fmt(f),
        }
    }
}

impl std::error::Error for StreamError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StreamError::Io(e) => Some(e),
            StreamError::Refused(r) => Some(r),
        }
    }
}

/// Reads an exchange file section by section: the header, then each account section and
/// document, then `КонецФайла`. Findings gather in [`Reader::diagnostics`].
///
/// ```
/// use clientbank_format::{Reader, SectionKind, Key};
/// let text = "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
///             СекцияДокумент=Платежное поручение\r\nНомер=1\r\nДата=01.04.2024\r\nСумма=10.50\r\n\
///             КонецДокумента\r\nКонецФайла\r\n";
/// let bytes = clientbank_format::Encoding::Cp1251.encode(text).unwrap().into_owned();
/// let mut total = rust_decimal::Decimal::ZERO;
/// for section in Reader::new(&bytes[..]) {
///     let section = section?;
///     if section.kind() == SectionKind::Document {
///         total += section.view().amount(Key::Sum).unwrap_or_default();
///     }
/// }
/// assert_eq!(total.to_string(), "10.50");
/// # Ok::<(), clientbank_format::StreamError>(())
/// ```
#[derive(Debug)]
pub struct Reader<R> {
    inner: R,
    buf: Vec<u8>,
    /// Where the next line starts in `buf`.
    pos: usize,
    eof: bool,
    grouper: Option<Grouper>,
    encoding: Option<Encoding>,
    number: u32,
    bom: bool,
    done: bool,
    diagnostics: Vec<Diagnostic>,
    /// The input has been ASCII so far: the encoding is decided again at the first line that
    /// is not.
    provisional: bool,
}

impl std::fmt::Debug for Grouper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grouper").finish_non_exhaustive()
    }
}

impl<R: Read> Reader<R> {
    /// Reads from `inner` (wrap files in nothing: the reader buffers itself).
    pub fn new(inner: R) -> Reader<R> {
        Reader {
            inner,
            buf: Vec::with_capacity(CHUNK),
            pos: 0,
            eof: false,
            grouper: None,
            encoding: None,
            number: 0,
            bom: false,
            done: false,
            diagnostics: Vec::new(),
            provisional: false,
        }
    }

    /// The encoding, once the start of the input has been read. While the input has been ASCII
    /// it is provisional: it is decided again at the first line that is not ASCII.
    pub fn encoding(&self) -> Option<Encoding> {
        self.encoding
    }

    /// Whether the input starts with a UTF-8 BOM.
    pub fn has_bom(&self) -> bool {
        self.bom
    }

    /// The findings so far (all of them once the iterator has ended).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match &self.grouper {
            Some(grouper) => &grouper.diagnostics,
            None => &self.diagnostics,
        }
    }

    fn fill(&mut self) -> io::Result<()> {
        let len = self.buf.len();
        self.buf.resize(len + CHUNK, 0);
        let read = loop {
            match self.inner.read(&mut self.buf[len..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        match read {
            Ok(n) => {
                self.buf.truncate(len + n);
                self.eof = n == 0;
                Ok(())
            }
            Err(e) => {
                self.buf.truncate(len);
                Err(e)
            }
        }
    }

    fn start(&mut self) -> Result<(), StreamError> {
        while !self.eof && self.buf.len() < crate::encoding::SAMPLE + 3 {
            self.fill().map_err(StreamError::Io)?;
        }
        let preamble = parse::preamble(&self.buf).map_err(StreamError::Refused)?;
        self.pos = preamble.body;
        self.bom = preamble.body > 0;
        self.encoding = Some(preamble.encoding);
        self.grouper = Some(Grouper::new(preamble.encoding, preamble.detection, 0));
        self.provisional = preamble.detection == crate::encoding::Detection::Ascii;
        Ok(())
    }

    /// The first line that is not ASCII starts at `self.pos`: reads ahead a sample from it and
    /// decides the encoding on it, as the in-memory reader does.
    fn redecide(&mut self) -> Result<(), StreamError> {
        self.compact();
        while !self.eof && self.buf.len() < self.pos + crate::encoding::SAMPLE {
            self.fill().map_err(StreamError::Io)?;
        }
        let end = self.buf.len().min(self.pos + crate::encoding::SAMPLE);
        let (encoding, detection) = parse::redecide(&self.buf[self.pos..end]);
        self.encoding = Some(encoding);
        if let Some(grouper) = self.grouper.as_mut() {
            grouper.redecided(encoding, detection);
        }
        self.provisional = false;
        Ok(())
    }

    /// Copies a finished section out of the buffer and drops the bytes nobody needs.
    fn own(&mut self, section: Section) -> OwnedSection {
        // The streaming grouper has no shared lines: each section owns its own.
        let start = section.lines(&[]).first().map_or(0, |l| l.start as usize);
        let end = section.end(&[]);
        let mut section = section;
        for line in section.lines_mut(&[]) {
            line.start -= start as u32;
        }
        let owned = OwnedSection {
            bytes: self.buf[start..end].to_vec(),
            encoding: self.encoding.unwrap_or(Encoding::Cp1251),
            section,
            // The line that closed it came after it.
            ends_input: false,
        };
        self.compact();
        owned
    }

    fn compact(&mut self) {
        let Some(grouper) = self.grouper.as_mut() else {
            return;
        };
        let keep = grouper.pending_start().unwrap_or(self.pos).min(self.pos);
        if keep > 0 {
            self.buf.drain(..keep);
            self.pos -= keep;
            grouper.rebase(keep);
        }
    }

    fn step(&mut self) -> Result<Option<OwnedSection>, StreamError> {
        if self.grouper.is_none() {
            self.start()?;
        }
        let mut encoding = self.encoding.unwrap_or(Encoding::Cp1251);
        loop {
            if self.provisional
                && let Some((end, ..)) = next_line(&self.buf, self.pos, self.eof)
                && !self.buf[self.pos..end].is_ascii()
            {
                self.redecide()?;
                encoding = self.encoding.unwrap_or(Encoding::Cp1251);
                continue;
            }
            let Some(grouper) = self.grouper.as_mut() else {
                return Ok(None);
            };
            match next_line(&self.buf, self.pos, self.eof) {
                Some((end, ending, next)) => {
                    self.number += 1;
                    let content = &self.buf[self.pos..end];
                    if let Err((code, at, message)) = parse::check_line_encoding(content, encoding)
                    {
                        let absolute = grouper.base + self.pos;
                        return Err(StreamError::Refused(parse::refuse_line(
                            code,
                            message,
                            content,
                            at,
                            absolute,
                            self.number,
                            encoding,
                        )));
                    }
                    let line = raw_line(self.pos, end, ending, self.number);
                    self.pos = next;
                    if let Some(section) = grouper.push(&self.buf, line) {
                        return Ok(Some(self.own(section)));
                    }
                }
                None if self.eof => {
                    let Some(grouper) = self.grouper.take() else {
                        return Ok(None);
                    };
                    let finished = grouper.finish(&self.buf);
                    self.diagnostics = finished.diagnostics;
                    self.done = true;
                    let mut last = finished.last;
                    let Some(start) = last.lines(&[]).first().map(|l| l.start as usize) else {
                        return Ok(None);
                    };
                    for line in last.lines_mut(&[]) {
                        line.start -= start as u32;
                    }
                    return Ok(Some(OwnedSection {
                        bytes: self.buf[start..last.end(&[]) + start].to_vec(),
                        encoding,
                        section: last,
                        ends_input: true,
                    }));
                }
                None => {
                    self.compact();
                    self.fill().map_err(StreamError::Io)?;
                }
            }
        }
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Result<OwnedSection, StreamError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.step() {
            Ok(Some(section)) => Some(Ok(section)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
