//! A spawned task's counts in the untimed modes, which stop only where a
//! stretch starts: each task's rows, total and calling contexts are what a
//! profiler stopped at every instruction counts.

use cove_ir::program::FunctionId;
use cove_profile::report::{Metric, Report};
use cove_profile::{Cost, Profiler, SteppingClock};
use cove_runtime::Vm;

/// Two workers that loop, allocate and call, and main, which joins them.
const POOL: &str = "
fn work(n: Int) -> Int {
  var s = 0
  var names = List[String]()
  for i in 0..n {
    s += i % 7
    if i % 10 == 0 {
      names.push(\"n{i}\")
    }
  }
  s + names.length()
}
fn worker(n: Int) -> Int {
  work(n) + work(n / 2)
}
export fn main() -> Int {
  let a = spawn worker(300)
  let b = spawn worker(700)
  a.join() + b.join()
}
";

/// What a profile of `POOL` saw, untimed: the rows (ran, words and
/// allocations only), each task's total of those, and the folded stacks of
/// instructions and of words.
type Seen = (Vec<((FunctionId, u32), Cost)>, Vec<Cost>, String, String);

/// A worker that faults in the middle of a stretch: the division by zero
/// is followed, in its stretch, by instructions that never run.
const FAULTING: &str = "
fn work(n: Int) -> Int {
  var s = 0
  for i in 0..n {
    s += i % 7
  }
  let zero = s - s
  let q = s / zero
  let r = q * 3 + s
  r - 1
}
export fn main() -> Int {
  let a = spawn work(500)
  a.join()
}
";

/// What `profiler`, following tasks, saw of `POOL`.
fn profiled(profiler: Profiler) -> Seen {
    profiled_run(profiler, POOL, true)
}

/// What `profiler`, following tasks, saw of `source`'s run, which
/// succeeds or fails as `succeeds` says.
fn profiled_run(profiler: Profiler, source: &str, succeeds: bool) -> Seen {
    let profiler = profiler.following_tasks();
    let program = cove_compiler::compile_module("pool", source).unwrap_or_else(|d| panic!("{d}"));
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    let result = vm.run_entry("pool", "main", Vec::new());
    assert_eq!(result.is_ok(), succeeds, "{result:?}");
    drop(vm);
    let untimed = |cost: &Cost| Cost {
        ran: cost.ran,
        words: cost.words,
        allocations: cost.allocations,
        ..Cost::default()
    };
    let rows = profiler
        .rows()
        .iter()
        .map(|(at, cost)| (*at, untimed(cost)))
        .filter(|(_, cost)| !cost.is_empty())
        .collect();
    let report = Report::new(&program, &profiler);
    let tasks = report
        .profile()
        .tasks
        .iter()
        .map(|task| untimed(&task.total))
        .collect();
    (
        rows,
        tasks,
        report.folded(Metric::Ran),
        report.folded(Metric::Words),
    )
}

#[test]
fn a_spawned_task_counted_at_stretches_counts_what_one_stopped_at_every_instruction_does() {
    let every = profiled(Profiler::with_clock(SteppingClock::new(1)));
    let stretches = profiled(Profiler::counting());
    assert_eq!(every.1.len(), 3, "main and two workers");
    // The second worker's 1,050 turns, each at least three instructions.
    assert!(every.1[2].ran > 3_000, "{:?}", every.1);
    assert_eq!(stretches.1, every.1, "each task's total");
    assert_eq!(stretches.0, every.0, "each instruction's row");
    assert_eq!(stretches.2, every.2, "each calling context's instructions");
    assert_eq!(stretches.3, every.3, "each calling context's words");
}

#[test]
fn a_spawned_task_that_faults_inside_a_stretch_counts_only_what_ran_of_it() {
    let every = profiled_run(Profiler::with_clock(SteppingClock::new(1)), FAULTING, false);
    let stretches = profiled_run(Profiler::counting(), FAULTING, false);
    assert_eq!(every.1.len(), 2, "main and the worker");
    assert_eq!(stretches.1, every.1, "each task's total");
    assert_eq!(stretches.0, every.0, "each instruction's row");
    assert_eq!(stretches.2, every.2, "each calling context's instructions");
}
