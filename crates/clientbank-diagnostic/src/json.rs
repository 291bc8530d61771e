//! The JSON form of a finding: a plain serde struct, the same members for every finding.

use serde::Serialize;

use crate::{Diagnostic, Lang};

/// One finding as JSON. Every member is always there (`null` when it does not apply), except
/// `file` (only in JSON Lines, where each line stands alone) and `omitted` (only on a summary
/// of findings past the per-code limit). Keys and codes never change with the language; only
/// `message` and `expected` are in the language asked for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DiagnosticJson<'a> {
    /// The file, in JSON Lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<&'a str>,
    /// `error` or `warning`.
    pub severity: &'static str,
    /// The stable code.
    pub code: &'static str,
    /// 1-based line.
    pub line: Option<u32>,
    /// 1-based column, in characters.
    pub column: Option<u32>,
    /// The 1C key.
    pub key: Option<&'a str>,
    /// The 1-based position of the payment among the input's payments.
    pub payment: Option<u32>,
    /// That payment's document number, as written.
    pub number: Option<&'a str>,
    /// The field's name in the JSON upload request.
    pub field: Option<&'static str>,
    /// The message.
    pub message: &'a str,
    /// What was found.
    pub found: Option<&'a str>,
    /// What was expected.
    pub expected: Option<&'a str>,
    /// Byte offset of the span's start in the input.
    pub byte_offset: Option<usize>,
    /// How many findings a summary stands for.
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Diagnostic {
    /// The JSON form, with the texts in `lang`.
    pub fn to_json(&self, lang: Lang) -> DiagnosticJson<'_> {
        DiagnosticJson {
            file: None,
            severity: self.severity.as_str(),
            code: self.code.as_str(),
            line: self.line,
            column: self.column,
            key: self.key.as_deref(),
            payment: self.payment,
            number: self.number.as_deref(),
            field: self.field,
            message: self.message.get(lang),
            found: self.found.as_deref(),
            expected: self.expected.as_ref().map(|e| e.get(lang)),
            byte_offset: self.span.as_ref().map(|s| s.start),
            omitted: self.omitted,
        }
    }
}

impl<'a> DiagnosticJson<'a> {
    /// With the file it is about (for JSON Lines).
    pub fn with_file(mut self, file: &'a str) -> DiagnosticJson<'a> {
        self.file = Some(file);
        self
    }
}

#[cfg(test)]
mod tests {
    use crate::{Code, Diagnostic, Lang, Message};

    #[test]
    fn every_member_is_there_in_both_languages() {
        let d = Diagnostic::new(Code::InvalidSum, Message::new("bad sum", "неверная сумма"))
            .at(10..14, 2, 7)
            .key("Сумма")
            .found("1,50")
            .expected(Message::new("rubles", "рубли"));
        let en = serde_json::to_string(&d.to_json(Lang::En)).unwrap();
        assert_eq!(
            en,
            r#"{"severity":"error","code":"invalid-sum","line":2,"column":7,"key":"Сумма","payment":null,"number":null,"field":null,"message":"bad sum","found":"1,50","expected":"rubles","byte_offset":10}"#
        );
        let ru = serde_json::to_value(d.to_json(Lang::Ru).with_file("a.txt")).unwrap();
        assert_eq!(ru["message"], "неверная сумма");
        assert_eq!(ru["expected"], "рубли");
        assert_eq!(ru["code"], "invalid-sum");
        assert_eq!(ru["file"], "a.txt");
    }
}
