//! The collector: Cheney's copying algorithm over the two halves of a task's
//! heap.
//!
//! Copying rather than mark-compact because a Cove heap is mostly young
//! garbage (strings built and dropped, boxes unwrapped), and a copy costs in
//! proportion to what survives, not to what was allocated; it also compacts
//! for free and needs no free list, which keeps [`Memory::alloc`] a bump.
//! The price is the second half, which only exists during a collection's
//! copy and is kept for the next one.
//!
//! The roots are given by the machine as a closure over every slot that may
//! hold a reference: the ref registers of every frame (from each function's
//! reference map) and the interned string constants. The collector is
//! precise: a num register is never looked at, so an integer that happens to
//! look like an address keeps nothing alive.

use super::Layouts;
use super::{Memory, Side, a_of, b_of, kind, kind_of, words_for};
use crate::error::Faulty;

/// What the machine passes to [`Memory::collect`]: it calls the visitor on
/// every root slot, and the visitor rewrites the slot to the object's new
/// address.
pub(crate) type Roots<'a> = &'a mut dyn FnMut(&mut u64);

struct Copier<'h> {
    from: &'h mut [u64],
    to: &'h mut [u64],
    free: usize,
    layouts: &'h Layouts,
}

impl Copier<'_> {
    /// Words the object with this header takes.
    fn size(&self, header: u64) -> usize {
        match kind_of(header) {
            kind::STR => 1 + words_for(b_of(header) as usize),
            kind::LIST => 3,
            kind::ARRAY | kind::STRUCT | kind::CLOSURE => 1 + b_of(header) as usize,
            kind::VARIANT => {
                1 + self.layouts.variants[a_of(header) as usize][b_of(header) as usize].len()
            }
            kind::SOME | kind::MAP | kind::TASK | kind::CHANNEL | kind::STR_VIEW => 2,
            kind::STR_BUF => 2 + b_of(header) as usize / 8,
            other => panic!("the heap holds an object of unknown kind {other}"),
        }
    }

    /// The new address of the object at `r`, copying it if this is the
    /// first reference to it the collection has met.
    #[inline]
    fn forward(&mut self, r: u64) -> u64 {
        if r == 0 {
            return 0;
        }
        let at = r as usize;
        let header = self.from[at];
        if kind_of(header) == kind::FORWARD {
            return header & 0x00ff_ffff_ffff_ffff;
        }
        let size = self.size(header);
        let to = self.free;
        self.to[to..to + size].copy_from_slice(&self.from[at..at + size]);
        self.free += size;
        self.from[at] = (u64::from(kind::FORWARD) << 56) | to as u64;
        to as u64
    }

    #[inline]
    fn forward_slot(&mut self, at: usize) {
        let r = self.to[at];
        self.to[at] = self.forward(r);
    }
}

impl Memory {
    /// Collects garbage: keeps what `roots` reach, rewrites every root to
    /// its object's new address, and drops the side tables of dead maps,
    /// tasks and channels.
    ///
    /// Fails with a heap-limit error when what survives is over the limit.
    pub(crate) fn collect(&mut self, roots: impl FnOnce(Roots<'_>)) -> Faulty<()> {
        if let Some(fault) = self.refused.take() {
            return Err(fault);
        }
        // References are about to move: a lookup remembered by them names
        // nothing after this.
        self.last_lookup.set(None);
        let needed = self.space.len();
        if self.spare.len() < needed {
            let more = needed - self.spare.len();
            // The copy is host memory as the space is, counted before it
            // is taken.
            if !self.hold_host(needed, needed) {
                return Err(self.host_limit());
            }
            if self.spare.is_empty() {
                // The first collection's copy: zeroed memory from the host
                // (see `zeroed_words`).
                match zeroed_words(needed) {
                    Some(spare) => self.spare = spare,
                    None => {
                        let space = self.space.len();
                        self.hold_host(space, 0);
                        return Err(super::out_of_memory(
                            more,
                            format_args!("the host refused the collector's copy of the space"),
                        ));
                    }
                }
            } else {
                // A later copy grows in place: its pages were the space
                // before the last collection, and are the host's already.
                if let Err(e) = self.spare.try_reserve_exact(more) {
                    let (space, spare) = (self.space.len(), self.spare.len());
                    self.hold_host(space, spare);
                    return Err(super::out_of_memory(
                        more,
                        format_args!("{e}, growing the collector's copy of the space"),
                    ));
                }
                self.spare.resize(needed, 0);
            }
        }
        self.maps.begin_marking();
        self.tasks.begin_marking();
        self.channels.begin_marking();
        let mut copier = Copier {
            from: &mut self.space[..],
            to: &mut self.spare[..],
            free: 1,
            layouts: &self.layouts,
        };
        roots(&mut |slot: &mut u64| *slot = copier.forward(*slot));
        let mut scan = 1;
        while scan < copier.free {
            let header = copier.to[scan];
            let size = copier.size(header);
            match kind_of(header) {
                kind::LIST => copier.forward_slot(scan + 2),
                kind::ARRAY if a_of(header) != 0 => {
                    for at in scan + 1..scan + size {
                        copier.forward_slot(at);
                    }
                }
                kind::STRUCT => {
                    let refs = &copier.layouts.structs[a_of(header) as usize];
                    for (i, is_ref) in refs.iter().enumerate() {
                        if *is_ref {
                            copier.forward_slot(scan + 1 + i);
                        }
                    }
                }
                kind::CLOSURE => {
                    let refs = &copier.layouts.closures[a_of(header) as usize];
                    for (i, is_ref) in refs.iter().enumerate().take(b_of(header) as usize) {
                        if *is_ref {
                            copier.forward_slot(scan + 1 + i);
                        }
                    }
                }
                kind::VARIANT => {
                    let layouts = copier.layouts;
                    let refs = &layouts.variants[a_of(header) as usize][b_of(header) as usize];
                    for (i, is_ref) in refs.iter().enumerate() {
                        if *is_ref {
                            copier.forward_slot(scan + 1 + i);
                        }
                    }
                }
                kind::SOME if a_of(header) != 0 => {
                    copier.forward_slot(scan + 1);
                }
                kind::STR_VIEW => copier.forward_slot(scan + 1),
                kind::MAP => {
                    let index = copier.to[scan + 1];
                    mark_map(&mut self.maps, index, &mut copier);
                }
                kind::TASK => self.tasks.mark(copier.to[scan + 1]),
                kind::CHANNEL => self.channels.mark(copier.to[scan + 1]),
                _ => {}
            }
            scan += size;
        }
        let live = copier.free;
        std::mem::swap(&mut self.space, &mut self.spare);
        self.next = live;
        self.maps.sweep();
        self.tasks.sweep();
        self.channels.sweep();
        self.forget_swept_channels();
        self.side_now = self.side_words();
        self.live_after_collection = live + self.side_now;
        // The run's total first: the next collection's point depends on
        // what the other heaps hold.
        let shared = self.reshare();
        self.set_next_collection();
        self.shrink_to_need();
        shared
    }
}

fn mark_map(maps: &mut Side<(super::Table, bool)>, index: u64, copier: &mut Copier<'_>) {
    maps.mark(index);
    if let Some((table, values_ref)) = maps.get_mut(index)
        && *values_ref
    {
        for value in table.values_mut() {
            *value = copier.forward(*value);
        }
    }
}

/// `words` zero words in a vector of exactly that capacity, asked of the
/// host as zeroed memory (`calloc`), or `None` when the host refuses.
///
/// The collector's first copy of the space is as large as the space, but
/// what it copies into it is what survives, often a sliver of it: zeroed
/// memory from the host is pages it maps when first touched, so the copy
/// costs the pages the survivors fill, and the rest are mapped as the
/// space fills them after the swap, or never, when the run ends first.
/// Growing an empty vector with `resize` wrote every word of it instead,
/// which `examples/bench/append.cove`'s 100,000 appends paid in a thousand
/// page faults (4 MiB written for a string of 175 KB), about a third of
/// its run. A later copy is grown in place, since a fresh one would give
/// back pages the host has mapped already and map them again.
fn zeroed_words(words: usize) -> Option<Vec<u64>> {
    if words == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u64>(words).ok()?;
    // SAFETY: the layout's size is not zero (`words` is not).
    let at = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<u64>();
    if at.is_null() {
        return None;
    }
    // SAFETY: `at` was allocated by the global allocator with the layout
    // of `words` u64s, which is the layout a `Vec<u64>` of capacity `words`
    // frees with, and every one of those words is initialised (zero).
    Some(unsafe { Vec::from_raw_parts(at, words, words) })
}
