//! The types a Cove program's values have, as the IR records them.
//!
//! The compiler checks types; the IR keeps just enough of them for the
//! runtime to lay out heap objects (which words of an object hold
//! references), to render a value as text, and for a debugger to print a
//! register by its Cove type. Types are interned in
//! [`Program::types`](crate::program::Program::types) and named by a [`TypeId`], so an
//! instruction that needs a type carries one small index rather than a tree.

use std::fmt;

/// An index into [`crate::program::Program::types`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TypeId(pub u32);

/// An index into [`crate::program::Program::structs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StructId(pub u16);

/// An index into [`crate::program::Program::enums`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EnumId(pub u16);

/// A Cove type.
///
/// A value of a type for which [`Type::is_ref`] is true lives in the heap
/// and its register holds a reference (or 0, which is `None` for an
/// `Option` and "not yet written" for everything else); every other value
/// lives in its register as 64 raw bits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// `()`: one value, held as 0.
    Unit,
    /// `Bool`: 0 or 1.
    Bool,
    /// `Int`: a two's-complement 64-bit integer.
    Int,
    /// `Float`: an IEEE 754 double, held as its bits.
    Float,
    /// `String`: immutable UTF-8 in the heap.
    Str,
    /// `List[T]`: a growable list in the heap.
    List(TypeId),
    /// `Map[K, V]`: an insertion-ordered map in the heap; `K` is `Int`,
    /// `String` or `Bool`.
    Map(TypeId, TypeId),
    /// `Option[T]`: 0 for `None`, a one-field box for `Some`.
    Option(TypeId),
    /// A user `struct`.
    Struct(StructId),
    /// A user `enum`.
    Enum(EnumId),
    /// The handle `spawn` returns; `join` gives the `T`.
    Task(TypeId),
    /// `Channel[T]`: a handle to a queue shared between tasks.
    Channel(TypeId),
    /// `fn(A, B) -> R`: a function value, a closure object in the heap
    /// (its function and the values it captured; see `new.closure`).
    Func(Vec<TypeId>, TypeId),
}

impl Type {
    /// Whether a value of this type is a heap reference, which is what a
    /// precise collector needs to know of every register and field.
    pub fn is_ref(&self) -> bool {
        !matches!(self, Type::Unit | Type::Bool | Type::Int | Type::Float)
    }
}

impl fmt::Display for TypeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t{}", self.0)
    }
}
