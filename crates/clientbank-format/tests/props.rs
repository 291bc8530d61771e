//! Property tests: typed exchanges survive canonical write → read in every encoding;
//! byte soup never panics, and round-trips byte for byte whenever it is accepted.

use chrono::{NaiveDate, NaiveTime};
use clientbank_format::{
    AccountSection, Document, Encoding, Exchange, Header, Key, Severity, parse,
};
use proptest::collection::vec;
use proptest::prelude::*;
use rust_decimal::Decimal;

/// Text that every encoding holds, without the spaces at the ends that the typed view trims.
fn text() -> impl Strategy<Value = String> {
    "[А-Яа-яЁё0-9A-Za-z№\".,;:()/= -]{0,40}"
        .prop_map(|s| s.trim().to_string())
        .prop_filter("empty reads as absent", |s| !s.is_empty())
}

fn opt<T: std::fmt::Debug + Clone>(
    s: impl Strategy<Value = T>,
) -> impl Strategy<Value = Option<T>> {
    proptest::option::of(s)
}

fn date() -> impl Strategy<Value = NaiveDate> {
    (1990i32..2100, 1u32..=12, 1u32..=28)
        .prop_map(|(y, m, d)| NaiveDate::from_ymd_opt(y, m, d).unwrap())
}

fn time() -> impl Strategy<Value = NaiveTime> {
    (0u32..24, 0u32..60, 0u32..60).prop_map(|(h, m, s)| NaiveTime::from_hms_opt(h, m, s).unwrap())
}

fn amount(signed: bool) -> impl Strategy<Value = Decimal> {
    let low = if signed { -10_000_000_000i64 } else { 0 };
    (low..10_000_000_000i64, 0u32..=2).prop_map(|(n, scale)| Decimal::new(n, scale))
}

fn digits(n: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("[0-9]{{{n}}}")).unwrap()
}

fn header() -> impl Strategy<Value = Header> {
    (
        opt(text()),
        opt(text()),
        opt(date()),
        opt(time()),
        opt(date()),
        opt(date()),
        vec(digits(20), 0..3),
    )
        .prop_map(
            |(sender, recipient, created_on, created_at, start_date, end_date, accounts)| Header {
                version: Some("1.03".into()),
                sender,
                recipient,
                created_on,
                created_at,
                start_date,
                end_date,
                accounts,
                document_types: vec!["Платежное поручение".into()],
                ..Header::default()
            },
        )
}

fn account() -> impl Strategy<Value = AccountSection> {
    (
        date(),
        digits(20),
        amount(true),
        amount(false),
        amount(false),
    )
        .prop_map(
            |(day, account, opening, credited, debited)| AccountSection {
                start_date: Some(day),
                end_date: Some(day),
                account: Some(account),
                opening_balance: Some(opening),
                credited: Some(credited),
                debited: Some(debited),
                closing_balance: Some(opening + credited - debited),
                ..AccountSection::default()
            },
        )
}

fn document() -> impl Strategy<Value = Document> {
    let kinds = prop_oneof![
        Just("Платежное поручение".to_string()),
        Just("Банковский ордер".to_string()),
        Just("Платежное требование".to_string()),
    ];
    let party = || {
        (
            opt(digits(20)),
            opt(text()),
            opt(digits(10)),
            opt(digits(9)),
            opt(text()),
            opt(digits(9)),
            opt(date()),
        )
    };
    (
        kinds,
        digits(4),
        date(),
        amount(false),
        party(),
        party(),
        opt(text()),
        opt(text()),
        opt(text()),
        opt(text()),
        vec((text(), text()), 0..2),
    )
        .prop_map(
            |(
                kind,
                number,
                date,
                sum,
                payer,
                recipient,
                purpose,
                kbk,
                period,
                basis_date,
                extra,
            )| {
                let mut d = Document {
                    kind,
                    number: Some(number),
                    date: Some(date),
                    sum: Some(sum),
                    purpose,
                    ..Document::default()
                };
                for (party, p) in [(&mut d.payer, payer), (&mut d.recipient, recipient)] {
                    (
                        party.account,
                        party.name,
                        party.inn,
                        party.kpp,
                        party.bank_name,
                        party.bik,
                        party.date,
                    ) = p;
                }
                d.budget.kbk = kbk;
                d.budget.period = period;
                d.budget.date = basis_date;
                // Unknown keys: never a known key's name, never a marker, no '=' in the key.
                d.extra = extra
                    .into_iter()
                    .map(|(k, v)| (format!("Доп{}", k.replace(['=', ' '], "")), v))
                    .collect();
                d.priority = Some("5".into());
                d
            },
        )
}

fn exchange() -> impl Strategy<Value = Exchange> {
    (header(), vec(account(), 0..3), vec(document(), 0..4)).prop_map(
        |(header, accounts, documents)| Exchange {
            header,
            accounts,
            documents,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn typed_exchanges_survive_write_and_read(exchange in exchange(), encoding in prop_oneof![Just(Encoding::Cp1251), Just(Encoding::Cp866), Just(Encoding::Utf8)]) {
        let bytes = exchange.to_bytes(encoding).unwrap();
        clientbank_format::fuzz::parallel_agrees(&bytes);
        let parsed = parse(&bytes[..]).unwrap();
        prop_assert_eq!(parsed.tree.to_bytes(), bytes.clone());
        let errors: Vec<_> = parsed.diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
        prop_assert!(errors.is_empty(), "{:?}", errors);
        let mut again = parsed.tree.to_exchange();
        for a in &mut again.accounts { a.line = None; }
        for d in &mut again.documents { d.line = None; }
        again.header.encoding = None;
        prop_assert_eq!(again, exchange);
    }

    #[test]
    fn byte_soup_never_panics_and_round_trips(lines in vec(soup_line(), 0..40), endings in vec(0usize..4, 40)) {
        let mut input = b"1CClientBankExchange".to_vec();
        for (line, ending) in lines.iter().zip(&endings) {
            input.extend_from_slice([&b"\r\n"[..], b"\n", b"\r", b"\r\n"][*ending]);
            input.extend_from_slice(line);
        }
        if let Ok(parsed) = parse(&input[..]) {
            prop_assert_eq!(parsed.tree.to_bytes(), input.clone());
        }
        clientbank_format::fuzz::parse_agrees(&input);
        clientbank_format::fuzz::roundtrip(&input);
    }

    #[test]
    fn any_bytes_never_panic(bytes in vec(any::<u8>(), 0..300)) {
        clientbank_format::fuzz::parse_agrees(&bytes);
        let mut marked = b"1CClientBankExchange\n".to_vec();
        marked.extend_from_slice(&bytes);
        clientbank_format::fuzz::parse_agrees(&marked);
        clientbank_format::fuzz::roundtrip(&marked);
    }
}

/// One line of soup: CP1251 bytes, known keys with odd values, markers, stray `=`.
fn soup_line() -> impl Strategy<Value = Vec<u8>> {
    let keys: Vec<&'static str> = Key::ALL.iter().map(|k| k.name()).collect();
    let markers = [
        "СекцияДокумент=Платежное поручение",
        "КонецДокумента",
        "СекцияРасчСчет",
        "КонецРасчСчет",
        "КонецФайла",
        "СекцияДокумент",
        " КонецФайла",
    ];
    prop_oneof![
        vec(128u8..=255, 0..12),
        (proptest::sample::select(keys), "[0-9.,= -]{0,12}")
            .prop_map(|(k, v)| cp1251(&format!("{k}={v}"))),
        proptest::sample::select(markers.to_vec()).prop_map(cp1251),
        "[=a-z ]{0,6}".prop_map(|s| s.into_bytes()),
    ]
}

fn cp1251(text: &str) -> Vec<u8> {
    Encoding::Cp1251.encode(text).unwrap().into_owned()
}
