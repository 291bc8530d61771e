//! Several daemons on the same folders with one journal in PostgreSQL (issue 20): three
//! `clientbank watch` processes (two `watch A B`, one `watch A` or `watch B`) against one
//! sandbox bank in another process, killed with
//! SIGKILL at random moments (also right after another was killed, while a folder is being taken
//! over), one paused with SIGSTOP past its lease and resumed, files arriving all the while and
//! the bank slowed at times so that payments are in flight. Then the folders are finished
//! undisturbed, review/ is settled from the bank's own list (`clientbank resolve`), and the bank
//! is counted: no payment twice, every file in exactly one final folder, nothing lost.
//!
//! `CLIENTBANK_TAKEOVER_LOGS=DIR` keeps the daemons' logs there. The server is
//! `CLIENTBANK_TEST_POSTGRES` (its password, if any, in `PGPASSWORD`); without it
//! the test says so in one line and passes, unless `CLIENTBANK_REQUIRE_POSTGRES=1`.
#![cfg(unix)]

mod daemons;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clientbank_watch::state::PaymentState;
use daemons::*;

/// The lease the daemons hold their folders by.
const LEASE: Duration = Duration::from_secs(1);

fn postgres_url() -> Option<String> {
    let url = std::env::var("CLIENTBANK_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.is_empty());
    if url.is_none() {
        assert!(
            std::env::var("CLIENTBANK_REQUIRE_POSTGRES").as_deref() != Ok("1"),
            "CLIENTBANK_REQUIRE_POSTGRES=1 but CLIENTBANK_TEST_POSTGRES names no server"
        );
        // Straight to stderr, past the test harness's capture, so that the skip is seen.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: no PostgreSQL server configured (CLIENTBANK_TEST_POSTGRES)"
        );
    }
    url
}

/// A folder served from the journal at `url`, against the bank at `bank`.
fn folder(root: &Path, name: &str, bank: &str, url: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("inbox")).unwrap();
    let config = dir.join("clientbank.toml");
    std::fs::write(
        &config,
        format!(
            "bank_url = \"{bank}\"\ntoken = \"cabinet-token-full-rights\"\nsettle = \"20ms\"\n\
             poll_interval = \"50ms\"\nretry_min = \"50ms\"\nretry_max = \"200ms\"\n\
             once_patience = \"20s\"\njournal = \"{url}\"\njournal_lease = \"{}ms\"\n",
            LEASE.as_millis()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    dir
}

/// The daemon `index`: the first two serve both folders (`watch A B`, a fleet); the third one
/// folder, chosen at random at each start (`watch A`: the one-folder daemon).
fn daemon(index: usize, dirs: &[PathBuf], random: &mut Random) -> Child {
    let dirs = match index {
        0 | 1 => dirs,
        _ => std::slice::from_ref(&dirs[random.next(2) as usize]),
    };
    // `CLIENTBANK_TAKEOVER_LOGS=DIR` keeps what the daemons log (`DIR/daemon-N.log`).
    let log = match std::env::var_os("CLIENTBANK_TAKEOVER_LOGS") {
        Some(logs) => Stdio::from(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(Path::new(&logs).join(format!("daemon-{index}.log")))
                .unwrap(),
        ),
        None => Stdio::null(),
    };
    Command::new(bin())
        .arg("watch")
        .args(dirs)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap()
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{name}");
}

/// Files dropped per folder.
const FILES: u32 = 10;

/// Drops 0..FILES into a/, 100.. into b/ (their payments' numbers apart): (folder, index).
struct Drops {
    next: [u32; 2],
    dropped: Vec<(usize, u32)>,
}

impl Drops {
    fn all(&self) -> bool {
        self.next.iter().all(|n| n % 100 >= FILES)
    }

    /// One more drop into a folder chosen at random (of those not yet given all).
    fn one(&mut self, dirs: &[PathBuf], random: &mut Random) {
        let which = random.next(2) as usize;
        let which = if self.next[which] % 100 < FILES {
            which
        } else {
            1 - which
        };
        if self.next[which] % 100 < FILES {
            drop_file(&dirs[which], self.next[which]);
            self.dropped.push((which, self.next[which]));
            self.next[which] += 1;
        }
    }
}

/// The files of `dir` not yet in a final folder.
fn unfinished(dir: &Path) -> usize {
    names(dir, "inbox").len() + names(dir, "processing").len()
}

#[test]
fn daemons_on_one_postgres_journal_killed_and_paused_send_every_payment_once() {
    let Some(url) = postgres_url() else {
        return;
    };
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    println!("seed {seed}");
    let mut random = Random(seed);
    let (mut bank, bank_url, admin_token, port) = sandbox();
    let root = tempfile::tempdir().unwrap();
    let dirs = [
        folder(root.path(), "a", &bank_url, &url),
        folder(root.path(), "b", &bank_url, &url),
    ];
    let mut drops = Drops {
        next: [0, 100],
        dropped: Vec::new(),
    };
    let mut running: Vec<Child> = (0..3).map(|i| daemon(i, &dirs, &mut random)).collect();
    let started = Instant::now();
    let (mut kills, mut pauses, mut takeover_kills) = (0, 0, 0);
    while started.elapsed() < Duration::from_secs(20) {
        for _ in 0..=random.next(2) {
            drops.one(&dirs, &mut random);
        }
        // The bank slowed now and then: payments are in flight when the signals land.
        if random.next(3) == 0 {
            let body = format!(r#"{{"delay_ms": {}, "times": 6}}"#, 100 + random.next(300));
            assert_eq!(
                admin(port, &admin_token, "POST", "/admin/faults", &body),
                200
            );
        }
        std::thread::sleep(Duration::from_millis(100 + random.next(500)));
        let victim = random.next(running.len() as u64) as usize;
        match random.next(4) {
            0 | 1 => {
                running[victim].kill().unwrap(); // SIGKILL
                running[victim].wait().unwrap();
                kills += 1;
                // Another killed as the folders are being taken over (lease + a retry).
                if random.next(2) == 0 {
                    std::thread::sleep(LEASE + Duration::from_millis(random.next(600)));
                    let other = (victim + 1 + random.next(2) as usize) % running.len();
                    running[other].kill().unwrap();
                    running[other].wait().unwrap();
                    running[other] = daemon(other, &dirs, &mut random);
                    takeover_kills += 1;
                }
                running[victim] = daemon(victim, &dirs, &mut random);
            }
            2 => {
                // Paused past its lease: the others take its folders; resumed, it must stop
                // serving them before it sends anything more.
                signal(&running[victim], "STOP");
                std::thread::sleep(LEASE * 2 + Duration::from_millis(random.next(1000)));
                drops.one(&dirs, &mut random);
                signal(&running[victim], "CONT");
                pauses += 1;
            }
            _ => {}
        }
    }
    while !drops.all() {
        drops.one(&dirs, &mut random);
    }
    let dropped = drops.dropped;
    assert_eq!(
        admin(port, &admin_token, "DELETE", "/admin/faults", ""),
        200
    );
    // The daemons left running finish what is there (at most a lease and a try to take over).
    let calm = Instant::now();
    while dirs.iter().map(|d| unfinished(d)).sum::<usize>() > 0
        && calm.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(200));
    }
    for mut child in running {
        let _ = child.kill();
        let _ = child.wait();
    }
    // Every file in exactly one final folder; none left behind.
    for (index, dir) in dirs.iter().enumerate() {
        let _ = run_once(dir);
        let finals: Vec<String> = ["done", "review", "rejected"]
            .iter()
            .flat_map(|f| names(dir, f))
            .collect();
        let mine: BTreeSet<u32> = dropped
            .iter()
            .filter(|(w, _)| *w == index)
            .map(|(_, i)| *i)
            .collect();
        assert_eq!(finals.len(), mine.len(), "{dir:?}: {finals:?}");
        assert_eq!(unfinished(dir), 0, "{dir:?}");
        assert!(names(dir, "rejected").is_empty(), "{dir:?}");
    }
    // review/ (what was in flight at a kill or a take-over) settled from the bank's own list.
    let mut reviewed = 0;
    for _ in 0..5 {
        let at_bank = bank_payments(port, &admin_token);
        let settled: usize = dirs.iter().map(|d| settle_review(d, &at_bank)).sum();
        if settled == 0 {
            break;
        }
        reviewed += settled;
        for dir in &dirs {
            let _ = run_once(dir);
        }
    }
    let at_bank = bank_payments(port, &admin_token);
    let _ = bank.kill();
    let _ = bank.wait();
    let mut seen = BTreeSet::new();
    for (_, number) in &at_bank {
        assert!(
            seen.insert(number.clone()),
            "payment {number} reached the bank twice"
        );
    }
    let numbers: BTreeSet<String> = dropped
        .iter()
        .flat_map(|(_, i)| (1..=3).map(move |k| (i * 10 + k).to_string()))
        .collect();
    assert_eq!(
        seen, numbers,
        "every payment dropped reached the bank, once"
    );
    for dir in &dirs {
        for folder in ["inbox", "processing", "rejected", "review"] {
            assert!(names(dir, folder).is_empty(), "{dir:?} {folder}");
        }
        let journal = folder_journal(dir);
        let rows = journal.all_payments().unwrap();
        for row in rows
            .iter()
            .filter(|r| r.outcome.state == PaymentState::Uploaded)
        {
            assert!(seen.contains(&row.payment.number), "{row:?}");
        }
    }
    println!(
        "{} files, {kills} kills ({takeover_kills} during a take-over), {pauses} pauses past \
         the lease: {} payments at the bank, each once; {reviewed} file(s) settled from review/; \
         {:?}",
        dropped.len(),
        at_bank.len(),
        started.elapsed()
    );
}
