//! Every public parser of the wire crate is total: arbitrary text and arbitrary JSON (with the
//! API's own member names, so that the field readers are reached) never panic, and what is
//! read is written back to the same value. The properties are those of the fuzz targets.

use chrono::{NaiveDate, NaiveDateTime, TimeDelta};
use clientbank_api::fuzz;
use clientbank_api::types::moscow_time;
use proptest::prelude::*;
use serde_json::{Map, Value};

const KEYS: &[&str] = &[
    "id",
    "amount",
    "amountWithCommission",
    "executed",
    "created",
    "docNumber",
    "status",
    "category",
    "currency",
    "companyId",
    "operation",
    "SHA1Hash",
    "companyInn",
    "ids",
    "totalLoaded",
    "errors",
    "warnings",
    "message",
    "exceptionType",
    "balance",
    "beginDate",
    "bankAccounts",
    "companyName",
    "from",
    "till",
    "skip",
    "records",
    "Operations",
    "SignBase64",
    "accessToken",
    "clientSecret",
    "code",
];

fn date_time_text() -> impl Strategy<Value = String> {
    "[0-9+-]{0,6}-[0-9]{1,2}-[0-9]{1,2}(T[0-9]{1,2}:[0-9]{1,2}(:[0-9]{1,2}(\\.[0-9]{0,12})?)?)?([Zz]|[+-][0-9]{0,3}:?[0-9]{0,3}|[+-])?"
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "-?[0-9]{1,40}(\\.[0-9]{0,40})?([eE][+-]?[0-9]{1,6})?"
            .prop_map(|n| serde_json::from_str(&n).unwrap_or(Value::Null)),
        ".{0,12}".prop_map(Value::String),
        date_time_text().prop_map(Value::String),
    ]
}

fn json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..8).prop_map(|pairs| {
                let mut map = Map::new();
                for (key, value) in pairs {
                    map.insert(key.to_string(), value);
                }
                Value::Object(map)
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn date_times_from_any_text(text in any::<String>()) {
        fuzz::date_time(&text);
    }

    #[test]
    fn date_times_from_near_misses(text in date_time_text()) {
        fuzz::date_time(&text);
        fuzz::wire(format!("{{\"id\": \"x\", \"amount\": 1, \"executed\": {text:?}}}").as_bytes());
    }

    #[test]
    fn every_wire_type_from_any_bytes(data in prop::collection::vec(any::<u8>(), 0..200)) {
        fuzz::wire(&data);
        fuzz::webhook(&data);
    }

    #[test]
    fn every_wire_type_from_any_text(text in any::<String>()) {
        fuzz::wire(text.as_bytes());
    }

    #[test]
    fn every_wire_type_from_json_with_the_api_names(value in json()) {
        let data = serde_json::to_vec(&value).unwrap();
        fuzz::wire(&data);
        fuzz::webhook(&data);
    }

    #[test]
    fn webhook_bodies_of_any_shape(operation in json(), hash in ".{0,41}") {
        let body = serde_json::json!({"operation": operation, "SHA1Hash": hash});
        fuzz::webhook(&serde_json::to_vec(&body).unwrap());
    }

    #[test]
    fn ids_are_one_path_segment(text in any::<String>()) {
        fuzz::path_segment(&text);
    }

    #[test]
    fn ids_made_of_dots_and_slashes(text in "[./%2eE\\\\]{0,6}") {
        fuzz::path_segment(&text);
    }

    /// A time written with any offset is the same instant in Moscow time (UTC+3).
    #[test]
    fn offsets_are_converted_to_moscow_time(
        seconds in 0i64..4_000_000_000,
        offset in -(23 * 60 + 59)..=(23i64 * 60 + 59),
        colon in any::<bool>(),
    ) {
        let utc = chrono::DateTime::UNIX_EPOCH.naive_utc() + TimeDelta::seconds(seconds);
        let local = utc + TimeDelta::minutes(offset);
        let sign = if offset < 0 { '-' } else { '+' };
        let (h, m) = (offset.abs() / 60, offset.abs() % 60);
        let text = if colon {
            format!("{}{sign}{h:02}:{m:02}", local.format("%Y-%m-%dT%H:%M:%S"))
        } else {
            format!("{}{sign}{h:02}{m:02}", local.format("%Y-%m-%dT%H:%M:%S"))
        };
        prop_assert_eq!(moscow_time::parse(&text), Some(utc + TimeDelta::hours(3)), "{}", text);
    }
}

fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> NaiveDateTime {
    NaiveDate::from_ymd_opt(y, mo, d)
        .unwrap()
        .and_hms_opt(h, mi, s)
        .unwrap()
}

#[test]
fn short_offsets_are_refused_without_a_panic() {
    for text in [
        "+1",
        "-01",
        "-",
        "+",
        "2026-06-01T23:30:00+1",
        "2026-06-01T23:30:00-01:",
        "2026-06-01T23:30:00-",
        "2026-06-01T23:30:00+05:0",
        "2026-06-01T23:30:00+24:00",
        "2026-06-01T23:30:00+05:60",
        "2026-06-01T23:30:00+٠٥:00",
        "T+1",
        "T-",
        "2026-06-01T",
        "+262143-12-31T23:59:59-23:59",
        "-262143-01-01T00:00:00+23:59",
    ] {
        assert_eq!(moscow_time::parse(text), None, "{text:?}");
    }
}

#[test]
fn times_with_an_offset_are_moscow_time() {
    let cases = [
        ("2026-06-01T23:30:00+05:00", at(2026, 6, 1, 21, 30, 0)),
        ("2026-06-01T23:30:00+0500", at(2026, 6, 1, 21, 30, 0)),
        ("2026-06-01T23:30:00+05", at(2026, 6, 1, 21, 30, 0)),
        ("2026-06-01T23:30:00+03:00", at(2026, 6, 1, 23, 30, 0)),
        ("2026-06-01T23:30:00Z", at(2026, 6, 2, 2, 30, 0)),
        ("2026-06-01T23:30:00-02:30", at(2026, 6, 2, 5, 0, 0)),
        ("2026-06-01T23:30:00", at(2026, 6, 1, 23, 30, 0)),
        ("2026-06-01T23:30", at(2026, 6, 1, 23, 30, 0)),
        ("2026-06-01", at(2026, 6, 1, 0, 0, 0)),
    ];
    for (text, expected) in cases {
        assert_eq!(moscow_time::parse(text), Some(expected), "{text}");
    }
    let with_fraction = moscow_time::parse("2019-10-10T12:20:34.192+03:00").unwrap();
    assert_eq!(
        with_fraction.format("%H:%M:%S%.3f").to_string(),
        "12:20:34.192"
    );
}

/// A shrunk failure of `every_wire_type_from_json_with_the_api_names`: `-0` was read and came
/// back as `0`.
#[test]
fn negative_zero_in_an_array_round_trips() {
    fuzz::wire(br#"{"id": [-0]}"#);
    fuzz::webhook(br#"{"id": [-0]}"#);
    fuzz::wire(br#"{"id": [-0.0, 1.0], "amount": {"x": -0}}"#);
}
