// A Task value returned to the host by one run and joined by a later run
// of the same Vm: if the task was still running when its run ended (so the
// runtime stopped it), the join fails with ErrorKind::Interrupted, "in task
// 1: interrupted" — though nothing interrupted anything.
//
// Drop into cove_runtime/tests/ and run with cargo test.
//
// Expected: an error that says what happened, e.g. the task was stopped when
//   the run that spawned it ended (or the Task value refused as an argument
//   of a later run, NoSuchEntry); not Interrupted, which an embedder reads
//   as "my InterruptHandle fired" and which RUNTIME.md reserves for
//   InterruptHandle::interrupt (exit status 130).
// Actual: Err(RunError { kind: Interrupted, message: "in task 1: interrupted", .. }).
//   (A task that had finished is joined fine: Ok(Int(7)).)
//
// Cause (guess): the end of a run stops still-running tasks through the same
//   path as an interrupt (cove_runtime/src/vm/tasks.rs, the "run is ending"
//   check at the safepoint), and records that as the task's result.
use cove_runtime::{ErrorKind, Vm};

#[test]
fn joining_a_task_stopped_by_the_end_of_an_earlier_run_is_not_called_an_interrupt() {
    let program = cove_compiler::compile_module(
        "m",
        "fn spin() -> Int {\n  var i = 0\n  while true {\n    i = (i + 1) % 10\n  }\n  i\n}\n\nexport fn start() -> Task[Int] {\n  spawn spin()\n}\n\nexport fn finish(t: Task[Int]) -> Int {\n  t.join()\n}\n",
    )
    .unwrap();
    let mut vm = Vm::new(&program);
    let task = vm.run_entry("m", "start", vec![]).unwrap();
    let error = vm.run_entry("m", "finish", vec![task]).unwrap_err();
    // Fails: the kind is Interrupted.
    assert_ne!(error.kind, ErrorKind::Interrupted, "{error}");
}
