//! Writing to streams whose reader may go away: `cove run prog.cove | head`.
//!
//! Rust ignores `SIGPIPE`, so a write to a closed pipe fails with
//! [`io::ErrorKind::BrokenPipe`] instead of ending the process, and
//! `print!` and `eprint!` panic on that failure (exit 101, with a panic
//! message). So nothing in this crate uses them; every write goes through
//! here, and a closed pipe is a quiet ending, never a panic:
//!
//! - **`cove`'s own messages** on stderr (a runtime error, a compile error)
//!   are written with [`eprint()`], which ignores a failure: the message had
//!   nowhere to go, and the status still says how the command ended.
//! - **`cove`'s own reports** on stdout (`disasm`, `diff`, a profile) are
//!   written with [`stdout`]: a reader that stopped reading had what it
//!   wanted, so a closed pipe is not an error and the status is the
//!   command's; any other failure (a full disk) is one.
//! - **the program's output** goes through [`Watched`]: once the pipe is
//!   closed the run is stopped at its next safepoint (through its
//!   [`InterruptHandle`]) and `cove` exits with 141 without a word, as a
//!   Unix tool ended by `SIGPIPE` would (128 + 13, what a shell reports
//!   for one). A program printing forever therefore ends when `head` has
//!   its lines, instead of running on with its output going nowhere.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use cove_runtime::InterruptHandle;

/// Whether a stream the program writes to was found closed.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Whether the program's output was closed during the run: the run was
/// stopped for it, and `cove` should end quietly with
/// [`Status::ClosedPipe`](crate::status::Status::ClosedPipe).
pub fn output_closed() -> bool {
    CLOSED.load(Ordering::SeqCst)
}

/// Writes `args` to stderr, ignoring a failure (see the module's notes).
pub fn eprint(args: fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args);
    let _ = err.flush();
}

/// Writes `bytes` to stdout. A closed pipe is not an error: the reader had
/// what it wanted.
pub fn stdout(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// A writer for the program's output that stops the run when the stream
/// is closed.
///
/// After the first [`io::ErrorKind::BrokenPipe`] it interrupts the run,
/// records that the output was closed ([`output_closed`]) and takes every
/// later write without trying the stream again. Other errors pass through
/// (the runtime ignores them, as it ignores every failure of its output).
#[derive(Debug)]
pub struct Watched<W> {
    inner: W,
    run: InterruptHandle,
    closed: bool,
}

impl<W: Write> Watched<W> {
    /// `inner`, watched for a closed pipe; `run` is the run to stop.
    pub fn new(inner: W, run: InterruptHandle) -> Watched<W> {
        Watched {
            inner,
            run,
            closed: false,
        }
    }

    /// `result`, unless it is a closed pipe: then the run is stopped and
    /// the write counts as done.
    fn watch<T>(&mut self, result: io::Result<T>, done: T) -> io::Result<T> {
        match result {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                CLOSED.store(true, Ordering::SeqCst);
                self.run.interrupt();
                Ok(done)
            }
            other => other,
        }
    }
}

impl<W: Write> Write for Watched<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let result = self.inner.write(buf);
        self.watch(result, buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let result = self.inner.flush();
        self.watch(result, ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream whose reader has gone.
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }

        fn flush(&mut self) -> io::Result<()> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
    }

    #[test]
    fn a_closed_pipe_under_the_programs_output_stops_the_run_and_is_not_an_error() {
        let run = InterruptHandle::default();
        let mut out = Watched::new(Closed, run.clone());
        assert_eq!(out.write(b"hello").expect("taken"), 5);
        assert!(out.flush().is_ok());
        assert!(run.is_interrupted());
        assert!(output_closed());
    }
}
