//! A `Value` as deep as a program can make it, in the host's hands: cloned,
//! compared, printed and let go of without overflowing the host's stack.
//!
//! Each test runs on a thread with an 8 MiB stack, the size of a main
//! thread, where the derived implementations overflowed at 38,000 (clone,
//! `==`), 48,000 (`Display`) and 134,000 (drop) levels of an enum cons list.

use cove_runtime::{Value, Vm};

/// Levels of nesting: well past every depth that overflowed.
const DEEP: usize = 300_000;

fn on_a_main_sized_stack(test: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(8 << 20)
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
