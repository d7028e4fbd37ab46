//! `cove bench-run`: the hidden runner `cargo xtask bench-overhead` times.
//!
//! A benchmark of the profiler's cost has to run the same program the same
//! way with nothing, a do-nothing debugger, or the profiler installed, and
//! time the run alone — not compiling, not starting the process. This
//! subcommand does exactly that and prints one line on stderr,
//! `bench-run: nanos N instructions M`, which the xtask reads; the
//! program's own output goes where it always goes. `--debugger off` is
//! also what the xtask runs under valgrind to count the native instructions
//! of an unprofiled run.

use std::time::Instant;

use cove_ir::program::Program;
use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::{RunError, Value, Vm};

use crate::cli::{BenchDebugger, BenchRunArgs, LimitArgs};
use crate::compile::compile_runnable;
use crate::pipe;
use crate::run::{call_main, ending, machine};
use crate::status::Status;

/// A debugger that is called at every instruction and does nothing: what
/// the watched dispatch loop costs by itself.
#[derive(Debug, Default)]
struct Noop;

impl Debugger for Noop {
    fn at(&self, _stop: &Stop<'_>) -> Resume {
        Resume::Go
    }
}

/// Runs `cove bench-run`.
pub fn bench_run(args: &BenchRunArgs) -> Status {
    let program = match compile_runnable(args.program.file()) {
        Ok(program) => program,
        Err(status) => return status,
    };
    let flags = LimitArgs {
        fuel: None,
        max_heap: None,
        max_depth: None,
        gc_stress: false,
    };
    let vm = machine(&program, &flags, args.program.args());
    // Each debugger is installed as its own type, as `cove profile` installs
    // the profiler, so the loop measured is the one a user's run gets.
    let (result, nanos, instructions) = match args.debugger {
        BenchDebugger::Off => timed(vm, &program),
        BenchDebugger::Noop => timed(vm.with_debugger(&Noop), &program),
        #[cfg(feature = "profiler")]
        BenchDebugger::Profiler => {
            // Made only when asked for: a profiler calibrates its clock when
            // it is made, which an unprofiled run must not pay for.
            let profiler = cove_profile::Profiler::new();
            timed(vm.with_debugger(&profiler), &program)
        }
        #[cfg(feature = "profiler")]
        BenchDebugger::Counting => {
            let profiler = cove_profile::Profiler::counting();
            timed(vm.with_debugger(&profiler), &program)
        }
        #[cfg(feature = "profiler")]
        BenchDebugger::Sampling => {
            let profiler = cove_profile::Profiler::sampling();
            timed(vm.with_debugger(&profiler), &program)
        }
    };
    crate::interrupt::run_ended();
    pipe::eprint(format_args!(
        "bench-run: nanos {nanos} instructions {instructions}\n"
    ));
    ending(&program, result)
}

/// Runs `main` on `vm` and times the run alone.
fn timed<D: Debugger + ?Sized>(
    mut vm: Vm<'_, D>,
    program: &Program,
) -> (Result<Value, RunError>, u128, u64) {
    let started = Instant::now();
    let result = call_main(&mut vm, program);
    let nanos = started.elapsed().as_nanos();
    (result, nanos, vm.instructions())
}
