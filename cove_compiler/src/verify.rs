//! The last check before a program leaves the compiler.
//!
//! A program the compiler emits must be well formed: if it is not, that is
//! a bug in the compiler, and it is reported as an internal error (a
//! diagnostic with code `E9000`) rather than handed to a VM that trusts it.

use cove_ir::op::Instr;
use cove_ir::program::Program;

use crate::diagnostics::{Diagnostics, Pending};

/// Checks the shape of every function; an error names the function.
pub(crate) fn check(program: &Program) -> Result<(), Diagnostics> {
    for f in &program.functions {
        let problem = if f.code.len() != f.lines.len() {
            Some("the line table does not cover every instruction".to_string())
        } else if f.refs.len() != f.registers as usize {
            Some("the reference map does not cover every register".to_string())
        } else if !matches!(
            f.code.last(),
            Some(Instr::Return { .. } | Instr::ReturnUnit {} | Instr::Jump { .. })
        ) {
            Some("the code does not end in a return or jump".to_string())
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(internal(
                program,
                &f.module,
                &format!("{}: {problem}", f.qualified),
            ));
        }
    }
    Ok(())
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
