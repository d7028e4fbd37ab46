//! `cove diff`'s runs side by side: the two programs of two profiles run
//! again, unwatched, in interleaved pairs, so that the verdict's ratio is
//! measured at the same moments for both.
//!
//! A profile's total is measured ([`crate::replay`]), but at one moment,
//! and on a shared machine the moment matters: on the 2-core machine this
//! was written on, the story's byte loop took 8 ms in some seconds and
//! 13 ms in others, and a diff of two profiles made a few seconds apart
//! read a change of ×1.17 as anything from ×0.73 to ×1.91. Two programs
//! run turn about, a pair at a time, share each moment, and the median
//! of the pairs' ratios is what benchmark tools report for the same
//! reason (`hyperfine`'s interleaving, criterion's paired samples).
//!
//! When: both profiles measured their total by a replay (so each program
//! is one that may be run again: it wrote no files, was not read from
//! stdin and, if it can spawn tasks, was profiled without following
//! them, each run timed by its main task's processor time as a replay
//! is; and it is run, as a replay is, with writes
//! refused), neither run read standard input (a profile does not keep
//! it), and each replay's fastest run took at most [`AUTO_LIMIT`], unless
//! `--rerun` asks whatever the time; never with `--no-rerun`. Each run
//! must report the program's IR hash and instruction count that its
//! profile recorded: a file edited since it was profiled, or moved away,
//! is not run in its profile's name, and the diff then says why and
//! judges by the totals.
//!
//! What it costs: [`LEAST_PAIRS`] to [`MOST_PAIRS`] pairs of runs, as many
//! as fit in [`BUDGET`] after the least, each a process of its own: about
//! a second for programs of a few tens of milliseconds, ten for programs
//! of a second. A terminal shows the pairs made as they are.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use cove_profile::diff::SideBySide;
use cove_profile::report::Profile;

use crate::cli::LimitArgs;
use crate::interrupt;
use crate::progress::Progress;
use crate::replay::{Outcome, run_once};

/// A replay longer than this is not run side by side unless asked: the
/// least pairs of two such runs take ten seconds.
pub const AUTO_LIMIT: Duration = Duration::from_secs(1);

/// Pairs made at least, when any are.
pub const LEAST_PAIRS: u32 = 5;

/// Pairs made at most.
pub const MOST_PAIRS: u32 = 21;

/// Pairs are made past the least while the runs so far took less than
/// this in all.
pub const BUDGET: Duration = Duration::from_secs(1);

/// How a diff's runs side by side went.
#[derive(Debug, Clone, PartialEq)]
pub enum SideBySideOutcome {
    /// The ratio of the pairs.
    Timed(SideBySide),
    /// Not made, for no reason worth a word: a profile without a replay
    /// (one made before replays, with `--no-replay`, under another clock),
    /// or `--no-rerun`.
    Quietly,
    /// Not made, for the reason given.
    Skipped(String),
    /// A Ctrl-C stopped it.
    Interrupted,
}

/// One side: what to run and what it must report.
struct Side<'a> {
    entry: &'a str,
    args: &'a [String],
    ir_hash: &'a str,
    instructions: u64,
}

/// Times the programs of `before` and `after` side by side, when they may
/// be (see the module doc); `always` is `--rerun`.
pub fn side_by_side(before: &Profile, after: &Profile, always: bool) -> SideBySideOutcome {
    let (Some(b), Some(a)) = (side(before), side(after)) else {
        return SideBySideOutcome::Quietly;
    };
    let replays = [before, after].map(|p| p.estimate.and_then(|e| e.replay));
    let (Some(rb), Some(ra)) = (replays[0], replays[1]) else {
        return SideBySideOutcome::Quietly;
    };
    if rb.input_bytes > 0 || ra.input_bytes > 0 {
        return SideBySideOutcome::Skipped(
            "a run read standard input, which its profile does not keep".to_string(),
        );
    }
    let limit = AUTO_LIMIT.as_nanos() as u64;
    if !always && (rb.fastest_nanos > limit || ra.fastest_nanos > limit) {
        return SideBySideOutcome::Skipped(format!(
            "a run takes over {} ms (`--rerun` times them side by side anyway)",
            AUTO_LIMIT.as_millis()
        ));
    }
    let Ok(cove) = std::env::current_exe() else {
        return SideBySideOutcome::Skipped("cove could not find its own executable".to_string());
    };
    interrupt::wait_for_child();
    let made = Arc::new(AtomicU32::new(0));
    let shown = Arc::clone(&made);
    let progress = Progress::describing(
        format!("timing {} and {} side by side", b.entry, a.entry),
        move || format!("{} pairs of runs", shown.load(Ordering::Relaxed)),
    );
    let outcome = pairs(&cove, &b, &a, &made);
    progress.finish();
    interrupt::run_ended();
    outcome
}

/// The side a profile stands for, if it names its program.
fn side(profile: &Profile) -> Option<Side<'_>> {
    let subject = profile.program.as_ref()?;
    Some(Side {
        entry: &subject.entry,
        args: &subject.args,
        ir_hash: &subject.ir_hash,
        instructions: profile.total.ran,
    })
}

/// Runs the pairs, turn about: before then after, after then before.
fn pairs(cove: &Path, before: &Side<'_>, after: &Side<'_>, made: &AtomicU32) -> SideBySideOutcome {
    let no_input = Arc::new(Vec::new());
    let mut ratios: Vec<f64> = Vec::new();
    let mut spent = 0u64;
    while ratios.len() < MOST_PAIRS as usize
        && (ratios.len() < LEAST_PAIRS as usize || spent < BUDGET.as_nanos() as u64)
    {
        // `[before, after]`, each pair's run in turn, the after first in
        // every second pair.
        let sides = [before, after];
        let order = if ratios.len() % 2 == 0 {
            [0, 1]
        } else {
            [1, 0]
        };
        let mut times = [0u64; 2];
        for i in order {
            match run(cove, sides[i], &no_input) {
                Ok(cpu) => times[i] = cpu,
                Err(outcome) => return outcome,
            }
            if interrupt::pressed() {
                return SideBySideOutcome::Interrupted;
            }
        }
        spent += times[0] + times[1];
        ratios.push(times[1] as f64 / times[0].max(1) as f64);
        made.store(ratios.len() as u32, Ordering::Relaxed);
    }
    SideBySide::of(&ratios).map_or(SideBySideOutcome::Quietly, SideBySideOutcome::Timed)
}

/// One run of `side`'s program: its processor time, if it was the program
/// profiled and ran as it did.
fn run(cove: &Path, side: &Side<'_>, input: &Arc<Vec<u8>>) -> Result<u64, SideBySideOutcome> {
    // The limits of a plain `cove run`: a profile that ran under others
    // counted other instructions, which the check below refuses.
    let ran = run_once(
        cove,
        Path::new(side.entry),
        &LimitArgs::default(),
        side.args,
        input,
    )
    .map_err(|outcome| match outcome {
        Outcome::Interrupted => SideBySideOutcome::Interrupted,
        Outcome::Refused(why) => {
            SideBySideOutcome::Skipped(format!("{} could not be run again: {why}", side.entry))
        }
        other => SideBySideOutcome::Skipped(format!("{}: {other:?}", side.entry)),
    })?;
    if ran.ir_hash.as_deref() != Some(side.ir_hash) {
        return Err(SideBySideOutcome::Skipped(format!(
            "{} is not the program its profile was taken of (it was edited since)",
            side.entry
        )));
    }
    if ran.instructions != side.instructions {
        return Err(SideBySideOutcome::Skipped(format!(
            "{} ran {} instructions, where its profile counted {} (it ran under other limits)",
            side.entry, ran.instructions, side.instructions
        )));
    }
    Ok(ran.cpu)
}
