//! The conformance suite: every program under `tests/programs/` is compiled
//! with `cove_compiler` and run through `Vm::run_entry`, and what it printed
//! and how it ended are compared with what the program's files expect.
//!
//! The programs are grouped in folders by area (`calls/`, `tasks/`,
//! `strings/`...), walked recursively by `support::programs`. A test is
//! `name.cove` (one module) or a directory `name/` whose entry is
//! `name/main.cove` (several modules). Beside it:
//!
//! - `name.out`: the exact standard output;
//! - header comments at the top of the entry file:
//!   - `// args: a b` — the program's arguments;
//!   - `// error: Kind` — the run ends in a `RunError` of that kind
//!     (`Exit(3)` for an exit status); without it the run must succeed;
//!   - `// message: text` — the error's `Display` contains the text;
//!   - `// result: 7` — `main` returns this `Int`;
//!   - `// heap: 100000` — the run's `Limits::max_heap_words`;
//!   - `// stress: skip (why)` — left out of the GC-stress run only, for a
//!     program whose live heap is so large that collecting all of it at
//!     every allocation is quadratic beyond a test's patience (the reason
//!     says which); the ordinary run still checks it.
//!
//! The whole suite runs twice: once as is, once with the collector in
//! stress mode (a collection after every allocating instruction), which is
//! what shakes out a missing root.
//!
//! `COVE_PROGRAM=area/name` (or just `name`) runs one program alone; `COVE_TIMES=1` prints how
//! long each took (with `-- --nocapture`).

use std::path::PathBuf;

use cove_runtime::{Limits, Value, Vm};

/// How long one program may run before the suite calls it hung. Far above
/// what any takes (the slowest, under GC stress, takes a few seconds).
const WATCHDOG: std::time::Duration = std::time::Duration::from_secs(120);

mod support;
use support::Captured;

struct Case {
    name: String,
    entry: PathBuf,
    expected_out: String,
    args: Vec<String>,
    error: Option<String>,
    message: Option<String>,
    result: Option<i64>,
    heap: Option<u64>,
    skip_stress: bool,
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for found in support::programs::every_program() {
        let source = std::fs::read_to_string(&found.entry).expect("the entry file reads");
        let header = |key: &str| {
            source
                .lines()
                .take_while(|l| l.starts_with("//"))
                .find_map(|l| l.strip_prefix(&format!("// {key}: ")).map(str::to_string))
        };
        let expected_out = std::fs::read_to_string(&found.out).unwrap_or_default();
        cases.push(Case {
            name: found.name,
            entry: found.entry,
            expected_out,
            args: header("args")
                .map(|a| a.split_whitespace().map(str::to_string).collect())
                .unwrap_or_default(),
            error: header("error"),
            message: header("message"),
            result: header("result").map(|r| r.trim().parse().expect("a result header is an Int")),
            heap: header("heap").map(|h| h.trim().parse().expect("a heap header is a word count")),
            skip_stress: header("stress").is_some_and(|s| s.starts_with("skip")),
        });
    }
    cases
}

/// Runs one case; what went differently from its expectations, if anything.
fn run(case: &Case, stress: bool) -> Result<(), String> {
    let program =
        cove_compiler::compile_files(&case.entry).map_err(|d| format!("does not compile:\n{d}"))?;
    let module = program
        .modules
        .last()
        .expect("a program has an entry module")
        .name
        .clone();
    let out = Captured::default();
    let err = Captured::default();
    let mut vm = Vm::new(&program)
        .with_output(Box::new(out.clone()))
        .with_error_output(Box::new(err.clone()))
        .with_args(case.args.clone())
        .with_limits(Limits {
            gc_stress: stress,
            max_heap_words: case.heap,
            ..Limits::default()
        });
    // A watchdog: a program that hangs (a lost wake-up, a lock held across
    // a wait) is interrupted and reported, rather than hanging the suite.
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let interrupt = vm.interrupt_handle();
    let watchdog = std::thread::spawn(move || {
        let hung = finished.recv_timeout(WATCHDOG).is_err();
        if hung {
            interrupt.interrupt();
        }
        hung
    });
    let outcome = vm.run_entry(&module, "main", vec![]);
    let _ = done.send(());
    if watchdog.join().unwrap_or(false) {
        return Err(format!(
            "did not finish within {} s and was interrupted",
            WATCHDOG.as_secs()
        ));
    }
    let printed = out.text();
    let mut problems = Vec::new();
    if printed != case.expected_out {
        problems.push(format!(
            "stdout differs\n--- expected\n{}--- printed\n{}---",
            case.expected_out, printed
        ));
    }
    match (&outcome, &case.error) {
        (Ok(value), None) => {
            if let Some(want) = case.result
                && *value != Value::Int(want)
            {
                problems.push(format!("main returned {value:?}, not {want}"));
            }
        }
        (Ok(value), Some(kind)) => problems.push(format!(
            "expected an error {kind}, but main returned {value:?}"
        )),
        (Err(e), None) => problems.push(format!("unexpected error {:?}: {e}", e.kind)),
        (Err(e), Some(kind)) => {
            if format!("{:?}", e.kind) != *kind {
                problems.push(format!("expected an error {kind}, got {:?}: {e}", e.kind));
            }
            if let Some(message) = &case.message
                && !e.to_string().contains(message.as_str())
            {
                problems.push(format!("the error does not mention {message:?}: {e}"));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn run_all(stress: bool) {
    let cases = cases();
    assert!(cases.len() >= 80, "the suite has {} programs", cases.len());
    let only = std::env::var("COVE_PROGRAM").ok();
    let mut failures = Vec::new();
    for case in &cases {
        if only
            .as_ref()
            .is_some_and(|o| *o != case.name && !case.name.ends_with(&format!("/{o}")))
            || (stress && case.skip_stress)
        {
            continue;
        }
        let started = std::time::Instant::now();
        let outcome = run(case, stress);
        if std::env::var("COVE_TIMES").is_ok() {
            eprintln!("{:>8.3}s {}", started.elapsed().as_secs_f64(), case.name);
        }
        if let Err(why) = outcome {
            failures.push(format!(
                "== {} ({})\n{why}",
                case.name,
                case.entry.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs failed{}:\n\n{}",
        failures.len(),
        cases.len(),
        if stress { " under GC stress" } else { "" },
        failures.join("\n\n")
    );
}

#[test]
fn every_program_of_the_suite_prints_and_ends_as_it_expects() {
    run_all(false);
}

#[test]
fn every_program_of_the_suite_behaves_the_same_when_the_collector_runs_at_every_allocation() {
    run_all(true);
}
