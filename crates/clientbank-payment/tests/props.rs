//! Property tests: arbitrary valid payments of all three kinds pass validation and survive
//! JSON → 1C → JSON unchanged, and 1C → JSON → 1C keeping every field the JSON holds; the
//! JSON reader never panics on arbitrary input.

use chrono::NaiveDate;
use clientbank_format::{Encoding, Key, parse};
use clientbank_payment::json::{PaymentJson, read_requests};
use clientbank_payment::{
    AccountHolder, Bank, Budget, Context, Kind, Payment, ThirdParty, onec, rules, validate,
};
use proptest::prelude::*;
use rust_decimal::Decimal;

fn digits(n: usize) -> impl Strategy<Value = Vec<u32>> {
    proptest::collection::vec(0u32..10, n)
}

fn text(d: &[u32]) -> String {
    d.iter()
        .map(|d| char::from_digit(*d, 10).unwrap())
        .collect()
}

fn inn10() -> impl Strategy<Value = String> {
    (1u32..10, digits(8)).prop_map(|(first, rest)| {
        let mut d = vec![first];
        d.extend(rest);
        let w = [2, 4, 10, 3, 5, 9, 4, 6, 8];
        d.push(d.iter().zip(w).map(|(a, b)| a * b).sum::<u32>() % 11 % 10);
        text(&d)
    })
}

fn inn12() -> impl Strategy<Value = String> {
    (1u32..10, digits(9)).prop_map(|(first, rest)| {
        let mut d = vec![first];
        d.extend(rest);
        let w11 = [7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
        d.push(d.iter().zip(w11).map(|(a, b)| a * b).sum::<u32>() % 11 % 10);
        let w12 = [3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8];
        d.push(d.iter().zip(w12).map(|(a, b)| a * b).sum::<u32>() % 11 % 10);
        text(&d)
    })
}

fn kpp() -> impl Strategy<Value = String> {
    "[1-9][0-9]{3}([0-9]{2}|[A-Z]{2})[0-9]{3}"
}

fn bik() -> impl Strategy<Value = String> {
    ("04[0-9]{4}", 3u32..1000).prop_map(|(head, tail)| format!("{head}{tail:03}"))
}

/// An account with its control key for `bik`: `prefix` + key + the rest.
fn keyed(bik: &str, prefix: &str, rest: &str) -> String {
    let unkeyed = format!("{prefix}0{rest}");
    (0..10)
        .map(|key| format!("{prefix}{key}{rest}"))
        .find(|a| rules::account(bik, a).is_ok())
        .unwrap_or(unkeyed)
}

fn bank() -> impl Strategy<Value = (Bank, String)> {
    (bik(), "[0-9]{8}", "(40702|40802|40701)810", "[0-9]{11}").prop_map(
        |(bik, corr_rest, prefix, rest)| {
            let corr = keyed(
                &bik,
                "30101810",
                &format!("{corr_rest}{}", &bik[6..])
                    .chars()
                    .take(11)
                    .collect::<String>(),
            );
            let account = keyed(&bik, &prefix, &rest);
            (
                Bank {
                    bik: Some(bik),
                    corr_account: Some(corr),
                    name: Some("АО Банк".into()),
                    city: Some("г. Москва".into()),
                },
                account,
            )
        },
    )
}

/// Text a payment order can hold: CP1251 letters, digits, punctuation; starting with a letter.
fn words(max: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!(
        "[А-ЯA-Z][А-Яа-яЁё0-9A-Za-z\".,;:()№ -]{{0,{max}}}"
    ))
    .unwrap()
    .prop_map(|s| s.trim().to_string())
}

fn uin() -> impl Strategy<Value = Option<String>> {
    proptest::option::of(
        prop_oneof![digits(19), digits(24)].prop_filter_map("all zeros", |body| {
            (0..10)
                .map(|c| format!("{}{c}", text(&body)))
                .find(|u| rules::uin(u).is_ok())
        }),
    )
}

fn date() -> impl Strategy<Value = NaiveDate> {
    (2000i32..2100, 1u32..=12, 1u32..=28)
        .prop_map(|(y, m, d)| NaiveDate::from_ymd_opt(y, m, d).unwrap())
}

fn budget() -> impl Strategy<Value = Budget> {
    (
        prop::sample::select(vec!["01", "02", "08", "13", "24"]),
        // Paid to the single tax payment's account (to_treasury): since 2024 only KBKs the
        // FNS lists as outside the ЕНП go there with their own KBK — state duties (182 1 08…).
        "182108[0-9]{14}",
        prop_oneof![Just("0".to_string()), "[1-9][0-9]{7}", "[1-9][0-9]{10}"],
        prop::sample::select(vec!["ТП", "ЗД", "0", "АП"]),
        prop_oneof![
            Just("0".to_string()),
            (1u32..=12, 2000u32..2100).prop_map(|(m, y)| format!("МС.{m:02}.{y}")),
            (1u32..=4, 2000u32..2100).prop_map(|(q, y)| format!("КВ.{q:02}.{y}")),
            (2000u32..2100).prop_map(|y| format!("ГД.00.{y}")),
        ],
        "[1-9][0-9]{0,14}",
        proptest::option::of(date()),
    )
        .prop_map(|(status, kbk, oktmo, basis, period, number, date)| Budget {
            payer_status: Some(status.into()),
            kbk: Some(kbk),
            oktmo: Some(oktmo),
            basis: Some(basis.into()),
            period: Some(period),
            number: Some(if basis == "АП" { number } else { "0".into() }),
            date: Some(date.map_or("0".into(), clientbank_format::value::format_date)),
            ..Budget::default()
        })
}

prop_compose! {
    fn ordinary()(
        number in 1u32..1_000_000,
        date in date(),
        cents in 1i64..100_000_000_000_000,
        (payer_bank, payer_account) in bank(),
        (recipient_bank, recipient_account) in bank(),
        payer_inn in inn10(),
        payer_kpp in kpp(),
        recipient_inn in prop_oneof![inn10(), inn12()],
        recipient_kpp in proptest::option::of(kpp()),
        payer_name in words(60),
        recipient_name in words(60),
        purpose in words(150),
        uin in uin(),
        purpose_code in proptest::option::of(prop::sample::select(vec!["1", "2", "3", "4", "5"])),
    ) -> Payment {
        let recipient_kpp = if recipient_inn.len() == 12 { None } else { recipient_kpp };
        Payment {
            number: Some(number.to_string()),
            date: Some(date),
            sum: Some(Decimal::new(cents, 2)),
            payer: AccountHolder {
                account: Some(payer_account),
                inn: Some(payer_inn),
                kpp: Some(payer_kpp),
                name: Some(payer_name),
                bank: payer_bank,
            },
            recipient: AccountHolder {
                name: Some(recipient_name),
                inn: Some(recipient_inn),
                kpp: recipient_kpp,
                account: Some(recipient_account),
                bank: recipient_bank,
            },
            purpose: Some(format!("{purpose} без НДС")),
            uin,
            purpose_code: purpose_code.map(str::to_string),
            priority: Some("5".into()),
            operation_kind: Some("01".into()),
            ..Payment::default()
        }
    }
}

/// A treasury recipient: ЕКС at the TOFK, a treasury account.
fn to_treasury(p: &mut Payment, recipient_inn: String, recipient_kpp: String) {
    p.recipient.inn = Some(recipient_inn);
    p.recipient.kpp = Some(recipient_kpp);
    p.recipient.account = Some("03100643000000018500".into());
    p.recipient.bank.bik = Some("017003983".into());
    p.recipient.bank.corr_account = Some("40102810445370000059".into());
}

fn budget_payment() -> impl Strategy<Value = Payment> {
    (
        ordinary(),
        budget(),
        inn10(),
        kpp(),
        proptest::option::of(inn12()),
    )
        .prop_map(|(mut p, mut budget, inn, kpp, deduction)| {
            to_treasury(&mut p, inn, kpp);
            p.purpose_code = None;
            if let Some(inn) = deduction {
                // Field 60 holds the person's INN; the employer's own is not in the order.
                p.payer.inn = None;
                budget.payer_status = Some("19".into());
                p.deduction_inn = Some(inn);
            }
            p.budget = Some(budget);
            p
        })
}

fn third_party_payment() -> impl Strategy<Value = Payment> {
    (
        budget_payment(),
        prop_oneof![
            inn12().prop_map(|inn| (inn, "0".to_string())),
            (inn10(), kpp()),
        ],
        words(40),
        words(60),
    )
        .prop_filter_map(
            "the third party is someone else",
            |(mut p, (inn, kpp), name, rest)| {
                let payer_inn = p.payer.inn.clone()?;
                p.deduction_inn.is_none().then_some(())?;
                (payer_inn != inn).then_some(())?;
                let budget = p.budget.as_mut()?;
                budget.payer_status = Some("01".into());
                p.purpose = Some(format!(
                    "{payer_inn}//{}//{name}//{rest}",
                    p.payer.kpp.clone()?
                ));
                p.third_party = Some(ThirdParty { name, inn, kpp });
                Some(p)
            },
        )
}

fn any_payment() -> impl Strategy<Value = Payment> {
    prop_oneof![ordinary(), budget_payment(), third_party_payment()]
}

fn encoding() -> impl Strategy<Value = Encoding> {
    prop::sample::select(vec![Encoding::Cp1251, Encoding::Cp866, Encoding::Utf8])
}

/// Through a real 1C file: write, read back, map.
fn through_file(payment: &Payment, encoding: Encoding) -> Payment {
    let (exchange, _) = onec::to_exchange(std::slice::from_ref(payment), encoding);
    let bytes = exchange.to_bytes(encoding).expect("writable");
    let parsed = parse(bytes).expect("readable");
    // UTF-8 is ours, not 1C's: its label is the one finding allowed.
    assert!(
        parsed
            .diagnostics
            .iter()
            .all(|d| d.code == clientbank_format::Code::NonstandardEncodingLabel),
        "{:?}",
        parsed.diagnostics
    );
    let (mut orders, skipped) = onec::payment_orders(&parsed.tree);
    assert!(skipped.is_empty());
    assert_eq!(orders.len(), 1);
    let order = orders.remove(0);
    assert!(order.findings.is_empty(), "{:?}", order.findings);
    order.payment
}

/// The keys whose values the JSON route carries.
fn json_held(payment: &Payment) -> Vec<(Key, String)> {
    let (document, _) = onec::to_document(payment);
    let mut keys = vec![
        Key::Number,
        Key::Date,
        Key::Sum,
        Key::PayerAccount,
        Key::Recipient1,
        Key::RecipientInn,
        Key::RecipientKpp,
        Key::RecipientAccount,
        Key::RecipientBik,
        Key::RecipientCorrAccount,
        Key::Purpose,
        Key::Code,
        Key::PayerStatus,
        Key::Kbk,
        Key::Oktmo,
        Key::Basis,
        Key::Period,
        Key::BasisNumber,
        Key::BasisDate,
        Key::PurposeCode,
    ];
    let deduction = payment.deduction_inn.is_some();
    if payment.kind() == Kind::ThirdParty || deduction {
        keys.push(Key::PayerInn);
    }
    if payment.kind() == Kind::ThirdParty {
        keys.push(Key::PayerKpp);
    }
    document
        .fields()
        .unwrap()
        .into_iter()
        .filter(|(k, _)| keys.contains(k))
        .collect()
}

/// A request of any texts (quotes, backslashes, control characters, any Unicode), any sum
/// and date, with or without each field, the third person and the parameters.
fn any_request() -> impl Strategy<Value = clientbank_payment::UploadRequest> {
    let text = || proptest::option::of("(\\PC|[\"\\\\\u{0}-\u{1f}\u{7f}])*");
    (
        proptest::collection::vec(text(), 19),
        proptest::option::of((any::<i64>(), 0u32..8)),
        proptest::option::of(date()),
        proptest::option::of((any::<String>(), any::<String>(), any::<String>())),
        proptest::option::of(proptest::option::of(any::<String>())),
    )
        .prop_map(|(texts, sum, date, third, parameters)| {
            let mut t = texts.into_iter();
            let mut next = || t.next().flatten();
            let payment = PaymentJson {
                number: next(),
                date,
                sum: sum.map(|(n, scale)| Decimal::new(n, scale)),
                payer_account: next(),
                recipient_name: next(),
                recipient_inn: next(),
                recipient_kpp: next(),
                recipient_account: next(),
                recipient_bank_bik: next(),
                recipient_bank_corr_account: next(),
                payment_purpose: next(),
                type_indicator: next(),
                payer_status: next(),
                kbk: next(),
                oktmo: next(),
                payment_base: next(),
                period: next(),
                budget_doc_number: next(),
                budget_doc_date: next(),
                payment_purpose_code: next(),
                payer_inn: next(),
                payform_data_third_person: third.map(|(name, inn, kpp)| {
                    clientbank_payment::json::ThirdPersonJson { name, inn, kpp }
                }),
            };
            clientbank_payment::UploadRequest {
                payment,
                parameters: parameters
                    .map(|target_status| clientbank_payment::json::Parameters { target_status }),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `convert`'s hand-made JSON is serde_json's pretty printing, byte for byte: on its own
    /// and as elements of an array.
    #[test]
    fn requests_written_by_hand_are_serde_jsons(
        requests in proptest::collection::vec(any_request(), 0..3)
    ) {
        for request in &requests {
            let mut ours = Vec::new();
            request.write_pretty(0, &mut ours);
            prop_assert_eq!(
                String::from_utf8(ours).unwrap(),
                serde_json::to_string_pretty(request).unwrap()
            );
        }
        let mut array = b"[".to_vec();
        for (i, request) in requests.iter().enumerate() {
            array.extend_from_slice(if i == 0 { b"\n  " } else { b",\n  " });
            request.write_pretty(1, &mut array);
        }
        array.extend_from_slice(if requests.is_empty() { b"]" } else { b"\n]" });
        prop_assert_eq!(
            String::from_utf8(array).unwrap(),
            serde_json::to_string_pretty(&requests).unwrap()
        );
    }

    #[test]
    fn generated_payments_are_valid(payment in any_payment()) {
        let errors: Vec<_> = validate(&payment, &Context::history())
            .into_iter()
            .filter(|f| f.is_error())
            .collect();
        prop_assert!(errors.is_empty(), "{errors:?}\n{payment:?}");
    }

    #[test]
    fn json_to_1c_to_json_is_the_identity(payment in any_payment(), encoding in encoding()) {
        let (json, _) = PaymentJson::from_payment(&payment);
        let text = serde_json::to_string(&json).unwrap();
        let read: PaymentJson = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&read, &json);
        let from_json = read.to_payment();
        prop_assert_eq!(from_json.kind(), payment.kind());
        let back = through_file(&from_json, encoding);
        let (again, _) = PaymentJson::from_payment(&back);
        prop_assert_eq!(again, json);
    }

    #[test]
    fn one_c_to_json_to_1c_keeps_what_json_holds(payment in any_payment(), encoding in encoding()) {
        let read = through_file(&payment, encoding);
        prop_assert_eq!(&read, &payment, "the 1C route keeps the whole payment");
        let (json, not_carried) = PaymentJson::from_payment(&read);
        prop_assert!(not_carried.is_empty(), "{:?}", not_carried);
        let from_json = json.to_payment();
        prop_assert_eq!(json_held(&from_json), json_held(&payment));
    }

    #[test]
    fn json_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = read_requests(&bytes);
    }

    #[test]
    fn json_reader_never_panics_on_near_requests(
        number in "[0-9A-Za-z\" ]{0,8}",
        sum in "[0-9.,e+\"-]{0,12}",
        date in "[0-9.T:Z+-]{0,24}",
    ) {
        let text = format!(r#"[{{"payment": {{"Number": "{number}", "Sum": {sum}, "Date": "{date}"}}}}]"#);
        if let Ok((requests, _)) = read_requests(text.as_bytes()) {
            for request in requests {
                let payment = request.payment.to_payment();
                let _ = validate(&payment, &Context::history());
            }
        }
    }
}
