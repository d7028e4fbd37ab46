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

use std::fmt::Write as _;

use crate::op::{Instr, Operand};
use crate::program::{Constant, Function, FunctionId, Program};
use crate::types::Type;

/// One instruction, named by its function and pc: `m.main@7  add.int r2, r2, r1`.
///
/// A pc past the end of the function, or an unknown function, prints as
/// `<no instruction>` rather than panicking: this is called from error paths.
pub fn one(program: &Program, function: FunctionId, pc: u32) -> String {
    let name = program.function_name(function);
    match program
        .functions
        .get(function.index())
        .and_then(|f| f.code.get(pc as usize))
    {
        Some(instr) => format!("{name}@{pc}  {}", instruction(program, instr)),
        None => format!("{name}@{pc}  <no instruction>"),
    }
}

/// An instruction without its location: `add.int r2, r2, r1`.
pub fn instruction(program: &Program, instr: &Instr) -> String {
    let mut text = instr.opcode().mnemonic().to_string();
    for (i, o) in instr.operands().iter().enumerate() {
        text.push_str(if i == 0 { " " } else { ", " });
        text.push_str(&operand(program, o));
    }
    text
}

/// One operand as the printed form writes it.
///
/// A function is written by its qualified name when that name is a dotted
/// identifier no other function of the program shares, and as `f3`
/// otherwise, so that the parser always finds the same function again.
pub fn operand(program: &Program, operand: &Operand) -> String {
    match *operand {
        Operand::Reg(r) => r.to_string(),
        Operand::Count(n) => n.to_string(),
        Operand::Imm(v) => v.to_string(),
        Operand::Const(k) => k.to_string(),
        Operand::Target(t) => format!("@{t}"),
        Operand::Func(f) => function_ref(program, f),
        Operand::Builtin(b) => b.label(),
        Operand::Type(t) => t.to_string(),
        Operand::Struct(s) => format!("s{}", s.0),
        Operand::Enum(e) => format!("e{}", e.0),
        Operand::Index(i) => format!("#{i}"),
    }
}

/// How an operand names function `id`: see [`operand`].
fn function_ref(program: &Program, id: FunctionId) -> String {
    if let Some(f) = program.functions.get(id.index()) {
        let unique = program
            .functions
            .iter()
            .filter(|g| g.qualified == f.qualified)
            .count()
            == 1;
        if unique && is_dotted_identifier(&f.qualified) {
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
pub fn function(program: &Program, id: FunctionId) -> String {
    let mut out = String::new();
    match program.functions.get(id.index()) {
        Some(f) => write_function(&mut out, program, id, f),
        None => {
            let _ = writeln!(out, "; no function {id}");
        }
    }
    out
}

fn write_function(out: &mut String, program: &Program, id: FunctionId, f: &Function) {
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
    let module = program.module(&f.module);
    let width = format!("@{}", f.code.len().saturating_sub(1)).len();
    let mut current = None;
    for (pc, instr) in f.code.iter().enumerate() {
        if directives && current != Some(f.lines[pc]) {
            let line = f.lines[pc];
            current = Some(line);
            match module.and_then(|m| m.line_text(line)) {
                Some(text) => {
                    let _ = writeln!(out, "  line {line} | {}", text.trim_end());
                }
                None => {
                    let _ = writeln!(out, "  line {line}");
                }
            }
        }
        let at = format!("@{pc}");
        let _ = writeln!(out, "  {at:<width$}  {}", instruction(program, instr));
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
pub fn program(program: &Program) -> String {
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
        write_function(&mut out, program, id, program.function(id));
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
