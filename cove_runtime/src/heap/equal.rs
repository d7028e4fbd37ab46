//! Structural equality: what `eq.value` computes for `==` and `!=` on
//! structs, enums, lists, maps and options.
//!
//! Like the text form ([`super::render`]), the walk keeps its own stack of
//! pairs on the host's heap instead of recursing, so values of any depth
//! compare and the native stack never grows with them. Two lists are
//! equal when their lengths and elements are; two maps when they hold the
//! same keys with equal values, whatever the order of insertion (as an
//! `IndexMap`'s equality is); two structs or enum values when their
//! variants and fields are; a Float compares as IEEE does, so a list
//! holding NaN is not equal even to itself.
//!
//! Cove objects are references and may form cycles (a struct whose field
//! leads back to it). Equality is then the largest relation that fits the
//! rules (a bisimulation): a pair of objects met again while it is already
//! being compared is taken as equal, so every comparison ends. That costs
//! a hash-set entry per pair of objects compared, none for numbers. The
//! walk allocates nothing in the Cove heap, so the references it holds
//! stay valid; a long comparison looks for an interrupt now and then.

use std::collections::HashSet;

use cove_ir::program::Program;
use cove_ir::types::{Type, TypeId};

use super::{Memory, Table, b_of};
use crate::error::Faulty;

/// How many pairs are compared between two looks for an interrupt.
const POLL: u32 = 1 << 16;

impl Memory {
    /// Whether the values `a` and `b` of type `ty` are structurally equal.
    pub(crate) fn equal(&self, program: &Program, ty: TypeId, a: u64, b: u64) -> Faulty<bool> {
        let mut work = vec![(ty, a, b)];
        let mut seen: HashSet<(TypeId, u64, u64)> = HashSet::new();
        let mut steps = 0u32;
        while let Some((ty, a, b)) = work.pop() {
            steps += 1;
            if steps == POLL {
                steps = 0;
                self.stop_requested()?;
            }
            let Some(t) = program.types.get(ty.0 as usize) else {
                return Ok(false);
            };
            if !t.is_ref() {
                let same = match t {
                    Type::Float => f64::from_bits(a) == f64::from_bits(b),
                    _ => a == b,
                };
                if !same {
                    return Ok(false);
                }
                continue;
            }
            // An unset reference (`None`, or a slot not yet written) equals
            // only another.
            if a == 0 || b == 0 {
                if a != b {
                    return Ok(false);
                }
                continue;
            }
            if !matches!(t, Type::Str) && !seen.insert((ty, a, b)) {
                continue;
            }
            match t {
                Type::Str => {
                    if self.str_bytes(a) != self.str_bytes(b) {
                        return Ok(false);
                    }
                }
                Type::List(elem) => {
                    let (xs, ys) = (self.list_items(a), self.list_items(b));
                    if xs.len() != ys.len() {
                        return Ok(false);
                    }
                    work.extend(xs.iter().zip(ys).map(|(x, y)| (*elem, *x, *y)));
                }
                Type::Map(_, value) => {
                    let (ma, mb) = (self.table(a), self.table(b));
                    if ma.len() != mb.len() {
                        return Ok(false);
                    }
                    for at in 0..ma.held() {
                        let pair = match (ma, mb) {
                            (Table::Int(x), Table::Int(y)) => {
                                x.held_at(at).map(|(k, v)| (v, y.get(k)))
                            }
                            (Table::Str(x), Table::Str(y)) => {
                                x.held_at(at).map(|(k, v)| (v, y.get(k)))
                            }
                            _ => return Ok(false),
                        };
                        match pair {
                            Some((_, None)) => return Ok(false),
                            Some((v, Some(w))) => work.push((*value, v, w)),
                            None => {}
                        }
                    }
                }
                Type::Option(inner) => work.push((*inner, self.word(a + 1), self.word(b + 1))),
                Type::Struct(s) => {
                    let fields = &program.struct_def(*s).fields;
                    for (i, f) in fields.iter().enumerate() {
                        let at = 1 + i as u64;
                        work.push((f.ty, self.word(a + at), self.word(b + at)));
                    }
                }
                Type::Enum(e) => {
                    let (va, vb) = (b_of(self.header(a)), b_of(self.header(b)));
                    if va != vb {
                        return Ok(false);
                    }
                    let Some(variant) = program.enum_def(*e).variants.get(va as usize) else {
                        return Ok(false);
                    };
                    for (i, fty) in variant.fields.iter().enumerate() {
                        let at = 1 + i as u64;
                        work.push((*fty, self.word(a + at), self.word(b + at)));
                    }
                }
                // The compiler gives these no `==`; as handles, they are
                // equal when they are the same one.
                _ => {
                    if a != b {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }
}
