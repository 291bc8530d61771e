//! Truncated files and files still being written are not uploaded (the tester's D4).

mod common;

use clientbank_watch::FileEnd;
use std::io::Write;
use std::time::{Duration, Instant};

use clientbank_sandbox::Fault;
use common::*;

/// A 1C drop of three payments cut inside its second document (a section left open).
fn cut_1c(numbers: &[u32]) -> (Vec<u8>, Vec<u8>) {
    let whole = onec_drop(numbers, 5);
    let marker = encoding_rs::WINDOWS_1251
        .encode("ПолучательБИК")
        .0
        .into_owned();
    let positions: Vec<usize> = whole
        .windows(marker.len())
        .enumerate()
        .filter(|(_, w)| *w == marker.as_slice())
        .map(|(i, _)| i)
        .collect();
    let at = positions[1];
    (whole[..at].to_vec(), whole[at..].to_vec())
}

on_both! {
    async fn a_1c_file_cut_short_waits_and_is_taken_whole_once_complete() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut s = settings(&bank);
        s.incomplete_after = Duration::from_secs(30);
        s.once_patience = Duration::from_millis(700);
        let mut daemon = open(dir.path(), s);
        let (head, tail) = cut_1c(&[8000, 8001, 8002]);
        put(dir.path(), "cut.txt", &head);
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(files(dir.path(), "inbox"), ["cut.txt"], "{summary:?}");
        assert!(files(dir.path(), "processing").is_empty());
        assert!(at_bank(&bank).is_empty());
        assert_eq!(summary.files(FileEnd::Incomplete).len(), 1, "{summary:?}");
        assert!(summary.files(FileEnd::Incomplete)[0].contains("not closed"), "{summary:?}");
        // The writer finishes: taken whole.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join("inbox").join("cut.txt"))
            .unwrap();
        file.write_all(&tail).unwrap();
        drop(file);
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["cut.txt"], "{summary:?}");
        assert_eq!(at_bank(&bank).len(), 3);
    }
}

on_both! {
    async fn a_file_that_stays_cut_short_is_rejected_as_cut_short_and_nothing_is_sent() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        let (head, _) = cut_1c(&[8100, 8101, 8102]);
        put(dir.path(), "cut.txt", &head);
        let whole = onec_drop(&[8110], 5);
        let end = encoding_rs::WINDOWS_1251
            .encode("КонецФайла")
            .0
            .into_owned();
        put(
            dir.path(),
            "no-end.txt",
            &whole[..whole.len() - end.len() - 2],
        );
        put(dir.path(), "stops.json", &json_drop(&[8120, 8121])[..200]);
        let started = Instant::now();
        let summary = daemon.run_once().await.unwrap();
        assert!(
            started.elapsed() >= Duration::from_millis(600),
            "waited incomplete_after"
        );
        assert_eq!(
            files(dir.path(), "rejected"),
            ["cut.txt", "no-end.txt", "stops.json"],
            "{summary:?}"
        );
        assert!(at_bank(&bank).is_empty());
        for (name, why) in [
            ("cut.txt", "not closed"),
            ("no-end.txt", "КонецФайла"),
            ("stops.json", "stops before its end"),
        ] {
            let errors = read(dir.path(), "rejected", &format!("{name}.errors.txt"));
            assert!(errors.contains("is cut short"), "{errors}");
            assert!(errors.contains(why), "{errors}");
            assert!(errors.contains("nothing of it was sent"), "{errors}");
        }
    }
}

on_both! {
    async fn a_writer_pausing_longer_than_settle_mid_document_loses_nothing() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut s = settings(&bank);
        s.incomplete_after = Duration::from_secs(30);
        let daemon = open(dir.path(), s);
        let root = dir.path().to_path_buf();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let run = tokio::spawn(async move {
            let mut daemon = daemon;
            daemon
                .run(async {
                    let _ = stop_rx.await;
                })
                .await
                .unwrap()
        });
        let (head, tail) = cut_1c(&[8200, 8201, 8202]);
        let path = root.join("inbox").join("paused.txt");
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(&head).unwrap();
        file.flush().unwrap();
        // Three settle intervals without a byte.
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert!(files(&root, "processing").is_empty() && files(&root, "done").is_empty());
        file.write_all(&tail).unwrap();
        drop(file);
        let written = Instant::now();
        while files(&root, "done").is_empty() {
            assert!(written.elapsed() < Duration::from_secs(10), "never claimed");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        stop_tx.send(()).unwrap();
        let summary = run.await.unwrap();
        assert_eq!(summary.files(FileEnd::Done), ["paused.txt"], "{summary:?}");
        assert_eq!(at_bank(&bank).len(), 3, "every payment sent");
    }
}

on_both! {
    async fn a_file_that_changed_after_it_was_read_goes_to_review() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let mut daemon = open(dir.path(), settings(&bank));
        daemon.engine_mut().companies().await.unwrap();
        bank.control().set_fault(Some(Fault {
            delay: Some(Duration::from_millis(900)),
            times: Some(1),
            ..Fault::default()
        }));
        put(dir.path(), "grows.json", json_drop(&[8300, 8301]));
        let root = dir.path().to_path_buf();
        let run = tokio::spawn(async move {
            let summary = daemon.run_once().await.unwrap();
            (daemon, summary)
        });
        let claimed = root.join("processing").join("grows.json");
        let started = Instant::now();
        while !claimed.exists() {
            assert!(started.elapsed() < Duration::from_secs(10), "never claimed");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // Read at once after the claim; the bank takes 900 ms for the first payment.
        tokio::time::sleep(Duration::from_millis(250)).await;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&claimed)
            .unwrap();
        file.write_all(b"\n").unwrap();
        drop(file);
        let (_, summary) = run.await.unwrap();
        assert_eq!(summary.files(FileEnd::Review), ["grows.json"], "{summary:?}");
        let note = read(dir.path(), "review", "grows.json.review.txt");
        assert!(note.contains("changed after it was read"), "{note}");
        assert!(note.contains("may not be sent"), "{note}");
        assert_eq!(at_bank(&bank).len(), 2);
    }
}
