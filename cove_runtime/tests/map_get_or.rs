//! `m.get(k).unwrap_or(d)`, which the compiler fuses into one
//! `map.get-or` call: it gives what the two calls gave, for keys found and
//! missing, of both key classes, and the compiler fuses only where the
//! order of evaluation cannot be seen.

mod support;

use cove_ir::builtins::Builtin;
use cove_ir::op::Instr;
use cove_runtime::Vm;
use support::Captured;

/// Compiles `source` as module `m` and runs `m.main`, giving what it
/// printed.
fn output(source: &str) -> String {
    let program = cove_compiler::compile_module("m", source).expect("it compiles");
    let out = Captured::default();
    let mut vm = Vm::new(&program).with_output(Box::new(out.clone()));
    vm.run_entry("m", "main", Vec::new()).expect("it runs");
    out.text()
}

/// How many calls of `builtin` `m.main` makes.
fn calls_of(source: &str, builtin: Builtin) -> usize {
    let program = cove_compiler::compile_module("m", source).expect("it compiles");
    let main = program
        .functions
        .iter()
        .find(|f| f.name == "main")
        .expect("a main");
    main.code
        .iter()
        .filter(|i| matches!(i, Instr::CallBuiltin { builtin: b, .. } if *b == builtin))
        .count()
}

const COUNTS: &str = r#"
fn main() {
  let words = ["a", "b", "a", "c", "a", "b"]
  let counts = Map[String, Int]()
  for w in words {
    counts.set(w, counts.get(w).unwrap_or(0) + 1)
  }
  let ints = Map[Int, Float]()
  ints.set(3, 1.5)
  let fallback = -2.5
  println("{counts.get("a").unwrap_or(0)} {counts.get("b").unwrap_or(-1)} {counts.get("z").unwrap_or(-1)}")
  println("{ints.get(3).unwrap_or(0.0)} {ints.get(4).unwrap_or(fallback)}")
}
"#;

#[test]
fn a_fused_lookup_gives_the_value_found_or_the_default() {
    assert_eq!(output(COUNTS), "3 2 -1\n1.5 -2.5\n");
}

#[test]
fn a_lookup_with_a_plain_default_on_a_map_variable_is_one_call() {
    assert_eq!(calls_of(COUNTS, Builtin::MapGetOr), 6);
    assert_eq!(calls_of(COUNTS, Builtin::MapGet), 0);
    assert_eq!(calls_of(COUNTS, Builtin::OptionUnwrapOr), 0);
}

/// A default that runs code: the lookup must come before it, as written.
const SIDE_EFFECT: &str = r#"
fn put(m: Map[String, Int]) -> Int {
  m.set("k", 7)
  5
}

fn main() {
  let m = Map[String, Int]()
  println(m.get("k").unwrap_or(put(m)))
  println(m.get("k").unwrap_or(put(m)))
}
"#;

#[test]
fn a_default_that_runs_code_is_evaluated_after_the_lookup_as_written() {
    // The first lookup misses (the set comes after it), so it gives the
    // default; the second finds what the first default's call set.
    assert_eq!(output(SIDE_EFFECT), "5\n7\n");
    assert_eq!(calls_of(SIDE_EFFECT, Builtin::MapGetOr), 0);
    assert_eq!(calls_of(SIDE_EFFECT, Builtin::OptionUnwrapOr), 2);
}

#[test]
fn a_default_of_the_wrong_type_is_reported_as_an_unfused_one_is() {
    let fused =
        "fn main() {\n  let m = Map[String, Int]()\n  println(m.get(\"k\").unwrap_or(true))\n}\n";
    // A map that is no variable is not fused.
    let unfused = "fn mk() -> Map[String, Int] {\n  Map[String, Int]()\n}\n\
                   fn main() {\n  println(mk().get(\"k\").unwrap_or(true))\n}\n";
    let first = |source: &str| {
        let errors = cove_compiler::compile_module("m", source).expect_err("a Bool is no Int");
        let d = errors.iter().next().expect("a diagnostic");
        let line = source.lines().nth(d.line() as usize - 1).expect("its line");
        (
            d.code(),
            d.message().to_string(),
            line[d.column() as usize - 1..].to_string(),
        )
    };
    let (code, message, at) = first(fused);
    let (unfused_code, unfused_message, unfused_at) = first(unfused);
    assert_eq!((code, &message), (unfused_code, &unfused_message));
    assert!(at.starts_with("true"), "{at}");
    assert!(unfused_at.starts_with("true"), "{unfused_at}");
}

#[test]
fn no_method_call_names_the_fused_builtin() {
    let errors = cove_compiler::compile_module(
        "m",
        "fn main() {\n  let m = Map[String, Int]()\n  println(m.get_or(\"k\", 0))\n}\n",
    )
    .expect_err("Map has no get_or");
    assert_eq!(
        errors.iter().next().expect("one").code(),
        "E0212",
        "{errors}"
    );
}

/// A hand-written program whose map register was never written: `r2`, a
/// `Map[String, Int]` by its use.
const NULL_MAP: &str = "module m \"m.cove\"\n\
     type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n\
     type t5 Map t4 t2\n\
     fn f0 main in m export\n  result t2\n  registers 5\n  refs r2 r3\n";

#[test]
fn a_fused_lookup_or_a_contains_in_a_map_never_written_is_an_error_not_a_wrong_answer() {
    let cases = [
        (
            "@0 load.int r4, 7\n@1 call-builtin r0, map.get-or, r2, 3\n@2 return r0\n",
            "`map.get-or`",
        ),
        (
            "@0 call-builtin r0, Map.contains, r2, 2\n@1 load.int r0, 1\n@2 return r0\n",
            "`Map.contains`",
        ),
    ];
    for (code, what) in cases {
        let program = support::verified(&format!("{NULL_MAP}{code}"));
        let error = Vm::new(&program)
            .run_entry("m", "main", vec![])
            .expect_err(&format!("{what} faults"));
        assert_eq!(error.kind, cove_runtime::ErrorKind::Invalid, "{what}");
        assert_eq!(
            error.message,
            format!("{what} read a reference that was never written (0)")
        );
    }
}
