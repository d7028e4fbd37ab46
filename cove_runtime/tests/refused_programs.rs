//! A `Vm` runs only a program `cove_ir`'s verifier has proven, and refuses
//! every other with an `Invalid` error: one malformed program for each
//! guarantee of `cove_ir::verify::Verified` that the dispatch loop's unsafe
//! code rests on, each refused before an instruction runs, watched or not.
//!
//! The verifier's own tests (`cove_ir/tests/verify.rs`) prove each rule on
//! its own; these prove that the runtime holds to the proof: there is no
//! path from a `Program` to the loop but through it, now that the runtime
//! keeps no checks of its own and the compiler verifies nothing.

use std::sync::atomic::{AtomicU64, Ordering};

use cove_ir::op::Instr;
use cove_ir::program::Program;
use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::{ErrorKind, Value, Vm};

/// A debugger that counts its stops: a refused program makes none.
#[derive(Default)]
struct Counter(AtomicU64);

impl Debugger for Counter {
    fn at(&self, _stop: &Stop<'_>) -> Resume {
        self.0.fetch_add(1, Ordering::Relaxed);
        Resume::Go
    }
}

/// `main`'s header: 4 registers, r0 and r1 num, r2 and r3 ref; an `Int`.
const MAIN: &str = "fn f1 main in m export\n  result t2\n  registers 4\n  refs r2 r3\n";

/// A program of a module `m` with the basic types, a list type t5, a
/// struct s0 of one `Int` field, a callee f0 of one `Int` parameter, and
/// `main` as `code` (its header first unless `code` brings its own).
fn program(code: &str) -> Program {
    let main = if code.starts_with("fn ") {
        code.to_string()
    } else {
        format!("{MAIN}{code}")
    };
    let text = format!(
        "module m \"m.cove\"\n\
         type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\ntype t5 List t2\n\
         struct s0 P in m\n  field x t2\n\
         fn f0 callee in m\n  params t2\n  result t2\n  registers 1\n  refs\n  @0 return r0\n\
         {main}"
    );
    cove_ir::parse::program(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Asserts the program is refused, unwatched and watched, with an
/// `Invalid` error whose message contains `says`, before any instruction
/// ran.
fn refused(program: &Program, says: &str) {
    let mut vm = Vm::new(program);
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Invalid, "{error}");
    assert!(
        error.message.starts_with("the program cannot be run: "),
        "{error}"
    );
    assert!(error.message.contains(says), "{error}");
    assert_eq!(vm.instructions(), 0);

    let counter = Counter::default();
    let mut watched = Vm::new(program).with_debugger(&counter);
    let again = watched.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(again, error);
    assert_eq!(counter.0.load(Ordering::Relaxed), 0);
}

#[test]
fn the_shared_prelude_runs_so_each_refusal_below_is_its_fault_alone() {
    let good = program("  @0 load.int r0, 4\n  @1 call r0, m.callee, r0, 1\n  @2 return r0\n");
    assert_eq!(
        Vm::new(&good).run_entry("m", "main", vec![]),
        Ok(Value::Int(4))
    );
}

#[test]
fn a_register_outside_the_frame_is_refused_by_the_frame_guarantee() {
    refused(
        &program("  @0 load.int r9, 1\n  @1 return r0\n"),
        "register r9 is out of range",
    );
}

#[test]
fn a_run_of_registers_past_the_frame_is_refused_by_the_frame_guarantee() {
    refused(
        &program("  @0 new.list r2, t2, r1, 5\n  @1 return r0\n"),
        "reaches past the 4 registers",
    );
}

#[test]
fn a_reference_map_shorter_than_the_frame_is_refused_by_the_frame_guarantee() {
    let mut p = program("  @0 load.int r0, 1\n  @1 return r0\n");
    p.functions[1].refs.pop();
    refused(&p, "the reference map has 3 entries for 4 registers");
}

#[test]
fn code_that_runs_off_its_end_is_refused_by_the_ends_guarantee() {
    refused(
        &program("  @0 load.int r0, 1\n"),
        "execution would run off the end",
    );
}

#[test]
fn a_function_without_code_is_refused_by_the_ends_guarantee() {
    let mut p = program("  @0 return r0\n");
    p.functions[1].code.clear();
    p.functions[1].lines.clear();
    refused(&p, "the function has no code");
}

#[test]
fn a_jump_outside_the_code_is_refused_by_the_targets_guarantee() {
    refused(
        &program("  @0 jump @7\n"),
        "the target @7 is outside the function's 1 instructions",
    );
}

#[test]
fn a_constant_that_does_not_exist_is_refused_by_the_tables_guarantee() {
    refused(
        &program("  @0 load.const r0, k3\n  @1 return r0\n"),
        "constant k3 does not exist",
    );
}

#[test]
fn a_field_that_does_not_exist_is_refused_by_the_tables_guarantee() {
    refused(
        &program("  @0 new.struct r2, s0, r0, 1\n  @1 get.field r0, r2, s0, #4\n  @2 return r0\n"),
        "struct P has no field #4",
    );
}

#[test]
fn a_call_with_too_few_arguments_is_refused_by_the_arity_guarantee() {
    refused(
        &program("  @0 call r0, m.callee, r0, 0\n  @1 return r0\n"),
        "m.callee takes 1 arguments, not 0",
    );
}

#[test]
fn a_builtin_call_with_the_wrong_arity_is_refused_by_the_arity_guarantee() {
    refused(
        &program("  @0 call-builtin r0, args, r0, 2\n  @1 return r0\n"),
        "takes 0 arguments, not 2",
    );
}

#[test]
fn a_number_written_to_a_reference_register_is_refused_by_the_classes_guarantee() {
    refused(
        &program("  @0 load.int r2, 1\n  @1 return r0\n"),
        "r2 is used as a number but is a ref register",
    );
}

#[test]
fn a_division_by_2_to_the_63_is_refused_by_the_divisor_guarantee() {
    for op in ["div.int.pow2", "rem.int.pow2"] {
        refused(
            &program(&format!(
                "  @0 load.int r1, 5\n  @1 {op} r0, r1, 63\n  @2 return r0\n"
            )),
            "the exponent 63 is not in 1..=62",
        );
    }
}

#[test]
fn a_list_read_as_a_string_is_refused_by_the_types_guarantee() {
    refused(
        &program("  @0 new.list r2, t2, r0, 1\n  @1 concat.str r3, r2, r3\n  @2 return r0\n"),
        "r2 holds a List[Int] here, but `concat.str` needs a String",
    );
}

#[test]
fn a_division_by_an_immediate_that_can_fail_is_refused_by_the_divisor_guarantee() {
    for (op, divisor) in [("div.int.imm", 0), ("div.int.imm", -1), ("rem.int.imm", -1)] {
        refused(
            &program(&format!(
                "  @0 load.int r1, 5\n  @1 {op} r0, r1, {divisor}\n  @2 return r0\n"
            )),
            &format!("the divisor {divisor} can fail"),
        );
    }
}

#[test]
fn a_line_table_of_the_wrong_length_is_refused_by_the_lines_guarantee() {
    let mut p = program("  @0 load.int r0, 1\n  @1 return r0\n");
    p.functions[1].lines.push(9);
    refused(&p, "the line table has 3 entries for 2 instructions");
}

#[test]
fn a_compiled_program_broken_after_compiling_is_refused_since_the_vm_is_what_verifies() {
    let mut p = cove_compiler::compile_module(
        "m",
        "export fn main() -> Int {\n  var n = 0\n  while n < 3 {\n    n += 1\n  }\n  n\n}\n",
    )
    .expect("it compiles");
    assert_eq!(
        Vm::new(&p).run_entry("m", "main", vec![]),
        Ok(Value::Int(3))
    );
    // The final `return r` becomes `move r, r`: the same registers of the
    // same class, but nothing after it.
    let main = p.find_function("m", "main").expect("main exists");
    let last = p.functions[main.index()]
        .code
        .last_mut()
        .expect("main has code");
    let Instr::Return { src } = *last else {
        panic!("main ends in {last:?}")
    };
    *last = Instr::Move { dst: src, src };
    refused(&p, "execution would run off the end");
}

#[test]
fn a_proof_made_once_runs_on_many_machines_without_being_made_again() {
    let p = program("  @0 load.int r0, 6\n  @1 call r0, m.callee, r0, 1\n  @2 return r0\n");
    let proof = cove_ir::verify::program(&p).expect("it verifies");
    assert!(std::ptr::eq(proof.program(), &p));
    let counter = Counter::default();
    for _ in 0..3 {
        let mut vm = Vm::from_verified(proof).with_debugger(&counter);
        assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(6)));
    }
    // main's three instructions and the callee's one, each run.
    assert_eq!(counter.0.load(Ordering::Relaxed), 3 * 4);
}
