//! The README's layout table is the code's: each crate's `[dependencies]` of ours are exactly
//! the ones the table gives it, and each is of a lower layer.

use std::collections::BTreeMap;
use std::path::Path;

/// The table of README.md's layout section: crate → (layer, its dependencies of ours).
fn table(readme: &str) -> BTreeMap<String, (u32, Vec<String>)> {
    let start = readme
        .find("layer  crate")
        .expect("README.md's layout section has the table of layers");
    readme[start..]
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with("```"))
        .map(|line| {
            let mut words = line.split_whitespace();
            let layer = words.next().unwrap().parse().unwrap();
            let name = words.next().unwrap().to_string();
            let uses = words
                .take_while(|w| !w.starts_with('('))
                .filter(|w| *w != "-")
                .map(|w| match w.trim_end_matches("(feature)") {
                    "clientbank" => "clientbank".to_string(),
                    short => format!("clientbank-{short}"),
                })
                .collect();
            (name, (layer, uses))
        })
        .collect()
}

/// The crates of ours a manifest names under `[dependencies]`.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut ours = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            in_dependencies = line.trim() == "[dependencies]";
        } else if in_dependencies && line.starts_with("clientbank") {
            let name = line.split(['=', '.', ' ']).next().unwrap();
            ours.push(name.to_string());
        }
    }
    ours.sort();
    ours
}

#[test]
fn every_crate_uses_what_the_readme_says_and_nothing_above_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let table = table(&readme);
    let crates: Vec<_> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        table
            .keys()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>(),
        crates.iter().cloned().collect(),
        "the table names every crate of crates/ once"
    );
    for name in &crates {
        let manifest =
            std::fs::read_to_string(root.join("crates").join(name).join("Cargo.toml")).unwrap();
        let (layer, allowed) = &table[name];
        let mut allowed = allowed.clone();
        allowed.sort();
        assert_eq!(
            dependencies(&manifest),
            allowed,
            "{name}: its [dependencies] of ours differ from README.md's layout table"
        );
        for used in &allowed {
            let (below, _) = table[used];
            assert!(
                below < *layer,
                "{name} (layer {layer}) uses {used} (layer {below})"
            );
        }
    }
}

/// Lines of `text` before its `#[cfg(test)] mod …` (the code a reader of the crate reads).
fn non_test(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].starts_with("#[cfg(test)]")
                && lines.get(i + 1).is_some_and(|l| l.starts_with("mod "))
        })
        .unwrap_or(lines.len());
    lines[..end].to_vec()
}

/// The functions of `lines` longer than `most` lines: (line, name, length). Braces in string and
/// character literals and in comments are not counted.
fn long_functions(lines: &[&str], most: usize) -> Vec<(usize, String, usize)> {
    let code = |line: &str| -> String {
        let mut out = String::new();
        let mut chars = line.chars().peekable();
        let mut in_string = false;
        while let Some(c) = chars.next() {
            match c {
                '\\' if in_string => {
                    chars.next();
                }
                '"' => in_string = !in_string,
                '/' if !in_string && chars.peek() == Some(&'/') => break,
                '\'' if !in_string => {
                    // A character literal ('{', '\n') or a lifetime ('a): skip a literal whole.
                    let rest: String = chars.clone().take(3).collect();
                    if rest.starts_with('\\') || rest.chars().nth(1) == Some('\'') {
                        for c in chars.by_ref() {
                            if c == '\'' {
                                break;
                            }
                        }
                    }
                }
                c if !in_string => out.push(c),
                _ => {}
            }
        }
        out
    };
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(at) = words.iter().position(|w| *w == "fn") else {
            continue;
        };
        if !words[..at]
            .iter()
            .all(|w| w.starts_with("pub") || ["async", "const", "unsafe"].contains(w))
        {
            continue;
        }
        let name = words
            .get(at + 1)
            .map_or("", |w| w.split(['(', '<']).next().unwrap_or(""));
        let (mut depth, mut opened) = (0i64, false);
        for (end, line) in lines.iter().enumerate().skip(start) {
            let code = code(line);
            depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
            opened |= code.contains('{');
            if !opened && code.trim_end().ends_with(';') {
                break;
            }
            if opened && depth <= 0 {
                if end - start + 1 > most {
                    found.push((start + 1, name.to_string(), end - start + 1));
                }
                break;
            }
        }
    }
    found
}

/// The source files of the daemon's crates and the binary: (path shown from the root, text).
fn daemon_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    for krate in ["clientbank-watch", "clientbank-bank", "clientbank"] {
        let mut folders = vec![root.join("crates").join(krate).join("src")];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let shown = path.strip_prefix(&root).unwrap().display().to_string();
                found.push((shown, text));
            }
        }
    }
    found
}

#[test]
fn the_daemon_crates_and_the_binary_keep_functions_and_files_short() {
    let mut over = Vec::new();
    for (shown, text) in daemon_sources() {
        let lines = non_test(&text);
        if lines.len() > 900 {
            over.push(format!("{shown}: {} lines of non-test code", lines.len()));
        }
        for (line, name, length) in long_functions(&lines, 120) {
            over.push(format!("{shown}:{line}: fn {name}: {length} lines"));
        }
    }
    assert!(
        over.is_empty(),
        "at most 900 lines of non-test code a file and 120 lines a function:\n{}",
        over.join("\n")
    );
}

/// Every line the daemon logs a person reads in Russian too: a fixed text has its Russian in
/// the binary's `log::said_ru`; a text that changes is logged with `say!`, which carries its
/// Russian (issue 19 item 8).
#[test]
fn every_log_line_of_the_daemon_has_its_russian() {
    let sources = daemon_sources();
    let russian = log_table(&sources, "fn said_ru(");
    let (mut missing, mut calls) = (Vec::new(), 0);
    for (shown, text) in &sources {
        let code = non_test(text).join("\n");
        for call in code.split("tracing::").skip(1) {
            let Some(call) = ["info!(", "warn!(", "error!("]
                .iter()
                .find_map(|level| call.strip_prefix(level))
            else {
                continue;
            };
            calls += 1;
            let call = &call[..call.find(");").unwrap_or(call.len())];
            let message = call.rsplit('"').nth(1).unwrap_or("");
            if !russian.contains(&message) {
                missing.push(format!("{shown}: {message:?}"));
            }
        }
    }
    assert!(
        calls > 20,
        "the daemon's log calls were not found ({calls})"
    );
    assert!(
        missing.is_empty(),
        "log these with say! or give them a Russian in log::said_ru:\n{}",
        missing.join("\n")
    );
}

/// Every field of a log line (`file = %name`, `%url`) has its Russian word in the binary's
/// `log::word`: a Russian log line says `файл: …`, not `file: …` (issue 19 item 8).
#[test]
fn every_log_field_of_the_daemon_has_its_russian_word() {
    let sources = daemon_sources();
    let words = log_table(&sources, "fn word(");
    let (mut missing, mut fields) = (Vec::new(), 0);
    for (shown, text) in &sources {
        let code = non_test(text).join("\n");
        let calls = code
            .split("tracing::")
            .skip(1)
            .filter_map(|c| {
                ["info!(", "warn!(", "error!("]
                    .iter()
                    .find_map(|l| c.strip_prefix(l))
            })
            .chain(code.split("say!(").skip(1));
        for call in calls {
            let call = &call[..call.find(");").unwrap_or(call.len())];
            for name in log_fields(call) {
                fields += 1;
                if !words.contains(&name.as_str()) {
                    missing.push(format!("{shown}: {name}"));
                }
            }
        }
    }
    assert!(
        fields > 10,
        "the daemon's log fields were not found ({fields})"
    );
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "give these fields a Russian word in log::word:\n{}",
        missing.join("\n")
    );
}

/// The English side of a table of the binary's `log.rs` (`"english" => "русский",` lines of
/// the function that `start` begins).
fn log_table<'a>(sources: &'a [(String, String)], start: &str) -> Vec<&'a str> {
    let log = &sources
        .iter()
        .find(|(shown, _)| shown.ends_with("clientbank/src/log.rs"))
        .expect("the binary's log.rs")
        .1;
    let table = &log[log.find(start).expect("the table in log.rs")..];
    let table = &table[..table.find("\n}\n").unwrap()];
    table
        .lines()
        .filter_map(|line| line.trim().strip_prefix('"')?.split_once("\" =>"))
        .map(|(english, _)| english)
        .collect()
}

/// The field names of a log call's arguments: `name = value`, `name = %value`, `%name`,
/// `?a.b` (named `b`); strings left out.
fn log_fields(call: &str) -> Vec<String> {
    let mut code = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in call.chars() {
        match (in_string, c) {
            (true, '\\') if !escaped => escaped = true,
            (true, '"') if !escaped => in_string = false,
            (true, _) => escaped = false,
            (false, '"') => in_string = true,
            (false, c) => code.push(c),
        }
    }
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c == '_');
    code.split(',')
        .filter_map(|arg| {
            let arg = arg.trim();
            if let Some((name, value)) = arg.split_once('=') {
                let name = name.trim();
                (ident(name) && !value.starts_with('=')).then(|| name.to_string())
            } else {
                let name = arg.strip_prefix(['%', '?'])?.rsplit('.').next()?;
                ident(name).then(|| name.to_string())
            }
        })
        .collect()
}

#[test]
fn log_fields_are_read_from_a_call() {
    assert_eq!(
        log_fields("warn, said, file = %name, count = n, %url, ?self.remote, \"a = b\""),
        ["file", "count", "url", "remote"]
    );
}

#[test]
fn the_length_check_finds_a_long_function() {
    let body = "    let x = '{';\n".repeat(130);
    let text = format!("fn short() {{}}\npub(crate) async fn long() {{\n{body}}}\n");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(long_functions(&lines, 120), [(2, "long".to_string(), 132)]);
}
