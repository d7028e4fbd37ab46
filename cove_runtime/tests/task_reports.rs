//! A failing task is always reported, and always in the same words: a
//! fault nobody joined is not lost behind `exit` or behind main's own
//! fault, and a task's failure that ends the run reads the same whichever
//! thread noticed it first.

use cove_runtime::{ErrorKind, Limits, Vm};

fn compile(source: &str) -> cove_ir::program::Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

/// A task that fails holding the only other handle of a channel main
/// waits on: main learns the task has gone (`recv` gives `None`) without
/// joining it, then does `after`.
fn failing_task_then(after: &str) -> String {
    format!(
        "fn fail(ch: Channel[Int]) -> Int {{\n  let xs = [1, 2, 3]\n  xs[5]\n}}\n\n\
         fn main() -> Int {{\n  let ch = Channel[Int]()\n  let t = spawn fail(ch)\n  \
         let got = ch.recv()\n  {after}\n  0\n}}\n"
    )
}

#[test]
fn a_task_that_failed_unjoined_is_reported_even_when_main_calls_exit_0() {
    let program = compile(&failing_task_then("exit(0)"));
    let error = Vm::new(&program)
        .run_entry("m", "main", vec![])
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::IndexOutOfRange, "{error}");
    assert!(
        error
            .message
            .starts_with("in task 1, which was never joined"),
        "{error}"
    );
}

#[test]
fn when_main_faults_too_both_faults_are_in_the_report() {
    let program = compile(&failing_task_then(
        "let zero = got.unwrap_or(0)\n  println(1 / zero)",
    ));
    let error = Vm::new(&program)
        .run_entry("m", "main", vec![])
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::DivisionByZero, "{error}");
    assert!(error.message.contains("division by zero"), "{error}");
    assert!(
        error
            .message
            .contains("task 1, which was never joined, failed too"),
        "{error}"
    );
    assert!(error.message.contains("out of range"), "{error}");
}

#[test]
fn a_tasks_heap_limit_reads_the_same_whichever_thread_saw_it_first() {
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/programs/heap/error_heap_limit_shared_value_returned_by_a_task.cove"
    ))
    .expect("the program");
    let program = compile(&source);
    let limits = Limits {
        max_heap_words: Some(100_000),
        ..Limits::default()
    };
    let reports: std::collections::BTreeSet<String> = (0..30)
        .map(|_| {
            let mut vm = Vm::new(&program)
                .with_limits(limits.clone())
                .with_output(Box::new(std::io::sink()));
            vm.run_entry("m", "main", vec![]).unwrap_err().to_string()
        })
        .collect();
    assert_eq!(reports.len(), 1, "{reports:#?}");
    let report = reports.first().expect("one");
    assert!(
        report.starts_with("in task 1: a copy of this value"),
        "{report}"
    );
}
