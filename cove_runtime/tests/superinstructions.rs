//! The instructions that do the work of two (`move2`, `mul-add.float`,
//! `mul-sub.float`) or
//! of a builtin call (`to-float.int`, `sqrt.float`), or test an `Option` and
//! unwrap it (`jump-none.unwrap`, `jump-some.unwrap`): each gives the bits
//! the instructions it stands for give, in the order they would run, so a
//! program fused by the emitter computes what it computed unfused.

use cove_runtime::{Value, Vm};

/// Runs `m.f` of a one-function module whose body is `body`, with
/// `params` (their types' table indices) and `registers` registers, none
/// of them references.
fn run(params: &str, result: &str, registers: u16, body: &str, args: Vec<Value>) -> Value {
    let text = format!(
        "module m \"m.cove\"\n\
         fn f0 f in m export\n  params {params}\n  result {result}\n  registers {registers}\n  refs\n{body}"
    );
    let program = cove_ir::parse::program(&text).expect("it parses");
    let mut vm = Vm::new(&program);
    vm.run_entry("m", "f", args).expect("it runs")
}

#[test]
fn a_double_move_makes_its_second_move_after_its_first() {
    // r1 = r0, then r2 = r1: the second reads what the first wrote.
    let got = run(
        "t2",
        "t2",
        3,
        "@0  load.int r2, 0\n\
         @1  move2 r1, r0, r2, r1\n\
         @2  return r2\n",
        vec![Value::Int(41)],
    );
    assert_eq!(got, Value::Int(41));
}

#[test]
fn a_double_move_can_swap_nothing_but_copies_in_order() {
    // r0 = r1, then r1 = r0: both end as r1 was, as two moves leave them.
    let got = run(
        "t2 t2",
        "t2",
        3,
        "@0  move2 r0, r1, r1, r0\n\
         @1  sub.int r2, r0, r1\n\
         @2  add.int r2, r2, r0\n\
         @3  return r2\n",
        vec![Value::Int(5), Value::Int(9)],
    );
    assert_eq!(got, Value::Int(9));
}

#[test]
fn a_multiply_add_rounds_the_product_and_the_sum_apart() {
    // 0.1 * 3.0 + 1e16: the product rounded first, then the sum, exactly
    // as `mul.float` and `add.float` give it.
    let (a, b, c) = (0.1f64, 3.0f64, 1e16f64);
    let got = run(
        "t3 t3 t3",
        "t3",
        5,
        "@0  mul-add.float r4, r2, r3, r0, r1\n\
         @1  return r4\n",
        vec![Value::Float(a), Value::Float(b), Value::Float(c)],
    );
    assert_eq!(got, Value::Float(c + a * b));
}

#[test]
fn a_multiply_add_writes_its_product_and_reads_its_addend_after() {
    // The addend is the product's own register: the sum is the product
    // doubled, as `mul.float r2, r0, r1; add.float r3, r2, r2` gives.
    let got = run(
        "t3 t3",
        "t3",
        4,
        "@0  load.int r2, 0\n\
         @1  mul-add.float r3, r2, r2, r0, r1\n\
         @2  add.float r3, r3, r2\n\
         @3  return r3\n",
        vec![Value::Float(1.5), Value::Float(4.0)],
    );
    assert_eq!(got, Value::Float(18.0));
}

#[test]
fn a_multiply_subtract_rounds_the_product_and_the_difference_apart() {
    // 1e16 - 0.1 * 3.0: the product rounded first, then the difference,
    // exactly as `mul.float` and `sub.float` give it.
    let (a, b, c) = (0.1f64, 3.0f64, 1e16f64);
    let got = run(
        "t3 t3 t3",
        "t3",
        5,
        "@0  mul-sub.float r4, r2, r3, r0, r1\n\
         @1  return r4\n",
        vec![Value::Float(a), Value::Float(b), Value::Float(c)],
    );
    assert_eq!(got, Value::Float(c - a * b));
}

#[test]
fn a_multiply_subtract_writes_its_product_and_reads_what_it_subtracts_from_after() {
    // What the product is subtracted from is the product's own register:
    // the difference is 0, as `mul.float r2, r0, r1; sub.float r3, r2, r2`
    // gives; then the product is added back to show it was written.
    let got = run(
        "t3 t3",
        "t3",
        4,
        "@0  load.int r2, 0\n\
         @1  mul-sub.float r3, r2, r2, r0, r1\n\
         @2  add.float r3, r3, r2\n\
         @3  return r3\n",
        vec![Value::Float(1.5), Value::Float(4.0)],
    );
    assert_eq!(got, Value::Float(6.0));
}

#[test]
fn an_int_converts_to_the_nearest_float_and_a_square_root_is_ieee() {
    let got = run(
        "t2",
        "t3",
        3,
        "@0  to-float.int r1, r0\n\
         @1  sqrt.float r2, r1\n\
         @2  return r2\n",
        vec![Value::Int((1 << 53) + 1)],
    );
    assert_eq!(got, Value::Float((((1i64 << 53) + 1) as f64).sqrt()));
}

/// Runs `m.f(n)` of a module whose `f` makes `Some(n)` when `n` is not 0
/// and `None` when it is, then runs `test` (a `jump-none.unwrap` or
/// `jump-some.unwrap` of it into r1, to @6) and returns, on the path
/// that fell through, `r1 + 1000` and on the path that jumped, `r1 + 2000`.
fn fused_unwrap(test: &str, n: i64) -> Value {
    let text = format!(
        "module m \"m.cove\"\n\
         fn f0 f in m export\n  params t2\n  result t2\n  registers 4\n  refs r2\n\
         @0  load.int r1, 77\n\
         @1  jump-eq.int.imm r0, 0, @3\n\
         @2  some r2, r0, t2\n\
         @3  {test} r1, r2, @6\n\
         @4  add.int.imm r3, r1, 1000\n\
         @5  jump @7\n\
         @6  add.int.imm r3, r1, 2000\n\
         @7  return r3\n"
    );
    let program = cove_ir::parse::program(&text).expect("it parses");
    let mut vm = Vm::new(&program);
    vm.run_entry("m", "f", vec![Value::Int(n)])
        .expect("it runs")
}

#[test]
fn a_fused_none_test_unwraps_a_some_and_falls_through() {
    assert_eq!(fused_unwrap("jump-none.unwrap", 5), Value::Int(1005));
}

#[test]
fn a_fused_none_test_of_none_writes_zero_and_jumps() {
    // r1 held 77 before: on the None path the register is written too.
    assert_eq!(fused_unwrap("jump-none.unwrap", 0), Value::Int(2000));
}

#[test]
fn a_fused_some_test_unwraps_a_some_and_jumps() {
    assert_eq!(fused_unwrap("jump-some.unwrap", 5), Value::Int(2005));
}

#[test]
fn a_fused_some_test_of_none_writes_zero_and_falls_through() {
    assert_eq!(fused_unwrap("jump-some.unwrap", 0), Value::Int(1000));
}
