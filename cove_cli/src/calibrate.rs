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
//! It costs about 30 ms at the start of each `cove profile` with the
//! default clock, and it is the reason the estimate of an unprofiled run's
//! time lands near it rather than a third above (`cargo xtask
//! profile-accuracy` prints both). The profiler crate alone cannot do this:
//! it may not run programs (it sees runs only through the debugger seam).

use std::time::Instant;

use cove_profile::{Profiler, StopCosts};
use cove_runtime::Vm;

/// A loop whose body is one long stretch of arithmetic.
const LONG: &str = "export fn main() -> Int {\n  var a = 1\n  var b = 2\n  var c = 3\n  var i = 0\n  \
                    while i < 200000 {\n    a = a + i\n    b = b ^ a\n    c = c + b\n    a = a & 65535\n    \
                    b = b | 3\n    c = c & 1048575\n    i = i + 1\n  }\n  a + b + c\n}\n";

/// A loop whose body is a stretch of two instructions.
const SHORT: &str =
    "export fn main() -> Int {\n  var i = 0\n  while i < 400000 {\n    i = i + 1\n  }\n  i\n}\n";

/// How many times each run is repeated; the fastest is kept.
const TRIES: usize = 3;

/// The cost of a stop and of an instruction under a stretch-stopped
/// profiler, measured on this machine now; `None` if the measurement came
/// out meaningless (a loaded machine can make the watched run look faster).
pub fn stop_costs(base: StopCosts) -> Option<StopCosts> {
    let long = measure(LONG)?;
    let short = measure(SHORT)?;
    // extra = stops * fast + instructions * instruction, for both.
    let (s1, n1, e1) = long;
    let (s2, n2, e2) = short;
    let det = s1 * n2 - s2 * n1;
    if det.abs() < f64::EPSILON {
        return None;
    }
    let fast = (e1 * n2 - e2 * n1) / det;
    let instruction = (s1 * e2 - s2 * e1) / det;
    (fast >= 0.0 && instruction >= 0.0).then_some(StopCosts {
        fast,
        instruction,
        ..base
    })
}

/// One program's stops, instructions and the extra nanoseconds a counting
/// profiler cost it.
fn measure(source: &str) -> Option<(f64, f64, f64)> {
    let program = cove_compiler::compile_module("calibration", source).ok()?;
    let mut plain = f64::MAX;
    let mut watched = f64::MAX;
    let mut counts = (0.0, 0.0);
    for _ in 0..TRIES {
        let mut vm = Vm::new(&program);
        let started = Instant::now();
        vm.run_entry("calibration", "main", Vec::new()).ok()?;
        plain = plain.min(started.elapsed().as_nanos() as f64);

        let profiler = Profiler::counting();
        let mut vm = Vm::new(&program).with_debugger(&profiler);
        let started = Instant::now();
        vm.run_entry("calibration", "main", Vec::new()).ok()?;
        watched = watched.min(started.elapsed().as_nanos() as f64);
        let (slow, fast) = profiler.stops();
        counts = ((slow + fast) as f64, vm.instructions() as f64);
    }
    Some((counts.0, counts.1, (watched - plain).max(0.0)))
}
