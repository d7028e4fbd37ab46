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
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The heap bound of a run that sets none: 2^28 words, 2 GiB of live heap
/// (and register stacks) across all the run's tasks.
///
/// A fixed number rather than a share of the machine's memory, so that a
/// program's behaviour does not depend on the host it runs on; generous,
/// so that no reasonable program meets it; and below what a copying
/// collector (which needs the live heap twice over while it copies) can
/// get from a host with 8 GiB. Past it a run ends with `HeapLimit` instead
/// of taking the host's memory until the process is killed.
pub const DEFAULT_MAX_HEAP_WORDS: u64 = 1 << 28;

/// The bounds of a run. `Limits::default()` bounds the heap
/// ([`DEFAULT_MAX_HEAP_WORDS`]), the call depth and the number of tasks.
///
/// The budgets named for "the run" — [`fuel`](Limits::fuel) and
/// [`max_heap_words`](Limits::max_heap_words) — are the whole run's,
/// shared by every task it spawns, not each task's.
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
    /// How much work the whole run may do, all its tasks together; `None`
    /// is no bound. Running out is [`ErrorKind::OutOfFuel`](crate::ErrorKind::OutOfFuel).
    ///
    /// Fuel counts instructions, one each, and on top of that the work
    /// whose size depends on the data: an instruction or builtin that
    /// copies, builds, compares, sorts or renders more than a word's worth
    /// (a concatenation, `repeat`, `join`, `sort`, a deep copy between
    /// tasks, a value's text form, the elements an insert or a removal in
    /// a list moves) pays one unit for every
    /// [`WORK_PER_FUEL`] bytes (or elements) it handles, the bytes a read of
    /// a file or of standard input takes in included, and a `spawn` pays
    /// [`SPAWN_FUEL`] for its thread. So fuel bounds
    /// time, not just instruction count: a string grown by one character a
    /// turn costs in proportion to its length each turn. Exact for
    /// instructions: a run with fuel `n` executes at most `n` of them.
    pub fuel: Option<u64>,
    /// How many words of live heap the whole run may hold, all its tasks'
    /// heaps and register stacks together, after a collection; `None` is no
    /// bound. The default is [`DEFAULT_MAX_HEAP_WORDS`]. Over it is
    /// [`ErrorKind::HeapLimit`](crate::ErrorKind::HeapLimit), as is a
    /// host that cannot give the heap the memory it asks for. A single
    /// allocation larger than the bound fails at once.
    ///
    /// It bounds the host memory of the heaps too: their spaces and the
    /// collector's copies, garbage included, may hold four times the bound
    /// together, and 8 MiB a task past it; a heap that asks for more as it
    /// grows, inside an instruction, ends the run with `HeapLimit` then,
    /// rather than after its next collection.
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
            max_heap_words: Some(DEFAULT_MAX_HEAP_WORDS),
            max_call_depth: 100_000,
            max_tasks: 1_000,
            gc_stress: false,
        }
    }
}

/// Bytes (or elements) of data-sized work that cost one unit of fuel,
/// besides the instruction that did it (see [`Limits::fuel`]): a word's
/// worth, about what one instruction moves.
pub const WORK_PER_FUEL: u64 = 8;

/// Units of fuel a `spawn` costs besides its instruction and the copy of
/// its arguments: starting an OS thread and joining it take tens of
/// microseconds, as long as thousands of instructions, so a loop that
/// spawns and joins without end must run out of fuel about as soon as one
/// that computes (a mutant looping over 2^32 spawns ran past 20 s within
/// 2,000,000 fuel when a spawn cost one unit).
pub const SPAWN_FUEL: u64 = 4096;

/// How many words of host memory the run's heaps may hold for their spaces
/// and the collector's copies, garbage included, for each word of the heap
/// bound, past each heap's allowance.
///
/// Four because that is what a run under its bound can need: a heap is
/// collected once it holds twice what survived its last collection, so
/// the heaps' spaces hold up to twice the bound together, and each space
/// has a copy of its size for the collector.
pub(crate) const HOST_WORDS_PER_BOUND: u64 = 4;

/// The fuel of one run, drawn on by all its tasks: see [`Limits::fuel`].
///
/// A task takes fuel a stride at a time (at most
/// [`SAFEPOINT_STRIDE`](crate::vm::exec::SAFEPOINT_STRIDE)) and gives back
/// what it did not use when it stops, so the run's instructions never pass
/// the fuel, and a task pays one atomic operation a stride for sharing it.
#[derive(Debug)]
pub(crate) struct FuelTank {
    /// The run's fuel, as given: what the out-of-fuel message says.
    total: Option<u64>,
    left: Option<AtomicU64>,
    /// Whether any of it paid for data-sized work, not instructions: what
    /// the out-of-fuel message says.
    worked: AtomicBool,
}

impl FuelTank {
    pub(crate) fn new(fuel: Option<u64>) -> FuelTank {
        FuelTank {
            total: fuel,
            left: fuel.map(AtomicU64::new),
            worked: AtomicBool::new(false),
        }
    }

    /// Notes that fuel paid for work other than instructions.
    pub(crate) fn note_work(&self) {
        self.worked.store(true, Ordering::Relaxed);
    }

    /// Whether any fuel paid for work other than instructions.
    pub(crate) fn paid_for_work(&self) -> bool {
        self.worked.load(Ordering::Relaxed)
    }

    /// The error of a run whose fuel is spent, saying whether any of it
    /// paid for data-sized work as well as instructions.
    pub(crate) fn exhausted(&self) -> crate::error::Fault {
        let fuel = self.total.unwrap_or(0);
        let message = if self.paid_for_work() {
            format!("out of fuel after {fuel} instructions and units of work")
        } else {
            format!("out of fuel after {fuel} instructions")
        };
        crate::error::Fault::new(crate::ErrorKind::OutOfFuel, message)
    }

    /// Takes up to `want`, and gives what it took: 0 when the tank is empty.
    pub(crate) fn take(&self, want: u64) -> u64 {
        let Some(left) = &self.left else { return want };
        let mut taken = 0;
        let _ = left.fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
            taken = now.min(want);
            Some(now - taken)
        });
        taken
    }

    /// Gives back fuel a task took and did not use.
    pub(crate) fn give_back(&self, unused: u64) {
        if let Some(left) = &self.left {
            left.fetch_add(unused, Ordering::AcqRel);
        }
    }

    /// Whether `units` more could still be paid, with `slack` units a task
    /// may hold beside what the tank has left: what long work inside the
    /// heap asks as it goes, so that it stops once it has done more than
    /// the fuel can pay for (the payment after it then fails).
    pub(crate) fn could_pay(&self, units: u64, slack: u64) -> bool {
        match &self.left {
            None => true,
            Some(left) => units <= left.load(Ordering::Acquire).saturating_add(slack),
        }
    }

    /// Pays for `work` units at once, or empties the tank and fails when
    /// fewer are left.
    pub(crate) fn pay(&self, work: u64) -> bool {
        let Some(left) = &self.left else { return true };
        if work == 0 {
            return true;
        }
        let paid = left.fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
            Some(now.saturating_sub(work))
        });
        paid.is_ok_and(|before| before >= work)
    }
}

/// The heap budget of one run, shared by its tasks' heaps: see
/// [`Limits::max_heap_words`].
///
/// Each heap adds what it holds after a collection (its live words, its
/// maps' entries and its task's register stack) and takes it away when
/// its task ends; a collection that finds the sum over the bound fails.
/// One atomic add a collection.
///
/// Beside the live words it counts the host memory the heaps hold for
/// their spaces and the collector's copies, garbage included, which a
/// heap adds to as it asks for it, before it has it: the live words are
/// known only after a collection, and tasks that each grow a heap within
/// one instruction (a split of a long string into its characters) held
/// many times the bound together before any of them collected. The host
/// words may reach [`HOST_WORDS_PER_BOUND`] times the bound, past an
/// allowance each heap has of its own (see `heap::HOST_ALLOWANCE`).
#[derive(Debug)]
pub(crate) struct HeapBudget {
    pub(crate) limit: Option<u64>,
    used: AtomicU64,
    /// Words of host memory the heaps' spaces and copies take past their
    /// allowances, as each heap last asked for them.
    host: AtomicU64,
    /// The most `host` has been in the run.
    host_peak: AtomicU64,
    /// The allocation that fails, counted across the run from 1: the
    /// allocation-failure sweep's hook (see `Vm::with_allocation_failure_at`).
    fail_at: Option<u64>,
    allocations: AtomicU64,
    /// The run's interrupt, which long work inside the heap (a deep copy,
    /// a text form) polls as it goes.
    pub(crate) interrupt: InterruptHandle,
    /// The run's fuel, which long work inside the heap also polls: a deep
    /// copy of a value that shares one list a million times is a million
    /// elements of work, and must stop when the fuel cannot pay for what
    /// it has done so far, not after.
    pub(crate) fuel: Arc<FuelTank>,
}

impl HeapBudget {
    pub(crate) fn new(
        limit: Option<u64>,
        fail_at: Option<u64>,
        interrupt: InterruptHandle,
        fuel: Arc<FuelTank>,
    ) -> HeapBudget {
        HeapBudget {
            limit,
            used: AtomicU64::new(0),
            host: AtomicU64::new(0),
            host_peak: AtomicU64::new(0),
            fail_at,
            allocations: AtomicU64::new(0),
            interrupt,
            fuel,
        }
    }

    /// Replaces a heap's share, `old` words, by `new`, and gives the run's
    /// total after.
    pub(crate) fn reshare(&self, old: u64, new: u64) -> u64 {
        if new >= old {
            self.used.fetch_add(new - old, Ordering::AcqRel) + (new - old)
        } else {
            self.used.fetch_sub(old - new, Ordering::AcqRel) - (old - new)
        }
    }

    /// Words the run holds now, as last reported.
    pub(crate) fn used(&self) -> u64 {
        self.used.load(Ordering::Acquire)
    }

    /// Replaces a heap's host words, `old`, by `new`, and says whether
    /// that keeps the run's heaps within [`HOST_WORDS_PER_BOUND`] times the
    /// bound; when it does not, nothing is changed. Giving words back
    /// always succeeds.
    pub(crate) fn hold_host(&self, old: u64, new: u64) -> bool {
        if new <= old {
            self.host.fetch_sub(old - new, Ordering::AcqRel);
            return true;
        }
        let more = new - old;
        let cap = self.limit.map(|l| l.saturating_mul(HOST_WORDS_PER_BOUND));
        let grown = self
            .host
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
                let after = now.saturating_add(more);
                match cap {
                    Some(cap) if after > cap => None,
                    _ => Some(after),
                }
            });
        match grown {
            Ok(before) => {
                self.host_peak
                    .fetch_max(before.saturating_add(more), Ordering::AcqRel);
                true
            }
            Err(_) => false,
        }
    }

    /// The most host words the run's heaps held at once past their
    /// allowances (what [`HeapBudget::hold_host`] counts).
    #[cfg(test)]
    pub(crate) fn host_peak(&self) -> u64 {
        self.host_peak.load(Ordering::Acquire)
    }

    /// Whether the sweep's hook is armed: then every allocation must ask
    /// [`HeapBudget::fails_now`].
    pub(crate) fn hooked(&self) -> bool {
        self.fail_at.is_some()
    }

    /// Whether this allocation is the one the sweep's hook fails.
    #[inline]
    pub(crate) fn fails_now(&self) -> bool {
        match self.fail_at {
            None => false,
            Some(n) => self.allocations.fetch_add(1, Ordering::Relaxed) + 1 == n,
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
