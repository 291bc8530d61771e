//! `parse`'s views that are not the one JSON object: the summary line for people and
//! `--json-lines`.
//!
//! `parse --json-lines` writes one JSON object per line, as the file is walked:
//! - `{"kind": "file", "encoding": E, "version": V}` first;
//! - `{"kind": "header", "line": L, "fields": [[K, V], …]}`;
//! - `{"kind": "account", "line": L, "fields": […]}` per account section;
//! - `{"kind": "document", "type": T, "line": L, "fields": […]}` per document;
//! - `{"kind": "diagnostic", <the members of a finding in --json>}` per finding.
//!
//! Input the reader refuses gives the `file` line and its one `diagnostic` line.

use std::io::{self, Write};

use clientbank_format::{Detection, Diagnostic, Encoding, Parsed, SectionRef};
use serde_json::json;

use crate::output::encoding_name;
use crate::term::tr;

/// `FILE: CP1251 (how it was told), version 1.03, N account section(s), M document(s)`.
pub(crate) fn summary(
    path: &str,
    encoding: Encoding,
    detection: Detection,
    version: Option<&str>,
    accounts: usize,
    documents: usize,
) -> String {
    let how = match detection {
        Detection::Utf8Content => tr("UTF-8 text", "текст в UTF-8"),
        Detection::SingleByteKeys => tr(
            "told by the keys it spells",
            "определена по написанию ключей",
        ),
        Detection::Ascii => tr(
            "ASCII only: as `Кодировка` says",
            "только ASCII: как указано в `Кодировка`",
        ),
        _ => tr("told by its content", "определена по содержимому"),
    };
    let version = version.map_or_else(|| tr("unknown", "неизвестна"), str::to_string);
    tr(
        format!(
            "{path}: {encoding} ({how}), version {version}, {accounts} account section(s), \
             {documents} document(s)"
        ),
        format!(
            "{path}: {encoding} ({how}), версия {version}, секций счёта: {accounts}, \
             документов: {documents}"
        ),
    )
}

fn fields(section: &SectionRef<'_>) -> Vec<(String, String)> {
    section
        .fields()
        .map(|f| (f.key.to_string(), f.value.to_string()))
        .collect()
}

/// One line, `kind` first (then the members in key order).
fn line(out: &mut impl Write, value: &serde_json::Value) -> io::Result<()> {
    let kind = value.get("kind").cloned().unwrap_or_default();
    crate::report::record(out, &[("kind", kind)], &mut value.clone())
}

/// The file as JSON Lines, section by section (one section's fields held at a time).
pub(crate) fn write_lines(out: &mut impl Write, parsed: &Parsed) -> io::Result<()> {
    let tree = &parsed.tree;
    line(
        out,
        &json!({"kind": "file", "encoding": encoding_name(tree.encoding()),
                "version": tree.header().get(clientbank_format::Key::FormatVersion)}),
    )?;
    let header = tree.header();
    line(
        out,
        &json!({"kind": "header", "line": header.line(), "fields": fields(&header)}),
    )?;
    for account in tree.accounts() {
        line(
            out,
            &json!({"kind": "account", "line": account.line(), "fields": fields(&account)}),
        )?;
    }
    for document in tree.documents() {
        line(
            out,
            &json!({"kind": "document", "type": document.document_type(),
                    "line": document.line(), "fields": fields(&document)}),
        )?;
    }
    for d in &parsed.diagnostics {
        diagnostic_line(out, d)?;
    }
    Ok(())
}

fn diagnostic_line(out: &mut impl Write, d: &Diagnostic) -> io::Result<()> {
    crate::report::diagnostic_record(out, d, None)
}

/// A refused file as JSON Lines.
pub(crate) fn refused_lines(
    out: &mut impl Write,
    encoding: Option<Encoding>,
    d: &Diagnostic,
) -> io::Result<()> {
    line(
        out,
        &json!({"kind": "file", "encoding": encoding.map(encoding_name), "version": null}),
    )?;
    diagnostic_line(out, d)
}
