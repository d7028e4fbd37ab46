//! Values crossing between the host and a run: arguments in, results out.

use cove_runtime::{ErrorKind, Value, Vm};

fn compile(source: &str) -> cove_ir::program::Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn a_list_argument_arrives_whole_and_a_struct_result_comes_back_by_field() {
    let program = compile(
        "export struct Stats { count: Int, longest: String }\n\nexport fn stats(words: List[String]) -> Stats {\n  var longest = \"\"\n  for w in words {\n    if w.length() > longest.length() {\n      longest = w\n    }\n  }\n  Stats { count: words.length(), longest: longest }\n}\n",
    );
    let mut vm = Vm::new(&program);
    let words = Value::List(vec![Value::str("a"), Value::str("abc"), Value::str("ab")]);
    assert_eq!(
        vm.run_entry("m", "stats", vec![words]),
        Ok(Value::Struct {
            name: "Stats".to_string(),
            fields: vec![
                ("count".to_string(), Value::Int(3)),
                ("longest".to_string(), Value::str("abc")),
            ],
        })
    );
}

#[test]
fn a_map_and_an_option_round_trip_through_a_run() {
    let program = compile(
        "export fn bump(m: Map[String, Int], k: String) -> Option[Int] {\n  m.set(k, m.get(k).unwrap_or(0) + 1)\n  m.get(k)\n}\n",
    );
    let mut vm = Vm::new(&program);
    let map = Value::Map(vec![(Value::str("x"), Value::Int(41))]);
    assert_eq!(
        vm.run_entry("m", "bump", vec![map, Value::str("x")]),
        Ok(Value::Option(Some(Box::new(Value::Int(42)))))
    );
}

#[test]
fn a_variant_result_names_its_enum_and_variant() {
    let program = compile(
        "export enum Token { Word(String), End }\n\nexport fn first(text: String) -> Token {\n  if text.length() == 0 { Token.End } else { Token.Word(text.slice(0, 1)) }\n}\n",
    );
    let mut vm = Vm::new(&program);
    assert_eq!(
        vm.run_entry("m", "first", vec![Value::str("cove")]),
        Ok(Value::Variant {
            enum_name: "Token".to_string(),
            variant: "Word".to_string(),
            fields: vec![Value::str("c")],
        })
    );
    assert_eq!(
        vm.run_entry("m", "first", vec![Value::str("")])
            .map(|v| v.to_string()),
        Ok("Token.End".to_string())
    );
}

#[test]
fn an_argument_of_the_wrong_type_is_refused_before_the_run() {
    let program = compile("export fn twice(n: Int) -> Int {\n  n * 2\n}\n");
    let mut vm = Vm::new(&program);
    let error = vm
        .run_entry("m", "twice", vec![Value::Float(1.0)])
        .unwrap_err();
    assert_eq!(error.kind, ErrorKind::NoSuchEntry);
    assert_eq!(vm.instructions(), 0);
}

#[test]
fn an_exit_is_an_error_whose_kind_carries_the_status() {
    let program = compile("export fn main() {\n  exit(4)\n}\n");
    let mut vm = Vm::new(&program);
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Exit(4));
    assert_eq!(error.kind.exit_code(), 4);
}

#[test]
fn a_vm_runs_again_after_a_failed_run() {
    let program = compile("export fn divide(a: Int, b: Int) -> Int {\n  a / b\n}\n");
    let mut vm = Vm::new(&program);
    assert!(
        vm.run_entry("m", "divide", vec![Value::Int(1), Value::Int(0)])
            .is_err()
    );
    assert_eq!(
        vm.run_entry("m", "divide", vec![Value::Int(9), Value::Int(3)]),
        Ok(Value::Int(3))
    );
}

#[test]
fn run_entry_refuses_a_function_that_is_not_exported_but_runs_main() {
    let program =
        compile("fn private_fn() -> Int {\n  1\n}\n\nfn main() -> Int {\n  private_fn()\n}\n");
    let mut vm = Vm::new(&program);
    let error = vm.run_entry("m", "private_fn", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::NotExported);
    assert!(error.message.contains("m.private_fn is not exported"));
    assert_eq!(vm.run_entry("m", "main", vec![]), Ok(Value::Int(1)));
}

#[test]
fn a_struct_argument_is_read_by_field_name_in_any_order() {
    let program = compile(
        "export struct Point { x: Int, y: Int }\n\nexport fn x_of(p: Point) -> Int {\n  p.x\n}\n",
    );
    let mut vm = Vm::new(&program);
    let swapped = Value::Struct {
        name: "Point".to_string(),
        fields: vec![
            ("y".to_string(), Value::Int(2)),
            ("x".to_string(), Value::Int(1)),
        ],
    };
    assert_eq!(vm.run_entry("m", "x_of", vec![swapped]), Ok(Value::Int(1)));
}

#[test]
fn a_struct_argument_of_another_name_or_other_fields_is_refused() {
    let program = compile(
        "export struct Point { x: Int, y: Int }\n\nexport fn x_of(p: Point) -> Int {\n  p.x\n}\n",
    );
    let mut vm = Vm::new(&program);
    let field = |name: &str, n: i64| (name.to_string(), Value::Int(n));
    for (name, fields) in [
        ("Nope", vec![field("x", 1), field("y", 2)]),
        ("Point", vec![field("a", 1), field("b", 2)]),
        ("Point", vec![field("x", 1), field("x", 2)]),
    ] {
        let stranger = Value::Struct {
            name: name.to_string(),
            fields,
        };
        let error = vm
            .run_entry("m", "x_of", vec![stranger.clone()])
            .expect_err("a mismatched struct is refused");
        assert_eq!(error.kind, ErrorKind::NoSuchEntry, "{stranger:?}: {error}");
    }
}

#[test]
fn a_variant_argument_of_another_enum_is_refused() {
    let program = compile(
        "export enum Shape { Dot, Square(Int) }\n\nexport fn side(s: Shape) -> Int {\n  match s {\n    Shape.Square(n) => n,\n    Shape.Dot => 0,\n  }\n}\n",
    );
    let mut vm = Vm::new(&program);
    let square = |enum_name: &str| Value::Variant {
        enum_name: enum_name.to_string(),
        variant: "Square".to_string(),
        fields: vec![Value::Int(4)],
    };
    assert_eq!(
        vm.run_entry("m", "side", vec![square("Shape")]),
        Ok(Value::Int(4))
    );
    let error = vm
        .run_entry("m", "side", vec![square("Other")])
        .expect_err("a variant of another enum is refused");
    assert_eq!(error.kind, ErrorKind::NoSuchEntry, "{error}");
}

#[test]
fn a_map_argument_whose_keys_are_not_of_the_key_type_is_refused() {
    let program = compile(
        "export fn count_bools(m: Map[Bool, Float]) -> Int {\n  m.length()\n}\n\nexport fn count_ints(m: Map[Int, Float]) -> Int {\n  m.length()\n}\n",
    );
    let mut vm = Vm::new(&program);
    let map =
        |keys: [Value; 2]| Value::Map(keys.into_iter().map(|k| (k, Value::Float(1.0))).collect());
    let bools = map([Value::Bool(true), Value::Bool(false)]);
    let ints = map([Value::Int(5), Value::Int(1)]);
    assert_eq!(
        vm.run_entry("m", "count_bools", vec![bools.clone()]),
        Ok(Value::Int(2))
    );
    assert_eq!(
        vm.run_entry("m", "count_ints", vec![ints.clone()]),
        Ok(Value::Int(2))
    );
    for (entry, wrong) in [("count_bools", ints), ("count_ints", bools)] {
        let error = vm
            .run_entry("m", entry, vec![wrong])
            .expect_err("keys of the wrong type are refused");
        assert_eq!(error.kind, ErrorKind::NoSuchEntry, "{entry}: {error}");
    }
}
