//! The hash function of Cove maps: a multiply-and-rotate hash in the style of
//! rustc's `FxHasher`.
//!
//! Map keys are integers, booleans and strings a program chose, hashed in a
//! process that is not serving adversaries, so speed wins over the flooding
//! resistance of the standard library's SipHash (which costs a map-heavy
//! benchmark about a third of its time). Written here because it is twenty
//! lines and no dependency of the workspace provides it.

use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// A fast, non-cryptographic hasher.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_i64(&mut self, n: i64) {
        self.add(n as u64);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    /// The state, rotated: a product's high bits are its well-mixed ones,
    /// and the table picks its bucket from the low bits, which without the
    /// rotation depend only on the low bytes of the key (for `"w1234"`, on
    /// the `w`), so every key of a shape would share a bucket.
    #[inline]
    fn finish(&self) -> u64 {
        self.hash.rotate_left(26)
    }
}

/// Builds [`FxHasher`]s, for the maps' entries.
pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;
