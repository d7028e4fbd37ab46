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

/// The real clock: the monotonic clock [`Instant`] reads, as nanoseconds
/// (on Unix read with `clock_gettime(CLOCK_MONOTONIC)` directly; elsewhere
/// as the time since the clock was made).
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
        monotonic_nanos().unwrap_or_else(|| {
            let since = self.origin.elapsed();
            since.as_secs() * 1_000_000_000 + u64::from(since.subsec_nanos())
        })
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds, the clock `Instant` reads on Unix,
/// read directly: `Instant::elapsed` spends a third of its time in a
/// checked subtraction of two `timespec`s that a counter of nanoseconds
/// does not need.
#[cfg(all(unix, feature = "thread-clocks"))]
#[inline(always)]
fn monotonic_nanos() -> Option<u64> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` to the pointer it is
    // given, which points at a live local of that type.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    (status == 0).then(|| now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64)
}

#[cfg(not(all(unix, feature = "thread-clocks")))]
#[inline(always)]
fn monotonic_nanos() -> Option<u64> {
    None
}

/// The processor's time-stamp counter, scaled to nanoseconds: a cheaper
/// clock than [`RealClock`] where reading the system clock is slow.
///
/// On x86-64 it reads `rdtsc`, which on this project's machines costs about
/// a third of what `Instant::now()` does (the figures are in
/// `docs/PROFILING.md`), so a profile timed by it has a lower floor and runs
/// faster. It is scaled by a rate measured against [`Instant`] when it is
/// made (about two milliseconds). It assumes an invariant counter, which
/// every x86-64 processor of the last decade has; a task that moves between
/// cores whose counters disagree could see an interval shrink, which the
/// profiler reads as zero, never as a negative. Elsewhere it is the real
/// clock.
#[derive(Debug, Clone, Copy)]
pub struct TscClock {
    origin: u64,
    nanos_per_tick: f64,
    fallback: RealClock,
}

impl TscClock {
    /// A counter clock whose zero is now, its rate measured against the real
    /// clock.
    pub fn new() -> TscClock {
        let fallback = RealClock::new();
        let start = ticks();
        let begun = Instant::now();
        while begun.elapsed().as_micros() < 2000 {
            std::hint::spin_loop();
        }
        let elapsed = begun.elapsed().as_nanos() as f64;
        let counted = ticks().saturating_sub(start) as f64;
        TscClock {
            origin: ticks(),
            nanos_per_tick: if counted > 0.0 {
                elapsed / counted
            } else {
                0.0
            },
            fallback,
        }
    }

    /// Whether this clock reads the counter (false where there is none to
    /// read, and it reads the real clock instead).
    pub fn is_counter(&self) -> bool {
        self.nanos_per_tick > 0.0
    }
}

impl Default for TscClock {
    fn default() -> TscClock {
        TscClock::new()
    }
}

impl Clock for TscClock {
    #[inline]
    fn now_nanos(&self) -> u64 {
        if self.nanos_per_tick > 0.0 {
            (ticks().saturating_sub(self.origin) as f64 * self.nanos_per_tick) as u64
        } else {
            self.fallback.now_nanos()
        }
    }
}

/// The time-stamp counter, or 0 where there is none.
#[inline(always)]
fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `rdtsc` has no preconditions on x86-64: it reads a
        // counter register and touches no memory.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
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
    Counter(TscClock),
    Other(Box<dyn Clock>),
}

impl Timer {
    #[inline(always)]
    pub(crate) fn now(&self) -> u64 {
        match self {
            Timer::Real(real) => real.now_nanos(),
            Timer::Counter(counter) => counter.now_nanos(),
            Timer::Other(other) => other.now_nanos(),
        }
    }

    pub(crate) fn is_real(&self) -> bool {
        matches!(self, Timer::Real(_) | Timer::Counter(_))
    }

    /// What a report calls this clock: `real`, `counter` (the time-stamp
    /// counter, scaled to nanoseconds) or `injected` (a clock given by the
    /// embedder, such as a test's stepping clock).
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Timer::Real(_) => "real",
            Timer::Counter(_) => "counter",
            Timer::Other(_) => "injected",
        }
    }
}

impl fmt::Debug for Timer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Timer::Real(_) => f.write_str("RealClock"),
            Timer::Counter(_) => f.write_str("TscClock"),
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
    fn the_counter_clock_moves_forward_with_the_real_one() {
        let clock = TscClock::new();
        let a = clock.now_nanos();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = clock.now_nanos();
        assert!(b > a, "{a} then {b}");
    }

    #[test]
    fn the_real_clock_never_goes_backwards() {
        let clock = RealClock::new();
        let a = clock.now_nanos();
        let b = clock.now_nanos();
        assert!(b >= a);
    }
}
