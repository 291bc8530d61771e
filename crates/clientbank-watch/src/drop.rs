//! Reading a drop: the ONE place where a dropped file (1C or JSON bytes) becomes located,
//! validated payments with their upload requests and findings.
//!
//! Everything else of the daemon and the commands goes through [`read`]. It stands on the
//! functions `clientbank check` uses (`onec::payment_orders`, `json::read_upload`, `validate`,
//! the format crate's `Renderer`); when the pipeline layer of the payment crate lands, this
//! module's body is what gets switched to it.

use std::fmt::Write as _;
use std::path::Path;

use chrono::NaiveDate;
use clientbank_format::{Encoding, Renderer, Severity};
use clientbank_payment::json::{PaymentJson, read_upload};
use clientbank_payment::{Code, Context, Finding, Payment, UploadRequest, onec, validate};
use rust_decimal::Decimal;

/// What identifies a payment at the bank, for "never twice": payer account, number
/// (normalised: `0402` and `402` are one number), date, sum (normalised: `1500`, `1500.0` and
/// `1500.00` are one sum) and recipient account.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Identity {
    /// The payer's account.
    pub payer_account: String,
    /// The document number.
    pub number: String,
    /// The document date.
    pub date: Option<NaiveDate>,
    /// The sum.
    pub sum: Option<Decimal>,
    /// The recipient's account.
    pub recipient_account: String,
}

impl Identity {
    /// The identity of a payment.
    pub fn of(payment: &Payment) -> Identity {
        let text = |v: &Option<String>| v.as_deref().unwrap_or_default().trim().to_string();
        Identity {
            payer_account: text(&payment.payer.account),
            number: normalise_number(&text(&payment.number)),
            date: payment.date,
            sum: payment.sum.map(|s| s.normalize()),
            recipient_account: text(&payment.recipient.account),
        }
    }

    /// The journal's key: `payer|number|YYYY-MM-DD|sum|recipient`.
    pub fn key(&self) -> String {
        format!(
            "{}|{}|{}|{}|{}",
            self.payer_account,
            self.number,
            self.date.map(|d| d.to_string()).unwrap_or_default(),
            self.sum.map(|s| s.to_string()).unwrap_or_default(),
            self.recipient_account
        )
    }
}

/// A document number as the identity holds it: trimmed, and an all-digit number without its
/// leading zeros (`0402` is `402`, `000` is `0`); any other number as written.
pub fn normalise_number(number: &str) -> String {
    let number = number.trim();
    if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) {
        let stripped = number.trim_start_matches('0');
        if stripped.is_empty() { "0" } else { stripped }.to_string()
    } else {
        number.to_string()
    }
}

/// One payment of a drop, ready to be sent.
#[derive(Clone, Debug)]
pub struct Planned {
    /// What identifies it at the bank.
    pub identity: Identity,
    /// The JSON upload request (without `parameters`: the sender sets `targetStatus`).
    pub request: UploadRequest,
    /// Whether the JSON request carries everything the drop says (no `not-carried` finding).
    pub carried_by_json: bool,
    /// The 1-based line of its section (1C) or request (JSON).
    pub line: Option<u32>,
    /// The recipient's name, for reports.
    pub recipient: String,
}

/// What a drop is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A 1C exchange file.
    OneC,
    /// JSON upload requests.
    Json,
}

/// A drop as read.
#[derive(Clone, Debug)]
pub struct Drop {
    /// 1C or JSON.
    pub kind: Kind,
    /// Every finding, rendered as `clientbank check` renders it (with lines).
    pub errors_text: String,
    /// An error finding, or input that is no upload at all: the drop is rejected as a whole.
    pub has_errors: bool,
    /// How many findings are errors and warnings.
    pub errors: usize,
    /// See [`Drop::errors`].
    pub warnings: usize,
    /// The payments, in file order.
    pub payments: Vec<Planned>,
    /// For a 1C drop, the whole document as text (what `/operation-upload/1c` takes).
    pub document_1c: Option<String>,
}

impl Drop {
    /// Whether every payment can go through `/operation-upload` without losing anything.
    pub fn carried_by_json(&self) -> bool {
        self.payments.iter().all(|p| p.carried_by_json)
    }

    fn refused(kind: Kind, text: String) -> Drop {
        Drop {
            kind,
            errors_text: text,
            has_errors: true,
            errors: 1,
            warnings: 0,
            payments: Vec::new(),
            document_1c: None,
        }
    }

    fn count(&mut self, severity: Severity) {
        match severity {
            Severity::Error => {
                self.errors += 1;
                self.has_errors = true;
            }
            Severity::Warning => self.warnings += 1,
        }
    }
}

/// Whether the bytes are JSON (an upload request or an array of them) rather than a 1C file.
pub fn is_json(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    matches!(
        bytes.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// Reads a drop: 1C or JSON, every finding (format and payment rules, dates as of `today`),
/// and the payments with their upload requests. Never panics on any bytes.
pub fn read(path: &Path, bytes: &[u8], today: NaiveDate) -> Drop {
    let name = path.display().to_string();
    if is_json(bytes) {
        read_json(&name, bytes, today)
    } else {
        read_1c(&name, bytes, today)
    }
}

fn read_json(name: &str, bytes: &[u8], today: NaiveDate) -> Drop {
    let read = match read_upload(bytes) {
        Ok(read) => read,
        Err(refused) => return Drop::refused(Kind::Json, render(&refused, name, None)),
    };
    let mut drop = Drop {
        kind: Kind::Json,
        errors_text: String::new(),
        has_errors: false,
        errors: 0,
        warnings: 0,
        payments: Vec::new(),
        document_1c: None,
    };
    let context = Context { today: Some(today) };
    for (index, request) in read.iter().enumerate() {
        for finding in request.validate(index, &context, Encoding::Cp1251) {
            drop.count(finding.severity);
            drop.errors_text.push_str(&render(&finding, name, None));
        }
        if request.readable {
            let payment = request.request.payment.to_payment();
            drop.payments.push(Planned {
                identity: Identity::of(&payment),
                request: UploadRequest::new(request.request.payment.clone(), false),
                carried_by_json: true,
                line: request.line,
                recipient: payment.recipient.name.clone().unwrap_or_default(),
            });
        }
    }
    if read.is_empty() {
        drop.count(Severity::Error);
        drop.errors_text
            .push_str(&format!("error: {name} holds no upload request\n"));
    }
    drop
}

fn read_1c(name: &str, bytes: &[u8], today: NaiveDate) -> Drop {
    let parsed = match clientbank_format::parse(bytes) {
        Ok(parsed) => parsed,
        Err(refused) => {
            let renderer = Renderer::new(name, bytes, refused.encoding);
            return Drop::refused(Kind::OneC, renderer.render(&refused.diagnostic));
        }
    };
    let renderer = Renderer::new(name, bytes, Some(parsed.tree.encoding()));
    let mut drop = Drop {
        kind: Kind::OneC,
        errors_text: String::new(),
        has_errors: false,
        errors: 0,
        warnings: 0,
        payments: Vec::new(),
        document_1c: None,
    };
    for diagnostic in &parsed.diagnostics {
        drop.count(diagnostic.severity);
        drop.errors_text.push_str(&renderer.render(diagnostic));
    }
    if parsed.tree.accounts().next().is_some() {
        drop.count(Severity::Error);
        let _ = writeln!(
            drop.errors_text,
            "error: {name} is a statement (it has account sections), not payment orders to send"
        );
    }
    let context = Context { today: Some(today) };
    let (orders, skipped) = onec::payment_orders(&parsed.tree);
    let mut findings: Vec<Finding> = skipped;
    for order in &orders {
        let (json, mut not_carried) = PaymentJson::from_payment(&order.payment);
        order.lines.locate(&mut not_carried, Some(order.document));
        let mut found = validate(&order.payment, &context);
        order.lines.locate(&mut found, Some(order.document));
        let carried = !order
            .findings
            .iter()
            .chain(&not_carried)
            .any(|f| f.code == Code::NotCarried);
        findings.extend(order.findings.iter().cloned());
        findings.extend(not_carried);
        findings.extend(found);
        drop.payments.push(Planned {
            identity: Identity::of(&order.payment),
            request: UploadRequest::new(json, false),
            carried_by_json: carried,
            line: order.lines.section,
            recipient: order.payment.recipient.name.clone().unwrap_or_default(),
        });
    }
    for finding in &findings {
        drop.count(finding.severity);
        drop.errors_text
            .push_str(&render(finding, name, Some(&renderer)));
    }
    if orders.is_empty() {
        drop.count(Severity::Error);
        let _ = writeln!(drop.errors_text, "error: {name} holds no payment order");
    }
    // The document travels as a JSON string, so as UTF-8 whatever its Кодировка says.
    drop.document_1c = Some(
        parsed
            .tree
            .encoding()
            .decode(&parsed.tree.to_bytes())
            .into_owned(),
    );
    drop
}

/// A payment finding for people, as `clientbank check` renders it.
fn render(finding: &Finding, path: &str, renderer: Option<&Renderer<'_>>) -> String {
    let head = format!(
        "{}[{}]: {}",
        finding.severity.as_str(),
        finding.code,
        finding.message
    );
    let mut out = match (finding.line, renderer) {
        (Some(line), Some(renderer)) => renderer.render_line(&head, line, None),
        (Some(line), None) => format!("{head}\n --> {path}:{line}\n"),
        (None, _) => format!("{head}\n --> {path}\n"),
    };
    if let Some(payment) = finding.payment {
        let _ = write!(out, "  = payment {}", payment + 1);
        let place = finding.place();
        if !place.is_empty() {
            let _ = write!(out, ", {place}");
        }
        if let Some(found) = &finding.found {
            let _ = write!(out, ": found {found:?}");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_normalises_the_sum() {
        let a = Payment {
            sum: Some(Decimal::new(150000, 2)),
            ..Payment::default()
        };
        let mut b = a.clone();
        b.sum = Some(Decimal::new(1500, 0));
        assert_eq!(Identity::of(&a).key(), Identity::of(&b).key());
    }

    #[test]
    fn identity_normalises_the_number() {
        let a = Payment {
            number: Some("0402".into()),
            ..Payment::default()
        };
        let mut b = a.clone();
        b.number = Some(" 402".into());
        assert_eq!(Identity::of(&a).key(), Identity::of(&b).key());
        assert_eq!(normalise_number("000"), "0");
        assert_eq!(normalise_number("А-0402"), "А-0402");
        assert_ne!(normalise_number("4020"), normalise_number("402"));
    }

    #[test]
    fn garbage_is_refused_not_a_panic() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        for bytes in [&b""[..], b"\x00\x01\x02", b"{", b"[]", b"\xff\xfe garbage"] {
            let drop = read(Path::new("x"), bytes, today);
            assert!(drop.has_errors, "{bytes:?}");
            assert!(drop.payments.is_empty());
            assert!(!drop.errors_text.is_empty());
        }
    }
}
