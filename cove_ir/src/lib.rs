//! The Cove program model and instruction set.
//!
//! `cove_ir` is the contract between the compiler, which produces a
//! [`Program`](program::Program), and everything that reads one: the
//! verifier, the virtual machine, a debugger, a profiler. It depends on no
//! other Cove crate, so any of them can be replaced without touching it.
//!
//! - [`program`]: `Program`, `Function`, `FunctionId` and the tables they index.
//! - [`op`]: the instruction set, defined once (`Instr`, `Opcode`).
//! - [`types`]: the types the IR records, for layout and display.
//! - [`builtins`]: the catalogue of builtin functions and methods.

pub mod builtins;
pub mod op;
pub mod parse;
pub mod print;
pub mod program;
pub mod types;
pub mod verify;
