//! The dispatch loop: one `match` over [`Instr`], compiled once for each
//! way a run is watched.
//!
//! `Machine::run` is generic over a `Watch`: `Watched<D, EVERY>` calls a
//! debugger of type `D` before every instruction (`EVERY`) or only where a
//! stretch starts ([`Stops`](crate::vm::debug::Stops)), `Unwatched` is a
//! zero-sized type whose `ON` is `false`, so its instantiation of the loop
//! has no debugger code in it at all — not a branch on an `Option`, not a
//! field. Which one runs is chosen once, when a run enters, together with
//! where the safepoint is checked (below). For a concrete `D` the
//! debugger's `at` is a direct call the optimiser may inline, so a debugger
//! whose common stop is short costs the loop those few instructions; for
//! `dyn Debugger` it is one virtual call a stop.
//!
//! A loop that stops at stretches is two loops: an outer one whose head is
//! a stretch's start, where the debugger is called, and the inner one that
//! runs instructions. Only the handler of an instruction that ends a
//! stretch (`Opcode::ends_stretch`) goes round the outer loop, marking how
//! it ended it from `cove_ir`'s one table, whose entry is a constant in
//! each handler; every other instruction goes round the inner loop and
//! pays nothing for the debugger. (The loop before tested at every
//! instruction a flag that the instruction before had set from the table:
//! the counting profile of an integer loop ran 6.8% more native
//! instructions for it, of mandelbrot 10.8% more.) A debug build checks
//! at every instruction that the handlers' marks and the table agree. The
//! other instantiations keep the one loop. The safepoint of a loop that
//! stops at stretches is polled as an unwatched run's is unless the run
//! has fuel, so a run it ends ends at a stretch's start; only a fault, or
//! fuel, can end a run inside one.
//!
//! # The safepoint
//!
//! The loop counts down from [`SAFEPOINT_STRIDE`] and, when the stride is
//! used up, stops to look at the world: the interrupt flag, the end of the
//! run (for tasks), fuel. The instruction count
//! [`Vm::instructions`](crate::Vm::instructions) is derived from the same
//! countdown — the stride's length added at each safepoint, the part of the
//! last stride used added at the end — so counting costs the loop one
//! decrement and nothing else.
//!
//! *Where* the countdown is tested depends on the run:
//!
//! - **Polled** (no fuel, and no debugger or one stopped at stretches:
//!   the common run). The countdown is
//!   tested only after a taken jump and after a call, and may run below zero
//!   until the next one. A loop must jump back and a recursion must call, so
//!   no run goes long without passing a poll: past the stride it runs only
//!   straight-line code and returns, that is at most the rest of each frame
//!   already on the stack, each of which a poll let in. The count stays
//!   exact, overshoot included. Taking the test out of the other instructions made
//!   fib 1.12×, nbody 1.29× and the integer loop 1.48× faster, side by side
//!   (`hyperfine -N -w 2 -r 15`), though fib runs under 1% fewer native
//!   instructions for it: the test was cheap to count and dear to run.
//! - **Exact** (a debugger stopped at every instruction, or fuel). The countdown
//!   is tested before every instruction, so a stride is exactly
//!   `SAFEPOINT_STRIDE` long and fuel runs out on the very instruction it
//!   allows no more of: the countdown is shortened to the fuel that is left.
//!   A debugger already costs far more per instruction than the test.
//!
//! This is the shape of LuaJIT's and the JVM's safepoint polls: checks on
//! back edges and calls, not on every instruction.
//!
//! # Registers
//!
//! Registers are untyped 64-bit slots read and written through a pointer to
//! the frame's window without a bounds check. That is sound because the
//! `Vm` runs only a program it holds a [`Verified`] proof of, whose *frame*
//! guarantee is that every register an instruction names is inside its
//! function's frame, and because a frame's window is always allocated
//! before it is entered. Every `unsafe` block below names, in its
//! `// SAFETY:` comment, the guarantees of [`Verified`] it rests on; the
//! loop checks none of them again.
//!
//! # Garbage collection
//!
//! An instruction that allocates checks `Memory::wants_collection` when it
//! is done and collects then, with every live reference in a register: the
//! heap module's documentation says why allocation itself never collects.

use std::thread::Scope;

use cove_ir::op::{Instr, Reg, StretchEnd};
use cove_ir::program::FunctionId;
#[cfg(doc)]
use cove_ir::verify::Verified;

use crate::error::{ErrorKind, Fault, RunError};
use crate::heap::{a_of, b_of, kind};
use crate::value::ChannelHandle;
use crate::vm::debug::{Debugger, Glance, Resume, Stop};
use crate::vm::machine::{CallFrame, Machine};

/// How many instructions run between two safepoints: exactly, in a run
/// with a debugger or fuel; at least, and then up to the next taken jump or
/// call, in any other (see the module documentation).
pub const SAFEPOINT_STRIDE: u32 = 1024;

/// The size of one instruction in bytes.
const INSTR_BYTES: u32 = std::mem::size_of::<Instr>() as u32;

/// Whether, and by whom, a run is watched: the type parameter of the loop.
pub(crate) trait Watch<'d>: Sync {
    /// The debugger's type: a concrete one, so its `at` can be inlined into
    /// the loop, or `dyn Debugger`, one virtual call a stop.
    type D: Debugger + ?Sized + 'd;
    /// Whether the loop calls [`Watch::at`]; a constant, so the unwatched
    /// loop compiles without the call.
    const ON: bool;
    /// Whether it calls it before every instruction, or only at the start
    /// of each stretch ([`Stops`](crate::vm::debug::Stops)).
    const EVERY: bool;
    /// Called before an instruction when `ON`.
    fn at(&self, stop: &Stop<'_>) -> Resume;
    /// Offers a stop the loop knows the shape of ([`Debugger::glance`]).
    fn glance(&self, glance: &Glance<'_>) -> bool;
    /// The debugger a task spawned from this one is watched by, if any.
    fn child(&self) -> Option<&'d Self::D>;
}

/// No debugger: the loop the run pays nothing for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unwatched;

impl<'d> Watch<'d> for Unwatched {
    type D = dyn Debugger + 'd;
    const ON: bool = false;
    const EVERY: bool = true;

    #[inline(always)]
    fn at(&self, _stop: &Stop<'_>) -> Resume {
        Resume::Go
    }

    #[inline(always)]
    fn glance(&self, _glance: &Glance<'_>) -> bool {
        true
    }

    fn child(&self) -> Option<&'d Self::D> {
        None
    }
}

/// A debugger of type `D` is installed.
///
/// The loop is compiled once for each `D` a program installs. For a
/// concrete type the debugger's `at` is an ordinary call the optimiser may
/// inline, so a debugger whose common stop is a few instructions costs the
/// loop those instructions and not a call that spills its registers; for
/// `dyn Debugger` it is the virtual call it always was.
///
/// `EVERY` is whether the debugger is stopped before every instruction or
/// only where a stretch starts ([`Stops`](crate::vm::debug::Stops)), so the loop that stops at
/// stretches tests one flag an instruction and stops a few times less.
pub(crate) struct Watched<'d, D: Debugger + ?Sized, const EVERY: bool> {
    pub(crate) debugger: &'d D,
}

impl<'d, D: Debugger + ?Sized + 'd, const EVERY: bool> Watch<'d> for Watched<'d, D, EVERY> {
    type D = D;
    const ON: bool = true;
    const EVERY: bool = EVERY;

    #[inline(always)]
    fn at(&self, stop: &Stop<'_>) -> Resume {
        self.debugger.at(stop)
    }

    #[inline(always)]
    fn glance(&self, glance: &Glance<'_>) -> bool {
        self.debugger.glance(glance)
    }

    fn child(&self) -> Option<&'d D> {
        self.debugger.follows_tasks().then_some(self.debugger)
    }
}

/// The fault of a debugger that panicked, with its message when it has one.
#[cold]
fn debugger_panicked(panic: &(dyn std::any::Any + Send)) -> Fault {
    let why = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str));
    Fault::new(
        ErrorKind::Internal,
        match why {
            Some(why) => format!("the debugger panicked: {why}"),
            None => "the debugger panicked".to_string(),
        },
    )
}

#[cold]
#[inline(never)]
/// Whether the mark a handler left (`fresh`) says what the table says of
/// its opcode (`ended`): no end for an opcode that ends no stretch, and
/// the table's own end for every other, but that a conditional return is
/// marked as what it did (returned, or fell through as a branch), and an
/// instruction that may allocate as a branch when, as it ran, it moved
/// nothing (`stretch_quiet!`).
#[cfg(debug_assertions)]
fn marked_as_ended(fresh: StretchEnd, ended: StretchEnd) -> bool {
    match ended {
        StretchEnd::Conditional => matches!(fresh, StretchEnd::Return | StretchEnd::Branch),
        StretchEnd::Other => matches!(fresh, StretchEnd::Other | StretchEnd::Branch),
        _ => fresh == ended,
    }
}

fn overflow(what: &str) -> Fault {
    Fault::new(ErrorKind::Overflow, format!("integer overflow in {what}"))
}

/// The overflow of adding the constant `value`: the compiler turns
/// `x - 1` into an add of -1 (`add.int.imm`, `get.list.imm`), and the sign
/// of the constant tells which the program wrote.
#[cold]
#[inline(never)]
fn sum_overflow(value: i64) -> Fault {
    overflow(if value < 0 { "subtraction" } else { "addition" })
}

#[cold]
#[inline(never)]
fn division_by_zero() -> Fault {
    Fault::new(ErrorKind::DivisionByZero, "division by zero")
}

#[cold]
#[inline(never)]
fn bad_shift(by: i64) -> Fault {
    Fault::new(
        ErrorKind::Overflow,
        format!("shift by {by} is outside 0..=63"),
    )
}

#[cold]
#[inline(never)]
pub(crate) fn index_out_of_range(index: i64, len: usize) -> Fault {
    Fault::new(
        ErrorKind::IndexOutOfRange,
        format!("index {index} is out of range for a list of length {len}"),
    )
}

#[cold]
#[inline(never)]
pub(crate) fn unwrap_none() -> Fault {
    Fault::new(ErrorKind::UnwrapNone, "unwrap of None")
}

/// A reference read as an object while it held 0: a register the code
/// never wrote, or one a call lent its callee. The compiler never emits
/// such a read; a hand-written program can (the verifier does not prove a
/// register written), and this keeps the machine from reading the heap's
/// first object as if it were the one wanted. The program is at fault, as
/// one that fails verification is: `Invalid`.
#[cold]
pub(crate) fn null_object(what: &str) -> Fault {
    Fault::new(
        ErrorKind::Invalid,
        format!("{what} read a reference that was never written (0)"),
    )
}

impl<'env> Machine<'env> {
    /// Runs the task from its current frame until the entry frame returns,
    /// and gives the returned bits.
    ///
    /// `POLLED` chooses where the safepoint is checked: before every
    /// instruction when false, at taken jumps and calls when true (see the
    /// module documentation). A fuelled run, or one whose debugger is
    /// stopped at every instruction, must not be polled.
    pub(crate) fn run<'scope, W: Watch<'env>, const POLLED: bool>(
        &mut self,
        scope: &'scope Scope<'scope, 'env>,
        watch: &W,
    ) -> Result<u64, RunError>
    where
        'env: 'scope,
    {
        let program = self.program;

        // The hot state lives in three locals the compiler can keep in
        // registers: `ip` (the instruction running), `regs` (the current
        // frame's window) and `remaining` (the countdown to the safepoint).
        // The current function's first instruction, which only a taken
        // jump, a call, a return and a fault read, is `self.code`: as a
        // fourth local it took a machine register the optimiser then
        // found for `regs` by spilling it, so that every handler reloaded
        // its window from memory. Everything else the loop needs is reached
        // through `self` on the paths that need it.
        let entry = *self.frames.last().expect("an entered machine has a frame");
        self.code = entry.code;
        // A frame resumes at an instruction of its function's code: the
        // entry frame at its first, which *ends* (a function has code)
        // makes an instruction.
        let mut ip: *const Instr = entry.resume;
        // SAFETY: `enter` allocated the entry frame's window, *frame*'s
        // register count of slots.
        let mut regs: *mut u64 = unsafe { self.stack.as_mut_ptr().add(entry.base as usize) };

        self.chunk = match self.next_chunk() {
            Ok(chunk) => chunk,
            Err(fault) => return Err(self.error(fault, entry.pc() as usize + 1)),
        };
        // Signed: a polled loop runs a little past zero before it looks.
        let mut remaining = i64::from(self.chunk);

        // Whether the next instruction starts a stretch, and how the one
        // before ended it: the first of a run starts one (`No`: an ordinary
        // stop), and so does every one after an instruction that ends one,
        // whose stop the debugger is first offered as a glance
        // (`Debugger::glance`). Only a loop that stops at stretches keeps
        // it.
        let mut fresh = StretchEnd::No;
        // How the table says the instruction before ended its stretch, for
        // the check that the handlers' marks agree with it.
        #[cfg(debug_assertions)]
        let mut ended = StretchEnd::No;
        #[cfg(debug_assertions)]
        let mut came_round = true;

        // The index of the next instruction in the current function.
        macro_rules! pc {
            () => {
                // SAFETY: `ip` and `code` point into the same function's code.
                unsafe { ip.offset_from(self.code) as usize }
            };
        }
        // Register access: `regs` points at the frame's window, which holds
        // the function's register count of slots.
        macro_rules! reg {
            // SAFETY: *frame*: every register operand is below the
            // function's register count.
            ($r:expr) => {{ unsafe { *regs.add($r.0 as usize) } }};
        }
        macro_rules! set {
            ($r:expr, $v:expr) => {{
                let value: u64 = $v;
                // SAFETY: *frame*, as for `reg!`.
                unsafe { *regs.add($r.0 as usize) = value }
            }};
        }
        macro_rules! int {
            ($r:expr) => {
                reg!($r) as i64
            };
        }
        macro_rules! float {
            ($r:expr) => {
                f64::from_bits(reg!($r))
            };
        }
        // The bytes of two string registers, read without the heap's
        // bounds checks (`Memory::typed_str_bytes`): the comparisons'.
        macro_rules! strings {
            ($a:expr, $b:expr) => {{
                let (a, b) = (reg!($a), reg!($b));
                // SAFETY: *types*: both operands are strings.
                unsafe { (self.heap.typed_str_bytes(a), self.heap.typed_str_bytes(b)) }
            }};
        }
        macro_rules! window {
            ($base:expr, $count:expr) => {{
                let count = $count as usize;
                // SAFETY: *frame*: a `base, count` run lies wholly inside
                // the frame.
                unsafe { std::slice::from_raw_parts(regs.add($base.0 as usize), count) }
            }};
        }
        macro_rules! refresh {
            () => {{
                let base = self.frames.last().map_or(0, |f| f.base as usize);
                // SAFETY: the current frame's window is inside the stack.
                regs = unsafe { self.stack.as_mut_ptr().add(base) }
            }};
        }
        // Writes where the current frame resumes, just past the instruction
        // `ip` is at, into the innermost frame: what a handler does before
        // it calls out to something that may look at the stack.
        macro_rules! sync_past {
            () => {{
                // SAFETY: *ends*: an instruction that calls out and then
                // goes on is not the last of its code.
                let resume = unsafe { ip.add(1) };
                if let Some(frame) = self.frames.last_mut() {
                    frame.resume = resume;
                }
            }};
        }
        // Ends the run with a fault located at the instruction `ip` is at:
        // the one that failed, or the one a safepoint or a debugger ended
        // the run before. The locating takes the pc after it.
        macro_rules! fail {
            ($fault:expr) => {{
                let fault = $fault;
                return Err(self.fail_at(fault, remaining, ip));
            }};
        }
        // Goes on with the next instruction: the end of every handler that
        // neither jumps, calls nor returns.
        macro_rules! next {
            () => {{
                // SAFETY: *ends*: an instruction that falls through is not
                // the last of its code, so one past it is an instruction.
                ip = unsafe { ip.add(1) };
                continue;
            }};
        }
        macro_rules! attempt {
            ($e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err(fault) => fail!(fault),
                }
            };
        }
        // A ref register about to be read as an object: 0 is a fault (see
        // `null_object`).
        macro_rules! object {
            ($r:expr, $what:expr) => {{
                let r = reg!($r);
                if r == 0 {
                    fail!(null_object($what));
                }
                r
            }};
        }
        // `x + y` of two `Int`s, or the fault of `add.int`'s overflow:
        // `add.int` and the fused forms that make its sum.
        macro_rules! plus {
            ($x:expr, $y:expr) => {
                match i64::checked_add($x, $y) {
                    Some(v) => v,
                    None => fail!(overflow("addition")),
                }
            };
        }
        // `x * y` of two `Int`s, or the fault of `mul.int`'s overflow:
        // `mul.int`, `mul.int.imm` and `mul-add.int.imm`'s product.
        macro_rules! times {
            ($x:expr, $y:expr) => {
                match i64::checked_mul($x, $y) {
                    Some(v) => v,
                    None => fail!(overflow("multiplication")),
                }
            };
        }
        // `a + value` of register `a` and a constant, or the fault of
        // `add.int.imm`'s overflow: `add.int.imm` and every fused form
        // that adds a constant (a returned sum, the index of
        // `get.list.imm` and `step.get.list`).
        macro_rules! plus_imm {
            ($a:expr, $value:expr) => {
                match int!($a).checked_add(i64::from($value)) {
                    Some(v) => v,
                    None => fail!(sum_overflow(i64::from($value))),
                }
            };
        }
        // `rem = a % divisor` for a divisor of 16 bits, giving the
        // remainder: the fused forms of `rem.int.imm` (`rem-add.int.imm`,
        // `rem-jump-eq.int.imm`, `rem-jump-ne.int.imm`).
        macro_rules! remainder {
            ($rem:expr, $a:expr, $divisor:expr) => {{
                let a = int!($a);
                // SAFETY: *divisor*, as for `div.int.imm`: the verifier
                // refuses these instructions' divisors where it refuses
                // `rem.int.imm`'s.
                let r = unsafe { self.divisors.rem(a, i32::from($divisor)) };
                set!($rem, r as u64);
                r
            }};
        }
        // `dst = list[i]` for the list in register `list`, giving the
        // element, or the fault of an index out of range; `what` names the
        // instruction for a list that is 0. Every read of a list by index
        // (`get.list` and its fused forms, the fused tests of a `Bool`
        // element).
        macro_rules! read_element {
            ($dst:expr, $list:expr, $i:expr, $what:expr) => {{
                let r = object!($list, $what);
                let i: i64 = $i;
                // SAFETY: *types*: `r`, not 0, is a list of this heap.
                match unsafe { self.heap.list_get(r, i) } {
                    Some(v) => {
                        set!($dst, v);
                        v
                    }
                    None => fail!(index_out_of_range(i, self.heap.list_len(r))),
                }
            }};
        }
        // What a fused test of an `Option` (in `r`) writes: the value
        // inside a `Some`, and 0 for `None`.
        macro_rules! value_or_zero {
            ($r:expr) => {{
                let r: u64 = $r;
                if r == 0 {
                    0
                } else {
                    // SAFETY: *types*: `r`, not 0, is a `some` of this
                    // heap, whose value is its one word of contents.
                    unsafe { self.heap.field(r, 0) }
                }
            }};
        }
        // After an instruction that allocated: collect if the heap asks.
        macro_rules! gc_point {
            () => {
                if self.heap.wants_collection() {
                    attempt!(self.collect());
                    refresh!();
                }
            };
        }

        // Stops at the safepoint: counts the stride that ran (and, polled,
        // the few instructions past it), then looks at the world and hands
        // out the next stride. A fault here (an interrupt, the end of the
        // run, fuel) is located at the instruction about to run.
        macro_rules! safepoint {
            () => {{
                match self.pause(remaining, pc!()) {
                    Ok(()) => remaining = i64::from(self.chunk),
                    Err(fault) => {
                        // `pause` counted what ran, overshoot and all.
                        remaining = 0;
                        self.ended_before = true;
                        fail!(fault)
                    }
                }
            }};
        }
        // Where a polled loop looks: after a taken jump or a call, so that
        // no loop and no recursion can run for long without passing one.
        macro_rules! poll {
            () => {
                if POLLED && remaining <= 0 {
                    safepoint!();
                }
            };
        }

        // A stretch's start: the head of the outer loop, which only the
        // handlers of instructions that end a stretch go round (`go_round!`,
        // `stretch_end!`), and only where the debugger is stopped at
        // stretches (see the module's documentation).
        'stretch: loop {
            if W::ON && !W::EVERY {
                // The safepoint before the stop, as the inner loop's head
                // has it before the instruction: a run with fuel that ends
                // here ends before the debugger saw the stretch start. The
                // inner head's test then finds a fresh stride.
                if !POLLED && remaining == 0 {
                    safepoint!();
                }
                #[cfg(debug_assertions)]
                {
                    // Every handler of an opcode that ends a stretch marks
                    // how (`ends!`), and comes here: checked against the
                    // table in every debug run the profiler watches.
                    debug_assert!(
                        marked_as_ended(fresh, ended),
                        "the instruction before pc {} ended its stretch as {ended:?}, \
                         but its handler marked {fresh:?}",
                        pc!()
                    );
                    came_round = true;
                }
                // `No` only before the run's first stop, which is never
                // offered.
                if fresh == StretchEnd::No
                    || !watch.glance(&Glance {
                        task: self.task,
                        after: fresh,
                        pc: pc!() as u32,
                        frames: &self.frames,
                        heap: &self.heap,
                        blocked: self.waited.nanos,
                    })
                {
                    // Out of line, where most stops are glances.
                    if let Err(fault) = self.stop(watch, ip) {
                        // The instruction the debugger stopped before never
                        // ran, and is not counted.
                        fail!(fault);
                    }
                }
            }
            // Goes round after an instruction that ends a stretch and has
            // set `ip`: by way of the stretch's start where a debugger is
            // stopped at stretches, and as every instruction goes round
            // otherwise, so that the other instantiations of the loop are
            // the one loop they were.
            macro_rules! go_round {
                () => {{
                    if W::ON && !W::EVERY {
                        continue 'stretch;
                    }
                    continue;
                }};
            }
            macro_rules! jump_if {
                ($cond:expr, $target:expr) => {{
                    ends!(Branch);
                    if $cond {
                        // SAFETY: *targets*: every jump target is a pc of this
                        // function.
                        ip = unsafe { self.code.add($target as usize) };
                        poll!();
                        go_round!();
                    }
                    if W::ON && !W::EVERY {
                        // SAFETY: *ends*: an instruction that falls
                        // through is not the last of its code.
                        ip = unsafe { ip.add(1) };
                        continue 'stretch;
                    }
                }};
            }
            // Returns `value` to the caller, or ends the run with it. The
            // second form writes the caller's registers with `$write`,
            // given the call's `dst` as `$dst`, once they are the loop's
            // registers again: a `return.unpacked`'s fields.
            macro_rules! ret {
                ($value:expr) => {{
                    let value: u64 = $value;
                    ret!(value, dst => { set!(cove_ir::op::Reg(dst), value) })
                }};
                ($value:expr, $dst:ident => $write:block) => {{
                    let value: u64 = $value;
                    // SAFETY: the loop runs only while the entry frame is on the
                    // stack, so there is a frame to pop.
                    let done = unsafe { self.frames.pop().unwrap_unchecked() };
                    match self.frames.last() {
                        None => {
                            self.frames.push(done);
                            self.settle(remaining);
                            return Ok(value);
                        }
                        Some(caller) => {
                            // Everything the return needs of the caller is in
                            // its frame: its code, where it resumes (just past
                            // its call, which *ends* makes an instruction of
                            // that code), its window and how far to clear it.
                            self.code = caller.code;
                            ip = caller.resume;
                            // SAFETY: the caller's frame is inside the stack,
                            // which never shrinks.
                            regs = unsafe { self.stack.as_mut_ptr().add(caller.base as usize) };
                            // The callee's frame lay over the caller's registers
                            // from its first argument up, and left its own bits
                            // there after its parameters. Those registers are
                            // dead in the caller, but a ref register among them
                            // would show the collector an integer: they are
                            // cleared, up to the caller's last ref register
                            // that anything may look at before the caller
                            // writes it again (*written*: see
                            // `Callee::clear_to`). A call with no such
                            // register above its arguments pays one
                            // comparison.
                            let from = usize::from(done.lent);
                            let clear_to = caller.clear_to as usize;
                            if from < clear_to {
                                // SAFETY: *frame* and *written*: `clear_to`
                                // is at most one past the caller's last ref
                                // register, so within its register count (its
                                // reference map has one entry a register),
                                // and its frame is inside the stack.
                                unsafe { clear_lent(regs, from, clear_to) };
                            }
                            let $dst = done.dst;
                            $write;
                            if W::ON && !W::EVERY {
                                // A conditional return's opcode cannot say it.
                                fresh = StretchEnd::Return;
                            }
                            go_round!();
                        }
                    }
                }};
            }
            // A conditional return: returns `value` if `cond` holds, and falls
            // through within its frame (as a branch not taken) if not.
            macro_rules! ret_if {
                ($cond:expr, $value:expr) => {{
                    if $cond {
                        ret!($value)
                    }
                    if W::ON && !W::EVERY {
                        fresh = StretchEnd::Branch;
                        // SAFETY: *ends*, as for `next!`.
                        ip = unsafe { ip.add(1) };
                        continue 'stretch;
                    }
                }};
            }
            // Pushes the frame of a call of `callee` on the `count` registers
            // from `args` and enters it: the one call path of `call` and
            // `call.closure`. Registers of the new frame from `count + extra`
            // on are cleared (`extra` is 1 for a closure, whose slot after the
            // arguments holds the closure itself).
            macro_rules! enter {
                ($dst:expr, $callee:expr, $args:expr, $count:expr, $extra:expr) => {{
                    ends!(Call);
                    let (dst, callee, args): (Reg, FunctionId, Reg) = ($dst, $callee, $args);
                    // The depth limit is checked only when the frame stack
                    // has no room: see `Machine::room`.
                    let depth = self.frames.len();
                    if depth >= self.room {
                        attempt!(self.grow_frames());
                    }
                    // The frame stack's pointer, read once: the stores below
                    // go through raw pointers, and the compiler would
                    // otherwise read `self.frames` again after them.
                    let frames = self.frames.as_mut_ptr();
                    // SAFETY: *tables*: the callee exists (a `call`'s operand,
                    // or the function a `new.closure` named), and the table has
                    // an entry for every function.
                    let target = unsafe { *self.callees.get_unchecked(callee.index()) };
                    // SAFETY: the loop runs only while the entry frame is
                    // on the stack, so there is a caller, at `depth - 1`.
                    let caller = unsafe { &mut *frames.add(depth - 1) };
                    // SAFETY: *ends*: the caller resumes past the call, which
                    // is not the last instruction of its code.
                    caller.resume = unsafe { ip.add(1) };
                    // The callee's frame starts at its first argument: the
                    // arguments are already its first registers, and
                    // nothing is copied. The frame overlaps the caller's
                    // registers from `args` up, which the compiler keeps
                    // free at a call (see `ret!` for what that leaves
                    // behind in the caller).
                    let callee_base = caller.base as usize + usize::from(args.0);
                    // A closure's slot after the arguments is in the window even
                    // when the callee has no register there.
                    let top = callee_base
                        + if $extra == 0 {
                            target.registers as usize
                        } else {
                            (target.registers as usize).max(usize::from($count) + $extra)
                        };
                    let count = usize::from($count);
                    // The record first, the frame stack's length after the
                    // register stack has room: nothing of the record is
                    // live across the growth's call.
                    // SAFETY: `room` is at most the capacity, and the
                    // depth was below it, checked above.
                    unsafe {
                        frames.add(depth).write(CallFrame {
                            code: target.code,
                            resume: target.code,
                            func: callee,
                            base: callee_base as u32,
                            clear_to: target.clear_to,
                            dst: dst.0,
                            lent: args.0.wrapping_add(count as u16),
                        })
                    };
                    if top > self.stack.len() {
                        attempt!(self.grow_stack(top));
                    }
                    let clear_from = count + $extra;
                    // SAFETY: *arity* and *frame*: `count` is the callee's
                    // parameter count (for a closure, every closure of the
                    // register's type has it), within its registers, and its
                    // window was just made to fit in the stack.
                    unsafe {
                        let window = self.stack.as_mut_ptr().add(callee_base);
                        // After the arguments, up to the last ref register
                        // anything may look at before the callee writes it
                        // (*written*: see `Callee::clear_to`).
                        clear(window.add(clear_from), window.add(target.clear_to as usize));
                        #[cfg(debug_assertions)]
                        self.poison(callee, window, clear_from);
                        regs = window;
                        self.frames.set_len(depth + 1);
                    }
                    self.code = target.code;
                    ip = target.code;
                    poll!();
                    go_round!();
                }};
            }
            // Calls the closure in `callee` on the `count` registers from
            // `args`: `call.closure`, and `move-call.closure` after its move.
            macro_rules! call_closure {
                ($dst:expr, $callee:expr, $args:expr, $count:expr) => {{
                    let (callee, args, count): (Reg, Reg, u16) = ($callee, $args, $count);
                    // The function is in the closure's header: no check of
                    // its type, which the verifier proved is the one of
                    // every closure this register can hold.
                    let closure = object!(callee, "`call.closure`");
                    // SAFETY: *types*: a non-zero `callee` is a closure
                    // of this task's heap.
                    let header = unsafe { self.heap.typed_header(closure) };
                    let func = FunctionId(crate::heap::a_of(header));
                    set!(Reg(args.0 + count), closure);
                    enter!($dst, func, args, count, 1);
                }};
            }
            // Goes on with the next instruction after one that may allocate
            // (it ends its stretch as `Other`) but, as it ran, neither
            // allocated, nor waited, nor left its frame: a builtin answered
            // on the spot, a `push.list` into room the list has, or a
            // builtin of the general way that the heap's and the wait's
            // counters say moved nothing. Marked as a branch, whose next
            // stop is in the frame of the stop before with the heap where it
            // was, so a debugger stopped at stretches may take it as a
            // branch's glance (`Debugger::glance`): for a counting profiler,
            // a counter in the loop instead of the out-of-line call an
            // allocation's glance is (for `push.list`, sieve's counting run
            // 1.75× → 1.57× in native instructions).
            macro_rules! stretch_quiet {
                () => {{
                    if W::ON && !W::EVERY {
                        fresh = StretchEnd::Branch;
                    }
                    // SAFETY: *ends*, as for `next!`.
                    ip = unsafe { ip.add(1) };
                    go_round!();
                }};
            }
            // The end of a handler of an instruction that ends a stretch
            // and falls through: goes round by the stretch's start where a
            // debugger is stopped at stretches, and falls out of the
            // `match` to `next!` as every handler does otherwise.
            macro_rules! stretch_end {
                () => {{
                    if W::ON && !W::EVERY {
                        // SAFETY: *ends*, as for `next!`.
                        ip = unsafe { ip.add(1) };
                        continue 'stretch;
                    }
                }};
            }
            loop {
                if !POLLED && remaining == 0 {
                    safepoint!();
                }
                // SAFETY: *ends* and *targets*: the code ends in a return or a
                // jump and every target is inside it, so `ip` points at an
                // instruction.
                let instr: &Instr = unsafe { &*ip };
                // Marks the stretch as ended by the instruction being run, as the
                // one table of `cove_ir` says it ends (`Opcode::stretch_end`): the
                // first thing of every handler whose opcode ends a stretch, and of
                // no other. The handler names the end as a constant rather than
                // reading the table, because the optimiser merges the tails of
                // handlers that share a macro and then no longer knows the
                // opcode; every debug run the profiler watches checks the name
                // against the table at the stretch's start (`marked_as_ended`).
                macro_rules! ends {
                    ($end:ident) => {{
                        if W::ON && !W::EVERY {
                            fresh = StretchEnd::$end;
                        }
                    }};
                }
                #[cfg(debug_assertions)]
                if W::ON && !W::EVERY {
                    // An instruction that ends a stretch never comes round the
                    // inner loop: it must go by the stretch's start.
                    debug_assert!(
                        came_round || ended == StretchEnd::No,
                        "the instruction before pc {} ends a stretch ({ended:?}), \
                     but its handler went round the inner loop",
                        pc!()
                    );
                    came_round = false;
                    ended = instr.opcode().stretch_end();
                }
                if W::ON && W::EVERY {
                    // Inline where every instruction stops (see `Machine::stop`).
                    if let Err(fault) = self.stop_here(watch, ip) {
                        fail!(fault);
                    }
                }
                remaining -= 1;
                // `ip` stays at the instruction while it runs: a handler that
                // falls through steps past it after the `match`, one that jumps,
                // calls or returns sets it and goes round (`continue`), so the
                // loop keeps one instruction pointer and not two.
                match *instr {
                    // ---- moving values ------------------------------------
                    Instr::Move { dst, src } => set!(dst, reg!(src)),
                    Instr::Move2 {
                        dst,
                        src,
                        second,
                        from,
                    } => {
                        set!(dst, reg!(src));
                        set!(second, reg!(from))
                    }
                    Instr::LoadInt { dst, value } => set!(dst, i64::from(value) as u64),
                    Instr::LoadConst { dst, constant } => {
                        // SAFETY: *tables*: the constant exists, and `consts`
                        // has an entry for every constant.
                        set!(dst, unsafe {
                            *self.consts.get_unchecked(constant.0 as usize)
                        })
                    }
                    Instr::LoadNone { dst } => set!(dst, 0),

                    // ---- Int ------------------------------------------------
                    Instr::AddInt { dst, a, b } => set!(dst, plus!(int!(a), int!(b)) as u64),
                    Instr::AddIntImm { dst, a, value } => set!(dst, plus_imm!(a, value) as u64),
                    Instr::AddAddIntImm { dst, a, b, value } => {
                        let sum = plus!(int!(a), int!(b));
                        // Not `plus_imm!`: the pair leaves the sum in
                        // `dst` when the constant overflows.
                        match sum.checked_add(i64::from(value)) {
                            Some(v) => set!(dst, v as u64),
                            None => {
                                set!(dst, sum as u64);
                                fail!(sum_overflow(i64::from(value)))
                            }
                        }
                    }
                    Instr::SubInt { dst, a, b } => match int!(a).checked_sub(int!(b)) {
                        Some(v) => set!(dst, v as u64),
                        None => fail!(overflow("subtraction")),
                    },
                    Instr::MulInt { dst, a, b } => set!(dst, times!(int!(a), int!(b)) as u64),
                    Instr::MulIntImm { dst, a, value } => {
                        set!(dst, times!(int!(a), i64::from(value)) as u64)
                    }
                    Instr::DivInt { dst, a, b } => {
                        let d = int!(b);
                        if d == 0 {
                            fail!(division_by_zero());
                        }
                        match int!(a).checked_div(d) {
                            Some(v) => set!(dst, v as u64),
                            None => fail!(overflow("division")),
                        }
                    }
                    Instr::RemInt { dst, a, b } => {
                        let d = int!(b);
                        if d == 0 {
                            fail!(division_by_zero());
                        }
                        // `Int.MIN % -1` overflows, as in Rust.
                        match int!(a).checked_rem(d) {
                            Some(v) => set!(dst, v as u64),
                            None => fail!(overflow("remainder")),
                        }
                    }
                    // By the divisor's reciprocal (see `divide.rs`).
                    Instr::DivIntImm { dst, a, value } => {
                        let a = int!(a);
                        // SAFETY: *divisor*: it is neither 0 nor -1.
                        set!(dst, unsafe { self.divisors.div(a, value) } as u64)
                    }
                    Instr::RemIntImm { dst, a, value } => {
                        let a = int!(a);
                        // SAFETY: *divisor*, as for `div.int.imm`.
                        set!(dst, unsafe { self.divisors.rem(a, value) } as u64)
                    }
                    Instr::RemAddIntImm {
                        dst,
                        c,
                        rem,
                        a,
                        divisor,
                    } => {
                        let r = remainder!(rem, a, divisor);
                        set!(dst, plus!(int!(c), r) as u64)
                    }
                    Instr::NegInt { dst, a } => match int!(a).checked_neg() {
                        Some(v) => set!(dst, v as u64),
                        None => fail!(overflow("negation")),
                    },
                    Instr::AndInt { dst, a, b } => set!(dst, reg!(a) & reg!(b)),
                    Instr::OrInt { dst, a, b } => set!(dst, reg!(a) | reg!(b)),
                    Instr::XorInt { dst, a, b } => set!(dst, reg!(a) ^ reg!(b)),
                    Instr::ShlInt { dst, a, b } => {
                        let by = int!(b);
                        if !(0..=63).contains(&by) {
                            fail!(bad_shift(by));
                        }
                        set!(dst, (int!(a) << by) as u64)
                    }
                    Instr::ShrInt { dst, a, b } => {
                        let by = int!(b);
                        if !(0..=63).contains(&by) {
                            fail!(bad_shift(by));
                        }
                        set!(dst, (int!(a) >> by) as u64)
                    }
                    Instr::EqInt { dst, a, b } => set!(dst, u64::from(reg!(a) == reg!(b))),
                    Instr::NeInt { dst, a, b } => set!(dst, u64::from(reg!(a) != reg!(b))),
                    Instr::LtInt { dst, a, b } => set!(dst, u64::from(int!(a) < int!(b))),
                    Instr::LeInt { dst, a, b } => set!(dst, u64::from(int!(a) <= int!(b))),

                    // ---- Float ----------------------------------------------
                    Instr::AddFloat { dst, a, b } => set!(dst, (float!(a) + float!(b)).to_bits()),
                    Instr::SubFloat { dst, a, b } => set!(dst, (float!(a) - float!(b)).to_bits()),
                    Instr::MulFloat { dst, a, b } => set!(dst, (float!(a) * float!(b)).to_bits()),
                    Instr::DivFloat { dst, a, b } => set!(dst, (float!(a) / float!(b)).to_bits()),
                    Instr::RemFloat { dst, a, b } => set!(dst, (float!(a) % float!(b)).to_bits()),
                    Instr::NegFloat { dst, a } => set!(dst, (-float!(a)).to_bits()),
                    Instr::EqFloat { dst, a, b } => set!(dst, u64::from(float!(a) == float!(b))),
                    Instr::NeFloat { dst, a, b } => set!(dst, u64::from(float!(a) != float!(b))),
                    Instr::LtFloat { dst, a, b } => set!(dst, u64::from(float!(a) < float!(b))),
                    Instr::LeFloat { dst, a, b } => set!(dst, u64::from(float!(a) <= float!(b))),
                    Instr::ToFloatInt { dst, src } => set!(dst, (int!(src) as f64).to_bits()),
                    Instr::SqrtFloat { dst, a } => set!(dst, float!(a).sqrt().to_bits()),
                    Instr::MulAddFloat {
                        dst,
                        c,
                        product,
                        a,
                        b,
                    } => {
                        let p = float!(a) * float!(b);
                        set!(product, p.to_bits());
                        set!(dst, (float!(c) + p).to_bits())
                    }
                    Instr::MulSubFloat {
                        dst,
                        c,
                        product,
                        a,
                        b,
                    } => {
                        let p = float!(a) * float!(b);
                        set!(product, p.to_bits());
                        set!(dst, (float!(c) - p).to_bits())
                    }

                    // ---- Bool -----------------------------------------------
                    Instr::NotBool { dst, a } => set!(dst, u64::from(reg!(a) == 0)),

                    // ---- String ---------------------------------------------
                    Instr::ConcatStr { dst, a, b } => {
                        ends!(Other);
                        let r = attempt!(self.heap.concat(reg!(a), reg!(b)));
                        set!(dst, r);
                        gc_point!();
                        stretch_end!();
                    }
                    Instr::EqValue { dst, a, b, ty } => {
                        let v = attempt!(self.heap.equal(program, ty, reg!(a), reg!(b)));
                        set!(dst, u64::from(v))
                    }
                    Instr::EqStr { dst, a, b } => {
                        let (a, b) = strings!(a, b);
                        let v = crate::heap::same_bytes(a, b);
                        set!(dst, u64::from(v))
                    }
                    Instr::NeStr { dst, a, b } => {
                        let (a, b) = strings!(a, b);
                        let v = !crate::heap::same_bytes(a, b);
                        set!(dst, u64::from(v))
                    }
                    Instr::LtStr { dst, a, b } => {
                        let (a, b) = strings!(a, b);
                        let v = crate::heap::order_bytes(a, b).is_lt();
                        set!(dst, u64::from(v))
                    }
                    Instr::LeStr { dst, a, b } => {
                        let (a, b) = strings!(a, b);
                        let v = crate::heap::order_bytes(a, b).is_le();
                        set!(dst, u64::from(v))
                    }
                    Instr::ToStrInt { dst, src } => {
                        ends!(Other);
                        let mut buf = itoa::Buffer::new();
                        let text = buf.format(int!(src));
                        let r = attempt!(self.heap.alloc_str(text.as_bytes()));
                        set!(dst, r);
                        gc_point!();
                        stretch_end!();
                    }
                    Instr::ToStrFloat { dst, src } => {
                        ends!(Other);
                        let text = float!(src).to_string();
                        let r = attempt!(self.heap.alloc_str(text.as_bytes()));
                        set!(dst, r);
                        gc_point!();
                        stretch_end!();
                    }
                    Instr::ToStr { dst, src, ty } => {
                        ends!(Other);
                        let mut text = Vec::new();
                        attempt!(self.heap.render(program, ty, reg!(src), &mut text, false));
                        let r = attempt!(self.heap.alloc_str(&text));
                        set!(dst, r);
                        gc_point!();
                        stretch_end!();
                    }

                    // ---- control --------------------------------------------
                    Instr::Jump { target } => jump_if!(true, target),
                    Instr::JumpIf { cond, target } => jump_if!(reg!(cond) != 0, target),
                    Instr::JumpIfNot { cond, target } => jump_if!(reg!(cond) == 0, target),
                    Instr::JumpEqInt { a, b, target } => jump_if!(reg!(a) == reg!(b), target),
                    Instr::JumpNeInt { a, b, target } => jump_if!(reg!(a) != reg!(b), target),
                    Instr::JumpLtInt { a, b, target } => jump_if!(int!(a) < int!(b), target),
                    Instr::JumpLeInt { a, b, target } => jump_if!(int!(a) <= int!(b), target),
                    Instr::JumpGtInt { a, b, target } => jump_if!(int!(a) > int!(b), target),
                    Instr::JumpGeInt { a, b, target } => jump_if!(int!(a) >= int!(b), target),
                    Instr::JumpEqIntImm { a, value, target } => {
                        jump_if!(int!(a) == i64::from(value), target)
                    }
                    Instr::JumpNeIntImm { a, value, target } => {
                        jump_if!(int!(a) != i64::from(value), target)
                    }
                    Instr::RemJumpEqIntImm {
                        rem,
                        a,
                        divisor,
                        target,
                    } => {
                        let r = remainder!(rem, a, divisor);
                        jump_if!(r == 0, target)
                    }
                    Instr::RemJumpNeIntImm {
                        rem,
                        a,
                        divisor,
                        target,
                    } => {
                        let r = remainder!(rem, a, divisor);
                        jump_if!(r != 0, target)
                    }
                    Instr::LoopLtInt {
                        counter,
                        limit,
                        target,
                    } => match int!(counter).checked_add(1) {
                        Some(v) => {
                            set!(counter, v as u64);
                            jump_if!(v < int!(limit), target)
                        }
                        None => fail!(overflow("addition")),
                    },
                    Instr::LoopLtIntImm {
                        counter,
                        value,
                        target,
                    } => match int!(counter).checked_add(1) {
                        Some(v) => {
                            set!(counter, v as u64);
                            jump_if!(v < i64::from(value), target)
                        }
                        None => fail!(overflow("addition")),
                    },
                    Instr::JumpLtIntImm { a, value, target } => {
                        jump_if!(int!(a) < i64::from(value), target)
                    }
                    Instr::JumpLeIntImm { a, value, target } => {
                        jump_if!(int!(a) <= i64::from(value), target)
                    }
                    Instr::JumpGtIntImm { a, value, target } => {
                        jump_if!(int!(a) > i64::from(value), target)
                    }
                    Instr::JumpGeIntImm { a, value, target } => {
                        jump_if!(int!(a) >= i64::from(value), target)
                    }
                    Instr::JumpNone { opt, target } => jump_if!(reg!(opt) == 0, target),
                    Instr::JumpSome { opt, target } => jump_if!(reg!(opt) != 0, target),
                    Instr::JumpNoneUnwrap { dst, opt, target } => {
                        let r = reg!(opt);
                        set!(dst, value_or_zero!(r));
                        jump_if!(r == 0, target)
                    }
                    Instr::JumpSomeUnwrap { dst, opt, target } => {
                        let r = reg!(opt);
                        set!(dst, value_or_zero!(r));
                        jump_if!(r != 0, target)
                    }
                    Instr::JumpIfList {
                        dst,
                        list,
                        index,
                        target,
                    } => {
                        let v = read_element!(dst, list, int!(index), "`jump-if.list`");
                        jump_if!(v != 0, target)
                    }
                    Instr::JumpIfNotList {
                        dst,
                        list,
                        index,
                        target,
                    } => {
                        let v = read_element!(dst, list, int!(index), "`jump-ifnot.list`");
                        jump_if!(v == 0, target)
                    }
                    Instr::JumpIfLtFloat { dst, a, b, target } => {
                        let holds = float!(a) < float!(b);
                        set!(dst, u64::from(holds));
                        jump_if!(holds, target)
                    }
                    Instr::JumpIfNotLtFloat { dst, a, b, target } => {
                        let holds = float!(a) < float!(b);
                        set!(dst, u64::from(holds));
                        jump_if!(!holds, target)
                    }
                    Instr::JumpIfLeFloat { dst, a, b, target } => {
                        let holds = float!(a) <= float!(b);
                        set!(dst, u64::from(holds));
                        jump_if!(holds, target)
                    }
                    Instr::JumpIfNotLeFloat { dst, a, b, target } => {
                        let holds = float!(a) <= float!(b);
                        set!(dst, u64::from(holds));
                        jump_if!(!holds, target)
                    }
                    Instr::Call {
                        dst,
                        func: callee,
                        base: args,
                        count,
                    } => {
                        enter!(dst, callee, args, count, 0);
                    }
                    Instr::CallClosure {
                        dst,
                        callee,
                        base: args,
                        count,
                    } => call_closure!(dst, callee, args, count),
                    Instr::MoveCallClosure {
                        dst,
                        callee,
                        base: args,
                        count,
                        src,
                    } => {
                        // The move first, as the pair makes it: a closure
                        // that is 0 faults with the argument moved.
                        set!(args, reg!(src));
                        call_closure!(dst, callee, args, count)
                    }
                    Instr::NewClosure {
                        dst,
                        func,
                        base: captures,
                        count,
                    } => {
                        ends!(Other);
                        let captures = window!(captures, count);
                        let r = attempt!(self.heap.alloc_object(
                            kind::CLOSURE,
                            func.0,
                            u32::from(count),
                            captures
                        ));
                        set!(dst, r);
                        gc_point!();
                        stretch_end!();
                    }
                    Instr::CallBuiltin {
                        dst,
                        builtin,
                        base: args,
                        count,
                    } => {
                        ends!(Other);
                        use cove_ir::builtins::Builtin as B;
                        // A map lookup, inline and on the registers themselves:
                        // the fused `get(k).unwrap_or(d)` of a counting loop,
                        // `contains` and the turns of `for (k, v) in map`,
                        // which a call would cost a tenth of a map of
                        // numbers' time. A lookup never grows the stack, so
                        // its arguments need no copy.
                        if matches!(
                            builtin,
                            B::MapGetOr | B::MapContains | B::MapHasAt | B::MapValueAt
                        ) {
                            let given = window!(args, count);
                            let (Some(&map), Some(&key)) = (given.first(), given.get(1)) else {
                                fail!(null_argument(builtin));
                            };
                            if map == 0 {
                                fail!(null_argument(builtin));
                            }
                            // The default of `get-or`, the turn of the others.
                            let third = given.get(2).copied().unwrap_or(0);
                            let value = match builtin {
                                B::MapContains => {
                                    u64::from(self.heap.map_lookup(map, key).is_some())
                                }
                                B::MapGetOr => self.heap.map_lookup(map, key).unwrap_or(third),
                                B::MapHasAt => {
                                    u64::from(self.heap.map_lookup_at(map, key, third).is_some())
                                }
                                _ => attempt!(
                                    self.heap
                                        .map_lookup_at(map, key, third)
                                        .ok_or_else(super::builtins::no_such_key)
                                ),
                            };
                            set!(dst, value);
                            stretch_quiet!();
                        }
                        // Copied out of the stack, which the builtin may grow.
                        // Word by word: a call to `memcpy` for one to four words
                        // would cost more than the copy.
                        let mut buf = [0u64; 4];
                        let given = window!(args, count);
                        let n = given.len().min(4);
                        for (slot, word) in buf.iter_mut().zip(given) {
                            *slot = *word;
                        }
                        // A receiver read as a list, map, task or channel must
                        // not be 0 (see `null_object`).
                        if buf[0] == 0 && self.object_receivers[builtin as usize] {
                            fail!(null_argument(builtin));
                        }
                        // A push into room the list already has: the common
                        // push of a loop.
                        if builtin == B::ListPush && self.heap.list_push_in_place(buf[0], buf[1]) {
                            set!(dst, 0);
                            stretch_quiet!();
                        }
                        // The builtins a loop calls most that neither allocate
                        // nor fail are answered by `Machine::quick_builtin`,
                        // out of line: its code inline here cost every other
                        // handler machine registers (fib's call 4% more).
                        if let Some(v) = self.quick_builtin(builtin, &buf) {
                            set!(dst, v);
                            stretch_quiet!();
                        }
                        // The rest share one tail: the result, then the
                        // collection check. `List.pop`, `Map.set` and
                        // `String.slice` allocate, or may, but never call out
                        // or look at the stack, so each is one call of a small
                        // function; the others enter the builtin function.
                        // One tail for all, where one each cost fib and the
                        // integer loop machine registers in every handler.
                        //
                        // Where the debugger is stopped at stretches, what the
                        // heap had handed out and how long the task had waited
                        // are read before: a builtin that moved neither (a map
                        // set of a key it has, a print, a sort in place)
                        // leaves the frame and the heap as a branch does, and
                        // its stop is offered as a branch's glance.
                        let still = if W::ON && !W::EVERY {
                            (self.heap.allocated_words(), self.waited.nanos)
                        } else {
                            (0, 0)
                        };
                        let r = match builtin {
                            B::ListPop => self.heap.list_pop(buf[0]),
                            B::MapSet => {
                                self.heap.map_set(buf[0], buf[1], buf[2]);
                                Ok(0)
                            }
                            B::StrSlice => self.str_slice(buf[0], buf[1] as i64, buf[2] as i64),
                            _ => {
                                sync_past!();
                                let r = self.builtin(builtin, &buf[..n]);
                                refresh!();
                                r
                            }
                        };
                        let r = attempt!(r);
                        set!(dst, r);
                        gc_point!();
                        if W::ON
                            && !W::EVERY
                            && still == (self.heap.allocated_words(), self.waited.nanos)
                        {
                            stretch_quiet!();
                        }
                        stretch_end!();
                    }
                    Instr::Return { src } => ret!(reg!(src)),
                    Instr::ReturnAddInt { a, b } => ret!(plus!(int!(a), int!(b)) as u64),
                    Instr::ReturnAddIntImm { a, value } => ret!(plus_imm!(a, value) as u64),
                    Instr::ReturnUnit {} => ret!(0),
                    Instr::ReturnIfEqIntImm { a, value, src } => {
                        ret_if!(int!(a) == i64::from(value), reg!(src))
                    }
                    Instr::ReturnIfNeIntImm { a, value, src } => {
                        ret_if!(int!(a) != i64::from(value), reg!(src))
                    }
                    Instr::ReturnIfLtIntImm { a, value, src } => {
                        ret_if!(int!(a) < i64::from(value), reg!(src))
                    }
                    Instr::ReturnIfLeIntImm { a, value, src } => {
                        ret_if!(int!(a) <= i64::from(value), reg!(src))
                    }
                    Instr::ReturnIfGtIntImm { a, value, src } => {
                        ret_if!(int!(a) > i64::from(value), reg!(src))
                    }
                    Instr::ReturnIfGeIntImm { a, value, src } => {
                        ret_if!(int!(a) >= i64::from(value), reg!(src))
                    }

                    // ---- structs, enums, options -----------------------------
                    Instr::NewStruct {
                        dst,
                        ty,
                        base: fields,
                        count,
                    } => {
                        ends!(Other);
                        let fields = window!(fields, count);
                        let r = attempt!(self.heap.alloc_object(
                            kind::STRUCT,
                            u32::from(ty.0),
                            u32::from(count),
                            fields
                        ));
                        set!(dst, r);
                        gc_point!();
                        stretch_end!();
                    }
                    Instr::GetField {
                        dst, obj, field, ..
                    } => {
                        let r = object!(obj, "`get.field`");
                        // SAFETY: *types* and *tables*: `r`, not 0, is a
                        // struct of this heap that has field `field`.
                        set!(dst, unsafe { self.heap.field(r, field) })
                    }
                    Instr::SetField {
                        obj, field, src, ..
                    } => {
                        let r = object!(obj, "`set.field`");
                        let v = reg!(src);
                        // SAFETY: *types* and *tables*: `r`, not 0, is a
                        // struct of this heap that has field `field`.
                        unsafe { self.heap.set_field(r, field, v) }
                    }
                    Instr::NewVariant {
                        dst,
                        ty,
                        variant,
                        base: fields,
                        count,
                    } => {
                        ends!(Other);
                        let fields = window!(fields, count);
                        let r = attempt!(self.heap.alloc_object(
                            kind::VARIANT,
                            u32::from(ty.0),
                            u32::from(variant),
                            fields
                        ));
                        set!(dst, r);
                        gc_point!();
                        stretch_end!();
                    }
                    Instr::Tag { dst, obj } => {
                        let r = object!(obj, "`tag`");
                        set!(dst, u64::from(b_of(self.heap.header(r))))
                    }
                    Instr::GetPayload {
                        dst,
                        obj,
                        ty,
                        variant,
                        field,
                    } => {
                        let r = object!(obj, "`get.payload`");
                        let header = self.heap.header(r);
                        if b_of(header) != u32::from(variant) || a_of(header) != u32::from(ty.0) {
                            fail!(Fault::new(
                                ErrorKind::WrongVariant,
                                format!(
                                    "expected variant {} of {}, found variant {}",
                                    variant,
                                    program
                                        .enums
                                        .get(usize::from(ty.0))
                                        .map_or("an enum", |e| e.name.as_str()),
                                    b_of(header)
                                ),
                            ));
                        }
                        // SAFETY: *types* and *tables*: `r`, not 0, is a
                        // value of this heap's enum `ty`, and its header says
                        // it is variant `variant`, which has payload `field`.
                        set!(dst, unsafe { self.heap.field(r, field) })
                    }
                    Instr::NewSome { dst, src, ty } => {
                        ends!(Other);
                        let is_ref = self
                            .shared
                            .digest
                            .type_is_ref
                            .get(ty.0 as usize)
                            .copied()
                            .unwrap_or(false);
                        let r = attempt!(self.heap.alloc_some(is_ref, ty.0, reg!(src)));
                        set!(dst, r);
                        gc_point!();
                        stretch_end!();
                    }
                    Instr::Unwrap { dst, opt, .. } => {
                        let r = reg!(opt);
                        if r == 0 {
                            fail!(unwrap_none());
                        }
                        // SAFETY: *types*: `r`, not 0, is a `some` of this
                        // heap, whose value is its one word of contents.
                        set!(dst, unsafe { self.heap.field(r, 0) })
                    }

                    // ---- lists and maps --------------------------------------
                    Instr::NewList {
                        dst,
                        ty,
                        base: items,
                        count,
                    } => {
                        ends!(Other);
                        let is_ref = self
                            .shared
                            .digest
                            .type_is_ref
                            .get(ty.0 as usize)
                            .copied()
                            .unwrap_or(false);
                        let items = window!(items, count);
                        let r = attempt!(self.heap.alloc_list(is_ref, ty.0, items));
                        set!(dst, r);
                        gc_point!();
                        stretch_end!();
                    }
                    Instr::GetList {
                        dst, list, index, ..
                    } => {
                        read_element!(dst, list, int!(index), "`get.list`");
                    }
                    Instr::GetListImm {
                        dst,
                        list,
                        index,
                        offset,
                        ..
                    } => {
                        // The sum first, before the list is looked at.
                        let i = plus_imm!(index, offset);
                        read_element!(dst, list, i, "`get.list.imm`");
                    }
                    Instr::StepGetList {
                        dst,
                        list,
                        index,
                        offset,
                        ..
                    } => {
                        // The step first, written as the `add.int.imm` it
                        // stands for writes it, then the element.
                        let i = plus_imm!(index, offset);
                        set!(index, i as u64);
                        read_element!(dst, list, i, "`step.get.list`");
                    }
                    Instr::SetList {
                        list, index, src, ..
                    } => {
                        let r = object!(list, "`set.list`");
                        let i = int!(index);
                        let v = reg!(src);
                        // SAFETY: *types*: `r`, not 0, is a list of this heap.
                        if !unsafe { self.heap.list_set(r, i, v) } {
                            fail!(index_out_of_range(i, self.heap.list_len(r)));
                        }
                    }
                    Instr::PushList { list, src, .. } => {
                        ends!(Other);
                        let r = object!(list, "`push.list`");
                        // Into room the list has: no allocation, no
                        // collection, and where the debugger is stopped at
                        // stretches, a stop offered as a branch's.
                        if self.heap.list_push_in_place(r, reg!(src)) {
                            if W::ON && !W::EVERY {
                                stretch_quiet!();
                            }
                        } else {
                            attempt!(self.heap.list_push(r, reg!(src)));
                            gc_point!();
                        }
                        stretch_end!();
                    }
                    Instr::LenList { dst, list } => {
                        let r = object!(list, "`len.list`");
                        // SAFETY: *types*: `r`, not 0, is a list of this heap.
                        set!(dst, unsafe { self.heap.typed_list_len(r) })
                    }
                    Instr::NewMap { dst, key, value } => {
                        ends!(Other);
                        let str_keys = matches!(
                            program.types.get(key.0 as usize),
                            Some(cove_ir::types::Type::Str)
                        );
                        let values_ref = self
                            .shared
                            .digest
                            .type_is_ref
                            .get(value.0 as usize)
                            .copied()
                            .unwrap_or(false);
                        let r = attempt!(self.heap.alloc_map(str_keys, values_ref, key.0, value.0));
                        set!(dst, r);
                        gc_point!();
                        stretch_end!();
                    }

                    // ---- tasks ------------------------------------------------
                    Instr::Spawn {
                        dst,
                        func: callee,
                        base: args,
                        count,
                    } => {
                        ends!(Other);
                        let args: Vec<u64> = window!(args, count).to_vec();
                        sync_past!();
                        let r = attempt!(self.spawn(scope, watch.child(), callee, &args));
                        set!(dst, r);
                        gc_point!();
                        stretch_end!();
                    }
                    Instr::NewChannel { dst, ty } => {
                        ends!(Other);
                        let r = attempt!(
                            ChannelHandle::fresh().and_then(|c| self.heap.alloc_channel(c, ty.0))
                        );
                        set!(dst, r);
                        gc_point!();
                        stretch_end!();
                    }
                    // Last in the `match`, as their opcodes are last: the
                    // handlers above keep the places they had.
                    Instr::DivIntPow2 { dst, a, exponent } => {
                        // Truncation toward zero: a negative dividend is
                        // raised by `2^k − 1` before the arithmetic shift,
                        // which rounds down. It cannot overflow: `a < 0`.
                        // The verifier's *divisor*: `k` is in 1..=62.
                        let (a, k) = (int!(a), exponent as u32);
                        let bias = (a >> 63) & ((1i64 << k) - 1);
                        set!(dst, ((a + bias) >> k) as u64)
                    }
                    Instr::RemIntPow2 { dst, a, exponent } => {
                        // The low `k` bits, less `2^k` where the dividend is
                        // negative and they are not all 0: the sign of `a`.
                        // The verifier's *divisor*: `k` is in 1..=62.
                        let (a, k) = (int!(a), exponent as u32);
                        let low = a & ((1i64 << k) - 1);
                        let r = if a < 0 && low != 0 {
                            low - (1i64 << k)
                        } else {
                            low
                        };
                        set!(dst, r as u64)
                    }
                    Instr::CallUnpack {
                        dst,
                        func: callee,
                        base: args,
                        count,
                    } => {
                        // A call, as `call` makes it: what differs is the
                        // return, which finds this instruction before the
                        // caller's `resume`. An arm of its own, the same as
                        // `call`'s: in `call`'s arm, as `| Instr::CallUnpack`,
                        // it moved the loop's machine registers, and every
                        // program ran 2% to 3% more native instructions.
                        enter!(dst, callee, args, count, 0);
                    }
                    Instr::ReturnUnpacked { base, count } => {
                        // The caller, if it called with `call.unpack`: the
                        // frame below this one, whose `resume` is just past
                        // its call (*ends*).
                        let depth = self.frames.len();
                        // SAFETY: `depth - 2` is a frame of the stack when
                        // `depth >= 2`; a frame below the innermost resumes
                        // just past the call it made (*ends*: the call is
                        // not its code's last instruction), so the
                        // instruction before its `resume` is that call.
                        let unpacks = depth >= 2
                            && unsafe {
                                (*self.frames.get_unchecked(depth - 2).resume.sub(1)).opcode()
                                    == cove_ir::op::Opcode::CallUnpack
                            };
                        if unpacks {
                            // Out of the callee's registers before the
                            // return clears the caller's, which they may lie
                            // among. The verifier's *arity*: `count` is at
                            // most `MAX_UNPACKED`, and the caller's `call.unpack`
                            // has as many registers from its `dst`.
                            let mut fields = [0u64; cove_ir::op::MAX_UNPACKED];
                            let n = usize::from(count).min(cove_ir::op::MAX_UNPACKED);
                            fields[..n].copy_from_slice(window!(base, n));
                            ret!(0, dst => {
                                for (i, field) in fields[..n].iter().enumerate() {
                                    set!(cove_ir::op::Reg(dst + i as u16), *field);
                                }
                            });
                        }
                        if W::ON && !W::EVERY {
                            fresh = StretchEnd::Branch;
                            // SAFETY: *ends*, as for `next!`.
                            ip = unsafe { ip.add(1) };
                            continue 'stretch;
                        }
                    }
                    Instr::AddCall {
                        func,
                        base,
                        count,
                        a,
                        offset,
                    } => {
                        // The argument first, as the pair makes it: a sum
                        // that overflows faults before any frame is pushed.
                        let argument = plus_imm!(a, offset);
                        set!(base, argument as u64);
                        enter!(base, func, base, count, 0);
                    }
                    Instr::MulAddIntImm { dst, a, value, b } => {
                        // Both read first: the product goes to `dst`.
                        let c = int!(b);
                        let p = times!(int!(a), i64::from(value));
                        match p.checked_add(c) {
                            Some(v) => set!(dst, v as u64),
                            None => {
                                // The pair leaves the product in `dst`.
                                set!(dst, p as u64);
                                fail!(overflow("addition"))
                            }
                        }
                    }
                }
                next!();
            }
        }
    }

    /// The answer of a builtin call that neither allocates nor fails, for
    /// the builtins a loop calls most, or `None` for the builtin function
    /// to run (another builtin, or one of these that would fail: a byte
    /// out of range, an unwrap of `None`, a push that must grow the list,
    /// a Float with no Int, the absolute value of `Int.MIN`).
    /// None of them enters the builtin function, whose entry saves six
    /// machine registers and reserves half a kilobyte of stack; out of the
    /// dispatch loop, whose handlers lost machine registers to this code
    /// inline.
    #[inline(never)]
    fn quick_builtin(
        &mut self,
        builtin: cove_ir::builtins::Builtin,
        buf: &[u64; 4],
    ) -> Option<u64> {
        use cove_ir::builtins::Builtin as B;
        match builtin {
            // A string's length is its header's: a view's as
            // well as a string's, and 0 for a string at 0.
            B::StrLength => {
                return Some(u64::from(b_of(self.heap.header(buf[0]))));
            }
            // A byte in range (a negative index is past every
            // length as a `u64`).
            B::StrByteAt => {
                let at = usize::try_from(buf[1]).unwrap_or(usize::MAX);
                // SAFETY: *types*: a `byte_at`'s first argument is a
                // string (the verifier checks a builtin's arguments
                // against its signature).
                let bytes = unsafe { self.heap.typed_str_bytes(buf[0]) };
                if let Some(b) = bytes.get(at) {
                    return Some(u64::from(*b));
                }
            }
            // An `Option` is 0 or a `Some` whose value is its
            // one word.
            B::OptionUnwrap if buf[0] != 0 => {
                return Some(self.heap.word(buf[0] + 1));
            }
            B::OptionUnwrapOr => {
                let v = if buf[0] == 0 {
                    buf[1]
                } else {
                    self.heap.word(buf[0] + 1)
                };
                return Some(v);
            }
            B::OptionIsSome => {
                return Some(u64::from(buf[0] != 0));
            }
            B::OptionIsNone => {
                return Some(u64::from(buf[0] == 0));
            }
            B::ListDropLast => {
                self.heap.list_drop_last(buf[0]);
                return Some(0);
            }
            // The numbers' methods that cannot fail. Through the general
            // way each paid its spill and reload of the loop's state and
            // the big `match` of `Machine::builtin`: a loop of `floor`,
            // `round`, `ceil`, `pow` and `to_int` ran in 0.58 of Lua 5.4's
            // time, its plain arithmetic in under half.
            B::FloatFloor => return Some(f64::from_bits(buf[0]).floor().to_bits()),
            B::FloatCeil => return Some(f64::from_bits(buf[0]).ceil().to_bits()),
            B::FloatRound => return Some(f64::from_bits(buf[0]).round().to_bits()),
            B::FloatAbs => return Some(f64::from_bits(buf[0]).abs().to_bits()),
            B::FloatPow => {
                return Some(
                    f64::from_bits(buf[0])
                        .powf(f64::from_bits(buf[1]))
                        .to_bits(),
                );
            }
            B::IntMin => return Some((buf[0] as i64).min(buf[1] as i64) as u64),
            B::IntMax => return Some((buf[0] as i64).max(buf[1] as i64) as u64),
            // These two only where they succeed: the general way makes
            // the fault.
            B::FloatToInt => {
                if let Some(n) = super::builtins::truncated(f64::from_bits(buf[0])) {
                    return Some(n as u64);
                }
            }
            B::IntAbs => {
                if let Some(n) = (buf[0] as i64).checked_abs() {
                    return Some(n as u64);
                }
            }
            _ => {}
        }
        None
    }

    /// Fills the registers of `callee`'s new frame at `window` that a call
    /// leaves as they were (its num registers after its `count` arguments,
    /// and its ref registers past the *written* bound) with patterns no
    /// test expects, in debug builds only: code that read a register
    /// before writing it would then give wrong answers, or fail, in the
    /// test suites instead of relying, unseen, on a 0.
    ///
    /// # Safety
    ///
    /// `window` is the frame's first register, with the callee's
    /// `registers` slots after it inside the stack.
    #[cfg(debug_assertions)]
    #[inline(never)]
    unsafe fn poison(&self, callee: FunctionId, window: *mut u64, count: usize) {
        const POISON: u64 = 0x5a5a_5a5a_5a5a_5a5a;
        // An index no heap reaches: a ref register the call left uncleared
        // (*written*) that the collector or an instruction read before the
        // callee wrote it would fail loudly, under the collector-stress
        // suite above all, instead of reading whatever the stack held.
        const POISON_REF: u64 = 0x7ead_beef_0000_0001;
        let function = self.program.function(callee);
        let cleared = (self.callees[callee.index()].clear_to as usize).max(count);
        for r in count..usize::from(function.registers) {
            let poison = if !function.refs.get(r).copied().unwrap_or(false) {
                POISON
            } else if r >= cleared {
                POISON_REF
            } else {
                continue;
            };
            // SAFETY: `r` is inside the frame, which the caller vouches is
            // inside the stack.
            unsafe { window.add(r).write(poison) };
        }
    }

    /// Stops the debugger before the instruction at `ip`, which it may
    /// halt the run at: writes the place into the innermost frame and
    /// hands the debugger its [`Stop`]. A debugger's panic is caught here,
    /// not where the task started, so the run still counts what it ran and
    /// says where it was.
    ///
    /// Out of line, and cold beside the loop's instructions, for a
    /// debugger stopped at stretches: it is first offered most stops as a
    /// [`Glance`], which the loop keeps inline, and building the `Stop`
    /// there took machine registers from the hot locals of every handler.
    /// A debugger stopped at every instruction is stopped by
    /// [`Machine::stop_here`] instead, inline, since a call at every
    /// instruction costs more than the registers.
    #[cold]
    #[inline(never)]
    fn stop<W: Watch<'env>>(&mut self, watch: &W, ip: *const Instr) -> Result<(), Fault> {
        self.stop_here(watch, ip)
    }

    /// What [`Machine::stop`] does, inline where it is called.
    #[inline(always)]
    fn stop_here<W: Watch<'env>>(&mut self, watch: &W, ip: *const Instr) -> Result<(), Fault> {
        if let Some(frame) = self.frames.last_mut() {
            frame.resume = ip;
        }
        let stop = Stop {
            program: self.program,
            frames: &self.frames,
            stack: &self.stack,
            heap: &self.heap,
            pc: ((ip as usize - self.code as usize) / INSTR_BYTES as usize) as u32,
            task: self.task,
            ran: false,
            blocked: self.waited.nanos,
        };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| watch.at(&stop))) {
            Ok(Resume::Go) => Ok(()),
            Ok(_) => Err(Fault::new(ErrorKind::Halted, "halted by the debugger")),
            Err(panic) => Err(debugger_panicked(&*panic)),
        }
    }

    /// Ends the run with `fault`, located at the instruction `ip` of the
    /// current function: counts what ran, writes the place just past it
    /// into the innermost frame and builds the error. Out of line, so that
    /// no handler of the loop carries this path's code.
    #[cold]
    #[inline(never)]
    fn fail_at(&mut self, fault: Fault, remaining: i64, ip: *const Instr) -> RunError {
        self.settle(remaining);
        // One past the instruction: its index plus one, as a frame's place
        // is everywhere else. `wrapping_add`, since it is only compared
        // and subtracted, never read.
        let resume = ip.wrapping_add(1);
        let pc = (resume as usize - self.code as usize) / INSTR_BYTES as usize;
        if let Some(frame) = self.frames.last_mut() {
            frame.resume = resume;
        }
        self.error(fault, pc)
    }

    /// Makes room for more frames, up to the depth limit, or fails when the
    /// stack is as deep as the limit allows. Called only when the frame
    /// stack is [`Machine::room`] deep.
    #[cold]
    #[inline(never)]
    fn grow_frames(&mut self) -> Result<(), Fault> {
        let len = self.frames.len();
        if len >= self.max_depth {
            return Err(Fault::new(
                ErrorKind::CallDepth,
                format!(
                    "call depth exceeded its limit of {} frames",
                    self.shared.limits.max_call_depth
                ),
            ));
        }
        let want = len.max(16).min(self.max_depth - len);
        self.frames.reserve(want);
        self.room = self.frames.capacity().min(self.max_depth);
        Ok(())
    }

    /// Adds the part of the current stride that ran to the count, and gives
    /// back the fuel it did not use.
    /// `remaining` is below zero only in a polled loop, which has no fuel.
    fn settle(&mut self, remaining: i64) {
        self.executed += (i64::from(self.chunk) - remaining) as u64;
        self.chunk = 0;
        if let Some(fuel) = &mut self.fuel {
            *fuel += remaining.max(0) as u64;
        }
    }

    /// How many instructions may run before the next safepoint.
    fn next_chunk(&mut self) -> Result<u32, Fault> {
        if self.fuel == Some(0) {
            // The fuel is the run's: refill from its tank.
            self.fuel = Some(self.shared.fuel.take(u64::from(SAFEPOINT_STRIDE)));
        }
        match &mut self.fuel {
            None => Ok(SAFEPOINT_STRIDE),
            Some(0) => Err(out_of_fuel(self.shared)),
            Some(fuel) => {
                let chunk = (*fuel).min(u64::from(SAFEPOINT_STRIDE)) as u32;
                *fuel -= u64::from(chunk);
                Ok(chunk)
            }
        }
    }

    /// The safepoint, at `pc`: counts the stride that ran (`remaining` is
    /// what was left of it, below zero if a polled loop ran past its end),
    /// makes the checks and hands out the next stride in `chunk`.
    #[cold]
    #[inline(never)]
    fn pause(&mut self, remaining: i64, pc: usize) -> Result<(), Fault> {
        // The stride is counted; a fault from here on settles nothing twice.
        // No fuel comes back: an exact loop pauses at 0, a polled one has
        // none.
        self.settle(remaining);
        #[cfg(feature = "sampled-profile")]
        if let (Some(sampled), Some(frame)) = (&mut self.sampled, self.frames.last()) {
            sampled.sample(self.program.function(frame.func), pc);
        }
        #[cfg(not(feature = "sampled-profile"))]
        let _ = pc;
        self.safepoint()?;
        self.chunk = self.next_chunk()?;
        Ok(())
    }

    /// The checks of a safepoint, other than fuel.
    #[cold]
    fn safepoint(&mut self) -> Result<(), Fault> {
        if self.shared.interrupt.is_interrupted() || self.shared.scheduler.is_ending() {
            return Err(crate::vm::tasks::stopped(&self.shared.interrupt));
        }
        if crate::heap::reserve::rescues() != self.shared.rescues {
            return Err(crate::heap::rescued());
        }
        self.pay_for_work()
    }

    /// Starts `callee` on a task of its own, with deep copies of `args`.
    #[inline(never)]
    fn spawn<'scope, D: Debugger + ?Sized>(
        &mut self,
        scope: &'scope Scope<'scope, 'env>,
        debugger: Option<&'env D>,
        callee: FunctionId,
        args: &[u64],
    ) -> Result<u64, Fault>
    where
        'env: 'scope,
    {
        let program = self.program;
        let function = program.function(callee);
        // A thread's start and end are work the fuel pays for.
        self.heap
            .did_work(crate::limits::SPAWN_FUEL * crate::limits::WORK_PER_FUEL);
        // Paid, and the run asked whether it is ending, before the thread
        // starts: a task whose first act is a spawn reaches no safepoint
        // before it, so a chain of them spawned up to `max_tasks` past the
        // fuel, and on after `main` had returned and the run was ending.
        self.safepoint()?;
        let mut values = Vec::with_capacity(args.len());
        for (ty, bits) in function.params.iter().zip(args) {
            values.push(self.heap.to_value(program, *ty, *bits)?);
        }
        let shared = self.shared;
        let id = shared.scheduler.admit(shared.limits.max_tasks)?;
        let state = std::sync::Arc::new(crate::vm::tasks::TaskState::new(id, &shared.scheduler));
        let handle = crate::value::TaskHandle(state.clone());
        let started = std::thread::Builder::new()
            .name(format!("cove-task-{id}"))
            .stack_size(super::TASK_STACK)
            .spawn_scoped(scope, move || {
                let (outcome, _) = super::run_task(shared, scope, debugger, id, callee, values);
                shared.scheduler.finish(&state, outcome);
            });
        if let Err(e) = started {
            // The host's own limit on tasks (its threads, or the address
            // space for their stacks), met before `max_tasks`: the same
            // error as that limit's, not a fault of the machine.
            let why = format!(
                "the host would not start a thread for another task ({e}); \
                 fewer tasks at once, or more memory for the process, would let it"
            );
            shared.scheduler.finish(
                &crate::vm::tasks::TaskState::new(id, &shared.scheduler),
                Err(RunError::new(ErrorKind::TooManyTasks, why.clone())),
            );
            return Err(Fault::new(ErrorKind::TooManyTasks, why));
        }
        self.heap.alloc_task(handle, function.result.0)
    }
}

/// The run's fuel is used up: by instructions alone, or by instructions
/// and the data-sized work of builtins and copies (see
/// [`Limits::fuel`](crate::Limits::fuel)).
#[cold]
pub(crate) fn out_of_fuel(shared: &crate::vm::machine::Shared<'_>) -> Fault {
    shared.fuel.exhausted()
}

/// [`null_object`] for a builtin's argument.
#[cold]
#[inline(never)]
fn null_argument(builtin: cove_ir::builtins::Builtin) -> Fault {
    null_object(&format!("`{}`", builtin.name()))
}

/// Writes 0 to the registers from `from` up to `end`, word by word: a
/// handful of registers, where a call to `memset` would cost more.
///
/// # Safety
///
/// `from..end` is inside one allocation (the stack).
#[inline(always)]
unsafe fn clear(mut from: *mut u64, end: *mut u64) {
    while from < end {
        // SAFETY: the caller vouches for the range.
        unsafe { from.write_volatile(0) };
        // SAFETY: `from` is below `end`, so one past it is at most `end`.
        from = unsafe { from.add(1) };
    }
}

/// Writes 0 to `regs[from..end]`: a caller's registers a callee's frame
/// lay over. Kept out of the dispatch loop, which would otherwise give up a
/// machine register for a path most returns do not take. By `memset`, not
/// word by word as [`clear`] does at a call's entry: a return into a
/// caller whose ref registers reach far above the call's window (a `main`
/// whose later loops took them) clears a dozen words or more, and the
/// word loop was 11% of the closures benchmark's time (docs/RUNTIME.md,
/// "A return's clearing").
///
/// # Safety
///
/// `regs[from..end]` is inside the stack.
#[inline(never)]
unsafe fn clear_lent(regs: *mut u64, from: usize, end: usize) {
    // SAFETY: the caller vouches for the range.
    unsafe { std::ptr::write_bytes(regs.add(from), 0, end - from) }
}
