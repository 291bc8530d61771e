//! The tester's D8: what is ignored is said, counts after a stop, folders that do not exist,
//! a repeated failure logged once, document numbers with leading zeros.

mod common;

use clientbank_watch::FileEnd;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use clientbank_sandbox::Fault;
use clientbank_watch::{Error, commands};
use common::*;

#[cfg(unix)]
#[tokio::test]
async fn entries_that_are_no_regular_file_are_said_and_counted() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    let inbox = dir.path().join("inbox");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("real.txt"), b"x").unwrap();
    std::os::unix::fs::symlink(outside.path().join("real.txt"), inbox.join("link.txt")).unwrap();
    std::fs::create_dir(inbox.join("folder.txt")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(inbox.join("pipe.txt"))
        .status()
        .unwrap();
    assert!(fifo.success());
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(
        summary.files(FileEnd::Ignored),
        [
            "folder.txt: a folder",
            "link.txt: a symbolic link",
            "pipe.txt: a FIFO"
        ],
        "{summary:?}"
    );
    let status = commands::status(dir.path()).unwrap();
    assert_eq!(status.ignored.len(), 3, "{:?}", status.ignored);
    assert!(
        status.ignored[2].to_string().contains("FIFO"),
        "{:?}",
        status.ignored
    );
    let ru = status.ignored[2].shown(clientbank_format::Lang::Ru);
    assert!(ru.contains("именованный канал"), "{ru}");
    assert_eq!(files(dir.path(), "inbox").len(), 0, "left where they are");
    assert!(inbox.join("pipe.txt").exists());
}

#[tokio::test]
async fn a_stop_mid_file_counts_what_reached_the_bank_and_says_stopped() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    daemon.engine_mut().companies().await.unwrap();
    bank.control().set_fault(Some(Fault {
        delay: Some(Duration::from_millis(300)),
        ..Fault::default()
    }));
    put(
        dir.path(),
        "four.json",
        json_drop(&[9100, 9101, 9102, 9103]),
    );
    let stop = daemon.stop_flag();
    let run = tokio::spawn(async move { daemon.run_once().await.unwrap() });
    let started = Instant::now();
    while at_bank(&bank).len() < 2 {
        assert!(started.elapsed() < Duration::from_secs(10));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    stop.store(true, Ordering::SeqCst);
    let summary = run.await.unwrap();
    let at = at_bank(&bank).len();
    assert!((2..4).contains(&at), "{at}");
    assert_eq!(summary.payments.uploaded, at, "{summary:?}");
    assert_eq!(
        summary.files(FileEnd::Interrupted),
        ["four.json"],
        "{summary:?}"
    );
    assert!(summary.files(FileEnd::Waiting).is_empty(), "{summary:?}");
    bank.control().set_fault(None);
    let mut daemon = open(dir.path(), settings(&bank));
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(summary.files(FileEnd::Done), ["four.json"], "{summary:?}");
    assert_eq!(summary.payments.uploaded, 4 - at);
    assert_eq!(at_bank(&bank).len(), 4);
}

#[tokio::test]
async fn commands_refuse_a_folder_that_does_not_exist_or_has_no_journal() {
    let bank = bank().await;
    let root = tempfile::tempdir().unwrap();
    let missing = root.path().join("nowhere");
    let e = commands::engine(&missing, settings(&bank), false).unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");
    let e = commands::engine(&missing, settings(&bank), true).unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");
    assert!(commands::resolve(&missing, "a.json", true, clientbank_format::Lang::En).is_err());
    assert!(commands::status(&missing).is_err());
    assert!(!missing.exists(), "nothing created");
    let empty = root.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = commands::engine(&empty, settings(&bank), false).unwrap_err();
    assert!(matches!(e, Error::JournalMissing(_)), "{e}");
    assert!(e.to_string().contains("no journal"), "{e}");
    assert!(commands::status(&empty).is_err());
    assert!(
        std::fs::read_dir(&empty).unwrap().next().is_none(),
        "nothing created"
    );
}

#[tokio::test]
async fn a_move_that_keeps_failing_is_logged_once() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&bank);
    s.once_patience = Duration::from_millis(300);
    let mut daemon = open(dir.path(), s);
    std::fs::remove_dir(dir.path().join("done")).unwrap();
    std::fs::write(dir.path().join("done"), b"not a folder").unwrap();
    put(dir.path(), "a.json", json_drop(&[9200]));
    let summary = daemon.run_once().await.unwrap();
    // Sent, not waiting for the bank: a file that cannot be moved needs a person.
    assert_eq!(summary.files(FileEnd::Unmoved), ["a.json"], "{summary:?}");
    assert!(summary.files(FileEnd::Waiting).is_empty(), "{summary:?}");
    assert!(summary.needs_attention());
    for _ in 0..10 {
        daemon.pass().await.unwrap();
    }
    let status = commands::status(dir.path()).unwrap();
    let said = status
        .last_errors
        .iter()
        .filter(|e| e.message.en().contains("cannot move"))
        .count();
    assert_eq!(said, 1, "{:?}", status.last_errors);
}

#[tokio::test]
async fn a_number_with_leading_zeros_is_the_same_payment() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    put(dir.path(), "a.json", json_drop(&[402]));
    daemon.run_once().await.unwrap();
    let zeros = json_drop(&[402]).replace("\"Number\": \"402\"", "\"Number\": \"0402\"");
    assert!(zeros.contains("0402"));
    put(dir.path(), "b.json", zeros);
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(summary.payments.already, 1, "{summary:?}");
    assert_eq!(at_bank(&bank).len(), 1);
}

/// A name that is not valid Unicode (a share mounted without its character set) is said, not
/// silently skipped.
#[cfg(unix)]
#[tokio::test]
async fn a_name_that_is_not_unicode_is_said_and_counted() {
    use std::os::unix::ffi::OsStrExt;
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    let name = std::ffi::OsStr::from_bytes(b"d\xcf\xeb.json");
    std::fs::write(dir.path().join("inbox").join(name), json_drop(&[7100])).unwrap();
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(summary.files(FileEnd::Ignored).len(), 1, "{summary:?}");
    assert!(
        summary.files(FileEnd::Ignored)[0].contains("not valid Unicode"),
        "{summary:?}"
    );
    let status = commands::status(dir.path()).unwrap();
    assert_eq!(status.ignored.len(), 1, "{:?}", status.ignored);
    assert!(at_bank(&bank).is_empty());
}

/// processing/ (or any folder of DIR) deleted while the daemon runs: made again, files taken.
#[tokio::test]
async fn a_folder_deleted_while_running_is_made_again() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    std::fs::remove_dir(dir.path().join("processing")).unwrap();
    std::fs::remove_dir(dir.path().join("done")).unwrap();
    put(dir.path(), "after.json", json_drop(&[7200]));
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(summary.files(FileEnd::Done), ["after.json"], "{summary:?}");
    assert_eq!(at_bank(&bank).len(), 1);
}

/// A bank address without `/v1` answers 404 for every endpoint: a configuration error that
/// keeps the file waiting, not a refusal of its payments.
#[tokio::test]
async fn a_bank_url_without_its_version_is_a_configuration_error() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&bank);
    s.bank_url = Some(bank.url().trim_end_matches("/v1").to_string());
    s.once_patience = Duration::from_millis(300);
    let mut daemon = open(dir.path(), s);
    put(dir.path(), "requests.json", json_drop(&[7300]));
    put(dir.path(), "carried.txt", onec_drop(&[7301], 3));
    let summary = daemon.run_once().await.unwrap();
    assert!(summary.files(FileEnd::Rejected).is_empty(), "{summary:?}");
    let why = summary.config_error.clone().unwrap();
    assert!(
        why.en().contains("/v1") && why.ru().contains("/v1"),
        "{summary:?}"
    );
    assert_eq!(files(dir.path(), "processing").len(), 2, "{summary:?}");
    assert!(at_bank(&bank).is_empty());
    // The address put right (a restart): both files go.
    drop(daemon);
    let mut daemon = open(dir.path(), settings(&bank));
    let summary = daemon.run_once().await.unwrap();
    let mut done = files(dir.path(), "done");
    done.sort();
    assert_eq!(done, ["carried.txt", "requests.json"], "{summary:?}");
}

/// The same payments dropped three times: status counts each payment once, by what the bank
/// has of it, not once per file.
#[tokio::test]
async fn status_counts_each_payment_once() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    for name in ["a.json", "b.json", "c.json"] {
        put(dir.path(), name, json_drop(&[7500, 7501]));
        daemon.run_once().await.unwrap();
    }
    assert_eq!(at_bank(&bank).len(), 2);
    let status = commands::status(dir.path()).unwrap();
    assert_eq!(
        status.payments,
        [commands::Counted {
            label: ("awaiting signature", "ждут подписи"),
            in_doubt: false,
            count: 2
        }],
        "{:?}",
        status.payments
    );
    // JSON keeps its shape: the English label to the count.
    let json = serde_json::to_value(&status).unwrap();
    assert_eq!(
        json["payments"],
        serde_json::json!({"awaiting signature": 2})
    );
}

/// A token without the right to upload (403) is a set-up problem like a refused token: the
/// file waits, it is not rejected as if its payments were wrong.
#[tokio::test]
async fn a_token_without_the_upload_right_keeps_the_file_waiting() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings(&bank);
    s.token = Some(clientbank_api::Token::new("cabinet-token-account-info"));
    s.once_patience = Duration::from_millis(300);
    let mut daemon = open(dir.path(), s);
    put(dir.path(), "requests.json", json_drop(&[7600]));
    let summary = daemon.run_once().await.unwrap();
    assert!(summary.files(FileEnd::Rejected).is_empty(), "{summary:?}");
    let why = summary.token_refused.clone().unwrap();
    assert!(why.en().contains("money-transfer"), "{summary:?}");
    assert!(
        why.ru().contains("токену нельзя загружать платежи"),
        "{summary:?}"
    );
    assert_eq!(files(dir.path(), "processing"), ["requests.json"]);
    assert!(at_bank(&bank).is_empty());
}

/// A name with a line break or an escape is shown escaped and not taken: it cannot forge a log
/// line or drive the terminal.
#[cfg(unix)]
#[tokio::test]
async fn a_name_with_control_characters_is_shown_escaped_and_not_taken() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    std::fs::write(
        dir.path().join("inbox").join("a\nb\u{1b}[31m.json"),
        json_drop(&[7900]),
    )
    .unwrap();
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(summary.files(FileEnd::Ignored).len(), 1, "{summary:?}");
    assert!(
        summary.files(FileEnd::Ignored)[0].starts_with("a\\nb\\u{1b}[31m.json: "),
        "{summary:?}"
    );
    assert!(at_bank(&bank).is_empty());
}
