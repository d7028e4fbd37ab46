//! Ctrl-C: end the run at its next safepoint rather than killing the
//! process, and end `cove` with the interrupted status whatever it was
//! doing.
//!
//! One handler is installed when `cove` starts ([`install`]) and reads
//! what there is to stop now ([`Target`]):
//!
//! - **Nothing** (compiling, checking, formatting, writing a report): the
//!   Ctrl-C exits at once with 130, after flushing what the program
//!   printed and removing a file not yet renamed into place. Before the
//!   handler was installed this early, a Ctrl-C during a long compile or
//!   `cove fmt` killed the process by the signal's default action,
//!   leaving no status of `cove`'s and, mid-write, a temporary file.
//! - **A run** ([`forward_to`]): the first Ctrl-C asks it to stop through
//!   its [`InterruptHandle`]; the run then returns an interrupted
//!   `RunError` like any other, so `cove profile` still writes the profile
//!   of what ran and `cove run` still prints where the program was. A run
//!   waiting in the host, where no safepoint comes (a `read_line` from a
//!   pipe or terminal nobody writes to, the open of a named pipe), would
//!   ignore that request, so if the run has not ended [`GRACE`] after it,
//!   `cove` exits as for a second Ctrl-C. A second Ctrl-C exits at once —
//!   a person pressing it twice wants out.
//! - **A child process's run** ([`wait_for_child`]: `cove profile`'s
//!   replay): the child, in the same process group, gets the Ctrl-C
//!   itself and ends with the interrupted status; a second one exits.
//! - **A paused debug session's run** ([`pause_on_ctrl_c`]): the run
//!   pauses at its next instruction.
//!
//! `ctrlc` runs the handler on a thread of its own, not inside the signal,
//! so it may take a lock, print and start a thread. It costs one thread,
//! asleep until a Ctrl-C, and one more for the grace period of a run.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
#[cfg(feature = "profiler")]
use std::sync::{Arc, atomic::AtomicBool};
use std::time::Duration;

use cove_runtime::InterruptHandle;

use crate::status::Status;

/// How long a run may take to stop after a Ctrl-C asked it to before
/// `cove` exits without it: far more than a safepoint takes to come
/// (every few thousand instructions, and every 50 ms in a wait on a
/// channel), well within the second a person waits.
pub const GRACE: Duration = Duration::from_millis(500);

/// What the next Ctrl-C stops.
#[derive(Debug, Clone)]
enum Target {
    /// No run: the Ctrl-C ends `cove`.
    Nothing,
    /// A run, which the Ctrl-C asks to stop.
    Run(InterruptHandle),
    /// A debug session's run, which the Ctrl-C pauses.
    #[cfg(feature = "profiler")]
    Pause(Arc<AtomicBool>),
    /// A child process running a program, which gets the Ctrl-C itself
    /// (it is in the same process group) and ends with the interrupted
    /// status: nothing more to do here but count it.
    #[cfg(feature = "profiler")]
    Child,
}

/// What the next Ctrl-C stops.
static TARGET: Mutex<Target> = Mutex::new(Target::Nothing);

/// Counts the runs [`forward_to`] and [`run_ended`] began and ended, so
/// that a grace period knows whether the run it waits on is still the
/// current one.
static RUNS: AtomicU64 = AtomicU64::new(0);

/// How many times Ctrl-C was pressed, a debug session's pauses aside.
static PRESSES: AtomicU32 = AtomicU32::new(0);

/// Installs the process's Ctrl-C handler; called once, first thing.
///
/// Installing it can fail (the platform has no signals); then Ctrl-C keeps
/// its default meaning, which is a worse experience and not a reason to
/// refuse to run.
pub fn install() {
    let _ = ctrlc::set_handler(on_ctrl_c);
}

/// What a Ctrl-C does, on `ctrlc`'s thread.
fn on_ctrl_c() {
    let target = TARGET.lock().map(|t| t.clone()).unwrap_or(Target::Nothing);
    // A pause is the debugger's to count (its flag is still set).
    let again = match target {
        Target::Nothing | Target::Run(_) => PRESSES.fetch_add(1, Ordering::SeqCst) > 0,
        #[cfg(feature = "profiler")]
        Target::Child => PRESSES.fetch_add(1, Ordering::SeqCst) > 0,
        #[cfg(feature = "profiler")]
        Target::Pause(_) => false,
    };
    match target {
        Target::Nothing if again => exit_now("interrupted twice; exiting now"),
        Target::Nothing => exit_now("interrupted"),
        Target::Run(_) if again => exit_now("interrupted twice; exiting now"),
        Target::Run(handle) => {
            handle.interrupt();
            let run = RUNS.load(Ordering::SeqCst);
            // A thread of its own, so that this one is free for a second
            // Ctrl-C meanwhile. If it cannot be started, the second Ctrl-C
            // is still there.
            let _ = std::thread::Builder::new()
                .name("cove-ctrl-c".into())
                .spawn(move || {
                    std::thread::sleep(GRACE);
                    if RUNS.load(Ordering::SeqCst) == run {
                        exit_now(
                            "interrupted; the run did not stop within half a second \
                             (it may be waiting for input); exiting now",
                        );
                    }
                });
        }
        #[cfg(feature = "profiler")]
        Target::Child if again => exit_now("interrupted twice; exiting now"),
        #[cfg(feature = "profiler")]
        Target::Child => {}
        #[cfg(feature = "profiler")]
        Target::Pause(flag) => {
            if flag.swap(true, Ordering::SeqCst) {
                exit_now("interrupted twice; exiting now");
            }
        }
    }
}

/// Makes Ctrl-C interrupt the run `handle` belongs to.
pub fn forward_to(handle: InterruptHandle) {
    RUNS.fetch_add(1, Ordering::SeqCst);
    if let Ok(mut target) = TARGET.lock() {
        *target = Target::Run(handle);
    }
}

/// Makes Ctrl-C set `flag`, which `cove debug`'s engine reads before every
/// instruction: the run pauses at its next instruction instead of ending.
/// A second press before the run has paused (the flag still set) exits, as
/// a second Ctrl-C does under [`forward_to`]; at the prompt the line editor
/// takes Ctrl-C itself.
#[cfg(feature = "profiler")]
pub fn pause_on_ctrl_c(flag: Arc<AtomicBool>) {
    if let Ok(mut target) = TARGET.lock() {
        *target = Target::Pause(flag);
    }
}

/// Leaves a Ctrl-C to the child process running a program now, which
/// ends with the interrupted status for it (`cove profile`'s replay); a
/// second one exits.
#[cfg(feature = "profiler")]
pub fn wait_for_child() {
    RUNS.fetch_add(1, Ordering::SeqCst);
    if let Ok(mut target) = TARGET.lock() {
        *target = Target::Child;
    }
}

/// Whether Ctrl-C has been pressed (a debug session's pauses aside).
#[cfg(feature = "profiler")]
pub fn pressed() -> bool {
    PRESSES.load(Ordering::SeqCst) > 0
}

/// Says there is no run left to stop: a Ctrl-C from now on (while a
/// profile's report is rendered and written, say) exits at once, and the
/// grace period of an earlier one ends without exiting.
pub fn run_ended() {
    RUNS.fetch_add(1, Ordering::SeqCst);
    if let Ok(mut target) = TARGET.lock() {
        *target = Target::Nothing;
    }
}

/// Exits with the interrupted status, after flushing what the program
/// printed (see [`crate::output`]) and removing a file not yet in place
/// (see [`crate::report_file`]).
fn exit_now(why: &str) -> ! {
    crate::output::flush_for_exit();
    crate::pipe::eprint(format_args!("\ncove: {why}\n"));
    crate::report_file::abandon_for_exit();
    std::process::exit(i32::from(Status::INTERRUPTED.code()));
}
