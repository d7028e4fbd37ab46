//! The debugger's expressions: what `print` evaluates and what a
//! conditional breakpoint (`break f.cove:12 if n > 40`) tests.
//!
//! A small language over a frame's locals, written here rather than taken
//! from the compiler: names, `Int`, `Float`, `Bool` and `String` literals,
//! field access on structs (`p.x`), `.length` of a string, list or map,
//! arithmetic (`+ - * / %`, `+` also joining strings), comparison, `&&`,
//! `||` and `!`, with Cove's precedence. It is evaluated on
//! [`cove_runtime::Value`], with the checks Cove makes (integer overflow
//! and division by zero are errors, not wrapped), so a condition means
//! what the same text would in the program.
//!
//! # Why not the compiler
//!
//! Compiling a condition would mean a program fragment with the frame's
//! locals as parameters, a machine to run it on, and a dependency from the
//! debugger on the compiler, all for expressions a few tokens long that run
//! only at a breakpoint's pc. A tree walked over host values costs
//! microseconds there and nothing anywhere else.
//!
//! # What it costs
//!
//! Parsing is linear in the text and happens once, when the breakpoint is
//! set; evaluating walks the tree once. Both recurse, bounded by
//! [`MAX_DEPTH`] nested operands, so no text overflows the stack.

use std::fmt;

use cove_ir::program::Program;
use cove_ir::types::{Type, TypeId};
use cove_runtime::Value;

/// The deepest nesting of parentheses and operators an expression may have.
pub const MAX_DEPTH: usize = 64;

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    node: Node,
    text: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Name(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    Field(Box<Node>, String),
    Not(Box<Node>),
    Neg(Box<Node>),
    Binary(Op, Box<Node>, Box<Node>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Or => "||",
            Op::And => "&&",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Rem => "%",
        }
    }
}

/// Why an expression did not parse or could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError(pub String);

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExprError {}

fn error<T>(message: impl Into<String>) -> Result<T, ExprError> {
    Err(ExprError(message.into()))
}

/// A value and, where known, its Cove type.
pub type Typed = (Value, Option<TypeId>);

/// Where an expression finds its names: a frame's locals.
pub trait Scope {
    /// The local `name`'s value and type, if one is live.
    fn lookup(&self, name: &str) -> Option<Typed>;
}

impl Expr {
    /// Parses `text`.
    ///
    /// ```
    /// let e = cove_debug::expr::Expr::parse("n > 40 && !done").unwrap();
    /// assert_eq!(e.text(), "n > 40 && !done");
    /// assert!(cove_debug::expr::Expr::parse("n >").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        let tokens = lex(text)?;
        let mut parser = Parser {
            tokens,
            at: 0,
            depth: 0,
        };
        let node = parser.or()?;
        if let Some(token) = parser.tokens.get(parser.at) {
            return error(format!("unexpected `{}`", token.text()));
        }
        Ok(Expr {
            node,
            text: text.trim().to_string(),
        })
    }

    /// The text it was parsed from, trimmed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the expression is a bare name, as `print x` usually is.
    pub fn as_name(&self) -> Option<&str> {
        match &self.node {
            Node::Name(name) => Some(name),
            _ => None,
        }
    }

    /// Evaluates the expression over `scope`'s locals. `program` gives the
    /// types of fields.
    pub fn eval(&self, program: &Program, scope: &dyn Scope) -> Result<Typed, ExprError> {
        eval(&self.node, program, scope, 0)
    }

    /// Evaluates a condition: the expression must give a `Bool`.
    pub fn test(&self, program: &Program, scope: &dyn Scope) -> Result<bool, ExprError> {
        match self.eval(program, scope)?.0 {
            Value::Bool(b) => Ok(b),
            other => error(format!(
                "the condition `{}` gave {other}, not a Bool",
                self.text
            )),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Name(String),
    Int(i64),
    Float(f64),
    Str(String),
    Punct(&'static str),
}

impl Token {
    fn text(&self) -> String {
        match self {
            Token::Name(n) => n.clone(),
            Token::Int(n) => n.to_string(),
            Token::Float(x) => x.to_string(),
            Token::Str(s) => format!("{s:?}"),
            Token::Punct(p) => (*p).to_string(),
        }
    }
}

const PUNCTS: [&str; 19] = [
    "||", "&&", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", "!", "(", ")", ".", "[",
    "]",
];

fn lex(text: &str) -> Result<Vec<Token>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '_') {
                i += 1;
            }
            let is_float = i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit();
            if is_float {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            let digits: String = chars[start..i].iter().filter(|c| **c != '_').collect();
            tokens.push(if is_float {
                Token::Float(
                    digits
                        .parse()
                        .map_err(|_| ExprError(format!("bad number `{digits}`")))?,
                )
            } else {
                Token::Int(
                    digits
                        .parse()
                        .map_err(|_| ExprError(format!("`{digits}` does not fit an Int")))?,
                )
            });
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Name(chars[start..i].iter().collect()));
        } else if c == '"' {
            i += 1;
            let mut s = String::new();
            loop {
                match chars.get(i) {
                    None => return error("a string is not closed"),
                    Some('"') => break,
                    Some('\\') => {
                        i += 1;
                        s.push(match chars.get(i) {
                            Some('n') => '\n',
                            Some('t') => '\t',
                            Some('r') => '\r',
                            Some('0') => '\0',
                            Some(other) => *other,
                            None => return error("a string is not closed"),
                        });
                    }
                    Some(other) => s.push(*other),
                }
                i += 1;
            }
            i += 1;
            tokens.push(Token::Str(s));
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            match PUNCTS.iter().find(|p| rest.starts_with(**p)) {
                Some(p) => {
                    tokens.push(Token::Punct(p));
                    i += p.len();
                }
                None => return error(format!("unexpected `{c}`")),
            }
        }
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
}

impl Parser {
    fn peek_punct(&self) -> Option<&'static str> {
        match self.tokens.get(self.at) {
            Some(Token::Punct(p)) => Some(p),
            _ => None,
        }
    }

    fn eat(&mut self, punct: &str) -> bool {
        if self.peek_punct() == Some(punct) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn deeper(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return error(format!("the expression nests deeper than {MAX_DEPTH}"));
        }
        Ok(())
    }

    fn binary(
        &mut self,
        ops: &[(&str, Op)],
        next: fn(&mut Parser) -> Result<Node, ExprError>,
    ) -> Result<Node, ExprError> {
        let mut left = next(self)?;
        'outer: loop {
            for (text, op) in ops {
                if self.eat(text) {
                    let right = next(self)?;
                    left = Node::Binary(*op, Box::new(left), Box::new(right));
                    continue 'outer;
                }
            }
            return Ok(left);
        }
    }

    fn or(&mut self) -> Result<Node, ExprError> {
        self.deeper()?;
        let node = self.binary(&[("||", Op::Or)], Parser::and);
        self.depth -= 1;
        node
    }

    fn and(&mut self) -> Result<Node, ExprError> {
        self.binary(&[("&&", Op::And)], Parser::comparison)
    }

    fn comparison(&mut self) -> Result<Node, ExprError> {
        let left = self.sum()?;
        for (text, op) in [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("<", Op::Lt),
            (">", Op::Gt),
        ] {
            if self.eat(text) {
                let right = self.sum()?;
                return Ok(Node::Binary(op, Box::new(left), Box::new(right)));
            }
        }
        Ok(left)
    }

    fn sum(&mut self) -> Result<Node, ExprError> {
        self.binary(&[("+", Op::Add), ("-", Op::Sub)], Parser::product)
    }

    fn product(&mut self) -> Result<Node, ExprError> {
        self.binary(
            &[("*", Op::Mul), ("/", Op::Div), ("%", Op::Rem)],
            Parser::unary,
        )
    }

    fn unary(&mut self) -> Result<Node, ExprError> {
        if self.eat("!") {
            self.deeper()?;
            let node = self.unary().map(|n| Node::Not(Box::new(n)));
            self.depth -= 1;
            return node;
        }
        if self.eat("-") {
            self.deeper()?;
            let node = self.unary().map(|n| match n {
                Node::Int(v) => Node::Int(-v),
                Node::Float(v) => Node::Float(-v),
                other => Node::Neg(Box::new(other)),
            });
            self.depth -= 1;
            return node;
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Result<Node, ExprError> {
        let mut node = self.atom()?;
        while self.eat(".") {
            match self.tokens.get(self.at).cloned() {
                Some(Token::Name(field)) => {
                    self.at += 1;
                    // `s.length()` as the program writes it: the one
                    // method an expression may call.
                    if field == "length" && self.peek_punct() == Some("(") {
                        self.at += 1;
                        if !self.eat(")") {
                            return error("`length()` takes no arguments");
                        }
                    }
                    node = Node::Field(Box::new(node), field);
                }
                Some(Token::Int(n)) => {
                    self.at += 1;
                    node = Node::Field(Box::new(node), n.to_string());
                }
                _ => return error("expected a field name after `.`"),
            }
        }
        Ok(node)
    }

    fn atom(&mut self) -> Result<Node, ExprError> {
        let Some(token) = self.tokens.get(self.at).cloned() else {
            return error("the expression ends too soon");
        };
        self.at += 1;
        Ok(match token {
            Token::Int(n) => Node::Int(n),
            Token::Float(x) => Node::Float(x),
            Token::Str(s) => Node::Str(s),
            Token::Name(n) if n == "true" => Node::Bool(true),
            Token::Name(n) if n == "false" => Node::Bool(false),
            Token::Name(n) => Node::Name(n),
            Token::Punct("(") => {
                let inner = self.or()?;
                if !self.eat(")") {
                    return error("expected `)`");
                }
                inner
            }
            Token::Punct(p) => return error(format!("unexpected `{p}`")),
        })
    }
}

fn eval(
    node: &Node,
    program: &Program,
    scope: &dyn Scope,
    depth: usize,
) -> Result<Typed, ExprError> {
    if depth > MAX_DEPTH * 2 {
        return error("the expression nests too deep");
    }
    let sub = |n: &Node| eval(n, program, scope, depth + 1);
    Ok(match node {
        Node::Int(n) => (Value::Int(*n), Some(Program::INT)),
        Node::Float(x) => (Value::Float(*x), Some(Program::FLOAT)),
        Node::Bool(b) => (Value::Bool(*b), Some(Program::BOOL)),
        Node::Str(s) => (Value::Str(s.clone()), Some(Program::STR)),
        Node::Name(name) => match scope.lookup(name) {
            Some(found) => found,
            None => return error(format!("no local named `{name}` here")),
        },
        Node::Field(inner, field) => {
            let (value, ty) = sub(inner)?;
            field_of(program, value, ty, field)?
        }
        Node::Not(inner) => match sub(inner)?.0 {
            Value::Bool(b) => (Value::Bool(!b), Some(Program::BOOL)),
            other => return error(format!("`!` needs a Bool, not {other}")),
        },
        Node::Neg(inner) => match sub(inner)?.0 {
            Value::Int(n) => match n.checked_neg() {
                Some(n) => (Value::Int(n), Some(Program::INT)),
                None => return error("integer overflow in -"),
            },
            Value::Float(x) => (Value::Float(-x), Some(Program::FLOAT)),
            other => return error(format!("`-` needs a number, not {other}")),
        },
        Node::Binary(Op::And, a, b) => {
            let a = boolean(sub(a)?.0, "&&")?;
            let b = a && boolean(sub(b)?.0, "&&")?;
            (Value::Bool(b), Some(Program::BOOL))
        }
        Node::Binary(Op::Or, a, b) => {
            let a = boolean(sub(a)?.0, "||")?;
            let b = a || boolean(sub(b)?.0, "||")?;
            (Value::Bool(b), Some(Program::BOOL))
        }
        Node::Binary(op, a, b) => binary(*op, sub(a)?.0, sub(b)?.0)?,
    })
}

fn boolean(value: Value, op: &str) -> Result<bool, ExprError> {
    match value {
        Value::Bool(b) => Ok(b),
        other => error(format!("`{op}` needs Bools, not {other}")),
    }
}

fn field_of(
    program: &Program,
    value: Value,
    ty: Option<TypeId>,
    field: &str,
) -> Result<Typed, ExprError> {
    let length = |n: usize| Ok((Value::Int(n as i64), Some(Program::INT)));
    match (&value, field) {
        (Value::Str(s), "length") => return length(s.chars().count()),
        (Value::List(items), "length") => return length(items.len()),
        (Value::Map(entries), "length") => return length(entries.len()),
        _ => {}
    }
    let mut value = value;
    let Value::Struct { name, fields } = &mut value else {
        return error(format!("{value} has no field `{field}`"));
    };
    // `Value` has a `Drop` (a bounded one), so the fields are taken, not
    // moved out.
    let fields = std::mem::take(fields);
    let Some(position) = fields.iter().position(|(f, _)| f == field) else {
        return error(format!("struct {name} has no field `{field}`"));
    };
    let field_ty = ty.and_then(|ty| match program.types.get(ty.0 as usize) {
        Some(Type::Struct(s)) => program
            .structs
            .get(s.0 as usize)
            .and_then(|d| d.fields.get(position))
            .map(|f| f.ty),
        _ => None,
    });
    let value = fields.into_iter().nth(position).map(|(_, v)| v);
    Ok((value.unwrap_or(Value::Unit), field_ty))
}

fn binary(op: Op, a: Value, b: Value) -> Result<Typed, ExprError> {
    use std::cmp::Ordering;
    let compare = |ordering: Option<Ordering>| -> Result<Typed, ExprError> {
        let Some(ordering) = ordering else {
            return error(format!("`{}` cannot compare these values", op.text()));
        };
        let result = match op {
            Op::Eq => ordering == Ordering::Equal,
            Op::Ne => ordering != Ordering::Equal,
            Op::Lt => ordering == Ordering::Less,
            Op::Le => ordering != Ordering::Greater,
            Op::Gt => ordering == Ordering::Greater,
            _ => ordering != Ordering::Less,
        };
        Ok((Value::Bool(result), Some(Program::BOOL)))
    };
    let comparison = matches!(op, Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge);
    match (&a, &b) {
        (Value::Int(x), Value::Int(y)) => {
            let (x, y) = (*x, *y);
            if comparison {
                return compare(Some(x.cmp(&y)));
            }
            let result = match op {
                Op::Add => x.checked_add(y),
                Op::Sub => x.checked_sub(y),
                Op::Mul => x.checked_mul(y),
                Op::Div | Op::Rem if y == 0 => return error("division by zero"),
                Op::Div => x.checked_div(y),
                _ => x.checked_rem(y),
            };
            match result {
                Some(n) => Ok((Value::Int(n), Some(Program::INT))),
                None => error(format!("integer overflow in {}", op.text())),
            }
        }
        (Value::Float(x), Value::Float(y)) => {
            if comparison {
                return compare(x.partial_cmp(y));
            }
            let result = match op {
                Op::Add => x + y,
                Op::Sub => x - y,
                Op::Mul => x * y,
                Op::Div => x / y,
                _ => x % y,
            };
            Ok((Value::Float(result), Some(Program::FLOAT)))
        }
        (Value::Str(x), Value::Str(y)) => {
            if comparison {
                return compare(Some(x.cmp(y)));
            }
            if op == Op::Add {
                return Ok((Value::Str(format!("{x}{y}")), Some(Program::STR)));
            }
            error(format!("`{}` does not apply to Strings", op.text()))
        }
        (Value::Bool(x), Value::Bool(y)) if matches!(op, Op::Eq | Op::Ne) => {
            compare(Some(x.cmp(y)))
        }
        (a, b) if matches!(op, Op::Eq | Op::Ne) => compare(Some(if a == b {
            Ordering::Equal
        } else {
            Ordering::Less
        })),
        (a, b) => error(format!(
            "`{}` does not apply to {a} and {b} (Cove does not mix types: write 2.0, not 2)",
            op.text()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Locals(Vec<(&'static str, Value)>);

    impl Scope for Locals {
        fn lookup(&self, name: &str) -> Option<Typed> {
            self.0
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (v.clone(), None))
        }
    }

    fn eval_text(text: &str, locals: &[(&'static str, Value)]) -> Result<Value, ExprError> {
        let program = Program::new();
        Expr::parse(text)?
            .eval(&program, &Locals(locals.to_vec()))
            .map(|t| t.0)
    }

    #[test]
    fn arithmetic_and_comparison_follow_cove_precedence() {
        let n = [("n", Value::Int(41))];
        assert_eq!(eval_text("n + 1 * 2", &n), Ok(Value::Int(43)));
        assert_eq!(eval_text("(n + 1) * 2", &n), Ok(Value::Int(84)));
        assert_eq!(eval_text("n > 40 && n < 42", &n), Ok(Value::Bool(true)));
        assert_eq!(eval_text("n == 1 || !(n != 41)", &n), Ok(Value::Bool(true)));
        assert_eq!(eval_text("-n % 5", &n), Ok(Value::Int(-1)));
        assert_eq!(eval_text("1.5 * 2.0", &n), Ok(Value::Float(3.0)));
    }

    #[test]
    fn strings_compare_and_join_and_have_a_length() {
        let s = [("s", Value::str("héllo"))];
        assert_eq!(eval_text("s == \"héllo\"", &s), Ok(Value::Bool(true)));
        assert_eq!(eval_text("s + \"!\"", &s), Ok(Value::str("héllo!")));
        assert_eq!(eval_text("s.length", &s), Ok(Value::Int(5)));
        assert_eq!(eval_text("s.length() + 1", &s), Ok(Value::Int(6)));
    }

    #[test]
    fn a_struct_field_is_read_by_name() {
        let p = [(
            "p",
            Value::Struct {
                name: "Point".into(),
                fields: vec![("x".into(), Value::Int(3)), ("y".into(), Value::Int(4))],
            },
        )];
        assert_eq!(eval_text("p.x * p.y", &p), Ok(Value::Int(12)));
        assert!(eval_text("p.z", &p).unwrap_err().0.contains("no field `z`"));
    }

    #[test]
    fn faults_are_errors_not_wrapped_values() {
        let n = [("n", Value::Int(i64::MAX))];
        assert_eq!(
            eval_text("n + 1", &n),
            Err(ExprError("integer overflow in +".into()))
        );
        assert_eq!(
            eval_text("n / 0", &n),
            Err(ExprError("division by zero".into()))
        );
        assert!(eval_text("n + 1.0", &n).is_err());
        assert!(
            eval_text("missing > 1", &n)
                .unwrap_err()
                .0
                .contains("missing")
        );
    }

    #[test]
    fn malformed_text_is_an_error_and_deep_nesting_is_refused() {
        for bad in ["", "n >", "(n", "n $ 2", "\"open", "1 2", "p."] {
            assert!(Expr::parse(bad).is_err(), "{bad}");
        }
        let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(Expr::parse(&deep).is_err());
        let bangs = format!("{}true", "!".repeat(10_000));
        assert!(Expr::parse(&bangs).is_err());
    }
}
