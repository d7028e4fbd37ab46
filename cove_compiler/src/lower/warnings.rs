//! Warnings about variables: unused ones and `var`s never assigned again.
//!
//! Each variable declared by a `let`, a `var`, a parameter or a `for`
//! records where its name was written; an expression that reads it marks
//! it used, an assignment marks it assigned (an assignment is not a read,
//! so a variable only ever assigned is unused). When its scope ends,
//! [`FnCx::warn_unused`] reports what it never was. A name starting with
//! `_` is exempt, as in Rust. Warnings are collected beside the errors and
//! reported only for a program that compiles, so a mistake never comes
//! with a flurry of warnings it caused.

use cove_ir::op::Reg;
use cove_ir::types::TypeId;

use super::{FnCx, Origin, Var};
use crate::ast::Span;
use crate::diagnostics::Pending;
use crate::resolve::{ERROR, NEVER};

impl FnCx<'_> {
    /// Records where the variable declared last was named.
    pub(crate) fn declared_at(&mut self, span: &Span) {
        if let Some(v) = self.vars.last_mut() {
            v.at = Some(span.clone());
        }
    }

    /// The innermost variable named `name`, as an assignment's target: it
    /// counts as assigned, not as read.
    pub(crate) fn assigned_var(&mut self, name: &str) -> Option<(Reg, TypeId, bool)> {
        let j = *self.by_name.get(name)?.last()?;
        let v = &mut self.vars[j];
        v.assigned = true;
        Some((v.reg, v.ty, v.mutable))
    }

    /// Reports `v`, whose scope has ended, if it was never read or is a
    /// `var` never assigned again.
    pub(super) fn warn_unused(&mut self, v: &Var) {
        let Some(at) = v.at.clone() else { return };
        if v.name.starts_with('_') || v.ty == ERROR || v.ty == NEVER {
            return;
        }
        let name = &v.name;
        if !v.used.get() {
            let (code, what) = match v.origin {
                Origin::Parameter => ("W0002", "parameter"),
                _ => ("W0001", "variable"),
            };
            self.warnings.push(
                Pending::new(
                    code,
                    at,
                    format!("unused {what} `{name}`"),
                    if v.assigned {
                        "assigned, but never read"
                    } else {
                        "never read"
                    },
                )
                .help(format!(
                    "remove it, or name it `_{name}` if it is meant to go unused"
                )),
            );
        } else if v.mutable && !v.assigned {
            self.warnings.push(
                Pending::new(
                    "W0003",
                    at,
                    format!("`{name}` is declared with `var` but never assigned again"),
                    "never assigned",
                )
                .help(format!("declare it with `let {name}`")),
            );
        }
    }
}
