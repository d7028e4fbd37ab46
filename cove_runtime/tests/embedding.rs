//! The embedding contract, as a host sees it: `Vm::run_entry` with every
//! kind of `Value` in and out, arguments it must refuse, entries it must
//! refuse, and every way a run must end in a `RunError` rather than a
//! panic or a hang: fuel, the heap limit, the call depth, an interrupt from
//! another thread while the run computes or waits.
//!
//! Every run goes through `within`, which fails the test (rather than
//! hanging the suite) if the run takes longer than a watchdog's patience.

use std::sync::mpsc;
use std::time::Duration;

use cove_runtime::{ErrorKind, Limits, RunError, Value, Vm};

/// How long any one run in this file may take before the test calls it
/// hung. Every run here takes a small fraction of it.
const WATCHDOG: Duration = Duration::from_secs(20);

mod support;
use support::Captured;

fn compile(source: &str) -> cove_ir::program::Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

/// Runs `f` on a thread of its own and gives what it returned, or fails the
/// test if it does not return within the watchdog's patience.
fn within<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(WATCHDOG) {
        Ok(value) => value,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the run hung"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the run panicked"),
    }
}

/// Compiles `source` and runs `m.entry(args)` under `limits`, output
/// discarded, on a watched thread.
fn run_limited(
    source: &str,
    entry: &str,
    args: Vec<Value>,
    limits: Limits,
) -> Result<Value, RunError> {
    let source = source.to_string();
    let entry = entry.to_string();
    within(move || {
        let program = compile(&source);
        let mut vm = Vm::new(&program)
            .with_output(Box::new(std::io::sink()))
            .with_error_output(Box::new(std::io::sink()))
            .with_limits(limits);
        vm.run_entry("m", &entry, args)
    })
}

fn run(source: &str, entry: &str, args: Vec<Value>) -> Result<Value, RunError> {
    run_limited(source, entry, args, Limits::default())
}

fn kind_of(outcome: Result<Value, RunError>) -> ErrorKind {
    match outcome {
        Ok(value) => panic!("the run succeeded with {value}, but an error was expected"),
        Err(error) => error.kind,
    }
}

fn some(v: Value) -> Value {
    Value::Option(Some(Box::new(v)))
}

fn point(x: i64, y: i64) -> Value {
    Value::Struct {
        name: "Point".to_string(),
        fields: vec![
            ("x".to_string(), Value::Int(x)),
            ("y".to_string(), Value::Int(y)),
        ],
    }
}

fn variant(enum_name: &str, variant: &str, fields: Vec<Value>) -> Value {
    Value::Variant {
        enum_name: enum_name.to_string(),
        variant: variant.to_string(),
        fields,
    }
}

const IDENTITIES: &str = "
export struct Point {
  x: Int,
  y: Int,
}

export enum Shape {
  Circle(Float),
  Poly(List[Point]),
  Labeled(String, Option[Shape]),
  Nothing,
}

export fn int(v: Int) -> Int {
  v
}

export fn float(v: Float) -> Float {
  v
}

export fn bool(v: Bool) -> Bool {
  v
}

export fn string(v: String) -> String {
  v
}

export fn ints(v: List[Int]) -> List[Int] {
  v
}

export fn by_name(v: Map[String, Int]) -> Map[String, Int] {
  v
}

export fn by_int(v: Map[Int, String]) -> Map[Int, String] {
  v
}

export fn by_bool(v: Map[Bool, Float]) -> Map[Bool, Float] {
  v
}

export fn maybe(v: Option[Int]) -> Option[Int] {
  v
}

export fn point(v: Point) -> Point {
  v
}

export fn shape(v: Shape) -> Shape {
  v
}

export fn nested(v: List[Map[String, Option[List[Point]]]]) -> List[Map[String, Option[List[Point]]]] {
  v
}

export fn unit() {
}
";

#[test]
fn every_kind_of_value_comes_back_from_an_identity_entry_unchanged() {
    let cases = vec![
        ("int", Value::Int(i64::MIN)),
        ("int", Value::Int(i64::MAX)),
        ("float", Value::Float(-2.5e-300)),
        ("float", Value::Float(f64::INFINITY)),
        ("bool", Value::Bool(true)),
        ("bool", Value::Bool(false)),
        ("string", Value::str("")),
        ("string", Value::str("héllo, 日本 \"quoted\" \n {braces}")),
        ("ints", Value::List(vec![])),
        ("ints", Value::List(vec![Value::Int(3), Value::Int(-1)])),
        (
            "by_name",
            Value::Map(vec![
                (Value::str("z"), Value::Int(1)),
                (Value::str("a"), Value::Int(2)),
                (Value::str(""), Value::Int(3)),
            ]),
        ),
        (
            "by_int",
            Value::Map(vec![
                (Value::Int(-5), Value::str("minus five")),
                (Value::Int(i64::MAX), Value::str("max")),
            ]),
        ),
        (
            "by_bool",
            Value::Map(vec![
                (Value::Bool(false), Value::Float(0.5)),
                (Value::Bool(true), Value::Float(1.5)),
            ]),
        ),
        ("maybe", Value::Option(None)),
        ("maybe", some(Value::Int(7))),
        ("point", point(1, -2)),
        ("shape", variant("Shape", "Nothing", vec![])),
        (
            "shape",
            variant("Shape", "Circle", vec![Value::Float(1.25)]),
        ),
        (
            "shape",
            variant(
                "Shape",
                "Poly",
                vec![Value::List(vec![point(0, 0), point(3, 4)])],
            ),
        ),
        (
            "shape",
            variant(
                "Shape",
                "Labeled",
                vec![
                    Value::str("outer"),
                    some(variant(
                        "Shape",
                        "Labeled",
                        vec![Value::str("inner"), Value::Option(None)],
                    )),
                ],
            ),
        ),
        (
            "nested",
            Value::List(vec![
                Value::Map(vec![
                    (Value::str("none"), Value::Option(None)),
                    (Value::str("empty"), some(Value::List(vec![]))),
                    (
                        Value::str("two"),
                        some(Value::List(vec![point(1, 1), point(2, 2)])),
                    ),
                ]),
                Value::Map(vec![]),
            ]),
        ),
    ];
    let program = compile(IDENTITIES);
    let mut vm = Vm::new(&program);
    for (entry, value) in cases {
        assert_eq!(
            vm.run_entry("m", entry, vec![value.clone()]),
            Ok(value.clone()),
            "m.{entry}({value})"
        );
    }
    assert_eq!(vm.run_entry("m", "unit", vec![]), Ok(Value::Unit));
}

#[test]
fn a_nan_argument_comes_back_as_a_nan() {
    let program = compile(IDENTITIES);
    let mut vm = Vm::new(&program);
    match vm.run_entry("m", "float", vec![Value::Float(f64::NAN)]) {
        Ok(Value::Float(x)) => assert!(x.is_nan()),
        other => panic!("expected a NaN, got {other:?}"),
    }
}

#[test]
fn an_argument_of_the_wrong_kind_is_an_error_for_every_kind_of_parameter() {
    let wrong = vec![
        ("int", Value::Float(1.0)),
        ("int", Value::str("1")),
        ("int", Value::Bool(true)),
        ("float", Value::Int(1)),
        ("bool", Value::Int(1)),
        ("string", Value::Int(1)),
        ("string", Value::Unit),
        ("ints", Value::List(vec![Value::Int(1), Value::str("two")])),
        ("ints", Value::Map(vec![])),
        ("by_name", Value::Map(vec![(Value::Int(1), Value::Int(1))])),
        (
            "by_name",
            Value::Map(vec![(Value::str("a"), Value::str("b"))]),
        ),
        (
            "by_int",
            Value::Map(vec![(Value::str("1"), Value::str("one"))]),
        ),
        ("maybe", Value::Int(7)),
        ("maybe", some(Value::str("seven"))),
        ("point", Value::Int(1)),
        (
            "point",
            Value::Struct {
                name: "Point".to_string(),
                fields: vec![("x".to_string(), Value::Int(1))],
            },
        ),
        (
            "point",
            Value::Struct {
                name: "Point".to_string(),
                fields: vec![
                    ("x".to_string(), Value::Int(1)),
                    ("y".to_string(), Value::str("two")),
                ],
            },
        ),
        ("shape", variant("Shape", "Square", vec![])),
        ("shape", variant("Shape", "Circle", vec![])),
        ("shape", variant("Shape", "Circle", vec![Value::Int(1)])),
        ("shape", variant("Shape", "Nothing", vec![Value::Int(1)])),
        ("shape", point(1, 2)),
        ("nested", Value::List(vec![Value::List(vec![])])),
        ("int", Value::Raw(0)),
    ];
    let program = compile(IDENTITIES);
    let mut vm = Vm::new(&program);
    for (entry, value) in wrong {
        let outcome = vm.run_entry("m", entry, vec![value.clone()]);
        match outcome {
            Err(error) => assert_eq!(
                error.kind,
                ErrorKind::NoSuchEntry,
                "m.{entry}({value:?}): {error}"
            ),
            Ok(got) => panic!("m.{entry}({value:?}) was accepted and gave {got:?}"),
        }
    }
}

#[test]
fn too_few_or_too_many_arguments_are_an_error_not_a_panic() {
    let program = compile("export fn add(a: Int, b: Int) -> Int {\n  a + b\n}\n");
    let mut vm = Vm::new(&program);
    for args in [
        vec![],
        vec![Value::Int(1)],
        vec![Value::Int(1), Value::Int(2), Value::Int(3)],
    ] {
        let error = vm.run_entry("m", "add", args).unwrap_err();
        assert_eq!(error.kind, ErrorKind::NoSuchEntry, "{error}");
    }
    assert_eq!(
        vm.run_entry("m", "add", vec![Value::Int(1), Value::Int(2)]),
        Ok(Value::Int(3))
    );
}

#[test]
fn an_unknown_function_or_module_is_no_such_entry() {
    let program = compile("export fn f() -> Int {\n  1\n}\n");
    let mut vm = Vm::new(&program);
    assert_eq!(
        kind_of(vm.run_entry("m", "g", vec![])),
        ErrorKind::NoSuchEntry
    );
    assert_eq!(
        kind_of(vm.run_entry("other", "f", vec![])),
        ErrorKind::NoSuchEntry
    );
    assert_eq!(
        kind_of(vm.run_entry("", "", vec![])),
        ErrorKind::NoSuchEntry
    );
    assert_eq!(
        kind_of(vm.run_entry("m", "F", vec![])),
        ErrorKind::NoSuchEntry
    );
}

#[test]
fn a_private_function_is_refused_whatever_its_arguments() {
    let program =
        compile("fn helper(n: Int) -> Int {\n  n\n}\n\nexport fn f() -> Int {\n  helper(1)\n}\n");
    let mut vm = Vm::new(&program);
    assert_eq!(
        kind_of(vm.run_entry("m", "helper", vec![Value::Int(1)])),
        ErrorKind::NotExported
    );
    assert_eq!(
        kind_of(vm.run_entry("m", "helper", vec![])),
        ErrorKind::NotExported
    );
    assert_eq!(vm.run_entry("m", "f", vec![]), Ok(Value::Int(1)));
}

#[test]
fn an_exported_function_of_an_imported_module_can_be_an_entry() {
    let dir = std::env::temp_dir().join(format!("cove_embedding_modules_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    std::fs::write(
        dir.join("util.cove"),
        "export struct Pair {\n  a: Int,\n  b: String,\n}\n\nexport fn swap(p: Pair) -> Pair {\n  Pair { a: p.a * 2, b: p.b + \"!\" }\n}\n\nfn secret() -> Int {\n  42\n}\n",
    )
    .expect("util.cove");
    std::fs::write(
        dir.join("main.cove"),
        "import util\n\nfn main() -> Int {\n  util.swap(util.Pair { a: 1, b: \"x\" }).a\n}\n",
    )
    .expect("main.cove");
    let program =
        cove_compiler::compile_files(&dir.join("main.cove")).unwrap_or_else(|d| panic!("{d}"));
    let _ = std::fs::remove_dir_all(&dir);
    let mut vm = Vm::new(&program);
    let pair = Value::Struct {
        name: "Pair".to_string(),
        fields: vec![
            ("a".to_string(), Value::Int(5)),
            ("b".to_string(), Value::str("hi")),
        ],
    };
    assert_eq!(
        vm.run_entry("util", "swap", vec![pair]),
        Ok(Value::Struct {
            name: "Pair".to_string(),
            fields: vec![
                ("a".to_string(), Value::Int(10)),
                ("b".to_string(), Value::str("hi!")),
            ],
        })
    );
    assert_eq!(vm.run_entry("main", "main", vec![]), Ok(Value::Int(2)));
    assert_eq!(
        kind_of(vm.run_entry("util", "secret", vec![])),
        ErrorKind::NotExported
    );
    assert_eq!(
        kind_of(vm.run_entry("util", "main", vec![])),
        ErrorKind::NoSuchEntry
    );
}

#[test]
fn an_endless_loop_under_a_fuel_limit_ends_in_out_of_fuel() {
    let source =
        "export fn spin() -> Int {\n  var i = 0\n  while true {\n    i += 1\n  }\n  i\n}\n";
    let limits = Limits {
        fuel: Some(1_000_000),
        ..Limits::default()
    };
    assert_eq!(
        kind_of(run_limited(source, "spin", vec![], limits)),
        ErrorKind::OutOfFuel
    );
}

#[test]
fn an_endless_loop_of_calls_and_allocation_under_a_fuel_limit_ends_in_out_of_fuel() {
    let source = "fn step(xs: List[String], i: Int) -> Int {\n  xs.push(\"s{i}\")\n  if xs.length() > 100 {\n    xs.remove(0)\n  }\n  i + 1\n}\n\nexport fn spin() {\n  let xs = List[String]()\n  var i = 0\n  while i >= 0 {\n    i = step(xs, i)\n  }\n}\n";
    let limits = Limits {
        fuel: Some(500_000),
        ..Limits::default()
    };
    assert_eq!(
        kind_of(run_limited(source, "spin", vec![], limits)),
        ErrorKind::OutOfFuel
    );
}

#[test]
fn fuel_is_given_afresh_to_each_run_of_a_reused_vm() {
    let program = compile(
        "export fn count(n: Int) -> Int {\n  var t = 0\n  for i in 0..n {\n    t += i\n  }\n  t\n}\n",
    );
    let mut vm = Vm::new(&program).with_limits(Limits {
        fuel: Some(50_000),
        ..Limits::default()
    });
    for _ in 0..5 {
        assert_eq!(
            vm.run_entry("m", "count", vec![Value::Int(1_000)]),
            Ok(Value::Int(499_500))
        );
    }
    assert_eq!(
        kind_of(vm.run_entry("m", "count", vec![Value::Int(1_000_000)])),
        ErrorKind::OutOfFuel
    );
    assert_eq!(
        vm.run_entry("m", "count", vec![Value::Int(10)]),
        Ok(Value::Int(45))
    );
}

fn heap_limited(words: u64) -> Limits {
    Limits {
        max_heap_words: Some(words),
        ..Limits::default()
    }
}

#[test]
fn a_list_that_keeps_growing_under_a_heap_limit_ends_in_heap_limit() {
    let source = "export fn hoard() -> Int {\n  let xs = List[Int]()\n  var i = 0\n  while true {\n    xs.push(i)\n    i += 1\n  }\n  i\n}\n";
    assert_eq!(
        kind_of(run_limited(source, "hoard", vec![], heap_limited(200_000))),
        ErrorKind::HeapLimit
    );
}

#[test]
fn a_list_of_strings_that_keeps_growing_under_a_heap_limit_ends_in_heap_limit() {
    let source = "export fn hoard() -> Int {\n  let xs = List[String]()\n  var i = 0\n  while true {\n    xs.push(\"item number {i}\")\n    i += 1\n  }\n  i\n}\n";
    assert_eq!(
        kind_of(run_limited(source, "hoard", vec![], heap_limited(200_000))),
        ErrorKind::HeapLimit
    );
}

#[test]
fn a_map_with_string_keys_that_keeps_growing_under_a_heap_limit_ends_in_heap_limit() {
    let source = "export fn hoard() -> Int {\n  let m = Map[String, String]()\n  var i = 0\n  while true {\n    m.set(\"key {i}\", \"value\")\n    i += 1\n  }\n  i\n}\n";
    assert_eq!(
        kind_of(run_limited(source, "hoard", vec![], heap_limited(200_000))),
        ErrorKind::HeapLimit
    );
}

#[test]
fn a_string_that_keeps_doubling_under_a_heap_limit_ends_in_heap_limit() {
    let source = "export fn hoard() -> Int {\n  var s = \"x\"\n  while true {\n    s = s + s\n  }\n  s.length()\n}\n";
    assert_eq!(
        kind_of(run_limited(source, "hoard", vec![], heap_limited(200_000))),
        ErrorKind::HeapLimit
    );
}

#[test]
fn a_repeat_past_the_heap_limit_ends_in_heap_limit() {
    let source = "export fn hoard(n: Int) -> Int {\n  \"abcdefgh\".repeat(n).length()\n}\n";
    assert_eq!(
        kind_of(run_limited(
            source,
            "hoard",
            vec![Value::Int(1_000_000)],
            heap_limited(100_000)
        )),
        ErrorKind::HeapLimit
    );
}

#[test]
fn a_deep_linked_structure_that_keeps_growing_under_a_heap_limit_ends_in_heap_limit() {
    let source = "struct Node {\n  value: Int,\n  next: Option[Node],\n}\n\nexport fn hoard() -> Int {\n  var head: Option[Node] = None\n  var i = 0\n  while true {\n    head = Some(Node { value: i, next: head })\n    i += 1\n  }\n  i\n}\n";
    assert_eq!(
        kind_of(run_limited(source, "hoard", vec![], heap_limited(200_000))),
        ErrorKind::HeapLimit
    );
}

#[test]
fn garbage_that_is_let_go_never_trips_the_heap_limit() {
    let source = "export fn churn() -> Int {\n  var total = 0\n  for i in 0..20000 {\n    let xs = [i, i + 1, i + 2]\n    let s = \"n={i}\"\n    total += xs.length() + s.length()\n  }\n  total\n}\n";
    assert!(run_limited(source, "churn", vec![], heap_limited(20_000)).is_ok());
}

#[test]
fn an_argument_larger_than_the_heap_limit_is_an_error_not_a_panic() {
    let source = "export fn count(xs: List[String]) -> Int {\n  xs.length()\n}\n";
    let big = Value::List(
        (0..50_000)
            .map(|i| Value::Str(format!("string number {i}")))
            .collect(),
    );
    let outcome = run_limited(source, "count", vec![big], heap_limited(10_000));
    assert!(outcome.is_err(), "{outcome:?}");
}

#[test]
fn runaway_recursion_ends_in_call_depth_with_a_shortened_backtrace() {
    let source = "fn down(n: Int) -> Int {\n  down(n + 1) + 1\n}\n\nexport fn main() -> Int {\n  down(0)\n}\n";
    let error = run(source, "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::CallDepth);
    let text = error.to_string();
    assert!(text.contains("at m.down"), "{text}");
    assert!(
        text.lines().count() < 40,
        "a backtrace of {} lines",
        text.lines().count()
    );
}

#[test]
fn runaway_mutual_recursion_with_allocation_ends_in_call_depth() {
    let source = "fn ping(xs: List[Int]) -> Int {\n  xs.push(1)\n  pong([xs.length()])\n}\n\nfn pong(xs: List[Int]) -> Int {\n  ping(xs) + 1\n}\n\nexport fn main() -> Int {\n  ping([])\n}\n";
    let limits = Limits {
        max_call_depth: 2_000,
        ..Limits::default()
    };
    assert_eq!(
        kind_of(run_limited(source, "main", vec![], limits)),
        ErrorKind::CallDepth
    );
}

#[test]
fn recursion_just_inside_the_call_depth_limit_succeeds() {
    let source =
        "export fn depth(n: Int) -> Int {\n  if n == 0 { 0 } else { depth(n - 1) + 1 }\n}\n";
    let limits = Limits {
        max_call_depth: 1_000,
        ..Limits::default()
    };
    assert_eq!(
        run_limited(source, "depth", vec![Value::Int(999)], limits.clone()),
        Ok(Value::Int(999))
    );
    assert_eq!(
        kind_of(run_limited(
            source,
            "depth",
            vec![Value::Int(1_000)],
            limits
        )),
        ErrorKind::CallDepth
    );
}

/// Runs `m.entry()` of `source` and interrupts it from another thread after
/// `delay`: the run must end in `Interrupted`, and the `Vm` must run again.
fn interrupted_after(source: &str, entry: &str, delay: Duration) {
    let source = source.to_string();
    let entry = entry.to_string();
    within(move || {
        let program = compile(&source);
        let mut vm = Vm::new(&program)
            .with_output(Box::new(std::io::sink()))
            .with_error_output(Box::new(std::io::sink()));
        let handle = vm.interrupt_handle();
        let interrupter = std::thread::spawn(move || {
            std::thread::sleep(delay);
            handle.interrupt();
        });
        let error = vm.run_entry("m", &entry, vec![]).unwrap_err();
        interrupter.join().expect("the interrupter ran");
        assert_eq!(error.kind, ErrorKind::Interrupted, "{error}");
        assert!(
            !vm.interrupt_handle().is_interrupted(),
            "the interrupt is spent"
        );
        assert_eq!(vm.run_entry("m", "quick", vec![]), Ok(Value::Int(7)));
    });
}

const QUICK: &str = "\nexport fn quick() -> Int {\n  7\n}\n";

#[test]
fn an_interrupt_ends_an_endless_loop() {
    let source = format!(
        "export fn spin() {{\n  var i = 0\n  while true {{\n    i = (i + 1) % 1000\n  }}\n}}\n{QUICK}"
    );
    interrupted_after(&source, "spin", Duration::from_millis(50));
}

#[test]
fn an_interrupt_ends_a_run_waiting_in_recv() {
    // The helper computes forever and sends only after: the main task
    // waits in recv on a channel a running task holds, which is no deadlock.
    let source = format!(
        "fn spin(ch: Channel[Int]) {{\n  var i = 0\n  while true {{\n    i = (i + 1) % 1000\n  }}\n  ch.send(i)\n}}\n\nexport fn wait() -> Int {{\n  let ch = Channel[Int]()\n  let t = spawn spin(ch)\n  let v = ch.recv()\n  v.unwrap_or(0)\n}}\n{QUICK}"
    );
    interrupted_after(&source, "wait", Duration::from_millis(50));
}

#[test]
fn an_interrupt_ends_a_run_waiting_in_join() {
    let source = format!(
        "fn spin() -> Int {{\n  var i = 0\n  while true {{\n    i = (i + 1) % 1000\n  }}\n  i\n}}\n\nexport fn wait() -> Int {{\n  let t = spawn spin()\n  t.join()\n}}\n{QUICK}"
    );
    interrupted_after(&source, "wait", Duration::from_millis(50));
}

#[test]
fn an_interrupt_ends_a_run_deep_in_recursion() {
    let source = format!(
        "fn deep(n: Int) -> Int {{\n  if n == 0 {{\n    var i = 0\n    while true {{\n      i = (i + 1) % 1000\n    }}\n    i\n  }} else {{\n    deep(n - 1) + 1\n  }}\n}}\n\nexport fn go() -> Int {{\n  deep(50000)\n}}\n{QUICK}"
    );
    interrupted_after(&source, "go", Duration::from_millis(100));
}

#[test]
fn an_interrupt_ends_a_run_of_many_tasks_that_all_compute() {
    let source = format!(
        "fn spin(k: Int) -> Int {{\n  var i = 0\n  while true {{\n    i = (i + k) % 1000\n  }}\n  i\n}}\n\nexport fn many() -> Int {{\n  let ts = List[Task[Int]]()\n  for k in 0..8 {{\n    ts.push(spawn spin(k))\n  }}\n  var t = 0\n  for x in ts {{\n    t += x.join()\n  }}\n  t\n}}\n{QUICK}"
    );
    interrupted_after(&source, "many", Duration::from_millis(100));
}

#[test]
fn an_interrupt_ends_a_task_that_hoards_while_main_waits_on_a_channel() {
    let source = format!(
        "fn grow(ch: Channel[Int]) {{\n  let xs = List[String]()\n  var i = 0\n  while true {{\n    xs.push(\"x{{i}}\")\n    if xs.length() > 1000 {{\n      xs.remove(0)\n    }}\n    i += 1\n  }}\n  ch.send(i)\n}}\n\nexport fn wait() -> Int {{\n  let ch = Channel[Int]()\n  let t = spawn grow(ch)\n  ch.recv().unwrap_or(0)\n}}\n{QUICK}"
    );
    interrupted_after(&source, "wait", Duration::from_millis(100));
}

#[test]
fn a_task_looping_forever_under_a_fuel_limit_ends_the_run_in_out_of_fuel() {
    let source = "fn spin() -> Int {\n  var i = 0\n  while true {\n    i = (i + 1) % 1000\n  }\n  i\n}\n\nexport fn main() -> Int {\n  let t = spawn spin()\n  t.join()\n}\n";
    let limits = Limits {
        fuel: Some(200_000),
        ..Limits::default()
    };
    assert_eq!(
        kind_of(run_limited(source, "main", vec![], limits)),
        ErrorKind::OutOfFuel
    );
}

#[test]
fn an_unjoined_task_looping_forever_under_a_fuel_limit_does_not_hang_the_run() {
    let source = "fn spin() -> Int {\n  var i = 0\n  while true {\n    i = (i + 1) % 1000\n  }\n  i\n}\n\nexport fn main() -> Int {\n  let t = spawn spin()\n  var j = 0\n  while true {\n    j += 1\n  }\n  j\n}\n";
    let limits = Limits {
        fuel: Some(200_000),
        ..Limits::default()
    };
    assert_eq!(
        kind_of(run_limited(source, "main", vec![], limits)),
        ErrorKind::OutOfFuel
    );
}

#[test]
fn a_task_hoarding_under_a_heap_limit_ends_the_run_in_heap_limit() {
    let source = "fn hoard() -> Int {\n  let m = Map[String, List[Int]]()\n  var i = 0\n  while true {\n    m.set(\"k{i}\", [i, i, i])\n    i += 1\n  }\n  i\n}\n\nexport fn main() -> Int {\n  let t = spawn hoard()\n  t.join()\n}\n";
    assert_eq!(
        kind_of(run_limited(source, "main", vec![], heap_limited(100_000))),
        ErrorKind::HeapLimit
    );
}

#[test]
fn a_task_hoarding_under_a_heap_limit_ends_the_run_even_if_nobody_joins_it() {
    // The main task waits on a channel the hoarder holds, never joining it.
    let source = "fn hoard(ch: Channel[Int]) -> Int {\n  let xs = List[String]()\n  while true {\n    xs.push(\"more\")\n  }\n  ch.send(1)\n  xs.length()\n}\n\nexport fn main() -> Int {\n  let ch = Channel[Int]()\n  let t = spawn hoard(ch)\n  ch.recv().unwrap_or(3)\n}\n";
    let outcome = run_limited(source, "main", vec![], heap_limited(100_000));
    assert_eq!(kind_of(outcome), ErrorKind::HeapLimit);
}

#[test]
fn tasks_that_each_stay_under_the_heap_limit_all_finish() {
    let source = "fn work(n: Int) -> Int {\n  let xs = List[Int]()\n  for i in 0..n {\n    xs.push(i)\n  }\n  xs.length()\n}\n\nexport fn main() -> Int {\n  let ts = List[Task[Int]]()\n  for k in 0..6 {\n    ts.push(spawn work(1000))\n  }\n  var t = 0\n  for x in ts {\n    t += x.join()\n  }\n  t\n}\n";
    assert_eq!(
        run_limited(source, "main", vec![], heap_limited(50_000)),
        Ok(Value::Int(6_000))
    );
}

#[test]
fn a_spawn_bomb_ends_in_too_many_tasks() {
    let source = "fn bomb(n: Int) -> Int {\n  let a = spawn bomb(n + 1)\n  let b = spawn bomb(n + 1)\n  a.join() + b.join()\n}\n\nexport fn main() -> Int {\n  bomb(0)\n}\n";
    let limits = Limits {
        max_tasks: 50,
        ..Limits::default()
    };
    assert_eq!(
        kind_of(run_limited(source, "main", vec![], limits)),
        ErrorKind::TooManyTasks
    );
}

#[test]
fn a_vm_runs_many_entries_in_turn_and_keeps_its_output_writer() {
    let out = Captured::default();
    let program = compile(
        "export fn hello(name: String) -> String {\n  println(\"hello {name}\")\n  \"bye {name}\"\n}\n\nexport fn fail(n: Int) -> Int {\n  println(\"about to fail\")\n  10 / n\n}\n\nexport fn tasks(n: Int) -> Int {\n  let t = spawn twice(n)\n  t.join()\n}\n\nfn twice(n: Int) -> Int {\n  println(\"in a task\")\n  n * 2\n}\n",
    );
    let mut vm = Vm::new(&program)
        .with_output(Box::new(out.clone()))
        .with_error_output(Box::new(std::io::sink()));
    assert_eq!(
        vm.run_entry("m", "hello", vec![Value::str("a")]),
        Ok(Value::str("bye a"))
    );
    assert_eq!(
        kind_of(vm.run_entry("m", "fail", vec![Value::Int(0)])),
        ErrorKind::DivisionByZero
    );
    assert_eq!(
        vm.run_entry("m", "tasks", vec![Value::Int(21)]),
        Ok(Value::Int(42))
    );
    assert_eq!(
        kind_of(vm.run_entry("m", "nope", vec![])),
        ErrorKind::NoSuchEntry
    );
    assert_eq!(
        vm.run_entry("m", "fail", vec![Value::Int(5)]),
        Ok(Value::Int(2))
    );
    assert_eq!(
        vm.run_entry("m", "hello", vec![Value::str("b")]),
        Ok(Value::str("bye b"))
    );
    assert_eq!(
        out.text(),
        "hello a\nabout to fail\nin a task\nabout to fail\nhello b\n"
    );
}

#[test]
fn an_interrupt_before_a_run_starts_does_not_take_the_vm_down() {
    let program = compile("export fn quick() -> Int {\n  7\n}\n");
    let mut vm = Vm::new(&program);
    vm.interrupt_handle().interrupt();
    // Whether the pending interrupt ends this run or is spent on nothing,
    // the run must answer, and the one after it must succeed.
    let first = vm.run_entry("m", "quick", vec![]);
    assert!(
        first == Ok(Value::Int(7))
            || first.as_ref().map_err(|e| e.kind) == Err(ErrorKind::Interrupted),
        "{first:?}"
    );
}

#[test]
fn exit_inside_a_run_is_an_error_carrying_the_status_and_the_vm_runs_again() {
    let program =
        compile("export fn quit(n: Int) -> Int {\n  if n > 0 {\n    exit(n)\n  }\n  5\n}\n");
    let mut vm = Vm::new(&program);
    assert_eq!(
        kind_of(vm.run_entry("m", "quit", vec![Value::Int(3)])),
        ErrorKind::Exit(3)
    );
    assert_eq!(
        vm.run_entry("m", "quit", vec![Value::Int(0)]),
        Ok(Value::Int(5))
    );
}

#[test]
fn a_deadlock_ends_in_deadlock_not_a_hang() {
    let source = "export fn main() -> Int {\n  let ch = Channel[Int]()\n  let t = spawn stuck(ch)\n  t.join()\n}\n\nfn stuck(ch: Channel[Int]) -> Int {\n  let other = Channel[Int]()\n  let t = spawn wait(other, ch)\n  ch.recv().unwrap_or(0) + t.join()\n}\n\nfn wait(a: Channel[Int], b: Channel[Int]) -> Int {\n  b.send(0)\n  a.recv().unwrap_or(0)\n}\n";
    // `stuck` receives the 0 from `wait`, then joins `wait`, which waits on
    // `other`, a channel `stuck` still holds: every task waits.
    assert_eq!(kind_of(run(source, "main", vec![])), ErrorKind::Deadlock);
}

#[test]
fn a_run_error_shows_the_message_then_every_frame_innermost_first() {
    let source = "fn inner(xs: List[Int]) -> Int {\n  xs[5]\n}\n\nfn outer() -> Int {\n  inner([1, 2])\n}\n\nexport fn main() -> Int {\n  outer()\n}\n";
    let error = run(source, "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::IndexOutOfRange);
    let text = error.to_string();
    let inner = text.find("m.inner").expect("inner in the backtrace");
    let outer = text.find("m.outer").expect("outer in the backtrace");
    let main = text.find("m.main").expect("main in the backtrace");
    assert!(inner < outer && outer < main, "{text}");
    assert_eq!(error.backtrace.len(), 3, "{text}");
}

#[test]
fn a_fault_in_a_task_surfaces_at_join_with_the_tasks_frames_first() {
    let source = "fn bad(n: Int) -> Int {\n  let x: Option[Int] = None\n  x.unwrap() + n\n}\n\nexport fn main() -> Int {\n  let t = spawn bad(1)\n  t.join()\n}\n";
    let error = run(source, "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::UnwrapNone);
    let text = error.to_string();
    assert!(
        text.find("m.bad").expect("bad in the backtrace")
            < text.find("m.main").expect("main in the backtrace"),
        "{text}"
    );
}

#[test]
fn a_struct_returned_by_one_run_is_accepted_as_an_argument_by_the_next() {
    let program = compile(
        "export struct Acc {\n  total: Int,\n  seen: List[String],\n}\n\nexport fn start() -> Acc {\n  Acc { total: 0, seen: [] }\n}\n\nexport fn add(a: Acc, word: String) -> Acc {\n  a.total += word.length()\n  a.seen.push(word)\n  a\n}\n",
    );
    let mut vm = Vm::new(&program);
    let mut acc = vm.run_entry("m", "start", vec![]).expect("start");
    for word in ["a", "bb", "ccc"] {
        acc = vm
            .run_entry("m", "add", vec![acc, Value::str(word)])
            .expect("add");
    }
    assert_eq!(
        acc,
        Value::Struct {
            name: "Acc".to_string(),
            fields: vec![
                ("total".to_string(), Value::Int(6)),
                (
                    "seen".to_string(),
                    Value::List(vec![Value::str("a"), Value::str("bb"), Value::str("ccc")])
                ),
            ],
        }
    );
}

#[test]
fn a_channel_returned_to_the_host_can_be_drained_by_a_later_run() {
    let source = "export fn fill() -> Channel[Int] {\n  let ch = Channel[Int]()\n  ch.send(1)\n  ch.send(2)\n  ch.close()\n  ch\n}\n\nexport fn drain(ch: Channel[Int]) -> Int {\n  var t = 0\n  var going = true\n  while going {\n    match ch.recv() {\n      Some(v) => t += v,\n      None => going = false,\n    }\n  }\n  t\n}\n";
    let source = source.to_string();
    within(move || {
        let program = compile(&source);
        let mut vm = Vm::new(&program);
        let ch = vm.run_entry("m", "fill", vec![]).expect("fill");
        assert!(matches!(ch, Value::Channel(_)), "{ch:?}");
        assert_eq!(vm.run_entry("m", "drain", vec![ch]), Ok(Value::Int(3)));
    });
}

#[test]
fn a_run_prints_through_the_output_writer_even_when_it_fails() {
    let out = Captured::default();
    let program = compile(
        "export fn main() {\n  print(\"a\")\n  println(1.5)\n  println([Some(1), None])\n  assert(false, \"boom\")\n}\n",
    );
    let mut vm = Vm::new(&program)
        .with_output(Box::new(out.clone()))
        .with_error_output(Box::new(std::io::sink()));
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::AssertionFailed);
    assert!(error.to_string().contains("boom"), "{error}");
    assert_eq!(out.text(), "a1.5\n[Some(1), None]\n");
}

#[test]
fn the_program_arguments_reach_args() {
    let program = compile(
        "export fn main() -> Int {\n  var t = 0\n  for a in args() {\n    t += a.parse_int()\n  }\n  t\n}\n",
    );
    let mut vm =
        Vm::new(&program).with_args(vec!["1".to_string(), "20".to_string(), "300".to_string()]);
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(321)));
}

const PIPELINE: &str = "
export struct Msg {
  id: Int,
  text: String,
  parts: List[Int],
}

export enum Out {
  Done(Int, Map[String, Int]),
  Skipped(String),
}

fn stage(inbox: Channel[Msg], outbox: Channel[Msg], k: Int) {
  var going = true
  while going {
    match inbox.recv() {
      Some(m) => {
        m.parts.push(k)
        outbox.send(Msg { id: m.id, text: m.text + \"{k}\", parts: m.parts })
      }
      None => going = false,
    }
  }
  outbox.close()
}

fn sink(inbox: Channel[Msg]) -> Out {
  let seen = Map[String, Int]()
  var total = 0
  var going = true
  while going {
    match inbox.recv() {
      Some(m) => {
        total += m.id
        for p in m.parts {
          total += p
        }
        seen.set(m.text, m.parts.length())
      }
      None => going = false,
    }
  }
  if seen.length() == 0 {
    return Out.Skipped(\"nothing\")
  }
  Out.Done(total, seen)
}

export fn pipeline(n: Int) -> Int {
  let first = Channel[Msg]()
  var inbox = first
  let stages = List[Task[()]]()
  for k in 1..5 {
    let outbox = Channel[Msg]()
    stages.push(spawn stage(inbox, outbox, k))
    inbox = outbox
  }
  let last = spawn sink(inbox)
  for i in 0..n {
    first.send(Msg { id: i, text: \"m\", parts: [] })
  }
  first.close()
  for s in stages {
    s.join()
  }
  match last.join() {
    Out.Done(total, seen) => total * 10 + seen.length(),
    Out.Skipped(why) => -1,
  }
}
";

#[test]
fn a_pipeline_of_tasks_passing_structs_always_delivers_every_message() {
    within(|| {
        let program = compile(PIPELINE);
        let mut vm = Vm::new(&program);
        for attempt in 0..30 {
            // Each message's id, then its parts 1 + 2 + 3 + 4; all texts
            // are "m1234", one key.
            let n = 40;
            let expected = (n * (n - 1) / 2 + n * 10) * 10 + 1;
            assert_eq!(
                vm.run_entry("m", "pipeline", vec![Value::Int(n)]),
                Ok(Value::Int(expected)),
                "attempt {attempt}"
            );
        }
        assert_eq!(
            vm.run_entry("m", "pipeline", vec![Value::Int(0)]),
            Ok(Value::Int(-1))
        );
    });
}

#[test]
fn limits_at_their_largest_values_bound_nothing_and_never_overflow() {
    // `u64::MAX` words is a host's way to say "no bound" as a number; the
    // heap must not add one to it and wrap around to a bound of zero.
    let source = "fn square(n: Int) -> Int {\n  n * n\n}\n\nexport fn main() -> Int {\n  let xs = List[String]()\n  for i in 0..20000 {\n    xs.push(\"item {i}\")\n  }\n  let t = spawn square(xs.length())\n  t.join()\n}\n";
    let limits = Limits {
        fuel: Some(u64::MAX),
        max_heap_words: Some(u64::MAX),
        max_call_depth: usize::MAX,
        max_tasks: usize::MAX,
        gc_stress: false,
    };
    assert_eq!(
        run_limited(source, "main", vec![], limits),
        Ok(Value::Int(400_000_000))
    );
}

#[test]
fn a_run_that_may_not_write_files_faults_at_write_file_and_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("cove-no-writes-{}", std::process::id()));
    let path = dir.display().to_string();
    let program = compile(&format!(
        "export fn entry() -> Int {{\n  write_file(\"{path}\", \"x\")\n  1\n}}\n"
    ));
    let mut vm = Vm::new(&program).with_file_writes(false);
    let error = vm
        .run_entry("m", "entry", Vec::new())
        .expect_err("the write is refused");
    assert_eq!(error.kind, ErrorKind::Io);
    assert!(
        error.message.contains("this run may not write files"),
        "{}",
        error.message
    );
    assert!(!dir.exists(), "nothing was written at {path}");
    // Allowed, as by default, the same program writes.
    let mut vm = Vm::new(&program).with_file_writes(true);
    assert_eq!(vm.run_entry("m", "entry", Vec::new()), Ok(Value::Int(1)));
    assert_eq!(std::fs::read_to_string(&dir).ok().as_deref(), Some("x"));
    let _ = std::fs::remove_file(&dir);
}
