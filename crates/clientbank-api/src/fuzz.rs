//! The properties the fuzz targets `wire` and `webhook` check, here so that a normal test
//! replays the fuzz corpus through exactly the same code. Each function panics when a property
//! fails; none may panic on its own for any input.

use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Error;
use crate::client::{error_from, read_upload_answer, segment};
use crate::token::{Token, TokenResponse};
use crate::types::{
    BankAccount, Company, ErrorBody, HistoryFilter, Notification, Operation, SignRequest,
    TokenRequest, UploadResult, moscow_time,
};
use crate::webhook::{self, WebhookError, WebhookKey};

/// Any bytes as every wire type of the API: no panic; what is read, written and read again,
/// is the same. Also the date-time parser, the upload-answer reader, the error classifier and
/// the path-segment encoder on the same input.
pub fn wire(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        date_time(text);
        path_segment(text);
    }
    roundtrip::<Company>(data);
    roundtrip::<Vec<Company>>(data);
    roundtrip::<BankAccount>(data);
    roundtrip::<HistoryFilter>(data);
    roundtrip::<SignRequest>(data);
    roundtrip::<ErrorBody>(data);
    roundtrip::<TokenRequest>(data);
    let _ = serde_json::from_slice::<TokenResponse>(data);
    operations(data);
    notification(data);
    upload_answer(data);
    errors(data);
}

/// Text as a bank date-time: no panic; a time read is written and read back unchanged.
pub fn date_time(text: &str) {
    if let Some(at) = moscow_time::parse(text) {
        let written = at.format(moscow_time::FORMAT).to_string();
        assert_eq!(
            moscow_time::parse(&written),
            Some(at),
            "{text:?} was read as {at}, written as {written:?}, which reads otherwise"
        );
    }
}

/// An id as a path segment: `""`, `.` and `..` are refused; anything else stays exactly one
/// segment of the URL and decodes back to itself.
pub fn path_segment(text: &str) {
    match segment("id", text) {
        Err(Error::InvalidId { value, .. }) => {
            assert!(matches!(text, "" | "." | ".."), "{text:?} refused");
            assert_eq!(value, text);
        }
        Err(other) => panic!("{text:?}: {other:?}"),
        Ok(encoded) => {
            assert!(!matches!(text, "" | "." | ".."), "{text:?} accepted");
            let url = reqwest::Url::parse(&format!(
                "http://127.0.0.1:1/v1/account-info/balance/{encoded}"
            ))
            .unwrap_or_else(|e| panic!("{text:?} as {encoded:?}: {e}"));
            let segments: Vec<&str> = url
                .path_segments()
                .map(Iterator::collect)
                .unwrap_or_default();
            assert_eq!(
                segments.len(),
                4,
                "{text:?} as {encoded:?} gives {}",
                url.path()
            );
            assert_eq!(
                percent_encoding::percent_decode_str(segments[3]).collect::<Vec<u8>>(),
                text.as_bytes(),
                "{text:?} as {encoded:?} gives {}",
                url.path()
            );
        }
    }
}

/// Read, written, read again: the same value.
fn roundtrip<T: Serialize + DeserializeOwned + PartialEq + Debug>(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<T>(data) else {
        return;
    };
    let written = serde_json::to_vec(&value)
        .unwrap_or_else(|e| panic!("{value:?} read but cannot be written: {e}"));
    let again: T = serde_json::from_slice(&written).unwrap_or_else(|e| {
        panic!(
            "{value:?} written as {} cannot be read: {e}",
            String::from_utf8_lossy(&written)
        )
    });
    assert_eq!(again, value, "{}", String::from_utf8_lossy(&written));
}

/// Two JSON values alike, numbers compared by value (`-0` is `0`, `1.0` is `1`).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y
                || matches!(
                    (x.to_string().parse::<f64>(), y.to_string().parse::<f64>()),
                    (Ok(x), Ok(y)) if x == y
                )
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        (x, y) => x == y,
    }
}

/// An operation without what is not sent (its problems and raw record).
fn sent(operation: &Operation) -> Operation {
    Operation {
        problems: Vec::new(),
        raw: None,
        ..operation.clone()
    }
}

/// Any JSON as a history page and as one record: never fails; a record is written and read
/// back to what was read; a record with problems keeps its raw JSON.
pub fn operations(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let records = match &value {
        Value::Array(items) => items.clone(),
        other => vec![other.clone()],
    };
    for record in records {
        let is_object = record.is_object();
        let operation = Operation::from_json(record.clone());
        assert_eq!(
            operation.raw.is_some(),
            !operation.problems.is_empty(),
            "{operation:?}"
        );
        if !operation.problems.is_empty() {
            assert_eq!(operation.raw.as_ref(), Some(&record));
        }
        // As a page is read: from the bytes of the record (not from a `Value`, whose numbers
        // out of the f64 range are spelled another way when they pass through it again).
        let bytes = serde_json::to_vec(&record).expect("a JSON value is written");
        let derived: Result<Operation, _> = serde_json::from_slice(&bytes);
        assert_eq!(derived.is_ok(), is_object);
        if let Ok(derived) = derived {
            // The raw record may come back with a number written otherwise (`-0` as `0`):
            // numbers are compared by value.
            assert_eq!(sent(&derived), sent(&operation));
            assert!(
                match (&derived.raw, &operation.raw) {
                    (Some(a), Some(b)) => same_json(a, b),
                    (a, b) => a == b,
                },
                "{derived:?} != {operation:?}"
            );
        }
        let written = serde_json::to_value(&operation).expect("an operation is written");
        let again = Operation::from_json(written.clone());
        assert_eq!(sent(&again), sent(&operation), "{written}");
    }
}

fn notification(data: &[u8]) {
    let Ok(read) = serde_json::from_slice::<Notification>(data) else {
        return;
    };
    let written = serde_json::to_vec(&read).expect("a notification is written");
    let again: Notification = serde_json::from_slice(&written).expect("read back");
    assert_eq!(sent(&again.operation), sent(&read.operation));
    assert_eq!(
        (&again.company_inn, &again.company_kpp, &again.sha1_hash),
        (&read.company_inn, &read.company_kpp, &read.sha1_hash)
    );
}

/// Any bytes as the successful answer to an upload: a result (written and read back to the
/// same ids, count and messages) or an in-doubt error that keeps the body.
pub fn upload_answer(data: &[u8]) {
    match read_upload_answer(200, data) {
        Ok(result) => {
            assert_eq!(result.raw, String::from_utf8_lossy(data));
            let written = serde_json::to_vec(&result).expect("a result is written");
            let again = UploadResult::from_answer(&written)
                .unwrap_or_else(|e| panic!("{result:?} written cannot be read: {e:?}"));
            let strip = |r: &UploadResult| UploadResult {
                problems: Vec::new(),
                raw: String::new(),
                ..r.clone()
            };
            assert_eq!(strip(&again), strip(&result));
        }
        Err(error) => {
            assert!(error.in_doubt(), "{error:?}");
            let Error::Unreadable { status, body, .. } = error else {
                panic!("{error:?}");
            };
            assert_eq!(status, 200);
            assert_eq!(body, String::from_utf8_lossy(data));
        }
    }
}

/// Any bytes as the body of an error answer: 503 is maintenance exactly when the body is the
/// bank's error body saying so; nothing else is.
pub fn errors(data: &[u8]) {
    let maintenance = serde_json::from_slice::<ErrorBody>(data)
        .is_ok_and(|b| b.exception_type == crate::client::MAINTENANCE);
    for status in [400, 401, 403, 404, 429, 500, 502, 503, 504] {
        let error = error_from(status, data);
        assert_eq!(
            matches!(error, Error::Maintenance),
            status == 503 && maintenance,
            "{status}: {error:?}"
        );
        assert_eq!(error.status(), Some(status));
        if status == 503 {
            assert!(error.retryable_read());
            assert_eq!(error.not_taken(), maintenance);
            assert_eq!(error.in_doubt(), !maintenance);
        }
        let _ = error.to_string();
    }
}

/// Any bytes as a webhook body: no panic; accepted only with the right hash; and the same body
/// correctly signed (when it names an operation id) is never refused for its hash, so the
/// parser behind the check is fuzzed too.
pub fn webhook(data: &[u8]) {
    let secret = Token::new("fuzz-client-secret");
    for key in [
        WebhookKey::ClientSecret(&secret),
        WebhookKey::CabinetToken(&secret),
    ] {
        if let Ok(notification) = webhook::verify(data, key) {
            assert!(
                notification
                    .sha1_hash
                    .eq_ignore_ascii_case(&webhook::hash(key, &notification.operation.id)),
                "accepted with a wrong hash"
            );
        }
        let Ok(Value::Object(mut map)) = serde_json::from_slice::<Value>(data) else {
            continue;
        };
        let Some(id) = map
            .get("operation")
            .and_then(|o| o.get("id"))
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            continue;
        };
        map.insert("SHA1Hash".into(), Value::String(webhook::hash(key, &id)));
        let body = serde_json::to_vec(&map).expect("written");
        match webhook::verify(&body, key) {
            Ok(notification) => assert_eq!(notification.operation.id, id),
            Err(WebhookError::Hash) => panic!("a correctly signed body refused for its hash"),
            Err(WebhookError::Body(_)) => {}
        }
    }
}
