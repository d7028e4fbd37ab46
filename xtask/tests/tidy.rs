//! The crate boundaries, checked from the sources: each library crate's
//! `src/` may name only the parts of another Cove crate its place in the
//! design allows, in the manner of rust-analyzer's tidy tests.
//!
//! `layering.rs` checks the manifests, which say which crates a crate may
//! use at all; it cannot see that `cove_profile`, which must depend on
//! `cove_runtime` to be a debugger, takes only the debugger seam
//! (`vm::debug`) and the values it hands out. This test parses every source
//! file of every crate with `syn`, collects each path that starts with a
//! Cove crate's name (in `use` trees, flattened; in types, expressions and
//! patterns; and in the tokens of macro calls, which `syn` does not parse),
//! and fails on each one no rule allows, naming the file and the path.
//!
//! It costs a parse of the workspace's sources, about a second in a debug
//! build. A parser rather than a search for `cove_runtime::` in the text:
//! a `use` tree (`cove_runtime::{vm::{debug::Stop, exec}}`) only says what
//! it imports once flattened, and comments and strings that mention a path
//! are not imports. A path is checked as written: `use cove_runtime::vm;`
//! followed by `vm::exec::...` is refused at the `use`, since `vm` alone is
//! not on the allowed surface.

use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// The Cove crates whose names start a path this test checks.
const COVE_CRATES: &[&str] = &[
    "cove_ir",
    "cove_compiler",
    "cove_runtime",
    "cove_profile",
    "cove_debug",
    "cove_cli",
    "cove_tests",
    "xtask",
];

/// What a crate's sources may name of the other Cove crates: each entry is
/// a path prefix (`cove_runtime::vm::debug` allows everything under it),
/// and a crate may always name itself. Crates not listed here (the command
/// line, the test crate, xtask) sit on top and are not restricted.
fn allowed(krate: &str) -> Option<&'static [&'static str]> {
    Some(match krate {
        // The bottom of the house: no other Cove crate.
        "cove_ir" => &[],
        // Source text to IR: the IR only, never the runtime.
        "cove_compiler" => &["cove_ir"],
        // The VM runs IR and knows no compiler and no profiler.
        "cove_runtime" => &["cove_ir"],
        // A debugger that never stops: the seam and what its stops hand
        // out (a frame's `Value`, a fault's `RunError` and its kind).
        "cove_profile" => &[
            "cove_ir",
            "cove_runtime::vm::debug",
            "cove_runtime::Value",
            "cove_runtime::RunError",
            "cove_runtime::ErrorKind",
        ],
        // The interactive debugger runs a `Vm` itself and reuses the
        // profiler's counts; it never compiles.
        "cove_debug" => &["cove_ir", "cove_runtime", "cove_profile"],
        _ => return None,
    })
}

/// A path a source names, as `::`-joined segments.
#[derive(Debug, Default)]
struct Paths(Vec<String>);

impl Paths {
    fn push(&mut self, segments: &[String]) {
        if segments
            .first()
            .is_some_and(|first| COVE_CRATES.contains(&first.as_str()))
        {
            self.0.push(segments.join("::"));
        }
    }

    /// Flattens a `use` tree under `prefix` into the paths it imports.
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                // `use cove_runtime::vm::debug::{self}` imports the prefix.
                if n.ident != "self" {
                    prefix.push(n.ident.to_string());
                    self.push(prefix);
                    prefix.pop();
                } else {
                    self.push(prefix);
                }
            }
            syn::UseTree::Rename(r) => {
                if r.ident != "self" {
                    prefix.push(r.ident.to_string());
                    self.push(prefix);
                    prefix.pop();
                } else {
                    self.push(prefix);
                }
            }
            syn::UseTree::Glob(_) => {
                prefix.push("*".to_string());
                self.push(prefix);
                prefix.pop();
            }
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    /// The `a::b::c` runs of identifiers in a macro's tokens.
    fn tokens(&mut self, tokens: TokenStream) {
        let mut run: Vec<String> = Vec::new();
        let mut colons = 0;
        for token in tokens {
            match token {
                TokenTree::Ident(ident) if run.is_empty() || colons == 2 => {
                    run.push(ident.to_string());
                    colons = 0;
                }
                TokenTree::Punct(p) if p.as_char() == ':' && !run.is_empty() && colons < 2 => {
                    colons += 1;
                }
                other => {
                    self.end_run(&mut run);
                    colons = 0;
                    match other {
                        TokenTree::Group(group) => self.tokens(group.stream()),
                        // An identifier that cannot continue the run starts one.
                        TokenTree::Ident(ident) => run.push(ident.to_string()),
                        _ => {}
                    }
                }
            }
        }
        self.end_run(&mut run);
    }

    /// Records a run of a macro's tokens if it is a path, and empties it.
    fn end_run(&mut self, run: &mut Vec<String>) {
        if run.len() > 1 {
            self.push(run);
        }
        run.clear();
    }
}

/// Whether `attrs` hold `#[cfg(test)]`: a crate's unit tests may use its
/// dev-dependencies (the compiler, to write a test in Cove), which are no
/// part of what the crate's users get.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if !is_test(&item.attrs) {
            self.use_tree(&mut Vec::new(), &item.tree);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_test(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if !is_test(&item.attrs) {
            syn::visit::visit_item_fn(self, item);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.push(&segments);
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

/// The paths of `source` that `krate`'s boundary does not allow, or why the
/// source does not parse.
fn violations(krate: &str, source: &str) -> Result<Vec<String>, String> {
    let file = syn::parse_file(source).map_err(|e| e.to_string())?;
    let mut paths = Paths::default();
    paths.visit_file(&file);
    let Some(allowed) = allowed(krate) else {
        return Ok(Vec::new());
    };
    Ok(paths
        .0
        .into_iter()
        .filter(|path| {
            let first = path.split("::").next().unwrap_or_default();
            first != krate
                && !allowed
                    .iter()
                    .any(|prefix| path == prefix || path.starts_with(&format!("{prefix}::")))
        })
        .collect())
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn every_library_crate_names_only_what_its_boundary_allows_of_the_others() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut problems = Vec::new();
    let mut files = 0;
    for krate in [
        "cove_ir",
        "cove_compiler",
        "cove_runtime",
        "cove_profile",
        "cove_debug",
    ] {
        for file in rust_files(&root.join(krate).join("src")) {
            files += 1;
            let source = std::fs::read_to_string(&file).expect("a source file reads");
            let shown = file.strip_prefix(&root).unwrap_or(&file).display();
            match violations(krate, &source) {
                Ok(paths) => {
                    problems.extend(paths.into_iter().map(|p| format!("{shown}: {p}")));
                }
                Err(why) => problems.push(format!("{shown}: does not parse: {why}")),
            }
        }
    }
    assert!(files > 50, "the walk finds the sources ({files} files)");
    assert!(
        problems.is_empty(),
        "paths past a crate's allowed surface (see `allowed` in xtask/tests/tidy.rs):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_profiler_importing_the_runtime_past_the_debugger_seam_is_refused() {
    let source = "
use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::vm::machine::Machine;
use cove_runtime::{Value, heap::Memory, vm::{debug::Frame, exec}};
use cove_runtime as rt;
";
    assert_eq!(
        violations("cove_profile", source).unwrap(),
        [
            "cove_runtime::vm::machine::Machine",
            "cove_runtime::heap::Memory",
            "cove_runtime::vm::exec",
            "cove_runtime",
        ]
    );
}

#[test]
fn a_path_past_the_boundary_in_code_or_in_a_macro_is_refused_as_an_import_is() {
    let source = "
fn f(m: &cove_runtime::vm::machine::Machine) -> cove_runtime::Value {
    let v = cove_runtime::Vm::new(todo!());
    println!(\"{:?}\", cove_runtime::heap::Memory::default());
    let _: cove_runtime::vm::debug::Resume = cove_runtime::vm::debug::Resume::Go;
    todo!()
}
";
    assert_eq!(
        violations("cove_profile", source).unwrap(),
        [
            "cove_runtime::vm::machine::Machine",
            "cove_runtime::Vm::new",
            "cove_runtime::heap::Memory::default",
        ]
    );
}

#[test]
fn cove_ir_naming_any_other_cove_crate_is_refused() {
    let source = "use crate::program::Program;\nuse cove_compiler::compile_module;\nfn f() { cove_runtime::Vm::new(todo!()); }\n";
    assert_eq!(
        violations("cove_ir", source).unwrap(),
        ["cove_compiler::compile_module", "cove_runtime::Vm::new"]
    );
}

#[test]
fn comments_strings_and_a_crates_own_name_are_not_imports() {
    let source = "
//! Installed on a `cove_runtime::Vm::new` like any debugger.
use cove_profile::Profiler;
fn f() -> &'static str {
    // cove_runtime::heap::Memory is not used here.
    \"cove_runtime::vm::machine::Machine\"
}
";
    assert_eq!(
        violations("cove_profile", source).unwrap(),
        Vec::<String>::new()
    );
}

#[test]
fn a_unit_test_module_may_use_a_dev_dependency_but_the_code_beside_it_may_not() {
    let source = "
use cove_compiler::compile_module;
#[cfg(test)]
mod tests {
    use cove_compiler::compile_files;
    fn program() { cove_compiler::compile_module(\"m\", \"\").unwrap(); }
}
";
    assert_eq!(
        violations("cove_profile", source).unwrap(),
        ["cove_compiler::compile_module"]
    );
}

#[test]
fn the_compiler_importing_the_runtime_is_refused_but_the_command_line_may() {
    let source = "use cove_runtime::Vm;\n";
    assert_eq!(
        violations("cove_compiler", source).unwrap(),
        ["cove_runtime::Vm"]
    );
    assert_eq!(
        violations("cove_cli", source).unwrap(),
        Vec::<String>::new()
    );
}
