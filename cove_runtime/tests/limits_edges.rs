//! Limits at their edges, through the public API: every run that meets one
//! ends in a `RunError` of the right kind whose `Display` names at least
//! the Cove function it stopped in, even when it stopped before the entry's
//! first instruction ran or after its last.

use cove_runtime::{ErrorKind, Limits, RunError, Value, Vm};

mod support;
use support::Captured;

fn run(source: &str, entry: &str, args: Vec<Value>, limits: Limits) -> Result<Value, RunError> {
    let program = cove_compiler::compile_module("m", source).expect("the program compiles");
    let mut vm = Vm::new(&program)
        .with_output(Box::new(Captured::default()))
        .with_error_output(Box::new(std::io::sink()))
        .with_limits(limits);
    vm.run_entry("m", entry, args)
}

fn heap(words: u64) -> Limits {
    Limits {
        max_heap_words: Some(words),
        ..Limits::default()
    }
}

/// Asserts `outcome` is a heap-limit error whose text ends in a backtrace
/// naming `frame`.
fn assert_heap_limit_at(outcome: Result<Value, RunError>, frame: &str) {
    let error = outcome.expect_err("the run meets the heap limit");
    assert_eq!(error.kind, ErrorKind::HeapLimit, "{error}");
    let text = error.to_string();
    assert!(
        text.lines()
            .skip(1)
            .any(|l| l.starts_with(&format!("  at {frame} (m.cove:"))),
        "the backtrace names {frame}: {text}"
    );
}

#[test]
fn string_constants_too_large_for_the_heap_limit_fail_naming_the_entry() {
    let source = "fn main() -> Int {\n  let s = \"a constant string far longer than ten words of heap, which are eighty bytes in all\"\n  s.length()\n}\n";
    assert_heap_limit_at(run(source, "main", vec![], heap(10)), "m.main");
    assert_eq!(run(source, "main", vec![], heap(1000)), Ok(Value::Int(82)));
}

#[test]
fn an_entry_argument_too_large_for_the_heap_limit_fails_naming_the_entry() {
    let source = "export fn count(xs: List[Int]) -> Int {\n  xs.length()\n}\n";
    let big = Value::List((0..1000).map(Value::Int).collect());
    assert_heap_limit_at(
        run(source, "count", vec![big.clone()], heap(100)),
        "m.count",
    );
    assert_eq!(
        run(source, "count", vec![big], heap(100_000)),
        Ok(Value::Int(1000))
    );
}

#[test]
fn a_task_result_too_large_to_copy_under_the_heap_limit_names_the_task_function() {
    let source = "fn many(n: Int) -> List[String] {\n  let s = \"shared\"\n  var xs = List[String]()\n  for i in 0..n {\n    xs.push(s)\n  }\n  xs\n}\nfn main() -> Int {\n  let t = spawn many(400)\n  t.join().length()\n}\n";
    assert_heap_limit_at(run(source, "main", vec![], heap(1000)), "m.many");
    assert_eq!(
        run(source, "main", vec![], heap(100_000)),
        Ok(Value::Int(400))
    );
}

#[test]
fn an_entry_result_too_large_to_copy_under_the_heap_limit_names_the_entry() {
    let source = "export fn make() -> List[String] {\n  let s = \"shared\"\n  var xs = List[String]()\n  for i in 0..400 {\n    xs.push(s)\n  }\n  xs\n}\n";
    assert_heap_limit_at(run(source, "make", vec![], heap(1000)), "m.make");
}
