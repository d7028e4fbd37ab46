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

use cove_runtime::vm::debug::{Debugger, Resume, Stop};

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
    let noop = Noop;
    // Made only when asked for: a profiler calibrates its clock when it is
    // made, which an unprofiled run must not pay for.
    #[cfg(feature = "profiler")]
    let profiler = (args.debugger == BenchDebugger::Profiler).then(cove_profile::Profiler::new);
    let debugger: Option<&dyn Debugger> = match args.debugger {
        BenchDebugger::Off => None,
        BenchDebugger::Noop => Some(&noop),
        #[cfg(feature = "profiler")]
        BenchDebugger::Profiler => profiler.as_ref().map(|p| p as &dyn Debugger),
    };
    let vm = machine(&program, &flags, args.program.args());
    let mut vm = match debugger {
        Some(debugger) => vm.with_debugger(debugger),
        None => vm,
    };
    let started = Instant::now();
    let result = call_main(&mut vm, &program);
    let nanos = started.elapsed().as_nanos();
    pipe::eprint(format_args!(
        "bench-run: nanos {nanos} instructions {}\n",
        vm.instructions()
    ));
    ending(&program, result)
}
