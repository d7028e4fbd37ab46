//! The printed form of a program: one instruction, a function, or a whole
//! program as text.
//!
//! [`one`] is what a profile row, a debugger prompt or a runtime error names
//! an instruction by: `m.main@7  add.int r2, r2, r1`. [`function`] and
//! [`program`] are listings with the source lines beside the code, and
//! [`program`]'s text is also a complete encoding of the [`Program`]:
//! [`crate::parse::program`] reads it back to an equal value, so tests can
//! write programs as text and a program can be saved and diffed.
//!
//! Every instruction is printed from [`Instr::operands`] and
//! [`Opcode::operand_kinds`](crate::op::Opcode::operand_kinds): there is no
//! per-opcode code here, so an opcode added to the table prints (and parses)
//! without touching this file.
//!
//! # The program form
//!
//! A program prints as sections, each opened by a line that starts with a
//! keyword and followed by indented lines that belong to it. `;` starts a
//! comment (outside a quoted string); the comments the printer writes, such
//! as the Cove spelling of a type, are for the reader and the parser ignores
//! them.
//!
//! ```text
//! module m "m.cove"             a module: its name and path, then its source,
//! | export fn main() -> Int {     one `|` line per source line
//! |   40 + 2                      (`\ no newline at end of source` if the
//! | }                             text does not end with one)
//! const k0 int 9000000000       the constant pool, in order: int, float, str
//! type t5 List t2               the type table, in order, every entry (t0..t4 too)
//! struct s0 Point in m export   a struct, then its fields
//!   field x t2
//! enum e0 Shape in m            an enum, then its variants and payload types
//!   variant Circle t3
//! fn f0 main in m export        a function: name, module, exported
//!   params t2                   parameter types (register i holds parameter i)
//!   result t2
//!   registers 3
//!   refs r1 r2                  the registers that hold references
//!   local total t2 r2 @1..@9    a local: name, type, register, live pcs
//!                               (a shadowed name's local may have several)
//!   line 2 | ...                the source line of the instructions below
//!   @0  load.int r2, 40         an instruction at its pc
//! ```
//!
//! Names that are not plain identifiers are quoted; a function's
//! `qualified` name is printed only when it is not `module.name`; a ref map
//! whose length is not the register count prints as `refmap` (one `n` or
//! `r` a register) and a line table whose length is not the code's as
//! `lines`, so even a malformed program prints faithfully — the verifier,
//! not the printer, is where it is rejected.
//!
//! # Cost
//!
//! Printing allocates a `String` an instruction; it is for listings, errors
//! and reports, never for a running program's hot path.
//!
//! A listing needs two facts of the whole program: the text of each source
//! line it shows, and whether the name of each function it calls is unique.
//! Found afresh, they are a walk of the module's source per line and a scan
//! of every function per call, which made printing a program of n functions
//! quadratic in n (and with it every profile report, which hashes the
//! printed program). A [`Printer`] finds both once, on first use: build one
//! to print many things of one program. The free functions [`one`],
//! [`instruction`] and [`operand`] print a single thing without it, at the
//! cost of one scan of the functions for each function they name.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use crate::op::{Instr, Operand};
use crate::program::{Constant, Function, FunctionId, Program};
use crate::types::Type;

/// A printer of one program: what its listings need of the whole program
/// (each module's source split into lines, how many functions bear each
/// qualified name), found once on first use and kept for every listing.
///
/// Building one costs nothing; the first listing that shows a source line
/// splits every module's source (linear in the source), and the first
/// that names a function counts the names (linear in the functions).
///
/// ```
/// use cove_ir::op::Instr;
/// use cove_ir::print::{self, Printer};
/// use cove_ir::program::{Function, Program};
///
/// let mut program = Program::new();
/// let mut main = Function::new("m", "main");
/// let r = main.add_register(false);
/// main.emit(Instr::LoadInt { dst: r, value: 42 }, 1);
/// main.emit(Instr::Return { src: r }, 1);
/// let id = program.add_function(main);
///
/// let printer = Printer::new(&program);
/// assert_eq!(printer.one(id, 0), "m.main@0  load.int r0, 42");
/// assert_eq!(printer.function(id), print::function(&program, id));
/// ```
#[derive(Debug)]
pub struct Printer<'p> {
    program: &'p Program,
    /// Every module's source lines, in the program's order of modules,
    /// and each module's index by name.
    sources: OnceLock<Sources<'p>>,
    /// How many functions bear each qualified name.
    names: OnceLock<HashMap<&'p str, u32>>,
}

/// The program's sources split into lines.
#[derive(Debug)]
struct Sources<'p> {
    lines: Vec<Vec<&'p str>>,
    modules: HashMap<&'p str, usize>,
}

impl<'p> Printer<'p> {
    /// A printer of `program`.
    pub fn new(program: &'p Program) -> Printer<'p> {
        Printer {
            program,
            sources: OnceLock::new(),
            names: OnceLock::new(),
        }
    }

    /// The program it prints.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    fn sources(&self) -> &Sources<'p> {
        self.sources.get_or_init(|| Sources {
            lines: self
                .program
                .modules
                .iter()
                .map(|m| m.source.lines().inspect(|_| walked::step()).collect())
                .collect(),
            modules: self
                .program
                .modules
                .iter()
                .enumerate()
                .map(|(i, m)| (m.name.as_str(), i))
                .collect(),
        })
    }

    /// The text of 1-based line `line` of the module named `module`,
    /// without its line ending, as [`Module::line_text`](crate::program::Module::line_text)
    /// finds it.
    pub fn line(&self, module: &str, line: u32) -> Option<&'p str> {
        let sources = self.sources();
        let index = *sources.modules.get(module)?;
        sources.lines[index]
            .get(line.checked_sub(1)? as usize)
            .copied()
    }

    /// The text of source line `line` of the module that defines
    /// `function`.
    pub fn function_line(&self, function: FunctionId, line: u32) -> Option<&'p str> {
        let f = self.program.functions.get(function.index())?;
        self.line(&f.module, line)
    }

    /// Whether exactly one function of the program is called `qualified`.
    fn unique(&self, qualified: &str) -> bool {
        let names = self.names.get_or_init(|| {
            let mut names = HashMap::new();
            for f in &self.program.functions {
                walked::step();
                *names.entry(f.qualified.as_str()).or_insert(0) += 1;
            }
            names
        });
        names.get(qualified) == Some(&1)
    }

    /// One instruction, named by its function and pc: see [`one`].
    pub fn one(&self, function: FunctionId, pc: u32) -> String {
        one_with(self.program, function, pc, &|q| self.unique(q))
    }

    /// An instruction without its location: see [`instruction`].
    pub fn instruction(&self, instr: &Instr) -> String {
        instruction_with(self.program, instr, &|q| self.unique(q))
    }

    /// One operand: see [`operand`].
    pub fn operand(&self, operand: &Operand) -> String {
        operand_with(self.program, operand, &|q| self.unique(q))
    }

    /// A whole function: see [`function`].
    pub fn function(&self, id: FunctionId) -> String {
        let mut out = String::new();
        match self.program.functions.get(id.index()) {
            Some(f) => self.write_function(&mut out, id, f),
            None => {
                let _ = writeln!(out, "; no function {id}");
            }
        }
        out
    }

    /// The whole program: see [`program`].
    pub fn whole(&self) -> String {
        write_program(self)
    }
}

/// How a name is asked whether one function alone bears it.
type Unique<'u> = &'u dyn Fn(&str) -> bool;

/// Whether exactly one function of `program` is called `qualified`, found
/// by a scan of every function: for the free functions, which print one
/// thing.
fn scan_unique(program: &Program, qualified: &str) -> bool {
    program
        .functions
        .iter()
        .inspect(|_| walked::step())
        .filter(|g| g.qualified == qualified)
        .count()
        == 1
}

/// A count of the source lines and functions the printer walks, in a test
/// build: what proves a listing linear in the program without timing it.
/// In any other build it is nothing.
mod walked {
    #[cfg(test)]
    thread_local! {
        static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// One source line split, or one function looked at.
    #[inline]
    pub(super) fn step() {
        #[cfg(test)]
        STEPS.with(|s| s.set(s.get() + 1));
    }

    /// The steps so far on this thread.
    #[cfg(test)]
    pub(super) fn steps() -> u64 {
        STEPS.with(|s| s.get())
    }
}

/// One instruction, named by its function and pc: `m.main@7  add.int r2, r2, r1`.
///
/// A pc past the end of the function, or an unknown function, prints as
/// `<no instruction>` rather than panicking: this is called from error paths.
pub fn one(program: &Program, function: FunctionId, pc: u32) -> String {
    one_with(program, function, pc, &|q| scan_unique(program, q))
}

fn one_with(program: &Program, function: FunctionId, pc: u32, unique: Unique<'_>) -> String {
    let name = program.function_name(function);
    match program
        .functions
        .get(function.index())
        .and_then(|f| f.code.get(pc as usize))
    {
        Some(instr) => format!("{name}@{pc}  {}", instruction_with(program, instr, unique)),
        None => format!("{name}@{pc}  <no instruction>"),
    }
}

/// An instruction without its location: `add.int r2, r2, r1`.
pub fn instruction(program: &Program, instr: &Instr) -> String {
    instruction_with(program, instr, &|q| scan_unique(program, q))
}

fn instruction_with(program: &Program, instr: &Instr, unique: Unique<'_>) -> String {
    let mut text = instr.opcode().mnemonic().to_string();
    for (i, o) in instr.operands().iter().enumerate() {
        text.push_str(if i == 0 { " " } else { ", " });
        text.push_str(&operand_with(program, o, unique));
    }
    text
}

/// One operand as the printed form writes it.
///
/// A function is written by its qualified name when that name is a dotted
/// identifier no other function of the program shares, and as `f3`
/// otherwise, so that the parser always finds the same function again.
pub fn operand(program: &Program, operand: &Operand) -> String {
    operand_with(program, operand, &|q| scan_unique(program, q))
}

fn operand_with(program: &Program, operand: &Operand, unique: Unique<'_>) -> String {
    match *operand {
        Operand::Reg(r) => r.to_string(),
        Operand::Count(n) => n.to_string(),
        Operand::Imm(v) => v.to_string(),
        Operand::Offset(v) => v.to_string(),
        Operand::Divisor(v) => v.to_string(),
        Operand::Const(k) => k.to_string(),
        Operand::Target(t) => format!("@{t}"),
        Operand::Func(f) => function_ref(program, f, unique),
        Operand::Builtin(b) => b.label(),
        Operand::Type(t) => t.to_string(),
        Operand::Struct(s) => format!("s{}", s.0),
        Operand::Enum(e) => format!("e{}", e.0),
        Operand::Index(i) => format!("#{i}"),
    }
}

/// How an operand names function `id`: see [`operand`].
fn function_ref(program: &Program, id: FunctionId, unique: Unique<'_>) -> String {
    if let Some(f) = program.functions.get(id.index()) {
        if is_dotted_identifier(&f.qualified) && unique(&f.qualified) {
            return f.qualified.clone();
        }
    }
    id.to_string()
}

/// Whether `text` is identifiers joined by dots, with at least one dot.
pub(crate) fn is_dotted_identifier(text: &str) -> bool {
    text.contains('.') && text.split('.').all(is_identifier)
}

/// Whether `text` is a plain identifier, printable without quotes.
pub(crate) fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A name as a header writes it: bare when it is an identifier, quoted
/// otherwise.
fn name(text: &str) -> String {
    if is_identifier(text) {
        text.to_string()
    } else {
        quote(text)
    }
}

/// `text` as a quoted string: `"`, `\` and control characters escaped,
/// everything else as it is.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A whole function: its header (parameters, result, registers, the
/// reference map, locals) and its code, with each source line printed
/// above the instructions that came from it.
///
/// To list many functions of one program, print them with one [`Printer`].
pub fn function(program: &Program, id: FunctionId) -> String {
    Printer::new(program).function(id)
}

impl Printer<'_> {
    fn write_function(&self, out: &mut String, id: FunctionId, f: &Function) {
        let program = self.program;
        let _ = write!(out, "fn {id} {} in {}", name(&f.name), name(&f.module));
        if f.exported {
            out.push_str(" export");
        }
        out.push('\n');
        if f.qualified != format!("{}.{}", f.module, f.name) {
            let _ = writeln!(out, "  qualified {}", quote(&f.qualified));
        }

        let mut params = String::from("  params");
        for p in &f.params {
            let _ = write!(params, " {p}");
        }
        let spelled: Vec<String> = f.params.iter().map(|p| program.type_name(*p)).collect();
        commented(out, &params, &format!("({})", spelled.join(", ")));
        commented(
            out,
            &format!("  result {}", f.result),
            &program.type_name(f.result),
        );
        let _ = writeln!(out, "  registers {}", f.registers);
        if f.refs.len() == f.registers as usize {
            out.push_str("  refs");
            for (r, is_ref) in f.refs.iter().enumerate() {
                if *is_ref {
                    let _ = write!(out, " r{r}");
                }
            }
        } else {
            out.push_str("  refmap ");
            out.extend(f.refs.iter().map(|r| if *r { 'r' } else { 'n' }));
        }
        out.push('\n');
        for local in &f.locals {
            commented(
                out,
                &format!(
                    "  local {} {} {} @{}..@{}",
                    name(&local.name),
                    local.ty,
                    local.register,
                    local.live.start,
                    local.live.end
                ),
                &program.type_name(local.ty),
            );
        }

        let directives = f.lines.len() == f.code.len();
        if !directives {
            out.push_str("  lines");
            for line in &f.lines {
                let _ = write!(out, " {line}");
            }
            out.push('\n');
        }
        let width = format!("@{}", f.code.len().saturating_sub(1)).len();
        let mut current = None;
        for (pc, instr) in f.code.iter().enumerate() {
            if directives && current != Some(f.lines[pc]) {
                let line = f.lines[pc];
                current = Some(line);
                match self.line(&f.module, line) {
                    Some(text) => {
                        let _ = writeln!(out, "  line {line} | {}", text.trim_end());
                    }
                    None => {
                        let _ = writeln!(out, "  line {line}");
                    }
                }
            }
            let at = format!("@{pc}");
            let _ = writeln!(out, "  {at:<width$}  {}", self.instruction(instr));
        }
    }
}

/// Writes `text`, then `; comment` at a column that lines comments up.
/// Control characters in the comment (a name may hold any) are replaced,
/// so a comment never spills onto a line of its own.
fn commented(out: &mut String, text: &str, comment: &str) {
    let comment: String = comment
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    let _ = writeln!(out, "{text:<32}; {comment}");
}

/// A whole program, in the form [`crate::parse::program`] reads back: see
/// the module documentation.
///
/// Linear in the program's size: it prints with one [`Printer`].
pub fn program(program: &Program) -> String {
    Printer::new(program).whole()
}

fn write_program(printer: &Printer<'_>) -> String {
    let program = printer.program;
    let mut out = String::from("; a Cove program, printed by cove_ir::print\n");

    for m in &program.modules {
        let _ = writeln!(out, "\nmodule {} {}", name(&m.name), quote(&m.path));
        if !m.source.is_empty() {
            let body = m.source.strip_suffix('\n').unwrap_or(&m.source);
            for line in body.split('\n') {
                if line.is_empty() {
                    out.push_str("|\n");
                } else {
                    let _ = writeln!(out, "| {line}");
                }
            }
            if !m.source.ends_with('\n') {
                out.push_str("\\ no newline at end of source\n");
            }
        }
    }

    if !program.constants.is_empty() {
        out.push('\n');
    }
    for (k, c) in program.constants.iter().enumerate() {
        let _ = writeln!(out, "const k{k} {}", constant(c));
    }

    out.push('\n');
    for (t, ty) in program.types.iter().enumerate() {
        let shape = match ty {
            Type::Unit => "Unit".to_string(),
            Type::Bool => "Bool".to_string(),
            Type::Int => "Int".to_string(),
            Type::Float => "Float".to_string(),
            Type::Str => "String".to_string(),
            Type::List(e) => format!("List {e}"),
            Type::Map(k, v) => format!("Map {k} {v}"),
            Type::Option(e) => format!("Option {e}"),
            Type::Struct(s) => format!("Struct s{}", s.0),
            Type::Enum(e) => format!("Enum e{}", e.0),
            Type::Task(e) => format!("Task {e}"),
            Type::Channel(e) => format!("Channel {e}"),
            Type::Func(params, result) => {
                let mut text = format!("Fn {}", params.len());
                for p in params {
                    text.push_str(&format!(" {p}"));
                }
                format!("{text} {result}")
            }
        };
        let line = format!("type t{t} {shape}");
        match ty {
            Type::Unit | Type::Bool | Type::Int | Type::Float | Type::Str => {
                let _ = writeln!(out, "{line}");
            }
            _ => commented(
                &mut out,
                &line,
                &program.type_name(crate::types::TypeId(t as u32)),
            ),
        }
    }

    for (s, def) in program.structs.iter().enumerate() {
        let _ = write!(
            out,
            "\nstruct s{s} {} in {}",
            name(&def.name),
            name(&def.module)
        );
        out.push_str(if def.exported { " export\n" } else { "\n" });
        for field in &def.fields {
            commented(
                &mut out,
                &format!("  field {} {}", name(&field.name), field.ty),
                &program.type_name(field.ty),
            );
        }
    }

    for (e, def) in program.enums.iter().enumerate() {
        let _ = write!(
            out,
            "\nenum e{e} {} in {}",
            name(&def.name),
            name(&def.module)
        );
        out.push_str(if def.exported { " export\n" } else { "\n" });
        for variant in &def.variants {
            let mut line = format!("  variant {}", name(&variant.name));
            for ty in &variant.fields {
                let _ = write!(line, " {ty}");
            }
            if variant.fields.is_empty() {
                let _ = writeln!(out, "{line}");
            } else {
                let spelled: Vec<String> = variant
                    .fields
                    .iter()
                    .map(|t| program.type_name(*t))
                    .collect();
                commented(&mut out, &line, &format!("({})", spelled.join(", ")));
            }
        }
    }

    for id in program.function_ids() {
        out.push('\n');
        printer.write_function(&mut out, id, program.function(id));
    }
    out
}

/// A constant as its `const` line writes it after the index.
fn constant(c: &Constant) -> String {
    match c {
        Constant::Int(v) => format!("int {v}"),
        // Rust prints the shortest text that parses back to the same bits,
        // except for NaN, whose payload it drops: NaN is written as bits.
        Constant::Float(v) if v.is_nan() => format!("float bits 0x{:016x}", v.to_bits()),
        Constant::Float(v) => format!("float {v:?}"),
        Constant::Str(s) => format!("str {}", quote(s)),
        Constant::Function(f) => format!("fn {f}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::Builtin;
    use crate::op::Reg;
    use crate::program::Function;

    /// A program of `n` one-line functions, each called once from a
    /// `main` on the last line, with its source: what a listing of many
    /// functions looks like.
    fn many_functions(n: u32) -> Program {
        let mut p = Program::new();
        let mut source = String::new();
        for i in 0..n {
            let _ = writeln!(source, "fn f{i}() -> Int {{ {i} }}");
            let mut f = Function::new("m", &format!("f{i}"));
            let r = f.add_register(false);
            f.emit(
                Instr::LoadInt {
                    dst: r,
                    value: i as i32,
                },
                i + 1,
            );
            f.emit(Instr::Return { src: r }, i + 1);
            p.add_function(f);
        }
        source.push_str("export fn main() -> Int { ... }\n");
        let mut main = Function::new("m", "main");
        let r = main.add_register(false);
        for i in 0..n {
            main.emit(
                Instr::Call {
                    dst: r,
                    func: FunctionId(i),
                    base: r,
                    count: 0,
                },
                n + 1,
            );
        }
        main.emit(Instr::Return { src: r }, n + 1);
        p.add_function(main);
        p.modules.push(crate::program::Module {
            name: "m".to_string(),
            path: "m.cove".to_string(),
            source,
        });
        p
    }

    /// The lines and functions printing `program` walks.
    fn steps_to_print(program: &Program) -> u64 {
        let before = walked::steps();
        let text = super::program(program);
        assert!(text.contains("fn f0 f0 in m"), "{text}");
        walked::steps() - before
    }

    #[test]
    fn printing_a_program_walks_each_source_line_and_each_function_once() {
        for n in [10, 100, 1000] {
            let program = many_functions(n);
            let lines = u64::from(n) + 1;
            let functions = u64::from(n) + 1;
            assert_eq!(
                steps_to_print(&program),
                lines + functions,
                "a program of {n} functions"
            );
        }
    }

    #[test]
    fn a_printer_lists_each_function_as_the_free_functions_do() {
        let program = many_functions(3);
        let printer = Printer::new(&program);
        for id in program.function_ids() {
            assert_eq!(printer.function(id), function(&program, id));
            for pc in 0..program.function(id).code.len() as u32 {
                assert_eq!(printer.one(id, pc), one(&program, id, pc));
            }
        }
        assert_eq!(printer.whole(), super::program(&program));
        let main = FunctionId(3);
        assert_eq!(printer.one(main, 1), "m.main@1  call r0, m.f1, r0, 0");
        assert_eq!(printer.line("m", 2), Some("fn f1() -> Int { 1 }"));
        assert_eq!(
            printer.function_line(main, 4),
            program.modules[0].line_text(4)
        );
        assert_eq!(printer.line("m", 0), None);
        assert_eq!(printer.line("m", 5), None);
        assert_eq!(printer.line("other", 1), None);
    }

    #[test]
    fn one_names_the_function_and_pc_then_the_instruction() {
        let mut p = Program::new();
        let mut f = Function::new("m", "main");
        for _ in 0..3 {
            f.add_register(false);
        }
        f.emit(
            Instr::AddInt {
                dst: Reg(2),
                a: Reg(2),
                b: Reg(1),
            },
            1,
        );
        f.emit(
            Instr::CallBuiltin {
                dst: Reg(0),
                builtin: Builtin::ListSortStr,
                base: Reg(1),
                count: 1,
            },
            1,
        );
        let id = p.add_function(f);
        assert_eq!(one(&p, id, 0), "m.main@0  add.int r2, r2, r1");
        assert_eq!(
            one(&p, id, 1),
            "m.main@1  call-builtin r0, List.sort/1, r1, 1"
        );
        assert_eq!(one(&p, id, 9), "m.main@9  <no instruction>");
    }
}
