//! Every bound a run can be given, in one place, and the handle that stops a
//! run from outside.
//!
//! All limits are checked where checking is already paid for: fuel and the
//! interrupt at the safepoint the dispatch loop stops at every
//! [`SAFEPOINT_STRIDE`](crate::vm::exec::SAFEPOINT_STRIDE) instructions (a
//! run with fuel exactly; any other at its next taken jump or call), the
//! heap after a collection, the call depth at a call, the task count at a
//! spawn. No limit costs an instruction anything.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The bounds of a run. `Limits::default()` bounds only the call depth and
/// the number of tasks.
///
/// ```
/// let limits = cove_runtime::Limits {
///     fuel: Some(1_000_000),
///     max_heap_words: Some(1 << 20),
///     ..Default::default()
/// };
/// assert_eq!(limits.max_call_depth, cove_runtime::Limits::default().max_call_depth);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// How many instructions the run may execute, per task; `None` is no
    /// bound. Running out is [`ErrorKind::OutOfFuel`](crate::ErrorKind::OutOfFuel).
    /// Exact: a run with fuel `n` executes at most `n` instructions.
    pub fuel: Option<u64>,
    /// How many words of live heap a task may hold after a collection; `None`
    /// is no bound. Over it is [`ErrorKind::HeapLimit`](crate::ErrorKind::HeapLimit).
    /// A single allocation larger than the bound fails at once.
    pub max_heap_words: Option<u64>,
    /// How many Cove frames a task's stack may hold; the entry is the first.
    /// Deeper is [`ErrorKind::CallDepth`](crate::ErrorKind::CallDepth).
    /// Frames are on a heap-allocated stack, so this bounds memory, not the
    /// host's native stack.
    pub max_call_depth: usize,
    /// How many tasks a run may have spawned and not yet joined.
    /// More is [`ErrorKind::TooManyTasks`](crate::ErrorKind::TooManyTasks),
    /// which ends the whole run. A joined task has ended and no longer
    /// counts, so a run that spawns and joins tasks one after another may
    /// spawn any number; whether a spawn passes the bound never depends on
    /// how fast the other tasks run.
    ///
    /// The default is 1000: every task is an OS thread, and creating them
    /// slows as they pile up (a chain of ten thousand nested spawns, each
    /// joining the next, takes minutes to build), so a spawn bomb should
    /// meet the bound while it is still quick to stop.
    pub max_tasks: usize,
    /// Collect garbage after every instruction that allocates, to shake out
    /// a missing root. Slow; for tests. The environment variable
    /// `COVE_GC_STRESS=1` turns it on for every `Vm` of the process.
    pub gc_stress: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            fuel: None,
            max_heap_words: None,
            max_call_depth: 100_000,
            max_tasks: 1_000,
            gc_stress: false,
        }
    }
}

/// Whether `COVE_GC_STRESS` asks for stress collection.
pub(crate) fn gc_stress_from_env() -> bool {
    std::env::var("COVE_GC_STRESS").is_ok_and(|v| v == "1" || v == "true")
}

/// Ends a run from another thread: the run stops at its next safepoint with
/// [`ErrorKind::Interrupted`](crate::ErrorKind::Interrupted), every task of
/// it included.
///
/// One atomic flag read once a safepoint; a handle is a clone of an `Arc`.
/// An interrupt that arrives between runs ends the next run at its first
/// safepoint, and is cleared when a run ends with it.
#[derive(Debug, Clone, Default)]
pub struct InterruptHandle {
    flag: Arc<AtomicBool>,
}

impl InterruptHandle {
    /// Asks the run to stop.
    pub fn interrupt(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// Whether an interrupt is pending.
    pub fn is_interrupted(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    pub(crate) fn clear(&self) {
        self.flag.store(false, Ordering::Relaxed);
    }
}
