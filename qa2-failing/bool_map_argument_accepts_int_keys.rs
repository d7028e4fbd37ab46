// run_entry accepts Value::Int keys for a Map[Bool, V] parameter (and
// Value::Bool keys for a Map[Int, V]). Int keys 5 and 1 both become `true`
// yet stay distinct entries: the program sees a Map[Bool, Float] of length 2
// with two `true` keys, which no Cove program can build.
//
// Drop into cove_runtime/tests/ and run with cargo test.
//
// Expected: ErrorKind::NoSuchEntry ("expected a value of type Map[Bool,
//   Float], not ..."), as for a Value::Str key.
// Actual: Ok; `m.length()` is 2, `m.keys()` is [true, true], and returning
//   the map gives Map([(Bool(true), ..), (Bool(true), ..)]).
//
// Cause: cove_runtime/src/heap/convert.rs, Memory::build, the
//   (Type::Map, Value::Map) arm: it matches on the table (Table::Int holds
//   both Int and Bool keys) and the key Value, but never on the declared key
//   type `k`, so (Table::Int, Value::Int) is taken for a Bool map and
//   (Table::Int, Value::Bool) for an Int map.
use cove_runtime::{Value, Vm};

#[test]
fn a_bool_keyed_map_argument_with_int_keys_is_refused() {
    let program = cove_compiler::compile_module(
        "m",
        "export fn keys(m: Map[Bool, Float]) -> List[Bool] {\n  m.keys()\n}\n",
    )
    .unwrap();
    let mut vm = Vm::new(&program);
    let int_keys = Value::Map(vec![
        (Value::Int(5), Value::Float(1.0)),
        (Value::Int(1), Value::Float(2.0)),
    ]);
    // Fails: gives Ok(List([Bool(true), Bool(true)])).
    let got = vm.run_entry("m", "keys", vec![int_keys]);
    assert!(got.is_err(), "{got:?}");
}
