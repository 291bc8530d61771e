//! `clientbank check FILE... [--strict] [--json]`: the format's findings and the payment rules'
//! findings of every file (1C or JSON upload requests), and an exit code.
//!
//! A file with account sections is a statement (the bank's record): only what is wrong with
//! its data is reported, not advice for a payment being prepared, and the output says so (a
//! line for people, `"mode": "statement"` in JSON; `"orders"` for everything else).
//!
//! Each file is read by the batch layer (`clientbank_payment::batch`); each finding is
//! rendered (or serialised, with `--json`) as it is produced, through one buffered writer: no report is held, and rendering costs the length of the finding's line.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clientbank_format::{Encoding, Renderer};
use clientbank_payment::Context;
use clientbank_payment::batch::{Batch, Form};

use crate::cli::{JsonArgs, Mode, parse_day};
use crate::exit::{Failure, Outcome};
use crate::output::{encoding_name, io_diagnostic};
use crate::report::{self, Checked, FileOut};

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The files: 1C exchange files or JSON upload requests (`-` reads standard input).
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,
    /// Every finding is an error, as 1C's own loader would treat it.
    #[arg(long)]
    pub(crate) strict: bool,
    #[command(flatten)]
    pub(crate) json: JsonArgs,
    /// Check dates as of this day (ДД.ММ.ГГГГ or YYYY-MM-DD) instead of today in Moscow.
    #[arg(long, value_parser = parse_day)]
    pub(crate) today: Option<NaiveDate>,
}

/// One file, read by the batch layer: the reader's findings, then each payment's (one
/// finding per defect, at most `LIMIT_PER_CODE` of a code), as they are produced.
fn check_file<W: Write>(
    out: &mut W,
    mode: Mode,
    strict: bool,
    path: &Path,
    bytes: Vec<u8>,
    context: &Context,
    progress: &indicatif::ProgressBar,
) -> io::Result<(Outcome, usize, usize)> {
    let name = crate::io::shown(path);
    let lang = crate::term::lang();
    match Batch::read(bytes, context) {
        Ok(batch) => {
            let batch = batch.strict(strict);
            let encoding = batch.encoding().map_or("utf-8", encoding_name);
            let renderer = batch.renderer(&name).lang(lang);
            let checked = if batch.form() == Form::Statement {
                Checked::Statement
            } else {
                Checked::Orders
            };
            let mut file =
                FileOut::for_check(out, mode, name.clone(), Some(encoding), true, Some(checked))?;
            // The bar runs over the bytes twice: read, then checked item by item.
            let (start, size) = (progress.position(), batch.bytes().len() as u64);
            let count = batch.item_count().max(1) as u64;
            let bar = progress.clone();
            let advance = move |read: usize| bar.set_position(start + size * read as u64 / count);
            batch
                .findings_with_progress(advance)
                .made_ahead(|findings| -> io::Result<()> {
                    for diagnostic in findings {
                        file.diagnostic(&diagnostic, &renderer)?;
                    }
                    Ok(())
                })?;
            progress.set_position(start + size);
            file.finish()
        }
        Err(refusal) => {
            // A refusal stays an error whatever `--strict` says.
            let encoding = match refusal.form() {
                Form::Json => Some("utf-8"),
                _ => refusal.encoding.map(encoding_name),
            };
            let renderer = Renderer::new(
                &name,
                refusal.bytes(),
                refusal.encoding.map(Encoding::as_source),
            )
            .lang(lang);
            let mut file = FileOut::for_check(out, mode, name.clone(), encoding, false, None)?;
            file.refusal(&refusal.diagnostic, &renderer)?;
            file.finish()
        }
    }
}

pub(crate) fn run(args: &Args) -> Result<Outcome, Failure> {
    let (files, strict, mode) = (&args.files, args.strict, args.json.mode());
    if let Some(message) = crate::io::stdin_twice(files) {
        crate::term::error(&message);
        return Ok(Outcome::Unreadable);
    }
    let context = args
        .today
        .map_or_else(Context::today_in_moscow, Context::as_of);
    let mut outcome = Outcome::Clean;
    let (mut errors, mut warnings) = (0, 0);
    let progress = crate::term::progress(
        files
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| 2 * m.len())
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
            Ok(bytes) => check_file(&mut out, mode, strict, path, bytes, &context, &progress)?,
            Err(e) => {
                let name = crate::io::shown(path);
                let mut file = FileOut::for_check(&mut out, mode, name, None, false, None)?;
                file.io_error(&io_diagnostic(path, &e))?;
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
