//! The vectors of docs/rules.md for the fields that only make sense in a payment (101, 106–109, ЕНП,
//! third party, sum, purpose), through `validate`.

use chrono::NaiveDate;
use clientbank_payment::{
    AccountHolder, Bank, Budget, Code, Context, Field, Kind, Payment, ThirdParty, enp, validate,
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
    validate(payment, &Context::default())
        .into_iter()
        .map(|f| (f.code, f.field))
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
    let stale = Context {
        today: NaiveDate::from_ymd_opt(2026, 12, 1),
    };
    let found: Vec<_> = validate(&p, &stale).iter().map(|f| f.code).collect();
    assert_eq!(found, [Code::DateStale]);
    let early = Context {
        today: NaiveDate::from_ymd_opt(2026, 11, 19),
    };
    let found: Vec<_> = validate(&p, &early).iter().map(|f| f.code).collect();
    assert_eq!(found, [Code::DateInFuture]);
    assert!(validate(&p, &Context { today }).is_empty());
}

#[test]
fn every_finding_says_what_to_fix_and_where() {
    let mut p = tax();
    p.recipient.inn = s("770708389");
    p.budget.as_mut().unwrap().basis = s("TP");
    p.priority = s("9");
    let findings = validate(&p, &Context::default());
    let found: Vec<_> = findings.iter().map(|f| f.code).collect();
    assert_eq!(
        found,
        [Code::PriorityInvalid, Code::InnFormat, Code::BasisInvalid],
        "all at once, once each"
    );
    for finding in &findings {
        assert!(finding.key.is_some() && finding.field.is_some());
        assert!(finding.message.len() > 20);
        assert_eq!(finding.severity, finding.code.severity());
    }
}
