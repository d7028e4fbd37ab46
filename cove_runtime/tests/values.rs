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
