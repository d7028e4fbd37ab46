//! Files a package holds as its own so that it works when downloaded alone,
//! each checked against the workspace's original. `cove_runtime`'s bench
//! reads `cove_runtime/benches/programs/`, the Cove programs of
//! `examples/bench/` (the Lua twins stay behind: the bench runs Cove only);
//! `cove fmt` builds in `cove_cli/covefmt/`, the formatter modules of
//! `examples/covefmt/`.
//!
//! In the repository each is a symbolic link to the original, which
//! `cargo package` turns into a copy of the file, so a published crate
//! holds no link out of itself and the repository holds no second copy to
//! drift. This test is what keeps it so: a link replaced by a stale copy,
//! or a program added to the original and not to the package, fails here.
//! It costs reading a few small trees.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every `.cove` file under `dir`, by its path relative to `dir`.
fn cove_files(dir: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(root: &Path, dir: &Path, found: &mut BTreeMap<PathBuf, String>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(root, &path, found);
            } else if path.extension().is_some_and(|e| e == "cove") {
                let text = std::fs::read_to_string(&path).expect("a program reads");
                found.insert(
                    path.strip_prefix(root)
                        .expect("under the root")
                        .to_path_buf(),
                    text,
                );
            }
        }
    }
    let mut found = BTreeMap::new();
    walk(dir, dir, &mut found);
    found
}

#[test]
fn the_runtimes_benchmark_programs_are_those_of_examples_bench() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let original = cove_files(&root.join("examples/bench"));
    let copy = cove_files(&root.join("cove_runtime/benches/programs"));
    assert!(original.len() >= 7, "{} programs", original.len());
    let names = |m: &BTreeMap<PathBuf, String>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&copy),
        names(&original),
        "cove_runtime/benches/programs/ must hold the .cove files of examples/bench/: \
         link each one there (ln -s ../../../examples/bench/NAME.cove)"
    );
    for (name, text) in &original {
        assert!(
            copy[name] == *text,
            "cove_runtime/benches/programs/{} differs from examples/bench/{0}: make it a link",
            name.display()
        );
    }
}

#[test]
fn the_formatter_built_into_cove_fmt_is_the_covefmt_of_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let original = cove_files(&root.join("examples/covefmt"));
    let built_in = cove_files(&root.join("cove_cli/covefmt"));
    // covefmt's command-line entry and its sample input are not built in.
    let modules: Vec<&str> = vec!["doc.cove", "format.cove", "lexer.cove", "printer.cove"];
    assert_eq!(
        built_in
            .keys()
            .map(|p| p.to_str().unwrap())
            .collect::<Vec<_>>(),
        modules
    );
    for (name, text) in &built_in {
        assert!(
            original[name] == *text,
            "cove_cli/covefmt/{} differs from examples/covefmt/{0}: make it a link",
            name.display()
        );
    }
}
