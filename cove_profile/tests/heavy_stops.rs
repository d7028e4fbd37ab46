//! The stops a sampled profile charges a calibrated cost beyond a fast
//! stop's (`Profiler::heavy_stops`, `StopCosts::heavy`): those after an
//! instruction that allocates or calls a builtin, counted exactly.

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
