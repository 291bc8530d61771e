//! The journal in PostgreSQL (issue 20): one schema per folder, named in the folder's
//! `.clientbank/journal.postgres` (so that daemons on several machines, which may mount the
//! shared folder at different paths, find the same journal; and so that every table, index and
//! statement is the SQLite journal's, with no folder column to forget in a query), and the
//! leases of every folder in `clientbank.leases`, timed by the database's clock.
//!
//! The synchronous `postgres` client runs its own small runtime: it must not be driven from a
//! thread that drives the daemon's, so inside a runtime each call is made on a thread of its own
//! (scoped: the call borrows what it needs and returns before the journal goes on).

use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use clientbank_format::{say, tr};
use postgres::GenericClient;
use postgres::types::{IsNull, ToSql, Type};

use super::store::{DbError, Dialect, Row, Sql, Value, postgres_sql};
use clientbank_bank::config::SharedJournal;

/// A journal in PostgreSQL: its connection, its folder's schema and this daemon's lease.
pub(crate) struct Pg {
    client: Arc<Mutex<Option<postgres::Client>>>,
    /// The thread renewing the lease while the journal is idle (a daemon waiting for the
    /// bank's answer), stopped when its sender is dropped.
    renewer: Option<(mpsc::Sender<()>, std::thread::JoinHandle<()>)>,
    /// The folder's schema (`folder_…`).
    pub(super) schema: String,
    /// The lease, once taken: whose it is, when it was last renewed.
    lease: Option<(String, Instant)>,
    /// The lease was found run out or another's: it stays lost.
    lost: bool,
    ttl: Duration,
}

debug_shows!(Pg { schema });

/// Runs `f` where the `postgres` client may block: here, or on a scoped thread of its own
/// when this thread is inside a Tokio runtime.
fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    std::thread::scope(|scope| match scope.spawn(f).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

impl Drop for Pg {
    /// The lease is given up (a daemon that stops, or a command that ends): a daemon standing
    /// by takes the folder at once, not after the lease (a process killed keeps it that long).
    fn drop(&mut self) {
        self.stop_renewer();
        if let Err(e) = self.release_lease() {
            say!(
                warn,
                tr!(
                    "the folder's lease was not given up (it runs out by itself): {e}" ;
                    "аренда папки не отдана (она истечёт сама): {e}"
                )
            );
        }
        let client = self
            .client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(client) = client {
            off_runtime(move || drop(client));
        }
    }
}

/// Whether `schema` is a name this journal makes (`folder_` and lowercase hex): it is put in
/// SQL as it is.
pub(super) fn valid_schema(schema: &str) -> bool {
    schema.strip_prefix("folder_").is_some_and(|id| {
        !id.is_empty()
            && id.len() <= 40
            && id
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    })
}

impl Pg {
    /// Connects to `journal` and makes the folder's schema `schema` if `create` (it must exist
    /// otherwise: `Ok(None)` when it does not).
    pub(super) fn connect(
        journal: &SharedJournal,
        schema: &str,
        create: bool,
    ) -> Result<Option<Pg>, DbError> {
        if !valid_schema(schema) {
            return Err(DbError::Value(format!(
                "{schema:?} is no schema name clientbank makes (folder_ and hex digits)"
            )));
        }
        let mut config: postgres::Config = journal.url.parse()?;
        if let Some(password) = &journal.password {
            config.password(password.expose_secret());
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        config.application_name("clientbank");
        // The server's notices (a table that exists already) are not the daemon's to log.
        let options = config
            .get_options()
            .map_or(String::new(), |o| format!("{o} "));
        config.options(&format!("{options}-c client_min_messages=warning"));
        // A daemon stopped in a transaction (paused, cut off) must not hold the folder: the
        // server ends such a session, and its transaction, well within a lease.
        let idle = (journal.lease / 3).as_millis().max(500);
        let ready = off_runtime(|| -> Result<Option<postgres::Client>, DbError> {
            let mut client = config.connect(postgres::NoTls)?;
            let exists = client
                .query_opt("SELECT 1 FROM pg_namespace WHERE nspname = $1", &[&schema])?
                .is_some();
            if !exists && !create {
                return Ok(None);
            }
            let mut tx = client.transaction()?;
            // Daemons starting together make the shared tables once.
            tx.batch_execute(&format!(
                "SELECT pg_advisory_xact_lock(20202020);
                 CREATE SCHEMA IF NOT EXISTS clientbank;
                 CREATE TABLE IF NOT EXISTS clientbank.leases (
                    folder TEXT PRIMARY KEY,
                    owner TEXT NOT NULL,
                    dir TEXT NOT NULL,
                    taken_at TIMESTAMPTZ NOT NULL,
                    expires_at TIMESTAMPTZ NOT NULL
                 );
                 CREATE SCHEMA IF NOT EXISTS {schema};
                 CREATE TABLE IF NOT EXISTS {schema}.journal_version (version BIGINT NOT NULL);"
            ))?;
            tx.commit()?;
            client.batch_execute(&format!(
                "SET search_path TO {schema};
                 SET idle_in_transaction_session_timeout = {idle}"
            ))?;
            Ok(Some(client))
        })?;
        Ok(ready.map(|client| Pg {
            client: Arc::new(Mutex::new(Some(client))),
            renewer: None,
            lost: false,
            schema: schema.to_string(),
            lease: None,
            ttl: journal.lease,
        }))
    }

    fn run<T: Send>(
        &self,
        f: impl FnOnce(&mut postgres::Client) -> Result<T, DbError> + Send,
    ) -> Result<T, DbError> {
        let mut client = self.client.lock().unwrap_or_else(PoisonError::into_inner);
        let client = client
            .as_mut()
            .ok_or_else(|| DbError::Value("the connection is closed".into()))?;
        off_runtime(move || f(client))
    }

    pub(super) fn run_sql<T: Send>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, DbError> + Send,
    ) -> Result<T, DbError> {
        self.run(|client| f(&mut On(client)))
    }

    /// One transaction under the folder's advisory lock; when `leased` and a lease was taken,
    /// only while this daemon still holds it, which the same transaction renews.
    pub(super) fn write<T: Send>(
        &mut self,
        leased: bool,
        f: impl FnOnce(&mut dyn Sql) -> Result<T, DbError> + Send,
    ) -> Result<T, DbError> {
        // Without a lease taken (a journal opened by itself, as the tests do; `sign`, which
        // marks nothing) there is none to check: the folder's lock serialises the writes.
        let owner = self.lease.as_ref().map(|(owner, _)| owner.as_str());
        let (schema, ttl) = (self.schema.as_str(), millis(self.ttl));
        let value = self.run(|client| {
            let mut tx = client.transaction()?;
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtext(current_schema()))",
                &[],
            )?;
            if let Some(owner) = owner.filter(|_| leased) {
                renew(&mut tx, schema, owner, ttl)?;
            }
            let value = f(&mut On(&mut tx))?;
            tx.commit()?;
            Ok(value)
        });
        if let Err(DbError::LeaseLost) = &value {
            self.lost = true;
        }
        let value = value?;
        if leased && let Some((_, renewed)) = &mut self.lease {
            *renewed = Instant::now();
        }
        Ok(value)
    }

    /// The schema version of the folder's journal.
    pub(super) fn version(&self) -> Result<i64, DbError> {
        self.run(|client| {
            let row =
                client.query_one("SELECT COALESCE(MAX(version), 0) FROM journal_version", &[])?;
            Ok(row.try_get(0)?)
        })
    }

    /// Takes the folder's lease for `owner` if it is free or ran out (by the database's
    /// clock); else says whose it is and for how long yet: `(owner, dir, seconds left)`.
    pub(super) fn take_lease(
        &mut self,
        owner: &str,
        dir: &str,
    ) -> Result<Option<(String, String, f64)>, DbError> {
        let (schema, ttl) = (self.schema.as_str(), millis(self.ttl));
        let held = self.run(|client| {
            let mut tx = client.transaction()?;
            // A holder stopped inside a transaction keeps the row locked: that is a holder.
            tx.batch_execute("SET LOCAL lock_timeout = 2000")?;
            let taken = tx.execute(
                "INSERT INTO clientbank.leases AS l (folder, owner, dir, taken_at, expires_at)
                 VALUES ($1, $2, $3, now(), now() + $4 * interval '1 millisecond')
                 ON CONFLICT (folder) DO UPDATE SET owner = excluded.owner, dir = excluded.dir,
                    taken_at = excluded.taken_at, expires_at = excluded.expires_at
                 WHERE l.expires_at <= now() OR l.owner = excluded.owner",
                &[&schema, &owner, &dir, &ttl],
            );
            match taken {
                Ok(1) => {
                    tx.commit()?;
                    return Ok(None);
                }
                Ok(_) => {}
                Err(e) if e.code() == Some(&postgres::error::SqlState::LOCK_NOT_AVAILABLE) => {
                    return Ok(Some(("another daemon".into(), String::new(), ttl / 1e3)));
                }
                Err(e) => return Err(e.into()),
            }
            let row = tx.query_one(
                "SELECT owner, dir, EXTRACT(EPOCH FROM expires_at - now())::float8
                 FROM clientbank.leases WHERE folder = $1",
                &[&schema],
            )?;
            Ok(Some((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?)))
        })?;
        if held.is_none() {
            self.lease = Some((owner.to_string(), Instant::now()));
            self.lost = false;
            self.start_renewer(owner);
        }
        Ok(held)
    }

    /// Renews the lease when a third of it has passed since it was last renewed;
    /// [`DbError::LeaseLost`] when it is no longer this daemon's. Nothing without a lease (a
    /// command that sends nothing: `status`, `sign`).
    pub(super) fn keep_lease(&mut self) -> Result<(), DbError> {
        if self.lost {
            return Err(DbError::LeaseLost);
        }
        match &self.lease {
            None => return Ok(()),
            Some((_, renewed)) if renewed.elapsed() < self.ttl / 3 => return Ok(()),
            Some(_) => {}
        }
        self.write(true, |_| Ok(()))
    }

    /// Renews the lease every third of it on a thread of its own, over the same connection
    /// between the journal's own calls: a daemon waiting for a slow answer of the bank keeps
    /// its folder. It renews only a lease not run out (a daemon paused past it stays without
    /// one), and stops at the first renewal refused.
    fn start_renewer(&mut self, owner: &str) {
        self.stop_renewer();
        let (stop, stopped) = mpsc::channel::<()>();
        let client = Arc::clone(&self.client);
        let (schema, owner, every, ttl) = (
            self.schema.clone(),
            owner.to_string(),
            self.ttl / 3,
            millis(self.ttl),
        );
        let renewing = std::thread::Builder::new()
            .name("clientbank-lease".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    let mut client = client.lock().unwrap_or_else(PoisonError::into_inner);
                    let Some(client) = client.as_mut() else {
                        return;
                    };
                    let renewed = client
                        .transaction()
                        .map_err(DbError::from)
                        .and_then(|mut tx| {
                            renew(&mut tx, &schema, &owner, ttl)?;
                            Ok(tx.commit()?)
                        });
                    if let Err(e) = renewed {
                        tracing::debug!("the lease is no longer renewed: {e}");
                        return;
                    }
                }
            });
        match renewing {
            Ok(handle) => self.renewer = Some((stop, handle)),
            Err(e) => say!(
                warn,
                tr!(
                    "the lease is renewed only between files: {e}" ;
                    "аренда продлевается только между файлами: {e}"
                )
            ),
        }
    }

    fn stop_renewer(&mut self) {
        if let Some((stop, handle)) = self.renewer.take() {
            drop(stop);
            let _ = handle.join();
        }
    }

    /// Gives the lease up (a daemon that stops): another daemon may take the folder at once.
    pub(super) fn release_lease(&mut self) -> Result<(), DbError> {
        self.stop_renewer();
        let Some((owner, _)) = self.lease.take() else {
            return Ok(());
        };
        let schema = self.schema.as_str();
        self.run(|client| {
            client.execute(
                "DELETE FROM clientbank.leases WHERE folder = $1 AND owner = $2",
                &[&schema, &owner],
            )?;
            Ok(())
        })
    }

    /// The lease's length.
    pub(super) fn lease_time(&self) -> Duration {
        self.ttl
    }
}

fn millis(d: Duration) -> f64 {
    d.as_millis() as f64
}

/// Extends the lease of `owner` by `ttl` ms from now, if it has not run out.
fn renew(
    tx: &mut postgres::Transaction<'_>,
    schema: &str,
    owner: &str,
    ttl: f64,
) -> Result<(), DbError> {
    let renewed = tx.execute(
        "UPDATE clientbank.leases SET expires_at = now() + $3 * interval '1 millisecond'
         WHERE folder = $1 AND owner = $2 AND expires_at > now()",
        &[&schema, &owner, &ttl],
    )?;
    if renewed == 1 {
        Ok(())
    } else {
        Err(DbError::LeaseLost)
    }
}

/// A client or a transaction of PostgreSQL, speaking the journal's SQL.
struct On<'a, C>(&'a mut C);

fn refs(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
}

impl<C: GenericClient> Sql for On<'_, C> {
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<usize, DbError> {
        let changed = self.0.execute(postgres_sql(sql).as_str(), &refs(params))?;
        Ok(usize::try_from(changed).unwrap_or(usize::MAX))
    }

    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, DbError> {
        let rows = self.0.query(postgres_sql(sql).as_str(), &refs(params))?;
        rows.iter().map(pg_row).collect()
    }

    fn insert(&mut self, sql: &str, params: &[Value]) -> Result<i64, DbError> {
        let sql = format!("{} RETURNING id", postgres_sql(sql));
        Ok(self.0.query_one(sql.as_str(), &refs(params))?.try_get(0)?)
    }

    fn batch(&mut self, sql: &str) -> Result<(), DbError> {
        Ok(self.0.batch_execute(&postgres_sql(sql))?)
    }

    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }
}

fn pg_row(row: &postgres::Row) -> Result<Row, DbError> {
    let mut values = Vec::with_capacity(row.len());
    for (index, column) in row.columns().iter().enumerate() {
        let value = match *column.type_() {
            Type::INT8 => row.try_get::<_, Option<i64>>(index)?.map(Value::Int),
            Type::INT4 => row
                .try_get::<_, Option<i32>>(index)?
                .map(|n| Value::Int(n.into())),
            Type::INT2 => row
                .try_get::<_, Option<i16>>(index)?
                .map(|n| Value::Int(n.into())),
            Type::BOOL => row
                .try_get::<_, Option<bool>>(index)?
                .map(|b| Value::Int(b.into())),
            Type::TEXT | Type::VARCHAR | Type::NAME | Type::BPCHAR => {
                row.try_get::<_, Option<String>>(index)?.map(Value::Text)
            }
            ref other => {
                return Err(DbError::Value(format!(
                    "column {} of type {other} is not read by the journal",
                    column.name()
                )));
            }
        };
        values.push(value.unwrap_or(Value::Null));
    }
    Ok(Row(values))
}

type BoxError = Box<dyn std::error::Error + Sync + Send>;

impl ToSql for Value {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        match (self, ty) {
            (Value::Null, _) => Ok(IsNull::Yes),
            (Value::Int(n), &Type::INT2) => i16::try_from(*n)?.to_sql(ty, out),
            (Value::Int(n), &Type::INT4) => i32::try_from(*n)?.to_sql(ty, out),
            (Value::Int(n), &Type::INT8) => n.to_sql(ty, out),
            (Value::Int(n), &Type::BOOL) => (*n != 0).to_sql(ty, out),
            (Value::Text(text), &(Type::TEXT | Type::VARCHAR | Type::NAME | Type::BPCHAR)) => {
                text.as_str().to_sql(ty, out)
            }
            (value, ty) => Err(format!("{value:?} given where PostgreSQL expects {ty}").into()),
        }
    }

    fn accepts(ty: &Type) -> bool {
        matches!(
            *ty,
            Type::INT2
                | Type::INT4
                | Type::INT8
                | Type::BOOL
                | Type::TEXT
                | Type::VARCHAR
                | Type::NAME
                | Type::BPCHAR
        )
    }

    fn to_sql_checked(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        if !Self::accepts(ty) {
            return Err(format!("the journal gives no value of type {ty}").into());
        }
        self.to_sql(ty, out)
    }
}
