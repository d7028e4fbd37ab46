//! [`Profiler`]: a debugger that never stops.
//!
//! Installed on a `Vm` with `with_debugger`, it is called before every
//! instruction, records which function and program counter that is, closes
//! the instruction before it, and lets the run go on. Nothing is added to the
//! machine and nothing to the dispatch loop, so a run with no profiler is the
//! run it was.
//!
//! # What a stop costs
//!
//! Two clock reads, one uncontended lock of this task's shard, two indexings
//! into a dense table, and a comparison that says the call stack did not
//! change. The seed took two mutexes and two hash-map entries per
//! instruction; the clock reads are now most of what is left, and they are
//! what the measurement is made of, so they stay. `docs/PROFILING.md` has
//! the measured ratio of a profiled run to an unprofiled one.
//!
//! # Why the recording takes plain data
//!
//! [`Profiler::record`] takes a [`Sample`] — task, function, pc, depth and
//! the two heap counters — and the debugger adapter is a few lines that build
//! one from a `Stop`. That keeps every rule about attribution testable
//! without a virtual machine, and lets another engine feed the same reports.

use std::sync::Arc;

use cove_ir::program::FunctionId;
use parking_lot::{Mutex, RwLock};
use serde::{Deserialize, Serialize};

use crate::clock::{Clock, RealClock, Timer, TscClock};
use crate::cost::Cost;
use crate::shard::{Shard, TaskProfile};

/// What one stop tells the profiler: plain data, no machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// The task that stopped: 0 for the task the `Vm` ran, spawned tasks 1,
    /// 2, ... in spawn order.
    pub task: u32,
    /// The function about to run an instruction.
    pub function: FunctionId,
    /// The program counter of that instruction.
    pub pc: u32,
    /// How many frames the task's stack holds; the entry's frame is 1.
    pub depth: usize,
    /// Words the task's heap has handed out so far, cumulative.
    pub allocated_words: u64,
    /// Objects the task's heap has handed out so far, cumulative.
    pub allocations: u64,
}

/// The per-instruction floor of the timing, measured when the profiler was
/// made.
///
/// Every instruction's interval holds, besides the instruction, the tail of
/// one stop and the head of the next: a clock read, a lock released and
/// taken, the way out of the hook and back in. The floor is that, timed by
/// running the profiler's own recording path back to back with no
/// instruction between. It is an estimate (the machine's dispatch and the
/// building of a `Stop` are not in it), so net time is an estimate too.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Floor {
    /// Nanoseconds every instruction's time includes, whatever it did.
    pub nanos: f64,
    /// How many back-to-back stops the figure is the median batch of.
    pub samples: u64,
}

/// How many empty stops a calibration batch makes, and how many batches.
const BATCH: u64 = 256;
const BATCHES: usize = 15;

/// Counts what a run executes, by the instruction that executed.
///
/// ```
/// use cove_ir::program::FunctionId;
/// use cove_profile::{Profiler, Sample, SteppingClock};
///
/// let profiler = Profiler::with_clock(SteppingClock::new(10));
/// for pc in [0, 1, 1, 2] {
///     profiler.record(&Sample {
///         task: 0,
///         function: FunctionId(0),
///         pc,
///         depth: 1,
///         allocated_words: 0,
///         allocations: 0,
///     });
/// }
/// assert_eq!(profiler.counted(), 4);
/// assert_eq!(profiler.hottest()[0].0, (FunctionId(0), 1));
/// ```
pub struct Profiler {
    timer: Timer,
    follows: bool,
    floor: Floor,
    /// Task 0's shard, the task the profiler was installed on: reached
    /// without touching the table of the others.
    main: Mutex<Shard>,
    /// The shards of spawned tasks, `spawned[task - 1]`, made as tasks first
    /// stop.
    spawned: RwLock<Vec<Arc<Mutex<Shard>>>>,
}

impl std::fmt::Debug for Profiler {
    /// A summary: the tables themselves can be millions of cells, which is
    /// what the reports are for.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Profiler")
            .field("clock", &self.timer)
            .field("follows_tasks", &self.follows)
            .field("floor", &self.floor)
            .field("tasks", &self.tasks())
            .field("total", &self.total())
            .finish()
    }
}

impl Default for Profiler {
    fn default() -> Profiler {
        Profiler::new()
    }
}

impl Profiler {
    /// A profiler with nothing recorded yet, timing with the real clock and
    /// watching the task it is installed on.
    pub fn new() -> Profiler {
        Profiler::timed(Timer::Real(RealClock::new()))
    }

    /// A profiler that reads `clock` instead of the real one: a
    /// [`crate::SteppingClock`] makes every report deterministic.
    pub fn with_clock(clock: impl Clock + 'static) -> Profiler {
        Profiler::timed(Timer::Other(Box::new(clock)))
    }

    /// A profiler that times with the processor's time-stamp counter
    /// ([`crate::TscClock`]) read inline, where there is one, and with the
    /// real clock elsewhere. A counter read is a fraction of a system clock
    /// read, and the clock reads are most of what a profiled instruction
    /// costs, so this is the cheaper profile; its nanoseconds rest on the
    /// counter's rate, measured against the real clock when it is made.
    pub fn with_counter_clock() -> Profiler {
        let counter = TscClock::new();
        if counter.is_counter() {
            Profiler::timed(Timer::Counter(counter))
        } else {
            Profiler::new()
        }
    }

    /// What the reports call this profiler's clock: `real`, `counter` or
    /// `injected`.
    pub fn clock_name(&self) -> &'static str {
        self.timer.name()
    }

    fn timed(timer: Timer) -> Profiler {
        let mut profiler = Profiler {
            timer,
            follows: false,
            floor: Floor {
                nanos: 0.0,
                samples: 0,
            },
            main: Mutex::new(Shard::default()),
            spawned: RwLock::new(Vec::new()),
        };
        profiler.floor = profiler.calibrate();
        profiler
    }

    /// This profiler, also watching every task the run spawns, each task's
    /// costs kept apart and its calling context rooted at the function it
    /// was spawned on.
    pub fn following_tasks(mut self) -> Profiler {
        self.follows = true;
        self
    }

    /// Whether spawned tasks are watched too (see
    /// [`Profiler::following_tasks`]).
    pub fn follows_tasks(&self) -> bool {
        self.follows
    }

    /// The per-instruction floor measured when this profiler was made.
    pub fn floor(&self) -> Floor {
        self.floor
    }

    /// Whether the time is read from the real clock.
    pub fn is_real_time(&self) -> bool {
        self.timer.is_real()
    }

    /// Times the recording path itself, with nothing between two stops.
    fn calibrate(&self) -> Floor {
        let probe = Sample {
            task: 0,
            function: FunctionId(0),
            pc: 0,
            depth: 1,
            allocated_words: 0,
            allocations: 0,
        };
        let mut batches = Vec::with_capacity(BATCHES);
        for _ in 0..BATCHES {
            let scratch = Mutex::new(Shard::default());
            for _ in 0..=BATCH {
                let now = self.timer.now();
                let mut shard = scratch.lock();
                shard.record(now, &probe);
                shard.stamp(self.timer.now());
            }
            let nanos = scratch.lock().total().nanos;
            batches.push(nanos as f64 / BATCH as f64);
        }
        batches.sort_by(f64::total_cmp);
        Floor {
            nanos: batches[BATCHES / 2],
            samples: BATCH,
        }
    }

    /// The profiler's clock, read now.
    #[inline(always)]
    pub(crate) fn now(&self) -> u64 {
        self.timer.now()
    }

    /// Records one stop, reading the clock first thing and last thing.
    ///
    /// This is the whole of what the debugger adapter does, made public so
    /// that tests and other engines can feed a profile without a machine.
    #[inline]
    pub fn record(&self, at: &Sample) {
        let now = self.now();
        self.record_at(now, at);
    }

    /// Records a stop whose first clock read was `now`. The interval an
    /// instruction is timed over ends at that read and starts at the read this
    /// method makes last, so the bookkeeping between is outside it.
    #[inline]
    pub(crate) fn record_at(&self, now: u64, at: &Sample) {
        if at.task == 0 {
            let mut shard = self.main.lock();
            shard.record(now, at);
            shard.stamp(self.timer.now());
        } else {
            self.record_spawned(now, at);
        }
    }

    fn record_spawned(&self, now: u64, at: &Sample) {
        let index = at.task as usize - 1;
        {
            let spawned = self.spawned.read();
            if let Some(shard) = spawned.get(index) {
                let mut shard = shard.lock();
                shard.record(now, at);
                shard.stamp(self.timer.now());
                return;
            }
        }
        let shard = {
            let mut spawned = self.spawned.write();
            while spawned.len() <= index {
                spawned.push(Arc::new(Mutex::new(Shard::default())));
            }
            Arc::clone(&spawned[index])
        };
        let mut shard = shard.lock();
        shard.record(now, at);
        shard.stamp(self.timer.now());
    }

    /// Calls `each` with every task's shard that recorded anything, task 0
    /// first.
    fn for_each_task(&self, mut each: impl FnMut(u32, &Shard)) {
        let main = self.main.lock();
        if !main.is_empty() {
            each(0, &main);
        }
        drop(main);
        let spawned = self.spawned.read();
        for (i, shard) in spawned.iter().enumerate() {
            let shard = shard.lock();
            if !shard.is_empty() {
                each(i as u32 + 1, &shard);
            }
        }
    }

    /// The tasks that recorded anything, in task order.
    pub fn tasks(&self) -> Vec<u32> {
        let mut tasks = Vec::new();
        self.for_each_task(|task, _| tasks.push(task));
        tasks
    }

    /// How many instructions were counted.
    pub fn counted(&self) -> u64 {
        self.total().ran
    }

    /// What the whole run cost, by the four figures a row carries.
    pub fn total(&self) -> Cost {
        let mut all = Cost::default();
        self.for_each_task(|_, shard| all.add(&shard.total()));
        all
    }

    /// Every instruction that ran and what it cost, in no particular order,
    /// every task's costs added together.
    ///
    /// For a reader that wants to group by something only the program knows
    /// (the opcode, the callee a `call` names): the profiler holds no
    /// program, and [`crate::report`] is the reader that does.
    pub fn rows(&self) -> Vec<((FunctionId, u32), Cost)> {
        let mut rows: Vec<((FunctionId, u32), Cost)> = Vec::new();
        self.for_each_task(|_, shard| rows.extend(shard.rows()));
        rows.sort_by_key(|(at, _)| *at);
        rows.dedup_by(|later, kept| {
            if later.0 == kept.0 {
                kept.1.add(&later.1);
                true
            } else {
                false
            }
        });
        rows
    }

    /// Every instruction that ran, and what it cost, hottest first.
    ///
    /// Ties are broken by the instruction's own identity, so two runs of one
    /// program report the same order: a profile that reordered its own ties
    /// would make an unchanged program look changed.
    pub fn hottest(&self) -> Vec<((FunctionId, u32), Cost)> {
        let mut rows = self.rows();
        rows.sort_by(|a, b| b.1.ran.cmp(&a.1.ran).then(a.0.cmp(&b.0)));
        rows
    }

    /// Every function that ran, and what its own instructions cost, hottest
    /// first, ties broken by function.
    pub fn by_function(&self) -> Vec<(FunctionId, Cost)> {
        let mut per: Vec<(FunctionId, Cost)> = Vec::new();
        for ((function, _), cost) in self.rows() {
            match per.last_mut() {
                Some((f, sum)) if *f == function => sum.add(&cost),
                _ => per.push((function, cost)),
            }
        }
        per.sort_by(|a, b| b.1.ran.cmp(&a.1.ran).then(a.0.cmp(&b.0)));
        per
    }

    /// A copy of every task's profile, for the reports.
    pub(crate) fn snapshot(&self) -> Vec<TaskProfile> {
        let mut all = Vec::new();
        self.for_each_task(|task, shard| all.push(shard.snapshot(task)));
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SteppingClock;

    fn at(task: u32, function: u32, pc: u32, depth: usize) -> Sample {
        Sample {
            task,
            function: FunctionId(function),
            pc,
            depth,
            allocated_words: 0,
            allocations: 0,
        }
    }

    #[test]
    fn under_a_stepping_clock_the_floor_is_one_step_and_so_is_every_instruction() {
        let profiler = Profiler::with_clock(SteppingClock::new(25));
        assert_eq!(profiler.floor().nanos, 25.0);
        for pc in 0..4 {
            profiler.record(&at(0, 0, pc, 1));
        }
        let total = profiler.total();
        assert_eq!(total.ran, 4);
        assert_eq!(total.nanos, 3 * 25, "the last instruction is never closed");
    }

    #[test]
    fn a_profiler_debug_prints_as_a_summary_not_its_tables() {
        let profiler = Profiler::with_clock(SteppingClock::new(1));
        profiler.record(&at(0, 0, 0, 1));
        let text = format!("{profiler:?}");
        assert!(
            text.contains("tasks: [0]") && text.contains("ran: 1"),
            "{text}"
        );
        assert!(!text.contains("table"), "{text}");
    }

    #[test]
    fn ties_are_broken_by_the_instructions_identity() {
        let profiler = Profiler::with_clock(SteppingClock::new(1));
        for pc in [3, 1, 2, 1, 3] {
            profiler.record(&at(0, 0, pc, 1));
        }
        let order: Vec<u32> = profiler.hottest().iter().map(|((_, pc), _)| *pc).collect();
        assert_eq!(order, vec![1, 3, 2]);
    }

    #[test]
    fn each_task_closes_its_own_previous_instruction() {
        let profiler = Profiler::with_clock(SteppingClock::new(1)).following_tasks();
        profiler.record(&Sample {
            allocated_words: 100,
            ..at(0, 0, 0, 1)
        });
        profiler.record(&Sample {
            allocated_words: 7,
            ..at(1, 1, 0, 1)
        });
        profiler.record(&Sample {
            allocated_words: 9,
            ..at(1, 1, 1, 1)
        });
        profiler.record(&Sample {
            allocated_words: 104,
            ..at(0, 0, 1, 1)
        });
        let rows = profiler.rows();
        assert_eq!(rows[0].0, (FunctionId(0), 0));
        assert_eq!(rows[0].1.words, 4, "task 0's heap moved by four");
        assert_eq!(rows[2].0, (FunctionId(1), 0));
        assert_eq!(rows[2].1.words, 2, "task 1's heap moved by two");
        assert_eq!(profiler.tasks(), vec![0, 1]);
        assert!(profiler.follows_tasks());
    }

    #[test]
    fn a_sample_far_beyond_any_program_is_recorded_without_a_giant_table() {
        let profiler = Profiler::with_clock(SteppingClock::new(1));
        profiler.record(&at(0, u32::MAX - 1, u32::MAX, 1));
        profiler.record(&at(0, 0, 0, 1));
        let rows = profiler.rows();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].0, (FunctionId(u32::MAX - 1), u32::MAX));
        assert_eq!(rows[1].1.nanos, 1);
    }

    #[test]
    fn tasks_recorded_from_many_threads_at_once_lose_nothing() {
        let profiler = Profiler::with_clock(SteppingClock::new(1)).following_tasks();
        std::thread::scope(|scope| {
            for task in 0..4 {
                let profiler = &profiler;
                scope.spawn(move || {
                    for i in 0..10_000u32 {
                        profiler.record(&Sample {
                            allocated_words: u64::from(i),
                            ..at(task, task, i % 7, 1)
                        });
                    }
                });
            }
        });
        assert_eq!(profiler.counted(), 40_000);
        assert_eq!(profiler.tasks(), vec![0, 1, 2, 3]);
        assert_eq!(
            profiler.total().words,
            4 * 9_999,
            "each task's heap moved by its own counter"
        );
        assert_eq!(profiler.by_function().len(), 4);
    }

    #[test]
    fn a_function_sums_every_program_counter_of_its_own() {
        let profiler = Profiler::with_clock(SteppingClock::new(1));
        for (f, pc, depth) in [(0, 0, 1), (1, 0, 2), (1, 1, 2), (0, 1, 1)] {
            profiler.record(&at(0, f, pc, depth));
        }
        let per = profiler.by_function();
        assert_eq!(per.len(), 2);
        assert_eq!(
            per.iter().map(|(_, c)| c.ran).sum::<u64>(),
            profiler.counted()
        );
    }
}
