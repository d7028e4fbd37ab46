//! The stepping engine: a [`Debugger`] that decides, before every
//! instruction, whether the task should stop, and when it should, parks the
//! task until a front end says how to go on.
//!
//! # How a stop works
//!
//! `at` runs on the task's own thread. When it decides to stop it takes
//! the engine's one command queue (so two tasks never stop at once: a
//! second task that wants to stop waits for the first to resume), sends a
//! [`Snapshot`] to the front end through the session's event callback, and
//! waits for a [`Command`]: resume in some [`Mode`], or halt the run. A
//! resume in a stepping mode arms the step for that task only.
//!
//! # What it costs
//!
//! The engine is called before every instruction. A call that does not
//! stop takes one uncontended read lock, looks the pc up in a sorted table
//! of the current function's breakpoints, compares a step's depth and line,
//! and, if a profile is carried ([`crate::Session::with_profile`]), forwards
//! the stop to the profiler. Nothing runs per instruction in the runtime
//! beyond the seam itself: the runtime does not know it is being
//! debugged.
//!
//! # Why one engine for every front end
//!
//! The terminal and the DAP server differ in how they talk, not in what a
//! breakpoint or a `next` means; both drive the same [`crate::Session`] and
//! so agree on every stop.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};

use cove_ir::program::{FunctionId, Program};
use cove_profile::Profiler;
use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::{RunError, Value};
use parking_lot::{Mutex, RwLock};

use crate::breakpoints::Location;
use crate::expr::{Expr, Scope, Typed};
use crate::snapshot::{Reason, Snapshot};

/// How a stopped task goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Until a breakpoint, a fault, a pause or the end.
    Continue,
    /// To the next line, into calls.
    Step,
    /// To the next line of this frame or a caller, over calls.
    Next,
    /// Until this frame returns.
    Finish,
    /// One instruction.
    StepInstruction,
}

/// What a front end tells a stopped task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Go on.
    Resume(Mode),
    /// End the run here.
    Halt,
}

/// What the session tells its front end.
#[derive(Debug)]
pub enum Event {
    /// A task stopped and waits for a command.
    Stopped(Snapshot),
    /// A run ended, with `main`'s value or the error.
    Exited {
        /// Which run.
        run: u64,
        /// How it ended.
        result: Result<Value, RunError>,
    },
}

/// When a breakpoint stops, counted in hits (passes where its condition,
/// if any, held): DAP's `hitCondition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitCondition {
    /// On hit `n` only (`3` or `== 3`).
    Equal(u64),
    /// On every hit from `n` on (`>= 3`).
    AtLeast(u64),
    /// On every hit after `n` (`> 3`).
    Above(u64),
    /// On every `n`th hit (`% 3`).
    Every(u64),
}

impl HitCondition {
    /// Parses `3`, `== 3`, `>= 3`, `> 3` or `% 3`.
    pub fn parse(text: &str) -> Result<HitCondition, String> {
        let text = text.trim();
        let (make, rest): (fn(u64) -> HitCondition, &str) =
            if let Some(rest) = text.strip_prefix(">=") {
                (HitCondition::AtLeast, rest)
            } else if let Some(rest) = text.strip_prefix('>') {
                (HitCondition::Above, rest)
            } else if let Some(rest) = text.strip_prefix('%') {
                (HitCondition::Every, rest)
            } else if let Some(rest) = text.strip_prefix("==") {
                (HitCondition::Equal, rest)
            } else {
                (HitCondition::Equal, text)
            };
        match rest.trim().parse::<u64>() {
            Ok(n) if n > 0 || make(0) != HitCondition::Every(0) => Ok(make(n)),
            _ => Err(format!(
                "a hit condition is a count: `3`, `== 3`, `>= 3`, `> 3` or `% 3`, not `{text}`"
            )),
        }
    }

    fn holds(self, hits: u64) -> bool {
        match self {
            HitCondition::Equal(n) => hits == n,
            HitCondition::AtLeast(n) => hits >= n,
            HitCondition::Above(n) => hits > n,
            HitCondition::Every(n) => hits % n == 0,
        }
    }
}

/// A breakpoint as the engine keeps it.
#[derive(Debug)]
pub struct Breakpoint {
    /// Its number, from 1, never reused in a session.
    pub id: u32,
    /// What it was set on, as the user wrote it.
    pub spec: String,
    /// Where it stops.
    pub location: Location,
    /// Stop only when this holds.
    pub condition: Option<Expr>,
    /// Stop only on these hits.
    pub hit_condition: Option<HitCondition>,
    /// Deleted once it stops (`tbreak`).
    pub temporary: bool,
    hits: AtomicU64,
}

impl Breakpoint {
    /// How many times it was reached with its condition holding, this run.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }
}

/// A breakpoint to add.
#[derive(Debug, Clone, Default)]
pub struct NewBreakpoint {
    /// What it is set on, as the user wrote it.
    pub spec: String,
    /// A condition, parsed.
    pub condition: Option<Expr>,
    /// A hit condition.
    pub hit_condition: Option<HitCondition>,
    /// Whether it goes once it stops.
    pub temporary: bool,
}

/// A step in progress: the task it belongs to and where it started.
#[derive(Debug, Clone, Copy)]
struct Stepping {
    task: u32,
    mode: Mode,
    depth: usize,
    line: Option<u32>,
    function: FunctionId,
}

/// What the engine decides from, behind one lock.
#[derive(Default)]
struct Control {
    breakpoints: Vec<Arc<Breakpoint>>,
    /// For each function, its breakpoints' pcs, sorted, with the
    /// breakpoint's index in `breakpoints`.
    by_function: Vec<Vec<(u32, usize)>>,
    step: Option<Stepping>,
    profiler: Option<Arc<Profiler>>,
}

impl Control {
    fn reindex(&mut self, functions: usize) {
        let mut table = vec![Vec::new(); functions];
        for (i, b) in self.breakpoints.iter().enumerate() {
            for (f, pc) in &b.location.pcs {
                if let Some(row) = table.get_mut(f.index()) {
                    row.push((*pc, i));
                }
            }
        }
        for row in &mut table {
            row.sort_unstable();
        }
        self.by_function = table;
    }
}

/// The number the next run of any engine gets; also what tells a task's
/// thread which run it registered with.
static RUNS: AtomicU64 = AtomicU64::new(1);

/// The engine. Made and driven by a [`crate::Session`].
pub struct Engine {
    program: Arc<Program>,
    control: RwLock<Control>,
    next_id: AtomicU64,
    pause: Arc<AtomicBool>,
    halted: AtomicBool,
    stop_at_entry: AtomicBool,
    break_on_fault: AtomicBool,
    run: AtomicU64,
    commands: Mutex<Receiver<Command>>,
    sender: Mutex<Sender<Command>>,
    on_event: Box<dyn Fn(Event) + Send + Sync>,
    tasks: Arc<Mutex<BTreeSet<u32>>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("run", &self.run.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

thread_local! {
    /// The run this thread's task was registered with, and the guard that
    /// unregisters it when the thread (so the task) ends.
    static REGISTERED: std::cell::RefCell<Option<TaskGuard>> = const { std::cell::RefCell::new(None) };
}

struct TaskGuard {
    run: u64,
    task: u32,
    tasks: Arc<Mutex<BTreeSet<u32>>>,
}

impl Drop for TaskGuard {
    fn drop(&mut self) {
        self.tasks.lock().remove(&self.task);
    }
}

impl Engine {
    pub(crate) fn new(program: Arc<Program>, on_event: Box<dyn Fn(Event) + Send + Sync>) -> Engine {
        let (sender, commands) = std::sync::mpsc::channel();
        let functions = program.functions.len();
        let mut control = Control::default();
        control.reindex(functions);
        Engine {
            program,
            control: RwLock::new(control),
            next_id: AtomicU64::new(1),
            pause: Arc::new(AtomicBool::new(false)),
            halted: AtomicBool::new(false),
            stop_at_entry: AtomicBool::new(false),
            break_on_fault: AtomicBool::new(true),
            run: AtomicU64::new(0),
            commands: Mutex::new(commands),
            sender: Mutex::new(sender),
            on_event,
            tasks: Arc::new(Mutex::new(BTreeSet::new())),
        }
    }

    /// Readies the engine for a new run and gives the run its number.
    pub(crate) fn begin(&self, stop_at_entry: bool, profiler: Option<Arc<Profiler>>) -> u64 {
        let run = RUNS.fetch_add(1, Ordering::Relaxed);
        // Commands sent to a run that ended before it took them.
        while self.commands.lock().try_recv().is_ok() {}
        let mut control = self.control.write();
        control.step = None;
        control.profiler = profiler;
        for b in &control.breakpoints {
            b.hits.store(0, Ordering::Relaxed);
        }
        drop(control);
        self.pause.store(false, Ordering::SeqCst);
        self.halted.store(false, Ordering::SeqCst);
        self.stop_at_entry.store(stop_at_entry, Ordering::SeqCst);
        self.tasks.lock().clear();
        self.run.store(run, Ordering::SeqCst);
        run
    }

    pub(crate) fn emit(&self, event: Event) {
        (self.on_event)(event);
    }

    pub(crate) fn send(&self, command: Command) {
        let _ = self.sender.lock().send(command);
    }

    /// Makes every task of the run halt at its next instruction.
    pub(crate) fn halt_all(&self) {
        self.halted.store(true, Ordering::SeqCst);
    }

    /// The flag that pauses the run at its next instruction when set; a
    /// Ctrl-C handler sets it.
    pub fn pause_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.pause)
    }

    /// Whether a runtime error stops the run before it ends (the default).
    pub fn set_break_on_fault(&self, on: bool) {
        self.break_on_fault.store(on, Ordering::SeqCst);
    }

    /// The tasks of the run that are alive, as far as the engine has seen
    /// them (a task is seen at its first instruction).
    pub fn tasks(&self) -> Vec<u32> {
        self.tasks.lock().iter().copied().collect()
    }

    /// The profiler the run carries, if any.
    pub fn profiler(&self) -> Option<Arc<Profiler>> {
        self.control.read().profiler.clone()
    }

    /// Adds a breakpoint, resolving its place now.
    pub fn add_breakpoint(
        &self,
        new: NewBreakpoint,
        default_module: &str,
    ) -> Result<Arc<Breakpoint>, String> {
        let location = crate::breakpoints::resolve(&self.program, &new.spec, default_module)?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) as u32;
        let breakpoint = Arc::new(Breakpoint {
            id,
            spec: new.spec.trim().to_string(),
            location,
            condition: new.condition,
            hit_condition: new.hit_condition,
            temporary: new.temporary,
            hits: AtomicU64::new(0),
        });
        let mut control = self.control.write();
        control.breakpoints.push(Arc::clone(&breakpoint));
        control.reindex(self.program.functions.len());
        Ok(breakpoint)
    }

    /// Deletes breakpoint `id`; false if there is none.
    pub fn delete_breakpoint(&self, id: u32) -> bool {
        let mut control = self.control.write();
        let before = control.breakpoints.len();
        control.breakpoints.retain(|b| b.id != id);
        let deleted = control.breakpoints.len() != before;
        control.reindex(self.program.functions.len());
        deleted
    }

    /// Deletes every breakpoint that `keep` refuses.
    pub fn retain_breakpoints(&self, keep: impl Fn(&Breakpoint) -> bool) {
        let mut control = self.control.write();
        control.breakpoints.retain(|b| keep(b));
        control.reindex(self.program.functions.len());
    }

    /// The breakpoints, in the order they were set.
    pub fn breakpoints(&self) -> Vec<Arc<Breakpoint>> {
        self.control.read().breakpoints.clone()
    }

    /// Arms a step for `snapshot`'s task, from where it stopped.
    pub(crate) fn arm(&self, snapshot: &Snapshot, mode: Mode) {
        let step = match (mode, snapshot.top()) {
            (Mode::Continue, _) | (_, None) => None,
            (mode, Some(top)) => Some(Stepping {
                task: snapshot.task,
                mode,
                depth: snapshot.frames.len(),
                line: top.line,
                function: top.function,
            }),
        };
        self.control.write().step = step;
    }

    /// Whether to stop at `stop`, and why. Called with the read lock held.
    fn decide(&self, control: &Control, stop: &Stop<'_>) -> Option<(Reason, Vec<Arc<Breakpoint>>)> {
        if self.pause.swap(false, Ordering::SeqCst) {
            return Some((Reason::Pause, Vec::new()));
        }
        if stop.task() == 0 && self.stop_at_entry.swap(false, Ordering::SeqCst) {
            return Some((Reason::Entry, Vec::new()));
        }
        let function = stop.function_id();
        let pc = stop.pc();
        let mut hit = Vec::new();
        if let Some(row) = control.by_function.get(function.index())
            && !row.is_empty()
        {
            let from = row.partition_point(|(p, _)| *p < pc);
            for (_, i) in row[from..].iter().take_while(|(p, _)| *p == pc) {
                let b = &control.breakpoints[*i];
                if let Some(condition) = &b.condition {
                    let frame = LiveFrame(stop);
                    match condition.test(&self.program, &frame) {
                        Ok(true) => {}
                        Ok(false) => continue,
                        Err(e) => {
                            return Some((
                                Reason::ConditionFailed {
                                    breakpoint: b.id,
                                    message: e.0,
                                },
                                vec![Arc::clone(b)],
                            ));
                        }
                    }
                }
                let hits = b.hits.fetch_add(1, Ordering::Relaxed) + 1;
                if b.hit_condition.is_none_or(|h| h.holds(hits)) {
                    hit.push(Arc::clone(b));
                }
            }
        }
        if !hit.is_empty() {
            let ids = hit.iter().map(|b| b.id).collect();
            return Some((Reason::Breakpoint(ids), hit));
        }
        let step = control.step.filter(|s| s.task == stop.task())?;
        let depth = stop.depth();
        let line = stop.line();
        let done = match step.mode {
            Mode::Continue => false,
            Mode::StepInstruction => true,
            Mode::Step => {
                line.is_some()
                    && (depth != step.depth || line != step.line || function != step.function)
            }
            Mode::Next => {
                line.is_some() && (depth < step.depth || (depth == step.depth && line != step.line))
            }
            Mode::Finish => depth < step.depth,
        };
        done.then(|| (Reason::Step, Vec::new()))
    }

    /// Parks the task: sends its snapshot and waits for a command.
    fn park(&self, stop: &Stop<'_>, reason: Reason) -> Resume {
        let commands = self.commands.lock();
        if self.halted.load(Ordering::SeqCst) {
            return Resume::Halt;
        }
        let snapshot = Snapshot::take(stop, reason, self.run.load(Ordering::SeqCst));
        // While the task waits here the editor may ask for the profile so
        // far, from another thread: the profiler lets go of what its
        // task's thread holds for the run until the next stop.
        if let Some(profiler) = &self.control.read().profiler {
            profiler.pause();
        }
        let task = snapshot.task;
        let arm = snapshot.clone();
        self.emit(Event::Stopped(snapshot));
        match commands.recv() {
            Ok(Command::Resume(mode)) => {
                if mode != Mode::Continue
                    || self.control.read().step.is_some_and(|s| s.task == task)
                {
                    self.arm(&arm, mode);
                }
                Resume::Go
            }
            Ok(Command::Halt) | Err(_) => {
                self.halted.store(true, Ordering::SeqCst);
                Resume::Halt
            }
        }
    }

    fn register(&self, task: u32) {
        let run = self.run.load(Ordering::Relaxed);
        REGISTERED.with(|slot| {
            let mut slot = slot.borrow_mut();
            if slot.as_ref().is_none_or(|g| g.run != run || g.task != task) {
                self.tasks.lock().insert(task);
                *slot = Some(TaskGuard {
                    run,
                    task,
                    tasks: Arc::clone(&self.tasks),
                });
            }
        });
    }
}

/// The innermost frame of a live stop, as a condition's scope.
struct LiveFrame<'s, 'a>(&'s Stop<'a>);

impl Scope for LiveFrame<'_, '_> {
    fn lookup(&self, name: &str) -> Option<Typed> {
        let frame = self.0.frames().next()?;
        let function = self.0.program().function(frame.function_id());
        let pc = frame.pc();
        let local = function
            .locals
            .iter()
            .find(|l| l.name == name && l.live.contains(&pc))?;
        Some((frame.value(local.register.0), Some(local.ty)))
    }
}

impl Debugger for Engine {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        self.register(stop.task());
        let decision = {
            let control = self.control.read();
            if let Some(profiler) = &control.profiler {
                profiler.at(stop);
            }
            if self.halted.load(Ordering::Relaxed) {
                return Resume::Halt;
            }
            self.decide(&control, stop)
        };
        let Some((reason, hit)) = decision else {
            return Resume::Go;
        };
        if matches!(reason, Reason::Breakpoint(_)) {
            // A step ends at a breakpoint, as in gdb; a temporary one goes.
            let mut control = self.control.write();
            if control.step.is_some_and(|s| s.task == stop.task()) {
                control.step = None;
            }
            if hit.iter().any(|b| b.temporary) {
                control
                    .breakpoints
                    .retain(|b| !(b.temporary && hit.iter().any(|h| h.id == b.id)));
                control.reindex(self.program.functions.len());
            }
        } else if reason == Reason::Step {
            self.control.write().step = None;
        }
        self.park(stop, reason)
    }

    fn follows_tasks(&self) -> bool {
        true
    }

    fn ended(&self, task: u32) {
        if let Some(profiler) = &self.control.read().profiler {
            profiler.ended(task);
        }
    }

    fn faulted(&self, stop: &Stop<'_>, error: &RunError) {
        if self.halted.load(Ordering::SeqCst) || !self.break_on_fault.load(Ordering::SeqCst) {
            return;
        }
        let reason = Reason::Fault {
            kind: error.kind,
            message: error.message.clone(),
        };
        let _ = self.park(stop, reason);
    }
}
