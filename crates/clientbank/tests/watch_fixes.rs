//! The tester's findings on the watch daemon (issue 10), through the binary: a command beside
//! a running daemon, a folder that does not exist, a broken configuration holding the token.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn clientbank(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clientbank"));
    command
        .args(args)
        .env_remove("CLIENTBANK_TOKEN")
        .env_remove("CLIENTBANK_BASE_URL")
        .env_remove("CLIENTBANK_ROOT_CA")
        .env("RUST_LOG", "warn");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[cfg(unix)]
#[test]
fn upload_and_resolve_refuse_while_a_daemon_runs_on_the_folder_and_sign_runs_beside_it() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("exchange");
    let d = dir.to_str().unwrap();
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(["watch", d, "--sandbox"])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !dir.join(".clientbank/journal.sqlite").exists() {
        assert!(started.elapsed() < Duration::from_secs(20), "never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/drops/payments.json");
    let env = [
        ("CLIENTBANK_BASE_URL", "http://127.0.0.1:9/v1"),
        ("CLIENTBANK_TOKEN", "cabinet-token-full-rights"),
    ];
    let out = clientbank(&["upload", good.to_str().unwrap(), "--dir", d], &env);
    let sign = clientbank(&["sign", "--dir", d], &env);
    let resolve = clientbank(&["resolve", d, "x.json", "--sent"], &[]);
    let _ = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    let _ = daemon.wait();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("clientbank watch"), "{}", text(&out));
    assert!(text(&out).contains("inbox"), "{}", text(&out));
    // Signing sends no payment: it runs beside the daemon (nothing awaits signature here).
    assert_eq!(sign.status.code(), Some(0), "{}", text(&sign));
    assert_eq!(resolve.status.code(), Some(2), "{}", text(&resolve));
}

#[test]
fn sign_on_a_folder_that_does_not_exist_creates_nothing() {
    let root = tempfile::tempdir().unwrap();
    let missing = root.path().join("nowhere");
    let m = missing.to_str().unwrap();
    let env = [
        ("CLIENTBANK_BASE_URL", "http://127.0.0.1:9/v1"),
        ("CLIENTBANK_TOKEN", "cabinet-token-full-rights"),
    ];
    for args in [
        vec!["sign", "--dir", m],
        vec!["status", m],
        vec!["resolve", m, "a.json", "--not-sent"],
        vec!["upload", "a.json", "--dir", m],
    ] {
        let out = clientbank(&args, &env);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains("does not exist"), "{}", text(&out));
    }
    assert!(!missing.exists());
}

#[test]
fn a_broken_configuration_never_shows_the_token() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    let secret = "S3cr3t-T0ken-of-the-bookkeeper";
    for config in [
        format!("token = \"{secret}\n"),
        format!("token = {secret}\n"),
        "token = 9876543210123\n".to_string(),
        format!("token = [\"{secret}\"]\n"),
    ] {
        std::fs::write(dir.join("clientbank.toml"), &config).unwrap();
        let out = clientbank(&["watch", dir.to_str().unwrap(), "--once"], &[]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let said = text(&out);
        assert!(
            !said.contains(secret) && !said.contains("9876543210123"),
            "{said}"
        );
        assert!(said.contains("clientbank.toml:1:"), "{said}");
    }
    // A token file of two lines: refused, exit 2.
    std::fs::write(dir.join("token.txt"), "one\ntwo\n").unwrap();
    std::fs::write(dir.join("clientbank.toml"), "token_file = \"token.txt\"\n").unwrap();
    let out = clientbank(&["watch", dir.to_str().unwrap(), "--once"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("2 lines"), "{}", text(&out));
}
