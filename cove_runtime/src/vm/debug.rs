//! The debugger seam: one call before every instruction, while a debugger
//! is installed, and nothing at all while none is.
//!
//! A [`Debugger`] is handed a [`Stop`] before each instruction and answers
//! [`Resume::Go`] or [`Resume::Halt`]. A stop is a read-only view of the
//! machine at that moment: where it is, how deep, what the heap has handed
//! out so far, and every frame's registers, typed through the function's
//! debug information. A profiler is a debugger that always answers `Go`; an
//! interactive debugger is one that sometimes waits before it answers.
//!
//! # What it costs
//!
//! Nothing while no debugger is installed: the dispatch loop is compiled
//! twice ([`exec`](super::exec)), and the copy that runs without a debugger
//! has no call, no branch and no field for one. With one installed, a stop
//! is a small struct of references built on the stack and a virtual call.
//!
//! # Why a callback and not a hook table
//!
//! One seam serves every tool: a profiler, a debugger, a tracer and a test
//! that counts stops all see the same `Stop`, and the machine never learns
//! which of them it is serving. Breakpoints, stepping and watchpoints are the
//! debugger's own state, decided in `at`.
//!
//! # Faults
//!
//! A runtime error ends the task, but an interactive debugger wants to show
//! where it happened before the frames are gone: [`Debugger::faulted`] is
//! called once, on the faulting task's thread, with a `Stop` at the
//! faulting instruction, before the run returns the error. It is the seam's
//! one addition for a debugger that stops; the loop needs no code for it,
//! because it already leaves the frames in place when it returns an error.
//!
//! # Tasks
//!
//! A debugger is installed on one [`Vm`](crate::Vm) and watches the task it
//! runs (task 0). Tasks that run spawns are watched too only when
//! [`Debugger::follows_tasks`] says so; [`Stop::task`] then tells the tasks
//! apart (they run on their own threads, which is why `Debugger: Sync`), and
//! each task's heap counters are its own.

use cove_ir::op::{Instr, Reg, StretchEnd};
use cove_ir::program::{Function, FunctionId, Program};

use crate::heap::Memory;
use crate::value::Value;
use crate::vm::machine::{CallFrame, frame_end};

/// Watches a run, one instruction at a time.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use cove_runtime::vm::debug::{Debugger, Resume, Stop};
///
/// /// Counts instructions and ends the run after a thousand.
/// #[derive(Default)]
/// struct Short(AtomicU64);
///
/// impl Debugger for Short {
///     fn at(&self, _stop: &Stop<'_>) -> Resume {
///         if self.0.fetch_add(1, Ordering::Relaxed) < 1000 { Resume::Go } else { Resume::Halt }
///     }
/// }
/// ```
pub trait Debugger: Sync {
    /// Called before every instruction while installed.
    fn at(&self, stop: &Stop<'_>) -> Resume;

    /// Whether tasks this run spawns are watched by this debugger too.
    /// Default false: only the task the `Vm` runs.
    fn follows_tasks(&self) -> bool {
        false
    }

    /// Where the run stops for this debugger: before every instruction (the
    /// default), or only before the first instruction of each stretch (see
    /// [`Stops::Stretches`]). Asked once, when a task starts.
    fn stops(&self) -> Stops {
        Stops::Instructions
    }

    /// A stop the loop already knows the shape of, offered before it builds
    /// the [`Stop`], to a debugger stopped at stretches
    /// ([`Stops::Stretches`]): the first stop after a branch, a call, a
    /// return or an instruction that may allocate ([`Glance`] says which
    /// and where). A debugger that takes it answers true and the
    /// instruction runs, as after [`Resume::Go`]; false (the default) makes
    /// it an ordinary stop at [`Debugger::at`]. Never offered to a debugger
    /// stopped at every instruction, nor at a task's first stop.
    ///
    /// It exists for cost: a counting profiler's common stop is a counter
    /// or two, and building the `Stop` and writing the frame's position for
    /// it cost the loop more than the count.
    fn glance(&self, glance: &Glance<'_>) -> bool {
        let _ = glance;
        false
    }

    /// Called once when a runtime error ends a watched task, on that task's
    /// thread, before the run returns `error`: `stop` is the machine at
    /// the faulting instruction with every frame still on the stack, so a
    /// debugger can show the backtrace and the locals where the fault
    /// happened. Not called for a run the debugger itself ended
    /// ([`Resume::Halt`]). Default: nothing.
    fn faulted(&self, stop: &Stop<'_>, error: &crate::RunError) {
        let _ = (stop, error);
    }

    /// Called once when a watched task ends, however it ends (a result, a
    /// runtime error, a halt, a failure of the machine), on that task's
    /// thread, after its last stop and after [`Debugger::faulted`]. A
    /// debugger that kept something of the task's thread for the length
    /// of the run lets go of it here. Default: nothing.
    fn ended(&self, task: u32) {
        let _ = task;
    }
}

/// A stop the loop knows the shape of ([`Debugger::glance`]).
///
/// What it says follows from the instruction that ended the stretch before
/// (`after`): after a branch the task is in the frame and function of its
/// previous stop; after a call, one frame deeper, at the callee's first
/// instruction; after a return, one frame shallower, just past the call
/// in the caller. None of the three allocates, so the heap's counters are
/// where they were at the previous stop. A builtin that, as it ran,
/// neither allocated nor waited (a string's length, a byte, a map lookup,
/// a push into room the list already has, a set of a key the map has, a
/// sort in place, a print) is offered as a branch: it left the frame and
/// the heap just as one does.
///
/// After any other instruction that may allocate ([`StretchEnd::Other`]:
/// an allocation, a spawn, a builtin that allocated or waited) the task is
/// in the frame and function of its previous stop too, but the heap's
/// counters and the blocked time may have moved: [`Glance::allocated_words`],
/// [`Glance::allocations`] and [`Glance::blocked_nanos`] say where they
/// are, as a [`Stop`]'s do.
#[derive(Debug, Clone, Copy)]
pub struct Glance<'a> {
    pub(crate) task: u32,
    pub(crate) after: StretchEnd,
    pub(crate) pc: u32,
    pub(crate) frames: &'a [CallFrame],
    pub(crate) heap: &'a Memory,
    pub(crate) blocked: u64,
}

impl Glance<'_> {
    /// The task, as [`Stop::task`].
    pub fn task(&self) -> u32 {
        self.task
    }

    /// How the stretch before ended: [`StretchEnd::Branch`] (a jump, or a
    /// builtin that moved nothing), [`StretchEnd::Call`],
    /// [`StretchEnd::Return`] or [`StretchEnd::Other`] (an instruction
    /// that may have allocated or waited).
    pub fn after(&self) -> StretchEnd {
        self.after
    }

    /// The instruction's index in its function's code, as [`Stop::pc`].
    pub fn pc(&self) -> u32 {
        self.pc
    }

    /// The function about to run an instruction, as [`Stop::function_id`].
    pub fn function_id(&self) -> FunctionId {
        self.frames.last().expect("a stop has a frame").func
    }

    /// How many frames the task's stack holds, as [`Stop::depth`].
    pub fn depth(&self) -> usize {
        self.frames.len()
    }

    /// Words the task's heap has handed out so far, as
    /// [`Stop::allocated_words`].
    pub fn allocated_words(&self) -> u64 {
        self.heap.allocated_words()
    }

    /// Objects the task's heap has handed out so far, as
    /// [`Stop::allocations`].
    pub fn allocations(&self) -> u64 {
        self.heap.allocations()
    }

    /// Nanoseconds the task has spent parked so far, as
    /// [`Stop::blocked_nanos`].
    pub fn blocked_nanos(&self) -> u64 {
        self.blocked
    }
}

/// Where a run stops for a debugger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Stops {
    /// Before every instruction.
    #[default]
    Instructions,
    /// Before the first instruction of every *stretch*: a run of
    /// instructions entered only at its first and left only after its last
    /// ([`Opcode::ends_stretch`](cove_ir::op::Opcode::ends_stretch) says
    /// which instructions end one). Every instruction of a stretch runs as
    /// often as its first, so a debugger that counts stretches counts every
    /// instruction; it pays for a stop every few instructions instead of
    /// at each. Only an error can end a run inside a stretch. Such a run
    /// checks its safepoint where an unwatched one does, after taken jumps
    /// and calls, unless it has fuel.
    Stretches,
}

/// Tells `debugger` that the task `machine` ran failed with `error`, while
/// the machine still holds the faulting frames; see [`Debugger::faulted`].
///
/// The dispatch loop leaves the frames as they were when it returns an
/// error, with the innermost frame's place pointing one instruction past
/// the one that faulted, so this is the only code the seam needs.
pub(crate) fn report_fault<D: Debugger + ?Sized>(
    debugger: &D,
    machine: &crate::vm::machine::Machine<'_>,
    error: &crate::RunError,
) {
    let Some(innermost) = machine.frames.last() else {
        return;
    };
    if error.kind == crate::ErrorKind::Halted {
        return;
    }
    let stop = Stop {
        program: machine.program,
        frames: &machine.frames,
        stack: &machine.stack,
        heap: &machine.heap,
        pc: innermost.pc().saturating_sub(1),
        task: machine.task,
        ran: !machine.ended_before,
        blocked: machine.waited.nanos,
    };
    debugger.faulted(&stop, error);
}

/// What a debugger answers at a stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Resume {
    /// Run the instruction and go on.
    Go,
    /// End the run here, with [`ErrorKind::Halted`](crate::ErrorKind::Halted),
    /// without running the instruction: [`Vm::instructions`](crate::Vm::instructions)
    /// does not count it.
    Halt,
}

/// The machine before one instruction, as a debugger sees it.
#[derive(Debug)]
pub struct Stop<'a> {
    pub(crate) program: &'a Program,
    pub(crate) frames: &'a [CallFrame],
    pub(crate) stack: &'a [u64],
    pub(crate) heap: &'a Memory,
    pub(crate) pc: u32,
    pub(crate) task: u32,
    pub(crate) ran: bool,
    pub(crate) blocked: u64,
}

impl<'a> Stop<'a> {
    fn innermost(&self) -> &'a CallFrame {
        self.frames.last().expect("a stop has a frame")
    }

    /// The function about to run an instruction.
    pub fn function_id(&self) -> FunctionId {
        self.innermost().func
    }

    /// The instruction's index in its function's code.
    pub fn pc(&self) -> u32 {
        self.pc
    }

    /// How many frames this task's stack holds; the entry is 1.
    pub fn depth(&self) -> usize {
        self.frames.len()
    }

    /// The program being run.
    pub fn program(&self) -> &'a Program {
        self.program
    }

    /// Words this task's heap has handed out since the task began; a
    /// collection never lowers it.
    pub fn allocated_words(&self) -> u64 {
        self.heap.allocated_words()
    }

    /// Objects this task's heap has handed out since the task began; a
    /// collection never lowers it.
    pub fn allocations(&self) -> u64 {
        self.heap.allocations()
    }

    /// Nanoseconds this task has spent parked — waiting in a `join` for a
    /// task to end, or in a `recv` for a message — since the task began;
    /// cumulative, never lowered. A debugger that reads it at two stops
    /// has the time the instructions between them spent waiting rather
    /// than running (a profiler charges it to the `join` or `recv` the
    /// first stop was before). Measured by the monotonic clock only while
    /// the task is parked: a wait that was ready at once is 0.
    pub fn blocked_nanos(&self) -> u64 {
        self.blocked
    }

    /// The source line of the instruction, if the program records it.
    pub fn line(&self) -> Option<u32> {
        self.program.line_of(self.function_id(), self.pc)
    }

    /// Which task this is: 0 for the task the `Vm` ran, then 1, 2, ... in
    /// the order the run spawned them.
    pub fn task(&self) -> u32 {
        self.task
    }

    /// Whether the instruction at [`Stop::pc`] has run: never at an
    /// ordinary stop, which is before it; at the stop handed to
    /// [`Debugger::faulted`], true when the instruction ran and faulted,
    /// false when the run ended before it could (fuel, an interrupt or the
    /// end of the run, found at a safepoint). A profiler that counted the
    /// instruction's whole stretch in advance takes back what did not run.
    pub fn ran(&self) -> bool {
        self.ran
    }

    /// The instruction about to run.
    pub fn instr(&self) -> &'a Instr {
        &self.program.function(self.function_id()).code[self.pc as usize]
    }

    /// The frames of this task's stack, innermost first.
    pub fn frames(&self) -> impl Iterator<Item = Frame<'_>> {
        (0..self.frames.len())
            .rev()
            .map(move |index| Frame { stop: self, index })
    }
}

/// One frame of a stopped task's stack.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    stop: &'a Stop<'a>,
    index: usize,
}

impl<'a> Frame<'a> {
    fn record(&self) -> &'a CallFrame {
        &self.stop.frames[self.index]
    }

    fn function(&self) -> &'a Function {
        self.stop.program.function(self.function_id())
    }

    /// The function this frame is running.
    pub fn function_id(&self) -> FunctionId {
        self.record().func
    }

    /// Where this frame is: the instruction about to run for the innermost
    /// frame, the `call` it is waiting in for every other.
    pub fn pc(&self) -> u32 {
        if self.index + 1 == self.stop.frames.len() {
            self.stop.pc
        } else {
            self.record().pc().saturating_sub(1)
        }
    }

    /// The source line of [`Frame::pc`].
    pub fn line(&self) -> Option<u32> {
        self.stop.program.line_of(self.function_id(), self.pc())
    }

    /// Register `r`'s raw 64 bits; 0 for a register the function does not
    /// have, or that a call in progress has lent to its callee (every
    /// register from the callee's first argument up).
    pub fn register(&self, r: u16) -> u64 {
        let at = self.record().base as usize + usize::from(r);
        if r >= self.function().registers || at >= frame_end(self.stop.frames, self.index) {
            return 0;
        }
        self.stop.stack.get(at).copied().unwrap_or(0)
    }

    /// Register `r` as a Cove value, typed by the local the debug
    /// information says it holds at this pc; [`Value::Raw`] when no local
    /// covers it.
    pub fn value(&self, r: u16) -> Value {
        let bits = self.register(r);
        let pc = self.pc();
        let local = self
            .function()
            .locals
            .iter()
            .find(|l| l.register == Reg(r) && l.live.contains(&pc));
        match local {
            Some(local) => self.typed(local.ty, bits),
            None => Value::Raw(bits),
        }
    }

    /// The named locals live at this pc, and their values.
    ///
    /// For a compiled program each name appears at most once: the variable
    /// the source's name means at this pc. A shadowed variable is not
    /// listed while the one hiding it is live (from the instruction after
    /// the hiding `let`'s initializer), and one hidden by an inner block's
    /// `let` is listed again after that block (see
    /// [`Local::live`](cove_ir::program::Local::live)).
    pub fn locals(&self) -> Vec<(String, Value)> {
        let pc = self.pc();
        self.function()
            .locals
            .iter()
            .filter(|l| l.live.contains(&pc))
            .map(|l| {
                (
                    l.name.clone(),
                    self.typed(l.ty, self.register(l.register.0)),
                )
            })
            .collect()
    }

    fn typed(&self, ty: cove_ir::types::TypeId, bits: u64) -> Value {
        self.stop
            .heap
            .to_value(self.stop.program, ty, bits)
            .unwrap_or(Value::Raw(bits))
    }
}
