//! The `cove` command's global allocator: the system's, with one more try.
//!
//! The runtime asks the host for its memory with `try_reserve` wherever
//! stable Rust lets it, and a refusal there is a clean out-of-memory fault.
//! Where it cannot ask so — an `Arc` (a channel's shared state), the
//! strings of a fault's backtrace — a refusal aborts the process and loses
//! the output not yet written. So when the system's allocator refuses, this
//! one lets go of the memory the runtime keeps back
//! ([`cove_runtime::rescue_memory`]) and asks once more, for an allocation
//! small enough for that to help; the run that was saved so ends at its
//! next safepoint with the heap's status, 125.
//!
//! It costs nothing while the host says yes: the test is on the null that
//! only a refusal returns. Installing it did change how the dispatch loop
//! was compiled (a register more spilled on the call path: `fib 25`'s run
//! 29.24 M → 29.58 M native instructions under callgrind, none of them
//! allocating; 29.77 M with these methods kept out of line, which is why
//! they are not), with no change of time that paired runs could see. Why not in the runtime: a library must not
//! choose its embedder's global allocator; an embedder who wants the same
//! can install this shape of allocator in its own program.

use std::alloc::{GlobalAlloc, Layout, System};

/// How many arenas the C library's allocator may make, where it is glibc's.
///
/// glibc gives a thread that allocates an arena of its own, up to eight a
/// core, and each reserves 64 MiB of address space as it is made. A run's
/// tasks and a profile's sampler are threads, so under a tight `ulimit -v`
/// (which counts reserved address space, used or not) those reservations
/// alone could refuse the run's thread its stack: `cove profile` of a
/// hello-world under `ulimit -v` of 130–200 MB failed to start 3 times in
/// 24, with exit 70, and never with two arenas. Two, not one: the runtime
/// allocates little through `malloc` (each task's heap is one growing
/// block), so threads rarely meet on an arena's lock, and the main
/// thread's arena, which grows the process's break rather than reserving,
/// is one of them.
const ARENAS: i32 = 2;

/// Caps the C allocator's arenas at [`ARENAS`]; nothing where the C
/// library is not glibc. Called first thing in `main`, before any thread.
pub(crate) fn cap_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a parameter of the allocator, and is
    // called before any other thread could allocate.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, ARENAS);
    }
}

/// The system's allocator, which asks once more after a rescue.
pub(crate) struct Rescuing;

// SAFETY: every method hands its arguments to the system's allocator
// unchanged, once or twice; a second call is made only after the first
// returned null, so nothing is allocated twice or freed that was not.
unsafe impl GlobalAlloc for Rescuing {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's promises for `layout` are passed on.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() && cove_runtime::rescue_memory(layout.size()) {
            // SAFETY: as above.
            return unsafe { System.alloc(layout) };
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's promises for `layout` are passed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() && cove_runtime::rescue_memory(layout.size()) {
            // SAFETY: as above.
            return unsafe { System.alloc_zeroed(layout) };
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, which is the system's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's promises for `ptr`, `layout` and `new_size`
        // are passed on; a refused `realloc` leaves `ptr` as it was, so it
        // may be asked again.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() && cove_runtime::rescue_memory(new_size) {
            // SAFETY: as above.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        p
    }
}
