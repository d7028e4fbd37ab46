//! `match`: lowering arms to tests and jumps, and checking exhaustiveness.
//!
//! Arms are tested in order, each pattern compiled to a chain of tests that
//! jump to the next arm on failure: a literal to one fused compare against
//! an immediate, a variant to a compare of its tag (read once for the whole
//! `match` when the scrutinee is an enum), `Some`/`None` to `jump-none` /
//! `jump-some`, a tuple `(p, q)` to no test of its own and a `get-field`
//! of each part its pattern needs. A linear chain rather than a jump table,
//! because the IR has no indexed jump and enums in Cove programs have few
//! variants.
//!
//! Exhaustiveness is checked with the usefulness algorithm of Maranget
//! ("Warnings for pattern matching", 2007) over a small constructor view of
//! the patterns: a `match` is exhaustive when a wildcard row is not useful
//! after all its arms. That handles nested patterns (`Some(Token.End)`)
//! exactly, where a per-variant count would not; a tuple is a constructor
//! of its own, the only one of its type, whose arguments are its parts, so
//! `(Color.Red, true)` and `(_, false)` are checked as a pair. The same algorithm, made
//! to return the value it found, names the missing case in the diagnostic
//! as deep as the arms look (`Some(Some(false))`), so the case a reader is
//! told to add is one no arm handles, not a constructor that is only
//! partly covered.

use cove_ir::op::{Instr, Reg};
use cove_ir::program::{Constant, Program};
use cove_ir::types::{Type, TypeId};

use super::literal::signed_int;
use super::tuples::tuple_elems;
use super::{FnCx, Val, Want};
use crate::ast::*;
use crate::diagnostics::Pending;
use crate::emit::Label;
use crate::resolve::{ERROR, NEVER, ty_of};

/// How many literals of `Int` and `String` columns the search for a
/// missing case may try as constructors (see `witness`) before it settles
/// for `_`: enough for any hand-written `match`, and a bound on the time a
/// pathological one takes.
const LITERAL_TRIES: usize = 2_000;

/// A constructor of the exhaustiveness view.
#[derive(Debug, Clone, PartialEq)]
enum Ctor {
    Variant(u16),
    Some,
    None,
    Bool(bool),
    Int(i64),
    Str(String),
    /// The one constructor of a tuple type: its parts are the arguments.
    Tuple,
}

/// A pattern as the exhaustiveness check sees it.
#[derive(Debug, Clone)]
enum Pat {
    Wild,
    Ctor(Ctor, Vec<Pat>),
}

impl FnCx<'_> {
    pub(crate) fn match_expr(
        &mut self,
        scrutinee: &Expr,
        arms: &[Arm],
        span: &Span,
        expected: Option<TypeId>,
        want: Want,
    ) -> Val {
        // A constant named in a pattern matches its value (`LIMIT => ...`),
        // as in Rust, not a new variable that would match everything.
        let with_consts: Vec<Arm>;
        let arms = if arms.iter().any(|a| self.names_a_constant(&a.pattern)) {
            with_consts = arms
                .iter()
                .map(|a| Arm {
                    pattern: self.constant_patterns(&a.pattern),
                    guard: a.guard.clone(),
                    body: a.body.clone(),
                })
                .collect();
            &with_consts[..]
        } else {
            arms
        };
        if let Some(v) = self.map_get_match(scrutinee, arms, span, expected, want) {
            return v;
        }
        let s = self.expr(scrutinee, None, Want::Any);
        let sty = s.ty;
        let end = self.e.label();
        let mut result = match want {
            Want::Into(r) => Some(r),
            _ => None,
        };
        // The arms' type is the context's, or else the first arm whose shape
        // tells it (so `0 => None, n => Some(n)` is an Option[Int]).
        let mut result_ty: Option<TypeId> = match expected {
            Some(t) => Some(t),
            None if want != Want::Discard => arms.iter().find_map(|a| {
                let mark = self.guess_names.len();
                self.pattern_names(&a.pattern, sty);
                let t = self.guess_type(&a.body);
                self.guess_names.truncate(mark);
                t
            }),
            None => None,
        };
        let is_enum = matches!(ty_of(self.program, sty), Some(Type::Enum(_)));
        let tag = match s.reg {
            Some(obj)
                if is_enum
                    && arms.iter().any(|a| {
                        alternatives(&a.pattern)
                            .iter()
                            .any(|p| matches!(p.kind, PatternKind::Variant(..)))
                    }) =>
            {
                let t = self.e.alloc(false);
                self.e.emit(Instr::Tag { dst: t, obj });
                Some(t)
            }
            _ => None,
        };
        // When the arms are exhaustive, a value that reaches the last arm
        // matches it: its tests are left out (its bindings are not).
        // A guarded arm covers nothing: its guard may fail.
        let view: Vec<Vec<Pat>> = arms
            .iter()
            .filter(|a| a.guard.is_none())
            .flat_map(|a| alternatives(&a.pattern))
            .map(|p| vec![self.pat_view(p, sty)])
            .collect();
        let last_always_matches = sty != ERROR
            && arms.last().is_some_and(|a| a.guard.is_none())
            && !self.useful(&view, &[Pat::Wild], &[sty]);
        let mut rows = Vec::with_capacity(arms.len());
        // Whether some arm ends without diverging: a discarded match whose
        // arms are all `()` is `()`, not `Never`, so an enclosing arm still
        // jumps past its siblings after it.
        let mut falls_through = false;
        // A bare `None` arm before any arm has told the type (`0 => None,
        // n => Some(n.to_string())`): it loads `None` into the result, an
        // Option being a reference whatever it holds, and a later arm says
        // which Option it is, as a `loop`'s `break None` waits for a later
        // `break`.
        let mut untyped_none: Option<Span> = None;
        for (i, arm) in arms.iter().enumerate() {
            let next = self.e.label();
            self.push_scope();
            let old = self.set_line(&arm.pattern.span);
            // The tests of alternatives are kept even in the last arm: which
            // one matched says where the names it binds are.
            self.skip_tests = last_always_matches
                && i + 1 == arms.len()
                && !matches!(arm.pattern.kind, PatternKind::Or(_));
            let pats = match &arm.pattern.kind {
                PatternKind::Or(alts) => self.alternatives_test(alts, s.reg, sty, next, tag),
                _ => {
                    self.bound_twice(&arm.pattern);
                    vec![self.pattern(&arm.pattern, s.reg, sty, next, tag, false)]
                }
            };
            self.skip_tests = false;
            match &arm.guard {
                Some(guard) => self.cond(guard, false, next),
                None => rows.extend(pats.into_iter().map(|p| vec![p])),
            }
            let body_want = match want {
                Want::Discard | Want::Return => want,
                _ => result.map_or(Want::Any, Want::Into),
            };
            if result_ty.is_none()
                && !matches!(want, Want::Discard | Want::Return)
                && matches!(&arm.body.kind, ExprKind::Name(n) if n == "None")
                && self.var("None").is_none()
            {
                let dst = result.unwrap_or_else(|| self.e.alloc(true));
                self.e.emit(Instr::LoadNone { dst });
                result = Some(dst);
                untyped_none.get_or_insert_with(|| arm.body.span.clone());
                self.pop_scope(None);
                falls_through = true;
                if i + 1 < arms.len() {
                    self.e.jump(Instr::Jump { target: 0 }, end);
                }
                self.e.bind(next);
                self.e.line = old;
                continue;
            }
            let v = self.expr(&arm.body, result_ty, body_want);
            let kept = self.pop_scope(v.reg);
            let v = Val {
                temp: v.temp || kept,
                ..v
            };
            if want == Want::Discard || want == Want::Return {
                self.release(v);
                if want == Want::Return
                    && let Some(t) = result_ty
                {
                    self.check(t, v.ty, &arm.body.span);
                } else if want == Want::Return && v.ty != NEVER && v.ty != ERROR {
                    result_ty = Some(v.ty);
                }
            } else {
                match result_ty {
                    Some(t) if t != ERROR => {
                        if !Self::compatible(t, v.ty) {
                            if expected.is_some() {
                                self.check(t, v.ty, &arm.body.span);
                            } else {
                                let (a, b) = (self.tname(t), self.tname(v.ty));
                                self.err(
                                    Pending::new(
                                        "E0112",
                                        arm.body.span.clone(),
                                        format!("`match` arms have different types: {a} and {b}"),
                                        format!("this is {b}, but an earlier arm is {a}"),
                                    )
                                    .help("every arm of a `match` used as a value must have the same type"),
                                );
                            }
                        }
                    }
                    Some(_) => {}
                    None => {
                        if v.ty != NEVER {
                            result_ty = Some(v.ty);
                        }
                    }
                }
                self.branch_result(v, &mut result);
            }
            if v.ty != NEVER {
                falls_through = true;
                // The last arm falls through to the end, which is bound
                // right after it: a jump there would only go to the next
                // instruction.
                if want != Want::Return && i + 1 < arms.len() {
                    self.e.jump(Instr::Jump { target: 0 }, end);
                }
            }
            self.e.bind(next);
            self.e.line = old;
        }
        self.e.bind(end);
        if let Some(t) = tag {
            self.e.free(t);
        }
        self.release(s);
        if sty != ERROR && sty != NEVER && !self.is_broken(sty) {
            self.exhaustive(&rows, sty, span, scrutinee);
        }
        if let Some(at) = untyped_none {
            match result_ty {
                None => {
                    self.err(
                        Pending::new(
                            "E0104",
                            at,
                            "cannot tell which Option type this `None` is",
                            "the type of this `None` is unknown",
                        )
                        .help("annotate the variable, as in `let x: Option[Int] = None`"),
                    );
                    result_ty = Some(ERROR);
                }
                Some(t)
                    if t != ERROR && !matches!(ty_of(self.program, t), Some(Type::Option(_))) =>
                {
                    let b = self.tname(t);
                    self.err(
                        Pending::new(
                            "E0112",
                            at,
                            format!("`match` arms have different types: an Option and {b}"),
                            format!("this is an Option, but a later arm is {b}"),
                        )
                        .help("every arm of a `match` used as a value must have the same type"),
                    );
                    result_ty = Some(ERROR);
                }
                Some(_) => {}
            }
        }
        let ty = match result_ty {
            Some(t) => t,
            None if arms.is_empty() || falls_through => Program::UNIT,
            None => NEVER,
        };
        if want == Want::Discard || want == Want::Return {
            return Val::none(ty);
        }
        Val {
            reg: result,
            ty,
            temp: want == Want::Any && result.is_some(),
        }
    }

    /// Emits the tests of alternatives `A | B | C`: each alternative that
    /// fails tries the next, the last one fails to `fail`. Alternatives may
    /// bind names when every one binds the same names with the same types
    /// (`(0, Some(n)) | (n, None)`): each name gets a register of its own,
    /// which every alternative moves its value into once it has matched,
    /// and is declared from `matched` on, so the guard and the body read
    /// it whichever alternative matched.
    fn alternatives_test(
        &mut self,
        alts: &[Pattern],
        reg: Option<Reg>,
        ty: TypeId,
        fail: Label,
        tag: Option<Reg>,
    ) -> Vec<Pat> {
        let matched = self.e.label();
        let mut pats = Vec::with_capacity(alts.len());
        // The first alternative's names, types and shared registers.
        let mut common: Option<Vec<(String, TypeId, Reg)>> = None;
        // Said once a pattern, at the first alternative that differs.
        let mut said = false;
        for (i, alt) in alts.iter().enumerate() {
            let last = i + 1 == alts.len();
            let next = if last { fail } else { self.e.label() };
            self.push_scope();
            let before = self.vars.len();
            pats.push(self.pattern(alt, reg, ty, next, tag, false));
            let bound: Vec<(String, TypeId, Reg)> = self.vars[before..]
                .iter()
                .filter(|v| !v.name.starts_with("__cove"))
                .map(|v| (v.name.clone(), v.ty, v.reg))
                .collect();
            let shared = match &common {
                None => {
                    let regs: Vec<(String, TypeId, Reg)> = bound
                        .iter()
                        .map(|(n, t, _)| (n.clone(), *t, self.e.alloc(self.is_ref(*t))))
                        .collect();
                    common.insert(regs).clone()
                }
                Some(c) => c.clone(),
            };
            let same = bound.len() == shared.len()
                && bound
                    .iter()
                    .all(|(n, t, _)| shared.iter().any(|(m, u, _)| m == n && u == t));
            if !same && !std::mem::replace(&mut said, true) {
                let names = |cx: &mut Self, b: &[(String, TypeId, Reg)]| {
                    let mut ns: Vec<String> = b
                        .iter()
                        .map(|(n, t, _)| format!("`{n}: {}`", cx.tname(*t)))
                        .collect();
                    ns.sort();
                    if ns.is_empty() {
                        "no names".to_string()
                    } else {
                        ns.join(", ")
                    }
                };
                let (these, first) = (names(self, &bound), names(self, &shared));
                self.err(
                    Pending::new(
                        "E0510",
                        alt.span.clone(),
                        "the alternatives of a `|` pattern must bind the same names, of the same types",
                        format!("this binds {these}, the first alternative {first}"),
                    )
                    .help("bind the same names in every alternative, or write an arm of its own for each"),
                );
            }
            for (n, t, r) in &bound {
                if let Some((_, _, c)) = shared.iter().find(|(m, u, _)| m == n && u == t) {
                    self.e.emit(Instr::Move { dst: *c, src: *r });
                }
            }
            self.pop_scope(None);
            if !last {
                self.e.jump(Instr::Jump { target: 0 }, matched);
                self.e.bind(next);
            }
        }
        self.e.bind(matched);
        for (n, t, r) in common.unwrap_or_default() {
            self.declare(&n, t, r, false, true);
            self.declared_by(super::Origin::Pattern);
        }
        pats
    }

    /// Declares the names a pattern binds with the error type, so a pattern
    /// already reported does not make its arm report unknown names too.
    fn bind_unknown(&mut self, p: &Pattern) {
        match &p.kind {
            PatternKind::Bind(name) => {
                let r = self.e.alloc(false);
                self.e.free(r);
                self.declare(name, ERROR, r, false, false);
            }
            PatternKind::Variant(_, Some(subs)) | PatternKind::Tuple(subs) => {
                for s in subs {
                    self.bind_unknown(s);
                }
            }
            _ => {}
        }
    }

    fn unknown_pattern(&mut self, p: &Pattern) -> Pat {
        self.bind_unknown(p);
        Pat::Wild
    }

    fn pattern_mismatch(&mut self, p: &Pattern, what: &str, ty: TypeId) {
        if ty == ERROR || ty == NEVER {
            return;
        }
        let t = self.tname(ty);
        self.err(Pending::new(
            "E0502",
            p.span.clone(),
            format!("this pattern matches {what}, but the value is {t}"),
            format!("expected a pattern for {t}"),
        ));
    }

    /// Emits the tests of `p` against the value in `reg` (jumping to
    /// `fail` when it does not match) and binds its names. `owned`: whether
    /// a name bound to `reg` itself takes the register over.
    fn pattern(
        &mut self,
        p: &Pattern,
        reg: Option<Reg>,
        ty: TypeId,
        fail: Label,
        tag: Option<Reg>,
        owned: bool,
    ) -> Pat {
        match &p.kind {
            PatternKind::Wildcard | PatternKind::Error => Pat::Wild,
            PatternKind::Bind(name) => {
                if let Some(Type::Enum(eid)) = ty_of(self.program, ty)
                    && let def = self.program.enum_def(*eid)
                    && def.variants.iter().any(|v| &v.name == name)
                {
                    let e = def.name.clone();
                    self.err(
                        Pending::new(
                            "E0501",
                            p.span.clone(),
                            format!(
                                "a variant in a pattern is named through its enum: `{e}.{name}`"
                            ),
                            "this would bind a new variable",
                        )
                        .help(format!("write `{e}.{name}`")),
                    );
                    return Pat::Wild;
                }
                if let Some(r) = reg {
                    self.declare(name, ty, r, false, owned);
                    self.declared_by(super::Origin::Pattern);
                }
                Pat::Wild
            }
            PatternKind::Int(v, neg) => {
                if ty != Program::INT {
                    self.pattern_mismatch(p, "Int values", ty);
                    return Pat::Wild;
                }
                let value = match (*v).and_then(|v| signed_int(v, *neg)) {
                    Some(value) => value,
                    None => {
                        self.err(Pending::new(
                            "E0109",
                            p.span.clone(),
                            "this integer literal does not fit in an Int",
                            "larger than 9223372036854775807",
                        ));
                        return Pat::Wild;
                    }
                };
                if let Some(a) = reg
                    && !self.skip_tests
                {
                    match i32::try_from(value) {
                        Ok(n) => self.e.jump(
                            Instr::JumpNeIntImm {
                                a,
                                value: n,
                                target: 0,
                            },
                            fail,
                        ),
                        Err(_) => {
                            let k = self.constant(Constant::Int(value));
                            let t = self.e.alloc(false);
                            self.e.emit(Instr::LoadConst {
                                dst: t,
                                constant: k,
                            });
                            self.e.jump(Instr::JumpNeInt { a, b: t, target: 0 }, fail);
                            self.e.free(t);
                        }
                    }
                }
                Pat::Ctor(Ctor::Int(value), Vec::new())
            }
            PatternKind::Bool(b) => {
                if ty != Program::BOOL {
                    self.pattern_mismatch(p, "Bool values", ty);
                    return Pat::Wild;
                }
                if let Some(cond) = reg
                    && !self.skip_tests
                {
                    self.e.jump(
                        if *b {
                            Instr::JumpIfNot { cond, target: 0 }
                        } else {
                            Instr::JumpIf { cond, target: 0 }
                        },
                        fail,
                    );
                }
                Pat::Ctor(Ctor::Bool(*b), Vec::new())
            }
            PatternKind::Str(s) => {
                if ty != Program::STR {
                    self.pattern_mismatch(p, "String values", ty);
                    return Pat::Wild;
                }
                if let Some(a) = reg
                    && !self.skip_tests
                {
                    let text = self.load_str(s, Want::Any);
                    if let Some(b) = text.reg {
                        let c = self.e.alloc(false);
                        self.e.emit(Instr::EqStr { dst: c, a, b });
                        self.e.jump(Instr::JumpIfNot { cond: c, target: 0 }, fail);
                        self.e.free(c);
                    }
                    self.release(text);
                }
                Pat::Ctor(Ctor::Str(s.clone()), Vec::new())
            }
            PatternKind::Variant(path, subs) => {
                self.variant_pattern(p, path, subs.as_deref(), reg, ty, fail, tag)
            }
            PatternKind::Or(alts) => {
                self.alternatives_test(alts, reg, ty, fail, tag);
                Pat::Wild
            }
            PatternKind::Tuple(subs) => self.tuple_pattern(p, subs, reg, ty, fail),
        }
    }

    /// `(p, q)` against a tuple: no test of its own (a tuple is always a
    /// tuple), then each part extracted with `get-field` and matched.
    fn tuple_pattern(
        &mut self,
        p: &Pattern,
        subs: &[Pattern],
        reg: Option<Reg>,
        ty: TypeId,
        fail: Label,
    ) -> Pat {
        let Some((sid, elems)) = tuple_elems(self.program, ty) else {
            self.pattern_mismatch(p, "tuples", ty);
            return self.unknown_pattern(p);
        };
        if subs.len() != elems.len() {
            let t = self.tname(ty);
            let n = elems.len();
            self.err(
                Pending::new(
                    "E0505",
                    p.span.clone(),
                    format!(
                        "the value is {t}, a tuple of {n} parts, but the pattern has {}",
                        subs.len()
                    ),
                    "wrong number of parts",
                )
                .help(format!(
                    "write a pattern of {n} parts, as in `({})`",
                    vec!["_"; n].join(", ")
                )),
            );
            return self.unknown_pattern(p);
        }
        let mut pats = Vec::with_capacity(subs.len());
        for (k, (sub, fty)) in subs.iter().zip(&elems).enumerate() {
            let pat = self.sub_pattern(sub, *fty, fail, |dst| {
                reg.map(|obj| Instr::GetField {
                    dst,
                    obj,
                    ty: sid,
                    field: k as u16,
                })
            });
            pats.push(pat);
        }
        Pat::Ctor(Ctor::Tuple, pats)
    }

    #[allow(clippy::too_many_arguments)]
    fn variant_pattern(
        &mut self,
        p: &Pattern,
        path: &[Ident],
        subs: Option<&[Pattern]>,
        reg: Option<Reg>,
        ty: TypeId,
        fail: Label,
        tag: Option<Reg>,
    ) -> Pat {
        let first = path[0].name.as_str();
        if path.len() == 1 && (first == "Some" || first == "None") {
            let inner = match ty_of(self.program, ty) {
                Some(Type::Option(i)) => *i,
                _ => {
                    self.pattern_mismatch(p, "Option values", ty);
                    return self.unknown_pattern(p);
                }
            };
            if first == "None" {
                if subs.is_some() {
                    self.err(Pending::new(
                        "E0503",
                        p.span.clone(),
                        "`None` carries no value",
                        "remove the parentheses",
                    ));
                }
                if let Some(opt) = reg
                    && !self.skip_tests
                {
                    self.e.jump(Instr::JumpSome { opt, target: 0 }, fail);
                }
                return Pat::Ctor(Ctor::None, Vec::new());
            }
            let sub = match subs {
                Some([one]) => one,
                _ => {
                    self.err(
                        Pending::new(
                            "E0503",
                            p.span.clone(),
                            "`Some` in a pattern takes exactly one pattern",
                            "write `Some(x)` or `Some(_)`",
                        )
                        .help("write `Some(x)` to bind the value, `Some(_)` to ignore it"),
                    );
                    return self.unknown_pattern(p);
                }
            };
            if let Some(opt) = reg
                && !self.skip_tests
            {
                self.e.jump(Instr::JumpNone { opt, target: 0 }, fail);
            }
            let inner_pat = self.sub_pattern(sub, inner, fail, |dst| {
                reg.map(|opt| Instr::Unwrap {
                    dst,
                    opt,
                    ty: inner,
                })
            });
            return Pat::Ctor(Ctor::Some, vec![inner_pat]);
        }
        if path.len() == 1 {
            self.err(
                Pending::new(
                    "E0504",
                    p.span.clone(),
                    format!("unknown pattern `{first}`"),
                    "not a variant",
                )
                .help(
                    "name a variant through its enum, as in `Token.Word(x)`; \
                     an Option is matched with `Some(x)` and `None`",
                ),
            );
            return self.unknown_pattern(p);
        }
        if path.len() == 2
            && let Some(d) = self.module_item_pattern(&path[0], &path[1])
        {
            self.err(d);
            return self.unknown_pattern(p);
        }
        let Some(enum_ty) = self.user_type(&path[..path.len() - 1]) else {
            return self.unknown_pattern(p);
        };
        let Some(Type::Enum(eid)) = ty_of(self.program, enum_ty).cloned() else {
            let name = self.tname(enum_ty);
            self.err(Pending::new(
                "E0208",
                p.span.clone(),
                format!("`{name}` is a struct, so it has no variants to match"),
                "not an enum",
            ));
            return self.unknown_pattern(p);
        };
        if enum_ty != ty {
            let name = self.tname(enum_ty);
            self.pattern_mismatch(p, &format!("{name} values"), ty);
            return self.unknown_pattern(p);
        }
        let vname = &path[path.len() - 1];
        let def = self.program.enum_def(eid).clone();
        let Some(index) = def.variants.iter().position(|v| v.name == vname.name) else {
            let names: Vec<&str> = def.variants.iter().map(|v| v.name.as_str()).collect();
            self.err_about(
                enum_ty,
                Pending::new(
                    "E0207",
                    vname.span.clone(),
                    format!("the enum `{}` has no variant `{}`", def.name, vname.name),
                    "unknown variant",
                )
                .help(format!("its variants are: {}", names.join(", "))),
            );
            return self.unknown_pattern(p);
        };
        let fields = def.variants[index].fields.clone();
        let subs: Vec<Pattern> = match subs {
            Some(s) => s.to_vec(),
            None => Vec::new(),
        };
        if subs.len() != fields.len() {
            let n = fields.len();
            self.err_about(
                enum_ty,
                Pending::new(
                    "E0503",
                    p.span.clone(),
                    format!(
                        "`{}.{}` carries {n} value{}, but the pattern has {}",
                        def.name,
                        vname.name,
                        if n == 1 { "" } else { "s" },
                        subs.len()
                    ),
                    "wrong number of patterns",
                )
                .help(if n == 0 {
                    format!("write `{}.{}` without parentheses", def.name, vname.name)
                } else {
                    format!(
                        "write `{}.{}({})`",
                        def.name,
                        vname.name,
                        vec!["_"; n].join(", ")
                    )
                }),
            );
            return self.unknown_pattern(p);
        }
        let index = index as u16;
        if let Some(obj) = reg
            && !self.skip_tests
        {
            match tag {
                Some(t) => self.e.jump(
                    Instr::JumpNeIntImm {
                        a: t,
                        value: i32::from(index),
                        target: 0,
                    },
                    fail,
                ),
                None => {
                    let t = self.e.alloc(false);
                    self.e.emit(Instr::Tag { dst: t, obj });
                    self.e.jump(
                        Instr::JumpNeIntImm {
                            a: t,
                            value: i32::from(index),
                            target: 0,
                        },
                        fail,
                    );
                    self.e.free(t);
                }
            }
        }
        let mut pats = Vec::with_capacity(subs.len());
        for (k, (sub, fty)) in subs.iter().zip(&fields).enumerate() {
            let pat = self.sub_pattern(sub, *fty, fail, |dst| {
                reg.map(|obj| Instr::GetPayload {
                    dst,
                    obj,
                    ty: eid,
                    variant: index,
                    field: k as u16,
                })
            });
            pats.push(pat);
        }
        Pat::Ctor(Ctor::Variant(index), pats)
    }

    /// A pattern inside a variant or `Some`: extracts the part with
    /// `extract` into a register of its own (unless the pattern is `_`) and
    /// matches it.
    fn sub_pattern(
        &mut self,
        sub: &Pattern,
        ty: TypeId,
        fail: Label,
        extract: impl FnOnce(Reg) -> Option<Instr>,
    ) -> Pat {
        if matches!(sub.kind, PatternKind::Wildcard | PatternKind::Error) {
            return Pat::Wild;
        }
        let r = self.e.alloc(self.is_ref(ty));
        let reg = match extract(r) {
            Some(i) => {
                self.e.emit_binding(i);
                Some(r)
            }
            None => None,
        };
        let binds = matches!(sub.kind, PatternKind::Bind(_));
        let pat = self.pattern(sub, reg, ty, fail, None, true);
        if !binds || reg.is_none() {
            self.e.free(r);
        }
        pat
    }

    // ---- exhaustiveness --------------------------------------------------------------

    /// The exhaustiveness view of a pattern, without emitting code or
    /// reporting anything (a pattern in error is a wildcard).
    fn pat_view(&self, p: &Pattern, ty: TypeId) -> Pat {
        match &p.kind {
            PatternKind::Int(Some(v), neg) => {
                signed_int(*v, *neg).map_or(Pat::Wild, |v| Pat::Ctor(Ctor::Int(v), Vec::new()))
            }
            PatternKind::Bool(b) => Pat::Ctor(Ctor::Bool(*b), Vec::new()),
            PatternKind::Str(s) => Pat::Ctor(Ctor::Str(s.clone()), Vec::new()),
            PatternKind::Variant(path, subs) => {
                let first = path[0].name.as_str();
                if path.len() == 1 {
                    return match (first, subs.as_deref(), ty_of(self.program, ty)) {
                        ("None", None, Some(Type::Option(_))) => Pat::Ctor(Ctor::None, Vec::new()),
                        ("Some", Some([one]), Some(Type::Option(inner))) => {
                            Pat::Ctor(Ctor::Some, vec![self.pat_view(one, *inner)])
                        }
                        _ => Pat::Wild,
                    };
                }
                let scope = &self.scopes[self.module];
                let enum_ty = match path.len() {
                    2 => scope.types.get(first).copied(),
                    3 => scope
                        .imports
                        .get(first)
                        .and_then(|&m| self.scopes[m].types.get(&path[1].name).copied()),
                    _ => None,
                };
                let Some(Type::Enum(eid)) = enum_ty
                    .filter(|t| *t == ty)
                    .and_then(|t| ty_of(self.program, t))
                else {
                    return Pat::Wild;
                };
                let def = self.program.enum_def(*eid);
                let vname = &path[path.len() - 1].name;
                let Some(index) = def.variants.iter().position(|v| &v.name == vname) else {
                    return Pat::Wild;
                };
                let fields = &def.variants[index].fields;
                let subs = subs.as_deref().unwrap_or(&[]);
                if subs.len() != fields.len() {
                    return Pat::Wild;
                }
                let args = subs
                    .iter()
                    .zip(fields)
                    .map(|(s, t)| self.pat_view(s, *t))
                    .collect();
                Pat::Ctor(Ctor::Variant(index as u16), args)
            }
            PatternKind::Tuple(subs) => match tuple_elems(self.program, ty) {
                Some((_, elems)) if elems.len() == subs.len() => Pat::Ctor(
                    Ctor::Tuple,
                    subs.iter()
                        .zip(&elems)
                        .map(|(s, t)| self.pat_view(s, *t))
                        .collect(),
                ),
                _ => Pat::Wild,
            },
            _ => Pat::Wild,
        }
    }

    /// Reports a `match` that some value reaches past every arm, naming the
    /// missing cases precisely: one witness per top-level constructor that
    /// is not fully covered, refined as deep as the arms look
    /// (`Some(Some(false))`, not `Some(_)` when `Some(Some(true))` and
    /// `Some(None)` are covered), so the case named is one that no arm
    /// handles and a reader adding an arm for it adds what was missing.
    fn exhaustive(&mut self, rows: &[Vec<Pat>], ty: TypeId, span: &Span, scrutinee: &Expr) {
        if !self.useful(rows, &[Pat::Wild], &[ty]) {
            return;
        }
        let mut missing: Vec<String> = match self.all_ctors(ty) {
            Some(all) => all
                .into_iter()
                .filter_map(|c| {
                    let spec = Self::specialize(rows, &c, self.arity(ty, &c));
                    let mut budget = LITERAL_TRIES;
                    let args = self.witness(&spec, &self.ctor_types(ty, &c), &mut budget)?;
                    Some(self.pat_text(ty, &Pat::Ctor(c, args)))
                })
                .collect(),
            None => Vec::new(),
        };
        if missing.is_empty() {
            // An `Int` or `String` scrutinee: only a catch-all completes it.
            missing.push("_".to_string());
        }
        let t = self.tname(ty);
        let list = missing
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let head = span.start..scrutinee.span.end;
        self.err(
            Pending::new(
                "E0500",
                head,
                format!("this `match` does not cover every {t}: {list} not covered"),
                format!("the arms miss {list}"),
            )
            .help(format!(
                "add an arm for {list}, or a `_ =>` arm for the rest"
            )),
        );
    }

    /// Values of the columns `tys` that no row of `rows` matches, as one
    /// pattern per column, or `None` if the rows cover every value.
    ///
    /// Maranget's usefulness algorithm, returning the value it found instead
    /// of a yes/no: where the rows' first column names every constructor of
    /// its type, each constructor is tried in turn on the specialised rows
    /// and the first witness is rebuilt under it; otherwise a constructor
    /// the column does not name (or `_` where it names none) heads a
    /// witness of the rows that accept anything there. `Int` and `String`
    /// have no list of constructors: the literals the column names are
    /// tried first, as constructors, and only when each is covered does `_`
    /// stand for the values the arms do not name. So a `_` in a witness
    /// means every value is missing there, or every value not named.
    ///
    /// Trying literals multiplies across columns (a dozen literals in each
    /// of six `Int` fields is millions of tries), so they share a `budget`;
    /// once it is spent the plain algorithm, which names the rest as `_`,
    /// finishes the witness.
    fn witness(&self, rows: &[Vec<Pat>], tys: &[TypeId], budget: &mut usize) -> Option<Vec<Pat>> {
        let Some(&ty) = tys.first() else {
            return rows.is_empty().then(Vec::new);
        };
        let heads: Vec<&Ctor> = rows
            .iter()
            .filter_map(|r| match r.first() {
                Some(Pat::Ctor(c, _)) => Some(c),
                _ => None,
            })
            .collect();
        let all = self.all_ctors(ty);
        if let Some(all) = all
            .as_ref()
            .filter(|all| all.iter().all(|c| heads.contains(&c)))
        {
            return all.iter().find_map(|c| {
                let arity = self.arity(ty, c);
                let spec = Self::specialize(rows, c, arity);
                let mut sub_tys = self.ctor_types(ty, c);
                sub_tys.extend_from_slice(&tys[1..]);
                let mut w = self.witness(&spec, &sub_tys, budget)?;
                let rest = w.split_off(arity.min(w.len()));
                let mut out = vec![Pat::Ctor(c.clone(), w)];
                out.extend(rest);
                Some(out)
            });
        }
        if all.is_none() {
            // An `Int` or `String` column: a literal the arms name may still
            // be missing under some of its rows (`T.A(0, Some(false))`),
            // which is more telling than the rest of the values as `_`.
            let mut tried: Vec<&Ctor> = Vec::new();
            for &c in &heads {
                if tried.contains(&c) {
                    continue;
                }
                if *budget == 0 {
                    break;
                }
                *budget -= 1;
                tried.push(c);
                let spec = Self::specialize(rows, c, 0);
                if let Some(rest) = self.witness(&spec, &tys[1..], budget) {
                    let mut out = vec![Pat::Ctor(c.clone(), Vec::new())];
                    out.extend(rest);
                    return Some(out);
                }
            }
        }
        let default: Vec<Vec<Pat>> = rows
            .iter()
            .filter(|r| matches!(r.first(), Some(Pat::Wild)))
            .map(|r| r[1..].to_vec())
            .collect();
        let rest = self.witness(&default, &tys[1..], budget)?;
        let head = match all {
            Some(all) if !heads.is_empty() => {
                all.into_iter()
                    .find(|c| !heads.contains(&c))
                    .map_or(Pat::Wild, |c| {
                        let arity = self.arity(ty, &c);
                        Pat::Ctor(c, vec![Pat::Wild; arity])
                    })
            }
            _ => Pat::Wild,
        };
        let mut out = vec![head];
        out.extend(rest);
        Some(out)
    }

    /// How a witness is written in a diagnostic, as a pattern would be.
    fn pat_text(&self, ty: TypeId, p: &Pat) -> String {
        let Pat::Ctor(c, args) = p else {
            return "_".into();
        };
        let tys = self.ctor_types(ty, c);
        let args: Vec<String> = args
            .iter()
            .zip(tys)
            .map(|(a, t)| self.pat_text(t, a))
            .collect();
        match c {
            Ctor::Variant(i) => match ty_of(self.program, ty) {
                Some(Type::Enum(eid)) => {
                    let def = self.program.enum_def(*eid);
                    let name = def
                        .variants
                        .get(*i as usize)
                        .map_or("_", |v| v.name.as_str());
                    if args.is_empty() {
                        format!("{}.{name}", def.name)
                    } else {
                        format!("{}.{name}({})", def.name, args.join(", "))
                    }
                }
                _ => "_".into(),
            },
            Ctor::Some => format!("Some({})", args.first().map_or("_", |a| a.as_str())),
            Ctor::None => "None".into(),
            Ctor::Bool(b) => b.to_string(),
            Ctor::Int(v) => v.to_string(),
            Ctor::Str(s) => format!("{s:?}"),
            Ctor::Tuple => format!("({})", args.join(", ")),
        }
    }

    /// Every constructor of `ty` if there are finitely many.
    fn all_ctors(&self, ty: TypeId) -> Option<Vec<Ctor>> {
        match ty_of(self.program, ty) {
            Some(Type::Enum(eid)) => {
                let n = self.program.enum_def(*eid).variants.len();
                Some((0..n as u16).map(Ctor::Variant).collect())
            }
            Some(Type::Option(_)) => Some(vec![Ctor::Some, Ctor::None]),
            Some(Type::Bool) => Some(vec![Ctor::Bool(true), Ctor::Bool(false)]),
            _ if tuple_elems(self.program, ty).is_some() => Some(vec![Ctor::Tuple]),
            _ => None,
        }
    }

    fn arity(&self, ty: TypeId, c: &Ctor) -> usize {
        self.ctor_types(ty, c).len()
    }

    fn ctor_types(&self, ty: TypeId, c: &Ctor) -> Vec<TypeId> {
        match (c, ty_of(self.program, ty)) {
            (Ctor::Variant(i), Some(Type::Enum(eid))) => self
                .program
                .enum_def(*eid)
                .variants
                .get(*i as usize)
                .map(|v| v.fields.clone())
                .unwrap_or_default(),
            (Ctor::Some, Some(Type::Option(inner))) => vec![*inner],
            (Ctor::Tuple, _) => tuple_elems(self.program, ty).map_or_else(Vec::new, |(_, e)| e),
            _ => Vec::new(),
        }
    }

    fn specialize(rows: &[Vec<Pat>], c: &Ctor, arity: usize) -> Vec<Vec<Pat>> {
        rows.iter()
            .filter_map(|row| match &row[0] {
                Pat::Ctor(c2, args) if c2 == c => {
                    let mut r = args.clone();
                    r.extend_from_slice(&row[1..]);
                    Some(r)
                }
                Pat::Ctor(..) => None,
                Pat::Wild => {
                    let mut r = vec![Pat::Wild; arity];
                    r.extend_from_slice(&row[1..]);
                    Some(r)
                }
            })
            .collect()
    }

    /// Whether a value matching `q` could reach past all of `rows`.
    fn useful(&self, rows: &[Vec<Pat>], q: &[Pat], tys: &[TypeId]) -> bool {
        let Some(head) = q.first() else {
            return rows.is_empty();
        };
        let ty = tys[0];
        let recurse = |c: &Ctor, args: Vec<Pat>| {
            let arity = self.arity(ty, c);
            let spec = Self::specialize(rows, c, arity);
            let mut q2 = args;
            q2.extend_from_slice(&q[1..]);
            let mut tys2 = self.ctor_types(ty, c);
            tys2.extend_from_slice(&tys[1..]);
            self.useful(&spec, &q2, &tys2)
        };
        match head {
            Pat::Ctor(c, args) => recurse(c, args.clone()),
            Pat::Wild => {
                let heads: Vec<&Ctor> = rows
                    .iter()
                    .filter_map(|r| match &r[0] {
                        Pat::Ctor(c, _) => Some(c),
                        Pat::Wild => None,
                    })
                    .collect();
                match self.all_ctors(ty) {
                    Some(all) if all.iter().all(|c| heads.contains(&c)) => all
                        .iter()
                        .any(|c| recurse(c, vec![Pat::Wild; self.arity(ty, c)])),
                    _ => {
                        let default: Vec<Vec<Pat>> = rows
                            .iter()
                            .filter(|r| matches!(r[0], Pat::Wild))
                            .map(|r| r[1..].to_vec())
                            .collect();
                        self.useful(&default, &q[1..], &tys[1..])
                    }
                }
            }
        }
    }
}

impl FnCx<'_> {
    /// The constant of this module that `name` in a pattern names: not when
    /// a local variable of that name hides it, as it would in an expression.
    fn pattern_constant(&self, name: &str) -> Option<Option<crate::consts::ConstValue>> {
        if self.var(name).is_some() {
            return None;
        }
        self.scopes[self.module]
            .consts
            .get(name)
            .map(|c| c.value.clone())
    }

    /// The constant that a two-part path in a pattern names: an exported
    /// constant of an imported module (`geo.LIMIT`), or `Int.MAX` and
    /// `Int.MIN`, as the same path names one in an expression. Not when the
    /// first part is a variable or a type of this module.
    fn path_constant(&self, path: &[Ident]) -> Option<Option<crate::consts::ConstValue>> {
        let [base, name] = path else { return None };
        if self.var(&base.name).is_some() {
            return None;
        }
        let scope = &self.scopes[self.module];
        if scope.types.contains_key(&base.name) {
            return None;
        }
        if base.name == "Int" && !scope.imports.contains_key(&base.name) {
            return crate::consts::int_bound(&name.name)
                .map(|v| Some(crate::consts::ConstValue::Int(v)));
        }
        let &target = scope.imports.get(&base.name)?;
        let def = self.scopes[target].consts.get(&name.name)?;
        def.exported.then(|| def.value.clone())
    }

    /// Why `m.name` in a pattern, where `m` is an imported module and not
    /// a type or variable of this one, matches nothing: the constant is not
    /// exported (said as an expression use says it), the item is not a
    /// constant, or the module has no such item. `None` when `m` is not a
    /// module, so `Shape.Circle` goes on to be read as a variant; an
    /// exported constant never reaches here, `constant_patterns` having
    /// replaced it by its value.
    fn module_item_pattern(&self, base: &Ident, name: &Ident) -> Option<Pending> {
        if self.var(&base.name).is_some() {
            return None;
        }
        let scope = &self.scopes[self.module];
        if scope.types.contains_key(&base.name) {
            return None;
        }
        let &target = scope.imports.get(&base.name)?;
        let (m, n) = (&base.name, &name.name);
        let there = &self.scopes[target];
        Some(if there.consts.contains_key(n) {
            Pending::new(
                "E0305",
                name.span.clone(),
                format!("the constant `{m}.{n}` is not exported"),
                "private to its module",
            )
            .help(format!("write `export const {n}` in `{m}` to use it here"))
        } else if there.types.contains_key(n) {
            Pending::new(
                "E0504",
                name.span.clone(),
                format!("`{m}.{n}` is a type, not a pattern"),
                "a type name here",
            )
            .help(format!("name one of its variants, as in `{m}.{n}.Variant`"))
        } else if there.functions.contains_key(n) {
            Pending::new(
                "E0504",
                name.span.clone(),
                format!("`{m}.{n}` is a function, not a pattern"),
                "a function here",
            )
            .help("match a value with a literal, a constant or a variant, or test it in a guard")
        } else {
            Pending::new(
                "E0209",
                name.span.clone(),
                format!("module `{m}` has no item `{n}`"),
                "not found in that module",
            )
        })
    }

    /// The names `p` binds against a value of type `ty`, with their types,
    /// onto `guess_names` (see there): a name, `Some(x)`, a tuple's parts
    /// and a variant's fields; the first alternative of `A | B`. Nothing
    /// is checked or reported: the arm's lowering does that.
    fn pattern_names(&mut self, p: &Pattern, ty: TypeId) {
        match &p.kind {
            PatternKind::Bind(n) if n != "None" && self.pattern_constant(n).is_none() => {
                self.guess_names.push((n.clone(), ty));
            }
            PatternKind::Or(alts) => {
                if let Some(first) = alts.first() {
                    self.pattern_names(first, ty);
                }
            }
            PatternKind::Tuple(subs) => {
                if let Some((_, elems)) = tuple_elems(self.program, ty)
                    && elems.len() == subs.len()
                {
                    for (sub, t) in subs.iter().zip(elems) {
                        self.pattern_names(sub, t);
                    }
                }
            }
            PatternKind::Variant(path, Some(subs)) => {
                let fields = match ty_of(self.program, ty) {
                    Some(Type::Option(inner)) if path.len() == 1 && path[0].name == "Some" => {
                        vec![*inner]
                    }
                    Some(Type::Enum(eid)) => {
                        let def = self.program.enum_def(*eid);
                        let vname = &path[path.len() - 1].name;
                        match def.variants.iter().find(|v| &v.name == vname) {
                            Some(v) => v.fields.clone(),
                            None => return,
                        }
                    }
                    _ => return,
                };
                if fields.len() == subs.len() {
                    for (sub, t) in subs.iter().zip(fields) {
                        self.pattern_names(sub, t);
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether `p` names a constant anywhere.
    fn names_a_constant(&self, p: &Pattern) -> bool {
        match &p.kind {
            PatternKind::Bind(n) => self.pattern_constant(n).is_some(),
            PatternKind::Variant(path, None) => self.path_constant(path).is_some(),
            PatternKind::Variant(_, Some(ps)) | PatternKind::Tuple(ps) | PatternKind::Or(ps) => {
                ps.iter().any(|q| self.names_a_constant(q))
            }
            _ => false,
        }
    }

    /// `p` with each constant it names replaced by the literal pattern of
    /// its value. A Float constant cannot be a pattern (no Float literal
    /// is): reported, and matched as a pattern already in error.
    fn constant_patterns(&mut self, p: &Pattern) -> Pattern {
        use crate::consts::ConstValue;
        let named = match &p.kind {
            PatternKind::Bind(n) => self.pattern_constant(n).map(|v| (v, n.clone())),
            PatternKind::Variant(path, None) => self.path_constant(path).map(|v| {
                let text: Vec<&str> = path.iter().map(|i| i.name.as_str()).collect();
                (v, text.join("."))
            }),
            _ => None,
        };
        let kind = match (&p.kind, named) {
            (PatternKind::Bind(_) | PatternKind::Variant(_, None), Some((value, n))) => match value
            {
                None => PatternKind::Error,
                Some(ConstValue::Int(v)) => PatternKind::Int(Some(v.unsigned_abs()), v < 0),
                Some(ConstValue::Bool(b)) => PatternKind::Bool(b),
                Some(ConstValue::Str(s)) => PatternKind::Str(s),
                Some(ConstValue::Float(_)) => {
                    self.err(
                        Pending::new(
                            "E0502",
                            p.span.clone(),
                            format!("the Float constant `{n}` cannot be a pattern"),
                            "a Float constant",
                        )
                        .help(format!("match it with a guard: `x if x == {n} => ...`")),
                    );
                    PatternKind::Error
                }
            },
            (PatternKind::Variant(path, Some(ps)), _) => PatternKind::Variant(
                path.clone(),
                Some(ps.iter().map(|q| self.constant_patterns(q)).collect()),
            ),
            (PatternKind::Tuple(ps), _) => {
                PatternKind::Tuple(ps.iter().map(|q| self.constant_patterns(q)).collect())
            }
            (PatternKind::Or(ps), _) => {
                PatternKind::Or(ps.iter().map(|q| self.constant_patterns(q)).collect())
            }
            _ => return p.clone(),
        };
        Pattern {
            kind,
            span: p.span.clone(),
        }
    }

    /// Reports a name that `p` binds twice (`(a, a)`), once, at its second
    /// binding: which of the two values it would be is anyone's guess.
    fn bound_twice(&mut self, p: &Pattern) {
        fn walk<'p>(p: &'p Pattern, out: &mut Vec<(&'p str, &'p Span)>) {
            match &p.kind {
                PatternKind::Bind(n) if n != "None" => out.push((n, &p.span)),
                PatternKind::Variant(_, Some(ps)) | PatternKind::Tuple(ps) => {
                    ps.iter().for_each(|q| walk(q, out));
                }
                _ => {}
            }
        }
        let mut names = Vec::new();
        walk(p, &mut names);
        let twice = names
            .iter()
            .enumerate()
            .find(|(i, (n, _))| names[..*i].iter().any(|(m, _)| m == n));
        if let Some((_, (name, span))) = twice {
            self.err(bound_twice_error(name, span));
        }
    }
}

/// E0511: `name`, bound again at `span` by the pattern that bound it (the
/// parser says the same of `let (a, a)`).
fn bound_twice_error(name: &str, span: &Span) -> Pending {
    Pending::new(
        "E0511",
        span.clone(),
        format!("the name `{name}` is bound twice in one pattern"),
        "bound again here",
    )
    .help("give each part a name of its own, or `_` for a part to skip")
}

/// The alternatives of an arm's pattern: `A | B` gives both, any other
/// pattern itself.
fn alternatives(p: &Pattern) -> &[Pattern] {
    match &p.kind {
        PatternKind::Or(alts) => alts,
        _ => std::slice::from_ref(p),
    }
}
