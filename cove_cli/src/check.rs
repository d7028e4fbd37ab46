//! `cove check`: compile, report, run nothing.
//!
//! Silent on success, so it composes in scripts and editors: the status is
//! the answer, and the diagnostics on stderr are the details. Warnings
//! (unused names, `var`s never assigned again) are printed too, and fail
//! the check only under `--deny-warnings`. `check` is the one command that
//! prints them: `cove run` and the others stay quiet about a program that
//! compiles, so a run's stderr is the program's own.

use crate::cli::CheckOptions;
use crate::compile::compile_with_warnings;
use crate::pipe;
use crate::status::Status;
use crate::style::Style;

/// Runs `cove check`.
pub fn check(args: &CheckOptions) -> Status {
    match compile_with_warnings(&args.program.file) {
        Ok((_, warnings)) if warnings.is_empty() => Status::OK,
        Ok((_, warnings)) => {
            let text = warnings.render(Style::stderr().colored());
            let end = if text.ends_with('\n') { "" } else { "\n" };
            pipe::eprint(format_args!("{text}{end}"));
            if args.deny_warnings {
                Status::CompileError
            } else {
                Status::OK
            }
        }
        Err(status) => status,
    }
}
