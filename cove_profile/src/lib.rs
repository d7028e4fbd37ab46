//! The Cove profiler: a debugger that never stops.
//!
//! A [`Profiler`] is installed on a `cove_runtime::Vm` the way any debugger
//! is, with `Vm::with_debugger`, and is called before every instruction the
//! run executes. It records which function and program counter that is and
//! what the instruction before it cost, and answers "go on". Nothing is added
//! to the machine for it, so a run that asks for no profile is the run it
//! was.
//!
//! Every row of a profile carries five figures: the four of a [`Cost`],
//! and the blocked time a [`Charge`] keeps beside it:
//!
//! - **ran**: how many times the instruction executed. Exact: every
//!   instruction is counted, not one in a thousand, and the count equals
//!   `Vm::instructions()`.
//! - **words** and **allocations**: what the task's heap handed out while
//!   the instruction ran. Exact: a difference of two counters.
//! - **nanos**: the time from the stop before the instruction to the stop
//!   after it. *Not* exact: every instruction also pays a floor (two clock
//!   reads and the way in and out of the hook), measured when the profile
//!   begins and reported as [`Floor`]. Read time as a ratio between rows, or
//!   per instruction to find an expensive opcode; never as an absolute.
//! - **blocked**: the time the task spent parked in the instruction (a
//!   `join` or `recv` that waited) rather than running, measured by the
//!   runtime around each wait and never part of `nanos`.
//!
//! Beyond the flat rows the profiler keeps a calling-context tree per task,
//! so [`report`] can give each function's self and inclusive cost, its
//! callers and callees, and the stacks behind a flame graph. Reports come as
//! an aligned text table, JSON, the callgrind format, folded stacks and an
//! SVG flame graph; [`diff`] compares two JSON profiles.
//!
//! # Example
//!
//! ```
//! use cove_ir::program::FunctionId;
//! use cove_profile::report::{By, Report};
//! use cove_profile::{Profiler, Sample, SteppingClock};
//!
//! // With a Vm: `Vm::new(&program).with_debugger(&profiler).run_entry(..)`.
//! // Here the stops are fed by hand, as another engine could.
//! let mut program = cove_ir::program::Program::new();
//! let mut main = cove_ir::program::Function::new("m", "main");
//! main.code = vec![
//!     cove_ir::op::Instr::LoadInt { dst: cove_ir::op::Reg(0), value: 1 },
//!     cove_ir::op::Instr::Return { src: cove_ir::op::Reg(0) },
//! ];
//! main.lines = vec![1, 1];
//! program.add_function(main);
//!
//! let profiler = Profiler::with_clock(SteppingClock::new(10));
//! for pc in [0, 1] {
//!     profiler.record(&Sample {
//!         task: 0,
//!         function: FunctionId(0),
//!         pc,
//!         depth: 1,
//!         allocated_words: 0,
//!         allocations: 0,
//!         blocked_nanos: 0,
//!     });
//! }
//! assert_eq!(profiler.counted(), 2);
//!
//! let report = Report::new(&program, &profiler);
//! let table = report.table(By::Instruction, 10);
//! assert!(table.contains("m.main@0  load.int r0, 1"));
//! assert_eq!(report.folded(cove_profile::report::Metric::Ran), "m.main 2\n");
//! ```
//!
//! # Features
//!
//! A [`Profiler`] alone needs no feature. `reports` (default) adds the
//! `report` and `diff` modules and what they need (serde, serde_json,
//! inferno); `pprof` (default) the pprof format (prost, flate2);
//! `thread-clocks` (default) the clocks read through libc on Unix, each
//! thread's processor time for the sampler and `CLOCK_MONOTONIC` for the
//! real clock, which otherwise read `Instant`. `cargo build -p cove_profile
//! --no-default-features` builds the profiler with none of them.
//!
//! # Tasks
//!
//! A profiler covers the task it was installed on (task 0) unless it was
//! made with [`Profiler::following_tasks`]; then every task the run spawns is
//! profiled too, each on its own heap counters and its own calling-context
//! tree rooted at the function it was spawned on. The flat accessors add
//! the tasks together; the reports say which tasks they cover.

// Every `pub` item is part of the API an embedder sees; anything else is
// `pub(crate)`, so the lint keeps the two from drifting apart.
#![warn(unreachable_pub)]

mod clock;
mod context;
mod cost;
#[cfg(feature = "reports")]
pub mod diff;
mod hot;
mod lease;
mod profiler;
pub mod replay;
#[cfg(feature = "reports")]
pub mod report;
mod sampler;
mod shard;
mod watch;

pub use clock::{Clock, RealClock, SteppingClock, TscClock};
pub use cost::{Charge, Cost};
pub use profiler::{Estimate, Floor, Profiler, Sample, StopCosts};
pub use replay::Replay;
pub use sampler::process_cpu_nanos;
