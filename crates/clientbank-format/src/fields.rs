//! A document's typed values, borrowed: what [`Document`] holds, without a `String` per field.
//!
//! [`DocumentFields::read`] reads a document section as [`Document::from_section`] does — the
//! first readable value of each key, texts trimmed and decoded, an empty text as no value —
//! but a text is the input's own bytes when they are already its UTF-8 (ASCII, or a UTF-8
//! file), and otherwise decoded into one buffer the caller lends (and may lend again for the
//! next document). [`DocumentFields::of`] gives the same view of an owned [`Document`], so
//! code written against the view serves both.

use std::borrow::Cow;
use std::sync::LazyLock;

use chrono::{NaiveDate, NaiveTime};
use rust_decimal::Decimal;

use crate::tree::{SectionRef, ValueAt};
use crate::{Document, Encoding, Key, value};

/// What a field of [`Document`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SlotKind {
    Text,
    Date,
    Time,
    Amount,
    Integer,
}

/// One key's value, borrowed.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) enum Slot<'a> {
    #[default]
    Absent,
    Text(&'a str),
    /// A text decoded into the buffer: its range there.
    Buffered(u32, u32),
    Date(NaiveDate),
    Time(NaiveTime),
    Amount(Decimal),
    Integer(u32),
}

/// The kind of each key's field in [`Document`] (`None`: the document has no place for it, so
/// it is one of its `extra` keys).
static KINDS: LazyLock<[Option<SlotKind>; Key::COUNT]> = LazyLock::new(Document::slot_kinds);

/// An accessor of each typed value: its slot's variant, or `None`.
macro_rules! typed {
    ($($(#[$doc:meta])* $name:ident: $variant:ident => $ty:ty;)*) => {
        $(
            $(#[$doc])*
            #[inline]
            pub fn $name(&self, key: Key) -> Option<$ty> {
                match self.slots[key.index()] {
                    Slot::$variant(value) => Some(value),
                    _ => None,
                }
            }
        )*
    };
}

/// A line of a document section whose key [`Document`] keeps in `extra`: its bytes, decoded
/// only when asked, and where its value stands.
#[derive(Clone, Copy, Debug)]
pub struct ExtraLine<'s> {
    /// The format's key it is, when it is one (a key the document has no place for).
    pub known: Option<Key>,
    key: &'s [u8],
    value: &'s [u8],
    /// Where the value stands in the input.
    pub at: ValueAt,
    encoding: Encoding,
}

impl<'s> ExtraLine<'s> {
    /// The key as written.
    pub fn name(&self) -> Cow<'s, str> {
        self.encoding.decode(self.key)
    }

    /// The value as written.
    pub fn value(&self) -> Cow<'s, str> {
        self.encoding.decode(self.value)
    }
}

/// The typed values of one document, borrowed from the input or from one buffer.
#[derive(Clone, Debug)]
pub struct DocumentFields<'a> {
    slots: [Slot<'a>; Key::COUNT],
    buffer: &'a str,
    /// Whether the section has a key [`Document`] keeps in `extra` (so that
    /// [`DocumentFields::extra`] need not look when it has none).
    has_extra: bool,
    /// Whether a text may hold a control character ([`DocumentFields::may_hold_control`]).
    may_hold_control: bool,
}

impl<'a> DocumentFields<'a> {
    /// The values of an owned document.
    pub fn of(document: &'a Document) -> DocumentFields<'a> {
        let mut slots = [Slot::Absent; Key::COUNT];
        document.fill_slots(&mut slots);
        DocumentFields {
            slots,
            buffer: "",
            has_extra: !document.extra.is_empty(),
            may_hold_control: true,
        }
    }

    /// The values of a document section, as [`Document::from_section`] reads them: the first
    /// readable value of each key the document has a place for. Texts that are not their own
    /// UTF-8 are decoded into `buffer` (emptied first), or copied from it when their bytes
    /// were decoded lately.
    pub fn read<'s: 'a>(
        section: &SectionRef<'s>,
        buffer: &'a mut TextBuffer,
    ) -> DocumentFields<'a> {
        let TextBuffer {
            text: buffer,
            recent,
        } = buffer;
        buffer.clear();
        let encoding = section.encoding();
        let kinds = &*KINDS;
        let mut slots = [Slot::Absent; Key::COUNT];
        let (mut has_extra, mut may_hold_control) = (false, false);
        for (key, raw) in section.values() {
            let Some((key, kind)) = key.and_then(|key| Some((key, kinds[key.index()]?))) else {
                has_extra = true;
                continue;
            };
            let slot = &mut slots[key.index()];
            if !matches!(slot, Slot::Absent) {
                continue;
            }
            *slot = match kind {
                SlotKind::Text => text(raw, encoding, (buffer, recent), &mut may_hold_control),
                SlotKind::Date => value::parse_date(raw).map_or(Slot::Absent, Slot::Date),
                SlotKind::Time => {
                    value::parse_time(raw).map_or(Slot::Absent, |(t, _)| Slot::Time(t))
                }
                SlotKind::Amount => {
                    value::parse_amount(raw, true).map_or(Slot::Absent, Slot::Amount)
                }
                SlotKind::Integer => value::parse_integer(raw).map_or(Slot::Absent, Slot::Integer),
            };
        }
        DocumentFields {
            slots,
            buffer: buffer.as_str(),
            has_extra,
            may_hold_control,
        }
    }

    /// Whether [`Document`] has a place for `key` (a key it has none for is one of its
    /// `extra`).
    pub fn holds(key: Key) -> bool {
        KINDS[key.index()].is_some()
    }

    /// The keys of a document section that [`Document`] keeps in `extra`, decoded, in order.
    pub fn extra<'s>(
        section: &SectionRef<'s>,
    ) -> impl Iterator<Item = (Cow<'s, str>, Cow<'s, str>)> + 's {
        DocumentFields::extra_where(section, |_| true).map(|extra| (extra.name(), extra.value()))
    }

    /// The lines of [`DocumentFields::extra`], only those whose key `which` takes (`None`: a
    /// key that is not the format's), in order; nothing is decoded until asked.
    pub fn extra_where<'s>(
        section: &SectionRef<'s>,
        which: impl Fn(Option<Key>) -> bool + 's,
    ) -> impl Iterator<Item = ExtraLine<'s>> + 's {
        let encoding = section.encoding();
        section
            .extra_lines(move |known| {
                known.is_none_or(|k| !DocumentFields::holds(k)) && which(known)
            })
            .map(move |(known, key, value, at)| ExtraLine {
                known,
                key,
                value,
                at,
                encoding,
            })
    }

    /// Whether the document has a key [`Document`] keeps in `extra` (one that
    /// [`DocumentFields::extra`] gives).
    pub fn has_extra(&self) -> bool {
        self.has_extra
    }

    /// Whether a text of the document may hold a control character (`char::is_control`):
    /// `false` when the bytes of every text were looked at as they were read and none can be
    /// one ([`Encoding::may_hold_control`]); `true` for the values of an owned document.
    pub fn may_hold_control(&self) -> bool {
        self.may_hold_control
    }

    /// The text of `key` (`None` when absent, empty, or not a text).
    #[inline]
    pub fn text(&self, key: Key) -> Option<&'a str> {
        match self.slots[key.index()] {
            Slot::Text(text) => Some(text),
            Slot::Buffered(start, end) => self.buffer.get(start as usize..end as usize),
            _ => None,
        }
    }

    typed! {
        /// The date of `key` (`None` when absent, unreadable, or not a date).
        date: Date => NaiveDate;
        /// The time of `key`.
        time: Time => NaiveTime;
        /// The amount of `key`.
        amount: Amount => Decimal;
        /// The whole number of `key`.
        integer: Integer => u32;
    }
}

/// A text value as `String`'s field reading has it: trimmed, empty as absent; borrowed when
/// the bytes are their own UTF-8, else decoded onto the end of `buffer`. `may_hold_control`
/// is set when the text may hold a control character.
fn text<'a>(
    raw: &'a [u8],
    encoding: Encoding,
    (buffer, recent): (&mut String, &mut Recent),
    may_hold_control: &mut bool,
) -> Slot<'a> {
    let raw = raw.trim_ascii();
    if raw.is_empty() {
        return Slot::Absent;
    }
    let (control, ascii) = encoding.control_and_ascii(raw);
    *may_hold_control |= control;
    if (encoding == Encoding::Utf8 || ascii)
        && let Ok(text) = std::str::from_utf8(raw)
    {
        return Slot::Text(text);
    }
    let start = buffer.len();
    recent.decode_into(raw, encoding, buffer);
    match (u32::try_from(start), u32::try_from(buffer.len())) {
        (Ok(start), Ok(end)) => Slot::Buffered(start, end),
        // A buffer past 4 GiB: the text is lost rather than misplaced (no document is so big).
        _ => Slot::Absent,
    }
}

/// The buffer [`DocumentFields::read`] decodes a document's texts into, kept from one
/// document to the next with the texts it decoded lately.
#[derive(Debug, Default)]
pub struct TextBuffer {
    text: String,
    recent: Recent,
}

/// Texts decoded lately, by their bytes: in a file a payer's name, its bank and the bank's
/// city are the same in document after document, and copying such a text is cheaper than
/// decoding it again. Direct-mapped: a text takes the place its bytes' hash points at, and
/// the one there before is forgotten; when the texts kept reach [`Recent::BYTES`], all are.
#[derive(Debug, Default)]
struct Recent {
    places: Vec<Option<Kept>>,
    raw: Vec<u8>,
    text: String,
}

/// A text [`Recent`] keeps: its encoding, and where its bytes and its text are.
#[derive(Clone, Debug)]
struct Kept {
    encoding: Encoding,
    raw: std::ops::Range<usize>,
    text: std::ops::Range<usize>,
}

impl Recent {
    /// How many texts are kept.
    const PLACES: usize = 64;
    /// How many bytes of texts are kept at most (a longer text is decoded, not kept).
    const BYTES: usize = 1 << 14;

    /// The text of `raw` onto the end of `out`: copied when its bytes were decoded lately in
    /// `encoding`, else decoded (and kept).
    fn decode_into(&mut self, raw: &[u8], encoding: Encoding, out: &mut String) {
        let place = Recent::place(raw);
        if let Some(kept) = self.places.get(place).and_then(Option::as_ref)
            && kept.encoding == encoding
            && self.raw.get(kept.raw.clone()) == Some(raw)
            && let Some(text) = self.text.get(kept.text.clone())
        {
            out.push_str(text);
            return;
        }
        let start = out.len();
        encoding.decode_into(raw, out);
        let text = &out[start..];
        if raw.len() + text.len() > Recent::BYTES / 4 {
            return;
        }
        if self.raw.len() + self.text.len() + raw.len() + text.len() > Recent::BYTES
            || self.places.is_empty()
        {
            self.raw.clear();
            self.text.clear();
            self.places.clear();
            self.places.resize(Recent::PLACES, None);
        }
        let kept = Kept {
            encoding,
            raw: self.raw.len()..self.raw.len() + raw.len(),
            text: self.text.len()..self.text.len() + text.len(),
        };
        self.raw.extend_from_slice(raw);
        self.text.push_str(text);
        self.places[place] = Some(kept);
    }

    /// Where the text of `raw` is kept: a hash of its length and its first and last eight
    /// bytes (texts alike there share a place, and the later one is kept).
    fn place(raw: &[u8]) -> usize {
        let word = |bytes: &[u8]| match bytes.first_chunk::<8>() {
            Some(&eight) => u64::from_le_bytes(eight),
            None => bytes.iter().fold(0u64, |w, &b| w << 8 | u64::from(b)),
        };
        let last = raw.get(raw.len().saturating_sub(8)..).unwrap_or_default();
        let hash = (word(raw) ^ word(last).rotate_left(29) ^ raw.len() as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (hash >> 58) as usize % Recent::PLACES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A text copied from those decoded lately is the text decoding gives: whatever the
        /// order, texts alike at both ends (one place), the same bytes in other encodings,
        /// texts too long to keep, and the kept ones forgotten when they fill the room.
        #[test]
        fn a_text_decoded_lately_is_copied_as_decoded(
            texts in proptest::collection::vec(
                (0..3usize, 0..6usize, proptest::collection::vec(0x80..=0xFFu8, 0..3), 0..3usize),
                1..200,
            ),
        ) {
            let pool: [&[u8]; 6] = [
                b"\xce\xce\xce \xd0\xee\xec\xe0\xf8\xea\xe0",
                b"\xce\xce\xce \xd0\xee\xe7\xe0",
                b"\xcf\xc0\xce \xd1\xc1\xc5\xd0\xc1\xc0\xcd\xca \xe3. \xcc\xee\xf1\xea\xe2\xe0",
                b"x",
                b"\x98\x80",
                b"",
            ];
            let mut recent = Recent::default();
            for (encoding, at, middle, long) in texts {
                let encoding = Encoding::ALL[encoding];
                let mut raw = pool[at].to_vec();
                // The same ends around another middle: the same place, other bytes.
                raw.splice(raw.len() / 2..raw.len() / 2, middle);
                raw.extend(std::iter::repeat_n(b'a', [0, 100, Recent::BYTES / 4][long]));
                let mut copied = String::from("before ");
                recent.decode_into(&raw, encoding, &mut copied);
                let mut decoded = String::from("before ");
                encoding.decode_into(&raw, &mut decoded);
                proptest::prop_assert_eq!(copied, decoded);
                proptest::prop_assert!(recent.raw.len() + recent.text.len() <= Recent::BYTES);
            }
        }
    }

    /// Every key of a document, read borrowed and owned, gives the same values.
    #[test]
    fn borrowed_values_are_the_documents() {
        let mut text =
            String::from("1CClientBankExchange\nВерсияФормата=1.03\nКодировка=Windows\n");
        text.push_str("СекцияДокумент=Платежное поручение\n");
        for (i, key) in Key::ALL.iter().enumerate() {
            let value = match key.kind() {
                crate::ValueKind::Date => "01.02.2024".to_string(),
                crate::ValueKind::Time => "10:11:12".to_string(),
                crate::ValueKind::Amount { .. } => format!("{i}.50"),
                crate::ValueKind::Integer => i.to_string(),
                _ if i % 3 == 0 => format!(" Значение №{i} "),
                _ if i % 3 == 1 => String::new(),
                _ => format!("v{i}"),
            };
            text.push_str(&format!("{}={value}\n", key.name()));
            // A second value: the first readable one counts.
            text.push_str(&format!("{}=второе {i}\n", key.name()));
        }
        text.push_str("Неизвестный=x\nКонецДокумента\nКонецФайла\n");
        let mut checked = 0;
        for encoding in Encoding::ALL {
            let Ok(bytes) = encoding.encode(&text) else {
                continue;
            };
            let Ok(parsed) = crate::parse(bytes.into_owned()) else {
                continue;
            };
            let Some(section) = parsed.tree.documents().next() else {
                continue;
            };
            let document = Document::from_section(&section);
            let mut buffer = TextBuffer::default();
            let read = DocumentFields::read(&section, &mut buffer);
            let owned = DocumentFields::of(&document);
            for &key in Key::ALL {
                assert_eq!(read.text(key), owned.text(key), "{key:?}");
                assert_eq!(read.date(key), owned.date(key), "{key:?}");
                assert_eq!(read.time(key), owned.time(key), "{key:?}");
                assert_eq!(read.amount(key), owned.amount(key), "{key:?}");
                assert_eq!(read.integer(key), owned.integer(key), "{key:?}");
            }
            let texts = Key::ALL.iter().filter(|&&k| read.text(k).is_some()).count();
            assert!(texts > 40, "{texts} texts in {encoding:?}");
            checked += 1;
            let extra: Vec<(String, String)> = DocumentFields::extra(&section)
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            assert_eq!(extra, document.extra);
        }
        assert_eq!(checked, 3);
    }
}
