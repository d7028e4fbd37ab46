// run_entry accepts a Value::Struct whose fields are named differently
// from the parameter's struct, or in another order, and assigns them by
// position: a silent wrong answer instead of a refused argument.
//
// Drop into cove_runtime/tests/ and run with cargo test.
//
// Expected: either the fields are matched by name (x = 1, y = 2), or an
//   argument whose field names (or struct name) differ from the struct's is
//   refused with ErrorKind::NoSuchEntry, as every other mismatched argument
//   is ("expected a value of type Point, not ...").
// Actual: Ok(Point { x: 2, y: 1 }) for fields given as [("y", 2), ("x", 1)],
//   and a Value::Struct { name: "Nope", fields: [("a", ..), ("b", ..)] } is
//   accepted as a Point.
//
// Cause: cove_runtime/src/heap/convert.rs, Memory::put_value, the
//   (Type::Struct, Value::Struct { fields, .. }) arm: it checks only
//   `def.fields.len() != fields.len()` and zips the definition's fields with
//   the value's fields in order, ignoring both names. The Variant arm
//   likewise ignores `enum_name` (a Value::Variant of enum "Other" is taken
//   as a Shape if the variant name matches).
use cove_runtime::{Value, Vm};

#[test]
fn a_struct_argument_with_its_fields_in_another_order_is_read_by_name() {
    let program = cove_compiler::compile_module(
        "m",
        "export struct Point {\n  x: Int,\n  y: Int,\n}\n\nexport fn x_of(p: Point) -> Int {\n  p.x\n}\n",
    )
    .unwrap();
    let mut vm = Vm::new(&program);
    let swapped = Value::Struct {
        name: "Point".to_string(),
        fields: vec![
            ("y".to_string(), Value::Int(2)),
            ("x".to_string(), Value::Int(1)),
        ],
    };
    // Fails: gives Ok(Int(2)).
    let got = vm.run_entry("m", "x_of", vec![swapped]);
    assert!(got == Ok(Value::Int(1)) || got.is_err(), "{got:?}");

    let stranger = Value::Struct {
        name: "Nope".to_string(),
        fields: vec![
            ("a".to_string(), Value::Int(1)),
            ("b".to_string(), Value::Int(2)),
        ],
    };
    // Fails: gives Ok(Int(1)).
    assert!(vm.run_entry("m", "x_of", vec![stranger]).is_err());
}
