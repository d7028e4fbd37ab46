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

use parking_lot::Mutex;

/// How many bytes are kept back: many times what a fault's report needs.
pub(crate) const RESERVE: usize = 1 << 20;

/// The process's reserve, kept by each run and let go of by a refusal.
static KEPT: Reserve = Reserve::new();

/// Keeps the process's reserve back, if it is not already (see
/// [`Reserve::keep`]).
pub(crate) fn keep() {
    KEPT.keep();
}

/// Gives the process's reserve back to the host: the host refused memory,
/// and the fault that says so is about to be built.
pub(crate) fn release() {
    KEPT.release();
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
}
