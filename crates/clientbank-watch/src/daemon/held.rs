//! Files held back in processing/: the bank did not take them, the configuration or the token keeps requests from being made, or the daemon is stopping.

use super::*;
use crate::last_errors;

impl Daemon {
    /// Whether the file stays in processing/ because its payments were not all sent: the bank
    /// did not take it (it waits, backing off), the configuration or the token keeps requests
    /// from being made (uploads stop), or the daemon is stopping. Says why.
    pub(super) fn held_back(&mut self, name: &str, sent: Sent) -> bool {
        let mut began_failing = false;
        match &sent {
            Sent::NotTaken { .. } | Sent::Misconfigured(_) | Sent::TokenRefused(_) => {
                began_failing = self.bank.failed(SystemTime::now());
            }
            Sent::Finished => {
                if self.bank.answered() {
                    // The bank answers again: its unavailability is no error of now.
                    let _ = self.engine.journal.forget_topic(last_errors::BANK);
                }
            }
            Sent::Interrupted => {}
        }
        match sent {
            Sent::NotTaken { why, retry_after } => {
                let delay = self.backoff(name, retry_after);
                let delay = clientbank_diagnostic::duration(delay);
                let (delay_en, delay_ru) = (delay.en(), delay.ru());
                let said = tr!(
                    "not sent yet ({}); it waits in processing/, next try in {delay_en}",
                    why.en() ;
                    "пока не отправлен ({}); он ждёт в processing/, следующая попытка через \
                     {delay_ru}", why.ru()
                );
                say!(warn, said, file = %name);
                if began_failing {
                    // Once a run of failures, for `status`: not at every try.
                    let noted = last_errors::bank_unavailable(name, &why);
                    let _ = self
                        .engine
                        .journal
                        .note(Some(name), Some(last_errors::BANK), &noted);
                }
                self.summary.bank_unavailable = Some(why);
                true
            }
            Sent::Misconfigured(why) => {
                let what = tr!(
                    "the configuration keeps requests from being made: {why}" ;
                    "настройки не дают отправлять запросы: {}", why.ru()
                );
                self.uploads_stop(name, &what);
                self.summary.config_error = Some(why);
                true
            }
            Sent::TokenRefused(why) => {
                // The bank's error says it already: "the bank refuses the token (401): …".
                self.uploads_stop(name, &why);
                self.summary.token_refused = Some(why);
                true
            }
            Sent::Interrupted => {
                if !self.interrupted.iter().any(|n| n == name) {
                    self.interrupted.push(name.to_string());
                }
                true
            }
            Sent::Finished => false,
        }
    }

    /// Uploads stop until the configuration changes or `token_retry` has passed, because of
    /// `what`: said, and noted for `status` at the file `name`.
    fn uploads_stop(&mut self, name: &str, what: &Message) {
        let retry = clientbank_diagnostic::duration(self.engine.settings.token_retry);
        say!(
            error,
            tr!(
                "{what}: nothing was uploaded; uploads stop, files wait in processing/; tried again \
                 in {retry} or when the configuration or the token file changes" ;
                "{}: ничего не загружено; загрузка остановлена, файлы ждут в processing/; \
                 новая попытка через {} или когда изменятся настройки или файл токена", what.ru(),
                retry.ru()
            )
        );
        let _ = self.engine.journal.note(Some(name), None, what);
        self.token_refused = Some(Instant::now());
    }
}
