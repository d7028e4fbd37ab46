//! Folded stacks: `m.main;m.fib;m.fib 123`, one path of calls a line.
//!
//! The format `flamegraph.pl`, `inferno-flamegraph` and speedscope read.
//! Each line's number is the *self* cost of the innermost function on that
//! path, of one metric (a file holds one metric; a flame graph has one
//! width), so the lines sum to the run's total of that metric. Lines are
//! sorted, and a path that cost nothing of the metric is left out.
//!
//! **Tasks.** A profile that followed spawned tasks starts every line with
//! a frame naming its task — `task 0;m.main;...`, `task 1;pool.worker;...`
//! — so a flame graph has one root per task and two tasks running the same
//! function are never merged. Task 0 gets its frame too: a graph whose top
//! row is the tasks reads more plainly than one where the first task is
//! the background. A profile of one task has no task frame, as before.
//!
//! **Blocked time.** A folded file of time holds running time only: what a
//! task spent parked in `join` or `recv` is not in any line, as py-spy
//! leaves out idle threads. A report made [`Report::with_idle`] adds it
//! back as a leaf frame [`BLOCKED_FRAME`] under the path that waited
//! (`m.main;(blocked) 1000000`), so a flame graph shows the wait where it
//! happened and wide, without mixing it into the frame's own running time
//! (a leaf frame rather than extra weight on the frame itself: the graph
//! then tells waiting and working apart). The other metrics have no
//! blocked part and are the same either way.
//!
//! **Deep recursion.** A path longer than [`FOLDED_MAX_FRAMES`] frames is written
//! as its outermost `FOLDED_MAX_FRAMES - 2` frames, a `…` frame, and its innermost
//! frame: a runaway recursion 20,000 calls deep is a tower of 126 frames,
//! then `…`, then the function whose self cost the line is, so the
//! innermost function's own cost stays under its own name. Written whole,
//! the lines of a recursion n deep hold n²/2 frames (5,000 deep was 251 MB
//! of JSON and as much folded text); capped, the file is linear in the
//! number of calling contexts. Capping rather than run-length compressing
//! (`fib;fib×4990`) because it bounds every line, mutual recursion
//! (`a;b;a;b;…`) included, and leaves every path of ordinary depth exactly
//! as it was. Each line is made from its caller's, kept for the shallow
//! nodes only, so the time is linear too.

use std::collections::BTreeMap;

use super::{Metric, Report};

/// The most frames a folded line holds; deeper paths are cut in the middle
/// (see the module doc).
pub const FOLDED_MAX_FRAMES: usize = 128;

/// How many of the outermost frames a cut path keeps.
const HEAD: usize = FOLDED_MAX_FRAMES - 2;

/// The frame that stands for the frames a cut path leaves out.
pub const ELIDED_FRAME: &str = "…";

/// The leaf frame that holds a path's blocked time in a report made
/// [`Report::with_idle`].
pub const BLOCKED_FRAME: &str = "(blocked)";

impl Report<'_> {
    /// Folded stacks of `metric`: `a;b;c N`, one path a line, sorted.
    ///
    /// A spawned task's paths start at the function it was spawned on,
    /// under a `task N` frame when the profile followed tasks; a path
    /// deeper than [`FOLDED_MAX_FRAMES`] is cut with a `…` frame.
    pub fn folded(&self, metric: Metric) -> String {
        let mut lines: BTreeMap<String, u64> = BTreeMap::new();
        // Per node of the task being walked: its depth, its whole path
        // (only while it is at most FOLDED_MAX_FRAMES deep), and for a node deeper
        // than HEAD its ancestor at depth HEAD.
        let mut depth: Vec<usize> = Vec::new();
        let mut whole: Vec<Option<String>> = Vec::new();
        let mut cut: Vec<u32> = Vec::new();
        let mut task = None;
        for context in self.contexts() {
            if task != Some(context.task) {
                task = Some(context.task);
                depth.clear();
                whole.clear();
                cut.clear();
                let root = if self.follows_tasks() {
                    format!("task {}", context.task)
                } else {
                    String::new()
                };
                depth.push(0);
                whole.push(Some(root));
                cut.push(0);
            }
            let id = context.id as usize;
            let parent = context.parent as usize;
            // Nodes come in index order, after their callers; fill any gap
            // so indexing by id holds for a tree read out of order.
            if depth.len() <= id {
                depth.resize(id + 1, 0);
                whole.resize(id + 1, None);
                cut.resize(id + 1, 0);
            }
            let d = depth.get(parent).copied().unwrap_or(0) + 1;
            depth[id] = d;
            cut[id] = match d {
                d if d <= HEAD => 0,
                d if d == HEAD + 1 => context.parent,
                _ => cut.get(parent).copied().unwrap_or(0),
            };
            let name = frame_name(context.function);
            whole[id] = if d <= FOLDED_MAX_FRAMES {
                whole
                    .get(parent)
                    .and_then(|p| p.as_deref())
                    .map(|p| join(p, &name))
            } else {
                None
            };
            let n = metric.of(&context.cost);
            let idle = if self.idle() && metric == Metric::Nanos {
                context.cost.blocked
            } else {
                0
            };
            if n == 0 && idle == 0 {
                continue;
            }
            let line = match &whole[id] {
                Some(line) => line.clone(),
                None => {
                    let head = whole
                        .get(cut[id] as usize)
                        .and_then(|p| p.as_deref())
                        .unwrap_or("");
                    join(&join(head, ELIDED_FRAME), &name)
                }
            };
            if idle > 0 {
                *lines.entry(join(&line, BLOCKED_FRAME)).or_default() += idle;
            }
            if n > 0 {
                *lines.entry(line).or_default() += n;
            }
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

/// `head;frame`, or `frame` alone under an empty head.
fn join(head: &str, frame: &str) -> String {
    if head.is_empty() {
        frame.to_string()
    } else {
        format!("{head};{frame}")
    }
}

/// A function name as a frame: `;` separates frames and the last space
/// separates the count, so neither may appear inside one.
fn frame_name(name: &str) -> String {
    name.replace(';', ":").replace(char::is_whitespace, "_")
}
