//! Regression tests for what the fifth session's mutation campaign through
//! the release `cove` found (`docs/RELIABILITY.md`, "Mutation campaign"):
//! work the budgets did not bound. A read of an endless file or input ran
//! past fuel, the heap bound and Ctrl-C; a spawn cost one unit of fuel, so a
//! loop of spawns ran for tens of seconds within 2,000,000; and a deep copy
//! between tasks counted only the words it would take in the other heap,
//! not the host's tree it goes through, and paid its fuel only once it was
//! done, so the copy of a value sharing one list a million times took 1.4 GB
//! under a 20,000,000-word bound and aborted the process under `ulimit -v`.
//!
//! No test reads a clock: each asserts how the run ended and, where it
//! says how far the run got, a count it printed.

use std::io::Read;

use cove_runtime::{ErrorKind, Limits, RunError, SPAWN_FUEL, Value, Vm};

fn compile(source: &str) -> cove_ir::program::Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

/// Runs `main` of `source` under `limits` with `input` as its standard
/// input; gives the ending and what it printed.
fn run(
    source: &str,
    limits: Limits,
    input: Box<dyn std::io::BufRead + Send>,
) -> (Result<Value, RunError>, String) {
    let program = compile(source);
    let out = std::sync::Arc::new(parking_lot::Mutex::new(Vec::new()));
    let mut vm = Vm::new(&program)
        .with_limits(limits)
        .with_input(input)
        .with_output(Box::new(Shared(out.clone())));
    let result = vm.run_entry("m", "main", vec![]);
    let printed = String::from_utf8(out.lock().clone()).expect("UTF-8 output");
    (result, printed)
}

/// A writer into a buffer the test reads after the run.
struct Shared(std::sync::Arc<parking_lot::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Standard input that never ends and never has a newline, as `/dev/zero`.
fn endless() -> Box<dyn std::io::BufRead + Send> {
    Box::new(std::io::BufReader::new(std::io::repeat(b'z')))
}

fn no_input() -> Box<dyn std::io::BufRead + Send> {
    Box::new(std::io::empty())
}

fn fuel(n: u64) -> Limits {
    Limits {
        fuel: Some(n),
        ..Limits::default()
    }
}

fn heap(words: u64) -> Limits {
    Limits {
        max_heap_words: Some(words),
        ..Limits::default()
    }
}

const READ_STDIN: &str = "fn main() -> Int {\n  println(\"before\")\n  read_stdin().length()\n}\n";
const READ_LINE: &str =
    "fn main() -> Int {\n  println(\"before\")\n  read_line().unwrap_or(\"\").length()\n}\n";

#[test]
fn reading_an_endless_standard_input_runs_out_of_fuel_with_the_output_before_it_intact() {
    for source in [READ_STDIN, READ_LINE] {
        let (result, printed) = run(source, fuel(2_000_000), endless());
        let error = result.expect_err("the input never ends");
        assert_eq!(error.kind, ErrorKind::OutOfFuel, "{error}");
        assert!(error.message.contains("units of work"), "{error}");
        assert_eq!(error.backtrace[0].function, "m.main", "{error}");
        assert_eq!(printed, "before\n");
    }
}

#[test]
fn reading_an_endless_standard_input_meets_the_heap_bound() {
    for source in [READ_STDIN, READ_LINE] {
        let (result, printed) = run(source, heap(1_000_000), endless());
        let error = result.expect_err("the input never ends");
        assert_eq!(error.kind, ErrorKind::HeapLimit, "{error}");
        assert_eq!(printed, "before\n");
    }
}

#[test]
fn reading_an_endless_file_meets_the_heap_bound_and_the_fuel() {
    let source =
        "fn main() -> Int {\n  println(\"before\")\n  read_file(\"/dev/zero\").length()\n}\n";
    let (result, printed) = run(source, heap(1_000_000), no_input());
    let error = result.expect_err("/dev/zero never ends");
    assert_eq!(error.kind, ErrorKind::HeapLimit, "{error}");
    assert_eq!(printed, "before\n");
    let (result, _) = run(source, fuel(2_000_000), no_input());
    assert_eq!(
        result.expect_err("it never ends").kind,
        ErrorKind::OutOfFuel
    );
}

#[test]
fn an_interrupt_during_an_endless_read_is_answered_inside_the_read() {
    let program = compile(READ_STDIN);
    let vm = Vm::new(&program).with_output(Box::new(std::io::sink()));
    // The input raises the interrupt as it serves each chunk, so the run
    // is inside the read when the interrupt arrives.
    struct Raise(cove_runtime::InterruptHandle, std::io::Repeat);
    impl Read for Raise {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.interrupt();
            self.1.read(buf)
        }
    }
    let handle = vm.interrupt_handle();
    let mut vm = vm.with_input(Box::new(std::io::BufReader::new(Raise(
        handle,
        std::io::repeat(b'z'),
    ))));
    let error = vm
        .run_entry("m", "main", vec![])
        .expect_err("it was interrupted");
    assert_eq!(error.kind, ErrorKind::Interrupted, "{error}");
    assert_eq!(error.backtrace[0].function, "m.main", "{error}");
}

#[test]
fn a_read_of_a_file_that_is_not_utf8_is_an_io_error_as_before() {
    let path = std::env::temp_dir().join(format!("cove-not-utf8-{}.txt", std::process::id()));
    std::fs::write(&path, b"a\xffb").expect("written");
    let source = format!(
        "fn main() -> Int {{\n  read_file(\"{}\").length()\n}}\n",
        path.display()
    );
    let (result, _) = run(&source, Limits::default(), no_input());
    let _ = std::fs::remove_file(&path);
    let error = result.expect_err("not UTF-8");
    assert_eq!(error.kind, ErrorKind::Io, "{error}");
    assert!(
        error
            .message
            .ends_with("stream did not contain valid UTF-8"),
        "{error}"
    );
}

#[test]
fn a_loop_of_spawns_runs_out_of_fuel_after_as_many_as_the_fuel_pays_threads_for() {
    // The campaign's mutant of `tasks_spawned_and_joined_one_after_another`
    // with its 3,000 turned into 2^32.
    let source = "fn square(n: Int) -> Int {\n  n * n\n}\n\n\
                  fn main() -> Int {\n  var total = 0\n  for i in 0..4294967296 {\n    \
                  let t = spawn square(i)\n    total += t.join()\n    println(i)\n  }\n  total\n}\n";
    let fuel_given = 2_000_000;
    let (result, printed) = run(source, fuel(fuel_given), no_input());
    let error = result.expect_err("2^32 spawns cannot be paid for");
    assert_eq!(error.kind, ErrorKind::OutOfFuel, "{error}");
    let spawned = printed.lines().count() as u64;
    // Work is paid at the next safepoint, so the spawns of the stride in
    // which the fuel ran out (a few dozen turns of this loop) may start
    // before the payment fails; before, a spawn cost one unit and over
    // 100,000 of them ran.
    assert!(
        spawned < 2 * (fuel_given / SPAWN_FUEL),
        "{spawned} spawns within {fuel_given} fuel"
    );
    assert!(spawned > 0, "some spawns are paid for");
}

/// A spawn argument that shares one list of 1,000 `Int`s a million times
/// (the conformance program
/// `heap/error_heap_limit_shared_value_passed_to_spawn`): a billion
/// elements once copied.
const SHARED_MILLION: &str = "fn count(xs: List[List[List[Int]]]) -> Int {\n  xs.length()\n}\n\n\
fn main() -> Int {\n  let ints = List[Int]()\n  for i in 0..1000 {\n    ints.push(i)\n  }\n  \
let mid = List[List[Int]]()\n  for _i in 0..1000 {\n    mid.push(ints)\n  }\n  \
let top = List[List[List[Int]]]()\n  for _i in 0..1000 {\n    top.push(mid)\n  }\n  \
println(\"built\")\n  let t = spawn count(top)\n  t.join()\n}\n";

#[test]
fn a_deep_copy_that_fuel_cannot_pay_for_stops_with_out_of_fuel_inside_the_copy() {
    // The heap bound is left at its default, 2^28 words: before, the copy
    // ran on until it passed that, seconds and gigabytes later.
    let (result, printed) = run(SHARED_MILLION, fuel(2_000_000), no_input());
    let error = result.expect_err("a billion elements cannot be paid for");
    assert_eq!(error.kind, ErrorKind::OutOfFuel, "{error}");
    assert_eq!(error.backtrace[0].function, "m.main", "{error}");
    assert_eq!(printed, "built\n");
}

#[test]
fn a_deep_copy_counts_the_hosts_tree_it_goes_through_against_the_heap_bound() {
    // 60,000 Ints: 60,002 words in the task's heap, well under the bound,
    // but each a nine-word `Value` on the way there.
    let source = "fn count(xs: List[Int]) -> Int {\n  xs.length()\n}\n\n\
                  fn main() -> Int {\n  let xs = List[Int]()\n  for i in 0..60000 {\n    xs.push(i)\n  }\n  \
                  let t = spawn count(xs)\n  t.join()\n}\n";
    let (result, _) = run(source, heap(400_000), no_input());
    let error = result.expect_err("the copy's host tree passes the bound");
    assert_eq!(error.kind, ErrorKind::HeapLimit, "{error}");
    assert!(
        error.message.contains("a copy of this value between heaps"),
        "{error}"
    );
    // A tenth of it crosses.
    let small = source.replace("60000", "6000");
    let (result, _) = run(&small, heap(400_000), no_input());
    assert!(matches!(result, Ok(Value::Int(6000))), "{result:?}");
}
