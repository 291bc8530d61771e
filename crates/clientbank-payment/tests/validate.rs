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
    // Since 2024 a tax goes to these requisites only as the ЕНП; a state duty still goes with
    // its own KBK (the FNS's list of payments outside the ЕНП, docs/rules.md §4.9).
    p.purpose = s("Государственная пошлина за регистрацию изменений в ЕГРЮЛ");
    p.budget = Some(Budget {
        payer_status: s("01"),
        kbk: s("18210807010018000110"),
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
    // A tax agent pays the single tax payment with status 02 (199н of 30.12.2022): no advice;
    // another status is advised to 01 or 02.
    let mut p = single_tax_payment();
    p.budget.as_mut().unwrap().payer_status = s("02");
    assert_eq!(codes(&p), []);
    p.budget.as_mut().unwrap().payer_status = s("13");
    assert_eq!(codes(&p), [(Code::EnpOutdated, Some(Field::PayerStatus))]);
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

/// An account with its control key for `bik`: the digit at position 9 that makes it valid.
fn keyed(bik: &str, account: &str) -> String {
    (0..10)
        .map(|key| format!("{}{key}{}", &account[..8], &account[9..]))
        .find(|a| clientbank_payment::rules::account(bik, a).is_ok())
        .unwrap()
}

/// A security for a claim paid into a court's deposit: the federal custody account `03212…` of
/// the Judicial Department in the Altai territory, as its courts publish it (sudrf.ru), the
/// code of the legal act `0026` in field 22, fields 104–110 `0`.
fn court_deposit() -> Payment {
    let mut p = ordinary();
    p.recipient = AccountHolder {
        name: s(
            "УФК по Алтайскому краю (Управление Судебного департамента в Алтайском крае л/с 05171279350)",
        ),
        inn: s("2225045607"),
        kpp: s("222401001"),
        account: s("03212643000000011700"),
        bank: Bank {
            bik: s("010173001"),
            corr_account: s("40102810045370000009"),
            ..Bank::default()
        },
    };
    p.purpose = s("Обеспечение иска по делу 2-1234/2026, ООО Ромашка");
    p.uin = s("0026");
    p.budget = Some(Budget {
        payer_status: s("01"),
        kbk: s("0"),
        oktmo: s("0"),
        basis: s("0"),
        period: s("0"),
        number: s("0"),
        date: s("0"),
        ..Budget::default()
    });
    p
}

#[test]
fn treasury_accounts_that_are_not_budget_revenue() {
    // A correct court deposit passes (it failed with uin-format: 0026 is no UIN).
    assert_eq!(codes(&court_deposit()), []);
    // Without budget fields at all, as an ordinary 1C order: the same, and no VAT warning.
    let mut p = court_deposit();
    p.budget = None;
    assert_eq!(codes(&p), []);
    // Without the code it is npa-code (it failed with kbk-format); a UIN is not the code.
    for uin in [None, s("18810192085432512980"), s("26")] {
        let mut p = court_deposit();
        p.uin = uin.clone();
        assert_eq!(codes(&p), [(Code::NpaCode, Some(Field::Uin))], "{uin:?}");
    }
    // Before 2022 courts did not ask for the code.
    let mut p = dated(court_deposit(), 1, 12, 2021);
    p.uin = None;
    assert_eq!(codes(&p), []);
    // Fields 104–110 of money in custody are 0: a KBK is a warning, not a budget check.
    let mut p = court_deposit();
    p.budget.as_mut().unwrap().kbk = s("18811601123010001140");
    assert_eq!(codes(&p), [(Code::NonRevenueTreasury, Some(Field::Kbk))]);
    // A regional custody account: its finance body's rules, so a missing code is a warning.
    let mut p = court_deposit();
    p.recipient.account = s("03222643010000001700");
    assert_eq!(codes(&p), []);
    p.uin = None;
    assert_eq!(codes(&p), [(Code::NonRevenueTreasury, Some(Field::Uin))]);
    // Another non-revenue treasury account (a federal budget institution's, 03214…): field 22
    // may be a UIN, a code or 0, KBK 0 needs no UIN; anything else is a warning.
    let mut p = court_deposit();
    p.recipient.account = s("03214643000000011700");
    assert_eq!(codes(&p), []);
    p.uin = None;
    assert_eq!(codes(&p), []);
    p.uin = s("ДОГ-17");
    assert_eq!(codes(&p), [(Code::NonRevenueTreasury, Some(Field::Uin))]);
    // The revenue account keeps 107n: 0026 there is not a UIN.
    let mut p = tax();
    p.uin = s("0026");
    assert_eq!(codes(&p), [(Code::UinFormat, Some(Field::Uin))]);
}

#[test]
fn the_single_tax_payment_account_takes_only_its_kbks() {
    // NDFL withheld by a tax agent, paid with its own KBK to the ЕНП requisites in 2026.
    let ndfl = |p: &mut Payment| {
        let b = p.budget.as_mut().unwrap();
        b.payer_status = s("02");
        b.kbk = s("18210102010011000110");
    };
    let mut p = single_tax_payment();
    ndfl(&mut p);
    assert_eq!(codes(&p), [(Code::EnpKbk, Some(Field::Kbk))]);
    // In 2023 a payment order could stand for a notification: no finding.
    let mut p = dated(single_tax_payment(), 15, 6, 2023);
    ndfl(&mut p);
    assert_eq!(codes(&p), []);
    // Injury contributions (Social Fund, 797): never on this account.
    for year in [2023, 2026] {
        let mut p = dated(single_tax_payment(), 15, 6, year);
        p.budget.as_mut().unwrap().kbk = s("79710202050071000160");
        assert_eq!(codes(&p), [(Code::EnpKbk, Some(Field::Kbk))], "{year}");
    }
    // The FNS's payments outside the ЕНП go there with their own KBK.
    for kbk in [
        "18210807010018000110", // state duty
        "18210102040011000110", // patent NDFL of a foreigner
        "18210506000011000110", // НПД
    ] {
        let mut p = single_tax_payment();
        p.budget.as_mut().unwrap().kbk = s(kbk);
        assert_eq!(codes(&p), [], "{kbk}");
    }
    // An FNS KBK neither list settles (an administrative fine): a warning with the reason.
    let mut p = single_tax_payment();
    p.budget.as_mut().unwrap().kbk = s("18211601053010000140");
    let found = validate(&p, &Context::history());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].code, Code::EnpKbkUnsure);
    assert!(
        found[0].message.en().contains("cannot tell"),
        "{}",
        found[0]
    );
}

/// Customs payments: the FCS's requisites (Межрегиональное операционное УФК).
fn customs() -> Payment {
    let mut p = tax();
    p.recipient = AccountHolder {
        name: s("Межрегиональное операционное УФК (ФТС России)"),
        inn: s("7730176610"),
        kpp: s("773001001"),
        account: s("03100643000000019502"),
        bank: Bank {
            bik: s("024501901"),
            corr_account: s("40102810045370000002"),
            ..Bank::default()
        },
    };
    p.purpose = s("Авансовые платежи в счет будущих таможенных платежей");
    let b = p.budget.as_mut().unwrap();
    b.payer_status = s("06");
    b.kbk = s("15311009000010000110");
    b.oktmo = s("45328000");
    b.basis = s("0");
    b.period = s("10005000");
    p
}

#[test]
fn the_kbk_administrator_fits_the_payee_and_the_payer_status() {
    assert_eq!(codes(&customs()), []);
    // A known payee with another administrator's KBK.
    let mut p = customs();
    p.budget.as_mut().unwrap().kbk = s("18210807010018000110");
    p.budget.as_mut().unwrap().payer_status = s("01");
    p.budget.as_mut().unwrap().period = s("0");
    assert_eq!(codes(&p), [(Code::KbkPayee, Some(Field::Kbk))]);
    let mut p = tax();
    p.recipient.account = s("03100643000000017300");
    p.budget.as_mut().unwrap().kbk = s("79710202050071000160");
    assert_eq!(codes(&p), [(Code::KbkPayee, Some(Field::Kbk))]);
    // A payee known only by its name: a warning.
    let mut p = tax();
    p.recipient.name = s("УФК по г. Москве (ОСФР по г. Москве и Московской области)");
    p.recipient.inn = s("5009876546");
    p.recipient.account = s("03100643000000017300");
    assert_eq!(codes(&p), [(Code::KbkPayeeUnsure, Some(Field::Kbk))]);
    p.budget.as_mut().unwrap().kbk = s("79710202050071000160");
    assert_eq!(codes(&p), []);
    // An unknown payee: no finding.
    p.recipient.name = s("УФК по г. Москве (Росреестр)");
    p.budget.as_mut().unwrap().kbk = s("18210807010018000110");
    assert_eq!(codes(&p), []);
    // Customs payments take the customs statuses, not the taxpayer's.
    for (status, expected) in [
        ("06", vec![]),
        ("16", vec![]),
        ("17", vec![]),
        ("01", vec![(Code::PayerStatusKbk, Some(Field::PayerStatus))]),
        ("13", vec![(Code::PayerStatusKbk, Some(Field::PayerStatus))]),
        (
            "24",
            vec![(Code::PayerStatusKbkUnsure, Some(Field::PayerStatus))],
        ),
    ] {
        let p = {
            let mut p = customs();
            p.budget.as_mut().unwrap().payer_status = s(status);
            p
        };
        assert_eq!(codes(&p), expected, "{status}");
    }
    // And an FNS payment does not take a customs status.
    let p = with_budget(|b| b.payer_status = s("16"));
    assert_eq!(
        codes(&p),
        [(Code::PayerStatusKbk, Some(Field::PayerStatus))]
    );
}

#[test]
fn field_102_of_an_organisation_is_never_silently_empty() {
    let mut p = tax();
    p.payer.kpp = None;
    assert_eq!(codes(&p), [(Code::PayerKppMissing, Some(Field::PayerKpp))]);
    p.payer.kpp = s("");
    assert_eq!(codes(&p), [(Code::PayerKppMissing, Some(Field::PayerKpp))]);
    // The ЕНП allows 0: empty is a warning to write 0 or the KPP.
    let mut p = single_tax_payment();
    p.payer.kpp = None;
    assert_eq!(
        codes(&p),
        [(Code::BudgetPlaceholder, Some(Field::PayerKpp))]
    );
    p.payer.kpp = s("0");
    assert_eq!(codes(&p), []);
    // A person has no KPP; an ordinary payment needs none.
    let mut p = tax();
    p.payer.inn = s("500100732259");
    p.payer.kpp = None;
    assert_eq!(codes(&p), []);
    let mut p = ordinary();
    p.payer.kpp = None;
    assert_eq!(codes(&p), []);
    // A third party that is an organisation gives its KPP.
    let mut p = single_tax_payment();
    p.purpose = s("7701234560//770101001//ООО Лютик//ЕНП");
    p.third_party = Some(ThirdParty {
        name: "ООО Лютик".into(),
        inn: "5009876546".into(),
        kpp: String::new(),
    });
    assert_eq!(
        codes(&p),
        [(Code::PayerKppMissing, Some(Field::ThirdPartyKpp))]
    );
}

#[test]
fn vat_only_where_it_can_apply() {
    // Read as people write it: 59 000.00 at 22 % holds 10 639.34 of VAT.
    for purpose in [
        "Оплата по счету 45, в т.ч. НДС 22 % - 10 639,34 рублей",
        "Оплата по счету 45, НДС 22% 10639-34",
        "Оплата по счету 45, в т.ч. НДС (22%)",
        "Оплата по счету 45 в том числе НДС 22% в сумме 10639 руб. 34 коп.",
        "Сумма 59000.00(в т.ч. НДС 22%), сумма комисс. 0.15",
        "Оплата по счету 45, НДС 22% 1.639,34",
    ] {
        let mut p = ordinary();
        p.purpose = s(purpose);
        assert_eq!(codes(&p), [], "{purpose}");
    }
    let mut p = ordinary();
    p.purpose = s("Оплата по счету 45, НДС 22% 10000-00");
    assert_eq!(codes(&p), [(Code::VatAmount, Some(Field::Purpose))]);
    // Salaries, alimony and other income to a person's account with its field 20 code.
    let person = keyed("044525974", "40817810000000012345");
    for (purpose, code) in [
        ("Заработная плата за октябрь 2026 года", Some("1")),
        (
            "Алименты за октябрь 2026 года по исполнительному листу",
            Some("1"),
        ),
        ("Перевод по договору 5", Some("1")),
        ("Перевод по договору 5", None),
    ] {
        let mut p = ordinary();
        p.recipient.account = s(&person);
        p.recipient.inn = s("500100732259");
        p.recipient.kpp = None;
        p.purpose = s(purpose);
        p.purpose_code = code.map(str::to_string);
        assert_eq!(codes(&p), [], "{purpose} {code:?}");
    }
    // Alimony to an organisation's account named as such: no VAT either.
    let mut p = ordinary();
    p.purpose = s("Удержанные алименты за октябрь 2026 года, Иванов И.И.");
    assert_eq!(codes(&p), []);
    // A commercial payment without a word about VAT is still a warning.
    let mut p = ordinary();
    p.purpose = s("Оплата по счету 45");
    assert_eq!(codes(&p), [(Code::VatNotMentioned, Some(Field::Purpose))]);
}
