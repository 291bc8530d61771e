//! One process, many exchange folders (issue 20): a fleet of daemons, each folder with its own
//! configuration, token and company at the sandbox bank.

mod common;

use clientbank_watch::FileEnd;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clientbank_bank::Settings;
use clientbank_sandbox::{MadeCompany, NewCompany, Sandbox};
use clientbank_watch::Error;
use clientbank_watch::fleet::{self, Fleet, Loader};
use common::{bank, files, options, put, request};

/// Each folder's settings from its own `clientbank.toml` alone (no environment).
fn loader() -> Loader {
    Arc::new(|dir: &Path| -> Result<Settings, Error> {
        Ok(Settings::load(dir, None, &BTreeMap::new())?)
    })
}

fn fleet() -> Fleet {
    Fleet::new(loader())
        .options(options())
        .rescan(Duration::from_millis(100))
        .retry(Duration::from_millis(300))
}

/// A company at `bank` and its exchange folder `root/name`: its `clientbank.toml` names the
/// bank and its own token file.
fn company(bank: &Sandbox, root: &Path, name: &str) -> (PathBuf, MadeCompany) {
    let made = bank
        .control()
        .add_company(&NewCompany::new(format!("ООО \"{name}\"")))
        .expect("the sandbox makes a company");
    let dir = root.join(name);
    configure(&dir, &bank.url(), &made.token);
    (dir, made)
}

fn configure(dir: &Path, url: &str, token: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("token.txt"), token).unwrap();
    std::fs::write(
        dir.join("clientbank.toml"),
        format!(
            "bank_url = \"{url}\"\ntoken_file = \"token.txt\"\nsettle = \"100ms\"\n\
             poll_interval = \"200ms\"\nretry_min = \"50ms\"\nretry_max = \"400ms\"\n\
             once_patience = \"3s\"\nincomplete_after = \"1s\"\ntoken_retry = \"1s\"\n"
        ),
    )
    .unwrap();
}

/// A JSON drop of payments numbered `numbers` from `account`.
fn drop_from(account: &str, numbers: impl IntoIterator<Item = u32>) -> String {
    let items: Vec<String> = numbers
        .into_iter()
        .map(|n| request(account, n, &format!("{}.00", 100 + n)))
        .collect();
    format!("[{}]\n", items.join(",\n"))
}

/// Waits (up to 20 s) until `done` holds.
async fn until(what: &str, done: impl Fn() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{what}: not in 20 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn each_folder_pays_from_its_own_company_exactly_once() {
    let bank = bank().await;
    let root = tempfile::tempdir().unwrap();
    let companies: Vec<_> = ["alpha", "beta", "gamma"]
        .iter()
        .map(|name| company(&bank, root.path(), name))
        .collect();
    for (dir, made) in &companies {
        // The same numbers in every folder: each company's own payments.
        put(dir, "a.json", drop_from(&made.account, 1..=3));
        put(dir, "b.json", drop_from(&made.account, 4..=5));
    }
    let fleet = fleet().root(root.path());
    for run in fleet.run_once().await {
        let summary = run.outcome.expect("every folder runs");
        assert_eq!(
            summary.files(FileEnd::Done).len(),
            2,
            "{}: {summary:?}",
            run.dir.display()
        );
        assert_eq!(summary.payments.uploaded, 5);
    }
    let payments = bank.control().payments();
    assert_eq!(payments.len(), 15);
    for (_, made) in &companies {
        let mut numbers: Vec<String> = payments
            .iter()
            .filter(|p| p.account == made.account)
            .inspect(|p| assert_eq!(p.company_id, made.company_id))
            .filter_map(|p| p.number.clone())
            .collect();
        numbers.sort();
        assert_eq!(numbers, ["1", "2", "3", "4", "5"], "{made:?}");
    }
    // The same drops again: recognised by each folder's journal, nothing sent twice.
    for (dir, made) in &companies {
        put(dir, "a again.json", drop_from(&made.account, 1..=3));
    }
    for run in fleet.run_once().await {
        let summary = run.outcome.unwrap();
        assert_eq!(
            (summary.payments.uploaded, summary.payments.already),
            (0, 3),
            "{summary:?}"
        );
    }
    assert_eq!(bank.control().payments().len(), 15);
    // Status at a glance: one line per folder.
    let glances = fleet::glance(&fleet.folders().unwrap(), &*loader());
    assert_eq!(glances.len(), 3);
    for glance in glances {
        assert_eq!(glance.files["done"], 3, "{glance:?}");
        assert_eq!((glance.in_doubt, glance.last_error), (0, None));
    }
}

#[tokio::test]
async fn a_broken_configuration_and_a_refused_token_do_not_stop_the_others() {
    let bank = bank().await;
    let root = tempfile::tempdir().unwrap();
    let (good, made) = company(&bank, root.path(), "good");
    let (refused, _) = company(&bank, root.path(), "refused");
    std::fs::write(refused.join("token.txt"), "not-a-token-of-this-bank").unwrap();
    let (broken, broken_made) = company(&bank, root.path(), "broken");
    std::fs::write(broken.join("clientbank.toml"), "bank_url = [unclosed\n").unwrap();
    put(&good, "a.json", drop_from(&made.account, 1..=2));
    put(&refused, "a.json", drop_from(&made.account, 1..=2));
    put(&broken, "a.json", drop_from(&broken_made.account, 1..=2));

    let fleet = fleet().root(root.path());
    let runs = fleet.run_once().await;
    let names: Vec<_> = runs.iter().map(|r| r.dir.clone()).collect();
    assert_eq!(names, [broken.clone(), good.clone(), refused.clone()]);
    assert!(runs[0].outcome.is_err(), "{:?}", runs[0]);
    assert_eq!(
        runs[1].outcome.as_ref().unwrap().files(FileEnd::Done),
        ["a.json"]
    );
    let refusal = runs[2].outcome.as_ref().unwrap();
    assert!(refusal.token_refused.is_some(), "{refusal:?}");
    assert_eq!(files(&refused, "processing"), ["a.json"]);
    assert_eq!(files(&broken, "inbox"), ["a.json"]);
    assert_eq!(bank.control().payments().len(), 2);

    // Running: the good folder goes on taking files while the others cannot be served.
    let running = fleet.spawn();
    put(&good, "b.json", drop_from(&made.account, 3..=4));
    until("b.json done", || files(&good, "done").len() == 2).await;
    // The broken folder mended while the fleet runs: tried again, and served.
    configure(&broken, &bank.url(), &broken_made.token);
    until("the mended folder served", || {
        files(&broken, "done") == ["a.json"]
    })
    .await;
    running.stop().await;
    assert_eq!(files(&refused, "processing"), ["a.json"]);
    // The good folder's a.json and b.json, the mended folder's a.json.
    assert_eq!(bank.control().payments().len(), 6);

    let glances = fleet::glance(&fleet.folders().unwrap(), &*loader());
    let refused_glance = glances.iter().find(|g| g.dir == refused).unwrap();
    assert_eq!(refused_glance.files["processing"], 1);
    let said = refused_glance
        .last_error
        .as_ref()
        .expect("the refusal is said");
    assert!(
        said.en().contains("401") || said.en().contains("token"),
        "{said:?}"
    );
    assert!(!said.ru().is_empty());
}

#[tokio::test]
async fn folders_added_and_removed_under_the_root_while_it_runs() {
    let bank = bank().await;
    let root = tempfile::tempdir().unwrap();
    let (first, first_made) = company(&bank, root.path(), "first");
    put(&first, "a.json", drop_from(&first_made.account, 1..=1));
    let fleet = fleet().root(root.path());
    let running = fleet.spawn();
    until("the first folder", || files(&first, "done").len() == 1).await;
    // Not a folder of the fleet: no clientbank.toml.
    let plain = root.path().join("plain");
    put(&plain, "a.json", drop_from(&first_made.account, 9..=9));
    let (second, second_made) = company(&bank, root.path(), "second");
    put(&second, "a.json", drop_from(&second_made.account, 1..=2));
    until("the folder added", || files(&second, "done").len() == 1).await;
    // Removed from the fleet (its configuration moved away): its daemon stops and lets go.
    std::fs::rename(
        second.join("clientbank.toml"),
        root.path().join("second.toml"),
    )
    .unwrap();
    until("the folder let go", || {
        !clientbank_watch::commands::health(&second).unwrap().running
    })
    .await;
    assert!(clientbank_watch::commands::health(&first).unwrap().running);
    let runs = running.stop().await;
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs.iter().all(|r| r.outcome.is_ok()), "{runs:?}");
    assert_eq!(files(&plain, "inbox"), ["a.json"]);
    assert_eq!(bank.control().payments().len(), 3);
}

#[tokio::test]
async fn a_folder_of_one_file_does_not_wait_behind_a_folder_of_many() {
    let bank = bank().await;
    let root = tempfile::tempdir().unwrap();
    let (big, big_made) = company(&bank, root.path(), "big");
    let (small, small_made) = company(&bank, root.path(), "small");
    const MANY: usize = 150;
    for n in 0..MANY {
        let number = n as u32 + 1;
        put(
            &big,
            &format!("drop-{n:03}.json"),
            drop_from(&big_made.account, number..=number),
        );
    }
    put(&small, "one.json", drop_from(&small_made.account, 1..=1));
    let fleet = fleet().root(root.path());
    let runs = tokio::spawn(async move { fleet.run_once().await });
    until("the small folder's file", || {
        files(&small, "done") == ["one.json"]
    })
    .await;
    let big_done = files(&big, "done").len();
    assert!(
        big_done < MANY / 2,
        "the one-file folder waited for {big_done} of the big folder's {MANY} files"
    );
    for run in runs.await.unwrap() {
        assert!(run.outcome.is_ok(), "{run:?}");
    }
    assert_eq!(files(&big, "done").len(), MANY);
}

#[tokio::test]
async fn the_sandbox_makes_companies_through_its_admin_interface() {
    let bank = bank().await;
    let client = reqwest::Client::new();
    let make = |name: &str| {
        client
            .post(format!("http://{}/admin/companies", bank.addr()))
            .bearer_auth(bank.admin_token())
            .json(&serde_json::json!({"name": name}))
            .send()
    };
    let one: serde_json::Value = make("ООО \"Один\"").await.unwrap().json().await.unwrap();
    let two: serde_json::Value = make("ООО \"Два\"").await.unwrap().json().await.unwrap();
    assert_ne!(one["token"], two["token"]);
    assert_ne!(one["account"], two["account"]);
    for made in [&one, &two] {
        let seen: serde_json::Value = client
            .post(format!("{}/account-info", bank.url()))
            .bearer_auth(made["token"].as_str().unwrap())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        // Its token sees its own company and account only.
        let seen = seen.as_array().unwrap();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0]["companyId"], made["companyId"]);
        assert_eq!(seen[0]["bankAccounts"][0]["number"], made["account"]);
    }
    let refused = client
        .post(format!("http://{}/admin/companies", bank.addr()))
        .bearer_auth(bank.admin_token())
        .json(&serde_json::json!({"name": "x", "inn": "1234567890"}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
}
