//! The text form of findings, for people: rustc-like, the offending line with a caret.

use std::borrow::Cow;
use std::cell::{Cell, OnceCell};
use std::fmt::{self, Write as _};
use std::ops::Range;

use crate::{Diagnostic, Lang};

/// The encoding an input was read in, as the renderer needs it: to decode a line for display,
/// and its name for the note "file read as …". The format crate's `Encoding` is one.
pub trait SourceText: fmt::Debug {
    /// The bytes as text (never failing: what cannot be decoded is replaced).
    fn decode<'b>(&self, bytes: &'b [u8]) -> Cow<'b, str>;
    /// The name people know the encoding by (`CP1251`).
    fn name(&self) -> &str;
}

/// Renders findings for people: the head (`error[code]: message`), the place
/// (`--> file:line:column`), the offending line with a caret under the span and what was
/// expected, which encoding the file was read in, and the payment a finding is about.
///
/// Rendering a finding costs the length of its line: a finding located by its line alone is
/// found through an index of the start of every [`STRIDE`]th line, built once on first use
/// (four bytes for 64 lines: a file of very short lines needs no table the size of itself),
/// and a walk of at most `STRIDE - 1` lines from there.
pub struct Renderer<'a> {
    path: &'a str,
    bytes: &'a [u8],
    encoding: Option<&'a dyn SourceText>,
    lang: Lang,
    /// Where lines 1, 1 + [`STRIDE`], 1 + 2 × `STRIDE`, … start, built on first use.
    lines: OnceCell<Vec<u32>>,
    /// How many times the input was scanned for line starts (for tests: once at most).
    scans: Cell<usize>,
}

/// Every how many lines the renderer's index holds a line's start.
const STRIDE: usize = 64;

impl fmt::Debug for Renderer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Renderer")
            .field("path", &self.path)
            .field("len", &self.bytes.len())
            .field("encoding", &self.encoding)
            .field("lang", &self.lang)
            .finish_non_exhaustive()
    }
}

impl<'a> Renderer<'a> {
    /// `bytes` are the whole input as read (empty when there is nothing to show);
    /// `encoding` the one it was decoded in, if known (otherwise UTF-8 is assumed and no note
    /// is written). English until [`Renderer::lang`] says otherwise.
    pub fn new(
        path: &'a str,
        bytes: &'a [u8],
        encoding: Option<&'a dyn SourceText>,
    ) -> Renderer<'a> {
        Renderer {
            path,
            bytes,
            encoding,
            lang: Lang::En,
            lines: OnceCell::new(),
            scans: Cell::new(0),
        }
    }

    /// Renders in `lang`.
    pub fn lang(mut self, lang: Lang) -> Renderer<'a> {
        self.lang = lang;
        self
    }

    /// How many times the input was scanned for line starts (at most once).
    #[doc(hidden)]
    pub fn scans(&self) -> usize {
        self.scans.get()
    }

    /// One finding as text, ending with a newline.
    pub fn render(&self, diagnostic: &Diagnostic) -> String {
        let lang = self.lang;
        let head = format!(
            "{}[{}]: {}",
            diagnostic.severity.word(lang),
            diagnostic.code,
            diagnostic.message.get(lang)
        );
        let expected = diagnostic.expected.as_ref().map(|e| e.get(lang));
        let mut out = match (diagnostic.span.clone(), diagnostic.line) {
            (Some(span), Some(line)) => {
                self.annotate(&head, span, line, diagnostic.column.unwrap_or(1), expected)
            }
            (None, Some(line)) => self.by_line(&head, line, expected),
            (_, None) => {
                let mut out = format!("{head}\n --> {}\n", self.path);
                if let Some(expected) = expected {
                    let _ = writeln!(out, "  = {} {expected}", expected_word(lang));
                }
                out
            }
        };
        if let Some(payment) = diagnostic.payment {
            let pad = " ".repeat(diagnostic.line.map_or(1, |l| l.to_string().len()));
            // Its place in the file, then its number (`№`); the 1C key first in Russian, the
            // JSON field first in English: what `Diagnostic::place` says, written in place.
            let _ = match lang {
                Lang::Ru => write!(out, "{pad} = {payment}-й платёж файла"),
                _ => write!(out, "{pad} = payment {payment}"),
            };
            // And its number, by which the accounting software finds it.
            if let Some(number) = &diagnostic.number {
                let _ = write!(out, " (№ {number})");
            }
            let _ = match (diagnostic.field, diagnostic.key.as_deref(), lang) {
                (Some(field), Some(key), Lang::Ru) => write!(out, ", {key} ({field})"),
                (Some(field), Some(key), _) => write!(out, ", {field} ({key})"),
                (Some(one), None, _) | (None, Some(one), _) => write!(out, ", {one}"),
                (None, None, _) => Ok(()),
            };
            if let Some(found) = &diagnostic.found {
                let found_word = match lang {
                    Lang::Ru => "найдено",
                    _ => "found",
                };
                let _ = write!(out, ": {found_word} ");
                quoted(&mut out, found);
            }
            out.push('\n');
        }
        out
    }

    /// A finding located by line alone: the place, and the line itself when the input holds
    /// it (without a caret: the column is not known).
    fn by_line(&self, head: &str, line: u32, expected: Option<&str>) -> String {
        let number = line.to_string();
        let pad = " ".repeat(number.len());
        let mut out = format!("{head}\n{pad}--> {}:{line}\n", self.path);
        if let Some(start) = self.line_start(line) {
            let end = memchr::memchr2(b'\n', b'\r', &self.bytes[start..])
                .map_or(self.bytes.len(), |i| start + i);
            let text = &self.bytes[start..end];
            let text = self.decode(&text[..text.len().min(200)]);
            if is_text(&text) {
                let _ = writeln!(out, "{pad} |");
                let _ = writeln!(out, "{number} | {}", escape(&text));
            }
        }
        if let Some(expected) = expected {
            let _ = writeln!(out, "{pad} = {} {expected}", expected_word(self.lang));
        }
        self.note(&mut out, &pad);
        out
    }

    /// The byte offset where 1-based `line` starts (CRLF, LF and CR all end a line).
    fn line_start(&self, line: u32) -> Option<usize> {
        let index = line.checked_sub(1)? as usize;
        if self.bytes.is_empty() {
            return None;
        }
        if u32::try_from(self.bytes.len()).is_err() {
            // Beyond what the index holds (4 GiB): walk to the line.
            return self.walk_to(line);
        }
        let lines = self.lines.get_or_init(|| self.index());
        let from = *lines.get(index / STRIDE)? as usize;
        self.walk_from(from, index % STRIDE)
    }

    /// The start of the line `lines` lines after the one starting at `start`.
    fn walk_from(&self, mut start: usize, lines: usize) -> Option<usize> {
        for _ in 0..lines {
            let end = start + memchr::memchr2(b'\n', b'\r', self.bytes.get(start..)?)?;
            start = if self.bytes[end..].starts_with(b"\r\n") {
                end + 2
            } else {
                end + 1
            };
        }
        (start <= self.bytes.len()).then_some(start)
    }

    fn first_line_start(&self) -> usize {
        if self.bytes.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        }
    }

    /// The start of every [`STRIDE`]th line, in one pass.
    fn index(&self) -> Vec<u32> {
        self.scans.set(self.scans.get() + 1);
        let mut starts = vec![self.first_line_start() as u32];
        let mut pos = self.first_line_start();
        let mut line = 1usize;
        while let Some(i) = memchr::memchr2(b'\n', b'\r', &self.bytes[pos..]) {
            let end = pos + i;
            pos = if self.bytes[end..].starts_with(b"\r\n") {
                end + 2
            } else {
                end + 1
            };
            if line.is_multiple_of(STRIDE) {
                starts.push(pos as u32);
            }
            line += 1;
        }
        starts
    }

    fn walk_to(&self, line: u32) -> Option<usize> {
        self.scans.set(self.scans.get() + 1);
        self.walk_from(self.first_line_start(), line.checked_sub(1)? as usize)
    }

    fn note(&self, out: &mut String, pad: &str) {
        if let Some(encoding) = self.encoding {
            let _ = match self.lang {
                Lang::Ru => writeln!(
                    out,
                    "{pad} = примечание: файл прочитан как {}",
                    encoding.name()
                ),
                _ => writeln!(out, "{pad} = note: file read as {}", encoding.name()),
            };
        }
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
        if let Some(text) = self.line_text(span.start).filter(|t| is_text(t)) {
            let shown = escape(&text);
            let before = text
                .chars()
                .take(column.saturating_sub(1) as usize)
                .map(shown_width)
                .sum::<usize>();
            let width = self
                .span_chars(&span)
                .clamp(1, shown.chars().count().saturating_sub(before).max(1));
            let _ = writeln!(out, "{pad} |");
            let _ = writeln!(out, "{number} | {shown}");
            let label = label
                .map(|e| format!(" {} {e}", expected_word(self.lang)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{pad} | {}{}{label}",
                " ".repeat(before),
                "^".repeat(width)
            );
        } else if let Some(label) = label {
            let _ = writeln!(out, "{pad} = {} {label}", expected_word(self.lang));
        }
        self.note(&mut out, &pad);
        out
    }

    fn decode<'b>(&self, bytes: &'b [u8]) -> Cow<'b, str> {
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

fn expected_word(lang: Lang) -> &'static str {
    match lang {
        Lang::Ru => "ожидается",
        _ => "expected",
    }
}

/// `text` as `{:?}` writes it, onto `out`: as it stands between quotes when it has only
/// characters `Debug` leaves alone (printable ASCII but `"` and `\\`, the Russian alphabet),
/// else through `Debug`.
fn quoted(out: &mut String, text: &str) {
    let plain = |c: char| matches!(c, ' '..='~' | 'А'..='я' | 'Ё' | 'ё') && c != '"' && c != '\\';
    if text.chars().all(plain) {
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        let _ = write!(out, "{text:?}");
    }
}

/// `text` as shown: a tab as `→`, another control character as `\u{…}`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' => out.push('→'),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// How many characters `c` is shown as ([`escape`]).
fn shown_width(c: char) -> usize {
    if c != '\t' && c.is_control() {
        escape(c.encode_utf8(&mut [0; 4])).chars().count()
    } else {
        1
    }
}

/// Whether a line is text a person can read: not binary data or UTF-16 read as bytes (a third
/// or more of it control characters or replaced bytes), which is not shown.
fn is_text(text: &str) -> bool {
    let all = text.chars().count();
    let odd = text
        .chars()
        .filter(|&c| (c.is_control() && c != '\t') || c == '\u{FFFD}')
        .count();
    odd * 3 < all.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Code, Message};

    #[derive(Debug)]
    struct Utf8;

    impl SourceText for Utf8 {
        fn decode<'b>(&self, bytes: &'b [u8]) -> Cow<'b, str> {
            String::from_utf8_lossy(bytes)
        }
        fn name(&self) -> &str {
            "UTF-8"
        }
    }

    #[test]
    fn renders_caret_under_the_column_in_both_languages() {
        let bytes = "1CClientBankExchange\nДата=32.01.2024\n".as_bytes();
        let start = bytes.len() - 11;
        let diagnostic = Diagnostic::new(
            Code::InvalidDate,
            Message::new("`Дата` is not a valid date", "`Дата` — не дата"),
        )
        .at(start..start + 10, 2, 6)
        .expected(Message::new("ДД.ММ.ГГГГ", "ДД.ММ.ГГГГ"));
        let renderer = Renderer::new("a.txt", bytes, Some(&Utf8));
        assert_eq!(
            renderer.render(&diagnostic),
            "error[invalid-date]: `Дата` is not a valid date\n --> a.txt:2:6\n  |\n2 | Дата=32.01.2024\n  |      ^^^^^^^^^^ expected ДД.ММ.ГГГГ\n  = note: file read as UTF-8\n"
        );
        assert_eq!(
            renderer.lang(Lang::Ru).render(&diagnostic),
            "ошибка[invalid-date]: `Дата` — не дата\n --> a.txt:2:6\n  |\n2 | Дата=32.01.2024\n  |      ^^^^^^^^^^ ожидается ДД.ММ.ГГГГ\n  = примечание: файл прочитан как UTF-8\n"
        );
    }

    #[test]
    fn a_payment_finding_names_its_payment_and_field() {
        let diagnostic = Diagnostic::new(Code::InnFormat, Message::new("bad", "плохо"))
            .line(3)
            .payment(2)
            .field("RecipientINN")
            .found("12");
        let renderer = Renderer::new("a.json", b"[\n{\n\"RecipientINN\": \"12\"}]", None);
        assert_eq!(
            renderer.render(&diagnostic),
            "error[inn-format]: bad\n --> a.json:3\n  |\n3 | \"RecipientINN\": \"12\"}]\n  = payment 2, RecipientINN: found \"12\"\n"
        );
        let renderer = Renderer::new("a.json", b"", None).lang(Lang::Ru);
        assert_eq!(
            renderer.render(&diagnostic),
            "ошибка[inn-format]: плохо\n --> a.json:3\n  = 2-й платёж файла, RecipientINN: найдено \"12\"\n"
        );
    }

    #[test]
    fn quoted_as_debug_quotes() {
        for c in (0..0x3000u32).filter_map(char::from_u32) {
            for text in [c.to_string(), format!("ИНН {c} 77'07\"")] {
                let mut out = String::new();
                quoted(&mut out, &text);
                assert_eq!(out, format!("{text:?}"));
            }
        }
    }

    #[test]
    fn escaped_a_character_at_a_time() {
        // What escape was: a string per character.
        let each = |c: char| match c {
            '\t' => "→".to_string(),
            c if c.is_control() => format!("\\u{{{:x}}}", c as u32),
            c => c.to_string(),
        };
        for c in (0..0x3000u32).filter_map(char::from_u32) {
            let text = format!("Ключ={c}\t ё");
            assert_eq!(escape(&text), text.chars().map(each).collect::<String>());
            assert_eq!(shown_width(c), each(c).chars().count());
        }
    }

    #[test]
    fn rendering_by_line_scans_the_input_once() {
        let mut text = String::from("1CClientBankExchange\r\n");
        for i in 0..2000 {
            text.push_str(&format!("Ключ{i}=x\n"));
        }
        text.push_str("\rКонецФайла");
        let renderer = Renderer::new("a.txt", text.as_bytes(), None);
        let at = |line| Diagnostic::new(Code::UnknownKey, Message::same("x")).line(line);
        for line in (1..=2002).rev() {
            let out = renderer.render(&at(line));
            let shown = match line {
                1 => "1CClientBankExchange".to_string(),
                2002 => String::new(),
                n => format!("Ключ{}=x", n - 2),
            };
            assert!(out.contains(&format!("{line} | {shown}\n")), "{out}");
        }
        assert!(renderer.render(&at(2004)).ends_with(" --> a.txt:2004\n"));
        assert_eq!(
            renderer.render(&at(2003)).lines().nth(3),
            Some("2003 | КонецФайла")
        );
        assert_eq!(renderer.scans(), 1, "the line index is built once");
    }

    /// The index of every 64th line and the walk from it find each line where a walk from the
    /// start of the input does, whatever the endings (CR, LF, CRLF, none at the end) and a BOM.
    #[test]
    fn every_line_is_found_from_the_index_as_from_the_start() {
        for bom in [&b""[..], b"\xEF\xBB\xBF"] {
            let mut bytes = bom.to_vec();
            for i in 0..700usize {
                bytes.extend_from_slice(format!("k{i}=v").as_bytes());
                bytes.extend_from_slice([&b"\r\n"[..], b"\n", b"\r", b""][i % 4]);
            }
            let renderer = Renderer::new("a.txt", &bytes, None);
            for line in 0..800 {
                assert_eq!(
                    renderer.line_start(line),
                    renderer.walk_to(line),
                    "line {line}"
                );
            }
        }
    }
}
