//! A configuration problem that keeps a request from being made is "not sent", never "sent,
//! answer lost" (the tester's D5 of issue 10), and never shows the token.

use clientbank_api::{Client, Error, Token};
use clientbank_sandbox::{Config, Sandbox};

#[tokio::test]
async fn a_token_that_cannot_be_a_header_is_a_configuration_error_and_nothing_is_sent() {
    let bank = Sandbox::start(Config::default()).await.unwrap();
    for bad in ["bad\nX", "two words", "секретный-токен", "tail\r\n"] {
        let e = Client::builder(bank.url())
            .token(Token::new(bad))
            .build()
            .unwrap_err();
        assert!(matches!(e, Error::Config(_)), "{e:?}");
        assert!(e.not_taken() && !e.in_doubt(), "{e:?}");
        let text = format!("{e} {e:?}");
        assert!(!text.contains(bad.trim()), "{text}");
        assert!(text.contains("token"), "{text}");
    }
    assert!(bank.control().payments().is_empty());
    // The good token goes through as before.
    let client = Client::builder(bank.url())
        .token(Token::new("cabinet-token-full-rights"))
        .build()
        .unwrap();
    assert!(!client.companies().await.unwrap().is_empty());
}
