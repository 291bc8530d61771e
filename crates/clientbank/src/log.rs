//! The daemon's log lines on a terminal or in a text log (issue 19 item 8): the local time
//! and plain words — `16.11.2026 12:30:05 ошибка: … (файл: 1c_to_kl.txt)` — instead of
//! `2026-11-16T09:30:05.123Z ERROR … file=1c_to_kl.txt`. JSON logs stay as they were.

use std::fmt::{self, Write as _};

use chrono::{DateTime, Local, TimeZone, Utc};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

use clientbank_watch::engine::label_in;

use crate::term::{Lang, lang};

/// A moment as people read it where they are: `16.11.2026 12:30:05` (Russian) or
/// `2026-11-16 12:30:05`.
pub(crate) fn shown<Tz: TimeZone>(at: DateTime<Utc>, zone: &Tz) -> String
where
    Tz::Offset: fmt::Display,
{
    let local = at.with_timezone(zone);
    match lang() {
        Lang::Ru => local.format("%d.%m.%Y %H:%M:%S").to_string(),
        _ => local.format("%Y-%m-%d %H:%M:%S").to_string(),
    }
}

/// A journal's UTC time (`2026-11-16T09:30:05Z`) in local time; as it is when unreadable.
pub(crate) fn local_time(at: &str) -> String {
    match DateTime::parse_from_rfc3339(at) {
        Ok(at) => shown(at.with_timezone(&Utc), &Local),
        Err(_) => at.to_string(),
    }
}

/// The text format of log lines, in the language given.
pub(crate) struct Plain(pub(crate) Lang);

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let ru = self.0 == Lang::Ru;
        let level = match (*event.metadata().level(), ru) {
            (Level::ERROR, false) => "error: ",
            (Level::ERROR, true) => "ошибка: ",
            (Level::WARN, false) => "warning: ",
            (Level::WARN, true) => "предупреждение: ",
            (Level::INFO, _) => "",
            (_, false) => "debug: ",
            (_, true) => "отладка: ",
        };
        let mut fields = Fields {
            lang: self.0,
            message: String::new(),
            ru: None,
            rest: Vec::new(),
        };
        event.record(&mut fields);
        let message = match (ru, &fields.ru) {
            (true, Some(said)) => said,
            (true, None) => said_ru(&fields.message).unwrap_or(&fields.message),
            (false, _) => &fields.message,
        };
        write!(writer, "{} ", shown(Utc::now(), &Local))?;
        // One of many folders (`watch --root`): its name first.
        for span in ctx.event_scope().into_iter().flatten() {
            let extensions = span.extensions();
            let fields = extensions.get::<tracing_subscriber::fmt::FormattedFields<N>>();
            if let Some(folder) = fields.and_then(|f| f.fields.strip_prefix("folder=")) {
                write!(writer, "[{folder}] ")?;
            }
        }
        write!(writer, "{level}{message}")?;
        if !fields.rest.is_empty() {
            write!(writer, " ({})", fields.rest.join(", "))?;
        }
        writeln!(writer)
    }
}

/// The message of an event, its Russian (the field `ru` of [`clientbank_format::say`]) and its
/// other fields as `name: value`.
struct Fields {
    lang: Lang,
    message: String,
    ru: Option<String>,
    rest: Vec<String>,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        match field.name() {
            "message" => {
                let _ = write!(self.message, "{value:?}");
            }
            "ru" => self.ru = Some(format!("{value:?}")),
            name => self
                .rest
                .push(named(name, &format!("{value:?}"), self.lang)),
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "message" => self.message.push_str(value),
            "ru" => self.ru = Some(value.to_string()),
            name => self.rest.push(named(name, value, self.lang)),
        }
    }
}

/// The Russian of the daemon's fixed log messages (those with a changing text carry their
/// Russian in the field `ru`).
fn said_ru(message: &str) -> Option<&'static str> {
    Some(match message {
        "watching" => "слежу за папкой",
        "stopped" => "остановлен",
        "claimed" => "взят в работу",
        "intents recorded" => "намерения записаны в журнал",
        "payment uploaded" => "платёж загружен",
        "payments signed" => "платежи подписаны",
        "moved" => "перенесён",
        "moved at last" => "наконец перенесён",
        "rejected: nothing sent" => "отклонён: ничего не отправлено",
        "not sent: the same payment is active in another file" => {
            "не отправлен: тот же платёж в работе в другом файле"
        }
        "journal started anew: file moved to review/" => {
            "журнал начат заново: файл перенесён в review/"
        }
        "configuration changed: read again" => "настройки изменились: прочитаны заново",
        "the bank takes the token again: uploads go on" => {
            "банк снова принимает токен: загрузка продолжается"
        }
        "the built-in sandbox bank runs in-process" => "встроенный тестовый банк запущен",
        "webhook listener" => "приём вебхуков",
        "a new operation" => "новая операция",
        "webhook: new operation recorded" => "вебхук: новая операция записана",
        "the notified operation names no account (bankAccountNumber)" => {
            "в уведомлении об операции нет счёта (bankAccountNumber)"
        }
        "webhook: received again, already recorded" => "вебхук: получен снова, уже записан",
        "payments found in flight at start: in doubt, never re-sent" => {
            "при запуске найдены платежи, которые отправлялись: они под сомнением и повторно не \
             отправляются"
        }
        "1C file uploaded as drafts" => "файл 1С загружен черновиками",
        "no longer served (removed, or its clientbank.toml is gone): stopping it" => {
            "больше не обслуживается (папка удалена или в ней нет clientbank.toml): останавливаю"
        }
        "metrics served at /metrics" => "метрики отдаются по адресу /metrics",
        _ => return None,
    })
}

/// `name: value` in the language: a company's label says `ИНН` in Russian.
fn named(name: &str, value: &str, lang: Lang) -> String {
    match (name, lang) {
        ("company", _) => format!("{}: {}", word(name, lang), label_in(value, lang)),
        // A sum as the report and the notes write it: a decimal comma in Russian.
        ("sum" | "amount", _) => format!(
            "{}: {}",
            word(name, lang),
            clientbank_watch::report::sum_in(value, lang)
        ),
        // The route's code (`json`, `1c`) in words.
        ("route", Lang::Ru) => {
            use clientbank_bank::config::Route;
            let route = match value.parse::<Route>() {
                Ok(Route::Json) => "запросы JSON",
                Ok(Route::OneC) => "файл 1С",
                Ok(Route::Auto) | Err(_) => value,
            };
            format!("{}: {route}", word(name, lang))
        }
        _ => format!("{}: {value}", word(name, lang)),
    }
}

/// A field's name as a word of the language.
fn word(name: &str, lang: Lang) -> &str {
    if lang != Lang::Ru {
        return name;
    }
    match name {
        "file" => "файл",
        "to" => "куда",
        "company" => "компания",
        "count" => "сколько",
        "url" => "адрес",
        "addr" => "адрес",
        "dir" => "папка",
        "error" => "ошибка",
        "account" => "счёт",
        "number" => "номер",
        "sum" => "сумма",
        "route" => "путь",
        "payments" => "платежей",
        "errors" => "ошибок",
        "operation" => "операция",
        "remote" => "откуда",
        "folder" => "папка",
        "state" => "состояние",
        "amount" => "сумма",
        "category" => "вид",
        "executed" => "проведена",
        "id" => "id",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use chrono::FixedOffset;

    use super::*;

    #[test]
    fn a_moment_is_shown_in_the_zone_given() {
        let at = DateTime::parse_from_rfc3339("2026-11-16T21:30:05Z")
            .unwrap()
            .with_timezone(&Utc);
        let moscow = FixedOffset::east_opt(3 * 3600).unwrap();
        // Language English (the settings were not chosen in this test).
        assert_eq!(shown(at, &moscow), "2026-11-17 00:30:05");
        assert_eq!(local_time("not a time"), "not a time");
    }

    /// The lines `Plain` writes, in `lang`, for what `emit` logs.
    fn lines(lang: Lang, emit: impl FnOnce()) -> String {
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let writer = {
            let out = out.clone();
            move || Sink(out.clone())
        };
        let subscriber = tracing_subscriber::fmt()
            .event_format(Plain(lang))
            .with_writer(writer)
            .finish();
        tracing::subscriber::with_default(subscriber, emit);
        let bytes = out.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    struct Sink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_line_with_changing_text_is_shown_in_the_language_of_the_log() {
        let emit = || {
            let n = 3;
            let said = clientbank_format::tr!("{n} file(s) waiting" ; "файлов ждут: {n}");
            clientbank_format::say!(warn, said, count = n);
            tracing::info!("claimed");
        };
        let ru = lines(Lang::Ru, emit);
        assert!(ru.contains("предупреждение: файлов ждут: 3"), "{ru}");
        assert!(ru.contains("взят в работу"), "{ru}");
        assert!(!ru.contains("waiting") && !ru.contains("ru:"), "{ru}");
        let en = lines(Lang::En, emit);
        assert!(en.contains("warning: 3 file(s) waiting"), "{en}");
        assert!(!en.contains("файлов") && !en.contains("ru:"), "{en}");
    }

    #[test]
    fn a_sum_has_a_decimal_comma_in_russian() {
        let emit = || tracing::info!(sum = %"175000.00", "payment uploaded");
        let ru = lines(Lang::Ru, emit);
        assert!(ru.contains("сумма: 175000,00"), "{ru}");
        let en = lines(Lang::En, emit);
        assert!(en.contains("sum: 175000.00"), "{en}");
    }

    #[test]
    fn a_company_is_labelled_in_the_language_of_the_log() {
        let emit = || {
            let said = clientbank_format::Message::new("payments signed", "платежи подписаны");
            clientbank_format::say!(info, said, company = %"ООО \"Ромашка\" (INN 7701234560)");
        };
        let ru = lines(Lang::Ru, emit);
        assert!(
            ru.contains("компания: ООО \"Ромашка\" (ИНН 7701234560)"),
            "{ru}"
        );
        assert!(!ru.contains("INN"), "{ru}");
        let en = lines(Lang::En, emit);
        assert!(
            en.contains("company: ООО \"Ромашка\" (INN 7701234560)"),
            "{en}"
        );
    }

    #[test]
    fn a_route_is_said_in_words_in_russian() {
        let emit = || {
            let said = clientbank_format::Message::new("uploaded", "загружен");
            clientbank_format::say!(info, said, route = %"1c");
        };
        assert!(lines(Lang::Ru, emit).contains("путь: файл 1С"));
        assert!(lines(Lang::En, emit).contains("route: 1c"));
    }
}
