//! What a stopped task looked like: its frames, each with its function,
//! place and typed locals, copied out of the machine while it waits.
//!
//! A [`Stop`] lives only as long as the debugger's `at` call, on the task's
//! own thread, and the front ends (a terminal prompt, a DAP server) run on
//! other threads. So when the engine stops it takes one `Snapshot`: every
//! frame's locals deep-copied into host [`Value`]s with the Cove type the
//! debug information gives them. Everything a front end shows until the
//! task resumes (`backtrace`, `frame N`, `print`, `info locals`, DAP
//! `stackTrace`, `scopes`, `variables`) is answered from it without going
//! back to the machine.
//!
//! # What it costs
//!
//! The copy is linear in what the locals of every frame hold, paid once a
//! stop, and only at a stop (never per instruction). A local holding a
//! million-element list copies a million elements; that is the price of a
//! front end that can inspect while the task stays parked, and a stop is a
//! human's pace.

use cove_ir::program::{FunctionId, Program};
use cove_ir::types::TypeId;
use cove_runtime::vm::debug::Stop;
use cove_runtime::{ErrorKind, Value};

use crate::expr::{Scope, Typed};

/// Why a task stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// Before the program's first instruction.
    Entry,
    /// At breakpoints, by their numbers.
    Breakpoint(Vec<u32>),
    /// A `step`, `next`, `finish` or `stepi` finished.
    Step,
    /// Asked from outside (Ctrl-C, DAP `pause`).
    Pause,
    /// At a runtime error, before the run ends.
    Fault {
        /// What went wrong.
        kind: ErrorKind,
        /// The error's message.
        message: String,
    },
    /// A breakpoint's condition could not be evaluated.
    ConditionFailed {
        /// The breakpoint's number.
        breakpoint: u32,
        /// Why.
        message: String,
    },
}

/// A local variable in a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// Its name in the source.
    pub name: String,
    /// Its Cove type.
    pub ty: TypeId,
    /// Its value when the task stopped.
    pub value: Value,
}

/// One frame of a stopped task.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameView {
    /// The function.
    pub function: FunctionId,
    /// `module.function`.
    pub name: String,
    /// The instruction about to run (innermost frame) or the call it is in.
    pub pc: u32,
    /// The source line of `pc`.
    pub line: Option<u32>,
    /// The module's source path.
    pub path: String,
    /// The named locals live at `pc`, in declaration order.
    pub locals: Vec<Variable>,
}

impl Scope for FrameView {
    fn lookup(&self, name: &str) -> Option<Typed> {
        self.locals
            .iter()
            .find(|v| v.name == name)
            .map(|v| (v.value.clone(), Some(v.ty)))
    }
}

/// A stopped task.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// Which run of the session this is (see [`crate::Session::run`]).
    pub run: u64,
    /// The task: 0 for the one `main` runs on.
    pub task: u32,
    /// Why it stopped.
    pub reason: Reason,
    /// Its frames, innermost first.
    pub frames: Vec<FrameView>,
}

impl Snapshot {
    /// Copies out what `stop` shows.
    pub fn take(stop: &Stop<'_>, reason: Reason, run: u64) -> Snapshot {
        let program = stop.program();
        let frames = stop
            .frames()
            .map(|frame| {
                let id = frame.function_id();
                let function = program.function(id);
                let pc = frame.pc();
                let locals = function
                    .locals
                    .iter()
                    .filter(|l| l.live.contains(&pc))
                    .map(|l| Variable {
                        name: l.name.clone(),
                        ty: l.ty,
                        value: frame.value(l.register.0),
                    })
                    .collect();
                FrameView {
                    function: id,
                    name: program.function_name(id).to_string(),
                    pc,
                    line: frame.line(),
                    path: path_of(program, id),
                    locals,
                }
            })
            .collect();
        Snapshot {
            run,
            task: stop.task(),
            reason,
            frames,
        }
    }

    /// The innermost frame.
    pub fn top(&self) -> Option<&FrameView> {
        self.frames.first()
    }
}

/// The source path of the module that defines `id`.
pub fn path_of(program: &Program, id: FunctionId) -> String {
    program
        .module(&program.function(id).module)
        .map(|m| m.path.clone())
        .unwrap_or_default()
}
