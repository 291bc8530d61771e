//! `clientbank init DIR`: a watch folder set up in one step — its folders, and a
//! `clientbank.toml` that names every key with its default and what it is for, in Russian and
//! English, every key commented out so that the file works as it is and each line is one edit
//! away.

use std::path::Path;

use clientbank_diagnostic::os::{Act, cannot};

use crate::Error;
use crate::folders::Layout;

/// The configuration `init` writes. Every key is commented out at its default (a commented
/// value that is not the default is an example). A test reads it with each key uncommented.
pub const TEMPLATE: &str = r##"# clientbank.toml — настройки папки обмена / the exchange folder's configuration.
# Раскомментируйте строку (уберите "# ") и измените значение. Пути — относительно этого файла.
# Uncomment a line (remove "# ") and change its value. Paths are relative to this file.
# Windows: пишите пути в одинарных кавычках / write paths in single quotes: 'C:\Обмен\token.txt'

# --- Банк / The bank ---
# Адрес API банка, оканчивается на /v1 / The bank API's root, ending in /v1:
# bank_url = "https://bank.example/api/v1"
# Файл с токеном (из интернет-банка, или его пишет `clientbank login`); токен в этом файле
# не храните / A file holding the token (from the bank's cabinet, or written by `clientbank login`);
# keep no token in this file:
# token_file = "token.txt"
# Корневой сертификат банка, если он не из системного хранилища / The bank's root certificate, when
# it is not in the system's store:
# root_ca = "bank-root.pem"
# Режим песочницы банка (заголовок sandbox: on) / The bank's sandbox mode (header sandbox: on):
# sandbox = false

# --- Отправка / Sending ---
# Как уходят платежи: auto (JSON по одному, если JSON несёт всё, иначе файл 1С целиком), json, 1c /
# How payments go: auto (JSON one by one when it carries everything, else the 1C file whole), json, 1c:
# route = "auto"
# Сразу на подпись (targetStatus InSigning) / Straight to signing (targetStatus InSigning):
# in_signing = true
# Подпись: manual (`clientbank sign`) или auto (сразу после загрузки) / Signing: manual (`clientbank
# sign`) or auto (right after each upload):
# signing = "manual"
# Подписант для всех организаций; {input} — строка для подписи, {output} — файл подписи (DER) /
# The signer of every company; {input}: the string to sign, {output}: the signature file (DER):
# signer = { command = ["openssl", "cms", "-sign", "-binary", "-outform", "DER", "-signer", "cert.pem", "-inkey", "key.pem", "-in", "{input}", "-out", "{output}"] }

# --- Папка / The folder ---
# Как часто смотреть в inbox/ / How often inbox/ is looked at:
# poll_interval = "5s"
# Файл берётся, когда не меняется столько времени / A file is taken once unchanged this long:
# settle = "2s"
# Повтор, когда банк недоступен: от и до / Retries while the bank is unavailable: from, up to:
# retry_min = "1s"
# retry_max = "60s"
# Повтор после отказа банка в токене / Trying again after the bank refused the token:
# token_retry = "5m"
# Сколько `watch --once` ждёт банк / How long `watch --once` waits for the bank:
# once_patience = "60s"
# Неполный файл (без КонецФайла) отклоняется через / A file cut short is rejected after:
# incomplete_after = "10m"
# Какие файлы брать из inbox/ / Which inbox files are taken:
# patterns = ["*.txt", "*.json"]
# Журнал работы: text или json / Log lines: text or json:
# log_format = "text"

# --- Журнал в PostgreSQL (несколько демонов на разных машинах) / The journal in PostgreSQL
# (several daemons on several machines). Без этого ключа журнал — файл SQLite в .clientbank/ /
# Without this key the journal is the SQLite file in .clientbank/ ---
# Адрес без пароля / The address, without a password:
# journal = "postgres://clientbank@127.0.0.1:5432/clientbank"
# Пароль: в этом файле, иначе из PGPASSWORD / The password: in this file, else from PGPASSWORD:
# journal_password_file = "journal-password.txt"
# Аренда папки: без продления другой демон забирает папку через / A folder's lease: another
# daemon takes the folder over when it is not renewed for:
# journal_lease = "30s"

# --- Подписант одной организации (по ИНН; вместо signer) / One company's signer (by INN; instead
# of signer). Таблицы [..] — в конце файла / Tables [..] go at the end of the file ---
# [signers."7701234560"]
# command = ["openssl", "cms", "-sign", "-binary", "-outform", "DER", "-engine", "gost", "-signer", "cert.pem", "-inkey", "key.pem", "-in", "{input}", "-out", "{output}"]

# --- Выписка для 1С в outbox/ / The statement for 1C in outbox/ ---
# [statements]
# accounts = ["40702810938000012345"]
# Сколько дней назад (вместе с сегодняшним) / How many days back (with today):
# days = 2
# Как часто обновлять / How often it is brought up to date:
# interval = "10m"
# Кодировка: windows (CP1251), dos (CP866), utf-8 / Encoding: windows (CP1251), dos (CP866), utf-8:
# encoding = "windows"
# file = "kl_to_1c.txt"

# --- Вход в банк (`clientbank login`) / Signing in (`clientbank login`) ---
# [app]
# client_id = "my-app"
# client_secret_file = "client_secret.txt"
# redirect_uri = "http://127.0.0.1:8090/callback"
# scope = "account-info operation-history money-transfer"

# --- Уведомления банка (`clientbank webhook`) / The bank's notifications (`clientbank webhook`) ---
# [webhook]
# addr = "127.0.0.1:8091"
# Чем подписаны уведомления: token или client-secret / What keys the notifications: token or
# client-secret:
# key = "token"
# client_secret_file = "client_secret.txt"

# --- Метрики для Prometheus (`watch`) / Metrics for Prometheus (`watch`) ---
# Адрес, на котором `watch` отдаёт GET /metrics; только адрес этой машины (127.0.0.1 или [::1]) /
# Where `watch` serves GET /metrics; a loopback address only (127.0.0.1 or [::1]):
# [metrics]
# listen = "127.0.0.1:9101"

# --- Сообщить человеку / Tell a person ---
# Команда получает событие (файл в review/ или rejected/, платежи долго ждут подписи) одним
# JSON-объектом на стандартный ввод / The command gets the event (a file in review/ or rejected/,
# payments waiting long for a signature) as one JSON object on its standard input:
# [notify]
# command = ["notify.cmd"]
# Через сколько сказать о неподписанных платежах / When to tell of unsigned payments:
# signature_after = "4h"
"##;

/// What [`init`] made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Initialised {
    /// Whether `clientbank.toml` was written (false: one was there and is kept).
    pub config_written: bool,
}

/// Makes DIR a watch folder: its folders, and [`TEMPLATE`] as `DIR/clientbank.toml` unless one
/// is there (never overwritten).
pub fn init(dir: &Path) -> Result<Initialised, Error> {
    crate::folders::not_a_part(dir)?;
    crate::folders::not_a_file(dir)?;
    std::fs::create_dir_all(dir).map_err(Error::io(cannot(Act::Create, dir.display())))?;
    Layout::new(dir).create()?;
    let config = dir.join(clientbank_bank::config::CONFIG_FILE);
    let cannot_write = || Error::io(cannot(Act::Write, config.display()));
    let written = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&config)
    {
        Ok(mut file) => {
            std::io::Write::write_all(&mut file, TEMPLATE.as_bytes()).map_err(cannot_write())?;
            true
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
        Err(e) => return Err(cannot_write()(e)),
    };
    Ok(Initialised {
        config_written: written,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clientbank_bank::Settings;

    /// Every key of the configuration, as the reader knows them (`FileConfig` and its tables).
    const KEYS: &[&str] = &[
        "bank_url",
        "token_file",
        "root_ca",
        "sandbox",
        "route",
        "in_signing",
        "signing",
        "signer",
        "[signers.",
        "poll_interval",
        "settle",
        "retry_min",
        "retry_max",
        "token_retry",
        "once_patience",
        "incomplete_after",
        "patterns",
        "log_format",
        "journal",
        "journal_password_file",
        "journal_lease",
        "[statements]",
        "accounts",
        "days",
        "interval",
        "encoding",
        "file",
        "[app]",
        "client_id",
        "client_secret_file",
        "redirect_uri",
        "scope",
        "[webhook]",
        "addr",
        "key",
        "[notify]",
        "command",
        "signature_after",
    ];

    fn uncommented(text: &str) -> String {
        text.lines()
            .map(|line| match line.strip_prefix("# ") {
                Some(rest)
                    if rest.starts_with('[')
                        || rest.split_once(" = ").is_some_and(|(k, _)| {
                            !k.contains(' ')
                                && k.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                        }) =>
                {
                    rest.to_string()
                }
                _ => line.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_template_works_as_it_is_and_with_every_key_uncommented() {
        let path = Path::new("clientbank.toml");
        let as_is = Settings::from_toml(TEMPLATE, path).unwrap();
        assert_eq!(as_is.bank_url, None, "every key commented out");
        let all = uncommented(TEMPLATE);
        for key in KEYS {
            assert!(
                all.lines().any(|l| l.starts_with(key)),
                "{key} is in the template"
            );
        }
        // `token` is deliberately left out (a token belongs in token_file, not here). The
        // files the keys name, beside the configuration.
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [
            ("client_secret.txt", "secret\n"),
            ("token.txt", "token\n"),
            ("journal-password.txt", "pw\n"),
        ] {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let settings = Settings::from_toml(&all, &dir.path().join("clientbank.toml")).unwrap();
        assert_eq!(
            settings.bank_url.as_deref(),
            Some("https://bank.example/api/v1")
        );
        assert!(settings.statements.is_some() && settings.webhook.is_some());
        let journal = settings.journal.unwrap();
        assert_eq!(journal.password.unwrap().expose_secret(), "pw");
        assert_eq!(journal.lease, std::time::Duration::from_secs(30));
        assert_eq!(
            settings.notify.unwrap().signature_after,
            std::time::Duration::from_secs(4 * 3600)
        );
    }

    #[test]
    fn init_makes_the_folders_and_never_overwrites_a_configuration() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("Обмен с банком");
        assert!(init(&dir).unwrap().config_written);
        for folder in crate::folders::Folder::ALL {
            assert!(Layout::new(&dir).folder(folder).is_dir(), "{folder}");
        }
        std::fs::write(dir.join("clientbank.toml"), "bank_url = \"x\"\n").unwrap();
        assert!(!init(&dir).unwrap().config_written);
        assert_eq!(
            std::fs::read_to_string(dir.join("clientbank.toml")).unwrap(),
            "bank_url = \"x\"\n"
        );
    }
}
