//! Copies between a heap and the host.
//!
//! A register does not know its type, so every function here is guided by
//! the Cove type the caller has from the program (a parameter's type, a
//! function's result type, the `ty` operand of `to-str`). These are the deep
//! copies tasks use to cross heaps: out of one heap into a [`Value`], and
//! from the `Value` into the other heap.

use cove_ir::program::Program;
use cove_ir::types::{EnumId, StructId, Type, TypeId};

use super::{INT_ENTRY_WORDS, Memory, Table, b_of, kind, str_entry_words, words_for};
use crate::error::{ErrorKind, Fault, Faulty};
use crate::value::Value;

/// Room for `n` more items in a vector of a copy's walk
/// ([`super::host_room`]): a copy's tree is the host's memory, list by
/// list, and a host that refused one list's vector (72,000 bytes, under
/// `ulimit -v 1000000`, for a value sharing one list a million times)
/// aborted the process.
fn room<T>(items: &mut Vec<T>, n: usize) -> Faulty<()> {
    super::host_room(items, n, format_args!("copying a value between tasks"))
}

/// The last `n` items of `done`, taken off it into a vector of their own
/// whose room is asked of the host first (see [`room`]).
fn take_last<T>(done: &mut Vec<T>, n: usize) -> Faulty<Vec<T>> {
    let mut items = Vec::new();
    room(&mut items, n)?;
    items.extend(done.drain(done.len() - n..));
    Ok(items)
}

/// A copy on the host of a string's bytes, its room asked of the host
/// first (see [`room`]): a message's strings are most of what a flooded
/// channel holds, and a host at its last megabytes refuses one of them
/// (13 bytes, under `ulimit -v 250000` in a debug build) before any
/// vector, which aborted the process.
fn host_text(bytes: &[u8]) -> Faulty<String> {
    let mut text = String::new();
    text.try_reserve_exact(bytes.len()).map_err(|e| {
        super::out_of_memory(
            bytes.len().div_ceil(8),
            format_args!("{e}, copying a string between tasks"),
        )
    })?;
    text.push_str(&String::from_utf8_lossy(bytes));
    Ok(text)
}

/// A copy on the host of a name the program gives a struct, an enum, a
/// variant, a field or a function: every struct of a message carries its
/// own names, and they are asked of the host like its strings.
fn host_name(name: &str) -> Faulty<String> {
    host_text(name.as_bytes())
}

/// A box on the host for an `Option`'s value, asked of the host first
/// (see [`room`]): `Box::new` aborts the process when the host refuses,
/// and a flood of `Some("...")` messages under `ulimit -v 300000` was
/// refused one of these 72-byte boxes before any vector.
fn host_box(value: Value) -> Faulty<Box<Value>> {
    let mut one = Vec::new();
    room(&mut one, 1)?;
    one.push(value);
    // A vector whose length is its capacity becomes a boxed slice without
    // moving, and a boxed slice of one item a boxed array of one.
    let Ok(array) = Box::<[Value; 1]>::try_from(one.into_boxed_slice()) else {
        unreachable!("a vector of one item is a slice of one item")
    };
    // SAFETY: `[Value; 1]` has the size and alignment of `Value` (an
    // array's layout is its item's, repeated), so the allocation the box
    // owns is one a `Box<Value>` may own and free.
    Ok(unsafe { Box::from_raw(Box::into_raw(array).cast::<Value>()) })
}

/// Each value beside its name, in a vector asked of the host (see
/// [`room`]), as a struct's fields and a closure's captures are copied.
fn named<'n>(
    names: impl IntoIterator<Item = &'n str>,
    values: Vec<Value>,
) -> Faulty<Vec<(String, Value)>> {
    let mut pairs = Vec::new();
    room(&mut pairs, values.len())?;
    for (name, value) in names.into_iter().zip(values) {
        pairs.push((host_name(name)?, value));
    }
    Ok(pairs)
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

/// One step of [`Memory::to_value`]'s walk: a value to copy out, or a
/// container to assemble from the values its parts left on the stack.
enum Out {
    Visit(TypeId, u64),
    List(usize),
    Map(Vec<Value>),
    Some,
    Struct(StructId),
    Variant(EnumId, usize),
    /// A closure of this function, with this many captures, at these bits.
    Closure(cove_ir::program::FunctionId, usize, u64),
}

/// The one capture of a [`Value::Closure`] that stands for a closure met
/// again inside its own captures (a closure that captured the `var` it is
/// stored in): its value is an `Int`, how many closures up the copy it is
/// (0: the closure whose captures hold it). Copied in, it is that
/// closure's object, so the copy has the cycle the original had. No Cove
/// name can be written with angle brackets, so no capture is mistaken
/// for it.
pub(crate) const CYCLE: &str = "<cycle>";

/// One step of [`Memory::put_value`]'s walk: a value to copy in, or a
/// container to allocate from the bits its parts left on the stack.
enum In<'v> {
    Visit(TypeId, &'v Value),
    Build(TypeId, &'v Value),
}

impl Memory {
    /// The value of type `ty` whose bits are `bits`, copied out of the heap.
    ///
    /// The walk keeps its own stack on the host's heap rather than
    /// recursing, so no depth of value can overflow the native stack of the
    /// task (or the host thread) doing the copy.
    ///
    /// The copy does not keep sharing: a list holding one string a thousand
    /// times comes out as a thousand strings, so a copy may be far larger
    /// than the heap it comes from. Under a heap limit the walk counts the
    /// words the copy will take in a heap (at least) and a queued message
    /// is charged (at least), and stops with `HeapLimit` once that passes
    /// the limit: the copy would pass it wherever it went, and it stops
    /// before it takes that much of the host's memory.
    pub(crate) fn to_value(&self, program: &Program, ty: TypeId, bits: u64) -> Faulty<Value> {
        let mut work = vec![Out::Visit(ty, bits)];
        let mut done: Vec<Value> = Vec::new();
        // The closures being copied, innermost last: one met again inside
        // itself (a closure that captured the `var` it is stored in) is a
        // cycle, which a `Value` tree cannot hold, so it is copied as a
        // reference back to the enclosing copy (see [`CYCLE`]).
        let mut open: Vec<u64> = Vec::new();
        let mut words = 0u64;
        let mut steps = 0u32;
        while let Some(step) = work.pop() {
            // Each step puts at most one value on `done`; a container's
            // step asks for its parts' room on `work` as it pushes them.
            room(&mut done, 1)?;
            // A copy can take seconds (a value that shares one string a
            // million times comes out a million strings): it is work paid
            // in fuel, and it looks for an interrupt as it goes.
            steps = steps.wrapping_add(1);
            if steps % 4096 == 0 {
                self.stop_requested()?;
                self.fuel_covers_work()?;
            }
            self.did_work(crate::limits::WORK_PER_FUEL);
            let (ty, bits) = match step {
                Out::Visit(ty, bits) => (ty, bits),
                Out::List(n) => {
                    let items = take_last(&mut done, n)?;
                    done.push(Value::List(items));
                    continue;
                }
                Out::Map(keys) => {
                    let values = take_last(&mut done, keys.len())?;
                    let mut entries = Vec::new();
                    room(&mut entries, keys.len())?;
                    entries.extend(keys.into_iter().zip(values));
                    done.push(Value::Map(entries));
                    continue;
                }
                Out::Some => {
                    let value = done.pop().unwrap_or(Value::Unit);
                    done.push(Value::Option(Some(host_box(value)?)));
                    continue;
                }
                Out::Struct(s) => {
                    let def = program.struct_def(s);
                    let values = take_last(&mut done, def.fields.len())?;
                    done.push(Value::Struct {
                        name: host_name(&def.name)?,
                        fields: named(def.fields.iter().map(|f| &f.name[..]), values)?,
                    });
                    continue;
                }
                Out::Closure(func, n, at) => {
                    if open.last() == Some(&at) {
                        open.pop();
                    }
                    let values = take_last(&mut done, n)?;
                    let names = closure_env(program, func)
                        .map(|d| &d.fields[..])
                        .unwrap_or(&[]);
                    done.push(Value::Closure {
                        function: host_name(&program.function(func).qualified)?,
                        captures: named(names.iter().map(|f| &f.name[..]), values)?,
                    });
                    continue;
                }
                Out::Variant(e, index) => {
                    let def = program.enum_def(e);
                    let variant = &def.variants[index];
                    let fields = take_last(&mut done, variant.fields.len())?;
                    done.push(Value::Variant {
                        enum_name: host_name(&def.name)?,
                        variant: host_name(&variant.name)?,
                        fields,
                    });
                    continue;
                }
            };
            let Some(t) = program.types.get(ty.0 as usize) else {
                done.push(Value::Raw(bits));
                continue;
            };
            if t.is_ref() && bits == 0 && !matches!(t, Type::Option(_)) {
                done.push(Value::Raw(0));
                continue;
            }
            if let Some(limit) = self.limit {
                words = words.saturating_add(
                    self.copy_words(program, t, bits) + self.host_words(program, t, bits),
                );
                if words > limit {
                    return Err(Fault::new(
                        ErrorKind::HeapLimit,
                        format!(
                            "a copy of this value between heaps would pass the heap limit of \
                             {limit} words (a copy does not keep sharing)"
                        ),
                    ));
                }
            }
            let leaf = match t {
                Type::Unit => Value::Unit,
                Type::Bool => Value::Bool(bits != 0),
                Type::Int => Value::Int(bits as i64),
                Type::Float => Value::Float(f64::from_bits(bits)),
                Type::Str => {
                    let text = host_text(self.str_bytes(bits))?;
                    self.did_work(text.len() as u64);
                    Value::Str(text)
                }
                Type::Task(_) => Value::Task(self.task(bits).clone()),
                Type::Channel(_) => Value::Channel(self.channel(bits).clone()),
                Type::Option(_) if bits == 0 => Value::Option(None),
                Type::Option(inner) => {
                    room(&mut work, 2)?;
                    work.push(Out::Some);
                    work.push(Out::Visit(*inner, self.word(bits + 1)));
                    continue;
                }
                Type::List(elem) => {
                    let items = self.list_items(bits);
                    room(&mut work, items.len() + 1)?;
                    work.push(Out::List(items.len()));
                    work.extend(items.iter().rev().map(|item| Out::Visit(*elem, *item)));
                    continue;
                }
                Type::Map(k, v) => {
                    let mut keys = Vec::new();
                    let mut values = Vec::new();
                    let len = self.table(bits).len();
                    room(&mut keys, len)?;
                    room(&mut values, len)?;
                    room(&mut work, len + 1)?;
                    match self.table(bits) {
                        Table::Int(m) => {
                            let bool_keys = matches!(program.ty(*k), Type::Bool);
                            for (key, value) in m.iter() {
                                keys.push(if bool_keys {
                                    Value::Bool(*key != 0)
                                } else {
                                    Value::Int(*key)
                                });
                                values.push(value);
                            }
                        }
                        Table::Str(m) => {
                            for (key, value) in m.iter() {
                                keys.push(Value::Str(host_text(key)?));
                                values.push(value);
                            }
                        }
                    }
                    work.push(Out::Map(keys));
                    work.extend(values.into_iter().rev().map(|value| Out::Visit(*v, value)));
                    continue;
                }
                Type::Struct(s) => {
                    let def = program.struct_def(*s);
                    room(&mut work, def.fields.len() + 1)?;
                    work.push(Out::Struct(*s));
                    for (i, field) in def.fields.iter().enumerate().rev() {
                        work.push(Out::Visit(field.ty, self.word(bits + 1 + i as u64)));
                    }
                    continue;
                }
                Type::Func(..) => {
                    let header = self.header(bits);
                    let func = cove_ir::program::FunctionId(super::a_of(header));
                    let n = b_of(header) as usize;
                    if let Some(at) = open.iter().rposition(|&o| o == bits) {
                        let up = open.len() - 1 - at;
                        // The step's room on `done` holds the capture a
                        // moment, until it has a vector of its own.
                        done.push(Value::Int(up as i64));
                        let up = take_last(&mut done, 1)?;
                        done.push(Value::Closure {
                            function: host_name(&program.function(func).qualified)?,
                            captures: named([CYCLE], up)?,
                        });
                        continue;
                    }
                    open.push(bits);
                    room(&mut work, n + 1)?;
                    work.push(Out::Closure(func, n, bits));
                    if let Some(env) = closure_env(program, func) {
                        for (i, field) in env.fields.iter().enumerate().take(n).rev() {
                            work.push(Out::Visit(field.ty, self.word(bits + 1 + i as u64)));
                        }
                    }
                    continue;
                }
                Type::Enum(e) => {
                    let def = program.enum_def(*e);
                    let index = b_of(self.header(bits)) as usize;
                    room(&mut work, def.variants[index].fields.len() + 1)?;
                    work.push(Out::Variant(*e, index));
                    for (i, ty) in def.variants[index].fields.iter().enumerate().rev() {
                        work.push(Out::Visit(*ty, self.word(bits + 1 + i as u64)));
                    }
                    continue;
                }
            };
            done.push(leaf);
        }
        Ok(done.pop().unwrap_or(Value::Unit))
    }

    /// The fewest words the object `bits` of type `t` (not its parts) takes
    /// once copied: no more than [`Memory::put_value`] allocates for it, nor
    /// than [`words_of`] charges a queued message for it.
    fn copy_words(&self, program: &Program, t: &Type, bits: u64) -> u64 {
        match t {
            Type::Str => 1 + words_for(b_of(self.header(bits)) as usize) as u64,
            Type::List(_) => 2 + self.list_len(bits) as u64,
            Type::Map(..) => 2 + 2 * self.table(bits).len() as u64,
            Type::Option(_) if bits != 0 => 2,
            Type::Struct(s) => 1 + program.struct_def(*s).fields.len() as u64,
            Type::Enum(e) => {
                let index = b_of(self.header(bits)) as usize;
                1 + program.enum_def(*e).variants[index].fields.len() as u64
            }
            Type::Task(_) | Type::Channel(_) => 2,
            Type::Func(..) => 1 + u64::from(b_of(self.header(bits))),
            _ => 0,
        }
    }

    /// Words of the host's memory (at least) that the [`Value`] a copy out
    /// makes of this one object takes: the node itself, and the names and
    /// map keys it holds. The copy is that tree on the host and then its
    /// objects in the other heap, both at once, so [`Memory::to_value`]
    /// counts both against the heap bound: counting the heap's words alone
    /// let a copy under a 20,000,000-word bound take 1.4 GB of the host
    /// (a `Value` is nine words), and a copy under the default bound
    /// abort the process for want of memory.
    fn host_words(&self, program: &Program, t: &Type, bits: u64) -> u64 {
        const NODE: u64 = std::mem::size_of::<Value>().div_ceil(8) as u64;
        // A `String` of a short name: its three words and its allocation.
        const NAME: u64 = 5;
        match t {
            Type::Str => NODE + words_for(b_of(self.header(bits)) as usize) as u64,
            Type::Map(..) => {
                // Each entry's key is a node of its own, and a string key
                // its bytes.
                let n = self.table(bits).len() as u64;
                NODE + n * (NODE + 1)
            }
            Type::Struct(s) => NODE + NAME * (1 + program.struct_def(*s).fields.len() as u64),
            Type::Enum(_) => NODE + 2 * NAME,
            Type::Func(..) => NODE + NAME * (2 + u64::from(b_of(self.header(bits)))),
            _ => NODE,
        }
    }

    /// The bits of `value`, of type `ty`, copied into the heap.
    ///
    /// Like [`Memory::to_value`], a walk with its own stack: the bits of a
    /// container's parts wait on it (unrooted, which is sound because no
    /// collection runs inside an instruction) until the container is
    /// allocated around them.
    pub(crate) fn put_value(
        &mut self,
        program: &Program,
        ty: TypeId,
        value: &Value,
    ) -> Faulty<u64> {
        let mut work = vec![In::Visit(ty, value)];
        let mut done: Vec<u64> = Vec::new();
        // The closures being copied in, innermost last: each is allocated
        // before its captures are copied and filled in after, so a capture
        // that is a [`CYCLE`] can be the enclosing closure's object.
        let mut open: Vec<u64> = Vec::new();
        let mut steps = 0u32;
        while let Some(step) = work.pop() {
            room(&mut done, 1)?;
            steps = steps.wrapping_add(1);
            if steps % 4096 == 0 {
                self.stop_requested()?;
            }
            self.did_work(crate::limits::WORK_PER_FUEL);
            match step {
                In::Build(_, Value::Closure { captures, .. }) => {
                    let bits = done.split_off(done.len() - captures.len());
                    let obj = open.pop().unwrap_or(0);
                    for (i, b) in bits.into_iter().enumerate() {
                        self.set_word(obj + 1 + i as u64, b);
                    }
                    done.push(obj);
                }
                In::Visit(ty, value) => {
                    let Some(t) = program.types.get(ty.0 as usize) else {
                        return Err(mismatch(program, ty, value));
                    };
                    let bits = match (t, value) {
                        (Type::Unit, Value::Unit) => 0,
                        (Type::Bool, Value::Bool(b)) => u64::from(*b),
                        (Type::Int, Value::Int(n)) => *n as u64,
                        (Type::Float, Value::Float(x)) => x.to_bits(),
                        (Type::Str, Value::Str(s)) => self.alloc_str(s.as_bytes())?,
                        (Type::Option(_), Value::Option(None)) => 0,
                        (Type::Task(t), Value::Task(handle)) => {
                            self.alloc_task(handle.clone(), t.0)?
                        }
                        (Type::Channel(t), Value::Channel(handle)) => {
                            self.alloc_channel(handle.clone(), t.0)?
                        }
                        (Type::List(elem), Value::List(items)) => {
                            room(&mut work, items.len() + 1)?;
                            work.push(In::Build(ty, value));
                            work.extend(items.iter().rev().map(|item| In::Visit(*elem, item)));
                            continue;
                        }
                        (Type::Map(_, v), Value::Map(entries)) => {
                            room(&mut work, entries.len() + 1)?;
                            work.push(In::Build(ty, value));
                            work.extend(
                                entries.iter().rev().map(|(_, value)| In::Visit(*v, value)),
                            );
                            continue;
                        }
                        (Type::Option(inner), Value::Option(Some(inside))) => {
                            room(&mut work, 2)?;
                            work.push(In::Build(ty, value));
                            work.push(In::Visit(*inner, inside));
                            continue;
                        }
                        (Type::Struct(s), Value::Struct { name, fields }) => {
                            // By name: the struct's, and each field's once,
                            // in any order; copied in declaration order.
                            let def = program.struct_def(*s);
                            if *name != def.name || def.fields.len() != fields.len() {
                                return Err(mismatch(program, ty, value));
                            }
                            room(&mut work, def.fields.len() + 1)?;
                            work.push(In::Build(ty, value));
                            for field in def.fields.iter().rev() {
                                let mut given = fields.iter().filter(|(n, _)| *n == field.name);
                                let (Some((_, v)), None) = (given.next(), given.next()) else {
                                    return Err(mismatch(program, ty, value));
                                };
                                work.push(In::Visit(field.ty, v));
                            }
                            continue;
                        }
                        (Type::Func(..), Value::Closure { captures, .. }) if matches!(captures.as_slice(), [(n, Value::Int(_))] if n == CYCLE) =>
                        {
                            let [(_, Value::Int(up))] = captures.as_slice() else {
                                return Err(mismatch(program, ty, value));
                            };
                            let at = usize::try_from(*up)
                                .ok()
                                .and_then(|up| open.len().checked_sub(up + 1));
                            match at {
                                Some(at) => open[at],
                                None => return Err(mismatch(program, ty, value)),
                            }
                        }
                        (Type::Func(..), Value::Closure { function, captures }) => {
                            // The function by its qualified name, the
                            // captures in its environment's order.
                            let Some(func) = program
                                .functions
                                .iter()
                                .position(|f| f.qualified == *function)
                            else {
                                return Err(mismatch(program, ty, value));
                            };
                            let func = cove_ir::program::FunctionId(func as u32);
                            let fields = closure_env(program, func).map_or(&[][..], |d| &d.fields);
                            if fields.len() != captures.len() {
                                return Err(mismatch(program, ty, value));
                            }
                            let zeros = vec![0; captures.len()];
                            let obj = self.alloc_object(
                                kind::CLOSURE,
                                func.0,
                                zeros.len() as u32,
                                &zeros,
                            )?;
                            open.push(obj);
                            room(&mut work, fields.len() + 1)?;
                            work.push(In::Build(ty, value));
                            for (field, (_, v)) in fields.iter().zip(captures).rev() {
                                work.push(In::Visit(field.ty, v));
                            }
                            continue;
                        }
                        (
                            Type::Enum(e),
                            Value::Variant {
                                enum_name,
                                variant,
                                fields,
                            },
                        ) => {
                            let def = program.enum_def(*e);
                            let Some(index) = def.variants.iter().position(|v| v.name == *variant)
                            else {
                                return Err(mismatch(program, ty, value));
                            };
                            if *enum_name != def.name {
                                return Err(mismatch(program, ty, value));
                            }
                            let types = &def.variants[index].fields;
                            if types.len() != fields.len() {
                                return Err(mismatch(program, ty, value));
                            }
                            room(&mut work, types.len() + 1)?;
                            work.push(In::Build(ty, value));
                            for (ty, field) in types.iter().zip(fields).rev() {
                                work.push(In::Visit(*ty, field));
                            }
                            continue;
                        }
                        _ => return Err(mismatch(program, ty, value)),
                    };
                    done.push(bits);
                }
                In::Build(ty, value) => {
                    let bits = self.build(program, ty, value, &mut done)?;
                    done.push(bits);
                }
            }
        }
        Ok(done.pop().unwrap_or(0))
    }

    /// Allocates the container `value` of type `ty` around the bits of its
    /// parts, which are the last entries of `done` (taken off it).
    fn build(
        &mut self,
        program: &Program,
        ty: TypeId,
        value: &Value,
        done: &mut Vec<u64>,
    ) -> Faulty<u64> {
        match (program.ty(ty), value) {
            (Type::List(elem), Value::List(items)) => {
                let bits = take_last(done, items.len())?;
                self.alloc_list(program.ty(*elem).is_ref(), elem.0, &bits)
            }
            (Type::Map(k, v), Value::Map(entries)) => {
                let (k, v) = (*k, *v);
                let bits = take_last(done, entries.len())?;
                let str_keys = matches!(program.ty(k), Type::Str);
                let map = self.alloc_map(str_keys, program.ty(v).is_ref(), k.0, v.0)?;
                let key_ty = program.ty(k);
                for ((key, _), bits) in entries.iter().zip(bits) {
                    // The key's Value must be of the map's key type: an
                    // `Int` and a `Bool` share a table, not a type.
                    let (new, words) = match (self.table_mut(map), key_ty, key) {
                        (Table::Str(m), Type::Str, Value::Str(s)) => (
                            m.try_set(s.as_bytes(), bits, |k: &[u8]| k.into()),
                            str_entry_words(s.len()),
                        ),
                        (Table::Int(m), Type::Int, Value::Int(n)) => {
                            (m.try_set(n, bits, |k| *k), INT_ENTRY_WORDS)
                        }
                        (Table::Int(m), Type::Bool, Value::Bool(b)) => {
                            (m.try_set(&i64::from(*b), bits, |k| *k), INT_ENTRY_WORDS)
                        }
                        _ => return Err(mismatch(program, k, key)),
                    };
                    let grew = if new.map_err(super::map_refused)? {
                        words
                    } else {
                        0
                    };
                    self.grew_side(grew);
                }
                Ok(map)
            }
            (Type::Option(inner), _) => {
                let bits = done.pop().unwrap_or(0);
                self.alloc_some(program.ty(*inner).is_ref(), inner.0, bits)
            }
            (Type::Struct(s), Value::Struct { fields, .. }) => {
                let bits = take_last(done, fields.len())?;
                self.alloc_object(kind::STRUCT, u32::from(s.0), bits.len() as u32, &bits)
            }
            (
                Type::Enum(e),
                Value::Variant {
                    variant, fields, ..
                },
            ) => {
                let def = program.enum_def(*e);
                let index = def
                    .variants
                    .iter()
                    .position(|v| v.name == *variant)
                    .unwrap_or(0);
                let bits = take_last(done, fields.len())?;
                self.alloc_object(kind::VARIANT, u32::from(e.0), index as u32, &bits)
            }
            _ => Err(mismatch(program, ty, value)),
        }
    }
}

/// Drops `value` without recursing. `Value`'s own `Drop` is bounded now, so
/// this is a plain drop; the name stays to mark where the runtime lets go
/// of a value that may be deep (a message, a task's result).
pub(crate) fn dispose(value: Value) {
    value.drop_deep();
}

/// About how many heap words `value` takes once copied into a heap: a
/// header for every object, a word for every field, element or entry, and
/// a string's bytes. What a queued message is charged against the limit.
pub(crate) fn words_of(value: &Value) -> u64 {
    let mut words = 0u64;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        words += match value {
            Value::Str(s) => 2 + (s.len() as u64).div_ceil(8),
            Value::List(items) => {
                stack.extend(items);
                2 + items.len() as u64
            }
            Value::Map(entries) => {
                for (key, value) in entries {
                    stack.push(key);
                    stack.push(value);
                }
                2 + 2 * entries.len() as u64
            }
            Value::Option(Some(inner)) => {
                stack.push(inner);
                2
            }
            Value::Struct { fields, .. } => {
                stack.extend(fields.iter().map(|(_, v)| v));
                1 + fields.len() as u64
            }
            Value::Variant { fields, .. } => {
                stack.extend(fields);
                1 + fields.len() as u64
            }
            Value::Closure { captures, .. } => {
                stack.extend(captures.iter().map(|(_, v)| v));
                1 + captures.len() as u64
            }
            Value::Task(_) | Value::Channel(_) => 2,
            _ => 1,
        };
    }
    words
}

/// The environment struct of a closure of `func`, when it has one: its
/// last parameter's struct (see `new.closure`).
pub(crate) fn closure_env(
    program: &Program,
    func: cove_ir::program::FunctionId,
) -> Option<&cove_ir::program::StructDef> {
    let f = program.functions.get(func.index())?;
    match program.types.get(f.params.last()?.0 as usize)? {
        Type::Struct(s) => program.structs.get(s.0 as usize),
        _ => None,
    }
}
