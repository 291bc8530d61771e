//! Character encodings: CP1251, CP866 and UTF-8, detected from the content.
//!
//! CP1251 and CP866 map every byte to exactly one character and back (encoding_rs's tables
//! have no holes), so decoding never fails and re-encoding gives the same bytes. All the
//! bytes that carry structure (`=`, CR, LF, digits, the `1CClientBankExchange` marker) are
//! ASCII and identical in all three encodings, which is why the parser works on raw bytes.

use std::borrow::Cow;
use std::fmt;

/// No byte: the character is not in the encoding.
const NONE: u16 = u16::MAX;

/// The byte of each character a single-byte encoding holds: U+0000..U+07FF by code (`NONE`
/// when it has none), and the characters above, sorted.
struct EncodeTables {
    low: [u16; 0x800],
    high: Vec<(char, u8)>,
}

/// The UTF-8 of every byte of a single-byte encoding, padded to four bytes, and its length;
/// and its character.
struct DecodeTable([([u8; 4], usize); 256], [char; 256]);

impl DecodeTable {
    fn new(codec: &'static encoding_rs::Encoding) -> DecodeTable {
        let mut table = [([0u8; 4], 0); 256];
        let mut chars = ['\0'; 256];
        for ((byte, entry), c) in (0..=255u8).zip(table.iter_mut()).zip(chars.iter_mut()) {
            let byte = [byte];
            let text = codec.decode_without_bom_handling(&byte).0;
            let utf8 = text.as_bytes();
            entry.0[..utf8.len()].copy_from_slice(utf8);
            entry.1 = utf8.len();
            *c = text.chars().next().unwrap_or_default();
        }
        DecodeTable(table, chars)
    }

    /// The text of `bytes`: a character pushed per byte (no UTF-8 to validate afterwards).
    fn decode(&self, bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len() * 2);
        self.push(bytes, &mut out);
        out
    }

    /// [`DecodeTable::decode`] onto the end of `out`.
    fn push(&self, bytes: &[u8], out: &mut String) {
        for &b in bytes {
            out.push(self.1[usize::from(b)]);
        }
    }

    /// The UTF-8 of `bytes` onto the end of `out`, 64 bytes at a time through a buffer on the
    /// stack: four bytes written per byte, the next one written after its length (no branch
    /// on the length).
    fn utf8_into(&self, bytes: &[u8], out: &mut Vec<u8>) {
        out.reserve(bytes.len() * 2);
        let mut buf = [0u8; 64 * 3 + 4];
        for chunk in bytes.chunks(64) {
            let mut n = 0;
            for &b in chunk {
                let (utf8, len) = &self.0[usize::from(b)];
                buf[n..n + 4].copy_from_slice(utf8);
                n += len;
            }
            out.extend_from_slice(&buf[..n]);
        }
    }
}

/// The character encoding of an exchange file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Windows-1251, declared as `Кодировка=Windows`; the standard's default.
    Cp1251 = 0,
    /// CP866, declared as `Кодировка=DOS`.
    Cp866 = 1,
    /// UTF-8, which the standard does not know but real exports use.
    Utf8 = 2,
}

impl Encoding {
    /// All encodings the crate reads and writes.
    pub const ALL: [Encoding; 3] = [Encoding::Cp1251, Encoding::Cp866, Encoding::Utf8];

    fn codec(self) -> &'static encoding_rs::Encoding {
        match self {
            Encoding::Cp1251 => encoding_rs::WINDOWS_1251,
            Encoding::Cp866 => encoding_rs::IBM866,
            Encoding::Utf8 => encoding_rs::UTF_8,
        }
    }

    /// The name people know it by.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Cp1251 => "CP1251",
            Encoding::Cp866 => "CP866",
            Encoding::Utf8 => "UTF-8",
        }
    }

    /// The value written after `Кодировка=` in new files.
    pub fn label(self) -> &'static str {
        match self {
            Encoding::Cp1251 => "Windows",
            Encoding::Cp866 => "DOS",
            Encoding::Utf8 => "UTF-8",
        }
    }

    /// Reads a `Кодировка=` value, in any letter case: `Windows`, `DOS`, and the usual aliases
    /// (`windows-1251`, `cp1251`, `cp866`, `ibm866`, `utf-8`). The flag is true when the value
    /// is one of the two the standard defines.
    pub fn from_label(label: &str) -> Option<(Encoding, bool)> {
        let label = label.trim().to_ascii_lowercase();
        Some(match label.as_str() {
            "windows" => (Encoding::Cp1251, true),
            "dos" => (Encoding::Cp866, true),
            "windows-1251" | "cp1251" | "1251" | "win1251" | "cp-1251" => (Encoding::Cp1251, false),
            "cp866" | "ibm866" | "866" | "cp-866" => (Encoding::Cp866, false),
            "utf-8" | "utf8" => (Encoding::Utf8, false),
            _ => return None,
        })
    }

    /// Decodes bytes of this encoding. Borrows when the bytes are ASCII (or UTF-8).
    /// Invalid UTF-8 (which a parsed tree never holds) becomes U+FFFD.
    pub fn decode(self, bytes: &[u8]) -> Cow<'_, str> {
        if self == Encoding::Utf8 {
            return String::from_utf8_lossy(bytes);
        }
        if bytes.is_ascii() {
            // ASCII is UTF-8 as it stands.
            return Cow::Borrowed(std::str::from_utf8(bytes).unwrap_or_default());
        }
        Cow::Owned(self.decode_table().decode(bytes))
    }

    /// Whether the text of `bytes` in this encoding may hold a control character
    /// (`char::is_control`: U+0000–U+001F, U+007F–U+009F): `false` only when no byte can be or
    /// start one. Such a byte is below 0x20, 0x7F, or this encoding's one other: 0x98 in
    /// Windows-1251 (which defines no character there and is read as U+0098), 0xC2 in UTF-8
    /// (the lead byte of U+0080–U+009F), none in CP866. Eight bytes at a time, the last eight
    /// over the ones before them when the length is not a multiple of eight.
    #[inline]
    pub fn may_hold_control(self, bytes: &[u8]) -> bool {
        self.control_and_ascii(bytes).0
    }

    /// [`Encoding::may_hold_control`], and whether every byte is ASCII, in one pass.
    #[inline]
    pub(crate) fn control_and_ascii(self, bytes: &[u8]) -> (bool, bool) {
        let other = match self {
            Encoding::Cp1251 => 0x98,
            Encoding::Cp866 => 0x7F,
            Encoding::Utf8 => 0xC2,
        };
        const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
        const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
        // A byte below `n` ≤ 0x80 (a zero byte: below 1) sets a high bit of the word.
        let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x;
        let word = |bytes: &[u8]| {
            let mut eight = [0u8; 8];
            eight.copy_from_slice(bytes);
            u64::from_ne_bytes(eight)
        };
        let found = |x: u64| {
            (below(x, 0x20) | below(x ^ (ONES * 0x7F), 1) | below(x ^ (ONES * u64::from(other)), 1))
                & HIGHS
        };
        if bytes.len() < 8 {
            let control = bytes.iter().any(|&b| b < 0x20 || b == 0x7F || b == other);
            return (control, bytes.is_ascii());
        }
        // No branch a word: texts are short, and most hold none.
        let last = word(&bytes[bytes.len() - 8..]);
        let (control, all) = bytes
            .chunks_exact(8)
            .map(word)
            .fold((found(last), last), |(control, all), x| {
                (control | found(x), all | x)
            });
        (control != 0, all & HIGHS == 0)
    }

    /// Whether `bytes` decode to `text` ([`Encoding::decode`]), told without decoding them.
    pub fn decodes_to(self, bytes: &[u8], text: &str) -> bool {
        if self == Encoding::Utf8 {
            return bytes == text.as_bytes()
                || (std::str::from_utf8(bytes).is_err() && String::from_utf8_lossy(bytes) == text);
        }
        let table = &self.decode_table().1;
        // A byte is one character, and a character at least one byte.
        bytes.len() <= text.len()
            && bytes
                .iter()
                .map(|&b| table[usize::from(b)])
                .eq(text.chars())
    }

    /// The text of `bytes` (what [`Encoding::decode`] gives) onto the end of `out`: one
    /// buffer for many values, no `String` per value.
    pub fn decode_into(self, bytes: &[u8], out: &mut String) {
        if self == Encoding::Utf8 {
            out.push_str(&String::from_utf8_lossy(bytes));
        } else if bytes.is_ascii() {
            // ASCII is UTF-8 as it stands.
            out.push_str(std::str::from_utf8(bytes).unwrap_or_default());
        } else {
            out.reserve(bytes.len() * 2);
            self.decode_table().push(bytes, out);
        }
    }

    /// The UTF-8 of the text of `bytes` (what [`Encoding::decode`] gives) onto the end of
    /// `out`, for a writer that wants bytes: no `String` made, one buffer for many values.
    pub fn utf8_into(self, bytes: &[u8], out: &mut Vec<u8>) {
        if self == Encoding::Utf8 {
            out.extend_from_slice(String::from_utf8_lossy(bytes).as_bytes());
        } else if bytes.is_ascii() {
            out.extend_from_slice(bytes);
        } else {
            self.decode_table().utf8_into(bytes, out);
        }
    }

    /// The byte-to-UTF-8 table of a single-byte encoding, built once from encoding_rs's own
    /// mapping (so decoding through it gives exactly encoding_rs's text).
    fn decode_table(self) -> &'static DecodeTable {
        use std::sync::OnceLock;
        static TABLES: [OnceLock<DecodeTable>; 2] = [OnceLock::new(), OnceLock::new()];
        TABLES[self as usize].get_or_init(|| DecodeTable::new(self.codec()))
    }

    /// Encodes text, or names the first character this encoding cannot hold.
    pub fn encode<'a>(self, text: &'a str) -> Result<Cow<'a, [u8]>, char> {
        if self == Encoding::Utf8 || text.is_ascii() {
            return Ok(Cow::Borrowed(text.as_bytes()));
        }
        let mut encoder = self.codec().new_encoder();
        let mut out = Vec::with_capacity(text.len());
        let capacity = encoder
            .max_buffer_length_from_utf8_without_replacement(text.len())
            .unwrap_or(text.len() * 4);
        out.reserve(capacity);
        let (result, _read) =
            encoder.encode_from_utf8_to_vec_without_replacement(text, &mut out, true);
        match result {
            encoding_rs::EncoderResult::InputEmpty => Ok(Cow::Owned(out)),
            encoding_rs::EncoderResult::Unmappable(c) => Err(c),
            encoding_rs::EncoderResult::OutputFull => unreachable!("buffer reserved in full"),
        }
    }

    /// Whether `text` can be written in this encoding, without encoding it: `Err` with the
    /// first character that cannot (the same character [`Encoding::encode`] stops at). ASCII,
    /// the Russian alphabet and `Ё`/`ё` fit every encoding here at once; only other characters
    /// are looked up.
    pub fn fits(self, text: &str) -> Result<(), char> {
        if self == Encoding::Utf8 || text.is_ascii() {
            return Ok(());
        }
        let mut buf = [0u8; 4];
        for c in text.chars() {
            if c.is_ascii() || matches!(c, 'А'..='я' | 'Ё' | 'ё') {
                continue;
            }
            self.encode(c.encode_utf8(&mut buf))?;
        }
        Ok(())
    }

    /// Appends `text` encoded to `out`, as [`Encoding::encode`] would encode it: ASCII and the
    /// Russian alphabet through the encodings' own layouts, other characters one by one through
    /// `encoding_rs`. On a character the encoding lacks, `out` holds what came before it.
    pub(crate) fn encode_into(self, out: &mut Vec<u8>, text: &str) -> Result<(), char> {
        self.encode_part(out, text).map(|_| ())
    }

    /// [`Encoding::encode_into`] that also tells whether `text` holds a line break (CR or LF:
    /// the same bytes in every encoding here, and no other character is encoded as either), in
    /// the same pass. A single-byte encoding goes a byte at a time through tables made once: the
    /// characters U+0000..U+07FF (the Russian alphabet among them) by their code, the few above
    /// (`№`, dashes, quotes, CP866's box drawing) by a search of the encoding's own; only a
    /// character in neither (one the encoding lacks) goes to `encoding_rs`.
    pub(crate) fn encode_part(self, out: &mut Vec<u8>, text: &str) -> Result<bool, char> {
        let bytes = text.as_bytes();
        // One pass without a branch per byte (so the compiler can do it many bytes at a time):
        // whether any byte is not ASCII, whether any is CR or LF.
        let (mut high, mut line_break) = (0u8, false);
        for &b in bytes {
            high |= b;
            line_break |= (b == b'\r') | (b == b'\n');
        }
        if self == Encoding::Utf8 || high < 0x80 {
            out.extend_from_slice(bytes);
            return Ok(line_break);
        }
        // A single-byte encoding writes at most one byte per byte of UTF-8: room is made for
        // that many, written by index and cut to what was written.
        let start = out.len();
        out.resize(start + bytes.len(), 0);
        let tables = self.encode_tables();
        let (mut i, mut n) = (0, start);
        let mut buf = [0u8; 4];
        while let Some(&b) = bytes.get(i) {
            let byte = if b < 0x80 {
                i += 1;
                b
            } else if b & 0xE0 == 0xC0
                // A two-byte character (U+0080..U+07FF) through the table.
                && let Some(&next) = bytes.get(i + 1)
                && let Some(&byte) = tables
                    .low
                    .get((usize::from(b & 0x1F) << 6) | usize::from(next & 0x3F))
                && byte <= 0xFF
            {
                i += 2;
                byte as u8
            } else {
                let c = text[i..].chars().next().unwrap_or_default();
                i += c.len_utf8();
                match tables.high.binary_search_by_key(&c, |&(c, _)| c) {
                    Ok(at) => tables.high[at].1,
                    Err(_) => match self.encode(c.encode_utf8(&mut buf)) {
                        // Every character is one byte here or none.
                        Ok(encoded) => encoded.first().copied().unwrap_or_default(),
                        Err(c) => {
                            out.truncate(n);
                            return Err(c);
                        }
                    },
                }
            };
            if let Some(slot) = out.get_mut(n) {
                *slot = byte;
            }
            n += 1;
        }
        out.truncate(n);
        Ok(line_break)
    }

    /// The byte of every character a single-byte encoding holds, built once from
    /// [`Encoding::encode`].
    fn encode_tables(self) -> &'static EncodeTables {
        use std::sync::OnceLock;
        static TABLES: [OnceLock<EncodeTables>; 2] = [OnceLock::new(), OnceLock::new()];
        TABLES[self as usize % 2].get_or_init(|| {
            let mut buf = [0u8; 4];
            let mut byte_of = |c: char| match self.encode(c.encode_utf8(&mut buf)).as_deref() {
                Ok(&[byte]) => Some(byte),
                _ => None,
            };
            let mut low = [NONE; 0x800];
            for (code, entry) in (0u32..).zip(low.iter_mut()) {
                if let Some(byte) = char::from_u32(code).and_then(&mut byte_of) {
                    *entry = u16::from(byte);
                }
            }
            // Every character above U+07FF the encoding holds is the decoding of one of its
            // bytes; each is kept only if it encodes back to that byte.
            let mut high: Vec<(char, u8)> = (0x80..=0xFFu8)
                .filter_map(|byte| {
                    let c = self.decode(&[byte]).chars().next()?;
                    (u32::from(c) >= 0x800 && byte_of(c) == Some(byte)).then_some((c, byte))
                })
                .collect();
            high.sort_unstable();
            EncodeTables { low, high }
        })
    }

    /// Encodes text that is known to fit (the crate's own key names).
    pub(crate) fn encode_lossless(self, text: &str) -> Vec<u8> {
        self.encode(text)
            .unwrap_or_else(|c| panic!("{c:?} in a built-in name cannot be written in {self}"))
            .into_owned()
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the parser chose the encoding of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Detection {
    /// The bytes are UTF-8 with non-ASCII text (after a BOM if one is present).
    Utf8Content,
    /// The bytes are not UTF-8; the single-byte code page that spells more known keys won.
    SingleByteKeys,
    /// The bytes are ASCII, so every encoding reads them alike; the declaration (or CP1251) was used.
    Ascii,
}

/// How many bytes from the start are looked at to choose the encoding.
pub(crate) const SAMPLE: usize = 64 * 1024;

/// Chooses the encoding of `sample`, the first bytes of a file (after any BOM).
/// `declared` is used only when the bytes cannot tell.
pub(crate) fn detect(sample: &[u8], declared: Option<Encoding>) -> (Encoding, Detection) {
    if sample.is_ascii() {
        return (declared.unwrap_or(Encoding::Cp1251), Detection::Ascii);
    }
    let valid_utf8 = match std::str::from_utf8(sample) {
        Ok(_) => true,
        // A multi-byte character cut at the end of the sample is still UTF-8.
        Err(error) => error.error_len().is_none() && sample.len() - error.valid_up_to() < 4,
    };
    let cp1251 = known_keys(sample, Encoding::Cp1251);
    let cp866 = known_keys(sample, Encoding::Cp866);
    // Single-byte Russian text can happen to be valid UTF-8 ("ток" in CP866 is the bytes of
    // U+2BAA): UTF-8 wins unless the single-byte spellings name more known keys.
    if valid_utf8 && known_keys(sample, Encoding::Utf8) >= cp1251.max(cp866) {
        return (Encoding::Utf8, Detection::Utf8Content);
    }
    let encoding = match cp1251.cmp(&cp866) {
        std::cmp::Ordering::Greater => Encoding::Cp1251,
        std::cmp::Ordering::Less => Encoding::Cp866,
        std::cmp::Ordering::Equal => match declared {
            Some(Encoding::Cp866) => Encoding::Cp866,
            _ => Encoding::Cp1251,
        },
    };
    (encoding, Detection::SingleByteKeys)
}

/// Whether UTF-8 text reads as what a Russian exchange file holds: its characters beyond ASCII
/// are Russian letters or the punctuation and signs of Russian text. A line of CP1251 or CP866
/// bytes can be valid UTF-8 by chance, and then reads as symbols of other scripts; only a
/// plausible reading is evidence that a single-byte file has a UTF-8 line in it.
pub(crate) fn plausible_utf8(text: &str) -> bool {
    text.chars().all(|c| {
        c.is_ascii()
            || matches!(c,
                '\u{0400}'..='\u{045F}' | '\u{0490}' | '\u{0491}' | '\u{00A0}'..='\u{00BF}'
                | '\u{2013}' | '\u{2014}' | '\u{2018}'..='\u{201E}' | '\u{2026}' | '\u{2116}'
                | '\u{20AC}' | '\u{20BD}')
    })
}

/// Whether bytes that are valid UTF-8 (`utf8` is their reading) read better so than in the
/// file's single-byte `encoding`: the share of common Russian letters (А–я, Ё, ё) among the
/// characters that are not ASCII is higher. Short runs of CP1251 can be valid UTF-8 by chance
/// (`РЂ` is the bytes of `Ѐ`); real UTF-8 Russian read as CP1251 doubles its characters and
/// halves that share, so it still reads better as UTF-8.
pub(crate) fn reads_better_as_utf8(bytes: &[u8], utf8: &str, encoding: Encoding) -> bool {
    fn share(text: &str) -> (usize, usize) {
        text.chars()
            .filter(|c| !c.is_ascii())
            .fold((0, 0), |(common, all), c| {
                let russian = matches!(c, '\u{0410}'..='\u{044F}' | 'Ё' | 'ё');
                (common + usize::from(russian), all + 1)
            })
    }
    let single = encoding.decode(bytes);
    let (a, n) = share(utf8);
    let (b, m) = share(&single);
    // a/n > b/m, in integers.
    a * m > b * n
}

/// Counts the lines of `sample` whose key is a known key in `encoding`.
fn known_keys(sample: &[u8], encoding: Encoding) -> usize {
    sample
        .split(|&b| b == b'\n' || b == b'\r')
        .filter_map(|line| memchr::memchr(b'=', line).map(|eq| &line[..eq]))
        .filter(|key| crate::Key::lookup_exact(key, encoding).is_some())
        .count()
}

/// Finds the `Кодировка=` value in the first lines of a file, trying every single-byte
/// spelling of the key (it is Cyrillic).
pub(crate) fn declared(sample: &[u8]) -> Option<(Encoding, bool)> {
    for line in sample.split(|&b| b == b'\n' || b == b'\r').take(64) {
        let Some(eq) = memchr::memchr(b'=', line) else {
            continue;
        };
        let key = line[..eq].trim_ascii();
        if Encoding::ALL
            .iter()
            .any(|&e| key == crate::Key::Encoding.bytes(e))
        {
            let value = std::str::from_utf8(&line[eq + 1..]).ok()?;
            return Encoding::from_label(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A byte that decodes to a control character is one `may_hold_control` looks for, in
    /// every encoding; and eight at a time it finds what it finds one by one, and tells ASCII
    /// as `is_ascii` does.
    #[test]
    fn control_bytes_are_found_eight_at_a_time_as_one_by_one() {
        for encoding in Encoding::ALL {
            let looked_for = |b: u8| encoding.may_hold_control(&[b]);
            if encoding != Encoding::Utf8 {
                for b in 0..=255u8 {
                    let control = encoding.decode(&[b]).chars().any(char::is_control);
                    assert_eq!(looked_for(b), control, "{encoding:?} {b:#04x}");
                }
            }
            let one_by_one = |bytes: &[u8]| bytes.iter().any(|&b| looked_for(b));
            let mut russian: Vec<u8> = "Оплата по счёту № 12 «ёж» ABCxyz 0123456789 ~!".into();
            russian.extend(0x80..=0xFFu8);
            let plain: Vec<u8> = "ABCxyz 0123456789 ~! Invoice 12, VAT 20 % - 1 234.56 rub.".into();
            for base in [russian, plain] {
                for len in 0..=base.len().min(90) {
                    for at in 0..len {
                        for byte in 0..=255u8 {
                            let mut value = base[..len].to_vec();
                            value[at] = byte;
                            assert_eq!(
                                encoding.control_and_ascii(&value),
                                (one_by_one(&value), value.is_ascii()),
                                "{encoding:?} {value:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn table_decoding_agrees_with_encoding_rs() {
        let every: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for encoding in [Encoding::Cp1251, Encoding::Cp866] {
            for cut in [0, 1, 127, 128, 129, 300, every.len()] {
                let bytes = &every[..cut];
                let expected = encoding.codec().decode_without_bom_handling(bytes).0;
                assert_eq!(
                    encoding.decode(bytes),
                    expected,
                    "{encoding:?}, {cut} bytes"
                );
            }
        }
    }

    #[test]
    fn encoding_into_agrees_with_encoding() {
        // Every character of the Basic Multilingual Plane and some beyond, in Cyrillic text
        // and alone: the same bytes or the same refusal, and a line break told as it is.
        let all: String = (0..0x1_0000u32)
            .chain([0x1_0000, 0x1_F600, 0x10_FFFF])
            .filter_map(char::from_u32)
            .collect();
        for encoding in [Encoding::Cp1251, Encoding::Cp866, Encoding::Utf8] {
            for c in all.chars() {
                for text in [format!("Ёж{c}ё"), c.to_string()] {
                    let mut out = b"x".to_vec();
                    let into = encoding
                        .encode_part(&mut out, &text)
                        .map(|line_break| (out[1..].to_vec(), line_break));
                    let whole = encoding
                        .encode(&text)
                        .map(|bytes| (bytes.into_owned(), c == '\r' || c == '\n'));
                    assert_eq!(into, whole, "{encoding} {c:?}");
                }
            }
        }
    }

    #[test]
    fn fitting_agrees_with_encoding() {
        let all: String = (0..0x2600u32).filter_map(char::from_u32).collect();
        for encoding in [Encoding::Cp1251, Encoding::Cp866, Encoding::Utf8] {
            for chunk in all.chars().collect::<Vec<_>>().chunks(7) {
                let text: String = chunk.iter().collect();
                let text = format!("Ёж {text} ё");
                assert_eq!(
                    encoding.fits(&text),
                    encoding.encode(&text).map(|_| ()),
                    "{encoding} {text:?}"
                );
            }
        }
    }

    #[test]
    fn labels_in_any_case_and_aliases() {
        assert_eq!(
            Encoding::from_label("Windows"),
            Some((Encoding::Cp1251, true))
        );
        assert_eq!(
            Encoding::from_label("windows"),
            Some((Encoding::Cp1251, true))
        );
        assert_eq!(
            Encoding::from_label("WINDOWS-1251"),
            Some((Encoding::Cp1251, false))
        );
        assert_eq!(Encoding::from_label("DOS"), Some((Encoding::Cp866, true)));
        assert_eq!(
            Encoding::from_label("ibm866"),
            Some((Encoding::Cp866, false))
        );
        assert_eq!(Encoding::from_label("utf-8"), Some((Encoding::Utf8, false)));
        assert_eq!(Encoding::from_label("koi8-r"), None);
    }

    #[test]
    fn single_byte_code_pages_round_trip_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        for encoding in [Encoding::Cp1251, Encoding::Cp866] {
            let text = encoding.decode(&all);
            assert_eq!(text.chars().count(), 256);
            assert_eq!(encoding.encode(&text).unwrap().as_ref(), &all[..]);
        }
    }

    #[test]
    fn unmappable_character_is_named() {
        assert_eq!(Encoding::Cp1251.encode("100 ₽"), Err('₽'));
        assert_eq!(
            Encoding::Cp866.encode("Ромашка"),
            Ok(Cow::Owned(vec![0x90, 0xAE, 0xAC, 0xA0, 0xE8, 0xAA, 0xA0]))
        );
    }

    #[test]
    fn detects_by_content_not_by_declaration() {
        let text = "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n";
        for encoding in Encoding::ALL {
            let bytes = encoding.encode(text).unwrap();
            assert_eq!(detect(&bytes, Some(Encoding::Cp1251)).0, encoding);
            assert_eq!(detect(&bytes, Some(Encoding::Cp866)).0, encoding);
        }
        assert_eq!(
            detect(b"1CClientBankExchange\n", Some(Encoding::Cp866)),
            (Encoding::Cp866, Detection::Ascii)
        );
    }

    proptest::proptest! {
        /// Telling whether bytes decode to a text is comparing their decoding with it: for
        /// any bytes, their own decoding, that decoding changed at one character, and the
        /// bytes read as the text.
        #[test]
        fn bytes_decode_to_a_text_as_their_decoding_is_it(
            encoding in 0..3usize,
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
            change in proptest::option::of((0..40usize, proptest::prelude::any::<char>())),
        ) {
            let encoding = Encoding::ALL[encoding];
            let decoded = encoding.decode(&bytes).into_owned();
            let mut texts = vec![decoded.clone(), String::from_utf8_lossy(&bytes).into_owned()];
            if let Some((at, c)) = change {
                let mut chars: Vec<char> = decoded.chars().collect();
                if let Some(slot) = chars.get_mut(at) {
                    *slot = c;
                } else {
                    chars.push(c);
                }
                texts.push(chars.into_iter().collect());
            }
            for text in texts {
                proptest::prop_assert_eq!(encoding.decodes_to(&bytes, &text), decoded == text);
            }
        }
    }

    #[test]
    fn finds_the_declaration_in_single_byte_files() {
        for encoding in [Encoding::Cp1251, Encoding::Cp866] {
            let bytes = encoding.encode_lossless("1CClientBankExchange\nКодировка=DOS\n");
            assert_eq!(declared(&bytes), Some((Encoding::Cp866, true)));
        }
    }
}
