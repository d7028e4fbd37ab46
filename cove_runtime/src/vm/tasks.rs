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
//! running, a task that blocks takes itself off the count, and every event
//! that could end a wait (a send, a close, a task's end) marks every waiting
//! task as owing a fresh look at its condition. No task running and no look
//! owed means nothing can ever wake anyone: a deadlock. (Counting running
//! tasks alone is not enough: a task woken by a send but not yet back on
//! the lock is neither running nor hopeless.) One lock is
//! contended only by tasks that are already waiting on each other, which is
//! the rare case in a language whose tasks share nothing; a lock per channel
//! would make the count a distributed problem.
//!
//! A wait also wakes every 50 ms to look at the interrupt flag, so an
//! interrupt ends a run whose tasks are all blocked on one another's I/O.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::error::{ErrorKind, Fault, Faulty, RunError};
use crate::limits::InterruptHandle;
use crate::value::{ChannelHandle, Value};

/// A spawned task's outcome, once it has one.
#[derive(Debug)]
pub(crate) struct TaskState {
    pub(crate) id: u32,
    result: Mutex<Option<Result<Value, RunError>>>,
}

impl TaskState {
    pub(crate) fn new(id: u32) -> TaskState {
        TaskState {
            id,
            result: Mutex::new(None),
        }
    }
}

/// A channel's queue.
#[derive(Debug, Default)]
pub(crate) struct ChannelState {
    queue: Mutex<VecDeque<Value>>,
    closed: AtomicBool,
}

impl ChannelHandle {
    /// A new, open, empty channel.
    pub(crate) fn fresh() -> ChannelHandle {
        ChannelHandle(Arc::new(ChannelState::default()))
    }
}

#[derive(Debug)]
struct Counts {
    /// Tasks alive and not waiting.
    running: usize,
    /// Tasks waiting.
    waiting: usize,
    /// Bumped by everything that can satisfy a wait: a send, a close, a
    /// task's end.
    generation: u64,
    /// Waiting tasks that have not looked at their condition since the last
    /// bump. A wait woken by an event but not yet rescheduled is one of
    /// these, so no task is declared deadlocked while another may be about
    /// to go on.
    unchecked: usize,
    /// Tasks spawned so far.
    spawned: usize,
    /// Set once every task was found waiting: all waits end in an error.
    deadlock: bool,
    /// Set when the task the `Vm` ran has ended: the others stop.
    ending: bool,
}

/// What the tasks of one run share: see the module documentation.
#[derive(Debug)]
pub(crate) struct Scheduler {
    counts: Mutex<Counts>,
    wake: Condvar,
    next_id: AtomicU32,
    /// Mirrors `Counts::ending` where a safepoint can read it without the lock.
    ending: AtomicBool,
}

impl Default for Scheduler {
    fn default() -> Scheduler {
        Scheduler {
            counts: Mutex::new(Counts {
                running: 1,
                waiting: 0,
                generation: 0,
                unchecked: 0,
                spawned: 0,
                deadlock: false,
                ending: false,
            }),
            wake: Condvar::new(),
            next_id: AtomicU32::new(1),
            ending: AtomicBool::new(false),
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
        self.wake.notify_all();
    }

    /// Admits one more task, counted as running; its number.
    pub(crate) fn admit(&self, max_tasks: usize) -> Faulty<u32> {
        let mut counts = self.counts.lock();
        if counts.spawned >= max_tasks {
            return Err(Fault::new(
                ErrorKind::TooManyTasks,
                format!("the run spawned more than its limit of {max_tasks} tasks"),
            ));
        }
        counts.spawned += 1;
        counts.running += 1;
        Ok(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Records a task's outcome and takes it off the running count.
    pub(crate) fn finish(&self, task: &TaskState, outcome: Result<Value, RunError>) {
        let mut counts = self.counts.lock();
        *task.result.lock() = Some(outcome);
        counts.running -= 1;
        self.event(&mut counts);
    }

    /// Something a waiting task may be waiting for has happened: every
    /// waiting task must look again before anyone may call it a deadlock.
    fn event(&self, counts: &mut Counts) {
        counts.generation += 1;
        counts.unchecked = counts.waiting;
        self.wake.notify_all();
    }

    /// Waits until `ready` answers, counting this task as blocked meanwhile.
    ///
    /// A deadlock is declared when no task is running and every waiting task
    /// has looked at its condition since the last event, found it unmet,
    /// and gone back to waiting: then nothing can ever change.
    fn block_until<T>(
        &self,
        interrupt: &InterruptHandle,
        mut ready: impl FnMut() -> Option<T>,
    ) -> Faulty<T> {
        let mut counts = self.counts.lock();
        if let Some(value) = ready() {
            return Ok(value);
        }
        counts.running -= 1;
        counts.waiting += 1;
        let mut seen = counts.generation;
        let outcome = loop {
            if counts.deadlock {
                break Err(deadlock());
            }
            if counts.ending || interrupt.is_interrupted() {
                break Err(interrupted());
            }
            if counts.running == 0 && counts.unchecked == 0 {
                counts.deadlock = true;
                self.wake.notify_all();
                break Err(deadlock());
            }
            self.wait(&mut counts);
            let fresh = seen != counts.generation;
            if fresh {
                seen = counts.generation;
                counts.unchecked = counts.unchecked.saturating_sub(1);
            }
            if let Some(value) = ready() {
                break Ok(value);
            }
        };
        counts.running += 1;
        counts.waiting -= 1;
        outcome
    }

    fn wait(&self, counts: &mut MutexGuard<'_, Counts>) {
        self.wake.wait_for(counts, Duration::from_millis(50));
    }

    /// The task's result, waiting for it.
    pub(crate) fn join(
        &self,
        task: &TaskState,
        interrupt: &InterruptHandle,
    ) -> Faulty<Result<Value, RunError>> {
        self.block_until(interrupt, || task.result.lock().clone())
    }

    /// Queues a message.
    pub(crate) fn send(&self, channel: &ChannelHandle, message: Value) -> Faulty<()> {
        let _counts = self.counts.lock();
        if channel.0.closed.load(Ordering::Relaxed) {
            return Err(Fault::new(
                ErrorKind::ChannelClosed,
                "send on a closed channel",
            ));
        }
        channel.0.queue.lock().push_back(message);
        self.wake.notify_all();
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
    ) -> Faulty<Option<Value>> {
        self.block_until(interrupt, || {
            if let Some(message) = channel.0.queue.lock().pop_front() {
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
        self.event(&mut counts);
    }
}
