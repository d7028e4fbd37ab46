//! The comparison operators as fused `jump-*.int` instructions, written once.
//!
//! A condition `a < b` on Ints compiles to one compare-and-jump rather
//! than a Bool and a `jump-if`; its right side is either a register or,
//! when it is a small literal, an immediate (`jump-lt.int.imm`). Both
//! forms come from this one mapping, so the twelve opcodes cannot drift
//! apart by operator. The jump's target is left 0 for the emitter's label
//! to fill in.

use cove_ir::op::{Instr, Reg};

use crate::ast::BinOp;

/// The right side of a fused Int comparison.
#[derive(Debug, Clone, Copy)]
pub(crate) enum IntRhs {
    /// A register holding an Int.
    Reg(Reg),
    /// A literal that fits an immediate.
    Imm(i32),
}

/// The instruction that jumps when `a op b` holds, for a comparison `op`
/// (any other operator is taken as `>=`, the last of the six).
pub(crate) fn jump_int(op: BinOp, a: Reg, b: IntRhs) -> Instr {
    let target = 0;
    match b {
        IntRhs::Reg(b) => match op {
            BinOp::Eq => Instr::JumpEqInt { a, b, target },
            BinOp::Ne => Instr::JumpNeInt { a, b, target },
            BinOp::Lt => Instr::JumpLtInt { a, b, target },
            BinOp::Le => Instr::JumpLeInt { a, b, target },
            BinOp::Gt => Instr::JumpGtInt { a, b, target },
            _ => Instr::JumpGeInt { a, b, target },
        },
        IntRhs::Imm(value) => match op {
            BinOp::Eq => Instr::JumpEqIntImm { a, value, target },
            BinOp::Ne => Instr::JumpNeIntImm { a, value, target },
            BinOp::Lt => Instr::JumpLtIntImm { a, value, target },
            BinOp::Le => Instr::JumpLeIntImm { a, value, target },
            BinOp::Gt => Instr::JumpGtIntImm { a, value, target },
            _ => Instr::JumpGeIntImm { a, value, target },
        },
    }
}
