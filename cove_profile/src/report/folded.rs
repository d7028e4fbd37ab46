//! Folded stacks: `m.main;m.fib;m.fib 123`, one path of calls a line.
//!
//! The format `flamegraph.pl`, `inferno-flamegraph` and speedscope read.
//! Each line's number is the *self* cost of the innermost function on that
//! path, of one metric (a file holds one metric; a flame graph has one
//! width), so the lines sum to the run's total of that metric. Lines are
//! sorted, and a path that cost nothing of the metric is left out.

use std::collections::BTreeMap;

use super::{Metric, Report};

impl Report<'_> {
    /// Folded stacks of `metric`: `a;b;c N`, one path a line, sorted.
    ///
    /// A spawned task's paths start at the function it was spawned on.
    pub fn folded(&self, metric: Metric) -> String {
        let mut lines: BTreeMap<String, u64> = BTreeMap::new();
        for (path, cost) in self.stacks() {
            let n = metric.of(&cost);
            if n == 0 {
                continue;
            }
            let frames: Vec<String> = path.iter().map(|name| frame_name(name)).collect();
            *lines.entry(frames.join(";")).or_default() += n;
        }
        let mut out = String::new();
        for (stack, n) in lines {
            out.push_str(&stack);
            out.push(' ');
            out.push_str(&n.to_string());
            out.push('\n');
        }
        out
    }
}

/// A function name as a frame: `;` separates frames and the last space
/// separates the count, so neither may appear inside one.
fn frame_name(name: &str) -> String {
    name.replace(';', ":").replace(char::is_whitespace, "_")
}
