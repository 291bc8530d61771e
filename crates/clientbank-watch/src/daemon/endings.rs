//! Where a file ends: done/, rejected/ or review/, with its report; files that vanished; payments that wait for a signature too long.

use super::*;
use crate::journal::note;

impl Daemon {
    /// Tells `[notify]` once of the payments that have awaited their signature longer than
    /// `signature_after` (each payment once while the daemon runs).
    pub(super) fn tell_of_unsigned(&mut self) -> Result<(), Error> {
        let Some(notify) = self.engine.settings.notify.clone() else {
            return Ok(());
        };
        let limit = chrono::Utc::now().naive_utc()
            - chrono::Duration::from_std(notify.signature_after).unwrap_or_default();
        let late: Vec<_> = self
            .engine
            .journal
            .awaiting_signature()?
            .into_iter()
            .filter(|r| !self.told_unsigned.contains(&r.id))
            .filter(|r| {
                r.uploaded_at.as_deref().is_some_and(|at| {
                    chrono::NaiveDateTime::parse_from_str(at, "%Y-%m-%dT%H:%M:%SZ")
                        .is_ok_and(|at| at < limit)
                })
            })
            .collect();
        if late.is_empty() {
            return Ok(());
        }
        self.told_unsigned.extend(late.iter().map(|r| r.id));
        crate::notify::tell(
            &notify,
            &serde_json::json!({
                "event": "awaiting-signature",
                "dir": self.layout.root.display().to_string(),
                "longer_than_seconds": notify.signature_after.as_secs(),
                "payments": late.iter().map(|r| serde_json::json!({
                    "number": r.payment.shown_number(), "date": r.payment.date,
                    "sum": r.payment.sum, "recipient": r.payment.recipient, "id": r.outcome.bank_id,
                    "company": r.payment.company, "uploaded_at": r.uploaded_at,
                })).collect::<Vec<_>>(),
            }),
        );
        Ok(())
    }

    /// Whether the journal's file of processing/ is gone from there (deleted, or moved away by
    /// hand). Files `clientbank upload` recorded where they lie are not the daemon's.
    pub(super) fn vanished(&self, file: &crate::journal::FileRow) -> bool {
        Layout::folder_of(&file.place) == Some(Folder::Processing)
            && !self.layout.path_of(&file.place).exists()
    }

    /// Releases the payments of a file that vanished from processing/ while they waited: those
    /// never sent are `not-sent` (another copy of the file sends each once); one being sent is
    /// in doubt. With payments in doubt the file's record goes to review/ with a note saying
    /// which (for `clientbank resolve`, though the file itself is gone); else it is closed.
    pub(super) fn release_vanished(&mut self, file: &crate::journal::FileRow) -> Result<(), Error> {
        let journal = &mut self.engine.journal;
        let rows = journal.payments_of(file.id)?;
        let place = &file.place;
        let outcome = |state: PaymentState, message: String| crate::journal::Outcome {
            state,
            message: Some(message),
            ..Default::default()
        };
        let released: Vec<_> = rows
            .iter()
            .filter_map(|r| match r.outcome.state {
                PaymentState::Planned | PaymentState::Queued | PaymentState::Held => Some((
                    r.id,
                    outcome(
                        PaymentState::NotSent,
                        note::both(
                            format!(
                                "not sent: {place} vanished before this payment was sent; from \
                                 another file it is sent once"
                            ),
                            format!(
                                "не отправлен: {place} исчез раньше, чем этот платёж был \
                                 отправлен; из другого файла он будет отправлен один раз"
                            ),
                        ),
                    ),
                )),
                PaymentState::Sending => Some((
                    r.id,
                    outcome(
                        PaymentState::Doubt,
                        note::both(
                            format!(
                                "{place} vanished while this payment was being sent: it may or \
                                 may not be at the bank"
                            ),
                            format!(
                                "{place} исчез, пока этот платёж отправлялся: он может быть в \
                                 банке, а может и не быть"
                            ),
                        ),
                    ),
                )),
                _ => None,
            })
            .collect();
        journal.record_outcomes(&released)?;
        let rows = journal.payments_of(file.id)?;
        let doubt = rows.iter().filter(|r| r.outcome.state.in_doubt()).count();
        let not_sent = rows
            .iter()
            .filter(|r| r.outcome.state == PaymentState::NotSent)
            .count();
        let message = format!(
            "{place} vanished (deleted or moved away) while its payments waited: {not_sent} not \
             sent (a copy dropped again sends them once){}",
            if doubt > 0 {
                format!("; {doubt} in doubt: see review/{}.review.txt", file.name)
            } else {
                String::new()
            }
        );
        let said = Message::new(
            message.clone(),
            format!(
                "{place} исчез (удалён или перенесён), пока его платежи ждали: не отправлено \
                 {not_sent} (копия, положенная снова, отправит их один раз){}",
                if doubt > 0 {
                    format!(
                        "; под сомнением {doubt}: см. review/{}.review.txt",
                        file.name
                    )
                } else {
                    String::new()
                }
            ),
        );
        let kept = note::both(said.en(), said.ru());
        if doubt > 0 {
            let review = self.layout.folder(Folder::Review);
            let note = report::review(
                &self.layout.root,
                &file.name,
                Some(&kept),
                &rows,
                self.engine.settings.lang,
            );
            fs::write(
                review.join(format!("{}.review.txt", file.name)),
                report::note_bytes(&note),
            )
            .map_err(Error::io(Message::new(
                "cannot write the review note",
                "не удалось записать пояснение для review/",
            )))?;
            let review_place = Layout::place(Folder::Review, &file.name);
            journal.set_file(file.id, FileState::Review, &review_place, Some(&kept))?;
            self.summary
                .files_mut(FileEnd::Review)
                .push(file.name.clone());
        } else {
            journal.set_file(file.id, FileState::Missing, "", Some(&kept))?;
        }
        journal.note(Some(&file.name), None, &said)?;
        say!(error, said, file = %file.name);
        self.waiting.remove(&file.name);
        Ok(())
    }

    /// A journal write failed (a full disk): nothing more is sent; the file waits.
    pub(super) fn journal_failed(&mut self, name: &str, e: Error) -> Result<(), Error> {
        // The folder's lease ran out (PostgreSQL): another daemon may serve it now; this one
        // stops serving it at once.
        if matches!(e, Error::LeaseLost(_)) {
            return Err(e);
        }
        let delay = self.backoff(name, None);
        // Reading still works on a full disk: how many of the file's payments the bank has.
        let place = Layout::place(Folder::Processing, name);
        let uploaded = self
            .engine
            .journal
            .processing_file(&place)
            .ok()
            .flatten()
            .and_then(|file| {
                let journal = &self.engine.journal;
                journal.count_of(file.id, PaymentState::Uploaded).ok()
            })
            .unwrap_or(0);
        let why = e.message();
        let said = Message::new(
            format!(
                "the journal cannot be written ({}): nothing more of {name} is sent; {uploaded} \
                 of its payments reached the bank before and stay recorded (one being sent when \
                 the write failed is in doubt, never sent again)",
                why.en()
            ),
            format!(
                "журнал не записывается ({}): из {name} больше ничего не отправляется; \
                 {uploaded} его платежей дошли до банка раньше и остаются записанными (тот, что \
                 отправлялся в момент сбоя, под сомнением и повторно не отправляется)",
                why.ru()
            ),
        );
        let delay = clientbank_diagnostic::duration(delay);
        let (delay_en, delay_ru) = (delay.en(), delay.ru());
        say!(
            error,
            tr!(
                "{}; it waits in processing/ (next try in {delay_en})", said.en() ;
                "{}; он ждёт в processing/ (следующая попытка через {delay_ru})", said.ru()
            ),
            file = %name
        );
        self.summary.journal_error.get_or_insert(said);
        Ok(())
    }

    pub(super) fn reject_whole(&mut self, name: &str, hash: &str, text: &str) -> Result<(), Error> {
        let rejected = self.layout.folder(Folder::Rejected);
        let new_name = unique_name(&rejected, name);
        let place = Layout::place(Folder::Rejected, &new_name);
        let id =
            match self
                .engine
                .journal
                .record_file(name, hash, &place, FileState::Rejected, text)
            {
                Ok(id) => id,
                Err(e) => return self.journal_failed(name, e),
            };
        self.waiting.remove(name);
        self.complete_move(id)
    }

    /// Records where a file goes and moves it there, with what is written beside it.
    pub(super) fn finish(
        &mut self,
        file_id: i64,
        name: &str,
        verdict: Verdict,
        why: Option<&str>,
    ) -> Result<(), Error> {
        let (folder, state) = match verdict {
            Verdict::Done => (Folder::Done, FileState::Done),
            Verdict::Rejected => (Folder::Rejected, FileState::Rejected),
            Verdict::Review | Verdict::Pending => (Folder::Review, FileState::Review),
        };
        let new_name = unique_name(&self.layout.folder(folder), name);
        let place = Layout::place(folder, &new_name);
        if folder != Folder::Done {
            self.engine.journal.close_planned(
                file_id,
                &note::both(
                    format!("not sent: the file went to {folder}/ before this payment was sent"),
                    format!(
                        "не отправлен: файл ушёл в {folder}/ раньше, чем этот платёж был отправлен"
                    ),
                ),
            )?;
        }
        self.engine.journal.set_file(file_id, state, &place, why)?;
        self.complete_move(file_id)
    }

    /// The notes written beside a file in its final folder: the report of a file done or
    /// rejected (with the errors of a rejected one), the review note of one in review/.
    fn notes_of(
        &self,
        file: &crate::journal::FileRow,
        rows: &[crate::journal::PaymentRow],
        final_name: &str,
    ) -> Vec<(String, Vec<u8>)> {
        let lang = self.engine.settings.lang;
        let mut sidecars: Vec<(String, Vec<u8>)> = Vec::new();
        match file.state {
            FileState::Done => {
                sidecars.push((format!("{final_name}.report.csv"), report::csv(rows, lang)));
            }
            FileState::Rejected => {
                let text = if rows.is_empty() {
                    file.message.clone().unwrap_or_default()
                } else {
                    report::refusals(final_name, rows, lang)
                };
                sidecars.push((
                    format!("{final_name}.errors.txt"),
                    report::note_bytes(&text),
                ));
                if !rows.is_empty() {
                    sidecars.push((format!("{final_name}.report.csv"), report::csv(rows, lang)));
                }
            }
            _ => {
                let text = report::review(
                    &self.layout.root,
                    final_name,
                    file.message.as_deref(),
                    rows,
                    lang,
                );
                sidecars.push((
                    format!("{final_name}.review.txt"),
                    report::note_bytes(&text),
                ));
            }
        }
        sidecars
    }

    /// A file has reached its final folder: counted in the summary, its last errors forgotten
    /// (done) or noted and told to `[notify]` (rejected, review).
    fn moved(
        &mut self,
        file: &crate::journal::FileRow,
        rows: &[crate::journal::PaymentRow],
        final_name: String,
    ) {
        if self.move_failures.remove(&file.id).is_some() {
            tracing::info!(file = %file.name, to = %file.place, "moved at last");
        }
        let counts = |state: PaymentState| rows.iter().filter(|r| r.outcome.state == state).count();
        self.summary.payments.already += counts(PaymentState::Already);
        self.summary.payments.refused += counts(PaymentState::Refused);
        self.summary.payments.doubt += counts(PaymentState::Doubt);
        let list = match file.state {
            FileState::Done => self.summary.files_mut(FileEnd::Done),
            FileState::Rejected => self.summary.files_mut(FileEnd::Rejected),
            _ => self.summary.files_mut(FileEnd::Review),
        };
        list.push(final_name.clone());
        tracing::info!(file = %file.name, to = %file.place, "moved");
        if file.state == FileState::Done {
            let _ =
                crate::last_errors::forget_fixed(&mut self.engine.journal, &file.name, &final_name);
        } else {
            let _ = self.engine.journal.note(
                Some(&final_name),
                None,
                &crate::last_errors::moved_to(&file.place),
            );
            if let Some(notify) = &self.engine.settings.notify {
                let event =
                    crate::notify::file_event(&self.layout, file, &final_name, rows, self.today());
                crate::notify::tell(notify, &event);
            }
        }
    }

    /// Writes the sidecars of a finished file and moves it from processing/ to its place. A
    /// failure (a read-only folder) leaves it in processing/, tried again on the next pass.
    pub(super) fn complete_move(&mut self, file_id: i64) -> Result<(), Error> {
        let Some(file) = self.engine.journal.file(file_id)? else {
            return Ok(());
        };
        let rows = self.engine.journal.payments_of(file_id)?;
        let target = self.layout.path_of(&file.place);
        let final_name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let folder = target.parent().map(Path::to_path_buf).unwrap_or_default();
        let sidecars = self.notes_of(&file, &rows, &final_name);
        let source = self.layout.folder(Folder::Processing).join(&file.name);
        let moved = sidecars
            .iter()
            .try_for_each(|(name, bytes)| fs::write(folder.join(name), bytes))
            .and_then(|()| {
                if target.exists() && !source.exists() {
                    Ok(())
                } else {
                    rename_no_replace(&source, &target)
                }
            });
        match moved {
            Ok(()) => self.moved(&file, &rows, final_name),
            Err(e) if e.kind() == io::ErrorKind::NotFound && !source.exists() => {
                let message = Message::new(
                    format!(
                        "processing/{} vanished before it could be moved to {}",
                        file.name, file.place
                    ),
                    format!(
                        "processing/{} исчез до того, как его перенесли в {}",
                        file.name, file.place
                    ),
                );
                say!(error, message);
                self.engine.journal.note(Some(&file.name), None, &message)?;
            }
            Err(e) => {
                let message = format!(
                    "cannot move processing/{} to {}: {e}; it stays in processing/ and is \
                     moved when that is possible",
                    file.name, file.place
                );
                // Tried again on every pass: a repeated failure is logged once, then at most
                // once a minute.
                let now = Instant::now();
                let repeated = self.move_failures.get(&file_id).is_some_and(|(at, said)| {
                    *said == message && now.duration_since(*at) < MOVE_LOG_EVERY
                });
                if !repeated {
                    let said = Message::new(
                        message.clone(),
                        format!(
                            "не удалось перенести processing/{} в {}: {}; файл остаётся в \
                             processing/ и будет перенесён, когда это станет возможно",
                            file.name,
                            file.place,
                            clientbank_diagnostic::os::Ru(&e)
                        ),
                    );
                    say!(error, said);
                    let _ = self.engine.journal.note(Some(&file.name), None, &said);
                    self.move_failures.insert(file_id, (now, message));
                }
                self.unmoved.insert(file.name.clone(), file_id);
            }
        }
        Ok(())
    }
}

/// A row of a `FILE.report.csv`: what a journal started anew reads of it.
pub(super) struct ReportRow {
    pub(super) number: String,
    pub(super) id: String,
    /// The machine-readable state code ([`crate::state::Standing::code`]); none in a report
    /// written before codes were.
    pub(super) code: Option<String>,
}

/// The rows of a `FILE.report.csv`, in file order; empty when it cannot be read.
pub(super) fn report_rows(path: &Path) -> Vec<ReportRow> {
    let bytes = fs::read(path).unwrap_or_default();
    report::read_csv(&bytes)
        .into_iter()
        .map(|(number, id, code)| ReportRow { number, id, code })
        .collect()
}
