//! A named function used as a value (`let f = square`) is a constant: one
//! closure object a task, made before the run, so evaluating it in a loop
//! allocates nothing, where it once allocated a closure each time. A
//! closure that captures something is still made where it stands.

use std::sync::atomic::{AtomicU64, Ordering};

use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::{Value, Vm};

/// The allocations the run had made by its last stop.
#[derive(Default)]
struct Allocations(AtomicU64);

impl Debugger for Allocations {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        self.0.fetch_max(stop.allocations(), Ordering::Relaxed);
        Resume::Go
    }
}

/// How many allocations `source`'s `main` makes, run to its end.
fn allocations(source: &str) -> u64 {
    let program = cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"));
    let seen = Allocations::default();
    let mut vm = Vm::new(&program).with_debugger(&seen);
    let result = vm.run_entry("m", "main", Vec::new());
    assert!(matches!(result, Ok(Value::Int(_))), "{result:?}");
    seen.0.load(Ordering::Relaxed)
}

fn looping(turns: u32, value: &str) -> String {
    format!(
        "fn square(x: Int) -> Int {{\n  x * x\n}}\n\nfn main() -> Int {{\n  var t = 0\n  let k = 1\n  for i in 0..{turns} {{\n    let f = {value}\n    t += f(i)\n  }}\n  t\n}}\n"
    )
}

#[test]
fn a_named_function_as_a_value_allocates_nothing_however_often_it_is_evaluated() {
    let few = allocations(&looping(3, "square"));
    let many = allocations(&looping(3000, "square"));
    assert_eq!(few, many, "each turn allocated");
}

#[test]
fn a_function_expression_that_captures_is_still_made_each_time_it_is_evaluated() {
    let few = allocations(&looping(3, "fn(x: Int) { x * k }"));
    let many = allocations(&looping(3000, "fn(x: Int) { x * k }"));
    assert_eq!(many - few, 2997, "one closure a turn");
}
