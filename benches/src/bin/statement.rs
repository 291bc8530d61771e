//! `clientbank statement` at a year of operations, whole command against the sandbox bank.
//!
//! ```text
//! cargo build --release -p clientbank -p clientbank-benches
//! target/release/statement [OPERATIONS...]     (default 50000 100000 200000)
//! ```
//!
//! For each size: a sandbox bank in this process receives that many operations spread over 365
//! days (incoming and outgoing in turn), then `target/release/clientbank statement` runs as a
//! child against it over loopback for the whole year, and the time, the child's peak resident
//! memory (`VmHWM`, sampled every 2 ms) and the file written are printed. The history travels as
//! JSON pages of 50, so the bank side (this process) dominates the time; the figure to read is
//! the child's memory against its output: it must not grow with the number of operations faster
//! than the ids kept for deduplication.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use clientbank_sandbox::{Config, OperationKind, Receive, Sandbox};

fn vm_hwm(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb = text.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    kb.trim()
        .trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .ok()
        .map(|k| k * 1024)
}

fn main() {
    let sizes: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number of operations"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![50_000, 100_000, 200_000]
    } else {
        sizes
    };
    let exe = std::env::current_exe().expect("this program's path");
    let clientbank: PathBuf = exe.with_file_name("clientbank");
    assert!(
        clientbank.exists(),
        "build it first: cargo build --release -p clientbank"
    );
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary folder");
    println!("operations  seconds  peak MB  file MB  documents");
    for size in sizes {
        let bank = runtime
            .block_on(Sandbox::start(Config::default()))
            .expect("the sandbox");
        let account = "40702810938000012345";
        let (from, till) = (
            NaiveDate::from_ymd_opt(2025, 1, 1).expect("a date"),
            NaiveDate::from_ymd_opt(2025, 12, 31).expect("a date"),
        );
        let per_day = size / 365 + 1;
        let mut left = size;
        let mut day = from;
        while left > 0 {
            let count = per_day.min(left);
            for (kind, n) in [
                (OperationKind::Incoming, count.div_ceil(2)),
                (OperationKind::Outgoing, count / 2),
            ] {
                if n > 0 {
                    bank.control()
                        .receive(&Receive {
                            count: n as usize,
                            date: Some(day),
                            kind,
                            ..Receive::new(account)
                        })
                        .expect("operations arrive");
                }
            }
            left -= count;
            day = day.succ_opt().expect("a next day");
        }
        let out = dir.path().join(format!("kl_to_1c_{size}.txt"));
        let started = Instant::now();
        let mut child = Command::new(&clientbank)
            .args([
                "statement",
                "--account",
                account,
                "--from",
                &from.to_string(),
                "--till",
                &till.to_string(),
                "-o",
                out.to_str().expect("a UTF-8 path"),
                "--json",
            ])
            .env("CLIENTBANK_BASE_URL", bank.url())
            .env("CLIENTBANK_TOKEN", "cabinet-token-full-rights")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("clientbank runs");
        let pid = child.id();
        let peak = runtime.block_on(async {
            let mut peak = 0;
            loop {
                if let Some(p) = vm_hwm(pid) {
                    peak = peak.max(p);
                }
                if let Ok(Some(_)) = child.try_wait() {
                    break peak;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        });
        let output = child.wait_with_output().expect("clientbank ends");
        let seconds = started.elapsed().as_secs_f64();
        assert!(output.status.success(), "clientbank statement failed");
        let summary: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("the JSON summary");
        let documents = summary["files"][0]["documents"].as_u64().unwrap_or(0);
        assert_eq!(documents, size, "every operation is a document");
        let file = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
        println!(
            "{size:>10}  {seconds:>7.1}  {:>7.1}  {:>7.1}  {documents:>9}",
            peak as f64 / 1e6,
            file as f64 / 1e6
        );
        drop(bank);
    }
}
