//! The values of the configuration file that need more than serde gives: durations, day counts, encodings, file names, name patterns, log formats.

use super::file_errors::both;
use super::*;

/// `[statements] days`: from 1 to 366.
#[derive(Debug)]
pub(super) struct Days(pub(super) u32);

/// `[statements] encoding`: `windows` (CP1251), `dos` (CP866) or `utf-8`.
#[derive(Debug)]
pub(super) struct StatementEncoding(pub(super) clientbank_format::Encoding);

/// `[statements] file`: a file name in outbox/, without a folder.
#[derive(Debug)]
pub(super) struct OutboxName(pub(super) String);

/// `patterns`: at least one.
#[derive(Debug)]
pub(super) struct Patterns(pub(super) Vec<String>);

/// A duration of at least `MIN_MS` milliseconds (and at most a day).
#[derive(Clone, Copy, Debug)]
pub(super) struct Wait<const MIN_MS: u64>(pub(super) Duration);

/// A duration in the file: seconds as a number, or text as `humantime` reads it (`200ms`,
/// `2s`, `5m`, `1h 30m`).
#[derive(Clone, Debug)]
pub(super) enum Span {
    Seconds(f64),
    Text(String),
}

impl<'de> Deserialize<'de> for Span {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Span, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Span;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a duration (seconds, or text such as \"200ms\", \"2s\", \"5m\")")
            }

            fn visit_f64<E>(self, v: f64) -> Result<Span, E> {
                Ok(Span::Seconds(v))
            }

            fn visit_i64<E>(self, v: i64) -> Result<Span, E> {
                Ok(Span::Seconds(v as f64))
            }

            fn visit_u64<E>(self, v: u64) -> Result<Span, E> {
                Ok(Span::Seconds(v as f64))
            }

            fn visit_str<E>(self, v: &str) -> Result<Span, E> {
                Ok(Span::Text(v.to_string()))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// A duration written with Russian units, as the program writes them (`5 мин`, `2 с`, `1 ч
/// 30 мин`, `200 мс`, `1 сут`), in the units `humantime` reads.
fn in_latin_units(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        let unit_at = word
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(word.len());
        let (number, unit) = word.split_at(unit_at);
        let unit = match unit {
            "мс" => "ms",
            "с" | "сек" => "s",
            "мин" => "min",
            "ч" => "h",
            "сут" | "д" => "d",
            other => other,
        };
        out.push_str(number);
        out.push_str(unit);
        out.push(' ');
    }
    out.trim_end().to_string()
}

pub(super) fn span(value: &Span) -> Result<Duration, String> {
    let bad = |text: String| {
        both(
            format!("{text} is not a duration (seconds, or e.g. \"200ms\", \"2s\", \"5m\")"),
            format!("{text} — не длительность (секунды или, например, \"200ms\", \"2s\", \"5m\")"),
        )
    };
    let seconds = match value {
        Span::Seconds(s) => *s,
        Span::Text(text) => {
            let text = text.trim();
            match text.parse::<f64>() {
                Ok(seconds) => seconds,
                Err(_) => humantime::parse_duration(&in_latin_units(text))
                    .map_err(|_| bad(format!("{text:?}")))?
                    .as_secs_f64(),
            }
        }
    };
    if seconds.is_finite() && seconds > 86_400.0 {
        let said = clientbank_diagnostic::duration(Duration::from_secs_f64(seconds));
        return Err(both(
            format!("{said} is more than a day (at most \"24h\")"),
            format!("{} — больше суток (не больше \"24h\")", said.ru()),
        ));
    }
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(bad(format!("{seconds}")));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// A value serde read but this setting refuses, said in both languages (see [`both`]).
fn refuse<E: serde::de::Error>(en: impl std::fmt::Display, ru: impl std::fmt::Display) -> E {
    E::custom(both(en, ru))
}

impl<'de> Deserialize<'de> for Days {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Days, D::Error> {
        let days = i64::deserialize(d)?;
        match u32::try_from(days) {
            Ok(days @ 1..=366) => Ok(Days(days)),
            _ => Err(refuse(
                format!("days: {days}: from 1 to 366"),
                format!("days: {days}: от 1 до 366"),
            )),
        }
    }
}

impl<'de> Deserialize<'de> for StatementEncoding {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<StatementEncoding, D::Error> {
        let name = String::deserialize(d)?;
        // The format crate reads the names, as it reads `Кодировка=`.
        clientbank_format::Encoding::from_label(&name)
            .map(|(encoding, _)| StatementEncoding(encoding))
            .ok_or_else(|| {
                refuse(
                    format!("encoding: {name:?}: expected \"windows\", \"dos\" or \"utf-8\""),
                    format!("encoding: {name:?}: ожидается \"windows\", \"dos\" или \"utf-8\""),
                )
            })
    }
}

impl<'de> Deserialize<'de> for OutboxName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<OutboxName, D::Error> {
        let name = String::deserialize(d)?;
        if name.is_empty() || name.contains(['/', '\\', ':']) || name.starts_with('.') {
            return Err(refuse(
                format!("file: {name:?}: a file name in outbox/, without a folder"),
                format!("file: {name:?}: имя файла в outbox/, без папки"),
            ));
        }
        Ok(OutboxName(name))
    }
}

impl<'de> Deserialize<'de> for Patterns {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Patterns, D::Error> {
        let patterns = Vec::<String>::deserialize(d)?;
        if patterns.iter().all(|p| p.trim().is_empty()) {
            return Err(refuse(
                "patterns: at least one pattern (e.g. [\"*.txt\", \"*.json\"])",
                "patterns: нужен хотя бы один шаблон (например [\"*.txt\", \"*.json\"])",
            ));
        }
        Ok(Patterns(patterns))
    }
}

/// How the daemon logs (`log_format`, `--log-format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// Lines for people: local time, plain words, in the run's language.
    #[default]
    Text,
    /// One JSON object per line (UTC, fields).
    Json,
}

impl LogFormat {
    /// `text` or `json`, as the file and the flag write it.
    pub fn as_str(self) -> &'static str {
        match self {
            LogFormat::Text => "text",
            LogFormat::Json => "json",
        }
    }
}

impl std::str::FromStr for LogFormat {
    type Err = String;

    /// `text` or `json`; anything else says so in both languages (see [`both`]).
    fn from_str(text: &str) -> Result<LogFormat, String> {
        match text {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(both(
                format!("log_format: {other:?}: expected \"text\" or \"json\""),
                format!("log_format: {other:?}: ожидается \"text\" или \"json\""),
            )),
        }
    }
}

impl<'de> Deserialize<'de> for LogFormat {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LogFormat, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

impl<'de, const MIN_MS: u64> Deserialize<'de> for Wait<MIN_MS> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Span::deserialize(d)?;
        let duration = span(&value).map_err(serde::de::Error::custom)?;
        let least = Duration::from_millis(MIN_MS);
        if duration < least {
            let (duration, least) = (
                clientbank_diagnostic::duration(duration),
                clientbank_diagnostic::duration(least),
            );
            return Err(refuse(
                format!("{duration} is too short: at least {least}"),
                format!("{} — слишком мало: не меньше {}", duration.ru(), least.ru()),
            ));
        }
        Ok(Wait(duration))
    }
}

/// The names the inbox takes: globs where `*` and `?` are the wildcards (brackets and braces
/// are taken as they are), matched without regard to case (`A.TXT` is `*.txt`).
#[derive(Clone, Debug)]
pub struct InboxNames {
    patterns: Vec<String>,
    set: globset::GlobSet,
}

impl InboxNames {
    /// The names of `patterns`.
    pub fn new(patterns: Vec<String>) -> Result<InboxNames, String> {
        let mut set = globset::GlobSetBuilder::new();
        for pattern in &patterns {
            // Brackets and braces are not wildcards here: each is a class of itself.
            let literal: String = pattern
                .chars()
                .map(|c| match c {
                    '[' | ']' | '{' | '}' => format!("[{c}]"),
                    c => c.to_string(),
                })
                .collect();
            let glob = globset::GlobBuilder::new(&literal)
                .case_insensitive(true)
                .literal_separator(true)
                .build()
                .map_err(|e| format!("patterns: {pattern:?}: {e}"))?;
            set.add(glob);
        }
        let set = set.build().map_err(|e| format!("patterns: {e}"))?;
        Ok(InboxNames { patterns, set })
    }

    /// Whether `name` matches one of the patterns.
    pub fn matches(&self, name: &str) -> bool {
        self.set.is_match(name)
    }

    /// The patterns, as configured.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }
}

impl Default for InboxNames {
    fn default() -> InboxNames {
        InboxNames::new(vec!["*.txt".into(), "*.json".into()]).expect("the default patterns")
    }
}

/// A signer: an argv list with `{input}` and `{output}` placeholders (no shell), written
/// `{ command = [...] }` or as the list alone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SignerConfig {
    /// The program and its arguments.
    pub command: Vec<String>,
}

impl<'de> Deserialize<'de> for SignerConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SignerConfig, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            command: Vec<String>,
        }
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = SignerConfig;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a signer command: a list of strings, or { command = [...] }")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<Self::Value, A::Error> {
                let command = Vec::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
                Ok(SignerConfig { command })
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Self::Value, A::Error> {
                let table = Table::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(SignerConfig {
                    command: table.command,
                })
            }
        }
        d.deserialize_any(Visitor)
    }
}
