//! The calling context and the tasks of a real run: a recursion's inclusive
//! cost, callers and callees, and spawned tasks followed or not.

use cove_profile::report::{By, Metric, Report};
use cove_profile::{Profiler, SteppingClock};
use cove_runtime::Vm;

const FIB: &str = "fn fib(n: Int) -> Int {
  if n < 2 {
    return n
  }
  fib(n - 1) + fib(n - 2)
}

export fn main() -> Int {
  fib(15)
}
";

fn compile(source: &str) -> cove_ir::program::Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn the_entrys_inclusive_cost_is_the_whole_run_and_a_recursion_is_counted_once() {
    let program = compile(FIB);
    let profiler = Profiler::with_clock(SteppingClock::new(10));
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("m", "main", Vec::new()).expect("it answers");
    let profile = Report::new(&program, &profiler).profile();
    let main = profile
        .functions
        .iter()
        .find(|f| f.name == "m.main")
        .expect("main ran");
    let fib = profile
        .functions
        .iter()
        .find(|f| f.name == "m.fib")
        .expect("fib ran");
    assert_eq!(main.inclusive.ran, vm.instructions());
    assert_eq!(
        fib.inclusive.ran, fib.own.ran,
        "fib calls only itself, and each instruction once"
    );
    assert_eq!(fib.calls, 1973, "fib(15) makes 1973 calls");
    let folded = Report::new(&program, &profiler).folded(Metric::Ran);
    assert!(
        folded
            .lines()
            .any(|l| l.starts_with("m.main;m.fib;m.fib;m.fib ")),
        "{folded}"
    );
}

#[test]
fn reports_of_a_compiled_program_are_stable_under_a_stepping_clock() {
    let program = compile(FIB);
    let profiler = Profiler::with_clock(SteppingClock::new(10));
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("m", "main", Vec::new()).expect("it answers");
    let report = Report::new(&program, &profiler);
    insta::assert_snapshot!("fib_text", report.text(8));
    // The file is named by absolute path; the snapshot holds it relative.
    let cwd = std::env::current_dir().unwrap().display().to_string();
    insta::assert_snapshot!("fib_callgrind", report.callgrind().replace(&cwd, "[cwd]"));
    insta::assert_snapshot!("fib_folded", report.folded(Metric::Ran));
    let _ = report.table(By::Function, 0);
}

const SPAWNS: &str = "fn work(n: Int) -> Int {
  var total = 0
  for i in 0..n {
    total = total + i
  }
  total
}

export fn main() -> Int {
  let t = spawn work(50)
  let mine = work(10)
  mine + t.join()
}
";

#[test]
fn by_default_a_profile_covers_the_task_it_was_installed_on() {
    let program = compile(SPAWNS);
    let profiler = Profiler::new();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("m", "main", Vec::new()).expect("it answers");
    assert_eq!(profiler.tasks(), vec![0]);
    assert_eq!(profiler.counted(), vm.instructions());
}

#[test]
fn a_profile_that_follows_tasks_roots_each_task_at_its_spawned_function() {
    let program = compile(SPAWNS);
    let profiler = Profiler::new().following_tasks();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("m", "main", Vec::new()).expect("it answers");
    assert_eq!(profiler.tasks(), vec![0, 1]);
    let profile = Report::new(&program, &profiler).profile();
    assert_eq!(profile.tasks[0].roots, vec!["m.main".to_string()]);
    assert_eq!(profile.tasks[1].roots, vec!["m.work".to_string()]);
    assert_eq!(
        profile.tasks[0].total.ran,
        vm.instructions(),
        "task 0's count is the Vm's own"
    );
    assert!(
        profile.tasks[1].total.ran > profile.tasks[0].total.ran / 2,
        "work(50) is the bigger half"
    );
    let table = Report::new(&program, &profiler).table(By::Task, 0);
    assert!(
        table.contains("task 1") && table.contains("m.work"),
        "{table}"
    );
    assert!(table.contains("spawned tasks followed"), "{table}");
}
