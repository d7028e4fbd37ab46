//! Ctrl-C: end the run at its next safepoint rather than killing the process.
//!
//! The first Ctrl-C asks the run to stop through its
//! [`InterruptHandle`]; the run then returns
//! an interrupted `RunError` like any other, so `cove profile` still writes
//! the profile of what ran and `cove run` still prints where the program
//! was. A second Ctrl-C exits at once, for a run that will not reach a
//! safepoint (a builtin blocked on a channel, say) — a person pressing it
//! twice wants out. What the program printed is flushed before that exit,
//! and a Ctrl-C after the run (while `cove profile` writes its report)
//! exits at once the same way.
//!
//! `ctrlc` runs the handler on a thread of its own, not inside the signal,
//! so it may take a lock and print.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
#[cfg(feature = "profiler")]
use std::sync::{Arc, atomic::AtomicBool};

use cove_runtime::InterruptHandle;

use crate::status::Status;

/// The run the next Ctrl-C stops.
static TARGET: Mutex<Option<InterruptHandle>> = Mutex::new(None);

/// How many times Ctrl-C was pressed.
static PRESSES: AtomicU32 = AtomicU32::new(0);

/// Makes Ctrl-C interrupt the run `handle` belongs to.
///
/// Installing the process's handler can fail (another one is installed, or
/// the platform has no signals); then Ctrl-C keeps its default meaning,
/// which is a worse experience and not a reason to refuse to run.
pub fn forward_to(handle: InterruptHandle) {
    if let Ok(mut target) = TARGET.lock() {
        *target = Some(handle);
    }
    let _ = ctrlc::set_handler(|| {
        if PRESSES.fetch_add(1, Ordering::SeqCst) > 0 {
            exit_now("interrupted twice; exiting now");
        }
        let handle = TARGET.lock().ok().and_then(|target| target.clone());
        match handle {
            Some(handle) => handle.interrupt(),
            // The run is over and `cove` is writing its report: there is
            // no safepoint left to stop at.
            None => exit_now("interrupted"),
        }
    });
}

/// Makes Ctrl-C set `flag`, which `cove debug`'s engine reads before every
/// instruction: the run pauses at its next instruction instead of ending.
/// A second press before the run has paused (the flag still set) exits, as
/// a second Ctrl-C does under [`forward_to`]; at the prompt the line editor
/// takes Ctrl-C itself.
#[cfg(feature = "profiler")]
pub fn pause_on_ctrl_c(flag: Arc<AtomicBool>) {
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            crate::pipe::eprint(format_args!("\ncove: interrupted twice; exiting now\n"));
            exit_now("interrupted twice; exiting now");
        }
    });
}

/// Says there is no run left to stop: a Ctrl-C from now on (while a
/// profile's report is rendered and written, say) exits at once.
pub fn run_ended() {
    if let Ok(mut target) = TARGET.lock() {
        *target = None;
    }
}

/// Exits with the interrupted status, after flushing what the program
/// printed (see [`crate::output`]) and removing a report not yet in place
/// (see [`crate::report_file`]).
fn exit_now(why: &str) -> ! {
    crate::output::flush_for_exit();
    crate::pipe::eprint(format_args!("\ncove: {why}\n"));
    #[cfg(feature = "profiler")]
    crate::report_file::abandon_for_exit();
    std::process::exit(i32::from(Status::INTERRUPTED.code()));
}
