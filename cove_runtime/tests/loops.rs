//! The fused loop step, `loop-lt.int`: one dispatch that counts and tests,
//! with the same overflow rule as `add.int.imm`.

use cove_runtime::{ErrorKind, Value, Vm};

/// `fn count(from: Int, to: Int) -> Int`: steps `from` up to `to` with
/// `loop-lt.int`, as the compiler lowers `for i in from..to`.
const COUNT: &str = "module m \"m.cove\"\n\
                     fn f0 count in m export\n  params t2 t2\n  result t2\n  registers 3\n  refs\n\
                     @0  load.int r2, 0\n\
                     @1  add.int.imm r2, r2, 1\n\
                     @2  loop-lt.int r0, r1, @1\n\
                     @3  return r2\n";

#[test]
fn a_fused_loop_step_runs_the_body_once_for_each_value_below_the_limit() {
    let program = cove_ir::parse::program(COUNT).expect("it parses");
    let mut vm = Vm::new(&program);
    let turns = vm.run_entry("m", "count", vec![Value::Int(3), Value::Int(10)]);
    assert_eq!(turns, Ok(Value::Int(7)));
}

#[test]
fn a_fused_loop_step_past_the_largest_int_is_an_overflow_not_a_wrap() {
    let program = cove_ir::parse::program(COUNT).expect("it parses");
    let mut vm = Vm::new(&program);
    let error = vm
        .run_entry("m", "count", vec![Value::Int(i64::MAX), Value::Int(0)])
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::Overflow, "{error}");
}
