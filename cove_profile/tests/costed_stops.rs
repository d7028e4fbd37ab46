//! The stops a sampled profile charges a calibrated cost beyond a fast
//! stop's, counted exactly: those after an instruction that allocates or
//! calls a builtin (`Profiler::heavy_stops`), told apart by whether the
//! heap moved (`Profiler::moved_stops`, `StopCosts::heavy`, and the rest
//! `StopCosts::quick`), and those after a call or a return
//! (`Profiler::call_stops`, `StopCosts::call`).

use cove_profile::Profiler;
use cove_runtime::Vm;

/// A loop whose every turn allocates a list (`new.list`) and calls a
/// builtin (`String.length`, a `call-builtin`); nothing else in it, or
/// around it, allocates or calls a builtin.
const TURNS: &str = "
export fn main() -> Int {
  var total = 0
  var i = 0
  let word = \"calibration\"
  while i < 1000 {
    let pair = [i, total]
    total = (total + pair.length() + word.length()) & 1048575
    i = i + 1
  }
  total
}
";

#[test]
fn every_stop_after_an_allocation_or_a_builtin_is_counted_heavy_and_no_other() {
    let program = cove_compiler::compile_module("turns", TURNS).expect("it compiles");
    let profiler = Profiler::counting();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("turns", "main", Vec::new()).expect("it runs");
    // Two a turn, a thousand turns.
    assert_eq!(profiler.heavy_stops(), 2_000);
    let (slow, fast) = profiler.stops();
    assert!(slow + fast > 2_000, "the loop's branches stop too");
}

#[test]
fn of_the_heavy_stops_those_after_an_allocation_are_counted_moved_and_those_after_a_builtin_are_not()
 {
    let program = cove_compiler::compile_module("turns", TURNS).expect("it compiles");
    let profiler = Profiler::counting();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("turns", "main", Vec::new()).expect("it runs");
    // The list, once a turn; `String.length` allocates nothing.
    assert_eq!(profiler.moved_stops(), 1_000);
}

/// A loop that calls a function and a closure every turn, and a recursion
/// beside it: 1,000 + 1,000 calls from the loop, 2^5 - 1 = 31 from `depth`
/// (its first call included), and `main`'s own call, which the run makes
/// and no instruction does.
const CALLS: &str = "
fn step(total: Int, i: Int) -> Int {
  (total + i) & 1048575
}

fn depth(n: Int) -> Int {
  if n == 0 { 1 } else { depth(n - 1) + depth(n - 1) }
}

export fn main() -> Int {
  var total = 0
  var i = 0
  let twice = fn(x: Int) -> Int { x * 2 }
  while i < 1000 {
    total = step(total, i)
    total = twice(total) & 1048575
    i = i + 1
  }
  total + depth(4)
}
";

#[test]
fn every_call_made_counts_two_stops_one_for_the_call_and_one_for_its_return() {
    let program = cove_compiler::compile_module("calls", CALLS).expect("it compiles");
    let profiler = Profiler::counting();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("calls", "main", Vec::new()).expect("it runs");
    let calls = 1_000 + 1_000 + 31;
    assert_eq!(profiler.call_stops(), 2 * calls);
}

#[test]
fn a_sampled_estimate_worked_out_again_at_its_own_costs_is_the_estimate_it_states() {
    // `cove diff` works two profiles' estimates out again at one set of
    // costs (`Estimate::net_nanos_at`); at a profile's own costs that must
    // be the estimate the profile states, and dearer costs a smaller one.
    let program = cove_compiler::compile_module("turns", TURNS).expect("it compiles");
    let profiler = Profiler::sampling();
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    vm.run_entry("turns", "main", Vec::new()).expect("it runs");
    let Some(estimate) = profiler.estimate() else {
        // No sampler thread on this host: nothing sampled to work out.
        return;
    };
    let net = (estimate.sampled_nanos as f64 - estimate.overhead_nanos as f64).max(1.0);
    let again = estimate
        .net_nanos_at(&estimate.costs)
        .expect("a new profile keeps the pieces");
    assert!((again - net).abs() <= 1.0, "{again} against {net}");
    assert_eq!(estimate.instructions, Some(vm.instructions()));
    let dearer = cove_profile::StopCosts {
        fast: estimate.costs.fast + 1.0,
        ..estimate.costs
    };
    let cheaper = estimate.net_nanos_at(&dearer).expect("the pieces");
    assert!(cheaper < again || again <= 1.0, "{cheaper} against {again}");
}
