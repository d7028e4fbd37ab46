//! A call's frame is a window of its caller's: the callee's first registers
//! are the caller's argument registers, and nothing is copied (the contract
//! of `call` in `cove_ir::op`). The caller's registers from the window up
//! belong to the callee until it returns; these tests pin down what that
//! leaves in the caller, and that no program, however it places its
//! windows, can make the collector or a debugger read a callee's integer
//! as a reference.

use std::sync::Mutex;

use cove_runtime::vm::debug::Resume;
use cove_runtime::{Limits, Value, Vm};

mod support;
use support::{Tap, verified};

/// `poke` writes its parameter's register; `main` reads the register it
/// passed after the call. Copied, it would still hold 7.
const POKE: &str = "module m \"m.cove\"\n\
     fn f0 poke in m\n  params t2\n  result t2\n  registers 1\n  refs\n\
     @0  load.int r0, 100\n\
     @1  return r0\n\
     fn f1 main in m export\n  result t2\n  registers 2\n  refs\n\
     @0  load.int r0, 7\n\
     @1  call r1, m.poke, r0, 1\n\
     @2  add.int r0, r0, r1\n\
     @3  return r0\n";

/// `smash`'s frame, at `main`'s r0, lies over `main`'s ref register r2 and
/// writes an integer there. `main` then allocates (a collection, under GC
/// stress) and answers 1 if r2 reads as `None`.
const SMASH: &str = "module m \"m.cove\"\n\
     type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n\
     type t5 Option t2\n\
     fn f0 smash in m\n  params t2\n  result t2\n  registers 3\n  refs\n\
     @0  load.int r1, 12345\n\
     @1  load.int r2, 12345\n\
     @2  return r0\n\
     fn f1 main in m export\n  result t2\n  registers 4\n  refs r2 r3\n\
     @0  load.int r0, 5\n\
     @1  some r2, r0, t2\n\
     @2  call r1, m.smash, r0, 1\n\
     @3  some r3, r0, t2\n\
     @4  load.int r0, 1\n\
     @5  jump-none r2, @7\n\
     @6  load.int r0, 0\n\
     @7  return r0\n";

/// `inner`'s window starts at `main`'s r1; `main`'s r0 is below it.
const NESTED: &str = "module m \"m.cove\"\n\
     fn f0 inner in m\n  params t2\n  result t2\n  registers 2\n  refs\n\
     @0  load.int r1, 1\n\
     @1  add.int r0, r0, r1\n\
     @2  return r0\n\
     fn f1 main in m export\n  result t2\n  registers 3\n  refs\n\
     @0  load.int r0, 9\n\
     @1  load.int r1, 5\n\
     @2  call r2, m.inner, r1, 1\n\
     @3  return r2\n";

#[test]
fn the_arguments_are_the_callees_first_registers_not_copies() {
    let program = verified(POKE);
    let mut vm = Vm::new(&program);
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(200)));
}

#[test]
fn a_ref_register_a_callee_lay_over_reads_as_none_after_it_returns() {
    let program = verified(SMASH);
    for gc_stress in [false, true] {
        let mut vm = Vm::new(&program).with_limits(Limits {
            gc_stress,
            ..Limits::default()
        });
        assert_eq!(
            vm.run_entry("m", "main", vec![]),
            Ok(Value::Int(1)),
            "gc_stress: {gc_stress}"
        );
    }
}

#[test]
fn a_debugger_reads_the_registers_a_caller_lent_its_callee_as_zero() {
    let program = verified(NESTED);
    // At each stop in `inner`: its own r0, and the caller's r0 and r1.
    let seen = Mutex::new(Vec::new());
    let tap = Tap::new(|stop| {
        if stop.depth() == 2 {
            let frames: Vec<_> = stop.frames().collect();
            seen.lock().unwrap().push((
                frames[0].register(0),
                frames[1].register(0),
                frames[1].register(1),
            ));
        }
        Resume::Go
    });
    let mut vm = Vm::new(&program).with_debugger(&tap);
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(6)));
    let seen = seen.into_inner().unwrap();
    // Before `add.int` the callee's r0 is the 5 the caller put in its r1;
    // the caller's r1 is lent, and its r0 is its own.
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0], (5, 9, 0));
    assert_eq!(seen[2], (6, 9, 0));
}
