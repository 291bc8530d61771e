//! Payment orders in the 1C exchange format: a format [`Document`] to a [`Payment`] and back.
//!
//! A budget payment carries fields 101–109 (`СтатусСоставителя`, `ПоказательКБК`, `ОКАТО`,
//! `ПоказательОснования`, `ПоказательПериода`, `ПоказательНомера`, `ПоказательДаты`). A
//! third-party payment has no block of its own in 1.03 (docs/rules.md §5.2): `ПлательщикИНН` and
//! `ПлательщикКПП` are those of the person whose obligation is paid, and the purpose starts with
//! the actual payer's INN, KPP (organisations) and the third party's name, separated by `//`.
//! A salary deduction (status `19`) puts the person's INN in `ПлательщикИНН`.

use std::cell::RefCell;

use clientbank_format::{
    Document, DocumentFields, Encoding, Exchange, Header, Key, Party, SectionKind, SectionRef,
    SyntaxTree, TextBuffer,
};

use clientbank_diagnostic::{Code, Diagnostic, Message, short, tr};

use crate::finding::{Field, Lines, Quiet, about, position};
use crate::payment::{AccountHolder, Budget, Payment};
use crate::validate::{Context, Read, validate_quiet};
use crate::view::{BankView, BudgetView, HolderView, PaymentView, ThirdPartyView};

/// The document type of a payment order.
pub const PAYMENT_ORDER: &str = "Платежное поручение";

/// Whether a document type names a payment order (letter case, `ё` and spaces aside).
pub fn is_payment_order(kind: &str) -> bool {
    // The spelling 1C writes, recognised without folding anything.
    if kind == PAYMENT_ORDER {
        return true;
    }
    let normal: String = kind
        .trim()
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c == 'ё' { 'е' } else { c })
        .collect();
    normal == "платежное поручение"
}

/// Whether a document section is a payment order ([`is_payment_order`] of its type); the
/// spelling 1C writes is told without decoding it.
pub fn section_is_payment_order(section: &SectionRef<'_>) -> bool {
    section.document_type_is(PAYMENT_ORDER)
        || is_payment_order(&section.document_type().unwrap_or_default())
}

/// A payment order read from a file: the payment, where its keys stood, and what the payment
/// model could not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FromFile {
    /// Position among the file's documents (0-based).
    pub document: usize,
    /// The payment.
    pub payment: Payment,
    /// Lines of its keys.
    pub lines: Lines,
    /// Keys the payment model has no place for, located.
    pub findings: Vec<Diagnostic>,
}

/// Every payment order of a file, in order; documents of other types give one
/// `not-a-payment-order` finding each (in the returned list) and are skipped.
pub fn payment_orders(tree: &SyntaxTree) -> (Vec<FromFile>, Vec<Diagnostic>) {
    let mut orders = Vec::new();
    let mut skipped = Vec::new();
    for (index, section) in tree.documents().enumerate() {
        if section_is_payment_order(&section) {
            orders.push(from_section(index, &section));
        } else {
            skipped.push(not_a_payment_order(index, &section));
        }
    }
    (orders, skipped)
}

/// The finding about document `index` (0-based) of a file, which is not a payment order.
pub fn not_a_payment_order(index: usize, section: &SectionRef<'_>) -> Diagnostic {
    let kind = section.document_type().unwrap_or_default();
    let number = index + 1;
    let mut finding = Diagnostic::new(
        Code::NotAPaymentOrder,
        tr!(
            "document {number} is a {kind:?}, not a payment order" ;
            "документ {number} — {kind:?}, а не платёжное поручение"
        ),
    )
    .found(&kind)
    .payment(position(index));
    if section.line() > 0 {
        finding = finding.line(section.line());
    }
    finding
}

/// One document section as a payment, with where its keys stand; the findings (keys the
/// payment has no place for) are located at their values. The section is walked once to
/// locate every key, whatever the number of findings.
pub fn from_section(index: usize, section: &SectionRef<'_>) -> FromFile {
    let (payment, mut findings) = payment_of(section, true);
    let lines = Lines::of_section(section);
    lines.locate(&mut findings, position(index));
    FromFile {
        document: index,
        payment,
        lines,
        findings,
    }
}

/// The payment of a document section and, when `not_carried` (not for a statement's records:
/// they are no news), a finding for each key it has no place for, not located.
pub(crate) fn payment_of(
    section: &SectionRef<'_>,
    not_carried: bool,
) -> (Payment, Vec<Diagnostic>) {
    let not_carried = if not_carried {
        NotCarried::All
    } else {
        NotCarried::None
    };
    let run = &mut Run::default();
    with_view(
        section,
        not_carried,
        Quiet::NONE,
        run,
        |view, _, findings, _| (view.to_payment(), findings),
    )
}

/// The buffers a document's texts are decoded into and its purpose lines joined in, kept
/// for the thread's next document.
#[derive(Default)]
struct Scratch {
    text: TextBuffer,
    joined: String,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Which keys the payment has no place for get their `not-carried` finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NotCarried {
    /// None (a statement's records: they are no news).
    None,
    /// The format's keys: what `check` says (a key that is not the format's is the reader's
    /// `unknown-key` already).
    FormatKeys,
    /// Every key, the format's or not: what the JSON route would lose.
    All,
    /// Every key, but the bank's marks ([`BANK_MARKS`]) only as stand-ins: a statement's
    /// records with their upload requests (`convert`). Every record has some, and they are
    /// no news, but the record is not carried whole.
    AllButBankMarks,
}

/// How many `not-carried` findings a run of documents (one, or those a thread makes items of
/// in file order) makes about extra keys of one kind (the format's keys a payment has no
/// place for; keys that are not the format's) before the rest are only counted: one past
/// what a file shows, so that the first finding past the file's limit, where its summary
/// stands, is made. A document of a million unknown keys holds a thousand findings, not a
/// million, and so do the first documents of a file of many such keys each, which threads
/// make ahead before the file's limit is known to be passed.
pub(crate) const MADE_PER_RUN: usize = clientbank_diagnostic::LIMIT_PER_CODE + 1;

/// The `not-carried` findings about extra keys a run of documents has made, of each kind,
/// when its caller [limits](Quiet::limits) it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Run([usize; 2]);

/// A document's `not-carried` findings about its extra keys past [`MADE_PER_RUN`] of its run,
/// or past the file's limit already (the code quiet): counted, not made. Each kind's come
/// after its run's made ones, in file order, so they are past the file's limit whatever came
/// before.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Unmade {
    /// About the format's keys a payment has no place for.
    pub(crate) format: u32,
    /// About keys that are not the format's (what only the JSON route loses).
    pub(crate) unknown: u32,
}

/// `then` of the payment a document section describes, borrowed (no `String` per field: the
/// texts are the input's bytes or one buffer of the thread's, decoded once), and a
/// `not-carried` finding for each key the payment has no place for (as `not_carried` says):
/// one about an extra key located at its value, the others not located; as a stand-in when
/// `quiet` has the code; when `quiet` [limits](Quiet::limits) a document, past
/// [`MADE_PER_RUN`] of `run` (the documents before it in its run) only counted ([`Unmade`]).
pub(crate) fn with_view<R>(
    section: &SectionRef<'_>,
    not_carried: NotCarried,
    quiet: Quiet,
    run: &mut Run,
    then: impl FnOnce(&PaymentView<'_>, Read, Vec<Diagnostic>, Unmade) -> R,
) -> R {
    debug_assert_eq!(section.kind(), SectionKind::Document);
    let with = |scratch: &mut Scratch| {
        let fields = DocumentFields::read(section, &mut scratch.text);
        let mut unmade = Unmade::default();
        let findings = match not_carried {
            NotCarried::None => Vec::new(),
            NotCarried::FormatKeys | NotCarried::All | NotCarried::AllButBankMarks => {
                let marks_told = not_carried != NotCarried::AllButBankMarks;
                let mut findings = not_carried_in(&fields, quiet, marks_told);
                // The keys the document keeps in `extra`, looked for only when it has any;
                // `check` wants only the format's (a key that is not is the reader's
                // `unknown-key`).
                if fields.has_extra() {
                    let format_keys = not_carried == NotCarried::FormatKeys;
                    let extra = DocumentFields::extra_where(section, move |key| {
                        !format_keys || key.is_some()
                    });
                    unmade = not_carried_extra(extra, quiet, run, &mut findings);
                }
                findings
            }
        };
        let read = Read {
            from: Some(section.encoding()),
            may_hold_control: fields.may_hold_control(),
        };
        then(
            &view_of(&fields, &mut scratch.joined),
            read,
            findings,
            unmade,
        )
    };
    SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => with(&mut scratch),
        // Asked again from inside `then`: buffers of its own.
        Err(_) => with(&mut Scratch::default()),
    })
}

/// The findings `check` makes about payment order `section` of a file of payment orders, not
/// located: the payment read borrowed from the section, the mapping's `not-carried` findings
/// and every rule, the characters checked against `encoding`, with how many were only
/// counted. Every finding made whole, or with `past_limits` the rules' only counted and the
/// mapping's each a stand-in, as `check` does once every code is past its per-file limit.
/// For the benches (mapping and validation on one core); not part of the API.
#[doc(hidden)]
#[inline(never)] // what the bench's instructions are counted in: never folded into its caller
pub fn check_section(
    section: &SectionRef<'_>,
    context: &Context,
    encoding: Encoding,
    past_limits: bool,
) -> (Vec<Diagnostic>, usize) {
    let quiet = if past_limits { Quiet::ALL } else { Quiet::NONE };
    with_view(
        section,
        NotCarried::FormatKeys,
        quiet,
        &mut Run::default(),
        |payment, read, findings, _| {
            let (mut found, counted) = validate_quiet(payment, context, encoding, read, quiet);
            // The mapping's findings first, into the rules' vector, which has room.
            found.splice(0..0, findings);
            (found, counted.len())
        },
    )
}

/// Strips the one-line form's `ИНН 7707083893 ` prefix from a party name.
fn party_name<'a>(first_line: Option<&'a str>, one_line: Option<&'a str>) -> Option<&'a str> {
    if let Some(name) = first_line {
        return Some(name);
    }
    let name = one_line?;
    let rest = name
        .strip_prefix("ИНН ")
        .map(|r| {
            r.trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start()
        })
        .filter(|r| !r.is_empty())
        .unwrap_or(name);
    Some(rest)
}

/// The `ИНН//КПП//Name//` (or `ИНН//Name//`) prefix of a third-party payment's purpose.
struct ThirdPartyPrefix<'a> {
    inn: &'a str,
    kpp: Option<&'a str>,
    name: &'a str,
}

fn third_party_prefix(purpose: &str) -> Option<ThirdPartyPrefix<'_>> {
    let mut parts = purpose.splitn(4, "//");
    let inn = parts.next()?.trim();
    if !matches!(inn.len(), 10 | 12) || !inn.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let second = parts.next()?.trim();
    let is_kpp = second == "0" || crate::rules::kpp(second).is_ok();
    let (kpp, name) = if inn.len() == 10 && is_kpp {
        (Some(second), parts.next()?.trim())
    } else {
        (None, second)
    };
    // The name is followed by `//` and the rest of the purpose.
    parts.next()?;
    (!name.is_empty()).then_some(ThirdPartyPrefix { inn, kpp, name })
}

/// The bank's own marks on a statement's record (when it debited, credited, received the
/// payment): every record has some, and no upload request can carry them.
pub(crate) const BANK_MARKS: [Key; 5] = [
    Key::DebitedDate,
    Key::CreditedDate,
    Key::ReceiptDate,
    Key::ReceiptTime,
    Key::ReceiptText,
];

/// Whether `finding` is a `not-carried` about one of the bank's marks ([`BANK_MARKS`]).
pub(crate) fn is_about_bank_mark(finding: &Diagnostic) -> bool {
    finding.code == Code::NotCarried
        && finding
            .key
            .as_deref()
            .is_some_and(|name| BANK_MARKS.iter().any(|k| k.name() == name))
}

/// `НазначениеПлатежа1..6`.
const PURPOSE_LINES: [Key; 6] = [
    Key::Purpose1,
    Key::Purpose2,
    Key::Purpose3,
    Key::Purpose4,
    Key::Purpose5,
    Key::Purpose6,
];

/// The 1C keys a payment holds no place for, as `not-carried` findings (not located), but
/// for the document's extra keys ([`not_carried_extra`]). With the code in `quiet`, a finding
/// is its stand-in, which names the key (no message, no value); so is one about a bank's
/// mark unless `marks_told`.
fn not_carried_in(fields: &DocumentFields<'_>, quiet: Quiet, marks_told: bool) -> Vec<Diagnostic> {
    let mut findings = Vec::new();
    let counted = quiet.has(Code::NotCarried);
    // Whether a finding is made as its stand-in: the bank's marks may be, alone.
    let stand_in = std::cell::Cell::new(counted);
    let mut report = |key: Key, value: Option<&str>, why: (&str, &str)| {
        if value.is_some() && stand_in.get() {
            findings.push(Quiet::stand_in(Code::NotCarried).key(key.name()));
        } else if let Some(value) = value {
            let (name, (why, why_ru)) = (key.name(), why);
            // Joined rather than formatted (`tr!`): a statement's every record has some.
            findings.push(
                Diagnostic::new(
                    Code::NotCarried,
                    Message::new(
                        [name, " is not part of a payment: ", why].concat(),
                        [name, " не входит в платёж: ", why_ru].concat(),
                    ),
                )
                .key(name)
                .found(value),
            );
        }
    };
    let text = |key: Key| fields.text(key);
    // A value as a finding shows it; only counted, only whether there is one (nothing made).
    let whole_value = !counted;
    fn shown<T>(whole: bool, value: Option<T>, show: impl FnOnce(T) -> String) -> Option<String> {
        value.map(|v| if whole { show(v) } else { String::new() })
    }
    let format_date = clientbank_format::value::format_date;
    let date = |key: Key| shown(whole_value, fields.date(key), format_date);
    let indirect = (
        "indirect settlements are not supported by the bank's upload",
        "расчёты через другие банки при загрузке в банк не поддерживаются",
    );
    for key in [
        Key::Payer2,
        Key::Payer3,
        Key::Payer4,
        Key::Recipient2,
        Key::Recipient3,
        Key::Recipient4,
    ] {
        report(key, text(key), indirect);
    }
    for (account, key) in [
        (Key::PayerAccount, Key::PayerSettlementAccount),
        (Key::RecipientAccount, Key::RecipientSettlementAccount),
    ] {
        if text(key).is_some() && text(key) != text(account) {
            report(key, text(key), indirect);
        }
    }
    let statement = (
        "it is a statement's record of the bank",
        "это отметка банка в выписке",
    );
    stand_in.set(counted || !marks_told);
    for key in BANK_MARKS {
        let value: Option<std::borrow::Cow<'_, str>> = match key {
            Key::ReceiptTime => {
                let time = clientbank_format::value::format_time;
                shown(!stand_in.get(), fields.time(key), time).map(Into::into)
            }
            Key::ReceiptText => text(key).map(Into::into),
            _ => shown(!stand_in.get(), fields.date(key), format_date).map(Into::into),
        };
        report(key, value.as_deref(), statement);
    }
    stand_in.set(counted);
    report(
        Key::PaymentMethod,
        text(Key::PaymentMethod),
        (
            "the bank sends every payment electronically",
            "банк отправляет все платежи электронно",
        ),
    );
    let requirement = (
        "it belongs to payment requirements and letters of credit",
        "это реквизит платёжных требований и аккредитивов",
    );
    let days = shown(whole_value, fields.integer(Key::AcceptanceTerm), |d| {
        d.to_string()
    });
    report(Key::AcceptanceTerm, days.as_deref(), requirement);
    report(
        Key::LetterOfCreditKind,
        text(Key::LetterOfCreditKind),
        requirement,
    );
    report(
        Key::PaymentTerm,
        date(Key::PaymentTerm).as_deref(),
        requirement,
    );
    for key in [
        Key::PaymentCondition1,
        Key::PaymentCondition2,
        Key::PaymentCondition3,
        Key::PaymentOnPresentation,
        Key::AdditionalConditions,
        Key::SupplierAccount,
    ] {
        report(key, text(key), requirement);
    }
    report(
        Key::DocumentsSentDate,
        date(Key::DocumentsSentDate).as_deref(),
        requirement,
    );
    // Purpose lines that say more than `НазначениеПлатежа`.
    let lines: Vec<&str> = PURPOSE_LINES.iter().filter_map(|&k| text(k)).collect();
    if let Some(purpose) = text(Key::Purpose) {
        let squash = |s: &str| s.split_whitespace().collect::<String>();
        if !lines.is_empty() && squash(&lines.concat()) != squash(purpose) {
            for key in PURPOSE_LINES {
                report(
                    key,
                    text(key),
                    (
                        "it differs from НазначениеПлатежа, which is the one sent",
                        "оно расходится с НазначениеПлатежа, а отправляется НазначениеПлатежа",
                    ),
                );
            }
        }
    }
    findings
}

/// The `not-carried` finding about extra key `name` with `value`, not located.
fn extra_finding(name: &str, value: &str) -> Diagnostic {
    let name = short(name);
    Diagnostic::new(
        Code::NotCarried,
        tr!(
            "{name} is not a key of the 1.03 format; it is not sent" ;
            "{name} — не ключ формата 1.03; он не отправляется"
        ),
    )
    .key(name)
    .found(value)
}

/// The `not-carried` findings about a document section's `extra` keys
/// ([`DocumentFields::extra_where`]), each located at its value, added to `findings`; when
/// `quiet` [limits](Quiet::limits) a document, those past [`MADE_PER_RUN`] of a kind in its
/// `run`, and all of them once the code is quiet, only counted (nothing of the key decoded).
fn not_carried_extra<'s>(
    extra: impl Iterator<Item = clientbank_format::ExtraLine<'s>>,
    quiet: Quiet,
    run: &mut Run,
    findings: &mut Vec<Diagnostic>,
) -> Unmade {
    let counted = quiet.has(Code::NotCarried);
    let mut unmade = Unmade::default();
    for extra in extra {
        // Told apart as the batch tells them apart: by the name as written (a key read in
        // another letter case is not the format's name).
        let format = extra.known.is_some_and(|key| extra.name() == key.name());
        let (made, past) = match format {
            true => (&mut run.0[0], &mut unmade.format),
            false => (&mut run.0[1], &mut unmade.unknown),
        };
        if quiet.limits() {
            // Past the file's limit already, or past what a file shows after the run's
            // findings made before: the caller's limit takes the count, not a finding.
            if counted || *made >= MADE_PER_RUN {
                *past += 1;
                continue;
            }
            *made += 1;
        }
        findings.push(if counted {
            // Named, as the stand-in of a format key is: it is told apart as not the
            // format's. A stand-in has no place (it is only counted).
            Quiet::stand_in(Code::NotCarried).key(short(&extra.name()))
        } else {
            let at = extra.at;
            extra_finding(&extra.name(), &extra.value()).at(at.start..at.end, at.line, at.column)
        });
    }
    unmade
}

/// The payment a document describes, and a finding for each key it has no place for.
pub fn from_document(document: &Document) -> (Payment, Vec<Diagnostic>) {
    let fields = DocumentFields::of(document);
    let mut findings = not_carried_in(&fields, Quiet::NONE, true);
    findings.extend((document.extra.iter()).map(|(key, value)| extra_finding(key, value)));
    (view_of(&fields, &mut String::new()).to_payment(), findings)
}

/// As [`from_document`], taking the document.
pub fn into_payment(document: Document) -> (Payment, Vec<Diagnostic>) {
    from_document(&document)
}

/// The payment the values of a document describe, borrowed from them; purpose lines joined
/// into `joined` when there is no `НазначениеПлатежа`.
fn view_of<'a>(fields: &DocumentFields<'a>, joined: &'a mut String) -> PaymentView<'a> {
    let text = |key: Key| fields.text(key);
    let purpose = text(Key::Purpose).or_else(|| {
        joined.clear();
        for line in PURPOSE_LINES.iter().filter_map(|&k| text(k)) {
            if !joined.is_empty() {
                joined.push(' ');
            }
            joined.push_str(line);
        }
        (!joined.is_empty()).then_some(joined.as_str())
    });
    let budget = BudgetView {
        payer_status: text(Key::PayerStatus),
        kbk: text(Key::Kbk),
        oktmo: text(Key::Oktmo),
        basis: text(Key::Basis),
        period: text(Key::Period),
        number: text(Key::BasisNumber),
        date: text(Key::BasisDate),
        payment_type: text(Key::PaymentType),
    };
    // A budget payment has field 101 or a value in 104–109; `0`, `..`, `00.00.0000` (nothing
    // but zeros, dots, dashes and spaces) are no value, so an ordinary payment that a bank
    // writes with `ПоказательДаты=..` stays ordinary, and its field 109 is not checked.
    let has_budget = budget.payer_status.is_some()
        || [
            budget.kbk,
            budget.oktmo,
            budget.basis,
            budget.period,
            budget.number,
            budget.date,
        ]
        .into_iter()
        .any(|v| v.is_some_and(|v| !is_no_value(v)));
    let payer = holder(fields, &PAYER);
    let (payer_inn, payer_kpp) = (payer.inn, payer.kpp);
    let mut payment = PaymentView {
        number: text(Key::Number),
        date: fields.date(Key::Date),
        sum: fields.amount(Key::Sum),
        purpose,
        uin: text(Key::Code).filter(|u| *u != "0"),
        priority: text(Key::Priority),
        operation_kind: text(Key::OperationKind),
        purpose_code: text(Key::PurposeCode),
        payer,
        recipient: holder(fields, &RECIPIENT),
        ..PaymentView::default()
    };
    if has_budget {
        let prefix = payment.purpose.and_then(third_party_prefix);
        match prefix {
            Some(prefix) if payer_inn.is_some_and(|inn| inn != prefix.inn) => {
                payment.third_party = Some(ThirdPartyView {
                    name: prefix.name,
                    inn: payer_inn.unwrap_or_default(),
                    kpp: payer_kpp.unwrap_or("0"),
                });
                payment.payer.inn = Some(prefix.inn);
                payment.payer.kpp = prefix.kpp;
            }
            _ if budget.payer_status == Some("19") => {
                payment.deduction_inn = payment.payer.inn.take();
            }
            _ => {}
        }
        payment.budget = Some(budget);
    }
    payment
}

/// A budget field's value that says nothing: empty, or only zeros, dots, dashes and spaces
/// (`0`, `..`, `00.00.0000`, `-`).
fn is_no_value(value: &str) -> bool {
    value.chars().all(|c| matches!(c, '0' | '.' | '-' | ' '))
}

/// The keys of one side of a payment order: account, settlement account, the name as one
/// line, its first line, INN, KPP, BIK, correspondent account, bank name, bank city.
struct PartyKeys([Key; 10]);

const PAYER: PartyKeys = PartyKeys([
    Key::PayerAccount,
    Key::PayerSettlementAccount,
    Key::Payer,
    Key::Payer1,
    Key::PayerInn,
    Key::PayerKpp,
    Key::PayerBik,
    Key::PayerCorrAccount,
    Key::PayerBank1,
    Key::PayerBank2,
]);

const RECIPIENT: PartyKeys = PartyKeys([
    Key::RecipientAccount,
    Key::RecipientSettlementAccount,
    Key::Recipient,
    Key::Recipient1,
    Key::RecipientInn,
    Key::RecipientKpp,
    Key::RecipientBik,
    Key::RecipientCorrAccount,
    Key::RecipientBank1,
    Key::RecipientBank2,
]);

/// One side of a payment order as an account holder.
fn holder<'a>(fields: &DocumentFields<'a>, keys: &PartyKeys) -> HolderView<'a> {
    let [
        account,
        settlement,
        name,
        first_line,
        inn,
        kpp,
        bik,
        corr,
        bank,
        city,
    ] = keys.0.map(|k| fields.text(k));
    HolderView {
        account: account.or(settlement),
        inn,
        kpp,
        name: party_name(first_line, name),
        bank: BankView {
            bik,
            corr_account: corr,
            name: bank,
            city,
        },
    }
}

/// Writes an account holder as one side of a payment order (direct settlements: the account
/// in `…Счет` and `…РасчСчет`, the name in `Плательщик`/`Получатель` and `…1`).
fn fill_party(party: &mut Party, holder: &AccountHolder) {
    party.account = holder.account.clone();
    party.settlement_account = holder.account.clone();
    party.name = holder.name.clone();
    party.lines[0] = holder.name.clone();
    party.inn = holder.inn.clone();
    party.kpp = holder.kpp.clone();
    party.bik = holder.bank.bik.clone();
    party.corr_account = holder.bank.corr_account.clone();
    party.bank_name = holder.bank.name.clone();
    party.bank_city = holder.bank.city.clone();
}

/// The payment order of a payment, ready to be written canonically; and a finding when a
/// third party's name cannot be carried (the purpose does not start with it).
pub fn to_document(payment: &Payment) -> (Document, Vec<Diagnostic>) {
    let mut findings = Vec::new();
    let mut document = Document {
        kind: PAYMENT_ORDER.to_string(),
        number: payment.number.clone(),
        date: payment.date,
        sum: payment.sum,
        purpose: payment.purpose.clone(),
        operation_kind: Some(
            payment
                .operation_kind
                .clone()
                .unwrap_or_else(|| "01".into()),
        ),
        priority: Some(payment.priority.clone().unwrap_or_else(|| "5".into())),
        purpose_code: payment.purpose_code.clone(),
        ..Document::default()
    };
    fill_party(&mut document.payer, &payment.payer);
    fill_party(&mut document.recipient, &payment.recipient);
    if payment.budget.is_some() || payment.third_party.is_some() {
        let budget = payment.budget.clone().unwrap_or_default();
        let zero = |v: Option<String>| Some(v.unwrap_or_else(|| "0".to_string()));
        document.uin = zero(payment.uin.clone());
        document.budget = Budget {
            payer_status: budget.payer_status,
            kbk: zero(budget.kbk),
            oktmo: zero(budget.oktmo),
            basis: zero(budget.basis),
            period: zero(budget.period),
            number: zero(budget.number),
            date: zero(budget.date),
            payment_type: budget.payment_type,
        };
        if let Some(inn) = &payment.deduction_inn {
            document.payer.inn = Some(inn.clone());
        }
    } else {
        document.uin = payment.uin.clone();
    }
    if let Some(third) = &payment.third_party {
        document.payer.inn = Some(third.inn.clone());
        document.payer.kpp = Some(third.kpp.clone()).filter(|k| !k.is_empty());
        let carried = payment
            .purpose
            .as_deref()
            .and_then(third_party_prefix)
            .is_some_and(|p| p.name == third.name.trim());
        if !carried {
            findings.push(
                about(
                    Code::ThirdPartyPurpose,
                    Some(Field::ThirdPartyName),
                    Message::new(
                        "a 1C payment order carries the third party's name only at the start of \
                         the purpose: write it as `ИНН//КПП//name//…` (payer's INN and KPP, then \
                         the name)",
                        "в платёжном поручении 1С наименование третьего лица передаётся только в \
                         начале назначения платежа: запишите его как `ИНН//КПП//наименование//…` \
                         (ИНН и КПП плательщика, затем наименование)",
                    ),
                )
                .found(&third.name),
            );
        }
    }
    (document, findings)
}

/// A new exchange file holding `payments`: header with the payers' accounts and the period
/// the documents span, one payment order each. Write it with [`Exchange::to_bytes`].
pub fn to_exchange(payments: &[Payment], encoding: Encoding) -> (Exchange, Vec<Diagnostic>) {
    let mut findings = Vec::new();
    let mut documents = Vec::with_capacity(payments.len());
    for (index, payment) in payments.iter().enumerate() {
        let (document, mut found) = to_document(payment);
        for finding in &mut found {
            finding.payment = Some(position(index));
        }
        findings.extend(found);
        documents.push(document);
    }
    let mut accounts: Vec<String> = Vec::new();
    for account in payments.iter().filter_map(|p| p.payer.account.clone()) {
        if !accounts.contains(&account) {
            accounts.push(account);
        }
    }
    let dates = payments.iter().filter_map(|p| p.date);
    let header = Header {
        version: Some("1.03".into()),
        encoding: Some(encoding.label().into()),
        sender: Some("clientbank".into()),
        start_date: dates.clone().min(),
        end_date: dates.max(),
        accounts,
        document_types: vec![PAYMENT_ORDER.to_string()],
        ..Header::default()
    };
    (
        Exchange {
            header,
            accounts: Vec::new(),
            documents,
        },
        findings,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A control character in any text of a document read from a file is found as in the
    /// payment made from it, which the rules know nothing about: in a Cyrillic text and an
    /// ASCII one, in the middle of the value, in every encoding that can hold it (U+0098 is
    /// byte 0x98 in Windows-1251, where no character is defined).
    #[test]
    fn control_characters_read_from_a_file_are_found_as_in_the_payment() {
        use crate::validate::validate_in;
        let control_findings = |findings: &[Diagnostic]| -> Vec<String> {
            let mut found: Vec<String> = findings
                .iter()
                .filter(|f| f.code == Code::ControlCharacter)
                .map(|f| format!("{:?} {:?}", f.key, f.found))
                .collect();
            found.sort();
            found
        };
        for encoding in Encoding::ALL {
            for control in ['\t', '\u{1}', '\u{7f}', '\u{98}', '\u{85}'] {
                for key in ["Плательщик1", "ПлательщикКПП", "НазначениеПлатежа"]
                {
                    let value = |k: &str, v: &str| {
                        let v = if k == key {
                            format!("до{control}после")
                        } else {
                            v.into()
                        };
                        format!("{k}={v}\r\n")
                    };
                    let text = format!(
                        "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\n\
                         СекцияДокумент=Платежное поручение\r\nНомер=1\r\nСумма=10.00\r\n\
                         {}{}{}КонецДокумента\r\nКонецФайла\r\n",
                        value("Плательщик1", "ООО Ромашка"),
                        value("ПлательщикКПП", "770701001"),
                        value("НазначениеПлатежа", "Оплата по счёту 5"),
                    );
                    let Ok(bytes) = encoding.encode(&text) else {
                        continue;
                    };
                    let parsed = clientbank_format::parse(&bytes[..]).unwrap();
                    let section = parsed.tree.documents().next().unwrap();
                    let (read, _) = check_section(&section, &Context::history(), encoding, false);
                    let (payment, _) = payment_of(&section, false);
                    let owned = validate_in(&payment, &Context::history(), encoding);
                    let (read, owned) = (control_findings(&read), control_findings(&owned));
                    let at = format!("{encoding:?} {control:?} in {key}");
                    assert_eq!(read, owned, "{at}");
                    assert_eq!(read.len(), 1, "{at}");
                }
            }
        }
    }

    #[test]
    fn budget_fields_without_a_value_do_not_make_a_budget_payment() {
        let order = |fields: &str| {
            let text = format!(
                "1CClientBankExchange\nВерсияФормата=1.03\nСекцияДокумент=Платежное поручение\n\
                 Номер=1\n{fields}КонецДокумента\nКонецФайла\n"
            );
            let parsed = clientbank_format::parse(text.as_bytes()).unwrap();
            from_section(0, &parsed.tree.documents().next().unwrap()).payment
        };
        // What banks write in ordinary payments: no value, the payment stays ordinary and its
        // field 109 is not a budget document's date.
        for fields in [
            "ПоказательДаты=..\n",
            "ПоказательДаты=00.00.0000\nПоказательНомера=0\nПоказательПериода=0\n",
            "ПоказательДаты=\nСтатусСоставителя=\n",
        ] {
            assert_eq!(order(fields).kind(), crate::Kind::Ordinary, "{fields}");
        }
        // A value, or field 101, makes one.
        for fields in [
            "ПоказательДаты=01.02.2024\n",
            "СтатусСоставителя=01\n",
            "ПоказательКБК=18201061201010000510\n",
        ] {
            assert_eq!(order(fields).kind(), crate::Kind::Budget, "{fields}");
        }
    }

    #[test]
    fn unknown_keys_are_located_in_one_pass() {
        // 3000 unknown keys: each one's finding stands at its own line, and the section's keys
        // are decoded once, not once per finding (the quadratic path of issue 8).
        let n = 3000;
        let mut text = String::from(
            "1CClientBankExchange\nВерсияФормата=1.03\nСекцияДокумент=Платежное поручение\nНомер=1\n",
        );
        for i in 0..n {
            text.push_str(&format!("Ключ{i}={}\n", "x".repeat(i % 300)));
        }
        text.push_str("КонецДокумента\nКонецФайла\n");
        let parsed = clientbank_format::parse(text.as_bytes()).unwrap();
        let section = parsed.tree.documents().next().unwrap();
        let before = clientbank_format::counters::key_decodes();
        let order = from_section(0, &section);
        let decoded = clientbank_format::counters::key_decodes() - before;
        assert!(
            decoded <= n + 1,
            "{decoded} key decodes for {n} unknown keys"
        );
        let located: Vec<_> = order
            .findings
            .iter()
            .filter(|f| f.code == Code::NotCarried)
            .map(|f| (f.line, f.column, f.payment))
            .collect();
        assert_eq!(located.len(), n);
        for (i, at) in located.iter().enumerate() {
            let column = format!("Ключ{i}=").chars().count() as u32 + 1;
            assert_eq!(*at, (Some(i as u32 + 5), Some(column), Some(1)));
        }
        // What a finding keeps of a value is cut short.
        let long = order
            .findings
            .iter()
            .find(|f| f.key.as_deref() == Some("Ключ299"));
        assert_eq!(
            long.and_then(|f| f.found.as_ref())
                .map(|v| v.chars().count()),
            Some(101)
        );
    }

    #[test]
    fn payment_order_names() {
        assert!(is_payment_order("Платежное поручение"));
        assert!(is_payment_order(" ПЛАТЁЖНОЕ ПОРУЧЕНИЕ "));
        assert!(!is_payment_order("Банковский ордер"));
    }

    #[test]
    fn one_line_names_lose_their_inn() {
        assert_eq!(
            party_name(None, Some("ИНН 7707083893 ПАО Сбербанк")),
            Some("ПАО Сбербанк")
        );
        assert_eq!(party_name(None, Some("ООО Ромашка")), Some("ООО Ромашка"));
    }

    #[test]
    fn third_party_prefixes() {
        let p = third_party_prefix("7701234560//770101001//Иванов Иван Иванович//НДФЛ").unwrap();
        assert_eq!(
            (p.inn, p.kpp, p.name),
            ("7701234560", Some("770101001"), "Иванов Иван Иванович")
        );
        let p = third_party_prefix("500100732259//Петров П. П.//налог").unwrap();
        assert_eq!(
            (p.inn, p.kpp, p.name),
            ("500100732259", None, "Петров П. П.")
        );
        assert!(third_party_prefix("Оплата по счету 12//2024").is_none());
        assert!(third_party_prefix("7701234560//770101001//Иванов").is_none());
    }
}
