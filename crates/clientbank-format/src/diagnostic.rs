//! Findings of the reader: stable codes, positions, and a plain renderer for people.

use std::cell::{Cell, OnceCell};
use std::fmt::{self, Write as _};
use std::ops::Range;

use crate::Encoding;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A deviation that real files contain and the reader accepts.
    Warning,
    /// Something that 1C (or the bank) would refuse; the file is still read.
    Error,
}

impl Severity {
    /// `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $severity:ident, $fatal:literal; )*) => {
        /// What a finding is about. Each code is stable and kebab-case; users filter by it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code { $( $(#[$doc])* $variant, )* }

        impl Code {
            /// Every code.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The stable kebab-case name.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// The severity outside strict mode.
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }

            /// Whether the reader refuses the input on this finding.
            pub fn is_fatal(self) -> bool {
                match self { $(Code::$variant => $fatal,)* }
            }
        }
    };
}

codes! {
    /// The input has no bytes.
    EmptyInput = "empty-input", Error, true;
    /// Line 1 is not `1CClientBankExchange`.
    NotAnExchangeFile = "not-an-exchange-file", Error, true;
    /// Lines in two different encodings.
    MixedEncoding = "mixed-encoding", Error, true;
    /// U+FFFD in the text: it was destroyed by a lossy conversion before it reached us.
    ReplacementCharacter = "replacement-character", Error, true;
    /// Larger than the in-memory reader holds (4 GiB); the streaming reader has no limit.
    TooLarge = "too-large", Error, true;
    /// The bytes are in another encoding than `Кодировка` says.
    EncodingMismatch = "encoding-mismatch", Warning, false;
    /// `Кодировка` is not `Windows` or `DOS` but a known alias.
    NonstandardEncodingLabel = "nonstandard-encoding-label", Warning, false;
    /// `Кодировка` names no encoding we know.
    UnknownEncodingLabel = "unknown-encoding-label", Warning, false;
    /// `ВерсияФормата` is not 1.01, 1.02 or 1.03.
    UnsupportedVersion = "unsupported-version", Error, false;
    /// A key the section needs is absent.
    MissingKey = "missing-key", Warning, false;
    /// A key that is not in the 1.03 format.
    UnknownKey = "unknown-key", Warning, false;
    /// A known key spelled in another letter case.
    KeyCase = "key-case", Warning, false;
    /// A known key in a section where it does not belong.
    KeyInWrongSection = "key-in-wrong-section", Warning, false;
    /// A `Key=Value` line between sections.
    KeyOutsideSection = "key-outside-section", Warning, false;
    /// A key that may stand once stands again.
    DuplicateKey = "duplicate-key", Warning, false;
    /// Spaces around a key or a marker.
    StraySpaces = "stray-spaces", Warning, false;
    /// A line that is neither a marker nor `Key=Value`.
    LineWithoutEquals = "line-without-equals", Warning, false;
    /// A section that is not closed by its end marker.
    UnclosedSection = "unclosed-section", Warning, false;
    /// An end marker with no section open, or of the other kind.
    UnexpectedEndMarker = "unexpected-end-marker", Warning, false;
    /// A second `1CClientBankExchange` line.
    RepeatedStartMarker = "repeated-start-marker", Warning, false;
    /// No `КонецФайла`.
    MissingEndOfFile = "missing-end-of-file", Warning, false;
    /// Text after `КонецФайла` (1C ignores it).
    ContentAfterEndOfFile = "content-after-end-of-file", Warning, false;
    /// `СекцияДокумент` without a document type.
    EmptyDocumentType = "empty-document-type", Warning, false;
    /// Line endings other than CRLF (reported once per file).
    LineEnding = "line-ending", Warning, false;
    /// Blank lines (reported once per file).
    BlankLine = "blank-line", Warning, false;
    /// A date that is not `ДД.ММ.ГГГГ` or not in the calendar.
    InvalidDate = "invalid-date", Error, false;
    /// A time that is not `ЧЧ:ММ:СС`.
    InvalidTime = "invalid-time", Error, false;
    /// A time written `ЧЧ.ММ.СС`.
    TimeWithDots = "time-with-dots", Warning, false;
    /// An amount that is not `руб[.коп]`.
    InvalidSum = "invalid-sum", Error, false;
    /// A number of days that is not a whole number.
    InvalidInteger = "invalid-integer", Error, false;
    /// Closing balance ≠ opening + credited − debited.
    BalanceMismatch = "balance-mismatch", Warning, false;
    /// `ДатаНачала` after `ДатаКонца`.
    PeriodReversed = "period-reversed", Warning, false;
    /// A key the section needs stands with no value (`Сумма=`).
    EmptyValue = "empty-value", Warning, false;
    /// A value whose bytes read as words in the other single-byte encoding and as mojibake in
    /// the file's.
    ValueInOtherEncoding = "value-in-other-encoding", Warning, false;
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding, located in the original bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What it is about.
    pub code: Code,
    /// How serious it is (strict mode makes every finding an error).
    pub severity: Severity,
    /// Byte range in the original input (a BOM included).
    pub span: Range<usize>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// The 1C key concerned, if any.
    pub key: Option<String>,
    /// What was found, as text.
    pub found: Option<String>,
    /// What was expected instead.
    pub expected: Option<String>,
    /// One sentence for a person.
    pub message: String,
    /// For a summary finding that stands for the findings of its code past the per-file limit
    /// ([`LIMIT_PER_CODE`]): how many it stands for; 0 for an ordinary finding.
    pub omitted: u32,
}

/// How many findings of one code a file keeps; the rest are counted into one summary finding
/// ("and K more `code` findings") at the end of the file's list.
pub const LIMIT_PER_CODE: usize = 1000;

/// How many characters of a text taken from the input (a value, a key) a finding keeps.
pub(crate) const SHOWN_CHARS: usize = 100;

/// `text` cut to [`SHOWN_CHARS`] characters, with `…` when it was longer: a finding never holds
/// a copy of a big value.
pub(crate) fn short(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// The same for bytes in `encoding`, decoding only what is kept.
pub(crate) fn short_bytes(bytes: &[u8], encoding: Encoding) -> String {
    // A character is at most 4 bytes: decode a little more than is shown.
    let cut = bytes.len().min(SHOWN_CHARS * 4 + 4);
    let text = encoding.decode(&bytes[..cut]);
    let mut shown = short(&text);
    if cut < bytes.len() && !shown.ends_with('…') {
        shown.push('…');
    }
    shown
}

impl Diagnostic {
    pub(crate) fn new(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.severity(),
            span: 0..0,
            line: 1,
            column: 1,
            key: None,
            found: None,
            expected: None,
            message: message.into(),
            omitted: 0,
        }
    }

    /// The summary of `omitted` findings of `code` past the per-file limit.
    pub(crate) fn summary(code: Code, omitted: u32) -> Diagnostic {
        let mut summary = Diagnostic::new(
            code,
            format!(
                "and {omitted} more `{code}` finding(s) in this file, not shown (the first {LIMIT_PER_CODE} are)"
            ),
        );
        summary.omitted = omitted;
        summary
    }

    /// How many findings this one counts for: 1, or for a summary the ones it stands for.
    pub fn count(&self) -> usize {
        if self.omitted > 0 {
            self.omitted as usize
        } else {
            1
        }
    }

    pub(crate) fn at(mut self, span: Range<usize>, line: u32, column: u32) -> Diagnostic {
        self.span = span;
        self.line = line;
        self.column = column;
        self
    }

    pub(crate) fn found(mut self, found: impl Into<String>) -> Diagnostic {
        self.found = Some(found.into());
        self
    }

    pub(crate) fn expected(mut self, expected: impl Into<String>) -> Diagnostic {
        self.expected = Some(expected.into());
        self
    }

    /// Whether this finding is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[{}] at line {}, column {}: {}",
            self.severity.as_str(),
            self.code,
            self.line,
            self.column,
            self.message
        )?;
        if let Some(expected) = &self.expected {
            write!(f, " (expected {expected})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// Makes every finding an error, as 1C's own loader would treat it.
pub fn make_strict(diagnostics: &mut [Diagnostic]) {
    for diagnostic in diagnostics {
        diagnostic.severity = Severity::Error;
    }
}

/// Renders findings for people: the offending line with a caret under the column, and
/// which encoding the file was read in.
///
/// Rendering a finding costs the length of its line: a finding located by line number
/// ([`Renderer::render_line`]) is found through an index of line starts built once, on first
/// use.
pub struct Renderer<'a> {
    path: &'a str,
    bytes: &'a [u8],
    encoding: Option<Encoding>,
    /// Where each line starts (index 0: line 1), built on the first `render_line`.
    lines: OnceCell<Vec<u32>>,
    /// How many times the input was scanned for line starts (for tests: once at most).
    scans: Cell<usize>,
}

impl fmt::Debug for Renderer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Renderer")
            .field("path", &self.path)
            .field("len", &self.bytes.len())
            .field("encoding", &self.encoding)
            .finish_non_exhaustive()
    }
}

impl<'a> Renderer<'a> {
    /// `bytes` are the whole input as read; `encoding` the one it was decoded in, if known.
    pub fn new(path: &'a str, bytes: &'a [u8], encoding: Option<Encoding>) -> Renderer<'a> {
        Renderer {
            path,
            bytes,
            encoding,
            lines: OnceCell::new(),
            scans: Cell::new(0),
        }
    }

    /// One finding as text, ending with a newline.
    pub fn render(&self, diagnostic: &Diagnostic) -> String {
        let head = format!(
            "{}[{}]: {}",
            diagnostic.severity.as_str(),
            diagnostic.code,
            diagnostic.message
        );
        self.annotate(
            &head,
            diagnostic.span.clone(),
            diagnostic.line,
            diagnostic.column,
            diagnostic.expected.as_deref(),
        )
    }

    /// A finding of another layer (the payment rules) about a whole `Key=Value` line: `head`
    /// first, then the line with a caret under its value. `line` is 1-based.
    pub fn render_line(&self, head: &str, line: u32, label: Option<&str>) -> String {
        let Some(start) = self.line_start(line) else {
            return format!("{head}\n --> {}:{line}\n", self.path);
        };
        let end = memchr::memchr2(b'\n', b'\r', &self.bytes[start..])
            .map_or(self.bytes.len(), |i| start + i);
        let value = memchr::memchr(b'=', &self.bytes[start..end]).map_or(start, |i| start + i + 1);
        let column = self.decode(&self.bytes[start..value]).chars().count() as u32 + 1;
        self.annotate(head, value..end.max(value + 1), line, column, label)
    }

    /// The byte offset where 1-based `line` starts (CRLF, LF and CR all end a line).
    fn line_start(&self, line: u32) -> Option<usize> {
        let index = line.checked_sub(1)? as usize;
        if u32::try_from(self.bytes.len()).is_err() {
            // Beyond what the index holds (4 GiB): walk to the line.
            return self.walk_to(line);
        }
        let lines = self.lines.get_or_init(|| self.index());
        lines.get(index).map(|&start| start as usize)
    }

    fn first_line_start(&self) -> usize {
        if self.bytes.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        }
    }

    /// Every line's start, in one pass.
    fn index(&self) -> Vec<u32> {
        self.scans.set(self.scans.get() + 1);
        let mut starts = vec![self.first_line_start() as u32];
        let mut pos = self.first_line_start();
        while let Some(i) = memchr::memchr2(b'\n', b'\r', &self.bytes[pos..]) {
            let end = pos + i;
            pos = if self.bytes[end..].starts_with(b"\r\n") {
                end + 2
            } else {
                end + 1
            };
            starts.push(pos as u32);
        }
        starts
    }

    fn walk_to(&self, line: u32) -> Option<usize> {
        self.scans.set(self.scans.get() + 1);
        let mut start = self.first_line_start();
        for _ in 1..line {
            let end = start + memchr::memchr2(b'\n', b'\r', self.bytes.get(start..)?)?;
            start = if self.bytes[end..].starts_with(b"\r\n") {
                end + 2
            } else {
                end + 1
            };
        }
        (start <= self.bytes.len()).then_some(start)
    }

    fn annotate(
        &self,
        head: &str,
        span: Range<usize>,
        line: u32,
        column: u32,
        label: Option<&str>,
    ) -> String {
        let mut out = String::new();
        let number = line.to_string();
        let pad = " ".repeat(number.len());
        let _ = writeln!(out, "{head}");
        let _ = writeln!(out, "{pad}--> {}:{line}:{column}", self.path);
        if let Some(text) = self.line_text(span.start) {
            let shown = escape(&text);
            let before = text
                .chars()
                .take(column.saturating_sub(1) as usize)
                .map(|c| escape(&c.to_string()).chars().count())
                .sum::<usize>();
            let width = self
                .span_chars(&span)
                .clamp(1, shown.chars().count().saturating_sub(before).max(1));
            let _ = writeln!(out, "{pad} |");
            let _ = writeln!(out, "{number} | {shown}");
            let label = label.map(|e| format!(" expected {e}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "{pad} | {}{}{label}",
                " ".repeat(before),
                "^".repeat(width)
            );
        }
        if let Some(encoding) = self.encoding {
            let _ = writeln!(out, "{pad} = note: file read as {encoding}");
        }
        out
    }

    fn decode<'b>(&self, bytes: &'b [u8]) -> std::borrow::Cow<'b, str> {
        match self.encoding {
            Some(encoding) => encoding.decode(bytes),
            None => String::from_utf8_lossy(bytes),
        }
    }

    fn line_text(&self, offset: usize) -> Option<String> {
        if offset > self.bytes.len() || self.bytes.is_empty() {
            return None;
        }
        let start = memchr::memrchr2(b'\n', b'\r', &self.bytes[..offset]).map_or(0, |i| i + 1);
        let end = memchr::memchr2(b'\n', b'\r', &self.bytes[start..])
            .map_or(self.bytes.len(), |i| start + i);
        let start = if start == 0 && self.bytes.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            start
        };
        let line = &self.bytes[start..end.max(start)];
        // A binary file's "line" can be huge: show its start only.
        let line = &line[..line.len().min(200)];
        Some(self.decode(line).into_owned())
    }

    fn span_chars(&self, span: &Range<usize>) -> usize {
        // The caret is as wide as the shown line at most: decode no more than that.
        let end = span
            .end
            .min(self.bytes.len())
            .min(span.start.saturating_add(800));
        let start = span.start.min(end);
        self.decode(&self.bytes[start..end]).chars().count()
    }
}

fn escape(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' => "→".to_string(),
            c if c.is_control() => format!("\\u{{{:x}}}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_kebab_case() {
        let mut names: Vec<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
        assert!(
            names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        );
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
    }

    #[test]
    fn renders_a_line_by_number() {
        let bytes =
            "1CClientBankExchange\r\nНомер=1\rПолучательИНН=7707083894\nКонецФайла".as_bytes();
        let text = Renderer::new("a.txt", bytes, Some(Encoding::Utf8)).render_line(
            "error[inn-check-digit]: wrong",
            3,
            None,
        );
        assert_eq!(
            text,
            "error[inn-check-digit]: wrong\n --> a.txt:3:15\n  |\n3 | ПолучательИНН=7707083894\n  |               ^^^^^^^^^^\n  = note: file read as UTF-8\n"
        );
        let text = Renderer::new("a.txt", bytes, None).render_line("x", 9, None);
        assert_eq!(text, "x\n --> a.txt:9\n");
    }

    #[test]
    fn rendering_by_line_scans_the_input_once() {
        let mut text = String::from("1CClientBankExchange\r\n");
        for i in 0..2000 {
            text.push_str(&format!("Ключ{i}=x\n"));
        }
        text.push_str("\rКонецФайла");
        let renderer = Renderer::new("a.txt", text.as_bytes(), Some(Encoding::Utf8));
        for line in (1..=2002).rev() {
            let out = renderer.render_line("x", line, None);
            let shown = match line {
                1 => "1CClientBankExchange".to_string(),
                2002 => String::new(),
                n => format!("Ключ{}=x", n - 2),
            };
            assert!(out.contains(&format!("{line} | {shown}\n")), "{out}");
        }
        assert!(
            renderer
                .render_line("x", 2004, None)
                .ends_with(" --> a.txt:2004\n")
        );
        assert_eq!(
            renderer.render_line("x", 2003, None).lines().nth(3),
            Some("2003 | КонецФайла")
        );
        assert_eq!(renderer.scans.get(), 1, "the line index is built once");
    }

    #[test]
    fn a_finding_is_small_and_holds_no_big_value() {
        // The heap part is bounded by the shown texts: a key or value of a megabyte is cut.
        assert!(std::mem::size_of::<Diagnostic>() <= 160);
        let big = "Ж".repeat(1 << 20);
        assert_eq!(short(&big).chars().count(), SHOWN_CHARS + 1);
        let bytes = Encoding::Cp1251.encode(&big).unwrap();
        assert_eq!(
            short_bytes(&bytes, Encoding::Cp1251).chars().count(),
            SHOWN_CHARS + 1
        );
        assert_eq!(short("abc"), "abc");
    }

    #[test]
    fn renders_caret_under_the_column() {
        let bytes = "1CClientBankExchange\nДата=32.01.2024\n".as_bytes();
        let start = bytes.len() - 11;
        let diagnostic = Diagnostic::new(Code::InvalidDate, "`Дата` is not a valid date")
            .at(start..start + 10, 2, 6)
            .expected("ДД.ММ.ГГГГ");
        let text = Renderer::new("a.txt", bytes, Some(Encoding::Utf8)).render(&diagnostic);
        assert_eq!(
            text,
            "error[invalid-date]: `Дата` is not a valid date\n --> a.txt:2:6\n  |\n2 | Дата=32.01.2024\n  |      ^^^^^^^^^^ expected ДД.ММ.ГГГГ\n  = note: file read as UTF-8\n"
        );
    }
}
