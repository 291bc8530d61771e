//! The bank's operations as this project keeps them between runs: the history's records and
//! the webhook's notifications, recorded once per id, and how far each account's statement has
//! been synced. The store is the watch daemon's journal ([`Operations`] is its face here), so
//! the statement and the webhook listener do not depend on the daemon.

/// What a store of operations failed with (the journal's error, kept as the cause).
pub type StoreError = Box<dyn std::error::Error + Send + Sync>;

/// A store of the bank's operations and of the orders this project uploaded.
pub trait Operations: Send {
    /// Records an operation once per id: `true` when it is new, or when the history confirms
    /// or changes it (a webhook's record never replaces one).
    fn record_operation(&mut self, row: &OperationRow) -> Result<bool, StoreError>;
    /// The operations of `account` executed from `from` to `till` (inclusive days,
    /// `YYYY-MM-DD`), oldest first.
    fn operations_between(
        &self,
        account: &str,
        from: &str,
        till: &str,
    ) -> Result<Vec<OperationRow>, StoreError>;
    /// How far `account`'s statement has been synced.
    fn statement_sync(&self, account: &str) -> Result<Option<StatementSync>, StoreError>;
    /// Records how far `sync.account`'s statement has been synced.
    fn set_statement_sync(&mut self, sync: &StatementSync) -> Result<(), StoreError>;
}

/// The orders this project uploaded, as the statement writes them back (see
/// [`crate::statement::write`]).
pub trait Orders {
    /// The order (a one-document 1.03 file, [`crate::statement::order_text`]) of the uploaded
    /// payment that the bank's operation `bank_id` is; failing the id, the one uploaded payment
    /// without a known id with these requisites: payer account, number (as
    /// [`clientbank_payment::identity::normalise_number`] gives it), sum (two decimals), recipient account.
    fn order_of(&self, bank_id: &str, identity: [&str; 4]) -> Result<Option<String>, StoreError>;
}

/// Where an operation row came from.
pub mod source {
    /// The operation history (`/operation-history`).
    pub const HISTORY: &str = "history";
    /// A webhook notification.
    pub const WEBHOOK: &str = "webhook";
}

/// How far an account's statement has been synced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatementSync {
    /// The account number.
    pub account: String,
    /// The last day whose history was fetched whole (`YYYY-MM-DD`); the next sync starts there
    /// (the day may have gone on).
    pub synced_till: String,
    /// The id of the last operation synced (the newest by execution).
    pub last_operation: Option<String>,
}

/// One operation of the bank, as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperationRow {
    /// The bank's id.
    pub id: String,
    /// The own account number.
    pub account: String,
    /// Execution, Moscow time (`YYYY-MM-DDTHH:MM:SS`), if executed.
    pub executed: Option<String>,
    /// Where it was first seen: see [`source`].
    pub source: String,
    /// The record as JSON: the history's, once the history has it.
    pub body: String,
    /// Whether the history has it (a webhook's word alone is a hint: only the history's records
    /// go into statements).
    pub confirmed: bool,
}
