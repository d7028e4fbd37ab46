//! A profile of a run with tasks that never end by themselves: an interrupt
//! or fuel ends it, the profiler neither panics nor hangs, and its count
//! for task 0 is still exactly the `Vm`'s.

use std::sync::mpsc;
use std::time::Duration;

use cove_profile::Profiler;
use cove_runtime::{ErrorKind, Limits, Vm};

/// Far longer than any of these runs takes; reaching it means a hang.
const WATCHDOG: Duration = Duration::from_secs(60);

/// Ten tasks wait on a channel nobody sends on and two spin allocating
/// forever; main joins them all.
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
    if xs.length() > 100 {
      xs = List[String]()
    }
  }
  i
}
fn main() -> Int {
  let ch = Channel[Int]()
  var ts = List[Task[Int]]()
  for i in 0..10 {
    ts.push(spawn waiter(ch))
  }
  ts.push(spawn busy(1))
  ts.push(spawn busy(2))
  var s = 0
  for t in ts {
    s += t.join()
  }
  s
}
";

/// Profiles `STUCK` (following tasks or not) under `limits`, interrupting
/// it after 20 ms: how it ended, the `Vm`'s count, the profile's count of
/// task 0 and of every task.
fn profile(follow: bool, limits: Limits) -> (ErrorKind, u64, u64, u64) {
    let program = cove_compiler::compile_module("m", STUCK).expect("the program compiles");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let profiler = if follow {
            Profiler::new().following_tasks()
        } else {
            Profiler::new()
        };
        let mut vm = Vm::new(&program)
            .with_debugger(&profiler)
            .with_limits(limits);
        let handle = vm.interrupt_handle();
        let interrupter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            handle.interrupt();
        });
        let outcome = vm.run_entry("m", "main", vec![]);
        interrupter.join().expect("the interrupting thread ends");
        let report = cove_profile::report::Report::new(&program, &profiler).profile();
        let task0 = report
            .tasks
            .iter()
            .find(|t| t.task == 0)
            .map_or(0, |t| t.total.ran);
        let kind = outcome.expect_err("the program never ends by itself").kind;
        let _ = tx.send((kind, vm.instructions(), task0, profiler.counted()));
    });
    rx.recv_timeout(WATCHDOG)
        .expect("the run ends before the watchdog")
}

#[test]
fn an_interrupted_profile_of_blocked_and_spinning_tasks_counts_task_zero_exactly() {
    for follow in [false, true] {
        let (kind, vm, task0, all) = profile(follow, Limits::default());
        assert_eq!(kind, ErrorKind::Interrupted);
        assert_eq!(task0, vm, "following tasks: {follow}");
        if follow {
            assert!(all > vm, "the spinning tasks are counted too");
        } else {
            assert_eq!(all, vm);
        }
    }
}

#[test]
fn a_profile_of_a_task_out_of_fuel_counts_task_zero_exactly() {
    let fuel = Limits {
        fuel: Some(20_000),
        ..Limits::default()
    };
    for follow in [false, true] {
        let (kind, vm, task0, all) = profile(follow, fuel.clone());
        // The spinners run out of fuel long before the interrupt, almost
        // always; on a machine slow enough the interrupt comes first.
        assert!(
            matches!(kind, ErrorKind::OutOfFuel | ErrorKind::Interrupted),
            "{kind:?}"
        );
        assert_eq!(task0, vm, "following tasks: {follow}");
        assert!(all >= vm);
    }
}
