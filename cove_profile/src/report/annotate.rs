//! Annotated source: every file of the run in source order, each line with
//! what it cost beside it (`cove annotate`, `--format annotate`).
//!
//! A table by line answers "which lines are hot"; a listing answers "what
//! is this code doing", which is the question once the hot function is
//! found — as `perf annotate`, `callgrind_annotate --auto=yes` and
//! Scalene's file view print it. Each function gets a header line with its
//! calls and its self and inclusive totals just above its first line. A
//! threshold folds the stretches of lines that cost less than that share of
//! the run's instructions into one `⋮` line (Scalene's reduced profile), so
//! a long file shows its hot spots and little else. On a terminal the
//! hottest lines are coloured; the figures are the same either way.

use std::fmt::Write as _;

use super::Report;
use super::source::LineCost;
use super::text::thousands;
use crate::cost::{Charge, Cost};

/// How [`Report::annotate`] prints.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Annotate {
    /// Lines whose instructions are less than this percentage of the run's
    /// are folded away (0 prints every line). Function headers are always
    /// printed.
    pub threshold: f64,
    /// Colour the hot lines with ANSI escapes (for a terminal).
    pub color: bool,
}

/// A line at least this share of the run's instructions is "hot".
const HOT: f64 = 10.0;
/// A line at least this share is "warm".
const WARM: f64 = 1.0;

impl Report<'_> {
    /// Every source file of the run, annotated line by line.
    pub fn annotate(&self, how: &Annotate) -> String {
        let run = self.total.ran.max(1) as f64;
        let share = |cost: &Cost| cost.ran as f64 * 100.0 / run;
        let mut out = self.header();
        for file in self.source_files() {
            let file_cost = file.lines.values().fold(Charge::default(), |mut c, l| {
                c.add(&l.cost);
                c
            });
            let _ = writeln!(
                out,
                "\n== {} ({} instructions, {:.2}% of the run)",
                file.path,
                thousands(file_cost.ran),
                share(&file_cost)
            );
            let _ = writeln!(
                out,
                "{:>11} {:>7} {:>11} {:>8} {:>9} {:>7}  {:>5}  source",
                "ran", "share", "ns", "ns/instr", "words", "allocs", "line"
            );
            let mut functions = file.functions.iter().peekable();
            let mut folded = 0usize;
            for (index, text) in file.text.lines().enumerate() {
                let number = index as u32 + 1;
                let mut header = String::new();
                while let Some(function) = functions.next_if(|f| f.declared <= number) {
                    if function.line == 0 {
                        continue;
                    }
                    let _ = writeln!(
                        header,
                        "{:>58}  -- fn {}: {} calls; self {} ran ({:.2}%), {} ns, {} words; \
                         inclusive {} ran ({:.2}%), {} ns, {} words",
                        "",
                        function.name,
                        thousands(function.calls),
                        thousands(function.own.ran),
                        share(&function.own),
                        thousands(function.own.nanos),
                        thousands(function.own.words),
                        thousands(function.inclusive.ran),
                        share(&function.inclusive),
                        thousands(function.inclusive.nanos),
                        thousands(function.inclusive.words),
                    );
                }
                let line = file.lines.get(&number);
                let cold = how.threshold > 0.0
                    && line.is_none_or(|l| share(&l.cost) < how.threshold)
                    && header.is_empty();
                if cold {
                    folded += 1;
                    continue;
                }
                if folded > 0 {
                    let _ = writeln!(out, "{:>58}  ⋮ {folded} lines below {}%", "", how.threshold);
                    folded = 0;
                }
                out.push_str(&header);
                let row = annotated(line, number, text, share);
                let heat = line.map_or(0.0, |l| share(&l.cost));
                if how.color && heat >= HOT {
                    let _ = writeln!(out, "\x1b[1;31m{row}\x1b[0m");
                } else if how.color && heat >= WARM {
                    let _ = writeln!(out, "\x1b[33m{row}\x1b[0m");
                } else {
                    let _ = writeln!(out, "{row}");
                }
            }
            if folded > 0 {
                let _ = writeln!(out, "{:>58}  ⋮ {folded} lines below {}%", "", how.threshold);
            }
        }
        out
    }
}

/// One line of the listing: its figures (blank for a line without code,
/// `.` for code that never ran), its number and its text.
fn annotated(
    line: Option<&LineCost>,
    number: u32,
    text: &str,
    share: impl Fn(&Cost) -> f64,
) -> String {
    match line {
        None => format!("{:>58}  {number:>5}  {text}", ""),
        Some(l) if l.cost.ran == 0 => format!("{:>11} {:>46}  {number:>5}  {text}", ".", ""),
        Some(l) => format!(
            "{:>11} {:>6.2}% {:>11} {:>8.1} {:>9} {:>7}  {number:>5}  {text}",
            thousands(l.cost.ran),
            share(&l.cost),
            thousands(l.cost.nanos),
            l.cost.nanos_per_instruction(),
            thousands(l.cost.words),
            thousands(l.cost.allocations),
        ),
    }
}
