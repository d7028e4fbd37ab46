//! The syntax tree the parser builds and the lowering reads.
//!
//! It is untyped and keeps a byte span on everything a diagnostic may point
//! at. Method calls, enum variants and module-qualified names all parse as
//! field accesses (`a.b`) and calls: which one `a.b(...)` is depends on what
//! `a` names, which only name resolution knows.

use std::ops::Range;

/// A byte range of a source file.
pub(crate) type Span = Range<usize>;

/// A name and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ident {
    /// The name.
    pub name: String,
    /// Where.
    pub span: Span,
}

/// A parsed source file.
#[derive(Debug, Clone, Default)]
pub(crate) struct File {
    /// `import name` lines, in order.
    pub imports: Vec<Ident>,
    /// Functions, structs and enums, in order.
    pub items: Vec<Item>,
    /// `const` declarations, in order: kept apart from `items` because
    /// they are evaluated when the program is compiled, not lowered.
    pub consts: Vec<ConstDecl>,
    /// Every name written before a `.` in the file (interpolations too):
    /// an import not among them is unused.
    pub qualifiers: std::collections::HashSet<String>,
}

/// `const NAME: Type = value` at the top level of a module.
#[derive(Debug, Clone)]
pub(crate) struct ConstDecl {
    /// Whether it is `export`ed.
    pub exported: bool,
    /// Its name.
    pub name: Ident,
    /// Its written type.
    pub ty: TypeExpr,
    /// Its value, a constant expression.
    pub value: Expr,
}

/// A top-level declaration.
#[derive(Debug, Clone)]
pub(crate) enum Item {
    /// `fn`.
    Fn(FnDecl),
    /// `struct`.
    Struct(StructDecl),
    /// `enum`.
    Enum(EnumDecl),
}

/// `fn name(params) -> ty { body }`.
#[derive(Debug, Clone)]
pub(crate) struct FnDecl {
    /// Whether it is `export`ed.
    pub exported: bool,
    /// Its name.
    pub name: Ident,
    /// Its parameters.
    pub params: Vec<(Ident, TypeExpr)>,
    /// Its result type, `None` for `()`.
    pub result: Option<TypeExpr>,
    /// Its body.
    pub body: Block,
    /// Whether its header did not parse (already reported): it is declared,
    /// so calls to it are not unknown names, but neither checked nor lowered.
    pub broken: bool,
}

/// `struct Name { field: Type, ... }`.
#[derive(Debug, Clone)]
pub(crate) struct StructDecl {
    /// Whether it is `export`ed.
    pub exported: bool,
    /// Its name.
    pub name: Ident,
    /// Its fields.
    pub fields: Vec<(Ident, TypeExpr)>,
    /// Whether it did not parse to the end (already reported).
    pub broken: bool,
}

/// `enum Name { Variant(Type, ...), ... }`.
#[derive(Debug, Clone)]
pub(crate) struct EnumDecl {
    /// Whether it is `export`ed.
    pub exported: bool,
    /// Its name.
    pub name: Ident,
    /// Its variants and their payload types.
    pub variants: Vec<(Ident, Vec<TypeExpr>)>,
    /// Whether it did not parse to the end (already reported).
    pub broken: bool,
}

/// A type as written.
#[derive(Debug, Clone)]
pub(crate) enum TypeExpr {
    /// `()`.
    Unit(Span),
    /// `Int`, `List[T]`, `lexer.Token`: a path of one or two names and
    /// type arguments.
    Named {
        /// The names, `[lexer, Token]`.
        path: Vec<Ident>,
        /// `[T]` arguments.
        args: Vec<TypeExpr>,
        /// The whole type.
        span: Span,
    },
    /// A type the parser could not read; already reported.
    Error(Span),
    /// `(Int, String)`: a tuple of two or more types.
    Tuple(Vec<TypeExpr>, Span),
    /// `fn(Int, Int) -> Bool`; without `->` the result is `()`.
    Fn {
        /// The parameter types.
        params: Vec<TypeExpr>,
        /// The result type, `None` for `()`.
        result: Option<Box<TypeExpr>>,
        /// The whole type.
        span: Span,
    },
}

impl TypeExpr {
    /// Where it was written.
    pub(crate) fn span(&self) -> Span {
        match self {
            TypeExpr::Unit(s) | TypeExpr::Error(s) | TypeExpr::Tuple(_, s) => s.clone(),
            TypeExpr::Named { span, .. } | TypeExpr::Fn { span, .. } => span.clone(),
        }
    }
}

/// A function expression, `fn(a: Int, b) -> Bool { a < b }`.
#[derive(Debug, Clone)]
pub(crate) struct FnExpr {
    /// The parameters; a type left out is taken from the expected
    /// function type.
    pub params: Vec<(Ident, Option<TypeExpr>)>,
    /// The result type, `None` when left out (it is the body's).
    pub result: Option<TypeExpr>,
    /// The body.
    pub body: Block,
}

/// `{ statements }`; the value is the last statement if it is an expression.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    /// The statements.
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
}

/// A statement.
#[derive(Debug, Clone)]
pub(crate) enum Stmt {
    /// `let x: T = e` or `var x = e`.
    Let {
        /// `var`?
        mutable: bool,
        /// The name.
        name: Ident,
        /// The annotation.
        ty: Option<TypeExpr>,
        /// The initial value.
        value: Expr,
    },
    /// `target op= value`.
    Assign {
        /// The place assigned.
        target: Expr,
        /// `None` for `=`, the operator of `+=` and friends.
        op: Option<BinOp>,
        /// The value.
        value: Expr,
        /// The whole statement.
        span: Span,
    },
    /// `while cond { body }`.
    While {
        /// The condition.
        cond: Expr,
        /// The body.
        body: Block,
    },
    /// `for name in iter { body }`.
    For {
        /// The loop variable.
        name: Ident,
        /// A range `a..b` or a list.
        iter: Expr,
        /// The body.
        body: Block,
    },
    /// An expression.
    Expr(Expr),
    /// `let (a, b) = e` or `var (x, y) = e`: a tuple taken apart; `_`
    /// binds nothing.
    LetTuple {
        /// `var`?
        mutable: bool,
        /// The names, in order.
        names: Vec<Ident>,
        /// The tuple.
        value: Expr,
    },
    /// `for (a, b) in iter { body }`: each element, a tuple, taken apart;
    /// over a map, its entries in insertion order.
    ForTuple {
        /// The names, in order.
        names: Vec<Ident>,
        /// A list of tuples, a map, or `list.enumerate()`.
        iter: Expr,
        /// The body.
        body: Block,
    },
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    /// Whether the result is a Bool whatever the operands: a comparison,
    /// `&&` or `||`.
    pub(crate) fn is_bool_valued(self) -> bool {
        matches!(
            self,
            BinOp::Eq
                | BinOp::Ne
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::And
                | BinOp::Or
        )
    }

    /// How it is written.
    pub(crate) fn text(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

/// A unary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnOp {
    /// `-`
    Neg,
    /// `!`
    Not,
}

/// A piece of an interpolated string.
#[derive(Debug, Clone)]
pub(crate) enum Piece {
    /// Literal text.
    Text(String),
    /// `{expr}`.
    Expr(Expr),
    /// `{expr:spec}`: the expression, its parsed spec, and the spec's span.
    Formatted(Expr, cove_ir::format::FormatSpec, Span),
}

/// An expression and its span.
#[derive(Debug, Clone)]
pub(crate) struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
}

impl Expr {
    /// Whether evaluating it surely assigns no variable: it is made of
    /// literals, names, operators, fields, indexing, and list, tuple and
    /// struct literals of such, with no call (a function or a closure
    /// could assign a `var` it sees, a captured one included), block,
    /// `if`, `match` or function expression. Conservative: `x.length()`
    /// assigns nothing and is still refused, as every call is.
    pub(crate) fn assigns_nothing(&self) -> bool {
        match &self.kind {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Unit
            | ExprKind::Name(_) => true,
            ExprKind::Str(pieces) => pieces.iter().all(|piece| match piece {
                Piece::Text(_) => true,
                Piece::Expr(e) | Piece::Formatted(e, _, _) => e.assigns_nothing(),
            }),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
                a.assigns_nothing() && b.assigns_nothing()
            }
            ExprKind::Unary(_, a) | ExprKind::Field(a, _) => a.assigns_nothing(),
            ExprKind::List(items) | ExprKind::Tuple(items) => {
                items.iter().all(Expr::assigns_nothing)
            }
            ExprKind::StructLit(_, fields) => fields.iter().all(|(_, e)| e.assigns_nothing()),
            _ => false,
        }
    }
}

/// A part of a statement or an expression that a walk of the tree steps
/// into: the one list of what each kind of node is made of, so that a walk
/// states only the cases it cares about and visits the rest through
/// [`Stmt::parts`] and [`Expr::parts`]. (Before it, each walk listed every
/// kind's children itself, and a kind added to the language had to be
/// added to each.)
pub(crate) enum Part<'a> {
    /// A sub-expression.
    Expr(&'a Expr),
    /// A nested block: a loop's body, a function expression's body.
    Block(&'a Block),
    /// A `match` arm's pattern.
    Pattern(&'a Pattern),
    /// A name the node binds: a `let`'s, a loop variable, a parameter of a
    /// function expression.
    Binding(&'a str),
}

impl Block {
    /// Whether every call the block can make is one `allowed` accepts (it
    /// is given each call's callee; the arguments are walked as the rest
    /// is), with no `spawn` and no function expression anywhere in it,
    /// nested blocks, loops and arms included. With `allowed` accepting
    /// only calls that change no map, such a block can change no map, as
    /// every change to a map is a call of one of its methods: a
    /// `for (k, v) in map` whose body is one need not ask, each turn,
    /// whether the body removed the turn's key.
    pub(crate) fn calls_only(&self, allowed: &dyn Fn(&Expr) -> bool) -> bool {
        self.stmts.iter().all(|s| {
            let mut all = true;
            s.parts(&mut |part| all = all && part_calls_only(part, allowed));
            all
        })
    }

    /// Every name the block binds anywhere in it: `let`s, loop variables,
    /// the names of `match` patterns, the parameters of function
    /// expressions.
    pub(crate) fn binds(&self, names: &mut Vec<String>) {
        for s in &self.stmts {
            s.parts(&mut |part| part_binds(part, names));
        }
    }
}

/// [`Block::calls_only`] of one part.
fn part_calls_only(part: Part<'_>, allowed: &dyn Fn(&Expr) -> bool) -> bool {
    match part {
        Part::Expr(e) => e.calls_only(allowed),
        Part::Block(b) => b.calls_only(allowed),
        Part::Pattern(_) | Part::Binding(_) => true,
    }
}

/// [`Block::binds`] of one part.
fn part_binds(part: Part<'_>, names: &mut Vec<String>) {
    match part {
        Part::Expr(e) => e.parts(&mut |part| part_binds(part, names)),
        Part::Block(b) => b.binds(names),
        Part::Pattern(p) => p.binds(names),
        Part::Binding(name) => names.push(name.to_string()),
    }
}

impl Stmt {
    /// Calls `visit` on each part of the statement, in source order.
    pub(crate) fn parts<'a>(&'a self, visit: &mut dyn FnMut(Part<'a>)) {
        match self {
            Stmt::Let { name, value, .. } => {
                visit(Part::Expr(value));
                visit(Part::Binding(&name.name));
            }
            Stmt::LetTuple { names, value, .. } => {
                visit(Part::Expr(value));
                names.iter().for_each(|n| visit(Part::Binding(&n.name)));
            }
            Stmt::Assign { target, value, .. } => {
                visit(Part::Expr(target));
                visit(Part::Expr(value));
            }
            Stmt::While { cond, body } => {
                visit(Part::Expr(cond));
                visit(Part::Block(body));
            }
            Stmt::For { name, iter, body } => {
                visit(Part::Expr(iter));
                visit(Part::Binding(&name.name));
                visit(Part::Block(body));
            }
            Stmt::ForTuple { names, iter, body } => {
                visit(Part::Expr(iter));
                names.iter().for_each(|n| visit(Part::Binding(&n.name)));
                visit(Part::Block(body));
            }
            Stmt::Expr(e) => visit(Part::Expr(e)),
        }
    }
}

impl Expr {
    /// Calls `visit` on each part of the expression, in source order: its
    /// sub-expressions, a function expression's parameters and body, a
    /// `match`'s patterns, guards and arms. A leaf has none.
    pub(crate) fn parts<'a>(&'a self, visit: &mut dyn FnMut(Part<'a>)) {
        match &self.kind {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Unit
            | ExprKind::Name(_)
            | ExprKind::Break
            | ExprKind::Continue
            | ExprKind::Error => {}
            ExprKind::Str(pieces) => {
                for piece in pieces {
                    if let Piece::Expr(e) | Piece::Formatted(e, _, _) = piece {
                        visit(Part::Expr(e));
                    }
                }
            }
            ExprKind::Binary(_, a, b)
            | ExprKind::Index(a, b)
            | ExprKind::Range(a, b)
            | ExprKind::Assign(a, _, b) => {
                visit(Part::Expr(a));
                visit(Part::Expr(b));
            }
            ExprKind::Unary(_, a)
            | ExprKind::Field(a, _)
            | ExprKind::BreakValue(a)
            | ExprKind::Spawn(a)
            | ExprKind::Return(Some(a)) => visit(Part::Expr(a)),
            ExprKind::Return(None) => {}
            ExprKind::List(items) | ExprKind::Tuple(items) | ExprKind::New(_, items) => {
                items.iter().for_each(|e| visit(Part::Expr(e)));
            }
            ExprKind::StructLit(_, fields) => fields.iter().for_each(|(_, e)| visit(Part::Expr(e))),
            ExprKind::If(c, then, els) => {
                visit(Part::Expr(c));
                visit(Part::Block(then));
                if let Some(e) = els {
                    visit(Part::Expr(e));
                }
            }
            ExprKind::Match(x, arms) => {
                visit(Part::Expr(x));
                for arm in arms {
                    visit(Part::Pattern(&arm.pattern));
                    if let Some(g) = &arm.guard {
                        visit(Part::Expr(g));
                    }
                    visit(Part::Expr(&arm.body));
                }
            }
            ExprKind::Block(b) | ExprKind::Loop(b) => visit(Part::Block(b)),
            ExprKind::Call(callee, args) => {
                visit(Part::Expr(callee));
                args.iter().for_each(|e| visit(Part::Expr(e)));
            }
            ExprKind::Func(f) => {
                f.params
                    .iter()
                    .for_each(|(p, _)| visit(Part::Binding(&p.name)));
                visit(Part::Block(&f.body));
            }
        }
    }

    /// Whether every call evaluating the expression can make is one
    /// `allowed` accepts (see [`Block::calls_only`]). A call's callee is
    /// walked as its other parts are, so a method's receiver is too.
    pub(crate) fn calls_only(&self, allowed: &dyn Fn(&Expr) -> bool) -> bool {
        match &self.kind {
            ExprKind::New(..) | ExprKind::Spawn(_) | ExprKind::Func(_) | ExprKind::Error => false,
            ExprKind::Call(callee, _) if !allowed(callee) => false,
            _ => {
                let mut all = true;
                self.parts(&mut |part| all = all && part_calls_only(part, allowed));
                all
            }
        }
    }
}

impl Pattern {
    /// Every name the pattern binds.
    fn binds(&self, names: &mut Vec<String>) {
        match &self.kind {
            PatternKind::Bind(n) => names.push(n.clone()),
            PatternKind::Variant(_, Some(parts))
            | PatternKind::Tuple(parts)
            | PatternKind::Or(parts) => parts.iter().for_each(|p| p.binds(names)),
            PatternKind::Wildcard
            | PatternKind::Int(..)
            | PatternKind::Str(_)
            | PatternKind::Bool(_)
            | PatternKind::Variant(_, None)
            | PatternKind::Error => {}
        }
    }
}

/// The kinds of expression.
#[derive(Debug, Clone)]
pub(crate) enum ExprKind {
    /// `42`; `None` if it did not fit 64 bits.
    Int(Option<u64>),
    /// `3.5`.
    Float(f64),
    /// `true`.
    Bool(bool),
    /// `"text {x}"`.
    Str(Vec<Piece>),
    /// `()`.
    Unit,
    /// `x`.
    Name(String),
    /// `a + b`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `-a`.
    Unary(UnOp, Box<Expr>),
    /// `f(args)`, `m.f(args)`, `x.method(args)`, `Enum.Variant(args)`.
    Call(Box<Expr>, Vec<Expr>),
    /// `a.name`.
    Field(Box<Expr>, Ident),
    /// `a[i]`.
    Index(Box<Expr>, Box<Expr>),
    /// `Point { x: 1 }`, `geo.Point { x: 1 }`.
    StructLit(Vec<Ident>, Vec<(Ident, Expr)>),
    /// `[1, 2]`.
    List(Vec<Expr>),
    /// `List[Int]()`, `Map[String, Int]()`, `Channel[Int]()`.
    New(TypeExpr, Vec<Expr>),
    /// `a..b` (only as the iterable of a `for`).
    Range(Box<Expr>, Box<Expr>),
    /// `if c { a } else { b }`.
    If(Box<Expr>, Block, Option<Box<Expr>>),
    /// `match x { arms }`.
    Match(Box<Expr>, Vec<Arm>),
    /// `{ ... }`.
    Block(Block),
    /// `return e`.
    Return(Option<Box<Expr>>),
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `spawn f(args)`.
    Spawn(Box<Expr>),
    /// `target op= value` as a `match` arm's body: `Some(v) => total += v`.
    Assign(Box<Expr>, Option<BinOp>, Box<Expr>),
    /// Something the parser could not read; already reported.
    Error,
    /// `loop { body }`: ends only by `break` or `return`.
    Loop(Block),
    /// `break value`, out of a `loop` with that value.
    BreakValue(Box<Expr>),
    /// `fn(params) -> T { body }`: a function value, closing over the
    /// variables it names.
    Func(Box<FnExpr>),
    /// `(a, b)`: a tuple of two or more values.
    Tuple(Vec<Expr>),
}

/// `pattern => body`.
#[derive(Debug, Clone)]
pub(crate) struct Arm {
    /// The pattern.
    pub pattern: Pattern,
    /// `if cond` after the pattern: the arm is taken only when it holds.
    pub guard: Option<Expr>,
    /// The value.
    pub body: Expr,
}

/// A pattern of a `match` arm.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    /// What it is.
    pub kind: PatternKind,
    /// Where.
    pub span: Span,
}

/// The kinds of pattern.
#[derive(Debug, Clone)]
pub(crate) enum PatternKind {
    /// `_`.
    Wildcard,
    /// `x`: binds the value (or names a unit variant `None`).
    Bind(String),
    /// `42`, `-1`.
    Int(Option<u64>, bool),
    /// `"text"`.
    Str(String),
    /// `true`.
    Bool(bool),
    /// `Token.Word(w)`, `Some(x)`, `Token.End`, `lexer.Token.End`: a path
    /// and the payload patterns (`None` when written without parentheses).
    Variant(Vec<Ident>, Option<Vec<Pattern>>),
    /// `(a, b)`: a tuple's parts (one part with a trailing comma, `(a,)`,
    /// is a tuple pattern too, which no tuple type matches).
    Tuple(Vec<Pattern>),
    /// A pattern the parser could not read; already reported.
    Error,
    /// `A | B`: any of the alternatives (at the top of an arm only).
    Or(Vec<Pattern>),
}
