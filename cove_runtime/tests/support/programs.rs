//! Where the conformance programs are and how to find them: a walk of
//! `tests/programs/`, whose folders group the programs by area (`calls/`,
//! `tasks/`, `strings/`...). A `.cove` file is a one-module program; a
//! folder holding a `main.cove` is a program of several modules, and any
//! other folder is an area to walk into. Each program's expected output
//! sits beside it, `name.out`.
//!
//! The walk costs one directory read an area, each time a test asks; the
//! suite is a few hundred files, so nothing is cached. It lives here, once,
//! rather than in each harness, so that every harness agrees on what a
//! program is.

use std::path::{Path, PathBuf};

/// One conformance program, found on disk.
#[derive(Debug, Clone)]
pub struct Found {
    /// Its path under `tests/programs/` without the extension, with `/`
    /// between the parts (`calls/recursion_fib`): what `COVE_PROGRAM` names.
    pub name: String,
    /// The module named on the command line: `name.cove` or `name/main.cove`.
    pub entry: PathBuf,
    /// `name.out`, which may be missing for a program that prints nothing.
    pub out: PathBuf,
    /// Whether the program is several modules (a folder).
    pub multi_module: bool,
}

/// The root of the conformance suite.
pub fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

/// Every conformance program, sorted by name.
pub fn every_program() -> Vec<Found> {
    let root = programs_dir();
    let mut found = Vec::new();
    walk(&root, &root, &mut found);
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

/// The one-module programs, sorted by name.
pub fn single_module_programs() -> Vec<Found> {
    every_program()
        .into_iter()
        .filter(|p| !p.multi_module)
        .collect()
}

/// The one-module program `name` (`area/stem`); panics if it is not there,
/// which is a mistake in the test that names it.
pub fn program(name: &str) -> Found {
    every_program()
        .into_iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no conformance program {name}"))
}

fn walk(root: &Path, dir: &Path, found: &mut Vec<Found>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{} does not read: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        let relative = path
            .strip_prefix(root)
            .expect("under the root")
            .with_extension("");
        let name = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        if path.is_dir() && path.join("main.cove").is_file() {
            found.push(Found {
                name,
                entry: path.join("main.cove"),
                out: path.with_extension("out"),
                multi_module: true,
            });
        } else if path.is_dir() {
            walk(root, &path, found);
        } else if path.extension().is_some_and(|e| e == "cove") {
            found.push(Found {
                name,
                out: path.with_extension("out"),
                entry: path,
                multi_module: false,
            });
        }
    }
}
