//! The dependency directions of the workspace, checked from the manifests.
//!
//! `docs/ARCHITECTURE.md` draws the layers: `cove_ir` at the bottom, the
//! runtime and the compiler beside each other on it, the profiler on the
//! runtime, the debugger on the profiler and the runtime, the command line
//! on top. A crate that reaches the wrong way
//! would still build, so the layering holds only if a test says so. This one
//! reads every member's `Cargo.toml` and checks which Cove crates each names
//! in its `[dependencies]` (and, for the compiler's independence, its
//! `[dev-dependencies]` too).
//!
//! The manifests are read line by line rather than with a TOML parser: the
//! entries this needs are the keys of dependency tables (`cove_ir.workspace
//! = true`, `cove_ir = { path = ".." }`), which a line's first word gives,
//! and that keeps xtask's tests free of dependencies.

use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn the_test_crate_runs_compiled_programs_on_the_runtime() {
    // The compiler's behavioural tests live here, where the compiler and
    // the runtime meet without a cycle through either's dev-dependencies.
    let deps = dependencies("cove_tests");
    assert!(
        deps.contains("cove_compiler") && deps.contains("cove_runtime"),
        "{deps:?}"
    );
}

/// The Cove crates a manifest's tables of this kind name: `dependencies`
/// (including target-specific ones) or `dev-dependencies`.
fn cove_crates(manifest: &str, table: &str) -> BTreeSet<String> {
    let mut in_table = false;
    let mut found = BTreeSet::new();
    for line in manifest.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']');
            in_table = header == table || header.ends_with(&format!(".{table}"));
            // `[dependencies.cove_ir]` names one dependency in its header.
            if let Some(name) = header.strip_prefix(&format!("{table}.")) {
                if name.starts_with("cove_") {
                    found.insert(name.to_string());
                }
                in_table = false;
            }
            continue;
        }
        if !in_table || line.starts_with('#') {
            continue;
        }
        let key: String = line
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        if key.starts_with("cove_") {
            found.insert(key);
        }
    }
    found
}

fn manifest(member: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(member)
        .join("Cargo.toml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn dependencies(member: &str) -> BTreeSet<String> {
    cove_crates(&manifest(member), "dependencies")
}

fn dev_dependencies(member: &str) -> BTreeSet<String> {
    cove_crates(&manifest(member), "dev-dependencies")
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn cove_ir_depends_on_no_other_cove_crate() {
    assert_eq!(dependencies("cove_ir"), set(&[]));
    assert_eq!(dev_dependencies("cove_ir"), set(&[]));
}

#[test]
fn the_compiler_depends_on_cove_ir_alone_and_never_on_the_runtime() {
    assert!(dependencies("cove_compiler").is_subset(&set(&["cove_ir"])));
    let dev = dev_dependencies("cove_compiler");
    assert!(
        !dev.contains("cove_runtime") && !dev.contains("cove_profile"),
        "{dev:?}"
    );
}

#[test]
fn the_runtime_never_depends_on_the_compiler_or_the_profiler() {
    // A dev-dependency on the compiler, to write tests in Cove, is allowed.
    assert!(dependencies("cove_runtime").is_subset(&set(&["cove_ir"])));
    assert!(!dev_dependencies("cove_runtime").contains("cove_profile"));
}

#[test]
fn the_profiler_depends_on_the_runtime_and_cove_ir_but_never_the_compiler() {
    assert!(dependencies("cove_profile").is_subset(&set(&["cove_ir", "cove_runtime"])));
}

#[test]
fn the_debugger_uses_the_seam_and_the_profiler_but_never_the_compiler() {
    // The compiler is a dev-dependency only: its tests are written in Cove.
    assert_eq!(
        dependencies("cove_debug"),
        set(&["cove_ir", "cove_profile", "cove_runtime"])
    );
}

#[test]
fn only_the_command_line_depends_on_the_debugger() {
    for member in ["cove_ir", "cove_compiler", "cove_runtime", "cove_profile"] {
        let all: BTreeSet<String> = dependencies(member)
            .union(&dev_dependencies(member))
            .cloned()
            .collect();
        assert!(!all.contains("cove_debug"), "{member}: {all:?}");
    }
    assert!(dependencies("cove_cli").contains("cove_debug"));
}

#[test]
fn nothing_depends_on_the_command_line_the_test_crate_or_xtask() {
    for member in [
        "cove_ir",
        "cove_compiler",
        "cove_runtime",
        "cove_profile",
        "cove_debug",
        "cove_cli",
    ] {
        let all: BTreeSet<String> = dependencies(member)
            .union(&dev_dependencies(member))
            .cloned()
            .collect();
        assert!(!all.contains("cove_cli"), "{member}: {all:?}");
        assert!(!all.contains("xtask"), "{member}: {all:?}");
        assert!(!all.contains("cove_tests"), "{member}: {all:?}");
    }
}

#[test]
fn the_manifest_reader_finds_every_way_of_naming_a_dependency() {
    let manifest = "\
[package]
name = \"cove_x\"

[dependencies]
cove_ir.workspace = true
cove_runtime = { path = \"../cove_runtime\" }
smallvec.workspace = true

[target.'cfg(unix)'.dependencies]
cove_profile = \"0.1\"

[dependencies.cove_compiler]
path = \"../cove_compiler\"

[dev-dependencies]
cove_cli.workspace = true
";
    assert_eq!(
        cove_crates(manifest, "dependencies"),
        set(&["cove_compiler", "cove_ir", "cove_profile", "cove_runtime"])
    );
    assert_eq!(
        cove_crates(manifest, "dev-dependencies"),
        set(&["cove_cli"])
    );
}
