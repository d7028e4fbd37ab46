//! What one stop costs the profiler, against the seed's shape.
//!
//! The seed took a mutex and a hash-map entry for the instruction, and a
//! second mutex for the previous stop, at every instruction. This crate
//! takes one uncontended lock of the task's shard and indexes a dense
//! table. Both are timed here on the same synthetic stream of stops (a loop
//! of twelve instructions calling a function of six, real clock), so the
//! difference is the bookkeeping alone; `docs/PROFILING.md` has the figures.
//!
//! Run with `cargo bench -p cove_profile --bench record`.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Mutex;
use std::time::Instant;

use cove_ir::program::FunctionId;
use cove_profile::{Cost, Profiler, Sample, TscClock};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// A stream of stops: `main`'s loop of twelve instructions, one of which
/// calls a function of six.
fn stops() -> Vec<Sample> {
    let mut all = Vec::new();
    let at = |function: u32, pc: u32, depth: usize, n: u64| Sample {
        task: 0,
        function: FunctionId(function),
        pc,
        depth,
        allocated_words: n,
        allocations: n / 4,
        blocked_nanos: 0,
    };
    for turn in 0..1000u64 {
        for pc in 0..12 {
            all.push(at(0, pc, 1, turn));
            if pc == 6 {
                for callee_pc in 0..6 {
                    all.push(at(1, callee_pc, 2, turn));
                }
            }
        }
    }
    all
}

/// What the seed kept of the previous stop: where, when, and the two heap
/// counters.
type Previous = ((FunctionId, u32), Instant, u64, u64);

/// The seed's recorder, kept here only to be measured against.
#[derive(Default)]
struct SeedShape {
    at: Mutex<HashMap<(FunctionId, u32), Cost>>,
    last: Mutex<Option<Previous>>,
}

impl SeedShape {
    fn record(&self, stop: &Sample) {
        let now = Instant::now();
        let here = (stop.function, stop.pc);
        let mut held = self.at.lock().expect("a lock");
        held.entry(here).or_default().ran += 1;
        let mut last = self.last.lock().expect("a lock");
        if let Some((at, when, words, allocations)) = *last {
            let cost = held.entry(at).or_default();
            cost.nanos += now.saturating_duration_since(when).as_nanos() as u64;
            cost.words += stop.allocated_words.saturating_sub(words);
            cost.allocations += stop.allocations.saturating_sub(allocations);
        }
        *last = Some((here, Instant::now(), stop.allocated_words, stop.allocations));
    }
}

fn record(c: &mut Criterion) {
    let stream = stops();
    let mut group = c.benchmark_group("a stop");
    group.throughput(Throughput::Elements(stream.len() as u64));
    group.bench_function("cove_profile", |b| {
        let profiler = Profiler::new();
        b.iter(|| {
            for stop in &stream {
                profiler.record(black_box(stop));
            }
        })
    });
    group.bench_function("cove_profile, counter clock", |b| {
        let profiler = Profiler::with_clock(TscClock::new());
        b.iter(|| {
            for stop in &stream {
                profiler.record(black_box(stop));
            }
        })
    });
    group.bench_function("the seed's mutex and hash map", |b| {
        let seed = SeedShape::default();
        b.iter(|| {
            for stop in &stream {
                seed.record(black_box(stop));
            }
        })
    });
    group.bench_function("two clock reads alone", |b| {
        b.iter(|| {
            for _ in &stream {
                black_box(Instant::now());
                black_box(Instant::now());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, record);
criterion_main!(benches);
