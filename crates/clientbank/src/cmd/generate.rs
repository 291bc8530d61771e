//! `clientbank completions SHELL` and `clientbank man`: generated from the clap definition,
//! so they cannot drift from it.

use std::io::{self, Write};

use clap::CommandFactory;

use crate::cli::Cli;
use crate::exit::{Failure, Outcome};
use crate::term::tr;

/// `completions`' argument.
#[derive(Debug, clap::Args)]
pub(crate) struct Completions {
    /// The shell.
    pub(crate) shell: clap_complete::Shell,
}

pub(crate) fn completions(shell: clap_complete::Shell) -> Result<Outcome, Failure> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    clap_complete::generate(shell, &mut Cli::command(), "clientbank", &mut out);
    out.flush()?;
    Ok(Outcome::Clean)
}

pub(crate) fn man() -> Result<Outcome, Failure> {
    let mut page = Vec::new();
    man_page(&mut page)?;
    let page = String::from_utf8_lossy(&page);
    let mut out = io::BufWriter::new(io::stdout().lock());
    out.write_all(sections_in(&page, crate::term::lang()).as_bytes())?;
    out.flush()?;
    Ok(Outcome::Clean)
}

/// The page with clap_mangen's section names (`.SH DESCRIPTION`) in `lang`: they are written
/// in English whatever the texts under them are.
fn sections_in(page: &str, lang: crate::term::Lang) -> std::borrow::Cow<'_, str> {
    if lang != crate::term::Lang::Ru {
        return page.into();
    }
    const NAMES: [(&str, &str); 6] = [
        ("NAME", "ИМЯ"),
        ("SYNOPSIS", "ОБЗОР"),
        ("DESCRIPTION", "ОПИСАНИЕ"),
        ("OPTIONS", "ПАРАМЕТРЫ"),
        ("EXTRA", "ДОПОЛНИТЕЛЬНО"),
        ("VERSION", "ВЕРСИЯ"),
    ];
    page.lines()
        .map(|line| {
            let name = line.strip_prefix(".SH ").unwrap_or_default();
            match NAMES.iter().find(|(en, _)| *en == name) {
                Some((_, ru)) => format!(".SH {ru}\n"),
                None => format!("{line}\n"),
            }
        })
        .collect::<String>()
        .into()
}

/// The one page, in the run's language (`--help`'s texts): the commands are its sections
/// (`clientbank parse`), not pages of their own.
fn man_page(mut out: impl Write) -> io::Result<()> {
    let lang = crate::term::lang();
    let command = crate::help_ru::localize(Cli::command(), lang);
    let top = clap_mangen::Man::new(command.clone());
    top.render_title(&mut out)?;
    top.render_name_section(&mut out)?;
    top.render_synopsis_section(&mut out)?;
    top.render_description_section(&mut out)?;
    top.render_options_section(&mut out)?;
    // The commands are sections of this page, not pages of their own (none is installed):
    // clap_mangen's list would name clientbank-parse(1) and the like.
    writeln!(out, ".SH {}", tr("COMMANDS", "КОМАНДЫ"))?;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name();
        if name == "help" {
            continue;
        }
        writeln!(out, ".TP\n\\fBclientbank {}\\fR", roff(name))?;
        let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
        let section = roff(&format!("CLIENTBANK {}", name.to_uppercase()));
        let see = tr(
            format!("(see {section} below)"),
            format!("(см. {section} ниже)"),
        );
        writeln!(out, "{} {see}", roff(&about))?;
    }
    top.render_extra_section(&mut out)?;
    configuration_section(&mut out)?;
    top.render_version_section(&mut out)?;
    // One section per visible subcommand, with its options and examples.
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        // `clientbank parse`, as it is typed: no program or page `clientbank-parse` exists.
        let name = format!("clientbank {}", sub.get_name());
        let sub = sub
            .clone()
            .display_name(name.clone())
            .bin_name(name.clone());
        writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
        let man = clap_mangen::Man::new(sub);
        man.render_synopsis_section(&mut out)?;
        man.render_description_section(&mut out)?;
        man.render_options_section(&mut out)?;
        man.render_extra_section(&mut out)?;
    }
    Ok(())
}

/// CONFIGURATION and FILES: the commented `clientbank.toml` that `clientbank init` writes,
/// as it is (the one list of keys, their defaults and what they are for).
fn configuration_section(out: &mut impl Write) -> io::Result<()> {
    writeln!(out, ".SH {}", tr("CONFIGURATION", "НАСТРОЙКИ"))?;
    let said = tr(
        "DIR/clientbank.toml (or \\-\\-config FILE), as \\fBclientbank init DIR\\fR writes it: \
         every key, its default and what it is for. Environment variables (CLIENTBANK_TOKEN, \
         CLIENTBANK_BASE_URL, ...) override it; flags override both.",
        "DIR/clientbank.toml (или \\-\\-config FILE) в том виде, в каком его пишет \
         \\fBclientbank init DIR\\fR: каждый ключ, его значение по умолчанию и для чего он. \
         Переменные окружения (CLIENTBANK_TOKEN, CLIENTBANK_BASE_URL, ...) важнее файла; \
         параметры командной строки важнее и того и другого.",
    );
    writeln!(out, "{said}")?;
    writeln!(out, ".PP\n.nf")?;
    for line in clientbank_watch::init::TEMPLATE.lines() {
        writeln!(out, "\\&{}", roff(line))?;
    }
    writeln!(out, ".fi")?;
    writeln!(out, ".SH {}", tr("FILES", "ФАЙЛЫ"))?;
    for (path, what, what_ru) in [
        (
            "DIR/clientbank.toml",
            "the configuration (above)",
            "настройки (выше)",
        ),
        (
            "DIR/inbox/, processing/, done/, rejected/, review/, outbox/",
            "the exchange folders of \\fBclientbank watch\\fR",
            "папки обмена \\fBclientbank watch\\fR",
        ),
        ("DIR/.clientbank/journal.sqlite", "the journal", "журнал"),
        (
            "DIR/.clientbank/lock",
            "held by the daemon while it works on DIR",
            "его держит демон, пока работает с DIR",
        ),
    ] {
        writeln!(out, ".TP\n{}\n{}", roff(path), tr(what, what_ru))?;
    }
    Ok(())
}

/// Text for roff: backslashes and hyphens escaped.
fn roff(text: &str) -> String {
    text.replace('\\', "\\e").replace('-', "\\-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_man_page_names_only_what_exists() {
        let mut page = Vec::new();
        man_page(&mut page).unwrap();
        let page = String::from_utf8(page).unwrap();
        // roff writes a hyphen as `\-`: neither form of `clientbank-parse` may appear.
        let plain = page.replace("\\-", "-");
        for sub in Cli::command().get_subcommands() {
            let name = sub.get_name();
            assert!(
                !plain.contains(&format!("clientbank-{name}")),
                "clientbank-{name} named"
            );
        }
        // (The demo's folder `clientbank-demo` in an example is no page.)
        let plain = plain.replace("clientbank-demo", "");
        assert!(!plain.to_lowercase().contains("clientbank-"), "{plain}");
        assert!(page.contains(".SH SYNOPSIS"), "{page}");
        assert!(page.contains("\\fBclientbank parse\\fR"), "{page}");
        assert!(page.contains(".SH \"CLIENTBANK PARSE\""), "{page}");
        // No other page is referred to: no SEE ALSO, no `NAME(1)` of a page not installed.
        assert!(!page.contains("SEE ALSO"), "{page}");
        assert!(!page.contains("(1)"), "{page}");
    }
}
