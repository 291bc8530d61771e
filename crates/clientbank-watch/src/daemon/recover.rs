//! Starting on a folder an earlier run left: files half-moved, payments in doubt, a journal to seed from the reports.

use super::endings::report_rows;
use super::*;
use clientbank_diagnostic::os::{Act, cannot};

impl Daemon {
    /// With a new journal, the files of processing/ have an unknown past: review/.
    pub(super) fn quarantine_processing(&mut self) -> Result<(), Error> {
        for name in self.layout.files(Folder::Processing) {
            let from = self.layout.folder(Folder::Processing).join(&name);
            let review = self.layout.folder(Folder::Review);
            let moved = move_into(&from, &review, &name)
                .map_err(Error::io(cannot(Act::Move, from.display())))?;
            let text = format!(
                "{moved} was in processing/ when the journal was started anew: whether its \
                 payments reached the bank is not known. Check them at the bank (the \
                 cabinet, or the account's history), then put the file back in the inbox \
                 only if they are not there.\n"
            );
            let _ = fs::write(
                review.join(format!("{moved}.review.txt")),
                crate::report::note_bytes(&text),
            );
            tracing::warn!(file = %moved, "journal started anew: file moved to review/");
        }
        Ok(())
    }

    /// A new journal over a used DIR learns what the folders say: each file of done/ (its
    /// content hash, its payments' identities as at the bank, with the ids of its
    /// `FILE.report.csv` where present), of review/ (its payments in doubt) and of rejected/
    /// (the payments its `FILE.report.csv` names at the bank or in doubt: a file the bank
    /// refused a payment of may have had others uploaded). A file dropped again is then not
    /// sent again.
    pub(super) fn seed(&mut self) -> Result<Message, Error> {
        let today = self.today();
        let mut said = Vec::new();
        for (folder, file_state) in [
            (Folder::Done, FileState::Done),
            (Folder::Review, FileState::Review),
            (Folder::Rejected, FileState::Rejected),
        ] {
            let (mut files, mut payments) = (0, 0);
            for name in self.layout.files(folder) {
                let place = Layout::place(folder, &name);
                let path = self.layout.path_of(&place);
                let bytes = match read_limited(&path) {
                    Ok(bytes) => bytes,
                    Err(e) => {
                        say!(
                            error,
                            tr!(
                                "{place} cannot be read ({e}): the new journal does not know \
                                 its payments; check them at the bank" ;
                                "{place} не читается ({}): новый журнал не знает его платежей; \
                                 проверьте их в банке"
                            , clientbank_diagnostic::os::Ru(&e))
                        );
                        continue;
                    }
                };
                let drop = drop::read(Path::new(&name), &bytes, today, self.engine.settings.lang);
                let report = if folder == Folder::Review {
                    Vec::new()
                } else {
                    report_rows(
                        &self
                            .layout
                            .folder(folder)
                            .join(format!("{name}.report.csv")),
                    )
                };
                let rows: Vec<_> = drop
                    .payments
                    .iter()
                    .enumerate()
                    .map(|(position, p)| {
                        let mut row = crate::engine::new_payment(p, None);
                        let line = report.get(position).filter(|line| {
                            clientbank_payment::identity::normalise_number(&line.number)
                                == p.identity.number
                        });
                        row.outcome.state = match folder {
                            Folder::Done => PaymentState::Uploaded,
                            Folder::Review => PaymentState::Doubt,
                            // A file with error findings was refused before anything was
                            // sent. One without went to the bank: its report says which
                            // payments are there; a payment the report does not name (or
                            // no report at all) is in doubt, the safe side.
                            _ => match line {
                                Some(line) => {
                                    report::state_of_report_row(line.code.as_deref(), &line.id)
                                }
                                None if drop.has_errors() => PaymentState::NotSent,
                                None => PaymentState::Doubt,
                            },
                        };
                        row.outcome.bank_id = line
                            .filter(|line| {
                                !line.id.is_empty() && row.outcome.state == PaymentState::Uploaded
                            })
                            .map(|line| line.id.clone());
                        if row.outcome.state == PaymentState::NotSent {
                            row.outcome.message = Some(format!(
                                "not at the bank by {place} (its findings or its report) when \
                                 the journal was started anew"
                            ));
                        }
                        row
                    })
                    .collect();
                let message = format!(
                    "recorded from {place} when the journal was started anew (--new-journal)"
                );
                let file = NewFile {
                    name: &name,
                    hash: &content_hash(&bytes),
                    place: &place,
                };
                payments += self
                    .engine
                    .journal
                    .seed_file(file, file_state, &rows, &message)?;
                files += 1;
            }
            let (en, ru) = match folder {
                Folder::Done => ("recorded as at the bank", "записаны как уже в банке"),
                Folder::Review => ("recorded as in doubt", "записаны как под сомнением"),
                _ => (
                    "recorded as at the bank or in doubt by their reports",
                    "записаны по их отчётам как в банке или под сомнением",
                ),
            };
            said.push((
                format!("{folder}/ ({files} file(s), {payments} payment(s) {en})"),
                format!("{folder}/ (файлов: {files}, платежей: {payments}, {ru})"),
            ));
        }
        let (en, ru): (Vec<_>, Vec<_>) = said.into_iter().unzip();
        Ok(Message::new(
            format!(
                "journal started anew: it was seeded from {}; payments of these files dropped \
                 again are not sent again",
                en.join(", ")
            ),
            format!(
                "журнал начат заново и заполнен по {}; платежи этих файлов, положенные снова, \
                 повторно не отправляются",
                ru.join(", ")
            ),
        ))
    }

    pub(super) fn recover(&mut self) -> Result<(), Error> {
        let sending = self.engine.journal.payments_in(PaymentState::Sending)?;
        if !sending.is_empty() {
            let outcomes: Vec<_> = sending
                .iter()
                .map(|r| {
                    (
                        r.id,
                        crate::journal::Outcome {
                            state: PaymentState::Doubt,
                            message: Some(crate::journal::note::both(
                                "clientbank stopped while this payment was being sent: it may \
                                 or may not be at the bank",
                                "clientbank остановился, пока этот платёж отправлялся: он может \
                                 быть в банке, а может и не быть",
                            )),
                            ..Default::default()
                        },
                    )
                })
                .collect();
            self.engine.journal.record_outcomes(&outcomes)?;
            tracing::warn!(
                count = outcomes.len(),
                "payments found in flight at start: in doubt, never re-sent"
            );
        }
        for file in self.engine.journal.files_in(FileState::Processing)? {
            if self.vanished(&file) {
                self.release_vanished(&file)?;
                continue;
            }
            if self.engine.verdict(file.id)? == Verdict::Review {
                self.finish(
                    file.id,
                    &file.name,
                    Verdict::Review,
                    Some("clientbank stopped while sending this file's payments."),
                )?;
            }
        }
        for state in [FileState::Done, FileState::Rejected, FileState::Review] {
            for file in self.engine.journal.files_in(state)? {
                let target = self.layout.path_of(&file.place);
                let source = self.layout.folder(Folder::Processing).join(&file.name);
                if !target.exists() && source.exists() {
                    self.complete_move(file.id)?;
                }
            }
        }
        Ok(())
    }
}

/// A journal started anew learns processing/, done/, review/ and rejected/ by their files'
/// names: one it cannot read (not valid Unicode) would be left out, and its payments sent
/// again. Refused before anything is made, with the names to fix.
pub(super) fn unreadable_names(layout: &Layout) -> Result<(), Error> {
    let mut names = Vec::new();
    for folder in Folder::USED {
        let Ok(entries) = fs::read_dir(layout.folder(folder)) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            if name.to_str().is_none() {
                names.push(format!("{folder}/{}", name.to_string_lossy()));
            }
        }
    }
    if names.is_empty() {
        return Ok(());
    }
    let names = names.join(", ");
    Err(Error::Usage(clientbank_format::Message::new(
        format!(
            "a new journal learns the folders by their files, and these names are not valid \
             Unicode (a share mounted without its character set?): {names}. Rename them, then \
             start with --new-journal again"
        ),
        format!(
            "новый журнал узнаёт папки по их файлам, а эти имена — не в Юникоде (сетевая папка \
             подключена без кодировки?): {names}. Переименуйте их и снова запустите с \
             --new-journal"
        ),
    )))
}
