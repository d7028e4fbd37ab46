//! The list methods that take a function: `sort_by`, `sort_by_key`, `map`,
//! `filter`, `fold`, `any`, `all` and `find`, lowered to Cove loops.
//!
//! The VM's builtins cannot call back into Cove (a builtin runs inside one
//! instruction, and a Cove call is a frame the dispatch loop pushes), and
//! a builtin that ran a nested dispatch loop per element would recurse
//! natively without bound. So each method is written here as Cove source
//! (a template over hidden variables `__cove_*`), parsed once a call,
//! given the call's span, and lowered like the user's own code: the
//! profiler then sees every call of the function, attributed to the
//! method's line, and the collector sees every register. The sorts are a
//! stable bottom-up merge sort through one scratch list (`n log n`
//! comparisons, each a call of the user's strict less-than, taken from
//! the left run unless the right element is strictly less); the result is
//! copied back when it ends in the scratch list, so the sort is in place.

use cove_ir::op::{Instr, Reg};
use cove_ir::program::Program;
use cove_ir::types::{Type, TypeId};

use super::{FnCx, Val, Want};
use crate::ast::*;
use crate::diagnostics::Pending;
use crate::resolve::{ERROR, NEVER, ty_of};

/// The stable merge sort; `LESS(x, y)` is replaced by the comparison.
const SORT: &str = "
var __cove_src = __cove_xs
var __cove_dst = __cove_buf
for __cove_x in __cove_xs {
  __cove_buf.push(__cove_x)
}
let __cove_n = __cove_xs.length()
var __cove_w = 1
var __cove_in_xs = true
while __cove_w < __cove_n {
  var __cove_i = 0
  while __cove_i < __cove_n {
    var __cove_mid = __cove_i + __cove_w
    if __cove_mid > __cove_n {
      __cove_mid = __cove_n
    }
    var __cove_hi = __cove_mid + __cove_w
    if __cove_hi > __cove_n {
      __cove_hi = __cove_n
    }
    var __cove_a = __cove_i
    var __cove_b = __cove_mid
    var __cove_k = __cove_i
    while __cove_k < __cove_hi {
      if __cove_a < __cove_mid && (__cove_b >= __cove_hi || !LESS(__cove_src[__cove_b], __cove_src[__cove_a])) {
        __cove_dst[__cove_k] = __cove_src[__cove_a]
        __cove_a = __cove_a + 1
      } else {
        __cove_dst[__cove_k] = __cove_src[__cove_b]
        __cove_b = __cove_b + 1
      }
      __cove_k = __cove_k + 1
    }
    __cove_i = __cove_hi
  }
  let __cove_t = __cove_src
  __cove_src = __cove_dst
  __cove_dst = __cove_t
  __cove_in_xs = !__cove_in_xs
  __cove_w = __cove_w * 2
}
if !__cove_in_xs {
  for __cove_j in 0..__cove_n {
    __cove_xs[__cove_j] = __cove_src[__cove_j]
  }
}
()
";

/// Which method, and what its function takes and gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    SortBy,
    SortByKey,
    Map,
    Filter,
    Fold,
    Any,
    All,
    Find,
}

impl FnCx<'_> {
    /// `xs.name(args)` for the methods above; `Err(recv)` for any other.
    pub(crate) fn list_fn_call(
        &mut self,
        recv: Val,
        name: &Ident,
        args: &[Expr],
        span: &Span,
        want: Want,
    ) -> Result<Val, Val> {
        let Some(Type::List(elem)) = ty_of(self.program, recv.ty).cloned() else {
            return Err(recv);
        };
        let method = match name.name.as_str() {
            "sort_by" => Method::SortBy,
            "sort_by_key" => Method::SortByKey,
            "map" => Method::Map,
            "filter" => Method::Filter,
            "fold" => Method::Fold,
            "any" => Method::Any,
            "all" => Method::All,
            "find" => Method::Find,
            _ => return Err(recv),
        };
        let arity = if method == Method::Fold { 2 } else { 1 };
        if args.len() != arity {
            self.err(Pending::new(
                "E0211",
                span.clone(),
                format!(
                    "`{}` takes {arity} argument{}, but {} {} given",
                    name.name,
                    if arity == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
                format!("expected {arity}"),
            ));
            self.release(recv);
            // A function expression is not checked without the types the
            // method would give it: that would only echo this error.
            for a in args.iter().filter(|a| !matches!(a.kind, ExprKind::Func(_))) {
                let v = self.expr(a, None, Want::Discard);
                self.release(v);
            }
            return Ok(Val::none(ERROR));
        }
        if method == Method::Fold
            && matches!(&args[0].kind, ExprKind::Func(f) if f.params.iter().any(|(_, t)| t.is_none()))
            && !matches!(args[1].kind, ExprKind::Func(_))
        {
            // `xs.fold(fn(acc, x) { ... }, 0)`: the two swapped, said as
            // that, not as parameters whose types cannot be told. A first
            // function whose parameters are all typed is a valid initial
            // value (`fns.fold(fn(x: Int) -> Int { x }, compose)`).
            self.err(
                Pending::new(
                    "E0100",
                    args[0].span.clone(),
                    "`fold` takes the initial value first, then the function",
                    "this function is where the initial value goes",
                )
                .help("write `xs.fold(init, fn(acc, x) { ... })`"),
            );
            self.release(recv);
            let v = self.expr(&args[1], None, Want::Discard);
            self.release(v);
            return Ok(Val::none(ERROR));
        }
        self.push_scope();
        self.hold_hidden("__cove_xs", recv);
        // `fold`'s accumulator, before the function, whose type it fixes.
        let acc = if method == Method::Fold {
            let v = self.expr(&args[0], None, Want::Any);
            let ty = v.ty;
            let reg = self.owned(v);
            match reg {
                Some(r) if ty != ERROR && ty != NEVER => {
                    self.declare("__cove_acc", ty, r, true, true);
                    Some(ty)
                }
                _ => None,
            }
        } else {
            None
        };
        let f_arg = &args[arity - 1];
        let params: Vec<TypeId> = match method {
            Method::SortBy => vec![elem, elem],
            Method::Fold => match acc {
                Some(a) => vec![a, elem],
                None => {
                    self.pop_scope(None);
                    // The initial value is in error (`xs.fold([], ...)`): the
                    // function is expected to be of a type in error too, so
                    // its untyped parameters are not reported as well.
                    let expected = matches!(f_arg.kind, ExprKind::Func(_)).then_some(ERROR);
                    let v = self.expr(f_arg, expected, Want::Discard);
                    self.release(v);
                    return Ok(Val::none(ERROR));
                }
            },
            _ => vec![elem],
        };
        // The result the function must have, where the method fixes it.
        let fixed = match method {
            Method::SortBy | Method::Filter | Method::Any | Method::All | Method::Find => {
                Some(Program::BOOL)
            }
            Method::Fold => acc,
            Method::Map | Method::SortByKey => None,
        };
        let expected = fixed.map(|r| self.program.intern_type(Type::Func(params.clone(), r)));
        if matches!(f_arg.kind, ExprKind::Func(_)) && expected.is_none() {
            self.param_hint = Some(params.clone());
        }
        let f = self.expr(f_arg, expected, Want::Any);
        self.param_hint = None;
        let result = match ty_of(self.program, f.ty).cloned() {
            Some(Type::Func(ps, r)) if ps == params && fixed.is_none_or(|x| x == r) => Some(r),
            _ => None,
        };
        let Some(result) = result else {
            if f.ty != ERROR && f.ty != NEVER {
                let want_ty = match expected {
                    Some(t) => self.tname(t),
                    None => {
                        let ps: Vec<String> = params.iter().map(|t| self.tname(*t)).collect();
                        format!("fn({}) -> _", ps.join(", "))
                    }
                };
                let found = self.tname(f.ty);
                self.err(Pending::new(
                    "E0100",
                    f_arg.span.clone(),
                    format!(
                        "type mismatch: `{}` takes a {want_ty}, found {found}",
                        name.name
                    ),
                    format!("this is {found}"),
                ));
            }
            self.release(f);
            self.pop_scope(None);
            return Ok(Val::none(ERROR));
        };
        if method == Method::SortByKey
            && ![Program::INT, Program::FLOAT, Program::STR].contains(&result)
        {
            let t = self.tname(result);
            self.err(
                Pending::new(
                    "E0100",
                    f_arg.span.clone(),
                    format!("`sort_by_key` needs a key of type Int, Float or String, not {t}"),
                    "keys are compared with `<`",
                )
                .help("sort by a comparison instead: `xs.sort_by(fn(a, b) { ... })`"),
            );
            self.release(f);
            self.pop_scope(None);
            return Ok(Val::none(ERROR));
        }
        self.hold_hidden("__cove_f", f);
        let (template, value_ty) = match method {
            Method::Map => {
                let out = self.program.intern_type(Type::List(result));
                self.new_hidden_list("__cove_out", result, out);
                (
                    "for __cove_x in __cove_xs {\n  __cove_out.push(__cove_f(__cove_x))\n}\n__cove_out\n".to_string(),
                    out,
                )
            }
            Method::Filter => {
                self.new_hidden_list("__cove_out", elem, recv.ty);
                (
                    "for __cove_x in __cove_xs {\n  if __cove_f(__cove_x) {\n    __cove_out.push(__cove_x)\n  }\n}\n__cove_out\n".to_string(),
                    recv.ty,
                )
            }
            Method::Fold => (
                "for __cove_x in __cove_xs {\n  __cove_acc = __cove_f(__cove_acc, __cove_x)\n}\n__cove_acc\n".to_string(),
                result,
            ),
            Method::Any => (
                "var __cove_r = false\nfor __cove_x in __cove_xs {\n  if __cove_f(__cove_x) {\n    __cove_r = true\n    break\n  }\n}\n__cove_r\n".to_string(),
                Program::BOOL,
            ),
            Method::All => (
                "var __cove_r = true\nfor __cove_x in __cove_xs {\n  if !__cove_f(__cove_x) {\n    __cove_r = false\n    break\n  }\n}\n__cove_r\n".to_string(),
                Program::BOOL,
            ),
            Method::Find => {
                let opt = self.program.intern_type(Type::Option(elem));
                let r = self.e.alloc(true);
                self.e.emit(Instr::LoadNone { dst: r });
                self.declare("__cove_r", opt, r, true, true);
                (
                    "for __cove_x in __cove_xs {\n  if __cove_f(__cove_x) {\n    __cove_r = Some(__cove_x)\n    break\n  }\n}\n__cove_r\n".to_string(),
                    opt,
                )
            }
            Method::SortBy | Method::SortByKey => {
                self.new_hidden_list("__cove_buf", elem, recv.ty);
                let less = if method == Method::SortBy {
                    "__cove_f"
                } else {
                    "__cove_key_less"
                };
                let mut t = SORT.replace("LESS", less);
                if method == Method::SortByKey {
                    t = t.replace(
                        "!__cove_key_less(__cove_src[__cove_b], __cove_src[__cove_a])",
                        "!(__cove_f(__cove_src[__cove_b]) < __cove_f(__cove_src[__cove_a]))",
                    );
                }
                (t, Program::UNIT)
            }
        };
        let v = self.lower_template(&template, span, value_ty);
        let kept = v.and_then(|v| self.owned(v));
        self.pop_scope(None);
        Ok(match kept {
            Some(r) => {
                let v = Val {
                    reg: Some(r),
                    ty: value_ty,
                    temp: true,
                };
                self.finish(v, want)
            }
            None if value_ty == Program::UNIT => self.finish(Val::none(Program::UNIT), want),
            None => Val::none(ERROR),
        })
    }

    /// Keeps `v` in a hidden variable of the current scope.
    fn hold_hidden(&mut self, name: &str, v: Val) {
        let ty = if v.ty == NEVER { ERROR } else { v.ty };
        let reg = self.owned(v).unwrap_or_else(|| {
            let r = self.e.alloc(false);
            self.e.emit(Instr::LoadInt { dst: r, value: 0 });
            r
        });
        self.declare(name, ty, reg, false, true);
    }

    /// A hidden variable holding a new, empty `List[elem]` (of type `list`).
    fn new_hidden_list(&mut self, name: &str, elem: TypeId, list: TypeId) {
        let r = self.e.alloc(true);
        self.e.emit(Instr::NewList {
            dst: r,
            ty: elem,
            base: Reg(0),
            count: 0,
        });
        self.declare(name, list, r, false, true);
    }

    /// Parses `source` (statements, the last an expression), gives every
    /// node the span `at`, and lowers it; the last expression's value.
    fn lower_template(&mut self, source: &str, at: &Span, ty: TypeId) -> Option<Val> {
        let text = format!("fn __cove_template() {{\n{source}}}\n");
        let mut errors = Vec::new();
        let file = crate::parser::parse_file(&text, &mut errors);
        let Some(Item::Fn(f)) = file.items.into_iter().next() else {
            return None;
        };
        if !errors.is_empty() {
            return None;
        }
        let mut body = f.body;
        respan_block(&mut body, at);
        let n = body.stmts.len();
        let mut value = None;
        for (i, s) in body.stmts.iter().enumerate() {
            match s {
                Stmt::Expr(e) if i + 1 == n => {
                    let v = self.expr(e, Some(ty), Want::Any);
                    value = Some(self.finish(v, Want::Any));
                }
                _ => self.stmt(s),
            }
        }
        value
    }
}

/// Gives every node of `b` the span `at`: the template's own offsets
/// would name lines of the user's file that have nothing to do with it.
fn respan_block(b: &mut Block, at: &Span) {
    b.span = at.clone();
    for s in &mut b.stmts {
        respan_stmt(s, at);
    }
}

fn respan_ident(i: &mut Ident, at: &Span) {
    i.span = at.clone();
}

fn respan_stmt(s: &mut Stmt, at: &Span) {
    match s {
        Stmt::Let { name, value, .. } => {
            respan_ident(name, at);
            respan_expr(value, at);
        }
        Stmt::Assign {
            target,
            value,
            span,
            ..
        } => {
            *span = at.clone();
            respan_expr(target, at);
            respan_expr(value, at);
        }
        Stmt::While { cond, body } => {
            respan_expr(cond, at);
            respan_block(body, at);
        }
        Stmt::For { name, iter, body } => {
            respan_ident(name, at);
            respan_expr(iter, at);
            respan_block(body, at);
        }
        Stmt::Expr(e) => respan_expr(e, at),
        Stmt::LetTuple { names, value, .. } => {
            for n in names {
                respan_ident(n, at);
            }
            respan_expr(value, at);
        }
        Stmt::ForTuple { names, iter, body } => {
            for n in names {
                respan_ident(n, at);
            }
            respan_expr(iter, at);
            respan_block(body, at);
        }
    }
}

fn respan_expr(e: &mut Expr, at: &Span) {
    e.span = at.clone();
    match &mut e.kind {
        ExprKind::Str(pieces) => {
            for p in pieces {
                if let Piece::Expr(x) | Piece::Formatted(x, ..) = p {
                    respan_expr(x, at);
                }
            }
        }
        ExprKind::Binary(_, a, b)
        | ExprKind::Index(a, b)
        | ExprKind::Range(a, b)
        | ExprKind::Assign(a, _, b) => {
            respan_expr(a, at);
            respan_expr(b, at);
        }
        ExprKind::Unary(_, a) | ExprKind::Spawn(a) => respan_expr(a, at),
        ExprKind::Field(a, name) => {
            respan_expr(a, at);
            respan_ident(name, at);
        }
        ExprKind::Call(c, args) => {
            respan_expr(c, at);
            for a in args {
                respan_expr(a, at);
            }
        }
        ExprKind::List(items) | ExprKind::New(_, items) | ExprKind::Tuple(items) => {
            for a in items {
                respan_expr(a, at);
            }
        }
        ExprKind::If(c, then, els) => {
            respan_expr(c, at);
            respan_block(then, at);
            if let Some(x) = els {
                respan_expr(x, at);
            }
        }
        ExprKind::Block(b) => respan_block(b, at),
        ExprKind::Return(Some(v)) => respan_expr(v, at),
        // The templates hold no other kind.
        _ => {}
    }
}
