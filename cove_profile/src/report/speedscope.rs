//! speedscope's own file format (`https://www.speedscope.app/file-format-schema.json`).
//!
//! speedscope also reads folded stacks, but a folded file holds one metric
//! and no source locations; its own format holds every metric of every task
//! in one file, with each frame's file and line. So: one frame per function
//! (name, absolute file, first line), and one "sampled" profile per task and
//! metric, whose samples are the calling-context tree's paths weighted by
//! their self cost. That is exact (a sample here is a path, not a timer
//! tick), and the file is as large as the tree, not as the run. A metric the
//! task has none of (a run that allocated nothing) gets no profile, so the
//! viewer opens on something to see. A path deeper than
//! [`FOLDED_MAX_FRAMES`](super::folded::FOLDED_MAX_FRAMES) is cut as folded
//! stacks cut it, with a `…` frame, and the paths a cut makes alike (the
//! levels of a runaway recursion below the cut) are one sample, so the
//! file is as large as the distinct cut paths: a recursion 100,000 deep
//! wrote 26 MB, one path a level, and now writes a few kilobytes. Time spent blocked is in no profile
//! unless the report was made [`Report::with_idle`], which adds each path
//! that waited with a `(blocked)` leaf frame to the time profile, as the
//! folded stacks do.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::folded::{BLOCKED_FRAME, ELIDED_FRAME, FOLDED_MAX_FRAMES};
use super::{Metric, Report};
use crate::context::ROOT;

/// The schema speedscope's files name.
const SCHEMA: &str = "https://www.speedscope.app/file-format-schema.json";

impl Report<'_> {
    /// The profile in speedscope's file format, as JSON.
    pub fn speedscope(&self) -> String {
        let program = self.program;
        let mut frames: Vec<Value> = (0..program.functions.len())
            .map(|index| {
                let id = cove_ir::program::FunctionId(index as u32);
                let mut frame = json!({
                    "name": program.function_name(id),
                    "file": self.absolute_path_of(id),
                });
                if let Some(line) = program.line_of(id, 0) {
                    frame["line"] = json!(line);
                }
                frame
            })
            .collect();
        // The frame that stands for those a deep path leaves out.
        let elided = frames.len() as u32;
        frames.push(json!({ "name": ELIDED_FRAME }));
        // The leaf frame of a path's blocked time, under `with_idle` only,
        // so a file made without it is what it always was.
        let blocked = frames.len() as u32;
        if self.idle() {
            frames.push(json!({ "name": BLOCKED_FRAME }));
        }
        let mut profiles = Vec::new();
        for task in &self.tasks {
            let paths = task.tree.capped_paths(FOLDED_MAX_FRAMES);
            for metric in Metric::ALL {
                let mut samples: Vec<Vec<u32>> = Vec::new();
                let mut weights: Vec<u64> = Vec::new();
                // Where each shared path's sample is (see `capped_paths`),
                // its blocked one's beside it: the levels of a recursion
                // below the cut are one sample, not one each.
                let mut sample_of: HashMap<(u32, bool), usize> = HashMap::new();
                let mut add = |path: u32, waited: bool, stack: &dyn Fn() -> Vec<u32>, weight| {
                    let at = *sample_of.entry((path, waited)).or_insert_with(|| {
                        samples.push(stack());
                        weights.push(0);
                        samples.len() - 1
                    });
                    weights[at] += weight;
                };
                for (id, node) in task.tree.nodes.iter().enumerate() {
                    if id == ROOT as usize {
                        continue;
                    }
                    let weight = metric.of(&node.cost);
                    let idle = if self.idle() && metric == Metric::Nanos {
                        node.cost.blocked
                    } else {
                        0
                    };
                    if weight == 0 && idle == 0 {
                        continue;
                    }
                    let (path, frames) = paths.of(id);
                    let stack = || -> Vec<u32> {
                        frames.iter().map(|f| f.map_or(elided, |f| f.0)).collect()
                    };
                    if idle > 0 {
                        let waited = || {
                            let mut waited = stack();
                            waited.push(blocked);
                            waited
                        };
                        add(path, true, &waited, idle);
                    }
                    if weight > 0 {
                        add(path, false, &stack, weight);
                    }
                }
                let total: u64 = weights.iter().sum();
                if total == 0 && metric != Metric::Ran {
                    continue;
                }
                profiles.push(json!({
                    "type": "sampled",
                    "name": format!("task {}: {}", task.task, metric.unit()),
                    "unit": if metric == Metric::Nanos { "nanoseconds" } else { "none" },
                    "startValue": 0,
                    "endValue": total,
                    "samples": samples,
                    "weights": weights,
                }));
            }
        }
        let document = json!({
            "$schema": SCHEMA,
            "name": format!("cove profile {}", self.title()),
            "exporter": format!("cove_profile {}", env!("CARGO_PKG_VERSION")),
            "activeProfileIndex": 0,
            "shared": { "frames": frames },
            "profiles": profiles,
        });
        let mut text = serde_json::to_string(&document).unwrap_or_default();
        text.push('\n');
        text
    }
}
