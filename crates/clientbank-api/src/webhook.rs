//! Checking a webhook notification's `SHA1Hash` (API.md Part 1, Events).

use sha1::{Digest, Sha1};
use subtle::ConstantTimeEq;

use crate::token::Token;
use crate::types::Notification;

/// What the hash is keyed with, by how the token was obtained.
#[derive(Clone, Copy, Debug)]
pub enum WebhookKey<'a> {
    /// A token generated in the bank cabinet: its first 10 characters are the key.
    CabinetToken(&'a Token),
    /// A token obtained through the authorization flow: the application's secret word is.
    ClientSecret(&'a Token),
}

/// The lower-case hex SHA-1 of `<key>&<operation id>`.
pub fn hash(key: WebhookKey<'_>, operation_id: &str) -> String {
    let key: String = match key {
        WebhookKey::CabinetToken(token) => token.expose_secret().chars().take(10).collect(),
        WebhookKey::ClientSecret(secret) => secret.expose_secret().to_string(),
    };
    let digest = Sha1::digest(format!("{key}&{operation_id}").as_bytes());
    hex::encode(digest)
}

/// Why a notification is not accepted.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WebhookError {
    /// The body is not a notification.
    #[error("not a webhook notification: {0}")]
    Body(String),
    /// `SHA1Hash` does not match: not from the bank, or altered.
    #[error("SHA1Hash does not match the operation id and key")]
    Hash,
}

/// The least of a notification needed to check its hash: the operation's id and `SHA1Hash`.
/// Every other member is skipped unread (`IgnoredAny`), so nothing of an unauthenticated
/// body reaches the field parsers.
#[derive(serde::Deserialize)]
struct Envelope {
    operation: OperationId,
    #[serde(rename = "SHA1Hash")]
    sha1_hash: String,
}

#[derive(serde::Deserialize)]
struct OperationId {
    id: String,
}

/// Checks a notification's `SHA1Hash` (either letter case) and only then reads the body.
///
/// The hash covers the operation's id, which is inside the body: the body is first read as
/// JSON for `operation.id` and `SHA1Hash` alone (other members skipped unread); an
/// unauthenticated body never reaches the parsers of dates, amounts and the rest. The
/// comparison takes the same time wherever the hashes differ.
pub fn verify(body: &[u8], key: WebhookKey<'_>) -> Result<Notification, WebhookError> {
    let envelope: Envelope =
        serde_json::from_slice(body).map_err(|e| WebhookError::Body(e.to_string()))?;
    if !same_hex(&envelope.sha1_hash, &hash(key, &envelope.operation.id)) {
        return Err(WebhookError::Hash);
    }
    serde_json::from_slice(body).map_err(|e| WebhookError::Body(e.to_string()))
}

/// Hex digests equal in either letter case, compared without an early exit.
fn same_hex(given: &str, expected: &str) -> bool {
    let given = given.as_bytes().to_ascii_lowercase();
    let expected = expected.as_bytes().to_ascii_lowercase();
    given.ct_eq(&expected).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worked_example_of_api_md() {
        let token = Token::new("sandboxtoken");
        assert_eq!(
            hash(
                WebhookKey::CabinetToken(&token),
                "a4b825ca-a6f8-4996-a1db-a5f3028bb68d"
            ),
            "c039243e64c11635afbc1bd99185e34313702d43"
        );
    }

    #[test]
    fn verifies_both_key_kinds_and_refuses_a_forgery() {
        let secret = Token::new("sandboxappsecret");
        let id = "a4b825ca-a6f8-4996-a1db-a5f3028bb68d";
        for key in [
            WebhookKey::ClientSecret(&secret),
            WebhookKey::CabinetToken(&secret),
        ] {
            let body = format!(
                r#"{{"companyInn": "7701234560", "companyKpp": "770101001",
                    "operation": {{"id": "{id}", "amount": 10.5}}, "SHA1Hash": "{}"}}"#,
                hash(key, id).to_uppercase()
            );
            let notification = verify(body.as_bytes(), key).unwrap();
            assert_eq!(notification.operation.id, id);
            let forged = body.replace(id, "a4b825ca-a6f8-4996-a1db-a5f3028bb68e");
            assert_eq!(verify(forged.as_bytes(), key), Err(WebhookError::Hash));
        }
        assert!(matches!(
            verify(b"{}", WebhookKey::ClientSecret(&secret)),
            Err(WebhookError::Body(_))
        ));
    }

    #[test]
    fn an_unauthenticated_body_never_reaches_the_field_parsers() {
        let key = Token::new("sandboxappsecret");
        let key = WebhookKey::ClientSecret(&key);
        // Odd fields behind a wrong hash: refused for the hash, not read.
        let forged =
            br#"{"operation": {"id": "x", "amount": {"a": 1}, "executed": "2026-06-01T10:00:00+1"},
            "companyInn": 5, "SHA1Hash": "00"}"#;
        assert_eq!(verify(forged, key), Err(WebhookError::Hash));
        // The same odd fields with the right hash: read leniently, the oddities noted.
        let body = format!(
            r#"{{"operation": {{"id": "x", "executed": "2026-06-01T10:00:00+1"}}, "SHA1Hash": "{}"}}"#,
            hash(key, "x")
        );
        let notification = verify(body.as_bytes(), key).unwrap();
        assert_eq!(notification.operation.executed, None);
        assert!(
            notification
                .operation
                .problems
                .iter()
                .any(|p| p.starts_with("executed:")),
            "{:?}",
            notification.operation.problems
        );
    }
}
