//! The command line's grammar: every subcommand, flag and help text.
//!
//! Declared with `clap`'s derive so that the grammar, the `--help` pages and
//! the usage errors are one definition. Nothing here does any work; `main`
//! hands the parsed [`Cli`] to the module of the subcommand it names.

use std::path::{Path, PathBuf};

#[cfg(feature = "profiler")]
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
#[cfg(feature = "profiler")]
use cove_profile::report::{By, Metric};

/// The exit statuses, as `cove --help` prints them. `crate::status` and the
/// runtime's `ErrorKind::exit_code` define the numbers; a test holds this
/// text to them.
macro_rules! exit_statuses {
    () => {
        "\
Exit status:
  0    success, or the program's own status: main's Int, or n of exit(n)
  1    the program did not compile (check, run, profile, disasm),
       or has no main to run; cove fmt --check found a file that would
       change, or cove fmt could not format a file
  2    usage error: an unknown flag, a missing argument, or two
       profiles of different programs given to cove diff (--force)
  64   the program gave an exit status outside 0..=63 (said on stderr)
  65   bad data: the compiled program failed verification (a compiler
       bug), or a file given to cove diff is not a JSON profile
  70   runtime error: a fault of the program (division by zero, overflow,
       an index out of range, unwrap of None, a failed assert, ...)
  74   I/O error: the program's FILE cannot be read, a file the program
       reads or writes, the report (-o), or a profile cove diff reads
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

/// Cove: run, check, disassemble, format and profile Cove programs.
#[derive(Debug, Parser)]
#[command(
    name = "cove",
    version,
    about = "Run, check, disassemble, format and profile Cove programs",
    long_about = "Run, check, disassemble, format and profile Cove programs.\n\n\
                  Cove is a small, statically typed scripting language with a \
                  profiler that counts every instruction a run executes.",
    after_help = concat!(
        "Examples:\n",
        "  cove run examples/hello.cove\n",
        "  cove run examples/wordfreq.cove examples/wordfreq.txt\n",
        "  cove check examples/fails.cove\n",
        "  cove disasm examples/fib.cove\n",
        "  cove fmt --check .\n",
        "  cove profile examples/covefmt/main.cove --check examples/covefmt/*.cove\n",
        "  cove profile --format svg -o fib.svg examples/fib.cove\n",
        "  cove debug examples/fails.cove\n\n",
        "`cove --help` also lists the exit statuses.",
    ),
    after_long_help = concat!(
        "Examples:\n",
        "  cove run examples/hello.cove\n",
        "  cove run examples/wordfreq.cove examples/wordfreq.txt\n",
        "  cove check examples/fails.cove\n",
        "  cove disasm examples/fib.cove\n",
        "  cove fmt --check .\n",
        "  cove profile examples/covefmt/main.cove --check examples/covefmt/*.cove\n",
        "  cove profile --format svg -o fib.svg examples/fib.cove\n",
        "  cove debug examples/fails.cove\n\n",
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

    /// Compile a program and report every error and warning, running nothing.
    #[command(after_help = concat!(
        "Examples:\n",
        "  cove check examples/hello.cove      # silent, exit 0\n",
        "  cove check broken.cove              # every error with file:line:col, exit 1\n",
        "  cove check --deny-warnings p.cove   # warnings (unused names, ...) exit 1 too",
    ))]
    Check(CheckOptions),

    /// Print the IR of every function, with the source lines interleaved.
    #[command(after_help = concat!(
        "Examples:\n",
        "  cove disasm examples/fib.cove\n",
        "  cove disasm examples/covefmt/main.cove | less",
    ))]
    Disasm(CheckArgs),

    /// Format .cove files in place, or name or show the ones that would change.
    #[command(after_help = concat!(
        "Examples:\n",
        "  cove fmt examples/hello.cove         # rewrite it in place if it is not formatted\n",
        "  cove fmt .                           # every .cove file under the directory\n",
        "  cove fmt --check examples            # name the files that would change, exit 1 if any\n",
        "  cove fmt --diff examples/covefmt     # print what would change, write nothing\n\n",
        "The formatter is covefmt (examples/covefmt), built into cove and run on its VM.\n",
        "A file already formatted is not written (its modification time is kept).\n",
        "A file that does not lex, or that covefmt could not format without changing\n",
        "a token, is named with the place and the reason and left as it is.\n",
        "Exit status: 0 if every file was formatted (or already was); 1 if --check\n",
        "found a file that would change, or a file was refused; 74 if a file could\n",
        "not be read or written.",
    ))]
    Fmt(FmtArgs),

    /// Run a program under the profiler and report where the run went.
    #[cfg(feature = "profiler")]
    #[command(after_help = concat!(
        "Examples:\n",
        "  cove profile examples/fib.cove                       # table by function\n",
        "  cove profile --by instruction --top 10 examples/fib.cove\n",
        "  cove profile --format json -o before.json examples/covefmt/main.cove --check examples/covefmt/*.cove\n",
        "  cove profile --format callgrind -o callgrind.out.fib examples/fib.cove\n",
        "  cove profile --format folded examples/fib.cove | flamegraph.pl > fib.svg\n",
        "  cove profile --format svg --metric words -o fib.svg examples/fib.cove\n",
        "  cove profile --format html -o fib.html examples/fib.cove\n",
        "  cove profile --format pprof -o fib.pb.gz examples/fib.cove && go tool pprof -top fib.pb.gz\n",
        "  cove profile --format speedscope -o fib.speedscope.json examples/fib.cove\n",
        "  cove profile --format lcov -o fib.info examples/fib.cove && genhtml -o coverage fib.info\n",
        "  cove profile --top 5 -- examples/fib.cove --format x   # -- ends cove's flags\n\n",
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

    /// Run a program under the profiler and print its source annotated line by line.
    ///
    /// The same as `cove profile --format annotate`: every source file of
    /// the run in source order, each line with what it ran, its time, its
    /// heap words and allocations, and each function's totals above it.
    #[cfg(feature = "profiler")]
    #[command(after_help = concat!(
        "Examples:\n",
        "  cove annotate examples/fib.cove\n",
        "  cove annotate --threshold 1 examples/covefmt/main.cove --check examples/covefmt/*.cove\n\n",
        "--threshold PCT folds the stretches of lines under PCT% of the run's\n",
        "instructions into one line. On a terminal the hot lines are coloured.",
    ))]
    Annotate(ProfileArgs),

    /// Compare two JSON profiles of the same program: what changed, and where.
    #[cfg(feature = "profiler")]
    #[command(after_help = concat!(
        "Examples:\n",
        "  cove profile --format json -o before.json examples/covefmt/main.cove --check examples/covefmt/*.cove\n",
        "  # ...change the program...\n",
        "  cove profile --format json -o after.json examples/covefmt/main.cove --check examples/covefmt/*.cove\n",
        "  cove diff before.json after.json\n\n",
        "The first line is the verdict on the run's estimated unprofiled time\n",
        "(each profile's time less its per-instruction floor): faster, slower or\n",
        "no clear change, with the ratio, its uncertainty and the ratio of\n",
        "instructions. Then the rows whose estimated time moved most; `!` marks a\n",
        "row that ran fewer instructions and took more time. Two versions kept in\n",
        "two files (words_v1.cove, words_v2.cove) are paired by their entry\n",
        "modules. Profiles of different programs or workloads (different\n",
        "arguments; or, unless the IR hashes are equal, fewer than half of their\n",
        "functions in common) are refused with status 2; --force compares them\n",
        "anyway.",
    ))]
    Diff(DiffArgs),

    /// Debug a program: breakpoints, stepping, locals; or serve DAP to an editor.
    #[cfg(feature = "profiler")]
    #[command(after_help = concat!(
        "Examples:\n",
        "  cove debug examples/fails.cove                 # a session at the terminal\n",
        "  cove debug examples/fails.cove < script.txt    # a scripted session\n",
        "  cove debug --dap                               # DAP on stdio, for an editor\n",
        "  cove debug --dap --port 4711                   # DAP on 127.0.0.1:4711\n\n",
        "The session opens stopped before the program's first instruction; set\n",
        "breakpoints, then `continue`. `help` at the prompt lists the commands.\n",
        "The debugger writes to stdout; the program's stdout and stderr stay its own.\n",
        "Ctrl-C while the program runs pauses it. See docs/DEBUGGING.md.",
    ))]
    Debug(DebugArgs),

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

/// `cove debug`.
#[cfg(feature = "profiler")]
#[derive(Debug, Args)]
pub struct DebugArgs {
    /// Serve the Debug Adapter Protocol (on stdio, or on --port) instead of
    /// a terminal session; the program comes from the client's `launch`.
    #[arg(long)]
    pub dap: bool,

    /// With --dap: listen on 127.0.0.1:N for one client instead of stdio.
    #[arg(long, value_name = "N", requires = "dap")]
    pub port: Option<u16>,

    #[command(flatten)]
    pub limits: LimitArgs,

    /// The program (a .cove file), then its arguments; every word after
    /// FILE is the program's. Not needed with --dap.
    #[arg(
        value_name = "FILE [ARGS]",
        required_unless_present = "dap",
        num_args = 0..,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    words: Vec<String>,
}

#[cfg(feature = "profiler")]
impl DebugArgs {
    /// The program's file, if one was given.
    pub fn file(&self) -> Option<&Path> {
        self.words.first().map(Path::new)
    }

    /// The program's arguments.
    pub fn args(&self) -> &[String] {
        self.words.get(1..).unwrap_or(&[])
    }
}

/// The program a command runs, and its arguments: every word from FILE on.
///
/// One list rather than a FILE and an ARGS, so that everything after FILE
/// is the program's, flags included: `cove run covefmt.cove --check x.cove`
/// gives `--check` to the program, and `cove run p.cove --help` asks the
/// program for help, not `cove`. `cove`'s own flags go before FILE; `--`
/// may end them explicitly (`cove profile --top 5 -- prog.cove --format x`),
/// and a word after FILE that is one of `cove`'s own flags gets a warning
/// unless `--` said so (see [`Invocation::warn_about_flags`]).
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

    /// Warns on stderr about each of the program's arguments that is one of
    /// `subcommand`'s own flags (`--format`, `-o`, ...), since it went to the
    /// program and not to `cove` — unless the command line put `--` before
    /// FILE, which says the user knows.
    pub fn warn_about_flags(&self, subcommand: &str) {
        let raw: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let before_file = raw.len().checked_sub(self.words.len() + 1);
        if before_file.is_some_and(|i| raw[i] == "--") {
            return;
        }
        for word in self.flags_of(subcommand) {
            crate::pipe::eprint(format_args!(
                "{}: `{word}` comes after FILE, so it was given to the program, not to cove; \
                 put cove's flags before FILE (or `--` before FILE to silence this)\n",
                crate::style::Style::stderr().warn("warning")
            ));
        }
    }

    /// The program's arguments that spell one of `subcommand`'s flags.
    fn flags_of(&self, subcommand: &str) -> Vec<&str> {
        use clap::CommandFactory as _;
        // Building the command's description is a sixth of a short run's
        // start (about 190,000 native instructions): not done for
        // arguments none of which can be a flag.
        if !self.args().iter().any(|word| word.starts_with('-')) {
            return Vec::new();
        }
        let command = Cli::command();
        let Some(sub) = command.find_subcommand(subcommand) else {
            return Vec::new();
        };
        let is_flag = |word: &str| {
            let name = word.split('=').next().unwrap_or(word);
            sub.get_arguments().any(|arg| {
                !arg.is_hide_set()
                    && (name
                        .strip_prefix("--")
                        .is_some_and(|l| arg.get_long() == Some(l))
                        || name
                            .strip_prefix('-')
                            .and_then(|s| s.chars().next().filter(|_| s.len() == 1))
                            .is_some_and(|c| arg.get_short() == Some(c)))
            })
        };
        self.args()
            .iter()
            .map(String::as_str)
            .filter(|word| is_flag(word))
            .collect()
    }
}

/// The `Limits` of a run, shared by `run` and `profile`; the default is
/// none of the flags given.
#[derive(Debug, Clone, Default, Args)]
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

/// `cove check`: the program, and whether its warnings fail the check.
#[derive(Debug, Args)]
pub struct CheckOptions {
    /// The program.
    #[command(flatten)]
    pub program: CheckArgs,

    /// Exit 1 when the program has warnings, as when it has errors.
    #[arg(long)]
    pub deny_warnings: bool,
}

/// `cove check` and `cove disasm`: a file and nothing else.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The program: a .cove file (modules it imports are found beside it).
    pub file: PathBuf,
}

/// `cove fmt`: files and directories to format.
#[derive(Debug, Args)]
pub struct FmtArgs {
    /// Write nothing: name each file that would change, and exit 1 if any would.
    #[arg(long)]
    pub check: bool,

    /// Write nothing: print a unified diff of what would change.
    #[arg(long)]
    pub diff: bool,

    /// Files and directories; a directory is walked for .cove files.
    #[arg(required = true, value_name = "FILE|DIR")]
    pub paths: Vec<PathBuf>,
}

/// The clock `cove profile` times instructions with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClockChoice {
    /// No clock at the stops: a sampler charges the task's processor time
    /// to where it is, every 100 µs (then 400 µs), less the profiler's own
    /// cost.
    Sampled,
    /// No time at all: exact counts and heap figures, at the least cost.
    None,
    /// The system's monotonic clock, read around every instruction.
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
    /// A flame graph as an SVG image, titled with the program.
    Svg,
    /// The source of every file, annotated line by line (as `cove annotate`).
    Annotate,
    /// One self-contained HTML page: header, tables, flame graph, annotated source.
    Html,
    /// speedscope's JSON format: one profile per task and metric.
    Speedscope,
    /// pprof's gzipped profile.proto, for `go tool pprof` and profile stores.
    Pprof,
    /// Line and function coverage as an lcov tracefile, for genhtml.
    Lcov,
}

impl Format {
    /// The format a report file's name asks for, the way the tools that
    /// read each name their files: `before.json` is JSON for `cove diff`,
    /// `fib.speedscope.json` speedscope's, `callgrind.out.fib` callgrind's.
    /// `None` for a name that says none (a `.txt`, no extension), which
    /// keeps the command's default.
    pub fn from_path(path: &std::path::Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        let by_suffix = [
            (".speedscope.json", Format::Speedscope),
            (".json", Format::Json),
            (".svg", Format::Svg),
            (".html", Format::Html),
            (".htm", Format::Html),
            (".pb.gz", Format::Pprof),
            (".pprof", Format::Pprof),
            (".info", Format::Lcov),
            (".lcov", Format::Lcov),
            (".folded", Format::Folded),
            (".callgrind", Format::Callgrind),
        ];
        if name.starts_with("callgrind.out") {
            return Some(Format::Callgrind);
        }
        by_suffix
            .iter()
            .find(|(suffix, _)| name.ends_with(suffix))
            .map(|(_, format)| *format)
    }
}

/// `--by`: `cove_profile`'s own [`By`], read by [`By::from_name`] from the
/// words listed here with the help `--help` shows for each. A parser here
/// rather than a second `By` in the CLI and a match translating it: clap's
/// `ValueEnum` cannot be implemented for another crate's type, and deriving
/// it in `cove_profile` would pull clap into every embedder's profiler.
#[cfg(feature = "profiler")]
fn by_parser() -> impl TypedValueParser<Value = By> {
    PossibleValuesParser::new([
        PossibleValue::new(By::Instruction.name())
            .help("One row per instruction, printed as the disassembler prints it"),
        PossibleValue::new(By::Function.name()).help("One row per function, self and inclusive"),
        PossibleValue::new(By::Opcode.name()).help("One row per opcode (add.int, call, ...)"),
        PossibleValue::new(By::Callee.name()).help(
            "One row per callee: the function a call names, the builtin a call-builtin names",
        ),
        PossibleValue::new(By::Line.name()).help("One row per source line"),
        PossibleValue::new(By::Call.name()).help(
            "One row per caller and callee pair, with the calls made and their inclusive cost",
        ),
        PossibleValue::new(By::Task.name()).help(
            "One row per task (with --follow-tasks, every task the program spawned), \
             with the function it started from",
        ),
    ])
    .try_map(|name| By::from_name(&name).ok_or_else(|| format!("no grouping {name:?}")))
}

/// `--metric`: `cove_profile`'s own [`Metric`], read as [`by_parser`] reads
/// a [`By`].
#[cfg(feature = "profiler")]
fn metric_parser() -> impl TypedValueParser<Value = Metric> {
    PossibleValuesParser::new([
        PossibleValue::new(Metric::Ran.name()).help("Instructions executed"),
        PossibleValue::new(Metric::Nanos.name())
            .help("Nanoseconds (the profiler's own overhead included; read as ratios)"),
        PossibleValue::new(Metric::Words.name()).help("Heap words allocated"),
        PossibleValue::new(Metric::Allocations.name()).help("Heap objects allocated"),
    ])
    .try_map(|name| Metric::from_name(&name).ok_or_else(|| format!("no metric {name:?}")))
}

/// `cove profile`.
#[cfg(feature = "profiler")]
#[derive(Debug, Args)]
pub struct ProfileArgs {
    #[command(flatten)]
    pub program: Invocation,

    /// How the table groups its rows (the other formats hold every grouping).
    #[arg(long, value_parser = by_parser(), default_value = "function")]
    pub by: By,

    /// Show only the N heaviest rows of the table (0 = all).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub top: usize,

    /// The report's format [default: as the -o path's name says (.json,
    /// .speedscope.json, .svg, .html, .pb.gz or .pprof, .info or .lcov,
    /// .folded, callgrind.out.*), else table; annotate under `cove
    /// annotate`].
    #[arg(long, value_enum)]
    pub format: Option<Format>,

    /// For annotated source: fold the lines under PCT% of the run's
    /// instructions (0 = print every line).
    #[arg(long, value_name = "PCT", default_value_t = 0.0)]
    pub threshold: f64,

    /// Write the report to PATH instead of stdout (`-` is stdout). The path
    /// is checked before the program runs, so a bad path fails at once; the
    /// report replaces the file only once it is complete.
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,

    /// Profile every task the program spawns too, not only the first.
    #[arg(long)]
    pub follow_tasks: bool,

    /// How time is taken: `sampled` (the default: exact counts, and time
    /// sampled from the task's CPU clock, net of the profiler's own cost),
    /// `none` (exact counts and heap figures only, the cheapest), or the
    /// interval clocks that time every instruction with a floor: `real`
    /// (the system's monotonic clock) or `counter` (the processor's
    /// time-stamp counter).
    #[arg(long, value_enum, default_value_t = ClockChoice::Sampled)]
    pub clock: ClockChoice,

    /// Do not run the program again, unwatched, to measure its total time.
    /// By default a sampled profile does, once (with the same arguments
    /// and input, its output thrown away, file writes refused), and its
    /// total is that run's time; with this flag, or for a run that wrote
    /// files or a program that can spawn tasks, the total is the samples'
    /// time less the profiler's calibrated cost, an estimate.
    #[arg(long)]
    pub no_replay: bool,

    /// What folded stacks and flame graphs weigh a stack by, and what a
    /// table is sorted by.
    #[arg(long, value_parser = metric_parser(), default_value = "ran")]
    pub metric: Metric,

    /// Put the time tasks spent blocked (in join and recv) into stacks of
    /// time too: folded, svg, speedscope and pprof get a `(blocked)` leaf
    /// frame under each path that waited. Without it they show running time
    /// only; tables and json always show blocked time in a column of its
    /// own.
    #[arg(long)]
    pub idle: bool,

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
    /// Compare the two profiles even if they look like profiles of
    /// different programs (different arguments, or fewer than half of
    /// their functions in common).
    #[arg(long)]
    pub force: bool,

    /// Time the two programs side by side however long they run. By
    /// default `cove diff` does when both profiles measured their total
    /// by a replay of at most a second and read no input: it runs each
    /// program again, unwatched, in interleaved pairs (5 to 21 pairs:
    /// a second or more), and the verdict is the median of the pairs' ratios.
    #[arg(long, conflicts_with = "no_rerun")]
    pub rerun: bool,

    /// Judge by the two profiles' totals alone, without running anything.
    #[arg(long)]
    pub no_rerun: bool,
}

/// Which debugger `cove bench-run` installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchDebugger {
    /// None: the unwatched dispatch loop.
    Off,
    /// One that answers Go at every stop and does nothing else.
    Noop,
    /// The profiler, timing every instruction by the real clock.
    #[cfg(feature = "profiler")]
    Profiler,
    /// The profiler counting only (`cove profile --clock none`).
    #[cfg(feature = "profiler")]
    Counting,
    /// The profiler sampling time (`cove profile`'s default).
    #[cfg(feature = "profiler")]
    Sampling,
}

/// `cove bench-run`.
#[derive(Debug, Args)]
pub struct BenchRunArgs {
    /// The debugger installed for the run.
    #[arg(long, value_enum, default_value_t = BenchDebugger::Off)]
    pub debugger: BenchDebugger,

    /// Throw the program's output away, stdout's and stderr's: what `cove
    /// profile`'s replay runs it with.
    #[arg(long)]
    pub quiet: bool,

    /// Make every `write_file` of the run an error that writes nothing:
    /// how `cove profile`'s replay and `cove diff` run a program again
    /// without repeating its effects.
    #[arg(long)]
    pub no_writes: bool,

    /// Add the hash of the program's IR to the line it prints (`ir H`), as
    /// a profile records it: how `cove diff` makes sure the file it runs
    /// again is still the program profiled.
    #[cfg(feature = "profiler")]
    #[arg(long)]
    pub ir_hash: bool,

    #[command(flatten)]
    pub limits: LimitArgs,

    #[command(flatten)]
    pub program: Invocation,
}

#[cfg(all(test, feature = "profiler"))]
mod tests {
    use super::*;

    fn profile_args(flags: &[&str]) -> ProfileArgs {
        let mut argv = vec!["cove", "profile"];
        argv.extend_from_slice(flags);
        argv.push("x.cove");
        match Cli::try_parse_from(argv).expect("the flags parse").command {
            Command::Profile(args) => args,
            other => panic!("not a profile command: {other:?}"),
        }
    }

    #[test]
    fn every_grouping_of_the_profiler_is_a_by_value_of_the_command_line() {
        for by in By::ALL {
            assert_eq!(profile_args(&["--by", by.name()]).by, by);
        }
        assert_eq!(profile_args(&[]).by, By::Function);
    }

    #[test]
    fn every_metric_of_the_profiler_is_a_metric_value_of_the_command_line() {
        for metric in Metric::ALL {
            assert_eq!(profile_args(&["--metric", metric.name()]).metric, metric);
        }
        assert_eq!(profile_args(&[]).metric, Metric::Ran);
    }

    #[test]
    fn a_grouping_the_profiler_does_not_know_is_a_usage_error_not_a_panic() {
        let error = Cli::try_parse_from(["cove", "profile", "--by", "colour", "x.cove"])
            .expect_err("no such grouping");
        assert_eq!(error.kind(), clap::error::ErrorKind::InvalidValue);
    }
}
