//! The debugger seam on compiled programs: what a stop shows, which tasks a
//! debugger sees, and that watching a run does not change it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use cove_ir::op::Instr;
use cove_runtime::vm::debug::{Debugger, Resume, Stop};
use cove_runtime::{ErrorKind, Limits, Value, Vm};

fn compile(source: &str) -> cove_ir::program::Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

/// A loop, so an instruction is counted many times.
const COUNTED: &str = "export fn main() -> Int {\n  var total = 0\n  var i = 0\n  while i < 3000 {\n    total = total + i\n    i = i + 1\n  }\n  total\n}\n";

/// Builds strings, so the heap is busy.
const ALLOCATES: &str = "export fn main() -> Int {\n  var total = 0\n  var i = 0\n  while i < 2000 {\n    let text = \"n={i}\"\n    total = total + text.length()\n    i = i + 1\n  }\n  total\n}\n";

#[derive(Default)]
struct Counter(AtomicU64);

impl Debugger for Counter {
    fn at(&self, _stop: &Stop<'_>) -> Resume {
        self.0.fetch_add(1, Ordering::Relaxed);
        Resume::Go
    }
}

#[test]
fn every_instruction_the_run_executed_is_counted_once() {
    let program = compile(COUNTED);
    let counter = Counter::default();
    let mut vm = Vm::new(&program).with_debugger(&counter);
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(4_498_500)));
    assert_eq!(counter.0.load(Ordering::Relaxed), vm.instructions());
    assert!(vm.instructions() > 3000 * 3);
}

#[test]
fn the_unwatched_and_watched_runs_give_the_same_result_and_count() {
    let program = compile(ALLOCATES);
    let mut plain = Vm::new(&program);
    let counter = Counter::default();
    let mut watched = Vm::new(&program).with_debugger(&counter);
    let a = plain.run_entry("m", "main", vec![]);
    let b = watched.run_entry("m", "main", vec![]);
    assert_eq!(a, b);
    assert_eq!(plain.instructions(), watched.instructions());
}

/// The frames' function names, the innermost frame's locals, the depth and
/// the line, as one stop showed them.
type Seen = (Vec<String>, Vec<(String, Value)>, usize, Option<u32>);

/// Records what the stop before one `return` in `add` shows.
#[derive(Default)]
struct Inspector {
    seen: Mutex<Option<Seen>>,
}

impl Debugger for Inspector {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        let program = stop.program();
        if program.function_name(stop.function_id()) == "m.add"
            && matches!(stop.instr(), Instr::Return { .. })
        {
            let frames = stop
                .frames()
                .map(|f| program.function_name(f.function_id()).to_string())
                .collect();
            let locals = stop.frames().next().expect("an innermost frame").locals();
            *self.seen.lock().unwrap() = Some((frames, locals, stop.depth(), stop.line()));
        }
        Resume::Go
    }
}

#[test]
fn a_stop_shows_the_frames_innermost_first_and_the_locals_by_their_types() {
    let program = compile(
        "fn add(a: Int, b: Int) -> Int {\n  let c = a + b\n  c\n}\n\nexport fn main() -> Int {\n  let label = \"sum\"\n  add(2, 3)\n}\n",
    );
    let inspector = Inspector::default();
    let mut vm = Vm::new(&program).with_debugger(&inspector);
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(5)));
    let (frames, locals, depth, line) = inspector
        .seen
        .lock()
        .unwrap()
        .clone()
        .expect("the stop happened");
    assert_eq!(frames, vec!["m.add".to_string(), "m.main".to_string()]);
    assert_eq!(depth, 2);
    assert!(line.is_some_and(|l| (2..=4).contains(&l)), "{line:?}");
    assert!(
        locals.contains(&("a".to_string(), Value::Int(2))),
        "{locals:?}"
    );
    assert!(
        locals.contains(&("c".to_string(), Value::Int(5))),
        "{locals:?}"
    );
}

/// Which tasks it was called for, and the heap counters each last showed.
struct TaskWatcher {
    follow: bool,
    tasks: Mutex<BTreeSet<u32>>,
    counters: Mutex<BTreeMap<u32, (u64, u64)>>,
    shrank: AtomicU64,
}

impl TaskWatcher {
    fn new(follow: bool) -> TaskWatcher {
        TaskWatcher {
            follow,
            tasks: Mutex::default(),
            counters: Mutex::default(),
            shrank: AtomicU64::new(0),
        }
    }
}

impl Debugger for TaskWatcher {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        self.tasks.lock().unwrap().insert(stop.task());
        let now = (stop.allocated_words(), stop.allocations());
        let mut counters = self.counters.lock().unwrap();
        let before = counters.insert(stop.task(), now).unwrap_or((0, 0));
        if now.0 < before.0 || now.1 < before.1 {
            self.shrank.fetch_add(1, Ordering::Relaxed);
        }
        Resume::Go
    }

    fn follows_tasks(&self) -> bool {
        self.follow
    }
}

const SPAWNS: &str = "fn work(n: Int) -> Int {\n  var parts = List[String]()\n  for i in 0..n {\n    parts.push(\"{i}\")\n  }\n  parts.length()\n}\n\nexport fn main() -> Int {\n  let a = spawn work(300)\n  let b = spawn work(200)\n  a.join() + b.join()\n}\n";

#[test]
fn a_debugger_that_follows_tasks_sees_each_task_by_its_number() {
    let program = compile(SPAWNS);
    let watcher = TaskWatcher::new(true);
    let mut vm = Vm::new(&program)
        .with_debugger(&watcher)
        .with_limits(Limits {
            gc_stress: true,
            ..Limits::default()
        });
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(500)));
    assert_eq!(*watcher.tasks.lock().unwrap(), BTreeSet::from([0, 1, 2]));
    assert_eq!(
        watcher.shrank.load(Ordering::Relaxed),
        0,
        "the heap counters never go back, even under GC stress"
    );
}

#[test]
fn a_debugger_that_does_not_follow_tasks_sees_only_the_first() {
    let program = compile(SPAWNS);
    let watcher = TaskWatcher::new(false);
    let mut vm = Vm::new(&program).with_debugger(&watcher);
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(500)));
    assert_eq!(*watcher.tasks.lock().unwrap(), BTreeSet::from([0]));
}

#[test]
fn an_interrupt_ends_a_run_whose_task_never_finishes() {
    let program = compile(
        "fn spin() -> Int {\n  var i = 0\n  while true {\n    i = i + 1\n    if i > 1000000 {\n      i = 0\n    }\n  }\n  i\n}\n\nexport fn main() -> Int {\n  let t = spawn spin()\n  t.join()\n}\n",
    );
    let mut vm = Vm::new(&program);
    let handle = vm.interrupt_handle();
    let interrupter = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        handle.interrupt();
    });
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    interrupter.join().unwrap();
    assert_eq!(error.kind, ErrorKind::Interrupted, "{error}");
}

#[test]
fn a_run_that_leaves_a_task_spinning_still_returns() {
    let program = compile(
        "fn spin() -> Int {\n  var i = 0\n  while true {\n    i = i + 1\n    if i > 1000000 {\n      i = 0\n    }\n  }\n  i\n}\n\nexport fn main() -> Int {\n  let t = spawn spin()\n  7\n}\n",
    );
    let mut vm = Vm::new(&program);
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(7)));
}

#[test]
fn an_error_displays_the_message_then_the_cove_backtrace() {
    let program = compile(
        "fn divide(a: Int, b: Int) -> Int {\n  a / b\n}\n\nexport fn main() -> Int {\n  divide(1, 0)\n}\n",
    );
    let mut vm = Vm::new(&program);
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::DivisionByZero);
    let path = &program.modules[0].path;
    assert_eq!(
        error.to_string(),
        format!("division by zero\n  at m.divide ({path}:2)\n  at m.main ({path}:6)")
    );
}

#[test]
fn the_collector_reclaims_garbage_so_a_small_heap_limit_holds_a_long_run() {
    let program = compile(ALLOCATES);
    let mut vm = Vm::new(&program).with_limits(Limits {
        max_heap_words: Some(4_000),
        ..Limits::default()
    });
    assert_eq!(
        vm.run_entry("m", "main", vec![]),
        Ok(Value::Int(10 * 3 + 90 * 4 + 900 * 5 + 1000 * 6)),
        "two thousand strings fit in a four-thousand-word heap only if the dead ones are reclaimed"
    );
}
