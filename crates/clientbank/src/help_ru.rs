//! The command line's help in Russian (issue 19 item 8).
//!
//! clap writes its help from the English doc comments of `cli.rs`; under Russian the built
//! command is given the texts of [`TEXTS`] instead, keyed by the command's name and the
//! argument's id. A test walks the command and requires a Russian text for every subcommand and
//! argument a person sees, and a use for every text, so the two cannot drift apart.
//!
//! The language is known before clap parses (clap answers `--help` itself): from `--lang` in
//! the arguments, else from the locale, as [`crate::term::init`] chooses it afterwards.

use std::ffi::OsString;

use clap::Command;

use crate::term::Lang;

/// `(key, text)`: `cmd` is a subcommand's description (`""` the program's), `cmd/examples` its
/// examples, `cmd.arg` the help of an argument (`.arg` at the top level).
const TEXTS: &[(&str, &str)] = &[
    (
        "",
        "Переносит платёжные поручения из учётной программы в банк и выписки обратно, в \
         формате обмена 1С с банком (1CClientBankExchange 1.01–1.03).",
    ),
    (
        "/examples",
        "Примеры:
  clientbank check inbox/*.txt                      проверить каждый файл; код 1 при ошибке
  clientbank convert 1c_to_kl.txt -o requests.json  платёжки 1С -> JSON-запросы загрузки
  clientbank parse --json statement.txt | jq .documents

Коды выхода: 0 ошибок нет, 1 найдена ошибка, 2 неверный вызов, ошибка ввода-вывода или \
         нечитаемый файл.",
    ),
    (
        "*.color",
        "Когда раскрашивать вывод: auto — на терминале, если не задан NO_COLOR; always — всегда; \
         never — никогда.",
    ),
    (
        "*.lang",
        "Язык сообщений: ru или en (по умолчанию — по LC_ALL, LC_MESSAGES или LANG: `ru_RU…` — \
         русский). Коды, ключи JSON и коды выхода одинаковы в обоих.",
    ),
    (
        "parse",
        "Показать файл так, как его видит чтение: кодировка, секции, ключи и значения, замечания.",
    ),
    (
        "parse/examples",
        "Примеры:
  clientbank parse statement.txt                    секции и ключи; замечания в stderr
  clientbank parse --json statement.txt             один объект JSON
  clientbank parse --json-lines - < statement.txt   по объекту JSON на секцию и замечание",
    ),
    ("parse.file", "Файл обмена (`-` — стандартный ввод)."),
    (
        "parse.json",
        "Вывести один объект JSON (стабильный интерфейс, описанный в README).",
    ),
    (
        "parse.json_lines",
        "Вывести JSON Lines: по объекту JSON на строку (для больших файлов; формы в README).",
    ),
    (
        "check",
        "Проверить файлы (1С или JSON-запросы загрузки): формат и все правила платежей. Код 0 — \
         ошибок нет, 1 — найдена ошибка, 2 — файл не прочитан.",
    ),
    (
        "check/examples",
        "Примеры:
  clientbank check inbox/*.txt                      замечания по каждому файлу, итоговая строка
  clientbank check --strict 1c_to_kl.txt            каждое замечание — ошибка
  clientbank check --json-lines big.txt > f.jsonl   по объекту JSON на замечание и файл
  cat requests.json | clientbank check -            стандартный ввод",
    ),
    (
        "check.files",
        "Файлы: файлы обмена 1С или JSON-запросы загрузки (`-` — стандартный ввод).",
    ),
    (
        "check.strict",
        "Каждое замечание — ошибка, как у загрузчика самой 1С.",
    ),
    (
        "check.json",
        "Вывести один объект JSON (стабильный интерфейс, описанный в README).",
    ),
    (
        "check.json_lines",
        "Вывести JSON Lines: по объекту JSON на строку (для больших файлов; формы в README).",
    ),
    (
        "check.today",
        "Проверять даты на этот день (ДД.ММ.ГГГГ или ГГГГ-ММ-ДД), а не на сегодня по Москве.",
    ),
    (
        "convert",
        "Преобразовать платёжки 1С в JSON-запросы загрузки (массив), JSON-запросы (один или \
         массив) — в канонический файл 1.03, или файл 1С — в канонический файл 1С в другой \
         кодировке.",
    ),
    (
        "convert/examples",
        "Примеры:
  clientbank convert 1c_to_kl.txt -o requests.json                 1С -> JSON
  clientbank convert requests.json --payer-from payer.toml -o 1c_to_kl.txt
                                                                   JSON -> 1С, с реквизитами плательщика
  clientbank convert utf8.txt --to 1c --encoding windows -o cp1251.txt
                                                                   1С -> канонический 1С в CP1251
  clientbank convert - --to json < 1c_to_kl.txt                    со стандартного ввода на стандартный вывод",
    ),
    (
        "convert.file",
        "Файл обмена 1С или JSON-файл запросов загрузки (`-` — стандартный ввод).",
    ),
    (
        "convert.to",
        "Что записать: json (запросы загрузки) или 1c (файл обмена 1.03); по умолчанию — другой \
         формат, чем у входа.",
    ),
    (
        "convert.output",
        "Куда записать (`-` или ничего — стандартный вывод). Никогда не сам входной файл.",
    ),
    (
        "convert.encoding",
        "Кодировка записываемого файла 1С: windows (CP1251, `Кодировка=Windows`, как у 1С по \
         умолчанию), dos (CP866, `Кодировка=DOS`) или utf-8 (сама 1С его не читает).",
    ),
    (
        "convert.in_signing",
        "Запросы загрузки отправляют платежи сразу на подпись (`targetStatus: InSigning`), а не \
         создают черновики.",
    ),
    (
        "convert.today",
        "Проверять даты на этот день, а не на сегодня по Москве.",
    ),
    (
        "convert.payer_from",
        "Реквизиты плательщика для JSON -> 1С (файл TOML или JSON: account, name, inn, kpp, \
         bank, bik, corr_account), которых нет в JSON-запросах.",
    ),
    (
        "convert.json",
        "Замечания в стандартный поток ошибок как JSON Lines, по объекту на замечание, затем \
         итог.",
    ),
    ("convert.strict", "Каждое замечание — ошибка (код 1)."),
    (
        "convert.force",
        "Записать всё равно: файл с ошибками (иначе ничего не пишется) или байты CP1251 и CP866 \
         на терминал.",
    ),
    (
        "sandbox",
        "Запустить локальный тестовый банк: API банка v1 на локальном адресе, с тестовыми \
         данными, постоянными учётными данными песочницы и интерфейсом администратора для сбоев.",
    ),
    (
        "sandbox/examples",
        "Примеры:
  clientbank sandbox                                127.0.0.1:8800
  clientbank sandbox --addr 127.0.0.1:0             любой свободный порт (выводится)
  clientbank sandbox --time-scale 0.01              повторы вебхуков в 100 раз скорее",
    ),
    ("sandbox.addr", "Где слушать (только локальный адрес)."),
    (
        "sandbox.time_scale",
        "Множитель пауз между повторами вебхуков (10 минут, затем час).",
    ),
    (
        "upload",
        "Проверить и загрузить в банк файлы платёжек (1С или JSON), вывести каждый платёж с его \
         идентификатором и записать всё в журнал папки --dir (или папки, где лежат файлы). Файл с \
         ошибкой отклоняется целиком (код 1, ничего не отправлено).",
    ),
    (
        "upload/examples",
        "Примеры:
  clientbank upload --dir exchange 1c_to_kl.txt         проверить, загрузить, вывести id платежей
  clientbank upload --dir exchange --route 1c file.txt  файл 1С целиком в /operation-upload/1c
  clientbank upload --dir exchange --json requests.json JSON-массив платежей и id",
    ),
    (
        "upload.files",
        "Файлы: файлы обмена 1С или JSON-запросы загрузки.",
    ),
    (
        "upload.dir",
        "Папка, чей журнал (`DIR/.clientbank/journal.sqlite`) и настройки (`DIR/clientbank.toml`) \
         используются; папке без журнала он создаётся. Без неё — папка с журналом, в которой \
         лежат файлы (файл вне такой папки отклоняется: журнал сам собой не создаётся).",
    ),
    (
        "upload.route",
        "Как отправлять платежи: auto (JSON по одному, если платёж несёт всё нужное, иначе файл \
         1С целиком), json, 1c.",
    ),
    (
        "upload.in_signing",
        "Отправлять платежи сразу на подпись (`targetStatus: InSigning`; иначе — по ключу \
         `in_signing` настроек, по умолчанию true).",
    ),
    ("upload.json", "Вывести JSON-массив."),
    (
        "upload.config",
        "Файл настроек (по умолчанию `DIR/clientbank.toml`).",
    ),
    (
        "upload.today",
        "Проверять даты на этот день, а не на сегодня по Москве.",
    ),
    (
        "sign",
        "Подписать платежи, ждущие подписи: одна отсоединённая подпись на компанию, сделанная \
         командой подписи из настроек, отправляется в банк.",
    ),
    (
        "sign/examples",
        "Примеры:
  clientbank sign --dir exchange --dry-run      что будет подписано, по компаниям
  clientbank sign --dir exchange                подписать и отправить все id, ждущие подписи
  clientbank sign --dir exchange --company 7701234560 --json",
    ),
    ("sign.dir", "Папка, чьи журнал и настройки используются."),
    ("sign.company", "Только эта компания (её id или ИНН)."),
    (
        "sign.dry_run",
        "Показать, что будет подписано; ничего не подписывать.",
    ),
    ("sign.json", "Вывести JSON-массив."),
    (
        "sign.config",
        "Файл настроек (по умолчанию `DIR/clientbank.toml`).",
    ),
    (
        "watch",
        "Служба: берёт готовые файлы из DIR/inbox, проверяет и загружает их не более одного раза, \
         переносит каждый в done/, rejected/ или review/ с отчётом рядом.",
    ),
    (
        "watch/examples",
        "Примеры:
  clientbank watch --sandbox --once --demo clientbank-demo   весь путь без сети, затем итог
  clientbank watch exchange                           служба (настройки в DIR/clientbank.toml)
  clientbank watch exchange --once --log-format json  что сейчас во входящих, журнал в JSON
  clientbank watch --root clients                     каждая clients/*/ с clientbank.toml
  clientbank watch acme globex --once                 две папки, у каждой свои настройки",
    ),
    (
        "watch.dirs",
        "Папка обмена (inbox/, processing/, done/, rejected/, review/, outbox/); несколько — \
         один процесс обслуживает все, у каждой свой clientbank.toml.",
    ),
    (
        "watch.root",
        "Обслуживать каждую папку внутри ROOT, где есть clientbank.toml; ROOT просматривается \
         каждые 5 с: новые папки подхватываются, удалённые отпускаются.",
    ),
    (
        "watch.once",
        "Обработать то, что есть во входящих, вывести итог и выйти (0 — ничего не отклонено и \
         не на разборе; 1 — иначе; 2 — мешают настройки, журнал, папка или токен; 3 — банк так \
         и остался недоступен).",
    ),
    (
        "watch.sandbox",
        "Работать со встроенным тестовым банком, запущенным в процессе на свободном локальном \
         порту.",
    ),
    (
        "watch.demo",
        "Сначала скопировать примеры файлов в DIR/inbox и подписывать одноразовыми \
         сертификатами openssl (с --sandbox — весь путь без сети). DIR должна быть новой.",
    ),
    (
        "watch.config",
        "Файл настроек (по умолчанию `DIR/clientbank.toml`).",
    ),
    (
        "watch.log_format",
        "Строки журнала текстом (text, по умолчанию) или в JSON (json).",
    ),
    (
        "watch.new_journal",
        "Начать новый журнал, хотя папки показывают прежнюю работу (после потери старого: \
         файлы из processing/ уходят в review/).",
    ),
    (
        "watch.metrics",
        "Отдавать метрики в текстовом формате Prometheus по адресу http://ADDR/metrics (только \
         адрес этой машины; по умолчанию `[metrics] listen` из настроек).",
    ),
    (
        "statement",
        "Операции банка за период как выписка 1.03 (kl_to_1c.txt), которую загружает 1С: по \
         секции остатков на день, по документу на исполненную операцию (отменённые пропущены и \
         посчитаны), тождество остатков сверено с остатками банка.",
    ),
    (
        "statement/examples",
        "Примеры:
  clientbank statement --account 40702810938000012345 --from 2026-11-01 --till 2026-11-23
  clientbank statement --sandbox --account 40702810938000012345 --from 2026-08-01 --till 2026-11-23 -o kl_to_1c.txt
  clientbank statement --account A --account B --from 01.11.2026 --till 23.11.2026 --per-account

Несколько счетов попадают в один файл, по строке РасчСчет на каждый (папка обмена 1С берёт один
kl_to_1c.txt и загружает известные ей счета); с --per-account пишется по kl_to_1c_СЧЁТ.txt.",
    ),
    (
        "statement.accounts",
        "Счёт: его 20-значный номер или id в банке (повторите для нескольких).",
    ),
    ("statement.from", "Первый день (ДД.ММ.ГГГГ или ГГГГ-ММ-ДД)."),
    ("statement.till", "Последний день, включительно."),
    (
        "statement.output",
        "Куда записать (`-` — стандартный вывод); файл заменяется целиком, никогда не \
         наполовину.",
    ),
    (
        "statement.encoding",
        "Кодировка файла: windows (CP1251), dos (CP866) или utf-8.",
    ),
    (
        "statement.per_account",
        "По файлу на счёт (номер счёта добавляется к имени файла).",
    ),
    (
        "statement.json",
        "Вывести записанное одним объектом JSON.",
    ),
    (
        "webhook",
        "Принимать уведомления банка (вебхуки): каждое проверяется (SHA1Hash), а его операция \
         записывается один раз в журнал папки --dir; работает до Ctrl-C.",
    ),
    (
        "webhook/examples",
        "Примеры:
  clientbank webhook --addr 127.0.0.1:8091 --dir exchange   слушать, записывать в журнал exchange
  clientbank webhook --dir exchange                         адрес addr из таблицы [webhook] clientbank.toml
  clientbank webhook --addr 127.0.0.1:0 --log-format json   любой свободный порт (выводится), журнал в JSON",
    ),
    (
        "webhook.addr",
        "Где слушать (по умолчанию `addr` таблицы [webhook]). Простой HTTP: банк шлёт на адреса \
         HTTPS, поэтому TLS снимает обратный прокси перед ним.",
    ),
    (
        "webhook.dir",
        "Папка, чьи журнал (`DIR/.clientbank/journal.sqlite`) и настройки используются.",
    ),
    (
        "webhook.config",
        "Файл настроек (по умолчанию `DIR/clientbank.toml`).",
    ),
    (
        "webhook.log_format",
        "Строки журнала текстом (text, по умолчанию) или в JSON (json).",
    ),
    (
        "init",
        "Подготовить папку обмена за один шаг: её папки и clientbank.toml с комментариями \
         (каждый ключ, его значение по умолчанию и назначение, по-русски и по-английски); затем — \
         что делать дальше. Существующий clientbank.toml сохраняется.",
    ),
    (
        "init/examples",
        "Примеры:
  clientbank init exchange            создать exchange/ и exchange/clientbank.toml",
    ),
    ("init.dir", "Папка обмена (создаётся, если её нет)."),
    (
        "status",
        "Файлы по папкам, платежи по состояниям, id, ждущие подписи, по компаниям, последние \
         ошибки.",
    ),
    (
        "status/examples",
        "Примеры:
  clientbank status exchange          файлы по папкам, платежи по состояниям, id к подписи
  clientbank status exchange --json   один объект JSON
  clientbank status exchange --check  проверка для мониторинга: 0 — всё хорошо, 1 — нужен человек, 4 — службы нет
  clientbank status --root clients    по строке на папку: файлы, платежи под сомнением, последняя ошибка",
    ),
    ("status.dirs", "Папка обмена; несколько — по строке на каждую."),
    (
        "status.root",
        "По строке на каждую папку внутри ROOT, где есть clientbank.toml.",
    ),
    ("status.json", "Вывести один объект JSON."),
    (
        "status.check",
        "Проверка для мониторинга: код 0, когда с папкой работает служба и ничего не требует \
         человека, 1 — когда требует (файлы в review/ или rejected/, платежи под сомнением, файл \
         ждёт дольше часа, неисправленная ошибка), 2 — когда папку не прочитать, 4 — когда с ней не работает ни одна служба.",
    ),
    (
        "resolve",
        "Разобрать файл из review/ платёж за платежом: платежи под сомнением, которые есть в \
         банке (--sent), и которых нет (--not-sent: отправляются один раз, из входящих), по \
         номерам документов; флаг без номеров означает все платежи под сомнением, не названные \
         в другом флаге. Сначала найдите каждый в кабинете или истории банка.",
    ),
    (
        "resolve/examples",
        "Примеры:
  clientbank resolve exchange 1c_to_kl.txt --sent                 все платежи под сомнением — в банке
  clientbank resolve exchange 1c_to_kl.txt --not-sent             ни одного: обратно во входящие, отправятся один раз
  clientbank resolve exchange 1c_to_kl.txt --sent 301 302 --not-sent 303
                                                                  301 и 302 в банке, 303 — нет",
    ),
    ("resolve.dir", "Папка обмена."),
    ("resolve.file", "Имя файла в review/."),
    (
        "resolve.sent",
        "Эти платежи под сомнением (номера документов; без номеров — все) есть в банке.",
    ),
    (
        "resolve.not_sent",
        "Этих платежей под сомнением (номера документов; без номеров — всех) в банке нет.",
    ),
    (
        "login",
        "Войти в банк (OAuth): выводит (а на рабочем столе и открывает) адрес входа в банк, \
         принимает перенаправление на локальный адрес из `[app] redirect_uri`, сразу обменивает \
         код и сохраняет токен в файл, который можете читать только вы.",
    ),
    (
        "login/examples",
        "Примеры:
  clientbank login                                   войти; токен сохраняется в файл токена
  clientbank login --no-browser --timeout 600        только вывести адрес, ждать 10 минут
  clientbank login --sandbox                         весь путь со встроенным тестовым банком",
    ),
    (
        "login.no_browser",
        "Только вывести адрес; браузер не открывать.",
    ),
    (
        "login.timeout",
        "Сколько секунд ждать перенаправления от банка.",
    ),
    (
        "logout",
        "Отозвать сохранённый токен в банке и удалить файл токена.",
    ),
    (
        "logout/examples",
        "Примеры:
  clientbank logout                                  отозвать токен, удалить файл токена
  clientbank logout --config ~/clientbank.toml",
    ),
    (
        "accounts",
        "Все компании и счета, которые видит токен: название, ИНН, номер счёта, валюта, \
         состояние, остаток, id счёта.",
    ),
    (
        "accounts/examples",
        "Примеры:
  clientbank accounts --sandbox                      тестовые счета встроенного банка
  clientbank accounts --json | jq '.[].balance'
  clientbank accounts --csv > accounts.csv",
    ),
    (
        "balance",
        "Остаток на счёте сейчас или на день (остаток банка на эту дату).",
    ),
    (
        "balance/examples",
        "Примеры:
  clientbank balance 40702810938000012345            по номеру счёта
  clientbank balance 40702810938000012345 --on 01.11.2026
  clientbank balance ACCOUNT-ID --json",
    ),
    ("balance.account", "Счёт: его номер или id."),
    (
        "balance.on",
        "Остаток на этот день (ДД.ММ.ГГГГ или ГГГГ-ММ-ДД), а не сейчас.",
    ),
    ("balance.json", "Вывести один объект JSON."),
    (
        "history",
        "Операции по счёту, исполненные за период (оба дня включительно), новые сверху.",
    ),
    (
        "history/examples",
        "Примеры:
  clientbank history 40702810938000012345 --from 01.11.2026 --till 30.11.2026
  clientbank history 40702810938000012345 --from 2026-11-01 --till 2026-11-30 --csv > nov.csv
  clientbank history ACCOUNT-ID --from 01.11.2026 --till 01.11.2026 --json",
    ),
    ("history.account", "Счёт: его номер или id."),
    ("history.from", "Первый день (ДД.ММ.ГГГГ или ГГГГ-ММ-ДД)."),
    ("history.till", "Последний день, включительно."),
    (
        "completions",
        "Вывести скрипт дополнения команд для оболочки (bash, zsh, fish, elvish, powershell).",
    ),
    (
        "completions/examples",
        "Примеры:
  clientbank completions bash > ~/.local/share/bash-completion/completions/clientbank
  clientbank completions zsh > ~/.zfunc/_clientbank",
    ),
    ("completions.shell", "Оболочка."),
    ("man", "Вывести страницу руководства man (roff)."),
    (
        "man/examples",
        "Примеры:
  clientbank man > clientbank.1 && man ./clientbank.1",
    ),
    // The arguments every bank command shares (`BankArgs`, `TableArgs`).
    (
        "*.dir",
        "Папка, чьи настройки (`DIR/clientbank.toml`) используются.",
    ),
    (
        "*.config",
        "Файл настроек (по умолчанию `DIR/clientbank.toml`).",
    ),
    (
        "*.sandbox",
        "Работать со встроенным тестовым банком, запущенным в процессе на свободном локальном \
         порту (с его постоянным токеном `sandboxtoken`, если токен не задан).",
    ),
    ("*.json", "Вывести JSON-массив (форма в README)."),
    ("*.csv", "Вывести CSV со строкой заголовков."),
    // What clap adds itself.
    ("*.help", "Показать справку (-h — кратко, --help — подробно)."),
    ("*.version", "Показать версию."),
    (
        "help",
        "Показать эту справку или справку названных команд.",
    ),
];

/// The Russian text of `key`, or for `cmd.arg` the shared `*.arg` one.
fn text(key: &str) -> Option<&'static str> {
    let find = |key: &str| TEXTS.iter().find(|(k, _)| *k == key).map(|(_, t)| *t);
    find(key).or_else(|| {
        let (_, arg) = key.split_once('.')?;
        find(&format!("*.{arg}"))
    })
}

/// The language of the help, before clap parses: `--lang ru|en` (or `--lang=…`) among the
/// arguments, else the locale.
pub(crate) fn lang_of(args: &[OsString]) -> Lang {
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        }
        let value = match word.strip_prefix("--lang") {
            Some("") => words.next().map(|w| w.into_owned()),
            Some(rest) => rest.strip_prefix('=').map(str::to_string),
            None => None,
        };
        match value.map(|v| v.to_ascii_lowercase()).as_deref() {
            Some("ru") => return Lang::Ru,
            Some("en") => return Lang::En,
            _ => {}
        }
    }
    Lang::from_locale()
}

/// The arguments with the `help` command's own words made clap's: clap's `help` takes only
/// command names, so `help --help` (or `-h`) and a global option after `help`
/// (`help --lang ru check`) were refused as unknown commands. `help --help` becomes
/// `help help`; `--help` beside a command name is dropped (`help check -h` is `help check`);
/// global options move before `help`. Any other command line is returned as it is.
pub(crate) fn help_of_help(args: Vec<OsString>) -> Vec<OsString> {
    let takes_value = |word: &str| GLOBAL_OPTIONS.contains(&word);
    let is_global = |word: &str| {
        takes_value(word)
            || GLOBAL_OPTIONS
                .iter()
                .any(|o| word.starts_with(&format!("{o}=")))
    };
    let mut globals = Vec::new();
    let mut words = args.iter().skip(1);
    let mut found_help = false;
    while let Some(word) = words.next() {
        let text = word.to_string_lossy();
        if is_global(&text) {
            globals.push(word.clone());
            if takes_value(&text) {
                globals.extend(words.next().cloned());
            }
            continue;
        }
        found_help = text == "help";
        break;
    }
    if !found_help {
        return args;
    }
    let mut names = Vec::new();
    let mut asked_help = false;
    let mut moved = false;
    while let Some(word) = words.next() {
        let text = word.to_string_lossy();
        if text == "--help" || text == "-h" {
            asked_help = true;
        } else if is_global(&text) {
            moved = true;
            globals.push(word.clone());
            if takes_value(&text) {
                globals.extend(words.next().cloned());
            }
        } else {
            names.push(word.clone());
        }
    }
    if !asked_help && !moved {
        return args;
    }
    if names.is_empty() && asked_help {
        names.push("help".into());
    }
    let program = args.into_iter().take(1);
    program
        .chain(globals)
        .chain(std::iter::once("help".into()))
        .chain(names)
        .collect()
}

/// The global options that take a value (`cli::Global`).
const GLOBAL_OPTIONS: &[&str] = &["--lang", "--color"];

/// The command with its help in `lang` (English as it is).
pub(crate) fn localize(command: Command, lang: Lang) -> Command {
    if lang != Lang::Ru {
        return command;
    }
    let mut command = command;
    // Built first: the global arguments are copied into every subcommand and clap's own
    // `--help`, `--version` and `help` exist, so all are translated alike.
    command.build();
    translate(command, "")
        .help_template(TEMPLATE)
        .subcommand_help_heading("Команды")
}

/// clap's own words of a usage line, in Russian.
const USAGE_WORDS: [(&str, &str); 3] = [
    ("[OPTIONS]", "[ПАРАМЕТРЫ]"),
    ("<COMMAND>", "<КОМАНДА>"),
    ("[COMMAND]", "[КОМАНДА]"),
];

/// An argument's value name (`<FILE>`) in Russian; `None` for one not in the list (a test
/// holds the list to every name the command line has).
fn value_name(name: &str) -> Option<&'static str> {
    VALUE_NAMES
        .iter()
        .find(|(en, _)| *en == name)
        .map(|(_, ru)| *ru)
}

/// The value names of the command line, in Russian.
const VALUE_NAMES: &[(&str, &str)] = &[
    ("ACCOUNT-FILE", "ФАЙЛ-СЧЕТОВ"),
    ("ACCOUNT", "СЧЁТ"),
    ("ADDR", "АДРЕС"),
    ("COMPANY", "ОРГАНИЗАЦИЯ"),
    ("CONFIG", "НАСТРОЙКИ"),
    ("D", "ДАТА"),
    ("DIR", "ПАПКА"),
    ("ENCODING", "КОДИРОВКА"),
    ("FILE", "ФАЙЛ"),
    ("FILES", "ФАЙЛЫ"),
    ("FROM", "С"),
    ("LANG", "ЯЗЫК"),
    ("LOG_FORMAT", "ФОРМАТ"),
    ("N", "N"),
    ("OUTPUT", "ВЫВОД"),
    ("ROOT", "КОРЕНЬ"),
    ("ROUTE", "ПУТЬ"),
    ("SECS", "СЕКУНДЫ"),
    ("SHELL", "ОБОЛОЧКА"),
    ("TILL", "ПО"),
    ("TIME_SCALE", "МАСШТАБ"),
    ("TO", "ВО"),
    ("TODAY", "СЕГОДНЯ"),
    ("WHEN", "КОГДА"),
];

/// clap's layout with the headings in Russian.
const TEMPLATE: &str =
    "{before-help}{about-with-newline}\nИспользование: {usage}\n\n{all-args}{after-help}";

fn translate(mut command: Command, name: &str) -> Command {
    if let Some(about) = text(name) {
        command = command.about(about).long_about(None::<&str>);
    }
    if let Some(examples) = text(&format!("{name}/examples")) {
        command = command.after_help(examples).after_long_help(None::<&str>);
    }
    let ids: Vec<String> = command
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .collect();
    for id in ids {
        let Some(help) = text(&format!("{name}.{id}")) else {
            continue;
        };
        command = command.mut_arg(id, |arg| {
            let mut help = help.to_string();
            let defaults: Vec<String> = arg
                .get_default_values()
                .iter()
                .map(|v| v.to_string_lossy().into_owned())
                .collect();
            if !defaults.is_empty()
                && !arg.is_hide_default_value_set()
                && arg.get_action().takes_values()
            {
                help.push_str(&format!(" [по умолчанию: {}]", defaults.join(", ")));
            }
            let values: Vec<String> = arg
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_string())
                .collect();
            if !values.is_empty() && !arg.is_hide_possible_values_set() {
                help.push_str(&format!(" [значения: {}]", values.join(", ")));
            }
            let heading = if arg.is_positional() {
                "Аргументы"
            } else {
                "Параметры"
            };
            let names: Option<Vec<&'static str>> = (arg.get_action().takes_values())
                .then(|| arg.get_value_names())
                .flatten()
                .map(|names| names.iter().map(|n| value_name(n.as_str())).collect())
                .and_then(|names: Vec<_>| names.into_iter().collect());
            let arg = match names {
                Some(names) => arg.value_names(names),
                None => arg,
            };
            arg.help(help.clone())
                .long_help(help)
                .hide_default_value(true)
                .hide_possible_values(true)
                .help_heading(heading)
        });
    }
    // clap's usage line says `[OPTIONS]` and `<COMMAND>` whatever the language: written anew.
    let usage = command.render_usage().to_string();
    let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage);
    let usage = USAGE_WORDS
        .iter()
        .fold(usage.to_string(), |usage, (en, ru)| usage.replace(en, ru));
    command = command.override_usage(usage);
    let subs: Vec<String> = command
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for sub in subs {
        command = command.mut_subcommand(&sub, |s| {
            translate(s, &sub)
                .help_template(TEMPLATE)
                .subcommand_help_heading("Команды")
        });
    }
    command
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use clap::CommandFactory;

    use super::*;
    use crate::cli::Cli;

    /// Every key a person can see (hidden commands too: their `--help` is read).
    fn keys(command: &Command, name: &str, out: &mut Vec<String>) {
        out.push(name.to_string());
        if command.get_after_help().is_some() {
            out.push(format!("{name}/examples"));
        }
        for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
            out.push(format!("{name}.{}", arg.get_id()));
        }
        for sub in command.get_subcommands() {
            keys(sub, sub.get_name(), out);
        }
    }

    /// Every value name of the command line (`<FILE>`) has its Russian, and every Russian is
    /// used.
    #[test]
    fn every_value_name_has_its_russian() {
        fn names(command: &Command, out: &mut BTreeSet<String>) {
            for arg in command
                .get_arguments()
                .filter(|a| a.get_action().takes_values())
            {
                for name in arg.get_value_names().unwrap_or_default() {
                    out.insert(name.to_string());
                }
            }
            for sub in command.get_subcommands() {
                names(sub, out);
            }
        }
        let mut used = BTreeSet::new();
        names(&Cli::command(), &mut used);
        for name in &used {
            assert!(value_name(name).is_some(), "no Russian for <{name}>");
        }
        for (en, _) in VALUE_NAMES {
            assert!(used.contains(*en), "<{en}> is not a value name any more");
        }
    }

    #[test]
    fn every_help_text_has_its_russian_and_every_russian_text_is_used() {
        let mut command = Cli::command();
        command.build();
        let mut seen = Vec::new();
        keys(&command, "", &mut seen);
        let missing: Vec<&String> = seen.iter().filter(|k| text(k).is_none()).collect();
        assert!(missing.is_empty(), "no Russian text for {missing:?}");
        let used: BTreeSet<&str> = seen
            .iter()
            .filter_map(|k| {
                if TEXTS.iter().any(|(t, _)| t == k) {
                    Some(k.as_str())
                } else {
                    k.split_once('.')
                        .and_then(|(_, arg)| TEXTS.iter().find(|(t, _)| *t == format!("*.{arg}")))
                        .map(|(t, _)| *t)
                }
            })
            .collect();
        let unused: Vec<&str> = TEXTS
            .iter()
            .map(|(k, _)| *k)
            .filter(|k| !used.contains(k))
            .collect();
        assert!(unused.is_empty(), "Russian texts of nothing: {unused:?}");
    }

    #[test]
    fn the_russian_help_has_no_english_left() {
        let mut command = localize(Cli::command(), Lang::Ru);
        let mut all = vec![command.render_long_help().to_string()];
        let names: Vec<String> = command
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        for name in names {
            let sub = command.find_subcommand_mut(&name).unwrap();
            all.push(sub.render_long_help().to_string());
            all.push(sub.render_help().to_string());
        }
        for help in &all {
            for english in [
                "Usage:",
                "Options:",
                "Arguments:",
                "Commands:",
                "Print help",
                "Examples:",
                "[default:",
                "possible values",
            ] {
                assert!(!help.contains(english), "{english:?} in:\n{help}");
            }
        }
        assert!(all[0].contains("Использование: clientbank"), "{}", all[0]);
        assert!(all[0].contains("Команды:"), "{}", all[0]);
    }

    #[test]
    fn the_language_is_found_before_clap_parses() {
        let args = |list: &[&str]| -> Vec<std::ffi::OsString> {
            list.iter().map(std::ffi::OsString::from).collect()
        };
        assert_eq!(lang_of(&args(&["cb", "--lang", "ru", "--help"])), Lang::Ru);
        assert_eq!(
            lang_of(&args(&["cb", "check", "--lang=ru", "-h"])),
            Lang::Ru
        );
        assert_eq!(lang_of(&args(&["cb", "--lang", "en", "--help"])), Lang::En);
    }
}
