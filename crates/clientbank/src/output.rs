//! Reading input files and showing findings, for people and as JSON.

use std::io::{self, Write};
use std::path::Path;

use clientbank_format::{Diagnostic, Encoding, Parsed, Refused, Renderer, parse};
use serde_json::{Value, json};

/// One input file as read: its bytes and what the reader made of them.
pub(crate) struct Input {
    pub(crate) path: String,
    pub(crate) bytes: Vec<u8>,
    pub(crate) read: Result<Parsed, Unreadable>,
}

/// Why a file could not be read at all.
pub(crate) enum Unreadable {
    Io(io::Error),
    Refused(Refused),
}

impl Input {
    pub(crate) fn load(path: &Path) -> Input {
        match std::fs::read(path) {
            Ok(bytes) => Input::from_bytes(path, bytes),
            Err(e) => Input {
                path: path.display().to_string(),
                bytes: Vec::new(),
                read: Err(Unreadable::Io(e)),
            },
        }
    }

    /// A 1C file already read.
    pub(crate) fn from_bytes(path: &Path, bytes: Vec<u8>) -> Input {
        let read = parse(&bytes[..]).map_err(Unreadable::Refused);
        Input {
            path: path.display().to_string(),
            bytes,
            read,
        }
    }

    pub(crate) fn encoding(&self) -> Option<Encoding> {
        match &self.read {
            Ok(parsed) => Some(parsed.tree.encoding()),
            Err(Unreadable::Refused(r)) => r.encoding,
            Err(Unreadable::Io(_)) => None,
        }
    }

    pub(crate) fn renderer(&self) -> Renderer<'_> {
        Renderer::new(&self.path, &self.bytes, self.encoding())
    }

    /// Writes the reason a file is unreadable to stderr, for people.
    pub(crate) fn report_unreadable(&self, why: &Unreadable) {
        match why {
            Unreadable::Io(e) => eprintln!("error: cannot read {}: {e}", self.path),
            Unreadable::Refused(r) => eprint!("{}", self.renderer().render(&r.diagnostic)),
        }
    }
}

/// The name of an encoding in JSON output.
pub(crate) fn encoding_name(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::Cp1251 => "cp1251",
        Encoding::Cp866 => "cp866",
        Encoding::Utf8 => "utf-8",
    }
}

/// One finding as JSON.
pub(crate) fn diagnostic_json(d: &Diagnostic) -> Value {
    json!({
        "severity": d.severity.as_str(),
        "code": d.code.as_str(),
        "line": d.line,
        "column": d.column,
        "key": d.key,
        "message": d.message,
        "found": d.found,
        "expected": d.expected,
        "byte_offset": d.span.start,
    })
}

pub(crate) fn print_json(value: &Value) -> io::Result<()> {
    let mut out = io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)
}
