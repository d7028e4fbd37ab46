//! `Debug` of a [`Value`], written with a stack of its own instead of the
//! host's, so that a value a million levels deep can be logged.
//!
//! The text is what `#[derive(Debug)]` wrote, in both forms (`{:?}` and
//! `{:#?}`), so that nothing reading it changes: a value is unfolded into
//! the shapes `derive` uses (a tuple variant, a struct variant, a list, a
//! Rust tuple for a map entry or a named field), and each shape's pieces go
//! on a work list in order, its children as items still to unfold. The
//! derived `Debug` recursed once a level and overflowed a native stack at a
//! few tens of thousands of levels. The cost is a `Vec` of pending pieces,
//! as long as the value is deep plus the widest container's element count;
//! the shallow values one usually prints keep it a few entries long.
//!
//! The obvious other shape, `f.debug_tuple(..).field(..)` as `derive` does,
//! is recursive by construction: each field's `Debug` runs inside its
//! parent's.

use std::fmt;

use super::Value;

/// Something to write: a value, a part of one, or a leaf with a `Debug` of
/// its own (a number, a string, a handle).
#[derive(Clone, Copy)]
enum Item<'a> {
    Value(&'a Value),
    Leaf(&'a dyn fmt::Debug),
    Some(&'a Value),
    Elements(&'a [Value]),
    Entries(&'a [(Value, Value)]),
    Entry(&'a Value, &'a Value),
    Fields(&'a [(String, Value)]),
    Field(&'a String, &'a Value),
}

/// The three shapes `derive` and the standard library write.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// `Name(a, b)`; a Rust tuple when the name is empty; `Name` alone when
    /// it has no items.
    Tuple,
    /// `Name { a: x, b: y }`.
    Struct,
    /// `[a, b]`.
    List,
}

/// One unfolded item: its head, shape and items (labelled in a struct).
struct Node<'a> {
    head: &'static str,
    shape: Shape,
    items: Vec<(&'static str, Item<'a>)>,
}

/// A tuple node (`Name(a, b)`) of `items`.
fn tuple<'a>(head: &'static str, items: Vec<Item<'a>>) -> Node<'a> {
    Node {
        head,
        shape: Shape::Tuple,
        items: items.into_iter().map(|item| ("", item)).collect(),
    }
}

/// A step of the walk.
enum Step<'a> {
    /// Text as it is.
    Text(&'static str),
    /// A new line indented `depth` levels (pretty form only).
    Line(usize),
    /// An item to write at `depth`.
    Item(Item<'a>, usize),
}

/// `item` as a leaf to write at once, or as a node to unfold.
fn unfold(item: Item<'_>) -> Result<Node<'_>, &dyn fmt::Debug> {
    let node = match item {
        Item::Leaf(leaf) => return Err(leaf),
        Item::Some(inner) => tuple("Some", vec![Item::Value(inner)]),
        Item::Elements(values) => Node {
            head: "",
            shape: Shape::List,
            items: values.iter().map(|v| ("", Item::Value(v))).collect(),
        },
        Item::Entries(entries) => Node {
            head: "",
            shape: Shape::List,
            items: entries
                .iter()
                .map(|(k, v)| ("", Item::Entry(k, v)))
                .collect(),
        },
        Item::Entry(key, value) => tuple("", vec![Item::Value(key), Item::Value(value)]),
        Item::Fields(fields) => Node {
            head: "",
            shape: Shape::List,
            items: fields
                .iter()
                .map(|(n, v)| ("", Item::Field(n, v)))
                .collect(),
        },
        Item::Field(name, value) => tuple("", vec![Item::Leaf(name), Item::Value(value)]),
        Item::Value(value) => match value {
            Value::Unit => tuple("Unit", vec![]),
            Value::Bool(b) => tuple("Bool", vec![Item::Leaf(b)]),
            Value::Int(n) => tuple("Int", vec![Item::Leaf(n)]),
            Value::Float(x) => tuple("Float", vec![Item::Leaf(x)]),
            Value::Str(s) => tuple("Str", vec![Item::Leaf(s)]),
            Value::List(items) => tuple("List", vec![Item::Elements(items)]),
            Value::Map(entries) => tuple("Map", vec![Item::Entries(entries)]),
            Value::Option(None) => tuple("Option", vec![Item::Leaf(&None::<()>)]),
            Value::Option(Some(inner)) => tuple("Option", vec![Item::Some(inner)]),
            Value::Struct { name, fields } => Node {
                head: "Struct",
                shape: Shape::Struct,
                items: vec![("name", Item::Leaf(name)), ("fields", Item::Fields(fields))],
            },
            Value::Variant {
                enum_name,
                variant,
                fields,
            } => Node {
                head: "Variant",
                shape: Shape::Struct,
                items: vec![
                    ("enum_name", Item::Leaf(enum_name)),
                    ("variant", Item::Leaf(variant)),
                    ("fields", Item::Elements(fields)),
                ],
            },
            Value::Task(handle) => tuple("Task", vec![Item::Leaf(handle)]),
            Value::Channel(handle) => tuple("Channel", vec![Item::Leaf(handle)]),
            Value::Raw(bits) => tuple("Raw", vec![Item::Leaf(bits)]),
            Value::Closure { function, captures } => Node {
                head: "Closure",
                shape: Shape::Struct,
                items: vec![
                    ("function", Item::Leaf(function)),
                    ("captures", Item::Fields(captures)),
                ],
            },
        },
    };
    Ok(node)
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pretty = f.alternate();
        let mut work = vec![Step::Item(Item::Value(self), 0)];
        // One node's steps, in order, before they go on `work` reversed.
        let mut steps: Vec<Step<'_>> = Vec::new();
        while let Some(step) = work.pop() {
            let (item, depth) = match step {
                Step::Text(text) => {
                    f.write_str(text)?;
                    continue;
                }
                Step::Line(depth) => {
                    f.write_str("\n")?;
                    for _ in 0..depth {
                        f.write_str("    ")?;
                    }
                    continue;
                }
                Step::Item(item, depth) => (item, depth),
            };
            let node = match unfold(item) {
                Ok(node) => node,
                Err(leaf) => {
                    leaf.fmt(f)?;
                    continue;
                }
            };
            f.write_str(node.head)?;
            if node.items.is_empty() {
                if node.shape == Shape::List {
                    f.write_str("[]")?;
                }
                continue;
            }
            let (open, close) = match (node.shape, pretty) {
                (Shape::Tuple, _) => ("(", ")"),
                (Shape::Struct, false) => (" { ", " }"),
                (Shape::Struct, true) => (" {", "}"),
                (Shape::List, _) => ("[", "]"),
            };
            steps.push(Step::Text(open));
            for (i, (label, item)) in node.items.into_iter().enumerate() {
                if pretty {
                    steps.push(Step::Line(depth + 1));
                } else if i > 0 {
                    steps.push(Step::Text(", "));
                }
                if !label.is_empty() {
                    steps.extend([Step::Text(label), Step::Text(": ")]);
                }
                steps.push(Step::Item(item, depth + 1));
                if pretty {
                    steps.push(Step::Text(","));
                }
            }
            if pretty {
                steps.push(Step::Line(depth));
            }
            steps.push(Step::Text(close));
            work.extend(steps.drain(..).rev());
        }
        Ok(())
    }
}
