//! Top-level constants: `const NAME: Type = value`, evaluated when the
//! program is compiled.
//!
//! A constant's value is a constant expression — literals, the operators,
//! `Int.MAX` and `Int.MIN`, and other constants (`LIMIT`, or an imported
//! `geo.PI`) — of type Int, Float, Bool or String. Each is evaluated once,
//! in a pass after every module's declarations are known, so a constant
//! may name one declared later or in another module; a use in a function
//! body is then lowered as the literal it evaluated to ([`ConstValue::to_expr`]),
//! so it costs exactly what the literal would, and Int constants become
//! immediates where a literal would.
//!
//! The obvious other shape, lowering a constant as a global variable set
//! by a start-up function, would need a global store in the IR and a load
//! per use, and would make `const` a run-time thing that can fail late.
//! Here every fault (overflow, a zero divisor, a shift outside `0..=63`, a
//! cycle) is a compile error at the expression that causes it. Evaluation
//! recurses through the expression and through the constants it names;
//! both count against one depth limit, so no input overflows the stack.

use std::collections::HashMap;

use cove_ir::program::Program;
use cove_ir::types::TypeId;

use crate::ast::{BinOp, ConstDecl, Expr, ExprKind, Piece, Span, UnOp};
use crate::diagnostics::Pending;
use crate::driver::Unit;
use crate::lower::signed_int;
use crate::resolve::{ModuleScope, resolve_type, type_name};

/// How deep evaluation may nest, counting expressions and the constants
/// they name together.
const MAX_DEPTH: u32 = 200;

/// The value of a constant.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ConstValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
}

impl ConstValue {
    /// Its type.
    pub(crate) fn ty(&self) -> TypeId {
        match self {
            ConstValue::Int(_) => Program::INT,
            ConstValue::Float(_) => Program::FLOAT,
            ConstValue::Bool(_) => Program::BOOL,
            ConstValue::Str(_) => Program::STR,
        }
    }

    /// The literal expression that denotes this value, placed at `span`:
    /// what a use of the constant lowers as.
    pub(crate) fn to_expr(&self, span: &Span) -> Expr {
        let at = |kind| Expr {
            kind,
            span: span.clone(),
        };
        match self {
            ConstValue::Int(i) if *i < 0 => at(ExprKind::Unary(
                UnOp::Neg,
                Box::new(at(ExprKind::Int(Some(i.unsigned_abs())))),
            )),
            ConstValue::Int(i) => at(ExprKind::Int(Some(*i as u64))),
            ConstValue::Float(f) => at(ExprKind::Float(*f)),
            ConstValue::Bool(b) => at(ExprKind::Bool(*b)),
            ConstValue::Str(s) => at(ExprKind::Str(vec![Piece::Text(s.clone())])),
        }
    }
}

/// A module's constant, as its scope records it.
#[derive(Debug, Clone)]
pub(crate) struct ConstDef {
    /// Whether other modules may name it.
    pub exported: bool,
    /// Its value; `None` when it is in error (already reported), so its uses
    /// are not reported again.
    pub value: Option<ConstValue>,
    /// Its declared type.
    pub ty: TypeId,
}

/// Where evaluating one constant stands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    Todo,
    Running,
    Done,
}

/// Declares and evaluates every constant of every module into its scope.
pub(crate) fn declare_consts(
    program: &mut Program,
    scopes: &mut [ModuleScope],
    units: &mut [Unit],
) {
    // Declare them all first, with their types, so that any may name any.
    let mut decls: Vec<HashMap<String, usize>> = vec![HashMap::new(); units.len()];
    let mut state: Vec<Vec<State>> = units
        .iter()
        .map(|u| vec![State::Todo; u.ast.consts.len()])
        .collect();
    for (m, u) in units.iter_mut().enumerate() {
        for (i, c) in u.ast.consts.iter().enumerate() {
            let name = &c.name.name;
            let clash = if decls[m].contains_key(name) {
                Some("a constant")
            } else if scopes[m].functions.contains_key(name) {
                Some("a function")
            } else if scopes[m].types.contains_key(name) {
                Some("a type")
            } else if scopes[m].imports.contains_key(name) {
                Some("an imported module")
            } else {
                None
            };
            if let Some(what) = clash {
                u.errors.push(Pending::new(
                    "E0701",
                    c.name.span.clone(),
                    format!("the name `{name}` is declared twice"),
                    format!("{what} is already named `{name}` in this module"),
                ));
                continue;
            }
            let mut ty = resolve_type(program, scopes, m, &c.ty, &mut u.errors);
            let basic = [Program::INT, Program::FLOAT, Program::BOOL, Program::STR];
            if !basic.contains(&ty) && ty != crate::resolve::ERROR {
                u.errors.push(
                    Pending::new(
                        "E0702",
                        c.ty.span(),
                        format!("a constant cannot be of type {}", type_name(program, ty)),
                        "not Int, Float, Bool or String",
                    )
                    .help("a constant is an Int, Float, Bool or String; build other values in a function"),
                );
                ty = crate::resolve::ERROR;
                // Its value is of no use, so it is not looked at.
                state[m][i] = State::Done;
            }
            decls[m].insert(name.clone(), i);
            scopes[m].consts.insert(
                name.clone(),
                ConstDef {
                    exported: c.exported,
                    value: None,
                    ty,
                },
            );
        }
    }
    let mut ev = Evaluator {
        scopes,
        decls: &decls,
        state,
        errors: vec![Vec::new(); units.len()],
        units,
        depth: 0,
    };
    for m in 0..ev.units.len() {
        for i in 0..ev.units[m].ast.consts.len() {
            ev.constant(m, i);
        }
    }
    let errors = std::mem::take(&mut ev.errors);
    for (u, errs) in units.iter_mut().zip(errors) {
        u.errors.extend(errs);
    }
}

struct Evaluator<'a> {
    scopes: &'a mut [ModuleScope],
    units: &'a [Unit],
    /// Per module, each constant's name → its index in the module's list.
    decls: &'a [HashMap<String, usize>],
    state: Vec<Vec<State>>,
    /// Per module, the errors found in its constants.
    errors: Vec<Vec<Pending>>,
    depth: u32,
}

/// A constant expression's value, `None` once an error is reported.
type Eval = Option<ConstValue>;

impl Evaluator<'_> {
    fn decl(&self, m: usize, i: usize) -> &ConstDecl {
        &self.units[m].ast.consts[i]
    }

    /// Evaluates constant `i` of module `m` (once), and records it.
    fn constant(&mut self, m: usize, i: usize) -> Eval {
        let name = self.decl(m, i).name.name.clone();
        // A declaration refused as a duplicate is not this entry.
        if self.decls[m].get(&name) != Some(&i) {
            return None;
        }
        match self.state[m][i] {
            State::Done => return self.scopes[m].consts.get(&name)?.value.clone(),
            State::Running => {
                let d = self.decl(m, i);
                let span = d.name.span.clone();
                self.errors[m].push(
                    Pending::new(
                        "E0703",
                        span,
                        format!("the constant `{name}` is defined in terms of itself"),
                        "its value needs its own value",
                    )
                    .help("a constant's value may name only constants that do not name it back"),
                );
                self.state[m][i] = State::Done;
                return None;
            }
            State::Todo => {}
        }
        self.state[m][i] = State::Running;
        let units = self.units;
        let value_expr = &units[m].ast.consts[i].value;
        let value = self.expr(m, value_expr);
        let declared = self.scopes[m].consts.get(&name).map(|c| c.ty);
        // An integer literal where a Float is declared is that Float, as in
        // `let x: Float = 1`.
        let value = match value {
            Some(ConstValue::Int(i))
                if declared == Some(Program::FLOAT) && is_int_literal(value_expr) =>
            {
                Some(ConstValue::Float(i as f64))
            }
            v => v,
        };
        let value = match (value, declared) {
            (Some(v), Some(t)) if v.ty() != t && t != crate::resolve::ERROR => {
                let (want, found) = (ty_text(t), ty_text(v.ty()));
                self.errors[m].push(Pending::new(
                    "E0100",
                    value_expr.span.clone(),
                    format!("type mismatch: expected {want}, found {found}"),
                    format!("this is {found}"),
                ));
                None
            }
            (v, _) => v,
        };
        if self.state[m][i] == State::Running {
            self.state[m][i] = State::Done;
            if let Some(c) = self.scopes[m].consts.get_mut(&name) {
                c.value = value.clone();
            }
        }
        value
    }

    fn err(&mut self, m: usize, d: Pending) -> Eval {
        self.errors[m].push(d);
        None
    }

    fn not_constant(&mut self, m: usize, span: &Span, what: &str) -> Eval {
        self.err(
            m,
            Pending::new(
                "E0704",
                span.clone(),
                format!("{what} is not a constant expression"),
                "not known when the program is compiled",
            )
            .help("a constant's value is made of literals, operators and other constants"),
        )
    }

    /// The value of expression `e` of module `m`.
    fn expr(&mut self, m: usize, e: &Expr) -> Eval {
        if self.depth >= MAX_DEPTH {
            return self.err(
                m,
                Pending::new(
                    "E0705",
                    e.span.clone(),
                    "this constant expression nests too deeply",
                    format!("more than {MAX_DEPTH} levels"),
                )
                .help("split it into several constants"),
            );
        }
        self.depth += 1;
        let v = self.expr_inner(m, e);
        self.depth -= 1;
        v
    }

    fn expr_inner(&mut self, m: usize, e: &Expr) -> Eval {
        match &e.kind {
            ExprKind::Int(v) => match v.and_then(|v| signed_int(v, false)) {
                Some(i) => Some(ConstValue::Int(i)),
                None => self.too_big(m, &e.span),
            },
            ExprKind::Float(f) => Some(ConstValue::Float(*f)),
            ExprKind::Bool(b) => Some(ConstValue::Bool(*b)),
            ExprKind::Str(pieces) => {
                let mut text = String::new();
                for p in pieces {
                    match p {
                        Piece::Text(t) => text.push_str(t),
                        Piece::Expr(x) | Piece::Formatted(x, ..) => {
                            return self.not_constant(m, &x.span, "an interpolation");
                        }
                    }
                }
                Some(ConstValue::Str(text))
            }
            ExprKind::Name(n) => match self.decls[m].get(n) {
                Some(&i) => self.constant(m, i),
                None if self.scopes[m].functions.contains_key(n)
                    || self.scopes[m].types.contains_key(n)
                    || self.scopes[m].imports.contains_key(n) =>
                {
                    self.not_constant(m, &e.span, &format!("`{n}`"))
                }
                None => self.err(
                    m,
                    Pending::new(
                        "E0200",
                        e.span.clone(),
                        format!("unknown name `{n}`"),
                        "not a constant of this module",
                    ),
                ),
            },
            ExprKind::Field(base, field) => {
                let ExprKind::Name(b) = &base.kind else {
                    return self.not_constant(m, &e.span, "a field");
                };
                if b == "Int" && !self.scopes[m].types.contains_key(b) {
                    return match int_bound(&field.name) {
                        Some(v) => Some(ConstValue::Int(v)),
                        None => self.not_constant(m, &e.span, &format!("`Int.{}`", field.name)),
                    };
                }
                let Some(&target) = self.scopes[m].imports.get(b) else {
                    return self.not_constant(m, &e.span, &format!("`{b}.{}`", field.name));
                };
                let Some(&i) = self.decls[target].get(&field.name) else {
                    return self.not_constant(m, &e.span, &format!("`{b}.{}`", field.name));
                };
                if !self.decl(target, i).exported {
                    return self.err(
                        m,
                        Pending::new(
                            "E0305",
                            field.span.clone(),
                            format!("the constant `{b}.{}` is not exported", field.name),
                            "private to its module",
                        )
                        .help(format!(
                            "write `export const {}` in `{b}` to use it here",
                            field.name
                        )),
                    );
                }
                self.constant(target, i)
            }
            ExprKind::Unary(UnOp::Neg, inner) => {
                if let ExprKind::Int(Some(v)) = inner.kind {
                    return match signed_int(v, true) {
                        Some(i) => Some(ConstValue::Int(i)),
                        None => self.too_big(m, &e.span),
                    };
                }
                match self.expr(m, inner)? {
                    ConstValue::Int(i) => match i.checked_neg() {
                        Some(v) => Some(ConstValue::Int(v)),
                        None => self.fault(m, &e.span, "negating Int.MIN overflows"),
                    },
                    ConstValue::Float(f) => Some(ConstValue::Float(-f)),
                    v => self.bad_operand(m, &e.span, "-", &v),
                }
            }
            ExprKind::Unary(UnOp::Not, inner) => match self.expr(m, inner)? {
                ConstValue::Bool(b) => Some(ConstValue::Bool(!b)),
                v => self.bad_operand(m, &e.span, "!", &v),
            },
            ExprKind::Binary(op, a, b) => {
                // `&&` and `||` need only their left side when it decides.
                let l = self.expr(m, a);
                let r = self.expr(m, b);
                let (l, r) = match (l?, r?) {
                    // An integer literal beside a Float is that Float, as
                    // in a body (`2 * PI`).
                    (ConstValue::Int(i), r @ ConstValue::Float(_)) if is_int_literal(a) => {
                        (ConstValue::Float(i as f64), r)
                    }
                    (l @ ConstValue::Float(_), ConstValue::Int(i)) if is_int_literal(b) => {
                        (l, ConstValue::Float(i as f64))
                    }
                    pair => pair,
                };
                self.binary(m, *op, l, r, &e.span)
            }
            ExprKind::Call(..) => self.not_constant(m, &e.span, "a call"),
            // Already reported by the parser.
            ExprKind::Error => None,
            _ => self.not_constant(m, &e.span, "this"),
        }
    }

    fn too_big(&mut self, m: usize, span: &Span) -> Eval {
        self.err(
            m,
            Pending::new(
                "E0109",
                span.clone(),
                "this integer literal does not fit in an Int",
                "larger than 9223372036854775807",
            )
            .help("Int is a 64-bit signed integer; use a Float for larger magnitudes"),
        )
    }

    /// A fault evaluating a constant (what would be a runtime error).
    fn fault(&mut self, m: usize, span: &Span, message: &str) -> Eval {
        self.err(
            m,
            Pending::new(
                "E0706",
                span.clone(),
                format!("this constant cannot be evaluated: {message}"),
                "evaluated when the program is compiled",
            ),
        )
    }

    fn bad_operand(&mut self, m: usize, span: &Span, op: &str, v: &ConstValue) -> Eval {
        let t = ty_text(v.ty());
        self.err(
            m,
            Pending::new(
                "E0101",
                span.clone(),
                format!("the operator `{op}` cannot apply to {t}"),
                format!("this is {t}"),
            ),
        )
    }

    fn binary(&mut self, m: usize, op: BinOp, l: ConstValue, r: ConstValue, span: &Span) -> Eval {
        use ConstValue::{Bool, Float, Int, Str};
        let v = match (l, r) {
            (Int(a), Int(b)) => {
                let checked = match op {
                    BinOp::Add => a.checked_add(b),
                    BinOp::Sub => a.checked_sub(b),
                    BinOp::Mul => a.checked_mul(b),
                    BinOp::Div | BinOp::Rem if b == 0 => {
                        return self.fault(m, span, "division by zero");
                    }
                    BinOp::Div => a.checked_div(b),
                    BinOp::Rem => a.checked_rem(b),
                    BinOp::BitAnd => Some(a & b),
                    BinOp::BitOr => Some(a | b),
                    BinOp::BitXor => Some(a ^ b),
                    BinOp::Shl | BinOp::Shr if !(0..=63).contains(&b) => {
                        return self.fault(m, span, "a shift outside 0..=63");
                    }
                    BinOp::Shl => Some(a << b),
                    BinOp::Shr => Some(a >> b),
                    _ => match compare(op, a.cmp(&b)) {
                        Some(v) => return Some(Bool(v)),
                        None => return self.mismatch(m, op, &Int(a), &Int(b), span),
                    },
                };
                match checked {
                    Some(v) => Int(v),
                    None => return self.fault(m, span, "integer overflow"),
                }
            }
            (Float(a), Float(b)) => match op {
                BinOp::Add => Float(a + b),
                BinOp::Sub => Float(a - b),
                BinOp::Mul => Float(a * b),
                BinOp::Div => Float(a / b),
                BinOp::Rem => Float(a % b),
                BinOp::Eq => Bool(a == b),
                BinOp::Ne => Bool(a != b),
                BinOp::Lt => Bool(a < b),
                BinOp::Le => Bool(a <= b),
                BinOp::Gt => Bool(a > b),
                BinOp::Ge => Bool(a >= b),
                _ => return self.mismatch(m, op, &Float(a), &Float(b), span),
            },
            (Bool(a), Bool(b)) => match op {
                BinOp::And => Bool(a && b),
                BinOp::Or => Bool(a || b),
                BinOp::Eq => Bool(a == b),
                BinOp::Ne => Bool(a != b),
                _ => return self.mismatch(m, op, &Bool(a), &Bool(b), span),
            },
            (Str(a), Str(b)) => match op {
                BinOp::Add => Str(a + &b),
                BinOp::Eq => Bool(a == b),
                BinOp::Ne => Bool(a != b),
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                    Bool(compare(op, a.cmp(&b)).unwrap_or(false))
                }
                _ => return self.mismatch(m, op, &Str(a), &Str(b), span),
            },
            (a, b) => return self.mismatch(m, op, &a, &b, span),
        };
        Some(v)
    }

    fn mismatch(
        &mut self,
        m: usize,
        op: BinOp,
        a: &ConstValue,
        b: &ConstValue,
        span: &Span,
    ) -> Eval {
        let (ta, tb) = (ty_text(a.ty()), ty_text(b.ty()));
        let message = if ta == tb {
            format!("the operator `{}` cannot apply to {ta}", op.text())
        } else {
            format!("the operator `{}` cannot apply to {ta} and {tb}", op.text())
        };
        self.err(
            m,
            Pending::new(
                "E0101",
                span.clone(),
                message,
                "in this constant expression",
            ),
        )
    }
}

/// The result of a comparison operator on an ordering; `None` for an
/// operator that is not a comparison.
fn compare(op: BinOp, o: std::cmp::Ordering) -> Option<bool> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    Some(match op {
        BinOp::Eq => o == Equal,
        BinOp::Ne => o != Equal,
        BinOp::Lt => o == Less,
        BinOp::Le => o != Greater,
        BinOp::Gt => o == Greater,
        BinOp::Ge => o != Less,
        _ => return None,
    })
}

/// Whether `e` is an integer literal, negated or not.
fn is_int_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) => true,
        ExprKind::Unary(UnOp::Neg, inner) => matches!(inner.kind, ExprKind::Int(_)),
        _ => false,
    }
}

/// `Int.MAX` and `Int.MIN`.
pub(crate) fn int_bound(name: &str) -> Option<i64> {
    match name {
        "MAX" => Some(i64::MAX),
        "MIN" => Some(i64::MIN),
        _ => None,
    }
}

/// The spelling of one of the four constant types.
fn ty_text(t: TypeId) -> &'static str {
    match t {
        Program::INT => "Int",
        Program::FLOAT => "Float",
        Program::BOOL => "Bool",
        Program::STR => "String",
        _ => "{unknown}",
    }
}
