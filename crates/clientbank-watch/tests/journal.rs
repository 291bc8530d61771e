//! The journal itself, the same tests on SQLite and on PostgreSQL (`on_both!`): the bank's
//! operations and the statement's sync; and, in PostgreSQL, the folders' leases: one holder at a
//! time, timed by the database's clock, taken over when they run out, and a holder whose lease
//! ran out records no intent and marks nothing more to send.

mod common;

use std::time::Duration;

use clientbank_bank::operations::{OperationRow, StatementSync, source as operation_source};
use clientbank_watch::Error;
use clientbank_watch::journal::{Journal, Location};
use clientbank_watch::state::PaymentState;
use common::*;

fn operation(id: &str, executed: Option<&str>, source: &str) -> OperationRow {
    OperationRow {
        id: id.into(),
        account: "40702810938000012345".into(),
        executed: executed.map(str::to_string),
        source: source.into(),
        body: format!("{{\"id\":\"{id}\"}}"),
        confirmed: false,
    }
}

on_both! {
    fn an_operation_is_recorded_once_and_read_by_its_days() {
        let dir = tempfile::tempdir().unwrap();
        let mut journal = journal_of(dir.path(), true);
        let webhook = operation("b", Some("2026-11-23T23:59:59"), operation_source::WEBHOOK);
        assert!(journal.record_operation(&webhook).unwrap());
        assert!(
            !journal.record_operation(&webhook).unwrap(),
            "delivered again"
        );
        let history = operation("b", Some("2026-11-23T23:59:59"), operation_source::HISTORY);
        assert!(journal.record_operation(&history).unwrap(), "confirmed");
        assert!(
            !journal.record_operation(&history).unwrap(),
            "again: no change"
        );
        assert!(
            !journal.record_operation(&webhook).unwrap(),
            "never replaced by a webhook"
        );
        for (id, at) in [("a", "2026-11-22T09:00:00"), ("c", "2026-11-24T00:00:00")] {
            assert!(
                journal
                    .record_operation(&operation(id, Some(at), "history"))
                    .unwrap()
            );
        }
        assert!(
            journal
                .record_operation(&operation("x", None, "history"))
                .unwrap()
        );
        let ids = |from, till| -> Vec<String> {
            let rows = journal.operations_between("40702810938000012345", from, till);
            rows.unwrap().into_iter().map(|r| r.id).collect()
        };
        assert_eq!(ids("2026-11-23", "2026-11-23"), ["b"]);
        assert_eq!(ids("2026-11-22", "2026-11-24"), ["a", "b", "c"]);
        assert_eq!(ids("2026-11-25", "2026-11-30"), Vec::<String>::new());
        let rows = journal.operations_between("40702810938000012345", "2026-11-23", "2026-11-23");
        let rows = rows.unwrap();
        assert_eq!(rows[0].source, "webhook", "where it was first seen");
        assert!(rows[0].confirmed);
    }
}

on_both! {
    fn the_statement_sync_survives_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let sync = StatementSync {
            account: "40702810938000012345".into(),
            synced_till: "2026-11-23".into(),
            last_operation: Some("b".into()),
        };
        {
            let mut journal = journal_of(dir.path(), true);
            assert_eq!(journal.statement_sync(&sync.account).unwrap(), None);
            journal.set_statement_sync(&sync).unwrap();
            let later = StatementSync {
                synced_till: "2026-11-24".into(),
                ..sync.clone()
            };
            journal.set_statement_sync(&later).unwrap();
        }
        let journal = journal_of(dir.path(), false);
        let read = journal.statement_sync(&sync.account).unwrap().unwrap();
        assert_eq!(read.synced_till, "2026-11-24");
        assert_eq!(read.last_operation.as_deref(), Some("b"));
    }
}

/// Two payments of one file, recorded as intents by `journal`.
fn intents(journal: &mut Journal, name: &str, first: u32) -> Result<(i64, Vec<i64>), Error> {
    record(journal, name, &[planned(first), planned(first + 1)])
}

/// Issue 17 item 5: the write-ahead log deleted under a running process, then a crash, lost
/// the last records (payments sent again). Now the next mark before a send is refused, what
/// the deleted log held is saved into the journal file first, and a crash loses nothing.
#[cfg(unix)]
#[test]
fn a_deleted_write_ahead_log_stops_sending_and_loses_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.sqlite");
    let mut journal = Journal::open(&path, true).unwrap();
    let (file, ids) = intents(&mut journal, "a.json", 1).unwrap();
    assert!(
        journal.wal_path().exists(),
        "WAL mode keeps a log beside the journal"
    );
    // The first is sent; the log is deleted while it is on its way; its answer comes.
    journal.mark_sending(&ids[..1]).unwrap();
    std::fs::remove_file(journal.wal_path()).unwrap();
    let e = journal
        .record_outcome_and_mark_next((ids[0], uploaded("id-1")), Some(ids[1]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("write-ahead log") && e.contains("saved"), "{e}");
    // A crash: the connection is never closed.
    std::mem::forget(journal);
    let journal = Journal::open(&path, false).unwrap();
    let rows = journal.payments_of(file).unwrap();
    assert_eq!(rows[0].outcome.state, PaymentState::Uploaded, "{rows:?}");
    assert_eq!(rows[0].outcome.bank_id.as_deref(), Some("id-1"));
    assert_eq!(
        rows[1].outcome.state,
        PaymentState::Planned,
        "never marked, never sent"
    );
}

/// The journal of `dir` on the tests' server with a lease of `lease`; `None` without a server.
fn leased_journal(dir: &std::path::Path, lease: Duration) -> Option<Journal> {
    let mut shared = postgres_server()?;
    shared.lease = lease;
    let layout = clientbank_watch::folders::Layout::new(dir);
    std::fs::create_dir_all(layout.folder(clientbank_watch::folders::Folder::Private)).unwrap();
    let location = Location::of(&layout, Some(&shared), true).unwrap().unwrap();
    Some(Journal::open_at(&location, true).unwrap())
}

/// One daemon holds a folder at a time; another takes it over only once the lease ran out (by
/// the database's clock); the one whose lease ran out records no intent and marks nothing more
/// to send, though the answer it had is kept.
#[test]
fn a_lease_is_held_by_one_and_taken_over_when_it_runs_out() {
    let dir = tempfile::tempdir().unwrap();
    let lease = Duration::from_millis(1500);
    let Some(mut one) = leased_journal(dir.path(), lease) else {
        return;
    };
    let mut two = leased_journal(dir.path(), lease).unwrap();
    one.take_lease("one", dir.path()).unwrap();
    let (file, ids) = intents(&mut one, "a.json", 1).unwrap();
    assert_eq!(one.mark_sending(&ids[..1]).unwrap(), &ids[..1]);
    let held = two.take_lease("two", dir.path()).unwrap_err();
    assert!(
        matches!(held, Error::Leased { .. }) && held.to_string().contains("one"),
        "{held}"
    );
    // Renewed within the lease (by a mark, or by keep_lease), it stays the holder's.
    for _ in 0..4 {
        std::thread::sleep(lease / 2);
        one.keep_lease().unwrap();
        assert!(two.take_lease("two", dir.path()).is_err());
    }
    // Paused past its lease (its renewals too): the other takes the folder over.
    expire_lease(dir.path());
    two.take_lease("two", dir.path()).unwrap();
    let lost = one
        .record_outcome_and_mark_next((ids[0], uploaded("id-1")), Some(ids[1]))
        .unwrap_err();
    assert!(matches!(lost, Error::LeaseLost(_)), "{lost}");
    assert!(
        lost.to_string().contains("stopped before sending"),
        "{lost}"
    );
    assert!(matches!(
        intents(&mut one, "b.json", 7).unwrap_err(),
        Error::LeaseLost(_)
    ));
    assert!(matches!(one.keep_lease().unwrap_err(), Error::LeaseLost(_)));
    let rows = two.payments_of(file).unwrap();
    assert_eq!(
        rows[0].outcome.state,
        PaymentState::Uploaded,
        "the answer is kept"
    );
    assert_eq!(rows[1].outcome.state, PaymentState::Planned, "never marked");
    assert_eq!(
        two.files_in(clientbank_watch::state::FileState::Processing)
            .unwrap()
            .len(),
        1
    );
    // The new holder goes on.
    assert_eq!(two.mark_sending(&ids[1..]).unwrap(), &ids[1..]);
}

/// A holder that stops gives its lease up: the next takes the folder at once.
#[test]
fn a_lease_given_up_is_taken_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut one) = leased_journal(dir.path(), Duration::from_secs(60)) else {
        return;
    };
    one.take_lease("one", dir.path()).unwrap();
    drop(one);
    let mut two = leased_journal(dir.path(), Duration::from_secs(60)).unwrap();
    two.take_lease("two", dir.path()).unwrap();
    intents(&mut two, "a.json", 1).unwrap();
}

/// Folders sharing one database are kept apart: each its own schema, the same payment active
/// in both.
#[test]
fn folders_sharing_a_database_are_kept_apart() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let Some(mut one) = leased_journal(a.path(), Duration::from_secs(60)) else {
        return;
    };
    let mut two = leased_journal(b.path(), Duration::from_secs(60)).unwrap();
    one.take_lease("one", a.path()).unwrap();
    two.take_lease("two", b.path()).unwrap();
    let (_, ids_one) = intents(&mut one, "a.json", 1).unwrap();
    let (_, ids_two) = intents(&mut two, "a.json", 1).unwrap();
    assert_eq!(one.mark_sending(&ids_one).unwrap(), ids_one);
    assert_eq!(two.mark_sending(&ids_two).unwrap(), ids_two);
    assert_eq!(one.all_payments().unwrap().len(), 2);
}

/// A daemon waiting longer than its lease for the bank's answer keeps its folder: the lease is
/// renewed in the background while the journal is idle.
#[test]
fn a_lease_is_kept_while_the_holder_waits_for_the_bank() {
    let dir = tempfile::tempdir().unwrap();
    let lease = Duration::from_millis(1200);
    let Some(mut one) = leased_journal(dir.path(), lease) else {
        return;
    };
    let mut two = leased_journal(dir.path(), lease).unwrap();
    one.take_lease("one", dir.path()).unwrap();
    let (_, ids) = intents(&mut one, "a.json", 1).unwrap();
    std::thread::sleep(lease * 2);
    assert!(matches!(
        two.take_lease("two", dir.path()).unwrap_err(),
        Error::Leased { .. }
    ));
    assert_eq!(one.mark_sending(&ids).unwrap(), ids);
}

/// A wrong password is refused by a server that asks for one (`.ci/run`'s: `PGPASSWORD` set),
/// and the error says so without the password; the journal's `Debug` never holds it either.
#[test]
fn a_wrong_password_is_said_without_the_password() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut shared) = postgres_server() else {
        return;
    };
    let asks = shared.password.is_some();
    shared.password = Some(clientbank_api::Token::new("not-the-password-1729"));
    let layout = clientbank_watch::folders::Layout::new(dir.path());
    std::fs::create_dir_all(layout.folder(clientbank_watch::folders::Folder::Private)).unwrap();
    let location = Location::of(&layout, Some(&shared), true).unwrap().unwrap();
    assert!(!format!("{location:?}").contains("1729"), "{location:?}");
    match Journal::open_at(&location, true) {
        Err(e) => {
            let said = format!("{e} {e:?} {}", e.message().ru());
            assert!(said.contains("password"), "{said}");
            assert!(!said.contains("1729"), "{said}");
            // The server's English after the Russian words of its SQLSTATE.
            assert!(
                e.message().ru().contains("неверный пароль к базе"),
                "{}",
                e.message().ru()
            );
        }
        Ok(journal) => {
            assert!(!asks, "a server that asks for a password took a wrong one");
            assert!(!format!("{journal:?}").contains("1729"));
        }
    }
}

/// A database the server does not have is said in Russian words (its SQLSTATE), with the
/// server's own message after them.
#[test]
fn no_such_database_is_said_in_russian() {
    let dir = tempfile::tempdir().unwrap();
    let Some(shared) = postgres_server() else {
        return;
    };
    let mut url = shared.url.clone();
    let path = url.rfind('/').unwrap();
    url.replace_range(path.., "/no_such_database_of_clientbank");
    let shared =
        clientbank_bank::config::SharedJournal::new(&url, shared.password, shared.lease).unwrap();
    let layout = clientbank_watch::folders::Layout::new(dir.path());
    std::fs::create_dir_all(layout.folder(clientbank_watch::folders::Folder::Private)).unwrap();
    let location = Location::of(&layout, Some(&shared), true).unwrap().unwrap();
    let e = Journal::open_at(&location, true).unwrap_err();
    let ru = e.message().ru().to_string();
    assert!(ru.contains("такой базы на сервере нет ("), "{ru}");
    assert!(ru.contains("no_such_database_of_clientbank"), "{ru}");
}

/// A first start that cannot reach the database (named the folder's schema, made nothing)
/// leaves the folder as new: the next start makes the journal. Only a folder that shows
/// earlier use, whose named schema is not in the database, has lost its journal.
#[test]
fn a_first_start_without_the_database_leaves_the_folder_new() {
    let dir = tempfile::tempdir().unwrap();
    let Some(good) = postgres_server() else {
        return;
    };
    let layout = clientbank_watch::folders::Layout::new(dir.path());
    let nowhere = clientbank_bank::config::SharedJournal::new(
        "postgres://clientbank@127.0.0.1:1/nowhere",
        None,
        Duration::from_secs(30),
    )
    .unwrap();
    let e = clientbank_watch::daemon::open_journal(&layout, Some(&nowhere), false).unwrap_err();
    assert!(matches!(e, Error::Journal { .. }), "{e}");
    assert!(clientbank_watch::journal::schema_file(&layout).exists());
    clientbank_watch::daemon::open_journal(&layout, Some(&good), false).unwrap();
    // Used, and its schema named elsewhere: lost, said, nothing made.
    let other = tempfile::tempdir().unwrap();
    let used = clientbank_watch::folders::Layout::new(other.path());
    std::fs::create_dir_all(used.folder(clientbank_watch::folders::Folder::Done)).unwrap();
    std::fs::write(
        used.folder(clientbank_watch::folders::Folder::Done)
            .join("a.json"),
        "[]",
    )
    .unwrap();
    std::fs::create_dir_all(used.folder(clientbank_watch::folders::Folder::Private)).unwrap();
    std::fs::write(
        clientbank_watch::journal::schema_file(&used),
        "folder_0123456789abcdef0123\n",
    )
    .unwrap();
    let lost = clientbank_watch::daemon::open_journal(&used, Some(&good), false).unwrap_err();
    assert!(lost.to_string().contains("the journal is lost"), "{lost}");
}
