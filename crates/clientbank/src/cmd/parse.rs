//! `clientbank parse FILE [--json]`: the file as the format crate sees it.

use std::io::{self, Write};
use std::path::Path;

use clientbank_format::{Key, SectionKind, SectionRef};
use serde_json::{Value, json};

use crate::exit::{Failure, Outcome};
use crate::output::{Input, Unreadable, diagnostic_json, encoding_name, print_json};

fn fields_json(section: &SectionRef<'_>) -> Value {
    section.fields().map(|f| json!([f.key, f.value])).collect()
}

pub(crate) fn run(path: &Path, json: bool) -> Result<Outcome, Failure> {
    let input = Input::load(path);
    let parsed = match &input.read {
        Ok(parsed) => parsed,
        Err(why) => {
            if json && let Unreadable::Refused(r) = why {
                print_json(&json!({
                    "encoding": input.encoding().map(encoding_name),
                    "version": null,
                    "header": [], "accounts": [], "documents": [],
                    "diagnostics": [diagnostic_json(&r.diagnostic)],
                }))?;
            }
            input.report_unreadable(why);
            return Ok(Outcome::Unreadable);
        }
    };
    let tree = &parsed.tree;
    let errors = parsed.diagnostics.iter().any(|d| d.is_error());
    if json {
        let accounts: Vec<Value> = tree
            .accounts()
            .map(|a| json!({"line": a.line(), "fields": fields_json(&a)}))
            .collect();
        let documents: Vec<Value> = tree
            .documents()
            .map(
                |d| json!({"type": d.document_type(), "line": d.line(), "fields": fields_json(&d)}),
            )
            .collect();
        print_json(&json!({
            "encoding": encoding_name(tree.encoding()),
            "version": tree.header().get(Key::FormatVersion),
            "header": fields_json(&tree.header()),
            "accounts": accounts,
            "documents": documents,
            "diagnostics": parsed.diagnostics.iter().map(diagnostic_json).collect::<Vec<_>>(),
        }))?;
    } else {
        let mut out = io::stdout().lock();
        writeln!(
            out,
            "{}: {} ({:?}), version {}, {} account section(s), {} document(s)",
            input.path,
            tree.encoding(),
            tree.detection(),
            tree.version().unwrap_or("unknown"),
            tree.accounts().count(),
            tree.documents().count()
        )?;
        for section in tree.sections() {
            let title = match section.kind() {
                SectionKind::Header => "Header".to_string(),
                SectionKind::Account => "СекцияРасчСчет".to_string(),
                SectionKind::Document => format!(
                    "СекцияДокумент={}",
                    section.document_type().unwrap_or_default()
                ),
                SectionKind::End => continue,
            };
            writeln!(out, "\n{title} (line {})", section.line())?;
            for field in section.fields() {
                let mark = if field.known.is_some() { ' ' } else { '?' };
                writeln!(
                    out,
                    " {mark}{:>5}  {}={}",
                    field.line, field.key, field.value
                )?;
            }
        }
        drop(out);
        let renderer = input.renderer();
        for diagnostic in &parsed.diagnostics {
            eprint!("{}", renderer.render(diagnostic));
        }
    }
    Ok(if errors {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}
