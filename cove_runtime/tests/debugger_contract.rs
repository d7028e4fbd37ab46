//! The debugger seam (`vm::debug::{Debugger, Stop, Resume}`) checked against
//! its contract from outside: one stop per executed instruction, stops that
//! agree with the program (function, pc, depth, line, instruction), heap
//! counters that never go back, frames and locals an interactive debugger
//! can read, `Resume::Halt` ending a run cleanly, tasks, and a `Vm` that
//! runs again after a halted run.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use cove_ir::op::Instr;
use cove_ir::program::Program;
use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::vm::exec::SAFEPOINT_STRIDE;
use cove_runtime::{ErrorKind, Limits, Value, Vm};

mod support;
use support::{Captured, Tap};

fn compile(source: &str) -> Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

fn tap<F: Fn(&Stop<'_>) -> Resume + Sync>(at: F) -> Tap<F> {
    Tap::new(at)
}

/// Sums 0..n in a loop; `total` is live inside it.
const LOOP: &str = "export fn main() -> Int {\n  var total = 0\n  var i = 0\n  while i < 100 {\n    total = total + i\n    i = i + 1\n  }\n  total\n}\n";

/// A call two levels deep and a recursion.
const CALLS: &str = "fn add(a: Int, b: Int) -> Int {\n  let c = a + b\n  c\n}\n\nfn fact(n: Int) -> Int {\n  if n <= 1 {\n    1\n  } else {\n    n * fact(n - 1)\n  }\n}\n\nfn twice(x: Int) -> Int {\n  add(x, x)\n}\n\nexport fn main() -> Int {\n  let label = \"sum\"\n  let a = twice(3)\n  let b = fact(5)\n  a + b + label.length()\n}\n";

/// Allocates far more than any heap keeps, so the collector runs.
const GARBAGE: &str = "export fn main() -> Int {\n  var total = 0\n  var i = 0\n  while i < 20000 {\n    let parts = [\"a{i}\", \"b{i}\", \"c{i}\"]\n    total = total + parts.length()\n    i = i + 1\n  }\n  total\n}\n";

#[test]
fn the_debugger_is_called_exactly_once_before_every_executed_instruction() {
    for source in [LOOP, CALLS, GARBAGE] {
        let program = compile(source);
        let stops = AtomicU64::new(0);
        let counter = tap(|_| {
            stops.fetch_add(1, Ordering::Relaxed);
            Resume::Go
        });
        let mut watched = Vm::new(&program).with_debugger(&counter);
        let mut plain = Vm::new(&program);
        let a = watched.run_entry("m", "main", vec![]);
        let b = plain.run_entry("m", "main", vec![]);
        assert!(a.is_ok(), "{a:?}");
        assert_eq!(a, b);
        assert_eq!(stops.load(Ordering::Relaxed), watched.instructions());
        assert_eq!(watched.instructions(), plain.instructions());
    }
}

#[test]
fn the_first_stop_is_the_entry_function_at_pc_zero_with_depth_one() {
    let program = compile(CALLS);
    let first = Mutex::new(None);
    let dbg = tap(|stop| {
        let mut first = first.lock().unwrap();
        if first.is_none() {
            *first = Some((
                stop.program().function_name(stop.function_id()).to_string(),
                stop.pc(),
                stop.depth(),
                stop.task(),
            ));
        }
        Resume::Go
    });
    let mut vm = Vm::new(&program).with_debugger(&dbg);
    vm.run_entry("m", "main", vec![]).unwrap();
    assert_eq!(
        first.into_inner().unwrap(),
        Some(("m.main".to_string(), 0, 1, 0))
    );
}

#[test]
fn every_stop_names_the_instruction_it_is_about_to_run_in_the_program_it_shows() {
    let program = compile(CALLS);
    let bad = Mutex::new(Vec::new());
    let dbg = tap(|stop| {
        let p = stop.program();
        let f = p.function(stop.function_id());
        let printed = cove_ir::print::one(p, stop.function_id(), stop.pc());
        let prefix = format!("{}@{}  ", p.function_name(stop.function_id()), stop.pc());
        let ok = std::ptr::eq(stop.instr(), &f.code[stop.pc() as usize])
            && printed.starts_with(&prefix)
            && !printed.contains("<no instruction>")
            && stop.frames().next().map(|fr| (fr.function_id(), fr.pc()))
                == Some((stop.function_id(), stop.pc()))
            && stop.frames().count() == stop.depth();
        if !ok {
            bad.lock().unwrap().push(printed);
        }
        Resume::Go
    });
    let mut vm = Vm::new(&program).with_debugger(&dbg);
    vm.run_entry("m", "main", vec![]).unwrap();
    assert_eq!(bad.into_inner().unwrap(), Vec::<String>::new());
}

#[test]
fn the_program_a_stop_shows_is_the_program_the_vm_runs() {
    let program = compile(LOOP);
    let same = AtomicBool::new(true);
    let dbg = tap(|stop| {
        if !std::ptr::eq(stop.program(), &program) {
            same.store(false, Ordering::Relaxed);
        }
        Resume::Go
    });
    Vm::new(&program)
        .with_debugger(&dbg)
        .run_entry("m", "main", vec![])
        .unwrap();
    assert!(same.load(Ordering::Relaxed));
}

#[test]
fn the_depth_rises_by_one_in_a_call_and_falls_back_when_it_returns() {
    let program = compile(CALLS);
    let trail = Mutex::new(Vec::new());
    let dbg = tap(|stop| {
        trail.lock().unwrap().push((
            stop.program().function_name(stop.function_id()).to_string(),
            stop.depth(),
            stop.instr().direct_callee().is_some(),
        ));
        Resume::Go
    });
    Vm::new(&program)
        .with_debugger(&dbg)
        .run_entry("m", "main", vec![])
        .unwrap();
    let trail = trail.into_inner().unwrap();
    for w in trail.windows(2) {
        let (before, after) = (&w[0], &w[1]);
        let step = after.1 as i64 - before.1 as i64;
        if before.2 {
            assert_eq!(step, 1, "a call enters one deeper: {before:?} -> {after:?}");
        } else {
            assert!(step == 0 || step == -1, "{before:?} -> {after:?}");
        }
    }
    let depth_of = |name: &str| -> BTreeSet<usize> {
        trail.iter().filter(|t| t.0 == name).map(|t| t.1).collect()
    };
    assert_eq!(depth_of("m.main"), BTreeSet::from([1]));
    assert_eq!(depth_of("m.twice"), BTreeSet::from([2]));
    assert_eq!(depth_of("m.add"), BTreeSet::from([3]));
    assert_eq!(depth_of("m.fact"), (2..=6).collect());
    assert_eq!(trail.last().unwrap().1, 1, "the run ends in main");
}

#[test]
fn a_stop_line_is_the_line_the_program_records_for_its_pc() {
    let program = compile(LOOP);
    let lines = Mutex::new(BTreeMap::new());
    let dbg = tap(|stop| {
        let expected = stop.program().line_of(stop.function_id(), stop.pc());
        assert_eq!(stop.line(), expected);
        assert_eq!(stop.frames().next().unwrap().line(), expected);
        *lines.lock().unwrap().entry(stop.line()).or_insert(0u32) += 1;
        Resume::Go
    });
    Vm::new(&program)
        .with_debugger(&dbg)
        .run_entry("m", "main", vec![])
        .unwrap();
    // The two `var`s once, the loop's body a hundred times, its test once
    // more than that (tested before the body as well as after it, so no
    // jump leads into the loop), the result once.
    assert_eq!(
        lines.into_inner().unwrap(),
        BTreeMap::from([
            (Some(2), 1),
            (Some(3), 1),
            (Some(4), 101),
            (Some(5), 100),
            (Some(6), 100),
            (Some(8), 1)
        ])
    );
}

/// Checks the heap counters at every stop; counts the stops at which
/// they went back, and keeps the last pair.
struct HeapWatch {
    went_back: AtomicU64,
    last: Mutex<(u64, u64)>,
}

impl Debugger for HeapWatch {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        let now = (stop.allocated_words(), stop.allocations());
        let mut last = self.last.lock().unwrap();
        if now.0 < last.0 || now.1 < last.1 {
            self.went_back.fetch_add(1, Ordering::Relaxed);
        }
        *last = now;
        Resume::Go
    }
}

#[test]
fn the_heap_counters_are_cumulative_and_never_decrease_across_collections() {
    let program = compile(GARBAGE);
    for limits in [
        Limits::default(),
        // A heap far smaller than what the run allocates: it completes only
        // if the collector runs again and again.
        Limits {
            max_heap_words: Some(5_000),
            ..Limits::default()
        },
    ] {
        let watch = HeapWatch {
            went_back: AtomicU64::new(0),
            last: Mutex::new((0, 0)),
        };
        let mut vm = Vm::new(&program).with_debugger(&watch).with_limits(limits);
        assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(60_000)));
        assert_eq!(watch.went_back.load(Ordering::Relaxed), 0);
        let (words, objects) = *watch.last.lock().unwrap();
        // Three strings and a list (object + backing array) each iteration.
        assert!(objects >= 20_000 * 5, "{objects}");
        assert!(words > objects && words > 5_000 * 10, "{words}");
    }
}

#[test]
fn the_heap_counters_never_decrease_under_gc_stress() {
    let program = compile(GARBAGE.replace("20000", "300").as_str());
    let watch = HeapWatch {
        went_back: AtomicU64::new(0),
        last: Mutex::new((0, 0)),
    };
    let mut vm = Vm::new(&program).with_debugger(&watch).with_limits(Limits {
        gc_stress: true,
        ..Limits::default()
    });
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(900)));
    assert_eq!(watch.went_back.load(Ordering::Relaxed), 0);
    assert!(watch.last.lock().unwrap().1 >= 300 * 5);
}

#[test]
fn the_locals_of_a_loop_read_by_name_give_the_running_values() {
    let program = compile(LOOP);
    // At each `total = total + i` (the add on line 5), before it runs.
    let seen = Mutex::new(Vec::new());
    let dbg = tap(|stop| {
        if matches!(stop.instr(), Instr::AddInt { .. }) && stop.line() == Some(5) {
            let locals: BTreeMap<String, Value> =
                stop.frames().next().unwrap().locals().into_iter().collect();
            seen.lock().unwrap().push(locals);
        }
        Resume::Go
    });
    Vm::new(&program)
        .with_debugger(&dbg)
        .run_entry("m", "main", vec![])
        .unwrap();
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), 100);
    for (i, locals) in seen.iter().enumerate() {
        let i = i as i64;
        assert_eq!(locals.get("i"), Some(&Value::Int(i)), "{locals:?}");
        assert_eq!(
            locals.get("total"),
            Some(&Value::Int(i * (i - 1) / 2)),
            "{locals:?}"
        );
    }
}

#[test]
fn the_frame_stack_reads_innermost_first_with_each_callers_call_and_locals() {
    let program = compile(CALLS);
    type Seen = Vec<(String, String, Option<u32>, BTreeMap<String, Value>)>;
    let seen: Mutex<Option<Seen>> = Mutex::new(None);
    let dbg = tap(|stop| {
        let p = stop.program();
        if p.function_name(stop.function_id()) == "m.add"
            && matches!(stop.instr(), Instr::Return { .. })
        {
            let frames = stop
                .frames()
                .map(|f| {
                    (
                        p.function_name(f.function_id()).to_string(),
                        cove_ir::print::one(p, f.function_id(), f.pc()),
                        f.line(),
                        f.locals().into_iter().collect(),
                    )
                })
                .collect();
            *seen.lock().unwrap() = Some(frames);
        }
        Resume::Go
    });
    Vm::new(&program)
        .with_debugger(&dbg)
        .run_entry("m", "main", vec![])
        .unwrap();
    let frames = seen.into_inner().unwrap().expect("add returned");
    let names: Vec<&str> = frames.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["m.add", "m.twice", "m.main"]);
    // Every outer frame is waiting in a call, on the line of the call.
    assert!(frames[1].1.contains("call"), "{}", frames[1].1);
    assert!(frames[2].1.contains("call"), "{}", frames[2].1);
    assert_eq!(frames[1].2, Some(15));
    assert_eq!(frames[2].2, Some(20));
    // Each frame's own locals, typed.
    assert_eq!(frames[0].3.get("a"), Some(&Value::Int(3)));
    assert_eq!(frames[0].3.get("b"), Some(&Value::Int(3)));
    assert_eq!(frames[0].3.get("c"), Some(&Value::Int(6)));
    assert_eq!(frames[1].3.get("x"), Some(&Value::Int(3)));
    assert_eq!(frames[2].3.get("label"), Some(&Value::str("sum")));
    assert!(!frames[2].3.contains_key("b"), "b is not yet assigned");
}

#[test]
fn a_register_reads_raw_and_typed_and_a_register_past_the_frame_reads_zero() {
    let program = compile(
        "export fn main() -> Int {\n  let word = \"hello\"\n  let n = 41\n  let items = [1, 2, 3]\n  n + word.length() + items.length()\n}\n",
    );
    let main = program.find_function("m", "main").unwrap();
    let function = program.function(main);
    let local = |name: &str| {
        function
            .locals
            .iter()
            .find(|l| l.name == name)
            .unwrap_or_else(|| panic!("a local {name}"))
            .clone()
    };
    let (word, n, items) = (local("word"), local("n"), local("items"));
    let last_pc = function.code.len() as u32 - 1;
    let seen = Mutex::new(None);
    let dbg = tap(|stop| {
        if stop.pc() == last_pc {
            let f = stop.frames().next().unwrap();
            *seen.lock().unwrap() = Some((
                f.value(word.register.0),
                f.value(n.register.0),
                f.register(n.register.0),
                f.value(items.register.0),
                f.register(function.registers),
                f.register(u16::MAX),
            ));
        }
        Resume::Go
    });
    assert_eq!(
        Vm::new(&program)
            .with_debugger(&dbg)
            .run_entry("m", "main", vec![]),
        Ok(Value::Int(49))
    );
    let (w, nv, raw, list, past, far) = seen.into_inner().unwrap().expect("the last pc ran");
    assert_eq!(w, Value::str("hello"));
    assert_eq!(nv, Value::Int(41));
    assert_eq!(raw, 41);
    assert_eq!(
        list,
        Value::List(vec![Value::Int(1), Value::Int(2), Value::Int(3)])
    );
    assert_eq!(past, 0);
    assert_eq!(far, 0);
}

/// Halts at the `n`th stop (counting from 0), once.
fn halt_at(n: u64) -> Tap<impl Fn(&Stop<'_>) -> Resume + Sync> {
    let seen = AtomicU64::new(0);
    tap(move |_| {
        if seen.fetch_add(1, Ordering::Relaxed) == n {
            Resume::Halt
        } else {
            Resume::Go
        }
    })
}

#[test]
fn halt_ends_the_run_with_a_halted_error_located_at_the_stop() {
    let program = compile(CALLS);
    let target = Mutex::new(None);
    let dbg = tap(|stop| {
        if stop.program().function_name(stop.function_id()) == "m.add" {
            *target.lock().unwrap() = Some(stop.line());
            return Resume::Halt;
        }
        Resume::Go
    });
    let error = Vm::new(&program)
        .with_debugger(&dbg)
        .run_entry("m", "main", vec![])
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::Halted, "{error}");
    assert_eq!(error.message, "halted by the debugger");
    assert_eq!(error.kind.exit_code(), 128);
    let frames: Vec<(&str, Option<u32>)> = error
        .backtrace
        .iter()
        .map(|f| (f.function.as_str(), f.line))
        .collect();
    let halted_line = target.into_inner().unwrap().unwrap();
    assert_eq!(
        frames,
        [
            ("m.add", halted_line),
            ("m.twice", Some(15)),
            ("m.main", Some(20))
        ]
    );
}

#[test]
fn a_halt_does_not_run_the_instruction_it_stopped_before() {
    let program = compile("export fn main() {\n  println(\"one\")\n  println(\"two\")\n}\n");
    // Halt before the builtin call that prints "two".
    let printed = AtomicU64::new(0);
    let dbg = tap(|stop| {
        if matches!(stop.instr(), Instr::CallBuiltin { .. })
            && printed.fetch_add(1, Ordering::Relaxed) == 1
        {
            return Resume::Halt;
        }
        Resume::Go
    });
    let out = Captured::default();
    let error = Vm::new(&program)
        .with_debugger(&dbg)
        .with_output(Box::new(out.clone()))
        .run_entry("m", "main", vec![])
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::Halted);
    assert_eq!(out.text(), "one\n");
}

#[test]
fn after_a_halt_at_stop_n_the_vm_counts_the_n_instructions_that_ran() {
    // Within the first stride, at a stride's edge and well past it.
    let program = compile(&LOOP.replace("100", "5000"));
    let stride = u64::from(SAFEPOINT_STRIDE);
    for n in [0, 1, 7, stride - 1, stride, stride + 1, 3 * stride + 5] {
        let dbg = halt_at(n);
        let mut vm = Vm::new(&program).with_debugger(&dbg);
        let error = vm.run_entry("m", "main", vec![]).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Halted);
        // The debugger saw n + 1 stops and halted the last before it ran.
        assert_eq!(vm.instructions(), n, "halted at stop {n}");
    }
}

#[test]
fn a_vm_runs_again_normally_after_a_halted_run() {
    let program = compile(LOOP);
    let armed = AtomicBool::new(true);
    let stops = AtomicU64::new(0);
    let dbg = tap(|stop| {
        stops.fetch_add(1, Ordering::Relaxed);
        if stop.pc() == 5 && armed.swap(false, Ordering::Relaxed) {
            Resume::Halt
        } else {
            Resume::Go
        }
    });
    let mut vm = Vm::new(&program).with_debugger(&dbg);
    assert_eq!(
        vm.run_entry("m", "main", vec![]).unwrap_err().kind,
        ErrorKind::Halted
    );
    let after_halt = vm.instructions();
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(4950)));
    let mut plain = Vm::new(&program);
    plain.run_entry("m", "main", vec![]).unwrap();
    assert_eq!(vm.instructions() - after_halt, plain.instructions());
    // Every stop ran but the halted one.
    assert_eq!(stops.load(Ordering::Relaxed), vm.instructions() + 1);
}

#[test]
fn fuel_and_a_debugger_agree_on_the_instructions_a_starved_run_executed() {
    let program = compile(&LOOP.replace("100", "5000"));
    for fuel in [1, 10, 1024, 1025, 5000] {
        let stops = AtomicU64::new(0);
        let dbg = tap(|_| {
            stops.fetch_add(1, Ordering::Relaxed);
            Resume::Go
        });
        let mut vm = Vm::new(&program).with_debugger(&dbg).with_limits(Limits {
            fuel: Some(fuel),
            ..Limits::default()
        });
        let error = vm.run_entry("m", "main", vec![]).unwrap_err();
        assert_eq!(error.kind, ErrorKind::OutOfFuel);
        assert_eq!(vm.instructions(), fuel);
        assert_eq!(stops.load(Ordering::Relaxed), fuel);
    }
}

#[test]
fn a_debugger_that_panics_ends_the_run_with_an_internal_error_not_a_host_panic() {
    let program = compile(LOOP);
    let dbg = tap(|stop| {
        if stop.pc() == 3 {
            panic!("the debugger failed");
        }
        Resume::Go
    });
    let outcome = Vm::new(&program)
        .with_debugger(&dbg)
        .run_entry("m", "main", vec![]);
    let error = outcome.unwrap_err();
    assert_eq!(error.kind, ErrorKind::Internal);
    assert_eq!(error.message, "the debugger panicked: the debugger failed");
    // It is located where the debugger stopped: the loop in main.
    assert_eq!(error.backtrace[0].function, "m.main", "{error}");
}

#[test]
fn after_a_debugger_panics_at_stop_n_the_vm_counts_the_n_instructions_that_ran() {
    let program = compile(&LOOP.replace("100", "5000"));
    for n in [0, 1, 2000, u64::from(SAFEPOINT_STRIDE) * 3] {
        let stops = AtomicU64::new(0);
        let dbg = tap(|_| {
            if stops.fetch_add(1, Ordering::Relaxed) == n {
                panic!("stop {n}");
            }
            Resume::Go
        });
        let mut vm = Vm::new(&program).with_debugger(&dbg);
        let error = vm.run_entry("m", "main", vec![]).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Internal, "{error}");
        // The debugger saw n + 1 stops and panicked in the last, before its
        // instruction ran.
        assert_eq!(stops.load(Ordering::Relaxed), n + 1);
        assert_eq!(vm.instructions(), n, "panicked at stop {n}");
    }
}

const SPAWNS: &str = "fn work(n: Int) -> Int {\n  var parts = List[String]()\n  for i in 0..n {\n    parts.push(\"{i}\")\n  }\n  parts.length()\n}\n\nexport fn main() -> Int {\n  let a = spawn work(300)\n  let b = spawn work(200)\n  a.join() + b.join()\n}\n";

/// Stops per task, and the (task, function, depth) of each task's first stop.
#[derive(Default)]
struct PerTask {
    follow: bool,
    stops: Mutex<BTreeMap<u32, u64>>,
    first: Mutex<BTreeMap<u32, (String, usize, u32)>>,
    halt_task: Option<u32>,
}

impl Debugger for PerTask {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        *self.stops.lock().unwrap().entry(stop.task()).or_default() += 1;
        self.first.lock().unwrap().entry(stop.task()).or_insert((
            stop.program().function_name(stop.function_id()).to_string(),
            stop.depth(),
            stop.pc(),
        ));
        if self.halt_task == Some(stop.task()) {
            return Resume::Halt;
        }
        Resume::Go
    }

    fn follows_tasks(&self) -> bool {
        self.follow
    }
}

#[test]
fn a_debugger_not_following_tasks_counts_only_task_zero_which_is_the_vm_count() {
    let program = compile(SPAWNS);
    let dbg = PerTask::default();
    let mut vm = Vm::new(&program).with_debugger(&dbg);
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(500)));
    let stops = dbg.stops.lock().unwrap().clone();
    assert_eq!(stops.keys().copied().collect::<Vec<_>>(), [0]);
    assert_eq!(stops[&0], vm.instructions());
}

#[test]
fn a_debugger_following_tasks_sees_each_task_start_in_its_function_at_depth_one() {
    let program = compile(SPAWNS);
    let dbg = PerTask {
        follow: true,
        ..PerTask::default()
    };
    let mut vm = Vm::new(&program).with_debugger(&dbg);
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(500)));
    let stops = dbg.stops.lock().unwrap().clone();
    assert_eq!(stops.keys().copied().collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(stops[&0], vm.instructions(), "instructions() is task 0's");
    assert!(
        stops[&1] > stops[&2],
        "work(300) runs longer than work(200)"
    );
    let first = dbg.first.lock().unwrap().clone();
    assert_eq!(first[&0], ("m.main".to_string(), 1, 0));
    assert_eq!(first[&1], ("m.work".to_string(), 1, 0));
    assert_eq!(first[&2], ("m.work".to_string(), 1, 0));
}

#[test]
fn a_halt_in_a_followed_task_ends_the_whole_run_halted() {
    let program = compile(SPAWNS);
    let dbg = PerTask {
        follow: true,
        halt_task: Some(2),
        ..PerTask::default()
    };
    let mut vm = Vm::new(&program).with_debugger(&dbg);
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Halted, "{error}");
    assert_eq!(dbg.stops.lock().unwrap()[&2], 1);
    // And the Vm runs again: the halt was one run's, not the Vm's.
    let quiet = PerTask::default();
    let mut again = Vm::new(&program).with_debugger(&quiet);
    assert_eq!(again.run_entry("m", "main", vec![]), Ok(Value::Int(500)));
}

/// Reads everything a stop offers for every frame, at each of the first
/// `READ_STOPS` stops of every task: a debugger that shows the whole stack
/// each step must never make the run fail. (Only the first stops: a typed
/// read deep-copies the value, and a local holding a list of large strings
/// costs its whole size at every stop.)
struct ReadsEverything {
    reads: AtomicU64,
}

const READ_STOPS: u64 = 1500;

impl Debugger for ReadsEverything {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        if self.reads.fetch_add(1, Ordering::Relaxed) >= READ_STOPS {
            return Resume::Go;
        }
        let p = stop.program();
        let _ = (stop.line(), stop.allocated_words(), stop.allocations());
        let _ = cove_ir::print::one(p, stop.function_id(), stop.pc());
        for frame in stop.frames() {
            let registers = p.function(frame.function_id()).registers;
            for r in 0..registers {
                let _ = frame.register(r);
                let _ = frame.value(r);
            }
            let _ = frame.locals();
            let _ = frame.line();
        }
        Resume::Go
    }

    fn follows_tasks(&self) -> bool {
        true
    }
}

#[test]
fn reading_every_frame_register_and_local_at_every_stop_never_fails_a_run() {
    let mut failures = Vec::new();
    for path in support::programs::single_module_programs()
        .into_iter()
        .map(|p| p.entry)
    {
        let source = std::fs::read_to_string(&path).unwrap();
        let Ok(program) = cove_compiler::compile_module("m", &source) else {
            continue;
        };
        // Programs written to fill a bounded heap hold locals of hundreds
        // of megabytes, which each typed read copies whole.
        if program.find_function("m", "main").is_none() || source.contains("// heap:") {
            continue;
        }
        let dbg = ReadsEverything {
            reads: AtomicU64::new(0),
        };
        let mut vm = Vm::new(&program)
            .with_debugger(&dbg)
            .with_output(Box::new(std::io::sink()))
            .with_error_output(Box::new(std::io::sink()))
            .with_limits(Limits {
                fuel: Some(20_000),
                ..Limits::default()
            });
        if let Err(e) = vm.run_entry("m", "main", vec![])
            && e.kind == ErrorKind::Internal
        {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert_eq!(failures, Vec::<String>::new());
}

/// A function with a local of every kind of type, and a loop variable.
const TYPED: &str = "enum Shape {\n  Circle(Float),\n  Dot,\n}\n\nstruct P {\n  x: Int,\n  y: Int,\n}\n\nexport fn entry(n: Int, s: String) -> Int {\n  let f = 2.5\n  let b = true\n  let o: Option[Int] = Some(3)\n  let none: Option[String] = None\n  let m = Map[String, Int]()\n  m.set(\"k\", 4)\n  let sh = Shape.Circle(1.5)\n  let p = P { x: 1, y: 2 }\n  var seen = 0\n  for item in [10, 20] {\n    seen = seen + item\n  }\n  seen + n + s.length()\n}\n";

#[test]
fn the_locals_of_every_type_read_as_host_values_of_that_type() {
    let program = compile(TYPED);
    let at_return = Mutex::new(None);
    let items = Mutex::new(Vec::new());
    let params_at_zero = Mutex::new(None);
    let dbg = tap(|stop| {
        let frame = stop.frames().next().unwrap();
        let locals: BTreeMap<String, Value> = frame.locals().into_iter().collect();
        if stop.pc() == 0 {
            *params_at_zero.lock().unwrap() = Some(locals.clone());
        }
        if stop.line() == Some(22) {
            items.lock().unwrap().push(locals.get("item").cloned());
        }
        // The return, whichever form it takes (here `return.add.int`,
        // which returns the sum it makes).
        if stop.instr().opcode().stretch_end() == cove_ir::op::StretchEnd::Return {
            *at_return.lock().unwrap() = Some(locals);
        }
        Resume::Go
    });
    let mut vm = Vm::new(&program).with_debugger(&dbg);
    assert_eq!(
        vm.run_entry("m", "entry", vec![Value::Int(5), Value::str("abc")]),
        Ok(Value::Int(38))
    );
    let at_zero = params_at_zero.into_inner().unwrap().unwrap();
    assert_eq!(
        at_zero,
        BTreeMap::from([
            ("n".to_string(), Value::Int(5)),
            ("s".to_string(), Value::str("abc"))
        ])
    );
    let items = items.into_inner().unwrap();
    assert!(items.contains(&Some(Value::Int(10))), "{items:?}");
    assert!(items.contains(&Some(Value::Int(20))), "{items:?}");
    let l = at_return.into_inner().unwrap().unwrap();
    assert_eq!(l["f"], Value::Float(2.5));
    assert_eq!(l["b"], Value::Bool(true));
    assert_eq!(l["o"], Value::Option(Some(Box::new(Value::Int(3)))));
    assert_eq!(l["none"], Value::Option(None));
    assert_eq!(l["m"], Value::Map(vec![(Value::str("k"), Value::Int(4))]));
    assert_eq!(
        l["sh"],
        Value::Variant {
            enum_name: "Shape".to_string(),
            variant: "Circle".to_string(),
            fields: vec![Value::Float(1.5)],
        }
    );
    assert_eq!(
        l["p"],
        Value::Struct {
            name: "P".to_string(),
            fields: vec![
                ("x".to_string(), Value::Int(1)),
                ("y".to_string(), Value::Int(2))
            ],
        }
    );
    assert_eq!(l["seen"], Value::Int(30));
    assert!(!l.contains_key("item"), "the loop variable is out of scope");
}

/// A stop's line and its innermost frame's locals, in table order (a name
/// may repeat if the table is wrong).
type LocalsAt = (Option<u32>, Vec<(String, Value)>);

/// Every stop of `main` in `source`.
fn locals_at_every_stop(source: &str) -> Vec<LocalsAt> {
    let program = compile(source);
    let seen = Mutex::new(Vec::new());
    let dbg = tap(|stop| {
        let locals = stop.frames().next().unwrap().locals();
        seen.lock().unwrap().push((stop.line(), locals));
        Resume::Go
    });
    Vm::new(&program)
        .with_debugger(&dbg)
        .with_output(Box::new(std::io::sink()))
        .run_entry("m", "main", vec![])
        .unwrap();
    seen.into_inner().unwrap()
}

/// The values of `name` in `locals`, however many entries carry it.
fn all_named(locals: &[(String, Value)], name: &str) -> Vec<Value> {
    locals
        .iter()
        .filter(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .collect()
}

#[test]
fn a_shadowing_let_ends_the_shadowed_locals_live_range() {
    // The initializer of the second `x` reads the first: the first is the
    // one shown while it runs, the second from its store on.
    let stops = locals_at_every_stop(
        "export fn main() -> Int {\n  let x = 1\n  let x = x + 1\n  println(\"{x}\")\n  x\n}\n",
    );
    let mut lines = BTreeSet::new();
    for (line, locals) in &stops {
        let x = all_named(locals, "x");
        match line {
            Some(2) => assert!(x.is_empty(), "{locals:?}"),
            Some(3) => assert_eq!(x, [Value::Int(1)], "{locals:?}"),
            Some(4 | 5) => assert_eq!(x, [Value::Int(2)], "{locals:?}"),
            _ => panic!("a stop on line {line:?}"),
        }
        lines.insert(*line);
    }
    assert_eq!(lines, BTreeSet::from([Some(2), Some(3), Some(4), Some(5)]));
}

#[test]
fn an_inner_blocks_let_hides_the_outer_local_only_until_the_block_ends() {
    // A parameter hidden by a `let`, an outer `x` hidden inside an `if`
    // (twice: its hider is itself hidden), by a loop's variable and by a
    // `match` binding in one arm: at every stop the debugger shows at most
    // one `x`, the one the source means there.
    let source = "fn f(x: Int) -> Int {\n  let x = x * 2\n  x\n}\n\nexport fn main() -> Int {\n  let x = f(1)\n  if x > 0 {\n    let x = x * 10\n    let x = x + 1\n    println(\"{x}\")\n  }\n  println(\"{x}\")\n  for x in [7, 8] {\n    println(\"{x}\")\n  }\n  match Some(5) {\n    Some(x) => println(\"{x}\"),\n    None => println(\"{x}\"),\n  }\n  x\n}\n";
    // Per line, every value `x` showed at a stop on it.
    let mut by_line: BTreeMap<u32, BTreeSet<i64>> = BTreeMap::new();
    for (line, locals) in locals_at_every_stop(source) {
        let x = all_named(&locals, "x");
        assert!(x.len() <= 1, "line {line:?}: {locals:?}");
        let values = by_line.entry(line.unwrap()).or_default();
        if let [Value::Int(v)] = x[..] {
            values.insert(v);
        }
    }
    let expected = BTreeMap::from([
        // In `f`: the parameter while the `let` that hides it computes,
        // then the `let`.
        (2, BTreeSet::from([1])),
        (3, BTreeSet::from([2])),
        // Main's `x` does not exist until `f` has returned.
        (7, BTreeSet::new()),
        (8, BTreeSet::from([2])),
        (9, BTreeSet::from([2])),
        (10, BTreeSet::from([20])),
        (11, BTreeSet::from([21])),
        // After the `if`, the outer `x` again.
        (13, BTreeSet::from([2])),
        // The loop's line: its setup (the outer `x`) and its step (the
        // loop's own).
        (14, BTreeSet::from([2, 7, 8])),
        (15, BTreeSet::from([7, 8])),
        // The arm's pattern tests run before it binds its `x`.
        (17, BTreeSet::from([2])),
        (18, BTreeSet::from([2, 5])),
        (21, BTreeSet::from([2])),
    ]);
    assert_eq!(by_line, expected);
}
