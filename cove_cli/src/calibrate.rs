//! What being profiled costs a run on this machine, measured after a
//! sampled profile's run.
//!
//! A sampled profile's time is processor time the sampler charged to where
//! the run was, less what the profiler itself cost. The profiler's slow
//! stops the sampler sees (it knows when the task is inside one), but the
//! rest — a fast stop, whatever the watched loop's code costs an
//! instruction beyond the unwatched loop's (no test since the stretch
//! test left the instructions that end no stretch, but not nothing: the
//! two loops are compiled apart), and the loop's part of a stop after an allocation
//! or a builtin, or after a call or a return, which it builds out of line
//! around the profiler's — is spent in the run's own work and no sample
//! can tell it apart. So it is measured here, as the difference it makes:
//! five small programs, one whose stretches are long, one whose are short,
//! one that allocates and calls a builtin every turn, one that only calls
//! a builtin that allocates nothing, and one that calls a small function
//! every turn, each run unwatched and then under a counting
//! profiler, 21 times in turn, timed by the process's processor time (a
//! run's task has a thread of its own, and time spent waiting for a core
//! is not being watched), with the profile's sampler thread already ended
//! (`Profiler::stop_sampling`: awake, it added its own time to every pair
//! and put a call's stop at 12.3 ns where it is 10.5). Each program keeps
//! the median of its pairs' differences. The first two give `stops × fast + instructions ×
//! instruction`, two equations in the two costs; the fourth, less those,
//! the cost of a stop after a builtin that moved nothing, all told; the
//! third, less all that, the cost of its stops after which the heap
//! moved; and the fifth the cost of its stops after a call or a return
//! (the profile takes off whichever is more, each of the moved and the
//! call stops' costs or what its samples saw of them). The stops after a
//! builtin that moved nothing are kept apart from those after which the
//! heap moved because they cost a third to a quarter as much: charged as
//! one, a loop calling `byte_at` was estimated at half its time.
//!
//! Why the median of pairs and not the fastest run of each kind: on a
//! shared machine a run's speed wanders by a quarter from one run to the
//! next, and the fastest plain and the fastest watched run are then two
//! different moments' luck. A plain run and the watched run just after it
//! share the moment: in six processes in a row, the short loop's median
//! pair gave 2.6 to 3.2 ns a stop where its fastest runs gave 0.6 to 2.9
//! (docs/PROFILING.md has the figures, and what still strays).
//!
//! It runs after the program, and its measurement is kept for ten minutes
//! (see [`stop_costs`]); it is the reason the estimate of an unprofiled
//! run's time lands near it rather than a third above (`cargo xtask
//! profile-accuracy` prints both). The profiler crate alone cannot do this:
//! it may not run programs (it sees runs only through the debugger seam).

use std::time::Instant;

use cove_profile::{Profiler, StopCosts, process_cpu_nanos};
use cove_runtime::Vm;

/// A loop whose body is one long stretch of arithmetic.
const LONG: &str = "export fn main() -> Int {\n  var a = 1\n  var b = 2\n  var c = 3\n  var i = 0\n  \
                    while i < TURNS {\n    a = a + i\n    b = b ^ a\n    c = c + b\n    a = a & 65535\n    \
                    b = b | 3\n    c = c & 1048575\n    i = i + 1\n  }\n  a + b + c\n}\n";

/// A loop whose body is a stretch of two instructions.
const SHORT: &str =
    "export fn main() -> Int {\n  var i = 0\n  while i < TURNS {\n    i = i + 1\n  }\n  i\n}\n";

/// A loop whose every turn allocates a list and calls a builtin that does
/// not allocate: two stops a turn after an allocation or a builtin, the
/// kind the loop builds out of line, one after which the heap moved and
/// one after which it did not.
const HEAVY: &str = "export fn main() -> Int {\n  var total = 0\n  var i = 0\n  let word = \"calibration\"\n  \
                     while i < TURNS {\n    let pair = [i, total]\n    \
                     total = (total + pair.length() + word.length()) & 1048575\n    i = i + 1\n  }\n  \
                     total\n}\n";

/// A loop whose every turn calls a builtin that does not allocate: a stop
/// a turn that the loop builds out of line and the profiler finds in the
/// heap of the stop before.
const QUICK: &str = "export fn main() -> Int {\n  var total = 0\n  var i = 0\n  let word = \"calibration\"\n  \
                     while i < TURNS {\n    total = (total + word.length()) & 1048575\n    i = i + 1\n  }\n  \
                     total\n}\n";

/// A loop that calls a small function every turn: a stop after a call and
/// one after a return each turn, the kind whose profiler's part the
/// sampler sees and whose loop's part it does not.
const CALLS: &str = "fn step(total: Int, i: Int) -> Int {\n  (total + i) & 1048575\n}\n\n\
                     export fn main() -> Int {\n  var total = 0\n  var i = 0\n  \
                     while i < TURNS {\n    total = step(total, i)\n    i = i + 1\n  }\n  \
                     total\n}\n";

/// How many times each pair of runs is repeated; the median of the pairs'
/// differences is kept.
const TRIES: usize = 21;

/// How many measurements are kept at most, and for how long: a profile
/// takes the median of those kept, and measures anew only while fewer
/// than this many are younger than [`KEPT_FOR`]. One: see [`stop_costs`].
const KEPT: usize = 1;
const KEPT_FOR: u64 = 600;

/// How many times a measurement is made before a profile goes without
/// one, when each comes out implausible (see [`measure_costs`]).
const ATTEMPTS: usize = 3;

/// The costs of being watched on this machine: the median, cost by cost,
/// of the [`KEPT`] measurements made in the last ten minutes, after making
/// one more if fewer were; `None` if none could be made (a measurement
/// that came out meaningless, as a loaded machine can make the watched run
/// look faster, is not kept).
///
/// The measurements are kept in a file in the system's temporary
/// directory, for this build of `cove` (its version and the executable's
/// modification time), one line each with the time it was made. One
/// measurement runs each of five programs for about 300,000 instructions,
/// plainly and watched, 22 times (the first a warm-up), some 150 to
/// 250 ms of processor time in all (up to [`ATTEMPTS`] times that when a
/// measurement comes out implausible and is made again), so the first
/// profile in ten minutes pays for it and the rest for nothing, and every profile made in those
/// minutes rests on the same figures (`cove diff` weighs two made on
/// different ones at their mean).
///
/// Why one and not the median of five, as from 2 December 2026 to the
/// eighteenth session: five measurements made within a few minutes share
/// those minutes' speed of the machine, and runs of `cargo xtask
/// profile-accuracy` with the median of five agreed no better than runs
/// with one (docs/PROFILING.md), while each of the first five profiles
/// paid for a measurement: on a 30 ms run, some eight times its own cost,
/// five times over.
pub fn stop_costs() -> Option<StopCosts> {
    let cache = cache_path();
    let now = unix_seconds();
    let mut kept = cache
        .as_deref()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .map(|text| read_kept(&text, now))
        .unwrap_or_default();
    if kept.len() < KEPT
        && let Some(measured) = (0..ATTEMPTS).find_map(|_| measure_costs())
    {
        kept.push((now, measured));
        if let Some(path) = cache {
            let _ = std::fs::write(path, write_kept(&kept));
        }
    }
    median_costs(&kept)
}

/// Seconds since the epoch, 0 if the clock is before it.
fn unix_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The kept measurements younger than [`KEPT_FOR`] at `now`, the newest
/// [`KEPT`] of them; a line that is not whole (a file written by another
/// `cove` as this one read it) is left out.
fn read_kept(text: &str, now: u64) -> Vec<(u64, StopCosts)> {
    let mut kept: Vec<(u64, StopCosts)> = text
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let made: u64 = words.next()?.parse().ok()?;
            let numbers: Vec<f64> = words
                .map(|w| w.parse::<f64>().ok())
                .collect::<Option<_>>()?;
            let [fast, instruction, heavy, quick, call] = numbers[..] else {
                return None;
            };
            (made <= now && now - made < KEPT_FOR).then_some((
                made,
                StopCosts {
                    fast,
                    instruction,
                    heavy,
                    quick,
                    call,
                },
            ))
        })
        .collect();
    kept.sort_by_key(|(made, _)| *made);
    let excess = kept.len().saturating_sub(KEPT);
    kept.drain(..excess);
    kept
}

/// The kept measurements as the file holds them.
fn write_kept(kept: &[(u64, StopCosts)]) -> String {
    kept.iter()
        .map(|(made, c)| {
            format!(
                "{made} {} {} {} {} {}\n",
                c.fast, c.instruction, c.heavy, c.quick, c.call
            )
        })
        .collect()
}

/// The median of each cost over `kept`, `None` for none.
fn median_costs(kept: &[(u64, StopCosts)]) -> Option<StopCosts> {
    if kept.is_empty() {
        return None;
    }
    let median = |cost: fn(&StopCosts) -> f64| {
        let mut values: Vec<f64> = kept.iter().map(|(_, c)| cost(c)).collect();
        values.sort_by(f64::total_cmp);
        let n = values.len();
        if n % 2 == 1 {
            values[n / 2]
        } else {
            (values[n / 2 - 1] + values[n / 2]) / 2.0
        }
    };
    Some(StopCosts {
        fast: median(|c| c.fast),
        instruction: median(|c| c.instruction),
        heavy: median(|c| c.heavy),
        quick: median(|c| c.quick),
        call: median(|c| c.call),
    })
}

/// Where this build's measurements are kept.
fn cache_path() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let built = std::fs::metadata(&exe)
        .and_then(|m| m.modified())
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(std::env::temp_dir().join(format!(
        "cove-{}-{built}-stop-costs",
        env!("CARGO_PKG_VERSION")
    )))
}

/// Measures the five costs now: `None` if a run failed or the result is
/// not [`plausible`].
fn measure_costs() -> Option<StopCosts> {
    // A turn of LONG is about 12 instructions, of SHORT 2, of HEAVY 10, of
    // QUICK 6 and of CALLS 6.
    let long = Program::of(&LONG.replace("TURNS", "25000"))?;
    let short = Program::of(&SHORT.replace("TURNS", "150000"))?;
    let heavy = Program::of(&HEAVY.replace("TURNS", "30000"))?;
    let quick = Program::of(&QUICK.replace("TURNS", "40000"))?;
    let calls = Program::of(&CALLS.replace("TURNS", "30000"))?;
    let mut tries: [Vec<Extra>; 5] = Default::default();
    // One unmeasured round first, so no measured run pays for a cold cache
    // or a page the heap has not touched yet; then the rounds, each
    // program in turn, so a change in the machine's speed lands on all
    // five alike.
    for round in 0..=TRIES {
        for (kept, program) in tries
            .iter_mut()
            .zip([&long, &short, &heavy, &quick, &calls])
        {
            let pair = program.pair()?;
            if round > 0 {
                kept.push(pair);
            }
        }
    }
    let [long, short, heavy, quick, calls] = tries.map(median);
    let (long, short, heavy, quick, calls) = (long?, short?, heavy?, quick?, calls?);
    // extra = stops * fast + instructions * instruction, for LONG and
    // SHORT, whose stops are all after a branch; neither cost below zero.
    let (fast, instruction) = solve_two(
        [long.counts.stops, long.counts.instructions, long.extra],
        [short.counts.stops, short.counts.instructions, short.extra],
    );
    let (h, q, c) = (heavy.counts, quick.counts, calls.counts);
    let quick_stops = q.heavy - q.moved;
    if h.moved < 1.0 || quick_stops < 1.0 || c.calls < 1.0 {
        return None;
    }
    let unexplained = |extra: f64, counts: Counts| {
        extra - counts.stops * fast - counts.instructions * instruction
    };
    // QUICK's extra, less what its stops and instructions cost as any
    // other's, is what its stops after a builtin that moved nothing cost;
    // HEAVY's, less its own such stops, what its stops after which the
    // heap moved cost.
    let quick_each = (unexplained(quick.extra, q) / quick_stops).max(0.0);
    let rest = unexplained(heavy.extra, h) - (h.heavy - h.moved) * quick_each;
    let heavy_each = (rest / h.moved).max(0.0);
    // CALLS's the same, less its stops after a builtin if it has any, is
    // what its stops after a call or a return cost.
    let rest =
        unexplained(calls.extra, c) - c.moved * heavy_each - (c.heavy - c.moved) * quick_each;
    let call = (rest / c.calls).max(0.0);
    let costs = StopCosts {
        fast,
        instruction,
        heavy: heavy_each,
        quick: quick_each,
        call,
    };
    plausible(&costs).then_some(costs)
}

/// Whether a measurement could be what stops cost. A loaded machine can
/// make either run of a pair slow; a result no stop could cost is not
/// kept. Nor is one that puts a stop after an allocation at nothing, or
/// below a stop after a builtin that moved nothing: the first does all the
/// second does and records what the heap handed out, so such a result says
/// a slow moment landed on QUICK's watched runs (one such, 8.1 ns a quick
/// stop and 0 an allocation's, took 3.6 ms off a 10 ms profile of a loop
/// of `byte_at`s, where a quick stop costs under 2 ns).
fn plausible(c: &StopCosts) -> bool {
    c.fast < 20.0
        && c.instruction < 5.0
        && c.heavy < 500.0
        && c.quick < 500.0
        && c.call < 500.0
        && c.fast + c.instruction > 0.0
        && c.heavy > 0.0
        && c.quick <= c.heavy
}

/// The two costs `x` and `y` of `a·x + b·y = e`, one equation `[a, b, e]`
/// from each of two programs, neither cost below zero: the exact answer if
/// it has both at zero or above, and otherwise the better of the two
/// least-squares answers with one of them at zero (a noisy measurement
/// can push one below zero, which no cost is).
fn solve_two(first: [f64; 3], second: [f64; 3]) -> (f64, f64) {
    let [a1, b1, e1] = first;
    let [a2, b2, e2] = second;
    let det = a1 * b2 - a2 * b1;
    if det.abs() > f64::EPSILON {
        let x = (e1 * b2 - e2 * b1) / det;
        let y = (a1 * e2 - a2 * e1) / det;
        if x >= 0.0 && y >= 0.0 {
            return (x, y);
        }
    }
    let squared = |p: f64, q: f64| p * p + q * q;
    let x_alone = if squared(a1, a2) > 0.0 {
        ((a1 * e1 + a2 * e2) / squared(a1, a2)).max(0.0)
    } else {
        0.0
    };
    let y_alone = if squared(b1, b2) > 0.0 {
        ((b1 * e1 + b2 * e2) / squared(b1, b2)).max(0.0)
    } else {
        0.0
    };
    let missed_x = squared(e1 - a1 * x_alone, e2 - a2 * x_alone);
    let missed_y = squared(e1 - b1 * y_alone, e2 - b2 * y_alone);
    if missed_x <= missed_y {
        (x_alone, 0.0)
    } else {
        (0.0, y_alone)
    }
}

#[cfg(test)]
mod tests {
    use super::{
        KEPT, KEPT_FOR, StopCosts, median_costs, plausible, read_kept, solve_two, write_kept,
    };

    fn costs(fast: f64) -> StopCosts {
        StopCosts {
            fast,
            instruction: fast / 10.0,
            heavy: fast * 10.0,
            quick: fast * 3.0,
            call: fast * 5.0,
        }
    }

    #[test]
    fn kept_measurements_read_back_as_written_and_the_old_or_torn_ones_are_left_out() {
        let now = 10_000;
        let kept = vec![(now - 5, costs(1.0)), (now - 1, costs(2.0))];
        let mut text = write_kept(&kept);
        text.push_str(&format!("{} 9 9 9 9 9\n", now - KEPT_FOR));
        text.push_str(&format!("{} 3 0.3", now - 2));
        assert_eq!(read_kept(&text, now), kept[kept.len() - KEPT..]);
    }

    #[test]
    fn only_the_newest_are_kept() {
        let now = 10_000;
        let many: Vec<_> = (0..8).map(|i| (now - 8 + i, costs(i as f64))).collect();
        let kept = read_kept(&write_kept(&many), now);
        assert_eq!(kept.len(), KEPT);
        assert_eq!(kept[0], many[many.len() - KEPT]);
    }

    #[test]
    fn the_costs_are_the_median_of_each_kept_cost() {
        let kept: Vec<_> = [3.0, 1.0, 2.0, 40.0, 2.5]
            .into_iter()
            .enumerate()
            .map(|(i, f)| (i as u64, costs(f)))
            .collect();
        assert_eq!(median_costs(&kept), Some(costs(2.5)));
        assert_eq!(median_costs(&kept[..2]), Some(costs(2.0)));
        assert_eq!(median_costs(&[]), None);
    }

    #[test]
    fn a_measurement_with_a_quick_stop_dearer_than_an_allocations_is_not_kept() {
        let costs = |heavy, quick| StopCosts {
            fast: 0.7,
            instruction: 0.08,
            heavy,
            quick,
            call: 9.4,
        };
        // The one that went wrong: 8.1 ns a quick stop, an allocation's 0.
        assert!(!plausible(&costs(0.0, 8.13)));
        assert!(!plausible(&costs(2.0, 3.0)));
        // What the machine usually measures: an allocation's 3-5 ns, a
        // quick stop's nothing to a fraction of that.
        assert!(plausible(&costs(4.65, 0.0)));
        assert!(plausible(&costs(4.39, 0.31)));
    }

    #[test]
    fn two_consistent_measurements_give_both_costs_exactly() {
        // 2 and 0.5: 100 stops and 1,000 instructions, then 500 and 1,000.
        let (x, y) = solve_two([100.0, 1000.0, 700.0], [500.0, 1000.0, 1500.0]);
        assert!((x - 2.0).abs() < 1e-9 && (y - 0.5).abs() < 1e-9, "{x} {y}");
    }

    #[test]
    fn a_measurement_that_would_make_a_cost_negative_puts_that_cost_at_zero() {
        // Exactly solved, the first cost would be -1 (with the second 1):
        // the better answer with a cost at zero is taken instead.
        let (x, y) = solve_two([100.0, 1000.0, 900.0], [500.0, 1000.0, 500.0]);
        assert_eq!(x, 0.0);
        assert!(y > 0.0 && y < 1.0, "{y}");
    }
}

/// A calibration program, compiled.
struct Program(cove_ir::program::Program);

/// What a watched run of a calibration program counted (the same in
/// every try): its stops, those after an allocation or a builtin, those
/// after a call or a return, and its instructions.
#[derive(Clone, Copy)]
struct Counts {
    stops: f64,
    heavy: f64,
    /// Those of `heavy` after which the heap had moved.
    moved: f64,
    calls: f64,
    instructions: f64,
}

/// A program's counts and the time being watched added to its run: for one
/// pair of runs, the watched one's time less the plain one's just before
/// it; for all of a program's pairs, the median of those.
#[derive(Clone, Copy)]
struct Extra {
    counts: Counts,
    extra: f64,
}

impl Program {
    fn of(source: &str) -> Option<Program> {
        cove_compiler::compile_module("calibration", source)
            .ok()
            .map(Program)
    }

    /// Runs the program plainly and then under a counting profiler, each
    /// timed by the process's processor time.
    fn pair(&self) -> Option<Extra> {
        let mut vm = Vm::new(&self.0);
        let started = Clock::start();
        vm.run_entry("calibration", "main", Vec::new()).ok()?;
        let plain = started.elapsed();

        let profiler = Profiler::counting();
        let mut vm = Vm::new(&self.0).with_debugger(&profiler);
        let started = Clock::start();
        vm.run_entry("calibration", "main", Vec::new()).ok()?;
        let watched = started.elapsed();
        let (slow, fast) = profiler.stops();
        Some(Extra {
            counts: Counts {
                stops: (slow + fast) as f64,
                heavy: profiler.heavy_stops() as f64,
                moved: profiler.moved_stops() as f64,
                calls: profiler.call_stops() as f64,
                instructions: vm.instructions() as f64,
            },
            extra: watched - plain,
        })
    }
}

/// A reading of the process's processor time, or of the wall clock where
/// there is none.
enum Clock {
    Cpu(u64),
    Wall(Instant),
}

impl Clock {
    fn start() -> Clock {
        process_cpu_nanos().map_or_else(|| Clock::Wall(Instant::now()), Clock::Cpu)
    }

    /// Nanoseconds since the reading.
    fn elapsed(&self) -> f64 {
        match self {
            Clock::Cpu(then) => process_cpu_nanos().unwrap_or(*then).saturating_sub(*then) as f64,
            Clock::Wall(then) => then.elapsed().as_nanos() as f64,
        }
    }
}

/// The pairs' counts and the median of their differences, never below
/// nothing.
fn median(pairs: Vec<Extra>) -> Option<Extra> {
    let counts = pairs.first()?.counts;
    let mut extras: Vec<f64> = pairs.iter().map(|p| p.extra).collect();
    extras.sort_by(f64::total_cmp);
    Some(Extra {
        counts,
        extra: extras[extras.len() / 2].max(0.0),
    })
}
