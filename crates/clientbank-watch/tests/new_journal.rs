//! `--new-journal` over a used DIR learns done/ and review/ (the tester's D7).

mod common;

use clientbank_watch::FileEnd;
use clientbank_watch::state::PaymentState;
use clientbank_watch::{Daemon, Options};
use common::*;

/// Deletes DIR's journal (and its -wal file; in PostgreSQL, the folder's note of its schema);
/// the options that start a new one.
fn lose_journal(dir: &std::path::Path) -> (std::path::PathBuf, Options) {
    let journal = match journal() {
        Some(_) => dir.join(".clientbank").join("journal.postgres"),
        None => dir.join(".clientbank").join("journal.sqlite"),
    };
    std::fs::remove_file(&journal).unwrap();
    let _ = std::fs::remove_file(dir.join(".clientbank").join("journal.sqlite-wal"));
    let options = Options {
        new_journal: true,
        ..options()
    };
    (journal, options)
}

on_both! {
    async fn a_new_journal_is_seeded_from_done_and_review_and_nothing_is_sent_again() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        {
            let mut daemon = open(dir.path(), settings(&bank));
            put(dir.path(), "a.json", json_drop(&[9000, 9001]));
            daemon.run_once().await.unwrap();
        }
        assert_eq!(at_bank(&bank).len(), 2);
        // A file in review/ (its payment may be at the bank).
        std::fs::write(
            dir.path().join("review").join("doubt.json"),
            json_drop(&[9002]),
        )
        .unwrap();
        let (_, options) = lose_journal(dir.path());
        let mut daemon = Daemon::open(dir.path(), settings(&bank), options).unwrap();
        let seeded = daemon.summary.journal_seeded.clone().unwrap().to_string();
        assert!(
            seeded.contains("done/ (1 file(s), 2 payment(s)")
                && seeded.contains("review/ (1 file(s), 1 payment(s)"),
            "{seeded}"
        );
        let ids: Vec<String> = daemon
            .engine()
            .journal()
            .payments_in(PaymentState::Uploaded)
            .unwrap()
            .into_iter()
            .filter_map(|r| r.outcome.bank_id)
            .collect();
        assert_eq!(ids.len(), 2, "the ids of the report");
        // The same file and the payment in doubt dropped again: nothing sent.
        put(dir.path(), "a.json", json_drop(&[9000, 9001]));
        put(dir.path(), "again.json", json_drop(&[9002]));
        let summary = daemon.run_once().await.unwrap();
        assert_eq!(at_bank(&bank).len(), 2, "{summary:?}");
        assert_eq!(files(dir.path(), "done"), ["a (2).json", "a.json"]);
        let report = read(dir.path(), "done", "a (2).json.report.csv");
        for id in &ids {
            assert!(
                report.contains(&format!("already at the bank: id {id}")),
                "{report}"
            );
        }
        assert_eq!(files(dir.path(), "review"), ["again.json", "doubt.json"]);
        // The seeded review file can be resolved like any other.
        drop(daemon);
        let said = clientbank_watch::commands::resolve(
            dir.path(),
            "doubt.json",
            true,
            clientbank_format::Lang::En,
        )
        .unwrap();
        assert!(said.contains("done/"), "{said}");
    }
}

on_both! {
    /// A file the bank refused one payment of went to rejected/ with the others uploaded: a new
    /// journal learns them from its report, and the corrected export sends only the fixed one.
    async fn a_new_journal_learns_the_uploaded_payments_of_a_rejected_file() {
        let bank = bank().await;
        let dir = tempfile::tempdir().unwrap();
        let refused_one = format!(
            "[{},\n{},\n{}]\n",
            request(ROMASHKA, 5600, "5600.00"),
            request(OTHER_USER, 5601, "5601.00"),
            request(ROMASHKA, 5602, "5602.00")
        );
        {
            let mut daemon = open(dir.path(), settings(&bank));
            put(dir.path(), "r.json", &refused_one);
            daemon.run_once().await.unwrap();
        }
        assert_eq!(files(dir.path(), "rejected"), ["r.json"]);
        assert_eq!(at_bank(&bank).len(), 2);
        // A file refused for its findings (a wrong INN): nothing of it went to the bank. And one
        // without findings whose report was lost: the bank had it, so its payments are in doubt.
        let wrong = json_drop(&[5800]).replace("5009876546", "5009876540");
        std::fs::write(dir.path().join("rejected").join("wrong.json"), &wrong).unwrap();
        std::fs::write(
            dir.path().join("rejected").join("bad.json"),
            json_drop(&[5700]),
        )
        .unwrap();
        let (journal, options) = lose_journal(dir.path());
        // Names a new journal cannot read stop it before anything is made.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = dir
                .path()
                .join("done")
                .join(std::ffi::OsStr::from_bytes(b"d\xcf.json"));
            std::fs::write(&odd, json_drop(&[5900])).unwrap();
            let e = Daemon::open(dir.path(), settings(&bank), options.clone()).unwrap_err();
            assert!(e.to_string().contains("not valid Unicode"), "{e}");
            assert!(!journal.exists(), "nothing made");
            std::fs::remove_file(&odd).unwrap();
        }
        let mut daemon = Daemon::open(dir.path(), settings(&bank), options).unwrap();
        let seeded = daemon.summary.journal_seeded.clone().unwrap().to_string();
        assert!(
            seeded.contains("rejected/ (3 file(s), 3 payment(s)"),
            "{seeded}"
        );
        // The corrected export: the refused payment now from the right account.
        let fixed = format!(
            "[{},\n{},\n{}]\n",
            request(ROMASHKA, 5600, "5600.00"),
            request(ROMASHKA, 5601, "5601.00"),
            request(ROMASHKA, 5602, "5602.00")
        );
        put(dir.path(), "fixed.json", &fixed);
        put(dir.path(), "bad-again.json", json_drop(&[5700]));
        put(dir.path(), "wrong-fixed.json", json_drop(&[5800]));
        let summary = daemon.run_once().await.unwrap();
        let mut numbers: Vec<String> = at_bank(&bank).into_iter().map(|p| p.0).collect();
        numbers.sort();
        assert_eq!(numbers, ["5600", "5601", "5602", "5800"], "{summary:?}");
        // The one in doubt is held for a person, not sent.
        assert_eq!(summary.files(FileEnd::Review), ["bad-again.json"], "{summary:?}");
        let report = read(dir.path(), "done", "fixed.json.report.csv");
        assert_eq!(
            report.matches(";already at the bank;").count(),
            2,
            "{report}"
        );
    }
}
