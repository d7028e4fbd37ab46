//! The engine driven through a `Session`, as a front end drives it: each
//! stepping mode, breakpoints of every kind, a pause from another thread,
//! faults, ending a run, and the profile a session carries.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use cove_debug::expr::Expr;
use cove_debug::{Event, HitCondition, Mode, NewBreakpoint, Reason, Session, Snapshot};
use cove_runtime::{ErrorKind, RunError, Value};

/// `square` is called from a loop in `main`; `fail` divides by zero.
const SOURCE: &str = "\
fn square(n: Int) -> Int {
  let result = n * n
  result
}

fn main() -> Int {
  var total = 0
  for i in 0..4 {
    total += square(i)
  }
  total
}
";

struct Driver {
    session: Session,
    events: Receiver<Event>,
}

/// A hang guard for a test that went wrong, not a measurement.
const PATIENCE: Duration = Duration::from_secs(60);

fn driver(source: &str) -> Driver {
    let program = cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"));
    let (sender, events) = mpsc::channel();
    let session = Session::new(Arc::new(program), move |e| {
        let _ = sender.send(e);
    });
    Driver { session, events }
}

impl Driver {
    fn event(&self) -> Event {
        self.events.recv_timeout(PATIENCE).expect("an event comes")
    }

    fn stop(&self) -> Snapshot {
        match self.event() {
            Event::Stopped(s) => s,
            Event::Exited { result, .. } => panic!("the run ended: {result:?}"),
        }
    }

    fn end(&mut self) -> Result<Value, RunError> {
        match self.event() {
            Event::Exited { result, .. } => {
                self.session.ended();
                result
            }
            Event::Stopped(s) => panic!("stopped: {s:?}"),
        }
    }

    fn resume(&self, mode: Mode) -> Snapshot {
        self.session.resume(mode);
        self.stop()
    }

    fn add(&self, spec: &str) -> Arc<cove_debug::Breakpoint> {
        self.session
            .engine()
            .add_breakpoint(
                NewBreakpoint {
                    spec: spec.to_string(),
                    ..NewBreakpoint::default()
                },
                "m",
            )
            .expect("the breakpoint resolves")
    }
}

/// The innermost frame's function, line and the local `name`.
fn at(s: &Snapshot, name: &str) -> (String, Option<u32>, Option<Value>) {
    let top = s.top().expect("a frame");
    let value = top
        .locals
        .iter()
        .find(|v| v.name == name)
        .map(|v| v.value.clone());
    (top.name.clone(), top.line, value)
}

#[test]
fn the_session_opens_stopped_before_the_first_instruction_of_main() {
    let mut d = driver(SOURCE);
    d.session.start(true).unwrap();
    let s = d.stop();
    assert_eq!(s.reason, Reason::Entry);
    assert_eq!((s.frames.len(), s.frames[0].pc), (1, 0));
    assert_eq!(at(&s, "total").0, "m.main");
    d.session.resume(Mode::Continue);
    assert_eq!(d.end(), Ok(Value::Int(14)));
}

#[test]
fn step_enters_a_call_next_steps_over_it_and_finish_leaves_it() {
    let mut d = driver(SOURCE);
    d.add("m.cove:9");
    d.session.start(false).unwrap();
    let s = d.stop();
    assert_eq!(s.reason, Reason::Breakpoint(vec![1]));
    assert_eq!(at(&s, "i"), ("m.main".into(), Some(9), Some(Value::Int(0))));

    let s = d.resume(Mode::Step);
    assert_eq!(
        at(&s, "n"),
        ("m.square".into(), Some(2), Some(Value::Int(0)))
    );
    assert_eq!(s.frames.len(), 2);
    let s = d.resume(Mode::Next);
    assert_eq!(at(&s, "result").1, Some(3));
    let s = d.resume(Mode::Finish);
    assert_eq!((s.reason.clone(), s.frames.len()), (Reason::Step, 1));
    assert_eq!(at(&s, "i").1, Some(9));

    // `next` from the loop's line goes round without entering square: the
    // breakpoint on line 9 is what stops it.
    let s = d.resume(Mode::Next);
    assert_eq!((at(&s, "i").1, s.frames.len()), (Some(8), 1));
    let s = d.resume(Mode::Next);
    assert_eq!(s.reason, Reason::Breakpoint(vec![1]));
    assert_eq!(at(&s, "i").2, Some(Value::Int(1)));
    let before = (s.frames[0].function, s.frames[0].pc);
    let s = d.resume(Mode::StepInstruction);
    assert_eq!(s.reason, Reason::Step);
    assert_eq!(
        (s.frames[0].function, s.frames[0].pc),
        (before.0, before.1 + 1)
    );
    d.session.engine().retain_breakpoints(|_| false);
    d.session.resume(Mode::Continue);
    assert_eq!(d.end(), Ok(Value::Int(14)));
}

#[test]
fn stepi_moves_exactly_one_instruction() {
    let mut d = driver(SOURCE);
    d.session.start(true).unwrap();
    let first = d.stop();
    let second = d.resume(Mode::StepInstruction);
    assert_eq!(second.frames[0].pc, first.frames[0].pc + 1);
    d.session.end();
}

#[test]
fn a_conditional_breakpoint_stops_only_where_its_condition_holds() {
    let mut d = driver(SOURCE);
    d.session
        .engine()
        .add_breakpoint(
            NewBreakpoint {
                spec: "square".into(),
                condition: Some(Expr::parse("n * n > 3").unwrap()),
                ..NewBreakpoint::default()
            },
            "m",
        )
        .unwrap();
    d.session.start(false).unwrap();
    assert_eq!(at(&d.stop(), "n").2, Some(Value::Int(2)));
    assert_eq!(at(&d.resume(Mode::Continue), "n").2, Some(Value::Int(3)));
    d.session.resume(Mode::Continue);
    assert_eq!(d.end(), Ok(Value::Int(14)));
}

#[test]
fn a_hit_condition_counts_the_passes_where_the_condition_held() {
    let mut d = driver(SOURCE);
    let b = d
        .session
        .engine()
        .add_breakpoint(
            NewBreakpoint {
                spec: "m.cove:2".into(),
                hit_condition: Some(HitCondition::parse("% 2").unwrap()),
                ..NewBreakpoint::default()
            },
            "m",
        )
        .unwrap();
    d.session.start(false).unwrap();
    assert_eq!(at(&d.stop(), "n").2, Some(Value::Int(1)));
    assert_eq!(at(&d.resume(Mode::Continue), "n").2, Some(Value::Int(3)));
    assert_eq!(b.hits(), 4);
    d.session.resume(Mode::Continue);
    assert_eq!(d.end(), Ok(Value::Int(14)));
    assert_eq!(HitCondition::parse("== 3"), Ok(HitCondition::Equal(3)));
    assert_eq!(HitCondition::parse(">= 3"), Ok(HitCondition::AtLeast(3)));
    assert_eq!(HitCondition::parse("> 3"), Ok(HitCondition::Above(3)));
    assert!(HitCondition::parse("% 0").is_err());
    assert!(HitCondition::parse("often").is_err());
}

#[test]
fn a_condition_that_cannot_be_evaluated_stops_and_says_why() {
    let mut d = driver(SOURCE);
    d.session
        .engine()
        .add_breakpoint(
            NewBreakpoint {
                spec: "square".into(),
                condition: Some(Expr::parse("missing > 1").unwrap()),
                ..NewBreakpoint::default()
            },
            "m",
        )
        .unwrap();
    d.session.start(false).unwrap();
    match d.stop().reason {
        Reason::ConditionFailed {
            breakpoint,
            message,
        } => {
            assert_eq!(breakpoint, 1);
            assert!(message.contains("missing"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    d.session.end();
}

#[test]
fn a_temporary_breakpoint_goes_once_it_has_stopped() {
    let mut d = driver(SOURCE);
    d.session
        .engine()
        .add_breakpoint(
            NewBreakpoint {
                spec: "square".into(),
                temporary: true,
                ..NewBreakpoint::default()
            },
            "m",
        )
        .unwrap();
    d.session.start(false).unwrap();
    assert_eq!(at(&d.stop(), "n").2, Some(Value::Int(0)));
    assert!(d.session.engine().breakpoints().is_empty());
    d.session.resume(Mode::Continue);
    assert_eq!(d.end(), Ok(Value::Int(14)));
}

#[test]
fn a_pause_from_another_thread_stops_a_running_loop_where_it_is() {
    let mut d = driver(
        "fn main() -> Int {\n  var i = 0\n  while true {\n    i = (i + 1) % 1000\n  }\n  i\n}\n",
    );
    // Into the loop first, so the pause cannot land before it.
    d.add("m.cove:4");
    d.session.start(false).unwrap();
    assert_eq!(at(&d.stop(), "i").1, Some(4));
    d.session.engine().retain_breakpoints(|_| false);
    d.session.resume(Mode::Continue);
    d.session
        .engine()
        .pause_flag()
        .store(true, Ordering::SeqCst);
    let s = d.stop();
    assert_eq!(s.reason, Reason::Pause);
    assert!(matches!(at(&s, "i").1, Some(3 | 4)), "{s:?}");
    d.session.end();
    match d.event() {
        Event::Exited { result, .. } => assert_eq!(result.unwrap_err().kind, ErrorKind::Halted),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_runtime_error_stops_at_the_faulting_frame_unless_that_is_turned_off() {
    let source =
        "fn div(a: Int, b: Int) -> Int {\n  a / b\n}\n\nfn main() -> Int {\n  div(1, 0)\n}\n";
    let mut d = driver(source);
    d.session.start(false).unwrap();
    let s = d.stop();
    assert_eq!(
        s.reason,
        Reason::Fault {
            kind: ErrorKind::DivisionByZero,
            message: "division by zero".into()
        }
    );
    assert_eq!(at(&s, "b"), ("m.div".into(), Some(2), Some(Value::Int(0))));
    assert_eq!(s.frames[1].name, "m.main");
    d.session.resume(Mode::Continue);
    assert_eq!(d.end().unwrap_err().kind, ErrorKind::DivisionByZero);

    d.session.engine().set_break_on_fault(false);
    d.session.start(false).unwrap();
    assert_eq!(d.end().unwrap_err().kind, ErrorKind::DivisionByZero);
}

#[test]
fn a_breakpoint_in_a_spawned_task_stops_that_task() {
    let source = "fn work(n: Int) -> Int {\n  n * 2\n}\n\nfn main() -> Int {\n  let t = spawn work(21)\n  t.join()\n}\n";
    let mut d = driver(source);
    d.add("work");
    d.session.start(false).unwrap();
    let s = d.stop();
    assert_eq!(s.task, 1);
    assert_eq!(s.frames.len(), 1, "a task's own frames only");
    assert_eq!(at(&s, "n").2, Some(Value::Int(21)));
    assert!(d.session.engine().tasks().contains(&1));
    d.session.resume(Mode::Continue);
    assert_eq!(d.end(), Ok(Value::Int(42)));
}

#[test]
fn a_carried_profile_counts_every_instruction_the_run_executed() {
    let program = cove_compiler::compile_module("m", SOURCE).unwrap();
    let plain = cove_profile::Profiler::new();
    let mut vm = cove_runtime::Vm::new(&program).with_debugger(&plain);
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(14)));

    let (sender, events) = mpsc::channel();
    let mut session = Session::new(Arc::new(program), move |e| {
        let _ = sender.send(e);
    })
    .with_profile(Box::new(|| cove_profile::Profiler::new().following_tasks()));
    session.start(true).unwrap();
    assert!(matches!(
        events.recv_timeout(PATIENCE),
        Ok(Event::Stopped(_))
    ));
    let so_far = session.profiler().expect("a profiler").counted();
    assert_eq!(so_far, 1, "the stop before the first instruction");
    session.resume(Mode::Continue);
    assert!(matches!(
        events.recv_timeout(PATIENCE),
        Ok(Event::Exited { .. })
    ));
    assert_eq!(session.profiler().unwrap().counted(), plain.counted());
}

#[test]
fn a_restart_ends_the_stopped_run_and_starts_again() {
    let mut d = driver(SOURCE);
    d.add("square");
    let first = d.session.start(false).unwrap();
    assert_eq!(d.stop().run, first);
    let second = d.session.start(false).unwrap();
    assert_ne!(first, second);
    // The first run's end, then the second run's stop.
    match d.event() {
        Event::Exited { run, result } => {
            assert_eq!(run, first);
            assert_eq!(result.unwrap_err().kind, ErrorKind::Halted);
        }
        other => panic!("{other:?}"),
    }
    let s = d.stop();
    assert_eq!((s.run, at(&s, "n").2), (second, Some(Value::Int(0))));
    d.session.end();
}
