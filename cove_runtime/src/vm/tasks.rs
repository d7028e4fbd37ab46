//! Tasks and channels: what `spawn`, `join`, `send` and `recv` share between
//! the threads of one run, and how a run notices that none of them can move.
//!
//! Every task has its own machine and heap on its own OS thread (scoped to
//! the run, so a run never leaves a thread behind), and values cross between
//! them only as deep copies ([`Value`]). What the threads do share is here:
//! a task's result slot, a channel's queue, and the [`Scheduler`] that every
//! blocking operation waits on.
//!
//! # One lock for all waiting
//!
//! Every operation that can block or unblock a task (`join`, `recv`, `send`,
//! `close`, a task ending) takes the scheduler's one lock. That makes the
//! deadlock check exact and cheap: the scheduler counts the tasks that are
//! running, a task that blocks takes itself off the count, and a count of
//! zero with a task still waiting means nothing can ever wake it. One lock is
//! contended only by tasks that are already waiting on each other, which is
//! the rare case in a language whose tasks share nothing; a lock per channel
//! would make the count a distributed problem.
//!
//! A wait also wakes now and then to look at the interrupt flag (the
//! waiters together about every 50 ms), so an interrupt ends a run whose
//! tasks are all blocked on one another.
//!
//! # Who an event wakes
//!
//! The waiters are kept by what they wait on ([`Waiters`]): the receivers
//! of each channel apart, and the joins together. A send or a close can
//! make only that channel's receivers ready, so it wakes them alone; an
//! event that can make anyone ready (a task ending, a collection letting go
//! of channel handles) wakes every waiter. One condition variable for
//! everyone (the obvious way) had every message of a pipeline wake every
//! task of the run, the main task parked in `join` among them: a pipeline
//! of three tasks spent twice as long in the kernel as in its own work.
//!
//! # When a deadlock is real
//!
//! An event that can make a waiter ready (a send, a close, a task ending)
//! counts every parked waiter as running again until it has re-checked its
//! condition; a deadlock is declared only when no task is running and every
//! waiter has looked since the last event. Counting a woken waiter as
//! blocked until the OS schedules it (the obvious way) lets a task that
//! sends and then blocks see "nobody running" and report a deadlock that is
//! not there.
//!
//! Nor is every task waiting enough by itself: a receiver that waits for
//! the channel's other holders to go is held up by handles that no task can
//! reach but whose heaps have not been collected. So the first time every
//! task is found waiting, each waiter collects its heap and waits again
//! ([`Blocked::Sweep`]); a collection that lets go of a channel handle is an
//! event, and only if every task is found waiting again with no event in
//! between is the deadlock declared.
//!
//! # Failures that end the run
//!
//! A spawned task that ends in `exit`, an interrupt, a debugger's halt or a
//! limit of the run ends the whole run: see [`ends_the_run`]. It records the
//! failure before its heap (and so its channel handles) goes, so a peer
//! blocked on one of its channels sees the run end rather than an orderly
//! close, and `Vm::run_entry` returns the first such failure.
//!
//! Any other fault (division by zero, a failed `unwrap`, ...) is the task's
//! own and surfaces where it is joined. A fault that no `join` ever looks at
//! is not lost: if the run would otherwise end well or by `exit`, it ends
//! with the first such fault instead ([`Scheduler::unjoined`]), and if the
//! main task failed on its own the fault is named after its message (see
//! [`settle_result`]). It is not raised the moment
//! it happens, because the program may still join the task and expect the
//! error there, after output of its own.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::error::{ErrorKind, Fault, Faulty, RunError};
use crate::heap::convert::{dispose, words_of};
use crate::limits::InterruptHandle;
use crate::value::{ChannelHandle, Value};

/// How long one task has spent parked in `join` and `recv`, cumulative:
/// what [`Stop::blocked_nanos`](crate::vm::debug::Stop::blocked_nanos)
/// tells a debugger.
///
/// The clock is read only on the parked path of
/// [`Scheduler::block_until`], once just before a task parks and once when
/// it is done waiting, so a run that never blocks never reads it; a wait
/// that is ready at once is no wait and costs nothing. Counted per task,
/// by the task's own thread, so it needs no atomics.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Waited {
    /// Nanoseconds spent parked so far.
    pub(crate) nanos: u64,
    /// When set, every park counts this many nanoseconds however long it
    /// took: the deterministic clock of
    /// [`Vm::with_fixed_wait_time`](crate::Vm::with_fixed_wait_time).
    pub(crate) fixed: Option<u64>,
}

impl Waited {
    /// The clock, read as the task parks (not at all under a fixed time).
    fn parking(&self) -> Option<Instant> {
        match self.fixed {
            Some(_) => None,
            None => Some(Instant::now()),
        }
    }

    /// Adds the park that began at `since` and ends now.
    fn woke(&mut self, since: Option<Instant>) {
        let nanos = match (self.fixed, since) {
            (Some(fixed), _) => fixed,
            (None, Some(since)) => u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX),
            (None, None) => 0,
        };
        self.nanos = self.nanos.saturating_add(nanos);
    }
}

/// A spawned task's outcome, once it has one.
#[derive(Debug)]
pub(crate) struct TaskState {
    pub(crate) id: u32,
    /// The run that spawned it ([`Scheduler::run`]).
    run: u64,
    result: Mutex<Option<Arc<Outcome>>>,
    /// Set by its first `join`, which gives its place under
    /// `Limits::max_tasks` back to the run.
    joined: AtomicBool,
}

impl TaskState {
    pub(crate) fn new(id: u32, scheduler: &Scheduler) -> TaskState {
        TaskState {
            id,
            run: scheduler.run,
            result: Mutex::new(None),
            joined: AtomicBool::new(false),
        }
    }
}

/// Numbers the runs of the process, so a task knows which run spawned it.
static RUNS: AtomicU64 = AtomicU64::new(0);

/// A finished task's result, shared by every `join` of it (a task may be
/// joined through several copies of its handle, so the result is not taken,
/// and cloning a deep value would recurse). Dropped without recursion.
#[derive(Debug)]
pub(crate) struct Outcome(pub(crate) Result<Value, RunError>);

impl Drop for Outcome {
    fn drop(&mut self) {
        if let Ok(value) = &mut self.0 {
            dispose(std::mem::replace(value, Value::Unit));
        }
    }
}

/// A channel's queue, and how many words its messages would take in a heap.
#[derive(Debug, Default)]
pub(crate) struct ChannelState {
    queue: Mutex<VecDeque<(Value, u64)>>,
    closed: AtomicBool,
    /// The run-wide count of queued words this channel's messages are part
    /// of, set at the first send.
    counted: OnceLock<Arc<AtomicU64>>,
}

impl ChannelHandle {
    /// A new, open, empty channel, or the heap's out-of-memory fault when
    /// the host has no room for its state.
    ///
    /// An `Arc` has no fallible constructor on stable Rust, and a refusal
    /// of its 80 bytes aborted the process (a run that made channels for
    /// ever under `ulimit -v`, where the rescue of `heap::reserve` could
    /// not make room in the thread's arena). So the host is asked for a
    /// block of the state's size first ([`crate::heap::probe_host`]).
    pub(crate) fn fresh() -> crate::error::Faulty<ChannelHandle> {
        crate::heap::probe_host(
            std::alloc::Layout::new::<([usize; 2], ChannelState)>(),
            format_args!("a channel's state"),
        )?;
        Ok(ChannelHandle(Arc::new(ChannelState::default())))
    }
}

impl Drop for ChannelState {
    fn drop(&mut self) {
        let queue = std::mem::take(self.queue.get_mut());
        let mut words = 0;
        for (message, size) in queue {
            words += size;
            dispose(message);
        }
        if let Some(counted) = self.counted.get() {
            counted.fetch_sub(words, Ordering::Relaxed);
        }
    }
}

/// The tasks waiting on one thing: one channel's receivers, or the joins.
#[derive(Debug)]
struct Waiters {
    /// Tasks inside [`Scheduler::block_until`] on this: parked, or woken
    /// and not yet back. The entry goes when the last of them leaves.
    present: usize,
    /// Of those, the ones parked: they checked their condition after the
    /// last wake and found it false.
    parked: usize,
    /// Bumped by every wake of these waiters; each bump moves every one of
    /// them parked back onto the run's `running` until it has looked again.
    stamp: u64,
    /// What they sleep on.
    wake: Arc<Condvar>,
}

/// Whom a wait is kept with: a channel's receivers by the address of the
/// channel's state (alive while a receiver waits, since it holds a handle),
/// and every join under [`JOINS`].
type WaitKey = usize;

/// The key of every task waiting in `join`: a task's ending is an event
/// for everyone, so joins need no key of their own.
const JOINS: WaitKey = 0;

fn channel_key(channel: &ChannelHandle) -> WaitKey {
    Arc::as_ptr(&channel.0) as WaitKey
}

impl Counts {
    /// The waiters of `key`: kept while a task inside
    /// [`Scheduler::block_until`] waits on it, as the caller does.
    fn of(&mut self, key: WaitKey) -> &mut Waiters {
        self.waiters
            .get_mut(&key)
            .expect("a waiter is kept under its key until it leaves")
    }
}

#[derive(Debug)]
struct Counts {
    /// Tasks alive that are not parked: running, or woken by an event and
    /// not yet back from re-checking what they wait for.
    running: usize,
    /// Tasks parked, of every key: the sum of the [`Waiters::parked`].
    parked: usize,
    /// The waiters, by what they wait on.
    waiters: HashMap<WaitKey, Waiters>,
    /// Tasks spawned and not yet joined: what `Limits::max_tasks` bounds.
    /// A joined task has ended, so a run that spawns and joins tasks one
    /// after another may spawn any number of them; one that lets them pile
    /// up (a spawn bomb, a chain of nested spawns) meets the bound, at the
    /// same spawn whatever the timing.
    unjoined_tasks: usize,
    /// Set once every task was found waiting: all waits end in an error.
    deadlock: bool,
    /// Bumped to ask every waiter to collect its heap before a deadlock is
    /// declared: see [`Blocked::Sweep`].
    sweep: u64,
    /// A sweep was asked for and no event has happened since: if every
    /// task is found waiting again, the deadlock is real.
    swept: bool,
    /// Set when the run is over (the task the `Vm` ran has ended, or a task
    /// failed in a way that ends the run): the others stop.
    ending: bool,
    /// The first failure of a spawned task that ends the whole run, and
    /// which task it was.
    failure: Option<(u32, RunError)>,
    /// The faults of spawned tasks that no `join` has looked at yet, in the
    /// order they happened, by task number: see [`Scheduler::unjoined`].
    unjoined: Vec<(u32, RunError)>,
}

/// Why a wait ended without what it waited for.
#[derive(Debug)]
pub(crate) enum Blocked {
    /// The wait failed: a deadlock, the end of the run, an interrupt.
    Fault(Fault),
    /// Every task was found waiting, and before calling it a deadlock each
    /// waiter is asked to collect its heap and wait again: a channel handle
    /// that no task can reach any more still counts as a holder of the
    /// channel until the heap that has it is collected, and a receiver
    /// waits for "no other holder" only once those are gone. A collection
    /// that lets go of a channel handle is an event
    /// ([`Scheduler::released`]); if none does, the next time every task is
    /// found waiting the deadlock is real.
    Sweep,
}

impl From<Fault> for Blocked {
    fn from(fault: Fault) -> Blocked {
        Blocked::Fault(fault)
    }
}

/// What the tasks of one run share: see the module documentation.
#[derive(Debug)]
pub(crate) struct Scheduler {
    counts: Mutex<Counts>,
    next_id: AtomicU32,
    /// Mirrors `Counts::ending` where a safepoint can read it without the lock.
    ending: AtomicBool,
    /// Words of messages queued on this run's channels: see [`Scheduler::send`].
    queued: Arc<AtomicU64>,
    /// This run's number among the runs of the process.
    run: u64,
}

impl Default for Scheduler {
    fn default() -> Scheduler {
        Scheduler {
            counts: Mutex::new(Counts {
                running: 1,
                parked: 0,
                waiters: HashMap::new(),
                unjoined_tasks: 0,
                deadlock: false,
                sweep: 0,
                swept: false,
                ending: false,
                failure: None,
                unjoined: Vec::new(),
            }),
            next_id: AtomicU32::new(1),
            ending: AtomicBool::new(false),
            queued: Arc::new(AtomicU64::new(0)),
            run: RUNS.fetch_add(1, Ordering::Relaxed),
        }
    }
}

fn deadlock() -> Fault {
    Fault::new(
        ErrorKind::Deadlock,
        "deadlock: every task of the run is waiting on another",
    )
}

fn interrupted() -> Fault {
    Fault::new(ErrorKind::Interrupted, "interrupted")
}

/// Why a task stops because its run is over: an interrupt, or the end of
/// the run for another reason (the task the `Vm` ran returned, or a task
/// ended the run). Both are [`ErrorKind::Interrupted`]; the message tells
/// them apart, which matters to a host that joins the task in a later run.
pub(crate) fn stopped(interrupt: &InterruptHandle) -> Fault {
    if interrupt.is_interrupted() {
        interrupted()
    } else {
        Fault::new(
            ErrorKind::Interrupted,
            "stopped: the run this task belongs to has ended",
        )
    }
}

/// Whether a spawned task that ends in an error of this kind ends the whole
/// run, joined or not: the program asked to stop (`exit`), the host did (an
/// interrupt, a debugger's halt), a bound of the run was reached, or the
/// machine failed. Any other fault stays the task's own and surfaces where
/// the task is joined.
pub(crate) fn ends_the_run(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Exit(_)
            | ErrorKind::Interrupted
            | ErrorKind::Halted
            | ErrorKind::OutOfFuel
            | ErrorKind::HeapLimit
            | ErrorKind::CallDepth
            | ErrorKind::TooManyTasks
            | ErrorKind::Internal
    )
}

/// The result of a run, given what its spawned tasks left behind: the
/// first failure of one that ended the run (`failure`) and the first fault
/// of one nobody joined (`unjoined`). `result` is what the task the `Vm`
/// ran ended with.
///
/// - A task's failure that ended the run is the run's result, always in
///   the same words ("in task N: ...", the task's frames), unless the
///   main task failed on its own in some other way. Whether the main task
///   learnt of the failure through a `join` or was stopped for it is a
///   race between threads, and must not change the report.
/// - A fault nobody joined is never lost: a run that ended well, by
///   `exit`, or in a deadlock (which a task that died holding a channel
///   can cause) ends with it instead; a run that failed on its own says so
///   after its own message.
pub(crate) fn settle_result(
    result: &mut Result<Value, RunError>,
    failure: Option<(u32, RunError)>,
    unjoined: Option<(u32, RunError)>,
) {
    let replace = |result: &mut Result<Value, RunError>, error: RunError| {
        if let Ok(value) = std::mem::replace(result, Err(error)) {
            dispose(value);
        }
    };
    if let Some((task, failure)) = failure {
        let own_fault = match &*result {
            Err(own) if own.kind == ErrorKind::Interrupted => failure.kind == own.kind,
            Err(own) => own.kind != failure.kind,
            Ok(_) => false,
        };
        if !own_fault {
            let error = RunError {
                kind: failure.kind,
                message: format!("in task {task}: {}", failure.message),
                backtrace: failure.backtrace,
            };
            replace(result, error);
        }
    }
    let Some((task, error)) = unjoined else {
        return;
    };
    match result {
        Err(own) if !matches!(own.kind, ErrorKind::Exit(_) | ErrorKind::Deadlock) => {
            own.message = format!(
                "{} (and task {task}, which was never joined, failed too: {})",
                own.message, error.message
            );
        }
        _ => {
            let lost = RunError {
                kind: error.kind,
                message: format!("in task {task}, which was never joined: {}", error.message),
                backtrace: error.backtrace,
            };
            replace(result, lost);
        }
    }
}

impl Scheduler {
    /// Whether the run is over and a task should stop at its next safepoint.
    #[inline]
    pub(crate) fn is_ending(&self) -> bool {
        self.ending.load(Ordering::Relaxed)
    }

    /// Tells every task the run is over, waking the ones that wait.
    pub(crate) fn end(&self) {
        let mut counts = self.counts.lock();
        counts.ending = true;
        self.ending.store(true, Ordering::Relaxed);
        rouse(&counts);
    }

    /// Records that spawned task `task` failed.
    ///
    /// A failure that ends the run (see [`ends_the_run`]) ends it: the first
    /// such failure is the run's result, and one that comes after the run
    /// was already ending is not recorded (it is most likely the stop
    /// itself). A deadlock is the run's state rather than the task's fault,
    /// and is not noted. Any other fault is noted as not yet joined
    /// ([`Scheduler::unjoined`]), unless the run is already ending.
    ///
    /// A task calls this before it lets go of its heap, so a peer waiting
    /// on one of its channels sees the run end rather than an orderly close,
    /// and a peer that sees the channel's last other holder go finds the
    /// fault already noted.
    pub(crate) fn fail(&self, task: u32, error: &RunError) {
        let mut counts = self.counts.lock();
        if counts.ending {
            return;
        }
        if error.kind == ErrorKind::Deadlock {
            // Not the task's own fault but the run's state, which every
            // waiter reports alike; the task that waits on it says so.
            return;
        }
        if !ends_the_run(error.kind) {
            counts.unjoined.push((task, error.clone()));
            return;
        }
        counts.failure = Some((task, error.clone()));
        counts.ending = true;
        self.ending.store(true, Ordering::Relaxed);
        rouse(&counts);
    }

    /// The failure [`Scheduler::fail`] recorded, if any.
    pub(crate) fn failure(&self) -> Option<(u32, RunError)> {
        self.counts.lock().failure.clone()
    }

    /// Admits one more task, counted as running; its number.
    pub(crate) fn admit(&self, max_tasks: usize) -> Faulty<u32> {
        let mut counts = self.counts.lock();
        if counts.unjoined_tasks >= max_tasks {
            return Err(Fault::new(
                ErrorKind::TooManyTasks,
                format!("the run spawned more than its limit of {max_tasks} tasks not yet joined"),
            ));
        }
        counts.unjoined_tasks += 1;
        counts.running += 1;
        Ok(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Wakes every waiter and counts the parked ones as running until they
    /// have looked again: called, under the lock, by every event that can
    /// make any of them ready.
    fn event(&self, counts: &mut Counts) {
        counts.swept = false;
        wake_all(counts);
    }

    /// Wakes the receivers of `channel` alone, as [`Scheduler::event`]
    /// wakes everyone: called, under the lock, by a send or a close, which
    /// can make no other waiter ready.
    fn channel_event(&self, counts: &mut Counts, channel: &ChannelHandle) {
        counts.swept = false;
        if let Some(waiters) = counts.waiters.get_mut(&channel_key(channel)) {
            let woken = wake(waiters);
            counts.running += woken;
            counts.parked -= woken;
        }
    }

    /// Tells the waiters that a collection let go of channel handles: a
    /// receiver waiting for the other holders to go may now be ready.
    pub(crate) fn released(&self) {
        let mut counts = self.counts.lock();
        self.event(&mut counts);
    }

    /// Records a task's outcome and takes it off the running count.
    pub(crate) fn finish(&self, task: &TaskState, outcome: Result<Value, RunError>) {
        let mut counts = self.counts.lock();
        *task.result.lock() = Some(Arc::new(Outcome(outcome)));
        counts.running -= 1;
        self.event(&mut counts);
    }

    /// Waits until `ready` answers, counting this task as blocked meanwhile,
    /// kept with the other waiters of `key` (what it waits on).
    ///
    /// A deadlock is declared only when no task is running and every waiter
    /// has re-checked its condition since the last event: a waiter that an
    /// event woke counts as running until it has looked, so a task that
    /// sends and then blocks cannot mistake the receiver it just woke for a
    /// task that can never move.
    ///
    /// The time from parking to the end of the wait, however it ends, is
    /// added to `waited`; a condition that is ready at once adds nothing.
    fn block_until<T>(
        &self,
        key: WaitKey,
        interrupt: &InterruptHandle,
        waited: &mut Waited,
        mut ready: impl FnMut() -> Option<T>,
    ) -> Result<T, Blocked> {
        let mut counts = self.counts.lock();
        if counts.ending {
            return Err(stopped(interrupt).into());
        }
        if let Some(value) = ready() {
            return Ok(value);
        }
        // Parked: off the running count until the next event.
        let parked_at = waited.parking();
        let waiters = counts.waiters.entry(key).or_insert_with(|| Waiters {
            present: 0,
            parked: 0,
            stamp: 0,
            wake: Arc::new(Condvar::new()),
        });
        waiters.present += 1;
        waiters.parked += 1;
        let mut seen = waiters.stamp;
        let sleep = waiters.wake.clone();
        counts.running -= 1;
        counts.parked += 1;
        let sweep = counts.sweep;
        let stamp = |counts: &mut Counts| counts.of(key).stamp;
        let outcome = loop {
            let parked = stamp(&mut counts) == seen;
            if counts.deadlock {
                break Err(deadlock().into());
            }
            if counts.ending {
                break Err(stopped(interrupt).into());
            }
            if counts.sweep != sweep {
                break Err(Blocked::Sweep);
            }
            if interrupt.is_interrupted() {
                // Whoever sees the interrupt first ends the run for all.
                counts.ending = true;
                self.ending.store(true, Ordering::Relaxed);
                rouse(&counts);
                break Err(interrupted().into());
            }
            if parked && counts.running == 0 {
                if !counts.swept {
                    // Not yet: every waiter collects its heap first.
                    counts.swept = true;
                    counts.sweep += 1;
                    wake_all(&mut counts);
                    break Err(Blocked::Sweep);
                }
                counts.deadlock = true;
                rouse(&counts);
                break Err(deadlock().into());
            }
            wait(&sleep, &mut counts);
            if counts.ending || counts.deadlock {
                continue;
            }
            let woken = stamp(&mut counts) != seen;
            if let Some(value) = ready() {
                if !woken {
                    // Ready without an event (a holder let go of a channel
                    // it was the last to hold elsewhere): unpark.
                    unpark(&mut counts, key);
                }
                leave(&mut counts, key);
                waited.woke(parked_at);
                return Ok(value);
            }
            if woken {
                // Looked after the event and still cannot go: park again.
                let waiters = counts.of(key);
                waiters.parked += 1;
                seen = waiters.stamp;
                counts.running -= 1;
                counts.parked += 1;
            }
        };
        if stamp(&mut counts) == seen {
            unpark(&mut counts, key);
        }
        leave(&mut counts, key);
        waited.woke(parked_at);
        outcome
    }

    /// The task's result, waiting for it. A task that has finished answers
    /// at once. A fault it ended in has now been seen, and is no longer
    /// [unjoined](Scheduler::unjoined).
    pub(crate) fn join(
        &self,
        task: &TaskState,
        interrupt: &InterruptHandle,
        waited: &mut Waited,
    ) -> Result<Arc<Outcome>, Blocked> {
        // Bound first: a guard in the `match` would be held while waiting.
        let finished = task.result.lock().clone();
        let done = match finished {
            Some(done) => done,
            None => self.block_until(JOINS, interrupt, waited, || task.result.lock().clone())?,
        };
        let first = task.run == self.run && !task.joined.swap(true, Ordering::Relaxed);
        if first || done.0.is_err() {
            let mut counts = self.counts.lock();
            if first {
                counts.unjoined_tasks -= 1;
            }
            if done.0.is_err() {
                counts.unjoined.retain(|(id, _)| *id != task.id);
            }
        }
        Ok(done)
    }

    /// The first fault of a spawned task that no `join` looked at, with
    /// its task's number.
    ///
    /// A run whose task the `Vm` ran ends well but which left such a fault
    /// behind fails with it: an error in a task surfaces at its `join`, and
    /// a task nobody joins has its error surface when the run ends, rather
    /// than be lost.
    pub(crate) fn unjoined(&self) -> Option<(u32, RunError)> {
        self.counts.lock().unjoined.first().cloned()
    }

    /// Queues a message.
    ///
    /// Queued messages are outside every task's heap, so they are counted
    /// here instead: the words of all messages queued on the run's channels
    /// (as [`words_of`] estimates them) may not exceed `max_heap_words`, or
    /// the send fails with [`ErrorKind::HeapLimit`]. Without a heap bound
    /// the queues are unbounded too.
    pub(crate) fn send(
        &self,
        channel: &ChannelHandle,
        message: Value,
        max_heap_words: Option<u64>,
    ) -> Faulty<()> {
        let mut counts = self.counts.lock();
        if channel.0.closed.load(Ordering::Relaxed) {
            dispose(message);
            return Err(Fault::new(
                ErrorKind::ChannelClosed,
                "send on a closed channel",
            ));
        }
        let words = words_of(&message);
        let counted = channel.0.counted.get_or_init(|| self.queued.clone());
        let queued = counted.load(Ordering::Relaxed);
        if let Some(limit) = max_heap_words
            && queued.saturating_add(words) > limit
        {
            dispose(message);
            return Err(Fault::new(
                ErrorKind::HeapLimit,
                format!(
                    "channel queues over the heap limit: {queued} words are waiting to be \
                     received, and this message of {words} would pass the limit of {limit}"
                ),
            ));
        }
        let mut queue = channel.0.queue.lock();
        // The queue is the host's memory: one a host refuses (under
        // `ulimit -v`) is the heap's out-of-memory fault, not an abort.
        if let Err(e) = queue.try_reserve(1) {
            // A full queue doubles: as much again as it holds.
            let growth = queue.len().max(1) * std::mem::size_of::<(Value, u64)>() / 8;
            drop(queue);
            dispose(message);
            return Err(crate::heap::out_of_memory(
                growth,
                format_args!("{e}, queueing a message"),
            ));
        }
        counted.fetch_add(words, Ordering::Relaxed);
        queue.push_back((message, words));
        drop(queue);
        self.channel_event(&mut counts, channel);
        Ok(())
    }

    /// The next message, waiting for one; `None` once the channel is closed
    /// and drained, or when no other holder of it is left to send.
    ///
    /// `holders_here` is how many references to the channel's state the
    /// receiving task itself holds (its heap's handle), so that "no other
    /// holder" is a count of the rest.
    pub(crate) fn recv(
        &self,
        channel: &ChannelHandle,
        holders_here: usize,
        interrupt: &InterruptHandle,
        waited: &mut Waited,
    ) -> Result<Option<Value>, Blocked> {
        self.block_until(channel_key(channel), interrupt, waited, || {
            if let Some((message, words)) = channel.0.queue.lock().pop_front() {
                if let Some(counted) = channel.0.counted.get() {
                    counted.fetch_sub(words, Ordering::Relaxed);
                }
                return Some(Some(message));
            }
            if channel.0.closed.load(Ordering::Relaxed)
                || Arc::strong_count(&channel.0) <= holders_here
            {
                return Some(None);
            }
            None
        })
    }

    /// Closes a channel: receivers see `None` after what was sent.
    pub(crate) fn close(&self, channel: &ChannelHandle) {
        let mut counts = self.counts.lock();
        channel.0.closed.store(true, Ordering::Relaxed);
        self.channel_event(&mut counts, channel);
    }
}

/// Wakes the parked ones of `waiters` to look again, and says how many
/// they were: the caller moves that many from the run's parked count to
/// its running one.
fn wake(waiters: &mut Waiters) -> usize {
    let woken = std::mem::take(&mut waiters.parked);
    waiters.stamp += 1;
    waiters.wake.notify_all();
    woken
}

/// Wakes every waiter to look again and counts the parked ones as running,
/// as an event does, without being one: what asking for a sweep does.
fn wake_all(counts: &mut Counts) {
    let woken: usize = counts.waiters.values_mut().map(wake).sum();
    counts.running += woken;
    counts.parked -= woken;
}

/// Wakes every waiter to see the run's state (its end, a deadlock) without
/// changing the counts: each leaves on its own account.
fn rouse(counts: &Counts) {
    for waiters in counts.waiters.values() {
        waiters.wake.notify_all();
    }
}

/// Takes one task parked on `key` off the parked counts and onto running.
fn unpark(counts: &mut Counts, key: WaitKey) {
    let waiters = counts.of(key);
    waiters.parked -= 1;
    counts.parked -= 1;
    counts.running += 1;
}

/// One task leaves the waiters of `key`; the last one takes the entry.
fn leave(counts: &mut Counts, key: WaitKey) {
    let waiters = counts.of(key);
    waiters.present -= 1;
    if waiters.present == 0 {
        counts.waiters.remove(&key);
    }
}

/// Waits on `sleep` for a wake, or until it is time to look at the
/// interrupt flag again. The first waiter to see an interrupt wakes the
/// rest, so the more tasks wait, the longer each sleeps: together they look
/// about every 50 ms, however many there are, rather than each of ten
/// thousand parked tasks waking twenty times a second.
fn wait(sleep: &Condvar, counts: &mut MutexGuard<'_, Counts>) {
    let waiting = (counts.parked as u64).clamp(1, 100);
    sleep.wait_for(counts, Duration::from_millis(50 * waiting));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Waits, a little at a time, until `n` tasks are parked.
    fn until_parked(scheduler: &Scheduler, n: usize) {
        let start = Instant::now();
        while scheduler.counts.lock().parked != n {
            assert!(start.elapsed() < Duration::from_secs(10), "never parked");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// How many times the waiters kept under `key` have been woken.
    fn wakes(scheduler: &Scheduler, key: WaitKey) -> u64 {
        scheduler.counts.lock().waiters[&key].stamp
    }

    #[test]
    fn a_send_wakes_the_receivers_of_its_channel_and_no_other_waiter() {
        let scheduler = Scheduler::default();
        let interrupt = InterruptHandle::default();
        let waited_on = ChannelHandle::fresh().expect("room for a channel");
        let other = ChannelHandle::fresh().expect("room for a channel");
        let task = TaskState::new(1, &scheduler);
        std::thread::scope(|scope| {
            // The task joined, the receiver and the joiner.
            for _ in 0..3 {
                scheduler.admit(8).unwrap();
            }
            let receiver = scope.spawn(|| {
                let mut waited = Waited::default();
                let mine = waited_on.clone();
                let got = scheduler.recv(&mine, 1, &interrupt, &mut waited);
                scheduler.finish(&TaskState::new(2, &scheduler), Ok(Value::Unit));
                got.ok().flatten()
            });
            let joiner = scope.spawn(|| {
                let mut waited = Waited::default();
                let got = scheduler.join(&task, &interrupt, &mut waited);
                scheduler.finish(&TaskState::new(3, &scheduler), Ok(Value::Unit));
                got.is_ok()
            });
            until_parked(&scheduler, 2);
            let (receivers, joins) = (channel_key(&waited_on), JOINS);
            let before = (wakes(&scheduler, receivers), wakes(&scheduler, joins));

            scheduler.send(&other, Value::Int(1), None).unwrap();
            assert_eq!(scheduler.counts.lock().parked, 2);
            assert_eq!(
                (wakes(&scheduler, receivers), wakes(&scheduler, joins)),
                before
            );

            scheduler.send(&waited_on, Value::Int(7), None).unwrap();
            assert!(matches!(receiver.join().unwrap(), Some(Value::Int(7))));
            // The receiver's ending was an event for everyone, the join's
            // too; the task joined has not ended, so the join waits on.
            until_parked(&scheduler, 1);
            scheduler.finish(&task, Ok(Value::Unit));
            assert!(joiner.join().unwrap());
        });
        assert_eq!(scheduler.counts.lock().running, 1);
        assert!(scheduler.counts.lock().waiters.is_empty());
    }
}
