//! The `cove` command: run, check, disassemble, profile and debug Cove programs.
//!
//! This crate is glue and presentation. The compiler turns a file into a
//! program, the runtime runs it, the profiler watches it through the
//! debugger seam and renders its reports; what lives here is the grammar of
//! the command line ([`cli`]), where output goes, colours, Ctrl-C, the
//! progress line, and one exit status per way a command can end
//! ([`status`]). No language or VM logic: a question about what a program
//! means is the compiler's, and about what a run did is the runtime's.

mod alloc;
mod bench;
#[cfg(feature = "profiler")]
mod calibrate;
mod check;
mod cli;
mod compile;
#[cfg(feature = "profiler")]
mod debug;
#[cfg(feature = "profiler")]
mod diff;
mod disasm;
mod fmt;
mod interrupt;
mod output;
mod pipe;
#[cfg(feature = "profiler")]
mod profile;
#[cfg(feature = "profiler")]
mod progress;
#[cfg(feature = "profiler")]
mod replay;
mod report_file;
#[cfg(feature = "profiler")]
mod rerun;
mod run;
mod status;
mod style;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

/// The system's allocator, with one more try after a refusal (`alloc.rs`).
#[global_allocator]
static ALLOCATOR: alloc::Rescuing = alloc::Rescuing;

fn main() -> ExitCode {
    // Before any thread is started, which is when the C allocator settles
    // how many arenas it may make.
    alloc::cap_arenas();
    // Then, so that a Ctrl-C during the parse of a large file, `cove
    // fmt` or `cove check` ends with the interrupted status too.
    interrupt::install();
    let cli = Cli::parse();
    let status = match &cli.command {
        Command::Run(args) => run::run(args),
        Command::Check(args) => check::check(args),
        Command::Disasm(args) => disasm::disasm(args),
        Command::Fmt(args) => fmt::fmt(args),
        #[cfg(feature = "profiler")]
        Command::Profile(args) => profile::profile(args, cli::Format::Table),
        #[cfg(feature = "profiler")]
        Command::Annotate(args) => profile::profile(args, cli::Format::Annotate),
        #[cfg(feature = "profiler")]
        Command::Diff(args) => diff::diff(args),
        #[cfg(feature = "profiler")]
        Command::Debug(args) => debug::debug(args),
        Command::BenchRun(args) => bench::bench_run(args),
    };
    status.into()
}
