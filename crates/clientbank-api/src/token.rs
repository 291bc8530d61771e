//! The access token: a secret that never shows in `Debug`, logs or error text.

use std::fmt;

use clientbank_diagnostic::{Message, tr};

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

    /// Whether the token can travel in an `Authorization` header: one line of printable ASCII
    /// without spaces, not empty. The reason says what is wrong and where, never the token.
    pub fn check(&self) -> Result<(), String> {
        self.check_said().map_err(|why| why.en().to_string())
    }

    /// [`Token::check`], said in English and Russian.
    pub fn check_said(&self) -> Result<(), Message> {
        if self.0.is_empty() {
            return Err(Message::new("the token is empty", "токен пуст"));
        }
        // Copied with the header's word (`Bearer abc…`): the word is the client's to add.
        if let Some((word, _)) = self.0.split_once(' ')
            && word.eq_ignore_ascii_case("bearer")
        {
            return Err(Message::new(
                "the token begins with the word \"Bearer \": write the token alone, without it",
                "токен начинается словом «Bearer »: запишите один токен, без этого слова",
            ));
        }
        for (index, c) in self.0.chars().enumerate() {
            let (what, what_ru) = match c {
                '\n' | '\r' => ("a line break", "перевод строки"),
                ' ' | '\t' => ("a space", "пробел"),
                c if c.is_ascii_graphic() => continue,
                c if c.is_control() => ("a control character", "управляющий символ"),
                _ => (
                    "a character that is not printable ASCII",
                    "символ не из печатных ASCII",
                ),
            };
            let (at, of) = (index + 1, self.0.chars().count());
            return Err(tr!(
                "the token holds {what} (character {at} of {of}): a token is one line of \
                 printable ASCII without spaces";
                "в токене {what_ru} (символ {at} из {of}): токен — одна строка печатных \
                 символов ASCII без пробелов"
            ));
        }
        Ok(())
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
    fn a_token_that_cannot_be_a_header_is_refused_without_showing_it() {
        assert!(Token::new("cabinet-token-full-rights").check().is_ok());
        for bad in [
            "",
            "bad\nX",
            "two words",
            "tab\there",
            "секрет",
            "a\u{7f}b",
            "x\r\n",
        ] {
            let e = Token::new(bad).check().unwrap_err();
            assert!(bad.is_empty() || !e.contains(bad), "{e}");
            assert!(!e.contains("bad") && !e.contains("words"), "{e}");
        }
        assert!(
            Token::new("bad\nX")
                .check()
                .unwrap_err()
                .contains("line break")
        );
        // Copied with the header's word: said so, the token itself not shown.
        for copied in ["Bearer s3cret-value", "bearer s3cret-value"] {
            let e = Token::new(copied).check_said().unwrap_err();
            assert!(e.en().contains("without it") && e.ru().contains("без этого слова"));
            assert!(!e.en().contains("s3cret") && !e.ru().contains("s3cret"));
        }
    }

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
