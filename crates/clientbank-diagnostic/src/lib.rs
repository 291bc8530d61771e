//! One diagnostic for the whole clientbank workspace.
//!
//! Every finding — of the 1C format reader, of the payment mapping and rules, of a JSON upload —
//! is a [`Diagnostic`]: a stable [`Code`] (one registry, so every code is unique by
//! construction), a [`Severity`], a location (byte span, line, column in characters, 1C key;
//! the payment and its JSON field where there is one), what was found and expected, and one
//! [`Message`] in Russian and English. People see it through the [`Renderer`] (the offending
//! line with a caret, on a line index built once); programs through its JSON form
//! ([`DiagnosticJson`], plain serde structs). Codes, JSON keys and exit codes never change with
//! the language.
//!
//! ```
//! use clientbank_diagnostic::{Code, Diagnostic, Lang, Message, Renderer};
//!
//! let bytes = "1CClientBankExchange\nДата=32.01.2024\n".as_bytes();
//! let diagnostic = Diagnostic::new(
//!     Code::InvalidDate,
//!     Message::new("`Дата` is not a valid date", "`Дата` — не дата"),
//! )
//! .at(30..40, 2, 6)
//! .expected(Message::new("ДД.ММ.ГГГГ", "ДД.ММ.ГГГГ"));
//! let text = Renderer::new("a.txt", bytes, None).lang(Lang::Ru).render(&diagnostic);
//! assert_eq!(
//!     text,
//!     "ошибка[invalid-date]: `Дата` — не дата\n --> a.txt:2:6\n  |\n2 | Дата=32.01.2024\n  |      ^^^^^^^^^^ ожидается ДД.ММ.ГГГГ\n"
//! );
//! let json = serde_json::to_value(diagnostic.to_json(Lang::En)).unwrap();
//! assert_eq!(json["code"], "invalid-date");
//! assert_eq!(json["column"], 6);
//! ```

#![warn(missing_docs)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

use std::borrow::Cow;
use std::fmt;

mod code;
mod diagnostic;
mod json;
pub mod os;
mod render;
pub mod threads;

pub use code::Code;
pub use diagnostic::{Diagnostic, LIMIT_PER_CODE, Limit, make_strict};
/// How the format and payment crates shorten a value they show; not part of the API.
#[doc(hidden)]
pub use diagnostic::{SHOWN_CHARS, short};
pub use json::DiagnosticJson;
pub use render::{Renderer, SourceText};

/// The language of the texts people read. Codes, JSON keys and exit codes do not change with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Russian.
    Ru,
}

impl Lang {
    /// The language of the locale: the first of `LC_ALL`, `LC_MESSAGES`, `LANG` that is set and
    /// not empty decides; `ru…` is Russian, anything else (or nothing) English.
    pub fn from_locale() -> Lang {
        let var = |name: &str| std::env::var(name).ok();
        Lang::from_locale_values(
            var("LC_ALL").as_deref(),
            var("LC_MESSAGES").as_deref(),
            var("LANG").as_deref(),
        )
    }

    /// [`Lang::from_locale`] on given values of `LC_ALL`, `LC_MESSAGES` and `LANG`.
    pub fn from_locale_values(
        lc_all: Option<&str>,
        lc_messages: Option<&str>,
        lang: Option<&str>,
    ) -> Lang {
        let chosen = [lc_all, lc_messages, lang]
            .into_iter()
            .flatten()
            .find(|v| !v.is_empty());
        match chosen {
            Some(value) if value.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("ru")) => Lang::Ru,
            _ => Lang::En,
        }
    }

    /// `en` or `ru`.
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ru => "ru",
        }
    }
}

impl std::str::FromStr for Lang {
    type Err = UnknownLang;

    /// `en` or `ru`, in any letter case.
    fn from_str(text: &str) -> Result<Lang, UnknownLang> {
        match text.trim().to_ascii_lowercase().as_str() {
            "en" => Ok(Lang::En),
            "ru" => Ok(Lang::Ru),
            _ => Err(UnknownLang(text.to_string())),
        }
    }
}

/// A language name that is neither `en` nor `ru`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLang(pub String);

impl fmt::Display for UnknownLang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not a language we speak: en or ru", self.0)
    }
}

impl std::error::Error for UnknownLang {}

/// A text for people, in both languages: each place that makes one states both once.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Message {
    en: Cow<'static, str>,
    ru: Cow<'static, str>,
}

impl Message {
    /// The English and the Russian text.
    pub fn new(en: impl Into<Cow<'static, str>>, ru: impl Into<Cow<'static, str>>) -> Message {
        Message {
            en: en.into(),
            ru: ru.into(),
        }
    }

    /// The same text in both languages (a value, a code, a number).
    pub fn same(text: impl Into<Cow<'static, str>>) -> Message {
        let text = text.into();
        Message {
            en: text.clone(),
            ru: text,
        }
    }

    /// The text in `lang`.
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Ru => &self.ru,
        }
    }

    /// The English text.
    pub fn en(&self) -> &str {
        &self.en
    }

    /// The Russian text.
    pub fn ru(&self) -> &str {
        &self.ru
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.en)
    }
}

/// A duration for people, in both languages: `300 ms`, `45 s`, `1.5 s`, `5 min`,
/// `1 h 30 min` (`5 мин`, `1 ч 30 мин` in Russian), never `Debug`'s `300s`.
///
/// ```
/// use std::time::Duration;
/// use clientbank_diagnostic::duration;
///
/// assert_eq!(duration(Duration::from_secs(300)).en(), "5 min");
/// assert_eq!(duration(Duration::from_secs(5430)).ru(), "1 ч 30 мин 30 с");
/// assert_eq!(duration(Duration::from_millis(1500)).ru(), "1,5 с");
/// ```
pub fn duration(d: std::time::Duration) -> Message {
    let ms = d.as_millis();
    if ms < 1000 {
        return Message::new(format!("{ms} ms"), format!("{ms} мс"));
    }
    if ms < 60_000 && !ms.is_multiple_of(1000) {
        let tenths = (ms + 50) / 100;
        let (whole, tenth) = (tenths / 10, tenths % 10);
        return if tenth == 0 {
            Message::new(format!("{whole} s"), format!("{whole} с"))
        } else {
            Message::new(format!("{whole}.{tenth} s"), format!("{whole},{tenth} с"))
        };
    }
    let seconds = d.as_secs();
    let parts = [
        (seconds / 86_400, "d", "сут"),
        (seconds % 86_400 / 3600, "h", "ч"),
        (seconds % 3600 / 60, "min", "мин"),
        (seconds % 60, "s", "с"),
    ];
    let mut en = Vec::new();
    let mut ru = Vec::new();
    for (n, unit_en, unit_ru) in parts.into_iter().filter(|(n, ..)| *n > 0) {
        en.push(format!("{n} {unit_en}"));
        ru.push(format!("{n} {unit_ru}"));
    }
    Message::new(en.join(" "), ru.join(" "))
}

/// A [`Message`] made with `format!` in each language:
/// `tr!("{n} keys" ; "ключей: {n}")`. A text with nothing to fill in is borrowed, not copied.
#[macro_export]
macro_rules! tr {
    ($($en:expr),+ ; $($ru:expr),+ $(,)?) => {
        $crate::Message::new(
            $crate::formatted(format_args!($($en),+)),
            $crate::formatted(format_args!($($ru),+)),
        )
    };
}

/// The text `args` make: the literal itself when there is nothing to fill in (no copy).
/// Written into room for a finding's sentence at once: `format!` guesses twice the literal
/// text's length, or nothing when the text starts with a value, and grows the string for the
/// values (a `realloc` or two per message).
#[doc(hidden)]
pub fn formatted(args: std::fmt::Arguments<'_>) -> Cow<'static, str> {
    use std::fmt::Write;
    /// Most messages fit: a Russian sentence of 80 letters with a value.
    const ROOM: usize = 192;
    match args.as_str() {
        Some(literal) => Cow::Borrowed(literal),
        None => {
            let mut text = String::with_capacity(ROOM);
            // Writing into a `String` fails only if a `Display` of a value does.
            let _ = text.write_fmt(args);
            Cow::Owned(text)
        }
    }
}

/// A log line in both languages: `say!(warn, message, file = %name)` logs the [`Message`]'s
/// English as the event's message (JSON logs, an English terminal) and its Russian in the field
/// `ru`, which the text log of a Russian terminal shows instead. The calling crate logs with
/// `tracing`; this crate does not depend on it.
#[macro_export]
macro_rules! say {
    ($level:ident, $message:expr $(, $($field:tt)+)?) => {{
        let said: &$crate::Message = &$message;
        ::tracing::$level!($($($field)+,)? ru = said.ru(), "{}", said.en())
    }};
}

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A deviation that real files contain and that is accepted; it does not fail a check.
    Warning,
    /// Something 1C or the bank would refuse; it fails a check (exit 1).
    Error,
}

impl Severity {
    /// `warning` or `error`: the stable name (JSON, codes).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// The word people read: `error`/`warning`, `ошибка`/`предупреждение`.
    pub fn word(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Severity::Warning, Lang::Ru) => "предупреждение",
            (Severity::Error, Lang::Ru) => "ошибка",
            (severity, _) => severity.as_str(),
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_locale_chooses_russian_for_ru_only() {
        let pick = Lang::from_locale_values;
        assert_eq!(pick(None, None, Some("ru_RU.UTF-8")), Lang::Ru);
        assert_eq!(pick(None, None, Some("RU")), Lang::Ru);
        assert_eq!(pick(None, None, Some("en_US.UTF-8")), Lang::En);
        assert_eq!(pick(None, None, None), Lang::En);
        assert_eq!(pick(None, None, Some("C")), Lang::En);
        // LC_ALL before LC_MESSAGES before LANG; an empty one does not count.
        assert_eq!(pick(Some("en_GB"), Some("ru_RU"), Some("ru_RU")), Lang::En);
        assert_eq!(pick(Some(""), Some("ru_RU"), Some("en_US")), Lang::Ru);
        assert_eq!(pick(None, Some(""), Some("ru_UA.KOI8-U")), Lang::Ru);
        assert_eq!("RU".parse::<Lang>(), Ok(Lang::Ru));
        assert!("de".parse::<Lang>().is_err());
    }

    /// Issue 19: durations read as people write them, in each language.
    #[test]
    fn a_duration_is_said_in_words() {
        use std::time::Duration;
        let said = |d: Duration| {
            let m = duration(d);
            (m.en().to_string(), m.ru().to_string())
        };
        let both = |en: &str, ru: &str| (en.to_string(), ru.to_string());
        assert_eq!(said(Duration::ZERO), both("0 ms", "0 мс"));
        assert_eq!(said(Duration::from_millis(200)), both("200 ms", "200 мс"));
        assert_eq!(said(Duration::from_secs(1)), both("1 s", "1 с"));
        assert_eq!(said(Duration::from_millis(2540)), both("2.5 s", "2,5 с"));
        assert_eq!(said(Duration::from_millis(59_990)), both("60 s", "60 с"));
        assert_eq!(said(Duration::from_secs(300)), both("5 min", "5 мин"));
        assert_eq!(
            said(Duration::from_secs(90)),
            both("1 min 30 s", "1 мин 30 с")
        );
        assert_eq!(said(Duration::from_secs(3600)), both("1 h", "1 ч"));
        assert_eq!(
            said(Duration::from_secs(86_400 + 61)),
            both("1 d 1 min 1 s", "1 сут 1 мин 1 с")
        );
    }

    #[test]
    fn a_message_has_both_texts() {
        let n = 3;
        let message = tr!("{n} keys" ; "ключей: {n}");
        assert_eq!(message.get(Lang::En), "3 keys");
        assert_eq!(message.get(Lang::Ru), "ключей: 3");
        assert_eq!(message.to_string(), "3 keys");
        assert_eq!(Severity::Error.word(Lang::Ru), "ошибка");
        assert_eq!(Severity::Warning.word(Lang::En), "warning");
    }
}
