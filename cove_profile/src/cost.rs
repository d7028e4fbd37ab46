//! [`Cost`]: the four figures every row of a profile carries, and
//! [`Charge`]: a cost with the time a task spent blocked beside it.
//!
//! `Cost` is one small `Copy` struct rather than parallel tables, because
//! every place that moves a cost — the hot path, the calling-context tree,
//! the reports, the diff — moves them all at once. Its four public fields
//! are a contract: code outside the crate builds `Cost { ran, nanos, words,
//! allocations }` literals, so no figure is added to it.
//!
//! Blocked time — nanoseconds parked in a `join` or a `recv` — is 0 on every
//! row but the few that waited, and lives in [`Charge`], which is what the
//! shards, the calling-context tree and the reports keep: a `Cost` and a
//! `blocked` figure, forty bytes, still one cache line. It reads as its
//! `Cost` wherever a reader wants only the four (it dereferences to it), so
//! only the code that records or shows the fifth figure names it; in JSON
//! it is the one object a cost always was. A separate table of blocked time would save eight bytes a row at the
//! price of a second sum in every grouping; putting it back in `Cost` would
//! break every literal of the contract.

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

/// A [`Cost`] and the time the task spent blocked in it: what a row of a
/// profile, a calling context or a JSON cost holds.
///
/// In JSON it is one object, the cost's four figures and `blocked` after
/// them; `blocked` is left out where it is 0 (so a profile of a run that
/// never waited reads as it did before the figure was kept), and read as 0
/// where it is missing.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "reports",
    derive(Serialize, Deserialize),
    serde(from = "Figures", into = "Figures")
)]
pub struct Charge {
    /// The four figures of the contract.
    pub cost: Cost,
    /// Nanoseconds the task spent blocked in it — parked in a `join` or a
    /// `recv` — rather than running: wall time, measured by the runtime
    /// only while the task is parked
    /// ([`Stop::blocked_nanos`](cove_runtime::vm::debug::Stop::blocked_nanos)),
    /// and never part of `nanos` (an interval clock's interval has it
    /// taken off; processor time never had it). 0 for an instruction that
    /// never waited, which is every instruction but a `join` or `recv`.
    pub blocked: u64,
}

/// A [`Charge`] as JSON holds it: the five figures side by side in one
/// object. Written and read through this flat twin rather than with
/// `#[serde(flatten)]` on the cost, because serde reads a flattened struct
/// by buffering every field of the object first, which a profile's
/// hundreds of thousands of costs would pay for on every read.
#[cfg(feature = "reports")]
#[derive(Serialize, Deserialize)]
struct Figures {
    ran: u64,
    nanos: u64,
    words: u64,
    allocations: u64,
    /// Left out where 0, and read as 0 where missing.
    #[serde(default, skip_serializing_if = "is_zero")]
    blocked: u64,
}

#[cfg(feature = "reports")]
impl From<Figures> for Charge {
    fn from(f: Figures) -> Charge {
        Charge {
            cost: Cost {
                ran: f.ran,
                nanos: f.nanos,
                words: f.words,
                allocations: f.allocations,
            },
            blocked: f.blocked,
        }
    }
}

#[cfg(feature = "reports")]
impl From<Charge> for Figures {
    fn from(c: Charge) -> Figures {
        Figures {
            ran: c.cost.ran,
            nanos: c.cost.nanos,
            words: c.cost.words,
            allocations: c.cost.allocations,
            blocked: c.blocked,
        }
    }
}

/// Whether a figure is 0: the figures JSON leaves out then.
#[cfg(feature = "reports")]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Charge {
    /// Everything in `other` added to this, blocked time included.
    pub fn add(&mut self, other: &Charge) {
        self.cost.add(&other.cost);
        self.blocked += other.blocked;
    }

    /// What is in this and not in `earlier`, blocked time included (see
    /// [`Cost::since`]).
    pub fn since(&self, earlier: &Charge) -> Charge {
        Charge {
            cost: self.cost.since(&earlier.cost),
            blocked: self.blocked.saturating_sub(earlier.blocked),
        }
    }

    /// Whether nothing at all was recorded here, blocked time included.
    pub fn is_empty(&self) -> bool {
        *self == Charge::default()
    }

    /// What a running total that never goes back gained since `earlier`,
    /// one of its own earlier values: [`Charge::since`] without the
    /// saturation, which a call's return pays at every call otherwise
    /// (five compares and moves of about thirty native instructions).
    /// A task's total only grows between a frame's push and its pop (a
    /// fault's take-back comes after the last of them), and the tests'
    /// debug builds check it.
    #[inline]
    pub(crate) fn gained_since(&self, earlier: &Charge) -> Charge {
        debug_assert!(
            self.cost.ran >= earlier.cost.ran
                && self.cost.nanos >= earlier.cost.nanos
                && self.cost.words >= earlier.cost.words
                && self.cost.allocations >= earlier.cost.allocations
                && self.blocked >= earlier.blocked,
            "a running total went back: {earlier:?} then {self:?}"
        );
        Charge {
            cost: Cost {
                ran: self.cost.ran.wrapping_sub(earlier.cost.ran),
                nanos: self.cost.nanos.wrapping_sub(earlier.cost.nanos),
                words: self.cost.words.wrapping_sub(earlier.cost.words),
                allocations: self.cost.allocations.wrapping_sub(earlier.cost.allocations),
            },
            blocked: self.blocked.wrapping_sub(earlier.blocked),
        }
    }
}

impl From<Cost> for Charge {
    /// A cost that never waited.
    fn from(cost: Cost) -> Charge {
        Charge { cost, blocked: 0 }
    }
}

/// A charge reads as its cost: every reader but the few that show blocked
/// time wants the four figures only.
impl std::ops::Deref for Charge {
    type Target = Cost;

    fn deref(&self) -> &Cost {
        &self.cost
    }
}

impl std::ops::DerefMut for Charge {
    fn deref_mut(&mut self) -> &mut Cost {
        &mut self.cost
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
                allocations: 44,
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
                allocations: 1,
            }
        );
    }

    #[test]
    fn a_charge_adds_and_subtracts_its_blocked_time_beside_its_cost() {
        let mut a = Charge {
            cost: Cost {
                ran: 1,
                nanos: 2,
                words: 3,
                allocations: 4,
            },
            blocked: 5,
        };
        a.add(&Charge {
            cost: Cost {
                ran: 1,
                ..Cost::default()
            },
            blocked: 10,
        });
        assert_eq!((a.ran, a.nanos, a.blocked), (2, 2, 15));
        let early = Charge {
            cost: Cost::default(),
            blocked: 20,
        };
        assert_eq!(a.since(&early).blocked, 0);
        assert!(
            !Charge {
                cost: Cost::default(),
                blocked: 1
            }
            .is_empty()
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
