//! The calling thread's processor time: what [`Vm::cpu_nanos`] adds up for
//! the task a `Vm` runs, read on that task's thread as its run starts and
//! as it ends.
//!
//! Why a clock per thread and not the process's: a run whose tasks work
//! side by side on two cores spends twice its length in processor time,
//! while its main task, which a profile describes, spends only its own
//! share, and waits for the rest (`Vm::blocked_nanos`). A host comparing a
//! profile of the main task with the run unwatched needs that task's own
//! figure. Two reads of the clock a run (about 40 ns each, through the
//! vDSO on Linux), so every run pays for it and none notices.
//!
//! Unix only, through `libc`'s `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`,
//! which the standard library does not offer; elsewhere there is no
//! figure, and `Vm::cpu_nanos` says so with `None`.
//!
//! [`Vm::cpu_nanos`]: crate::Vm::cpu_nanos

/// The calling thread's processor time so far, in nanoseconds, or `None`
/// where there is no clock for it.
#[cfg(unix)]
pub(crate) fn thread_cpu_nanos() -> Option<u64> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid `timespec` to write; a clock the system does
    // not have is an error return, not undefined behaviour.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    (status == 0).then(|| now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64)
}

/// Elsewhere: no clock.
#[cfg(not(unix))]
pub(crate) fn thread_cpu_nanos() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn a_thread_that_works_sees_its_clock_advance_and_one_that_sleeps_does_not_much() {
        let before = thread_cpu_nanos().expect("a thread clock on unix");
        let mut x = 1u64;
        let started = std::time::Instant::now();
        while started.elapsed() < std::time::Duration::from_millis(20) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let worked = thread_cpu_nanos().unwrap() - before;
        assert!(worked > 0, "20 ms of work left the clock where it was");
        let slept_from = thread_cpu_nanos().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let slept = thread_cpu_nanos().unwrap() - slept_from;
        // Sleeping is not processor time: far less than the 50 ms slept.
        assert!(slept < 25_000_000, "sleeping 50 ms counted {slept} ns");
    }
}
