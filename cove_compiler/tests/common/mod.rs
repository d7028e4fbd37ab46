//! Helpers shared by the compiler's integration tests.
#![allow(dead_code)]

use cove_ir::program::Program;

/// The printed form of a program, for snapshots: `cove_ir`'s printer, which
/// shows the source beside the code, and the locals and reference map of
/// each function. The program must verify: the compiler does not verify
/// what it emits, so its tests do.
pub fn dump(program: &Program) -> String {
    assert_eq!(
        cove_ir::verify::errors(program),
        vec![],
        "the program verifies"
    );
    cove_ir::print::program(program)
}
