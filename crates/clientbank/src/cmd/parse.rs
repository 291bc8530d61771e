//! `clientbank parse FILE [--json]`: the file as the format crate sees it.
//!
//! The output is streamed section by section through a buffered writer; `--json` serialises
//! each section's fields straight from the tree.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use clientbank_format::{DiagnosticJson, Key, Lang, Parsed, SectionKind, SectionRef};
use serde::Serialize;
use serde_json::json;

use crate::exit::{Failure, Outcome};
use crate::output::{Input, Unreadable, encoding_name, write_array};

/// `[["Key", "value"], …]`, one field at a time.
fn write_fields(out: &mut impl Write, section: &SectionRef<'_>) -> io::Result<()> {
    out.write_all(b"[")?;
    for (i, field) in section.fields().enumerate() {
        if i > 0 {
            out.write_all(b", ")?;
        }
        serde_json::to_writer(&mut *out, &(&*field.key, &*field.value))?;
    }
    out.write_all(b"]")
}

fn write_json(out: &mut impl Write, parsed: &Parsed, lang: Lang) -> io::Result<()> {
    let tree = &parsed.tree;
    writeln!(
        out,
        "{{\n  \"encoding\": {},\n  \"version\": {},",
        json!(encoding_name(tree.encoding())),
        json!(tree.header().get(Key::FormatVersion))
    )?;
    out.write_all(b"  \"header\": ")?;
    write_fields(out, &tree.header())?;
    out.write_all(b",\n  \"accounts\": ")?;
    write_array(out, "    ", tree.accounts(), |out, account| {
        write!(out, "{{\"line\": {}, \"fields\": ", account.line())?;
        write_fields(out, &account)?;
        out.write_all(b"}")
    })?;
    out.write_all(b",\n  \"documents\": ")?;
    write_array(out, "    ", tree.documents(), |out, document| {
        write!(
            out,
            "{{\"type\": {}, \"line\": {}, \"fields\": ",
            json!(document.document_type()),
            document.line()
        )?;
        write_fields(out, &document)?;
        out.write_all(b"}")
    })?;
    out.write_all(b",\n  \"diagnostics\": ")?;
    write_array(out, "    ", &parsed.diagnostics, |out, d| {
        serde_json::to_writer(&mut *out, &d.to_json(lang)).map_err(io::Error::from)
    })?;
    out.write_all(b"\n}\n")
}

fn write_text(out: &mut impl Write, input: &Input, parsed: &Parsed, lang: Lang) -> io::Result<()> {
    let tree = &parsed.tree;
    let (path, encoding, detection) = (&input.path, tree.encoding(), tree.detection());
    let (accounts, documents) = (tree.accounts().count(), tree.documents().count());
    match lang {
        Lang::Ru => writeln!(
            out,
            "{path}: {encoding} ({detection:?}), версия {}, секций расчётного счёта: {accounts}, \
             документов: {documents}",
            tree.version().unwrap_or("неизвестна"),
        )?,
        _ => writeln!(
            out,
            "{path}: {encoding} ({detection:?}), version {}, {accounts} account section(s), \
             {documents} document(s)",
            tree.version().unwrap_or("unknown"),
        )?,
    }
    let (header, line_word) = match lang {
        Lang::Ru => ("Заголовок", "строка"),
        _ => ("Header", "line"),
    };
    for section in tree.sections() {
        let title = match section.kind() {
            SectionKind::Header => header.to_string(),
            SectionKind::Account => "СекцияРасчСчет".to_string(),
            SectionKind::Document => format!(
                "СекцияДокумент={}",
                section.document_type().unwrap_or_default()
            ),
            SectionKind::End => continue,
        };
        writeln!(out, "\n{title} ({line_word} {})", section.line())?;
        for field in section.fields() {
            let mark = if field.known.is_some() { ' ' } else { '?' };
            writeln!(
                out,
                " {mark}{:>5}  {}={}",
                field.line, field.key, field.value
            )?;
        }
    }
    Ok(())
}

/// What `parse --json` prints for input the reader refuses: the same object, empty.
#[derive(Serialize)]
struct RefusedJson<'a> {
    encoding: Option<&'static str>,
    version: Option<&'static str>,
    header: [(); 0],
    accounts: [(); 0],
    documents: [(); 0],
    diagnostics: [DiagnosticJson<'a>; 1],
}

pub(crate) fn run(path: &Path, json: bool, lang: Lang) -> Result<Outcome, Failure> {
    let input = Input::load(path);
    let parsed = match &input.read {
        Ok(parsed) => parsed,
        Err(why) => {
            if json && let Unreadable::Refused(r) = why {
                let mut out = BufWriter::new(io::stdout().lock());
                serde_json::to_writer_pretty(
                    &mut out,
                    &RefusedJson {
                        encoding: input.encoding().map(encoding_name),
                        version: None,
                        header: [],
                        accounts: [],
                        documents: [],
                        diagnostics: [r.diagnostic.to_json(lang)],
                    },
                )
                .map_err(io::Error::from)?;
                writeln!(out)?;
                out.flush()?;
            }
            input.report_unreadable(why, lang);
            return Ok(Outcome::Unreadable);
        }
    };
    let errors = parsed.diagnostics.iter().any(|d| d.is_error());
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    if json {
        write_json(&mut out, parsed, lang)?;
    } else {
        write_text(&mut out, &input, parsed, lang)?;
    }
    out.flush()?;
    drop(out);
    if !json {
        let renderer = input.renderer(lang);
        let mut err = BufWriter::new(io::stderr().lock());
        for diagnostic in &parsed.diagnostics {
            err.write_all(renderer.render(diagnostic).as_bytes())?;
        }
        err.flush()?;
    }
    Ok(if errors {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}
