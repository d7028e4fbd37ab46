//! One instruction as text, until `cove_ir::print::one` reaches this branch.
//!
//! The report names an instruction the way the printer does,
//! `m.main@7  add.int r2, r2, r1`; this renders the same shape from the
//! instruction's operand list so the reports can be built and tested before
//! the printer is merged, and it is replaced by a call to the printer then.

use cove_ir::op::Operand;
use cove_ir::program::{FunctionId, Program};

/// `m.main@7  add.int r2, r2, r1`, or `<no instruction>` for a pc the
/// program does not have.
pub(crate) fn one(program: &Program, function: FunctionId, pc: u32) -> String {
    let name = program.function_name(function);
    let Some(instr) = program
        .functions
        .get(function.index())
        .and_then(|f| f.code.get(pc as usize))
    else {
        return format!("{name}@{pc}  <no instruction>");
    };
    let mut text = format!("{name}@{pc}  {}", instr.opcode().mnemonic());
    for (i, operand) in instr.operands().iter().enumerate() {
        text.push_str(if i == 0 { " " } else { ", " });
        let written = match *operand {
            Operand::Reg(r) => r.to_string(),
            Operand::Count(n) => n.to_string(),
            Operand::Imm(v) => v.to_string(),
            Operand::Const(k) => k.to_string(),
            Operand::Target(t) => format!("@{t}"),
            Operand::Func(f) => program.function_name(f).to_string(),
            Operand::Builtin(b) => b.name().to_string(),
            Operand::Type(t) => format!("t{}", t.0),
            Operand::Struct(s) => format!("s{}", s.0),
            Operand::Enum(e) => format!("e{}", e.0),
            Operand::Index(i) => format!("#{i}"),
        };
        text.push_str(&written);
    }
    text
}
