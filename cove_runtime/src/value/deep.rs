//! `Clone`, `==`, `Display` and `Drop` of a [`Value`], walking it with a
//! stack of their own instead of the host's (`Debug` is in `debug.rs`).
//!
//! A `Value` is as deep as the program made it: an enum cons list of a
//! hundred thousand cells is a hundred thousand nested `Vec`s. The derived
//! implementations recurse once a level and overflow an 8 MiB native stack
//! at a few tens of thousands of levels (dropping at about 134,000,
//! `Display` at 48,000, `clone` and `==` at 38,000), taking the embedder's
//! process down with them. Each walk here keeps its pending work in a
//! `Vec` on the heap instead, so depth costs memory in proportion and
//! nothing else; a flat or shallow value (the common case) takes the same
//! path with a stack that never grows past a few entries.
//!
//! The obvious other shape, a recursion that switches to a fresh native
//! stack when it runs low (the `stacker` crate), would still recurse per
//! level on every platform that crate cannot grow stacks on, and would
//! make a drop allocate stacks; an explicit stack is simpler and bounded.
//!
//! The drop hook is a `Drop` on `Value` itself rather than on wrappers
//! around the `Vec`s and `Box`es that hold children: wrappers would change
//! the types of the variants' fields, so every `Value::List(vec![..])` and
//! `Value::Option(Some(Box::new(..)))` an embedder writes would stop
//! compiling, where a `Drop` on `Value` forbids only moving a part out of
//! an owned value, which a match on a reference or `std::mem::take` does
//! as well.

use std::fmt;

use super::Value;

/// The values directly inside `value`, in order (a map's key before its
/// value).
fn children(value: &Value) -> Box<dyn DoubleEndedIterator<Item = &Value> + '_> {
    match value {
        Value::List(items) => Box::new(items.iter()),
        Value::Map(entries) => Box::new(entries.iter().flat_map(|(k, v)| [k, v])),
        Value::Option(Some(inner)) => Box::new(std::iter::once(&**inner)),
        Value::Struct { fields, .. } => Box::new(fields.iter().map(|(_, v)| v)),
        Value::Variant { fields, .. } => Box::new(fields.iter()),
        Value::Closure { captures, .. } => Box::new(captures.iter().map(|(_, v)| v)),
        _ => Box::new(std::iter::empty()),
    }
}

/// Whether `value` holds other values.
fn is_container(value: &Value) -> bool {
    matches!(
        value,
        Value::List(_)
            | Value::Map(_)
            | Value::Option(Some(_))
            | Value::Struct { .. }
            | Value::Variant { .. }
            | Value::Closure { .. }
    )
}

/// A copy of a value that holds no other value.
fn leaf(value: &Value) -> Value {
    match value {
        Value::Unit => Value::Unit,
        Value::Bool(b) => Value::Bool(*b),
        Value::Int(n) => Value::Int(*n),
        Value::Float(x) => Value::Float(*x),
        Value::Str(s) => Value::Str(s.clone()),
        Value::Option(None) => Value::Option(None),
        Value::Task(t) => Value::Task(t.clone()),
        Value::Channel(c) => Value::Channel(c.clone()),
        Value::Raw(bits) => Value::Raw(*bits),
        // Containers are built from their copied children by `clone`.
        Value::List(_)
        | Value::Map(_)
        | Value::Option(Some(_))
        | Value::Struct { .. }
        | Value::Variant { .. }
        | Value::Closure { .. } => Value::Unit,
    }
}

impl Clone for Value {
    fn clone(&self) -> Value {
        enum Step<'a> {
            Visit(&'a Value),
            Build(&'a Value, usize),
        }
        if !is_container(self) {
            return leaf(self);
        }
        let mut work = vec![Step::Visit(self)];
        let mut done: Vec<Value> = Vec::new();
        while let Some(step) = work.pop() {
            match step {
                Step::Visit(value) if !is_container(value) => done.push(leaf(value)),
                Step::Visit(value) => {
                    let count = children(value).count();
                    work.push(Step::Build(value, count));
                    work.extend(children(value).rev().map(Step::Visit));
                }
                Step::Build(value, count) => {
                    let mut parts = done.split_off(done.len() - count).into_iter();
                    let built = match value {
                        Value::List(_) => Value::List(parts.collect()),
                        Value::Map(_) => {
                            let mut entries = Vec::with_capacity(count / 2);
                            while let (Some(k), Some(v)) = (parts.next(), parts.next()) {
                                entries.push((k, v));
                            }
                            Value::Map(entries)
                        }
                        Value::Option(_) => Value::Option(parts.next().map(Box::new)),
                        Value::Struct { name, fields } => Value::Struct {
                            name: name.clone(),
                            fields: fields.iter().map(|(f, _)| f.clone()).zip(parts).collect(),
                        },
                        Value::Variant {
                            enum_name, variant, ..
                        } => Value::Variant {
                            enum_name: enum_name.clone(),
                            variant: variant.clone(),
                            fields: parts.collect(),
                        },
                        Value::Closure { function, captures } => Value::Closure {
                            function: function.clone(),
                            captures: captures.iter().map(|(n, _)| n.clone()).zip(parts).collect(),
                        },
                        other => leaf(other),
                    };
                    done.push(built);
                }
            }
        }
        done.pop().unwrap_or(Value::Unit)
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        let mut pairs = vec![(self, other)];
        while let Some((a, b)) = pairs.pop() {
            let same = match (a, b) {
                (Value::Unit, Value::Unit) => true,
                (Value::Bool(x), Value::Bool(y)) => x == y,
                (Value::Int(x), Value::Int(y)) => x == y,
                (Value::Float(x), Value::Float(y)) => x == y,
                (Value::Str(x), Value::Str(y)) => x == y,
                (Value::List(x), Value::List(y)) => x.len() == y.len(),
                (Value::Map(x), Value::Map(y)) => x.len() == y.len(),
                (Value::Option(x), Value::Option(y)) => x.is_some() == y.is_some(),
                (
                    Value::Struct { name, fields },
                    Value::Struct {
                        name: other_name,
                        fields: other_fields,
                    },
                ) => {
                    name == other_name
                        && fields.len() == other_fields.len()
                        && fields
                            .iter()
                            .zip(other_fields)
                            .all(|((f, _), (g, _))| f == g)
                }
                (
                    Value::Variant {
                        enum_name,
                        variant,
                        fields,
                    },
                    Value::Variant {
                        enum_name: other_enum,
                        variant: other_variant,
                        fields: other_fields,
                    },
                ) => {
                    enum_name == other_enum
                        && variant == other_variant
                        && fields.len() == other_fields.len()
                }
                (Value::Task(x), Value::Task(y)) => x == y,
                (Value::Channel(x), Value::Channel(y)) => x == y,
                (Value::Raw(x), Value::Raw(y)) => x == y,
                (
                    Value::Closure { function, captures },
                    Value::Closure {
                        function: other_function,
                        captures: other_captures,
                    },
                ) => {
                    function == other_function
                        && captures.len() == other_captures.len()
                        && captures
                            .iter()
                            .zip(other_captures)
                            .all(|((f, _), (g, _))| f == g)
                }
                _ => false,
            };
            if !same {
                return false;
            }
            pairs.extend(children(a).zip(children(b)));
        }
        true
    }
}

/// A part of a value's text: a value still to write, or text as it is.
enum Piece<'a> {
    Value(&'a Value),
    Text(&'a str),
}

/// Writes `value` as it appears inside a container: strings quoted.
pub(super) fn display(f: &mut fmt::Formatter<'_>, value: &Value) -> fmt::Result {
    let mut work = vec![Piece::Value(value)];
    // The pieces of one container, in order, before they go on `work`
    // reversed.
    let mut pieces: Vec<Piece<'_>> = Vec::new();
    while let Some(piece) = work.pop() {
        let value = match piece {
            Piece::Text(text) => {
                f.write_str(text)?;
                continue;
            }
            Piece::Value(value) => value,
        };
        match value {
            Value::Unit => f.write_str("()")?,
            Value::Bool(b) => write!(f, "{b}")?,
            Value::Int(n) => write!(f, "{n}")?,
            Value::Float(x) => write!(f, "{x}")?,
            Value::Str(s) => write!(f, "{s:?}")?,
            Value::Option(None) => f.write_str("None")?,
            Value::Task(_) => f.write_str("<task>")?,
            Value::Channel(_) => f.write_str("<channel>")?,
            Value::Raw(bits) => write!(f, "<raw {bits:#x}>")?,
            Value::List(items) => {
                pieces.push(Piece::Text("["));
                separated(&mut pieces, items.iter());
                pieces.push(Piece::Text("]"));
            }
            Value::Map(entries) => {
                pieces.push(Piece::Text("{"));
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        pieces.push(Piece::Text(", "));
                    }
                    pieces.extend([Piece::Value(k), Piece::Text(": "), Piece::Value(v)]);
                }
                pieces.push(Piece::Text("}"));
            }
            Value::Option(Some(inner)) => {
                pieces.extend([Piece::Text("Some("), Piece::Value(inner), Piece::Text(")")]);
            }
            // A tuple: a struct the compiler named as its type is written.
            Value::Struct { name, fields } if name.starts_with('(') => {
                pieces.push(Piece::Text("("));
                separated(&mut pieces, fields.iter().map(|(_, v)| v));
                pieces.push(Piece::Text(")"));
            }
            Value::Struct { name, fields } => {
                pieces.extend([Piece::Text(name), Piece::Text(" { ")]);
                for (i, (field, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        pieces.push(Piece::Text(", "));
                    }
                    pieces.extend([Piece::Text(field), Piece::Text(": "), Piece::Value(v)]);
                }
                pieces.push(Piece::Text(" }"));
            }
            Value::Closure { function, .. } => {
                pieces.extend([Piece::Text("<fn "), Piece::Text(function), Piece::Text(">")]);
            }
            Value::Variant {
                enum_name,
                variant,
                fields,
            } => {
                pieces.extend([
                    Piece::Text(enum_name),
                    Piece::Text("."),
                    Piece::Text(variant),
                ]);
                if !fields.is_empty() {
                    pieces.push(Piece::Text("("));
                    separated(&mut pieces, fields.iter());
                    pieces.push(Piece::Text(")"));
                }
            }
        }
        work.extend(pieces.drain(..).rev());
    }
    Ok(())
}

/// `items` as pieces, with ", " between them.
fn separated<'a>(pieces: &mut Vec<Piece<'a>>, items: impl Iterator<Item = &'a Value>) {
    for (i, item) in items.enumerate() {
        if i > 0 {
            pieces.push(Piece::Text(", "));
        }
        pieces.push(Piece::Value(item));
    }
}

impl Value {
    /// Drops the value. Kept from before a plain drop was bounded too: a
    /// plain `drop` now does the same.
    ///
    /// ```
    /// use cove_runtime::Value;
    /// let mut list = Value::Option(None);
    /// for _ in 0..1_000_000 {
    ///     list = Value::Option(Some(Box::new(list)));
    /// }
    /// list.drop_deep();
    /// ```
    pub fn drop_deep(self) {
        drop(self);
    }
}

/// Lets go of a value of any depth without recursing on the host's stack.
///
/// The drop Rust would write recurses once a level, and a value more than
/// about a hundred thousand levels deep (an enum cons list a program built
/// and returned) overflowed an 8 MiB stack dropping it. Here the value's
/// containers move to a work list before anything is freed, so that each
/// one is dropped with no container left inside it: its own `drop` then
/// finds nothing to do, and the native stack stays one level deep.
///
/// A value that holds no other value returns at once; a shallow container
/// costs one pass over its elements, and the work list allocates only when
/// a container holds another container.
///
/// The cost of the `Drop` is that a `Value` cannot be taken apart by moving
/// out of it (`let Value::Str(text) = value` is E0509): match on a
/// reference and clone, or on `&mut` and `std::mem::take` the part.
impl Drop for Value {
    fn drop(&mut self) {
        if !is_container(self) {
            return;
        }
        let mut stack = Vec::new();
        if take_children(self, &mut stack).is_err() {
            drop_children_each(self);
        }
        while let Some(mut value) = stack.pop() {
            // `value`'s children move to the stack; it drops shallow.
            if take_children(&mut value, &mut stack).is_err() {
                drop_children_each(&mut value);
            }
        }
    }
}

/// Moves the containers directly inside `value` onto `stack`, whose room is
/// asked of the host with `try_reserve` first; `Err`, with nothing moved,
/// when the host will not give it. A value is often dropped because the
/// host ran out of memory (a deep copy between tasks that stopped with
/// `HeapLimit` as the host refused the next list), and a work list grown
/// infallibly then aborted the process with the copy half made.
fn take_children(value: &mut Value, stack: &mut Vec<Value>) -> Result<(), ()> {
    let inside = match value {
        Value::List(items) | Value::Variant { fields: items, .. } => {
            items.iter().filter(|v| is_container(v)).count()
        }
        Value::Map(entries) => entries
            .iter()
            .map(|(k, v)| usize::from(is_container(k)) + usize::from(is_container(v)))
            .sum(),
        Value::Option(inner) => usize::from(inner.is_some()),
        Value::Struct { fields, .. }
        | Value::Closure {
            captures: fields, ..
        } => fields.iter().filter(|(_, v)| is_container(v)).count(),
        _ => 0,
    };
    stack.try_reserve(inside).map_err(|_| ())?;
    match value {
        Value::List(items) | Value::Variant { fields: items, .. } => {
            stack.extend(items.drain(..).filter(is_container))
        }
        Value::Map(entries) => {
            for (key, value) in entries.drain(..) {
                stack.extend([key, value].into_iter().filter(is_container));
            }
        }
        Value::Option(inner) => {
            if let Some(inner) = inner.take() {
                stack.push(*inner);
            }
        }
        Value::Struct { fields, .. }
        | Value::Closure {
            captures: fields, ..
        } => stack.extend(fields.drain(..).map(|(_, v)| v).filter(is_container)),
        _ => {}
    }
    Ok(())
}

/// Drops the values directly inside `value` one at a time, each with its
/// own `drop`: what a drop does when the host will not give its work list
/// room ([`take_children`]). Each part freed gives the host memory back, so
/// the parts after it usually find room again; a part that does not
/// recurses a level on the host's stack.
fn drop_children_each(value: &mut Value) {
    match value {
        Value::List(items) | Value::Variant { fields: items, .. } => {
            while let Some(item) = items.pop() {
                drop(item);
            }
        }
        Value::Map(entries) => {
            while let Some(entry) = entries.pop() {
                drop(entry);
            }
        }
        Value::Option(inner) => drop(inner.take()),
        Value::Struct { fields, .. }
        | Value::Closure {
            captures: fields, ..
        } => {
            while let Some(field) = fields.pop() {
                drop(field);
            }
        }
        _ => {}
    }
}
