//! A payment never reaches the bank twice, whatever arrives while the bank is unavailable,
//! whoever else works on the folder (the tester's D1, D2, D3 of issue 10).

mod common;

use clientbank_watch::FileEnd;
use std::time::Duration;

use clientbank_watch::state::PaymentState;
use clientbank_watch::{Daemon, Error, commands};
use common::*;

fn patient(bank: &clientbank_sandbox::Sandbox) -> clientbank_bank::Settings {
    let mut s = settings(bank);
    s.once_patience = Duration::from_millis(400);
    s
}

on_both! {
    async fn a_copy_of_a_file_waiting_for_the_bank_is_not_sent_again() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), patient(&bank));
        daemon.engine_mut().companies().await.unwrap();
        bank.control().set_maintenance(true);
        put(dir.path(), "P.json", json_drop(&[5000, 5001]));
        put(dir.path(), "P (копия).json", json_drop(&[5000, 5001]));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(
            files(dir.path(), "processing"),
            ["P (копия).json", "P.json"],
            "{summary:?}"
        );
        assert!(at_bank(&bank).is_empty());
        // A restart while both wait.
        drop(daemon);
        bank.control().set_maintenance(false);
        let mut daemon = open(dir.path(), settings(&bank));
        let summary = daemon.run_once().await.unwrap();
        assert_no_duplicates(&bank);
        assert_eq!(at_bank(&bank).len(), 2, "{:?}", at_bank(&bank));
        assert_eq!(
            files(dir.path(), "done"),
            ["P (копия).json", "P.json"],
            "{summary:?}"
        );
        assert_eq!((summary.payments.uploaded, summary.payments.already), (2, 2), "{summary:?}");
        // One of the two sent them, the other says they are already at the bank.
        let copy = read(dir.path(), "done", "P (копия).json.report.csv");
        let original = read(dir.path(), "done", "P.json.report.csv");
        let already = |report: &str| report.matches("already at the bank: id").count();
        assert_eq!(
            (
                already(&copy) + already(&original),
                already(&copy) * already(&original)
            ),
            (2, 0),
            "{copy}\n{original}"
        );
    }
}

on_both! {
    async fn files_sharing_a_payment_during_a_503_window_send_it_once() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), patient(&bank));
        daemon.engine_mut().companies().await.unwrap();
        bank.control().set_maintenance(true);
        put(dir.path(), "A.json", json_drop(&[6000, 6001]));
        put(dir.path(), "B.json", json_drop(&[6001, 6002]));
        daemon.run_once().await.unwrap();
        assert_eq!(files(dir.path(), "processing"), ["A.json", "B.json"]);
        // B's 6001 waits for A's; B's 6002 is its own.
        let rows = daemon.engine().journal().all_payments().unwrap();
        let queued: Vec<_> = rows
            .iter()
            .filter(|r| r.outcome.state == PaymentState::Queued)
            .collect();
        assert_eq!(queued.len(), 1, "{rows:?}");
        assert_eq!(queued[0].payment.number, "6001");
        assert!(
            queued[0]
                .outcome.message
                .as_deref()
                .unwrap()
                .contains("processing/A.json, waiting for the bank: sent once"),
            "{:?}",
            queued[0].outcome.message
        );
        bank.control().set_maintenance(false);
        let summary = daemon.run_once().await.unwrap();
        assert_no_duplicates(&bank);
        assert_eq!(at_bank(&bank).len(), 3, "{:?}", at_bank(&bank));
        assert_eq!(
            files(dir.path(), "done"),
            ["A.json", "B.json"],
            "{summary:?}"
        );
        let b = read(dir.path(), "done", "B.json.report.csv");
        assert_eq!(b.matches("already at the bank: id").count(), 1, "{b}");
    }
}

on_both! {
    async fn a_file_held_behind_a_waiting_file_waits_and_the_summary_says_so() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), patient(&bank));
        daemon.engine_mut().companies().await.unwrap();
        bank.control().set_maintenance(true);
        put(dir.path(), "first.json", json_drop(&[6100]));
        daemon.run_once().await.unwrap();
        put(dir.path(), "second.json", json_drop(&[6100]));
        let mut s = settings(&bank);
        s.once_patience = Duration::from_secs(2);
        daemon.engine_mut().set_settings(s);
        let summary = daemon.run_once().await.unwrap();
        assert!(files(dir.path(), "done").is_empty(), "{summary:?}");
        assert_eq!(
            files(dir.path(), "processing"),
            ["first.json", "second.json"],
            "{summary:?} {:?} {:?}",
            files(dir.path(), "inbox"),
            files(dir.path(), "review")
        );
        assert_eq!(summary.files(FileEnd::Queued), ["second.json"], "{summary:?}");
        assert_eq!(summary.files(FileEnd::Waiting), ["first.json"], "{summary:?}");
        assert_eq!(summary.payments.uploaded, 0);
    }
}

on_both! {
    fn the_journal_refuses_two_active_intents_for_one_identity() {
        let dir = tempfile::tempdir().unwrap();
        // Two connections, as two processes would have.
        let mut one = journal_of(dir.path(), true);
        let mut two = journal_of(dir.path(), false);
        let payment = planned(7);
        let (a, _) = record(&mut one, "a.json", std::slice::from_ref(&payment)).unwrap();
        let (b, ids) = record(&mut two, "b.json", std::slice::from_ref(&payment)).unwrap();
        assert_ne!(a, b);
        let rows = two.payments_of(b).unwrap();
        assert_eq!(rows[0].outcome.state, PaymentState::Queued, "{rows:?}");
        // No code path makes it active beside the first: not a state change, not a send mark.
        assert!(
            two.set_payment(ids[0], PaymentState::Planned, None)
                .is_err()
        );
        assert!(
            two.set_payment(ids[0], PaymentState::Uploaded, None)
                .is_err()
        );
        let marked = two.mark_sending(&[ids[0]]).unwrap();
        assert!(marked.is_empty(), "marked sending beside an active intent");
        assert_eq!(two.payments_of(b).unwrap()[0].outcome.state, PaymentState::Queued);
        // Once the first is at the bank, the second is "already", and never sent.
        let first = one.payments_of(a).unwrap()[0].id;
        one.record_outcomes(&[(first, uploaded("id-1"))]).unwrap();
        two.requeue(b).unwrap();
        let row = &two.payments_of(b).unwrap()[0];
        assert_eq!(row.outcome.state, PaymentState::Already);
        assert!(
            row.outcome.message.as_deref().unwrap().contains("id id-1"),
            "{row:?}"
        );
    }
}

#[tokio::test]
async fn upload_beside_a_running_daemon_waits_then_refuses() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let daemon = open(dir.path(), settings(&bank));
    let e = commands::engine(dir.path(), settings(&bank), false).unwrap_err();
    assert!(matches!(e, Error::Busy(_)), "{e}");
    assert!(e.to_string().contains("clientbank watch"), "{e}");
    let e = commands::resolve(dir.path(), "x.json", true, clientbank_format::Lang::En).unwrap_err();
    assert!(matches!(e, Error::Busy(_)), "{e}");
    drop(daemon);
    commands::engine(dir.path(), settings(&bank), false).unwrap();
}

#[cfg(unix)]
#[tokio::test]
async fn a_deleted_lock_stops_the_daemon_before_a_second_one_can_share_the_folder() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut first = open(dir.path(), settings(&bank));
    first.pass().await.unwrap();
    std::fs::remove_file(dir.path().join(".clientbank").join("lock")).unwrap();
    // A second daemon now gets a lock of its own...
    let mut second = Daemon::open(dir.path(), settings(&bank), options()).unwrap();
    put(dir.path(), "a.json", json_drop(&[6200, 6201]));
    // ...and the first stops at its next look, before it touches a file.
    let e = first.pass().await.unwrap_err();
    assert!(matches!(e, Error::Busy(_)), "{e}");
    assert!(e.to_string().contains("lock"), "{e}");
    let e = first.run_once().await.unwrap_err();
    assert!(matches!(e, Error::Busy(_)), "{e}");
    let summary = second.run_once().await.unwrap();
    assert_eq!(summary.files(FileEnd::Done), ["a.json"], "{summary:?}");
    assert_eq!(at_bank(&bank).len(), 2);
    // The same with the lock replaced by another file.
    drop(second);
    let mut third = open(dir.path(), settings(&bank));
    let lock = dir.path().join(".clientbank").join("lock");
    std::fs::remove_file(&lock).unwrap();
    std::fs::write(&lock, b"").unwrap();
    assert!(matches!(third.pass().await, Err(Error::Busy(_))));
}

on_both! {
    /// Issue 17 item 1: a 1C file the bank takes in part (its third payment's payer account is not
    /// the token's) went wholly to doubt, and `resolve` settled it on one word: twice or never.
    /// Now each payment is recorded as the answer says: two created with their ids, the third
    /// refused with the bank's reason; the file is rejected with its report; a corrected drop of
    /// the third sends it once, and the first two are never sent again.
    async fn a_1c_file_the_bank_takes_in_part_is_recorded_payment_by_payment() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        // Priority 3 is not carried by JSON: the file goes whole through /operation-upload/1c.
        let drop = onec_drop_from(&[(121, ROMASHKA), (122, ROMASHKA), (123, OTHER_USER)], 3);
        put(dir.path(), "part.txt", drop);
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Rejected), ["part.txt"], "{summary:?}");
        assert_eq!(at_bank(&bank).len(), 2);
        let rows = daemon.engine().journal().all_payments().unwrap();
        let state = |n: &str| {
            let row = rows.iter().find(|r| r.payment.number == n).unwrap();
            (row.outcome.state, row.outcome.bank_id.is_some())
        };
        assert_eq!(state("121"), (PaymentState::Uploaded, true));
        assert_eq!(state("122"), (PaymentState::Uploaded, true));
        assert_eq!(state("123"), (PaymentState::Refused, false));
        let report = read(dir.path(), "rejected", "part.txt.report.csv");
        let numbers: Vec<String> = clientbank_watch::report::read_csv(report.as_bytes())
            .into_iter()
            .map(|(number, _, _)| number)
            .collect();
        assert_eq!(numbers, ["121", "122", "123"], "{report}");
        // The ids recorded are the bank's ids of those numbers.
        let by_number: std::collections::HashMap<_, _> = bank
            .control()
            .payments()
            .into_iter()
            .map(|p| (p.number.unwrap_or_default(), p.id))
            .collect();
        for row in rows.iter().filter(|r| r.outcome.bank_id.is_some()) {
            assert_eq!(
                row.outcome.bank_id.as_ref(),
                by_number.get(&row.payment.number),
                "{row:?}"
            );
        }
        // The third, corrected, alone: sent once; the others never again.
        put(dir.path(), "third.txt", onec_drop(&[123], 3));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["third.txt"], "{summary:?}");
        assert_eq!(at_bank(&bank).len(), 3);
        assert_no_duplicates(&bank);
    }
}

on_both! {
    /// Issue 17 items 1 and 3: `resolve` settles payment by payment; a file replaced while it was
    /// being sent is read anew from the inbox (its unknown payments were never sent), and its
    /// report never lists payments that are not in it.
    async fn resolve_settles_payment_by_payment_and_a_replaced_file_goes_back_whole() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        daemon.engine_mut().companies().await.unwrap();
        // The payment sent, its answer lost after the bank acted.
        bank.control().set_fault(Some(clientbank_sandbox::Fault {
            drop: Some(clientbank_sandbox::DropConnection::AfterActing),
            times: Some(1),
            ..Default::default()
        }));
        put(dir.path(), "lost.json", json_drop(&[131]));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Review), ["lost.json"], "{summary:?}");
        drop(daemon);
        // A number not in doubt, or named on both sides, is refused with the numbers in doubt.
        let both = commands::Settlement {
            sent: Some(vec!["131".into()]),
            not_sent: Some(vec!["131".into()]),
        };
        let e =
            commands::settle(dir.path(), "lost.json", &both, clientbank_format::Lang::En).unwrap_err();
        assert!(e.to_string().contains("both"), "{e}");
        let wrong = commands::Settlement {
            sent: Some(vec!["999".into()]),
            not_sent: None,
        };
        let e =
            commands::settle(dir.path(), "lost.json", &wrong, clientbank_format::Lang::En).unwrap_err();
        assert!(e.to_string().contains("in doubt: 131"), "{e}");
        // The file is replaced in review/ by other payments before it is settled.
        std::fs::write(dir.path().join("review/lost.json"), json_drop(&[132, 133])).unwrap();
        let said = commands::settle(
            dir.path(),
            "lost.json",
            &commands::Settlement {
                sent: Some(vec!["131".into()]),
                not_sent: None,
            },
            clientbank_format::Lang::En,
        )
        .unwrap();
        assert!(
            said.contains("back in the inbox") && said.contains("replaced"),
            "{said}"
        );
        // A payment said at the bank has no id known here: it is signed in the cabinet.
        assert!(said.contains("signed in the bank's cabinet"), "{said}");
        let mut daemon = open(dir.path(), settings(&bank));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["lost.json"], "{summary:?}");
        // 131 once (the lost answer's), 132 and 133 once each.
        assert_eq!(at_bank(&bank).len(), 3);
        assert_no_duplicates(&bank);
        let report = read(dir.path(), "done", "lost.json.report.csv");
        let numbers: Vec<String> = clientbank_watch::report::read_csv(report.as_bytes())
            .into_iter()
            .map(|(number, _, _)| number)
            .collect();
        assert_eq!(
            numbers,
            ["132", "133"],
            "the report is of the file as it is: {report}"
        );
    }
}

on_both! {
    /// Issue 17 item 4: a file removed from processing/ while it waits for the bank (deleted, or
    /// moved back to the inbox) blocked its payments forever ("queued" in any copy). Now its
    /// never-sent payments are released and the copy sends each once, through restarts too.
    async fn a_file_that_vanishes_from_processing_releases_its_payments() {
        for moved_back in [false, true] {
            let bank = bank().await;
            let dir = tempfile::tempdir().unwrap();
            let mut daemon = open(dir.path(), patient(&bank));
            bank.control().set_maintenance(true);
            put(dir.path(), "wait.json", json_drop(&[151, 152]));
            daemon.run_once().await.unwrap();
            assert_eq!(files(dir.path(), "processing"), ["wait.json"]);
            let waiting = dir.path().join("processing/wait.json");
            if moved_back {
                std::fs::rename(&waiting, dir.path().join("inbox/wait.json")).unwrap();
            } else {
                std::fs::remove_file(&waiting).unwrap();
                put(dir.path(), "again.json", json_drop(&[151, 152]));
            }
            // A restart in between, and the bank back.
            drop(daemon);
            bank.control().set_maintenance(false);
            let mut daemon = open(dir.path(), settings(&bank));
            let summary = daemon.run_once().await.unwrap();
            let copy = if moved_back {
                "wait.json"
            } else {
                "again.json"
            };
            assert_eq!(summary.files(FileEnd::Done), [copy], "moved back {moved_back}: {summary:?}");
            assert!(files(dir.path(), "processing").is_empty());
            assert_eq!(at_bank(&bank).len(), 2, "moved back {moved_back}");
            assert_no_duplicates(&bank);
            // Said; and forgotten by `status` once the same file reached done/ (issue 19 item 8).
            let events = daemon.engine().journal().last_events(10).unwrap();
            assert_eq!(
                events.iter().any(|e| e.message.en().contains("vanished")),
                !moved_back,
                "{events:?}"
            );
        }
    }
}

/// Issue 20: a daemon paused past its lease (here: not called for longer) finds, when it goes
/// on, that another daemon took the folder over: it stops before sending anything, and the
/// other sends each payment once.
#[tokio::test]
async fn a_daemon_whose_lease_ran_out_sends_nothing_more() {
    if !use_postgres() {
        return;
    }
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut short = settings(&bank);
    if let Some(journal) = &mut short.journal {
        journal.lease = Duration::from_millis(900);
    }
    let mut one = open(dir.path(), short.clone());
    put(dir.path(), "a.json", json_drop(&[7100, 7101]));
    let held = Daemon::open(dir.path(), short.clone(), options()).unwrap_err();
    assert!(matches!(held, Error::Leased { .. }), "{held}");
    expire_lease(dir.path());
    let mut two = open(dir.path(), short);
    let lost = one.run_once().await.unwrap_err();
    assert!(matches!(lost, Error::LeaseLost(_)), "{lost}");
    assert!(
        at_bank(&bank).is_empty(),
        "nothing sent by the one whose lease ran out"
    );
    let summary = two.run_once().await.unwrap();
    assert_eq!(summary.payments.uploaded, 2, "{summary:?}");
    assert_eq!(files(dir.path(), "done"), ["a.json"]);
    assert_no_duplicates(&bank);
    assert_eq!(at_bank(&bank).len(), 2);
}
