//! Bad input gets a clear error and loses nothing (issue 10 item 16).

mod common;

use clientbank_watch::FileEnd;
use std::time::Duration;

use clientbank_watch::state::PaymentState;
use clientbank_watch::{Daemon, Error, Options, commands};
use common::*;

#[tokio::test]
async fn binary_empty_and_huge_files_are_rejected_and_kept() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "empty.txt", b"");
    put(
        dir.path(),
        "binary.txt",
        [0u8, 159, 146, 150, 0, 255, 1, 2, 3],
    );
    put(dir.path(), "broken.json", b"[{\"payment\": {\"Number\": ");
    // A 1 GB file (sparse): refused by its size, never read into memory.
    let huge = dir.path().join("inbox").join("huge.txt");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(
        files(dir.path(), "rejected"),
        ["binary.txt", "broken.json", "empty.txt", "huge.txt"],
        "{summary:?}"
    );
    assert_eq!(
        std::fs::metadata(dir.path().join("rejected").join("huge.txt"))
            .unwrap()
            .len(),
        1 << 30,
        "the file is kept as it was"
    );
    let why = read(dir.path(), "rejected", "huge.txt.errors.txt");
    assert!(
        why.contains("cannot read huge.txt") && why.contains("MiB"),
        "{why}"
    );
    let why = read(dir.path(), "rejected", "empty.txt.errors.txt");
    assert!(why.contains("error[empty-input]"), "{why}");
    let why = read(dir.path(), "rejected", "broken.json.errors.txt");
    assert!(
        why.contains("json-invalid") && why.contains("broken.json:1"),
        "{why}"
    );
    // JSON that stops early and an empty file waited `incomplete_after` as not complete.
    assert!(why.contains("is cut short"), "{why}");
    // What a whole file of its kind looks like: JSON's, not 1C's.
    assert!(
        why.contains("closes every [ and {") && !why.contains("КонецФайла"),
        "{why}"
    );
    let why = read(dir.path(), "rejected", "empty.txt.errors.txt");
    assert!(why.contains("is cut short: it is empty"), "{why}");
    let why = read(dir.path(), "rejected", "binary.txt.errors.txt");
    // As any Windows Notepad opens it: a BOM first, CRLF line ends.
    assert!(
        why.starts_with("\u{feff}binary.txt is rejected: nothing was sent"),
        "{why}"
    );
    assert!(why.contains("\r\n\r\nerror["), "{why}");
    assert!(
        why.contains("\r\n") && !why.replace("\r\n", "").contains('\n'),
        "{why:?}"
    );
    assert!(at_bank(&bank).is_empty());
}

/// Issue 19: a drop with zero bytes among its lines (zero-filled by a crash or a copy cut
/// short) and a drop saved as UTF-16 are damaged, not odd: rejected whole with what to do,
/// never sent with warnings.
#[tokio::test]
async fn zero_filled_and_utf16_drops_are_rejected_with_what_to_do() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let drop = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/drops/1c_to_kl.txt"),
    )
    .unwrap();
    let first = drop.windows(2).position(|w| w == b"\r\n").unwrap() + 2;
    let zeroed = [&drop[..first], &[0u8; 64][..], &drop[first..]].concat();
    put(dir.path(), "zeroed.txt", &zeroed);
    let mut tail = drop.clone();
    tail.extend_from_slice(&[0u8; 4096]);
    put(dir.path(), "zero-tail.txt", &tail);
    let text = clientbank_format::Encoding::Cp1251
        .decode(&drop)
        .into_owned();
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    put(dir.path(), "unicode.txt", &utf16);
    let mut daemon = open(dir.path(), settings(&bank));
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(
        files(dir.path(), "rejected"),
        ["unicode.txt", "zero-tail.txt", "zeroed.txt"],
        "{summary:?}"
    );
    for name in ["zeroed.txt", "zero-tail.txt"] {
        let why = read(dir.path(), "rejected", &format!("{name}.errors.txt"));
        assert!(why.contains("error[nul-byte]"), "{why}");
    }
    let why = read(dir.path(), "rejected", "unicode.txt.errors.txt");
    assert!(
        why.contains("UTF-16") && why.contains("save it again"),
        "{why}"
    );
    assert!(at_bank(&bank).is_empty());
}

#[tokio::test]
async fn a_file_vanishing_between_claim_and_read_sends_nothing() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    // Claimed (in processing/), then gone before it is read.
    daemon.process("gone.json").await.unwrap();
    assert!(at_bank(&bank).is_empty());
    let status = commands::status(dir.path()).unwrap();
    assert!(
        status.last_errors[0]
            .message
            .en()
            .contains("vanished before it was read"),
        "{:?}",
        status.last_errors
    );
}

/// Issue 19: an inbox file that cannot be claimed (processing/ cannot take it) is named in the
/// summary and the log, not passed over in silence; it stays in the inbox, and is taken once
/// the folder is repaired.
#[tokio::test]
async fn an_inbox_file_that_cannot_be_claimed_is_named() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    std::fs::remove_dir(dir.path().join("processing")).unwrap();
    std::fs::write(dir.path().join("processing"), b"not a folder").unwrap();
    put(dir.path(), "a.json", json_drop(&[202]));
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(
        summary.files(FileEnd::Unreadable),
        ["a.json"],
        "{summary:?}"
    );
    assert!(summary.needs_attention());
    assert_eq!(files(dir.path(), "inbox"), ["a.json"]);
    assert!(at_bank(&bank).is_empty());
    std::fs::remove_file(dir.path().join("processing")).unwrap();
    std::fs::create_dir(dir.path().join("processing")).unwrap();
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(summary.files(FileEnd::Done), ["a.json"], "{summary:?}");
    assert_eq!(at_bank(&bank).len(), 1);
}

#[tokio::test]
async fn a_done_folder_that_cannot_be_written_keeps_the_file_in_processing() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    // done/ is not a folder one can write into (a file took its name): the move fails.
    std::fs::remove_dir(dir.path().join("done")).unwrap();
    std::fs::write(dir.path().join("done"), b"not a folder").unwrap();
    put(dir.path(), "a.json", json_drop(&[201]));
    let summary = daemon.run_once().await.unwrap();
    // Sent, and said as a file that cannot be moved (not one waiting for the bank).
    assert_eq!(summary.files(FileEnd::Unmoved), ["a.json"], "{summary:?}");
    assert!(summary.files(FileEnd::Waiting).is_empty(), "{summary:?}");
    assert_eq!(at_bank(&bank).len(), 1, "uploaded once");
    let status = commands::status(dir.path()).unwrap();
    assert!(
        status.last_errors[0]
            .message
            .en()
            .contains("cannot move processing/a.json"),
        "{:?}",
        status.last_errors
    );
    // Repaired: the next pass moves it, nothing is sent again.
    std::fs::remove_file(dir.path().join("done")).unwrap();
    std::fs::create_dir(dir.path().join("done")).unwrap();
    daemon.pass().await.unwrap();
    assert_eq!(files(dir.path(), "done"), ["a.json"]);
    assert!(files(dir.path(), "processing").is_empty());
    assert!(
        read(dir.path(), "done", "a.json.report.csv").contains("awaiting signature"),
        "the report is written"
    );
    assert_eq!(at_bank(&bank).len(), 1);
    // Issue 19 item 8: fixed, so `status` forgets it.
    let status = commands::status(dir.path()).unwrap();
    assert!(status.last_errors.is_empty(), "{:?}", status.last_errors);
}

/// Issue 19 item 8: the last errors are kept in Russian too; a file rejected stays an error.
#[tokio::test]
async fn the_last_errors_are_in_both_languages() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    put(dir.path(), "empty.txt", Vec::new());
    daemon.run_once().await.unwrap();
    let status = commands::status(dir.path()).unwrap();
    let error = &status.last_errors[0];
    assert_eq!(error.file.as_deref(), Some("empty.txt"), "{error:?}");
    assert!(
        error
            .message
            .ru()
            .starts_with("перенесён в rejected/empty.txt"),
        "{error:?}"
    );
    assert!(
        error
            .message
            .en()
            .starts_with("moved to rejected/empty.txt"),
        "{error:?}"
    );
    // JSON keeps its shape: [at, file, English].
    let json = serde_json::to_value(&status).unwrap();
    assert_eq!(json["last_errors"][0][1], "empty.txt", "{json}");
    assert!(
        json["last_errors"][0][2]
            .as_str()
            .unwrap()
            .starts_with("moved to"),
        "{json}"
    );
}

#[tokio::test]
async fn a_full_disk_fails_the_journal_write_and_nothing_is_sent() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    daemon.engine_mut().companies().await.unwrap();
    // The journal cannot grow: every intent write fails as on a full disk.
    let pages = daemon.engine().journal().page_count().unwrap();
    daemon.engine().journal().limit_pages(pages).unwrap();
    let big: Vec<u32> = (300..400).collect();
    put(dir.path(), "full.json", json_drop(&big));
    let mut s = settings(&bank);
    s.once_patience = Duration::from_millis(300);
    daemon.engine_mut().set_settings(s);
    let summary = daemon.run_once().await.unwrap();
    assert!(
        at_bank(&bank).is_empty(),
        "nothing sent without its intent on disk"
    );
    assert_eq!(
        summary.files(FileEnd::Waiting),
        ["full.json"],
        "{summary:?}"
    );
    // Said as what it is: the journal, not the bank; and how many payments went before
    // (issue 17 item 9: never "nothing is sent" when some were).
    let said = summary.journal_error.clone().unwrap().to_string();
    assert!(
        said.contains("nothing more of full.json is sent; 0 of its payments reached the bank"),
        "{said}"
    );
    assert!(summary.bank_unavailable.is_none(), "{summary:?}");
    // Space again: it goes through, once.
    daemon.engine().journal().limit_pages(1_000_000).unwrap();
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(summary.files(FileEnd::Done), ["full.json"], "{summary:?}");
    assert_eq!(at_bank(&bank).len(), 100);
    assert_no_duplicates(&bank);
}

#[tokio::test]
async fn a_missing_journal_refuses_to_start_and_says_how_to_recover() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    {
        let mut daemon = open(dir.path(), settings(&bank));
        put(dir.path(), "a.json", json_drop(&[211]));
        daemon.run_once().await.unwrap();
    }
    let journal = dir.path().join(".clientbank").join("journal.sqlite");
    std::fs::remove_file(&journal).unwrap();
    let _ = std::fs::remove_file(dir.path().join(".clientbank").join("journal.sqlite-wal"));
    let e = Daemon::open(dir.path(), settings(&bank), Options::default()).unwrap_err();
    assert!(matches!(e, Error::JournalMissing(_)), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("--new-journal") && text.contains("backup"),
        "{text}"
    );
    assert!(!journal.exists(), "not started fresh silently");
    // `status` gives the same advice, not "nothing was uploaded from it, run watch" (which
    // watch would refuse).
    let e = commands::status(dir.path()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("--new-journal") && !text.contains("nothing was uploaded"),
        "{text}"
    );
    // Knowingly: a new journal; the old file stays in done/.
    let options = Options {
        new_journal: true,
        ..options()
    };
    Daemon::open(dir.path(), settings(&bank), options).unwrap();
    assert_eq!(files(dir.path(), "done"), ["a.json"]);
}

#[tokio::test]
async fn a_corrupt_journal_refuses_to_start() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    drop(open(dir.path(), settings(&bank)));
    let journal = dir.path().join(".clientbank").join("journal.sqlite");
    let _ = std::fs::remove_file(dir.path().join(".clientbank").join("journal.sqlite-wal"));
    let mut bytes = std::fs::read(&journal).unwrap();
    for b in bytes.iter_mut().skip(100) {
        *b = 0xA5;
    }
    std::fs::write(&journal, &bytes).unwrap();
    let e = Daemon::open(dir.path(), settings(&bank), Options::default()).unwrap_err();
    assert!(matches!(e, Error::JournalDamaged(_)), "{e}");
    assert!(e.to_string().contains("backup"), "{e}");
    // Said in Russian words first, SQLite's own after them, and only its report's first line.
    let ru = e.message().ru().to_string();
    assert!(
        ru.contains("повреждён (файл базы повреждён или не база; SQLite: ")
            || ru.contains("повреждён (проверка целостности нашла ошибки; SQLite: "),
        "{ru}"
    );
    assert!(!ru.contains('\n') && !e.to_string().contains('\n'), "{ru}");
    std::fs::write(
        &journal,
        b"this is not a database, it is a text file of some length...",
    )
    .unwrap();
    let e = Daemon::open(dir.path(), settings(&bank), Options::default()).unwrap_err();
    assert!(
        matches!(e, Error::JournalDamaged(_) | Error::Journal { .. }),
        "{e}"
    );
}

#[tokio::test]
async fn one_daemon_per_folder() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let first = open(dir.path(), settings(&bank));
    let e = Daemon::open(dir.path(), settings(&bank), Options::default()).unwrap_err();
    assert!(matches!(e, Error::Busy(_)), "{e}");
    drop(first);
    open(dir.path(), settings(&bank));
}

#[tokio::test]
async fn cyrillic_names_and_name_clashes() {
    let bank = bank().await;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("Обмен с банком");
    put(&dir, "платёжки №1.json", json_drop(&[221]));
    put(&dir, "~$платёжки.txt", b"a lock file of an editor");
    put(&dir, "выгрузка.txt.part", b"being downloaded");
    let mut daemon = open(&dir, settings(&bank));
    daemon.run_once().await.unwrap();
    put(&dir, "платёжки №1.json", json_drop(&[222]));
    daemon.run_once().await.unwrap();
    assert_eq!(
        files(&dir, "done"),
        ["платёжки №1 (2).json", "платёжки №1.json"]
    );
    assert!(read(&dir, "done", "платёжки №1 (2).json.report.csv").contains("222"));
    assert_eq!(
        files(&dir, "inbox"),
        ["~$платёжки.txt", "выгрузка.txt.part"]
    );
    let rows = daemon.engine().journal().all_payments().unwrap();
    assert!(
        rows.iter()
            .all(|r| r.outcome.state == PaymentState::Uploaded)
    );
}

/// A document with `Сумма` twice cannot be read one way (1C may take the other value): the
/// file is rejected, nothing is sent, and the errors name the key and its line.
#[tokio::test]
async fn a_key_twice_in_a_payment_order_rejects_the_file() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    let one = onec_drop(&[7400], 5);
    let sum = encoding_rs::WINDOWS_1251.encode("Сумма=9400.00\r\n").0;
    let at = one
        .windows(sum.len())
        .position(|w| w == &sum[..])
        .expect("the sum line")
        + sum.len();
    let twice = [
        &one[..at],
        &encoding_rs::WINDOWS_1251.encode("Сумма=94.00\r\n").0[..],
        &one[at..],
    ]
    .concat();
    put(dir.path(), "twice.txt", twice);
    let summary = daemon.run_once().await.unwrap();
    assert_eq!(
        summary.files(FileEnd::Rejected),
        ["twice.txt"],
        "{summary:?}"
    );
    assert!(at_bank(&bank).is_empty());
    let errors = read(dir.path(), "rejected", "twice.txt.errors.txt");
    assert!(errors.contains("duplicate-key"), "{errors}");
    assert!(errors.contains("Сумма"), "{errors}");
}

/// A journal that cannot take the signing's record stops the signature before the bank hears
/// of it: no payment is signed without a record.
#[tokio::test]
async fn a_full_journal_signs_nothing() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let keys = tempfile::tempdir().unwrap();
    let mut s = settings(&bank);
    s.signers
        .insert("7701234560".into(), signer(keys.path(), "7701234560"));
    let mut daemon = open(dir.path(), s);
    let numbers: Vec<u32> = (7700..7820).collect();
    put(dir.path(), "many.json", json_drop(&numbers));
    daemon.run_once().await.unwrap();
    assert_eq!(
        daemon
            .engine()
            .journal()
            .awaiting_signature()
            .unwrap()
            .len(),
        120
    );
    let pages = daemon.engine().journal().page_count().unwrap();
    daemon.engine().journal().limit_pages(pages).unwrap();
    assert!(daemon.engine_mut().sign(None, false).await.is_err());
    let executed = |bank: &clientbank_sandbox::Sandbox| {
        at_bank(bank).iter().filter(|p| p.3 == "Executed").count()
    };
    assert_eq!(executed(&bank), 0, "nothing signed without its record");
    daemon.engine().journal().limit_pages(1_000_000).unwrap();
    let groups = daemon.engine_mut().sign(None, false).await.unwrap();
    assert!(groups.iter().all(|g| g.result.is_signed()), "{groups:?}");
    assert_eq!(executed(&bank), 120);
}

/// A good journal that cannot be opened (its -wal and -shm files blocked: permissions, a
/// read-only folder) is said as such, never "damaged, move it aside".
#[tokio::test]
async fn a_journal_that_cannot_be_opened_is_not_called_damaged() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    drop(open(dir.path(), settings(&bank)));
    let private = dir.path().join(".clientbank");
    for blocked in ["journal.sqlite-wal", "journal.sqlite-shm"] {
        let _ = std::fs::remove_file(private.join(blocked));
        std::fs::create_dir(private.join(blocked)).unwrap();
    }
    let e = Daemon::open(dir.path(), settings(&bank), Options::default()).unwrap_err();
    assert!(matches!(e, Error::Journal { .. }), "{e}");
    assert!(!e.to_string().contains("damaged"), "{e}");
}

/// The journal deleted under a running daemon stops it before anything more is sent.
#[tokio::test]
async fn a_journal_deleted_while_running_stops_the_daemon() {
    let bank = bank().await;
    let dir = tempfile::tempdir().unwrap();
    let mut daemon = open(dir.path(), settings(&bank));
    daemon.pass().await.unwrap();
    std::fs::remove_file(dir.path().join(".clientbank").join("journal.sqlite")).unwrap();
    put(dir.path(), "after.json", json_drop(&[7950]));
    let e = daemon.run_once().await.unwrap_err();
    assert!(e.to_string().contains("was deleted"), "{e}");
    assert!(at_bank(&bank).is_empty());
}
