//! The two programs `docs/PROFILING.md` profiles and diffs still compile,
//! still agree on their answer, and still tell the story the docs tell:
//! far fewer instructions after, and more allocations.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use cove_profile::Profiler;
use cove_profile::report::Report;
use cove_runtime::Vm;

/// Standard output kept in memory.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("a lock").extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn profiled(version: &str) -> (String, cove_profile::report::Profile) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/story/{version}/words.cove"));
    let program = cove_compiler::compile_files(&path).unwrap_or_else(|d| panic!("{d}"));
    let profiler = Profiler::new();
    let out = Captured::default();
    let mut vm = Vm::new(&program)
        .with_debugger(&profiler)
        .with_output(Box::new(out.clone()));
    vm.run_entry("words", "main", Vec::new()).expect("it runs");
    drop(vm);
    let printed = String::from_utf8(out.0.lock().expect("a lock").clone()).expect("text");
    (printed, Report::new(&program, &profiler).profile())
}

#[test]
fn the_story_programs_agree_and_the_second_runs_fewer_instructions_and_allocates_more() {
    let (before_out, before) = profiled("before");
    let (after_out, after) = profiled("after");
    assert_eq!(before_out, after_out, "both count the same words");
    assert!(
        after.total.ran * 10 < before.total.ran,
        "{} against {}",
        after.total.ran,
        before.total.ran
    );
    assert!(after.total.allocations > before.total.allocations);
    let diff = cove_profile::diff::Diff::new(&before, &after);
    let most_new_allocations = diff
        .rows("callee")
        .iter()
        .max_by_key(|row| row.after.allocations as i128 - row.before.allocations as i128)
        .expect("callees");
    assert_eq!(
        most_new_allocations.name,
        "String.split",
        "{}",
        diff.table(0)
    );
}

/// A profile of one version of the word search of `examples/story/`, with
/// its subject recorded as `cove profile` records it.
fn searched(version: &str) -> (String, cove_profile::report::Profile) {
    let entry = format!("examples/story/search_{version}.cove");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(&entry);
    let program = cove_compiler::compile_files(&path).unwrap_or_else(|d| panic!("{d}"));
    let profiler = Profiler::new();
    let out = Captured::default();
    let mut vm = Vm::new(&program)
        .with_debugger(&profiler)
        .with_output(Box::new(out.clone()));
    vm.run_entry(&format!("search_{version}"), "main", Vec::new())
        .expect("it runs");
    drop(vm);
    let printed = String::from_utf8(out.0.lock().expect("a lock").clone()).expect("text");
    let profile = Report::new(&program, &profiler)
        .with_subject(&entry, &[])
        .profile();
    (printed, profile)
}

#[test]
fn the_three_word_searches_agree_and_the_builtins_run_a_tenth_of_the_instructions() {
    let (bytes_out, bytes) = searched("bytes");
    let (contains_out, contains) = searched("contains");
    let (split_out, split) = searched("split");
    assert_eq!(bytes_out, "6667\n");
    assert_eq!(contains_out, bytes_out);
    assert_eq!(split_out, bytes_out);
    for builtin in [&contains, &split] {
        // Under an eighth since the emitter fuses adjacent moves (`move2`),
        // which took an eighth of the byte loop's instructions away.
        assert!(
            builtin.total.ran * 7 < bytes.total.ran,
            "{} against {}",
            builtin.total.ran,
            bytes.total.ran
        );
    }
    // Twelve allocations a line against the byte loop's four: a list, its
    // array and eight words, less the two `a`s, which are the heap's one
    // shared string of that character.
    assert!(split.total.allocations > 2 * bytes.total.allocations);
    assert_eq!(contains.total.allocations, bytes.total.allocations);

    // Three files, three entry modules, one program: the diff pairs them.
    let diff = cove_profile::diff::Diff::checked(&bytes, &split).expect("one program");
    assert_eq!(diff.paired(), Some(("search_bytes", "search_split")));
    let has_fox = diff
        .rows("function")
        .iter()
        .find(|row| row.name == "search_bytes.has_fox")
        .expect("has_fox paired");
    assert_eq!(has_fox.after.ran, 100_000, "five instructions a line");
    let split_row = diff
        .rows("callee")
        .iter()
        .find(|row| row.name == "String.split")
        .expect("the new builtin");
    assert_eq!(split_row.before.ran, 0);
    assert_eq!(split_row.after.ran, 20_000, "once a line");
    assert!(diff.table(5).starts_with("verdict: "));
}
