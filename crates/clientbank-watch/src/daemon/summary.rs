//! What a run of the daemon did: its files by where they ended, its payments by what became
//! of them, and what stopped it.

use std::collections::BTreeMap;

use clientbank_format::Message;

use crate::folders::Folder;

/// Where a file of a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileEnd {
    /// Moved to done/.
    Done,
    /// Moved to rejected/.
    Rejected,
    /// Moved to review/.
    Review,
    /// Still in processing/ because the bank did not take it yet (or the journal could not be
    /// written).
    Waiting,
    /// In processing/, its payments waiting for the same payments in another file that waits
    /// for the bank (sent once, from that file).
    Queued,
    /// In processing/, stopped part-way by SIGINT/SIGTERM: the rest is sent on the next start.
    Interrupted,
    /// In processing/ with all its payments answered, but it cannot be moved to its folder
    /// (done/ read-only, say): the log says why; moved when that is possible.
    Unmoved,
    /// In inbox/, and it could not be opened.
    Unreadable,
    /// In inbox/, not complete yet (no `КонецФайла`, a section left open, JSON that stops
    /// early): it waits.
    Incomplete,
    /// In inbox/, and no regular file (a symlink, a FIFO, a folder): ignored.
    Ignored,
}

impl FileEnd {
    /// The folder a file of this end is in.
    pub fn folder(self) -> Folder {
        match self {
            FileEnd::Done => Folder::Done,
            FileEnd::Rejected => Folder::Rejected,
            FileEnd::Review => Folder::Review,
            FileEnd::Waiting | FileEnd::Queued | FileEnd::Interrupted | FileEnd::Unmoved => {
                Folder::Processing
            }
            FileEnd::Unreadable | FileEnd::Incomplete | FileEnd::Ignored => Folder::Inbox,
        }
    }
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// The files, by where they ended.
    files: BTreeMap<FileEnd, Vec<String>>,
    /// The payments, by what became of them.
    pub payments: PaymentCounts,
    /// Signatures that failed or were refused.
    pub sign_failures: Vec<Message>,
    /// The bank refused the token.
    pub token_refused: Option<Message>,
    /// The configuration kept requests from being made (nothing was sent).
    pub config_error: Option<Message>,
    /// A new journal was started and seeded from done/, review/ and rejected/: what it learnt.
    pub journal_seeded: Option<Message>,
    /// The bank was unavailable (maintenance, no connection).
    pub bank_unavailable: Option<Message>,
    /// The journal could not be written (a full disk, a read-only file): nothing was sent.
    pub journal_error: Option<Message>,
    /// The last statement written to outbox/: its place and what it holds.
    pub statement: Option<Message>,
    /// Why the last statement could not be written, if it could not.
    pub statement_error: Option<Message>,
}

/// A run's payments, by what became of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PaymentCounts {
    /// Uploaded.
    pub uploaded: usize,
    /// Not sent because they are already at the bank.
    pub already: usize,
    /// Refused by the bank.
    pub refused: usize,
    /// In doubt.
    pub doubt: usize,
    /// Signed.
    pub signed: usize,
    /// Of the journal, awaiting their signature when the run ended.
    pub awaiting_signature: usize,
}

impl Summary {
    /// The files that ended so, in the order the run met them (the inbox's, sorted by name).
    pub fn files(&self, end: FileEnd) -> &[String] {
        self.files.get(&end).map_or(&[], Vec::as_slice)
    }

    /// The files that ended so, to change.
    pub(crate) fn files_mut(&mut self, end: FileEnd) -> &mut Vec<String> {
        self.files.entry(end).or_default()
    }

    /// Whether anything needs a person: a rejected file, one in review, a refused signature,
    /// a file that could not be read or moved.
    pub fn needs_attention(&self) -> bool {
        !self.sign_failures.is_empty()
            || [
                FileEnd::Rejected,
                FileEnd::Review,
                FileEnd::Unreadable,
                FileEnd::Unmoved,
            ]
            .into_iter()
            .any(|end| !self.files(end).is_empty())
    }
}
