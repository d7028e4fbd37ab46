//! Memory kept back for saying that the host ran out of it.
//!
//! A run whose host refuses memory ends with a clean `HeapLimit` wherever
//! the runtime asks with `try_reserve`. But saying so takes memory too:
//! the fault's message, the Cove backtrace, the rendered report. When the
//! refusal was a large one (a space's doubling, a queue's) the host still
//! has room for those; when it was a small one (a message's 13-byte string
//! copied between tasks, under a tight `ulimit -v`), the host has none, and
//! the message's own 64 bytes aborted the process with the output lost.
//!
//! So each run keeps [`RESERVE`] bytes back (the room of an empty vector,
//! never written, so address space and not resident pages), and the
//! first refusal lets go of them before building its fault, as Emacs keeps
//! its spare memory for "memory full". One reserve for the process, kept
//! across runs: it costs one allocation, and one more for the next run
//! after each refusal, and a lock per run to look.
//!
//! # A refusal where the runtime could not ask
//!
//! Some of the host's memory cannot be asked for with `try_reserve` on
//! stable Rust: an `Arc`, or the names and messages of a fault's
//! backtrace. A refusal there aborts the process. (A channel's shared
//! state, an `Arc`, is asked for by a probe first: see
//! [`probe_host`](super::probe_host).) A program that installs its own global allocator can do
//! better with [`rescue`]: called when the host refuses an allocation, it
//! lets go of the reserve so that the allocation can be asked again and
//! succeed, and every run in the process then ends at its next safepoint
//! with the heap's out-of-memory fault, while there is still room to say
//! so. The `cove` command does that. The rescue has a reserve of its own,
//! so that the one kept for the fault's message is still there when the
//! run ends.

use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

/// How many times [`rescue`] let go of the reserve: a run that sees it
/// move since it began ends at its next safepoint.
static RESCUES: AtomicU64 = AtomicU64::new(0);

/// How many bytes are kept back: many times what a fault's report needs.
pub(crate) const RESERVE: usize = 1 << 20;

/// The process's reserve, kept by each run and let go of by a refusal.
static KEPT: Reserve = Reserve::new();

/// A second reserve, of the same size, that only [`rescue`] lets go of:
/// a rescue must leave the first one for the fault that follows it.
static SPARE: Reserve = Reserve::new();

/// Keeps the process's reserve back, if it is not already (see
/// [`Reserve::keep`]).
pub(crate) fn keep() {
    KEPT.keep();
    SPARE.keep();
}

/// Gives the process's reserve back to the host: the host refused memory,
/// and the fault that says so is about to be built.
pub(crate) fn release() {
    KEPT.release();
}

/// Lets go of the process's reserve for an allocation of `size` bytes
/// the host refused, and says whether it did: true, and the caller may ask
/// the host again; false, and it must fail as it would have.
///
/// Only an allocation of at most a quarter of the reserve is rescued: the
/// reserve could not make room for a larger one, and a large refusal (a
/// space's doubling) is one the runtime asked for fallibly and has a
/// smaller way round, which a rescue would turn into the run's end.
///
/// For a global allocator ([`std::alloc::GlobalAlloc`]) to call when the
/// system's allocator returns null: it allocates nothing, takes no lock it
/// could wait on (a refusal inside the reserve's own keeping finds it
/// locked and gives up), and is safe to call from any thread. A rescue
/// ends every run of the process at its next safepoint with
/// [`ErrorKind::HeapLimit`](crate::ErrorKind::HeapLimit): the process is
/// out of memory, and the room the reserve gave is for saying so.
pub fn rescue(size: usize) -> bool {
    SPARE.rescue(size, &RESCUES)
}

/// How many times [`rescue`] has let go of the reserve in this process.
pub(crate) fn rescues() -> u64 {
    RESCUES.load(Ordering::Relaxed)
}

/// Room kept back on the host, or not.
struct Reserve(Mutex<Option<Vec<u8>>>);

impl Reserve {
    const fn new() -> Self {
        Reserve(Mutex::new(None))
    }

    /// Keeps [`RESERVE`] bytes back, if it is not already; a host that
    /// refuses even that leaves the run without a reserve, which is no
    /// reason not to run.
    fn keep(&self) {
        let mut kept = self.0.lock();
        if kept.is_none() {
            // Room only, never written: the host maps the pages when they
            // are touched, and these never are.
            let mut bytes = Vec::new();
            if bytes.try_reserve_exact(RESERVE).is_ok() {
                *kept = Some(bytes);
            }
        }
    }

    /// Gives the room back to the host.
    fn release(&self) {
        self.0.lock().take();
    }

    /// [`rescue`] of this reserve, counted in `rescues`.
    fn rescue(&self, size: usize, rescues: &AtomicU64) -> bool {
        if size > RESERVE / 4 {
            return false;
        }
        let Some(mut kept) = self.0.try_lock() else {
            return false;
        };
        let Some(bytes) = kept.take() else {
            return false;
        };
        rescues.fetch_add(1, Ordering::Relaxed);
        drop(bytes);
        true
    }

    /// How many bytes are kept back now.
    #[cfg(test)]
    fn kept(&self) -> usize {
        self.0.lock().as_ref().map_or(0, Vec::capacity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserve_is_kept_once_let_go_of_and_kept_again() {
        let reserve = Reserve::new();
        assert_eq!(reserve.kept(), 0);
        reserve.keep();
        assert!(reserve.kept() >= RESERVE);
        // A second run keeps the one reserve, not another beside it.
        let first = reserve.0.lock().as_ref().map(Vec::as_ptr);
        reserve.keep();
        assert_eq!(reserve.0.lock().as_ref().map(Vec::as_ptr), first);
        reserve.release();
        assert_eq!(reserve.kept(), 0);
        reserve.keep();
        assert!(reserve.kept() >= RESERVE);
    }

    #[test]
    fn a_rescue_lets_go_of_the_reserve_once_for_a_small_allocation_and_counts_itself() {
        let reserve = Reserve::new();
        let rescues = AtomicU64::new(0);
        assert!(
            !reserve.rescue(64, &rescues),
            "nothing kept, nothing to give"
        );
        reserve.keep();
        assert!(
            !reserve.rescue(RESERVE / 4 + 1, &rescues),
            "the reserve cannot make room for more than a quarter of itself"
        );
        assert!(reserve.kept() >= RESERVE);
        assert!(reserve.rescue(64, &rescues));
        assert_eq!(reserve.kept(), 0);
        assert_eq!(rescues.load(Ordering::Relaxed), 1);
        assert!(!reserve.rescue(64, &rescues), "a second refusal finds none");
        assert_eq!(rescues.load(Ordering::Relaxed), 1);
        // While the reserve is being kept (its lock held), a refusal inside
        // that gives up rather than wait on itself.
        reserve.keep();
        let held = reserve.0.lock();
        assert!(!reserve.rescue(64, &rescues));
        drop(held);
    }
}
