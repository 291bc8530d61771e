//! A person settles the payments in doubt of a file of review/ (clientbank resolve): payment by payment, then the file goes to done/ or back to the inbox.

use super::*;
use clientbank_format::tr;

/// What a person says of the payments in doubt of a file of review/ (`clientbank resolve`):
/// the numbers of those at the bank and of those not at the bank; an empty list is every
/// payment in doubt (not named on the other side).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settlement {
    /// `--sent [N…]`.
    pub sent: Option<Vec<String>>,
    /// `--not-sent [N…]`.
    pub not_sent: Option<Vec<String>>,
}

/// `clientbank resolve DIR FILE --sent|--not-sent`: every payment in doubt at the bank, or none
/// ([`settle`] says it payment by payment).
pub fn resolve(
    dir: &Path,
    file: &str,
    sent: bool,
    lang: clientbank_payment::Lang,
) -> Result<String, Error> {
    let all = Some(Vec::new());
    let settlement = if sent {
        Settlement {
            sent: all,
            not_sent: None,
        }
    } else {
        Settlement {
            sent: None,
            not_sent: all,
        }
    };
    settle(dir, file, &settlement, lang)
}

/// `clientbank resolve DIR FILE [--sent [N…]] [--not-sent [N…]]`: a person settles the payments
/// in doubt of a file of review/, payment by payment (by document number), as the bank's
/// cabinet or history shows them. A payment said at the bank is recorded uploaded (id unknown),
/// one said not at the bank is sent once; one not named stays in doubt, and the file stays in
/// review/ until each is settled. Then the file goes to done/ when all its payments are at the
/// bank, else back to the inbox, where what is at the bank is not sent again and the rest is
/// sent once. A file whose content is not what the journal recorded (replaced while it was
/// sent) goes back to the inbox whatever is said: its payments the journal does not know were
/// never sent.
pub fn settle(
    dir: &Path,
    file: &str,
    settlement: &Settlement,
    lang: clientbank_payment::Lang,
) -> Result<String, Error> {
    let _lock = open_dir(dir, false, Holder::Resolve)?;
    let layout = Layout::new(dir);
    let name = Path::new(file)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let place = Layout::place(Folder::Review, &name);
    let path = layout.path_of(&place);
    let mut journal = crate::journal::open_folder(&layout, Access::Write)?.ok_or_else(|| {
        let shown = dir.display();
        Error::JournalRefused(tr!("{shown} has no journal" ; "у {shown} нет журнала"))
    })?;
    // A journal in PostgreSQL: the folder's lease too, as a daemon holds it.
    journal.take_lease(&crate::journal::owner_id(), dir)?;
    let recorded = journal.file_at(&place)?;
    // A file that vanished from processing/ with payments in doubt has its record (and note)
    // in review/ without the file: its payments are settled all the same.
    let present = path.exists();
    if !present
        && recorded
            .as_ref()
            .is_none_or(|r| r.state != FileState::Review)
    {
        let (review, dir) = (
            layout.folder(Folder::Review).display().to_string(),
            report::shell_quote(&dir.display().to_string()),
        );
        return Err(Error::Usage(clientbank_format::Message::new(
            format!(
                "{name} is not in {review}: `clientbank status {dir}` lists the files of review/"
            ),
            format!("{name} нет в {review}: файлы review/ перечисляет `clientbank status {dir}`"),
        )));
    }
    let Some(row) = recorded else {
        return Err(Error::JournalRefused(tr!(
            "the journal has no record of {place}: check its payments at the bank, then move \
             it to the inbox yourself if they are not there" ;
            "в журнале нет записи о {place}: проверьте его платежи в банке и, если их там нет, \
             сами перенесите файл во входящие"
        )));
    };
    let rows = journal.payments_of(row.id)?;
    let doubtful: Vec<&PaymentRow> = rows.iter().filter(|r| r.outcome.state.in_doubt()).collect();
    let decisions = decide(&doubtful, settlement)?;
    let results: Vec<_> = decisions
        .iter()
        .map(|&(id, sent)| (id, settled(sent)))
        .collect();
    journal.record_outcomes(&results)?;
    let (at_bank, not_at_bank) = (
        decisions.iter().filter(|d| d.1).count(),
        decisions.iter().filter(|d| !d.1).count(),
    );
    let said = counted(at_bank, not_at_bank);
    let left: Vec<&str> = doubtful
        .iter()
        .filter(|r| !decisions.iter().any(|d| d.0 == r.id))
        .map(|r| r.payment.shown_number())
        .collect();
    if !left.is_empty() {
        let left = left.join(", ");
        let said = tr!(
            "{name}: {said}; still in doubt: {left} — the file stays in review/ until each is \
             settled (`clientbank resolve … --sent N` or `--not-sent N`)" ;
            "{name}: {}; ещё под сомнением: {left} — файл остаётся в review/, пока не решён \
             каждый (`clientbank resolve … --sent N` или `--not-sent N`)", said.ru()
        );
        return Ok(said.get(lang).to_string());
    }
    journal.close_planned(
        row.id,
        &note::both(
            "not sent: the file went to review/ before this payment was sent",
            "не отправлен: файл ушёл в review/ раньше, чем этот платёж был отправлен",
        ),
    )?;
    let rows = journal.payments_of(row.id)?;
    let review_note = layout
        .folder(Folder::Review)
        .join(format!("{name}.review.txt"));
    if !present {
        journal.set_file(
            row.id,
            FileState::Resolved,
            "",
            Some(&note::both(
                "settled by a person; the file had vanished",
                "решено человеком; файл исчез",
            )),
        )?;
        let _ = fs::remove_file(&review_note);
        let said = tr!(
            "{name}: {said}; the file itself had vanished from processing/: its payments not at \
             the bank are sent once when a copy of it is dropped again" ;
            "{name}: {}; сам файл исчез из processing/: его платежи, которых нет в банке, \
             отправятся один раз, когда его копию положат снова", said.ru()
        );
        return Ok(said.get(lang).to_string());
    }
    let moved = return_settled(&mut journal, &layout, &row, &rows, &name, lang)?;
    let _ = fs::remove_file(&review_note);
    let said = tr!("{name}: {said}; {moved}" ; "{name}: {}; {}", said.ru(), moved.ru());
    Ok(said.get(lang).to_string())
}

/// How many payments a person said are at the bank, and how many not (each said only when
/// there are some: "0 not sent" read as if payments had failed).
fn counted(at_bank: usize, not_at_bank: usize) -> Message {
    let mut parts = Vec::new();
    if at_bank > 0 {
        parts.push(tr!(
            "{at_bank} payment(s) marked at the bank (their ids are not known: one that awaits a \
             signature is signed in the bank's cabinet, not by clientbank)" ;
            "отмечено в банке платежей: {at_bank} (их id неизвестны: ждущий подписи \
             подписывается в интернет-банке, а не clientbank)"
        ));
    }
    if not_at_bank > 0 {
        parts.push(tr!(
            "{not_at_bank} payment(s) marked not at the bank (sent once from the inbox)" ;
            "отмечено платежей, которых нет в банке: {not_at_bank} (они отправятся один раз \
             из inbox)"
        ));
    }
    if parts.is_empty() {
        return tr!("no payment marked" ; "ни один платёж не отмечен");
    }
    let en: Vec<&str> = parts.iter().map(Message::en).collect();
    let ru: Vec<&str> = parts.iter().map(Message::ru).collect();
    Message::new(en.join("; "), ru.join("; "))
}

/// The outcome of a payment in doubt a person settled: at the bank (`sent`), or not.
fn settled(sent: bool) -> Outcome {
    if sent {
        Outcome::said(
            PaymentState::Uploaded,
            note::both(
                "at the bank, a person said (clientbank resolve --sent); its id is not known: \
                 sign it in the bank's cabinet",
                "в банке, как сказал человек (clientbank resolve --sent); его id неизвестен: \
                 подпишите его в интернет-банке",
            ),
        )
    } else {
        Outcome::said(
            PaymentState::NotSent,
            note::both(
                "not at the bank, a person said (clientbank resolve --not-sent)",
                "не в банке, как сказал человек (clientbank resolve --not-sent)",
            ),
        )
    }
}

/// Where a settled file of review/ goes: to done/ (with its report) when every payment is at
/// the bank, else back to the inbox, where what is at the bank is not sent again; a file
/// replaced since it was sent goes back to the inbox whatever was said. Says where, and why.
pub(super) fn return_settled(
    journal: &mut Journal,
    layout: &Layout,
    row: &crate::journal::FileRow,
    rows: &[PaymentRow],
    name: &str,
    lang: clientbank_payment::Lang,
) -> Result<Message, Error> {
    let place = Layout::place(Folder::Review, name);
    let path = layout.path_of(&place);
    let unsent = rows.iter().any(|r| r.outcome.state.unsent());
    let changed = fs::read(&path)
        .map(|bytes| crate::engine::content_hash(&bytes) != row.hash)
        .map_err(Error::io(
            tr!("cannot read {place}" ; "не удалось прочитать {place}"),
        ))?;
    if unsent || changed {
        let moved =
            move_into(&path, &layout.folder(Folder::Inbox), name).map_err(Error::io(tr!(
                "cannot move {place} to the inbox" ;
                "не удалось переместить {place} во входящие (inbox/)"
            )))?;
        journal.set_file(
            row.id,
            FileState::Resolved,
            "",
            Some(&note::both(
                format!("back to the inbox as {moved} by a person"),
                format!("возвращён человеком во входящие как {moved}"),
            )),
        )?;
        let why = if changed {
            Message::new(
                ": the file is not what was recorded when it was sent (it was replaced): it is \
                 read anew from the inbox, where payments already at the bank are not sent again \
                 and the others are sent once",
                ": файл не тот, что был записан при отправке (его заменили): он будет прочитан \
                 заново из входящих, где платежи, уже бывшие в банке, повторно не отправляются, \
                 а остальные отправляются один раз",
            )
        } else {
            Message::new(
                ": payments already at the bank are not sent again, the others are sent once",
                ": платежи, уже бывшие в банке, повторно не отправляются, остальные \
                 отправляются один раз",
            )
        };
        Ok(tr!(
            "the file is back in the inbox as inbox/{moved}{why}" ;
            "файл снова во входящих: inbox/{moved}{}", why.ru()
        ))
    } else {
        let moved =
            move_into(&path, &layout.folder(Folder::Done), name).map_err(Error::io(tr!(
                "cannot move {place} to done/" ;
                "не удалось переместить {place} в done/"
            )))?;
        let done = Layout::place(Folder::Done, &moved);
        journal.set_file(row.id, FileState::Done, &done, None)?;
        fs::write(
            layout
                .folder(Folder::Done)
                .join(format!("{moved}.report.csv")),
            report::csv(rows, lang),
        )
        .map_err(Error::io(tr!(
            "cannot write the report of {done}" ;
            "не удалось записать отчёт о {done}"
        )))?;
        Ok(tr!("the file is in done/{moved}" ; "файл в done/{moved}"))
    }
}

/// Which payments in doubt a [`Settlement`] says are at the bank (`true`) or not (`false`), by
/// row id. A number that is not of a payment in doubt, named twice, or shared by two payments
/// in doubt is refused with the numbers that are.
pub(super) fn decide(
    doubtful: &[&PaymentRow],
    settlement: &Settlement,
) -> Result<Vec<(i64, bool)>, Error> {
    let numbers: Vec<&str> = doubtful.iter().map(|r| r.payment.shown_number()).collect();
    let listed = if numbers.is_empty() {
        "none".to_string()
    } else {
        numbers.join(", ")
    };
    let usage = |en: String, ru: String| Error::Usage(clientbank_format::Message::new(en, ru));
    let named = |list: &Option<Vec<String>>| -> Vec<String> {
        list.iter()
            .flatten()
            .map(|n| clientbank_payment::identity::normalise_number(n))
            .collect()
    };
    let (sent, not_sent) = (named(&settlement.sent), named(&settlement.not_sent));
    for number in sent.iter().chain(&not_sent) {
        let count = doubtful
            .iter()
            .filter(|r| r.payment.number == *number)
            .count();
        if count != 1 {
            let why = if count == 0 {
                "is not a payment in doubt"
            } else {
                "is the number of several payments in doubt"
            };
            let why_ru = if count == 0 {
                "не номер платежа под сомнением"
            } else {
                "номер нескольких платежей под сомнением"
            };
            return Err(usage(
                format!("{number} {why}; in doubt: {listed}"),
                format!("{number} — {why_ru}; под сомнением: {listed}"),
            ));
        }
    }
    if let Some(both) = sent.iter().find(|n| not_sent.contains(n)) {
        return Err(usage(
            format!("{both} is named both --sent and --not-sent"),
            format!("{both} указан и в --sent, и в --not-sent"),
        ));
    }
    // An empty list: every payment in doubt not named on the other side.
    let all_sent = settlement.sent.as_ref().is_some_and(Vec::is_empty);
    let all_not_sent = settlement.not_sent.as_ref().is_some_and(Vec::is_empty);
    if all_sent && all_not_sent {
        return Err(usage(
            "--sent and --not-sent cannot both stand for every payment: name the numbers of one"
                .into(),
            "--sent и --not-sent не могут оба означать все платежи: назовите номера одного из них"
                .into(),
        ));
    }
    Ok(doubtful
        .iter()
        .filter_map(|r| {
            let n = &r.payment.number;
            if sent.contains(n) || (all_sent && !not_sent.contains(n)) {
                Some((r.id, true))
            } else if not_sent.contains(n) || (all_not_sent && !sent.contains(n)) {
                Some((r.id, false))
            } else {
                None
            }
        })
        .collect())
}
