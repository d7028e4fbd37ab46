//! Profiles a Cove program and prints one report: what `cove profile` does,
//! in a few lines of this crate's API.
//!
//! ```text
//! cargo run --release -p cove_profile --example profile -- PROGRAM.cove \
//!     [table|text|json|callgrind|folded|svg] [BY|METRIC] [TOP] [--tsc] [--follow-tasks]
//! cargo run --release -p cove_profile --example profile -- --diff BEFORE.json AFTER.json [TOP]
//! ```
//!
//! `BY` is `function`, `call`, `instruction`, `line`, `opcode` or `callee`;
//! `METRIC` (for `folded` and `svg`) is `ran`, `nanos`, `words` or
//! `allocations`.

use std::path::Path;
use std::process::exit;

use cove_profile::diff::Diff;
use cove_profile::report::{By, Metric, Report};
use cove_profile::{Profiler, TscClock};
use cove_runtime::Vm;

fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("{message}");
    exit(1)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--diff") {
        let read = |i: usize| {
            let path = args
                .get(i)
                .unwrap_or_else(|| fail("usage: profile --diff BEFORE.json AFTER.json [TOP]"));
            std::fs::read_to_string(path).unwrap_or_else(|e| fail(format!("{path}: {e}")))
        };
        let top = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(10);
        match Diff::from_json(&read(1), &read(2)) {
            Ok(diff) => print!("{}", diff.table(top)),
            Err(e) => fail(e),
        }
        return;
    }
    let flags: Vec<&str> = args
        .iter()
        .filter(|a| a.starts_with("--"))
        .map(String::as_str)
        .collect();
    let words: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(String::as_str)
        .collect();
    let Some(path) = words.first() else {
        fail(
            "usage: profile PROGRAM.cove [table|text|json|callgrind|folded|svg] [BY|METRIC] [TOP] [--tsc] [--follow-tasks]",
        )
    };
    let format = words.get(1).copied().unwrap_or("text");
    let choice = words.get(2).copied();
    // `text` takes no grouping, so its count of rows comes second.
    let top_at = if format == "text" { 2 } else { 3 };
    let top = words.get(top_at).and_then(|n| n.parse().ok()).unwrap_or(10);

    let program = cove_compiler::compile_files(Path::new(path)).unwrap_or_else(|d| fail(d));
    let mut profiler = if flags.contains(&"--tsc") {
        Profiler::with_clock(TscClock::new())
    } else {
        Profiler::new()
    };
    if flags.contains(&"--follow-tasks") {
        profiler = profiler.following_tasks();
    }
    let entry = program
        .modules
        .last()
        .map(|m| m.name.clone())
        .unwrap_or_default();
    let mut vm = Vm::new(&program)
        .with_debugger(&profiler)
        .with_output(Box::new(std::io::sink()));
    if let Err(error) = vm.run_entry(&entry, "main", Vec::new()) {
        // The profile of the part that ran is still worth printing.
        eprintln!("{error}");
    }
    let report = Report::new(&program, &profiler);
    let metric = || {
        choice.map_or(Metric::Ran, |m| {
            Metric::from_name(m).unwrap_or_else(|| fail(format!("no metric `{m}`")))
        })
    };
    match format {
        "text" => print!("{}", report.text(top)),
        "table" => {
            let by = choice.map_or(By::Function, |b| {
                By::from_name(b).unwrap_or_else(|| fail(format!("no grouping `{b}`")))
            });
            print!("{}", report.table(by, top));
        }
        "json" => print!("{}", report.json()),
        "callgrind" => print!("{}", report.callgrind()),
        "folded" => print!("{}", report.folded(metric())),
        "svg" => print!("{}", report.svg(metric()).unwrap_or_else(|e| fail(e))),
        other => fail(format!("no format `{other}`")),
    }
}
