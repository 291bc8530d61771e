//! The diagnostic value, the per-code limit, strict mode.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use crate::{Code, Lang, Message, Severity, tr};

/// One finding: what, how serious, where, and what to do about it.
///
/// Texts taken from the input (`found`, a key that is not the format's) are cut to
/// [`SHOWN_CHARS`] characters: a finding never holds a copy of a big value.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// What it is about.
    pub code: Code,
    /// How serious it is ([`make_strict`] makes every finding an error).
    pub severity: Severity,
    /// Byte range in the original input (a byte order mark included), when known.
    pub span: Option<Range<usize>>,
    /// 1-based line, when known.
    pub line: Option<u32>,
    /// 1-based column, in characters, when known.
    pub column: Option<u32>,
    /// The 1C key concerned, if any.
    pub key: Option<Cow<'static, str>>,
    /// The 1-based position of the payment among its input's payments (documents of a 1C
    /// file, requests of a JSON upload), when the finding is about one.
    pub payment: Option<u32>,
    /// That payment's document number (`Номер`, `Number`) as written, when it has one: what a
    /// person finds the payment by in the accounting software.
    pub number: Option<Box<str>>,
    /// The field's name in the bank's JSON upload request (`RecipientINN`), when the finding
    /// is about a field the JSON has.
    pub field: Option<&'static str>,
    /// What was found, as text.
    pub found: Option<Box<str>>,
    /// What was expected instead.
    pub expected: Option<Message>,
    /// One sentence for a person.
    pub message: Message,
    /// For a summary finding that stands for the findings of its code past the per-file limit
    /// ([`LIMIT_PER_CODE`]): how many it stands for; 0 for an ordinary finding.
    pub omitted: u32,
}

/// How many findings of one code a file keeps; the rest are counted into one summary finding
/// ("and K more `code` findings") at the end of the file's list.
pub const LIMIT_PER_CODE: usize = 1000;

/// How many characters of a text taken from the input (a value, a key) a finding keeps.
pub const SHOWN_CHARS: usize = 100;

/// `text` cut to [`SHOWN_CHARS`] characters, with `…` when it was longer.
pub fn short(text: &str) -> String {
    if text.len() <= SHOWN_CHARS {
        // No more characters than bytes: nothing to cut, nothing to count.
        return text.to_string();
    }
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

impl Diagnostic {
    /// A finding of `code` (with the code's severity) saying `message`, not located yet.
    pub fn new(code: Code, message: Message) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.severity(),
            span: None,
            line: None,
            column: None,
            key: None,
            payment: None,
            number: None,
            field: None,
            found: None,
            expected: None,
            message,
            omitted: 0,
        }
    }

    /// The summary of `omitted` findings of `code` past the per-file limit.
    pub fn summary(code: Code, omitted: u32) -> Diagnostic {
        let mut summary = Diagnostic::new(
            code,
            tr!(
                "and {omitted} more `{code}` finding(s) in this file, not shown (the first {LIMIT_PER_CODE} are)" ;
                "ещё замечаний `{code}` в этом файле: {omitted}, они не показаны (показаны первые {LIMIT_PER_CODE})"
            ),
        );
        summary.omitted = omitted;
        summary
    }

    /// How many findings this one counts for: 1, or for a summary the ones it stands for.
    pub fn count(&self) -> usize {
        if self.omitted > 0 {
            self.omitted as usize
        } else {
            1
        }
    }

    /// Located at byte range `span`, 1-based `line` and `column` (in characters).
    pub fn at(mut self, span: Range<usize>, line: u32, column: u32) -> Diagnostic {
        self.span = Some(span);
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    /// Located at 1-based `line` (column and span unknown).
    pub fn line(mut self, line: u32) -> Diagnostic {
        self.line = Some(line);
        self
    }

    /// About the 1C key `key` (a key taken from the input is cut short).
    pub fn key(mut self, key: impl Into<Cow<'static, str>>) -> Diagnostic {
        self.key = Some(match key.into() {
            Cow::Owned(key)
                if key.len() > SHOWN_CHARS && key.chars().nth(SHOWN_CHARS).is_some() =>
            {
                Cow::Owned(short(&key))
            }
            key => key,
        });
        self
    }

    /// About the JSON field `field`.
    pub fn field(mut self, field: &'static str) -> Diagnostic {
        self.field = Some(field);
        self
    }

    /// About payment `position` (1-based) of its input.
    pub fn payment(mut self, position: u32) -> Diagnostic {
        self.payment = Some(position);
        self
    }

    /// With the text found (cut short).
    pub fn found(mut self, found: impl AsRef<str>) -> Diagnostic {
        self.found = Some(short(found.as_ref()).into());
        self
    }

    /// With what was expected instead.
    pub fn expected(mut self, expected: Message) -> Diagnostic {
        self.expected = Some(expected);
        self
    }

    /// Whether this finding is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Where the finding is, for a person: the JSON field and the 1C key
    /// (`RecipientINN (ПолучательИНН)`), either alone, or nothing.
    pub fn place(&self) -> String {
        match (self.field, self.key.as_deref()) {
            (Some(field), Some(key)) => format!("{field} ({key})"),
            (Some(field), None) => field.to_string(),
            (None, Some(key)) => key.to_string(),
            (None, None) => String::new(),
        }
    }

    /// The message in `lang`.
    pub fn message(&self, lang: Lang) -> &str {
        self.message.get(lang)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.severity.as_str(), self.code)?;
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, " at line {line}, column {column}")?,
            (Some(line), None) => write!(f, " at line {line}")?,
            _ => {}
        }
        if let Some(payment) = self.payment {
            write!(f, ", payment {payment}")?;
        }
        let place = self.place();
        if !place.is_empty() {
            write!(f, " {place}")?;
        }
        write!(f, ": {}", self.message.en())?;
        if let Some(expected) = &self.expected {
            write!(f, " (expected {})", expected.en())?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// Makes every finding an error, as 1C's own loader would treat it.
pub fn make_strict(diagnostics: &mut [Diagnostic]) {
    for diagnostic in diagnostics {
        diagnostic.severity = Severity::Error;
    }
}

/// The per-code limit of one file's findings, for findings that come one at a time: the first
/// [`LIMIT_PER_CODE`] of each code pass, the rest are counted into one summary per code.
#[derive(Clone, Debug, Default)]
pub struct Limit {
    counts: Vec<u32>,
    first_omitted: Vec<Option<Diagnostic>>,
}

impl Limit {
    /// A limit with nothing counted.
    pub fn new() -> Limit {
        Limit {
            counts: vec![0; Code::ALL.len()],
            first_omitted: vec![None; Code::ALL.len()],
        }
    }

    /// The finding when it is within the limit of its code (a summary always is); `None` when
    /// it is past the limit, counted for its code's summary.
    pub fn admit(&mut self, diagnostic: Diagnostic) -> Option<Diagnostic> {
        if diagnostic.omitted > 0 {
            return Some(diagnostic);
        }
        if self.counts.is_empty() {
            *self = Limit::new();
        }
        let index = diagnostic.code as usize;
        self.counts[index] += 1;
        if self.counts[index] as usize <= LIMIT_PER_CODE {
            return Some(diagnostic);
        }
        self.first_omitted[index].get_or_insert(diagnostic);
        None
    }

    /// Counts a finding of `code` without taking it, when the code is past its limit already
    /// (its first omitted finding is kept): what [`Limit::admit`] would do with it, without
    /// moving it. False, and nothing counted, for a code within its limit.
    pub fn count_past(&mut self, code: Code) -> bool {
        let index = code as usize;
        let past = self.first_omitted.get(index).is_some_and(Option::is_some);
        if past {
            self.counts[index] += 1;
        }
        past
    }

    /// Counts `count` findings of `code` that were never made, because their maker knew them
    /// past the limit: they come after findings of the code that this limit has taken
    /// already, the first omitted one among them.
    pub fn count_unmade(&mut self, code: Code, count: u32) {
        if count == 0 {
            return;
        }
        let index = code as usize;
        debug_assert!(self.first_omitted.get(index).is_some_and(Option::is_some));
        if let Some(counted) = self.counts.get_mut(index) {
            *counted = counted.saturating_add(count);
        }
    }

    /// One summary for each code past the limit, located where its first omitted finding
    /// stood; the limit starts again.
    pub fn summaries(&mut self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for (index, first) in self.first_omitted.iter_mut().enumerate() {
            if let Some(first) = first.take() {
                let omitted = self.counts[index] - LIMIT_PER_CODE as u32;
                let mut summary = Diagnostic::summary(first.code, omitted);
                summary.severity = first.severity;
                summary.span = first.span;
                summary.line = first.line;
                summary.column = first.column;
                out.push(summary);
            }
        }
        self.counts.iter_mut().for_each(|c| *c = 0);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_is_small_and_holds_no_big_value() {
        assert!(std::mem::size_of::<Diagnostic>() <= 224);
        let big = "Ж".repeat(1 << 20);
        assert_eq!(short(&big).chars().count(), SHOWN_CHARS + 1);
        let d = Diagnostic::new(Code::UnknownKey, Message::same("x"))
            .key(big.clone())
            .found(&big);
        assert_eq!(d.key.unwrap().chars().count(), SHOWN_CHARS + 1);
        assert_eq!(d.found.unwrap().chars().count(), SHOWN_CHARS + 1);
        assert_eq!(short("abc"), "abc");
    }

    #[test]
    fn the_limit_keeps_the_first_of_each_code_and_summarises_the_rest() {
        let mut limit = Limit::new();
        let mut shown = 0;
        for i in 0..(LIMIT_PER_CODE as u32 + 5) {
            let d = Diagnostic::new(Code::DateStale, Message::same("x")).line(i + 1);
            shown += usize::from(limit.admit(d).is_some());
        }
        assert!(
            limit
                .admit(Diagnostic::new(Code::InnFormat, Message::same("y")))
                .is_some()
        );
        assert_eq!(shown, LIMIT_PER_CODE);
        let summaries = limit.summaries();
        assert_eq!(summaries.len(), 1);
        assert_eq!(summaries[0].omitted, 5);
        assert_eq!(summaries[0].count(), 5);
        assert_eq!(summaries[0].line, Some(LIMIT_PER_CODE as u32 + 1));
        assert!(
            summaries[0]
                .message(Lang::Ru)
                .contains("ещё замечаний `date-stale`")
        );
        assert!(limit.admit(summaries[0].clone()).is_some());
    }

    /// A finding counted without being taken adds to its code's summary once the code is past
    /// its limit, and is refused before.
    #[test]
    fn a_finding_past_the_limit_may_be_counted_without_being_taken() {
        let mut limit = Limit::new();
        let finding = |line| Diagnostic::new(Code::DateStale, Message::same("x")).line(line);
        assert!(!limit.count_past(Code::DateStale), "within the limit");
        for line in 1..=LIMIT_PER_CODE as u32 + 1 {
            limit.admit(finding(line));
        }
        assert!(limit.count_past(Code::DateStale));
        assert!(limit.count_past(Code::DateStale));
        assert!(!limit.count_past(Code::InnFormat), "another code");
        let summaries = limit.summaries();
        assert_eq!(summaries.len(), 1);
        assert_eq!(summaries[0].omitted, 3);
        assert_eq!(summaries[0].line, Some(LIMIT_PER_CODE as u32 + 1));
    }

    #[test]
    fn display_is_one_english_line() {
        let d = Diagnostic::new(Code::InnCheckDigit, Message::new("wrong", "неверно"))
            .line(24)
            .payment(1)
            .field("RecipientINN")
            .key("ПолучательИНН");
        assert_eq!(
            d.to_string(),
            "error[inn-check-digit] at line 24, payment 1 RecipientINN (ПолучательИНН): wrong"
        );
    }
}
