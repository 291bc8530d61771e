//! Configuration: `DIR/clientbank.toml` (or `--config FILE`), then the environment
//! (`CLIENTBANK_TOKEN`, `CLIENTBANK_BASE_URL`, `CLIENTBANK_ROOT_CA`), then flags.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clientbank_api::Token;
use clientbank_diagnostic::duration;
use clientbank_format::{Message, tr};
use serde::Deserialize;

use crate::Error;

mod address;
mod bank_kind;
mod file_errors;
mod journal;
mod open_list;
mod program;
mod repeated;
mod secrets;
mod signers;
mod text;
mod values;

/// The configuration file of an exchange folder: `DIR/clientbank.toml`.
pub const CONFIG_FILE: &str = "clientbank.toml";

/// A TOML or serde message ("invalid type: integer `5`, expected a string") in Russian words,
/// key names kept: for other files read with serde.
pub use bank_kind::BankKind;
pub use file_errors::in_russian as serde_in_russian;
use file_errors::{cannot_read_config, is_absent, no_access_hint, not_utf8, toml_error};
pub use journal::{DEFAULT_LEASE, SharedJournal};
use secrets::*;
use values::*;
pub use values::{InboxNames, LogFormat, SignerConfig};

/// How a drop goes to the bank.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Route {
    /// JSON drops request by request; 1C drops payment by payment through `/operation-upload`
    /// when the JSON carries everything, else whole through `/operation-upload/1c`.
    #[default]
    Auto,
    /// Always `/operation-upload`, payment by payment (a 1C file with something the JSON cannot
    /// carry is rejected, not sent incompletely).
    Json,
    /// 1C files whole through `/operation-upload/1c` (JSON drops still go request by request).
    #[serde(rename = "1c")]
    OneC,
}

impl Route {
    /// Its name in the configuration and the journal.
    pub const fn as_str(self) -> &'static str {
        match self {
            Route::Auto => "auto",
            Route::Json => "json",
            Route::OneC => "1c",
        }
    }
}

impl std::str::FromStr for Route {
    type Err = String;
    fn from_str(text: &str) -> Result<Route, String> {
        [Route::Auto, Route::Json, Route::OneC]
            .into_iter()
            .find(|r| r.as_str() == text)
            .ok_or_else(|| format!("{text:?}: expected auto, json or 1c"))
    }
}

impl std::fmt::Display for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// When uploaded payments are signed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Signing {
    /// Ids are collected for `clientbank sign`.
    #[default]
    Manual,
    /// Signed right after upload with the configured signer.
    Auto,
}

/// `[statements]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StatementsFile {
    accounts: Vec<String>,
    days: Option<Days>,
    interval: Option<Wait<1000>>,
    encoding: Option<StatementEncoding>,
    file: Option<OutboxName>,
}

/// Statements back: which accounts, how many days, how often, written where.
#[derive(Clone, Debug, PartialEq)]
pub struct Statements {
    /// The accounts (numbers or the bank's ids), all in one file.
    pub accounts: Vec<String>,
    /// The days the statement covers, ending today (default 2: yesterday and today).
    pub days: u32,
    /// How often the statement is brought up to date (default 10 min; a webhook sooner).
    pub interval: Duration,
    /// The file's encoding (default CP1251).
    pub encoding: clientbank_format::Encoding,
    /// Its name in `DIR/outbox/` (default `kl_to_1c.txt`).
    pub file: String,
}

impl Statements {
    fn from_file(file: StatementsFile) -> Result<Statements, Error> {
        if file.accounts.iter().all(|a| a.trim().is_empty()) {
            return Err(Error::config(
                "statements.accounts: name at least one account (its number or id)",
                "statements.accounts: укажите хотя бы один счёт (номер или id)",
            ));
        }
        Ok(Statements {
            accounts: file.accounts,
            days: file.days.map_or(2, |d| d.0),
            interval: file.interval.map_or(Duration::from_secs(600), |w| w.0),
            encoding: file
                .encoding
                .map_or(clientbank_format::Encoding::Cp1251, |e| e.0),
            file: file.file.map_or_else(|| "kl_to_1c.txt".into(), |f| f.0),
        })
    }
}

// Values checked as they are read, so that a bad one is refused with the file, line and column
// of its value (toml puts the place of the value on the error).

/// The file's keys, all optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    bank_url: Option<String>,
    token: Option<String>,
    token_file: Option<PathBuf>,
    root_ca: Option<PathBuf>,
    sandbox: Option<bool>,
    route: Option<Route>,
    in_signing: Option<bool>,
    signing: Option<Signing>,
    signer: Option<SignerConfig>,
    #[serde(default)]
    signers: BTreeMap<String, SignerConfig>,
    poll_interval: Option<Wait<50>>,
    settle: Option<Wait<0>>,
    retry_min: Option<Wait<10>>,
    retry_max: Option<Wait<10>>,
    token_retry: Option<Wait<1000>>,
    once_patience: Option<Wait<0>>,
    incomplete_after: Option<Wait<1000>>,
    patterns: Option<Patterns>,
    log_format: Option<LogFormat>,
    statements: Option<StatementsFile>,
    app: Option<AppConfig>,
    webhook: Option<WebhookFile>,
    notify: Option<NotifyFile>,
    metrics: Option<MetricsFile>,
    journal: Option<String>,
    journal_password_file: Option<PathBuf>,
    journal_lease: Option<Wait<1000>>,
}

/// `[metrics]`: where the daemon serves its metrics (loopback only, checked when it starts).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MetricsFile {
    listen: std::net::SocketAddr,
}

/// `[app]`: the application registered at the bank, for `clientbank login`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AppConfig {
    client_id: String,
    client_secret: Option<String>,
    client_secret_file: Option<PathBuf>,
    redirect_uri: String,
    scope: Option<String>,
}

/// The rights `clientbank login` asks for unless `[app] scope` says otherwise.
pub const DEFAULT_SCOPE: &str = "account-info operation-history money-transfer";

/// The application registered at the bank (`[app]`), for the OAuth flow of `clientbank login`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct App {
    /// `model.clientId`.
    pub client_id: String,
    /// The application's secret word (`client_secret_file`, `CLIENTBANK_CLIENT_SECRET`, or
    /// `client_secret`); its `Debug` is redacted. Without it the code cannot be exchanged.
    pub client_secret: Option<Token>,
    /// The redirect address registered at the bank (`login` listens on it: loopback only).
    pub redirect_uri: String,
    /// The rights asked for, separated by spaces.
    pub scope: String,
}

impl App {
    /// The fixed application of the sandbox bank (API.md, Sandbox mode).
    pub fn sandbox() -> App {
        App {
            client_id: "sandboxapp".into(),
            client_secret: Some(Token::new("sandboxappsecret")),
            redirect_uri: "http://127.0.0.1:8080/callback".into(),
            scope: DEFAULT_SCOPE.into(),
        }
    }
}

/// Where `clientbank login` stores the token unless `token_file` says otherwise:
/// `<user config dir>/clientbank/token` — `%APPDATA%\clientbank\token` on Windows,
/// `~/Library/Application Support/clientbank/token` on macOS, `$XDG_CONFIG_HOME/clientbank/token`
/// or `~/.config/clientbank/token` elsewhere. `None` when no such folder can be named.
pub fn default_token_file(env: &dyn Env) -> Option<PathBuf> {
    let absolute = |value: Option<String>| value.map(PathBuf::from).filter(|p| p.is_absolute());
    let config_dir = if cfg!(windows) {
        absolute(env.get("APPDATA"))
    } else if cfg!(target_os = "macos") {
        absolute(env.get("HOME")).map(|home| home.join("Library").join("Application Support"))
    } else {
        absolute(env.get("XDG_CONFIG_HOME"))
            .or_else(|| absolute(env.get("HOME")).map(|home| home.join(".config")))
    }?;
    Some(config_dir.join("clientbank").join("token"))
}

/// The `[webhook]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct WebhookFile {
    addr: Option<String>,
    key: Option<WebhookKeyKind>,
    client_secret_file: Option<PathBuf>,
}

/// `[notify]`: a command told of what needs a person.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NotifyFile {
    command: Vec<String>,
    signature_after: Option<Wait<1000>>,
}

/// `[notify]`: a command run with each event that needs a person (a file gone to review/ or
/// rejected/, payments awaiting a signature too long) as one JSON object on its standard
/// input — mail, a messenger or a desktop notice plug in there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notify {
    /// The argv (no shell), paths relative to the configuration file.
    pub command: Vec<String>,
    /// How long a payment may await its signature before it is told (`signature_after`,
    /// default 4 hours).
    pub signature_after: Duration,
}

/// Which secret keys the notifications' `SHA1Hash` (`[webhook] key`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WebhookKeyKind {
    /// The access token's first 10 characters: for a token generated in the bank cabinet.
    #[default]
    Token,
    /// The application's secret word: for a token obtained by `clientbank login`.
    ClientSecret,
}

/// The webhook listener (`[webhook]`): where it listens and how notifications are checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookSettings {
    /// Where to listen (`addr`, e.g. `"127.0.0.1:8091"`).
    pub addr: std::net::SocketAddr,
    /// See [`WebhookKeyKind`] (`key`, default `"token"`).
    pub key: WebhookKeyKind,
    /// The application's secret word, read from `client_secret_file` (never logged).
    pub client_secret: Option<Token>,
}

/// Everything the daemon and the commands need, resolved.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The service root, `https://…/v1` (or `http://` to loopback).
    pub bank_url: Option<String>,
    /// The access token (never logged: its `Debug` is redacted).
    pub token: Option<Token>,
    /// A PEM file of extra root certificates.
    pub root_ca: Option<PathBuf>,
    /// Sandbox mode: every request carries `sandbox: on`.
    pub sandbox: bool,
    /// `bank_url` is the built-in sandbox bank started in this process (`--sandbox`): it is
    /// gone when the process ends, with everything sent to it.
    pub built_in_bank: bool,
    /// See [`Route`].
    pub route: Route,
    /// Upload with `targetStatus: InSigning` (default true): the payments await signature.
    pub in_signing: bool,
    /// See [`Signing`].
    pub signing: Signing,
    /// The default signer.
    pub signer: Option<Vec<String>>,
    /// Signers per company (its INN or id).
    pub signers: BTreeMap<String, Vec<String>>,
    /// The periodic rescan of the inbox (default 5 s).
    pub poll_interval: Duration,
    /// How long a file's size and time must stay unchanged before it is claimed (default 2 s).
    pub settle: Duration,
    /// The first pause before retrying a file the bank did not take (default 1 s; doubles).
    pub retry_min: Duration,
    /// The longest such pause (default 60 s).
    pub retry_max: Duration,
    /// How often uploads are tried again after the bank refused the token (default 5 min).
    pub token_retry: Duration,
    /// With `--once`: how long to keep retrying files the bank did not take (default 60 s).
    pub once_patience: Duration,
    /// How long an inbox file that is not complete (no `КонецФайла`, a section left open,
    /// JSON that stops early) must stay unchanged before it is taken anyway and rejected as cut
    /// short (default 10 min).
    pub incomplete_after: Duration,
    /// The names taken from the inbox (`patterns`, default `*.txt`, `*.json`).
    pub patterns: InboxNames,
    /// `text` or `json`.
    pub log_format: LogFormat,
    /// Statements back to `outbox/`, if configured.
    pub statements: Option<Statements>,
    /// Warnings about the configuration (a token file others can read), to log.
    pub warnings: Vec<Message>,
    /// The file read, if any.
    pub file: Option<PathBuf>,
    /// The file looked for and not found (`DIR/clientbank.toml`), when none was read.
    pub not_found: Option<PathBuf>,
    /// The application registered at the bank (`[app]`), for `clientbank login`.
    pub app: Option<App>,
    /// Whether the token was read from the file `clientbank login` writes (the default login
    /// token file, or `token_file` beside an `[app]` table): its webhooks are hashed with the
    /// application's secret, a cabinet token's with the token.
    pub token_from_login: bool,
    /// The token file: `token_file` of the configuration, else the default login token file
    /// ([`default_token_file`]). `clientbank login` writes it, `logout` removes it.
    pub token_file: Option<PathBuf>,
    /// The webhook listener, when the file has a `[webhook]` table.
    pub webhook: Option<WebhookSettings>,
    /// `[notify]`, when configured.
    pub notify: Option<Notify>,
    /// The language of what people read in the files the daemon writes (`FILE.errors.txt`,
    /// reports, review notes): the locale's unless the command line chose (`--lang`).
    pub lang: clientbank_format::Lang,
    /// `[metrics] listen`: where `watch` serves its metrics, when configured.
    pub metrics: Option<std::net::SocketAddr>,
    /// `journal = "postgres://…"`: the journal in PostgreSQL (else the SQLite file of the
    /// folder's `.clientbank/`).
    pub journal: Option<SharedJournal>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            bank_url: None,
            token: None,
            root_ca: None,
            sandbox: false,
            built_in_bank: false,
            route: Route::Auto,
            in_signing: true,
            signing: Signing::Manual,
            signer: None,
            signers: BTreeMap::new(),
            poll_interval: Duration::from_secs(5),
            settle: Duration::from_secs(2),
            retry_min: Duration::from_secs(1),
            retry_max: Duration::from_secs(60),
            token_retry: Duration::from_secs(300),
            once_patience: Duration::from_secs(60),
            incomplete_after: Duration::from_secs(600),
            patterns: InboxNames::default(),
            log_format: LogFormat::Text,
            statements: None,
            warnings: Vec::new(),
            file: None,
            not_found: None,
            app: None,
            token_from_login: false,
            token_file: None,
            webhook: None,
            notify: None,
            lang: clientbank_format::Lang::from_locale(),
            metrics: None,
            journal: None,
        }
    }
}

/// No `bank_url`: where to set it; with no configuration at all, where it was looked for and
/// how to make one.
fn no_bank_address(not_found: Option<&Path>) -> Error {
    let (en, ru) = match not_found {
        Some(path) => {
            let dir = path.parent().unwrap_or(Path::new("."));
            let (shown, dir) = (path.display(), dir.display());
            (
                format!(
                    " (there is no configuration: {shown} does not exist; `clientbank init {dir}` \
                     writes one)"
                ),
                format!(
                    " (файла настроек нет: {shown} не существует; его создаёт `clientbank init \
                     {dir}`)"
                ),
            )
        }
        None => (String::new(), String::new()),
    };
    Error::config(
        format!(
            "no bank address: set `bank_url` in clientbank.toml or CLIENTBANK_BASE_URL (or use \
             --sandbox){en}"
        ),
        format!(
            "не задан адрес банка: `bank_url` в clientbank.toml или CLIENTBANK_BASE_URL (или \
             --sandbox){ru}"
        ),
    )
}

/// Where the environment's values come from (a map in tests, the process environment else).
pub trait Env {
    /// The value of a variable, if set.
    fn get(&self, name: &str) -> Option<String>;
}

/// The process environment.
#[derive(Clone, Copy, Debug)]
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn get(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|v| !v.is_empty())
    }
}

impl Env for BTreeMap<String, String> {
    fn get(&self, name: &str) -> Option<String> {
        BTreeMap::get(self, name).cloned()
    }
}

impl Settings {
    /// Reads the configuration: `config` if given (it must exist), else `DIR/clientbank.toml`
    /// if it exists; then the environment. Flags are applied by the caller afterwards.
    pub fn load(dir: &Path, config: Option<&Path>, env: &dyn Env) -> Result<Settings, Error> {
        let path = match config {
            Some(path) => Some(path.to_path_buf()),
            // Only a file that is not there is "no configuration": one this user may not
            // look at (a folder of another user's) is said as such.
            None => {
                let path = dir.join(CONFIG_FILE);
                match std::fs::metadata(&path) {
                    Ok(_) => Some(path),
                    Err(e) if is_absent(&e) => None,
                    Err(e) => return Err(cannot_read_config(&path, &e)),
                }
            }
        };
        let mut settings = match &path {
            Some(path) => {
                let bytes = std::fs::read(path).map_err(|e| cannot_read_config(path, &e))?;
                let text = text::decode(bytes).map_err(|not| not_utf8(path, not))?;
                Settings::from_toml(&text, path)?
            }
            None => Settings {
                not_found: Some(dir.join(CONFIG_FILE)),
                ..Settings::default()
            },
        };
        settings.file = path;
        if let Some(token) = env.get("CLIENTBANK_TOKEN") {
            let source = Message::same("CLIENTBANK_TOKEN");
            settings.token = Some(checked_token(token.trim(), &source)?);
            settings.token_from_login = false;
        }
        if let Some(app) = &mut settings.app
            && let Some(secret) = env.get("CLIENTBANK_CLIENT_SECRET")
        {
            app.client_secret = Some(checked_secret(secret.trim(), "CLIENTBANK_CLIENT_SECRET")?);
        }
        if settings.token_file.is_none() {
            settings.token_file = default_token_file(env);
            // No token in the file or the environment: the one `clientbank login` stored.
            if settings.token.is_none()
                && let Some(login_file) = &settings.token_file
                && let Some(token) = read_token_file(login_file, &mut settings.warnings)?
            {
                settings.token = Some(token);
                settings.token_from_login = true;
            }
        }
        journal::password_from_env(&mut settings.journal, env);
        if let Some(url) = env.get("CLIENTBANK_BASE_URL") {
            address::checked(&url, "CLIENTBANK_BASE_URL")?;
            settings.bank_url = Some(url);
        }
        if let Some(ca) = env.get("CLIENTBANK_ROOT_CA") {
            settings.root_ca = Some(PathBuf::from(ca));
        }
        Ok(settings)
    }

    /// The settings of a TOML text (`path` names it in errors and resolves relative paths).
    pub fn from_toml(text: &str, path: &Path) -> Result<Settings, Error> {
        let mut file: FileConfig = toml::from_str(text).map_err(|e| toml_error(path, text, &e))?;
        file_errors::no_control_characters(path, text)?;
        let base = path.parent().unwrap_or(Path::new("."));
        let mut settings = Settings::default();
        let mut warnings = Vec::new();
        settings.journal = journal::shared_journal(&mut file, path, base)?;
        if file.token.is_some() && file.token_file.is_some() {
            return Err(Error::config(
                format!("{}: give `token` or `token_file`, not both", path.display()),
                format!(
                    "{}: укажите `token` или `token_file`, не оба",
                    path.display()
                ),
            ));
        }
        if let Some(token) = file.token {
            if readable_by_others(path) {
                let shown = path.display();
                warnings.push(tr!(
                    "{shown} holds the token and other users can read it: chmod 600 it" ;
                    "в {shown} токен, а файл могут читать другие пользователи: выполните \
                     chmod 600"
                ));
            }
            let shown = path.display();
            let source = tr!("token in {shown}" ; "token в {shown}");
            settings.token = Some(checked_token(token.trim(), &source)?);
        }
        if let Some(token_file) = file.token_file {
            let token_file = base.join(token_file);
            // A token file that does not exist yet is where `clientbank login` will write.
            if let Some(token) = read_token_file(&token_file, &mut warnings)? {
                settings.token = Some(token);
                settings.token_from_login = file.app.is_some();
            }
            settings.token_file = Some(token_file);
        }
        if let Some(app) = file.app {
            settings.app = Some(resolve_app(app, path, base, &mut warnings)?);
        }
        if let Some(url) = &file.bank_url {
            address::checked(url, &address::in_file(path, text))?;
        }
        settings.bank_url = file.bank_url;
        settings.root_ca = file.root_ca.map(|p| base.join(p));
        settings.sandbox = file.sandbox.unwrap_or(false);
        settings.route = file.route.unwrap_or_default();
        settings.in_signing = file.in_signing.unwrap_or(true);
        settings.signing = file.signing.unwrap_or_default();
        settings.set_signers(file.signer, file.signers, base, path)?;
        let wait = |value: Option<Duration>, default: Duration| value.unwrap_or(default);
        settings.poll_interval = wait(file.poll_interval.map(|w| w.0), settings.poll_interval);
        settings.settle = wait(file.settle.map(|w| w.0), settings.settle);
        settings.retry_min = wait(file.retry_min.map(|w| w.0), settings.retry_min);
        settings.retry_max = wait(file.retry_max.map(|w| w.0), settings.retry_max);
        settings.token_retry = wait(file.token_retry.map(|w| w.0), settings.token_retry);
        settings.once_patience = wait(file.once_patience.map(|w| w.0), settings.once_patience);
        settings.incomplete_after = wait(
            file.incomplete_after.map(|w| w.0),
            settings.incomplete_after,
        );
        if settings.retry_min > settings.retry_max {
            let [min, max] = [settings.retry_min, settings.retry_max].map(duration);
            let (min_ru, max_ru) = (min.ru(), max.ru());
            return Err(Error::config(
                format!(
                    "{}: retry_min ({min}) is longer than retry_max ({max}): the wait between \
                     tries starts at retry_min and doubles up to retry_max",
                    path.display()
                ),
                format!(
                    "{}: retry_min ({min_ru}) больше retry_max ({max_ru}): пауза между попытками \
                     начинается с retry_min и удваивается до retry_max",
                    path.display()
                ),
            ));
        }
        if let Some(Patterns(patterns)) = file.patterns {
            settings.patterns = inbox_names(patterns, path, &mut warnings)?;
        }
        if let Some(format) = file.log_format {
            settings.log_format = format;
        }
        settings.statements = file.statements.map(Statements::from_file).transpose()?;
        if let Some(webhook) = file.webhook {
            settings.webhook = Some(webhook_settings(webhook, base, &mut warnings)?);
        }
        if let Some(notify) = file.notify {
            settings.notify = Some(notify_settings(notify, base, path, &mut warnings)?);
        }
        settings.metrics = file.metrics.map(|m| m.listen);
        settings.warnings = warnings;
        Ok(settings)
    }

    /// The key the webhook listener checks `SHA1Hash` with, from `[webhook] key`: the access
    /// token (`token`, the default: its first 10 characters key the hash) or the application's
    /// secret word (`client-secret`, from `client_secret_file`). The error says what is
    /// missing, never a secret.
    pub fn webhook_key(&self) -> Result<crate::webhook::Key, Error> {
        let kind = self
            .webhook
            .as_ref()
            .map_or(WebhookKeyKind::Token, |w| w.key);
        let secret = self
            .webhook
            .as_ref()
            .and_then(|w| w.client_secret.clone())
            .or_else(|| self.app.as_ref().and_then(|a| a.client_secret.clone()));
        // The bank keys a token of the authorization flow by the application's secret word,
        // whatever `key` says: a token `clientbank login` stored is one.
        let kind = match (kind, &secret) {
            (WebhookKeyKind::Token, Some(_)) if self.token_from_login => {
                WebhookKeyKind::ClientSecret
            }
            (kind, _) => kind,
        };
        match kind {
            WebhookKeyKind::Token => match &self.token {
                Some(token) => Ok(crate::webhook::Key::Token(token.clone())),
                None => Err(Error::config(
                    "[webhook] key = \"token\" checks notifications with the access token: set \
                     `token_file` in clientbank.toml or CLIENTBANK_TOKEN (or key = \
                     \"client-secret\" with the application's secret, for a token obtained by \
                     `clientbank login`)",
                    "[webhook] key = \"token\" проверяет уведомления токеном доступа: задайте \
                     `token_file` в clientbank.toml или CLIENTBANK_TOKEN (или key = \
                     \"client-secret\" с секретом приложения — для токена, полученного \
                     `clientbank login`)",
                )),
            },
            WebhookKeyKind::ClientSecret => match secret {
                Some(secret) => Ok(crate::webhook::Key::ClientSecret(secret)),
                None => Err(Error::config(
                    "[webhook] key = \"client-secret\" needs the application's secret word: \
                     `client_secret_file` in [app] (or in [webhook]), or CLIENTBANK_CLIENT_SECRET",
                    "[webhook] key = \"client-secret\" требует секрет приложения: \
                     `client_secret_file` в [app] (или в [webhook]) или CLIENTBANK_CLIENT_SECRET",
                )),
            },
        }
    }

    /// The signer for a company: by its INN, then by its id, then the default.
    pub fn signer_for(&self, inn: Option<&str>, company_id: &str) -> Option<&[String]> {
        inn.and_then(|inn| self.signers.get(inn))
            .or_else(|| self.signers.get(company_id))
            .or(self.signer.as_ref())
            .map(Vec::as_slice)
    }

    /// The API client these settings describe.
    pub fn client(&self) -> Result<clientbank_api::Client, Error> {
        let Some(url) = &self.bank_url else {
            return Err(no_bank_address(self.not_found.as_deref()));
        };
        let Some(token) = &self.token else {
            return Err(match &self.token_file {
                Some(file) if matches!(file.try_exists(), Ok(false)) => Error::config(
                    format!(
                        "token_file {} does not exist: put the token generated in the bank's \
                         cabinet there, or run `clientbank login` (it writes there)",
                        file.display()
                    ),
                    format!(
                        "файла токена {} нет: положите туда токен, выпущенный в кабинете банка, \
                         или выполните `clientbank login` (он пишет туда)",
                        file.display()
                    ),
                ),
                Some(file) => Error::config(
                    format!(
                        "no token: run `clientbank login` (it stores one in {}), or put a token \
                         generated in the bank's cabinet in `token_file` of clientbank.toml or \
                         in CLIENTBANK_TOKEN",
                        file.display()
                    ),
                    format!(
                        "нет токена: выполните `clientbank login` (он сохранит токен в {}) или \
                         положите токен, выпущенный в кабинете банка, в `token_file` файла \
                         clientbank.toml или в CLIENTBANK_TOKEN",
                        file.display()
                    ),
                ),
                None => Error::config(
                    "no token: run `clientbank login`, or put a token generated in the bank's \
                     cabinet in `token_file` of clientbank.toml or in CLIENTBANK_TOKEN",
                    "нет токена: выполните `clientbank login` или положите токен, выпущенный в \
                     кабинете банка, в `token_file` файла clientbank.toml или в CLIENTBANK_TOKEN",
                ),
            });
        };
        self.builder(url)?
            .token(token.clone())
            .sandbox(self.sandbox)
            .retry(clientbank_api::Retry {
                retries: 2,
                base_delay: Duration::from_millis(200),
                max_delay: Duration::from_secs(2),
            })
            .build()
            .map_err(|e| {
                let said = e.message();
                Error::config(said.en().to_string(), said.ru().to_string())
            })
    }

    /// A client of the bank without a token, trying each request once: for the sign-in of
    /// `clientbank login` (the authorize address, the code's exchange).
    pub fn anonymous_client(&self) -> Result<clientbank_api::Client, Error> {
        let Some(url) = &self.bank_url else {
            return Err(no_bank_address(self.not_found.as_deref()));
        };
        self.builder(url)?
            .retry(clientbank_api::Retry::NONE)
            .build()
            .map_err(|e| {
                let said = e.message();
                Error::config(said.en().to_string(), said.ru().to_string())
            })
    }

    /// The client's builder for `url`: its timeout and extra root certificates.
    fn builder(&self, url: &str) -> Result<clientbank_api::ClientBuilder, Error> {
        let mut builder =
            clientbank_api::Client::builder(url.to_string()).timeout(Duration::from_secs(30));
        if let Some(ca) = &self.root_ca {
            let pem = std::fs::read(ca).map_err(|e| {
                let (shown, e_ru) = (ca.display(), clientbank_diagnostic::os::Ru(&e));
                Error::Config(tr!(
                    "root_ca: cannot read {shown}: {e}" ;
                    "root_ca: не удалось прочитать {shown}: {e_ru}"
                ))
            })?;
            builder = builder.add_root_certificates_pem(&pem).map_err(|e| {
                let said = e.message();
                Error::config(
                    format!("root_ca {}: {}", ca.display(), said.en()),
                    format!("root_ca {}: {}", ca.display(), said.ru()),
                )
            })?;
        }
        Ok(builder)
    }

    /// Whether a file name is taken from the inbox: it matches a pattern (the extension
    /// case-insensitively) and is not hidden or temporary (`~$…`, `.…`, `*.tmp`, `*.part`).
    pub fn takes(&self, name: &str) -> bool {
        let lower = name.to_lowercase();
        if name.starts_with('.')
            || name.starts_with("~$")
            || lower.ends_with(".tmp")
            || lower.ends_with(".part")
            || lower.ends_with(".crdownload")
        {
            return false;
        }
        self.patterns.matches(name)
    }
}

/// `[notify]` read: its command beside the configuration, a program that cannot be found said
/// as a warning (it is not run to find out).
fn notify_settings(
    notify: NotifyFile,
    base: &Path,
    path: &Path,
    warnings: &mut Vec<Message>,
) -> Result<Notify, Error> {
    if notify.command.is_empty() {
        return Err(Error::config(
            format!(
                "{}: [notify] command: the program is missing (an argv list)",
                path.display()
            ),
            format!(
                "{}: [notify] command: не указана программа (список аргументов)",
                path.display()
            ),
        ));
    }
    let command = beside(base, notify.command);
    let path_var = std::env::var_os("PATH");
    let lost = |p: &&String| !program::findable(p, path_var.as_deref());
    if let Some(program) = command.first().filter(lost) {
        warnings.push(tr!(
            "[notify] command: `{program}` is not found: no one is told of files in \
             review/ or rejected/ (paths are relative to the configuration file)" ;
            "[notify] command: `{program}` не найдена: о файлах в review/ и rejected/ \
             никто не узнает (пути — относительно файла настроек)"
        ));
    }
    Ok(Notify {
        command,
        signature_after: notify
            .signature_after
            .map_or(Duration::from_secs(4 * 3600), |w| w.0),
    })
}

/// A signer command with its paths relative to the configuration's folder `base`, as
/// `token_file` is: a program named by a relative path (`./sign.sh`), and an argument that
/// names a file there (`cert.pem`, `keys/key.pem`), become `base`'s; options, placeholders and
/// anything else stay as written.
fn beside(base: &Path, mut argv: Vec<String>) -> Vec<String> {
    let local = |arg: &str| {
        let path = Path::new(arg);
        (path.is_relative() && !arg.starts_with('-') && !arg.contains('{')).then(|| base.join(path))
    };
    for (n, arg) in argv.iter_mut().enumerate() {
        let Some(there) = local(arg) else { continue };
        let program = n == 0 && (arg.contains('/') || arg.contains('\\'));
        if program || (n > 0 && there.is_file()) {
            *arg = there.to_string_lossy().into_owned();
        }
    }
    argv
}

#[cfg(unix)]
fn readable_by_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o044 != 0)
}

#[cfg(not(unix))]
fn readable_by_others(_path: &Path) -> bool {
    false
}

/// The inbox's `patterns` of the configuration `path`: a bracket or a brace, which are not
/// wildcards here, adds a warning.
fn inbox_names(
    patterns: Vec<String>,
    path: &Path,
    warnings: &mut Vec<Message>,
) -> Result<InboxNames, Error> {
    let shown = path.display();
    for pattern in patterns.iter().filter(|p| p.contains(['[', ']', '{', '}'])) {
        warnings.push(tr!(
            "{shown}: patterns: {pattern:?}: only `*` and `?` are wildcards; brackets and braces \
             are taken as they are" ;
            "{shown}: patterns: {pattern:?}: подстановочные знаки — только `*` и `?`; квадратные \
             и фигурные скобки понимаются буквально"
        ));
    }
    InboxNames::new(patterns).map_err(|e| {
        Error::config(
            format!("{shown}: {e}"),
            format!("{shown}: шаблон имён не читается: {e}"),
        )
    })
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_errors_are_said_in_russian_too() {
        let russian = |text: &str| {
            let e = Settings::from_toml(text, Path::new("c.toml")).unwrap_err();
            let said = e.message();
            assert!(
                said.en().starts_with("configuration: c.toml"),
                "{}",
                said.en()
            );
            said.ru().to_string()
        };
        let ru = russian("token_flie = \"x\"\n");
        assert!(
            ru.starts_with("настройки: c.toml:1:1: неизвестный ключ `token_flie`"),
            "{ru}"
        );
        assert!(ru.contains("допустимые ключи: `bank_url`"), "{ru}");
        let ru = russian("settle = \"soon\"\n");
        assert!(ru.contains("settle: \"soon\" — не длительность"), "{ru}");
        assert!(!ru.contains("is not"), "{ru}");
        let ru = russian("signing = \"auto\"\n");
        assert!(ru.contains("подпись не настроена"), "{ru}");
        let ru = russian("sandbox = \"yes\"\n");
        assert!(ru.contains("неверный тип значения"), "{ru}");
        let e = Settings::from_toml(
            "retry_min = \"5s\"\nretry_max = \"1s\"\n",
            Path::new("c.toml"),
        )
        .unwrap_err();
        assert!(
            e.message().ru().contains("больше retry_max"),
            "{}",
            e.message().ru()
        );
    }

    /// Issue 19 item 3: paths in a signer command are relative to the configuration's folder,
    /// as token_file is; options and placeholders stay.
    #[test]
    fn signer_paths_are_relative_to_the_configuration() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("keys")).unwrap();
        std::fs::write(dir.path().join("keys/cert.pem"), "x").unwrap();
        let argv: Vec<String> = [
            "./sign.sh",
            "-signer",
            "keys/cert.pem",
            "missing.pem",
            "{input}",
            "/abs/key.pem",
        ]
        .map(String::from)
        .into();
        let resolved = beside(dir.path(), argv);
        assert_eq!(resolved[0], dir.path().join("./sign.sh").to_string_lossy());
        assert_eq!(resolved[1], "-signer");
        assert_eq!(
            resolved[2],
            dir.path().join("keys/cert.pem").to_string_lossy()
        );
        assert_eq!(resolved[3], "missing.pem", "not a file there: as written");
        assert_eq!(resolved[4], "{input}");
        assert_eq!(resolved[5], "/abs/key.pem");
        // `openssl` (a program on the PATH) stays as it is.
        assert_eq!(beside(dir.path(), vec!["openssl".into()]), ["openssl"]);
    }

    /// Issue 19 item 2: configuration errors say what is wrong and where, naming keys (never
    /// masked: only secret values are), a missing token_file, a file saved in CP1251, and a
    /// Windows path in a basic string.
    #[test]
    fn configuration_errors_say_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clientbank.toml");
        let error = |text: &str| Settings::from_toml(text, &path).unwrap_err().to_string();
        // A signer is checked as it is read: the INN of its company, its two placeholders.
        let signer = "command = [\"openssl\", \"-in\", \"{input}\", \"-out\", \"{output}\"]";
        for (key, good) in [
            ("7701234567", true),
            ("770123456789", true),
            ("5a4d0001-0000-4000-8000-000000000001", true),
            ("770123456", false),
            ("77012345678", false),
        ] {
            let text = format!("[signers.\"{key}\"]\n{signer}\n");
            let read = Settings::from_toml(&text, &path);
            assert_eq!(read.is_ok(), good, "{key}: {read:?}");
            if let Err(e) = read {
                assert!(e.to_string().contains("no INN"), "{e}");
                assert!(e.message().ru().contains("не ИНН"), "{e}");
            }
        }
        for (command, missing) in [
            ("[\"openssl\", \"-in\", \"{input}\"]", "{output}"),
            ("[\"sign.exe\", \"{output}\"]", "{input}"),
        ] {
            let e = error(&format!("[signer]\ncommand = {command}\n"));
            assert!(e.contains(&format!("no argument names {missing}")), "{e}");
        }
        // An empty token file says what to put in it.
        std::fs::write(dir.path().join("empty.txt"), "\n").unwrap();
        let e = error("token_file = \"empty.txt\"\n");
        assert!(
            e.contains("is empty: put the token from the bank's cabinet"),
            "{e}"
        );
        let e = error("token_flie = \"t.txt\"\n");
        assert!(
            e.contains("unknown field `token_flie`") && e.contains("`token_file`"),
            "{e}"
        );
        // A duration of the wrong type says what a duration is, in both languages.
        match Settings::from_toml("settle = true\n", &path).unwrap_err() {
            Error::Config(said) => {
                assert!(
                    said.en().contains("expected a duration (seconds"),
                    "{said:?}"
                );
                assert!(said.ru().contains("ожидается длительность"), "{said:?}");
                assert!(said.ru().contains("логическое значение"), "{said:?}");
                assert!(!said.en().contains("untagged"), "{said:?}");
            }
            other => panic!("{other}"),
        }
        // A setting named like a secret but not one (`token_retry`, a duration) is never
        // masked, nor the examples an error gives.
        let text = "token_retry = \"5m\"\nsettle = \"abc\"\n";
        let e = Settings::from_toml(text, &path).unwrap_err();
        let Error::Config(said) = &e else {
            panic!("{e}")
        };
        for said in [said.en(), said.ru()] {
            assert!(!said.contains("****") && said.contains("\"5m\""), "{said}");
        }
        // A misspelt key whose value holds words of key names: every key name is shown.
        for (value, keys) in [
            ("token.txt", ["`token`", "`token_file`"]),
            ("/etc/clientbank/signing-key", ["`signing`", "`signers`"]),
        ] {
            let text = format!("token_flie = \"{value}\"\n");
            let e = Settings::from_toml(&text, &path).unwrap_err();
            let (en, ru) = match &e {
                Error::Config(said) => (said.en().to_string(), said.ru().to_string()),
                other => panic!("{other}"),
            };
            for said in [&en, &ru] {
                assert!(!said.contains("****"), "{said}");
                for key in keys {
                    assert!(said.contains(key), "{key} in {said}");
                }
            }
        }
        let secret = "S3cretTokenValue-4242";
        for text in [
            format!("tokne = \"{secret}\"\n"),
            format!("token = \"{secret}\n"),
            format!("token = {secret}\n"),
        ] {
            let e = error(&text);
            assert!(!e.contains(secret) && !e.contains("4242"), "{e}");
        }
        // A Windows path in double quotes: the hint in both languages.
        for text in [
            "token_file = \"C:\\Обмен\\t.txt\"\n",
            "token_file = \"C:\\Обмен\\token.txt\"\n",
            "signer = [\"C:\\Обмен\\sign.exe\"]\n",
        ] {
            let said = Settings::from_toml(text, &path).unwrap_err().message();
            let (en, ru) = (said.en(), said.ru());
            assert!(en.contains(":1:") && en.contains("single quotes"), "{en}");
            assert!(
                ru.contains(":1:")
                    && ru.contains("нет знака")
                    && ru.contains("путь Windows пишите в одинарных кавычках"),
                "{ru}"
            );
        }
        assert!(Settings::from_toml("token_file = 'C:\\Обмен\\t.txt'\n", &path).is_ok());
        // Escapes TOML takes (`\t`, `\n`, `\b`) make the path another, silently: refused.
        for (text, at) in [
            ("token_file = \"C:\\temp\\token.txt\"\n", ":1: token_file:"),
            (
                "bank_url = \"http://127.0.0.1:9/v1\"\nsigner = [\"C:\\new\\bin.exe\"]\n",
                ":2: signer:",
            ),
            (
                "bank_url = \"http://127.0.0.1:9/v1\"\n[notify]\ncommand = [\"C:\\bin\\n.exe\"]\n",
                ":3: notify.command:",
            ),
        ] {
            let e = Settings::from_toml(text, &path).unwrap_err().message();
            assert!(
                e.en().contains(at) && e.en().contains("single quotes"),
                "{}",
                e.en()
            );
            assert!(
                e.ru().contains(at) && e.ru().contains("одинарных кавычках"),
                "{}",
                e.ru()
            );
        }
        let missing = Settings::from_toml(
            "token_file = \"nowhere.txt\"\nbank_url = \"http://127.0.0.1:9/v1\"\n",
            &path,
        )
        .unwrap();
        let e = missing.client().unwrap_err().to_string();
        assert!(e.contains("nowhere.txt does not exist"), "{e}");
        let (cp1251, _, _) =
            encoding_rs::WINDOWS_1251.encode("bank_url = \"https://x.example/v1\" # Банк\n");
        std::fs::write(&path, cp1251).unwrap();
        let e = Settings::load(dir.path(), None, &BTreeMap::new())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("clientbank.toml:1:") && e.contains("CP1251"),
            "{e}"
        );
        // Notepad's "Unicode" is UTF-16: said so, not taken for CP1251.
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(
                "bank_url = \"https://x.example/v1\" # Банк\n"
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes),
            )
            .collect();
        std::fs::write(&path, &utf16).unwrap();
        let read = Settings::load(dir.path(), None, &BTreeMap::new()).unwrap();
        assert_eq!(read.bank_url.as_deref(), Some("https://x.example/v1"));
        // Without the BOM that says so: said to be UTF-16, not taken for CP1251.
        std::fs::write(&path, &utf16[2..]).unwrap();
        let e = Settings::load(dir.path(), None, &BTreeMap::new()).unwrap_err();
        let said = e.message();
        assert!(
            said.en().contains("it is UTF-16") && !said.en().contains("CP1251"),
            "{e}"
        );
        assert!(said.ru().contains("он в UTF-16"), "{}", said.ru());
        // Notepad's UTF-8 starts with a BOM.
        std::fs::write(&path, "\u{feff}bank_url = \"https://x.example/v1\"\n").unwrap();
        let read = Settings::load(dir.path(), None, &BTreeMap::new()).unwrap();
        assert_eq!(read.bank_url.as_deref(), Some("https://x.example/v1"));
    }

    /// A token file (and a password file) as Windows tools save it: PowerShell 5.1's
    /// `echo TOKEN > token.txt` is UTF-16 with a BOM, Notepad's UTF-8 starts with a BOM; both
    /// are read. Bytes that are neither are said for what they look like, the token never shown.
    #[test]
    fn a_token_file_saved_by_windows_tools_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let token = dir.path().join("token.txt");
        std::fs::write(
            dir.path().join("clientbank.toml"),
            "token_file = 'token.txt'\njournal = \"postgres://u@127.0.0.1:5432/j\"\n\
             journal_password_file = 'password.txt'\n",
        )
        .unwrap();
        let utf16 = |bom: [u8; 2], unit: fn(u16) -> [u8; 2], text: &str| -> Vec<u8> {
            bom.into_iter()
                .chain(text.encode_utf16().flat_map(unit))
                .collect()
        };
        std::fs::write(
            dir.path().join("password.txt"),
            utf16([0xFF, 0xFE], u16::to_le_bytes, "hunter2\r\n"),
        )
        .unwrap();
        let load = || Settings::load(dir.path(), None, &BTreeMap::new());
        for bytes in [
            utf16([0xFF, 0xFE], u16::to_le_bytes, "Cabinet-Token-42\r\n"),
            utf16([0xFE, 0xFF], u16::to_be_bytes, "Cabinet-Token-42\r\n"),
            b"\xEF\xBB\xBFCabinet-Token-42".to_vec(),
        ] {
            std::fs::write(&token, &bytes).unwrap();
            let s = load().unwrap();
            assert_eq!(s.token.unwrap().expose_secret(), "Cabinet-Token-42");
            let journal = s.journal.unwrap();
            assert_eq!(journal.password.unwrap().expose_secret(), "hunter2");
        }
        // UTF-16 without its BOM, and CP1251: said for what they are.
        for (bytes, en, ru) in [
            (
                utf16([0xFF, 0xFE], u16::to_le_bytes, "Cabinet-Token-42")[2..].to_vec(),
                "it is UTF-16",
                "он в UTF-16",
            ),
            (b"\xD2\xEE\xEA\xE5\xED-42".to_vec(), "CP1251", "CP1251"),
        ] {
            std::fs::write(&token, &bytes).unwrap();
            let said = load().unwrap_err().message();
            for (said, what, save) in [
                (said.en(), en, "save it as UTF-8"),
                (said.ru(), ru, "сохраните его в UTF-8"),
            ] {
                assert!(
                    said.contains("token_file") && said.contains(what) && said.contains(save),
                    "{said}"
                );
                assert!(!said.contains("Token-42") && !said.contains("неверные данные"));
            }
        }
    }

    /// A key of the top level (or of another table) written after a table's header lands in
    /// that table: the error says where it landed and where it goes, in both languages.
    /// The refusal of the configuration `text` (read as `c.toml`), in English and Russian.
    fn said(text: &str) -> (String, String) {
        let e = Settings::from_toml(text, Path::new("c.toml")).unwrap_err();
        let said = e.message();
        (said.en().to_string(), said.ru().to_string())
    }

    #[test]
    fn a_notify_program_that_is_not_found_is_said_at_once() {
        let path = Path::new("c.toml");
        let read = |program: &str| {
            let text = format!("[notify]\ncommand = [{program:?}]\n");
            Settings::from_toml(&text, path).unwrap().warnings
        };
        let said = read("no-such-notify-program-x");
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0]
                .en()
                .contains("`no-such-notify-program-x` is not found"),
            "{said:?}"
        );
        assert!(said[0].ru().contains("не найдена"), "{said:?}");
        let here = std::env::current_exe().unwrap();
        assert!(read(here.to_str().unwrap()).is_empty());
    }

    #[test]
    fn a_key_or_table_written_twice_names_the_first() {
        let signer = "command = [\"s\", \"{input}\", \"{output}\"]";
        let (en, ru) = said(&format!(
            "sandbox = true\n[signers.\"7701234560\"]\n{signer}\n\n[signers.\"7701234560\"]\n{signer}\n"
        ));
        assert!(
            en.ends_with(
                "c.toml:5: [signers.\"7701234560\"] is written twice (first on line 2): keep one, \
                 with what both say"
            ),
            "{en}"
        );
        assert!(ru.contains("повторяется (впервые — в строке 2)"), "{ru}");
        let (en, _) =
            said("bank_url = \"http://127.0.0.1:1/v1\"\nsigning = \"manual\"\nbank_url = \"x\"\n");
        assert!(
            en.contains("c.toml:3: `bank_url` is written twice (first on line 1)"),
            "{en}"
        );
    }

    #[test]
    fn a_list_left_open_is_said_where_it_opens() {
        // Followed by a key: toml notices it there, and would name that key.
        let (en, ru) = said(
            "sandbox = true\npatterns = [\n  \"*.txt\",\n  \"*.json\"\nlog_format = \"text\"\n",
        );
        assert_eq!(
            en,
            "configuration: c.toml:2:12: patterns: the list opened here is not closed: put `]` after its last \
             element (toml noticed it at line 5)"
        );
        assert!(!en.contains("log_format"), "{en}");
        assert!(
            ru.starts_with("настройки: c.toml:2:12: patterns: список, открытый здесь, не закрыт"),
            "{ru}"
        );
        // At the end of the file, after comments.
        let (en, _) = said("patterns = [\n  \"*.txt\", # the drops\n  \"*.json\"\n# more later\n");
        assert!(
            en.contains(" c.toml:1:12: patterns: the list opened here"),
            "{en}"
        );
        // Open on its own line only: toml's place is the list's line already.
        let (en, _) = said("patterns = [\"*.txt\"\n");
        assert!(
            en.contains(" c.toml:1:") && !en.contains("opened here"),
            "{en}"
        );
    }

    #[test]
    fn a_key_that_landed_inside_a_table_is_said_so() {
        let (en, ru) = said(
            "sandbox = true\n\n[statements] # back to 1C\naccounts = [\"1\"]\n\
             bank_url = \"http://127.0.0.1:9/v1\"\n",
        );
        assert!(en.contains("c.toml:5:1: unknown field `bank_url`"), "{en}");
        assert!(
            en.contains(
                "`bank_url` is a top-level key, but here it is inside the table [statements] \
                 opened on line 3: top-level keys go before the first table"
            ),
            "{en}"
        );
        assert!(
            ru.contains("c.toml:5:1: неизвестный ключ `bank_url`"),
            "{ru}"
        );
        assert!(
            ru.contains(
                "`bank_url` — ключ верхнего уровня, а здесь он внутри таблицы [statements], \
                 открытой в строке 3: ключи верхнего уровня пишутся до первой таблицы"
            ),
            "{ru}"
        );
        // A key of another table.
        let (en, ru) = said("[statements]\naccounts = [\"1\"]\naddr = \"127.0.0.1:8091\"\n");
        assert!(
            en.contains(
                "`addr` is a key of the table [webhook], but here it is inside the table \
                 [statements] opened on line 1: move it under [webhook]"
            ),
            "{en}"
        );
        assert!(ru.contains("перенесите его под [webhook]"), "{ru}");
        // Under a signer of a company too; a misspelt key gets no note.
        let (en, _) = said("[signers.\"7701\"]\ncommand = [\"s\"]\nsettle = 1\n");
        assert!(
            en.contains("top-level key") && en.contains("[signers.\"7701\"]"),
            "{en}"
        );
        for text in [
            "[statements]\naccounts = [\"1\"]\nacounts = [\"2\"]\n",
            "bank_url = \"https://x.example/v1\"\nbank_ulr = \"y\"\n",
        ] {
            let (en, ru) = said(text);
            assert!(
                en.contains("unknown field") && !en.contains("inside the table"),
                "{en}"
            );
            assert!(!ru.contains("внутри таблицы"), "{ru}");
        }
    }

    #[test]
    fn patterns_and_temporary_files() {
        let s = Settings::default();
        assert!(s.takes("1c_to_kl.txt"));
        assert!(s.takes("ПЛАТЁЖКИ.TXT"));
        assert!(s.takes("a.Json"));
        assert!(!s.takes("~$a.txt"));
        assert!(!s.takes(".a.txt"));
        assert!(!s.takes("a.txt.part"));
        assert!(!s.takes("a.tmp"));
        assert!(!s.takes("a.xml"));
    }

    #[test]
    fn a_signer_is_a_table_or_the_list_alone() {
        for text in [
            "signer = [\"sign\", \"{input}\", \"{output}\"]\n",
            "signer = { command = [\"sign\", \"{input}\", \"{output}\"] }\n",
        ] {
            let s = Settings::from_toml(text, Path::new("c.toml")).unwrap();
            assert_eq!(s.signer.unwrap()[0], "sign", "{text}");
        }
        let e = Settings::from_toml("signer = 5\n", Path::new("c.toml")).unwrap_err();
        assert!(e.to_string().contains("a signer command"), "{e}");
        assert!(
            e.message().ru().contains("ожидается команда подписи"),
            "{e}"
        );
    }

    #[test]
    fn durations_and_unknown_keys() {
        let s = Settings::from_toml(
            "settle = \"200ms\"\npoll_interval = 1.5\nsigning = \"auto\"\nroute = \"1c\"\n\
             [signers.7701234560]\ncommand = [\"sign\", \"{input}\", \"{output}\"]\n",
            Path::new("c.toml"),
        )
        .unwrap();
        assert_eq!(s.settle, Duration::from_millis(200));
        assert_eq!(s.poll_interval, Duration::from_millis(1500));
        assert_eq!(s.signing, Signing::Auto);
        assert_eq!(s.route, Route::OneC);
        assert_eq!(s.signer_for(Some("7701234560"), "x").unwrap()[0], "sign");
        assert!(s.signer_for(Some("1"), "x").is_none());
        let e = Settings::from_toml("signing = \"auto\"\n", Path::new("c.toml")).unwrap_err();
        assert!(e.to_string().contains("no signer"), "{e}");
        let e = Settings::from_toml("setle = 1\n", Path::new("c.toml")).unwrap_err();
        assert!(e.to_string().contains("setle"), "{e}");
        let e = Settings::from_toml("settle = \"2 weeks\"\n", Path::new("c.toml")).unwrap_err();
        assert!(e.to_string().contains("settle"), "{e}");
        assert!(e.to_string().contains("more than a day"), "{e}");
        assert!(e.to_string().contains("14 d is more"), "{e}");
        // Durations as the program writes them in Russian are read too.
        for (text, expected) in [
            ("5 мин", 300_000),
            ("2 с", 2_000),
            ("200 мс", 200),
            ("1 ч 30 мин", 5_400_000),
            ("1ч 5с", 3_605_000),
        ] {
            let s = Settings::from_toml(&format!("settle = \"{text}\"\n"), Path::new("c.toml"))
                .unwrap();
            assert_eq!(s.settle, Duration::from_millis(expected), "{text}");
        }
        // Durations as people write them.
        let s = Settings::from_toml(
            "token_retry = \"1h 30m\"\nsettle = \"1500ms\"\npoll_interval = 7\n",
            Path::new("c.toml"),
        )
        .unwrap();
        assert_eq!(s.token_retry, Duration::from_secs(5400));
        assert_eq!(s.settle, Duration::from_millis(1500));
        assert_eq!(s.poll_interval, Duration::from_secs(7));
    }

    #[test]
    fn bad_values_are_refused_at_their_place() {
        for (text, place, said) in [
            (
                "settle = \"2s\"\nretry_max = \"2 parsecs\"\n",
                "c.toml:2:",
                "not a duration",
            ),
            ("incomplete_after = \"0s\"\n", "c.toml:1:", "at least 1 s"),
            ("poll_interval = 0.01\n", "c.toml:1:", "at least 50 ms"),
            ("settle = 86401\n", "c.toml:1:", "more than a day"),
            ("patterns = []\n", "c.toml:1:", "at least one pattern"),
            ("log_format = \"xml\"\n", "c.toml:1:", "log_format"),
            (
                "[statements]\naccounts = [\"1\"]\ndays = 0\n",
                "c.toml:3:",
                "from 1 to 366",
            ),
            (
                "[statements]\naccounts = [\"1\"]\ninterval = \"0s\"\n",
                "c.toml:3:",
                "at least 1 s",
            ),
            (
                "[statements]\naccounts = [\"1\"]\nencoding = \"koi8\"\n",
                "c.toml:3:",
                "koi8",
            ),
            (
                "[statements]\naccounts = [\"1\"]\nfile = \"../x\"\n",
                "c.toml:3:",
                "without a folder",
            ),
        ] {
            let e = Settings::from_toml(text, Path::new("c.toml")).unwrap_err();
            let e = e.to_string();
            assert!(e.contains(place) && e.contains(said), "{text:?}: {e}");
        }
        let e = Settings::from_toml(
            "retry_min = \"5s\"\nretry_max = \"1s\"\n",
            Path::new("c.toml"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("retry_min"), "{e}");
        let s = Settings::from_toml("patterns = [\"[ab].txt\"]\n", Path::new("c.toml")).unwrap();
        assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    }

    #[cfg(unix)]
    #[test]
    fn a_token_file_others_can_read_gets_a_warning() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let token = dir.path().join("token.txt");
        let config = dir.path().join("clientbank.toml");
        std::fs::write(&token, "s3cr3t\n").unwrap();
        std::fs::write(&config, "token_file = \"token.txt\"\n").unwrap();
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();
        let s = Settings::load(dir.path(), None, &BTreeMap::new()).unwrap();
        assert_eq!(s.token.as_ref().unwrap().expose_secret(), "s3cr3t");
        assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
        let (en, ru) = (s.warnings[0].en(), s.warnings[0].ru());
        assert!(en.contains("chmod 600") && ru.contains("chmod 600"), "{ru}");
        assert!(!en.contains("s3cr3t") && !ru.contains("s3cr3t"));
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
        let s = Settings::load(dir.path(), None, &BTreeMap::new()).unwrap();
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        // The environment wins over the file.
        let env = BTreeMap::from([("CLIENTBANK_TOKEN".to_string(), "from-env".to_string())]);
        let s = Settings::load(dir.path(), None, &env).unwrap();
        assert_eq!(s.token.as_ref().unwrap().expose_secret(), "from-env");
    }

    #[test]
    fn config_errors_name_the_place_and_never_show_the_token() {
        let secret = "S3cr3tT0ken-value";
        let cases = [
            format!("settle = \"2s\"\ntoken = \"{secret}\n"),
            format!("settle = \"2s\"\ntoken = {secret}\n"),
            "settle = \"2s\"\ntoken = 4815162342\n".to_string(),
            format!("settle = \"2s\"\ntoken = [\"{secret}\", \"x\"]\n"),
        ];
        for text in &cases {
            let e = Settings::from_toml(text, Path::new("c.toml")).unwrap_err();
            let shown = format!("{e} {e:?}");
            assert!(
                !shown.contains(secret) && !shown.contains("4815162342"),
                "{text:?}: {shown}"
            );
            assert!(shown.contains("c.toml:2:"), "{text:?}: {shown}");
        }
        // The same through a file, as the daemon reads it again.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("clientbank.toml"), &cases[0]).unwrap();
        let e = Settings::load(dir.path(), None, &BTreeMap::new()).unwrap_err();
        assert!(!e.to_string().contains(secret), "{e}");
        assert!(e.to_string().contains("clientbank.toml:2:"), "{e}");
    }

    #[test]
    fn a_token_that_cannot_be_sent_is_refused_when_loading() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("token.txt"), "first-line\nsecond-line\n").unwrap();
        std::fs::write(
            dir.path().join("clientbank.toml"),
            "token_file = \"token.txt\"\n",
        )
        .unwrap();
        let e = Settings::load(dir.path(), None, &BTreeMap::new()).unwrap_err();
        assert!(e.to_string().contains("2 lines"), "{e}");
        assert!(!e.to_string().contains("first-line"), "{e}");
        let e = Settings::from_toml("token = \"bad\\nX\"\n", Path::new("c.toml")).unwrap_err();
        assert!(e.to_string().contains("line break"), "{e}");
        assert!(!e.to_string().contains("bad"), "{e}");
        let env = BTreeMap::from([("CLIENTBANK_TOKEN".to_string(), "two words".to_string())]);
        std::fs::remove_file(dir.path().join("clientbank.toml")).unwrap();
        let e = Settings::load(dir.path(), None, &env).unwrap_err();
        assert!(e.to_string().contains("CLIENTBANK_TOKEN"), "{e}");
        assert!(!e.to_string().contains("words"), "{e}");
    }

    #[test]
    fn the_webhook_table() {
        use crate::webhook::Key;
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("clientbank.toml");
        let read = |toml: &str| Settings::from_toml(toml, &config);
        // What the key is, or why there is none, said without a secret.
        let key = |s: &Settings| s.webhook_key().map_err(|e| e.to_string());
        let token = |t: &str| -> Result<Key, String> { Ok(Key::Token(Token::new(t))) };
        let secret = |t: &str| -> Result<Key, String> { Ok(Key::ClientSecret(Token::new(t))) };
        // No table: no listener; the key defaults to the token.
        let s = read("token = \"cabinet-token-1\"\n").unwrap();
        assert_eq!(s.webhook, None);
        assert_eq!(key(&s), token("cabinet-token-1"));
        let s =
            read("token = \"cabinet-token-1\"\n[webhook]\naddr = \"127.0.0.1:8091\"\n").unwrap();
        let webhook = s.webhook.clone().unwrap();
        assert_eq!(webhook.addr, "127.0.0.1:8091".parse().unwrap());
        assert_eq!(webhook.key, WebhookKeyKind::Token);
        // The client secret from its file.
        std::fs::write(dir.path().join("secret.txt"), "s3cret-word\n").unwrap();
        let s = read(
            "[webhook]\naddr = \"0.0.0.0:9000\"\nkey = \"client-secret\"\n\
             client_secret_file = \"secret.txt\"\n",
        )
        .unwrap();
        assert_eq!(key(&s), secret("s3cret-word"));
        assert!(!format!("{s:?}").contains("s3cret-word"));
        // What is missing or wrong is said, never a secret.
        let e = read("[webhook]\nkey = \"token\"\n").unwrap_err();
        assert!(e.to_string().contains("addr"), "{e}");
        let e = read("[webhook]\naddr = \"localhost\"\n").unwrap_err();
        assert!(e.to_string().contains("not an address"), "{e}");
        // The application's secret may come from [app]: said when the key is asked for.
        let mut s = read("[webhook]\naddr = \"127.0.0.1:1\"\nkey = \"client-secret\"\n").unwrap();
        let e = key(&s).unwrap_err();
        assert!(e.contains("client_secret_file"), "{e}");
        s.app = Some(App::sandbox());
        assert_eq!(key(&s), secret("sandboxappsecret"));
        // A token `clientbank login` stored is keyed by the application's secret.
        s.webhook.as_mut().unwrap().key = WebhookKeyKind::Token;
        s.token = Some(Token::new("login-token-0123456789"));
        s.token_from_login = true;
        assert_eq!(key(&s), secret("sandboxappsecret"));
        s.token_from_login = false;
        assert_eq!(key(&s), token("login-token-0123456789"));
        let e = read("[webhook]\naddr = \"127.0.0.1:1\"\nkey = \"sha\"\n").unwrap_err();
        assert!(e.to_string().contains("client-secret"), "{e}");
        let s = read("[webhook]\naddr = \"127.0.0.1:1\"\n").unwrap();
        let e = key(&s).unwrap_err();
        assert!(e.contains("CLIENTBANK_TOKEN"), "{e}");
    }

    #[test]
    fn the_token_never_shows_in_debug() {
        let s = Settings::from_toml("token = \"s3cr3t-token\"\n", Path::new("c.toml")).unwrap();
        assert!(!format!("{s:?}").contains("s3cr3t-token"));
    }

    #[test]
    fn app_table_resolves_with_defaults_and_a_redacted_secret() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("secret.txt"), "app-s3cret\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(
                dir.path().join("secret.txt"),
                std::fs::Permissions::from_mode(0o600),
            )
            .unwrap();
        }
        let config = dir.path().join("clientbank.toml");
        std::fs::write(
            &config,
            "[app]\nclient_id = \"myapp\"\nclient_secret_file = \"secret.txt\"\n\
             redirect_uri = \"http://127.0.0.1:8080/callback\"\n",
        )
        .unwrap();
        let s = Settings::load(dir.path(), None, &BTreeMap::new()).unwrap();
        let app = s.app.clone().unwrap();
        assert_eq!(app.client_id, "myapp");
        assert_eq!(app.scope, DEFAULT_SCOPE);
        assert_eq!(
            app.client_secret.as_ref().unwrap().expose_secret(),
            "app-s3cret"
        );
        assert!(!format!("{s:?}").contains("app-s3cret"));
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        // The environment's secret wins.
        let env = BTreeMap::from([(
            "CLIENTBANK_CLIENT_SECRET".to_string(),
            "from-env".to_string(),
        )]);
        let s = Settings::load(dir.path(), None, &env).unwrap();
        assert_eq!(
            s.app.unwrap().client_secret.unwrap().expose_secret(),
            "from-env"
        );
        // Inline and file at once, an unknown key, an empty client id: refused.
        for bad in [
            "[app]\nclient_id = \"a\"\nclient_secret = \"x\"\nclient_secret_file = \"s\"\n\
             redirect_uri = \"http://127.0.0.1:1/\"\n",
            "[app]\nclient_id = \"a\"\nredirect_uri = \"http://127.0.0.1:1/\"\nscopes = \"x\"\n",
            "[app]\nclient_id = \" \"\nredirect_uri = \"http://127.0.0.1:1/\"\n",
        ] {
            assert!(
                Settings::from_toml(bad, Path::new("c.toml")).is_err(),
                "{bad}"
            );
        }
        // A secret that cannot be sent is refused without showing it.
        let e = Settings::from_toml(
            "[app]\nclient_id = \"a\"\nclient_secret = \"two words\"\n\
             redirect_uri = \"http://127.0.0.1:1/\"\n",
            Path::new("c.toml"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("client secret"), "{e}");
        assert!(!e.to_string().contains("words"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn an_inline_client_secret_others_can_read_gets_a_warning() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("clientbank.toml");
        std::fs::write(
            &config,
            "[app]\nclient_id = \"a\"\nclient_secret = \"inline-s3cret\"\n\
             redirect_uri = \"http://127.0.0.1:1/\"\n",
        )
        .unwrap();
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();
        let s = Settings::load(dir.path(), None, &BTreeMap::new()).unwrap();
        assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
        let (en, ru) = (s.warnings[0].en(), s.warnings[0].ru());
        assert!(
            en.contains("client secret") && en.contains("chmod 600"),
            "{en}"
        );
        assert!(
            ru.contains("секрет приложения") && ru.contains("chmod 600"),
            "{ru}"
        );
        assert!(!en.contains("inline-s3cret") && !ru.contains("inline-s3cret"));
    }

    #[test]
    fn the_login_token_file_is_the_fallback_and_marks_the_token_as_logins() {
        let dir = tempfile::tempdir().unwrap();
        let xdg = dir.path().join("xdg");
        let env = BTreeMap::from([
            ("XDG_CONFIG_HOME".to_string(), xdg.display().to_string()),
            (
                "HOME".to_string(),
                dir.path().join("home").display().to_string(),
            ),
            (
                "APPDATA".to_string(),
                dir.path().join("appdata").display().to_string(),
            ),
        ]);
        let file = default_token_file(&env).unwrap();
        if cfg!(all(unix, not(target_os = "macos"))) {
            assert_eq!(file, xdg.join("clientbank").join("token"));
        }
        // Nothing stored yet: no token, the file named for login.
        let s = Settings::load(dir.path(), None, &env).unwrap();
        assert!(s.token.is_none() && !s.token_from_login);
        assert_eq!(s.token_file.as_deref(), Some(file.as_path()));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "login-token\n").unwrap();
        let s = Settings::load(dir.path(), None, &env).unwrap();
        assert_eq!(s.token.as_ref().unwrap().expose_secret(), "login-token");
        assert!(s.token_from_login);
        // A token of the environment or the file wins and is not login's.
        let mut with_env = env.clone();
        with_env.insert("CLIENTBANK_TOKEN".into(), "cabinet".into());
        let s = Settings::load(dir.path(), None, &with_env).unwrap();
        assert_eq!(s.token.as_ref().unwrap().expose_secret(), "cabinet");
        assert!(!s.token_from_login);
        std::fs::write(dir.path().join("clientbank.toml"), "token = \"inline\"\n").unwrap();
        let s = Settings::load(dir.path(), None, &env).unwrap();
        assert_eq!(s.token.as_ref().unwrap().expose_secret(), "inline");
        assert!(!s.token_from_login);
        // `token_file` names where login writes; it may not exist yet.
        std::fs::write(
            dir.path().join("clientbank.toml"),
            "bank_url = \"http://127.0.0.1:1/v1\"\ntoken_file = \"my-token\"\n\
             [app]\nclient_id = \"a\"\n\
             redirect_uri = \"http://127.0.0.1:1/\"\n",
        )
        .unwrap();
        let s = Settings::load(dir.path(), None, &env).unwrap();
        assert!(s.token.is_none());
        assert_eq!(s.token_file, Some(dir.path().join("my-token")));
        let e = s.client().unwrap_err();
        assert!(e.to_string().contains("clientbank login"), "{e}");
        std::fs::write(dir.path().join("my-token"), "written-by-login\n").unwrap();
        let s = Settings::load(dir.path(), None, &env).unwrap();
        assert_eq!(
            s.token.as_ref().unwrap().expose_secret(),
            "written-by-login"
        );
        assert!(
            s.token_from_login,
            "beside an [app] the token file is login's"
        );
    }
}
