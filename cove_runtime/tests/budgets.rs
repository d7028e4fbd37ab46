//! The budgets a run is given bound what they say: the heap bound holds by
//! default and counts the register stack, fuel and the heap bound are the
//! whole run's across its tasks, fuel pays for data-sized work so it bounds
//! time, and an interrupt is answered inside long builtins.

use cove_runtime::{DEFAULT_MAX_HEAP_WORDS, ErrorKind, Limits, RunError, Value, Vm};

fn compile(source: &str) -> cove_ir::program::Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

fn run(source: &str, limits: Limits) -> (Result<Value, RunError>, u64) {
    let program = compile(source);
    let mut vm = Vm::new(&program)
        .with_limits(limits)
        .with_output(Box::new(std::io::sink()));
    let result = vm.run_entry("m", "main", vec![]);
    (result, vm.instructions())
}

#[test]
fn a_run_with_default_limits_has_a_heap_bound() {
    assert_eq!(
        Limits::default().max_heap_words,
        Some(DEFAULT_MAX_HEAP_WORDS)
    );
}

#[test]
fn the_register_stack_of_a_deep_recursion_of_big_frames_counts_against_the_heap_bound() {
    // 200 locals live across the call: every frame holds them all.
    let lets: String = (0..200)
        .map(|i| format!("  let a{i} = n + {i}\n"))
        .collect();
    let sum: String = (0..200).map(|i| format!(" + a{i}")).collect();
    let source = format!(
        "fn deep(n: Int) -> Int {{\n{lets}  if n == 0 {{\n    return 0\n  }}\n  deep(n - 1){sum}\n}}\n\n\
         fn main() -> Int {{\n  deep(50000)\n}}\n"
    );
    let (result, _) = run(
        &source,
        Limits {
            max_heap_words: Some(1_000_000),
            ..Limits::default()
        },
    );
    let error = result.expect_err("it cannot fit");
    assert_eq!(error.kind, ErrorKind::HeapLimit, "{error}");
    assert!(
        error.backtrace.len() < 50000,
        "ended by the heap bound, not the depth"
    );
    assert!(
        error
            .backtrace
            .iter()
            .all(|f| f.function == "m.deep" || f.function == "m.main")
    );
}

#[test]
fn fuel_is_the_whole_runs_so_ten_tasks_of_300000_turns_cannot_share_a_million() {
    let source = "fn turns(n: Int) -> Int {\n  var s = 0\n  for i in 0..n {\n    s = (s + i) % 7\n  }\n  s\n}\n\n\
                  fn main() -> Int {\n  let ts = List[Task[Int]]()\n  for i in 0..10 {\n    ts.push(spawn turns(300000))\n  }\n  \
                  var s = 0\n  for t in ts {\n    s += t.join()\n  }\n  s\n}\n";
    let (result, _) = run(
        source,
        Limits {
            fuel: Some(1_000_000),
            ..Limits::default()
        },
    );
    let error = result.expect_err("ten tasks need three million");
    assert_eq!(error.kind, ErrorKind::OutOfFuel, "{error}");
}

#[test]
fn the_heap_bound_is_the_whole_runs_so_twenty_tasks_holding_300000_ints_pass_a_million_words() {
    // Each task holds its list until every task has built one.
    let source = "fn hold(ready: Channel[Int], go: Channel[Int]) -> Int {\n  let xs = List[Int]()\n  for i in 0..300000 {\n    xs.push(i)\n  }\n  \
                  ready.send(1)\n  go.recv()\n  xs.length()\n}\n\n\
                  fn main() -> Int {\n  let ready = Channel[Int]()\n  let go = Channel[Int]()\n  let ts = List[Task[Int]]()\n  \
                  for i in 0..20 {\n    ts.push(spawn hold(ready, go))\n  }\n  for i in 0..20 {\n    ready.recv()\n  }\n  go.close()\n  \
                  var n = 0\n  for t in ts {\n    n += t.join()\n  }\n  n\n}\n";
    let (result, _) = run(
        source,
        Limits {
            max_heap_words: Some(1_000_000),
            ..Limits::default()
        },
    );
    let error = result.expect_err("six million words do not fit in one million");
    assert_eq!(error.kind, ErrorKind::HeapLimit, "{error}");
}

#[test]
fn a_string_grown_every_turn_pays_for_its_copies_so_fuel_bounds_the_work() {
    // Grown at the front: an append at the end is extended in place and
    // copies only what it appends (`tests/string_append.rs`), but `"x" + s`
    // copies all of `s` every turn.
    let source = "fn main() -> Int {\n  var s = \"\"\n  while true {\n    s = \"x\" + s\n  }\n  s.length()\n}\n";
    let fuel = 2_000_000;
    let (result, instructions) = run(
        source,
        Limits {
            fuel: Some(fuel),
            ..Limits::default()
        },
    );
    let error = result.expect_err("it loops forever");
    assert_eq!(error.kind, ErrorKind::OutOfFuel);
    assert!(error.message.contains("units of work"), "{error}");
    // Copying a string of length n costs n / 8: the copies, not the
    // instructions, used the fuel up, after some tens of thousands of
    // instructions rather than two million.
    assert!(instructions < fuel / 10, "{instructions} instructions");
}

/// The least fuel `source` runs to its end with, plainly or under GC
/// stress: found by bisection, every probe a whole run.
fn least_fuel(source: &str, gc_stress: bool) -> u64 {
    let ends = |fuel: u64| {
        let (result, _) = run(
            source,
            Limits {
                fuel: Some(fuel),
                gc_stress,
                ..Limits::default()
            },
        );
        match result {
            Ok(_) => true,
            Err(e) if e.kind == ErrorKind::OutOfFuel => false,
            Err(e) => panic!("{e}"),
        }
    };
    let (mut lo, mut hi) = (1, 1_000_000);
    assert!(ends(hi));
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if ends(mid) { hi = mid } else { lo = mid }
    }
    hi
}

#[test]
fn a_list_that_grows_where_it_lies_pays_the_fuel_of_a_new_array_so_gc_stress_changes_no_runs_fuel()
{
    // Each turn allocates a `Some` after the push, so a plain run's array
    // is never the heap's last object when it must grow and is copied to
    // a new one; under GC stress the collector leaves it last, and it
    // grew where it lay, for fewer words' fuel: 262 less over this run,
    // and a run given fuel between the two ended in one mode and not in
    // the other (found by the generated programs' differential oracle).
    let source = "fn main() -> Int {\n  let xs = List[Int]()\n  var somes = 0\n  \
                  for i in 0..300 {\n    xs.push(i)\n    \
                  let o: Option[Int] = if i % 3 == 0 { None } else { Some(i) }\n    \
                  if o.is_some() { somes += 1 }\n  }\n  somes + xs.length()\n}\n";
    assert_eq!(least_fuel(source, false), least_fuel(source, true));
}

#[test]
fn a_sort_the_fuel_cannot_pay_for_fails_before_it_sorts() {
    let source = "fn main() -> Int {\n  let xs = List[Int]()\n  for i in 0..20000 {\n    xs.push(20000 - i)\n  }\n  xs.sort()\n  xs[0]\n}\n";
    let unbounded = run(source, Limits::default()).0;
    assert_eq!(unbounded, Ok(Value::Int(1)));
    let (result, _) = run(
        source,
        Limits {
            // Enough for the loop, not for 20000 * 15 comparisons.
            fuel: Some(250_000),
            ..Limits::default()
        },
    );
    let error = result.expect_err("the sort costs more");
    assert_eq!(error.kind, ErrorKind::OutOfFuel, "{error}");
    assert_eq!(error.backtrace[0].line, Some(6), "{error}");
}

/// Runs `source` and interrupts it as soon as it prints its first line;
/// gives the error.
fn interrupted_after_first_line(source: &str) -> RunError {
    use std::io::Write;
    use std::sync::mpsc;

    struct Signal(mpsc::Sender<()>);
    impl Write for Signal {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let _ = self.0.send(());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    let program = compile(source);
    let (tx, rx) = mpsc::channel();
    let mut vm = Vm::new(&program).with_output(Box::new(Signal(tx)));
    let handle = vm.interrupt_handle();
    let stopper = std::thread::spawn(move || {
        if rx.recv().is_ok() {
            handle.interrupt();
        }
    });
    let error = vm.run_entry("m", "main", vec![]).expect_err("interrupted");
    stopper.join().expect("the stopper");
    error
}

#[test]
fn an_interrupt_during_a_long_sort_is_answered_inside_the_sort() {
    // The loop after the sort would also answer an interrupt: the line
    // says it was the sort that did.
    let error = interrupted_after_first_line(
        "fn main() -> Int {\n  let xs = List[String]()\n  for i in 0..400000 {\n    xs.push(\"item {(i * 7919) % 400000}\")\n  }\n  \
         print(\"sorting\")\n  xs.sort()\n  var n = 0\n  while true {\n    n = (n + 1) % 10\n  }\n  n\n}\n",
    );
    assert_eq!(error.kind, ErrorKind::Interrupted, "{error}");
    assert_eq!(error.backtrace[0].line, Some(7), "{error}");
}

#[test]
fn an_interrupt_during_a_spawn_arguments_deep_copy_is_answered_inside_the_copy() {
    // One string shared 400,000 times copies as 400,000 strings.
    let error = interrupted_after_first_line(
        "fn count(rows: List[List[String]]) -> Int {\n  rows.length()\n}\n\n\
         fn main() -> Int {\n  let s = \"x\".repeat(200)\n  let row = List[String]()\n  for i in 0..2000 {\n    row.push(s)\n  }\n  \
         let rows = List[List[String]]()\n  for i in 0..200 {\n    rows.push(row)\n  }\n  print(\"copying\")\n  let t = spawn count(rows)\n  \
         var n = 0\n  while true {\n    n = (n + 1) % 10\n  }\n  t.join()\n}\n",
    );
    assert_eq!(error.kind, ErrorKind::Interrupted, "{error}");
    assert_eq!(error.backtrace[0].line, Some(16), "{error}");
}
