//! Statistical time: a thread that looks, at a known rate, at where task 0
//! is, and charges the processor time the task used since its last look to
//! the instruction it finds; and, for a profile that follows spawned
//! tasks, at where each of them is, the same way.
//!
//! # Why sample, when everything else is counted
//!
//! Timing every instruction means reading a clock at every stop, and here a
//! clock read (25–40 ns) costs ten times the instruction it would time (an
//! `add.int` is 2–3 ns). No bookkeeping can hide that: the floor swamps the
//! figure, and a change that removes cheap instructions looks faster than
//! it is. So the stops read no clock at all. They keep the exact counts and
//! publish their position ([`crate::hot::Hot::position`]); this thread
//! wakes every [`PERIOD`] (every [`LATER_PERIOD`] once it has looked
//! [`FIRST_LOOKS`] times: `period_after`), reads the task thread's own
//! CPU clock, and adds what it moved to the position it reads. The sum
//! over rows is the CPU time the task used, not the wall clock: time the
//! task spent blocked, or descheduled on a loaded machine, is not charged
//! to anything.
//!
//! What a row's time means is then "its share of the samples, in
//! nanoseconds", which converges on the real share as a run lengthens (an
//! error of about one over the square root of the row's samples), with the
//! exact count beside it so that ns/instr is sampled time over exact
//! count. The stops themselves still cost something; the profiler takes a
//! calibrated cost per stop off every row (see `Profiler::snapshot`), so a
//! row's nanoseconds estimate what it costs in a run nobody profiles.
//!
//! # Spawned tasks
//!
//! Each followed task runs on a thread of its own. Its first stop registers
//! that thread's CPU clock here ([`Sampler::watch`]) and every stop
//! publishes its position ([`Sampler::publish`]); its end takes the clock
//! off again ([`Sampler::unwatch`]), before the thread goes and its clock
//! id can be another's. The sampler reads each registered clock at every
//! look and keeps each task's charges apart ([`Taken::spawned`]). A spawned
//! task's stops all take the shard's lock, so the sampler sees them all as
//! the profiler's own time, measured, as it sees task 0's slow stops.
//!
//! # The first and the last of a run
//!
//! A look charges what the clock moved since the look before, so what a
//! task runs before the sampler's first look at it and after its last
//! would be charged to nothing: up to a period at each end on an idle
//! machine, and on a loaded one, where the sampler waits for a core, whole
//! milliseconds (of one 3 ms run, the sampled time came out at 1.4 ms once
//! and 6.9 ms another time). So task 0's own thread reads its clock when
//! it registers ([`Sampler::register_current_thread`]), which is the first
//! look's "before", and again as the task ends ([`Sampler::last_look`]),
//! which charges the rest to where the task was last. Task 0's sampled
//! time is then all the processor time it used from its first slow stop
//! to its end. (A spawned task's first and last stretches are still left
//! to the sampler's looks.)
//!
//! # What it costs
//!
//! One thread, asleep but for a few microseconds every [`PERIOD`], then
//! every [`LATER_PERIOD`]. Each look costs the process a few microseconds
//! of processor time: at every [`PERIOD`] throughout, a profile without
//! its replay cost 4% to 21% more processor time than a counting one
//! (`gauss`, `arith`, `sorting`, in two sessions), and with the later
//! period 0% to 7% more (`gauss`, `sorting`). It is started when the
//! profiler is made and ended when it is dropped.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, Ordering::Relaxed};
use std::thread::JoinHandle;
use std::time::Duration;

use cove_ir::program::FunctionId;
use parking_lot::{Mutex, RwLock};

use crate::hot::{Hot, Inside};

/// How long the sampler sleeps between two looks, for its first
/// [`FIRST_LOOKS`] looks at a running task 0.
pub(crate) const PERIOD: Duration = Duration::from_micros(100);

/// How many looks at task 0 the sampler makes every [`PERIOD`] before it
/// slows to every [`LATER_PERIOD`]: about the first 50 to 100 ms of a run
/// (a wake comes later than asked, more so on a loaded machine).
pub(crate) const FIRST_LOOKS: u32 = 500;

/// How long the sampler sleeps between two looks after its first
/// [`FIRST_LOOKS`].
pub(crate) const LATER_PERIOD: Duration = Duration::from_micros(400);

/// No thread's clock registered yet.
const NO_CLOCK: i64 = i64::MIN;

/// What the sampler has charged so far.
#[derive(Debug, Default, Clone)]
pub(crate) struct Taken {
    /// Nanoseconds by function and pc.
    pub(crate) cells: HashMap<(u32, u32), u64>,
    /// Nanoseconds by calling-context node of task 0.
    pub(crate) nodes: HashMap<u32, u64>,
    /// How many looks charged anything.
    pub(crate) samples: u64,
    /// Nanoseconds charged while task 0 was inside one of the profiler's
    /// slow stops: the profiler's own cost, measured.
    pub(crate) profiler: u64,
    /// The part of `profiler` charged in the stops after an allocation or
    /// a builtin (see [`Inside::Heavy`]).
    pub(crate) profiler_heavy: u64,
    /// What was charged to each followed spawned task, by task number.
    pub(crate) spawned: HashMap<u32, Taken>,
}

impl Taken {
    /// The part of `profiler` charged in the slow stops that are not after
    /// an allocation or a builtin: a call's, a return's, the first.
    pub(crate) fn profiler_slow(&self) -> u64 {
        self.profiler - self.profiler_heavy
    }
}

/// Where one spawned task is, and whose clock to read for it.
#[derive(Debug)]
struct Watch {
    /// The CPU clock of the thread running it, `NO_CLOCK` before its first
    /// stop and after its end.
    clock: AtomicI64,
    function: AtomicU32,
    pc: AtomicU32,
    node: AtomicU32,
    /// Whether it is inside one of the profiler's stops.
    busy: AtomicBool,
}

impl Default for Watch {
    fn default() -> Watch {
        Watch {
            clock: AtomicI64::new(NO_CLOCK),
            function: AtomicU32::new(u32::MAX),
            pc: AtomicU32::new(0),
            node: AtomicU32::new(0),
            busy: AtomicBool::new(false),
        }
    }
}

#[derive(Debug)]
struct Shared {
    hot: Arc<Hot>,
    /// The CPU clock of the thread running task 0, as a `clockid_t`.
    clock: AtomicI64,
    /// Task 0's clock and its reading at the last look, or at its
    /// registration: what the next look, or the last, charges from. Locked
    /// for the whole of a look at task 0, so that the sampler's looks and
    /// the task's own last one never charge the same time twice.
    main_last: Mutex<Option<(i64, u64)>>,
    done: AtomicBool,
    taken: Mutex<Taken>,
    /// The followed spawned tasks, `tasks[task - 1]`.
    tasks: RwLock<Vec<Arc<Watch>>>,
}

/// The sampling thread and what it found.
#[derive(Debug)]
pub(crate) struct Sampler {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Sampler {
    /// Starts sampling `hot`'s position, once a task registers its thread.
    pub(crate) fn start(hot: Arc<Hot>) -> Sampler {
        let shared = Arc::new(Shared {
            hot,
            clock: AtomicI64::new(NO_CLOCK),
            main_last: Mutex::new(None),
            done: AtomicBool::new(false),
            taken: Mutex::new(Taken::default()),
            tasks: RwLock::new(Vec::new()),
        });
        let looking = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("cove-sampler".to_string())
            .spawn(move || sample(&looking))
            .ok();
        Sampler { shared, thread }
    }

    /// Whether the sampler runs: a system that refuses a thread gets a
    /// profile without time, not a failed run.
    pub(crate) fn is_running(&self) -> bool {
        self.thread.is_some()
    }

    /// Registers the calling thread as the one running task 0, if it is not
    /// already. Called at slow stops, so a second run on another thread is
    /// followed too.
    pub(crate) fn register_current_thread(&self) {
        let id = current_cpu_clock();
        if self.shared.clock.load(Relaxed) != id {
            // The first look charges from this reading: what the task
            // runs from here on is charged, however late the sampler's
            // first look comes.
            let mut last = self.shared.main_last.lock();
            *last = cpu_nanos(id).map(|now| (id, now));
            self.shared.clock.store(id, Relaxed);
        }
    }

    /// Asks the sampler's thread to end: it looks no more after its next
    /// wake, within a [`PERIOD`]. What it charged stays.
    pub(crate) fn stop(&self) {
        self.shared.done.store(true, Relaxed);
    }

    /// The last look at task 0, made by its own thread as the task ends:
    /// charges what its clock moved since the sampler's last look to where
    /// the task was last, and stops reading its clock until a thread
    /// registers again.
    pub(crate) fn last_look(&self) {
        let id = current_cpu_clock();
        let mut last = self.shared.main_last.lock();
        if let Some(now) = cpu_nanos(id) {
            charge_since(&self.shared, *last, id, now);
        }
        *last = None;
        self.shared.clock.store(NO_CLOCK, Relaxed);
    }

    /// The watch of spawned task `task` (from 1), made on first asking.
    fn task(&self, task: u32) -> Option<Arc<Watch>> {
        let index = (task as usize).checked_sub(1)?;
        if let Some(watch) = self.shared.tasks.read().get(index) {
            return Some(Arc::clone(watch));
        }
        let mut tasks = self.shared.tasks.write();
        while tasks.len() <= index {
            tasks.push(Arc::new(Watch::default()));
        }
        Some(Arc::clone(&tasks[index]))
    }

    /// Registers the calling thread as the one running spawned task
    /// `task`: its CPU clock is read at every look from now on.
    pub(crate) fn watch(&self, task: u32) {
        if let Some(watch) = self.task(task) {
            watch.clock.store(current_cpu_clock(), Relaxed);
        }
    }

    /// Stops reading spawned task `task`'s clock: the task ended.
    pub(crate) fn unwatch(&self, task: u32) {
        if let Some(watch) = self
            .shared
            .tasks
            .read()
            .get((task as usize).wrapping_sub(1))
        {
            watch.clock.store(NO_CLOCK, Relaxed);
        }
    }

    /// Publishes where spawned task `task` is: the instruction a stop is
    /// before and its calling-context node.
    pub(crate) fn publish(&self, task: u32, function: FunctionId, pc: u32, node: u32) {
        if let Some(watch) = self
            .shared
            .tasks
            .read()
            .get((task as usize).wrapping_sub(1))
        {
            watch.function.store(function.0, Relaxed);
            watch.pc.store(pc, Relaxed);
            watch.node.store(node, Relaxed);
        }
    }

    /// Marks spawned task `task` as inside one of the profiler's stops, or
    /// out of it again.
    pub(crate) fn busy(&self, task: u32, inside: bool) {
        if let Some(watch) = self
            .shared
            .tasks
            .read()
            .get((task as usize).wrapping_sub(1))
        {
            watch.busy.store(inside, Relaxed);
        }
    }

    /// A copy of what was charged so far.
    pub(crate) fn taken(&self) -> Taken {
        self.shared.taken.lock().clone()
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.shared.done.store(true, Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The sampler's loop.
fn sample(shared: &Shared) {
    let mut tasks_last: Vec<Option<(i64, u64)>> = Vec::new();
    let mut looks = 0u32;
    while !shared.done.load(Relaxed) {
        std::thread::sleep(period_after(looks));
        if look_at_main(shared) {
            looks = looks.saturating_add(1);
        }
        look_at_tasks(shared, &mut tasks_last);
    }
}

/// How long the sampler sleeps after `looks` looks at a running task 0.
///
/// Every look charges the processor time used since the look before, so
/// the period may change without making any total wrong: a longer one only
/// makes each look charge more to the one position it finds, so that a
/// row's share of the time is known to about one over the square root of
/// its looks. A short run needs every look it can get; a long one has
/// thousands, and each costs the process a few microseconds of processor
/// time (a wake, a read of another thread's clock, the charge under a
/// lock). Four times fewer looks after the first [`FIRST_LOOKS`] made a
/// profile without its replay 5% to 8% cheaper (`gauss`, `arith`, `fib`,
/// `sorting`; docs/PROFILING.md, "What profiling costs").
fn period_after(looks: u32) -> Duration {
    if looks < FIRST_LOOKS {
        PERIOD
    } else {
        LATER_PERIOD
    }
}

/// One look at task 0: what its clock moved since the last look is charged
/// to where it is. False when there was no running task 0 to look at.
fn look_at_main(shared: &Shared) -> bool {
    // The clock is read under the lock, so a last look made meanwhile by
    // the task's thread is seen whole: its reading gone, the clock unset.
    let mut last = shared.main_last.lock();
    let id = shared.clock.load(Relaxed);
    if id == NO_CLOCK {
        return false;
    }
    let Some(now) = cpu_nanos(id) else {
        // The thread is gone: its run ended.
        *last = None;
        return false;
    };
    charge_since(shared, *last, id, now);
    *last = Some((id, now));
    true
}

/// Charges task 0's processor time from the reading `last` to `now`, a
/// reading of clock `id`, when `last` was of that clock too: a reading of
/// another thread's clock (a run before, on another thread) says nothing
/// of this one.
fn charge_since(shared: &Shared, last: Option<(i64, u64)>, id: i64, now: u64) {
    if let Some((was, before)) = last
        && was == id
    {
        charge_main(shared, now.saturating_sub(before));
    }
}

/// Charges `moved` nanoseconds of task 0's processor time to where it is:
/// the profiler itself, when the task is inside one of its slow stops, or
/// the instruction and calling-context node its stops last published.
fn charge_main(shared: &Shared, moved: u64) {
    if moved == 0 {
        return;
    }
    let inside = shared.hot.inside();
    let mut taken = shared.taken.lock();
    if inside != Inside::Program {
        taken.profiler += moved;
        if inside == Inside::Heavy {
            taken.profiler_heavy += moved;
        }
    } else {
        let (function, pc, node) = shared.hot.position();
        *taken.cells.entry((function, pc)).or_default() += moved;
        *taken.nodes.entry(node).or_default() += moved;
    }
    taken.samples += 1;
}

/// One look at every followed spawned task: what each used since the last
/// look is charged to where it is. `last` is each task's clock and reading
/// at the look before.
fn look_at_tasks(shared: &Shared, last: &mut Vec<Option<(i64, u64)>>) {
    let tasks = shared.tasks.read();
    if tasks.is_empty() {
        return;
    }
    last.resize(tasks.len(), None);
    for (index, watch) in tasks.iter().enumerate() {
        let id = watch.clock.load(Relaxed);
        let now = if id == NO_CLOCK { None } else { cpu_nanos(id) };
        let Some(now) = now else {
            last[index] = None;
            continue;
        };
        if let Some((was, before)) = last[index]
            && was == id
        {
            let moved = now.saturating_sub(before);
            if moved > 0 {
                let task = index as u32 + 1;
                let mut taken = shared.taken.lock();
                let taken = taken.spawned.entry(task).or_default();
                if watch.busy.load(Relaxed) {
                    taken.profiler += moved;
                } else {
                    let at = (watch.function.load(Relaxed), watch.pc.load(Relaxed));
                    *taken.cells.entry(at).or_default() += moved;
                    *taken.nodes.entry(watch.node.load(Relaxed)).or_default() += moved;
                }
                taken.samples += 1;
            }
        }
        last[index] = Some((id, now));
    }
}

/// Nanoseconds of processor time the whole process has used, every thread
/// of it, read as the sampler reads a task's clock: for a host that times
/// what being watched costs a run, which a run's task spends on a thread
/// of its own, and which time spent waiting for a core would blur. `None`
/// where there is no such clock (not Unix, or this crate built without
/// `thread-clocks`).
pub fn process_cpu_nanos() -> Option<u64> {
    #[cfg(all(unix, feature = "thread-clocks"))]
    {
        cpu_nanos(i64::from(libc::CLOCK_PROCESS_CPUTIME_ID))
    }
    #[cfg(not(all(unix, feature = "thread-clocks")))]
    {
        None
    }
}

/// The calling thread's CPU clock.
#[cfg(all(unix, feature = "thread-clocks"))]
fn current_cpu_clock() -> i64 {
    let mut id: libc::clockid_t = 0;
    // SAFETY: `pthread_self` is always a valid thread, and `id` is a valid
    // place for the answer.
    let status = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) };
    if status == 0 { i64::from(id) } else { NO_CLOCK }
}

/// Nanoseconds of processor time the thread whose clock is `id` has used,
/// or `None` once it has ended.
#[cfg(all(unix, feature = "thread-clocks"))]
fn cpu_nanos(id: i64) -> Option<u64> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid `timespec` to write; an invalid clock id is
    // an error return, not undefined behaviour.
    let status = unsafe { libc::clock_gettime(id as libc::clockid_t, &mut now) };
    (status == 0).then(|| now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64)
}

/// Elsewhere than Unix there is no per-thread clock here: the wall clock
/// stands in, and blocked time is charged too.
#[cfg(not(all(unix, feature = "thread-clocks")))]
fn current_cpu_clock() -> i64 {
    0
}

#[cfg(not(all(unix, feature = "thread-clocks")))]
fn cpu_nanos(_id: i64) -> Option<u64> {
    use std::sync::OnceLock;
    static ORIGIN: OnceLock<std::time::Instant> = OnceLock::new();
    Some(
        ORIGIN
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos() as u64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_thread_is_charged_its_cpu_time_at_its_position() {
        let hot = Arc::new(Hot::default());
        let sampler = Sampler::start(Arc::clone(&hot));
        assert!(sampler.is_running());
        std::thread::scope(|scope| {
            scope.spawn(|| {
                sampler.register_current_thread();
                let started = std::time::Instant::now();
                let mut x = 0u64;
                while started.elapsed() < Duration::from_millis(60) {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
            });
        });
        let taken = sampler.taken();
        assert!(taken.samples > 0, "{taken:?}");
        let charged: u64 = taken.cells.values().sum();
        // Every charge is processor time the busy thread used, and it used
        // no more than its 60 ms of wall time and the last look's share.
        assert!(charged > 0 && charged < 200_000_000, "{charged}");
        assert_eq!(taken.cells.len(), 1, "one position was ever published");
    }

    #[test]
    fn a_stopped_sampler_thread_ends_within_a_few_periods() {
        let sampler = Sampler::start(Arc::new(Hot::default()));
        assert!(sampler.is_running());
        sampler.stop();
        let thread = sampler.thread.as_ref().expect("the thread started");
        let start = std::time::Instant::now();
        while !thread.is_finished() {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "the thread went on"
            );
            std::thread::sleep(PERIOD);
        }
    }

    #[test]
    fn task_zero_is_charged_every_nanosecond_from_its_registration_to_its_last_look() {
        // Each charge is the difference of two readings of the thread's
        // clock, the first taken at registration and the last by the last
        // look, so the charges add up to exactly the time between, however
        // few looks the sampler made; the thread's own readings just
        // inside and just outside those two bound it.
        let hot = Arc::new(Hot::default());
        let sampler = Sampler::start(Arc::clone(&hot));
        assert!(sampler.is_running());
        let (outside, inside) = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let clock = current_cpu_clock();
                    let read = || cpu_nanos(clock).expect("the thread's own clock");
                    let before_registering = read();
                    sampler.register_current_thread();
                    let registered = read();
                    let mut x = 0u64;
                    while read() - registered < 3_000_000 {
                        x = std::hint::black_box(x.wrapping_add(1));
                    }
                    let before_last = read();
                    sampler.last_look();
                    let after_last = read();
                    (after_last - before_registering, before_last - registered)
                })
                .join()
                .expect("the thread runs")
        });
        let charged: u64 = sampler.taken().cells.values().sum();
        assert!(
            inside <= charged && charged <= outside,
            "{inside} <= {charged} <= {outside}"
        );
    }
}
