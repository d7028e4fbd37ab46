//! What the runtime's integration tests share: a writer to install as a
//! run's output and read back after it, a debugger that counts stops, one
//! made of a closure, and hand-written IR parsed and verified.

#[allow(dead_code)] // Not every test file walks the conformance suite.
pub mod programs;

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cove_runtime::vm::debug::{Debugger, Resume, Stop};

/// A writer the test can read back after the run; its clones share one
/// buffer, so the test keeps one and gives the `Vm` another.
#[derive(Clone, Default)]
pub struct Captured(pub Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .expect("the capture lock")
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    /// Everything written so far, as text.
    #[allow(dead_code)] // Not every test file reads the text this way.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("the capture lock")).into_owned()
    }
}

/// A debugger that counts the stops of the task the `Vm` ran (task 0): what
/// `Vm::instructions()` must equal after a watched run.
#[allow(dead_code)] // Not every test file watches its runs.
#[derive(Default)]
pub struct Counter(pub AtomicU64);

impl Debugger for Counter {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        if stop.task() == 0 {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
        Resume::Go
    }
}

/// A debugger made of a closure, following spawned tasks or not.
#[allow(dead_code)] // Not every test file watches its runs.
pub struct Tap<F> {
    at: F,
    follow: bool,
}

#[allow(dead_code)] // Not every test file watches its runs.
impl<F: Fn(&Stop<'_>) -> Resume + Sync> Tap<F> {
    /// Watches only the task the `Vm` ran.
    pub fn new(at: F) -> Tap<F> {
        Tap { at, follow: false }
    }

    /// Watches spawned tasks too.
    pub fn following(at: F) -> Tap<F> {
        Tap { at, follow: true }
    }
}

impl<F: Fn(&Stop<'_>) -> Resume + Sync> Debugger for Tap<F> {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        (self.at)(stop)
    }

    fn follows_tasks(&self) -> bool {
        self.follow
    }
}

/// A program in the printed IR form, parsed, and checked to pass the
/// verifier: a hand-written program a test then runs.
#[allow(dead_code)] // Not every test file writes IR by hand.
pub fn verified(text: &str) -> cove_ir::program::Program {
    let program = cove_ir::parse::program(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(cove_ir::verify::errors(&program), vec![], "{text}");
    program
}
