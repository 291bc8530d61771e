//! Many folders through one process (issue 20): FOLDERS exchange folders, each its own company
//! and token at the sandbox bank (in this process, on loopback), DROPS drops of PAYMENTS
//! payments each, through one `Fleet`: the total time, the slowest folder's wait, the memory
//! per idle folder and the CPU while idle; then one folder alone for the time per payment.
//!
//! cargo run --release -p clientbank-benches --bin fleet [-- FOLDERS DROPS PAYMENTS IDLE_SECONDS]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clientbank_bank::Settings;
use clientbank_benches::{cpu_time, json_drop};
use clientbank_sandbox::{Config, NewCompany, Sandbox};
use clientbank_watch::Error;
use clientbank_watch::fleet::{Fleet, Loader};

/// Resident memory in bytes (Linux).
fn rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Makes `count` folders under `root`, each a company of `bank` with its own token.
fn folders(bank: &Sandbox, root: &Path, count: usize) -> Vec<(PathBuf, String)> {
    (0..count)
        .map(|i| {
            let made = bank
                .control()
                .add_company(&NewCompany::new(format!("ООО \"Клиент {i}\"")))
                .expect("a company");
            let dir = root.join(format!("client-{i:03}"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("token.txt"), &made.token).unwrap();
            std::fs::write(
                dir.join("clientbank.toml"),
                format!(
                    "bank_url = \"{}\"\ntoken_file = \"token.txt\"\nsettle = \"0s\"\n",
                    bank.url()
                ),
            )
            .unwrap();
            (dir, made.account)
        })
        .collect()
}

fn put_drops(dir: &Path, account: &str, drops: usize, payments: usize) {
    let inbox = dir.join("inbox");
    std::fs::create_dir_all(&inbox).unwrap();
    for d in 0..drops {
        std::fs::write(
            inbox.join(format!("drop-{d:03}.json")),
            json_drop(account, d, payments),
        )
        .unwrap();
    }
}

fn loader() -> Loader {
    Arc::new(|dir: &Path| -> Result<Settings, Error> {
        Ok(Settings::load(dir, None, &BTreeMap::new())?)
    })
}

fn done(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("done"))
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
                .count()
        })
        .unwrap_or(0)
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().ok());
    let mut next = |default| args.next().flatten().unwrap_or(default);
    let (count, drops, payments, idle) = (next(200), next(20), next(10), next(30));
    let bank = Sandbox::start(Config::default())
        .await
        .expect("sandbox bank");
    let root = tempfile::tempdir().unwrap();
    let all = folders(&bank, root.path(), count);
    let fleet = Fleet::new(loader()).root(root.path());

    // 1. Idle: every folder served by the running fleet, nothing to do.
    let before = rss().unwrap_or(0);
    let running = fleet.spawn();
    tokio::time::sleep(Duration::from_secs(5)).await;
    let after = rss().unwrap_or(0);
    let cpu_before = cpu_time().unwrap_or_default();
    tokio::time::sleep(Duration::from_secs(idle as u64)).await;
    let cpu_idle = cpu_time().unwrap_or_default().saturating_sub(cpu_before);
    let stopped_runs = running.stop().await;
    assert!(stopped_runs.iter().all(|r| r.outcome.is_ok()));
    println!(
        "idle: {count} folders, resident memory {:.1} MB before, {:.1} MB served: {:.0} KB per \
         idle folder; CPU over {idle} s idle: {cpu_idle:.2?} ({:.2} %)",
        before as f64 / 1e6,
        after as f64 / 1e6,
        after.saturating_sub(before) as f64 / 1024.0 / count as f64,
        cpu_idle.as_secs_f64() / idle as f64 * 100.0
    );

    // 2. Throughput: every folder's drops at once, one pass of the fleet.
    for (dir, account) in &all {
        put_drops(dir, account, drops, payments);
    }
    let started = Instant::now();
    let watcher = {
        let dirs: Vec<PathBuf> = all.iter().map(|(d, _)| d.clone()).collect();
        tokio::spawn(async move {
            let mut first: Vec<Option<Duration>> = vec![None; dirs.len()];
            let mut last: Vec<Option<Duration>> = vec![None; dirs.len()];
            while last.iter().any(Option::is_none) {
                for (i, dir) in dirs.iter().enumerate() {
                    let n = done(dir);
                    if n > 0 && first[i].is_none() {
                        first[i] = Some(started.elapsed());
                    }
                    if n == drops && last[i].is_none() {
                        last[i] = Some(started.elapsed());
                    }
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            (first, last)
        })
    };
    let runs = fleet.run_once().await;
    let took = started.elapsed();
    let (first, last) = watcher.await.unwrap();
    let uploaded: usize = runs
        .iter()
        .map(|r| r.outcome.as_ref().map_or(0, |s| s.payments.uploaded))
        .sum();
    let total = count * drops * payments;
    assert_eq!(uploaded, total, "every payment uploaded");
    assert_eq!(bank.control().payments().len(), total);
    let slowest_first = first.iter().flatten().max().copied().unwrap_or_default();
    let (fastest_last, slowest_last) = (
        last.iter().flatten().min().copied().unwrap_or_default(),
        last.iter().flatten().max().copied().unwrap_or_default(),
    );
    let per_payment = took.as_secs_f64() / total as f64 * 1000.0;
    println!(
        "fleet: {count} folders × {drops} drops × {payments} payments = {total} in {took:.2?} \
         ({:.0} payments/s, {per_payment:.3} ms a payment); the slowest folder's first file done \
         after {slowest_first:.2?}; folders finished between {fastest_last:.2?} and \
         {slowest_last:.2?}",
        total as f64 / took.as_secs_f64(),
    );

    // 3. One folder alone, the same work as one folder of the fleet, and as all of them.
    for (label, n) in [
        ("one folder's work", drops),
        ("the fleet's work", count * drops),
    ] {
        let alone_root = tempfile::tempdir().unwrap();
        let alone = folders(&bank, alone_root.path(), 1);
        put_drops(&alone[0].0, &alone[0].1, n, payments);
        let started = Instant::now();
        let runs = Fleet::new(loader()).dir(&alone[0].0).run_once().await;
        let took = started.elapsed();
        assert_eq!(
            runs[0].outcome.as_ref().unwrap().payments.uploaded,
            n * payments
        );
        println!(
            "one folder alone, {label} ({n} drops × {payments}): {took:.2?} ({:.3} ms a payment)",
            took.as_secs_f64() / (n * payments) as f64 * 1000.0
        );
    }
}
