//! Reading input files and showing findings, for people and as JSON.
//!
//! Output is streamed: each finding is rendered (or serialised) when it is written, through a
//! buffered writer; no command holds a whole report.

use std::io::{self, Write};
use std::path::Path;

use clientbank_format::{
    Code, Diagnostic, Encoding, Message, Parsed, Refused, Renderer, parse_owned,
};

/// One input file as read: what the reader made of it (a parsed tree holds the bytes).
pub(crate) struct Input {
    pub(crate) path: String,
    /// The bytes when the reader refused them, to show where.
    refused_bytes: Vec<u8>,
    pub(crate) read: Result<Parsed, Unreadable>,
}

/// Why a file could not be read at all.
pub(crate) enum Unreadable {
    Io(io::Error),
    Refused(Refused),
}

impl Input {
    pub(crate) fn load(path: &Path) -> Input {
        match crate::io::read(path, &indicatif::ProgressBar::hidden()) {
            Ok(bytes) => Input::from_bytes(path, bytes),
            Err(e) => Input::unreadable(path, e),
        }
    }

    /// A file that could not be read.
    pub(crate) fn unreadable(path: &Path, e: io::Error) -> Input {
        Input {
            path: crate::io::shown(path),
            refused_bytes: Vec::new(),
            read: Err(Unreadable::Io(e)),
        }
    }

    /// A file the reader refused, with its bytes (to show where).
    pub(crate) fn refused(path: &Path, refused: Refused, bytes: Vec<u8>) -> Input {
        Input {
            path: crate::io::shown(path),
            refused_bytes: bytes,
            read: Err(Unreadable::Refused(refused)),
        }
    }

    /// A 1C file already read (the bytes are not copied).
    pub(crate) fn from_bytes(path: &Path, bytes: Vec<u8>) -> Input {
        let path = crate::io::shown(path);
        match parse_owned(bytes) {
            Ok(parsed) => Input {
                path,
                refused_bytes: Vec::new(),
                read: Ok(parsed),
            },
            Err((refused, bytes)) => Input {
                path,
                refused_bytes: bytes,
                read: Err(Unreadable::Refused(refused)),
            },
        }
    }

    fn bytes(&self) -> &[u8] {
        match &self.read {
            Ok(parsed) => parsed.tree.source(),
            Err(_) => &self.refused_bytes,
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
        Renderer::new(
            &self.path,
            self.bytes(),
            self.encoding().map(Encoding::as_source),
        )
        .lang(crate::term::lang())
    }

    /// Writes the reason a file is unreadable to stderr, for people.
    pub(crate) fn report_unreadable(&self, why: &Unreadable) {
        match why {
            Unreadable::Io(e) => crate::term::error(&crate::term::tr(
                format!("cannot read {}: {e}", self.path),
                format!(
                    "не удалось прочитать {}: {}",
                    self.path,
                    clientbank_diagnostic::os::Ru(e)
                ),
            )),
            Unreadable::Refused(r) => {
                let text = self.renderer().render(&r.diagnostic);
                let text = crate::term::paint(&text, crate::term::Stream::Err);
                let _ = std::io::stderr().lock().write_all(text.as_bytes());
            }
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

/// The finding about a file that cannot be read (`io`), for the report.
pub(crate) fn io_diagnostic(path: &Path, e: &io::Error) -> Diagnostic {
    let shown = crate::io::shown(path);
    Diagnostic::new(
        Code::Io,
        Message::new(
            format!("cannot read {shown}: {e}"),
            format!(
                "не удалось прочитать {shown}: {}",
                clientbank_diagnostic::os::Ru(e)
            ),
        ),
    )
}

/// Writes `items` as the members of a JSON array, one per line, each as it comes; `indent`
/// is put before each. Writes `[]` for none.
pub(crate) fn write_array<W: Write, T>(
    out: &mut W,
    indent: &str,
    items: impl IntoIterator<Item = T>,
    mut write: impl FnMut(&mut W, T) -> io::Result<()>,
) -> io::Result<()> {
    let mut first = true;
    for item in items {
        out.write_all(if first { b"[\n" } else { b",\n" })?;
        out.write_all(indent.as_bytes())?;
        first = false;
        write(out, item)?;
    }
    if first {
        out.write_all(b"[]")
    } else {
        write!(out, "\n{}]", &indent[..indent.len().saturating_sub(2)])
    }
}

/// One JSON value on stdout, pretty-printed, through a buffered writer.
pub(crate) fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use serde_json::{Value, json};

    use super::*;

    /// A writer whose bytes the test can look at while writing goes on.
    #[derive(Clone, Default)]
    struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn an_array_is_written_member_by_member() {
        let written = Shared::default();
        let seen = written.clone();
        // Each member is made only after the one before was written: nothing is held.
        let members = (0..3).inspect(|&i| {
            if i > 0 {
                let text = String::from_utf8(seen.0.borrow().clone()).unwrap();
                assert!(text.ends_with(&format!("{{\"n\":{}}}", i - 1)), "{text}");
            }
        });
        let mut out = written.clone();
        write_array(&mut out, "    ", members, |out, i| {
            serde_json::to_writer(out, &json!({"n": i})).map_err(io::Error::from)
        })
        .unwrap();
        let text = String::from_utf8(written.0.borrow().clone()).unwrap();
        assert_eq!(
            text,
            "[\n    {\"n\":0},\n    {\"n\":1},\n    {\"n\":2}\n  ]"
        );
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value.as_array().map(Vec::len), Some(3));
        let mut empty = Vec::new();
        write_array(&mut empty, "    ", 0..0, |_, _: i32| Ok(())).unwrap();
        assert_eq!(empty, b"[]");
    }
}
