//! The profiler as a [`Debugger`]: the few lines between a `Stop` and a
//! [`Sample`].
//!
//! This is the only place the crate touches `cove_runtime`, and it touches
//! only the debugger seam: a stop's function, pc, depth, task and the two
//! heap counters. Everything the profiler decides is in
//! [`Profiler::record`], which this calls with the clock already read, so
//! the first read happens before the stop is even looked at.

use cove_runtime::vm::debug::{Debugger, Resume, Stop};

use crate::profiler::{Profiler, Sample};

impl Debugger for Profiler {
    /// Closes the instruction that just ran and opens the one about to.
    ///
    /// The count belongs to the instruction this stop is before; the time
    /// and the heap belong to the one the previous stop *of this task* was
    /// before, because those are what moved in between. The clock is read
    /// first thing here and last thing in the recording, so the interval a
    /// figure is measured over holds the instruction, the dispatch that
    /// reached it and the floor, and not the bookkeeping.
    #[inline]
    fn at(&self, stop: &Stop<'_>) -> Resume {
        let now = self.now();
        let sample = Sample {
            task: stop.task(),
            function: stop.function_id(),
            pc: stop.pc(),
            depth: stop.depth(),
            allocated_words: stop.allocated_words(),
            allocations: stop.allocations(),
        };
        self.record_at(now, &sample);
        Resume::Go
    }

    /// True only for a profiler made with [`Profiler::following_tasks`].
    fn follows_tasks(&self) -> bool {
        Profiler::follows_tasks(self)
    }
}
