//! Formatting never changes what a program computes: every program of the
//! conformance suite (`cove_runtime/tests/programs`) is made messy (tabs,
//! stripped indentation, uneven spacing: see `support::covefmt::messy`;
//! the suite itself is formatted already, so formatting it as it is would
//! prove little), formatted by covefmt into a copy of the suite, and each
//! copy is run and compared with what the suite expects of the original:
//! its exact output, and the kind of error it ends in (or that it ends
//! without one).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cove_runtime::{Limits, Vm};

mod support;
use support::covefmt::{formatted, messy};
use support::root;

/// A writer whose clones share one buffer, to read a run's output back.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Copies every `.cove` file under `from` to the same place under `to`,
/// made messy and formatted.
fn format_tree(from: &Path, to: &Path) -> usize {
    std::fs::create_dir_all(to).unwrap();
    let mut count = 0;
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            count += format_tree(&path, &target);
        } else if path.extension().is_some_and(|e| e == "cove") {
            let source = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&target, formatted(&messy(&source))).unwrap();
            count += 1;
        }
    }
    count
}

/// The programs of a copy of the suite, walked as the conformance suite
/// walks them: each `.cove` file and each folder holding a `main.cove` is a
/// program, any other folder an area to walk into. Each comes with its path
/// under `dir` without the extension (where its `.out` is in the suite) and
/// its entry file, sorted by that path.
fn programs(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    fn walk(root: &Path, dir: &Path, found: &mut Vec<(PathBuf, PathBuf)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.strip_prefix(root).unwrap().with_extension("");
            if path.is_dir() && path.join("main.cove").is_file() {
                found.push((name, path.join("main.cove")));
            } else if path.is_dir() {
                walk(root, &path, found);
            } else if path.extension().is_some_and(|e| e == "cove") {
                found.push((name, path));
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, dir, &mut found);
    found.sort();
    found
}

/// The value of the header comment `// key: value` at the top of `source`.
fn header(source: &str, key: &str) -> Option<String> {
    source
        .lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix(&format!("// {key}: ")).map(str::to_string))
}

#[test]
fn every_formatted_conformance_program_prints_and_ends_as_the_suite_expects() {
    let suite = root().join("cove_runtime/tests/programs");
    let copy = tempfile::tempdir().unwrap();
    assert!(format_tree(&suite, copy.path()) > 200);
    let mut failures = Vec::new();
    let mut ran = 0;
    for (name, entry) in programs(copy.path()) {
        let shown = name.display();
        let source = std::fs::read_to_string(&entry).unwrap();
        let expected =
            std::fs::read_to_string(suite.join(&name).with_extension("out")).unwrap_or_default();
        let program = match cove_compiler::compile_files(&entry) {
            Ok(p) => p,
            Err(d) => {
                failures.push(format!(
                    "{shown}: the formatted program does not compile:\n{d}"
                ));
                continue;
            }
        };
        let module = program.modules.last().unwrap().name.clone();
        let out = Captured::default();
        let args = header(&source, "args")
            .map(|a| a.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        let mut vm = Vm::new(&program)
            .with_output(Box::new(out.clone()))
            .with_error_output(Box::new(Captured::default()))
            .with_args(args)
            .with_limits(Limits {
                max_heap_words: header(&source, "heap").map(|h| h.trim().parse().unwrap()),
                ..Limits::default()
            });
        let outcome = vm.run_entry(&module, "main", vec![]);
        let printed = String::from_utf8_lossy(&out.0.lock().unwrap()).into_owned();
        if printed != expected {
            failures.push(format!("{shown}: prints\n{printed}instead of\n{expected}"));
        }
        let ended = outcome.err().map(|e| format!("{:?}", e.kind));
        if ended != header(&source, "error") {
            failures.push(format!("{shown}: ends in {ended:?}"));
        }
        ran += 1;
    }
    assert!(ran > 200, "only {ran} programs ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
