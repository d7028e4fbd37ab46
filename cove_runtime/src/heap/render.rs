//! The text form of a value: what `to-str` makes and `println` prints.
//!
//! The walk keeps its own stack of [`Step`]s on the host's heap instead of
//! recursing, so a value of any depth prints — a list of a million cons
//! cells is as printable as a flat one — and the task's native stack never
//! grows with the value. Nothing allocates in the Cove heap while a value
//! is rendered, so the references the steps hold stay valid throughout.
//!
//! A container is one step that remembers how far it has got, not one
//! step per element pushed up front: the stack grows with the depth of the
//! value, never with its width.

use std::io::Write as _;

use cove_ir::program::{Field, Program};
use cove_ir::types::{Type, TypeId};

use super::{Memory, Table, b_of};
use crate::error::Faulty;

/// Room for steps asked of the host before each step of a render: more
/// than the three any one step pushes.
const WORK_ROOM: usize = 8;

/// One piece of work left in a rendering.
enum Step<'p> {
    /// A whole value; `nested` says whether a string is quoted.
    Value { ty: TypeId, bits: u64, nested: bool },
    /// Fixed text.
    Text(&'static str),
    /// A list's items from `next` on, then its `]`.
    List {
        elem: TypeId,
        bits: u64,
        next: usize,
    },
    /// A map's entries from position `next` on, then its `}`; `first`
    /// until one has been printed.
    Map {
        key: TypeId,
        value: TypeId,
        bits: u64,
        next: usize,
        first: bool,
    },
    /// A struct's or variant's fields from `next` on, then `close`.
    Fields {
        parts: Parts<'p>,
        bits: u64,
        next: usize,
        close: &'static str,
    },
}

/// A map's key, as its table holds it.
enum Key<'m> {
    Int(i64),
    Str(&'m [u8]),
}

/// The fields of an object: a struct's are named, a variant's are not.
#[derive(Clone, Copy)]
enum Parts<'p> {
    Struct(&'p [Field]),
    Variant(&'p [TypeId]),
    /// A tuple's fields, written without their names.
    Tuple(&'p [Field]),
}

impl<'p> Parts<'p> {
    /// The name (if it has one) and type of field `i`.
    fn get(self, i: usize) -> Option<(Option<&'p str>, TypeId)> {
        match self {
            Parts::Struct(fields) => fields.get(i).map(|f| (Some(f.name.as_str()), f.ty)),
            Parts::Variant(types) => types.get(i).map(|ty| (None, *ty)),
            Parts::Tuple(fields) => fields.get(i).map(|f| (None, f.ty)),
        }
    }
}

impl Memory {
    /// Appends the text form of the value of type `ty` whose bits are
    /// `bits` to `out`. A string is quoted when `nested` (inside a
    /// container) and bare otherwise.
    ///
    /// The text is built on the host before it becomes a string, and a
    /// small value can print long (a list of one long string many times):
    /// the walk stops with the string's error as soon as the text is longer
    /// than a string of this heap could be.
    pub(crate) fn render(
        &self,
        program: &Program,
        ty: TypeId,
        bits: u64,
        out: &mut Vec<u8>,
        nested: bool,
    ) -> Faulty<()> {
        let mut work = vec![Step::Value { ty, bits, nested }];
        let mut checked = out.len();
        while let Some(step) = work.pop() {
            // Checked each time the text has grown by a mebibyte or so,
            // rather than at every step.
            if out.len() - checked > 1 << 20 {
                self.str_fits(out.len())?;
                // Rendering is work in the text's length (paid in fuel
                // through the string it makes) and may be long: look for
                // an interrupt too.
                self.stop_requested()?;
                checked = out.len();
            }
            // The text grows by doubling: ask the host for the room first,
            // so that a host that cannot give it is a `HeapLimit` and not
            // an abort (a 2 GiB text doubling to 4 GiB under `ulimit -v`).
            let want = match &step {
                Step::Value { ty, bits, .. }
                    if matches!(program.types.get(ty.0 as usize), Some(Type::Str))
                        && *bits != 0 =>
                {
                    // Quoted, most characters stay one byte and an escape
                    // takes two: twice the length is the room asked for.
                    2 * b_of(self.header(*bits)) as usize + 64
                }
                _ => 64,
            };
            super::host_room(out, want, format_args!("for a text form"))?;
            // So does the stack of what is left to write, one step for each
            // level of a deep value (a list of twenty million cons cells
            // doubled it to 58 MB and aborted under `ulimit -v`): room for
            // the few steps one step pushes.
            super::host_room(&mut work, WORK_ROOM, format_args!("for a text form"))?;
            match step {
                Step::Value { ty, bits, nested } => {
                    self.render_one(program, ty, bits, nested, out, &mut work)
                }
                Step::Text(text) => out.extend_from_slice(text.as_bytes()),
                Step::List { elem, bits, next } => {
                    let items = self.list_items(bits);
                    let Some(&item) = items.get(next) else {
                        out.push(b']');
                        continue;
                    };
                    if next > 0 {
                        out.extend_from_slice(b", ");
                    }
                    work.push(Step::List {
                        elem,
                        bits,
                        next: next + 1,
                    });
                    work.push(Step::Value {
                        ty: elem,
                        bits: item,
                        nested: true,
                    });
                }
                Step::Map {
                    key,
                    value,
                    bits,
                    next,
                    first,
                } => {
                    // `next` is a position among the entries held, dead
                    // ones included: the first live one from there on is
                    // the next to print.
                    let table = self.table(bits);
                    let found = (next..table.held()).find_map(|at| match table {
                        Table::Int(m) => m.held_at(at).map(|(k, v)| (at, Key::Int(*k), v)),
                        Table::Str(m) => m.held_at(at).map(|(k, v)| (at, Key::Str(k), v)),
                    });
                    let Some((at, k, v)) = found else {
                        out.push(b'}');
                        continue;
                    };
                    if !first {
                        out.extend_from_slice(b", ");
                    }
                    work.push(Step::Map {
                        key,
                        value,
                        bits,
                        next: at + 1,
                        first: false,
                    });
                    work.push(Step::Value {
                        ty: value,
                        bits: v,
                        nested: true,
                    });
                    match k {
                        Key::Int(k) => {
                            work.push(Step::Text(": "));
                            work.push(Step::Value {
                                ty: key,
                                bits: k as u64,
                                nested: true,
                            });
                        }
                        Key::Str(k) => {
                            let _ = write!(out, "{:?}: ", String::from_utf8_lossy(k));
                        }
                    }
                }
                Step::Fields {
                    parts,
                    bits,
                    next,
                    close,
                } => {
                    let Some((name, ty)) = parts.get(next) else {
                        out.extend_from_slice(close.as_bytes());
                        continue;
                    };
                    if next > 0 {
                        out.extend_from_slice(b", ");
                    }
                    if let Some(name) = name {
                        let _ = write!(out, "{name}: ");
                    }
                    work.push(Step::Fields {
                        parts,
                        bits,
                        next: next + 1,
                        close,
                    });
                    work.push(Step::Value {
                        ty,
                        bits: self.word(bits + 1 + next as u64),
                        nested: true,
                    });
                }
            }
        }
        Ok(())
    }

    /// Writes what a value of type `ty` prints before its parts, and pushes
    /// the step that prints the parts.
    fn render_one<'p>(
        &self,
        program: &'p Program,
        ty: TypeId,
        bits: u64,
        nested: bool,
        out: &mut Vec<u8>,
        work: &mut Vec<Step<'p>>,
    ) {
        let Some(t) = program.types.get(ty.0 as usize) else {
            let _ = write!(out, "<raw {bits:#x}>");
            return;
        };
        if t.is_ref() && bits == 0 && !matches!(t, Type::Option(_)) {
            out.extend_from_slice(b"<unset>");
            return;
        }
        match t {
            Type::Unit => out.extend_from_slice(b"()"),
            Type::Bool => out.extend_from_slice(if bits != 0 { b"true" } else { b"false" }),
            Type::Int => {
                let _ = write!(out, "{}", bits as i64);
            }
            Type::Float => {
                let _ = write!(out, "{}", f64::from_bits(bits));
            }
            Type::Str => {
                if nested {
                    let _ = write!(out, "{:?}", self.str_text(bits));
                } else {
                    out.extend_from_slice(self.str_bytes(bits));
                }
            }
            Type::List(elem) => {
                out.push(b'[');
                work.push(Step::List {
                    elem: *elem,
                    bits,
                    next: 0,
                });
            }
            Type::Map(key, value) => {
                out.push(b'{');
                work.push(Step::Map {
                    key: *key,
                    value: *value,
                    bits,
                    next: 0,
                    first: true,
                });
            }
            Type::Option(inner) => {
                if bits == 0 {
                    out.extend_from_slice(b"None");
                } else {
                    out.extend_from_slice(b"Some(");
                    work.push(Step::Text(")"));
                    work.push(Step::Value {
                        ty: *inner,
                        bits: self.word(bits + 1),
                        nested: true,
                    });
                }
            }
            Type::Struct(s) => {
                let def = program.struct_def(*s);
                // A tuple (a struct the compiler named as its type is
                // written) prints as one: `(1, "a")`.
                if def.name.starts_with('(') {
                    out.push(b'(');
                    work.push(Step::Fields {
                        parts: Parts::Tuple(&def.fields),
                        bits,
                        next: 0,
                        close: ")",
                    });
                    return;
                }
                let _ = write!(out, "{} {{ ", def.name);
                work.push(Step::Fields {
                    parts: Parts::Struct(&def.fields),
                    bits,
                    next: 0,
                    close: " }",
                });
            }
            Type::Enum(e) => {
                let def = program.enum_def(*e);
                let variant = &def.variants[b_of(self.header(bits)) as usize];
                let _ = write!(out, "{}.{}", def.name, variant.name);
                if !variant.fields.is_empty() {
                    out.push(b'(');
                    work.push(Step::Fields {
                        parts: Parts::Variant(&variant.fields),
                        bits,
                        next: 0,
                        close: ")",
                    });
                }
            }
            Type::Task(_) => out.extend_from_slice(b"<task>"),
            Type::Channel(_) => out.extend_from_slice(b"<channel>"),
            Type::Func(..) => {
                let func = cove_ir::program::FunctionId(super::a_of(self.header(bits)));
                let _ = write!(out, "<fn {}>", program.function_name(func));
            }
        }
    }
}
