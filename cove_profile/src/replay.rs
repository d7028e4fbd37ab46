//! The run's total time, measured by running it again unwatched.
//!
//! A sampled profile's time is the processor time its samples charged less
//! what the profiler's own stops cost. The stops are timed on the host's
//! machine by a calibration of small programs, and a stop's cost is not
//! one figure: the same 25–29 native instructions of a fast stop take half
//! a nanosecond in a loop whose one chain of dependent instructions leaves
//! the processor idle, and nearly two in a byte loop that keeps it busy.
//! So a calibration from other programs cannot make every program's total
//! right, and a diff of two versions whose stops differ tenfold (the
//! seed's story: a byte loop against one builtin call) can be pulled
//! either way by it.
//!
//! A host that can run the program again without a debugger (`cove
//! profile` does, with the input the profiled run read and its output
//! thrown away) measures what no estimate can give: the unprofiled run's
//! own processor time. It hands the figure over as a [`Replay`]
//! ([`Profiler::set_replay`](crate::Profiler::set_replay)), and the
//! profiler then does two things with it:
//!
//! - the **total** of the profile is the replay's, the fastest of its runs
//!   (interference from the rest of the machine only ever adds time);
//! - the **calibration is fitted to this run**: every calibrated cost of a
//!   stop is scaled by one factor, found here ([`fit`]), so that the
//!   sampled time less the stops' cost comes to that total. Each row then
//!   loses its own stops at that fitted cost, so a row of many stops (the
//!   byte loop) gives up more than a row of few, in the proportion the
//!   calibration says and at the price this run paid.
//!
//! What it costs: one more run of the program, unwatched, or a few for a
//! run so short that one would be mostly noise. The obvious other shape,
//! a calibration made of the program itself (its stops timed in place), is
//! what the calibration tried to be and cannot: a stop's cost depends on
//! the work around it, which is the thing being measured.

#[cfg(feature = "reports")]
use serde::{Deserialize, Serialize};

use crate::profiler::{Estimate, StopCosts};

/// The least relative uncertainty a replay's total is read to: how far
/// one moment's processor time for a run strays from another's on a
/// shared machine. On the 2-core machine this was written on, thirty
/// processes of each of the story's programs, made one after another,
/// took their time with a coefficient of variation of 0.18 to 0.23 (the
/// byte loop 8 ms in some seconds and 13 ms in others), and the runs of
/// one replay, made back to back, share their moment: however close they
/// come, the total is not known better than this. Two programs are
/// compared better by timing them side by side (`cove diff` does).
pub const MOMENT_UNCERTAINTY: f64 = 0.20;

/// What the unwatched runs of a replay measured: the processor time of
/// the run alone, not of compiling it or starting the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "reports", derive(Serialize, Deserialize))]
pub struct Replay {
    /// How many times the program was run again.
    pub runs: u32,
    /// The fastest run's processor time: the profile's total.
    pub fastest_nanos: u64,
    /// The second fastest run's (the fastest's again for one run).
    pub next_nanos: u64,
    /// The slowest run's.
    pub slowest_nanos: u64,
    /// Bytes of standard input the run read, which every replay was given
    /// again (0 in a profile written before it was kept).
    #[cfg_attr(feature = "reports", serde(default))]
    pub input_bytes: u64,
}

impl Replay {
    /// A replay of one run that took `nanos`.
    pub fn once(nanos: u64) -> Replay {
        Replay {
            runs: 1,
            fastest_nanos: nanos,
            next_nanos: nanos,
            slowest_nanos: nanos,
            input_bytes: 0,
        }
    }

    /// The relative uncertainty of the total: [`MOMENT_UNCERTAINTY`], or,
    /// for a replay of several runs (as profiles written before a replay
    /// became one run record), how far the second fastest came above the
    /// fastest where that is more (the machine busy for a moment even among
    /// those runs), but not above a quarter.
    pub fn uncertainty(&self) -> f64 {
        if self.runs <= 1 || self.fastest_nanos == 0 {
            return MOMENT_UNCERTAINTY;
        }
        let gap = self.next_nanos.saturating_sub(self.fastest_nanos) as f64;
        (gap / self.fastest_nanos as f64).clamp(MOMENT_UNCERTAINTY, 0.25)
    }
}

/// The most a fit may scale the calibration by.
///
/// A fit reads the gap between the samples' time and the replay as the
/// stops' cost, but part of it is always the moment: the replay runs
/// later, in another process, and is read to ±20%
/// ([`MOMENT_UNCERTAINTY`]). Where the stops are a small part of the run
/// that part swamps them: a word count whose stops were about 3% of its
/// samples' time, replayed a fifth faster than it was profiled, had its
/// stops fitted at ×17.7 and the rows of its map lookups, stretches of
/// many stops, taken to nothing. A fit past this bound is the moment's,
/// not the stops': the costs stop at it, and the rest of the gap is
/// shared out over the rows in proportion to their time, as it is when
/// the replay was slower than the samples (a fit of 0). On the suite the
/// fits of one run went from 0 to 6.9 (`strings`, whose stops after
/// allocations cost more in it than in the calibration's loop), so the
/// bound takes nothing from a fit the programs of the suite ask for.
pub const MAX_FIT: f64 = 8.0;

/// The factor every calibrated cost of `estimate` is scaled by so that its
/// net time comes to `nanos`, found by bisection: the net time only falls
/// as the costs rise. 0 when even stops that cost nothing leave the net
/// short of `nanos` (the replay was slower than the profiled run's own
/// work: the report then scales its rows up to the total); at most
/// [`MAX_FIT`], when the stops would have to cost more than that to
/// explain the gap (the report then scales its rows down to the total).
pub fn fit(estimate: &Estimate, nanos: u64) -> f64 {
    let target = nanos as f64;
    let net = |scale: f64| -> f64 {
        estimate
            .net_nanos_at(&estimate.costs.scaled(scale))
            .unwrap_or(target)
    };
    if net(0.0) <= target {
        return 0.0;
    }
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    while net(high) > target && high < MAX_FIT {
        low = high;
        high = (high * 2.0).min(MAX_FIT);
    }
    if net(high) > target {
        return high;
    }
    for _ in 0..48 {
        let middle = (low + high) / 2.0;
        if net(middle) > target {
            low = middle;
        } else {
            high = middle;
        }
    }
    (low + high) / 2.0
}

impl StopCosts {
    /// Every cost times `factor`.
    pub fn scaled(&self, factor: f64) -> StopCosts {
        StopCosts {
            fast: self.fast * factor,
            instruction: self.instruction * factor,
            heavy: self.heavy * factor,
            quick: self.quick * factor,
            call: self.call * factor,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(sampled: u64, fast_stops: u64, fast: f64) -> Estimate {
        Estimate {
            samples: 100,
            sampled_nanos: sampled,
            overhead_nanos: 0,
            stops: (0, fast_stops),
            uncertainty: 0.0,
            spawned_samples: 0,
            heavy_stops: 0,
            moved_stops: 0,
            measured_nanos: 0,
            call_stops: 0,
            costs: StopCosts {
                fast,
                ..StopCosts::default()
            },
            measured_heavy_nanos: 0,
            instructions: Some(fast_stops),
            replay: None,
            fitted: None,
        }
    }

    #[test]
    fn the_fit_scales_the_stops_so_the_net_time_is_the_replays() {
        // 10 ms sampled, a million stops calibrated at 1 ns: 9 ms net. A
        // replay of 8 ms says the stops cost 2 ns each here.
        let e = estimate(10_000_000, 1_000_000, 1.0);
        let scale = fit(&e, 8_000_000);
        assert!((scale - 2.0).abs() < 1e-6, "{scale}");
        let net = e.net_nanos_at(&e.costs.scaled(scale)).unwrap();
        assert!((net - 8_000_000.0).abs() < 1.0, "{net}");
    }

    #[test]
    fn a_gap_the_stops_could_only_explain_at_many_times_their_cost_fits_them_at_the_bound() {
        // 10 ms sampled, a million stops calibrated at 0.1 ns: 9.9 ms net.
        // A replay of 7 ms would need them at 3 ns, ×30: the fit stops at
        // the bound, and the report shares the rest out.
        let e = estimate(10_000_000, 1_000_000, 0.1);
        assert_eq!(fit(&e, 7_000_000), MAX_FIT);
        // Just inside the bound it is still the exact fit.
        let inside = fit(&e, 10_000_000 - 700_000);
        assert!((inside - 7.0).abs() < 1e-6, "{inside}");
    }

    #[test]
    fn a_replay_slower_than_the_profiled_work_fits_stops_that_cost_nothing() {
        let e = estimate(10_000_000, 1_000_000, 1.0);
        assert_eq!(fit(&e, 11_000_000), 0.0);
    }

    #[test]
    fn a_replay_is_read_to_the_moments_uncertainty_or_the_gap_of_its_two_fastest_runs() {
        assert_eq!(Replay::once(100).uncertainty(), MOMENT_UNCERTAINTY);
        // Replays of several runs, as an earlier `cove profile` wrote them.
        let runs = |runs, fastest_nanos, next_nanos, slowest_nanos| Replay {
            runs,
            fastest_nanos,
            next_nanos,
            slowest_nanos,
            input_bytes: 0,
        };
        assert_eq!(runs(4, 100, 107, 130).uncertainty(), MOMENT_UNCERTAINTY);
        assert!((runs(2, 100, 122, 122).uncertainty() - 0.22).abs() < 1e-9);
        assert_eq!(runs(2, 100, 150, 150).uncertainty(), 0.25);
    }
}
