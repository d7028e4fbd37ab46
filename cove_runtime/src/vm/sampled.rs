//! The profiler design the seed rejected, kept so its cost stays measurable.
//!
//! Before the profiler became a debugger that never stops, it was a
//! `Profile` on the machine, read at the safepoint: one sample every
//! [`SAFEPOINT_STRIDE`](super::exec::SAFEPOINT_STRIDE) instructions. It cost
//! 2.9% on `arith` with no profile installed — an `Option` field nothing
//! read, paid for through `Machine`'s size and the safepoint's extra branch —
//! and it sampled where the debugger seam counts.
//!
//! This module exists only under the `sampled-profile` cargo feature, which
//! adds the field to `Machine` and the read to the safepoint, so that
//! `cargo xtask bench-overhead` can build that shape and compare it with
//! today's, off against off. Nothing in the default build refers to it.
//!
//! This module, with the two lines under the same feature that reach it
//! (the field on `Machine`, the sample at the safepoint), is the one place
//! the runtime knows that a profiler once existed: the profiler of today
//! is a debugger like any other, behind the seam in `vm::debug`. It is
//! public under its feature so that what it offers is used, not kept
//! compiling by a dead-code allowance.

use std::collections::HashMap;

use cove_ir::program::Function;

/// Samples taken at safepoints: how often each function was the one
/// running when a stride ended, keyed by qualified name (a sampled profile
/// was printed, never joined with a program).
#[derive(Debug, Default, Clone)]
pub struct SampledProfile {
    samples: HashMap<String, u64>,
}

impl SampledProfile {
    /// An empty profile.
    pub fn new() -> SampledProfile {
        SampledProfile::default()
    }

    #[inline]
    pub(crate) fn sample(&mut self, function: &Function, _pc: usize) {
        *self.samples.entry(function.qualified.clone()).or_default() += 1;
    }

    /// Samples per function, most first.
    pub fn by_function(&self) -> Vec<(String, u64)> {
        let mut rows: Vec<(String, u64)> =
            self.samples.iter().map(|(f, n)| (f.clone(), *n)).collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        rows
    }
}
