//! The daemon end to end, in-process, against the sandbox bank over loopback (issue 10 item 14).

mod common;

use clientbank_watch::FileEnd;
use std::time::{Duration, Instant};

use clientbank_api::Token;
use clientbank_bank::Signing;
use clientbank_sandbox::{DropConnection, Fault};
use clientbank_watch::commands;
use clientbank_watch::state::PaymentState;
use common::*;

on_both! {
    async fn both_routes_json_and_1c() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        put(dir.path(), "requests.json", json_drop(&[11, 12]));
        put(dir.path(), "carried.txt", onec_drop(&[21, 22], 5));
        put(dir.path(), "priority.txt", onec_drop(&[31], 3));
        let mut daemon = open(dir.path(), settings(&bank));
        let summary = daemon.run_once().await.unwrap();
        assert!(!summary.needs_attention(), "{summary:?}");
        assert_eq!(
            files(dir.path(), "done"),
            ["carried.txt", "priority.txt", "requests.json"]
        );
        assert!(files(dir.path(), "inbox").is_empty());
        assert!(files(dir.path(), "processing").is_empty());
        assert_eq!(summary.payments.uploaded, 5);
        let payments = at_bank(&bank);
        assert_eq!(payments.len(), 5, "{payments:?}");
        for (number, _, awaiting, status) in &payments {
            // JSON route with InSigning: awaiting signature; 1C route: a draft.
            let expect_awaiting = number != "31";
            assert_eq!(*awaiting, expect_awaiting, "payment {number}: {status}");
        }
        let journal = daemon.engine().journal();
        let rows = journal.all_payments().unwrap();
        assert_eq!(rows.len(), 5);
        assert!(
            rows.iter()
                .all(|r| r.outcome.state == PaymentState::Uploaded && r.outcome.bank_id.is_some())
        );
        let report = read(dir.path(), "done", "priority.txt.report.csv");
        assert!(
            report.starts_with("\u{feff}number;date;sum;recipient"),
            "{report}"
        );
        assert!(report.contains("uploaded as a draft"), "{report}");
        let report = read(dir.path(), "done", "requests.json.report.csv");
        assert!(report.contains("awaiting signature"), "{report}");
        for row in rows.iter().filter(|r| r.payment.number != "31") {
            assert!(
                report.contains(row.outcome.bank_id.as_deref().unwrap()) || row.payment.number.starts_with('2')
            );
        }
    }
}

on_both! {
    async fn a_file_with_an_error_is_rejected_whole_and_nothing_sent() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        put(
            dir.path(),
            "with-error.txt",
            include_bytes!("../../../testdata/drops/with-error.txt"),
        );
        let mut daemon = open(dir.path(), settings(&bank));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Rejected), ["with-error.txt"]);
        assert!(summary.needs_attention());
        assert!(at_bank(&bank).is_empty());
        let errors = read(dir.path(), "rejected", "with-error.txt.errors.txt");
        assert!(errors.contains("error[inn-check-digit]"), "{errors}");
        assert!(errors.contains("with-error.txt:27:15"), "{errors}");
    }
}

on_both! {
    async fn the_same_content_or_payment_again_is_not_sent_twice() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        put(dir.path(), "a.json", json_drop(&[41, 42]));
        daemon.run_once().await.unwrap();
        assert_eq!(at_bank(&bank).len(), 2);
        // The same bytes again, under the same name (a unique suffix in done/).
        put(dir.path(), "a.json", json_drop(&[41, 42]));
        // The same payment 42 written differently (sum 1042 without decimals), beside a new one.
        let other = format!(
            "[{}, {}]",
            request(ROMASHKA, 42, "1042"),
            request(ROMASHKA, 43, "1043.00")
        );
        put(dir.path(), "b.json", other);
        let summary = daemon.run_once().await.unwrap();
        assert!(!summary.needs_attention(), "{summary:?}");
        assert_eq!(
            files(dir.path(), "done"),
            ["a (2).json", "a.json", "b.json"]
        );
        assert_no_duplicates(&bank);
        assert_eq!(at_bank(&bank).len(), 3);
        let again = read(dir.path(), "done", "a (2).json.report.csv");
        assert_eq!(
            again.matches("already at the bank: id ").count(),
            2,
            "{again}"
        );
        let b = read(dir.path(), "done", "b.json.report.csv");
        let already = b
            .lines()
            .filter(|l| l.contains("already at the bank: id"))
            .count();
        assert_eq!(already, 1, "{b}");
    }
}

on_both! {
    async fn a_file_written_slowly_is_not_claimed_early() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        let root = dir.path().to_path_buf();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let run = tokio::spawn(async move {
            let summary = daemon
                .run(async {
                    let _ = stop_rx.await;
                })
                .await
                .unwrap();
            (daemon, summary)
        });
        let content = json_drop(&[51, 52, 53]).into_bytes();
        let path = root.join("inbox").join("slow.json");
        let chunks: Vec<&[u8]> = content.chunks(content.len() / 8 + 1).collect();
        {
            use std::io::Write;
            let mut file = std::fs::File::create(&path).unwrap();
            for chunk in chunks {
                file.write_all(chunk).unwrap();
                file.flush().unwrap();
                tokio::time::sleep(Duration::from_millis(90)).await;
                assert!(
                    files(&root, "processing").is_empty() && files(&root, "done").is_empty(),
                    "claimed while still being written"
                );
            }
        }
        let written = Instant::now();
        while files(&root, "done").is_empty() {
            assert!(written.elapsed() < Duration::from_secs(10), "never claimed");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Claimed within a second of the last write plus the settle interval (150 ms).
        assert!(
            written.elapsed() < Duration::from_millis(1150),
            "{:?}",
            written.elapsed()
        );
        stop_tx.send(()).unwrap();
        let (_, summary) = run.await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["slow.json"]);
        assert_eq!(at_bank(&bank).len(), 3);
    }
}

on_both! {
    async fn a_503_storm_makes_the_file_wait_then_it_goes_through() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        bank.control().set_maintenance(true);
        put(dir.path(), "storm.json", json_drop(&[61, 62]));
        for _ in 0..3 {
            daemon.pass().await.unwrap();
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert_eq!(files(dir.path(), "processing"), ["storm.json"]);
        assert!(files(dir.path(), "rejected").is_empty());
        assert!(at_bank(&bank).is_empty());
        assert!(daemon.summary.bank_unavailable.is_some());
        bank.control().set_maintenance(false);
        // Then injected 503s for the next requests: retried, never rejected.
        bank.control().set_fault(Some(Fault {
            status: Some(503),
            times: Some(4),
            ..Fault::default()
        }));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["storm.json"], "{summary:?}");
        assert_eq!(at_bank(&bank).len(), 2);
        assert_no_duplicates(&bank);
    }
}

on_both! {
    /// Issue 17 item 6: a 429 (too many requests) or 408 (request not received in time) is the
    /// bank not taking the request: the file waits and is sent later, never rejected, nothing in
    /// doubt; the bank's `Retry-After` is kept.
    async fn a_429_or_408_makes_the_file_wait_not_rejected() {
        for status in [429, 408] {
            let bank = bank().await;
            let dir = tempfile::tempdir().unwrap();
            let mut daemon = open(dir.path(), settings(&bank));
            bank.control().set_fault(Some(Fault {
                status: Some(status),
                ..Fault::default()
            }));
            put(dir.path(), "busy.json", json_drop(&[81, 82]));
            for _ in 0..3 {
                daemon.pass().await.unwrap();
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            assert_eq!(files(dir.path(), "processing"), ["busy.json"], "{status}");
            assert!(files(dir.path(), "rejected").is_empty(), "{status}");
            let why = daemon.summary.bank_unavailable.clone().unwrap().to_string();
            assert!(
                why.contains(&format!("({status}")) && why.contains("1 s"),
                "{why}"
            );
            let rows = daemon.engine().journal().all_payments().unwrap();
            assert!(
                rows.iter().all(|r| r.outcome.state == PaymentState::Planned),
                "{status}: never sent, not in doubt: {rows:?}"
            );
            // Issue 19: `status` says why the file waits — once for the run of failures, not
            // at every try — and forgets it once the bank answers again.
            let noted = commands::status(dir.path())
                .unwrap()
                .last_errors;
            assert_eq!(noted.len(), 1, "{noted:?}");
            assert!(
                noted[0].message.en().contains("busy.json is not sent yet")
                    && noted[0].message.ru().contains("busy.json пока не отправлен"),
                "{noted:?}"
            );
            bank.control().set_fault(None);
            let summary = daemon.run_once().await.unwrap();
            assert_eq!(summary.files(FileEnd::Done), ["busy.json"], "{status}: {summary:?}");
            let noted = commands::status(dir.path())
                .unwrap()
                .last_errors;
            assert!(noted.is_empty(), "{noted:?}");
            assert_eq!(at_bank(&bank).len(), 2);
            assert_no_duplicates(&bank);
        }
    }
}

on_both! {
    async fn refused_connections_are_retried_and_the_file_is_sent_once() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let closed = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap()
        };
        let mut nowhere = settings(&bank);
        nowhere.bank_url = Some(format!("http://{closed}/v1"));
        nowhere.once_patience = Duration::from_millis(600);
        let mut daemon = open(dir.path(), nowhere);
        put(dir.path(), "refused.json", json_drop(&[71]));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Waiting), ["refused.json"], "{summary:?}");
        assert!(summary.bank_unavailable.is_some());
        let rows = daemon.engine().journal().all_payments().unwrap();
        assert_eq!(
            rows[0].outcome.state,
            PaymentState::Planned,
            "not in doubt: never sent"
        );
        daemon.engine_mut().set_settings(settings(&bank));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["refused.json"], "{summary:?}");
        assert_eq!(at_bank(&bank).len(), 1);
    }
}

on_both! {
    async fn drop_after_acting_goes_to_review_and_is_never_resent() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        // The companies are read first (for the journal's company names): before the fault.
        daemon.engine_mut().companies().await.unwrap();
        put(dir.path(), "lost.json", json_drop(&[81, 82]));
        bank.control().set_fault(Some(Fault {
            drop: Some(DropConnection::AfterActing),
            times: Some(1),
            ..Fault::default()
        }));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Review), ["lost.json"], "{summary:?}");
        let review = read(dir.path(), "review", "lost.json.review.txt");
        assert!(review.contains("MAY BE AT THE BANK"), "{review}");
        assert!(review.contains("clientbank resolve"), "{review}");
        let at = at_bank(&bank).len();
        assert!(at <= 1, "{:?}", at_bank(&bank));
        // Again and again: nothing re-sent.
        daemon.run_once().await.unwrap();
        drop(daemon);
        let mut daemon = open(dir.path(), settings(&bank));
        daemon.run_once().await.unwrap();
        assert_eq!(at_bank(&bank).len(), at);
        assert_eq!(files(dir.path(), "review"), ["lost.json"]);
        // A person checks the bank: it is there. The unsent payment goes on through the inbox.
        // (resolve takes the DIR lock: the daemon stops first.)
        drop(daemon);
        let said =
            commands::resolve(dir.path(), "lost.json", true, clientbank_format::Lang::En).unwrap();
        assert!(said.contains("inbox"), "{said}");
        let mut daemon = open(dir.path(), settings(&bank));
        daemon.run_once().await.unwrap();
        assert_no_duplicates(&bank);
        let numbers: Vec<String> = at_bank(&bank).into_iter().map(|p| p.0).collect();
        assert!(numbers.contains(&"82".to_string()), "{numbers:?}");
        assert!(files(dir.path(), "review").is_empty());
        assert_eq!(files(dir.path(), "done"), ["lost.json"]);
    }
}

on_both! {
    async fn drop_before_acting_goes_to_review_and_resolve_not_sent_sends_it_once() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        daemon.engine_mut().companies().await.unwrap();
        put(dir.path(), "cut.json", json_drop(&[91]));
        bank.control().set_fault(Some(Fault {
            drop: Some(DropConnection::BeforeActing),
            times: Some(1),
            ..Fault::default()
        }));
        let summary = daemon.run_once().await.unwrap();
        // The client cannot tell a connection dropped before the bank acted from one dropped
        // after: both are in doubt.
        assert_eq!(summary.files(FileEnd::Review), ["cut.json"], "{summary:?}");
        assert!(at_bank(&bank).is_empty());
        // The note says resolve needs the folder to itself (the daemon stopped first).
        let note = read(dir.path(), "review", "cut.json.review.txt");
        assert!(
            note.contains("stop the service or `clientbank watch`")
                || note.contains("сначала остановите службу"),
            "{note}"
        );
        drop(daemon);
        // Said in the person's language (issue 19): here Russian, to the last word.
        let said =
            commands::resolve(dir.path(), "cut.json", false, clientbank_format::Lang::Ru).unwrap();
        assert!(said.contains("снова во входящих: inbox/cut.json"), "{said}");
        assert!(said.contains("которых нет в банке: 1"), "{said}");
        assert!(!said.contains("в банке платежей: 0"), "{said}");
        assert!(!said.contains("payment") && !said.contains(" sent"), "{said}");
        assert_eq!(files(dir.path(), "inbox"), ["cut.json"]);
        let mut daemon = open(dir.path(), settings(&bank));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["cut.json"], "{summary:?}");
        assert_eq!(at_bank(&bank).len(), 1);
    }
}

on_both! {
    async fn a_refused_token_stops_uploads_and_the_files_wait() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut wrong = settings(&bank);
        wrong.token = Some(Token::new("not-a-token"));
        let mut daemon = open(dir.path(), wrong);
        put(dir.path(), "a.json", json_drop(&[101]));
        put(dir.path(), "b.json", json_drop(&[102]));
        let summary = daemon.run_once().await.unwrap();
        assert!(summary.token_refused.is_some(), "{summary:?}");
        assert!(
            !summary
                .token_refused
                .as_ref()
                .unwrap()
                .en()
                .contains("not-a-token")
        );
        // Said once, in both languages, in the summary and in what `status` shows.
        let refused = summary.token_refused.clone().unwrap();
        let noted = daemon.engine().journal().last_events(10).unwrap();
        assert_eq!(noted.len(), 1, "{noted:?}");
        for said in [&refused, &noted[0].message] {
            assert_eq!(said.en().matches("does not accept the token").count(), 1, "{}", said.en());
            assert_eq!(said.ru().matches("не принимает токен").count(), 1, "{}", said.ru());
        }
        assert_eq!(summary.files(FileEnd::Waiting), ["a.json", "b.json"]);
        assert!(at_bank(&bank).is_empty());
        // A file with errors needs no bank to be rejected: it is, while the others wait.
        put(dir.path(), "c.json", request(ROMASHKA, 103, "0.00"));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Rejected), ["c.json"], "{summary:?}");
        assert_eq!(summary.files(FileEnd::Waiting), ["a.json", "b.json"], "{summary:?}");
        assert!(at_bank(&bank).is_empty());
        daemon.engine_mut().set_settings(settings(&bank));
        // Still blocked until the retry interval or a configuration change...
        let mut fresh = open_after(daemon, &bank, dir.path());
        let summary = fresh.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["a.json", "b.json"], "{summary:?}");
        assert_eq!(at_bank(&bank).len(), 2);
    }
}

/// Reopens the daemon (a restart).
fn open_after(
    daemon: clientbank_watch::Daemon,
    bank: &clientbank_sandbox::Sandbox,
    dir: &std::path::Path,
) -> clientbank_watch::Daemon {
    drop(daemon);
    open(dir, settings(bank))
}

on_both! {
    async fn the_bank_refusing_a_payment_rejects_the_file_with_its_message() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        let mixed = format!(
            "[{}, {}]",
            request(ROMASHKA, 111, "111.00"),
            request(OTHER_USER, 112, "112.00")
        );
        put(dir.path(), "mixed.json", mixed);
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Rejected), ["mixed.json"], "{summary:?}");
        let errors = read(dir.path(), "rejected", "mixed.json.errors.txt");
        assert!(errors.contains("access denied (400)"), "{errors}");
        assert!(errors.contains(OTHER_USER), "{errors}");
        let report = read(dir.path(), "rejected", "mixed.json.report.csv");
        assert!(report.contains("refused by the bank"), "{report}");
        assert!(report.contains("awaiting signature"), "{report}");
        assert_eq!(at_bank(&bank).len(), 1);
    }
}

on_both! {
    async fn a_refused_signature_leaves_the_ids_awaiting_then_a_good_one_signs() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let keys = tempfile::tempdir().unwrap();
        let mut s = settings(&bank);
        s.signing = Signing::Auto;
        // A certificate of another company: the bank refuses the signature.
        s.signers
            .insert("7701234560".into(), signer(keys.path(), "7707083893"));
        s.signers
            .insert("500100732259".into(), signer(keys.path(), "500100732259"));
        let mut daemon = open(dir.path(), s.clone());
        let drop = format!(
            "[{}, {}, {}]",
            request(ROMASHKA, 121, "121.00"),
            request(ROMASHKA, 122, "122.00"),
            request(IVANOV, 123, "123.00")
        );
        put(dir.path(), "sign.json", drop);
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["sign.json"]);
        assert_eq!(summary.payments.signed, 1, "Иванов's payment is signed: {summary:?}");
        assert_eq!(summary.sign_failures.len(), 1, "{summary:?}");
        assert!(
            summary.sign_failures[0].en().contains("refused"),
            "{summary:?}"
        );
        assert!(
            summary.sign_failures[0].ru().contains("отклонил"),
            "{summary:?}"
        );
        let awaiting = daemon.engine().journal().awaiting_signature().unwrap();
        assert_eq!(awaiting.len(), 2);
        assert!(awaiting[0].outcome.message.as_deref().unwrap().contains("refused"));
        let refusals = |dir: &std::path::Path| {
            clientbank_watch::commands::status(dir)
                .unwrap()
                .last_errors
                .into_iter()
                .filter(|e| e.message.ru().starts_with("банк отклонил подпись"))
                .count()
        };
        assert!(
            refusals(dir.path()) > 0,
            "the refusal is a last error, in Russian too"
        );
        s.signers
            .insert("7701234560".into(), signer(keys.path(), "7701234560"));
        daemon.engine_mut().set_settings(s);
        // A company with nothing awaiting is named, with those that have: not "nothing awaits".
        let e = daemon.engine_mut().sign(Some("9999999999"), false).await.unwrap_err();
        let said = e.message();
        assert!(
            said.en().contains("no payment of the company 9999999999")
                && said.en().contains("7701234560")
                && said.ru().contains("платежей организации 9999999999 на подписи нет"),
            "{said:?}"
        );
        let groups = daemon.engine_mut().sign(Some("7701234560"), false).await.unwrap();
        assert_eq!(groups.len(), 1);
        assert!(groups[0].result.is_signed(), "{:?}", groups[0].result);
        assert_eq!(groups[0].ids.len(), 2);
        assert!(
            daemon
                .engine()
                .journal()
                .awaiting_signature()
                .unwrap()
                .is_empty()
        );
        let executed = at_bank(&bank)
            .into_iter()
            .filter(|p| p.3 == "Executed")
            .count();
        assert_eq!(executed, 3, "{:?}", at_bank(&bank));
        assert_eq!(
            refusals(dir.path()),
            0,
            "the company's payments signed: its signing errors are forgotten"
        );
    }
}

on_both! {
    /// A run killed after the bank took its signature but before the journal recorded it: the
    /// payment no longer awaits a signature at the bank. It must not block the company's others.
    async fn a_payment_signed_by_a_lost_run_does_not_block_the_others() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let keys = tempfile::tempdir().unwrap();
        let mut s = settings(&bank);
        let argv = signer(keys.path(), "7701234560");
        s.signers.insert("7701234560".into(), argv.clone());
        let mut daemon = open(dir.path(), s);
        let payments = format!(
            "[{}, {}, {}]",
            request(ROMASHKA, 131, "131.00"),
            request(ROMASHKA, 132, "132.00"),
            request(ROMASHKA, 133, "133.00")
        );
        put(dir.path(), "lost.json", payments);
        daemon.run_once().await.unwrap();
        let awaiting = daemon.engine().journal().awaiting_signature().unwrap();
        assert_eq!(awaiting.len(), 3);
        // The lost run's signature of the second payment, taken by the bank.
        let lost = awaiting[1].outcome.bank_id.clone().unwrap();
        let content = clientbank_api::SignRequest::signed_content(std::slice::from_ref(&lost));
        let api = clientbank_api::Client::builder(bank.url())
            .token(Token::new("cabinet-token-full-rights"))
            .build()
            .unwrap();
        api.sign(&clientbank_api::SignRequest {
            operations: vec![lost.clone()],
            sign_base64: clientbank_bank::signer::sign(&argv, &content).unwrap(),
        })
        .await
        .unwrap();
        let groups = daemon.engine_mut().sign(None, false).await.unwrap();
        let signed: Vec<_> = groups.iter().filter(|g| g.result.is_signed()).collect();
        assert_eq!(signed.len(), 2, "each of the others alone: {groups:?}");
        let refused: Vec<_> = groups.iter().filter(|g| !g.result.is_signed()).collect();
        assert_eq!(refused.len(), 1, "{groups:?}");
        assert_eq!(refused[0].ids, std::slice::from_ref(&lost));
        assert!(refused[0].result.message().en().contains("no longer awaits"), "{groups:?}");
        assert_eq!(
            at_bank(&bank)
                .into_iter()
                .filter(|p| p.3 == "Executed")
                .count(),
            3
        );
        // Nothing is offered for signing again; status says what happened.
        assert!(
            daemon
                .engine()
                .journal()
                .awaiting_signature()
                .unwrap()
                .is_empty()
        );
        assert!(daemon.engine_mut().sign(None, false).await.unwrap().is_empty());
        drop(daemon);
        let status = commands::status(dir.path()).unwrap();
        let text = format!("{status:?}");
        assert!(text.contains("no longer awaiting a signature"), "{text}");
    }
}

on_both! {
    async fn a_restart_with_files_in_every_folder() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        {
            let mut daemon = open(dir.path(), settings(&bank));
            put(dir.path(), "good.json", json_drop(&[131]));
            put(
                dir.path(),
                "bad.txt",
                include_bytes!("../../../testdata/drops/with-error.txt"),
            );
            daemon.run_once().await.unwrap();
            // A file whose intents are recorded and whose first payment was being sent when the
            // daemon died; and one whose intents are recorded and nothing was sent yet.
            for (name, numbers) in [("inflight.json", [132, 133]), ("planned.json", [134, 135])] {
                let bytes = json_drop(&numbers);
                std::fs::write(dir.path().join("processing").join(name), &bytes).unwrap();
                let drop = clientbank_watch::drop::read(
                    std::path::Path::new(name),
                    bytes.as_bytes(),
                    today_date(),
                    clientbank_format::Lang::En,
                );
                let hash = clientbank_watch::engine::content_hash(bytes.as_bytes());
                let place = format!("processing/{name}");
                let begun = daemon
                    .engine_mut()
                    .begin(name, &place, &hash, &drop)
                    .await
                    .unwrap();
                let clientbank_watch::engine::Begun::Recorded { file_id, .. } = begun else {
                    panic!("{begun:?}")
                };
                if name == "inflight.json" {
                    let rows = daemon.engine().journal().payments_of(file_id).unwrap();
                    daemon.engine_mut().journal_mut().mark_sending(&[rows[0].id]).unwrap();
                }
            }
            put(dir.path(), "new.json", json_drop(&[136]));
        }
        let mut daemon = open(dir.path(), settings(&bank));
        // At start: the file with a payment in flight is in review, before anything is sent.
        assert_eq!(files(dir.path(), "review"), ["inflight.json"]);
        let review = read(dir.path(), "review", "inflight.json.review.txt");
        assert!(review.contains("stopped while"), "{review}");
        let summary = daemon.run_once().await.unwrap();
        assert!(summary.files(FileEnd::Waiting).is_empty());
        assert_eq!(
            files(dir.path(), "done"),
            ["good.json", "new.json", "planned.json"]
        );
        assert_eq!(files(dir.path(), "rejected"), ["bad.txt"]);
        assert_eq!(files(dir.path(), "review"), ["inflight.json"]);
        let numbers: Vec<String> = at_bank(&bank).into_iter().map(|p| p.0).collect();
        assert_eq!(numbers.len(), 4, "{numbers:?}");
        assert!(!numbers.contains(&"132".to_string()) && !numbers.contains(&"133".to_string()));
        let status = commands::status(dir.path()).unwrap();
        assert_eq!(status.folders["done"].len(), 3);
        let count = |label: &str| {
            let found = status.payments.iter().find(|c| c.label.0 == label);
            found.map_or(0, |c| c.count)
        };
        assert_eq!((count("in doubt"), status.in_doubt()), (1, 1));
        assert_eq!(count("awaiting signature"), 4);
    }
}

on_both! {
    async fn a_changed_configuration_lifts_a_refused_token() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("clientbank.toml");
        std::fs::write(&config, "token = \"not-a-token\"\n").unwrap();
        let mut wrong = settings(&bank);
        wrong.token = Some(Token::new("not-a-token"));
        wrong.file = Some(config.clone());
        wrong.token_retry = Duration::from_secs(3600);
        let mut good = settings(&bank);
        good.file = Some(config.clone());
        let mut daemon = open(dir.path(), wrong);
        daemon.set_reloader(Box::new(move || Ok(good.clone())));
        put(dir.path(), "a.json", json_drop(&[141]));
        let summary = daemon.run_once().await.unwrap();
        assert!(summary.token_refused.is_some());
        assert_eq!(summary.files(FileEnd::Waiting), ["a.json"]);
        // Unchanged configuration: still blocked (the retry is an hour away).
        daemon.pass().await.unwrap();
        assert!(at_bank(&bank).is_empty());
        std::fs::write(&config, "token = \"cabinet-token-full-rights\"\n").unwrap();
        let later = std::time::SystemTime::now() + Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&config)
            .unwrap()
            .set_modified(later)
            .unwrap();
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["a.json"], "{summary:?}");
        assert!(summary.token_refused.is_none());
        assert_eq!(at_bank(&bank).len(), 1);
    }
}

on_both! {
    /// A number written with leading zeros (`0402`) is reported as written — the report, the
    /// summary's lines — so that the accounting software finds it; payments are still matched
    /// by the number normalised (`402` again is the same payment: not sent twice).
    async fn a_number_with_leading_zeros_is_reported_as_written() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        let zero = request(ROMASHKA, 402, "402.00").replace("\"Number\": \"402\"", "\"Number\": \"0402\"");
        put(dir.path(), "zero.json", format!("[{zero}]\n"));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["zero.json"], "{summary:?}");
        let report = read(dir.path(), "done", "zero.json.report.csv");
        assert!(report.contains("\"=\"\"0402\"\"\""), "{report}");
        put(dir.path(), "again.json", format!("[{}]\n", request(ROMASHKA, 402, "402.00")));
        let summary = daemon.run_once().await.unwrap();
        assert!(summary.files(FileEnd::Done).contains(&"again.json".to_string()), "{summary:?}");
        assert_eq!(at_bank(&bank).len(), 1, "the same payment, not sent twice");
        let report = read(dir.path(), "done", "again.json.report.csv");
        assert!(report.contains("already"), "{report}");
    }
}

on_both! {
    /// A folder tried with a bank on this machine (the sandbox bank of `clientbank sandbox`,
    /// as the README's set-up does) is refused by a bank elsewhere: its payments are not at
    /// that bank, though the journal holds them as sent. Another address on this machine is
    /// allowed (the sandbox bank on another port).
    async fn a_folder_tried_on_this_machine_is_refused_by_a_bank_elsewhere() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        put(dir.path(), "a.json", json_drop(&[611]));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["a.json"], "{summary:?}");
        drop(daemon);
        let elsewhere = clientbank_bank::Settings {
            bank_url: Some("https://bank.example/v1".into()),
            ..settings(&bank)
        };
        let e = clientbank_watch::Daemon::open(dir.path(), elsewhere, options()).unwrap_err();
        assert!(matches!(e, clientbank_watch::Error::JournalRefused(_)), "{e}");
        let said = e.message();
        assert!(said.en().contains("a bank on this machine"), "{}", said.en());
        assert!(said.ru().contains("банк на этой машине"), "{}", said.ru());
        let other_port = clientbank_bank::Settings {
            bank_url: Some("http://127.0.0.1:9/v1".into()),
            ..settings(&bank)
        };
        assert!(clientbank_watch::Daemon::open(dir.path(), other_port, options()).is_ok());
    }
}

on_both! {
    /// The token put right in its file (`token_file`) is taken at once, as a changed
    /// configuration is: the log says "when the configuration or the token file changes".
    async fn a_token_file_put_right_lifts_a_refused_token() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("clientbank.toml");
        let token_file = dir.path().join("token.txt");
        std::fs::write(&config, "token_file = \"token.txt\"\n").unwrap();
        std::fs::write(&token_file, "not-a-token\n").unwrap();
        let mut wrong = settings(&bank);
        wrong.token = Some(Token::new("not-a-token"));
        wrong.file = Some(config.clone());
        wrong.token_file = Some(token_file.clone());
        wrong.token_retry = Duration::from_secs(3600);
        let mut good = wrong.clone();
        good.token = settings(&bank).token;
        let mut daemon = open(dir.path(), wrong);
        daemon.set_reloader(Box::new(move || Ok(good.clone())));
        put(dir.path(), "a.json", json_drop(&[142]));
        let summary = daemon.run_once().await.unwrap();
        assert!(summary.token_refused.is_some());
        daemon.pass().await.unwrap();
        assert!(at_bank(&bank).is_empty(), "blocked while nothing changed");
        std::fs::write(&token_file, "cabinet-token-full-rights\n").unwrap();
        let later = std::time::SystemTime::now() + Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&token_file)
            .unwrap()
            .set_modified(later)
            .unwrap();
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["a.json"], "{summary:?}");
        assert_eq!(at_bank(&bank).len(), 1);
    }
}

on_both! {
    /// Issue 17 items 7 and 8: an inbox file named as clientbank's own notes (`*.errors.txt`,
    /// `*.review.txt`, `*.report.csv`) or too long for the notes beside it was claimed and never
    /// left processing/; now it stays in the inbox, said as ignored. `status` shows names with
    /// control characters escaped, never raw.
    async fn names_the_daemon_cannot_keep_notes_for_stay_in_the_inbox_and_are_said() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        let long = format!("{}.json", "п".repeat(120));
        assert!(long.len() > 236 && long.len() <= 255);
        // Any letter case: Windows and SMB shares take `D.Errors.Txt` for `d.errors.txt`.
        for name in [
            "a.errors.txt",
            "b.review.txt",
            "c.report.csv",
            "D.Errors.Txt",
            long.as_str(),
        ] {
            put(dir.path(), name, json_drop(&[91]));
        }
        put(dir.path(), "fine.json", json_drop(&[92]));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["fine.json"], "{summary:?}");
        assert!(files(dir.path(), "processing").is_empty());
        assert_eq!(at_bank(&bank).len(), 1);
        let status = commands::status(dir.path()).unwrap();
        assert_eq!(status.ignored.len(), 5, "{:?}", status.ignored);
        assert!(status.ignored.iter().any(|i| {
            i.to_string()
                .starts_with("a.errors.txt (a name clientbank gives")
        }));
        assert!(
            status
                .ignored
                .iter()
                .any(|i| i.to_string().contains("too long"))
        );
        // A name with a line break and an escape, put in processing/ by hand.
        std::fs::write(dir.path().join("processing/x\n\u{1b}[31m.json"), b"[]").unwrap();
        let status = commands::status(dir.path()).unwrap();
        let listed = &status.folders["processing"];
        assert_eq!(listed, &["x\\n\\u{1b}[31m.json"], "{listed:?}");
    }
}

/// Issue 17 item 5, through the daemon: the journal's write-ahead log deleted while it runs
/// stops it before anything more is sent, as a deleted journal does.
#[cfg(unix)]
#[tokio::test]
async fn a_deleted_write_ahead_log_stops_the_daemon_before_it_sends() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    put(dir.path(), "first.json", json_drop(&[141]));
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(summary.files(FileEnd::Done), ["first.json"], "{summary:?}");
    std::fs::remove_file(dir.path().join(".clientbank/journal.sqlite-wal")).unwrap();
    put(dir.path(), "second.json", json_drop(&[142]));
    let e = daemon.run_once().await.unwrap_err().to_string();
    assert!(e.contains("write-ahead log"), "{e}");
    assert_eq!(at_bank(&bank).len(), 1, "nothing more sent");
}

on_both! {
    /// Issue 17 item 9: a file deleted while its payments are being sent did not change: it is not
    /// said to have changed (nor sent to review for it); its payments stay recorded at the bank.
    async fn a_file_deleted_mid_send_is_not_called_changed() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        daemon.engine_mut().companies().await.unwrap();
        put(dir.path(), "gone.json", json_drop(&[161, 162]));
        // A slow bank: the file is deleted while the first payment is on its way.
        bank.control().set_fault(Some(Fault {
            delay: Some(Duration::from_millis(700)),
            times: Some(1),
            ..Fault::default()
        }));
        let processing = dir.path().join("processing/gone.json");
        let deleter = std::thread::spawn(move || {
            let started = Instant::now();
            while !processing.exists() && started.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(5));
            }
            std::thread::sleep(Duration::from_millis(200));
            std::fs::remove_file(&processing).unwrap();
        });
        let summary = daemon.run_once().await.unwrap();
        deleter.join().unwrap();
        assert!(summary.files(FileEnd::Review).is_empty(), "{summary:?}");
        assert_eq!(at_bank(&bank).len(), 2);
        let events = daemon.engine().journal().last_events(10).unwrap();
        assert!(
            events.iter().all(|e| !e.message.en().contains("changed")),
            "{events:?}"
        );
        assert!(
            events.iter().any(|e| e.message.en().contains("vanished")),
            "{events:?}"
        );
    }
}

on_both! {
    /// Issue 19 item 12: `[notify]` is told, as one JSON object on its standard input, of a file
    /// gone to rejected/ and of payments awaiting their signature too long (each once).
    #[cfg(unix)]
    async fn notify_is_told_of_what_needs_a_person() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let events = dir.path().join("events.jsonl");
        let mut s = settings(&bank);
        s.notify = Some(clientbank_bank::config::Notify {
            command: vec![
                "sh".into(),
                "-c".into(),
                format!("cat >> '{}'", events.display()),
            ],
            signature_after: Duration::ZERO,
        });
        // A Russian user: the event's `reason` stays English, `reason_ru` is Russian.
        s.lang = clientbank_format::Lang::Ru;
        let mut daemon = open(dir.path(), s);
        put(
            dir.path(),
            "bad.json",
            b"[{\"payment\": {\"Number\": \"7\", \"Sum\": \"-5\"}}]\n",
        );
        put(dir.path(), "good.json", json_drop(&[171]));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Rejected), ["bad.json"], "{summary:?}");
        assert_eq!(summary.files(FileEnd::Done), ["good.json"], "{summary:?}");
        // The payment awaits its signature (signing is manual): told on the next pass, once.
        tokio::time::sleep(Duration::from_millis(1100)).await;
        daemon.pass().await.unwrap();
        daemon.pass().await.unwrap();
        let started = Instant::now();
        let lines = loop {
            let text = std::fs::read_to_string(&events).unwrap_or_default();
            let lines: Vec<serde_json::Value> = text
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            if lines.len() >= 2 || started.elapsed() > Duration::from_secs(10) {
                break lines;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let rejected = lines.iter().find(|e| e["event"] == "rejected").unwrap();
        assert_eq!(rejected["file"], "bad.json", "{rejected}");
        assert_eq!(
            rejected["note"], "rejected/bad.json.errors.txt",
            "{rejected}"
        );
        let reason = rejected["reason"].as_str().unwrap();
        assert!(reason.contains("error[sum-not-positive]"), "{rejected}");
        assert!(!reason.contains("ошибка"), "English always: {rejected}");
        let reason_ru = rejected["reason_ru"].as_str().unwrap();
        assert!(reason_ru.contains("ошибка[sum-not-positive]"), "{rejected}");
        // The payment the rejected file holds, though nothing of it was sent.
        assert_eq!(rejected["payments"][0]["number"], "7", "{rejected}");
        assert_eq!(rejected["payments"][0]["state"], "not-sent", "{rejected}");
        let unsigned: Vec<_> = lines
            .iter()
            .filter(|e| e["event"] == "awaiting-signature")
            .collect();
        assert_eq!(unsigned.len(), 1, "once: {lines:?}");
        assert_eq!(unsigned[0]["payments"][0]["number"], "171", "{lines:?}");
    }
}

on_both! {
    /// Payments sent to a sandbox (the built-in bank of `--sandbox`, the bank's sandbox mode)
    /// are never taken for sent at the real bank, nor the other way round: a journal that sent
    /// to one kind of bank refuses another kind before anything is sent, and a mark of a
    /// payment `sending` refuses it too (nothing marked, nothing sent). The same kind at
    /// another address is the bank moved: allowed.
    async fn a_journal_never_mixes_a_sandbox_with_the_real_bank() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let built_in = clientbank_bank::Settings {
            built_in_bank: true,
            ..settings(&bank)
        };
        let mut daemon = open(dir.path(), built_in.clone());
        put(dir.path(), "a.json", json_drop(&[601]));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["a.json"], "{summary:?}");
        drop(daemon);
        let sent = at_bank(&bank).len();
        for other in [
            settings(&bank),
            clientbank_bank::Settings {
                sandbox: true,
                ..settings(&bank)
            },
        ] {
            let kind = other.bank_kind();
            let e = clientbank_watch::Daemon::open(dir.path(), other, options()).unwrap_err();
            assert!(matches!(e, clientbank_watch::Error::JournalRefused(_)), "{kind:?}: {e}");
            let said = e.message();
            assert!(said.en().contains("built-in sandbox bank"), "{}", said.en());
            assert!(said.en().contains("a folder of its own"), "{}", said.en());
            assert!(said.ru().contains("в отдельной папке"), "{}", said.ru());
            // The kinds are named after a dash, in the nominative ("в встроенный" read wrong).
            assert!(said.ru().contains(", — это встроенный тестовый банк"), "{}", said.ru());
        }
        // The same kind at another address: allowed, and the file goes.
        let moved = clientbank_bank::Settings {
            bank_url: Some(format!("{}/", bank.url())),
            ..built_in.clone()
        };
        let mut daemon = open(dir.path(), moved);
        put(dir.path(), "b.json", json_drop(&[602]));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["b.json"], "{summary:?}");
        assert_eq!(at_bank(&bank).len(), sent + 1);
        // A daemon whose settings change under it to the real bank marks nothing more.
        daemon.engine_mut().set_settings(settings(&bank));
        put(dir.path(), "c.json", json_drop(&[603]));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(at_bank(&bank).len(), sent + 1, "{summary:?}");
        assert!(summary.files(FileEnd::Done).iter().all(|n| n != "c.json"), "{summary:?}");
    }
}
