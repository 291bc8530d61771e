//! Statements back: the daemon writes `outbox/kl_to_1c.txt` from the journal's operations, a
//! restart fetches only from the last day synced, a failure keeps the old statement.

mod common;

use std::time::Duration;

use clientbank_api::Client;
use clientbank_bank::config::Statements;
use clientbank_bank::{Signing, statement};
use clientbank_format::{Encoding, parse};
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

on_both! {
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
        let today = today_date();
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
                .engine()
                .journal()
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
        let again = statement::sync(
            &client,
            daemon.engine_mut().journal_mut(),
            &account,
            from,
            today,
            true,
        )
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
        assert_eq!(summary.payments.signed, 1, "{summary:?}");
        let second = outbox(dir.path());
        assert_eq!(second.0, first.0 + 1);
        assert_eq!(second.1, first.1 - Decimal::new(170_100, 2));
    }
}

on_both! {
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
        let why = summary.statement_error.unwrap().to_string();
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
        // `status` says it in both languages until a statement is written again.
        let said = |dir: &std::path::Path| {
            clientbank_watch::commands::status(dir)
                .unwrap()
                .last_errors
                .iter()
                .map(|e| (e.message.en().to_string(), e.message.ru().to_string()))
                .collect::<Vec<_>>()
        };
        let errors = said(dir.path());
        assert!(
            errors
                .iter()
                .any(|(en, ru)| en.contains("not brought up to date")
                    && ru.starts_with("выписка не обновлена")),
            "{errors:?}"
        );
        bank.control().set_maintenance(false);
        let summary = daemon.run_once().await.unwrap();
        assert!(summary.statement_error.is_none());
        let errors = said(dir.path());
        assert!(
            !errors
                .iter()
                .any(|(en, _)| en.contains("not brought up to date")),
            "a statement written forgets the error: {errors:?}"
        );
    }
}

on_both! {
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
        s.webhook = Some(clientbank_bank::config::WebhookSettings {
            addr: format!("127.0.0.1:{port}").parse().unwrap(),
            key: clientbank_bank::config::WebhookKeyKind::Token,
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
        // A notification whose hash is right for a real id but whose contents were changed, sent
        // before the bank's own (none comes: the address is unregistered), and one for an id the
        // bank never had: hints only. The statement has the bank's record of the first, and no
        // trace of the second.
        bank.control().set_webhook(None).unwrap();
        let late = bank
            .control()
            .receive(&clientbank_sandbox::Receive::new(ROMASHKA))
            .unwrap();
        let token = clientbank_api::Token::new("cabinet-token-full-rights");
        let key = clientbank_api::webhook::WebhookKey::CabinetToken(&token);
        let http = reqwest::Client::new();
        let mut forged = serde_json::to_value(&late[0]).unwrap();
        forged["contragentName"] = "ООО Мошенник".into();
        let mut invented = forged.clone();
        invented["id"] = "00000000-0000-4000-8000-00000000f00d".into();
        for operation in [&forged, &invented] {
            let id = operation["id"].as_str().unwrap();
            let body = serde_json::json!({
                "companyInn": "7701234560", "companyKpp": "770101001",
                "operation": operation, "SHA1Hash": clientbank_api::webhook::hash(key, id),
            });
            let answer = http
                .post(format!("http://127.0.0.1:{port}/notify"))
                .json(&body)
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 200);
        }
        while documents(&statement) != Some(before + 4) {
            assert!(
                std::time::Instant::now() < deadline,
                "the forged notification's operation is not in the statement: {:?}",
                documents(&statement)
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let text = Encoding::Cp1251
            .decode(&std::fs::read(&statement).unwrap())
            .into_owned();
        assert!(
            !text.contains("Мошенник"),
            "a webhook's contents went into the statement"
        );
        assert!(text.contains(late[0].contragent_name.as_deref().unwrap()));
        stop.send(()).unwrap();
        let summary = run.await.unwrap().unwrap();
        assert_eq!(
            summary.statement_error, None,
            "an invented id does not break the balance"
        );
        // Recorded once each; from the webhook, or from the history when the refresh a first
        // notification started read it before its own notification came (a race under load).
        let journal = journal_of(dir.path(), false);
        let today = today_date().format("%Y-%m-%d").to_string();
        let rows = journal
            .operations_between(ROMASHKA, &today, &today)
            .unwrap();
        let mut from_webhook = 0;
        for operation in &arrived {
            let found: Vec<_> = rows.iter().filter(|r| r.id == operation.id).collect();
            assert_eq!(found.len(), 1, "{rows:?}");
            assert!(["webhook", "history"].contains(&found[0].source.as_str()));
            from_webhook += usize::from(found[0].source == "webhook");
        }
        assert!(from_webhook >= 1, "{rows:?}");
        assert!(
            bank.control()
                .deliveries()
                .iter()
                .filter(|d| arrived.iter().any(|o| o.id == d.operation_id))
                .all(|d| d.status == Some(200) && d.attempt == 1)
        );
    }
}

on_both! {
    async fn an_operation_that_comes_late_to_a_day_already_synced_is_in_the_statement() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut s = settings(&bank);
        s.statements = Some(statements(2));
        let mut daemon = open(dir.path(), s);
        daemon.run_once().await.unwrap();
        let (before, closing) = outbox(dir.path());
        // Yesterday's day was synced; an operation of yesterday shows up only now.
        let yesterday = today_date().pred_opt().unwrap();
        bank.control()
            .receive(&clientbank_sandbox::Receive {
                date: Some(yesterday),
                amount: Some(Decimal::new(33_300, 2)),
                ..clientbank_sandbox::Receive::new(ROMASHKA)
            })
            .unwrap();
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.statement_error, None, "{summary:?}");
        let (after, new_closing) = outbox(dir.path());
        assert_eq!(after, before + 1);
        assert_eq!(new_closing, closing + Decimal::new(33_300, 2));
    }
}

on_both! {
    /// The tester's find: a payment executed in the last second of a Moscow day (23:59:59.4) was in
    /// that day's history but not in the sandbox bank's balance at its end, and the statement
    /// refused to be written ("the history and the balance disagree").
    async fn a_payment_in_the_last_second_of_the_day_is_in_its_balance() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let keys = tempfile::tempdir().unwrap();
        let mut s = settings(&bank);
        s.statements = Some(statements(2));
        s.signing = Signing::Auto;
        s.signers
            .insert("7701234560".into(), signer(keys.path(), "7701234560"));
        let mut daemon = open(dir.path(), s);
        daemon.engine_mut().companies().await.unwrap();
        put(dir.path(), "late.json", json_drop(&[801]));
        // 23:59:59.2 in Moscow (20:59:59.2 UTC): the payment is executed within the last second.
        let now = bank
            .control()
            .advance_clock(chrono::Duration::zero())
            .unwrap();
        let late = today_date().and_hms_milli_opt(20, 59, 59, 200).unwrap();
        bank.control().advance_clock(late - now).unwrap();
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.payments.signed, 1, "{summary:?}");
        assert!(summary.statement_error.is_none(), "{summary:?}");
        assert!(summary.statement.is_some(), "{summary:?}");
    }
}
