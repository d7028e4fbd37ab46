//! What being profiled costs a run on this machine, measured before a
//! sampled profile starts.
//!
//! A sampled profile's time is processor time the sampler charged to where
//! the run was, less what the profiler itself cost. The profiler measures
//! its slow stops itself (the sampler sees them), but the rest — a fast
//! stop, and the dispatch loop's test for a stretch's start at every
//! instruction — is inlined into the run's own work and no sample can tell
//! it apart. So it is measured here, as the difference it makes: two small
//! programs, one whose stretches are long and one whose are short, each
//! run unwatched and under a counting profiler, the best of a few runs
//! each. Their extra time is `stops × fast + instructions × instruction`,
//! two equations in the two costs.
//!
//! It runs after the program and is kept for ten minutes (see
//! [`stop_costs`]),
//! and it is the reason the estimate of an unprofiled run's
//! time lands near it rather than a third above (`cargo xtask
//! profile-accuracy` prints both). The profiler crate alone cannot do this:
//! it may not run programs (it sees runs only through the debugger seam).

use std::time::Instant;

use cove_profile::{Profiler, StopCosts};
use cove_runtime::Vm;

/// A loop whose body is one long stretch of arithmetic.
const LONG: &str = "export fn main() -> Int {\n  var a = 1\n  var b = 2\n  var c = 3\n  var i = 0\n  \
                    while i < TURNS {\n    a = a + i\n    b = b ^ a\n    c = c + b\n    a = a & 65535\n    \
                    b = b | 3\n    c = c & 1048575\n    i = i + 1\n  }\n  a + b + c\n}\n";

/// A loop whose body is a stretch of two instructions.
const SHORT: &str =
    "export fn main() -> Int {\n  var i = 0\n  while i < 400000 {\n    i = i + 1\n  }\n  i\n}\n";

/// How many times each pair of runs is repeated; the median difference
/// is kept, which a preemption in one run moves less than a minimum.
const TRIES: usize = 5;

/// The cost of a stop and of an instruction under a stretch-stopped
/// profiler, measured on this machine now; `None` if the measurement came
/// out meaningless (a loaded machine can make the watched run look faster).
///
/// A measurement is kept for ten minutes in a file in the system's temporary
/// directory, for this build of `cove` (its version and the executable's
/// modification time), so a run of short profiles pays for it once; each
/// takes about 2,000,000 instructions of each program, some 20 ms.
pub fn stop_costs() -> Option<StopCosts> {
    let cache = cache_path();
    if let Some(kept) = cache.as_deref().and_then(read_cache) {
        return Some(kept);
    }
    let measured = measure_costs()?;
    if let Some(path) = cache {
        let _ = std::fs::write(
            path,
            format!("{} {}\n", measured.fast, measured.instruction),
        );
    }
    Some(measured)
}

/// Where this build's measurement is kept.
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

/// A kept measurement, if it is there and under ten minutes old.
fn read_cache(path: &std::path::Path) -> Option<StopCosts> {
    let age = std::fs::metadata(path)
        .ok()?
        .modified()
        .ok()?
        .elapsed()
        .ok()?;
    if age > std::time::Duration::from_secs(600) {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let mut numbers = text.split_whitespace().map(|w| w.parse::<f64>());
    let (Some(Ok(fast)), Some(Ok(instruction))) = (numbers.next(), numbers.next()) else {
        return None;
    };
    Some(StopCosts { fast, instruction })
}

/// Measures the two costs now.
fn measure_costs() -> Option<StopCosts> {
    let budget: u64 = 2_000_000;
    // A turn of LONG is about 12 instructions, of SHORT 2; half the budget
    // each.
    let long = measure(&LONG.replace("TURNS", &(budget / 24).to_string()))?;
    let short = measure(&SHORT.replace("TURNS", &(budget / 4).to_string()))?;
    // extra = stops * fast + instructions * instruction, for both.
    let (s1, n1, e1) = long;
    let (s2, n2, e2) = short;
    let det = s1 * n2 - s2 * n1;
    if det.abs() < f64::EPSILON {
        return None;
    }
    let fast = (e1 * n2 - e2 * n1) / det;
    let instruction = (s1 * e2 - s2 * e1) / det;
    // A loaded machine can make either run of a pair slow; a result no
    // stop could cost is not kept.
    let plausible = (0.0..20.0).contains(&fast) && (0.0..5.0).contains(&instruction);
    plausible.then_some(StopCosts { fast, instruction })
}

/// One program's stops, instructions and the extra nanoseconds a counting
/// profiler cost it.
fn measure(source: &str) -> Option<(f64, f64, f64)> {
    let program = cove_compiler::compile_module("calibration", source).ok()?;
    let mut extra = Vec::with_capacity(TRIES);
    let mut counts = (0.0, 0.0);
    for _ in 0..TRIES {
        let mut vm = Vm::new(&program);
        let started = Instant::now();
        vm.run_entry("calibration", "main", Vec::new()).ok()?;
        let plain = started.elapsed().as_nanos() as f64;

        let profiler = Profiler::counting();
        let mut vm = Vm::new(&program).with_debugger(&profiler);
        let started = Instant::now();
        vm.run_entry("calibration", "main", Vec::new()).ok()?;
        let watched = started.elapsed().as_nanos() as f64;
        let (slow, fast) = profiler.stops();
        counts = ((slow + fast) as f64, vm.instructions() as f64);
        extra.push(watched - plain);
    }
    extra.sort_by(f64::total_cmp);
    Some((counts.0, counts.1, extra[TRIES / 2].max(0.0)))
}
