//! Crash safety (issue 10 item 15): `clientbank watch` as a child process, killed with SIGKILL
//! at random moments and restarted, against a sandbox bank in another process. At the end,
//! from the bank's `/admin/payments` and the folders: no payment twice, every dropped file in
//! exactly one of done/, rejected/, review/, every payment of done/ at the bank, every payment
//! at the bank known to the journal.
//!
//! The dangerous moments are made to happen: a short settle, so that kills land while payments
//! are in flight; files arriving during the kills; a slowed bank and faults toggled at random
//! (503, 500, 429, a connection dropped before or after the bank acted, slow answers); JSON
//! files (payment by payment) and 1C files that go whole through `/operation-upload/1c`. After
//! the kills, review/ is settled from the bank's own list of payments, payment by payment
//! (`clientbank resolve … --sent N --not-sent N`), until every file is in done/ and every
//! payment dropped is at the bank exactly once.
//!
//! `CLIENTBANK_SOAK_KILLS` and `CLIENTBANK_SOAK_FILES` (see `scripts/soak-kill`: 300 kills,
//! 100 files) run the soak; 30 kills and 12 files by default.
#![cfg(unix)]

mod daemons;

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clientbank_watch::journal::Journal;
use clientbank_watch::state::PaymentState;
use daemons::*;

#[test]
fn killed_at_random_moments_every_payment_reaches_the_bank_exactly_once() {
    let kills = count("CLIENTBANK_SOAK_KILLS", 30);
    let files = count("CLIENTBANK_SOAK_FILES", 12).max(2);
    let seed = std::env::var("CLIENTBANK_SOAK_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        })
        | 1;
    println!("seed {seed} (CLIENTBANK_SOAK_SEED repeats it), {kills} kills, {files} files");
    let mut random = Random(seed);
    let (mut bank, url, admin_token, port) = sandbox();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("inbox")).unwrap();
    std::fs::write(
        root.join("clientbank.toml"),
        format!(
            "bank_url = \"{url}\"\ntoken = \"cabinet-token-full-rights\"\nsettle = \"20ms\"\n\
             poll_interval = \"50ms\"\nretry_min = \"50ms\"\nretry_max = \"200ms\"\n\
             once_patience = \"20s\"\n"
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            root.join("clientbank.toml"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
    }
    let mut dropped = 0u32;
    let first = (files / 4).max(1);
    while dropped < first {
        drop_file(root, dropped);
        dropped += 1;
    }
    let started = Instant::now();
    let mut faults: BTreeMap<&str, u32> = BTreeMap::new();
    for kill in 0..kills {
        *faults
            .entry(toggle_fault(&mut random, port, &admin_token))
            .or_default() += 1;
        let mut daemon = Command::new(bin())
            .args(["watch", root.to_str().unwrap()])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Files keep arriving, spread over the kills.
        let due = first + (files - first) * (kill + 1) / kills.max(1);
        std::thread::sleep(Duration::from_millis(10 + random.next(150)));
        while dropped < due {
            drop_file(root, dropped);
            dropped += 1;
        }
        std::thread::sleep(Duration::from_millis(random.next(200)));
        daemon.kill().unwrap(); // SIGKILL
        daemon.wait().unwrap();
        if kill % 100 == 99 {
            println!("{} kills, {:?}", kill + 1, started.elapsed());
        }
    }
    while dropped < files {
        drop_file(root, dropped);
        dropped += 1;
    }
    // The bank well again; once to the end, undisturbed; then review/ settled from the bank's
    // own list, until nothing is left to settle.
    assert_eq!(
        admin(port, &admin_token, "DELETE", "/admin/faults", ""),
        200
    );
    let mut summary = run_once(root);
    let mut reviewed = 0;
    for _ in 0..5 {
        let settled = settle_review(root, &bank_payments(port, &admin_token));
        if settled == 0 {
            break;
        }
        reviewed += settled;
        summary = run_once(root);
    }
    println!("{summary}");
    let at_bank = bank_payments(port, &admin_token);
    let _ = bank.kill();
    let _ = bank.wait();

    // Every payment dropped at the bank exactly once.
    let mut seen = BTreeSet::new();
    for (_, number) in &at_bank {
        assert!(
            seen.insert(number.clone()),
            "payment {number} reached the bank twice"
        );
    }
    let dropped_numbers: BTreeSet<String> = (0..dropped)
        .flat_map(|i| (1..=3).map(move |k| (i * 10 + k).to_string()))
        .collect();
    assert_eq!(seen, dropped_numbers, "every payment dropped, once");
    // Every file in done/, nothing left anywhere else.
    for folder in ["inbox", "processing", "rejected", "review"] {
        assert!(
            names(root, folder).is_empty(),
            "{folder}: {:?}",
            names(root, folder)
        );
    }
    assert_eq!(
        names(root, "done").len() as u32,
        dropped,
        "{:?}",
        names(root, "done")
    );
    // Every payment at the bank known to the journal as uploaded.
    let journal = Journal::open(&root.join(".clientbank").join("journal.sqlite"), false).unwrap();
    let rows = journal.all_payments().unwrap();
    for (id, number) in &at_bank {
        let known = rows.iter().any(|r| {
            r.payment.number == *number
                && (r.outcome.bank_id.as_deref() == Some(id)
                    || r.outcome.state == PaymentState::Uploaded)
        });
        assert!(
            known,
            "payment {number} ({id}) is at the bank but not in the journal"
        );
    }
    println!(
        "{kills} kills, {dropped} files ({} JSON, {} 1C), faults {faults:?}: {} payment(s) at \
         the bank, each once; {reviewed} file(s) settled from review/; {:?}",
        dropped.div_ceil(2),
        dropped / 2,
        at_bank.len(),
        started.elapsed()
    );
}
