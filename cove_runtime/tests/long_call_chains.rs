//! A program of three thousand and one functions, each calling the next:
//! the chain is generated here rather than checked in, since its shape (a
//! function per line, each adding one) is the whole of what it tests and a
//! 3,000-line file says that less clearly than the loop that writes it.
//!
//! It costs one compile and two short runs: the call depth stays far below
//! the VM's limit, so what it exercises is the number of functions (the
//! function table, the call instruction's index and the frames) rather
//! than recursion.

use cove_runtime::{Limits, Vm};

mod support;
use support::Captured;

/// The source of `f0` .. `f{last}`, each passing its argument plus one to
/// the next, and a `main` that prints what the chain returns for 0.
fn chain_of_functions(last: u32) -> String {
    let mut source = String::new();
    for i in 0..last {
        source.push_str(&format!("fn f{i}(x: Int) -> Int {{ f{}(x + 1) }}\n", i + 1));
    }
    source.push_str(&format!("fn f{last}(x: Int) -> Int {{ x }}\n"));
    source.push_str("fn main() {\n  println(f0(0))\n}\n");
    source
}

/// Runs `main` of the chain; what it printed.
fn run_chain(source: &str, gc_stress: bool) -> String {
    let program = cove_compiler::compile_module("chain", source).unwrap_or_else(|d| panic!("{d}"));
    let out = Captured::default();
    let mut vm = Vm::new(&program)
        .with_output(Box::new(out.clone()))
        .with_limits(Limits {
            gc_stress,
            ..Limits::default()
        });
    vm.run_entry("chain", "main", vec![])
        .unwrap_or_else(|e| panic!("the chain fails: {e}"));
    out.text()
}

#[test]
fn a_chain_of_three_thousand_calls_across_as_many_functions_returns_their_count() {
    let source = chain_of_functions(3000);
    assert_eq!(source.lines().count(), 3004);
    assert_eq!(run_chain(&source, false), "3000\n");
}

#[test]
fn a_chain_of_three_thousand_calls_returns_the_same_when_the_collector_runs_at_every_allocation() {
    assert_eq!(run_chain(&chain_of_functions(3000), true), "3000\n");
}
