//! What a new frame holds before its function writes to it: the contract of
//! `call` in `cove_ir::op`. A ref register starts as 0, so the collector
//! never finds a stale reference; a num register is left as the stack had
//! it, which debug builds fill with a pattern no test expects, so code that
//! relied on a 0 there would fail the suites. A ref register still 0 read
//! as an object (a list, a struct, ...) ends the run with an error.

use cove_runtime::{Value, Vm};

mod support;
use support::verified;

/// `peek` returns its register 1 without writing it, after `dirty` wrote
/// a number to the same stack slot in an earlier frame.
const PEEK_NUM: &str = "module m \"m.cove\"\n\
     fn f0 dirty in m\n  result t2\n  registers 2\n  refs\n\
     @0  load.int r1, 77\n\
     @1  return r1\n\
     fn f1 peek in m\n  result t2\n  registers 2\n  refs\n\
     @0  return r1\n\
     fn f2 main in m export\n  result t2\n  registers 1\n  refs\n\
     @0  call r0, m.dirty, r0, 0\n\
     @1  call r0, m.peek, r0, 0\n\
     @2  return r0\n";

/// `peek` answers 1 when its ref register 1, never written, holds `None`,
/// after `dirty` left a reference in the same stack slot.
const PEEK_REF: &str = "module m \"m.cove\"\n\
     type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n\
     type t5 Option t2\n\
     fn f0 dirty in m\n  result t2\n  registers 2\n  refs r1\n\
     @0  load.int r0, 5\n\
     @1  some r1, r0, t2\n\
     @2  return r0\n\
     fn f1 peek in m\n  result t2\n  registers 2\n  refs r1\n\
     @0  load.int r0, 1\n\
     @1  jump-none r1, @3\n\
     @2  load.int r0, 0\n\
     @3  return r0\n\
     fn f2 main in m export\n  result t2\n  registers 1\n  refs\n\
     @0  call r0, m.dirty, r0, 0\n\
     @1  call r0, m.peek, r0, 0\n\
     @2  return r0\n";

#[test]
fn a_ref_register_a_function_has_not_written_is_none() {
    let program = verified(PEEK_REF);
    let mut vm = Vm::new(&program);
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(1)));
}

#[cfg(debug_assertions)]
#[test]
fn a_num_register_read_before_it_is_written_shows_the_poison_in_debug_builds() {
    let program = cove_ir::parse::program(PEEK_NUM).expect("it parses");
    let mut vm = Vm::new(&program);
    assert_eq!(
        vm.run_entry("m", "main", vec![]),
        Ok(Value::Int(0x5a5a_5a5a_5a5a_5a5a))
    );
}

/// `main` reads its ref register 2, never written, as a list of strings,
/// after a string constant took the heap's first object.
const NULL_LIST: &str = "module m \"m.cove\"\n\
     type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n\
     type t5 List t4\n\
     fn f0 main in m export\n  result t4\n  registers 4\n  refs r1 r2 r3\n\
     @0  load.const r1, k0\n\
     @1  load.int r0, 0\n\
     @2  get.list r3, r2, r0, t4\n\
     @3  return r3\n\
     const k0 str \"a string long enough to look like a list's backing array\"\n";

#[test]
fn a_ref_register_never_written_read_as_a_list_ends_the_run_with_an_error_that_says_so() {
    // The verifier lets a ref register be read while it may hold 0 (see
    // `cove_ir::verify`); the compiler never emits such a read, but a
    // hand-written program can. Before the machine tested for 0 here, it
    // read the string's words as the list's and panicked.
    let program = verified(NULL_LIST);
    let mut vm = Vm::new(&program);
    let error = vm.run_entry("m", "main", vec![]).expect_err("a fault");
    assert_eq!(error.kind, cove_runtime::ErrorKind::Invalid);
    assert!(
        error.message == "`get.list` read a reference that was never written (0)",
        "{error}"
    );
    assert_eq!(error.backtrace.len(), 1);
}

/// Types, a struct and an enum for [`NULL_READS`]: in `main`, r0, r1 and
/// r4 are num registers, r2 and r3 ref registers never written.
const NULL_PRELUDE: &str = "module m \"m.cove\"\n\
     type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n\
     type t5 List t2\ntype t6 Struct s0\ntype t7 Enum e0\ntype t8 Map t4 t2\n\
     struct s0 P in m\n  field x t2\n\
     enum e0 E in m\n  variant A t2\n  variant B\n\
     fn f0 main in m export\n  result t2\n  registers 5\n  refs r2 r3\n";

/// Every instruction that reads a reference as a list, struct, enum value
/// or map, given 0, and what the error names.
const NULL_READS: &[(&str, &str)] = &[
    ("@0 get.field r0, r2, s0, #0\n@1 return r0\n", "`get.field`"),
    (
        "@0 load.int r0, 1\n@1 set.field r2, s0, #0, r0\n@2 return r0\n",
        "`set.field`",
    ),
    ("@0 tag r0, r2\n@1 return r0\n", "`tag`"),
    (
        "@0 get.payload r0, r2, e0, #0, #0\n@1 return r0\n",
        "`get.payload`",
    ),
    (
        "@0 load.int r1, 0\n@1 get.list r0, r2, r1, t2\n@2 return r0\n",
        "`get.list`",
    ),
    (
        "@0 load.int r1, 0\n@1 set.list r2, r1, r1, t2\n@2 return r1\n",
        "`set.list`",
    ),
    ("@0 len.list r0, r2\n@1 return r0\n", "`len.list`"),
    (
        "@0 call-builtin r0, List.length, r2, 1\n@1 return r0\n",
        "`List.length`",
    ),
    (
        "@0 load.int r4, 5\n@1 call-builtin r0, List.push, r3, 2\n@2 return r4\n",
        "`List.push`",
    ),
    (
        "@0 call-builtin r0, Map.length, r2, 1\n@1 return r0\n",
        "`Map.length`",
    ),
];

#[test]
fn every_read_of_a_never_written_reference_as_an_object_is_an_error_not_a_wrong_answer() {
    for (code, what) in NULL_READS {
        let text = format!("{NULL_PRELUDE}{code}");
        let program = verified(&text);
        for gc_stress in [false, true] {
            let mut vm = Vm::new(&program).with_limits(cove_runtime::Limits {
                gc_stress,
                ..cove_runtime::Limits::default()
            });
            let error = vm
                .run_entry("m", "main", vec![])
                .expect_err(&format!("{what} faults"));
            assert_eq!(error.kind, cove_runtime::ErrorKind::Invalid, "{what}");
            assert_eq!(
                error.message,
                format!("{what} read a reference that was never written (0)")
            );
        }
    }
}
