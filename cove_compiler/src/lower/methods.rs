//! Calls of methods on user types: `p.norm()` and `Point.new(1, 2)`.
//!
//! The parser makes each method of `impl Point` a function named
//! `Point.norm` of the module that declares `Point` (see
//! `parser/impls.rs`), so finding one is a lookup of that name in the
//! type's own module, and calling one is calling that function with the
//! receiver as its first argument: no dispatch at run time, no table, the
//! same `call` a function gets. A struct's field holding a function value
//! is called the same way (`shape.area()` where `area` is a field), when
//! the type has no method of that name.

use cove_ir::program::FunctionId;
use cove_ir::types::{Type, TypeId};

use super::{FnCx, Val, Want};
use crate::ast::*;
use crate::diagnostics::Pending;
use crate::resolve::ty_of;

impl FnCx<'_> {
    /// The function `T.name` of the module that declares user type `ty`,
    /// and that module's index; `None` when `ty` is not a struct or enum
    /// or has no such function.
    pub(crate) fn type_function(&self, ty: TypeId, name: &str) -> Option<(FunctionId, usize)> {
        let (type_name, module) = match ty_of(self.program, ty)? {
            Type::Struct(s) => {
                let d = self.program.struct_def(*s);
                (d.name.clone(), d.module.clone())
            }
            Type::Enum(e) => {
                let d = self.program.enum_def(*e);
                (d.name.clone(), d.module.clone())
            }
            _ => return None,
        };
        let m = self.scopes.iter().position(|s| s.name == module)?;
        let fid = *self.scopes[m]
            .functions
            .get(&format!("{type_name}.{name}"))?;
        Some((fid, m))
    }

    /// Reports a call from another module of a method that is not
    /// `export`ed; true if it may be called.
    pub(crate) fn method_visible(&mut self, fid: FunctionId, module: usize, at: &Ident) -> bool {
        let f = &self.program.functions[fid.index()];
        if module == self.module || f.exported {
            return true;
        }
        let (name, owner) = (f.name.clone(), f.module.clone());
        self.err(
            Pending::new(
                "E0305",
                at.span.clone(),
                format!("`{name}` is private to module `{owner}`"),
                "not exported",
            )
            .help(format!(
                "mark it `export fn` in the `impl` in {owner}.cove to use it here"
            )),
        );
        false
    }

    /// `Type.name` or `module.Type.name` as a callee: the function of
    /// that type's `impl`, and the module that declares it.
    pub(crate) fn static_method(
        &mut self,
        base: &Expr,
        name: &Ident,
    ) -> Option<(FunctionId, usize)> {
        let path = match &base.kind {
            ExprKind::Name(t) if self.scopes[self.module].types.contains_key(t) => vec![Ident {
                name: t.clone(),
                span: base.span.clone(),
            }],
            ExprKind::Field(m, t) => match &m.kind {
                ExprKind::Name(m) if self.scopes[self.module].imports.contains_key(m) => vec![
                    Ident {
                        name: m.clone(),
                        span: base.span.start..base.span.start + m.len(),
                    },
                    t.clone(),
                ],
                _ => return None,
            },
            _ => return None,
        };
        let ty = self.user_type(&path)?;
        self.type_function(ty, &name.name)
    }

    /// Calls method `fid` with `recv` as its `self`.
    pub(crate) fn call_method(
        &mut self,
        fid: FunctionId,
        label: &str,
        recv: Val,
        args: &[Expr],
        span: &Span,
        want: Want,
    ) -> Val {
        self.call_with(
            super::call::Callee::User(fid),
            label,
            Some(recv),
            args,
            span,
            want,
        )
    }

    /// `recv.name(args)` where `recv` is of a user type with a method or a
    /// function-valued field `name`; `Err(recv)` gives the receiver back
    /// when it has neither.
    pub(crate) fn user_method_call(
        &mut self,
        recv: Val,
        name: &Ident,
        args: &[Expr],
        span: &Span,
        want: Want,
    ) -> Result<Val, Val> {
        let found = self.type_function(recv.ty, &name.name);
        if let Some((fid, module)) = found
            && !self.scopes[module].methods.contains(&fid)
        {
            // A function of the `impl` without `self` is the type's, not
            // the value's: `Point.new(1, 2)`, never `p.new(1, 2)`.
            let t = self.tname(recv.ty);
            self.err(
                Pending::new(
                    "E0215",
                    name.span.clone(),
                    format!(
                        "`{t}.{}` has no `self`, so it is not a method of a {t} value",
                        name.name
                    ),
                    "called on a value",
                )
                .help(format!(
                    "call it through the type, `{t}.{}(...)`, or make `self` its first parameter",
                    name.name
                )),
            );
            self.release(recv);
            self.discard_args(args);
            return Ok(Val::none(crate::resolve::ERROR));
        }
        if let Some((fid, module)) = found {
            if !self.method_visible(fid, module, name) {
                self.release(recv);
                for a in args {
                    let v = self.expr(a, None, Want::Discard);
                    self.release(v);
                }
                return Ok(Val::none(crate::resolve::ERROR));
            }
            let label = self.program.functions[fid.index()].name.clone();
            return Ok(self.call_method(fid, &label, recv, args, span, want));
        }
        // A field holding a function value.
        if let Some(Type::Struct(sid)) = ty_of(self.program, recv.ty).cloned() {
            let def = self.program.struct_def(sid);
            if let Some(index) = def.fields.iter().position(|f| f.name == name.name) {
                let fty = def.fields[index].ty;
                if matches!(ty_of(self.program, fty), Some(Type::Func(..)))
                    && let Some(obj) = recv.reg
                {
                    let r = self.e.alloc(true);
                    self.e.emit(cove_ir::op::Instr::GetField {
                        dst: r,
                        obj,
                        ty: sid,
                        field: index as u16,
                    });
                    self.release(recv);
                    let f = Val {
                        reg: Some(r),
                        ty: fty,
                        temp: true,
                    };
                    return Ok(self.call_value(f, args, span, want));
                }
            }
        }
        Err(recv)
    }
}
