//! The glances of the debugger seam (`Debugger::glance`): the stops after a
//! branch, a call, a return, a builtin answered on the spot or an
//! allocation are what the glance says they are, and a debugger that takes
//! them sees the same stops, in the same places, with the heap where it
//! is, as one that declines them and looks at every `Stop`.

use std::sync::Mutex;

use cove_ir::op::StretchEnd;
use cove_ir::program::FunctionId;
use cove_runtime::vm::debug::{Debugger, Glance, Resume, Stop, Stops};
use cove_runtime::{Value, Vm};

/// A recursion with a conditional return, a loop, a closure call and
/// allocations between them, so every kind of stretch end occurs.
const PROGRAM: &str = "fn fib(n: Int) -> Int {
  if n < 2 {
    return n
  }
  fib(n - 1) + fib(n - 2)
}

export fn main() -> Int {
  var total = 0
  let add = fn(x: Int) -> Int { x + total }
  for i in 0..6 {
    let text = \"n={i}\"
    total = total + fib(i) + text.length()
    total = add(1)
  }
  total
}
";

/// One stop, where it was and what the heap had handed out by then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    function: FunctionId,
    pc: u32,
    depth: usize,
    words: u64,
}

/// A debugger stopped at stretches that takes glances (or not) and writes
/// down every stop, checking each glance against the stop before it.
struct Recorder {
    take: bool,
    stops: Mutex<Vec<Seen>>,
    glances: Mutex<Vec<StretchEnd>>,
}

impl Recorder {
    fn new(take: bool) -> Recorder {
        Recorder {
            take,
            stops: Mutex::new(Vec::new()),
            glances: Mutex::new(Vec::new()),
        }
    }
}

impl Debugger for Recorder {
    fn at(&self, stop: &Stop<'_>) -> Resume {
        self.stops.lock().unwrap().push(Seen {
            function: stop.function_id(),
            pc: stop.pc(),
            depth: stop.depth(),
            words: stop.allocated_words(),
        });
        Resume::Go
    }

    fn stops(&self) -> Stops {
        Stops::Stretches
    }

    fn glance(&self, glance: &Glance<'_>) -> bool {
        if !self.take {
            return false;
        }
        let mut stops = self.stops.lock().unwrap();
        let before = *stops.last().expect("a task's first stop is never a glance");
        let now = Seen {
            function: glance.function_id(),
            pc: glance.pc(),
            depth: glance.depth(),
            words: glance.allocated_words(),
        };
        match glance.after() {
            StretchEnd::Branch | StretchEnd::Other => {
                assert_eq!((now.function, now.depth), (before.function, before.depth));
            }
            StretchEnd::Call => {
                assert_eq!(now.depth, before.depth + 1);
                assert_eq!(now.pc, 0, "a call's next stop is the callee's first");
            }
            StretchEnd::Return => assert_eq!(now.depth + 1, before.depth),
            other => panic!("a glance after {other:?}"),
        }
        if glance.after() != StretchEnd::Other {
            assert_eq!(now.words, before.words, "only an allocation moves the heap");
        }
        assert_eq!(glance.task(), 0);
        stops.push(now);
        self.glances.lock().unwrap().push(glance.after());
        true
    }
}

fn run(source: &str, recorder: &Recorder) -> (Result<Value, cove_runtime::RunError>, u64) {
    let program = cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"));
    let mut vm = Vm::new(&program).with_debugger(recorder);
    let result = vm.run_entry("m", "main", vec![]);
    (result, vm.instructions())
}

/// Runs `source` under a debugger that takes glances and one that
/// declines them, checks that both saw the same result, count and stops,
/// and hands back the two and the result.
fn run_both(source: &str) -> (Recorder, Recorder, Result<Value, cove_runtime::RunError>) {
    let taking = Recorder::new(true);
    let declining = Recorder::new(false);
    let (a, count_a) = run(source, &taking);
    let (b, count_b) = run(source, &declining);
    assert_eq!(a, b);
    assert_eq!(count_a, count_b);
    assert_eq!(
        *taking.stops.lock().unwrap(),
        *declining.stops.lock().unwrap(),
        "the same stops in the same places, with the heap where the Stop says"
    );
    (taking, declining, a)
}

#[test]
fn a_debugger_that_takes_glances_sees_the_stops_one_that_declines_them_sees() {
    let (taking, declining, _) = run_both(PROGRAM);
    let glances = taking.glances.lock().unwrap();
    for kind in [
        StretchEnd::Branch,
        StretchEnd::Call,
        StretchEnd::Return,
        StretchEnd::Other,
    ] {
        assert!(glances.contains(&kind), "no glance after {kind:?}");
    }
    assert!(declining.glances.lock().unwrap().is_empty());
}

#[test]
fn a_builtin_answered_on_the_spot_is_offered_as_a_branch_and_an_allocation_as_one() {
    // No jump, call or return before the end: every stretch but the last
    // ends in a builtin or an allocation. `length` and `byte_at` neither
    // allocate nor wait; the concatenation allocates.
    let source = "export fn main() -> Int {
  let s = \"hello\"
  let a = s.length()
  let b = s.byte_at(1)
  let t = s + \"!\"
  a + b + t.length()
}
";
    let (taking, _, result) = run_both(source);
    assert_eq!(result, Ok(Value::Int(5 + 101 + 6)));
    // The first stop, one after each of the three builtins, one after the
    // concatenation.
    assert_eq!(taking.stops.lock().unwrap().len(), 5);
    assert_eq!(
        *taking.glances.lock().unwrap(),
        [
            StretchEnd::Branch,
            StretchEnd::Branch,
            StretchEnd::Other,
            StretchEnd::Branch
        ],
        "the stops after the three quick builtins are a branch's glances, the one after the \
         concatenation an allocation's"
    );
}

#[test]
fn a_builtin_that_moved_neither_the_heap_nor_the_wait_is_offered_as_a_branch() {
    // `Map.set` and `List.sort` take the builtins' general way, out of line;
    // a set of a key the map has, and a sort in place, hand out no heap
    // words and wait for nothing, so the stops after them are glances after
    // a branch. `to_upper` makes a string: the stop after it is not.
    let source = "export fn main() -> Int {
  let m = Map[Int, Int]()
  m.set(1, 10)
  m.set(1, 20)
  let xs = [3, 1, 2]
  xs.sort()
  let u = \"ab\".to_upper()
  m.get(1).unwrap_or(0) + xs[0] + u.length()
}
";
    let (taking, declining, result) = run_both(source);
    assert_eq!(result, Ok(Value::Int(20 + 1 + 2)));
    let glances = taking.glances.lock().unwrap();
    let stops = declining.stops.lock().unwrap();
    // Every stop but the first is a glance: those after the three
    // allocations (the map, the list, the upper-cased string) an
    // allocation's, the five others a branch's, where the loop that offered
    // only its quick builtins' stops offered two.
    assert_eq!(glances.len(), stops.len() - 1, "{stops:?}");
    let branches = glances.iter().filter(|&&g| g == StretchEnd::Branch).count();
    assert_eq!(branches, stops.len() - 4, "{glances:?}");
}

#[test]
fn a_push_into_room_the_list_has_is_offered_as_a_branch_and_one_that_grows_it_as_an_allocation() {
    // `push.list` is an instruction, not a builtin: the first push grows
    // the empty list, and at least the last of the three finds room.
    let source = "export fn main() -> Int {
  let xs = List[Int]()
  xs.push(1)
  xs.push(2)
  xs.push(3)
  xs.length()
}
";
    let (taking, _, result) = run_both(source);
    assert_eq!(result, Ok(Value::Int(3)));
    let glances = taking.glances.lock().unwrap();
    // After the new list, an allocation's; after each push, the one that
    // grew the list an allocation's and the ones into room a branch's.
    assert_eq!(glances.len(), 4, "{glances:?}");
    assert_eq!(glances[0], StretchEnd::Other, "{glances:?}");
    assert_eq!(glances[1], StretchEnd::Other, "{glances:?}");
    assert_eq!(glances[3], StretchEnd::Branch, "{glances:?}");
}
