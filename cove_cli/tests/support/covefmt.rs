//! covefmt, compiled from `examples/covefmt` and called on the VM, for the
//! tests of its rules, its idempotence and its safety; and the repository's
//! `.cove` files it is checked against.
//!
//! Calling `format.format_file` in-process is what `cove fmt` does, without
//! a process and a temporary file per case, so the golden tests stay cheap.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cove_ir::program::Program;
use cove_runtime::{Value, Vm};

use super::root;

fn program() -> &'static Program {
    static PROGRAM: OnceLock<Program> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        cove_compiler::compile_files(&root().join("examples/covefmt/format.cove"))
            .unwrap_or_else(|d| panic!("covefmt compiles:\n{d}"))
    })
}

/// `source` formatted by covefmt, or its refusal (the located message).
pub fn format(path: &str, source: &str) -> Result<String, String> {
    let mut vm = Vm::new(program());
    let args = vec![Value::Str(path.into()), Value::Str(source.into())];
    match &vm.run_entry("format", "format_file", args) {
        Ok(Value::Variant {
            variant, fields, ..
        }) => match (variant.as_str(), fields.as_slice()) {
            ("Formatted", [Value::Str(text)]) => Ok(text.clone()),
            ("Refused", [Value::Str(why)]) => Err(why.clone()),
            other => panic!("covefmt answered {other:?}"),
        },
        other => panic!("covefmt answered {other:?}"),
    }
}

/// `source` formatted, which must succeed.
pub fn formatted(source: &str) -> String {
    format("test.cove", source).unwrap_or_else(|why| panic!("covefmt refused: {why}"))
}

/// The directories whose `.cove` files are deliberately not formatted,
/// each with the reason.
pub const NOT_FORMATTED: &[(&str, &str)] = &[
    (
        "cove_compiler/tests/diagnostics",
        "broken programs whose expected diagnostics cite lines and columns; some do not even lex",
    ),
    (
        "examples/covefmt/sample.cove",
        "covefmt's demonstration input, laid out badly on purpose",
    ),
];

/// Every `.cove` file of the repository (target directories and hidden
/// ones aside), relative to the root, in name order.
pub fn repository_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    walk(&root(), &mut files);
    files.sort();
    files
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a readable directory")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if path.is_dir() {
            walk(&path, files);
        } else if name.ends_with(".cove") {
            files.push(path.strip_prefix(root()).unwrap().to_path_buf());
        }
    }
}

/// Whether `file` (relative to the root) is one of [`NOT_FORMATTED`].
pub fn left_unformatted(file: &Path) -> bool {
    NOT_FORMATTED
        .iter()
        .any(|(prefix, _)| file.starts_with(prefix))
}

/// A repository file, its source, and what covefmt made of it.
pub type Checked = (PathBuf, String, Result<String, String>);

/// Each of [`repository_files`] with its source and what covefmt made of
/// it, computed once a test binary (a pass over the repository takes a
/// while in a debug build).
pub fn repository_formatted() -> &'static [Checked] {
    static DONE: OnceLock<Vec<Checked>> = OnceLock::new();
    DONE.get_or_init(|| {
        repository_files()
            .into_iter()
            .map(|file| {
                let source = std::fs::read_to_string(root().join(&file)).expect("readable");
                let result = format(&file.display().to_string(), &source);
                (file, source, result)
            })
            .collect()
    })
}

/// A copy of `source` with every line's indent replaced by a tab or an odd
/// number of spaces, a tab or three spaces for each space between tokens on
/// lines without strings or comments (where every space is between
/// tokens), and blanks at the ends of lines. None of it changes a token.
pub fn messy(source: &str) -> String {
    let mut out = String::new();
    for (i, line) in source.lines().enumerate() {
        let body = line.trim_start();
        let indent = match i % 3 {
            0 => "",
            1 => "\t",
            _ => "     ",
        };
        let plain = !body.contains('"') && !body.contains("//") && !body.contains("/*");
        let body = if plain {
            body.replace(' ', if i % 2 == 0 { "\t" } else { "   " })
        } else {
            body.to_string()
        };
        out.push_str(indent);
        out.push_str(&body);
        out.push_str(if i % 2 == 0 { " \t" } else { "" });
        out.push('\n');
    }
    out
}
