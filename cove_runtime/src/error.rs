//! Runtime errors as values: what went wrong, in words, and where.
//!
//! A fault in a Cove program never panics the host and never loses the
//! location: the machine turns it into a [`RunError`] carrying the kind (for
//! a program to act on), the message (for a person) and the Cove backtrace
//! (for both). One enum of kinds rather than a type per fault, because an
//! embedder matches on a handful of them (exit, interrupt, limits) and prints
//! the rest.

use std::fmt;

/// What kind of fault ended a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An integer division or remainder by zero.
    DivisionByZero,
    /// An integer operation whose result does not fit in 64 bits (also a
    /// shift outside `0..=63` and `abs` of `Int.MIN`).
    Overflow,
    /// A list or string index, or a slice, outside its bounds.
    IndexOutOfRange,
    /// `unwrap` of `None`.
    UnwrapNone,
    /// `get.payload` on a value of a different variant than the code expected.
    WrongVariant,
    /// A bad argument to a builtin: a negative repeat count, a slice not on
    /// a character boundary, a float that has no integer.
    InvalidArgument,
    /// `parse_int` or `parse_float` of text that is not a number.
    Parse,
    /// A file could not be read or written.
    Io,
    /// `assert` of `false`.
    AssertionFailed,
    /// A call deeper than [`Limits::max_call_depth`](crate::Limits::max_call_depth).
    CallDepth,
    /// The live heap grew past [`Limits::max_heap_words`](crate::Limits::max_heap_words).
    HeapLimit,
    /// The run executed [`Limits::fuel`](crate::Limits::fuel) instructions.
    OutOfFuel,
    /// An [`InterruptHandle`](crate::InterruptHandle) asked the run to stop.
    /// (Also what a host gets joining, in a later run, a task that was still
    /// running when its own run ended and stopped it: the message says so.)
    Interrupted,
    /// Every task of the run was waiting on another: nothing could go on.
    Deadlock,
    /// More tasks than [`Limits::max_tasks`](crate::Limits::max_tasks), or
    /// than the host would start threads for.
    TooManyTasks,
    /// Sending on a closed channel.
    ChannelClosed,
    /// A debugger answered [`Resume::Halt`](crate::vm::debug::Resume::Halt).
    Halted,
    /// The program called `exit(code)`.
    Exit(i32),
    /// `run_entry` named a function the program does not have, or gave it
    /// arguments of the wrong number or type.
    NoSuchEntry,
    /// `run_entry` named a function that is neither exported nor `main`.
    NotExported,
    /// The program failed verification: it is not something this machine
    /// may run. Also a verified program found, as it runs, reading a
    /// reference it never wrote as an object (which the compiler never
    /// emits).
    Invalid,
    /// A bug in the machine itself, caught before it could take the host
    /// down. Please report it with the program.
    Internal,
}

impl ErrorKind {
    /// The process exit status a command-line runner should use for a run
    /// that ended this way.
    ///
    /// `Exit(n)` is `n` when `n` is a status a program may use
    /// ([`PROGRAM_STATUSES`], 0 to 63) and [`STATUS_OUT_OF_RANGE`] (64)
    /// otherwise (see [`program_status`]); an interrupt is 130 (as a shell reports Ctrl-C);
    /// the limits and the debugger's halt have statuses of their own so a
    /// script can tell "the program is wrong" from "the program was stopped";
    /// every other fault of the program is 70 (`EX_SOFTWARE`).
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Exit(code) => program_status(i64::from(code)),
            ErrorKind::Interrupted => 130,
            ErrorKind::OutOfFuel => 124,
            ErrorKind::HeapLimit => 125,
            ErrorKind::CallDepth => 126,
            ErrorKind::Deadlock => 127,
            ErrorKind::Halted => 128,
            ErrorKind::Io => 74,
            ErrorKind::NoSuchEntry | ErrorKind::NotExported | ErrorKind::Invalid => 65,
            _ => 70,
        }
    }
}

/// The exit statuses a program may give (`exit(n)`, or `main`'s `Int`):
/// 0 to 63. Every status from 64 up is the runner's own — 64 for a program
/// status outside this range, 65 to 141 for how a run or a command ended
/// (see [`ErrorKind::exit_code`]), 101 for a panic of the host — so a
/// script can always tell the program's answer from the runner's.
pub const PROGRAM_STATUSES: std::ops::RangeInclusive<i64> = 0..=63;

/// The exit status of a program that gave a status outside
/// [`PROGRAM_STATUSES`]: a runner reports the number the program gave on
/// stderr and exits with this instead.
pub const STATUS_OUT_OF_RANGE: i32 = 64;

/// The exit status a runner uses for a program that gave `status`: the
/// status itself inside [`PROGRAM_STATUSES`], [`STATUS_OUT_OF_RANGE`]
/// outside it. The one rule for both `exit(n)` and `main`'s result.
///
/// ```
/// assert_eq!(cove_runtime::program_status(3), 3);
/// assert_eq!(cove_runtime::program_status(101), 64);
/// assert_eq!(cove_runtime::program_status(-1), 64);
/// ```
pub fn program_status(status: i64) -> i32 {
    if PROGRAM_STATUSES.contains(&status) {
        status as i32
    } else {
        STATUS_OUT_OF_RANGE
    }
}

/// One frame of a Cove backtrace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BacktraceFrame {
    /// `module.function`.
    pub function: String,
    /// The module's source path.
    pub path: String,
    /// The source line the frame was at, if the program records it.
    pub line: Option<u32>,
    /// Which task the frame belongs to: 0 for the task the `Vm` ran.
    pub task: u32,
}

impl fmt::Display for BacktraceFrame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "  at {} ({}:{})", self.function, self.path, line),
            None => write!(f, "  at {} ({})", self.function, self.path),
        }
    }
}

/// A run that ended in a fault, with where it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    /// What happened, for a program to match on.
    pub kind: ErrorKind,
    /// What happened, for a person.
    pub message: String,
    /// The Cove frames live at the fault, innermost first. A fault in a
    /// spawned task lists the task's frames, then the frames of the task
    /// that joined it.
    pub backtrace: Vec<BacktraceFrame>,
}

impl RunError {
    /// An error with no backtrace (the run had not started, or it ended
    /// outside any frame).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> RunError {
        RunError {
            kind,
            message: message.into(),
            backtrace: Vec::new(),
        }
    }

    /// How many innermost frames a shortened backtrace shows.
    pub const SHOWN_INNERMOST: usize = 20;
    /// How many outermost frames a shortened backtrace shows.
    pub const SHOWN_OUTERMOST: usize = 5;

    /// The lines a report of the backtrace shows, innermost first: every
    /// frame of a backtrace of at most
    /// [`SHOWN_INNERMOST`](Self::SHOWN_INNERMOST) +
    /// [`SHOWN_OUTERMOST`](Self::SHOWN_OUTERMOST) frames; of a longer one,
    /// the innermost `SHOWN_INNERMOST`, one [`BacktraceLine::Omitted`]
    /// counting the frames left out, and the outermost `SHOWN_OUTERMOST`.
    ///
    /// A runaway recursion has a hundred thousand frames; the ones worth
    /// reading are where it ended and where it began. `Display` prints
    /// these lines, and a runner that lays an error out its own way (the
    /// `cove` command) should too, so every report shortens alike.
    pub fn backtrace_lines(&self) -> impl Iterator<Item = BacktraceLine<'_>> {
        let frames = &self.backtrace;
        let (inner, omitted, outer) =
            if frames.len() <= Self::SHOWN_INNERMOST + Self::SHOWN_OUTERMOST {
                (&frames[..], 0, &frames[..0])
            } else {
                (
                    &frames[..Self::SHOWN_INNERMOST],
                    frames.len() - Self::SHOWN_INNERMOST - Self::SHOWN_OUTERMOST,
                    &frames[frames.len() - Self::SHOWN_OUTERMOST..],
                )
            };
        inner
            .iter()
            .map(BacktraceLine::Frame)
            .chain((omitted > 0).then_some(BacktraceLine::Omitted(omitted)))
            .chain(outer.iter().map(BacktraceLine::Frame))
    }
}

/// One line of a backtrace as a report shows it (see
/// [`RunError::backtrace_lines`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BacktraceLine<'a> {
    /// A frame: `  at module.function (path:line)`.
    Frame(&'a BacktraceFrame),
    /// The count of frames left out of a long backtrace:
    /// `  ... N more frames`.
    Omitted(usize),
}

impl fmt::Display for BacktraceLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BacktraceLine::Frame(frame) => frame.fmt(f),
            BacktraceLine::Omitted(n) => write!(f, "  ... {n} more frames"),
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for line in self.backtrace_lines() {
            write!(f, "\n{line}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RunError {}

/// A fault inside an instruction, before the machine has added where it
/// happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fault {
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
    /// Frames that belong before the faulting machine's own: a task's
    /// backtrace, surfacing at `join`.
    pub(crate) inner: Vec<BacktraceFrame>,
}

impl Fault {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Fault {
        Fault {
            kind,
            message: message.into(),
            inner: Vec::new(),
        }
    }
}

impl From<RunError> for Fault {
    fn from(error: RunError) -> Fault {
        Fault {
            kind: error.kind,
            message: error.message,
            inner: error.backtrace,
        }
    }
}

/// Shorthand for a builtin's or an instruction's result.
pub(crate) type Faulty<T> = Result<T, Fault>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_displays_its_message_then_its_frames_innermost_first() {
        let error = RunError {
            kind: ErrorKind::DivisionByZero,
            message: "division by zero".to_string(),
            backtrace: vec![
                BacktraceFrame {
                    function: "m.divide".into(),
                    path: "m.cove".into(),
                    line: Some(2),
                    task: 0,
                },
                BacktraceFrame {
                    function: "m.main".into(),
                    path: "m.cove".into(),
                    line: Some(5),
                    task: 0,
                },
            ],
        };
        assert_eq!(
            error.to_string(),
            "division by zero\n  at m.divide (m.cove:2)\n  at m.main (m.cove:5)"
        );
    }

    fn frames(n: usize) -> Vec<BacktraceFrame> {
        (0..n)
            .map(|i| BacktraceFrame {
                function: format!("m.f{i}"),
                path: "m.cove".into(),
                line: Some(1),
                task: 0,
            })
            .collect()
    }

    #[test]
    fn a_backtrace_of_25_frames_is_shown_whole() {
        let mut error = RunError::new(ErrorKind::CallDepth, "deep");
        error.backtrace = frames(25);
        let lines: Vec<_> = error.backtrace_lines().collect();
        assert_eq!(lines.len(), 25);
        assert!(
            lines
                .iter()
                .all(|line| matches!(line, BacktraceLine::Frame(_)))
        );
        assert_eq!(error.to_string().lines().count(), 26);
    }

    #[test]
    fn a_long_backtrace_shows_the_innermost_20_a_count_and_the_outermost_5() {
        let mut error = RunError::new(ErrorKind::CallDepth, "deep");
        error.backtrace = frames(100);
        let lines: Vec<_> = error.backtrace_lines().collect();
        assert_eq!(lines.len(), 26);
        assert_eq!(lines[0], BacktraceLine::Frame(&error.backtrace[0]));
        assert_eq!(lines[19], BacktraceLine::Frame(&error.backtrace[19]));
        assert_eq!(lines[20], BacktraceLine::Omitted(75));
        assert_eq!(lines[21], BacktraceLine::Frame(&error.backtrace[95]));
        assert_eq!(lines[25], BacktraceLine::Frame(&error.backtrace[99]));
        let text = error.to_string();
        assert_eq!(text.lines().count(), 27);
        assert!(text.contains("\n  ... 75 more frames\n  at m.f95 (m.cove:1)"));
    }

    #[test]
    fn a_program_status_outside_0_to_63_cannot_pass_for_one_of_the_runners() {
        for status in [
            64, 65, 70, 74, 101, 124, 125, 126, 127, 128, 130, 141, 255, 256, -1,
        ] {
            assert_eq!(ErrorKind::Exit(status).exit_code(), STATUS_OUT_OF_RANGE);
            assert_eq!(program_status(i64::from(status)), STATUS_OUT_OF_RANGE);
        }
        assert_eq!(program_status(i64::MAX), STATUS_OUT_OF_RANGE);
        assert_eq!(ErrorKind::Exit(63).exit_code(), 63);
        assert_eq!(ErrorKind::Exit(0).exit_code(), 0);
    }

    #[test]
    fn an_exit_keeps_its_own_status_and_faults_share_one() {
        assert_eq!(ErrorKind::Exit(3).exit_code(), 3);
        assert_eq!(ErrorKind::Overflow.exit_code(), 70);
        assert_ne!(ErrorKind::Interrupted.exit_code(), 70);
    }
}
