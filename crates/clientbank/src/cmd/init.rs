//! `clientbank init DIR`: an exchange folder set up in one step, and what to do next.

use std::path::{Path, PathBuf};

use clientbank_watch::report::shell_quote;

use crate::exit::{Failure, Outcome};
use crate::term::tr;

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The exchange folder (made if missing).
    pub(crate) dir: PathBuf,
}

pub(crate) fn run(dir: &Path) -> Result<Outcome, Failure> {
    let made = clientbank_watch::init::init(dir)?;
    let d = shell_quote(&dir.display().to_string());
    let config = dir.join("clientbank.toml");
    let shown = config.display();
    let first = if made.config_written {
        tr(
            format!("{shown} written: every key is there, commented out, with what it is for"),
            format!("{shown} записан: в нём все ключи, закомментированные, с пояснениями"),
        )
    } else {
        tr(
            format!("{shown} was there and is kept"),
            format!("{shown} уже был и оставлен как есть"),
        )
    };
    crate::term::outln!("{first}")?;
    if !made.config_written {
        // Kept as it is, but said when it would not be read.
        let env = clientbank_bank::config::ProcessEnv;
        if let Err(e) = clientbank_bank::Settings::load(dir, None, &env) {
            let e = e.message();
            crate::term::warning(&tr(
                format!("but clientbank cannot run with it as it is: {}", e.en()),
                format!("но с ним clientbank не запустится: {}", e.ru()),
            ));
        }
    }
    crate::term::outln!(
        "{}",
        tr(
            format!(
                "Next:\n  1. The bank: in clientbank.toml set bank_url, and token_file (a file with \
                 the token from the bank's cabinet), or run `clientbank login --dir {d}`.\n  \
                 2. The signer: a [signers.\"INN\"] command per company (or signer for all), \
                 or sign in the bank's cabinet (signing = \"manual\" and `clientbank sign`).\n  \
                 3. Try it: `clientbank watch {d} --once` (nothing in inbox/: it checks the set-up \
                 and asks the bank once, sending nothing); to try everything without a bank, in a folder of its own (never in this \
                 one: payments sent to a sandbox are not sent again): `clientbank watch \
                 --sandbox --once --demo clientbank-demo`.\n  4. Then run `clientbank watch {d}` as a \
                 service (README: \"Running as a service\"); 1C exports into {d}/inbox and loads \
                 {d}/outbox/kl_to_1c.txt."
            ),
            format!(
                "Дальше:\n  1. Банк: в clientbank.toml укажите bank_url и token_file (файл с \
                 токеном из интернет-банка) или выполните `clientbank login --dir {d}`.\n  \
                 2. Подпись: команда [signers.\"ИНН\"] для каждой организации (или signer для \
                 всех), или подписывайте в интернет-банке (signing = \"manual\" и `clientbank \
                 sign`).\n  3. Проверка: `clientbank watch {d} --once` (пока inbox/ пуст, \
                 проверяются настройки и один раз опрашивается банк, ничего не отправляется); всё без банка — в отдельной папке (не в этой: \
                 платежи, отправленные в песочницу, повторно не отправляются): `clientbank watch \
                 --sandbox --once --demo clientbank-demo`.\n  4. Затем запускайте `clientbank watch {d}` \
                 как службу (README: «Running as a service»); 1С выгружает в {d}/inbox и загружает \
                 {d}/outbox/kl_to_1c.txt."
            ),
        )
    )?;
    Ok(Outcome::Clean)
}
