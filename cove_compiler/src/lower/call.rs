//! Calls: user functions, builtin functions, methods of builtin types,
//! enum variant constructors, `Some`, and `spawn`.
//!
//! Arguments are evaluated straight into a window of consecutive registers
//! whose classes follow the callee's parameters (the VM copies the window
//! into the callee's frame). A call with one argument needs no window: the
//! argument's own register, even a variable's, is the base.
//!
//! Methods resolve against the builtin catalogue: the receiver's type is
//! matched against each entry's receiver signature, binding `T`, `K` and
//! `V`, so `List.sort` on a `List[Int]` picks the integer overload and on a
//! `List[Float]` is a compile-time error, never a run-time type test.

use cove_ir::builtins::{Builtin, Sig};
use cove_ir::op::{Instr, Reg};
use cove_ir::program::{FunctionId, Program};
use cove_ir::types::{EnumId, StructId, Type, TypeId};

use super::expr::closest;
use super::{FnCx, Val, Want};
use crate::ast::*;
use crate::diagnostics::Pending;
use crate::resolve::{ERROR, NEVER, ty_of};

/// What a call's arguments are checked against and how its result is made.
pub(crate) enum Callee {
    User(FunctionId),
    Variant(TypeId, EnumId, u16),
}

/// The struct of `ty` and the classes of its fields, when it is a tuple
/// that a `call.unpack` may take apart and its function's `return`s
/// return the fields of
/// ([`Emitter::returns_fields`](crate::emit::Emitter::returns_fields)):
/// one of 1 to [`MAX_UNPACKED`](cove_ir::op::MAX_UNPACKED) parts.
pub(crate) fn unpackable(program: &Program, ty: TypeId) -> Option<(StructId, Vec<bool>)> {
    let (sid, parts) = super::tuples::tuple_elems(program, ty)?;
    (1..=cove_ir::op::MAX_UNPACKED)
        .contains(&parts.len())
        .then(|| {
            let classes = parts
                .iter()
                .map(|t| crate::resolve::is_ref(program, *t))
                .collect();
            (sid, classes)
        })
}

/// What a call of a bare name (`f(x)`, no variable of that name in
/// scope) calls: the one resolution the lowering of calls and the walks
/// that ask what a call may do (`FnCx::removes_no_key`) both read.
pub(crate) enum BareCallee {
    /// `Some(x)`.
    Some,
    /// A function of this module whose signature did not resolve: its
    /// error is already reported.
    Broken,
    /// A function of this module.
    User(FunctionId),
    /// A builtin function (`println`, `assert`, ...).
    Builtin,
    /// Nothing callable of that name.
    Unknown,
}

impl FnCx<'_> {
    /// What a call of the bare name `n` calls, when no variable `n` is in
    /// scope (the caller asks [`FnCx::var`] first).
    pub(crate) fn bare_callee(&self, n: &str) -> BareCallee {
        let scope = &self.scopes[self.module];
        if n == "Some" {
            BareCallee::Some
        } else if scope.broken.contains(n) {
            BareCallee::Broken
        } else if let Some(&fid) = scope.functions.get(n) {
            BareCallee::User(fid)
        } else if Builtin::ALL
            .iter()
            .any(|b| b.signature().receiver.is_none() && b.name() == n)
        {
            BareCallee::Builtin
        } else {
            BareCallee::Unknown
        }
    }

    pub(crate) fn call(
        &mut self,
        callee: &Expr,
        args: &[Expr],
        span: &Span,
        expected: Option<TypeId>,
        want: Want,
    ) -> Val {
        match &callee.kind {
            ExprKind::Name(n) if self.var(n).is_none() => {
                match self.bare_callee(n) {
                    BareCallee::Some => return self.some(args, span, expected, want),
                    BareCallee::Broken => {
                        self.discard_args(args);
                        return Val::none(ERROR);
                    }
                    BareCallee::User(fid) => return self.call_user(fid, n, args, span, want),
                    BareCallee::Builtin => return self.call_builtin_fn(n, args, span, want),
                    BareCallee::Unknown => {}
                }
                if self.scopes[self.module].types.contains_key(n) {
                    self.err(
                        Pending::new(
                            "E0210",
                            callee.span.clone(),
                            format!("`{n}` is a type, not a function"),
                            "cannot be called",
                        )
                        .help(format!("make a struct with `{n} {{ field: value }}`, an enum value with `{n}.Variant(...)`")),
                    );
                } else {
                    self.unknown_name(n, &callee.span);
                }
                self.discard_args(args);
                Val::none(ERROR)
            }
            ExprKind::Field(base, name) if self.names_module_or_type(base) => {
                if let ExprKind::Name(m) = &base.kind
                    && let Some(&target) = self.scopes[self.module].imports.get(m)
                    && self.var(m).is_none()
                {
                    if let Some(fid) = self.module_function(m, target, name) {
                        let qualified = format!("{m}.{}", name.name);
                        return self.call_user(fid, &qualified, args, span, want);
                    }
                    self.discard_args(args);
                    return Val::none(ERROR);
                }
                // `Point.new(1, 2)`: a function of the type's `impl`.
                if let Some((fid, module)) = self.static_method(base, name) {
                    return self.call_impl(fid, module, name, None, args, span, want, false);
                }
                match self.variant_of(base, name) {
                    Some((ty, eid, index, _)) => self.call_with(
                        Callee::Variant(ty, eid, index),
                        &name.name,
                        None,
                        args,
                        span,
                        want,
                    ),
                    None => {
                        self.discard_args(args);
                        Val::none(ERROR)
                    }
                }
            }
            ExprKind::Field(base, name) => self.method_call(base, name, args, span, want),
            ExprKind::Name(n) => {
                let f = self.expr(callee, None, Want::Any);
                if !matches!(ty_of(self.program, f.ty), Some(Type::Func(..))) && f.ty != ERROR {
                    self.release(f);
                    self.err(Pending::new(
                        "E0210",
                        callee.span.clone(),
                        format!("`{n}` is a variable, not a function"),
                        "cannot be called",
                    ));
                    self.discard_args(args);
                    return Val::none(ERROR);
                }
                self.call_value(f, args, span, want)
            }
            _ => {
                let f = self.expr(callee, None, Want::Any);
                self.call_value(f, args, span, want)
            }
        }
    }

    /// Checks the arguments of a call that was reported (an unknown or
    /// invisible callee, a wrong count, a receiver in error), for their
    /// own mistakes, and throws their values away.
    pub(crate) fn discard_args(&mut self, args: &[Expr]) {
        for a in args {
            self.discard_in_error(a);
        }
    }

    /// Checks `value`, whose place was reported (an argument of a call in
    /// error, a field of an unknown struct, an assignment to no place),
    /// for its own mistakes, and throws it away. It is expected to be of
    /// the error type, so what only the place could tell — the element
    /// type of a `[]`, the `Option` of a `None`, a function expression's
    /// parameter types — is not reported as well.
    pub(crate) fn discard_in_error(&mut self, value: &Expr) {
        let v = self.expr(value, Some(ERROR), Want::Discard);
        self.release(v);
    }

    /// Function `name` of imported module `m`; reports a missing or private one.
    pub(crate) fn module_function(
        &mut self,
        m: &str,
        target: usize,
        name: &Ident,
    ) -> Option<FunctionId> {
        match self.scopes[target].functions.get(&name.name) {
            Some(&fid) => {
                if !self.program.functions[fid.index()].exported {
                    self.err(
                        Pending::new(
                            "E0305",
                            name.span.clone(),
                            format!("`{}` is private to module `{m}`", name.name),
                            "not exported",
                        )
                        .help(format!(
                            "mark it `export fn {}` in {m}.cove to use it here",
                            name.name
                        )),
                    );
                    return None;
                }
                Some(fid)
            }
            None => {
                let names: Vec<&str> = self.scopes[target]
                    .functions
                    .keys()
                    .map(String::as_str)
                    .collect();
                let mut d = Pending::new(
                    "E0209",
                    name.span.clone(),
                    format!("module `{m}` has no function `{}`", name.name),
                    "not found in that module",
                );
                if let Some(c) = closest(&name.name, names.into_iter()) {
                    d = d.help(format!("did you mean `{m}.{c}`?"));
                }
                self.err(d);
                None
            }
        }
    }

    /// The enum variant `base.field` names: its enum type, id, index and
    /// payload arity; reports why not when `base` names a type.
    pub(crate) fn variant_of(
        &mut self,
        base: &Expr,
        field: &Ident,
    ) -> Option<(TypeId, EnumId, u16, usize)> {
        let ty = match &base.kind {
            ExprKind::Name(n) => match self.scopes[self.module].types.get(n) {
                Some(&t) => t,
                None => {
                    // A module: `m.x` that is not a call.
                    if let Some(&target) = self.scopes[self.module].imports.get(n) {
                        if self.scopes[target].types.contains_key(&field.name) {
                            self.err(Pending::new(
                                "E0201",
                                field.span.clone(),
                                format!("`{n}.{}` is a type, not a value", field.name),
                                "a type name here",
                            ));
                        } else if !self.scopes[target].functions.contains_key(&field.name) {
                            self.err(Pending::new(
                                "E0209",
                                field.span.clone(),
                                format!("module `{n}` has no item `{}`", field.name),
                                "not found in that module",
                            ));
                        }
                    }
                    return None;
                }
            },
            ExprKind::Field(m, e) => {
                let ExprKind::Name(m) = &m.kind else {
                    return None;
                };
                let path = [
                    Ident {
                        name: m.clone(),
                        span: base.span.start..base.span.start + m.len(),
                    },
                    e.clone(),
                ];
                self.user_type(&path)?
            }
            _ => return None,
        };
        match ty_of(self.program, ty).cloned() {
            Some(Type::Enum(eid)) => {
                let def = self.program.enum_def(eid);
                match def.variants.iter().position(|v| v.name == field.name) {
                    Some(i) => Some((ty, eid, i as u16, def.variants[i].fields.len())),
                    None => {
                        let names: Vec<String> =
                            def.variants.iter().map(|v| v.name.clone()).collect();
                        let mut d = Pending::new(
                            "E0207",
                            field.span.clone(),
                            format!("the enum `{}` has no variant `{}`", def.name, field.name),
                            "unknown variant",
                        );
                        d = match closest(&field.name, names.iter().map(String::as_str)) {
                            Some(c) => d.help(format!("did you mean `{c}`?")),
                            None => d.help(format!("its variants are: {}", names.join(", "))),
                        };
                        self.err_about(ty, d);
                        None
                    }
                }
            }
            Some(Type::Struct(_)) => {
                let name = self.tname(ty);
                self.err(
                    Pending::new(
                        "E0208",
                        base.span.start..field.span.end,
                        format!(
                            "`{name}` is a struct, so it has no variants, and its `impl` has no function `{}`",
                            field.name
                        ),
                        "neither a variant nor a function",
                    )
                    .help(format!("make a `{name}` with `{name} {{ field: value }}`")),
                );
                None
            }
            _ => None,
        }
    }

    fn some(&mut self, args: &[Expr], span: &Span, expected: Option<TypeId>, want: Want) -> Val {
        if args.len() != 1 {
            self.err(Pending::new(
                "E0211",
                span.clone(),
                format!("`Some` takes 1 value, but {} were given", args.len()),
                "wrong number of values",
            ));
            self.discard_args(args);
            return Val::none(ERROR);
        }
        let inner = expected.and_then(|t| match ty_of(self.program, t) {
            Some(Type::Option(i)) => Some(*i),
            _ => None,
        });
        let v = self.expr(&args[0], inner, Want::Any);
        if let Some(i) = inner {
            self.check(i, v.ty, &args[0].span);
        }
        let ty = inner.unwrap_or(v.ty);
        if ty == ERROR || ty == NEVER {
            self.release(v);
            return Val::none(ERROR);
        }
        let v = self.finish(v, Want::Any);
        self.release(v);
        let Some(src) = v.reg else {
            return Val::none(ERROR);
        };
        let opt = self.program.intern_type(Type::Option(ty));
        let dst = self.dst(want, true);
        self.e.emit(Instr::NewSome { dst, src, ty });
        self.done(dst, opt, want)
    }

    fn call_user(
        &mut self,
        fid: FunctionId,
        name: &str,
        args: &[Expr],
        span: &Span,
        want: Want,
    ) -> Val {
        self.call_with(Callee::User(fid), name, None, args, span, want)
    }

    /// Calls — or, when `spawned`, spawns — the `impl` function `fid` of
    /// `module`, written `name` here, with `receiver` (a method's value)
    /// before `args`: every call of a type's function found through the
    /// type or a value goes this way. `ERROR`, with the receiver and the
    /// arguments dropped, when it is private to another module
    /// ([`FnCx::method_visible`] reports it).
    #[allow(clippy::too_many_arguments)]
    fn call_impl(
        &mut self,
        fid: FunctionId,
        module: usize,
        name: &Ident,
        receiver: Option<Val>,
        args: &[Expr],
        span: &Span,
        want: Want,
        spawned: bool,
    ) -> Val {
        if !self.method_visible(fid, module, name) {
            if let Some(recv) = receiver {
                self.release(recv);
            }
            self.discard_args(args);
            return Val::none(ERROR);
        }
        let label = self.program.functions[fid.index()].name.clone();
        self.call_emit(
            Callee::User(fid),
            &label,
            receiver,
            args,
            span,
            want,
            spawned,
        )
    }

    /// Checks the arguments of a call against the parameters and emits it.
    /// `receiver` is an already evaluated receiver of a method.
    pub(crate) fn call_with(
        &mut self,
        callee: Callee,
        name: &str,
        receiver: Option<Val>,
        args: &[Expr],
        span: &Span,
        want: Want,
    ) -> Val {
        self.call_emit(callee, name, receiver, args, span, want, false)
    }

    #[allow(clippy::too_many_arguments)]
    fn call_emit(
        &mut self,
        callee: Callee,
        name: &str,
        receiver: Option<Val>,
        args: &[Expr],
        span: &Span,
        want: Want,
        spawn: bool,
    ) -> Val {
        // The call a `let (..)` asked to take its result apart into
        // `requested` registers (see `FnCx::unpack_at`).
        let requested = match &self.unpack_at {
            Some((at, parts)) if !spawn && at == span => Some(*parts),
            _ => None,
        };
        let (params, result): (Vec<TypeId>, TypeId) = match &callee {
            Callee::User(fid) => {
                let f = &self.program.functions[fid.index()];
                (f.params.clone(), f.result)
            }
            Callee::Variant(ty, eid, index) => (
                self.program.enum_def(*eid).variants[*index as usize]
                    .fields
                    .clone(),
                *ty,
            ),
        };
        // A method's receiver is its first parameter.
        let params = match (&callee, &receiver) {
            (Callee::User(_), Some(_)) => params[1..].to_vec(),
            _ => params,
        };
        if params.len() != args.len() {
            let what = match callee {
                Callee::Variant(..) => "values",
                _ => "arguments",
            };
            let what = if params.len() == 1 {
                what.trim_end_matches('s')
            } else {
                what
            };
            let mut d = Pending::new(
                "E0211",
                span.clone(),
                format!(
                    "`{name}` takes {} {what}, but {} {} given",
                    params.len(),
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
                format!("expected {} {what}", params.len()),
            );
            // `Point.area(2)`: a method called through its type, its
            // receiver left out.
            if let (Callee::User(fid), None) = (&callee, &receiver)
                && args.len() + 1 == params.len()
                && self.scopes.iter().any(|s| s.methods.contains(fid))
            {
                let short = name.rsplit('.').next().unwrap_or(name);
                d = d.help(format!(
                    "`{short}` is a method: call it on a value, `value.{short}(...)`, \
                     or give the value first, `{name}(value, ...)`"
                ));
            }
            self.err(d);
            if let Some(r) = receiver {
                self.release(r);
            }
            self.discard_args(args);
            return Val::none(if matches!(callee, Callee::Variant(..)) {
                result
            } else {
                ERROR
            });
        }
        let call = matches!(callee, Callee::User(_)) && !spawn;
        let (base, count, window) = self.args_into_window(&params, receiver, args, call);
        let class = self.is_ref(result);
        match callee {
            Callee::User(func) => {
                if spawn {
                    let task = self.program.intern_type(Type::Task(result));
                    let dst = self.dst(want, true);
                    self.e.emit(Instr::Spawn {
                        dst,
                        func,
                        base,
                        count,
                    });
                    self.free_window(window);
                    return self.done(dst, task, want);
                }
                debug_assert!(
                    self.e.top() <= usize::from(base.0) + usize::from(count),
                    "a register above a call's window is in use"
                );
                self.free_window(window);
                if let Some(parts) = requested
                    && let Some((_, classes)) = unpackable(self.program, result)
                    && parts == classes.len()
                {
                    self.unpacked = true;
                    let dst = self.e.alloc_window(&classes);
                    self.e.emit(Instr::CallUnpack {
                        dst,
                        func,
                        base,
                        count,
                    });
                    return Val {
                        reg: Some(dst),
                        ty: result,
                        temp: true,
                    };
                }
                let dst = self.dst(want, class);
                self.e.emit(Instr::Call {
                    dst,
                    func,
                    base,
                    count,
                });
                // A function returning this function's tuple returns its
                // fields too (each is lowered with `returns_fields`): a
                // `return` of this call's result may take them apart.
                if result == self.result {
                    self.e.called_for_fields();
                }
                self.done(dst, result, want)
            }
            Callee::Variant(_, ty, variant) => {
                self.free_window(window);
                let dst = self.dst(want, true);
                self.e.emit(Instr::NewVariant {
                    dst,
                    ty,
                    variant,
                    base,
                    count,
                });
                self.done(dst, result, want)
            }
        }
    }

    /// Evaluates the arguments (after an optional evaluated receiver) into
    /// consecutive registers; returns the base, the count, and the
    /// registers to free afterwards.
    ///
    /// For `call`, a call to a Cove function, the window is the callee's
    /// frame: it must start above every register in use (see
    /// [`Emitter::top`](crate::emit::Emitter::top)), and only a temporary
    /// may be used where it already is, since the callee may overwrite its
    /// parameters' registers. Other windows are read and left as they were,
    /// so a variable may serve in place.
    fn args_into_window(
        &mut self,
        params: &[TypeId],
        receiver: Option<Val>,
        args: &[Expr],
        call: bool,
    ) -> (Reg, u16, Vec<Reg>) {
        let total = params.len() + usize::from(receiver.is_some());
        if total == 0 {
            return (self.arg_window(&[], call), 0, Vec::new());
        }
        let mut classes = Vec::with_capacity(total);
        if let Some(r) = receiver {
            classes.push(self.is_ref(r.ty));
        }
        classes.extend(params.iter().map(|t| self.is_ref(*t)));
        if total == 1 {
            let v = match receiver {
                Some(r) => r,
                None => {
                    let v = self.expr(&args[0], Some(params[0]), Want::Any);
                    self.check(params[0], v.ty, &args[0].span);
                    v
                }
            };
            let v = self.finish(v, Want::Any);
            return match v.reg {
                Some(r) if call && !(v.temp && self.e.is_top(r)) => {
                    let base = self.arg_window(&classes, call);
                    self.finish(v, Want::Into(base));
                    (base, 1, vec![base])
                }
                Some(r) => (r, 1, if v.temp { vec![r] } else { Vec::new() }),
                None if call => {
                    let base = self.arg_window(&classes, call);
                    (base, 1, vec![base])
                }
                None => (Reg(0), 1, Vec::new()),
            };
        }
        // The first value (the receiver, or the first argument) is
        // evaluated where it likes; if the registers after it are free, the
        // window starts there and it is not moved. A `var` is not used in
        // place: a later argument could assign it before the call.
        let first_in_place = receiver.is_some()
            || matches!(&args[0].kind, ExprKind::Name(n) if self.var(n).is_some());
        if !first_in_place {
            let base = self.arg_window(&classes, call);
            for (i, a) in args.iter().enumerate() {
                let reg = Reg(base.0.wrapping_add(i as u16));
                let v = self.expr(a, Some(params[i]), Want::Into(reg));
                self.check(params[i], v.ty, &a.span);
            }
            let window = (0..total as u16)
                .map(|i| Reg(base.0.wrapping_add(i)))
                .collect();
            return (base, total as u16, window);
        }
        let (first, rest_args, rest_params) = match receiver {
            Some(r) => (r, args, params),
            None => {
                let v = self.expr(&args[0], Some(params[0]), Want::Any);
                self.check(params[0], v.ty, &args[0].span);
                (v, &args[1..], &params[1..])
            }
        };
        let first = self.finish(first, Want::Any);
        let in_place = first.reg.filter(|&r| {
            let usable = if call {
                first.temp && self.e.is_top(r)
            } else {
                first.temp || !self.is_mutable_reg(r) || !rest_args.iter().any(may_assign)
            };
            usable && self.e.window_after(r, &classes[1..])
        });
        let base = match in_place {
            Some(r) => r,
            None => {
                let base = self.arg_window(&classes, call);
                self.finish(first, Want::Into(base));
                base
            }
        };
        for (i, a) in rest_args.iter().enumerate() {
            let reg = Reg(base.0.wrapping_add(1).wrapping_add(i as u16));
            let v = self.expr(a, Some(rest_params[i]), Want::Into(reg));
            self.check(rest_params[i], v.ty, &a.span);
        }
        let mut window: Vec<Reg> = (1..total as u16)
            .map(|i| Reg(base.0.wrapping_add(i)))
            .collect();
        if in_place.is_none() || first.temp {
            window.push(base);
        }
        (base, total as u16, window)
    }

    /// A window of registers of `classes`: a call's, above every register
    /// in use, or any other's, the lowest that fits (see `args_into_window`).
    fn arg_window(&mut self, classes: &[bool], call: bool) -> Reg {
        if call {
            self.e.call_window(classes)
        } else {
            self.e.alloc_window(classes)
        }
    }

    fn free_window(&mut self, window: Vec<Reg>) {
        for r in window {
            self.e.free(r);
        }
    }

    fn call_builtin_fn(&mut self, n: &str, args: &[Expr], span: &Span, want: Want) -> Val {
        if matches!(n, "print" | "println" | "eprintln") {
            let b = match n {
                "print" => Builtin::Print,
                "println" => Builtin::Println,
                _ => Builtin::Eprintln,
            };
            if args.len() != 1 {
                self.err(
                    Pending::new(
                        "E0211",
                        span.clone(),
                        format!("`{n}` takes 1 argument, but {} were given", args.len()),
                        "expected 1 argument",
                    )
                    .help("print several values with interpolation: println(\"{a} {b}\")"),
                );
                self.discard_args(args);
                return Val::none(ERROR);
            }
            let v = self.expr(&args[0], None, Want::Any);
            let text = self.text_of(v, &args[0].span);
            let text = self.finish(text, Want::Any);
            self.release(text);
            let Some(base) = text.reg else {
                return Val::none(Program::UNIT);
            };
            let dst = self.dst(want, false);
            self.e.emit(Instr::CallBuiltin {
                dst,
                builtin: b,
                base,
                count: 1,
            });
            return self.done(dst, Program::UNIT, want);
        }
        let overloads: Vec<Builtin> = Builtin::ALL
            .iter()
            .copied()
            .filter(|b| b.signature().receiver.is_none() && b.name() == n)
            .collect();
        let Some(b) = overloads
            .iter()
            .copied()
            .find(|b| b.signature().params.len() == args.len())
        else {
            let counts: Vec<String> = overloads
                .iter()
                .map(|b| b.signature().params.len().to_string())
                .collect();
            self.err(Pending::new(
                "E0211",
                span.clone(),
                format!(
                    "`{n}` takes {} argument{}, but {} {} given",
                    counts.join(" or "),
                    if counts == ["1"] { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
                "wrong number of arguments",
            ));
            self.discard_args(args);
            return Val::none(ERROR);
        };
        let sig = b.signature();
        let mut binds = [None; 3];
        let params: Vec<TypeId> = sig
            .params
            .iter()
            .map(|s| self.inst(*s, &mut binds))
            .collect();
        let result = self.inst(sig.result, &mut binds);
        if b == Builtin::Exit {
            // `exit` never returns, so it fits wherever a value is expected:
            // `None => exit(1)` in a match of Ints.
            let v = self.builtin_emit(b, &params, result, None, args, Want::Any);
            self.release(v);
            return Val::none(NEVER);
        }
        self.builtin_emit(b, &params, result, None, args, want)
    }

    pub(crate) fn builtin_emit(
        &mut self,
        b: Builtin,
        params: &[TypeId],
        result: TypeId,
        receiver: Option<Val>,
        args: &[Expr],
        want: Want,
    ) -> Val {
        let (base, count, window) = self.args_into_window(params, receiver, args, false);
        self.free_window(window);
        let dst = self.dst(want, self.is_ref(result));
        // `opt.unwrap()` is the instruction a `Some(x)` pattern unwraps
        // with, which fails as the builtin does: one dispatch where a call
        // of a builtin was three (its arguments, the call, the answer).
        // Only here is its operand's type known, which `unwrap` names.
        self.e.emit(match b {
            Builtin::OptionUnwrap => Instr::Unwrap {
                dst,
                opt: base,
                ty: result,
            },
            _ => Instr::CallBuiltin {
                dst,
                builtin: b,
                base,
                count,
            },
        });
        self.done(dst, result, want)
    }

    fn method_call(
        &mut self,
        base: &Expr,
        name: &Ident,
        args: &[Expr],
        span: &Span,
        want: Want,
    ) -> Val {
        if let Some(done) = self.map_get_or(base, name, args, want) {
            return done;
        }
        let recv = self.expr(base, None, Want::Any);
        if recv.ty == ERROR || recv.ty == NEVER {
            self.release(recv);
            self.discard_args(args);
            return Val::none(ERROR);
        }
        let recv = match self.user_method_call(recv, name, args, span, want) {
            Ok(done) => return done,
            Err(recv) => recv,
        };
        // `x.to_string()`: the text form, as interpolation makes it.
        if name.name == "to_string" && args.is_empty() {
            let text = self.text_of(recv, span);
            return self.finish(text, want);
        }
        let recv = match self.list_fn_call(recv, name, args, span, want) {
            Ok(done) => return done,
            Err(recv) => recv,
        };
        let recv = if args.is_empty() {
            match self.tuple_list(recv, name, span, want) {
                Ok(done) => return done,
                Err(recv) => recv,
            }
        } else {
            let listed = match ty_of(self.program, recv.ty) {
                Some(Type::Map(..)) => name.name == "entries",
                Some(Type::List(_)) => name.name == "enumerate",
                _ => false,
            };
            if listed {
                self.err(Pending::new(
                    "E0211",
                    span.clone(),
                    format!(
                        "`{}` takes no arguments, but {} {} given",
                        name.name,
                        args.len(),
                        if args.len() == 1 { "was" } else { "were" }
                    ),
                    "expected no arguments",
                ));
                self.release(recv);
                self.discard_args(args);
                return Val::none(ERROR);
            }
            recv
        };
        let Some((b, params, result)) = self.resolve_method(recv.ty, name) else {
            self.release(recv);
            self.discard_args(args);
            return Val::none(ERROR);
        };
        if params.len() != args.len() {
            self.err(Pending::new(
                "E0211",
                span.clone(),
                format!(
                    "`{}` takes {} argument{}, but {} {} given",
                    name.name,
                    params.len(),
                    if params.len() == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
                format!(
                    "expected {} argument{}",
                    params.len(),
                    if params.len() == 1 { "" } else { "s" }
                ),
            ));
            self.release(recv);
            self.discard_args(args);
            return Val::none(ERROR);
        }
        if b == Builtin::ListLength
            && let Some(list) = recv.reg
        {
            // The IR has an opcode for it: no builtin call.
            self.release(recv);
            let dst = self.dst(want, false);
            self.e.emit(Instr::LenList { dst, list });
            return self.done(dst, Program::INT, want);
        }
        if b == Builtin::ListPush
            && params[0] != Program::UNIT
            && let Some(list) = recv.reg
            && (recv.temp || !self.is_mutable_reg(list) || args[0].assigns_nothing())
        {
            // The IR has an opcode for it too: the list is not moved beside
            // its argument, and there is no builtin call. Not on a `var`
            // whose argument could assign it before the push (the push
            // would then read the new list, where the call pushes into the
            // one it moved beside its argument first), nor of `()`
            // elements, which no register holds.
            let v = self.expr(&args[0], Some(params[0]), Want::Any);
            self.check(params[0], v.ty, &args[0].span);
            let v = self.finish(v, Want::Any);
            if let Some(src) = v.reg {
                self.e.emit(Instr::PushList {
                    list,
                    src,
                    ty: params[0],
                });
            }
            self.release(v);
            self.release(recv);
            return self.finish(Val::none(Program::UNIT), want);
        }
        if b == Builtin::ListPop && want == Want::Discard {
            // A pop whose value is thrown away (`while xs.length() > 0 {
            // xs.pop() }`) only drops the last element: no `Option` is
            // made for nothing. The value keeps `pop`'s type, so the code
            // around it types as before.
            self.builtin_emit(
                Builtin::ListDropLast,
                &params,
                Program::UNIT,
                Some(recv),
                args,
                want,
            );
            return Val::none(result);
        }
        self.builtin_emit(b, &params, result, Some(recv), args, want)
    }

    /// The builtin method `name` of a receiver of type `recv`, with its
    /// parameter and result types; reports why there is none.
    fn resolve_method(
        &mut self,
        recv: TypeId,
        name: &Ident,
    ) -> Option<(Builtin, Vec<TypeId>, TypeId)> {
        let candidates: Vec<Builtin> = Builtin::ALL
            .iter()
            .copied()
            .filter(|b| b.signature().receiver.is_some() && b.method_name() == name.name)
            .collect();
        for &b in &candidates {
            let sig = b.signature();
            let mut binds = [None; 3];
            if let Some(r) = sig.receiver
                && self.match_sig(r, recv, &mut binds)
            {
                let params = sig
                    .params
                    .iter()
                    .map(|s| self.inst(*s, &mut binds))
                    .collect();
                let result = self.inst(sig.result, &mut binds);
                return Some((b, params, result));
            }
        }
        let t = self.tname(recv);
        let suffix = format!(".{}", name.name);
        if candidates.is_empty()
            && matches!(
                ty_of(self.program, recv),
                Some(Type::Struct(_) | Type::Enum(_))
            )
            && self.scopes[self.module]
                .broken
                .iter()
                .any(|f| f.ends_with(&suffix))
        {
            // A method of an `impl` whose header or type was broken, as
            // `impl Pointt { fn norm(self) ... }`: already reported there.
            return None;
        }
        if candidates.is_empty() {
            let kind = receiver_kind(self.program, recv);
            let mut d = Pending::new(
                "E0212",
                name.span.clone(),
                format!("{t} has no method `{}`", name.name),
                "unknown method",
            );
            let own: Vec<&str> = Builtin::ALL
                .iter()
                .filter(|b| {
                    b.signature().receiver.is_some() && b.name().split('.').next() == Some(kind)
                })
                .map(|b| b.method_name())
                .collect();
            let is_field = matches!(ty_of(self.program, recv), Some(Type::Struct(sid))
                if self.program.struct_def(*sid).fields.iter().any(|f| f.name == name.name));
            let free = self.scopes[self.module]
                .functions
                .get(&name.name)
                .filter(|_| !name.name.contains('.'))
                .copied();
            if is_field {
                d = d.help(format!(
                    "`{}` is a field: write `.{}` without parentheses",
                    name.name, name.name
                ));
            } else if let Some(fid) = free {
                // A free function is called as one: only the functions of
                // an `impl` with `self` are methods.
                let takes = self.program.functions[fid.index()].params.first() == Some(&recv);
                let user = matches!(
                    ty_of(self.program, recv),
                    Some(Type::Struct(_) | Type::Enum(_))
                );
                d = d.help(if takes && user {
                    format!(
                        "`{n}` is a function, not a method: call it as `{n}(value, ...)`, \
                         or declare it in an `impl {t}` block with `self` as its first parameter",
                        n = name.name
                    )
                } else if takes {
                    format!(
                        "`{n}` is a function, not a method: call it as `{n}(value, ...)`",
                        n = name.name
                    )
                } else {
                    format!(
                        "`{n}` is a function, not a method: call it as `{n}(...)`",
                        n = name.name
                    )
                });
            } else if matches!(
                ty_of(self.program, recv),
                Some(Type::Struct(_) | Type::Enum(_))
            ) {
                d = d.help(format!(
                    "declare it in an `impl {t}` block: `fn {}(self) {{ ... }}`",
                    name.name
                ));
            } else if name.name == "to_string" {
                d = d.help("make text with interpolation: \"{x}\"");
            } else if let Some(c) = closest(&name.name, own.iter().copied()) {
                d = d.help(format!("did you mean `{c}`?"));
            }
            self.err(d);
        } else {
            let on: Vec<String> = candidates
                .iter()
                .filter_map(|b| b.signature().receiver)
                .map(sig_text)
                .collect();
            self.err(
                Pending::new(
                    "E0213",
                    name.span.clone(),
                    format!("`{}` is not available on {t}", name.name),
                    format!("this is called on {t}"),
                )
                .help(format!("`{}` works on {}", name.name, on.join(", "))),
            );
        }
        None
    }

    /// Whether `ty` fits the signature type `sig`, binding `T`, `K`, `V`.
    fn match_sig(&self, sig: Sig, ty: TypeId, binds: &mut [Option<TypeId>; 3]) -> bool {
        let bind = |slot: usize, binds: &mut [Option<TypeId>; 3]| match binds[slot] {
            Some(t) => t == ty,
            None => {
                binds[slot] = Some(ty);
                true
            }
        };
        let t = ty_of(self.program, ty);
        match (sig, t) {
            (Sig::Unit, _) => ty == Program::UNIT,
            (Sig::Bool, _) => ty == Program::BOOL,
            (Sig::Int, _) => ty == Program::INT,
            (Sig::Float, _) => ty == Program::FLOAT,
            (Sig::Str, _) => ty == Program::STR,
            (Sig::T, _) => bind(0, binds),
            (Sig::K, _) => bind(1, binds),
            (Sig::V, _) => bind(2, binds),
            (Sig::List(s), Some(Type::List(e))) => self.match_sig(*s, *e, binds),
            (Sig::Opt(s), Some(Type::Option(e))) => self.match_sig(*s, *e, binds),
            (Sig::Task(s), Some(Type::Task(e))) => self.match_sig(*s, *e, binds),
            (Sig::Channel(s), Some(Type::Channel(e))) => self.match_sig(*s, *e, binds),
            (Sig::Map(k, v), Some(Type::Map(a, b))) => {
                let (a, b) = (*a, *b);
                self.match_sig(*k, a, binds) && self.match_sig(*v, b, binds)
            }
            _ => false,
        }
    }

    /// The type a signature type stands for under the bindings.
    fn inst(&mut self, sig: Sig, binds: &mut [Option<TypeId>; 3]) -> TypeId {
        match sig {
            Sig::Unit => Program::UNIT,
            Sig::Bool => Program::BOOL,
            Sig::Int => Program::INT,
            Sig::Float => Program::FLOAT,
            Sig::Str => Program::STR,
            Sig::T => binds[0].unwrap_or(ERROR),
            Sig::K => binds[1].unwrap_or(ERROR),
            Sig::V => binds[2].unwrap_or(ERROR),
            Sig::List(s) => {
                let e = self.inst(*s, binds);
                self.program.intern_type(Type::List(e))
            }
            Sig::Opt(s) => {
                let e = self.inst(*s, binds);
                self.program.intern_type(Type::Option(e))
            }
            Sig::Task(s) => {
                let e = self.inst(*s, binds);
                self.program.intern_type(Type::Task(e))
            }
            Sig::Channel(s) => {
                let e = self.inst(*s, binds);
                self.program.intern_type(Type::Channel(e))
            }
            Sig::Map(k, v) => {
                let k = self.inst(*k, binds);
                let v = self.inst(*v, binds);
                self.program.intern_type(Type::Map(k, v))
            }
        }
    }

    pub(crate) fn spawn(&mut self, call: &Expr, want: Want) -> Val {
        let ExprKind::Call(callee, args) = &call.kind else {
            self.err(
                Pending::new(
                    "E0214",
                    call.span.clone(),
                    "`spawn` needs a function call",
                    "not a call",
                )
                .help("write `spawn work(arguments)`"),
            );
            return Val::none(ERROR);
        };
        let fid = match &callee.kind {
            ExprKind::Name(n) if self.var(n).is_none() => self.scopes[self.module]
                .functions
                .get(n)
                .copied()
                .map(|f| (f, n.clone())),
            ExprKind::Field(base, name) => match &base.kind {
                ExprKind::Name(m) if self.var(m).is_none() => {
                    match self.scopes[self.module].imports.get(m).copied() {
                        Some(target) => match self.module_function(m, target, name) {
                            Some(f) => Some((f, format!("{m}.{}", name.name))),
                            None => {
                                // Private or missing, and said so: not also
                                // "not a user function".
                                self.discard_args(args);
                                return Val::none(ERROR);
                            }
                        },
                        None => None,
                    }
                }
                _ => None,
            },
            _ => None,
        };
        if let (None, ExprKind::Field(base, name)) = (&fid, &callee.kind) {
            // `spawn Point.new(1, 2)` and `spawn p.work(10)`: a function of
            // an `impl`, through its type or on a value (the receiver is
            // its first argument, deep-copied to the task as the others).
            if let Some((fid, module)) = self.static_method(base, name) {
                return self.call_impl(fid, module, name, None, args, &call.span, want, true);
            }
            if !self.names_module_or_type(base) {
                let recv = self.expr(base, None, Want::Any);
                match self.type_function(recv.ty, &name.name) {
                    Some((fid, module)) if self.scopes[module].methods.contains(&fid) => {
                        return self.call_impl(
                            fid,
                            module,
                            name,
                            Some(recv),
                            args,
                            &call.span,
                            want,
                            true,
                        );
                    }
                    _ if recv.ty == ERROR => {
                        self.release(recv);
                        self.discard_args(args);
                        return Val::none(ERROR);
                    }
                    _ => self.release(recv),
                }
            }
        }
        let Some((fid, name)) = fid else {
            let value = matches!(&callee.kind, ExprKind::Name(n) if self.var(n).is_some());
            let chained = matches!(&callee.kind, ExprKind::Field(base, _)
                if matches!(base.kind, ExprKind::Call(..)));
            let help = if value {
                "a task starts a declared function or method, not a function value (whose \
                 captured `var`s the task could not share): declare it with `fn` and spawn that"
            } else if chained {
                // `spawn work(3).join()`: `spawn` takes the whole chain.
                "`spawn` starts the whole call after it, here a method of a call's result: \
                 write `(spawn work(x)).join()`, or `let t = spawn work(x)` and then `t.join()`"
            } else {
                "wrap the work in a function and spawn that: `spawn work(x)`"
            };
            self.err(
                Pending::new(
                    "E0214",
                    callee.span.clone(),
                    "`spawn` can only start a function declared with `fn`",
                    "not a user function",
                )
                .help(help),
            );
            self.discard_args(args);
            return Val::none(ERROR);
        };
        self.call_emit(Callee::User(fid), &name, None, args, &call.span, want, true)
    }
}

/// The catalogue's receiver prefix for a type: `String`, `List`, ...
fn receiver_kind(program: &Program, ty: TypeId) -> &'static str {
    match ty_of(program, ty) {
        Some(Type::Str) => "String",
        Some(Type::Int) => "Int",
        Some(Type::Float) => "Float",
        Some(Type::List(_)) => "List",
        Some(Type::Map(..)) => "Map",
        Some(Type::Option(_)) => "Option",
        Some(Type::Task(_)) => "Task",
        Some(Type::Channel(_)) => "Channel",
        _ => "",
    }
}

/// A signature type as Cove writes it.
fn sig_text(sig: Sig) -> String {
    match sig {
        Sig::Unit => "()".into(),
        Sig::Bool => "Bool".into(),
        Sig::Int => "Int".into(),
        Sig::Float => "Float".into(),
        Sig::Str => "String".into(),
        Sig::T => "T".into(),
        Sig::K => "K".into(),
        Sig::V => "V".into(),
        Sig::List(s) => format!("List[{}]", sig_text(*s)),
        Sig::Map(k, v) => format!("Map[{}, {}]", sig_text(*k), sig_text(*v)),
        Sig::Opt(s) => format!("Option[{}]", sig_text(*s)),
        Sig::Task(s) => format!("Task[{}]", sig_text(*s)),
        Sig::Channel(s) => format!("Channel[{}]", sig_text(*s)),
    }
}

/// Whether evaluating `e` could assign a variable: only code with
/// statements in it (a block, an `if`, a `match`) can; a call cannot reach
/// its caller's variables.
fn may_assign(e: &Expr) -> bool {
    // A chain of operators nests to the left as deep as it is long: its
    // spine is walked in a loop.
    let mut e = e;
    while let ExprKind::Binary(_, a, b) = &e.kind {
        if may_assign(b) {
            return true;
        }
        e = a;
    }
    match &e.kind {
        ExprKind::Block(_) | ExprKind::If(..) | ExprKind::Match(..) | ExprKind::Assign(..) => true,
        ExprKind::Index(a, b) | ExprKind::Range(a, b) => may_assign(a) || may_assign(b),
        ExprKind::Unary(_, a) | ExprKind::Field(a, _) | ExprKind::Spawn(a) => may_assign(a),
        ExprKind::Call(f, args) => may_assign(f) || args.iter().any(may_assign),
        ExprKind::List(items) | ExprKind::New(_, items) => items.iter().any(may_assign),
        ExprKind::StructLit(_, fields) => fields.iter().any(|(_, v)| may_assign(v)),
        ExprKind::Str(pieces) => pieces
            .iter()
            .any(|p| matches!(p, Piece::Expr(e) | Piece::Formatted(e, ..) if may_assign(e))),
        ExprKind::Return(v) => v.as_deref().is_some_and(may_assign),
        ExprKind::Loop(_) => true,
        ExprKind::BreakValue(v) => may_assign(v),
        _ => false,
    }
}
