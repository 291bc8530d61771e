//! Payment orders of an input file, validated: the glue between the format and payment crates
//! that `check` and `convert` share.

use std::time::{SystemTime, UNIX_EPOCH};

use chrono::NaiveDate;
use clientbank_format::{Encoding, Renderer, Severity, SyntaxTree};
use clientbank_payment::json::read_upload;
use clientbank_payment::{Code, Context, Finding, UploadRequest, onec, validate};
use serde_json::{Value, json};

/// Today in Moscow (UTC+3), the bank's day.
pub(crate) fn today_in_moscow() -> NaiveDate {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
        + 3 * 3600;
    let days = i64::try_from(seconds / 86_400).unwrap_or(0);
    NaiveDate::from_ymd_opt(1970, 1, 1)
        .and_then(|epoch| epoch.checked_add_signed(chrono::Duration::days(days)))
        .unwrap_or_default()
}

/// Whether the bytes are JSON (an upload request or an array of them) rather than a 1C file.
pub(crate) fn is_json(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    matches!(
        bytes.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// Validation findings of every payment order of a 1C file, located by line, handed to `each`
/// one document at a time (no list of every payment is held). A statement (a file with account
/// sections) is history: its dates are not checked against today.
pub(crate) fn validate_tree(
    tree: &SyntaxTree,
    today: NaiveDate,
    mut each: impl FnMut(Finding) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let context = tree_context(tree, today);
    for (index, section) in tree.documents().enumerate() {
        if !onec::is_payment_order(&section.document_type().unwrap_or_default()) {
            continue;
        }
        let order = onec::from_section(index, &section);
        let mut found = validate(&order.payment, &context);
        order.lines.locate(&mut found, Some(order.document));
        for finding in found {
            each(finding)?;
        }
    }
    Ok(())
}

/// The validation context of a 1C file's payment orders: a statement's dates are history.
pub(crate) fn tree_context(tree: &SyntaxTree, today: NaiveDate) -> Context {
    let statement = tree.accounts().next().is_some();
    Context {
        today: (!statement).then_some(today),
    }
}

/// A JSON input: its requests, and findings (each payment's reading and validation, located
/// by JSON line), for a 1C file in Windows-1251. A JSON that is not an upload at all is
/// refused with one finding.
pub(crate) fn read_json(
    bytes: &[u8],
    today: NaiveDate,
) -> Result<(Vec<UploadRequest>, Vec<Finding>), Finding> {
    read_json_in(bytes, today, Encoding::Cp1251)
}

/// [`read_json`] for a 1C file in `encoding`: characters it lacks are findings. Elements of
/// the upload that are not requests at all have their finding and no request.
pub(crate) fn read_json_in(
    bytes: &[u8],
    today: NaiveDate,
    encoding: Encoding,
) -> Result<(Vec<UploadRequest>, Vec<Finding>), Finding> {
    let read = read_upload(bytes)?;
    let context = Context { today: Some(today) };
    let mut findings = Vec::new();
    for (index, request) in read.iter().enumerate() {
        findings.extend(request.validate(index, &context, encoding));
    }
    let requests = read
        .into_iter()
        .filter(|r| r.readable)
        .map(|r| r.request)
        .collect();
    Ok((requests, findings))
}

/// Whether a finding is a character the 1C file cannot hold: such a file is not written.
pub(crate) fn unwritable(findings: &[Finding]) -> bool {
    findings
        .iter()
        .any(|f| matches!(f.code, Code::ControlCharacter | Code::Unrepresentable))
}

/// Makes every finding an error.
pub(crate) fn make_strict(findings: &mut [Finding]) {
    for finding in findings {
        finding.severity = Severity::Error;
    }
}

/// A payment finding as JSON, in the shape of the format's diagnostics plus `payment`,
/// `field` and `found`.
pub(crate) fn finding_json(finding: &Finding) -> Value {
    json!({
        "severity": finding.severity.as_str(),
        "code": finding.code.as_str(),
        "line": finding.line,
        "column": null,
        "key": finding.key.map(|k| k.name()),
        "field": finding.field.and_then(|f| f.json()),
        "payment": finding.payment.map(|p| p + 1),
        "found": finding.found,
        "message": finding.message,
    })
}

/// A payment finding for people: with the file's line when there is one.
pub(crate) fn render(finding: &Finding, path: &str, renderer: Option<&Renderer<'_>>) -> String {
    let head = format!(
        "{}[{}]: {}",
        finding.severity.as_str(),
        finding.code,
        finding.message
    );
    let mut out = match (finding.line, renderer) {
        (Some(line), Some(renderer)) => renderer.render_line(&head, line, None),
        (Some(line), None) => format!("{head}\n --> {path}:{line}\n"),
        (None, _) => format!("{head}\n --> {path}\n"),
    };
    if let Some(payment) = finding.payment {
        out.push_str(&format!("  = payment {}", payment + 1));
        let place = finding.place();
        if !place.is_empty() {
            out.push_str(&format!(", {place}"));
        }
        if let Some(found) = &finding.found {
            out.push_str(&format!(": found {found:?}"));
        }
        out.push('\n');
    }
    out
}
