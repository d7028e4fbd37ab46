//! A sample of the conformance suite small enough for Miri: each program is
//! compiled, printed as IR, parsed back, verified and run, plainly and under
//! GC stress, and must print what its `.out` file says and end as its
//! header says.
//!
//! The VM's unsafe code (`vm/exec.rs`'s unchecked register and constant
//! reads, the heap's raw words) rests on what the verifier guarantees, so
//! the route here is the one a program from outside takes: printed text,
//! `cove_ir::parse`, `cove_ir::verify`, run. Under Miri
//! (`cargo +nightly miri test -p cove_runtime --test miri_sample`, see
//! `docs/RELIABILITY.md`) every memory access of those runs is checked for
//! undefined behaviour; natively it is one more fast test of the round
//! trip. The sample is a dozen short programs chosen to touch each kind of
//! heap object (strings, lists, maps, structs, enums, closures, tasks and
//! channels) and a fault; the whole suite under Miri would take hours.

use cove_runtime::{Limits, Vm};

mod support;
use support::Captured;

/// The sample, by conformance name (`area/stem`).
const SAMPLE: &[&str] = &[
    "arithmetic/error_overflow",
    "lists/list_basics",
    "lists/error_index_out_of_range",
    "maps/map_basics",
    "maps/map_of_lists",
    "strings/string_building",
    "strings/interpolation_of_structs_and_enums",
    "structs/structs",
    "patterns/enums_match",
    "functions/closures_capture_let_and_var",
    "tasks/nested_joins",
    "channels/ping_pong",
];

/// The value of the `// key: value` header line of `source`, if any.
fn header(source: &str, key: &str) -> Option<String> {
    source
        .lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix(&format!("// {key}: ")).map(str::to_string))
}

/// Runs the sample program `name` from its printed IR; what went wrong, if
/// anything.
fn check(name: &str, stress: bool) -> Result<(), String> {
    let found = support::programs::program(name);
    let source = std::fs::read_to_string(&found.entry).map_err(|e| e.to_string())?;
    let expected = std::fs::read_to_string(&found.out).unwrap_or_default();
    let compiled = cove_compiler::compile_files(&found.entry)
        .map_err(|d| format!("does not compile:\n{d}"))?;
    let text = cove_ir::print::program(&compiled);
    let program = cove_ir::parse::program(&text).map_err(|e| format!("its printed IR: {e}"))?;
    cove_ir::verify::program(&program).map_err(|e| format!("does not verify: {e:?}"))?;
    let module = program
        .modules
        .last()
        .map(|m| m.name.clone())
        .ok_or("no module")?;
    let out = Captured::default();
    let mut vm = Vm::new(&program)
        .with_output(Box::new(out.clone()))
        .with_error_output(Box::new(std::io::sink()))
        .with_limits(Limits {
            gc_stress: stress,
            fuel: Some(10_000_000),
            ..Limits::default()
        });
    let ended = vm.run_entry(&module, "main", vec![]);
    if out.text() != expected {
        return Err(format!("printed\n{}\ninstead of\n{expected}", out.text()));
    }
    match (ended, header(&source, "error")) {
        (Ok(_), None) => Ok(()),
        (Err(e), Some(kind)) if format!("{:?}", e.kind).starts_with(kind.trim()) => Ok(()),
        (Ok(v), Some(kind)) => Err(format!("returned {v} where {kind} was expected")),
        (Err(e), expected) => Err(format!("ended {:?} ({e}), not {expected:?}", e.kind)),
    }
}

#[test]
fn a_sample_of_the_suite_runs_from_printed_ir_plainly_and_under_gc_stress() {
    let mut problems = Vec::new();
    for name in SAMPLE {
        for stress in [false, true] {
            if let Err(why) = check(name, stress) {
                problems.push(format!("{name} (gc stress {stress}): {why}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
