//! The code buffer of one function: instructions, their lines, registers
//! and jump labels.
//!
//! Registers are allocated from per-class pools. A register's class (num or
//! ref) is fixed the first time it is handed out and never changes, which is
//! what the collector's reference map (`Function::refs`) requires; a freed
//! register goes back to its class's pool and the lowest free one of the
//! class is reused first, so frames stay small. Call arguments need
//! *consecutive* registers whose classes follow the callee's parameters:
//! [`Emitter::alloc_window`] finds the lowest run of free registers with
//! that class pattern, growing the frame only when none fits.
//!
//! Jumps are emitted to [`Label`]s and patched when the function is done,
//! so the lowering can branch forward without knowing where to.
//!
//! One peephole lives here, because only the emitter sees where a label
//! lands: a compare-with-immediate jump followed by a `return`, whose
//! jump target turns out to be the instruction right after the return, is
//! one guarded return (`return-if-*.int.imm`, see `cove_ir::op`). That is
//! the shape of a recursion's base case, `if n < 2 { n } else { ... }`,
//! and fusing it takes one dispatch out of every leaf call. The fusion is
//! made when the `return` is emitted and kept only if the jump's label is
//! bound next; anything else emitted or bound first puts the pair back as
//! it was, so no pc ever has to be renumbered.

use cove_ir::op::{Instr, Operand, Reg};

/// A jump target, bound to a program counter with [`Emitter::bind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Label(usize);

/// The most registers a frame may have.
const MAX_REGISTERS: usize = u16::MAX as usize;

#[derive(Debug, Default)]
pub(crate) struct Emitter {
    pub code: Vec<Instr>,
    pub lines: Vec<u32>,
    /// `classes[r]`: whether register `r` is a ref register.
    classes: Vec<bool>,
    /// `free[r]`: whether register `r` may be handed out.
    free: Vec<bool>,
    /// The free registers of each class (num, ref), lowest first: the
    /// per-class free lists, so a single register is found in log time.
    pools: [std::collections::BTreeSet<u16>; 2],
    labels: Vec<Option<u32>>,
    fixups: Vec<(usize, Label)>,
    /// The source line instructions are emitted for.
    pub line: u32,
    /// Set when the function needed more registers than a frame may hold.
    pub overflowed: bool,
    /// Instructions that run first, before the code: the loads of the
    /// constants pinned in registers (see [`Emitter::pin`]).
    pub prologue: Vec<Instr>,
    /// A guarded return not yet confirmed: see the module documentation.
    guard: Option<Guard>,
}

/// A compare-and-jump and the `return` after it, fused into the guarded
/// return now last in the code, until the jump's label is bound right
/// after it.
#[derive(Debug, Clone, Copy)]
struct Guard {
    /// The jump as it was emitted (with a placeholder target).
    jump: Instr,
    /// Where the jump was going.
    label: Label,
    /// The register the `return` returned, and the `return`'s line.
    src: Reg,
    line: u32,
}

impl Emitter {
    pub fn new() -> Emitter {
        Emitter {
            line: 1,
            ..Emitter::default()
        }
    }

    /// The next instruction's program counter.
    pub fn pc(&self) -> u32 {
        self.code.len() as u32
    }

    pub fn emit(&mut self, instr: Instr) {
        self.unfuse();
        if let Instr::Return { src } = instr
            && self.fuse(src)
        {
            return;
        }
        self.code.push(instr);
        self.lines.push(self.line);
    }

    /// Fuses a `return src` with the compare-and-jump before it, if that
    /// jump goes forward to a label not yet bound and nothing jumps to the
    /// return itself; true if it did.
    fn fuse(&mut self, src: Reg) -> bool {
        let Some(&last) = self.code.last() else {
            return false;
        };
        let at = self.code.len() - 1;
        let Some(fixup) = self.fixups.iter().rposition(|&(i, _)| i == at) else {
            return false;
        };
        let label = self.fixups[fixup].1;
        if self.labels[label.0].is_some() || self.label_here() {
            return false;
        }
        // The guarded return returns when the jump would not have jumped.
        let fused = match last {
            Instr::JumpNeIntImm { a, value, .. } => Instr::ReturnIfEqIntImm { a, value, src },
            Instr::JumpEqIntImm { a, value, .. } => Instr::ReturnIfNeIntImm { a, value, src },
            Instr::JumpGeIntImm { a, value, .. } => Instr::ReturnIfLtIntImm { a, value, src },
            Instr::JumpGtIntImm { a, value, .. } => Instr::ReturnIfLeIntImm { a, value, src },
            Instr::JumpLeIntImm { a, value, .. } => Instr::ReturnIfGtIntImm { a, value, src },
            Instr::JumpLtIntImm { a, value, .. } => Instr::ReturnIfGeIntImm { a, value, src },
            _ => return false,
        };
        self.fixups.remove(fixup);
        self.code[at] = fused;
        self.guard = Some(Guard {
            jump: last,
            label,
            src,
            line: self.line,
        });
        true
    }

    /// Puts back the compare-and-jump and the `return` of an unconfirmed
    /// guarded return.
    fn unfuse(&mut self) {
        if let Some(guard) = self.guard.take() {
            let at = self.code.len() - 1;
            self.code[at] = guard.jump;
            self.fixups.push((at, guard.label));
            self.code.push(Instr::Return { src: guard.src });
            self.lines.push(guard.line);
        }
    }

    /// The lowest free register of the class, or a new one.
    pub fn alloc(&mut self, is_ref: bool) -> Reg {
        match self.pools[usize::from(is_ref)].pop_first() {
            Some(r) => {
                self.free[r as usize] = false;
                Reg(r)
            }
            None => self.grow(is_ref),
        }
    }

    /// Takes register `r`, known to be free, out of its pool.
    fn take(&mut self, r: usize) {
        self.free[r] = false;
        self.pools[usize::from(self.classes[r])].remove(&(r as u16));
    }

    /// A register no code has used and no code will be given: loaded once
    /// in the prologue, it holds a constant for the whole function.
    pub fn pin(&mut self, is_ref: bool) -> Reg {
        self.grow(is_ref)
    }

    /// Takes the registers right after `first` for the rest of an argument
    /// window (`classes`), if they are free and of those classes, so the
    /// value already in `first` need not be moved. False if they are not.
    pub fn window_after(&mut self, first: Reg, classes: &[bool]) -> bool {
        let n = self.classes.len();
        let start = first.0 as usize + 1;
        if start + classes.len() > MAX_REGISTERS {
            return false;
        }
        let fits = classes.iter().enumerate().all(|(i, &c)| {
            let r = start + i;
            r >= n || (self.free[r] && self.classes[r] == c)
        });
        if !fits {
            return false;
        }
        for (i, &c) in classes.iter().enumerate() {
            let r = start + i;
            if r < n {
                self.take(r);
            } else {
                self.grow(c);
            }
        }
        true
    }

    fn grow(&mut self, is_ref: bool) -> Reg {
        if self.classes.len() >= MAX_REGISTERS {
            self.overflowed = true;
            return Reg((MAX_REGISTERS - 1) as u16);
        }
        self.classes.push(is_ref);
        self.free.push(false);
        Reg(self.classes.len() as u16 - 1)
    }

    /// `classes.len()` consecutive registers, register `base + i` of class
    /// `classes[i]`: the argument window of a call.
    pub fn alloc_window(&mut self, classes: &[bool]) -> Reg {
        if classes.is_empty() {
            return Reg(0);
        }
        let n = self.classes.len();
        let fits = |start: usize, this: &Emitter| {
            classes.iter().enumerate().all(|(i, &c)| {
                let r = start + i;
                r >= n || (this.free[r] && this.classes[r] == c)
            })
        };
        let start = (0..=n).find(|&s| fits(s, self)).unwrap_or(n);
        if start + classes.len() > MAX_REGISTERS {
            self.overflowed = true;
            return Reg(0);
        }
        for (i, &c) in classes.iter().enumerate() {
            let r = start + i;
            if r < n {
                self.take(r);
            } else {
                self.grow(c);
            }
        }
        Reg(start as u16)
    }

    /// Marks the register as ready for reuse.
    pub fn free(&mut self, r: Reg) {
        if let Some(f) = self.free.get_mut(r.0 as usize)
            && !*f
        {
            *f = true;
            self.pools[usize::from(self.classes[r.0 as usize])].insert(r.0);
        }
    }

    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() - 1)
    }

    /// Binds the label to the next instruction.
    pub fn bind(&mut self, label: Label) {
        match self.guard {
            // The jump's target is the next instruction: the fusion stands.
            Some(guard) if guard.label == label => self.guard = None,
            Some(_) => self.unfuse(),
            None => {}
        }
        self.labels[label.0] = Some(self.pc());
    }

    /// Whether some label is bound to the next instruction (so code that
    /// jumps there needs an instruction to land on).
    pub fn label_here(&self) -> bool {
        let pc = self.pc();
        self.fixups
            .iter()
            .any(|(_, l)| self.labels[l.0] == Some(pc))
    }

    /// Emits a jump whose target is patched to `label` when the function
    /// is finished. `instr` is built with a placeholder target.
    pub fn jump(&mut self, instr: Instr, label: Label) {
        self.fixups.push((self.code.len(), label));
        self.emit(instr);
    }

    /// The code (after the prologue), lines, reference map and frame size.
    /// Every pc the lowering saw moves up by the prologue's length.
    pub fn finish(mut self) -> (Vec<Instr>, Vec<u32>, Vec<bool>, u16) {
        self.unfuse();
        let shift = self.prologue.len() as u32;
        if shift > 0 {
            for label in self.labels.iter_mut().flatten() {
                *label += shift;
            }
            for fixup in &mut self.fixups {
                fixup.0 += shift as usize;
            }
            let line = self.lines.first().copied().unwrap_or(self.line);
            let mut code = std::mem::take(&mut self.prologue);
            code.append(&mut self.code);
            self.code = code;
            let mut lines = vec![line; shift as usize];
            lines.append(&mut self.lines);
            self.lines = lines;
        }
        for (at, label) in std::mem::take(&mut self.fixups) {
            let target = self.labels[label.0].unwrap_or(self.code.len() as u32);
            let instr = self.code[at];
            let operands: Vec<Operand> = instr
                .operands()
                .into_iter()
                .map(|o| match o {
                    Operand::Target(_) => Operand::Target(target),
                    other => other,
                })
                .collect();
            if let Ok(patched) = Instr::from_operands(instr.opcode(), &operands) {
                self.code[at] = patched;
            }
        }
        let registers = self.classes.len() as u16;
        (self.code, self.lines, self.classes, registers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `jump-ge.int.imm r0, 2, <label>`, to a new label.
    fn guard(e: &mut Emitter) -> Label {
        let label = e.label();
        e.jump(
            Instr::JumpGeIntImm {
                a: Reg(0),
                value: 2,
                target: 0,
            },
            label,
        );
        label
    }

    /// The guard then `return r1`, as the lowering emits the base case of a
    /// recursion.
    fn guard_then_return(e: &mut Emitter) -> Label {
        let label = guard(e);
        e.emit(Instr::Return { src: Reg(1) });
        label
    }

    fn code(e: Emitter) -> Vec<Instr> {
        e.finish().0
    }

    #[test]
    fn a_jump_over_a_return_to_the_next_instruction_becomes_one_guarded_return() {
        let mut e = Emitter::new();
        let label = guard_then_return(&mut e);
        e.bind(label);
        e.emit(Instr::ReturnUnit {});
        assert_eq!(
            code(e),
            [
                Instr::ReturnIfLtIntImm {
                    a: Reg(0),
                    value: 2,
                    src: Reg(1)
                },
                Instr::ReturnUnit {},
            ]
        );
    }

    fn unfused() -> Vec<Instr> {
        vec![
            Instr::JumpGeIntImm {
                a: Reg(0),
                value: 2,
                target: 3,
            },
            Instr::Return { src: Reg(1) },
        ]
    }

    #[test]
    fn code_emitted_before_the_jumps_label_is_bound_puts_the_pair_back() {
        let mut e = Emitter::new();
        let label = guard_then_return(&mut e);
        e.emit(Instr::ReturnUnit {});
        e.bind(label);
        e.emit(Instr::ReturnUnit {});
        let mut want = unfused();
        want.extend([Instr::ReturnUnit {}, Instr::ReturnUnit {}]);
        assert_eq!(code(e), want);
    }

    #[test]
    fn another_label_bound_after_the_return_puts_the_pair_back() {
        let mut e = Emitter::new();
        let label = guard_then_return(&mut e);
        let other = e.label();
        e.bind(other);
        e.bind(label);
        e.emit(Instr::ReturnUnit {});
        let mut want = unfused();
        want[0] = Instr::JumpGeIntImm {
            a: Reg(0),
            value: 2,
            target: 2,
        };
        want.push(Instr::ReturnUnit {});
        assert_eq!(code(e), want);
    }

    #[test]
    fn a_return_something_jumps_to_is_not_fused() {
        let mut e = Emitter::new();
        let back = e.label();
        e.jump(Instr::Jump { target: 0 }, back);
        let label = guard(&mut e);
        // The first jump lands on the return.
        e.bind(back);
        e.emit(Instr::Return { src: Reg(1) });
        e.bind(label);
        e.emit(Instr::ReturnUnit {});
        assert_eq!(
            code(e),
            [
                Instr::Jump { target: 2 },
                Instr::JumpGeIntImm {
                    a: Reg(0),
                    value: 2,
                    target: 3
                },
                Instr::Return { src: Reg(1) },
                Instr::ReturnUnit {},
            ]
        );
    }
}
