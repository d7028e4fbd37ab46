//! A debugging session: one program, run (and rerun) on a thread of its
//! own under the [`Engine`], driven by a front end.
//!
//! The front end (a terminal prompt, a DAP server) sets breakpoints,
//! starts a run, and then reacts to [`Event`]s, delivered through the
//! callback it gave [`Session::new`]: a task stopped (with its
//! [`Snapshot`](crate::Snapshot)), or the run ended. To a stop it answers
//! [`Session::resume`] or [`Session::halt`]. A restart halts the run it
//! has, waits for it to end, and starts another with the same breakpoints.
//!
//! # What it costs
//!
//! A thread a run (the runtime adds one a task, as it always does), and a
//! fresh [`Profiler`] a run when one is carried. Nothing is shared with other
//! runs of the process: a stopped session stops only itself.
//!
//! # Why the run has its own thread
//!
//! `Vm::run_entry` does not return until the program ends, and a stop is
//! the engine waiting inside the runtime's call to it. The front end must
//! stay free to read commands meanwhile, so the run goes elsewhere.

use std::io::Write;
use std::sync::Arc;
use std::thread::JoinHandle;

use cove_ir::program::Program;
use cove_profile::Profiler;
use cove_runtime::{InterruptHandle, Limits, Vm};
use parking_lot::Mutex;

use crate::engine::{Command, Engine, Event, Mode};

/// Makes the writer a run's output goes to; called once a run.
pub type OutputFactory = Box<dyn Fn() -> Box<dyn Write + Send> + Send + Sync>;

/// Makes the profiler a run carries; called once a run.
pub type ProfilerFactory = Box<dyn Fn() -> Profiler + Send + Sync>;

/// One program under the debugger.
pub struct Session {
    program: Arc<Program>,
    engine: Arc<Engine>,
    args: Vec<String>,
    limits: Limits,
    output: OutputFactory,
    error_output: OutputFactory,
    profile: Option<ProfilerFactory>,
    thread: Option<JoinHandle<()>>,
    interrupt: Arc<Mutex<Option<InterruptHandle>>>,
    run: u64,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("run", &self.run)
            .field("running", &self.thread.is_some())
            .finish_non_exhaustive()
    }
}

/// The function a program starts at.
pub const MAIN: &str = "main";

impl Session {
    /// A session on `program`, not yet running, telling `on_event` what
    /// happens. The program's output goes to the process's stdout and
    /// stderr unless [`Session::with_output`] says otherwise.
    ///
    /// `on_event` is called on the run's threads; it should hand the event
    /// over (a channel) rather than act on it.
    pub fn new(program: Arc<Program>, on_event: impl Fn(Event) + Send + Sync + 'static) -> Session {
        let engine = Arc::new(Engine::new(Arc::clone(&program), Box::new(on_event)));
        Session {
            program,
            engine,
            args: Vec::new(),
            limits: Limits::default(),
            output: Box::new(|| Box::new(std::io::stdout())),
            error_output: Box::new(|| Box::new(std::io::stderr())),
            profile: None,
            thread: None,
            interrupt: Arc::new(Mutex::new(None)),
            run: 0,
        }
    }

    /// What `args()` gives the program.
    pub fn with_args(mut self, args: Vec<String>) -> Session {
        self.args = args;
        self
    }

    /// The limits every run gets.
    pub fn with_limits(mut self, limits: Limits) -> Session {
        self.limits = limits;
        self
    }

    /// Where the program's `print` and `eprintln` go, a writer made anew
    /// for each run.
    pub fn with_output(mut self, output: OutputFactory, error_output: OutputFactory) -> Session {
        self.output = output;
        self.error_output = error_output;
        self
    }

    /// Carries a profiler on every run: each stop is forwarded to it, so
    /// [`Session::profiler`] has the exact counts of the run so far.
    pub fn with_profile(mut self, make: ProfilerFactory) -> Session {
        self.profile = Some(make);
        self
    }

    /// The program.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The engine: breakpoints, the pause flag, the tasks.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The number of the current (or last) run; events carry it.
    pub fn run(&self) -> u64 {
        self.run
    }

    /// The name of the module the program starts in.
    pub fn entry_module(&self) -> &str {
        self.program.modules.last().map_or("", |m| m.name.as_str())
    }

    /// The profiler the current run carries.
    pub fn profiler(&self) -> Option<Arc<Profiler>> {
        self.engine.profiler()
    }

    /// Starts a run of `main`, ending the one in progress first. With
    /// `stop_at_entry` it stops before its first instruction.
    pub fn start(&mut self, stop_at_entry: bool) -> Result<u64, String> {
        self.end();
        let profiler = self.profile.as_ref().map(|make| Arc::new(make()));
        let run = self.engine.begin(stop_at_entry, profiler);
        self.run = run;
        let program = Arc::clone(&self.program);
        let engine = Arc::clone(&self.engine);
        let limits = self.limits.clone();
        let args = self.args.clone();
        let output = (self.output)();
        let error_output = (self.error_output)();
        let interrupt = Arc::clone(&self.interrupt);
        let module = self.entry_module().to_string();
        let thread = std::thread::Builder::new()
            .name("cove-debug-run".to_string())
            .spawn(move || {
                let mut vm = Vm::new(&program)
                    .with_debugger(&*engine)
                    .with_limits(limits)
                    .with_args(args)
                    .with_output(output)
                    .with_error_output(error_output);
                *interrupt.lock() = Some(vm.interrupt_handle());
                let result = vm.run_entry(&module, MAIN, Vec::new());
                *interrupt.lock() = None;
                engine.emit(Event::Exited { run, result });
            })
            .map_err(|e| format!("could not start the run's thread: {e}"))?;
        self.thread = Some(thread);
        Ok(run)
    }

    /// Tells the stopped task how to go on.
    pub fn resume(&self, mode: Mode) {
        self.engine.send(Command::Resume(mode));
    }

    /// Ends the run in progress, stopped or not, and waits for it to end.
    /// The run's `Exited` event is still delivered.
    pub fn end(&mut self) {
        let Some(thread) = self.thread.take() else {
            return;
        };
        self.engine.halt_all();
        // A task parked at a stop takes the halt; one blocked on a channel
        // or a join is woken by the interrupt.
        self.engine.send(Command::Halt);
        if let Some(handle) = self.interrupt.lock().as_ref() {
            handle.interrupt();
        }
        let _ = thread.join();
    }

    /// Forgets a run that has ended on its own (after its `Exited` event).
    pub fn ended(&mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// Whether a run is in progress.
    pub fn is_running(&self) -> bool {
        self.thread.is_some()
    }

    /// Ends the run with a halt: the stopped task is told to stop there.
    pub fn halt(&self) {
        self.engine.halt_all();
        self.engine.send(Command::Halt);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.end();
    }
}
