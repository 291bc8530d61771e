//! `clientbank completions SHELL` and `clientbank man`: generated from the clap definition,
//! so they cannot drift from it.

use std::io::{self, Write};

use clap::CommandFactory;

use crate::cli::Cli;
use crate::exit::{Failure, Outcome};

pub(crate) fn completions(shell: clap_complete::Shell) -> Result<Outcome, Failure> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    clap_complete::generate(shell, &mut Cli::command(), "clientbank", &mut out);
    out.flush()?;
    Ok(Outcome::Clean)
}

pub(crate) fn man() -> Result<Outcome, Failure> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    // One section per visible subcommand, with its options and examples.
    for sub in Cli::command()
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
    {
        let name = format!("clientbank-{}", sub.get_name());
        let sub = sub.clone().name(name.clone()).bin_name(name);
        writeln!(out, ".SH \"{}\"", sub.get_name().to_uppercase())?;
        let man = clap_mangen::Man::new(sub);
        man.render_synopsis_section(&mut out)?;
        man.render_description_section(&mut out)?;
        man.render_options_section(&mut out)?;
        man.render_extra_section(&mut out)?;
    }
    out.flush()?;
    Ok(Outcome::Clean)
}
