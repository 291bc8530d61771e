//! Every rule of docs/rules.md applied to one payment, all findings at once.

use std::ops::Deref;
use std::sync::LazyLock;

use memchr::memmem::Finder;

use chrono::NaiveDate;
use clientbank_format::Encoding;
use rust_decimal::Decimal;

use clientbank_diagnostic::{Code, Diagnostic, Message, tr};

use crate::finding::{Field, Quiet, about};
use crate::payment::{Budget, Kind, Payment, ThirdParty, enp};
use crate::rules::{self, Defect, OnEnpAccount, TreasuryKind, since, trim, upper_utf8};

/// The text of a payment's fields: `String` (an owned [`Payment`]) or `&str` (a payment
/// borrowed from a 1C file's document, which the rules read without a `String` per field).
pub(crate) trait Text: Deref<Target = str> {}

impl<T: Deref<Target = str>> Text for T {}

/// What the rules need to know beyond the payment: the day the date rules count from.
///
/// There is no default: say which day ([`Context::today_in_moscow`], [`Context::as_of`]) or
/// that the payments are history ([`Context::history`]), whose dates are not checked, or a
/// statement's records ([`Context::statement`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context {
    today: Option<NaiveDate>,
    statement: bool,
}

impl Context {
    /// Dates checked against today in Moscow, the bank's day.
    pub fn today_in_moscow() -> Context {
        Context::as_of(crate::clock::today_in_moscow())
    }

    /// Dates checked as of `today`.
    pub fn as_of(today: NaiveDate) -> Context {
        Context {
            today: Some(today),
            statement: false,
        }
    }

    /// The payments are history (a statement's records, not orders to execute): the date
    /// rules (`date-in-future`, `date-stale`) are not applied.
    pub fn history() -> Context {
        Context {
            today: None,
            statement: false,
        }
    }

    /// The payments are the records of a bank statement: history, and only what a statement
    /// must carry (FORMAT.md §5, the "Stmt" column: number, date, sum, both accounts and INNs)
    /// is `missing` when absent — the bank's record of an executed payment lacks no bank
    /// detail it did not need. Only findings about the data itself are given ([`in_statement`]:
    /// formats, check digits and keys, dates and sums); advice for a payment being prepared
    /// (VAT wording, priority, which requisites go together) is left out.
    pub fn statement() -> Context {
        Context {
            today: None,
            statement: true,
        }
    }

    /// The day dates are checked against; `None` for history.
    pub fn today(&self) -> Option<NaiveDate> {
        self.today
    }
}

/// How many days after its date the bank still takes a payment order (383-P).
pub const VALID_DAYS: i64 = 10;

/// The longest purpose (field 24) and name (fields 8 and 16).
pub const MAX_PURPOSE: usize = 210;
/// The longest name of a party.
pub const MAX_NAME: usize = 160;

/// Checks `payment` against every rule, for a 1C file in Windows-1251 (the format's own
/// encoding): [`validate_in`] with [`Encoding::Cp1251`].
pub fn validate(payment: &Payment, context: &Context) -> Vec<Diagnostic> {
    validate_in(payment, context, Encoding::Cp1251)
}

/// Checks `payment` against every rule, the characters against `encoding` (the encoding of the
/// 1C file it is or will be written in; [`Encoding::Utf8`] holds every character). Rules that
/// changed over time apply as they stood on the payment's date (today's rules when it has
/// none). Characters come first, then field by field; a field holding a character that cannot
/// be written gets that finding and none about its format.
pub fn validate_in(payment: &Payment, context: &Context, encoding: Encoding) -> Vec<Diagnostic> {
    validate_quiet(payment, context, encoding, Read::NOTHING, Quiet::NONE).0
}

/// What is known of a payment's texts before the rules look at them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Read {
    /// The encoding of the file the texts were read from: every character of a text read in
    /// an encoding fits it.
    pub(crate) from: Option<Encoding>,
    /// Whether a text may hold a control character (`false`: their bytes were looked at as
    /// they were read, [`clientbank_format::DocumentFields::may_hold_control`]).
    pub(crate) may_hold_control: bool,
}

impl Read {
    /// Nothing known: texts made in memory (a JSON payment, an owned one).
    pub(crate) const NOTHING: Read = Read {
        from: None,
        may_hold_control: true,
    };
}

/// As [`validate_in`], for a payment whose texts are known as `read` says (read in
/// `encoding`, every character fits it by construction, and only control characters are
/// looked for; none of those either when the reader saw none); a finding of a code in
/// `quiet` is not made, only its code given (in the second list), for a caller that only
/// counts them.
pub(crate) fn validate_quiet<T: Text>(
    payment: &Payment<T>,
    context: &Context,
    encoding: Encoding,
    read: Read,
    quiet: Quiet,
) -> (Vec<Diagnostic>, Vec<Code>) {
    let mut check = Check {
        quiet,
        date: payment.date,
        history: context.statement,
        treasury: payment
            .recipient
            .account
            .as_deref()
            .and_then(|a| rules::treasury_kind(trim(a))),
        ..Check::default()
    };
    check.characters(payment, encoding, read);
    check.document(payment, context);
    check.payer(payment);
    check.recipient(payment);
    check.purpose(payment);
    match (&payment.budget, check.treasury) {
        // Not budget revenue: 107n's fields do not apply; the custody rules decide (§4.8).
        (_, Some(kind @ (TreasuryKind::FederalCustody | TreasuryKind::Custody))) => {
            check.custody(payment, kind)
        }
        (Some(budget), _) => check.budget(payment, budget),
        (None, kind) => {
            if kind == Some(TreasuryKind::Revenue) {
                check.add(
                    Code::BudgetFieldsMissing,
                    Field::PayerStatus,
                    None,
                    || Message::new("the recipient is a treasury account for budget revenues: fill in the budget \
                     fields 101 and 104–109", "счёт получателя — казначейский счёт для доходов бюджета: заполните бюджетные поля 101 и 104–109"),
                );
            }
        }
    }
    if let Some(third) = &payment.third_party {
        check.third_party(payment, third);
    }
    if context.statement {
        check.findings.retain(|f| in_statement(f.code));
        check.counted.retain(|&code| in_statement(code));
    }
    (check.findings, check.counted)
}

/// Whether a rule's finding is news about a bank statement's record (docs/rules.md, "Statements"):
/// what is wrong with the data itself — a value's form, a check digit or control key, a date or
/// sum that cannot be, a field the statement needs. The rest is advice for a payment being
/// prepared (VAT wording, priority, staleness, which requisites go together, placeholders,
/// optional requisites): the bank has executed the payment, no bookkeeper can act on it, so a
/// statement leaves it out. A new rule is left out of statements until it is added here.
pub fn in_statement(code: Code) -> bool {
    matches!(
        code,
        Code::Missing
            | Code::SumNotPositive
            | Code::SumPrecision
            | Code::InnFormat
            | Code::InnCheckDigit
            | Code::InnZeroPrefix
            | Code::KppFormat
            | Code::KppZeroPrefix
            | Code::BikFormat
            | Code::AccountFormat
            | Code::AccountKey
            | Code::TreasuryAccount
            | Code::CorrAccountFormat
            | Code::UinFormat
            | Code::UinCheckDigit
            | Code::KbkFormat
            | Code::OktmoFormat
            | Code::PayerStatusInvalid
            | Code::PayerStatusRemoved
            | Code::BasisInvalid
            | Code::PeriodInvalid
            | Code::DocNumberInvalid
            | Code::DocDateInvalid
            | Code::PriorityInvalid
            | Code::PurposeCodeInvalid
            | Code::PurposeTooLong
            | Code::NameTooLong
            | Code::ControlCharacter
            | Code::Unrepresentable
            | Code::JsonInvalid
    )
}

/// What a document of a statement must carry (1C's table, "Stmt" column).
const REQUIRED_IN_STATEMENT: &[Field] = &[
    Field::Number,
    Field::Date,
    Field::Sum,
    Field::PayerAccount,
    Field::PayerInn,
    Field::RecipientAccount,
    Field::RecipientInn,
];

/// How many findings a payment with any is given room for at once: the generator's payments
/// have four to seven.
const FINDINGS_ROOM: usize = 8;

#[derive(Default)]
struct Check {
    findings: Vec<Diagnostic>,
    /// The codes of the findings of a [`Quiet`] code: counted, not made.
    counted: Vec<Code>,
    /// The payment's date: which version of the rules applies.
    date: Option<NaiveDate>,
    /// Fields with a character that cannot be written.
    unwritable: Vec<Field>,
    /// The payment is a statement's record: only what a statement requires is missing when
    /// absent.
    history: bool,
    /// The kind of the recipient's account when it is a treasury account: which rules apply.
    treasury: Option<TreasuryKind>,
    /// Codes whose findings are only counted by the caller.
    quiet: Quiet,
    /// Findings made so far, with those a statement leaves out (which are not kept).
    made: usize,
}

/// Every field of a payment that is written to a 1C file, with its value.
fn texts<T: Text>(p: &Payment<T>) -> impl Iterator<Item = (Field, &str)> {
    let b = p.budget.as_ref();
    let budget = |f: fn(&Budget<T>) -> &Option<T>| b.and_then(|b| f(b).as_deref());
    let t = p.third_party.as_ref();
    let (payer, recipient) = (&p.payer, &p.recipient);
    [
        (Field::Number, p.number.as_deref()),
        (Field::PayerAccount, payer.account.as_deref()),
        (Field::PayerName, payer.name.as_deref()),
        (Field::PayerInn, payer.inn.as_deref()),
        (Field::PayerKpp, payer.kpp.as_deref()),
        (Field::PayerBankName, payer.bank.name.as_deref()),
        (Field::PayerBankCity, payer.bank.city.as_deref()),
        (Field::PayerBik, payer.bank.bik.as_deref()),
        (Field::PayerCorrAccount, payer.bank.corr_account.as_deref()),
        (Field::RecipientName, recipient.name.as_deref()),
        (Field::RecipientInn, recipient.inn.as_deref()),
        (Field::RecipientKpp, recipient.kpp.as_deref()),
        (Field::RecipientAccount, recipient.account.as_deref()),
        (Field::RecipientBankName, recipient.bank.name.as_deref()),
        (Field::RecipientBankCity, recipient.bank.city.as_deref()),
        (Field::RecipientBik, recipient.bank.bik.as_deref()),
        (
            Field::RecipientCorrAccount,
            recipient.bank.corr_account.as_deref(),
        ),
        (Field::Purpose, p.purpose.as_deref()),
        (Field::Uin, p.uin.as_deref()),
        (Field::OperationKind, p.operation_kind.as_deref()),
        (Field::Priority, p.priority.as_deref()),
        (Field::PurposeCode, p.purpose_code.as_deref()),
        (Field::PayerStatus, budget(|b| &b.payer_status)),
        (Field::Kbk, budget(|b| &b.kbk)),
        (Field::Oktmo, budget(|b| &b.oktmo)),
        (Field::Basis, budget(|b| &b.basis)),
        (Field::Period, budget(|b| &b.period)),
        (Field::BudgetDocNumber, budget(|b| &b.number)),
        (Field::BudgetDocDate, budget(|b| &b.date)),
        (Field::PaymentType, budget(|b| &b.payment_type)),
        (Field::DeductionInn, p.deduction_inn.as_deref()),
        (Field::ThirdPartyName, t.map(|t| &*t.name)),
        (Field::ThirdPartyInn, t.map(|t| &*t.inn)),
        (Field::ThirdPartyKpp, t.map(|t| &*t.kpp)),
    ]
    .into_iter()
    .filter_map(|(field, value)| value.map(|v| (field, v)))
}

/// The first control character of `value` (`char::is_control`: U+0000–U+001F,
/// U+007F–U+009F), looked for only when its bytes may hold one.
fn control_character(value: &str) -> Option<char> {
    if !Encoding::Utf8.may_hold_control(value.as_bytes()) {
        return None;
    }
    value.chars().find(|c| c.is_control())
}

/// How people know an encoding of a 1C file.
fn encoding_name(encoding: Encoding) -> &'static str {
    match encoding {
        Encoding::Cp1251 => "Windows-1251",
        Encoding::Cp866 => "DOS (CP866)",
        Encoding::Utf8 => "UTF-8",
    }
}

/// Findings that still apply to a field holding a character that cannot be written.
fn despite_characters(code: Code) -> bool {
    matches!(
        code,
        Code::ControlCharacter
            | Code::Unrepresentable
            | Code::NameTooLong
            | Code::PurposeTooLong
            | Code::VatNotMentioned
            | Code::VatAmount
            | Code::ThirdPartyPurpose
    )
}

impl Check {
    /// Whether the rules that took effect on `day` apply to the payment.
    fn since(&self, day: NaiveDate) -> bool {
        self.date.is_none_or(|date| date >= day)
    }

    /// One rule for every field: a 1C file holds a value on one line, in its encoding; what
    /// `read` knows already is not looked for again.
    fn characters<T: Text>(&mut self, payment: &Payment<T>, encoding: Encoding, read: Read) {
        let fits = read.from == Some(encoding);
        if fits && !read.may_hold_control {
            return;
        }
        for (field, value) in texts(payment) {
            let control = read.may_hold_control.then(|| control_character(value));
            if let Some(c) = control.flatten() {
                let (what, what_ru) = match c {
                    '\n' => (" (a line feed)", " (перевод строки)"),
                    '\r' => (" (a carriage return)", " (возврат каретки)"),
                    '\t' => (" (a tab)", " (табуляция)"),
                    _ => ("", ""),
                };
                let code = c as u32;
                self.add(Code::ControlCharacter, field, Some(value), || {
                    tr!(
                        "remove the control character U+{code:04X}{what}: a 1C file holds each \
                         value on one line, without tabs or other control characters" ;
                        "удалите управляющий символ U+{code:04X}{what_ru}: в файле 1С каждое \
                         значение занимает одну строку, без табуляций и других управляющих символов"
                    )
                });
                self.unwritable.push(field);
            } else if let Err(c) = if fits { Ok(()) } else { encoding.fits(value) } {
                self.add(Code::Unrepresentable, field, Some(value), || {
                    let (code, name) = (c as u32, encoding_name(encoding));
                    tr!(
                        "replace {c:?} (U+{code:04X}): the payment order is written in {name}, \
                         which has no such character" ;
                        "замените {c:?} (U+{code:04X}): платёжное поручение записывается в \
                         кодировке {name}, в ней такого символа нет"
                    )
                });
                self.unwritable.push(field);
            }
        }
    }

    /// A finding of `code` about `field`; its message is made only when the code is not
    /// [`Quiet`] (past the caller's per-code limit, where only its count matters).
    fn add(
        &mut self,
        code: Code,
        field: Field,
        found: Option<&str>,
        message: impl FnOnce() -> Message,
    ) {
        if !despite_characters(code) && self.unwritable.contains(&field) {
            return;
        }
        self.made += 1;
        if !self.kept(code) {
            // A statement's record leaves the finding out (`validate_quiet` would drop it).
            return;
        }
        if self.quiet.has(code) {
            self.counted.push(code);
            return;
        }
        let finding = about(code, Some(field), message());
        let finding = match found {
            Some(found) => finding.found(found),
            None => finding,
        };
        if self.findings.is_empty() {
            // Room for the findings of a payment that has some, at once: growing a vector of
            // findings moves them (hundreds of bytes each) and costs more than the room.
            self.findings.reserve(FINDINGS_ROOM);
        }
        self.findings.push(finding);
    }

    /// Whether a finding of `code` is given: not one a statement's record leaves out
    /// ([`in_statement`]).
    fn kept(&self, code: Code) -> bool {
        !self.history || in_statement(code)
    }

    /// `what` is in English and in Russian, in the accusative ("заполните сумму").
    fn missing(&mut self, field: Field, what: &str, what_ru: &str) {
        // A statement requires less than an order (FORMAT.md §5, the "Stmt" column): the
        // bank's record of an executed payment lacks no bank details it did not need.
        if self.history && !REQUIRED_IN_STATEMENT.contains(&field) {
            return;
        }
        self.add(
            Code::Missing,
            field,
            None,
            || tr!("fill in {what}" ; "заполните {what_ru}"),
        );
    }

    /// The value with spaces around it removed, warning when there were any (control
    /// characters are [`Check::characters`]' finding).
    fn trimmed<'v>(&mut self, field: Field, value: &'v str) -> &'v str {
        let trimmed = trim(value);
        if trimmed.len() != value.len() && !value.chars().any(char::is_control) {
            self.add(Code::Whitespace, field, Some(value), || {
                Message::new(
                    "remove the spaces around the value",
                    "уберите пробелы вокруг значения",
                )
            });
        }
        trimmed
    }

    fn inn(&mut self, field: Field, value: &str, budget: bool) {
        let value = self.trimmed(field, value);
        let kio = budget && value.len() == 5 && value.bytes().all(|b| b.is_ascii_digit());
        if kio {
            if value == "00000" {
                self.add(Code::InnFormat, field, Some(value), || {
                    Message::new(
                        "a КИО cannot be all zeros",
                        "КИО не может состоять из одних нулей",
                    )
                });
            }
            return;
        }
        match rules::inn(value) {
            Err(Defect::Format) => self.add(
                Code::InnFormat,
                field,
                Some(value),
                || if budget {
                    Message::new("an INN has 10 digits (organisation) or 12 (person), or a foreign \
                     organisation's КИО has 5", "ИНН состоит из 10 цифр (организация) или 12 (физическое лицо), КИО иностранной организации — из 5")
                } else {
                    Message::new("an INN has 10 digits (organisation) or 12 (person)", "ИНН состоит из 10 цифр (организация) или 12 (физическое лицо)")
                },
            ),
            Err(Defect::CheckDigit) => self.add(
                Code::InnCheckDigit,
                field,
                Some(value),
                || Message::new("the INN's check digit is wrong: check the INN against the counterparty's documents", "неверное контрольное число ИНН: сверьте ИНН с документами контрагента"),
            ),
            Ok(()) if budget && value.starts_with("00") && self.since(since::NO_ZERO_PREFIX) => self.add(
                Code::InnZeroPrefix,
                field,
                Some(value),
                || Message::new("an INN in a budget payment cannot start with 00", "ИНН в платеже в бюджет не может начинаться с 00"),
            ),
            Ok(()) => {}
        }
    }

    fn kpp(&mut self, field: Field, value: &str, budget: bool) {
        let value = self.trimmed(field, value);
        if value == "0" {
            return;
        }
        if rules::kpp(value).is_err() {
            let (hint, hint_ru) = if value.chars().any(|c| ('А'..='я').contains(&c)) {
                (
                    " (Cyrillic letters look like Latin ones but are not allowed)",
                    " (русские буквы похожи на латинские, но не допускаются)",
                )
            } else {
                ("", "")
            };
            self.add(Code::KppFormat, field, Some(value), || {
                tr!(
                    "a KPP is 9 characters: 4 digits, 2 digits or capital Latin letters, 3 digits, \
                     or 0{hint}" ;
                    "КПП — 9 знаков: 4 цифры, 2 цифры или заглавные латинские буквы, 3 цифры; \
                     либо 0{hint_ru}"
                )
            });
        } else if budget && value.starts_with("00") && self.since(since::NO_ZERO_PREFIX) {
            self.add(Code::KppZeroPrefix, field, Some(value), || {
                Message::new(
                    "a KPP in a budget payment cannot start with 00",
                    "КПП в платеже в бюджет не может начинаться с 00",
                )
            });
        }
    }

    fn bik(&mut self, field: Field, value: &str) -> bool {
        let value = self.trimmed(field, value);
        let ok = rules::bik(value).is_ok();
        if !ok {
            self.add(Code::BikFormat, field, Some(value), || {
                Message::new(
                    "a BIK is 9 digits starting with 0",
                    "БИК — 9 цифр, первая из них 0",
                )
            });
        }
        ok
    }

    /// An account, checked against its bank's BIK when the BIK is known and well-formed.
    fn account(&mut self, field: Field, value: &str, bik: Option<&str>) {
        let value = self.trimmed(field, value);
        let Some(digits) = rules::digits_of::<20>(value) else {
            self.add(Code::AccountFormat, field, Some(value), || {
                Message::new(
                    "an account number has 20 digits",
                    "номер счёта состоит из 20 цифр",
                )
            });
            return;
        };
        if rules::is_treasury_account(value) {
            if rules::treasury_account(value).is_err() {
                self.add(Code::TreasuryAccount, field, Some(value), || {
                    Message::new(
                        "a treasury account is 03, four digits, 643, then the budget's codes",
                        "казначейский счёт — это 03, четыре цифры, 643 и затем коды бюджета",
                    )
                });
            }
            return;
        }
        let Some((bik, bik_digits)) = bik.map(trim).and_then(|b| Some((b, rules::bik_digits(b)?)))
        else {
            return;
        };
        let at_bank_of_russia = rules::keyed_at_bank_of_russia(bik, value);
        if !rules::account_key_matches(bik_digits, digits, at_bank_of_russia) {
            // Joined rather than formatted (`tr!`): of the messages with a value this is the
            // one payments make most, and formatting costs about twice a join.
            self.add(Code::AccountKey, field, Some(value), || {
                Message::new(
                    [
                        "the account's control key does not match BIK ",
                        bik,
                        ": check the account and the bank",
                    ]
                    .concat(),
                    [
                        "контрольный ключ счёта не сходится с БИК ",
                        bik,
                        ": проверьте счёт и банк",
                    ]
                    .concat(),
                )
            });
        }
    }

    fn corr_account(&mut self, field: Field, value: &str, bik: Option<&str>) {
        let trimmed = trim(value);
        if !(trimmed.starts_with("301") || trimmed.starts_with("40102")) {
            self.add(Code::CorrAccountFormat, field, Some(trimmed), || {
                Message::new(
                    "a bank's correspondent account starts with 301 (or 40102 for the treasury)",
                    "корреспондентский счёт банка начинается с 301 (у казначейства — с 40102)",
                )
            });
            return;
        }
        self.account(field, value, bik);
    }

    fn document<T: Text>(&mut self, payment: &Payment<T>, context: &Context) {
        match payment.number.as_deref() {
            None => self.missing(Field::Number, "the document number", "номер документа"),
            Some(number) => {
                let number = self.trimmed(Field::Number, number);
                if number.is_empty()
                    || !number.bytes().all(|b| b.is_ascii_digit())
                    || number.bytes().all(|b| b == b'0')
                {
                    self.add(Code::NumberInvalid, Field::Number, Some(number), || {
                        Message::new(
                            "a payment order's number is digits, not all zeros",
                            "номер платёжного поручения — цифры, не одни нули",
                        )
                    });
                } else if number.len() > 6 {
                    self.add(
                        Code::NumberLong,
                        Field::Number,
                        Some(number),
                        || Message::new("the payment order form holds six digits; the bank may cut the number", "в бланке платёжного поручения под номер шесть цифр; банк может обрезать номер"),
                    );
                }
            }
        }
        match (payment.date, context.today) {
            (None, _) => self.missing(Field::Date, "the document date", "дату документа"),
            (Some(date), Some(today)) if date > today => self.add(
                Code::DateInFuture,
                Field::Date,
                Some(&clientbank_format::value::format_date(date)),
                || {
                    let today = clientbank_format::value::format_date(today);
                    tr!(
                        "the date is after today ({today}); the bank executes orders on or after \
                         their date" ;
                        "дата позже сегодняшней ({today}); банк исполняет поручение не раньше его даты"
                    )
                },
            ),
            (Some(date), Some(today)) if (today - date).num_days() > VALID_DAYS => self.add(
                Code::DateStale,
                Field::Date,
                Some(&clientbank_format::value::format_date(date)),
                || tr!(
                    "the order is dated more than {VALID_DAYS} days ago; the bank may refuse it: \
                     re-issue it with today's date" ;
                    "поручение выписано более {VALID_DAYS} дней назад, банк может его не принять: \
                     выпишите его заново сегодняшней датой"
                ),
            ),
            _ => {}
        }
        match payment.sum {
            None => self.missing(Field::Sum, "the sum", "сумму"),
            Some(sum) => {
                // The sum's text only for a finding (a payment's sum is usually fine).
                if sum <= Decimal::ZERO {
                    self.add(
                        Code::SumNotPositive,
                        Field::Sum,
                        Some(&sum.to_string()),
                        || {
                            Message::new(
                                "the sum must be more than zero",
                                "сумма должна быть больше нуля",
                            )
                        },
                    );
                }
                let normal = sum.normalize();
                // How many digits the mantissa has (`to_string().len()`, without the text).
                let digits = normal
                    .mantissa()
                    .unsigned_abs()
                    .checked_ilog10()
                    .map_or(1, |l| l + 1);
                if normal.scale() > 2 || digits > 18 {
                    self.add(
                        Code::SumPrecision,
                        Field::Sum,
                        Some(&sum.to_string()),
                        || Message::new("a sum has at most two decimals (kopecks) and 18 digits", "в сумме не больше двух знаков после точки (копейки) и не больше 18 цифр"),
                    );
                }
            }
        }
        if let Some(uin) = payment.uin.as_deref()
            && !matches!(
                self.treasury,
                Some(TreasuryKind::FederalCustody | TreasuryKind::Custody)
            )
        {
            self.uin(payment, uin);
        }
        self.priority(payment);
        if let Some(kind) = payment.operation_kind.as_deref()
            && trim(kind) != "01"
        {
            self.add(
                Code::OperationKindUnusual,
                Field::OperationKind,
                Some(kind),
                || {
                    Message::new(
                        "a payment order's kind of operation (field 18) is 01",
                        "вид операции (поле 18) платёжного поручения — 01",
                    )
                },
            );
        }
        if let Some(code) = payment.purpose_code.as_deref()
            && !matches!(
                self.trimmed(Field::PurposeCode, code),
                "1" | "2" | "3" | "4" | "5"
            )
        {
            self.add(
                Code::PurposeCodeInvalid,
                Field::PurposeCode,
                Some(code),
                || {
                    Message::new(
                        "the purpose code (field 20) is one digit from 1 to 5, or empty",
                        "код назначения платежа (поле 20) — одна цифра от 1 до 5 или пусто",
                    )
                },
            );
        }
    }

    /// Field 22: a budget payment's UIN has its format and check digit; in an ordinary payment
    /// the field may hold the payee's own identifier (up to 25 characters, no check digit).
    fn uin<T: Text>(&mut self, payment: &Payment<T>, uin: &str) {
        let uin = self.trimmed(Field::Uin, uin);
        let result = rules::uin(uin);
        if payment.kind() == Kind::Ordinary {
            let length = uin.chars().count();
            if length > 25 {
                self.add(Code::PayeeIdentifier, Field::Uin, Some(uin), || {
                    tr!(
                        "field 22 holds {length} characters, more than the 25 of a payment \
                         identifier: the bank may cut or refuse it" ;
                        "поле 22 длиннее 25 знаков, допустимых для идентификатора платежа \
                         ({length}): банк может обрезать его или не принять платёж"
                    )
                });
            } else if result.is_err() {
                self.add(
                    Code::PayeeIdentifier,
                    Field::Uin,
                    Some(uin),
                    || Message::new("field 22 is not a UIN (20 or 25 digits with a check digit): in an ordinary \
                     payment it may be the payee's own payment identifier — make sure the payee \
                     gave it", "в поле 22 не УИН (20 или 25 цифр с контрольным разрядом): в обычном платеже это может быть собственный идентификатор платежа получателя — убедитесь, что его дал получатель"),
                );
            }
            return;
        }
        if self.treasury == Some(TreasuryKind::Other) {
            if result.is_err() && rules::npa_code(uin).is_err() {
                self.add(
                    Code::NonRevenueTreasury,
                    Field::Uin,
                    Some(uin),
                    || Message::new(
                        "the recipient's treasury account is not budget revenue, so field 22 holds \
                         what the payee asks for (a UIN, a code of the legal act, or 0); this is \
                         neither a UIN nor a four-digit code: check it with the payee",
                        "казначейский счёт получателя — не счёт доходов бюджета, поле 22 заполняется \
                         так, как просит получатель (УИН, код НПА или 0); здесь ни УИН, ни \
                         четырёхзначный код: сверьте с получателем",
                    ),
                );
            }
            return;
        }
        match result {
            Err(Defect::Format) => self.add(
                Code::UinFormat,
                Field::Uin,
                Some(uin),
                || Message::new("a UIN is 20 or 25 digits, not all zeros; write 0 when there is none", "УИН — 20 или 25 цифр, не одни нули; если УИН нет, укажите 0"),
            ),
            Err(Defect::CheckDigit) => self.add(
                Code::UinCheckDigit,
                Field::Uin,
                Some(uin),
                || Message::new("the UIN's check digit is wrong: copy it again from the bill", "неверный контрольный разряд УИН: перепишите УИН из счёта или требования заново"),
            ),
            Ok(()) => {}
        }
    }

    /// Field 21: five priorities since 31.12.2013, six before; ordinary payments take the last,
    /// wages may take the third (ГК РФ art. 855 p. 2: settlements of wages with those working
    /// under a labour contract).
    fn priority<T: Text>(&mut self, payment: &Payment<T>) {
        let Some(priority) = payment.priority.as_deref() else {
            return;
        };
        let priority = trim(priority);
        let (last, range, range_ru) = if self.since(since::FIVE_PRIORITIES) {
            ("5", "1 to 5", "от 1 до 5")
        } else {
            (
                "6",
                "1 to 6 (before 31.12.2013)",
                "от 1 до 6 (до 31.12.2013)",
            )
        };
        let valid = priority.len() == 1 && ("1"..=last).contains(&priority);
        if !valid {
            self.add(
                Code::PriorityInvalid,
                Field::Priority,
                Some(priority),
                || {
                    tr!(
                        "the priority is one digit from {range}" ;
                        "очерёдность платежа — одна цифра {range_ru}"
                    )
                },
            );
        } else if priority != last
            && payment.kind() == Kind::Ordinary
            && !(priority == "3" && is_wages(payment))
        {
            self.add(
                Code::PriorityUnusual,
                Field::Priority,
                Some(priority),
                || {
                    tr!(
                        "ordinary payments and voluntary tax payments have priority {last}" ;
                        "у обычных платежей и добровольных налоговых платежей очерёдность {last}"
                    )
                },
            );
        }
    }

    fn payer<T: Text>(&mut self, payment: &Payment<T>) {
        let payer = &payment.payer;
        let budget = payment.kind() != Kind::Ordinary;
        let bik = payer.bank.bik.as_deref();
        if let Some(bik) = bik {
            self.bik(Field::PayerBik, bik);
        }
        match payer.account.as_deref() {
            None => self.missing(
                Field::PayerAccount,
                "the payer's account",
                "счёт плательщика",
            ),
            Some(account) => self.account(Field::PayerAccount, account, bik),
        }
        if let Some(corr) = payer.bank.corr_account.as_deref() {
            self.corr_account(Field::PayerCorrAccount, corr, bik);
        }
        if let Some(name) = payer.name.as_deref() {
            self.name(Field::PayerName, name);
        }
        if let Some(inn) = payer.inn.as_deref() {
            if budget && trim(inn) == "0" {
                if payment.uin.is_none() {
                    self.add(
                        Code::InnFormat,
                        Field::PayerInn,
                        Some(inn),
                        || Message::new("a budget payment without a UIN needs the payer's INN (0 is allowed \
                         only with a UIN)", "в платеже в бюджет без УИН нужен ИНН плательщика (0 допустим только при наличии УИН)"),
                    );
                }
            } else if trim(inn) != "0" {
                self.inn(Field::PayerInn, inn, budget);
            }
        }
        match payer.kpp.as_deref() {
            Some(kpp) if !trim(kpp).is_empty() => self.kpp(Field::PayerKpp, kpp, budget),
            _ => self.payer_kpp_empty(payment),
        }
    }

    /// Field 102 of an organisation's budget payment is its KPP, never empty (107n); the single
    /// tax payment allows `0` (§4.9). A third party's KPP is [`Check::third_party`]'s.
    fn payer_kpp_empty<T: Text>(&mut self, payment: &Payment<T>) {
        let organisation = field_text(&payment.payer.inn).is_some_and(|inn| inn.len() == 10);
        let revenue = matches!(self.treasury, None | Some(TreasuryKind::Revenue));
        // A statement's record is the bank's history, not an order to fill in.
        if self.history || payment.kind() != Kind::Budget || !organisation || !revenue {
            return;
        }
        let kbk = payment.budget.as_ref().and_then(|b| field_text(&b.kbk));
        if kbk == Some(enp::KBK) && self.since(since::SINGLE_TAX_PAYMENT) {
            self.add(Code::BudgetPlaceholder, Field::PayerKpp, None, || {
                Message::new(
                    "field 102 is empty: in the single tax payment an organisation writes its KPP \
                     or 0 (107n)",
                    "поле 102 пустое: в едином налоговом платеже организация указывает свой КПП \
                     или 0 (приказ 107н)",
                )
            });
        } else {
            self.add(Code::PayerKppMissing, Field::PayerKpp, None, || {
                Message::new(
                    "an organisation's budget payment carries its KPP in field 102 (107n, appendix \
                     1): fill it in",
                    "в платеже организации в бюджет в поле 102 указывается её КПП (приказ 107н, \
                     приложение 1): заполните его",
                )
            });
        }
    }

    fn name(&mut self, field: Field, name: &str) {
        // Spaces around a name do not survive a 1C file (its readers trim values).
        let name = self.trimmed(field, name);
        if rules::longer_than(name, MAX_NAME) {
            self.add(Code::NameTooLong, field, Some(name), || {
                tr!(
                    "a name has at most {MAX_NAME} characters" ;
                    "наименование — не длиннее {MAX_NAME} знаков"
                )
            });
        }
    }

    fn recipient<T: Text>(&mut self, payment: &Payment<T>) {
        let recipient = &payment.recipient;
        let budget = payment.kind() != Kind::Ordinary;
        match recipient.name.as_deref() {
            None => self.missing(
                Field::RecipientName,
                "the recipient's name",
                "наименование получателя",
            ),
            Some(name) => self.name(Field::RecipientName, name),
        }
        let bik = recipient.bank.bik.as_deref();
        let bik_ok = match bik {
            None => {
                self.missing(
                    Field::RecipientBik,
                    "the recipient bank's BIK",
                    "БИК банка получателя",
                );
                false
            }
            Some(bik) => self.bik(Field::RecipientBik, bik),
        };
        match recipient.account.as_deref() {
            None => self.missing(
                Field::RecipientAccount,
                "the recipient's account",
                "счёт получателя",
            ),
            Some(account) => self.account(Field::RecipientAccount, account, bik),
        }
        match recipient.bank.corr_account.as_deref() {
            Some(corr) => self.corr_account(Field::RecipientCorrAccount, corr, bik),
            // A Bank of Russia division has no correspondent account.
            None if bik_ok
                && !bik.is_some_and(|b| matches!(&trim(b)[6..], "000" | "001" | "002")) =>
            {
                self.missing(
                    Field::RecipientCorrAccount,
                    "the recipient bank's correspondent account",
                    "корреспондентский счёт банка получателя",
                );
            }
            None => {}
        }
        match recipient.inn.as_deref() {
            None if budget => {
                self.missing(Field::RecipientInn, "the recipient's INN", "ИНН получателя")
            }
            Some(inn) if trim(inn) != "0" || budget => {
                let before = self.made;
                self.inn(Field::RecipientInn, inn, budget);
                let clean = self.made == before;
                if clean && budget && trim(inn).len() != 10 {
                    self.add(
                        Code::InnFormat,
                        Field::RecipientInn,
                        Some(inn),
                        || Message::new("the recipient of a budget payment is an organisation: its INN has 10 digits", "получатель платежа в бюджет — организация, её ИНН состоит из 10 цифр"),
                    );
                }
            }
            _ => {}
        }
        match recipient.kpp.as_deref() {
            None if budget => {
                self.missing(Field::RecipientKpp, "the recipient's KPP", "КПП получателя")
            }
            Some(kpp) => {
                if budget && trim(kpp) == "0" {
                    self.add(Code::KppFormat, Field::RecipientKpp, Some(kpp), || {
                        Message::new(
                            "the recipient of a budget payment has a 9-character KPP",
                            "у получателя платежа в бюджет КПП из 9 знаков",
                        )
                    });
                } else {
                    self.kpp(Field::RecipientKpp, kpp, budget);
                }
            }
            None => {}
        }
    }

    fn purpose<T: Text>(&mut self, payment: &Payment<T>) {
        let Some(purpose) = payment.purpose.as_deref() else {
            self.missing(
                Field::Purpose,
                "the purpose of payment",
                "назначение платежа",
            );
            return;
        };
        let purpose = self.trimmed(Field::Purpose, purpose);
        if rules::longer_than(purpose, MAX_PURPOSE) {
            let length = purpose.chars().count();
            self.add(Code::PurposeTooLong, Field::Purpose, Some(purpose), || {
                tr!(
                    "the purpose has {length} characters; shorten it to {MAX_PURPOSE}" ;
                    "назначение платежа длиннее {MAX_PURPOSE} знаков ({length}): сократите его"
                )
            });
        }
        // The rest is VAT, which a statement's record is not told about.
        let vat_told = self.kept(Code::VatNotMentioned) || self.kept(Code::VatAmount);
        if !vat_told || payment.kind() != Kind::Ordinary || !vat_may_apply_to(payment) {
            return;
        }
        // The purpose upper-cased once for both questions.
        let upper = upper_utf8(purpose);
        if !vat_may_apply_to_text(&upper) {
            return;
        }
        match vat_in_upper(&upper) {
            None => self.add(
                Code::VatNotMentioned,
                Field::Purpose,
                None,
                || Message::new("say whether the sum includes VAT (\"в т.ч. НДС 20% - …\" or \"Без налога (НДС)\"), \
                 as the Tax Code art. 168 asks", "укажите, включён ли в сумму НДС («в т.ч. НДС 20% - …» или «Без налога (НДС)»), как требует ст. 168 НК РФ"),
            ),
            Some(Vat::Amount { rate, amount }) => {
                // Checked: a sum or a rate near the decimal's limits (the sum's own rules say
                // what is wrong with it) has no VAT to compare.
                let expected = payment.sum.and_then(|sum| {
                    sum.checked_mul(rate)?
                        .checked_div(Decimal::ONE_HUNDRED.checked_add(rate)?)
                        .map(|v| v.round_dp(2))
                });
                if let Some(expected) = expected
                    && let Some(sum) = payment.sum
                {
                    let off = expected.checked_sub(amount).map(|d| d.abs());
                    if off.is_none_or(|off| off > Decimal::new(1, 2)) {
                        self.add(
                            Code::VatAmount,
                            Field::Purpose,
                            Some(&amount.to_string()),
                            || tr!(
                                "VAT {rate}% of {sum} is {expected}, the purpose says {amount}" ;
                                "НДС {rate}% от {sum} — {expected}, а в назначении платежа {amount}"
                            ),
                        );
                    }
                }
            }
            Some(Vat::Mentioned) => {}
        }
    }

    fn budget<T: Text>(&mut self, payment: &Payment<T>, budget: &Budget<T>) {
        let status = budget
            .payer_status
            .as_deref()
            .map(|v| self.trimmed(Field::PayerStatus, v));
        match status {
            None => self.missing(Field::PayerStatus, "the payer status (field 101), e.g. 01", "статус плательщика (поле 101), например 01"),
            Some(status)
                if rules::REMOVED_PAYER_STATUSES.contains(&status)
                    && !self.since(since::STATUSES_REMOVED) => {}
            Some(status) if rules::REMOVED_PAYER_STATUSES.contains(&status) => self.add(
                Code::PayerStatusRemoved,
                Field::PayerStatus,
                Some(status),
                || Message::new("statuses 09–12 were removed on 01.10.2021: individual entrepreneurs, notaries, \
                 lawyers and farm heads use 13 (or 01 for the single tax payment)", "статусы 09–12 отменены с 01.10.2021: индивидуальные предприниматели, нотариусы, адвокаты и главы КФХ указывают 13 (или 01 в едином налоговом платеже)"),
            ),
            Some(status) if !rules::PAYER_STATUSES.contains(&status) => self.add(
                Code::PayerStatusInvalid,
                Field::PayerStatus,
                Some(status),
                || Message::new("the payer status is two digits of 107n's list, e.g. 01 (taxpayer), 02 (tax \
                 agent), 13 (person)", "статус плательщика — две цифры из перечня приказа 107н, например 01 (налогоплательщик), 02 (налоговый агент), 13 (физическое лицо)"),
            ),
            Some(_) => {}
        }
        match self.placeholder(Field::Kbk, &budget.kbk) {
            Some("0") if payment.uin.is_none() && self.treasury != Some(TreasuryKind::Other) => self.add(
                Code::KbkFormat,
                Field::Kbk,
                Some("0"),
                || Message::new("a budget payment needs its KBK; 0 is allowed only with a UIN", "в платеже в бюджет нужен КБК; 0 допустим только при наличии УИН"),
            ),
            Some("0") | None => {}
            Some(kbk) if rules::kbk(kbk).is_err() => self.add(
                Code::KbkFormat,
                Field::Kbk,
                Some(kbk),
                || Message::new("a KBK is 20 digits, not all zeros", "КБК — 20 цифр, не одни нули"),
            ),
            Some(kbk) if kbk.starts_with("000") => self.add(
                Code::KbkTemplate,
                Field::Kbk,
                Some(kbk),
                || Message::new("a KBK starting with 000 is a template; put the administrator's code first", "КБК, начинающийся с 000, — это шаблон: первыми укажите код главного администратора доходов"),
            ),
            Some(kbk) => self.administrator(payment, budget, kbk),
        }
        if let Some(oktmo) = self.placeholder(Field::Oktmo, &budget.oktmo)
            && oktmo != "0"
            && rules::oktmo(oktmo).is_err()
        {
            self.add(Code::OktmoFormat, Field::Oktmo, Some(oktmo), || {
                Message::new(
                    "an OKTMO code is 8 or 11 digits, not all zeros, or 0",
                    "код ОКТМО — 8 или 11 цифр, не одни нули, либо 0",
                )
            });
        }
        let basis = self.placeholder(Field::Basis, &budget.basis);
        if let Some(basis) = basis
            && !rules::BASES.contains(&basis)
        {
            self.add(
                Code::BasisInvalid,
                Field::Basis,
                Some(basis),
                || Message::new("the basis (field 106) is two capital Cyrillic letters of 107n's list (ТП, ЗД, ТР, \
                 …) or 0", "основание платежа (поле 106) — две заглавные русские буквы из перечня приказа 107н (ТП, ЗД, ТР, …) или 0"),
            );
        }
        let kbk = field_text(&budget.kbk);
        if let Some(period) = self.placeholder(Field::Period, &budget.period)
            && rules::period(period, kbk).is_err()
        {
            self.add(
                Code::PeriodInvalid,
                Field::Period,
                Some(period),
                || Message::new("the tax period is МС.01–12, КВ.01–04, ПЛ.01–02 or ГД.00 with the year \
                 (МС.03.2024), a date ДД.ММ.ГГГГ, a customs code, or 0", "налоговый период — МС.01–12, КВ.01–04, ПЛ.01–02 или ГД.00 с годом (МС.03.2024), дата ДД.ММ.ГГГГ, код таможенного органа или 0"),
            );
        }
        if let Some(number) = self.placeholder(Field::BudgetDocNumber, &budget.number) {
            if number.contains('№') || number.chars().count() > 15 {
                self.add(
                    Code::DocNumberInvalid,
                    Field::BudgetDocNumber,
                    Some(number),
                    || Message::new(
                        "the document number (field 108) has at most 15 characters and no № sign",
                        "номер документа (поле 108) — не длиннее 15 знаков и без знака №",
                    ),
                );
            } else if number == "0"
                && payment.uin.is_none()
                && basis.is_some_and(|b| rules::BASES_WITH_DOCUMENT.contains(&b))
            {
                self.add(
                    Code::DocNumberInvalid,
                    Field::BudgetDocNumber,
                    Some(number),
                    || {
                        let basis = basis.unwrap_or_default();
                        tr!(
                            "with basis {basis} give the number of the demand or decision (or its UIN)" ;
                            "при основании {basis} укажите номер требования или решения (или его УИН)"
                        )
                    },
                );
            }
        }
        if let Some(date) = self.placeholder(Field::BudgetDocDate, &budget.date)
            && date != "0"
            && rules::date_text(date).is_err()
        {
            self.add(
                Code::DocDateInvalid,
                Field::BudgetDocDate,
                Some(date),
                || {
                    Message::new(
                        "the document date (field 109) is ДД.ММ.ГГГГ or 0",
                        "дата документа (поле 109) — ДД.ММ.ГГГГ или 0",
                    )
                },
            );
        }
        if let Some(kind) = field_text(&budget.payment_type)
            && !matches!(kind, "" | "0")
            && self.since(since::NO_PAYMENT_TYPE)
        {
            self.add(
                Code::PaymentTypeObsolete,
                Field::PaymentType,
                Some(kind),
                || Message::new("field 110 is obsolete since 2015: leave it empty (some banks refuse ПЕ and ПЦ)", "поле 110 не заполняется с 2015 года: оставьте его пустым (некоторые банки не принимают ПЕ и ПЦ)"),
            );
        }
        if let Some(inn) = payment.deduction_inn.as_deref() {
            self.inn(Field::DeductionInn, inn, true);
            if field_text(&budget.payer_status) != Some("19") {
                self.add(
                    Code::DeductionInnStatus,
                    Field::DeductionInn,
                    Some(inn),
                    || Message::new("the INN of a person a salary deduction is made for goes with payer status 19", "ИНН физического лица, из дохода которого удержаны деньги, указывают только со статусом плательщика 19"),
                );
            }
        }
        if kbk == Some(enp::KBK) && self.since(since::SINGLE_TAX_PAYMENT) {
            self.single_tax_payment(payment, budget);
        }
    }

    /// The KBK's administrator (digits 1–3) against the payee and the payer status (§6.1), and
    /// the single tax payment's account against KBKs that do not go there (§4.9). Only a
    /// mismatch with a payee we know is an error; what a payee's name suggests is a warning.
    fn administrator<T: Text>(&mut self, payment: &Payment<T>, budget: &Budget<T>, kbk: &str) {
        let admin = rules::kbk_administrator(kbk);
        let recipient = &payment.recipient;
        let on_enp_account = field_text(&recipient.account) == Some(enp::ACCOUNT)
            && self.since(since::SINGLE_TAX_PAYMENT);
        let mut payee_said = false;
        if on_enp_account {
            payee_said = true;
            match rules::on_enp_account(kbk) {
                OnEnpAccount::Allowed(_) => {}
                OnEnpAccount::OtherAdministrator => self.add(
                    Code::EnpKbk,
                    Field::Kbk,
                    Some(kbk),
                    || tr!(
                        "account {} takes only the FNS's payments (KBK 182…); a KBK of administrator \
                         {admin} goes to that administrator's own account (the Social Fund's \
                         797… to its regional branch's)", enp::ACCOUNT ;
                        "на счёт {} зачисляются только платежи ФНС (КБК 182…); КБК администратора \
                         {admin} платят на счёт этого администратора (797… Социального фонда — на \
                         счёт его регионального отделения)", enp::ACCOUNT
                    ),
                ),
                OnEnpAccount::PaidAsEnp if self.since(since::ENP_ONLY) => self.add(
                    Code::EnpKbk,
                    Field::Kbk,
                    Some(kbk),
                    || tr!(
                        "since 2024 taxes and insurance contributions go to account {} only as \
                         the single tax payment, with KBK {} (107n, appendix 2, p. 4.4): a \
                         payment order no longer stands for a notification", enp::ACCOUNT, enp::KBK ;
                        "с 2024 года налоги и страховые взносы перечисляют на счёт {} только \
                         единым налоговым платежом с КБК {} (приказ 107н, приложение 2, п. 4.4): \
                         платёжное поручение больше не заменяет уведомление", enp::ACCOUNT, enp::KBK
                    ),
                ),
                OnEnpAccount::PaidAsEnp => {}
                OnEnpAccount::Unknown => self.add(
                    Code::EnpKbkUnsure,
                    Field::Kbk,
                    Some(kbk),
                    || tr!(
                        "a payment with its own KBK on account {} must be one the FNS lists as \
                         outside the single tax payment (patent NDFL, state duty, НПД, wildlife \
                         fees); we cannot tell whether this FNS KBK is: check it with the tax \
                         office", enp::ACCOUNT ;
                        "платёж со своим КБК на счёт {} должен быть из перечня ФНС платежей вне ЕНП \
                         (НДФЛ по патенту, госпошлина, НПД, сборы за животный мир); входит ли в него \
                         этот КБК ФНС, мы определить не можем: уточните в налоговом органе", enp::ACCOUNT
                    ),
                ),
            }
        }
        let inn = field_text(&recipient.inn);
        let known = rules::KNOWN_PAYEES
            .iter()
            .find(|(known, _, _)| Some(*known) == inn);
        if let Some(&(_, expected, name)) = known {
            if !payee_said && admin != expected {
                self.add(Code::KbkPayee, Field::Kbk, Some(kbk), || {
                    let inn = inn.unwrap_or_default();
                    tr!(
                        "the payee {name} (INN {inn}) takes KBKs of administrator {expected}; \
                         {admin} is another administrator's: take that administrator's \
                         requisites" ;
                        "получатель {name} (ИНН {inn}) принимает КБК администратора {expected}, \
                         а {admin} — КБК другого администратора: возьмите его реквизиты"
                    )
                });
            }
        } else if let Some(expected) = recipient
            .name
            .as_deref()
            .and_then(rules::administrator_by_name)
            && !payee_said
            && admin != expected
        {
            self.add(
                Code::KbkPayeeUnsure,
                Field::Kbk,
                Some(kbk),
                || tr!(
                    "the payee's name points to administrator {expected}, the KBK's administrator \
                     is {admin}; we do not know this payee's INN, so check the requisites with \
                     the payee" ;
                    "наименование получателя указывает на администратора {expected}, а администратор \
                     КБК — {admin}; ИНН этого получателя нам неизвестен: сверьте реквизиты с \
                     получателем"
                ),
            );
        }
        let Some(status) = field_text(&budget.payer_status) else {
            return;
        };
        if kbk == enp::KBK || !rules::PAYER_STATUSES.contains(&status) {
            return;
        }
        match admin {
            "153" if rules::TAX_ONLY_STATUSES.contains(&status) => self.add(
                Code::PayerStatusKbk,
                Field::PayerStatus,
                Some(status),
                || tr!(
                    "KBK {kbk} is a customs payment: the payer status is 06 (organisation), 16 \
                     (person) or 17 (individual entrepreneur), not the taxpayer's {status}" ;
                    "КБК {kbk} — таможенный платёж: статус плательщика 06 (организация), 16 \
                     (физическое лицо) или 17 (индивидуальный предприниматель), а не {status} \
                     налогоплательщика"
                ),
            ),
            "153" if !rules::CUSTOMS_STATUSES.contains(&status) => self.add(
                Code::PayerStatusKbkUnsure,
                Field::PayerStatus,
                Some(status),
                || tr!(
                    "KBK {kbk} is a customs payment; the customs statuses we could confirm are \
                     06, 07, 16, 17, 28, 30 and 34, not {status}: check it against 107n's appendix 5" ;
                    "КБК {kbk} — таможенный платёж; подтверждённые нами статусы для таможни — 06, \
                     07, 16, 17, 28, 30 и 34, а не {status}: сверьте с приложением 5 к приказу 107н"
                ),
            ),
            "182" if ["06", "16", "17"].contains(&status) => self.add(
                Code::PayerStatusKbk,
                Field::PayerStatus,
                Some(status),
                || tr!(
                    "status {status} is a foreign-trade payer's, for customs payments; a payment to \
                     the FNS (KBK {kbk}) takes 01 (taxpayer), 02 (tax agent) or 13 (person)" ;
                    "статус {status} — участника ВЭД, для таможенных платежей; в платеже ФНС \
                     (КБК {kbk}) указывают 01 (налогоплательщик), 02 (налоговый агент) или 13 \
                     (физическое лицо)"
                ),
            ),
            _ => {}
        }
    }

    /// A payment to a treasury account for money in temporary custody (a court's deposit, a
    /// security): not budget revenue, so not 107n's budget fields but the custody rules (§4.8).
    fn custody<T: Text>(&mut self, payment: &Payment<T>, kind: TreasuryKind) {
        let code = payment.uin.as_deref().map(|v| self.trimmed(Field::Uin, v));
        let is_code = code.is_some_and(|c| rules::npa_code(c).is_ok());
        match kind {
            TreasuryKind::FederalCustody if !is_code && self.since(since::NPA_CODE) => self.add(
                Code::NpaCode,
                Field::Uin,
                code,
                || Message::new(
                    "a payment to a federal custody account (03212…, a court's deposit) carries in \
                     field 22 the four-digit code of the legal act the payee names (e.g. 0026 for \
                     a security in a court case, 119n); without it the money is booked as \
                     unidentified",
                    "в платеже на счёт для средств во временном распоряжении федеральных \
                     получателей (03212…, депозит суда) в поле 22 указывают четырёхзначный код НПА, \
                     который сообщает получатель (например, 0026 — обеспечение по делу; приказ \
                     119н); без него деньги учитываются как невыясненные",
                ),
            ),
            TreasuryKind::Custody if !is_code => self.add(
                Code::NonRevenueTreasury,
                Field::Uin,
                code,
                || Message::new(
                    "a custody account of a regional or municipal budget (03222…, 03232…) follows its \
                     finance body's procedure, which usually asks for the code of the legal act in \
                     field 22 as 119n does for federal ones; this is not such a four-digit code: \
                     check it with the payee",
                    "счёт для средств во временном распоряжении регионального или местного бюджета \
                     (03222…, 03232…) ведётся по порядку его финансового органа, обычно с кодом НПА \
                     в поле 22, как по приказу 119н для федеральных; четырёхзначного кода здесь \
                     нет: сверьте с получателем",
                ),
            ),
            _ => {}
        }
        let Some(budget) = &payment.budget else {
            return;
        };
        for (field, value) in [
            (Field::Kbk, &budget.kbk),
            (Field::Oktmo, &budget.oktmo),
            (Field::Basis, &budget.basis),
            (Field::Period, &budget.period),
            (Field::BudgetDocNumber, &budget.number),
            (Field::BudgetDocDate, &budget.date),
            (Field::PaymentType, &budget.payment_type),
        ] {
            if let Some(value) = field_text(value)
                && !matches!(value, "" | "0")
            {
                self.add(Code::NonRevenueTreasury, field, Some(value), || {
                    Message::new(
                        "money in temporary custody (a deposit, a security) is not budget revenue: \
                         fields 104–110 are 0",
                        "средства во временном распоряжении (депозит, обеспечение) — не доход \
                         бюджета: в полях 104–110 указывается 0",
                    )
                });
            }
        }
    }

    /// A budget field: 107n wants `0`, not an empty field, when there is no value.
    fn placeholder<'v, T: Text>(&mut self, field: Field, value: &'v Option<T>) -> Option<&'v str> {
        let value = value.as_deref().map(|v| self.trimmed(field, v));
        if value.is_none() {
            self.add(Code::BudgetPlaceholder, field, None, || {
                Message::new(
                    "write 0 when a budget field has no value (107n); it is written 0",
                    "если у бюджетного поля нет значения, укажите 0 (приказ 107н); записывается 0",
                )
            });
        }
        value
    }

    /// The requisites of the single tax payment (ЕНП).
    fn single_tax_payment<T: Text>(&mut self, payment: &Payment<T>, budget: &Budget<T>) {
        let recipient = &payment.recipient;
        for (field, value, expected) in [
            (Field::RecipientInn, &recipient.inn, enp::INN),
            (Field::RecipientBik, &recipient.bank.bik, enp::BIK),
            (
                Field::RecipientCorrAccount,
                &recipient.bank.corr_account,
                enp::CORR_ACCOUNT,
            ),
            (Field::RecipientAccount, &recipient.account, enp::ACCOUNT),
        ] {
            let value = value.as_deref().map(trim);
            if value.is_some_and(|v| v != expected) {
                self.add(Code::EnpRequisite, field, value, || {
                    tr!(
                        "the single tax payment (KBK {}) goes to {expected}", enp::KBK ;
                        "реквизит единого налогового платежа (КБК {}) — {expected}", enp::KBK
                    )
                });
            }
        }
        match recipient.kpp.as_deref().map(trim) {
            Some(enp::KPP) | None => {}
            Some(enp::OLD_KPP) if !self.since(since::SINGLE_TAX_PAYMENT_KPP) => {}
            Some(enp::OLD_KPP) => self.add(
                Code::EnpOutdated,
                Field::RecipientKpp,
                Some(enp::OLD_KPP),
                || tr!(
                    "the FNS changed the single tax payment's recipient KPP to {} in December 2025", enp::KPP ;
                    "в декабре 2025 года ФНС сменила КПП получателя единого налогового платежа на {}", enp::KPP
                ),
            ),
            Some(other) => self.add(
                Code::EnpRequisite,
                Field::RecipientKpp,
                Some(other),
                || tr!(
                    "the single tax payment's recipient KPP is {}", enp::KPP ;
                    "КПП получателя единого налогового платежа — {}", enp::KPP
                ),
            ),
        }
        // 01 for every payer, 02 for a tax agent (199н of 30.12.2022); a customs status is
        // refused by the KBK's administrator check (payer-status-kbk), not said twice.
        if let Some(status) = budget.payer_status.as_deref().map(trim)
            && !["01", "02", "06", "16", "17"].contains(&status)
        {
            self.add(Code::EnpOutdated, Field::PayerStatus, Some(status), || {
                Message::new(
                    "since 2023 the single tax payment takes status 01 (02 for a tax agent)",
                    "с 2023 года в едином налоговом платеже указывают статус 01 (налоговый агент \
                     — 02)",
                )
            });
        }
        for (field, value) in [
            (Field::Oktmo, &budget.oktmo),
            (Field::Basis, &budget.basis),
            (Field::Period, &budget.period),
            (Field::BudgetDocNumber, &budget.number),
            (Field::BudgetDocDate, &budget.date),
        ] {
            if let Some(value) = value.as_deref().map(trim)
                && value != "0"
                && (field != Field::Oktmo || self.since(since::SINGLE_TAX_PAYMENT_NO_OKTMO))
            {
                self.add(
                    Code::EnpOutdated,
                    field,
                    Some(value),
                    || Message::new("the single tax payment has 0 in fields 105–109: the tax office assigns the \
                     money itself", "в едином налоговом платеже в полях 105–109 ставится 0: налоговый орган сам распределяет деньги"),
                );
            }
        }
    }

    fn third_party<T: Text>(&mut self, payment: &Payment<T>, third: &ThirdParty<T>) {
        if trim(&third.name).is_empty() {
            self.missing(
                Field::ThirdPartyName,
                "the name of the third party",
                "наименование третьего лица",
            );
        } else {
            self.name(Field::ThirdPartyName, &third.name);
        }
        self.inn(Field::ThirdPartyInn, &third.inn, true);
        let inn = trim(&third.inn);
        let kpp = trim(&third.kpp);
        if inn.len() == 12 && !matches!(kpp, "" | "0") {
            self.add(Code::KppFormat, Field::ThirdPartyKpp, Some(kpp), || {
                Message::new(
                    "a person (12-digit INN) has no KPP: write 0",
                    "у физического лица (ИНН из 12 цифр) нет КПП: укажите 0",
                )
            });
        } else if !kpp.is_empty() {
            self.kpp(Field::ThirdPartyKpp, kpp, true);
        } else if inn.len() == 10 {
            self.add(Code::PayerKppMissing, Field::ThirdPartyKpp, None, || {
                Message::new(
                    "the organisation paid for carries its KPP in field 102 (107n, appendix 1): \
                     fill it in",
                    "КПП организации, за которую платят, указывается в поле 102 (приказ 107н, \
                     приложение 1): заполните его",
                )
            });
        }
        let status = payment
            .budget
            .as_ref()
            .and_then(|b| b.payer_status.as_deref())
            .map(trim);
        if status == Some("02") {
            self.add(
                Code::ThirdPartyNotAllowed,
                Field::PayerStatus,
                Some("02"),
                || {
                    Message::new(
                        "a tax agent's payment (status 02) cannot be made by a third party",
                        "третье лицо не может заплатить за налогового агента (статус 02)",
                    )
                },
            );
        }
        let starts_with_inn = payment.purpose.as_deref().is_some_and(|p| {
            p.split_once("//").is_some_and(|(inn, _)| {
                matches!(trim(inn).len(), 10 | 12) && trim(inn).bytes().all(|b| b.is_ascii_digit())
            })
        });
        if !starts_with_inn {
            self.add(
                Code::ThirdPartyPurpose,
                Field::Purpose,
                None,
                || Message::new("a payment for a third party starts its purpose with the payer's INN//KPP// and \
                 the third party's name//", "назначение платежа за третье лицо начинается с ИНН//КПП// плательщика и наименования третьего лица//"),
            );
        }
    }
}

/// Whether VAT can be part of an ordinary payment (НК РФ art. 168 p. 4 is about a seller's
/// goods and services, §5.3): not a payment to a treasury account (the budget, a court's
/// deposit), not one to a person's account (40817, 40820 and the like, deposits 423…, 426…), not an income
/// with its type code in field 20 (wages, alimony, benefits), and (by
/// [`vat_may_apply_to_text`]) not wages, alimony or stipends named in the purpose.
fn vat_may_apply_to<T: Text>(payment: &Payment<T>) -> bool {
    let account = field_text(&payment.recipient.account).unwrap_or_default();
    if account.starts_with("03") || account.starts_with("40101") || account.starts_with("40102") {
        return false;
    }
    if to_persons_account(payment) {
        return false;
    }
    !has_income_code(payment)
}

/// The rest of [`vat_may_apply_to`]: the purpose, upper-cased, names none of those.
fn vat_may_apply_to_text(upper: &[u8]) -> bool {
    static NOT_SALES: Words<2> = LazyLock::new(|| ["АЛИМЕНТ", "СТИПЕНД"].map(Finder::new));
    !(names_wages(upper) || any_in(&NOT_SALES, upper))
}

/// Words looked for in upper-cased texts, each with its searcher made once: `str::contains`
/// makes a searcher on every call, which costs more than a search in a purpose does.
type Words<const N: usize> = LazyLock<[Finder<'static>; N]>;

/// Whether `text` holds one of `words`.
fn any_in<const N: usize>(words: &Words<N>, text: &[u8]) -> bool {
    words.iter().any(|w| w.find(text).is_some())
}

/// The accounts of persons of 579-П (a bank's public validator lists them): current accounts of
/// individuals `40817`, `40820`, `40803`, `40810`, `40813`, `40824`, `40826`; deposits `423…`,
/// `426…`.
const PERSONS_ACCOUNTS: &[&str] = &[
    "40803", "40810", "40813", "40817", "40820", "40824", "40826", "423", "426",
];

fn to_persons_account<T: Text>(payment: &Payment<T>) -> bool {
    let account = field_text(&payment.recipient.account).unwrap_or_default();
    PERSONS_ACCOUNTS.iter().any(|p| account.starts_with(p))
}

/// Field 20 holds an income type code (762-П: wages and other income, codes 1–5).
fn has_income_code<T: Text>(payment: &Payment<T>) -> bool {
    field_text(&payment.purpose_code).is_some_and(|c| matches!(c, "1" | "2" | "3" | "4" | "5"))
}

/// Whether an upper-cased purpose names wages: `заработн…`, `зарплат…`, `з/п`, `з/пл`,
/// «оплата труда», `отпускн…`, or the payroll register (`по реестру` with `зачислен…` or
/// `перечислен…` — a salary project's transfer for the employees' cards).
fn names_wages(upper: &[u8]) -> bool {
    // `З/П` also finds `З/ПЛ`.
    static WAGES: Words<6> = LazyLock::new(|| {
        [
            "ЗАРАБОТН",
            "ЗАРПЛАТ",
            "З/П",
            "ОПЛАТА ТРУДА",
            "ОПЛАТЫ ТРУДА",
            "ОТПУСКН",
        ]
        .map(Finder::new)
    });
    static REGISTER: Words<1> = LazyLock::new(|| ["ПО РЕЕСТРУ"].map(Finder::new));
    static CREDITED: Words<2> = LazyLock::new(|| ["ЗАЧИСЛЕН", "ПЕРЕЧИСЛЕН"].map(Finder::new));
    any_in(&WAGES, upper) || (any_in(&REGISTER, upper) && any_in(&CREDITED, upper))
}

/// Whether a payment is wages, for the third priority (ГК РФ art. 855 p. 2): the purpose names
/// wages, or it goes to a person's account with an income type code in field 20, or it pays a
/// person's account an advance (`аванс`: the first half of a month's wages).
fn is_wages<T: Text>(payment: &Payment<T>) -> bool {
    static ADVANCE: Words<1> = LazyLock::new(|| ["АВАНС"].map(Finder::new));
    let upper = upper_utf8(payment.purpose.as_deref().unwrap_or_default());
    names_wages(&upper)
        || (to_persons_account(payment) && (has_income_code(payment) || any_in(&ADVANCE, &upper)))
}

fn field_text<T: Text>(value: &Option<T>) -> Option<&str> {
    value.as_deref().map(trim)
}

/// What a purpose says about VAT.
#[derive(Debug, PartialEq, Eq)]
enum Vat {
    /// Mentioned (rate, exemption or "без НДС") without an amount to check.
    Mentioned,
    /// `НДС N% … X`: a rate and an amount.
    Amount { rate: Decimal, amount: Decimal },
}

/// Finds a VAT mention: `НДС` in any letter case. With a rate `N%` (`НДС 20%`, `НДС (22 %)`)
/// followed, after only dashes, colons, brackets or "в сумме", by a number, the amount; a rate
/// without an amount right after it (`в т.ч. НДС (20%), сумма комисс. 0.15`), an amount that
/// cannot be read for sure (`1.666,67`), or two rates is only a mention: an unsure reading is
/// never turned into a wrong number.
#[cfg(test)]
fn vat(purpose: &str) -> Option<Vat> {
    vat_in_upper(&upper_utf8(purpose))
}

/// [`vat`] of a purpose upper-cased already ([`upper_utf8`]).
fn vat_in_upper(upper: &[u8]) -> Option<Vat> {
    static VAT: Words<1> = LazyLock::new(|| ["НДС"].map(Finder::new));
    let at = VAT[0].find(upper)?;
    // What follows a whole character of UTF-8 is UTF-8.
    let Ok(rest) = std::str::from_utf8(&upper[at + "НДС".len()..]) else {
        return Some(Vat::Mentioned);
    };
    let percent = rest.find('%').filter(|&p| p < 24);
    let Some(percent) = percent else {
        return Some(Vat::Mentioned);
    };
    // Two rates (`НДС 20% … НДС 10% …`): which amount is which is not ours to guess.
    let after = &rest[percent + 1..];
    if after.contains("НДС") && after.contains('%') {
        return Some(Vat::Mentioned);
    }
    let rate: String = rest[..percent]
        .trim_end()
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let rate = rate.replace(',', ".").parse::<Decimal>().ok();
    let amount = amount_after_rate(after);
    match (rate, amount) {
        (Some(rate), Some(amount)) if rate > Decimal::ZERO => Some(Vat::Amount { rate, amount }),
        _ => Some(Vat::Mentioned),
    }
}

/// The amount written right after a VAT rate: only spaces, dashes, colons, `=`, brackets and the
/// words "в сумме", "сумма", "составляет" may stand between (text upper-cased).
fn amount_after_rate(after: &str) -> Option<Decimal> {
    let mut text = after;
    loop {
        let trimmed = text.trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, '-' | '–' | '—' | ':' | '=' | ')' | '(')
        });
        let word = ["В СУММЕ", "СУММА", "СОСТАВЛЯЕТ"]
            .iter()
            .find_map(|w| trimmed.strip_prefix(w));
        match word {
            Some(rest) => text = rest,
            None => {
                text = trimmed;
                break;
            }
        }
    }
    if !text.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    number_at(text)
}

/// The number a text starts with: digits, one decimal point or comma, and spaces only as
/// thousands separators (`1 803,28`); kopecks after a hyphen as people write them (`9999-99`)
/// or in words (`1666 руб. 67 коп.`). `None` when the number does not end cleanly
/// (`1.666,67`, `12-5`): a figure that may be misread is no figure.
fn number_at(text: &str) -> Option<Decimal> {
    let chars: Vec<char> = text.chars().collect();
    let mut number = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let thousands = matches!(c, ' ' | '\u{a0}')
            && !number.contains('.')
            && chars.len() >= i + 4
            && chars[i + 1..i + 4].iter().all(char::is_ascii_digit)
            && !chars.get(i + 4).is_some_and(char::is_ascii_digit);
        match c {
            _ if c.is_ascii_digit() => number.push(c),
            '.' | ',' if !number.contains('.') => number.push('.'),
            _ if thousands => {}
            _ => break,
        }
        i += 1;
    }
    let digit = |k: usize| chars.get(k).is_some_and(char::is_ascii_digit);
    // `9999-99`: a hyphen and exactly two digits are kopecks.
    if !number.contains('.') && chars.get(i) == Some(&'-') && digit(i + 1) {
        if digit(i + 2) && !digit(i + 3) {
            number.push('.');
            number.extend(&chars[i + 1..i + 3]);
            i += 3;
        } else {
            return None;
        }
    }
    // A point or comma that goes on with digits: `1.666,67` read as 1.666 would be wrong.
    if matches!(chars.get(i), Some('.' | ',')) && digit(i + 1) {
        return None;
    }
    if number.ends_with('.') {
        number.pop();
    }
    let mut value: Decimal = number.parse().ok()?;
    // `1666 руб. 67 коп.`
    if value.scale() == 0 {
        let tail: String = chars[i..].iter().collect::<String>().to_uppercase();
        if let Some(kopecks) = kopecks_in_words(&tail) {
            value += kopecks;
        }
    }
    Some(value)
}

/// `РУБ. 67 КОП.` (or `РУБЛЕЙ 67 КОПЕЕК`) after a whole number of roubles: the kopecks.
fn kopecks_in_words(tail: &str) -> Option<Decimal> {
    let rest = tail.trim_start().strip_prefix("РУБ")?;
    let rest = rest.trim_start_matches(|c: char| c.is_alphabetic() || c == '.');
    let rest = rest.trim_start();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() || digits.len() > 2 {
        return None;
    }
    if !rest[digits.len()..].trim_start().starts_with("КОП") {
        return None;
    }
    Some(Decimal::new(digits.parse().ok()?, 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_found_on_bytes_as_on_chars() {
        for c in (0..0x3000u32).filter_map(char::from_u32) {
            for value in [
                c.to_string(),
                format!("Оплата {c} ёж"),
                format!("a{c}\u{9f}"),
            ] {
                assert_eq!(
                    control_character(&value),
                    value.chars().find(|c| c.is_control()),
                    "{value:?}"
                );
            }
        }
    }

    #[test]
    fn upper_is_to_uppercase() {
        use crate::rules::upper;
        let all: String = (0..0x2200u32).filter_map(char::from_u32).collect();
        assert_eq!(upper(&all), all.to_uppercase());
        assert_eq!(upper_utf8(&all), all.to_uppercase().as_bytes());
        let text = "Оплата по счёту № 5, в т.ч. НДС 20% — ßǆ ﬁ";
        assert_eq!(upper(text), text.to_uppercase());
        // Every character, alone and between Russian letters (the two-byte cases look at the
        // byte after).
        for c in (0..0x11000u32).filter_map(char::from_u32) {
            for text in [c.to_string(), format!("я{c}ё"), format!("{c}Ѐ")] {
                assert_eq!(upper_utf8(&text), text.to_uppercase().as_bytes(), "{c:?}");
            }
        }
    }

    #[test]
    fn numbers_in_text() {
        assert_eq!(number_at("1666.67 руб."), Some(Decimal::new(166667, 2)));
        assert_eq!(number_at("1 803,28"), Some(Decimal::new(180328, 2)));
        assert_eq!(number_at("1666.67 2024"), Some(Decimal::new(166667, 2)));
        assert_eq!(number_at("10 2024"), Some(Decimal::new(10, 0)));
        assert_eq!(number_at("15."), Some(Decimal::new(15, 0)));
        // Kopecks after a hyphen, as people write them; in words.
        assert_eq!(number_at("9999-99"), Some(Decimal::new(999999, 2)));
        assert_eq!(number_at("9 999-99 РУБ."), Some(Decimal::new(999999, 2)));
        assert_eq!(
            number_at("1666 РУБ. 67 КОП."),
            Some(Decimal::new(166667, 2))
        );
        assert_eq!(
            number_at("1666 РУБЛЕЙ 67 КОПЕЕК"),
            Some(Decimal::new(166667, 2))
        );
        assert_eq!(number_at("1666 РУБ."), Some(Decimal::new(1666, 0)));
        // What cannot be read for sure is no number.
        assert_eq!(number_at("1.666,67"), None);
        assert_eq!(number_at("12-5"), None);
        assert_eq!(number_at("12-345"), None);
    }

    #[test]
    fn vat_mentions() {
        assert_eq!(vat("Оплата по счету 5"), None);
        assert_eq!(vat("Оплата, без НДС"), Some(Vat::Mentioned));
        assert_eq!(vat("Без налога (НДС)"), Some(Vat::Mentioned));
        assert_eq!(
            vat("Оплата по счету 5 в т.ч. НДС 20% - 1666.67 руб."),
            Some(Vat::Amount {
                rate: Decimal::new(20, 0),
                amount: Decimal::new(166667, 2)
            })
        );
        assert_eq!(
            vat("в том числе ндс (22%) 1 803,28"),
            Some(Vat::Amount {
                rate: Decimal::new(22, 0),
                amount: Decimal::new(180328, 2)
            })
        );
        let amount = |rate, amount| Some(Vat::Amount { rate, amount });
        assert_eq!(
            vat("Оплата по договору 7, НДС 22 % - 9 999,99 рублей"),
            amount(Decimal::new(22, 0), Decimal::new(999999, 2))
        );
        assert_eq!(
            vat("Оплата по договору 7, НДС 20% 9999-99"),
            amount(Decimal::new(20, 0), Decimal::new(999999, 2))
        );
        assert_eq!(
            vat("в т.ч. НДС 20% в сумме 1666 руб. 67 коп."),
            amount(Decimal::new(20, 0), Decimal::new(166667, 2))
        );
        assert_eq!(
            vat("в т.ч. НДС по ставке 20% = 1666.67"),
            amount(Decimal::new(20, 0), Decimal::new(166667, 2))
        );
        // A rate without its amount right after it is only a mention: the commission is not
        // the VAT.
        assert_eq!(vat("Оплата, в т.ч. НДС (20%)"), Some(Vat::Mentioned));
        assert_eq!(
            vat("Сумма плат. 15.00(в т.ч. НДС 18%), сумма комисс. 0.15"),
            Some(Vat::Mentioned)
        );
        // Two rates, or an amount that may be misread: a mention, no amount check.
        assert_eq!(
            vat("НДС 20% - 100.00, НДС 10% - 50.00"),
            Some(Vat::Mentioned)
        );
        assert_eq!(vat("НДС 20% 1.666,67"), Some(Vat::Mentioned));
        assert_eq!(vat("НДС 20% 1666-6"), Some(Vat::Mentioned));
        // The issue's own examples (real statements, 2018): the rate in brackets glued to НДС,
        // kopecks after a hyphen.
        assert_eq!(
            vat("Оплата по счету 118, в т.ч. НДС(18%) - 2593-22"),
            amount(Decimal::new(18, 0), Decimal::new(259322, 2))
        );
        assert_eq!(
            vat("Сумма 85000-00 в т.ч. НДС (22%) 15327-87"),
            amount(Decimal::new(22, 0), Decimal::new(1532787, 2))
        );
    }

    fn ordinary(sum: &str, purpose: &str, date: &str) -> Payment {
        Payment {
            sum: Some(sum.parse().unwrap()),
            date: clientbank_format::value::parse_date(date.as_bytes()),
            purpose: Some(purpose.into()),
            ..Payment::default()
        }
    }

    fn codes(payment: &Payment) -> Vec<Code> {
        let mut check = Check {
            date: payment.date,
            ..Check::default()
        };
        check.purpose(payment);
        check.priority(payment);
        check.findings.iter().map(|f| f.code).collect()
    }

    #[test]
    fn vat_amounts_as_banks_write_them_are_checked_against_the_sum() {
        // 17000.00 × 18 / 118 = 2593.22: right, whatever the date (18 % until 2019).
        let p = ordinary(
            "17000.00",
            "Оплата по счету 118, в т.ч. НДС(18%) - 2593-22",
            "10.07.2018",
        );
        assert_eq!(codes(&p), []);
        // The commission beside the VAT is not the VAT.
        let p = ordinary(
            "15.00",
            "Сумма плат. 15.00(в т.ч. НДС 18%), сумма комисс. 0.15",
            "10.07.2018",
        );
        assert_eq!(codes(&p), []);
        // A wrong figure is still found.
        let p = ordinary("17000.00", "в т.ч. НДС(18%) - 2539-22", "10.07.2018");
        assert_eq!(codes(&p), [Code::VatAmount]);
    }

    #[test]
    fn wages_may_take_the_third_priority() {
        let with = |purpose: &str, account: &str, code: Option<&str>, priority: &str| {
            let mut p = ordinary("1000.00", purpose, "05.03.2024");
            p.recipient.account = Some(account.into());
            p.purpose_code = code.map(str::to_string);
            p.priority = Some(priority.into());
            codes(&p)
        };
        let company = "40702810900000000001";
        let person = "40817810900000000001";
        assert_eq!(
            with(
                "Зачисление заработной платы по реестру № 7",
                company,
                None,
                "3"
            ),
            []
        );
        assert_eq!(with("Перечисление з/п за май", company, None, "3"), []);
        assert_eq!(
            with(
                "Перечисление на счета сотрудников по реестру № 2",
                company,
                None,
                "3"
            ),
            []
        );
        assert_eq!(with("Выплата по договору № 12", person, Some("1"), "3"), []);
        assert_eq!(
            with("Выплата аванса за август на карту", person, None, "3"),
            []
        );
        // Not wages: the third priority is unusual, and the fourth is for anything.
        assert_eq!(
            with("Оплата по счету 5. Без НДС", company, None, "3"),
            [Code::PriorityUnusual]
        );
        assert_eq!(
            with("Выплата по договору № 12", person, None, "3"),
            [Code::PriorityUnusual]
        );
        assert_eq!(
            with("Заработная плата за май", company, None, "4"),
            [Code::PriorityUnusual]
        );
    }

    #[test]
    fn mantissa_digits_counted_as_its_text() {
        for text in [
            "0",
            "0.00",
            "1",
            "9.99",
            "10",
            "175000.00",
            "999999999999999999",
            "1000000000000000000",
            "-5",
            "0.001",
            "79228162514264337593543950335",
        ] {
            let sum: Decimal = text.parse().unwrap();
            let mantissa = sum.normalize().mantissa().unsigned_abs();
            assert_eq!(
                mantissa.checked_ilog10().map_or(1, |l| l + 1) as usize,
                mantissa.to_string().len(),
                "{text}"
            );
        }
    }
}
