//! Errors of the configuration file that say what is wrong and where: the line, the key, never a secret value.

use super::*;

/// A configuration that is not UTF-8 (Notepad of older Windows saves CP1251): where, and how
/// to save it.
pub(super) fn not_utf8(path: &Path, e: std::string::FromUtf8Error) -> Error {
    let bytes = e.as_bytes();
    let at = e.utf8_error().valid_up_to();
    let before = &bytes[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    let cp1251 = clientbank_format::Encoding::Cp1251.decode(bytes);
    let looks = if cp1251.chars().any(|c| matches!(c, 'А'..='я' | 'Ё' | 'ё')) {
        " (its bytes read as CP1251, Windows-1251: the editor saved it in the ANSI code page)"
    } else {
        ""
    };
    Error::Config(format!(
        "{}:{line}:{column}: the configuration is not UTF-8{looks}: save it as UTF-8 (Notepad: \
         \"Save as\", Encoding \"UTF-8\") / сохраните файл в кодировке UTF-8",
        path.display()
    ))
}

/// A TOML error as `FILE:LINE:COLUMN: message`, without the source line toml quotes (it may
/// hold the token); a value of a secret key the message still names is replaced by `****`.
pub(super) fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> Error {
    let mut message = e.message().trim().replace('\n', "; ");
    let mut place = String::new();
    if let Some(span) = e.span() {
        let start = span.start.min(text.len());
        let before = text.get(..start).unwrap_or(text);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        place = format!(":{line}:{column}");
        let line_text = text.lines().nth(line - 1).unwrap_or("");
        // A value refused: the message names its key (as the line has it).
        if let Some((key, _)) = line_text.split_once('=') {
            let key = key.trim();
            if !key.is_empty() && !key.starts_with('[') && !message.contains(key) {
                message = format!("{key}: {message}");
            }
        }
        if let Some((key, value)) = line_text.split_once('=')
            && secret_key(key)
        {
            // Whatever the message quotes of a secret's value goes; key names stay (a
            // misspelt key is named with the keys there are).
            let value = value.trim();
            message = message
                .split('`')
                .enumerate()
                .map(|(n, part)| {
                    let of_value = part.chars().filter(|c| c.is_alphanumeric()).count() >= 3
                        && value.contains(part);
                    if n % 2 == 1 && of_value { "****" } else { part }
                })
                .collect::<Vec<_>>()
                .join("`");
        }
        // A Windows path in a basic string: `\О` is no escape.
        if message.contains("escape")
            && line_text
                .split_once('=')
                .is_some_and(|(_, v)| v.trim_start().starts_with('"') && v.contains('\\'))
        {
            message.push_str(
                "; a Windows path goes in single quotes, where a backslash is a backslash: \
                 'C:\\Обмен\\token.txt' / путь Windows пишите в одинарных кавычках",
            );
        }
    }
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if !secret_key(key) {
            continue;
        }
        let value = value.trim();
        let bare = value.trim_matches(|c: char| "\"'[] ,".contains(c));
        for secret in [value, bare] {
            if secret.len() >= 4 {
                message = message.replace(secret, "****");
            }
        }
        for part in bare.split(|c: char| "\"', []".contains(c)) {
            if part.len() >= 4 {
                message = message.replace(part, "****");
            }
        }
    }
    Error::Config(format!("{}{place}: {message}", path.display()))
}
