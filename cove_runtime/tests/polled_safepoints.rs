//! A run with no debugger and no fuel tests its safepoint countdown only
//! after taken jumps and calls, and may run past the end of a stride until
//! the next one. These tests hold that run to the same answers as an exact
//! one: the same instruction count, overshoot included, whatever shape the
//! code has; and an interrupt still ends it when the only thing it does for
//! a long while is run straight-line code.

use std::sync::atomic::Ordering;
use std::time::Duration;

use cove_ir::program::Program;
use cove_runtime::vm::exec::SAFEPOINT_STRIDE;
use cove_runtime::{ErrorKind, Limits, Vm};

mod support;
use support::Counter;

fn compile(source: &str) -> Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

/// A function of `n` additions and no jump: longer than a stride when `n`
/// is, so a polled run must overshoot the stride to reach its next poll.
fn straight(n: usize) -> String {
    let mut body = String::from("fn straight(x: Int) -> Int {\n  var y = x\n");
    for i in 0..n {
        body.push_str(&format!("  y = y + {}\n", i % 7));
    }
    body.push_str("  y\n}\n");
    body
}

/// Programs of every shape a poll meets: a long straight run called from a
/// loop, a plain loop, a recursion with no loop, and tasks.
fn shapes() -> Vec<(&'static str, String)> {
    let stride = SAFEPOINT_STRIDE as usize;
    vec![
        (
            "straight",
            format!(
                "{}\nexport fn main() -> Int {{\n  var total = 0\n  for i in 0..5 {{\n    total = total + straight(i)\n  }}\n  total\n}}\n",
                straight(3 * stride + 17)
            ),
        ),
        (
            "loop",
            "export fn main() -> Int {\n  var total = 0\n  var i = 0\n  while i < 10000 {\n    total = (total + i) % 1000\n    i = i + 1\n  }\n  total\n}\n"
                .to_string(),
        ),
        (
            "recursion",
            "fn fib(n: Int) -> Int {\n  if n < 2 { n } else { fib(n - 1) + fib(n - 2) }\n}\n\nexport fn main() -> Int {\n  fib(18)\n}\n"
                .to_string(),
        ),
        (
            "tasks",
            "fn work(n: Int) -> Int {\n  var t = 0\n  for i in 0..n {\n    t = (t + i) % 97\n  }\n  t\n}\n\nexport fn main() -> Int {\n  let a = spawn work(5000)\n  let b = spawn work(7000)\n  work(3000) + a.join() + b.join()\n}\n"
                .to_string(),
        ),
    ]
}

#[test]
fn a_polled_run_counts_exactly_what_an_exact_run_and_a_debugger_count() {
    for (name, source) in shapes() {
        let program = compile(&source);
        let mut polled = Vm::new(&program);
        let expected = polled.run_entry("m", "main", vec![]);
        assert!(expected.is_ok(), "{name}: {expected:?}");

        // Fuel makes a run exact; this much never runs out.
        let mut fuelled = Vm::new(&program).with_limits(Limits {
            fuel: Some(u64::MAX / 2),
            ..Limits::default()
        });
        assert_eq!(fuelled.run_entry("m", "main", vec![]), expected, "{name}");

        let counter = Counter::default();
        let mut watched = Vm::new(&program).with_debugger(&counter);
        assert_eq!(watched.run_entry("m", "main", vec![]), expected, "{name}");

        let stops = counter.0.load(Ordering::Relaxed);
        assert!(stops > u64::from(SAFEPOINT_STRIDE), "{name}: {stops} stops");
        assert_eq!(polled.instructions(), stops, "{name}: polled");
        assert_eq!(fuelled.instructions(), stops, "{name}: fuelled");
        assert_eq!(watched.instructions(), stops, "{name}: watched");
    }
}

#[test]
fn a_polled_run_counts_exactly_when_a_fault_ends_it_past_a_stride() {
    // The division by zero comes after the long straight run, so the polled
    // run faults while it is past the end of its stride.
    let source = format!(
        "{}\nexport fn main() -> Int {{\n  let y = straight(1)\n  y / (y - y)\n}}\n",
        straight(2 * SAFEPOINT_STRIDE as usize + 3)
    );
    let program = compile(&source);
    let mut polled = Vm::new(&program);
    let counter = Counter::default();
    let mut watched = Vm::new(&program).with_debugger(&counter);
    let a = polled.run_entry("m", "main", vec![]).unwrap_err();
    let b = watched.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(a.kind, ErrorKind::DivisionByZero);
    assert_eq!(a, b);
    assert_eq!(polled.instructions(), counter.0.load(Ordering::Relaxed));
}

#[test]
fn fuel_stays_exact_because_a_fuelled_run_is_never_polled() {
    let source =
        straight(3 * SAFEPOINT_STRIDE as usize) + "\nexport fn main() -> Int {\n  straight(1)\n}\n";
    let program = compile(&source);
    for fuel in [1, 100, u64::from(SAFEPOINT_STRIDE) + 1, 2500] {
        let mut vm = Vm::new(&program).with_limits(Limits {
            fuel: Some(fuel),
            ..Limits::default()
        });
        let error = vm.run_entry("m", "main", vec![]).unwrap_err();
        assert_eq!(error.kind, ErrorKind::OutOfFuel, "fuel {fuel}");
        assert_eq!(vm.instructions(), fuel, "fuel {fuel}");
    }
}

#[test]
fn an_interrupt_ends_a_polled_run_that_calls_a_long_straight_function_forever() {
    // Every turn runs thousands of instructions between polls; the
    // interrupt must still land, at a poll, within a turn or two.
    let source = straight(4 * SAFEPOINT_STRIDE as usize)
        + "\nexport fn main() -> Int {\n  var t = 0\n  while true {\n    t = straight(t) % 1000\n  }\n  t\n}\n";
    let program = compile(&source);
    let mut vm = Vm::new(&program);
    let handle = vm.interrupt_handle();
    let interrupter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        handle.interrupt();
    });
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    interrupter.join().expect("the interrupter ran");
    assert_eq!(error.kind, ErrorKind::Interrupted, "{error}");
    // It was stopped inside the loop, after at least one whole turn.
    assert!(vm.instructions() > 4 * u64::from(SAFEPOINT_STRIDE));
    assert_eq!(error.backtrace[0].function, "m.main", "{error}");
}
