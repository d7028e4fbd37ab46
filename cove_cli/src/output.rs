//! The program's standard output as `cove` hands it to a run: buffered by
//! line on a terminal and by block elsewhere, and reachable from the
//! Ctrl-C handler so that nothing the program printed is lost when `cove`
//! exits without waiting for the run.
//!
//! On a terminal a person watches the run, so each line is written when it
//! ends (`LineWriter`, one `write` a line); to a pipe or a file throughput
//! matters and nobody watches, so an 8 KiB block (`BufWriter`) is written
//! at a time. Either way the runtime flushes it when the run ends, and the
//! second Ctrl-C, which exits at once, flushes it first through
//! [`flush_for_exit`]: a writer only the runtime could reach would take
//! the buffered lines down with the process.
//!
//! The writer lives behind a mutex the run and the handler share. The run
//! takes it once a `print` (the runtime already serialises prints under
//! its own lock, so it is never contended but by the handler), and the
//! handler only tries it for a moment: a run stuck inside a write must not
//! keep a person who pressed Ctrl-C twice from getting out.

use std::io::{self, IsTerminal, LineWriter, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The writer of the run in progress, for [`flush_for_exit`].
static CURRENT: Mutex<Option<Shared>> = Mutex::new(None);

type Shared = Arc<Mutex<Box<dyn Write + Send>>>;

/// The program's output: a handle on the one buffered writer.
pub struct ProgramOutput(Shared);

impl ProgramOutput {
    /// `stream` buffered by line when `terminal`, by block otherwise, and
    /// made the writer [`flush_for_exit`] flushes.
    pub fn new<W: Write + Send + 'static>(stream: W, terminal: bool) -> ProgramOutput {
        let writer: Box<dyn Write + Send> = if terminal {
            Box::new(LineWriter::new(stream))
        } else {
            Box::new(io::BufWriter::new(stream))
        };
        let shared = Arc::new(Mutex::new(writer));
        if let Ok(mut current) = CURRENT.lock() {
            *current = Some(shared.clone());
        }
        ProgramOutput(shared)
    }

    /// `stream`, buffered as the process's stdout calls for: by line when
    /// stdout is a terminal.
    pub fn for_stdout<W: Write + Send + 'static>(stream: W) -> ProgramOutput {
        ProgramOutput::new(stream, io::stdout().is_terminal())
    }
}

impl Write for ProgramOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.0.lock() {
            Ok(mut w) => w.write(buf),
            Err(_) => Err(io::Error::other("the output's lock was poisoned")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.0.lock() {
            Ok(mut w) => w.flush(),
            Err(_) => Err(io::Error::other("the output's lock was poisoned")),
        }
    }
}

/// Flushes what the program printed and `cove` has not written yet, for
/// an exit that does not wait for the run. Gives up after a moment if the
/// run is in the middle of a write.
pub fn flush_for_exit() {
    let Some(shared) = CURRENT.lock().ok().and_then(|c| c.clone()) else {
        return;
    };
    let deadline = Instant::now() + Duration::from_millis(200);
    loop {
        if let Ok(mut writer) = shared.try_lock() {
            let _ = writer.flush();
            return;
        }
        if Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Held by each test that makes a `ProgramOutput`: making one replaces
    /// the process's current writer, so two at once would flush each
    /// other's.
    static CURRENT_WRITER: Mutex<()> = Mutex::new(());

    fn one_writer_at_a_time() -> std::sync::MutexGuard<'static, ()> {
        CURRENT_WRITER
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A stream that records each write it is given.
    #[derive(Clone, Default)]
    struct Writes(Arc<Mutex<Vec<Vec<u8>>>>);

    impl Write for Writes {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            // A failed assertion elsewhere must not turn this writer's
            // flush on drop into a second panic.
            let mut writes = self
                .0
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            writes.push(buf.to_vec());
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn on_a_terminal_a_line_reaches_the_stream_when_it_ends() {
        let _serial = one_writer_at_a_time();
        let stream = Writes::default();
        let mut out = ProgramOutput::new(stream.clone(), true);
        out.write_all(b"started\n").expect("written");
        out.write_all(b"half a line").expect("written");
        assert_eq!(*stream.0.lock().expect("lock"), vec![b"started\n".to_vec()]);
    }

    #[test]
    fn elsewhere_output_waits_for_a_block_or_a_flush() {
        let _serial = one_writer_at_a_time();
        let stream = Writes::default();
        let mut out = ProgramOutput::new(stream.clone(), false);
        out.write_all(b"started\n").expect("written");
        assert!(stream.0.lock().expect("lock").is_empty());
        flush_for_exit();
        assert_eq!(
            stream.0.lock().expect("lock").concat(),
            b"started\n".to_vec()
        );
    }
}
