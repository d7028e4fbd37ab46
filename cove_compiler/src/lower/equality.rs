//! `==` and `!=` on structs, enums, lists, maps and options: structural.
//!
//! The basic types compare with their own typed instructions (`eq.int`,
//! `eq.str`, ...); any other type whose parts all have equality compares
//! with one `eq.value` of that type, which the runtime walks deeply
//! (`!=` adds a `not.bool`). A type has equality unless some part of it is
//! a `Task` or a `Channel`, which are handles with no value to compare, or
//! a function, whose code has no equality worth the name (two closures of
//! one function expression with equal captures may still differ in what a
//! captured `var` will hold): Go and Rust refuse `==` on functions too.

use std::collections::HashSet;

use cove_ir::op::{Instr, Reg};
use cove_ir::program::Program;
use cove_ir::types::{Type, TypeId};

use super::{FnCx, Val, Want};
use crate::resolve::ty_of;

impl FnCx<'_> {
    /// Whether values of `ty` can be compared with `==`. The walk is over
    /// the type graph, each type once, so a recursive struct is no trouble.
    pub(crate) fn has_equality(&self, ty: TypeId) -> bool {
        let mut seen = HashSet::new();
        let mut work = vec![ty];
        while let Some(t) = work.pop() {
            if !seen.insert(t) {
                continue;
            }
            match ty_of(self.program, t) {
                None | Some(Type::Task(_) | Type::Channel(_) | Type::Func(..)) => return false,
                Some(Type::List(e) | Type::Option(e)) => work.push(*e),
                Some(Type::Map(k, v)) => work.extend([*k, *v]),
                Some(Type::Struct(s)) => {
                    work.extend(self.program.struct_def(*s).fields.iter().map(|f| f.ty));
                }
                Some(Type::Enum(e)) => work.extend(
                    self.program
                        .enum_def(*e)
                        .variants
                        .iter()
                        .flat_map(|v| v.fields.iter().copied()),
                ),
                Some(_) => {}
            }
        }
        true
    }

    /// `a == b` (or `!=` when `negated`) on two registers of type `ty`.
    pub(crate) fn structural_eq(
        &mut self,
        negated: bool,
        a: Reg,
        b: Reg,
        ty: TypeId,
        want: Want,
    ) -> Val {
        let dst = self.dst(want, false);
        self.e.emit(Instr::EqValue { dst, a, b, ty });
        if negated {
            self.e.emit(Instr::NotBool { dst, a: dst });
        }
        self.done(dst, Program::BOOL, want)
    }
}
