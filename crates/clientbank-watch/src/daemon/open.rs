//! Opening a folder's journal: made on first use, refused where it is missing after use.

use std::fs;

use clientbank_diagnostic::os::{Act, cannot};

use crate::folders::Layout;
use crate::journal::{Journal, Location};
use crate::{Error, report};
use clientbank_bank::config::SharedJournal;

/// Opens the journal of `layout` (in PostgreSQL when `shared`, else its SQLite file): created
/// on first use; refused when it is missing although the folders show earlier use, unless
/// `new_journal`; refused when damaged.
pub fn open_journal(
    layout: &Layout,
    shared: Option<&SharedJournal>,
    new_journal: bool,
) -> Result<(Journal, bool), Error> {
    let path = layout.journal();
    let fresh = !Location::of(layout, shared, false)?.is_some_and(|l| l.exists());
    if fresh && layout.used() && !new_journal {
        // A journal in PostgreSQL is found through the folder's note of its schema.
        let path = match shared {
            Some(_) => crate::journal::schema_file(layout),
            None => path.clone(),
        };
        return Err(lost_journal(layout, &path));
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(Error::io(cannot(Act::Create, parent.display())))?;
    }
    let location = Location::of(layout, shared, true)?.unwrap_or(Location::Sqlite(path));
    // A schema named but gone from the database in a used folder is a lost journal: refused,
    // never made anew in silence (an unused folder's: named by a start that failed, made now).
    let create = fresh || !layout.used() || matches!(location, Location::Sqlite(_));
    Ok((Journal::open_at(&location, create)?, fresh))
}

/// The journal at `path` is missing although `layout`'s folders show earlier use: what to do.
pub(crate) fn lost_journal(layout: &Layout, path: &std::path::Path) -> Error {
    let (shown, root) = (path.display(), layout.root.display());
    let quoted = report::shell_quote(&root.to_string());
    Error::JournalMissing(clientbank_format::Message::new(
        format!(
            "the journal {shown} is missing, but {root} shows earlier use (files in \
                 processing/, done/, rejected/ or review/). clientbank does not start afresh by \
                 itself: a new journal would not know which payments are already at the bank. \
                 Restore the journal (with its -wal file) from a backup; or check the files of \
                 processing/, review/ and rejected/ at the bank and start with `clientbank \
                 watch {quoted} --new-journal` (the files of processing/ then go to review/; the \
                 new journal is seeded from done/, review/ and the reports of rejected/)"
        ),
        format!(
            "журнала {shown} нет, а папка {root} уже использовалась (есть файлы в \
                 processing/, done/, rejected/ или review/). clientbank не начинает с чистого \
                 листа сам: новый журнал не знал бы, какие платежи уже в банке. Восстановите \
                 журнал (вместе с файлом -wal) из резервной копии; или проверьте в банке файлы \
                 processing/, review/ и rejected/ и запустите `clientbank watch {quoted} \
                 --new-journal` (файлы processing/ уйдут в review/; новый журнал узнает \
                 done/, review/ и отчёты rejected/)"
        ),
    ))
}
