//! The exit statuses of `cove`, one number per way a command can end.
//!
//! Chosen so that a script can tell the cases apart without reading stderr.
//! The program's own status passes through when it is in 0..=63 and is 64
//! otherwise (the one rule, [`cove_runtime::program_status`]); a compile error is 1
//! and a usage error clap's 2 (as is `cove diff` refusing two different
//! programs); how a *run* ended is numbered by the runtime
//! itself ([`cove_runtime::ErrorKind::exit_code`]: 70 for a fault of the
//! program, 74 for I/O, 124–128 for the limits, a deadlock and a halt, 130
//! for an interrupt, as a shell reports Ctrl-C), so the VM, which knows what
//! each fault is, decides, and this crate does not keep a second table. A
//! report `cove` cannot write is an I/O error too, 74, and a run stopped
//! because its output was closed is 141 (see [`crate::pipe`]). A program
//! cannot return any of these: 64 and up are `cove`'s alone.
//! `cove --help` prints the table, and a test holds it to the runtime's.

use std::process::ExitCode;

/// How a `cove` command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The program's own status: main's `Int`, `exit(n)`, or 0.
    Program(i64),
    /// The program did not compile.
    CompileError,
    /// The run ended in a runtime error; the status the runtime gives it.
    Run(i32),
    /// A file `cove` itself reads or writes (a report, a profile to
    /// compare) could not be read or written.
    IoError,
    /// A file `cove diff` was given is not a profile.
    BadInput,
    /// `cove diff` was given profiles of two different programs and no
    /// `--force`: a usage error, 2, as clap's own are, since what is wrong
    /// is what was asked, not the files.
    Refused,
    /// `cove fmt` found a file that is not formatted (under `--check`), or
    /// one it could not format.
    Unformatted,
    /// The program's output was closed (`cove run prog.cove | head`) and
    /// the run was stopped for it: 141, what a shell reports for a process
    /// `SIGPIPE` ended (see [`crate::pipe`]).
    ClosedPipe,
}

impl Status {
    /// Success.
    pub const OK: Status = Status::Program(0);

    /// The status of a run that was interrupted, for the second Ctrl-C,
    /// which does not wait for the run to say so.
    pub const INTERRUPTED: Status = Status::Run(130);

    /// The number the process exits with.
    ///
    /// A program's status passes through when it is one a program may
    /// use (0 to 63, [`cove_runtime::PROGRAM_STATUSES`]); any other is 64
    /// ([`cove_runtime::STATUS_OUT_OF_RANGE`]), so that it cannot pass for
    /// one of `cove`'s own (a 101 for a panic, a 125 for the heap limit).
    /// [`crate::run::ending`] says on stderr which number the program gave.
    pub fn code(self) -> u8 {
        match self {
            Status::Program(n) => cove_runtime::program_status(n) as u8,
            Status::CompileError => 1,
            Status::Run(n) => (n & 0xff) as u8,
            Status::IoError => 74,
            Status::BadInput => 65,
            Status::Refused => 2,
            Status::Unformatted => 1,
            Status::ClosedPipe => 141,
        }
    }
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> ExitCode {
        ExitCode::from(status.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_programs_status_outside_0_to_63_is_64_and_never_one_of_coves_own() {
        assert_eq!(Status::Program(3).code(), 3);
        assert_eq!(Status::Program(63).code(), 63);
        for status in [64, 65, 70, 101, 125, 128, 130, 141, 256, -1] {
            assert_eq!(Status::Program(status).code(), 64, "{status}");
        }
    }

    #[test]
    fn a_compile_error_is_neither_success_nor_a_usage_error_nor_a_run_status() {
        assert_eq!(Status::CompileError.code(), 1);
        assert_ne!(Status::CompileError.code(), Status::OK.code());
        assert_ne!(Status::CompileError.code(), 2, "2 is clap's usage error");
    }
}
