//! Calls, frames and polled safepoints, proved from outside the machine.
//!
//! Three things about the dispatch loop are checked here through the public
//! API only (`Vm`, `Limits`, the debugger seam and compiled Cove programs):
//!
//! - the call-depth bound is exact wherever a frame stack grows: in the task
//!   the `Vm` runs and in spawned tasks, watched, fuelled or polled, on a
//!   `Vm` reused with other bounds, after a hundred thousand frames, and
//!   under GC stress with references held in every frame;
//! - every outer frame's place (which a frame keeps as a byte offset) comes
//!   back as the instruction index of its `call`: in backtraces, in the
//!   debugger's `Frame` view, in tasks, and alike in every kind of run;
//! - a polled run (no debugger, no fuel) counts exactly the instructions an
//!   exact run (fuel or a debugger) counts, however it ends (a return, a
//!   fault, `exit`, a deadlock, a task's fault, the depth bound), stops at an
//!   interrupt or at the end of its run even when it only loops or only
//!   recurses, and fuel stays exact on both sides of every stride boundary.
//!
//! Nothing here measures time: a test only needs its runs to end, and to end
//! as the program says.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use cove_ir::op::Instr;
use cove_ir::program::Program;
use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::vm::exec::SAFEPOINT_STRIDE;
use cove_runtime::{ErrorKind, Limits, RunError, SPAWN_FUEL, Value, Vm};

mod support;
use support::{Captured, Counter, Tap};

/// Compiles `source` as module `m`, or fails the test with its diagnostics.
fn compile(source: &str) -> Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

/// A host picks one of the loop's three instantiations by how it sets up
/// a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// No debugger and no fuel: the safepoint is tested at taken jumps and
    /// calls only.
    Polled,
    /// Fuel that never runs out: the safepoint is tested before every
    /// instruction.
    Fuelled,
    /// A debugger that counts task 0's stops: exact as well.
    Watched,
}

/// A fuelled run gets this much fuel, which no test program comes near.
const PLENTY: u64 = u64::MAX / 4;

/// A `Vm` for `program` in `mode`: fuel for `Mode::Fuelled`, `counter` as
/// the debugger for `Mode::Watched`.
fn vm_in<'a>(mode: Mode, program: &'a Program, counter: &'a Counter) -> Vm<'a> {
    let vm = Vm::new(program);
    match mode {
        Mode::Polled => vm,
        Mode::Fuelled => vm.with_limits(Limits {
            fuel: Some(PLENTY),
            ..Limits::default()
        }),
        Mode::Watched => vm.with_debugger(counter),
    }
}

/// An outcome says how one run ended, what it counted and what it printed.
#[derive(Debug)]
struct Outcome {
    result: Result<Value, RunError>,
    instructions: u64,
    printed: String,
}

/// Runs `entry` of module `m` once in `mode` under `limits` (fuel is added
/// for `Mode::Fuelled` if the limits have none). A watched run's count must
/// be its debugger's count of stops.
fn run_in(
    mode: Mode,
    program: &Program,
    entry: &str,
    args: Vec<Value>,
    limits: &Limits,
) -> Outcome {
    let counter = Counter::default();
    let out = Captured::default();
    let mut limits = limits.clone();
    if mode == Mode::Fuelled && limits.fuel.is_none() {
        limits.fuel = Some(PLENTY);
    }
    let mut vm = Vm::new(program)
        .with_limits(limits)
        .with_output(Box::new(out.clone()))
        .with_error_output(Box::new(std::io::sink()));
    if mode == Mode::Watched {
        vm = vm.with_debugger(&counter);
    }
    let result = vm.run_entry("m", entry, args);
    if mode == Mode::Watched {
        assert_eq!(
            vm.instructions(),
            counter.0.load(Ordering::Relaxed),
            "a watched run counts its debugger's stops"
        );
    }
    Outcome {
        result,
        instructions: vm.instructions(),
        printed: out.text(),
    }
}

/// Runs `entry` in every mode and holds them to one answer: the same result
/// (an error's kind, message and every backtrace frame included), the same
/// output and the same instruction count. Gives the polled run's outcome.
fn same_in_every_mode(
    what: &str,
    program: &Program,
    entry: &str,
    args: &[Value],
    limits: &Limits,
) -> Outcome {
    let polled = run_in(Mode::Polled, program, entry, args.to_vec(), limits);
    for mode in [Mode::Fuelled, Mode::Watched] {
        let other = run_in(mode, program, entry, args.to_vec(), limits);
        assert_eq!(
            other.result, polled.result,
            "{what}: {mode:?} against polled"
        );
        assert_eq!(
            other.printed, polled.printed,
            "{what}: {mode:?} against polled"
        );
        assert_eq!(
            other.instructions, polled.instructions,
            "{what}: {mode:?} counts what a polled run counts"
        );
    }
    polled
}

/// Gives the default limits with the call depth bounded at `max_call_depth`.
fn depth(max_call_depth: usize) -> Limits {
    Limits {
        max_call_depth,
        ..Limits::default()
    }
}

/// `down(k)` needs k + 1 frames; its recursive call is on line 2.
/// `in_task(k)` runs it in a spawned task, and `in_task_from(d, k)` spawns
/// that task from d frames deep in the task the `Vm` runs.
const DOWN: &str = "export fn down(n: Int) -> Int {
  if n == 0 { 0 } else { 1 + down(n - 1) }
}

export fn in_task(n: Int) -> Int {
  let t = spawn down(n)
  t.join()
}

export fn in_task_from(d: Int, n: Int) -> Int {
  if d > 1 {
    return in_task_from(d - 1, n)
  }
  let t = spawn down(n)
  t.join()
}
";

/// Gives bounds on both sides of the frame stack's growth steps (its first
/// capacity, then doublings from 16 frames), and some far from them.
fn interesting_bounds() -> Vec<usize> {
    let mut bounds: Vec<usize> = (1..=24).collect();
    for step in [32, 36, 40, 64, 72, 80, 128, 144, 160, 256] {
        bounds.extend([step - 1, step, step + 1]);
    }
    bounds.extend([1000, 1023, 1024, 1025]);
    bounds.sort_unstable();
    bounds.dedup();
    bounds
}

/// Checks that `result` is a `CallDepth` error naming `bound`, and gives it.
fn assert_call_depth(result: &Result<Value, RunError>, bound: usize, what: &str) -> RunError {
    let error = result
        .clone()
        .expect_err(&format!("{what}: deeper than {bound} frames"));
    assert_eq!(error.kind, ErrorKind::CallDepth, "{what}: {error}");
    assert!(
        error.message.contains(&format!("limit of {bound} frames")),
        "{what}: {error}"
    );
    error
}

#[test]
fn a_depth_bound_is_exact_in_a_spawned_task_too() {
    let program = compile(DOWN);
    for bound in interesting_bounds() {
        let limits = depth(bound);
        let k = bound as i64;
        let fits = run_in(
            Mode::Polled,
            &program,
            "in_task",
            vec![Value::Int(k - 1)],
            &limits,
        );
        assert_eq!(
            fits.result,
            Ok(Value::Int(k - 1)),
            "bound {bound}: {bound} frames fit in a task"
        );

        let over = run_in(
            Mode::Polled,
            &program,
            "in_task",
            vec![Value::Int(k)],
            &limits,
        );
        let error = assert_call_depth(&over.result, bound, &format!("bound {bound} in a task"));
        // The task's frames come first, and they are all the task's.
        assert_eq!(error.backtrace[0].task, 1, "bound {bound}: {error}");
        assert_eq!(error.backtrace[0].function, "m.down", "bound {bound}");
        let in_task = error.backtrace.iter().filter(|f| f.task == 1).count();
        assert_eq!(
            in_task, bound,
            "bound {bound}: the task held {bound} frames"
        );

        // The task's bound is its own: spawning it from as deep as the
        // spawning task may go leaves the task all of its frames.
        let from_deep = run_in(
            Mode::Polled,
            &program,
            "in_task_from",
            vec![Value::Int(k), Value::Int(k - 1)],
            &limits,
        );
        assert_eq!(
            from_deep.result,
            Ok(Value::Int(k - 1)),
            "bound {bound}: spawned from {bound} frames deep"
        );
    }
}

/// Records the deepest stack each watched task reached.
#[derive(Default)]
struct Deepest {
    by_task: Mutex<BTreeMap<u32, usize>>,
    follow: bool,
}

impl Debugger for Deepest {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        let mut by_task = self.by_task.lock().unwrap();
        let deepest = by_task.entry(stop.task()).or_default();
        *deepest = (*deepest).max(stop.depth());
        Resume::Go
    }

    fn follows_tasks(&self) -> bool {
        self.follow
    }
}

#[test]
fn a_depth_bound_is_exact_under_a_debugger_and_under_fuel_and_every_mode_counts_alike() {
    let program = compile(DOWN);
    for bound in interesting_bounds() {
        let limits = depth(bound);
        let k = bound as i64;
        let fits = same_in_every_mode("fits", &program, "down", &[Value::Int(k - 1)], &limits);
        assert_eq!(fits.result, Ok(Value::Int(k - 1)), "bound {bound}");
        let over = same_in_every_mode("over", &program, "down", &[Value::Int(k)], &limits);
        let error = assert_call_depth(&over.result, bound, &format!("bound {bound}"));
        assert_eq!(
            error.backtrace.len(),
            bound,
            "bound {bound}: one backtrace frame a frame"
        );

        // A debugger sees the stack reach the bound and go no deeper, with
        // fuel as well as without.
        for fuel in [None, Some(PLENTY)] {
            let deepest = Deepest::default();
            let mut vm = Vm::new(&program)
                .with_debugger(&deepest)
                .with_limits(Limits {
                    fuel,
                    ..depth(bound)
                });
            assert_call_depth(
                &vm.run_entry("m", "down", vec![Value::Int(k)]),
                bound,
                "watched",
            );
            assert_eq!(
                deepest.by_task.lock().unwrap()[&0],
                bound,
                "bound {bound}, fuel {fuel:?}"
            );
        }
    }
}

#[test]
fn a_followed_task_under_a_depth_bound_reaches_exactly_the_bound() {
    let program = compile(DOWN);
    for bound in [1, 4, 5, 20, 21, 37] {
        let deepest = Deepest {
            follow: true,
            ..Deepest::default()
        };
        let k = bound as i64;
        let mut vm = Vm::new(&program)
            .with_debugger(&deepest)
            .with_limits(depth(bound));
        assert_call_depth(
            &vm.run_entry("m", "in_task", vec![Value::Int(k)]),
            bound,
            "a followed task",
        );
        let by_task = deepest.by_task.lock().unwrap().clone();
        assert_eq!(by_task[&1], bound, "bound {bound}: the task's own depth");
        assert_eq!(by_task[&0], 1, "bound {bound}: main never called");
    }
}

#[test]
fn a_vm_reused_with_other_depth_bounds_holds_each_run_to_its_own_bound() {
    let program = compile(DOWN);
    let mut vm = Vm::new(&program);
    let mut counted = 0;
    // Deep, shallow, deeper, and back: no run inherits a bound or a frame
    // stack grown by a run before it.
    for bound in [50usize, 5, 500, 17, 1, 3000, 2] {
        vm = vm.with_limits(depth(bound));
        let k = bound as i64;
        for (n, fits) in [(k - 1, true), (k, false)] {
            let result = vm.run_entry("m", "down", vec![Value::Int(n)]);
            if fits {
                assert_eq!(result, Ok(Value::Int(n)), "bound {bound}");
            } else {
                assert_call_depth(&result, bound, "reused");
            }
            // Each run adds what a fresh machine counts for it.
            let fresh = run_in(
                Mode::Fuelled,
                &program,
                "down",
                vec![Value::Int(n)],
                &depth(bound),
            );
            assert_eq!(fresh.result, result, "bound {bound}, n {n}");
            counted += fresh.instructions;
            assert_eq!(vm.instructions(), counted, "bound {bound}, n {n}");
        }
    }
}

#[test]
fn a_hundred_thousand_frames_then_a_shallow_run_on_the_same_vm_both_answer() {
    let program = compile(DOWN);
    let bound = Limits::default().max_call_depth;
    assert_eq!(bound, 100_000, "the default bound this test is written for");
    let mut vm = Vm::new(&program);
    let k = bound as i64;
    assert_eq!(
        vm.run_entry("m", "down", vec![Value::Int(k - 1)]),
        Ok(Value::Int(k - 1))
    );
    let after_deep = vm.instructions();

    let error = vm.run_entry("m", "down", vec![Value::Int(k)]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::CallDepth, "{error}");
    assert_eq!(error.backtrace.len(), bound);
    // Every frame waits in (or, innermost, fails at) the recursive call.
    assert!(
        error
            .backtrace
            .iter()
            .all(|f| f.function == "m.down" && f.line == Some(2) && f.task == 0),
        "{error}"
    );
    assert_eq!(
        error.backtrace_lines().count(),
        RunError::SHOWN_INNERMOST + 1 + RunError::SHOWN_OUTERMOST
    );
    let after_fail = vm.instructions();

    assert_eq!(
        vm.run_entry("m", "down", vec![Value::Int(3)]),
        Ok(Value::Int(3))
    );
    let after_shallow = vm.instructions();

    // The counts of the deep runs, polled, are an exact run's.
    let exact = |n| {
        run_in(
            Mode::Fuelled,
            &program,
            "down",
            vec![Value::Int(n)],
            &Limits::default(),
        )
    };
    assert_eq!(after_deep, exact(k - 1).instructions);
    assert_eq!(after_fail - after_deep, exact(k).instructions);
    assert_eq!(after_shallow - after_fail, exact(3).instructions);
}

/// Every frame holds a string and a list of its own, and the list its caller
/// passed down; each checks them all after its callee returns, so a
/// reference the collector lost or failed to move is a failed assertion (or
/// worse). Gives 2 × (n + 1).
const DIVE: &str = "fn dive(n: Int, outer: List[String]) -> Int {
  let mine = \"frame{n}\"
  let held = [mine, outer[0]]
  if n == 0 {
    return held.length()
  }
  let below = dive(n - 1, [mine + \"!\"])
  assert(mine == \"frame{n}\", \"mine\")
  assert(held[0] == \"frame{n}\", \"held[0]\")
  assert(held[1] == outer[0], \"held[1]\")
  assert(outer[0] == \"top\" || outer[0] == \"frame{n + 1}!\", \"outer\")
  below + held.length()
}

export fn top(n: Int) -> Int {
  dive(n, [\"top\"])
}

export fn twice(n: Int) -> Int {
  let t = spawn dive(n, [\"top\"])
  dive(n, [\"top\"]) + t.join()
}
";

/// Gives limits that collect after every allocating instruction, with the
/// call depth bounded at `max_call_depth`.
fn stress(max_call_depth: usize) -> Limits {
    Limits {
        gc_stress: true,
        max_call_depth,
        ..Limits::default()
    }
}

#[test]
fn deep_recursion_under_gc_stress_keeps_every_frames_strings_and_lists() {
    let program = compile(DIVE);
    // Deep enough to pass several growth steps of the frame stack and of
    // the register stack while the collector runs at every allocation.
    let n = 400;
    let expected = Value::Int(2 * (n + 1));
    let outcome = same_in_every_mode(
        "stress",
        &program,
        "top",
        &[Value::Int(n)],
        &stress(100_000),
    );
    assert_eq!(outcome.result, Ok(expected.clone()));
    // The same without stress: the collector changes nothing a run counts.
    let calm = run_in(
        Mode::Polled,
        &program,
        "top",
        vec![Value::Int(n)],
        &Limits::default(),
    );
    assert_eq!(calm.result, Ok(expected));
    assert_eq!(calm.instructions, outcome.instructions);
    // And in a task beside the task the `Vm` runs, both under stress.
    let both = run_in(
        Mode::Polled,
        &program,
        "twice",
        vec![Value::Int(250)],
        &stress(100_000),
    );
    assert_eq!(both.result, Ok(Value::Int(4 * 251)));
}

#[test]
fn the_depth_bound_under_gc_stress_fails_cleanly_with_every_frame_in_the_backtrace() {
    let program = compile(DIVE);
    let bound = 300;
    // top's frame and dive(n) .. dive(0) need n + 2 frames.
    let fits = same_in_every_mode("fits", &program, "top", &[Value::Int(298)], &stress(bound));
    assert_eq!(fits.result, Ok(Value::Int(2 * 299)));
    let over = same_in_every_mode("over", &program, "top", &[Value::Int(299)], &stress(bound));
    let error = assert_call_depth(&over.result, bound, "under stress");
    assert_eq!(error.backtrace.len(), bound);
    assert_eq!(error.backtrace[0].line, Some(7), "{error}");
    assert_eq!(error.backtrace[bound - 1].function, "m.top");
}

#[test]
fn under_gc_stress_a_debugger_reads_every_outer_frames_references_at_the_deepest_stop() {
    // The debugger reads every frame's locals at the deepest stop of a
    // recursion that holds a string and a list in every frame: each outer
    // frame's values must read back as its own after all those collections.
    let program = compile(DIVE);
    let n: i64 = 120;
    let seen: Mutex<Option<Vec<BTreeMap<String, Value>>>> = Mutex::new(None);
    let dbg = Tap::new(|stop: &Stop<'_>| {
        // Line 5 is the bottom's `return`, where its list is live too.
        if stop.depth() == n as usize + 2 && stop.line() == Some(5) {
            let mut seen = seen.lock().unwrap();
            if seen.is_none() {
                *seen = Some(
                    stop.frames()
                        .map(|f| f.locals().into_iter().collect())
                        .collect(),
                );
            }
        }
        Resume::Go
    });
    let mut vm = Vm::new(&program)
        .with_debugger(&dbg)
        .with_limits(stress(100_000));
    assert_eq!(
        vm.run_entry("m", "top", vec![Value::Int(n)]),
        Ok(Value::Int(2 * (n + 1)))
    );
    let frames = seen
        .into_inner()
        .unwrap()
        .expect("the recursion reached its bottom");
    assert_eq!(frames.len(), n as usize + 2);
    // Innermost first: dive(0), dive(1), ..., dive(n), then top.
    for (i, locals) in frames.iter().take(n as usize + 1).enumerate() {
        assert_eq!(
            locals.get("n"),
            Some(&Value::Int(i as i64)),
            "frame {i}: {locals:?}"
        );
        assert_eq!(
            locals.get("mine"),
            Some(&Value::str(format!("frame{i}"))),
            "frame {i}"
        );
        let outer = if i as i64 == n {
            "top".to_string()
        } else {
            format!("frame{}!", i + 1)
        };
        assert_eq!(
            locals.get("held"),
            Some(&Value::List(vec![
                Value::str(format!("frame{i}")),
                Value::str(outer)
            ])),
            "frame {i}"
        );
    }
}

/// This program faults four calls deep, after a loop, with each call on a
/// line of its own; `joined` makes the same fault in a task and joins it.
const NESTED_FAULT: &str = "fn leaf(n: Int) -> Int {
  let z = n - n
  n / z
}

fn middle(n: Int) -> Int {
  let k = n + 1
  leaf(k) + 1
}

fn outer(n: Int) -> Int {
  var total = 0
  for i in 0..3000 {
    total += i % 3
  }
  total + middle(n)
}

export fn main() -> Int {
  let a = 1
  outer(a) * 2
}

fn worker(n: Int) -> Int {
  outer(n)
}

export fn joined() -> Int {
  let t = spawn worker(5)
  let r = t.join()
  r + 1
}
";

/// Names each frame of `error`'s backtrace by function, line and task.
fn where_(error: &RunError) -> Vec<(String, Option<u32>, u32)> {
    error
        .backtrace
        .iter()
        .map(|f| (f.function.clone(), f.line, f.task))
        .collect()
}

/// Names a frame as [`where_`] does.
fn at(function: &str, line: u32, task: u32) -> (String, Option<u32>, u32) {
    (function.to_string(), Some(line), task)
}

#[test]
fn every_frame_of_a_backtrace_names_the_line_of_its_call_in_every_mode() {
    let program = compile(NESTED_FAULT);
    let outcome = same_in_every_mode("nested", &program, "main", &[], &Limits::default());
    let error = outcome.result.unwrap_err();
    assert_eq!(error.kind, ErrorKind::DivisionByZero);
    assert_eq!(
        where_(&error),
        [
            at("m.leaf", 3, 0),
            at("m.middle", 8, 0),
            at("m.outer", 16, 0),
            at("m.main", 21, 0)
        ],
        "{error}"
    );
    assert!(outcome.instructions > 3 * u64::from(SAFEPOINT_STRIDE));
}

#[test]
fn a_task_faults_backtrace_lists_its_frames_then_the_joiners_with_their_lines_in_every_mode() {
    let program = compile(NESTED_FAULT);
    let outcome = same_in_every_mode("joined", &program, "joined", &[], &Limits::default());
    let error = outcome.result.unwrap_err();
    assert_eq!(error.kind, ErrorKind::DivisionByZero, "{error}");
    assert_eq!(
        where_(&error),
        [
            at("m.leaf", 3, 1),
            at("m.middle", 8, 1),
            at("m.outer", 16, 1),
            at("m.worker", 25, 1),
            at("m.joined", 30, 0),
        ],
        "{error}"
    );
}

/// Gives programs that fault in different ways, several calls deep.
fn faulting_programs() -> Vec<(&'static str, String)> {
    vec![
        ("nested", NESTED_FAULT.to_string()),
        (
            "recursion",
            "fn down(n: Int) -> Int {\n  if n == 0 {\n    return 1 / n\n  }\n  let r = down(n - 1)\n  r + 1\n}\n\nexport fn main() -> Int {\n  down(30)\n}\n"
                .to_string(),
        ),
        (
            "unwrap",
            "fn pick(xs: List[Int], i: Int) -> Int {\n  xs.get(i).unwrap()\n}\n\nfn sum(xs: List[Int], n: Int) -> Int {\n  var t = 0\n  for i in 0..n {\n    t += pick(xs, i)\n  }\n  t\n}\n\nexport fn main() -> Int {\n  let xs = [1, 2, 3]\n  sum(xs, 5)\n}\n"
                .to_string(),
        ),
        (
            "index",
            "fn nth(xs: List[String], i: Int) -> String {\n  xs[i]\n}\n\nfn shout(xs: List[String], i: Int) -> String {\n  let s = nth(xs, i)\n  s.to_upper()\n}\n\nexport fn main() -> Int {\n  let xs = [\"a\", \"b\"]\n  var total = 0\n  for i in 0..4 {\n    total += shout(xs, i).length()\n  }\n  total\n}\n"
                .to_string(),
        ),
        (
            "guarded",
            "fn fib(n: Int) -> Int {\n  if n < 2 {\n    return n\n  }\n  fib(n - 1) + fib(n - 2)\n}\n\nfn check(n: Int) -> Int {\n  let f = fib(n)\n  assert(f < 50, \"too big\")\n  f\n}\n\nexport fn main() -> Int {\n  var t = 0\n  for i in 0..20 {\n    t += check(i)\n  }\n  t\n}\n"
                .to_string(),
        ),
        (
            "overflow",
            "fn grow(x: Int, times: Int) -> Int {\n  if times == 0 {\n    return x\n  }\n  grow(x * 3, times - 1)\n}\n\nexport fn main() -> Int {\n  grow(1, 60)\n}\n"
                .to_string(),
        ),
        (
            "multi-line call",
            "fn div(a: Int, b: Int) -> Int {\n  a / b\n}\n\nfn f(n: Int) -> Int {\n  let x = div(\n    n,\n    n - n,\n  )\n  x\n}\n\nexport fn main() -> Int {\n  f(\n    7,\n  )\n}\n"
                .to_string(),
        ),
    ]
}

/// Frames as a backtrace names them: function, line and task, innermost
/// first.
type FramesAt = Vec<(String, Option<u32>, u32)>;

/// Records, per task, the frames of its latest stop as a backtrace would
/// name them.
fn last_frames_recorder(
    last: &Mutex<BTreeMap<u32, FramesAt>>,
) -> Tap<impl Fn(&Stop<'_>) -> Resume + Sync + '_> {
    Tap::following(move |stop: &Stop<'_>| {
        let p = stop.program();
        let frames = stop
            .frames()
            .map(|f| {
                (
                    p.function_name(f.function_id()).to_string(),
                    f.line(),
                    stop.task(),
                )
            })
            .collect();
        last.lock().unwrap().insert(stop.task(), frames);
        Resume::Go
    })
}

#[test]
fn a_faults_backtrace_is_the_debuggers_frame_view_at_the_faulting_stop() {
    for (name, source) in faulting_programs() {
        let program = compile(&source);
        let expected = same_in_every_mode(name, &program, "main", &[], &Limits::default());
        let error = expected.result.expect_err(name);
        let last = Mutex::new(BTreeMap::new());
        let dbg = last_frames_recorder(&last);
        let mut vm = Vm::new(&program)
            .with_debugger(&dbg)
            .with_output(Box::new(std::io::sink()));
        assert_eq!(
            vm.run_entry("m", "main", vec![]).as_ref(),
            Err(&error),
            "{name}"
        );
        let last = last.lock().unwrap().clone();
        assert_eq!(where_(&error), last[&0], "{name}: {error}");
        assert!(error.backtrace.len() >= 2, "{name}: {error}");
    }
}

#[test]
fn a_task_faults_backtrace_is_the_debuggers_view_of_the_task_then_of_the_joiner() {
    let program = compile(NESTED_FAULT);
    let last = Mutex::new(BTreeMap::new());
    let dbg = last_frames_recorder(&last);
    let mut vm = Vm::new(&program).with_debugger(&dbg);
    let error = vm.run_entry("m", "joined", vec![]).unwrap_err();
    let last = last.lock().unwrap().clone();
    let mut expected = last[&1].clone();
    expected.extend(last[&0].iter().cloned());
    assert_eq!(where_(&error), expected, "{error}");
    assert_eq!(expected.len(), 5);
}

/// This recursion keeps a local in every frame; its recursive call is on
/// line 6, and main's call on line 10.
const WALK: &str = "fn walk(n: Int, limit: Int) -> Int {
  let here = n * 10
  if n == limit {
    return here
  }
  let below = walk(n + 1, limit)
  below + here
}
export fn main() -> Int {
  walk(0, 300)
}

export fn spawned() -> Int {
  let t = spawn walk(0, 300)
  t.join()
}
";

/// One frame as the debugger shows it: function, pc, line, whether the
/// instruction at the pc is a `call`, and the locals live there.
type FrameView = (String, u32, Option<u32>, bool, BTreeMap<String, Value>);

/// Gives the whole frame view at the first stop of a `walk` about to return
/// from its bottom, in the task given.
fn bottom_view(program: &Program, entry: &str, task: u32) -> Vec<FrameView> {
    let seen: Mutex<Option<Vec<FrameView>>> = Mutex::new(None);
    let dbg = Tap::following(|stop: &Stop<'_>| {
        let p = stop.program();
        if stop.task() == task
            && p.function_name(stop.function_id()) == "m.walk"
            && stop.line() == Some(4)
        {
            let mut seen = seen.lock().unwrap();
            if seen.is_none() {
                *seen = Some(
                    stop.frames()
                        .map(|f| {
                            let code = &p.function(f.function_id()).code;
                            (
                                p.function_name(f.function_id()).to_string(),
                                f.pc(),
                                f.line(),
                                matches!(code[f.pc() as usize], Instr::Call { .. }),
                                f.locals().into_iter().collect(),
                            )
                        })
                        .collect(),
                );
            }
        }
        Resume::Go
    });
    let mut vm = Vm::new(program).with_debugger(&dbg);
    assert_eq!(vm.run_entry("m", entry, vec![]), Ok(Value::Int(451_500)));
    seen.into_inner()
        .unwrap()
        .expect("the walk reached its bottom")
}

#[test]
fn the_debugger_sees_every_outer_frame_of_a_deep_recursion_waiting_in_its_call_with_its_own_locals()
{
    let program = compile(WALK);
    let frames = bottom_view(&program, "main", 0);
    assert_eq!(frames.len(), 302, "main and 301 walks");
    let (name, _, line, _, locals) = &frames[0];
    assert_eq!((name.as_str(), *line), ("m.walk", Some(4)));
    assert_eq!(locals.get("n"), Some(&Value::Int(300)));
    assert_eq!(locals.get("here"), Some(&Value::Int(3000)));
    let call_pc = frames[1].1;
    for (i, (name, pc, line, is_call, locals)) in frames.iter().enumerate().skip(1).take(300) {
        let n = 300 - i as i64;
        assert_eq!(name, "m.walk", "frame {i}");
        assert!(*is_call, "frame {i} waits in a call, at pc {pc}");
        assert_eq!(*pc, call_pc, "frame {i}: every walk waits in the same call");
        assert_eq!(*line, Some(6), "frame {i}");
        assert_eq!(locals.get("n"), Some(&Value::Int(n)), "frame {i}");
        assert_eq!(locals.get("limit"), Some(&Value::Int(300)), "frame {i}");
        assert_eq!(locals.get("here"), Some(&Value::Int(n * 10)), "frame {i}");
    }
    let (name, _, line, is_call, _) = &frames[301];
    assert_eq!((name.as_str(), *line, *is_call), ("m.main", Some(10), true));
}

#[test]
fn a_followed_tasks_frame_view_is_its_own_stack_with_the_same_calls_and_locals() {
    let program = compile(WALK);
    let in_main = bottom_view(&program, "main", 0);
    let in_task = bottom_view(&program, "spawned", 1);
    // The task's stack starts at walk: it is main's view without main.
    assert_eq!(in_task.len(), 301);
    assert_eq!(in_task[..], in_main[..301]);
}

/// Gives programs of many shapes, each ending well, with the value it gives.
fn shapes() -> Vec<(&'static str, String, Value)> {
    let stride = SAFEPOINT_STRIDE as usize;
    let mut straight = String::from("fn straight(x: Int) -> Int {\n  var y = x\n");
    for i in 0..(3 * stride + 5) {
        straight.push_str(&format!("  y = y + {}\n", i % 5));
    }
    straight.push_str("  y\n}\n");
    vec![
        (
            "guarded-return fib",
            "fn fib(n: Int) -> Int {\n  if n < 2 {\n    return n\n  }\n  fib(n - 1) + fib(n - 2)\n}\n\nexport fn main() -> Int {\n  fib(16)\n}\n".to_string(),
            Value::Int(987),
        ),
        (
            "mutual recursion, no loop",
            "fn even(n: Int) -> Bool {\n  if n == 0 { true } else { odd(n - 1) }\n}\n\nfn odd(n: Int) -> Bool {\n  if n == 0 { false } else { even(n - 1) }\n}\n\nexport fn main() -> Int {\n  if even(5001) { 1 } else { 2 }\n}\n".to_string(),
            Value::Int(2),
        ),
        (
            "a loop whose body is one call",
            "fn step(t: Int) -> Int {\n  (t * 31 + 7) % 1009\n}\n\nexport fn main() -> Int {\n  var t = 0\n  for i in 0..3000 {\n    t = step(t)\n  }\n  t\n}\n".to_string(),
            Value::Int({
                let mut t = 0i64;
                for _ in 0..3000 {
                    t = (t * 31 + 7) % 1009;
                }
                t
            }),
        ),
        (
            "nested loops with break and continue",
            "export fn main() -> Int {\n  var t = 0\n  var i = 0\n  while i < 200 {\n    i += 1\n    if i % 3 == 0 {\n      continue\n    }\n    for j in 0..50 {\n      if j > i {\n        break\n      }\n      t += j\n    }\n  }\n  t\n}\n".to_string(),
            Value::Int({
                let mut t = 0i64;
                for i in 1..=200i64 {
                    if i % 3 == 0 {
                        continue;
                    }
                    for j in 0..50i64 {
                        if j > i {
                            break;
                        }
                        t += j;
                    }
                }
                t
            }),
        ),
        (
            "matches and allocation",
            "enum Shape {\n  Square(Int),\n  Pair(Int, Int),\n  Dot,\n}\n\nfn area(s: Shape) -> Int {\n  match s {\n    Shape.Square(x) => x * x,\n    Shape.Pair(a, b) => a * b,\n    Shape.Dot => 0,\n  }\n}\n\nexport fn main() -> Int {\n  var t = 0\n  for i in 0..1500 {\n    let s = if i % 3 == 0 { Shape.Square(i % 7) } else if i % 3 == 1 { Shape.Pair(i % 5, 2) } else { Shape.Dot }\n    t += area(s)\n    let text = \"n={i}\"\n    t += text.length()\n  }\n  t\n}\n".to_string(),
            Value::Int({
                let mut t = 0i64;
                for i in 0..1500i64 {
                    t += match i % 3 {
                        0 => (i % 7) * (i % 7),
                        1 => (i % 5) * 2,
                        _ => 0,
                    };
                    t += format!("n={i}").len() as i64;
                }
                t
            }),
        ),
        (
            "a recursion twenty thousand deep",
            "fn down(n: Int) -> Int {\n  if n == 0 { 0 } else { 1 + down(n - 1) }\n}\n\nexport fn main() -> Int {\n  down(20000)\n}\n".to_string(),
            Value::Int(20000),
        ),
        (
            "one straight function longer than three strides",
            format!("{straight}\nexport fn main() -> Int {{\n  straight(0)\n}}\n"),
            Value::Int((0..(3 * stride + 5)).map(|i| (i % 5) as i64).sum()),
        ),
        (
            "straight functions called from a recursion with no loop",
            format!("{straight}\nfn again(n: Int) -> Int {{\n  if n == 0 {{\n    return 0\n  }}\n  straight(0) - straight(1) + again(n - 1)\n}}\n\nexport fn main() -> Int {{\n  again(4)\n}}\n"),
            Value::Int(-4),
        ),
        (
            "tasks spawned and joined in a loop",
            "fn work(n: Int) -> Int {\n  var t = 0\n  for i in 0..n {\n    t = (t + i) % 97\n  }\n  t\n}\n\nexport fn main() -> Int {\n  var t = 0\n  for i in 0..6 {\n    let a = spawn work(500 * i)\n    t += work(300) + a.join()\n  }\n  t\n}\n".to_string(),
            Value::Int({
                let work = |n: i64| (0..n).fold(0, |t, i| (t + i) % 97);
                (0..6).map(|i| work(300) + work(500 * i)).sum()
            }),
        ),
    ]
}

#[test]
fn polled_fuelled_and_watched_runs_count_the_same_for_many_program_shapes() {
    for (name, source, value) in shapes() {
        let program = compile(&source);
        let outcome = same_in_every_mode(name, &program, "main", &[], &Limits::default());
        assert_eq!(outcome.result, Ok(value), "{name}");
        assert!(outcome.instructions > 0, "{name}");
    }
}

/// Gives programs that end badly in the task the `Vm` runs, each past a
/// stride, with the kind of error each ends in.
fn endings() -> Vec<(&'static str, String, ErrorKind)> {
    let warm = "fn warm() -> Int {\n  var t = 0\n  for i in 0..1500 {\n    t = (t + i) % 13\n  }\n  t\n}\n";
    vec![
        (
            "a fault deep in a recursion",
            format!(
                "{warm}\nfn down(n: Int) -> Int {{\n  if n == 0 {{\n    return warm() / n\n  }}\n  1 + down(n - 1)\n}}\n\nexport fn main() -> Int {{\n  down(3000)\n}}\n"
            ),
            ErrorKind::DivisionByZero,
        ),
        (
            "exit from a nested call",
            format!(
                "{warm}\nfn leave(n: Int) -> Int {{\n  exit(3)\n  n\n}}\n\nexport fn main() -> Int {{\n  println(warm())\n  leave(warm()) + 1\n}}\n"
            ),
            ErrorKind::Exit(3),
        ),
        (
            "the call-depth bound",
            format!(
                "{warm}\nfn down(n: Int) -> Int {{\n  let w = if n == 0 {{ warm() }} else {{ 0 }}\n  w + down(n + 1)\n}}\n\nexport fn main() -> Int {{\n  down(0)\n}}\n"
            ),
            ErrorKind::CallDepth,
        ),
        (
            "a failed assertion after a loop",
            format!(
                "{warm}\nexport fn main() -> Int {{\n  let w = warm()\n  assert(w == -1, \"never\")\n  w\n}}\n"
            ),
            ErrorKind::AssertionFailed,
        ),
        (
            "a deadlock",
            format!(
                "{warm}\nfn wait_for(ch: Channel[Int], back: Channel[Int]) {{\n  let v = ch.recv()\n  back.send(1)\n}}\n\nexport fn main() -> Int {{\n  let w = warm()\n  let ch = Channel[Int]()\n  let back = Channel[Int]()\n  let t = spawn wait_for(ch, back)\n  w + back.recv().unwrap()\n}}\n"
            ),
            ErrorKind::Deadlock,
        ),
        (
            "a joined task's fault",
            format!(
                "{warm}\nfn bad(n: Int) -> Int {{\n  warm() / n\n}}\n\nexport fn main() -> Int {{\n  let t = spawn bad(0)\n  let w = warm()\n  w + t.join()\n}}\n"
            ),
            ErrorKind::DivisionByZero,
        ),
        (
            "an unjoined task's fault, noticed through a channel",
            format!(
                "{warm}\nfn bad(ch: Channel[Int], n: Int) {{\n  let x = warm() / n\n  ch.send(x)\n}}\n\nexport fn main() -> Int {{\n  let ch = Channel[Int]()\n  let t = spawn bad(ch, 0)\n  let w = warm()\n  w + ch.recv().unwrap_or(0)\n}}\n"
            ),
            ErrorKind::DivisionByZero,
        ),
    ]
}

#[test]
fn runs_that_end_badly_count_the_same_in_every_mode_however_they_end() {
    for (name, source, kind) in endings() {
        let program = compile(&source);
        let limits = depth(5000);
        let outcome = same_in_every_mode(name, &program, "main", &[], &limits);
        let error = outcome.result.expect_err(name);
        assert_eq!(error.kind, kind, "{name}: {error}");
        assert!(
            outcome.instructions > u64::from(SAFEPOINT_STRIDE),
            "{name}: ran past a stride before it ended"
        );
    }
}

#[test]
fn an_unjoined_faults_report_names_its_task_in_every_mode() {
    let (_, source, _) = endings()
        .into_iter()
        .find(|(name, _, _)| name.starts_with("an unjoined"))
        .expect("the program is in the list");
    let program = compile(&source);
    let outcome = same_in_every_mode("unjoined", &program, "main", &[], &Limits::default());
    let error = outcome.result.unwrap_err();
    assert!(
        error
            .message
            .starts_with("in task 1, which was never joined"),
        "{error}"
    );
    assert_eq!(error.backtrace[0].function, "m.bad");
    assert_eq!(error.backtrace[0].task, 1);
}

/// Interrupts `vm`'s run from another thread once `ready` says the run got
/// going, and gives the run's outcome.
fn interrupted(
    vm: &mut Vm<'_>,
    entry: &str,
    ready: impl Fn() -> bool + Send + 'static,
) -> RunError {
    let handle = vm.interrupt_handle();
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let stop = done.clone();
    let interrupter = std::thread::spawn(move || {
        while !ready() && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(5));
        }
        handle.interrupt();
    });
    let result = vm.run_entry("m", entry, vec![]);
    done.store(true, Ordering::Relaxed);
    interrupter.join().expect("the interrupter ran");
    result.expect_err("only an interrupt ends this run")
}

/// This program prints a line a turn, forever: a loop whose only call is a
/// builtin's.
const PRINTS_FOREVER: &str = "export fn count(limit: Int) -> Int {
  var i = 0
  while i != limit {
    println(i)
    i += 1
  }
  i
}

export fn main() -> Int {
  count(-1)
}

export fn quick() -> Int {
  count(3)
}
";

#[test]
fn an_interrupted_polled_run_counts_what_it_ran_and_the_vm_runs_again_after_it() {
    let program = compile(PRINTS_FOREVER);
    // What one turn costs, and what a run costs besides its turns.
    let cost = |n: i64| {
        run_in(
            Mode::Watched,
            &program,
            "count",
            vec![Value::Int(n)],
            &Limits::default(),
        )
        .instructions
    };
    let (base, turn) = (cost(0), cost(1) - cost(0));
    assert_eq!(
        cost(10),
        base + 10 * turn,
        "a turn costs the same each time"
    );

    for attempt in 0..3 {
        let out = Captured::default();
        let mut vm = Vm::new(&program).with_output(Box::new(out.clone()));
        let seen = out.clone();
        let error = interrupted(&mut vm, "main", move || seen.text().len() > 20_000);
        assert_eq!(error.kind, ErrorKind::Interrupted, "{error}");
        assert_eq!(error.message, "interrupted");
        assert_eq!(
            error.backtrace.last().map(|f| f.function.as_str()),
            Some("m.main")
        );
        // The count is the turns that printed, give or take the one the
        // interrupt cut short: a stride lost or counted twice would be
        // hundreds of turns off.
        let turns = out.text().lines().count() as u64;
        let counted = vm.instructions();
        let expected = base + turns * turn;
        assert!(
            counted.abs_diff(expected) <= 2 * turn + 8,
            "attempt {attempt}: {counted} instructions for {turns} turns of {turn} after {base}"
        );

        // The interrupt was this run's: the Vm runs again, and counts the
        // new run as a fresh Vm would.
        let before = vm.instructions();
        assert_eq!(vm.run_entry("m", "quick", vec![]), Ok(Value::Int(3)));
        let fresh = run_in(Mode::Watched, &program, "quick", vec![], &Limits::default());
        assert_eq!(vm.instructions() - before, fresh.instructions);
    }
}

/// These tasks never end on their own: one loops without a call, one calls
/// a deep recursion from a loop, and one is a recursion with no loop at all
/// (fib(60) would take years: only its calls poll). Main returns, faults, or
/// waits.
const SPINNERS: &str = "fn fib(n: Int) -> Int {
  if n < 2 {
    return n
  }
  fib(n - 1) + fib(n - 2)
}

fn spin() {
  var i = 0
  while true {
    i = (i + 1) % 7
  }
}

fn deep(n: Int) -> Int {
  if n == 0 { 0 } else { deep(n - 1) + 1 }
}

fn churn() {
  var t = 0
  while true {
    t = deep(20000) - t
  }
}

fn warm() -> Int {
  var t = 0
  for i in 0..2000 {
    t = (t + i) % 13
  }
  t
}

export fn returns() -> Int {
  let a = spawn spin()
  let b = spawn churn()
  let c = spawn fib(60)
  warm() + 7
}

export fn faults() -> Int {
  let a = spawn spin()
  let b = spawn churn()
  let c = spawn fib(60)
  let w = warm()
  w / (w - w)
}

export fn waits_on_a_spinner() -> Int {
  let a = spawn spin()
  a.join()
  1
}

export fn waits_on_a_churner() -> Int {
  let b = spawn churn()
  b.join()
  1
}

export fn waits_on_a_recursion() -> Int {
  let c = spawn fib(60)
  c.join()
}

export fn quick() -> Int {
  warm()
}
";

#[test]
fn spinning_tasks_stop_when_main_returns_or_faults_in_every_mode() {
    let program = compile(SPINNERS);
    let warm = run_in(Mode::Polled, &program, "quick", vec![], &Limits::default());
    let Ok(Value::Int(w)) = warm.result else {
        panic!("{:?}", warm.result)
    };
    for _ in 0..3 {
        // The run ends with main's answer: the tasks still spinning stop at
        // their next poll, and their stopping is not a failure of the run.
        let returned = same_in_every_mode("returns", &program, "returns", &[], &Limits::default());
        assert_eq!(returned.result, Ok(Value::Int(w + 7)));
        // main's own fault is the run's result, not the tasks' stopping.
        let faulted = same_in_every_mode("faults", &program, "faults", &[], &Limits::default());
        let error = faulted.result.unwrap_err();
        assert_eq!(error.kind, ErrorKind::DivisionByZero, "{error}");
        assert_eq!(error.backtrace.len(), 1);
        assert_eq!(error.backtrace[0].function, "m.faults");
        let line = SPINNERS
            .lines()
            .position(|l| l.contains("w / (w - w)"))
            .expect("the fault is in the source") as u32
            + 1;
        assert_eq!(error.backtrace[0].line, Some(line));
    }
}

#[test]
fn an_interrupt_stops_a_polled_run_waiting_on_a_task_that_only_loops_or_only_recurses() {
    let program = compile(SPINNERS);
    let mut vm = Vm::new(&program);
    for entry in [
        "waits_on_a_spinner",
        "waits_on_a_churner",
        "waits_on_a_recursion",
    ] {
        let started = std::sync::Arc::new(AtomicUsize::new(0));
        let ready = started.clone();
        // Give the task a moment to get going: the interrupt must find it
        // looping, not starting.
        let error = interrupted(&mut vm, entry, move || {
            ready.fetch_add(1, Ordering::Relaxed) >= 10
        });
        assert_eq!(error.kind, ErrorKind::Interrupted, "{entry}: {error}");
        assert!(started.load(Ordering::Relaxed) >= 10);
        let before = vm.instructions();
        assert!(
            matches!(vm.run_entry("m", "quick", vec![]), Ok(Value::Int(_))),
            "{entry}"
        );
        assert_eq!(
            vm.instructions() - before,
            run_in(Mode::Fuelled, &program, "quick", vec![], &Limits::default()).instructions
        );
    }
}

/// `work` has two loops whose turns cost different numbers of instructions,
/// so that some choice of turns makes a run of any large enough length.
const TWO_LOOPS: &str = "export fn work(a: Int, b: Int) -> Int {
  var t = 0
  for i in 0..a {
    t += i
  }
  var j = 0
  while j < b {
    t = t - j
    j += 1
  }
  t
}

export fn in_task(a: Int, b: Int) -> Int {
  let t = spawn work(a, b)
  t.join()
}

export fn beside(a: Int, b: Int) -> Int {
  let t = spawn work(a, b)
  work(a, b) - t.join()
}
";

/// Counts, with a debugger, the instructions `work(a, b)` runs.
fn work_cost(program: &Program, a: i64, b: i64) -> u64 {
    run_in(
        Mode::Watched,
        program,
        "work",
        vec![Value::Int(a), Value::Int(b)],
        &Limits::default(),
    )
    .instructions
}

/// Finds turns of each loop that make `work` run exactly `target`
/// instructions, if there are any.
fn turns_for(program: &Program, target: u64) -> Option<(i64, i64)> {
    let base = work_cost(program, 0, 0);
    let a_turn = work_cost(program, 1, 0) - base;
    let b_turn = work_cost(program, 0, 1) - base;
    let rest = target.checked_sub(base)?;
    (0..=rest / a_turn).find_map(|a| {
        let left = rest - a * a_turn;
        (left % b_turn == 0).then(|| (a as i64, (left / b_turn) as i64))
    })
}

#[test]
fn fuel_equal_to_a_runs_length_is_enough_and_one_less_is_not_at_every_stride_boundary() {
    let program = compile(TWO_LOOPS);
    let stride = u64::from(SAFEPOINT_STRIDE);
    // No fuel at all: not even the entry's first instruction runs.
    let none = run_in(
        Mode::Fuelled,
        &program,
        "work",
        vec![Value::Int(1), Value::Int(1)],
        &Limits {
            fuel: Some(0),
            ..Limits::default()
        },
    );
    let error = none.result.expect_err("no fuel");
    assert_eq!(error.kind, ErrorKind::OutOfFuel);
    assert_eq!(none.instructions, 0);
    assert_eq!(where_(&error), [at("m.work", 2, 0)]);
    let mut targets = Vec::new();
    for k in 1..=3 {
        targets.extend([
            k * stride - 2,
            k * stride - 1,
            k * stride,
            k * stride + 1,
            k * stride + 2,
        ]);
    }
    for target in targets {
        let (a, b) = turns_for(&program, target)
            .unwrap_or_else(|| panic!("no run of work is {target} instructions long"));
        let args = vec![Value::Int(a), Value::Int(b)];
        assert_eq!(work_cost(&program, a, b), target, "work({a}, {b})");
        let expected = run_in(
            Mode::Polled,
            &program,
            "work",
            args.clone(),
            &Limits::default(),
        );
        assert_eq!(
            expected.instructions, target,
            "a polled run of work({a}, {b}) counts it exactly"
        );

        let fuel = |fuel: u64| {
            run_in(
                Mode::Fuelled,
                &program,
                "work",
                args.clone(),
                &Limits {
                    fuel: Some(fuel),
                    ..Limits::default()
                },
            )
        };
        let enough = fuel(target);
        assert_eq!(
            enough.result, expected.result,
            "fuel {target} runs work({a}, {b})"
        );
        assert_eq!(enough.instructions, target);

        let short = fuel(target - 1);
        let error = short.result.expect_err("one instruction short");
        assert_eq!(error.kind, ErrorKind::OutOfFuel, "fuel {}", target - 1);
        assert_eq!(
            error.message,
            format!("out of fuel after {} instructions", target - 1)
        );
        assert_eq!(short.instructions, target - 1);
    }
}

#[test]
fn fuel_is_the_runs_so_tasks_together_run_no_more_than_it_and_a_starved_task_ends_the_run() {
    let program = compile(TWO_LOOPS);
    // The task's run is exactly two strides long.
    let task = 2 * u64::from(SAFEPOINT_STRIDE);
    let (a, b) = turns_for(&program, task).expect("work can run two strides");
    assert_eq!(work_cost(&program, a, b), task);
    let args = vec![Value::Int(a), Value::Int(b)];

    // Each task runs `work` once, and main its own call of it too: together
    // they run about twice what either does alone.
    let main = run_in(
        Mode::Polled,
        &program,
        "beside",
        args.clone(),
        &Limits::default(),
    );
    assert_eq!(main.result, Ok(Value::Int(0)));
    assert!(main.instructions > task && main.instructions < 2 * task);
    let limited = |fuel: u64, entry: &str| {
        run_in(
            Mode::Fuelled,
            &program,
            entry,
            args.clone(),
            &Limits {
                fuel: Some(fuel),
                ..Limits::default()
            },
        )
    };
    // Enough for main alone is not enough for the run: the task draws on
    // the same fuel.
    let alone = limited(main.instructions, "beside");
    assert_eq!(
        alone.result.expect_err("main's fuel alone").kind,
        ErrorKind::OutOfFuel
    );
    // Both together, with a stride to spare for the fuel a task holds
    // while it waits, and the spawn's `SPAWN_FUEL`, is.
    let both = limited(
        main.instructions + task + u64::from(SAFEPOINT_STRIDE) + SPAWN_FUEL,
        "beside",
    );
    assert_eq!(both.result, Ok(Value::Int(0)));
    assert_eq!(both.instructions, main.instructions);

    // A task short of its length ends the run, from inside the task, while
    // main waits in join.
    let waiting = run_in(
        Mode::Polled,
        &program,
        "in_task",
        args.clone(),
        &Limits::default(),
    );
    assert!(waiting.instructions < task, "main only spawns and joins");
    let enough = limited(
        task + waiting.instructions + u64::from(SAFEPOINT_STRIDE) + SPAWN_FUEL,
        "in_task",
    );
    assert_eq!(enough.result, waiting.result);
    // Main's spawn pays `SPAWN_FUEL` before the task starts, so what is
    // left is short of the task's length, and the task runs dry.
    let short_fuel = SPAWN_FUEL + task - 1;
    let short = limited(short_fuel, "in_task");
    let error = short.result.expect_err("the task is short");
    assert_eq!(error.kind, ErrorKind::OutOfFuel, "{error}");
    assert!(
        error
            .message
            .contains(&format!("out of fuel after {short_fuel} instructions")),
        "{error}"
    );
    assert_eq!(error.backtrace[0].task, 1, "{error}");
    assert_eq!(error.backtrace[0].function, "m.work");
    // Main ran to its join and no further, starved task or not.
    assert_eq!(enough.instructions, waiting.instructions);
    assert_eq!(short.instructions, through_join(&program, &args));
}

/// Counts the instructions `in_task` runs up to and including its `join`.
fn through_join(program: &Program, args: &[Value]) -> u64 {
    let stops = AtomicU64::new(0);
    let at_join = AtomicU64::new(0);
    let dbg = Tap::new(|stop: &Stop<'_>| {
        let n = stops.fetch_add(1, Ordering::Relaxed) + 1;
        if matches!(stop.instr(), Instr::CallBuiltin { .. }) {
            at_join.store(n, Ordering::Relaxed);
        }
        Resume::Go
    });
    let mut vm = Vm::new(program).with_debugger(&dbg);
    assert!(vm.run_entry("m", "in_task", args.to_vec()).is_ok());
    let n = at_join.load(Ordering::Relaxed);
    assert!(
        n > 0 && n < vm.instructions(),
        "the join is not the last instruction"
    );
    n
}

/// This mutual recursion goes through functions of different frame sizes
/// and argument counts, in the task the `Vm` runs and in a spawned one.
const ZIGZAG: &str = "fn a(n: Int) -> Int {
  if n <= 0 {
    return 0
  }
  let s = \"a{n}\"
  b(n - 1, s) + 1
}

fn b(n: Int, s: String) -> Int {
  let xs = [s, s]
  let k = n * 2
  c(n, k, xs) + xs.length()
}

fn c(n: Int, k: Int, xs: List[String]) -> Int {
  if n % 3 == 0 {
    return a(n - 1) + k
  }
  a(n - 1) - k + xs.length()
}

export fn main() -> Int {
  let t = spawn a(60)
  a(70) + t.join()
}
";

#[test]
fn at_every_stop_each_outer_frame_waits_in_a_call_of_the_function_above_it() {
    let program = compile(ZIGZAG);
    let checked = AtomicU64::new(0);
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let dbg = Tap::following(|stop: &Stop<'_>| {
        let p = stop.program();
        let frames: Vec<_> = stop.frames().collect();
        if frames.len() != stop.depth() {
            failures.lock().unwrap().push(format!(
                "depth {} but {} frames",
                stop.depth(),
                frames.len()
            ));
        }
        if frames[0].pc() != stop.pc() || frames[0].function_id() != stop.function_id() {
            failures
                .lock()
                .unwrap()
                .push("the innermost frame is not the stop".to_string());
        }
        for pair in frames.windows(2) {
            let (inner, outer) = (pair[0], pair[1]);
            let code = &p.function(outer.function_id()).code;
            let ok = code
                .get(outer.pc() as usize)
                .and_then(Instr::direct_callee)
                .is_some_and(|func| func == inner.function_id());
            if !ok || outer.line() != p.line_of(outer.function_id(), outer.pc()) {
                failures.lock().unwrap().push(format!(
                    "task {} at depth {}: {} waits at {}",
                    stop.task(),
                    stop.depth(),
                    p.function_name(outer.function_id()),
                    cove_ir::print::one(p, outer.function_id(), outer.pc())
                ));
            }
            checked.fetch_add(1, Ordering::Relaxed);
        }
        Resume::Go
    });
    let expected = run_in(Mode::Polled, &program, "main", vec![], &Limits::default());
    let mut vm = Vm::new(&program).with_debugger(&dbg);
    assert_eq!(vm.run_entry("m", "main", vec![]), expected.result);
    assert!(expected.result.is_ok());
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} failures, first {:?}",
        failures.len(),
        failures.first()
    );
    assert!(checked.load(Ordering::Relaxed) > 10_000);
    // And the same program counts alike in every mode, tasks and all.
    same_in_every_mode("zigzag", &program, "main", &[], &Limits::default());
    same_in_every_mode(
        "zigzag under stress",
        &program,
        "main",
        &[],
        &stress(100_000),
    );
}

/// This program makes calls of every argument count from none to five, each
/// mixing nums and refs, with results that depend on every argument and its
/// position.
const ARITIES: &str = "fn zero() -> Int {
  7
}

fn one(s: String) -> Int {
  s.length()
}

fn two(a: Int, s: String) -> Int {
  a * 10 + s.length()
}

fn three(xs: List[Int], a: Int, s: String) -> Int {
  xs[0] * 100 + a * 10 + s.length()
}

fn four(a: Int, b: Float, xs: List[String], c: Int) -> Int {
  a * 1000 + b.to_int() * 100 + xs.length() * 10 + c
}

fn five(s: String, a: Int, t: String, b: Int, xs: List[Int]) -> Int {
  s.length() * 10000 + a * 1000 + t.length() * 100 + b * 10 + xs.length()
}

fn all(n: Int) -> Int {
  if n == 0 {
    return 0
  }
  let s = \"x{n % 10}\"
  let xs = [n % 7, 2]
  let ys = [s, \"y\", \"z\"]
  zero() + one(s) + two(n % 9, s) + three(xs, n % 5, s) + four(n % 4, 2.5, ys, n % 3) + five(s, n % 6, \"abc\", n % 8, xs) + all(n - 1)
}

export fn main() -> Int {
  var t = 0
  for i in 0..40 {
    t += all(i)
  }
  t
}
";

#[test]
fn calls_of_zero_to_five_arguments_pass_every_argument_in_its_place_in_every_mode() {
    fn all(n: i64) -> i64 {
        if n == 0 {
            return 0;
        }
        let s = format!("x{}", n % 10).len() as i64;
        let xs = [n % 7, 2];
        7 + s
            + ((n % 9) * 10 + s)
            + (xs[0] * 100 + (n % 5) * 10 + s)
            + ((n % 4) * 1000 + 200 + 30 + n % 3)
            + (s * 10000 + (n % 6) * 1000 + 300 + (n % 8) * 10 + 2)
            + all(n - 1)
    }
    let expected: i64 = (0..40).map(all).sum();
    let program = compile(ARITIES);
    let calm = same_in_every_mode("arities", &program, "main", &[], &Limits::default());
    assert_eq!(calm.result, Ok(Value::Int(expected)));
    let stressed = same_in_every_mode(
        "arities under stress",
        &program,
        "main",
        &[],
        &stress(100_000),
    );
    assert_eq!(stressed.result, Ok(Value::Int(expected)));
    assert_eq!(stressed.instructions, calm.instructions);
}

#[test]
fn a_depth_bound_above_the_default_is_exact_too_and_an_unbounded_one_never_trips() {
    let program = compile(DOWN);
    let bound = 130_000;
    let k = bound as i64;
    let mut vm = Vm::new(&program).with_limits(depth(bound));
    assert_eq!(
        vm.run_entry("m", "down", vec![Value::Int(k - 1)]),
        Ok(Value::Int(k - 1))
    );
    let error = vm.run_entry("m", "down", vec![Value::Int(k)]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::CallDepth);
    assert_eq!(error.backtrace.len(), bound);
    let mut unbounded = Vm::new(&program).with_limits(depth(usize::MAX));
    assert_eq!(
        unbounded.run_entry("m", "down", vec![Value::Int(k)]),
        Ok(Value::Int(k))
    );
}

/// Gives a program that loops forever two ways: a short loop with no call
/// (`tight`), and a loop around a call of a straight function longer than
/// three strides (`long_turns`).
fn forever_source() -> String {
    let stride = SAFEPOINT_STRIDE as usize;
    let mut source = String::from("fn straight(x: Int) -> Int {\n  var y = x\n");
    for i in 0..(3 * stride) {
        source.push_str(&format!("  y = y + {}\n", i % 3));
    }
    source.push_str("  y\n}\n");
    source.push_str(
        "
export fn tight() -> Int {
  var i = 0
  while true {
    i = (i + 1) % 7
  }
  i
}

export fn long_turns() -> Int {
  var t = 0
  while true {
    t = straight(t) % 1000
  }
  t
}

export fn quick() -> Int {
  straight(1) % 1000
}
",
    );
    source
}

/// Records where each of the first `n` instructions of a run of `entry` is:
/// its function, pc, line and depth.
fn first_stops(program: &Program, entry: &str, n: usize) -> Vec<(String, u32, Option<u32>, usize)> {
    let stops = Mutex::new(Vec::with_capacity(n));
    let dbg = Tap::new(|stop: &Stop<'_>| {
        let mut stops = stops.lock().unwrap();
        if stops.len() == n {
            return Resume::Halt;
        }
        let p = stop.program();
        stops.push((
            p.function_name(stop.function_id()).to_string(),
            stop.pc(),
            stop.line(),
            stop.depth(),
        ));
        Resume::Go
    });
    let mut vm = Vm::new(program).with_debugger(&dbg);
    let halted = vm.run_entry("m", entry, vec![]).unwrap_err();
    assert_eq!(halted.kind, ErrorKind::Halted);
    stops.into_inner().unwrap()
}

#[test]
fn an_interrupt_pending_before_a_run_stops_it_at_its_first_safepoint_exactly_or_at_the_next_poll() {
    let program = compile(&forever_source());
    let stride = u64::from(SAFEPOINT_STRIDE);
    for (entry, longest_turn) in [("tight", 8), ("long_turns", 3 * stride + 16)] {
        let stops = first_stops(&program, entry, (stride + longest_turn + 2) as usize);
        for mode in [Mode::Polled, Mode::Fuelled, Mode::Watched] {
            let counter = Counter::default();
            let mut vm = vm_in(mode, &program, &counter);
            vm.interrupt_handle().interrupt();
            let error = vm.run_entry("m", entry, vec![]).unwrap_err();
            assert_eq!(
                error.kind,
                ErrorKind::Interrupted,
                "{entry} {mode:?}: {error}"
            );
            let ran = vm.instructions();
            if mode == Mode::Polled {
                // At the first taken jump or call once a stride has run:
                // within one turn of the loop past it.
                assert!(
                    ran >= stride && ran <= stride + longest_turn,
                    "{entry} {mode:?}: stopped after {ran}"
                );
                // The instruction it stopped before is where that jump or
                // call landed, not the one after the one before it.
                let (before, next) = (&stops[ran as usize - 1], &stops[ran as usize]);
                assert!(
                    next.3 != before.3 || next.1 != before.1 + 1,
                    "{entry}: stopped after {ran}, which did not jump or call: {before:?} then {next:?}"
                );
            } else {
                // Exactly when the first stride is used up.
                assert_eq!(ran, stride, "{entry} {mode:?}");
            }
            // Located at the instruction that did not run.
            let next = &stops[ran as usize];
            assert_eq!(
                (
                    error.backtrace[0].function.as_str(),
                    error.backtrace[0].line
                ),
                (next.0.as_str(), next.2),
                "{entry} {mode:?}: {error}"
            );
            assert_eq!(error.backtrace.len(), next.3, "{entry} {mode:?}");
            // The interrupt was consumed: the next run is not interrupted.
            assert_eq!(
                vm.run_entry("m", "quick", vec![]).map_err(|e| e.kind),
                Ok(Value::Int(
                    (1 + (0..3 * stride as i64).map(|i| i % 3).sum::<i64>()) % 1000
                )),
                "{entry} {mode:?}"
            );
        }
    }
}

#[test]
fn a_halt_deep_in_a_recursion_has_the_backtrace_of_the_frames_the_debugger_saw() {
    let program = compile(WALK);
    let seen: Mutex<Option<FramesAt>> = Mutex::new(None);
    let dbg = Tap::new(|stop: &Stop<'_>| {
        // Halt at the first instruction of the 150th walk.
        if stop.depth() == 151 && stop.pc() == 0 {
            let p = stop.program();
            *seen.lock().unwrap() = Some(
                stop.frames()
                    .map(|f| (p.function_name(f.function_id()).to_string(), f.line(), 0))
                    .collect(),
            );
            return Resume::Halt;
        }
        Resume::Go
    });
    let mut vm = Vm::new(&program).with_debugger(&dbg);
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Halted);
    let seen = seen.into_inner().unwrap().expect("the debugger halted");
    assert_eq!(seen.len(), 151);
    assert_eq!(where_(&error), seen);
    assert_eq!(seen[1], at("m.walk", 6, 0));
    assert_eq!(seen[150], at("m.main", 10, 0));
}

#[test]
fn a_backtrace_through_two_modules_names_each_frames_own_file_and_line_in_every_mode() {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "cove-vm-calls-and-polls-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("b.cove"),
        "import app\n\nexport fn ping(n: Int) -> Int {\n  if n == 0 {\n    return 10 / n\n  }\n  app.pong(n - 1) + 1\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("app.cove"),
        "import b\n\nexport fn pong(n: Int) -> Int {\n  let k = n\n  b.ping(k) + 1\n}\n\nfn main() -> Int {\n  pong(4)\n}\n",
    )
    .unwrap();
    let compiled = cove_compiler::compile_files(&dir.join("app.cove"));
    let _ = std::fs::remove_dir_all(&dir);
    let program = compiled.unwrap_or_else(|d| panic!("{d}"));

    let mut expected = vec![("b.ping", "b.cove", 5), ("app.pong", "app.cove", 5)];
    for _ in 0..4 {
        expected.extend([("b.ping", "b.cove", 7), ("app.pong", "app.cove", 5)]);
    }
    expected.push(("app.main", "app.cove", 9));

    let mut first: Option<(RunError, u64)> = None;
    for mode in [Mode::Polled, Mode::Fuelled, Mode::Watched] {
        let counter = Counter::default();
        let mut vm = vm_in(mode, &program, &counter);
        let error = vm.run_entry("app", "main", vec![]).unwrap_err();
        assert_eq!(error.kind, ErrorKind::DivisionByZero, "{mode:?}");
        let frames: Vec<(&str, bool, Option<u32>)> = error
            .backtrace
            .iter()
            .map(|f| (f.function.as_str(), f.path.ends_with(".cove"), f.line))
            .collect();
        let wanted: Vec<(&str, bool, Option<u32>)> = expected
            .iter()
            .map(|(f, _, l)| (*f, true, Some(*l)))
            .collect();
        assert_eq!(frames, wanted, "{mode:?}: {error}");
        for (frame, (_, file, _)) in error.backtrace.iter().zip(&expected) {
            assert!(
                frame.path.ends_with(file),
                "{mode:?}: {} is not in {file}",
                frame.path
            );
        }
        match &first {
            None => first = Some((error, vm.instructions())),
            Some((error0, count0)) => {
                assert_eq!(&error, error0, "{mode:?}");
                assert_eq!(vm.instructions(), *count0, "{mode:?}");
            }
        }
    }
}
