//! `clientbank parse FILE [--json | --json-lines]`: the file as the format crate sees it.
//!
//! The output is streamed section by section through a buffered writer; `--json` serialises
//! each section's fields straight from the tree.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use clientbank_format::{DiagnosticJson, Key, Parsed, SectionKind, SectionRef};
use serde::Serialize;
use serde_json::json;

use crate::cli::{JsonArgs, Mode};
use crate::exit::{Failure, Outcome};
use crate::output::{Input, Unreadable, encoding_name, write_array};
use crate::term::tr;

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The exchange file (`-` reads standard input).
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) json: JsonArgs,
}

/// `[["Key", "value"], …]`, one field at a time: each key and value turned into UTF-8 in one
/// reused buffer and escaped as serde_json escapes a string.
fn write_fields(out: &mut impl Write, section: &SectionRef<'_>) -> io::Result<()> {
    let encoding = section.encoding();
    let mut text = Vec::new();
    out.write_all(b"[")?;
    for (i, (_, key, value, _)) in section.raw_fields().enumerate() {
        out.write_all(if i > 0 { b", [\"" } else { b"[\"" })?;
        text.clear();
        encoding.utf8_into(key, &mut text);
        write_escaped(out, &text)?;
        out.write_all(b"\",\"")?;
        text.clear();
        encoding.utf8_into(value, &mut text);
        write_escaped(out, &text)?;
        out.write_all(b"\"]")?;
    }
    out.write_all(b"]")
}

/// The inside of a JSON string (UTF-8 text), escaped exactly as `serde_json` escapes it: `"`,
/// `\\` and the control characters below U+0020 (the short forms where JSON has them, else
/// `\u00xx`).
fn write_escaped(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    // Most values need no escape: one pass without an early exit finds that out.
    let special = bytes.iter().fold(false, |any, &b| {
        any | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if !special {
        return out.write_all(bytes);
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        out.write_all(&bytes[start..i])?;
        match b {
            b'"' => out.write_all(b"\\\"")?,
            b'\\' => out.write_all(b"\\\\")?,
            b'\n' => out.write_all(b"\\n")?,
            b'\r' => out.write_all(b"\\r")?,
            b'\t' => out.write_all(b"\\t")?,
            0x08 => out.write_all(b"\\b")?,
            0x0C => out.write_all(b"\\f")?,
            _ => write!(out, "\\u{b:04x}")?,
        }
        start = i + 1;
    }
    out.write_all(&bytes[start..])
}

fn write_json(out: &mut impl Write, parsed: &Parsed) -> io::Result<()> {
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
        serde_json::to_writer(&mut *out, &d.to_json(crate::term::lang())).map_err(io::Error::from)
    })?;
    out.write_all(b"\n}\n")
}

fn write_text(out: &mut impl Write, input: &Input, parsed: &Parsed) -> io::Result<()> {
    let tree = &parsed.tree;
    writeln!(
        out,
        "{}",
        crate::view::summary(
            &input.path,
            tree.encoding(),
            tree.detection(),
            tree.version(),
            tree.accounts().count(),
            tree.documents().count()
        )
    )?;
    for section in tree.sections() {
        let title = match section.kind() {
            SectionKind::Header => tr("Header", "Заголовок"),
            SectionKind::Account => "СекцияРасчСчет".to_string(),
            SectionKind::Document => format!(
                "СекцияДокумент={}",
                section.document_type().unwrap_or_default()
            ),
            SectionKind::End => continue,
        };
        let line = tr("line", "строка");
        writeln!(out, "\n{title} ({line} {})", section.line())?;
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

pub(crate) fn run(args: &Args) -> Result<Outcome, Failure> {
    let mode = args.json.mode();
    let input = Input::load(&args.file);
    let parsed = match &input.read {
        Ok(parsed) => parsed,
        Err(why) => {
            if mode == Mode::JsonLines
                && let Unreadable::Refused(r) = why
            {
                let mut out = BufWriter::new(io::stdout().lock());
                crate::view::refused_lines(&mut out, input.encoding(), &r.diagnostic)?;
                out.flush()?;
            }
            if mode == Mode::Json
                && let Unreadable::Refused(r) = why
            {
                let mut out = BufWriter::new(io::stdout().lock());
                serde_json::to_writer_pretty(
                    &mut out,
                    &RefusedJson {
                        encoding: input.encoding().map(encoding_name),
                        version: None,
                        header: [],
                        accounts: [],
                        documents: [],
                        diagnostics: [r.diagnostic.to_json(crate::term::lang())],
                    },
                )
                .map_err(io::Error::from)?;
                writeln!(out)?;
                out.flush()?;
            }
            input.report_unreadable(why);
            return Ok(Outcome::Unreadable);
        }
    };
    let errors = parsed.diagnostics.iter().any(|d| d.is_error());
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match mode {
        Mode::Json => write_json(&mut out, parsed)?,
        Mode::JsonLines => crate::view::write_lines(&mut out, parsed)?,
        Mode::Text => write_text(&mut out, &input, parsed)?,
    }
    out.flush()?;
    drop(out);
    if mode == Mode::Text {
        let renderer = input.renderer();
        let mut err = BufWriter::new(io::stderr().lock());
        for diagnostic in &parsed.diagnostics {
            let text = renderer.render(diagnostic);
            err.write_all(crate::term::paint(&text, crate::term::Stream::Err).as_bytes())?;
        }
        err.flush()?;
    }
    Ok(if errors {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn escaped_as_serde_json_escapes() {
        let mut text: String = (0..0x100u32).filter_map(char::from_u32).collect();
        text.push_str("Назначение «№ 5» — \u{2028}\u{FFFD}");
        let mut ours = b"\"".to_vec();
        super::write_escaped(&mut ours, text.as_bytes()).unwrap();
        ours.push(b'"');
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            serde_json::to_string(&text).unwrap()
        );
    }
}
