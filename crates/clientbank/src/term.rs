//! What the binary says to people: the language of its own messages, one error prefix,
//! colour on a terminal, and a progress bar for long work.
//!
//! The settings are chosen once, from the flags, at the start of `main`.

use std::io::{self, IsTerminal, Write};
use std::sync::OnceLock;

use anstyle::{AnsiColor, Style};

use crate::cli::{Color, Global, LangArg};

/// The language of every text people read: the findings' and the binary's own.
pub(crate) use clientbank_format::Lang;

struct Settings {
    lang: Lang,
    color_out: bool,
    color_err: bool,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// Chooses the language and colours from the flags and the environment.
pub(crate) fn init(global: &Global) {
    let lang = match global.lang {
        Some(LangArg::Ru) => Lang::Ru,
        Some(LangArg::En) => Lang::En,
        None => Lang::from_locale(),
    };
    let choice = match global.color {
        Color::Auto => anstream::ColorChoice::Auto,
        Color::Always => anstream::ColorChoice::Always,
        Color::Never => anstream::ColorChoice::Never,
    };
    choice.write_global();
    // `Auto` looks at NO_COLOR, CLICOLOR_FORCE, TERM and whether the stream is a terminal.
    let on = |choice: anstream::ColorChoice| !matches!(choice, anstream::ColorChoice::Never);
    let _ = SETTINGS.set(Settings {
        lang,
        color_out: on(anstream::AutoStream::choice(&io::stdout())),
        color_err: on(anstream::AutoStream::choice(&io::stderr())),
    });
}

fn settings() -> &'static Settings {
    SETTINGS.get_or_init(|| Settings {
        lang: Lang::En,
        color_out: false,
        color_err: false,
    })
}

/// The language chosen.
pub(crate) fn lang() -> Lang {
    settings().lang
}

/// The text in the language chosen.
pub(crate) fn tr(en: impl Into<String>, ru: impl Into<String>) -> String {
    match lang() {
        Lang::Ru => ru.into(),
        _ => en.into(),
    }
}

/// Which stream a text goes to (their colour is decided apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stream {
    Out,
    Err,
}

fn colored(stream: Stream) -> bool {
    match stream {
        Stream::Out => settings().color_out,
        Stream::Err => settings().color_err,
    }
}

const ERROR: Style = AnsiColor::Red.on_default().bold();
const WARNING: Style = AnsiColor::Yellow.on_default().bold();
const NOTE: Style = AnsiColor::Cyan.on_default().bold();
const GUTTER: Style = AnsiColor::Blue.on_default().bold();
const BOLD: Style = Style::new().bold();

/// The one error prefix of every message that is not a finding: `error:` or `ошибка:`.
pub(crate) fn error_prefix() -> &'static str {
    match lang() {
        Lang::Ru => "ошибка:",
        _ => "error:",
    }
}

/// The one warning prefix: `warning:` or `предупреждение:`.
pub(crate) fn warning_prefix() -> &'static str {
    match lang() {
        Lang::Ru => "предупреждение:",
        _ => "warning:",
    }
}

/// A line on stdout, as `println!` prints it but never panicking: the error (the reader gone,
/// `| head -1`; a full disk) is the caller's to end on, with `?` into
/// [`crate::exit::Failure::Output`] (a broken pipe ends quietly).
pub(crate) fn out_line(line: std::fmt::Arguments<'_>) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_fmt(line)?;
    out.write_all(b"\n")
}

/// `println!` that does not panic: [`out_line`] of its `format!` arguments, an `io::Result`.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::term::out_line(format_args!($($arg)*))
    };
}
pub(crate) use outln;

/// A line on stderr, as `eprintln!` prints it but never panicking: an error writing it (stderr
/// closed or on a full disk) is ignored, there being nowhere else to say it.
pub(crate) fn err_line(line: &str) {
    let mut err = io::stderr().lock();
    let _ = err
        .write_all(line.as_bytes())
        .and_then(|()| err.write_all(b"\n"));
}

/// Whether stdout and stderr are both the terminal: a person sees the two streams as one, so a
/// line in the report needs no copy on stderr.
pub(crate) fn one_screen() -> bool {
    io::stdout().is_terminal() && io::stderr().is_terminal()
}

/// `error: MESSAGE` on stderr (coloured on a terminal).
pub(crate) fn error(message: &str) {
    let line = format!("{} {message}\n", error_prefix());
    let _ = io::stderr()
        .lock()
        .write_all(paint(&line, Stream::Err).as_bytes());
}

/// `warning: MESSAGE` on stderr.
pub(crate) fn warning(message: &str) {
    let line = format!("{} {message}\n", warning_prefix());
    let _ = io::stderr()
        .lock()
        .write_all(paint(&line, Stream::Err).as_bytes());
}

/// Colours rendered findings and messages for `stream` when it is coloured: the
/// `error[code]`/`warning[code]` heads and prefixes, the `-->` location, the gutter, the
/// carets, `= note`. Without colour the text is returned as it is.
pub(crate) fn paint(text: &str, stream: Stream) -> std::borrow::Cow<'_, str> {
    if !colored(stream) {
        return text.into();
    }
    paint_always(text).into()
}

fn paint_always(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut severity = ERROR;
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        let head = [
            ("error", ERROR),
            ("ошибка", ERROR),
            ("warning", WARNING),
            ("предупреждение", WARNING),
        ]
        .into_iter()
        .find_map(|(word, style)| {
            let rest = body.strip_prefix(word)?;
            let cut = if rest.starts_with('[') {
                rest.find("]:").map(|i| word.len() + i + 2)?
            } else if rest.starts_with(':') {
                word.len() + 1
            } else {
                return None;
            };
            Some((cut, style))
        });
        if let Some((cut, style)) = head {
            severity = style;
            let (prefix, message) = body.split_at(cut);
            out.push_str(&format!(
                "{style}{prefix}{style:#}{BOLD}{message}{BOLD:#}{end}"
            ));
            continue;
        }
        let trimmed = body.trim_start();
        let indent = &body[..body.len() - trimmed.len()];
        if let Some(rest) = trimmed.strip_prefix("-->") {
            out.push_str(&format!("{indent}{GUTTER}-->{GUTTER:#}{rest}{end}"));
        } else if let Some(rest) = trimmed.strip_prefix("= ") {
            out.push_str(&format!("{indent}{NOTE}={NOTE:#} {rest}{end}"));
        } else if let Some((gutter, rest)) = body.split_once(" |")
            && gutter.trim().chars().all(|c| c.is_ascii_digit())
        {
            let rest = match rest.find('^') {
                Some(i) if rest[..i].trim().is_empty() => {
                    let (space, marks) = rest.split_at(i);
                    let carets = marks.len() - marks.trim_start_matches('^').len();
                    let (carets, label) = marks.split_at(carets);
                    format!("{space}{severity}{carets}{label}{severity:#}")
                }
                _ => rest.to_string(),
            };
            out.push_str(&format!("{GUTTER}{gutter} |{GUTTER:#}{rest}{end}"));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// A progress bar on stderr for long work, or nothing: only when stderr is a terminal that
/// the report does not share (stdout redirected, or `report_on_terminal` false), and never
/// for JSON output.
pub(crate) fn progress(len: u64, report_on_terminal: bool, json: bool) -> indicatif::ProgressBar {
    if json || !io::stderr().is_terminal() || report_on_terminal {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{prefix:>10} [{bar:30}] {percent:>3}% {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn painting_colours_heads_gutters_and_carets_only() {
        let text = "error[invalid-sum]: `Сумма` is not a valid amount: 1,50\n  --> a.txt:15:7\n   |\n15 | Сумма=1,50\n   |       ^^^^ expected rubles\n   = note: file read as CP1251\n";
        let painted = paint_always(text);
        assert!(painted.contains("\u{1b}["), "{painted}");
        // Taking the escapes out gives the text back.
        let plain: String = anstream::adapter::strip_str(&painted).to_string();
        assert_eq!(plain, text);
        assert!(painted.starts_with(&format!("{ERROR}error[invalid-sum]:{ERROR:#}")));
        let plain_line = "a.txt: ok (0 error(s), 1 warning(s))\n";
        assert_eq!(paint_always(plain_line), plain_line);
    }
}
