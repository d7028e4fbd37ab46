//! The fused tests: a `jump-if` or `jump-ifnot` joined to the instruction
//! that wrote the Bool it tests (`get.list` of a `List[Bool]`, `lt.float`,
//! `le.float`), one dispatch where there were two. Each gives what the
//! pair gave — the Bool written, the jump taken or not, a NaN compared as
//! IEEE says, an index out of range faulting — and the compiler fuses the
//! pairs a program's conditions make.

mod support;

use cove_ir::op::{Instr, Opcode};
use cove_runtime::{ErrorKind, Value, Vm};
use support::Captured;

/// Runs `m.f` of a one-function module whose body is `body`, with
/// `params` (their types' table indices), `registers` registers and the
/// ref registers `refs`.
fn run(
    params: &str,
    registers: u16,
    refs: &str,
    body: &str,
    args: Vec<Value>,
) -> Result<Value, cove_runtime::RunError> {
    let text = format!(
        "module m \"m.cove\"\n\
         fn f0 f in m export\n  params {params}\n  result t2\n  registers {registers}\n  refs {refs}\n{body}"
    );
    let program = cove_ir::parse::program(&text).expect("it parses");
    let mut vm = Vm::new(&program);
    vm.run_entry("m", "f", args)
}

/// The list `[false, true]` in r0, then `jump-if.list` (or its `ifnot`
/// twin) on the element `index` names: gives 10 plus the Bool written if
/// it jumped, 20 plus it if not.
fn test_element(mnemonic: &str, index: i64) -> Result<Value, cove_runtime::RunError> {
    run(
        "t2",
        6,
        "r1",
        &format!(
            "@0  load.int r2, 0\n\
             @1  load.int r3, 1\n\
             @2  new.list r1, t1, r2, 2\n\
             @3  {mnemonic} r4, r1, r0, @7\n\
             @4  load.int r5, 20\n\
             @5  add.int r5, r5, r4\n\
             @6  return r5\n\
             @7  load.int r5, 10\n\
             @8  add.int r5, r5, r4\n\
             @9  return r5\n"
        ),
        vec![Value::Int(index)],
    )
}

#[test]
fn a_fused_element_test_writes_the_element_and_jumps_as_the_pair_does() {
    assert_eq!(test_element("jump-if.list", 1), Ok(Value::Int(11)));
    assert_eq!(test_element("jump-if.list", 0), Ok(Value::Int(20)));
    assert_eq!(test_element("jump-ifnot.list", 0), Ok(Value::Int(10)));
    assert_eq!(test_element("jump-ifnot.list", 1), Ok(Value::Int(21)));
}

#[test]
fn a_fused_element_test_out_of_range_faults_as_get_list_does() {
    for mnemonic in ["jump-if.list", "jump-ifnot.list"] {
        for index in [2, -1] {
            let err = test_element(mnemonic, index).expect_err("out of range");
            assert_eq!(err.kind, ErrorKind::IndexOutOfRange, "{mnemonic} {index}");
            assert_eq!(
                err.message,
                format!("index {index} is out of range for a list of length 2")
            );
        }
    }
}

#[test]
fn a_fused_element_test_of_a_list_never_written_is_invalid_not_a_wild_read() {
    // r1 is a ref register the code never wrote: 0.
    let err = run(
        "t2",
        3,
        "r1",
        "@0  jump-if.list r2, r1, r0, @2\n\
         @1  return r0\n\
         @2  return r0\n",
        vec![Value::Int(0)],
    )
    .expect_err("a read of 0 as a list");
    assert_eq!(err.kind, ErrorKind::Invalid);
}

#[test]
fn the_verifier_refuses_a_fused_element_test_of_a_list_that_is_not_of_bool() {
    let text = "module m \"m.cove\"\n\
         fn f0 f in m export\n  params\n  result t2\n  registers 3\n  refs r1\n\
         @0  load.int r0, 0\n\
         @1  new.list r1, t2, r0, 1\n\
         @2  jump-if.list r2, r1, r0, @4\n\
         @3  return r0\n\
         @4  return r0\n";
    let program = cove_ir::parse::program(text).expect("it parses");
    let errors = cove_ir::verify::errors(&program);
    assert!(
        errors
            .iter()
            .any(|e| e.to_string().contains("`jump-if.list`")),
        "{errors:?}"
    );
}

/// `a OP b` on two Floats through the fused form `mnemonic`: 10 plus the
/// Bool written if it jumped, 20 plus it if not.
fn compare(mnemonic: &str, a: f64, b: f64) -> i64 {
    let got = run(
        "t3 t3",
        4,
        "",
        &format!(
            "@0  {mnemonic} r2, r0, r1, @5\n\
             @1  load.int r3, 20\n\
             @2  add.int r3, r3, r2\n\
             @3  return r3\n\
             @4  return r3\n\
             @5  load.int r3, 10\n\
             @6  add.int r3, r3, r2\n\
             @7  return r3\n"
        ),
        vec![Value::Float(a), Value::Float(b)],
    )
    .expect("it runs");
    match got {
        Value::Int(n) => n,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_fused_float_compare_jumps_exactly_where_the_compare_and_its_test_would() {
    let nan = f64::NAN;
    let cases = [
        (1.0, 2.0),
        (2.0, 1.0),
        (1.5, 1.5),
        (nan, 1.0),
        (1.0, nan),
        (-0.0, 0.0),
    ];
    for (a, b) in cases {
        let (lt, le) = (a < b, a <= b);
        let expect = |holds: bool, jumps_when: bool| {
            if holds == jumps_when {
                10 + i64::from(holds)
            } else {
                20 + i64::from(holds)
            }
        };
        assert_eq!(
            compare("jump-if.lt.float", a, b),
            expect(lt, true),
            "{a} < {b}"
        );
        assert_eq!(
            compare("jump-ifnot.lt.float", a, b),
            expect(lt, false),
            "{a} < {b}"
        );
        assert_eq!(
            compare("jump-if.le.float", a, b),
            expect(le, true),
            "{a} <= {b}"
        );
        assert_eq!(
            compare("jump-ifnot.le.float", a, b),
            expect(le, false),
            "{a} <= {b}"
        );
    }
}

/// The opcodes of the compiled `m.main`.
fn opcodes(source: &str) -> Vec<Opcode> {
    let program = cove_compiler::compile_module("m", source).expect("it compiles");
    let main = program
        .functions
        .iter()
        .find(|f| f.name == "main")
        .expect("a main");
    main.code.iter().map(Instr::opcode).collect()
}

/// Compiles `source` as module `m` and runs `m.main`, giving what it
/// printed.
fn output(source: &str) -> String {
    let program = cove_compiler::compile_module("m", source).expect("it compiles");
    let out = Captured::default();
    let mut vm = Vm::new(&program).with_output(Box::new(out.clone()));
    vm.run_entry("m", "main", Vec::new()).expect("it runs");
    out.text()
}

const SIEVE: &str = r#"
fn main() {
  let n = 50
  let flags = List[Bool]()
  for _i in 0..n + 1 {
    flags.push(true)
  }
  var count = 0
  for i in 2..n + 1 {
    if flags[i] {
      count += 1
      var j = i * i
      while j <= n {
        flags[j] = false
        j += i
      }
    }
  }
  var kept = 0
  for i in 0..n + 1 {
    if !flags[i] {
      kept += 1
    }
  }
  let b = flags[3]
  if b {
    println("3 is prime")
  }
  println("{count} {kept}")
}
"#;

#[test]
fn a_condition_on_an_element_of_a_list_of_bool_is_one_fused_test() {
    assert_eq!(output(SIEVE), "3 is prime\n15 34\n");
    let ops = opcodes(SIEVE);
    // `if flags[i]` and `if !flags[i]`; `let b = flags[3]` is a `get.list`
    // of a line of its own, tested on the next.
    assert_eq!(
        ops.iter().filter(|o| **o == Opcode::JumpIfNotList).count(),
        1
    );
    assert_eq!(ops.iter().filter(|o| **o == Opcode::JumpIfList).count(), 1);
    assert_eq!(ops.iter().filter(|o| **o == Opcode::GetList).count(), 1);
}

const FLOATS: &str = r#"
fn main() {
  let nan = 0.0 / 0.0
  let xs = [1.0, 2.5, nan, -3.0, 2.5]
  var below = 0
  var at_most = 0
  var above = 0
  var not_below = 0
  for x in xs {
    if x < 2.5 { below += 1 }
    if x <= 2.5 { at_most += 1 }
    if x > 1.0 { above += 1 }
    if !(x < 2.5) { not_below += 1 }
  }
  let lt = xs[0] < xs[1]
  println("{below} {at_most} {above} {not_below} {lt}")
}
"#;

#[test]
fn a_condition_comparing_floats_is_one_fused_compare_and_nan_fails_every_comparison() {
    // NaN is below nothing, at most nothing and above nothing, so only
    // `!(x < 2.5)` counts it.
    assert_eq!(output(FLOATS), "2 4 2 3 true\n");
    let ops = opcodes(FLOATS);
    let fused = [
        Opcode::JumpIfLtFloat,
        Opcode::JumpIfNotLtFloat,
        Opcode::JumpIfLeFloat,
        Opcode::JumpIfNotLeFloat,
    ];
    assert_eq!(
        ops.iter().filter(|o| fused.contains(o)).count(),
        4,
        "{ops:?}"
    );
    // `let lt = ...` is a compare whose Bool is kept, not tested.
    assert_eq!(
        ops.iter().filter(|o| **o == Opcode::LtFloat).count(),
        1,
        "{ops:?}"
    );
}
