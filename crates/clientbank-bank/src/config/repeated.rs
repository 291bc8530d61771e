//! A key or a table written twice: toml says only "duplicate key" at the second; the name and
//! the line of the first are found here, so that the person knows which two lines to merge.

/// What is written twice at the 1-based line `line` of `text`, and where first: (the name as
/// said to a person, the first line). `None` when the line is neither a key nor a table header
/// seen before.
pub(super) fn first_of(text: &str, line: usize) -> Option<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.checked_sub(1)?)?;
    if let Some(table) = super::file_errors::table_header(here) {
        let first = lines[..line - 1]
            .iter()
            .position(|l| super::file_errors::table_header(l) == Some(table))?;
        return Some((format!("[{table}]"), first + 1));
    }
    let key = key_of(here)?;
    // The same key in the same table: after the last table header before `line`.
    let table_start = lines[..line - 1]
        .iter()
        .rposition(|l| super::file_errors::table_header(l).is_some())
        .map_or(0, |at| at + 1);
    let first = lines[table_start..line - 1]
        .iter()
        .position(|l| key_of(l) == Some(key))?;
    Some((format!("`{key}`"), table_start + first + 1))
}

/// The key a `key = value` line sets (quotes and spaces around it taken away).
fn key_of(line: &str) -> Option<&str> {
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches(['"', '\'']);
    (!key.is_empty() && !key.starts_with('#') && !key.starts_with('[')).then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_of_a_key_or_table_written_twice_is_found() {
        let text = "bank_url = \"a\"\nsigning = \"manual\"\nbank_url = \"b\"\n\
                    [signers.\"7701\"]\ncommand = [\"a\"]\n[statements]\naccounts = []\n\
                    [signers.\"7701\"]\ncommand = [\"b\"]\n";
        assert_eq!(first_of(text, 3), Some(("`bank_url`".into(), 1)));
        assert_eq!(first_of(text, 8), Some(("[signers.\"7701\"]".into(), 4)));
        // The same key in another table is no repeat.
        assert_eq!(first_of(text, 9), None);
        assert_eq!(first_of(text, 2), None);
        assert_eq!(first_of(text, 99), None);
        assert_eq!(first_of(text, 0), None);
    }
}
