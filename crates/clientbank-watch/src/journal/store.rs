//! The journal's database, SQLite or PostgreSQL, behind one small interface: the journal's SQL
//! is written once (SQLite's `?1` placeholders; [`postgres_sql`] says it in PostgreSQL's
//! dialect), values go in and come out as [`Value`]s, and every write is a transaction of
//! [`Store::write`] — SQLite's `BEGIN IMMEDIATE`, PostgreSQL's transaction under the folder's
//! advisory lock, so that what a transaction read (is this payment active elsewhere?) cannot
//! change before it commits, whichever process writes too.

use rusqlite::types::{ToSqlOutput, ValueRef};

use super::postgres::Pg;

/// A value of a column or a parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    Null,
    Int(i64),
    Text(String),
}

impl From<i64> for Value {
    fn from(value: i64) -> Value {
        Value::Int(value)
    }
}

impl From<usize> for Value {
    fn from(value: usize) -> Value {
        Value::Int(i64::try_from(value).unwrap_or(i64::MAX))
    }
}

impl From<bool> for Value {
    fn from(value: bool) -> Value {
        Value::Int(value.into())
    }
}

impl From<&str> for Value {
    fn from(value: &str) -> Value {
        Value::Text(value.to_string())
    }
}

impl From<String> for Value {
    fn from(value: String) -> Value {
        Value::Text(value)
    }
}

impl From<&String> for Value {
    fn from(value: &String) -> Value {
        Value::Text(value.clone())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Value {
        value.map_or(Value::Null, Into::into)
    }
}

/// The values of a statement's parameters, in order: `values![id, state, message]`.
macro_rules! values {
    ($($value:expr),* $(,)?) => {
        &[$($crate::journal::store::Value::from($value)),*][..]
    };
}
pub(crate) use values;

/// A column's value read as a Rust value.
pub(crate) trait FromValue: Sized {
    fn from_value(value: &Value) -> Result<Self, DbError>;
}

impl FromValue for i64 {
    fn from_value(value: &Value) -> Result<i64, DbError> {
        match value {
            Value::Int(n) => Ok(*n),
            other => Err(DbError::Value(format!(
                "expected a number, found {other:?}"
            ))),
        }
    }
}

impl FromValue for bool {
    fn from_value(value: &Value) -> Result<bool, DbError> {
        i64::from_value(value).map(|n| n != 0)
    }
}

impl FromValue for String {
    fn from_value(value: &Value) -> Result<String, DbError> {
        match value {
            Value::Text(text) => Ok(text.clone()),
            other => Err(DbError::Value(format!("expected a text, found {other:?}"))),
        }
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(value: &Value) -> Result<Option<T>, DbError> {
        match value {
            Value::Null => Ok(None),
            value => T::from_value(value).map(Some),
        }
    }
}

/// A row read.
#[derive(Clone, Debug)]
pub(crate) struct Row(pub(super) Vec<Value>);

impl Row {
    /// Column `index` as a `T`.
    pub(crate) fn get<T: FromValue>(&self, index: usize) -> Result<T, DbError> {
        let value = self
            .0
            .get(index)
            .ok_or_else(|| DbError::Value(format!("no column {index}")))?;
        T::from_value(value)
    }

    /// The columns from `first` on, in order, as a tuple of Rust values: a row is read in
    /// the order of its `SELECT`, with no column index written by hand.
    pub(crate) fn columns<T: Columns>(&self, first: usize) -> Result<T, DbError> {
        T::read(self, first)
    }
}

/// A tuple of [`FromValue`]s read from consecutive columns ([`Row::columns`]).
pub(crate) trait Columns: Sized {
    fn read(row: &Row, first: usize) -> Result<Self, DbError>;
}

/// Implements [`Columns`] for a tuple: each type with its place in the tuple.
macro_rules! columns {
    ($($t:ident $i:tt)+) => {
        impl<$($t: FromValue),+> Columns for ($($t,)+) {
            fn read(row: &Row, first: usize) -> Result<Self, DbError> {
                Ok(($(row.get::<$t>(first + $i)?,)+))
            }
        }
    };
}

columns!(A 0 B 1);
columns!(A 0 B 1 C 2);
columns!(A 0 B 1 C 2 D 3);
columns!(A 0 B 1 C 2 D 3 E 4);
columns!(A 0 B 1 C 2 D 3 E 4 F 5);
columns!(A 0 B 1 C 2 D 3 E 4 F 5 G 6);
columns!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7);

/// What the database said.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// SQLite's error.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL's error (the server's message, with its detail when it gave one).
    #[error("{}", postgres_text(.0))]
    Postgres(#[source] postgres::Error),
    /// A value the journal cannot read (a journal written by a newer clientbank).
    #[error("{0}")]
    Value(String),
    /// This daemon no longer holds the folder's lease (PostgreSQL): another daemon may serve
    /// the folder now.
    #[error("the lease of the folder is no longer this daemon's")]
    LeaseLost,
    /// Payments of the journal went to a bank of another kind (see `banks`).
    #[error("payments of this journal went to {} ({}), not to {} ({})", .used.kind.message().en(), .used.address, .now.kind.message().en(), .now.address)]
    OtherBank {
        /// A bank recorded.
        used: Box<super::Bank>,
        /// The bank of this run.
        now: Box<super::Bank>,
    },
}

impl From<postgres::Error> for DbError {
    fn from(e: postgres::Error) -> DbError {
        DbError::Postgres(e)
    }
}

impl DbError {
    /// What the database said, in Russian words where the kind of failure is known (SQLite's
    /// codes: busy, full, read-only, damaged, not opened; PostgreSQL's SQLSTATE: a wrong
    /// password, no such database, no right, the server stopping; a connection's I/O error),
    /// with the database's own words after them (SQLite and a server's `lc_messages` speak
    /// English); else as the database said it.
    pub fn ru(&self) -> String {
        use rusqlite::ErrorCode as C;
        let words = match self {
            DbError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => match e.code {
                C::DatabaseBusy | C::DatabaseLocked => Some("база занята другим процессом"),
                C::DiskFull => Some("нет места на диске"),
                C::ReadOnly => Some("база открыта только для чтения"),
                C::DatabaseCorrupt | C::NotADatabase => Some("файл базы повреждён или не база"),
                C::CannotOpen => Some("файл базы не открыть"),
                C::PermissionDenied => Some("нет доступа к файлу базы"),
                C::SystemIoFailure => Some("ошибка ввода-вывода"),
                _ => None,
            },
            DbError::Postgres(e) => e.code().and_then(postgres_words),
            DbError::LeaseLost => Some("аренда папки больше не принадлежит этому демону"),
            DbError::Sqlite(_) | DbError::Value(_) | DbError::OtherBank { .. } => None,
        };
        match words {
            Some(words) => format!("{words} ({self})"),
            None => clientbank_diagnostic::os::cause(self).ru().to_string(),
        }
    }
}

/// PostgreSQL's SQLSTATE in Russian words, by its class where one word says the class.
fn postgres_words(code: &postgres::error::SqlState) -> Option<&'static str> {
    use postgres::error::SqlState as S;
    Some(match code {
        c if *c == S::INVALID_PASSWORD => "неверный пароль к базе",
        c if *c == S::INVALID_AUTHORIZATION_SPECIFICATION => {
            "сервер базы не пускает этого пользователя"
        }
        c if *c == S::INVALID_CATALOG_NAME => "такой базы на сервере нет",
        c if *c == S::INSUFFICIENT_PRIVILEGE => "у пользователя базы нет на это прав",
        c if *c == S::DISK_FULL => "у сервера базы нет места на диске",
        c if *c == S::TOO_MANY_CONNECTIONS => "у сервера базы кончились соединения",
        c if *c == S::READ_ONLY_SQL_TRANSACTION => "база открыта только для чтения (реплика?)",
        c if *c == S::T_R_SERIALIZATION_FAILURE || *c == S::T_R_DEADLOCK_DETECTED => {
            "транзакция столкнулась с другой: повторится"
        }
        c if *c == S::IDLE_IN_TRANSACTION_SESSION_TIMEOUT => {
            "сервер закрыл соединение, простоявшее в транзакции"
        }
        c if c.code().starts_with("57P") => "сервер базы останавливается или перезапускается",
        c if c.code().starts_with("08") => "нет соединения с сервером базы",
        c if c.code().starts_with("53") => "серверу базы не хватает ресурсов",
        c if c.code().starts_with("XX") => "внутренняя ошибка сервера базы",
        _ => return None,
    })
}

/// PostgreSQL's error said whole: `db error: ERROR: …` with the server's detail, or the
/// connection's failure with its cause.
fn postgres_text(e: &postgres::Error) -> String {
    match (e.as_db_error(), std::error::Error::source(e)) {
        (Some(db), _) => format!("{}: {}", db.severity(), db.message()),
        (None, Some(cause)) => format!("{e}: {cause}"),
        (None, None) => e.to_string(),
    }
}

impl DbError {
    /// Whether the database file itself is broken (SQLite: corrupt, not a database).
    pub(super) fn damaged(&self) -> bool {
        matches!(
            self,
            DbError::Sqlite(e) if matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
            )
        )
    }
}

/// Statements over one connection or transaction, in SQLite's dialect.
pub(crate) trait Sql {
    /// Runs a statement; how many rows it changed.
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<usize, DbError>;
    /// The rows of a query.
    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError>;
    /// Runs an `INSERT` into a table with an `id` key; the new row's id.
    fn insert(&mut self, sql: &str, params: &[Value]) -> Result<i64, DbError>;
    /// Runs statements separated by `;`, without parameters.
    fn batch(&mut self, sql: &str) -> Result<(), DbError>;
    /// Which database this is.
    fn dialect(&self) -> Dialect;
}

/// SQLite or PostgreSQL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    Sqlite,
    Postgres,
}

impl dyn Sql + '_ {
    /// The first row of a query, if any.
    pub(crate) fn row(&mut self, sql: &str, params: &[Value]) -> Result<Option<Row>, DbError> {
        Ok(self.rows(sql, params)?.into_iter().next())
    }

    /// The first column of the first row, if any.
    pub(crate) fn one<T: FromValue>(
        &mut self,
        sql: &str,
        params: &[Value],
    ) -> Result<Option<T>, DbError> {
        self.row(sql, params)?.map(|r| r.get(0)).transpose()
    }

    /// Every row mapped by `map`.
    pub(crate) fn map<T>(
        &mut self,
        sql: &str,
        params: &[Value],
        map: impl Fn(&Row) -> Result<T, DbError>,
    ) -> Result<Vec<T>, DbError> {
        self.rows(sql, params)?.iter().map(map).collect()
    }
}

/// SQL of the journal (SQLite's dialect) in PostgreSQL's: `?N` placeholders become `$N`
/// (outside quoted text), `INTEGER` columns `BIGINT`, and an `INTEGER PRIMARY KEY` an identity.
pub(crate) fn postgres_sql(sql: &str) -> String {
    let sql = sql
        .replace(
            "INTEGER PRIMARY KEY",
            "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
        )
        .replace("INTEGER", "BIGINT");
    let mut out = String::with_capacity(sql.len());
    let mut quoted = false;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            quoted = !quoted;
        }
        if c == '?' && !quoted && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

/// An SQLite connection, or a transaction (which is one).
pub(super) struct Lite<'a>(pub(super) &'a rusqlite::Connection);

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Null => ToSqlOutput::from(rusqlite::types::Null),
            Value::Int(n) => ToSqlOutput::from(*n),
            Value::Text(text) => ToSqlOutput::from(text.as_str()),
        })
    }
}

fn lite_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    let count = row.as_ref().column_count();
    let mut values = Vec::with_capacity(count);
    for index in 0..count {
        values.push(match row.get_ref(index)? {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(n) => Value::Int(n),
            ValueRef::Real(x) => Value::Text(x.to_string()),
            ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
                Value::Text(String::from_utf8_lossy(bytes).into_owned())
            }
        });
    }
    Ok(Row(values))
}

impl Sql for Lite<'_> {
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<usize, DbError> {
        let mut statement = self.0.prepare_cached(sql)?;
        Ok(statement.execute(rusqlite::params_from_iter(params))?)
    }

    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError> {
        let mut statement = self.0.prepare_cached(sql)?;
        let rows = statement.query_map(rusqlite::params_from_iter(params), lite_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn insert(&mut self, sql: &str, params: &[Value]) -> Result<i64, DbError> {
        self.exec(sql, params)?;
        Ok(self.0.last_insert_rowid())
    }

    fn batch(&mut self, sql: &str) -> Result<(), DbError> {
        Ok(self.0.execute_batch(sql)?)
    }

    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }
}

/// The journal's database.
pub(super) enum Store {
    Sqlite(rusqlite::Connection),
    Postgres(Box<Pg>),
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Store::Sqlite(_) => f.write_str("Store::Sqlite"),
            Store::Postgres(pg) => write!(f, "Store::Postgres({pg:?})"),
        }
    }
}

impl Store {
    /// Reads (or writes one statement) outside a transaction.
    pub(super) fn run<T: Send>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, DbError> + Send,
    ) -> Result<T, DbError> {
        match self {
            Store::Sqlite(db) => f(&mut Lite(db)),
            Store::Postgres(pg) => pg.run_sql(f),
        }
    }

    /// Writes in one transaction, committed (durably) when `f` returns `Ok`.
    pub(super) fn write<T: Send>(
        &mut self,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, DbError> + Send,
    ) -> Result<T, DbError> {
        self.write_as(false, f)
    }

    /// Writes in one transaction as [`Store::write`] does, only while this daemon holds the
    /// folder's lease (PostgreSQL; checked and renewed in the same transaction, so that an
    /// intent or a send mark is never recorded by a daemon whose lease ran out). SQLite has its
    /// one owner by the folder's lock.
    pub(super) fn write_leased<T: Send>(
        &mut self,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, DbError> + Send,
    ) -> Result<T, DbError> {
        self.write_as(true, f)
    }

    fn write_as<T: Send>(
        &mut self,
        leased: bool,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, DbError> + Send,
    ) -> Result<T, DbError> {
        match self {
            Store::Sqlite(db) => {
                let tx = db.transaction()?;
                let value = f(&mut Lite(&tx))?;
                tx.commit()?;
                Ok(value)
            }
            Store::Postgres(pg) => pg.write(leased, f),
        }
    }

    /// The schema version of the journal.
    pub(super) fn version(&self) -> Result<i64, DbError> {
        match self {
            Store::Sqlite(db) => Ok(db.query_row("PRAGMA user_version", [], |r| r.get(0))?),
            Store::Postgres(pg) => pg.version(),
        }
    }
}

/// Sets the schema version, in the transaction of the step that reached it.
pub(super) fn set_version(db: &mut dyn Sql, version: i64) -> Result<(), DbError> {
    match db.dialect() {
        Dialect::Sqlite => db.batch(&format!("PRAGMA user_version = {version}")),
        Dialect::Postgres => {
            db.exec("DELETE FROM journal_version", &[])?;
            db.exec(
                "INSERT INTO journal_version (version) VALUES (?1)",
                values![version],
            )
            .map(drop)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_types_are_said_in_postgres_dialect() {
        assert_eq!(
            postgres_sql("SELECT '?1', x FROM t WHERE a = ?1 AND b IN (?12, ?2) AND c = ?"),
            "SELECT '?1', x FROM t WHERE a = $1 AND b IN ($12, $2) AND c = ?"
        );
        assert_eq!(
            postgres_sql("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"),
            "CREATE TABLE t (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, \
             n BIGINT NOT NULL)"
        );
    }

    /// Issue 19: the database's failures a person can act on are said in Russian words, with
    /// the database's own text kept after them.
    #[test]
    fn database_failures_are_said_in_russian() {
        let failure = |code| {
            DbError::Sqlite(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(code),
                None,
            ))
        };
        let full = failure(rusqlite::ffi::SQLITE_FULL);
        assert!(
            full.ru().starts_with("нет места на диске ("),
            "{}",
            full.ru()
        );
        assert!(full.ru().contains(&full.to_string()));
        let busy = failure(rusqlite::ffi::SQLITE_BUSY);
        assert!(busy.ru().starts_with("база занята"), "{}", busy.ru());
        let other = DbError::Value("expected a number".into());
        assert_eq!(other.ru(), "expected a number");
    }
}
