//! Uses of top-level constants and of `Int.MAX` / `Int.MIN` in a body.
//!
//! A constant was evaluated by [`crate::consts`] before any body is
//! lowered; a use lowers as the literal it evaluated to, so `LIMIT` costs
//! what `1_000_000` would. A local variable of the same name shadows it,
//! as it would shadow a function. A constant in error lowers as an
//! already-reported value, so its uses add nothing to the report.

use cove_ir::types::TypeId;

use super::{FnCx, Val, Want};
use crate::ast::{Expr, ExprKind, Ident, Span};
use crate::consts::{ConstValue, int_bound};
use crate::diagnostics::Pending;
use crate::resolve::ERROR;

impl FnCx<'_> {
    /// The value of `name` if it names a constant of module `module`.
    pub(crate) fn constant_use(
        &mut self,
        module: usize,
        name: &str,
        span: &Span,
        want: Want,
    ) -> Option<Val> {
        let value = self.scopes[module].consts.get(name)?.value.clone();
        Some(self.lower_const(value, span, want))
    }

    fn lower_const(&mut self, value: Option<ConstValue>, span: &Span, want: Want) -> Val {
        match value {
            Some(v) => self.expr(&v.to_expr(span), None, want),
            None => Val::none(ERROR),
        }
    }

    /// `base.field` when it names a constant: `Int.MAX`, `Int.MIN`, or an
    /// imported module's `geo.PI` (reported if not exported).
    pub(crate) fn qualified_constant(
        &mut self,
        base: &Expr,
        field: &Ident,
        span: &Span,
        want: Want,
    ) -> Option<Val> {
        let ExprKind::Name(b) = &base.kind else {
            return None;
        };
        if self.var(b).is_some() {
            return None;
        }
        let scope = &self.scopes[self.module];
        if b == "Int" && !scope.types.contains_key(b) && !scope.imports.contains_key(b) {
            let Some(v) = int_bound(&field.name) else {
                self.err(
                    Pending::new(
                        "E0704",
                        span.clone(),
                        format!("`Int` has no constant `{}`", field.name),
                        "not `Int.MAX` or `Int.MIN`",
                    )
                    .help("Int's constants are `Int.MAX` and `Int.MIN`"),
                );
                return Some(Val::none(ERROR));
            };
            return Some(self.lower_const(Some(ConstValue::Int(v)), span, want));
        }
        let &target = scope.imports.get(b)?;
        let def = self.scopes[target].consts.get(&field.name)?.clone();
        if !def.exported {
            self.err(
                Pending::new(
                    "E0305",
                    field.span.clone(),
                    format!("the constant `{b}.{}` is not exported", field.name),
                    "private to its module",
                )
                .help(format!(
                    "write `export const {}` in `{b}` to use it here",
                    field.name
                )),
            );
            return Some(Val::none(ERROR));
        }
        Some(self.lower_const(def.value, span, want))
    }

    /// The type of `name` if it names a constant of this module, for the
    /// checker's look-ahead.
    pub(crate) fn constant_type(&self, name: &str) -> Option<TypeId> {
        self.scopes[self.module].consts.get(name).map(|c| c.ty)
    }
}
