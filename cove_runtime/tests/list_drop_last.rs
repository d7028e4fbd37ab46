//! `xs.pop()` whose value is not used, which the compiler lowers to the
//! builtin `list.drop-last`: it leaves the list as `pop` would, on lists
//! of numbers and of strings, empty or not, with a collection after every
//! allocation as without, and the compiler uses it only where the value
//! is thrown away.

mod support;

use cove_ir::builtins::Builtin;
use cove_ir::op::Instr;
use cove_runtime::{Limits, Vm};
use support::Captured;

/// Compiles `source` as module `m` and runs `m.main`, with the collector
/// at every allocation if `stress`, giving what it printed.
fn output(source: &str, stress: bool) -> String {
    let program = cove_compiler::compile_module("m", source).expect("it compiles");
    let out = Captured::default();
    let limits = Limits {
        gc_stress: stress,
        ..Limits::default()
    };
    let mut vm = Vm::new(&program)
        .with_limits(limits)
        .with_output(Box::new(out.clone()));
    vm.run_entry("m", "main", Vec::new()).expect("it runs");
    out.text()
}

/// How many calls of `builtin` the program's functions make.
fn calls_of(source: &str, builtin: Builtin) -> usize {
    let program = cove_compiler::compile_module("m", source).expect("it compiles");
    program
        .functions
        .iter()
        .flat_map(|f| &f.code)
        .filter(|i| matches!(i, Instr::CallBuiltin { builtin: b, .. } if *b == builtin))
        .count()
}

const POPS: &str = r#"
fn last_of(xs: List[Int]) -> Option[Int] {
  xs.pop()
}

fn main() {
  let xs = [1, 2, 3]
  xs.pop()
  println(xs)
  let words = ["a", "b"]
  words.pop()
  words.pop()
  words.pop()
  println("{words} {words.length()}")
  words.push("c{1}")
  println(words)
  let ys = [4, 5, 6]
  let last = ys.pop()
  println("{last} {ys} {last_of(ys)} {ys}")
  while xs.length() > 0 {
    xs.pop()
  }
  println(xs)
  if xs.length() == 0 { xs.pop() } else { xs.get(0) }
  println(xs.length())
}
"#;

#[test]
fn a_pop_whose_value_is_thrown_away_leaves_the_list_as_pop_does() {
    let want = "[1, 2]\n[] 0\n[\"c1\"]\nSome(6) [4, 5] Some(5) [4]\n[]\n0\n";
    assert_eq!(output(POPS, false), want);
    assert_eq!(output(POPS, true), want);
}

#[test]
fn only_a_pop_whose_value_is_thrown_away_drops_the_last_element() {
    // `xs.pop()` once, `words.pop()` three times and in the `while`; the
    // `if` whose branches are thrown away is one more.
    assert_eq!(calls_of(POPS, Builtin::ListDropLast), 6);
    // `let last = ys.pop()` and `last_of`'s tail.
    assert_eq!(calls_of(POPS, Builtin::ListPop), 2);
}
