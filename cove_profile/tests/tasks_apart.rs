//! Tasks apart: a profile that follows spawned tasks keeps each task's
//! costs to itself, in the JSON, in folded stacks (one `task N` root a
//! task) and so in the flame graph.

use cove_profile::report::{Metric, Profile, Report};
use cove_profile::{Profiler, SteppingClock};
use cove_runtime::Vm;

/// Two tasks running the same function on different amounts of work, and
/// main's own loop: every count is a function of the program alone.
const POOL: &str = "
fn work(n: Int) -> Int {
  var s = 0
  for i in 0..n {
    s += i
  }
  s
}
fn worker(n: Int) -> Int {
  work(n)
}
export fn main() -> Int {
  let a = spawn worker(10)
  let b = spawn worker(20)
  let own = work(5)
  a.join() + b.join() + own - 245
}
";

/// `POOL` profiled, following its tasks or not.
fn profiled(follow: bool) -> (Profile, String) {
    let program = cove_compiler::compile_module("pool", POOL).unwrap_or_else(|d| panic!("{d}"));
    let mut profiler = Profiler::with_clock(SteppingClock::new(1));
    if follow {
        profiler = profiler.following_tasks();
    }
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    let result = vm.run_entry("pool", "main", Vec::new()).expect("it runs");
    assert_eq!(result, cove_runtime::Value::Int(0));
    drop(vm);
    let report = Report::new(&program, &profiler);
    (report.profile(), report.folded(Metric::Ran))
}

/// The sum of the folded counts of the lines under `root`.
fn under(folded: &str, root: &str) -> u64 {
    folded
        .lines()
        .filter(|line| line.starts_with(root))
        .map(|line| {
            line.rsplit_once(' ')
                .and_then(|(_, n)| n.parse::<u64>().ok())
                .expect("a count")
        })
        .sum()
}

#[test]
fn followed_tasks_are_one_root_each_in_the_folded_stacks() {
    let (profile, folded) = profiled(true);
    assert!(
        folded.lines().all(|line| line.starts_with("task ")),
        "{folded}"
    );
    assert!(folded.contains("task 0;pool.main;pool.work "), "{folded}");
    assert!(folded.contains("task 1;pool.worker;pool.work "), "{folded}");
    assert!(folded.contains("task 2;pool.worker;pool.work "), "{folded}");
    assert_eq!(profile.tasks.len(), 3, "{:?}", profile.tasks);
    for task in &profile.tasks {
        assert_eq!(
            under(&folded, &format!("task {};", task.task)),
            task.total.ran,
            "task {}",
            task.task
        );
    }
    insta::assert_snapshot!(folded);
}

#[test]
fn the_json_keeps_each_tasks_costs_in_its_own_tree() {
    let (profile, _) = profiled(true);
    for task in &profile.tasks {
        let nodes: Vec<_> = profile
            .stacks
            .iter()
            .filter(|s| s.task == task.task)
            .collect();
        let ran: u64 = nodes.iter().map(|s| s.cost.ran).sum();
        assert_eq!(ran, task.total.ran, "task {}", task.task);
        let roots: Vec<&str> = nodes
            .iter()
            .filter(|s| s.parent == 0)
            .map(|s| s.function.as_str())
            .collect();
        assert_eq!(roots, task.roots, "task {}", task.task);
    }
    // The second worker was given twice the work of the first.
    let work = |task: u32| -> u64 {
        profile
            .stacks
            .iter()
            .filter(|s| s.task == task && s.function == "pool.work")
            .map(|s| s.cost.ran)
            .sum()
    };
    assert!(work(2) > work(1), "{} against {}", work(2), work(1));
}

#[test]
fn a_profile_of_one_task_has_no_task_frame() {
    let (profile, folded) = profiled(false);
    assert_eq!(profile.tasks.len(), 1);
    assert!(
        folded.lines().all(|line| line.starts_with("pool.main")),
        "{folded}"
    );
}
