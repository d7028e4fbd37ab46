//! [`Cost`]: the four figures every row of a profile carries.
//!
//! One small `Copy` struct rather than four parallel tables, because every
//! place that moves a cost — the hot path, the calling-context tree, the
//! reports, the diff — moves all four at once, and a struct of four `u64`s
//! is one cache line's half.

#[cfg(feature = "reports")]
use serde::{Deserialize, Serialize};

/// What one instruction of a run cost, summed over every time it ran.
///
/// The same shape sums a function, an opcode, a line or a whole run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "reports", derive(Serialize, Deserialize))]
pub struct Cost {
    /// How often it ran. Exact.
    pub ran: u64,
    /// Nanoseconds spent running it, the profiler's own floor included.
    ///
    /// Every instruction pays the same floor (two clock reads and the way in
    /// and out of the hook), so this is worth reading against `ran` and
    /// against other rows, never on its own. See [`crate::Floor`].
    pub nanos: u64,
    /// Words the task's heap handed out while it ran. Exact.
    pub words: u64,
    /// Objects the task's heap handed out while it ran. Exact.
    pub allocations: u64,
}

impl Cost {
    /// Everything in `other` added to this.
    pub fn add(&mut self, other: &Cost) {
        self.ran += other.ran;
        self.nanos += other.nanos;
        self.words += other.words;
        self.allocations += other.allocations;
    }

    /// What is in this and not in `earlier`: the cost of an interval, given
    /// two running totals. Saturating, so a total read out of order never
    /// wraps into a huge number.
    pub fn since(&self, earlier: &Cost) -> Cost {
        Cost {
            ran: self.ran.saturating_sub(earlier.ran),
            nanos: self.nanos.saturating_sub(earlier.nanos),
            words: self.words.saturating_sub(earlier.words),
            allocations: self.allocations.saturating_sub(earlier.allocations),
        }
    }

    /// Nanoseconds per instruction, or 0 for a row that never ran.
    pub fn nanos_per_instruction(&self) -> f64 {
        if self.ran == 0 {
            0.0
        } else {
            self.nanos as f64 / self.ran as f64
        }
    }

    /// The nanoseconds left when `floor` nanoseconds are taken from every
    /// instruction: an estimate, never an exact figure, and never below zero.
    pub fn nanos_net_of(&self, floor: f64) -> f64 {
        (self.nanos as f64 - floor * self.ran as f64).max(0.0)
    }

    /// Whether nothing at all was recorded here.
    pub fn is_empty(&self) -> bool {
        *self == Cost::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adding_a_cost_adds_each_figure() {
        let mut a = Cost {
            ran: 1,
            nanos: 2,
            words: 3,
            allocations: 4,
        };
        a.add(&Cost {
            ran: 10,
            nanos: 20,
            words: 30,
            allocations: 40,
        });
        assert_eq!(
            a,
            Cost {
                ran: 11,
                nanos: 22,
                words: 33,
                allocations: 44
            }
        );
    }

    #[test]
    fn an_interval_of_two_totals_is_their_difference_and_never_wraps() {
        let late = Cost {
            ran: 5,
            nanos: 50,
            words: 8,
            allocations: 2,
        };
        let early = Cost {
            ran: 2,
            nanos: 60,
            words: 3,
            allocations: 1,
        };
        assert_eq!(
            late.since(&early),
            Cost {
                ran: 3,
                nanos: 0,
                words: 5,
                allocations: 1
            }
        );
    }

    #[test]
    fn time_net_of_the_floor_never_goes_below_zero() {
        let c = Cost {
            ran: 10,
            nanos: 150,
            words: 0,
            allocations: 0,
        };
        assert_eq!(c.nanos_net_of(10.0), 50.0);
        assert_eq!(c.nanos_net_of(20.0), 0.0);
        assert_eq!(Cost::default().nanos_per_instruction(), 0.0);
    }
}
