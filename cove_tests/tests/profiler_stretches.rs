//! The untimed profilers are stopped only where a stretch starts and
//! spread each stretch's count over its instructions. These tests hold that
//! to the profiler that is stopped before every instruction, row by row, on
//! every program of the conformance suite: the counts and the heap figures
//! must be the same numbers, not close ones, on every instruction and in
//! every calling context, function and call site.
//!
//! It lives in `cove_tests` rather than in `cove_profile` because it reads
//! the runtime's conformance suite, which is outside the profiler's package.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cove_ir::program::FunctionId;
use cove_profile::report::Report;
use cove_profile::{Cost, Profiler, SteppingClock};
use cove_runtime::vm::debug::Debugger;
use cove_runtime::{Limits, Vm};

/// The conformance programs, walked as the conformance suite walks them:
/// each `.cove` file and each folder holding a `main.cove` is a program, any
/// other folder an area to walk into; each comes with the arguments and heap
/// bound its header asks for.
fn programs() -> Vec<(PathBuf, Vec<String>, Option<u64>)> {
    fn entries(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("the conformance suite is there") {
            let path = entry.expect("an entry").path();
            if path.is_dir() && path.join("main.cove").is_file() {
                found.push(path.join("main.cove"));
            } else if path.is_dir() {
                entries(&path, found);
            } else if path.extension().is_some_and(|e| e == "cove") {
                found.push(path);
            }
        }
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cove_runtime/tests/programs");
    let mut paths = Vec::new();
    entries(&dir, &mut paths);
    paths.sort();
    let mut found = Vec::new();
    for entry in paths {
        let source = std::fs::read_to_string(&entry).expect("it reads");
        let args = source
            .lines()
            .take_while(|l| l.starts_with("//"))
            .find_map(|l| l.strip_prefix("// args: "))
            .map(|a| a.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        let heap = source
            .lines()
            .take_while(|l| l.starts_with("//"))
            .find_map(|l| l.strip_prefix("// heap: "))
            .map(|h| h.trim().parse().expect("a heap header is a word count"));
        found.push((entry, args, heap));
    }
    found
}

/// Runs `main` under `debugger`; whether it returned, and the instructions
/// the run executed. A run that ends in a bug of the machine itself (a
/// panic it caught, such as a failed debug assertion of the dispatch loop)
/// fails the test here, whatever the other run did: it is never a race.
fn run<D: Debugger>(
    program: &cove_ir::program::Program,
    (args, heap): (&[String], Option<u64>),
    debugger: &D,
) -> (bool, u64) {
    let module = program
        .modules
        .last()
        .expect("an entry module")
        .name
        .clone();
    let mut vm = Vm::new(program)
        .with_output(Box::new(std::io::sink()))
        .with_error_output(Box::new(std::io::sink()))
        .with_args(args.to_vec())
        .with_limits(Limits {
            fuel: Some(1_000_000),
            max_heap_words: heap,
            ..Limits::default()
        })
        .with_debugger(debugger);
    let outcome = vm.run_entry(&module, "main", vec![]);
    if let Err(error) = &outcome {
        assert_ne!(
            error.kind,
            cove_runtime::ErrorKind::Internal,
            "{module}: {error}"
        );
    }
    (outcome.is_ok(), vm.instructions())
}

/// A cost's count and heap figures, without time.
fn figures(cost: &Cost) -> (u64, u64, u64) {
    (cost.ran, cost.words, cost.allocations)
}

/// What a profile says of its functions, call sites and calling contexts,
/// without time: each as one line, sorted.
fn contexts(program: &cove_ir::program::Program, profiler: &Profiler) -> Vec<String> {
    let profile = Report::new(program, profiler).profile();
    let mut lines: Vec<String> = Vec::new();
    for f in &profile.functions {
        lines.push(format!(
            "function {} calls {} own {:?} inclusive {:?}",
            f.name,
            f.calls,
            figures(&f.own.cost),
            figures(&f.inclusive.cost)
        ));
    }
    for c in &profile.calls {
        lines.push(format!(
            "call {} -> {} calls {} inclusive {:?}",
            c.caller,
            c.callee,
            c.calls,
            figures(&c.inclusive.cost)
        ));
    }
    // Each calling context by its id and its parent's: both profilers make
    // a context when its first call is made, so in the same order. (Its
    // whole path would take the square of a deep recursion's depth.)
    for s in &profile.stacks {
        lines.push(format!(
            "stack {} {} under {} {} calls {} {:?}",
            s.task,
            s.id,
            s.parent,
            s.function,
            s.calls,
            figures(&s.cost.cost)
        ));
    }
    lines.sort();
    lines
}

/// Every row's count and heap figures, without time.
fn untimed(rows: Vec<((FunctionId, u32), Cost)>) -> BTreeMap<(FunctionId, u32), (u64, u64, u64)> {
    rows.into_iter()
        .filter(|(_, c)| c.ran > 0 || c.words > 0 || c.allocations > 0)
        .map(|(at, c)| (at, figures(&c)))
        .collect()
}

#[test]
fn a_profile_stopped_at_stretches_counts_every_instruction_and_word_as_one_stopped_at_each() {
    let mut compared = 0;
    let mut failing = 0;
    for (entry, args, heap) in programs() {
        let Ok(program) = cove_compiler::compile_files(&entry) else {
            continue;
        };
        let every = Profiler::with_clock(SteppingClock::new(1));
        let (ok, executed) = run(&program, (&args, heap), &every);
        let stretches = Profiler::counting();
        let (same_ending, executed_again) = run(&program, (&args, heap), &stretches);
        if ok != same_ending || executed != executed_again {
            // A program whose tasks race (one exits while main runs) runs
            // differently twice; there is no one answer to compare.
            continue;
        }
        assert_eq!(every.counted(), executed, "{}", entry.display());
        // A run that ends in an error inside a stretch counts only what of
        // the stretch ran, as one stopped at every instruction does.
        assert_eq!(stretches.counted(), executed, "{}", entry.display());
        assert_eq!(
            untimed(stretches.rows()),
            untimed(every.rows()),
            "{}",
            entry.display()
        );
        assert_eq!(stretches.total().words, every.total().words);
        assert_eq!(stretches.total().allocations, every.total().allocations);
        assert_eq!(
            contexts(&program, &stretches),
            contexts(&program, &every),
            "{}",
            entry.display()
        );
        if ok {
            compared += 1;
        } else {
            failing += 1;
        }
    }
    assert!(
        compared > 100,
        "{compared} programs compared, {failing} failing"
    );
}

#[test]
fn a_counting_profile_has_no_time_and_a_sampling_one_says_what_its_time_rests_on() {
    let program = cove_compiler::compile_module(
        "m",
        "export fn main() -> Int {\n  var t = 0\n  var i = 0\n  while i < 3000000 {\n    t = t + i % 7\n    i = i + 1\n  }\n  t\n}\n",
    )
    .expect("it compiles");
    let counting = Profiler::counting();
    run(&program, (&[], None), &counting);
    assert_eq!(counting.total().nanos, 0);
    assert_eq!(counting.time_mode(), "none");
    assert!(counting.estimate().is_none());

    let sampling = Profiler::sampling();
    let (_, executed) = run(&program, (&[], None), &sampling);
    assert_eq!(sampling.counted(), executed);
    let estimate = sampling.estimate().expect("a sampling profiler estimates");
    assert!(estimate.samples > 0, "{estimate:?}");
    assert!(estimate.sampled_nanos > 0, "{estimate:?}");
    assert!(estimate.uncertainty > 0.0, "{estimate:?}");
    // The rows' time is the sampled time less the profiler's own, and
    // never less than nothing. The profiler's own is partly calibrated,
    // when the profiler is made: on a machine loaded enough that the
    // calibration is taken for more than the run then samples, nothing is
    // left, which is what the rows must say.
    let rows: u64 = sampling.rows().iter().map(|(_, c)| c.nanos).sum();
    let net = estimate
        .sampled_nanos
        .saturating_sub(estimate.overhead_nanos);
    let off = (rows as f64 - net as f64).abs() / estimate.sampled_nanos as f64;
    assert!(off < 0.05, "rows {rows} against net {net}: {estimate:?}");
}

/// Records the heap's counters at every stop, to hold the profile's totals
/// to the heap's own.
#[derive(Default)]
struct Heap(std::sync::Mutex<(u64, u64)>);

impl Debugger for Heap {
    fn at(&self, stop: &cove_runtime::vm::debug::Stop<'_>) -> cove_runtime::vm::debug::Resume {
        *self.0.lock().unwrap() = (stop.allocated_words(), stop.allocations());
        cove_runtime::vm::debug::Resume::Go
    }
}

#[test]
fn the_profiles_heap_totals_are_the_heaps_own_counters_constants_included() {
    // String constants are on the heap before the first instruction runs.
    let program = cove_compiler::compile_module(
        "m",
        "export fn main() -> Int {\n  let a = \"a constant\"\n  let b = \"another one\"\n  var n = 0\n  var i = 0\n  while i < 10 {\n    let s = \"{a}{i}\"\n    n = n + s.length() + b.length()\n    i = i + 1\n  }\n  n\n}\n",
    )
    .expect("it compiles");
    let heap = Heap::default();
    run(&program, (&[], None), &heap);
    let (words, allocations) = *heap.0.lock().unwrap();
    assert!(words > 0 && allocations > 0);
    for profiler in [
        Profiler::with_clock(SteppingClock::new(1)),
        Profiler::counting(),
    ] {
        run(&program, (&[], None), &profiler);
        // The last stop is before the entry's return, which allocates
        // nothing, so the counters it saw are the run's.
        assert_eq!(profiler.total().words, words, "{}", profiler.time_mode());
        assert_eq!(profiler.total().allocations, allocations);
    }
}

/// Runs `program`'s `main` under `debugger` with `fuel`; the instructions
/// the run executed.
fn run_with_fuel<D: Debugger>(program: &cove_ir::program::Program, fuel: u64, debugger: &D) -> u64 {
    let mut vm = Vm::new(program)
        .with_output(Box::new(std::io::sink()))
        .with_limits(Limits {
            fuel: Some(fuel),
            ..Limits::default()
        })
        .with_debugger(debugger);
    let _ = vm.run_entry("m", "main", vec![]);
    vm.instructions()
}

#[test]
fn a_run_out_of_fuel_inside_a_stretch_counts_only_what_of_it_ran() {
    // Calls, a loop of long stretches and an allocation a turn, so fuel
    // runs out at every kind of place: a stretch's first instruction, its
    // middle, its last, and the first of a callee.
    let program = cove_compiler::compile_module(
        "m",
        "fn f(a: Int, b: Int) -> Int {\n  let c = a * b + a - b\n  c % 1000 + 1\n}\n\
         export fn main() -> Int {\n  var t = 0\n  var s = \"\"\n  for i in 0..40 {\n    t = t + f(i, t) * 3 - i\n    s = \"{i}\"\n  }\n  t + s.length()\n}\n",
    )
    .expect("it compiles");
    let mut swept = 0;
    for fuel in 1..700 {
        let every = Profiler::with_clock(SteppingClock::new(1));
        let executed = run_with_fuel(&program, fuel, &every);
        let stretches = Profiler::counting();
        assert_eq!(run_with_fuel(&program, fuel, &stretches), executed);
        assert_eq!(every.counted(), executed, "fuel {fuel}");
        assert_eq!(stretches.counted(), executed, "fuel {fuel}");
        assert_eq!(
            untimed(stretches.rows()),
            untimed(every.rows()),
            "fuel {fuel}"
        );
        swept += 1;
    }
    assert_eq!(swept, 699);
}
