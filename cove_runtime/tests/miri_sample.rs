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
//! trip. The sample is twenty-one short programs chosen to touch each kind of
//! heap object (strings, lists, maps, structs, enums, closures), the
//! strings a listed map keeps for its keys, a fault,
//! the fused tests of an `Option` that unwrap it (on both of their paths),
//! the fused step and read of a scan's index (`step.get.list`),
//! and values copied between tasks' heaps through spawn, join and channels;
//! the whole suite under Miri would take hours.
//!
//! What it costs: natively a few milliseconds; under Miri minutes of CPU.
//! Miri interprets every instruction, and most of this test's
//! instructions were the route, not the runs (printing and parsing the IR,
//! then verifying it once in the test and again in `Vm::new`, for each of
//! the two runs). So the route is taken once a program, the proof is given
//! to both runs, and under Miri the print and parse (safe code, which the
//! native run checks gives the compiled program back unchanged) are left
//! out. `channels/ping_pong` stays out of the sample: its 2,000 round
//! trips between two tasks ran more than seven minutes under Miri
//! unfinished.

use cove_runtime::{Limits, Vm};

mod support;
use support::Captured;

/// A test of one sample program: it reads the source and expected output
/// at compile time, so that the test opens no file (Miri's isolation
/// forbids it), and runs it plainly and under GC stress. One test a
/// program, so that Miri shows its progress and a run can pick a few.
macro_rules! sample {
    ($test:ident, $name:literal) => {
        #[test]
        fn $test() {
            let source = include_str!(concat!("programs/", $name, ".cove"));
            let expected = include_str!(concat!("programs/", $name, ".out"));
            if let Err(why) = check(source, expected) {
                panic!("{}: {why}", $name);
            }
        }
    };
}

/// The value of the `// key: value` header line of `source`, if any.
fn header(source: &str, key: &str) -> Option<String> {
    source
        .lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix(&format!("// {key}: ")).map(str::to_string))
}

/// Runs a sample program from its printed IR, plainly and then under GC
/// stress; what went wrong, if anything.
///
/// The route (compile, print, parse, verify) is taken once and its proof
/// given to both runs (`Vm::from_verified`), where `Vm::new` would verify
/// the program again each run. Natively the parsed program must equal the
/// compiled one, so the printed text is the program exactly. Under Miri
/// the print and the parse are left out and the compiled program is run:
/// the native run of this same test has shown they give it back
/// unchanged, and they are safe code (`cove_ir` has no `unsafe`) that was
/// most of what Miri spent its time on (see `docs/RELIABILITY.md`).
fn check(source: &str, expected: &str) -> Result<(), String> {
    let compiled = cove_compiler::compile_module("m", source)
        .map_err(|d| format!("does not compile:\n{d}"))?;
    let program = if cfg!(miri) {
        compiled
    } else {
        let text = cove_ir::print::program(&compiled);
        let parsed = cove_ir::parse::program(&text).map_err(|e| format!("its printed IR: {e}"))?;
        if parsed != compiled {
            return Err("its printed IR parses back to a different program".to_string());
        }
        parsed
    };
    let proof =
        cove_ir::verify::program(&program).map_err(|e| format!("does not verify: {e:?}"))?;
    let module = program
        .modules
        .last()
        .map(|m| m.name.clone())
        .ok_or("no module")?;
    for stress in [false, true] {
        run(proof, &module, source, expected, stress)
            .map_err(|why| format!("(gc stress {stress}) {why}"))?;
    }
    Ok(())
}

/// One run of a verified sample program: it must print `expected` and end
/// as the source's header says.
fn run(
    proof: cove_ir::verify::Verified<'_>,
    module: &str,
    source: &str,
    expected: &str,
    stress: bool,
) -> Result<(), String> {
    let out = Captured::default();
    let mut vm = Vm::from_verified(proof)
        .with_output(Box::new(out.clone()))
        .with_error_output(Box::new(std::io::sink()))
        .with_limits(Limits {
            gc_stress: stress,
            fuel: Some(10_000_000),
            ..Limits::default()
        });
    let ended = vm.run_entry(module, "main", vec![]);
    if out.text() != expected {
        return Err(format!("printed\n{}\ninstead of\n{expected}", out.text()));
    }
    match (ended, header(source, "error")) {
        (Ok(_), None) => Ok(()),
        (Err(e), Some(kind)) if format!("{:?}", e.kind).starts_with(kind.trim()) => Ok(()),
        (Ok(v), Some(kind)) => Err(format!("returned {v} where {kind} was expected")),
        (Err(e), expected) => Err(format!("ended {:?} ({e}), not {expected:?}", e.kind)),
    }
}

sample!(
    arithmetic_error_overflow_runs_from_printed_ir,
    "arithmetic/error_overflow"
);
sample!(lists_list_basics_runs_from_printed_ir, "lists/list_basics");
sample!(
    lists_error_index_out_of_range_runs_from_printed_ir,
    "lists/error_index_out_of_range"
);
sample!(maps_map_basics_runs_from_printed_ir, "maps/map_basics");
sample!(maps_map_of_lists_runs_from_printed_ir, "maps/map_of_lists");
sample!(
    maps_listed_keys_outlive_collections_runs_from_printed_ir,
    "maps/listed_keys_outlive_collections"
);
sample!(
    strings_string_building_runs_from_printed_ir,
    "strings/string_building"
);
sample!(
    strings_interpolation_of_structs_and_enums_runs_from_printed_ir,
    "strings/interpolation_of_structs_and_enums"
);
sample!(
    strings_literals_in_a_loop_are_loaded_once_and_survive_collections_runs_from_printed_ir,
    "strings/literals_in_a_loop_are_loaded_once_and_survive_collections"
);
sample!(
    calls_tuples_returned_to_a_let_are_taken_apart_in_registers_runs_from_printed_ir,
    "calls/tuples_returned_to_a_let_are_taken_apart_in_registers"
);
sample!(structs_structs_runs_from_printed_ir, "structs/structs");
sample!(
    patterns_enums_match_runs_from_printed_ir,
    "patterns/enums_match"
);
sample!(
    functions_closures_capture_let_and_var_runs_from_printed_ir,
    "functions/closures_capture_let_and_var"
);
sample!(
    tasks_task_copies_values_runs_from_printed_ir,
    "tasks/task_copies_values"
);
sample!(
    channels_channel_strings_runs_from_printed_ir,
    "channels/channel_strings"
);
sample!(
    control_flow_threaded_jumps_and_option_tests_runs_from_printed_ir,
    "control_flow/threaded_jumps_and_option_tests"
);
sample!(
    lists_a_scan_that_steps_its_index_reads_the_stepped_element_runs_from_printed_ir,
    "lists/a_scan_that_steps_its_index_reads_the_stepped_element"
);
sample!(
    arithmetic_a_constant_added_to_a_sum_on_one_line_runs_from_printed_ir,
    "arithmetic/a_constant_added_to_a_sum_on_one_line"
);
sample!(
    functions_list_methods_taking_functions_runs_from_printed_ir,
    "functions/list_methods_taking_functions"
);
sample!(
    arithmetic_a_sum_returned_at_once_runs_from_printed_ir,
    "arithmetic/a_sum_returned_at_once"
);
sample!(
    arithmetic_a_remainder_added_on_one_line_runs_from_printed_ir,
    "arithmetic/a_remainder_added_on_one_line"
);
sample!(
    control_flow_a_remainder_tested_against_zero_branches_as_the_pair_runs_from_printed_ir,
    "control_flow/a_remainder_tested_against_zero_branches_as_the_pair"
);
sample!(
    strings_comparisons_read_views_plain_and_shared_strings_runs_from_printed_ir,
    "strings/comparisons_read_views_plain_and_shared_strings"
);
sample!(
    arithmetic_a_product_by_a_constant_added_on_one_line_runs_from_printed_ir,
    "arithmetic/a_product_by_a_constant_added_on_one_line"
);
sample!(
    calls_a_call_whose_first_argument_is_a_constant_added_runs_from_printed_ir,
    "calls/a_call_whose_first_argument_is_a_constant_added"
);
