//! The virtual machine: [`Vm`], the embedder's handle on a program, and the
//! parts it is made of.
//!
//! Two of them are public, because an embedder uses them:
//! - [`debug`]: the debugger seam ([`Debugger`], [`Stop`](debug::Stop),
//!   [`Resume`](debug::Resume)), the only way into a run from outside;
//! - [`exec`]: the dispatch loop's documentation and
//!   [`SAFEPOINT_STRIDE`](exec::SAFEPOINT_STRIDE), which says how often a
//!   run looks at interrupts and limits.
//!
//! The rest is the crate's own: `machine` (a task's stack of frames and its
//! heap), `builtins` (the builtin library), `tasks` (what tasks share).
//! Nothing hands an embedder a machine or a heap, so neither is public: a
//! debugger sees both through a [`Stop`](debug::Stop).
//!
//! What makes the loop's unchecked accesses sound is not here: it is
//! [`cove_ir::verify::Verified`], the proof `cove_ir`'s verifier gives, and
//! a `Vm` runs only a program it holds that proof of.

mod builtins;
mod cpu_clock;
pub mod debug;
mod divide;
pub mod exec;
mod input;
pub(crate) mod machine;
#[cfg(feature = "sampled-profile")]
pub mod sampled;
pub(crate) mod tasks;

use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::thread::Scope;

use cove_ir::program::{FunctionId, Program};
use cove_ir::verify::Verified;
use parking_lot::Mutex;

use crate::error::{ErrorKind, RunError};
use crate::limits::{InterruptHandle, Limits, gc_stress_from_env};
use crate::value::Value;
use debug::{Debugger, Stops};
use exec::{Unwatched, Watched};
use machine::{Digest, Machine, Shared, at_entry, frame_at};
use tasks::Scheduler;

/// The native stack each task's thread gets. Cove calls never use it (they
/// are frames on the machine's own stack), nor does any walk over a value
/// (the deep copies, the text form, the collector keep stacks of their
/// own); it is reserved generously for what runs on the thread that is not
/// ours to bound, a debugger's `at` above all. Reserved, not committed: an
/// idle task costs the pages it touched.
pub(crate) const TASK_STACK: usize = 64 << 20;

/// The stack the run's first task takes when the host refuses it
/// [`TASK_STACK`]: a platform's usual main-thread stack.
const SMALL_TASK_STACK: usize = 8 << 20;

/// A program, ready to run, with what the embedder configured around it.
///
/// ```
/// use cove_runtime::{Value, Vm};
///
/// let text = "module m \"m.cove\"\n\
///             fn f0 twice in m export\n  params t2\n  result t2\n  registers 1\n  refs\n\
///             @0  add.int r0, r0, r0\n  @1  return r0\n";
/// let program = cove_ir::parse::program(text).expect("it parses");
/// let mut vm = Vm::new(&program);
/// assert_eq!(vm.run_entry("m", "twice", vec![Value::Int(21)]), Ok(Value::Int(42)));
/// assert!(vm.instructions() > 0);
/// ```
pub struct Vm<'a, D: Debugger + ?Sized = dyn Debugger + 'a> {
    program: &'a Program,
    debugger: Option<&'a D>,
    limits: Limits,
    interrupt: InterruptHandle,
    output: Box<dyn Write + Send>,
    error_output: Box<dyn Write + Send>,
    input: Box<dyn std::io::BufRead + Send>,
    args: Vec<String>,
    instructions: u64,
    /// The processor time of the task this `Vm` ran, over every run, while
    /// its thread's clock could be read (see [`Vm::cpu_nanos`]).
    cpu_nanos: Option<u64>,
    /// The time it spent blocked, over every run.
    blocked_nanos: u64,
    /// The proof that the program may run, with what the machine digests
    /// of it; or why it may not, which every run then reports.
    proven: Result<(Verified<'a>, Digest), String>,
    /// The allocation the sweep's hook fails, if any.
    fail_allocation_at: Option<u64>,
    /// What each park of a task counts, instead of the clock, if set.
    fixed_wait: Option<u64>,
    /// Whether `write_file` may write.
    file_writes: bool,
}

impl<D: Debugger + ?Sized> std::fmt::Debug for Vm<'_, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vm")
            .field("limits", &self.limits)
            .field("watched", &self.debugger.is_some())
            .field("instructions", &self.instructions)
            .finish_non_exhaustive()
    }
}

impl<'a> Vm<'a> {
    /// A machine for `program`, unwatched, with default limits, writing to
    /// the process's standard output and error.
    ///
    /// The program is verified here ([`cove_ir::verify::program`]), the
    /// one time it is between source and run: the compiler does not. A
    /// program that fails makes every `run_entry` return an
    /// [`ErrorKind::Invalid`] error saying why.
    ///
    /// ```
    /// use cove_runtime::{ErrorKind, Vm};
    ///
    /// // The code runs off its end: there is no `return`.
    /// let text = "module m \"m.cove\"\n\
    ///             fn f0 main in m export\n  result t2\n  registers 1\n  refs\n\
    ///             @0  load.int r0, 1\n";
    /// let program = cove_ir::parse::program(text).expect("it parses");
    /// let error = Vm::new(&program).run_entry("m", "main", vec![]).unwrap_err();
    /// assert_eq!(error.kind, ErrorKind::Invalid);
    /// ```
    pub fn new(program: &'a Program) -> Vm<'a> {
        let proven = cove_ir::verify::program(program)
            .map(|proof| (proof, Digest::of(proof)))
            .map_err(|e| e.to_string());
        Vm::made(program, proven)
    }

    /// A machine for a program the embedder has verified already, which
    /// is not verified again: for a host that wants the verifier's
    /// [`VerifyError`](cove_ir::verify::VerifyError) itself before it
    /// builds a machine (to report it its own way), and for one that runs
    /// a program on many machines and would otherwise prove it once each.
    ///
    /// ```
    /// use cove_runtime::{Value, Vm};
    ///
    /// let text = "module m \"m.cove\"\n\
    ///             fn f0 main in m export\n  result t2\n  registers 1\n  refs\n\
    ///             @0  load.int r0, 7\n  @1  return r0\n";
    /// let program = cove_ir::parse::program(text).expect("it parses");
    /// let proof = cove_ir::verify::program(&program).expect("it verifies");
    /// for _ in 0..2 {
    ///     let mut vm = Vm::from_verified(proof);
    ///     assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(7)));
    /// }
    /// ```
    pub fn from_verified(proof: Verified<'a>) -> Vm<'a> {
        Vm::made(proof.program(), Ok((proof, Digest::of(proof))))
    }

    fn made(program: &'a Program, proven: Result<(Verified<'a>, Digest), String>) -> Vm<'a> {
        Vm {
            program,
            debugger: None,
            limits: Limits::default(),
            interrupt: InterruptHandle::default(),
            output: Box::new(std::io::BufWriter::new(std::io::stdout())),
            error_output: Box::new(std::io::stderr()),
            input: Box::new(std::io::BufReader::new(std::io::stdin())),
            args: Vec::new(),
            instructions: 0,
            cpu_nanos: Some(0),
            blocked_nanos: 0,
            proven,
            fail_allocation_at: None,
            fixed_wait: None,
            file_writes: true,
        }
    }
}

impl<'a, D: Debugger + ?Sized> Vm<'a, D> {
    /// Makes the `n`th heap allocation of each run (counted from 1, across
    /// all its tasks) fail as if the host were out of memory: a test hook,
    /// for the allocation-failure sweep that checks every allocation a
    /// program makes can fail cleanly (a `HeapLimit` error with a Cove
    /// backtrace, the output before it intact). Not a limit, so not in
    /// [`Limits`]; a run without it pays one untaken branch an allocation.
    pub fn with_allocation_failure_at(mut self, n: u64) -> Vm<'a, D> {
        self.fail_allocation_at = Some(n);
        self
    }

    /// Makes every time a task parks — in a `join` of a task not yet done,
    /// a `recv` on an empty channel — count `nanos` nanoseconds of waiting
    /// ([`Stop::blocked_nanos`](debug::Stop::blocked_nanos)) however long
    /// it really took: a deterministic clock for tests of what a debugger
    /// or profiler shows of waiting. Whether a task parks at all is still
    /// up to the threads. Not a limit, so not in [`Limits`].
    pub fn with_fixed_wait_time(mut self, nanos: u64) -> Vm<'a, D> {
        self.fixed_wait = Some(nanos);
        self
    }

    /// Whether `write_file` may write (it may unless this says not): with
    /// `false`, every `write_file` of a run is an `Io` fault that writes
    /// nothing. For a host that runs a program again only to time it, as
    /// `cove profile`'s replay does, and must not repeat its effects. Not
    /// a limit on a resource, so not in [`Limits`].
    pub fn with_file_writes(mut self, allowed: bool) -> Vm<'a, D> {
        self.file_writes = allowed;
        self
    }

    /// Installs a debugger: it is called before every instruction the run
    /// executes (see [`debug`]).
    ///
    /// The dispatch loop is compiled for the debugger's type `E`. Given a
    /// `&dyn Debugger` the loop makes one virtual call a stop, as it always
    /// did; given a concrete type (`&Profiler`, say) the loop calls it
    /// directly, and a debugger whose common stop is short is inlined into
    /// the loop. Either way the runtime learns nothing of what the debugger
    /// is, and a run with none installed is the unwatched loop.
    pub fn with_debugger<E: Debugger + ?Sized>(self, debugger: &'a E) -> Vm<'a, E> {
        Vm {
            program: self.program,
            debugger: Some(debugger),
            limits: self.limits,
            interrupt: self.interrupt,
            output: self.output,
            error_output: self.error_output,
            input: self.input,
            args: self.args,
            instructions: self.instructions,
            cpu_nanos: self.cpu_nanos,
            blocked_nanos: self.blocked_nanos,
            proven: self.proven,
            fail_allocation_at: self.fail_allocation_at,
            fixed_wait: self.fixed_wait,
            file_writes: self.file_writes,
        }
    }

    /// Sets the bounds of every run (see [`Limits`]).
    pub fn with_limits(mut self, limits: Limits) -> Vm<'a, D> {
        self.limits = limits;
        self
    }

    /// Where `print` and `println` write. Flushed at the end of each run,
    /// however it ended.
    ///
    /// A failed write, to this or to the error output (a full disk,
    /// `/dev/full`), ends the run with an [`ErrorKind::Io`] error that says
    /// so; so does a failed flush at the end of a run that otherwise ended
    /// well. A host that wants a closed pipe to end the run quietly
    /// instead wraps the writer, takes the failure as done and stops the
    /// run through its [`interrupt_handle`](Vm::interrupt_handle), as
    /// `cove` does.
    pub fn with_output(mut self, output: Box<dyn Write + Send>) -> Vm<'a, D> {
        self.output = output;
        self
    }

    /// Where `eprintln` writes.
    pub fn with_error_output(mut self, output: Box<dyn Write + Send>) -> Vm<'a, D> {
        self.error_output = output;
        self
    }

    /// What `read_line()` and `read_stdin()` read: the process's standard
    /// input unless this is called. The input is consumed by the runs of
    /// this `Vm` in turn (a second run reads on where the first stopped);
    /// spawned tasks read the same input.
    pub fn with_input(mut self, input: Box<dyn std::io::BufRead + Send>) -> Vm<'a, D> {
        self.input = input;
        self
    }

    /// What `args()` gives the program.
    pub fn with_args(mut self, args: Vec<String>) -> Vm<'a, D> {
        self.args = args;
        self
    }

    /// A handle that ends this `Vm`'s runs from another thread.
    pub fn interrupt_handle(&self) -> InterruptHandle {
        self.interrupt.clone()
    }

    /// The limits runs get.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Instructions the task this `Vm` ran has executed, over every run so
    /// far. Under a debugger, the number of times its `at` was called for
    /// task 0.
    pub fn instructions(&self) -> u64 {
        self.instructions
    }

    /// Processor time the task this `Vm` ran has spent, over every run so
    /// far: its thread's own clock, read as each run starts and ends, so
    /// neither the tasks it spawned nor the time it waited for them is in
    /// it. `None` where the platform has no clock per thread. With
    /// [`Vm::blocked_nanos`], what its run took: a profile of it, which
    /// describes that task, is checked against the two.
    pub fn cpu_nanos(&self) -> Option<u64> {
        self.cpu_nanos
    }

    /// Nanoseconds the task this `Vm` ran has spent blocked, in `join` and
    /// `recv`, over every run so far: the figure a debugger reads as
    /// [`Stop::blocked_nanos`](debug::Stop::blocked_nanos), whole at the
    /// run's end (each wait counted
    /// [`with_fixed_wait_time`](Vm::with_fixed_wait_time)'s fixed figure
    /// where that is set).
    pub fn blocked_nanos(&self) -> u64 {
        self.blocked_nanos
    }

    /// Runs `module.function` on `args` and gives its result.
    ///
    /// The function must be exported, or be named `main`; any other is an
    /// [`ErrorKind::NotExported`] error.
    ///
    /// Tasks the run spawns run on threads of their own and are all finished
    /// (or stopped, if nobody joined them) before this returns. A run whose
    /// function returns but one of whose tasks failed, with nobody joining
    /// it, returns that task's error; so does one that ends in a deadlock.
    pub fn run_entry(
        &mut self,
        module: &str,
        function: &str,
        args: Vec<Value>,
    ) -> Result<Value, RunError> {
        let (proof, digest) = match &self.proven {
            Ok((proof, digest)) => (*proof, digest),
            Err(why) => {
                return Err(RunError::new(
                    ErrorKind::Invalid,
                    format!("the program cannot be run: {why}"),
                ));
            }
        };
        let Some(func) = self.program.find_function(module, function) else {
            return Err(RunError::new(
                ErrorKind::NoSuchEntry,
                format!("the program has no function {module}.{function}"),
            ));
        };
        // Memory to report a refusal of the host's in (see `heap/reserve.rs`).
        crate::heap::reserve::keep();
        // A host may call what a module exports, and `main`, which is what
        // a command-line runner starts whether or not it is exported.
        if !self.program.function(func).exported && function != "main" {
            return Err(RunError::new(
                ErrorKind::NotExported,
                format!(
                    "{module}.{function} is not exported: a host may run only exported \
                     functions and main"
                ),
            ));
        }
        let mut limits = self.limits.clone();
        limits.gc_stress |= gc_stress_from_env();
        let fuel = std::sync::Arc::new(crate::limits::FuelTank::new(limits.fuel));
        let shared = Shared {
            program: proof.program(),
            digest,
            fuel: fuel.clone(),
            heap: std::sync::Arc::new(crate::limits::HeapBudget::new(
                limits.max_heap_words,
                self.fail_allocation_at,
                self.interrupt.clone(),
                fuel,
            )),
            limits,
            interrupt: self.interrupt.clone(),
            out: Mutex::new(std::mem::replace(
                &mut self.output,
                Box::new(std::io::sink()),
            )),
            err: Mutex::new(std::mem::replace(
                &mut self.error_output,
                Box::new(std::io::sink()),
            )),
            input: Mutex::new(std::mem::replace(
                &mut self.input,
                Box::new(std::io::empty()),
            )),
            args: self.args.clone(),
            scheduler: Scheduler::default(),
            fixed_wait: self.fixed_wait,
            file_writes: self.file_writes,
            rescues: crate::heap::reserve::rescues(),
        };
        let debugger = self.debugger;
        // The arguments wait here for whichever thread starts: a thread
        // that could not start dropped what it was given.
        let args = Mutex::new(Some(args));
        let outcome = std::thread::scope(|scope| {
            let shared = &shared;
            let args = &args;
            let start = |stack: usize| {
                std::thread::Builder::new()
                    .name("cove-main".to_string())
                    .stack_size(stack)
                    .spawn_scoped(scope, move || {
                        let args = args.lock().take();
                        let started = cpu_clock::thread_cpu_nanos();
                        let (outcome, tally) =
                            run_task(shared, scope, debugger, 0, func, args.unwrap_or_default());
                        let cpu = started
                            .zip(cpu_clock::thread_cpu_nanos())
                            .map(|(from, to)| to.saturating_sub(from));
                        shared.scheduler.end();
                        (outcome, tally, cpu)
                    })
            };
            // A host short of address space (a tight `ulimit -v`, which
            // counts each thread's malloc arena too) may refuse the full
            // stack and still have room for a usual one, which is all a
            // run needs that no debugger's `at` deepens.
            let main = start(TASK_STACK).or_else(|_| start(SMALL_TASK_STACK));
            match main {
                Ok(main) => main
                    .join()
                    .unwrap_or_else(|_| (Err(internal_error()), Tally::default(), None)),
                Err(e) => (
                    Err(RunError::new(
                        ErrorKind::Internal,
                        format!("could not start the run's thread: {e}"),
                    )),
                    Tally::default(),
                    Some(0),
                ),
            }
        });
        // A spawned task that ended the run (exit, interrupt, a limit) gives
        // the run its result, unless the task the Vm ran failed on its own.
        let failure = shared.scheduler.failure();
        // A task's fault that no join looked at fails a run that otherwise
        // ended well, rather than being lost; and it is the better report of
        // a deadlock, which a task that died holding a channel can cause.
        let unjoined = shared.scheduler.unjoined();
        let mut out = shared.out.into_inner();
        let flushed = out.flush();
        self.output = out;
        let mut err = shared.err.into_inner();
        let _ = err.flush();
        self.error_output = err;
        self.input = shared.input.into_inner();
        let (mut result, tally, cpu) = outcome;
        builtins::flushed(&mut result, flushed);
        tasks::settle_result(&mut result, failure, unjoined);
        self.instructions += tally.executed;
        self.blocked_nanos += tally.blocked_nanos;
        self.cpu_nanos = self.cpu_nanos.zip(cpu).map(|(so_far, more)| so_far + more);
        if let Err(error) = &result
            && error.kind == ErrorKind::Interrupted
        {
            self.interrupt.clear();
        }
        result
    }
}

fn internal_error() -> RunError {
    RunError::new(
        ErrorKind::Internal,
        "the virtual machine failed (a bug in cove_runtime; please report it with the program)",
    )
}

/// What a task's run came to besides its result, counted whether or not
/// it failed.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Tally {
    /// The instructions it executed.
    pub(crate) executed: u64,
    /// The nanoseconds it spent blocked in `join` and `recv`.
    pub(crate) blocked_nanos: u64,
}

/// Runs one task to its end on the calling thread: a machine of its own, the
/// entry frame on `args`, the loop watched or not. Gives the result and the
/// task's [`Tally`]. A panic in the machine becomes an internal error.
pub(crate) fn run_task<'scope, 'env, D: Debugger + ?Sized>(
    shared: &'env Shared<'env>,
    scope: &'scope Scope<'scope, 'env>,
    debugger: Option<&'env D>,
    task: u32,
    func: FunctionId,
    args: Vec<Value>,
) -> (Result<Value, RunError>, Tally)
where
    'env: 'scope,
{
    let mut tally = Tally::default();
    let attempt = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let mut machine = match Machine::new(shared, task) {
            Ok(machine) => machine,
            Err(mut error) => {
                // The constants did not fit the heap: the entry is where.
                error
                    .backtrace
                    .push(frame_at(shared.program, func, 0, task));
                if task != 0 {
                    shared.scheduler.fail(task, &error);
                }
                return Err(error);
            }
        };
        let body = || {
            let entered = machine.enter(func, &args);
            // The copies are in the heap now; holding them would keep
            // channel handles counted that the task may have dropped. Let
            // go without recursing: an argument may be a list a hundred
            // thousand deep.
            args.into_iter().for_each(crate::heap::convert::dispose);
            entered?;
            let result = match debugger {
                Some(debugger) => {
                    let result = if debugger.stops() == Stops::Stretches {
                        let watch = Watched::<_, false> { debugger };
                        if machine.fuel.is_some() {
                            machine.run::<_, false>(scope, &watch)
                        } else {
                            machine.run::<_, true>(scope, &watch)
                        }
                    } else {
                        machine.run::<_, false>(scope, &Watched::<_, true> { debugger })
                    };
                    if let Err(error) = &result {
                        debug::report_fault(debugger, &machine, error);
                    }
                    result
                }
                // Fuel is exact only when every instruction is checked.
                None if machine.fuel.is_some() => machine.run::<_, false>(scope, &Unwatched),
                None => machine.run::<_, true>(scope, &Unwatched),
            };
            tally = Tally {
                executed: machine.executed,
                blocked_nanos: machine.waited.nanos,
            };
            let bits = result?;
            let function = shared.program.function(func);
            let last = function.code.len().saturating_sub(1) as u32;
            machine
                .heap
                .to_value(shared.program, function.result, bits)
                .map_err(|f| at_entry(f, frame_at(shared.program, func, last, task)))
        };
        let outcome = body();
        if task != 0
            && let Err(error) = &outcome
        {
            // Before this task's heap (and its channel handles) goes: a peer
            // that waits on one of its channels sees the run end, or, once
            // the handles are gone, finds the fault already recorded.
            shared.scheduler.fail(task, error);
        }
        outcome
    }));
    if let Some(debugger) = debugger {
        debugger.ended(task);
    }
    (attempt.unwrap_or_else(|_| Err(internal_error())), tally)
}
