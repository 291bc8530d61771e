//! Statements back to the outbox from the daemon: synced from the bank into the journal, written whole.

use super::*;
use clientbank_diagnostic::os::{Act, cannot};

impl Daemon {
    /// Asks for the outbox statement to be brought up to date on the next pass (a webhook told
    /// of a new operation).
    pub fn statement_due(&mut self) {
        self.next_statement = None;
    }

    /// Brings `outbox/FILE` up to date, if statements are configured: the journal's operations
    /// of each account synced from the bank's history, the statement of the period (ending
    /// today) written whole and renamed over the old one. The bank unavailable or a balance the
    /// history does not explain is logged and tried again later (the old statement stays);
    /// only a journal failure stops the daemon.
    pub async fn refresh_statement(&mut self) -> Result<(), Error> {
        let Some(config) = self.engine.settings.statements.clone() else {
            self.next_statement = Some(Instant::now() + Duration::from_secs(3600));
            return Ok(());
        };
        let retry = config.interval.min(Duration::from_secs(60));
        match self.write_statement(&config).await {
            Ok(written) => {
                say!(info, written);
                self.summary.statement = Some(written);
                self.summary.statement_error = None;
                self.engine
                    .journal
                    .forget_topic(crate::last_errors::STATEMENT)?;
                self.next_statement = Some(Instant::now() + config.interval);
                Ok(())
            }
            Err(
                e @ (Error::Journal { .. } | Error::JournalRefused(_) | Error::JournalDamaged(_)),
            ) => Err(e),
            Err(e) => {
                let noted = crate::last_errors::statement_failed(&e);
                say!(error, noted);
                let topic = Some(crate::last_errors::STATEMENT);
                self.engine.journal.note(None, topic, &noted)?;
                self.summary.statement_error = Some(noted);
                self.next_statement = Some(Instant::now() + retry);
                Ok(())
            }
        }
    }

    pub(super) async fn write_statement(
        &mut self,
        config: &clientbank_bank::config::Statements,
    ) -> Result<clientbank_format::Message, Error> {
        use clientbank_bank::statement;
        let client = self.engine.client()?;
        let today = self.today();
        let from = today - chrono::Duration::days(i64::from(config.days) - 1);
        let period = statement::Period::new(from, today)?;
        let accounts = statement::accounts(&client, &config.accounts).await?;
        let mut parts = Vec::new();
        for account in accounts {
            let journal = &mut self.engine.journal;
            statement::sync(&client, journal, &account, from, today, true).await?;
            let collector = statement::from_journal(journal, account.clone(), period)?;
            let part = match statement::balanced(&client, collector).await {
                // The balance disagrees with what was synced: an operation may have come late
                // to a day already synced, or changed. The whole period once more, then again.
                Err(clientbank_bank::Error::Unbalanced(_)) => {
                    let journal = &mut self.engine.journal;
                    statement::sync(&client, journal, &account, from, today, false).await?;
                    let collector = statement::from_journal(journal, account, period)?;
                    statement::balanced(&client, collector).await?
                }
                other => other?,
            };
            parts.push(part);
        }
        let outbox = self.layout.folder(Folder::Outbox);
        fs::create_dir_all(&outbox).map_err(Error::io(cannot(Act::Create, outbox.display())))?;
        let target = outbox.join(&config.file);
        let now = clientbank_payment::clock::now_in_moscow();
        let journal = &self.engine.journal;
        let written = clientbank_bank::files::replace_atomically(&target, |out| {
            let orders: Option<&dyn clientbank_bank::operations::Orders> = Some(journal);
            statement::write(
                out,
                config.encoding,
                period,
                now,
                &mut parts,
                orders,
                &mut |_| {},
            )
        })?;
        for note in &written.notes {
            say!(
                warn,
                tr!("statement: {}", note.en() ; "выписка: {}", note.ru())
            );
        }
        let place = Layout::place(Folder::Outbox, &config.file);
        let (documents, accounts) = (written.documents, parts.len());
        let (from, till) = (period.from, period.till);
        // Russian dates as Russian people and 1C write them.
        let (from_ru, till_ru) = (from.format("%d.%m.%Y"), till.format("%d.%m.%Y"));
        Ok(clientbank_format::Message::new(
            format!("{place}: {documents} document(s) of {accounts} account(s), {from} to {till}"),
            format!("{place}: документов {documents}, счетов {accounts}, с {from_ru} по {till_ru}"),
        ))
    }
}
