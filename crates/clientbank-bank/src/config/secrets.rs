//! Secrets in the configuration: the token and the application's secret word, from files or the environment, checked, never shown.

use super::*;

/// The token of a token file, or `None` when the file does not exist. An empty file, one of
/// several lines or one that cannot be read is refused, naming the file, never the token; a
/// file other users can read adds a warning.
pub(super) fn read_token_file(
    path: &Path,
    warnings: &mut Vec<Message>,
) -> Result<Option<Token>, Error> {
    let token = match std::fs::read(path) {
        Ok(bytes) => setting_text("token_file", path, bytes)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(cannot_read_setting_file("token_file", path, &e)),
    };
    if token.trim().is_empty() {
        return Err(Error::config(
            format!(
                "token_file: {} is empty: put the token from the bank's cabinet in it, or run \
                 `clientbank login`",
                path.display()
            ),
            format!(
                "token_file: {} пуст: запишите в него токен из интернет-банка или выполните \
                 `clientbank login`",
                path.display()
            ),
        ));
    }
    if readable_by_others(path) {
        let shown = path.display();
        warnings.push(tr!(
            "the token file {shown} can be read by other users: chmod 600 it" ;
            "файл токена {shown} могут читать другие пользователи: выполните chmod 600"
        ));
    }
    let lines = token.trim().lines().count();
    if lines > 1 {
        return Err(Error::config(
            format!(
                "token_file: {} holds {lines} lines: it must hold the token alone, on one line",
                path.display()
            ),
            format!(
                "token_file: в {} строк: {lines}; в нём должен быть один токен в одной строке",
                path.display()
            ),
        ));
    }
    Ok(Some(checked_token(
        token.trim(),
        &Message::same(format!("token_file {}", path.display())),
    )?))
}

/// `[app]` resolved: the secret read from its file (relative to the configuration's folder),
/// inline with a warning when others can read the configuration, never both.
pub(super) fn resolve_app(
    app: AppConfig,
    path: &Path,
    base: &Path,
    warnings: &mut Vec<Message>,
) -> Result<App, Error> {
    if app.client_id.trim().is_empty() {
        return Err(Error::config(
            "app.client_id: empty",
            "app.client_id: пусто",
        ));
    }
    if app.redirect_uri.trim().is_empty() {
        return Err(Error::config(
            "app.redirect_uri: empty (the redirect address registered at the bank, e.g. \
             \"http://127.0.0.1:8080/callback\")",
            "app.redirect_uri: пусто (адрес перенаправления, зарегистрированный в банке, \
             например \"http://127.0.0.1:8080/callback\")",
        ));
    }
    let client_secret = match (app.client_secret, app.client_secret_file) {
        (Some(_), Some(_)) => {
            return Err(Error::config(
                format!(
                    "{}: give app.client_secret or app.client_secret_file, not both",
                    path.display()
                ),
                format!(
                    "{}: укажите app.client_secret или app.client_secret_file, не оба",
                    path.display()
                ),
            ));
        }
        (Some(secret), None) => {
            if readable_by_others(path) {
                let shown = path.display();
                warnings.push(tr!(
                    "{shown} holds the application's client secret and other users can read \
                     it: chmod 600 it" ;
                    "в {shown} секрет приложения, а файл могут читать другие пользователи: \
                     выполните chmod 600"
                ));
            }
            Some(checked_secret(
                secret.trim(),
                &format!("app.client_secret in {}", path.display()),
            )?)
        }
        (None, Some(file)) => Some(read_secret_file(
            "app.client_secret_file",
            &base.join(file),
            warnings,
        )?),
        (None, None) => None,
    };
    let scope = app.scope.unwrap_or_else(|| DEFAULT_SCOPE.to_string());
    if scope.split(' ').all(str::is_empty) {
        return Err(Error::config(
            format!("app.scope: empty (e.g. \"{DEFAULT_SCOPE}\")"),
            format!("app.scope: пусто (например \"{DEFAULT_SCOPE}\")"),
        ));
    }
    Ok(App {
        client_id: app.client_id.trim().to_string(),
        client_secret,
        redirect_uri: app.redirect_uri.trim().to_string(),
        scope,
    })
}

/// The text of the file the setting `key` names (as Windows tools save text:
/// [`text::decode`]); a file that cannot be read is the configuration's error, said with the
/// key.
pub(super) fn read_setting_file(key: &str, path: &Path) -> Result<String, Error> {
    let bytes = std::fs::read(path).map_err(|e| cannot_read_setting_file(key, path, &e))?;
    setting_text(key, path, bytes)
}

/// The text of the file of the setting `key`: UTF-8 (a BOM skipped) or UTF-16 with its BOM;
/// other bytes are refused, said for what they look like (never quoted: they are a secret).
fn setting_text(key: &str, path: &Path, bytes: Vec<u8>) -> Result<String, Error> {
    text::decode(bytes).map_err(|not| {
        let (shown, looks) = (path.display(), not.looks.said());
        Error::Config(tr!(
            "{key}: {shown} is not text in UTF-8{looks}: save it as UTF-8 (Notepad: \"Save \
             as\", Encoding \"UTF-8\"; PowerShell: Set-Content -Encoding utf8)" ;
            "{key}: {shown} — не текст в UTF-8{}: сохраните его в UTF-8 (Блокнот: «Сохранить \
             как», кодировка «UTF-8»; PowerShell: Set-Content -Encoding utf8)", looks.ru()
        ))
    })
}

/// The file of the setting `key` could not be read: why, and, when this user may not, what
/// to do.
fn cannot_read_setting_file(key: &str, path: &Path, e: &std::io::Error) -> Error {
    let (shown, e_ru) = (path.display(), clientbank_diagnostic::os::Ru(e));
    let hint = no_access_hint(path, e);
    Error::Config(tr!(
        "{key}: cannot read {shown}: {e}{hint}" ;
        "{key}: не удалось прочитать {shown}: {e_ru}{}", hint.ru()
    ))
}

/// The application's secret word of the file `key` names: one line, checked as a token is; a
/// file other users can read adds a warning.
fn read_secret_file(key: &str, path: &Path, warnings: &mut Vec<Message>) -> Result<Token, Error> {
    let text = read_setting_file(key, path)?;
    let text = text.trim();
    if text.is_empty() || text.lines().count() > 1 {
        return Err(Error::config(
            format!(
                "{key}: {} must hold the application's secret word alone, on one line",
                path.display()
            ),
            format!(
                "{key}: в {} должен быть только секрет приложения, в одной строке",
                path.display()
            ),
        ));
    }
    if readable_by_others(path) {
        let shown = path.display();
        warnings.push(tr!(
            "the client secret file {shown} can be read by other users: chmod 600 it" ;
            "файл секрета приложения {shown} могут читать другие пользователи: выполните \
             chmod 600"
        ));
    }
    checked_secret(text, &format!("{key} {}", path.display()))
}

/// The application's secret word, checked as a token is (one line of printable ASCII).
pub(super) fn checked_secret(text: &str, source: &str) -> Result<Token, Error> {
    let secret = Token::new(text);
    secret.check_said().map_err(|why| {
        Error::config(
            format!(
                "{source}: {}",
                why.en()
                    .replace("the token", "the client secret")
                    .replace("a token is", "a client secret is")
            ),
            format!(
                "{source}: {}",
                why.ru()
                    .replace("токен", "секрет приложения")
                    .replace("Токен", "Секрет приложения")
            ),
        )
    })?;
    Ok(secret)
}

/// The `[webhook]` table, checked.
pub(super) fn webhook_settings(
    file: WebhookFile,
    base: &Path,
    warnings: &mut Vec<Message>,
) -> Result<WebhookSettings, Error> {
    let Some(addr) = file.addr else {
        return Err(Error::config(
            "[webhook] addr: where the listener listens is missing (e.g. addr = \"127.0.0.1:8091\")",
            "[webhook] addr: не указано, где принимать уведомления (например addr = \
             \"127.0.0.1:8091\")",
        ));
    };
    let addr: std::net::SocketAddr = addr.trim().parse().map_err(|_| {
        Error::config(
            format!(
                "[webhook] addr: {addr:?} is not an address with a port (e.g. \"127.0.0.1:8091\")"
            ),
            format!("[webhook] addr: {addr:?} — не адрес с портом (например \"127.0.0.1:8091\")"),
        )
    })?;
    let client_secret = file
        .client_secret_file
        .map(|path| read_secret_file("[webhook] client_secret_file", &base.join(path), warnings))
        .transpose()?;
    let key = file.key.unwrap_or_default();
    Ok(WebhookSettings {
        addr,
        key,
        client_secret,
    })
}

/// A token checked to be one line of printable ASCII without spaces ([`Token::check`]); the
/// error names where it came from, never the token.
pub(super) fn checked_token(text: &str, source: &Message) -> Result<Token, Error> {
    let token = Token::new(text);
    token.check_said().map_err(|why| {
        Error::config(
            format!("{source}: {}", why.en()),
            format!("{}: {}", source.ru(), why.ru()),
        )
    })?;
    Ok(token)
}

/// Keys whose values are secrets: never quoted in an error.
pub(super) fn secret_key(key: &str) -> bool {
    let key = key
        .trim()
        .trim_matches(|c| c == '"' || c == '\'')
        .to_lowercase();
    // `token_file`, `client_secret_file`: a path, not a secret; `token_retry`: a duration.
    !key.ends_with("_file")
        && !key.ends_with("_retry")
        && (key.contains("token") || key.contains("secret") || key.contains("password"))
}
