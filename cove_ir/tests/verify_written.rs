//! The verifier's *written* bound, one test each: how far a call into a
//! function and a return into it clear its ref registers
//! (`Verified::clear_to`). The programs are in the printed form: a
//! prelude with a struct, then one function `m.f` of one Int parameter
//! whose code each test gives, with ref registers r1 to r3.

use cove_ir::program::FunctionId;
use cove_ir::{parse, verify};

const PRELUDE: &str = "\
type t0 Unit
type t1 Bool
type t2 Int
type t3 Float
type t4 String
type t5 Struct s0
struct s0 box in m
  field v t2
fn f0 g in m
  params t2
  result t2
  registers 1
  @0 return r0
";

/// `m.f`: one Int parameter, r1 to r3 ref registers, r4 a num register.
const HEADER: &str = "fn f1 f in m\n  params t2\n  result t2\n  registers 5\n  refs r1 r2 r3\n";

/// `Verified::clear_to` of `m.f` with `code`.
fn clear_to(code: &str) -> u16 {
    clear_to_under(HEADER, code)
}

/// `Verified::clear_to` of `m.f`, declared by `header`, with `code`.
fn clear_to_under(header: &str, code: &str) -> u16 {
    let text = format!("{PRELUDE}{header}{code}");
    let program = parse::program(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let proof = verify::program(&program).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    proof.clear_to(FunctionId(1))
}

/// `m.f` with r1 and r2 its only ref registers, r3 a num register.
const TWO_REFS: &str = "fn f1 f in m\n  params t2\n  result t2\n  registers 4\n  refs r1 r2\n";

#[test]
fn registers_written_before_anything_looks_need_no_clearing() {
    // r1 and r2 are written before the allocation, which may collect, and
    // before any read: nothing past the parameter needs its 0.
    let code = "\
  @0 load.none r1
  @1 load.none r2
  @2 new.struct r1, s0, r0, 1
  @3 get.field r3, r1, s0, #0
  @4 return r3
";
    assert_eq!(clear_to_under(TWO_REFS, code), 1);
}

#[test]
fn a_register_unwritten_when_an_allocation_may_collect_is_cleared() {
    // r2 is still unwritten when the first allocation runs, and the
    // collector takes every ref register of the frame for a root then.
    let code = "\
  @0 load.none r1
  @1 new.struct r1, s0, r0, 1
  @2 new.struct r2, s0, r0, 1
  @3 get.field r3, r2, s0, #0
  @4 return r3
";
    assert_eq!(clear_to_under(TWO_REFS, code), 3);
    // The same with r2 written first: r1 is the one unwritten.
    let code = code.replace("@0 load.none r1", "@0 load.none r2");
    assert_eq!(clear_to_under(TWO_REFS, &code), 2);
}

#[test]
fn a_register_read_before_it_is_written_is_cleared() {
    // `jump-none r3` reads r3, which nothing wrote: the flow pass takes it
    // for 0 (`None`), so 0 it must be.
    let code = "\
  @0 jump-none r3, @2
  @1 load.int r0, 2
  @2 return r0
";
    assert_eq!(clear_to(code), 4);
}

#[test]
fn a_register_written_on_one_path_only_is_cleared_where_the_paths_join() {
    // r1 is written when r0 is 0 and not otherwise, then read after the
    // join.
    let code = "\
  @0 jump-ne.int.imm r0, 0, @2
  @1 load.none r1
  @2 jump-none r1, @4
  @3 load.int r0, 1
  @4 return r0
";
    assert_eq!(clear_to(code), 2);
}

#[test]
fn a_register_past_a_calls_arguments_read_after_the_call_is_cleared() {
    // r2 is written, then the call's frame lies over it (the window is r1,
    // one argument), so after the call r2 holds what the callee left: the
    // return must clear it before `jump-none` reads it. r3, past it too,
    // nothing reads.
    let header = "fn f1 f in m\n  params t2\n  result t2\n  registers 4\n  refs r2 r3\n";
    let code = "\
  @0 load.none r2
  @1 move r1, r0
  @2 call r1, m.g, r1, 1
  @3 jump-none r2, @5
  @4 load.int r1, 1
  @5 return r1
";
    assert_eq!(clear_to_under(header, code), 3);
    // Written again after the call, it needs nothing.
    let code = code
        .replace(
            "@3 jump-none r2, @5",
            "@3 load.none r2\n  @4 jump-none r2, @6",
        )
        .replace(
            "@4 load.int r1, 1\n  @5 return r1",
            "@5 load.int r1, 1\n  @6 return r1",
        );
    assert_eq!(clear_to_under(header, &code), 1);
}

#[test]
fn a_local_live_before_its_register_is_written_is_cleared() {
    // r3 is written at @1, but a local says it is live from @0, where a
    // debugger would show it.
    let code = "\
  local x t5 r3 @0..@3
  @0 load.int r4, 7
  @1 new.struct r3, s0, r4, 1
  @2 get.field r4, r3, s0, #0
  @3 return r4
";
    assert_eq!(clear_to(code), 4);
}
