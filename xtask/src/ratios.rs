//! A table of timed runs as ratios to a base run, with medians and spread.
//!
//! Every row is a program (or an anchor) run once a repetition as the base
//! and once under each column's configuration, the runs interleaved, so the
//! ratio worth printing is the one of runs made side by side: each
//! repetition gives a ratio, and a cell shows the median of those ratios
//! with the smallest and the largest, which says how much the machine moved
//! while they were taken. The pairing is why this is not a ratio of two
//! medians: a burst of load that slows one repetition slows both of its
//! runs, and their ratio keeps most of what it would have been. The last
//! row is the geometric mean of each column's median ratios.
//!
//! Pure: it renders samples it is given, so a test pins its shape on fixed
//! inputs. Rendering costs nothing worth counting.

use std::fmt::Write;

use crate::cputime::Time;
use crate::stats::{Summary, geomean};

/// CPU time or wall time: which half of a [`Time`] a table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// User plus system time of the child.
    Cpu,
    /// Wall-clock time of the child.
    Wall,
}

impl Measure {
    fn of(self, time: &Time) -> f64 {
        match self {
            Measure::Cpu => time.cpu,
            Measure::Wall => time.wall,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Measure::Cpu => "CPU",
            Measure::Wall => "wall",
        }
    }
}

/// One program's runs: the base's and each column's, one a repetition.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The program, as the table names it.
    pub label: String,
    /// The base run's time, one a repetition.
    pub base: Vec<Time>,
    /// Per column, its runs' times, one a repetition, in the same order as
    /// `base`; empty for a column that was not run on this program.
    pub columns: Vec<Vec<Time>>,
}

/// Rows of runs under the same columns.
#[derive(Debug, Clone, PartialEq)]
pub struct RatioTable {
    /// What the first column's runs are (`cove run`).
    pub base: String,
    /// The configurations compared with it.
    pub columns: Vec<String>,
    /// One row a program.
    pub rows: Vec<Row>,
    /// Whether the last row is the geometric mean of each column (not for
    /// rows that are different things, as the anchors are).
    pub geomean: bool,
}

impl RatioTable {
    /// The ratios of column `column` to the base in `row`, one for each
    /// repetition in which both ran.
    pub fn ratios(&self, row: usize, column: usize, measure: Measure) -> Vec<f64> {
        let Some(row) = self.rows.get(row) else {
            return Vec::new();
        };
        let Some(runs) = row.columns.get(column) else {
            return Vec::new();
        };
        runs.iter()
            .zip(&row.base)
            .filter(|(_, base)| measure.of(base) > 0.0)
            .map(|(run, base)| measure.of(run) / measure.of(base))
            .collect()
    }

    /// The geometric mean over the rows of each column's median ratio.
    pub fn geomeans(&self, measure: Measure) -> Vec<Option<f64>> {
        (0..self.columns.len())
            .map(|column| {
                let medians: Vec<f64> = (0..self.rows.len())
                    .filter_map(|row| Summary::of(&self.ratios(row, column, measure)))
                    .map(|s| s.median)
                    .collect();
                geomean(&medians)
            })
            .collect()
    }

    /// The table of `measure` as Markdown: the base's seconds, then each
    /// column's ratio, median [smallest–largest].
    pub fn render(&self, measure: Measure) -> String {
        let mut out = String::new();
        let mut head = format!("| program | {} {} s |", self.base, measure.name());
        let mut rule = "|---|---:|".to_string();
        for column in &self.columns {
            let _ = write!(head, " {column} |");
            rule.push_str("---:|");
        }
        let _ = writeln!(out, "{head}");
        let _ = writeln!(out, "{rule}");
        for (i, row) in self.rows.iter().enumerate() {
            let seconds: Vec<f64> = row.base.iter().map(|t| measure.of(t)).collect();
            let base = match Summary::of(&seconds) {
                Some(s) => format!("{:.3} [{:.3}–{:.3}]", s.median, s.min, s.max),
                None => "—".to_string(),
            };
            let _ = write!(out, "| {} | {base} |", row.label);
            for column in 0..self.columns.len() {
                let cell = match Summary::of(&self.ratios(i, column, measure)) {
                    Some(s) => format!("{:.2}× [{:.2}–{:.2}]", s.median, s.min, s.max),
                    None => "—".to_string(),
                };
                let _ = write!(out, " {cell} |");
            }
            let _ = writeln!(out);
        }
        if self.geomean {
            let _ = write!(out, "| geomean | |");
            for mean in self.geomeans(measure) {
                let cell = mean.map_or("—".to_string(), |g| format!("**{g:.2}×**"));
                let _ = write!(out, " {cell} |");
            }
            let _ = writeln!(out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(cpu: f64, wall: f64) -> Time {
        Time { cpu, wall }
    }

    fn table() -> RatioTable {
        RatioTable {
            base: "cove run".to_string(),
            columns: vec!["--clock none".to_string(), "--clock real".to_string()],
            rows: vec![
                Row {
                    label: "arith".to_string(),
                    base: vec![t(0.100, 0.110), t(0.200, 0.210), t(0.100, 0.105)],
                    columns: vec![
                        vec![t(0.150, 0.160), t(0.200, 0.220), t(0.120, 0.130)],
                        vec![t(4.000, 4.100), t(6.000, 6.100), t(3.000, 3.500)],
                    ],
                },
                Row {
                    label: "fib".to_string(),
                    base: vec![t(0.050, 0.060)],
                    columns: vec![vec![t(0.200, 0.300)], vec![]],
                },
            ],
            geomean: true,
        }
    }

    #[test]
    fn each_ratio_pairs_a_run_with_the_base_run_of_its_repetition() {
        let ratios = table().ratios(0, 0, Measure::Cpu);
        let want = [1.5, 1.0, 1.2];
        assert_eq!(ratios.len(), want.len());
        for (got, want) in ratios.iter().zip(want) {
            assert!((got - want).abs() < 1e-9, "{ratios:?}");
        }
    }

    #[test]
    fn the_geomean_of_a_column_is_over_the_rows_that_ran_it() {
        let means = table().geomeans(Measure::Cpu);
        // --clock none: medians 1.2 (arith) and 4.0 (fib).
        let none = means[0].expect("both rows ran it");
        assert!((none - (1.2f64 * 4.0).sqrt()).abs() < 1e-9, "{none}");
        // --clock real ran on arith alone: its median, 30.
        let real = means[1].expect("arith ran it");
        assert!((real - 30.0).abs() < 1e-9, "{real}");
    }

    #[test]
    fn the_cpu_and_wall_tables_render_medians_spread_and_geomeans() {
        let table = table();
        insta::assert_snapshot!(format!(
            "{}\n{}",
            table.render(Measure::Cpu),
            table.render(Measure::Wall)
        ));
    }

    #[test]
    fn a_table_of_unlike_rows_has_no_geomean_row() {
        let mut table = table();
        table.geomean = false;
        let text = table.render(Measure::Cpu);
        assert!(!text.contains("geomean"), "{text}");
        assert_eq!(text.lines().count(), 4, "{text}");
    }
}
