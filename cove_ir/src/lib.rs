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
//! - [`print`](mod@print): one instruction, a function or a whole program as text.
//! - [`parse`]: the printed form read back, so that text is a program too.
//! - [`verify`]: the checks after which the VM may trust a program.
//!
//! # Example
//!
//! Build a function that returns 40 + 2, verify it, and print an
//! instruction the way a profile or a backtrace names it:
//!
//! ```
//! use cove_ir::op::Instr;
//! use cove_ir::program::{Function, Program};
//! use cove_ir::{parse, print, verify};
//!
//! let mut program = Program::new();
//! let mut main = Function::new("m", "main");
//! main.exported = true;
//! main.result = Program::INT;
//! let a = main.add_register(false); // a num register: it holds an Int
//! let b = main.add_register(false);
//! main.emit(Instr::LoadInt { dst: a, value: 40 }, 1);
//! main.emit(Instr::AddIntImm { dst: b, a, value: 2 }, 1);
//! main.emit(Instr::Return { src: b }, 1);
//! let id = program.add_function(main);
//!
//! verify::program(&program)?;
//! assert_eq!(print::one(&program, id, 1), "m.main@1  add.int.imm r1, r0, 2");
//!
//! // The printed program is a faithful encoding: it parses back to the same value.
//! let text = print::program(&program);
//! assert_eq!(parse::program(&text)?, program);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Every `pub` item is part of the API an embedder sees; anything else is
// `pub(crate)`, so the lint keeps the two from drifting apart.
#![warn(unreachable_pub)]

pub mod builtins;
pub mod format;
pub mod op;
pub mod parse;
pub mod print;
pub mod program;
pub mod types;
pub mod verify;
