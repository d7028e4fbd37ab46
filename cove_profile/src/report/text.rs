//! The aligned text table: what a person reads in a terminal.
//!
//! Counts and heap figures print exactly, with thousands separators, because
//! exact is what they are. Time prints raw, per instruction, and per
//! instruction net of the floor with a `~` in front, because that last one
//! is an estimate and the table should never let it pass for anything else.
//!
//! Time a task spent blocked (parked in `join` or `recv`) is not running
//! time: a profile in which some task waited gets `blocked` columns and a
//! header line of its own, and one in which none did prints as it always
//! did. A profile of `--clock none` shows no time at all, blocked time
//! included.

use std::fmt::Write as _;

use super::{By, Metric, Report, Row, sort_rows};
use crate::cost::Cost;

/// A column's alignment.
#[derive(Clone, Copy, PartialEq)]
enum Align {
    Left,
    Right,
}

impl Report<'_> {
    /// The rows grouped `by`, most instructions first, at most `top` of them
    /// (0 prints every row), under a header that says what the profile
    /// covers.
    pub fn table(&self, by: By, top: usize) -> String {
        self.table_sorted(by, Metric::Ran, top)
    }

    /// As [`Report::table`], sorted by `metric` instead of by instructions.
    pub fn table_sorted(&self, by: By, metric: Metric, top: usize) -> String {
        let mut out = self.header();
        out.push('\n');
        out.push_str(&self.section(by, metric, top));
        out
    }

    /// Every grouping, one table after another, each cut to `top` rows.
    pub fn text(&self, top: usize) -> String {
        let mut out = self.header();
        for by in By::ALL {
            out.push('\n');
            out.push_str(&self.section(by, Metric::Ran, top));
        }
        out
    }

    /// What the profile covers, its totals and how to read its time.
    pub fn header(&self) -> String {
        let t = &self.total;
        let mut out = String::new();
        let tasks: Vec<String> = self.tasks.iter().map(|t| t.task.to_string()).collect();
        let time = if self.clock == "none" {
            String::new()
        } else {
            format!(", {} ns", thousands(t.nanos))
        };
        let _ = writeln!(
            out,
            "profile: {} instructions{time}, {} words, {} allocations",
            thousands(t.ran),
            thousands(t.words),
            thousands(t.allocations)
        );
        let _ = writeln!(
            out,
            "tasks: {} ({})",
            if tasks.is_empty() {
                "none".to_string()
            } else {
                tasks.join(", ")
            },
            if self.follows_tasks {
                "spawned tasks followed"
            } else {
                "the task the profiler was installed on"
            }
        );
        match (self.clock, &self.estimate) {
            ("none", _) => {
                let _ = writeln!(
                    out,
                    "time: not recorded (--clock none); counts and heap figures are exact"
                );
            }
            ("sampled", Some(e)) => {
                // With a replay the costs are the calibration fitted to it.
                let costs = &e.costs;
                let (total, fitted) = match (e.replay, e.fitted) {
                    (Some(r), Some(fitted)) => (
                        format!(
                            "time: measured, {} ({} ns, ±{:.0}%), shared out by {} samples \
                             of task 0's CPU time",
                            if r.runs == 1 {
                                "an unwatched run".to_string()
                            } else {
                                format!("the fastest of {} unwatched runs", r.runs)
                            },
                            thousands(r.fastest_nanos),
                            e.uncertainty * 100.0,
                            thousands(e.samples),
                        ),
                        format!(", the calibration fitted to the run ×{fitted:.2}"),
                    ),
                    _ => (
                        format!(
                            "time: sampled, {} samples of task 0's CPU time{}, ±{:.0}%",
                            thousands(e.samples),
                            if e.spawned_samples > 0 {
                                format!(" and {} of spawned tasks'", thousands(e.spawned_samples))
                            } else {
                                String::new()
                            },
                            e.uncertainty * 100.0,
                        ),
                        String::new(),
                    ),
                };
                let _ = writeln!(
                    out,
                    "{total}; the profiler's own stops taken off ({} ns measured in its slow \
                     stops, ~{:.1} ns calibrated for each of {} fast ones{}{}{fitted}); counts and \
                     heap figures are exact",
                    thousands(e.measured_nanos),
                    costs.fast,
                    thousands(e.stops.1),
                    heavy_part(e, costs),
                    if e.call_stops > 0 && costs.call > 0.0 {
                        format!(
                            ", at least ~{:.1} ns all told for each of the {} after a call or \
                             a return",
                            costs.fast + costs.call,
                            thousands(e.call_stops)
                        )
                    } else {
                        String::new()
                    }
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "floor: ~{:.1} ns an instruction, {} clock; counts and heap figures are exact, \
                     time is for comparing rows",
                    self.floor.nanos, self.clock
                );
            }
        }
        if self.shows_blocked() {
            let waits: u64 = self.tasks.iter().map(|t| t.waits).sum();
            let _ = writeln!(
                out,
                "blocked: {} ns in {} wait{}, parked in join and recv: kept apart from the time \
                 above",
                thousands(t.blocked),
                thousands(waits),
                if waits == 1 { "" } else { "s" }
            );
        }
        out
    }

    /// Whether the tables have `blocked` columns: some task waited, and the
    /// profile records time.
    pub(crate) fn shows_blocked(&self) -> bool {
        self.clock != "none" && self.total.blocked > 0
    }

    fn section(&self, by: By, metric: Metric, top: usize) -> String {
        let mut rows = self.rows(by);
        sort_rows(&mut rows, metric);
        let all = rows.len();
        if top > 0 {
            rows.truncate(top);
        }
        let mut out = String::new();
        let _ = writeln!(
            out,
            "by {}{}, by {}:",
            by.name(),
            if rows.len() < all {
                format!(" (top {} of {all})", rows.len())
            } else {
                String::new()
            },
            metric.name()
        );
        let (head, aligns, body) = match by {
            By::Function => self.function_columns(&rows),
            By::Call => self.call_columns(&rows),
            _ => self.flat_columns(by, &rows),
        };
        if self.clock == "none" {
            let (head, aligns, body) = without(&TIME, head, aligns, body);
            out.push_str(&align(&head, &aligns, &body));
        } else if !self.shows_blocked() {
            let (head, aligns, body) = without(&BLOCKED, head, aligns, body);
            out.push_str(&align(&head, &aligns, &body));
        } else {
            out.push_str(&align(&head, &aligns, &body));
        }
        out
    }

    fn share(&self, part: u64, of: u64) -> String {
        if of == 0 {
            "-".to_string()
        } else {
            format!("{:.2}%", part as f64 * 100.0 / of as f64)
        }
    }

    fn timing(&self, cost: &Cost) -> [String; 2] {
        if cost.ran == 0 {
            return ["-".to_string(), "-".to_string()];
        }
        let net = cost.nanos_net_of(self.floor.nanos) / cost.ran as f64;
        [
            format!("{:.1}", cost.nanos_per_instruction()),
            format!("~{net:.1}"),
        ]
    }

    fn flat_columns(
        &self,
        by: By,
        rows: &[Row],
    ) -> (Vec<&'static str>, Vec<Align>, Vec<Vec<String>>) {
        let what = match by {
            By::Instruction => "instruction",
            By::Opcode => "opcode",
            By::Callee => "callee",
            By::Line => "line",
            By::Task => "task",
            _ => "",
        };
        let place = match by {
            By::Instruction => "source",
            By::Callee => "via",
            By::Line => "text",
            By::Task => "started at",
            _ => "",
        };
        let head = vec![
            "ran", "share", "nanos", "time", "ns/instr", "net", "blocked", "words", "allocs", what,
            place,
        ];
        let mut aligns = vec![Align::Right; 9];
        aligns.extend([Align::Left, Align::Left]);
        let body = rows
            .iter()
            .map(|row| {
                let [each, net] = self.timing(&row.cost);
                vec![
                    thousands(row.cost.ran),
                    self.share(row.cost.ran, self.total.ran),
                    thousands(row.cost.nanos),
                    self.share(row.cost.nanos, self.total.nanos),
                    each,
                    net,
                    thousands(row.cost.blocked),
                    thousands(row.cost.words),
                    thousands(row.cost.allocations),
                    row.label.clone(),
                    row.place.clone(),
                ]
            })
            .collect();
        (head, aligns, body)
    }

    fn function_columns(&self, rows: &[Row]) -> (Vec<&'static str>, Vec<Align>, Vec<Vec<String>>) {
        let head = vec![
            "calls",
            "self ran",
            "share",
            "incl ran",
            "incl share",
            "self ns",
            "incl ns",
            "ns/instr",
            "net",
            "self blocked",
            "incl blocked",
            "self words",
            "self allocs",
            "incl words",
            "incl allocs",
            "function",
            "source",
        ];
        let mut aligns = vec![Align::Right; 15];
        aligns.extend([Align::Left, Align::Left]);
        let body = rows
            .iter()
            .map(|row| {
                let inclusive = row.inclusive.unwrap_or_default();
                let [each, net] = self.timing(&row.cost);
                vec![
                    thousands(row.calls.unwrap_or(0)),
                    thousands(row.cost.ran),
                    self.share(row.cost.ran, self.total.ran),
                    thousands(inclusive.ran),
                    self.share(inclusive.ran, self.total.ran),
                    thousands(row.cost.nanos),
                    thousands(inclusive.nanos),
                    each,
                    net,
                    thousands(row.cost.blocked),
                    thousands(inclusive.blocked),
                    thousands(row.cost.words),
                    thousands(row.cost.allocations),
                    thousands(inclusive.words),
                    thousands(inclusive.allocations),
                    row.label.clone(),
                    row.place.clone(),
                ]
            })
            .collect();
        (head, aligns, body)
    }

    fn call_columns(&self, rows: &[Row]) -> (Vec<&'static str>, Vec<Align>, Vec<Vec<String>>) {
        let head = vec![
            "calls",
            "incl ran",
            "incl share",
            "incl ns",
            "incl blocked",
            "incl words",
            "incl allocs",
            "caller -> callee",
        ];
        let mut aligns = vec![Align::Right; 7];
        aligns.push(Align::Left);
        let body = rows
            .iter()
            .map(|row| {
                let inclusive = row.inclusive.unwrap_or_default();
                vec![
                    thousands(row.calls.unwrap_or(0)),
                    thousands(inclusive.ran),
                    self.share(inclusive.ran, self.total.ran),
                    thousands(inclusive.nanos),
                    thousands(inclusive.blocked),
                    thousands(inclusive.words),
                    thousands(inclusive.allocations),
                    row.label.clone(),
                ]
            })
            .collect();
        (head, aligns, body)
    }
}

/// The columns that say time, running or blocked: what a profile that
/// recorded none leaves out, rather than print columns of zeros.
const TIME: [&str; 10] = [
    "nanos",
    "time",
    "ns/instr",
    "net",
    "self ns",
    "incl ns",
    "ns",
    "blocked",
    "self blocked",
    "incl blocked",
];

/// The columns of blocked time: what a profile in which no task waited
/// leaves out.
const BLOCKED: [&str; 3] = ["blocked", "self blocked", "incl blocked"];

/// The header's words on the stops after an allocation or a builtin: the
/// moved ones' cost all told and the others', each where it was charged.
fn heavy_part(e: &crate::profiler::Estimate, costs: &crate::profiler::StopCosts) -> String {
    let quick_stops = e.heavy_stops.saturating_sub(e.moved_stops);
    let mut out = String::new();
    if e.moved_stops > 0 && costs.heavy > 0.0 {
        let _ = write!(
            out,
            ", at least ~{:.1} ns all told for each of the {} after an allocation",
            costs.fast + costs.heavy,
            thousands(e.moved_stops)
        );
    }
    if quick_stops > 0 && costs.quick > 0.0 {
        let _ = write!(
            out,
            ", ~{:.1} ns for each of the {} after a builtin that allocated nothing",
            costs.fast + costs.quick,
            thousands(quick_stops)
        );
    }
    out
}

/// The columns of a table less those named in `drop`.
fn without(
    drop: &[&str],
    head: Vec<&'static str>,
    aligns: Vec<Align>,
    body: Vec<Vec<String>>,
) -> (Vec<&'static str>, Vec<Align>, Vec<Vec<String>>) {
    let keep: Vec<bool> = head.iter().map(|h| !drop.contains(h)).collect();
    let pick = |row: Vec<String>| -> Vec<String> {
        row.into_iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(c, _)| c)
            .collect()
    };
    (
        head.into_iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(h, _)| h)
            .collect(),
        aligns
            .into_iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(a, _)| a)
            .collect(),
        body.into_iter().map(pick).collect(),
    )
}

/// Lays out a table: every column as wide as its widest cell, two spaces
/// between columns, no trailing spaces.
fn align(head: &[&str], aligns: &[Align], body: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for row in body {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let head: Vec<String> = head.iter().map(|h| h.to_string()).collect();
    for row in std::iter::once(&head).chain(body) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = widths[i].saturating_sub(cell.chars().count());
            match aligns[i] {
                Align::Right => {
                    line.extend(std::iter::repeat_n(' ', pad));
                    line.push_str(cell);
                }
                Align::Left => {
                    line.push_str(cell);
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_print_exactly_with_thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(751_100_000), "751,100,000");
    }
}
