//! The Cove virtual machine: the dispatch loop, the garbage-collected heap,
//! the builtins, tasks, and the debugger seam.
//!
//! A compiled [`cove_ir::program::Program`] runs on a [`Vm`]: a register
//! machine with typed opcodes, untyped 64-bit register slots, frames on a
//! heap-allocated stack, and a precise copying collector whose roots come
//! from each function's reference map. Errors are values ([`RunError`]) with
//! a Cove backtrace; every bound (fuel, heap, call depth, tasks) lives in
//! [`Limits`]; another thread can end a run with an [`InterruptHandle`].
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use cove_runtime::{Value, Vm};
//!
//! let source = "export fn main() -> Int {\n  var total = 0\n  for i in 0..10 {\n    total += i\n  }\n  println(\"total={total}\")\n  total\n}\n";
//! let program = cove_compiler::compile_module("m", source).expect("it compiles");
//!
//! // Capture what the program prints.
//! #[derive(Clone, Default)]
//! struct Captured(Arc<Mutex<Vec<u8>>>);
//! impl std::io::Write for Captured {
//!     fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
//!         self.0.lock().unwrap().extend_from_slice(buf);
//!         Ok(buf.len())
//!     }
//!     fn flush(&mut self) -> std::io::Result<()> { Ok(()) }
//! }
//! let out = Captured::default();
//!
//! let mut vm = Vm::new(&program).with_output(Box::new(out.clone()));
//! assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(45)));
//! assert_eq!(out.0.lock().unwrap().as_slice(), b"total=45\n");
//! ```
//!
//! A program can also be written in the IR's printed form, which makes the
//! instruction count of a run easy to reason about:
//!
//! ```
//! use cove_runtime::{ErrorKind, Limits, Value, Vm};
//!
//! // `fn count(n: Int) -> Int`: counts down from n, one turn a loop.
//! let text = "module m \"m.cove\"\n\
//!             fn f0 count in m export\n  params t2\n  result t2\n  registers 1\n  refs\n\
//!             @0  jump-le.int.imm r0, 0, @3\n\
//!             @1  add.int.imm r0, r0, -1\n\
//!             @2  jump @0\n\
//!             @3  return r0\n";
//! let program = cove_ir::parse::program(text).expect("it parses");
//!
//! let mut vm = Vm::new(&program);
//! assert_eq!(vm.run_entry("m", "count", vec![Value::Int(10)]), Ok(Value::Int(0)));
//! assert_eq!(vm.instructions(), 10 * 3 + 2);
//!
//! // The same program, given less fuel than it needs.
//! let limits = Limits { fuel: Some(100), ..Limits::default() };
//! let mut starved = Vm::new(&program).with_limits(limits);
//! let error = starved.run_entry("m", "count", vec![Value::Int(1_000)]).unwrap_err();
//! assert_eq!(error.kind, ErrorKind::OutOfFuel);
//! assert_eq!(starved.instructions(), 100);
//! ```
//!
//! # What a run costs
//!
//! A run with no debugger installed executes a loop that contains no
//! debugger code (see [`vm::exec`]); the instruction count
//! [`Vm::instructions`] comes from the safepoint countdown the loop keeps
//! anyway. A debugger ([`vm::debug::Debugger`]) is called before every
//! instruction, which is what a profiler is built on.

// Every `pub` item is part of the API an embedder sees; anything else is
// `pub(crate)`, so the lint keeps the two from drifting apart.
#![warn(unreachable_pub)]

mod error;
mod heap;
mod limits;
mod value;
pub mod vm;

pub use error::{
    BacktraceFrame, BacktraceLine, ErrorKind, PROGRAM_STATUSES, RunError, STATUS_OUT_OF_RANGE,
    program_status,
};
pub use heap::reserve::rescue as rescue_memory;
pub use limits::{DEFAULT_MAX_HEAP_WORDS, InterruptHandle, Limits, SPAWN_FUEL, WORK_PER_FUEL};
pub use value::{ChannelHandle, TaskHandle, Value};
pub use vm::Vm;
