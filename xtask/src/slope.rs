//! Native instructions per Cove instruction: the slope between two sizes.
//!
//! A count of one whole process mixes what a run does per Cove instruction
//! with what it does once: starting the process, compiling the program,
//! calibrating a clock, writing a report. Dividing one count by the Cove
//! instructions leaves that fixed part in the figure, so two shapes of the
//! loop that cost the same per instruction still differ by their start-up,
//! and "off means off" reads as a small offset rather than zero. Counting
//! the same program at two sizes and dividing the difference of the native
//! counts by the difference of the Cove counts removes everything that does
//! not grow with the run: the slope is the per-instruction cost alone, and
//! its ratio to the unwatched loop's is the per-instruction overhead.
//!
//! The obvious other way, subtracting the count of an empty program, leaves
//! in whatever a configuration does once per run but not for an empty one
//! (a profile's report grows with the functions that ran, compiling grows
//! with the program); two sizes of the same program share all of that.
//!
//! This module is the arithmetic and the table, with no process in it, so
//! that both are tested on fixed inputs; it costs nothing worth counting.

use std::fmt::Write;

/// The native instructions of one configuration at the two sizes, or why
/// they could not be counted.
#[derive(Debug, Clone, PartialEq)]
pub struct Counted {
    /// The configuration, as the table names it.
    pub label: String,
    /// The counts at the small and the large size.
    pub native: Result<[u64; 2], String>,
}

/// Everything the slope table shows.
#[derive(Debug, Clone, PartialEq)]
pub struct SlopeTable {
    /// The program and how it was counted, for the heading.
    pub program: String,
    /// The two size arguments.
    pub sizes: [String; 2],
    /// The Cove instructions the run executes at each size.
    pub cove: [u64; 2],
    /// One row a configuration; `rows[base]` is the one the others are
    /// compared with.
    pub rows: Vec<Counted>,
    /// The row the ratios are to (the unwatched loop).
    pub base: usize,
    /// The largest difference between two counts of the same command, if
    /// one was counted twice: the noise of an exact count.
    pub jitter: Option<u64>,
}

/// Native instructions per Cove instruction between two sizes: the
/// difference of the native counts over the difference of the Cove counts,
/// or `None` when the Cove counts do not grow.
pub fn slope(cove: [u64; 2], native: [u64; 2]) -> Option<f64> {
    let grew = cove[1].checked_sub(cove[0]).filter(|d| *d > 0)?;
    Some((native[1] as f64 - native[0] as f64) / grew as f64)
}

impl SlopeTable {
    /// The slope of row `i`, if it was counted.
    pub fn slope_of(&self, i: usize) -> Option<f64> {
        let row = self.rows.get(i)?;
        slope(self.cove, *row.native.as_ref().ok()?)
    }

    /// The table as text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let grew = self.cove[1].saturating_sub(self.cove[0]);
        let _ = writeln!(
            out,
            "native instructions per Cove instruction, {}: the slope between two sizes",
            self.program
        );
        let _ = writeln!(
            out,
            "(Δ native / Δ Cove instructions; start-up, compiling and reports cancel)"
        );
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "Cove instructions: {} at size {}, {} at size {}, Δ {}",
            group(self.cove[0]),
            self.sizes[0],
            group(self.cove[1]),
            self.sizes[1],
            group(grew)
        );
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "| configuration | native, size {} | native, size {} | slope | × unwatched | extra a Cove instruction | extra over the Δ |",
            self.sizes[0], self.sizes[1]
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
        let base = self.slope_of(self.base);
        for (i, row) in self.rows.iter().enumerate() {
            let native = match &row.native {
                Ok(native) => native,
                Err(why) => {
                    let _ = writeln!(out, "| {} | not counted: {why} | | | | | |", row.label);
                    continue;
                }
            };
            let here = self.slope_of(i);
            let cell = |x: Option<f64>, f: &dyn Fn(f64) -> String| x.map_or("—".to_string(), f);
            let ratio = match (here, base) {
                (Some(h), Some(b)) if b > 0.0 => Some(h / b),
                _ => None,
            };
            let extra = match (here, base) {
                (Some(h), Some(b)) => Some(h - b),
                _ => None,
            };
            // The exact difference: this row's growth less the base's, in
            // native instructions.
            let over = match self.rows.get(self.base).map(|b| &b.native) {
                Some(Ok(b)) if i != self.base => {
                    let growth = |n: &[u64; 2]| i128::from(n[1]) - i128::from(n[0]);
                    let d = growth(native) - growth(b);
                    let sign = if d < 0 { "-" } else { "+" };
                    format!("{sign}{}", group(d.unsigned_abs() as u64))
                }
                _ => "—".to_string(),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {over} |",
                row.label,
                group(native[0]),
                group(native[1]),
                cell(here, &|s| format!("{s:.4}")),
                cell(ratio, &|r| format!("{r:.4}×")),
                if i == self.base {
                    "—".to_string()
                } else {
                    cell(extra, &|e| format!("{e:+.4}"))
                }
            );
        }
        if let Some(jitter) = self.jitter {
            let _ = writeln!(out);
            // Both counts of a slope can move by that much.
            let per = if grew > 0 {
                format!("{:.5}", 2.0 * jitter as f64 / grew as f64)
            } else {
                "—".to_string()
            };
            let _ = writeln!(
                out,
                "Two counts of one command differed by up to {} native instructions \
                 (hash seeds, addresses): ±{per} a Cove instruction is the noise of a slope.",
                group(jitter)
            );
        }
        out
    }
}

/// `n` with thousands separated by commas.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let threes: Vec<&str> = digits
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|three| std::str::from_utf8(three).unwrap_or("?"))
        .collect();
    threes.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slope_is_the_growth_of_native_over_the_growth_of_cove_instructions() {
        // 1,000 fixed instructions and 30 a Cove instruction: the slope is
        // 30 whatever the fixed part.
        let at = |cove: u64| 1_000 + 30 * cove;
        assert_eq!(slope([100, 300], [at(100), at(300)]), Some(30.0));
    }

    #[test]
    fn a_slope_can_be_below_zero_when_the_larger_run_counts_fewer() {
        assert_eq!(slope([10, 20], [500, 400]), Some(-10.0));
    }

    #[test]
    fn two_sizes_with_the_same_cove_count_have_no_slope() {
        assert_eq!(slope([10, 10], [500, 900]), None);
        assert_eq!(slope([20, 10], [500, 900]), None);
    }

    #[test]
    fn large_counts_are_grouped_by_thousands() {
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
    }

    #[test]
    fn the_table_compares_every_slope_with_the_unwatched_one() {
        let row = |label: &str, fixed: u64, per: u64| Counted {
            label: label.to_string(),
            native: Ok([fixed + per * 1_000_000, fixed + per * 2_000_000]),
        };
        let table = SlopeTable {
            program: "examples/bench/arith.cove".to_string(),
            sizes: ["100000".to_string(), "200000".to_string()],
            cove: [1_000_000, 2_000_000],
            rows: vec![
                row("cove run, profiler not linked in", 9_000_000, 30),
                row("cove run", 9_500_000, 30),
                row("no-op debugger", 9_500_000, 66),
                Counted {
                    label: "cove profile --clock real".to_string(),
                    native: Err("valgrind failed".to_string()),
                },
            ],
            base: 1,
            jitter: Some(1_234),
        };
        assert_eq!(table.slope_of(2), Some(66.0));
        insta::assert_snapshot!(table.render());
    }
}
