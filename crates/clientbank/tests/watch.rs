//! `clientbank watch`, `upload`, `sign`, `status`, `resolve` through the binary, and the
//! tester's findings: a command beside a running daemon, a folder that does not exist, a
//! broken configuration holding the token.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use clientbank_sandbox::{Config, Sandbox};

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

fn files(dir: &Path, folder: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join(folder))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// A folder the main job (the demo) went through: the tempdir, and `exchange` in it.
fn demo_folder() -> (tempfile::TempDir, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("exchange");
    let run = demo("en", &dir, &[], &[]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    (root, dir)
}

/// A folder `clientbank init` set up: the tempdir, and `exchange` in it.
fn initialised_folder() -> (tempfile::TempDir, std::path::PathBuf) {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("exchange");
    let init = clientbank(&["init", dir.to_str().unwrap()], &[]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init));
    (work, dir)
}

/// The sandbox bank on 127.0.0.1, with the runtime it runs on (kept as long as the bank).
fn sandbox_bank() -> (tokio::runtime::Runtime, Sandbox) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let bank = runtime.block_on(Sandbox::start(Config::default())).unwrap();
    (runtime, bank)
}

/// `clientbank --lang LANG watch --sandbox --once --demo [EXTRA] DIR`.
fn demo(lang: &str, dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut args = vec!["--lang", lang, "watch", "--sandbox", "--once", "--demo"];
    args.extend(extra);
    args.push(dir.to_str().unwrap());
    clientbank(&args, env)
}

#[test]
fn the_main_job_watch_sandbox_once_demo() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("exchange");
    let out = demo("en", &dir, &[], &[("LANG", "ru_RU.UTF-8")]);
    // The sample with an error is rejected, as designed: the demo exits 0.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("done/       2 file(s)"), "{stdout}");
    assert!(
        stdout.contains("rejected/   1 file(s): with-error.txt"),
        "{stdout}"
    );
    assert!(
        stdout.contains("7 uploaded") && stdout.contains("7 signed"),
        "{stdout}"
    );
    assert_eq!(
        files(&dir, "done"),
        [
            "1c_to_kl.txt",
            "1c_to_kl.txt.report.csv",
            "payments.json",
            "payments.json.report.csv"
        ]
    );
    let report = std::fs::read_to_string(dir.join("done/payments.json.report.csv")).unwrap();
    assert_eq!(report.matches("uploaded, signed").count(), 4, "{report}");
    // The one renderer wrote it, as `check` renders it, in the language of `--lang`.
    let errors = std::fs::read_to_string(dir.join("rejected/with-error.txt.errors.txt")).unwrap();
    assert!(
        errors.starts_with("\u{feff}with-error.txt is rejected whole: none of its 1 payment(s)")
            && errors.contains("\r\n\r\nerror[inn-check-digit]: the INN's check digit is wrong")
            && errors.contains("--> with-error.txt:27:15")
            && errors.contains("= payment 1 (№ 310), RecipientINN (ПолучательИНН)"),
        "{errors}"
    );
    // status reads the same.
    let out = clientbank(&["status", dir.to_str().unwrap(), "--json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["payments"]["signed"], 7, "{status}");
    assert_eq!(status["folders"]["rejected"][0], "with-error.txt");
    // --demo again on the same folder: the earlier demo's folder is cleared, the demo runs
    // afresh against a new sandbox bank.
    let again = clientbank(
        &[
            "watch",
            "--sandbox",
            "--once",
            "--demo",
            dir.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert_eq!(files(&dir, "done").len(), 4);
    // Without --lang, the locale's language.
    let again = clientbank(
        &[
            "watch",
            "--sandbox",
            "--once",
            "--demo",
            dir.to_str().unwrap(),
        ],
        &[("LC_ALL", ""), ("LC_MESSAGES", ""), ("LANG", "ru_RU.UTF-8")],
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    let summary = String::from_utf8_lossy(&again.stdout);
    assert!(
        summary.contains("done/       файлов: 2")
            && summary.contains("платежи: загружено 7")
            && summary.contains("подписано 7"),
        "{summary}"
    );
    // The report as Russian Excel reads it (issue 19 item 7): BOM, `;`, Russian headers and
    // states, decimal comma; the state code as in English.
    let report = std::fs::read(dir.join("done/payments.json.report.csv")).unwrap();
    let body = report.strip_prefix("\u{feff}".as_bytes()).expect("a BOM");
    let mut reader = csv::ReaderBuilder::new().delimiter(b';').from_reader(body);
    let headers = reader.headers().unwrap().clone();
    assert_eq!(&headers[2], "сумма");
    assert_eq!(&headers[7], "код");
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert!(row[2].ends_with(",00") || row[2].contains(','), "{row:?}");
        assert_eq!(&row[6], "загружен, подписан", "{row:?}");
        assert_eq!(&row[7], "uploaded:signed", "{row:?}");
    }
    let errors = std::fs::read_to_string(dir.join("rejected/with-error.txt.errors.txt")).unwrap();
    assert!(
        errors.starts_with("\u{feff}with-error.txt отклонён целиком: ни один из его платежей")
            && errors.contains("выгрузите файл заново")
            && errors.contains("ошибка[inn-check-digit]: неверное контрольное число ИНН")
            && errors.contains(
                "= 1-й платёж файла (№ 310), ПолучательИНН (RecipientINN): найдено \"5009876547\""
            ),
        "{errors}"
    );
    // A folder whose journal no demo made is refused and left as it is.
    let other = root.path().join("real");
    std::fs::create_dir_all(other.join(".clientbank")).unwrap();
    std::fs::write(other.join(".clientbank/journal.sqlite"), b"not ours").unwrap();
    let out = clientbank(
        &[
            "watch",
            "--sandbox",
            "--once",
            "--demo",
            other.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no demo made"), "{}", text(&out));
    assert_eq!(
        std::fs::read(other.join(".clientbank/journal.sqlite")).unwrap(),
        b"not ours"
    );
}

/// The documents of a 1.03 file as `(key, value)` lines, read naively (no clientbank code):
/// every line from `СекцияДокумент=` to `КонецДокумента`.
fn documents_of(bytes: &[u8]) -> Vec<Vec<(String, String)>> {
    let text = clientbank_format::Encoding::Cp1251.decode(bytes);
    let mut documents = Vec::new();
    let mut current: Option<Vec<(String, String)>> = None;
    for line in text.lines() {
        if line.starts_with("СекцияДокумент=") {
            current = Some(Vec::new());
        } else if line == "КонецДокумента" {
            documents.extend(current.take());
        } else if let (Some(document), Some((key, value))) = (&mut current, line.split_once('=')) {
            document.push((key.to_string(), value.to_string()));
        }
    }
    documents
}

fn value<'a>(document: &'a [(String, String)], key: &str) -> Option<&'a str> {
    document
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Issue 16: 1C matches an outgoing document of a statement to its own order by number, date,
/// sum and account. The main job's statement, read back, carries every requisite of every
/// uploaded order as the order had it; the day the money left is the bank's.
#[test]
fn the_main_jobs_statement_gives_each_order_back_as_it_was_written() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("exchange");
    let out = clientbank(
        &[
            "watch",
            "--sandbox",
            "--once",
            "--demo",
            dir.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let statement = documents_of(&std::fs::read(dir.join("outbox/kl_to_1c.txt")).unwrap());
    let by_number = |number: &str| -> &Vec<(String, String)> {
        let found: Vec<_> = statement
            .iter()
            .filter(|d| value(d, "Номер") == Some(number))
            .collect();
        assert_eq!(found.len(), 1, "document {number} once in {statement:#?}");
        found[0]
    };
    // The 1C drop (as sent: the demo dates its samples the day it runs): every non-empty line
    // of each order, unchanged.
    let drops = dir.join("done");
    let orders = documents_of(&std::fs::read(drops.join("1c_to_kl.txt")).unwrap());
    assert_eq!(orders.len(), 3);
    for order in &orders {
        let number = value(order, "Номер").unwrap();
        let back = by_number(number);
        for (key, v) in order.iter().filter(|(_, v)| !v.is_empty()) {
            assert_eq!(
                value(back, key),
                Some(v.as_str()),
                "order {number}: {key} as the order had it"
            );
        }
        assert!(
            value(back, "ДатаСписано").is_some(),
            "order {number}: {back:?}"
        );
    }
    // The JSON drop: each request's fields under their 1C keys.
    let requests: serde_json::Value =
        serde_json::from_slice(&std::fs::read(drops.join("payments.json")).unwrap()).unwrap();
    let keys = [
        ("Number", "Номер"),
        ("Date", "Дата"),
        ("PayerAccount", "ПлательщикСчет"),
        ("RecipientName", "Получатель1"),
        ("RecipientINN", "ПолучательИНН"),
        ("RecipientKPP", "ПолучательКПП"),
        ("RecipientAccount", "ПолучательСчет"),
        ("RecipientBankBik", "ПолучательБИК"),
        ("RecipientBankCorrAccount", "ПолучательКорсчет"),
        ("PaymentPurpose", "НазначениеПлатежа"),
        ("TypeIndicator", "Код"),
        ("PayerStatus", "СтатусСоставителя"),
        ("KBK", "ПоказательКБК"),
        ("OKTMO", "ОКАТО"),
        ("PaymentBase", "ПоказательОснования"),
        ("Period", "ПоказательПериода"),
        ("BudgetDocNumber", "ПоказательНомера"),
        ("BudgetDocDate", "ПоказательДаты"),
    ];
    for request in requests.as_array().unwrap() {
        let payment = &request["payment"];
        let number = payment["Number"].as_str().unwrap();
        let back = by_number(number);
        for (json, key) in keys {
            let Some(v) = payment[json].as_str() else {
                continue;
            };
            // A date-time's day, as 1C writes a date.
            let v = match chrono::NaiveDateTime::parse_from_str(v, "%Y-%m-%dT%H:%M:%S") {
                Ok(at) => at.format("%d.%m.%Y").to_string(),
                Err(_) => v.to_string(),
            };
            assert_eq!(
                value(back, key),
                Some(v.as_str()),
                "request {number}: {key}"
            );
        }
        let sum: rust_decimal::Decimal = payment["Sum"]
            .to_string()
            .trim_matches('"')
            .parse()
            .unwrap();
        assert_eq!(value(back, "Сумма"), Some(format!("{sum:.2}").as_str()));
    }
    // A stable order: within one execution time, by number.
    let numbers: Vec<u64> = statement
        .iter()
        .map(|d| value(d, "Номер").unwrap().parse().unwrap())
        .collect();
    let mut sorted = numbers.clone();
    sorted.sort();
    assert_eq!(numbers, sorted, "the demo's payments execute at one time");
}

#[test]
fn upload_status_sign_and_resolve() {
    let (_runtime, bank) = sandbox_bank();
    let url = bank.url();
    let env = [
        ("CLIENTBANK_BASE_URL", url.as_str()),
        ("CLIENTBANK_TOKEN", "cabinet-token-full-rights"),
    ];
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let drops = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/drops");
    let good = drops.join("payments.json");
    let bad = drops.join("with-error.txt");
    let d = dir.to_str().unwrap();

    let out = clientbank(&["upload", bad.to_str().unwrap(), "--dir", d], &env);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("refused, nothing sent"),
        "{}",
        text(&out)
    );
    assert!(bank.control().payments().is_empty());
    // A file that cannot be read: exit 2 (not a finding), said in Russian to the last word.
    let missing = dir.join("нет-такого.json");
    let out = clientbank(
        &[
            "--lang",
            "ru",
            "upload",
            missing.to_str().unwrap(),
            "--dir",
            d,
        ],
        &env,
    );
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("ошибка[io]: не удалось прочитать")
            && said.contains("нет такого файла или папки")
            && said.contains("не читается, ничего не отправлено"),
        "{said}"
    );
    assert!(
        !said.contains("No such file") && !said.contains("cannot"),
        "{said}"
    );

    let out = clientbank(
        &["upload", good.to_str().unwrap(), "--dir", d, "--json"],
        &env,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let uploads: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let payments = uploads[0]["payments"].as_array().unwrap();
    assert_eq!(payments.len(), 4);
    assert!(payments.iter().all(|p| p["id"].is_string()));
    assert_eq!(bank.control().payments().len(), 4);

    // The same file again: nothing sent twice.
    let out = clientbank(&["upload", good.to_str().unwrap(), "--dir", d], &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        text(&out).matches("already at the bank: id").count(),
        4,
        "{}",
        text(&out)
    );
    assert_eq!(bank.control().payments().len(), 4);
    // In Russian: the table, the outcome and the states in Russian, times local.
    let out = clientbank(
        &["--lang", "ru", "upload", good.to_str().unwrap(), "--dir", d],
        &env,
    );
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains(": всё уже в банке, ничего не отправлено повторно\n")
            && said.contains("получатель"),
        "{said}"
    );
    assert_eq!(said.matches("уже в банке: id").count(), 4, "{said}");
    for english in ["uploaded", "recipient", "already", "number", "Z)"] {
        assert!(!said.contains(english), "{english}: {said}");
    }

    let out = clientbank(&["status", d], &[]);
    assert!(
        text(&out).contains("4  awaiting signature"),
        "{}",
        text(&out)
    );

    let out = clientbank(&["sign", "--dir", d, "--dry-run"], &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("signed string: "), "{}", text(&out));
    let out = clientbank(&["--lang", "ru", "sign", "--dir", d, "--dry-run"], &env);
    let said = text(&out);
    assert!(said.contains("пробный запуск: не подписаны"), "{said}");
    assert!(
        said.contains("(ИНН ") && said.contains("подписываемая строка: "),
        "{said}"
    );
    assert!(!said.contains("dry run") && !said.contains("INN"), "{said}");
    let out = clientbank(&["--lang", "ru", "sign", "--dir", d], &env);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("не настроена подпись"), "{said}");
    assert!(
        !said.contains("no signer") && !said.contains("failed"),
        "{said}"
    );
    // No signer configured: a clear failure, the ids stay awaiting.
    let out = clientbank(&["sign", "--dir", d], &env);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("no signer"), "{}", text(&out));
    assert!(
        text(&out).contains("add [signers.\"7701234560\"] command"),
        "{}",
        text(&out)
    );
    // A signer per company in the configuration.
    let keys = tempfile::tempdir().unwrap();
    let mut config = String::new();
    for inn in ["7701234560", "500100732259"] {
        let argv = clientbank_bank::signer::throwaway_openssl(
            keys.path(),
            inn,
            clientbank_payment::clock::today_in_moscow(),
        )
        .unwrap();
        config.push_str(&format!("[signers.\"{inn}\"]\ncommand = {argv:?}\n"));
    }
    std::fs::write(dir.join("clientbank.toml"), config).unwrap();
    // The set-up's faults say what to do, as every bank command says them, and leave every id
    // awaiting: a bank_url without /v1, a refused token, a token without the right.
    let root = url.trim_end_matches("/v1");
    for (address, token, exit, hint) in [
        (root, "cabinet-token-full-rights", 2, "ending in /v1"),
        (
            url.as_str(),
            "not-a-token",
            1,
            "run `clientbank login` again",
        ),
        (
            url.as_str(),
            "cabinet-token-account-info",
            1,
            "money-transfer for uploading and signing",
        ),
    ] {
        let env = [
            ("CLIENTBANK_BASE_URL", address),
            ("CLIENTBANK_TOKEN", token),
        ];
        let out = clientbank(&["--lang", "en", "sign", "--dir", d], &env);
        assert_eq!(out.status.code(), Some(exit), "{token}: {}", text(&out));
        assert!(text(&out).contains(hint), "{token}: {}", text(&out));
    }
    let out = clientbank(&["status", d], &[]);
    assert!(
        text(&out).contains("4  awaiting signature"),
        "{}",
        text(&out)
    );
    let out = clientbank(&["sign", "--dir", d, "--json"], &env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let groups: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(groups.as_array().unwrap().len(), 2, "{groups}");
    assert!(
        groups
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["signed"] == true)
    );
    let executed = bank
        .control()
        .payments()
        .iter()
        .filter(|p| p.status == "Executed")
        .count();
    assert_eq!(executed, 4);

    // resolve: a file that is not in review/ is a clear error.
    std::fs::create_dir_all(dir.join("review")).unwrap();
    let out = clientbank(&["resolve", d, "nothing.txt", "--sent"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("is not in"), "{}", text(&out));
    let out = clientbank(&["resolve", d, "nothing.txt"], &[]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--sent or --not-sent is required"
    );
}

#[test]
fn a_missing_journal_stops_the_daemon_with_exit_2() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    std::fs::create_dir_all(dir.join("done")).unwrap();
    std::fs::write(dir.join("done/old.txt"), "uploaded long ago").unwrap();
    let out = clientbank(
        &["watch", dir.to_str().unwrap(), "--once", "--sandbox"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--new-journal"), "{}", text(&out));
    assert!(!dir.join(".clientbank/journal.sqlite").exists());
}

#[test]
fn a_bad_configuration_is_named() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    std::fs::write(dir.join("clientbank.toml"), "settle = \"soon\"\n").unwrap();
    let out = clientbank(&["watch", dir.to_str().unwrap(), "--once"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("settle"), "{}", text(&out));
    // No bank address: refused before the folder is touched.
    let fresh = dir.join("fresh");
    let out = clientbank(&["watch", fresh.to_str().unwrap(), "--once"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no bank address"), "{}", text(&out));
    // No configuration at all: the file looked for is named, with how to make one.
    let looked_for = fresh.join("clientbank.toml");
    assert!(
        text(&out).contains(&format!("{} does not exist", looked_for.display()))
            && text(&out).contains("clientbank init"),
        "{}",
        text(&out)
    );
    assert!(!fresh.exists(), "nothing made");
    std::fs::write(dir.join("clientbank.toml"), "").unwrap();
    let out = clientbank(&["upload", "x.json", "--dir", dir.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no bank address"), "{}", text(&out));
}

#[cfg(unix)]
#[test]
fn sigterm_stops_the_daemon_with_exit_0() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    std::fs::create_dir_all(dir.join("inbox")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/drops/payments.json"),
        dir.join("inbox/payments.json"),
    )
    .unwrap();
    std::fs::write(
        dir.join("clientbank.toml"),
        "settle = \"100ms\"\npoll_interval = \"100ms\"\n",
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(["watch", dir.to_str().unwrap(), "--sandbox"])
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !dir.join("done/payments.json").exists() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "never done"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("done/       1 file(s)"));
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

/// Issue 17 item 2: `upload FILE` run from another folder beside a running `watch` made a
/// journal where it ran and sent the daemon's payments a second time. A file that lies in a
/// folder with a journal is uploaded with that journal (under its lock) or refused; without
/// `--dir` no journal is ever made by itself.
#[test]
fn an_upload_uses_the_journal_of_the_folder_its_file_lies_in_or_none() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("exchange");
    let d = dir.to_str().unwrap();
    let elsewhere = root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let upload = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_clientbank"))
            .args(["--lang", "en", "upload"])
            .args(args)
            .current_dir(&elsewhere)
            .env("CLIENTBANK_BASE_URL", "http://127.0.0.1:9/v1")
            .env("CLIENTBANK_TOKEN", "cabinet-token-full-rights")
            .env("RUST_LOG", "warn")
            .output()
            .unwrap()
    };
    let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/drops/payments.json");
    // A file in no folder with a journal, without --dir: refused, nothing made.
    let out = upload(&[good.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("give --dir DIR"), "{}", text(&out));
    assert!(!elsewhere.join(".clientbank").exists());
    // A daemon works on DIR; a file lies in DIR (not in its inbox).
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
    let kept = dir.join("archive");
    std::fs::create_dir_all(&kept).unwrap();
    let file = kept.join("payments.json");
    std::fs::copy(&good, &file).unwrap();
    let f = file.to_str().unwrap();
    let beside = upload(&[f]);
    let other = upload(&[f, "--dir", "."]);
    let _ = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    let _ = daemon.wait();
    // DIR's journal and lock: refused while the daemon works there.
    assert_eq!(beside.status.code(), Some(2), "{}", text(&beside));
    assert!(
        text(&beside).contains("clientbank watch"),
        "{}",
        text(&beside)
    );
    // Another folder's journal: refused, naming the folder.
    assert_eq!(other.status.code(), Some(2), "{}", text(&other));
    assert!(
        text(&other).contains("lies in") && text(&other).contains("--dir"),
        "{}",
        text(&other)
    );
    assert!(
        !elsewhere.join(".clientbank").exists(),
        "no journal made here"
    );
    // A --dir inside a folder with a journal would make a second journal there: refused,
    // nothing made (the tester's defect: the same payments then went again from it).
    let loose = elsewhere.join("loose.json");
    std::fs::copy(&good, &loose).unwrap();
    let inner = upload(&[loose.to_str().unwrap(), "--dir", kept.to_str().unwrap()]);
    assert_eq!(inner.status.code(), Some(2), "{}", text(&inner));
    assert!(text(&inner).contains("lies inside"), "{}", text(&inner));
    assert!(!kept.join(".clientbank").exists(), "no second journal");
    // A new --dir whose upload records nothing keeps no journal.
    let fresh = root.path().join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    let none = upload(&["no-such-file.json", "--dir", fresh.to_str().unwrap()]);
    assert_ne!(none.status.code(), Some(0), "{}", text(&none));
    assert!(
        !fresh.join(".clientbank").exists(),
        "nothing recorded, no journal left"
    );
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

/// Issue 19 item 1: `init DIR` sets a folder up in one step, in both languages; the folder
/// it makes runs `watch --once --sandbox` as it is.
#[test]
fn init_sets_a_folder_up_and_it_runs() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("Обмен с банком");
    let d = dir.to_str().unwrap();
    let out = clientbank(&["--lang", "en", "init", d], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("written") && text(&out).contains("Next:"),
        "{}",
        text(&out)
    );
    for folder in [
        "inbox",
        "processing",
        "done",
        "rejected",
        "review",
        "outbox",
    ] {
        assert!(dir.join(folder).is_dir(), "{folder}");
    }
    let config = std::fs::read_to_string(dir.join("clientbank.toml")).unwrap();
    assert!(config.contains("# bank_url = ") && config.contains("Адрес API банка"));
    let again = clientbank(&["--lang", "ru", "init", d], &[]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(text(&again).contains("уже был"), "{}", text(&again));
    assert!(!text(&again).contains("не запустится"), "{}", text(&again));
    assert_eq!(
        std::fs::read_to_string(dir.join("clientbank.toml")).unwrap(),
        config
    );
    let run = clientbank(&["watch", d, "--once", "--sandbox"], &[]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    // A configuration kept that clientbank cannot read is said so (the language's name in
    // any case).
    std::fs::write(dir.join("clientbank.toml"), "bank_url = \"http://x\n").unwrap();
    let broken = clientbank(&["--lang", "RU", "init", d], &[]);
    assert_eq!(broken.status.code(), Some(0), "{}", text(&broken));
    assert!(text(&broken).contains("не запустится"), "{}", text(&broken));
    assert!(
        text(&broken).contains("clientbank.toml:1:"),
        "{}",
        text(&broken)
    );
}

/// Issue 19 item 8: a file or folder that cannot be made is said wholly in the user's
/// language: what could not be done, and the system's reason in words (with its code), not
/// the system's English after a Russian word.
#[test]
fn a_file_system_error_is_said_in_russian() {
    let root = tempfile::tempdir().unwrap();
    let blocker = root.path().join("файл");
    std::fs::write(&blocker, "not a folder").unwrap();
    let dir = blocker.join("обмен");
    let d = dir.to_str().unwrap();
    let ru = clientbank(&["--lang", "ru", "init", d], &[]);
    assert_eq!(ru.status.code(), Some(2), "{}", text(&ru));
    // The file in the way is named, not the system's "not a directory" of the folder below.
    let said = text(&ru);
    let shown = blocker.display();
    assert!(
        said.contains(&format!("{shown} — файл, а не папка")),
        "{said}"
    );
    assert!(
        !said.contains("cannot") && !said.contains("Not a directory"),
        "{said}"
    );
    let en = clientbank(&["--lang", "en", "init", d], &[]);
    assert_eq!(en.status.code(), Some(2), "{}", text(&en));
    let said = text(&en);
    assert!(
        said.contains(&format!("{shown} is a file, not a folder")),
        "{said}"
    );
    // A file where the folder is to be: said as such, not "already exists".
    let file = blocker.to_str().unwrap();
    let ru = clientbank(&["--lang", "ru", "init", file], &[]);
    assert_eq!(ru.status.code(), Some(2), "{}", text(&ru));
    assert!(text(&ru).contains("— файл, а не папка"), "{}", text(&ru));
    assert!(!text(&ru).contains("уже существует"), "{}", text(&ru));
}

/// Issue 19 item 6 (the health probe): `status --check` exits 4 with no daemon on the
/// folder, 0 with one and nothing for a person, 1 when a file waits in review/; and the
/// daemon's metrics (`--metrics`) are served over 127.0.0.1 while it runs.
#[test]
fn status_check_is_a_health_probe() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("exchange");
    let d = dir.to_str().unwrap();
    assert_eq!(clientbank(&["init", d], &[]).status.code(), Some(0));
    let run = clientbank(&["watch", d, "--once", "--sandbox"], &[]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run));
    let idle = clientbank(&["--lang", "en", "status", d, "--check"], &[]);
    assert_eq!(idle.status.code(), Some(4), "{}", text(&idle));
    assert!(
        text(&idle).contains("no clientbank watch"),
        "{}",
        text(&idle)
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let metrics_addr = format!("127.0.0.1:{port}");
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(["watch", d, "--sandbox", "--metrics", &metrics_addr])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The daemon holds the folder once it runs.
    let started = Instant::now();
    let well = loop {
        let out = clientbank(&["--lang", "en", "status", d, "--check"], &[]);
        if out.status.code() != Some(4) || started.elapsed() > Duration::from_secs(20) {
            break out;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let metrics = get_metrics(port);
    std::fs::write(dir.join("review/stuck.json"), b"[]").unwrap();
    let attention = clientbank(&["--lang", "ru", "status", d, "--check"], &[]);
    let metrics_after = get_metrics(port);
    let json = clientbank(&["status", d, "--check", "--json"], &[]);
    let _ = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    let _ = daemon.wait();
    assert_eq!(well.status.code(), Some(0), "{}", text(&well));
    assert!(text(&well).contains("ok"), "{}", text(&well));
    assert_eq!(attention.status.code(), Some(1), "{}", text(&attention));
    assert!(text(&attention).contains("review/"), "{}", text(&attention));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["running"], true, "{value}");
    assert_eq!(value["exit"], 1, "{value}");
    for line in [
        "\nclientbank_files{folder=\"inbox\"} 0\n",
        "\nclientbank_files{folder=\"review\"} 0\n",
        "\nclientbank_bank_error 0\n",
    ] {
        assert!(metrics.contains(line), "{line}: {metrics}");
    }
    assert!(
        metrics_after.contains("\nclientbank_files{folder=\"review\"} 1\n"),
        "{metrics_after}"
    );
}

/// `GET /metrics` over 127.0.0.1 (HTTP/1.1, the connection closed after): the answer.
fn get_metrics(port: u16) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    answer
}

/// Issue 19 item 6: metrics are for this machine: another address, by `--metrics` or by
/// `[metrics] listen`, is refused before anything starts, in both languages.
#[test]
fn a_non_loopback_metrics_address_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("exchange");
    let d = dir.to_str().unwrap();
    assert!(clientbank(&["init", d], &[]).status.success());
    let flag = clientbank(
        &[
            "--lang",
            "en",
            "watch",
            d,
            "--once",
            "--sandbox",
            "--metrics",
            "0.0.0.0:9101",
        ],
        &[],
    );
    assert_eq!(flag.status.code(), Some(2), "{}", text(&flag));
    assert!(
        text(&flag).contains("loopback address only"),
        "{}",
        text(&flag)
    );
    let config = dir.join("clientbank.toml");
    let mut toml = std::fs::read_to_string(&config).unwrap();
    toml.push_str("\n[metrics]\nlisten = \"192.168.1.10:9101\"\n");
    std::fs::write(&config, toml).unwrap();
    let file = clientbank(&["--lang", "ru", "watch", d, "--once", "--sandbox"], &[]);
    assert_eq!(file.status.code(), Some(2), "{}", text(&file));
    assert!(
        text(&file).contains("только на адресе этой машины"),
        "{}",
        text(&file)
    );
    assert!(files(&dir, "done").is_empty());
}

/// Issue 19 item 3: a signer that cannot sign stops `watch` and `upload` at their start,
/// before anything is made or uploaded; a signer's certificate is found beside the
/// configuration.
#[test]
fn a_signer_that_cannot_sign_stops_before_anything_is_uploaded() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("exchange");
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    let config = "bank_url = \"http://127.0.0.1:9/v1\"\ntoken = \"abcdefabcdef\"\n\
                  signing = \"auto\"\n[signers.\"7701234560\"]\ncommand = [\"openssl\", \"cms\", \
                  \"-sign\", \"-binary\", \"-outform\", \"DER\", \"-signer\", \"cert.pem\", \
                  \"-inkey\", \"key.pem\", \"-in\", \"{input}\", \"-out\", \"{output}\"]\n";
    std::fs::write(dir.join("clientbank.toml"), config).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            dir.join("clientbank.toml"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
    }
    let watch = clientbank(&["--lang", "en", "watch", d, "--once"], &[]);
    assert_eq!(watch.status.code(), Some(2), "{}", text(&watch));
    assert!(
        text(&watch).contains("signers.\"7701234560\" cannot sign"),
        "{}",
        text(&watch)
    );
    assert!(!dir.join("inbox").exists(), "nothing made");
    let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/drops/payments.json");
    let upload = clientbank(&["upload", good.to_str().unwrap(), "--dir", d], &[]);
    assert_eq!(upload.status.code(), Some(2), "{}", text(&upload));
    assert!(!dir.join(".clientbank").exists(), "no journal made");
    // The key and certificate beside the configuration, named relatively: it signs.
    let keys = tempfile::tempdir().unwrap();
    let argv = clientbank_bank::signer::throwaway_openssl(
        keys.path(),
        "7701234560",
        clientbank_payment::clock::today_in_moscow(),
    )
    .unwrap();
    for (flag, name) in [("-signer", "cert.pem"), ("-inkey", "key.pem")] {
        let at = argv.iter().position(|a| a == flag).unwrap();
        std::fs::copy(&argv[at + 1], dir.join(name)).unwrap();
    }
    let sandbox = clientbank(&["watch", d, "--once", "--sandbox"], &[]);
    assert_eq!(sandbox.status.code(), Some(0), "{}", text(&sandbox));
}

/// Issue 19 item 8: under Russian the log lines on a text log are in local time and plain
/// words (`16.11.2026 12:30:05 предупреждение: … (файл: …)`, no `2026-11-16T…Z  WARN`, no
/// `file=`), JSON logs keep their fields, and `status` shows the last errors in Russian.
#[test]
fn russian_log_lines_and_last_errors() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("exchange");
    let dir_arg = dir.to_str().unwrap();
    let out = demo("ru", &dir, &[], &[("RUST_LOG", "info")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let log = String::from_utf8_lossy(&out.stderr);
    let stamped = |line: &str| {
        let b = line.as_bytes();
        line.len() > 20
            && b[2] == b'.'
            && b[5] == b'.'
            && b[10] == b' '
            && b[13] == b':'
            && b[19] == b' '
            && line[..19]
                .chars()
                .all(|c| c.is_ascii_digit() || ".: ".contains(c))
    };
    for line in log.lines() {
        assert!(stamped(line), "not local time first: {line:?}\n{log}");
        for machine in [" INFO ", " WARN ", "Z ", "file="] {
            assert!(!line.contains(machine), "{machine:?} in {line:?}");
        }
    }
    assert!(log.contains("взят в работу (файл: 1c_to_kl.txt)"), "{log}");
    assert!(
        log.contains("предупреждение: отклонён: ничего не отправлено (файл: with-error.txt"),
        "{log}"
    );
    let status = clientbank(&["--lang", "ru", "status", dir_arg], &[]);
    let shown = String::from_utf8_lossy(&status.stdout);
    assert!(shown.contains("последние ошибки:"), "{shown}");
    assert!(
        shown.contains("with-error.txt перенесён в rejected/with-error.txt: ничего не отправлено"),
        "{shown}"
    );
    // JSON logs are for machines: unchanged.
    let json_dir = root.path().join("json");
    let out = demo(
        "ru",
        &json_dir,
        &["--log-format", "json"],
        &[("RUST_LOG", "info")],
    );
    let first = String::from_utf8_lossy(&out.stderr);
    let first: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    assert!(
        first["timestamp"].as_str().unwrap().ends_with('Z'),
        "{first}"
    );
    assert_eq!(first["level"], "INFO", "{first}");
}

/// Issue 19 item 6: under systemd (`Type=notify`, `WatchdogSec=`) the daemon says `READY=1`
/// once it watches, `WATCHDOG=1` from its loop at least twice per watchdog period, and
/// `STOPPING=1` at a clean stop: read here from a real Unix datagram socket as NOTIFY_SOCKET.
#[cfg(unix)]
#[test]
fn watch_tells_systemd_it_is_ready_and_alive() {
    use std::os::unix::net::UnixDatagram;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("exchange");
    std::fs::create_dir_all(dir.join("inbox")).unwrap();
    // A poll interval longer than the watchdog's: the loop must come round sooner all the same.
    std::fs::write(dir.join("clientbank.toml"), "poll_interval = \"60s\"\n").unwrap();
    let socket_path = root.path().join("notify.sock");
    let socket = UnixDatagram::bind(&socket_path).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(["watch", dir.to_str().unwrap(), "--sandbox"])
        .env("RUST_LOG", "warn")
        .env("NOTIFY_SOCKET", &socket_path)
        // 0.4 s: a WATCHDOG=1 at least every 0.2 s.
        .env("WATCHDOG_USEC", "400000")
        .env_remove("WATCHDOG_PID")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut buffer = [0u8; 512];
    let mut said = Vec::new();
    let started = Instant::now();
    while said.iter().filter(|m: &&String| *m == "WATCHDOG=1").count() < 3 {
        let Ok(n) = socket.recv(&mut buffer) else {
            let _ = child.kill();
            panic!("the daemon stopped telling systemd: {said:?}");
        };
        said.push(String::from_utf8_lossy(&buffer[..n]).into_owned());
    }
    // Three rounds in far less than the poll interval.
    assert!(started.elapsed() < Duration::from_secs(20), "{said:?}");
    assert!(said[0].lines().any(|l| l == "READY=1"), "{said:?}");
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    loop {
        let n = socket.recv(&mut buffer).expect("STOPPING=1 before the end");
        if &buffer[..n] == b"STOPPING=1" {
            break;
        }
    }
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// Issue 19 item 6: the README's systemd unit (between its markers) passes
/// `systemd-analyze verify`, with ExecStart pointing at this build and a folder of the test.
#[test]
fn the_readme_systemd_unit_verifies() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let begin = readme
        .find("<!-- systemd-unit:begin -->")
        .expect("begin marker");
    let end = readme
        .find("<!-- systemd-unit:end -->")
        .expect("end marker");
    let block = &readme[begin..end];
    let unit = block
        .split_once("```ini\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(unit, _)| unit)
        .expect("an ini block between the markers");
    for key in ["Type=notify", "WatchdogSec=", "Restart=on-failure"] {
        assert!(unit.contains(key), "{key} not in the unit:\n{unit}");
    }
    let Ok(analyze) = which("systemd-analyze") else {
        println!("skipped: systemd-analyze not found");
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let unit = unit
        .replace(
            "/usr/local/bin/clientbank",
            env!("CARGO_BIN_EXE_clientbank"),
        )
        .replace("/srv/exchange", root.path().to_str().unwrap())
        // The unit's user need not exist on the machine that runs the tests.
        .replace("User=clientbank\n", "");
    let path = root.path().join("clientbank.service");
    std::fs::write(&path, unit).unwrap();
    let out = Command::new(analyze)
        .args(["verify", "--man=no"])
        .arg(&path)
        .output()
        .unwrap();
    let said = text(&out);
    if said.contains("Failed to initialize manager") || said.contains("Failed to setup") {
        println!("skipped: systemd-analyze cannot run here: {said}");
        return;
    }
    assert!(out.status.success(), "{said}");
    assert!(!said.contains("clientbank.service:"), "{said}");
}

/// `name` on PATH.
fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    let path = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .ok_or(())
}

/// Issue 19 item 8: what stops uploads comes in the run's language, the bank's own reason
/// included — here a bank nobody answers for, under `--lang ru`: the summary and the log line.
#[test]
fn an_unavailable_bank_is_said_in_russian_end_to_end() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("exchange");
    std::fs::create_dir_all(dir.join("inbox")).unwrap();
    // Port 1 on loopback: nobody listens there.
    std::fs::write(
        dir.join("clientbank.toml"),
        "bank_url = \"http://127.0.0.1:1/v1\"\ntoken_file = \"token\"\nsigning = \"manual\"\n\
         once_patience = \"0s\"\nsettle = \"0s\"\n",
    )
    .unwrap();
    std::fs::write(dir.join("token"), "t0ken-for-a-bank-nobody-runs").unwrap();
    let drop = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/drops/1c_to_kl.txt");
    std::fs::copy(drop, dir.join("inbox/1c_to_kl.txt")).unwrap();
    let dir_arg = dir.to_str().unwrap();
    let out = clientbank(
        &["--lang", "ru", "watch", dir_arg, "--once"],
        &[("RUST_LOG", "info")],
    );
    let (said, log) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(3), "{said}\n{log}");
    assert!(said.contains("банк недоступен: "), "{said}");
    assert!(said.contains("никто не принимает"), "{said}");
    assert!(log.contains("пока не отправлен ("), "{log}");
    assert!(
        log.contains("платёж не отправлен: нет соединения с банком"),
        "{log}"
    );
    // Durations in words (`1 с`), not Debug's `1s`.
    assert!(log.contains("следующая попытка через "), "{log}");
    let debug_duration = |text: &str| {
        text.as_bytes()
            .windows(3)
            .any(|w| w[0].is_ascii_digit() && w[1] == b's' && b") ,;".contains(&w[2]))
    };
    assert!(
        !debug_duration(&log) && !debug_duration(&said),
        "{said}\n{log}"
    );
    // Ours in Russian, and the system's own cause in Russian words with its code.
    assert!(
        said.contains("соединение отвергнуто (ошибка системы"),
        "{said}"
    );
    for english in [
        "unavailable",
        "the bank did not take",
        "waits in processing",
        "could not",
        "Connection refused",
        "error sending request",
    ] {
        assert!(!said.contains(english), "{english:?} in {said}");
        assert!(!log.contains(english), "{english:?} in {log}");
    }
    assert!(!said.contains("t0ken") && !log.contains("t0ken"));
}

/// Issue 19: `status` of a folder the user may only read (the accountant's account beside
/// the service's) reads the journal without writing it: with no daemon (no `-shm` file, which
/// the reader may not create) and beside a running daemon. As root (who may write anything)
/// the command runs as `nobody` through `setpriv`.
#[cfg(unix)]
#[test]
fn status_reads_a_journal_the_user_may_only_read() {
    use std::os::unix::fs::PermissionsExt;
    let (root, dir) = demo_folder();
    let d = dir.to_str().unwrap();
    // The tempdir itself is 0700: another user must reach the folder.
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let Some(_) = another_user() else {
        return;
    };
    let status_as_reader = || {
        let out = another_user()
            .unwrap()
            .args(["--lang", "en", "status", d, "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(status["payments"]["signed"], 7, "{status}");
    };
    let mode = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let private = dir.join(".clientbank");
    let journal = private.join("journal.sqlite");
    let before = std::fs::read(&journal).unwrap();
    for entry in std::fs::read_dir(&private).unwrap() {
        mode(&entry.unwrap().path(), 0o444);
    }
    mode(&private, 0o555);
    mode(&dir, 0o555);
    status_as_reader();
    assert!(!private.join("journal.sqlite-shm").exists());
    mode(&dir, 0o755);
    mode(&private, 0o755);
    mode(&journal, 0o644);
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        before,
        "the journal was written"
    );

    // Beside a daemon, which keeps the -shm file while it runs.
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(["watch", d, "--sandbox"])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !private.join("journal.sqlite-shm").exists()
        && started.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    mode(&private, 0o555);
    status_as_reader();
    mode(&private, 0o755);
    let _ = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    let _ = daemon.wait();
}

/// The binary as a user who may not write what this test made: `nobody` through `setpriv`
/// when the tests run as root (who may write anything), else this user. `None` (said) where
/// root cannot run it as nobody.
#[cfg(unix)]
fn another_user() -> Option<Command> {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    if !root {
        let mut command = Command::new(env!("CARGO_BIN_EXE_clientbank"));
        command.env("RUST_LOG", "warn");
        return Some(command);
    }
    let as_nobody = || {
        let mut command = Command::new("setpriv");
        command
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_clientbank"))
            .env("RUST_LOG", "warn");
        command
    };
    if !as_nobody()
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: root here, and `setpriv` cannot run the binary as nobody");
        return None;
    }
    Some(as_nobody())
}

/// Issue 19: `status` of a folder the user may not read says so, in both languages, and
/// exits 2 (`--check`: 2 too, "cannot be read"), never "no journal" or "run watch".
#[cfg(unix)]
#[test]
fn status_of_a_folder_the_user_may_not_read_says_so() {
    use std::os::unix::fs::PermissionsExt;
    let (root, dir) = demo_folder();
    let d = dir.to_str().unwrap();
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    if another_user().is_none() {
        return;
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o311)).unwrap();
    let said: Vec<(Option<i32>, String)> = [
        vec!["--lang", "en", "status", d],
        vec!["--lang", "ru", "status", d],
        vec!["--lang", "en", "status", d, "--check"],
    ]
    .iter()
    .map(|args| {
        let out = another_user().unwrap().args(args).output().unwrap();
        (out.status.code(), text(&out))
    })
    .collect();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    for (code, text) in &said {
        assert_eq!(*code, Some(2), "{text}");
        assert!(
            !text.contains("no journal") && !text.contains("нет журнала"),
            "{text}"
        );
    }
    assert!(
        said[0].1.contains("cannot read") && said[0].1.contains("Permission denied"),
        "{}",
        said[0].1
    );
    assert!(
        said[1].1.contains("не удалось прочитать") && said[1].1.contains("нет доступа"),
        "{}",
        said[1].1
    );
}

/// A folder the service's user may not read is said as such (no access, with the system's
/// reason and what to do), never "no configuration, run init".
#[cfg(unix)]
#[test]
fn a_configuration_the_user_may_not_read_is_not_taken_for_none() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = root.path().join("ex4");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("clientbank.toml"),
        "bank_url = \"http://127.0.0.1:9/v1\"\n",
    )
    .unwrap();
    if another_user().is_none() {
        return;
    }
    let d = dir.to_str().unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o000)).unwrap();
    let said: Vec<(Option<i32>, String)> = ["en", "ru"]
        .iter()
        .map(|lang| {
            let mut command = another_user().unwrap();
            let out = command
                .args(["--lang", lang, "watch", d, "--once"])
                .env("HOME", root.path())
                .output()
                .unwrap();
            (out.status.code(), text(&out))
        })
        .collect();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    for (code, text) in &said {
        assert_eq!(*code, Some(2), "{text}");
        assert!(!text.contains("init"), "{text}");
        assert!(text.contains("clientbank.toml"), "{text}");
    }
    let (en, ru) = (&said[0].1, &said[1].1);
    assert!(
        en.contains("Permission denied") && en.contains("give that user read access"),
        "{en}"
    );
    assert!(
        ru.contains("нет доступа") && ru.contains("дайте ему право на чтение папки"),
        "{ru}"
    );
    assert!(!ru.contains("не задан адрес банка"), "{ru}");
    // The same for the token file's folder.
    let keys = dir.join("keys");
    std::fs::create_dir(&keys).unwrap();
    std::fs::write(keys.join("token.txt"), "token-of-the-cabinet\n").unwrap();
    std::fs::write(
        dir.join("clientbank.toml"),
        "bank_url = \"http://127.0.0.1:9/v1\"\ntoken_file = 'keys/token.txt'\n",
    )
    .unwrap();
    std::fs::set_permissions(&keys, std::fs::Permissions::from_mode(0o000)).unwrap();
    let out = another_user()
        .unwrap()
        .args(["--lang", "ru", "watch", d, "--once"])
        .env("HOME", root.path())
        .output()
        .unwrap();
    std::fs::set_permissions(&keys, std::fs::Permissions::from_mode(0o755)).unwrap();
    let ru = text(&out);
    assert_eq!(out.status.code(), Some(2), "{ru}");
    assert!(
        ru.contains("token_file") && ru.contains("нет доступа") && ru.contains("право на чтение"),
        "{ru}"
    );
}

/// Issue 19: DIR that is a file is refused as such before anything starts (no sandbox bank,
/// no configuration looked for in it), in the user's language.
#[test]
fn watch_refuses_a_file_given_as_its_folder_before_it_starts() {
    let root = tempfile::tempdir().unwrap();
    let file = root.path().join("обмен.txt");
    std::fs::write(&file, "1CClientBankExchange\r\n").unwrap();
    let f = file.to_str().unwrap();
    let env = [("RUST_LOG", "info")];
    for (lang, said) in [
        ("en", "is a file, not a folder"),
        ("ru", "файл, а не папка"),
    ] {
        let out = clientbank(&["--lang", lang, "watch", f, "--sandbox", "--once"], &env);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{all}");
        assert!(all.contains(said), "{all}");
        assert!(!all.contains("sandbox"), "{all}");
        assert!(!all.contains("os error"), "{all}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"1CClientBankExchange\r\n");
}

/// Issue 19 (review): `watch --once` with nothing to send tries the set-up against the bank;
/// a token the bank refuses is said once, with what to do, and a file waits in processing/.
#[test]
fn a_refused_token_is_said_once_with_what_to_do() {
    let (_runtime, bank) = sandbox_bank();
    let url = bank.url();
    let env = [
        ("CLIENTBANK_BASE_URL", url.as_str()),
        ("CLIENTBANK_TOKEN", "not-a-token-of-this-bank"),
    ];
    let (_work, dir) = initialised_folder();
    let d = dir.to_str().unwrap();
    let drops = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/drops");
    // With nothing to send, `--once` tries the set-up: it asks the bank (here `https` to the
    // plain-HTTP bank, then the refused token).
    let https = url.replacen("http://", "https://", 1);
    let tls = [
        ("CLIENTBANK_BASE_URL", https.as_str()),
        ("CLIENTBANK_TOKEN", "cabinet-token-full-rights"),
    ];
    let out = clientbank(&["--lang", "ru", "watch", d, "--once"], &tls);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("неверные настройки"), "{}", text(&out));
    let out = clientbank(&["--lang", "ru", "watch", d, "--once"], &env);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert_eq!(said.matches("не принимает токен").count(), 1, "{said}");
    assert!(said.contains("проверьте токен"), "{said}");
    // With a file, sending it meets the refusal: the summary says it once, with what to do.
    std::fs::copy(drops.join("payments.json"), dir.join("inbox/payments.json")).unwrap();
    let out = clientbank(&["--lang", "ru", "watch", d, "--once"], &env);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(said.matches("не принимает токен").count(), 1, "{said}");
    assert!(said.contains("выпустите новый токен"), "{said}");
    assert_eq!(files(&dir, "processing"), ["payments.json"]);
    assert!(bank.control().payments().is_empty());
    // A daemon that meets it (the token revoked under it) says it once a line too.
    std::fs::rename(
        dir.join("processing/payments.json"),
        dir.join("inbox/payments.json"),
    )
    .unwrap();
    let daemon = Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(["--lang", "ru", "watch", d])
        .envs(env)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while files(&dir, "processing").is_empty() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    let out = daemon.wait_with_output().unwrap();
    let said = text(&out);
    assert_eq!(files(&dir, "processing"), ["payments.json"], "{said}");
    for line in said.lines().filter(|l| l.contains("токен")) {
        assert_eq!(line.matches("не принимает токен").count(), 1, "{line}");
    }
}

/// Issue 19 (review): a folder tried with `--sandbox` and then pointed at the bank must not
/// take the payments it sent to the built-in sandbox bank for paid: the run is refused before
/// anything is sent, saying to use a folder of its own.
#[test]
fn a_folder_tried_with_the_sandbox_is_refused_by_the_real_bank() {
    let (_work, dir) = initialised_folder();
    let d = dir.to_str().unwrap();
    let drops = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/drops");
    std::fs::copy(drops.join("payments.json"), dir.join("inbox/a.json")).unwrap();
    let tried = clientbank(&["watch", d, "--once", "--sandbox"], &[]);
    assert_eq!(
        files(&dir, "done").first().map(String::as_str),
        Some("a.json"),
        "{}",
        text(&tried)
    );
    let (_runtime, bank) = sandbox_bank();
    let url = bank.url();
    let env = [
        ("CLIENTBANK_BASE_URL", url.as_str()),
        ("CLIENTBANK_TOKEN", "cabinet-token-full-rights"),
    ];
    std::fs::copy(drops.join("payments.json"), dir.join("inbox/b.json")).unwrap();
    let out = clientbank(&["--lang", "ru", "watch", d, "--once"], &env);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("в отдельной папке"), "{}", text(&out));
    assert!(bank.control().payments().is_empty());
    assert_eq!(files(&dir, "inbox"), ["b.json"]);
    let upload = clientbank(
        &[
            "upload",
            dir.join("inbox/b.json").to_str().unwrap(),
            "--dir",
            d,
        ],
        &env,
    );
    assert_eq!(upload.status.code(), Some(2), "{}", text(&upload));
    assert!(bank.control().payments().is_empty());
}

/// Issue 19 (review): the health probe says what most needs a person while the daemon runs:
/// a token the bank refuses (an error not fixed, its file waiting) and a file left in
/// rejected/.
#[test]
fn the_health_probe_sees_a_refused_token_and_a_rejected_file() {
    let (_runtime, bank) = sandbox_bank();
    let url = bank.url();
    let (_work, dir) = initialised_folder();
    let d = dir.to_str().unwrap();
    let drops = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/drops");
    std::fs::copy(drops.join("payments.json"), dir.join("inbox/payments.json")).unwrap();
    std::fs::copy(
        drops.join("with-error.txt"),
        dir.join("inbox/with-error.txt"),
    )
    .unwrap();
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_clientbank"))
        .args(["watch", d])
        .env("CLIENTBANK_BASE_URL", &url)
        .env("CLIENTBANK_TOKEN", "not-a-token-of-this-bank")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let probe = loop {
        // The file with an error is rejected although the bank refuses the token (that needs
        // no bank); the good one waits.
        let out = clientbank(&["--lang", "ru", "status", d, "--check", "--json"], &[]);
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let attention = value["attention"].to_string();
        let seen = attention.contains("rejected/") && attention.contains("token");
        if seen || started.elapsed() > Duration::from_secs(30) {
            break (out.status.code(), value);
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let said = clientbank(&["--lang", "ru", "status", d, "--check"], &[]);
    let _ = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    let _ = daemon.wait();
    let (code, value) = probe;
    assert_eq!(code, Some(1), "{value}");
    assert_eq!(value["running"], true, "{value}");
    let attention = value["attention"].to_string();
    assert!(attention.contains("1 file(s) in rejected/"), "{attention}");
    assert!(attention.contains("error(s) not fixed yet"), "{attention}");
    assert!(dir.join("rejected/with-error.txt").exists());
    assert!(dir.join("processing/payments.json").exists());
    assert!(
        text(&said).contains("неисправленных ошибок"),
        "{}",
        text(&said)
    );
    assert!(
        text(&said).contains("не принимает токен"),
        "{}",
        text(&said)
    );
}

/// Issue 19 (review): a journal the daemon's user may not write is refused at start, saying
/// what to do, before anything is claimed (not "the journal cannot be written" after a file
/// was taken, nor a retry of 100 s).
#[cfg(unix)]
#[test]
fn a_journal_the_user_may_not_write_is_refused_at_start() {
    use std::os::unix::fs::PermissionsExt;
    let (root, dir) = demo_folder();
    let d = dir.to_str().unwrap();
    let mode = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    mode(root.path(), 0o755);
    if another_user().is_none() {
        return;
    }
    // Every folder writable by anyone; the journal alone read-only.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            mode(&path, 0o777);
        }
    }
    mode(&dir, 0o777);
    let journal = dir.join(".clientbank/journal.sqlite");
    mode(&journal, 0o444);
    let lock = dir.join(".clientbank/lock");
    mode(&lock, 0o666);
    let drops = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/drops");
    std::fs::copy(drops.join("payments.json"), dir.join("inbox/again.json")).unwrap();
    mode(&dir.join("inbox/again.json"), 0o666);
    let out = another_user()
        .unwrap()
        .args(["--lang", "ru", "watch", d, "--once", "--sandbox"])
        .env("HOME", root.path())
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .unwrap();
    mode(&journal, 0o644);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("не может записывать"), "{}", text(&out));
    assert!(text(&out).contains("право записи"), "{}", text(&out));
    assert_eq!(files(&dir, "inbox"), ["again.json"]);
    assert!(files(&dir, "processing").is_empty());
}

/// Issue 19 (review): `status` of a damaged journal gives the same advice as `watch` (restore
/// it, or start anew); `status --check --json` stays JSON for the monitor, with exit 2.
#[test]
fn status_of_a_damaged_journal_says_what_to_do() {
    let (_root, dir) = demo_folder();
    let d = dir.to_str().unwrap();
    std::fs::write(
        dir.join(".clientbank/journal.sqlite"),
        b"this is no database but a text of some length, written over the journal",
    )
    .unwrap();
    let out = clientbank(&["--lang", "ru", "status", d], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("резервной копии"), "{}", text(&out));
    let probe = clientbank(&["status", d, "--check", "--json"], &[]);
    assert_eq!(probe.status.code(), Some(2), "{}", text(&probe));
    let value: serde_json::Value = serde_json::from_slice(&probe.stdout).unwrap();
    assert_eq!(value["exit"], 2, "{value}");
    assert!(
        value["attention"][0].as_str().unwrap().contains("backup"),
        "{value}"
    );
}

/// A part of an exchange folder given for the folder (its inbox, its done/, its configuration
/// file) is said so, with the folder to give: not "no configuration: run init" (which would
/// make an exchange folder inside the inbox), nor "no journal", nor "move the file away".
#[test]
fn a_part_of_an_exchange_folder_is_not_taken_for_one() {
    let (_work, dir) = initialised_folder();
    let d = dir.display().to_string();
    let part = |name: &str| dir.join(name).display().to_string();
    for args in [
        vec!["watch".to_string(), part("inbox"), "--once".into()],
        vec!["status".into(), part("done")],
        vec!["sign".into(), "--dir".into(), part("review")],
        vec!["init".into(), part("outbox")],
        vec!["watch".into(), part("clientbank.toml"), "--once".into()],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = clientbank(&args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let said = text(&out);
        assert!(
            said.contains(&format!("give the folder it is in, {d}"))
                || said.contains(&format!("give {d} itself")),
            "{args:?}: {said}"
        );
        assert!(
            !said.contains("init") || args[0] == "init",
            "{args:?}: {said}"
        );
    }
    assert!(!dir.join("outbox/clientbank.toml").exists());
    assert!(!dir.join("inbox/.clientbank").exists());
}

/// A folder the user may read but not write: `watch` says what to do (the service's user needs
/// the right to read and write the exchange folder), in both languages, for any file the
/// system refuses — here the lock, the first file it opens for writing.
#[cfg(unix)]
#[test]
fn a_folder_the_user_may_not_write_says_what_to_do() {
    use std::os::unix::fs::PermissionsExt;
    let (work, dir) = initialised_folder();
    let mode = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    mode(work.path(), 0o755);
    let Some(_) = another_user() else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    mode(home.path(), 0o777);
    // Read-only for everyone (a user who is not root runs the binary as itself).
    let private = dir.join(".clientbank");
    for entry in std::fs::read_dir(&private).unwrap() {
        mode(&entry.unwrap().path(), 0o444);
    }
    mode(&private, 0o555);
    mode(&dir, 0o555);
    let d = dir.to_str().unwrap();
    for (lang, said) in [
        ("en", "the right to read and write the exchange folder"),
        ("ru", "права на чтение и запись папки обмена"),
    ] {
        let out = another_user()
            .unwrap()
            .args(["--lang", lang, "watch", d, "--once", "--sandbox"])
            .env("HOME", home.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains(said), "{}", text(&out));
    }
    mode(&dir, 0o755);
    mode(&private, 0o755);
}
