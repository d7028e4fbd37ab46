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

/// A unified diff of `before` and `after`, both shown as `path`, with three
/// lines of context: what `similar`'s `TextDiff::from_lines` printed, the
/// same hunks and the same lines, from a search that takes time in the
/// lines both sides have rather than in all of them.
///
/// Myers' search for the fewest changed lines takes time in the lines
/// times the changes, and a file reformatted throughout changes nearly
/// every line: `--diff` of a 20,000-function file searched over 40,000
/// changed lines for 15 s, where `--check` took 0.8 s. A line that only
/// one side has cannot be kept by any common subsequence, so the search
/// leaves those out and runs over the lines both have (as GNU diff sets
/// such lines aside); the longest common subsequence it finds is one of
/// the whole texts, and the rest are the deletions and insertions between
/// its lines. The changes then go through the same compaction and
/// grouping into hunks as `TextDiff`'s.
pub fn unified_diff(path: &str, before: &str, after: &str) -> String {
    use similar::DiffableStr;
    let old = before.tokenize_lines();
    let new = after.tokenize_lines();
    let ops = line_ops(&old, &new);
    let mut out = String::new();
    for hunk in similar::group_diff_ops(ops, 3) {
        if hunk.is_empty() {
            continue;
        }
        if out.is_empty() {
            out.push_str(&format!("--- {path}\n+++ {path}\n"));
        }
        out.push_str(&format!(
            "{}\n",
            similar::udiff::UnifiedHunkHeader::new(&hunk)
        ));
        for op in &hunk {
            for change in op.iter_changes(&old[..], &new[..]) {
                out.push_str(&format!("{}{}", change.tag(), change.value()));
                if change.missing_newline() {
                    out.push_str("\n\\ No newline at end of file\n");
                }
            }
        }
    }
    out
}

/// The changes that make the lines `new` of the lines `old`, as `similar`'s
/// `TextDiff` gives them (compacted, a deletion next to an insertion
/// one replacement), found by Myers' search over the lines both sides have
/// (see [`unified_diff`]).
fn line_ops<'t>(old: &[&'t str], new: &[&'t str]) -> Vec<similar::DiffOp> {
    use similar::algorithms::{Capture, Compact, DiffHook, Replace, myers};
    // Each distinct line a number, and on which sides it is.
    let mut ids: std::collections::HashMap<&'t str, (u32, [bool; 2])> =
        std::collections::HashMap::new();
    let mut numbered = |lines: &[&'t str], side: usize| -> Vec<u32> {
        lines
            .iter()
            .map(|line| {
                let next = ids.len() as u32;
                let entry = ids.entry(line).or_insert((next, [false; 2]));
                entry.1[side] = true;
                entry.0
            })
            .collect()
    };
    let old_ids = numbered(old, 0);
    let new_ids = numbered(new, 1);
    let both = |line: &str| ids.get(line).is_some_and(|(_, sides)| sides[0] && sides[1]);
    let kept_old: Vec<usize> = (0..old.len()).filter(|&i| both(old[i])).collect();
    let kept_new: Vec<usize> = (0..new.len()).filter(|&j| both(new[j])).collect();
    let a: Vec<u32> = kept_old.iter().map(|&i| old_ids[i]).collect();
    let b: Vec<u32> = kept_new.iter().map(|&j| new_ids[j]).collect();
    let mut common = Capture::new();
    let Ok(()) = myers::diff(&mut common, &a, 0..a.len(), &b, 0..b.len());

    // The common lines back at their places, runs of neighbours one run,
    // and what lies between them deleted and inserted.
    let mut d = Compact::new(Replace::new(Capture::new()), &old_ids[..], &new_ids[..]);
    let (mut o, mut n) = (0, 0);
    let mut run: Option<(usize, usize, usize)> = None;
    let mut steps = Vec::new();
    for op in common.into_ops() {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                let (i, j) = (kept_old[old_index + k], kept_new[new_index + k]);
                if i > o || j > n {
                    steps.extend(run.take().map(Step::Equal));
                    if i > o {
                        steps.push(Step::Delete(o, i - o, n));
                    }
                    if j > n {
                        steps.push(Step::Insert(i, n, j - n));
                    }
                }
                run = Some(match run {
                    Some((ro, rn, len)) => (ro, rn, len + 1),
                    None => (i, j, 1),
                });
                (o, n) = (i + 1, j + 1);
            }
        }
    }
    steps.extend(run.take().map(Step::Equal));
    if o < old.len() {
        steps.push(Step::Delete(o, old.len() - o, n));
    }
    if n < new.len() {
        steps.push(Step::Insert(old.len(), n, new.len() - n));
    }
    for step in steps {
        let Ok(()) = match step {
            Step::Equal((o, n, len)) => d.equal(o, n, len),
            Step::Delete(o, len, n) => d.delete(o, len, n),
            Step::Insert(o, n, len) => d.insert(o, n, len),
        };
    }
    let Ok(()) = d.finish();
    d.into_inner().into_inner().into_ops()
}

/// A change of [`line_ops`], as its hook is told it: a run of equal lines
/// (old start, new start, length), a deletion (old start, length, new
/// place), an insertion (old place, new start, length).
enum Step {
    Equal((usize, usize, usize)),
    Delete(usize, usize, usize),
    Insert(usize, usize, usize),
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

#[cfg(test)]
mod tests {
    use super::unified_diff;

    /// `old` with the hunks of the unified diff `diff` applied.
    fn patched(old: &str, diff: &str) -> String {
        use similar::DiffableStr;
        let old = old.tokenize_lines();
        let mut out = String::new();
        let mut at = 0;
        let mut lines = diff.split_inclusive('\n').skip(2).peekable();
        while let Some(line) = lines.next() {
            if let Some(header) = line.strip_prefix("@@ -") {
                let start: usize = header
                    .split([',', ' '])
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("a hunk header");
                // An empty range names the line before it.
                let empty = header.split(' ').next().is_some_and(|r| r.ends_with(",0"));
                let start = if empty { start } else { start - 1 };
                while at < start {
                    out.push_str(old[at]);
                    at += 1;
                }
                continue;
            }
            let no_newline = lines
                .peek()
                .is_some_and(|next| next.starts_with("\\ No newline"));
            let text = &line[1..];
            let text = if no_newline {
                lines.next();
                text.strip_suffix('\n').unwrap_or(text)
            } else {
                text
            };
            match &line[..1] {
                " " => {
                    assert_eq!(old[at], text);
                    out.push_str(text);
                    at += 1;
                }
                "-" => {
                    assert_eq!(old[at], text);
                    at += 1;
                }
                "+" => out.push_str(text),
                other => panic!("a diff line starting {other:?}"),
            }
        }
        while at < old.len() {
            out.push_str(old[at]);
            at += 1;
        }
        out
    }

    /// How many lines a diff deletes and inserts.
    fn changed(diff: &str) -> usize {
        diff.lines()
            .skip(2)
            .filter(|l| l.starts_with('-') || l.starts_with('+'))
            .count()
    }

    #[test]
    fn a_diff_applies_and_changes_as_few_lines_as_similars_own_for_every_pair_of_texts() {
        // Texts of lines drawn from a few, so that lines repeat, are
        // shared, moved and changed; some without a newline at the end.
        let mut seed = 0x2545_f491_u64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        let words = ["}", "", "  x", "fn f() {", "  let y = 1", "\r", "  y"];
        let text = |next: &mut dyn FnMut(u64) -> u64, lines: u64| -> String {
            let mut t: String = (0..lines)
                .map(|_| format!("{}\n", words[next(words.len() as u64) as usize]))
                .collect();
            // Some end without a newline, but never in a lone carriage
            // return, which a unified diff cannot tell from the line after.
            if next(4) == 0 {
                t.pop();
                if t.ends_with('\r') {
                    t.pop();
                }
            }
            t
        };
        for case in 0..2_000 {
            let lines = next(40);
            let old = text(&mut next, lines);
            let new = if next(3) == 0 {
                let lines = next(40);
                text(&mut next, lines)
            } else {
                // A few lines of `old` changed, the rest kept.
                old.lines()
                    .map(|l| {
                        if next(5) == 0 {
                            format!("{l} changed\n")
                        } else {
                            format!("{l}\n")
                        }
                    })
                    .collect()
            };
            let ours = unified_diff("f.cove", &old, &new);
            let theirs = similar::TextDiff::from_lines(&old, &new)
                .unified_diff()
                .context_radius(3)
                .header("f.cove", "f.cove")
                .to_string();
            assert_eq!(ours.is_empty(), old == new, "case {case}");
            if old != new {
                assert_eq!(patched(&old, &ours), new, "case {case}:\n{ours}");
                assert_eq!(
                    changed(&ours),
                    changed(&theirs),
                    "case {case}:\n{ours}\n{theirs}"
                );
            }
        }
    }

    #[test]
    fn a_diff_of_texts_with_no_line_in_common_deletes_every_line_and_inserts_every_line() {
        let old: String = (0..20_000)
            .map(|i| format!("fn g{i}(x:Int)->Int{{ x }}\n"))
            .collect();
        let new: String = (0..20_000)
            .map(|i| format!("fn g{i}(x: Int) -> Int {{\n  x\n}}\n\n"))
            .collect();
        let diff = unified_diff("f.cove", &old, &new);
        assert!(diff.starts_with("--- f.cove\n+++ f.cove\n@@ -1,20000 +1,80000 @@\n"));
        assert_eq!(changed(&diff), 100_000);
        assert_eq!(patched(&old, &diff), new);
    }
}
