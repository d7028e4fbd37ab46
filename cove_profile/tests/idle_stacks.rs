//! Stacks of time and blocked time: folded stacks, speedscope and pprof
//! hold running time only, and a report made `with_idle` adds each path's
//! blocked time as a `(blocked)` leaf frame, leaving the rest as it was.

use cove_ir::program::{FunctionId, Program};
use cove_profile::report::{BLOCKED_FRAME, Metric, Report};
use cove_profile::{Profiler, Sample, SteppingClock};

/// A program of one function, `m.main`, and a profile of three of its
/// instructions, the second of which waited 500 ns.
fn waited() -> (Program, Profiler) {
    let program = cove_compiler::compile_module("m", "export fn main() -> Int {\n  1 + 2\n}\n")
        .unwrap_or_else(|d| panic!("{d}"));
    let profiler = Profiler::with_clock(SteppingClock::new(1));
    for (pc, blocked_nanos) in [(0, 0), (1, 0), (2, 500)] {
        profiler.record(&Sample {
            task: 0,
            function: FunctionId(0),
            pc,
            depth: 1,
            allocated_words: 0,
            allocations: 0,
            blocked_nanos,
        });
    }
    (program, profiler)
}

#[test]
fn folded_stacks_of_time_get_a_blocked_leaf_only_with_idle() {
    let (program, profiler) = waited();
    assert_eq!(profiler.blocked(), 500);
    let working = Report::new(&program, &profiler).folded(Metric::Nanos);
    let idle = Report::new(&program, &profiler)
        .with_idle(true)
        .folded(Metric::Nanos);
    assert!(!working.contains(BLOCKED_FRAME), "{working}");
    assert_eq!(idle, format!("{working}m.main;(blocked) 500\n"));
    // Counts have no blocked part: the same with or without.
    assert_eq!(
        Report::new(&program, &profiler)
            .with_idle(true)
            .folded(Metric::Ran),
        Report::new(&program, &profiler).folded(Metric::Ran)
    );
}

#[test]
fn speedscope_gets_a_blocked_frame_and_sample_only_with_idle() {
    let (program, profiler) = waited();
    let working = Report::new(&program, &profiler).speedscope();
    let idle = Report::new(&program, &profiler)
        .with_idle(true)
        .speedscope();
    assert!(!working.contains(BLOCKED_FRAME), "{working}");
    let document: serde_json::Value = serde_json::from_str(&idle).expect("JSON");
    let frames = document["shared"]["frames"].as_array().expect("frames");
    let blocked = frames
        .iter()
        .position(|f| f["name"] == BLOCKED_FRAME)
        .expect("a (blocked) frame");
    let time = document["profiles"]
        .as_array()
        .expect("profiles")
        .iter()
        .find(|p| p["unit"] == "nanoseconds")
        .expect("a time profile");
    let samples = time["samples"].as_array().expect("samples");
    let at = samples
        .iter()
        .position(|s| s.as_array().and_then(|s| s.last()) == Some(&blocked.into()))
        .expect("a sample ending in (blocked)");
    assert_eq!(time["weights"][at], 500);
}

#[test]
fn pprof_gets_a_blocked_function_and_sample_only_with_idle() {
    let (program, profiler) = waited();
    let blocked_samples = |idle: bool| {
        let profile = Report::new(&program, &profiler)
            .with_idle(idle)
            .pprof_profile();
        let named = profile.string_table.iter().position(|s| s == BLOCKED_FRAME);
        let function = profile
            .function
            .iter()
            .find(|f| Some(f.name as usize) == named)
            .map(|f| f.id);
        let location = profile
            .location
            .iter()
            .find(|l| Some(l.line[0].function_id) == function)
            .map(|l| l.id);
        profile
            .sample
            .iter()
            .filter(|s| location.is_some() && s.location_id.first() == location.as_ref())
            .map(|s| s.value.clone())
            .collect::<Vec<_>>()
    };
    assert!(blocked_samples(false).is_empty());
    assert_eq!(blocked_samples(true), vec![vec![0, 500, 0, 0]]);
}
