//! The allocation-failure sweep, in the manner of Lua's `memerr.lua`: for
//! programs of the conformance suite, the first heap allocation fails, then
//! the second, the third, and so on until the program runs through. Each
//! failure must be a clean `HeapLimit` error carrying a Cove backtrace, and
//! what the program printed before it must be exactly the start of what it
//! prints when nothing fails. (`Vm::with_allocation_failure_at` is the
//! hook.)

use cove_runtime::{ErrorKind, Vm};

mod support;
use support::Captured;

/// Programs that allocate in many ways: strings, lists, maps, structs,
/// enums, options, tasks and channels.
const PROGRAMS: &[&str] = &[
    "process/hello",
    "strings/interpolation",
    "lists/list_basics",
    "maps/map_basics",
    "patterns/enums_match",
    "patterns/option_methods",
    "lists/list_join_sort",
    "channels/producer_and_consumer",
    "tasks/task_returns_a_struct",
    "tasks/task_copies_values",
    "lists/list_of_lists",
    "maps/map_of_lists",
    "strings/interpolation_of_containers",
];

/// No program here makes more allocations than this.
const MOST: u64 = 5_000;

#[test]
fn every_allocation_of_the_sweep_programs_fails_cleanly_with_the_output_before_it_intact() {
    let mut failures_checked = 0;
    for path in PROGRAMS {
        let found = support::programs::program(path);
        let name = found.entry.file_stem().unwrap().to_str().unwrap();
        let source = std::fs::read_to_string(&found.entry).expect("the program");
        let program =
            cove_compiler::compile_module(name, &source).unwrap_or_else(|d| panic!("{d}"));
        let run = |fail_at: Option<u64>| {
            let out = Captured::default();
            let mut vm = Vm::new(&program).with_output(Box::new(out.clone()));
            if let Some(n) = fail_at {
                vm = vm.with_allocation_failure_at(n);
            }
            let result = vm.run_entry(name, "main", vec![]);
            (result, out.text())
        };
        let (clean, full) = run(None);
        assert!(clean.is_ok(), "{name}: {clean:?}");
        let mut n = 1;
        loop {
            assert!(n <= MOST, "{name} allocates more than {MOST} times");
            let (result, printed) = run(Some(n));
            assert!(
                full.starts_with(&printed),
                "{name}, allocation {n}: printed {printed:?}, not a start of {full:?}"
            );
            match result {
                Ok(_) => {
                    assert_eq!(printed, full, "{name}");
                    break;
                }
                Err(error) => {
                    assert_eq!(
                        error.kind,
                        ErrorKind::HeapLimit,
                        "{name}, allocation {n}: {error}"
                    );
                    assert!(
                        error.message.contains("out of memory"),
                        "{name}, allocation {n}: {error}"
                    );
                    assert!(
                        !error.backtrace.is_empty(),
                        "{name}, allocation {n}: no backtrace"
                    );
                    failures_checked += 1;
                }
            }
            n += 1;
        }
    }
    println!("allocation failures checked: {failures_checked}");
    // Every program allocates: the sweep failed something in each.
    assert!(failures_checked >= PROGRAMS.len(), "{failures_checked}");
}
