//! The physical layer: lines, their endings, and what each line is.
//!
//! A line is a byte range of the input plus its ending. Nothing is decoded here: markers and
//! keys are compared as bytes of the file's encoding.

use std::sync::LazyLock;

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

    /// Where the line ends in the buffer, its ending included: where the next line starts.
    pub(crate) fn end(&self) -> usize {
        self.start as usize + self.len as usize + self.ending.as_bytes().len()
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
    /// `Key=Value`; the offset of `=`, and the key when it is spelled exactly as a known one.
    Pair(usize, Option<Key>),
    Junk,
}

/// Classifies one line's content. `hint` is the key the line likely holds, compared before
/// the table is asked (a pair's key is found the same either way).
pub(crate) fn shape(content: &[u8], encoding: Encoding, hint: Option<Key>) -> Shape {
    // The usual line: the hinted key written exactly, then `=`. A key has no `=` and no space
    // at either end, so that `=` is the first and the key is the trimmed text before it.
    if let Some(key) = hint {
        let name = key.bytes(encoding);
        if content.get(name.len()) == Some(&b'=') && content.starts_with(name) {
            return Shape::Pair(name.len(), hint);
        }
    }
    if let Some(eq) = memchr::memchr(b'=', content) {
        let trimmed = content[..eq].trim_ascii();
        // A known key is no marker: one lookup tells the usual line.
        let exact = Key::lookup_exact(trimmed, encoding);
        if exact.is_some() {
            return Shape::Pair(eq, exact);
        }
        if trimmed == Marker::DocumentStart.bytes(encoding) {
            return Shape::Marker(Marker::DocumentStart, false);
        }
        if Marker::DocumentStart.matches_folded(trimmed, encoding) {
            return Shape::Marker(Marker::DocumentStart, true);
        }
        return Shape::Pair(eq, None);
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

    fn shape(content: &[u8], encoding: Encoding) -> Shape {
        let shaped = super::shape(content, encoding, None);
        // Any hint, right or wrong, shapes alike.
        for &hint in Key::ALL.iter().step_by(7).chain([&Key::Sum]) {
            assert_eq!(super::shape(content, encoding, Some(hint)), shaped);
        }
        shaped
    }

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

    /// What the hinted shortcut of [`super::shape`] rests on.
    #[test]
    fn no_key_has_an_equals_sign_or_spaces_at_its_ends() {
        for encoding in Encoding::ALL {
            for &key in Key::ALL {
                let name = key.bytes(encoding);
                assert!(!name.contains(&b'='), "{key:?}");
                assert_eq!(name.trim_ascii(), name, "{key:?}");
            }
        }
    }

    #[test]
    fn shapes() {
        let e = Encoding::Utf8;
        assert_eq!(
            shape("Сумма=1=2".as_bytes(), e),
            Shape::Pair("Сумма".len(), Some(Key::Sum))
        );
        assert_eq!(shape("=x".as_bytes(), e), Shape::Pair(0, None));
        assert_eq!(
            shape(" Сумма =1".as_bytes(), e),
            Shape::Pair(" Сумма ".len(), Some(Key::Sum))
        );
        assert_eq!(
            shape("Сумм=1".as_bytes(), e),
            Shape::Pair("Сумм".len(), None)
        );
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
                Shape::Pair(
                    "ПлательщикСчет".len() / if e == Encoding::Utf8 { 1 } else { 2 },
                    Some(Key::PayerAccount)
                )
            );
        }
    }
}

/// Lines kept compactly, in order, as words of 4 bytes: one word for a line that follows the
/// one before it (its start and number are the last line's end and number plus one) and is
/// short, with its `=` near the start — the usual line; two words for one that follows but is
/// long or has its `=` far on; and for any other (the first of a run, or one that fits neither)
/// a word that points at the whole record. What a reading found of each line — its length,
/// `=`, kind, known key and ending — is kept, so nothing has to be found again to give the
/// lines back.
///
/// Short lines shaped as the line before them (the same length, `=`, key, kind and ending:
/// blank lines, a key repeated with values of one length) take one word between them: a
/// repeat word that counts them. A section of a million blank lines is three words.
///
/// A line takes one word or two, so a run is found by where its words start
/// ([`PackedLines::len`] before it is pushed), not by how many lines come before it.
#[derive(Clone, Debug)]
pub(crate) struct PackedLines {
    /// The lines' words. A short word (bit 31 clear) holds the length (bits 0–11), the `=`
    /// (12–17, [`SHORT_NO_EQ`] for none), the key's code plus one (18–24, 0 for none), the
    /// kind (25–28) and the ending (29–30). A long line's first word is [`LONG`] with the
    /// `=` (bits 0–15, `u16::MAX` for none), the key's code plus one (16–23), the kind (24–27)
    /// and the ending (28–29); its second word is the length. A whole line's word is
    /// [`WHOLE`] with its index into `whole` (bits 0–29), or [`WHOLE_FAR`] followed by a word
    /// that is the index, when the index does not fit 30 bits.
    words: Vec<u32>,
    /// The lines that do not follow the one before, or do not fit a word.
    whole: Vec<Line>,
    /// The last line's word, when it was one short word (a line shaped as it that follows
    /// it packs to the same word); [`NO_WORD`] otherwise.
    last_short: u32,
    /// Where the repeat word is that counts the lines after the one of `last_short`, if
    /// there is one yet ([`NO_REPEAT`] otherwise).
    repeat_at: usize,
}

/// No short word: no short word has bit 31 set.
const NO_WORD: u32 = u32::MAX;
/// No repeat word.
const NO_REPEAT: usize = usize::MAX;

/// The tag of a long line's first word (bits 30–31).
const LONG: u32 = 0b10 << 30;
/// The tag of a whole line's word (bits 30–31).
const WHOLE: u32 = 0b11 << 30;
/// A whole line's word when its index comes in the next word.
const WHOLE_FAR: u32 = u32::MAX;
/// The bits below a tag.
const PAYLOAD: u32 = (1 << 30) - 1;
/// The `=` of a short word for "no `=`"; a short word's `=` is below it.
const SHORT_NO_EQ: u32 = 0x3f;
/// A repeat word: a short word whose kind (bits 25–28) is all ones, no line's kind; bits
/// 0–24 count the lines shaped as the line before it.
const REPEAT: u32 = 0xf << 25;
/// The most lines one repeat word counts.
const REPEAT_MAX: u32 = (1 << 25) - 1;

/// The kinds a word names, by their code (a marker's is one more than its place in
/// [`Marker::ALL`]).
const KINDS: [LineKind; 10] = [
    LineKind::Blank,
    LineKind::Marker(Marker::ALL[0]),
    LineKind::Marker(Marker::ALL[1]),
    LineKind::Marker(Marker::ALL[2]),
    LineKind::Marker(Marker::ALL[3]),
    LineKind::Marker(Marker::ALL[4]),
    LineKind::Marker(Marker::ALL[5]),
    LineKind::Pair,
    LineKind::StrayPair,
    LineKind::Junk,
];

/// The endings a word names, by their code.
const ENDINGS: [LineEnding; 4] = [
    LineEnding::Crlf,
    LineEnding::Lf,
    LineEnding::Cr,
    LineEnding::None,
];

/// A line's known key as a code: 0 for none, the key's place plus one otherwise (below 128).
fn key_code(key: Option<Key>) -> u32 {
    key.map_or(0, |k| k as u32 + 1)
}

/// A line's kind as a code: its place in [`KINDS`].
fn kind_code(kind: LineKind) -> u32 {
    match kind {
        LineKind::Blank => 0,
        LineKind::Marker(marker) => 1 + marker as u32,
        LineKind::Pair => 7,
        LineKind::StrayPair => 8,
        LineKind::Junk => 9,
    }
}

/// A line's ending as a code: its place in [`ENDINGS`].
fn ending_code(ending: LineEnding) -> u32 {
    match ending {
        LineEnding::Crlf => 0,
        LineEnding::Lf => 1,
        LineEnding::Cr => 2,
        LineEnding::None => 3,
    }
}

// Every key's code fits the seven bits words and stored lines give it.
const _: () = assert!(Key::COUNT < 1 << 7);

/// Where the line after `line` starts, if it is within 4 GiB.
fn next_start(line: &Line) -> Option<u32> {
    let ending = match line.ending {
        LineEnding::Crlf => 2,
        LineEnding::Lf | LineEnding::Cr => 1,
        LineEnding::None => 0,
    };
    line.start.checked_add(line.len)?.checked_add(ending)
}

/// A line as words: one (short) or two (long).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Packed {
    Short(u32),
    Long(u32, u32),
}

/// `line` as words, when it follows `prev` and its `=` is within 64 KiB: one word when it is
/// shorter than 4 KiB with its `=` among the first 63 bytes (or none), two otherwise.
fn pack(line: &Line, prev: &Line) -> Option<Packed> {
    if next_start(prev)? != line.start || prev.number.checked_add(1)? != line.number {
        return None;
    }
    let eq = match line.eq {
        NO_EQ => u16::MAX,
        eq => u16::try_from(eq).ok().filter(|&e| e != u16::MAX)?,
    };
    let (key, kind, ending) = (
        key_code(line.key),
        kind_code(line.kind),
        ending_code(line.ending),
    );
    let short_eq = match eq {
        u16::MAX => Some(SHORT_NO_EQ),
        eq => Some(u32::from(eq)).filter(|&e| e < SHORT_NO_EQ),
    };
    match short_eq {
        Some(eq) if line.len < 1 << 12 && key < 1 << 7 => Some(Packed::Short(
            line.len | eq << 12 | key << 18 | kind << 25 | ending << 29,
        )),
        _ => (key < 1 << 8).then_some(Packed::Long(
            LONG | u32::from(eq) | key << 16 | kind << 24 | ending << 28,
            line.len,
        )),
    }
}

/// The line that a word's fields stand for, `prev` being the line before it.
fn unpack(
    len: u32,
    eq: Option<u32>,
    key: u32,
    kind: u32,
    ending: u32,
    prev: &Line,
) -> Option<Line> {
    Some(Line {
        start: next_start(prev)?,
        len,
        eq: eq.unwrap_or(NO_EQ),
        number: prev.number.checked_add(1)?,
        ending: ENDINGS[(ending & 0x3) as usize],
        kind: *KINDS.get(kind as usize)?,
        key: match key {
            0 => None,
            k => Some(*Key::ALL.get(k as usize - 1)?),
        },
    })
}

/// The line after `prev`, shaped as it.
fn following(prev: &Line) -> Option<Line> {
    Some(Line {
        start: next_start(prev)?,
        number: prev.number.checked_add(1)?,
        ..*prev
    })
}

impl Default for PackedLines {
    fn default() -> PackedLines {
        PackedLines::with_capacity(0)
    }
}

impl PackedLines {
    /// Room for about `lines` lines (a word each), reserved.
    pub(crate) fn with_capacity(lines: usize) -> PackedLines {
        PackedLines {
            words: Vec::with_capacity(lines),
            whole: Vec::new(),
            last_short: NO_WORD,
            repeat_at: NO_REPEAT,
        }
    }

    /// How many words are kept: where the next run will start.
    pub(crate) fn len(&self) -> usize {
        self.words.len()
    }

    /// Keeps `lines`, which come after `before` in their run (`None`: they start one).
    pub(crate) fn push_run(&mut self, before: Option<&Line>, lines: &[Line]) {
        self.words.reserve(lines.len());
        let mut prev = before;
        for line in lines {
            self.push(line, prev);
            prev = Some(line);
        }
    }

    /// Keeps `line`, which comes after `prev` in its run (`None`: it starts a run, whole).
    #[inline]
    pub(crate) fn push(&mut self, line: &Line, prev: Option<&Line>) {
        match prev.and_then(|prev| pack(line, prev)) {
            // Shaped as the line before, which it follows: counted.
            Some(Packed::Short(word)) if word == self.last_short => self.push_repeat(),
            Some(Packed::Short(word)) => {
                self.words.push(word);
                self.last_short = word;
                self.repeat_at = NO_REPEAT;
            }
            Some(Packed::Long(first, len)) => {
                self.words.extend([first, len]);
                self.last_short = NO_WORD;
            }
            None => {
                self.push_whole(line);
                self.last_short = NO_WORD;
            }
        }
    }

    /// Counts one more line shaped as the one before, in the repeat word after it.
    #[cold]
    fn push_repeat(&mut self) {
        match self.words.get_mut(self.repeat_at) {
            Some(count) if *count & REPEAT_MAX < REPEAT_MAX => *count += 1,
            _ => {
                self.repeat_at = self.words.len();
                self.words.push(REPEAT | 1);
            }
        }
    }

    fn push_whole(&mut self, line: &Line) {
        // Every whole line has its own number, so the index fits 32 bits.
        let index = self.whole.len() as u32;
        if index < PAYLOAD {
            self.words.push(WHOLE | index);
        } else {
            self.words.extend([WHOLE_FAR, index]);
        }
        self.whole.push(*line);
    }

    /// The run of lines kept at `range` of the words, one at a time (none when the range is
    /// not within the words, and none past a word that is not the run's).
    pub(crate) fn iter(&self, range: std::ops::Range<usize>) -> PackedIter<'_> {
        PackedIter {
            words: self.words.get(range).unwrap_or_default().iter(),
            whole: &self.whole,
            prev: None,
            repeat: 0,
        }
    }

    /// The run of lines kept at `range` of the words (as [`PackedLines::push`] kept it),
    /// added to `out`; `None` if the range is not one.
    #[cfg(test)]
    pub(crate) fn run(&self, range: std::ops::Range<usize>, out: &mut Vec<Line>) -> Option<()> {
        self.run_up_to(range, out, usize::MAX)?;
        Some(())
    }

    /// As [`PackedLines::run`], but stops once `out` holds `most` lines: whether the run
    /// was given whole; `None` if the range is not a run. (The loop of [`PackedIter`],
    /// without its state: what giving a usual document back costs.)
    pub(crate) fn run_up_to(
        &self,
        range: std::ops::Range<usize>,
        out: &mut Vec<Line>,
        most: usize,
    ) -> Option<bool> {
        let mut prev: Option<Line> = None;
        let words = self.words.get(range)?;
        // A word is a line at most, but for a repeat word: fewer words than `most` need not
        // be counted until a repeat word.
        let mut count_each = words.len() > most;
        let mut words = words.iter().copied();
        while let Some(word) = words.next() {
            if count_each && out.len() >= most {
                return Some(false);
            }
            let line = match decode(word, &mut words, &self.whole, prev.as_ref())? {
                Word::Line(line) => line,
                Word::Repeat(count) => {
                    count_each = true;
                    let mut line = prev?;
                    for _ in 0..count {
                        if out.len() >= most {
                            return Some(false);
                        }
                        line = following(&line)?;
                        out.push(line);
                    }
                    prev = Some(line);
                    continue;
                }
            };
            out.push(line);
            prev = Some(line);
        }
        Some(true)
    }
}

/// What a word of a run says.
enum Word {
    Line(Line),
    /// This many lines shaped as the one before follow it.
    Repeat(u32),
}

/// Word `word` of a run, taking the next of `words` for a line of two words; `prev` is the
/// line before. `None` when the words are not a run's.
#[inline]
fn decode(
    word: u32,
    words: &mut impl Iterator<Item = u32>,
    whole: &[Line],
    prev: Option<&Line>,
) -> Option<Word> {
    let line = if word & (1 << 31) == 0 {
        if word & REPEAT == REPEAT {
            return Some(Word::Repeat(word & REPEAT_MAX));
        }
        let eq = (word >> 12) & 0x3f;
        unpack(
            word & 0xfff,
            (eq != SHORT_NO_EQ).then_some(eq),
            (word >> 18) & 0x7f,
            (word >> 25) & 0xf,
            word >> 29,
            prev?,
        )?
    } else if word & WHOLE == LONG {
        let eq = word & 0xffff;
        unpack(
            words.next()?,
            (eq != u32::from(u16::MAX)).then_some(eq),
            (word >> 16) & 0xff,
            (word >> 24) & 0xf,
            word >> 28,
            prev?,
        )?
    } else if word == WHOLE_FAR {
        *whole.get(words.next()? as usize)?
    } else {
        *whole.get((word & PAYLOAD) as usize)?
    };
    Some(Word::Line(line))
}

/// The lines of a run of [`PackedLines`], decoded one at a time.
#[derive(Clone, Debug)]
pub(crate) struct PackedIter<'a> {
    words: std::slice::Iter<'a, u32>,
    whole: &'a [Line],
    prev: Option<Line>,
    /// How many more lines shaped as `prev` its repeat word counts.
    repeat: u32,
}

impl Iterator for PackedIter<'_> {
    type Item = Line;

    #[inline]
    fn next(&mut self) -> Option<Line> {
        let line = if self.repeat > 0 {
            self.repeat -= 1;
            following(self.prev.as_ref()?)
        } else {
            let word = *self.words.next()?;
            let mut words = self.words.by_ref().copied();
            match decode(word, &mut words, self.whole, self.prev.as_ref()) {
                Some(Word::Line(line)) => Some(line),
                Some(Word::Repeat(count)) => {
                    self.repeat = count.saturating_sub(1);
                    following(self.prev.as_ref()?).filter(|_| count > 0)
                }
                None => None,
            }
        };
        let Some(line) = line else {
            // Not a run: nothing more is given.
            self.words = [].iter();
            self.repeat = 0;
            return None;
        };
        self.prev = Some(line);
        Some(line)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // A word is a line at most once, but for a repeat word.
        let words = self.words.len();
        (self.repeat as usize + words / 2, None)
    }
}

/// A line as the tree keeps it: 12 bytes where a [`Line`] takes 20. Its number is not kept:
/// the lines of a shared range follow one another, so a line's number is the range's first
/// one plus its place ([`LinesRef::Stored`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StoredLine {
    start: u32,
    len: u32,
    /// The `=` (bits 0–18, [`STORED_NO_EQ`] for none), the key's code (19–25), the kind's
    /// (26–29) and the ending's (30–31).
    shape: u32,
}

/// The `=` of a stored line that has none; a stored line's `=` is below it.
const STORED_NO_EQ: u32 = (1 << 19) - 1;

impl StoredLine {
    /// `line` kept compactly, unless its `=` is 512 KiB or more into it.
    pub(crate) fn new(line: &Line) -> Option<StoredLine> {
        let eq = match line.eq {
            NO_EQ => STORED_NO_EQ,
            eq => Some(eq).filter(|&eq| eq < STORED_NO_EQ)?,
        };
        Some(StoredLine {
            start: line.start,
            len: line.len,
            shape: eq
                | key_code(line.key) << 19
                | kind_code(line.kind) << 26
                | ending_code(line.ending) << 30,
        })
    }

    /// The line it keeps, numbered `number`.
    #[inline]
    pub(crate) fn line(self, number: u32) -> Line {
        let eq = self.shape & STORED_NO_EQ;
        let key = (self.shape >> 19) & 0x7f;
        Line {
            start: self.start,
            len: self.len,
            eq: if eq == STORED_NO_EQ { NO_EQ } else { eq },
            number,
            ending: ENDINGS[(self.shape >> 30) as usize],
            kind: KINDS[((self.shape >> 26) & 0xf) as usize],
            key: key.checked_sub(1).map(|k| Key::ALL[k as usize]),
        }
    }
}

/// A section's lines: records of their own, or stored lines numbered on from `first`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LinesRef<'a> {
    Whole(&'a [Line]),
    Stored {
        lines: &'a [StoredLine],
        first: u32,
    },
    /// Words `start..end` of packed lines, decoded as they are read (a section too large
    /// to give whole).
    Packed {
        lines: &'a PackedLines,
        start: u32,
        end: u32,
    },
}

impl<'a> LinesRef<'a> {
    #[inline]
    pub(crate) fn len(self) -> usize {
        match self {
            LinesRef::Whole(lines) => lines.len(),
            LinesRef::Stored { lines, .. } => lines.len(),
            packed @ LinesRef::Packed { .. } => packed.iter().count(),
        }
    }

    #[inline]
    pub(crate) fn get(self, index: usize) -> Option<Line> {
        match self {
            LinesRef::Whole(lines) => lines.get(index).copied(),
            LinesRef::Stored { lines, first } => lines
                .get(index)
                .map(|l| l.line(first.wrapping_add(index as u32))),
            packed @ LinesRef::Packed { .. } => packed.iter().nth(index),
        }
    }

    #[inline]
    pub(crate) fn first(self) -> Option<Line> {
        self.get(0)
    }

    #[inline]
    pub(crate) fn last(self) -> Option<Line> {
        match self {
            packed @ LinesRef::Packed { .. } => packed.iter().last(),
            _ => self.get(self.len().checked_sub(1)?),
        }
    }

    #[inline]
    pub(crate) fn iter(self) -> LinesIter<'a> {
        LinesIter(match self {
            LinesRef::Whole(lines) => Run::Whole(lines.iter()),
            LinesRef::Stored { lines, first } => Run::Stored(lines.iter(), first),
            LinesRef::Packed { lines, start, end } => {
                Run::Packed(Box::new(lines.iter(start as usize..end as usize)))
            }
        })
    }

    /// The lines as records, borrowed when they are records already.
    #[cfg(test)]
    pub(crate) fn to_whole(self) -> std::borrow::Cow<'a, [Line]> {
        match self {
            LinesRef::Whole(lines) => std::borrow::Cow::Borrowed(lines),
            stored => std::borrow::Cow::Owned(stored.iter().collect()),
        }
    }
}

/// The next line of a section given from its words: apart, so that the usual sections'
/// [`LinesIter::next`] stays small enough to be inlined where it is used.
#[inline(never)]
fn next_packed(lines: &mut PackedIter<'_>) -> Option<Line> {
    lines.next()
}

/// The lines of a [`LinesRef`], in order.
pub(crate) struct LinesIter<'a>(Run<'a>);

enum Run<'a> {
    Whole(std::slice::Iter<'a, Line>),
    Stored(std::slice::Iter<'a, StoredLine>, u32),
    /// Boxed: the usual runs' iterator stays small.
    Packed(Box<PackedIter<'a>>),
}

impl Iterator for LinesIter<'_> {
    type Item = Line;

    #[inline]
    fn next(&mut self) -> Option<Line> {
        match &mut self.0 {
            Run::Whole(lines) => lines.next().copied(),
            Run::Stored(lines, number) => {
                let line = lines.next()?.line(*number);
                *number = number.wrapping_add(1);
                Some(line)
            }
            Run::Packed(lines) => next_packed(lines),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            Run::Whole(lines) => lines.size_hint(),
            Run::Stored(lines, _) => lines.size_hint(),
            Run::Packed(lines) => lines.size_hint(),
        }
    }
}

#[cfg(test)]
mod packed_tests {
    use super::*;

    /// Lines that follow one another from `start`, numbered from `number`; `gap` bytes (and a
    /// line number) skipped before a line make it not follow.
    struct Lines {
        lines: Vec<Line>,
        start: u32,
        number: u32,
    }

    impl Lines {
        fn push(
            &mut self,
            len: u32,
            eq: u32,
            ending: LineEnding,
            kind: LineKind,
            key: Option<Key>,
            gap: u32,
        ) {
            self.start += gap;
            self.number += u32::from(gap > 0);
            let line = Line {
                start: self.start,
                len,
                eq,
                number: self.number,
                ending,
                kind,
                key,
            };
            self.start = next_start(&line).unwrap_or(0);
            self.number += 1;
            self.lines.push(line);
        }
    }

    /// How many words each line takes: the first of a run one (whole), each next one two when
    /// it is long and one otherwise (short or whole).
    fn words_per_line(lines: &[Line]) -> Vec<usize> {
        std::iter::once(1)
            .chain(lines.windows(2).map(|pair| match pack(&pair[1], &pair[0]) {
                Some(Packed::Long(..)) => 2,
                Some(Packed::Short(_)) | None => 1,
            }))
            .collect()
    }

    /// Lines shaped as the line before them take one repeat word between them, a long line
    /// or one that does not follow never; every line comes back, as a run and one by one,
    /// first, last and by place.
    #[test]
    fn repeated_lines_take_one_word() {
        let mut l = Lines {
            lines: Vec::new(),
            start: 0,
            number: 1,
        };
        let start = LineKind::Marker(Marker::DocumentStart);
        l.push(20, 14, LineEnding::Crlf, start, None, 0);
        for _ in 0..1000 {
            l.push(0, NO_EQ, LineEnding::Lf, LineKind::Blank, None, 0);
        }
        for _ in 0..501 {
            l.push(3, 1, LineEnding::Lf, LineKind::Pair, None, 0);
        }
        for _ in 0..2 {
            l.push(5000, 2, LineEnding::Crlf, LineKind::Pair, None, 0);
        }
        // Blank again, but not right after the line before: whole, then a short word and
        // a repeat word again.
        l.push(0, NO_EQ, LineEnding::Lf, LineKind::Blank, None, 3);
        for _ in 0..3 {
            l.push(0, NO_EQ, LineEnding::Lf, LineKind::Blank, None, 0);
        }
        l.push(4, 1, LineEnding::Lf, LineKind::Pair, Some(Key::Number), 0);
        let lines = l.lines;
        let mut packed = PackedLines::default();
        packed.push_run(None, &lines);
        // whole; blank, repeat; pair, repeat; long, long; whole, blank, repeat; pair.
        assert_eq!(packed.len(), 1 + 2 + 2 + 4 + 3 + 1);
        let mut back = Vec::new();
        assert_eq!(packed.run(0..packed.len(), &mut back), Some(()));
        assert_eq!(format!("{back:?}"), format!("{lines:?}"));
        let run = LinesRef::Packed {
            lines: &packed,
            start: 0,
            end: packed.len() as u32,
        };
        assert_eq!(
            format!("{:?}", run.iter().collect::<Vec<_>>()),
            format!("{lines:?}")
        );
        assert_eq!(run.len(), lines.len());
        assert_eq!(format!("{:?}", run.first()), format!("{:?}", lines.first()));
        assert_eq!(format!("{:?}", run.last()), format!("{:?}", lines.last()));
        for at in [1, 500, 1000, 1001, 1400, 1503, 1504, 1507] {
            assert_eq!(
                format!("{:?}", run.get(at)),
                format!("{:?}", Some(lines[at]))
            );
        }
        assert!(run.get(lines.len()).is_none());
        // Given up to a number of lines: whole below it, not past it.
        for (most, whole) in [(lines.len(), true), (lines.len() - 1, false), (700, false)] {
            let mut back = Vec::new();
            assert_eq!(
                packed.run_up_to(0..packed.len(), &mut back, most),
                Some(whole)
            );
            assert_eq!(format!("{back:?}"), format!("{:?}", &lines[..most]));
        }
        // A range that starts inside a run, or on a repeat word, is not one.
        assert_eq!(packed.run(2..packed.len(), &mut Vec::new()), None);
        assert_eq!(packed.iter(2..packed.len()).count(), 0);
        assert_eq!(packed.iter(0..packed.len() + 1).count(), 0);
    }

    /// A repeat word counts at most [`REPEAT_MAX`] lines; the next one starts another.
    #[test]
    fn a_full_repeat_word_is_followed_by_another() {
        let blank = |start, number| Line {
            start,
            len: 0,
            eq: NO_EQ,
            number,
            ending: LineEnding::Lf,
            kind: LineKind::Blank,
            key: None,
        };
        let mut packed = PackedLines::default();
        packed.push_run(None, &[blank(0, 1), blank(1, 2), blank(2, 3)]);
        assert_eq!(packed.words[2], REPEAT | 1);
        // As if REPEAT_MAX lines had been counted.
        packed.words[2] = REPEAT | REPEAT_MAX;
        let last = blank(1 + REPEAT_MAX, 2 + REPEAT_MAX);
        let next = blank(2 + REPEAT_MAX, 3 + REPEAT_MAX);
        packed.push(&next, Some(&last));
        packed.push(&blank(3 + REPEAT_MAX, 4 + REPEAT_MAX), Some(&next));
        assert_eq!(packed.words[3..], [REPEAT | 2]);
        let lines = LinesRef::Packed {
            lines: &packed,
            start: 0,
            end: packed.len() as u32,
        };
        assert_eq!(lines.last().map(|l| l.number), Some(4 + REPEAT_MAX));
    }

    /// Every kind, ending and key goes through a short word, and through a long one, and back;
    /// the lengths and `=`s on either side of each form's limits take the form they should.
    #[test]
    fn lines_come_back_as_kept() {
        let mut l = Lines {
            lines: Vec::new(),
            start: 10,
            number: 3,
        };
        // The first line of a run is whole.
        l.push(3, NO_EQ, LineEnding::Crlf, LineKind::Blank, None, 0);
        let mut expected = vec![1];
        for (i, kind) in KINDS.into_iter().enumerate() {
            for ending in ENDINGS {
                // Short: any length below 4 KiB, `=` below 63 or none.
                l.push(i as u32 * 7, NO_EQ, ending, kind, None, 0);
                l.push(4095, 62, ending, kind, None, 0);
                // Long: 4 KiB or longer, or the `=` from 63 on.
                l.push(4096, NO_EQ, ending, kind, None, 0);
                l.push(70, 63, ending, kind, None, 0);
                l.push(100_000, 65_534, ending, kind, None, 0);
                expected.extend([1, 1, 2, 2, 2]);
            }
        }
        for (i, key) in Key::ALL.iter().enumerate() {
            l.push(
                40,
                i as u32 % 63,
                LineEnding::Crlf,
                LineKind::Pair,
                Some(*key),
                0,
            );
            l.push(
                40,
                63 + i as u32,
                LineEnding::Lf,
                LineKind::Pair,
                Some(*key),
                0,
            );
            l.push(5000, 1, LineEnding::Cr, LineKind::Pair, Some(*key), 0);
            expected.extend([1, 2, 2]);
        }
        // Whole: an `=` past 64 KiB, or a line that does not follow.
        l.push(70_000, 65_535, LineEnding::Lf, LineKind::Pair, None, 0);
        l.push(70_000, 69_000, LineEnding::Lf, LineKind::Pair, None, 0);
        l.push(5, 1, LineEnding::Lf, LineKind::Pair, None, 3);
        l.push(5, 1, LineEnding::Lf, LineKind::Pair, None, 0);
        expected.extend([1, 1, 1, 1]);
        // A line past 4 GiB does not follow.
        l.push(
            u32::MAX - l.start - 1,
            NO_EQ,
            LineEnding::Crlf,
            LineKind::Junk,
            None,
            0,
        );
        l.push(0, NO_EQ, LineEnding::None, LineKind::Blank, None, 0);
        expected.extend([2, 1]);
        let lines = l.lines;

        let mut packed = PackedLines::default();
        packed.push_run(None, &lines);
        assert_eq!(packed.whole.len(), 5);
        assert_eq!(packed.len(), expected.iter().sum::<usize>());
        assert_eq!(words_per_line(&lines), expected);
        let mut back = Vec::new();
        assert_eq!(packed.run(0..packed.len(), &mut back), Some(()));
        assert_eq!(format!("{back:?}"), format!("{lines:?}"));
        for (i, marker) in Marker::ALL.into_iter().enumerate() {
            assert_eq!(KINDS[i + 1], LineKind::Marker(marker));
        }
    }

    /// Every kind, ending and key is stored and comes back, with every `=` below the stored
    /// limit (and none); an `=` at the limit or past it is not stored. A stored run gives its
    /// lines back numbered on from its first, one by one, by place, first and last.
    #[test]
    fn stored_lines_come_back_as_kept() {
        let mut l = Lines {
            lines: Vec::new(),
            start: 7,
            number: 40,
        };
        for kind in KINDS {
            for ending in ENDINGS {
                for eq in [0, 1, 62, 65_535, STORED_NO_EQ - 1, NO_EQ] {
                    l.push(eq.saturating_add(1).min(1 << 20), eq, ending, kind, None, 0);
                }
            }
        }
        for &key in Key::ALL {
            l.push(100, 3, LineEnding::Crlf, LineKind::Pair, Some(key), 0);
        }
        let lines = l.lines;
        let stored: Vec<StoredLine> = lines
            .iter()
            .map(|line| StoredLine::new(line).expect("within the limits"))
            .collect();
        let run = LinesRef::Stored {
            lines: &stored,
            first: 40,
        };
        let back: Vec<Line> = run.iter().collect();
        assert_eq!(format!("{back:?}"), format!("{lines:?}"));
        assert_eq!(run.len(), lines.len());
        assert_eq!(run.iter().size_hint(), (lines.len(), Some(lines.len())));
        let at = lines.len() / 2;
        assert_eq!(
            format!("{:?}", run.get(at)),
            format!("{:?}", Some(lines[at]))
        );
        assert_eq!(format!("{:?}", run.first()), format!("{:?}", lines.first()));
        assert_eq!(format!("{:?}", run.last()), format!("{:?}", lines.last()));
        assert!(run.get(lines.len()).is_none());
        assert_eq!(format!("{:?}", run.to_whole()), format!("{lines:?}"));

        for eq in [STORED_NO_EQ, STORED_NO_EQ + 1, NO_EQ - 1] {
            let mut far = lines[0];
            far.eq = eq;
            assert!(StoredLine::new(&far).is_none(), "= at {eq}");
        }
        let empty = LinesRef::Stored {
            lines: &[],
            first: 9,
        };
        assert!(empty.first().is_none() && empty.last().is_none());
    }

    /// Runs are found by where their words start, whatever the size of their lines; a range
    /// that does not start at a run, or cuts a long line, gives nothing.
    #[test]
    fn runs_are_found_by_their_words() {
        let mut l = Lines {
            lines: Vec::new(),
            start: 0,
            number: 1,
        };
        l.push(
            20,
            5,
            LineEnding::Crlf,
            LineKind::Marker(Marker::DocumentStart),
            None,
            0,
        );
        l.push(
            9000,
            3,
            LineEnding::Crlf,
            LineKind::Pair,
            Some(Key::Purpose),
            0,
        );
        l.push(
            14,
            NO_EQ,
            LineEnding::Crlf,
            LineKind::Marker(Marker::DocumentEnd),
            None,
            0,
        );
        l.push(
            20,
            5,
            LineEnding::Crlf,
            LineKind::Marker(Marker::DocumentStart),
            None,
            0,
        );
        l.push(6, 2, LineEnding::Crlf, LineKind::Pair, None, 0);
        let (first, second) = l.lines.split_at(3);
        let mut packed = PackedLines::default();
        packed.push_run(None, first);
        let cut = packed.len();
        packed.push_run(None, second);
        assert_eq!((cut, packed.len()), (4, 6));
        let mut back = Vec::new();
        assert_eq!(packed.run(cut..packed.len(), &mut back), Some(()));
        assert_eq!(format!("{back:?}"), format!("{second:?}"));
        back.clear();
        assert_eq!(packed.run(0..cut, &mut back), Some(()));
        assert_eq!(format!("{back:?}"), format!("{first:?}"));
        assert_eq!(packed.run(1..cut, &mut Vec::new()), None);
        assert_eq!(packed.run(0..2, &mut Vec::new()), None);
    }

    /// A whole line whose index does not fit 30 bits is pointed at by the word after.
    #[test]
    fn a_far_whole_line_comes_back() {
        let line = Line {
            start: 7,
            len: 2,
            eq: 1,
            number: 9,
            ending: LineEnding::Lf,
            kind: LineKind::Pair,
            key: None,
        };
        let packed = PackedLines {
            words: vec![WHOLE_FAR, 1, WHOLE],
            whole: vec![Line { start: 0, ..line }, line],
            last_short: NO_WORD,
            repeat_at: NO_REPEAT,
        };
        let mut back = Vec::new();
        assert_eq!(packed.run(0..2, &mut back), Some(()));
        assert_eq!(format!("{back:?}"), format!("{:?}", [line]));
        back.clear();
        assert_eq!(packed.run(2..3, &mut back), Some(()));
        assert_eq!(back[0].start, 0);
    }
}
