//! Calls as windows pressed from every side (the contract of `call` in
//! `cove_ir::op`): a callee's frame starts at its caller's first argument
//! register and lies over every caller register from there up.
//!
//! - A debugger's view: while a call runs, every live local of every frame
//!   waiting in a call shows the value it had at the call, and reading the
//!   registers a caller lent never panics, whatever the debug information
//!   says lives there.
//! - Hand-written programs that place windows adversarially (at r0 over live
//!   references, empty at the end of the frame, callees far larger than
//!   their callers, callees writing their parameters, deep chains) run to
//!   an answer under GC stress, never into a panic of the machine.
//! - Window-heavy programs count the same instructions watched, fuelled
//!   and polled.

use std::sync::Mutex;
use std::sync::atomic::Ordering;

use cove_ir::op::Instr;
use cove_ir::program::Program;
use cove_runtime::vm::debug::Resume;
use cove_runtime::{ErrorKind, Limits, RunError, Value, Vm};

mod support;
use support::{Captured, Counter, Tap, verified};

fn compile(source: &str) -> Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

fn stress(gc_stress: bool) -> Limits {
    Limits {
        gc_stress,
        ..Limits::default()
    }
}

/// How a run of the machine may end: with an answer (maybe a wrong one,
/// for a program that reads what a call left), never with the machine's
/// own failure (a panic, caught and reported as `Internal`).
fn assert_no_machine_failure(result: &Result<Value, RunError>, what: &str) {
    if let Err(e) = result {
        assert_ne!(e.kind, ErrorKind::Internal, "{what}: {e:?}");
    }
}

/// Calls in many positions, with locals of every kind live across them.
/// No callee changes an object its caller can see, so a waiting frame's
/// locals cannot change while it waits.
const LOCALS_ACROSS_CALLS: &str = r#"
struct P { name: String, n: Int }

enum E { A(Int), B(String, P) }

fn inc(n: Int) -> Int { n + 1 }

fn word(n: Int) -> String { "w{n}" }

fn mk(n: Int) -> P { P { name: word(inc(n)), n: inc(inc(n)) } }

fn five(a: Int, b: String, c: List[Int], d: Float, e: P) -> String {
  let joined = "{a}{b}{c.length()}{d.to_int()}{e.name}"
  let again = word(joined.length())
  joined + again
}

fn score(e: E) -> Int {
  match e {
    E.A(k) => inc(k) * 2,
    E.B(s, p) => s.length() + inc(p.n) + word(p.n).length(),
  }
}

fn walk(n: Int, acc: String, xs: List[Int]) -> String {
  if n == 0 { return acc }
  let here = "{n}"
  let p = mk(n)
  let f = n.to_float() * 1.5
  let r = walk(n - 1, acc + here, xs)
  r + five(n, here, xs, f, p) + "{score(E.B(here, p))}"
}

export fn probe() -> String {
  let a = inc(1)
  let s = word(a)
  let xs = [inc(a), a, inc(inc(a))]
  let p = mk(a)
  var v = inc(a) * inc(inc(a)) + inc(3)
  var t = ""
  for i in 0..4 {
    let w = word(i) + word(inc(i))
    t = t + w + five(i, w, xs, i.to_float(), p)
    v = v + score(E.A(i)) + score(E.B(w, mk(i)))
  }
  let deep = walk(8, s, xs)
  let o: Option[Int] = Some(inc(v))
  "{a} {s} {xs} {p.name} {v} {t} {deep} {o}"
}
"#;

/// A frame's named locals and their values, as `Frame::locals` gives them.
type Locals = Vec<(String, Value)>;

#[test]
fn every_live_local_of_a_frame_waiting_in_a_call_keeps_the_value_it_had_at_the_call() {
    let program = compile(LOCALS_ACROSS_CALLS);
    for gc_stress in [false, true] {
        // `at_call[d]`: the locals of the frame at depth `d` (0 the entry)
        // when it last stopped at a `call`, innermost.
        let at_call: Mutex<Vec<Option<Locals>>> = Mutex::new(Vec::new());
        let checked = Mutex::new(0usize);
        let tap = Tap::new(|stop| {
            let frames: Vec<_> = stop.frames().collect();
            let depth = frames.len();
            let mut at_call = at_call.lock().unwrap();
            at_call.resize(depth, None);
            if matches!(stop.instr(), Instr::Call { .. }) {
                at_call[depth - 1] = Some(frames[0].locals());
            }
            // Every other frame waits in a call: what its locals show now
            // is what they showed at that call.
            for (k, frame) in frames.iter().enumerate().skip(1) {
                let level = depth - 1 - k;
                let then = at_call[level].as_ref().expect("it stopped at its call");
                assert_eq!(
                    &frame.locals(),
                    then,
                    "gc_stress {gc_stress}: frame {level} of {depth} at pc {}",
                    frame.pc()
                );
                *checked.lock().unwrap() += 1;
            }
            Resume::Go
        });
        let mut vm = Vm::new(&program)
            .with_debugger(&tap)
            .with_limits(stress(gc_stress));
        let answer = vm.run_entry("m", "probe", vec![]);
        // Without a debugger, the same answer.
        let mut plain = Vm::new(&program).with_limits(stress(gc_stress));
        assert_eq!(answer, plain.run_entry("m", "probe", vec![]));
        let Ok(Value::Str(text)) = &answer else {
            panic!("probe gives a String: {answer:?}")
        };
        assert!(
            text.starts_with("2 w2 [3, 2, 4] w3 "),
            "gc_stress {gc_stress}: {text}"
        );
        assert!(*checked.lock().unwrap() > 1000, "the frames were looked at");
    }
}

/// Locals that `main`'s debug information declares over the registers it
/// lends `smash`: a `String` at r2 and an `Int` at r3, live throughout.
/// `smash`'s frame starts at `main`'s r1 and writes integers that are not
/// handles (r1, r2 of its own are `main`'s r2 and r3) and a string.
const LENT_LOCALS: &str = "module m \"m.cove\"\n\
     type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n\
     fn f0 smash in m\n  params t2\n  result t2\n  registers 4\n  refs r3\n\
     local big t2 r1 @1..@5\n\
     @0  load.int r1, 2147483647\n\
     @1  mul.int r1, r1, r1\n\
     @2  move r2, r1\n\
     @3  load.const r3, k1\n\
     @4  concat.str r3, r3, r3\n\
     @5  return r0\n\
     fn f1 main in m export\n  result t2\n  registers 4\n  refs r0 r2\n\
     local s t4 r2 @0..@5\n\
     local n t2 r3 @0..@5\n\
     local keep t4 r0 @0..@5\n\
     @0  load.const r0, k0\n\
     @1  load.int r1, 7\n\
     @2  call r1, m.smash, r1, 1\n\
     @3  concat.str r2, r0, r0\n\
     @4  load.int r3, 1\n\
     @5  return r1\n\
     const k0 str \"kept\"\n\
     const k1 str \"zz\"\n";

#[test]
fn a_debugger_reads_locals_declared_over_lent_registers_as_zero_and_never_panics() {
    let program = verified(LENT_LOCALS);
    for gc_stress in [false, true] {
        let inside = Mutex::new(Vec::new());
        let tap = Tap::new(|stop| {
            // Every register of every frame, raw and typed, at every stop.
            for frame in stop.frames() {
                let f = program.function(frame.function_id());
                for r in 0..f.registers + 2 {
                    let _ = frame.value(r);
                }
                let _ = frame.locals();
            }
            if stop.depth() == 2 {
                let main = stop.frames().nth(1).unwrap();
                inside
                    .lock()
                    .unwrap()
                    .push((main.register(2), main.register(3), main.locals()));
            }
            Resume::Go
        });
        let mut vm = Vm::new(&program)
            .with_debugger(&tap)
            .with_limits(stress(gc_stress));
        assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(7)));
        let inside = inside.into_inner().unwrap();
        assert_eq!(inside.len(), 6, "a stop at each of smash's instructions");
        let typed_zero = inside[0].2.clone();
        for (s, n, locals) in inside {
            assert_eq!((s, n), (0, 0), "gc_stress {gc_stress}");
            // `keep`, below the window, is main's own; `s` and `n` are what
            // a 0 shows, at every stop, whatever smash wrote under them.
            assert_eq!(locals, typed_zero, "gc_stress {gc_stress}");
            assert!(
                locals.contains(&("keep".to_string(), Value::Str("kept".to_string()))),
                "{locals:?}"
            );
            assert!(
                locals.contains(&("n".to_string(), Value::Int(0))),
                "{locals:?}"
            );
        }
    }
}

/// `nest(n)` holds a string in its r1 (below the window) and calls itself
/// with its window at r3: a frame of 24 registers, its refs spread out, lies
/// over the caller's r3..r26, among them the caller's ref registers r5 and
/// r9 (written only after the call) and num registers full of integers
/// that are not handles. Each level allocates twice, so under GC stress a
/// collection runs with every frame lying over its caller's.
/// `nest(n)` is `n` x's, then `nest(n - 1)`, then `n` x's... : 2n+1 x's.
const NEST: &str = "module m \"m.cove\"\n\
     type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n\
     fn f0 nest in m\n  params t2\n  result t4\n  registers 24\n  refs r1 r5 r9 r15 r23\n\
     @0  load.const r1, k0\n\
     @1  load.int r2, 987654321\n\
     @2  load.int r4, 123456789\n\
     @3  load.int r10, 555555555\n\
     @4  load.int r22, 777777777\n\
     @5  jump-ne.int.imm r0, 0, @7\n\
     @6  return r1\n\
     @7  add.int.imm r3, r0, -1\n\
     @8  call r5, m.nest, r3, 1\n\
     @9  concat.str r9, r1, r5\n\
     @10  concat.str r9, r9, r1\n\
     @11  return r9\n\
     fn f1 main in m export\n  params t2\n  result t2\n  registers 2\n  refs r1\n\
     @0  call r1, m.nest, r0, 1\n\
     @1  call-builtin r0, String.length, r1, 1\n\
     @2  return r0\n\
     const k0 str \"x\"\n";

#[test]
fn a_deep_chain_of_frames_larger_than_their_callers_keeps_every_callers_reference() {
    let program = verified(NEST);
    for gc_stress in [false, true] {
        let mut vm = Vm::new(&program).with_limits(stress(gc_stress));
        assert_eq!(
            vm.run_entry("m", "main", vec![Value::Int(300)]),
            Ok(Value::Int(601)),
            "gc_stress {gc_stress}"
        );
    }
}

/// `main` holds a string in r1 and a list in r2 and calls `burn` with an
/// empty window at r0: `burn`'s frame lies over all of `main`'s. `burn`
/// writes integers and allocates in registers over `main`'s references.
/// After the call, `main` writes r1 again before it reads it (a right
/// program), then reads r2, whose list the call took (a program that reads
/// what a call left: 0, which the machine refuses to read as a list).
const OVER_R0: &str = "module m \"m.cove\"\n\
     type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n\
     type t5 List t4\n\
     fn f0 burn in m\n  result t2\n  registers 8\n  refs r0 r3 r6\n\
     @0  load.int r1, 123456789\n\
     @1  load.int r2, 987654321\n\
     @2  load.const r0, k1\n\
     @3  concat.str r3, r0, r0\n\
     @4  concat.str r6, r3, r0\n\
     @5  load.int r4, 5555555\n\
     @6  load.int r5, 7777777\n\
     @7  load.int r7, 42\n\
     @8  return r7\n\
     fn f1 main in m export\n  result t4\n  registers 5\n  refs r1 r2 r3\n\
     @0  load.const r1, k0\n\
     @1  new.list r2, t4, r1, 1\n\
     @2  call r0, m.burn, r0, 0\n\
     @3  load.const r1, k0\n\
     @4  concat.str r3, r1, r1\n\
     @5  len.list r4, r2\n\
     @6  add.int r4, r4, r0\n\
     @7  to-str.int r1, r4\n\
     @8  concat.str r3, r3, r1\n\
     @9  return r3\n\
     const k0 str \"abc\"\n\
     const k1 str \"zz\"\n";

#[test]
fn a_callee_whose_frame_lies_over_all_of_its_callers_leaves_no_integer_in_a_ref_register() {
    let program = verified(OVER_R0);
    for gc_stress in [false, true] {
        let mut vm = Vm::new(&program).with_limits(stress(gc_stress));
        let result = vm.run_entry("m", "main", vec![]);
        assert_no_machine_failure(&result, "over r0");
        // r1, written again, is fine; the list register was cleared, and
        // reading that 0 as a list is the program's fault, reported at
        // `len.list` (pc 5), not a read of whatever object lies first.
        let Err(error) = &result else {
            panic!("gc_stress {gc_stress}: {result:?}")
        };
        assert_eq!(error.kind, ErrorKind::Invalid, "gc_stress {gc_stress}");
        assert!(error.message.starts_with("`len.list`"), "{error}");
    }
}

/// `side` has an empty window at `main`'s register count, above all of it:
/// nothing of `main`'s is lent, its references are all there after the
/// call. The frame is as far up the stack as a frame can start.
const EMPTY_AT_END: &str = "module m \"m.cove\"\n\
     type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n\
     type t5 List t4\n\
     fn f0 side in m\n  result t2\n  registers 3\n  refs r0\n\
     @0  load.const r0, k1\n\
     @1  concat.str r0, r0, r0\n\
     @2  load.int r1, 999999999\n\
     @3  return r1\n\
     fn f1 main in m export\n  result t4\n  registers 4\n  refs r1 r2\n\
     @0  load.const r1, k0\n\
     @1  new.list r2, t4, r1, 1\n\
     @2  call r0, m.side, r4, 0\n\
     @3  call r3, m.side, r4, 0\n\
     @4  load.int r3, 0\n\
     @5  get.list r1, r2, r3, t4\n\
     @6  concat.str r1, r1, r1\n\
     @7  return r1\n\
     const k0 str \"abc\"\n\
     const k1 str \"zz\"\n";

#[test]
fn an_empty_window_at_the_end_of_the_frame_lends_nothing() {
    let program = verified(EMPTY_AT_END);
    for gc_stress in [false, true] {
        let mut vm = Vm::new(&program).with_limits(stress(gc_stress));
        assert_eq!(
            vm.run_entry("m", "main", vec![]),
            Ok(Value::Str("abcabc".to_string())),
            "gc_stress {gc_stress}"
        );
    }
}

/// `rename` assigns a new string of its own to its parameter, which is
/// `main`'s argument register, and `main` reads that register afterwards
/// as the string it passed.
const RENAME: &str = "module m \"m.cove\"\n\
     type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n\
     fn f0 rename in m\n  params t4 t2\n  result t2\n  registers 3\n  refs r0 r2\n\
     @0  load.const r2, k1\n\
     @1  concat.str r0, r0, r2\n\
     @2  load.int r1, 5\n\
     @3  return r1\n\
     fn f1 main in m export\n  result t4\n  registers 4\n  refs r0 r2\n\
     @0  load.const r0, k0\n\
     @1  move r2, r0\n\
     @2  load.int r3, 1\n\
     @3  call r1, m.rename, r2, 2\n\
     @4  concat.str r2, r0, r2\n\
     @5  return r2\n\
     const k0 str \"old\"\n\
     const k1 str \"+new\"\n";

/// `swap`'s parameter is a `String`; it assigns a `List[Int]` to it (the
/// verifier lets a function write any value of a register's class to it).
/// `main` then reads its argument register as the `String` it put there.
/// Were that allowed, a `List`'s words would be read as a string.
const SWAP: &str = "module m \"m.cove\"\n\
     type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n\
     type t5 List t2\n\
     fn f0 swap in m\n  params t4\n  result t2\n  registers 2\n  refs r0\n\
     @0  load.int r1, 1000000\n\
     @1  new.list r0, t2, r1, 1\n\
     @2  return r1\n\
     fn f1 main in m export\n  result t4\n  registers 3\n  refs r0 r2\n\
     @0  load.const r0, k0\n\
     @1  call r1, m.swap, r0, 1\n\
     @2  concat.str r2, r0, r0\n\
     @3  return r2\n\
     const k0 str \"abc\"\n";

/// The same with the types the other way round: `main` passes a
/// `List[String]`, `spoil` puts a `String` in its place, and `main` reads
/// an element of the "list" and uses it as a string.
const SPOIL: &str = "module m \"m.cove\"\n\
     type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n\
     type t5 List t4\n\
     fn f0 spoil in m\n  params t5\n  result t2\n  registers 2\n  refs r0\n\
     @0  load.const r0, k1\n\
     @1  load.int r1, 0\n\
     @2  return r1\n\
     fn f1 main in m export\n  result t4\n  registers 4\n  refs r0 r2 r3\n\
     @0  load.const r2, k0\n\
     @1  new.list r0, t4, r2, 1\n\
     @2  call r1, m.spoil, r0, 1\n\
     @3  load.int r1, 0\n\
     @4  get.list r3, r0, r1, t4\n\
     @5  concat.str r3, r3, r3\n\
     @6  return r3\n\
     const k0 str \"abc\"\n\
     const k1 str \"\\u{ffff}\\u{ffff}\\u{ffff}\\u{ffff}\\u{ffff}\\u{ffff}\"\n";

#[test]
fn a_caller_may_not_read_an_argument_register_after_the_call_as_what_it_passed() {
    // A call lends its arguments to the callee as its parameters, which it
    // may assign any value of their class: the verifier treats each as
    // holding values of different types until the caller writes it again,
    // so all three programs are refused before they run, and a `Vm` will
    // not run them. (Before the verifier knew this, SWAP read a list's
    // words as a string and SPOIL panicked the machine.)
    for (text, what) in [(RENAME, "rename"), (SWAP, "swap"), (SPOIL, "spoil")] {
        let program = cove_ir::parse::program(text).expect("it parses");
        let refused = cove_ir::verify::program(&program)
            .expect_err(what)
            .to_string();
        assert!(refused.contains("different types"), "{what}: {refused}");
        let mut vm = Vm::new(&program);
        let result = vm.run_entry("m", "main", vec![]);
        assert!(result.is_err(), "{what}: {result:?}");
    }
}

/// One run in each of the loop's instantiations: the answer, the output
/// and the instruction count.
fn every_mode(
    program: &Program,
    entry: &str,
    args: Vec<Value>,
    gc_stress: bool,
) -> Vec<(Result<Value, RunError>, String, u64)> {
    let mut seen = Vec::new();
    for mode in 0..3 {
        let counter = Counter::default();
        let out = Captured::default();
        let mut limits = stress(gc_stress);
        if mode == 1 {
            limits.fuel = Some(u64::MAX / 4);
        }
        let mut vm = Vm::new(program)
            .with_limits(limits)
            .with_output(Box::new(out.clone()));
        if mode == 2 {
            vm = vm.with_debugger(&counter);
        }
        let result = vm.run_entry("m", entry, args.clone());
        if mode == 2 {
            assert_eq!(vm.instructions(), counter.0.load(Ordering::Relaxed));
        }
        seen.push((result, out.text(), vm.instructions()));
    }
    seen
}

#[test]
fn window_heavy_programs_count_the_same_instructions_polled_fuelled_and_watched() {
    let positions = compile(include_str!(
        "programs/calls/call_windows_in_expression_positions.cove"
    ));
    let expected = include_str!("programs/calls/call_windows_in_expression_positions.out");
    let locals = compile(LOCALS_ACROSS_CALLS);
    let nest = verified(NEST);
    let cases: [(&Program, &str, Vec<Value>); 3] = [
        (&positions, "main", vec![]),
        (&locals, "probe", vec![]),
        (&nest, "main", vec![Value::Int(200)]),
    ];
    for gc_stress in [false, true] {
        for (i, (program, entry, args)) in cases.iter().enumerate() {
            let seen = every_mode(program, entry, args.clone(), gc_stress);
            assert!(seen[0].2 > 1000, "case {i} runs");
            assert_no_machine_failure(&seen[0].0, "every mode");
            assert_eq!(seen[0], seen[1], "case {i}: polled against fuelled");
            assert_eq!(seen[0], seen[2], "case {i}: polled against watched");
            if i == 0 {
                assert_eq!(seen[0].1, expected);
            }
        }
    }
}
