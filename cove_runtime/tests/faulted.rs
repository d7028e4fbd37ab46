//! `Debugger::faulted`: a runtime error is shown to the debugger at the
//! faulting instruction, with every frame still there, before the run
//! returns it.

use std::sync::Mutex;

use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::{ErrorKind, RunError, Value, Vm};

fn compile(source: &str) -> cove_ir::program::Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

/// `average` divides by zero on line 3, called from `main` on line 7.
const FAILS: &str = "fn average(total: Int, count: Int) -> Int {\n  let half = total / 2\n  total / count\n}\n\nexport fn main() -> Int {\n  average(10, 0)\n}\n";

/// What one `faulted` call saw.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    frames: Vec<(String, Option<u32>)>,
    locals: Vec<(String, Value)>,
    message: String,
    task: u32,
}

/// Says go at every instruction, and keeps what each fault showed.
#[derive(Default)]
struct Recorder {
    faults: Mutex<Vec<Seen>>,
    follow: bool,
    halt_at: Option<u64>,
    seen: std::sync::atomic::AtomicU64,
}

impl Debugger for Recorder {
    fn at(&self, _stop: &Stop<'_>) -> Resume {
        let n = self.seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if self.halt_at == Some(n) {
            Resume::Halt
        } else {
            Resume::Go
        }
    }

    fn follows_tasks(&self) -> bool {
        self.follow
    }

    fn faulted(&self, stop: &Stop<'_>, error: &RunError) {
        let program = stop.program();
        let frames = stop
            .frames()
            .map(|f| (program.function_name(f.function_id()).to_string(), f.line()))
            .collect();
        let locals = stop.frames().next().map(|f| f.locals()).unwrap_or_default();
        self.faults.lock().unwrap().push(Seen {
            frames,
            locals,
            message: error.message.clone(),
            task: stop.task(),
        });
    }
}

#[test]
fn a_runtime_error_is_shown_at_the_faulting_frame_with_its_callers_and_locals() {
    let program = compile(FAILS);
    let recorder = Recorder::default();
    let mut vm = Vm::new(&program).with_debugger(&recorder);
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::DivisionByZero);
    let faults = recorder.faults.lock().unwrap().clone();
    assert_eq!(faults.len(), 1, "{faults:?}");
    let seen = &faults[0];
    assert_eq!(
        seen.frames,
        vec![
            ("m.average".to_string(), Some(3)),
            ("m.main".to_string(), Some(7))
        ]
    );
    assert_eq!(seen.message, "division by zero");
    assert_eq!(seen.task, 0);
    assert!(seen.locals.contains(&("count".to_string(), Value::Int(0))));
    assert!(seen.locals.contains(&("total".to_string(), Value::Int(10))));
    assert!(seen.locals.contains(&("half".to_string(), Value::Int(5))));
}

#[test]
fn the_faulting_stop_is_before_the_instruction_that_failed() {
    let program = compile(FAILS);
    /// Keeps the mnemonic-free opcode name of the faulting instruction.
    #[derive(Default)]
    struct Opcode(Mutex<Option<String>>);
    impl Debugger for Opcode {
        fn at(&self, _stop: &Stop<'_>) -> Resume {
            Resume::Go
        }
        fn faulted(&self, stop: &Stop<'_>, _error: &RunError) {
            *self.0.lock().unwrap() = Some(format!("{:?}", stop.instr().opcode()));
        }
    }
    let seen = Opcode::default();
    let mut vm = Vm::new(&program).with_debugger(&seen);
    assert!(vm.run_entry("m", "main", vec![]).is_err());
    let opcode = seen.0.lock().unwrap().clone().expect("faulted was called");
    assert!(opcode.contains("Div"), "{opcode}");
}

#[test]
fn a_run_that_ends_well_or_that_the_debugger_halted_is_not_a_fault() {
    let program = compile(FAILS.replace("average(10, 0)", "average(10, 5)").as_str());
    let recorder = Recorder::default();
    let mut vm = Vm::new(&program).with_debugger(&recorder);
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(2)));
    assert!(recorder.faults.lock().unwrap().is_empty());

    let halting = Recorder {
        halt_at: Some(3),
        ..Recorder::default()
    };
    let mut vm = Vm::new(&program).with_debugger(&halting);
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Halted);
    assert!(halting.faults.lock().unwrap().is_empty());
}

#[test]
fn a_fault_in_a_followed_task_is_reported_on_that_task() {
    let source = "fn work(n: Int) -> Int {\n  100 / n\n}\n\nexport fn main() -> Int {\n  let t = spawn work(0)\n  t.join()\n}\n";
    let program = compile(source);
    let recorder = Recorder {
        follow: true,
        ..Recorder::default()
    };
    let mut vm = Vm::new(&program).with_debugger(&recorder);
    assert!(vm.run_entry("m", "main", vec![]).is_err());
    let faults = recorder.faults.lock().unwrap().clone();
    let in_task: Vec<_> = faults.iter().filter(|s| s.task == 1).collect();
    assert_eq!(in_task.len(), 1, "{faults:?}");
    assert_eq!(in_task[0].frames, vec![("m.work".to_string(), Some(2))]);
}
