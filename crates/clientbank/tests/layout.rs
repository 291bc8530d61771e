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
