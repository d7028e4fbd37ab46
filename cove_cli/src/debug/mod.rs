//! `cove debug`: the debugger's two front ends over one engine.
//!
//! `cove debug FILE [ARGS...]` is a terminal session ([`terminal`]);
//! `cove debug --dap` serves the Debug Adapter Protocol on stdio, or on
//! 127.0.0.1 with `--port N` ([`dap`]). Both drive a
//! [`cove_debug::Session`], so a breakpoint, a `next` or a fault stop mean
//! the same in both; what lives here is only how each talks. [`view`] holds
//! the text both show: source lines, instructions, the profile so far.

pub mod dap;
pub mod protocol;
pub mod terminal;
pub mod view;

use cove_profile::{Profiler, SteppingClock};

use crate::cli::DebugArgs;
use crate::status::Status;

/// Runs `cove debug`.
pub fn debug(args: &DebugArgs) -> Status {
    if args.dap {
        dap::serve(args)
    } else {
        terminal::session(args)
    }
}

/// The profiler a debug run carries, following every task: with the
/// stepping clock when `COVE_FAKE_CLOCK=1` (tests), else the real one.
/// Time spent stopped at a prompt lands on the instruction the task stopped
/// before, so a debug session's profile is for its counts.
pub fn profiler() -> Profiler {
    let fake = std::env::var("COVE_FAKE_CLOCK").is_ok_and(|v| v == "1");
    let profiler = if fake {
        Profiler::with_clock(SteppingClock::new(1))
    } else {
        Profiler::new()
    };
    profiler.following_tasks()
}
