//! The 1C route: a whole 1C file to /operation-upload/1c, its answer settled payment by payment.

use super::*;
use crate::journal::note;

impl Engine {
    /// The payments of a 1C file that must not go, each with why, when any of them cannot:
    /// the 1C route sends whole files, so one payment already at the bank, queued, held or
    /// active in another file holds them all. Empty when the file can go.
    fn held_whole(
        &self,
        todo: &[crate::journal::PaymentRow],
        ids: &[i64],
    ) -> Result<Vec<(i64, Outcome)>, Error> {
        let mut held = self.journal.conflicts(ids)?;
        if let Some(first) = todo.first()
            && held.is_empty()
        {
            let rows = self.journal.payments_of(first.file_id)?;
            if rows
                .iter()
                .any(|r| r.outcome.state != PaymentState::Planned)
            {
                let why = note::both(
                    "not sent: other payments of this 1C file are already at the bank or \
                     elsewhere, and the 1C route sends whole files; send this one alone (or from \
                     a JSON file)",
                    "не отправлен: другие платежи этого файла 1С уже в банке или в другом месте, \
                     а по маршруту 1С файл уходит целиком; отправьте этот платёж отдельно (или \
                     из файла JSON)",
                );
                return Ok(todo
                    .iter()
                    .map(|r| (r.id, Outcome::said(PaymentState::Held, &why)))
                    .collect());
            }
        }
        if !held.is_empty() {
            for &id in ids {
                if !held.iter().any(|(c, _)| *c == id) {
                    let why = note::both(
                        "not sent: other payments of this 1C file are active in another file, \
                         and the 1C route sends whole files",
                        "не отправлен: другие платежи этого файла 1С заняты в другом файле, а по \
                         маршруту 1С файл уходит целиком",
                    );
                    held.push((id, Outcome::said(PaymentState::Held, why)));
                }
            }
        }
        Ok(held)
    }

    pub(super) async fn send_1c(
        &mut self,
        client: &Client,
        drop: &Drop,
        todo: &[crate::journal::PaymentRow],
    ) -> Result<Sent, Error> {
        let ids: Vec<i64> = todo.iter().map(|r| r.id).collect();
        if self.stopping() {
            return Ok(Sent::Interrupted);
        }
        // The file goes whole: if any of its payments is not planned (already, queued, held…)
        // or is active elsewhere now, none is sent.
        let held = self.held_whole(todo, &ids)?;
        if !held.is_empty() {
            self.journal.record_outcomes(&held)?;
            return Ok(Sent::Finished);
        }
        let marks = self.journal.mark_sending(&ids)?;
        if marks.len() != ids.len() {
            // Something became active elsewhere between the look and the mark: nothing sent;
            // the marked ones go back to planned, the next pass decides again.
            for id in marks {
                self.journal.set_payment(id, PaymentState::Planned, None)?;
            }
            return Ok(Sent::Finished);
        }
        let Some(document) = &drop.document_1c else {
            return Err(Error::Usage(clientbank_format::Message::new(
                "a 1C route for a drop that is not 1C",
                "маршрут 1С для файла не в формате 1С",
            )));
        };
        let all = |state: PaymentState, message: String, answer: Option<String>| {
            every(&ids, state, &message, answer)
        };
        let answer = client.upload_1c(document).await;
        if let Err(e) = &answer
            && let Some(sent) = set_up_problem(e)
        {
            for &id in &ids {
                self.journal.set_payment(id, PaymentState::Planned, None)?;
            }
            return Ok(sent);
        }
        match answer {
            Ok(result) if result.ids.len() == todo.len() && result.errors.is_empty() => {
                let results: Vec<_> = todo
                    .iter()
                    .zip(&result.ids)
                    .map(|(row, id)| {
                        (
                            row.id,
                            Outcome {
                                state: PaymentState::Uploaded,
                                bank_id: Some(id.clone()),
                                sign: Some(SignState::Draft),
                                answer: Some(result.raw.clone()),
                                message: Some(draft()),
                            },
                        )
                    })
                    .collect();
                tracing::info!(count = results.len(), "1C file uploaded as drafts");
                self.journal.record_outcomes(&results)?;
            }
            Ok(result) if result.total_loaded == 0 && result.created().is_empty() => {
                let errors = result.errors.join("; ");
                let message = note::both(
                    format!("refused by the bank: {errors}"),
                    format!("отклонён банком: {errors}"),
                );
                self.journal.record_outcomes(&all(
                    PaymentState::Refused,
                    message,
                    Some(result.raw.clone()),
                ))?;
            }
            Ok(result) => {
                let results = partly_created(todo, drop, &result);
                self.journal.record_outcomes(&results)?;
            }
            Err(e) if e.not_taken() => {
                for &id in &ids {
                    self.journal.set_payment(id, PaymentState::Planned, None)?;
                }
                return Ok(Sent::NotTaken {
                    why: e.message(),
                    retry_after: e.retry_after(),
                });
            }
            Err(e) if e.in_doubt() => {
                let message = note::both(
                    format!(
                        "sent, but the answer was lost ({e}): the file's payments may or may \
                         not be at the bank"
                    ),
                    format!(
                        "отправлен, но ответ потерян ({}): платежи файла могут быть в банке, а \
                         могут и не быть",
                        e.message().ru()
                    ),
                );
                self.journal
                    .record_outcomes(&all(PaymentState::Doubt, message, None))?;
            }
            Err(e) => {
                self.journal.record_outcomes(&all(
                    PaymentState::Refused,
                    note::both(e.message().en(), e.message().ru()),
                    None,
                ))?;
            }
        }
        Ok(Sent::Finished)
    }
}

/// The payments of a 1C file the bank took in part, each as the answer says: one a refusal
/// names (by its `№ N`, or the `строка L` of its section) is refused with that reason; when
/// every refusal names its payment and the ids are as many as the payments left, those are
/// created, the ids in the file's order (as for a file taken whole); otherwise they are in
/// doubt, the ids the bank gave named, for a person to settle payment by payment
/// (`clientbank resolve … --sent N --not-sent N`).
pub(super) fn partly_created(
    todo: &[crate::journal::PaymentRow],
    drop: &Drop,
    result: &clientbank_api::UploadResult,
) -> Vec<(i64, Outcome)> {
    let mut refused: Vec<Option<&str>> = vec![None; todo.len()];
    let mut unplaced = Vec::new();
    for error in &result.errors {
        match refused_payment(error, todo, drop) {
            Some(at) => refused[at] = Some(error),
            None => unplaced.push(error.as_str()),
        }
    }
    let left = refused.iter().filter(|r| r.is_none()).count();
    let created = result.created();
    let told = unplaced.is_empty() && created.len() == left;
    let mut ids = created.iter();
    let answer = Some(result.raw.clone());
    let (n, listed) = (created.len(), created.join(", "));
    let said = tr!("; it said: {}", unplaced.join("; ") ; "; банк сказал: {}", unplaced.join("; "));
    let said = if unplaced.is_empty() {
        Message::same("")
    } else {
        said
    };
    let untold = note::both(
        format!(
            "the bank created {n} of the file's payments (ids {listed}) and its answer does not \
             say which{said}: see this one in the bank's cabinet"
        ),
        format!(
            "банк создал {n} из платежей файла (id {listed}), но его ответ не говорит, какие{}: \
             посмотрите этот платёж в интернет-банке",
            said.ru()
        ),
    );
    todo.iter()
        .zip(&refused)
        .map(|(row, refusal)| {
            let outcome = match refusal {
                Some(reason) => Outcome {
                    state: PaymentState::Refused,
                    message: Some(note::both(
                        format!("refused by the bank: {reason}"),
                        format!("отклонён банком: {reason}"),
                    )),
                    answer: answer.clone(),
                    ..Outcome::default()
                },
                None if told => Outcome {
                    state: PaymentState::Uploaded,
                    bank_id: ids.next().map(|id| id.to_string()),
                    sign: Some(SignState::Draft),
                    answer: answer.clone(),
                    message: Some(draft()),
                },
                None => Outcome {
                    state: PaymentState::Doubt,
                    answer: answer.clone(),
                    message: Some(untold.clone()),
                    ..Outcome::default()
                },
            };
            (row.id, outcome)
        })
        .collect()
}

/// Which of `todo` (by index) a refusal of a 1C upload names: the one payment whose number
/// follows `№`, or whose section starts at the line after `строка`.
pub(super) fn refused_payment(
    error: &str,
    todo: &[crate::journal::PaymentRow],
    drop: &Drop,
) -> Option<usize> {
    let after = |mark: &str| {
        error.find(mark).map(|at| {
            error[at + mark.len()..]
                .trim_start()
                .split(|c: char| c.is_whitespace() || matches!(c, ',' | ')' | ':' | ';'))
                .next()
                .unwrap_or("")
                .to_string()
        })
    };
    let one = |found: Vec<usize>| <[usize; 1]>::try_from(found).ok().map(|[at]| at);
    let by_number = after("№")
        .map(|n| clientbank_payment::identity::normalise_number(&n))
        .and_then(|n| {
            one(todo
                .iter()
                .enumerate()
                .filter(|(_, r)| r.payment.number == n)
                .map(|(at, _)| at)
                .collect())
        });
    let by_line = after("строка")
        .and_then(|l| l.parse::<u32>().ok())
        .and_then(|line| {
            one(todo
                .iter()
                .enumerate()
                .filter(|(_, r)| {
                    drop.payments
                        .get(r.position as usize)
                        .is_some_and(|p| p.line == Some(line))
                })
                .map(|(at, _)| at)
                .collect())
        });
    match (by_number, by_line) {
        (Some(a), Some(b)) if a != b => None,
        (a, b) => a.or(b),
    }
}

/// The note of a payment the 1C route uploaded: a draft, signed in the cabinet.
fn draft() -> String {
    note::both(
        "a draft (1C upload): sign it in the bank's cabinet",
        "черновик (загрузка 1С): подпишите его в интернет-банке",
    )
}

/// The same outcome for every payment of `ids`: `state`, for the reason given, with the bank's
/// answer.
fn every(
    ids: &[i64],
    state: PaymentState,
    message: &str,
    answer: Option<String>,
) -> Vec<(i64, Outcome)> {
    ids.iter()
        .map(|&id| {
            let answer = answer.clone();
            (
                id,
                Outcome {
                    answer,
                    ..Outcome::said(state, message)
                },
            )
        })
        .collect()
}
