//! A `while` loop whose test is plain (names, literals, operators, fields,
//! elements) is tested before its body as well as after it, so it is
//! entered without a jump to its test: it runs as it ran, `break`,
//! `continue` and a faulting test included, a test that calls something
//! keeps the jump, and the second copy reports no diagnostic twice.

mod support;

use cove_ir::op::{Instr, Opcode};
use cove_runtime::{ErrorKind, Vm};
use support::Captured;

/// The code of `m.f`.
fn code_of(source: &str) -> Vec<Instr> {
    let program = cove_compiler::compile_module("m", source).expect("it compiles");
    program
        .functions
        .iter()
        .find(|f| f.name == "f")
        .expect("an f")
        .code
        .clone()
}

/// Compiles `source` as module `m` and runs `m.main`, giving what it
/// printed, or the error it ended with.
fn run(source: &str) -> Result<String, cove_runtime::RunError> {
    let program = cove_compiler::compile_module("m", source).expect("it compiles");
    let out = Captured::default();
    let mut vm = Vm::new(&program).with_output(Box::new(out.clone()));
    vm.run_entry("m", "main", Vec::new())?;
    Ok(out.text())
}

const LOOPS: &str = r#"
fn f(xs: List[Int], n: Int) -> Int {
  var i = 0
  var seen = 0
  while i < n && xs[i] != 0 {
    i += 1
    if xs[i - 1] == 5 {
      continue
    }
    if xs[i - 1] == 9 {
      break
    }
    seen += xs[i - 1]
  }
  var j = 10
  while j > n {
    j -= 1
  }
  seen * 100 + i * 10 + j
}

fn main() {
  println("{f([1, 2, 5, 3, 9, 4], 6)}")
  println("{f([1, 2, 0, 3], 4)}")
  println("{f([], 0)}")
  println("{f([7], 3)}")
}
"#;

#[test]
fn a_loop_tested_first_runs_its_rounds_breaks_and_continues_as_before() {
    // 1 + 2 + 3 seen, stopped by the 9 at i = 5; stopped by the 0 at i = 2;
    // never entered; the element past the end faults, below.
    let got = run(LOOPS);
    assert_eq!(
        got.as_ref().map_err(|e| e.kind),
        Err(ErrorKind::IndexOutOfRange)
    );
    let without_the_fault = LOOPS.replace("  println(\"{f([7], 3)}\")\n", "");
    assert_eq!(run(&without_the_fault).unwrap(), "656\n324\n0\n");
}

#[test]
fn a_loop_with_a_plain_test_is_entered_without_a_jump() {
    let code = code_of(LOOPS);
    // The only jumps left are the `continue`'s and the `break`'s.
    let jumps = code.iter().filter(|i| i.opcode() == Opcode::Jump).count();
    assert_eq!(jumps, 2, "{code:?}");
}

#[test]
fn a_loop_whose_test_calls_keeps_its_one_test_after_the_body() {
    let source = r#"
fn more(i: Int) -> Bool { i < 3 }
fn f() -> Int {
  var i = 0
  while more(i) {
    i += 1
  }
  i
}
fn main() { println("{f()}") }
"#;
    assert_eq!(run(source).unwrap(), "3\n");
    let code = code_of(source);
    assert_eq!(code[1].opcode(), Opcode::Jump, "{code:?}");
    let calls = code.iter().filter(|i| i.opcode() == Opcode::Call).count();
    assert_eq!(calls, 1, "{code:?}");
}

#[test]
fn a_wrong_test_made_twice_is_reported_once() {
    let source = r#"
fn f() -> Int {
  var i = 0
  while i < "three" && missing > 0 {
    i += 1
  }
  i
}
fn main() { println("{f()}") }
"#;
    let errors = cove_compiler::compile_module("m", source).expect_err("it does not compile");
    let codes: Vec<&str> = errors.iter().map(|d| d.code()).collect();
    assert_eq!(codes, ["E0100", "E0200"], "{}", errors.render(false));
}
