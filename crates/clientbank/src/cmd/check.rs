//! `clientbank check FILE... [--strict] [--json]`: the format's findings and the payment rules'
//! findings of every file (1C or JSON upload requests), and an exit code.
//!
//! Each finding is rendered (or serialised, with `--json`) as it is written, through one
//! buffered writer: no report is held, and rendering costs the length of the finding's line.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use crate::cli::Mode;
use crate::dedupe::SameDefect;
use crate::exit::{Failure, Outcome};
use crate::output::{Input, Unreadable, encoding_name};
use crate::payments;
use crate::report::{self, FileOut};

fn check_exchange<W: Write>(
    out: &mut W,
    mode: Mode,
    strict: bool,
    path: &Path,
    bytes: Vec<u8>,
    today: NaiveDate,
) -> io::Result<(Outcome, usize, usize)> {
    let input = Input::from_bytes(path, bytes);
    let encoding = input.encoding().map(encoding_name);
    let renderer = input.renderer();
    let readable = input.read.is_ok();
    let mut file = FileOut::start(out, mode, strict, input.path.clone(), encoding, readable)?;
    match &input.read {
        Ok(parsed) => {
            let same = SameDefect::new(
                &parsed.tree,
                &parsed.diagnostics,
                &payments::tree_context(&parsed.tree, today),
            );
            for diagnostic in &parsed.diagnostics {
                file.diagnostic_as(diagnostic, same.severity(diagnostic), &renderer)?;
            }
            payments::validate_tree(&parsed.tree, today, |finding| {
                if same.repeats(&finding) {
                    return Ok(());
                }
                file.finding(finding, Some(&renderer))
            })?;
        }
        Err(Unreadable::Refused(refused)) => {
            // A refusal stays an error whatever `--strict` says.
            file.refusal(&refused.diagnostic, &renderer)?;
        }
        Err(Unreadable::Io(e)) => file.io_error(&crate::io::cannot_read(path, e))?,
    }
    file.finish()
}

fn check_json<W: Write>(
    out: &mut W,
    mode: Mode,
    strict: bool,
    path: &Path,
    bytes: &[u8],
    today: NaiveDate,
) -> io::Result<(Outcome, usize, usize)> {
    let name = crate::io::shown(path);
    match payments::read_json(bytes, today) {
        Ok((_, findings)) => {
            let mut file = FileOut::start(out, mode, strict, name, Some("utf-8"), true)?;
            for finding in findings {
                file.finding(finding, None)?;
            }
            file.finish()
        }
        Err(refused) => {
            crate::term::error(&format!("{name}: {}", refused.message));
            let mut file = FileOut::start(out, mode, strict, name, Some("utf-8"), false)?;
            file.finding(refused, None)?;
            file.finish()
        }
    }
}

pub(crate) fn run(
    files: &[PathBuf],
    strict: bool,
    mode: Mode,
    today: Option<NaiveDate>,
) -> Result<Outcome, Failure> {
    if let Some(message) = crate::io::stdin_twice(files) {
        crate::term::error(&message);
        return Ok(Outcome::Unreadable);
    }
    let today = today.unwrap_or_else(payments::today_in_moscow);
    let mut outcome = Outcome::Clean;
    let (mut errors, mut warnings) = (0, 0);
    let progress = crate::term::progress(
        files
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum(),
        io::stdout().is_terminal(),
        mode != Mode::Text,
    );
    progress.set_prefix(crate::term::tr("checking", "проверка"));
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    report::open(&mut out, mode)?;
    for (i, path) in files.iter().enumerate() {
        report::next_file(&mut out, mode, i)?;
        progress.set_message(crate::io::shown(path));
        let (file_outcome, file_errors, file_warnings) = match crate::io::read(path, &progress) {
            Ok(bytes) if payments::is_json(&bytes) => {
                check_json(&mut out, mode, strict, path, &bytes, today)?
            }
            Ok(bytes) => check_exchange(&mut out, mode, strict, path, bytes, today)?,
            Err(e) => {
                let name = crate::io::shown(path);
                let mut file = FileOut::start(&mut out, mode, strict, name, None, false)?;
                file.io_error(&crate::io::cannot_read(path, &e))?;
                file.finish()?
            }
        };
        outcome = outcome.max(file_outcome);
        errors += file_errors;
        warnings += file_warnings;
    }
    progress.finish_and_clear();
    report::close(&mut out, mode, files.len(), errors, warnings)?;
    out.flush()?;
    Ok(outcome)
}
