//! The words a heap's space (and its collector's copy) are made of: a
//! resizable block of `u64`s, zero where it was never written, mapped
//! straight from the host when it is large.
//!
//! # Why not a `Vec<u64>`
//!
//! A space grows by doubling, and a `Vec` can only grow into words it has
//! written: `resize` fills the new half with zeros at once. On Linux that
//! fill is where the host maps the pages, one 4 KiB fault each, about 2 µs
//! apiece on the machines this was measured on, and it maps them all at
//! the growth, before the program has used them. A word count that builds
//! a million-word line spent as much time in those faults as in its own
//! work.
//!
//! So a block of at least [`MAP_MIN`] bytes is an anonymous mapping of its
//! own: the host's fresh pages are zero already, so growing it (`mremap`)
//! writes nothing, and each page is mapped when bump allocation first
//! reaches it. The block also asks for transparent huge pages
//! (`MADV_HUGEPAGE`), which the host may grant one 2 MiB page per fault:
//! 32 MiB written in about 4 ms rather than 20. The advice changes how the
//! host backs the words, never what they hold; a host that declines it
//! (THP off) maps small pages as before.
//!
//! The host grants a huge page only for 2 MiB of a mapping that start on a
//! 2 MiB boundary. Linux (since 6.7) places a fresh mapping, or one it
//! moves to grow it, on a boundary only when its length is whole huge
//! pages, and older hosts on any 4 KiB page. So a block of a huge page or
//! more is mapped in whole huge pages, and on a boundary: a fresh one is
//! mapped 2 MiB longer and trimmed to it, and one that cannot grow in
//! place is moved (its pages moved, not copied, `MREMAP_FIXED`) onto such
//! a place. Before, a heap growing an eighth at a time was remapped to
//! lengths of no whole huge pages, landed off the boundaries, and about
//! half of it was mapped 4 KiB at a time: `examples/bench/strings.cove`
//! took 5,400 faults and now takes 1,640. The cost is the rounding: a
//! block's last huge page may hold little, and is mapped whole once it
//! is reached.
//!
//! A small block (every task's first 8 KiB) comes from the global
//! allocator, zeroed, because a mapping costs two system calls and a task
//! may be short. Elsewhere than Linux, and under Miri, every block comes
//! from the global allocator and growth writes its zeros.
//!
//! # What it promises
//!
//! Every word in `0..len` is initialised: a word nothing has written since
//! the block grew over it reads 0. The block owns its memory and frees it
//! on drop.

use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// Blocks of at least this many bytes are mappings of their own (on Linux).
#[cfg(all(target_os = "linux", not(miri)))]
const MAP_MIN: usize = 256 << 10;

/// Where a block's memory came from, which decides how it grows and is
/// given back. It follows from the block's length alone (`Words::source`),
/// so a block does not store it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// Nothing: the block is empty and its pointer dangling.
    None,
    /// `std::alloc`, with the layout of `len` words: a block under
    /// `MAP_MIN` bytes, or any block off Linux or under Miri.
    Allocator,
    /// An anonymous mapping of `len` words rounded up to whole pages.
    #[cfg(all(target_os = "linux", not(miri)))]
    Mapped,
}

/// A resizable block of heap words (see the module's doc).
pub(crate) struct Words {
    ptr: NonNull<u64>,
    len: usize,
}

// SAFETY: a `Words` owns its memory outright, as a `Vec<u64>` does; nothing
// else holds its pointer.
unsafe impl Send for Words {}
// SAFETY: shared access only reads, through `Deref`.
unsafe impl Sync for Words {}

/// The host refused memory for a block of words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Refused {
    /// The bytes asked for.
    pub(crate) bytes: usize,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the host refused a block of {} bytes", self.bytes)
    }
}

impl Words {
    /// An empty block, which holds no memory.
    pub(crate) const fn new() -> Words {
        Words {
            ptr: NonNull::dangling(),
            len: 0,
        }
    }

    /// Where a block of `len` words lives.
    fn source(len: usize) -> Source {
        #[cfg(all(target_os = "linux", not(miri)))]
        if len >= MAP_MIN / 8 {
            return Source::Mapped;
        }
        if len == 0 {
            Source::None
        } else {
            Source::Allocator
        }
    }

    /// A block of `len` zero words, or the host's refusal.
    pub(crate) fn zeroed(len: usize) -> Result<Words, Refused> {
        let mut words = Words::new();
        words.resize(len)?;
        Ok(words)
    }

    /// Makes the block `len` words long: words past the old length read 0,
    /// and a shorter block gives its tail back to the host. On a refusal
    /// the block is as it was.
    pub(crate) fn resize(&mut self, len: usize) -> Result<(), Refused> {
        if len == self.len {
            return Ok(());
        }
        let bytes = len.checked_mul(8).ok_or(Refused { bytes: usize::MAX })?;
        if len == 0 {
            self.release();
            return Ok(());
        }
        #[cfg(all(target_os = "linux", not(miri)))]
        if Words::source(len) == Source::Mapped {
            return self.resize_mapped(len, bytes);
        }
        self.resize_allocated(len, bytes)
    }

    /// Gives the block's memory back and leaves it empty.
    fn release(&mut self) {
        match Words::source(self.len) {
            Source::None => {}
            Source::Allocator => {
                // SAFETY: allocated by `std::alloc` with the layout of
                // `self.len` words, which `resize_allocated` keeps in step.
                unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), layout(self.len)) };
            }
            #[cfg(all(target_os = "linux", not(miri)))]
            Source::Mapped => {
                // SAFETY: this block's own mapping, of
                // `mapped_bytes(len * 8)` bytes.
                unsafe { libc::munmap(self.ptr.as_ptr().cast(), mapped_bytes(self.len * 8)) };
            }
        }
        // Not `*self = Words::new()`, which would drop the old value and
        // free its memory a second time.
        self.ptr = NonNull::dangling();
        self.len = 0;
    }

    /// Resizes through the global allocator.
    fn resize_allocated(&mut self, len: usize, bytes: usize) -> Result<(), Refused> {
        if bytes > isize::MAX as usize {
            return Err(Refused { bytes });
        }
        let fresh = match Words::source(self.len) {
            Source::None => {
                // SAFETY: the layout's size, `bytes`, is not zero.
                unsafe { std::alloc::alloc_zeroed(layout(len)) }
            }
            Source::Allocator => {
                // SAFETY: allocated with the layout of `self.len` words; the
                // new size is not zero and was checked against isize::MAX.
                let at = unsafe {
                    std::alloc::realloc(self.ptr.as_ptr().cast(), layout(self.len), bytes)
                };
                if !at.is_null() && len > self.len {
                    // SAFETY: `at` holds `len` words, of which those past
                    // the old length are the new ones.
                    unsafe {
                        at.cast::<u64>()
                            .add(self.len)
                            .write_bytes(0, len - self.len)
                    };
                }
                at
            }
            #[cfg(all(target_os = "linux", not(miri)))]
            Source::Mapped => {
                // A mapping shrinking below `MAP_MIN`: copy what stays,
                // which writes every word of the new block, so it need not
                // be zeroed first.
                // SAFETY: the layout's size is not zero.
                let at = unsafe { std::alloc::alloc(layout(len)) };
                if !at.is_null() {
                    // SAFETY: `len` is under the old length here, and the
                    // two blocks are distinct; the copy initialises all
                    // `len` words of the new one.
                    unsafe {
                        std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), at.cast::<u64>(), len)
                    };
                    self.release();
                }
                at
            }
        };
        let Some(ptr) = NonNull::new(fresh.cast::<u64>()) else {
            return Err(Refused { bytes });
        };
        self.ptr = ptr;
        self.len = len;
        Ok(())
    }

    /// Resizes as a mapping of its own.
    #[cfg(all(target_os = "linux", not(miri)))]
    fn resize_mapped(&mut self, len: usize, bytes: usize) -> Result<(), Refused> {
        let size = mapped_bytes(bytes);
        let at = match Words::source(self.len) {
            Source::Mapped => {
                let old = mapped_bytes(self.len * 8);
                let ptr: *mut libc::c_void = self.ptr.as_ptr().cast();
                let at = if old == size {
                    // The same whole pages (or huge pages) hold it.
                    ptr
                } else if size >= HUGE && (ptr as usize) % HUGE != 0 {
                    // Past a huge page and not on one's boundary: moved
                    // onto one, so that the host can back it with them.
                    move_aligned(ptr, old, size)
                } else {
                    // SAFETY: remaps this block's own mapping of `old`
                    // bytes where it is; new pages are the host's zero
                    // pages.
                    let there = unsafe { libc::mremap(ptr, old, size, 0) };
                    if there != libc::MAP_FAILED || size < old {
                        there
                    } else if size >= HUGE {
                        move_aligned(ptr, old, size)
                    } else {
                        // SAFETY: as above, and the host may move it.
                        unsafe { libc::mremap(ptr, old, size, libc::MREMAP_MAYMOVE) }
                    }
                };
                if at != libc::MAP_FAILED && len < self.len {
                    // Words that stay mapped past the new end must read 0
                    // when the block grows over them again. Only once the
                    // shrink is made: a refused one leaves the block as it
                    // was.
                    let kept = (size / 8).min(self.len);
                    // SAFETY: `len..kept` is inside the new mapping, of
                    // `size` bytes.
                    unsafe { at.cast::<u64>().add(len).write_bytes(0, kept - len) };
                }
                at
            }
            Source::None | Source::Allocator => {
                let at = map_fresh(size);
                if at != libc::MAP_FAILED {
                    // SAFETY: the old block holds `self.len` words, fewer
                    // than the mapping's (an allocator block is under
                    // `MAP_MIN`), and the two are distinct.
                    unsafe {
                        std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), at.cast(), self.len)
                    };
                    self.release();
                }
                at
            }
        };
        if at == libc::MAP_FAILED {
            return Err(Refused { bytes });
        }
        // SAFETY: advice on this block's own mapping; it changes how the
        // host backs the pages, never what they hold, and a host without
        // transparent huge pages returns an error, which is ignored.
        unsafe { libc::madvise(at, size, libc::MADV_HUGEPAGE) };
        self.ptr = NonNull::new(at.cast()).ok_or(Refused { bytes })?;
        self.len = len;
        Ok(())
    }
}

/// A huge page's size, and the alignment of every mapping of at least one.
#[cfg(all(target_os = "linux", not(miri)))]
const HUGE: usize = 2 << 20;

/// A fresh anonymous mapping of `size` bytes (whole pages, and whole huge
/// pages from [`HUGE`] on), starting on a huge page's boundary when it
/// holds one, or `MAP_FAILED`.
#[cfg(all(target_os = "linux", not(miri)))]
fn map_fresh(size: usize) -> *mut libc::c_void {
    let extra = if size >= HUGE { HUGE } else { 0 };
    let Some(asked) = size.checked_add(extra) else {
        return libc::MAP_FAILED;
    };
    // SAFETY: a fresh anonymous private mapping, asking for no particular
    // address.
    let at = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            asked,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if at == libc::MAP_FAILED || extra == 0 {
        return at;
    }
    // The host places a mapping on pages, not huge pages: the part before
    // the first boundary and the part past `size` after it go back.
    let start = at as usize;
    let aligned = start.next_multiple_of(HUGE);
    let (head, tail) = (aligned - start, start + asked - (aligned + size));
    // SAFETY: both ranges are whole pages of the mapping just made, outside
    // `aligned..aligned + size`, which is what is kept.
    unsafe {
        if head > 0 {
            libc::munmap(at, head);
        }
        if tail > 0 {
            libc::munmap((aligned + size) as *mut libc::c_void, tail);
        }
    }
    aligned as *mut libc::c_void
}

/// Moves the mapping of `old` bytes at `ptr` to a fresh place of `size`
/// bytes on a huge page's boundary, its pages moved rather than copied,
/// or `MAP_FAILED` with the mapping where it was.
#[cfg(all(target_os = "linux", not(miri)))]
fn move_aligned(ptr: *mut libc::c_void, old: usize, size: usize) -> *mut libc::c_void {
    let target = map_fresh(size);
    if target == libc::MAP_FAILED {
        return target;
    }
    // SAFETY: moves this block's own mapping onto `target`, a mapping of
    // `size` bytes made for it, which the move replaces.
    let at = unsafe {
        libc::mremap(
            ptr,
            old,
            size,
            libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
            target,
        )
    };
    if at == libc::MAP_FAILED {
        // SAFETY: the fresh mapping made above, which nothing uses.
        unsafe { libc::munmap(target, size) };
    }
    at
}

/// The layout of `len` words, `len` not zero and within `isize::MAX` bytes.
fn layout(len: usize) -> std::alloc::Layout {
    std::alloc::Layout::array::<u64>(len).expect("a block checked against isize::MAX")
}

/// `bytes` rounded up to whole pages, and from [`HUGE`] on to whole huge
/// pages: the length of a block's mapping, derived from its length alone.
#[cfg(all(target_os = "linux", not(miri)))]
fn mapped_bytes(bytes: usize) -> usize {
    if bytes >= HUGE {
        bytes.next_multiple_of(HUGE)
    } else {
        bytes.next_multiple_of(4096)
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        self.release();
    }
}

impl Deref for Words {
    type Target = [u64];
    #[inline]
    fn deref(&self) -> &[u64] {
        // SAFETY: `ptr` holds `len` initialised words (the module's promise),
        // or is dangling with `len` 0.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for Words {
    #[inline]
    fn deref_mut(&mut self) -> &mut [u64] {
        // SAFETY: as in `deref`, and `&mut self` is the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Words({} words)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block past `MAP_MIN`, a mapping on Linux; under Miri, where every
    /// block comes from the allocator, a smaller one, which Miri checks in
    /// seconds rather than many minutes.
    const LARGE: usize = if cfg!(miri) { 5_000 } else { 1_000_000 };
    /// A block under `MAP_MIN` but over the first ones.
    const MIDDLE: usize = if cfg!(miri) { 1_000 } else { 40_001 };

    #[test]
    fn a_block_grown_reads_zero_past_what_it_held_and_keeps_what_it_held() {
        let mut words = Words::zeroed(16).unwrap();
        words[3] = 7;
        words[15] = 9;
        // Small to small, small to mapped, mapped to mapped.
        for len in [100, MIDDLE, LARGE] {
            words.resize(len).unwrap();
            assert_eq!((words[3], words[15]), (7, 9));
            assert!(
                words[16..].iter().all(|&w| w == 0),
                "a grown block at {len} words"
            );
            words[len - 1] = 5;
            words.resize(len).unwrap();
            words[len - 1] = 0;
        }
    }

    #[test]
    fn a_block_shrunk_and_grown_again_reads_zero_where_it_was_cut() {
        // The second pair stays within one mapping's whole huge pages.
        for (big, small) in [
            (LARGE, MIDDLE),
            (LARGE, LARGE - 1000),
            (LARGE, 1000),
            (500, 100),
        ] {
            let mut words = Words::zeroed(big).unwrap();
            words.fill(u64::MAX);
            words.resize(small).unwrap();
            assert!(words.iter().all(|&w| w == u64::MAX));
            words.resize(big).unwrap();
            assert!(words[..small].iter().all(|&w| w == u64::MAX));
            assert!(
                words[small..].iter().all(|&w| w == 0),
                "{big} cut to {small} and grown again"
            );
        }
    }

    #[cfg(all(target_os = "linux", not(miri)))]
    #[test]
    fn a_mapping_of_a_huge_page_or_more_starts_on_a_huge_page_boundary() {
        let mut words = Words::zeroed(MIDDLE).unwrap();
        words[7] = 3;
        // Grown past a huge page from a small mapping, grown again (in
        // place or moved), and shrunk to under a huge page and grown back.
        for len in [LARGE, 2 * LARGE, 3 * LARGE + 5, MIDDLE, LARGE] {
            words.resize(len).unwrap();
            assert_eq!(words[7], 3);
            if len * 8 >= HUGE {
                assert!(
                    (words.as_ptr() as usize) % HUGE == 0,
                    "a block of {len} words at {:p}",
                    words.as_ptr()
                );
            }
        }
        assert_eq!(Words::zeroed(LARGE).unwrap().as_ptr() as usize % HUGE, 0);
    }

    #[test]
    fn an_empty_block_holds_nothing_and_a_block_emptied_can_grow_again() {
        let mut words = Words::new();
        assert!(words.is_empty());
        words.resize(LARGE).unwrap();
        words[LARGE - 1] = 1;
        words.resize(0).unwrap();
        assert!(words.is_empty());
        words.resize(10).unwrap();
        assert_eq!(&words[..], &[0; 10]);
    }

    #[test]
    fn a_block_the_host_cannot_hold_is_refused_and_left_as_it_was() {
        let mut words = Words::zeroed(10).unwrap();
        words[0] = 4;
        // Eight pebibytes: more than the host has. (Miri ends the run at
        // such a request rather than refusing it, so it is not asked there.)
        if !cfg!(miri) {
            assert!(words.resize(1 << 50).is_err());
        }
        assert!(words.resize(usize::MAX / 4).is_err());
        assert!(words.resize(usize::MAX).is_err());
        assert_eq!((words.len(), words[0]), (10, 4));
    }
}
