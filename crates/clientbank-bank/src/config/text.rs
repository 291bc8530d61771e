//! The text of the files the configuration reads (`clientbank.toml`, the token file, the
//! secret and password files) as Windows tools save text: UTF-8 with or without the BOM
//! Notepad writes, UTF-16 with its BOM (Notepad's "Unicode", PowerShell 5.1's `>` and `Out-File`);
//! what bytes that are none of these look like (UTF-16 without a BOM, CP1251), to say so.

use clientbank_format::Message;

/// What bytes that are not text read here look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Looks {
    /// UTF-16 without the BOM that says so (or broken UTF-16).
    Utf16,
    /// Russian letters in CP1251, Windows-1251 (the ANSI code page of a Russian Windows).
    Cp1251,
    /// Nothing known.
    Unknown,
}

impl Looks {
    /// What `bytes` (not UTF-8) look like.
    fn of(bytes: &[u8]) -> Looks {
        if bytes.first() == Some(&0) || bytes.get(1) == Some(&0) {
            return Looks::Utf16;
        }
        let cp1251 = clientbank_format::Encoding::Cp1251.decode(bytes);
        if cp1251.chars().any(|c| matches!(c, 'А'..='я' | 'Ё' | 'ё')) {
            Looks::Cp1251
        } else {
            Looks::Unknown
        }
    }

    /// In both languages, to follow "is not UTF-8": ` (it is UTF-16 …)`; empty when nothing
    /// is known.
    pub(super) fn said(self) -> Message {
        match self {
            Looks::Utf16 => Message::new(
                " (it is UTF-16 without the byte order mark, BOM, that says so)",
                " (он в UTF-16 без метки порядка байтов, BOM, которая это обозначает)",
            ),
            Looks::Cp1251 => Message::new(
                " (its bytes read as CP1251, Windows-1251: the editor saved it in the ANSI code \
                 page)",
                " (его байты читаются как CP1251, Windows-1251: редактор сохранил его в \
                 кодировке ANSI)",
            ),
            Looks::Unknown => Message::same(""),
        }
    }
}

/// Bytes that are not text read here: where the first wrong byte is and what they look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NotText {
    /// The line of the first byte that is not UTF-8 (from 1).
    pub line: usize,
    /// Its column, in characters (from 1).
    pub column: usize,
    /// What the bytes look like.
    pub looks: Looks,
}

/// The text of a file's bytes: UTF-8 (a BOM skipped), or UTF-16 little- or big-endian that
/// starts with its BOM.
pub(super) fn decode(bytes: Vec<u8>) -> Result<String, NotText> {
    let utf16 = match bytes.get(..2) {
        Some([0xFF, 0xFE]) => Some(u16::from_le_bytes as fn([u8; 2]) -> u16),
        Some([0xFE, 0xFF]) => Some(u16::from_be_bytes as fn([u8; 2]) -> u16),
        _ => None,
    };
    if let Some(unit) = utf16 {
        let body = &bytes[2..];
        let units = body.chunks_exact(2).map(|pair| unit([pair[0], pair[1]]));
        let text: Result<String, _> = char::decode_utf16(units).collect();
        return match text {
            Ok(text) if body.len().is_multiple_of(2) => Ok(text),
            _ => Err(NotText {
                line: 1,
                column: 1,
                looks: Looks::Utf16,
            }),
        };
    }
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    // A NUL is valid UTF-8 but no text here has one: UTF-16 without its BOM is full of them.
    let (bytes, at) = match String::from_utf8(bytes) {
        Ok(text) => match text.find('\0') {
            None => return Ok(text),
            Some(at) => (text.into_bytes(), at),
        },
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            (e.into_bytes(), at)
        }
    };
    let before = &bytes[..at];
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    Err(NotText {
        line: before.iter().filter(|&&b| b == b'\n').count() + 1,
        column: String::from_utf8_lossy(&before[start..]).chars().count() + 1,
        looks: Looks::of(&bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_text_is_read_and_the_rest_said_for_what_it_looks_like() {
        let utf16 = |text: &str, bom: [u8; 2], unit: fn(u16) -> [u8; 2]| -> Vec<u8> {
            bom.into_iter()
                .chain(text.encode_utf16().flat_map(unit))
                .collect()
        };
        let text = "token = \"Обмен\"\r\n";
        assert_eq!(decode(text.into()).unwrap(), text);
        let bom: Vec<u8> = b"\xEF\xBB\xBF"
            .iter()
            .chain(text.as_bytes())
            .copied()
            .collect();
        assert_eq!(decode(bom).unwrap(), text);
        let le = utf16(text, [0xFF, 0xFE], u16::to_le_bytes);
        assert_eq!(decode(le.clone()).unwrap(), text);
        let be = utf16(text, [0xFE, 0xFF], u16::to_be_bytes);
        assert_eq!(decode(be).unwrap(), text);
        // Cut in the middle of a character; without its BOM.
        let said = decode(le[..le.len() - 1].to_vec()).unwrap_err();
        assert_eq!(said.looks, Looks::Utf16);
        let said = decode(le[2..].to_vec()).unwrap_err();
        assert_eq!(said.looks, Looks::Utf16);
        let cp1251 = b"a = 1\nb = \"\xCE\xE1\xEC\xE5\xED\"\n".to_vec();
        let said = decode(cp1251).unwrap_err();
        assert_eq!((said.line, said.column, said.looks), (2, 6, Looks::Cp1251));
        assert!(said.looks.said().ru().contains("CP1251"));
        assert_eq!(
            decode(b"\x80\x81".to_vec()).unwrap_err().looks,
            Looks::Unknown
        );
    }
}
