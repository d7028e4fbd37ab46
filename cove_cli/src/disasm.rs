//! `cove disasm`: the IR of every function, with the source lines it came
//! from between the instructions.
//!
//! The listing is `cove_ir`'s printer's, function by function, so what this
//! prints is exactly the text a profile row or a runtime error names an
//! instruction by. Nothing is formatted here.

use crate::cli::CheckArgs;
use crate::compile::compile;
use crate::pipe;
use crate::status::Status;
use crate::style::Style;

/// Runs `cove disasm`.
pub fn disasm(args: &CheckArgs) -> Status {
    let program = match compile(&args.file) {
        Ok(program) => program,
        Err(status) => return status,
    };
    // One printer for every function, so that each module's source is
    // split into lines once rather than once a function.
    let printer = cove_ir::print::Printer::new(&program);
    let mut listing = String::new();
    for (i, id) in program.function_ids().enumerate() {
        if i > 0 {
            listing.push('\n');
        }
        listing.push_str(&printer.function(id));
    }
    // A closed pipe (`cove disasm f.cove | head`) is not an error worth a
    // status of its own: the reader had what it wanted.
    match pipe::stdout(listing.as_bytes()) {
        Ok(()) => Status::OK,
        Err(e) => {
            let error = Style::stderr().error("error");
            pipe::eprint(format_args!("{error}: stdout: {e}\n"));
            Status::IoError
        }
    }
}
