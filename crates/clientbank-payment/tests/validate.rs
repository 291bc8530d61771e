//! The vectors of docs/rules.md for the fields that only make sense in a payment (101, 106–109, ЕНП,
//! third party, sum, purpose), through `validate`.

use chrono::NaiveDate;
use clientbank_payment::{
    AccountHolder, Bank, Budget, Code, Context, Field, Kind, Payment, ThirdParty, enp, validate,
    validate_in,
};
use rust_decimal::Decimal;

fn s(v: &str) -> Option<String> {
    Some(v.to_string())
}

fn ordinary() -> Payment {
    Payment {
        number: s("17"),
        date: NaiveDate::from_ymd_opt(2026, 11, 20),
        sum: Some(Decimal::new(5900000, 2)),
        payer: AccountHolder {
            account: s("40702810938000012345"),
            inn: s("7701234560"),
            kpp: s("770101001"),
            name: s("ООО \"Ромашка\""),
            bank: Bank {
                bik: s("044525225"),
                corr_account: s("30101810400000000225"),
                ..Bank::default()
            },
        },
        recipient: AccountHolder {
            name: s("ООО \"Лютик\""),
            inn: s("5009876546"),
            kpp: s("500901001"),
            account: s("40702810210000054321"),
            bank: Bank {
                bik: s("044525974"),
                corr_account: s("30101810145250000974"),
                ..Bank::default()
            },
        },
        purpose: s("Оплата по счету 45, в т.ч. НДС 22% - 10639.34"),
        priority: s("5"),
        operation_kind: s("01"),
        ..Payment::default()
    }
}

fn tax() -> Payment {
    let mut p = ordinary();
    p.recipient = AccountHolder {
        name: s("Казначейство России (ФНС России)"),
        inn: s(enp::INN),
        kpp: s(enp::KPP),
        account: s(enp::ACCOUNT),
        bank: Bank {
            bik: s(enp::BIK),
            corr_account: s(enp::CORR_ACCOUNT),
            ..Bank::default()
        },
    };
    p.purpose = s("Налог на прибыль за 9 месяцев 2026 года");
    p.budget = Some(Budget {
        payer_status: s("01"),
        kbk: s("18210101011011000110"),
        oktmo: s("45379000"),
        basis: s("ТП"),
        period: s("КВ.03.2026"),
        number: s("0"),
        date: s("0"),
        ..Budget::default()
    });
    p
}

fn single_tax_payment() -> Payment {
    let mut p = tax();
    p.purpose = s("Единый налоговый платеж");
    p.budget = Some(Budget {
        payer_status: s("01"),
        kbk: s(enp::KBK),
        oktmo: s("0"),
        basis: s("0"),
        period: s("0"),
        number: s("0"),
        date: s("0"),
        ..Budget::default()
    });
    p
}

fn codes(payment: &Payment) -> Vec<(Code, Option<Field>)> {
    validate(payment, &Context::history())
        .into_iter()
        .map(|f| (f.code, Field::of(&f)))
        .collect()
}

fn with_budget(edit: impl FnOnce(&mut Budget)) -> Payment {
    let mut p = tax();
    edit(p.budget.as_mut().unwrap());
    p
}

#[test]
fn references_are_clean() {
    for p in [ordinary(), tax(), single_tax_payment()] {
        assert_eq!(codes(&p), [], "{p:?}");
    }
    assert_eq!(ordinary().kind(), Kind::Ordinary);
    assert_eq!(tax().kind(), Kind::Budget);
}

#[test]
fn payer_status_101() {
    for valid in ["01", "02", "13"] {
        let p = with_budget(|b| b.payer_status = s(valid));
        assert_eq!(codes(&p), [], "{valid}");
    }
    for (invalid, code) in [
        ("1", Code::PayerStatusInvalid),
        ("AB", Code::PayerStatusInvalid),
        ("09", Code::PayerStatusRemoved),
        ("12", Code::PayerStatusRemoved),
    ] {
        let p = with_budget(|b| b.payer_status = s(invalid));
        assert_eq!(codes(&p), [(code, Some(Field::PayerStatus))], "{invalid}");
    }
    let p = with_budget(|b| b.payer_status = None);
    assert_eq!(codes(&p), [(Code::Missing, Some(Field::PayerStatus))]);
}

#[test]
fn basis_106() {
    for valid in ["ТП", "ЗД", "0"] {
        assert_eq!(codes(&with_budget(|b| b.basis = s(valid))), [], "{valid}");
    }
    for invalid in ["TP", "тп", "00", "ВУ"] {
        assert_eq!(
            codes(&with_budget(|b| b.basis = s(invalid))),
            [(Code::BasisInvalid, Some(Field::Basis))],
            "{invalid}"
        );
    }
}

#[test]
fn period_107_and_placeholders() {
    for invalid in ["МС.13.2024", "MC.01.2024", "31.02.2024", "2024"] {
        assert_eq!(
            codes(&with_budget(|b| b.period = s(invalid))),
            [(Code::PeriodInvalid, Some(Field::Period))],
            "{invalid}"
        );
    }
    assert_eq!(
        codes(&with_budget(|b| b.period = None)),
        [(Code::BudgetPlaceholder, Some(Field::Period))],
        "107n wants 0, not empty"
    );
}

#[test]
fn document_number_108_and_date_109() {
    assert_eq!(
        codes(&with_budget(|b| b.number = s("№ 12"))),
        [(Code::DocNumberInvalid, Some(Field::BudgetDocNumber))]
    );
    assert_eq!(
        codes(&with_budget(|b| b.number = s("1234567890123456"))),
        [(Code::DocNumberInvalid, Some(Field::BudgetDocNumber))]
    );
    // A demand (ТР) names its document, unless the UIN does.
    let demand = with_budget(|b| {
        b.basis = s("ТР");
        b.period = s("0");
    });
    assert_eq!(
        codes(&demand),
        [(Code::DocNumberInvalid, Some(Field::BudgetDocNumber))]
    );
    let mut with_uin = demand.clone();
    with_uin.uin = s("18810192085432512980");
    assert_eq!(codes(&with_uin), []);
    for valid in ["0", "28.03.2024"] {
        assert_eq!(codes(&with_budget(|b| b.date = s(valid))), []);
    }
    for invalid in ["00", "2024-03-28", "31.02.2024"] {
        assert_eq!(
            codes(&with_budget(|b| b.date = s(invalid))),
            [(Code::DocDateInvalid, Some(Field::BudgetDocDate))],
            "{invalid}"
        );
    }
}

#[test]
fn kbk_104_and_oktmo_105() {
    assert_eq!(
        codes(&with_budget(|b| b.kbk = s("00000000000131131022"))),
        [(Code::KbkTemplate, Some(Field::Kbk))]
    );
    assert_eq!(
        codes(&with_budget(|b| b.kbk = s("182010612010100005I0"))),
        [(Code::KbkFormat, Some(Field::Kbk))]
    );
    assert_eq!(
        codes(&with_budget(|b| b.kbk = s("0"))),
        [(Code::KbkFormat, Some(Field::Kbk))],
        "0 only with a UIN"
    );
    for invalid in ["4537900", "00000000", "453790001"] {
        assert_eq!(
            codes(&with_budget(|b| b.oktmo = s(invalid))),
            [(Code::OktmoFormat, Some(Field::Oktmo))]
        );
    }
}

#[test]
fn budget_inn_and_kpp() {
    let mut p = tax();
    p.payer.inn = s("0000000000");
    assert_eq!(codes(&p), [(Code::InnZeroPrefix, Some(Field::PayerInn))]);
    let mut p = tax();
    p.payer.kpp = s("001234567");
    assert_eq!(codes(&p), [(Code::KppZeroPrefix, Some(Field::PayerKpp))]);
    let mut p = tax();
    p.payer.inn = s("12345");
    assert_eq!(codes(&p), [], "a foreign organisation's КИО");
    let mut p = tax();
    p.payer.inn = s("00000");
    assert_eq!(codes(&p), [(Code::InnFormat, Some(Field::PayerInn))]);
    let mut p = tax();
    p.payer.inn = s("0");
    assert_eq!(
        codes(&p),
        [(Code::InnFormat, Some(Field::PayerInn))],
        "0 only with a UIN"
    );
    p.uin = s("18810192085432512980");
    assert_eq!(codes(&p), []);
    let mut p = tax();
    p.recipient.inn = s("500100732259");
    assert_eq!(
        codes(&p),
        [(Code::InnFormat, Some(Field::RecipientInn))],
        "a budget recipient is an organisation"
    );
    let mut p = ordinary();
    p.recipient.kpp = s("7736АВ001");
    assert_eq!(codes(&p), [(Code::KppFormat, Some(Field::RecipientKpp))]);
}

#[test]
fn single_tax_payment_requisites() {
    let mut p = single_tax_payment();
    p.recipient.kpp = s(enp::OLD_KPP);
    assert_eq!(codes(&p), [(Code::EnpOutdated, Some(Field::RecipientKpp))]);
    let mut p = single_tax_payment();
    p.recipient.account = s("03100643000000017300");
    assert_eq!(
        codes(&p),
        [(Code::EnpRequisite, Some(Field::RecipientAccount))]
    );
    let mut p = single_tax_payment();
    p.budget.as_mut().unwrap().period = s("МС.01.2026");
    assert_eq!(codes(&p), [(Code::EnpOutdated, Some(Field::Period))]);
}

#[test]
fn third_party() {
    let mut p = single_tax_payment();
    p.purpose = s("7701234560//770101001//Иванов Иван Иванович//ЕНП");
    p.third_party = Some(ThirdParty {
        name: "Иванов Иван Иванович".into(),
        inn: "500100732259".into(),
        kpp: "0".into(),
    });
    assert_eq!(p.kind(), Kind::ThirdParty);
    assert_eq!(codes(&p), []);
    let mut bad = p.clone();
    bad.third_party.as_mut().unwrap().kpp = "500101001".into();
    assert_eq!(codes(&bad), [(Code::KppFormat, Some(Field::ThirdPartyKpp))]);
    let mut bad = p.clone();
    bad.purpose = s("ЕНП за Иванова");
    assert_eq!(
        codes(&bad),
        [(Code::ThirdPartyPurpose, Some(Field::Purpose))]
    );
    let mut bad = p.clone();
    bad.budget.as_mut().unwrap().payer_status = s("02");
    let found = codes(&bad);
    assert!(found.contains(&(Code::ThirdPartyNotAllowed, Some(Field::PayerStatus))));
    let mut bad = p;
    bad.third_party.as_mut().unwrap().inn = "500100732258".into();
    assert_eq!(
        codes(&bad),
        [(Code::InnCheckDigit, Some(Field::ThirdPartyInn))]
    );
}

#[test]
fn sum_date_purpose_number() {
    let mut p = ordinary();
    p.sum = Some(Decimal::new(10005, 3));
    p.purpose = s("Оплата, без НДС");
    assert_eq!(codes(&p), [(Code::SumPrecision, Some(Field::Sum))]);
    p.sum = Some(Decimal::ZERO);
    assert_eq!(codes(&p), [(Code::SumNotPositive, Some(Field::Sum))]);
    p.sum = Some(Decimal::new(1000, 2));
    p.purpose = s("Оплата без НДС ".repeat(15).trim());
    assert_eq!(codes(&p), [(Code::PurposeTooLong, Some(Field::Purpose))]);
    p.purpose = s("Оплата\tбез НДС");
    assert_eq!(codes(&p), [(Code::ControlCharacter, Some(Field::Purpose))]);
    p.purpose = s("Оплата 100 ₽ без НДС");
    assert_eq!(codes(&p), [(Code::Unrepresentable, Some(Field::Purpose))]);
    p.purpose = s("Оплата без НДС");
    p.number = s("1234567");
    assert_eq!(codes(&p), [(Code::NumberLong, Some(Field::Number))]);
    p.number = s("А-17");
    assert_eq!(codes(&p), [(Code::NumberInvalid, Some(Field::Number))]);

    let today = NaiveDate::from_ymd_opt(2026, 11, 22);
    let p = ordinary();
    let stale = Context::as_of(NaiveDate::from_ymd_opt(2026, 12, 1).unwrap());
    let found: Vec<_> = validate(&p, &stale).iter().map(|f| f.code).collect();
    assert_eq!(found, [Code::DateStale]);
    let early = Context::as_of(NaiveDate::from_ymd_opt(2026, 11, 19).unwrap());
    let found: Vec<_> = validate(&p, &early).iter().map(|f| f.code).collect();
    assert_eq!(found, [Code::DateInFuture]);
    assert!(validate(&p, &Context::as_of(today.unwrap())).is_empty());
}

#[test]
fn every_finding_says_what_to_fix_and_where() {
    let mut p = tax();
    p.recipient.inn = s("770708389");
    p.budget.as_mut().unwrap().basis = s("TP");
    p.priority = s("9");
    let findings = validate(&p, &Context::history());
    let found: Vec<_> = findings.iter().map(|f| f.code).collect();
    assert_eq!(
        found,
        [Code::PriorityInvalid, Code::InnFormat, Code::BasisInvalid],
        "all at once, once each"
    );
    for finding in &findings {
        assert!(finding.key.is_some() && Field::of(finding).is_some());
        assert!(finding.message.en().len() > 20 && finding.message.ru().len() > 20);
        assert_eq!(finding.severity, finding.code.severity());
    }
}

fn dated(mut p: Payment, day: u32, month: u32, year: i32) -> Payment {
    p.date = NaiveDate::from_ymd_opt(year, month, day);
    p
}

#[test]
fn loro_accounts_take_the_credit_institutions_key() {
    // A payee whose account is a loro account at its bank (docs/rules.md §3.3): published pairs.
    for (bik, account) in [
        ("044525700", "30111810600000000013"),
        ("044525225", "30109810400000000294"),
    ] {
        let mut p = ordinary();
        p.recipient.account = s(account);
        p.recipient.bank.bik = s(bik);
        p.recipient.bank.corr_account = s(if bik == "044525700" {
            "30101810200000000700"
        } else {
            "30101810400000000225"
        });
        assert_eq!(codes(&p), [], "{bik} {account}");
        // The key computed by the correspondent-account rule is wrong for a loro account.
        let rkc_key = if bik == "044525700" {
            "30111810000000000013"
        } else {
            "30109810200000000294"
        };
        p.recipient.account = s(rkc_key);
        assert_eq!(
            codes(&p),
            [(Code::AccountKey, Some(Field::RecipientAccount))],
            "{rkc_key}"
        );
    }
}

#[test]
fn field_22_is_a_uin_only_in_budget_payments() {
    // Ordinary payment: the payee's own identifier (a housing account number, a contract
    // code) is at most a warning; a valid UIN is nothing.
    for value in [
        "50133547364",
        "424330352486400000000ЛС12",
        "18810192085432512981",
    ] {
        let mut p = ordinary();
        p.uin = s(value);
        assert_eq!(
            codes(&p),
            [(Code::PayeeIdentifier, Some(Field::Uin))],
            "{value}"
        );
    }
    let mut p = ordinary();
    p.uin = s("18810192085432512980");
    assert_eq!(codes(&p), []);
    p.uin = s("ДОГ-2026/11/20-000001234567");
    let findings = validate(&p, &Context::history());
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].code, Code::PayeeIdentifier);
    assert!(
        findings[0].message.en().contains("27 characters"),
        "{}",
        findings[0]
    );
    assert!(!findings[0].is_error());
    // Budget and third-party payments: format and check digit are errors.
    for (value, code) in [
        ("50133547364", Code::UinFormat),
        ("18810192085432512981", Code::UinCheckDigit),
    ] {
        let mut p = tax();
        p.uin = s(value);
        assert_eq!(codes(&p), [(code, Some(Field::Uin))], "{value}");
        let mut p = single_tax_payment();
        p.third_party = Some(ThirdParty {
            name: "Иванов Иван Иванович".into(),
            inn: "500100732259".into(),
            kpp: "0".into(),
        });
        p.purpose = s("7701234560//770101001//Иванов Иван Иванович//ЕНП");
        p.uin = s(value);
        assert_eq!(codes(&p), [(code, Some(Field::Uin))], "{value}");
    }
}

#[test]
fn rules_apply_by_the_payments_date() {
    // Priority: six until 31.12.2013, ordinary payments the sixth.
    let mut p = dated(ordinary(), 11, 1, 2013);
    p.priority = s("6");
    assert_eq!(codes(&p), []);
    p.priority = s("5");
    assert_eq!(codes(&p), [(Code::PriorityUnusual, Some(Field::Priority))]);
    p.priority = s("7");
    assert_eq!(codes(&p), [(Code::PriorityInvalid, Some(Field::Priority))]);
    let mut p = dated(ordinary(), 31, 12, 2013);
    p.priority = s("6");
    assert_eq!(codes(&p), [(Code::PriorityInvalid, Some(Field::Priority))]);
    // Statuses 09–12 until 01.10.2021.
    let p = dated(with_budget(|b| b.payer_status = s("09")), 30, 9, 2021);
    assert_eq!(codes(&p), []);
    let p = dated(with_budget(|b| b.payer_status = s("09")), 1, 10, 2021);
    assert_eq!(
        codes(&p),
        [(Code::PayerStatusRemoved, Some(Field::PayerStatus))]
    );
    // Field 110 until 2015.
    let p = dated(with_budget(|b| b.payment_type = s("ПЕ")), 30, 12, 2014);
    assert_eq!(codes(&p), []);
    let p = dated(with_budget(|b| b.payment_type = s("ПЕ")), 12, 1, 2015);
    assert_eq!(
        codes(&p),
        [(Code::PaymentTypeObsolete, Some(Field::PaymentType))]
    );
    // INN and KPP starting with 00 in budget payments: refused since 28.03.2016.
    let mut p = dated(tax(), 1, 3, 2016);
    p.payer.kpp = s("001234567");
    assert_eq!(codes(&p), []);
    let p = dated(p, 28, 3, 2016);
    assert_eq!(codes(&p), [(Code::KppZeroPrefix, Some(Field::PayerKpp))]);
    // The single tax payment: its requisites from 2023; OKTMO still allowed in 2023; the
    // old recipient KPP until December 2025.
    let mut p = dated(single_tax_payment(), 10, 3, 2023);
    p.budget.as_mut().unwrap().oktmo = s("45379000");
    p.recipient.kpp = s(enp::OLD_KPP);
    assert_eq!(codes(&p), []);
    let p = dated(p, 10, 3, 2024);
    assert_eq!(codes(&p), [(Code::EnpOutdated, Some(Field::Oktmo))]);
    let p = dated(p, 10, 12, 2025);
    assert_eq!(
        codes(&p),
        [
            (Code::EnpOutdated, Some(Field::RecipientKpp)),
            (Code::EnpOutdated, Some(Field::Oktmo))
        ]
    );
    let mut p = dated(single_tax_payment(), 20, 12, 2022);
    p.budget.as_mut().unwrap().payer_status = s("02");
    assert!(!codes(&p).contains(&(Code::EnpOutdated, Some(Field::PayerStatus))));
    // Without a date: today's rules.
    let mut p = ordinary();
    p.date = None;
    p.priority = s("6");
    assert_eq!(
        codes(&p),
        [
            (Code::Missing, Some(Field::Date)),
            (Code::PriorityInvalid, Some(Field::Priority))
        ]
    );
}

#[test]
fn characters_that_cannot_be_written_are_errors_in_every_field() {
    use clientbank_format::Encoding;
    // A line break, carriage return or tab in a code field: one error, not a whitespace
    // warning (and not a second finding about the code's format).
    for (field, edit) in [
        (
            Field::RecipientInn,
            (|p: &mut Payment| p.recipient.inn = s("5009876546\n")) as fn(&mut Payment),
        ),
        (Field::RecipientKpp, |p| p.recipient.kpp = s("5009\t01001")),
        (Field::RecipientBik, |p| {
            p.recipient.bank.bik = s("044525974\r")
        }),
        (Field::RecipientAccount, |p| {
            p.recipient.account = s("\t40702810210000054321")
        }),
        (Field::PayerAccount, |p| {
            p.payer.account = s("40702810938000012345\r\n")
        }),
        (Field::Number, |p| p.number = s("17\t")),
        (Field::RecipientName, |p| {
            p.recipient.name = s("ООО\t\"Лютик\"")
        }),
        (Field::RecipientBankName, |p| {
            p.recipient.bank.name = s("АО\n«ТБанк»")
        }),
        (Field::Priority, |p| p.priority = s("5\n")),
    ] {
        let mut p = ordinary();
        edit(&mut p);
        assert_eq!(
            codes(&p),
            [(Code::ControlCharacter, Some(field))],
            "{field:?}"
        );
    }
    for (field, edit) in [
        (
            Field::Oktmo,
            (|b: &mut Budget| b.oktmo = s("45379000\n")) as fn(&mut Budget),
        ),
        (Field::PayerStatus, |b| b.payer_status = s("01\t")),
        (Field::BudgetDocNumber, |b| b.number = s("0\r")),
    ] {
        let p = with_budget(edit);
        assert_eq!(
            codes(&p),
            [(Code::ControlCharacter, Some(field))],
            "{field:?}"
        );
    }
    // Spaces alone stay a warning.
    let mut p = ordinary();
    p.recipient.inn = s(" 5009876546 ");
    assert_eq!(codes(&p), [(Code::Whitespace, Some(Field::RecipientInn))]);
    // The encoding decides what can be written: `—` and `«»` are in Windows-1251, not in
    // CP866; an emoji is in neither; UTF-8 holds everything but control characters.
    let mut p = ordinary();
    p.purpose = s("Оплата по счету № 45 — в т.ч. НДС 22% - 10639.34");
    p.recipient.bank.name = s("АО «ТБанк»");
    let in_encoding = |p: &Payment, encoding| -> Vec<(Code, Option<Field>)> {
        validate_in(p, &Context::history(), encoding)
            .into_iter()
            .map(|f| (f.code, Field::of(&f)))
            .collect()
    };
    assert_eq!(in_encoding(&p, Encoding::Cp1251), []);
    assert_eq!(
        in_encoding(&p, Encoding::Cp866),
        [
            (Code::Unrepresentable, Some(Field::RecipientBankName)),
            (Code::Unrepresentable, Some(Field::Purpose))
        ]
    );
    let found = validate_in(&p, &Context::history(), Encoding::Cp866);
    assert!(found[0].message.en().contains("CP866"), "{}", found[0]);
    p.recipient.name = s("ООО \"Лютик\" 🌼");
    assert_eq!(
        in_encoding(&p, Encoding::Cp1251),
        [(Code::Unrepresentable, Some(Field::RecipientName))]
    );
    assert_eq!(in_encoding(&p, Encoding::Utf8), []);
    p.purpose = s("Оплата\tпо счету № 45, в т.ч. НДС 22% - 10639.34");
    assert_eq!(
        in_encoding(&p, Encoding::Utf8),
        [(Code::ControlCharacter, Some(Field::Purpose))]
    );
}
