//! Copies between a heap and the host, and the text form of a value.
//!
//! A register does not know its type, so every function here is guided by
//! the Cove type the caller has from the program (a parameter's type, a
//! function's result type, the `ty` operand of `to-str`). These are the deep
//! copies tasks use to cross heaps: out of one heap into a [`Value`], and
//! from the `Value` into the other heap.

use std::io::Write as _;

use cove_ir::program::Program;
use cove_ir::types::{Type, TypeId};

use super::{Memory, Table, b_of, kind};
use crate::error::{ErrorKind, Fault, Faulty};
use crate::value::Value;

/// How deep a value may nest before copying or printing it is refused: a
/// guard for the host's native stack, which these recursive walks use.
pub(crate) const MAX_NESTING: usize = 20_000;

fn too_deep() -> Fault {
    Fault::new(
        ErrorKind::InvalidArgument,
        format!("a value nested more than {MAX_NESTING} deep cannot be copied or printed"),
    )
}

fn mismatch(program: &Program, ty: TypeId, value: &Value) -> Fault {
    Fault::new(
        ErrorKind::NoSuchEntry,
        format!(
            "expected a value of type {}, not {value:?}",
            program.type_name(ty)
        ),
    )
}

impl Memory {
    /// The value of type `ty` whose bits are `bits`, copied out of the heap.
    pub(crate) fn to_value(&self, program: &Program, ty: TypeId, bits: u64) -> Faulty<Value> {
        self.to_value_at(program, ty, bits, 0)
    }

    fn to_value_at(&self, program: &Program, ty: TypeId, bits: u64, depth: usize) -> Faulty<Value> {
        if depth > MAX_NESTING {
            return Err(too_deep());
        }
        let depth = depth + 1;
        let Some(t) = program.types.get(ty.0 as usize) else {
            return Ok(Value::Raw(bits));
        };
        if t.is_ref() && bits == 0 && !matches!(t, Type::Option(_)) {
            return Ok(Value::Raw(0));
        }
        Ok(match t {
            Type::Unit => Value::Unit,
            Type::Bool => Value::Bool(bits != 0),
            Type::Int => Value::Int(bits as i64),
            Type::Float => Value::Float(f64::from_bits(bits)),
            Type::Str => Value::Str(self.str_text(bits).into_owned()),
            Type::List(elem) => {
                let mut items = Vec::with_capacity(self.list_len(bits));
                for item in self.list_items(bits) {
                    items.push(self.to_value_at(program, *elem, *item, depth)?);
                }
                Value::List(items)
            }
            Type::Map(k, v) => {
                let mut entries = Vec::new();
                match self.table(bits) {
                    Table::Int(m) => {
                        for (key, value) in m {
                            let key = if matches!(program.ty(*k), Type::Bool) {
                                Value::Bool(*key != 0)
                            } else {
                                Value::Int(*key)
                            };
                            entries.push((key, self.to_value_at(program, *v, *value, depth)?));
                        }
                    }
                    Table::Str(m) => {
                        for (key, value) in m {
                            let key = Value::Str(String::from_utf8_lossy(key).into_owned());
                            entries.push((key, self.to_value_at(program, *v, *value, depth)?));
                        }
                    }
                }
                Value::Map(entries)
            }
            Type::Option(inner) => {
                if bits == 0 {
                    Value::Option(None)
                } else {
                    let value = self.to_value_at(program, *inner, self.word(bits + 1), depth)?;
                    Value::Option(Some(Box::new(value)))
                }
            }
            Type::Struct(s) => {
                let def = program.struct_def(*s);
                let mut fields = Vec::with_capacity(def.fields.len());
                for (i, field) in def.fields.iter().enumerate() {
                    let word = self.word(bits + 1 + i as u64);
                    fields.push((
                        field.name.clone(),
                        self.to_value_at(program, field.ty, word, depth)?,
                    ));
                }
                Value::Struct {
                    name: def.name.clone(),
                    fields,
                }
            }
            Type::Enum(e) => {
                let def = program.enum_def(*e);
                let index = b_of(self.header(bits)) as usize;
                let variant = &def.variants[index];
                let mut fields = Vec::with_capacity(variant.fields.len());
                for (i, ty) in variant.fields.iter().enumerate() {
                    fields.push(self.to_value_at(
                        program,
                        *ty,
                        self.word(bits + 1 + i as u64),
                        depth,
                    )?);
                }
                Value::Variant {
                    enum_name: def.name.clone(),
                    variant: variant.name.clone(),
                    fields,
                }
            }
            Type::Task(_) => Value::Task(self.task(bits).clone()),
            Type::Channel(_) => Value::Channel(self.channel(bits).clone()),
        })
    }

    /// The bits of `value`, of type `ty`, copied into the heap.
    pub(crate) fn put_value(
        &mut self,
        program: &Program,
        ty: TypeId,
        value: &Value,
    ) -> Faulty<u64> {
        self.put_value_at(program, ty, value, 0)
    }

    fn put_value_at(
        &mut self,
        program: &Program,
        ty: TypeId,
        value: &Value,
        depth: usize,
    ) -> Faulty<u64> {
        if depth > MAX_NESTING {
            return Err(too_deep());
        }
        let depth = depth + 1;
        let Some(t) = program.types.get(ty.0 as usize) else {
            return Err(mismatch(program, ty, value));
        };
        match (t, value) {
            (Type::Unit, Value::Unit) => Ok(0),
            (Type::Bool, Value::Bool(b)) => Ok(u64::from(*b)),
            (Type::Int, Value::Int(n)) => Ok(*n as u64),
            (Type::Float, Value::Float(x)) => Ok(x.to_bits()),
            (Type::Str, Value::Str(s)) => self.alloc_str(s.as_bytes()),
            (Type::List(elem), Value::List(items)) => {
                let elem = *elem;
                let elem_ref = program.ty(elem).is_ref();
                let mut bits = Vec::with_capacity(items.len());
                for item in items {
                    bits.push(self.put_value_at(program, elem, item, depth)?);
                }
                self.alloc_list(elem_ref, elem.0, &bits)
            }
            (Type::Map(k, v), Value::Map(entries)) => {
                let (k, v) = (*k, *v);
                let str_keys = matches!(program.ty(k), Type::Str);
                let map = self.alloc_map(str_keys, program.ty(v).is_ref(), k.0, v.0)?;
                for (key, value) in entries {
                    let bits = self.put_value_at(program, v, value, depth)?;
                    match (self.table_mut(map), key) {
                        (Table::Str(m), Value::Str(s)) => {
                            m.insert(s.as_bytes().into(), bits);
                        }
                        (Table::Int(m), Value::Int(n)) => {
                            m.insert(*n, bits);
                        }
                        (Table::Int(m), Value::Bool(b)) => {
                            m.insert(i64::from(*b), bits);
                        }
                        _ => return Err(mismatch(program, k, key)),
                    }
                }
                Ok(map)
            }
            (Type::Option(_), Value::Option(None)) => Ok(0),
            (Type::Option(inner), Value::Option(Some(value))) => {
                let inner = *inner;
                let bits = self.put_value_at(program, inner, value, depth)?;
                self.alloc_some(program.ty(inner).is_ref(), inner.0, bits)
            }
            (Type::Struct(s), Value::Struct { fields, .. }) => {
                let s = *s;
                let def = program.struct_def(s);
                if def.fields.len() != fields.len() {
                    return Err(mismatch(program, ty, value));
                }
                let types: Vec<TypeId> = def.fields.iter().map(|f| f.ty).collect();
                let mut bits = Vec::with_capacity(fields.len());
                for (ty, (_, field)) in types.into_iter().zip(fields) {
                    bits.push(self.put_value_at(program, ty, field, depth)?);
                }
                self.alloc_object(kind::STRUCT, u32::from(s.0), bits.len() as u32, &bits)
            }
            (
                Type::Enum(e),
                Value::Variant {
                    variant, fields, ..
                },
            ) => {
                let e = *e;
                let def = program.enum_def(e);
                let Some(index) = def.variants.iter().position(|v| v.name == *variant) else {
                    return Err(mismatch(program, ty, value));
                };
                let types = def.variants[index].fields.clone();
                if types.len() != fields.len() {
                    return Err(mismatch(program, ty, value));
                }
                let mut bits = Vec::with_capacity(fields.len());
                for (ty, field) in types.into_iter().zip(fields) {
                    bits.push(self.put_value_at(program, ty, field, depth)?);
                }
                self.alloc_object(kind::VARIANT, u32::from(e.0), index as u32, &bits)
            }
            (Type::Task(t), Value::Task(handle)) => self.alloc_task(handle.clone(), t.0),
            (Type::Channel(t), Value::Channel(handle)) => self.alloc_channel(handle.clone(), t.0),
            _ => Err(mismatch(program, ty, value)),
        }
    }

    /// Appends the text form of the value of type `ty` to `out`: what
    /// `to-str` makes and `println` prints. A string is quoted when `nested`
    /// (inside a container) and bare otherwise.
    pub(crate) fn render(
        &self,
        program: &Program,
        ty: TypeId,
        bits: u64,
        out: &mut Vec<u8>,
        nested: bool,
    ) -> Faulty<()> {
        self.render_at(program, ty, bits, out, nested, 0)
    }

    fn render_at(
        &self,
        program: &Program,
        ty: TypeId,
        bits: u64,
        out: &mut Vec<u8>,
        nested: bool,
        depth: usize,
    ) -> Faulty<()> {
        if depth > MAX_NESTING {
            return Err(too_deep());
        }
        let depth = depth + 1;
        let Some(t) = program.types.get(ty.0 as usize) else {
            let _ = write!(out, "<raw {bits:#x}>");
            return Ok(());
        };
        if t.is_ref() && bits == 0 && !matches!(t, Type::Option(_)) {
            out.extend_from_slice(b"<unset>");
            return Ok(());
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
                for (i, item) in self.list_items(bits).iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    self.render_at(program, *elem, *item, out, true, depth)?;
                }
                out.push(b']');
            }
            Type::Map(k, v) => {
                out.push(b'{');
                match self.table(bits) {
                    Table::Int(m) => {
                        for (i, (key, value)) in m.iter().enumerate() {
                            if i > 0 {
                                out.extend_from_slice(b", ");
                            }
                            self.render_at(program, *k, *key as u64, out, true, depth)?;
                            out.extend_from_slice(b": ");
                            self.render_at(program, *v, *value, out, true, depth)?;
                        }
                    }
                    Table::Str(m) => {
                        for (i, (key, value)) in m.iter().enumerate() {
                            if i > 0 {
                                out.extend_from_slice(b", ");
                            }
                            let _ = write!(out, "{:?}", String::from_utf8_lossy(key));
                            out.extend_from_slice(b": ");
                            self.render_at(program, *v, *value, out, true, depth)?;
                        }
                    }
                }
                out.push(b'}');
            }
            Type::Option(inner) => {
                if bits == 0 {
                    out.extend_from_slice(b"None");
                } else {
                    out.extend_from_slice(b"Some(");
                    self.render_at(program, *inner, self.word(bits + 1), out, true, depth)?;
                    out.push(b')');
                }
            }
            Type::Struct(s) => {
                let def = program.struct_def(*s);
                let _ = write!(out, "{} {{ ", def.name);
                for (i, field) in def.fields.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    let _ = write!(out, "{}: ", field.name);
                    self.render_at(
                        program,
                        field.ty,
                        self.word(bits + 1 + i as u64),
                        out,
                        true,
                        depth,
                    )?;
                }
                out.extend_from_slice(b" }");
            }
            Type::Enum(e) => {
                let def = program.enum_def(*e);
                let variant = &def.variants[b_of(self.header(bits)) as usize];
                let _ = write!(out, "{}.{}", def.name, variant.name);
                if !variant.fields.is_empty() {
                    out.push(b'(');
                    for (i, ty) in variant.fields.iter().enumerate() {
                        if i > 0 {
                            out.extend_from_slice(b", ");
                        }
                        self.render_at(
                            program,
                            *ty,
                            self.word(bits + 1 + i as u64),
                            out,
                            true,
                            depth,
                        )?;
                    }
                    out.push(b')');
                }
            }
            Type::Task(_) => out.extend_from_slice(b"<task>"),
            Type::Channel(_) => out.extend_from_slice(b"<channel>"),
        }
        Ok(())
    }
}
