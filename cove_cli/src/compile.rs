//! Compiling the file a command names, with its diagnostics rendered.
//!
//! Every command starts here. The compiler finds the modules the entry
//! imports beside it and reports every error in all of them at once; this
//! module only prints that report to stderr (coloured on a terminal) and turns it into the compile
//! error status, so `check`, `run`, `disasm` and `profile` fail alike.

use std::path::Path;

use cove_ir::program::Program;

use crate::pipe;
use crate::status::Status;
use crate::style::Style;

/// The program `file` is the entry of, or [`Status::CompileError`] after
/// every diagnostic has been printed to stderr.
pub fn compile(file: &Path) -> Result<Program, Status> {
    cove_compiler::compile_files(file).map_err(|diagnostics| {
        let text = diagnostics.render(Style::stderr().colored());
        let end = if text.ends_with('\n') { "" } else { "\n" };
        pipe::eprint(format_args!("{text}{end}"));
        Status::CompileError
    })
}

/// The name of the module `main` is looked up in: the entry module, which
/// the compiler puts last.
pub fn entry_module(program: &Program) -> &str {
    program.modules.last().map_or("main", |m| m.name.as_str())
}

/// The program `file` is the entry of, compiled, when it has a `main` to
/// run; otherwise [`Status::CompileError`] after saying what is missing.
///
/// The compiler accepts a file without `main` (a module is one), so a
/// command that runs the file checks for it here, where the message can
/// name the command's file rather than an entry point.
pub fn compile_runnable(file: &Path) -> Result<Program, Status> {
    let program = compile(file)?;
    if program
        .find_function(entry_module(&program), crate::run::MAIN)
        .is_none()
    {
        pipe::eprint(format_args!(
            "{}: {} has no `main` to run: write `export fn main()` or `export fn main() -> Int`\n",
            Style::stderr().error("error"),
            file.display()
        ));
        return Err(Status::CompileError);
    }
    Ok(program)
}
