//! A `Value` as deep as a program can make it, in the host's hands: cloned,
//! compared, printed and let go of without overflowing the host's stack.
//!
//! The deep tests run on a thread with a small stack (256 KiB, a 32nd of a
//! main thread's), where the derived implementations overflowed at a few
//! thousand levels; on an 8 MiB main thread they overflowed at 38,000
//! (clone, `==`), 48,000 (`Display`) and 134,000 (drop) levels of an enum
//! cons list.

use cove_runtime::{Value, Vm};

/// Levels of nesting: well past every depth that overflowed.
const DEEP: usize = 300_000;

/// The levels of the embedder's value the issue asks to survive.
const MILLION: usize = 1_000_000;

/// A stack a 32nd the size of a main thread's.
const SMALL_STACK: usize = 256 << 10;

fn on_a_main_sized_stack(test: impl FnOnce() + Send + 'static) {
    on_a_stack_of(8 << 20, test);
}

fn on_a_stack_of(bytes: usize, test: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(test)
        .expect("a thread")
        .join()
        .expect("the test's thread did not overflow");
}

/// `Cons(0, Cons(1, ... Nil))`, as a program's enum would come back.
fn cons_list(levels: usize) -> Value {
    let mut list = Value::Variant {
        enum_name: "L".into(),
        variant: "Nil".into(),
        fields: vec![],
    };
    for i in 0..levels {
        list = Value::Variant {
            enum_name: "L".into(),
            variant: "Cons".into(),
            fields: vec![Value::Int(i as i64), list],
        };
    }
    list
}

#[test]
fn a_cons_list_three_hundred_thousand_deep_clones_compares_and_drops_deep() {
    on_a_main_sized_stack(|| {
        let list = cons_list(DEEP);
        let copy = list.clone();
        assert!(list == copy);
        let other = cons_list(DEEP - 1);
        assert!(list != other);
        copy.drop_deep();
        other.drop_deep();
        list.drop_deep();
    });
}

#[test]
fn a_deep_value_displays_as_cove_would_without_recursing() {
    on_a_main_sized_stack(|| {
        let mut list = Value::List(vec![]);
        for _ in 0..DEEP {
            list = Value::List(vec![list, Value::str("x")]);
        }
        let text = list.to_string();
        // Let go first: a failed assertion would unwind through a native
        // drop of the list.
        list.drop_deep();
        assert_eq!(text.len(), DEEP * "[, \"x\"]".len() + 2);
        assert!(text.starts_with("[[[[[") && text.contains("[], \"x\"]"));
        assert!(text.ends_with("\"x\"], \"x\"]"));
    });
}

#[test]
fn shallow_values_display_clone_and_compare_as_before() {
    let value = Value::Map(vec![(
        Value::str("k"),
        Value::Struct {
            name: "P".into(),
            fields: vec![
                ("x".into(), Value::Option(Some(Box::new(Value::Int(1))))),
                ("y".into(), Value::Float(2.5)),
            ],
        },
    )]);
    assert_eq!(value.to_string(), "{\"k\": P { x: Some(1), y: 2.5 }}");
    assert_eq!(value.clone(), value);
    let other = Value::Map(vec![(
        Value::str("k"),
        Value::Struct {
            name: "P".into(),
            fields: vec![
                ("x".into(), Value::Option(None)),
                ("y".into(), Value::Float(2.5)),
            ],
        },
    )]);
    assert_ne!(value, other);
    assert_ne!(Value::Float(f64::NAN), Value::Float(f64::NAN));
    assert_eq!(
        Value::Variant {
            enum_name: "E".into(),
            variant: "A".into(),
            fields: vec![Value::Unit, Value::Bool(true)],
        }
        .to_string(),
        "E.A((), true)"
    );
}

#[test]
fn a_cons_list_a_program_returns_comes_back_whole_and_is_compared_deep() {
    let program = cove_compiler::compile_module(
        "m",
        "export enum L {\n  Nil,\n  Cons(Int, L),\n}\n\nexport fn build(n: Int) -> L {\n  var list = L.Nil\n  for i in 0..n {\n    list = L.Cons(i, list)\n  }\n  list\n}\n",
    )
    .unwrap_or_else(|d| panic!("{d}"));
    let result = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn_scoped(scope, || {
                let mut vm = Vm::new(&program);
                let value = vm
                    .run_entry("m", "build", vec![Value::Int(DEEP as i64)])
                    .expect("it runs");
                let expected = cons_list(DEEP);
                let same = value == expected;
                value.drop_deep();
                expected.drop_deep();
                same
            })
            .expect("a thread")
            .join()
            .expect("no overflow")
    });
    assert!(result);
}

#[test]
fn a_million_deep_cons_list_is_cloned_compared_and_dropped_plainly_on_a_small_stack() {
    on_a_stack_of(SMALL_STACK, || {
        let list = cons_list(MILLION);
        let copy = list.clone();
        assert!(list == copy);
        let shorter = cons_list(MILLION - 1);
        assert!(list != shorter);
        // The plain drops this test is about: the shorter list and the copy
        // here, the original as the closure ends.
        drop(shorter);
        drop(copy);
    });
}

#[test]
fn a_million_deep_cons_list_displays_on_a_small_stack() {
    on_a_stack_of(SMALL_STACK, || {
        let list = cons_list(MILLION);
        let text = list.to_string();
        assert!(text.starts_with(&format!("L.Cons({}, L.Cons(", MILLION - 1)));
        let innermost = format!("L.Cons(1, L.Cons(0, L.Nil{}", ")".repeat(MILLION));
        assert!(text.ends_with(&innermost));
    });
}

#[test]
fn a_million_deep_cons_list_is_debug_printed_on_a_small_stack() {
    on_a_stack_of(SMALL_STACK, || {
        let list = cons_list(MILLION);
        let debug = format!("{list:?}");
        let cell = "Variant { enum_name: \"L\", variant: \"Cons\", fields: [Int(0), ";
        assert!(debug.contains(cell));
        let innermost = format!("variant: \"Nil\", fields: [] }}{}", "] }".repeat(MILLION));
        assert!(debug.ends_with(&innermost));
    });
}

#[test]
fn a_million_deep_list_of_options_in_a_map_drops_plainly_on_a_small_stack() {
    on_a_stack_of(SMALL_STACK, || {
        let mut value = Value::Unit;
        for i in 0..MILLION {
            value = match i % 4 {
                0 => Value::List(vec![Value::Int(1), value]),
                1 => Value::Option(Some(Box::new(value))),
                2 => Value::Map(vec![(Value::str("k"), value)]),
                _ => Value::Struct {
                    name: "P".into(),
                    fields: vec![("x".into(), value)],
                },
            };
        }
        let copy = value.clone();
        assert!(copy == value);
        drop(copy);
        // The pretty form indents each level, so its length is quadratic in
        // the depth; the compact form is the one a deep value is logged in.
        let debug = format!("{value:?}");
        assert!(debug.starts_with("Struct { name: \"P\", fields: [(\"x\", Map([(Str(\"k\"), Option(Some(List([Int(1), Struct {"));
        drop(debug);
        drop(value);
    });
}

/// What `#[derive(Debug)]` wrote for [`debug_sample`], in both forms,
/// captured from the derived implementation before it was replaced.
const DERIVED_COMPACT: &str = r#"List([Unit, List([]), Map([(Str("k\"q"), Float(2.5))]), Option(Some(Option(None))), Struct { name: "P", fields: [("x", Int(-1))] }, Struct { name: "E", fields: [] }, Variant { enum_name: "L", variant: "Nil", fields: [] }, Closure { function: "m.f", captures: [("n", Bool(true))] }, Raw(7), Float(1.0)])"#;
const DERIVED_PRETTY: &str = r#"List(
    [
        Unit,
        List(
            [],
        ),
        Map(
            [
                (
                    Str(
                        "k\"q",
                    ),
                    Float(
                        2.5,
                    ),
                ),
            ],
        ),
        Option(
            Some(
                Option(
                    None,
                ),
            ),
        ),
        Struct {
            name: "P",
            fields: [
                (
                    "x",
                    Int(
                        -1,
                    ),
                ),
            ],
        },
        Struct {
            name: "E",
            fields: [],
        },
        Variant {
            enum_name: "L",
            variant: "Nil",
            fields: [],
        },
        Closure {
            function: "m.f",
            captures: [
                (
                    "n",
                    Bool(
                        true,
                    ),
                ),
            ],
        },
        Raw(
            7,
        ),
        Float(
            1.0,
        ),
    ],
)"#;

fn debug_sample() -> Value {
    Value::List(vec![
        Value::Unit,
        Value::List(vec![]),
        Value::Map(vec![(Value::str("k\"q"), Value::Float(2.5))]),
        Value::Option(Some(Box::new(Value::Option(None)))),
        Value::Struct {
            name: "P".into(),
            fields: vec![("x".into(), Value::Int(-1))],
        },
        Value::Struct {
            name: "E".into(),
            fields: vec![],
        },
        Value::Variant {
            enum_name: "L".into(),
            variant: "Nil".into(),
            fields: vec![],
        },
        Value::Closure {
            function: "m.f".into(),
            captures: vec![("n".into(), Value::Bool(true))],
        },
        Value::Raw(7),
        Value::Float(1.0),
    ])
}

#[test]
fn debug_writes_what_the_derived_implementation_wrote_in_both_forms() {
    let value = debug_sample();
    assert_eq!(format!("{value:?}"), DERIVED_COMPACT);
    assert_eq!(format!("{value:#?}"), DERIVED_PRETTY);
}

#[test]
fn a_value_can_still_be_taken_apart_through_a_mutable_reference() {
    let mut value = Value::List(vec![Value::str("a"), Value::str("b")]);
    let Value::List(items) = &mut value else {
        panic!("a list")
    };
    let items = std::mem::take(items);
    assert_eq!(items, vec![Value::str("a"), Value::str("b")]);
    assert_eq!(value, Value::List(vec![]));
}
