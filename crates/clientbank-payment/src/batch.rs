//! One drop — a 1C exchange file or a JSON upload — read once into its payments: the layer
//! `check`, `convert`, the sandbox bank's uploads and the daemon stand on.
//!
//! [`Batch::read`] takes the bytes and a [`Context`] (the day the date rules count from). It
//! recognises JSON by its first character `{` or `[` (after spaces and a UTF-8 byte order
//! mark); anything else is read as a 1C file. A file with account sections is a statement:
//! its documents are the bank's history, so their dates are not checked against today, what
//! the upload could not carry is not reported about them, and of the payment rules only those
//! about the data itself apply ([`crate::in_statement`]: formats, check digits and keys, dates
//! and sums, in the file's own encoding), not the advice for a payment being prepared.
//!
//! The payments are produced one at a time by [`Batch::items`]: each [`Item`] is a document
//! of the 1C file or an element of the JSON array, with its payment, its upload request, its
//! line, its findings (reading or mapping, then every rule, located at their values) and
//! whether the JSON route carries it whole. Nothing holds every payment at once: a 1C file is
//! held as its bytes and what [`clientbank_format::scan`] found in them (its findings, header
//! and account sections, and each document line as a compact record), its documents rebuilt
//! a chunk at a time as the items are asked for; a JSON upload as its bytes.
//!
//! ```
//! use clientbank_payment::batch::Batch;
//! use clientbank_payment::{Context, Lang, NaiveDate};
//!
//! let json = r#"[{"payment": {"Number": "7", "Date": "28.03.2024", "Sum": "-5"}}]"#;
//! let today = NaiveDate::from_ymd_opt(2024, 3, 28).unwrap();
//! let batch = Batch::read(json, &Context::as_of(today)).unwrap();
//! let item = batch.items().next().unwrap();
//! assert_eq!(item.identity().number, "7");
//! assert!(item.findings().iter().any(|f| f.code.as_str() == "sum-not-positive"));
//! assert!(batch.has_errors());
//! let report = batch.render("upload.json", Lang::Ru);
//! assert!(report.contains("ошибка[sum-not-positive]: сумма должна быть больше нуля"));
//! ```

use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::sync::{Arc, OnceLock};

use clientbank_diagnostic::{Code, Diagnostic, Lang, Limit, Renderer, Severity};
use clientbank_format::{Encoding, Parsed, Scan, ScannedDocument, SectionRef, scan};

use crate::ahead::{Ordered, chunk_bounds};
use crate::finding::{Lines, Quiet, QuietCodes, position};
use crate::identity::Identity;
use crate::json::{PaymentJson, ReadRequest, Upload, UploadRequest};
use crate::onec;
use crate::payment::Payment;
use crate::validate::{Context, Read, validate_in, validate_quiet};
use crate::view::PaymentView;

/// One drop, read: its source, and its payments on demand.
#[derive(Debug)]
pub struct Batch {
    source: Source,
    /// The context the payments are checked in (history for a statement).
    context: Context,
    /// The encoding a payment's characters must fit (a 1C file is written in it).
    encoding: Encoding,
    strict: bool,
    /// The lines whose value the 1C reader already reported (see [`Covered`]), found on first
    /// use.
    covered: OnceLock<Covered>,
}

/// One defect, one finding: a value the 1C reader already found unreadable or empty
/// (`Сумма=1,50` is `invalid-sum`, `Сумма=` is `empty-value`) is not also a payment finding
/// about the same line (`missing`, `sum-not-positive`). The reader's finding is kept, with the
/// higher of the two severities, so whether the file has errors does not change.
///
/// Likewise a key the reader found missing from a document (`missing-key`, at the document's
/// first line) is not also the payment's `missing` for the field that key holds.
///
/// Likewise a document the input ends inside ([`SectionRef::is_cut_short`]): its missing keys
/// and cut values are the one defect the reader's `unclosed-section` says, so the payment's
/// findings are left out and that finding is an error (the payment is never sent).
#[derive(Debug, Default)]
struct Covered {
    /// Each line the reader reported a value of, and whether a payment finding there was an
    /// error.
    lines: HashMap<u32, bool>,
    /// Each key the reader found missing, by its document's first line, and whether the
    /// payment's `missing` for it was an error.
    keys: HashMap<(u32, Cow<'static, str>), bool>,
    /// The first lines of the documents with a key in `keys`.
    key_documents: HashSet<u32>,
    /// The first line of the document the input ends inside, if one does.
    cut_short: Option<u32>,
}

impl Covered {
    /// Whether `finding`, a payment's, is a defect the reader's finding says already.
    fn repeats(&self, finding: &Diagnostic) -> bool {
        let Some(line) = finding.line else {
            return false;
        };
        self.lines.contains_key(&line)
            || finding.code == Code::Missing
                && finding
                    .key
                    .as_ref()
                    .is_some_and(|key| self.keys.contains_key(&(line, key.clone())))
    }

    /// Whether a document starting at `line` holds anything the reader's findings cover (its
    /// findings are then made whole, to be matched).
    fn touches(&self, line: u32) -> bool {
        !self.lines.is_empty() || self.key_documents.contains(&line)
    }
}

/// The place of the reader's `missing-key` finding `d`: its document's first line and the key.
fn missing_key(d: &Diagnostic) -> Option<(u32, Cow<'static, str>)> {
    (d.code == Code::MissingKey && d.omitted == 0)
        .then(|| Some((d.line?, d.key.clone()?)))
        .flatten()
}

/// The reader's codes about the form of one value: its line's payment findings are the same
/// defect.
fn is_value_code(code: Code) -> bool {
    matches!(
        code,
        Code::InvalidDate
            | Code::InvalidTime
            | Code::InvalidSum
            | Code::InvalidInteger
            | Code::EmptyValue
    )
}

#[derive(Debug)]
enum Source {
    OneC {
        bytes: Vec<u8>,
        scan: Scan,
        statement: bool,
        /// The whole tree, made only when [`Batch::parsed`] asks for it.
        parsed: OnceLock<Option<Parsed>>,
    },
    Json(Upload),
}

/// What a drop is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Form {
    /// A 1C exchange file of payment orders (to the bank).
    Orders,
    /// A 1C exchange file with account sections: a statement (from the bank).
    Statement,
    /// A JSON upload: one request or an array of them.
    Json,
}

/// Whether the bytes are JSON (an upload request or an array of them) rather than a 1C file:
/// their first character that is not a space is `{` or `[` (after a UTF-8 byte order mark).
pub fn is_json(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    matches!(
        bytes.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// The input is no drop at all: the 1C reader refused it (empty, not an exchange file, two
/// encodings, destroyed text), or it is JSON that is not an upload (not UTF-8, a syntax
/// error). Holds the bytes, to show where.
#[derive(Debug)]
pub struct Refusal {
    /// The finding that made the reader stop.
    pub diagnostic: Box<Diagnostic>,
    /// The encoding the input was being read in, when it got that far.
    pub encoding: Option<Encoding>,
    form: Form,
    bytes: Vec<u8>,
}

impl Refusal {
    /// The bytes as given.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// What the input looked like: [`Form::Json`] or a 1C file ([`Form::Orders`]).
    pub fn form(&self) -> Form {
        self.form
    }

    /// The refusal as `check` shows it, for the file named `path`.
    pub fn render(&self, path: &str, lang: Lang) -> String {
        Renderer::new(path, &self.bytes, self.encoding.map(Encoding::as_source))
            .lang(lang)
            .render(&self.diagnostic)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.diagnostic.fmt(f)
    }
}

impl std::error::Error for Refusal {}

impl Batch {
    /// Reads a drop: a JSON upload when its first character is `{` or `[`, else a 1C
    /// exchange file. `context` gives the day the date rules count from; a statement's
    /// documents are history whatever it says. Refused only when the input is no drop at all.
    pub fn read(bytes: impl Into<Vec<u8>>, context: &Context) -> Result<Batch, Refusal> {
        let bytes = bytes.into();
        let source = if is_json(&bytes) {
            match Upload::new(bytes) {
                Ok(upload) => Source::Json(upload),
                Err((diagnostic, bytes)) => {
                    return Err(Refusal {
                        diagnostic,
                        encoding: None,
                        form: Form::Json,
                        bytes,
                    });
                }
            }
        } else {
            match scan(&bytes) {
                Ok(scan) => {
                    let statement = scan.has_accounts();
                    Source::OneC {
                        bytes,
                        scan,
                        statement,
                        parsed: OnceLock::new(),
                    }
                }
                Err(refused) => {
                    return Err(Refusal {
                        diagnostic: refused.diagnostic,
                        encoding: refused.encoding,
                        form: Form::Orders,
                        bytes,
                    });
                }
            }
        };
        let (context, encoding) = match &source {
            // The bank's record is checked in the encoding it was written in: whether 1C can
            // write it again is no question about a statement.
            Source::OneC {
                statement: true,
                scan,
                ..
            } => (Context::statement(), scan.encoding()),
            _ => (*context, Encoding::Cp1251),
        };
        Ok(Batch {
            source,
            context,
            encoding,
            strict: false,
            covered: OnceLock::new(),
        })
    }

    /// The characters of every payment are checked against `encoding` (the encoding of the 1C
    /// file they are or will be written in; CP1251 unless said otherwise, a statement's own
    /// encoding for a statement).
    pub fn with_encoding(mut self, encoding: Encoding) -> Batch {
        self.encoding = encoding;
        self.covered = OnceLock::new();
        self
    }

    /// Every finding is an error, as 1C's own loader would treat it.
    pub fn strict(mut self, strict: bool) -> Batch {
        self.strict = strict;
        self
    }

    /// What the drop is.
    pub fn form(&self) -> Form {
        match &self.source {
            Source::OneC {
                statement: true, ..
            } => Form::Statement,
            Source::OneC { .. } => Form::Orders,
            Source::Json(_) => Form::Json,
        }
    }

    /// The context the payments are checked in ([`Context::history`] for a statement).
    pub fn context(&self) -> Context {
        self.context
    }

    /// The bytes as given.
    pub fn bytes(&self) -> &[u8] {
        match &self.source {
            Source::OneC { bytes, .. } => bytes,
            Source::Json(upload) => upload.bytes(),
        }
    }

    /// The encoding of a 1C file (JSON is UTF-8: `None`).
    pub fn encoding(&self) -> Option<Encoding> {
        match &self.source {
            Source::OneC { scan, .. } => Some(scan.encoding()),
            Source::Json(_) => None,
        }
    }

    /// The 1C file as read (`None` for JSON): its whole tree, made on the first call (the
    /// batch itself reads the documents one at a time and holds no tree).
    pub fn parsed(&self) -> Option<&Parsed> {
        match &self.source {
            Source::OneC { bytes, parsed, .. } => parsed
                .get_or_init(|| clientbank_format::parse(bytes.as_slice()).ok())
                .as_ref(),
            Source::Json(_) => None,
        }
    }

    /// Writes a 1C file anew canonically in `encoding`, a section at a time, as
    /// [`clientbank_format::Scan::write_canonical`] does (on an error, what was written before
    /// it stays in `out`); `None` for JSON.
    pub fn write_exchange<W: std::io::Write>(
        &self,
        encoding: Encoding,
        out: W,
    ) -> Option<Result<W, clientbank_format::WriteError>> {
        match &self.source {
            Source::OneC { bytes, scan, .. } => scan.write_canonical(bytes, encoding, out),
            Source::Json(_) => None,
        }
    }

    /// The text of a 1C file, as the `/operation-upload/1c` route takes it (a JSON string,
    /// so UTF-8 whatever `Кодировка` says); `None` for JSON.
    pub fn document_text(&self) -> Option<String> {
        match &self.source {
            Source::OneC { bytes, scan, .. } => Some(scan.encoding().decode(bytes).into_owned()),
            Source::Json(_) => None,
        }
    }

    /// The findings about the file as a whole: the 1C reader's (in file order), each with the
    /// severity it has in this batch (a value the payment rules find an error in too is an
    /// error; every finding in strict mode). Payments' findings, and documents or elements
    /// that are not payments, come with [`Batch::items`].
    pub fn file_diagnostics(&self) -> impl Iterator<Item = Diagnostic> + '_ {
        let raw: &[Diagnostic] = match &self.source {
            Source::OneC { scan, .. } => scan.diagnostics(),
            Source::Json(_) => &[],
        };
        raw.iter().map(|d| {
            let mut d = d.clone();
            if self.strict || self.covers(&d) {
                d.severity = Severity::Error;
            }
            d
        })
    }

    /// Whether `d` is the reader's finding about a value that a payment rule finds an error in.
    fn covers(&self, d: &Diagnostic) -> bool {
        if d.code == Code::UnclosedSection {
            return d.line.is_some() && d.line == self.covered().cut_short;
        }
        if let Some(place) = missing_key(d) {
            return self.covered().keys.get(&place).copied().unwrap_or(false);
        }
        is_value_code(d.code)
            && d.omitted == 0
            && d.line
                .is_some_and(|l| self.covered().lines.get(&l).copied().unwrap_or(false))
    }

    /// The lines of [`Covered`]: only the documents holding a value the reader reported are
    /// looked at beforehand (usually none).
    fn covered(&self) -> &Covered {
        self.covered.get_or_init(|| {
            let Source::OneC { bytes, scan, .. } = &self.source else {
                return Covered::default();
            };
            let cut_short = cut_short(bytes, scan);
            let mut lines: HashMap<u32, bool> = scan
                .diagnostics()
                .iter()
                .filter(|d| is_value_code(d.code) && d.omitted == 0)
                .filter_map(|d| d.line)
                .map(|l| (l, false))
                .collect();
            let mut keys: HashMap<(u32, Cow<'static, str>), bool> = scan
                .diagnostics()
                .iter()
                .filter_map(missing_key)
                .map(|place| (place, false))
                .collect();
            let key_documents: HashSet<u32> = keys.keys().map(|&(line, _)| line).collect();
            if lines.is_empty() && keys.is_empty() {
                return Covered {
                    lines,
                    keys,
                    key_documents,
                    cut_short,
                };
            }
            let mut wanted: Vec<u32> = lines.keys().chain(&key_documents).copied().collect();
            wanted.sort_unstable();
            let mut next = wanted.into_iter().peekable();
            let mut documents = scan.documents(bytes).enumerate().peekable();
            while let Some((index, document)) = documents.next() {
                let section = document.view();
                let end = documents.peek().map_or(u32::MAX, |(_, d)| d.view().line());
                while next.peek().is_some_and(|&l| l < section.line()) {
                    next.next();
                }
                if next.peek().is_none_or(|&l| l >= end) {
                    continue;
                }
                while next.peek().is_some_and(|&l| l < end) {
                    next.next();
                }
                let run = &mut onec::Run::default();
                let item = self.document_item(index, &section, Requests::No, Quiet::NONE, run);
                for finding in &item.findings {
                    let Some(line) = finding.line else { continue };
                    if let Some(error) = lines.get_mut(&line) {
                        *error |= finding.is_error();
                    }
                    if finding.code == Code::Missing
                        && let Some(key) = &finding.key
                        && let Some(error) = keys.get_mut(&(line, key.clone()))
                    {
                        *error |= finding.is_error();
                    }
                }
            }
            Covered {
                lines,
                keys,
                key_documents,
                cut_short,
            }
        })
    }

    /// The documents of the 1C file or the requests of the JSON upload, one at a time.
    pub fn items(&self) -> Items<'_> {
        self.items_with(true, None)
    }

    /// The items; without their upload requests (and what the JSON route would not carry)
    /// when `requests` is false: the findings need neither. Findings of the codes in `quiet`
    /// are made as stand-ins (see [`Quiet`]).
    fn items_with(&self, requests: bool, quiet: Option<Arc<QuietCodes>>) -> Items<'_> {
        Items {
            requests,
            quiet,
            write: None,
            batch: self,
            inner: match &self.source {
                Source::OneC { bytes, scan, .. } => Inner::OneC {
                    chunks: Chunks {
                        documents: Box::new(scan.documents(bytes)),
                        next: Vec::new(),
                        size: FIRST_CHUNK,
                        made: 0,
                    },
                    ready: VecDeque::new(),
                },
                Source::Json(upload) => Inner::Json(0..upload.len()),
            },
            index: 0,
        }
    }

    /// Every finding in the order `check` shows them — the file's, then each item's — with
    /// at most [`LIMIT_PER_CODE`](clientbank_diagnostic::LIMIT_PER_CODE) of each code and a
    /// summary of the rest at the end; every one an error in strict mode.
    pub fn findings(&self) -> Findings<'_> {
        let quiet = Arc::new(QuietCodes::default());
        Findings {
            strict: self.strict,
            file: (Box::new(in_file_order(self.file_diagnostics().collect()).into_iter())
                as Box<dyn Iterator<Item = Diagnostic>>)
                .peekable(),
            items: self.items_with(false, Some(Arc::clone(&quiet))),
            quiet,
            items_done: false,
            pending: Vec::new().into_iter().peekable(),
            limit: Limit::new(),
            summaries: None,
            progress: None,
            each: None,
            json_route: false,
            read: 0,
            unmade: 0,
        }
    }

    /// `convert`'s one pass over the batch: the findings as [`Batch::findings`] gives them
    /// (in file order, at most [`LIMIT_PER_CODE`](clientbank_diagnostic::LIMIT_PER_CODE) of a
    /// code, the rest summarised) but of the reader's only its errors (the warnings about the
    /// form of the file are `check`'s), and with what the JSON route would not carry when
    /// `json_route`; each item, with its payment and upload request, is handed to `each` once
    /// its findings are taken from it (it holds none then).
    pub fn conversion<'a>(&'a self, json_route: bool, each: impl FnMut(Item) + 'a) -> Findings<'a> {
        let mut findings = self.converting(true);
        findings.each = Some(Box::new(each));
        findings.json_route = json_route;
        findings
    }

    /// The findings of [`Batch::conversion`]`(false, drop)` when the items are not wanted (a
    /// 1C file written anew from the file itself, [`Batch::write_exchange`]): no payment or
    /// upload request is made, nor any finding about what the JSON route would not carry.
    pub fn conversion_findings(&self) -> Findings<'_> {
        self.converting(false)
    }

    /// [`Batch::findings`], of the reader's only its errors; the items with their upload
    /// requests when `requests`.
    fn converting(&self, requests: bool) -> Findings<'_> {
        let mut findings = self.findings();
        let errors = self.file_diagnostics().filter(Diagnostic::is_error);
        findings.file = (Box::new(in_file_order(errors.collect()).into_iter())
            as Box<dyn Iterator<Item = Diagnostic>>)
            .peekable();
        if requests {
            findings.items = self.items_with(true, Some(Arc::clone(&findings.quiet)));
        }
        findings
    }

    /// As [`Batch::findings`], telling `progress` after each item how many have been read
    /// (of [`Batch::item_count`]): a progress bar over a big file.
    pub fn findings_with_progress<'a>(&'a self, progress: impl FnMut(usize) + 'a) -> Findings<'a> {
        let mut findings = self.findings();
        findings.progress = Some(Box::new(progress));
        findings
    }

    /// How many items (documents of the 1C file, requests of the JSON upload) the batch has.
    pub fn item_count(&self) -> usize {
        match &self.source {
            Source::OneC { scan, .. } => scan.document_count(),
            Source::Json(upload) => upload.len(),
        }
    }

    /// Whether any finding is an error (in strict mode: whether there is any finding).
    pub fn has_errors(&self) -> bool {
        self.findings().any(|f| f.severity == Severity::Error)
    }

    /// How many errors and warnings, counting a summary for the findings it stands for.
    pub fn counts(&self) -> (usize, usize) {
        let (mut errors, mut warnings) = (0, 0);
        for finding in self.findings() {
            match finding.severity {
                Severity::Error => errors += finding.count(),
                Severity::Warning => warnings += finding.count(),
            }
        }
        (errors, warnings)
    }

    /// A renderer of this drop's findings for the file named `path`.
    pub fn renderer<'a>(&'a self, path: &'a str) -> Renderer<'a> {
        Renderer::new(path, self.bytes(), self.encoding().map(Encoding::as_source))
    }

    /// Every finding rendered as `check` renders it (the daemon's `FILE.errors.txt`).
    pub fn render(&self, path: &str, lang: Lang) -> String {
        let renderer = self.renderer(path).lang(lang);
        self.findings().map(|f| renderer.render(&f)).collect()
    }

    /// The item of document `index` of a 1C file, with every finding (before [`Covered`]);
    /// with its upload request and what the JSON route would not carry when `requests`; the
    /// rules' findings of the codes in `quiet` only counted; `run`: the documents made before
    /// it in order in this thread ([`onec::MADE_PER_RUN`]).
    fn document_item(
        &self,
        index: usize,
        section: &SectionRef<'_>,
        requests: Requests<'_>,
        quiet: Quiet,
        run: &mut onec::Run,
    ) -> Item {
        let statement = self.form() == Form::Statement;
        if onec::section_is_payment_order(section) {
            // A statement's records: what the upload could not carry is no news to `check`.
            // With the upload requests (`convert`), every key that is not carried is told,
            // but for the bank's own marks, which every record has (only their stand-ins are
            // made: the record is not carried whole). Without the requests, a key that is not
            // the format's makes no finding here (only the JSON route loses it, and it is the
            // reader's `unknown-key` already). The rules run on the payment borrowed from the
            // document; the owned payment is made only with the upload request.
            let not_carried = match (requests.any(), statement) {
                (true, false) => onec::NotCarried::All,
                (true, true) => onec::NotCarried::AllButBankMarks,
                (false, false) => onec::NotCarried::FormatKeys,
                (false, true) => onec::NotCarried::None,
            };
            onec::with_view(
                section,
                not_carried,
                quiet,
                run,
                |payment, read, mapped, unmade| {
                    let mapped = (mapped, unmade);
                    self.payment_item(index, section, requests, quiet, (payment, read), mapped)
                },
            )
        } else {
            let findings = if statement {
                Vec::new()
            } else {
                vec![onec::not_a_payment_order(index, section)]
            };
            Item::findings_only(index, Some(section.line()).filter(|&l| l > 0), findings)
        }
    }
}

impl Batch {
    /// The item of payment order `index` of a 1C file, read as `payment` with the mapping's
    /// findings `mapped` (not located yet) and those it only counted; see
    /// [`Batch::document_item`].
    fn payment_item(
        &self,
        index: usize,
        section: &SectionRef<'_>,
        requests: Requests<'_>,
        quiet: Quiet,
        (payment, read): (&PaymentView<'_>, Read),
        (mut mapped, unmade): (Vec<Diagnostic>, onec::Unmade),
    ) -> Item {
        let statement = self.form() == Form::Statement;
        let (mut found, counted) =
            validate_quiet(payment, &self.context, self.encoding, read, quiet);
        let carried =
            unmade == onec::Unmade::default() && mapped.iter().all(|f| f.code != Code::NotCarried);
        if statement {
            // The bank's marks on its records are not news; any other key lost is. Dropped
            // before the rest are placed: a record's keys are not looked up for them.
            mapped.retain(|f| !onec::is_about_bank_mark(f));
        }
        // Where the keys stand is looked up only when a finding is to be placed at one
        // (a stand-in is not).
        let mut lines = Lines::at_section(Some(section.line()).filter(|&l| l > 0));
        lines.locate_in(section, &mut mapped, position(index), quiet);
        // A key that is not the format's is the reader's `unknown-key` already; the
        // 1C route sends it as written, the JSON route loses it.
        let (unknown, mut findings): (Vec<_>, Vec<_>) = mapped.into_iter().partition(|f| {
            f.code == Code::NotCarried && f.key.as_deref().is_some_and(|k| !is_format_key(k))
        });
        lines.locate_in(section, &mut found, position(index), quiet);
        if findings.is_empty() {
            // The rules' own vector, not a copy of it into a new one.
            findings = found;
        } else {
            findings.append(&mut found);
        }
        name_payment(&mut findings, payment.number, quiet);
        let mut item = Item::findings_only(index, lines.section(), findings);
        item.unmade = unmade;
        if !counted.is_empty() {
            item.counted = counted.into_boxed_slice();
        }
        let mut json_route = match requests {
            // The findings are all that is asked for: no owned payment is made.
            Requests::No => return item,
            Requests::Made => {
                let (json, json_route) = PaymentJson::from_payment_with(payment, str::to_string);
                item.payment = Some(Box::new(payment.to_payment()));
                item.request = Some(Box::new(UploadRequest::new(json, false)));
                json_route
            }
            Requests::Written(write) => {
                let (json, json_route) = PaymentJson::from_payment_with(payment, |text| text);
                // Room for a usual request's JSON: it is not grown and copied again and again.
                let mut text = Vec::with_capacity(REQUEST_ROOM);
                write(UploadRequest::of(json, false), &mut text);
                if text.len() < REQUEST_ROOM / 2 {
                    // A small request does not hold its room while it waits to be written.
                    text.shrink_to_fit();
                }
                item.written = Some(text);
                json_route
            }
        };
        lines.locate_in(section, &mut json_route, position(index), quiet);
        name_payment(&mut json_route, payment.number, Quiet::NONE);
        item.carried = carried && json_route.is_empty();
        json_route.splice(0..0, unknown);
        item.json_route = json_route;
        item
    }
}

/// The first line of the document the input ends inside, if one does. Looked for only when the
/// reader found a section not closed and no `КонецФайла` (a file cut short says both).
fn cut_short(bytes: &[u8], scan: &Scan) -> Option<u32> {
    let found = |code| scan.diagnostics().iter().filter(move |d| d.code == code);
    found(Code::MissingEndOfFile).next()?;
    let last_unclosed = found(Code::UnclosedSection).filter_map(|d| d.line).max()?;
    let last = scan.documents(bytes).last()?;
    let view = last.view();
    (view.line() == last_unclosed && view.is_cut_short()).then(|| view.line())
}

enum Inner<'a> {
    OneC {
        chunks: Chunks<'a>,
        /// Items made ahead, in order.
        ready: VecDeque<Item>,
    },
    /// Items made by two other threads, a chunk at a time, whichever is free
    /// ([`Findings::made_ahead`]).
    Ahead {
        chunks: Taker,
        ready: VecDeque<Item>,
    },
    Json(std::ops::Range<usize>),
}

/// The documents of a 1C file made into items a chunk at a time.
struct Chunks<'a> {
    /// The documents, rebuilt from the scan one at a time.
    documents: Box<clientbank_format::Documents<'a>>,
    /// The next chunk's documents, rebuilt while the last chunk's items were made.
    next: Vec<ScannedDocument<'a>>,
    /// How many documents the next chunk takes.
    size: usize,
    /// How many documents were made into items.
    made: usize,
}

impl Chunks<'_> {
    /// The items of the next chunk of documents; `None` after the last.
    fn next_chunk(
        &mut self,
        batch: &Batch,
        requests: Requests<'_>,
        quiet: Quiet,
    ) -> Option<Vec<Item>> {
        if self.next.is_empty() {
            self.next.extend(self.documents.by_ref().take(self.size));
            self.size = (self.size * 2).min(LAST_CHUNK);
        }
        let read = std::mem::take(&mut self.next);
        if read.is_empty() {
            return None;
        }
        let sections: Vec<SectionRef<'_>> = read.iter().map(|d| d.view()).collect();
        // The next chunk is read while this one's items are made.
        let (documents, next, size) = (&mut self.documents, &mut self.next, self.size);
        let mut read_next = || next.extend(documents.by_ref().take(size));
        let items = batch.one_c_items(self.made, &sections, requests, quiet, &mut read_next);
        self.made += items.len();
        self.size = (self.size * 2).min(LAST_CHUNK);
        Some(items)
    }
}

/// The room a request's JSON text is written into: a usual request fits.
const REQUEST_ROOM: usize = 1024;

/// Documents are made into items a chunk at a time: the first chunk small (a caller that
/// wants one item waits for few), then doubling up to [`LAST_CHUNK`]; a chunk of at least
/// [`PARALLEL_FROM`] documents is shared by two threads on a machine with two cores. Items are
/// independent of each other, so the order and content are those of one thread. The last size
/// keeps what the chunks in flight hold (their documents rebuilt, their items) small beside a
/// file of documents of many lines: `check` of 40 MB of documents of 105 lines took 78 MB at
/// 2,048 and takes 62 MB; on the generator's 1M documents the hand-overs of the smaller
/// chunks cost nothing measurable.
const FIRST_CHUNK: usize = 16;
const LAST_CHUNK: usize = 512;
const PARALLEL_FROM: usize = 64;
/// How many chunks [`Findings::made_ahead`]'s makers may have claimed past the next one taken.
const AHEAD: usize = 4;

/// The taking end of [`Findings::made_ahead`]'s chunks: dropped (the findings are gone), the
/// makers stop.
struct Taker(Arc<Ordered<Vec<Item>>>);

impl Drop for Taker {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Whether the machine has a second core (asked once).
fn two_cores() -> bool {
    static TWO: OnceLock<bool> = OnceLock::new();
    *TWO.get_or_init(|| std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2))
}

impl Batch {
    /// The item of document `index`, without the findings the reader's stand for.
    fn one_c_item(
        &self,
        index: usize,
        section: &SectionRef<'_>,
        requests: Requests<'_>,
        quiet: Quiet,
        run: &mut onec::Run,
    ) -> Item {
        let covered = self.covered();
        // A stand-in has no place: which findings a reader's finding stands for needs them all.
        let touched = covered.touches(section.line());
        let quiet = if touched { Quiet::NONE } else { quiet };
        let mut item = self.document_item(index, section, requests, quiet, run);
        if covered.cut_short.is_some() && section.is_cut_short() {
            item.findings.clear();
            item.covered_error = true;
            return item;
        }
        if touched {
            item.findings.retain(|f| {
                let repeats = covered.repeats(f);
                item.covered_error |= repeats && f.is_error();
                !repeats
            });
        }
        item
    }

    /// The items of `sections`, documents `first..` of the file, in order, in this thread.
    fn one_c_items_here(
        &self,
        first: usize,
        sections: &[SectionRef<'_>],
        requests: Requests<'_>,
        quiet: Quiet,
    ) -> Vec<Item> {
        // One run: these documents are made in file order, one after the other.
        let mut run = onec::Run::default();
        sections
            .iter()
            .enumerate()
            .map(|(i, section)| self.one_c_item(first + i, section, requests, quiet, &mut run))
            .collect()
    }

    /// The items of `sections`, documents `first..` of the file, in order: in two threads
    /// when there are enough of them and two cores. `meanwhile` (reading the next documents)
    /// runs beside the first thread's share, in the thread that then makes the rest.
    fn one_c_items(
        &self,
        first: usize,
        sections: &[SectionRef<'_>],
        requests: Requests<'_>,
        quiet: Quiet,
        meanwhile: &mut dyn FnMut(),
    ) -> Vec<Item> {
        let work = |from: usize, part: &[SectionRef<'_>]| -> Vec<Item> {
            self.one_c_items_here(first + from, part, requests, quiet)
        };
        if sections.len() < PARALLEL_FROM || !two_cores() {
            meanwhile();
            return work(0, sections);
        }
        // Found before the threads start, so that they share it.
        self.covered();
        // Giving back the next documents costs a few per cent of making their items (they are
        // unpacked, not read again): each thread makes half of these.
        let middle = sections.len() / 2;
        let (earlier, later) = sections.split_at(middle);
        let first_half = || work(0, earlier);
        std::thread::scope(|scope| {
            let earlier = clientbank_diagnostic::threads::spawn_scoped(scope, first_half);
            meanwhile();
            let rest = work(middle, later);
            // No second thread to be had: this one makes the first half too.
            match earlier.map_or_else(|| Ok(first_half()), |e| e.join()) {
                Ok(mut items) => {
                    items.extend(rest);
                    items
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        })
    }
}

/// The items of a [`Batch`], in order.
pub struct Items<'a> {
    batch: &'a Batch,
    /// Whether items carry their upload requests.
    requests: bool,
    /// The codes whose findings are only counted, when a [`Findings`] reads the items.
    quiet: Option<Arc<QuietCodes>>,
    /// What writes each item's request into its text ([`Findings::writing`]).
    write: Option<Arc<WriteRequest<'a>>>,
    inner: Inner<'a>,
    index: usize,
}

impl fmt::Debug for Items<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Items")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl Iterator for Items<'_> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        let batch = self.batch;
        let item = match &mut self.inner {
            Inner::OneC { chunks, ready } => {
                if ready.is_empty() {
                    let quiet = self.quiet.as_ref().map_or(Quiet::NONE, |q| q.get());
                    let requests = Requests::of(self.requests, self.write.as_deref());
                    ready.extend(chunks.next_chunk(batch, requests, quiet)?);
                }
                ready.pop_front()?
            }
            Inner::Ahead { chunks, ready } => {
                while ready.is_empty() {
                    ready.extend(chunks.0.take()?);
                }
                ready.pop_front()?
            }
            Inner::Json(indices) => {
                let index = indices.next()?;
                let Source::Json(upload) = &batch.source else {
                    return None;
                };
                json_item(upload.read(index), index, batch)
            }
        };
        self.index += 1;
        let mut item = item;
        if batch.strict {
            clientbank_diagnostic::make_strict(&mut item.findings);
        }
        Some(item)
    }
}

/// What [`Findings::writing`] makes of a 1C payment order's upload request (its texts
/// borrowed from the file), in the thread that makes the item: its text (`convert`'s JSON)
/// into the buffer, which starts empty.
pub type WriteRequest<'a> = dyn Fn(UploadRequest<&str>, &mut Vec<u8>) + Send + Sync + 'a;

/// What the items of a 1C file are made with beside their findings.
#[derive(Clone, Copy)]
enum Requests<'w> {
    /// Nothing: the findings are all that is asked for.
    No,
    /// The payment and its upload request.
    Made,
    /// The upload request's text, written by [`Findings::writing`]'s writer: neither the
    /// payment nor the request is made.
    Written(&'w WriteRequest<'w>),
}

impl<'w> Requests<'w> {
    /// With the upload requests or not; written by `write` if there is one.
    fn of(requests: bool, write: Option<&'w WriteRequest<'w>>) -> Requests<'w> {
        match (requests, write) {
            (false, _) => Requests::No,
            (true, None) => Requests::Made,
            (true, Some(write)) => Requests::Written(write),
        }
    }

    /// Whether the request is asked for, made or written.
    fn any(self) -> bool {
        !matches!(self, Requests::No)
    }
}

/// Whether `name` is a key of the 1.03 format.
fn is_format_key(name: &str) -> bool {
    clientbank_format::Key::from_name(name).is_some()
}

fn json_item(read: ReadRequest, index: usize, batch: &Batch) -> Item {
    let mut findings = read.findings.clone();
    let mut payment = None;
    if read.readable {
        let paid = read.request.payment.to_payment();
        findings.extend(read.locate(validate_in(&paid, &batch.context, batch.encoding)));
        payment = Some(Box::new(paid));
    }
    for finding in &mut findings {
        finding.payment = Some(position(index));
    }
    let number = payment
        .as_deref()
        .and_then(|p: &Payment| p.number.as_deref());
    name_payment(&mut findings, number, Quiet::NONE);
    Item {
        index: u32::try_from(index).unwrap_or(u32::MAX),
        line: read.line,
        payment,
        // The request carries what it says: the JSON route loses nothing of it.
        carried: read.readable,
        request: read.readable.then(|| Box::new(read.request)),
        findings,
        json_route: Vec::new(),
        covered_error: false,
        written: None,
        unmade: onec::Unmade::default(),
        counted: Box::default(),
    }
}

/// Gives the findings about a payment its document number (not the stand-ins of `quiet`, which
/// are only counted).
fn name_payment(findings: &mut [Diagnostic], number: Option<&str>, quiet: Quiet) {
    let Some(number) = number.map(str::trim).filter(|n| !n.is_empty()) else {
        return;
    };
    if findings.iter().all(|f| quiet.has(f.code)) {
        // Nothing to name (no finding, or only stand-ins): no copy of the number made.
        return;
    }
    let number: Box<str> = clientbank_diagnostic::short(number).into();
    for finding in findings.iter_mut().filter(|f| !quiet.has(f.code)) {
        finding.number = Some(number.clone());
    }
}

/// A document of a 1C file or an element of a JSON upload: a payment with everything known
/// about it, or (for a document that is not a payment order, an element that is not a
/// request) only the finding that says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// Its position, 0-based: a `u32`, as an item stays small (a file holds fewer documents).
    index: u32,
    line: Option<u32>,
    /// Boxed, as the request: an item moves through queues and threads, and is small.
    payment: Option<Box<Payment>>,
    request: Option<Box<UploadRequest>>,
    findings: Vec<Diagnostic>,
    json_route: Vec<Diagnostic>,
    carried: bool,
    /// A payment finding left out because the reader's finding about the same value stands
    /// for it ([`Covered`]) was an error.
    covered_error: bool,
    /// Its request as [`Findings::writing`]'s writer wrote it, in place of its payment and
    /// request.
    written: Option<Vec<u8>>,
    /// The `not-carried` findings past the limit within its document: counted, not made
    /// (only for a [`Findings`], which keeps the limit).
    unmade: onec::Unmade,
    /// The codes of the rules' findings past the file's limit (a [`Findings`]'s quiet codes):
    /// counted, not made.
    counted: Box<[Code]>,
}

impl Item {
    /// An item of findings only: no payment (a document that is not a payment order, or one
    /// whose findings are all that is asked for), no request.
    fn findings_only(index: usize, line: Option<u32>, findings: Vec<Diagnostic>) -> Item {
        Item {
            index: u32::try_from(index).unwrap_or(u32::MAX),
            line,
            payment: None,
            request: None,
            findings,
            json_route: Vec::new(),
            carried: false,
            covered_error: false,
            written: None,
            unmade: onec::Unmade::default(),
            counted: Box::default(),
        }
    }

    /// The 0-based position among the file's documents (or the upload's requests).
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// The 1-based position, as findings name it.
    pub fn position(&self) -> u32 {
        position(self.index())
    }

    /// The line where it starts: its `СекцияДокумент` marker, or its request's first line.
    pub fn line(&self) -> Option<u32> {
        self.line
    }

    /// The payment; `None` for a document that is not a payment order or an element that is
    /// not an upload request.
    pub fn payment(&self) -> Option<&Payment> {
        self.payment.as_deref()
    }

    /// The payment, given away.
    pub fn into_payment(self) -> Option<Payment> {
        self.payment.map(|payment| *payment)
    }

    /// The upload request, given away.
    pub fn into_request(self) -> Option<UploadRequest> {
        self.request.map(|request| *request)
    }

    /// Its upload request as [`Findings::writing`]'s writer wrote it; `None` without a
    /// writer, or for an item that is not a payment.
    pub fn written(&self) -> Option<&[u8]> {
        self.written.as_deref()
    }

    /// Its upload request as written ([`Item::written`]), given away.
    pub fn into_written(self) -> Option<Vec<u8>> {
        self.written
    }

    /// The upload request for `/operation-upload`: a 1C payment order's as a draft, a JSON
    /// request as it was written.
    pub fn request(&self) -> Option<&UploadRequest> {
        self.request.as_deref()
    }

    /// Its identity ([`Identity`]: payer account, number, date, sum, recipient account).
    pub fn identity(&self) -> Identity {
        self.payment
            .as_deref()
            .map(Identity::of)
            .unwrap_or_default()
    }

    /// Its findings, located: reading or mapping (`not-carried`: 1C keys the payment holds no
    /// place for, in files to the bank), then every rule.
    pub fn findings(&self) -> &[Diagnostic] {
        &self.findings
    }

    /// Whether a finding is an error, or the 1C reader's finding about one of its values stands
    /// for an error of the payment rules (`Сумма=1,50`: the file's `invalid-sum`, not a second
    /// `missing` here).
    pub fn has_errors(&self) -> bool {
        self.covered_error
            || self.findings.iter().any(Diagnostic::is_error)
            || self.counted.iter().any(|c| c.severity() == Severity::Error)
    }

    /// What the JSON route (`/operation-upload`) would not carry of a 1C payment order: keys
    /// that are not the format's (the reader's `unknown-key` findings already name them; the
    /// 1C route sends them as written), the priority, a kind of operation other than 01,
    /// field 110 (`not-carried`, located; none for a statement).
    pub fn json_route(&self) -> &[Diagnostic] {
        &self.json_route
    }

    /// Whether the JSON route carries the payment whole: no `not-carried` finding, neither of
    /// the 1C mapping nor of the JSON request. A payment that is not carried whole goes by
    /// `/operation-upload/1c`, or is reported.
    pub fn carried_by_json(&self) -> bool {
        self.carried
    }
}

/// The findings of a [`Batch`], in order, limited per code.
pub struct Findings<'a> {
    strict: bool,
    file: std::iter::Peekable<Box<dyn Iterator<Item = Diagnostic> + 'a>>,
    items: Items<'a>,
    /// The codes past their limit, told to the items.
    quiet: Arc<QuietCodes>,
    items_done: bool,
    pending: std::iter::Peekable<std::vec::IntoIter<Diagnostic>>,
    limit: Limit,
    summaries: Option<std::vec::IntoIter<Diagnostic>>,
    /// Told how many items have been read after each one.
    progress: Option<Box<dyn FnMut(usize) + 'a>>,
    /// Given each item once its findings are taken ([`Batch::conversion`]).
    each: Option<Box<dyn FnMut(Item) + 'a>>,
    /// Whether what the JSON route would not carry is among the findings.
    json_route: bool,
    read: usize,
    /// The last item's `not-carried` findings that were counted, not made: counted once its
    /// made ones are taken (they are past the limit only after them).
    unmade: u32,
}

/// The reader's findings in file order, by line and column (the reader finds some only later:
/// a section left open is said at the end of the input, at the line that opened it); a
/// finding about the whole file (no line) first. Stable: findings at one place keep their
/// order.
fn in_file_order(mut findings: Vec<Diagnostic>) -> Vec<Diagnostic> {
    findings.sort_by_key(|d| (d.line.unwrap_or(0), d.column.unwrap_or(0)));
    findings
}

impl fmt::Debug for Findings<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Findings").finish_non_exhaustive()
    }
}

impl Findings<'_> {
    /// The next finding in file order: the reader's findings merged with each item's (sorted
    /// by line; items come in file order), one item at a time. A finding without a line comes
    /// first among the reader's (it is about the file) and last among an item's.
    fn next_raw(&mut self) -> Option<Diagnostic> {
        loop {
            if self.pending.peek().is_none() && !self.items_done {
                let unmade = std::mem::take(&mut self.unmade);
                self.limit.count_unmade(Code::NotCarried, unmade);
                match self.items.next() {
                    Some(mut item) => {
                        self.read += 1;
                        if let Some(progress) = &mut self.progress {
                            progress(self.read);
                        }
                        let mut findings = std::mem::take(&mut item.findings);
                        self.unmade = item.unmade.format;
                        if self.json_route {
                            findings.append(&mut item.json_route);
                            self.unmade += item.unmade.unknown;
                        }
                        // A finding of a code past its limit (most are stand-ins) is only
                        // counted: it is not sorted and moved on to be dropped.
                        let limit = &mut self.limit;
                        findings.retain(|d| d.omitted > 0 || !limit.count_past(d.code));
                        for &code in &item.counted {
                            limit.count_unmade(code, 1);
                        }
                        if let Some(each) = &mut self.each {
                            each(item);
                        }
                        findings.sort_by_key(|d| {
                            (d.line.unwrap_or(u32::MAX), d.column.unwrap_or(u32::MAX))
                        });
                        self.pending = findings.into_iter().peekable();
                        continue;
                    }
                    None => self.items_done = true,
                }
            }
            let file = self.file.peek().map(|d| d.line.unwrap_or(0));
            let item = self.pending.peek().map(|d| d.line.unwrap_or(u32::MAX));
            return match (file, item) {
                (Some(file), Some(item)) if file <= item => self.file.next(),
                (_, Some(_)) => self.pending.next(),
                (Some(_), None) => self.file.next(),
                (None, None) => None,
            };
        }
    }
}

impl<'a> Findings<'a> {
    /// Each 1C payment order's upload request, its texts borrowed from the file, given to
    /// `write` in the thread that makes the item (one of [`Findings::made_ahead`]'s makers,
    /// else the reader's); the item holds the text ([`Item::written`]) instead of a payment
    /// and a request: `convert` makes its JSON where the items are made, on both cores,
    /// without a `String` per field.
    pub fn writing(
        mut self,
        write: impl Fn(UploadRequest<&str>, &mut Vec<u8>) + Send + Sync + 'a,
    ) -> Self {
        self.items.write = Some(Arc::new(write));
        self
    }

    /// Runs `f` over these findings while two other threads make the items, a chunk at a time:
    /// whichever is free claims the next chunk (skipping the documents before it without
    /// rebuilding them), so the one that shares its core with `f` makes fewer, and neither
    /// waits on a turn. What `f` does with one chunk's findings overlaps making the next
    /// ones, and both cores make items all the time. The same findings, in the same order; a
    /// code that goes past its limit meanwhile is made quiet a few chunks later, which changes
    /// nothing shown.
    pub fn made_ahead<R>(mut self, f: impl FnOnce(Findings<'a>) -> R) -> R {
        let fresh = matches!(&self.items.inner, Inner::OneC { chunks, ready }
            if chunks.made == 0 && chunks.next.is_empty() && ready.is_empty());
        let Source::OneC { bytes, scan, .. } = &self.items.batch.source else {
            return f(self);
        };
        if !two_cores() || !fresh {
            return f(self);
        }
        let (batch, requests) = (self.items.batch, self.items.requests);
        let write = self.items.write.clone();
        // Found before the threads start, so that they share it.
        batch.covered();
        let chunks = Arc::new(Ordered::new(2, AHEAD));
        let ordered: &Ordered<Vec<Item>> = &chunks;
        std::thread::scope(|scope| {
            // Made first, so that however this ends, dropping it stops the makers.
            let taker = Taker(Arc::clone(&chunks));
            let mut makers = 0;
            for _ in 0..2 {
                let present = ordered.maker();
                let quiet = Arc::clone(&self.quiet);
                let write = write.clone();
                let mut documents = scan.documents(bytes);
                let maker = move || {
                    let _present = present;
                    // How many documents this maker's own reading has passed.
                    let mut at = 0;
                    while let Some(number) = ordered.claim() {
                        let (first, size) = chunk_bounds(number, FIRST_CHUNK, LAST_CHUNK);
                        if first > at && documents.nth(first - at - 1).is_none() {
                            ordered.end_at(number);
                            continue;
                        }
                        let read: Vec<_> = documents.by_ref().take(size).collect();
                        at = first + read.len();
                        if read.is_empty() {
                            ordered.end_at(number);
                            continue;
                        }
                        let sections: Vec<SectionRef<'_>> = read.iter().map(|d| d.view()).collect();
                        let requests = Requests::of(requests, write.as_deref());
                        let items = batch.one_c_items_here(first, &sections, requests, quiet.get());
                        ordered.deliver(number, items);
                    }
                };
                // A thread the system refuses (a limit on processes) is one maker fewer, its
                // presence dropped with it; the one that runs makes every chunk.
                let spawned = clientbank_diagnostic::threads::spawn_scoped(scope, maker);
                makers += usize::from(spawned.is_some());
            }
            if makers == 0 {
                // No thread at all: the items are made here, as without a second core.
                drop(taker);
                return f(self);
            }
            self.items.inner = Inner::Ahead {
                chunks: taker,
                ready: VecDeque::new(),
            };
            // `f` owns the findings: when it returns, the taker is gone and the makers stop.
            f(self)
        })
    }
}

impl Iterator for Findings<'_> {
    type Item = Diagnostic;

    fn next(&mut self) -> Option<Diagnostic> {
        if self.summaries.is_none() {
            while let Some(d) = self.next_raw() {
                let code = d.code;
                match self.limit.admit(d) {
                    Some(d) => return Some(d),
                    // Its first omitted finding is kept: the rest are only counted.
                    None => self.quiet.add(code),
                }
            }
            let mut summaries = self.limit.summaries();
            if self.strict {
                clientbank_diagnostic::make_strict(&mut summaries);
            }
            self.summaries = Some(summaries.into_iter());
        }
        self.summaries.as_mut()?.next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A statement of `documents` copies of one payment order with findings.
    fn statement(documents: usize) -> Vec<u8> {
        let document = "СекцияДокумент=Платежное поручение\r\nНомер=1\r\nСумма=1.00\r\n\
                        ПлательщикИНН=1\r\nКонецДокумента\r\n";
        let text = format!(
            "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n{}КонецФайла\r\n",
            document.repeat(documents)
        );
        Encoding::Cp1251
            .encode(&text)
            .map(|b| b.into_owned())
            .unwrap_or_default()
    }

    /// The findings of a 1C file written anew are `convert`'s without the items: the same,
    /// in the same order, over a thousand of a code, with keys that are not the format's.
    #[test]
    fn conversion_findings_are_the_conversions_without_its_items() {
        let document = "СекцияДокумент=Платежное поручение\r\nНомер=1\r\nСумма=1.00\r\n\
                        ПлательщикИНН=1\r\nДатаСписано=01.11.2026\r\nКлюч=1\r\nЕщё=2\r\n\
                        КонецДокумента\r\nСекцияДокумент=Счет\r\nНомер=2\r\nКонецДокумента\r\n";
        let text = format!(
            "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n{}КонецФайла\r\n",
            document.repeat(1500)
        );
        let bytes = Encoding::Cp1251
            .encode(&text)
            .map(|b| b.into_owned())
            .unwrap_or_default();
        let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 15).unwrap_or_default();
        let batch = Batch::read(bytes, &Context::as_of(today)).unwrap();
        let mut items = 0;
        let whole: Vec<Diagnostic> = batch.conversion(false, |_| items += 1).collect();
        assert_eq!(items, 3000);
        let codes: HashSet<Code> = whole.iter().map(|d| d.code).collect();
        assert!(codes.contains(&Code::NotCarried) && codes.contains(&Code::NotAPaymentOrder));
        assert!(whole.iter().any(|d| d.omitted > 0), "past the limit");
        let without: Vec<Diagnostic> = batch.conversion_findings().collect();
        assert_eq!(without, whole);
    }

    /// A system that refuses the makers' threads (a limit on processes) makes the findings
    /// all the same, with one maker or none, and never leaves the command waiting.
    #[test]
    fn refused_makers_change_nothing() {
        let batch = Batch::read(statement(3000), &Context::history()).unwrap();
        let plain: Vec<Diagnostic> = batch.findings().collect();
        assert!(plain.len() > 2000, "{}", plain.len());
        for refused in [1, 2] {
            clientbank_diagnostic::threads::refuse_next(refused);
            let ahead = batch.findings().made_ahead(|f| f.collect::<Vec<_>>());
            assert_eq!(ahead, plain, "{refused} refused");
            // Stopping early ends the run, whichever makers run.
            clientbank_diagnostic::threads::refuse_next(refused);
            let first = batch.findings().made_ahead(|mut f| f.next());
            assert_eq!(first.as_ref(), plain.first());
        }
    }
}
