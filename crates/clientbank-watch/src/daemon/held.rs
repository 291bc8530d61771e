//! Files held back in processing/: the bank did not take them, the configuration or the token keeps requests from being made, or the daemon is stopping.

use super::*;

impl Daemon {
    /// Whether the file stays in processing/ because its payments were not all sent: the bank
    /// did not take it (it waits, backing off), the configuration or the token keeps requests
    /// from being made (uploads stop), or the daemon is stopping. Says why.
    pub(super) fn held_back(&mut self, name: &str, sent: Sent) -> bool {
        match &sent {
            Sent::NotTaken { .. } | Sent::Misconfigured(_) | Sent::TokenRefused(_) => {
                self.bank.failed(SystemTime::now());
            }
            Sent::Finished => self.bank.answered(),
            Sent::Interrupted => {}
        }
        match sent {
            Sent::NotTaken { why, retry_after } => {
                let delay = self.backoff(name, retry_after);
                let said = tr!(
                    "the bank did not take it ({}); it waits in processing/, next try in \
                     {delay:?}", why.en() ;
                    "банк его не принял ({}); он ждёт в processing/, следующая попытка через \
                     {delay:?}", why.ru()
                );
                say!(warn, said, file = %name);
                self.summary.bank_unavailable = Some(why);
                true
            }
            Sent::Misconfigured(why) => {
                let retry = self.engine.settings.token_retry;
                let said = tr!(
                    "the configuration keeps requests from being made ({}): nothing was sent; \
                     uploads stop, files wait in processing/; tried again in {retry:?} or when \
                     the configuration changes", why.en() ;
                    "настройки не дают отправлять запросы ({}): ничего не отправлено; загрузка \
                     остановлена, файлы ждут в processing/; новая попытка через {retry:?} или \
                     когда настройки изменятся", why.ru()
                );
                say!(error, said);
                let said = Message::new(
                    format!(
                        "the configuration keeps requests from being made: {}",
                        why.en()
                    ),
                    format!("настройки не дают отправлять запросы: {}", why.ru()),
                );
                let _ = self.engine.journal.note(Some(name), None, &said);
                self.summary.config_error = Some(why);
                self.token_refused = Some(Instant::now());
                true
            }
            Sent::TokenRefused(why) => {
                let retry = self.engine.settings.token_retry;
                let said = tr!(
                    "the bank refuses the token ({}): uploads stop; files wait in processing/; \
                     tried again in {retry:?} or when the configuration changes", why.en() ;
                    "банк не принимает токен ({}): загрузка остановлена; файлы ждут в \
                     processing/; новая попытка через {retry:?} или когда настройки изменятся",
                    why.ru()
                );
                say!(error, said);
                let said = Message::new(
                    format!("the bank refuses the token: {}", why.en()),
                    format!("банк не принимает токен: {}", why.ru()),
                );
                let _ = self.engine.journal.note(Some(name), None, &said);
                self.summary.token_refused = Some(why);
                self.token_refused = Some(Instant::now());
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
}
