//! The code buffer of one function: instructions, their lines, registers
//! and jump labels.
//!
//! Registers are allocated from per-class pools. A register's class (num or
//! ref) is fixed the first time it is handed out and never changes, which is
//! what the collector's reference map (`Function::refs`) requires; a freed
//! register goes back to its class's pool and the lowest free one of the
//! class is reused first, so frames stay small. Arguments need
//! *consecutive* registers whose classes follow the parameters:
//! [`Emitter::alloc_window`] finds the lowest run of free registers with
//! that class pattern, growing the frame only when none fits. A call to a
//! Cove function takes more: its window becomes the callee's frame, which
//! lies over every register after it, so [`Emitter::call_window`] looks
//! only above the highest register in use ([`Emitter::top`]). Registers
//! pinned for loop constants live for the whole function but are made
//! lazily, possibly above a window already emitted; [`Emitter::finish`]
//! renumbers them to just after the parameters, below every window.
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
//! it was, so no pc ever has to be renumbered. The superinstructions of
//! two adjacent instructions are made here too, the second as it is
//! emitted (`move2`, `mul-add.float`, and a `jump-if` or `jump-ifnot` fused
//! with the `get.list` or float compare that wrote its Bool, or made a
//! `jump-some` or `jump-none` of the `Option.is_some` or `is_none` whose
//! Bool nothing else reads). When the function is finished, its jumps are
//! threaded: none lands on an unconditional jump, and an unconditional
//! jump to a `return` is that return. A read of a list's element or a
//! struct's field that a few instructions before already made into the
//! same register, on the one path that reaches it, with nothing between
//! that can change it, is not emitted again, and one just after a store
//! to the same place is a `move` of the stored register, or nothing
//! ([`Emitter::loaded_already`]).
//! And a call of a builtin the
//! IR has an instruction for (`Int.to_float`, `Float.sqrt`) is emitted as
//! that instruction, here rather than in each place the lowering calls a
//! builtin.

use cove_ir::builtins::Builtin;
use cove_ir::op::{Instr, Operand, OperandKind, Reg};
use cove_ir::program::Program;

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
    /// The jumps to patch, in the order of their pcs (a jump is pushed as
    /// it is emitted, at the end of the code), so the one at a given pc is
    /// found from the end without scanning the rest.
    fixups: Vec<(usize, Label)>,
    /// Per label, how many jumps in `fixups` go to it.
    jumps: Vec<u32>,
    /// The labels bound to the pc `bound_here.0`: what
    /// [`Emitter::label_here`] looks at, instead of every fixup, which made
    /// a function of many branches (a `match` of 100,000 arms) compile in
    /// quadratic time.
    bound_here: (u32, Vec<Label>),
    /// The last pc a jump may land on: that of the last label bound that
    /// anything jumps to, or may later. Code after it runs only after the
    /// code before it, which is what [`Emitter::loaded_already`] needs.
    landing: u32,
    /// The source line instructions are emitted for.
    pub line: u32,
    /// Set when the function needed more registers than a frame may hold.
    pub overflowed: bool,
    /// Instructions that run first, before the code: the loads of the
    /// constants pinned in registers (see [`Emitter::pin`]).
    pub prologue: Vec<Instr>,
    /// A guarded return not yet confirmed: see the module documentation.
    guard: Option<Guard>,
    /// The pinned registers, lowest first: [`Emitter::finish`] moves them
    /// down, to just after the parameters.
    pins: Vec<u16>,
    /// The pcs of the `unwrap`s of `Some(x)` patterns into a register of
    /// their own ([`Emitter::emit_binding`]), in order: the ones a
    /// `jump-some` to them may take in ([`fuse_unwraps`]).
    bindings: Vec<u32>,
    /// For a function whose result is a tuple that `call.unpack` can take
    /// apart, the tuple's struct and its fields' classes: every `return`
    /// is then emitted after a `return.unpacked` (see
    /// [`Emitter::returns_fields`]).
    fields: Option<(cove_ir::types::StructId, Vec<bool>)>,
    /// The pc of the last `call` of a function that returns the same
    /// tuple's fields ([`Emitter::called_for_fields`]).
    fields_call: Option<usize>,
    /// The pcs, in order, that instructions put before the one just
    /// emitted moved on, and by how many: see [`Emitter::hoisted`].
    hoisted: Vec<(u32, u32)>,
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

/// The register `store` stored to the element or field that `read` reads,
/// if it is a store to that very place: the same list and index, or the
/// same struct and field.
fn stored(store: Instr, read: Instr) -> Option<Reg> {
    match (store, read) {
        (
            Instr::SetList {
                list, index, src, ..
            },
            Instr::GetList {
                list: l, index: i, ..
            },
        ) if (list, index) == (l, i) => Some(src),
        (
            Instr::SetField {
                obj,
                ty,
                field,
                src,
            },
            Instr::GetField {
                obj: o,
                ty: t,
                field: f,
                ..
            },
        ) if (obj, ty, field) == (o, t, f) => Some(src),
        _ => None,
    }
}

impl Emitter {
    pub(crate) fn new() -> Emitter {
        Emitter {
            line: 1,
            ..Emitter::default()
        }
    }

    /// The next instruction's program counter.
    pub(crate) fn pc(&self) -> u32 {
        self.code.len() as u32
    }

    pub(crate) fn emit(&mut self, instr: Instr) {
        self.unfuse();
        let instr = instead_of_builtin(instr);
        let instr = match self.loaded_already(instr) {
            Some((dst, held)) if held == dst => return,
            Some((dst, held)) => Instr::Move { dst, src: held },
            None => instr,
        };
        if self.fuse_pair(instr) {
            return;
        }
        if let Instr::Return { src } = instr {
            if let Some((ty, classes)) = self.fields.clone() {
                self.return_fields(src, ty, &classes);
                return;
            }
            if self.fuse(src) {
                return;
            }
        }
        self.code.push(instr);
        self.lines.push(self.line);
    }

    /// Makes this function's every `return` return the fields of its
    /// result, a tuple of struct `ty` whose fields have `classes`, to a
    /// caller that takes them apart (`call.unpack`), as the verifier's
    /// `returns_fields` asks of a callee of one. Set before anything is
    /// emitted.
    pub(crate) fn returns_fields(&mut self, ty: cove_ir::types::StructId, classes: Vec<bool>) {
        self.fields = Some((ty, classes));
    }

    /// Says the `call` just emitted calls a function that returns the
    /// same tuple's fields (every function whose result is this one's
    /// tuple does): a `return` of its result takes them apart
    /// (`call.unpack`) and passes them on. Nothing where this function
    /// returns no fields.
    pub(crate) fn called_for_fields(&mut self) {
        if self.fields.is_some() {
            debug_assert!(matches!(self.code.last(), Some(Instr::Call { .. })));
            self.fields_call = Some(self.code.len() - 1);
        }
    }

    /// Where a pc the lowering took before instructions were put in front
    /// of the one that made a returned tuple (a `return.unpacked` before a
    /// `new.struct`; a `return.unpacked` and a `new.struct` after a call
    /// made a `call.unpack`) now is: the pc just past that instruction
    /// (where a local it made a value for starts, or a scope that held it
    /// ends) is as many further on; every other pc taken before is where
    /// it was, and every one taken after is already right (none of those
    /// is a pc that moved).
    pub(crate) fn hoisted(&self, pc: u32) -> u32 {
        match self.hoisted.binary_search_by_key(&pc, |&(at, _)| at) {
            Ok(i) => pc + self.hoisted[i].1,
            Err(_) => pc,
        }
    }

    /// Emits `return src` after a `return.unpacked` of `src`'s fields: of
    /// the registers the `new.struct` right before it made `src` of, moved
    /// after the `return.unpacked` (so a caller that takes the tuple apart
    /// never has it made), or else of its fields read out of `src`.
    fn return_fields(&mut self, src: Reg, ty: cove_ir::types::StructId, classes: &[bool]) {
        let count = classes.len() as u16;
        if !self.label_here()
            && let Some(
                &made @ Instr::NewStruct {
                    dst,
                    ty: made_ty,
                    base,
                    count: made_count,
                },
            ) = self.code.last()
            && dst == src
            && made_ty == ty
            && made_count == count
        {
            // A label bound at the `new.struct` now lands on the
            // `return.unpacked`, which is where a jump there must go.
            let at = self.code.len() - 1;
            let line = self.lines[at];
            self.hoisted.push((self.code.len() as u32, 1));
            self.code[at] = Instr::ReturnUnpacked { base, count };
            self.code.push(made);
            self.lines.push(line);
        } else if !self.label_here()
            && let Some(&Instr::Call {
                dst,
                func,
                base: args,
                count: given,
            }) = self.code.last()
            && dst == src
            && self.fields_call == Some(self.code.len() - 1)
        {
            // Another function's tuple returned as it came (`fn f(n) ->
            // (A, B) { g(n - 1) }`): its call takes it apart, and the
            // fields go on to a caller that takes them apart too, the
            // tuple made only for one that does not.
            let at = self.code.len() - 1;
            let line = self.lines[at];
            let base = self.alloc_window(classes);
            self.hoisted.push((self.code.len() as u32, 2));
            self.code[at] = Instr::CallUnpack {
                dst: base,
                func,
                base: args,
                count: given,
            };
            self.code.push(Instr::ReturnUnpacked { base, count });
            self.lines.push(line);
            self.code.push(Instr::NewStruct {
                dst: src,
                ty,
                base,
                count,
            });
            self.lines.push(line);
            self.free_window(base, classes.len());
        } else {
            let base = self.alloc_window(classes);
            for field in 0..count {
                self.code.push(Instr::GetField {
                    dst: Reg(base.0 + field),
                    obj: src,
                    ty,
                    field,
                });
                self.lines.push(self.line);
            }
            self.code.push(Instr::ReturnUnpacked { base, count });
            self.lines.push(self.line);
            self.free_window(base, classes.len());
        }
        self.code.push(Instr::Return { src });
        self.lines.push(self.line);
    }

    /// Emits the instruction that takes a pattern's value out of what it
    /// matched into `instr`'s destination, a register just allocated for
    /// the pattern, which nothing has read or written yet. Such an
    /// `unwrap` may write its register on the path where the `Option` was
    /// `None` too, as `jump-none.unwrap` and `jump-some.unwrap` do: right
    /// after the `jump-none` of the same register (no label bound
    /// between, one source line) the two are fused here, and a
    /// `jump-some` to it is fused when the function is finished.
    pub(crate) fn emit_binding(&mut self, instr: Instr) {
        self.unfuse();
        let pc = self.pc();
        if let Instr::Unwrap { dst, opt, .. } = instr
            && let Some(Instr::JumpNone {
                opt: tested,
                target,
            }) = self.fusable_last()
            && tested == opt
        {
            // The jump's fixup is at the same pc, and still finds a target.
            let at = self.code.len() - 1;
            self.code[at] = Instr::JumpNoneUnwrap { dst, opt, target };
            return;
        }
        self.emit(instr);
        if matches!(instr, Instr::Unwrap { .. }) {
            self.bindings.push(pc);
        }
    }

    /// Fuses a `return src` with the compare-and-jump before it, if that
    /// jump goes forward to a label not yet bound and nothing jumps to the
    /// return itself; true if it did.
    fn fuse(&mut self, src: Reg) -> bool {
        let Some(&last) = self.code.last() else {
            return false;
        };
        let at = self.code.len() - 1;
        // Only the last fixup can be at the last instruction: they are in
        // the order of their pcs.
        let Some(fixup) = self
            .fixups
            .len()
            .checked_sub(1)
            .filter(|&last| self.fixups[last].0 == at)
        else {
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
        self.jumps[label.0] -= 1;
        self.code[at] = fused;
        self.guard = Some(Guard {
            jump: last,
            label,
            src,
            line: self.line,
        });
        true
    }

    /// Fuses `instr` with the instruction before it into one
    /// superinstruction (`move2`, `mul-add.float`, `mul-sub.float`), if they are a pair that
    /// has one, of one source line, and no label is bound where `instr`
    /// would go (a jump landing between the two must find an instruction
    /// there); true if it did. The pairs are the ones
    /// `cargo xtask opcode-pairs` found commonest over the benchmarks.
    fn fuse_pair(&mut self, instr: Instr) -> bool {
        let Some(last) = self.fusable_last() else {
            return false;
        };
        let fused = match (last, instr) {
            (
                Instr::Move { dst, src },
                Instr::Move {
                    dst: second,
                    src: from,
                },
            ) => Instr::Move2 {
                dst,
                src,
                second,
                from,
            },
            // The product added on either side (`c + x * y`, `2.0 * x * y
            // + c`): addition is commutative in IEEE arithmetic, the
            // result's bits included but for which of two NaNs' payloads a
            // NaN carries, which no Cove program can read.
            (
                Instr::MulFloat { dst: product, a, b },
                Instr::AddFloat {
                    dst,
                    a: left,
                    b: right,
                },
            ) if left == product || right == product => Instr::MulAddFloat {
                dst,
                c: if right == product { left } else { right },
                product,
                a,
                b,
            },
            (
                Instr::MulFloat { dst: product, a, b },
                Instr::SubFloat {
                    dst,
                    a: c,
                    b: subtracted,
                },
            ) if subtracted == product => Instr::MulSubFloat {
                dst,
                c,
                product,
                a,
                b,
            },
            // A variable moved into the first argument of a closure call
            // (`f(x)` through a function value): the move's register is the
            // window's first, which the call lends the callee anyway.
            (
                Instr::Move { dst: moved, src },
                Instr::CallClosure {
                    dst,
                    callee,
                    base,
                    count,
                },
            ) if moved == base && count >= 1 && callee != moved => Instr::MoveCallClosure {
                dst,
                callee,
                base,
                count,
                src,
            },
            // A sum returned at once (`fib(n - 1) + fib(n - 2)`, `x + 1`):
            // nothing reads the sum's register after the return.
            (Instr::AddInt { dst, a, b }, Instr::Return { src }) if src == dst => {
                Instr::ReturnAddInt { a, b }
            }
            (Instr::AddIntImm { dst, a, value }, Instr::Return { src }) if src == dst => {
                Instr::ReturnAddIntImm { a, value }
            }
            // A remainder by a small constant added to something else
            // (`total + i % 7`), on either side: `Int` addition is
            // commutative, its overflow included. Not when both sides are
            // the remainder, which the fused instruction reads only after
            // writing it.
            (
                Instr::RemIntImm { dst: rem, a, value },
                Instr::AddInt {
                    dst,
                    a: left,
                    b: right,
                },
            ) if (left == rem) != (right == rem) && i16::try_from(value).is_ok() => {
                Instr::RemAddIntImm {
                    dst,
                    c: if left == rem { right } else { left },
                    rem,
                    a,
                    divisor: value as i16,
                }
            }
            // A call's first argument computed in its window by a constant
            // added (`fib(n - 1)`), the result returned into the same
            // register: the sum's register is written by the instruction,
            // as the pair writes it. Not in a function that returns a
            // tuple's fields, whose returns look for a plain `call` before
            // them to take its result apart (`called_for_fields`).
            (
                Instr::AddIntImm {
                    dst: argument,
                    a,
                    value,
                },
                Instr::Call {
                    dst,
                    func,
                    base,
                    count,
                },
            ) if argument == base && dst == base && count >= 1 && self.fields.is_none() => {
                match i8::try_from(value) {
                    Ok(offset) => Instr::AddCall {
                        func,
                        base,
                        count,
                        a,
                        offset,
                    },
                    Err(_) => return false,
                }
            }
            // A product by a constant added in place (`r * 9 + c`, `h * 31
            // + x`), on either side: the product's register is the sum's,
            // so nothing after the pair sees the product alone. Not when
            // both sides are the product, which the fused instruction
            // would read before writing it.
            (
                Instr::MulIntImm {
                    dst: product,
                    a,
                    value,
                },
                Instr::AddInt {
                    dst,
                    a: left,
                    b: right,
                },
            ) if dst == product && (left == product) != (right == product) => Instr::MulAddIntImm {
                dst,
                a,
                value,
                b: if left == product { right } else { left },
            },
            // A constant added in place to a sum (`row - c + n - 1`): the
            // sum's register is the one the constant goes to, so nothing
            // after the pair sees the sum alone.
            (
                Instr::AddInt { dst: sum, a, b },
                Instr::AddIntImm {
                    dst,
                    a: added,
                    value,
                },
            ) if added == sum && dst == sum => Instr::AddAddIntImm { dst, a, b, value },
            // An index stepped in place and read at once (`i += 1` then
            // `a[i]`): the step's register is the index, and stays
            // written, so nothing after the pair sees a difference.
            (
                Instr::AddIntImm {
                    dst: stepped,
                    a,
                    value,
                },
                Instr::GetList {
                    dst,
                    list,
                    index,
                    ty,
                },
            ) if stepped == a && index == stepped => match i8::try_from(value) {
                Ok(offset) => Instr::StepGetList {
                    dst,
                    list,
                    index,
                    ty,
                    offset,
                },
                Err(_) => return false,
            },
            _ => return false,
        };
        let at = self.code.len() - 1;
        self.code[at] = fused;
        true
    }

    /// The superinstruction of a `jump-if` or `jump-ifnot` and the
    /// instruction before it that wrote the Bool it tests, if they have one
    /// (`jump-if.list` of a `get.list` on a `List[Bool]`,
    /// `jump-ifnot.lt.float` of an `lt.float`, ...), or of a `jump-eq` or
    /// `jump-ne` against 0 and the `rem.int.imm` that wrote what it tests
    /// (`rem-jump-ne.int.imm`): on one source line, with no label bound
    /// where the jump would go, as for [`Emitter::fuse_pair`]. The fused
    /// instruction still writes the Bool or the remainder, so whether the
    /// register is read again does not matter.
    fn fuse_test(&self, instr: Instr) -> Option<Instr> {
        let last = self.fusable_last()?;
        let target = 0;
        // A remainder by a small constant tested against 0 (`if n % 2 ==
        // 0`): the remainder is written as the pair writes it.
        if let Instr::RemIntImm {
            dst: rem,
            a,
            value: divisor,
        } = last
            && let Ok(divisor) = i16::try_from(divisor)
        {
            return match instr {
                Instr::JumpEqIntImm {
                    a: tested,
                    value: 0,
                    ..
                } if tested == rem => Some(Instr::RemJumpEqIntImm {
                    rem,
                    a,
                    divisor,
                    target,
                }),
                Instr::JumpNeIntImm {
                    a: tested,
                    value: 0,
                    ..
                } if tested == rem => Some(Instr::RemJumpNeIntImm {
                    rem,
                    a,
                    divisor,
                    target,
                }),
                _ => None,
            };
        }
        let (cond, when) = match instr {
            Instr::JumpIf { cond, .. } => (cond, true),
            Instr::JumpIfNot { cond, .. } => (cond, false),
            _ => return None,
        };
        Some(match last {
            Instr::GetList {
                dst,
                list,
                index,
                ty,
            } if dst == cond && ty == Program::BOOL => {
                if when {
                    Instr::JumpIfList {
                        dst,
                        list,
                        index,
                        target,
                    }
                } else {
                    Instr::JumpIfNotList {
                        dst,
                        list,
                        index,
                        target,
                    }
                }
            }
            Instr::LtFloat { dst, a, b } if dst == cond => {
                if when {
                    Instr::JumpIfLtFloat { dst, a, b, target }
                } else {
                    Instr::JumpIfNotLtFloat { dst, a, b, target }
                }
            }
            Instr::LeFloat { dst, a, b } if dst == cond => {
                if when {
                    Instr::JumpIfLeFloat { dst, a, b, target }
                } else {
                    Instr::JumpIfNotLeFloat { dst, a, b, target }
                }
            }
            // `while opt.is_some()`: the test of the Option itself, which
            // writes no Bool, so only where the Bool's register is free
            // again (a temporary the lowering released before its jump),
            // which nothing reads after.
            Instr::CallBuiltin {
                dst,
                builtin: builtin @ (Builtin::OptionIsSome | Builtin::OptionIsNone),
                base: opt,
                count: 1,
            } if dst == cond && self.free.get(usize::from(dst.0)) == Some(&true) => {
                if when == (builtin == Builtin::OptionIsSome) {
                    Instr::JumpSome { opt, target }
                } else {
                    Instr::JumpNone { opt, target }
                }
            }
            _ => return None,
        })
    }

    /// The register `instr`, a read of a list's element or a struct's
    /// field, writes, and one that already holds what it would read, if
    /// one does: the same read was emitted a few instructions before, or a
    /// store of that register to the same element or field, on the one
    /// path that reaches here (no jump lands in between), and nothing since
    /// wrote the register, the list's, the index's, the struct's or
    /// anything in the heap. The second read of
    /// `if a[i] <= a[j] { tmp[k] = a[i] }` is then no instruction at all,
    /// and the read of `c` in `c += 1; c` (a captured `var`, a field of its
    /// cell) a `move` or nothing. Only instructions known to write nothing
    /// but their named register are looked past, so a store, a call or a
    /// builtin between the two (any of which may change the list or the
    /// struct) keeps the read.
    fn loaded_already(&self, instr: Instr) -> Option<(Reg, Reg)> {
        /// How far back to look: a condition and the first statement of
        /// its branch.
        const WINDOW: usize = 6;
        let (dst, sources) = match instr {
            Instr::GetList {
                dst, list, index, ..
            }
            | Instr::GetListImm {
                dst, list, index, ..
            } => (dst, [list, index]),
            Instr::GetField { dst, obj, .. } => (dst, [obj, obj]),
            _ => return None,
        };
        // A read over its own list, index or struct reads something else
        // the second time.
        if sources.contains(&dst) {
            return None;
        }
        // From the last landing on: where a label is bound here, that is
        // here, and there is nothing to look at.
        let end = self.code.len();
        let first = end.saturating_sub(WINDOW).max(self.landing as usize);
        // The registers the instructions after the one looked at write.
        let mut since = [Reg(u16::MAX); WINDOW];
        for (k, pc) in (first..end).rev().enumerate() {
            let here = self.code[pc];
            if here == instr {
                return Some((dst, dst));
            }
            if let Some(src) = stored(here, instr)
                && !since.contains(&src)
            {
                return Some((dst, src));
            }
            let written = match here {
                Instr::GetList { dst: d, .. }
                | Instr::GetListImm { dst: d, .. }
                | Instr::GetField { dst: d, .. }
                | Instr::Move { dst: d, .. }
                | Instr::LoadInt { dst: d, .. }
                | Instr::AddInt { dst: d, .. }
                | Instr::AddIntImm { dst: d, .. }
                | Instr::SubInt { dst: d, .. }
                | Instr::JumpIfLtFloat { dst: d, .. }
                | Instr::JumpIfNotLtFloat { dst: d, .. }
                | Instr::JumpIfLeFloat { dst: d, .. }
                | Instr::JumpIfNotLeFloat { dst: d, .. } => Some(d),
                Instr::JumpEqInt { .. }
                | Instr::JumpNeInt { .. }
                | Instr::JumpLtInt { .. }
                | Instr::JumpLeInt { .. }
                | Instr::JumpGtInt { .. }
                | Instr::JumpGeInt { .. }
                | Instr::JumpEqIntImm { .. }
                | Instr::JumpNeIntImm { .. }
                | Instr::JumpLtIntImm { .. }
                | Instr::JumpLeIntImm { .. }
                | Instr::JumpGtIntImm { .. }
                | Instr::JumpGeIntImm { .. } => None,
                _ => return None,
            };
            if let Some(w) = written {
                if w == dst || sources.contains(&w) {
                    return None;
                }
                since[k] = w;
            }
        }
        None
    }

    /// Puts back the compare-and-jump and the `return` of an unconfirmed
    /// guarded return.
    fn unfuse(&mut self) {
        if let Some(guard) = self.guard.take() {
            let at = self.code.len() - 1;
            self.code[at] = guard.jump;
            self.fixups.push((at, guard.label));
            self.jumps[guard.label.0] += 1;
            self.code.push(Instr::Return { src: guard.src });
            self.lines.push(guard.line);
        }
    }

    /// The lowest free register of the class, or a new one.
    pub(crate) fn alloc(&mut self, is_ref: bool) -> Reg {
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
    pub(crate) fn pin(&mut self, is_ref: bool) -> Reg {
        let r = self.grow(is_ref);
        if !self.overflowed {
            self.pins.push(r.0);
        }
        r
    }

    /// One past the highest register in use, not counting pins: where a
    /// call's window may start. A callee's frame lies over the caller's
    /// registers from its first argument up, so nothing the caller still
    /// needs may be there. Pins, though they live for the whole function,
    /// are not counted: [`Emitter::finish`] moves them below every window.
    pub(crate) fn top(&self) -> usize {
        (0..self.free.len())
            .rev()
            .find(|&r| !self.free[r] && !self.is_pin(r))
            .map_or(0, |r| r + 1)
    }

    fn is_pin(&self, r: usize) -> bool {
        self.pins.binary_search(&(r as u16)).is_ok()
    }

    /// Whether every register after `r` is free (or pinned): a call's
    /// window may start at `r` itself.
    pub(crate) fn is_top(&self, r: Reg) -> bool {
        self.top() <= usize::from(r.0) + 1
    }

    /// Takes the registers right after `first` for the rest of an argument
    /// window (`classes`), if they are free and of those classes, so the
    /// value already in `first` need not be moved. False if they are not.
    pub(crate) fn window_after(&mut self, first: Reg, classes: &[bool]) -> bool {
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
    /// `classes[i]`: the operands of an instruction that reads a window
    /// (a builtin's arguments, a struct's fields), the lowest that fits.
    pub(crate) fn alloc_window(&mut self, classes: &[bool]) -> Reg {
        if classes.is_empty() {
            return Reg(0);
        }
        self.window_from(0, classes)
    }

    /// The argument window of a call to a Cove function: like
    /// [`Emitter::alloc_window`], but above every register in use (see
    /// [`Emitter::top`]), since the callee's frame starts there. With no
    /// arguments, the window is empty and only its place matters.
    pub(crate) fn call_window(&mut self, classes: &[bool]) -> Reg {
        let top = self.top();
        self.window_from(top, classes)
    }

    fn window_from(&mut self, from: usize, classes: &[bool]) -> Reg {
        let n = self.classes.len();
        let fits = |start: usize, this: &Emitter| {
            classes.iter().enumerate().all(|(i, &c)| {
                let r = start + i;
                r >= n || (this.free[r] && this.classes[r] == c)
            })
        };
        let start = (from..=n).find(|&s| fits(s, self)).unwrap_or(n);
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
    pub(crate) fn free(&mut self, r: Reg) {
        if let Some(f) = self.free.get_mut(r.0 as usize)
            && !*f
        {
            *f = true;
            self.pools[usize::from(self.classes[r.0 as usize])].insert(r.0);
        }
    }

    /// Frees the `count` registers from `base`: a window whose values the
    /// instruction that took them has read.
    pub(crate) fn free_window(&mut self, base: Reg, count: usize) {
        for i in 0..count {
            self.free(Reg(base.0.wrapping_add(i as u16)));
        }
    }

    pub(crate) fn label(&mut self) -> Label {
        self.labels.push(None);
        self.jumps.push(0);
        Label(self.labels.len() - 1)
    }

    /// Binds the label to the next instruction.
    pub(crate) fn bind(&mut self, label: Label) {
        match self.guard {
            // The jump's target is the next instruction: the fusion stands.
            Some(guard) if guard.label == label => self.guard = None,
            Some(_) => self.unfuse(),
            None => {}
        }
        let pc = self.pc();
        self.labels[label.0] = Some(pc);
        self.landing = pc;
        if self.bound_here.0 != pc {
            self.bound_here = (pc, Vec::new());
        }
        self.bound_here.1.push(label);
    }

    /// Binds `label`, every jump to which is already emitted (a label only
    /// jumped to forward, as a `while` loop's condition is by `continue`):
    /// if none was, nothing can land here, and the binding does not keep
    /// the instructions on either side of it from fusing (a scan's `i +=
    /// 1` at the end of the body and the condition's `a[i]`).
    pub(crate) fn bind_forward(&mut self, label: Label) {
        let guarded = self.guard.is_some_and(|guard| guard.label == label);
        let landing = self.landing;
        self.bind(label);
        if !guarded && self.jumps[label.0] == 0 {
            self.bound_here.1.retain(|&bound| bound != label);
            if self.bound_here.1.is_empty() {
                self.landing = landing;
            }
        }
    }

    /// The last instruction, if the next may be fused with it: no label is
    /// bound between the two (a jump landing between them must find an
    /// instruction there), and both are of the current source line (a
    /// line's count stays its own). The one rule of every pair fusion.
    fn fusable_last(&self) -> Option<Instr> {
        let pc = self.pc();
        if self.bound_here.0 == pc && !self.bound_here.1.is_empty() {
            return None;
        }
        match (self.code.last(), self.lines.last()) {
            (Some(&last), Some(&line)) if line == self.line => Some(last),
            _ => None,
        }
    }

    /// Whether some label is bound to the next instruction (so code that
    /// jumps there needs an instruction to land on).
    pub(crate) fn label_here(&self) -> bool {
        let pc = self.pc();
        self.bound_here.0 == pc
            && self
                .bound_here
                .1
                .iter()
                .any(|l| self.labels[l.0] == Some(pc) && self.jumps[l.0] > 0)
    }

    /// Emits a jump whose target is patched to `label` when the function
    /// is finished. `instr` is built with a placeholder target.
    pub(crate) fn jump(&mut self, instr: Instr, label: Label) {
        // A pending guarded return is put back first, so the jump's pc is
        // where it lands and the fixups stay in the order of their pcs.
        self.unfuse();
        if let Some(fused) = self.fuse_test(instr) {
            // The fused jump takes the place of the instruction before it,
            // which jumped nowhere, so the fixups stay in order.
            let at = self.code.len() - 1;
            self.code[at] = fused;
            self.fixups.push((at, label));
            self.jumps[label.0] += 1;
            return;
        }
        self.fixups.push((self.code.len(), label));
        self.jumps[label.0] += 1;
        self.emit(instr);
    }

    /// The code (after the prologue), lines, reference map, frame size, and
    /// where each register the lowering saw went (see
    /// [`Emitter::sink_pins`]). Every pc the lowering saw moves up by the
    /// prologue's length.
    pub(crate) fn finish(mut self, params: usize) -> Finished {
        self.unfuse();
        let shift = self.prologue.len() as u32;
        if shift > 0 {
            for label in self.labels.iter_mut().flatten() {
                *label += shift;
            }
            for fixup in &mut self.fixups {
                fixup.0 += shift as usize;
            }
            for binding in &mut self.bindings {
                *binding += shift;
            }
            let line = self.lines.first().copied().unwrap_or(self.line);
            let mut code = std::mem::take(&mut self.prologue);
            code.append(&mut self.code);
            self.code = code;
            let mut lines = vec![line; shift as usize];
            lines.append(&mut self.lines);
            self.lines = lines;
        }
        // How many jumps land on each pc (one past the code included).
        let mut landing_here = vec![0u32; self.code.len() + 1];
        for (at, label) in std::mem::take(&mut self.fixups) {
            let target = self.labels[label.0].unwrap_or(self.code.len() as u32);
            self.code[at] = retarget(self.code[at], target);
            landing_here[target as usize] += 1;
        }
        // Before the threading, which may send other jumps to a binding's
        // `unwrap`: see `fuse_unwraps`.
        fuse_unwraps(&mut self.code, &self.bindings, &landing_here);
        // A `return` copied to a jump would not come after its
        // `return.unpacked`.
        thread_jumps(&mut self.code, &mut self.lines, self.fields.is_none());
        let moved = self.sink_pins(params);
        let registers = self.classes.len() as u16;
        Finished {
            code: self.code,
            lines: self.lines,
            refs: self.classes,
            registers,
            moved,
        }
    }

    /// Renumbers the registers so the pins come right after the `params`
    /// parameters, and gives each old register's new number.
    ///
    /// A pin is made when a loop first needs its constant, which may be
    /// after calls were emitted whose windows (see [`Emitter::top`]) start
    /// below the register it got; their callees would overwrite it. Below
    /// every window it is safe. Every other register keeps its order, so
    /// each window stays consecutive and above everything in use at its
    /// call. A base of an empty window moves as a register there would.
    fn sink_pins(&mut self, params: usize) -> Vec<u16> {
        let n = self.classes.len();
        let pins = std::mem::take(&mut self.pins);
        let k = pins.len();
        if k == 0 {
            return (0..n as u16).collect();
        }
        debug_assert!(pins.iter().all(|&p| usize::from(p) >= params));
        // Where a register that is not a pin goes, or an empty window
        // starting at `r`: up by the number of pins above it.
        let slot = |r: usize| {
            if r < params {
                r
            } else {
                r + k - pins.partition_point(|&p| usize::from(p) < r)
            }
        };
        let moved: Vec<u16> = (0..n)
            .map(|r| match pins.binary_search(&(r as u16)) {
                Ok(m) => (params + m) as u16,
                Err(_) => slot(r) as u16,
            })
            .collect();
        let map = |r: Reg| Reg(moved.get(usize::from(r.0)).copied().unwrap_or(r.0));
        for instr in &mut self.code {
            let kinds = instr.opcode().operand_kinds();
            let mut operands = instr.operands();
            for i in 0..operands.len() {
                let Operand::Reg(r) = operands[i] else {
                    continue;
                };
                let pinned = pins.binary_search(&r.0).is_ok();
                let count = match operands.get(i + 1) {
                    Some(Operand::Count(c)) => Some(*c),
                    _ => None,
                };
                // A window of two or more never starts at a pin: a pin is
                // never free, and no window is built after one in place.
                debug_assert!(
                    kinds[i] != OperandKind::Base || !pinned || matches!(count, Some(0 | 1))
                );
                operands[i] = Operand::Reg(match kinds[i] {
                    OperandKind::Base if count == Some(0) || !pinned => {
                        Reg(slot(usize::from(r.0)).min(MAX_REGISTERS - 1) as u16)
                    }
                    _ => map(r),
                });
            }
            if let Ok(renumbered) = Instr::from_operands(instr.opcode(), &operands) {
                *instr = renumbered;
            }
        }
        let mut classes = vec![false; n];
        for (r, &to) in moved.iter().enumerate() {
            classes[usize::from(to)] = self.classes[r];
        }
        self.classes = classes;
        moved
    }
}

/// A function's code and frame, as [`Emitter::finish`] leaves them.
pub(crate) struct Finished {
    pub code: Vec<Instr>,
    pub lines: Vec<u32>,
    /// `refs[r]`: whether register `r` is a ref register.
    pub refs: Vec<bool>,
    pub registers: u16,
    /// `moved[r]`: the number the lowering's register `r` now has.
    pub moved: Vec<u16>,
}

/// The instruction a call of a builtin is, where the IR has one: a
/// conversion or a square root in a loop then costs one dispatch, not a
/// builtin call's bookkeeping (copying the arguments out, the call, the
/// collection check). The two compute the same bits as the builtins.
/// `instr` with its jump target set to `target`.
fn retarget(instr: Instr, target: u32) -> Instr {
    let operands: Vec<Operand> = instr
        .operands()
        .into_iter()
        .map(|o| match o {
            Operand::Target(_) => Operand::Target(target),
            other => other,
        })
        .collect();
    Instr::from_operands(instr.opcode(), &operands).unwrap_or(instr)
}

/// Where control that jumps to `pc` goes on: past every unconditional
/// `jump` it would run first. A cycle of jumps (a `loop {}` with nothing
/// in it) is followed at most once round and stays a cycle.
fn landing(code: &[Instr], mut pc: u32) -> u32 {
    for _ in 0..code.len() {
        match code.get(pc as usize) {
            Some(&Instr::Jump { target }) if target != pc => pc = target,
            _ => break,
        }
    }
    pc
}

/// Jump threading, once every target is known: a jump to an unconditional
/// `jump` goes straight to where that one goes, and an unconditional jump
/// to a `return` is that return, with its line (a debugger stops there on
/// the line that returns, and a profile counts the return on it). The
/// lowering makes such chains wherever a construct's end is another's: a
/// `match` arm inside a `loop` ended in three jumps in a row, a quarter of
/// a linked-list walk's instructions. No pc moves, so the labels the
/// lowering saw and the pins' renumbering stay as they are; a jump that
/// every jump now passes by is left in place, unreached, as dead code the
/// verifier already accepts. What runs is the same but for the jumps it
/// no longer runs, which a profile then does not count: it counts what
/// the VM ran. A jump to a `return` stays a jump where `copy_returns` is
/// false: in a function that returns its fields (`Emitter::returns_fields`),
/// every `return` must come right after its `return.unpacked`.
fn thread_jumps(code: &mut [Instr], lines: &mut [u32], copy_returns: bool) {
    for pc in 0..code.len() {
        let instr = code[pc];
        let Some(target) = instr.target() else {
            continue;
        };
        let lands = landing(code, target);
        match (instr, code.get(lands as usize)) {
            (Instr::Jump { .. }, Some(&end @ (Instr::Return { .. } | Instr::ReturnUnit {})))
                if copy_returns =>
            {
                code[pc] = end;
                if let Some(&line) = lines.get(lands as usize)
                    && let Some(here) = lines.get_mut(pc)
                {
                    *here = line;
                }
            }
            _ if lands != target => code[pc] = retarget(instr, lands),
            _ => {}
        }
    }
}

/// Makes a `jump-some` whose target is the `unwrap` of a `Some(x)`
/// pattern ([`Emitter::emit_binding`]'s `bindings`, in order) of the
/// register it tests a `jump-some.unwrap` to the instruction after it:
/// the layout of a `match` whose `None` arm comes first, where the `Some`
/// arm's first instruction is the jump's target. The `unwrap` stays, for
/// any other way into the arm.
///
/// Only where that jump is the one jump to the `unwrap` (`landing_here`
/// counts them): then it is the test of the pattern before, whose
/// fall-through is that pattern's arm, lowered before the binding's
/// register was allocated, so the arm writes any register it shares with
/// the binding before reading it, and the 0 the fused jump writes there is
/// read by nothing.
fn fuse_unwraps(code: &mut [Instr], bindings: &[u32], landing_here: &[u32]) {
    for pc in 0..code.len() {
        let Instr::JumpSome { opt, target } = code[pc] else {
            continue;
        };
        if bindings.binary_search(&target).is_err()
            || landing_here.get(target as usize) != Some(&1)
            || target as usize + 1 >= code.len()
        {
            continue;
        }
        if let Instr::Unwrap {
            dst,
            opt: unwrapped,
            ..
        } = code[target as usize]
            && unwrapped == opt
        {
            code[pc] = Instr::JumpSomeUnwrap {
                dst,
                opt,
                target: target + 1,
            };
        }
    }
}

fn instead_of_builtin(instr: Instr) -> Instr {
    match instr {
        Instr::CallBuiltin {
            dst,
            builtin: Builtin::IntToFloat,
            base,
            count: 1,
        } => Instr::ToFloatInt { dst, src: base },
        Instr::CallBuiltin {
            dst,
            builtin: Builtin::FloatSqrt,
            base,
            count: 1,
        } => Instr::SqrtFloat { dst, a: base },
        other => other,
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
        e.finish(0).code
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

    fn unwrap_of(opt: u16, dst: u16) -> Instr {
        Instr::Unwrap {
            dst: Reg(dst),
            opt: Reg(opt),
            ty: Program::INT,
        }
    }

    #[test]
    fn a_none_test_then_a_bindings_unwrap_of_it_is_one_fused_jump() {
        let mut e = Emitter::new();
        let none = e.label();
        e.jump(
            Instr::JumpNone {
                opt: Reg(0),
                target: 0,
            },
            none,
        );
        e.emit_binding(unwrap_of(0, 1));
        e.emit(Instr::Return { src: Reg(1) });
        e.bind(none);
        e.emit(Instr::ReturnUnit {});
        assert_eq!(
            code(e),
            [
                Instr::JumpNoneUnwrap {
                    dst: Reg(1),
                    opt: Reg(0),
                    target: 2
                },
                Instr::Return { src: Reg(1) },
                Instr::ReturnUnit {},
            ]
        );
    }

    #[test]
    fn an_unwrap_not_a_bindings_or_of_another_register_or_after_a_label_is_not_fused() {
        // `opt.unwrap()`, whose register may be a variable the None path
        // reads; an unwrap of another Option; one a jump lands on.
        for case in 0..3 {
            let mut e = Emitter::new();
            let (none, other) = (e.label(), e.label());
            e.jump(
                Instr::JumpNone {
                    opt: Reg(0),
                    target: 0,
                },
                none,
            );
            match case {
                0 => e.emit(unwrap_of(0, 1)),
                1 => e.emit_binding(unwrap_of(2, 1)),
                _ => {
                    e.jump(
                        Instr::JumpNone {
                            opt: Reg(0),
                            target: 0,
                        },
                        other,
                    );
                    e.bind(other);
                    e.emit_binding(unwrap_of(0, 1));
                }
            }
            e.bind(none);
            e.emit(Instr::ReturnUnit {});
            let code = code(e);
            assert!(
                !code
                    .iter()
                    .any(|i| matches!(i, Instr::JumpNoneUnwrap { .. })),
                "case {case}: {code:?}"
            );
        }
    }

    /// `match o { None => ..., Some(x) => ... }`: the `None` pattern's
    /// `jump-some` to the `Some` arm, whose binding's `unwrap` starts it;
    /// with `second_way`, another jump lands on that `unwrap` too.
    fn none_arm_first(second_way: bool) -> Vec<Instr> {
        let mut e = Emitter::new();
        let some = e.label();
        e.jump(
            Instr::JumpSome {
                opt: Reg(0),
                target: 0,
            },
            some,
        );
        if second_way {
            e.jump(
                Instr::JumpIf {
                    cond: Reg(2),
                    target: 0,
                },
                some,
            );
        }
        e.emit(Instr::ReturnUnit {});
        e.bind(some);
        e.emit_binding(unwrap_of(0, 1));
        e.emit(Instr::Return { src: Reg(1) });
        code(e)
    }

    #[test]
    fn a_some_test_to_a_bindings_unwrap_of_it_takes_it_in_and_jumps_past_it() {
        assert_eq!(
            none_arm_first(false),
            [
                Instr::JumpSomeUnwrap {
                    dst: Reg(1),
                    opt: Reg(0),
                    target: 3
                },
                Instr::ReturnUnit {},
                unwrap_of(0, 1),
                Instr::Return { src: Reg(1) },
            ]
        );
    }

    #[test]
    fn a_some_test_is_not_fused_with_an_unwrap_another_jump_lands_on_too() {
        // Only the pattern's own test may write the binding's register on
        // its other path; with a second way in, nothing says which.
        assert_eq!(
            none_arm_first(true)[0],
            Instr::JumpSome {
                opt: Reg(0),
                target: 3
            }
        );
    }

    #[test]
    fn a_jump_to_a_jump_goes_where_the_last_of_the_chain_goes() {
        let mut e = Emitter::new();
        let (first, second, end) = (e.label(), e.label(), e.label());
        e.jump(
            Instr::JumpNone {
                opt: Reg(0),
                target: 0,
            },
            first,
        );
        e.line = 2;
        e.bind(first);
        e.jump(Instr::Jump { target: 0 }, second);
        e.bind(second);
        e.jump(Instr::Jump { target: 0 }, end);
        e.emit(Instr::Move {
            dst: Reg(1),
            src: Reg(0),
        });
        e.bind(end);
        e.emit(Instr::Move {
            dst: Reg(2),
            src: Reg(0),
        });
        e.emit(Instr::ReturnUnit {});
        let finished = e.finish(0);
        assert_eq!(
            finished.code,
            [
                Instr::JumpNone {
                    opt: Reg(0),
                    target: 4
                },
                Instr::Jump { target: 4 },
                Instr::Jump { target: 4 },
                Instr::Move {
                    dst: Reg(1),
                    src: Reg(0)
                },
                Instr::Move {
                    dst: Reg(2),
                    src: Reg(0)
                },
                Instr::ReturnUnit {},
            ]
        );
        // No pc moved, so no line did.
        assert_eq!(finished.lines, [1, 2, 2, 2, 2, 2]);
    }

    #[test]
    fn a_jump_to_a_return_is_that_return_on_its_line() {
        let mut e = Emitter::new();
        let end = e.label();
        e.jump(Instr::Jump { target: 0 }, end);
        e.emit(Instr::Move {
            dst: Reg(1),
            src: Reg(0),
        });
        e.line = 7;
        e.bind(end);
        e.emit(Instr::Return { src: Reg(0) });
        let finished = e.finish(0);
        assert_eq!(
            finished.code,
            [
                Instr::Return { src: Reg(0) },
                Instr::Move {
                    dst: Reg(1),
                    src: Reg(0)
                },
                Instr::Return { src: Reg(0) },
            ]
        );
        assert_eq!(finished.lines, [7, 1, 7]);
    }

    #[test]
    fn a_cycle_of_jumps_stays_a_cycle() {
        // `loop {}`: a jump to itself, and two jumps to each other.
        let mut e = Emitter::new();
        let (a, b) = (e.label(), e.label());
        e.bind(a);
        e.jump(Instr::Jump { target: 0 }, b);
        e.bind(b);
        e.jump(Instr::Jump { target: 0 }, a);
        let finished = e.finish(0);
        assert!(
            matches!(
                finished.code[..],
                [Instr::Jump { target: 0 | 1 }, Instr::Jump { target: 0 | 1 }]
            ),
            "{:?}",
            finished.code
        );
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
        // The first jump, to a return, is threaded into that return; the
        // guard and the return it would have fused with stay apart.
        assert_eq!(
            code(e),
            [
                Instr::Return { src: Reg(1) },
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

    #[test]
    fn a_call_window_starts_above_every_register_in_use() {
        let mut e = Emitter::new();
        let low = e.alloc(false);
        let _held = e.alloc(false);
        e.free(low);
        // r0 is free and of the right class, but r1 is in use above it.
        assert_eq!(e.call_window(&[false]), Reg(2));
        // An ordinary window takes the lowest free run.
        assert_eq!(e.alloc_window(&[false]), Reg(0));
    }

    /// Emits two moves into fresh num registers, with a label bound
    /// between them when `bind_between`, and the second on `line` (the
    /// first is on line 1).
    fn two_moves(bind_between: bool, line: u32) -> Vec<Instr> {
        let mut e = Emitter::new();
        let (a, b, c) = (e.alloc(false), e.alloc(false), e.alloc(false));
        e.emit(Instr::Move { dst: b, src: a });
        if bind_between {
            let l = e.label();
            e.jump(Instr::Jump { target: 0 }, l);
            e.bind(l);
        }
        e.line = line;
        e.emit(Instr::Move { dst: c, src: b });
        e.emit(Instr::Return { src: c });
        e.finish(1).code
    }

    #[test]
    fn two_adjacent_moves_of_one_line_are_one_double_move() {
        assert_eq!(
            two_moves(false, 1),
            [
                Instr::Move2 {
                    dst: Reg(1),
                    src: Reg(0),
                    second: Reg(2),
                    from: Reg(1)
                },
                Instr::Return { src: Reg(2) }
            ]
        );
    }

    #[test]
    fn a_move_that_a_jump_lands_on_or_of_another_line_stays_a_move() {
        let landed = two_moves(true, 1);
        assert_eq!(landed.len(), 4, "{landed:?}");
        assert!(matches!(landed[2], Instr::Move { .. }), "{landed:?}");
        let other_line = two_moves(false, 7);
        assert_eq!(other_line.len(), 3, "{other_line:?}");
    }

    #[test]
    fn a_product_added_by_the_next_instruction_is_one_multiply_add_and_no_other_add_is() {
        let mut e = Emitter::new();
        let (x, y, sum, t) = (
            e.alloc(false),
            e.alloc(false),
            e.alloc(false),
            e.alloc(false),
        );
        e.emit(Instr::MulFloat { dst: t, a: x, b: y });
        e.emit(Instr::AddFloat {
            dst: sum,
            a: sum,
            b: t,
        });
        e.emit(Instr::MulFloat { dst: t, a: x, b: y });
        e.emit(Instr::AddFloat {
            dst: sum,
            a: sum,
            b: x,
        });
        e.emit(Instr::Return { src: sum });
        let code = e.finish(2).code;
        assert_eq!(
            code[0],
            Instr::MulAddFloat {
                dst: sum,
                c: sum,
                product: t,
                a: x,
                b: y
            }
        );
        assert!(matches!(code[1], Instr::MulFloat { .. }), "{code:?}");
        assert!(matches!(code[2], Instr::AddFloat { .. }), "{code:?}");
    }

    #[test]
    fn a_product_added_on_the_left_or_subtracted_on_the_right_is_one_instruction() {
        let mut e = Emitter::new();
        let (x, y, c, t, d) = (
            e.alloc(false),
            e.alloc(false),
            e.alloc(false),
            e.alloc(false),
            e.alloc(false),
        );
        // d = x * y + c, then d = c - x * y, then d = x * y - c (no fused
        // form: the product is the left of the subtraction).
        e.emit(Instr::MulFloat { dst: t, a: x, b: y });
        e.emit(Instr::AddFloat { dst: d, a: t, b: c });
        e.emit(Instr::MulFloat { dst: t, a: x, b: y });
        e.emit(Instr::SubFloat { dst: d, a: c, b: t });
        e.emit(Instr::MulFloat { dst: t, a: x, b: y });
        e.emit(Instr::SubFloat { dst: d, a: t, b: c });
        e.emit(Instr::Return { src: d });
        let code = e.finish(3).code;
        assert_eq!(
            code[..2],
            [
                Instr::MulAddFloat {
                    dst: d,
                    c,
                    product: t,
                    a: x,
                    b: y
                },
                Instr::MulSubFloat {
                    dst: d,
                    c,
                    product: t,
                    a: x,
                    b: y
                }
            ]
        );
        assert!(matches!(code[2], Instr::MulFloat { .. }), "{code:?}");
        assert!(matches!(code[3], Instr::SubFloat { .. }), "{code:?}");
    }

    /// Emits `get.list b, list, i` of elements of type `ty`, then (on
    /// `line`, with a label bound between the two when `bind_between`) a
    /// `jump-ifnot b` to the end, and gives the code.
    fn element_test(ty: cove_ir::types::TypeId, bind_between: bool, line: u32) -> Vec<Instr> {
        let mut e = Emitter::new();
        let (list, i, b) = (e.alloc(true), e.alloc(false), e.alloc(false));
        e.emit(Instr::GetList {
            dst: b,
            list,
            index: i,
            ty,
        });
        if bind_between {
            let here = e.label();
            e.bind(here);
        }
        e.line = line;
        let end = e.label();
        e.jump(Instr::JumpIfNot { cond: b, target: 0 }, end);
        e.emit(Instr::ReturnUnit {});
        e.bind(end);
        e.emit(Instr::ReturnUnit {});
        e.finish(2).code
    }

    /// Emits `x = a[i]`, `y = a[j]`, a jump to the end if `x > y`, then
    /// what `between` emits, `x = a[i]` again, and the two returns; gives
    /// the code of everything up to the first return.
    fn read_again(between: impl FnOnce(&mut Emitter, [Reg; 5])) -> Vec<Instr> {
        let mut e = Emitter::new();
        let (a, i, j) = (e.alloc(true), e.alloc(false), e.alloc(false));
        let (x, y) = (e.alloc(false), e.alloc(false));
        let read = Instr::GetList {
            dst: x,
            list: a,
            index: i,
            ty: Program::INT,
        };
        e.emit(read);
        e.emit(Instr::GetList {
            dst: y,
            list: a,
            index: j,
            ty: Program::INT,
        });
        let end = e.label();
        e.jump(
            Instr::JumpGtInt {
                a: x,
                b: y,
                target: 0,
            },
            end,
        );
        between(&mut e, [a, i, j, x, y]);
        e.emit(read);
        e.emit(Instr::ReturnUnit {});
        e.bind(end);
        e.emit(Instr::ReturnUnit {});
        let mut code = e.finish(3).code;
        code.truncate(code.len() - 1);
        code
    }

    fn reads(code: &[Instr]) -> usize {
        code.iter()
            .filter(|i| matches!(i, Instr::GetList { .. } | Instr::StepGetList { .. }))
            .count()
    }

    #[test]
    fn an_element_read_again_after_a_compare_on_the_one_path_is_read_once() {
        assert_eq!(reads(&read_again(|_, _| {})), 2);
        // Past a read of another element into another register, too.
        let code = read_again(|e, [a, _, j, _, y]| {
            e.emit(Instr::AddIntImm {
                dst: y,
                a: j,
                value: 1,
            });
            e.emit(Instr::GetList {
                dst: y,
                list: a,
                index: y,
                ty: Program::INT,
            });
        });
        assert_eq!(reads(&code), 3);
    }

    #[test]
    fn an_element_read_again_after_a_store_a_call_a_landing_or_a_write_of_its_registers_is_read_again()
     {
        let stored = read_again(|e, [a, _, j, _, y]| {
            e.emit(Instr::SetList {
                list: a,
                index: j,
                src: y,
                ty: Program::INT,
            });
        });
        let called = read_again(|e, [_, _, _, _, y]| {
            e.emit(Instr::CallBuiltin {
                dst: y,
                builtin: Builtin::Print,
                base: y,
                count: 1,
            });
        });
        // A jump lands after the first read, from a path that did not
        // make it.
        let landed = read_again(|e, [_, _, j, x, y]| {
            let here = e.label();
            e.jump(
                Instr::JumpEqInt {
                    a: x,
                    b: y,
                    target: 0,
                },
                here,
            );
            e.bind(here);
            e.emit(Instr::AddIntImm {
                dst: y,
                a: j,
                value: 1,
            });
        });
        let stepped = read_again(|e, [_, i, _, _, _]| {
            e.emit(Instr::AddIntImm {
                dst: i,
                a: i,
                value: 1,
            });
        });
        let overwritten = read_again(|e, [_, _, _, x, _]| {
            e.emit(Instr::LoadInt { dst: x, value: 0 });
        });
        for code in [stored, called, landed, stepped, overwritten] {
            assert_eq!(reads(&code), 3, "{code:?}");
        }
    }

    /// A store of `v` to field 0 of `obj` (or, `list`, to `a[i]`), then
    /// what `between` emits, then a read of the same place into `into`;
    /// the code, its registers `[obj or a, i, v, w]` and what the read was
    /// emitted as.
    fn stored_then_read(
        list: bool,
        into_v: bool,
        between: impl FnOnce(&mut Emitter, [Reg; 4]),
    ) -> Vec<Instr> {
        let mut e = Emitter::new();
        let (obj, i, v, w) = (
            e.alloc(true),
            e.alloc(false),
            e.alloc(false),
            e.alloc(false),
        );
        let field = |dst| Instr::GetField {
            dst,
            obj,
            ty: cove_ir::types::StructId(0),
            field: 0,
        };
        let element = |dst| Instr::GetList {
            dst,
            list: obj,
            index: i,
            ty: Program::INT,
        };
        e.emit(if list {
            Instr::SetList {
                list: obj,
                index: i,
                src: v,
                ty: Program::INT,
            }
        } else {
            Instr::SetField {
                obj,
                ty: cove_ir::types::StructId(0),
                field: 0,
                src: v,
            }
        });
        between(&mut e, [obj, i, v, w]);
        let into = if into_v { v } else { w };
        e.emit(if list { element(into) } else { field(into) });
        e.emit(Instr::ReturnUnit {});
        let mut code = e.finish(4).code;
        code.truncate(code.len() - 1);
        code
    }

    #[test]
    fn a_field_or_element_read_just_after_a_store_to_it_is_the_stored_register() {
        // `c += 1; c`: read back into the register stored, nothing.
        assert_eq!(stored_then_read(false, true, |_, _| {}).len(), 1);
        assert_eq!(stored_then_read(true, true, |_, _| {}).len(), 1);
        // Into another register, a move of the stored one.
        for list in [false, true] {
            let code = stored_then_read(list, false, |_, _| {});
            assert_eq!(
                code[1],
                Instr::Move {
                    dst: Reg(3),
                    src: Reg(2)
                },
                "{code:?}"
            );
        }
        // Past a compare-and-jump whose target is elsewhere.
        let code = stored_then_read(false, false, |e, [_, i, v, _]| {
            let elsewhere = e.label();
            e.jump(
                Instr::JumpLtInt {
                    a: i,
                    b: v,
                    target: 0,
                },
                elsewhere,
            );
        });
        assert!(matches!(code.last(), Some(Instr::Move { .. })), "{code:?}");
    }

    #[test]
    fn a_read_after_a_store_and_a_write_of_the_stored_register_a_call_or_another_field_is_read() {
        let overwritten = stored_then_read(false, false, |e, [_, _, v, _]| {
            e.emit(Instr::AddIntImm {
                dst: v,
                a: v,
                value: 1,
            });
        });
        let called = stored_then_read(true, false, |e, [_, _, _, w]| {
            e.emit(Instr::CallBuiltin {
                dst: w,
                builtin: Builtin::Print,
                base: w,
                count: 1,
            });
        });
        let elsewhere = stored_then_read(false, false, |e, [obj, _, v, _]| {
            e.emit(Instr::SetField {
                obj,
                ty: cove_ir::types::StructId(0),
                field: 1,
                src: v,
            });
        });
        let index_moved = stored_then_read(true, false, |e, [_, i, _, _]| {
            e.emit(Instr::AddIntImm {
                dst: i,
                a: i,
                value: 1,
            });
        });
        for code in [overwritten, called, elsewhere, index_moved] {
            assert!(
                matches!(
                    code.last(),
                    Some(
                        Instr::GetField { .. } | Instr::GetList { .. } | Instr::StepGetList { .. }
                    )
                ),
                "{code:?}"
            );
        }
    }

    #[test]
    fn a_test_of_a_bool_element_just_loaded_is_one_fused_jump_to_the_same_place() {
        assert_eq!(
            element_test(Program::BOOL, false, 1),
            [
                Instr::JumpIfNotList {
                    dst: Reg(2),
                    list: Reg(0),
                    index: Reg(1),
                    target: 2
                },
                Instr::ReturnUnit {},
                Instr::ReturnUnit {},
            ]
        );
    }

    #[test]
    fn an_element_test_a_label_lands_on_of_another_line_or_not_of_bool_stays_two_instructions() {
        for code in [
            element_test(Program::BOOL, true, 1),
            element_test(Program::BOOL, false, 7),
            element_test(Program::INT, false, 1),
        ] {
            assert!(matches!(code[0], Instr::GetList { .. }), "{code:?}");
            assert_eq!(
                code[1],
                Instr::JumpIfNot {
                    cond: Reg(2),
                    target: 3
                },
                "{code:?}"
            );
        }
    }

    /// Emits `r = n % divisor`, then (on `line`, with a label bound
    /// between the two when `bind_between`) `jump` of `tested` to the end,
    /// and gives the code.
    fn remainder_test(
        divisor: i32,
        jump: fn(Reg) -> Instr,
        tested_is_remainder: bool,
        bind_between: bool,
        line: u32,
    ) -> Vec<Instr> {
        let mut e = Emitter::new();
        let (n, r) = (e.alloc(false), e.alloc(false));
        e.emit(Instr::RemIntImm {
            dst: r,
            a: n,
            value: divisor,
        });
        if bind_between {
            let here = e.label();
            e.bind(here);
        }
        e.line = line;
        let end = e.label();
        e.jump(jump(if tested_is_remainder { r } else { n }), end);
        e.emit(Instr::ReturnUnit {});
        e.bind(end);
        e.emit(Instr::ReturnUnit {});
        e.finish(1).code
    }

    fn jump_eq_0(a: Reg) -> Instr {
        Instr::JumpEqIntImm {
            a,
            value: 0,
            target: 0,
        }
    }

    fn jump_ne_0(a: Reg) -> Instr {
        Instr::JumpNeIntImm {
            a,
            value: 0,
            target: 0,
        }
    }

    fn jump_ne_1(a: Reg) -> Instr {
        Instr::JumpNeIntImm {
            a,
            value: 1,
            target: 0,
        }
    }

    #[test]
    fn a_remainder_by_a_small_constant_tested_against_0_is_one_fused_jump_to_the_same_place() {
        let (n, r) = (Reg(0), Reg(1));
        assert_eq!(
            remainder_test(2, jump_ne_0, true, false, 1),
            [
                Instr::RemJumpNeIntImm {
                    rem: r,
                    a: n,
                    divisor: 2,
                    target: 2
                },
                Instr::ReturnUnit {},
                Instr::ReturnUnit {},
            ]
        );
        assert_eq!(
            remainder_test(-32768, jump_eq_0, true, false, 1)[0],
            Instr::RemJumpEqIntImm {
                rem: r,
                a: n,
                divisor: -32768,
                target: 2
            }
        );
    }

    #[test]
    fn a_remainder_tested_against_another_value_or_register_past_16_bits_or_a_landing_stays_two() {
        for code in [
            remainder_test(2, jump_ne_1, true, false, 1),
            remainder_test(2, jump_ne_0, false, false, 1),
            remainder_test(32768, jump_ne_0, true, false, 1),
            remainder_test(2, jump_ne_0, true, true, 1),
            remainder_test(2, jump_ne_0, true, false, 7),
        ] {
            assert!(matches!(code[0], Instr::RemIntImm { .. }), "{code:?}");
            assert!(
                matches!(code[1], Instr::JumpNeIntImm { target: 3, .. }),
                "{code:?}"
            );
        }
    }

    #[test]
    fn a_test_of_a_float_compare_just_made_is_one_fused_jump_and_of_another_register_is_not() {
        let mut e = Emitter::new();
        let (x, y, b, other) = (
            e.alloc(false),
            e.alloc(false),
            e.alloc(false),
            e.alloc(false),
        );
        let end = e.label();
        e.emit(Instr::LtFloat { dst: b, a: x, b: y });
        e.jump(Instr::JumpIf { cond: b, target: 0 }, end);
        e.emit(Instr::LeFloat { dst: b, a: x, b: y });
        e.jump(Instr::JumpIfNot { cond: b, target: 0 }, end);
        e.emit(Instr::LeFloat { dst: b, a: x, b: y });
        e.jump(
            Instr::JumpIfNot {
                cond: other,
                target: 0,
            },
            end,
        );
        e.bind(end);
        e.emit(Instr::ReturnUnit {});
        assert_eq!(
            e.finish(2).code,
            [
                Instr::JumpIfLtFloat {
                    dst: b,
                    a: x,
                    b: y,
                    target: 4
                },
                Instr::JumpIfNotLeFloat {
                    dst: b,
                    a: x,
                    b: y,
                    target: 4
                },
                Instr::LeFloat { dst: b, a: x, b: y },
                Instr::JumpIfNot {
                    cond: other,
                    target: 4
                },
                Instr::ReturnUnit {},
            ]
        );
    }

    #[test]
    fn a_call_of_int_to_float_or_float_sqrt_is_emitted_as_its_instruction() {
        let mut e = Emitter::new();
        let (n, x) = (e.alloc(false), e.alloc(false));
        e.emit(Instr::CallBuiltin {
            dst: x,
            builtin: Builtin::IntToFloat,
            base: n,
            count: 1,
        });
        e.line = 1;
        e.emit(Instr::CallBuiltin {
            dst: x,
            builtin: Builtin::FloatSqrt,
            base: x,
            count: 1,
        });
        e.emit(Instr::Return { src: x });
        let code = e.finish(1).code;
        assert_eq!(code[0], Instr::ToFloatInt { dst: x, src: n });
        assert_eq!(code[1], Instr::SqrtFloat { dst: x, a: x });
    }

    #[test]
    fn only_a_register_with_nothing_in_use_above_it_is_the_top() {
        let mut e = Emitter::new();
        let a = e.alloc(false);
        let b = e.alloc(true);
        assert!(!e.is_top(a));
        assert!(e.is_top(b));
        e.free(b);
        assert!(e.is_top(a));
    }

    /// A function of one parameter that calls with a window at r1, then
    /// pins a constant (which lands at r2, inside the callee's frame), and
    /// makes a call with no arguments.
    fn pinned_after_a_call() -> Finished {
        let mut e = Emitter::new();
        let param = e.alloc(false);
        let base = e.call_window(&[false]);
        e.emit(Instr::Move {
            dst: base,
            src: param,
        });
        e.emit(Instr::Call {
            dst: base,
            func: cove_ir::program::FunctionId(0),
            base,
            count: 1,
        });
        let pin = e.pin(false);
        e.prologue.push(Instr::LoadInt { dst: pin, value: 7 });
        e.emit(Instr::AddInt {
            dst: base,
            a: base,
            b: pin,
        });
        let empty = e.call_window(&[]);
        e.emit(Instr::Call {
            dst: base,
            func: cove_ir::program::FunctionId(0),
            base: empty,
            count: 0,
        });
        e.emit(Instr::Return { src: base });
        e.finish(1)
    }

    #[test]
    fn a_pin_is_renumbered_below_every_call_window() {
        let done = pinned_after_a_call();
        // The parameter stays r0, the pin comes next, the window after it.
        assert_eq!(done.moved, [0, 2, 1]);
        assert_eq!(
            done.code[..4],
            [
                Instr::LoadInt {
                    dst: Reg(1),
                    value: 7
                },
                Instr::Move {
                    dst: Reg(2),
                    src: Reg(0)
                },
                Instr::Call {
                    dst: Reg(2),
                    func: cove_ir::program::FunctionId(0),
                    base: Reg(2),
                    count: 1
                },
                Instr::AddInt {
                    dst: Reg(2),
                    a: Reg(2),
                    b: Reg(1)
                },
            ]
        );
    }

    #[test]
    fn an_empty_window_stays_above_the_pins() {
        let done = pinned_after_a_call();
        // Made at r2, the pin's old number, above r1, which is still in
        // use: renumbered, it is above both the pin (now r1) and that
        // register (now r2), one past the frame's last register.
        assert_eq!(
            done.code[4],
            Instr::Call {
                dst: Reg(2),
                func: cove_ir::program::FunctionId(0),
                base: Reg(3),
                count: 0
            }
        );
        assert_eq!(done.registers, 3);
    }

    /// What lies between the two instructions of a [`pair`].
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Between {
        /// Nothing.
        Nothing,
        /// A label bound forward that nothing jumps to.
        UnusedLabel,
        /// A label a jump emitted before the pair lands on.
        LandedLabel,
    }

    /// The code of `first` then `second`, emitted on one line with
    /// `between` between the two (a landed label's jump before both), and a
    /// `return.unit` after them unless `second` returns: the shape every
    /// pair fusion is tried on.
    fn pair(first: Instr, second: Instr, between: Between) -> Vec<Instr> {
        let mut e = Emitter::new();
        let label = e.label();
        if between == Between::LandedLabel {
            e.jump(Instr::Jump { target: 0 }, label);
        }
        e.emit(first);
        if between != Between::Nothing {
            e.bind_forward(label);
        }
        e.emit(second);
        if second.falls_through() {
            e.emit(Instr::ReturnUnit {});
        }
        code(e)
    }

    /// `stepped = r1 + step` then `a[stepped]` (the list in r0, the element
    /// into r2), with `between` between the two.
    fn step_then_read(step: i32, stepped: u16, between: Between) -> Vec<Instr> {
        pair(
            Instr::AddIntImm {
                dst: Reg(stepped),
                a: Reg(1),
                value: step,
            },
            Instr::GetList {
                dst: Reg(2),
                list: Reg(0),
                index: Reg(stepped),
                ty: Program::INT,
            },
            between,
        )
    }

    #[test]
    fn an_index_stepped_in_place_and_read_at_once_is_one_instruction() {
        for between in [Between::Nothing, Between::UnusedLabel] {
            assert_eq!(
                step_then_read(-1, 1, between)[..2],
                [
                    Instr::StepGetList {
                        dst: Reg(2),
                        list: Reg(0),
                        index: Reg(1),
                        ty: Program::INT,
                        offset: -1,
                    },
                    Instr::ReturnUnit {},
                ],
                "{between:?}"
            );
        }
    }

    #[test]
    fn a_step_and_a_read_a_jump_lands_between_or_of_a_step_too_large_stay_two_instructions() {
        let landed = step_then_read(1, 1, Between::LandedLabel);
        assert!(matches!(landed[1], Instr::AddIntImm { .. }), "{landed:?}");
        assert!(matches!(landed[2], Instr::GetList { .. }), "{landed:?}");
        let large = step_then_read(1000, 1, Between::Nothing);
        assert!(matches!(large[0], Instr::AddIntImm { .. }), "{large:?}");
        assert!(matches!(large[1], Instr::GetList { .. }), "{large:?}");
    }

    /// `r1 = r0 + value`, then `call dst, f0, base, count`, with
    /// `between` between.
    fn argument_then_call(
        value: i32,
        dst: u16,
        base: u16,
        count: u16,
        between: Between,
    ) -> Vec<Instr> {
        pair(
            Instr::AddIntImm {
                dst: Reg(1),
                a: Reg(0),
                value,
            },
            Instr::Call {
                dst: Reg(dst),
                func: cove_ir::program::FunctionId(0),
                base: Reg(base),
                count,
            },
            between,
        )
    }

    #[test]
    fn a_call_whose_first_argument_is_a_constant_added_is_one_instruction() {
        for between in [Between::Nothing, Between::UnusedLabel] {
            for (value, offset) in [(-1, -1i8), (-128, -128), (127, 127)] {
                assert_eq!(
                    argument_then_call(value, 1, 1, 2, between)[0],
                    Instr::AddCall {
                        func: cove_ir::program::FunctionId(0),
                        base: Reg(1),
                        count: 2,
                        a: Reg(0),
                        offset,
                    },
                    "{between:?} {value}"
                );
            }
        }
    }

    #[test]
    fn an_argument_past_a_byte_elsewhere_in_the_window_or_past_a_landing_stays_two_instructions() {
        for code in [
            // The constant does not fit the fused instruction's byte.
            argument_then_call(128, 1, 1, 1, Between::Nothing),
            argument_then_call(-129, 1, 1, 1, Between::Nothing),
            // The result goes elsewhere: the sum's register keeps the
            // argument after the call, which something may read.
            argument_then_call(-1, 2, 1, 1, Between::Nothing),
            // The sum is the second argument, not the first.
            argument_then_call(-1, 0, 0, 2, Between::Nothing),
            // No arguments: the sum is not one.
            argument_then_call(-1, 1, 1, 0, Between::Nothing),
        ] {
            assert!(matches!(code[0], Instr::AddIntImm { .. }), "{code:?}");
            assert!(matches!(code[1], Instr::Call { .. }), "{code:?}");
        }
        let landed = argument_then_call(-1, 1, 1, 1, Between::LandedLabel);
        assert!(matches!(landed[1], Instr::AddIntImm { .. }), "{landed:?}");
        assert!(matches!(landed[2], Instr::Call { .. }), "{landed:?}");
    }

    #[test]
    fn a_call_for_a_returned_tuples_fields_stays_a_call() {
        let mut e = Emitter::new();
        e.returns_fields(cove_ir::types::StructId(0), vec![false, false]);
        e.emit(Instr::AddIntImm {
            dst: Reg(1),
            a: Reg(0),
            value: -1,
        });
        e.emit(Instr::Call {
            dst: Reg(1),
            func: cove_ir::program::FunctionId(0),
            base: Reg(1),
            count: 1,
        });
        e.called_for_fields();
        assert!(
            matches!(e.code[..], [Instr::AddIntImm { .. }, Instr::Call { .. }]),
            "{:?}",
            e.code
        );
    }

    /// `r2 = r0 * 9`, then `into = left + right`, with `between` between.
    fn product_then_sum(into: u16, left: u16, right: u16, between: Between) -> Vec<Instr> {
        pair(
            Instr::MulIntImm {
                dst: Reg(2),
                a: Reg(0),
                value: 9,
            },
            Instr::AddInt {
                dst: Reg(into),
                a: Reg(left),
                b: Reg(right),
            },
            between,
        )
    }

    #[test]
    fn a_product_by_a_constant_added_in_place_on_either_side_is_one_instruction() {
        let fused = Instr::MulAddIntImm {
            dst: Reg(2),
            a: Reg(0),
            value: 9,
            b: Reg(1),
        };
        for between in [Between::Nothing, Between::UnusedLabel] {
            assert_eq!(
                product_then_sum(2, 2, 1, between)[..2],
                [fused, Instr::ReturnUnit {}],
                "{between:?}"
            );
            assert_eq!(
                product_then_sum(2, 1, 2, between)[..2],
                [fused, Instr::ReturnUnit {}],
                "{between:?}"
            );
        }
    }

    #[test]
    fn a_product_added_into_another_register_twice_or_past_a_landing_stays_two_instructions() {
        for code in [
            // r3 = r2 + r1 leaves the product in r2, which something may read.
            product_then_sum(3, 2, 1, Between::Nothing),
            // `x * 9 + x * 9` in one register: the fused instruction would
            // read the product as `b` before writing it.
            product_then_sum(2, 2, 2, Between::Nothing),
            // The sum does not read the product at all.
            product_then_sum(2, 0, 1, Between::Nothing),
        ] {
            assert!(matches!(code[0], Instr::MulIntImm { .. }), "{code:?}");
            assert!(matches!(code[1], Instr::AddInt { .. }), "{code:?}");
        }
        let landed = product_then_sum(2, 2, 1, Between::LandedLabel);
        assert!(matches!(landed[1], Instr::MulIntImm { .. }), "{landed:?}");
        assert!(matches!(landed[2], Instr::AddInt { .. }), "{landed:?}");
    }

    /// `r2 = r0 + r1`, then `into = r2 + 7`, with `between` between.
    fn sum_then_constant(into: u16, between: Between) -> Vec<Instr> {
        pair(
            Instr::AddInt {
                dst: Reg(2),
                a: Reg(0),
                b: Reg(1),
            },
            Instr::AddIntImm {
                dst: Reg(into),
                a: Reg(2),
                value: 7,
            },
            between,
        )
    }

    #[test]
    fn a_constant_added_in_place_to_a_sum_is_one_instruction() {
        for between in [Between::Nothing, Between::UnusedLabel] {
            assert_eq!(
                sum_then_constant(2, between)[..2],
                [
                    Instr::AddAddIntImm {
                        dst: Reg(2),
                        a: Reg(0),
                        b: Reg(1),
                        value: 7,
                    },
                    Instr::ReturnUnit {},
                ],
                "{between:?}"
            );
        }
    }

    #[test]
    fn a_constant_added_to_a_sum_into_another_register_or_past_a_landing_stays_two_instructions() {
        // r3 = r2 + 7 leaves the sum in r2, which something may read.
        let apart = sum_then_constant(3, Between::Nothing);
        assert!(matches!(apart[0], Instr::AddInt { .. }), "{apart:?}");
        assert!(matches!(apart[1], Instr::AddIntImm { .. }), "{apart:?}");
        let landed = sum_then_constant(2, Between::LandedLabel);
        assert!(matches!(landed[1], Instr::AddInt { .. }), "{landed:?}");
        assert!(matches!(landed[2], Instr::AddIntImm { .. }), "{landed:?}");
    }

    /// `r3 = r2 % divisor`, then `r1 = left + right`, with `between`
    /// between.
    fn remainder_then_sum(divisor: i32, left: u16, right: u16, between: Between) -> Vec<Instr> {
        pair(
            Instr::RemIntImm {
                dst: Reg(3),
                a: Reg(2),
                value: divisor,
            },
            Instr::AddInt {
                dst: Reg(1),
                a: Reg(left),
                b: Reg(right),
            },
            between,
        )
    }

    #[test]
    fn a_remainder_by_a_small_constant_added_on_either_side_is_one_instruction() {
        let fused = Instr::RemAddIntImm {
            dst: Reg(1),
            c: Reg(1),
            rem: Reg(3),
            a: Reg(2),
            divisor: -7,
        };
        for between in [Between::Nothing, Between::UnusedLabel] {
            assert_eq!(
                remainder_then_sum(-7, 1, 3, between)[0],
                fused,
                "{between:?}"
            );
            assert_eq!(
                remainder_then_sum(-7, 3, 1, between)[0],
                fused,
                "{between:?}"
            );
        }
        assert!(matches!(
            remainder_then_sum(1000, 1, 3, Between::Nothing)[0],
            Instr::RemAddIntImm { divisor: 1000, .. }
        ));
    }

    #[test]
    fn a_remainder_past_16_bits_added_twice_or_past_a_landing_stays_two_instructions() {
        for code in [
            remainder_then_sum(32768, 1, 3, Between::Nothing),
            remainder_then_sum(1_000_003, 1, 3, Between::Nothing),
            // `i % 7 + i % 7`: the fused instruction would read its
            // remainder as `c` after writing it, which the pair does not.
            remainder_then_sum(7, 3, 3, Between::Nothing),
            // The sum does not read the remainder at all.
            remainder_then_sum(7, 1, 2, Between::Nothing),
        ] {
            assert!(matches!(code[0], Instr::RemIntImm { .. }), "{code:?}");
            assert!(matches!(code[1], Instr::AddInt { .. }), "{code:?}");
        }
        let landed = remainder_then_sum(7, 1, 3, Between::LandedLabel);
        assert!(matches!(landed[1], Instr::RemIntImm { .. }), "{landed:?}");
        assert!(matches!(landed[2], Instr::AddInt { .. }), "{landed:?}");
    }

    /// `r4 = r0` moved into the window, then the closure in r1 called on
    /// `count` registers from `base`, with `between` between.
    fn move_then_call(base: u16, count: u16, between: Between) -> Vec<Instr> {
        pair(
            Instr::Move {
                dst: Reg(4),
                src: Reg(0),
            },
            Instr::CallClosure {
                dst: Reg(2),
                callee: Reg(1),
                base: Reg(base),
                count,
            },
            between,
        )
    }

    #[test]
    fn a_variable_moved_into_a_closure_calls_first_argument_is_one_instruction() {
        for between in [Between::Nothing, Between::UnusedLabel] {
            assert_eq!(
                move_then_call(4, 2, between)[..2],
                [
                    Instr::MoveCallClosure {
                        dst: Reg(2),
                        callee: Reg(1),
                        base: Reg(4),
                        count: 2,
                        src: Reg(0),
                    },
                    Instr::ReturnUnit {},
                ],
                "{between:?}"
            );
        }
    }

    #[test]
    fn a_move_elsewhere_than_the_first_argument_or_past_a_landing_stays_two_instructions() {
        // The move fills the second argument, not the first.
        let second = move_then_call(3, 2, Between::Nothing);
        assert!(matches!(second[0], Instr::Move { .. }), "{second:?}");
        assert!(matches!(second[1], Instr::CallClosure { .. }), "{second:?}");
        // A call of no arguments has no first argument to move into.
        let none = move_then_call(4, 0, Between::Nothing);
        assert!(matches!(none[0], Instr::Move { .. }), "{none:?}");
        let landed = move_then_call(4, 1, Between::LandedLabel);
        assert!(matches!(landed[1], Instr::Move { .. }), "{landed:?}");
        assert!(matches!(landed[2], Instr::CallClosure { .. }), "{landed:?}");
    }

    /// `r2 = r0 + r1` (or `r2 = r0 + 7` with `imm`), then `return
    /// returned`, with `between` between.
    fn sum_then_return(imm: bool, returned: u16, between: Between) -> Vec<Instr> {
        let sum = if imm {
            Instr::AddIntImm {
                dst: Reg(2),
                a: Reg(0),
                value: 7,
            }
        } else {
            Instr::AddInt {
                dst: Reg(2),
                a: Reg(0),
                b: Reg(1),
            }
        };
        pair(sum, Instr::Return { src: Reg(returned) }, between)
    }

    #[test]
    fn a_sum_returned_at_once_is_one_instruction() {
        for between in [Between::Nothing, Between::UnusedLabel] {
            assert_eq!(
                sum_then_return(false, 2, between),
                [Instr::ReturnAddInt {
                    a: Reg(0),
                    b: Reg(1)
                }],
                "{between:?}"
            );
            assert_eq!(
                sum_then_return(true, 2, between),
                [Instr::ReturnAddIntImm {
                    a: Reg(0),
                    value: 7
                }],
                "{between:?}"
            );
        }
    }

    #[test]
    fn a_sum_followed_by_the_return_of_another_register_or_a_landing_stays_two_instructions() {
        let other = sum_then_return(false, 0, Between::Nothing);
        assert!(matches!(other[0], Instr::AddInt { .. }), "{other:?}");
        assert!(matches!(other[1], Instr::Return { .. }), "{other:?}");
        let landed = sum_then_return(true, 2, Between::LandedLabel);
        assert!(matches!(landed[1], Instr::AddIntImm { .. }), "{landed:?}");
        assert!(matches!(landed[2], Instr::Return { .. }), "{landed:?}");
    }

    #[test]
    fn a_step_into_another_register_than_the_index_read_is_not_fused() {
        // r3 = r1 + 1, then a[r3]: the sum is a new register, not a step.
        let code = step_then_read(1, 3, Between::Nothing);
        assert!(matches!(code[0], Instr::AddIntImm { .. }), "{code:?}");
        assert!(matches!(code[1], Instr::GetList { .. }), "{code:?}");
    }
}
