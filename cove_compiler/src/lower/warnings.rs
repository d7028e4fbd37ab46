//! Warnings about variables (unused ones and `var`s never assigned again)
//! and about code that can never run.
//!
//! Each variable declared by a `let`, a `var`, a parameter or a `for`
//! records where its name was written; an expression that reads it marks
//! it used, an assignment marks it assigned (an assignment is not a read,
//! so a variable only ever assigned is unused). When its scope ends,
//! [`FnCx::warn_unused`] reports what it never was. A name starting with
//! `_` is exempt, as in Rust. Warnings are collected beside the errors and
//! reported only for a program that compiles, so a mistake never comes
//! with a flurry of warnings it caused.
//!
//! Code that can never run is found where the types already tell it: a
//! statement whose type is `Never` (a `return`, `break`, `continue`, a
//! `loop` that no `break` leaves, an `if` or `match` every branch of which
//! is one of those) makes the rest of its block unreachable, reported once
//! at the first statement after it. No flow analysis of its own: the
//! checker's `Never` is that analysis, so the warning and the E0402 check
//! of a function's end can never disagree. (Unused imports are found by
//! the driver, from the names the parser saw written before a `.`.)

use cove_ir::op::Reg;
use cove_ir::types::TypeId;

use super::{FnCx, Origin, Var};
use crate::ast::{Span, Stmt};
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
        } else if v.mutable && !v.assigned && v.group.is_none() {
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

    /// Records that the variable declared last is a name of the `var`
    /// tuple whose names were written at `group`.
    pub(crate) fn in_group(&mut self, group: Option<Span>) {
        if let Some(v) = self.vars.last_mut() {
            v.group = group;
        }
    }

    /// Reports each `var (a, b)` among `ended` (variables whose scope has
    /// ended) none of whose names, at any depth of nesting, is ever
    /// assigned again, once, at its names, when one of them is read (an
    /// unread one is already reported unused). A nested `var ((a, b), c)`
    /// is a tuple of hidden names taken apart again by declarations of
    /// their own, each a group of its own within the outer group's names,
    /// so a group counts as assigned when one within its span is, and only
    /// the outermost is reported.
    pub(super) fn warn_var_tuples(&mut self, ended: &[Var]) {
        // Each group: its span, whether a name of it was assigned, read.
        let mut groups: Vec<(Span, bool, bool)> = Vec::new();
        for v in ended {
            let Some(g) = &v.group else { continue };
            if v.ty == ERROR || v.ty == NEVER {
                continue;
            }
            let read = v.used.get() && !v.name.starts_with('_');
            match groups.iter_mut().find(|(s, _, _)| s == g) {
                Some(entry) => {
                    entry.1 |= v.assigned;
                    entry.2 |= read;
                }
                None => groups.push((g.clone(), v.assigned, read)),
            }
        }
        let within = |a: &Span, b: &Span| b.start <= a.start && a.end <= b.end;
        for (span, _, _) in &groups {
            if groups.iter().any(|(o, _, _)| o != span && within(span, o)) {
                continue;
            }
            let inside = || groups.iter().filter(|(o, _, _)| within(o, span));
            if inside().any(|g| g.1) || !inside().any(|g| g.2) {
                continue;
            }
            self.warnings.push(
                Pending::new(
                    "W0003",
                    span.clone(),
                    "these names are declared with `var` but none is ever assigned again",
                    "never assigned",
                )
                .help("declare them with `let (...)`"),
            );
        }
    }

    /// Reports `s`, a `let` whose value never finishes (`let x = loop {}`):
    /// its names are never bound and nothing after it in its block runs,
    /// one warning for both, at the names.
    pub(super) fn warn_never_bound(&mut self, s: &Stmt) {
        let (span, what) = match s {
            Stmt::Let { name, .. } => (
                name.span.clone(),
                format!("`{}` is never bound, because its", name.name),
            ),
            Stmt::LetTuple { names, value, .. } => (
                names.first().map_or(value.span.start, |n| n.span.start)
                    ..names.last().map_or(value.span.start, |n| n.span.end),
                "these names are never bound, because their".to_string(),
            ),
            _ => return,
        };
        self.warnings.push(
            Pending::new(
                "W0005",
                span,
                format!("unreachable code: {what} value never finishes"),
                "never bound",
            )
            .help(
                "the value never gives one (a `loop` without `break`, a `return`, or an `exit`), \
                 so this `let` and everything after it can never run: give the `loop` a `break value`, \
                 or write the loop as a statement of its own",
            ),
        );
    }

    /// Reports `s`, the first statement of its block after one that never
    /// finishes.
    pub(super) fn warn_unreachable(&mut self, s: &Stmt) {
        let span = match s {
            Stmt::Let { name, value, .. } => name.span.start..value.span.end,
            Stmt::Assign { span, .. } => span.clone(),
            Stmt::While { cond, .. } => cond.span.clone(),
            Stmt::For { name, iter, .. } => name.span.start..iter.span.end,
            Stmt::Expr(e) => e.span.clone(),
            Stmt::LetTuple { names, value, .. } => {
                names.first().map_or(value.span.start, |n| n.span.start)..value.span.end
            }
            Stmt::ForTuple { names, iter, .. } => {
                names.first().map_or(iter.span.start, |n| n.span.start)..iter.span.end
            }
        };
        self.warnings.push(
            Pending::new(
                "W0005",
                span,
                "unreachable code",
                "this can never run",
            )
            .help(
                "the statement before it never finishes (a `return`, `break`, `continue` or `exit`, \
                 or a `loop` without `break`): remove this code or move it before",
            ),
        );
    }
}
