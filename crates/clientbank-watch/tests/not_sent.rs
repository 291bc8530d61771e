//! A configuration problem is "nothing sent", never "sent, answer lost" (the tester's D5).

mod common;

use clientbank_api::Token;
use clientbank_watch::Error;
use clientbank_watch::FileEnd;
use clientbank_watch::state::PaymentState;
use common::*;

on_both! {
    async fn a_token_that_cannot_be_a_header_sends_nothing_and_puts_nothing_in_review() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut bad = settings(&bank);
        bad.token = Some(Token::new("bad\nX"));
        let mut daemon = open(dir.path(), bad);
        put(dir.path(), "a.json", json_drop(&[7000, 7001]));
        let e = daemon.run_once().await.unwrap_err();
        assert!(
            matches!(e, Error::Bank(clientbank_bank::Error::Config(_))),
            "{e:?}"
        );
        assert!(e.to_string().contains("line break"), "{e}");
        assert!(!e.to_string().contains("bad"), "{e}");
        assert_eq!(e.exit_code(), 2);
        assert!(at_bank(&bank).is_empty());
        assert!(files(dir.path(), "review").is_empty());
        assert_eq!(files(dir.path(), "processing"), ["a.json"]);
        let rows = daemon.engine().journal().all_payments().unwrap();
        assert!(
            rows.iter().all(|r| r.outcome.state == PaymentState::Planned),
            "{rows:?}"
        );
        // Fixed: sent once.
        daemon.engine_mut().set_settings(settings(&bank));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["a.json"], "{summary:?}");
        assert_eq!(at_bank(&bank).len(), 2);
    }
}
