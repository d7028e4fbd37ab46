//! What the machine proves of a program before it runs it: the facts the
//! dispatch loop's unchecked accesses rest on.
//!
//! The loop reads registers through a raw pointer and fetches instructions
//! without a bounds check. That is sound only if every register an
//! instruction names is inside its function's frame, every jump lands inside
//! the function, the code cannot run off its end, and every call passes as
//! many arguments as the callee has parameters and registers for, and no
//! division by an immediate can fail (its divisor is neither 0 nor -1). Those are
//! checked here, once per `Vm`, in one pass over the code; so is the class
//! (num or ref) of every register an opcode fixes, which is what keeps the
//! precise collector from mistaking an integer for a reference.
//!
//! `cove_ir`'s verifier checks the whole type discipline of a program; this
//! is the smaller set of facts this crate's own `unsafe` depends on, kept
//! here so that the proof and the code that relies on it change together.

use cove_ir::op::{Instr, Operand, OperandKind};
use cove_ir::program::{Function, Program};

/// Whether the program is safe for this machine to run, or the first
/// reason it is not.
pub(crate) fn program(program: &Program) -> Result<(), String> {
    for function in &program.functions {
        self::function(program, function)
            .map_err(|why| format!("{}: {why}", function.qualified))?;
    }
    Ok(())
}

fn function(program: &Program, function: &Function) -> Result<(), String> {
    let registers = usize::from(function.registers);
    if function.refs.len() != registers {
        return Err(format!(
            "the reference map has {} entries for {registers} registers",
            function.refs.len()
        ));
    }
    if function.params.len() > registers {
        return Err("more parameters than registers".to_string());
    }
    match function.code.last() {
        Some(Instr::Return { .. } | Instr::ReturnUnit {} | Instr::Jump { .. }) => {}
        Some(_) => return Err("the code can run past its end".to_string()),
        None => return Err("the function has no code".to_string()),
    }
    for (pc, instr) in function.code.iter().enumerate() {
        self::instr(program, function, instr)
            .map_err(|why| format!("@{pc} `{}`: {why}", instr.opcode()))?;
    }
    Ok(())
}

fn instr(program: &Program, function: &Function, instr: &Instr) -> Result<(), String> {
    let registers = usize::from(function.registers);
    let kinds = instr.opcode().operand_kinds();
    let operands = instr.operands();
    let mut base = None;
    for (kind, operand) in kinds.iter().zip(&operands) {
        match (kind, operand) {
            (OperandKind::Count, Operand::Count(count)) => {
                let first: usize = base.take().unwrap_or(0);
                if first + usize::from(*count) > registers {
                    return Err(format!(
                        "r{first} and the {count} after it are not all in the frame"
                    ));
                }
            }
            (_, Operand::Reg(r)) => {
                let r = usize::from(r.0);
                if r >= registers && !(matches!(kind, OperandKind::Base)) {
                    return Err(format!("r{r} is outside a frame of {registers} registers"));
                }
                let is_ref = function.refs.get(r).copied().unwrap_or(false);
                match kind {
                    OperandKind::DstNum | OperandKind::SrcNum if is_ref => {
                        return Err(format!("r{r} is a ref register where a num one is needed"));
                    }
                    OperandKind::DstRef | OperandKind::SrcRef if !is_ref => {
                        return Err(format!("r{r} is a num register where a ref one is needed"));
                    }
                    OperandKind::Base => base = Some(r),
                    _ => {}
                }
            }
            (_, Operand::Target(t)) if *t as usize >= function.code.len() => {
                return Err(format!("jump to @{t} outside the code"));
            }
            (_, Operand::Const(k)) if k.0 as usize >= program.constants.len() => {
                return Err(format!("constant k{} does not exist", k.0));
            }
            (_, Operand::Func(f)) if f.index() >= program.functions.len() => {
                return Err(format!("function {f} does not exist"));
            }
            (_, Operand::Type(t)) if t.0 as usize >= program.types.len() => {
                return Err(format!("type {t} does not exist"));
            }
            (_, Operand::Struct(s)) if usize::from(s.0) >= program.structs.len() => {
                return Err(format!("struct s{} does not exist", s.0));
            }
            (_, Operand::Enum(e)) if usize::from(e.0) >= program.enums.len() => {
                return Err(format!("enum e{} does not exist", e.0));
            }
            _ => {}
        }
    }
    if let Some(value) = instr.failing_divisor() {
        return Err(format!("the divisor {value} can fail"));
    }
    match *instr {
        Instr::Call { func, count, .. } | Instr::Spawn { func, count, .. } => {
            let callee = program.function(func);
            if callee.params.len() != usize::from(count) {
                return Err(format!(
                    "{} takes {} arguments, not {count}",
                    callee.qualified,
                    callee.params.len()
                ));
            }
            if usize::from(count) > usize::from(callee.registers) {
                return Err(format!(
                    "{} has too few registers for its arguments",
                    callee.qualified
                ));
            }
        }
        Instr::NewClosure { func, count, .. } => {
            program.closure_shape(func, count)?;
        }
        Instr::CallClosure { base, count, .. }
            if u32::from(base.0) + u32::from(count) >= u32::from(function.registers) =>
        {
            return Err("the closure's slot after the arguments is past the frame".to_string());
        }
        Instr::CallBuiltin { builtin, count, .. }
            if builtin.signature().arity() != usize::from(count) =>
        {
            return Err(format!(
                "{} takes {} arguments, not {count}",
                builtin.name(),
                builtin.signature().arity()
            ));
        }
        Instr::LoadConst { dst, constant } => {
            let is_ref = program.constants[constant.0 as usize].is_ref();
            if function.is_ref(dst) != is_ref {
                return Err(format!(
                    "r{} is of the wrong class for constant k{}",
                    dst.0, constant.0
                ));
            }
        }
        Instr::NewStruct { ty, count, .. }
            if program.struct_def(ty).fields.len() != usize::from(count) =>
        {
            return Err("the field count does not match the struct".to_string());
        }
        Instr::GetField { ty, field, .. } | Instr::SetField { ty, field, .. }
            if usize::from(field) >= program.struct_def(ty).fields.len() =>
        {
            return Err(format!("field #{field} does not exist"));
        }
        Instr::NewVariant {
            ty, variant, count, ..
        } => match program.enum_def(ty).variants.get(usize::from(variant)) {
            Some(v) if v.fields.len() == usize::from(count) => {}
            _ => return Err("the variant or its payload count does not match the enum".to_string()),
        },
        Instr::GetPayload {
            ty, variant, field, ..
        } => match program.enum_def(ty).variants.get(usize::from(variant)) {
            Some(v) if usize::from(field) < v.fields.len() => {}
            _ => return Err("the variant or payload position does not exist".to_string()),
        },
        _ => {}
    }
    Ok(())
}
