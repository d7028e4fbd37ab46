//! `cove bench-run`: the hidden runner `cargo xtask bench-overhead` times.
//!
//! A benchmark of the profiler's cost has to run the same program the same
//! way with nothing, a do-nothing debugger, or the profiler installed, and
//! time the run alone — not compiling, not starting the process. This
//! subcommand does exactly that and prints one line on stderr,
//! `bench-run: nanos N instructions M cpu C task T blocked B` (wall time,
//! the process's processor time, the main task's own processor time and
//! the time it spent blocked),
//! which the xtask reads; the program's own output goes where it always
//! goes, or nowhere with `--quiet`. `--debugger off` is also what the
//! xtask runs under valgrind to count the native instructions of an
//! unprofiled run, and what `cove profile` replays a run with to measure
//! its time unwatched (see `replay`), with the limits of the profiled run.

use std::time::Instant;

use cove_ir::program::Program;
use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::{RunError, Value, Vm};

use crate::cli::{BenchDebugger, BenchRunArgs};
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
    let mut vm =
        machine(&program, &args.limits, args.program.args()).with_file_writes(!args.no_writes);
    if args.quiet {
        vm = vm
            .with_output(Box::new(std::io::sink()))
            .with_error_output(Box::new(std::io::sink()));
    }
    // Each debugger is installed as its own type, as `cove profile` installs
    // the profiler, so the loop measured is the one a user's run gets.
    let (result, timing) = match args.debugger {
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
    #[cfg(feature = "profiler")]
    let ir = if args.ir_hash {
        format!(" ir {}", cove_profile::report::ir_hash(&program))
    } else {
        String::new()
    };
    #[cfg(not(feature = "profiler"))]
    let ir = "";
    let known =
        |figure: Option<u64>| figure.map_or_else(|| "unknown".to_string(), |c| c.to_string());
    pipe::eprint(format_args!(
        "bench-run: nanos {} instructions {} cpu {} task {} blocked {}{ir}\n",
        timing.nanos,
        timing.instructions,
        known(timing.cpu),
        known(timing.task_cpu),
        timing.blocked,
    ));
    ending(&program, result)
}

/// What `bench-run` reports of a run, each figure of the run alone.
struct Timing {
    /// The wall clock's nanoseconds.
    nanos: u128,
    /// The instructions the main task ran.
    instructions: u64,
    /// The process's processor time, where this build can read it: every
    /// task's.
    cpu: Option<u64>,
    /// The main task's own processor time ([`Vm::cpu_nanos`]), where the
    /// platform has a clock per thread.
    task_cpu: Option<u64>,
    /// The nanoseconds the main task spent blocked ([`Vm::blocked_nanos`]).
    /// With `task_cpu`, the measure of a run a profile of its main task
    /// describes: a run whose tasks work on two cores at once spends more
    /// processor time than it lasts.
    blocked: u64,
}

/// Runs `main` on `vm` and times the run alone.
fn timed<D: Debugger + ?Sized>(
    mut vm: Vm<'_, D>,
    program: &Program,
) -> (Result<Value, RunError>, Timing) {
    let cpu = cpu_nanos();
    let started = Instant::now();
    let result = call_main(&mut vm, program);
    let nanos = started.elapsed().as_nanos();
    let cpu = cpu.zip(cpu_nanos()).map(|(before, after)| after - before);
    let timing = Timing {
        nanos,
        instructions: vm.instructions(),
        cpu,
        task_cpu: vm.cpu_nanos(),
        blocked: vm.blocked_nanos(),
    };
    (result, timing)
}

/// The process's processor time so far, where this build can read it.
fn cpu_nanos() -> Option<u64> {
    #[cfg(feature = "profiler")]
    return cove_profile::process_cpu_nanos();
    #[cfg(not(feature = "profiler"))]
    None
}
