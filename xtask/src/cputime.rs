//! Timing one child process: its CPU time, from `wait4`, and its wall time.
//!
//! On a shared machine the wall clock of a run includes the time it waited
//! for a core, which other people's builds decide; the CPU time (user plus
//! system) of the child does not, so it is the figure a ratio should be
//! made of, with the wall time beside it for a reader who wants both.
//! `wait4` returns the resource usage of exactly the child it reaps, which
//! `getrusage(RUSAGE_CHILDREN)` read before and after gives only as long as
//! nothing else is reaped in between; so this spawns the child and reaps it
//! itself. A second thread of the child (the sampler of a sampled profile,
//! a spawned task) is counted, since its time is the child's.
//!
//! The cost is one `fork`/`exec` and one `wait4` a run, nothing per
//! instruction: the figures include the child's start-up, which a ratio of
//! two whole runs of the same program mostly cancels.

use std::process::{Command, Stdio};
use std::time::Instant;

/// What one run of a child cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Time {
    /// User plus system CPU seconds of the child and all its threads.
    pub cpu: f64,
    /// Wall-clock seconds from spawning to reaping it.
    pub wall: f64,
}

/// Runs `command` to the end with its output discarded and returns its
/// time, or why it could not be run or did not succeed.
pub fn timed(command: &mut Command) -> Result<Time, String> {
    let start = Instant::now();
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{command:?}: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let (status, usage) = loop {
        let mut status: libc::c_int = 0;
        // SAFETY: `wait4` writes one status and one `rusage` into the
        // zeroed values it is given and reads nothing else.
        let (reaped, usage) = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            let reaped = libc::wait4(pid, &mut status, 0, &mut usage);
            (reaped, usage)
        };
        if reaped == pid {
            break (status, usage);
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("{command:?}: wait4: {error}"));
        }
    };
    let wall = start.elapsed().as_secs_f64();
    // The child is reaped: dropping its handle neither waits nor kills.
    drop(child);
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        return Err(format!("{command:?} failed: wait status {status}"));
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok(Time {
        cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        wall,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_that_succeeds_is_timed() {
        let time = timed(Command::new("true").arg("x")).expect("`true` runs");
        assert!(time.wall > 0.0, "{time:?}");
    }

    #[test]
    fn a_child_that_fails_is_an_error_not_a_time() {
        let why = timed(&mut Command::new("false")).expect_err("`false` fails");
        assert!(why.contains("failed"), "{why}");
    }

    #[test]
    fn a_command_that_does_not_exist_is_an_error() {
        assert!(timed(&mut Command::new("/no/such/command")).is_err());
    }
}
