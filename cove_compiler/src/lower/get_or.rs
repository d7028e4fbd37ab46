//! `m.get(k).unwrap_or(d)` on a map, lowered to one builtin call,
//! `map.get-or`, in place of two.
//!
//! The pair is the commonest way a Cove program reads a map (a count's
//! `counts.set(k, counts.get(k).unwrap_or(0) + 1)`), and as two calls it
//! costs two builtin dispatches and an `Option` allocated for every key
//! found, only to be unwrapped by the next instruction. The fused call
//! looks the key up and gives the value or the default, allocating
//! nothing. It is chosen from the shape of the source, not from the IR
//! after the fact, because by then the `Option` is a register the emitter
//! may have reused; it costs the compiler one pattern match a method call.
//!
//! It applies only where moving the lookup after the default's evaluation
//! cannot be seen: the map is a variable and the default a literal or a
//! name, whose reading runs no code. Any other shape is lowered as written.

use cove_ir::builtins::Builtin;

use super::{FnCx, Val, Want};
use crate::ast::*;
use crate::resolve::ty_of;
use cove_ir::types::{Type, TypeId};

impl FnCx<'_> {
    /// The fused lookup of `base.unwrap_or(args)` when `base` is
    /// `map.get(key)` on a map variable and the default is plain; `None`
    /// (having emitted nothing) for any other call.
    pub(crate) fn map_get_or(
        &mut self,
        base: &Expr,
        name: &Ident,
        args: &[Expr],
        want: Want,
    ) -> Option<Val> {
        if name.name != "unwrap_or" || args.len() != 1 || !plain(&args[0]) {
            return None;
        }
        let (map, get_key, key, value) = self.map_variable_get(base)?;
        let recv = self.expr(map, None, Want::Any);
        let key_and_default = [get_key.clone(), args[0].clone()];
        Some(self.builtin_emit(
            Builtin::MapGetOr,
            &[key, value],
            value,
            Some(recv),
            &key_and_default,
            want,
        ))
    }
}

impl FnCx<'_> {
    /// `m.get(k)` where `m` is a map variable: `m`, `k`, and the map's key
    /// and value types; `None` for any other expression. The shape both
    /// this fusion and `get_match.rs`'s apply to.
    pub(super) fn map_variable_get<'e>(
        &self,
        e: &'e Expr,
    ) -> Option<(&'e Expr, &'e Expr, TypeId, TypeId)> {
        let ExprKind::Call(callee, get_args) = &e.kind else {
            return None;
        };
        let ExprKind::Field(map, get) = &callee.kind else {
            return None;
        };
        let ExprKind::Name(n) = &map.kind else {
            return None;
        };
        if get.name != "get" || get_args.len() != 1 {
            return None;
        }
        let (_, ty, _) = self.var(n)?;
        let &Type::Map(key, value) = ty_of(self.program, ty)? else {
            return None;
        };
        Some((map, &get_args[0], key, value))
    }
}

/// Whether evaluating the expression runs no code a map could see: a
/// literal number or truth value, a negated number, or a name.
fn plain(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Name(_) => true,
        ExprKind::Unary(_, inner) => matches!(inner.kind, ExprKind::Int(_) | ExprKind::Float(_)),
        _ => false,
    }
}
