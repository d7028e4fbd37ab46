//! What changed between two profiles of one program.
//!
//! The seed tells the story this exists for: replacing a byte loop with one
//! `String.contains` cut a run from 751.1 M instructions to 722.1 M and made
//! it *slower*, because one allocating builtin call cost more than the
//! thirty million cheap instructions it replaced. A count-only comparison
//! calls that a win. So a diff sets instructions, time and allocations side
//! by side for every function, callee, opcode and line, sorts by the change
//! in time (largest rise first), and marks with `!` each row where
//! instructions fell but time rose: the rows where the cost moved from the
//! count into the instructions themselves.
//!
//! Rows are matched by name (`m.fib`, `String.contains`, `add.int`,
//! `m.cove:12`), which survive most edits; a line number moves when lines
//! above it are added, so the line section is the one to read with care
//! across an edit. Time is compared raw: both profiles carry their floor,
//! which the header prints, and a ratio of two raw figures is worth reading
//! when the floors are alike.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::cost::Cost;
use crate::report::json::Group;
use crate::report::{Profile, ProfileError};

/// One row matched across the two profiles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffRow {
    /// What the row is: a function, callee, opcode or `path:line`.
    pub name: String,
    /// Its cost in the first profile (all zero if it was not there).
    pub before: Cost,
    /// Its cost in the second profile (all zero if it is gone).
    pub after: Cost,
}

impl DiffRow {
    /// Whether it ran fewer instructions and took more time: the row a
    /// count-only comparison would misread.
    pub fn fewer_but_slower(&self) -> bool {
        self.after.ran < self.before.ran && self.after.nanos > self.before.nanos
    }

    /// The change in nanoseconds, after minus before.
    pub fn nanos_change(&self) -> i128 {
        i128::from(self.after.nanos) - i128::from(self.before.nanos)
    }
}

/// Two profiles compared, section by section.
#[derive(Debug, Clone)]
pub struct Diff {
    before: Profile,
    after: Profile,
    /// By function (self cost), by callee, by opcode and by line, each
    /// sorted by the change in time, largest rise first.
    sections: Vec<(&'static str, Vec<DiffRow>)>,
}

impl Diff {
    /// Compares `before` with `after`.
    pub fn new(before: &Profile, after: &Profile) -> Diff {
        let functions = |p: &Profile| -> Vec<(String, Cost)> {
            p.functions
                .iter()
                .map(|f| (f.name.clone(), f.own))
                .collect()
        };
        let groups = |g: &[Group]| -> Vec<(String, Cost)> {
            g.iter().map(|g| (g.name.clone(), g.cost)).collect()
        };
        let sections = vec![
            ("function", matched(functions(before), functions(after))),
            (
                "callee",
                matched(groups(&before.callees), groups(&after.callees)),
            ),
            (
                "opcode",
                matched(groups(&before.opcodes), groups(&after.opcodes)),
            ),
            (
                "line",
                matched(file_lines(&before.lines), file_lines(&after.lines)),
            ),
        ];
        Diff {
            before: before.clone(),
            after: after.clone(),
            sections,
        }
    }

    /// Compares two profiles written by [`crate::report::Report::json`].
    pub fn from_json(before: &str, after: &str) -> Result<Diff, ProfileError> {
        Ok(Diff::new(
            &Profile::from_json(before)?,
            &Profile::from_json(after)?,
        ))
    }

    /// The rows of one section: `function`, `callee`, `opcode` or `line`.
    pub fn rows(&self, section: &str) -> &[DiffRow] {
        self.sections
            .iter()
            .find(|(name, _)| *name == section)
            .map_or(&[], |(_, rows)| rows.as_slice())
    }

    /// The whole run, before and after.
    pub fn total(&self) -> DiffRow {
        DiffRow {
            name: "total".to_string(),
            before: self.before.total,
            after: self.after.total,
        }
    }

    /// The diff as text: the totals with a verdict, then every section, each
    /// cut to `top` rows (0 prints every row).
    pub fn table(&self, top: usize) -> String {
        let total = self.total();
        let mut out = String::new();
        let (b, a) = (&total.before, &total.after);
        let _ = writeln!(out, "instructions  {}", change(b.ran, a.ran));
        let _ = writeln!(out, "nanoseconds   {}", change(b.nanos, a.nanos));
        let _ = writeln!(out, "words         {}", change(b.words, a.words));
        let _ = writeln!(
            out,
            "allocations   {}",
            change(b.allocations, a.allocations)
        );
        let _ = writeln!(
            out,
            "floor         ~{:.1} ns -> ~{:.1} ns an instruction",
            self.before.floor.nanos, self.after.floor.nanos
        );
        if total.fewer_but_slower() {
            out.push_str(
                "verdict: FEWER instructions but MORE time: the rows marked ! ran fewer \
                 instructions and took longer\n",
            );
        } else if a.ran > b.ran && a.nanos < b.nanos {
            out.push_str("verdict: more instructions but less time\n");
        }
        for (section, rows) in &self.sections {
            let shown: Vec<&DiffRow> = if top == 0 {
                rows.iter().collect()
            } else {
                rows.iter().take(top).collect()
            };
            let _ = writeln!(
                out,
                "\nby {section}{}, largest rise in time first:",
                if shown.len() < rows.len() {
                    format!(" (top {} of {})", shown.len(), rows.len())
                } else {
                    String::new()
                }
            );
            out.push_str(&section_table(&shown));
        }
        out
    }
}

/// Lines keyed by file name and line, without the directories: two versions
/// of a program are often two checkouts in two places.
fn file_lines(lines: &[Group]) -> Vec<(String, Cost)> {
    lines
        .iter()
        .map(|g| {
            let name = g.name.rsplit(['/', '\\']).next().unwrap_or(&g.name);
            (name.to_string(), g.cost)
        })
        .collect()
}

/// Every name of either side, matched, sorted by the change in time.
fn matched(before: Vec<(String, Cost)>, after: Vec<(String, Cost)>) -> Vec<DiffRow> {
    let mut rows: BTreeMap<String, DiffRow> = BTreeMap::new();
    for (name, cost) in before {
        rows.entry(name.clone())
            .or_insert_with(|| DiffRow {
                name,
                before: Cost::default(),
                after: Cost::default(),
            })
            .before
            .add(&cost);
    }
    for (name, cost) in after {
        rows.entry(name.clone())
            .or_insert_with(|| DiffRow {
                name,
                before: Cost::default(),
                after: Cost::default(),
            })
            .after
            .add(&cost);
    }
    let mut rows: Vec<DiffRow> = rows.into_values().collect();
    rows.sort_by_key(|row| std::cmp::Reverse(row.nanos_change()));
    rows
}

/// `before -> after  (+delta, x1.04)`.
fn change(before: u64, after: u64) -> String {
    format!(
        "{} -> {}  ({}, {})",
        crate::report::thousands(before),
        crate::report::thousands(after),
        signed(before, after),
        ratio(before, after)
    )
}

fn signed(before: u64, after: u64) -> String {
    let sign = if after >= before { "+" } else { "-" };
    format!("{sign}{}", crate::report::thousands(after.abs_diff(before)))
}

fn ratio(before: u64, after: u64) -> String {
    match (before, after) {
        (0, 0) => "=".to_string(),
        (0, _) => "new".to_string(),
        (_, 0) => "gone".to_string(),
        _ => format!("x{:.3}", after as f64 / before as f64),
    }
}

fn section_table(rows: &[&DiffRow]) -> String {
    use crate::report::thousands as t;
    let head = [
        "ran before",
        "ran after",
        "change",
        "ratio",
        "ns before",
        "ns after",
        "change",
        "ratio",
        "allocs before",
        "allocs after",
        "change",
        "",
        "name",
    ];
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let (b, a) = (&r.before, &r.after);
            vec![
                t(b.ran),
                t(a.ran),
                signed(b.ran, a.ran),
                ratio(b.ran, a.ran),
                t(b.nanos),
                t(a.nanos),
                signed(b.nanos, a.nanos),
                ratio(b.nanos, a.nanos),
                t(b.allocations),
                t(a.allocations),
                signed(b.allocations, a.allocations),
                if r.fewer_but_slower() { "!" } else { "" }.to_string(),
                r.name.clone(),
            ]
        })
        .collect();
    let mut widths: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for row in &body {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let head: Vec<String> = head.iter().map(|h| h.to_string()).collect();
    for row in std::iter::once(&head).chain(&body) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = widths[i].saturating_sub(cell.chars().count());
            if i == row.len() - 1 {
                line.push_str(cell);
            } else {
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
