//! Runs that end early while many tasks are blocked or busy: an interrupt
//! from another thread, and a debugger following tasks that halts in one of
//! them. Each must end in its `RunError` (or, for a halt the run never
//! reached, its answer), never hang: every run is on a thread of its own
//! and the test waits for it with a generous watchdog.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use cove_ir::program::Program;
use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::{ErrorKind, RunError, Value, Vm};

/// Far longer than any of these runs takes; reaching it means a hang.
const WATCHDOG: Duration = Duration::from_secs(60);

/// Forty tasks wait on a channel nobody sends on, four spin allocating
/// forever, and four more join the spinners; main joins them all.
const STUCK: &str = "
fn waiter(ch: Channel[Int]) -> Int {
  ch.recv().unwrap_or(0)
}
fn busy(n: Int) -> Int {
  var i = 0
  var xs = List[String]()
  while true {
    i += 1
    xs.push(\"x{i}\")
    if xs.length() > 1000 {
      xs = List[String]()
    }
  }
  i
}
fn joiner(t: Task[Int]) -> Int {
  t.join()
}
fn main() -> Int {
  let ch = Channel[Int]()
  var ts = List[Task[Int]]()
  for i in 0..40 {
    ts.push(spawn waiter(ch))
  }
  for i in 0..4 {
    let b = spawn busy(i)
    ts.push(spawn joiner(b))
  }
  var s = 0
  for t in ts {
    s += t.join()
  }
  s
}
";

/// Runs `run` on a thread of its own and waits for it under the watchdog.
fn within_watchdog(
    run: impl FnOnce() -> Result<Value, RunError> + Send + 'static,
) -> Result<Value, RunError> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run());
    });
    rx.recv_timeout(WATCHDOG)
        .expect("the run ends before the watchdog")
}

fn compile(source: &str) -> Program {
    cove_compiler::compile_module("m", source).expect("the program compiles")
}

#[test]
fn an_interrupt_ends_a_run_whose_tasks_are_blocked_spinning_and_joining_spinners() {
    let program = compile(STUCK);
    for delay in [0, 1, 30] {
        let program = program.clone();
        let outcome = within_watchdog(move || {
            let mut vm = Vm::new(&program);
            let handle = vm.interrupt_handle();
            let interrupter = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(delay));
                handle.interrupt();
            });
            let outcome = vm.run_entry("m", "main", vec![]);
            interrupter.join().expect("the interrupting thread ends");
            outcome
        });
        let error = outcome.expect_err("the program never ends by itself");
        assert_eq!(
            error.kind,
            ErrorKind::Interrupted,
            "after {delay} ms: {error}"
        );
    }
}

/// Follows every task and halts task `task` at its stop number `after`.
struct HaltIn {
    task: u32,
    after: u64,
    seen: AtomicU64,
}

impl Debugger for HaltIn {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        if stop.task() == self.task && self.seen.fetch_add(1, Ordering::Relaxed) >= self.after {
            Resume::Halt
        } else {
            Resume::Go
        }
    }

    fn follows_tasks(&self) -> bool {
        true
    }
}

/// Five tasks wait on a channel main sends on only after a sixth has
/// reported on another; main joins them all.
const WAITERS: &str = "
fn waiter(ch: Channel[Int]) -> Int {
  ch.recv().unwrap_or(0)
}
fn chatty(ch: Channel[Int], n: Int) -> Int {
  var s = 0
  for i in 0..n {
    let parts = [\"a{i}\", \"b{i}\"]
    s += parts.length()
  }
  ch.send(s)
  s
}
fn main() -> Int {
  let ch = Channel[Int]()
  let out = Channel[Int]()
  var ts = List[Task[Int]]()
  for i in 0..5 {
    ts.push(spawn waiter(ch))
  }
  let c = spawn chatty(out, 500)
  let got = out.recv().unwrap()
  for i in 0..5 {
    ch.send(i)
  }
  var s = got
  for t in ts {
    s += t.join()
  }
  s + c.join()
}
";

#[test]
fn a_followed_task_that_halts_while_its_peers_wait_ends_the_run_halted() {
    let program = compile(WAITERS);
    let unwatched = Vm::new(&program).run_entry("m", "main", vec![]);
    assert_eq!(unwatched, Ok(Value::Int(2010)));
    // Task 0 is main, 1..=5 the waiters, 6 the chatty task: every task halts
    // at its first stop and at a later one, while the others wait on it or
    // on a channel it would have fed.
    for task in 0..=6 {
        for after in [0, 3, 700] {
            let program = program.clone();
            let outcome = within_watchdog(move || {
                let dbg = HaltIn {
                    task,
                    after,
                    seen: AtomicU64::new(0),
                };
                Vm::new(&program)
                    .with_debugger(&dbg)
                    .run_entry("m", "main", vec![])
            });
            match outcome {
                Err(error) => assert_eq!(
                    error.kind,
                    ErrorKind::Halted,
                    "task {task} at {after}: {error}"
                ),
                // A waiter runs fewer than 700 instructions, and a run may
                // end before a task reaches its third.
                Ok(v) => assert_eq!(v, Value::Int(2010), "task {task} at {after}"),
            }
        }
    }
}
