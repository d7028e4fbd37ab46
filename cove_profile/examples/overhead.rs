//! What profiling costs a run: the same program run unwatched, under a
//! debugger that does nothing, under the seed's mutex-and-map profiler, and
//! under this crate's profiler with the real clock and with the counter
//! clock, repetitions interleaved so that a noisy machine slows all of them
//! alike. Prints each median and its ratio to the unwatched run.
//!
//! ```text
//! cargo run --release -p cove_profile --example overhead -- examples/bench/fib.cove [REPS] [ONLY]
//! ```
//!
//! `ONLY` is a comma-separated list of the hooks to run (`unwatched`,
//! `noop`, `seed`, `real`, `tsc`), for counting one hook's native
//! instructions under callgrind.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cove_ir::program::{FunctionId, Program};
use cove_profile::{Cost, Profiler, TscClock};
use cove_runtime::Vm;
use cove_runtime::vm::debug::{Debugger, Resume, Stop};

/// A debugger that only answers: the seam's own cost.
struct Nothing;

impl Debugger for Nothing {
    fn at(&self, _stop: &Stop<'_>) -> Resume {
        Resume::Go
    }
}

/// What the seed kept of the previous stop.
type Previous = ((FunctionId, u32), Instant, u64, u64);

/// The seed's profiler: two mutexes and a hash-map entry a stop.
#[derive(Default)]
struct SeedShape {
    at: Mutex<HashMap<(FunctionId, u32), Cost>>,
    last: Mutex<Option<Previous>>,
}

impl Debugger for SeedShape {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        let now = Instant::now();
        let here = (stop.function_id(), stop.pc());
        let (words, allocations) = (stop.allocated_words(), stop.allocations());
        let mut held = self.at.lock().expect("a lock");
        held.entry(here).or_default().ran += 1;
        let mut last = self.last.lock().expect("a lock");
        if let Some((at, when, w, a)) = *last {
            let cost = held.entry(at).or_default();
            cost.nanos += now.saturating_duration_since(when).as_nanos() as u64;
            cost.words += words.saturating_sub(w);
            cost.allocations += allocations.saturating_sub(a);
        }
        *last = Some((here, Instant::now(), words, allocations));
        Resume::Go
    }
}

fn run(program: &Program, debugger: Option<&dyn Debugger>) -> (Duration, u64) {
    let entry = program
        .modules
        .last()
        .map(|m| m.name.clone())
        .unwrap_or_default();
    let mut vm = Vm::new(program).with_output(Box::new(std::io::sink()));
    if let Some(debugger) = debugger {
        vm = vm.with_debugger(debugger);
    }
    let began = Instant::now();
    if let Err(error) = vm.run_entry(&entry, "main", Vec::new()) {
        eprintln!("the run failed: {error}");
        std::process::exit(1);
    }
    (began.elapsed(), vm.instructions())
}

fn median(mut all: Vec<Duration>) -> Duration {
    all.sort();
    all.get(all.len() / 2).copied().unwrap_or_default()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: overhead PROGRAM.cove [REPETITIONS]");
        std::process::exit(2);
    };
    let reps: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(5);
    let only = args
        .next()
        .unwrap_or_else(|| "unwatched,noop,seed,real,tsc".to_string());
    let wanted = |key: &str| only.split(',').any(|k| k == key);
    let program = match cove_compiler::compile_files(Path::new(&path)) {
        Ok(program) => program,
        Err(diagnostics) => {
            eprintln!("{diagnostics}");
            std::process::exit(1);
        }
    };
    let names = [
        "unwatched",
        "no-op debugger",
        "seed shape",
        "cove_profile",
        "cove_profile, TscClock",
    ];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); names.len()];
    let mut instructions = 0;
    for _ in 0..reps {
        let (t, n) = run(&program, None);
        instructions = n;
        if wanted("unwatched") {
            times[0].push(t);
        }
        if wanted("noop") {
            times[1].push(run(&program, Some(&Nothing)).0);
        }
        if wanted("seed") {
            times[2].push(run(&program, Some(&SeedShape::default())).0);
        }
        if wanted("real") {
            times[3].push(run(&program, Some(&Profiler::new())).0);
        }
        if wanted("tsc") {
            times[4].push(run(&program, Some(&Profiler::with_clock(TscClock::new()))).0);
        }
    }
    let floor = Profiler::new().floor().nanos;
    let tsc_floor = Profiler::with_clock(TscClock::new()).floor().nanos;
    println!("{path}: {instructions} instructions, {reps} interleaved repetitions, medians");
    println!("floor: ~{floor:.1} ns an instruction (real clock), ~{tsc_floor:.1} ns (TscClock)");
    let base = median(times[0].clone()).max(Duration::from_nanos(1));
    for (name, all) in names.iter().zip(times) {
        if all.is_empty() {
            continue;
        }
        let m = median(all);
        println!(
            "{name:<24} {:>10.3} s  x{:>6.2}  {:>7.1} ns an instruction",
            m.as_secs_f64(),
            m.as_secs_f64() / base.as_secs_f64(),
            m.as_nanos() as f64 / instructions.max(1) as f64
        );
    }
}
