//! The progress line `cove profile` keeps on stderr while a long run goes on.
//!
//! A profiled run is several times slower than the run itself, and a silent
//! terminal for a minute reads as a hang. So while stderr is a terminal a
//! thread reads the profiler's instruction count a few times a second and
//! redraws one line: `profiling examples/fib.cove: 12.3 M instructions`.
//!
//! The count is read from the profiler from outside the run rather than
//! counted by a wrapper around it: a wrapper would add work to every
//! instruction of the run being measured, and the profiler's own reading
//! takes its lock between its two clock reads, so a read from this thread
//! is not part of any instruction's time. Nothing is drawn when stderr is a
//! file or a pipe: a log should not fill with carriage returns.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the line is redrawn.
const EVERY: Duration = Duration::from_millis(250);

/// A running progress line; [`Progress::finish`] clears it.
#[derive(Debug)]
pub struct Progress {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts redrawing `label: N instructions` from `count` when stderr is
    /// a terminal; does nothing otherwise.
    pub fn start<F>(label: String, count: F) -> Progress
    where
        F: Fn() -> u64 + Send + 'static,
    {
        let done = Arc::new(AtomicBool::new(false));
        if !std::io::stderr().is_terminal() {
            return Progress { done, thread: None };
        }
        let stop = Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            let mut drawn = false;
            loop {
                std::thread::park_timeout(EVERY);
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\x1b[K{label}: {} instructions", millions(count()));
                let _ = err.flush();
                drawn = true;
            }
            if drawn {
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\x1b[K");
                let _ = err.flush();
            }
        });
        Progress {
            done,
            thread: Some(thread),
        }
    }

    /// Stops redrawing and clears the line.
    pub fn finish(mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

/// `n` as a person reads a large count: `950`, `12.3 K`, `4.56 M`, `1.20 G`.
pub fn millions(n: u64) -> String {
    let x = n as f64;
    if n < 1_000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{:.1} K", x / 1e3)
    } else if n < 1_000_000_000 {
        format!("{:.2} M", x / 1e6)
    } else {
        format!("{:.2} G", x / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_count_is_shortened_with_its_unit() {
        assert_eq!(millions(950), "950");
        assert_eq!(millions(12_345), "12.3 K");
        assert_eq!(millions(4_560_000), "4.56 M");
        assert_eq!(millions(1_200_000_000), "1.20 G");
    }
}
