//! `cove check`: compile, report, run nothing.
//!
//! Silent on success, so it composes in scripts and editors: the status is
//! the answer, and the diagnostics on stderr are the details.

use crate::cli::CheckArgs;
use crate::compile::compile;
use crate::status::Status;

/// Runs `cove check`.
pub fn check(args: &CheckArgs) -> Status {
    match compile(&args.file) {
        Ok(_) => Status::OK,
        Err(status) => status,
    }
}
