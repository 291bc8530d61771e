//! Reading a drop: the ONE place of the daemon where a dropped file (1C or JSON bytes) becomes
//! located, validated payments with their upload requests and findings.
//!
//! Everything else of the daemon and the commands goes through [`read`]. Its body is the batch
//! layer of the payment crate ([`clientbank_payment::batch`]), the one `clientbank check`
//! stands on: the drop is read, mapped and checked there, its findings are rendered by the one
//! renderer, in the language given (the settings' [`lang`](clientbank_bank::Settings::lang)).

use std::path::Path;

use chrono::NaiveDate;
use clientbank_bank::statement::order_text;
use clientbank_payment::batch::{self, Batch, Form};
use clientbank_payment::identity::Identity;
use clientbank_payment::{Context, Lang, Severity, UploadRequest};

/// One payment of a drop, ready to be sent.
#[derive(Debug)]
pub struct Planned {
    /// What identifies it at the bank.
    pub identity: Identity,
    /// The JSON upload request (without `parameters`: the sender sets `targetStatus`).
    pub request: UploadRequest,
    /// Whether the JSON request carries everything the drop says (no `not-carried` finding).
    pub carried_by_json: bool,
    /// The 1-based line of its section (1C) or request (JSON).
    pub line: Option<u32>,
    /// The order as the drop has it ([`order_text`](clientbank_bank::statement::order_text)), which the journal keeps for the statement.
    pub order: Option<String>,
}

impl Planned {
    /// The recipient's name, for reports: as the request carries it.
    pub fn recipient(&self) -> &str {
        self.request
            .payment
            .recipient_name
            .as_deref()
            .unwrap_or_default()
    }
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
#[derive(Debug)]
pub struct Drop {
    /// 1C or JSON.
    pub kind: Kind,
    /// For a 1C drop, the whole document as text (what `/operation-upload/1c` takes).
    pub document_1c: Option<String>,
    /// The payments, in file order.
    pub payments: Vec<Planned>,
    /// Every finding, rendered as `clientbank check` renders it (with lines).
    pub errors_text: String,
    /// How many findings are errors (warnings are in the text, and decide nothing).
    pub errors: usize,
}

impl Drop {
    /// An error finding, or input that is no upload at all: the drop is rejected as a whole.
    pub fn has_errors(&self) -> bool {
        self.errors > 0
    }

    /// Whether every payment can go through `/operation-upload` without losing anything.
    pub fn carried_by_json(&self) -> bool {
        self.payments.iter().all(|p| p.carried_by_json)
    }

    fn refused(kind: Kind, text: String) -> Drop {
        Drop {
            kind,
            errors_text: text,
            errors: 1,
            payments: Vec::new(),
            document_1c: None,
        }
    }
}

/// Whether the bytes are JSON (an upload request or an array of them) rather than a 1C file.
pub fn is_json(bytes: &[u8]) -> bool {
    batch::is_json(bytes)
}

/// [`read`] with the findings rendered in `lang`.
pub fn read(path: &Path, bytes: &[u8], today: NaiveDate, lang: Lang) -> Drop {
    let name = path.display().to_string();
    let batch = match Batch::read(bytes, &Context::as_of(today)) {
        Ok(batch) => batch,
        Err(refusal) => {
            let kind = match refusal.form() {
                Form::Json => Kind::Json,
                _ => Kind::OneC,
            };
            return Drop::refused(kind, refusal.render(&name, lang));
        }
    };
    let kind = match batch.form() {
        Form::Json => Kind::Json,
        _ => Kind::OneC,
    };
    // One pass over the findings: the errors file, the counts and the verdict.
    let renderer = batch.renderer(&name).lang(lang);
    let (mut errors_text, mut errors) = (String::new(), 0);
    for finding in batch.findings() {
        if finding.severity == Severity::Error {
            errors += finding.count();
        }
        errors_text.push_str(&renderer.render(&finding));
    }
    let mut drop = Drop {
        kind,
        errors_text,
        errors,
        payments: Vec::new(),
        document_1c: batch.document_text(),
    };
    // A 1C order is kept as the file has it (`Код=0` and all); a JSON request as the order it
    // makes.
    let documents: Vec<_> = batch
        .parsed()
        .map(|parsed| parsed.tree.documents().collect())
        .unwrap_or_default();
    let mut items = 0;
    for item in batch.items() {
        items += 1;
        let (Some(payment), Some(request)) = (item.payment(), item.request()) else {
            continue;
        };
        drop.payments.push(Planned {
            identity: item.identity(),
            // A draft: the sender sets `targetStatus`.
            request: UploadRequest::new(request.payment.clone(), false),
            carried_by_json: item.carried_by_json(),
            line: item.line(),
            order: order_text(match documents.get(item.index()) {
                Some(section) => clientbank_format::Document::from_section(section),
                None => {
                    let (mut order, _) = clientbank_payment::onec::to_document(payment);
                    // The request's `TypeIndicator` as written (`0` too).
                    if let Some(code) = request.payment.type_indicator.clone() {
                        order.uin = Some(code);
                    }
                    order
                }
            }),
        });
    }
    let refused = match (batch.form(), items, drop.payments.len()) {
        (Form::Statement, _, _) => Some((
            format!("{name} is a statement (it has account sections), not payment orders to send"),
            format!(
                "{name} — выписка (в нём есть секции счёта), а не платёжные поручения к отправке"
            ),
        )),
        (Form::Json, 0, _) => Some((
            format!("{name} holds no upload request"),
            format!("в {name} нет ни одного запроса на загрузку"),
        )),
        (Form::Orders, _, 0) => Some((
            format!("{name} holds no payment order"),
            format!("в {name} нет ни одного платёжного поручения"),
        )),
        _ => None,
    };
    if let Some((en, ru)) = refused {
        drop.errors += 1;
        let line = match lang {
            Lang::Ru => format!("ошибка: {ru}\n"),
            _ => format!("error: {en}\n"),
        };
        drop.errors_text.push_str(&line);
    }
    drop
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_errors_file_is_the_one_renderer_in_either_language() {
        let today = NaiveDate::from_ymd_opt(2024, 3, 28).unwrap();
        let json = br#"[{"payment": {"Number": "7", "Date": "28.03.2024", "Sum": "-5"}}]"#;
        let en = read(Path::new("a.json"), json, today, Lang::En);
        let ru = read(Path::new("a.json"), json, today, Lang::Ru);
        assert!(en.has_errors() && ru.has_errors());
        assert_eq!(en.errors, ru.errors);
        assert!(
            en.errors_text.contains("error[sum-not-positive]:")
                && en.errors_text.contains(" --> a.json:1"),
            "{}",
            en.errors_text
        );
        assert!(
            ru.errors_text
                .contains("ошибка[sum-not-positive]: сумма должна быть больше нуля"),
            "{}",
            ru.errors_text
        );
        assert_eq!(en.payments.len(), 1);
        assert_eq!(en.payments[0].identity.number, "7");
        assert_eq!(en.payments[0].line, Some(1));
        assert!(en.document_1c.is_none());
        let statement = "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
                         СекцияРасчСчет\r\nРасчСчет=40702810938000012345\r\nКонецРасчСчет\r\n\
                         КонецФайла\r\n";
        let drop = read(Path::new("s.txt"), statement.as_bytes(), today, Lang::Ru);
        assert!(drop.has_errors());
        assert!(
            drop.errors_text.contains("ошибка: s.txt — выписка"),
            "{}",
            drop.errors_text
        );
    }

    #[test]
    fn garbage_is_refused_not_a_panic() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        for bytes in [&b""[..], b"\x00\x01\x02", b"{", b"[]", b"\xff\xfe garbage"] {
            let drop = read(Path::new("x"), bytes, today, Lang::En);
            assert!(drop.has_errors(), "{bytes:?}");
            assert!(drop.payments.is_empty());
            assert!(!drop.errors_text.is_empty());
        }
    }
}
