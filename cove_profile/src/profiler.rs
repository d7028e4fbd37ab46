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
//! Two clock reads, a check that this thread holds its task's shard (task
//! 0's thread leases it for the run, see `lease.rs`; a spawned task's
//! takes an uncontended lock), two indexings into a dense table, and a comparison that says the call stack did not
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

use std::collections::BTreeMap;
use std::sync::Arc;

use cove_ir::op::StretchEnd;
use cove_ir::program::FunctionId;
use parking_lot::{Mutex, RwLock};
#[cfg(feature = "reports")]
use serde::{Deserialize, Serialize};

use crate::clock::{Clock, RealClock, Timer, TscClock};
use crate::cost::{Charge, Cost};
use crate::hot::Hot;
use crate::lease::Leased;
use crate::replay::{self, Replay};
use crate::sampler::Sampler;
use crate::shard::Shard;
#[cfg(feature = "reports")]
use crate::shard::TaskProfile;

/// What a sampled profile's time rests on (see [`Profiler::estimate`]).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "reports", derive(Serialize, Deserialize))]
pub struct Estimate {
    /// Looks the sampler took that charged time.
    pub samples: u64,
    /// Processor time the samples charged, the profiler's stops included.
    pub sampled_nanos: u64,
    /// What the profiler's own stops are estimated to have cost of it.
    pub overhead_nanos: u64,
    /// Slow and fast stops of task 0.
    pub stops: (u64, u64),
    /// The relative uncertainty of the net time (0.08 is ±8%).
    pub uncertainty: f64,
    /// Looks that charged time to followed spawned tasks, whose threads
    /// are sampled as task 0's is; 0 when none were followed, and in a
    /// profile written before they were sampled.
    #[cfg_attr(feature = "reports", serde(default))]
    pub spawned_samples: u64,
    /// Task 0's stops after an allocation or a builtin, each of which is
    /// charged [`StopCosts::heavy`] (0 in a profile written before they
    /// were).
    #[cfg_attr(feature = "reports", serde(default))]
    pub heavy_stops: u64,
    /// Those of `heavy_stops` after which the heap had moved, charged
    /// [`StopCosts::heavy`]; the rest are charged [`StopCosts::quick`]
    /// (0 in a profile written before they were told apart).
    #[cfg_attr(feature = "reports", serde(default))]
    pub moved_stops: u64,
    /// The part of `overhead_nanos` the sampler measured, in the
    /// profiler's slow stops; the rest is calibrated (0 in a profile
    /// written before it was kept apart).
    #[cfg_attr(feature = "reports", serde(default))]
    pub measured_nanos: u64,
    /// Task 0's stops after a call or a return, two for each call made,
    /// each of which is charged [`StopCosts::call`] where the samples saw
    /// less of them (0 in a profile written before they were).
    #[cfg_attr(feature = "reports", serde(default))]
    pub call_stops: u64,
    /// The calibrated costs the calibrated part rests on, fitted to the
    /// replay when there is one (the calibration's times `fitted`); all 0
    /// in a profile written before they were kept.
    #[cfg_attr(feature = "reports", serde(default))]
    pub costs: StopCosts,
    /// The part of `measured_nanos` the sampler found inside the stops
    /// after an allocation or a builtin; the rest it found in the other
    /// slow stops (0 in a profile written before it was kept apart).
    #[cfg_attr(feature = "reports", serde(default))]
    pub measured_heavy_nanos: u64,
    /// Instructions task 0 ran, each charged [`StopCosts::instruction`];
    /// `None` in a profile written before it was kept, whose estimate
    /// cannot be worked out again at other costs.
    #[cfg_attr(feature = "reports", serde(default))]
    pub instructions: Option<u64>,
    /// The unwatched runs that measured the run's total, when the host
    /// made them ([`Profiler::set_replay`]); the total is then theirs and
    /// `uncertainty` is theirs too.
    #[cfg_attr(feature = "reports", serde(default))]
    pub replay: Option<Replay>,
    /// The factor the replay fitted the calibration by: `costs` are the
    /// calibration's times this (see [`crate::replay`]).
    #[cfg_attr(feature = "reports", serde(default))]
    pub fitted: Option<f64>,
}

impl Estimate {
    /// What the profiler's stops cost at `costs`, the part of the sampled
    /// time the samples could not see: every fast stop and instruction at
    /// its calibrated cost, and each stop built out of line at its
    /// calibrated cost or what the samples saw inside such stops,
    /// whichever is more ([`beyond_fast`]). No instruction is charged in
    /// a profile that did not keep how many ran.
    fn calibrated_nanos(&self, costs: &StopCosts) -> f64 {
        let instructions = self.instructions.unwrap_or(0);
        let (fast, moved, heavy, calls) = (
            self.stops.1,
            self.moved_stops,
            self.heavy_stops,
            self.call_stops,
        );
        let seen_heavy = self.measured_heavy_nanos;
        let seen_slow = self.measured_nanos.saturating_sub(seen_heavy);
        fast as f64 * costs.fast
            + moved as f64 * beyond_fast(moved, costs.fast, costs.heavy, seen_heavy)
            + heavy.saturating_sub(moved) as f64 * costs.quick
            + calls as f64 * beyond_fast(calls, costs.fast, costs.call, seen_slow)
            + instructions as f64 * costs.instruction
    }

    /// The estimate of the unprofiled run's time had the profile rested
    /// on `costs` instead of its own: the sampled time less what the
    /// samples saw of the profiler and what `costs` say the rest cost.
    /// `None` for a profile written before it kept what this needs. Two
    /// profiles compared at one set of costs differ only by what their
    /// runs did, not by which calibration each was made after.
    pub fn net_nanos_at(&self, costs: &StopCosts) -> Option<f64> {
        // Without the count, the instructions' share cannot be worked out.
        self.instructions?;
        let overhead = self.measured_nanos as f64 + self.calibrated_nanos(costs);
        Some((self.sampled_nanos as f64 - overhead).max(1.0))
    }
}

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
    /// Nanoseconds the task has spent blocked (parked in `join` or
    /// `recv`) so far, cumulative.
    pub blocked_nanos: u64,
}

impl Sample {
    /// One number that moves whenever the heap's word counter or the
    /// blocked time moves, and only then: what a fast stop must find
    /// unchanged. Both are cumulative and never go back, so their sum is
    /// unchanged exactly when each is.
    #[inline(always)]
    pub(crate) fn movement(words: u64, blocked: u64) -> u64 {
        words.wrapping_add(blocked)
    }
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
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "reports", derive(Serialize, Deserialize))]
pub struct Floor {
    /// Nanoseconds every instruction's time includes, whatever it did.
    pub nanos: f64,
    /// How many back-to-back stops the figure is the median batch of.
    pub samples: u64,
}

/// How a stop reaches task 0's shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Through the lease its thread holds for the run: a stop from the
    /// machine, whose task's end gives the lease back (see `lease.rs`).
    Lease,
    /// Through the lock: a sample fed by hand, from a thread that may end
    /// before any task does.
    Lock,
}

/// How a profiler takes time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Two clock reads at every stop: the seed's interval, with its floor.
    Interval,
    /// No clock at a stop; a sampler charges processor time to positions.
    Sampled,
    /// No time at all: exact counts and heap figures only.
    Counting,
}

/// What profiling costs a run that the sampler cannot see apart from the
/// run's own work, in nanoseconds: taken off every row's sampled time.
///
/// [`Profiler::sampling`] measures the profiler's part of a stop by
/// running each path on scratch state in a loop, which misses what the
/// dispatch loop pays for being watched (building a `Stop`, the test for a
/// stretch's start at every instruction). A host that can run programs
/// measures the whole of it instead and hands it over with
/// [`Profiler::with_stop_costs`]: `cove profile` times two small programs,
/// one of long stretches and one of short, with and without a counting
/// profiler, and solves for `fast` and `instruction`. The slow stops' cost
/// is never estimated: the sampler sees it and charges it to the profiler.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "reports", derive(Serialize, Deserialize))]
pub struct StopCosts {
    /// A stop in the frame and heap of the one before: a count and a store.
    /// (Any other stop — a call, a return, an allocation — the sampler
    /// measures, so none is estimated.)
    pub fast: f64,
    /// What being watched costs each instruction, stop or not.
    #[cfg_attr(feature = "reports", serde(default))]
    pub instruction: f64,
    /// What a stop after an allocation or a builtin costs beyond a fast
    /// stop, all told: the loop builds the whole `Stop` out of line for it
    /// and calls the profiler, which then records the heap's movement.
    /// The sampler sees only the profiler's part, so a sampled profile
    /// takes off whichever is more, this or what its samples found there.
    #[cfg_attr(feature = "reports", serde(default))]
    pub heavy: f64,
    /// What a stop after a builtin that moved nothing costs beyond a fast
    /// stop, all told: the loop builds the `Stop` out of line as for
    /// [`StopCosts::heavy`], but the profiler finds the heap where it was
    /// and takes its fast path, which no sample can tell from the run's
    /// own work. Kept apart from `heavy` because the two differ by three
    /// or four times: charged `heavy`, a loop of `byte_at` calls was
    /// estimated at half its time.
    #[cfg_attr(feature = "reports", serde(default))]
    pub quick: f64,
    /// What a stop after a call or a return costs beyond a fast stop, all
    /// told: the loop's part (the frame pushed or popped and the glance
    /// offered) and the profiler's (the calling-context tree, the call
    /// site, the frame's running total). The sampler sees only the
    /// profiler's part, so a sampled profile takes off whichever is more,
    /// this for each such stop or what its samples found in the slow stops.
    #[cfg_attr(feature = "reports", serde(default))]
    pub call: f64,
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
///         blocked_nanos: 0,
///     });
/// }
/// assert_eq!(profiler.counted(), 4);
/// assert_eq!(profiler.hottest()[0].0, (FunctionId(0), 1));
/// ```
pub struct Profiler {
    timer: Timer,
    /// How time is taken: by an interval at every stop, by a sampler, or
    /// not at all.
    mode: Mode,
    follows: bool,
    floor: Floor,
    /// What a stop of the lock-free path and a slow stop cost, measured
    /// when the profiler was made; taken off sampled time.
    stop_costs: Mutex<StopCosts>,
    /// The unwatched runs a host measured the run's total by, if any.
    replay: Mutex<Option<Replay>>,
    /// Task 0's lock-free front, in the modes that read no clock at a stop.
    pub(crate) hot: Arc<Hot>,
    pub(crate) sampler: Option<Sampler>,
    /// Task 0's shard, the task the profiler was installed on: reached
    /// without touching the table of the others, and leased to the thread
    /// running it for the length of the run (see `lease.rs`).
    main: Arc<Leased<Shard>>,
    /// The shards of spawned tasks, `spawned[task - 1]`, made as tasks first
    /// stop.
    spawned: RwLock<Vec<Arc<Mutex<Shard>>>>,
    /// The instructions of stretches that a fault kept from running,
    /// though their stretch was counted whole when it started:
    /// `(task, function, first, last)`, each taken back once from the
    /// task's counts.
    unran: Mutex<Vec<(u32, FunctionId, u32, u32)>>,
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
            .field("blocked", &self.blocked())
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
    /// `injected` for the interval profiler, `sampled` or `none` for the
    /// untimed ones.
    pub fn clock_name(&self) -> &'static str {
        match self.mode {
            Mode::Interval => self.timer.name(),
            Mode::Sampled => "sampled",
            Mode::Counting => "none",
        }
    }

    /// A profiler of exact counts and exact heap figures that reads no
    /// clock: every `nanos` is 0 and reports leave time out. Almost every
    /// stop is a few instructions that the dispatch loop inlines when the
    /// profiler is installed as its own type (`with_debugger(&profiler)`).
    pub fn counting() -> Profiler {
        Profiler::untimed(Mode::Counting)
    }

    /// A profiler whose stops read no clock, as [`Profiler::counting`]'s,
    /// with a sampler thread that charges task 0's processor time to the
    /// instruction it is at, every 100 µs and later every 400 µs (see
    /// `sampler.rs`). Each row's
    /// `nanos` is then sampled time less the profiler's own calibrated cost
    /// per stop: an estimate of what the row costs in a run nobody profiles.
    /// Spawned tasks, when followed, are counted exactly and their threads
    /// sampled the same way, each task's time kept apart.
    pub fn sampling() -> Profiler {
        let mut profiler = Profiler::untimed(Mode::Sampled);
        let sampler = Sampler::start(Arc::clone(&profiler.hot));
        if !sampler.is_running() {
            // No thread to sample with: counts alone, said so by the mode.
            profiler.mode = Mode::Counting;
            return profiler;
        }
        profiler.sampler = Some(sampler);
        *profiler.stop_costs.get_mut() = profiler.calibrate_stops();
        profiler
    }

    fn untimed(mode: Mode) -> Profiler {
        Profiler {
            timer: Timer::Real(RealClock::new()),
            mode,
            follows: false,
            floor: Floor {
                nanos: 0.0,
                samples: 0,
            },
            stop_costs: Mutex::new(StopCosts::default()),
            replay: Mutex::new(None),
            unran: Mutex::new(Vec::new()),
            hot: Arc::new(Hot::default()),
            sampler: None,
            main: Arc::new(Leased::default()),
            spawned: RwLock::new(Vec::new()),
        }
    }

    fn timed(timer: Timer) -> Profiler {
        let mut profiler = Profiler::untimed(Mode::Interval);
        profiler.timer = timer;
        profiler.floor = profiler.calibrate();
        profiler
    }

    /// Whether stops go through the lock-free front rather than the clock.
    #[inline(always)]
    pub(crate) fn is_untimed_at_stops(&self) -> bool {
        self.mode != Mode::Interval
    }

    /// This profiler, taking `costs` off its sampled time instead of what it
    /// measured itself (see [`StopCosts`]).
    pub fn with_stop_costs(self, costs: StopCosts) -> Profiler {
        self.set_stop_costs(costs);
        self
    }

    /// Takes `costs` off the sampled time from now on, reports of the run
    /// already made included: a host may measure them after the run, when
    /// it knows how long a measurement the run is worth.
    pub fn set_stop_costs(&self, costs: StopCosts) {
        *self.stop_costs.lock() = costs;
    }

    /// Ends the sampler's thread, if the profiler has one: no time is
    /// sampled after this, and what was sampled stays. A host that goes
    /// on working in the process after the run calls it first, so that the
    /// thread's wakes neither cost that work processor time
    /// nor disturb it: `cove profile` does before it measures what its
    /// stops cost ([`Profiler::set_stop_costs`]), which it times by the
    /// whole process's processor time. Twelve such measurements with the
    /// sampler awake, made alternately with twelve with it ended, put a
    /// stop after a call or a return at 10.3 to 14.8 ns (median 12.3) and
    /// a fast stop at 0.93 ns (median); with it ended, at 9.5 to 11.0 ns
    /// in nine of the twelve (median 10.5) and 0.76 ns.
    pub fn stop_sampling(&self) {
        if let Some(sampler) = &self.sampler {
            sampler.stop();
        }
    }

    /// Task 0's stops so far, slow and fast (a profiler stopped at
    /// stretches stops once a stretch).
    pub fn stops(&self) -> (u64, u64) {
        let slow: u64 = self.main.lock().rows().map(|(_, c)| c.ran).sum();
        let fast: u64 = self.hot.counted().iter().map(|(_, n)| n).sum();
        (slow, fast)
    }

    /// Those of task 0's stops that came after a stretch ending in an
    /// allocation or a builtin (a stretch's every start is followed by the
    /// stop after its end), which [`StopCosts::heavy`] is charged to.
    pub fn heavy_stops(&self) -> u64 {
        self.starts_ending(StretchEnd::Other)
    }

    /// Those of the [`Profiler::heavy_stops`] after which the heap had
    /// moved: for each stretch ending in an allocation or a builtin, its
    /// starts or the allocations its last instruction made, whichever is
    /// fewer. A stretch's heap figures are all charged to its last
    /// instruction, and an allocating instruction makes at least one
    /// object each time it allocates, so this is exact for an instruction
    /// that allocates every time or never, and near for one that
    /// sometimes does (it counts an instruction that made two objects one
    /// time and none the next as moved both times).
    pub fn moved_stops(&self) -> u64 {
        let starts = stretch_starts(
            &self.main.lock(),
            &self.hot.counted(),
            &self.hot.heap_counted(),
            &self.hot,
        );
        starts.values().map(|start| start.moved).sum()
    }

    /// Those of task 0's stops that came after a call or a return, which
    /// [`StopCosts::call`] is charged to: two for every time a stretch
    /// ending in a call ran, its call's stop and its return's (a call
    /// still on the stack when the run ended counts its return too, a
    /// rounding no estimate feels).
    pub fn call_stops(&self) -> u64 {
        2 * self.starts_ending(StretchEnd::Call)
    }

    /// How often task 0 started a stretch that ends `end`, by the slow
    /// stops and the fast ones together.
    fn starts_ending(&self, end: StretchEnd) -> u64 {
        let starts = stretch_starts(&self.main.lock(), &self.hot.counted(), &[], &self.hot);
        starts
            .iter()
            .filter(|((function, pc), _)| self.hot.end(*function, *pc) == end)
            .map(|(_, start)| start.slow + start.fast)
            .sum()
    }

    /// What this profiler's stops were measured to cost (zero for the
    /// interval profiler, whose cost is its [`Floor`]).
    pub fn stop_costs(&self) -> StopCosts {
        *self.stop_costs.lock()
    }

    /// How the profile takes time: `"interval"`, `"sampled"` or `"none"`.
    pub fn time_mode(&self) -> &'static str {
        match self.mode {
            Mode::Interval => "interval",
            Mode::Sampled => "sampled",
            Mode::Counting => "none",
        }
    }

    /// What the sampled time rests on: the samples taken, the processor
    /// time they charged, and how much of it the profiler's own stops are
    /// estimated to have cost. `None` for a profiler that does not sample.
    pub fn estimate(&self) -> Option<Estimate> {
        let mut estimate = self.fitted_estimate()?;
        let taken_profiler = estimate.measured_nanos as f64;
        let replay = estimate.replay;
        let costs = estimate.costs;
        let calibrated = estimate.calibrated_nanos(&costs);
        let overhead = taken_profiler + calibrated;
        // The estimate at its own costs, as `cove diff` works it out again.
        let net = estimate.net_nanos_at(&costs).unwrap_or(1.0);
        estimate.overhead_nanos = overhead as u64;
        estimate.uncertainty = match replay {
            // The total is measured; what is left is how far a measured
            // run strays from the next.
            Some(replay) => replay.uncertainty(),
            None => {
                // Two sources of error: the samples (about one over the
                // square root of their number) and the calibrated cost of
                // the fast stops. Measured by this crate alone (the
                // profiler's part of a stop, not the machine's) that cost
                // is taken to be uncertain by half of itself; measured by a
                // host in the real loop (`instruction` set, as `cove
                // profile` does) by a quarter, which is about how far
                // `cargo xtask profile-accuracy` finds the estimates stray.
                // The slow stops' cost is measured by the same samples.
                let counting = 1.0 / (estimate.samples.max(1) as f64).sqrt();
                // Only a host measures the stops after an allocation or a
                // call, so either cost set says the host calibrated; the
                // cost an instruction alone does not, since its solve may
                // put it at zero.
                let by_host = costs.heavy > 0.0 || costs.call > 0.0 || costs.instruction > 0.0;
                let spread = if by_host { 0.25 } else { 0.5 };
                let calibration = spread * calibrated / net;
                (counting * counting + calibration * calibration).sqrt()
            }
        };
        Some(estimate)
    }

    /// What the sampled time rests on at the calibration as it was
    /// measured, before any replay fitted it: no overhead or uncertainty
    /// worked out yet.
    fn calibrated_estimate(&self) -> Option<Estimate> {
        let sampler = self.sampler.as_ref()?;
        let taken = sampler.taken();
        let sampled: u64 = taken.cells.values().sum::<u64>() + taken.profiler;
        let (slow, fast) = self.stops();
        let heavy = self.heavy_stops();
        Some(Estimate {
            samples: taken.samples,
            sampled_nanos: sampled,
            overhead_nanos: 0,
            stops: (slow, fast),
            uncertainty: 0.0,
            spawned_samples: taken.spawned.values().map(|t| t.samples).sum(),
            heavy_stops: heavy,
            moved_stops: self.moved_stops().min(heavy),
            measured_nanos: taken.profiler,
            call_stops: self.call_stops(),
            costs: self.stop_costs(),
            measured_heavy_nanos: taken.profiler_heavy,
            instructions: Some(self.main_total_ran()),
            replay: None,
            fitted: None,
        })
    }

    /// [`Profiler::calibrated_estimate`] with its costs fitted to the
    /// replay, when there is one (see [`crate::replay`]).
    fn fitted_estimate(&self) -> Option<Estimate> {
        let mut estimate = self.calibrated_estimate()?;
        if let Some(replay) = *self.replay.lock() {
            let scale = replay::fit(&estimate, replay.fastest_nanos);
            estimate.costs = estimate.costs.scaled(scale);
            estimate.replay = Some(replay);
            estimate.fitted = Some(scale);
        }
        Some(estimate)
    }

    /// The costs task 0's rows are made net at: the calibration's, fitted
    /// to the replay when there is one. Without one, no estimate is worked
    /// out for them: its costs would be the calibration's.
    fn costs_in_effect(&self) -> StopCosts {
        if self.replay.lock().is_none() {
            return self.stop_costs();
        }
        self.fitted_estimate()
            .map_or_else(|| self.stop_costs(), |estimate| estimate.costs)
    }

    /// Measures the run's total by `replay`, unwatched runs of the same
    /// program on the same input, from now on, reports of the run already
    /// made included: the total becomes the fastest run's, and the
    /// calibrated costs of the stops are fitted to it (see
    /// [`crate::replay`]). Only a sampled profile of task 0 alone has a
    /// total a replay can stand for; any other ignores it.
    pub fn set_replay(&self, replay: Replay) {
        if self.mode == Mode::Sampled && self.spawned.read().is_empty() {
            *self.replay.lock() = Some(replay);
        }
    }

    /// Instructions task 0 ran so far, by the lock-free front and the shard.
    fn main_total_ran(&self) -> u64 {
        self.main.lock().total().ran + self.hot.pending()
    }

    /// The sampler's samples so far, 0 for a profiler without one.
    pub fn samples(&self) -> u64 {
        self.sampler.as_ref().map_or(0, |s| s.taken().samples)
    }

    /// A slow stop of task 0 in the untimed modes: hands the fast stops
    /// since the last slow one to the shard and records this one there.
    #[inline]
    pub(crate) fn slow_stop(&self, at: &Sample, reach: Reach) {
        if let Some(sampler) = &self.sampler {
            sampler.register_current_thread();
        }
        self.with_main(reach, |shard| self.slow_stop_in(shard, at));
    }

    /// A slow stop of task 0 in the untimed modes that the loop offered
    /// by its shape, after a call (`CALL`) or a return: neither allocates,
    /// so nothing moved but the count and the frame, and the shard records
    /// it without looking for its shape ([`Shard::hop_glanced`]). False,
    /// with nothing recorded, when the shard's frames do not match the
    /// shape (its first stops), which makes it an ordinary stop.
    pub(crate) fn glanced_stop<const CALL: bool>(
        &self,
        function: FunctionId,
        pc: u32,
        depth: usize,
    ) -> bool {
        // The front, reached once: its fields are atomics, and after each
        // store to one the optimiser would read the `Arc`'s pointer again.
        let hot: &Hot = &self.hot;
        // The stretch the stop starts is counted as a fast stop counts one,
        // in the flat table, so its cell must be there.
        let Some(found) = hot.find(function, pc) else {
            return false;
        };
        self.with_main(Reach::Lease, |shard| {
            hot.hand_heap_to(shard);
            // A return needs only the pending stops of the last stop's
            // place: the call site it closes is on the shard's frame. The
            // front's fields are atomics, which the optimiser does not
            // drop unread, so they are read only where they are used.
            let (last_function, end, pending) = if CALL {
                let (last_function, start, last_length, pending) = hot.peek();
                (
                    last_function,
                    start + last_length.saturating_sub(1),
                    pending,
                )
            } else {
                (FunctionId(u32::MAX), 0, hot.pending())
            };
            let Some(node) =
                shard.hop_glanced::<CALL>(pending, last_function, end, function, pc, depth)
            else {
                return false;
            };
            hot.hopped(function, pc, found, depth, node);
            hot.publish(shard.total().ran);
            true
        })
    }

    /// A slow stop of task 0 in the untimed modes after a stretch that
    /// ended in an instruction that may allocate, offered by the loop with
    /// the heap's counters: when it is in the frame of the stop before
    /// (the front's depth and function), only the heap and the count
    /// moved, so the shard charges the movement ([`Shard::moved_glanced`])
    /// and the front counts the new stretch as a branch's stop counts one.
    /// False, with nothing recorded, anywhere else (a run's first stop, a
    /// stop after a builtin that ran Cove code), which makes it an
    /// ordinary stop.
    pub(crate) fn moved_stop(&self, at: &Sample) -> bool {
        if !self.hot.in_frame(at.function, at.depth) {
            return false;
        }
        let Some(found) = self.hot.find(at.function, at.pc) else {
            return false;
        };
        self.with_main(Reach::Lease, |shard| {
            self.hot.hand_heap_to(shard);
            let (last_function, start, last_length, pending) = self.hot.peek();
            let end = start + last_length.saturating_sub(1);
            let Some(node) = shard.moved_glanced(pending, last_function, end, at) else {
                return false;
            };
            self.hot.moved(at.pc, found, at, node);
            self.hot.publish(shard.total().ran);
            true
        })
    }

    #[inline(always)]
    fn slow_stop_in(&self, shard: &mut Shard, at: &Sample) {
        self.hot.hand_heap_to(shard);
        let (function, start, last_length, pending) = self.hot.take();
        let length = self.hot.point(at.function, at.pc);
        // What moved since the last stop belongs to the last instruction of
        // the stretch it began: the only one of it that allocates.
        let end = start + last_length.saturating_sub(1);
        // A call or a return that allocated nothing takes the short way.
        let node = match shard.hop(pending, function, end, at, length) {
            Some(node) => node,
            None => {
                shard.absorb(pending, function, end);
                shard.record(0, at);
                shard.extend_last(u64::from(length) - 1);
                shard.node()
            }
        };
        self.hot.settle(at, node);
        self.hot.publish(shard.total().ran);
    }

    /// Takes back the part of task 0's current stretch that a fault kept
    /// from running: the stretch was counted whole at its first
    /// instruction, and the run ended at `function`'s `pc`, which itself
    /// ran or not as `ran` says ([`Stop::ran`](cove_runtime::vm::debug::Stop::ran)).
    /// Called on task 0's thread, which still holds its shard.
    pub(crate) fn uncount_unran(&self, function: FunctionId, pc: u32, ran: bool) {
        let (last_function, start, length, pending) = self.hot.peek();
        let end = start + length.saturating_sub(1);
        if last_function != function || pc < start || pc > end {
            // The fault is not in the stretch the last stop counted: that
            // one ran whole (the run ended before the next one's stop).
            return;
        }
        if !ran && pc == start {
            // The run ended at the safepoint before this stretch's stop, so
            // the stretch the last stop counted (an earlier turn of it) ran
            // whole.
            return;
        }
        let first = if ran { pc + 1 } else { pc };
        if first > end {
            return;
        }
        let unran = u64::from(end - first + 1);
        self.unran.lock().push((0, function, first, end));
        if pending >= unran {
            // The stretch was counted by the lock-free path, not yet handed on.
            self.hot.take_back(unran);
        } else {
            self.with_main(Reach::Lease, |shard| {
                shard.extend_last_back(unran);
                self.hot.publish(shard.total().ran);
            });
        }
    }

    /// [`Profiler::uncount_unran`] for a spawned task, whose stops are all
    /// recorded in its shard: the stretch its last stop started was counted
    /// whole there.
    pub(crate) fn uncount_unran_spawned(
        &self,
        task: u32,
        function: FunctionId,
        pc: u32,
        ran: bool,
    ) {
        let Some(shard) = self.spawned.read().get(task as usize - 1).cloned() else {
            return;
        };
        let mut shard = shard.lock();
        let Some((last_function, start)) = shard.last_stop() else {
            return;
        };
        let end = start + self.hot.length(last_function, start).saturating_sub(1);
        if last_function != function || pc < start || pc > end || (!ran && pc == start) {
            // As for task 0: the fault is not inside the stretch the last
            // stop counted, or ended the run before its stop.
            return;
        }
        let first = if ran { pc + 1 } else { pc };
        if first > end {
            return;
        }
        self.unran.lock().push((task, function, first, end));
        shard.extend_last_back(u64::from(end - first + 1));
    }

    /// Runs `f` on task 0's shard, reached as `reach` says.
    #[inline(always)]
    fn with_main<R>(&self, reach: Reach, f: impl FnOnce(&mut Shard) -> R) -> R {
        match reach {
            // SAFETY: `f` is the recording of one stop, which reaches
            // nothing of `main` again, so the borrow is the only one.
            Reach::Lease => f(unsafe { self.main.leased() }),
            Reach::Lock => f(&mut self.main.lock()),
        }
    }

    /// Times the fast path of an untimed stop on scratch state.
    fn calibrate_stops(&self) -> StopCosts {
        const STOPS: u32 = 4096;
        // A one-function table, so the fast path finds its cell.
        let scratch = Profiler::untimed(Mode::Counting);
        let probe = |pc: u32| Sample {
            task: 0,
            function: FunctionId(0),
            pc,
            depth: 1,
            allocated_words: 0,
            allocations: 0,
            blocked_nanos: 0,
        };
        scratch.hot.prepare_cells(&[STOPS as usize]);
        scratch.slow_stop(&probe(0), Reach::Lock);
        let mut fast = Vec::with_capacity(BATCHES);
        for _ in 0..BATCHES {
            let started = std::time::Instant::now();
            for pc in 0..STOPS {
                let hit = scratch.hot.step(
                    std::hint::black_box(FunctionId(0)),
                    std::hint::black_box(pc),
                    std::hint::black_box(1),
                    std::hint::black_box(0),
                );
                std::hint::black_box(hit);
            }
            fast.push(started.elapsed().as_nanos() as f64 / f64::from(STOPS));
        }
        fast.sort_by(f64::total_cmp);
        StopCosts {
            fast: fast[BATCHES / 2],
            instruction: 0.0,
            heavy: 0.0,
            quick: 0.0,
            call: 0.0,
        }
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
            blocked_nanos: 0,
        };
        let mut batches = Vec::with_capacity(BATCHES);
        for _ in 0..BATCHES {
            let scratch = Mutex::new(Shard::default());
            for _ in 0..=BATCH {
                let now = self.timer.now();
                let mut shard = scratch.lock();
                shard.record(now, &probe);
                shard.stamp(self.now());
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

    /// The profiler's clock, read now; 0 in the modes that read no clock
    /// at a stop.
    #[inline(always)]
    pub(crate) fn now(&self) -> u64 {
        if self.is_untimed_at_stops() {
            0
        } else {
            self.timer.now()
        }
    }

    /// Records one stop, reading the clock first thing and last thing.
    ///
    /// This is the whole of what the debugger adapter does, made public so
    /// that tests and other engines can feed a profile without a machine.
    #[inline]
    pub fn record(&self, at: &Sample) {
        if self.is_untimed_at_stops() && at.task == 0 {
            if !self.hot.step(
                at.function,
                at.pc,
                at.depth,
                Sample::movement(at.allocated_words, at.blocked_nanos),
            ) {
                self.slow_stop(at, Reach::Lock);
            }
        } else {
            let now = self.now();
            self.record_at(now, at, Reach::Lock);
        }
    }

    /// Records a stop whose first clock read was `now`. The interval an
    /// instruction is timed over ends at that read and starts at the read this
    /// method makes last, so the bookkeeping between is outside it.
    #[inline]
    pub(crate) fn record_at(&self, now: u64, at: &Sample, reach: Reach) {
        if at.task == 0 {
            self.with_main(reach, |shard| {
                shard.record(now, at);
                shard.stamp(self.now());
                self.hot.publish(shard.total().ran);
            });
        } else {
            self.record_spawned(now, at);
        }
    }

    fn record_spawned(&self, now: u64, at: &Sample) {
        let index = at.task as usize - 1;
        {
            let spawned = self.spawned.read();
            if let Some(shard) = spawned.get(index) {
                self.record_in_spawned(&mut shard.lock(), now, at);
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
        self.record_in_spawned(&mut shard.lock(), now, at);
    }

    /// Records a spawned task's stop in its shard: an interval, or in the
    /// untimed modes, where the run stops only where a stretch starts, the
    /// whole stretch (see [`Shard::record_stretch`]).
    #[inline]
    fn record_in_spawned(&self, shard: &mut Shard, now: u64, at: &Sample) {
        if let Some(sampler) = &self.sampler {
            // The sampler times the task's thread from its first stop, and
            // charges what it finds inside a stop to the profiler.
            if shard.is_empty() {
                sampler.watch(at.task);
            }
            sampler.busy(at.task, true);
            shard.record_stretch(at, |function, pc| self.hot.length(function, pc));
            sampler.publish(at.task, at.function, at.pc, shard.node());
            sampler.busy(at.task, false);
        } else if self.is_untimed_at_stops() {
            shard.record_stretch(at, |function, pc| self.hot.length(function, pc));
        } else {
            shard.record(now, at);
            shard.stamp(self.now());
        }
    }

    /// Calls `each` with every task's shard that recorded anything, task 0
    /// first.
    fn for_each_task(&self, mut each: impl FnMut(u32, &Shard)) {
        if self.mode == Mode::Interval {
            let main = self.main.lock();
            if !main.is_empty() {
                each(0, &main);
            }
        } else {
            let main = self.merged_main();
            if !main.is_empty() {
                each(0, &main);
            }
        }
        let spawned = self.spawned.read();
        for (i, shard) in spawned.iter().enumerate() {
            let shard = shard.lock();
            if shard.is_empty() {
                continue;
            }
            if self.mode == Mode::Interval {
                each(i as u32 + 1, &shard);
            } else {
                each(i as u32 + 1, &self.merged_spawned(i as u32 + 1, &shard));
            }
        }
    }

    /// A spawned task's shard as a report reads it in the untimed modes: a
    /// copy whose rows, which count stretch starts, have each stretch's
    /// count spread over the instructions it ran, and in the sampled mode
    /// the sampler's time for the task shared among them, as task 0's are
    /// (see [`Profiler::merged_main`]). Every stop of a spawned task is a
    /// locked one, whose cost the sampler measured and charged to the
    /// profiler, so only the per-instruction cost of being watched comes
    /// off. What a fault kept from running of the task's last stretch is
    /// taken back here, as task 0's is.
    fn merged_spawned(&self, task: u32, shard: &Shard) -> Shard {
        let mut shard = shard.clone();
        let mut starts = stretch_starts(&shard, &[], &[], &self.hot);
        let mut rows = heap_rows(&shard);
        let taken = self
            .sampler
            .as_ref()
            .and_then(|sampler| sampler.taken().spawned.remove(&task));
        if let Some(taken) = &taken {
            for ((f, pc), nanos) in &taken.cells {
                if *f != u32::MAX {
                    starts.entry((FunctionId(*f), *pc)).or_default().nanos += nanos;
                }
            }
        }
        let costs = StopCosts {
            fast: 0.0,
            instruction: self.stop_costs().instruction,
            heavy: 0.0,
            quick: 0.0,
            call: 0.0,
        };
        let spread = spread(&starts, &self.hot, costs);
        let mut counts = spread.rows;
        self.take_back_unran(task, &mut counts);
        rows.extend(counts);
        shard.replace_rows(rows);
        if let Some(taken) = &taken {
            let each = spread.overhead_per_instruction;
            shard.retime_nodes(|node, cost| {
                let sampled = taken.nodes.get(&node).copied().unwrap_or(0) as f64;
                (sampled - cost.ran as f64 * each).max(0.0) as u64
            });
        }
        shard
    }

    /// Takes `task`'s unran instructions out of its spread counts, each
    /// instruction once: the rows of several stretch starts may hold one
    /// instruction, and they are added up later.
    fn take_back_unran(&self, task: u32, counts: &mut [((FunctionId, u32), Charge)]) {
        for &(of, function, first, last) in self.unran.lock().iter() {
            if of != task {
                continue;
            }
            for pc in first..=last {
                if let Some((_, cost)) = counts
                    .iter_mut()
                    .find(|(at, cost)| *at == (function, pc) && cost.ran > 0)
                {
                    cost.ran -= 1;
                }
            }
        }
    }

    /// Task 0's shard as a report reads it in the untimed modes: a copy
    /// with the lock-free front's counts added in, each stretch's count
    /// spread over the instructions it ran, and the sampler's time made net
    /// of the profiler's own stops and shared among them (see
    /// [`spread`]).
    fn merged_main(&self) -> Shard {
        let mut shard = self.main.lock().clone();
        let (function, pc, _) = self.hot.position();
        let function = FunctionId(function);
        let end = pc + self.hot.length(function, pc).saturating_sub(1);
        shard.absorb(self.hot.pending(), function, end);
        let (words, allocations) = self.hot.pending_heap();
        shard.absorb_heap(words, allocations);
        // What the allocations' glances charged, on each stretch's last
        // instruction, where the shard charges what it takes itself.
        for ((function, pc), (words, allocations)) in self.hot.heap_counted() {
            let end = pc + self.hot.length(function, pc).saturating_sub(1);
            shard.charge_heap(function, end, words, allocations);
        }
        // The glances' heap figures are on `shard`'s rows now.
        let mut starts = stretch_starts(&shard, &self.hot.counted(), &[], &self.hot);
        let mut rows = heap_rows(&shard);
        let taken = self.sampler.as_ref().map(Sampler::taken);
        if let Some(taken) = &taken {
            for ((f, pc), nanos) in &taken.cells {
                if *f != u32::MAX {
                    starts.entry((FunctionId(*f), *pc)).or_default().nanos += nanos;
                }
            }
        }
        let mut costs = self.costs_in_effect();
        costs.heavy = taken.as_ref().map_or(0.0, |t| {
            beyond_fast(
                starts.values().map(|start| start.moved).sum(),
                costs.fast,
                costs.heavy,
                t.profiler_heavy,
            )
        });
        if taken.is_none() {
            costs.quick = 0.0;
        }
        costs.call = taken.as_ref().map_or(0.0, |t| {
            beyond_fast(self.call_stops(), costs.fast, costs.call, t.profiler_slow())
        });
        let spread = spread(&starts, &self.hot, costs);
        let mut counts = spread.rows;
        self.take_back_unran(0, &mut counts);
        // A replay's total is the run's: the fitted costs bring the rows
        // to it but for the rows they would take below nothing, so what is
        // left is shared out in proportion to each row's time.
        let to_total = self.replay.lock().map(|replay| {
            let net: u64 = counts.iter().map(|(_, c)| c.cost.nanos).sum();
            replay.fastest_nanos as f64 / net.max(1) as f64
        });
        if let Some(factor) = to_total {
            for (_, charge) in &mut counts {
                charge.cost.nanos = (charge.cost.nanos as f64 * factor).round() as u64;
            }
        }
        rows.extend(counts);
        shard.replace_rows(rows);
        if let Some(taken) = &taken {
            let each = spread.overhead_per_instruction;
            let factor = to_total.unwrap_or(1.0);
            shard.retime_nodes(|node, cost| {
                let sampled = taken.nodes.get(&node).copied().unwrap_or(0) as f64;
                ((sampled - cost.ran as f64 * each).max(0.0) * factor) as u64
            });
        }
        shard
    }

    /// The tasks that recorded anything, in task order.
    pub fn tasks(&self) -> Vec<u32> {
        let mut tasks = Vec::new();
        self.for_each_task(|task, _| tasks.push(task));
        tasks
    }

    /// How many instructions were counted.
    ///
    /// Cheap, and safe to call from another thread while the run goes on
    /// (the progress line does): task 0's part is a counter its thread
    /// publishes, not its shard, which that thread holds until the task
    /// ends.
    pub fn counted(&self) -> u64 {
        let spawned: u64 = self
            .spawned
            .read()
            .iter()
            .map(|shard| shard.lock().total().ran)
            .sum();
        self.hot.published() + self.hot.pending() + spawned
    }

    /// Lets another thread read the profile while this one waits.
    ///
    /// Task 0's thread holds the profile's figures for the length of its
    /// run (see [`Debugger::ended`](cove_runtime::vm::debug::Debugger::ended)),
    /// so a report asked for on another thread mid-run waits for the task
    /// to end. A debugger that wraps a profiler and stops — waits inside a
    /// stop for a person — calls this first, on the task's thread, so that
    /// a report of the profile so far can be made meanwhile; the next stop
    /// takes the figures back. Cheap, and harmless on any other thread.
    pub fn pause(&self) {
        self.main.release();
    }

    /// Ends task 0's lease on its shard (see `lease.rs`), or the sampling
    /// of a spawned task's thread: the task ended.
    pub(crate) fn task_ended(&self, task: u32) {
        if task == 0 {
            if let Some(sampler) = &self.sampler {
                sampler.last_look();
            }
            self.main.release();
        } else if let Some(sampler) = &self.sampler {
            sampler.unwatch(task);
        }
    }

    /// What the whole run cost, by the four figures of a [`Cost`] (the
    /// time spent blocked is [`Profiler::blocked`]).
    pub fn total(&self) -> Cost {
        self.charged().cost
    }

    /// Nanoseconds the run's tasks spent blocked, parked in a `join` or a
    /// `recv`, over the whole run: never part of [`Profiler::total`]'s
    /// `nanos`.
    pub fn blocked(&self) -> u64 {
        self.charged().blocked
    }

    /// What the whole run cost, blocked time included.
    fn charged(&self) -> Charge {
        let mut all = Charge::default();
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
        self.for_each_task(|_, shard| rows.extend(shard.rows().map(|(at, c)| (at, c.cost))));
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
    #[cfg(feature = "reports")]
    pub(crate) fn snapshot(&self) -> Vec<TaskProfile> {
        let mut all = Vec::new();
        self.for_each_task(|task, shard| all.push(shard.snapshot(task)));
        all
    }
}

/// What the stops of one stretch start recorded.
#[derive(Debug, Default, Clone, Copy)]
struct Start {
    /// Stops that took the slow path here.
    slow: u64,
    /// Stops that took the lock-free path here.
    fast: u64,
    /// Of the stops after this stretch's end, those after which the heap
    /// had moved (only for a stretch ending in an allocation or a
    /// builtin).
    moved: u64,
    /// Sampled nanoseconds charged while a stretch from here ran.
    nanos: u64,
}

/// What each of `stops` stops, calibrated at `all_told` nanoseconds apiece,
/// cost beyond the `seen` nanoseconds samples found inside them, shared
/// among them: never below nothing, and nothing for no stops. For the stops
/// after an allocation or a builtin: the samples are the better figure
/// where they see more than the calibration (a dear stop's whole cost), the
/// calibration where they cannot (the loop's part before the profiler is
/// reached).
fn unseen_each(stops: u64, all_told: f64, seen: u64) -> f64 {
    if stops == 0 {
        return 0.0;
    }
    (stops as f64 * all_told - seen as f64).max(0.0) / stops as f64
}

/// What each of `stops` stops of a kind built out of line (after an
/// allocation or a builtin, after a call or a return) is charged beyond
/// the `fast` nanoseconds it is already charged as one of the fast stops it
/// is counted among: what it costs all told, `fast + cost` calibrated, or
/// what the samples saw inside those stops, whichever is more, less what
/// the samples saw and less `fast`. Below zero when the samples saw more
/// than the calibration less `fast`: the samples' figure is then the whole
/// cost, and the fast stop's share charged for it is given back. (Charging
/// `fast` on top of what the samples saw counted it twice: `fib`, whose
/// stops are nearly all calls and returns the samples see, was estimated
/// a third short for it.)
fn beyond_fast(stops: u64, fast: f64, cost: f64, seen: u64) -> f64 {
    if stops == 0 {
        return 0.0;
    }
    unseen_each(stops, fast + cost, seen) - fast
}

/// Every instruction's count and time, from the stretches' starts.
struct Spread {
    rows: Vec<((FunctionId, u32), Charge)>,
    /// The profiler's own cost an instruction, on average: what comes off
    /// a calling-context node's sampled time.
    overhead_per_instruction: f64,
}

/// A shard's stretch starts for the untimed modes: each with its slow
/// stops (the count on `shard`'s row, where a stop counted a stretch's
/// start), its fast ones (from `front`, task 0's lock-free counts) and,
/// for a stretch ending in an allocation or a builtin, those of its stops
/// after which the heap had moved (see [`Profiler::moved_stops`]), from
/// the heap figures its last instruction holds on `shard` and those the
/// front's allocation glances keep by the stretch's start (`front_heap`,
/// empty where `shard` has them already). No time yet.
fn stretch_starts(
    shard: &Shard,
    front: &[((FunctionId, u32), u64)],
    front_heap: &[crate::hot::HeapRow],
    hot: &Hot,
) -> BTreeMap<(FunctionId, u32), Start> {
    let mut starts: BTreeMap<(FunctionId, u32), Start> = BTreeMap::new();
    let mut made: BTreeMap<(FunctionId, u32), u64> = BTreeMap::new();
    for (at, cost) in shard.rows() {
        if cost.ran > 0 {
            starts.entry(at).or_default().slow += cost.ran;
        }
        if cost.cost.allocations > 0 {
            made.insert(at, cost.cost.allocations);
        }
    }
    for &(at, n) in front {
        starts.entry(at).or_default().fast += n;
    }
    for &((function, pc), (_, allocations)) in front_heap {
        let end = pc + hot.length(function, pc).saturating_sub(1);
        *made.entry((function, end)).or_default() += allocations;
    }
    for (&(function, pc), start) in starts.iter_mut() {
        if hot.end(function, pc) == StretchEnd::Other {
            let end = pc + hot.length(function, pc).saturating_sub(1);
            let made = made.get(&(function, end)).copied().unwrap_or(0);
            start.moved = (start.slow + start.fast).min(made);
        }
    }
    starts
}

/// A shard's rows for the untimed modes with their heap figures and
/// blocked time alone (count and time 0), which stay on the instruction
/// they were charged to; the rows' counts, which count stretch starts,
/// are spread over the stretches' instructions instead (see
/// [`stretch_starts`] and [`spread`]).
fn heap_rows(shard: &Shard) -> Vec<((FunctionId, u32), Charge)> {
    shard
        .rows()
        .map(|(at, cost)| {
            let heap = Charge {
                cost: Cost {
                    ran: 0,
                    nanos: 0,
                    ..cost.cost
                },
                ..cost
            };
            (at, heap)
        })
        .collect()
}

/// Spreads each stretch start's count and time over the instructions of
/// the stretch.
///
/// The count is exact: every instruction of a stretch ran as often as it
/// started. The time is an estimate, in two steps. First the profiler's own
/// stops come off: each start's slow and fast stops times their
/// calibrated cost. Then the net time is shared out. A stretch that ends in
/// a jump, a call or a return is all cheap instructions of about one cost,
/// so it shares its time equally; those stretches together give the cost
/// of a cheap instruction, λ. A stretch that ends in an allocation or a
/// builtin gives λ to each instruction before the last, and the rest to the
/// last, which is where such a stretch's time goes (if λ would take more
/// than the stretch had, the cheap ones share it all).
fn spread(starts: &BTreeMap<(FunctionId, u32), Start>, hot: &Hot, costs: StopCosts) -> Spread {
    // Each start, its stops, its stretch's length, whether it ends heavy,
    // and its net time.
    type Net = ((FunctionId, u32), u64, u32, bool, f64);
    let mut net: Vec<Net> = Vec::new();
    let (mut light_time, mut light_instructions) = (0.0_f64, 0.0_f64);
    let (mut overhead, mut instructions) = (0.0_f64, 0.0_f64);
    for (&(function, pc), start) in starts {
        let n = start.slow + start.fast;
        let length = hot.length(function, pc);
        // The slow stops' cost is measured: the sampler charged it to the
        // profiler, not to any row. The fast stops' is calibrated.
        let end = hot.end(function, pc);
        let heavy = end == StretchEnd::Other;
        // The stop after a heavy stretch's end is charged to the stretch:
        // the position the sampler reads moves on only once the profiler
        // has the stop, so that is where the sampler charged its time.
        // So is a call's and its return's, to the stretch the call ends:
        // the part of those stops no sample sees is the loop's, around the
        // profiler's, while the position still names that stretch.
        let own = start.fast as f64 * costs.fast
            + (n * u64::from(length)) as f64 * costs.instruction
            + if heavy {
                start.moved as f64 * costs.heavy + (n - start.moved.min(n)) as f64 * costs.quick
            } else {
                0.0
            }
            + if end == StretchEnd::Call {
                2.0 * n as f64 * costs.call
            } else {
                0.0
            };
        overhead += own;
        instructions += (n * u64::from(length)) as f64;
        let time = (start.nanos as f64 - own).max(0.0);
        if !heavy {
            light_time += time;
            light_instructions += (n * u64::from(length)) as f64;
        }
        net.push(((function, pc), n, length, heavy, time));
    }
    let light = if light_instructions > 0.0 {
        light_time / light_instructions
    } else {
        0.0
    };
    let mut rows = Vec::new();
    for ((function, pc), n, length, heavy, time) in net {
        let cheap = length.saturating_sub(1);
        let (each, last) = if !heavy {
            let each = time / f64::from(length);
            (each, each)
        } else {
            let wanted = light * (n * u64::from(cheap)) as f64;
            if wanted <= time || cheap == 0 {
                (light * n as f64, time - wanted)
            } else {
                (time / f64::from(cheap), 0.0)
            }
        };
        for i in 0..length {
            let nanos = if i + 1 == length { last } else { each };
            rows.push((
                (function, pc + i),
                Charge::from(Cost {
                    ran: n,
                    nanos: nanos.round() as u64,
                    words: 0,
                    allocations: 0,
                }),
            ));
        }
    }
    Spread {
        rows,
        overhead_per_instruction: if instructions > 0.0 {
            overhead / instructions
        } else {
            0.0
        },
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
            blocked_nanos: 0,
        }
    }

    #[test]
    fn a_heavy_stop_costs_what_its_calibration_says_less_what_the_samples_saw_of_it() {
        // 1,000 stops at 20 ns all told, 5,000 ns of them seen: 15 ns each
        // unseen.
        assert_eq!(unseen_each(1_000, 20.0, 5_000), 15.0);
        // Samples that saw more than the calibration leave nothing unseen.
        assert_eq!(unseen_each(1_000, 20.0, 30_000), 0.0);
        // No such stops, nothing to share.
        assert_eq!(unseen_each(0, 20.0, 0), 0.0);
    }

    #[test]
    fn a_stop_built_out_of_line_costs_the_more_of_its_calibration_and_its_samples_once() {
        // 1,000 stops, each charged 2 ns as a fast stop and calibrated at
        // 18 ns beyond it: 20 ns all told. Samples that saw 5,000 ns leave
        // 15 ns each unseen, of which 2 are charged already.
        assert_eq!(beyond_fast(1_000, 2.0, 18.0, 5_000), 13.0);
        // Samples that saw 30 ns each are the whole cost: the fast stop's
        // 2 ns come back, so the stop costs 30 ns in all, not 32.
        assert_eq!(beyond_fast(1_000, 2.0, 18.0, 30_000), -2.0);
        assert_eq!(beyond_fast(0, 2.0, 18.0, 0), 0.0);
    }

    /// Compiles `source`, counts ten fast stops at the start of its
    /// `main`'s first stretch (`moved` of them after the heap moved) that
    /// were sampled at 1,000 ns all told, and spreads them with `costs`:
    /// the stretch's end and the nanoseconds left on its rows.
    fn main_stretch_spread(source: &str, moved: u64, costs: StopCosts) -> (StretchEnd, u64) {
        let program = cove_compiler::compile_module("m", source).expect("it compiles");
        let hot = Hot::default();
        hot.prepare(&program);
        let main = FunctionId(
            program
                .functions
                .iter()
                .position(|f| f.name.ends_with("main"))
                .expect("main is there") as u32,
        );
        let mut starts = BTreeMap::new();
        starts.insert(
            (main, 0),
            Start {
                slow: 0,
                fast: 10,
                moved,
                nanos: 1_000,
            },
        );
        let spread = spread(&starts, &hot, costs);
        let left = spread.rows.iter().map(|(_, c)| c.cost.nanos).sum();
        (hot.end(main, 0), left)
    }

    #[test]
    fn a_stretch_that_ends_in_a_call_gives_up_its_calls_and_returns_unseen_cost() {
        // `main` is one stretch up to its call of `one`; `one` is one
        // stretch up to its return.
        let costs = StopCosts {
            call: 20.0,
            ..StopCosts::default()
        };
        let (end, left) = main_stretch_spread(
            "fn one() -> Int {\n  1\n}\n\nexport fn main() -> Int {\n  one() + 1\n}\n",
            0,
            costs,
        );
        assert_eq!(
            end,
            StretchEnd::Call,
            "main's first stretch ends in its call"
        );
        // Ten calls, each a call's stop and a return's at 20 ns: 400 ns
        // come off the stretch's 1,000.
        assert_eq!(left, 600);
    }

    #[test]
    fn a_stop_after_a_builtin_that_moved_nothing_is_charged_the_quick_cost_not_the_heavy_one() {
        // `main`'s first stretch ends in its `String.length` builtin.
        let costs = StopCosts {
            heavy: 50.0,
            quick: 10.0,
            ..StopCosts::default()
        };
        let (end, left) = main_stretch_spread(
            "export fn main() -> Int {\n  let s = \"ab\"\n  s.length() + 1\n}\n",
            4,
            costs,
        );
        assert_eq!(end, StretchEnd::Other);
        // Four stops after which the heap moved at 50 ns, six after which
        // it did not at 10: 260 ns come off the stretch's 1,000.
        assert_eq!(left, 740);
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
        // Each task's first instruction also carries what its heap held
        // before its first stop (100 and 7 words here).
        assert_eq!(rows[0].1.words, 100 + 4, "task 0's heap moved by four");
        assert_eq!(rows[2].0, (FunctionId(1), 0));
        assert_eq!(rows[2].1.words, 7 + 2, "task 1's heap moved by two");
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
