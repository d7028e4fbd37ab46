//! Helpers shared by the compiler's integration tests.
#![allow(dead_code)]

use cove_ir::op::Operand;
use cove_ir::program::Program;

/// A stable text rendering of a program's functions, for snapshots.
pub fn dump(program: &Program) -> String {
    let mut out = String::new();
    for (i, k) in program.constants.iter().enumerate() {
        out.push_str(&format!("k{i} = {k:?}\n"));
    }
    for f in &program.functions {
        let params: Vec<String> = f.params.iter().map(|t| program.type_name(*t)).collect();
        out.push_str(&format!(
            "\n{}fn {}({}) -> {}  [registers {}, refs {}]\n",
            if f.exported { "export " } else { "" },
            f.qualified,
            params.join(", "),
            program.type_name(f.result),
            f.registers,
            f.refs
                .iter()
                .enumerate()
                .filter(|(_, r)| **r)
                .map(|(i, _)| format!("r{i}"))
                .collect::<Vec<_>>()
                .join(" ")
        ));
        for (pc, instr) in f.code.iter().enumerate() {
            let ops: Vec<String> = instr
                .operands()
                .into_iter()
                .map(|o| match o {
                    Operand::Reg(r) => format!("{r}"),
                    Operand::Count(c) => c.to_string(),
                    Operand::Imm(v) => v.to_string(),
                    Operand::Const(k) => format!("{k}"),
                    Operand::Target(t) => format!("@{t}"),
                    Operand::Func(f) => program.function_name(f).to_string(),
                    Operand::Builtin(b) => b.label(),
                    Operand::Type(t) => program.type_name(t),
                    Operand::Struct(s) => program.struct_def(s).name.clone(),
                    Operand::Enum(e) => program.enum_def(e).name.clone(),
                    Operand::Index(i) => format!("#{i}"),
                })
                .collect();
            out.push_str(&format!(
                "  {pc:>3} L{:<3} {} {}\n",
                f.lines[pc],
                instr.opcode().mnemonic(),
                ops.join(", ")
            ));
        }
        for l in &f.locals {
            out.push_str(&format!(
                "  local {}: {} in {} live {}..{}\n",
                l.name,
                program.type_name(l.ty),
                l.register,
                l.live.start,
                l.live.end
            ));
        }
    }
    out
}
