//! Which ref registers a call and a return must clear: the *written*
//! guarantee of [`Verified`](super::Verified).
//!
//! A call writes 0 into the callee's ref registers after its arguments, and
//! a return into the caller's after the call's arguments (where the
//! callee's frame lay and left its own bits), so that whatever looks at
//! one before the function writes it finds 0 and not what another frame
//! left there: the collector, which takes every ref register of the
//! running frame for a root; an instruction the flow pass lets read a
//! register no path has written (its `Null`, which is 0); a debugger
//! showing a local over its live range. Most of those registers are
//! written before anything looks: a closure's body loads its captures
//! first, a function writes a call's result before its next allocation.
//! Clearing them all cost `binary_trees` a tenth of its native
//! instructions.
//!
//! So this pass finds, for each function, the ref registers past its
//! parameters that something may look at before the function has written
//! them on every path there, from its entry and from each of its calls'
//! returns, and gives the bound both clear up to: one past the last of
//! them ([`clear_to`]). A register past that bound they leave as the stack
//! held it, which is sound because on every path it is written before any
//! of the three looks.
//!
//! # How
//!
//! A forward analysis of "written on every path" (an intersection at each
//! join), a bit a ref register past the parameters, to a fixed point; then
//! one pass that marks a register as needing its 0 wherever something
//! looks at it unwritten:
//!
//! - an instruction reads it (a source operand, or a register of a `base,
//!   count` window);
//! - an instruction that may collect runs: one that may allocate (its
//!   stretch ends as `Other`: an allocation, a builtin, a spawn; the
//!   dispatch loop collects only after those, and a builtin that waits
//!   collects inside one) — every ref register of the frame is a root
//!   then; or a `call` or `call.closure`, during which the collector scans
//!   the caller below the call's window (the callee's frame covers the
//!   rest);
//! - a local held in it is live at the instruction.
//!
//! After a call the arguments hold the callee's parameters (written), and
//! every register past them holds what the callee's frame left there:
//! unwritten again, and cleared by the return only if something looks at
//! it before the function writes it, which is what the bound records.
//!
//! # What it costs
//!
//! A bit a tracked register at each instruction, visited until nothing
//! changes: instructions × registers / 64 words, once a run, when the
//! runtime digests the program. A function over [`MAX_WORDS`] of that, or
//! whose fixed point visits more than [`MAX_VISITED`] words, is not
//! analysed, and every ref register of it is cleared, as before this pass.

use super::flow::successors;
use crate::op::{Instr, Operand, OperandKind, StretchEnd};
use crate::program::Function;

/// The most words of state the analysis keeps for one function
/// (instructions × tracked registers / 64): 2 MiB.
const MAX_WORDS: usize = 1 << 18;

/// The most words the fixed point may visit in all (a pc is visited again
/// each time its state shrinks) before the analysis gives up on the
/// function and clears every ref register of it. A visit costs about
/// 80 ns in a release build (a loop of 250,000 instructions over 60 ref
/// registers, each pc visited about twice: 24 ms), so this stops the
/// analysis of one function after some 0.2 s at the very worst; a function
/// within [`MAX_WORDS`] whose pcs are visited a few times each stays far
/// below it.
const MAX_VISITED: usize = 1 << 21;

/// One past the last ref register of `f` that a call into it and a return
/// into it must clear: the ref registers from it up are written, after the
/// entry and after each call, before anything reads them, the collector
/// looks or a debugger shows them. At most one past the last ref register.
pub(crate) fn clear_to(f: &Function) -> u16 {
    let params = f.params.len();
    let full = f.refs.iter().rposition(|r| *r).map_or(0, |last| last + 1);
    if full <= params {
        return full as u16;
    }
    let words = (full - params).div_ceil(64);
    let n = f.code.len();
    if n.saturating_mul(words) > MAX_WORDS {
        return full as u16;
    }
    let pass = Pass { f, params, full };
    // Written on every path to each pc: all ones until the pc is reached
    // (the intersection's identity), none at the entry.
    let mut written = vec![!0u64; n * words];
    let mut reached = vec![false; n];
    if n > 0 {
        reached[0] = true;
        written[..words].fill(0);
    }
    let mut work = vec![0usize];
    let mut out = vec![0u64; words];
    let mut visited = 0usize;
    while let Some(pc) = work.pop() {
        if pc >= n {
            continue;
        }
        visited += words;
        if visited > MAX_VISITED {
            return full as u16;
        }
        out.copy_from_slice(&written[pc * words..(pc + 1) * words]);
        pass.step(&f.code[pc], &mut out, None);
        for next in successors(&f.code[pc], pc).filter(|&next| next < n) {
            let into = &mut written[next * words..(next + 1) * words];
            let mut changed = !reached[next];
            reached[next] = true;
            for (w, o) in into.iter_mut().zip(&out) {
                let meet = *w & o;
                changed |= meet != *w;
                *w = meet;
            }
            if changed {
                work.push(next);
            }
        }
    }
    let mut needed = vec![0u64; words];
    for pc in (0..n).filter(|&pc| reached[pc]) {
        out.copy_from_slice(&written[pc * words..(pc + 1) * words]);
        pass.step(&f.code[pc], &mut out, Some(&mut needed));
    }
    for local in &f.locals {
        let r = usize::from(local.register.0);
        let Some(bit) = pass.bit(r) else { continue };
        let live = (local.live.start as usize).min(n)..(local.live.end as usize).min(n);
        if live
            .filter(|&pc| reached[pc])
            .any(|pc| !is_set(&written[pc * words..(pc + 1) * words], bit))
        {
            set(&mut needed, bit);
        }
    }
    let last = needed
        .iter()
        .enumerate()
        .rev()
        .find(|(_, w)| **w != 0)
        .map(|(i, w)| i * 64 + 63 - w.leading_zeros() as usize);
    // Both at most the register count, a `u16`.
    last.map_or(params, |bit| params + bit + 1) as u16
}

/// One function's analysis: which registers it tracks.
struct Pass<'f> {
    f: &'f Function,
    params: usize,
    /// One past the last ref register.
    full: usize,
}

impl Pass<'_> {
    /// The bit of register `r`, if it is a ref register past the
    /// parameters.
    fn bit(&self, r: usize) -> Option<usize> {
        (r >= self.params && r < self.full && self.f.refs[r]).then(|| r - self.params)
    }

    /// Steps `written` over `instr`, marking in `needed`, when given, each
    /// register something looks at unwritten.
    fn step(&self, instr: &Instr, written: &mut [u64], mut needed: Option<&mut Vec<u64>>) {
        let kinds = instr.opcode().operand_kinds();
        let operands = instr.operands();
        let mut look = |r: usize, written: &[u64]| {
            if let (Some(bit), Some(needed)) = (self.bit(r), needed.as_deref_mut())
                && !is_set(written, bit)
            {
                set(needed, bit);
            }
        };
        let mut window = None;
        for (i, (kind, operand)) in kinds.iter().zip(&operands).enumerate() {
            match (kind, operand) {
                (
                    OperandKind::SrcNum | OperandKind::SrcRef | OperandKind::SrcAny,
                    Operand::Reg(r),
                ) => {
                    look(usize::from(r.0), written);
                }
                (OperandKind::Base, Operand::Reg(base)) => {
                    let count = match operands.get(i + 1) {
                        Some(Operand::Count(c)) => usize::from(*c),
                        _ => 0,
                    };
                    let base = usize::from(base.0);
                    // `move-call.closure` and `add-call` write their first
                    // argument themselves, from `src` or `a`, which is
                    // looked at as a source.
                    let moved = usize::from(matches!(
                        instr,
                        Instr::MoveCallClosure { .. } | Instr::AddCall { .. }
                    ));
                    for r in base + moved..base + count {
                        look(r, written);
                    }
                    window = Some((base, count));
                }
                _ => {}
            }
        }
        match instr.opcode().stretch_end() {
            StretchEnd::Other => {
                for r in self.params..self.full {
                    look(r, written);
                }
            }
            StretchEnd::Call => {
                let (base, count) = window.unwrap_or((self.full, 0));
                for r in self.params..base.min(self.full) {
                    look(r, written);
                }
                // The arguments hold the callee's parameters; past them,
                // what the callee's frame left.
                for r in base..self.full {
                    if let Some(bit) = self.bit(r) {
                        if r < base + count {
                            set(written, bit);
                        } else {
                            unset(written, bit);
                        }
                    }
                }
            }
            _ => {}
        }
        for (kind, operand) in kinds.iter().zip(&operands) {
            if let (
                OperandKind::DstNum | OperandKind::DstRef | OperandKind::DstAny,
                Operand::Reg(r),
            ) = (kind, operand)
                && let Some(bit) = self.bit(usize::from(r.0))
            {
                set(written, bit);
            }
        }
    }
}

fn is_set(words: &[u64], bit: usize) -> bool {
    words[bit / 64] & (1 << (bit % 64)) != 0
}

fn set(words: &mut [u64], bit: usize) {
    words[bit / 64] |= 1 << (bit % 64);
}

fn unset(words: &mut [u64], bit: usize) {
    words[bit / 64] &= !(1 << (bit % 64));
}
