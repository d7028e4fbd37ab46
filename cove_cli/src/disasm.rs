//! `cove disasm`: the IR of every function, with the source lines it came
//! from between the instructions.
//!
//! The listing is `cove_ir`'s printer's, function by function, so what this
//! prints is exactly the text a profile row or a runtime error names an
//! instruction by. Nothing is formatted here.

use std::io::Write;

use crate::cli::CheckArgs;
use crate::compile::compile;
use crate::status::Status;

/// Runs `cove disasm`.
pub fn disasm(args: &CheckArgs) -> Status {
    let program = match compile(&args.file) {
        Ok(program) => program,
        Err(status) => return status,
    };
    let mut listing = String::new();
    for (i, id) in program.function_ids().enumerate() {
        if i > 0 {
            listing.push('\n');
        }
        listing.push_str(&cove_ir::print::function(&program, id));
    }
    let mut out = std::io::stdout().lock();
    // A closed pipe (`cove disasm f.cove | head`) is not an error worth a
    // status of its own: the reader had what it wanted.
    let _ = out.write_all(listing.as_bytes());
    let _ = out.flush();
    Status::OK
}
