//! The journal's schema, in one place for SQLite and PostgreSQL: each version one step (SQL,
//! or code where rows must be rewritten), applied in order in a transaction of its own that
//! also sets the version, so a journal of any earlier version is brought forward and a crash
//! leaves it at a whole step. The SQL is SQLite's; the few differences of PostgreSQL's dialect
//! are made in one place (`store::postgres_sql`: `$N` placeholders, `BIGINT` integers, identity keys).

use super::store::{DbError, Dialect, Sql, Store, set_version, values};

/// The schema version this build writes (SQLite's `PRAGMA user_version`, PostgreSQL's
/// `journal_version` table of the folder's schema).
pub const SCHEMA_VERSION: i64 = STEPS.len() as i64;

/// Schema 1: files, payments, events.
pub(super) const SCHEMA_1: &str = "CREATE TABLE files (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        hash TEXT NOT NULL,
        place TEXT NOT NULL,
        state TEXT NOT NULL,
        route TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        message TEXT
    );
    CREATE INDEX files_place ON files(place);
    CREATE INDEX files_hash ON files(hash);
    CREATE TABLE payments (
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES files(id),
        position INTEGER NOT NULL,
        identity TEXT NOT NULL,
        payer_account TEXT NOT NULL,
        number TEXT NOT NULL,
        date TEXT NOT NULL,
        sum TEXT NOT NULL,
        recipient TEXT NOT NULL,
        recipient_account TEXT NOT NULL,
        company TEXT,
        state TEXT NOT NULL,
        bank_id TEXT,
        sign TEXT,
        answer TEXT,
        message TEXT,
        uploaded_at TEXT,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX payments_identity ON payments(identity);
    CREATE INDEX payments_file ON payments(file_id);
    CREATE INDEX payments_sign ON payments(sign);
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        file TEXT,
        message TEXT NOT NULL
    );";

/// Schema 3: the bank's operations (from the history and from webhooks, one row per operation
/// id) and, per account, how far the statement has been synced.
const SCHEMA_3: &str = "CREATE TABLE operations (
        id TEXT PRIMARY KEY,
        account TEXT NOT NULL,
        executed TEXT,
        source TEXT NOT NULL,
        body TEXT NOT NULL,
        received_at TEXT NOT NULL,
        confirmed INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX operations_account ON operations(account, executed);
    CREATE TABLE statement_sync (
        account TEXT PRIMARY KEY,
        synced_till TEXT NOT NULL,
        last_operation TEXT,
        updated_at TEXT NOT NULL
    );";

/// Schema 4: each payment keeps the order as its file had it (`order_text`, a one-document 1.03
/// file in UTF-8), so the statement brings the order back to 1C with its own number, date and
/// requisites; operations are matched to payments by the bank's id; files are found by state
/// (the daemon looks for files gone from processing/ on every pass).
const SCHEMA_4: &str = "ALTER TABLE payments ADD COLUMN order_text TEXT;
    CREATE INDEX payments_bank_id ON payments(bank_id);
    CREATE INDEX files_state ON files(state);";

/// Schema 5: the last errors in Russian too (`message_ru`), what each is of (`topic`) and when
/// it was fixed (`fixed_at`): `status` shows only what is not fixed.
const SCHEMA_5: &str = "ALTER TABLE events ADD COLUMN message_ru TEXT;
    ALTER TABLE events ADD COLUMN topic TEXT;
    ALTER TABLE events ADD COLUMN fixed_at TEXT;";

/// Schema 6: the banks the journal's payments were sent to (`banks`): a journal that sent to
/// a sandbox is never used with the real bank, nor the other way round.
const SCHEMA_6: &str = "CREATE TABLE banks (
        address TEXT NOT NULL,
        kind TEXT NOT NULL,
        first_used_at TEXT NOT NULL,
        PRIMARY KEY (address, kind)
    );";

/// Schema 7: a payment's number as its file wrote it (`number_written`, leading zeros and all),
/// where that differs from `number` (the normalised number payments are matched by): what the
/// report and every person's text say, so that the accounting software finds the payment.
const SCHEMA_7: &str = "ALTER TABLE payments ADD COLUMN number_written TEXT;";

/// A step from one version to the next.
enum Step {
    /// SQL statements (SQLite's dialect; said in PostgreSQL's by `store::postgres_sql`).
    Sql(&'static str),
    /// Rows rewritten by code.
    Code(fn(&mut dyn Sql) -> Result<(), DbError>),
}

/// Version `n` is reached by `STEPS[n - 1]`.
const STEPS: &[Step] = &[
    Step::Sql(SCHEMA_1),
    Step::Code(schema_2),
    Step::Sql(SCHEMA_3),
    Step::Sql(SCHEMA_4),
    Step::Sql(SCHEMA_5),
    Step::Sql(SCHEMA_6),
    Step::Sql(SCHEMA_7),
];

/// The version the journal is at, read inside a step's transaction (another process may have
/// brought it forward since it was opened).
fn version_in(db: &mut dyn Sql) -> Result<i64, DbError> {
    let sql = match db.dialect() {
        Dialect::Sqlite => "PRAGMA user_version",
        Dialect::Postgres => "SELECT COALESCE(MAX(version), 0) FROM journal_version",
    };
    Ok(db.one(sql, &[])?.unwrap_or(0))
}

/// Brings a journal at `version` to [`SCHEMA_VERSION`], a step per transaction.
pub(super) fn bring_forward(db: &mut Store, version: i64) -> Result<(), DbError> {
    for (index, step) in STEPS.iter().enumerate().skip(version.max(0) as usize) {
        let reached = index as i64 + 1;
        db.write(|tx| {
            if version_in(tx)? >= reached {
                return Ok(());
            }
            match step {
                Step::Sql(sql) => tx.batch(sql)?,
                Step::Code(run) => run(tx)?,
            }
            set_version(tx, reached)
        })?;
    }
    Ok(())
}

/// Schema 2: identities with the document number normalised (`0402` is `402`); an identity
/// active in several rows (possible before) keeps one active row — uploaded first, then in
/// doubt, being sent, planned — and the others become `duplicate` (uploaded: at the bank
/// twice) or `held`; then the UNIQUE index over active identities.
fn schema_2(tx: &mut dyn Sql) -> Result<(), DbError> {
    let keys: Vec<(i64, String)> =
        tx.map("SELECT id, identity FROM payments", &[], |r| r.columns(0))?;
    for (id, key) in keys {
        let mut parts: Vec<&str> = key.split('|').collect();
        if parts.len() != 5 {
            continue;
        }
        let number = clientbank_payment::identity::normalise_number(parts[1]);
        if number != parts[1] {
            parts[1] = &number;
            tx.exec(
                "UPDATE payments SET identity = ?2 WHERE id = ?1",
                values![id, parts.join("|")],
            )?;
        }
    }
    // The state names as schema 2 wrote them: a migration is history, and says them as they
    // were then.
    tx.batch(
        "UPDATE payments SET
            state = CASE state WHEN 'uploaded' THEN 'duplicate' ELSE 'held' END,
            message = CASE state
                WHEN 'uploaded' THEN 'uploaded although the same payment was uploaded from another file: it is at the bank twice; cancel one of them in the bank''s cabinet'
                ELSE 'not sent: the same payment is active in another file (found when the journal was upgraded); check it at the bank' END
         WHERE id IN (
            SELECT id FROM (
                SELECT id, ROW_NUMBER() OVER (
                    PARTITION BY identity
                    ORDER BY CASE state WHEN 'uploaded' THEN 0 WHEN 'doubt' THEN 1
                        WHEN 'sending' THEN 2 ELSE 3 END, id) AS n
                FROM payments WHERE state IN ('planned', 'sending', 'uploaded', 'doubt')) AS ranked
            WHERE n > 1);
         CREATE UNIQUE INDEX payments_active ON payments(identity)
            WHERE state IN ('planned', 'sending', 'uploaded', 'doubt');",
    )
}
