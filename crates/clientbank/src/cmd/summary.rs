//! What `watch --once` prints at the end: a folder's files by where they went, its payments,
//! what waits and why, and where to look next, in the user's language.

use clientbank_watch::FileEnd;
use std::io;
use std::path::Path;

use clientbank_format::Message;
use clientbank_watch::Summary;
use clientbank_watch::daemon::PaymentCounts;
use clientbank_watch::folders::{Folder, Layout};
use clientbank_watch::report::shell_quote;

use crate::exit::Outcome;
use crate::term::{lang, outln, tr};

/// The exit code of a run that ended with `summary`.
pub(crate) fn outcome(summary: &Summary) -> Outcome {
    // A statement that could not be written fails the run as a rejected file does: a job run
    // from cron notices it.
    if summary.needs_attention() || summary.statement_error.is_some() {
        Outcome::Findings
    } else if set_up_stops(summary) {
        Outcome::Unreadable
    } else if !summary.files(FileEnd::Waiting).is_empty()
        || !summary.files(FileEnd::Queued).is_empty()
        || !summary.files(FileEnd::Interrupted).is_empty()
    {
        Outcome::BankUnavailable
    } else {
        Outcome::Clean
    }
}

/// Whether the set-up (token, configuration, journal) keeps anything from being sent.
fn set_up_stops(summary: &Summary) -> bool {
    summary.token_refused.is_some()
        || summary.config_error.is_some()
        || summary.journal_error.is_some()
}

/// Prints the summary of the folder `dir`.
pub(crate) fn print(dir: &Path, summary: &Summary) -> io::Result<()> {
    let awaiting = summary.payments.awaiting_signature;
    outln!("{}:", dir.display())?;
    if let Some(seeded) = &summary.journal_seeded {
        outln!("  {}", seeded.get(lang()))?;
    }
    files(summary)?;
    payments(summary)?;
    if awaiting > 0 {
        let (n, quoted) = (awaiting, shell_quote(&dir.display().to_string()));
        outln!(
            "  {}",
            tr(
                format!("{n} payment(s) await signature: `clientbank sign --dir {quoted}`"),
                format!("ждут подписи платежей: {n}; `clientbank sign --dir {quoted}`"),
            )
        )?;
    }
    for failure in &summary.sign_failures {
        outln!("  {}: {}", tr("signing", "подпись"), failure.get(lang()))?;
    }
    inbox(summary)?;
    stops(summary)?;
    pointers(dir, summary)
}

/// The names, after a colon, or nothing.
fn list(names: &[String]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!(": {}", names.join(", "))
    }
}

/// Files by the folder they are in, and why those left in processing/ wait.
fn files(summary: &Summary) -> io::Result<()> {
    let files = |n: usize| tr(format!("{n} file(s)"), format!("файлов: {n}"));
    for end in [FileEnd::Done, FileEnd::Rejected, FileEnd::Review] {
        let (folder, names) = (format!("{}/", end.folder()), summary.files(end));
        outln!("  {folder:<11} {}{}", files(names.len()), list(names))?;
    }
    let waiting = if set_up_stops(summary) {
        // Waiting for the set-up to be put right (said below).
        Message::new(
            "file(s) waiting, nothing sent (see below)",
            "файлов ждут, ничего не отправлено (см. ниже)",
        )
    } else {
        Message::new("file(s) waiting for the bank", "файлов ждут банк")
    };
    let queued = Message::new(
        "file(s) waiting for the same payments in another file (sent once, from there)",
        "файлов ждут те же платежи в другом файле (они отправляются один раз, оттуда)",
    );
    let interrupted = Message::new(
        "file(s) stopped part-way (the rest is sent on the next start)",
        "файлов остановлены на середине (остальное уйдёт при следующем запуске)",
    );
    for (end, what) in [
        (FileEnd::Waiting, waiting),
        (FileEnd::Queued, queued),
        (FileEnd::Interrupted, interrupted),
    ] {
        let names = summary.files(end);
        if names.is_empty() {
            continue;
        }
        let n = names.len();
        let what = tr(format!("{n} {}", what.en()), format!("{}: {n}", what.ru()));
        outln!("  {}/ {what}{}", end.folder(), list(names))?;
    }
    Ok(())
}

/// The payments by what became of them, and the statement.
fn payments(summary: &Summary) -> io::Result<()> {
    let PaymentCounts {
        uploaded: up,
        already: al,
        refused: re,
        doubt,
        signed,
        ..
    } = summary.payments;
    outln!(
        "  {}",
        tr(
            format!(
                "payments: {up} uploaded, {al} already at the bank (not sent again), {re} refused \
                 by the bank, {doubt} in doubt, {signed} signed"
            ),
            format!(
                "платежи: загружено {up}, уже в банке (повторно не отправлены) {al}, отклонено \
                 банком {re}, под сомнением {doubt}, подписано {signed}"
            ),
        )
    )?;
    if let Some(statement) = &summary.statement {
        outln!(
            "  {}",
            tr(
                format!("statement: {}", statement.en()),
                format!("выписка: {}", statement.ru())
            )
        )?;
    }
    if let Some(error) = &summary.statement_error {
        outln!("  {}", error.get(lang()))?;
    }
    Ok(())
}

/// Files that could not be taken from the inbox, or are left in processing/ unmoved.
fn inbox(summary: &Summary) -> io::Result<()> {
    let notes = [
        (
            FileEnd::Unmoved,
            Message::new(
                "finished, but it cannot be moved out of processing/ to its folder (see the \
                 log): it is moved when that is possible",
                "обработан, но не переносится из processing/ в свою папку (см. журнал работы): \
                 будет перенесён, когда это станет возможно",
            ),
        ),
        (
            FileEnd::Unreadable,
            Message::new(
                "cannot be taken: it cannot be opened, or moved to processing/ (the log says \
                 why; often the service's user lacks the right to read and write inbox/)",
                "не берётся в работу: не открывается или не переносится в processing/ (почему — \
                 в журнале работы; часто у пользователя службы нет прав на чтение и запись \
                 inbox/)",
            ),
        ),
        (
            FileEnd::Incomplete,
            Message::new("not complete yet, it waits", "ещё не дописан, ждёт"),
        ),
        (
            FileEnd::Ignored,
            Message::new("ignored", "не обрабатывается"),
        ),
    ];
    for (end, what) in notes {
        for name in summary.files(end) {
            outln!("  {}/{name}: {}", end.folder(), what.get(lang()))?;
        }
    }
    Ok(())
}

/// What stops uploads (the token, the configuration, the journal) or keeps files waiting.
fn stops(summary: &Summary) -> io::Result<()> {
    let bank_unavailable = summary
        .bank_unavailable
        .as_ref()
        .filter(|_| !summary.files(FileEnd::Waiting).is_empty());
    let stops = [
        // The bank's error says it refuses the token; said here is what follows.
        (
            &summary.token_refused,
            Message::new(
                "nothing was uploaded (issue a new token in the bank's cabinet, or run \
                 `clientbank login`)",
                "ничего не загружено (выпустите новый токен в кабинете банка или выполните \
                 `clientbank login`)",
            ),
        ),
        (
            &summary.config_error,
            Message::new(
                "nothing was sent, the configuration keeps requests from being made",
                "ничего не отправлено: настройки не позволяют составить запрос",
            ),
        ),
        (
            &summary.journal_error,
            Message::new(
                "the journal cannot be written, nothing more is sent",
                "журнал не записывается, больше ничего не отправляется",
            ),
        ),
        (
            &bank_unavailable.cloned(),
            Message::new("the bank is unavailable", "банк недоступен"),
        ),
    ];
    for (why, what) in stops {
        if let Some(why) = why {
            outln!("  {}: {}", what.get(lang()), why.get(lang()))?;
        }
    }
    Ok(())
}

/// Where the reasons of rejected files and files in review are written.
fn pointers(dir: &Path, summary: &Summary) -> io::Result<()> {
    let see = tr("see", "см.");
    let layout = Layout::new(dir);
    for (folder, names, suffix) in [
        (
            Folder::Rejected,
            summary.files(FileEnd::Rejected),
            "errors.txt",
        ),
        (Folder::Review, summary.files(FileEnd::Review), "review.txt"),
    ] {
        for name in names {
            let path = layout.folder(folder).join(format!("{name}.{suffix}"));
            outln!("  {see} {}", shell_quote(&path.display().to_string()))?;
        }
    }
    Ok(())
}
