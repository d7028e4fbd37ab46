//! `"{x:spec}"`: an interpolated value written by a format spec.
//!
//! The spec was parsed with the string ([`cove_ir::format::FormatSpec`]);
//! here it is checked against the value's type and lowered to one
//! `call-builtin` of `format.int`, `format.float` or `format.str` with the
//! spec packed into an Int operand, so nothing is parsed at run time. A
//! value of any other type with a text form is made text first and then
//! formatted as text (width, fill, alignment, precision), as Rust's `pad`
//! does for a `Display` value.

use cove_ir::builtins::Builtin;
use cove_ir::format::{FormatSpec, Kind};
use cove_ir::program::Program;

use super::{FnCx, Val, Want};
use crate::ast::{Expr, ExprKind, Span};
use crate::diagnostics::Pending;
use crate::resolve::{ERROR, NEVER};

impl FnCx<'_> {
    /// The text of `e` written by `spec` (written at `at`).
    pub(crate) fn formatted(&mut self, e: &Expr, spec: &FormatSpec, at: &Span) -> Val {
        let v = self.expr(e, None, Want::Any);
        if v.ty == ERROR || v.ty == NEVER {
            self.release(v);
            return Val::none(ERROR);
        }
        let (builtin, v) = if v.ty == Program::INT {
            (Builtin::FormatInt, v)
        } else if v.ty == Program::FLOAT && spec.fits_float() {
            (Builtin::FormatFloat, v)
        } else if v.ty != Program::FLOAT && spec.fits_text() {
            let text = self.text_of(v, &e.span);
            if text.ty == ERROR {
                return text;
            }
            (Builtin::FormatStr, text)
        } else {
            let t = self.tname(v.ty);
            let ty = kind_text(spec.kind);
            self.err(
                Pending::new(
                    "E0801",
                    at.clone(),
                    format!("the format type `{ty}` does not fit a {t}"),
                    format!("the value is {t}"),
                )
                .help(match v.ty {
                    t if t == Program::FLOAT => "a Float takes `e`, `E` or no type: `{x:.3}`, `{x:e}`",
                    _ => "`x X b o` are for Int and `e E` for Int and Float; text takes width, fill, alignment and precision",
                }),
            );
            self.release(v);
            return Val::none(ERROR);
        };
        let packed = Expr {
            kind: ExprKind::Int(Some(spec.pack() as u64)),
            span: at.clone(),
        };
        self.builtin_emit(
            builtin,
            &[Program::INT],
            Program::STR,
            Some(v),
            std::slice::from_ref(&packed),
            Want::Any,
        )
    }
}

/// How a format type is written.
fn kind_text(k: Kind) -> &'static str {
    match k {
        Kind::Display => "",
        Kind::LowerHex => "x",
        Kind::UpperHex => "X",
        Kind::Binary => "b",
        Kind::Octal => "o",
        Kind::LowerExp => "e",
        Kind::UpperExp => "E",
    }
}
