//! Appending to a string in a loop is linear: the runtime extends a string
//! in place where its buffer has room past it (Go's `append` rule), so the
//! bytes a loop of `s = s + x` copies grow with the appends, not with their
//! square. Fuel pays for the bytes every allocation and append copies, so a
//! fuel bound that a linear loop fits in and a quadratic one could not is a
//! deterministic measure of it, where a timing would not be.

use cove_runtime::{ErrorKind, Limits, Value, Vm};

fn appends(n: u64, op: &str) -> String {
    format!(
        "fn main() -> Int {{\n  var s = \"\"\n  for i in 0..{n} {{\n    s {op} \"ab\"\n  }}\n  s.length()\n}}\n"
    )
}

fn run_with_fuel(source: &str, fuel: u64) -> Result<Value, cove_runtime::RunError> {
    let program = cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"));
    let mut vm = Vm::new(&program).with_limits(Limits {
        fuel: Some(fuel),
        ..Limits::default()
    });
    vm.run_entry("m", "main", vec![])
}

#[test]
fn a_hundred_thousand_appends_fit_in_fuel_linear_in_the_appends() {
    // A turn is a handful of instructions and 2 bytes appended; the buffers
    // doubled along the way copy under 4 bytes a turn in all, so 50 units of
    // fuel a turn is ample. Copying the whole string every turn would cost
    // about 100 000² bytes, over a thousand times this fuel.
    for op in ["= s +", "+="] {
        let result = run_with_fuel(&appends(100_000, op), 5_000_000);
        assert_eq!(result.expect("fits"), Value::Int(200_000), "s {op} x");
    }
}

#[test]
fn the_same_loop_without_the_in_place_rule_would_run_out_of_that_fuel() {
    // The check above can fail: a loop that copies its whole string every
    // turn (each turn appends to a string made by `repeat`, which is never
    // extended in place) runs out of the same fuel per turn.
    let source = "fn main() -> Int {\n  var total = 0\n  for i in 0..100000 {\n    let s = \"ab\".repeat(i) + \"ab\"\n    total += s.length()\n  }\n  total\n}\n";
    let error = run_with_fuel(source, 5_000_000).expect_err("quadratic");
    assert_eq!(error.kind, ErrorKind::OutOfFuel, "{error}");
}
