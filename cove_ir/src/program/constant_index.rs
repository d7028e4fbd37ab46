//! The constant pool's hash index, so [`Program::intern_constant`] finds a
//! constant in one lookup.
//!
//! A linear search of the pool made interning quadratic over a program
//! with thousands of string literals. The index is a cache derived from
//! [`Program::constants`], which stays a public `Vec` that the parser, the
//! tests and a hand-built program may push to directly; so rather than own
//! the pool, the index catches up on entries pushed since it last looked,
//! and every hit is checked against the pool, so an entry changed in place
//! costs a rebuild, never a wrong id. It costs one hash entry a constant.
//! Two programs compare equal whatever their indexes hold.
//!
//! [`Program::intern_constant`]: super::Program::intern_constant
//! [`Program::constants`]: super::Program::constants

use std::collections::HashMap;
use std::fmt;

use super::{ConstId, Constant};

/// A constant as a hashable key: a Float by its bits, so `-0.0`, `0.0`
/// and each NaN are distinct constants, as the pool keeps them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Int(i64),
    Float(u64),
    Str(String),
    Function(u32),
}

impl Key {
    fn of(c: &Constant) -> Key {
        match c {
            Constant::Int(i) => Key::Int(*i),
            Constant::Float(f) => Key::Float(f.to_bits()),
            Constant::Str(s) => Key::Str(s.clone()),
            Constant::Function(f) => Key::Function(f.0),
        }
    }
}

/// The index of a constant pool: each constant's first position.
#[derive(Clone, Default)]
pub(crate) struct ConstantIndex {
    first: HashMap<Key, ConstId>,
    /// How many entries of the pool `first` covers.
    covered: usize,
}

impl ConstantIndex {
    /// The id of `constant` in `pool`, pushing it if it is new.
    pub(crate) fn intern(&mut self, pool: &mut Vec<Constant>, constant: Constant) -> ConstId {
        if self.covered > pool.len() {
            *self = ConstantIndex::default();
        }
        let key = Key::of(&constant);
        if let Some(&id) = self.first.get(&key) {
            if pool.get(id.0 as usize).map(Key::of).as_ref() == Some(&key) {
                return id;
            }
            // The pool was changed in place: start again from it.
            *self = ConstantIndex::default();
        }
        self.catch_up(pool);
        if let Some(&id) = self.first.get(&key) {
            return id;
        }
        pool.push(constant);
        self.catch_up(pool);
        ConstId(pool.len() as u32 - 1)
    }

    /// Indexes the entries pushed to `pool` since the last call.
    fn catch_up(&mut self, pool: &[Constant]) {
        for (i, c) in pool.iter().enumerate().skip(self.covered) {
            self.first.entry(Key::of(c)).or_insert(ConstId(i as u32));
        }
        self.covered = pool.len();
    }
}

/// The index is derived from the pool, so it never makes two programs differ.
impl PartialEq for ConstantIndex {
    fn eq(&self, _: &ConstantIndex) -> bool {
        true
    }
}

impl fmt::Debug for ConstantIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ConstantIndex({} of the pool)", self.covered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_finds_a_constant_pushed_to_the_pool_directly() {
        let mut pool = vec![Constant::Int(7)];
        let mut index = ConstantIndex::default();
        assert_eq!(index.intern(&mut pool, Constant::Int(7)), ConstId(0));
        pool.push(Constant::Str("a".into()));
        assert_eq!(
            index.intern(&mut pool, Constant::Str("a".into())),
            ConstId(1)
        );
        assert_eq!(index.intern(&mut pool, Constant::Float(1.0)), ConstId(2));
        assert_eq!(pool.len(), 3);
    }

    #[test]
    fn a_pool_changed_in_place_never_yields_a_wrong_id() {
        let mut pool = Vec::new();
        let mut index = ConstantIndex::default();
        assert_eq!(index.intern(&mut pool, Constant::Int(1)), ConstId(0));
        pool[0] = Constant::Int(2);
        let id = index.intern(&mut pool, Constant::Int(1));
        assert_eq!(pool[id.0 as usize], Constant::Int(1));
        assert_eq!(index.intern(&mut pool, Constant::Int(2)), ConstId(0));
        pool.clear();
        assert_eq!(index.intern(&mut pool, Constant::Int(2)), ConstId(0));
    }

    #[test]
    fn floats_are_interned_by_their_bits() {
        let mut pool = Vec::new();
        let mut index = ConstantIndex::default();
        let zero = index.intern(&mut pool, Constant::Float(0.0));
        let negative_zero = index.intern(&mut pool, Constant::Float(-0.0));
        assert_ne!(zero, negative_zero);
        let nan = index.intern(&mut pool, Constant::Float(f64::NAN));
        assert_eq!(index.intern(&mut pool, Constant::Float(f64::NAN)), nan);
    }
}
