//! odin_palace reading a file as a whole process, to pair with the `clientbank` commands' figures
//! under GNU time (issue 21): reads the file, parses it whole, prints how many documents it holds.
//!
//! ```sh
//! /usr/bin/time -f "%e s %U user %M KB" target/release/odin-read /tmp/s1m.txt
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: odin-read FILE");
        return ExitCode::from(2);
    };
    let shown = std::path::Path::new(&path).display().to_string();
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("{shown}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let parser = odin_palace::parser::ParserBuilder::new().build();
    match parser.parse(&bytes) {
        Ok(file) => {
            println!("{shown}: {} documents", file.documents.len());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{shown}: odin_palace refuses it: {e:?}");
            ExitCode::FAILURE
        }
    }
}
