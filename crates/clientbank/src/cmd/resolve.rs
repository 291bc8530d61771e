//! `clientbank resolve DIR FILE [--sent [N…]] [--not-sent [N…]]`.

use std::path::PathBuf;

use clientbank_watch::commands;

use crate::exit::{Failure, Outcome};

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The exchange folder.
    pub(crate) dir: PathBuf,
    /// The file's name in review/.
    pub(crate) file: String,
    /// These payments in doubt (document numbers; none: all) are at the bank.
    #[arg(long, num_args = 0.., value_name = "N", required_unless_present = "not_sent")]
    pub(crate) sent: Option<Vec<String>>,
    /// These payments in doubt (document numbers; none: all) are not at the bank.
    #[arg(long, num_args = 0.., value_name = "N")]
    pub(crate) not_sent: Option<Vec<String>>,
}

pub(crate) fn run(args: Args) -> Result<Outcome, Failure> {
    let settlement = commands::Settlement {
        sent: args.sent,
        not_sent: args.not_sent,
    };
    let said = commands::settle(&args.dir, &args.file, &settlement, crate::term::lang())?;
    println!("{said}");
    Ok(Outcome::Clean)
}
