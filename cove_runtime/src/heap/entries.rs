//! The entries of one map: insertion-ordered, with removal in constant time.
//!
//! An `IndexMap` keeps insertion order, but its order-keeping removal
//! (`shift_remove`) moves every later entry down a slot, so emptying a map
//! of a hundred thousand entries from the front takes billions of moves.
//! Here a removal only marks its entry dead (a tombstone, as CPython's dict
//! does) and the dead entries are swept out in one pass once they are as
//! many as the live ones, so a removal costs constant time amortised and the
//! order of the rest never changes. Every read skips the dead.
//!
//! A key removed and then set again goes to the end, as a new key does: its
//! dead entry is taken out of the middle first, which is the one case that
//! still moves the entries after it.

use std::borrow::Borrow;
use std::hash::Hash;

use indexmap::IndexMap;

use super::hash::FxBuild;

/// An entry's value, and whether it was removed.
#[derive(Debug, Clone, Copy)]
struct Slot {
    value: u64,
    live: bool,
}

/// A map's entries: see the module documentation.
#[derive(Debug, Clone)]
pub(crate) struct Entries<K> {
    map: IndexMap<K, Slot, FxBuild>,
    /// How many entries of `map` are dead.
    dead: usize,
}

impl<K> Default for Entries<K> {
    fn default() -> Entries<K> {
        Entries {
            map: IndexMap::default(),
            dead: 0,
        }
    }
}

/// Dead entries are swept out once there are at least this many and they
/// are as many as the live ones.
const SWEEP_AT: usize = 16;

impl<K: Hash + Eq> Entries<K> {
    /// How many keys the map has.
    pub(crate) fn len(&self) -> usize {
        self.map.len() - self.dead
    }

    /// How many entries it holds, dead ones included: what it costs in
    /// memory.
    pub(crate) fn held(&self) -> usize {
        self.map.len()
    }

    /// The value of `key`.
    pub(crate) fn get<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> Option<u64>
    where
        K: Borrow<Q>,
    {
        self.map.get(key).filter(|s| s.live).map(|s| s.value)
    }

    /// Whether `key` is in the map.
    pub(crate) fn contains_key<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.get(key).is_some()
    }

    /// Sets `key` to `value`, making the owned key with `own` only if the
    /// key is new: whether it is.
    pub(crate) fn set<Q: Hash + Eq + ?Sized>(
        &mut self,
        key: &Q,
        value: u64,
        own: impl FnOnce(&Q) -> K,
    ) -> bool
    where
        K: Borrow<Q>,
    {
        match self.map.get_index_of(key) {
            Some(i) if self.map[i].live => {
                self.map[i].value = value;
                false
            }
            Some(i) => {
                // Removed before: set again, it goes to the end.
                self.map.shift_remove_index(i);
                self.dead -= 1;
                self.map.insert(own(key), Slot { value, live: true });
                true
            }
            None => {
                self.map.insert(own(key), Slot { value, live: true });
                true
            }
        }
    }

    /// Removes `key`; its value, if it was there.
    pub(crate) fn remove<Q: Hash + Eq + ?Sized>(&mut self, key: &Q) -> Option<u64>
    where
        K: Borrow<Q>,
    {
        let slot = self.map.get_mut(key).filter(|s| s.live)?;
        slot.live = false;
        let value = slot.value;
        self.dead += 1;
        if self.dead >= SWEEP_AT && self.dead * 2 >= self.map.len() {
            self.map.retain(|_, s| s.live);
            self.dead = 0;
        }
        Some(value)
    }

    /// The keys and values, in insertion order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, u64)> {
        self.map
            .iter()
            .filter(|(_, s)| s.live)
            .map(|(k, s)| (k, s.value))
    }

    /// The keys, in insertion order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        self.iter().map(|(k, _)| k)
    }

    /// The values, in insertion order.
    pub(crate) fn values(&self) -> impl Iterator<Item = u64> + '_ {
        self.iter().map(|(_, v)| v)
    }

    /// The live values, to be rewritten: the collector's view. Dead values
    /// are never read again, so the collector need not keep what they point
    /// at.
    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut u64> {
        self.map
            .values_mut()
            .filter(|s| s.live)
            .map(|s| &mut s.value)
    }

    /// The entry at position `at` of the entries held (see [`Entries::held`]),
    /// or `None` if it is dead: for a walk that keeps a position between
    /// steps and must not mutate the map meanwhile.
    pub(crate) fn held_at(&self, at: usize) -> Option<(&K, u64)> {
        self.map
            .get_index(at)
            .filter(|(_, s)| s.live)
            .map(|(k, s)| (k, s.value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(e: &Entries<i64>) -> Vec<i64> {
        e.keys().copied().collect()
    }

    #[test]
    fn removal_keeps_the_order_of_the_rest_and_a_key_set_again_goes_last() {
        let mut e = Entries::default();
        for k in 0..5 {
            assert!(e.set(&k, k as u64 * 10, |k| *k));
        }
        assert_eq!(e.remove(&1), Some(10));
        assert_eq!(e.remove(&1), None);
        assert_eq!(keys(&e), [0, 2, 3, 4]);
        assert!(!e.set(&3, 33, |k| *k));
        assert!(e.set(&1, 11, |k| *k));
        assert_eq!(keys(&e), [0, 2, 3, 4, 1]);
        assert_eq!(e.get(&3), Some(33));
        assert_eq!(e.len(), 5);
    }

    #[test]
    fn emptying_a_big_map_from_the_front_sweeps_the_dead_as_it_goes() {
        let mut e = Entries::default();
        for k in 0..100_000i64 {
            e.set(&k, 0, |k| *k);
        }
        for k in 0..99_990i64 {
            assert_eq!(e.remove(&k), Some(0));
        }
        assert_eq!(keys(&e), (99_990..100_000).collect::<Vec<_>>());
        assert!(e.held() < 2 * e.len() + SWEEP_AT, "held {}", e.held());
    }
}
