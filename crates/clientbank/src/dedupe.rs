//! One defect, one finding: a value the format already found unreadable or empty
//! (`Сумма=1,50` is `invalid-sum`; `Сумма=` is `empty-value`) is not also a payment finding
//! about the same line (`missing`, `sum-not-positive`). The format's finding is kept, with the
//! higher of the two severities, so the exit code does not change.
//!
//! Only the documents that hold such a value are looked at beforehand; the rest of the file is
//! checked once, as it streams.

use std::collections::HashMap;

use clientbank_format::{Code as FormatCode, Diagnostic, Severity, SyntaxTree};
use clientbank_payment::{Context, Finding, onec, validate};

/// The format's codes about the form of one value: its line's payment findings are the same
/// defect.
fn is_value_code(code: FormatCode) -> bool {
    matches!(
        code,
        FormatCode::InvalidDate
            | FormatCode::InvalidTime
            | FormatCode::InvalidSum
            | FormatCode::InvalidInteger
            | FormatCode::EmptyValue
    )
}

/// The lines of a file whose value the format already reported, and the severity the payment
/// rules give the same defect there.
#[derive(Default)]
pub(crate) struct SameDefect {
    lines: HashMap<u32, Option<Severity>>,
}

impl SameDefect {
    /// Looks at the payment orders holding a value the format reported.
    pub(crate) fn new(
        tree: &SyntaxTree,
        diagnostics: &[Diagnostic],
        context: &Context,
    ) -> SameDefect {
        let mut lines: HashMap<u32, Option<Severity>> = diagnostics
            .iter()
            .filter(|d| is_value_code(d.code) && d.omitted == 0 && d.line > 0)
            .map(|d| (d.line, None))
            .collect();
        if lines.is_empty() {
            return SameDefect { lines };
        }
        let mut wanted: Vec<u32> = lines.keys().copied().collect();
        wanted.sort_unstable();
        let mut documents = tree.documents().enumerate().peekable();
        let mut next = wanted.into_iter().peekable();
        while let Some((index, section)) = documents.next() {
            let end = documents.peek().map_or(u32::MAX, |(_, s)| s.line());
            while next.peek().is_some_and(|&l| l < section.line()) {
                next.next();
            }
            if next.peek().is_none_or(|&l| l >= end) {
                continue;
            }
            while next.peek().is_some_and(|&l| l < end) {
                next.next();
            }
            if !onec::is_payment_order(&section.document_type().unwrap_or_default()) {
                continue;
            }
            let order = onec::from_section(index, &section);
            let mut found = validate(&order.payment, context);
            order.lines.locate(&mut found, Some(order.document));
            for finding in found {
                if let Some(line) = finding.line
                    && let Some(severity) = lines.get_mut(&line)
                {
                    *severity = Some(match (*severity, finding.severity) {
                        (Some(Severity::Error), _) | (_, Severity::Error) => Severity::Error,
                        _ => Severity::Warning,
                    });
                }
            }
        }
        SameDefect { lines }
    }

    /// The format's finding with the severity of the worse of the two.
    pub(crate) fn severity(&self, diagnostic: &Diagnostic) -> Severity {
        match self.lines.get(&diagnostic.line) {
            Some(Some(Severity::Error)) if is_value_code(diagnostic.code) => Severity::Error,
            _ => diagnostic.severity,
        }
    }

    /// Whether a payment finding is the format's finding again.
    pub(crate) fn repeats(&self, finding: &Finding) -> bool {
        finding.line.is_some_and(|l| self.lines.contains_key(&l))
    }
}
