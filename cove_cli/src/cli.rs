//! The command line's grammar: every subcommand, flag and help text.
//!
//! Declared with `clap`'s derive so that the grammar, the `--help` pages and
//! the usage errors are one definition. Nothing here does any work; `main`
//! hands the parsed [`Cli`] to the module of the subcommand it names.

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};

/// The exit statuses, as `cove --help` prints them. `crate::status` and the
/// runtime's `ErrorKind::exit_code` define the numbers; a test holds this
/// text to them.
macro_rules! exit_statuses {
    () => {
        "\
Exit status:
  0    success, or the program's own status: main's Int, or n of exit(n)
  1    the program did not compile (check, run, profile, disasm),
       or has no main to run
  2    usage error: an unknown flag, a missing argument
  64   the program gave an exit status outside 0..=63 (said on stderr)
  65   bad data: the compiled program failed verification (a compiler
       bug), or a file given to cove diff is not a JSON profile
  70   runtime error: a fault of the program (division by zero, overflow,
       an index out of range, unwrap of None, a failed assert, ...)
  74   I/O error: a file the program reads or writes, the report (-o),
       or a profile cove diff reads
  124  out of fuel (--fuel)
  125  over the heap limit (--max-heap)
  126  calls nested deeper than the limit (--max-depth)
  127  deadlock: every task of the program was waiting on another
  128  a debugger halted the run
  130  interrupted (Ctrl-C); a second Ctrl-C exits at once
  141  the program's output was closed (cove run prog.cove | head):
       the run was stopped, quietly, as SIGPIPE stops a Unix tool
A program's own status (exit(n), main's Int) passes through if it is in
0..=63; any other is reported on stderr and cove exits with 64, so a
program can never pass for one of the statuses above.

Environment:
  NO_COLOR         set: never colour the output
  COVE_FAKE_CLOCK  set to 1: time profiles by a deterministic clock (tests)
  COVE_GC_STRESS   set to 1: collect garbage at every allocation"
    };
}

/// Cove: run, check, disassemble and profile Cove programs.
#[derive(Debug, Parser)]
#[command(
    name = "cove",
    version,
    about = "Run, check, disassemble and profile Cove programs",
    long_about = "Run, check, disassemble and profile Cove programs.\n\n\
                  Cove is a small, statically typed scripting language with a \
                  profiler that counts every instruction a run executes.",
    after_help = concat!(
        "Examples:\n",
        "  cove run examples/hello.cove\n",
        "  cove run examples/wordfreq.cove examples/wordfreq.txt\n",
        "  cove check examples/fails.cove\n",
        "  cove disasm examples/fib.cove\n",
        "  cove profile examples/covefmt/main.cove --check examples/covefmt/*.cove\n",
        "  cove profile --format svg -o fib.svg examples/fib.cove\n\n",
        "`cove --help` also lists the exit statuses.",
    ),
    after_long_help = concat!(
        "Examples:\n",
        "  cove run examples/hello.cove\n",
        "  cove run examples/wordfreq.cove examples/wordfreq.txt\n",
        "  cove check examples/fails.cove\n",
        "  cove disasm examples/fib.cove\n",
        "  cove profile examples/covefmt/main.cove --check examples/covefmt/*.cove\n",
        "  cove profile --format svg -o fib.svg examples/fib.cove\n\n",
        exit_statuses!(),
    ),
    propagate_version = true
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compile a program and run its main function.
    #[command(after_help = concat!(
        "Examples:\n",
        "  cove run examples/hello.cove\n",
        "  cove run examples/wordfreq.cove examples/wordfreq.txt\n",
        "  cove run --fuel 1000000 examples/fib.cove\n",
        "  cove run --max-heap 100000 --max-depth 500 examples/fails.cove\n\n",
        "main's Int is the exit status; fn main() exits with 0. A runtime error\n",
        "prints its message and the Cove backtrace to stderr and exits with 70;\n",
        "Ctrl-C ends the run at its next safepoint and exits with 130.",
    ))]
    Run(RunArgs),

    /// Compile a program and report every error, running nothing.
    #[command(after_help = concat!(
        "Examples:\n",
        "  cove check examples/hello.cove      # silent, exit 0\n",
        "  cove check broken.cove              # every error with file:line:col, exit 1",
    ))]
    Check(CheckArgs),

    /// Print the IR of every function, with the source lines interleaved.
    #[command(after_help = concat!(
        "Examples:\n",
        "  cove disasm examples/fib.cove\n",
        "  cove disasm examples/covefmt/main.cove | less",
    ))]
    Disasm(CheckArgs),

    /// Run a program under the profiler and report where the run went.
    #[cfg(feature = "profiler")]
    #[command(after_help = concat!(
        "Examples:\n",
        "  cove profile examples/fib.cove                       # table by function\n",
        "  cove profile --by instruction --top 10 examples/fib.cove\n",
        "  cove profile --format json -o before.json examples/covefmt/main.cove --check examples/covefmt/*.cove\n",
        "  cove profile --format callgrind -o callgrind.out.fib examples/fib.cove\n",
        "  cove profile --format folded examples/fib.cove | flamegraph.pl > fib.svg\n",
        "  cove profile --format svg --metric words -o fib.svg examples/fib.cove\n\n",
        "Where the output goes: the program's own output is never mixed with a\n",
        "report. With -o PATH the report goes to PATH and stdout is the program's.\n",
        "Without -o, a table is printed to stdout after the program has finished;\n",
        "any other format goes to stdout too, and the program's own stdout is then\n",
        "sent to stderr so that what stdout carries is only the report.\n\n",
        "The profile covers the task the program started on; --follow-tasks adds\n",
        "every task it spawns. Ctrl-C ends the run and still writes the profile\n",
        "of what ran. While a profile runs and stderr is a terminal, a progress\n",
        "line on stderr counts the instructions so far.",
    ))]
    Profile(ProfileArgs),

    /// Compare two JSON profiles of the same program: what changed, and where.
    #[cfg(feature = "profiler")]
    #[command(after_help = concat!(
        "Examples:\n",
        "  cove profile --format json -o before.json examples/covefmt/main.cove --check examples/covefmt/*.cove\n",
        "  # ...change the program...\n",
        "  cove profile --format json -o after.json examples/covefmt/main.cove --check examples/covefmt/*.cove\n",
        "  cove diff before.json after.json",
    ))]
    Diff(DiffArgs),

    /// Run a program as `cargo xtask bench-overhead` measures it.
    ///
    /// Hidden: a benchmark harness, not a user command. It runs the program
    /// once with the debugger named by `--debugger`, prints nothing of its
    /// own, and exits with the program's status.
    #[command(hide = true)]
    BenchRun(BenchRunArgs),
}

/// `cove run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub program: Invocation,

    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The program a command runs, and its arguments: every word from FILE on.
///
/// One list rather than a FILE and an ARGS, so that everything after FILE
/// is the program's, flags included: `cove run covefmt.cove --check x.cove`
/// gives `--check` to the program, and `cove run p.cove --help` asks the
/// program for help, not `cove`. `cove`'s own flags go before FILE.
#[derive(Debug, Args)]
pub struct Invocation {
    /// The program (a .cove file; the modules it imports are found beside
    /// it), then its arguments: what its args() returns. Every word after
    /// FILE is the program's, flags included.
    #[arg(
        value_name = "FILE [ARGS]",
        required = true,
        num_args = 1..,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    words: Vec<String>,
}

impl Invocation {
    /// The program's file.
    pub fn file(&self) -> &Path {
        Path::new(self.words.first().map_or("", String::as_str))
    }

    /// The program's arguments.
    pub fn args(&self) -> &[String] {
        self.words.get(1..).unwrap_or(&[])
    }
}

/// The `Limits` of a run, shared by `run` and `profile`.
#[derive(Debug, Clone, Args)]
pub struct LimitArgs {
    /// End the run with an error once it has used N units of fuel, all its
    /// tasks together: one an instruction, plus one per 8 bytes of data a
    /// builtin or copy handles.
    #[arg(long, value_name = "N")]
    pub fuel: Option<u64>,

    /// End the run with an error once its heaps and stacks, all its tasks
    /// together, hold more than WORDS words [default: 268435456, 2 GiB].
    #[arg(long, value_name = "WORDS")]
    pub max_heap: Option<u64>,

    /// End the run with an error when calls nest deeper than N frames.
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,

    /// Collect garbage at every allocation (slow; finds collector bugs).
    #[arg(long)]
    pub gc_stress: bool,
}

/// `cove check` and `cove disasm`: a file and nothing else.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The program: a .cove file (modules it imports are found beside it).
    pub file: PathBuf,
}

/// How a profile report groups its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum By {
    /// One row per instruction, printed as the disassembler prints it.
    Instruction,
    /// One row per function, self and inclusive.
    Function,
    /// One row per opcode (add.int, call, ...).
    Opcode,
    /// One row per callee: the function a call names, the builtin a call-builtin names.
    Callee,
    /// One row per source line.
    Line,
    /// One row per caller and callee pair, with the calls made and their inclusive cost.
    Call,
}

/// The clock `cove profile` times instructions with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClockChoice {
    /// The system's monotonic clock.
    Real,
    /// The processor's time-stamp counter, scaled to nanoseconds.
    Counter,
}

/// The format of a profile report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// An aligned text table of the top rows.
    Table,
    /// The whole profile as JSON (what `cove diff` reads).
    Json,
    /// The callgrind format, for callgrind_annotate and KCachegrind.
    Callgrind,
    /// Folded stacks (`a;b;c N`), for flamegraph.pl, inferno and speedscope.
    Folded,
    /// A flame graph as an SVG image.
    Svg,
}

/// The figure folded stacks and flame graphs weigh a stack by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Metric {
    /// Instructions executed.
    Ran,
    /// Nanoseconds (the profiler's own overhead included; read as ratios).
    Nanos,
    /// Heap words allocated.
    Words,
    /// Heap objects allocated.
    Allocations,
}

/// `cove profile`.
#[cfg(feature = "profiler")]
#[derive(Debug, Args)]
pub struct ProfileArgs {
    #[command(flatten)]
    pub program: Invocation,

    /// How the table groups its rows (the other formats hold every grouping).
    #[arg(long, value_enum, default_value_t = By::Function)]
    pub by: By,

    /// Show only the N heaviest rows of the table (0 = all).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,

    /// The report's format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// Write the report to PATH instead of stdout (`-` is stdout).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,

    /// Profile every task the program spawns too, not only the first.
    #[arg(long)]
    pub follow_tasks: bool,

    /// The clock that times each instruction: `real` (the system's
    /// monotonic clock) or `counter` (the processor's time-stamp counter,
    /// several times cheaper to read, so the profiled run is faster; the
    /// real clock where there is no counter).
    #[arg(long, value_enum, default_value_t = ClockChoice::Real)]
    pub clock: ClockChoice,

    /// What folded stacks and flame graphs weigh a stack by, and what a
    /// table is sorted by.
    #[arg(long, value_enum, default_value_t = Metric::Ran)]
    pub metric: Metric,

    /// Time every instruction by a deterministic clock, for tests
    /// (same as COVE_FAKE_CLOCK=1).
    #[arg(long, hide = true)]
    pub fake_clock: bool,

    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `cove diff`.
#[cfg(feature = "profiler")]
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The profile before the change (from `cove profile --format json`).
    pub before: PathBuf,
    /// The profile after the change.
    pub after: PathBuf,
    /// Show only the N rows that changed most in each section (0 = all).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,
}

/// Which debugger `cove bench-run` installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchDebugger {
    /// None: the unwatched dispatch loop.
    Off,
    /// One that answers Go at every stop and does nothing else.
    Noop,
    /// The profiler.
    #[cfg(feature = "profiler")]
    Profiler,
}

/// `cove bench-run`.
#[derive(Debug, Args)]
pub struct BenchRunArgs {
    /// The debugger installed for the run.
    #[arg(long, value_enum, default_value_t = BenchDebugger::Off)]
    pub debugger: BenchDebugger,

    #[command(flatten)]
    pub program: Invocation,
}
