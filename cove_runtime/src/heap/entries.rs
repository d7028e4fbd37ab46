//! The entries of one map: insertion-ordered, with every operation in
//! constant time (amortised).
//!
//! A Cove map iterates, prints and copies in insertion order; setting a key
//! it has keeps the key's place, and a key removed and then set again goes
//! to the end, as a new key does.
//!
//! # Shape
//!
//! The entries are a vector in insertion order, and a hash table
//! (hashbrown's `HashTable`, hashed with the Fx-style hash of `hash.rs`)
//! holds, for each live key, its position in the vector, as a `u32`. Each
//! key is stored once, in the vector; the table holds only positions.
//! Whether an entry is live is a flag in a second vector beside the first,
//! which only iteration and the sweep read.
//!
//! - A lookup hashes the key, and compares it with the keys at the
//!   positions the table offers.
//! - Setting a new key pushes an entry at the end of the vector and its
//!   position into the table; setting a live key rewrites its value in
//!   place.
//! - A removal takes the key's position out of the table and marks its entry
//!   dead (a tombstone, as CPython's dict does); the dead entry keeps its key
//!   and its place, so no other entry moves. A key removed and set again is
//!   not in the table, so it is set as a new key: a fresh entry at the end,
//!   its dead one left where it was.
//! - Once the dead entries are at least [`SWEEP_AT`] and as many as the
//!   live ones, the removal that got there sweeps: one pass compacts the
//!   vector, keeping the order of the live entries, and the table is rebuilt
//!   from it. The pass costs what the map holds, and at least half of that
//!   is removals made since the last sweep, so it is constant time per
//!   removal, amortised.
//!
//! Every read (iteration, printing, the collector) skips the dead.
//!
//! # The direct index
//!
//! Beside the hash table, a map of `Int` (or `Bool`) keys has a direct
//! index: a vector whose slot `k` holds one more than the position of the
//! live key `k`, or 0. Every live key from 0 up to the index's width is
//! there and only there; negative keys and keys past the width are in the
//! table. A lookup of such a key reads its slot and its entry: no hash,
//! no probe, and two dependent reads where the table makes three. It is
//! Lua's array part in the shape of this map: positions, not values, so
//! that the order and the entries stay where they were.
//!
//! The index widens when a new key past it would fall within
//! [`direct_room`] of the map's size: the largest power of two at most
//! twice one more than its key count, so its 4-byte slots cost a key at
//! most 8 bytes, what the table's slot and spare room cost one. A widening
//! moves the table's keys that now have a slot into it (one pass over the
//! table), and since it widens to the room the size pays for, the next
//! widening waits until the map has about doubled: constant time per key,
//! amortised. A sweep narrows it to what the keys left pay for.
//!
//! # Key strings
//!
//! A map of `String` keys holds each key's bytes, not a Cove string: a
//! lookup compares bytes, and a key set from a string the program keeps
//! changing (a slice of a large buffer, say) keeps nothing else alive.
//! `Map.keys`, and with it every `for (k, v) in map`, must hand out Cove
//! strings, and making one a key at every walk was a third of a walk's
//! time. So a listing remembers, beside each entry, the string it made of
//! the entry's key (`strings`, by position, 0 for none) and hands the same
//! string out at the next listing: a string never changes, so one object
//! can stand for the key as long as the entry lives. The collector moves
//! these strings as it moves a map's values; a removal forgets its entry's
//! string, and a sweep, which moves the entries, forgets them all. A map
//! never listed has no `strings` at all; one listed pays a word an entry,
//! and the strings themselves, which the heap counts as it counts any.
//! A walk's turn also finds its key by this string: the key it is given
//! is the entry's own string, one comparison of references and no bytes.
//!
//! # Cost
//!
//! Lookup, set, removal and re-setting a removed key are constant time,
//! amortised: a remove-and-set-again loop (an LRU cache) on a map of any
//! size costs the same per step. The map holds its live entries plus the
//! dead ones not yet swept, which are never more than the live ones (or
//! [`SWEEP_AT`]), so [`Entries::held`], what the map costs in memory, is at
//! most twice its length plus [`SWEEP_AT`] however it is used. A sweep also
//! gives back the room of a vector or table that has become four times too
//! big, so a map emptied after growing large does not keep its peak.
//!
//! An entry costs its key and value (16 bytes for an `Int` key, 40 for a
//! `String`), a live flag (1 byte) and a 4-byte position in the table (with
//! the table's spare room and its control byte). A map holds at most
//! [`MAX_HELD`] entries, 2^32 − 1, dead ones included; setting a new key in a
//! map that holds that many is refused (`Memory::map_set` makes it a
//! heap-limit error), a bound of the same kind as a string's 32-bit length,
//! and past what the default heap limit lets a run reach.
//!
//! # Why this shape
//!
//! `IndexMap`, used before, keeps insertion order but can only move a key
//! to the end by taking its entry out of the middle (`shift_remove`), which
//! moves every later entry: a remove-and-set-again loop was quadratic. Its
//! keys are unique, so a dead entry and a live one of the same key cannot
//! both be in it, and keeping the live entries in a second structure would
//! store every key twice. The table of positions over a vector is the shape
//! `IndexMap` has inside, with the one change that the table may forget a
//! position its vector still holds. hashbrown's `HashTable` is the table
//! `IndexMap` itself is built on (and the standard `HashMap` too, which does
//! not expose it), so taking it directly adds nothing to the build and takes
//! `indexmap` out of it.
//!
//! A lookup in the table of a map larger than the cache makes three
//! dependent reads, the control bytes, the position and the entry, and each
//! is as fast as the cache it is found in: the 32-bit positions (half of
//! `usize`'s) and the flags kept out of the entries (24 bytes an `Int`
//! entry had, with the flag's padding, 16 now) make the table and the
//! vector that `examples/bench/intmap.cove` reads at random 1.3 and 2.2
//! MiB, where they were 2.3 and 3.4 MiB, and took its CPU time from 0.80 of
//! Lua 5.4's to 0.65 on the project's 2-core machine (`docs/RUNTIME.md`).
//! Putting the key and the value beside the position, so that a lookup
//! reads two places and not three, was measured too and is slower there:
//! its table, 24 bytes a slot, is 6 MiB, and a read of it cost more than
//! the two reads of the smaller tables it saved.
//!
//! The direct index is for the keys the table serves worst and Lua best:
//! dense ones, such as a memo of the Collatz lengths of 1 to 300,000
//! (651,569 keys, most of them under a million), where Lua's array part
//! took the lookups in one read and the table in three. That program
//! went from 1.0 of Lua 5.4's CPU time to 0.71–0.82 (`docs/RUNTIME.md`).

use std::borrow::Borrow;
use std::hash::{BuildHasher, Hash};

use hashbrown::HashTable;

use super::hash::FxBuild;

/// A key's slot in a map's direct index: a non-negative `Int` key's own
/// value. `None` for every other key (negative, or a string), which only
/// the hash table holds.
pub(crate) trait Slot {
    /// The slot, if the key may have one.
    fn slot(&self) -> Option<usize>;
}

impl Slot for i64 {
    #[inline]
    fn slot(&self) -> Option<usize> {
        usize::try_from(*self).ok()
    }
}

impl Slot for [u8] {
    #[inline]
    fn slot(&self) -> Option<usize> {
        None
    }
}

impl Slot for super::StrKey {
    #[inline]
    fn slot(&self) -> Option<usize> {
        None
    }
}

/// The most slots the direct index may have for a map of `len` keys: the
/// largest power of two at most twice one more than `len`, so that its four
/// bytes a slot are at most eight a key, what the hash table's slot and
/// spare room cost a key it holds.
fn direct_room(len: usize) -> usize {
    let most = 2 * (len + 1);
    1 << (usize::BITS - 1 - most.leading_zeros())
}

/// A map's entries: see the module documentation.
#[derive(Debug, Clone)]
pub(crate) struct Entries<K> {
    /// Every entry held, dead ones included, in insertion order: its key
    /// and value.
    entries: Vec<(K, u64)>,
    /// Whether each entry of `entries` is live, at the same position: read
    /// only to iterate and to sweep, so kept out of the entries a lookup
    /// reads.
    live: Vec<bool>,
    /// One more than the position in `entries` of the live key whose slot
    /// is this one's index, or 0: every live key whose slot is below its
    /// length is here, and only here.
    direct: Vec<u32>,
    /// The position in `entries` of each live key that is not in
    /// `direct`, and of no dead one.
    index: HashTable<u32>,
    /// How many entries of `entries` are dead.
    dead: usize,
    /// The heap string a listing made of each entry's key, by position, or
    /// 0: see "Key strings" above. No longer than `entries`, and empty
    /// until the map is first listed.
    strings: Vec<u64>,
}

impl<K> Default for Entries<K> {
    fn default() -> Entries<K> {
        Entries {
            entries: Vec::new(),
            live: Vec::new(),
            direct: Vec::new(),
            index: HashTable::new(),
            dead: 0,
            strings: Vec::new(),
        }
    }
}

/// Dead entries are swept out once there are at least this many and they
/// are as many as the live ones.
const SWEEP_AT: usize = 16;

/// A sweep gives back the room of a vector or table whose capacity is more
/// than this many times what it needs.
const SHRINK_BEYOND: usize = 4;

/// The most entries a map may hold, dead ones included: a position, and
/// one more than a position, is a `u32`.
pub(crate) const MAX_HELD: usize = u32::MAX as usize;

/// Why a map did not take a new key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// It holds [`MAX_HELD`] entries.
    Full,
    /// The host would not give this many bytes for its growth.
    Host(usize),
}

/// The hash of a key, or of what it borrows as: `Borrow` promises they are
/// the same.
fn hash_of<Q: Hash + ?Sized>(key: &Q) -> u64 {
    FxBuild::default().hash_one(key)
}

impl<K: Hash + Eq + Slot> Entries<K> {
    /// How many keys the map has.
    pub(crate) fn len(&self) -> usize {
        self.entries.len() - self.dead
    }

    /// How many entries it holds, dead ones included: what it costs in
    /// memory.
    pub(crate) fn held(&self) -> usize {
        self.entries.len()
    }

    /// The direct index's slot of `key`, if it has one there.
    #[inline]
    fn direct_slot<Q: Slot + ?Sized>(&self, key: &Q) -> Option<usize> {
        key.slot().filter(|&k| k < self.direct.len())
    }

    /// The position of `key`'s live entry, which is not in the direct
    /// index, by way of the hash table.
    #[inline]
    fn find<Q: Hash + Eq + ?Sized>(&self, hash: u64, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
    {
        let entries = &self.entries;
        self.index
            .find(hash, |&at| entries[at as usize].0.borrow() == key)
            .map(|&at| at as usize)
    }

    /// The value of `key`.
    #[inline(always)]
    pub(crate) fn get<Q: Hash + Eq + Slot + ?Sized>(&self, key: &Q) -> Option<u64>
    where
        K: Borrow<Q>,
    {
        self.locate(key).1.map(|at| self.entries[at].1)
    }

    /// The value of `key`, looked for first at the held position `at` (a
    /// hint: where the key is when the map has lost no entry since its
    /// keys were listed), then as [`Entries::get`] looks. A live entry of
    /// the key is the only one, so the hint's answer is the lookup's.
    #[inline]
    pub(crate) fn get_at<Q: Hash + Eq + Slot + ?Sized>(&self, key: &Q, at: usize) -> Option<u64>
    where
        K: Borrow<Q>,
    {
        match self.held_at(at) {
            Some((k, value)) if k.borrow() == key => Some(value),
            _ => self.get(key),
        }
    }

    /// Sets `key` to `value`, making the owned key with `own` only if the
    /// key is new: whether it is. A key removed before is new again, and
    /// goes to the end. Room for a new key is asked of the host first
    /// ([`Entries::reserve_one`]); a new key is refused, with the map
    /// unchanged, when the host will not give it or the map holds
    /// [`MAX_HELD`] entries.
    #[inline(always)]
    pub(crate) fn try_set<Q: Hash + Eq + Slot + ?Sized>(
        &mut self,
        key: &Q,
        value: u64,
        own: impl FnOnce(&Q) -> K,
    ) -> Result<bool, Refused>
    where
        K: Borrow<Q>,
    {
        let (hash, at) = self.locate(key);
        if let Some(at) = at {
            self.entries[at].1 = value;
            return Ok(false);
        }
        self.insert_new(hash, own(key), value)?;
        Ok(true)
    }

    /// The hash of `key` and the position of its live entry, if it has
    /// one: a lookup whose answer a set of the same key can use
    /// ([`Entries::set_value_at`], [`Entries::insert_new`]) without hashing
    /// and probing again. A key with a slot in the direct index is found
    /// there, unhashed (its hash is given as 0, which nothing reads).
    #[inline(always)]
    pub(crate) fn locate<Q: Hash + Eq + Slot + ?Sized>(&self, key: &Q) -> (u64, Option<usize>)
    where
        K: Borrow<Q>,
    {
        if let Some(k) = self.direct_slot(key) {
            return (0, self.direct[k].checked_sub(1).map(|at| at as usize));
        }
        let hash = hash_of(key);
        (hash, self.find(hash, key))
    }

    /// The value of the entry at `at`, a position [`Entries::locate`] gave.
    pub(crate) fn value_at(&self, at: usize) -> u64 {
        self.entries[at].1
    }

    /// Rewrites the value of the live entry at `at`, a position
    /// [`Entries::locate`] gave with no change to the entries since.
    pub(crate) fn set_value_at(&mut self, at: usize, value: u64) {
        self.entries[at].1 = value;
    }

    /// Makes room for one more entry, asking the host with `try_reserve`,
    /// so that the push of [`Entries::insert_new`] after it grows nothing: the
    /// vector and the table double as they fill, and a host that refused
    /// the doubling (a map of 20,000,000 keys asking for 800 MB under
    /// `ulimit -v`) aborted the process. On failure nothing is changed,
    /// and the error says how many bytes the host would not give.
    fn reserve_one(&mut self) -> Result<(), usize> {
        if self.entries.len() == self.entries.capacity() {
            let more = self.entries.len().max(4);
            self.entries
                .try_reserve(more)
                .map_err(|_| more.saturating_mul(std::mem::size_of::<(K, u64)>() + 1))?;
            self.live.try_reserve(more).map_err(|_| more)?;
        }
        let entries = &self.entries;
        self.index
            .try_reserve(1, |&at| hash_of(&entries[at as usize].0))
            .map_err(|_| self.index.capacity().saturating_mul(2 * 5))
    }

    /// Adds `key`, which hashes to `hash` and has no live entry, with
    /// `value`, at the end: the second half of [`Entries::try_set`], its
    /// room asked of the host first ([`Entries::reserve_one`]). Refused,
    /// changing nothing, when the host will not give it or the map holds
    /// [`MAX_HELD`] entries.
    pub(crate) fn insert_new(&mut self, hash: u64, key: K, value: u64) -> Result<(), Refused> {
        if self.entries.len() >= MAX_HELD {
            return Err(Refused::Full);
        }
        self.reserve_one().map_err(Refused::Host)?;
        // A key past the direct index whose slot a wider index could hold
        // widens it, if the map has keys enough to pay for the room.
        if let Some(k) = key.slot()
            && k >= self.direct.len()
        {
            let room = direct_room(self.len());
            if k < room {
                self.widen(room).map_err(Refused::Host)?;
            }
        }
        // Below `MAX_HELD`, checked above.
        let at = self.entries.len() as u32;
        let slot = self.direct_slot(&key);
        self.entries.push((key, value));
        self.live.push(true);
        match slot {
            Some(k) => self.direct[k] = at + 1,
            None => {
                // A key outside the direct index was hashed by its lookup.
                let entries = &self.entries;
                self.index
                    .insert_unique(hash, at, |&at| hash_of(&entries[at as usize].0));
            }
        }
        Ok(())
    }

    /// Widens the direct index to `to` slots, more than it has, and moves
    /// there the keys of the hash table whose slots it now has. Its room is
    /// asked of the host first; on failure nothing is changed, and the
    /// error says how many bytes the host would not give.
    fn widen(&mut self, to: usize) -> Result<(), usize> {
        let more = to - self.direct.len();
        self.direct
            .try_reserve_exact(more)
            .map_err(|_| more.saturating_mul(4))?;
        self.direct.resize(to, 0);
        let (entries, direct) = (&self.entries, &mut self.direct);
        self.index.retain(
            |&mut at| match entries[at as usize].0.slot().filter(|&k| k < to) {
                Some(k) => {
                    direct[k] = at + 1;
                    false
                }
                None => true,
            },
        );
        Ok(())
    }

    /// Removes `key`; its value, if it was there.
    pub(crate) fn remove<Q: Hash + Eq + Slot + ?Sized>(&mut self, key: &Q) -> Option<u64>
    where
        K: Borrow<Q>,
    {
        let at = match self.direct_slot(key) {
            Some(k) => std::mem::take(&mut self.direct[k]).checked_sub(1)? as usize,
            None => {
                let entries = &self.entries;
                let found = self
                    .index
                    .find_entry(hash_of(key), |&at| entries[at as usize].0.borrow() == key)
                    .ok()?;
                found.remove().0 as usize
            }
        };
        self.live[at] = false;
        if let Some(string) = self.strings.get_mut(at) {
            *string = 0;
        }
        let value = self.entries[at].1;
        self.dead += 1;
        if self.dead >= SWEEP_AT && self.dead * 2 >= self.entries.len() {
            self.sweep();
        }
        Some(value)
    }

    /// Drops the dead entries, keeping the order of the rest, and points the
    /// table at where they now are.
    fn sweep(&mut self) {
        let mut at = 0;
        let live = &self.live;
        self.entries.retain(|_| {
            at += 1;
            live[at - 1]
        });
        self.live.clear();
        self.live.resize(self.entries.len(), true);
        self.dead = 0;
        // The entries moved: the next listing makes their strings again.
        self.strings = Vec::new();
        let live = self.entries.len();
        if self.entries.capacity() > SHRINK_BEYOND * live.max(SWEEP_AT) {
            self.entries.shrink_to(2 * live);
            self.live.shrink_to(2 * live);
        }
        if self.index.capacity() > SHRINK_BEYOND * live.max(SWEEP_AT) {
            self.index = HashTable::with_capacity(live);
        } else {
            self.index.clear();
        }
        // The direct index keeps no more room than the keys left pay for.
        let room = self.direct.len().min(direct_room(live));
        self.direct.clear();
        self.direct.resize(room, 0);
        if self.direct.capacity() > SHRINK_BEYOND * room.max(SWEEP_AT) {
            self.direct.shrink_to(room);
        }
        let entries = &self.entries;
        // Fewer entries than before, so every position fits.
        for (at, (key, _)) in (0u32..).zip(entries.iter()) {
            match key.slot().filter(|&k| k < room) {
                Some(k) => self.direct[k] = at + 1,
                None => {
                    self.index
                        .insert_unique(hash_of(key), at, |&at| hash_of(&entries[at as usize].0));
                }
            }
        }
    }

    /// The keys and values, in insertion order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, u64)> {
        self.entries
            .iter()
            .zip(&self.live)
            .filter(|(_, live)| **live)
            .map(|((k, v), _)| (k, *v))
    }

    /// The keys, in insertion order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        self.iter().map(|(k, _)| k)
    }

    /// Every key held, dead ones included: what the keys cost in memory.
    pub(crate) fn held_keys(&self) -> impl Iterator<Item = &K> {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values, in insertion order.
    pub(crate) fn values(&self) -> impl Iterator<Item = u64> + '_ {
        self.iter().map(|(_, v)| v)
    }

    /// The live values, to be rewritten: the collector's view. Dead values
    /// are never read again, so the collector need not keep what they point
    /// at.
    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut u64> {
        self.entries
            .iter_mut()
            .zip(&self.live)
            .filter(|(_, live)| **live)
            .map(|((_, v), _)| v)
    }

    /// The string a listing made of the key of the entry at `at`, or 0:
    /// see "Key strings" above.
    #[inline]
    pub(crate) fn key_string(&self, at: usize) -> u64 {
        self.strings.get(at).copied().unwrap_or(0)
    }

    /// How many places for key strings the map has: none until it is
    /// first listed, then one a held entry.
    pub(crate) fn key_string_slots(&self) -> usize {
        self.strings.len()
    }

    /// The strings listings made of the keys, by position (0 for none):
    /// for the collector to move, and for a listing to fill in, after
    /// [`Entries::hold_key_strings`].
    pub(crate) fn key_strings_mut(&mut self) -> &mut [u64] {
        &mut self.strings
    }

    /// Makes a place for the string of every entry's key, asking the host
    /// with `try_reserve`; on failure nothing is changed, and the error
    /// says how many bytes the host would not give.
    pub(crate) fn hold_key_strings(&mut self) -> Result<(), usize> {
        let more = self.entries.len().saturating_sub(self.strings.len());
        self.strings
            .try_reserve_exact(more)
            .map_err(|_| more.saturating_mul(8))?;
        self.strings.resize(self.entries.len(), 0);
        Ok(())
    }

    /// The live entries' positions and keys, in insertion order.
    pub(crate) fn live_keys(&self) -> impl Iterator<Item = (usize, &K)> {
        self.entries
            .iter()
            .zip(&self.live)
            .enumerate()
            .filter(|(_, (_, live))| **live)
            .map(|(at, ((k, _), _))| (at, k))
    }

    /// The entry at position `at` of the entries held (see [`Entries::held`]),
    /// or `None` if it is dead: for a walk that keeps a position between
    /// steps and must not mutate the map meanwhile.
    pub(crate) fn held_at(&self, at: usize) -> Option<(&K, u64)> {
        match self.live.get(at) {
            Some(true) => self.entries.get(at).map(|(k, v)| (k, *v)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(e: &Entries<i64>) -> Vec<i64> {
        e.keys().copied().collect()
    }

    /// Checks what every read must agree on: the direct index and the
    /// table between them know exactly the live entries, at their
    /// positions, each in the one its slot says; the direct index is no
    /// wider than the keys pay for; and the counts add up.
    fn check(e: &Entries<i64>) {
        let live: Vec<(i64, u64)> = e.iter().map(|(k, v)| (*k, v)).collect();
        assert_eq!(live.len(), e.len());
        let direct = e.direct.iter().filter(|&&at| at != 0).count();
        assert_eq!(e.index.len() + direct, e.len());
        assert!(
            e.direct.len() <= direct_room(e.held()),
            "{}",
            e.direct.len()
        );
        assert_eq!(e.held(), e.len() + e.dead);
        for (k, v) in &live {
            assert_eq!(e.get(k), Some(*v));
        }
        for at in 0..e.held() {
            if let Some((k, _)) = e.held_at(at) {
                match k.slot().filter(|&slot| slot < e.direct.len()) {
                    Some(slot) => {
                        assert_eq!(e.direct[slot] as usize, at + 1, "{k}");
                        assert_eq!(e.find(hash_of(k), k), None, "{k} in both");
                    }
                    None => assert_eq!(e.find(hash_of(k), k), Some(at), "{k}"),
                }
            }
        }
    }

    #[test]
    fn dense_keys_go_to_the_direct_index_and_sparse_or_negative_ones_to_the_table() {
        let mut e: Entries<i64> = Entries::default();
        // Keys set from the top down: the first ones are too far out for
        // a map so small and go to the table. A key past the direct index
        // that the map's size pays for widens it (at 500 keys, to 512
        // slots), and the table's keys below the new width move there.
        for k in (0..1000).rev() {
            assert_eq!(e.try_set(&k, k as u64, |k| *k), Ok(true));
        }
        check(&e);
        assert_eq!(e.direct.len(), 512);
        assert_eq!(e.index.len(), 1000 - 512);
        // Keys set from the bottom up go to the direct index, which
        // doubles as they come.
        let mut up: Entries<i64> = Entries::default();
        for k in 0..1000 {
            assert_eq!(up.try_set(&k, 1, |k| *k), Ok(true));
        }
        check(&up);
        assert_eq!((up.direct.len(), up.index.len()), (1024, 0));
        // Negative and far keys are hashed.
        for k in [-1, -5, i64::MIN, 1 << 40, i64::MAX] {
            assert_eq!(e.try_set(&k, 7, |k| *k), Ok(true));
            assert_eq!(e.get(&k), Some(7));
        }
        assert_eq!(e.index.len(), 1000 - 512 + 5);
        check(&e);
        // Removing most keys sweeps, and the sweep narrows the direct
        // index to what the 15 keys left pay for.
        for k in 0..990 {
            assert_eq!(e.remove(&k), Some(k as u64));
        }
        check(&e);
        assert_eq!(e.direct.len(), 32);
        assert_eq!(e.get(&999), Some(999));
        assert_eq!(keys(&e)[..3], [999, 998, 997]);
        // A key removed from the direct index and set again goes last.
        assert_eq!(e.remove(&995), Some(995));
        assert_eq!(e.try_set(&995, 1, |k| *k), Ok(true));
        assert_eq!(keys(&e).last(), Some(&995));
        assert_eq!(e.remove(&3), None);
        check(&e);
    }

    #[test]
    fn removal_keeps_the_order_of_the_rest_and_a_key_set_again_goes_last() {
        let mut e = Entries::default();
        for k in 0..5 {
            assert_eq!(e.try_set(&k, k as u64 * 10, |k| *k), Ok(true));
        }
        assert_eq!(e.remove(&1), Some(10));
        assert_eq!(e.remove(&1), None);
        assert_eq!(e.get(&1), None);
        assert_eq!(keys(&e), [0, 2, 3, 4]);
        assert_eq!(e.try_set(&3, 33, |k| *k), Ok(false));
        assert_eq!(e.try_set(&1, 11, |k| *k), Ok(true));
        assert_eq!(keys(&e), [0, 2, 3, 4, 1]);
        assert_eq!(e.get(&3), Some(33));
        assert_eq!(e.get(&1), Some(11));
        assert_eq!(e.len(), 5);
        // The dead entry of 1 is still held, at its old place.
        assert_eq!(e.held(), 6);
        assert_eq!(e.held_at(1), None);
        assert_eq!(e.held_at(5), Some((&1, 11)));
        check(&e);
    }

    #[test]
    fn interleaved_sets_removals_and_sets_again_keep_insertion_order() {
        let mut e = Entries::default();
        // A plain model: a vector of live (key, value) in order.
        let mut model: Vec<(i64, u64)> = Vec::new();
        let mut x: u64 = 7;
        for step in 0..20_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let k = (x >> 33) as i64 % 64;
            if (x >> 20) % 3 == 0 {
                let at = model.iter().position(|(m, _)| *m == k);
                let want = at.map(|at| model.remove(at).1);
                assert_eq!(e.remove(&k), want);
            } else {
                let new = match model.iter_mut().find(|(m, _)| *m == k) {
                    Some(entry) => {
                        entry.1 = step;
                        false
                    }
                    None => {
                        model.push((k, step));
                        true
                    }
                };
                assert_eq!(e.try_set(&k, step, |k| *k), Ok(new));
            }
            let got: Vec<(i64, u64)> = e.iter().map(|(k, v)| (*k, v)).collect();
            assert_eq!(got, model);
        }
        check(&e);
    }

    #[test]
    fn a_sweep_keeps_the_order_of_the_live_entries() {
        let mut e = Entries::default();
        for k in 0..100i64 {
            assert!(e.try_set(&k, k as u64, |k| *k).is_ok());
        }
        // Remove three keys in four, setting every tenth key again right
        // after its removal, until past a sweep.
        let mut swept = false;
        for k in (0..100i64).filter(|k| k % 4 != 1) {
            let before = e.held();
            e.remove(&k);
            swept |= e.held() < before;
            if k % 10 == 0 {
                assert!(e.try_set(&k, 1000 + k as u64, |k| *k).is_ok());
            }
        }
        assert!(swept, "no sweep happened");
        // The untouched keys in their first order, then the keys set again
        // in the order they were set again.
        let mut want: Vec<i64> = (0..100).filter(|k| k % 4 == 1).collect();
        want.extend((0..100).step_by(10));
        assert_eq!(keys(&e), want);
        assert_eq!(e.get(&20), Some(1020));
        assert_eq!(e.get(&21), Some(21));
        assert_eq!(e.get(&22), None);
        check(&e);
    }

    #[test]
    fn emptying_a_big_map_from_the_front_sweeps_the_dead_as_it_goes() {
        let mut e = Entries::default();
        for k in 0..100_000i64 {
            assert!(e.try_set(&k, 0, |k| *k).is_ok());
        }
        for k in 0..99_990i64 {
            assert_eq!(e.remove(&k), Some(0));
        }
        assert_eq!(keys(&e), (99_990..100_000).collect::<Vec<_>>());
        assert!(e.held() < 2 * e.len() + SWEEP_AT, "held {}", e.held());
        // And the room of the hundred thousand is given back, all but what
        // the last few sweeps left (their capacity is within
        // `SHRINK_BEYOND` times what they kept).
        assert!(e.entries.capacity() < 1000, "{}", e.entries.capacity());
        assert!(e.index.capacity() < 1000, "{}", e.index.capacity());
        check(&e);
    }

    #[test]
    fn a_remove_and_set_again_loop_holds_a_bounded_number_of_entries() {
        let mut e = Entries::default();
        for k in 0..1000i64 {
            assert!(e.try_set(&k, k as u64, |k| *k).is_ok());
        }
        let mut most = 0;
        for i in 0..100_000u64 {
            let k = (i * 7919 % 1000) as i64;
            let v = e.remove(&k).expect("every key is live");
            assert_eq!(e.try_set(&k, v + 1, |k| *k), Ok(true));
            most = most.max(e.held());
        }
        assert_eq!(e.len(), 1000);
        assert!(most <= 2 * 1000 + SWEEP_AT, "held up to {most}");
        assert!(e.entries.capacity() <= 4 * 1000, "{}", e.entries.capacity());
        // Each key was touched a hundred times.
        assert!(e.values().all(|v| v >= 100));
        check(&e);
    }

    #[test]
    fn string_keys_are_found_by_their_bytes() {
        let mut e: Entries<crate::heap::StrKey> = Entries::default();
        for i in 0..50 {
            let key = format!("k{i}");
            assert_eq!(e.try_set(key.as_bytes(), i, |k: &[u8]| k.into()), Ok(true));
        }
        // A key longer than the 24 bytes an entry holds inline is found
        // by its bytes too, and is not one of its 24-byte prefix.
        let long = "a key of more than twenty-four bytes".as_bytes();
        assert_eq!(e.try_set(long, 7, |k: &[u8]| k.into()), Ok(true));
        assert_eq!(e.get(long), Some(7));
        assert_eq!(e.get(&long[..24]), None);
        assert_eq!(e.remove(long), Some(7));
        assert_eq!(e.remove(b"k3".as_slice()), Some(3));
        assert_eq!(
            e.try_set(b"k3".as_slice(), 33, |k: &[u8]| k.into()),
            Ok(true)
        );
        assert_eq!(
            e.try_set(b"k4".as_slice(), 44, |k: &[u8]| k.into()),
            Ok(false)
        );
        assert_eq!(e.get(b"k3".as_slice()), Some(33));
        assert_eq!(e.get(b"k4".as_slice()), Some(44));
        assert_eq!(e.keys().last().map(|k| &k[..]), Some(b"k3".as_slice()));
        // The dead entry's key is still held, and counted.
        assert_eq!(e.held_keys().count(), 52);
    }

    #[test]
    fn a_key_string_is_forgotten_by_its_removal_and_every_one_by_a_sweep() {
        let mut e: Entries<crate::heap::StrKey> = Entries::default();
        for i in 0..40 {
            let key = format!("k{i}");
            assert_eq!(e.try_set(key.as_bytes(), i, |k: &[u8]| k.into()), Ok(true));
        }
        // A map never listed has no place for the strings.
        assert_eq!((e.key_strings_mut().len(), e.key_string(3)), (0, 0));
        // A listing remembers a string for every entry.
        assert_eq!(e.hold_key_strings(), Ok(()));
        for (at, string) in e.key_strings_mut().iter_mut().enumerate() {
            *string = 1000 + at as u64;
        }
        assert_eq!(e.key_string(3), 1003);
        // A key set after the listing has none yet.
        assert_eq!(
            e.try_set(b"new".as_slice(), 1, |k: &[u8]| k.into()),
            Ok(true)
        );
        assert_eq!(e.key_string(40), 0);
        // A removal forgets its entry's string and no other.
        assert_eq!(e.remove(b"k3".as_slice()), Some(3));
        assert_eq!((e.key_string(3), e.key_string(4)), (0, 1004));
        // Enough removals to sweep: the entries move, and every string is
        // forgotten.
        for i in 4..30 {
            assert_eq!(e.remove(format!("k{i}").as_bytes()), Some(i));
        }
        assert!(e.held() < 41, "{}", e.held());
        assert!((0..e.held()).all(|at| e.key_string(at) == 0));
        assert_eq!(e.key_strings_mut().len(), 0);
        // The positions of the live keys, in order.
        let live: Vec<usize> = e.live_keys().map(|(at, _)| at).collect();
        let expected: Vec<usize> = (0..e.held())
            .filter(|&at| e.held_at(at).is_some())
            .collect();
        assert_eq!((live.len(), live), (e.len(), expected));
    }
}
