//! Compiling the file a command names, with its diagnostics rendered.
//!
//! Every command starts here. The compiler finds the modules the entry
//! imports beside it and reports every error in all of them at once; this
//! module only prints that report to stderr (coloured on a terminal) and turns it into the compile
//! error status, so `check`, `run`, `disasm` and `profile` fail alike.
//!
//! Two things are settled here before the compiler sees the path. `-` is
//! the program read from stdin (`cove run -`), compiled as one module that
//! can import nothing, since stdin has no directory to find imports in. And
//! an entry file that cannot be read is an I/O error (exit 74) naming the
//! path and the system's reason, not a compile error at a made-up line: the
//! program is not wrong, it is not there. A missing *import* stays a
//! compile error, located at the `import` that names it.

use std::io::Read as _;
use std::path::Path;

use cove_ir::program::Program;

use crate::pipe;
use crate::status::Status;
use crate::style::Style;

/// The program `file` is the entry of, or [`Status::CompileError`] after
/// every diagnostic has been printed to stderr.
pub fn compile(file: &Path) -> Result<Program, Status> {
    compile_with_warnings(file).map(|(program, _)| program)
}

/// The program `file` is the entry of and its warnings, not yet printed;
/// or [`Status::CompileError`] after every error has been printed.
pub fn compile_with_warnings(file: &Path) -> Result<(Program, cove_compiler::Diagnostics), Status> {
    let compiled = if file == Path::new(STDIN) {
        let mut source = String::new();
        if let Err(why) = std::io::stdin().read_to_string(&mut source) {
            pipe::eprint(format_args!(
                "{}: cannot read the program from stdin: {why}\n",
                Style::stderr().error("error")
            ));
            return Err(Status::IoError);
        }
        cove_compiler::compile_module_with_warnings(STDIN_MODULE, &source).map(
            |(mut program, warnings)| {
                if let Some(module) = program.modules.last_mut() {
                    module.path = "<stdin>".to_string();
                }
                (program, warnings)
            },
        )
    } else {
        if let Err(why) = readable(file) {
            pipe::eprint(format_args!(
                "{}: cannot read {}: {why}\n",
                Style::stderr().error("error"),
                file.display()
            ));
            return Err(Status::IoError);
        }
        cove_compiler::compile_files_with_warnings(file)
    };
    compiled.map_err(|diagnostics| {
        let text = diagnostics.render(Style::stderr().colored());
        let end = if text.ends_with('\n') { "" } else { "\n" };
        pipe::eprint(format_args!("{text}{end}"));
        Status::CompileError
    })
}

/// The path that names stdin.
pub const STDIN: &str = "-";

/// What a program read from stdin is called: its functions are
/// `stdin.main` and so on, and its diagnostics name `stdin.cove`.
const STDIN_MODULE: &str = "stdin";

/// Whether `file` can be opened and read as a file, with the system's
/// reason if not.
fn readable(file: &Path) -> std::io::Result<()> {
    let opened = std::fs::File::open(file)?;
    if opened.metadata()?.is_dir() {
        return Err(std::io::Error::other("it is a directory"));
    }
    Ok(())
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
