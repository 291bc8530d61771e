//! Secrets in the configuration: the token and the application's secret word, from files or the environment, checked, never shown.

use super::*;

/// The token of a token file, or `None` when the file does not exist. An empty file, one of
/// several lines or one that cannot be read is refused, naming the file, never the token; a
/// file other users can read adds a warning.
pub(super) fn read_token_file(
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<Option<Token>, Error> {
    let token = match std::fs::read_to_string(path) {
        Ok(token) => token,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Error::Config(format!(
                "token_file: cannot read {}: {e}",
                path.display()
            )));
        }
    };
    if token.trim().is_empty() {
        return Err(Error::Config(format!(
            "token_file: {} is empty",
            path.display()
        )));
    }
    if readable_by_others(path) {
        warnings.push(format!(
            "the token file {} can be read by other users: chmod 600 it",
            path.display()
        ));
    }
    let lines = token.trim().lines().count();
    if lines > 1 {
        return Err(Error::Config(format!(
            "token_file: {} holds {lines} lines: it must hold the token alone, on one line",
            path.display()
        )));
    }
    Ok(Some(checked_token(
        token.trim(),
        &format!("token_file {}", path.display()),
    )?))
}

/// `[app]` resolved: the secret read from its file (relative to the configuration's folder),
/// inline with a warning when others can read the configuration, never both.
pub(super) fn resolve_app(
    app: AppConfig,
    path: &Path,
    base: &Path,
    warnings: &mut Vec<String>,
) -> Result<App, Error> {
    if app.client_id.trim().is_empty() {
        return Err(Error::Config("app.client_id: empty".into()));
    }
    if app.redirect_uri.trim().is_empty() {
        return Err(Error::Config(
            "app.redirect_uri: empty (the redirect address registered at the bank, e.g. \
             \"http://127.0.0.1:8080/callback\")"
                .into(),
        ));
    }
    let client_secret = match (app.client_secret, app.client_secret_file) {
        (Some(_), Some(_)) => {
            return Err(Error::Config(format!(
                "{}: give app.client_secret or app.client_secret_file, not both",
                path.display()
            )));
        }
        (Some(secret), None) => {
            if readable_by_others(path) {
                warnings.push(format!(
                    "{} holds the application's client secret and other users can read it: \
                     chmod 600 it",
                    path.display()
                ));
            }
            Some(checked_secret(
                secret.trim(),
                &format!("app.client_secret in {}", path.display()),
            )?)
        }
        (None, Some(file)) => {
            let file = base.join(file);
            let secret = std::fs::read_to_string(&file).map_err(|e| {
                Error::Config(format!(
                    "app.client_secret_file: cannot read {}: {e}",
                    file.display()
                ))
            })?;
            if readable_by_others(&file) {
                warnings.push(format!(
                    "the client secret file {} can be read by other users: chmod 600 it",
                    file.display()
                ));
            }
            Some(checked_secret(
                secret.trim(),
                &format!("app.client_secret_file {}", file.display()),
            )?)
        }
        (None, None) => None,
    };
    let scope = app.scope.unwrap_or_else(|| DEFAULT_SCOPE.to_string());
    if scope.split(' ').all(str::is_empty) {
        return Err(Error::Config(format!(
            "app.scope: empty (e.g. \"{DEFAULT_SCOPE}\")"
        )));
    }
    Ok(App {
        client_id: app.client_id.trim().to_string(),
        client_secret,
        redirect_uri: app.redirect_uri.trim().to_string(),
        scope,
    })
}

/// The application's secret word, checked as a token is (one line of printable ASCII).
pub(super) fn checked_secret(text: &str, source: &str) -> Result<Token, Error> {
    let secret = Token::new(text);
    secret.check().map_err(|why| {
        Error::Config(format!(
            "{source}: {}",
            why.replace("the token", "the client secret")
                .replace("a token is", "a client secret is")
        ))
    })?;
    Ok(secret)
}

/// The `[webhook]` table, checked.
pub(super) fn webhook_settings(
    file: WebhookFile,
    base: &Path,
    warnings: &mut Vec<String>,
) -> Result<WebhookSettings, Error> {
    let Some(addr) = file.addr else {
        return Err(Error::Config(
            "[webhook] addr: where the listener listens is missing (e.g. addr = \"127.0.0.1:8091\")"
                .into(),
        ));
    };
    let addr: std::net::SocketAddr = addr.trim().parse().map_err(|_| {
        Error::Config(format!(
            "[webhook] addr: {addr:?} is not an address with a port (e.g. \"127.0.0.1:8091\")"
        ))
    })?;
    let client_secret = match file.client_secret_file {
        None => None,
        Some(path) => {
            let path = base.join(path);
            let text = std::fs::read_to_string(&path).map_err(|e| {
                Error::Config(format!(
                    "[webhook] client_secret_file: cannot read {}: {e}",
                    path.display()
                ))
            })?;
            let text = text.trim();
            if text.is_empty() || text.lines().count() > 1 {
                return Err(Error::Config(format!(
                    "[webhook] client_secret_file: {} must hold the application's secret word alone, on one line",
                    path.display()
                )));
            }
            if readable_by_others(&path) {
                warnings.push(format!(
                    "the client secret file {} can be read by other users: chmod 600 it",
                    path.display()
                ));
            }
            Some(Token::new(text))
        }
    };
    let key = file.key.unwrap_or_default();
    Ok(WebhookSettings {
        addr,
        key,
        client_secret,
    })
}

/// A token checked to be one line of printable ASCII without spaces ([`Token::check`]); the
/// error names where it came from, never the token.
pub(super) fn checked_token(text: &str, source: &str) -> Result<Token, Error> {
    let token = Token::new(text);
    token
        .check()
        .map_err(|why| Error::Config(format!("{source}: {why}")))?;
    Ok(token)
}

/// Keys whose values are secrets: never quoted in an error.
pub(super) fn secret_key(key: &str) -> bool {
    let key = key
        .trim()
        .trim_matches(|c| c == '"' || c == '\'')
        .to_lowercase();
    // `token_file`, `client_secret_file`: a path, not a secret.
    !key.ends_with("_file")
        && (key.contains("token") || key.contains("secret") || key.contains("password"))
}
