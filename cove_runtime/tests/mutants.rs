//! No program the compiler accepts makes the runtime panic or hang: the
//! conformance programs, with their numbers, operators, method names and
//! lines mutated at random, are compiled, and every one that compiles is
//! run under a fuel, heap, call-depth and task bound. Each run must end in
//! a value or a `RunError`.
//!
//! The compiler's own `no_panic.rs` checks that mutants give diagnostics;
//! this file checks the other half, that the mutants it accepts run safely.
//! Mutations swap a token for another of the same class (a number for an
//! extreme one, `+` for `*`, `push` for `pop`), so most mutants still type
//! check and reach the dispatch loop with values no author chose: `i64::MIN`
//! as an index, a shift by 64, a slice running backwards. A failure prints
//! its case number and the mutant's source.

use std::sync::mpsc;
use std::time::Duration;

use cove_runtime::{Limits, Vm};

mod support;

/// How long one mutant may run before the test calls it hung. Each has
/// little fuel; the bound is for a lost wake-up, not for slowness.
const WATCHDOG: Duration = Duration::from_secs(30);

/// xorshift64*: small, fast, and the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Tokens a mutation may swap for one another: each group holds tokens
/// that usually stand in the same places, so a mutant often still compiles.
const GROUPS: &[&[&str]] = &[
    &[
        "0",
        "1",
        "2",
        "-1",
        "63",
        "64",
        "-64",
        "1000000",
        "9223372036854775807",
        "-9223372036854775808",
        "0x7fffffffffffffff",
    ],
    &["0.0", "-0.0", "1.5", "1e308", "-1e308", "1e-320"],
    &["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"],
    &["<", "<=", ">", ">=", "==", "!="],
    &["&&", "||"],
    &["+=", "-=", "*=", "/=", "%="],
    &["push", "insert", "contains"],
    &["pop", "length"],
    &["get", "remove"],
    &["slice", "replace"],
    &["trim", "to_upper", "to_lower", "lines"],
    &["starts_with", "ends_with", "contains", "split", "find"],
    &["min", "max"],
    &["floor", "sqrt", "abs"],
    &["unwrap", "is_some", "is_none"],
    &["break", "continue"],
    &["true", "false"],
    &["i", "j", "k", "n", "x", "s", "xs", "total", "acc", "count"],
    &["Int", "Float", "String", "Bool"],
    &["\"\"", "\"a\"", "\"é\"", "\"☃x\"", "\"\\n\""],
];

/// The single-module conformance programs, except those that touch files:
/// a mutated path could write anywhere.
fn corpus() -> Vec<String> {
    support::programs::single_module_programs()
        .into_iter()
        .map(|p| std::fs::read_to_string(p.entry).expect("a program reads"))
        .filter(|s| !s.contains("write_file") && !s.contains("read_file"))
        .collect()
}

/// Splits `source` into words, operators, string literals and the space
/// between them, so a mutation can replace one whole token.
fn tokens(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = source.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' && chars[i] != '\n' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(chars.len());
        } else if c.is_ascii_digit() {
            // A number, with a fraction and an exponent if it has them.
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || chars[i] == '_'
                    || chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
            {
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if "+-*/%&|^<>=!".contains(c) {
            while i < chars.len() && "+-*/%&|^<>=!".contains(chars[i]) {
                i += 1;
            }
        } else {
            i += 1;
        }
        out.push(chars[start..i].iter().collect());
    }
    out
}

fn mutate(rng: &mut Rng, source: &str) -> String {
    let mut toks = tokens(source);
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(toks.len());
        match rng.below(8) {
            // Duplicate or drop a whole line: loops run twice, statements
            // go missing, variables are read before they are written.
            0 => {
                let lines: Vec<&str> = source.lines().collect();
                let mut lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                let l = rng.below(lines.len());
                if rng.below(2) == 0 {
                    let copy = lines[l].clone();
                    lines.insert(l, copy);
                } else {
                    lines.remove(l);
                }
                toks = tokens(&lines.join("\n"));
            }
            _ => {
                // Swap the next token (from `at` on) that belongs to a group.
                for j in (at..toks.len()).chain(0..at) {
                    if let Some(group) = GROUPS.iter().find(|g| g.contains(&toks[j].as_str())) {
                        toks[j] = group[rng.below(group.len())].to_string();
                        break;
                    }
                }
            }
        }
    }
    toks.concat()
}

/// Compiles and, if that succeeds, runs `source` under tight bounds on a
/// thread of its own; a description of what went wrong, if anything did.
fn check(source: String) -> Result<bool, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| {
            let program = match cove_compiler::compile_module("m", &source) {
                Ok(program) => program,
                Err(errors) => {
                    // A mutant the compiler cannot handle is its bug, not
                    // the program's.
                    let internal = errors.iter().find(|d| d.code() == "E9000");
                    assert!(internal.is_none(), "an internal compiler error: {errors}");
                    return false;
                }
            };
            let mut vm = Vm::new(&program)
                .with_output(Box::new(std::io::sink()))
                .with_error_output(Box::new(std::io::sink()))
                .with_args(vec!["a".to_string(), "é".to_string()])
                .with_limits(Limits {
                    fuel: Some(20_000),
                    max_heap_words: Some(200_000),
                    max_call_depth: 500,
                    max_tasks: 8,
                    ..Limits::default()
                });
            // Ok or a RunError: either is an answer, but not `Invalid`:
            // what the compiler accepts verifies (the compiler leaves the
            // proof to `Vm::new`), and never reads a reference it did not
            // write.
            if let Err(error) = vm.run_entry("m", "main", vec![]) {
                assert_ne!(error.kind, cove_runtime::ErrorKind::Invalid, "{error}");
            }
            true
        });
        let _ = tx.send(outcome.map_err(|p| {
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        }));
    });
    match rx.recv_timeout(WATCHDOG) {
        Ok(Ok(ran)) => Ok(ran),
        Ok(Err(panic)) => Err(format!("panicked: {panic}")),
        Err(_) => Err("hung".to_string()),
    }
}

#[test]
fn mutated_programs_that_compile_run_to_a_value_or_a_run_error_never_a_panic_or_a_hang() {
    let corpus = corpus();
    // `COVE_MUTANTS=n` and `COVE_SEED=s` explore further than the suite does.
    let cases: usize = std::env::var("COVE_MUTANTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1500);
    let seed = std::env::var("COVE_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0x51_7CC1_B727_220A);
    let mut rng = Rng(seed);
    let mut ran = 0;
    for case in 0..cases {
        let base = &corpus[rng.below(corpus.len())];
        let source = mutate(&mut rng, base);
        match check(source.clone()) {
            Ok(true) => ran += 1,
            Ok(false) => {}
            Err(why) => panic!("case {case} {why}\n--- source ---\n{source}"),
        }
    }
    // The mutations are meant to keep most programs compiling; if they stop
    // doing so the test no longer reaches the runtime.
    assert!(ran >= cases / 3, "only {ran} of {cases} mutants compiled");
    if std::env::var("COVE_MUTANTS").is_ok() {
        eprintln!("{ran} of {cases} mutants compiled and ran");
    }
}
