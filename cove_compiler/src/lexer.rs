//! The lexer: source text to tokens, deciding which newlines end statements.
//!
//! Cove has no semicolons, so the lexer is where a newline becomes a
//! statement end — or does not. It emits a [`Tok::Newline`] only where a
//! statement may end: not inside `(...)` or `[...]` (unless a `{` block is
//! open inside them), not after a token that cannot end an expression (a
//! binary operator, `,`, `(`, `=`, ...), and not before a line that starts
//! with `.`, `&&` or `||` (a method chain or a condition continued). Doing it
//! here keeps the parser free of layout rules; the cost is one bracket stack.
//!
//! String literals are lexed whole: the text pieces are unescaped here and
//! the `{...}` pieces are kept as byte ranges of the source, which the parser
//! parses as expressions in place, so their diagnostics point into the string.

use std::ops::Range;

use crate::diagnostics::{MAX_ERRORS, Pending};

/// The longest run of unexpected characters a diagnostic quotes whole.
const SHOWN_RUN: usize = 16;

/// Whether `c` can begin a token or is whitespace: what ends a run of
/// characters Cove does not use. It must agree with the dispatch in
/// `Lexer::run` and `Lexer::punct` (a unit test checks every ASCII
/// character; every other character is unexpected).
fn starts_token(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            '_' | '"'
                | ' '
                | '\t'
                | '\r'
                | '\n'
                | '('
                | ')'
                | '['
                | ']'
                | '{'
                | '}'
                | ','
                | ':'
                | '.'
                | '+'
                | '-'
                | '*'
                | '/'
                | '%'
                | '&'
                | '|'
                | '^'
                | '!'
                | '='
                | '<'
                | '>'
                // Not Cove's, but lexed to say so (`x?`, E0032).
                | '?'
        )
}

/// A piece of a string literal.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StrPart {
    /// Literal text, escapes already applied.
    Text(String),
    /// The source range of an interpolated expression, without its braces.
    Code(Range<usize>),
}

/// A token's kind and value.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub(crate) enum Tok {
    Ident(String),
    /// An integer literal; `None` when it does not fit 64 bits.
    Int(Option<u64>),
    Float(f64),
    Str(Vec<StrPart>),
    Newline,
    Eof,
    // Keywords.
    Fn,
    Let,
    Var,
    If,
    Else,
    While,
    For,
    In,
    Break,
    Continue,
    Return,
    Match,
    Struct,
    Enum,
    Import,
    Export,
    True,
    False,
    Spawn,
    // Punctuation.
    LParen,
    RParen,
    LBrack,
    RBrack,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Dot,
    DotDot,
    Arrow,
    FatArrow,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Amp,
    Pipe,
    Caret,
    Shl,
    Shr,
    AndAnd,
    OrOr,
    Bang,
    Assign,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    PercentEq,
    AmpEq,
    PipeEq,
    CaretEq,
    ShlEq,
    ShrEq,
}

impl Tok {
    /// How the token is written, for "expected `)`, found `,`" messages.
    pub(crate) fn describe(&self) -> String {
        let text = match self {
            Tok::Ident(name) => return format!("`{name}`"),
            Tok::Int(_) => return "a number".to_string(),
            Tok::Float(_) => return "a number".to_string(),
            Tok::Str(_) => return "a string".to_string(),
            Tok::Newline => return "the end of the line".to_string(),
            Tok::Eof => return "the end of the file".to_string(),
            Tok::Fn => "fn",
            Tok::Let => "let",
            Tok::Var => "var",
            Tok::If => "if",
            Tok::Else => "else",
            Tok::While => "while",
            Tok::For => "for",
            Tok::In => "in",
            Tok::Break => "break",
            Tok::Continue => "continue",
            Tok::Return => "return",
            Tok::Match => "match",
            Tok::Struct => "struct",
            Tok::Enum => "enum",
            Tok::Import => "import",
            Tok::Export => "export",
            Tok::True => "true",
            Tok::False => "false",
            Tok::Spawn => "spawn",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBrack => "[",
            Tok::RBrack => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::Dot => ".",
            Tok::DotDot => "..",
            Tok::Arrow => "->",
            Tok::FatArrow => "=>",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Amp => "&",
            Tok::Pipe => "|",
            Tok::Caret => "^",
            Tok::Shl => "<<",
            Tok::Shr => ">>",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
            Tok::Bang => "!",
            Tok::Assign => "=",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::PlusEq => "+=",
            Tok::MinusEq => "-=",
            Tok::StarEq => "*=",
            Tok::SlashEq => "/=",
            Tok::PercentEq => "%=",
            Tok::AmpEq => "&=",
            Tok::PipeEq => "|=",
            Tok::CaretEq => "^=",
            Tok::ShlEq => "<<=",
            Tok::ShrEq => ">>=",
        };
        format!("`{text}`")
    }

    /// Whether a line ending in this token continues on the next line.
    fn continues_line(&self) -> bool {
        matches!(
            self,
            Tok::Plus
                | Tok::Minus
                | Tok::Star
                | Tok::Slash
                | Tok::Percent
                | Tok::Amp
                | Tok::Pipe
                | Tok::Caret
                | Tok::Shl
                | Tok::Shr
                | Tok::AndAnd
                | Tok::OrOr
                | Tok::Bang
                | Tok::Assign
                | Tok::EqEq
                | Tok::NotEq
                | Tok::Lt
                | Tok::Le
                | Tok::Gt
                | Tok::Ge
                | Tok::PlusEq
                | Tok::MinusEq
                | Tok::StarEq
                | Tok::SlashEq
                | Tok::PercentEq
                | Tok::AmpEq
                | Tok::PipeEq
                | Tok::CaretEq
                | Tok::ShlEq
                | Tok::ShrEq
                | Tok::Comma
                | Tok::Colon
                | Tok::Dot
                | Tok::DotDot
                | Tok::Arrow
                | Tok::FatArrow
                | Tok::LParen
                | Tok::LBrack
                | Tok::Newline
        )
    }
}

/// A token and the byte range of the source it was read from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    /// What it is.
    pub tok: Tok,
    /// Where it is.
    pub span: Range<usize>,
}

/// Reads `source[range]` into tokens (ending with [`Tok::Eof`]); offsets are
/// of the whole source, so a sub-range (an interpolation) lexes in place.
pub(crate) fn lex(source: &str, range: Range<usize>, errors: &mut Vec<Pending>) -> Vec<Token> {
    // A byte-order mark some editors write at the start of a file is not code.
    let start = if range.start == 0 && source.starts_with('\u{feff}') {
        3.min(range.end)
    } else {
        range.start
    };
    let mut lexer = Lexer {
        src: source.as_bytes(),
        text: source,
        pos: start,
        end: range.end,
        tokens: Vec::new(),
        brackets: Vec::new(),
        bracket_starts: Vec::new(),
        line_depth: 0,
        labels: Vec::new(),
        errors,
    };
    lexer.run();
    lexer.tokens
}

struct Lexer<'a, 'e> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
    end: usize,
    tokens: Vec<Token>,
    /// The open brackets: `(`, `[` or `{`. Newlines count only when the
    /// innermost is a `{` (or none is open).
    brackets: Vec<u8>,
    /// Where each of `brackets` was opened.
    bracket_starts: Vec<usize>,
    /// How many of `brackets` were open when the current line began: what
    /// a string left unclosed at the line's end closes for it.
    line_depth: usize,
    /// The loop labels reported, each once.
    labels: Vec<String>,
    errors: &'e mut Vec<Pending>,
}

impl Lexer<'_, '_> {
    fn peek(&self, ahead: usize) -> u8 {
        let at = self.pos + ahead;
        if at < self.end { self.src[at] } else { 0 }
    }

    fn push(&mut self, tok: Tok, start: usize) {
        // A line starting with `.`, `&&` or `||` continues the previous one.
        if matches!(tok, Tok::Dot | Tok::AndAnd | Tok::OrOr)
            && matches!(
                self.tokens.last(),
                Some(Token {
                    tok: Tok::Newline,
                    ..
                })
            )
        {
            self.tokens.pop();
        }
        self.tokens.push(Token {
            tok,
            span: start..self.pos,
        });
    }

    fn newline(&mut self, at: usize) {
        if !matches!(self.brackets.last(), None | Some(b'{')) {
            return;
        }
        match self.tokens.last() {
            None => {}
            Some(t) if t.tok.continues_line() => {}
            Some(_) => self.tokens.push(Token {
                tok: Tok::Newline,
                span: at..at + 1,
            }),
        }
    }

    fn run(&mut self) {
        while self.pos < self.end {
            let start = self.pos;
            let c = self.src[self.pos];
            match c {
                b'\n' => {
                    self.pos += 1;
                    self.newline(start);
                    self.line_depth = self.brackets.len();
                }
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'/' if self.peek(1) == b'/' => {
                    while self.pos < self.end && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                b'/' if self.peek(1) == b'*' => self.block_comment(),
                b'0'..=b'9' => self.number(),
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => self.word(),
                b'"' => self.string(),
                _ => self.punct(c),
            }
        }
        let at = self.end;
        self.tokens.push(Token {
            tok: Tok::Eof,
            span: at..at,
        });
    }

    /// `/* ... */`, nested as in Rust and Swift. A newline inside one ends
    /// a statement as a newline outside it would.
    fn block_comment(&mut self) {
        let start = self.pos;
        let mut depth = 0usize;
        let mut newline = None;
        while self.pos < self.end {
            match (self.src[self.pos], self.peek(1)) {
                (b'/', b'*') => {
                    depth += 1;
                    self.pos += 2;
                }
                (b'*', b'/') => {
                    depth -= 1;
                    self.pos += 2;
                    if depth == 0 {
                        if let Some(at) = newline {
                            self.newline(at);
                        }
                        return;
                    }
                }
                (b'\n', _) => {
                    newline.get_or_insert(self.pos);
                    self.pos += 1;
                }
                _ => self.pos += 1,
            }
        }
        self.report(
            Pending::new(
                "E0002",
                start..start + 2,
                "this comment is never closed",
                "the comment starts here",
            )
            .help("close it with `*/`"),
        );
    }

    fn word(&mut self) {
        let start = self.pos;
        while self.peek(0).is_ascii_alphanumeric() || self.peek(0) == b'_' {
            self.pos += 1;
        }
        let word = &self.text[start..self.pos];
        let tok = match word {
            "fn" => Tok::Fn,
            "let" => Tok::Let,
            "var" => Tok::Var,
            "if" => Tok::If,
            "else" => Tok::Else,
            "while" => Tok::While,
            "for" => Tok::For,
            "in" => Tok::In,
            "break" => Tok::Break,
            "continue" => Tok::Continue,
            "return" => Tok::Return,
            "match" => Tok::Match,
            "struct" => Tok::Struct,
            "enum" => Tok::Enum,
            "import" => Tok::Import,
            "export" => Tok::Export,
            "true" => Tok::True,
            "false" => Tok::False,
            "spawn" => Tok::Spawn,
            _ => Tok::Ident(word.to_string()),
        };
        if matches!(tok, Tok::Ident(_))
            && self.peek(0) == b'!'
            && matches!(self.peek(1), b'(' | b'[')
        {
            self.macro_call(word, start);
            return;
        }
        self.push(tok, start);
    }

    /// `println!(...)`, `vec![...]`, `format!(...)`: Rust's macros, which
    /// Cove does not have. One error at the `name!`; then the `!` is
    /// dropped, and so is the name unless it is a Cove function, so that
    /// `println!(x)` reads on as `println(x)`, `vec![1, 2]` as the list
    /// `[1, 2]` and `format!("n={n}")` as the string, without a cascade.
    fn macro_call(&mut self, word: &str, start: usize) {
        let function = matches!(
            word,
            "print"
                | "println"
                | "eprintln"
                | "assert"
                | "exit"
                | "args"
                | "read_line"
                | "read_stdin"
                | "read_file"
                | "write_file"
        );
        let help = match word {
            "vec" => "write a list literal: `[1, 2, 3]`".to_string(),
            "format" => "write the string itself, with interpolation: `\"n={n}\"`".to_string(),
            "assert_eq" => "write `assert(a == b)`".to_string(),
            "panic" | "unreachable" | "todo" => {
                "to stop with an error, write `assert(false, \"why\")`".to_string()
            }
            _ if function => format!("`{word}` is a function: write `{word}(...)`"),
            _ => "call a function instead".to_string(),
        };
        self.pos += 1;
        self.report(
            Pending::new(
                "E0039",
                start..self.pos,
                format!("Cove has no macros: `{word}!`"),
                "a macro call",
            )
            .help(help),
        );
        if function {
            self.tokens.push(Token {
                tok: Tok::Ident(word.to_string()),
                span: start..start + word.len(),
            });
        }
    }

    fn number(&mut self) {
        let start = self.pos;
        if self.peek(0) == b'0' && matches!(self.peek(1), b'x' | b'X' | b'b' | b'B' | b'o' | b'O') {
            let radix = match self.peek(1) {
                b'x' | b'X' => 16,
                b'b' | b'B' => 2,
                _ => 8,
            };
            self.pos += 2;
            let digits_start = self.pos;
            while self.peek(0).is_ascii_alphanumeric() || self.peek(0) == b'_' {
                self.pos += 1;
            }
            let digits: String = self.text[digits_start..self.pos]
                .chars()
                .filter(|c| *c != '_')
                .collect();
            let value = if digits.is_empty() {
                self.report(Pending::new(
                    "E0004",
                    start..self.pos,
                    "this number has no digits",
                    "digits expected after the prefix",
                ));
                Some(0)
            } else {
                match u64::from_str_radix(&digits, radix) {
                    Ok(v) => Some(v),
                    Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => None,
                    Err(_) => {
                        self.report(Pending::new(
                            "E0004",
                            start..self.pos,
                            format!(
                                "`{}` is not a base-{radix} number",
                                &self.text[start..self.pos]
                            ),
                            "invalid digit",
                        ));
                        Some(0)
                    }
                }
            };
            self.push(Tok::Int(value), start);
            return;
        }
        while self.peek(0).is_ascii_digit() || self.peek(0) == b'_' {
            self.pos += 1;
        }
        let mut float = false;
        if self.peek(0) == b'.' && self.peek(1).is_ascii_digit() {
            float = true;
            self.pos += 1;
            while self.peek(0).is_ascii_digit() || self.peek(0) == b'_' {
                self.pos += 1;
            }
        }
        if matches!(self.peek(0), b'e' | b'E')
            && (self.peek(1).is_ascii_digit()
                || (matches!(self.peek(1), b'+' | b'-') && self.peek(2).is_ascii_digit()))
        {
            float = true;
            self.pos += 2;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
        }
        let text: String = self.text[start..self.pos]
            .chars()
            .filter(|c| *c != '_')
            .collect();
        if float {
            let value = text.parse::<f64>().unwrap_or(0.0);
            self.push(Tok::Float(value), start);
        } else {
            self.push(Tok::Int(text.parse::<u64>().ok()), start);
        }
    }

    /// Records an error, unless the file has more than [`MAX_ERRORS`]
    /// already: the report stops there anyway, and a megabyte of bad
    /// escapes should not cost a megabyte of diagnostics held in memory.
    /// (One more than the cap is kept, so the report says it stopped.)
    fn report(&mut self, d: Pending) {
        if self.errors.len() <= MAX_ERRORS {
            self.errors.push(d);
        }
    }

    /// Characters that start no token, from `start` to the next one that
    /// does: one diagnostic for the whole run, so a line of garbage is one
    /// error, not one per character.
    /// What other languages write and Cove does not: one error that
    /// names the Cove way, and a token (or none) that lets the rest of the
    /// line read on without a cascade. Whether it took the input at `c`.
    fn not_in_cove(&mut self, c: u8) -> bool {
        let start = self.pos;
        let (code, len, message, label, help, tok) = match (c, self.peek(1)) {
            (b'\'', _) => {
                // `'a'`, `'\n'`: a character literal, read as the string.
                let rest = &self.text[start + 1..self.end];
                let Some(close) = rest
                    .char_indices()
                    .skip(1)
                    .take(3)
                    .find(|(_, ch)| *ch == '\'')
                    .map(|(i, _)| i)
                else {
                    return self.loop_label(start);
                };
                let inner = &rest[..close];
                if inner.contains('\n') {
                    return false;
                }
                let text = match inner {
                    "\\n" => "\n".to_string(),
                    "\\t" => "\t".to_string(),
                    "\\r" => "\r".to_string(),
                    "\\0" => "\0".to_string(),
                    "\\\\" => "\\".to_string(),
                    "\\'" => "'".to_string(),
                    other => other.to_string(),
                };
                (
                    "E0030",
                    close + 2,
                    "Cove has no character literals".to_string(),
                    "a character literal",
                    format!(
                        "write a one-character string, \"{}\"; `s.chars()` gives a string's characters and `n.to_char()` the character of a code point",
                        text.escape_default()
                    ),
                    Some(Tok::Str(vec![StrPart::Text(text)])),
                )
            }
            (b'+', b'+') => (
                "E0031",
                2,
                "Cove has no `++`".to_string(),
                "an increment",
                "write `x += 1`".to_string(),
                None,
            ),
            (b'?', _) => {
                // Read on as `.unwrap()`, so the value has the type the
                // writer meant and the rest of the line reads without a
                // cascade.
                self.pos = start + 1;
                self.report(
                    Pending::new("E0032", start..self.pos, "Cove has no `?` operator", "an early return on None")
                        .help("match the Option (`match x { Some(v) => ..., None => return ... }`), or `.unwrap()` / `.unwrap_or(default)` it"),
                );
                for tok in [
                    Tok::Dot,
                    Tok::Ident("unwrap".to_string()),
                    Tok::LParen,
                    Tok::RParen,
                ] {
                    self.push(tok, start);
                }
                return true;
            }
            (b':', b':')
                if matches!(
                    self.tokens.last(),
                    Some(Token { tok: Tok::Ident(name), .. }) if name == "Option"
                ) =>
            {
                // `Option::None` and `Option::Some(x)`: Cove's Option
                // variants are plain names, so `Option` and the `::` are
                // dropped, and the rest reads as the Cove spelling (an
                // `Option.None` would be an unknown name besides).
                self.tokens.pop();
                self.pos = start + 2;
                self.report(
                    Pending::new(
                        "E0034",
                        start..self.pos,
                        "Cove names paths with `.`, not `::`",
                        "a `::` path",
                    )
                    .help("Option's variants need no prefix: write `None` or `Some(x)`"),
                );
                return true;
            }
            (b':', b':') => (
                "E0034",
                2,
                "Cove names paths with `.`, not `::`".to_string(),
                "a `::` path",
                "write `Token.Word` or `module.function`".to_string(),
                Some(Tok::Dot),
            ),
            _ => return false,
        };
        self.pos = start + len;
        self.report(Pending::new(code, start..self.pos, message, label).help(help));
        if let Some(tok) = tok {
            self.push(tok, start);
        }
        true
    }

    /// `'outer: loop {` and `break 'outer`: a loop label, which Cove does
    /// not have. One error, at the first label of each name; the label
    /// (and the `:` after it) is dropped, so the loop and the `break`
    /// read on as they would unlabelled. False if no name follows the `'`.
    fn loop_label(&mut self, start: usize) -> bool {
        let name_len = self.text[start + 1..self.end]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        if name_len == 0 || self.src[start + 1].is_ascii_digit() {
            return false;
        }
        let name = &self.text[start + 1..start + 1 + name_len];
        self.pos = start + 1 + name_len;
        let defined = self.peek(0) == b':' && self.peek(1) != b':';
        if defined {
            self.pos += 1;
        }
        if !self.labels.iter().any(|l| l == name) {
            self.labels.push(name.to_string());
            self.report(
                Pending::new(
                    "E0038",
                    start..start + 1 + name_len,
                    "Cove has no loop labels",
                    "a loop label",
                )
                .help(
                    "`break` and `continue` act on the innermost loop: to leave an outer one, \
                     set a `var` the outer loop tests, or put the loops in a function and `return`",
                ),
            );
        }
        true
    }

    fn stray(&mut self, start: usize) {
        // The first character is one (the caller saw it start no token).
        let mut len = 0;
        for (i, c) in self.text[start..].char_indices() {
            if i > 0 && (start + i >= self.end || starts_token(c)) {
                break;
            }
            len = i + c.len_utf8();
        }
        self.pos = start + len;
        if self.errors.len() > MAX_ERRORS {
            // It would be dropped: skip building its message.
            return;
        }
        let run = &self.text[start..self.pos];
        let count = run.chars().count();
        let shown = |text: &str| {
            if text.chars().any(char::is_control) {
                format!("{text:?}")
            } else {
                format!("`{text}`")
            }
        };
        let (message, label) = match count {
            1 => {
                let ch = run.chars().next().unwrap_or('?');
                let shown = if ch.is_control() {
                    format!("{ch:?}")
                } else {
                    format!("`{ch}`")
                };
                (
                    format!("unexpected character {shown}"),
                    "Cove does not use this character here",
                )
            }
            2..=SHOWN_RUN => (
                format!("unexpected characters {}", shown(run)),
                "Cove does not use these characters here",
            ),
            _ => {
                let first: String = run.chars().take(SHOWN_RUN).collect();
                (
                    format!(
                        "{count} unexpected characters in a row, starting with {}",
                        shown(&first)
                    ),
                    "Cove does not use these characters here",
                )
            }
        };
        let mut d = Pending::new("E0001", start..self.pos, message, label);
        if run.contains(';') {
            d = d.help("statements end at the end of the line; remove the `;`");
        } else if run.contains('\'') {
            d = d.help("strings are written in double quotes: \"text\"");
        }
        self.report(d);
    }

    fn punct(&mut self, c: u8) {
        let start = self.pos;
        if self.not_in_cove(c) {
            return;
        }
        let two = [c, self.peek(1)];
        let three = [c, self.peek(1), self.peek(2)];
        let (tok, len) = match &two {
            b"<<" if &three == b"<<=" => (Tok::ShlEq, 3),
            b">>" if &three == b">>=" => (Tok::ShrEq, 3),
            b"->" => (Tok::Arrow, 2),
            b"=>" => (Tok::FatArrow, 2),
            b".." => (Tok::DotDot, 2),
            b"<<" => (Tok::Shl, 2),
            b">>" => (Tok::Shr, 2),
            b"&&" => (Tok::AndAnd, 2),
            b"||" => (Tok::OrOr, 2),
            b"==" => (Tok::EqEq, 2),
            b"!=" => (Tok::NotEq, 2),
            b"<=" => (Tok::Le, 2),
            b">=" => (Tok::Ge, 2),
            b"+=" => (Tok::PlusEq, 2),
            b"-=" => (Tok::MinusEq, 2),
            b"*=" => (Tok::StarEq, 2),
            b"/=" => (Tok::SlashEq, 2),
            b"%=" => (Tok::PercentEq, 2),
            b"&=" => (Tok::AmpEq, 2),
            b"|=" => (Tok::PipeEq, 2),
            b"^=" => (Tok::CaretEq, 2),
            _ => {
                let tok = match c {
                    b'(' => Tok::LParen,
                    b')' => Tok::RParen,
                    b'[' => Tok::LBrack,
                    b']' => Tok::RBrack,
                    b'{' => Tok::LBrace,
                    b'}' => Tok::RBrace,
                    b',' => Tok::Comma,
                    b':' => Tok::Colon,
                    b'.' => Tok::Dot,
                    b'+' => Tok::Plus,
                    b'-' => Tok::Minus,
                    b'*' => Tok::Star,
                    b'/' => Tok::Slash,
                    b'%' => Tok::Percent,
                    b'&' => Tok::Amp,
                    b'|' => Tok::Pipe,
                    b'^' => Tok::Caret,
                    b'!' => Tok::Bang,
                    b'=' => Tok::Assign,
                    b'<' => Tok::Lt,
                    b'>' => Tok::Gt,
                    _ => {
                        self.stray(start);
                        return;
                    }
                };
                (tok, 1)
            }
        };
        self.pos += len;
        match tok {
            Tok::LParen => self.open(b'(', start),
            Tok::LBrack => self.open(b'[', start),
            Tok::LBrace => self.open(b'{', start),
            Tok::RParen | Tok::RBrack => self.close_brace_left_open(&tok, start),
            _ => {}
        }
        match tok {
            Tok::RParen | Tok::RBrack | Tok::RBrace => {
                self.brackets.pop();
                self.bracket_starts.pop();
            }
            _ => {}
        }
        self.push(tok, start);
    }

    fn open(&mut self, bracket: u8, at: usize) {
        self.brackets.push(bracket);
        self.bracket_starts.push(at);
    }

    /// A `)` or `]` while a `{` is the innermost open bracket and the one
    /// it closes is just outside it: the `{` was left open
    /// (`xs.map(fn(x) { x * 2 )`). One error at the `{`, and the lexer
    /// closes it, so the `)` closes its call and the parser reads on.
    fn close_brace_left_open(&mut self, closer: &Tok, at: usize) {
        let n = self.brackets.len();
        let opener = if *closer == Tok::RParen { b'(' } else { b'[' };
        if n < 2 || self.brackets[n - 1] != b'{' || self.brackets[n - 2] != opener {
            return;
        }
        let brace = self.bracket_starts[n - 1];
        let found = if opener == b'(' { ")" } else { "]" };
        self.report(
            Pending::new(
                "E0010",
                brace..brace + 1,
                "this `{` is never closed",
                "opened here",
            )
            .help(format!("close it with `}}` before the `{found}`")),
        );
        self.brackets.pop();
        self.bracket_starts.pop();
        self.tokens.push(Token {
            tok: Tok::RBrace,
            span: at..at,
        });
    }

    /// A string literal, from its opening quote.
    fn string(&mut self) {
        let start = self.pos;
        self.pos += 1;
        let mut parts = Vec::new();
        let mut text = String::new();
        // Whether the string runs to the end of its line: then the rest of
        // the line is lost in it, and so are the closing brackets of what
        // the line opened (`println("abc`), which the lexer supplies so
        // that the one error is not followed by "expected `)`".
        let mut unclosed = false;
        loop {
            if self.pos >= self.end || self.src[self.pos] == b'\n' {
                self.report(
                    Pending::new(
                        "E0002",
                        start..start + 1,
                        "this string is never closed",
                        "the string starts here",
                    )
                    .help("add a `\"` where the string should end; a line break inside a string is written `\\n`"),
                );
                unclosed = true;
                break;
            }
            let c = self.src[self.pos];
            match c {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    let at = self.pos;
                    let next = self.peek(1);
                    let unescaped = match next {
                        b'n' => Some('\n'),
                        b't' => Some('\t'),
                        b'r' => Some('\r'),
                        b'0' => Some('\0'),
                        b'\\' => Some('\\'),
                        b'"' => Some('"'),
                        b'{' => Some('{'),
                        b'}' => Some('}'),
                        _ => None,
                    };
                    match unescaped {
                        Some(ch) => {
                            text.push(ch);
                            self.pos += 2;
                        }
                        None => {
                            let len = self.text[at + 1..]
                                .chars()
                                .next()
                                .map_or(1, |c| c.len_utf8() + 1);
                            self.pos = (at + len).min(self.end);
                            self.report(
                                Pending::new(
                                    "E0003",
                                    at..self.pos,
                                    format!(
                                        "unknown escape `{}` in a string",
                                        &self.text[at..self.pos]
                                    ),
                                    "not an escape Cove knows",
                                )
                                .help("the escapes are \\n \\t \\r \\0 \\\\ \\\" \\{ \\}"),
                            );
                        }
                    }
                }
                b'{' => {
                    if !text.is_empty() {
                        parts.push(StrPart::Text(std::mem::take(&mut text)));
                    }
                    let open = self.pos;
                    self.pos += 1;
                    let code_start = self.pos;
                    if !self.skip_code() {
                        self.report(
                            Pending::new(
                                "E0002",
                                open..open + 1,
                                "this interpolation `{` is never closed",
                                "opened here",
                            )
                            .help("close it with `}`, or write `\\{` for a literal brace"),
                        );
                        // Read on after the string's closing quote on this
                        // line, when it has one, so that what follows the
                        // string (the `)` of a call, say) is not lost with
                        // it and reported again. Without one, the string
                        // runs to the end of its line.
                        match self.string_end_after(open) {
                            Some(quote) => self.pos = quote + 1,
                            None => unclosed = true,
                        }
                        break;
                    }
                    let code_end = self.pos;
                    self.pos += 1;
                    if self.text[code_start..code_end].trim().is_empty() {
                        self.report(
                            Pending::new(
                                "E0005",
                                open..self.pos,
                                "empty interpolation `{}` in a string",
                                "an expression goes between the braces",
                            )
                            .help("write `\\{\\}` for literal braces"),
                        );
                    } else {
                        parts.push(StrPart::Code(code_start..code_end));
                    }
                }
                _ => {
                    let ch = self.text[self.pos..].chars().next().unwrap_or('?');
                    text.push(ch);
                    self.pos += ch.len_utf8();
                }
            }
        }
        if !text.is_empty() || parts.is_empty() {
            parts.push(StrPart::Text(text));
        }
        self.push(Tok::Str(parts), start);
        if unclosed {
            self.close_line_brackets();
        }
    }

    /// Closes the `(` and `[` the current line opened, innermost first, with
    /// empty tokens at `pos`; a `{` stops it, since a block may go on over
    /// the following lines.
    fn close_line_brackets(&mut self) {
        while self.brackets.len() > self.line_depth {
            let tok = match self.brackets.last() {
                Some(b'(') => Tok::RParen,
                Some(b'[') => Tok::RBrack,
                _ => break,
            };
            self.brackets.pop();
            self.bracket_starts.pop();
            let at = self.pos;
            self.tokens.push(Token { tok, span: at..at });
        }
    }

    /// Skips the code of an interpolation up to its closing `}` (left at
    /// `pos`), stepping over nested braces and string literals. False if
    /// the line or the source ends first.
    fn skip_code(&mut self) -> bool {
        let mut depth = 0usize;
        while self.pos < self.end {
            match self.src[self.pos] {
                b'{' => depth += 1,
                b'}' if depth == 0 => return true,
                b'}' => depth -= 1,
                b'\n' => return false,
                b'"' => {
                    self.pos += 1;
                    while self.pos < self.end && self.src[self.pos] != b'"' {
                        if self.src[self.pos] == b'\\' {
                            self.pos += 1;
                        } else if self.src[self.pos] == b'\n' {
                            return false;
                        }
                        self.pos += 1;
                    }
                    if self.pos >= self.end {
                        return false;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        false
    }

    /// For an interpolation opened at `open` and never closed, the quote
    /// that most likely ends its string: the first one on the line (not
    /// escaped) with code before it (from the `{`) that is not blank and
    /// holds whole string literals, an even number of quotes. So
    /// `"a {x b"`, `f("{x", "y")` and `"{"a""` each end where their writer
    /// meant, and what follows reads on.
    fn string_end_after(&self, open: usize) -> Option<usize> {
        let line_end = self.text[open..self.end]
            .find('\n')
            .map_or(self.end, |i| open + i);
        let mut quotes = 0usize;
        let mut i = open + 1;
        while i < line_end {
            match self.src[i] {
                b'\\' => i += 1,
                b'"' => {
                    if quotes % 2 == 0 && !self.text[open + 1..i].trim().is_empty() {
                        return Some(i);
                    }
                    quotes += 1;
                }
                _ => {}
            }
            i += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ascii_character_ends_a_run_of_unexpected_ones_exactly_when_the_lexer_uses_it() {
        for byte in 0u8..128 {
            let c = char::from(byte);
            let source = c.to_string();
            let mut errors = Vec::new();
            lex(&source, 0..source.len(), &mut errors);
            let unexpected = errors.iter().any(|d| d.code == "E0001");
            assert_eq!(starts_token(c), !unexpected, "{c:?}: {errors:?}");
        }
    }
}
