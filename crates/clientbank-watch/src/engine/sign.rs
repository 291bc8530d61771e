//! Signing what awaits signature: per company, the ids signed by the signer and sent to the bank.

use super::*;
use crate::journal::note;
use clientbank_format::{Lang, say, tr};

impl Engine {
    /// Signs the payments awaiting signature, one signature per company (`company`: only the
    /// one with this id or INN). `dry_run`: only says what would be signed.
    pub async fn sign(
        &mut self,
        company: Option<&str>,
        dry_run: bool,
    ) -> Result<Vec<SignGroup>, Error> {
        self.sign_file(None, company, dry_run).await
    }

    /// [`Engine::sign`], only the payments of the file `file` when given.
    pub async fn sign_file(
        &mut self,
        file: Option<i64>,
        company: Option<&str>,
        dry_run: bool,
    ) -> Result<Vec<SignGroup>, Error> {
        let mut awaiting = self.journal.awaiting_signature()?;
        if let Some(file) = file {
            awaiting.retain(|r| r.file_id == file);
        }
        if awaiting.is_empty() {
            return Ok(Vec::new());
        }
        let companies = self.companies().await?;
        let mut groups: BTreeMap<String, (CompanyInfo, Vec<String>)> = BTreeMap::new();
        let mut unknown = Vec::new();
        for row in &awaiting {
            let Some(id) = &row.outcome.bank_id else {
                continue;
            };
            match companies.get(&row.payment.payer_account) {
                Some(info) => groups
                    .entry(info.id.clone())
                    .or_insert_with(|| (info.clone(), Vec::new()))
                    .1
                    .push(id.clone()),
                None => unknown.push(row.payment.payer_account.clone()),
            }
        }
        if !unknown.is_empty() {
            let unknown = unknown.join(", ");
            say!(
                warn,
                tr!(
                    "payer account(s) {unknown} are not among the token's companies: their \
                     payments are not signed" ;
                    "счетов плательщика {unknown} нет среди организаций токена: их платежи не \
                     подписываются"
                )
            );
        }
        if let Some(wanted) = company
            && !groups.is_empty()
            && !groups
                .values()
                .any(|(info, _)| info.id == wanted || info.inn.as_deref() == Some(wanted))
        {
            let labels = |lang| {
                let labels: Vec<String> = groups.values().map(|(i, _)| i.label_in(lang)).collect();
                labels.join(", ")
            };
            let (en, ru) = (labels(Lang::En), labels(Lang::Ru));
            return Err(Error::Usage(tr!(
                "no payment of the company {wanted} awaits signature; payments of {en} do \
                 (`--company` takes an INN or the bank's company id)" ;
                "платежей организации {wanted} на подписи нет; на подписи платежи: {ru} \
                 (`--company` — ИНН или id организации в банке)"
            )));
        }
        let mut out = Vec::new();
        for (_, (info, mut ids)) in groups {
            if let Some(wanted) = company
                && info.id != wanted
                && info.inn.as_deref() != Some(wanted)
            {
                continue;
            }
            ids.sort();
            ids.dedup();
            if dry_run {
                out.push(SignGroup::new(&info, ids, SignResult::DryRun));
                continue;
            }
            let Some(argv) = self
                .settings
                .signer_for(info.inn.as_deref(), &info.id)
                .map(<[String]>::to_vec)
            else {
                let (label, key) = (info.label(), info.inn.as_deref().unwrap_or(&info.id));
                let label_ru = info.label_in(clientbank_format::Lang::Ru);
                let why = Message::new(
                    format!(
                        "failed: no signer for {label}: add [signers.\"{key}\"] command = [...] (or \
                         [signer]) to the configuration"
                    ),
                    format!(
                        "не подписано: для {label_ru} не настроена подпись: добавьте в настройки \
                         [signers.\"{key}\"] command = [...] (или [signer])"
                    ),
                );
                let said = note::both(why.en(), why.ru());
                self.journal.record_signature(&ids, false, &said)?;
                out.push(SignGroup::new(&info, ids, SignResult::Failed(why)));
                continue;
            };
            // One signature for the company's payments; when the bank refuses it for the state
            // of a payment (one signed by an earlier run whose answer was lost, or cancelled),
            // each is signed on its own, so that one payment never blocks the others.
            let mut batches = vec![ids];
            while let Some(ids) = batches.pop() {
                let group = self.sign_batch(&info, &argv, ids).await?;
                match group {
                    Batch::Answered(group) => out.push(group),
                    Batch::Split(ids) => batches.extend(ids.into_iter().rev().map(|id| vec![id])),
                }
            }
        }
        Ok(out)
    }

    /// Records why the payments `ids` of `company` were not signed (`noted`): their sign
    /// state (`None`: still awaiting one), the company's last error, a log line; `noted` back.
    fn not_signed(
        &mut self,
        ids: &[String],
        company: &CompanyInfo,
        state: Option<SignState>,
        noted: Message,
    ) -> Result<Message, Error> {
        let kept = note::both(noted.en(), noted.ru());
        self.journal.record_sign_state(ids, state, &kept)?;
        let topic = sign_topic(&company.label());
        self.journal.note(None, Some(&topic), &noted)?;
        say!(warn, noted, company = %company.label());
        Ok(noted)
    }

    /// Signs `ids` of one company with `argv` and sends the signature; records the answer.
    pub(super) async fn sign_batch(
        &mut self,
        info: &CompanyInfo,
        argv: &[String],
        ids: Vec<String>,
    ) -> Result<Batch, Error> {
        let topic = sign_topic(&info.label());
        // Said in the journal before the bank hears of it: a journal that cannot be written
        // stops here, so that no payment is signed without a record of it.
        self.journal.record_sign_state(
            &ids,
            None,
            &note::both(
                "being signed: if clientbank stopped now, see the payment in the bank's cabinet \
                 (the next signature says whether the bank still awaits one)",
                "подписывается: если clientbank остановился сейчас, посмотрите платёж в \
                 интернет-банке (следующая подпись покажет, ждёт ли банк подписи)",
            ),
        )?;
        let signer_argv = argv.to_vec();
        let signed_content = SignRequest::signed_content(&ids);
        let signature =
            tokio::task::spawn_blocking(move || signer::sign(&signer_argv, &signed_content))
                .await
                .map_err(|e| {
                    clientbank_bank::Error::Signer(tr!(
                        "the signer did not finish: {e}" ;
                        "программа подписи не завершилась: {e}"
                    ))
                })?;
        let signature = match signature {
            Ok(signature) => signature,
            Err(e) => {
                let noted = sign_failed(&format!("failed: {e}"), Unsigned::Signer(&e));
                let why = self.not_signed(&ids, info, None, noted)?;
                return Ok(Batch::Answered(SignGroup::new(
                    info,
                    ids,
                    SignResult::Failed(why),
                )));
            }
        };
        let client = self.client()?;
        let answer = client
            .sign(&SignRequest {
                operations: ids.clone(),
                sign_base64: signature,
            })
            .await;
        let result = match answer {
            Ok(_) => {
                self.journal
                    .record_signature(&ids, true, &note::both("signed", "подписан"))?;
                self.journal.forget_topic(&topic)?;
                tracing::info!(company = %info.label(), count = ids.len(), "payments signed");
                SignResult::Signed
            }
            Err(clientbank_api::Error::SignCheck { message }) => {
                let en = format!("refused: the bank refused the signature: {message}");
                let noted = sign_failed(&en, Unsigned::Refused(&message));
                SignResult::Refused(self.not_signed(&ids, info, None, noted)?)
            }
            // A payment the bank will not sign in its state: found by signing each alone.
            Err(clientbank_api::Error::Api { status: 400, .. }) if ids.len() > 1 => {
                let said = Message::new(
                    "the bank refused to sign the payments together: each is signed on its own",
                    "банк не принял подпись платежей вместе: каждый подписывается отдельно",
                );
                say!(warn, said, company = %info.label(), count = ids.len());
                return Ok(Batch::Split(ids));
            }
            Err(clientbank_api::Error::Api {
                status: 400,
                message,
                ..
            }) => {
                let en = format!(
                    "not signed: the bank no longer awaits a signature of this payment \
                     ({message}); it may have been signed already (by an earlier run \
                     whose answer was lost, or in the cabinet) or cancelled: see it in the bank's \
                     cabinet. It is not offered for signing again"
                );
                let noted = sign_failed(&en, Unsigned::NotAwaiting(&message));
                let state = Some(SignState::NotAwaiting);
                SignResult::NotAwaiting(self.not_signed(&ids, info, state, noted)?)
            }
            // The set-up's fault (a refused token, a token without the right, an address that
            // is not the bank's API): no signature can go; said once, with what to do, by the
            // caller, the payments left awaiting.
            Err(e) if set_up_problem(&e).is_some() => return Err(Error::Bank(e.into())),
            Err(e) => {
                let noted = sign_failed(&format!("failed: {e}"), Unsigned::Failed(&e));
                SignResult::Failed(self.not_signed(&ids, info, None, noted)?)
            }
        };
        Ok(Batch::Answered(SignGroup::new(info, ids, result)))
    }
}

/// What one signature of [`Engine::sign_batch`] came to.
pub(super) enum Batch {
    /// The bank answered for the batch as a whole.
    Answered(SignGroup),
    /// The bank refused the batch for the state of one of its payments: sign each alone.
    Split(Vec<String>),
}
