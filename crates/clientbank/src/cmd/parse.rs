//! `clientbank parse FILE [--json | --json-lines]`: the file as the format crate sees it.
//!
//! The output is streamed section by section through a buffered writer; `--json` serialises
//! each section's fields straight from the bytes, the file scanned once for its findings and
//! its documents rebuilt one at a time from what the scan kept of their lines (no tree: a
//! document is gone once it is written).

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::sync::OnceLock;

use clientbank_format::{
    Diagnostic, DiagnosticJson, Encoding, Key, Parsed, Scan, ScannedDocument, SectionKind,
    SectionRef,
};
use clientbank_payment::json::write_escaped;
use clientbank_payment::onec::PAYMENT_ORDER;
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

/// `[["Key", "value"], …]`, one field at a time: each key and value turned into the inside of
/// a JSON string in one reused buffer, escaped as serde_json escapes a string — in one pass
/// through [`JsonTable`] for a single-byte encoding. `text` is that buffer, lent from one
/// section to the next (so that it is not grown again for each).
fn write_fields(
    out: &mut impl Write,
    section: &SectionRef<'_>,
    text: &mut Vec<u8>,
) -> io::Result<()> {
    let encoding = section.encoding();
    let table = JsonTable::of(encoding);
    text.clear();
    let mut scratch = [0u8; SCRATCH];
    let mut string = |text: &mut Vec<u8>, bytes: &[u8]| match table {
        Some(table) => table.write(bytes, text, &mut scratch),
        // A UTF-8 file: its bytes are their text (borrowed; the reader refuses invalid UTF-8,
        // and any there would become U+FFFD as in decoding).
        None => write_escaped(text, String::from_utf8_lossy(bytes).as_bytes()),
    };
    text.push(b'[');
    for (i, (known, key, value, _)) in section.raw_fields().enumerate() {
        text.extend_from_slice(if i > 0 { b", [\"" } else { b"[\"" });
        match spelled_name(known, key, encoding) {
            // A key spelled as the format spells it: its name is its JSON text.
            Some(name) => text.extend_from_slice(name.as_bytes()),
            None => string(text, key),
        }
        text.extend_from_slice(b"\",\"");
        string(text, value);
        text.extend_from_slice(b"\"]");
        // A section of very many fields is written as it goes, not held whole.
        if text.len() >= 1 << 16 {
            out.write_all(text)?;
            text.clear();
        }
    }
    text.push(b']');
    out.write_all(text)
}

/// The name of the format's key `known` when `key`, its bytes as written in `encoding`, spell
/// it exactly (then the name is their text, with nothing to decode).
fn spelled_name(known: Option<Key>, key: &[u8], encoding: Encoding) -> Option<&'static str> {
    known
        .filter(|known| known.bytes(encoding) == key)
        .map(Key::name)
}

/// For each byte of a single-byte encoding, the inside of a JSON string that holds its
/// character: its UTF-8, or its escape as serde_json writes it (`"`, `\\`, control
/// characters); built once per encoding from [`Encoding::utf8_into`] and [`write_escaped`].
struct JsonTable([([u8; 8], usize); 256]);

/// The buffer [`JsonTable::write`] writes 64 bytes of input through: six bytes of output at
/// most for each, and room for the last entry's eight.
const SCRATCH: usize = 64 * 6 + 8;

impl JsonTable {
    /// The table of `encoding`; `None` for UTF-8 (not one byte a character).
    fn of(encoding: Encoding) -> Option<&'static JsonTable> {
        static TABLES: [OnceLock<JsonTable>; 2] = [OnceLock::new(), OnceLock::new()];
        let slot = match encoding {
            Encoding::Cp1251 => &TABLES[0],
            Encoding::Cp866 => &TABLES[1],
            Encoding::Utf8 => return None,
        };
        Some(slot.get_or_init(|| {
            let mut table = [([0u8; 8], 0); 256];
            for (byte, entry) in (0..=255u8).zip(table.iter_mut()) {
                let mut utf8 = Vec::new();
                encoding.utf8_into(&[byte], &mut utf8);
                let mut text = Vec::new();
                write_escaped(&mut text, &utf8);
                entry.0[..text.len()].copy_from_slice(&text);
                entry.1 = text.len();
            }
            JsonTable(table)
        }))
    }

    /// The inside of the JSON string of `bytes` onto the end of `out`: the ASCII it starts
    /// with that JSON holds as it stands copied eight bytes at a time, the rest 64 bytes at a
    /// time through `buf` (eight bytes written per byte, the next written after its length).
    fn write(&self, bytes: &[u8], out: &mut Vec<u8>, buf: &mut [u8; SCRATCH]) {
        let plain = bytes
            .chunks_exact(8)
            .take_while(|word| {
                let mut eight = [0u8; 8];
                eight.copy_from_slice(word);
                is_plain(u64::from_le_bytes(eight))
            })
            .count()
            * 8;
        let (plain, bytes) = bytes.split_at(plain);
        out.extend_from_slice(plain);
        for chunk in bytes.chunks(64) {
            let mut n = 0;
            for &b in chunk {
                let (text, len) = &self.0[usize::from(b)];
                buf[n..n + 8].copy_from_slice(text);
                n += len;
            }
            out.extend_from_slice(&buf[..n]);
        }
    }
}

/// Whether eight bytes are all ASCII that a JSON string holds as it stands, in every encoding
/// [`JsonTable`] serves: none at 0x80 or above, below 0x20, `"` or `\`.
fn is_plain(word: u64) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // A byte below `n` ≤ 0x80 (a zero byte: below 1) sets a high bit of the word.
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    (word | below(word, 0x20) | below(quote, 1) | below(backslash, 1)) & HIGHS == 0
}

/// The whole `--json` object of a file that was scanned (`bytes` are the bytes scanned).
fn write_json(out: &mut impl Write, bytes: &[u8], scan: &Scan) -> io::Result<()> {
    let Some(header) = scan.header(bytes) else {
        return Err(io::Error::other("the scan is not of these bytes"));
    };
    writeln!(
        out,
        "{{\n  \"encoding\": {},\n  \"version\": {},",
        json!(encoding_name(scan.encoding())),
        json!(header.get(Key::FormatVersion))
    )?;
    out.write_all(b"  \"header\": ")?;
    let mut text = Vec::new();
    write_fields(out, &header, &mut text)?;
    out.write_all(b",\n  \"accounts\": ")?;
    write_array(out, "    ", scan.accounts(bytes), |out, account| {
        write!(out, "{{\"line\": {}, \"fields\": ", account.line())?;
        write_fields(out, &account, &mut text)?;
        out.write_all(b"}")
    })?;
    out.write_all(b",\n  \"documents\": ")?;
    write_documents(out, bytes, scan)?;
    out.write_all(b",\n  \"diagnostics\": ")?;
    write_array(out, "    ", scan.diagnostics(), |out, d| {
        serde_json::to_writer(&mut *out, &d.to_json(crate::term::lang())).map_err(io::Error::from)
    })?;
    out.write_all(b"\n}\n")
}

/// The `"documents"` array, its text made by two threads while this one writes it: each
/// rebuilds and writes every other chunk of documents (skipping the other's without rebuilding
/// them, so that no document moves between threads); the texts are written in order, and
/// their buffers go back to be filled again. A few chunks are held at most.
fn write_documents(out: &mut impl Write, bytes: &[u8], scan: &Scan) -> io::Result<()> {
    const CHUNK: usize = 256;
    use std::sync::mpsc::sync_channel;
    let made_here = std::thread::scope(|scope| {
        let mut texts = Vec::new();
        let mut spares = Vec::new();
        let mut refused = false;
        for turn in 0..2 {
            let (made, text) = sync_channel(2);
            let (back, spare) = sync_channel::<Vec<u8>>(4);
            texts.push(text);
            spares.push(back);
            let mut documents = scan.documents(bytes);
            let spawned = clientbank_diagnostic::threads::spawn_scoped(scope, move || {
                for chunk in 0usize.. {
                    if chunk % 2 != turn {
                        if documents.nth(CHUNK - 1).is_none() {
                            break;
                        }
                        continue;
                    }
                    let read: Vec<_> = documents.by_ref().take(CHUNK).collect();
                    if read.is_empty() {
                        break;
                    }
                    let mut parts = Parts {
                        text: Parts::spare(&spare),
                        made: &made,
                        spare: &spare,
                    };
                    let written = documents_text(&read, chunk == 0, &mut parts);
                    let last = written.map(|()| (parts.text, true));
                    // The writer stopped (its receivers are gone).
                    if made.send(last).is_err() {
                        break;
                    }
                }
            });
            refused |= spawned.is_none();
        }
        if refused {
            // A thread could not be had: none writes (the other stops at its first text,
            // which no one takes), and this one writes them all.
            return Ok::<bool, io::Error>(true);
        }
        // The first thread's chunk, the second's, the first's, …, each in its parts: the
        // first to end ends it.
        let mut any = false;
        'chunks: loop {
            for (text, back) in texts.iter().zip(&spares) {
                loop {
                    let Ok(part) = text.recv() else {
                        break 'chunks;
                    };
                    let (text, last) = part?;
                    out.write_all(&text)?;
                    let _ = back.try_send(text);
                    any = true;
                    if last {
                        break;
                    }
                }
            }
        }
        out.write_all(if any { b"\n  ]" } else { b"[]" })?;
        Ok(false)
    })?;
    if made_here {
        let mut documents = scan.documents(bytes);
        let mut any = false;
        loop {
            let read: Vec<_> = documents.by_ref().take(CHUNK).collect();
            if read.is_empty() {
                break;
            }
            documents_text(&read, !any, out)?;
            any = true;
        }
        out.write_all(if any { b"\n  ]" } else { b"[]" })?;
    }
    Ok(())
}

/// The text of a chunk of documents, sent to the writer in parts of about [`Parts::SIZE`]
/// (the last one with the chunk's end): a document of a million fields is not held whole.
struct Parts<'a> {
    text: Vec<u8>,
    made: &'a std::sync::mpsc::SyncSender<io::Result<(Vec<u8>, bool)>>,
    /// Texts the writer gives back, to write the next parts into.
    spare: &'a std::sync::mpsc::Receiver<Vec<u8>>,
}

impl Parts<'_> {
    const SIZE: usize = 1 << 20;

    /// A text given back, emptied, or a new one.
    fn spare(spare: &std::sync::mpsc::Receiver<Vec<u8>>) -> Vec<u8> {
        let mut text = spare.try_recv().unwrap_or_default();
        text.clear();
        text
    }
}

impl Write for Parts<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.text.extend_from_slice(bytes);
        if self.text.len() >= Parts::SIZE {
            let part = std::mem::replace(&mut self.text, Parts::spare(self.spare));
            self.made
                .send(Ok((part, false)))
                .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes `documents` as elements of the `"documents"` array (each after its separator), the
/// array's first ones when `first`.
fn documents_text(
    documents: &[ScannedDocument<'_>],
    first: bool,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut text = Vec::new();
    for (i, document) in documents.iter().enumerate() {
        out.write_all(if first && i == 0 {
            b"[\n    "
        } else {
            b",\n    "
        })?;
        let document = document.view();
        out.write_all(b"{\"type\": ")?;
        if document.document_type_is(PAYMENT_ORDER) {
            // The type of most documents, told without decoding it (its JSON is its text).
            out.write_all(b"\"")?;
            out.write_all(PAYMENT_ORDER.as_bytes())?;
            out.write_all(b"\"")?;
        } else {
            serde_json::to_writer(&mut *out, &document.document_type())?;
        }
        write!(out, ", \"line\": {}, \"fields\": ", document.line())?;
        write_fields(out, &document, &mut text)?;
        out.write_all(b"}")?;
    }
    Ok(())
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
    let mut text = Vec::new();
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
        write_listing(out, &section, &mut text)?;
    }
    Ok(())
}

/// A section's `Key=Value` lines for `parse`, one a line: ` ?` for a key that is not the
/// format's, the line number right-aligned in five places, the key and value as written.
/// Written as UTF-8 straight from the bytes into `text` (lent from section to section), with
/// no `String` and no formatting of each line.
fn write_listing(
    out: &mut impl Write,
    section: &SectionRef<'_>,
    text: &mut Vec<u8>,
) -> io::Result<()> {
    let encoding = section.encoding();
    text.clear();
    for (known, key, value, line) in section.raw_fields() {
        text.extend_from_slice(if known.is_some() { b"  " } else { b" ?" });
        push_right_aligned(text, line, 5);
        text.extend_from_slice(b"  ");
        match spelled_name(known, key, encoding) {
            Some(name) => text.extend_from_slice(name.as_bytes()),
            None => encoding.utf8_into(key, text),
        }
        text.push(b'=');
        encoding.utf8_into(value, text);
        text.push(b'\n');
        // A section of very many lines is written as it goes, not held whole.
        if text.len() >= 1 << 16 {
            out.write_all(text)?;
            text.clear();
        }
    }
    out.write_all(text)
}

/// `number` right-aligned in `width` places (wider when it has more digits), as `{:>width$}`.
fn push_right_aligned(out: &mut Vec<u8>, number: u32, width: usize) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut rest = number;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let digits = &digits[at..];
    out.extend(std::iter::repeat_n(
        b' ',
        width.saturating_sub(digits.len()),
    ));
    out.extend_from_slice(digits);
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
    if mode == Mode::Json {
        return run_json(args);
    }
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
            input.report_unreadable(why);
            return Ok(Outcome::Unreadable);
        }
    };
    let errors = parsed.diagnostics.iter().any(|d| d.is_error());
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    // `--json` went to `run_json`.
    if mode == Mode::JsonLines {
        crate::view::write_lines(&mut out, parsed)?;
    } else {
        write_text(&mut out, &input, parsed)?;
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

/// `parse --json`: the file is scanned (its findings, header and account sections), then its
/// documents are rebuilt and written one at a time; refused input is shown as
/// [`run`] shows it.
fn run_json(args: &Args) -> Result<Outcome, Failure> {
    let bytes = match crate::io::read(&args.file, &indicatif::ProgressBar::hidden()) {
        Ok(bytes) => bytes,
        Err(e) => {
            let input = Input::unreadable(&args.file, e);
            if let Err(why) = &input.read {
                input.report_unreadable(why);
            }
            return Ok(Outcome::Unreadable);
        }
    };
    let scan = match clientbank_format::scan(&bytes) {
        Ok(scan) => scan,
        Err(refused) => {
            let input = Input::refused(&args.file, refused, bytes);
            if let Err(why) = &input.read
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
                input.report_unreadable(why);
            }
            return Ok(Outcome::Unreadable);
        }
    };
    let errors = scan.diagnostics().iter().any(Diagnostic::is_error);
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    write_json(&mut out, &bytes, &scan)?;
    out.flush()?;
    Ok(if errors {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

#[cfg(test)]
mod tests {
    use clientbank_format::{Encoding, Key};

    /// `bytes` as [`super::JsonTable::write`] writes them in `encoding`, and as serde_json does.
    fn both(encoding: Encoding, bytes: &[u8]) -> (String, String) {
        let table = super::JsonTable::of(encoding).unwrap();
        let mut ours = b"\"".to_vec();
        table.write(bytes, &mut ours, &mut [0; super::SCRATCH]);
        ours.push(b'"');
        (
            String::from_utf8(ours).unwrap(),
            serde_json::to_string(&encoding.decode(bytes)).unwrap(),
        )
    }

    #[test]
    fn json_table_writes_what_serde_json_writes() {
        let bytes: Vec<u8> = (0..=255u8).collect();
        for encoding in [Encoding::Cp1251, Encoding::Cp866] {
            let (ours, serde) = both(encoding, &bytes);
            assert_eq!(ours, serde);
            // Each byte as eight: taken as it stands exactly when the table writes it so.
            for b in 0..=255u8 {
                let entry = super::JsonTable::of(encoding).unwrap().0[usize::from(b)];
                let itself = entry.1 == 1 && entry.0[0] == b;
                assert!(
                    !super::is_plain(u64::from_ne_bytes([b; 8])) || itself,
                    "{b:#04x}"
                );
                if b.is_ascii() && !b.is_ascii_control() && b != b'"' && b != b'\\' {
                    assert!(super::is_plain(u64::from_ne_bytes([b; 8])), "{b:#04x}");
                }
            }
        }
        assert!(super::JsonTable::of(Encoding::Utf8).is_none());
    }

    /// A key spelled as the format spells it is written as its name, and a payment order's
    /// type as its text: which JSON holds as they stand.
    #[test]
    fn a_key_name_is_its_own_json_text() {
        let order = clientbank_payment::onec::PAYMENT_ORDER;
        assert_eq!(
            serde_json::to_string(order).unwrap(),
            format!("\"{order}\"")
        );
        for &key in Key::ALL {
            assert_eq!(
                serde_json::to_string(key.name()).unwrap(),
                format!("\"{}\"", key.name())
            );
        }
    }

    #[test]
    fn a_number_is_right_aligned_as_formatting_aligns_it() {
        let mut numbers = vec![
            0, 1, 9, 10, 99, 100, 9_999, 10_000, 99_999, 100_000, 1_234_567,
        ];
        numbers.extend([u32::MAX - 1, u32::MAX]);
        for number in numbers {
            for width in [0, 1, 5, 12] {
                let mut ours = Vec::new();
                super::push_right_aligned(&mut ours, number, width);
                assert_eq!(
                    String::from_utf8(ours).unwrap(),
                    format!("{number:>width$}")
                );
            }
        }
    }

    proptest::proptest! {
        /// Any bytes, mostly plain ASCII with a byte that is not at any place, are written as
        /// serde_json writes their text.
        #[test]
        fn json_table_writes_any_bytes_as_serde_json(
            encoding in 0..2usize,
            plain in proptest::collection::vec(0x20..0x7Fu8, 0..40),
            other in proptest::option::of((0..40usize, proptest::prelude::any::<u8>())),
        ) {
            let encoding = [Encoding::Cp1251, Encoding::Cp866][encoding];
            let mut bytes = plain;
            if let Some((at, byte)) = other {
                bytes.insert(at.min(bytes.len()), byte);
            }
            let (ours, serde) = both(encoding, &bytes);
            proptest::prop_assert_eq!(ours, serde);
        }
    }
}
