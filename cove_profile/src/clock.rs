//! Where the profiler's nanoseconds come from.
//!
//! The profiler reads a clock twice at every stop. Reading the real one is
//! most of what a profiled instruction costs, so the real clock is called
//! directly on the hot path (no virtual call), and any other clock goes
//! through the [`Clock`] trait. The other clocks exist for one reason: a
//! report under test must come out the same every time, and wall-clock
//! nanoseconds never do. [`SteppingClock`] advances by a fixed step at each
//! read, so every instruction of a run costs exactly one step and a
//! snapshot of a report is stable.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A monotonic source of nanoseconds.
///
/// `Sync` because one profiler may watch several tasks on several threads,
/// and they read the same clock.
pub trait Clock: Send + Sync {
    /// Nanoseconds since some fixed point of this clock's choosing. Never
    /// goes backwards.
    fn now_nanos(&self) -> u64;
}

impl<C: Clock + ?Sized> Clock for std::sync::Arc<C> {
    fn now_nanos(&self) -> u64 {
        (**self).now_nanos()
    }
}

/// The real clock: [`Instant`], as nanoseconds since the clock was made.
#[derive(Debug, Clone, Copy)]
pub struct RealClock {
    origin: Instant,
}

impl RealClock {
    /// A real clock whose zero is now.
    pub fn new() -> RealClock {
        RealClock {
            origin: Instant::now(),
        }
    }
}

impl Default for RealClock {
    fn default() -> RealClock {
        RealClock::new()
    }
}

impl Clock for RealClock {
    #[inline]
    fn now_nanos(&self) -> u64 {
        self.origin.elapsed().as_nanos() as u64
    }
}

/// A deterministic clock: every read answers `step` nanoseconds more than the
/// read before it, starting from zero.
///
/// Under it every instruction's interval is exactly one step (the profiler
/// reads the clock at the end of one stop and at the start of the next),
/// and the calibrated floor is exactly one step too, so reports made with it
/// are the same from run to run and machine to machine.
#[derive(Debug)]
pub struct SteppingClock {
    step: u64,
    next: AtomicU64,
}

impl SteppingClock {
    /// A clock that advances by `step` nanoseconds at every read.
    pub fn new(step: u64) -> SteppingClock {
        SteppingClock {
            step,
            next: AtomicU64::new(0),
        }
    }

    /// Moves the clock forward by `nanos` without a read: how a test makes
    /// one interval dearer than the others.
    pub fn advance(&self, nanos: u64) {
        self.next.fetch_add(nanos, Ordering::Relaxed);
    }
}

impl Clock for SteppingClock {
    fn now_nanos(&self) -> u64 {
        self.next.fetch_add(self.step, Ordering::Relaxed)
    }
}

/// The clock a profiler reads: the real one inline, anything else through
/// the trait.
pub(crate) enum Timer {
    Real(RealClock),
    Other(Box<dyn Clock>),
}

impl Timer {
    #[inline(always)]
    pub(crate) fn now(&self) -> u64 {
        match self {
            Timer::Real(real) => real.now_nanos(),
            Timer::Other(other) => other.now_nanos(),
        }
    }

    pub(crate) fn is_real(&self) -> bool {
        matches!(self, Timer::Real(_))
    }
}

impl fmt::Debug for Timer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Timer::Real(_) => f.write_str("RealClock"),
            Timer::Other(_) => f.write_str("Clock"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stepping_clock_advances_by_its_step_at_every_read() {
        let clock = SteppingClock::new(7);
        assert_eq!(clock.now_nanos(), 0);
        assert_eq!(clock.now_nanos(), 7);
        clock.advance(100);
        assert_eq!(clock.now_nanos(), 114);
    }

    #[test]
    fn the_real_clock_never_goes_backwards() {
        let clock = RealClock::new();
        let a = clock.now_nanos();
        let b = clock.now_nanos();
        assert!(b >= a);
    }
}
