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
            // The copy grows without writing (see `heap/words.rs`): what
            // the collector copies into it is what survives, often a sliver
            // of it, and only the pages that fills are the host's to map.
            if let Err(e) = self.spare.resize(needed) {
                let (space, spare) = (self.space.len(), self.spare.len());
                self.hold_host(space, spare);
                return Err(super::out_of_memory(
                    more,
                    format_args!("{e}, growing the collector's copy of the space"),
                ));
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
        for slot in self.byte_strings.iter_mut().filter(|slot| **slot != 0) {
            *slot = copier.forward(*slot);
        }
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
    let Some((table, values_ref)) = maps.get_mut(index) else {
        return;
    };
    if *values_ref {
        for value in table.values_mut() {
            *value = copier.forward(*value);
        }
    }
    // The strings listings made of a map's keys (`entries.rs`, "Key
    // strings") live as long as the map.
    if let super::Table::Str(m) = table {
        for string in m.key_strings_mut() {
            *string = copier.forward(*string);
        }
    }
}
