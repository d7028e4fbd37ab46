//! The Cove profiler: a debugger that never stops.
//!
//! Placeholder crate doc, completed below.

mod clock;
mod context;
mod cost;
pub mod diff;
mod profiler;
mod render;
pub mod report;
mod shard;

pub use clock::{Clock, RealClock, SteppingClock};
pub use cost::Cost;
pub use profiler::{Floor, Profiler, Sample};
