//! Function values: function expressions and the closures they make, a
//! named function used as a value, the cells that captured `var`s live in,
//! and calls through a value.
//!
//! A function expression is lowered to a function of its own (named
//! `outer.<closure@LINE>`, so reports and backtraces read as the source
//! does) and, where it stands, a `new.closure` that copies what it
//! captures into a heap object. A closure that captures anything takes its
//! environment as a last, hidden parameter: a struct of the captures,
//! which the body reads once at entry into ordinary registers. So a
//! captured `let` costs one load a call, not one a use.
//!
//! A `var` that some function expression of its function names lives in a
//! *cell*, a one-field heap struct, from its declaration: the closure
//! copies the cell's reference, so the closure and the scope share the
//! variable (Go's and Swift's semantics). Which variables need a cell is
//! found before the body is lowered, by the names function expressions
//! use ([`captured_names`]); it over-approximates (a name shadowed inside
//! the closure still boxes the outer `var`), which costs a cell, never a
//! wrong answer. The obvious other shape, boxing every `var`, would make
//! every loop counter a heap load.
//!
//! The other obvious shape for captures, passing them as extra arguments
//! at each call, cannot work: a call through a value of type
//! `fn(Int) -> Int` does not know what its callee captured.

use std::collections::HashSet;

use cove_ir::op::{Instr, Reg};
use cove_ir::program::{Field, Function, FunctionId, Program, StructDef};
use cove_ir::types::{StructId, Type, TypeId};

use super::{FnCx, Origin, Val, Want};
use crate::ast::*;
use crate::diagnostics::Pending;
use crate::emit::Emitter;
use crate::resolve::{ERROR, NEVER, ty_of};

/// The names used inside the function expressions of `body`: the `var`s
/// among them that are in scope where such an expression stands must live
/// in cells.
pub(crate) fn captured_names(body: &Block) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut walker = Names {
        inside: 0,
        out: &mut out,
    };
    walker.block(body);
    out
}

/// Every name used in `body` (shadowing is ignored: over-approximated),
/// in the order of first use, so captures are in a deterministic order.
fn names_used(body: &Block) -> Vec<String> {
    let mut order = Vec::new();
    let mut seen = HashSet::new();
    for s in &body.stmts {
        visit_stmt(s, &mut |e, enter| {
            if let (ExprKind::Name(n), true) = (&e.kind, enter)
                && seen.insert(n.clone())
            {
                order.push(n.clone());
            }
        });
    }
    order
}

/// The walk behind [`captured_names`]: collects the names used while
/// inside at least one function expression.
struct Names<'a> {
    inside: usize,
    out: &'a mut HashSet<String>,
}

impl Names<'_> {
    fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            visit_stmt(s, &mut |e, enter| match &e.kind {
                ExprKind::Name(n) if self.inside > 0 => {
                    self.out.insert(n.clone());
                }
                ExprKind::Func(_) if enter => self.inside += 1,
                ExprKind::Func(_) => self.inside -= 1,
                _ => {}
            });
        }
    }
}

/// Calls `f(e, true)` on entering each expression of `e` (itself
/// included) and `f(e, false)` on leaving it, in source order, blocks'
/// statements included. Recursive: the parser's nesting limit bounds the
/// depth.
fn visit(e: &Expr, f: &mut dyn FnMut(&Expr, bool)) {
    f(e, true);
    let block = |b: &Block, f: &mut dyn FnMut(&Expr, bool)| {
        for s in &b.stmts {
            visit_stmt(s, f);
        }
    };
    match &e.kind {
        ExprKind::Str(pieces) => {
            for p in pieces {
                if let Piece::Expr(x) | Piece::Formatted(x, ..) = p {
                    visit(x, f);
                }
            }
        }
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) | ExprKind::Range(a, b) => {
            visit(a, f);
            visit(b, f);
        }
        ExprKind::Assign(a, _, b) => {
            visit(a, f);
            visit(b, f);
        }
        ExprKind::Unary(_, a) | ExprKind::Field(a, _) | ExprKind::Spawn(a) => visit(a, f),
        ExprKind::Call(c, args) => {
            visit(c, f);
            for a in args {
                visit(a, f);
            }
        }
        ExprKind::StructLit(_, fields) => {
            for (_, v) in fields {
                visit(v, f);
            }
        }
        ExprKind::List(items) | ExprKind::New(_, items) | ExprKind::Tuple(items) => {
            for a in items {
                visit(a, f);
            }
        }
        ExprKind::If(c, then, els) => {
            visit(c, f);
            block(then, f);
            if let Some(x) = els {
                visit(x, f);
            }
        }
        ExprKind::Match(s, arms) => {
            visit(s, f);
            for a in arms {
                visit(&a.body, f);
            }
        }
        ExprKind::Block(b) => block(b, f),
        ExprKind::Return(Some(v)) => visit(v, f),
        ExprKind::Func(fe) => block(&fe.body, f),
        _ => {}
    }
    f(e, false);
}

/// [`visit`] over the expressions of a statement.
fn visit_stmt(s: &Stmt, f: &mut dyn FnMut(&Expr, bool)) {
    match s {
        Stmt::Let { value, .. } => visit(value, f),
        Stmt::Assign { target, value, .. } => {
            visit(target, f);
            visit(value, f);
        }
        Stmt::While { cond, body } => {
            visit(cond, f);
            for s in &body.stmts {
                visit_stmt(s, f);
            }
        }
        Stmt::For { iter, body, .. } => {
            visit(iter, f);
            for s in &body.stmts {
                visit_stmt(s, f);
            }
        }
        Stmt::Expr(e) => visit(e, f),
        Stmt::LetTuple { value, .. } => visit(value, f),
        Stmt::ForTuple { iter, body, .. } => {
            visit(iter, f);
            for s in &body.stmts {
                visit_stmt(s, f);
            }
        }
    }
}

/// A variable a closure captures: its name, the type of what is copied
/// (a cell's struct for a `var`), the register it is copied from, the
/// cell's struct when it is a `var`, and what declared it (for the
/// message when the closure assigns it).
struct Capture {
    name: String,
    stored: TypeId,
    value_ty: TypeId,
    reg: Reg,
    cell: Option<StructId>,
    origin: Origin,
}

impl FnCx<'_> {
    /// The struct of a cell holding a `ty`, made on first need.
    pub(crate) fn cell_struct(&mut self, ty: TypeId) -> StructId {
        if let Some(i) = self
            .program
            .structs
            .iter()
            .position(|s| s.name == "<cell>" && s.fields.len() == 1 && s.fields[0].ty == ty)
        {
            return StructId(i as u16);
        }
        let module = self.scopes[self.module].name.clone();
        self.program.structs.push(StructDef {
            name: "<cell>".to_string(),
            module,
            exported: false,
            fields: vec![Field {
                name: "value".to_string(),
                ty,
            }],
        });
        let id = StructId(self.program.structs.len() as u16 - 1);
        self.program.intern_type(Type::Struct(id));
        id
    }

    /// Declares `var name` whose first value is in `value`: in a cell when
    /// a function expression of this function names it.
    pub(crate) fn declare_var(&mut self, name: &str, ty: TypeId, value: Reg) {
        if !self.boxed.contains(name) || ty == ERROR || ty == NEVER {
            self.declare(name, ty, value, true, true);
            return;
        }
        let cell = self.cell_struct(ty);
        let cell_ty = self.program.intern_type(Type::Struct(cell));
        let r = self.e.alloc(true);
        self.e.emit(Instr::NewStruct {
            dst: r,
            ty: cell,
            base: value,
            count: 1,
        });
        self.e.free(value);
        self.declare(name, cell_ty, r, true, true);
        if let Some(v) = self.vars.last_mut() {
            v.cell = Some((cell, ty));
        }
    }

    /// The cell a variable lives in, and the type of its value.
    pub(crate) fn cell_of(&self, name: &str) -> Option<(StructId, TypeId)> {
        self.innermost(name).and_then(|j| self.vars[j].cell)
    }

    /// A named function as a value: a closure without captures.
    pub(crate) fn function_value(&mut self, func: FunctionId, want: Want) -> Val {
        let f = &self.program.functions[func.index()];
        let ty = Type::Func(f.params.clone(), f.result);
        let ty = self.program.intern_type(ty);
        // A constant, made once a task: the value has no captures, so
        // every evaluation of `square` may be the same object.
        let constant = self.constant(cove_ir::program::Constant::Function(func));
        let dst = self.dst(want, true);
        self.e.emit(Instr::LoadConst { dst, constant });
        self.done(dst, ty, want)
    }

    /// Calls the function value `f` (already evaluated) on `args`.
    pub(crate) fn call_value(&mut self, f: Val, args: &[Expr], span: &Span, want: Want) -> Val {
        let Some(Type::Func(params, result)) = ty_of(self.program, f.ty).cloned() else {
            if f.ty != ERROR && f.ty != NEVER {
                let t = self.tname(f.ty);
                self.err(Pending::new(
                    "E0210",
                    span.clone(),
                    format!("a value of type {t} cannot be called"),
                    "not a function",
                ));
            }
            self.release(f);
            for a in args {
                let v = self.expr(a, None, Want::Discard);
                self.release(v);
            }
            return Val::none(ERROR);
        };
        if params.len() != args.len() {
            let t = self.tname(f.ty);
            self.err(Pending::new(
                "E0211",
                span.clone(),
                format!(
                    "a {t} takes {} argument{}, but {} {} given",
                    params.len(),
                    if params.len() == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
                format!("expected {} arguments", params.len()),
            ));
            self.release(f);
            for a in args {
                let v = self.expr(a, None, Want::Discard);
                self.release(v);
            }
            return Val::none(ERROR);
        }
        let f = self.finish(f, Want::Any);
        let Some(callee) = f.reg else {
            return Val::none(ERROR);
        };
        let mut classes: Vec<bool> = params.iter().map(|t| self.is_ref(*t)).collect();
        // The closure's slot, which the VM writes as it calls: a num
        // register, so that it is no ref register of this frame for a
        // return to clear (see `Instr::CallClosure`).
        classes.push(false);
        let base = self.e.call_window(&classes);
        for (i, (a, p)) in args.iter().zip(&params).enumerate() {
            let reg = Reg(base.0.wrapping_add(i as u16));
            let v = self.expr(a, Some(*p), Want::Into(reg));
            self.check(*p, v.ty, &a.span);
        }
        self.e.free_window(base, classes.len());
        self.release(f);
        let dst = self.dst(want, self.is_ref(result));
        self.e.emit(Instr::CallClosure {
            dst,
            callee,
            base,
            count: params.len() as u16,
        });
        self.done(dst, result, want)
    }

    /// `fn(params) -> T { body }`: lowers the body to a function of its
    /// own and makes the closure here.
    pub(crate) fn func_expr(
        &mut self,
        fe: &FnExpr,
        span: &Span,
        expected: Option<TypeId>,
        want: Want,
    ) -> Val {
        // How many parameters the function type expected here has, when one is.
        let arity = match expected.and_then(|t| ty_of(self.program, t)) {
            Some(Type::Func(ps, _)) => Some(ps.len()),
            _ => self.param_hint.as_ref().map(Vec::len),
        };
        let hint = match expected.and_then(|t| ty_of(self.program, t)) {
            Some(Type::Func(ps, r)) if ps.len() == fe.params.len() => Some((ps.clone(), Some(*r))),
            _ => self
                .param_hint
                .take()
                .filter(|ps| ps.len() == fe.params.len())
                .map(|ps| (ps, None)),
        };
        let mut params = Vec::with_capacity(fe.params.len());
        let mut broken = false;
        for (i, (name, ty)) in fe.params.iter().enumerate() {
            let t = match (ty, &hint) {
                (Some(t), _) => self.resolve_type(t),
                (None, Some((ps, _))) => ps[i],
                // Expected where a type is already in error: said already.
                (None, None) if expected == Some(ERROR) => ERROR,
                (None, None) if arity.is_some_and(|n| n != fe.params.len()) => {
                    // A function of the wrong arity where a function type
                    // is expected (`xs.map(fn(x, y) { x })`): said once, for
                    // the whole list, not as a type missing from each.
                    if !broken {
                        let n = arity.unwrap_or(0);
                        let end = fe.params.last().map_or(span.start, |(p, _)| p.span.end);
                        let start = fe.params.first().map_or(span.start, |(p, _)| p.span.start);
                        self.err(
                            Pending::new(
                                "E0115",
                                start..end,
                                format!(
                                    "this function takes {} parameter{}, but a function of {n} is expected here",
                                    fe.params.len(),
                                    if fe.params.len() == 1 { "" } else { "s" },
                                ),
                                format!("{n} expected"),
                            )
                            .help(format!(
                                "write {n} parameter{}",
                                if n == 1 { "" } else { "s" }
                            )),
                        );
                    }
                    ERROR
                }
                (None, None) => {
                    self.err(
                        Pending::new(
                            "E0106",
                            name.span.clone(),
                            format!("cannot tell the type of the parameter `{}`", name.name),
                            "no type written, and none expected here",
                        )
                        .help(format!("write its type: `{}: Int`", name.name)),
                    );
                    ERROR
                }
            };
            broken |= t == ERROR;
            params.push(t);
        }
        // The expected result counts only for a function of the expected
        // parameters: one whose written types differ is a mismatch as a
        // whole, reported once where it is used, not in its body too.
        let fits = hint.as_ref().is_some_and(|(ps, _)| *ps == params);
        let declared = match (&fe.result, &hint) {
            (Some(t), _) => Some(self.resolve_type(t)),
            (None, Some((_, r))) if fits => *r,
            (None, _) => None,
        };
        broken |= declared == Some(ERROR);

        // What it captures: the variables in scope here that its body names.
        let own: HashSet<&str> = fe.params.iter().map(|(n, _)| n.name.as_str()).collect();
        let mut captures = Vec::new();
        for name in names_used(&fe.body) {
            if own.contains(name.as_str()) {
                continue;
            }
            let Some((reg, ty, _)) = self.var(&name) else {
                continue;
            };
            if ty == ERROR || ty == NEVER {
                broken = true;
                continue;
            }
            let cell = self.cell_of(&name);
            let stored = match cell {
                Some((sid, _)) => self.program.intern_type(Type::Struct(sid)),
                None => ty,
            };
            let origin = self.origin_of(&name);
            captures.push(Capture {
                value_ty: ty,
                stored,
                name,
                reg,
                cell: cell.map(|(s, _)| s),
                origin,
            });
        }

        let line = self.line_of(span.start);
        let module = self.scopes[self.module].name.clone();
        let mut name = format!("{}.<closure@{line}>", self.fn_name);
        let mut n = 2;
        while self
            .program
            .functions
            .iter()
            .any(|f| f.module == module && f.name == name)
        {
            name = format!("{}.<closure@{line}#{n}>", self.fn_name);
            n += 1;
        }
        let env = if captures.is_empty() {
            None
        } else {
            self.program.structs.push(StructDef {
                name: format!("<env of {name}>"),
                module: module.clone(),
                exported: false,
                fields: captures
                    .iter()
                    .map(|c| Field {
                        name: c.name.clone(),
                        ty: c.stored,
                    })
                    .collect(),
            });
            let sid = StructId(self.program.structs.len() as u16 - 1);
            Some((sid, self.program.intern_type(Type::Struct(sid))))
        };
        let id = FunctionId(self.program.functions.len() as u32);
        let mut func = Function::new(&module, &name);
        func.params = params.clone();
        if let Some((_, t)) = env {
            func.params.push(t);
        }
        func.result = declared.unwrap_or(Program::UNIT);
        self.program.functions.push(func);

        let result = self.lower_closure_body(fe, id, &params, declared, env, &captures);
        if broken || result == ERROR {
            return Val::none(ERROR);
        }
        let fty = self.program.intern_type(Type::Func(params, result));

        // The closure: the captured registers copied into a window.
        let classes: Vec<bool> = captures.iter().map(|c| self.is_ref(c.stored)).collect();
        let base = match captures.as_slice() {
            [] => Reg(0),
            // One capture is read where it is.
            [only] => only.reg,
            _ => {
                let base = self.e.alloc_window(&classes);
                for (i, c) in captures.iter().enumerate() {
                    let r = Reg(base.0.wrapping_add(i as u16));
                    if r != c.reg {
                        self.e.emit(Instr::Move { dst: r, src: c.reg });
                    }
                }
                self.e.free_window(base, classes.len());
                base
            }
        };
        let dst = self.dst(want, true);
        self.e.emit(Instr::NewClosure {
            dst,
            func: id,
            base,
            count: captures.len() as u16,
        });
        self.done(dst, fty, want)
    }

    /// Checks and lowers a function expression's body into function `id`;
    /// returns its result type (inferred from the body when not declared).
    fn lower_closure_body(
        &mut self,
        fe: &FnExpr,
        id: FunctionId,
        params: &[TypeId],
        declared: Option<TypeId>,
        env: Option<(StructId, TypeId)>,
        captures: &[Capture],
    ) -> TypeId {
        let fn_name = self.program.functions[id.index()].name.clone();
        let mut cx = FnCx {
            program: &mut *self.program,
            scopes: self.scopes,
            module: self.module,
            errors: &mut *self.errors,
            warnings: &mut *self.warnings,
            e: Emitter::new(),
            line_starts: self.line_starts,
            vars: Vec::new(),
            by_name: Default::default(),
            scope_marks: Vec::new(),
            loops: Vec::new(),
            locals: Vec::new(),
            result: declared.unwrap_or(ERROR),
            fn_name,
            skip_tests: false,
            in_loop: 0,
            consts: Vec::new(),
            boxed: captured_names(&fe.body),
            inferred: if declared.is_none() {
                Some(Vec::new())
            } else {
                None
            },
            param_hint: None,
            guess_names: Vec::new(),
            untyped_nones: Vec::new(),
            binding: self
                .binding
                .iter()
                .map(|b| super::Binding {
                    in_closure: true,
                    ..b.clone()
                })
                .collect(),
            unpack_at: None,
            unpacked: false,
        };
        cx.set_line(&fe.body.span);
        cx.push_scope();
        let mut regs = Vec::new();
        for ((name, _), &ty) in fe.params.iter().zip(params) {
            let class = cx.is_ref(ty);
            let reg = cx.e.alloc(class);
            if regs.iter().any(|(n, _)| *n == name.name) {
                cx.err(Pending::new(
                    "E0401",
                    name.span.clone(),
                    format!("the parameter `{}` is declared twice", name.name),
                    "a second parameter of this name",
                ));
            }
            regs.push((name.name.clone(), reg));
            cx.declare(&name.name, ty, reg, false, true);
            cx.declared_by(Origin::Parameter);
        }
        if let Some((sid, _)) = env {
            let env_reg = cx.e.alloc(true);
            for (i, c) in captures.iter().enumerate() {
                let r = cx.e.alloc(cx.is_ref(c.stored));
                cx.e.emit(Instr::GetField {
                    dst: r,
                    obj: env_reg,
                    ty: sid,
                    field: i as u16,
                });
                match c.cell {
                    Some(cell) => {
                        cx.declare(&c.name, c.stored, r, true, true);
                        if let Some(v) = cx.vars.last_mut() {
                            v.cell = Some((cell, c.value_ty));
                        }
                    }
                    None => cx.declare(&c.name, c.stored, r, false, true),
                }
                cx.declared_by(c.origin);
            }
        }
        let expected = declared.filter(|t| *t != Program::UNIT);
        let unit = declared == Some(Program::UNIT);
        // A body that ends in a statement (`{ total += x }`) has the value
        // `()` whatever its result type is inferred to be: nothing to load
        // for a `return.unit`.
        let ends_in_statement = !matches!(fe.body.stmts.last(), Some(Stmt::Expr(_)));
        let want = if unit || (declared.is_none() && ends_in_statement) {
            Want::Discard
        } else {
            Want::Any
        };
        // `fn(x) { if x > 0 { return Some(x) } None }`: a `None` ending a
        // body whose result is inferred waits for the returns to type it.
        let tail_none = declared.is_none()
            && matches!(fe.body.stmts.last(), Some(Stmt::Expr(e))
                if matches!(&e.kind, ExprKind::Name(n) if n == "None"))
            && cx.var("None").is_none();
        let mut value = if tail_none {
            let mut head = fe.body.clone();
            let last = head.stmts.pop();
            let v = cx.statements(&head, None, Want::Discard);
            if v.ty == NEVER {
                v
            } else {
                let dst = cx.e.alloc(true);
                cx.e.emit(Instr::LoadNone { dst });
                if let Some(Stmt::Expr(e)) = last {
                    cx.untyped_nones.push(e.span.clone());
                }
                Val {
                    reg: Some(dst),
                    ty: ERROR,
                    temp: true,
                }
            }
        } else {
            cx.statements(&fe.body, expected, want)
        };
        let result = match declared {
            Some(t) => {
                if !unit {
                    let span = match fe.body.stmts.last() {
                        Some(Stmt::Expr(last)) => last.span.clone(),
                        _ => fe.body.span.clone(),
                    };
                    cx.check(t, value.ty, &span);
                }
                t
            }
            None => {
                let returned = cx.inferred.take().unwrap_or_default();
                let nones = std::mem::take(&mut cx.untyped_nones);
                let tail = if value.ty == NEVER || (tail_none && value.ty == ERROR) {
                    None
                } else {
                    Some(value.ty)
                };
                let t = tail.or_else(|| returned.first().map(|(t, _)| *t));
                let t = match (t, nones.first()) {
                    (Some(t), Some(at))
                        if t != ERROR && !matches!(ty_of(cx.program, t), Some(Type::Option(_))) =>
                    {
                        let found = cx.tname(t);
                        cx.err(Pending::new(
                            "E0100",
                            at.clone(),
                            format!("type mismatch: this function returns {found} elsewhere, but this is an Option"),
                            "an Option",
                        ));
                        ERROR
                    }
                    (Some(t), _) => t,
                    (None, Some(at)) => {
                        cx.err(
                            Pending::new(
                                "E0104",
                                at.clone(),
                                "cannot tell which Option type this `None` is",
                                "the type of this `None` is unknown",
                            )
                            .help("write the function's result type, as in `fn(x: Int) -> Option[Int] { ... }`"),
                        );
                        ERROR
                    }
                    (None, None) => Program::UNIT,
                };
                for (rt, span) in &returned {
                    cx.check(t, *rt, span);
                }
                if tail_none && value.ty == ERROR {
                    value.ty = t;
                }
                t
            }
        };
        cx.e.line = cx.line_of(fe.body.span.end.saturating_sub(1));
        let terminated =
            cx.e.code.last().is_some_and(|last| !last.falls_through()) && !cx.e.label_here();
        if !terminated {
            let reg = if result == Program::UNIT || result == ERROR {
                None
            } else {
                cx.finish(value, Want::Any).reg
            };
            match reg {
                Some(r) => cx.e.emit(Instr::Return { src: r }),
                None if result == Program::UNIT || result == ERROR => {
                    cx.e.emit(Instr::ReturnUnit {})
                }
                None => {
                    let r = cx.placeholder(result);
                    cx.e.emit(Instr::Return { src: r });
                }
            }
        }
        // A captured `var` assigned in the body is assigned: the warning
        // that it could be a `let` is the enclosing function's to give.
        let assigned: Vec<String> = captures
            .iter()
            .filter(|c| c.cell.is_some())
            .filter(|c| {
                cx.by_name
                    .get(&c.name)
                    .and_then(|js| js.first())
                    .is_some_and(|&j| cx.vars[j].assigned)
            })
            .map(|c| c.name.clone())
            .collect();
        cx.pop_scope(None);
        if cx.e.overflowed {
            cx.err(Pending::new(
                "E0403",
                fe.body.span.clone(),
                "a function expression needs more than 65535 registers",
                "this function is too large",
            ));
        }
        let (done, locals) = cx.finish_code(params.len() + usize::from(env.is_some()));
        drop(cx);
        for name in &assigned {
            self.assigned_var(name);
        }
        let f = &mut self.program.functions[id.index()];
        super::install(f, done, locals);
        f.result = if result == ERROR {
            Program::UNIT
        } else {
            result
        };
        result
    }
}
