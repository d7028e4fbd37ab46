//! The parser: tokens to a syntax tree, reporting every syntax error.
//!
//! Hand-written recursive descent with precedence climbing for binary
//! operators: the grammar is small, and a hand-written parser is what lets
//! errors be phrased for people ("expected `)` to close this call") and
//! recovery be precise. After an error the parser is in *panic mode*: it
//! reports nothing more until it has skipped to the end of the statement
//! (a newline or a `}` at the same nesting), then carries on, so one run
//! reports every independent mistake of a file and not the echoes of one.
//!
//! Nesting is bounded by [`MAX_DEPTH`]: every recursive rule, and every
//! step of a postfix chain (`a.b.c ...`, `f()()`), counts against it, so the
//! depth of any tree the parser returns is bounded and the passes that walk
//! it recursively cannot overflow the native stack. A chain of binary
//! operators (`a + b + c ...`) is the exception: it is long, not deep, to the
//! person who wrote it (a sum of many terms, a string built from many
//! pieces), so it is parsed by precedence climbing in a loop and the passes
//! walk its left spine in loops too. Only the recursive `Drop` of the tree
//! still follows the spine, so the operators along any path have a bound of
//! their own, [`MAX_CHAIN`], far above what people write.

use crate::ast::*;
use crate::diagnostics::Pending;
mod impls;

use crate::lexer::{StrPart, Tok, Token, lex};
use cove_ir::format::FormatSpec;

/// How deeply expressions, blocks, types and patterns may nest.
pub(crate) const MAX_DEPTH: usize = 200;

/// How many binary operators may lie on one path of the tree (`1 + 1 + ...`
/// with that many `+`, or chains nested inside one another, together).
pub(crate) const MAX_CHAIN: usize = 100_000;

/// How many `else if` branches one chain may have.
pub(crate) const MAX_ELSE_CHAIN: usize = 1000;

/// Parses a whole file; syntax errors go to `errors`.
pub(crate) fn parse_file(source: &str, errors: &mut Vec<Pending>) -> File {
    let tokens = lex(source, 0..source.len(), errors);
    let mut qualifiers = std::collections::HashSet::new();
    qualifier_heads(&tokens, &mut qualifiers);
    let mut p = Parser {
        source,
        toks: tokens,
        pos: 0,
        errors,
        panicking: false,
        depth: 0,
        chain: 0,
        too_deep: false,
        no_struct: false,
        else_chain: 0,
        impl_type: None,
        qualifiers,
        unclosed: false,
        nested_lets: Vec::new(),
        hidden: 0,
    };
    let mut file = p.file();
    if p.too_deep {
        // The rest of a file nested past the limit would only report echoes.
        return File::default();
    }
    file.qualifiers = p.qualifiers;
    file
}

/// Adds to `out` every name written before a `.` in `tokens`: the heads of
/// paths such as `lexer.Token`, which is all an unused import's warning
/// needs to know (a variable of the module's name counts too, so the
/// warning may be missed, never given wrongly).
fn qualifier_heads(tokens: &[Token], out: &mut std::collections::HashSet<String>) {
    for pair in tokens.windows(2) {
        if let (Tok::Ident(name), Tok::Dot) = (&pair[0].tok, &pair[1].tok) {
            out.insert(name.clone());
        }
    }
}

struct Parser<'s, 'e> {
    source: &'s str,
    toks: Vec<Token>,
    pos: usize,
    errors: &'e mut Vec<Pending>,
    /// Set by an error, cleared when the parser has resynchronised.
    panicking: bool,
    depth: usize,
    /// The binary operators on the path to the expression being parsed.
    chain: usize,
    /// Once nesting overflowed, nothing more of the file is reported: the
    /// rest would be echoes.
    too_deep: bool,
    /// The names written before a `.` (see [`qualifier_heads`]).
    qualifiers: std::collections::HashSet<String>,
    /// Whether a block or `match` met the end of the file unclosed, since
    /// the function being parsed began.
    unclosed: bool,
    /// The `let`s that take apart the inner tuples of a nested
    /// destructuring just parsed, innermost last.
    nested_lets: Vec<Stmt>,
    /// How many hidden names nested destructurings have made.
    hidden: usize,
    /// In the head of `if`, `while`, `for` and `match`, `Name {` opens the
    /// body, not a struct literal.
    no_struct: bool,
    /// The `else if` links of the chains being parsed.
    else_chain: usize,
    /// Inside `impl T { ... }`: `T`, the type of a `self` parameter.
    impl_type: Option<Ident>,
}

/// How many alternatives one arm's pattern may stand for once the
/// alternatives inside it are lifted to its top (a product: `(A | B, C | D)`
/// is four).
const MAX_ALTERNATIVES: usize = 1024;

/// Pushes onto `out` the patterns without alternatives inside that `p`
/// stands for, in order; false if they would be more than
/// `MAX_ALTERNATIVES`.
fn lift_alternatives(p: Pattern, out: &mut Vec<Pattern>) -> bool {
    let Pattern { kind, span } = p;
    let parts = |subs: Vec<Pattern>| -> Option<Vec<Vec<Pattern>>> {
        let mut rows: Vec<Vec<Pattern>> = vec![Vec::new()];
        for sub in subs {
            let mut options = Vec::new();
            if !lift_alternatives(sub, &mut options) {
                return None;
            }
            if rows.len() * options.len() > MAX_ALTERNATIVES {
                return None;
            }
            let mut next = Vec::with_capacity(rows.len() * options.len());
            for row in &rows {
                for o in &options {
                    let mut r = row.clone();
                    r.push(o.clone());
                    next.push(r);
                }
            }
            rows = next;
        }
        Some(rows)
    };
    let lifted: Vec<Pattern> = match kind {
        PatternKind::Or(alts) => {
            for a in alts {
                if !lift_alternatives(a, out) {
                    return false;
                }
            }
            return out.len() <= MAX_ALTERNATIVES;
        }
        PatternKind::Tuple(subs) => match parts(subs) {
            Some(rows) => rows
                .into_iter()
                .map(|r| Pattern {
                    kind: PatternKind::Tuple(r),
                    span: span.clone(),
                })
                .collect(),
            None => return false,
        },
        PatternKind::Variant(path, Some(subs)) => match parts(subs) {
            Some(rows) => rows
                .into_iter()
                .map(|r| Pattern {
                    kind: PatternKind::Variant(path.clone(), Some(r)),
                    span: span.clone(),
                })
                .collect(),
            None => return false,
        },
        kind => vec![Pattern { kind, span }],
    };
    out.extend(lifted);
    out.len() <= MAX_ALTERNATIVES
}

fn binop(tok: &Tok) -> Option<(BinOp, u8)> {
    Some(match tok {
        Tok::OrOr => (BinOp::Or, 1),
        Tok::AndAnd => (BinOp::And, 2),
        Tok::EqEq => (BinOp::Eq, 3),
        Tok::NotEq => (BinOp::Ne, 3),
        Tok::Lt => (BinOp::Lt, 3),
        Tok::Le => (BinOp::Le, 3),
        Tok::Gt => (BinOp::Gt, 3),
        Tok::Ge => (BinOp::Ge, 3),
        Tok::Pipe => (BinOp::BitOr, 4),
        Tok::Caret => (BinOp::BitXor, 5),
        Tok::Amp => (BinOp::BitAnd, 6),
        Tok::Shl => (BinOp::Shl, 7),
        Tok::Shr => (BinOp::Shr, 7),
        Tok::Plus => (BinOp::Add, 8),
        Tok::Minus => (BinOp::Sub, 8),
        Tok::Star => (BinOp::Mul, 9),
        Tok::Slash => (BinOp::Div, 9),
        Tok::Percent => (BinOp::Rem, 9),
        _ => return None,
    })
}

/// The assignment a token starts: `Some(None)` for `=`, `Some(Some(op))`
/// for a compound `op=` (every binary operator but the comparisons and
/// `&&`/`||` has one), `None` for any other token.
fn assign_op(tok: &Tok) -> Option<Option<BinOp>> {
    Some(match tok {
        Tok::Assign => None,
        Tok::PlusEq => Some(BinOp::Add),
        Tok::MinusEq => Some(BinOp::Sub),
        Tok::StarEq => Some(BinOp::Mul),
        Tok::SlashEq => Some(BinOp::Div),
        Tok::PercentEq => Some(BinOp::Rem),
        Tok::AmpEq => Some(BinOp::BitAnd),
        Tok::PipeEq => Some(BinOp::BitOr),
        Tok::CaretEq => Some(BinOp::BitXor),
        Tok::ShlEq => Some(BinOp::Shl),
        Tok::ShrEq => Some(BinOp::Shr),
        _ => return None,
    })
}

/// The offset of the `:` that starts a format spec in the code of an
/// interpolation: the first one outside brackets and string literals.
fn spec_colon(code: &str) -> Option<usize> {
    let bytes = code.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b':' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

fn is_capitalized(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
}

impl Parser<'_, '_> {
    // ---- token plumbing ---------------------------------------------------

    fn tok(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn span(&self) -> Span {
        self.toks[self.pos].span.clone()
    }

    fn nth(&self, ahead: usize) -> &Tok {
        let i = (self.pos + ahead).min(self.toks.len() - 1);
        &self.toks[i].tok
    }

    /// The `= value` of a declaration of `name`, or a located E0010 saying
    /// `why` a value is needed there (and `None`) when no `=` follows.
    fn initializer(&mut self, name: &str, why: &str) -> Option<Expr> {
        if !self.at(&Tok::Assign) {
            let d = Pending::new(
                "E0010",
                self.prev_end()..self.prev_end(),
                format!(
                    "expected `=` and a value for `{name}`, found {}",
                    self.tok().describe()
                ),
                why.to_string(),
            );
            self.error(d);
            return None;
        }
        self.bump();
        Some(self.expr())
    }

    fn prev_end(&self) -> usize {
        if self.pos == 0 {
            0
        } else {
            self.toks[self.pos - 1].span.end
        }
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn at(&self, tok: &Tok) -> bool {
        self.tok() == tok
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.at(tok) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Lets the `{` after a declaration's or statement's head start the
    /// next line (`fn main()` then `{`, as Rust and Swift allow): those
    /// positions need a block, so a newline there cannot end anything.
    fn brace_on_next_line(&mut self) {
        let mut ahead = 0;
        while matches!(self.nth(ahead), Tok::Newline) {
            ahead += 1;
        }
        if ahead > 0 && matches!(self.nth(ahead), Tok::LBrace) {
            self.skip_newlines();
        }
    }

    fn skip_newlines(&mut self) {
        while self.at(&Tok::Newline) {
            self.bump();
        }
    }

    fn error(&mut self, d: Pending) {
        if !self.panicking && !self.too_deep {
            self.errors.push(d);
        }
        self.panicking = true;
    }

    /// Reports that `what` was expected where the current token is.
    fn expected(&mut self, what: &str) {
        self.expected_help(what, None);
    }

    /// [`Self::expected`], with a help line that names the Cove way.
    fn expected_help(&mut self, what: &str, help: Option<&str>) {
        let found = self.tok().describe();
        let span = self.span();
        let (span, label) = if matches!(self.tok(), Tok::Newline | Tok::Eof) {
            let end = self.prev_end();
            (end..end, format!("expected {what} here"))
        } else {
            (span, format!("expected {what}"))
        };
        let mut d = Pending::new(
            "E0010",
            span,
            format!("expected {what}, found {found}"),
            label,
        );
        if let Some(h) = help {
            d = d.help(h);
        }
        self.error(d);
    }

    /// The `)` closing a function's parameters; a `=` there is a default
    /// value, which Cove has not.
    fn close_parameters(&mut self) -> bool {
        if self.at(&Tok::Assign) {
            self.expected_help(
                "`)` to close the parameters",
                Some("Cove has no default values for parameters: each call passes every argument"),
            );
            return false;
        }
        self.expect(Tok::RParen, "`)` to close the parameters")
    }

    fn expect(&mut self, tok: Tok, what: &str) -> bool {
        if self.eat(&tok) {
            true
        } else {
            self.expected(what);
            false
        }
    }

    fn ident(&mut self, what: &str) -> Option<Ident> {
        if let Tok::Ident(name) = self.tok() {
            let name = name.clone();
            let span = self.bump().span;
            Some(Ident { name, span })
        } else {
            self.expected(what);
            None
        }
    }

    /// Counts one level of nesting; false (after a diagnostic) if too deep.
    fn enter(&mut self) -> bool {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            if !self.too_deep {
                let span = self.span();
                self.errors.push(
                    Pending::new(
                        "E0013",
                        span,
                        format!("this is nested too deeply: more than {MAX_DEPTH} levels"),
                        "nesting limit reached here",
                    )
                    .help("split the expression with `let` bindings or helper functions"),
                );
                self.too_deep = true;
            }
            return false;
        }
        true
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Skips to the end of the current statement: a newline or a `}` that
    /// closes the enclosing block (left in place), stepping over nested
    /// brackets.
    fn sync_statement(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.tok() {
                Tok::Eof => break,
                Tok::Newline if depth == 0 => break,
                Tok::RBrace if depth == 0 => break,
                Tok::LBrace | Tok::LParen | Tok::LBrack => depth += 1,
                Tok::RBrace | Tok::RParen | Tok::RBrack => depth = depth.saturating_sub(1),
                _ => {}
            }
            self.bump();
        }
        self.panicking = false;
    }

    /// Skips to the start of the next item at the top level.
    fn sync_item(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.tok() {
                Tok::Eof => break,
                Tok::LBrace | Tok::LParen | Tok::LBrack => depth += 1,
                Tok::RBrace | Tok::RParen | Tok::RBrack => depth = depth.saturating_sub(1),
                Tok::Fn | Tok::Struct | Tok::Enum | Tok::Export | Tok::Import if depth == 0 => {
                    let line_start = self.pos == 0
                        || matches!(self.toks[self.pos - 1].tok, Tok::Newline | Tok::RBrace);
                    if line_start {
                        break;
                    }
                }
                Tok::Ident(w) if depth == 0 && w == "const" => {
                    let line_start = self.pos == 0
                        || matches!(self.toks[self.pos - 1].tok, Tok::Newline | Tok::RBrace);
                    if line_start {
                        break;
                    }
                }
                _ => {}
            }
            self.bump();
        }
        self.panicking = false;
    }

    // ---- items --------------------------------------------------------------

    fn file(&mut self) -> File {
        let mut file = File::default();
        let mut impls = Vec::new();
        loop {
            self.skip_newlines();
            if self.at(&Tok::Eof) {
                break;
            }
            let before = self.pos;
            match self.tok() {
                Tok::Import => {
                    self.bump();
                    if let Some(name) = self.ident("a module name after `import`") {
                        file.imports.push(name);
                    }
                    self.end_of_item();
                }
                Tok::Ident(word) if word == "impl" => {
                    let first = file.items.len();
                    let (ty, methods) = self.impl_block();
                    for m in methods {
                        file.items.push(Item::Fn(m));
                    }
                    if let Some(ty) = ty {
                        impls.push((ty, first..file.items.len()));
                    }
                    self.end_of_item();
                }
                Tok::Export | Tok::Fn | Tok::Struct | Tok::Enum => {
                    let exported = self.eat(&Tok::Export);
                    match self.tok() {
                        Tok::Fn => {
                            if let Some(f) = self.function(exported) {
                                file.items.push(Item::Fn(f));
                            }
                        }
                        Tok::Struct => {
                            if let Some(s) = self.struct_decl(exported) {
                                file.items.push(Item::Struct(s));
                            }
                        }
                        Tok::Enum => {
                            if let Some(e) = self.enum_decl(exported) {
                                file.items.push(Item::Enum(e));
                            }
                        }
                        Tok::Ident(w) if w == "const" => {
                            if let Some(c) = self.const_decl(exported) {
                                file.consts.push(c);
                            }
                        }
                        _ => self.expected("`fn`, `struct`, `enum` or `const` after `export`"),
                    }
                    self.end_of_item();
                }
                Tok::Ident(w) if w == "trait" && matches!(self.nth(1), Tok::Ident(_)) => {
                    let span = self.span();
                    self.error(
                        Pending::new("E0036", span, "Cove has no traits", "a trait declaration")
                            .help("write a function for each type, or an enum with a variant per type and a `match` over it"),
                    );
                }
                Tok::Let | Tok::Var
                    if matches!(self.nth(1), Tok::Ident(_))
                        && matches!(self.nth(2), Tok::Colon | Tok::Assign) =>
                {
                    // `let LIMIT: Int = 10` at the top level: said once, as
                    // the constant it was meant to be, and declared as one so
                    // that its uses are not unknown names too.
                    let kw = if self.at(&Tok::Let) { "let" } else { "var" };
                    let name = match self.nth(1) {
                        Tok::Ident(n) => n.clone(),
                        _ => String::new(),
                    };
                    let span = self.span();
                    self.errors.push(
                        Pending::new(
                            "E0012",
                            span,
                            format!("a `{kw}` at the top level of a module"),
                            "only declarations may appear at the top level",
                        )
                        .help(format!(
                            "a value for the whole module is a constant, `const {name}: Int = ...`; \
                             a variable goes inside a function"
                        )),
                    );
                    if matches!(self.nth(2), Tok::Colon) {
                        if let Some(c) = self.const_decl(false) {
                            file.consts.push(c);
                        }
                    } else {
                        self.bump();
                        if let Some(name) = self.ident("a name")
                            && let Some(value) = self.initializer(&name.name, "a value")
                        {
                            file.consts.push(ConstDecl {
                                exported: false,
                                ty: TypeExpr::Error(name.span.clone()),
                                name,
                                value,
                            });
                        }
                    }
                    self.end_of_item();
                }
                Tok::Ident(w) if w == "const" && matches!(self.nth(1), Tok::Ident(_)) => {
                    if let Some(c) = self.const_decl(false) {
                        file.consts.push(c);
                    }
                    self.end_of_item();
                }
                _ => {
                    let span = self.span();
                    let found = self.tok().describe();
                    self.error(
                        Pending::new(
                            "E0012",
                            span,
                            format!("expected `fn`, `struct`, `enum` or `import`, found {found}"),
                            "only declarations may appear at the top level",
                        )
                        .help("statements go inside a function, such as `fn main() { ... }`"),
                    );
                }
            }
            if self.panicking || self.pos == before {
                if self.pos == before {
                    self.bump();
                }
                self.sync_item();
            }
        }
        self.check_impl_types(&mut file, &impls);
        file
    }

    /// `const NAME: Type = value`, at `const` (a word, not a keyword, so
    /// v1 programs that name a variable `const` keep compiling).
    fn const_decl(&mut self, exported: bool) -> Option<ConstDecl> {
        self.bump();
        let name = self.ident("a constant name after `const`")?;
        // A missing type is reported, and the constant still declared (its
        // type taken from its value), so its uses are not unknown names.
        let ty = if self.eat(&Tok::Colon) {
            self.type_expr()
        } else if !self.at(&Tok::Assign) {
            // Neither a type nor a value follows the name (`const a b: Int
            // = 1`, `const A`): one error here, not a second one for the
            // missing `=` as well.
            let found = self.tok().describe();
            let help = if matches!(self.tok(), Tok::Ident(_)) {
                "a name is one word: join the words with `_`".to_string()
            } else {
                format!("write `const {}: Int = ...`", name.name)
            };
            let span = if matches!(self.tok(), Tok::Newline | Tok::Eof) {
                self.prev_end()..self.prev_end()
            } else {
                self.span()
            };
            let d = Pending::new(
                "E0010",
                span,
                format!(
                    "expected `:` and a type after the constant name `{}`, found {found}",
                    name.name
                ),
                "a constant is declared `const NAME: Type = value`",
            )
            .help(help);
            self.error(d);
            return None;
        } else {
            self.errors.push(
                Pending::new(
                    "E0700",
                    name.span.clone(),
                    format!("the constant `{}` needs a type", name.name),
                    "no `: Type` after the name",
                )
                .help(format!("write `const {}: Int = ...`", name.name)),
            );
            TypeExpr::Error(name.span.clone())
        };
        let value = self.initializer(&name.name, "a constant needs a value when it is declared")?;
        Some(ConstDecl {
            exported,
            name,
            ty,
            value,
        })
    }

    fn end_of_item(&mut self) {
        if self.panicking {
            return;
        }
        if !matches!(self.tok(), Tok::Newline | Tok::Eof) {
            self.expected("the end of the line");
        }
    }

    fn function(&mut self, exported: bool) -> Option<FnDecl> {
        self.bump();
        let name = self.ident("a function name after `fn`")?;
        let generic = self.at(&Tok::LBrack) && self.type_parameters();
        let mut params = Vec::new();
        // A header that does not parse still declares the function, marked
        // broken, so calls to it are not also reported as unknown names.
        let broken = |name: Ident, params: Vec<(Ident, TypeExpr)>, at: Span| FnDecl {
            exported,
            name,
            params,
            result: Some(TypeExpr::Error(at.clone())),
            body: Block {
                stmts: Vec::new(),
                span: at,
            },
            broken: true,
        };
        if !self.expect(Tok::LParen, "`(` to start the parameters") {
            return Some(broken(name, params, self.span()));
        }
        while !self.at(&Tok::RParen) {
            if self.at(&Tok::Amp) && self.impl_type.is_some() {
                // `&self`, `&mut self`: Rust's borrowed receiver.
                self.expected_help(
                    "a parameter name",
                    Some("a method's receiver is written `self`: it is already a reference"),
                );
                return Some(broken(name, params, self.span()));
            }
            let Some(pname) = self.ident("a parameter name") else {
                return Some(broken(name, params, self.span()));
            };
            if params.is_empty()
                && !self.at(&Tok::Colon)
                && let Some(ty) = self.self_type(&pname)
            {
                params.push((pname, ty));
                if !self.eat(&Tok::Comma) {
                    break;
                }
                continue;
            }
            if pname.name == "self" && self.at(&Tok::Colon) {
                // `self: Point`: a method's receiver has no written type.
                let colon = self.bump().span.start;
                let ty = self.type_expr();
                let span = colon..ty.span().end;
                match (params.is_empty(), self.self_type(&pname)) {
                    (true, Some(own)) => {
                        let impl_name = self.impl_type.as_ref().map(|t| t.name.clone());
                        let impl_name = impl_name.unwrap_or_default();
                        let d = Pending::new(
                            "E0019",
                            span,
                            "`self` is written without a type",
                            "a type for `self`",
                        )
                        .help(format!(
                            "write `self` alone: it is a `{impl_name}`, the type of the `impl`"
                        ));
                        // `self: Point` in `impl Point` goes on as `self`;
                        // any other type was meant for a body that is not
                        // checked against the real one.
                        let same = matches!(&ty, TypeExpr::Named { path, args, .. }
                            if args.is_empty() && path.len() == 1 && path[0].name == impl_name);
                        params.push((pname, own));
                        if !same {
                            self.error(d);
                            return Some(broken(name, params, self.span()));
                        }
                        self.errors.push(d);
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                        continue;
                    }
                    _ => {
                        self.error(
                            Pending::new(
                                "E0019",
                                pname.span.start..span.end,
                                "`self` is the first parameter of a method in an `impl` block, written without a type",
                                "not a method's receiver",
                            )
                            .help(format!(
                                "give the parameter another name: `fn {}(p: Type)`, or make it a method inside `impl Type {{ ... }}`",
                                name.name
                            )),
                        );
                        return Some(broken(name, params, self.span()));
                    }
                }
            }
            if pname.name == "self" && self.impl_type.is_none() && !self.at(&Tok::Colon) {
                self.error(
                    Pending::new(
                        "E0019",
                        pname.span.clone(),
                        "`self` is a parameter only of a method in an `impl` block",
                        "outside any `impl`",
                    )
                    .help(format!(
                        "declare it inside `impl Type {{ ... }}`, or give the parameter a name and a type: `fn {}(p: Type)`",
                        name.name
                    )),
                );
                return Some(broken(name, params, self.span()));
            }
            if pname.name == "self" && !self.at(&Tok::Colon) {
                // Inside an `impl`, but not first: `fn f(x: Int, self)`.
                self.error(
                    Pending::new(
                        "E0019",
                        pname.span.clone(),
                        "`self` is the first parameter of a method, and only it",
                        "not first",
                    )
                    .help(format!(
                        "write `fn {}(self, ...)`, with `self` once and first",
                        name.name
                    )),
                );
                return Some(broken(name, params, self.span()));
            }
            if !self.expect(Tok::Colon, "`:` and the parameter's type") {
                return Some(broken(name, params, self.span()));
            }
            let ty = self.type_expr();
            params.push((pname, ty));
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        if !self.close_parameters() {
            return Some(broken(name, params, self.span()));
        }
        let result = if self.eat(&Tok::Arrow) {
            Some(self.type_expr())
        } else {
            None
        };
        self.brace_on_next_line();
        if !self.at(&Tok::LBrace) {
            self.expected("`{` to start the function body");
            return Some(broken(name, params, self.span()));
        }
        let outer_unclosed = std::mem::replace(&mut self.unclosed, false);
        let body = self.block();
        let cut = self.unclosed;
        self.unclosed |= outer_unclosed;
        if cut {
            // A body the file ends inside: what it holds is not what was
            // meant, so it is declared but not checked (no type errors
            // echoing the missing `}`).
            return Some(broken(name, params, body.span));
        }
        if generic {
            // Already reported; its types name parameters that do not exist,
            // so it is declared but not checked, like a broken header.
            let params = params
                .into_iter()
                .map(|(p, t)| (p, TypeExpr::Error(t.span())))
                .collect();
            return Some(broken(name, params, body.span));
        }
        Some(FnDecl {
            exported,
            name,
            params,
            result,
            body,
            broken: false,
        })
    }

    /// `[T, U]` after a function's name: Cove has no user generics. Reports
    /// it and skips the brackets; true.
    fn type_parameters(&mut self) -> bool {
        let start = self.span().start;
        let mut depth = 0usize;
        loop {
            match self.tok() {
                Tok::LBrack => depth += 1,
                Tok::RBrack => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        break;
                    }
                }
                Tok::Eof | Tok::Newline | Tok::LBrace => break,
                _ => {}
            }
            self.bump();
        }
        self.errors.push(
            Pending::new(
                "E0035",
                start..self.prev_end(),
                "Cove has no user generics",
                "type parameters",
            )
            .help("write the function for the types it is used with; List, Map and Option are Cove's generic types"),
        );
        true
    }

    /// `|x| body` or `|| body`: Cove writes closures as `fn(x) { ... }`.
    /// Reports it once, reads past the parameters and the body, and gives
    /// an expression already in error, so nothing else is said about it.
    fn closure_syntax(&mut self) -> Expr {
        let start = self.span().start;
        if !self.eat(&Tok::OrOr) {
            self.bump();
            while !matches!(
                self.tok(),
                Tok::Pipe | Tok::Newline | Tok::Eof | Tok::RBrace | Tok::RParen | Tok::RBrack
            ) {
                self.bump();
            }
            self.eat(&Tok::Pipe);
        }
        let head = start..self.prev_end();
        self.errors.push(
            Pending::new(
                "E0033",
                head,
                "Cove writes closures as `fn(x) { ... }`",
                "closure parameters between bars",
            )
            .help("write `fn(x) { x * 2 }`; parameter types may be left out where the function type is known"),
        );
        if self.starts_expr() {
            let _ = self.expr();
        }
        self.error_expr(start..self.prev_end())
    }

    fn struct_decl(&mut self, exported: bool) -> Option<StructDecl> {
        self.bump();
        let name = self.ident("a struct name after `struct`")?;
        // A declaration that stops parsing part way keeps what it had, marked
        // broken, so its uses are not reported as unknown too.
        let mut fields = Vec::new();
        self.brace_on_next_line();
        let mut broken = !self.expect(Tok::LBrace, "`{` to start the fields");
        while !broken {
            self.skip_newlines();
            if self.eat(&Tok::RBrace) {
                break;
            }
            let Some(fname) = self.ident("a field name") else {
                broken = true;
                break;
            };
            if !self.expect(Tok::Colon, "`:` and the field's type") {
                broken = true;
                break;
            }
            let ty = self.type_expr();
            fields.push((fname, ty));
            if !self.eat(&Tok::Comma) && !self.at(&Tok::Newline) && !self.at(&Tok::RBrace) {
                self.expected("`,` or `}` after the field");
                broken = true;
            }
        }
        Some(StructDecl {
            exported,
            name,
            fields,
            broken,
        })
    }

    fn enum_decl(&mut self, exported: bool) -> Option<EnumDecl> {
        self.bump();
        let name = self.ident("an enum name after `enum`")?;
        let mut variants = Vec::new();
        self.brace_on_next_line();
        let mut broken = !self.expect(Tok::LBrace, "`{` to start the variants");
        while !broken {
            self.skip_newlines();
            if self.eat(&Tok::RBrace) {
                break;
            }
            let Some(vname) = self.ident("a variant name") else {
                broken = true;
                break;
            };
            let mut payload = Vec::new();
            if self.eat(&Tok::LParen) {
                while !self.at(&Tok::RParen) {
                    payload.push(self.type_expr());
                    if self.panicking || !self.eat(&Tok::Comma) {
                        break;
                    }
                }
                if self.panicking || !self.expect(Tok::RParen, "`)` to close the payload") {
                    broken = true;
                }
            }
            variants.push((vname, payload));
            if !broken
                && !self.eat(&Tok::Comma)
                && !self.at(&Tok::Newline)
                && !self.at(&Tok::RBrace)
            {
                self.expected("`,` or `}` after the variant");
                broken = true;
            }
        }
        Some(EnumDecl {
            exported,
            name,
            variants,
            broken,
        })
    }

    // ---- types ----------------------------------------------------------------

    fn type_expr(&mut self) -> TypeExpr {
        let start = self.span().start;
        if !self.enter() {
            return TypeExpr::Error(self.span());
        }
        let ty = self.type_inner(start);
        self.leave();
        ty
    }

    fn type_inner(&mut self, start: usize) -> TypeExpr {
        if self.at(&Tok::Fn) {
            return self.fn_type(start);
        }
        if self.at(&Tok::LParen) {
            self.bump();
            if self.eat(&Tok::RParen) {
                return TypeExpr::Unit(start..self.prev_end());
            }
            // `(A, B)`: a tuple type; `(A)` is `A`.
            let mut parts = Vec::new();
            let mut trailing = false;
            loop {
                parts.push(self.type_expr());
                if self.panicking || !self.eat(&Tok::Comma) {
                    break;
                }
                if self.at(&Tok::RParen) {
                    trailing = true;
                    break;
                }
            }
            if self.panicking || !self.expect(Tok::RParen, "`)` to close the tuple type") {
                return TypeExpr::Error(start..self.prev_end());
            }
            if parts.len() == 1 && trailing {
                // `(Int,)`: read as `Int`, as the value `(x,)` is `x`.
                self.errors
                    .push(one_element_tuple(start..self.prev_end(), "type"));
            }
            if parts.len() == 1 {
                return parts
                    .pop()
                    .unwrap_or(TypeExpr::Error(start..self.prev_end()));
            }
            return TypeExpr::Tuple(parts, start..self.prev_end());
        }
        let Tok::Ident(_) = self.tok() else {
            self.expected("a type");
            return TypeExpr::Error(self.span());
        };
        let mut path = Vec::new();
        if let Some(first) = self.ident("a type") {
            path.push(first);
        }
        if self.at(&Tok::Dot) {
            self.bump();
            match self.ident("a type name after `.`") {
                Some(second) => path.push(second),
                None => return TypeExpr::Error(start..self.prev_end()),
            }
        }
        let mut args = Vec::new();
        if self.eat(&Tok::LBrack) {
            while !self.at(&Tok::RBrack) {
                args.push(self.type_expr());
                if self.panicking {
                    return TypeExpr::Error(start..self.prev_end());
                }
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
            if !self.expect(Tok::RBrack, "`]` to close the type arguments") {
                return TypeExpr::Error(start..self.prev_end());
            }
        }
        TypeExpr::Named {
            path,
            args,
            span: start..self.prev_end(),
        }
    }

    /// `(a, b, _)`, the names a tuple is taken apart into, from its `(`.
    fn tuple_names(&mut self, mutable: bool) -> Option<Vec<Ident>> {
        self.bump();
        let mut names = Vec::new();
        while !self.at(&Tok::RParen) {
            if self.at(&Tok::LParen) {
                // `((a, b), c)`: the inner tuple is a hidden name, taken
                // apart by a `let` of its own that follows (see
                // `nested_lets`), so nesting costs the lowering nothing.
                let start = self.span().start;
                let inner = self.tuple_names(mutable)?;
                let hidden = Ident {
                    name: format!("__cove_part{}", self.hidden),
                    span: start..self.prev_end(),
                };
                self.hidden += 1;
                let value = Expr {
                    kind: ExprKind::Name(hidden.name.clone()),
                    span: hidden.span.clone(),
                };
                // Inner tuples are named first and taken apart last.
                self.nested_lets.insert(
                    0,
                    Stmt::LetTuple {
                        mutable,
                        names: inner,
                        value,
                    },
                );
                names.push(hidden);
            } else {
                names.push(self.ident("a variable name")?);
            }
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        if !self.expect(Tok::RParen, "`)` to close the names") {
            return None;
        }
        if names.len() < 2 {
            let span = self.prev_end()..self.prev_end();
            self.error(Pending::new(
                "E0018",
                span,
                "a tuple is taken apart into two or more names",
                "fewer than two names",
            ));
            // One name goes on as a plain variable, so its uses are not
            // reported too; none leaves the statement to be skipped.
            if names.is_empty() {
                return None;
            }
            self.panicking = false;
        }
        Some(names)
    }

    /// Reports a name that the tuple names `names` (and the inner tuples
    /// of `nested_lets`, taken apart after them) bind twice, once, at its
    /// second binding: `let (a, a) = t`, `for (k, (k, v)) in m`.
    fn bound_twice(&mut self, names: &[Ident], nested: &[Stmt]) {
        let inner = nested.iter().flat_map(|s| match s {
            Stmt::LetTuple { names, .. } => names.as_slice(),
            _ => &[],
        });
        let mut all: Vec<&Ident> = names
            .iter()
            .chain(inner)
            .filter(|n| n.name != "_" && !n.name.starts_with("__cove_part"))
            .collect();
        all.sort_by_key(|n| n.span.start);
        let twice = all
            .iter()
            .enumerate()
            .find(|(i, n)| all[..*i].iter().any(|m| m.name == n.name));
        if let Some((_, n)) = twice {
            self.errors.push(
                Pending::new(
                    "E0511",
                    n.span.clone(),
                    format!("the name `{}` is bound twice in one pattern", n.name),
                    "bound again here",
                )
                .help("give each part a name of its own, or `_` for a part to skip"),
            );
        }
    }

    /// `fn(T, U) -> R`, from its `fn`.
    fn fn_type(&mut self, start: usize) -> TypeExpr {
        self.bump();
        if !self.expect(
            Tok::LParen,
            "`(` and the parameter types of a function type",
        ) {
            return TypeExpr::Error(start..self.prev_end());
        }
        let mut params = Vec::new();
        while !self.at(&Tok::RParen) {
            params.push(self.type_expr());
            if self.panicking {
                return TypeExpr::Error(start..self.prev_end());
            }
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        if !self.expect(Tok::RParen, "`)` to close the parameter types") {
            return TypeExpr::Error(start..self.prev_end());
        }
        let result = if self.eat(&Tok::Arrow) {
            Some(Box::new(self.type_expr()))
        } else {
            None
        };
        TypeExpr::Fn {
            params,
            result,
            span: start..self.prev_end(),
        }
    }

    /// `fn(a: Int, b) -> R { body }`, from its `fn`: a function expression.
    fn fn_expr(&mut self) -> Expr {
        let start = self.span().start;
        self.bump();
        if matches!(self.tok(), Tok::Pipe | Tok::OrOr) {
            // `fn |x| { ... }`: Rust's bars after Cove's `fn`, said once.
            return self.closure_syntax();
        }
        if !self.expect(
            Tok::LParen,
            "`(` and the parameters of a function expression",
        ) {
            return self.error_expr(start..self.prev_end());
        }
        let mut params = Vec::new();
        while !self.at(&Tok::RParen) {
            let Some(name) = self.ident("a parameter name") else {
                return self.error_expr(start..self.prev_end());
            };
            let ty = if self.eat(&Tok::Colon) {
                Some(self.type_expr())
            } else {
                None
            };
            params.push((name, ty));
            if self.panicking || !self.eat(&Tok::Comma) {
                break;
            }
        }
        if !self.close_parameters() {
            return self.error_expr(start..self.prev_end());
        }
        let result = if self.eat(&Tok::Arrow) {
            Some(self.type_expr())
        } else {
            None
        };
        if self.at(&Tok::FatArrow) {
            // `fn(x) => x * 2`: an arrow function, said once as that; the
            // body after the arrow is read and dropped.
            let arrow = self.bump().span;
            self.errors.push(
                Pending::new(
                    "E0033",
                    arrow,
                    "Cove writes closures as `fn(x) { ... }`",
                    "`=>` before the body",
                )
                .help("put the body in braces: `fn(x) { x * 2 }`"),
            );
            if self.starts_expr() {
                let _ = self.expr();
            }
            self.panicking = false;
            return self.error_expr(start..self.prev_end());
        }
        if !self.at(&Tok::LBrace) {
            let help = (result.is_none() && matches!(self.tok(), Tok::Ident(_)))
                .then_some("a result type follows `->`: `fn(x: Int) -> Int { ... }`");
            self.expected_help("`{` to start the function's body", help);
            return self.error_expr(start..self.prev_end());
        }
        let body = self.block();
        Expr {
            kind: ExprKind::Func(Box::new(FnExpr {
                params,
                result,
                body,
            })),
            span: start..self.prev_end(),
        }
    }

    // ---- blocks and statements ----------------------------------------------

    /// `{ statements }`, from its `{`.
    fn block(&mut self) -> Block {
        let start = self.span().start;
        if !self.enter() {
            self.skip_block_tokens();
            return Block {
                stmts: Vec::new(),
                span: start..self.prev_end(),
            };
        }
        let saved = std::mem::replace(&mut self.no_struct, false);
        let block = self.block_inner(start);
        self.no_struct = saved;
        self.leave();
        block
    }

    /// Skips a `{ ... }` whole, after nesting overflowed.
    fn skip_block_tokens(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.tok() {
                Tok::Eof => break,
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.bump();
                        break;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn block_inner(&mut self, start: usize) -> Block {
        let mut stmts = Vec::new();
        if !self.expect(Tok::LBrace, "`{`") {
            return Block {
                stmts,
                span: start..self.prev_end(),
            };
        }
        loop {
            self.skip_newlines();
            if self.at(&Tok::RBrace) || self.at(&Tok::Eof) {
                break;
            }
            let before = self.pos;
            if let Some(stmt) = self.statement() {
                stmts.push(stmt);
            }
            // A nested `let ((a, b), c) = ...` goes on as a `let` of each
            // inner tuple, after the statement that named it.
            stmts.extend(std::mem::take(&mut self.nested_lets));
            if !self.panicking && !matches!(self.tok(), Tok::Newline | Tok::RBrace | Tok::Eof) {
                let span = self.span();
                let found = self.tok().describe();
                let d = Pending::new(
                    "E0017",
                    span,
                    format!("expected the end of the statement, found {found}"),
                    "a new statement starts on a new line",
                )
                .help("put each statement on its own line");
                // A keyword that starts a statement (`if c { return 1 }
                // return 2` on one line) is read as the next statement, as
                // if the line had ended, so what it declares or returns is
                // not lost to a second, misleading error; anything else is
                // skipped to the end of the line.
                let starts_statement = matches!(
                    self.tok(),
                    Tok::Let
                        | Tok::Var
                        | Tok::If
                        | Tok::While
                        | Tok::For
                        | Tok::Break
                        | Tok::Continue
                        | Tok::Return
                        | Tok::Match
                );
                if starts_statement {
                    if !self.too_deep {
                        self.errors.push(d);
                    }
                } else {
                    self.error(d);
                }
            }
            if self.panicking {
                self.sync_statement();
            }
            if self.pos == before {
                self.bump();
            }
        }
        if !self.at(&Tok::RBrace) {
            let span = start..start + 1;
            self.unclosed = true;
            // A declaration met inside this block since it opened (`fn
            // main` after a body missing its `}`) was the missing `}`
            // showing: that is this error, not one of its own.
            if !self.panicking && !self.too_deep {
                self.errors
                    .retain(|d| !(d.code == "E0016" && d.span.start > start));
            }
            self.error(
                Pending::new("E0010", span, "this `{` is never closed", "opened here")
                    .help("add a `}` where the block should end"),
            );
            return Block {
                stmts,
                span: start..self.prev_end(),
            };
        }
        self.bump();
        Block {
            stmts,
            span: start..self.prev_end(),
        }
    }

    fn statement(&mut self) -> Option<Stmt> {
        match self.tok() {
            Tok::Let | Tok::Var if matches!(self.nth(1), Tok::LParen) => {
                let mutable = matches!(self.bump().tok, Tok::Var);
                let names = self.tuple_names(mutable)?;
                let nested = std::mem::take(&mut self.nested_lets);
                self.bound_twice(&names, &nested);
                self.nested_lets = nested;
                if !self.expect(Tok::Assign, "`=` and the tuple to take apart") {
                    return None;
                }
                let value = self.expr();
                if names.len() == 1 {
                    let name = names.into_iter().next()?;
                    return Some(Stmt::Let {
                        mutable,
                        name,
                        ty: None,
                        value,
                    });
                }
                Some(Stmt::LetTuple {
                    mutable,
                    names,
                    value,
                })
            }
            Tok::Let | Tok::Var => {
                let mutable = matches!(self.bump().tok, Tok::Var);
                let name = self.ident("a variable name")?;
                let ty = if self.eat(&Tok::Colon) {
                    Some(self.type_expr())
                } else {
                    None
                };
                let value =
                    self.initializer(&name.name, "a variable needs a value when it is declared")?;
                Some(Stmt::Let {
                    mutable,
                    name,
                    ty,
                    value,
                })
            }
            Tok::While => {
                self.bump();
                let cond = self.head_expr();
                self.brace_on_next_line();
                if !self.at(&Tok::LBrace) {
                    self.expected("`{` to start the loop body");
                    return None;
                }
                let body = self.block();
                Some(Stmt::While { cond, body })
            }
            Tok::For if matches!(self.nth(1), Tok::LParen) => {
                self.bump();
                let names = self.tuple_names(false)?;
                let inner = std::mem::take(&mut self.nested_lets);
                self.bound_twice(&names, &inner);
                if !self.expect(Tok::In, "`in`") {
                    return None;
                }
                let saved = std::mem::replace(&mut self.no_struct, true);
                let iter = self.expr();
                self.no_struct = saved;
                self.brace_on_next_line();
                if !self.at(&Tok::LBrace) {
                    self.expected("`{` to start the loop body");
                    return None;
                }
                let mut body = self.block();
                // `for (k, (a, b)) in ...`: each turn takes the inner
                // tuples apart first thing in the body.
                body.stmts.splice(0..0, inner);
                if names.len() == 1 {
                    // `for (k) in m` is already reported (E0018): the loop
                    // goes on over nothing known, so that a map cannot be
                    // looped over by one name is not said as well.
                    let name = names.into_iter().next()?;
                    let iter = Expr {
                        span: iter.span,
                        kind: ExprKind::Error,
                    };
                    return Some(Stmt::For { name, iter, body });
                }
                Some(Stmt::ForTuple { names, iter, body })
            }
            Tok::For => {
                self.bump();
                let name = self.ident("a loop variable after `for`")?;
                if self.at(&Tok::Comma) {
                    // `for k, v in m`, as Go writes it.
                    self.expected_help(
                        "`in`",
                        Some("to take each pair apart, name its parts in parentheses: `for (k, v) in ...`"),
                    );
                    return None;
                }
                if !self.expect(Tok::In, "`in`") {
                    return None;
                }
                let saved = std::mem::replace(&mut self.no_struct, true);
                let iter = self.expr();
                self.no_struct = saved;
                self.brace_on_next_line();
                if !self.at(&Tok::LBrace) {
                    self.expected("`{` to start the loop body");
                    return None;
                }
                let body = self.block();
                Some(Stmt::For { name, iter, body })
            }
            Tok::Fn if matches!(self.nth(1), Tok::LParen) => Some(Stmt::Expr(self.expr())),
            Tok::Fn => {
                let span = self.span();
                self.error(
                    Pending::new(
                        "E0016",
                        span,
                        "functions cannot be declared inside a function",
                        "a nested `fn`",
                    )
                    .help("move this function to the top level of the file"),
                );
                None
            }
            // `const NAME ...` (a word, not a keyword): a constant is a
            // top-level item; inside a function, `let` is the Cove way.
            Tok::Ident(w) if w == "const" && matches!(self.nth(1), Tok::Ident(_)) => {
                let span = self.span();
                self.error(
                    Pending::new(
                        "E0016",
                        span,
                        "a `const` cannot be declared inside a function",
                        "constants belong at the top level",
                    )
                    .help("move it to the top level of the file, or write `let` for a local value"),
                );
                None
            }
            // `impl Type {` (a word, not a keyword): a top-level item too.
            Tok::Ident(w)
                if w == "impl"
                    && matches!(self.nth(1), Tok::Ident(_))
                    && matches!(self.nth(2), Tok::LBrace) =>
            {
                let span = self.span();
                self.error(
                    Pending::new(
                        "E0016",
                        span,
                        "an `impl` cannot appear inside a function",
                        "declarations belong at the top level",
                    )
                    .help("move it to the top level of the file, after its type"),
                );
                None
            }
            Tok::Struct | Tok::Enum | Tok::Import | Tok::Export => {
                let span = self.span();
                let found = self.tok().describe();
                self.error(
                    Pending::new(
                        "E0016",
                        span,
                        format!("{found} cannot appear inside a function"),
                        "declarations belong at the top level",
                    )
                    .help("move it to the top level of the file"),
                );
                None
            }
            _ => {
                let target = self.expr();
                let Some(op) = assign_op(self.tok()) else {
                    return Some(Stmt::Expr(target));
                };
                self.bump();
                let value = self.expr();
                let span = target.span.start..value.span.end;
                Some(Stmt::Assign {
                    target,
                    op,
                    value,
                    span,
                })
            }
        }
    }

    // ---- expressions ---------------------------------------------------------

    /// The expression after `if`, `while` or `match`: no struct literals.
    fn head_expr(&mut self) -> Expr {
        let saved = std::mem::replace(&mut self.no_struct, true);
        let e = self.expr();
        self.no_struct = saved;
        e
    }

    fn error_expr(&self, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Error,
            span,
        }
    }

    pub(crate) fn expr(&mut self) -> Expr {
        if !self.enter() {
            let span = self.span();
            self.bump();
            return self.error_expr(span);
        }
        let mut e = self.binary(1);
        if self.at(&Tok::DotDot) {
            self.bump();
            let end = self.binary(1);
            e = Expr {
                span: e.span.start..end.span.end,
                kind: ExprKind::Range(Box::new(e), Box::new(end)),
            };
        }
        self.leave();
        e
    }

    /// Precedence climbing: the operators of one level are taken in this
    /// loop, each right operand parsed at the next level up, so `a + b + c`
    /// nests to the left without recursing, and the recursion is bounded by
    /// the number of precedence levels. The steps count against
    /// [`MAX_CHAIN`], not the nesting limit.
    fn binary(&mut self, min: u8) -> Expr {
        let mut lhs = self.unary();
        let mut steps = 0;
        while let Some((op, prec)) = binop(self.tok()) {
            if prec < min {
                break;
            }
            let at = self.bump().span;
            if op == BinOp::Mul
                && matches!(self.tok(), Tok::Star | Tok::StarEq)
                && self.span().start == at.end
            {
                // `a ** b` and `n **= k`: a power operator, said once as
                // the method Cove has, then the rest read and dropped.
                let assign = self.at(&Tok::StarEq);
                let span = at.start..self.span().end;
                let sym = if assign { "**=" } else { "**" };
                let help = if assign {
                    "write `n = n.pow(k)` (an Int power; `x.pow(y)` takes a Float)"
                } else {
                    "write `a.pow(b)` (an Int power; `x.pow(y)` takes a Float)"
                };
                self.error(
                    Pending::new(
                        "E0041",
                        span,
                        format!("Cove has no `{sym}`"),
                        "not an operator",
                    )
                    .help(help),
                );
                self.bump();
                let rhs = self.binary(prec + 1);
                self.panicking = false;
                self.chain -= steps.min(self.chain);
                return Expr {
                    span: lhs.span.start..rhs.span.end,
                    kind: ExprKind::Error,
                };
            }
            if matches!(op, BinOp::And | BinOp::Or)
                && self.at(&Tok::Assign)
                && self.span().start == at.end
            {
                // `b &&= c`: one diagnostic that names the Cove way, then
                // the statement's value is skipped as already reported.
                let span = at.start..self.span().end;
                let sym = if op == BinOp::And { "&&" } else { "||" };
                self.error(
                    Pending::new(
                        "E0037",
                        span.clone(),
                        format!("Cove has no `{sym}=`"),
                        "not an assignment operator",
                    )
                    .help(format!("write `x = x {sym} y`")),
                );
                self.bump();
                let rhs = self.expr();
                self.panicking = false;
                self.chain -= steps.min(self.chain);
                return Expr {
                    span: lhs.span.start..rhs.span.end,
                    kind: ExprKind::Error,
                };
            }
            steps += 1;
            if !self.extend_chain() {
                break;
            }
            let rhs = self.binary(prec + 1);
            let span = lhs.span.start..rhs.span.end;
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
        }
        self.chain -= steps.min(self.chain);
        lhs
    }

    /// Counts one more operator on the current path; false (after a
    /// diagnostic) past [`MAX_CHAIN`].
    fn extend_chain(&mut self) -> bool {
        self.chain += 1;
        if self.chain <= MAX_CHAIN {
            return true;
        }
        if !self.too_deep {
            let span = self.span();
            self.errors.push(
                Pending::new(
                    "E0013",
                    span,
                    format!("this expression has more than {MAX_CHAIN} operators in a chain"),
                    "chain limit reached here",
                )
                .help("split the expression with `let` bindings or helper functions"),
            );
            self.too_deep = true;
        }
        false
    }

    fn unary(&mut self) -> Expr {
        let op = match self.tok() {
            Tok::Minus => UnOp::Neg,
            Tok::Bang => UnOp::Not,
            _ => return self.postfix(),
        };
        let start = self.bump().span.start;
        if !self.enter() {
            return self.error_expr(start..self.prev_end());
        }
        let operand = self.unary();
        self.leave();
        Expr {
            span: start..operand.span.end,
            kind: ExprKind::Unary(op, Box::new(operand)),
        }
    }

    fn postfix(&mut self) -> Expr {
        let mut e = self.primary();
        let mut chain = 0;
        loop {
            let start = e.span.start;
            match self.tok() {
                Tok::Dot if matches!(self.nth(1), Tok::Int(_) | Tok::Float(_)) => {
                    // `t.0`, and `t.0.1`, which lexes as `t` `.` `0.1`.
                    self.bump();
                    let span = self.span();
                    self.bump();
                    let text = &self.source[span.clone()];
                    for (i, part) in text.split('.').enumerate() {
                        let at = span.start
                            + text.split('.').take(i).map(|p| p.len() + 1).sum::<usize>();
                        let name = Ident {
                            name: part.to_string(),
                            span: at..at + part.len(),
                        };
                        e = Expr {
                            span: start..name.span.end,
                            kind: ExprKind::Field(Box::new(e), name),
                        };
                    }
                }
                Tok::Dot => {
                    self.bump();
                    let Some(name) = self.ident("a field or method name after `.`") else {
                        // What follows is not read as more of `e` (`t.-1` is
                        // not `t - 1`), so it gets no type errors of its own.
                        e = Expr {
                            span: start..self.prev_end(),
                            kind: ExprKind::Error,
                        };
                        break;
                    };
                    let qualified_struct = !self.no_struct
                        && self.at(&Tok::LBrace)
                        && is_capitalized(&name.name)
                        && matches!(e.kind, ExprKind::Name(_));
                    if qualified_struct {
                        let ExprKind::Name(module) = &e.kind else {
                            break;
                        };
                        let path = vec![
                            Ident {
                                name: module.clone(),
                                span: e.span.clone(),
                            },
                            name,
                        ];
                        e = self.struct_literal(path, start);
                        continue;
                    }
                    e = Expr {
                        span: start..name.span.end,
                        kind: ExprKind::Field(Box::new(e), name),
                    };
                }
                Tok::LParen => {
                    let args = self.args(Tok::RParen, "`)` to close the call");
                    e = Expr {
                        span: start..self.prev_end(),
                        kind: ExprKind::Call(Box::new(e), args),
                    };
                }
                Tok::LBrack => {
                    self.bump();
                    let saved = std::mem::replace(&mut self.no_struct, false);
                    let index = self.expr();
                    self.no_struct = saved;
                    self.expect(Tok::RBrack, "`]` to close the index");
                    e = Expr {
                        span: start..self.prev_end(),
                        kind: ExprKind::Index(Box::new(e), Box::new(index)),
                    };
                }
                _ => break,
            }
            chain += 1;
            if !self.enter() {
                break;
            }
        }
        self.depth -= chain.min(self.depth);
        e
    }

    /// `(a, b, c)` or `[a, b, c]` from the opening bracket.
    fn args(&mut self, close: Tok, what: &str) -> Vec<Expr> {
        self.bump();
        let saved = std::mem::replace(&mut self.no_struct, false);
        let mut args = Vec::new();
        loop {
            self.skip_newlines();
            if self.at(&close) || self.at(&Tok::Eof) {
                break;
            }
            args.push(self.expr());
            if self.panicking {
                break;
            }
            self.skip_newlines();
            if !self.eat(&Tok::Comma) {
                break;
            }
        }
        self.skip_newlines();
        self.no_struct = saved;
        if !self.panicking {
            self.expect(close, what);
        }
        args
    }

    /// `Name { field: value, ... }` from its `{`.
    ///
    /// Fields are separated by a comma or a line end, exactly as in a struct
    /// declaration, and a trailing comma is allowed. A literal that does not
    /// parse is reported once, at the mistake, and becomes an error
    /// expression (so no "missing field" echoes follow); the parser then
    /// skips to the literal's own `}` when one can be found, so the rest of
    /// the function is not read as if the literal had closed it. A line that
    /// cannot be a field (`println(p)`, `let x = ...`) ends a literal whose
    /// `}` was forgotten, rather than being read as one more field.
    fn struct_literal(&mut self, path: Vec<Ident>, start: usize) -> Expr {
        self.bump();
        let saved = std::mem::replace(&mut self.no_struct, false);
        let mut fields = Vec::new();
        let mut well_formed = true;
        loop {
            if self.at(&Tok::Newline) && !self.field_line_follows(self.pos) {
                // `Name {` and then a line that cannot be a field.
                self.expected("`}` to close the struct literal");
                well_formed = false;
                break;
            }
            self.skip_newlines();
            if self.at(&Tok::RBrace) || self.at(&Tok::Eof) {
                break;
            }
            let Some(name) = self.ident("a field name") else {
                well_formed = false;
                break;
            };
            let value = if self.eat(&Tok::Colon) {
                self.expr()
            } else {
                // `Point { x, y }` is shorthand for `Point { x: x, y: y }`.
                Expr {
                    kind: ExprKind::Name(name.name.clone()),
                    span: name.span.clone(),
                }
            };
            fields.push((name, value));
            if self.panicking {
                well_formed = false;
                break;
            }
            if self.at(&Tok::Newline) {
                // The line end separates this field from the next (a comma
                // may still start the next line, as it always could)...
                if self.field_line_follows(self.pos) {
                    self.skip_newlines();
                    self.eat(&Tok::Comma);
                    continue;
                }
                // ...unless the next line cannot be a field: the `}` is
                // missing, and that line is the next statement.
                self.expected("`}` to close the struct literal");
                well_formed = false;
                break;
            }
            if !self.eat(&Tok::Comma) && !self.at(&Tok::RBrace) {
                self.expected("`,`, a new line or `}` after the field");
                well_formed = false;
                break;
            }
        }
        self.no_struct = saved;
        if well_formed && self.expect(Tok::RBrace, "`}` to close the struct literal") {
            return Expr {
                span: start..self.prev_end(),
                kind: ExprKind::StructLit(path, fields),
            };
        }
        let span = start..self.prev_end();
        match self.struct_literal_close() {
            Ok(close) => {
                while self.pos < close {
                    self.bump();
                }
                self.bump();
                // Resynchronised at the literal's end: the rest of the
                // statement is read, and reported, as usual.
                self.panicking = false;
                self.error_expr(start..self.prev_end())
            }
            Err(line_end) => {
                // Unclosed: stop at the end of its last line, so what follows
                // is read as the next statement.
                while self.pos < line_end {
                    self.bump();
                }
                self.error_expr(span)
            }
        }
    }

    /// Whether the line after the newline at `at` could continue a struct
    /// literal: it closes it (`}`), starts with a separating `,`, or starts
    /// like a field (`name:`, `name,`, a lone `name`).
    fn field_line_follows(&self, at: usize) -> bool {
        let tok = |i: usize| self.toks.get(i).map_or(&Tok::Eof, |t| &t.tok);
        let mut next = at;
        while matches!(tok(next), Tok::Newline) {
            next += 1;
        }
        match tok(next) {
            Tok::RBrace | Tok::Comma => true,
            Tok::Ident(_) => matches!(
                tok(next + 1),
                Tok::Colon | Tok::Comma | Tok::Newline | Tok::RBrace
            ),
            _ => false,
        }
    }

    /// From inside a malformed struct literal: `Ok` with the position of the
    /// `}` that closes it, or `Err` with the position of the newline that
    /// ends its last line (or of the end of the file) when it looks unclosed.
    ///
    /// Brackets opened inside are stepped over; a line at the literal's own
    /// level that cannot be a field means the `}` was forgotten, and taking
    /// a later `}` would swallow the statements between as fields.
    fn struct_literal_close(&self) -> Result<usize, usize> {
        let mut depth = 0usize;
        let mut i = self.pos;
        loop {
            let Some(token) = self.toks.get(i) else {
                return Err(self.toks.len().saturating_sub(1));
            };
            match token.tok {
                Tok::Eof => return Err(i),
                Tok::RBrace if depth == 0 => return Ok(i),
                Tok::LBrace | Tok::LParen | Tok::LBrack => depth += 1,
                Tok::RBrace | Tok::RParen | Tok::RBrack => depth = depth.saturating_sub(1),
                Tok::Newline if depth == 0 && !self.field_line_follows(i) => return Err(i),
                _ => {}
            }
            i += 1;
        }
    }

    fn primary(&mut self) -> Expr {
        let span = self.span();
        let start = span.start;
        match self.tok().clone() {
            Tok::Int(v) => {
                self.bump();
                Expr {
                    kind: ExprKind::Int(v),
                    span,
                }
            }
            Tok::Float(v) => {
                self.bump();
                Expr {
                    kind: ExprKind::Float(v),
                    span,
                }
            }
            Tok::True | Tok::False => {
                let b = matches!(self.bump().tok, Tok::True);
                Expr {
                    kind: ExprKind::Bool(b),
                    span,
                }
            }
            Tok::Str(parts) => {
                self.bump();
                let pieces = self.interpolation(parts);
                Expr {
                    kind: ExprKind::Str(pieces),
                    span,
                }
            }
            // `loop i < n {`: a condition after `loop`, which an identifier
            // could never be followed by. Said once, with the loop read and
            // dropped, so nothing inside it is reported as well.
            Tok::Ident(w)
                if w == "loop"
                    && matches!(
                        self.nth(1),
                        Tok::Ident(_) | Tok::Int(_) | Tok::True | Tok::False | Tok::Bang
                    ) =>
            {
                self.bump();
                let cond = self.head_expr();
                self.errors.push(
                    Pending::new(
                        "E0040",
                        start..cond.span.end,
                        "`loop` takes no condition",
                        "a condition after `loop`",
                    )
                    .help(
                        "write `while condition { ... }`, or `loop { ... }` with a `break` inside",
                    ),
                );
                self.brace_on_next_line();
                if self.at(&Tok::LBrace) {
                    let _ = self.block();
                }
                self.panicking = false;
                self.error_expr(start..self.prev_end())
            }
            Tok::Ident(name) if !(name == "loop" && self.nth(1) == &Tok::LBrace) => {
                self.bump();
                if matches!(name.as_str(), "List" | "Map" | "Channel") && self.at(&Tok::LBrack) {
                    self.pos -= 1;
                    let ty = self.type_expr();
                    if !self.at(&Tok::LParen) {
                        self.expected(&format!("`()` to make a new {name}"));
                        return self.error_expr(start..self.prev_end());
                    }
                    let args = self.args(Tok::RParen, "`)`");
                    return Expr {
                        span: start..self.prev_end(),
                        kind: ExprKind::New(ty, args),
                    };
                }
                if !self.no_struct && self.at(&Tok::LBrace) && is_capitalized(&name) {
                    let path = vec![Ident {
                        name,
                        span: span.clone(),
                    }];
                    return self.struct_literal(path, start);
                }
                Expr {
                    kind: ExprKind::Name(name),
                    span,
                }
            }
            Tok::LParen => {
                self.bump();
                if self.eat(&Tok::RParen) {
                    return Expr {
                        kind: ExprKind::Unit,
                        span: start..self.prev_end(),
                    };
                }
                let saved = std::mem::replace(&mut self.no_struct, false);
                let mut e = self.expr();
                if self.at(&Tok::Comma) {
                    // `(a, b)`: a tuple.
                    let mut items = vec![e];
                    while self.eat(&Tok::Comma) {
                        self.skip_newlines();
                        if self.at(&Tok::RParen) || self.panicking {
                            break;
                        }
                        items.push(self.expr());
                    }
                    self.no_struct = saved;
                    self.expect(Tok::RParen, "`)` to close the tuple");
                    if items.len() == 1 && !self.panicking {
                        // `(x,)`: Rust's one-element tuple, which no Cove
                        // type can name; read as `x`.
                        let span = start..self.prev_end();
                        self.errors.push(one_element_tuple(span.clone(), "value"));
                        let mut e = items.pop().expect("one item");
                        e.span = span;
                        return e;
                    }
                    return Expr {
                        kind: ExprKind::Tuple(items),
                        span: start..self.prev_end(),
                    };
                }
                self.no_struct = saved;
                self.expect(Tok::RParen, "`)` to close the parenthesis");
                e.span = start..self.prev_end();
                e
            }
            Tok::LBrack => {
                let items = self.args(Tok::RBrack, "`]` to close the list");
                Expr {
                    kind: ExprKind::List(items),
                    span: start..self.prev_end(),
                }
            }
            Tok::LBrace => {
                let block = self.block();
                Expr {
                    span: block.span.clone(),
                    kind: ExprKind::Block(block),
                }
            }
            Tok::If => self.if_expr(),
            Tok::Match => self.match_expr(),
            Tok::Pipe | Tok::OrOr => self.closure_syntax(),
            Tok::Fn => self.fn_expr(),
            Tok::Return => {
                self.bump();
                let value = if self.starts_expr() {
                    Some(Box::new(self.expr()))
                } else {
                    None
                };
                Expr {
                    kind: ExprKind::Return(value),
                    span: start..self.prev_end(),
                }
            }
            Tok::Break => {
                self.bump();
                if self.starts_expr() && !self.at(&Tok::FatArrow) {
                    let value = self.expr();
                    return Expr {
                        span: start..value.span.end,
                        kind: ExprKind::BreakValue(Box::new(value)),
                    };
                }
                Expr {
                    kind: ExprKind::Break,
                    span,
                }
            }
            // `loop {`: a word, not a keyword, so a v1 variable named
            // `loop` still compiles.
            Tok::Ident(w) if w == "loop" && self.nth(1) == &Tok::LBrace => {
                self.bump();
                let body = self.block();
                Expr {
                    span: start..body.span.end,
                    kind: ExprKind::Loop(body),
                }
            }
            Tok::Continue => {
                self.bump();
                // `continue 5`, written as `break 5` is: the value is read
                // and dropped, so what it names is still checked.
                if self.starts_expr() && !self.at(&Tok::FatArrow) {
                    let value = self.expr();
                    self.error(
                        Pending::new(
                            "E0043",
                            span.start..value.span.end,
                            "`continue` takes no value",
                            "a value after `continue`",
                        )
                        .help("`continue` starts the loop's next turn; `break value` leaves a `loop` with a value"),
                    );
                }
                Expr {
                    kind: ExprKind::Continue,
                    span,
                }
            }
            Tok::Spawn => {
                self.bump();
                let call = self.postfix();
                Expr {
                    span: start..call.span.end,
                    kind: ExprKind::Spawn(Box::new(call)),
                }
            }
            // `x =+ 2`, a `+=` with its two characters swapped, or a
            // unary plus, which Cove has not.
            Tok::Plus => {
                let swapped = self.pos > 0
                    && self.toks[self.pos - 1].tok == Tok::Assign
                    && self.toks[self.pos - 1].span.end == span.start;
                let help = if swapped {
                    "`=+` is `=` then `+`: to add to a variable, write `x += 2`"
                } else {
                    "Cove has no unary `+`: write the number alone"
                };
                self.expected_help("an expression", Some(help));
                self.error_expr(span)
            }
            _ => {
                self.expected("an expression");
                self.error_expr(span)
            }
        }
    }

    fn starts_expr(&self) -> bool {
        !matches!(
            self.tok(),
            Tok::Newline | Tok::RBrace | Tok::RParen | Tok::RBrack | Tok::Comma | Tok::Eof
        )
    }

    fn interpolation(&mut self, parts: Vec<StrPart>) -> Vec<Piece> {
        let mut pieces = Vec::new();
        for part in parts {
            match part {
                StrPart::Text(t) => pieces.push(Piece::Text(t)),
                StrPart::Code(range) => {
                    // `{x:>8.3}`: the spec after a top-level `:` is not code.
                    let (range, spec) = match spec_colon(&self.source[range.clone()]) {
                        Some(at) => {
                            let colon = range.start + at;
                            (range.start..colon, Some(colon + 1..range.end))
                        }
                        None => (range, None),
                    };
                    let tokens = lex(self.source, range.clone(), self.errors);
                    qualifier_heads(&tokens, &mut self.qualifiers);
                    let saved_toks = std::mem::replace(&mut self.toks, tokens);
                    let saved_pos = std::mem::replace(&mut self.pos, 0);
                    let saved_struct = std::mem::replace(&mut self.no_struct, false);
                    let e = self.expr();
                    if !self.at(&Tok::Eof) && !self.panicking {
                        let span = self.span();
                        let found = self.tok().describe();
                        self.error(Pending::new(
                            "E0010",
                            span,
                            format!("expected `}}` to end the interpolation, found {found}"),
                            "one expression goes between the braces",
                        ));
                    }
                    self.toks = saved_toks;
                    self.pos = saved_pos;
                    self.no_struct = saved_struct;
                    // An error inside the string must not swallow what follows it.
                    self.panicking = false;
                    match spec {
                        None => pieces.push(Piece::Expr(e)),
                        Some(at) => match FormatSpec::parse(&self.source[at.clone()]) {
                            Ok(s) => pieces.push(Piece::Formatted(e, s, at)),
                            Err(why) => {
                                let shown = if at.is_empty() {
                                    at.start - 1..at.start
                                } else {
                                    at.clone()
                                };
                                self.errors.push(
                                    Pending::new(
                                        "E0800",
                                        shown,
                                        format!("this format spec is not valid: {why}"),
                                        "the spec after `:`",
                                    )
                                    .help(spec_help(&self.source[at.clone()])),
                                );
                                pieces.push(Piece::Expr(e));
                            }
                        },
                    }
                }
            }
        }
        pieces
    }

    fn if_expr(&mut self) -> Expr {
        let start = self.bump().span.start;
        let cond = self.head_expr();
        self.brace_on_next_line();
        if !self.at(&Tok::LBrace) {
            self.expected("`{` after the condition of `if`");
            return self.error_expr(start..self.prev_end());
        }
        let then = self.block();
        // `else` may start the next line: `}\nelse {`.
        let mut ahead = 0;
        while matches!(self.nth(ahead), Tok::Newline) {
            ahead += 1;
        }
        let els = if matches!(self.nth(ahead), Tok::Else) {
            self.skip_newlines();
            self.bump();
            self.brace_on_next_line();
            if self.at(&Tok::If) {
                // An `else if` chain is long rather than deep to a reader (a
                // dispatch on many cases), so it has a limit of its own.
                self.else_chain += 1;
                if self.else_chain > MAX_ELSE_CHAIN {
                    if !self.too_deep {
                        let span = self.span();
                        self.errors.push(
                            Pending::new(
                                "E0013",
                                span,
                                format!(
                                    "this `else if` chain is longer than {MAX_ELSE_CHAIN} branches"
                                ),
                                "chain limit reached here",
                            )
                            .help("dispatch with a `match`, or split the chain into functions"),
                        );
                        self.too_deep = true;
                    }
                    self.else_chain -= 1;
                    return self.error_expr(start..self.prev_end());
                }
                let e = self.if_expr();
                self.else_chain -= 1;
                Some(Box::new(e))
            } else if self.at(&Tok::LBrace) {
                let block = self.block();
                Some(Box::new(Expr {
                    span: block.span.clone(),
                    kind: ExprKind::Block(block),
                }))
            } else {
                self.expected("`{` or `if` after `else`");
                None
            }
        } else {
            None
        };
        Expr {
            kind: ExprKind::If(Box::new(cond), then, els),
            span: start..self.prev_end(),
        }
    }

    fn match_expr(&mut self) -> Expr {
        let start = self.bump().span.start;
        let scrutinee = self.head_expr();
        self.brace_on_next_line();
        if !self.expect(Tok::LBrace, "`{` to start the arms of `match`") {
            return self.error_expr(start..self.prev_end());
        }
        let saved = std::mem::replace(&mut self.no_struct, false);
        let mut arms = Vec::new();
        let mut cut_short = false;
        loop {
            let line_end = self.pos;
            self.skip_newlines();
            if self.at(&Tok::RBrace) || self.at(&Tok::Eof) {
                break;
            }
            if !arms.is_empty() && self.starts_a_statement_not_a_pattern() {
                // `println(s)` or `let` where an arm should start: the
                // `match` is missing its `}`, and this is the code after
                // it, left to the enclosing block (whose `}` the `match`
                // would otherwise take, and the file end without one).
                // Reported without the panic that skips to the next
                // statement, so that this one is read as it stands.
                cut_short = true;
                if !self.panicking && !self.too_deep {
                    self.errors.push(Pending::new(
                        "E0010",
                        start..start + 5,
                        "this `match` is never closed",
                        "add a `}` after its last arm",
                    ));
                }
                // The newline before it ends the statement the `match` is
                // in; after a `,` the lexer made none, so one is put back.
                if self.pos == line_end {
                    let at = self.prev_end();
                    self.toks.insert(
                        self.pos,
                        Token {
                            tok: Tok::Newline,
                            span: at..at,
                        },
                    );
                }
                self.pos = line_end;
                break;
            }
            let before = self.pos;
            let pattern = self.arm_pattern();
            let guard = if !self.panicking && self.eat(&Tok::If) {
                Some(self.head_expr())
            } else {
                None
            };
            if !self.panicking && !self.eat(&Tok::FatArrow) {
                // The Cove way for what other languages write here.
                let help = match self.tok() {
                    Tok::Ident(w) if w == "when" => {
                        Some("a guard is written with `if`: `n if n > 1 => ...`")
                    }
                    Tok::OrOr => Some("alternatives are separated by one `|`: `1 | 2 => ...`"),
                    Tok::Colon => Some("an arm is written `pattern => value`"),
                    Tok::DotDot => Some(
                        "Cove has no range patterns: bind the value and test it in a guard, `n if n >= 1 && n < 5 => ...`",
                    ),
                    Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge | Tok::EqEq | Tok::NotEq => Some(
                        "a pattern is not a condition: bind the value and test it in a guard, `n if n > 2 => ...`",
                    ),
                    _ => None,
                };
                self.expected_help("`=>` after the pattern", help);
            }
            if !self.panicking {
                let body = self.arm_body();
                arms.push(Arm {
                    pattern,
                    guard,
                    body,
                });
            }
            if !self.panicking
                && !self.eat(&Tok::Comma)
                && !matches!(self.tok(), Tok::Newline | Tok::RBrace)
            {
                self.expected("`,` or a new line after the arm");
            }
            if self.panicking {
                // The arm is unreadable: keep a placeholder that matches
                // anything, so the `match` is not also called non-exhaustive.
                arms.push(Arm {
                    pattern: Pattern {
                        kind: PatternKind::Error,
                        span: self.span(),
                    },
                    guard: None,
                    body: self.error_expr(self.span()),
                });
                self.sync_statement();
            }
            if self.pos == before {
                self.bump();
            }
        }
        self.no_struct = saved;
        if cut_short {
        } else if !self.at(&Tok::RBrace) {
            self.unclosed = true;
            self.error(Pending::new(
                "E0010",
                start..start + 5,
                "this `match` is never closed",
                "add a `}` after its last arm",
            ));
        } else {
            self.bump();
        }
        Expr {
            kind: ExprKind::Match(Box::new(scrutinee), arms),
            span: start..self.prev_end(),
        }
    }

    /// Whether the tokens ahead start a statement that no pattern can
    /// start: a `let`, `var`, `return`, `while`, `for`, a call of a
    /// lowercase name (`println(x)`; a variant pattern's name is a type's
    /// or `Some`) or an assignment (`total += 1`).
    fn starts_a_statement_not_a_pattern(&self) -> bool {
        match self.tok() {
            Tok::Let | Tok::Var | Tok::Return | Tok::While | Tok::For => true,
            Tok::Ident(w) => {
                (w.starts_with(|c: char| c.is_ascii_lowercase())
                    && matches!(self.nth(1), Tok::LParen))
                    || assign_op(self.nth(1)).is_some()
            }
            _ => false,
        }
    }

    /// An arm's body: an expression, or an assignment (`total += v`).
    fn arm_body(&mut self) -> Expr {
        let target = self.expr();
        let Some(op) = assign_op(self.tok()) else {
            return target;
        };
        self.bump();
        let value = self.expr();
        Expr {
            span: target.span.start..value.span.end,
            kind: ExprKind::Assign(Box::new(target), op, Box::new(value)),
        }
    }

    /// An arm's pattern: one pattern, or alternatives `A | B | C`.
    /// Alternatives inside it are lifted to the top, so the lowering and
    /// the exhaustiveness check see only those:
    /// `(State.Idle, Event.Cancel | Event.Kick)` is
    /// `(State.Idle, Event.Cancel) | (State.Idle, Event.Kick)`.
    fn arm_pattern(&mut self) -> Pattern {
        let first = self.pattern();
        let whole = self.nested_alternatives(first);
        let span = whole.span.clone();
        let mut alts = Vec::new();
        if !lift_alternatives(whole, &mut alts) {
            self.error(
                Pending::new(
                    "E0015",
                    span.clone(),
                    format!("this pattern has more than {MAX_ALTERNATIVES} alternatives"),
                    "too many alternatives",
                )
                .help("match the parts one `match` at a time"),
            );
            return Pattern {
                span,
                kind: PatternKind::Error,
            };
        }
        if alts.len() == 1 {
            return alts.pop().unwrap_or(Pattern {
                span,
                kind: PatternKind::Error,
            });
        }
        Pattern {
            span,
            kind: PatternKind::Or(alts),
        }
    }

    fn pattern(&mut self) -> Pattern {
        let span = self.span();
        if !self.enter() {
            self.bump();
            return Pattern {
                kind: PatternKind::Error,
                span,
            };
        }
        let p = self.pattern_inner(span);
        self.leave();
        p
    }

    /// `p | q` inside another pattern (`Token.Word("if" | "else")`,
    /// `(State.Idle, Event.Cancel | Event.Kick)`), from after `p`: the
    /// alternatives as an `Or`, which `arm_pattern` then lifts to
    /// the top of the arm.
    fn nested_alternatives(&mut self, first: Pattern) -> Pattern {
        if self.panicking || !self.at(&Tok::Pipe) {
            return first;
        }
        let start = first.span.start;
        let mut alts = vec![first];
        while !self.panicking && self.eat(&Tok::Pipe) {
            self.skip_newlines();
            alts.push(self.pattern());
        }
        Pattern {
            span: start..self.prev_end(),
            kind: PatternKind::Or(alts),
        }
    }

    fn pattern_inner(&mut self, span: Span) -> Pattern {
        let start = span.start;
        let kind = match self.tok().clone() {
            Tok::Int(v) => {
                self.bump();
                PatternKind::Int(v, false)
            }
            Tok::Float(_) => {
                // Cove has no Float patterns (Rust is retiring them): a
                // guard says what `NaN` and `-0.0` should do.
                self.bump();
                self.error(
                    Pending::new(
                        "E0015",
                        span.clone(),
                        "a Float cannot be a pattern",
                        "a Float literal",
                    )
                    .help("match it with a guard: `x if x == 1.5 => ...`"),
                );
                self.panicking = false;
                PatternKind::Error
            }
            Tok::Minus if matches!(self.nth(1), Tok::Int(_)) => {
                self.bump();
                let Tok::Int(v) = self.bump().tok else {
                    return Pattern {
                        kind: PatternKind::Error,
                        span,
                    };
                };
                PatternKind::Int(v, true)
            }
            Tok::True => {
                self.bump();
                PatternKind::Bool(true)
            }
            Tok::False => {
                self.bump();
                PatternKind::Bool(false)
            }
            Tok::Str(parts) => {
                self.bump();
                let mut text = String::new();
                for part in parts {
                    match part {
                        StrPart::Text(t) => text.push_str(&t),
                        StrPart::Code(_) => {
                            self.error(Pending::new(
                                "E0015",
                                span.clone(),
                                "a string pattern cannot interpolate",
                                "interpolation in a pattern",
                            ));
                        }
                    }
                }
                PatternKind::Str(text)
            }
            Tok::Ident(name) => {
                self.bump();
                if name == "_" {
                    PatternKind::Wildcard
                } else {
                    let mut path = vec![Ident {
                        name,
                        span: span.clone(),
                    }];
                    while self.at(&Tok::Dot) {
                        self.bump();
                        match self.ident("a variant name after `.`") {
                            Some(i) => path.push(i),
                            None => {
                                return Pattern {
                                    kind: PatternKind::Error,
                                    span: start..self.prev_end(),
                                };
                            }
                        }
                    }
                    if self.at(&Tok::LParen) {
                        self.bump();
                        let mut subs = Vec::new();
                        while !self.at(&Tok::RParen) && !self.at(&Tok::Eof) {
                            let sub = self.pattern();
                            subs.push(self.nested_alternatives(sub));
                            if self.panicking || !self.eat(&Tok::Comma) {
                                break;
                            }
                        }
                        if !self.panicking {
                            self.expect(Tok::RParen, "`)` to close the pattern");
                        }
                        PatternKind::Variant(path, Some(subs))
                    } else if path.len() == 1 && path[0].name != "None" {
                        PatternKind::Bind(path.pop().map(|i| i.name).unwrap_or_default())
                    } else {
                        PatternKind::Variant(path, None)
                    }
                }
            }
            Tok::LParen => {
                // `(a, b)`: a tuple pattern; `(p)` is `p` in parentheses,
                // as a tuple has two or more parts.
                self.bump();
                let mut subs = Vec::new();
                let mut trailing = false;
                while !self.at(&Tok::RParen) && !self.at(&Tok::Eof) {
                    let sub = self.pattern();
                    subs.push(self.nested_alternatives(sub));
                    trailing = false;
                    if self.panicking || !self.eat(&Tok::Comma) {
                        break;
                    }
                    trailing = true;
                }
                if !self.panicking {
                    self.expect(Tok::RParen, "`)` to close the tuple pattern");
                }
                if subs.is_empty() && !self.panicking {
                    self.error(
                        Pending::new(
                            "E0015",
                            start..self.prev_end(),
                            "`()` is not a pattern",
                            "an empty tuple pattern",
                        )
                        .help("a tuple pattern names two or more parts, as in `(a, b)`; match `()` with `_`"),
                    );
                    PatternKind::Error
                } else if subs.len() == 1 && !trailing {
                    return subs.pop().unwrap_or(Pattern {
                        kind: PatternKind::Error,
                        span,
                    });
                } else {
                    PatternKind::Tuple(subs)
                }
            }
            _ => {
                let found = self.tok().describe();
                self.error(
                    Pending::new(
                        "E0015",
                        span.clone(),
                        format!("expected a pattern, found {found}"),
                        "not a pattern",
                    )
                    .help("a pattern is `_`, a name, a literal, `Some(x)`, `None`, `Enum.Variant(x)` or a tuple `(a, b)`"),
                );
                PatternKind::Error
            }
        };
        Pattern {
            kind,
            span: start..self.prev_end(),
        }
    }
}

/// The help for a malformed format spec `text`: the Cove way for the specs
/// of other languages a newcomer writes (Python's `.2f` and `d`, a width
/// from a variable), else what a spec is.
fn spec_help(text: &str) -> String {
    let general =
        "a spec is [[fill]align][sign][0][width][.precision][type], as in `{x:>8.3}` or `{n:05}`";
    if text.starts_with('%') {
        return "a spec has no `%`: it follows the `:`, as in `{n:5}` for a width, or `{n}` alone"
            .to_string();
    }
    if let Some(head) = text.strip_suffix('f').or_else(|| text.strip_suffix('F'))
        && !head.ends_with(|c: char| c.is_ascii_alphabetic())
    {
        return if head.contains('.') {
            format!(
                "Cove has no `f` type: `{{x:{head}}}` already shows that many digits after the point"
            )
        } else {
            format!("Cove has no `f` type: write a precision, as in `{{x:{head}.2}}`")
        };
    }
    if let Some(head) = text.strip_suffix('d').or_else(|| text.strip_suffix('s'))
        && !head.ends_with(|c: char| c.is_ascii_alphabetic())
    {
        return if head.is_empty() {
            "Cove has no such type: `{x}` prints the value in its own form, a number in decimal"
                .to_string()
        } else {
            format!(
                "Cove has no such type: `{{x:{head}}}` prints the value in its own form, a number in decimal"
            )
        };
    }
    if let Some(head) = text.strip_suffix('%') {
        let spec = if head.is_empty() {
            String::new()
        } else {
            format!(":{head}")
        };
        return format!(
            "Cove has no `%` type: multiply by 100 and write the sign, as in `{{x * 100.0{spec}}}%`"
        );
    }
    if text.contains('#') {
        return "Cove has no alternate forms: write the prefix in the text, as in `0x{n:x}`"
            .to_string();
    }
    if text.contains('{') {
        return "a width is a number written in the spec, as in `{n:>5}`; to pad to a width \
                known only at run time, repeat the padding: `\" \".repeat(w - s.length()) + s`"
            .to_string();
    }
    general.to_string()
}

/// `(x,)` or `(Int,)`: a one-element tuple, which Cove has not.
fn one_element_tuple(span: Span, what: &str) -> Pending {
    Pending::new(
        "E0044",
        span,
        format!("Cove has no one-element tuples: this {what} is read as its one part"),
        "a tuple of one part",
    )
    .help("a tuple has two or more parts, `(a, b)`; write the part alone, without the comma")
}
