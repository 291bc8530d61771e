//! Issue 19, "done when": the README's set-up section (`init` → token → signer → `watch`),
//! followed as written against the sandbox bank, reaches a signed payment. The commands and the
//! configuration are read from the README between its `setup:begin`/`setup:end` markers and run
//! by `sh` in a fresh folder, `clientbank` being this binary; only the sandbox's address, the
//! checkout's `testdata/` and today's date (given, as the binary reads it) are put in.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;

use clientbank_sandbox::{Config, Sandbox};

fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The fenced blocks of `lang` in `text`, each as its lines without the list's indentation.
fn blocks(text: &str, lang: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        match &mut current {
            None if trimmed == format!("```{lang}") => current = Some(Vec::new()),
            Some(lines) if trimmed == "```" => {
                found.push(std::mem::take(lines));
                current = None;
            }
            Some(lines) => lines.push(trimmed.to_string()),
            None => {}
        }
    }
    found
}

#[test]
fn the_readmes_set_up_reaches_a_signed_payment() {
    let readme = std::fs::read_to_string(checkout().join("README.md")).unwrap();
    let section = readme
        .split("<!-- setup:begin -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- setup:end -->").next())
        .expect("the README's set-up section between its markers");
    let order = [
        "clientbank init",
        "token",
        "openssl req",
        "clientbank watch",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|step| section.find(step).unwrap_or_else(|| panic!("{step}")))
        .collect();
    assert!(at.is_sorted(), "init, token, signer, watch: {at:?}");

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let bank = runtime.block_on(Sandbox::start(Config::default())).unwrap();
    let address = bank.url().trim_end_matches("/v1").replace("http://", "");
    let today = clientbank_payment::clock::today_in_moscow()
        .format("%d.%m.%Y")
        .to_string();
    let work = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_clientbank"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let testdata = checkout().join("testdata");
    let put_in = |line: &str| {
        line.replace("127.0.0.1:8800", &address)
            .replace("$(date +%d.%m.%Y)", &today)
            .replace("testdata/", &format!("{}/", testdata.display()))
    };
    let commands = blocks(section, "sh");
    let configuration = blocks(section, "toml");
    assert_eq!((commands.len(), configuration.len()), (4, 1), "{section}");
    let run = |block: &[String]| {
        for line in block {
            let line = put_in(line);
            let out = Command::new("sh")
                .args(["-c", &line])
                .current_dir(work.path())
                .env("PATH", &path)
                .env("LANG", "C")
                .env_remove("CLIENTBANK_TOKEN")
                .env_remove("CLIENTBANK_BASE_URL")
                .env_remove("CLIENTBANK_ROOT_CA")
                .output()
                .unwrap();
            let said = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(out.status.success(), "{line}: {said}");
            assert!(!said.contains("warning"), "{line}: {said}");
        }
    };
    // Steps 1 to 3: the folder, the token, the certificate; then the configuration added.
    for block in &commands[..3] {
        run(block);
    }
    let config = work.path().join("exchange/clientbank.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push('\n');
    for line in &configuration[0] {
        text.push_str(&put_in(line));
        text.push('\n');
    }
    std::fs::write(&config, text).unwrap();
    // Step 4: a drop, `watch --once`, `status`.
    run(&commands[3]);

    let done = work.path().join("exchange/done");
    assert!(done.join("1c_to_kl.txt").is_file());
    let report = std::fs::read_to_string(done.join("1c_to_kl.txt.report.csv")).unwrap();
    assert_eq!(report.matches("uploaded:signed").count(), 3, "{report}");
    let payments = bank.control().payments();
    assert_eq!(payments.len(), 3, "{payments:?}");
    assert!(
        payments
            .iter()
            .all(|p| p.status == "Executed" && !p.awaiting_signature),
        "signed and executed at the bank: {payments:?}"
    );
}
