//! `cove profile`: run a program under the profiler and write a report.
//!
//! # Where the output goes
//!
//! The program's own output is never mixed with a report, because both are
//! things a person or a tool reads whole:
//!
//! - with `-o PATH`, the report goes to the file and stdout is the
//!   program's, exactly as under `cove run`;
//! - without it, a **table** is printed to stdout *after* the program has
//!   finished, below whatever the program printed: a person at a terminal
//!   sees the program's output, then where it went;
//! - without it, any **other format** (JSON, callgrind, folded, SVG) is also
//!   printed to stdout, and the program's own stdout is sent to stderr for
//!   the run, so that `cove profile --format json prog.cove | jq` reads a
//!   document and nothing else.
//!
//! The progress line (see [`crate::progress`]) is on stderr and only on a
//! terminal.
//!
//! The file `-o PATH` names is opened *before* the run, so a path that
//! cannot be written (a missing directory, no permission) fails at once
//! with exit 74, not after a long run whose profile would then be lost.
//! The report is written beside it and renamed into place when complete
//! (see [`crate::report_file`]), so an interrupted or failed report leaves
//! the previous file at PATH as it was.
//! `cove annotate` is this command with `annotate` as its default format.
//!
//! # A run that did not finish
//!
//! A runtime error, a limit or Ctrl-C end the run; the error is printed as
//! `cove run` prints it and the profile of what ran is still written, since
//! a profile of the part that ran is often what explains the fault. The
//! exit status is the run's: a report written is not a success to claim.
//!
//! # Time under test
//!
//! `COVE_FAKE_CLOCK=1` (or the hidden `--fake-clock`) gives the profiler a
//! clock that advances one nanosecond per reading, so every figure of a
//! report is a function of the program alone: what the snapshot tests use.
//! It also makes every time a task parks in `join` or `recv` count exactly
//! one millisecond of blocked time ([`cove_runtime::Vm::with_fixed_wait_time`]).
//! It is not for reading a real run.

use cove_ir::program::Program;
use cove_profile::report::{Annotate, Report};
use cove_profile::{Profiler, SteppingClock};

use crate::cli::{ClockChoice, Format, ProfileArgs};
use crate::compile::compile_runnable;
use crate::output::ProgramOutput;
use crate::progress::Progress;
use crate::report_file::ReportFile;
use crate::run::{call_main, ending, machine, watched};
use crate::status::Status;
use crate::style::Style;
use crate::{interrupt, pipe, replay};

/// What one park of a task counts under the deterministic clock: one
/// millisecond, so a profile's blocked time reads as a count of waits.
const FAKE_WAIT_NANOS: u64 = 1_000_000;

/// Runs `cove profile` (or `cove annotate`, whose default format is
/// `annotate`): `default` is the format when neither `--format` nor the
/// `-o` path's name gives one.
pub fn profile(args: &ProfileArgs, default: Format) -> Status {
    let format = args
        .format
        .or_else(|| args.output.as_deref().and_then(Format::from_path))
        .unwrap_or(default);
    args.program
        .warn_about_flags(if default == Format::Annotate {
            "annotate"
        } else {
            "profile"
        });
    let program = match compile_runnable(args.program.file()) {
        Ok(program) => program,
        Err(status) => return status,
    };
    // Open the report's file now: a bad path should fail before the run.
    let file = match ReportFile::open(args.output.as_deref()) {
        Ok(file) => file,
        Err(why) => {
            pipe::eprint(format_args!("{}: {why}\n", Style::stderr().error("error")));
            return Status::IoError;
        }
    };
    let fake = args.fake_clock || std::env::var("COVE_FAKE_CLOCK").is_ok_and(|v| v == "1");
    let mut profiler = if fake {
        Profiler::with_clock(SteppingClock::new(1))
    } else {
        match args.clock {
            ClockChoice::Sampled => Profiler::sampling(),
            ClockChoice::None => Profiler::counting(),
            ClockChoice::Counter => Profiler::with_counter_clock(),
            ClockChoice::Real => Profiler::new(),
        }
    };
    if args.follow_tasks {
        profiler = profiler.following_tasks();
    }
    let profiler = std::sync::Arc::new(profiler);

    let counter = std::sync::Arc::clone(&profiler);
    let progress = Progress::start(
        format!("profiling {}", args.program.file().display()),
        move || counter.counted(),
    );
    let to_stdout = file.is_stdout();
    let program_stdout = if to_stdout && format != Format::Table {
        progress.guard(std::io::stderr())
    } else {
        progress.guard(std::io::stdout())
    };
    let mut vm = machine(&program, &args.limits, args.program.args());
    if fake {
        vm = vm.with_fixed_wait_time(FAKE_WAIT_NANOS);
    }
    // A sampled profile's total is measured by running the program again
    // unwatched (see `replay`), on the input this run reads, which is kept
    // only for that.
    let replaying = profiler.time_mode() == "sampled" && !fake && !args.no_replay;
    let recording = match replay::refusal(&program, args.program.file(), args.follow_tasks) {
        _ if !replaying => Err(None),
        Some(why) => Err(Some(why)),
        None => {
            let (recorder, kept) =
                replay::Recorder::new(Box::new(std::io::BufReader::new(std::io::stdin())));
            vm = vm.with_input(Box::new(recorder));
            Ok(kept)
        }
    };
    let out = watched(&vm, program_stdout);
    let err = watched(&vm, progress.guard(std::io::stderr()));
    let mut vm = vm
        .with_debugger(&*profiler)
        .with_output(Box::new(ProgramOutput::for_stdout(out)))
        .with_error_output(Box::new(err));
    let result = call_main(&mut vm, &program);
    // From here on there is no run to stop but the replay's: a Ctrl-C
    // while the clock is calibrated or the report is rendered or written
    // ends `cove` at once.
    interrupt::run_ended();
    progress.finish();
    let instructions = vm.instructions();
    drop(vm);
    // A sampled profile's time is made net of what being watched cost the
    // loop, measured on this machine (see `calibrate`), with the sampler's
    // thread ended first: the measurement times the whole process.
    profiler.stop_sampling();
    if profiler.time_mode() == "sampled"
        && let Some(costs) = crate::calibrate::stop_costs()
    {
        profiler.set_stop_costs(costs);
    }
    let stopped = result
        .as_ref()
        .is_err_and(|e| e.kind == cove_runtime::ErrorKind::Interrupted);
    let mut status = ending(&program, result);
    if replaying && !stopped && !pipe::output_closed() {
        let recording = recording.and_then(|kept| {
            if replay::wrote_files(&program, &profiler) {
                Err(Some("the run wrote files, which a replay may not"))
            } else {
                Ok(kept)
            }
        });
        status = replay_total(&profiler, args, recording, instructions, status);
    }

    let report = match render(&program, &profiler, args, format, to_stdout) {
        Ok(report) => report,
        Err(why) => {
            pipe::eprint(format_args!(
                "{}: could not render the profile: {why}\n",
                Style::stderr().error("error")
            ));
            file.abandon();
            return worse(status, Status::IoError);
        }
    };
    match file.write(&report) {
        Ok(()) => status,
        Err(why) => {
            pipe::eprint(format_args!("{}: {why}\n", Style::stderr().error("error")));
            worse(status, Status::IoError)
        }
    }
}

/// Measures a sampled profile's total by replaying its run, which ran
/// `instructions` on the input `recording` kept (or was not recorded, for
/// the reason given), and gives the status
/// `cove profile` ends with: the run's `status`, or the interrupted one if
/// a Ctrl-C stopped the replay. What kept a total from being measured is
/// said on stderr.
fn replay_total(
    profiler: &Profiler,
    args: &ProfileArgs,
    recording: Result<replay::Recording, Option<&'static str>>,
    instructions: u64,
    status: Status,
) -> Status {
    let input = match recording {
        Ok(recording) => recording.bytes().ok_or(replay::Outcome::Refused(
            "the run read more input than a replay keeps",
        )),
        Err(None) => return status,
        Err(Some(why)) => Err(replay::Outcome::Refused(why)),
    };
    let outcome = input.map_or_else(
        |refused| refused,
        |input| {
            let progress = Progress::start(
                format!("timing {} unwatched", args.program.file().display()),
                move || instructions,
            );
            let outcome = replay::replay(
                args.program.file(),
                &args.limits,
                args.program.args(),
                input,
                instructions,
            );
            progress.finish();
            outcome
        },
    );
    let why = match outcome {
        replay::Outcome::Measured(measured) => {
            profiler.set_replay(measured);
            return status;
        }
        replay::Outcome::Interrupted => return worse(status, Status::INTERRUPTED),
        replay::Outcome::Refused(why) => why.to_string(),
        replay::Outcome::Diverged { profiled, replayed } => {
            format!("the replay went another way ({replayed} instructions against {profiled})")
        }
    };
    pipe::eprint(format_args!(
        "{}: the total time is estimated from the samples, not measured by a replay: {why}\n",
        Style::stderr().warn("note")
    ));
    status
}

/// The run's status if it already failed, else `other`.
fn worse(run: Status, other: Status) -> Status {
    if run == Status::OK { other } else { run }
}

/// The report the flags ask for, in `format`; `to_stdout` says whether it
/// goes to stdout (where annotated source may be coloured).
fn render(
    program: &Program,
    profiler: &Profiler,
    args: &ProfileArgs,
    format: Format,
    to_stdout: bool,
) -> Result<Vec<u8>, String> {
    let report = Report::new(program, profiler)
        .with_subject(
            &args.program.file().display().to_string(),
            args.program.args(),
        )
        .with_idle(args.idle);
    let metric = args.metric;
    Ok(match format {
        Format::Table => report.table_sorted(args.by, metric, args.top).into_bytes(),
        Format::Json => report.json().into_bytes(),
        Format::Callgrind => report.callgrind().into_bytes(),
        Format::Folded => report.folded(metric).into_bytes(),
        Format::Svg => report.svg(metric).map_err(|e| e.to_string())?.into_bytes(),
        Format::Annotate => report
            .annotate(&Annotate {
                threshold: args.threshold,
                color: to_stdout && Style::stdout().colored(),
            })
            .into_bytes(),
        Format::Html => report.html().into_bytes(),
        Format::Speedscope => report.speedscope().into_bytes(),
        Format::Pprof => report.pprof(),
        Format::Lcov => report.lcov().into_bytes(),
    })
}
