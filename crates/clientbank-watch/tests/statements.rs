//! Statements back: the daemon writes `outbox/kl_to_1c.txt` from the journal's operations, a
//! restart fetches only from the last day synced, a failure keeps the old statement.

mod common;

use std::time::Duration;

use clientbank_api::Client;
use clientbank_format::{Encoding, parse};
use clientbank_watch::config::Statements;
use clientbank_watch::{Signing, statement};
use common::*;
use rust_decimal::Decimal;

fn statements(days: u32) -> Statements {
    Statements {
        accounts: vec![ROMASHKA.into()],
        days,
        interval: Duration::from_secs(3600),
        encoding: Encoding::Cp1251,
        file: "kl_to_1c.txt".into(),
    }
}

/// The documents of the outbox statement, with the balance identity checked on every day.
fn outbox(dir: &std::path::Path) -> (usize, Decimal) {
    let bytes = std::fs::read(dir.join("outbox/kl_to_1c.txt")).unwrap();
    let parsed = parse(bytes).unwrap();
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let exchange = parsed.tree.to_exchange();
    let mut closing = None;
    for s in &exchange.accounts {
        let end = s.opening_balance.unwrap() + s.credited.unwrap() - s.debited.unwrap();
        assert_eq!(Some(end), s.closing_balance);
        if let Some(previous) = closing {
            assert_eq!(Some(previous), s.opening_balance);
        }
        closing = s.closing_balance;
    }
    (exchange.documents.len(), closing.unwrap())
}

#[tokio::test]
async fn the_outbox_statement_follows_the_bank_and_a_restart_fetches_only_new_days() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let keys = tempfile::tempdir().unwrap();
    let mut s = settings(&bank);
    // 200 days reach back over the sandbox's history (June to September).
    s.statements = Some(statements(200));
    s.signing = Signing::Auto;
    s.signers
        .insert("7701234560".into(), signer(keys.path(), "7701234560"));
    let today = clientbank_payment::clock::today_in_moscow();
    let client = Client::builder(bank.url())
        .token(clientbank_api::Token::new("cabinet-token-full-rights"))
        .build()
        .unwrap();
    let id = client
        .accounts()
        .await
        .unwrap()
        .into_iter()
        .find(|(_, a)| a.number.as_deref() == Some(ROMASHKA))
        .unwrap()
        .1
        .id;
    let (first, sync) = {
        let mut daemon = open(dir.path(), s.clone());
        let summary = daemon.run_once().await.unwrap();
        assert!(summary.statement.is_some(), "{summary:?}");
        let sync = daemon
            .engine
            .journal
            .statement_sync(ROMASHKA)
            .unwrap()
            .unwrap();
        (outbox(dir.path()), sync)
    };
    assert!(first.0 > 50, "the history of months: {first:?}");
    assert_eq!(first.1, client.balance_on(&id, today).await.unwrap());
    assert_eq!(sync.synced_till, today.format("%Y-%m-%d").to_string());
    assert!(sync.last_operation.is_some());

    // A restart: the journal knows the days synced; only today is asked again.
    let mut daemon = open(dir.path(), s.clone());
    let account = statement::accounts(&client, &[ROMASHKA.into()])
        .await
        .unwrap()
        .remove(0);
    let from = today - chrono::Duration::days(199);
    let again = statement::sync(&client, &mut daemon.engine.journal, &account, from, today)
        .await
        .unwrap();
    assert_eq!(again.added, 0);
    assert!(
        again.fetched < 50,
        "today's records only, not the months: {again:?}"
    );

    // A payment signed now is in the next statement, and the balance follows.
    put(dir.path(), "today.json", json_drop(&[701]));
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(summary.signed, 1, "{summary:?}");
    let second = outbox(dir.path());
    assert_eq!(second.0, first.0 + 1);
    assert_eq!(second.1, first.1 - Decimal::new(170_100, 2));
}

#[tokio::test]
async fn the_bank_unavailable_keeps_the_old_statement_and_says_why() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&bank);
    s.statements = Some(statements(2));
    let mut daemon = open(dir.path(), s.clone());
    daemon.run_once().await.unwrap();
    let before = std::fs::read(dir.path().join("outbox/kl_to_1c.txt")).unwrap();
    bank.control().set_maintenance(true);
    let summary = daemon.run_once().await.unwrap();
    let why = summary.statement_error.unwrap();
    assert!(why.contains("not brought up to date"), "{why}");
    assert_eq!(
        std::fs::read(dir.path().join("outbox/kl_to_1c.txt")).unwrap(),
        before
    );
    assert_eq!(
        files(dir.path(), "outbox"),
        ["kl_to_1c.txt"],
        "no temporary file left"
    );
}

#[tokio::test]
async fn a_webhook_brings_the_outbox_statement_up_to_date_at_once() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut s = settings(&bank);
    // Only the webhook makes the statement due again within the test's time.
    s.statements = Some(statements(2));
    s.webhook = Some(clientbank_watch::config::WebhookSettings {
        addr: format!("127.0.0.1:{port}").parse().unwrap(),
        key: clientbank_watch::config::WebhookKeyKind::Token,
        client_secret: None,
    });
    bank.control()
        .set_webhook_with_token(
            Some(format!("http://127.0.0.1:{port}/notify")),
            Some("cabinet-token-full-rights"),
        )
        .unwrap();
    let mut daemon = open(dir.path(), s);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let run = tokio::spawn(async move {
        daemon
            .run(async move {
                let _ = stopped.await;
            })
            .await
    });
    let statement = dir.path().join("outbox/kl_to_1c.txt");
    let documents = |path: &std::path::Path| -> Option<usize> {
        let parsed = parse(std::fs::read(path).ok()?).ok()?;
        Some(parsed.tree.documents().count())
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while documents(&statement).is_none() {
        assert!(std::time::Instant::now() < deadline, "no first statement");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let before = documents(&statement).unwrap();
    let arrived = bank
        .control()
        .receive(&clientbank_sandbox::Receive {
            count: 3,
            ..clientbank_sandbox::Receive::new(ROMASHKA)
        })
        .unwrap();
    while documents(&statement) != Some(before + 3) {
        assert!(
            std::time::Instant::now() < deadline,
            "the statement did not follow the webhook: {:?} documents",
            documents(&statement)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    stop.send(()).unwrap();
    run.await.unwrap().unwrap();
    // Recorded once each, from the webhook (the history found them already there).
    let journal = clientbank_watch::journal::Journal::open(
        &dir.path().join(".clientbank/journal.sqlite"),
        false,
    )
    .unwrap();
    let today = clientbank_payment::clock::today_in_moscow()
        .format("%Y-%m-%d")
        .to_string();
    let rows = journal
        .operations_between(ROMASHKA, &today, &today)
        .unwrap();
    for operation in &arrived {
        let row = rows.iter().find(|r| r.id == operation.id).unwrap();
        assert_eq!(row.source, "webhook", "{row:?}");
    }
    assert!(
        bank.control()
            .deliveries()
            .iter()
            .filter(|d| arrived.iter().any(|o| o.id == d.operation_id))
            .all(|d| d.status == Some(200) && d.attempt == 1)
    );
}
