//! What the workspace's cross-crate tests share: a compiled program run on
//! the real VM, `cove_runtime::Vm`, in five ways that must agree, and the
//! transcript of what it printed and how it ended.
//!
//! The compiler's behavioural tests used to run on an interpreter of their
//! own, a second reading of the instruction set that drifted from the VM's
//! (it masked shift counts where the VM raises). There is one semantics now,
//! the VM's, and these tests check it from outside both crates: a test crate
//! may depend on the compiler and the runtime alike, where the compiler may
//! not depend on the runtime without a cycle through the runtime's own
//! tests. What a run is compared against must be independent of the run:
//! the expected text written in the test, a value computed in Rust, and the
//! same program run again under conditions that must not change its
//! outcome, which is what [`outcome`] does.
//!
//! Each call costs five runs of the program: plainly, with a collection at
//! every allocation (GC stress), under a debugger that stops before every
//! instruction and does nothing, under `cove_profile::Profiler` timed by the
//! processor's counter (stopped before every instruction too, on the loop
//! compiled for the profiler's own type), and under `Profiler::counting`,
//! which stops only where a stretch of straight-line code starts. That is
//! cheap for the small programs the tests write, and catches what one run
//! cannot: a missing root, or a path of the dispatch loop compiled for one
//! debugger or stop policy that computes differently from the others.

use std::io::Write;
use std::sync::{Arc, Mutex};

use cove_ir::program::Program;
use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::{Limits, Vm};

/// A writer the test can read back after the run; its clones share one
/// buffer, so the test keeps one and gives the `Vm` another.
#[derive(Clone, Default, Debug)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .expect("the capture lock")
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    /// Everything written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("the capture lock")).into_owned()
    }
}

/// A debugger that stops before every instruction of every task and lets
/// each run: it changes nothing a program computes, so a run under it must
/// print and end as a run without it does.
#[derive(Debug, Default)]
pub struct Passive;

impl Debugger for Passive {
    fn at(&self, _stop: &Stop<'_>) -> Resume {
        Resume::Go
    }

    fn follows_tasks(&self) -> bool {
        true
    }
}

/// The ways [`outcome`] runs a program, each named for its failure message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// As it is.
    Plain,
    /// With a collection after every allocating instruction.
    GcStress,
    /// Under [`Passive`], stopped before every instruction.
    Watched,
    /// Under `cove_profile::Profiler` timed by the processor's counter,
    /// stopped before every instruction.
    Profiled,
    /// Under `cove_profile::Profiler::counting`, stopped only where a
    /// stretch starts.
    Counted,
}

/// Every [`Way`], in the order [`outcome`] runs them.
pub const WAYS: [Way; 5] = [
    Way::Plain,
    Way::GcStress,
    Way::Watched,
    Way::Profiled,
    Way::Counted,
];

/// Runs the entry module's `main` (the last module of `program`) one way:
/// its standard output, then `=> value` if it returned or `error: message`
/// (the `RunError`'s message, without its backtrace) if it failed, then,
/// only if the program wrote to standard error, `\n--- stderr\n` and what
/// it wrote there.
pub fn run_one_way(program: &Program, way: Way) -> String {
    let module = program
        .modules
        .last()
        .map(|m| m.name.clone())
        .expect("a program has an entry module");
    let out = Captured::default();
    let err = Captured::default();
    let profiler = cove_profile::Profiler::with_counter_clock();
    let counting = cove_profile::Profiler::counting();
    let vm = Vm::new(program)
        .with_output(Box::new(out.clone()))
        .with_error_output(Box::new(err.clone()))
        .with_limits(Limits {
            gc_stress: way == Way::GcStress,
            ..Limits::default()
        });
    match way {
        Way::Plain | Way::GcStress => finish(vm, &module, (&out, &err)),
        Way::Watched => finish(vm.with_debugger(&Passive), &module, (&out, &err)),
        Way::Profiled => finish(vm.with_debugger(&profiler), &module, (&out, &err)),
        Way::Counted => finish(vm.with_debugger(&counting), &module, (&out, &err)),
    }
}

/// Runs `module.main` on `vm` and writes the transcript [`run_one_way`]
/// returns.
fn finish<D: Debugger + ?Sized>(
    mut vm: Vm<'_, D>,
    module: &str,
    (out, err): (&Captured, &Captured),
) -> String {
    let ended = match vm.run_entry(module, "main", vec![]) {
        Ok(value) => format!("=> {value}"),
        Err(error) => format!("error: {}", error.message),
    };
    let mut transcript = format!("{}{ended}", out.text());
    let errors = err.text();
    if !errors.is_empty() {
        transcript.push_str("\n--- stderr\n");
        transcript.push_str(&errors);
    }
    transcript
}

/// Runs `program` every [`Way`] and returns the transcript they agree on;
/// panics, naming the way, if any run differs from the plain one.
pub fn outcome(program: &Program) -> String {
    let plain = run_one_way(program, Way::Plain);
    for way in &WAYS[1..] {
        let other = run_one_way(program, *way);
        assert_eq!(
            other, plain,
            "the program ran differently {way:?} than plainly"
        );
    }
    plain
}

/// Compiles `source` as the one module `m` and returns its [`outcome`];
/// panics with the diagnostics if it does not compile.
pub fn output(source: &str) -> String {
    match cove_compiler::compile_module("m", source) {
        Ok(program) => outcome(&program),
        Err(errors) => {
            let text = errors.to_string();
            panic!("did not compile:\n{}", &text[..text.len().min(2000)])
        }
    }
}
