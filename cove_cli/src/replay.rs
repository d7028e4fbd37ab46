//! The replay: after `cove profile` has run a program under the profiler,
//! it runs it again unwatched to measure what the run takes on its own.
//!
//! A sampled profile's total is otherwise an estimate, the samples' time
//! less what the profiler's stops are calibrated to cost, and that cost
//! follows the program in ways no calibration from other programs can
//! (`cove_profile::replay` says how, and what the profile does with the
//! measured figure). The replay runs the same program with the same
//! arguments, limits and standard input — the bytes the profiled run read,
//! kept by [`Recorder`] — with its output thrown away, in a fresh process
//! (`cove bench-run --quiet`), and times the run alone, not its compile,
//! by that process's processor time. A fresh process, because that is
//! what `cove run` is: a replay in the profiling process ran an allocating
//! program a quarter slower and a byte loop a sixth faster than `cove run`
//! does (why was not pinned down). It is kept only if it ran exactly as
//! many instructions as the profiled run: the same count is the same path
//! through the program, so a run that went another way (one that read
//! more input than the profiled run was given, say) is never taken for
//! it, nor is a file that changed since it was compiled.
//!
//! The replay may not write files (`bench-run --no-writes`): a
//! `write_file` in it is a fault that writes nothing, so a replay never
//! repeats the profiled run's effects.
//!
//! The time a replay measures is the main task's own processor time (its
//! thread's clock, `Vm::cpu_nanos`), which is what a profile's total
//! describes: a program whose tasks work side by side spends more of the
//! process's processor time than its main task does, and the time the
//! main task waits for them is not running time (a profile reports it
//! apart, as blocked).
//!
//! What is never replayed: a program read from standard input, a run that
//! wrote a file (its replay would fault there), a program that can spawn a
//! task when the profile follows tasks (its total is every task's) or where
//! there is no clock per thread, a run that was interrupted or whose
//! output was closed, and a run that read more than [`MAX_RECORDED`] bytes
//! of input. A Ctrl-C during the replay stops it, and the profile is
//! written as it would have been without one.
//!
//! What it costs: one more run, unwatched, in a process of its own, which
//! compiles the program again: a few milliseconds for a program of a few
//! files (see [`replay`] for why once).

use std::io::{BufRead, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use cove_ir::builtins::Builtin;
use cove_ir::op::Instr;
use cove_ir::program::{FunctionId, Program};
use cove_profile::{Profiler, Replay};

use crate::cli::LimitArgs;
use crate::interrupt;
use crate::status::Status;

/// The most input a replay keeps to give its runs; a run that read more is
/// not replayed rather than held in memory whole.
pub const MAX_RECORDED: usize = 64 << 20;

/// What a run read of its input, kept for the replay.
#[derive(Debug, Default)]
struct Kept {
    bytes: Vec<u8>,
    /// False once the input outgrew [`MAX_RECORDED`] or a read of it failed.
    whole: bool,
}

/// The bytes a run read, shared between the run's [`Recorder`] and
/// whoever replays it.
#[derive(Debug, Clone)]
pub struct Recording(Arc<Mutex<Kept>>);

impl Recording {
    /// The bytes read, or `None` when not all of them were kept.
    pub fn bytes(&self) -> Option<Vec<u8>> {
        let kept = self.0.lock().ok()?;
        kept.whole.then(|| kept.bytes.clone())
    }
}

/// A run's input that keeps a copy of every byte the run consumed.
pub struct Recorder {
    inner: Box<dyn BufRead + Send>,
    kept: Recording,
    /// The most bytes kept.
    most: usize,
}

impl Recorder {
    /// Records what is read from `inner`, up to [`MAX_RECORDED`] bytes.
    pub fn new(inner: Box<dyn BufRead + Send>) -> (Recorder, Recording) {
        Recorder::keeping(inner, MAX_RECORDED)
    }

    /// Records what is read from `inner`, up to `most` bytes.
    fn keeping(inner: Box<dyn BufRead + Send>, most: usize) -> (Recorder, Recording) {
        let kept = Recording(Arc::new(Mutex::new(Kept {
            bytes: Vec::new(),
            whole: true,
        })));
        (
            Recorder {
                inner,
                kept: kept.clone(),
                most,
            },
            kept,
        )
    }

    fn keep(&self, bytes: &[u8]) {
        if let Ok(mut kept) = self.kept.0.lock()
            && kept.whole
        {
            if kept.bytes.len() + bytes.len() > self.most {
                kept.whole = false;
                kept.bytes = Vec::new();
            } else {
                kept.bytes.extend_from_slice(bytes);
            }
        }
    }

    fn lose(&self) {
        if let Ok(mut kept) = self.kept.0.lock() {
            kept.whole = false;
        }
    }
}

impl Read for Recorder {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.keep(&buf[..n]);
        Ok(n)
    }
}

impl BufRead for Recorder {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        // The bytes consumed are the front of the buffer the caller was
        // just given, which a second look returns without reading.
        match self.inner.fill_buf() {
            Ok(buffered) if buffered.len() >= amount => {
                let bytes = buffered[..amount].to_vec();
                self.keep(&bytes);
            }
            _ => self.lose(),
        }
        self.inner.consume(amount);
    }
}

/// Why a run was not replayed, or how its replay ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The run's time.
    Measured(Replay),
    /// Never attempted, for the reason given.
    Refused(&'static str),
    /// The replay ran a different number of instructions.
    Diverged {
        /// The profiled run's count.
        profiled: u64,
        /// The replay's.
        replayed: u64,
    },
    /// A Ctrl-C stopped it.
    Interrupted,
}

/// Why `program`, compiled from `file`, may not be replayed, if it may
/// not: it was read from standard input (which its run reads too), or it
/// can spawn a task and either the profile follows tasks (its total is
/// every task's, which a replay's main task does not measure) or the
/// platform has no clock per thread (the process's time would mix the
/// spawned tasks' work into the main task's).
pub fn refusal(program: &Program, file: &Path, follows_tasks: bool) -> Option<&'static str> {
    if file == Path::new(crate::compile::STDIN) {
        return Some("the program was read from standard input");
    }
    let mut code = program.functions.iter().flat_map(|f| f.code.iter());
    if !code.any(|instr| matches!(instr, Instr::Spawn { .. })) {
        return None;
    }
    if follows_tasks {
        Some(
            "the profile follows the tasks the program spawns, and a replay times only the main task",
        )
    } else if !cfg!(unix) {
        Some("the program can spawn tasks, and this platform cannot time the main task alone")
    } else {
        None
    }
}

/// Whether the run `profiler` watched wrote a file: a `write_file` of
/// `program` among the instructions that ran. Its replay would write it
/// again, or, run with writes refused as every replay is, fault where it
/// did not. The profile's rows are gathered only for a program that has a
/// `write_file` at all, which most do not.
pub fn wrote_files(program: &Program, profiler: &Profiler) -> bool {
    let writes: Vec<(FunctionId, u32)> = program
        .functions
        .iter()
        .enumerate()
        .flat_map(|(f, function)| {
            function
                .code
                .iter()
                .enumerate()
                .filter_map(move |(pc, instr)| {
                    matches!(
                        instr,
                        Instr::CallBuiltin {
                            builtin: Builtin::WriteFile,
                            ..
                        }
                    )
                    .then_some((FunctionId(f as u32), pc as u32))
                })
        })
        .collect();
    !writes.is_empty()
        && profiler
            .rows()
            .iter()
            .any(|(at, cost)| cost.ran > 0 && writes.contains(at))
}

/// Replays a run of the program `file` (with `args`, under the command
/// line's `flags`) that ran `instructions` instructions on `input`: runs it
/// once more in a fresh `cove` process, as `cove run` would.
///
/// Once: each run is paid for by every profile, and what one moment's
/// speed cannot settle, the comparison of two programs, `cove diff`
/// settles by timing them side by side (see `rerun`). Repeating every
/// run under 30 ms, tried first, made a default profile of the benchmark
/// suite 2.84 to 3.00 times a plain run's processor time (geomean); and
/// repeating only those under 5 ms still ran a program of nothing five
/// times, each a process of its own, for 9 ms where `cove run` takes 2.
pub fn replay(
    file: &Path,
    flags: &LimitArgs,
    args: &[String],
    input: Vec<u8>,
    instructions: u64,
) -> Outcome {
    let Ok(cove) = std::env::current_exe() else {
        return Outcome::Refused("cove could not find its own executable");
    };
    let input_bytes = input.len() as u64;
    interrupt::wait_for_child();
    let ran = run_once(&cove, file, flags, args, &Arc::new(input));
    // A Ctrl-C sent to `cove` alone leaves the child to finish.
    let pressed = interrupt::pressed();
    interrupt::run_ended();
    match ran {
        Err(outcome) => outcome,
        Ok(_) if pressed => Outcome::Interrupted,
        Ok(ran) if ran.instructions != instructions => Outcome::Diverged {
            profiled: instructions,
            replayed: ran.instructions,
        },
        Ok(ran) => Outcome::Measured(Replay {
            input_bytes,
            ..Replay::once(ran.cpu)
        }),
    }
}

/// One run of the replay: its processor time and its count of
/// instructions, as `cove bench-run` reports them (`cove diff`'s runs
/// side by side are made the same way).
pub fn run_once(
    cove: &Path,
    file: &Path,
    flags: &LimitArgs,
    args: &[String],
    input: &Arc<Vec<u8>>,
) -> Result<Ran, Outcome> {
    let mut command = Command::new(cove);
    command.args([
        "bench-run",
        "--debugger",
        "off",
        "--quiet",
        "--no-writes",
        "--ir-hash",
    ]);
    if let Some(fuel) = flags.fuel {
        command.arg(format!("--fuel={fuel}"));
    }
    if let Some(words) = flags.max_heap {
        command.arg(format!("--max-heap={words}"));
    }
    if let Some(depth) = flags.max_depth {
        command.arg(format!("--max-depth={depth}"));
    }
    if flags.gc_stress {
        command.arg("--gc-stress");
    }
    // A file whose name starts with `-` must not read as a flag.
    let file = if file.to_string_lossy().starts_with('-') {
        Path::new(".").join(file)
    } else {
        file.to_path_buf()
    };
    let mut child = command
        .arg(file)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|_| Outcome::Refused("cove could not start a process for it"))?;
    // Written from a thread of its own: a run that reads less than all of
    // it would otherwise leave this one blocked on a full pipe.
    let mut stdin = child.stdin.take();
    let feed = Arc::clone(input);
    let writer = std::thread::spawn(move || {
        if let Some(stdin) = stdin.as_mut() {
            let _ = stdin.write_all(&feed);
        }
    });
    let output = child.wait_with_output();
    let _ = writer.join();
    let output = output.map_err(|_| Outcome::Refused("cove could not wait for it"))?;
    if output.status.code() == Some(i32::from(Status::INTERRUPTED.code())) {
        return Err(Outcome::Interrupted);
    }
    let said = String::from_utf8_lossy(&output.stderr);
    let line = said
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("bench-run: "))
        .ok_or(Outcome::Refused("it did not say how long it took"))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let word = |name: &str| -> Option<&str> {
        let at = words.iter().position(|w| *w == name)?;
        words.get(at + 1).copied()
    };
    // The main task's own processor time, which a profile's total
    // describes; the process's, which holds every task's work, only where
    // the platform has no clock per thread (and then a program that can
    // spawn is not replayed: see `refusal`).
    let figure = |name: &str| word(name).and_then(|w| w.parse().ok());
    let cpu = figure("task")
        .or_else(|| figure("cpu"))
        .ok_or(Outcome::Refused("this build has no processor clock"))?;
    let instructions =
        figure("instructions").ok_or(Outcome::Refused("it did not say what it ran"))?;
    Ok(Ran {
        cpu,
        instructions,
        ir_hash: word("ir").map(str::to_string),
    })
}

/// What one unwatched run in a process of its own reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    /// Its main task's processor time, in nanoseconds (the process's where
    /// there is no clock per thread).
    pub cpu: u64,
    /// The instructions it ran.
    pub instructions: u64,
    /// The hash of the program's IR, as a profile records it.
    pub ir_hash: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorder(text: &str, most: usize) -> (Recorder, Recording) {
        let input = std::io::BufReader::with_capacity(8, std::io::Cursor::new(text.to_string()));
        Recorder::keeping(Box::new(input), most)
    }

    #[test]
    fn the_recording_holds_the_bytes_read_by_lines_and_by_blocks_and_no_more() {
        let (mut input, kept) = recorder("first line\nsecond\nthe rest, never read", 1000);
        let mut line = String::new();
        input.read_line(&mut line).expect("a line");
        assert_eq!(line, "first line\n");
        let mut block = [0u8; 4];
        input.read_exact(&mut block).expect("four bytes");
        assert_eq!(kept.bytes().expect("all kept"), b"first line\nseco");
    }

    #[test]
    fn input_past_the_most_kept_leaves_nothing_to_replay() {
        let (mut input, kept) = recorder("0123456789", 6);
        let mut all = String::new();
        input.read_to_string(&mut all).expect("all of it");
        assert_eq!(all, "0123456789");
        assert_eq!(kept.bytes(), None);
    }
}
