//! The few statistics a benchmark report needs: median and spread.
//!
//! Medians rather than means because a shared machine's noise is one-sided:
//! a run is never faster than the work it does, only slower when something
//! else wants the core, and a mean lets one such run move the figure.

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

#[cfg(test)]
mod tests {
    use super::*;

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
