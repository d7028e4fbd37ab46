//! The few statistics a benchmark report needs: median, spread and the
//! geometric mean of ratios.
//!
//! Medians rather than means because a shared machine's noise is one-sided:
//! a run is never faster than the work it does, only slower when something
//! else wants the core, and a mean lets one such run move the figure. The
//! spread is the smallest and the largest sample rather than a standard
//! deviation, for the same reason: the noise is not normal, and the two
//! extremes say plainly how far apart the runs were. Ratios are averaged
//! geometrically, so that 2× on one program and 0.5× on another average
//! to 1×, as they should. All of it costs a sort of a few samples.

/// The median, the smallest and the largest of some samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// The middle sample (the mean of the two middle ones for an even count).
    pub median: f64,
    /// The smallest sample.
    pub min: f64,
    /// The largest sample.
    pub max: f64,
}

impl Summary {
    /// The summary of `samples`, or `None` when there are none.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        Some(Summary {
            median,
            min: sorted[0],
            max: sorted[n - 1],
        })
    }
}

/// The geometric mean of some ratios, or `None` when there are none or one
/// is not positive (a ratio of zero has no logarithm).
pub fn geomean(ratios: &[f64]) -> Option<f64> {
    if ratios.is_empty() || ratios.iter().any(|r| *r <= 0.0 || !r.is_finite()) {
        return None;
    }
    Some((ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_geometric_mean_of_two_and_a_half_is_one() {
        let g = geomean(&[2.0, 0.5]).expect("ratios");
        assert!((g - 1.0).abs() < 1e-12, "{g}");
        let g = geomean(&[4.0, 1.0]).expect("ratios");
        assert!((g - 2.0).abs() < 1e-12, "{g}");
    }

    #[test]
    fn no_ratios_or_a_zero_ratio_have_no_geometric_mean() {
        assert_eq!(geomean(&[]), None);
        assert_eq!(geomean(&[1.0, 0.0]), None);
    }

    #[test]
    fn the_median_of_an_odd_count_is_the_middle_sample() {
        let s = Summary::of(&[3.0, 1.0, 2.0]).expect("samples");
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        let s = Summary::of(&[4.0, 1.0, 2.0, 3.0]).expect("samples");
        assert_eq!(s.median, 2.5);
    }

    #[test]
    fn no_samples_have_no_summary() {
        assert_eq!(Summary::of(&[]), None);
    }
}
