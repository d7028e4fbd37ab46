//! Cove values as the host sees them: the arguments an embedder passes to
//! [`Vm::run_entry`](crate::Vm::run_entry) and the result it gets back.
//!
//! Inside a run a value is 64 raw bits in a register or a reference into a
//! task's heap; a [`Value`] is the same thing owned by Rust, deep-copied out
//! of (or into) a heap guided by the value's Cove type. The same copy is
//! what carries spawn arguments, join results and channel messages between
//! tasks, which is why a `Value` is `Send`.

use std::fmt;
use std::sync::Arc;

use crate::vm::tasks::{ChannelState, TaskState};

/// A Cove value owned by the host.
///
/// A value may be nested as deep as memory allows (a list a million
/// levels deep, an enum cons list): `Clone`, `==`, `Display`, `Debug` and
/// a plain drop walk it with a stack of their own, never the host's (see
/// `value/deep.rs` and `value/debug.rs`).
///
/// Because `Value` has a `Drop`, an owned value cannot be taken apart by
/// moving out of it: match on a reference (`if let Value::Str(text) =
/// &value`), or on `&mut` and `std::mem::take` the part you keep.
pub enum Value {
    /// `()`.
    Unit,
    /// A `Bool`.
    Bool(bool),
    /// An `Int`.
    Int(i64),
    /// A `Float`.
    Float(f64),
    /// A `String`.
    Str(String),
    /// A `List[T]`.
    List(Vec<Value>),
    /// A `Map[K, V]`, in insertion order.
    Map(Vec<(Value, Value)>),
    /// An `Option[T]`.
    Option(Option<Box<Value>>),
    /// A user struct, its fields in declaration order.
    Struct {
        /// The struct's name.
        name: String,
        /// Each field's name and value.
        fields: Vec<(String, Value)>,
    },
    /// A value of a user enum.
    Variant {
        /// The enum's name.
        enum_name: String,
        /// The variant's name.
        variant: String,
        /// The payload.
        fields: Vec<Value>,
    },
    /// A task handle: what `spawn` returned.
    Task(TaskHandle),
    /// A channel handle: every copy is the same queue.
    Channel(ChannelHandle),
    /// A register whose Cove type the debug information does not record,
    /// as its raw bits (a debugger's view only).
    Raw(u64),
    /// A function value: the function's qualified name
    /// (`m.main.<closure@12>`) and what it captured, by name, in order (a
    /// captured `var` as its cell, a struct with one field `value`). A
    /// closure met again inside its own captures (one that captured the
    /// `var` it is stored in) is a closure whose one capture is
    /// `("<cycle>", Value::Int(k))`: the closure `k` levels up the copy,
    /// 0 being the nearest, so a cycle survives a copy between heaps.
    Closure {
        /// The function, as reports name it.
        function: String,
        /// Each capture's name and value.
        captures: Vec<(String, Value)>,
    },
}

impl Value {
    /// `Value::Str` of the text.
    pub fn str(text: impl Into<String>) -> Value {
        Value::Str(text.into())
    }

    /// The integer, if this is an `Int`.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// The text, if this is a `String`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// For a closure met again inside its own captures (see
    /// [`Value::Closure`]): how many closures up the copy it is, 0 being
    /// the nearest enclosing one, the closure itself when it captured the
    /// `var` it is stored in.
    pub fn cycle_back(&self) -> Option<usize> {
        match self {
            Value::Closure { captures, .. } => match captures.as_slice() {
                [(name, Value::Int(up))] if name == crate::heap::convert::CYCLE => {
                    usize::try_from(*up).ok()
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// Renders the value as Cove's `to-str` would, with strings quoted inside
/// containers and bare at the top.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Str(s) => f.write_str(s),
            other => deep::display(f, other),
        }
    }
}

mod debug;
mod deep;

/// A handle to a spawned task's result. Equal when it is the same task.
#[derive(Clone)]
pub struct TaskHandle(pub(crate) Arc<TaskState>);

impl fmt::Debug for TaskHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TaskHandle({})", self.0.id)
    }
}

impl PartialEq for TaskHandle {
    fn eq(&self, other: &TaskHandle) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A handle to a channel's queue. Equal when it is the same queue.
#[derive(Clone)]
pub struct ChannelHandle(pub(crate) Arc<ChannelState>);

impl fmt::Debug for ChannelHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ChannelHandle")
    }
}

impl PartialEq for ChannelHandle {
    fn eq(&self, other: &ChannelHandle) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_is_bare_alone_and_quoted_inside_a_container() {
        assert_eq!(Value::str("hi").to_string(), "hi");
        assert_eq!(
            Value::List(vec![Value::str("a"), Value::Int(2)]).to_string(),
            "[\"a\", 2]"
        );
        assert_eq!(
            Value::Option(Some(Box::new(Value::Int(3)))).to_string(),
            "Some(3)"
        );
    }
}
