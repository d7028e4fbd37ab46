//! Helpers shared by the compiler's integration tests.
#![allow(dead_code)]

use cove_ir::program::Program;

/// The printed form of a program, for snapshots: `cove_ir`'s printer, which
/// shows the source beside the code, and the locals and reference map of
/// each function.
pub fn dump(program: &Program) -> String {
    cove_ir::print::program(program)
}
