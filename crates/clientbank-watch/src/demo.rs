//! `clientbank watch --demo`: the sample drops (a good 1C file, a good JSON file, a file with
//! an error) and throwaway signers for the sandbox bank's companies.

use crate::FileEnd;
use std::collections::BTreeMap;
use std::path::Path;

use clientbank_diagnostic::os::{Act, cannot};
use clientbank_format::tr;

use crate::Error;
use crate::folders::{Folder, Layout};
use clientbank_bank::config::{Settings, Signing};
use clientbank_bank::signer;
use clientbank_format::Message;

/// The sample drops: name and bytes (`testdata/drops/`).
pub const DROPS: &[(&str, &[u8])] = &[
    (
        "1c_to_kl.txt",
        include_bytes!("../../../testdata/drops/1c_to_kl.txt"),
    ),
    (
        "payments.json",
        include_bytes!("../../../testdata/drops/payments.json"),
    ),
    (
        "with-error.txt",
        include_bytes!("../../../testdata/drops/with-error.txt"),
    ),
];

/// The sample that must be rejected (it holds a wrong INN); the others must be done.
pub const REJECTED: &str = "with-error.txt";

/// Whether a demo run ended as designed: every good sample in done/, the bad one in
/// rejected/, nothing in review.
pub fn as_designed(done: &[String], rejected: &[String], review: &[String]) -> bool {
    let good = DROPS
        .iter()
        .map(|(name, _)| *name)
        .filter(|&name| name != REJECTED);
    review.is_empty()
        && rejected == [REJECTED]
        && done.len() == DROPS.len() - 1
        && good.into_iter().all(|name| done.iter().any(|d| d == name))
}

/// Whether a demo run went as designed ([`as_designed`]) and wrote its statement.
pub fn went_as_designed(summary: &crate::Summary) -> bool {
    as_designed(
        summary.files(FileEnd::Done),
        summary.files(FileEnd::Rejected),
        summary.files(FileEnd::Review),
    ) && summary.statement.is_some()
}

/// Makes `dir` the demo's ([`start_afresh`]) with the sample drops in its inbox
/// ([`copy_drops`]), and `settings` the demo's: its statements unless some are configured,
/// throwaway signers ([`signers`], made in the folder returned: gone when it is dropped)
/// signing as soon as payments are uploaded.
pub fn prepare(
    dir: &Path,
    settings: &mut Settings,
    today: chrono::NaiveDate,
) -> Result<tempfile::TempDir, Error> {
    start_afresh(dir)?;
    copy_drops(&Layout::new(dir).folder(Folder::Inbox), today)?;
    let keys = tempfile::tempdir().map_err(Error::io(Message::new(
        "cannot make a temporary folder",
        "не удалось создать временную папку",
    )))?;
    if settings.statements.is_none() {
        settings.statements = Some(statements());
    }
    settings.signers.extend(signers(keys.path(), today)?);
    settings.signing = Signing::Auto;
    settings.in_signing = true;
    Ok(keys)
}

/// The marker that says a folder was made by `--demo`, so a later `--demo` may clear it.
const MARKER: &str = "made-by-demo";

/// Makes `dir` ready for a demo: a new folder is marked as the demo's; a folder an earlier
/// demo made is cleared; any other folder that holds a journal is refused, never touched.
pub fn start_afresh(dir: &Path) -> Result<(), Error> {
    let state = crate::folders::Layout::new(dir).folder(crate::folders::Folder::Private);
    if state.join(MARKER).exists() {
        std::fs::remove_dir_all(dir).map_err(Error::io(tr!(
            "cannot clear the demo folder {}", dir.display() ;
            "не удалось очистить папку примера {}", dir.display()
        )))?;
    } else if state.join("journal.sqlite").exists() {
        let dir = dir.display();
        return Err(Error::Usage(clientbank_format::Message::new(
            format!(
                "--demo starts afresh, but {dir} holds a journal that no demo made: name another folder"
            ),
            format!(
                "--demo начинает заново, но в {dir} журнал, сделанный не демонстрацией: укажите другую папку"
            ),
        )));
    }
    std::fs::create_dir_all(&state)
        .and_then(|()| std::fs::write(state.join(MARKER), b"made by clientbank watch --demo\n"))
        .map_err(Error::io(cannot(Act::Create, state.display())))
}

/// The INNs of the sandbox bank's companies that the demo signs for.
pub const SANDBOX_INNS: &[&str] = &["7701234560", "500100732259"];

/// The day the sample orders were made, as `testdata/drops/` writes it: `ДД.ММ.ГГГГ` and ISO.
const SAMPLES_DAY: (&str, &str) = ("20.11.2026", "2026-11-20");

/// Copies the sample drops into `inbox`, their orders dated `today` (an accountant's orders are
/// made the day they are sent; a sample dated once would be stale, and the bank would refuse
/// it, ten days later).
pub fn copy_drops(inbox: &Path, today: chrono::NaiveDate) -> Result<(), Error> {
    std::fs::create_dir_all(inbox).map_err(Error::io(cannot(Act::Create, inbox.display())))?;
    let days = [
        (SAMPLES_DAY.0, today.format("%d.%m.%Y").to_string()),
        (SAMPLES_DAY.1, today.format("%Y-%m-%d").to_string()),
    ];
    for (name, bytes) in DROPS {
        let mut bytes = bytes.to_vec();
        for (from, to) in &days {
            redate(&mut bytes, from.as_bytes(), to.as_bytes());
        }
        let path = inbox.join(name);
        std::fs::write(&path, bytes).map_err(Error::io(cannot(Act::Write, path.display())))?;
    }
    Ok(())
}

/// Replaces every `from` in `bytes` by `to`: ASCII of the same length, so the same in CP1251,
/// CP866 and UTF-8, and every line keeps its columns.
fn redate(bytes: &mut [u8], from: &[u8], to: &[u8]) {
    debug_assert_eq!(from.len(), to.len());
    let mut at = 0;
    while let Some(found) = memchr::memmem::find(&bytes[at..], from) {
        let found = at + found;
        bytes[found..found + to.len()].copy_from_slice(to);
        at = found + to.len();
    }
}

/// A throwaway openssl key and certificate per sandbox company, made in `keys`; the signers
/// by INN.
pub fn signers(
    keys: &Path,
    today: chrono::NaiveDate,
) -> Result<BTreeMap<String, Vec<String>>, Error> {
    let mut out = BTreeMap::new();
    for inn in SANDBOX_INNS {
        out.insert(
            inn.to_string(),
            signer::throwaway_openssl(keys, inn, today)?,
        );
    }
    Ok(out)
}

/// The demo's statements: the accounts of the sample drops' payers, yesterday and today, in
/// `outbox/kl_to_1c.txt` (CP1251), so the demo shows the way back too.
pub fn statements() -> clientbank_bank::config::Statements {
    clientbank_bank::config::Statements {
        accounts: vec!["40702810938000012345".into(), "40802810438000054321".into()],
        days: 2,
        interval: std::time::Duration::from_secs(600),
        encoding: clientbank_format::Encoding::Cp1251,
        file: "kl_to_1c.txt".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_samples_are_dated_the_day_they_are_dropped() {
        let inbox = tempfile::tempdir().unwrap();
        let day = chrono::NaiveDate::from_ymd_opt(2031, 2, 3).unwrap();
        copy_drops(inbox.path(), day).unwrap();
        for (name, bytes) in DROPS {
            let copied = std::fs::read(inbox.path().join(name)).unwrap();
            assert_eq!(copied.len(), bytes.len(), "{name}");
            let text = String::from_utf8_lossy(&copied);
            assert!(
                !text.contains("20.11.2026") && !text.contains("2026-11-20"),
                "{name}"
            );
            assert!(text.contains("03.02.2031"), "{name}");
        }
    }
}
