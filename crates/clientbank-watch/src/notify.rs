//! Telling a person (`[notify]`): the configured command is run with one event as a JSON object
//! on its standard input — a file gone to review/ or rejected/, payments awaiting a signature
//! too long — so that mail, a messenger or a desktop notice can be plugged in. The command runs
//! beside the daemon (it never holds a payment up); what it fails at is logged.

use std::io::Write;
use std::process::{Child, Command, Stdio};

use chrono::NaiveDate;
use serde_json::{Value, json};

use clientbank_bank::config::Notify;
use clientbank_format::{Lang, say, tr};

use crate::folders::Layout;
use crate::journal::{FileRow, PaymentRow, note};
use crate::state::{FileState, PaymentState};

/// The event of a file gone to rejected/ or review/ (README, `[notify]`): `reason` in English
/// and `reason_ru` in Russian whatever the language of the settings, and its payments — those
/// of the journal, or for a file rejected as a whole (nothing recorded), those the file holds.
pub(crate) fn file_event(
    layout: &Layout,
    file: &FileRow,
    final_name: &str,
    rows: &[PaymentRow],
    today: NaiveDate,
) -> Value {
    let beside = if file.state == FileState::Rejected {
        "errors.txt"
    } else {
        "review.txt"
    };
    // A file in review/ for its payments (in doubt, held) has no message of its own: the
    // reason is theirs.
    let unsettled = rows
        .iter()
        .filter(|r| r.outcome.state.in_doubt() || r.outcome.state == PaymentState::Held)
        .count();
    let review = (file.state == FileState::Review && unsettled > 0).then(|| {
        note::both(
            format!(
                "{unsettled} payment(s) in doubt or held: whether the bank has them is not known; \
                 look each up in the bank's cabinet, then settle them with `clientbank resolve` \
                 ({}.{beside} says how)",
                file.place
            ),
            format!(
                "платежей под сомнением или задержанных: {unsettled}; есть ли они в банке, \
                 неизвестно: найдите каждый в интернет-банке и решите их судьбу командой \
                 `clientbank resolve` (как — в {}.{beside})",
                file.place
            ),
        )
    });
    let message = file
        .message
        .as_deref()
        .filter(|m| !m.is_empty())
        .or(review.as_deref())
        .unwrap_or_default();
    let (mut reason, mut reason_ru) = (
        note::in_lang(message, Lang::En).to_string(),
        note::in_lang(message, Lang::Ru).to_string(),
    );
    let mut payments: Vec<Value> = rows
        .iter()
        .map(|r| {
            json!({
                "number": r.payment.shown_number(), "date": r.payment.date, "sum": r.payment.sum,
                "recipient": r.payment.recipient, "state": r.outcome.state.as_str(),
                "message": r.outcome.message.as_deref().map(|m| note::in_lang(m, Lang::En)),
                "message_ru": r.outcome.message.as_deref().map(|m| note::in_lang(m, Lang::Ru)),
            })
        })
        .collect();
    // A file rejected as a whole keeps its findings in the settings' language only: they are
    // read again from the file, in each language.
    let path = layout.path_of(&file.place);
    if file.state == FileState::Rejected
        && rows.is_empty()
        && !message.contains(note::BOTH)
        && let Ok(bytes) = std::fs::read(&path)
    {
        let shown = std::path::Path::new(&file.name);
        let en = crate::drop::read(shown, &bytes, today, Lang::En);
        let ru = crate::drop::read(shown, &bytes, today, Lang::Ru);
        if !en.errors_text.is_empty() {
            (reason, reason_ru) = (en.errors_text, ru.errors_text);
        }
        payments = en
            .payments
            .iter()
            .map(|p| {
                let row = crate::engine::new_payment(p, None).payment;
                json!({
                    "number": row.shown_number(), "date": row.date, "sum": row.sum,
                    "recipient": row.recipient, "state": "not-sent",
                    "message": null, "message_ru": null,
                })
            })
            .collect();
    }
    json!({
        "event": file.state.as_str(),
        "dir": layout.root.display().to_string(),
        "file": final_name,
        "place": file.place,
        "note": format!("{}.{beside}", file.place),
        "reason": (!message.is_empty()).then_some(reason),
        "reason_ru": (!message.is_empty()).then_some(reason_ru),
        "payments": payments,
    })
}

/// Runs `notify`'s command with `event` on its standard input, in the background: a thread of
/// its own feeds it and waits for its end, to say if it failed. Where the system gives no such
/// thread, the command is not run, and that is said.
pub fn tell(notify: &Notify, event: &Value) {
    let Some((program, args)) = notify.command.split_first() else {
        return;
    };
    let mut line = event.to_string();
    line.push('\n');
    // The waiter first: a command started with no one to wait for it would be left behind.
    let (hand, handed) = std::sync::mpsc::channel::<Child>();
    let waited = program.clone();
    let waiter = clientbank_diagnostic::threads::spawn(move || {
        if let Ok(child) = handed.recv() {
            wait_for(child, &line, &waited);
        }
    });
    if waiter.is_none() {
        say!(
            warn,
            tr!(
                "the notify command `{program}` was not run: the system gave no thread to wait for it" ;
                "команда уведомления `{program}` не запущена: система не дала потока, чтобы её дождаться"
            )
        );
        return;
    }
    let spawned = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    match spawned {
        // The waiter is there until it is handed the command (or its hand is dropped).
        Ok(child) => drop(hand.send(child)),
        Err(e) => say!(
            warn,
            tr!(
                "the notify command `{program}` cannot run: {e}" ;
                "команда уведомления `{program}` не запускается: {}"
            , clientbank_diagnostic::os::Ru(&e))
        ),
    }
}

/// Feeds `line` to the notify command and waits for its end; a failure is said.
fn wait_for(mut child: Child, line: &str, program: &str) {
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(line.as_bytes());
    }
    match child.wait_with_output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => {
            let how = clientbank_diagnostic::os::failed_run(out.status, &out.stderr);
            say!(
                warn,
                tr!(
                    "the notify command `{program}` failed ({how})" ;
                    "команда уведомления `{program}` завершилась с ошибкой ({})", how.ru()
                )
            );
        }
        Err(e) => say!(
            warn,
            tr!(
                "the notify command `{program}` failed: {e}" ;
                "команда уведомления `{program}` завершилась с ошибкой: {}"
            , clientbank_diagnostic::os::Ru(&e))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file in review/ for its payments has no message of its own: the event's reason is
    /// theirs, in both languages, never `null`.
    #[test]
    fn a_review_event_says_why() {
        let layout = Layout::new(std::path::Path::new("exchange"));
        let file = FileRow {
            id: 1,
            name: "a.txt".into(),
            hash: String::new(),
            place: "review/a.txt".into(),
            state: FileState::Review,
            route: None,
            created_at: String::new(),
            message: None,
        };
        let rows = [
            PaymentRow::example(1, "7", PaymentState::Doubt),
            PaymentRow::example(2, "8", PaymentState::Uploaded),
        ];
        let today = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap_or_default();
        let event = file_event(&layout, &file, "a.txt", &rows, today);
        let reason = event["reason"].as_str().unwrap_or_default();
        assert!(
            reason.starts_with("1 payment(s) in doubt or held"),
            "{event}"
        );
        assert!(reason.contains("review/a.txt.review.txt"), "{event}");
        let reason_ru = event["reason_ru"].as_str().unwrap_or_default();
        assert!(reason_ru.contains("под сомнением"), "{event}");
    }

    /// The command is told the event on its standard input; where no thread can be had to
    /// wait for it, it is not started at all (and nothing panics).
    #[cfg(unix)]
    #[test]
    fn the_command_runs_only_with_a_thread_to_wait_for_it() {
        let dir = tempfile::tempdir().unwrap();
        let notify = |name: &str| Notify {
            command: vec![
                "sh".into(),
                "-c".into(),
                format!("cat >> '{}'", dir.path().join(name).display()),
            ],
            signature_after: std::time::Duration::ZERO,
        };
        let event = json!({"event": "rejected"});
        tell(&notify("told.jsonl"), &event);
        clientbank_diagnostic::threads::refuse_next(1);
        tell(&notify("untold.jsonl"), &event);
        let started = std::time::Instant::now();
        let told = loop {
            let told = std::fs::read_to_string(dir.path().join("told.jsonl")).unwrap_or_default();
            if !told.is_empty() || started.elapsed() > std::time::Duration::from_secs(10) {
                break told;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert_eq!(told, "{\"event\":\"rejected\"}\n");
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(!dir.path().join("untold.jsonl").exists());
    }
}
