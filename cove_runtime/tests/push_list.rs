//! `xs.push(x)` as the `push.list` instruction: it appends as the
//! builtin call did, into room the list has and through the list's growth
//! (where the collector may run), for elements of both classes, and the
//! compiler emits it wherever moving the push cannot be seen.

mod support;

use cove_ir::builtins::Builtin;
use cove_ir::op::{Instr, Opcode};
use cove_runtime::{Limits, Vm};
use support::Captured;

/// Compiles `source` as module `m` and runs `m.main` under `limits`,
/// giving what it printed.
fn output_with(source: &str, limits: Limits) -> String {
    let program = cove_compiler::compile_module("m", source).expect("it compiles");
    let out = Captured::default();
    let mut vm = Vm::new(&program)
        .with_limits(limits)
        .with_output(Box::new(out.clone()));
    vm.run_entry("m", "main", Vec::new()).expect("it runs");
    out.text()
}

/// The code of the compiled `m.main`.
fn main_code(source: &str) -> Vec<Instr> {
    let program = cove_compiler::compile_module("m", source).expect("it compiles");
    program
        .functions
        .iter()
        .find(|f| f.name == "main")
        .expect("a main")
        .code
        .clone()
}

const PUSHES: &str = r#"
fn main() {
  let xs = List[Int]()
  let words = List[String]()
  for i in 0..2000 {
    xs.push(i * 3)
    words.push("w{i}")
  }
  var total = 0
  for x in xs {
    total += x
  }
  let units = List[()]()
  units.push(())
  let nothing = xs.push(-1)
  println("{xs.length()} {total} {words[0]} {words[1999]} {words.length()} {units.length()} {nothing}")
}
"#;

#[test]
fn a_push_appends_as_the_builtin_did_through_every_growth_of_the_list() {
    let want = "2001 5997000 w0 w1999 2000 1 ()\n";
    assert_eq!(output_with(PUSHES, Limits::default()), want);
    // A collection at every chance: the strings pushed while the list of
    // them grows must all survive.
    let stress = Limits {
        gc_stress: true,
        ..Limits::default()
    };
    assert_eq!(output_with(PUSHES, stress), want);
}

#[test]
fn a_push_onto_a_list_a_let_holds_is_the_instruction_and_no_builtin_call() {
    let code = main_code(PUSHES);
    let pushes = code
        .iter()
        .filter(|i| i.opcode() == Opcode::PushList)
        .count();
    // `xs` twice, `words` once; the list of `()` has no register to push.
    assert_eq!(pushes, 3, "{code:?}");
    let calls = code
        .iter()
        .filter(|i| {
            matches!(
                i,
                Instr::CallBuiltin {
                    builtin: Builtin::ListPush,
                    ..
                }
            )
        })
        .count();
    assert_eq!(calls, 1, "{code:?}");
}

const VAR_RECEIVER: &str = r#"
fn main() {
  var xs = [1, 2]
  let ys = [7]
  xs.push(if xs.length() > 1 { xs = ys
    3 } else { 4 })
  println("{xs} {ys}")
}
"#;

#[test]
fn a_push_onto_a_var_is_a_builtin_call_so_an_argument_assigning_it_does_not_move_the_push() {
    let out = output_with(VAR_RECEIVER, Limits::default());
    let code = main_code(VAR_RECEIVER);
    assert!(
        !code.iter().any(|i| i.opcode() == Opcode::PushList),
        "{code:?}"
    );
    // The 3 went onto the list `xs` held when the push began, which
    // nothing holds now; `push.list` on `xs`'s register would have put it
    // onto `ys`.
    assert_eq!(out, "[7] [7]\n");
}
