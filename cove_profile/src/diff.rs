//! What changed between two profiles of one program, and whether the run
//! got faster.
//!
//! The seed tells the story this exists for: replacing a byte loop with one
//! builtin call can cut a run's instructions tenfold and make it *slower*,
//! because one allocating builtin costs more than the many cheap
//! instructions it replaced. A count-only comparison calls that a win, and
//! so does a comparison of raw profiled time: an interval profile charges
//! every instruction the same floor (two clock reads and the hook), so
//! removing three million cheap instructions removes three million floors
//! that the unprofiled run never paid. So a diff compares **estimated
//! unprofiled time** and nothing else: a row's estimate is
//! `nanos − ran × floor`, never below zero ([`estimated_nanos`], the one
//! place it is computed; a sampled profile writes a floor of 0 because its
//! `nanos` are net already).
//!
//! The first line is a verdict on the whole run — `faster`, `slower` or
//! `no clear change` — from the ratio of the two estimates against their
//! combined uncertainty ([`Verdict`]), or, where a host ran the two
//! programs again side by side ([`Diff::with_side_by_side`]), from the
//! median ratio of those pairs of runs; then, section by section (function,
//! callee, opcode, line), the rows whose estimated time moved most, with
//! `!` on each row that ran fewer instructions and took more time.
//!
//! A sampled profile's estimate is its sampled time less what its stops
//! are calibrated to cost, and the calibration is measured on the machine
//! around the profile (`cove profile` keeps one measurement for ten
//! minutes), so two profiles can rest on different figures. The verdict
//! weighs both at one set of costs, the mean of the two profiles', when
//! both record what their estimate was worked out from
//! ([`Estimate::net_nanos_at`](crate::Estimate::net_nanos_at)): a change
//! of calibration between the two is then not read as a change of the
//! program. The rows below it keep each profile's own figures. A profile
//! whose total a replay measured ([`crate::replay`]) rests on no
//! calibration, and two such are compared as made.
//!
//! Rows are matched by name (`m.fib`, `String.contains`, `add.int`,
//! `m.cove:12`), which survive most edits. Two versions of one program are
//! often kept side by side in two files (`words_v1.cove`, `words_v2.cove`),
//! which makes their entry modules' names differ; the diff reads the entry
//! module of each profile from its [`Subject`](crate::report::Subject) and
//! pairs them, so `words_v2.main` is compared with `words_v1.main`. And a
//! diff of two *different* programs is noise that looks like an answer, so
//! [`Diff::checked`] refuses one ([`DifferentPrograms`]); [`Diff::new`]
//! compares whatever it is given, for a caller that knows better.
//!
//! Cost: a few passes over the rows of the two profiles and one sort per
//! section; the profiles themselves are already in memory. Matching by
//! name in a `BTreeMap` rather than by position keeps the rows of an
//! edited program together whatever order they were written in.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use crate::cost::Cost;
use crate::profiler::{Estimate, StopCosts};
use crate::report::json::Group;
use crate::report::{Profile, ProfileError};

/// The relative uncertainty of a profile's estimated time when the profile
/// does not state one: ±25%, what an interval profile's estimate (raw time
/// less a floor measured once, at the start) is good for on a quiet
/// machine. A profile that states its own (`uncertainty` in the JSON) is
/// read by its own.
pub const DEFAULT_UNCERTAINTY: f64 = 0.25;

/// The estimated unprofiled time of `cost`, in nanoseconds: its time less
/// one `floor` for every instruction it ran, never below zero.
///
/// Every figure of time a diff prints or judges by is this one.
pub fn estimated_nanos(cost: &Cost, floor: f64) -> f64 {
    cost.nanos_net_of(floor)
}

impl Profile {
    /// The estimated unprofiled time of `cost`, a row of this profile (see
    /// [`estimated_nanos`]).
    pub fn estimated_nanos(&self, cost: &Cost) -> f64 {
        estimated_nanos(cost, self.floor.nanos)
    }

    /// Whether the profile recorded any time at all: not one made with
    /// `--clock none`, and not one whose every `nanos` is 0, unless it is
    /// sampled (`estimate`): a sampled profile whose estimate came out at
    /// nothing timed the run, and is too short to compare, not untimed.
    pub fn has_time(&self) -> bool {
        self.clock != "none" && (self.total.nanos > 0 || self.estimate.is_some())
    }

    /// The relative uncertainty of its estimated time: the one it states,
    /// else [`DEFAULT_UNCERTAINTY`].
    pub fn time_uncertainty(&self) -> f64 {
        self.uncertainty
            .filter(|u| u.is_finite() && *u >= 0.0)
            .unwrap_or(DEFAULT_UNCERTAINTY)
    }

    /// The module the program was started from: the stem of the entry
    /// file the profile records, else the module of task 0's first root
    /// function (a profile made without a subject).
    pub fn entry_module(&self) -> Option<String> {
        if let Some(program) = &self.program {
            let file = program.entry.rsplit(['/', '\\']).next().unwrap_or("");
            let stem = file.strip_suffix(".cove").unwrap_or(file);
            if !stem.is_empty() {
                return Some(stem.to_string());
            }
        }
        let task = self.tasks.iter().find(|t| t.task == 0)?;
        let root = task.roots.first()?;
        root.rsplit_once('.').map(|(module, _)| module.to_string())
    }
}

/// What a diff concludes about the whole run's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The estimated time fell by more than the uncertainty:
    /// `after / before < 1 / (1 + u)`.
    Faster,
    /// The estimated time rose by more than the uncertainty:
    /// `after / before > 1 + u`.
    Slower,
    /// The ratio is within the uncertainty, or one side's estimate is a
    /// nanosecond or less (too little time to tell).
    NoClearChange,
    /// One profile or both recorded no time (`--clock none`): only counts
    /// and heap figures compare.
    NoTime,
}

impl Verdict {
    /// The words the verdict line prints: `faster`, `slower`,
    /// `no clear change`, `no time recorded`.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoClearChange => "no clear change",
            Verdict::NoTime => "no time recorded",
        }
    }
}

/// The verdict with the figures it was reached from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// What the figures say.
    pub verdict: Verdict,
    /// Estimated time after over before, when both profiles have time and
    /// both estimates are above a nanosecond.
    pub time_ratio: Option<f64>,
    /// The combined relative uncertainty of the ratio:
    /// `sqrt(u_before² + u_after²)`.
    pub uncertainty: f64,
    /// Instructions after over before, when the first ran any.
    pub instruction_ratio: Option<f64>,
    /// The two estimated totals the ratio was taken of, before and after,
    /// when they were worked out again at one calibration (the mean of
    /// the two profiles' costs) because the profiles' own differed.
    pub recalibrated: Option<(f64, f64)>,
    /// The two programs timed side by side, when the ratio and its
    /// uncertainty are theirs and not the profiles' totals'.
    pub side_by_side: Option<SideBySide>,
}

/// Two programs timed side by side by a host that could run them: pairs
/// of unwatched runs, one of each, interleaved, so that the machine's
/// moods fall on both alike. A profile's total is one moment's; a ratio
/// of pairs is many moments' (see `cove diff`'s `--rerun`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SideBySide {
    /// Pairs of runs made.
    pub pairs: u32,
    /// The median over the pairs of the after run's time over the before
    /// run's.
    pub ratio: f64,
    /// The ratio's relative uncertainty: the half-width of the median's
    /// 95% interval, `1.58 × IQR / √pairs` over the median, as a notched
    /// box plot draws it (McGill, Tukey and Larsen, 1978).
    pub uncertainty: f64,
}

impl SideBySide {
    /// The median of the pairs' ratios `ratios` (after over before) with
    /// the uncertainty of the median, or `None` for no pairs.
    pub fn of(ratios: &[f64]) -> Option<SideBySide> {
        let mut sorted: Vec<f64> = ratios.iter().copied().filter(|r| r.is_finite()).collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let at = |q: f64| -> f64 {
            // Linear between the two nearest ranks.
            let x = q * (sorted.len() - 1) as f64;
            let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
            sorted[lo] + (sorted[hi] - sorted[lo]) * (x - lo as f64)
        };
        let median = at(0.5);
        let iqr = at(0.75) - at(0.25);
        Some(SideBySide {
            pairs: sorted.len() as u32,
            ratio: median,
            uncertainty: 1.58 * iqr / (sorted.len() as f64).sqrt() / median.max(f64::MIN_POSITIVE),
        })
    }
}

impl Summary {
    /// `verdict: slower — time ×1.24 (±0.08), instructions ×0.099`.
    pub fn line(&self) -> String {
        let instructions = match self.instruction_ratio {
            Some(r) => format!("×{}", significant(r)),
            None => "new".to_string(),
        };
        match (self.verdict, self.time_ratio) {
            (Verdict::NoTime, _) => format!(
                "verdict: no time recorded (a profile without a clock) — instructions {instructions}"
            ),
            (verdict, Some(r)) => format!(
                "verdict: {} — time ×{r:.2} (±{:.2}), instructions {instructions}",
                verdict.words(),
                self.uncertainty
            ),
            (verdict, None) => format!(
                "verdict: {} — too little time in one profile or both to compare, instructions {instructions}",
                verdict.words()
            ),
        }
    }
}

/// The estimated totals of `before` and `after` at one calibration, the
/// mean of their costs, where both are sampled profiles that rest on
/// different costs and record what their estimates were worked out from;
/// `None` otherwise, when each profile's own total is the one to compare.
///
/// Each total is scaled by how its estimate moves from its own costs to
/// the common ones, so a profile whose own costs were the common ones
/// keeps its total exactly.
fn at_one_calibration(before: &Profile, after: &Profile) -> Option<(f64, f64)> {
    let (b, a) = (before.estimate?, after.estimate?);
    // A measured total rests on no calibration.
    if b.costs == a.costs || b.replay.is_some() || a.replay.is_some() {
        return None;
    }
    let mean = |x: f64, y: f64| (x + y) / 2.0;
    let common = StopCosts {
        fast: mean(b.costs.fast, a.costs.fast),
        instruction: mean(b.costs.instruction, a.costs.instruction),
        heavy: mean(b.costs.heavy, a.costs.heavy),
        quick: mean(b.costs.quick, a.costs.quick),
        call: mean(b.costs.call, a.costs.call),
    };
    let moved = |profile: &Profile, estimate: &Estimate| -> Option<f64> {
        let own = estimate.net_nanos_at(&estimate.costs)?;
        let there = estimate.net_nanos_at(&common)?;
        Some(profile.estimated_nanos(&profile.total) * there / own)
    };
    Some((moved(before, &b)?, moved(after, &a)?))
}

/// Why two profiles are taken to be of different programs (see
/// [`Diff::checked`] for the rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DifferentPrograms {
    /// The programs were run with different arguments.
    Arguments {
        /// The first profile's arguments.
        before: Vec<String>,
        /// The second profile's arguments.
        after: Vec<String>,
    },
    /// Fewer than half of the functions of the two, taken together, are in
    /// both (after pairing the entry modules).
    Functions {
        /// Functions in both.
        common: usize,
        /// Functions in either.
        either: usize,
    },
}

impl fmt::Display for DifferentPrograms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DifferentPrograms::Arguments { before, after } => write!(
                f,
                "the profiles are of runs with different arguments ({:?} and {:?}), so their times do not compare",
                before, after
            ),
            DifferentPrograms::Functions { common, either } => write!(
                f,
                "the profiles look like two different programs: only {common} of their {either} functions are in both"
            ),
        }
    }
}

impl std::error::Error for DifferentPrograms {}

/// One row matched across the two profiles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffRow {
    /// What the row is: a function, callee, opcode or `path:line`, named as
    /// the first profile names it.
    pub name: String,
    /// Its cost in the first profile (all zero if it was not there).
    pub before: Cost,
    /// Its cost in the second profile (all zero if it is gone).
    pub after: Cost,
    /// Its estimated unprofiled time in the first profile, in whole
    /// nanoseconds (see [`estimated_nanos`]).
    pub estimated_before: u64,
    /// Its estimated unprofiled time in the second profile.
    pub estimated_after: u64,
}

impl DiffRow {
    /// Whether it ran fewer instructions and took more estimated time: the
    /// row a count-only comparison would misread.
    pub fn fewer_but_slower(&self) -> bool {
        self.after.ran < self.before.ran && self.estimated_after > self.estimated_before
    }

    /// The change in estimated nanoseconds, after minus before.
    pub fn nanos_change(&self) -> i128 {
        i128::from(self.estimated_after) - i128::from(self.estimated_before)
    }
}

/// Two profiles compared, section by section.
#[derive(Debug, Clone)]
pub struct Diff {
    before: Profile,
    after: Profile,
    /// The entry modules paired, `(before, after)`, when their names differ.
    paired: Option<(String, String)>,
    /// By function (self cost), by callee, by opcode and by line, each
    /// sorted by how far the estimated time moved, most first.
    sections: Vec<(&'static str, Vec<DiffRow>)>,
    /// The two programs timed side by side, when a host did.
    side_by_side: Option<SideBySide>,
}

impl Diff {
    /// Compares `before` with `after`, whatever programs they are of.
    ///
    /// The entry modules are paired when their names differ (see the
    /// module doc).
    pub fn new(before: &Profile, after: &Profile) -> Diff {
        let paired = match (before.entry_module(), after.entry_module()) {
            (Some(b), Some(a)) if a != b => Some((b, a)),
            _ => None,
        };
        let rename = Renamer(paired.as_ref());
        let (fb, fa) = (before.floor.nanos, after.floor.nanos);
        let functions = |p: &Profile, rename: &dyn Fn(&str) -> String| -> Vec<(String, Cost)> {
            p.functions
                .iter()
                .map(|f| (rename(&f.name), f.own.cost))
                .collect()
        };
        let callees = |g: &[Group], rename: &dyn Fn(&str) -> String| -> Vec<(String, Cost)> {
            g.iter()
                .map(|g| {
                    let name = if g.detail == "call-builtin" {
                        g.name.clone()
                    } else {
                        rename(&g.name)
                    };
                    (name, g.cost.cost)
                })
                .collect()
        };
        let opcodes = |g: &[Group]| -> Vec<(String, Cost)> {
            g.iter().map(|g| (g.name.clone(), g.cost.cost)).collect()
        };
        let same = |name: &str| name.to_string();
        let function = |name: &str| rename.function(name);
        let line = |name: &str| rename.line(name);
        let sections = vec![
            (
                "function",
                matched(
                    functions(before, &same),
                    functions(after, &function),
                    fb,
                    fa,
                ),
            ),
            (
                "callee",
                matched(
                    callees(&before.callees, &same),
                    callees(&after.callees, &function),
                    fb,
                    fa,
                ),
            ),
            (
                "opcode",
                matched(opcodes(&before.opcodes), opcodes(&after.opcodes), fb, fa),
            ),
            (
                "line",
                matched(
                    file_lines(&before.lines, &same),
                    file_lines(&after.lines, &line),
                    fb,
                    fa,
                ),
            ),
        ];
        Diff {
            before: before.clone(),
            after: after.clone(),
            paired,
            sections,
            side_by_side: None,
        }
    }

    /// This diff with its verdict taken from `timed`, the two programs run
    /// side by side, instead of from the two profiles' totals.
    pub fn with_side_by_side(mut self, timed: SideBySide) -> Diff {
        self.side_by_side = Some(timed);
        self
    }

    /// Compares `before` with `after` if they are profiles of one program.
    ///
    /// The rule, in order: two profiles that both record their arguments
    /// and whose arguments differ are refused (the same program on another
    /// input is another workload, and its time another question); two
    /// with the same IR hash are of one program; otherwise they are of
    /// different programs if fewer than half of the functions of the two
    /// together ran in both, after the entry modules are paired (an edit
    /// changes a few functions, not most of them). Names cannot tell apart
    /// two programs of one or two functions each; the arguments and the
    /// hash are what catch those.
    pub fn checked(before: &Profile, after: &Profile) -> Result<Diff, DifferentPrograms> {
        let diff = Diff::new(before, after);
        if let (Some(b), Some(a)) = (&before.program, &after.program) {
            if b.args != a.args {
                return Err(DifferentPrograms::Arguments {
                    before: b.args.clone(),
                    after: a.args.clone(),
                });
            }
            if b.ir_hash == a.ir_hash {
                return Ok(diff);
            }
        }
        let rows = diff.rows("function");
        let common = rows
            .iter()
            .filter(|r| r.before.ran > 0 && r.after.ran > 0)
            .count();
        let either = rows.len();
        if common * 2 < either {
            return Err(DifferentPrograms::Functions { common, either });
        }
        Ok(diff)
    }

    /// Compares two profiles written by [`crate::report::Report::json`],
    /// whatever programs they are of.
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

    /// The entry modules paired, `(before, after)`, when their names
    /// differed.
    pub fn paired(&self) -> Option<(&str, &str)> {
        self.paired.as_ref().map(|(b, a)| (b.as_str(), a.as_str()))
    }

    /// The whole run, before and after.
    pub fn total(&self) -> DiffRow {
        row(
            "total".to_string(),
            self.before.total.cost,
            self.after.total.cost,
            self.before.floor.nanos,
            self.after.floor.nanos,
        )
    }

    /// The verdict on the whole run's time, with its figures.
    pub fn summary(&self) -> Summary {
        let (b, a) = (&self.before, &self.after);
        let uncertainty = b.time_uncertainty().hypot(a.time_uncertainty());
        let instruction_ratio = (b.total.ran > 0).then(|| a.total.ran as f64 / b.total.ran as f64);
        if !b.has_time() || !a.has_time() {
            return Summary {
                verdict: Verdict::NoTime,
                time_ratio: None,
                uncertainty,
                instruction_ratio,
                recalibrated: None,
                side_by_side: None,
            };
        }
        let recalibrated = at_one_calibration(b, a);
        let (before, after) = recalibrated
            .unwrap_or_else(|| (b.estimated_nanos(&b.total), a.estimated_nanos(&a.total)));
        // An estimate of a nanosecond or less is the floor a sampled
        // estimate is held at when the profiler's cost was all the run's
        // time: nothing to compare, on either side.
        let mut time_ratio = (before > 1.0 && after > 1.0).then(|| after / before);
        let mut uncertainty = uncertainty;
        if let Some(timed) = self.side_by_side {
            time_ratio = Some(timed.ratio);
            uncertainty = timed.uncertainty;
        }
        let verdict = match time_ratio {
            Some(r) if r > 1.0 + uncertainty => Verdict::Slower,
            Some(r) if r < 1.0 / (1.0 + uncertainty) => Verdict::Faster,
            _ => Verdict::NoClearChange,
        };
        Summary {
            verdict,
            time_ratio,
            uncertainty,
            instruction_ratio,
            recalibrated,
            side_by_side: self.side_by_side,
        }
    }

    /// The verdict on the whole run's time.
    pub fn verdict(&self) -> Verdict {
        self.summary().verdict
    }

    /// The diff as text: the verdict line, the totals, then every section,
    /// each cut to `top` rows (0 prints every row).
    pub fn table(&self, top: usize) -> String {
        let total = self.total();
        let summary = self.summary();
        let mut out = String::new();
        out.push_str(&summary.line());
        out.push('\n');
        if let Some((b, a)) = self.paired() {
            let _ = writeln!(
                out,
                "paired: entry module `{a}` (after) is read as `{b}` (before)"
            );
        }
        let (b, a) = (&total.before, &total.after);
        let _ = writeln!(out, "instructions  {}", change(b.ran, a.ran));
        if self.before.has_time() && self.after.has_time() {
            let _ = writeln!(
                out,
                "est. ns       {}",
                change(total.estimated_before, total.estimated_after)
            );
            let replayed = |p: &Profile| p.estimate.and_then(|e| e.replay).is_some();
            let how = match (replayed(&self.before), replayed(&self.after)) {
                (true, true) => "measured unprofiled time: each side's replay (its fastest \
                                 unwatched run), shared out by its samples"
                    .to_string(),
                _ => format!(
                    "estimated unprofiled time: each side's ns less its floor (~{:.1} ns -> ~{:.1} \
                     ns an instruction)",
                    self.before.floor.nanos, self.after.floor.nanos,
                ),
            };
            let _ = writeln!(
                out,
                "              {how}, ±{:.0}% -> ±{:.0}%",
                self.before.time_uncertainty() * 100.0,
                self.after.time_uncertainty() * 100.0
            );
            if let Some((before, after)) = summary.recalibrated {
                let _ = writeln!(
                    out,
                    "              the verdict's, both at one calibration (the mean of the two profiles' costs): {}",
                    change(before.round() as u64, after.round() as u64)
                );
            }
            if let Some(timed) = summary.side_by_side {
                let _ = writeln!(
                    out,
                    "side by side  ×{:.3} (±{:.0}%): the verdict's, the median of {} pairs of \
                     unwatched runs of the two programs, interleaved",
                    timed.ratio,
                    timed.uncertainty * 100.0,
                    timed.pairs
                );
            }
        }
        let _ = writeln!(out, "words         {}", change(b.words, a.words));
        let _ = writeln!(
            out,
            "allocations   {}",
            change(b.allocations, a.allocations)
        );
        let timed = self.before.has_time() && self.after.has_time();
        for (section, rows) in &self.sections {
            let shown: Vec<&DiffRow> = if top == 0 {
                rows.iter().collect()
            } else {
                rows.iter().take(top).collect()
            };
            let _ = writeln!(
                out,
                "\nby {section}{}, largest change in {} first:",
                if shown.len() < rows.len() {
                    format!(" (top {} of {})", shown.len(), rows.len())
                } else {
                    String::new()
                },
                if timed {
                    "estimated time"
                } else {
                    "instructions"
                }
            );
            if shown.is_empty() {
                out.push_str("(no rows)\n");
            } else {
                out.push_str(&section_table(&shown, timed));
            }
        }
        out
    }
}

/// How the second profile's names are read when the entry modules were
/// paired: `(before, after)`.
struct Renamer<'a>(Option<&'a (String, String)>);

impl Renamer<'_> {
    /// `after_entry.f` as `before_entry.f`; any other name as it is.
    fn function(&self, name: &str) -> String {
        match self.0 {
            Some((before, after)) => match name.split_once('.') {
                Some((module, rest)) if module == after => format!("{before}.{rest}"),
                _ => name.to_string(),
            },
            None => name.to_string(),
        }
    }

    /// `after_entry.cove:12` as `before_entry.cove:12` (directories are
    /// already gone).
    fn line(&self, name: &str) -> String {
        match self.0 {
            Some((before, after)) => match name.strip_prefix(after.as_str()) {
                Some(rest) if rest.starts_with(".cove:") => format!("{before}{rest}"),
                _ => name.to_string(),
            },
            None => name.to_string(),
        }
    }
}

/// Lines keyed by file name and line, without the directories: two versions
/// of a program are often two checkouts in two places.
fn file_lines(lines: &[Group], rename: &dyn Fn(&str) -> String) -> Vec<(String, Cost)> {
    lines
        .iter()
        .map(|g| {
            let name = g.name.rsplit(['/', '\\']).next().unwrap_or(&g.name);
            (rename(name), g.cost.cost)
        })
        .collect()
}

/// A row from its two costs and the two floors.
fn row(name: String, before: Cost, after: Cost, floor_before: f64, floor_after: f64) -> DiffRow {
    DiffRow {
        name,
        estimated_before: estimated_nanos(&before, floor_before).round() as u64,
        estimated_after: estimated_nanos(&after, floor_after).round() as u64,
        before,
        after,
    }
}

/// Every name of either side, matched, sorted by how far the estimated time
/// moved (then the instructions, for profiles without time), most first.
fn matched(
    before: Vec<(String, Cost)>,
    after: Vec<(String, Cost)>,
    floor_before: f64,
    floor_after: f64,
) -> Vec<DiffRow> {
    let mut costs: BTreeMap<String, (Cost, Cost)> = BTreeMap::new();
    for (name, cost) in before {
        costs.entry(name).or_default().0.add(&cost);
    }
    for (name, cost) in after {
        costs.entry(name).or_default().1.add(&cost);
    }
    let mut rows: Vec<DiffRow> = costs
        .into_iter()
        .map(|(name, (b, a))| row(name, b, a, floor_before, floor_after))
        .collect();
    rows.sort_by_key(|row| {
        std::cmp::Reverse((
            row.nanos_change().unsigned_abs(),
            row.before.ran.abs_diff(row.after.ran),
        ))
    });
    rows
}

/// `before -> after  (+delta, ×1.04)`.
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
        _ => format!("×{}", significant(after as f64 / before as f64)),
    }
}

/// A ratio to three significant figures, trailing zeros dropped: `0.099`,
/// `1.24`, `11`.
fn significant(r: f64) -> String {
    if !r.is_finite() || r <= 0.0 {
        return format!("{r}");
    }
    let magnitude = r.log10().floor() as i32;
    let decimals = (2 - magnitude).max(0) as usize;
    let text = format!("{r:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// One section as an aligned table; without time (`timed` false) the
/// estimated-time columns, all zero, are left out.
fn section_table(rows: &[&DiffRow], timed: bool) -> String {
    use crate::report::thousands as t;
    let keep = |i: usize| timed || !(4..8).contains(&i);
    let head = [
        "ran before",
        "ran after",
        "change",
        "ratio",
        "est ns before",
        "est ns after",
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
            let (eb, ea) = (r.estimated_before, r.estimated_after);
            vec![
                t(b.ran),
                t(a.ran),
                signed(b.ran, a.ran),
                ratio(b.ran, a.ran),
                t(eb),
                t(ea),
                signed(eb, ea),
                ratio(eb, ea),
                t(b.allocations),
                t(a.allocations),
                signed(b.allocations, a.allocations),
                if r.fewer_but_slower() { "!" } else { "" }.to_string(),
                r.name.clone(),
            ]
            .into_iter()
            .enumerate()
            .filter(|(i, _)| keep(*i))
            .map(|(_, cell)| cell)
            .collect()
        })
        .collect();
    let head: Vec<&str> = head
        .into_iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(_, h)| h)
        .collect();
    let mut widths: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_keeps_three_significant_figures_and_no_trailing_zeros() {
        assert_eq!(significant(0.0990), "0.099");
        assert_eq!(significant(1.2412), "1.24");
        assert_eq!(significant(11.0), "11");
        assert_eq!(significant(0.5), "0.5");
    }
}
