//! Internal compiler errors: a bug of the compiler's own, reported as a
//! diagnostic (code `E9000`) rather than as a panic.
//!
//! The compiler catches its own panics (see `on_own_stack`) and reports
//! them here. It does not verify the programs it emits: `cove_ir`'s
//! verifier runs once between source and run, where the program is run
//! (`cove_runtime::Vm::new`), so a program the compiler got wrong is
//! refused there with the verifier's fault, and the compiler's tests
//! verify what it emits themselves. Verifying here as well would prove
//! every program twice on its way to a run, for a check that finds
//! something only when the compiler has a bug, which is what its tests are
//! for.

use cove_ir::program::Program;

use crate::diagnostics::{Diagnostics, Pending};

/// An internal compiler error about module `module`, as a diagnostic.
pub(crate) fn error(program: &Program, module: &str, message: &str) -> Diagnostics {
    let mut diags = Diagnostics::new();
    let (path, source) = program
        .modules
        .iter()
        .find(|m| m.name == module)
        .map_or((format!("{module}.cove"), String::new()), |m| {
            (m.path.clone(), m.source.clone())
        });
    let file = diags.add_file(&path, &source);
    diags.push(
        file,
        Pending::new(
            "E9000",
            0..0,
            format!("internal compiler error: {message}"),
            "the compiler produced an invalid program for this module",
        )
        .help("this is a bug in the Cove compiler; please report it with the source"),
    );
    diags
}
