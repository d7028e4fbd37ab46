//! `match m.get(k) { Some(v) => a, None => b }` on a map, lowered without
//! the `Option`.
//!
//! A memo or a count reads a map this way (`match memo.get(n) { Some(v)
//! => v, None => ... }`), and as written every key found allocates a
//! `Some` only for the next instruction to take it apart. It is lowered
//! as `match m.contains(k) { true => { let v = m.value-at(k, _); a },
//! false => b }`, the key evaluated once: a `contains` and a read of the
//! value found, with no allocation. The read is `map.value-at`, the read
//! of a walk's turn, given a turn no entry has; a `String` key's read uses
//! what `contains` found (the heap remembers a lookup for the read or set
//! of the same key that follows it), and an `Int` key's is the direct
//! index or the table's probe again.
//!
//! Still a `match`, and the arms' bodies are the source's, at their
//! places: a diagnostic of an arm (its type, a name it binds unused) reads
//! as it would unfused. It applies to the shape only: two arms with no
//! guard, `Some(name)` or `Some(_)` and `None` or `_`, in either order, on
//! a map variable's `get`. Any other `match` is lowered as written. It
//! costs the compiler one look at a `match`'s scrutinee and arms.
//!
//! One thing reads differently in a debugger: the arm's name is a `let`
//! of the read, so an arm that is only `v` gives it no instruction of its
//! own to be stopped at, where the unfused `Some(v)` bound it at the test.

use super::tuples::{let_stmt, method_expr, name_expr};
use super::{FnCx, Val, Want};
use crate::ast::*;
use cove_ir::types::TypeId;

/// The hidden variable holding the key (`__cove_` names are the
/// compiler's own, hidden from the debugger).
const KEY: &str = "__cove_got";

impl FnCx<'_> {
    /// The `match` over `scrutinee` with `arms`, lowered without its
    /// `Option` when it has the shape above; `None`, having emitted
    /// nothing, when it has not.
    pub(crate) fn map_get_match(
        &mut self,
        scrutinee: &Expr,
        arms: &[Arm],
        span: &Span,
        expected: Option<TypeId>,
        want: Want,
    ) -> Option<Val> {
        if arms.len() != 2 || arms.iter().any(|a| a.guard.is_some()) {
            return None;
        }
        let (some, none) = match (
            some_binding(&arms[0].pattern),
            some_binding(&arms[1].pattern),
        ) {
            (Some(b), None) if is_none(&arms[1].pattern) => (b, 1),
            (None, Some(b)) if is_none(&arms[0].pattern) => (b, 0),
            _ => return None,
        };
        let (map, get_key, _, _) = self.map_variable_get(scrutinee)?;
        let sspan = &scrutinee.span;
        // A key that is a variable is read where it is: nothing runs
        // between the test and the read that could change it.
        let named = matches!(get_key.kind, ExprKind::Name(_));
        let key = || {
            if named {
                get_key.clone()
            } else {
                name_expr(KEY, sspan)
            }
        };
        let map_of = || map.clone();
        let found = &arms[1 - none];
        let mut stmts = Vec::with_capacity(2);
        if let Some(name) = some {
            // A turn of -1, which names no entry (and loads as an
            // immediate): the read finds the key by itself.
            let nowhere = Expr {
                kind: ExprKind::Unary(
                    UnOp::Neg,
                    Box::new(Expr {
                        kind: ExprKind::Int(Some(1)),
                        span: sspan.clone(),
                    }),
                ),
                span: sspan.clone(),
            };
            let read = method_expr(map_of(), "value-at", vec![key(), nowhere], sspan);
            stmts.push(let_stmt(&name, read));
        }
        stmts.push(Stmt::Expr(found.body.clone()));
        let bool_arm = |value: bool, body: Expr, at: &Span| Arm {
            pattern: Pattern {
                kind: PatternKind::Bool(value),
                span: at.clone(),
            },
            guard: None,
            body,
        };
        let found_arm = bool_arm(
            true,
            Expr {
                kind: ExprKind::Block(Block {
                    stmts,
                    span: found.body.span.clone(),
                }),
                span: found.body.span.clone(),
            },
            &found.pattern.span,
        );
        let missing = &arms[none];
        let missing_arm = bool_arm(false, missing.body.clone(), &missing.pattern.span);
        let arms = if none == 1 {
            vec![found_arm, missing_arm]
        } else {
            vec![missing_arm, found_arm]
        };
        let test = method_expr(map_of(), "contains", vec![key()], sspan);
        let body = Expr {
            kind: ExprKind::Match(Box::new(test), arms),
            span: span.clone(),
        };
        if named {
            return Some(self.expr(&body, expected, want));
        }
        let block = Expr {
            kind: ExprKind::Block(Block {
                stmts: vec![
                    let_stmt(
                        &Ident {
                            name: KEY.to_string(),
                            span: sspan.clone(),
                        },
                        get_key.clone(),
                    ),
                    Stmt::Expr(body),
                ],
                span: span.clone(),
            }),
            span: span.clone(),
        };
        Some(self.expr(&block, expected, want))
    }
}

/// What `Some(p)` binds: `Some(Some(name))` for `Some(name)`, `Some(None)`
/// for `Some(_)`; `None` for any other pattern.
fn some_binding(p: &Pattern) -> Option<Option<Ident>> {
    let PatternKind::Variant(path, Some(parts)) = &p.kind else {
        return None;
    };
    if path.len() != 1 || path[0].name != "Some" || parts.len() != 1 {
        return None;
    }
    match &parts[0].kind {
        PatternKind::Wildcard => Some(None),
        PatternKind::Bind(name) if name != "None" => Some(Some(Ident {
            name: name.clone(),
            span: parts[0].span.clone(),
        })),
        _ => None,
    }
}

/// Whether the pattern is `None` or `_`.
fn is_none(p: &Pattern) -> bool {
    match &p.kind {
        PatternKind::Wildcard => true,
        PatternKind::Bind(name) => name == "None",
        PatternKind::Variant(path, None) => path.len() == 1 && path[0].name == "None",
        _ => false,
    }
}
