//! Division by a constant without the divider: `div.int.imm` and
//! `rem.int.imm` by a multiplication and shifts, as compilers divide by a
//! literal.
//!
//! A hardware division of 64-bit integers takes ten to forty cycles,
//! where everything else an `Int` instruction does takes one or two, and
//! `i % 7` or `seed % 2147483648` is in the innermost loop of half the
//! benchmarks people write. A compiler that sees the literal replaces the
//! division by a multiplication by the divisor's reciprocal, scaled to an
//! integer (Granlund and Montgomery, "Division by invariant integers using
//! multiplication", 1994). The dispatch loop cannot, because one handler
//! serves every divisor; so the reciprocals of the divisors a program uses
//! are worked out once, when the run starts, and the handler looks its
//! divisor up.
//!
//! # Why a table keyed by the divisor, and not by the instruction
//!
//! A `div.int.imm` has room for its divisor and nothing more (an
//! instruction is 12 bytes; a reciprocal is 8 more), and a table indexed by
//! the instruction's place would cost the handler the arithmetic that finds
//! the place. The divisor is in hand: its low bits pick one of
//! [`SLOTS`] slots, which holds the reciprocal of one divisor with those
//! bits. A divisor that finds its slot taken by another, or that has no
//! reciprocal worth having (1), is divided by the hardware, as before:
//! the table only ever makes a division faster, never different.
//!
//! # The arithmetic
//!
//! The handler divides magnitudes and puts the signs back, which is
//! truncation toward zero, Cove's (and Rust's) rule; a magnitude of an
//! `Int` is at most 2^63. For a divisor `d` ≥ 2 and `l = ⌈log₂ d⌉`, the
//! multiplier `m = ⌈2^(63+l) / d⌉` is below 2^64 (since `d > 2^(l−1)`) and
//! satisfies `2^(63+l) ≤ m·d < 2^(63+l) + 2^l`, so that `⌊n·m / 2^(63+l)⌋ =
//! ⌊n / d⌋` for every `n < 2^63` (the paper's theorem 4.2, for 63-bit
//! numbers). It holds for `n = 2^63` too, where the quotient is `⌊m /
//! 2^l⌋`: for a power of two `m / 2^l` is `2^63/d` itself, and otherwise it
//! lies in `[2^63/d, 2^63/d + 2^−l)`, which holds no integer, since the
//! fraction of `2^63/d` is at most `(d−1)/d` and `2^−l < 1/d`.
//! So a quotient is one multiplication's high half and one shift. The
//! tests compare every path against the hardware's answer.
//!
//! What it costs: 2 KiB a run, built from the program's instructions
//! before the first one runs.

use cove_ir::program::Program;

/// How many divisors the table holds: a power of two, indexed by a
/// divisor's low bits.
pub(crate) const SLOTS: usize = 128;

/// The reciprocal of one divisor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Reciprocal {
    /// The divisor, or 0 (which no `div.int.imm` has) in an empty slot.
    divisor: i32,
    /// `l − 1`, for `l = ⌈log₂ |divisor|⌉`.
    shift: u32,
    /// The multiplier, `⌈2^(63+l) / |divisor|⌉`.
    magic: u64,
}

impl Reciprocal {
    /// The reciprocal of `divisor`, or none where the hardware must divide:
    /// 0 and -1 (which the verifier keeps out of the constant forms) and
    /// ±1 (which needs no division, and whose quotient can be `Int.MIN`'s
    /// magnitude).
    fn of(divisor: i32) -> Option<Reciprocal> {
        let d = u64::from(divisor.unsigned_abs());
        if d < 2 {
            return None;
        }
        let l = 64 - (d - 1).leading_zeros();
        // `m = ⌈2^(63+l) / d⌉`, below 2^64 since d > 2^(l−1).
        let m = (1u128 << (63 + l)).div_ceil(u128::from(d));
        Some(Reciprocal {
            divisor,
            shift: l - 1,
            magic: m as u64,
        })
    }

    /// `⌊n / |divisor|⌋` for any `n` up to 2^63.
    #[inline(always)]
    fn quotient(self, n: u64) -> u64 {
        (((u128::from(n) * u128::from(self.magic)) >> 64) as u64) >> self.shift
    }
}

/// The reciprocals of a program's constant divisors.
#[derive(Debug, Clone)]
pub(crate) struct Divisors {
    slots: Box<[Reciprocal; SLOTS]>,
}

/// The slot a divisor's reciprocal is kept in.
#[inline(always)]
fn slot(divisor: i32) -> usize {
    divisor as u32 as usize % SLOTS
}

impl Divisors {
    /// The table for every `div.int.imm` and `rem.int.imm` of `program`:
    /// the first divisor to reach a slot keeps it.
    pub(crate) fn of(program: &Program) -> Divisors {
        Divisors::of_divisors(
            program
                .functions
                .iter()
                .flat_map(|f| f.code.iter())
                .filter_map(|instr| instr.constant_divisor()),
        )
    }

    /// The table for `divisors`, in that order.
    fn of_divisors(divisors: impl IntoIterator<Item = i32>) -> Divisors {
        let mut slots = Box::new([Reciprocal::default(); SLOTS]);
        for divisor in divisors {
            let cell = &mut slots[slot(divisor)];
            if cell.divisor == 0
                && let Some(reciprocal) = Reciprocal::of(divisor)
            {
                *cell = reciprocal;
            }
        }
        Divisors { slots }
    }

    /// `a / divisor`, truncated toward zero.
    ///
    /// # Safety
    ///
    /// `divisor` is neither 0 nor -1 (the verifier's *divisor*).
    #[inline(always)]
    pub(crate) unsafe fn div(&self, a: i64, divisor: i32) -> i64 {
        let r = self.slots[slot(divisor)];
        if r.divisor != divisor {
            // SAFETY: the caller vouches that the divisor is neither 0 nor
            // -1, the only two for which this is `None`.
            return unsafe { a.checked_div(i64::from(divisor)).unwrap_unchecked() };
        }
        // The quotient's magnitude is at most 2^62 (the divisor is at
        // least 2), so it and its negation fit.
        // A branch on the dividend's sign, not a select: a loop's dividends
        // mostly keep theirs, and the select lay on the result's path.
        let q = if a >= 0 {
            r.quotient(a as u64) as i64
        } else {
            -(r.quotient(a.unsigned_abs()) as i64)
        };
        if divisor < 0 { -q } else { q }
    }

    /// `a % divisor`, with the sign of `a`.
    ///
    /// # Safety
    ///
    /// `divisor` is neither 0 nor -1 (the verifier's *divisor*).
    #[inline(always)]
    pub(crate) unsafe fn rem(&self, a: i64, divisor: i32) -> i64 {
        let r = self.slots[slot(divisor)];
        if r.divisor != divisor {
            // SAFETY: as for `div`.
            return unsafe { a.checked_rem(i64::from(divisor)).unwrap_unchecked() };
        }
        let d = u64::from(divisor.unsigned_abs());
        // Below the divisor, so it fits, and so does its negation. A
        // branch on the dividend's sign, as in `div`.
        let m = |n: u64| (n - r.quotient(n) * d) as i64;
        if a >= 0 {
            m(a as u64)
        } else {
            -m(a.unsigned_abs())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dividends at every edge: the extremes, around 0, around powers of
    /// two and multiples of the divisor, and a spread of others.
    fn dividends(divisor: i32) -> Vec<i64> {
        let d = i64::from(divisor);
        let mut xs = vec![i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1, -1, 0, 1];
        for k in 0..64 {
            let p = 1i64.wrapping_shl(k);
            xs.extend([p, p.wrapping_sub(1), p.wrapping_add(1), p.wrapping_neg()]);
        }
        for k in [1i64, 2, 3, 1000, 1 << 20, i64::MAX / d.abs().max(1)] {
            let m = d.saturating_mul(k);
            xs.extend([
                m,
                m.saturating_sub(1),
                m.saturating_add(1),
                m.saturating_neg(),
            ]);
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64 ^ divisor as u64;
        for _ in 0..200 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            xs.push(seed as i64);
            xs.push((seed >> (seed % 63)) as i64);
        }
        xs
    }

    fn divisors_to_try() -> Vec<i32> {
        let mut ds: Vec<i32> = (-300..=300).filter(|d| *d != 0 && *d != -1).collect();
        for k in 1..31 {
            let p = 1i32 << k;
            ds.extend([p, p - 1, p + 1, -p, -p + 1, -p - 1]);
        }
        ds.extend([
            i32::MAX,
            i32::MIN,
            i32::MIN + 1,
            1000,
            1_000_000,
            2_147_483_647,
        ]);
        ds
    }

    #[test]
    fn a_reciprocal_divides_every_dividend_as_the_hardware_does() {
        for divisor in divisors_to_try() {
            let Some(r) = Reciprocal::of(divisor) else {
                assert!(divisor.unsigned_abs() < 2, "no reciprocal of {divisor}");
                continue;
            };
            // One divisor a table, so that it always has its slot.
            let mut slots = Box::new([Reciprocal::default(); SLOTS]);
            slots[slot(divisor)] = r;
            let table = Divisors { slots };
            for a in dividends(divisor) {
                let d = i64::from(divisor);
                assert_eq!(
                    divided(&table, a, divisor),
                    (a / d, a % d),
                    "{a} by {divisor}"
                );
            }
        }
    }

    /// Both answers of `table` for `a` by `divisor`.
    fn divided(table: &Divisors, a: i64, divisor: i32) -> (i64, i64) {
        assert!(divisor != 0 && divisor != -1);
        // SAFETY: the divisor is neither 0 nor -1, asserted.
        unsafe { (table.div(a, divisor), table.rem(a, divisor)) }
    }

    #[test]
    fn every_divisor_up_to_2_to_the_16_divides_the_largest_magnitudes_exactly() {
        for divisor in 2..=1 << 16 {
            let table = Divisors::of_divisors([divisor]);
            let d = i64::from(divisor);
            let top = i64::MAX / d * d;
            for a in [
                i64::MIN,
                i64::MIN + 1,
                i64::MAX,
                top,
                top - 1,
                -top,
                1 - top,
            ] {
                assert_eq!(
                    divided(&table, a, divisor),
                    (a / d, a % d),
                    "{a} by {divisor}"
                );
                assert_eq!(
                    divided(&table, a, -divisor),
                    (a / -d, a % -d),
                    "{a} by -{divisor}"
                );
            }
        }
    }

    #[test]
    fn a_divisor_without_its_slot_is_divided_by_the_hardware() {
        // 7 and 135 share a slot; 7 came first.
        let mut slots = Box::new([Reciprocal::default(); SLOTS]);
        slots[slot(7)] = Reciprocal::of(7).unwrap();
        let table = Divisors { slots };
        assert_eq!(slot(7), slot(135));
        for a in dividends(135) {
            assert_eq!(divided(&table, a, 135), (a / 135, a % 135));
        }
        // 1 has no reciprocal and is divided as it is.
        assert_eq!(divided(&table, i64::MIN, 1), (i64::MIN, 0));
    }
}
