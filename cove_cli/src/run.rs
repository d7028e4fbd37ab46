//! `cove run`, and what every command that runs a program shares: the
//! limits from the flags, Ctrl-C, the entry call, and turning how a run
//! ended into a message and an exit status.
//!
//! The statuses come from the runtime's own table
//! ([`ErrorKind::exit_code`]), so the VM decides what kind of ending each
//! fault is and the command line only reports it; the table is printed by
//! `cove --help` and tested against the runtime here.

use cove_ir::program::Program;
use cove_runtime::vm::debug::Debugger;
use cove_runtime::{ErrorKind, Limits, RunError, Value, Vm};

use crate::cli::{LimitArgs, RunArgs};
use crate::compile::{compile_runnable, entry_module};
use crate::interrupt;
use crate::output::ProgramOutput;
use crate::pipe::{self, Watched};
use crate::status::Status;
use crate::style::Style;

/// The function every program starts at.
pub const MAIN: &str = "main";

/// The runtime's limits, from the flags.
pub fn limits(flags: &LimitArgs) -> Limits {
    let mut limits = Limits {
        fuel: flags.fuel,
        max_heap_words: flags.max_heap.or(Limits::default().max_heap_words),
        gc_stress: flags.gc_stress,
        ..Limits::default()
    };
    if let Some(depth) = flags.max_depth {
        limits.max_call_depth = depth;
    }
    limits
}

/// A machine for `program`, with the limits and arguments of the command
/// line, which Ctrl-C interrupts, writing to stdout and stderr through
/// [`Watched`] so that a closed pipe stops the run; stdout buffered by line
/// on a terminal ([`ProgramOutput`]).
pub fn machine<'p>(program: &'p Program, flags: &LimitArgs, args: &[String]) -> Vm<'p> {
    let vm = Vm::new(program)
        .with_limits(limits(flags))
        .with_args(args.to_vec());
    interrupt::forward_to(vm.interrupt_handle());
    let out = watched(&vm, std::io::stdout());
    let err = watched(&vm, std::io::stderr());
    vm.with_output(Box::new(ProgramOutput::for_stdout(out)))
        .with_error_output(Box::new(err))
}

/// `stream`, watched for a closed pipe, which stops `vm`'s run.
pub fn watched<W: std::io::Write>(vm: &Vm<'_>, stream: W) -> Watched<W> {
    Watched::new(stream, vm.interrupt_handle())
}

/// Calls the program's `main` on `vm`.
pub fn call_main<D: Debugger + ?Sized>(
    vm: &mut Vm<'_, D>,
    program: &Program,
) -> Result<Value, RunError> {
    vm.run_entry(entry_module(program), MAIN, Vec::new())
}

/// Runs `cove run`.
pub fn run(args: &RunArgs) -> Status {
    args.program.warn_about_flags("run");
    let program = match compile_runnable(args.program.file()) {
        Ok(program) => program,
        Err(status) => return status,
    };
    let mut vm = machine(&program, &args.limits, args.program.args());
    let result = call_main(&mut vm, &program);
    interrupt::run_ended();
    ending(&program, result)
}

/// How a run ended, as an exit status, with anything worth saying printed
/// to stderr first.
///
/// `exit(n)` and main's value are the program's business and are not
/// announced; a fault is printed with its backtrace and the source line it
/// happened on; an interrupt says where the program was. A run whose
/// output was closed ends quietly with [`Status::ClosedPipe`], however it
/// ended: it was stopped for it, or would have been.
pub fn ending(program: &Program, result: Result<Value, RunError>) -> Status {
    if pipe::output_closed() {
        return Status::ClosedPipe;
    }
    match result {
        Ok(Value::Int(n)) => program_status("main returned", n),
        Ok(_) => Status::OK,
        Err(error) => match error.kind {
            ErrorKind::Exit(n) => program_status("the program called exit with", i64::from(n)),
            kind => {
                pipe::eprint(format_args!(
                    "{}",
                    describe(program, &error, Style::stderr())
                ));
                Status::Run(kind.exit_code())
            }
        },
    }
}

/// The program's own status `n`, and a word on stderr when it is outside
/// the statuses a program may use ([`cove_runtime::PROGRAM_STATUSES`]):
/// the process then exits with 64, and this says what the program gave.
fn program_status(how: &str, n: i64) -> Status {
    if !cove_runtime::PROGRAM_STATUSES.contains(&n) {
        pipe::eprint(format_args!(
            "cove: {how} status {n}, outside 0..=63 (the statuses a program may use); \
             exiting with {}\n",
            cove_runtime::STATUS_OUT_OF_RANGE
        ));
    }
    Status::Program(n)
}

/// A runtime error as `cove` prints it: the message, the line it happened
/// on, and the Cove backtrace, innermost first, shortened as the runtime
/// shortens a long one ([`RunError::backtrace_lines`]).
pub fn describe(program: &Program, error: &RunError, style: Style) -> String {
    // The one thing that interrupts a run of the command line is Ctrl-C,
    // so say so rather than repeat the runtime's bare "interrupted".
    let mut text = match error.kind {
        ErrorKind::Interrupted => format!(
            "{}: Ctrl-C stopped the run here\n",
            style.warn("interrupted")
        ),
        _ => format!("{}: {}\n", style.error("error"), error.message),
    };
    if let Some(frame) = error.backtrace.first() {
        let source = program
            .modules
            .iter()
            .find(|m| m.path == frame.path)
            .zip(frame.line)
            .and_then(|(module, line)| Some((line, module.line_text(line)?)));
        if let Some((line, source)) = source {
            let number = line.to_string();
            let gutter = " ".repeat(number.len());
            text.push_str(&style.dim(&format!("{gutter} |\n")));
            text.push_str(&format!(
                "{} {}\n",
                style.dim(&format!("{number} |")),
                source
            ));
            text.push_str(&style.dim(&format!("{gutter} |\n")));
        }
    }
    // The runtime decides which frames a report shows, so a runaway
    // recursion reads the same here as in the error's `Display`.
    for line in error.backtrace_lines() {
        text.push_str(&style.dim(&line.to_string()));
        text.push('\n');
    }
    text
}
