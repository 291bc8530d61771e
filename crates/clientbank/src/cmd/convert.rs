//! `clientbank convert FILE [--to json|1c] [-o OUT] [--encoding windows|dos|utf-8]`: 1C payment
//! orders to JSON upload requests, upload requests to a canonical 1.03 file, and a 1C file to
//! a canonical 1C file in another encoding.
//!
//! The input is read by the batch layer (`clientbank_payment::batch`): each document is mapped
//! and checked once, there. The conversion is faithful: what one side cannot carry is reported on stderr with its line,
//! never dropped silently. Validation findings are reported too, as `check` shows them (the
//! first 1,000 of a code, then a count of the rest); an error among them (or a
//! character the target encoding lacks) exits 1. The output is written unless the input is
//! unreadable or the file cannot be encoded.

use std::io::{self, Write};
use std::path::PathBuf;

use chrono::NaiveDate;
use clientbank_format::{Diagnostic, Encoding, Renderer, WriteError, WriteErrorKind};
use clientbank_payment::batch::{Batch, Form, Item, is_json};
use clientbank_payment::{Code, Context, UploadRequest, onec};

use crate::cli::{Mode, Target, TargetEncoding, parse_day};
use crate::exit::{Failure, Outcome};
use crate::io::{Pending, Sink};
use crate::output::io_diagnostic;
use crate::report::FileOut;
use crate::term::{self, tr};

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A 1C exchange file or a JSON file of upload requests (`-` reads standard input).
    pub(crate) file: PathBuf,
    /// What to write; by default the other format than the input's.
    #[arg(long, value_enum)]
    pub(crate) to: Option<Target>,
    /// Where to write (`-` or none: standard output). Never the input itself.
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// The encoding of a 1C file written.
    #[arg(long, value_enum, default_value = "windows")]
    pub(crate) encoding: TargetEncoding,
    /// Upload requests send the payments straight to signing (`targetStatus: InSigning`)
    /// instead of creating drafts.
    #[arg(long)]
    pub(crate) in_signing: bool,
    /// Check dates as of this day instead of today in Moscow.
    #[arg(long, value_parser = parse_day)]
    pub(crate) today: Option<NaiveDate>,
    /// The payer's requisites for JSON -> 1C (a TOML or JSON file: account, name, inn, kpp,
    /// bank, bik, corr_account), which the JSON requests do not carry.
    #[arg(long, value_name = "ACCOUNT-FILE")]
    pub(crate) payer_from: Option<PathBuf>,
    /// Findings on standard error as JSON Lines, one object per finding, then a summary.
    #[arg(long)]
    pub(crate) json: bool,
    /// Every finding is an error (exit 1).
    #[arg(long)]
    pub(crate) strict: bool,
    /// Write all the same: a file with errors (nothing is written of one otherwise), or
    /// CP1251 or CP866 bytes to a terminal.
    #[arg(long)]
    pub(crate) force: bool,
}

impl Args {
    fn encoding(&self) -> Encoding {
        self.encoding.into()
    }

    fn mode(&self) -> Mode {
        if self.json {
            Mode::JsonLines
        } else {
            Mode::Text
        }
    }
}

/// Findings on stderr, a document at a time (around the progress bar).
struct Findings {
    buffer: Vec<u8>,
    bar: indicatif::ProgressBar,
}

impl Findings {
    fn pass_on(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        let buffer = &self.buffer;
        self.bar.suspend(|| {
            let _ = io::stderr().lock().write_all(buffer);
        });
        self.buffer.clear();
    }
}

fn refuse(message: &str) -> Result<Outcome, Failure> {
    term::error(message);
    Ok(Outcome::Unreadable)
}

pub(crate) fn run(options: &Args) -> Result<Outcome, Failure> {
    let path = options.file.as_path();
    let payers = match payers(options) {
        Ok(payers) => payers,
        Err(message) => return refuse(&message),
    };
    let sink = Sink::new(options.output.as_deref());
    let bar = term::progress(0, sink.is_terminal(), false);
    bar.set_prefix(tr("reading", "чтение"));
    let bytes = match crate::io::read(path, &bar) {
        Ok(bytes) => bytes,
        Err(e) => return refuse(io_diagnostic(path, &e).message(term::lang())),
    };
    let from_json = is_json(&bytes);
    let to = match target(options, &sink, from_json) {
        Ok(to) => to,
        Err(message) => return refuse(&message),
    };
    let mut findings = Findings {
        buffer: Vec::new(),
        bar,
    };
    let context = options
        .today
        .map_or_else(Context::today_in_moscow, Context::as_of);
    let batch = Batch::read(bytes, &context);
    let input = Input {
        shown: crate::io::shown(path),
        options,
        payers: payers.as_deref(),
        sink: &sink,
    };
    let outcome = input.convert(batch, to, from_json, &mut findings);
    findings.bar.finish_and_clear();
    findings.pass_on();
    outcome
}

/// The payers of `--payer-from`; refused (why, for people): an output that is the input, a
/// payer file that cannot be read.
fn payers(options: &Args) -> Result<Option<Vec<crate::payer::Payer>>, String> {
    if let Some(output) = &options.output
        && let Some(message) = crate::io::same_as_input(&options.file, output)
    {
        return Err(message);
    }
    options
        .payer_from
        .as_deref()
        .map(crate::payer::load)
        .transpose()
}

/// What the input is converted to: `--to`, else the other format than the input's; refused
/// (why, for people): JSON to JSON, and CP1251 or CP866 bytes to a terminal without `--force`.
fn target(options: &Args, sink: &Sink, from_json: bool) -> Result<Target, String> {
    let to = options.to.unwrap_or(if from_json {
        Target::OneC
    } else {
        Target::Json
    });
    let encoding = options.encoding();
    if to == Target::OneC && encoding != Encoding::Utf8 && sink.is_terminal() && !options.force {
        return Err(tr(
            format!(
                "not writing {encoding} bytes to a terminal: give -o FILE, pipe the output, or \
                 add --force"
            ),
            format!(
                "байты {encoding} не выводятся на терминал: укажите -o ФАЙЛ, перенаправьте вывод \
                 или добавьте --force"
            ),
        ));
    }
    if from_json && to == Target::Json {
        let shown = crate::io::shown(&options.file);
        return Err(tr(
            format!(
                "{shown} is already JSON; convert goes from 1C to JSON, from JSON to 1C and \
                 from 1C to 1C"
            ),
            format!("{shown} уже в JSON; convert переводит 1С в JSON, JSON в 1С и 1С в 1С"),
        ));
    }
    Ok(to)
}

/// The input being converted: its name as shown, the options, the payers of `--payer-from`,
/// where the output goes.
struct Input<'a> {
    shown: String,
    options: &'a Args,
    payers: Option<&'a [crate::payer::Payer]>,
    sink: &'a Sink,
}

impl Input<'_> {
    /// The batch read (or the reader's refusal, said) converted to `to`.
    fn convert(
        &self,
        batch: Result<Batch, clientbank_payment::batch::Refusal>,
        to: Target,
        from_json: bool,
        findings: &mut Findings,
    ) -> Result<Outcome, Failure> {
        let (shown, options) = (&self.shown, self.options);
        let batch = match batch {
            Ok(batch) => batch.strict(options.strict),
            Err(refusal) => {
                let encoding = match refusal.form() {
                    Form::Json => Some(Encoding::Utf8),
                    _ => refusal.encoding,
                };
                let renderer = Renderer::new(
                    shown,
                    refusal.bytes(),
                    refusal.encoding.map(Encoding::as_source),
                )
                .lang(term::lang());
                let mut file = file_out(&mut findings.buffer, options, shown, encoding, false)?;
                file.refusal(&refusal.diagnostic, &renderer)?;
                return outcome_of(file);
            }
        };
        let encoding = options.encoding();
        match to {
            Target::Json => exchange_to_json(self, &batch, findings),
            Target::OneC if from_json => {
                json_to_exchange(self, &batch.with_encoding(encoding), findings)
            }
            Target::OneC => exchange_to_exchange(self, &batch.with_encoding(encoding), findings),
        }
    }
}

/// Where the findings of one input go.
fn file_out<'a>(
    buffer: &'a mut Vec<u8>,
    options: &Args,
    name: &str,
    encoding: Option<Encoding>,
    readable: bool,
) -> io::Result<FileOut<'a, Vec<u8>>> {
    Ok(FileOut::open(
        buffer,
        options.mode(),
        name.to_string(),
        encoding.map(crate::output::encoding_name),
        readable,
        None,
    )?
    .on_stderr())
}

fn outcome_of(file: FileOut<'_, Vec<u8>>) -> Result<Outcome, Failure> {
    Ok(file.finish()?.0)
}

/// 1C payment orders to a JSON array of upload requests, one document at a time: each
/// request is serialised in the thread that makes its item (formatted as
/// `serde_json::to_vec_pretty` formats the whole array) and written here in order; each
/// document's findings (and what the JSON route cannot carry) go to stderr as they are found.
fn exchange_to_json(
    input: &Input<'_>,
    batch: &Batch,
    findings: &mut Findings,
) -> Result<Outcome, Failure> {
    let (shown, options, sink) = (input.shown.as_str(), input.options, input.sink);
    let bar = findings.bar.clone();
    let mut file = file_out(&mut findings.buffer, options, shown, batch.encoding(), true)?;
    let renderer = batch.renderer(shown).lang(term::lang());
    // Nothing is written of a file with errors unless --force: a file output is made beside
    // its place and kept only at the end; standard output is held when the errors are known
    // beforehand.
    let hold = !options.force && matches!(sink, Sink::Stdout) && batch.has_errors();
    let mut out = sink.open_pending(hold)?;
    let documents = if batch.form() == Form::Json {
        0
    } else {
        batch.item_count()
    };
    bar.set_length(u64::try_from(documents).unwrap_or(0));
    bar.set_position(0);
    bar.set_prefix(tr("converting", "перевод"));
    let in_signing = options.in_signing;
    // Each request as an element of the array (one level in), without its comma.
    let serialise = |request: UploadRequest<&str>, text: &mut Vec<u8>| {
        text.extend_from_slice(b"  ");
        UploadRequest::of(request.payment, in_signing).write_pretty(1, text);
    };
    // One array, its elements written as their items come, a batch at a time; the first
    // failure to write stops the writing.
    let (mut array, mut written) = (Elements::default(), Ok(()));
    let each = |item: Item| {
        bar.inc(1);
        if let Some(text) = item.into_written()
            && written.is_ok()
        {
            written = array.push(text, &mut out);
        }
    };
    let conversion = batch.conversion(true, each).writing(serialise);
    conversion.made_ahead(|findings| -> io::Result<()> {
        for finding in findings {
            file.diagnostic(&finding, &renderer)?;
            // Findings go on in pieces of 64 KiB, not a write to stderr per finding.
            if file.writer().len() >= 1 << 16 {
                pass_on(&bar, file.writer());
            }
        }
        Ok(())
    })?;
    written?;
    array.write(&mut out)?;
    out.write_all(if array.count == 0 { b"[]\n" } else { b"\n]\n" })?;
    pass_on(&bar, file.writer());
    let outcome = file.finish()?.0;
    if outcome == Outcome::Findings && !options.force {
        findings.pass_on();
        not_written(shown);
        return Ok(outcome);
    }
    out.commit()?;
    Ok(outcome)
}

/// The elements of a JSON array waiting to be written, and how many were written before.
#[derive(Default)]
struct Elements {
    texts: Vec<Vec<u8>>,
    count: usize,
}

impl Elements {
    /// Elements written in one vectored write: the system copies them from where they were
    /// made, not first into a buffer. Two slices each: the `IOV_MAX` of Linux is 1024.
    const BATCH: usize = 500;

    fn push(&mut self, text: Vec<u8>, out: &mut impl Write) -> io::Result<()> {
        self.texts.push(text);
        if self.texts.len() < Self::BATCH {
            return Ok(());
        }
        self.write(out)
    }

    /// Writes the elements waiting, each after the array's opening or a comma.
    fn write(&mut self, out: &mut impl Write) -> io::Result<()> {
        let mut slices = Vec::with_capacity(2 * self.texts.len());
        for text in &self.texts {
            let opening: &[u8] = if self.count == 0 { b"[\n" } else { b",\n" };
            slices.extend([io::IoSlice::new(opening), io::IoSlice::new(text)]);
            self.count += 1;
        }
        let mut slices = &mut slices[..];
        while !slices.is_empty() {
            match out.write_vectored(slices) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => io::IoSlice::advance_slices(&mut slices, n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.texts.clear();
        Ok(())
    }
}

/// Says that nothing was written for `shown`'s errors.
fn not_written(shown: &str) {
    term::error(&tr(
        format!("{shown}: nothing written: it has errors (--force writes it all the same)"),
        format!("{shown}: ничего не записано: в нём есть ошибки (--force запишет всё равно)"),
    ));
}

fn pass_on(bar: &indicatif::ProgressBar, buffer: &mut Vec<u8>) {
    if buffer.is_empty() {
        return;
    }
    bar.suspend(|| {
        let _ = io::stderr().lock().write_all(buffer);
    });
    buffer.clear();
}

/// A 1C file written anew canonically (CRLF, 1C's key order) in the encoding asked for: the
/// way to re-encode a UTF-8 file for 1C. Its findings are the payment rules' (in the target
/// encoding) and the reader's errors; nothing is lost on the way, so there is no `not-carried`
/// or `not-a-payment-order`.
fn exchange_to_exchange(
    input: &Input<'_>,
    batch: &Batch,
    findings: &mut Findings,
) -> Result<Outcome, Failure> {
    let (shown, options, sink) = (input.shown.as_str(), input.options, input.sink);
    let mut file = file_out(&mut findings.buffer, options, shown, batch.encoding(), true)?;
    let renderer = batch.renderer(shown).lang(term::lang());
    // The file is written from the scan below: the items are not needed.
    for finding in batch.conversion_findings() {
        if !matches!(finding.code, Code::NotCarried | Code::NotAPaymentOrder) {
            file.diagnostic(&finding, &renderer)?;
        }
    }
    let (outcome, _, _) = file.finish()?;
    if outcome == Outcome::Findings && !options.force {
        findings.pass_on();
        not_written(shown);
        return Ok(outcome);
    }
    let encoding = options.encoding();
    let mut refused = |e: WriteError| {
        findings.pass_on();
        term::error(&tr(
            format!("{shown}: the 1C file is not written: {e}"),
            format!(
                "{shown}: файл 1С не записан: {}",
                clientbank_diagnostic::os::Ru(&e)
            ),
        ));
        Ok(Outcome::Findings)
    };
    let mut out = sink.open_pending(false)?;
    // Written a section at a time: a file is written beside its place and dropped on an
    // error; what is written as it goes (standard output, a pipe) is first written nowhere,
    // so that a value that cannot be written leaves nothing of the file behind there either.
    if !matches!(out, Pending::File(_))
        && let Some(Err(e)) = batch.write_exchange(encoding, io::sink())
    {
        return refused(e);
    }
    let mut kept = KeepsError {
        out: &mut out,
        error: None,
    };
    match batch.write_exchange(encoding, &mut kept) {
        None => Ok(outcome),
        Some(Ok(_)) => {
            out.commit()?;
            Ok(outcome)
        }
        // The output failed, not a value: as any output that fails, with its own error.
        Some(Err(WriteError {
            kind: WriteErrorKind::Io(kind, message),
            ..
        })) => Err((kept.error)
            .unwrap_or_else(|| io::Error::new(kind, message))
            .into()),
        Some(Err(e)) => refused(e),
    }
}

/// An output that keeps the first error it fails with: the writer gives back only its text
/// (in a [`WriteError`]), and the error itself, its cause and path, is what is said.
struct KeepsError<W> {
    out: W,
    error: Option<io::Error>,
}

impl<W: Write> KeepsError<W> {
    fn keep(&mut self, e: io::Error) -> io::Error {
        if e.kind() == io::ErrorKind::Interrupted {
            // Tried again by the writer: not a failure.
            return e;
        }
        let told = io::Error::new(e.kind(), e.to_string());
        self.error.get_or_insert(e);
        told
    }
}

impl<W: Write> Write for KeepsError<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.out.write(bytes).map_err(|e| self.keep(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush().map_err(|e| self.keep(e))
    }
}

/// JSON upload requests to a 1C file of payment orders, with the payer's requisites from
/// `--payer-from`.
fn json_to_exchange(
    input: &Input<'_>,
    batch: &Batch,
    findings: &mut Findings,
) -> Result<Outcome, Failure> {
    let (shown, options, sink) = (input.shown.as_str(), input.options, input.sink);
    let encoding = options.encoding();
    let mut file = file_out(
        &mut findings.buffer,
        options,
        shown,
        Some(Encoding::Utf8),
        true,
    )?;
    let renderer = batch.renderer(shown).lang(term::lang());
    let mut payments = Vec::new();
    // The line of each payment's request, to show the findings about the payment there.
    let mut lines = Vec::new();
    let mut unwritable = false;
    let each = |item: Item| {
        let line = item.line();
        if let Some(payment) = item.into_payment() {
            payments.push(payment);
            lines.push(line);
        }
    };
    for finding in batch.conversion(false, each) {
        unwritable |= is_unwritable(&finding);
        file.diagnostic(&finding, &renderer)?;
    }
    let mut found = crate::payer::fill(&mut payments, input.payers.unwrap_or_default());
    found.extend(crate::payer::recipient_banks(&mut payments));
    let (exchange, mapping) = onec::to_exchange(&payments, encoding);
    found.extend(mapping);
    for mut finding in found {
        unwritable |= is_unwritable(&finding);
        if finding.line.is_none()
            && let Some(index) = finding.payment.and_then(|p| p.checked_sub(1))
            && let Some(&line) = lines.get(index as usize)
        {
            finding.line = line;
        }
        if options.strict {
            finding.severity = clientbank_payment::Severity::Error;
        }
        file.diagnostic(&finding, &renderer)?;
    }
    let (outcome, _, _) = file.finish()?;
    findings.pass_on();
    if outcome == Outcome::Findings && !options.force && !unwritable {
        not_written(shown);
        return Ok(outcome);
    }
    if unwritable {
        term::error(&tr(
            format!("{shown}: the 1C file is not written: a value holds a character it cannot"),
            format!(
                "{shown}: файл 1С не записан: в значении есть символ, которого он не может хранить"
            ),
        ));
        return Ok(Outcome::Findings);
    }
    write_exchange(sink, exchange.to_bytes(encoding), outcome, |e| {
        tr(
            format!("{shown}: cannot write the 1C file: {e}"),
            format!(
                "{shown}: не удалось записать файл 1С: {}",
                clientbank_diagnostic::os::Ru(&e)
            ),
        )
    })
}

/// Writes the 1C file's bytes (`written`) to the output, ending as `outcome`; bytes that could
/// not be made are said (`said`: why, for people) and nothing is written (exit 1).
fn write_exchange<E>(
    sink: &Sink,
    written: Result<Vec<u8>, E>,
    outcome: Outcome,
    said: impl FnOnce(E) -> String,
) -> Result<Outcome, Failure> {
    match written {
        Ok(text) => {
            let mut out = sink.open()?;
            out.write_all(&text)?;
            out.flush()?;
            Ok(outcome)
        }
        Err(e) => {
            term::error(&said(e));
            Ok(Outcome::Findings)
        }
    }
}

/// Whether a finding is a character the 1C file cannot hold: such a file is not written.
fn is_unwritable(finding: &Diagnostic) -> bool {
    matches!(finding.code, Code::ControlCharacter | Code::Unrepresentable)
}

#[cfg(test)]
mod tests {
    use std::io::{self, IoSlice, Write};

    use super::{Elements, Encoding, KeepsError, WriteError, WriteErrorKind};

    /// A writer that takes at most a few bytes a call, is interrupted now and then, and stops
    /// taking anything after `room` bytes: a slow pipe, a signal, a full disk.
    struct Stingy {
        taken: Vec<u8>,
        calls: usize,
        room: usize,
    }

    impl Write for Stingy {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.write_vectored(&[IoSlice::new(buf)])
        }

        fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
            self.calls += 1;
            if self.calls.is_multiple_of(3) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let bytes: Vec<u8> = bufs.iter().flat_map(|b| b.iter().copied()).collect();
            let n = bytes.len().min(5).min(self.room - self.taken.len());
            self.taken.extend_from_slice(&bytes[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// The output's own error, not its text rebuilt: a 1C file written a section at a time
    /// into an output that fails (after a few interruptions) keeps the error it failed with.
    #[test]
    fn a_failing_output_keeps_its_own_error() {
        #[derive(Debug)]
        struct Full;
        impl std::fmt::Display for Full {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the disk is full")
            }
        }
        impl std::error::Error for Full {}
        struct Failing(usize);
        impl Write for Failing {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                self.0 += 1;
                match self.0 {
                    1 | 2 => Err(io::ErrorKind::Interrupted.into()),
                    3 => Ok(buf.len()),
                    _ => Err(io::Error::other(Full)),
                }
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let document =
            "СекцияДокумент=Платежное поручение\r\nНомер=1\r\nСвой=значение\r\nКонецДокумента\r\n";
        let text = format!(
            "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n{}КонецФайла\r\n",
            document.repeat(5000)
        );
        let bytes = Encoding::Cp1251.encode(&text).unwrap().into_owned();
        let scan = clientbank_format::scan(&bytes[..]).unwrap();
        let mut kept = KeepsError {
            out: Failing(0),
            error: None,
        };
        let written = scan.write_canonical(&bytes, Encoding::Cp1251, &mut kept);
        let Some(Err(WriteError {
            kind: WriteErrorKind::Io(kind, _),
            ..
        })) = written
        else {
            panic!(
                "the output's failure is not said: {:?}",
                written.map(|r| r.map(drop))
            );
        };
        assert_eq!(kind, io::ErrorKind::Other);
        let error = kept.error.expect("the error is kept");
        assert!(
            error.get_ref().is_some_and(|inner| inner.is::<Full>()),
            "{error:?}"
        );
    }

    /// Short and interrupted vectored writes still give every element once, in order, each
    /// after the array's opening or a comma; a writer that takes nothing more is an error, not
    /// a loop.
    #[test]
    fn elements_survive_short_and_interrupted_writes() {
        let texts: Vec<Vec<u8>> = (0..Elements::BATCH + 7)
            .map(|i| format!("  {{\"n\": {i}}}").into_bytes())
            .collect();
        let expected: Vec<u8> = texts
            .iter()
            .enumerate()
            .flat_map(|(i, t)| [if i == 0 { &b"[\n"[..] } else { b",\n" }, t].concat())
            .collect();
        let mut out = Stingy {
            taken: Vec::new(),
            calls: 0,
            room: usize::MAX,
        };
        let mut array = Elements::default();
        for text in texts.clone() {
            array.push(text, &mut out).unwrap();
        }
        array.write(&mut out).unwrap();
        assert_eq!(array.count, texts.len());
        assert_eq!(out.taken, expected);

        let mut full = Stingy {
            taken: Vec::new(),
            calls: 0,
            room: 40,
        };
        let mut array = Elements { texts, count: 0 };
        let error = array.write(&mut full).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::WriteZero);
        assert_eq!(full.taken, expected[..40]);
    }
}
