//! Where payments and files are in their lives, as the journal records them: one enum each, one
//! name in the journal ([`PaymentState::as_str`], mapped to SQL through the journal's values),
//! one label per language for people, and a code in the reports that programs read back.

use std::fmt;
use std::str::FromStr;

use crate::journal::DbError;
use crate::journal::store::{FromValue, Value};

/// Declares a state enum: its variants with their journal names, `ALL`, `as_str`, `FromStr`,
/// `Display` and the SQL mapping.
macro_rules! states {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every one, in order.
            pub const ALL: &[$name] = &[$($name::$variant,)+];

            /// Its name in the journal and in the reports' codes.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl FromStr for $name {
            type Err = UnknownState;
            fn from_str(text: &str) -> Result<$name, UnknownState> {
                match text {
                    $($text => Ok($name::$variant),)+
                    _ => Err(UnknownState(text.to_string())),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl From<$name> for Value {
            fn from(state: $name) -> Value {
                Value::from(state.as_str())
            }
        }

        impl FromValue for $name {
            fn from_value(value: &Value) -> Result<$name, DbError> {
                String::from_value(value)?
                    .parse()
                    .map_err(|e: UnknownState| DbError::Value(e.to_string()))
            }
        }
    };
}

/// A state name this version does not know (a journal written by a newer clientbank).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown state {0:?}: the journal was written by a newer clientbank")]
pub struct UnknownState(pub String);

states! {
    /// Where a payment is in its life.
    PaymentState {
        /// Recorded (the intent); not sent yet.
        Planned => "planned",
        /// About to be sent, or sent without an answer yet: in doubt after a crash.
        Sending => "sending",
        /// The bank took it (its id, when named, in `bank_id`).
        Uploaded => "uploaded",
        /// The bank refused it (its message in `message`).
        Refused => "refused",
        /// Sent, answer lost: may or may not be at the bank.
        Doubt => "doubt",
        /// Not sent: the same payment is already at the bank (`message` says which id).
        Already => "already",
        /// Not sent: a person said the doubtful upload did not reach the bank, or the file was
        /// withdrawn, or it vanished before it was sent.
        NotSent => "not-sent",
        /// Not sent: the same payment is in doubt in another file (or, on the 1C route, other
        /// payments of the file are elsewhere): a person decides.
        Held => "held",
        /// Not sent yet: the same payment is in another file that waits to send it (the bank
        /// was unavailable). Looked at again on every pass: `already` once that one is at the
        /// bank, `planned` (sent from here) if that one ends without sending it.
        Queued => "queued",
        /// Uploaded although the same payment had been uploaded from another file (possible
        /// only before journal schema 2): it is at the bank twice; a person cancels one.
        Duplicate => "duplicate",
    }
}

/// A payment starts planned.
impl Default for PaymentState {
    fn default() -> PaymentState {
        PaymentState::Planned
    }
}

impl PaymentState {
    /// The states in which a payment's identity is *active*: planned, being sent, at the bank
    /// (awaiting signature, signed, a draft) or in doubt. An identity is active in at most one
    /// payment row at a time (the journal's partial unique index says so to SQLite itself).
    pub const ACTIVE: [PaymentState; 4] = [
        PaymentState::Planned,
        PaymentState::Sending,
        PaymentState::Uploaded,
        PaymentState::Doubt,
    ];

    /// The SQL list of [`PaymentState::ACTIVE`]: `('planned', 'sending', 'uploaded', 'doubt')`.
    pub fn active_sql() -> String {
        let names: Vec<String> = Self::ACTIVE
            .iter()
            .map(|s| format!("'{}'", s.as_str()))
            .collect();
        format!("({})", names.join(", "))
    }

    /// May or may not be at the bank: a person settles it (`clientbank resolve`).
    pub fn in_doubt(self) -> bool {
        matches!(self, PaymentState::Doubt | PaymentState::Sending)
    }

    /// Not sent from this file (yet): planned, queued, held, or not sent.
    pub fn unsent(self) -> bool {
        matches!(
            self,
            PaymentState::Planned
                | PaymentState::NotSent
                | PaymentState::Held
                | PaymentState::Queued
        )
    }

    /// How much a row says of what the bank has: of one payment's rows in several files,
    /// `status` counts the weightiest (the latest among equals).
    pub fn weight(self) -> u8 {
        match self {
            PaymentState::Duplicate => 8,
            PaymentState::Uploaded => 7,
            PaymentState::Doubt | PaymentState::Sending => 6,
            PaymentState::Planned | PaymentState::Queued => 5,
            PaymentState::Held => 4,
            PaymentState::Refused => 3,
            PaymentState::Already => 2,
            PaymentState::NotSent => 1,
        }
    }
}

states! {
    /// Signing state of an uploaded payment.
    SignState {
        /// Awaiting signature (uploaded with `targetStatus: InSigning`).
        Awaiting => "awaiting",
        /// Signed through the API.
        Signed => "signed",
        /// A draft: signed in the bank's cabinet.
        Draft => "draft",
        /// The bank refused a signature of this payment alone because it no longer awaits one
        /// (signed by an earlier run whose answer was lost, in the cabinet, or cancelled):
        /// never offered for signing again; the message says what the bank answered.
        NotAwaiting => "not-awaiting",
    }
}

states! {
    /// Where a file is in its life.
    FileState {
        /// Claimed; its payments are being sent, or wait for the bank.
        Processing => "processing",
        /// Every payment uploaded now or already at the bank.
        Done => "done",
        /// Not (wholly) uploaded: an error finding, or the bank refused a payment.
        Rejected => "rejected",
        /// A payment may or may not be at the bank: a person decides.
        Review => "review",
        /// Uploaded by `clientbank upload` (the file stays where it is).
        Uploaded => "uploaded",
        /// Settled by a person (`clientbank resolve`) and sent back through the inbox.
        Resolved => "resolved",
        /// Gone from processing/ (deleted or moved away by hand) before its payments were sent.
        Missing => "missing",
        /// Given to `clientbank upload`, nothing of it taken (the bank unavailable, the token
        /// refused, held behind another file).
        NotSent => "not-sent",
    }
}

/// A payment's state and, once uploaded, its signing state: what people are told of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing {
    /// Where it is.
    pub state: PaymentState,
    /// Its signature, once uploaded.
    pub sign: Option<SignState>,
}

impl Standing {
    /// Every standing there is: each state, with each sign state and none.
    pub fn all() -> impl Iterator<Item = Standing> {
        PaymentState::ALL.iter().flat_map(|&state| {
            std::iter::once(None)
                .chain(SignState::ALL.iter().copied().map(Some))
                .map(move |sign| Standing { state, sign })
        })
    }

    /// The machine-readable code the reports carry beside the label: the state's journal name,
    /// with the sign state after `:` (`uploaded:awaiting`). [`Standing::from_code`] reads it.
    pub fn code(self) -> String {
        match self.sign {
            Some(sign) => format!("{}:{}", self.state, sign),
            None => self.state.to_string(),
        }
    }

    /// The standing a [`Standing::code`] names.
    pub fn from_code(code: &str) -> Result<Standing, UnknownState> {
        let (state, sign) = match code.trim().split_once(':') {
            Some((state, sign)) => (state, Some(sign.parse()?)),
            None => (code.trim(), None),
        };
        Ok(Standing {
            state: state.parse()?,
            sign,
        })
    }

    /// One payment's label in a report (`FILE.report.csv`), in English and in Russian.
    pub fn report_label(self) -> (&'static str, &'static str) {
        self.labels()[0]
    }

    /// Payments of this standing, counted in `status`: in English (the key of `status --json`)
    /// and in Russian.
    pub fn status_label(self) -> (&'static str, &'static str) {
        self.labels()[1]
    }

    /// What people read of a standing: one payment's label in a report, and the label of
    /// payments counted in `status` (several standings may share one), each in English and in
    /// Russian. The one table of them is `labels.tsv`, by [`Standing::code`]: a row for the
    /// state and sign state, else for the state.
    fn labels(self) -> Labels {
        let table = label_table();
        let code = self.code();
        table
            .iter()
            .find(|(row, _)| *row == code)
            .or_else(|| table.iter().find(|(row, _)| *row == self.state.as_str()))
            .map_or([("?", "?"); 2], |(_, labels)| *labels)
    }
}

/// A report's label and a count's, each in English and in Russian.
type Labels = [(&'static str, &'static str); 2];

/// `labels.tsv`, read once: each row's code and its labels. A test holds every standing to a
/// row and every row to a standing.
fn label_table() -> &'static [(&'static str, Labels)] {
    static TABLE: std::sync::LazyLock<Vec<(&str, Labels)>> = std::sync::LazyLock::new(|| {
        include_str!("labels.tsv")
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .map(|line| {
                let mut cells = line.split('\t');
                let mut cell = || cells.next().unwrap_or_default();
                (cell(), [(cell(), cell()), (cell(), cell())])
            })
            .collect()
    });
    &TABLE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_and_code_reads_back() {
        for state in PaymentState::ALL {
            assert_eq!(state.as_str().parse::<PaymentState>(), Ok(*state));
        }
        for state in FileState::ALL {
            assert_eq!(state.as_str().parse::<FileState>(), Ok(*state));
        }
        for standing in Standing::all() {
            assert_eq!(Standing::from_code(&standing.code()), Ok(standing));
        }
        assert!(Standing::from_code("uploaded:nonsense").is_err());
        assert!("Planned".parse::<PaymentState>().is_err());
        assert_eq!(
            PaymentState::active_sql(),
            "('planned', 'sending', 'uploaded', 'doubt')"
        );
    }

    #[test]
    fn every_row_of_the_label_table_is_a_standing_once_with_five_cells() {
        let rows: Vec<&str> = include_str!("labels.tsv")
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .collect();
        assert_eq!(rows.len(), label_table().len());
        let mut codes = std::collections::HashSet::new();
        for row in rows {
            let cells: Vec<&str> = row.split('\t').collect();
            assert_eq!(cells.len(), 5, "{row}");
            assert!(cells.iter().all(|c| !c.trim().is_empty()), "{row}");
            assert!(Standing::from_code(cells[0]).is_ok(), "{row}");
            assert!(codes.insert(cells[0]), "twice: {row}");
        }
        // Every state has a row of its own, whatever its sign state.
        for state in PaymentState::ALL {
            assert!(codes.contains(state.as_str()), "{state}");
        }
    }

    #[test]
    fn labels_differ_for_people_and_are_in_both_languages() {
        for standing in Standing::all() {
            let (en, ru) = standing.report_label();
            assert!(!en.is_empty() && !ru.is_empty() && en != ru, "{standing:?}");
            let (en, ru) = standing.status_label();
            assert!(!en.is_empty() && !ru.is_empty() && en != ru, "{standing:?}");
        }
    }

    /// "In doubt" is said one way in Russian, `под сомнением`, wherever a person reads it: the
    /// labels of every standing in doubt, and no other wording in the crates' texts.
    #[test]
    fn in_doubt_is_one_russian_word_everywhere() {
        for standing in Standing::all().filter(|s| s.state.in_doubt()) {
            let counted = standing.status_label().1;
            assert!(counted.contains("под сомнением"), "{standing:?}: {counted}");
        }
        let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut other = Vec::new();
        let mut folders = vec![crates];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() && !path.ends_with("target") {
                    folders.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for word in ["в сомнении", "сомнительн", "под вопросом"]
                    {
                        if text.contains(word) && !path.ends_with("state.rs") {
                            other.push(format!("{}: {word}", path.display()));
                        }
                    }
                }
            }
        }
        assert!(other.is_empty(), "{other:#?}");
    }
}
