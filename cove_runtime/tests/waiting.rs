//! What a stop says of waiting: the cumulative time a task has spent parked
//! in `join` and `recv` ([`Stop::blocked_nanos`]), moved by exactly the
//! blocking instruction and by nothing else.
//!
//! The runs use [`Vm::with_fixed_wait_time`], so each park counts a known
//! amount and the figures are exact. Whether the main task parks at all is
//! up to the threads; each program makes it all but certain by joining a
//! task that runs a few million instructions first.

use cove_ir::builtins::Builtin;
use cove_ir::op::Instr;
use cove_ir::program::Program;
use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::{Value, Vm};
use parking_lot::Mutex;

/// One millisecond, counted for every park.
const PARK: u64 = 1_000_000;

fn compile(source: &str) -> Program {
    cove_compiler::compile_module("m", source).expect("the program compiles")
}

/// Records, for every stop of task 0, the instruction it is before and
/// the task's blocked time there.
#[derive(Default)]
struct Waits(Mutex<Vec<(Instr, u64)>>);

impl Debugger for Waits {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        if stop.task() == 0 {
            self.0.lock().push((*stop.instr(), stop.blocked_nanos()));
        }
        Resume::Go
    }
}

/// The builtin an instruction calls, if it calls one.
fn builtin(instr: &Instr) -> Option<Builtin> {
    match instr {
        Instr::CallBuiltin { builtin, .. } => Some(*builtin),
        _ => None,
    }
}

/// Runs `main` of `source` watched by [`Waits`], each park counting
/// [`PARK`]; what the stops saw.
fn stops_of(source: &str) -> Vec<(Instr, u64)> {
    let program = compile(source);
    let waits = Waits::default();
    let mut vm = Vm::new(&program)
        .with_fixed_wait_time(PARK)
        .with_debugger(&waits);
    vm.run_entry("m", "main", vec![])
        .expect("the run ends well");
    waits.0.into_inner()
}

/// Every place task 0's blocked time moved: the instruction the stop
/// before was at, and by how much.
fn moves(stops: &[(Instr, u64)]) -> Vec<(Option<Builtin>, u64)> {
    stops
        .windows(2)
        .filter(|pair| pair[1].1 != pair[0].1)
        .map(|pair| (builtin(&pair[0].0), pair[1].1 - pair[0].1))
        .collect()
}

const SLOW: &str = "
fn slow(n: Int) -> Int {
  var i = 0
  var s = 0
  while i < n {
    s += i % 7
    i += 1
  }
  s
}
";

#[test]
fn a_join_of_a_slow_task_moves_the_blocked_time_at_the_join_and_nowhere_else() {
    let source = format!(
        "{SLOW}
fn main() -> Int {{
  let t = spawn slow(2000000)
  let r = t.join()
  var k = 0
  for i in 0..10 {{
    k += i
  }}
  r + k
}}
"
    );
    let stops = stops_of(&source);
    assert_eq!(stops[0].1, 0, "a task begins having waited for nothing");
    assert_eq!(moves(&stops), vec![(Some(Builtin::TaskJoin), PARK)]);
}

#[test]
fn a_consumer_that_waits_on_recv_has_its_waits_on_the_recv() {
    let source = format!(
        "{SLOW}
fn produce(ch: Channel[Int], n: Int) -> Int {{
  for i in 0..n {{
    ch.send(slow(300000) + i)
  }}
  ch.close()
  n
}}
fn main() -> Int {{
  let ch = Channel[Int]()
  let p = spawn produce(ch, 3)
  var total = 0
  while true {{
    match ch.recv() {{
      Some(v) => total += v,
      None => break,
    }}
  }}
  total + p.join()
}}
"
    );
    let stops = stops_of(&source);
    let moved = moves(&stops);
    assert!(!moved.is_empty(), "the consumer waited for its messages");
    for (at, by) in &moved {
        assert!(
            matches!(at, Some(Builtin::ChannelRecv | Builtin::TaskJoin)),
            "blocked time moved after {at:?}"
        );
        assert_eq!(*by, PARK, "one park a wait, each counted as fixed");
    }
    assert!(
        moved
            .iter()
            .any(|(at, _)| *at == Some(Builtin::ChannelRecv))
    );
}

#[test]
fn a_run_that_never_waits_has_no_blocked_time() {
    let source = "
fn main() -> Int {
  var s = 0
  for i in 0..100 {
    s += i
  }
  s
}
";
    let stops = stops_of(source);
    assert!(stops.iter().all(|(_, blocked)| *blocked == 0));
}

#[test]
fn a_real_wait_is_measured_by_the_clock() {
    let program = compile(&format!(
        "{SLOW}
fn main() -> Int {{
  let t = spawn slow(2000000)
  t.join()
}}
"
    ));
    let waits = Waits::default();
    let mut vm = Vm::new(&program).with_debugger(&waits);
    assert!(matches!(
        vm.run_entry("m", "main", vec![]),
        Ok(Value::Int(_))
    ));
    let stops = waits.0.into_inner();
    let last = stops.last().expect("the run stopped").1;
    assert!(last > 0, "the join waited a measurable time");
}

#[test]
fn the_vm_adds_up_its_main_tasks_blocked_time_over_its_runs_as_its_stops_saw_it() {
    let source = format!(
        "{SLOW}
fn main() -> Int {{
  let t = spawn slow(2000000)
  t.join()
}}
"
    );
    let program = compile(&source);
    let mut vm = Vm::new(&program).with_fixed_wait_time(PARK);
    assert_eq!(vm.blocked_nanos(), 0, "a Vm that never ran never waited");
    vm.run_entry("m", "main", vec![])
        .expect("the run ends well");
    assert_eq!(vm.blocked_nanos(), PARK, "one park at the join");
    vm.run_entry("m", "main", vec![])
        .expect("the run ends well");
    assert_eq!(
        vm.blocked_nanos(),
        2 * PARK,
        "and one more in the second run"
    );
}

#[test]
#[cfg(unix)]
fn the_main_tasks_processor_time_leaves_out_the_task_it_waited_for() {
    // The spawned task runs some tens of millions of instructions; main
    // only spawns it and waits. Main's own clock sees a sliver of that,
    // and its blocked time (the real clock's, here) about all of it.
    let source = format!(
        "{SLOW}
fn main() -> Int {{
  let t = spawn slow(20000000)
  t.join()
}}
"
    );
    let program = compile(&source);
    let mut vm = Vm::new(&program);
    vm.run_entry("m", "main", vec![])
        .expect("the run ends well");
    let cpu = vm.cpu_nanos().expect("a thread clock on unix");
    let blocked = vm.blocked_nanos();
    assert!(
        cpu < blocked,
        "main ran {cpu} ns of processor time and waited {blocked} ns for the task"
    );
}

#[test]
#[cfg(unix)]
fn a_run_without_tasks_spends_processor_time_and_no_blocked_time() {
    let source = format!("{SLOW}\nfn main() -> Int {{\n  slow(2000000)\n}}\n");
    let program = compile(&source);
    let mut vm = Vm::new(&program);
    vm.run_entry("m", "main", vec![])
        .expect("the run ends well");
    assert_eq!(vm.blocked_nanos(), 0);
    assert!(vm.cpu_nanos().expect("a thread clock on unix") > 0);
}
