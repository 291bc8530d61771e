//! A list (`patterns = [`) left open: toml notices it only where the next line makes no
//! sense as a list element ("missing comma between array elements" at the next key, or
//! "unclosed array" past the last element), and its place and key are then those of that
//! later line. The fault is the line the list opens on: it is found here, by the brackets
//! before toml's place, strings and comments skipped.

/// Where a list still open at byte `end` of `text` begins: its 1-based line and column (of
/// the `[`) and its key, as the line writes it. `None` when every list is closed there.
pub(super) fn open_list(text: &str, end: usize) -> Option<(usize, usize, String)> {
    let bytes = text.as_bytes();
    let end = end.min(bytes.len());
    // The `[`s of values not closed yet, outermost first.
    let mut open = Vec::new();
    // Nothing but blanks since the line began: a `[` there, outside a list, opens a table.
    let mut line_start = true;
    let mut i = 0;
    while i < end {
        let byte = bytes[i];
        let next = match byte {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' => line_end(bytes, i),
            b'"' | b'\'' => string_end(bytes, i),
            b'[' if open.is_empty() && line_start => line_end(bytes, i),
            b'[' => {
                open.push(i);
                i + 1
            }
            b']' => {
                open.pop();
                i + 1
            }
            _ => i + 1,
        };
        line_start = false;
        i = next;
    }
    let at = *open.first()?;
    let line_begins = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line = text[..at].matches('\n').count() + 1;
    let column = text[line_begins..at].chars().count() + 1;
    let key = text[line_begins..at]
        .split_once('=')
        .map_or("", |(key, _)| key.trim());
    Some((line, column, key.to_string()))
}

/// Where the line holding byte `i` ends (its `\n`, or the end).
fn line_end(bytes: &[u8], i: usize) -> usize {
    bytes[i..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |at| i + at)
}

/// Just past the string that opens at byte `i`: `"…"` (with `\` escapes), `'…'`, and their
/// three-quote forms, which may hold line breaks. A string not closed ends at its line's end
/// (toml reports it as such, before any list).
fn string_end(bytes: &[u8], i: usize) -> usize {
    let quote = bytes[i];
    if bytes[i..].starts_with(&[quote; 3]) {
        let body = i + 3;
        return bytes[body..]
            .windows(3)
            .position(|w| w == [quote; 3])
            .map_or(bytes.len(), |at| body + at + 3);
    }
    let mut j = i + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' if quote == b'"' => j += 2,
            b'\n' => return j,
            b if b == quote => return j + 1,
            _ => j += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Any text, any place: no panic, and a list found open begins with `[` where it says.
        #[test]
        fn any_text_is_read_without_panic(
            text in "(\\PC|[\\[\\]\"'#=\n\\\\])*",
            end in 0usize..400,
        ) {
            if let Some((line, column, _)) = open_list(&text, end) {
                let opened = text.lines().nth(line - 1).unwrap_or("");
                prop_assert_eq!(opened.chars().nth(column - 1), Some('['));
            }
        }
    }

    #[test]
    fn the_list_left_open_is_found_past_strings_comments_and_tables() {
        let text = "[app]\nx = \"[\" # [ in a comment\npatterns = [\n  \"*.txt\", # ]\n  '[',\n  \
                    [1, 2],\n  \"\"\"]\n\"\"\",\nnext = 1\n";
        let end = text.find("next").unwrap();
        assert_eq!(open_list(text, end), Some((3, 12, "patterns".to_string())));
        // Closed: nothing open.
        let closed = "patterns = [\"a\", [\"b\"]]\n[signers.\"1\"]\ncommand = [\"x\"]\n";
        assert_eq!(open_list(closed, closed.len()), None);
        // A nested list left open is the outer key's.
        let nested = "a = [[1, 2], [3,\nb = 1\n";
        assert_eq!(
            open_list(nested, nested.find('b').unwrap()),
            Some((1, 5, "a".into()))
        );
        // A Cyrillic line before: columns are characters.
        let cyrillic = "# Шаблоны\nпути = [\"x\"\n";
        assert_eq!(
            open_list(cyrillic, cyrillic.len()),
            Some((2, 8, "пути".into()))
        );
    }
}
