//! Shared by the daemon's tests: a sandbox bank on loopback, settings for it, drops.
#![allow(dead_code, unreachable_pub)]

use std::path::Path;
use std::time::Duration;

use clientbank_api::Token;
use clientbank_bank::Settings;
use clientbank_bank::config::SharedJournal;
use clientbank_sandbox::{Config, Sandbox};
use clientbank_watch::journal::{Journal, Location, NewFile, NewPayment, Outcome, Requisites};
use clientbank_watch::state::PaymentState;
use clientbank_watch::{Daemon, Options};

pub const ROMASHKA: &str = "40702810938000012345";
pub const IVANOV: &str = "40802810438000054321";
pub const OTHER_USER: &str = "40702810938000099999";

/// The day the tests run on, whatever the machine's clock says: the daemon's "today"
/// ([`options`]) and the sandbox bank's ([`bank`]), after the sandbox's sample history
/// (June to September 2026).
pub fn today_date() -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(2026, 11, 20).unwrap()
}

/// A sandbox bank whose clock stands at noon (Moscow) of [`today_date`], and goes on from there.
pub async fn bank() -> Sandbox {
    let bank = Sandbox::start(Config::default())
        .await
        .expect("sandbox bank");
    set_clock(&bank);
    bank
}

/// Moves `bank`'s clock to noon (Moscow) of [`today_date`].
pub fn set_clock(bank: &Sandbox) {
    let now = bank
        .control()
        .advance_clock(chrono::Duration::zero())
        .unwrap();
    // Noon in Moscow is 09:00 UTC.
    let noon = today_date().and_hms_opt(9, 0, 0).unwrap();
    bank.control().advance_clock(noon - now).unwrap();
}

/// The daemon's options with "today" given ([`today_date`]).
pub fn options() -> Options {
    Options {
        today: Some(today_date()),
        ..Options::default()
    }
}

thread_local! {
    /// Whether the test on this thread keeps its journals in PostgreSQL ([`on_both!`]).
    static POSTGRES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The PostgreSQL server of the tests: `CLIENTBANK_TEST_POSTGRES=postgres://user@127.0.0.1:PORT/db`
/// (the password, if any, in `PGPASSWORD`). Without it the PostgreSQL half of a test says so in
/// one line and passes, unless `CLIENTBANK_REQUIRE_POSTGRES=1` (`.ci/run`), which fails it.
pub fn postgres_server() -> Option<SharedJournal> {
    let required = std::env::var("CLIENTBANK_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
    let Some(url) = std::env::var("CLIENTBANK_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        assert!(
            !required,
            "CLIENTBANK_REQUIRE_POSTGRES=1 but CLIENTBANK_TEST_POSTGRES names no server"
        );
        static SAID: std::sync::Once = std::sync::Once::new();
        // Once per test program, straight to stderr, past the test harness's capture.
        SAID.call_once(|| {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "skipped: no PostgreSQL server configured (CLIENTBANK_TEST_POSTGRES): the \
                 journal's tests ran on SQLite only"
            );
        });
        return None;
    };
    let password = std::env::var("PGPASSWORD").ok().map(Token::new);
    Some(
        SharedJournal::new(&url, password, Duration::from_secs(30))
            .expect("CLIENTBANK_TEST_POSTGRES is a PostgreSQL URL without a password"),
    )
}

/// Makes the test on this thread keep its journals in PostgreSQL; `false` (said) when no
/// server is configured.
pub fn use_postgres() -> bool {
    let ready = postgres_server().is_some();
    POSTGRES.with(|p| p.set(ready));
    ready
}

/// The journal the test on this thread uses: `None` (the SQLite file), or PostgreSQL (each
/// folder its own schema, so tests run side by side).
pub fn journal() -> Option<SharedJournal> {
    if POSTGRES.with(std::cell::Cell::get) {
        postgres_server()
    } else {
        None
    }
}

/// The journal of folder `dir` on this test's database, opened (made when `create`).
pub fn journal_of(dir: &Path, create: bool) -> clientbank_watch::journal::Journal {
    name_journal(dir);
    let layout = clientbank_watch::folders::Layout::new(dir);
    std::fs::create_dir_all(layout.folder(clientbank_watch::folders::Folder::Private)).unwrap();
    let location = Location::of(&layout, journal().as_ref(), create)
        .unwrap()
        .expect("the folder has a journal");
    clientbank_watch::journal::Journal::open_at(&location, create).expect("the journal opens")
}

/// Payment number `n` of [`ROMASHKA`] to one recipient, planned (a new payment's default), as
/// the journal's tests record it.
pub fn planned(n: u32) -> NewPayment {
    NewPayment {
        payment: Requisites {
            identity: format!("{ROMASHKA}|{n}|2026-11-20|1|40702810210000054321"),
            number: n.to_string(),
            ..Requisites::default()
        },
        ..NewPayment::default()
    }
}

/// What the bank's answer makes of a payment it took as `id`, as the journal's tests record it.
pub fn uploaded(id: &str) -> Outcome {
    Outcome {
        state: PaymentState::Uploaded,
        bank_id: Some(id.into()),
        ..Outcome::default()
    }
}

/// Records `payments` as the intents of the JSON file `name` in processing/ (its hash is its
/// name): the file's row id and the payments'.
pub fn record(
    journal: &mut Journal,
    name: &str,
    payments: &[NewPayment],
) -> Result<(i64, Vec<i64>), clientbank_watch::Error> {
    let file = NewFile {
        name,
        hash: name,
        place: &format!("processing/{name}"),
    };
    journal.record_intents(file, clientbank_bank::Route::Json, payments)
}

/// Makes the lease of folder `dir` run out now, by the database's clock, as if its holder had
/// been paused past it (a process paused stops its renewals too; a test's cannot be paused).
pub fn expire_lease(dir: &Path) {
    let server = postgres_server().expect("a PostgreSQL server");
    let schema = std::fs::read_to_string(dir.join(".clientbank").join("journal.postgres")).unwrap();
    let mut config: postgres::Config = server.url.parse().unwrap();
    if let Some(password) = &server.password {
        config.password(password.expose_secret());
    }
    // Its own thread: the `postgres` client must not run inside the test's runtime.
    std::thread::spawn(move || {
        let mut client = config.connect(postgres::NoTls).unwrap();
        let expired = client
            .execute(
                "UPDATE clientbank.leases SET expires_at = now() - interval '1 second'
                 WHERE folder = $1",
                &[&schema.trim()],
            )
            .unwrap();
        assert_eq!(expired, 1, "the folder has a lease");
    })
    .join()
    .unwrap();
}

/// A test run twice: `NAME::sqlite` on the SQLite journal, `NAME::postgres` on PostgreSQL
/// where a server is configured ([`postgres_server`]).
#[macro_export]
macro_rules! on_both {
    ($(#[$meta:meta])* async fn $name:ident() $body:block) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test]
            async fn sqlite() $body

            #[tokio::test]
            async fn postgres() {
                if !$crate::common::use_postgres() {
                    return;
                }
                $body
            }
        }
    };
    ($(#[$meta:meta])* fn $name:ident() $body:block) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[test]
            fn sqlite() $body

            #[test]
            fn postgres() {
                if !$crate::common::use_postgres() {
                    return;
                }
                $body
            }
        }
    };
}

/// Settings for the sandbox bank, with short intervals, on this test's journal ([`journal`]).
pub fn settings(bank: &Sandbox) -> Settings {
    Settings {
        journal: journal(),
        bank_url: Some(bank.url()),
        token: Some(Token::new("cabinet-token-full-rights")),
        settle: Duration::from_millis(150),
        poll_interval: Duration::from_millis(200),
        retry_min: Duration::from_millis(50),
        retry_max: Duration::from_millis(400),
        once_patience: Duration::from_secs(10),
        incomplete_after: Duration::from_millis(600),
        ..Settings::default()
    }
}

pub fn open(dir: &Path, settings: Settings) -> Daemon {
    name_journal(dir);
    Daemon::open(dir, settings, options()).expect("daemon opens")
}

/// On PostgreSQL, DIR's `clientbank.toml` names the test's database, so that the commands
/// (`status`, `resolve`) find the journal as they would on a machine.
pub fn name_journal(dir: &Path) {
    if let Some(journal) = journal() {
        std::fs::create_dir_all(dir).unwrap();
        let config = format!("journal = \"{}\"\n", journal.url);
        std::fs::write(dir.join("clientbank.toml"), config).unwrap();
    }
}

pub fn today() -> String {
    today_date().format("%d.%m.%Y").to_string()
}

/// One ordinary payment request from `payer`, number `number`, sum `sum`.
pub fn request(payer: &str, number: u32, sum: &str) -> String {
    format!(
        r#"{{"payment": {{"Number": "{number}", "Date": "{date}", "Sum": {sum},
  "PayerAccount": "{payer}", "RecipientName": "ООО \"Лютик\"", "RecipientINN": "5009876546",
  "RecipientKPP": "500901001", "RecipientAccount": "40702810210000054321",
  "RecipientBankBik": "044525974", "RecipientBankCorrAccount": "30101810145250000974",
  "PaymentPurpose": "Оплата по счету № {number} за бумагу, НДС не облагается", "TypeIndicator": "0"}}}}"#,
        date = today()
    )
}

/// A JSON drop of ordinary payments from Ромашка, numbered `numbers`.
pub fn json_drop(numbers: &[u32]) -> String {
    let items: Vec<String> = numbers
        .iter()
        .map(|n| request(ROMASHKA, *n, &format!("{}.00", 1000 + n)))
        .collect();
    format!("[{}]\n", items.join(",\n"))
}

/// A 1C drop (CP1251) of ordinary payments from Ромашка numbered `numbers`; `priority` other
/// than 5 is something the JSON cannot carry (the file then goes whole through the 1C route).
pub fn onec_drop(numbers: &[u32], priority: u32) -> Vec<u8> {
    let payments: Vec<(u32, &str)> = numbers.iter().map(|n| (*n, ROMASHKA)).collect();
    onec_drop_from(&payments, priority)
}

/// [`onec_drop`] with each payment's payer account: `(number, account)`.
pub fn onec_drop_from(payments: &[(u32, &str)], priority: u32) -> Vec<u8> {
    let date = today();
    let mut text = format!(
        "1CClientBankExchange\r\nВерсияФормата=1.03\r\nКодировка=Windows\r\nОтправитель=Бухгалтерия\r\n\
         Получатель=\r\nДатаСоздания={date}\r\nВремяСоздания=10:00:00\r\nДатаНачала={date}\r\n\
         ДатаКонца={date}\r\nРасчСчет={ROMASHKA}\r\nДокумент=Платежное поручение\r\n"
    );
    for (n, payer) in payments {
        text.push_str(&format!(
            "СекцияДокумент=Платежное поручение\r\nНомер={n}\r\nДата={date}\r\nСумма={sum}.00\r\n\
             ПлательщикСчет={payer}\r\nПлательщик=ООО \"Ромашка\"\r\nПлательщикИНН=7701234560\r\n\
             Плательщик1=ООО \"Ромашка\"\r\nПлательщикРасчСчет={payer}\r\nПлательщикБанк1=ПАО СБЕРБАНК\r\n\
             ПлательщикБанк2=г. Москва\r\nПлательщикБИК=044525225\r\nПлательщикКорсчет=30101810400000000225\r\n\
             ПолучательСчет=40702810210000054321\r\nПолучатель=ООО \"Лютик\"\r\nПолучательИНН=5009876546\r\n\
             Получатель1=ООО \"Лютик\"\r\nПолучательРасчСчет=40702810210000054321\r\nПолучательБанк1=АО \"ТБАНК\"\r\n\
             ПолучательБанк2=г. Москва\r\nПолучательБИК=044525974\r\nПолучательКорсчет=30101810145250000974\r\n\
             ВидОплаты=01\r\nКод=0\r\nНазначениеПлатежа=Оплата по счету № {n} за товары, НДС не облагается\r\n\
             ПлательщикКПП=770101001\r\nПолучательКПП=500901001\r\nОчередность={priority}\r\nКонецДокумента\r\n",
            sum = 2000 + n
        ));
    }
    text.push_str("КонецФайла\r\n");
    let (bytes, _, unmappable) = encoding_rs::WINDOWS_1251.encode(&text);
    assert!(!unmappable);
    bytes.into_owned()
}

/// Writes a drop into DIR/inbox (created if needed).
pub fn put(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) {
    let inbox = dir.join("inbox");
    std::fs::create_dir_all(&inbox).unwrap();
    std::fs::write(inbox.join(name), bytes).unwrap();
}

/// The files of a folder of DIR (not the sidecars).
pub fn files(dir: &Path, folder: &str) -> Vec<String> {
    clientbank_watch::folders::Layout::new(dir).files(folder.parse().expect("a folder of DIR"))
}

pub fn read(dir: &Path, folder: &str, name: &str) -> String {
    std::fs::read_to_string(dir.join(folder).join(name))
        .unwrap_or_else(|e| panic!("{folder}/{name}: {e}"))
}

/// The payments at the bank: (number, sum, awaiting signature, status).
pub fn at_bank(bank: &Sandbox) -> Vec<(String, String, bool, String)> {
    bank.control()
        .payments()
        .into_iter()
        .map(|p| {
            (
                p.number.unwrap_or_default(),
                p.sum.map(|s| s.to_string()).unwrap_or_default(),
                p.awaiting_signature,
                p.status,
            )
        })
        .collect()
}

/// Asserts no payment number is at the bank twice.
pub fn assert_no_duplicates(bank: &Sandbox) {
    let mut numbers: Vec<String> = at_bank(bank).into_iter().map(|p| p.0).collect();
    let total = numbers.len();
    numbers.sort();
    numbers.dedup();
    assert_eq!(
        numbers.len(),
        total,
        "a payment reached the bank twice: {:?}",
        at_bank(bank)
    );
}

/// A signer made with openssl for `inn`, in `keys`.
pub fn signer(keys: &Path, inn: &str) -> Vec<String> {
    clientbank_bank::signer::throwaway_openssl(keys, inn, today_date())
        .expect("openssl makes a certificate")
}
