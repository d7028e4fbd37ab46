//! `loop { ... }` and `break value`.
//!
//! A `loop` is an expression: its value is that of the `break` that leaves
//! it (`()` for a bare `break`), and one that no `break` leaves has type
//! `!`, so it never falls through and a function may end in one. The
//! result register is taken from the caller's `Want::Into` when there is
//! one, else allocated at the first `break value` (whose type then fixes
//! its class) and every later `break` moves into it, as the branches of an
//! `if` share one register. Deciding the type at the first `break`, not
//! from a guess before the body, means a `loop` needs no annotation. A
//! `break None` before any `break` has told the type (`break None` then
//! `break Some(x)`, the shape of every search) waits for a later one to:
//! every Option is a reference, so its register is known without it.

use cove_ir::op::{Instr, Reg};
use cove_ir::program::Program;
use cove_ir::types::{Type, TypeId};

use super::{FnCx, LoopCx, Val, Want};
use crate::ast::{Block, Expr, ExprKind, Span};
use crate::diagnostics::Pending;
use crate::resolve::{ERROR, NEVER, ty_of};

/// Where a `loop`'s `break` values go.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoopValue {
    /// The register that holds the value, once there is one.
    result: Option<Reg>,
    /// The value's type, fixed by the first `break`.
    ty: Option<TypeId>,
    /// The type the `loop`'s context expects, if known.
    expected: Option<TypeId>,
    /// Where a `break None` came before the type was known: a later
    /// `break` must make it an Option.
    untyped_none: Option<(usize, usize)>,
}

impl FnCx<'_> {
    pub(crate) fn loop_expr(
        &mut self,
        body: &Block,
        expected: Option<TypeId>,
        want: Want,
        span: &Span,
    ) -> Val {
        let old = self.set_line(span);
        let top = self.e.label();
        let exit = self.e.label();
        self.e.bind(top);
        let mut cx = LoopCx::new(exit, top);
        cx.value = Some(LoopValue {
            result: match want {
                Want::Into(r) => Some(r),
                _ => None,
            },
            ty: None,
            expected: expected.filter(|t| *t != ERROR && *t != NEVER),
            untyped_none: None,
        });
        self.loops.push(cx);
        self.in_loop += 1;
        let v = self.block(body, None, Want::Discard);
        self.release(v);
        self.e.jump(Instr::Jump { target: 0 }, top);
        self.in_loop -= 1;
        let cx = self.loops.pop().expect("the loop pushed above");
        self.e.bind(exit);
        self.e.line = old;
        if !cx.broke {
            return Val::none(NEVER);
        }
        let value = cx.value.expect("a loop has a value");
        let mut ty = value.ty.unwrap_or(Program::UNIT);
        if let Some((start, end)) = value.untyped_none {
            let at = start..end;
            let option = matches!(ty_of(self.program, ty), Some(Type::Option(_)));
            if value.ty.is_none() {
                self.err(
                    Pending::new(
                        "E0104",
                        at,
                        "cannot tell which Option type this `None` is",
                        "no other `break` of this `loop` tells its type",
                    )
                    .help("annotate the variable, as in `let x: Option[Int] = loop { ... }`"),
                );
                ty = ERROR;
            } else if !option && ty != ERROR {
                let t = self.tname(ty);
                self.err(Pending::new(
                    "E0100",
                    at,
                    format!("type mismatch: expected {t}, found an Option"),
                    "this is an Option",
                ));
            }
        }
        match (value.result, want) {
            (Some(r), Want::Into(_)) => Val {
                reg: Some(r),
                ty,
                temp: false,
            },
            (Some(r), _) => self.done(r, ty, want),
            (None, _) => self.finish(Val::none(ty), want),
        }
    }

    /// `break value`: the value into the innermost `loop`'s register.
    pub(crate) fn break_value(&mut self, value: &Expr, span: &Span) {
        let Some(l) = self.loops.last().copied() else {
            self.err(Pending::new(
                "E0407",
                span.clone(),
                "`break` outside of a loop",
                "`break` is only meaningful inside `loop`, `while` or `for`",
            ));
            let v = self.expr(value, None, Want::Discard);
            self.release(v);
            return;
        };
        let Some(lv) = l.value else {
            self.err(
                Pending::new(
                    "E0409",
                    span.clone(),
                    "`break` with a value inside `while` or `for`",
                    "only a `loop` has a value to break with",
                )
                .help(
                    "write the loop as `loop { ... }`, or store the value in a `var` and `break`",
                ),
            );
            let v = self.expr(value, None, Want::Discard);
            self.release(v);
            return;
        };
        let hint = lv.ty.or(lv.expected);
        let bare_none =
            matches!(&value.kind, ExprKind::Name(n) if n == "None") && self.var("None").is_none();
        if hint.is_none() && bare_none {
            let dst = lv.result.unwrap_or_else(|| self.e.alloc(true));
            self.e.emit(Instr::LoadNone { dst });
            if let Some(top) = self.loops.last_mut() {
                top.broke = true;
                if let Some(lv) = &mut top.value {
                    lv.result = Some(dst);
                    lv.untyped_none
                        .get_or_insert((value.span.start, value.span.end));
                }
            }
            self.e.jump(Instr::Jump { target: 0 }, l.brk);
            return;
        }
        let v = self.expr(value, hint, lv.result.map_or(Want::Any, Want::Into));
        if let Some(t) = lv.ty.or(lv.expected) {
            self.check(t, v.ty, &value.span);
        }
        let mut result = lv.result;
        self.branch_result(v, &mut result);
        if let Some(top) = self.loops.last_mut() {
            top.broke = true;
            if let Some(lv) = &mut top.value {
                lv.result = result;
                if lv.ty.is_none() && v.ty != NEVER && v.ty != ERROR {
                    lv.ty = Some(lv.expected.unwrap_or(v.ty));
                }
            }
        }
        self.e.jump(Instr::Jump { target: 0 }, l.brk);
    }

    /// A bare `break` leaves the innermost loop; in a `loop` whose value is
    /// not `()` it is a mistake.
    pub(crate) fn note_bare_break(&mut self, span: &Span) {
        let Some(top) = self.loops.last_mut() else {
            return;
        };
        top.broke = true;
        let Some(lv) = &mut top.value else { return };
        match lv.ty.or(lv.expected) {
            None => lv.ty = Some(Program::UNIT),
            Some(t) if t == Program::UNIT || t == ERROR => {}
            Some(t) => {
                // The `loop` keeps the type it is expected to have, so
                // its use is not reported as a second mismatch.
                lv.ty.get_or_insert(t);
                let t = self.tname(t);
                self.err(
                    Pending::new(
                        "E0100",
                        span.clone(),
                        format!("type mismatch: expected {t}, found ()"),
                        "this `break` leaves the loop without a value",
                    )
                    .help(format!("this `loop` is {t}: write `break value`")),
                );
            }
        }
    }
}
