//! `journal = "postgres://user@host:port/db"`: the journal in PostgreSQL, shared by daemons on
//! several machines that serve the same folders (issue 20). The password is never in the file's
//! URL: it comes from `journal_password_file` (relative to the configuration's folder, as
//! `token_file` is) or `PGPASSWORD`, and is kept as a [`Token`] (its `Debug` is redacted).

use std::path::Path;
use std::time::Duration;

use clientbank_api::Token;

use super::FileConfig;
use crate::Error;

/// How long a daemon's lease of a folder lasts unless renewed (`journal_lease`, default 30 s).
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// The journal in PostgreSQL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedJournal {
    /// `postgres://user@host:port/db` (never with a password).
    pub url: String,
    /// The password, if any (`journal_password_file`, else `PGPASSWORD`).
    pub password: Option<Token>,
    /// How long a lease lasts unless renewed; it is renewed every third of it.
    pub lease: Duration,
}

impl SharedJournal {
    /// The journal at `url` (checked: a PostgreSQL URL without a password), lease as given.
    pub fn new(
        url: &str,
        password: Option<Token>,
        lease: Duration,
    ) -> Result<SharedJournal, Error> {
        let rest = ["postgres://", "postgresql://"]
            .iter()
            .find_map(|scheme| url.strip_prefix(scheme));
        let Some(rest) = rest else {
            return Err(Error::config(
                "journal: only a PostgreSQL URL is known here (postgres://user@host:port/db); \
                 without the key the journal is the SQLite file in .clientbank/",
                "journal: здесь понимается только адрес PostgreSQL \
                 (postgres://user@host:port/db); без этого ключа журнал — файл SQLite в \
                 .clientbank/",
            ));
        };
        let authority = rest.split(['/', '?']).next().unwrap_or_default();
        if authority
            .rsplit_once('@')
            .is_some_and(|(user, _)| user.contains(':'))
        {
            // The URL itself is not repeated: it holds the password.
            return Err(Error::config(
                "journal: the URL holds a password: put the password in journal_password_file \
                 (or PGPASSWORD) and leave it out of the URL",
                "journal: в адресе указан пароль: положите пароль в journal_password_file (или \
                 PGPASSWORD), а из адреса уберите",
            ));
        }
        Ok(SharedJournal {
            url: url.to_string(),
            password,
            lease,
        })
    }
}

/// `journal`, `journal_password_file`, `journal_lease` of the file (the password of the
/// environment is added by [`Settings::load`]).
pub(super) fn shared_journal(
    file: &mut FileConfig,
    path: &Path,
    base: &Path,
) -> Result<Option<SharedJournal>, Error> {
    let (password_file, lease) = (file.journal_password_file.take(), file.journal_lease.take());
    let Some(url) = file.journal.take() else {
        if password_file.is_some() || lease.is_some() {
            return Err(Error::config(
                format!(
                    "{}: journal_password_file and journal_lease belong to a journal in \
                     PostgreSQL: set journal = \"postgres://…\" too, or remove them",
                    path.display()
                ),
                format!(
                    "{}: journal_password_file и journal_lease относятся к журналу в \
                     PostgreSQL: задайте и journal = \"postgres://…\", или уберите их",
                    path.display()
                ),
            ));
        };
        return Ok(None);
    };
    let password = password_file
        .map(|file| read_password(&file, base))
        .transpose()?;
    let lease = lease.map_or(DEFAULT_LEASE, |w| w.0);
    SharedJournal::new(&url, password, lease).map(Some)
}

/// `PGPASSWORD` as the journal's password when the file named none.
pub(super) fn password_from_env(journal: &mut Option<SharedJournal>, env: &dyn super::Env) {
    if let Some(journal) = journal
        && journal.password.is_none()
    {
        journal.password = env.get("PGPASSWORD").map(Token::new);
    }
}

/// The password of `journal_password_file` (`file`, relative to `base`): its first line.
fn read_password(file: &Path, base: &Path) -> Result<Token, Error> {
    let path = base.join(file);
    let text = super::secrets::read_setting_file("journal_password_file", &path)?;
    let password = text.lines().next().unwrap_or_default();
    if password.is_empty() {
        return Err(Error::config(
            format!("journal_password_file: {} is empty", path.display()),
            format!("journal_password_file: {} пуст", path.display()),
        ));
    }
    Ok(Token::new(password))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_with_a_password_is_refused_without_repeating_it() {
        let e = SharedJournal::new("postgres://u:hunter2@127.0.0.1:5432/j", None, DEFAULT_LEASE)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("holds a password") && !e.contains("hunter2"),
            "{e}"
        );
        assert!(SharedJournal::new("mysql://127.0.0.1/j", None, DEFAULT_LEASE).is_err());
        let ok = SharedJournal::new(
            "postgresql://u@127.0.0.1:5432/j?sslmode=disable",
            Some(Token::new("hunter2")),
            DEFAULT_LEASE,
        )
        .unwrap();
        assert!(!format!("{ok:?}").contains("hunter2"), "{ok:?}");
    }
}
