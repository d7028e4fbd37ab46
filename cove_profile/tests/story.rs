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
