//! Whether a command's program can be found, without running it: a command that runs on an
//! event (`[notify]`) is not tried at start as the signer is (that would tell a person of
//! nothing), so a program that is not there is found here and said when the settings are read.

use std::path::Path;

/// Whether `program` names a file that can be run: a path (with a folder) that is a file, or a
/// name found in one of `PATH`'s folders (on Windows with one of `PATHEXT`'s endings too).
pub(super) fn findable(program: &str, path_var: Option<&std::ffi::OsStr>) -> bool {
    let given = Path::new(program);
    if given.is_absolute() || given.components().count() > 1 {
        return given.is_file();
    }
    let endings: Vec<String> = if cfg!(windows) {
        let pathext = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
        std::iter::once(String::new())
            .chain(pathext.split(';').map(str::to_string))
            .collect()
    } else {
        vec![String::new()]
    };
    path_var.is_some_and(|folders| {
        std::env::split_paths(folders).any(|folder| {
            endings
                .iter()
                .any(|ending| folder.join(format!("{program}{ending}")).is_file())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_is_found_by_its_path_or_on_path() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("notify.sh");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        let path_var = std::env::join_paths([dir.path()]).unwrap();
        assert!(findable(program.to_str().unwrap(), None));
        assert!(findable("notify.sh", Some(&path_var)));
        assert!(!findable("notfy.sh", Some(&path_var)));
        assert!(!findable("notify.sh", None));
        assert!(!findable(
            dir.path().join("notfy.sh").to_str().unwrap(),
            None
        ));
    }
}
