//! clap's own errors (an unknown flag, a missing argument, a value that is not a date) in
//! Russian when the command line's language is Russian (issue 19 item 8): clap writes them in
//! English only. What clap knows of the error (the argument, the value, the valid values, a
//! suggestion) is said again in Russian; the exit code stays clap's (2).

use std::error::Error as _;

use clap::error::{ContextKind, ContextValue, Error, ErrorKind};

use crate::term::Lang;

/// A value one of our parsers refused (`--from 31.02.2026`, `--route xyz`): why, in both
/// languages.
#[derive(Debug)]
pub(crate) struct BadValue(pub(crate) clientbank_format::Message);

impl std::fmt::Display for BadValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.en())
    }
}

impl std::error::Error for BadValue {}

/// Says `e` and exits: help and version as clap writes them (already in the language), an
/// error in Russian when `lang` is Russian, else as clap says it.
pub(crate) fn exit(e: Error, lang: Lang) -> ! {
    if lang == Lang::Ru
        && let Some(said) = in_russian(&e)
    {
        crate::term::err_line(&said);
        std::process::exit(e.exit_code());
    }
    e.exit()
}

/// The Russian of a parse error; `None` for help, version and what clap only prints.
pub(crate) fn in_russian(e: &Error) -> Option<String> {
    let text = |kind| e.get(kind).map(ContextValue::to_string);
    let arg = text(ContextKind::InvalidArg).unwrap_or_default();
    let value = text(ContextKind::InvalidValue).unwrap_or_default();
    let mut said = match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        | ErrorKind::DisplayVersion => return None,
        ErrorKind::UnknownArgument => format!("неизвестный аргумент «{arg}»"),
        ErrorKind::InvalidSubcommand => {
            let name = text(ContextKind::InvalidSubcommand).unwrap_or_default();
            format!("неизвестная команда «{name}»")
        }
        ErrorKind::MissingSubcommand => "не указана команда".to_string(),
        ErrorKind::MissingRequiredArgument => {
            format!("не указаны обязательные аргументы: {arg}")
        }
        ErrorKind::ArgumentConflict => {
            let prior = text(ContextKind::PriorArg).unwrap_or_default();
            format!("аргумент «{arg}» нельзя указывать вместе с «{prior}»")
        }
        ErrorKind::InvalidValue if value.is_empty() => {
            format!("для «{arg}» нужно значение, а оно не указано")
        }
        ErrorKind::InvalidValue => {
            let valid = text(ContextKind::ValidValue).unwrap_or_default();
            format!("«{value}» не подходит для «{arg}»; можно: {valid}")
        }
        ErrorKind::ValueValidation => {
            let why = e.source().map(why_in_russian).unwrap_or_default();
            format!("неверное значение «{value}» для «{arg}»: {why}")
        }
        ErrorKind::TooManyValues => format!("лишнее значение «{value}» для «{arg}»"),
        ErrorKind::TooFewValues | ErrorKind::WrongNumberOfValues => {
            format!("не то число значений для «{arg}»")
        }
        ErrorKind::NoEquals => format!("значение «{arg}» указывается через «=»"),
        _ => return None,
    };
    said.insert_str(0, "ошибка: ");
    let suggested = [ContextKind::SuggestedArg, ContextKind::SuggestedSubcommand]
        .into_iter()
        .find_map(text);
    if let Some(suggested) = suggested {
        said.push_str(&format!("\n\n  подсказка: может быть, «{suggested}»?"));
    }
    if let Some(usage) = text(ContextKind::Usage) {
        let usage = usage.replacen("Usage:", "Использование:", 1);
        said.push_str(&format!("\n\n{usage}"));
    }
    said.push_str("\n\nПодробнее: --help");
    Some(said)
}

/// Why a value parser refused a value, in Russian: ours say it in both languages, the standard
/// library's (a number, an address) only in English.
fn why_in_russian(source: &(dyn std::error::Error + 'static)) -> String {
    use std::num::{IntErrorKind, ParseFloatError, ParseIntError};
    if let Some(BadValue(said)) = source.downcast_ref::<BadValue>() {
        return said.ru().to_string();
    }
    if let Some(e) = source.downcast_ref::<ParseIntError>() {
        return match e.kind() {
            IntErrorKind::Empty => "пустое значение, а нужно целое число".to_string(),
            IntErrorKind::PosOverflow => "слишком большое число".to_string(),
            IntErrorKind::NegOverflow => "слишком маленькое число".to_string(),
            IntErrorKind::Zero => "нужно число больше нуля".to_string(),
            _ => "нужно целое число (только цифры)".to_string(),
        };
    }
    if source.downcast_ref::<ParseFloatError>().is_some() {
        return "нужно число (например, 1 или 0.5)".to_string();
    }
    if source.downcast_ref::<std::net::AddrParseError>().is_some() {
        return "нужен адрес вида IP:порт (например, 127.0.0.1:8080)".to_string();
    }
    source.to_string()
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::cli::Cli;

    fn russian(args: &[&str]) -> String {
        let e = Cli::command()
            .try_get_matches_from(args)
            .expect_err("the arguments are wrong");
        in_russian(&e).expect("said in Russian")
    }

    #[test]
    fn parse_errors_are_said_in_russian_with_what_clap_knows() {
        let said = russian(&["clientbank", "check", "--strikt", "a.txt"]);
        assert!(
            said.starts_with("ошибка: неизвестный аргумент «--strikt»"),
            "{said}"
        );
        assert!(
            said.contains("подсказка: может быть, «--strict»?"),
            "{said}"
        );
        assert!(said.contains("Использование: clientbank check"), "{said}");
        let said = russian(&["clientbank", "chek"]);
        assert!(said.contains("неизвестная команда «chek»"), "{said}");
        assert!(said.contains("«check»"), "{said}");
        let said = russian(&["clientbank", "check"]);
        assert!(
            said.contains("не указаны обязательные аргументы: <FILES>"),
            "{said}"
        );
        let said = russian(&["clientbank", "convert", "a.txt", "--to", "xml"]);
        assert!(
            said.contains("«xml» не подходит для «--to <TO>»; можно: "),
            "{said}"
        );
        let said = russian(&["clientbank", "check", "--json", "--json-lines", "a.txt"]);
        assert!(said.contains("нельзя указывать вместе"), "{said}");
    }

    #[test]
    fn a_day_that_is_no_date_is_said_in_russian() {
        let said = russian(&["clientbank", "check", "--today", "31.02.2026", "a.txt"]);
        assert!(
            said.contains(
                "неверное значение «31.02.2026» для «--today <TODAY>»: «31.02.2026» не дата"
            ),
            "{said}"
        );
    }

    #[test]
    fn value_parsers_refusals_are_said_in_russian() {
        let cases: [(&[&str], &str, &str); 5] = [
            (
                &["clientbank", "upload", "--route", "xyz", "a.txt"],
                "нужно auto, json или 1c",
                "expected",
            ),
            (
                &["clientbank", "login", "--timeout", "abc"],
                "нужно целое число",
                "invalid digit",
            ),
            (
                &["clientbank", "sandbox", "--addr", "foo"],
                "нужен адрес вида IP:порт",
                "invalid socket address",
            ),
            (
                &["clientbank", "watch", "--metrics", "x", "."],
                "нужен адрес вида IP:порт",
                "invalid socket address",
            ),
            (
                &["clientbank", "sandbox", "--time-scale", "abc"],
                "нужно число",
                "invalid float",
            ),
        ];
        for (args, russian_text, english) in cases {
            let said = russian(args);
            assert!(said.contains(russian_text), "{args:?}: {said}");
            assert!(!said.contains(english), "{args:?}: {said}");
        }
    }

    #[test]
    fn help_and_version_are_left_to_clap() {
        let e = Cli::command()
            .try_get_matches_from(["clientbank", "--version"])
            .unwrap_err();
        assert_eq!(in_russian(&e), None);
    }
}
