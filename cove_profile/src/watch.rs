//! The profiler as a [`Debugger`]: the few lines between a `Stop` and a
//! [`Sample`].
//!
//! This is the only place the crate touches `cove_runtime`, and it touches
//! only the debugger seam: a stop's function, pc, depth, task, the two
//! heap counters and the task's blocked time. Everything the profiler
//! decides is in
//! [`Profiler::record`], which this calls with the clock already read, so
//! the first read happens before the stop is even looked at.

use cove_ir::op::StretchEnd;
use cove_ir::program::FunctionId;
use cove_runtime::vm::debug::{Debugger, Glance, Resume, Stop, Stops};

use crate::hot::Inside;
use crate::profiler::{Profiler, Reach, Sample};

impl Debugger for Profiler {
    /// Closes the instruction that just ran and opens the one about to.
    ///
    /// The count belongs to the instruction this stop is before; the time
    /// and the heap belong to the one the previous stop *of this task* was
    /// before, because those are what moved in between. The clock is read
    /// first thing here and last thing in the recording, so the interval a
    /// figure is measured over holds the instruction, the dispatch that
    /// reached it and the floor, and not the bookkeeping.
    #[inline(always)]
    fn at(&self, stop: &Stop<'_>) -> Resume {
        if self.is_untimed_at_stops() && stop.task() == 0 {
            // Almost every stop: same frame, same heap, one more count.
            if !self.hot.step(
                stop.function_id(),
                stop.pc(),
                stop.depth(),
                Sample::movement(stop.allocated_words(), stop.blocked_nanos()),
            ) {
                self.untimed_slow(stop);
            }
            return Resume::Go;
        }
        if self.is_untimed_at_stops() {
            // A spawned task's stop reads the stretches' lengths.
            self.hot.prepare(stop.program());
        }
        let now = self.now();
        self.record_at(now, &sample_of(stop), Reach::Lease);
        Resume::Go
    }

    /// The stops after a branch, a call, a return or an instruction that
    /// may allocate, for the untimed profilers on task 0: after a branch
    /// only the count moves; after a call or a return the slow stop runs as
    /// `at` would run it, without the `Stop` being built or looked at,
    /// since the heap is where it was; after an allocation in the frame of
    /// the stop before, the heap's movement and the count go to the
    /// lock-free front (`Hot::moved_glance`).
    #[inline(always)]
    fn glance(&self, glance: &Glance<'_>) -> bool {
        // Only the untimed modes stop at stretches, so only they are
        // offered glances; task 0's stops are the ones its front takes.
        // A branch's glance is the commonest stop of all: tested first.
        let after = glance.after();
        if after == StretchEnd::Branch {
            return glance.task() == 0 && self.hot.branched(glance.pc());
        }
        if glance.task() != 0 {
            return false;
        }
        match after {
            StretchEnd::Call => {
                self.untimed_hop::<true>(glance.function_id(), glance.pc(), glance.depth())
            }
            StretchEnd::Return => {
                self.untimed_hop::<false>(glance.function_id(), glance.pc(), glance.depth())
            }
            StretchEnd::Other => self.untimed_moved(
                glance.function_id(),
                glance.pc(),
                glance.depth(),
                glance.allocated_words(),
                glance.allocations(),
                glance.blocked_nanos(),
            ),
            _ => false,
        }
    }

    /// Stretches for the untimed profilers, whose counts need only where
    /// control went; every instruction for the interval one, which times
    /// each.
    fn stops(&self) -> Stops {
        if self.is_untimed_at_stops() {
            Stops::Stretches
        } else {
            Stops::Instructions
        }
    }

    /// Takes back what a fault kept from running of the stretch the last
    /// stop counted whole (the untimed modes; the interval one counts each
    /// instruction as it comes).
    fn faulted(&self, stop: &Stop<'_>, _error: &cove_runtime::RunError) {
        if !self.is_untimed_at_stops() {
            return;
        }
        if stop.task() == 0 {
            self.uncount_unran(stop.function_id(), stop.pc(), stop.ran());
        } else {
            self.uncount_unran_spawned(stop.task(), stop.function_id(), stop.pc(), stop.ran());
        }
    }

    /// The task's thread lets go of task 0's shard (see `lease.rs`).
    fn ended(&self, task: u32) {
        self.task_ended(task);
    }

    /// True only for a profiler made with [`Profiler::following_tasks`].
    fn follows_tasks(&self) -> bool {
        Profiler::follows_tasks(self)
    }
}

impl Profiler {
    /// The slow stop of the untimed modes after a call (`CALL`) or a
    /// return, which allocate nothing. False, with nothing recorded, when
    /// the shard cannot take it by its shape.
    #[inline(never)]
    fn untimed_hop<const CALL: bool>(&self, function: FunctionId, pc: u32, depth: usize) -> bool {
        // Reached once, as in `glanced_stop`.
        let hot: &crate::hot::Hot = &self.hot;
        hot.busy(Inside::Slow);
        let taken = self.glanced_stop::<CALL>(function, pc, depth);
        hot.busy(Inside::Program);
        taken
    }

    /// The stop of the untimed modes after an instruction that may have
    /// allocated, taken by the lock-free front when it is in the frame of
    /// the stop before and the task waited for nothing. Out of line, as
    /// the hops are, and a method of the profiler taking plain values:
    /// inlined into the dispatch loop, its loads and stores took machine
    /// registers from every handler (callgrind, counting runs: loop +1.8%,
    /// sieve +1.2%, for append's −1.2%), and so did calling the front's
    /// method out of line directly (loop +2.7%).
    #[inline(never)]
    fn untimed_moved(
        &self,
        function: FunctionId,
        pc: u32,
        depth: usize,
        words: u64,
        allocations: u64,
        blocked: u64,
    ) -> bool {
        self.hot
            .moved_glance(function, pc, depth, words, allocations, blocked)
    }

    /// The slow stop of the untimed modes, out of the loop's way.
    #[cold]
    #[inline(never)]
    fn untimed_slow(&self, stop: &Stop<'_>) {
        self.hot.prepare(stop.program());
        // Only a sampler reads which kind of stop this is, and finding out
        // costs a look at the count table: a counting profile skips it.
        let inside = if self.sampler.is_some() && self.hot.after_heavy() {
            Inside::Heavy
        } else {
            Inside::Slow
        };
        self.hot.busy(inside);
        let at = sample_of(stop);
        // The commonest slow stop that is not a call's or a return's: the
        // next in the same frame after an allocation.
        if !self.moved_stop(&at) {
            self.slow_stop(&at, Reach::Lease);
        }
        self.hot.busy(Inside::Program);
    }
}

/// What the profiler records of a stop.
#[inline(always)]
fn sample_of(stop: &Stop<'_>) -> Sample {
    Sample {
        task: stop.task(),
        function: stop.function_id(),
        pc: stop.pc(),
        depth: stop.depth(),
        allocated_words: stop.allocated_words(),
        allocations: stop.allocations(),
        blocked_nanos: stop.blocked_nanos(),
    }
}
