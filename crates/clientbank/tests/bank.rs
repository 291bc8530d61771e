//! The bank at the terminal, through the binary, against the sandbox bank on loopback:
//! `login` end to end (the test plays the browser), an expired code, a code used twice, a wrong
//! `state`, `logout`, and `accounts`, `balance`, `history` in every format, compared with what
//! the API itself returns.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::str::FromStr;
use std::sync::mpsc;
use std::time::Duration;

use chrono::NaiveDate;
use clientbank_api::{Client, Token, TokenRequest};
use clientbank_sandbox::{Config, Sandbox};
use rust_decimal::Decimal;
use serde_json::Value;

/// The binary with an environment that names only what the test gives it: no token, no bank,
/// the user's folders inside `home` (so the login token file is the test's own).
fn command(args: &[&str], home: &Path, env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clientbank"));
    command
        .args(args)
        .env_remove("CLIENTBANK_TOKEN")
        .env_remove("CLIENTBANK_BASE_URL")
        .env_remove("CLIENTBANK_ROOT_CA")
        .env_remove("CLIENTBANK_CLIENT_SECRET")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("HOME", home.join("home"))
        .env("XDG_CONFIG_HOME", home.join("xdg"))
        .env("APPDATA", home.join("appdata"))
        .env("LANG", "C")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("RUST_LOG", "warn");
    for (k, v) in env {
        command.env(k, v);
    }
    command
}

fn clientbank(args: &[&str], home: &Path, env: &[(&str, &str)]) -> Output {
    command(args, home, env).output().unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Where `login` stores the token by default inside the test's `home`.
fn default_token_file(home: &Path) -> PathBuf {
    if cfg!(windows) {
        home.join("appdata").join("clientbank").join("token")
    } else if cfg!(target_os = "macos") {
        home.join("home/Library/Application Support/clientbank/token")
    } else {
        home.join("xdg").join("clientbank").join("token")
    }
}

/// A plain HTTP/1.1 GET to a loopback address, as a browser that does not follow redirects:
/// the status, the `Location` header and the body.
fn get(url: &str) -> (u16, Option<String>, String) {
    let rest = url.strip_prefix("http://").expect("http:// address");
    let (authority, target) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let target = if target.is_empty() { "/" } else { target };
    let mut stream = TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "GET {target} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let location = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("location")
            .then(|| value.trim().to_string())
    });
    (status, location, body.to_string())
}

/// A loopback port free right now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A sandbox bank whose `sandboxapp` has a redirect address on a free port, and a folder whose
/// clientbank.toml points at it with that `[app]`.
struct LoginSetup {
    runtime: tokio::runtime::Runtime,
    bank: Sandbox,
    dir: tempfile::TempDir,
    redirect: String,
}

impl LoginSetup {
    fn new() -> LoginSetup {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let redirect = format!("http://127.0.0.1:{}/callback", free_port());
        let bank = runtime
            .block_on(Sandbox::start(Config {
                redirect_uri: redirect.clone(),
                ..Config::default()
            }))
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("secret.txt"), "sandboxappsecret\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(
                dir.path().join("secret.txt"),
                std::fs::Permissions::from_mode(0o600),
            )
            .unwrap();
        }
        std::fs::write(
            dir.path().join("clientbank.toml"),
            format!(
                "bank_url = \"{}\"\n\n[app]\nclient_id = \"sandboxapp\"\n\
                 client_secret_file = \"secret.txt\"\nredirect_uri = \"{redirect}\"\n",
                bank.url()
            ),
        )
        .unwrap();
        LoginSetup {
            runtime,
            bank,
            dir,
            redirect,
        }
    }

    fn home(&self) -> &Path {
        self.dir.path()
    }

    fn dir_arg(&self) -> String {
        self.dir.path().display().to_string()
    }

    /// `clientbank login` started; returns the child and the authorize address it printed.
    fn start_login(&self) -> (Child, String, mpsc::Receiver<String>) {
        let mut child = command(
            &[
                "login",
                "--dir",
                &self.dir_arg(),
                "--no-browser",
                "--timeout",
                "60",
            ],
            self.home(),
            &[],
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (lines, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        let mut seen = Vec::new();
        let url = loop {
            let line = receiver
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no address printed: {seen:?}"));
            if let Some(url) = line.trim().strip_prefix("http://") {
                break format!("http://{url}");
            }
            seen.push(line);
        };
        (child, url, receiver)
    }

    /// The browser at the bank: the authorize address answers 302 to the redirect with a code.
    fn authorize(&self, url: &str) -> String {
        assert!(url.starts_with(&self.bank.url()), "{url}");
        let (status, location, body) = get(url);
        assert_eq!(status, 302, "{body}");
        let location = location.unwrap();
        assert!(location.starts_with(&self.redirect), "{location}");
        location
    }
}

/// The rest of the child's stderr and its stdout, once it has ended.
fn finish(mut child: Child, lines: mpsc::Receiver<String>) -> (Option<i32>, String, String) {
    let status = child.wait().unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let stderr: Vec<String> = lines.iter().collect();
    (status.code(), stdout, stderr.join("\n"))
}

fn param(url: &str, name: &str) -> String {
    let query = url.split_once('?').unwrap().1;
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
        .unwrap()
        .to_string()
}

#[test]
fn login_end_to_end_then_accounts_then_logout() {
    let setup = LoginSetup::new();
    let (child, url, lines) = setup.start_login();
    // The address asks the bank for the default rights and carries a long random state.
    assert!(url.contains("model.clientId=sandboxapp"), "{url}");
    assert!(
        url.contains("model.scope=account-info+operation-history+money-transfer"),
        "{url}"
    );
    let state = param(&url, "model.state");
    assert_eq!(state.len(), 64, "{url}");
    let location = setup.authorize(&url);
    let (status, _, page) = get(&location);
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("Вход выполнен") && page.contains("Signed in"),
        "{page}"
    );
    let (code, stdout, stderr) = finish(child, lines);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let file = default_token_file(setup.home());
    assert!(stdout.contains("logged in"), "{stdout}");
    assert!(stdout.contains(&file.display().to_string()), "{stdout}");
    // The token is in the user's config folder, only the user can read it, and it never
    // showed on the terminal.
    let token = std::fs::read_to_string(&file).unwrap();
    let token = token.trim().to_string();
    assert_eq!(token.len(), 64, "one line, the token alone");
    assert!(!stdout.contains(&token) && !stderr.contains(&token));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    // The stored token works: `accounts` reads it with no token configured, and sees what the
    // API shows it.
    let api = Client::builder(setup.bank.url())
        .token(Token::new(token.clone()))
        .build()
        .unwrap();
    let expected = setup.runtime.block_on(api.accounts()).unwrap();
    let out = clientbank(
        &["accounts", "--dir", &setup.dir_arg(), "--json"],
        setup.home(),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let accounts: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(accounts.len(), expected.len());
    assert!(expected.len() >= 2);
    // logout revokes it at the bank and removes the file.
    let out = clientbank(&["logout", "--dir", &setup.dir_arg()], setup.home(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("the bank revoked the token"),
        "{}",
        text(&out)
    );
    assert!(!file.exists());
    let refused = setup.runtime.block_on(api.accounts()).unwrap_err();
    assert!(
        matches!(refused, clientbank_api::Error::Unauthorized { .. }),
        "{refused:?}"
    );
    // Without the file there is no token: said, with how to get one (exit 2).
    let out = clientbank(&["accounts", "--dir", &setup.dir_arg()], setup.home(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("clientbank login"), "{}", text(&out));
    // The revoked token put back: logout says the bank already took it as invalid, and
    // removes the file all the same.
    std::fs::write(&file, format!("{token}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let out = clientbank(&["logout", "--dir", &setup.dir_arg()], setup.home(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("already invalid"), "{}", text(&out));
    assert!(!file.exists());
    // And with nothing stored, logout has nothing to do.
    let out = clientbank(&["logout", "--dir", &setup.dir_arg()], setup.home(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("not logged in"), "{}", text(&out));
}

/// Issue 19 item 4: `login` gives the hints every bank command gives, before it prints an
/// address that cannot work: a bank_url without /v1, https to the plain-HTTP bank.
#[test]
fn login_tries_the_address_first() {
    let setup = LoginSetup::new();
    let config = setup.dir.path().join("clientbank.toml");
    let written = std::fs::read_to_string(&config).unwrap();
    let url = setup.bank.url();
    for (address, hint) in [
        (url.trim_end_matches("/v1").to_string(), "ending in /v1"),
        (
            url.replace("http://", "https://"),
            "answers plain HTTP, not HTTPS",
        ),
    ] {
        std::fs::write(&config, written.replace(&url, &address)).unwrap();
        let args = [
            "--lang",
            "en",
            "login",
            "--dir",
            &setup.dir_arg(),
            "--no-browser",
        ];
        let out = clientbank(&args, setup.home(), &[]);
        assert_eq!(out.status.code(), Some(2), "{address}: {}", text(&out));
        assert!(text(&out).contains(hint), "{address}: {}", text(&out));
        assert!(!text(&out).contains("oauth/authorize"), "{}", text(&out));
        // A known cause said whole, without the network library's chain.
        assert!(!text(&out).contains("InvalidContentType"), "{}", text(&out));
    }
}

#[test]
fn an_expired_code_is_refused_with_the_message() {
    let setup = LoginSetup::new();
    let (child, url, lines) = setup.start_login();
    let location = setup.authorize(&url);
    // The browser takes more than the code's minute to come back.
    setup
        .bank
        .control()
        .advance_clock(chrono::Duration::seconds(61))
        .unwrap();
    let (status, _, page) = get(&location);
    assert_eq!(status, 400, "{page}");
    assert!(page.contains("Sign-in failed"), "{page}");
    let (code, stdout, stderr) = finish(child, lines);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains("error: the code expired; run clientbank login again"),
        "{stderr}"
    );
    assert!(!default_token_file(setup.home()).exists());
}

#[test]
fn a_code_used_twice_is_refused_by_the_bank_and_by_login() {
    let setup = LoginSetup::new();
    // API level: the same code exchanged twice.
    let anonymous = Client::builder(setup.bank.url()).build().unwrap();
    let url = anonymous
        .authorize_url("sandboxapp", &setup.redirect, &["account-info"], "s")
        .unwrap();
    let location = setup.authorize(url.as_str());
    let request = TokenRequest {
        client_id: "sandboxapp".into(),
        client_secret: "sandboxappsecret".into(),
        redirect_uri: setup.redirect.clone(),
        code: param(&location, "code"),
    };
    let first = setup.runtime.block_on(anonymous.exchange_code(&request));
    assert!(first.is_ok(), "{first:?}");
    let second = setup
        .runtime
        .block_on(anonymous.exchange_code(&request))
        .unwrap_err();
    assert_eq!(second.status(), Some(400), "{second:?}");
    assert!(second.to_string().contains("использован"), "{second}");
    // Through login: someone spent the code before the browser came back.
    let (child, url, lines) = setup.start_login();
    let location = setup.authorize(&url);
    let request = TokenRequest {
        code: param(&location, "code"),
        ..request
    };
    setup
        .runtime
        .block_on(anonymous.exchange_code(&request))
        .unwrap();
    let (status, _, _) = get(&location);
    assert_eq!(status, 400);
    let (code, stdout, stderr) = finish(child, lines);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(stderr.contains("the code was already used"), "{stderr}");
    assert!(!default_token_file(setup.home()).exists());
}

#[test]
fn a_wrong_state_or_a_stray_request_is_refused_and_the_sign_in_goes_on() {
    let setup = LoginSetup::new();
    let (child, url, lines) = setup.start_login();
    let location = setup.authorize(&url);
    let state = param(&url, "model.state");
    let forged = location.replace(&state, "0123456789abcdef");
    assert_ne!(forged, location);
    // A redirect with another state, and a stray request without any: refused, and neither
    // ends the flow nor spends a code.
    let (status, _, page) = get(&forged);
    assert_eq!(status, 400, "{page}");
    let stray = location.split('?').next().unwrap().to_string();
    let (status, _, _) = get(&stray);
    assert_eq!(status, 400);
    let anonymous = Client::builder(setup.bank.url()).build().unwrap();
    let request = TokenRequest {
        client_id: "sandboxapp".into(),
        client_secret: "sandboxappsecret".into(),
        redirect_uri: setup.redirect.clone(),
        code: param(&forged, "code"),
    };
    // The bank's own redirect still completes the sign-in.
    let (status, _, page) = get(&location);
    assert_eq!(status, 200, "{page}");
    let (code, stdout, stderr) = finish(child, lines);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(stderr.matches("state mismatch").count(), 2, "{stderr}");
    assert!(default_token_file(setup.home()).exists());
    // The forged redirect carried the same code: login exchanged it once, for itself.
    assert!(
        setup
            .runtime
            .block_on(anonymous.exchange_code(&request))
            .is_err()
    );
}

#[test]
fn login_refuses_what_it_cannot_do_and_says_what_to_do_instead() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().display().to_string();
    let write = |config: &str| std::fs::write(home.path().join("clientbank.toml"), config).unwrap();
    // No [app]: how to put a cabinet token instead.
    write("bank_url = \"http://127.0.0.1:9/v1\"\n");
    let out = clientbank(&["login", "--dir", &dir, "--no-browser"], home.path(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("[app]") && text(&out).contains("CLIENTBANK_TOKEN"),
        "{}",
        text(&out)
    );
    // An [app] without its secret: the same advice.
    write(
        "bank_url = \"http://127.0.0.1:9/v1\"\n[app]\nclient_id = \"x\"\n\
         redirect_uri = \"http://127.0.0.1:8080/cb\"\n",
    );
    let out = clientbank(&["login", "--dir", &dir, "--no-browser"], home.path(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("client secret") && text(&out).contains("token_file"),
        "{}",
        text(&out)
    );
    // The secret from the environment, but a redirect off this computer: refused before
    // anything is sent.
    write(
        "bank_url = \"http://127.0.0.1:9/v1\"\n[app]\nclient_id = \"x\"\n\
         redirect_uri = \"http://192.0.2.7:8080/cb\"\n",
    );
    let out = clientbank(
        &["login", "--dir", &dir, "--no-browser"],
        home.path(),
        &[("CLIENTBANK_CLIENT_SECRET", "s3cret-word")],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("redirect_uri"), "{}", text(&out));
    assert!(!text(&out).contains("s3cret-word"));
    // In Russian too.
    let out = clientbank(
        &["--lang", "ru", "login", "--dir", &dir, "--no-browser"],
        home.path(),
        &[("CLIENTBANK_CLIENT_SECRET", "s3cret-word")],
    );
    assert!(
        text(&out).contains("ошибка: [app] redirect_uri"),
        "{}",
        text(&out)
    );
}

#[test]
fn login_times_out_when_the_browser_never_comes_back() {
    let setup = LoginSetup::new();
    let out = clientbank(
        &[
            "login",
            "--dir",
            &setup.dir_arg(),
            "--no-browser",
            "--timeout",
            "1",
        ],
        setup.home(),
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("timeout"), "{}", text(&out));
}

/// Issue 19 item 5: with its output in pipes (a service log, `| tee`), `login --no-browser`
/// shows the sign-in address at once, while it waits for the browser, not at its exit. The
/// lines of both streams are read as they come, with a deadline, and the child is killed after.
fn address_seen_before_exit(mut child: Child) -> String {
    let (lines, receiver) = mpsc::channel();
    let streams: [Box<dyn Read + Send>; 2] = [
        Box::new(child.stdout.take().unwrap()),
        Box::new(child.stderr.take().unwrap()),
    ];
    for stream in streams {
        let lines = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { break };
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    let found = loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match receiver.recv_timeout(left) {
            Ok(line) if line.trim().starts_with("http://") => break Some(line.trim().to_string()),
            Ok(line) => seen.push(line),
            Err(_) => break None,
        }
    };
    // Still waiting for the browser: the address came before the end, not with it.
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    let url = found.unwrap_or_else(|| panic!("no address printed in time: {seen:?}"));
    assert!(running, "login had already ended when its address was read");
    assert!(url.contains("/authorize"), "{url}");
    url
}

#[test]
fn login_no_browser_prints_the_address_at_once_into_a_pipe() {
    let setup = LoginSetup::new();
    let spawn = |args: &[&str]| {
        command(args, setup.home(), &[])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let dir = setup.dir_arg();
    let configured = spawn(&["login", "--dir", &dir, "--no-browser", "--timeout", "600"]);
    let url = address_seen_before_exit(configured);
    assert!(url.starts_with(&setup.bank.url()), "{url}");
    // The built-in sandbox bank, and in Russian: the same.
    let sandbox = spawn(&[
        "--lang",
        "ru",
        "login",
        "--sandbox",
        "--dir",
        &dir,
        "--no-browser",
        "--timeout",
        "600",
    ]);
    address_seen_before_exit(sandbox);
}

// --- accounts, balance, history -------------------------------------------------------------

/// A sandbox bank and the environment of a cabinet token for it (outside sandbox mode, so the
/// bank filters the history itself).
struct Bank {
    runtime: tokio::runtime::Runtime,
    bank: Sandbox,
    api: Client,
    home: tempfile::TempDir,
}

impl Bank {
    fn new() -> Bank {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let bank = runtime.block_on(Sandbox::start(Config::default())).unwrap();
        let api = Client::builder(bank.url())
            .token(Token::new("cabinet-token-full-rights"))
            .build()
            .unwrap();
        Bank {
            runtime,
            bank,
            api,
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        let url = self.bank.url();
        let mut all = args.to_vec();
        let dir = self.home.path().display().to_string();
        all.extend(["--dir", &dir]);
        clientbank(
            &all,
            self.home.path(),
            &[
                ("CLIENTBANK_BASE_URL", &url),
                ("CLIENTBANK_TOKEN", "cabinet-token-full-rights"),
            ],
        )
    }
}

fn decimal(value: &Value) -> Decimal {
    // Amounts are JSON numbers written exactly.
    assert!(value.is_number(), "{value}");
    Decimal::from_str(&value.to_string()).unwrap()
}

#[test]
fn accounts_in_table_json_and_csv_match_the_api() {
    let bank = Bank::new();
    let companies = bank.runtime.block_on(bank.api.companies()).unwrap();
    let expected: Vec<_> = companies
        .iter()
        .flat_map(|c| c.bank_accounts.iter().map(move |a| (c, a)))
        .collect();
    let total: Decimal = expected.iter().map(|(_, a)| a.balance).sum();
    assert!(expected.len() > 5 && total > Decimal::ZERO);

    let out = bank.run(&["accounts", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), expected.len());
    for (row, (company, account)) in rows.iter().zip(&expected) {
        assert_eq!(row["company_id"], company.company_id.as_str());
        assert_eq!(row["company"], company.company_name.as_deref().unwrap());
        assert_eq!(row["inn"], company.inn.as_deref().unwrap());
        assert_eq!(row["account_id"], account.id.as_str());
        assert_eq!(row["number"], account.number.as_deref().unwrap());
        assert_eq!(row["currency"], account.currency.as_ref().unwrap().as_str());
        assert_eq!(row["status"], account.status.as_ref().unwrap().as_str());
        assert_eq!(decimal(&row["balance"]), account.balance);
    }
    assert_eq!(
        rows.iter().map(|r| decimal(&r["balance"])).sum::<Decimal>(),
        total
    );

    let out = bank.run(&["accounts", "--csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let mut reader = excel_csv(&out.stdout);
    let header = reader.headers().unwrap().clone();
    assert_eq!(&header[0], "company_id");
    assert_eq!(&header[10], "balance");
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), expected.len());
    let csv_total: Decimal = records
        .iter()
        .map(|r| Decimal::from_str(&r[10]).unwrap())
        .sum();
    assert_eq!(csv_total, total);
    // A company name with quotes survives CSV quoting.
    assert!(records.iter().any(|r| r[1].contains('"')));
    // An account's 20 digits as text Excel keeps (`="…"`), never a number it would round.
    for (record, (_, account)) in records.iter().zip(&expected) {
        let number = account.number.as_deref().unwrap();
        assert_eq!(&record[5], format!("=\"{number}\""), "{record:?}");
    }

    let out = bank.run(&["accounts"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("company") && lines[0].contains("balance"));
    assert_eq!(lines.len(), expected.len() + 2, "{table}");
    for (line, (_, account)) in lines[1..].iter().zip(&expected) {
        assert!(line.contains(account.number.as_deref().unwrap()), "{line}");
        assert!(line.contains(&account.balance.to_string()), "{line}");
    }
    assert!(
        table.contains(&format!(
            "{} account(s) of {} company(ies)",
            expected.len(),
            companies.len()
        )),
        "{table}"
    );
}

#[test]
fn balance_by_number_and_id_now_and_on_a_day() {
    let bank = Bank::new();
    let accounts = bank.runtime.block_on(bank.api.accounts()).unwrap();
    let (_, account) = &accounts[0];
    let number = account.number.clone().unwrap();
    let now = bank
        .runtime
        .block_on(bank.api.balance(&account.id))
        .unwrap();
    let day = NaiveDate::from_ymd_opt(2026, 7, 15).unwrap();
    let then = bank
        .runtime
        .block_on(bank.api.balance_on(&account.id, day))
        .unwrap();
    assert_ne!(now, then, "the sandbox's history moves the balance");

    let out = bank.run(&["balance", &number, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["account_id"], account.id.as_str());
    assert_eq!(json["number"], number.as_str());
    assert_eq!(json["on"], Value::Null);
    assert_eq!(decimal(&json["balance"]), now);

    let out = bank.run(&["balance", &account.id, "--on", "15.07.2026", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["on"], "2026-07-15");
    assert_eq!(decimal(&json["balance"]), then);

    let out = bank.run(&["balance", &number, "--on", "2026-07-15"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{number} RUR: balance on 15.07.2026: {then}\n")
    );
    let out = bank.run(&["--lang", "ru", "balance", &number]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{number} RUR: остаток сейчас: {now}\n")
    );

    // An account the token does not see: exit 2, named.
    let out = bank.run(&["balance", "40702810000000000000"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("40702810000000000000"),
        "{}",
        text(&out)
    );
}

#[test]
fn history_across_pages_in_table_json_and_csv_matches_the_api() {
    let bank = Bank::new();
    let accounts = bank.runtime.block_on(bank.api.accounts()).unwrap();
    let (_, account) = &accounts[0];
    let number = account.number.clone().unwrap();
    let (from, till) = (
        NaiveDate::from_ymd_opt(2026, 7, 1).unwrap(),
        NaiveDate::from_ymd_opt(2026, 8, 31).unwrap(),
    );
    let expected = bank
        .runtime
        .block_on(bank.api.operations_between(&account.id, from, till))
        .unwrap();
    assert!(
        expected.len() > 50,
        "paging is exercised: {}",
        expected.len()
    );
    let sum = |direction: &str| -> Decimal {
        expected
            .iter()
            .filter(|op| {
                op.category.as_ref().map(|c| c.as_str())
                    == Some(if direction == "in" { "Debet" } else { "Credit" })
            })
            .filter_map(|op| op.amount)
            .sum()
    };
    let (incoming, outgoing) = (sum("in"), sum("out"));
    assert!(incoming > Decimal::ZERO && outgoing > Decimal::ZERO);

    let out = bank.run(&[
        "history",
        &number,
        "--from",
        "01.07.2026",
        "--till",
        "31.08.2026",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), expected.len());
    for (row, op) in rows.iter().zip(&expected) {
        assert_eq!(row["id"], op.id.as_str());
        assert_eq!(decimal(&row["amount"]), op.amount.unwrap());
        assert_eq!(row["doc_number"], op.doc_number.as_deref().unwrap());
        // A cancelled operation has no execution time: listed on the day it was made.
        let executed = op
            .executed
            .map(|at| at.format("%Y-%m-%dT%H:%M:%S").to_string());
        assert_eq!(row["executed"].as_str().map(str::to_string), executed);
        let day = op.executed.or(op.created).unwrap().date();
        assert!(day >= from && day <= till);
    }
    let json_sum = |direction: &str| -> Decimal {
        rows.iter()
            .filter(|r| r["direction"] == direction)
            .map(|r| decimal(&r["amount"]))
            .sum()
    };
    assert_eq!((json_sum("in"), json_sum("out")), (incoming, outgoing));

    let out = bank.run(&[
        "history",
        &account.id,
        "--from",
        "2026-07-01",
        "--till",
        "2026-08-31",
        "--csv",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let mut reader = excel_csv(&out.stdout);
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header,
        [
            "executed",
            "direction",
            "amount",
            "currency",
            "doc_number",
            "counterparty",
            "counterparty_inn",
            "counterparty_account",
            "purpose",
            "status",
            "id"
        ]
    );
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), expected.len());
    let csv_in: Decimal = records
        .iter()
        .filter(|r| &r[1] == "in")
        .map(|r| Decimal::from_str(&r[2]).unwrap())
        .sum();
    assert_eq!(csv_in, incoming);
    // Full texts in CSV (the table cuts long ones).
    for (record, op) in records.iter().zip(&expected) {
        assert_eq!(&record[8], op.payment_purpose.as_deref().unwrap_or(""));
    }
    // As Russian Excel reads it: a date and time it takes for one, the direction and the
    // state in words, a decimal comma.
    let out = bank.run(&[
        "--lang",
        "ru",
        "history",
        &number,
        "--from",
        "2026-07-01",
        "--till",
        "2026-08-31",
        "--csv",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let mut reader = excel_csv(&out.stdout);
    let ru: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    for (record, op) in ru.iter().zip(&expected) {
        if let Some(at) = op.executed {
            assert_eq!(&record[0], at.format("%d.%m.%Y %H:%M:%S").to_string());
        }
        assert!(["приход", "расход"].contains(&&record[1]), "{record:?}");
        assert!(!record[9].is_empty(), "{record:?}");
        assert_ne!(&record[9], "Executed", "{record:?}");
        assert!(!record[2].contains('.'), "a decimal comma: {record:?}");
    }

    let out = bank.run(&[
        "history",
        &number,
        "--from",
        "01.07.2026",
        "--till",
        "31.08.2026",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    assert_eq!(table.lines().count(), expected.len() + 3, "{table}");
    assert!(
        table.contains(&format!(
            "{} operation(s): in {incoming}, out {outgoing}",
            expected.len()
        )),
        "{table}"
    );

    // A reversed period is a usage error.
    let out = bank.run(&[
        "history",
        &number,
        "--from",
        "31.08.2026",
        "--till",
        "01.07.2026",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn sandbox_flag_works_on_a_fresh_clone_and_filters_the_period_itself() {
    // No configuration, no token: the built-in sandbox bank and its fixed token, whose
    // sandbox mode ignores the period; the command applies it.
    let bank = Bank::new();
    let accounts = bank.runtime.block_on(bank.api.accounts()).unwrap();
    let number = accounts[0].1.number.clone().unwrap();
    let expected = bank
        .runtime
        .block_on(bank.api.operations_between(
            &accounts[0].1.id,
            NaiveDate::from_ymd_opt(2026, 7, 1).unwrap(),
            NaiveDate::from_ymd_opt(2026, 7, 31).unwrap(),
        ))
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().display().to_string();
    let out = clientbank(
        &["accounts", "--sandbox", "--dir", &dir, "--json"],
        home.path(),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), accounts.len());
    let out = clientbank(
        &[
            "history",
            &number,
            "--sandbox",
            "--dir",
            &dir,
            "--from",
            "01.07.2026",
            "--till",
            "31.07.2026",
            "--json",
        ],
        home.path(),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), expected.len());
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let expected_ids: Vec<&str> = expected.iter().map(|op| op.id.as_str()).collect();
    assert_eq!(ids, expected_ids);
}

#[test]
fn exit_codes_unavailable_3_refused_1() {
    let bank = Bank::new();
    bank.bank.control().set_maintenance(true);
    let out = bank.run(&["accounts"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        text(&out).contains("error: the bank is unavailable"),
        "{}",
        text(&out)
    );
    bank.bank.control().set_maintenance(false);
    let url = bank.bank.url();
    let dir = bank.home.path().display().to_string();
    let out = clientbank(
        &["--lang", "ru", "accounts", "--dir", &dir],
        bank.home.path(),
        &[
            ("CLIENTBANK_BASE_URL", &url),
            ("CLIENTBANK_TOKEN", "not-a-token-the-bank-knows"),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("ошибка: банк не принимает токен (401)"),
        "{}",
        text(&out)
    );
    assert!(!text(&out).contains("not-a-token-the-bank-knows"));
}

/// Issue 19 item 8: the bank's errors carried up are said in Russian under `--lang ru`, not
/// the API client's English inside a Russian sentence.
#[test]
fn the_banks_errors_are_said_in_russian() {
    let bank = Bank::new();
    bank.bank.control().set_maintenance(true);
    let out = bank.run(&["--lang", "ru", "accounts"]);
    bank.bank.control().set_maintenance(false);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        text(&out).contains("банк недоступен: банк на техническом обслуживании (503)"),
        "{}",
        text(&out)
    );
    assert!(!text(&out).contains("maintenance"), "{}", text(&out));
    let url = bank.bank.url();
    let dir = bank.home.path().display().to_string();
    let say = |base: &str, token: &str| {
        let out = clientbank(
            &["--lang", "ru", "accounts", "--dir", &dir],
            bank.home.path(),
            &[("CLIENTBANK_BASE_URL", base), ("CLIENTBANK_TOKEN", token)],
        );
        text(&out)
    };
    let refused = say(&url, "not-a-token-the-bank-knows");
    assert!(!refused.contains("does not accept"), "{refused}");
    let https = say(
        &url.replacen("http://", "https://", 1),
        "cabinet-token-full-rights",
    );
    assert!(
        https.contains(
            "неверные настройки: не удалось соединиться с банком: адрес отвечает по HTTP"
        ) && !https.contains("InvalidContentType"),
        "{https}"
    );
    assert!(!https.contains("cannot connect"), "{https}");
    assert!(!https.contains("answers plain HTTP"), "{https}");
}

/// The README's `--json` examples of `accounts`, `balance` and `history` have the members the
/// binary prints.
#[test]
fn the_readmes_json_shapes_are_the_binarys() {
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let section = readme
        .split("## The bank at the terminal")
        .nth(1)
        .unwrap()
        .split("\n## ")
        .next()
        .unwrap();
    let examples: Vec<Value> = section
        .split("```json\n")
        .skip(1)
        .map(|block| serde_json::from_str(block.split("```").next().unwrap()).unwrap())
        .collect();
    assert_eq!(examples.len(), 3);
    let bank = Bank::new();
    let keys = |v: &Value| -> Vec<String> {
        let object = if v.is_array() { &v[0] } else { v };
        let mut keys: Vec<String> = object.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    let json = |args: &[&str]| -> Value {
        let out = bank.run(args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let number = "40702810938000012345";
    let accounts = json(&["accounts", "--json"]);
    assert_eq!(keys(&examples[0]), keys(&accounts));
    let balance = json(&["balance", number, "--on", "01.07.2026", "--json"]);
    assert_eq!(keys(&examples[1]), keys(&balance));
    assert_eq!(examples[1]["balance"], balance["balance"]);
    let history = json(&[
        "history",
        number,
        "--from",
        "01.06.2026",
        "--till",
        "30.09.2026",
        "--json",
    ]);
    assert_eq!(keys(&examples[2]), keys(&history));
}

/// A CSV as Russian Excel reads it by double-click: UTF-8 after a BOM, `;` between columns.
fn excel_csv(bytes: &[u8]) -> csv::Reader<&[u8]> {
    let body = bytes
        .strip_prefix("\u{feff}".as_bytes())
        .expect("a BOM first: Excel then reads UTF-8");
    csv::ReaderBuilder::new().delimiter(b';').from_reader(body)
}

/// Issue 19 item 4: every bank command gives the hint `watch` gives for a bank_url without
/// /v1 (an address with no such endpoint), in both languages.
#[test]
fn a_bank_url_without_v1_is_named_by_every_bank_command() {
    let bank = Bank::new();
    let root = bank.bank.url().trim_end_matches("/v1").to_string();
    let dir = bank.home.path().display().to_string();
    for args in [
        vec!["--lang", "en", "accounts", "--dir", &dir],
        vec![
            "--lang",
            "en",
            "balance",
            "40702810938000012345",
            "--dir",
            &dir,
        ],
    ] {
        let out = clientbank(
            &args,
            bank.home.path(),
            &[
                ("CLIENTBANK_BASE_URL", &root),
                ("CLIENTBANK_TOKEN", "cabinet-token-full-rights"),
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(
            text(&out).contains("ending in /v1"),
            "{args:?}: {}",
            text(&out)
        );
    }
}

/// Issue 19 item 4: a token without the right a command needs is said so, with what to do.
#[test]
fn a_token_without_the_right_is_named() {
    let bank = Bank::new();
    let url = bank.bank.url();
    let dir = bank.home.path().display().to_string();
    let out = clientbank(
        &[
            "--lang",
            "en",
            "history",
            "40702810938000012345",
            "--from",
            "2026-07-01",
            "--till",
            "2026-07-31",
            "--dir",
            &dir,
        ],
        bank.home.path(),
        &[
            ("CLIENTBANK_BASE_URL", &url),
            ("CLIENTBANK_TOKEN", "cabinet-token-account-info"),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("lacks the right"), "{}", text(&out));
}
