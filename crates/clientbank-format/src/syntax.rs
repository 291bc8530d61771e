//! The physical layer: lines, their endings, and what each line is.
//!
//! A line is a byte range of the input plus its ending. Nothing is decoded here: markers and
//! keys are compared as bytes of the file's encoding.

use std::sync::LazyLock;

use nom::{IResult, Parser, bytes::complete::take_till, character::complete::char};

use crate::{Encoding, Key};

/// How a line ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LineEnding {
    /// `\r\n`, what 1C writes.
    Crlf,
    /// `\n`.
    Lf,
    /// A lone `\r`.
    Cr,
    /// The last line, with no ending.
    None,
}

impl LineEnding {
    /// The bytes of the ending.
    pub fn as_bytes(self) -> &'static [u8] {
        match self {
            LineEnding::Crlf => b"\r\n",
            LineEnding::Lf => b"\n",
            LineEnding::Cr => b"\r",
            LineEnding::None => b"",
        }
    }
}

/// A line that is a marker of the file's structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    /// `1CClientBankExchange`
    Start,
    /// `СекцияРасчСчет`
    AccountStart,
    /// `КонецРасчСчет`
    AccountEnd,
    /// `СекцияДокумент=<type>` (or without a type)
    DocumentStart,
    /// `КонецДокумента`
    DocumentEnd,
    /// `КонецФайла`
    FileEnd,
}

impl Marker {
    const ALL: [Marker; 6] = [
        Marker::Start,
        Marker::AccountStart,
        Marker::AccountEnd,
        Marker::DocumentStart,
        Marker::DocumentEnd,
        Marker::FileEnd,
    ];

    /// The marker as written.
    pub fn name(self) -> &'static str {
        match self {
            Marker::Start => "1CClientBankExchange",
            Marker::AccountStart => "СекцияРасчСчет",
            Marker::AccountEnd => "КонецРасчСчет",
            Marker::DocumentStart => "СекцияДокумент",
            Marker::DocumentEnd => "КонецДокумента",
            Marker::FileEnd => "КонецФайла",
        }
    }

    pub(crate) fn bytes(self, encoding: Encoding) -> &'static [u8] {
        &MARKERS[encoding as usize][self as usize]
    }

    fn find(bytes: &[u8], encoding: Encoding) -> Option<Marker> {
        Marker::ALL
            .into_iter()
            .find(|marker| marker.bytes(encoding) == bytes)
    }

    /// The marker spelled in another letter case (`конецдокумента`), as keys are read.
    fn find_folded(bytes: &[u8], encoding: Encoding) -> Option<Marker> {
        Marker::ALL
            .into_iter()
            .find(|&marker| marker.matches_folded(bytes, encoding))
    }

    /// Whether `bytes` are this marker in another letter case. A cheap test byte by byte
    /// first (each byte is that of the upper- or the lower-case spelling), then the letters.
    fn matches_folded(self, bytes: &[u8], encoding: Encoding) -> bool {
        let [upper, lower] = &FOLDED[encoding as usize][self as usize];
        bytes.len() == upper.len()
            && bytes
                .iter()
                .zip(upper.iter().zip(lower))
                .all(|(b, (u, l))| b == u || b == l)
            && encoding.decode(bytes).to_lowercase() == self.name().to_lowercase()
    }
}

static MARKERS: LazyLock<[[Vec<u8>; 6]; 3]> = LazyLock::new(|| {
    Encoding::ALL.map(|encoding| Marker::ALL.map(|marker| encoding.encode_lossless(marker.name())))
});

/// Each marker in upper and in lower case, per encoding.
static FOLDED: LazyLock<[[[Vec<u8>; 2]; 6]; 3]> = LazyLock::new(|| {
    Encoding::ALL.map(|encoding| {
        Marker::ALL.map(|marker| {
            [
                encoding.encode_lossless(&marker.name().to_uppercase()),
                encoding.encode_lossless(&marker.name().to_lowercase()),
            ]
        })
    })
});

/// What a line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineKind {
    /// Empty or only spaces.
    Blank,
    /// A structure marker.
    Marker(Marker),
    /// `Key=Value` inside a section (or the header).
    Pair,
    /// `Key=Value` between sections: kept, but belongs to no section.
    StrayPair,
    /// Anything else (no `=`): kept, reported.
    Junk,
}

/// Marks "no `=` on this line".
pub(crate) const NO_EQ: u32 = u32::MAX;

/// One physical line: offsets into the buffer that holds it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line {
    /// Start of the content in the buffer.
    pub(crate) start: u32,
    /// Length of the content, without the ending.
    pub(crate) len: u32,
    /// Position of the first `=` within the content, or [`NO_EQ`].
    pub(crate) eq: u32,
    /// 1-based line number in the input; 0 for a line added by an edit.
    pub(crate) number: u32,
    pub(crate) ending: LineEnding,
    pub(crate) kind: LineKind,
    /// The known key of a pair, if it is one.
    pub(crate) key: Option<Key>,
}

impl Line {
    pub(crate) fn content<'b>(&self, buf: &'b [u8]) -> &'b [u8] {
        &buf[self.start as usize..(self.start + self.len) as usize]
    }

    /// The key bytes as written (spaces around them removed).
    pub(crate) fn key_bytes<'b>(&self, buf: &'b [u8]) -> &'b [u8] {
        let content = self.content(buf);
        if self.eq == NO_EQ {
            return content.trim_ascii();
        }
        content[..self.eq as usize].trim_ascii()
    }

    /// The value bytes exactly as written after the first `=`.
    pub(crate) fn value_bytes<'b>(&self, buf: &'b [u8]) -> &'b [u8] {
        if self.eq == NO_EQ {
            return &[];
        }
        &self.content(buf)[self.eq as usize + 1..]
    }

    pub(crate) fn is_pair(&self) -> bool {
        self.kind == LineKind::Pair
    }
}

/// Splits the next line off `buf[pos..]`: the content's end, the ending, and where the next
/// line starts. `None` when no complete line is there yet: with `eof` false, a line needs its
/// ending (and a `\r` needs the byte after it, which may be `\n`).
pub(crate) fn next_line(buf: &[u8], pos: usize, eof: bool) -> Option<(usize, LineEnding, usize)> {
    if pos >= buf.len() {
        return None;
    }
    match memchr::memchr2(b'\n', b'\r', &buf[pos..]) {
        Some(i) => {
            let end = pos + i;
            if buf[end] == b'\n' {
                Some((end, LineEnding::Lf, end + 1))
            } else if end + 1 < buf.len() {
                if buf[end + 1] == b'\n' {
                    Some((end, LineEnding::Crlf, end + 2))
                } else {
                    Some((end, LineEnding::Cr, end + 1))
                }
            } else if eof {
                Some((end, LineEnding::Cr, end + 1))
            } else {
                None
            }
        }
        None if eof => Some((buf.len(), LineEnding::None, buf.len())),
        None => None,
    }
}

/// The shape of a line's content, before the grouping into sections decides on it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Blank,
    /// A marker; true when it is spelled in another letter case.
    Marker(Marker, bool),
    /// `Key=Value`; the offset of `=`.
    Pair(usize),
    Junk,
}

fn pair(input: &[u8]) -> IResult<&[u8], &[u8]> {
    let (rest, key) = take_till(|b| b == b'=')(input)?;
    let (rest, _) = char('=').parse(rest)?;
    Ok((rest, key))
}

/// Classifies one line's content.
pub(crate) fn shape(content: &[u8], encoding: Encoding) -> Shape {
    if let Ok((_, key)) = pair(content) {
        let trimmed = key.trim_ascii();
        if trimmed == Marker::DocumentStart.bytes(encoding) {
            return Shape::Marker(Marker::DocumentStart, false);
        }
        if Marker::DocumentStart.matches_folded(trimmed, encoding) {
            return Shape::Marker(Marker::DocumentStart, true);
        }
        return Shape::Pair(key.len());
    }
    let trimmed = content.trim_ascii();
    if trimmed.is_empty() {
        return Shape::Blank;
    }
    match Marker::find(trimmed, encoding) {
        Some(marker) => Shape::Marker(marker, false),
        None => match Marker::find_folded(trimmed, encoding) {
            Some(marker) => Shape::Marker(marker, true),
            None => Shape::Junk,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_every_kind_of_ending() {
        let buf = b"a\r\nb\nc\rd";
        let mut pos = 0;
        let mut seen = Vec::new();
        while let Some((end, ending, next)) = next_line(buf, pos, true) {
            seen.push((&buf[pos..end], ending));
            pos = next;
        }
        assert_eq!(
            seen,
            [
                (&b"a"[..], LineEnding::Crlf),
                (b"b", LineEnding::Lf),
                (b"c", LineEnding::Cr),
                (b"d", LineEnding::None)
            ]
        );
    }

    #[test]
    fn waits_for_the_byte_after_cr_until_eof() {
        assert_eq!(next_line(b"a\r", 0, false), None);
        assert_eq!(next_line(b"a\r", 0, true), Some((1, LineEnding::Cr, 2)));
        assert_eq!(next_line(b"abc", 0, false), None);
        assert_eq!(next_line(b"", 0, true), None);
    }

    #[test]
    fn shapes() {
        let e = Encoding::Utf8;
        assert_eq!(shape("Сумма=1=2".as_bytes(), e), Shape::Pair("Сумма".len()));
        assert_eq!(shape("=x".as_bytes(), e), Shape::Pair(0));
        assert_eq!(
            shape("СекцияДокумент=Платежное поручение".as_bytes(), e),
            Shape::Marker(Marker::DocumentStart, false)
        );
        assert_eq!(
            shape("СекцияДокумент".as_bytes(), e),
            Shape::Marker(Marker::DocumentStart, false)
        );
        assert_eq!(
            shape(" КонецФайла ".as_bytes(), e),
            Shape::Marker(Marker::FileEnd, false)
        );
        assert_eq!(shape(b"  ", e), Shape::Blank);
        assert_eq!(shape(b"hello", e), Shape::Junk);
    }

    #[test]
    fn markers_in_another_letter_case_are_markers() {
        for e in Encoding::ALL {
            let enc = |text: &str| e.encode_lossless(text);
            assert_eq!(
                shape(&enc("секциядокумент=Платежное поручение"), e),
                Shape::Marker(Marker::DocumentStart, true)
            );
            assert_eq!(
                shape(&enc("конецдокумента"), e),
                Shape::Marker(Marker::DocumentEnd, true)
            );
            assert_eq!(
                shape(&enc("КОНЕЦФАЙЛА"), e),
                Shape::Marker(Marker::FileEnd, true)
            );
            assert_eq!(
                shape(&enc("СекцияРасчсчет"), e),
                Shape::Marker(Marker::AccountStart, true)
            );
            assert_eq!(
                shape(b"1cclientbankexchange", e),
                Shape::Marker(Marker::Start, true)
            );
            // Same bytes as a marker's, one letter off: not a marker.
            assert_eq!(shape(&enc("конецдокументы"), e), Shape::Junk);
            assert_eq!(
                shape(&enc("ПлательщикСчет=1"), e),
                Shape::Pair("ПлательщикСчет".len() / if e == Encoding::Utf8 { 1 } else { 2 })
            );
        }
    }
}
