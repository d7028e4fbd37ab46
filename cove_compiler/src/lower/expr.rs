//! Expressions: literals, names, operators, conditions, interpolation,
//! `if`, struct and list literals, fields and indexing.
//!
//! Conditions are lowered as *branches*, not values: `if i < n` becomes
//! one fused `jump-ge.int` (or `jump-ge.int.imm` against a literal), `&&`
//! and `||` become jumps that skip the right-hand side, `!` swaps the
//! targets. Only a condition that is not a comparison is materialised as a
//! `Bool` and tested with `jump-if`.

use cove_ir::op::{Instr, Reg};
use cove_ir::program::{Constant, Program};
use cove_ir::types::{StructId, Type, TypeId};

use super::compare::{IntRhs, jump_int};
use super::literal::signed_int;
use super::literal_bits;
use super::{FnCx, Val, Want};
use crate::ast::*;
use crate::diagnostics::Pending;
use crate::emit::Label;
use crate::resolve::{ERROR, NEVER, ty_of};

/// The most elements a list literal, and the most arguments a call, may
/// have: each takes a register of the frame while the value is built.
pub(crate) const MAX_LITERAL: usize = 16_384;

/// The edit distance of two short names, for "did you mean" hints.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The closest of `candidates` to `name`, if close enough to be a typo.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .filter(|c| *c != name)
        .map(|c| (distance(name, c), c))
        .filter(|(d, c)| *d <= name.len().max(c.len()).div_ceil(3))
        .min()
        .map(|(_, c)| c)
}

impl FnCx<'_> {
    /// Checks and lowers `e`. `expected` is the type the context wants, if
    /// it knows (it types `[]` and `None`); the caller still checks the
    /// result's type.
    pub(crate) fn expr(&mut self, e: &Expr, expected: Option<TypeId>, want: Want) -> Val {
        let old = self.set_line(&e.span);
        let passes_return = matches!(
            e.kind,
            ExprKind::If(..) | ExprKind::Match(..) | ExprKind::Block(_)
        );
        let v = if want == Want::Return && !passes_return {
            let v = self.expr_inner(e, expected, Want::Any);
            self.finish(v, Want::Return)
        } else {
            let v = self.expr_inner(e, expected, want);
            if want == Want::Return {
                v
            } else {
                self.finish(v, want)
            }
        };
        self.e.line = old;
        v
    }

    fn expr_inner(&mut self, e: &Expr, expected: Option<TypeId>, want: Want) -> Val {
        // An integer literal where a Float is expected is that Float, as
        // Go's and Swift's untyped literals are: `let x: Float = 1`, `2 * x`.
        if expected == Some(Program::FLOAT)
            && let Some(i) = int_literal_value(e)
        {
            let k = self.constant(Constant::Float(i as f64));
            let dst = self.dst(want, false);
            self.e.emit(Instr::LoadConst { dst, constant: k });
            return self.done(dst, Program::FLOAT, want);
        }
        match &e.kind {
            ExprKind::Int(v) => self.int_literal(*v, false, &e.span, want),
            ExprKind::Float(f) => {
                let k = self.constant(Constant::Float(*f));
                let dst = self.dst(want, false);
                self.e.emit(Instr::LoadConst { dst, constant: k });
                self.done(dst, Program::FLOAT, want)
            }
            ExprKind::Bool(b) => {
                let dst = self.dst(want, false);
                self.e.emit(Instr::LoadInt {
                    dst,
                    value: i32::from(*b),
                });
                self.done(dst, Program::BOOL, want)
            }
            ExprKind::Unit => Val::none(Program::UNIT),
            ExprKind::Str(pieces) => self.interpolate(pieces, want),
            ExprKind::Name(name) => self.name(name, &e.span, expected, want),
            ExprKind::Binary(BinOp::And | BinOp::Or, _, _) => {
                let dst = self.dst(want, false);
                let f = self.e.label();
                let end = self.e.label();
                self.cond(e, false, f);
                self.e.emit(Instr::LoadInt { dst, value: 1 });
                self.e.jump(Instr::Jump { target: 0 }, end);
                self.e.bind(f);
                self.e.emit(Instr::LoadInt { dst, value: 0 });
                self.e.bind(end);
                self.done(dst, Program::BOOL, want)
            }
            ExprKind::Binary(op, a, b) => {
                // A literal on the left is evaluated after the right, whose
                // type it takes (`2 * x` on a Float) and whose immediate it
                // can be (`1 + i`, `3 * i`).
                if literal_goes_right(a, b) {
                    let r = self.operand(b, None);
                    // Only where the order of the operands does not matter.
                    if matches!(op, BinOp::Add | BinOp::Mul)
                        && let Some(n) = self.small_int(a)
                        && let Some(v) = self.int_with_constant(*op, r, n, want)
                    {
                        return v;
                    }
                    let hint = (r.ty == Program::FLOAT).then_some(Program::FLOAT);
                    let l = self.operand(a, hint);
                    return self.binary_values(*op, l, r, &e.span, want);
                }
                let l = self.chain_operand(a);
                self.binary_on(*op, l, b, &e.span, want)
            }
            ExprKind::Unary(op, a) => self.unary(*op, a, &e.span, want),
            ExprKind::Call(callee, args) => self.call(callee, args, &e.span, expected, want),
            ExprKind::Field(base, field) => self.field(base, field, &e.span, want),
            ExprKind::Index(base, index) => {
                let b = self.expr(base, None, Want::Any);
                let (i, offset) = self.index_operand(index);
                let elem = self.list_elem(b.ty, &base.span);
                if elem.is_some() {
                    self.check(Program::INT, i.ty, &index.span);
                }
                self.release(b);
                self.release(i);
                match (elem, b.reg, i.reg) {
                    (Some(elem), Some(list), Some(index)) if i.ty == Program::INT => {
                        let dst = self.dst(want, self.is_ref(elem));
                        self.e.emit(match offset {
                            Some(offset) => Instr::GetListImm {
                                dst,
                                list,
                                index,
                                ty: elem,
                                offset,
                            },
                            None => Instr::GetList {
                                dst,
                                list,
                                index,
                                ty: elem,
                            },
                        });
                        self.done(dst, elem, want)
                    }
                    _ => Val::none(ERROR),
                }
            }
            ExprKind::StructLit(path, fields) => self.struct_literal(path, fields, &e.span, want),
            ExprKind::List(items) => self.list_literal(items, &e.span, expected, want),
            ExprKind::New(ty, args) => self.new_container(ty, args, &e.span, want),
            ExprKind::Range(..) => {
                self.err(
                    Pending::new(
                        "E0108",
                        e.span.clone(),
                        "a range `a..b` can only be looped over",
                        "a range outside `for`",
                    )
                    .help("write `for i in a..b { ... }`"),
                );
                Val::none(ERROR)
            }
            ExprKind::If(cond, then, els) => {
                self.if_expr(cond, then, els.as_deref(), expected, want, &e.span)
            }
            ExprKind::Match(scrutinee, arms) => {
                self.match_expr(scrutinee, arms, &e.span, expected, want)
            }
            ExprKind::Block(b) => self.block(b, expected, want),
            ExprKind::Return(value) => {
                self.return_expr(value.as_deref(), &e.span);
                Val::none(NEVER)
            }
            ExprKind::Break | ExprKind::Continue => {
                let is_break = matches!(e.kind, ExprKind::Break);
                if let Some(l) = self.enter_loop_target(is_break, &e.span) {
                    self.e.jump(Instr::Jump { target: 0 }, l);
                }
                Val::none(NEVER)
            }
            ExprKind::Spawn(call) => self.spawn(call, want),
            ExprKind::Assign(target, op, value) => {
                self.assign(target, *op, value, &e.span);
                Val::none(Program::UNIT)
            }
            ExprKind::Error => Val::none(ERROR),
            ExprKind::Loop(body) => self.loop_expr(body, expected, want, &e.span),
            ExprKind::BreakValue(value) => {
                self.break_value(value, &e.span);
                Val::none(NEVER)
            }
            ExprKind::Func(fe) => self.func_expr(fe, &e.span, expected, want),
            ExprKind::Tuple(items) => self.tuple_literal(items, expected, want),
        }
    }

    fn int_literal(&mut self, v: Option<u64>, negated: bool, span: &Span, want: Want) -> Val {
        let Some(value) = v.and_then(|v| signed_int(v, negated)) else {
            self.err(
                Pending::new(
                    "E0109",
                    span.clone(),
                    "this integer literal does not fit in an Int",
                    "larger than 9223372036854775807",
                )
                .help("Int is a 64-bit signed integer; use a Float for larger magnitudes"),
            );
            return Val::none(ERROR);
        };
        let dst = self.dst(want, false);
        match i32::try_from(value) {
            Ok(small) => self.e.emit(Instr::LoadInt { dst, value: small }),
            Err(_) => {
                let k = self.constant(Constant::Int(value));
                self.e.emit(Instr::LoadConst { dst, constant: k });
            }
        }
        self.done(dst, Program::INT, want)
    }

    pub(crate) fn load_str(&mut self, text: &str, want: Want) -> Val {
        let k = self.constant(Constant::Str(text.to_string()));
        let dst = self.dst(want, true);
        self.e.emit(Instr::LoadConst { dst, constant: k });
        self.done(dst, Program::STR, want)
    }

    fn name(&mut self, name: &str, span: &Span, expected: Option<TypeId>, want: Want) -> Val {
        if let Some((cell, inner)) = self.cell_of(name)
            && let Some((obj, _, _)) = self.var(name)
        {
            let dst = self.dst(want, self.is_ref(inner));
            self.e.emit(Instr::GetField {
                dst,
                obj,
                ty: cell,
                field: 0,
            });
            return self.done(dst, inner, want);
        }
        if let Some((reg, ty, _)) = self.var(name) {
            return Val {
                reg: Some(reg),
                ty,
                temp: false,
            };
        }
        if name == "None" {
            return match expected.and_then(|t| ty_of(self.program, t).cloned().map(|x| (t, x))) {
                Some((t, Type::Option(_))) => {
                    let dst = self.dst(want, true);
                    self.e.emit(Instr::LoadNone { dst });
                    self.done(dst, t, want)
                }
                _ if expected == Some(ERROR) => Val::none(ERROR),
                _ => {
                    self.err(
                        Pending::new(
                            "E0104",
                            span.clone(),
                            "cannot tell which Option type this `None` is",
                            "the type of this `None` is unknown",
                        )
                        .help("annotate the variable, as in `let x: Option[Int] = None`"),
                    );
                    Val::none(ERROR)
                }
            };
        }
        if let Some(v) = self.constant_use(self.module, name, span, want) {
            return v;
        }
        if let Some(&func) = self.scopes[self.module].functions.get(name)
            && !self.scopes[self.module].broken.contains(name)
        {
            return self.function_value(func, want);
        }
        let scope = &self.scopes[self.module];
        let (message, label, help) = if scope.functions.contains_key(name) {
            // A function whose declaration is broken: already reported.
            return Val::none(ERROR);
        } else if scope.imports.contains_key(name) {
            (
                format!("`{name}` is a module, not a value"),
                "a module name must be followed by `.`".to_string(),
                format!("name something in it: `{name}.function(...)`"),
            )
        } else if scope.types.contains_key(name) {
            (
                format!("`{name}` is a type, not a value"),
                "a type name here".to_string(),
                format!(
                    "make a value: `{name} {{ ... }}` or `{name}.Variant` (in the head of \
                     `if`, `while`, `for` or `match`, in parentheses: `({name} {{ ... }})`)"
                ),
            )
        } else {
            self.unknown_name(name, span);
            return Val::none(ERROR);
        };
        self.err(Pending::new("E0201", span.clone(), message, label).help(help));
        Val::none(ERROR)
    }

    pub(crate) fn unknown_name(&mut self, name: &str, span: &Span) {
        // `import nothere` was reported at the import; each use would only
        // echo it.
        if self.scopes[self.module].missing_imports.contains(name) {
            return;
        }
        // `enum Option { ... }` was reported at its declaration (E0306),
        // and `Option.A` would only echo it.
        if self.scopes[self.module].builtin_named.contains(name) {
            return;
        }
        // `Pointt.new(1, 2)` of an `impl Pointt` whose type is unknown:
        // reported at the `impl`.
        let prefix = format!("{name}.");
        if self.scopes[self.module]
            .broken
            .iter()
            .any(|f| f.starts_with(&prefix))
        {
            return;
        }
        if let Some(b) = self.binding.iter().rev().find(|b| b.name == name) {
            let b = b.clone();
            self.used_in_its_own_let(&b, span);
            return;
        }
        // The "did you mean" search reads every name in scope, so it is
        // made only while the report can still show it: past MAX_ERRORS
        // errors, thousands of unknown names among thousands of variables
        // would otherwise cost their product (a fuzzed 21 kB file took
        // seconds to check).
        let suggest = self.errors.len() < crate::diagnostics::MAX_ERRORS;
        let vars = if suggest {
            self.var_names()
        } else {
            Vec::new()
        };
        let scope = &self.scopes[self.module];
        let candidates: Vec<&str> = if suggest {
            vars.iter()
                .map(String::as_str)
                .chain(scope.functions.keys().map(String::as_str))
                .collect()
        } else {
            Vec::new()
        };
        let mut d = Pending::new(
            "E0200",
            span.clone(),
            format!("unknown name `{name}`"),
            "not declared in this scope",
        );
        if let Some(help) = self.name_of_self(name) {
            d = d.help(help);
        } else if let Some(c) = closest(name, candidates.into_iter()) {
            d = d.help(format!("did you mean `{c}`?"));
        } else if name == "nil" || name == "null" {
            d = d.help("an absent value is `None`, of an `Option` type");
        } else if name == "len" {
            d = d.help("a length is a method: `xs.length()`");
        } else if matches!(name, "str" | "string" | "to_string" | "format") {
            d = d.help("make text with interpolation: \"{x}\"");
        } else if name == "loop" {
            d = d.help("`loop` starts a loop only with its `{` on the same line: `loop { ... }`");
        } else if name == "self" || name == "this" {
            d = d.help("`self` is the first parameter of a method, in an `impl` block: `fn name(self) { ... }`");
        }
        self.err(d);
    }

    /// A use of the name of `b` inside its value, where no other variable
    /// of that name is in scope: the name is bound only once the value is
    /// made, so a closure cannot call itself through its own `let`. The
    /// Cove ways are a named function, which may call itself, or a `var`
    /// declared first and assigned the closure afterwards, since a closure
    /// shares the `var`s it captures. Told once a declaration: its other
    /// uses are the same mistake.
    fn used_in_its_own_let(&mut self, b: &super::Binding, span: &Span) {
        let name = &b.name;
        let quoted = format!("`{name}`");
        if self.errors.iter().any(|e| {
            e.code == "E0216"
                && e.span.start >= b.value.start
                && e.span.end <= b.value.end
                && e.message.starts_with(&quoted)
        }) {
            return;
        }
        let keyword = if b.mutable { "var" } else { "let" };
        let d = if b.in_closure {
            Pending::new(
                "E0216",
                span.clone(),
                format!(
                    "{quoted} is not bound yet: a closure cannot name itself in its own `{keyword}`"
                ),
                format!("{quoted} is bound only after this closure is made"),
            )
            .help(format!(
                "declare a named function `fn {name}(...) {{ ... }}` at the top level, which may \
                 call itself; or declare `var {name} = fn(...) {{ ... }}` with a placeholder \
                 body first, then assign `{name} = fn(...) {{ ... {name}(...) ... }}`: the \
                 closure shares the `var`"
            ))
        } else {
            Pending::new(
                "E0216",
                span.clone(),
                format!("{quoted} is not bound yet: it is used in its own `{keyword}`'s value"),
                format!("{quoted} is bound only after this value is made"),
            )
            .help(format!(
                "give the value a name of its own, or declare `{name}` before this statement"
            ))
        };
        self.err(d);
    }

    /// Whether `e` names a module or a type rather than a value, so
    /// `e.x` is a qualified name and not a field access.
    pub(crate) fn names_module_or_type(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Name(n) => {
                self.var(n).is_none()
                    && (self.scopes[self.module].imports.contains_key(n)
                        || self.scopes[self.module].types.contains_key(n))
            }
            // `geo.Point` names a type; `geo.LIMIT`, a constant, is a
            // value, so `geo.LIMIT.abs()` is a method call on it.
            ExprKind::Field(base, field) => match &base.kind {
                ExprKind::Name(n) if self.var(n).is_none() => {
                    self.scopes[self.module].imports.get(n).is_some_and(|&m| {
                        let there = &self.scopes[m];
                        there.types.contains_key(&field.name)
                            || !there.consts.contains_key(&field.name)
                    })
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The struct, field index and field type of `ty.field`; reports why not.
    pub(crate) fn field_of(
        &mut self,
        ty: TypeId,
        field: &Ident,
    ) -> Option<(StructId, u16, TypeId)> {
        match ty_of(self.program, ty) {
            Some(Type::Struct(sid)) => {
                let sid = *sid;
                let def = self.program.struct_def(sid);
                if let Some(i) = def.fields.iter().position(|f| f.name == field.name) {
                    return Some((sid, i as u16, def.fields[i].ty));
                }
                let names: Vec<String> = def.fields.iter().map(|f| f.name.clone()).collect();
                if def.name.starts_with('(') {
                    // A tuple's fields are its positions.
                    let last = names.len().saturating_sub(1);
                    let d = Pending::new(
                        "E0202",
                        field.span.clone(),
                        format!("the tuple {} has no field `{}`", def.name, field.name),
                        "no such part",
                    )
                    .help(format!("its parts are `.0` to `.{last}`"));
                    self.err_about(ty, d);
                    return None;
                }
                let mut d = Pending::new(
                    "E0202",
                    field.span.clone(),
                    format!("the struct `{}` has no field `{}`", def.name, field.name),
                    "unknown field",
                );
                d = if let Some(help) = self.method_named_as_field(ty, &field.name) {
                    d.help(help)
                } else {
                    match closest(&field.name, names.iter().map(String::as_str)) {
                        Some(c) => d.help(format!("did you mean `{c}`?")),
                        None => d.help(format!("its fields are: {}", names.join(", "))),
                    }
                };
                self.err_about(ty, d);
                None
            }
            None => None,
            Some(_) => {
                let t = self.tname(ty);
                let has_method = cove_ir::builtins::Builtin::ALL
                    .iter()
                    .any(|b| b.signature().receiver.is_some() && b.method_name() == field.name);
                let mut d = Pending::new(
                    "E0202",
                    field.span.clone(),
                    format!("{t} has no field `{}`", field.name),
                    "unknown field",
                );
                if let Some(help) = self.method_named_as_field(ty, &field.name) {
                    d = d.help(help);
                } else if has_method {
                    d = d.help(format!(
                        "`{}` is a method: call it with `.{}()`",
                        field.name, field.name
                    ));
                }
                self.err(d);
                None
            }
        }
    }

    /// In a method, the help for a bare `name` that is a field or a
    /// function of `self`'s type, which Cove names through `self` (or the
    /// type), never alone.
    fn name_of_self(&self, name: &str) -> Option<String> {
        let (_, ty, _) = self.var("self")?;
        if let Some(Type::Struct(sid)) = ty_of(self.program, ty)
            && self
                .program
                .struct_def(*sid)
                .fields
                .iter()
                .any(|f| f.name == name)
        {
            return Some(format!(
                "`{name}` is a field of `self`: write `self.{name}`"
            ));
        }
        let (fid, _) = self.type_function(ty, name)?;
        let f = &self.program.functions[fid.index()];
        let type_name = f.name.split('.').next().unwrap_or_default().to_string();
        Some(if self.scopes.iter().any(|s| s.methods.contains(&fid)) {
            format!(
                "`{name}` is a method of `{type_name}`: call it on `self`, as in `self.{name}(...)`"
            )
        } else {
            format!(
                "`{name}` is a function of `{type_name}`: call it through the type, as in `{type_name}.{name}(...)`"
            )
        })
    }

    /// The help for `v.name` where `name` is no field but a function of
    /// the `impl` of `ty`: a method is called, `v.name()`, and a function
    /// without `self` through the type.
    fn method_named_as_field(&self, ty: TypeId, name: &str) -> Option<String> {
        let (fid, _) = self.type_function(ty, name)?;
        let f = &self.program.functions[fid.index()];
        let type_name = f.name.split('.').next().unwrap_or_default().to_string();
        Some(if self.scopes.iter().any(|s| s.methods.contains(&fid)) {
            format!("`{name}` is a method of `{type_name}`: call it with `.{name}()`")
        } else {
            format!(
                "`{name}` is a function of `{type_name}` without `self`: call it as `{type_name}.{name}(...)`"
            )
        })
    }

    /// The element type of a list type; reports why not.
    pub(crate) fn list_elem(&mut self, ty: TypeId, span: &Span) -> Option<TypeId> {
        match ty_of(self.program, ty) {
            Some(Type::List(t)) => Some(*t),
            None => None,
            Some(other) => {
                let t = self.tname(ty);
                let help = match other {
                    Type::Map(..) => {
                        "read a map with `.get(key)` and write it with `.set(key, value)`"
                    }
                    Type::Str => "read a byte of a string with `.byte_at(i)`",
                    Type::Struct(sid) if self.program.struct_def(*sid).name.starts_with('(') => {
                        "a tuple's parts are fields, `t.0` and `t.1`, not indices"
                    }
                    _ => "only lists are indexed with `[i]`",
                };
                self.err(
                    Pending::new(
                        "E0110",
                        span.clone(),
                        format!("cannot index into {t}"),
                        format!("this is {t}"),
                    )
                    .help(help),
                );
                None
            }
        }
    }

    fn unary(&mut self, op: UnOp, a: &Expr, span: &Span, want: Want) -> Val {
        if op == UnOp::Neg
            && let ExprKind::Int(v) = a.kind
        {
            return self.int_literal(v, true, span, want);
        }
        if op == UnOp::Neg
            && let ExprKind::Float(f) = a.kind
        {
            let k = self.constant(Constant::Float(-f));
            let dst = self.dst(want, false);
            self.e.emit(Instr::LoadConst { dst, constant: k });
            return self.done(dst, Program::FLOAT, want);
        }
        let v = self.expr(a, None, Want::Any);
        self.release(v);
        let Some(src) = v.reg else {
            return Val::none(ERROR);
        };
        let (instr_ty, ok) = match (op, v.ty) {
            (UnOp::Neg, t) if t == Program::INT => (t, true),
            (UnOp::Neg, t) if t == Program::FLOAT => (t, true),
            (UnOp::Not, t) if t == Program::BOOL => (t, true),
            _ => (ERROR, false),
        };
        if !ok {
            let t = self.tname(v.ty);
            let (sym, what) = match op {
                UnOp::Neg => ("-", "Int or Float"),
                UnOp::Not => ("!", "Bool"),
            };
            self.err(Pending::new(
                "E0111",
                a.span.clone(),
                format!("`{sym}` cannot be applied to {t}"),
                format!("this is {t}, not {what}"),
            ));
            return Val::none(ERROR);
        }
        let dst = self.dst(want, false);
        self.e.emit(match (op, instr_ty) {
            (UnOp::Neg, t) if t == Program::INT => Instr::NegInt { dst, a: src },
            (UnOp::Neg, _) => Instr::NegFloat { dst, a: src },
            (UnOp::Not, _) => Instr::NotBool { dst, a: src },
        });
        self.done(dst, instr_ty, want)
    }

    /// The left operand of a binary operator. A chain `a + b + c ...` nests
    /// to the left as deep as it is long, so its spine is walked in a loop
    /// here, not by recursion: the leftmost operand is evaluated first, then
    /// each operator in turn, exactly as the recursive [`Self::expr`] of
    /// each link would, so a chain of any length needs no more native stack
    /// than one operator.
    fn chain_operand(&mut self, a: &Expr) -> Val {
        let mut spine = Vec::new();
        let mut leaf = a;
        while let ExprKind::Binary(op, l, r) = &leaf.kind
            && !matches!(op, BinOp::And | BinOp::Or)
            && !literal_goes_right(l, r)
        {
            spine.push(leaf);
            leaf = l;
        }
        let mut v = self.operand(leaf, None);
        for link in spine.into_iter().rev() {
            let ExprKind::Binary(op, _, r) = &link.kind else {
                continue;
            };
            let old = self.set_line(&link.span);
            v = self.binary_on(*op, v, r, &link.span, Want::Any);
            v = self.finish(v, Want::Any);
            self.e.line = old;
        }
        v
    }

    /// The index of a list read: for `x + k` or `x - k`, an `Int` `x` and
    /// a constant `k` that fits 8 bits, `x` and the offset, which the read
    /// adds itself (`get.list.imm`); else the index's value and no offset.
    /// `x` is evaluated where the `add.int.imm` of the sum would read it,
    /// and the read follows at once, so no fault or effect moves. An `x`
    /// of another type goes on as the binary expression it is, for its
    /// diagnostics.
    fn index_operand(&mut self, index: &Expr) -> (Val, Option<i8>) {
        let offset = match &index.kind {
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), x, k) if !literal_goes_right(x, k) => {
                self.small_int(k)
                    .and_then(|k| i8::try_from(k).ok())
                    .and_then(|k| {
                        if *op == BinOp::Sub {
                            k.checked_neg()
                        } else {
                            Some(k)
                        }
                    })
                    .map(|offset| (*op, x, k, offset))
            }
            _ => None,
        };
        let Some((op, x, k, offset)) = offset else {
            return (self.expr(index, Some(Program::INT), Want::Any), None);
        };
        let old = self.set_line(&index.span);
        let x = self.chain_operand(x);
        let v = if x.ty == Program::INT && x.reg.is_some() {
            (x, Some(offset))
        } else {
            let v = self.binary_on(op, x, k, &index.span, Want::Any);
            (self.finish(v, Want::Any), None)
        };
        self.e.line = old;
        v
    }

    /// `l op n` of an `Int` `l` and a constant `n` as one instruction with
    /// an immediate, or `None` (nothing emitted, `l` untouched) where there
    /// is none: `+`, `-` and `*` (`add.int.imm`, of `-n` for a `-`, and
    /// `mul.int.imm`), and `/` and `%` by a divisor that cannot fail (its
    /// instruction carries no check, and the verifier holds it to that).
    fn int_with_constant(&mut self, op: BinOp, l: Val, n: i32, want: Want) -> Option<Val> {
        let a = l.reg.filter(|_| l.ty == Program::INT)?;
        let add: fn(Reg, Reg, i32) -> Instr = |dst, a, value| Instr::AddIntImm { dst, a, value };
        let (make, value): (fn(Reg, Reg, i32) -> Instr, i32) = match op {
            BinOp::Add => (add, n),
            BinOp::Sub => (add, n.checked_neg()?),
            BinOp::Mul => (|dst, a, value| Instr::MulIntImm { dst, a, value }, n),
            BinOp::Div if cove_ir::op::can_divide_unchecked(n) => {
                (|dst, a, value| Instr::DivIntImm { dst, a, value }, n)
            }
            BinOp::Rem if cove_ir::op::can_divide_unchecked(n) => {
                (|dst, a, value| Instr::RemIntImm { dst, a, value }, n)
            }
            _ => return None,
        };
        self.release(l);
        let dst = self.dst(want, false);
        self.e.emit(make(dst, a, value));
        Some(self.done(dst, Program::INT, want))
    }

    /// `l / b` or `l % b` of an `Int` `l` and a literal power of two `b`
    /// too large for `div.int.imm`'s 32 bits (2^31 to 2^62: the
    /// `% 2147483648` of a random-number generator) as `div.int.pow2` or
    /// `rem.int.pow2`, or `None` (nothing emitted) for any other. Smaller
    /// powers keep the `.imm` forms, which the emitter fuses with what
    /// follows them (`rem-jump-eq.int.imm`, `rem-add.int.imm`).
    fn int_by_power_of_two(&mut self, op: BinOp, l: Val, b: &Expr, want: Want) -> Option<Val> {
        let a = l.reg.filter(|_| l.ty == Program::INT)?;
        let ExprKind::Int(Some(v)) = b.kind else {
            return None;
        };
        let exponent = super::literal::signed_int(v, false)
            .filter(|v| i32::try_from(*v).is_err())
            .and_then(cove_ir::op::power_of_two_exponent)?;
        let make: fn(Reg, Reg, i32) -> Instr = match op {
            BinOp::Div => |dst, a, exponent| Instr::DivIntPow2 { dst, a, exponent },
            BinOp::Rem => |dst, a, exponent| Instr::RemIntPow2 { dst, a, exponent },
            _ => return None,
        };
        self.release(l);
        let dst = self.dst(want, false);
        self.e.emit(make(dst, a, exponent));
        Some(self.done(dst, Program::INT, want))
    }

    /// `l op b`, where `l` is already evaluated.
    pub(crate) fn binary_on(
        &mut self,
        op: BinOp,
        l: Val,
        b: &Expr,
        span: &Span,
        want: Want,
    ) -> Val {
        if let Some(n) = self.small_int(b)
            && let Some(v) = self.int_with_constant(op, l, n, want)
        {
            return v;
        }
        if let Some(v) = self.int_by_power_of_two(op, l, b, want) {
            return v;
        }
        let hint = (l.ty != ERROR && l.ty != NEVER).then_some(l.ty);
        let r = self.operand(b, hint);
        self.binary_values(op, l, r, span, want)
    }

    /// The instruction of `l op r` on two evaluated operands.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn binary_values(
        &mut self,
        op: BinOp,
        l: Val,
        r: Val,
        span: &Span,
        want: Want,
    ) -> Val {
        self.release(l);
        self.release(r);
        let cmp = matches!(
            op,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        );
        let bad = [ERROR, NEVER];
        let (Some(a), Some(b)) = (l.reg, r.reg) else {
            return Val::none(if cmp { Program::BOOL } else { ERROR });
        };
        if bad.contains(&l.ty) || bad.contains(&r.ty) {
            return Val::none(if cmp { Program::BOOL } else { ERROR });
        }
        let (lt, rt) = (l.ty, r.ty);
        if lt != rt {
            let (ln, rn) = (self.tname(lt), self.tname(rt));
            // The left operand fixes the type the right one must have.
            let mut d = Pending::new(
                "E0100",
                span.clone(),
                format!("type mismatch: expected {ln}, found {rn}"),
                format!("this is {rn}"),
            );
            if (lt == Program::INT && rt == Program::FLOAT)
                || (lt == Program::FLOAT && rt == Program::INT)
            {
                d = d.help("convert one side: `i.to_float()` or `f.to_int()`");
            } else if lt == Program::STR || rt == Program::STR {
                d = d.help("build text with interpolation: \"{a}{b}\"");
            } else if matches!(ty_of(self.program, lt), Some(Type::Option(_)))
                || matches!(ty_of(self.program, rt), Some(Type::Option(_)))
            {
                d = d.help("take the value out of the Option first: `.unwrap()`, `.unwrap_or(default)` or `match`");
            }
            self.err(d);
            return Val::none(if cmp { Program::BOOL } else { ERROR });
        }
        let int = lt == Program::INT;
        let float = lt == Program::FLOAT;
        let string = lt == Program::STR;
        let boolean = lt == Program::BOOL;
        let swap = matches!(op, BinOp::Gt | BinOp::Ge);
        let (x, y) = if swap { (b, a) } else { (a, b) };
        let dst_ref = string && op == BinOp::Add;
        let instr = |dst: Reg| -> Option<(Instr, TypeId)> {
            use BinOp::*;
            let i = match op {
                Add if int => Instr::AddInt { dst, a, b },
                Sub if int => Instr::SubInt { dst, a, b },
                Mul if int => Instr::MulInt { dst, a, b },
                Div if int => Instr::DivInt { dst, a, b },
                Rem if int => Instr::RemInt { dst, a, b },
                BitAnd if int => Instr::AndInt { dst, a, b },
                BitOr if int => Instr::OrInt { dst, a, b },
                BitXor if int => Instr::XorInt { dst, a, b },
                Shl if int => Instr::ShlInt { dst, a, b },
                Shr if int => Instr::ShrInt { dst, a, b },
                Add if float => Instr::AddFloat { dst, a, b },
                Sub if float => Instr::SubFloat { dst, a, b },
                Mul if float => Instr::MulFloat { dst, a, b },
                Div if float => Instr::DivFloat { dst, a, b },
                Rem if float => Instr::RemFloat { dst, a, b },
                Add if string => Instr::ConcatStr { dst, a, b },
                Eq if int || boolean => Instr::EqInt { dst, a, b },
                Ne if int || boolean => Instr::NeInt { dst, a, b },
                Lt | Gt if int => Instr::LtInt { dst, a: x, b: y },
                Le | Ge if int => Instr::LeInt { dst, a: x, b: y },
                Eq if float => Instr::EqFloat { dst, a, b },
                Ne if float => Instr::NeFloat { dst, a, b },
                Lt | Gt if float => Instr::LtFloat { dst, a: x, b: y },
                Le | Ge if float => Instr::LeFloat { dst, a: x, b: y },
                Eq if string => Instr::EqStr { dst, a, b },
                Ne if string => Instr::NeStr { dst, a, b },
                Lt | Gt if string => Instr::LtStr { dst, a: x, b: y },
                Le | Ge if string => Instr::LeStr { dst, a: x, b: y },
                _ => return None,
            };
            Some((i, if cmp { Program::BOOL } else { lt }))
        };
        let probe = instr(Reg(0));
        if probe.is_none()
            && matches!(op, BinOp::Eq | BinOp::Ne)
            && self.is_ref(lt)
            && self.has_equality(lt)
        {
            return self.structural_eq(op == BinOp::Ne, a, b, lt, want);
        }
        let Some((_, ty)) = probe else {
            let t = self.tname(lt);
            let what = match op {
                BinOp::Add => "`+` works on Int, Float and String",
                BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => {
                    "arithmetic works on Int and Float"
                }
                BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr => {
                    "bitwise operators work on Int"
                }
                BinOp::Eq | BinOp::Ne => {
                    "`==` and `!=` compare values whose parts all have equality (not functions, Task or Channel)"
                }
                _ => "ordering compares Int, Float and String",
            };
            let mut d = Pending::new(
                "E0101",
                span.clone(),
                format!("`{}` cannot be applied to {t}", op.text()),
                format!("both sides are {t}"),
            )
            .help(what);
            if matches!(op, BinOp::Eq | BinOp::Ne)
                && matches!(ty_of(self.program, lt), Some(Type::Option(_)))
            {
                d = d.help("test an Option with `.is_some()`, `.is_none()` or `match`");
            }
            self.err(d);
            return Val::none(if cmp { Program::BOOL } else { ERROR });
        };
        let dst = self.dst(want, dst_ref);
        if let Some((i, _)) = instr(dst) {
            self.e.emit(i);
        }
        self.done(dst, ty, want)
    }

    // ---- conditions -------------------------------------------------------------

    /// Emits a jump to `target` taken when `e` is `jump_if`; falls through
    /// otherwise.
    pub(crate) fn cond(&mut self, e: &Expr, jump_if: bool, target: Label) {
        let old = self.set_line(&e.span);
        match &e.kind {
            ExprKind::Bool(b) => {
                if *b == jump_if {
                    self.e.jump(Instr::Jump { target: 0 }, target);
                }
            }
            ExprKind::Unary(UnOp::Not, inner) => self.cond(inner, !jump_if, target),
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), _, _) => {
                // `a && b && c` nests to the left as deep as it is long: its
                // operands are gathered in a loop, and each is one test.
                // For `&&` jumping when true (and `||` jumping when false)
                // an early operand that decides the other way skips the rest.
                let operands = chain_operands(e, *op);
                if (*op == BinOp::And) == jump_if {
                    let skip = self.e.label();
                    if let Some((last, rest)) = operands.split_last() {
                        for x in rest {
                            self.cond(x, !jump_if, skip);
                        }
                        self.cond(last, jump_if, target);
                    }
                    self.e.bind(skip);
                } else {
                    for x in operands {
                        self.cond(x, jump_if, target);
                    }
                }
            }
            ExprKind::Binary(
                op @ (BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge),
                a,
                b,
            ) => {
                self.cond_compare(*op, a, b, jump_if, target, &e.span);
            }
            _ => {
                let v = self.expr(e, Some(Program::BOOL), Want::Any);
                if v.ty != Program::BOOL && v.ty != ERROR && v.ty != NEVER {
                    let t = self.tname(v.ty);
                    let mut d = Pending::new(
                        "E0102",
                        e.span.clone(),
                        format!("a condition must be Bool, found {t}"),
                        format!("this is {t}"),
                    );
                    if v.ty == Program::INT {
                        d = d.help("compare it: `x != 0`");
                    } else if matches!(ty_of(self.program, v.ty), Some(Type::Option(_))) {
                        d = d.help("test it with `.is_some()`");
                    }
                    self.err(d);
                }
                self.release(v);
                if let Some(cond) = v.reg {
                    self.e.jump(
                        if jump_if {
                            Instr::JumpIf { cond, target: 0 }
                        } else {
                            Instr::JumpIfNot { cond, target: 0 }
                        },
                        target,
                    );
                }
            }
        }
        self.e.line = old;
    }

    fn cond_compare(
        &mut self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
        jump_if: bool,
        target: Label,
        span: &Span,
    ) {
        // A literal on the left goes to the right, where it can be an immediate.
        let (op, a, b) = if self.small_int(a).is_some() && self.small_int(b).is_none() {
            let flipped = match op {
                BinOp::Lt => BinOp::Gt,
                BinOp::Le => BinOp::Ge,
                BinOp::Gt => BinOp::Lt,
                BinOp::Ge => BinOp::Le,
                other => other,
            };
            (flipped, b, a)
        } else {
            (op, a, b)
        };
        let l = self.expr(a, None, Want::Any);
        let fused =
            l.ty == Program::INT || (l.ty == Program::BOOL && matches!(op, BinOp::Eq | BinOp::Ne));
        if !fused {
            let v = self.binary_on(op, l, b, span, Want::Any);
            self.release(v);
            if let Some(cond) = v.reg {
                self.e.jump(
                    if jump_if {
                        Instr::JumpIf { cond, target: 0 }
                    } else {
                        Instr::JumpIfNot { cond, target: 0 }
                    },
                    target,
                );
            }
            return;
        }
        let op = if jump_if {
            op
        } else {
            match op {
                BinOp::Eq => BinOp::Ne,
                BinOp::Ne => BinOp::Eq,
                BinOp::Lt => BinOp::Ge,
                BinOp::Le => BinOp::Gt,
                BinOp::Gt => BinOp::Le,
                _ => BinOp::Lt,
            }
        };
        let Some(x) = l.reg else { return };
        if l.ty == Program::INT
            && let Some(n) = self.small_int(b)
        {
            self.release(l);
            self.e.jump(jump_int(op, x, IntRhs::Imm(n)), target);
            return;
        }
        let r = self.operand(b, Some(l.ty));
        self.release(l);
        self.release(r);
        if r.ty != l.ty {
            if r.ty != ERROR && r.ty != NEVER {
                let (ln, rn) = (self.tname(l.ty), self.tname(r.ty));
                self.err(Pending::new(
                    "E0100",
                    span.clone(),
                    format!("type mismatch: expected {ln}, found {rn}"),
                    format!("this is {rn}"),
                ));
            }
            return;
        }
        let Some(y) = r.reg else { return };
        self.e.jump(jump_int(op, x, IntRhs::Reg(y)), target);
    }

    // ---- strings ------------------------------------------------------------------

    /// The text form of an evaluated value, as a String value.
    pub(crate) fn text_of(&mut self, v: Val, span: &Span) -> Val {
        if v.ty == Program::STR || v.ty == ERROR || v.ty == NEVER {
            return v;
        }
        if matches!(
            ty_of(self.program, v.ty),
            Some(Type::Task(_) | Type::Channel(_))
        ) {
            let t = self.tname(v.ty);
            self.err(Pending::new(
                "E0103",
                span.clone(),
                format!("a {t} has no text form"),
                format!("this is {t}"),
            ));
            self.release(v);
            return Val::none(ERROR);
        }
        let v = self.finish(v, Want::Any);
        let Some(src) = v.reg else {
            return Val::none(ERROR);
        };
        self.release(v);
        let dst = self.e.alloc(true);
        self.e.emit(if v.ty == Program::INT {
            Instr::ToStrInt { dst, src }
        } else if v.ty == Program::FLOAT {
            Instr::ToStrFloat { dst, src }
        } else {
            Instr::ToStr { dst, src, ty: v.ty }
        });
        Val {
            reg: Some(dst),
            ty: Program::STR,
            temp: true,
        }
    }

    fn interpolate(&mut self, pieces: &[Piece], want: Want) -> Val {
        if pieces.is_empty() {
            return self.load_str("", want);
        }
        let n = pieces.len();
        let mut acc: Option<Val> = None;
        for (i, piece) in pieces.iter().enumerate() {
            let last = i + 1 == n;
            let p = match piece {
                Piece::Text(t) if last && acc.is_none() => return self.load_str(t, want),
                Piece::Text(t) => self.load_str(t, Want::Any),
                Piece::Expr(e) => {
                    let v = self.expr(e, None, Want::Any);
                    self.text_of(v, &e.span)
                }
                Piece::Formatted(e, spec, at) => self.formatted(e, spec, at),
            };
            acc = match acc {
                None if last => return p,
                None => Some(p),
                Some(a) => {
                    self.release(a);
                    self.release(p);
                    match (a.reg, p.reg) {
                        (Some(x), Some(y)) => {
                            let dst = if last {
                                self.dst(want, true)
                            } else {
                                self.e.alloc(true)
                            };
                            self.e.emit(Instr::ConcatStr { dst, a: x, b: y });
                            if last {
                                return self.done(dst, Program::STR, want);
                            }
                            Some(Val {
                                reg: Some(dst),
                                ty: Program::STR,
                                temp: true,
                            })
                        }
                        _ => Some(Val::none(ERROR)),
                    }
                }
            };
        }
        acc.unwrap_or(Val::none(ERROR))
    }

    // ---- if ----------------------------------------------------------------------

    /// Takes a branch's value as the result of an `if` or `match`: the first
    /// branch with a value decides the result register.
    pub(crate) fn branch_result(&mut self, v: Val, result: &mut Option<Reg>) {
        if result.is_some() {
            return;
        }
        let Some(r) = v.reg else { return };
        if v.temp {
            *result = Some(r);
        } else {
            let own = self.e.alloc(self.is_ref(v.ty));
            self.e.emit(Instr::Move { dst: own, src: r });
            *result = Some(own);
        }
    }

    /// The value of an `if` without `else`: `()`, which is a mistake where
    /// a value is needed. Said plainly, as what is missing: an `else`
    /// (a type mismatch spanning the whole `if` would not say so).
    fn if_without_else(&mut self, expected: Option<TypeId>, want: Want, span: &Span) -> Val {
        let needed = expected.filter(|t| ![Program::UNIT, ERROR, NEVER].contains(t));
        let Some(t) = needed.filter(|_| want != Want::Discard) else {
            return Val::none(Program::UNIT);
        };
        let t = self.tname(t);
        // The `if` keyword: the whole `if` may span many lines.
        let span = &(span.start..span.start + 2);
        let d = if want == Want::Return {
            Pending::new(
                "E0402",
                span.clone(),
                format!(
                    "`{}` must return {t}, but its body ends without a value when no branch of this `if` runs",
                    self.fn_name
                ),
                "this `if` has no `else`",
            )
            .help(format!(
                "add an `else` with a value of type {t}, or end the body with a value after the `if`"
            ))
        } else {
            Pending::new(
                "E0100",
                span.clone(),
                format!("type mismatch: expected {t}, but an `if` without `else` has no value"),
                "this `if` has no `else`",
            )
            .help(format!("add an `else` with a value of type {t}"))
        };
        self.err(d);
        Val::none(ERROR)
    }

    #[allow(clippy::too_many_arguments)]
    fn if_expr(
        &mut self,
        cond: &Expr,
        then: &Block,
        els: Option<&Expr>,
        expected: Option<TypeId>,
        want: Want,
        span: &Span,
    ) -> Val {
        let else_l = self.e.label();
        let end = self.e.label();
        self.cond(cond, false, else_l);
        let Some(els) = els else {
            let v = self.block(then, None, Want::Discard);
            self.release(v);
            self.e.bind(else_l);
            return self.if_without_else(expected, want, span);
        };
        if want == Want::Return {
            let t = self.block(then, expected, Want::Return);
            if let Some(exp) = expected {
                let span = tail_span(then);
                self.check(exp, t.ty, &span);
            }
            self.e.bind(else_l);
            let concrete = |ty: TypeId| ty != NEVER && ty != ERROR;
            let exp2 = expected.or(concrete(t.ty).then_some(t.ty));
            let f = self.expr(els, exp2, Want::Return);
            if let Some(exp) = expected
                && !matches!(els.kind, ExprKind::If(..))
            {
                let span = match &els.kind {
                    ExprKind::Block(b) => tail_span(b),
                    _ => els.span.clone(),
                };
                self.check(exp, f.ty, &span);
            }
            let ty = match expected {
                Some(exp) if t.ty != NEVER || f.ty != NEVER => exp,
                _ if t.ty == NEVER => f.ty,
                _ => t.ty,
            };
            return Val::none(ty);
        }
        if want == Want::Discard {
            let t = self.block(then, None, Want::Discard);
            self.e.jump(Instr::Jump { target: 0 }, end);
            self.e.bind(else_l);
            let f = self.expr(els, None, Want::Discard);
            self.e.bind(end);
            let ty = if t.ty == NEVER { f.ty } else { t.ty };
            return Val::none(ty);
        }
        let mut result = match want {
            Want::Into(r) => Some(r),
            _ => None,
        };
        let branch_want = |r: Option<Reg>| r.map_or(Want::Any, Want::Into);
        // `if c { None } else { Some(1) }`: the `then` branch takes its type
        // from the `else` branch when it cannot tell its own.
        let then_hint = match expected {
            Some(t) => Some(t),
            None if self.guess_block(then).is_none() => self.guess_type(els),
            None => None,
        };
        let then_is_none = then_hint.is_none()
            && then.stmts.len() == 1
            && matches!(&then.stmts[0], Stmt::Expr(e)
                if matches!(&e.kind, ExprKind::Name(n) if n == "None"))
            && self.var("None").is_none();
        if then_is_none {
            // `if c { None } else { Some(s.length()) }`, whose `else` no
            // guess can type: `None` goes into the result (an Option is a
            // reference whatever it holds) and the `else` says which
            // Option it is, as a `match`'s later arm does.
            let dst = result.unwrap_or_else(|| self.e.alloc(true));
            self.e.emit(Instr::LoadNone { dst });
            self.e.jump(Instr::Jump { target: 0 }, end);
            self.e.bind(else_l);
            let f = self.expr(els, None, Want::Into(dst));
            self.e.bind(end);
            let ty = match ty_of(self.program, f.ty) {
                Some(Type::Option(_)) => f.ty,
                _ if f.ty == ERROR => ERROR,
                _ if f.ty == NEVER => {
                    self.err(
                        Pending::new(
                            "E0104",
                            tail_span(then),
                            "cannot tell which Option type this `None` is",
                            "the type of this `None` is unknown",
                        )
                        .help("annotate the variable, as in `let x: Option[Int] = None`"),
                    );
                    ERROR
                }
                _ => {
                    let b = self.tname(f.ty);
                    self.err(
                        Pending::new(
                            "E0112",
                            els.span.clone(),
                            format!("`if` and `else` have different types: an Option and {b}"),
                            format!("this is {b}, but the `if` branch is an Option"),
                        )
                        .help("both branches of an `if` used as a value must have the same type"),
                    );
                    ERROR
                }
            };
            return Val {
                reg: Some(dst),
                ty,
                temp: want == Want::Any,
            };
        }
        let t = self.block(then, then_hint, branch_want(result));
        if let Some(exp) = expected {
            let span = then.stmts.last().map_or(then.span.clone(), |s| match s {
                Stmt::Expr(e) => e.span.clone(),
                _ => then.span.clone(),
            });
            self.check(exp, t.ty, &span);
        }
        self.branch_result(t, &mut result);
        if t.ty != NEVER {
            self.e.jump(Instr::Jump { target: 0 }, end);
        }
        self.e.bind(else_l);
        let concrete = |ty: TypeId| ty != NEVER && ty != ERROR;
        let exp2 = expected.or(concrete(t.ty).then_some(t.ty));
        let f = self.expr(els, exp2, branch_want(result));
        self.branch_result(f, &mut result);
        self.e.bind(end);
        let ty = match expected {
            Some(exp) => {
                let span = match &els.kind {
                    ExprKind::Block(b) => match b.stmts.last() {
                        Some(Stmt::Expr(e)) => e.span.clone(),
                        _ => els.span.clone(),
                    },
                    _ => els.span.clone(),
                };
                if !matches!(els.kind, ExprKind::If(..)) {
                    self.check(exp, f.ty, &span);
                }
                if t.ty == NEVER && f.ty == NEVER {
                    NEVER
                } else {
                    exp
                }
            }
            None if t.ty == NEVER => f.ty,
            None => {
                if !Self::compatible(t.ty, f.ty) {
                    let (a, b) = (self.tname(t.ty), self.tname(f.ty));
                    self.err(
                        Pending::new(
                            "E0112",
                            els.span.clone(),
                            format!("`if` and `else` have different types: {a} and {b}"),
                            format!("this is {b}, but the `if` branch is {a}"),
                        )
                        .help("both branches of an `if` used as a value must have the same type"),
                    );
                    ERROR
                } else {
                    t.ty
                }
            }
        };
        Val {
            reg: result,
            ty,
            temp: want == Want::Any && result.is_some(),
        }
    }

    // ---- literals of structs, lists, containers ------------------------------------

    fn struct_literal(
        &mut self,
        path: &[Ident],
        fields: &[(Ident, Expr)],
        span: &Span,
        want: Want,
    ) -> Val {
        let Some(ty) = self.user_type(path) else {
            // The type was reported (or was a declaration's, reported
            // there): its fields' values are checked for their own mistakes.
            for (_, e) in fields {
                self.discard_in_error(e);
            }
            return Val::none(ERROR);
        };
        let Some(Type::Struct(sid)) = ty_of(self.program, ty).cloned() else {
            let name = &path[path.len() - 1].name;
            self.err(
                Pending::new(
                    "E0203",
                    span.clone(),
                    format!("`{name}` is an enum, not a struct"),
                    "not a struct",
                )
                .help(format!("make an enum value with `{name}.Variant`")),
            );
            return Val::none(ERROR);
        };
        let def = self.program.struct_def(sid).clone();
        let classes: Vec<bool> = def.fields.iter().map(|f| self.is_ref(f.ty)).collect();
        let base = self.e.alloc_window(&classes);
        let mut seen = vec![false; def.fields.len()];
        for (name, value) in fields {
            match def.fields.iter().position(|f| f.name == name.name) {
                Some(i) if seen[i] => {
                    self.err(Pending::new(
                        "E0204",
                        name.span.clone(),
                        format!("the field `{}` is given twice", name.name),
                        "a second value for it",
                    ));
                    let v = self.expr(value, None, Want::Discard);
                    self.release(v);
                }
                Some(i) => {
                    seen[i] = true;
                    let fty = def.fields[i].ty;
                    let slot = cove_ir::op::Reg(base.0.wrapping_add(i as u16));
                    let v = self.expr(value, Some(fty), Want::Into(slot));
                    self.check(fty, v.ty, &value.span);
                }
                None => {
                    let names: Vec<&str> = def.fields.iter().map(|f| f.name.as_str()).collect();
                    let mut d = Pending::new(
                        "E0202",
                        name.span.clone(),
                        format!("the struct `{}` has no field `{}`", def.name, name.name),
                        "unknown field",
                    );
                    d = match closest(&name.name, names.iter().copied()) {
                        Some(c) => d.help(format!("did you mean `{c}`?")),
                        None => d.help(format!("its fields are: {}", names.join(", "))),
                    };
                    self.err_about(ty, d);
                    let v = self.expr(value, None, Want::Discard);
                    self.release(v);
                }
            }
        }
        let missing: Vec<&str> = def
            .fields
            .iter()
            .zip(&seen)
            .filter(|(_, s)| !**s)
            .map(|(f, _)| f.name.as_str())
            .collect();
        if !missing.is_empty() && !self.is_broken(ty) {
            let list = missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ");
            self.err(
                Pending::new(
                    "E0205",
                    span.clone(),
                    format!(
                        "missing field{} {list} in `{}`",
                        if missing.len() > 1 { "s" } else { "" },
                        def.name
                    ),
                    "every field needs a value",
                )
                .help(format!("add `{}: ...`", missing[0])),
            );
        }
        self.new_struct_from(base, classes.len(), sid, ty, want)
    }

    /// Frees the window of `count` registers from `base`, which holds the
    /// fields of a new struct `sid` of type `ty`, and makes the struct:
    /// the end of every struct and tuple literal.
    pub(super) fn new_struct_from(
        &mut self,
        base: cove_ir::op::Reg,
        count: usize,
        sid: cove_ir::types::StructId,
        ty: TypeId,
        want: Want,
    ) -> Val {
        self.e.free_window(base, count);
        let dst = self.dst(want, true);
        self.e.emit(Instr::NewStruct {
            dst,
            ty: sid,
            base,
            count: count as u16,
        });
        self.done(dst, ty, want)
    }

    /// The struct or enum type a path names (`Point`, `geo.Point`); reports
    /// why not.
    pub(crate) fn user_type(&mut self, path: &[Ident]) -> Option<TypeId> {
        let t = TypeExpr::Named {
            path: path.to_vec(),
            args: Vec::new(),
            span: path[0].span.start..path[path.len() - 1].span.end,
        };
        let ty = self.resolve_type(&t);
        match ty_of(self.program, ty) {
            Some(Type::Struct(_) | Type::Enum(_)) => Some(ty),
            None => None,
            Some(_) => {
                let name = &path[path.len() - 1];
                self.err(Pending::new(
                    "E0203",
                    name.span.clone(),
                    format!("`{}` is not a struct", name.name),
                    "a builtin type",
                ));
                None
            }
        }
    }

    /// The type of `e` when it can be told without lowering it.
    pub(crate) fn static_type(&self, e: &Expr) -> Option<TypeId> {
        match &e.kind {
            ExprKind::Int(_) => Some(Program::INT),
            ExprKind::Float(_) => Some(Program::FLOAT),
            ExprKind::Bool(_) => Some(Program::BOOL),
            ExprKind::Str(_) => Some(Program::STR),
            ExprKind::Name(n) => match self.var(n) {
                Some((_, t, _)) => Some(t).filter(|t| *t != ERROR),
                None => self.constant_type(n).filter(|t| *t != ERROR),
            },
            ExprKind::Unary(UnOp::Neg, inner) => self.static_type(inner),
            _ => None,
        }
    }

    fn list_literal(
        &mut self,
        items: &[Expr],
        span: &Span,
        expected: Option<TypeId>,
        want: Want,
    ) -> Val {
        let from_context = expected.and_then(|t| match ty_of(self.program, t) {
            Some(Type::List(e)) => Some(*e),
            _ => None,
        });
        let mut first: Option<Val> = None;
        let elem = match from_context
            .or_else(|| items.first().and_then(|e| self.static_type(e)))
            .or_else(|| items.iter().find_map(|e| self.guess_type(e)))
        {
            Some(t) => t,
            None => match items.first() {
                None => {
                    if expected != Some(ERROR) {
                        self.err(
                            Pending::new(
                                "E0113",
                                span.clone(),
                                "cannot tell the element type of this empty list",
                                "the type of `[]` is unknown here",
                            )
                            .help("write `List[Int]()`, or annotate: `let xs: List[Int] = []`"),
                        );
                    }
                    return Val::none(ERROR);
                }
                Some(e) => {
                    let v = self.expr(e, None, Want::Any);
                    first = Some(v);
                    v.ty
                }
            },
        };
        if elem == ERROR || elem == NEVER {
            if let Some(v) = first {
                self.release(v);
            }
            for e in items.iter().skip(usize::from(first.is_some())) {
                let v = self.expr(e, None, Want::Discard);
                self.release(v);
            }
            return Val::none(ERROR);
        }
        if items.len() > MAX_LITERAL {
            self.err(
                Pending::new(
                    "E0114",
                    span.clone(),
                    format!(
                        "a list literal may have at most {MAX_LITERAL} elements, this one has {}",
                        items.len()
                    ),
                    "too many elements",
                )
                .help("build a long list with `push` in a loop, or from a string with `split`"),
            );
            return Val::none(ERROR);
        }
        let class = self.is_ref(elem);
        let classes = vec![class; items.len()];
        let base = self.e.alloc_window(&classes);
        for (i, e) in items.iter().enumerate() {
            let slot = cove_ir::op::Reg(base.0.wrapping_add(i as u16));
            let v = match (i, first) {
                (0, Some(v)) => self.finish(v, Want::Into(slot)),
                _ => self.expr(e, Some(elem), Want::Into(slot)),
            };
            self.check(elem, v.ty, &e.span);
        }
        self.e.free_window(base, items.len());
        let list_ty = self.program.intern_type(Type::List(elem));
        let dst = self.dst(want, true);
        self.e.emit(Instr::NewList {
            dst,
            ty: elem,
            base,
            count: items.len() as u16,
        });
        self.done(dst, list_ty, want)
    }

    fn new_container(&mut self, ty: &TypeExpr, args: &[Expr], span: &Span, want: Want) -> Val {
        let t = self.resolve_type(ty);
        if !args.is_empty() {
            self.err(
                Pending::new(
                    "E0107",
                    span.clone(),
                    "a new container takes no arguments",
                    "remove the arguments",
                )
                .help("make it empty, then add: `let xs = List[Int]()` and `xs.push(1)`; or write `[1, 2]`"),
            );
        }
        let shape = ty_of(self.program, t).cloned();
        let instr = |dst: Reg| match &shape {
            Some(Type::List(e)) => Some(Instr::NewList {
                dst,
                ty: *e,
                base: Reg(0),
                count: 0,
            }),
            Some(Type::Map(k, v)) => Some(Instr::NewMap {
                dst,
                key: *k,
                value: *v,
            }),
            Some(Type::Channel(e)) => Some(Instr::NewChannel { dst, ty: *e }),
            _ => None,
        };
        if instr(Reg(0)).is_none() {
            return Val::none(ERROR);
        }
        let dst = self.dst(want, true);
        if let Some(i) = instr(dst) {
            self.e.emit(i);
        }
        self.done(dst, t, want)
    }

    // ---- fields and variants -----------------------------------------------------

    fn field(&mut self, base: &Expr, field: &Ident, span: &Span, want: Want) -> Val {
        if let Some(v) = self.qualified_constant(base, field, span, want) {
            return v;
        }
        if self.names_module_or_type(base) {
            // `Point.new` or `geo.Point.norm`: a function of a type's `impl`
            // is a value as a named function is (a method's `self` its
            // first parameter); `geo.twice` likewise, when exported.
            if let Some((fid, m)) = self.static_method(base, field) {
                if !self.method_visible(fid, m, field) {
                    return Val::none(ERROR);
                }
                return self.function_value(fid, want);
            }
            if let ExprKind::Name(m) = &base.kind
                && self.var(m).is_none()
                && let Some(&target) = self.scopes[self.module].imports.get(m)
                && self.scopes[target].functions.contains_key(&field.name)
            {
                let m = m.clone();
                return match self.module_function(&m, target, field) {
                    Some(fid) => self.function_value(fid, want),
                    None => Val::none(ERROR),
                };
            }
            // `Token.End`, `lexer.Token.End`, or a misuse of `module.item`.
            if let Some((ty, eid, index, arity)) = self.variant_of(base, field) {
                if arity != 0 {
                    self.err(
                        Pending::new(
                            "E0206",
                            span.clone(),
                            format!(
                                "the variant `{}` carries {arity} value{}",
                                field.name,
                                if arity == 1 { "" } else { "s" }
                            ),
                            "its payload is missing",
                        )
                        .help(format!(
                            "write `{}.{}(...)`",
                            path_text(base),
                            field.name
                        )),
                    );
                    return Val::none(ERROR);
                }
                let dst = self.dst(want, true);
                self.e.emit(Instr::NewVariant {
                    dst,
                    ty: eid,
                    variant: index,
                    base: Reg(0),
                    count: 0,
                });
                return self.done(dst, ty, want);
            }
            return Val::none(ERROR);
        }
        let b = self.expr(base, None, Want::Any);
        self.release(b);
        let Some(obj) = b.reg else {
            return Val::none(ERROR);
        };
        let Some((sid, index, fty)) = self.field_of(b.ty, field) else {
            return Val::none(ERROR);
        };
        let dst = self.dst(want, self.is_ref(fty));
        self.e.emit(Instr::GetField {
            dst,
            obj,
            ty: sid,
            field: index,
        });
        self.done(dst, fty, want)
    }

    fn return_expr(&mut self, value: Option<&Expr>, span: &Span) {
        let result = self.result_type();
        if self.inferred.is_some() {
            // A function expression whose result the body decides.
            let bare_none = value
                .is_some_and(|v| matches!(&v.kind, ExprKind::Name(n) if n == "None"))
                && self.var("None").is_none();
            if bare_none {
                // `return None` before the result type is known: see
                // `untyped_nones`.
                let dst = self.e.alloc(true);
                self.e.emit(Instr::LoadNone { dst });
                self.e.emit(Instr::Return { src: dst });
                self.e.free(dst);
                if let Some(v) = value {
                    self.untyped_nones.push(v.span.clone());
                }
                return;
            }
            let ty = match value {
                Some(v) => {
                    let val = self.expr(v, None, Want::Any);
                    let val = self.finish(val, Want::Any);
                    self.release(val);
                    match val.reg {
                        Some(src) if val.ty != Program::UNIT => self.e.emit(Instr::Return { src }),
                        _ => self.e.emit(Instr::ReturnUnit {}),
                    }
                    val.ty
                }
                None => {
                    self.e.emit(Instr::ReturnUnit {});
                    Program::UNIT
                }
            };
            if ty != NEVER
                && let Some(list) = self.inferred.as_mut()
            {
                list.push((ty, span.clone()));
            }
            return;
        }
        match value {
            Some(v) if result == Program::UNIT => {
                let val = self.expr(v, Some(Program::UNIT), Want::Discard);
                self.check(Program::UNIT, val.ty, &v.span);
                self.e.emit(Instr::ReturnUnit {});
            }
            Some(v) => {
                let val = self.expr(v, Some(result), Want::Any);
                self.check(result, val.ty, &v.span);
                self.release(val);
                if let Some(src) = val.reg {
                    self.e.emit(Instr::Return { src });
                }
            }
            None if result != Program::UNIT => {
                let t = self.tname(result);
                self.err(
                    Pending::new(
                        "E0408",
                        span.clone(),
                        format!("`return` needs a value of type {t} here"),
                        "no value returned",
                    )
                    .help("write `return value`"),
                );
            }
            None => self.e.emit(Instr::ReturnUnit {}),
        }
    }
}

impl FnCx<'_> {
    /// The type of `e` where it can be told from its shape alone, without
    /// lowering it: what lets an `if` or `match` whose first branch is
    /// `None` or `[]` take its type from a later branch. Never a wrong type:
    /// `None` where unsure.
    pub(crate) fn guess_type(&mut self, e: &Expr) -> Option<TypeId> {
        // An arithmetic chain has the type of its leftmost operand, found
        // in a loop: a chain nests as deep as it is long.
        let mut leaf = e;
        while let ExprKind::Binary(op, a, _) = &leaf.kind
            && !op.is_bool_valued()
        {
            leaf = a;
        }
        if !std::ptr::eq(leaf, e) {
            return self
                .guess_type(leaf)
                .filter(|t| [Program::INT, Program::FLOAT, Program::STR].contains(t));
        }
        let t = match &e.kind {
            ExprKind::Int(_) => Program::INT,
            ExprKind::Float(_) => Program::FLOAT,
            ExprKind::Bool(_) => Program::BOOL,
            ExprKind::Str(_) => Program::STR,
            ExprKind::Unit => Program::UNIT,
            ExprKind::Name(n) => match self.guess_names.iter().rev().find(|(g, _)| g == n) {
                Some(&(_, t)) => t,
                None => self.var(n).map(|(_, t, _)| t)?,
            },
            ExprKind::Call(callee, args) => match &callee.kind {
                ExprKind::Name(n) if n == "Some" && args.len() == 1 && self.var(n).is_none() => {
                    let inner = self.guess_type(&args[0])?;
                    self.program.intern_type(Type::Option(inner))
                }
                ExprKind::Name(n) if self.var(n).is_none() => {
                    let id = *self.scopes[self.module].functions.get(n)?;
                    self.program.functions[id.index()].result
                }
                _ => return None,
            },
            ExprKind::List(items) => {
                let elem = items.iter().find_map(|x| self.guess_type(x))?;
                self.program.intern_type(Type::List(elem))
            }
            // `(5, Some("a"))`, when every part's shape tells its type: so
            // `[(0, None), (5, Some("a"))]` is a list of those.
            ExprKind::Tuple(items) => {
                let mut parts = Vec::with_capacity(items.len());
                for x in items {
                    parts.push(self.guess_type(x)?);
                }
                super::tuples::tuple_type(self.program, &parts)
            }
            // `if a { None } else if b { None } else { Some(1) }`: any branch
            // whose shape tells its type.
            ExprKind::If(_, then, Some(els)) => match self.guess_block(then) {
                Some(t) => t,
                None => self.guess_type(els)?,
            },
            ExprKind::Match(_, arms) => arms.iter().find_map(|a| self.guess_type(&a.body))?,
            ExprKind::StructLit(path, _) if path.len() == 1 => {
                *self.scopes[self.module].types.get(&path[0].name)?
            }
            ExprKind::Block(b) => self.guess_block(b)?,
            ExprKind::Binary(..) => Program::BOOL,
            ExprKind::Unary(UnOp::Not, _) => Program::BOOL,
            _ => return None,
        };
        (t != ERROR && t != NEVER).then_some(t)
    }

    /// The type of a block's value where its shape tells it.
    pub(crate) fn guess_block(&mut self, b: &Block) -> Option<TypeId> {
        match b.stmts.last() {
            Some(Stmt::Expr(e)) if b.stmts.len() == 1 => self.guess_type(e),
            _ => None,
        }
    }
}

/// The span of a block's value: its last expression, or the whole block.
fn tail_span(b: &Block) -> Span {
    match b.stmts.last() {
        Some(Stmt::Expr(e)) => e.span.clone(),
        _ => b.span.clone(),
    }
}

/// `Token` or `lexer.Token`: the text of a path written as names and dots.
fn path_text(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(n) => n.clone(),
        ExprKind::Field(base, f) => format!("{}.{}", path_text(base), f.name),
        _ => "...".to_string(),
    }
}

/// The operands of a chain of one operator, `a && b && c`, left to right.
fn chain_operands(e: &Expr, op: BinOp) -> Vec<&Expr> {
    let mut operands = Vec::new();
    let mut cur = e;
    while let ExprKind::Binary(o, a, b) = &cur.kind
        && *o == op
    {
        operands.push(&**b);
        cur = a;
    }
    operands.push(cur);
    operands.reverse();
    operands
}

/// Whether `a op b` evaluates `b` first: an integer literal on the left
/// takes the type of the right (`2 * x` on a Float) and can be its
/// immediate (`1 + i`).
fn literal_goes_right(a: &Expr, b: &Expr) -> bool {
    int_literal_value(a).is_some() && literal_bits(b).is_none_or(|(t, _)| t == Program::FLOAT)
}

/// The value of an integer literal, negated or not, that fits an Int.
pub(crate) fn int_literal_value(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(Some(v)) => signed_int(*v, false),
        ExprKind::Unary(UnOp::Neg, inner) => match inner.kind {
            ExprKind::Int(Some(v)) => signed_int(v, true),
            _ => None,
        },
        _ => None,
    }
}
