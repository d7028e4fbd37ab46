//! The parser of the printed form: text back to a [`Program`].
//!
//! [`program`] reads what [`crate::print::program`] writes (the form is
//! described there) and gives back an equal program, so that printing,
//! parsing and printing again gives the same text. That makes the text a
//! way to write programs in tests — a verifier test can say in six lines
//! the malformed function it rejects — and to store a program readably.
//!
//! For text written by hand, two things may be left out: the `type` lines
//! of the five basic types (when a program has no `type` line at all, its
//! type table is `()`, `Bool`, `Int`, `Float`, `String`), and the `line`
//! directives (instructions before the first one come from line 0).
//!
//! The parser checks the form, not the meaning: an operand must be of the
//! kind its opcode's position wants (`r3` where a register goes, `k2` where
//! a constant goes), and the entries of each table must be numbered in
//! order, but a register past the function's count or a constant the pool
//! does not have is the verifier's business ([`crate::verify`]), so that a
//! malformed program can be written down in order to test that it is
//! rejected. Every error carries the line and column where it was found.
//!
//! # Cost
//!
//! One pass over the lines, a `Vec` of tokens a line; a function named in
//! an operand by its qualified name is looked up once, after every function
//! is known, so calls may refer forward.

use std::fmt;

use crate::builtins::Builtin;
use crate::op::{Instr, Opcode, Operand, OperandKind, Reg};
use crate::program::{
    ConstId, Constant, EnumDef, Field, Function, FunctionId, Local, Module, Program, StructDef,
    Variant,
};
use crate::types::{EnumId, StructId, Type, TypeId};

/// Why a text is not a program, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The 1-based line.
    pub line: u32,
    /// The 1-based column, in characters.
    pub column: u32,
    /// What is wrong, in a sentence.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Reads a program in the printed form.
pub fn program(text: &str) -> Result<Program, ParseError> {
    // The printed form lists every type, the basic five too.
    let mut program = Program::new();
    program.types.clear();
    let mut parser = Parser {
        program,
        section: Section::None,
        fixups: Vec::new(),
        saw_type: false,
    };
    for (i, line) in text.split('\n').enumerate() {
        parser.line(i as u32 + 1, line)?;
    }
    parser.close_section()?;
    parser.finish()
}

/// Reads one instruction, `add.int r2, r2, r1`, naming functions against
/// `program`. Handy in tests; a leading `@pc` is allowed and ignored.
pub fn instr(program: &Program, text: &str) -> Result<Instr, ParseError> {
    let mut cursor = Cursor::new(1, text)?;
    if cursor.peek().is_some_and(|w| w.starts_with('@')) {
        cursor.word("a pc")?;
    }
    let parsed = instruction(&mut cursor)?;
    let mut operands = parsed.operands;
    for (position, name, column) in parsed.names {
        operands[position] =
            Operand::Func(resolve(program, &name).map_err(|message| ParseError {
                line: 1,
                column,
                message,
            })?);
    }
    Instr::from_operands(parsed.opcode, &operands).map_err(|message| ParseError {
        line: 1,
        column: 1,
        message,
    })
}

/// The function a qualified name in an operand denotes.
fn resolve(program: &Program, name: &str) -> Result<FunctionId, String> {
    let mut found = program
        .functions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.qualified == name);
    match (found.next(), found.next()) {
        (Some((i, _)), None) => Ok(FunctionId(i as u32)),
        (None, _) => Err(format!("no function is named `{name}`")),
        (Some(_), Some(_)) => Err(format!(
            "more than one function is named `{name}`: write it by number, `f3`"
        )),
    }
}

/// What the lines being read belong to.
enum Section {
    None,
    Module { index: usize, ended: bool },
    Struct(usize),
    Enum(usize),
    Function(FunctionState),
}

/// A function being read: what its header said that is only settled at its
/// end.
struct FunctionState {
    index: usize,
    /// `refs r1 r2`: the registers named, with where.
    refs: Option<Vec<(u16, u32, u32)>>,
    /// `refmap nrr`: the whole map.
    refmap: Option<Vec<bool>>,
    /// Whether a `lines` table was given, instead of `line` directives.
    explicit_lines: bool,
    /// Whether a `line` directive was seen.
    saw_directive: bool,
    /// The line the next instruction comes from.
    current_line: u32,
}

/// A function named by its qualified name in an operand, resolved at the end.
struct Fixup {
    function: usize,
    pc: usize,
    position: usize,
    name: String,
    line: u32,
    column: u32,
}

struct Parser {
    program: Program,
    section: Section,
    fixups: Vec<Fixup>,
    saw_type: bool,
}

impl Parser {
    fn line(&mut self, number: u32, raw: &str) -> Result<(), ParseError> {
        let trimmed = raw.trim_start_matches([' ', '\t']);
        let indent = (raw.len() - trimmed.len()) as u32;
        if let Some(rest) = trimmed.strip_prefix('|') {
            return self.source_line(number, indent + 1, rest);
        }
        if trimmed.starts_with('\\') {
            return self.no_newline(number, indent + 1);
        }
        let mut cursor = Cursor::new(number, raw)?;
        let Some(keyword) = cursor.peek().map(str::to_string) else {
            return Ok(());
        };
        match keyword.as_str() {
            "module" | "const" | "type" | "struct" | "enum" | "fn" => {
                self.close_section()?;
                cursor.word("a keyword")?;
                match keyword.as_str() {
                    "module" => self.module(&mut cursor),
                    "const" => self.constant(&mut cursor),
                    "type" => self.ty(&mut cursor),
                    "struct" => self.structure(&mut cursor),
                    "enum" => self.enumeration(&mut cursor),
                    _ => self.function(&mut cursor),
                }
            }
            _ => match &mut self.section {
                Section::Struct(index) => {
                    let index = *index;
                    cursor.keyword("field")?;
                    let name = cursor.name("a field name")?;
                    let ty = TypeId(cursor.number_with("t", "a type, `t2`")?);
                    cursor.end()?;
                    self.program.structs[index].fields.push(Field { name, ty });
                    Ok(())
                }
                Section::Enum(index) => {
                    let index = *index;
                    cursor.keyword("variant")?;
                    let name = cursor.name("a variant name")?;
                    let mut fields = Vec::new();
                    while cursor.peek().is_some() {
                        fields.push(TypeId(cursor.number_with("t", "a type, `t2`")?));
                    }
                    self.program.enums[index]
                        .variants
                        .push(Variant { name, fields });
                    Ok(())
                }
                Section::Function(state) => {
                    function_line(&mut self.program, state, &mut self.fixups, &mut cursor)
                }
                Section::Module { .. } | Section::None => Err(cursor.error_here(format!(
                    "expected `module`, `const`, `type`, `struct`, `enum` or `fn`, not `{keyword}`"
                ))),
            },
        }
    }

    fn source_line(&mut self, number: u32, column: u32, rest: &str) -> Result<(), ParseError> {
        let Section::Module { index, ended } = self.section else {
            return Err(error(
                number,
                column,
                "a source line (`|`) belongs under a `module` line",
            ));
        };
        if ended {
            return Err(error(
                number,
                column,
                "a source line after `\\ no newline at end of source`",
            ));
        }
        let text = rest.strip_prefix(' ').unwrap_or(rest);
        let source = &mut self.program.modules[index].source;
        source.push_str(text);
        source.push('\n');
        Ok(())
    }

    fn no_newline(&mut self, number: u32, column: u32) -> Result<(), ParseError> {
        match &mut self.section {
            Section::Module { index, ended } if !*ended => {
                let source = &mut self.program.modules[*index].source;
                if source.pop().is_none() {
                    return Err(error(
                        number,
                        column,
                        "`\\ no newline at end of source` follows no source line",
                    ));
                }
                *ended = true;
                Ok(())
            }
            _ => Err(error(
                number,
                column,
                "`\\ no newline at end of source` belongs after a module's last source line",
            )),
        }
    }

    fn module(&mut self, cursor: &mut Cursor) -> Result<(), ParseError> {
        let name = cursor.name("a module name")?;
        let path = cursor.string("the module's path, quoted")?;
        cursor.end()?;
        self.program.modules.push(Module {
            name,
            path,
            source: String::new(),
        });
        self.section = Section::Module {
            index: self.program.modules.len() - 1,
            ended: false,
        };
        Ok(())
    }

    fn constant(&mut self, cursor: &mut Cursor) -> Result<(), ParseError> {
        cursor.numbered("k", self.program.constants.len(), "constant")?;
        let kind = cursor.word("`int`, `float` or `str`")?;
        let constant = match kind.as_str() {
            "int" => Constant::Int(cursor.parsed("an integer")?),
            "float" if cursor.peek() == Some("bits") => {
                cursor.word("bits")?;
                let column = cursor.column();
                let word = cursor.word("the float's bits, `0x7ff8000000000000`")?;
                let bits = word
                    .strip_prefix("0x")
                    .and_then(|hex| u64::from_str_radix(hex, 16).ok())
                    .ok_or_else(|| {
                        cursor.error_at(column, format!("`{word}` is not `0x` and hex digits"))
                    })?;
                Constant::Float(f64::from_bits(bits))
            }
            "float" => Constant::Float(cursor.parsed("a float")?),
            "str" => Constant::Str(cursor.string("a quoted string")?),
            "fn" => {
                let word = cursor.word("a function, `f3`")?;
                match prefixed(&word, "f") {
                    Some(id) => Constant::Function(FunctionId(id)),
                    None => {
                        return Err(cursor.error_before(format!(
                            "a function constant names its function as `f3`, not `{word}`"
                        )));
                    }
                }
            }
            other => {
                return Err(cursor.error_before(format!(
                    "a constant is `int`, `float`, `str` or `fn`, not `{other}`"
                )));
            }
        };
        cursor.end()?;
        self.program.constants.push(constant);
        Ok(())
    }

    fn ty(&mut self, cursor: &mut Cursor) -> Result<(), ParseError> {
        self.saw_type = true;
        cursor.numbered("t", self.program.types.len(), "type")?;
        let shape = cursor.word("a type shape, `Int` or `List t2`")?;
        fn t(cursor: &mut Cursor) -> Result<TypeId, ParseError> {
            cursor.number_with("t", "a type, `t2`").map(TypeId)
        }
        let ty = match shape.as_str() {
            "Unit" => Type::Unit,
            "Bool" => Type::Bool,
            "Int" => Type::Int,
            "Float" => Type::Float,
            "String" => Type::Str,
            "List" => Type::List(t(cursor)?),
            "Map" => Type::Map(t(cursor)?, t(cursor)?),
            "Option" => Type::Option(t(cursor)?),
            "Task" => Type::Task(t(cursor)?),
            "Channel" => Type::Channel(t(cursor)?),
            "Struct" => Type::Struct(StructId(cursor.number_with("s", "a struct, `s0`")?)),
            "Enum" => Type::Enum(EnumId(cursor.number_with("e", "an enum, `e0`")?)),
            "Fn" => {
                let count: u32 = cursor.number_with("", "a parameter count")?;
                let mut params = Vec::new();
                for _ in 0..count.min(u16::MAX as u32) {
                    params.push(t(cursor)?);
                }
                Type::Func(params, t(cursor)?)
            }
            other => return Err(cursor.error_before(format!("`{other}` is not a type shape"))),
        };
        cursor.end()?;
        self.program.types.push(ty);
        Ok(())
    }

    /// `NAME in MODULE [export]`, the rest of a struct, enum or fn line.
    fn owner(cursor: &mut Cursor) -> Result<(String, String, bool), ParseError> {
        let name = cursor.name("a name")?;
        cursor.keyword("in")?;
        let module = cursor.name("a module name")?;
        let exported = cursor.peek() == Some("export");
        if exported {
            cursor.word("export")?;
        }
        cursor.end()?;
        Ok((name, module, exported))
    }

    fn structure(&mut self, cursor: &mut Cursor) -> Result<(), ParseError> {
        cursor.numbered("s", self.program.structs.len(), "struct")?;
        let (name, module, exported) = Parser::owner(cursor)?;
        self.program.structs.push(StructDef {
            name,
            module,
            exported,
            fields: Vec::new(),
        });
        self.section = Section::Struct(self.program.structs.len() - 1);
        Ok(())
    }

    fn enumeration(&mut self, cursor: &mut Cursor) -> Result<(), ParseError> {
        cursor.numbered("e", self.program.enums.len(), "enum")?;
        let (name, module, exported) = Parser::owner(cursor)?;
        self.program.enums.push(EnumDef {
            name,
            module,
            exported,
            variants: Vec::new(),
        });
        self.section = Section::Enum(self.program.enums.len() - 1);
        Ok(())
    }

    fn function(&mut self, cursor: &mut Cursor) -> Result<(), ParseError> {
        cursor.numbered("f", self.program.functions.len(), "function")?;
        let (name, module, exported) = Parser::owner(cursor)?;
        let mut f = Function::new(&module, &name);
        f.exported = exported;
        self.program.functions.push(f);
        self.section = Section::Function(FunctionState {
            index: self.program.functions.len() - 1,
            refs: None,
            refmap: None,
            explicit_lines: false,
            saw_directive: false,
            current_line: 0,
        });
        Ok(())
    }

    /// Settles what the section being left could not settle line by line.
    fn close_section(&mut self) -> Result<(), ParseError> {
        if let Section::Function(state) = std::mem::replace(&mut self.section, Section::None) {
            let f = &mut self.program.functions[state.index];
            if let Some(map) = state.refmap {
                f.refs = map;
            } else {
                f.refs = vec![false; f.registers as usize];
                for (r, line, column) in state.refs.unwrap_or_default() {
                    match f.refs.get_mut(r as usize) {
                        Some(slot) => *slot = true,
                        None => {
                            return Err(error(
                                line,
                                column,
                                &format!(
                                    "`refs` names r{r}, but the function has {} registers \
                                     (use `refmap` for a map of another length)",
                                    f.registers
                                ),
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Program, ParseError> {
        if !self.saw_type {
            self.program.types = Program::new().types;
        }
        for fixup in std::mem::take(&mut self.fixups) {
            let id = resolve(&self.program, &fixup.name)
                .map_err(|message| error(fixup.line, fixup.column, &message))?;
            let instr = &mut self.program.functions[fixup.function].code[fixup.pc];
            let mut operands = instr.operands();
            operands[fixup.position] = Operand::Func(id);
            *instr = Instr::from_operands(instr.opcode(), &operands)
                .map_err(|message| error(fixup.line, fixup.column, &message))?;
        }
        Ok(self.program)
    }
}

/// One line inside a `fn` section.
fn function_line(
    program: &mut Program,
    state: &mut FunctionState,
    fixups: &mut Vec<Fixup>,
    cursor: &mut Cursor,
) -> Result<(), ParseError> {
    let column = cursor.column();
    let keyword = cursor.word("a function line")?;
    let f = &mut program.functions[state.index];
    match keyword.as_str() {
        "qualified" => f.qualified = cursor.name("the qualified name")?,
        "params" => {
            f.params.clear();
            while cursor.peek().is_some() {
                f.params
                    .push(TypeId(cursor.number_with("t", "a type, `t2`")?));
            }
        }
        "result" => f.result = TypeId(cursor.number_with("t", "a type, `t2`")?),
        "registers" => f.registers = cursor.parsed("a register count")?,
        "refs" => {
            let mut named = Vec::new();
            while cursor.peek().is_some() {
                let column = cursor.column();
                let r: u16 = cursor.number_with("r", "a register, `r3`")?;
                named.push((r, cursor.line, column));
            }
            state.refs = Some(named);
        }
        "refmap" => {
            let mut map = Vec::new();
            if cursor.peek().is_some() {
                let column = cursor.column();
                for c in cursor.word("the reference map, `nrr`")?.chars() {
                    match c {
                        'n' => map.push(false),
                        'r' => map.push(true),
                        _ => {
                            return Err(cursor.error_at(
                                column,
                                "a reference map is `n` (num) and `r` (ref), one a register"
                                    .to_string(),
                            ));
                        }
                    }
                }
            }
            state.refmap = Some(map);
        }
        "local" => {
            let name = cursor.name("the local's name")?;
            let ty = TypeId(cursor.number_with("t", "a type, `t2`")?);
            let register = Reg(cursor.number_with("r", "a register, `r3`")?);
            let column = cursor.column();
            let range = cursor.word("the live range, `@0..@9`")?;
            let bad =
                || cursor.error_at(column, format!("`{range}` is not a live range, `@0..@9`"));
            let (start, end) = range.split_once("..").ok_or_else(bad)?;
            let pc = |s: &str| s.strip_prefix('@').and_then(digits::<u32>);
            let live = pc(start).ok_or_else(bad)?..pc(end).ok_or_else(bad)?;
            f.locals.push(Local {
                name,
                ty,
                register,
                live,
            });
        }
        "lines" => {
            if state.saw_directive || !f.code.is_empty() {
                return Err(cursor.error_at(
                    column,
                    "a `lines` table goes before the code, instead of `line` directives"
                        .to_string(),
                ));
            }
            while cursor.peek().is_some() {
                let line = cursor.parsed("a line number")?;
                f.lines.push(line);
            }
            state.explicit_lines = true;
        }
        "line" => {
            if state.explicit_lines {
                return Err(cursor.error_at(
                    column,
                    "a `line` directive in a function with a `lines` table".to_string(),
                ));
            }
            state.current_line = cursor.parsed("a line number")?;
            state.saw_directive = true;
            // The source text after `|` is for the reader.
            return Ok(());
        }
        at if at.starts_with('@') => {
            let pc = at.strip_prefix('@').and_then(digits::<usize>);
            if pc != Some(f.code.len()) {
                return Err(cursor.error_at(
                    column,
                    format!("expected the next pc, `@{}`, not `{at}`", f.code.len()),
                ));
            }
            let parsed = instruction(cursor)?;
            for (position, name, column) in parsed.names {
                fixups.push(Fixup {
                    function: state.index,
                    pc: f.code.len(),
                    position,
                    name,
                    line: cursor.line,
                    column,
                });
            }
            let instr = Instr::from_operands(parsed.opcode, &parsed.operands)
                .map_err(|message| cursor.error_at(column, message))?;
            f.code.push(instr);
            if !state.explicit_lines {
                f.lines.push(state.current_line);
            }
        }
        other => {
            return Err(cursor.error_at(
                column,
                format!(
                    "expected `params`, `result`, `registers`, `refs`, `local`, `line` or an \
                     instruction `@pc`, not `{other}`"
                ),
            ));
        }
    }
    cursor.end()
}

/// An instruction read from a line: the opcode, its operands, and the
/// positions of functions named by name (their operand is a placeholder).
struct Parsed {
    opcode: Opcode,
    operands: Vec<Operand>,
    names: Vec<(usize, String, u32)>,
}

/// Reads `mnemonic op, op, ...` to the end of the line.
fn instruction(cursor: &mut Cursor) -> Result<Parsed, ParseError> {
    let column = cursor.column();
    let mnemonic = cursor.word("a mnemonic, `add.int`")?;
    let opcode = Opcode::from_mnemonic(&mnemonic)
        .ok_or_else(|| cursor.error_at(column, format!("`{mnemonic}` is not an opcode")))?;
    let mut operands = Vec::new();
    let mut names = Vec::new();
    for (i, kind) in opcode.operand_kinds().iter().enumerate() {
        if i > 0 {
            cursor.comma()?;
        }
        let column = cursor.column();
        let word = cursor.word(&format!("operand {} of `{mnemonic}`", i + 1))?;
        let at = |what: &str| {
            cursor.error_at(
                column,
                format!("operand {} of `{mnemonic}` is {what}, not `{word}`", i + 1),
            )
        };
        let operand = match kind {
            OperandKind::DstNum
            | OperandKind::DstRef
            | OperandKind::DstAny
            | OperandKind::SrcNum
            | OperandKind::SrcRef
            | OperandKind::SrcAny
            | OperandKind::Base => Operand::Reg(Reg(
                prefixed(&word, "r").ok_or_else(|| at("a register, `r3`"))?
            )),
            OperandKind::Count => Operand::Count(digits(&word).ok_or_else(|| at("a count"))?),
            OperandKind::Imm => {
                Operand::Imm(word.parse().map_err(|_| at("a 32-bit signed immediate"))?)
            }
            OperandKind::Offset => {
                Operand::Offset(word.parse().map_err(|_| at("an 8-bit signed offset"))?)
            }
            OperandKind::Divisor => {
                Operand::Divisor(word.parse().map_err(|_| at("a 16-bit signed divisor"))?)
            }
            OperandKind::Const => Operand::Const(ConstId(
                prefixed(&word, "k").ok_or_else(|| at("a constant, `k2`"))?,
            )),
            OperandKind::Target => {
                Operand::Target(prefixed(&word, "@").ok_or_else(|| at("a target, `@12`"))?)
            }
            OperandKind::Func => match prefixed(&word, "f") {
                Some(id) => Operand::Func(FunctionId(id)),
                None if crate::print::is_dotted_identifier(&word) => {
                    names.push((i, word.clone(), column));
                    Operand::Func(FunctionId(u32::MAX))
                }
                None => return Err(at("a function, `m.main` or `f3`")),
            },
            OperandKind::Builtin => Operand::Builtin(
                Builtin::from_label(&word).ok_or_else(|| at("a builtin, `String.length`"))?,
            ),
            OperandKind::Type => Operand::Type(TypeId(
                prefixed(&word, "t").ok_or_else(|| at("a type, `t2`"))?,
            )),
            OperandKind::Struct => Operand::Struct(StructId(
                prefixed(&word, "s").ok_or_else(|| at("a struct, `s0`"))?,
            )),
            OperandKind::Enum => Operand::Enum(EnumId(
                prefixed(&word, "e").ok_or_else(|| at("an enum, `e0`"))?,
            )),
            OperandKind::Index => {
                Operand::Index(prefixed(&word, "#").ok_or_else(|| at("an index, `#1`"))?)
            }
        };
        operands.push(operand);
    }
    cursor.end()?;
    Ok(Parsed {
        opcode,
        operands,
        names,
    })
}

/// `word` without `prefix`, read as decimal digits.
fn prefixed<T: std::str::FromStr>(word: &str, prefix: &str) -> Option<T> {
    word.strip_prefix(prefix).and_then(digits)
}

/// A number written in decimal digits alone (no sign, no `+`).
fn digits<T: std::str::FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn error(line: u32, column: u32, message: &str) -> ParseError {
    ParseError {
        line,
        column,
        message: message.to_string(),
    }
}

/// A token of a line.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// A run of characters other than white space, `,`, `;`, `|` and `"`.
    Word(String),
    /// A quoted string, unescaped.
    Str(String),
    /// `,`
    Comma,
}

/// The tokens of one line and a position among them.
struct Cursor {
    line: u32,
    tokens: Vec<(Tok, u32)>,
    next: usize,
    /// The column just past the last token, for "expected ... at the end".
    end_column: u32,
}

impl Cursor {
    /// Splits a line into tokens; `;` and `|` end the tokens (a comment, or
    /// the source text after a `line` directive).
    fn new(line: u32, text: &str) -> Result<Cursor, ParseError> {
        let chars: Vec<char> = text.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        let mut end = 0;
        while i < chars.len() {
            let c = chars[i];
            let column = i as u32 + 1;
            if c.is_whitespace() {
                i += 1;
            } else if c == ';' || c == '|' {
                break;
            } else if c == ',' {
                tokens.push((Tok::Comma, column));
                i += 1;
                end = i;
            } else if c == '"' {
                let (s, next) = unquote(&chars, i, line)?;
                tokens.push((Tok::Str(s), column));
                i = next;
                end = i;
            } else {
                let start = i;
                while i < chars.len()
                    && !chars[i].is_whitespace()
                    && !matches!(chars[i], ',' | ';' | '|' | '"')
                {
                    i += 1;
                }
                tokens.push((Tok::Word(chars[start..i].iter().collect()), column));
                end = i;
            }
        }
        let end_column = end as u32 + 1;
        Ok(Cursor {
            line,
            tokens,
            next: 0,
            end_column,
        })
    }

    fn column(&self) -> u32 {
        self.tokens
            .get(self.next)
            .map_or(self.end_column, |(_, c)| *c)
    }

    fn peek(&self) -> Option<&str> {
        match self.tokens.get(self.next) {
            Some((Tok::Word(w), _)) => Some(w),
            Some((Tok::Str(_), _)) => Some("\""),
            Some((Tok::Comma, _)) => Some(","),
            None => None,
        }
    }

    fn error_at(&self, column: u32, message: String) -> ParseError {
        ParseError {
            line: self.line,
            column,
            message,
        }
    }

    fn error_here(&self, message: String) -> ParseError {
        self.error_at(self.column(), message)
    }

    /// An error at the token just read.
    fn error_before(&self, message: String) -> ParseError {
        let column = self
            .next
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or(1, |(_, c)| *c);
        self.error_at(column, message)
    }

    fn describe(&self) -> String {
        match self.tokens.get(self.next) {
            Some((Tok::Word(w), _)) => format!("`{w}`"),
            Some((Tok::Str(_), _)) => "a quoted string".to_string(),
            Some((Tok::Comma, _)) => "`,`".to_string(),
            None => "the end of the line".to_string(),
        }
    }

    fn word(&mut self, what: &str) -> Result<String, ParseError> {
        match self.tokens.get(self.next) {
            Some((Tok::Word(w), _)) => {
                let w = w.clone();
                self.next += 1;
                Ok(w)
            }
            _ => Err(self.error_here(format!("expected {what}, found {}", self.describe()))),
        }
    }

    fn string(&mut self, what: &str) -> Result<String, ParseError> {
        match self.tokens.get(self.next) {
            Some((Tok::Str(s), _)) => {
                let s = s.clone();
                self.next += 1;
                Ok(s)
            }
            _ => Err(self.error_here(format!("expected {what}, found {}", self.describe()))),
        }
    }

    /// A name: a bare word or a quoted string.
    fn name(&mut self, what: &str) -> Result<String, ParseError> {
        match self.tokens.get(self.next) {
            Some((Tok::Str(_), _)) => self.string(what),
            _ => self.word(what),
        }
    }

    fn keyword(&mut self, keyword: &str) -> Result<(), ParseError> {
        if self.peek() == Some(keyword) {
            self.next += 1;
            Ok(())
        } else {
            Err(self.error_here(format!("expected `{keyword}`, found {}", self.describe())))
        }
    }

    fn comma(&mut self) -> Result<(), ParseError> {
        match self.tokens.get(self.next) {
            Some((Tok::Comma, _)) => {
                self.next += 1;
                Ok(())
            }
            _ => Err(self.error_here(format!("expected `,`, found {}", self.describe()))),
        }
    }

    fn end(&self) -> Result<(), ParseError> {
        match self.tokens.get(self.next) {
            None => Ok(()),
            Some(_) => Err(self.error_here(format!(
                "expected the end of the line, found {}",
                self.describe()
            ))),
        }
    }

    /// A word parsed with `FromStr`.
    fn parsed<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, ParseError> {
        let column = self.column();
        let word = self.word(what)?;
        word.parse()
            .map_err(|_| self.error_at(column, format!("expected {what}, not `{word}`")))
    }

    /// `t2`, `s0`, ...: a prefix and decimal digits.
    fn number_with<T: std::str::FromStr>(
        &mut self,
        prefix: &str,
        what: &str,
    ) -> Result<T, ParseError> {
        let column = self.column();
        let word = self.word(what)?;
        word.strip_prefix(prefix)
            .and_then(digits)
            .ok_or_else(|| self.error_at(column, format!("expected {what}, not `{word}`")))
    }

    /// The index of a new table entry, which must be the next one.
    fn numbered(&mut self, prefix: &str, expected: usize, what: &str) -> Result<(), ParseError> {
        let column = self.column();
        let n: usize = self.number_with(prefix, &format!("the {what}'s number, `{prefix}0`"))?;
        if n != expected {
            return Err(self.error_at(
                column,
                format!("expected {what} `{prefix}{expected}` next, not `{prefix}{n}`"),
            ));
        }
        Ok(())
    }
}

/// Reads the quoted string starting at `chars[start]` (a `"`); returns it
/// and the index just past its closing quote.
fn unquote(chars: &[char], start: usize, line: u32) -> Result<(String, usize), ParseError> {
    let mut out = String::new();
    let mut i = start + 1;
    loop {
        let Some(&c) = chars.get(i) else {
            return Err(error(line, start as u32 + 1, "this string is not closed"));
        };
        let column = i as u32 + 1;
        i += 1;
        match c {
            '"' => return Ok((out, i)),
            '\\' => {
                let escape = chars.get(i).copied();
                i += 1;
                match escape {
                    Some('"') => out.push('"'),
                    Some('\\') => out.push('\\'),
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    Some('u') if chars.get(i) == Some(&'{') => {
                        let close = chars[i..].iter().position(|c| *c == '}');
                        let code = close.and_then(|n| {
                            let hex: String = chars[i + 1..i + n].iter().collect();
                            u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32)
                        });
                        match (code, close) {
                            (Some(c), Some(n)) => {
                                out.push(c);
                                i += n + 1;
                            }
                            _ => {
                                return Err(error(
                                    line,
                                    column,
                                    "`\\u{...}` must hold the hex code of a character",
                                ));
                            }
                        }
                    }
                    _ => {
                        return Err(error(
                            line,
                            column,
                            "unknown escape: use `\\\"`, `\\\\`, `\\n`, `\\t`, `\\r` or `\\u{..}`",
                        ));
                    }
                }
            }
            c => out.push(c),
        }
    }
}
