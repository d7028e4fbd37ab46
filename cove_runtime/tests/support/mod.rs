//! What the runtime's integration tests share: a writer to install as a
//! run's output and read back after it.

use std::io::Write;
use std::sync::{Arc, Mutex};

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
