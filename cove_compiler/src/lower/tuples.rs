//! Tuples: `(Int, String)` types, `(1, "a")` values, `t.0`, `let (a, b) =
//! t`, `for (k, v) in map`, `for (i, x) in xs.enumerate()`, and the lists
//! `map.entries()` and `xs.enumerate()`.
//!
//! A tuple type is a struct the compiler makes on first use, one per list
//! of element types, named as the type is written (`(Int, String)`) with
//! fields `0`, `1`, ...: the IR, the verifier, the collector and the
//! debugger already know structs, so a tuple costs them nothing new, and
//! `t.0` is a field access. (The runtime prints a struct whose name starts
//! with `(` as a tuple.) The obvious other shape, a tuple kind in the IR,
//! would add an object kind, opcodes and verifier rules for what a struct
//! already is.
//!
//! The loops are rewritten into the loops Cove already has, with the
//! iterated value held in a hidden variable (`__cove_*`, a name no warning
//! reports and no program is expected to use): a map's entries are its
//! keys and a lookup each (insertion order, no list of pairs made; a key
//! removed before its turn is skipped), and an
//! enumeration is a counted loop over the list, with no tuples made at all.

use cove_ir::op::{Instr, Reg};
use cove_ir::program::{Field, Program, StructDef};
use cove_ir::types::{StructId, Type, TypeId};

use super::call::BareCallee;
use super::{FnCx, Val, Want};
use crate::ast::*;
use crate::diagnostics::Pending;
use crate::resolve::{ERROR, NEVER, ty_of, type_name};

/// The methods of `List` that take a function, which may do anything.
const LIST_METHODS_CALLING_BACK: [&str; 8] = [
    "sort_by",
    "sort_by_key",
    "map",
    "filter",
    "fold",
    "any",
    "all",
    "find",
];

impl FnCx<'_> {
    /// Whether running `body`, a loop's body whose loop binds `names` (of
    /// the types given), can remove no map's key: every call it can make
    /// is of a builtin function (`println`, `assert`, ...) or of a method
    /// of an `Int`, `Float`, `Bool`, `String`, `List` or `Map` value named
    /// by a variable (of a `List`, not one that takes a function; of a
    /// `Map`, not `remove`), none of which removes a key. A name the body
    /// binds itself is refused as a receiver, since the scope seen here is
    /// not the one it will have.
    fn removes_no_key(&self, body: &Block, names: [(&String, TypeId); 2]) -> bool {
        let mut bound = Vec::new();
        body.binds(&mut bound);
        let type_of = |n: &String| -> Option<TypeId> {
            if bound.contains(n) {
                return None;
            }
            match names.iter().find(|(name, _)| *name == n) {
                Some((_, t)) => Some(*t),
                None => self.var(n).map(|(_, t, _)| t),
            }
        };
        let allowed = |callee: &Expr| match &callee.kind {
            ExprKind::Name(n) => {
                !bound.contains(n)
                    && names.iter().all(|(name, _)| *name != n)
                    && self.var(n).is_none()
                    && matches!(self.bare_callee(n), BareCallee::Some | BareCallee::Builtin)
            }
            ExprKind::Field(receiver, method) => match &receiver.kind {
                ExprKind::Name(r) => match type_of(r) {
                    Some(t)
                        if [Program::INT, Program::FLOAT, Program::BOOL, Program::STR]
                            .contains(&t) =>
                    {
                        true
                    }
                    Some(t) => match ty_of(self.program, t) {
                        Some(Type::List(_)) => {
                            !LIST_METHODS_CALLING_BACK.contains(&method.name.as_str())
                        }
                        // A map's `set` adds a key at the end or changes a
                        // value in place: of its methods only `remove`
                        // takes a key away.
                        Some(Type::Map(..)) => method.name != "remove",
                        _ => false,
                    },
                    None => false,
                },
                _ => false,
            },
            _ => false,
        };
        body.calls_only(&allowed)
    }
}

/// The tuple type of `elems`, made on first use.
pub(crate) fn tuple_type(program: &mut Program, elems: &[TypeId]) -> TypeId {
    let found = program.structs.iter().position(|s| {
        s.name.starts_with('(')
            && s.fields.len() == elems.len()
            && s.fields.iter().zip(elems).all(|(f, t)| f.ty == *t)
    });
    let sid = match found {
        Some(i) => StructId(i as u16),
        None => {
            let names: Vec<String> = elems.iter().map(|t| type_name(program, *t)).collect();
            program.structs.push(StructDef {
                name: format!("({})", names.join(", ")),
                module: String::new(),
                exported: true,
                fields: elems
                    .iter()
                    .enumerate()
                    .map(|(i, t)| Field {
                        name: i.to_string(),
                        ty: *t,
                    })
                    .collect(),
            });
            StructId(program.structs.len() as u16 - 1)
        }
    };
    program.intern_type(Type::Struct(sid))
}

/// The element types of a tuple type, if `ty` is one.
pub(crate) fn tuple_elems(program: &Program, ty: TypeId) -> Option<(StructId, Vec<TypeId>)> {
    match ty_of(program, ty)? {
        Type::Struct(s) => {
            let def = program.struct_def(*s);
            def.name
                .starts_with('(')
                .then(|| (*s, def.fields.iter().map(|f| f.ty).collect()))
        }
        _ => None,
    }
}

pub(super) fn name_expr(name: &str, span: &Span) -> Expr {
    Expr {
        kind: ExprKind::Name(name.to_string()),
        span: span.clone(),
    }
}

pub(super) fn call_expr(callee: Expr, args: Vec<Expr>, span: &Span) -> Expr {
    Expr {
        kind: ExprKind::Call(Box::new(callee), args),
        span: span.clone(),
    }
}

pub(super) fn method_expr(recv: Expr, name: &str, args: Vec<Expr>, span: &Span) -> Expr {
    let field = Expr {
        kind: ExprKind::Field(
            Box::new(recv),
            Ident {
                name: name.to_string(),
                span: span.clone(),
            },
        ),
        span: span.clone(),
    };
    call_expr(field, args, span)
}

pub(super) fn let_stmt(name: &Ident, value: Expr) -> Stmt {
    Stmt::Let {
        mutable: false,
        name: name.clone(),
        ty: None,
        value,
    }
}

impl FnCx<'_> {
    /// `(a, b, ...)`.
    pub(crate) fn tuple_literal(
        &mut self,
        items: &[Expr],
        expected: Option<TypeId>,
        want: Want,
    ) -> Val {
        let hint = expected
            .and_then(|t| tuple_elems(self.program, t))
            .filter(|(_, e)| e.len() == items.len())
            .map(|(_, e)| e);
        if let Some(hint) = hint {
            return self.tuple_into_window(items, &hint, want);
        }
        let mut vals = Vec::with_capacity(items.len());
        let mut types = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let want_ty = hint.as_ref().map(|h| h[i]);
            let v = self.expr(item, want_ty, Want::Any);
            if let Some(t) = want_ty {
                self.check(t, v.ty, &item.span);
            }
            let v = self.finish(v, Want::Any);
            types.push(want_ty.unwrap_or(v.ty));
            vals.push(v);
        }
        if types.iter().any(|t| *t == ERROR || *t == NEVER) {
            for v in vals {
                self.release(v);
            }
            return Val::none(ERROR);
        }
        let ty = tuple_type(self.program, &types);
        let Some((sid, _)) = tuple_elems(self.program, ty) else {
            return Val::none(ERROR);
        };
        let classes: Vec<bool> = types.iter().map(|t| self.is_ref(*t)).collect();
        let base = self.e.alloc_window(&classes);
        for (i, v) in vals.iter().enumerate() {
            let r = Reg(base.0.wrapping_add(i as u16));
            if let Some(src) = v.reg
                && src != r
            {
                self.e.emit(Instr::Move { dst: r, src });
            }
        }
        for v in vals {
            self.release(v);
        }
        self.new_struct_from(base, classes.len(), sid, ty, want)
    }

    /// [`FnCx::tuple_literal`] when the context gives the tuple's type (a
    /// function's result, a typed `let`): the parts' registers are known
    /// before the parts, so each is computed straight into its place in
    /// the new struct's window, as a struct literal's fields are, with no
    /// move after it (`divmod`'s `(a / b, a % b)` lost its `move2`).
    fn tuple_into_window(&mut self, items: &[Expr], types: &[TypeId], want: Want) -> Val {
        let classes: Vec<bool> = types.iter().map(|t| self.is_ref(*t)).collect();
        let base = self.e.alloc_window(&classes);
        for (i, (item, &t)) in items.iter().zip(types).enumerate() {
            let slot = Reg(base.0.wrapping_add(i as u16));
            let v = self.expr(item, Some(t), Want::Into(slot));
            self.check(t, v.ty, &item.span);
        }
        // As the parts' own types are, in the other path: a part that
        // fails to check was reported by `check`.
        let broken = types.iter().any(|t| *t == ERROR || *t == NEVER);
        let ty = tuple_type(self.program, types);
        match tuple_elems(self.program, ty) {
            Some((sid, _)) if !broken => self.new_struct_from(base, classes.len(), sid, ty, want),
            _ => {
                self.e.free_window(base, classes.len());
                Val::none(ERROR)
            }
        }
    }

    /// `let (a, b) = value` (or `var`): each name bound to its part.
    pub(crate) fn let_tuple(&mut self, mutable: bool, names: &[Ident], value: &Expr) -> bool {
        let old = self.set_line(&value.span);
        // The tuple of a call of a Cove function (by its name, a method,
        // another module's, a type's) is taken apart by the call, when it
        // can be.
        let call = matches!(value.kind, ExprKind::Call(..));
        let asked = std::mem::replace(
            &mut self.unpack_at,
            call.then(|| (value.span.clone(), names.len())),
        );
        let v = self.expr(value, None, Want::Any);
        self.unpack_at = asked;
        if std::mem::take(&mut self.unpacked) {
            self.bind_fields(mutable, names, v);
            self.e.line = old;
            return true;
        }
        let v = self.finish(v, Want::Any);
        let never = v.ty == NEVER;
        self.bind_parts(mutable, names, v, &value.span);
        self.e.line = old;
        !never
    }

    /// Binds `names` to the fields a `call.unpack` left in the registers
    /// from `v`'s: each name its register, which becomes the variable's,
    /// and a `_`'s register freed.
    fn bind_fields(&mut self, mutable: bool, names: &[Ident], v: Val) {
        let (Some(base), Some((_, elems))) = (v.reg, tuple_elems(self.program, v.ty)) else {
            return;
        };
        let mut bound = Vec::new();
        for (i, (n, t)) in names.iter().zip(elems).enumerate() {
            let r = Reg(base.0 + i as u16);
            if n.name == "_" {
                self.e.free(r);
            } else {
                bound.push((n, t, r));
            }
        }
        self.declare_parts(mutable, names, bound);
    }

    /// Declares each of `bound`, a name of `names` with its part's type
    /// and register. A `var (a, b)` is one declaration: its names are
    /// reported unused one by one, but never assigned again only all
    /// together (see `warn_var_tuples`), since one `var` covers them all.
    fn declare_parts(&mut self, mutable: bool, names: &[Ident], bound: Vec<(&Ident, TypeId, Reg)>) {
        let group = match (names.first(), names.last()) {
            (Some(first), Some(last)) if mutable => Some(first.span.start..last.span.end),
            _ => None,
        };
        for (n, t, r) in bound {
            if mutable {
                self.declare_var(&n.name, t, r);
            } else {
                self.declare(&n.name, t, r, false, true);
            }
            self.declared_at(&n.span);
            self.in_group(group.clone());
        }
    }

    /// Binds `names` to the parts of the tuple `v`, then releases `v`.
    fn bind_parts(&mut self, mutable: bool, names: &[Ident], v: Val, span: &Span) {
        let parts = tuple_elems(self.program, v.ty);
        let Some((sid, elems)) = parts.clone().filter(|(_, e)| e.len() == names.len()) else {
            if v.ty != ERROR && v.ty != NEVER {
                let t = self.tname(v.ty);
                // A tuple of another size is E0505, as a tuple pattern of
                // the wrong size is; anything else is not a tuple at all.
                let (code, help) = match &parts {
                    Some((_, e)) => (
                        "E0505",
                        format!("write {} names, `_` for a part to skip", e.len()),
                    ),
                    None => (
                        "E0502",
                        "only a tuple is taken apart: `let (a, b) = (1, 2)`".to_string(),
                    ),
                };
                self.err(
                    Pending::new(
                        code,
                        span.clone(),
                        format!("{t} cannot be taken apart into {} names", names.len()),
                        format!("this is {t}"),
                    )
                    .help(help),
                );
            }
            self.release(v);
            for n in names {
                let r = self.e.alloc(false);
                self.e.emit(Instr::LoadInt { dst: r, value: 0 });
                self.declare(&n.name, ERROR, r, mutable, true);
            }
            return;
        };
        let mut bound = Vec::new();
        for (i, (n, t)) in names.iter().zip(&elems).enumerate() {
            if n.name == "_" {
                continue;
            }
            let r = self.e.alloc(self.is_ref(*t));
            if let Some(obj) = v.reg {
                self.e.emit(Instr::GetField {
                    dst: r,
                    obj,
                    ty: sid,
                    field: i as u16,
                });
            }
            bound.push((n, *t, r));
        }
        self.release(v);
        self.declare_parts(mutable, names, bound);
    }

    /// `for (a, b) in iter { body }`.
    pub(crate) fn for_tuple(&mut self, names: &[Ident], iter: &Expr, body: &Block) {
        let span = iter.span.clone();
        self.push_scope();
        // `for (i, x) in xs.enumerate()`: a counted loop, no tuples.
        if let ExprKind::Call(callee, args) = &iter.kind
            && args.is_empty()
            && let ExprKind::Field(list, m) = &callee.kind
            && m.name == "enumerate"
            && names.len() == 2
        {
            let l = self.expr(list, None, Want::Any);
            if matches!(ty_of(self.program, l.ty), Some(Type::List(_))) {
                self.hold("__cove_list", l);
                let i = Ident {
                    name: "__cove_index".to_string(),
                    span: span.clone(),
                };
                let len = method_expr(name_expr("__cove_list", &span), "length", vec![], &span);
                let range = Expr {
                    kind: ExprKind::Range(
                        Box::new(Expr {
                            kind: ExprKind::Int(Some(0)),
                            span: span.clone(),
                        }),
                        Box::new(len),
                    ),
                    span: span.clone(),
                };
                let mut stmts = Vec::new();
                if names[0].name != "_" {
                    stmts.push(let_stmt(&names[0], name_expr("__cove_index", &span)));
                }
                if names[1].name != "_" {
                    let item = Expr {
                        kind: ExprKind::Index(
                            Box::new(name_expr("__cove_list", &span)),
                            Box::new(name_expr("__cove_index", &span)),
                        ),
                        span: span.clone(),
                    };
                    stmts.push(let_stmt(&names[1], item));
                }
                stmts.extend(body.stmts.iter().cloned());
                let body = Block {
                    stmts,
                    span: body.span.clone(),
                };
                self.stmt(&Stmt::For {
                    name: i,
                    iter: range,
                    body,
                });
                self.pop_scope(None);
                return;
            }
            self.release(l);
            self.err(Pending::new(
                "E0406",
                list.span.clone(),
                "`enumerate` is a method of lists",
                "not a list",
            ));
            self.pop_scope(None);
            return;
        }
        let v = self.expr(iter, None, Want::Any);
        let entry_types = match ty_of(self.program, v.ty) {
            Some(Type::Map(k, v)) => Some((*k, *v)),
            _ => None,
        };
        let is_map = entry_types.is_some();
        let key = Ident {
            name: "__cove_key".to_string(),
            span: span.clone(),
        };
        if is_map && names.len() == 2 {
            // `for (k, v) in map`: its keys as the loop starts, in order,
            // and a lookup each as its turn begins; a key the body removed
            // before its turn is skipped. The turn's number goes with the
            // key as a hint (`map.has-at`, `map.value-at`): a map that has
            // lost no entry since holds the key at that position, so a
            // turn costs two reads and no hash, and no `Option` is made.
            self.hold("__cove_map", v);
            let keys = method_expr(name_expr("__cove_map", &span), "keys", vec![], &span);
            let keys = self.expr(&keys, None, Want::Any);
            self.hold("__cove_keys", keys);
            let turn = Ident {
                name: "__cove_turn".to_string(),
                span: span.clone(),
            };
            let at_turn = |method: &str| {
                method_expr(
                    name_expr("__cove_map", &span),
                    method,
                    vec![
                        name_expr("__cove_key", &span),
                        name_expr("__cove_turn", &span),
                    ],
                    &span,
                )
            };
            let this_key = Expr {
                kind: ExprKind::Index(
                    Box::new(name_expr("__cove_keys", &span)),
                    Box::new(name_expr("__cove_turn", &span)),
                ),
                span: span.clone(),
            };
            // The turn's body runs inside `if map.has-at(key, turn) { ... }`:
            // one conditional jump past it for a removed key. Where the body
            // can remove no key (`FnCx::removes_no_key`), every key listed
            // is there at its turn and the test is left out: the turn
            // reads its value and nothing more.
            let asks = !entry_types.is_some_and(|(k, v)| {
                self.removes_no_key(body, [(&names[0].name, k), (&names[1].name, v)])
            });
            let mut inner = Vec::new();
            if names[0].name != "_" {
                inner.push(let_stmt(&names[0], name_expr("__cove_key", &span)));
            }
            if names[1].name != "_" {
                inner.push(let_stmt(&names[1], at_turn("value-at")));
            }
            inner.extend(body.stmts.iter().cloned());
            let mut stmts = vec![let_stmt(&key, this_key)];
            if asks {
                stmts.push(Stmt::Expr(Expr {
                    kind: ExprKind::If(
                        Box::new(at_turn("has-at")),
                        Block {
                            stmts: inner,
                            span: body.span.clone(),
                        },
                        None,
                    ),
                    span: span.clone(),
                }));
            } else {
                stmts.extend(inner);
            }
            let turns = Expr {
                kind: ExprKind::Range(
                    Box::new(Expr {
                        kind: ExprKind::Int(Some(0)),
                        span: span.clone(),
                    }),
                    Box::new(method_expr(
                        name_expr("__cove_keys", &span),
                        "length",
                        vec![],
                        &span,
                    )),
                ),
                span: span.clone(),
            };
            self.stmt(&Stmt::For {
                name: turn,
                iter: turns,
                body: Block {
                    stmts,
                    span: body.span.clone(),
                },
            });
        } else {
            // A list of tuples: each taken apart.
            let elem = match ty_of(self.program, v.ty) {
                Some(Type::List(t)) => Some(*t),
                _ => None,
            };
            if elem.and_then(|t| tuple_elems(self.program, t)).is_none() && v.ty != ERROR {
                let t = self.tname(v.ty);
                self.err(
                    Pending::new(
                        "E0406",
                        iter.span.clone(),
                        format!("`for ({}, ...)` cannot loop over {t}", names[0].name),
                        format!("this is {t}"),
                    )
                    .help("loop over a list of tuples, a map, or `list.enumerate()`"),
                );
                self.release(v);
                self.pop_scope(None);
                return;
            }
            self.hold("__cove_tuples", v);
            let mut stmts = vec![Stmt::LetTuple {
                mutable: false,
                names: names.to_vec(),
                value: name_expr("__cove_item", &span),
            }];
            stmts.extend(body.stmts.iter().cloned());
            self.stmt(&Stmt::For {
                name: Ident {
                    name: "__cove_item".to_string(),
                    span: span.clone(),
                },
                iter: name_expr("__cove_tuples", &span),
                body: Block {
                    stmts,
                    span: body.span.clone(),
                },
            });
        }
        self.pop_scope(None);
    }

    /// Keeps `v` in a hidden variable of the current scope.
    fn hold(&mut self, name: &str, v: Val) {
        let ty = if v.ty == NEVER { ERROR } else { v.ty };
        let reg = self.owned(v).unwrap_or_else(|| {
            let r = self.e.alloc(false);
            self.e.emit(Instr::LoadInt { dst: r, value: 0 });
            r
        });
        self.declare(name, ty, reg, false, true);
    }

    /// `map.entries()` and `xs.enumerate()` as values: a new list of
    /// tuples; `Err(recv)` when `recv` is of neither kind.
    pub(crate) fn tuple_list(
        &mut self,
        recv: Val,
        name: &Ident,
        span: &Span,
        want: Want,
    ) -> Result<Val, Val> {
        let (parts, source) = match (name.name.as_str(), ty_of(self.program, recv.ty)) {
            ("entries", Some(Type::Map(k, v))) => (vec![*k, *v], true),
            ("enumerate", Some(Type::List(t))) => (vec![Program::INT, *t], false),
            _ => return Err(recv),
        };
        let tuple = tuple_type(self.program, &parts);
        let list_ty = self.program.intern_type(Type::List(tuple));
        self.push_scope();
        self.hold("__cove_src", recv);
        let out = self.e.alloc(true);
        self.e.emit(Instr::NewList {
            dst: out,
            ty: tuple,
            base: Reg(0),
            count: 0,
        });
        self.declare("__cove_out", list_ty, out, false, false);
        let src = || name_expr("__cove_src", span);
        let push = |item: Expr| {
            Stmt::Expr(method_expr(
                name_expr("__cove_out", span),
                "push",
                vec![item],
                span,
            ))
        };
        let ident = |n: &str| Ident {
            name: n.to_string(),
            span: span.clone(),
        };
        let lp = if source {
            let k = name_expr("__cove_k", span);
            let value = method_expr(
                method_expr(src(), "get", vec![k.clone()], span),
                "unwrap",
                vec![],
                span,
            );
            Stmt::For {
                name: ident("__cove_k"),
                iter: method_expr(src(), "keys", vec![], span),
                body: Block {
                    stmts: vec![push(Expr {
                        kind: ExprKind::Tuple(vec![k, value]),
                        span: span.clone(),
                    })],
                    span: span.clone(),
                },
            }
        } else {
            let i = name_expr("__cove_i", span);
            let item = Expr {
                kind: ExprKind::Index(Box::new(src()), Box::new(i.clone())),
                span: span.clone(),
            };
            Stmt::For {
                name: ident("__cove_i"),
                iter: Expr {
                    kind: ExprKind::Range(
                        Box::new(Expr {
                            kind: ExprKind::Int(Some(0)),
                            span: span.clone(),
                        }),
                        Box::new(method_expr(src(), "length", vec![], span)),
                    ),
                    span: span.clone(),
                },
                body: Block {
                    stmts: vec![push(Expr {
                        kind: ExprKind::Tuple(vec![i, item]),
                        span: span.clone(),
                    })],
                    span: span.clone(),
                },
            }
        };
        self.stmt(&lp);
        self.pop_scope(None);
        let v = Val {
            reg: Some(out),
            ty: list_ty,
            temp: true,
        };
        Ok(self.finish(v, want))
    }
}
