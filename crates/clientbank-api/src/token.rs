//! The access token: a secret that never shows in `Debug`, logs or error text.

use std::fmt;

/// An access token (or the application's secret word). `Debug` prints `Token(****)`; there is no
/// `Display`, so it cannot slip into a message by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// Wraps a token.
    pub fn new(secret: impl Into<String>) -> Token {
        Token(secret.into())
    }

    /// The secret itself, for the one place that must send it.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(****)")
    }
}

impl<'de> serde::Deserialize<'de> for Token {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Token, D::Error> {
        String::deserialize(deserializer).map(Token)
    }
}

/// The answer to `POST /oauth/token`.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenResponse {
    /// The access token, valid three years.
    pub access_token: Token,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_secret() {
        let token = Token::new("sandboxtoken");
        assert_eq!(format!("{token:?}"), "Token(****)");
        let response: TokenResponse =
            serde_json::from_str(r#"{"accessToken": "s3cret-value"}"#).unwrap();
        assert!(!format!("{response:?}").contains("s3cret"));
        assert_eq!(response.access_token.expose_secret(), "s3cret-value");
    }
}
