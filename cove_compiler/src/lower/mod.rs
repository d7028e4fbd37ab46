//! Type checking and lowering of function bodies, in one walk.
//!
//! Each function body is checked and lowered to `cove_ir` in the same pass:
//! the type of an expression is known the moment its code is emitted, which
//! is exactly when the lowering needs it to pick a typed opcode and a
//! register class. A separate typed tree would cost a second walk and a
//! second copy of every node for no information the single walk lacks. On a
//! type error the walk carries on with the [`ERROR`](crate::resolve::ERROR)
//! type (compatible with everything), so every independent error of a body
//! is reported; the code emitted for a body with errors is thrown away.
//!
//! Values are produced *into a destination* ([`Want`]): an assignment
//! lowers its right-hand side straight into the variable's register, a call
//! argument straight into its slot of the argument window. Every
//! expression writes its destination only with its last instruction (or in
//! mutually exclusive branches), after it has read all its operands, so
//! `x = y + x` and `s = "{a}{s}"` are safe without a temporary.

mod call;
mod closure;
mod compare;
mod consts;
mod equality;
mod expr;
mod format;
mod get_match;
mod get_or;
mod list_fns;
mod literal;
mod loop_expr;
mod matching;
mod methods;
mod tuples;
mod warnings;

pub(crate) use expr::closest;

pub(crate) use tuples::tuple_type;

use std::collections::HashMap;

use cove_ir::op::{Instr, Reg};
use cove_ir::program::{Function, FunctionId, Local, Program};
use cove_ir::types::TypeId;

use crate::ast::*;
use crate::diagnostics::Pending;
use crate::emit::{Emitter, Finished, Label};
use crate::lines::LineStarts;
use crate::resolve::{ERROR, ModuleScope, NEVER, is_ref, resolve_type, type_name};
pub(crate) use literal::signed_int;

/// The most fields a struct, variants or payload values an enum, and
/// parameters a function may have.
pub(crate) const MAX_MEMBERS: usize = expr::MAX_LITERAL;

/// Where an expression's value should go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// Nowhere: it is evaluated for its effects.
    Discard,
    /// Any register; a new temporary if it is not already in one.
    Any,
    /// This register, which the caller owns.
    Into(Reg),
    /// Returned from the function: the value of a function body's tail
    /// position. `if` and `match` pass it on to their branches, so each
    /// branch returns its value itself instead of jumping to a join point
    /// that moves it into a register and returns that.
    Return,
}

/// An expression's value: its register (none for `()` when discarded, for
/// `!` and for errors), its type, and whether the caller must free it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Val {
    pub reg: Option<Reg>,
    pub ty: TypeId,
    pub temp: bool,
}

impl Val {
    fn none(ty: TypeId) -> Val {
        Val {
            reg: None,
            ty,
            temp: false,
        }
    }
}

/// A variable in scope.
#[derive(Debug, Clone)]
struct Var {
    name: String,
    ty: TypeId,
    reg: Reg,
    mutable: bool,
    /// What declared it, for the message when it is assigned.
    origin: Origin,
    /// Whether the scope frees the register when it ends (false for a
    /// `match` binding that names the scrutinee's own register).
    owned: bool,
    /// Its entry in the function's debug locals, while it is visible:
    /// `None` while a variable of the same name hides it.
    debug: Option<usize>,
    /// The variable of the same name this one hides (an index into
    /// `FnCx::vars`) when that one has debug information, so the hidden
    /// one's live range can start again when this one's scope ends.
    hides: Option<usize>,
    /// Where its name was written, for its warnings (`None`: no warnings).
    at: Option<Span>,
    /// Whether an expression read it.
    used: std::cell::Cell<bool>,
    /// Whether it was assigned after its declaration.
    assigned: bool,
    /// For a `var` a closure captures: the cell struct its register
    /// points at, and the type of the value in it (see `closure.rs`).
    cell: Option<(cove_ir::types::StructId, TypeId)>,
    /// For a name of a `var (a, b)`: where the names of its tuple were
    /// written, which all its names share (see `warnings.rs`).
    group: Option<Span>,
}

/// What declared a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// `let` or `var`.
    Binding,
    Parameter,
    /// The variable of a `for`.
    Loop,
    /// A name bound by a `match` pattern.
    Pattern,
}

/// The labels `break` and `continue` jump to.
#[derive(Debug, Clone, Copy)]
struct LoopCx {
    brk: Label,
    cont: Label,
    /// Whether a `break` leaves this loop: one that none leaves does not
    /// fall through.
    broke: bool,
    /// For a `loop`, where its `break` values go; `None` for `while` and
    /// `for`, which have no value.
    value: Option<loop_expr::LoopValue>,
}

impl LoopCx {
    fn new(brk: Label, cont: Label) -> LoopCx {
        LoopCx {
            brk,
            cont,
            broke: false,
            value: None,
        }
    }
}

/// The state of lowering one function.
pub(crate) struct FnCx<'a> {
    pub program: &'a mut Program,
    pub scopes: &'a [ModuleScope],
    pub module: usize,
    pub errors: &'a mut Vec<Pending>,
    /// The warnings found, reported only when there are no errors.
    pub warnings: &'a mut Vec<Pending>,
    pub e: Emitter,
    line_starts: &'a LineStarts,
    vars: Vec<Var>,
    /// Per name, the indices in `vars` of the variables of that name,
    /// innermost last: a name is looked up in constant time, where a scan
    /// of `vars` made a function of 70,000 `let`s quadratic to compile.
    by_name: HashMap<String, Vec<usize>>,
    scope_marks: Vec<usize>,
    loops: Vec<LoopCx>,
    locals: Vec<Local>,
    result: TypeId,
    /// The function's name, for messages.
    pub(crate) fn_name: String,
    /// While lowering the last arm of an exhaustive `match`: emit the
    /// pattern's bindings but not its tests, which cannot fail.
    skip_tests: bool,
    /// How many loops (bodies and conditions) enclose the code being lowered.
    in_loop: usize,
    /// Constants pinned in registers for operands inside loops: (type, bits).
    consts: Vec<((TypeId, u64), Reg)>,
    /// The names function expressions in this body use: a `var` of one of
    /// these names lives in a cell (see `closure.rs`).
    boxed: std::collections::HashSet<String>,
    /// In a function expression whose result type is to be inferred: the
    /// type and place of each `return` value.
    inferred: Option<Vec<(TypeId, Span)>>,
    /// The parameter types for the function expression about to be
    /// lowered, when only they are known (`xs.map(fn(x) { ... })`).
    param_hint: Option<Vec<TypeId>>,
    /// While a `match` guesses its type from an arm's body before any arm
    /// is lowered: the names that arm's pattern binds, with their types,
    /// so `n => Some(n)` tells an `Option[Int]` (innermost last).
    guess_names: Vec<(String, TypeId)>,
    /// In a function expression whose result type is to be inferred: each
    /// `return None`, and a `None` at the end of the body, met with no type
    /// to give it. Each loads `None` (an Option is a reference whatever it
    /// holds); the other returns then say which Option it is.
    untyped_nones: Vec<Span>,
    /// The `let`s and `var`s whose values are being lowered, innermost
    /// last: a use of one of their names is not yet bound, and is told so
    /// (`let fact = fn(n: Int) -> Int { ... fact(n - 1) }`).
    binding: Vec<Binding>,
    /// A `let (..)` whose value is a call, asking that call, known by its
    /// span, to take its result apart into this many registers
    /// (`call.unpack`) if it calls a Cove function whose result is a tuple
    /// of as many parts; `unpacked` says it did. By span, because a
    /// method's receiver and the arguments are lowered first and may hold
    /// calls of their own.
    unpack_at: Option<(Span, usize)>,
    unpacked: bool,
}

/// A `let` or `var` whose value is being lowered.
#[derive(Debug, Clone)]
struct Binding {
    name: String,
    mutable: bool,
    /// Its value, within which its name is told once.
    value: Span,
    /// Whether the code being lowered is inside a function expression of
    /// the value.
    in_closure: bool,
}

/// Checks and lowers the body of `decl` into function `id` of the program.
#[allow(clippy::too_many_arguments)]
pub(crate) fn lower_function(
    program: &mut Program,
    scopes: &[ModuleScope],
    module: usize,
    line_starts: &LineStarts,
    errors: &mut Vec<Pending>,
    warnings: &mut Vec<Pending>,
    decl: &FnDecl,
    id: FunctionId,
) {
    let params = program.functions[id.index()].params.clone();
    let result = program.functions[id.index()].result;
    let mut cx = FnCx {
        program,
        scopes,
        module,
        errors,
        warnings,
        e: Emitter::new(),
        line_starts,
        vars: Vec::new(),
        by_name: HashMap::new(),
        scope_marks: Vec::new(),
        loops: Vec::new(),
        locals: Vec::new(),
        result,
        fn_name: decl.name.name.clone(),
        skip_tests: false,
        in_loop: 0,
        consts: Vec::new(),
        boxed: closure::captured_names(&decl.body),
        inferred: None,
        param_hint: None,
        guess_names: Vec::new(),
        untyped_nones: Vec::new(),
        binding: Vec::new(),
        unpack_at: None,
        unpacked: false,
    };
    // A tuple result returns its fields to a caller that takes it apart.
    if let Some((sid, classes)) = call::unpackable(cx.program, result) {
        cx.e.returns_fields(sid, classes);
    }
    cx.set_line(&decl.name.span);
    cx.push_scope();
    for ((name, _), &ty) in decl.params.iter().zip(&params) {
        let class = is_ref(cx.program, ty);
        let reg = cx.e.alloc(class);
        if cx.vars.iter().any(|v| v.name == name.name) {
            cx.err(Pending::new(
                "E0401",
                name.span.clone(),
                format!("the parameter `{}` is declared twice", name.name),
                "a second parameter of this name",
            ));
        }
        cx.declare(&name.name, ty, reg, false, true);
        cx.declared_by(Origin::Parameter);
        cx.declared_at(&name.span);
    }
    let unit = result == Program::UNIT;
    let (expected, want) = if unit {
        (None, Want::Discard)
    } else {
        (Some(result), Want::Return)
    };
    // The body's variables share the parameters' scope, which ends after
    // the return below: they are live at the return, and a body-level `let`
    // that hides a parameter hides it to the end.
    let value = cx.statements(&decl.body, expected, want);
    if !unit {
        match decl.body.stmts.last() {
            Some(Stmt::Expr(last)) => {
                cx.check(result, value.ty, &last.span);
            }
            _ if value.ty != NEVER => {
                let end = decl.body.span.end.saturating_sub(1);
                cx.err(
                    Pending::new(
                        "E0402",
                        end..decl.body.span.end,
                        format!(
                            "`{}` must return {}, but its body ends without a value",
                            decl.name.name,
                            type_name(cx.program, result)
                        ),
                        format!(
                            "a value of type {} is expected here",
                            type_name(cx.program, result)
                        ),
                    )
                    .help("end the body with an expression, or `return` a value"),
                );
            }
            _ => {}
        }
    }
    let end_line = cx.line_of(decl.body.span.end.saturating_sub(1));
    cx.e.line = end_line;
    let terminated =
        cx.e.code.last().is_some_and(|last| !last.falls_through()) && !cx.e.label_here();
    if !terminated {
        if unit {
            cx.e.emit(Instr::ReturnUnit {});
        } else {
            let reg = match value.reg {
                Some(r) => r,
                // The body ends in `return` or an error: the landing
                // instruction is never reached, but must be valid.
                None => cx.placeholder(result),
            };
            cx.e.emit(Instr::Return { src: reg });
        }
    }
    cx.pop_scope(None);
    if cx.e.overflowed {
        cx.err(Pending::new(
            "E0403",
            decl.name.span.clone(),
            format!("`{}` needs more than 65535 registers", decl.name.name),
            "this function is too large",
        ));
    }
    let (done, locals) = cx.finish_code(params.len());
    install(&mut program_of(cx).functions[id.index()], done, locals);
}

/// Puts a finished body and its locals into its function.
pub(crate) fn install(f: &mut Function, done: Finished, locals: Vec<Local>) {
    f.code = done.code;
    f.lines = done.lines;
    f.refs = done.refs;
    f.registers = done.registers;
    f.locals = locals;
}

fn program_of<'a>(cx: FnCx<'a>) -> &'a mut Program {
    cx.program
}

impl FnCx<'_> {
    // ---- small helpers -------------------------------------------------------

    /// The body's code, finished for a function of `params` parameters,
    /// and its locals made to fit it: the emitter puts its prologue before
    /// the body, so every range moves by the prologue's length (one from
    /// the start, a parameter's, still covers it), and each local follows
    /// its register where the emitter renumbered registers.
    pub(crate) fn finish_code(&mut self, params: usize) -> (Finished, Vec<Local>) {
        let shift = self.e.prologue.len() as u32;
        let mut locals = std::mem::take(&mut self.locals);
        for local in &mut locals {
            local.live = self.e.hoisted(local.live.start)..self.e.hoisted(local.live.end);
            if local.live.start > 0 {
                local.live.start += shift;
            }
            local.live.end += shift;
        }
        // A variable visible again after an inner scope hid it may be
        // hidden again, or go out of scope, before its next instruction:
        // such a piece of its range covers no pc.
        locals.retain(|l| !l.live.is_empty());
        let done = std::mem::take(&mut self.e).finish(params);
        for local in &mut locals {
            if let Some(&to) = done.moved.get(usize::from(local.register.0)) {
                local.register = Reg(to);
            }
        }
        (done, locals)
    }

    /// The id of a constant in the pool.
    pub(crate) fn constant(&mut self, c: cove_ir::program::Constant) -> cove_ir::program::ConstId {
        self.program.intern_constant(c)
    }

    pub(crate) fn err(&mut self, d: Pending) {
        self.errors.push(d);
    }

    /// Takes back the type mismatches (E0100) reported since `mark` at
    /// exactly `span`: what a statement already refused for a better reason
    /// says no more about.
    pub(crate) fn drop_mismatches_at(&mut self, mark: usize, span: &Span) {
        let mut i = mark;
        while i < self.errors.len() {
            if self.errors[i].code == "E0100" && self.errors[i].span == *span {
                self.errors.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Reports `d`, a complaint about the members of type `ty`, unless
    /// `ty`'s declaration did not parse (its members are then unknown).
    pub(crate) fn err_about(&mut self, ty: TypeId, d: Pending) {
        if !self.is_broken(ty) {
            self.errors.push(d);
        }
    }

    /// Whether `ty` is a struct or enum whose declaration did not parse.
    pub(crate) fn is_broken(&self, ty: TypeId) -> bool {
        self.scopes.iter().any(|s| s.broken_types.contains(&ty))
    }

    pub(crate) fn line_of(&self, at: usize) -> u32 {
        self.line_starts.line_of(at)
    }

    /// Makes `span`'s line the line of the next instructions; returns the
    /// previous one to restore.
    pub(crate) fn set_line(&mut self, span: &Span) -> u32 {
        let old = self.e.line;
        self.e.line = self.line_of(span.start);
        old
    }

    pub(crate) fn tname(&self, ty: TypeId) -> String {
        type_name(self.program, ty)
    }

    /// Whether a value of type `found` may stand where `expected` is wanted.
    pub(crate) fn compatible(expected: TypeId, found: TypeId) -> bool {
        expected == found
            || expected == ERROR
            || found == ERROR
            || found == NEVER
            || expected == NEVER
    }

    /// Reports a mismatch unless `found` fits `expected`.
    pub(crate) fn check(&mut self, expected: TypeId, found: TypeId, span: &Span) -> bool {
        if Self::compatible(expected, found) {
            return true;
        }
        let (e, f) = (self.tname(expected), self.tname(found));
        let mut d = Pending::new(
            "E0100",
            span.clone(),
            format!("type mismatch: expected {e}, found {f}"),
            format!("this is {f}"),
        );
        if expected == Program::FLOAT && found == Program::INT {
            d = d.help("convert with `.to_float()`");
        } else if expected == Program::INT && found == Program::FLOAT {
            d = d.help("convert with `.to_int()`");
        } else if expected == Program::STR && (found == Program::INT || found == Program::FLOAT) {
            d = d.help("make text of it with interpolation: \"{x}\"");
        } else if let Some(cove_ir::types::Type::Option(inner)) =
            crate::resolve::ty_of(self.program, expected)
        {
            if *inner == found {
                d = d.help("wrap it: `Some(...)`");
            }
        } else if let Some(cove_ir::types::Type::Option(inner)) =
            crate::resolve::ty_of(self.program, found)
        {
            if *inner == expected {
                d = d.help(
                    "take the value out with `.unwrap()`, `.unwrap_or(default)` or a `match`",
                );
            }
        }
        self.err(d);
        false
    }

    /// A register holding some valid value of `ty`, for an instruction the
    /// code never reaches but the verifier still reads: 0 as an Int, or
    /// `None` in a ref register.
    pub(crate) fn placeholder(&mut self, ty: TypeId) -> Reg {
        let class = self.is_ref(ty);
        let r = self.e.alloc(class);
        self.e.emit(if class {
            Instr::LoadNone { dst: r }
        } else {
            Instr::LoadInt { dst: r, value: 0 }
        });
        r
    }

    pub(crate) fn is_ref(&self, ty: TypeId) -> bool {
        is_ref(self.program, ty)
    }

    pub(crate) fn resolve_type(&mut self, t: &TypeExpr) -> TypeId {
        resolve_type(self.program, self.scopes, self.module, t, self.errors)
    }

    pub(crate) fn release(&mut self, v: Val) {
        if v.temp
            && let Some(r) = v.reg
        {
            self.e.free(r);
        }
    }

    /// A register to compute a value of class `is_ref` into.
    pub(crate) fn dst(&mut self, want: Want, is_ref: bool) -> Reg {
        match want {
            Want::Into(r) => r,
            _ => self.e.alloc(is_ref),
        }
    }

    /// The value computed into `reg` (from [`FnCx::dst`]), as `want` asked.
    pub(crate) fn done(&mut self, reg: Reg, ty: TypeId, want: Want) -> Val {
        match want {
            Want::Return => {
                self.e.emit(Instr::Return { src: reg });
                self.e.free(reg);
                Val::none(ty)
            }
            Want::Into(_) => Val {
                reg: Some(reg),
                ty,
                temp: false,
            },
            Want::Any => Val {
                reg: Some(reg),
                ty,
                temp: true,
            },
            Want::Discard => {
                self.e.free(reg);
                Val::none(ty)
            }
        }
    }

    /// Puts an already computed value where `want` asks.
    pub(crate) fn finish(&mut self, v: Val, want: Want) -> Val {
        match want {
            Want::Return => {
                let v = self.finish(v, Want::Any);
                if let Some(src) = v.reg {
                    self.e.emit(Instr::Return { src });
                }
                self.release(v);
                Val::none(v.ty)
            }
            Want::Discard => {
                self.release(v);
                Val::none(v.ty)
            }
            Want::Any => match v.reg {
                Some(_) => v,
                None if v.ty == NEVER || v.ty == ERROR => v,
                None => {
                    let r = self.e.alloc(false);
                    self.e.emit(Instr::LoadInt { dst: r, value: 0 });
                    Val {
                        reg: Some(r),
                        ty: v.ty,
                        temp: true,
                    }
                }
            },
            Want::Into(dst) => match v.reg {
                Some(src) => {
                    if src != dst {
                        self.e.emit(Instr::Move { dst, src });
                    }
                    self.release(v);
                    Val {
                        reg: Some(dst),
                        ty: v.ty,
                        temp: false,
                    }
                }
                None if v.ty == NEVER || v.ty == ERROR => v,
                None => {
                    self.e.emit(Instr::LoadInt { dst, value: 0 });
                    Val {
                        reg: Some(dst),
                        ty: v.ty,
                        temp: false,
                    }
                }
            },
        }
    }

    /// The value in a register of its own that the caller may keep: a
    /// temporary as it is, anything else copied.
    pub(crate) fn owned(&mut self, v: Val) -> Option<Reg> {
        let v = self.finish(v, Want::Any);
        let r = v.reg?;
        if v.temp {
            return Some(r);
        }
        let class = self.is_ref(v.ty);
        let own = self.e.alloc(class);
        self.e.emit(Instr::Move { dst: own, src: r });
        Some(own)
    }

    // ---- scopes ----------------------------------------------------------------

    pub(crate) fn push_scope(&mut self) {
        self.scope_marks.push(self.vars.len());
    }

    /// Ends the innermost scope, freeing the registers its variables own
    /// except `keep`; true if `keep` was one of them (the caller now owns it).
    ///
    /// The ended variables' live ranges end here, and a variable of an
    /// enclosing scope that one of them hid is visible again: its debug
    /// local gets a second entry, live from here.
    pub(crate) fn pop_scope(&mut self, keep: Option<Reg>) -> bool {
        let mark = self.scope_marks.pop().unwrap_or(0);
        let end = self.e.pc();
        let mut kept = false;
        let ended: Vec<Var> = self.vars.drain(mark..).collect();
        for v in &ended {
            self.warn_unused(v);
        }
        self.warn_var_tuples(&ended);
        for v in &ended {
            if let Some(indices) = self.by_name.get_mut(&v.name) {
                indices.pop();
            }
        }
        for v in ended {
            if let Some(i) = v.debug {
                self.locals[i].live.end = end;
            }
            if let Some(j) = v.hides.filter(|&j| j < mark) {
                let outer = &self.vars[j];
                self.locals.push(Local {
                    name: outer.name.clone(),
                    ty: outer.ty,
                    register: outer.reg,
                    live: end..end,
                });
                self.vars[j].debug = Some(self.locals.len() - 1);
            }
            // An owned register belongs to this one variable: aliases of it
            // (match bindings) live in scopes nested inside its own.
            if v.owned {
                if Some(v.reg) == keep {
                    kept = true;
                } else {
                    self.e.free(v.reg);
                }
            }
        }
        kept
    }

    /// Declares a variable in the innermost scope, live from the current pc.
    ///
    /// A variable hides any earlier one of the same name, and the debug
    /// locals follow the rule "at each pc, a name means at most one local:
    /// the variable the name resolves to there". So the hidden variable's
    /// live range ends here, at the first instruction after the new
    /// variable's initializer (which may read the old one: `let x = x + 1`),
    /// and, if the hidden variable belongs to an enclosing scope, it gets a
    /// new range from the end of this variable's scope (see
    /// [`pop_scope`](Self::pop_scope)).
    pub(crate) fn declare(&mut self, name: &str, ty: TypeId, reg: Reg, mutable: bool, owned: bool) {
        let pc = self.e.pc();
        let mut hides = None;
        if let Some(j) = self.innermost(name)
            && let Some(i) = self.vars[j].debug.take()
        {
            self.locals[i].live.end = pc;
            hides = Some(j);
        }
        // The hidden variables of the compiler's own rewrites (`__cove_map`
        // of a `for` over a map, `_#0` of a tuple assignment) are no
        // program's locals, so the debugger does not show them.
        let hidden = name.starts_with("__cove_") || name.contains('#');
        let debug = if ty == ERROR || ty == NEVER || name == "_" || hidden {
            None
        } else {
            self.locals.push(Local {
                name: name.to_string(),
                ty,
                register: reg,
                live: pc..pc,
            });
            Some(self.locals.len() - 1)
        };
        self.by_name
            .entry(name.to_string())
            .or_default()
            .push(self.vars.len());
        self.vars.push(Var {
            name: name.to_string(),
            ty,
            reg,
            mutable,
            origin: Origin::Binding,
            owned,
            debug,
            hides,
            at: None,
            used: std::cell::Cell::new(false),
            assigned: false,
            cell: None,
            group: None,
        });
    }

    /// Records what declared the variable declared last.
    pub(crate) fn declared_by(&mut self, origin: Origin) {
        if let Some(v) = self.vars.last_mut() {
            v.origin = origin;
        }
    }

    /// The index in `vars` of the innermost variable named `name`.
    fn innermost(&self, name: &str) -> Option<usize> {
        self.by_name
            .get(name)
            .and_then(|indices| indices.last().copied())
    }

    /// What declared the innermost variable named `name`.
    fn origin_of(&self, name: &str) -> Origin {
        self.innermost(name)
            .map_or(Origin::Binding, |j| self.vars[j].origin)
    }

    /// The innermost variable named `name`: its register, type and mutability.
    pub(crate) fn var(&self, name: &str) -> Option<(Reg, TypeId, bool)> {
        self.innermost(name).map(|j| {
            let v = &self.vars[j];
            v.used.set(true);
            // A `var` in a cell: its register holds the cell, its type is
            // the value's.
            (v.reg, v.cell.map_or(v.ty, |(_, t)| t), v.mutable)
        })
    }

    /// Every variable name in scope, for "did you mean" hints.
    pub(crate) fn var_names(&self) -> Vec<String> {
        self.vars.iter().map(|v| v.name.clone()).collect()
    }

    // ---- blocks and statements ------------------------------------------------

    pub(crate) fn block(&mut self, b: &Block, expected: Option<TypeId>, want: Want) -> Val {
        self.push_scope();
        let value = self.statements(b, expected, want);
        let kept = self.pop_scope(value.reg);
        Val {
            temp: value.temp || kept,
            ..value
        }
    }

    /// A block's statements and value, in the current scope: the caller
    /// opens and ends the scope its variables belong to.
    fn statements(&mut self, b: &Block, expected: Option<TypeId>, want: Want) -> Val {
        let n = b.stmts.len();
        let mut value = None;
        // Whether a statement before this one never finishes (a `return`,
        // `break`, `continue`, a `loop` no `break` leaves, an `if` or
        // `match` all of whose branches do), and whether the code after it
        // has been reported: once a block.
        let mut diverged = false;
        let mut reported = false;
        for (i, s) in b.stmts.iter().enumerate() {
            if diverged && !reported {
                reported = true;
                self.warn_unreachable(s);
            }
            match s {
                Stmt::Expr(e) if i + 1 == n => value = Some(self.expr(e, expected, want)),
                // `while true` that no `break` leaves never falls through,
                // so a body may end in one (its `return`s give the value).
                Stmt::While { cond, body }
                    if i + 1 == n && matches!(cond.kind, ExprKind::Bool(true)) =>
                {
                    if !self.while_loop(cond, body) {
                        value = Some(Val::none(NEVER));
                    }
                }
                Stmt::Expr(e) => {
                    let v = self.expr(e, None, Want::Discard);
                    self.release(v);
                    diverged |= v.ty == NEVER;
                }
                _ => {
                    if !self.stmt_finishes(s) && !diverged {
                        // A `let` whose value never finishes never binds:
                        // said once, at the `let`, which also covers what
                        // follows it.
                        diverged = true;
                        reported = true;
                        self.warn_never_bound(s);
                    }
                }
            }
        }
        match value {
            Some(v) => v,
            None => self.finish(Val::none(Program::UNIT), want),
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        self.stmt_finishes(s);
    }

    /// Lowers `s`; false when it is a `let` (or `let (...)`) whose value
    /// never finishes (`let x = loop {}`), so that nothing after it runs.
    fn stmt_finishes(&mut self, s: &Stmt) -> bool {
        match s {
            Stmt::Let { .. } => return self.let_stmt(s),
            Stmt::LetTuple {
                mutable,
                names,
                value,
            } => return self.let_tuple(*mutable, names, value),
            Stmt::Expr(e) => {
                let v = self.expr(e, None, Want::Discard);
                self.release(v);
            }
            Stmt::Assign {
                target,
                op,
                value,
                span,
            } => {
                let old = self.set_line(span);
                self.assign(target, *op, value, span);
                self.e.line = old;
            }
            Stmt::While { cond, body } => {
                self.while_loop(cond, body);
            }
            Stmt::For { name, iter, body } => self.for_loop(name, iter, body),
            Stmt::ForTuple { names, iter, body } => self.for_tuple(names, iter, body),
        }
        true
    }

    /// `let name = value` or `var name = value`; false when the value never
    /// finishes.
    fn let_stmt(&mut self, s: &Stmt) -> bool {
        let Stmt::Let {
            mutable,
            name,
            ty,
            value,
        } = s
        else {
            return true;
        };
        let old = self.set_line(&name.span);
        let annotated = ty.as_ref().map(|t| self.resolve_type(t));
        self.binding.push(Binding {
            name: name.name.clone(),
            mutable: *mutable,
            value: value.span.clone(),
            in_closure: false,
        });
        let v = self.expr(value, annotated, Want::Any);
        self.binding.pop();
        let never = v.ty == NEVER;
        let ty = match annotated {
            Some(t) => {
                self.check(t, v.ty, &value.span);
                t
            }
            None => v.ty,
        };
        let ty = if ty == NEVER { ERROR } else { ty };
        self.e.line = self.line_of(name.span.start);
        let reg = match v.reg {
            Some(_) => self.owned(v),
            None if ty == ERROR => None,
            None => self.owned(Val::none(ty)),
        };
        let reg = reg.unwrap_or_else(|| {
            let r = self.e.alloc(self.is_ref(ty));
            self.e.emit(Instr::LoadInt { dst: r, value: 0 });
            r
        });
        if *mutable {
            self.declare_var(&name.name, ty, reg);
        } else {
            self.declare(&name.name, ty, reg, false, true);
        }
        self.declared_at(&name.span);
        self.e.line = old;
        !never
    }

    pub(crate) fn assign(&mut self, target: &Expr, op: Option<BinOp>, value: &Expr, span: &Span) {
        // `x op= v` is `x = x op v`, with the span of the whole statement.
        let rhs_owned;
        let rhs = match op {
            None => value,
            Some(op) => {
                rhs_owned = Expr {
                    kind: ExprKind::Binary(op, Box::new(target.clone()), Box::new(value.clone())),
                    span: span.clone(),
                };
                &rhs_owned
            }
        };
        match &target.kind {
            ExprKind::Tuple(items) if op.is_none() => {
                // `(a, b) = (b, a)`, as Rust, Go and Swift allow: the value
                // is taken apart into hidden names first (a `#` no Cove name
                // has), then each part assigned, so a swap reads both
                // before it writes either.
                self.push_scope();
                let names: Vec<Ident> = (0..items.len())
                    .map(|i| Ident {
                        name: format!("_#{i}"),
                        span: items[i].span.clone(),
                    })
                    .collect();
                self.let_tuple(false, &names, value);
                for (item, n) in items.iter().zip(&names) {
                    let part = Expr {
                        kind: ExprKind::Name(n.name.clone()),
                        span: item.span.clone(),
                    };
                    self.assign(item, None, &part, span);
                }
                self.pop_scope(None);
            }
            ExprKind::Name(name) => match self.assigned_var(name) {
                Some((reg, ty, mutable)) => {
                    if !mutable {
                        let (why, help) = match self.origin_of(name) {
                            Origin::Binding => (
                                "it is declared with `let`".to_string(),
                                format!("declare it with `var {name} = ...` to assign it later"),
                            ),
                            Origin::Parameter => (
                                "it is a parameter".to_string(),
                                format!("copy it into a variable first: `var {name} = {name}`"),
                            ),
                            Origin::Loop => (
                                "it is the variable of a `for` loop, which takes each value in turn".to_string(),
                                format!("to change a copy, write `var {name} = {name}` first; to control the stepping, loop with `while`"),
                            ),
                            Origin::Pattern => (
                                "it is bound by a pattern".to_string(),
                                format!("copy it into a variable first: `var {name} = {name}`"),
                            ),
                        };
                        self.err(
                            Pending::new(
                                "E0404",
                                target.span.clone(),
                                format!("cannot assign to `{name}`: {why}"),
                                "assigned here",
                            )
                            .help(help),
                        );
                    }
                    if let Some((cell, inner)) = self.cell_of(name) {
                        let v = self.expr(rhs, Some(inner), Want::Any);
                        self.check(inner, v.ty, &rhs.span);
                        let v = self.finish(v, Want::Any);
                        if let Some(src) = v.reg {
                            self.e.emit(Instr::SetField {
                                obj: reg,
                                ty: cell,
                                field: 0,
                                src,
                            });
                        }
                        self.release(v);
                        return;
                    }
                    let mark = self.errors.len();
                    let v = self.expr(rhs, Some(ty), Want::Into(reg));
                    self.check(ty, v.ty, &rhs.span);
                    if !mutable {
                        // The name cannot be assigned at all, which is said
                        // above; that the value (or `k op v`) is also of
                        // the wrong type is a second complaint about the
                        // same statement. Mistakes inside the value stay.
                        self.drop_mismatches_at(mark, &rhs.span);
                    }
                }
                None => {
                    if self.constant_type(name).is_some() {
                        self.err(
                            Pending::new(
                                "E0404",
                                target.span.clone(),
                                format!("cannot assign to `{name}`: it is a constant"),
                                "assigned here",
                            )
                            .help(format!(
                                "to change it, copy it into a variable: `var x = {name}`"
                            )),
                        );
                    } else {
                        self.unknown_name(name, &target.span);
                    }
                    self.discard_in_error(value);
                }
            },
            ExprKind::Field(base, field) if !self.names_module_or_type(base) => {
                let b = self.expr(base, None, Want::Any);
                let Some((sid, index, fty)) = self.field_of(b.ty, field) else {
                    self.release(b);
                    self.discard_in_error(value);
                    return;
                };
                let v = match op {
                    None => self.operand(value, Some(fty)),
                    Some(op) => {
                        // The object is evaluated once: read the field,
                        // combine, write it back.
                        let cur = match b.reg {
                            Some(obj) => {
                                let r = self.e.alloc(self.is_ref(fty));
                                self.e.emit(Instr::GetField {
                                    dst: r,
                                    obj,
                                    ty: sid,
                                    field: index,
                                });
                                Val {
                                    reg: Some(r),
                                    ty: fty,
                                    temp: true,
                                }
                            }
                            None => Val::none(ERROR),
                        };
                        self.binary_on(op, cur, value, span, Want::Any)
                    }
                };
                self.check(fty, v.ty, &rhs.span);
                let v = self.finish(v, Want::Any);
                if let (Some(obj), Some(src)) = (b.reg, v.reg) {
                    self.e.emit(Instr::SetField {
                        obj,
                        ty: sid,
                        field: index,
                        src,
                    });
                }
                self.release(v);
                self.release(b);
            }
            ExprKind::Index(base, index) => {
                let b = self.expr(base, None, Want::Any);
                let Some(elem) = self.list_elem(b.ty, &base.span) else {
                    self.release(b);
                    self.discard_in_error(value);
                    return;
                };
                let i = self.expr(index, Some(Program::INT), Want::Any);
                self.check(Program::INT, i.ty, &index.span);
                let v = match op {
                    None => self.operand(value, Some(elem)),
                    Some(op) => {
                        // Read the element once, combine, write it back.
                        let cur = match (b.reg, i.reg) {
                            (Some(list), Some(index)) => {
                                let r = self.e.alloc(self.is_ref(elem));
                                self.e.emit(Instr::GetList {
                                    dst: r,
                                    list,
                                    index,
                                    ty: elem,
                                });
                                Val {
                                    reg: Some(r),
                                    ty: elem,
                                    temp: true,
                                }
                            }
                            _ => Val::none(ERROR),
                        };
                        self.binary_on(op, cur, value, span, Want::Any)
                    }
                };
                self.check(elem, v.ty, &value.span);
                let v = self.finish(v, Want::Any);
                if let (Some(list), Some(index), Some(src)) = (b.reg, i.reg, v.reg) {
                    self.e.emit(Instr::SetList {
                        list,
                        index,
                        src,
                        ty: elem,
                    });
                }
                self.release(v);
                self.release(i);
                self.release(b);
            }
            _ => {
                self.err(
                    Pending::new(
                        "E0405",
                        target.span.clone(),
                        "cannot assign to this expression",
                        "not a variable, field or list element",
                    )
                    .help("the left of `=` is a `var`, `x.field` or `list[i]`"),
                );
                let v = self.expr(value, None, Want::Discard);
                self.release(v);
            }
        }
    }

    /// Lowers `while cond { body }`; returns whether a `break` leaves it.
    /// A `while` loop: its body, then its test, which jumps back to the
    /// body. A test made of names, literals, operators, fields and indexing
    /// (nothing that calls, allocates a closure or holds a block) is made a
    /// second time before the body too, jumping past the loop when it fails:
    /// the loop is entered without a jump to its test, one dispatch less
    /// each time it starts, which a short inner loop (quicksort's scans)
    /// starts as often as it turns. The second copy reports nothing the
    /// first did not.
    fn while_loop(&mut self, cond: &Expr, body: &Block) -> bool {
        let old = self.set_line(&cond.span);
        let top = self.e.label();
        let check = self.e.label();
        let exit = self.e.label();
        let forever = matches!(cond.kind, ExprKind::Bool(true));
        let tested_first = !forever && plain_test(cond);
        if tested_first {
            self.cond(cond, false, exit);
        } else if !forever {
            self.e.jump(Instr::Jump { target: 0 }, check);
        }
        self.e.bind(top);
        self.loops.push(LoopCx::new(exit, check));
        self.in_loop += 1;
        let v = self.block(body, None, Want::Discard);
        self.release(v);
        let broke = self.loops.pop().is_some_and(|l| l.broke);
        // Every jump to the condition is behind it: the one past the body
        // before the first round, and the body's `continue`s.
        self.e.bind_forward(check);
        self.set_line(&cond.span);
        let reported = (self.errors.len(), self.warnings.len());
        self.cond(cond, true, top);
        if tested_first {
            self.errors.truncate(reported.0);
            self.warnings.truncate(reported.1);
        }
        self.in_loop -= 1;
        self.e.bind(exit);
        self.e.line = old;
        broke
    }

    fn for_loop(&mut self, name: &Ident, iter: &Expr, body: &Block) {
        let old = self.set_line(&iter.span);
        let top = self.e.label();
        let cont = self.e.label();
        let exit = self.e.label();
        self.push_scope();
        if let ExprKind::Range(start, end) = &iter.kind {
            let i = self.e.alloc(false);
            let s = self.expr(start, Some(Program::INT), Want::Into(i));
            self.check(Program::INT, s.ty, &start.span);
            // The end is read once, before the first round.
            let limit = match self.small_int(end) {
                Some(n) => Err(n),
                None => {
                    let v = self.expr(end, Some(Program::INT), Want::Any);
                    self.check(Program::INT, v.ty, &end.span);
                    let copy = match (v.reg, v.temp) {
                        (Some(r), false) if self.is_mutable_reg(r) => {
                            let c = self.e.alloc(false);
                            self.e.emit(Instr::Move { dst: c, src: r });
                            Some(c)
                        }
                        // An immutable variable is read in place, never freed here.
                        (Some(_), false) => None,
                        (Some(r), true) => Some(r),
                        (None, _) => None,
                    };
                    Ok((copy.or(v.reg).unwrap_or(i), copy))
                }
            };
            let first = self.small_int(start);
            match limit {
                // `for i in 0..10`: the first round always runs.
                Err(n) if first.is_some_and(|f| f < n) => {}
                Err(n) => self.e.jump(
                    Instr::JumpGeIntImm {
                        a: i,
                        value: n,
                        target: 0,
                    },
                    exit,
                ),
                Ok((r, _)) => self.e.jump(
                    Instr::JumpGeInt {
                        a: i,
                        b: r,
                        target: 0,
                    },
                    exit,
                ),
            }
            self.e.bind(top);
            self.declare(&name.name, Program::INT, i, false, true);
            self.declared_by(Origin::Loop);
            self.declared_at(&name.span);
            self.loops.push(LoopCx::new(exit, cont));
            self.in_loop += 1;
            let v = self.block(body, None, Want::Discard);
            self.in_loop -= 1;
            self.release(v);
            self.loops.pop();
            self.e.bind(cont);
            self.set_line(&iter.span);
            // The step and the test in one dispatch: the entry test above
            // proved `i < limit`, and the body cannot assign `i`.
            match limit {
                Err(n) => self.e.jump(
                    Instr::LoopLtIntImm {
                        counter: i,
                        value: n,
                        target: 0,
                    },
                    top,
                ),
                Ok((r, copy)) => {
                    self.e.jump(
                        Instr::LoopLtInt {
                            counter: i,
                            limit: r,
                            target: 0,
                        },
                        top,
                    );
                    if let Some(c) = copy {
                        self.e.free(c);
                    }
                }
            }
        } else {
            let list = self.expr(iter, None, Want::Any);
            let elem = match crate::resolve::ty_of(self.program, list.ty) {
                Some(cove_ir::types::Type::List(t)) => *t,
                _ => {
                    if list.ty != ERROR {
                        let t = self.tname(list.ty);
                        self.err(
                            Pending::new(
                                "E0406",
                                iter.span.clone(),
                                format!("`for` cannot loop over {t}"),
                                format!("this is {t}"),
                            )
                            .help("loop over a list, or a range such as `0..n`"),
                        );
                    }
                    ERROR
                }
            };
            // A `var` holding the list may be reassigned by the body: loop
            // over the list it held when the loop started.
            let list_reg = match (list.reg, list.temp) {
                (Some(r), false) if self.is_mutable_reg(r) => {
                    let c = self.e.alloc(true);
                    self.e.emit(Instr::Move { dst: c, src: r });
                    Some((c, true))
                }
                (Some(r), temp) => Some((r, temp)),
                (None, _) => None,
            };
            let index = self.e.alloc(false);
            let len = self.e.alloc(false);
            self.e.emit(Instr::LoadInt {
                dst: index,
                value: 0,
            });
            if let Some((l, _)) = list_reg {
                self.e.emit(Instr::LenList { dst: len, list: l });
            }
            self.e.jump(
                Instr::JumpGeInt {
                    a: index,
                    b: len,
                    target: 0,
                },
                exit,
            );
            self.e.bind(top);
            let x = self.e.alloc(self.is_ref(elem));
            if let Some((l, _)) = list_reg {
                self.e.emit(Instr::GetList {
                    dst: x,
                    list: l,
                    index,
                    ty: elem,
                });
            }
            self.declare(&name.name, elem, x, false, true);
            self.declared_by(Origin::Loop);
            self.declared_at(&name.span);
            self.loops.push(LoopCx::new(exit, cont));
            self.in_loop += 1;
            let v = self.block(body, None, Want::Discard);
            self.in_loop -= 1;
            self.release(v);
            self.loops.pop();
            self.e.bind(cont);
            self.set_line(&iter.span);
            // As for a range: the entry test proved `index < len`.
            self.e.jump(
                Instr::LoopLtInt {
                    counter: index,
                    limit: len,
                    target: 0,
                },
                top,
            );
            self.e.free(index);
            self.e.free(len);
            if let Some((l, true)) = list_reg {
                self.e.free(l);
            }
        }
        self.e.bind(exit);
        self.pop_scope(None);
        self.e.line = old;
    }

    /// Whether `r` is the register of a `var`.
    pub(crate) fn is_mutable_reg(&self, r: Reg) -> bool {
        self.vars.iter().any(|v| v.reg == r && v.mutable)
    }

    /// An operand of an operator: a literal inside a loop comes from a
    /// register pinned for the whole function and loaded once in the
    /// prologue, so the loop does not reload it every round. A string
    /// literal without interpolation too (`c == "a"` in a scan, `s + ","`):
    /// its pin is a ref register, which holds the run's one object of that
    /// constant as every `load.const` of it does.
    pub(crate) fn operand(&mut self, e: &Expr, hint: Option<TypeId>) -> Val {
        if self.in_loop > 0
            && let ExprKind::Str(pieces) = &e.kind
            && let [] | [Piece::Text(_)] = pieces.as_slice()
        {
            let text = match pieces.first() {
                Some(Piece::Text(t)) => t.clone(),
                _ => String::new(),
            };
            let k = self.constant(cove_ir::program::Constant::Str(text));
            return self.pinned((Program::STR, u64::from(k.0)), |_, dst| Instr::LoadConst {
                dst,
                constant: k,
            });
        }
        if self.in_loop > 0
            && let Some(mut key) = literal_bits(e)
        {
            if key.0 == Program::INT && hint == Some(Program::FLOAT) {
                key = (Program::FLOAT, (key.1 as i64 as f64).to_bits());
            }
            return self.pinned(key, |cx, dst| {
                let (ty, bits) = key;
                match i32::try_from(bits as i64) {
                    Ok(small) if ty != Program::FLOAT => Instr::LoadInt { dst, value: small },
                    _ => Instr::LoadConst {
                        dst,
                        constant: cx.constant(if ty == Program::INT {
                            cove_ir::program::Constant::Int(bits as i64)
                        } else {
                            cove_ir::program::Constant::Float(f64::from_bits(bits))
                        }),
                    },
                }
            });
        }
        self.expr(e, hint, Want::Any)
    }

    /// The register pinned for the constant `key` (its type, and its bits
    /// or its constant's index), made on first use with the prologue's
    /// `load` into it: one register a constant however often a loop uses
    /// it. A `String` constant's pin is a ref register.
    fn pinned(&mut self, key: (TypeId, u64), load: impl FnOnce(&mut Self, Reg) -> Instr) -> Val {
        let reg = match self.consts.iter().find(|(k, _)| *k == key) {
            Some((_, r)) => *r,
            None => {
                let r = self.e.pin(key.0 == Program::STR);
                let instr = load(self, r);
                self.e.prologue.push(instr);
                self.consts.push((key, r));
                r
            }
        };
        Val {
            reg: Some(reg),
            ty: key.0,
            temp: false,
        }
    }

    /// The value of an integer literal that fits an immediate.
    pub(crate) fn small_int(&self, e: &Expr) -> Option<i32> {
        match &e.kind {
            ExprKind::Int(Some(v)) => signed_int(*v, false).and_then(|x| i32::try_from(x).ok()),
            ExprKind::Unary(UnOp::Neg, inner) => match inner.kind {
                ExprKind::Int(Some(v)) => signed_int(v, true).and_then(|x| i32::try_from(x).ok()),
                _ => None,
            },
            _ => None,
        }
    }

    pub(crate) fn enter_loop_target(&mut self, is_break: bool, span: &Span) -> Option<Label> {
        match self.loops.last() {
            Some(l) if is_break => {
                let brk = l.brk;
                self.note_bare_break(span);
                Some(brk)
            }
            Some(l) => Some(l.cont),
            None => {
                let word = if is_break { "break" } else { "continue" };
                self.err(Pending::new(
                    "E0407",
                    span.clone(),
                    format!("`{word}` outside of a loop"),
                    format!("`{word}` is only meaningful inside `while` or `for`"),
                ));
                None
            }
        }
    }

    pub(crate) fn result_type(&self) -> TypeId {
        self.result
    }
}

/// The type and bits of an Int or Float literal (negated or not).
pub(crate) fn literal_bits(e: &Expr) -> Option<(TypeId, u64)> {
    match &e.kind {
        ExprKind::Int(Some(v)) => signed_int(*v, false).map(|x| (Program::INT, x as u64)),
        ExprKind::Float(f) => Some((Program::FLOAT, f.to_bits())),
        ExprKind::Bool(b) => Some((Program::BOOL, u64::from(*b))),
        ExprKind::Unary(UnOp::Neg, inner) => match inner.kind {
            ExprKind::Int(Some(v)) => signed_int(v, true).map(|x| (Program::INT, x as u64)),
            ExprKind::Float(f) => Some((Program::FLOAT, (-f).to_bits())),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a loop's test may be made twice without the copy being seen: it
/// reads names, literals, fields and elements, and combines them with
/// operators, and nothing else (no call, closure, block or assignment).
fn plain_test(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Name(_) => true,
        ExprKind::Unary(_, x) | ExprKind::Field(x, _) => plain_test(x),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => plain_test(a) && plain_test(b),
        _ => false,
    }
}
