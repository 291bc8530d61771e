//! Whether a drop is complete: a 1C file ends with `КонецФайла` and leaves no section open, a
//! JSON drop parses to its end. An exporter that pauses longer than `settle` in the middle of
//! a file leaves such a file in the inbox: it is not claimed, it waits (see the claimer).

use clientbank_format::{Code, Message, tr};

/// Why `bytes` are not a complete drop yet, or `None` when they are (or when they are no
/// drop at all: those are claimed and rejected with their findings at once).
pub fn incomplete(bytes: &[u8]) -> Option<Message> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Some(Message::new("it is empty", "он пуст"));
    }
    if crate::drop::is_json(bytes) {
        return match serde_json::from_slice::<serde::de::IgnoredAny>(body) {
            Err(e) if e.is_eof() => {
                let (line, column) = (e.line(), e.column());
                Some(tr!(
                    "its JSON stops before its end (line {line}, column {column})" ;
                    "его JSON обрывается до конца (строка {line}, столбец {column})"
                ))
            }
            _ => None,
        };
    }
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    let head = &body[start..];
    if head.len() < b"1CClientBankExchange".len() && b"1CClientBankExchange".starts_with(head) {
        return Some(Message::new(
            "it stops within its first line",
            "он обрывается в первой строке",
        ));
    }
    let parsed = clientbank_format::parse(bytes).ok()?;
    let cut = parsed
        .diagnostics
        .iter()
        .find(|d| matches!(d.code, Code::MissingEndOfFile | Code::UnclosedSection))?;
    let lines = line_count(bytes);
    Some(match cut.code {
        // The reader's words say the section and its line.
        Code::UnclosedSection => cut.message.clone(),
        _ => tr!(
            "it does not end with КонецФайла (it has {lines} line(s))" ;
            "он не кончается строкой КонецФайла (строк в нём: {lines})"
        ),
    })
}

/// How many lines `bytes` hold (a last line without its line break counted).
pub fn line_count(bytes: &[u8]) -> usize {
    let breaks = bytes.iter().filter(|&&b| b == b'\n').count();
    breaks + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
        СекцияДокумент=Платежное поручение\r\nНомер=1\r\nКонецДокумента\r\nКонецФайла\r\n";

    fn cp1251(text: &str) -> Vec<u8> {
        encoding_rs::WINDOWS_1251.encode(text).0.into_owned()
    }

    #[test]
    fn a_cut_file_is_incomplete_and_a_whole_one_is_not() {
        assert_eq!(incomplete(&cp1251(FILE)), None);
        assert_eq!(incomplete(FILE.as_bytes()), None);
        let cut = FILE.find("КонецДокумента").unwrap();
        let why = incomplete(&cp1251(&FILE[..cut])).unwrap();
        assert!(why.en().contains("not closed"), "{why}");
        // The reader's words, said once: its line is named one time.
        assert_eq!(why.en().matches("line 4").count(), 1, "{why}");
        assert_eq!(why.ru().matches("строке 4").count(), 1, "{}", why.ru());
        let end = FILE.find("КонецФайла").unwrap();
        let why = incomplete(&cp1251(&FILE[..end])).unwrap().to_string();
        assert!(why.contains("КонецФайла"), "{why}");
        assert!(incomplete(b"1CClient").is_some());
        assert!(incomplete(b"").is_some());
        assert!(incomplete(b" \r\n").is_some());
        // No exchange file at all: complete (rejected with its findings).
        assert_eq!(incomplete(b"\x00\x01 binary"), None);
    }

    #[test]
    fn json_that_stops_early_is_incomplete_and_broken_json_is_not() {
        assert_eq!(incomplete(br#"[{"payment": {}}]"#), None);
        assert!(incomplete(br#"[{"payment": {"Number": "#).is_some());
        assert_eq!(incomplete(br#"[{"payment": }]"#), None);
        assert_eq!(incomplete(b"\xEF\xBB\xBF{}"), None);
    }
}
