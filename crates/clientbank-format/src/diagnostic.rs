//! The reader's findings are the workspace's one [`Diagnostic`] (crate `clientbank-diagnostic`);
//! this module adds what needs the format's [`Encoding`].

use std::borrow::Cow;

use clientbank_diagnostic::SourceText;
pub(crate) use clientbank_diagnostic::{Code, Diagnostic, LIMIT_PER_CODE, SHOWN_CHARS, short};

use crate::Encoding;

/// The same as [`short`] for bytes in `encoding`, decoding only what is kept.
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

impl SourceText for Encoding {
    fn decode<'b>(&self, bytes: &'b [u8]) -> Cow<'b, str> {
        Encoding::decode(*self, bytes)
    }

    fn name(&self) -> &str {
        Encoding::name(*self)
    }
}

impl Encoding {
    /// This encoding as the [`Renderer`](clientbank_diagnostic::Renderer) takes it:
    /// `Renderer::new(path, bytes, Some(encoding.as_source()))`.
    pub fn as_source(self) -> &'static dyn SourceText {
        match self {
            Encoding::Cp1251 => &Encoding::Cp1251,
            Encoding::Cp866 => &Encoding::Cp866,
            Encoding::Utf8 => &Encoding::Utf8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_cut_after_decoding_little() {
        let big = "Ж".repeat(1 << 20);
        let bytes = Encoding::Cp1251.encode(&big).unwrap();
        assert_eq!(
            short_bytes(&bytes, Encoding::Cp1251).chars().count(),
            SHOWN_CHARS + 1
        );
        assert_eq!(short_bytes(b"abc", Encoding::Utf8), "abc");
    }
}
