//! Tasks and channels under the conditions that once broke them: request
//! and reply races run many times over, values too deep for any recursive
//! copy, queues that grow without bound, and tasks that end the run while
//! another waits on them.
//!
//! Each racy program runs fifty times in one test: the failures these tests
//! guard against were races that showed in one run of several, so a single
//! run proves little. Nothing here measures time; a test only needs its
//! runs to end, and to end as the program says.

use cove_runtime::{ErrorKind, Limits, RunError, Value, Vm};

mod support;
use support::Captured;

/// Compiles `source` as module `m` and runs its `main` under `limits`: what
/// it printed and how it ended.
fn run_with(source: &str, limits: Limits) -> (String, Result<Value, RunError>) {
    let program = cove_compiler::compile_module("m", source).expect("the program compiles");
    let out = Captured::default();
    let mut vm = Vm::new(&program)
        .with_output(Box::new(out.clone()))
        .with_error_output(Box::new(std::io::sink()))
        .with_limits(limits);
    let outcome = vm.run_entry("m", "main", vec![]);
    let printed = String::from_utf8_lossy(&out.0.lock().expect("the capture lock")).into_owned();
    (printed, outcome)
}

fn run(source: &str) -> (String, Result<Value, RunError>) {
    run_with(source, Limits::default())
}

/// Runs `source` fifty times; every run must print `expected` and succeed.
fn fifty_times_prints(source: &str, expected: &str) {
    for attempt in 1..=50 {
        let (printed, outcome) = run(source);
        assert!(
            outcome.is_ok(),
            "run {attempt} failed: {}",
            outcome.unwrap_err()
        );
        assert_eq!(printed, expected, "run {attempt} printed something else");
    }
}

const PING_PONG: &str = "
fn echo(inbox: Channel[Int], outbox: Channel[Int]) {
  var going = true
  while going {
    match inbox.recv() {
      Some(n) => outbox.send(n + 1),
      None => going = false,
    }
  }
}

fn main() {
  let inbox = Channel[Int]()
  let outbox = Channel[Int]()
  let t = spawn echo(inbox, outbox)
  var total = 0
  for i in 0..200 {
    inbox.send(i)
    total += outbox.recv().unwrap()
  }
  inbox.close()
  t.join()
  println(total)
}
";

#[test]
fn a_request_and_reply_over_two_channels_never_reports_a_false_deadlock() {
    fifty_times_prints(PING_PONG, "20100\n");
}

const NESTED_JOIN: &str = "
fn leaf() -> Int {
  7
}
fn mid() -> Int {
  let t = spawn leaf()
  t.join() + 1
}
fn main() {
  let t = spawn mid()
  println(t.join())
}
";

#[test]
fn a_task_that_joins_its_own_child_is_never_mistaken_for_a_deadlock() {
    fifty_times_prints(NESTED_JOIN, "8\n");
}

const WORKERS: &str = "
fn worker(jobs: Channel[Int], results: Channel[Int]) -> Int {
  var done = 0
  var going = true
  while going {
    match jobs.recv() {
      Some(n) => {
        results.send(n * n)
        done += 1
      }
      None => going = false,
    }
  }
  done
}

fn main() {
  let jobs = Channel[Int]()
  let results = Channel[Int]()
  let workers = [spawn worker(jobs, results), spawn worker(jobs, results), spawn worker(jobs, results)]
  for i in 1..11 {
    jobs.send(i)
  }
  jobs.close()
  var done = 0
  for w in workers {
    done += w.join()
  }
  results.close()
  var sum = 0
  var going = true
  while going {
    match results.recv() {
      Some(n) => sum += n,
      None => going = false,
    }
  }
  println(\"{done} {sum}\")
}
";

#[test]
fn workers_sharing_a_jobs_channel_always_finish_every_job() {
    fifty_times_prints(WORKERS, "10 385\n");
}

const JOIN_CHAIN: &str = "
fn bomb(n: Int) -> Int {
  if n == 20 { return 1 / 0 }
  let a = spawn bomb(n + 1)
  a.join()
}
fn main() {
  println(bomb(0))
}
";

#[test]
fn an_error_deep_in_a_chain_of_joins_always_surfaces_as_itself() {
    for attempt in 1..=50 {
        let (printed, outcome) = run(JOIN_CHAIN);
        let error = outcome.expect_err("the chain divides by zero");
        assert_eq!(
            error.kind,
            ErrorKind::DivisionByZero,
            "run {attempt} ended otherwise: {error}"
        );
        assert_eq!(printed, "");
    }
}

#[test]
fn joining_a_finished_task_twice_answers_both_times() {
    let source = "
fn seven() -> Int {
  7
}
fn main() {
  let t = spawn seven()
  let u = t
  println(t.join() + u.join() + t.join())
}
";
    fifty_times_prints(source, "21\n");
}

#[test]
fn a_real_deadlock_is_still_reported() {
    let source = "
fn wait_for(ch: Channel[Int], back: Channel[Int]) {
  back.send(ch.recv().unwrap())
}
fn main() {
  let ch = Channel[Int]()
  let back = Channel[Int]()
  let t = spawn wait_for(ch, back)
  println(back.recv().unwrap())
  ch.send(1)
  t.join()
}
";
    for _ in 0..10 {
        let (_, outcome) = run(source);
        assert_eq!(
            outcome.expect_err("both tasks wait on each other").kind,
            ErrorKind::Deadlock
        );
    }
}

/// How deep the deep-value tests nest: a hundred thousand, far past what a
/// recursive copy survives in a debug build. Under `COVE_GC_STRESS=1` (a
/// collection at every allocation, quadratic in a live heap this size) the
/// run is about roots, not depth, and a smaller list proves as much.
fn deep() -> usize {
    if std::env::var("COVE_GC_STRESS").is_ok_and(|v| v == "1" || v == "true") {
        2_000
    } else {
        100_000
    }
}

#[test]
fn a_list_a_hundred_thousand_deep_comes_back_from_a_task() {
    let deep = deep();
    let source = format!(
        "
struct Node {{ v: Int, next: Option[Node] }}

fn build(n: Int) -> Option[Node] {{
  var head: Option[Node] = None
  for i in 0..n {{
    head = Some(Node {{ v: i, next: head }})
  }}
  head
}}

fn main() {{
  let t = spawn build({deep})
  let l = t.join()
  println(l.unwrap().v)
}}
"
    );
    let (printed, outcome) = run(&source);
    assert_eq!(outcome, Ok(Value::Unit));
    assert_eq!(printed, format!("{}\n", deep - 1));
}

#[test]
fn a_list_a_hundred_thousand_deep_crosses_a_channel_and_a_spawn() {
    let deep = deep();
    let source = format!(
        "
enum L {{ Cons(Int, L), Nil }}

fn build(n: Int) -> L {{
  var l = L.Nil
  for i in 0..n {{ l = L.Cons(i, l) }}
  l
}}

fn head(l: L) -> Int {{
  match l {{
    L.Cons(h, _) => h,
    L.Nil => -1,
  }}
}}

fn main() {{
  let ch = Channel[L]()
  ch.send(build({deep}))
  let l = ch.recv().unwrap()
  let t = spawn head(l)
  println(t.join())
}}
"
    );
    let (printed, outcome) = run(&source);
    assert_eq!(outcome, Ok(Value::Unit));
    assert_eq!(printed, format!("{}\n", deep - 1));
}

#[test]
fn run_entry_returns_and_takes_a_list_a_hundred_thousand_deep() {
    let deep = deep();
    let source = format!(
        "
enum L {{ Cons(Int, L), Nil }}

export fn build() -> L {{
  var l = L.Nil
  for i in 0..{deep} {{ l = L.Cons(i, l) }}
  l
}}

export fn length(l: L) -> Int {{
  var n = 0
  var at = l
  var going = true
  while going {{
    match at {{
      L.Cons(_, rest) => {{
        n += 1
        at = rest
      }}
      L.Nil => going = false,
    }}
  }}
  n
}}
"
    );
    let program = cove_compiler::compile_module("m", &source).expect("the program compiles");
    let mut vm = Vm::new(&program);
    let list = vm
        .run_entry("m", "build", vec![])
        .expect("the list is built");
    let length = vm.run_entry("m", "length", vec![list]);
    assert_eq!(length, Ok(Value::Int(deep as i64)));
}

#[test]
fn a_channel_that_hoards_ends_in_the_heap_limit_not_the_hosts_memory() {
    let source = "
fn main() {
  let ch = Channel[String]()
  var i = 0
  while true {
    ch.send(\"payload {i}\".repeat(100))
    i += 1
  }
}
";
    let (_, outcome) = run_with(
        source,
        Limits {
            max_heap_words: Some(100_000),
            ..Limits::default()
        },
    );
    assert_eq!(
        outcome.expect_err("the queue grows past the limit").kind,
        ErrorKind::HeapLimit
    );
}

#[test]
fn messages_received_no_longer_count_against_the_heap_limit() {
    let source = "
fn main() {
  let ch = Channel[String]()
  for i in 0..5000 {
    ch.send(\"payload {i}\".repeat(100))
    ch.recv()
  }
  println(\"done\")
}
";
    let (printed, outcome) = run_with(
        source,
        Limits {
            max_heap_words: Some(100_000),
            ..Limits::default()
        },
    );
    assert_eq!(outcome, Ok(Value::Unit));
    assert_eq!(printed, "done\n");
}

#[test]
fn an_interrupt_ends_the_run_even_when_it_stops_a_task_main_waits_on() {
    let source = "
fn producer(ch: Channel[Int]) {
  while true { }
}
fn main() {
  let ch = Channel[Int]()
  let t = spawn producer(ch)
  println(ch.recv())
}
";
    let program = cove_compiler::compile_module("m", source).expect("the program compiles");
    let out = Captured::default();
    let mut vm = Vm::new(&program).with_output(Box::new(out.clone()));
    let handle = vm.interrupt_handle();
    // The interrupt may come before or after the task starts looping; the
    // run must end `Interrupted` either way.
    let interrupter = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        handle.interrupt();
    });
    let outcome = vm.run_entry("m", "main", vec![]);
    interrupter.join().expect("the interrupting thread ends");
    assert_eq!(
        outcome.expect_err("the run was interrupted").kind,
        ErrorKind::Interrupted
    );
    assert_eq!(*out.0.lock().expect("the capture lock"), b"");
}

#[test]
fn a_task_out_of_fuel_does_not_look_like_a_closed_channel_to_its_peer() {
    let source = "
fn producer(ch: Channel[Int]) {
  while true { }
}
fn main() {
  let ch = Channel[Int]()
  let t = spawn producer(ch)
  println(ch.recv())
}
";
    let (printed, outcome) = run_with(
        source,
        Limits {
            fuel: Some(100_000),
            ..Limits::default()
        },
    );
    assert_eq!(
        outcome.expect_err("the producer ran out of fuel").kind,
        ErrorKind::OutOfFuel
    );
    assert_eq!(printed, "");
}

#[test]
fn exit_in_a_task_main_waits_on_ends_the_run_with_its_status() {
    let source = "
fn quitter(ch: Channel[Int]) {
  exit(3)
}
fn main() {
  let ch = Channel[Int]()
  let t = spawn quitter(ch)
  println(ch.recv())
}
";
    for _ in 0..20 {
        let (printed, outcome) = run(source);
        assert_eq!(
            outcome.expect_err("the task exits").kind,
            ErrorKind::Exit(3)
        );
        assert_eq!(printed, "");
    }
}
#[test]
fn a_chain_of_ten_thousand_nested_spawns_ends_in_an_error() {
    let source = "
fn bomb(n: Int) -> Int {
  if n == 10000 { return n }
  let a = spawn bomb(n + 1)
  a.join()
}
fn main() {
  println(bomb(0))
}
";
    let (printed, outcome) = run(source);
    assert_eq!(
        outcome.expect_err("the chain passes the task limit").kind,
        ErrorKind::TooManyTasks
    );
    assert_eq!(printed, "");
}

#[test]
fn a_task_joined_after_its_run_ended_says_the_run_stopped_it_not_an_interrupt() {
    let program = cove_compiler::compile_module(
        "m",
        "fn spin() -> Int {\n  var i = 0\n  while true {\n    i = (i + 1) % 10\n  }\n  i\n}\n\nexport fn start() -> Task[Int] {\n  spawn spin()\n}\n\nexport fn finish(t: Task[Int]) -> Int {\n  t.join()\n}\n",
    )
    .expect("it compiles");
    let mut vm = Vm::new(&program);
    let task = vm.run_entry("m", "start", vec![]).expect("the task starts");
    let error = vm.run_entry("m", "finish", vec![task]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Interrupted, "{error}");
    assert!(
        error
            .message
            .contains("stopped: the run this task belongs to has ended"),
        "{error}"
    );
}

#[test]
fn a_deadlock_is_reported_by_the_task_that_waits_not_as_a_lost_fault() {
    let source = "
fn wait_for(ch: Channel[Int]) -> Int {
  ch.recv().unwrap_or(0)
}

fn main() {
  let ch = Channel[Int]()
  let t = spawn wait_for(ch)
  println(t.join())
  ch.send(1)
}
";
    let (_, outcome) = run(source);
    let error = outcome.expect_err("the run deadlocks");
    assert_eq!(error.kind, ErrorKind::Deadlock, "{error}");
    assert!(!error.message.contains("never joined"), "{error}");
    assert_eq!(error.backtrace[0].function, "m.main", "{error}");
}

#[test]
fn the_task_limit_bounds_tasks_not_yet_joined_not_tasks_spawned_in_all() {
    // Twenty rounds of five tasks, each round joined before the next: a
    // hundred spawns in all, never more than five unjoined.
    let source = "
fn square(n: Int) -> Int {
  n * n
}
fn main() {
  var total = 0
  for round in 0..20 {
    let ts = List[Task[Int]]()
    for i in 0..5 {
      ts.push(spawn square(round * 5 + i))
    }
    for t in ts {
      total += t.join()
      total += t.join()
    }
  }
  println(total)
  let more = List[Task[Int]]()
  for i in 0..6 {
    more.push(spawn square(i))
    println(i)
  }
}
";
    let limits = Limits {
        max_tasks: 5,
        ..Limits::default()
    };
    let (printed, outcome) = run_with(source, limits);
    // Twice the sum of the squares of 0..100; then the sixth unjoined task
    // passes the bound, however quickly the first five have ended.
    assert_eq!(printed, "656700\n0\n1\n2\n3\n4\n");
    assert_eq!(
        outcome.expect_err("six unjoined tasks pass the bound").kind,
        ErrorKind::TooManyTasks
    );
}
