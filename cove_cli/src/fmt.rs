//! `cove fmt`: format `.cove` files in place, or say which would change.
//!
//! The formatting is covefmt's (`examples/covefmt`), a formatter written in
//! Cove: its modules are built into the binary with `include_str!` from
//! `cove_cli/covefmt/` (links to `examples/covefmt/`, which `cargo package`
//! turns into files, so the published crate builds),
//! compiled once a run with [`cove_compiler::compile_sources`], and its
//! `format.format_file` is called on the VM for each file. This module does
//! only what a formatter written in Cove cannot do well or safely: walking
//! directories, writing a file only when its text changes (so an editor or
//! a build sees no change where there is none) and then whole (written
//! beside it and renamed into place, so an interrupt never leaves it cut
//! short), and printing a diff.
//!
//! What it costs: one compile of covefmt a run (a few milliseconds), then a
//! VM call a file. Why not Rust: covefmt is the project's largest real
//! program and the workload its profiler is measured on; `cove fmt` keeps
//! it honest by making it a tool the project depends on every day.

use std::path::{Path, PathBuf};

use cove_ir::program::Program;
use cove_runtime::{Value, Vm};

use crate::cli::FmtArgs;
use crate::status::Status;

/// covefmt's modules, as the compiler is to see them.
const COVEFMT: &[(&str, &str)] = &[
    ("format", include_str!("../covefmt/format.cove")),
    ("lexer", include_str!("../covefmt/lexer.cove")),
    ("doc", include_str!("../covefmt/doc.cove")),
    ("printer", include_str!("../covefmt/printer.cove")),
];

/// What covefmt made of one file.
#[derive(Debug, PartialEq, Eq)]
pub enum Formatted {
    /// The formatted text (which may be the text it was given).
    Text(String),
    /// Why covefmt left the file as it is, with the place.
    Refused(String),
}

/// covefmt, compiled and ready to format files.
#[derive(Debug)]
pub struct Formatter {
    program: Program,
}

impl Formatter {
    /// Compiles the built-in covefmt. Failing is a bug of the build (its
    /// sources are checked by the test suite), reported as a message.
    pub fn new() -> Result<Formatter, String> {
        cove_compiler::compile_sources("format", COVEFMT)
            .map(|program| Formatter { program })
            .map_err(|d| format!("the built-in covefmt does not compile:\n{d}"))
    }

    /// `source` formatted; `path` only names it in covefmt's messages.
    pub fn format(&self, path: &str, source: &str) -> Formatted {
        let mut vm = Vm::new(&self.program);
        let args = vec![Value::Str(path.to_string()), Value::Str(source.to_string())];
        match &vm.run_entry("format", "format_file", args) {
            Ok(Value::Variant {
                variant, fields, ..
            }) => match (variant.as_str(), fields.as_slice()) {
                ("Formatted", [Value::Str(text)]) => Formatted::Text(text.clone()),
                ("Refused", [Value::Str(why)]) => Formatted::Refused(why.clone()),
                _ => Formatted::Refused(format!("{path}: covefmt gave an unexpected answer")),
            },
            Ok(other) => Formatted::Refused(format!(
                "{path}: covefmt gave an unexpected answer: {other:?}"
            )),
            Err(e) => Formatted::Refused(format!("{path}: covefmt failed: {e}")),
        }
    }
}

/// The `.cove` files named by `paths`: a file as given, a directory walked
/// (in name order, hidden entries skipped). An unreadable directory or a
/// path that does not exist is an error.
pub fn cove_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut files)?;
        } else if path.exists() {
            files.push(path.clone());
        } else {
            return Err(format!("{}: no such file or directory", path.display()));
        }
    }
    Ok(files)
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| !n.to_string_lossy().starts_with('.'))
        })
        .collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "cove") {
            files.push(path);
        }
    }
    Ok(())
}

/// A unified diff of `before` and `after`, both shown as `path`.
pub fn unified_diff(path: &str, before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(path, path)
        .to_string()
}

/// Writes `text` (a name under `--check`, a diff under `--diff`) to
/// stdout as a report is written ([`crate::pipe::stdout`]): a reader that
/// left (`| head`) had what it wanted, and any other failure (a full disk)
/// ends `cove fmt` with the I/O status and a message, where `print!` would
/// have panicked.
fn say(text: String) -> Result<(), Status> {
    crate::pipe::stdout(text.as_bytes()).map_err(|e| {
        crate::pipe::eprint(format_args!("error: cannot write to stdout: {e}\n"));
        Status::IoError
    })
}

/// Runs `cove fmt`.
pub fn fmt(args: &FmtArgs) -> Status {
    let formatter = match Formatter::new() {
        Ok(f) => f,
        Err(e) => {
            crate::pipe::eprint(format_args!("error: {e}\n"));
            return Status::BadInput;
        }
    };
    let files = match cove_files(&args.paths) {
        Ok(files) => files,
        Err(e) => {
            crate::pipe::eprint(format_args!("error: {e}\n"));
            return Status::IoError;
        }
    };
    let write = !args.check && !args.diff;
    let mut changed = false;
    let mut refused = false;
    for file in files {
        let shown = file.display().to_string();
        let source = match std::fs::read_to_string(&file) {
            Ok(s) => s,
            Err(e) => {
                crate::pipe::eprint(format_args!("error: cannot read {shown}: {e}\n"));
                return Status::IoError;
            }
        };
        let text = match formatter.format(&shown, &source) {
            Formatted::Text(text) => text,
            Formatted::Refused(why) => {
                crate::pipe::eprint(format_args!("error: {why}\n"));
                refused = true;
                continue;
            }
        };
        if text == source {
            continue;
        }
        changed = true;
        if args.check
            && let Err(status) = say(format!("{shown}\n"))
        {
            return status;
        }
        if args.diff
            && let Err(status) = say(unified_diff(&shown, &source, &text))
        {
            return status;
        }
        if write && let Err(e) = crate::report_file::replace_whole(&file, text.as_bytes()) {
            crate::pipe::eprint(format_args!("error: cannot write {shown}: {e}\n"));
            return Status::IoError;
        }
    }
    if refused || (args.check && changed) {
        Status::Unformatted
    } else {
        Status::OK
    }
}
