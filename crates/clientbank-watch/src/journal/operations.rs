//! The bank's operations and the statement's sync in the journal: the store the bank crate's statement and webhook listener keep them in (clientbank_bank::operations).

use super::*;

impl Journal {
    /// Records an operation of the bank once per id: `true` when it is new, or when the history
    /// confirms or changes it. A webhook's record is kept as it came (a hint: it is not put in a
    /// statement) and never replaces one; the history's record replaces a webhook's, and an
    /// earlier history record of the same id (its status may have changed), and marks it
    /// confirmed. `source` stays where it was first seen.
    pub fn record_operation(&mut self, row: &OperationRow) -> Result<bool, Error> {
        let history = row.source == operation_source::HISTORY;
        let sql = if history {
            "INSERT INTO operations (id, account, executed, source, body, received_at, confirmed)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1)
             ON CONFLICT (id) DO UPDATE SET account = excluded.account,
                executed = excluded.executed, body = excluded.body, confirmed = 1
             WHERE operations.confirmed = 0 OR operations.body IS DISTINCT FROM excluded.body"
        } else {
            "INSERT INTO operations (id, account, executed, source, body, received_at, confirmed)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0) ON CONFLICT (id) DO NOTHING"
        };
        let changed = self.run(|db| {
            db.exec(
                sql,
                values![
                    &row.id,
                    &row.account,
                    row.executed.as_deref(),
                    &row.source,
                    &row.body,
                    now()
                ],
            )
        })?;
        Ok(changed == 1)
    }

    /// The order (a one-document 1.03 file, see [`NewPayment::order`]) of the payment this
    /// journal uploaded that the bank's operation `bank_id` is: the payment with that id; else
    /// the one uploaded payment whose id the journal does not know (settled `--sent` by a
    /// person, or taken by a bank that named no id) with the same payer account, number (as
    /// [`clientbank_payment::identity::normalise_number`] gives it), sum (two decimals) and recipient account. A
    /// payment whose id is known is never matched by its requisites: the operation would be
    /// another one (the same order sent from elsewhere). Two or more such payments match none:
    /// a wrong order would be worse than the bank's own record.
    pub fn order_of(&self, bank_id: &str, identity: [&str; 4]) -> Result<Option<String>, Error> {
        let [payer_account, number, sum, recipient_account] = identity;
        self.run(|db| {
            let by_id: Option<String> = db.one(
                "SELECT order_text FROM payments WHERE bank_id = ?1 AND order_text IS NOT NULL
                 ORDER BY id LIMIT 1",
                values![bank_id],
            )?;
            if by_id.is_some() {
                return Ok(by_id);
            }
            let found: Vec<String> = db.map(
                "SELECT DISTINCT order_text FROM payments
                 WHERE payer_account = ?1 AND number = ?2 AND sum = ?3 AND recipient_account = ?4
                   AND state = ?5 AND bank_id IS NULL AND order_text IS NOT NULL
                 LIMIT 2",
                values![
                    payer_account,
                    number,
                    sum,
                    recipient_account,
                    PaymentState::Uploaded
                ],
                |r| r.get(0),
            )?;
            Ok(match <[String; 1]>::try_from(found) {
                Ok([order]) => Some(order),
                Err(_) => None,
            })
        })
    }

    /// The operations of `account` executed from `from` to `till` (inclusive days,
    /// `YYYY-MM-DD`), oldest first.
    pub fn operations_between(
        &self,
        account: &str,
        from: &str,
        till: &str,
    ) -> Result<Vec<OperationRow>, Error> {
        // `till` inclusive: every time of that day sorts before the day's `T` suffix + 1.
        let end = format!("{till}U");
        self.run(|db| {
            db.map(
                "SELECT id, account, executed, source, body, confirmed FROM operations
                 WHERE account = ?1 AND executed >= ?2 AND executed < ?3
                 ORDER BY executed, id",
                values![account, from, end],
                |r| {
                    let (id, account, executed, source, body, confirmed) = r.columns(0)?;
                    Ok(OperationRow {
                        id,
                        account,
                        executed,
                        source,
                        body,
                        confirmed,
                    })
                },
            )
        })
    }

    /// How far `account`'s statement has been synced.
    pub fn statement_sync(&self, account: &str) -> Result<Option<StatementSync>, Error> {
        self.run(|db| {
            db.row(
                "SELECT account, synced_till, last_operation FROM statement_sync
                 WHERE account = ?1",
                values![account],
            )?
            .map(|r| {
                let (account, synced_till, last_operation) = r.columns(0)?;
                Ok(StatementSync {
                    account,
                    synced_till,
                    last_operation,
                })
            })
            .transpose()
        })
    }

    /// Records how far `sync.account`'s statement has been synced.
    pub fn set_statement_sync(&mut self, sync: &StatementSync) -> Result<(), Error> {
        self.run(|db| {
            db.exec(
                "INSERT INTO statement_sync (account, synced_till, last_operation, updated_at)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (account) DO UPDATE SET synced_till = ?2, last_operation = ?3,
                 updated_at = ?4",
                values![
                    &sync.account,
                    &sync.synced_till,
                    sync.last_operation.as_deref(),
                    now()
                ],
            )
        })?;
        Ok(())
    }
}

impl Operations for Journal {
    fn record_operation(&mut self, row: &OperationRow) -> Result<bool, StoreError> {
        Ok(Journal::record_operation(self, row)?)
    }

    fn operations_between(
        &self,
        account: &str,
        from: &str,
        till: &str,
    ) -> Result<Vec<OperationRow>, StoreError> {
        Ok(Journal::operations_between(self, account, from, till)?)
    }

    fn statement_sync(&self, account: &str) -> Result<Option<StatementSync>, StoreError> {
        Ok(Journal::statement_sync(self, account)?)
    }

    fn set_statement_sync(&mut self, sync: &StatementSync) -> Result<(), StoreError> {
        Ok(Journal::set_statement_sync(self, sync)?)
    }
}

impl Orders for Journal {
    fn order_of(&self, bank_id: &str, identity: [&str; 4]) -> Result<Option<String>, StoreError> {
        Ok(Journal::order_of(self, bank_id, identity)?)
    }
}
