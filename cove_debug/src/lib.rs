//! The Cove debugger's engine: the debugger that stops, on the same seam
//! the profiler watches through.
//!
//! [`Engine`] is a [`cove_runtime::vm::debug::Debugger`]: called before
//! every instruction, it decides from its breakpoints, the step in progress
//! and a pause flag whether the task stops, and when it does, it parks the
//! task and hands a [`Snapshot`] of its frames to the front end. [`Session`]
//! runs a program under it on a thread of its own and is what the `cove
//! debug` terminal and DAP front ends drive. A session can also carry a
//! [`cove_profile::Profiler`], every stop forwarded to it, so a stopped run
//! can show its exact profile so far: a debugger that also counts, composed
//! on the seam without the runtime knowing.
//!
//! - [`breakpoints`]: `FILE:LINE`, `LINE` and function names resolved to
//!   instructions;
//! - [`expr`]: the expressions `print` and conditions evaluate;
//! - [`render`]: values with their Cove types, bounded;
//! - [`snapshot`]: what a stopped task looked like;
//! - [`engine`], [`session`]: deciding and waiting, and the run's thread.
//!
//! ```
//! use std::sync::{Arc, mpsc};
//! use cove_debug::{Event, Mode, NewBreakpoint, Session};
//!
//! let source = "fn add(a: Int, b: Int) -> Int {\n  a + b\n}\n\nfn main() -> Int {\n  add(40, 2)\n}\n";
//! let program = Arc::new(cove_compiler::compile_module("m", source).unwrap());
//! let (events, received) = mpsc::channel();
//! let mut session = Session::new(program, move |e| { let _ = events.send(e); });
//! session.engine().add_breakpoint(NewBreakpoint { spec: "m.cove:2".into(), ..Default::default() }, "m").unwrap();
//! session.start(false).unwrap();
//! let Ok(Event::Stopped(stop)) = received.recv() else { panic!("no stop") };
//! assert_eq!(stop.frames[0].name, "m.add");
//! assert_eq!(stop.frames[1].name, "m.main");
//! session.resume(Mode::Continue);
//! let Ok(Event::Exited { result, .. }) = received.recv() else { panic!("no end") };
//! assert_eq!(result, Ok(cove_runtime::Value::Int(42)));
//! ```

// Every `pub` item is part of the API an embedder sees; anything else is
// `pub(crate)`, so the lint keeps the two from drifting apart.
#![warn(unreachable_pub)]

pub mod breakpoints;
pub mod engine;
pub mod expr;
pub mod render;
pub mod session;
pub mod snapshot;

pub use engine::{Breakpoint, Command, Engine, Event, HitCondition, Mode, NewBreakpoint};
pub use session::Session;
pub use snapshot::{FrameView, Reason, Snapshot, Variable};
