//! Function values in reports: a closure is a function named after where
//! it is written (`m.main.<closure@12>`), in every format, and the table by
//! callee names what a call through a value reached.

use cove_profile::report::{By, Metric, Report};
use cove_profile::{Profiler, SteppingClock};
use cove_runtime::{Value, Vm};

const SOURCE: &str = "
fn square(x: Int) -> Int {
  x * x
}
fn apply(f: fn(Int) -> Int, x: Int) -> Int {
  f(x)
}
export fn start() -> Int {
  var total = 0
  for i in 0..10 {
    total += apply(square, i) + apply(fn(x) { x + 1 }, i)
  }
  total
}
";

fn report_of(check: impl FnOnce(&Report<'_>)) {
    let program = cove_compiler::compile_module("m", SOURCE).unwrap_or_else(|d| panic!("{d}"));
    let profiler = Profiler::with_clock(SteppingClock::new(1));
    let mut vm = Vm::new(&program).with_debugger(&profiler);
    let result = vm.run_entry("m", "start", vec![]).expect("it runs");
    assert_eq!(result, Value::Int(340));
    drop(vm);
    check(&Report::new(&program, &profiler));
}

#[test]
fn the_table_by_callee_names_every_function_a_call_through_a_value_reached() {
    report_of(|report| {
        let table = report.table(By::Callee, 0);
        let row = table
            .lines()
            .find(|l| l.contains("call.closure"))
            .unwrap_or_else(|| panic!("{table}"));
        assert!(row.contains("m.square, m.start.<closure@11>"), "{table}");
        assert!(row.trim_start().starts_with("20 "), "{table}");
    });
}

#[test]
fn a_closure_is_a_function_of_its_own_in_the_table_the_json_and_folded_stacks() {
    report_of(|report| {
        let table = report.table(By::Function, 0);
        let row = table
            .lines()
            .find(|l| l.contains("m.start.<closure@11>"))
            .unwrap_or_else(|| panic!("{table}"));
        assert!(row.trim_start().starts_with("10 "), "{table}");
        assert!(report.json().contains("m.start.<closure@11>"));
        let folded = report.folded(Metric::Ran);
        assert!(
            folded.contains("m.start;m.apply;m.start.<closure@11> "),
            "{folded}"
        );
    });
}
