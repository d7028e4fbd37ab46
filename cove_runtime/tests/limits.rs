//! The bounds of a run, proved on programs built by hand from `cove_ir`, so
//! that they hold whatever the compiler emits.

use std::sync::atomic::{AtomicU64, Ordering};

use cove_ir::builtins::Builtin;
use cove_ir::op::{Instr, Reg};
use cove_ir::program::{Function, FunctionId, Module, Program};
use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::{ErrorKind, Limits, Value, Vm};

fn function(name: &str, params: usize, refs: &[bool], code: Vec<Instr>) -> Function {
    let mut f = Function::new("m", name);
    f.exported = true;
    f.params = vec![Program::INT; params];
    f.result = Program::INT;
    f.registers = refs.len() as u16;
    f.refs = refs.to_vec();
    f.lines = (1..=code.len() as u32).collect();
    f.code = code;
    f
}

fn program(functions: Vec<Function>) -> Program {
    let mut p = Program::new();
    p.modules.push(Module {
        name: "m".into(),
        path: "m.cove".into(),
        source: String::new(),
    });
    for f in functions {
        p.add_function(f);
    }
    p
}

/// `fib(n)`, recursively, in function 0.
fn fib() -> Program {
    let r = Reg;
    program(vec![function(
        "fib",
        1,
        &[false; 3],
        vec![
            Instr::JumpGeIntImm {
                a: r(0),
                value: 2,
                target: 2,
            },
            Instr::Return { src: r(0) },
            Instr::AddIntImm {
                dst: r(1),
                a: r(0),
                value: -1,
            },
            Instr::Call {
                dst: r(1),
                func: FunctionId(0),
                base: r(1),
                count: 1,
            },
            Instr::AddIntImm {
                dst: r(2),
                a: r(0),
                value: -2,
            },
            Instr::Call {
                dst: r(2),
                func: FunctionId(0),
                base: r(2),
                count: 1,
            },
            Instr::AddInt {
                dst: r(1),
                a: r(1),
                b: r(2),
            },
            Instr::Return { src: r(1) },
        ],
    )])
}

/// A loop that never ends.
fn endless() -> Program {
    program(vec![function(
        "main",
        0,
        &[false],
        vec![Instr::Jump { target: 0 }],
    )])
}

/// Calls itself forever.
fn runaway() -> Program {
    let r = Reg;
    program(vec![function(
        "main",
        0,
        &[false],
        vec![
            Instr::Call {
                dst: r(0),
                func: FunctionId(0),
                base: r(0),
                count: 0,
            },
            Instr::Return { src: r(0) },
        ],
    )])
}

/// Pushes onto one list forever.
fn hoarder() -> Program {
    let r = Reg;
    let mut main = function(
        "main",
        0,
        &[true, false, false],
        vec![
            Instr::NewList {
                dst: r(0),
                ty: Program::INT,
                base: r(0),
                count: 0,
            },
            Instr::LoadInt {
                dst: r(1),
                value: 7,
            },
            Instr::CallBuiltin {
                dst: r(2),
                builtin: Builtin::ListPush,
                base: r(0),
                count: 2,
            },
            Instr::Jump { target: 2 },
        ],
    );
    main.result = Program::UNIT;
    program(vec![main])
}

#[derive(Default)]
struct Counter(AtomicU64);

impl Debugger for Counter {
    fn at(&self, _stop: &Stop<'_>) -> Resume {
        self.0.fetch_add(1, Ordering::Relaxed);
        Resume::Go
    }
}

#[test]
fn a_hand_built_recursive_fib_answers() {
    let p = fib();
    let mut vm = Vm::new(&p);
    assert_eq!(
        vm.run_entry("m", "fib", vec![Value::Int(20)]),
        Ok(Value::Int(6765))
    );
}

#[test]
fn vm_instructions_equals_the_debuggers_stop_count() {
    let p = fib();
    let counter = Counter::default();
    let mut vm = Vm::new(&p).with_debugger(&counter);
    vm.run_entry("m", "fib", vec![Value::Int(15)])
        .expect("it answers");
    assert_eq!(vm.instructions(), counter.0.load(Ordering::Relaxed));
    assert!(vm.instructions() > 2 * 1024, "more than two strides ran");
}

#[test]
fn the_unwatched_and_watched_runs_give_the_same_result_and_count() {
    let p = fib();
    let mut plain = Vm::new(&p);
    let counter = Counter::default();
    let mut watched = Vm::new(&p).with_debugger(&counter);
    let a = plain.run_entry("m", "fib", vec![Value::Int(18)]);
    let b = watched.run_entry("m", "fib", vec![Value::Int(18)]);
    assert_eq!(a, b);
    assert_eq!(plain.instructions(), watched.instructions());
}

#[test]
fn fuel_exhaustion_ends_an_endless_loop() {
    let p = endless();
    let mut vm = Vm::new(&p).with_limits(Limits {
        fuel: Some(10_000),
        ..Limits::default()
    });
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::OutOfFuel);
    assert_eq!(vm.instructions(), 10_000, "fuel is exact");
    assert!(
        error.to_string().contains("at m.main (m.cove:1)"),
        "{error}"
    );
}

#[test]
fn a_heap_limit_ends_a_hoarding_program() {
    let p = hoarder();
    let mut vm = Vm::new(&p).with_limits(Limits {
        max_heap_words: Some(100_000),
        ..Limits::default()
    });
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::HeapLimit, "{error}");
}

#[test]
fn an_interrupt_from_another_thread_ends_a_run() {
    let p = endless();
    let mut vm = Vm::new(&p);
    let handle = vm.interrupt_handle();
    let interrupter = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(20));
        handle.interrupt();
    });
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    interrupter.join().expect("the interrupter ran");
    assert_eq!(error.kind, ErrorKind::Interrupted);
    assert!(
        !vm.interrupt_handle().is_interrupted(),
        "the interrupt is spent"
    );
}

#[test]
fn runaway_recursion_ends_in_a_call_depth_error_not_a_crash() {
    let p = runaway();
    let mut vm = Vm::new(&p).with_limits(Limits {
        max_call_depth: 5_000,
        ..Limits::default()
    });
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::CallDepth);
    assert_eq!(error.backtrace.len(), 5_000);
}

#[test]
fn a_debugger_that_halts_ends_the_run() {
    struct Halter;
    impl Debugger for Halter {
        fn at(&self, stop: &Stop<'_>) -> Resume {
            if stop.depth() > 3 {
                Resume::Halt
            } else {
                Resume::Go
            }
        }
    }
    let p = fib();
    let mut vm = Vm::new(&p).with_debugger(&Halter);
    let error = vm.run_entry("m", "fib", vec![Value::Int(10)]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Halted);
    assert_eq!(error.backtrace.len(), 4);
}

#[test]
fn a_program_that_fails_the_check_is_an_error_not_a_panic() {
    let r = Reg;
    let p = program(vec![function(
        "main",
        0,
        &[false],
        vec![Instr::Return { src: r(9) }],
    )]);
    let mut vm = Vm::new(&p);
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Invalid);
}

#[test]
fn an_entry_the_program_lacks_is_an_error() {
    let p = fib();
    let mut vm = Vm::new(&p);
    assert_eq!(
        vm.run_entry("m", "nope", vec![]).unwrap_err().kind,
        ErrorKind::NoSuchEntry
    );
    assert_eq!(
        vm.run_entry("m", "fib", vec![Value::str("x")])
            .unwrap_err()
            .kind,
        ErrorKind::NoSuchEntry
    );
}

#[test]
fn out_of_fuel_in_a_loop_names_a_line_of_the_loop_whatever_the_fuel() {
    let program = cove_compiler::compile_module(
        "m",
        "fn main() {\n  var i = 0\n  println(\"start\")\n  while true {\n    i += 1\n  }\n}\n",
    )
    .expect("it compiles");
    for fuel in 1000..1010 {
        let mut vm = Vm::new(&program)
            .with_output(Box::new(std::io::sink()))
            .with_limits(Limits {
                fuel: Some(fuel),
                ..Limits::default()
            });
        let error = vm.run_entry("m", "main", vec![]).unwrap_err();
        assert_eq!(error.kind, ErrorKind::OutOfFuel);
        let line = error.backtrace[0].line;
        assert!(
            line == Some(4) || line == Some(5),
            "fuel {fuel}: the error names line {line:?}"
        );
    }
}

#[test]
fn a_call_depth_bound_of_zero_leaves_no_room_for_the_entry() {
    let program = cove_compiler::compile_module("m", "export fn f() -> Int {\n  1\n}\n")
        .expect("it compiles");
    let bound = |max_call_depth| {
        Vm::new(&program)
            .with_limits(Limits {
                max_call_depth,
                ..Limits::default()
            })
            .run_entry("m", "f", vec![])
    };
    assert_eq!(bound(0).map_err(|e| e.kind), Err(ErrorKind::CallDepth));
    assert_eq!(bound(1), Ok(Value::Int(1)));
}

#[test]
fn a_call_depth_bound_of_n_allows_exactly_n_frames_whatever_n_is() {
    // The frame stack grows in steps, and the depth is checked only when a
    // step runs out: every bound, on either side of a step, must still be
    // exact. `down(k)` needs k + 1 frames.
    let source = "export fn down(n: Int) -> Int {\n  if n == 0 { 0 } else { 1 + down(n - 1) }\n}\n";
    let program = cove_compiler::compile_module("m", source).expect("it compiles");
    for bound in 1..=140usize {
        let run = |k: usize| {
            Vm::new(&program)
                .with_limits(Limits {
                    max_call_depth: bound,
                    ..Limits::default()
                })
                .run_entry("m", "down", vec![Value::Int(k as i64)])
        };
        assert_eq!(
            run(bound - 1),
            Ok(Value::Int(bound as i64 - 1)),
            "bound {bound}: {bound} frames fit"
        );
        assert_eq!(
            run(bound).map_err(|e| e.kind),
            Err(ErrorKind::CallDepth),
            "bound {bound}: {} frames do not",
            bound + 1
        );
    }
}
