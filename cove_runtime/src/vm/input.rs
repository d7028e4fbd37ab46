//! Reading a file or standard input into a string, bounded by the run's
//! budgets: `read_file`, `read_stdin` and `read_line`.
//!
//! A read of a file whose size is not known (`/dev/zero`, a pipe that
//! never closes, a line with no end) would otherwise grow the host's memory
//! until the process is killed or aborts, without fuel, the heap bound or
//! Ctrl-C having a say. So the bytes are read a chunk (64 KiB) at a time,
//! and after each chunk the read asks what the rest of the runtime asks of
//! long work: that a string of that length fits the heap bound
//! ([`Memory::str_fits`](crate::heap::Memory)), that the fuel can pay for
//! the bytes read (one unit per [`WORK_PER_FUEL`](crate::WORK_PER_FUEL)),
//! and that no interrupt is pending. The buffer grows with `try_reserve`,
//! so a host out of memory is a `HeapLimit`, not an abort.
//!
//! It costs one check a chunk, nothing per byte. The obvious other shape,
//! `std::fs::read_to_string` and a check of the length after, is what ran
//! before: it is right for every file that ends, and unbounded for the
//! ones that do not.

use std::io::{BufRead, Read};

use crate::error::{ErrorKind, Fault, Faulty};
use crate::heap::Memory;

/// Bytes read between two checks of the budgets.
const CHUNK: usize = 64 * 1024;

/// Reads `reader` to its end, or (with `line`) up to and including the
/// first `\n`, checking the budgets between chunks. `what` names the
/// source for the I/O error's message ("standard input", a path).
pub(crate) fn read_bounded(
    heap: &Memory,
    reader: &mut dyn BufRead,
    line: bool,
    what: &str,
) -> Faulty<Vec<u8>> {
    let mut out: Vec<u8> = Vec::new();
    loop {
        let got = if line {
            let mut limited = (&mut *reader).take(CHUNK as u64);
            reserve(&mut out, CHUNK)?;
            limited.read_until(b'\n', &mut out)
        } else {
            reserve(&mut out, CHUNK)?;
            let start = out.len();
            out.resize(start + CHUNK, 0);
            let read = read_some(reader, &mut out[start..]);
            out.truncate(start + read.as_ref().copied().unwrap_or(0));
            read
        }
        .map_err(|e| Fault::new(ErrorKind::Io, format!("cannot read {what}: {e}")))?;
        if got == 0 || (line && out.last() == Some(&b'\n')) {
            return Ok(out);
        }
        heap.did_work(got as u64);
        heap.str_fits(out.len())?;
        heap.fuel_covers_work()?;
        heap.stop_requested()?;
    }
}

/// One `read` into `buf`, retried when a signal interrupted it.
fn read_some(reader: &mut dyn BufRead, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// Makes room for `more` bytes, or fails as a host out of memory does.
fn reserve(out: &mut Vec<u8>, more: usize) -> Faulty<()> {
    crate::heap::host_room(out, more, format_args!("reading input"))
}

/// Reads the file at `path` whole, as [`read_bounded`] does.
pub(crate) fn read_file(heap: &Memory, path: &str) -> Faulty<Vec<u8>> {
    let file = std::fs::File::open(path)
        .map_err(|e| Fault::new(ErrorKind::Io, format!("cannot read {path}: {e}")))?;
    let mut reader = std::io::BufReader::new(file);
    read_bounded(heap, &mut reader, false, path)
}
