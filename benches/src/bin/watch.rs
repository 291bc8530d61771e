//! The watch daemon's speed (issue 10 item 17): 1,000 drops of 10 payments each uploaded to the
//! sandbox bank on loopback with the durable intents; the claim latency after a file's last
//! write; the daemon's CPU over a minute idle.
//!
//! cargo run --release -p clientbank-benches --bin watch [-- DROPS [IDLE_SECONDS]]

use std::time::{Duration, Instant};

use clientbank_api::Token;
use clientbank_bank::Settings;
use clientbank_sandbox::{Config, Sandbox};
use clientbank_watch::{Daemon, Options};

use clientbank_benches::{cpu_time, json_drop};

fn drop_file(index: usize, payments: usize) -> String {
    json_drop("40702810938000012345", index, payments)
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let drops: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let idle: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(60);
    let bank = Sandbox::start(Config::default())
        .await
        .expect("sandbox bank");
    let settings = Settings {
        bank_url: Some(bank.url()),
        token: Some(Token::new("cabinet-token-full-rights")),
        settle: Duration::ZERO,
        ..Settings::default()
    };

    // 1. Throughput: the drops are in the inbox; one run takes them all.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("inbox")).unwrap();
    for i in 0..drops {
        std::fs::write(
            dir.path().join("inbox").join(format!("drop-{i:04}.json")),
            drop_file(i, 10),
        )
        .unwrap();
    }
    let mut daemon = Daemon::open(dir.path(), settings.clone(), Options::default()).unwrap();
    let started = Instant::now();
    let summary = daemon.run_once().await.unwrap();
    let took = started.elapsed();
    assert_eq!(
        summary.files(clientbank_watch::FileEnd::Done).len(),
        drops,
        "{summary:?}"
    );
    assert_eq!(bank.control().payments().len(), drops * 10);
    println!(
        "{drops} drops of 10 payments: {took:.2?} ({:.0} payments/s), {} uploaded",
        (drops * 10) as f64 / took.as_secs_f64(),
        summary.payments.uploaded
    );
    drop(daemon);

    // 2. Claim latency with the defaults (settle 2 s, rescan 5 s, file events on).
    let dir = tempfile::tempdir().unwrap();
    let defaults = Settings {
        settle: Duration::from_secs(2),
        ..settings.clone()
    };
    let mut daemon = Daemon::open(dir.path(), defaults, Options::default()).unwrap();
    let stop = std::sync::Arc::new(tokio::sync::Notify::new());
    let stopped = stop.clone();
    let root = dir.path().to_path_buf();
    let run = tokio::spawn(async move {
        daemon
            .run(async move { stopped.notified().await })
            .await
            .unwrap();
        daemon
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut latencies = Vec::new();
    for i in 0..5 {
        let name = format!("late-{i}.json");
        std::fs::write(root.join("inbox").join(&name), drop_file(100_000 + i, 1)).unwrap();
        let written = Instant::now();
        while !root.join("processing").join(&name).exists()
            && !root.join("done").join(&name).exists()
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        latencies.push(written.elapsed());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let worst = latencies.iter().max().unwrap();
    println!(
        "claim latency (settle 2 s): worst {worst:.2?} after the last write, i.e. {:.2?} beyond the settle interval",
        worst.saturating_sub(Duration::from_secs(2))
    );

    // 3. CPU while idle.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let before = cpu_time();
    tokio::time::sleep(Duration::from_secs(idle)).await;
    let after = cpu_time();
    if let (Some(before), Some(after)) = (before, after) {
        let used = after.saturating_sub(before);
        println!(
            "idle {idle} s: {used:.2?} of CPU ({:.3} %), the sandbox bank included",
            used.as_secs_f64() * 100.0 / idle as f64
        );
    }
    stop.notify_one();
    let _ = run.await;
}
