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
//! is not part of any instruction's time.
//!
//! The program's own output must never land on the progress line, so the
//! writers the program prints through are wrapped ([`Progress::guard`]):
//! before a write reaches the terminal the line is taken off the screen,
//! and the next tick draws it again below. Nothing is drawn when stderr is a
//! file or a pipe: a log should not fill with carriage returns.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the line is redrawn.
const EVERY: Duration = Duration::from_millis(250);

/// Clears the current terminal line and returns to its start.
const CLEAR: &str = "\r\x1b[K";

/// A running progress line; [`Progress::finish`] clears it.
#[derive(Debug)]
pub struct Progress {
    done: Arc<AtomicBool>,
    /// Whether the line is on the screen now; held while drawing or clearing
    /// it, and while the program writes.
    drawn: Arc<Mutex<bool>>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts redrawing `label: N instructions` from `count` when stderr is
    /// a terminal; does nothing otherwise.
    pub fn start<F>(label: String, count: F) -> Progress
    where
        F: Fn() -> u64 + Send + 'static,
    {
        Progress::describing(label, move || format!("{} instructions", millions(count())))
    }

    /// Starts redrawing `label: TEXT` from `text` when stderr is a
    /// terminal; does nothing otherwise.
    pub fn describing<F>(label: String, text: F) -> Progress
    where
        F: Fn() -> String + Send + 'static,
    {
        let done = Arc::new(AtomicBool::new(false));
        let drawn = Arc::new(Mutex::new(false));
        if !std::io::stderr().is_terminal() {
            return Progress {
                done,
                drawn,
                thread: None,
            };
        }
        let stop = Arc::clone(&done);
        let line = Arc::clone(&drawn);
        let thread = std::thread::spawn(move || {
            loop {
                std::thread::park_timeout(EVERY);
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let text = format!("{CLEAR}{label}: {}", text());
                if let Ok(mut drawn) = line.lock() {
                    let mut err = std::io::stderr().lock();
                    let _ = err.write_all(text.as_bytes());
                    let _ = err.flush();
                    *drawn = true;
                }
            }
        });
        Progress {
            done,
            drawn,
            thread: Some(thread),
        }
    }

    /// `inner`, wrapped so that what is written through it first takes the
    /// progress line off the screen; `inner` itself when there is no line.
    pub fn guard<W>(&self, inner: W) -> Box<dyn Write + Send>
    where
        W: Write + Send + 'static,
    {
        if self.thread.is_none() {
            return Box::new(inner);
        }
        Box::new(Guarded {
            inner,
            drawn: Arc::clone(&self.drawn),
        })
    }

    /// Stops redrawing and clears the line.
    pub fn finish(mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
        clear(&self.drawn);
    }
}

/// Takes the line off the screen if it is on it.
fn clear(drawn: &Mutex<bool>) {
    if let Ok(mut drawn) = drawn.lock() {
        if *drawn {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(CLEAR.as_bytes());
            let _ = err.flush();
            *drawn = false;
        }
    }
}

/// A writer that clears the progress line before each write.
struct Guarded<W> {
    inner: W,
    drawn: Arc<Mutex<bool>>,
}

impl<W: Write> Write for Guarded<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        clear(&self.drawn);
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
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

    #[test]
    fn without_a_terminal_the_programs_writer_is_its_own() {
        // Tests run with stderr captured, so no line is drawn and the
        // writer is passed through untouched.
        let progress = Progress {
            done: Arc::new(AtomicBool::new(false)),
            drawn: Arc::new(Mutex::new(false)),
            thread: None,
        };
        let mut out = progress.guard(Vec::new());
        out.write_all(b"hello").expect("a write to memory");
        progress.finish();
    }
}
