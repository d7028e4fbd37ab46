// Limits { max_call_depth: 0 } still runs the entry function.
//
// Expected (limits.rs doc of max_call_depth: "How many Cove frames a task's
//   stack may hold; the entry is the first."): a bound of 0 frames leaves no
//   room for the entry, so the run ends in ErrorKind::CallDepth — or the
//   doc says 0 means 1. (With max_call_depth: 1, one call from the entry is
//   refused, consistent with "the entry is the first".)
// Actual: Ok(Int(1)); the entry ran with 0 frames allowed.
// Minor; the guess is that the depth check happens only on `call`, not when
//   the entry frame is pushed (cove_runtime/src/vm/machine.rs, Machine::enter).
use cove_runtime::{Limits, Value, Vm};

#[test]
fn a_call_depth_bound_of_zero_leaves_no_room_for_the_entry() {
    let program = cove_compiler::compile_module("m", "export fn f() -> Int {\n  1\n}\n").unwrap();
    let mut vm = Vm::new(&program).with_limits(Limits {
        max_call_depth: 0,
        ..Limits::default()
    });
    // Fails: Ok(Int(1)).
    assert_ne!(vm.run_entry("m", "f", vec![]), Ok(Value::Int(1)));
}
