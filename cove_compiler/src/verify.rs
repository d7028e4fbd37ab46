//! The last check before a program leaves the compiler.
//!
//! Every program the compiler emits goes through `cove_ir`'s verifier, the
//! checks the VM relies on to run without its own. A program it rejects is
//! a bug in the compiler, and it is reported as an internal error (a
//! diagnostic with code `E9000` naming the function, pc and instruction)
//! rather than handed to a VM that trusts it, and never as a panic.

use cove_ir::program::Program;

use crate::diagnostics::{Diagnostics, Pending};

/// Runs the verifier; every fault becomes an internal-error diagnostic.
pub(crate) fn check(program: &Program) -> Result<(), Diagnostics> {
    let errors = cove_ir::verify::errors(program);
    let Some(first) = errors.first() else {
        return Ok(());
    };
    let module = first
        .function
        .and_then(|f| program.functions.get(f.index()))
        .map_or_else(
            || {
                program
                    .modules
                    .last()
                    .map(|m| m.name.clone())
                    .unwrap_or_default()
            },
            |f| f.module.clone(),
        );
    let messages: Vec<String> = errors.iter().take(5).map(|e| e.to_string()).collect();
    Err(internal(program, &module, &messages.join("; ")))
}

/// An internal compiler error about module `module`, as a diagnostic.
pub(crate) fn internal(program: &Program, module: &str, message: &str) -> Diagnostics {
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
