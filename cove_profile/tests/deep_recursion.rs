//! Reports no bigger than the run's variety: a runaway recursion profiles
//! to reports whose size does not grow with its depth where its levels
//! are alike.
//!
//! Version 1 of the JSON wrote every calling context's whole path, so a
//! recursion n deep held n²/2 names (5,000 deep: 251 MB); version 2 a node
//! a level (100,000 deep: 23 MB); version 3 a chain of alike levels as one
//! entry; version 4 a chain that repeats a cycle of levels (a mutual
//! recursion's) as one entry too. These tests profile real recursions under a stepping clock,
//! which makes every level but the last alike, and assert on bytes and
//! frames, never on time.

use cove_profile::report::{
    ELIDED_FRAME, FOLDED_MAX_FRAMES, Metric, Profile, Report, SCHEMA_VERSION, StackEntry,
};
use cove_profile::{Profiler, SteppingClock};
use cove_runtime::{Value, Vm};

const DOWN: &str = "
fn down(n: Int) -> Int {
  if n == 0 {
    return 0
  }
  1 + down(n - 1)
}
export fn start(depth: Int) -> Int {
  down(depth)
}
";

/// Three functions that call each other in a cycle, one level each.
const CYCLE: &str = "
fn a(n: Int) -> Int {
  if n == 0 {
    return 0
  }
  1 + b(n - 1)
}
fn b(n: Int) -> Int {
  if n == 0 {
    return 0
  }
  2 + c(n - 1)
}
fn c(n: Int) -> Int {
  if n == 0 {
    return 0
  }
  3 + a(n - 1)
}
export fn start(depth: Int) -> Int {
  a(depth)
}
";

/// The JSON and folded (by instructions) reports of `down(depth)`.
fn reports(depth: i64) -> (String, String) {
    reports_of(DOWN, depth)
}

/// The JSON and folded (by instructions) reports of `start(depth)` of
/// `source`.
fn reports_of(source: &str, depth: i64) -> (String, String) {
    let program = cove_compiler::compile_module("deep", source).unwrap_or_else(|d| panic!("{d}"));
    let profiler = Profiler::with_clock(SteppingClock::new(1));
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("deep", "start", vec![Value::Int(depth)])
        .expect("it runs");
    drop(vm);
    let report = Report::new(&program, &profiler);
    (report.json(), report.folded(Metric::Ran))
}

#[test]
fn a_recursion_20000_deep_profiles_to_a_small_json_that_reads_back_every_level() {
    let (json, _) = reports(20_000);
    // The alike levels are one entry: the profile's other sections and a
    // few entries, under 64 KiB. A node a level was about 5 MB, and whole
    // paths 20,000²/2 names, gigabytes.
    assert!(
        json.len() < 64 * 1024,
        "{} bytes for 20,000 frames",
        json.len()
    );
    let profile = Profile::from_json(&json).expect("it reads back");
    assert_eq!(profile.version, SCHEMA_VERSION);
    assert_eq!(profile.stacks.len(), 20_002, "start and 20,001 of down");
    let deepest = profile.stacks.last().expect("a node");
    assert_eq!(profile.stack_of(deepest.task, deepest.id).len(), 20_002);
}

#[test]
fn a_mutual_recursion_20000_deep_profiles_to_a_small_json_that_reads_back_every_level() {
    // 20,000 is not a multiple of the cycle's three functions: the chain
    // ends part of the way round it.
    let (json, _) = reports_of(CYCLE, 20_000);
    // The cycle's levels are one entry: a node a level was about 5 MB.
    assert!(
        json.len() < 64 * 1024,
        "{} bytes for 20,000 frames",
        json.len()
    );
    let profile = Profile::from_json(&json).expect("it reads back");
    assert_eq!(profile.stacks.len(), 20_002, "start and 20,001 levels");
    let deepest = profile.stacks.last().expect("a node");
    let path = profile.stack_of(deepest.task, deepest.id);
    assert_eq!(path.len(), 20_002);
    // Every level is the function the cycle puts there, the last included.
    let cycle = ["deep.a", "deep.b", "deep.c"];
    for (level, function) in path.iter().skip(1).enumerate() {
        assert_eq!(*function, cycle[level % 3], "level {level}");
    }
    // And it reads back to itself, cycle and all.
    let again = Profile::from_json(&profile.to_json()).expect("it reads back");
    assert_eq!(again.stacks, profile.stacks);
}

#[test]
fn a_mutual_recursion_twice_as_deep_has_a_json_no_bigger() {
    let (short, _) = reports_of(CYCLE, 5_000);
    let (long, _) = reports_of(CYCLE, 10_000);
    let ratio = long.len() as f64 / short.len() as f64;
    assert!(ratio < 1.1, "json: ×{ratio:.2}");
}

#[test]
fn a_recursion_twice_as_deep_has_a_json_and_a_folded_report_no_bigger() {
    let (json_short, folded_short) = reports(5_000);
    let (json_long, folded_long) = reports(10_000);
    let ratio = |a: &str, b: &str| b.len() as f64 / a.len() as f64;
    // The JSON's alike levels are one entry whatever their number: a node
    // a level would be 2, whole paths 4.
    let json = ratio(&json_short, &json_long);
    assert!(json < 1.1, "json: ×{json:.2}");
    // Folded lines are capped, and every level below the cap of one
    // function's recursion folds into one line: no bigger at all.
    let folded = ratio(&folded_short, &folded_long);
    assert!(folded < 1.1, "folded: ×{folded:.2}");
}

/// The speedscope file of `down(depth)`, and its pprof profile's samples
/// and their instructions all told, with the run's instructions.
fn viewer_reports(depth: i64) -> (String, usize, i64, u64) {
    let program = cove_compiler::compile_module("deep", DOWN).unwrap_or_else(|d| panic!("{d}"));
    let profiler = Profiler::with_clock(SteppingClock::new(1));
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("deep", "start", vec![Value::Int(depth)])
        .expect("it runs");
    let ran = vm.instructions();
    drop(vm);
    let report = Report::new(&program, &profiler);
    let pprof = report.pprof_profile();
    let instructions = pprof.sample.iter().map(|s| s.value[0]).sum();
    (report.speedscope(), pprof.sample.len(), instructions, ran)
}

#[test]
fn a_recursion_twice_as_deep_has_speedscope_and_pprof_reports_no_bigger_and_every_instruction_in_them()
 {
    let (short, short_samples, short_ran, ran) = viewer_reports(5_000);
    assert_eq!(short_ran as u64, ran, "the samples hold every instruction");
    let (long, long_samples, long_ran, ran) = viewer_reports(10_000);
    assert_eq!(long_ran as u64, ran, "the samples hold every instruction");
    // Every level below the cut shares one cut path, and so one sample: a
    // sample a level was 26 MB for a recursion 100,000 deep.
    let ratio = long.len() as f64 / short.len() as f64;
    assert!(ratio < 1.1, "speedscope: ×{ratio:.2}");
    assert!(long.len() < 256 * 1024, "{} bytes", long.len());
    assert_eq!(long_samples, short_samples, "pprof's samples");
    // A sample for each line of `down` (three) that ran on each cut path.
    assert!(
        long_samples <= 3 * FOLDED_MAX_FRAMES,
        "{long_samples} samples"
    );
    let speedscope: serde_json::Value = serde_json::from_str(&long).expect("JSON");
    let instructions: u64 = speedscope["profiles"][0]["weights"]
        .as_array()
        .expect("weights")
        .iter()
        .map(|w| w.as_u64().expect("a count"))
        .sum();
    assert_eq!(
        instructions, ran,
        "speedscope's weights hold every instruction"
    );
}

#[test]
fn a_folded_line_deeper_than_the_cap_keeps_its_outermost_frames_an_ellipsis_and_its_innermost() {
    let (_, folded) = reports(1_000);
    let mut total = 0u64;
    let mut cut = 0;
    for line in folded.lines() {
        let (stack, n) = line.rsplit_once(' ').expect("a count");
        total += n.parse::<u64>().expect("a number");
        let frames: Vec<&str> = stack.split(';').collect();
        assert!(frames.len() <= FOLDED_MAX_FRAMES, "{} frames", frames.len());
        if frames.contains(&ELIDED_FRAME) {
            cut += 1;
            assert_eq!(frames.len(), FOLDED_MAX_FRAMES);
            assert_eq!(frames[FOLDED_MAX_FRAMES - 2], ELIDED_FRAME);
            assert_eq!(frames[0], "deep.start");
            assert_eq!(frames[FOLDED_MAX_FRAMES - 1], "deep.down");
        }
    }
    assert_eq!(cut, 1, "every deeper level folds into one line:\n{folded}");
    let program = cove_compiler::compile_module("deep", DOWN).unwrap_or_else(|d| panic!("{d}"));
    let profiler = Profiler::new();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("deep", "start", vec![Value::Int(1_000)])
        .expect("it runs");
    assert_eq!(total, vm.instructions(), "the lines still sum to the run");
}

#[test]
fn a_shallow_path_is_written_whole_as_before() {
    let (_, folded) = reports(3);
    assert!(
        folded.contains("deep.start;deep.down;deep.down;deep.down;deep.down "),
        "{folded}"
    );
    assert!(!folded.contains(ELIDED_FRAME), "{folded}");
}

/// `json`, a profile of this version, rewritten as `version` wrote it,
/// with each calling-context node the stack entry `entry` makes of it,
/// and read back.
fn written_as(
    json: &str,
    version: u32,
    entry: impl Fn(&StackEntry) -> serde_json::Value,
) -> Profile {
    let profile = Profile::from_json(json).expect("this version reads");
    let mut value: serde_json::Value = serde_json::from_str(json).expect("JSON");
    value["version"] = version.into();
    value["stacks"] = profile.stacks.iter().map(entry).collect();
    Profile::from_json(&value.to_string())
        .unwrap_or_else(|e| panic!("version {version} reads: {e}"))
}

#[test]
fn a_version_1_profile_with_whole_paths_reads_as_the_tree() {
    let (json, _) = reports(4);
    let profile = Profile::from_json(&json).expect("this version reads");
    // The same profile as version 1 wrote it: every node's whole path.
    let old = written_as(&json, 1, |node| {
        serde_json::json!({
            "task": node.task,
            "stack": profile.stack_of(node.task, node.id),
            "cost": node.cost,
        })
    });
    assert_eq!(old.version, SCHEMA_VERSION);
    assert_eq!(old.stacks.len(), profile.stacks.len());
    for (a, b) in old.stacks.iter().zip(&profile.stacks) {
        assert_eq!(
            (a.task, a.id, a.parent, &a.function, a.cost),
            (b.task, b.id, b.parent, &b.function, b.cost)
        );
        assert_eq!(a.calls, 0, "version 1 had no call counts");
    }
}

#[test]
fn a_version_2_profile_with_a_node_an_entry_reads_as_the_same_tree() {
    let (json, _) = reports(50);
    let profile = Profile::from_json(&json).expect("this version reads");
    // The same profile as version 2 wrote it: every node an entry.
    let old = written_as(&json, 2, |node| {
        serde_json::json!({
            "task": node.task, "id": node.id, "parent": node.parent,
            "function": node.function, "calls": node.calls, "cost": node.cost,
        })
    });
    assert_eq!(old.version, SCHEMA_VERSION);
    assert_eq!(old.stacks, profile.stacks);
    assert_eq!(profile.stacks.len(), 52, "start and 51 levels of down");
}

#[test]
fn a_version_3_profile_with_chains_of_one_function_reads_as_the_same_tree() {
    // Version 3 wrote a recursion of one function as this version does:
    // chains without cycles.
    let (json, _) = reports(50);
    let profile = Profile::from_json(&json).expect("this version reads");
    let mut value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert!(
        value["stacks"]
            .as_array()
            .expect("stacks")
            .iter()
            .all(|entry| entry.get("cycle").is_none()),
        "a recursion of one function has no cycle"
    );
    value["version"] = 3.into();
    let old = Profile::from_json(&value.to_string()).expect("version 3 reads");
    assert_eq!(old.version, SCHEMA_VERSION);
    assert_eq!(old.stacks, profile.stacks);
}

#[test]
fn a_chain_repeating_more_nodes_than_a_profile_may_is_refused_not_expanded() {
    let (json, _) = reports(3);
    let mut value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    value["stacks"][0]["repeat"] = 4_000_000_000u32.into();
    let refused = Profile::from_json(&value.to_string()).expect_err("refused");
    assert!(refused.to_string().contains("repeat"), "{refused}");
}
