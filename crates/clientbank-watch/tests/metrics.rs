//! Issue 19 item 6: the daemon's metrics in the Prometheus text format, read over 127.0.0.1
//! after drops are processed: files per folder, payments per state, the bank's last error, the
//! age of the oldest inbox file; a non-loopback address refused.

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;

use clientbank_watch::metrics;
use common::*;

/// The samples of a scrape: `name{labels}` → value; every sample of a `# TYPE … gauge`.
fn parse(text: &str) -> HashMap<String, f64> {
    let mut samples = HashMap::new();
    let mut typed = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap();
            assert_eq!(kind, "gauge", "{line}");
            typed.push(name.to_string());
        } else if !line.starts_with('#') && !line.is_empty() {
            let (key, value) = line.rsplit_once(' ').unwrap();
            let name = key.split('{').next().unwrap();
            assert!(
                typed.iter().any(|t| t == name),
                "{line}: no # TYPE before it"
            );
            samples.insert(key.to_string(), value.parse().unwrap());
        }
    }
    samples
}

async fn scrape(addr: SocketAddr) -> (String, String) {
    let answer = reqwest::get(format!("http://{addr}/metrics"))
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let kind = answer.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_string();
    (kind, answer.text().await.unwrap())
}

#[tokio::test]
async fn metrics_say_what_the_daemon_did() {
    let bank = bank().await;
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let mut daemon = open(dir, settings(&bank));
    let listener = metrics::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(metrics::serve(
        listener,
        dir.to_path_buf(),
        daemon.bank_health(),
        async move {
            let _ = stopped.await;
        },
    ));

    // Two good payments and a file with an error.
    put(dir, "good.json", json_drop(&[1, 2]));
    put(dir, "bad.json", format!("[{}]", request(ROMASHKA, 3, "-5")));
    daemon.run_once().await.unwrap();
    let (kind, text) = scrape(addr).await;
    assert!(kind.starts_with("text/plain; version=0.0.4"), "{kind}");
    let samples = parse(&text);
    let value = |key: &str| *samples.get(key).unwrap_or_else(|| panic!("{key}: {text}"));
    assert_eq!(value("clientbank_files{folder=\"done\"}"), 1.0);
    assert_eq!(value("clientbank_files{folder=\"rejected\"}"), 1.0);
    for folder in ["inbox", "processing", "review"] {
        assert_eq!(
            value(&format!("clientbank_files{{folder=\"{folder}\"}}")),
            0.0
        );
    }
    assert_eq!(value("clientbank_payments{state=\"uploaded\"}"), 2.0);
    for state in clientbank_watch::state::PaymentState::ALL {
        assert!(samples.contains_key(&format!("clientbank_payments{{state=\"{state}\"}}")));
    }
    assert_eq!(value("clientbank_bank_error"), 0.0);
    assert_eq!(value("clientbank_last_bank_error_timestamp_seconds"), 0.0);
    assert_eq!(value("clientbank_inbox_oldest_age_seconds"), 0.0);
    assert!(!text.contains("cabinet-token"), "no secret: {text}");

    // The bank under maintenance: the file waits, the error is said (0/1 and when).
    bank.control().set_maintenance(true);
    put(dir, "later.json", json_drop(&[4]));
    // The first daemon's journal and lock are let go; the second one's health is served.
    drop(daemon);
    let mut waiting = open(
        dir,
        clientbank_bank::Settings {
            once_patience: std::time::Duration::from_millis(300),
            ..settings(&bank)
        },
    );
    let listener = metrics::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let second = listener.local_addr().unwrap();
    tokio::spawn(metrics::serve(
        listener,
        dir.to_path_buf(),
        waiting.bank_health(),
        std::future::pending(),
    ));
    waiting.run_once().await.unwrap();
    let samples = parse(&scrape(second).await.1);
    assert_eq!(samples["clientbank_bank_error"], 1.0);
    assert!(samples["clientbank_last_bank_error_timestamp_seconds"] > 0.0);
    assert_eq!(samples["clientbank_files{folder=\"processing\"}"], 1.0);
    bank.control().set_maintenance(false);

    // A file left in the inbox is aged by its modification time.
    let file = dir.join("inbox").join("old.json");
    std::fs::write(&file, json_drop(&[5])).unwrap();
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
    let age = parse(&scrape(second).await.1)["clientbank_inbox_oldest_age_seconds"];
    assert!((3600.0..3700.0).contains(&age), "{age}");

    let _ = stop.send(());
    server.await.unwrap().unwrap();
}

/// Metrics are for this machine: any other address is refused, in both languages.
#[test]
fn a_non_loopback_address_is_refused() {
    for addr in ["0.0.0.0:9101", "192.168.1.10:9101", "[::]:9101"] {
        let e = metrics::check_loopback(addr.parse().unwrap()).unwrap_err();
        let said = e.message();
        assert!(said.en().contains("loopback address only"), "{}", said.en());
        assert!(
            said.ru().contains("только на адресе этой машины"),
            "{}",
            said.ru()
        );
    }
    for addr in ["127.0.0.1:9101", "[::1]:9101"] {
        assert!(metrics::check_loopback(addr.parse().unwrap()).is_ok());
    }
}
