//! `clientbank resolve DIR FILE [--sent [N…]] [--not-sent [N…]]`.

use std::path::PathBuf;

use clientbank_watch::commands;

use crate::exit::{Failure, Outcome};

/// The arguments (the doc comments are `--help`'s English; `help_ru` has the Russian).
/// `--sent` or `--not-sent` (or both): either will do, one is needed.
#[derive(Debug, clap::Args)]
#[command(group(
    clap::ArgGroup::new("answer").args(["sent", "not_sent"]).required(true).multiple(true)
))]
pub(crate) struct Args {
    /// The exchange folder.
    pub(crate) dir: PathBuf,
    /// The file's name in review/.
    pub(crate) file: String,
    /// These payments in doubt (document numbers; none: all) are at the bank.
    #[arg(long, num_args = 0.., value_name = "N")]
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
    crate::term::outln!("{said}")?;
    Ok(Outcome::Clean)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use crate::cli::Cli;

    #[test]
    fn neither_answer_asks_for_either() {
        let e = Cli::command()
            .try_get_matches_from(["clientbank", "resolve", "d", "f.txt"])
            .expect_err("an answer is needed");
        let en = e.to_string();
        assert!(en.contains("--sent") && en.contains("--not-sent"), "{en}");
        let ru = crate::parse_error::in_russian(&e).unwrap();
        assert!(ru.contains("--sent") && ru.contains("--not-sent"), "{ru}");
        for answer in [
            &["--sent"][..],
            &["--not-sent"],
            &["--sent", "1", "--not-sent", "2"],
        ] {
            let mut args = vec!["clientbank", "resolve", "d", "f.txt"];
            args.extend(answer);
            assert!(
                Cli::command().try_get_matches_from(args).is_ok(),
                "{answer:?}"
            );
        }
    }
}
