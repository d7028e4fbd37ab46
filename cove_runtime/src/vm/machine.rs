//! A task's machine: its register stack, its frames and its heap, and what
//! the tasks of one run share.
//!
//! Frames live on one heap-allocated `Vec<u64>` of registers, each frame a
//! window of its function's `registers` slots, and a `Vec<CallFrame>` that
//! says whose window is whose. A Cove call pushes a frame and never recurses
//! on the host's stack, so the depth of a Cove program is bounded by
//! [`Limits::max_call_depth`] and memory, not by the native stack.
//!
//! A callee's window overlaps its caller's: it starts at the caller's first
//! argument register, so the arguments are not copied (Lua's shape). A
//! register has one class (num or ref) for the whole of its function, so
//! one slot may be a ref register of the caller and a num register of the
//! callee. The collector stays exact because it scans each frame only below
//! the next frame's base, and a return zeroes the caller's ref registers
//! its callee lay over (see `CallFrame::lent` and `Callee::clear_to`);
//! where the compiler puts windows decides whether answers are right, never
//! whether memory is.
//!
//! `Machine` holds only what every run needs. Nothing in it exists for a
//! debugger or a profiler (the dispatch loop is told about a debugger by a
//! type parameter instead, see [`exec`](super::exec)), except — behind the
//! `sampled-profile` feature — the field of the design the seed rejected,
//! kept so its cost stays measurable.

use std::io::Write;
use std::sync::Arc;

use cove_ir::builtins::{Builtin, Sig};
use cove_ir::program::{Constant, FunctionId, Program};
use cove_ir::verify::Verified;
use parking_lot::Mutex;

use crate::error::{BacktraceFrame, ErrorKind, Fault, RunError};
use crate::heap::{Layouts, Memory};
use crate::limits::{FuelTank, HeapBudget, InterruptHandle, Limits, WORK_PER_FUEL};
use crate::value::Value;
use crate::vm::divide::Divisors;
use crate::vm::tasks::{Scheduler, Waited};

/// One frame of a task's stack: 32 bytes, everything a return needs of the
/// frame it returns to, so that a return reads one record and not the
/// record and its function's [`Callee`] entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CallFrame {
    /// Its function's first instruction, copied from the function's
    /// [`Callee`] entry by the call: what a return into this frame makes
    /// the loop's code pointer.
    pub(crate) code: *const cove_ir::op::Instr,
    /// Where it resumes: an instruction of `code`, kept up to date for
    /// every frame but the innermost, whose place the dispatch loop holds
    /// in a local. A pointer, not an index, because a call then stores it
    /// and a return loads it with nothing to add or multiply;
    /// [`CallFrame::pc`] gives the instruction's index.
    pub(crate) resume: *const cove_ir::op::Instr,
    /// The function running in it.
    pub(crate) func: FunctionId,
    /// Its first register's index in the stack. A callee's frame starts at
    /// its first argument, inside the caller's: the caller's registers from
    /// there up belong to the callee until it returns.
    pub(crate) base: u32,
    /// Its function's [`Callee::clear_to`]: how far a return into this
    /// frame clears the registers its callee lay over.
    pub(crate) clear_to: u32,
    /// The caller's register its result goes to.
    pub(crate) dst: u16,
    /// The first of the caller's registers this frame may leave its own
    /// bits in: the one after its arguments, which it shares with the
    /// caller as its parameters (of the same types, in both frames).
    pub(crate) lent: u16,
}

// SAFETY: `code` and `resume` point into a program the `Vm` borrows,
// unchanged, for as long as any machine runs it; a frame is only read
// through them, never written.
unsafe impl Send for CallFrame {}
// SAFETY: as for `Send`.
unsafe impl Sync for CallFrame {}

impl CallFrame {
    /// The frame of `func` entered at its first instruction, before it has
    /// a caller to return to.
    pub(crate) fn entry(func: FunctionId, callee: Callee, base: u32) -> CallFrame {
        CallFrame {
            code: callee.code,
            resume: callee.code,
            func,
            base,
            clear_to: callee.clear_to,
            dst: 0,
            lent: 0,
        }
    }

    /// The index of the instruction the frame resumes at.
    pub(crate) fn pc(&self) -> u32 {
        // Addresses, not `offset_from`: both point into one function's
        // code, and this stays a plain subtraction however a frame was
        // made.
        ((self.resume as usize - self.code as usize) / std::mem::size_of::<cove_ir::op::Instr>())
            as u32
    }
}

/// One past the last stack slot frame `i` of `frames` holds: the base of
/// the frame it called, whose frame lies over its registers from there up,
/// or no bound for the innermost. What the collector scans of a frame, and
/// what a debugger may read of it.
pub(crate) fn frame_end(frames: &[CallFrame], i: usize) -> usize {
    frames
        .get(i + 1)
        .map_or(usize::MAX, |callee| callee.base as usize)
}

/// What the program says, digested once a run for the machine's use.
#[derive(Debug)]
pub(crate) struct Digest {
    pub(crate) layouts: Arc<Layouts>,
    /// Per function, the registers that hold references: a frame's roots.
    pub(crate) ref_registers: Vec<Vec<u16>>,
    /// Per type, whether its values are references.
    pub(crate) type_is_ref: Vec<bool>,
    /// Per function, what a call or a return needs of it.
    pub(crate) callees: Vec<Callee>,
    /// The reciprocals of the program's constant divisors.
    pub(crate) divisors: Divisors,
    /// Per builtin, whether its receiver is read as a list, map, task or
    /// channel, and so must not be 0. (A string at 0 reads as empty, and an
    /// `Option` at 0 is `None`.) No builtin reads another argument so: see
    /// [`reads_receiver_as_object`].
    pub(crate) object_receivers: Vec<bool>,
}

/// What a call or a return needs of a function, packed in 16 bytes: the
/// dispatch loop indexes a dense table of these instead of the program's
/// `Function`s, which are 200 bytes apart and would cost a multiply and
/// two more loads on every call and return.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Callee {
    /// Its first instruction. The code belongs to the program, which
    /// outlives the machine, and is never changed while it runs.
    pub(crate) code: *const cove_ir::op::Instr,
    /// The size of its frame.
    pub(crate) registers: u32,
    /// How far into a frame zeros are written: by a call into the new
    /// frame after its arguments, and by a return into the caller's frame
    /// from where the callee's began. Up to and including the last ref
    /// register that anything may look at before the function writes it
    /// (the verifier's *written* bound,
    /// [`cove_ir::verify::Verified::clear_to`]), so that every reference
    /// the collector finds in the frame, an instruction reads or a
    /// debugger shows is 0 or one the function wrote; every ref register
    /// past it is written before any of them looks, after the function's
    /// entry and after each of its calls. The num registers are not
    /// cleared: they hold whatever the stack held there, and nothing reads
    /// one before the function has written it (the compiler assigns every
    /// local before use, and keeps no live register above a call's
    /// arguments; a debugger shows a local only inside its live range).
    pub(crate) clear_to: u32,
}

// SAFETY: `code` points into a program the `Vm` borrows, unchanged, for
// as long as the digest that holds the table lives; the tasks that share
// the table only read through it.
unsafe impl Send for Callee {}
// SAFETY: as for `Send`.
unsafe impl Sync for Callee {}

impl Digest {
    /// The digest of a proven program: its callee table holds pointers
    /// into the code that the dispatch loop follows unchecked, so it is
    /// made only of a program the verifier passed.
    pub(crate) fn of(proof: Verified<'_>) -> Digest {
        let program = proof.program();
        Digest {
            layouts: Arc::new(Layouts::of(program)),
            ref_registers: program
                .functions
                .iter()
                .map(|f| {
                    f.refs
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| **r)
                        .map(|(i, _)| i as u16)
                        .collect()
                })
                .collect(),
            type_is_ref: program.types.iter().map(|t| t.is_ref()).collect(),
            callees: program
                .functions
                .iter()
                .enumerate()
                .map(|(i, f)| Callee {
                    code: f.code.as_ptr(),
                    registers: u32::from(f.registers),
                    clear_to: u32::from(proof.clear_to(FunctionId(i as u32))),
                })
                .collect(),
            divisors: Divisors::of(program),
            object_receivers: Builtin::ALL
                .iter()
                .map(|b| reads_receiver_as_object(*b))
                .collect(),
        }
    }
}

/// Whether `builtin` reads its receiver as a list, map, task or channel.
fn reads_receiver_as_object(builtin: Builtin) -> bool {
    builtin.signature().receiver.is_some_and(is_object)
}

/// Whether a value of this signature type is read as a list, map, task or
/// channel.
fn is_object(sig: Sig) -> bool {
    matches!(
        sig,
        Sig::List(_) | Sig::Map(..) | Sig::Task(_) | Sig::Channel(_)
    )
}

/// What every task of one run shares.
pub(crate) struct Shared<'env> {
    /// The program, always one a [`Verified`] proves: `Vm::run_entry`
    /// makes a `Shared` only from the proof it holds.
    pub(crate) program: &'env Program,
    pub(crate) digest: &'env Digest,
    pub(crate) limits: Limits,
    /// The run's fuel, which every task draws on.
    pub(crate) fuel: std::sync::Arc<FuelTank>,
    /// The run's heap budget, which every task's heap draws on.
    pub(crate) heap: Arc<HeapBudget>,
    pub(crate) interrupt: InterruptHandle,
    pub(crate) out: Mutex<Box<dyn Write + Send>>,
    pub(crate) err: Mutex<Box<dyn Write + Send>>,
    /// What `read_line` and `read_stdin` read.
    pub(crate) input: Mutex<Box<dyn std::io::BufRead + Send>>,
    pub(crate) args: Vec<String>,
    pub(crate) scheduler: Scheduler,
    /// What every park counts instead of the clock, if set
    /// ([`Vm::with_fixed_wait_time`](crate::Vm::with_fixed_wait_time)).
    pub(crate) fixed_wait: Option<u64>,
    /// Whether `write_file` may write
    /// ([`Vm::with_file_writes`](crate::Vm::with_file_writes)).
    pub(crate) file_writes: bool,
    /// How many times the host's memory had been rescued
    /// ([`reserve::rescue`](crate::heap::reserve::rescue)) when the run
    /// began: a later rescue ends it at its next safepoint.
    pub(crate) rescues: u64,
}

impl std::fmt::Debug for Shared<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// A task's machine: see the module documentation.
#[derive(Debug)]
pub(crate) struct Machine<'env> {
    pub(crate) shared: &'env Shared<'env>,
    pub(crate) program: &'env Program,
    pub(crate) stack: Vec<u64>,
    pub(crate) frames: Vec<CallFrame>,
    pub(crate) heap: Memory,
    /// Every constant's bits: the number for an `Int` or `Float`, the
    /// reference of its interned string for a `String` (a root).
    pub(crate) consts: Vec<u64>,
    /// Instructions executed, brought up to date at each safepoint and when
    /// a run ends.
    pub(crate) executed: u64,
    /// Whether the run ended at a safepoint, before the instruction its
    /// error is located at ran (fuel, an interrupt, the run's end), rather
    /// than in that instruction: what [`Stop::ran`](crate::vm::debug::Stop::ran)
    /// tells a debugger at the fault.
    pub(crate) ended_before: bool,
    /// The length of the stride the loop is counting down, so that the part
    /// of it that ran can be counted when the run ends.
    pub(crate) chunk: u32,
    /// Instructions the fuel limit still allows, if there is one.
    pub(crate) fuel: Option<u64>,
    /// This task's number: 0 for the task the `Vm` ran.
    pub(crate) task: u32,
    /// How long this task has spent parked in `join` and `recv`: a figure
    /// of the run, like the heap's counters, that a debugger reads at a
    /// stop and the task keeps whether or not one is installed (it is
    /// added to only on the parked path, so a task that never waits never
    /// touches it).
    pub(crate) waited: Waited,
    /// The first instruction of the function the dispatch loop is running,
    /// while it runs: read by a taken jump (its target is an index into
    /// this code), a stop and a fault (a place is an index into it),
    /// written by a call and a return. Kept here rather than in a
    /// local of the loop, so that the loop's three hot locals keep their
    /// machine registers (see `Machine::run`).
    pub(crate) code: *const cove_ir::op::Instr,
    /// `Limits::max_call_depth`, where a call reads it.
    pub(crate) max_depth: usize,
    /// How deep the frame stack may grow before a call must stop and
    /// check: the smaller of its capacity and `max_depth`. A call compares
    /// the depth with this one number, so the depth limit costs nothing
    /// beyond the check a push makes anyway; the capacity never shrinks, so
    /// this never passes it.
    pub(crate) room: usize,
    /// Per function, what a call or a return needs of it: the run's
    /// table, in the digest.
    pub(crate) callees: &'env [Callee],
    /// The reciprocals `div.int.imm` and `rem.int.imm` divide by: the
    /// run's table, in the digest.
    pub(crate) divisors: &'env Divisors,
    /// Per builtin, whether its receiver must not be 0: the run's table,
    /// in the digest.
    pub(crate) object_receivers: &'env [bool],
    /// The rejected design: see [`crate::vm::sampled`].
    #[cfg(feature = "sampled-profile")]
    pub(crate) sampled: Option<Box<crate::vm::sampled::SampledProfile>>,
}

impl<'env> Machine<'env> {
    /// A machine with an empty stack and a heap holding the program's
    /// string and function constants.
    pub(crate) fn new(shared: &'env Shared<'env>, task: u32) -> Result<Machine<'env>, RunError> {
        let limits = &shared.limits;
        let mut heap = Memory::new(
            shared.digest.layouts.clone(),
            shared.heap.clone(),
            limits.gc_stress,
        );
        let mut consts = Vec::with_capacity(shared.program.constants.len());
        for constant in &shared.program.constants {
            consts.push(match constant {
                Constant::Int(n) => *n as u64,
                Constant::Float(x) => x.to_bits(),
                Constant::Str(s) => heap
                    .alloc_str(s.as_bytes())
                    .map_err(|f| RunError::new(f.kind, f.message))?,
                // A closure that captures nothing: one object a task, as a
                // string constant is, so `let f = square` allocates nothing.
                Constant::Function(f) => heap
                    .alloc_object(crate::heap::kind::CLOSURE, f.0, 0, &[])
                    .map_err(|f| RunError::new(f.kind, f.message))?,
            });
        }
        Ok(Machine {
            shared,
            program: shared.program,
            stack: Vec::new(),
            frames: Vec::new(),
            heap,
            consts,
            executed: 0,
            ended_before: false,
            chunk: 0,
            // Empty: the first stride's fuel comes from the run's tank.
            fuel: limits.fuel.map(|_| 0),
            task,
            waited: Waited {
                nanos: 0,
                fixed: shared.fixed_wait,
            },
            code: std::ptr::null(),
            max_depth: limits.max_call_depth,
            room: 0,
            callees: &shared.digest.callees,
            divisors: &shared.digest.divisors,
            object_receivers: &shared.digest.object_receivers,
            #[cfg(feature = "sampled-profile")]
            sampled: None,
        })
    }

    /// Pushes the entry frame of `func` with `args` copied into its heap.
    pub(crate) fn enter(&mut self, func: FunctionId, args: &[Value]) -> Result<(), RunError> {
        let program = self.program;
        let function = program.function(func);
        if self.max_depth == 0 {
            return Err(RunError::new(
                ErrorKind::CallDepth,
                "call depth exceeded its limit of 0 frames: the entry is the first",
            ));
        }
        if function.params.len() != args.len() {
            return Err(RunError::new(
                ErrorKind::NoSuchEntry,
                format!(
                    "{} takes {} arguments, not {}",
                    function.qualified,
                    function.params.len(),
                    args.len()
                ),
            ));
        }
        let registers = usize::from(function.registers);
        self.stack.clear();
        self.grow_stack(registers.max(16) * 4)
            .map_err(|f| at_entry(f, frame_at(program, func, 0, self.task)))?;
        for (i, (ty, value)) in function.params.iter().zip(args).enumerate() {
            let bits = self
                .heap
                .put_value(program, *ty, value)
                .map_err(|f| at_entry(f, frame_at(program, func, 0, self.task)))?;
            self.stack[i] = bits;
        }
        self.frames.clear();
        self.frames
            .push(CallFrame::entry(func, self.callees[func.index()], 0));
        self.room = self.frames.capacity().min(self.max_depth);
        // Interning the constants and copying the arguments in is the
        // host's work, not the program's: no fuel pays for it.
        self.heap.take_work();
        Ok(())
    }

    /// Grows the register stack to hold at least `top` slots (twice that,
    /// room allowing). The stack counts against the run's heap bound like
    /// the heap itself, so a deep recursion of large frames meets
    /// `HeapLimit` rather than taking the host's memory; and a host that
    /// cannot give it the memory is a `HeapLimit` too, never an abort.
    #[cold]
    #[inline(never)]
    pub(crate) fn grow_stack(&mut self, top: usize) -> Result<(), Fault> {
        let want = top.saturating_mul(2);
        self.heap.set_stack_words(top as u64)?;
        let more = want.saturating_sub(self.stack.len());
        let len = if self.stack.try_reserve_exact(more).is_ok() {
            want
        } else {
            let need = top.saturating_sub(self.stack.len());
            self.stack.try_reserve_exact(need).map_err(|e| {
                crate::heap::out_of_memory(need, format_args!("{e}, for the register stack"))
            })?;
            top
        };
        self.stack.resize(len, 0);
        self.heap.set_stack_words(len as u64)
    }

    /// Pays for the data-sized work the heap counted since the last
    /// payment (see [`Limits::fuel`]): from the fuel this task holds, then
    /// from the run's tank. Called at each safepoint.
    pub(crate) fn pay_for_work(&mut self) -> Result<(), Fault> {
        let units = self.heap.take_work() / WORK_PER_FUEL;
        let Some(held) = &mut self.fuel else {
            return Ok(());
        };
        if units == 0 {
            return Ok(());
        }
        let from_held = units.min(*held);
        *held -= from_held;
        self.shared.fuel.note_work();
        if self.shared.fuel.pay(units - from_held) {
            Ok(())
        } else {
            Err(crate::vm::exec::out_of_fuel(self.shared))
        }
    }

    /// Appends the Cove backtrace to `out`, innermost first, with the
    /// innermost frame at `pc` (the index after the instruction that
    /// faulted), and gives how many frames it left out.
    ///
    /// Its memory is asked of the host fallibly: a fault of a deep stack is
    /// often the host's refusal of memory, and a backtrace of 90,000 frames
    /// is some ten megabytes of names, more than the reserve kept back to
    /// report the refusal in (`heap/reserve.rs`). Refused, it keeps the
    /// innermost frames it had room for and counts the rest as left out.
    fn backtrace_into(&self, pc: usize, out: &mut Vec<BacktraceFrame>) -> usize {
        let total = self.frames.len();
        if out.try_reserve_exact(total).is_err() {
            // Room for a few at least, if the host has that.
            let _ = out.try_reserve_exact(total.min(KEPT_ON_REFUSAL));
        }
        let room = out.capacity() - out.len();
        let last = total.saturating_sub(1);
        let mut kept = 0;
        for (i, frame) in self.frames.iter().enumerate().rev() {
            if kept == room {
                break;
            }
            let resume = if i == last { pc } else { frame.pc() as usize };
            let at = resume.saturating_sub(1) as u32;
            let Some(frame) = try_frame_at(self.program, frame.func, at, self.task) else {
                break;
            };
            out.push(frame);
            kept += 1;
        }
        total - kept
    }

    /// The fault as a run error located at `pc`.
    pub(crate) fn error(&self, fault: Fault, pc: usize) -> RunError {
        let mut backtrace = fault.inner;
        let left_out = self.backtrace_into(pc, &mut backtrace);
        let mut message = fault.message;
        if left_out > 0 {
            // Appended only if the host has room for it too: the note is
            // written into room asked for first, which it fits in.
            let mut note = String::new();
            if note.try_reserve_exact(128).is_ok() {
                use std::fmt::Write as _;
                let _ = write!(
                    note,
                    " ({left_out} outer frames of the backtrace left out: the host had no memory for them)"
                );
                if message.try_reserve_exact(note.len()).is_ok() {
                    message.push_str(&note);
                }
            }
        }
        RunError {
            kind: fault.kind,
            message,
            backtrace,
        }
    }

    /// Collects this task's garbage. The roots are the ref registers of
    /// every frame and the string and function constants.
    pub(crate) fn collect(&mut self) -> Result<(), Fault> {
        let digest = self.shared.digest;
        let program = self.program;
        let frames = &self.frames;
        let stack = &mut self.stack;
        let consts = &mut self.consts;
        self.heap.collect(|visit| {
            for (i, frame) in frames.iter().enumerate() {
                let base = frame.base as usize;
                // A frame's registers from its callee's base up are the
                // callee's, scanned as the callee's frame.
                let end = frame_end(frames, i);
                for r in &digest.ref_registers[frame.func.index()] {
                    let at = base + usize::from(*r);
                    if at >= end {
                        break;
                    }
                    visit(&mut stack[at]);
                }
            }
            for (constant, bits) in program.constants.iter().zip(consts.iter_mut()) {
                if constant.is_ref() {
                    visit(bits);
                }
            }
        })
    }
}

impl Drop for Machine<'_> {
    /// A task that ends gives the fuel it took and did not use back to the
    /// run's tank.
    fn drop(&mut self) {
        if let Some(held) = self.fuel {
            self.shared.fuel.give_back(held);
        }
    }
}

/// How many frames a backtrace asks room for when the host refuses room
/// for all of them.
const KEPT_ON_REFUSAL: usize = 64;

/// [`frame_at`], its two strings asked of the host fallibly: `None` if
/// it refuses them.
fn try_frame_at(program: &Program, func: FunctionId, pc: u32, task: u32) -> Option<BacktraceFrame> {
    let function = program.function(func);
    let copy = |text: &str| {
        let mut copy = String::new();
        copy.try_reserve_exact(text.len()).ok()?;
        copy.push_str(text);
        Some(copy)
    };
    let path = match program.module(&function.module) {
        Some(module) => copy(&module.path)?,
        None => {
            let mut path = copy(&function.module)?;
            path.try_reserve_exact(".cove".len()).ok()?;
            path.push_str(".cove");
            path
        }
    };
    Some(BacktraceFrame {
        function: copy(&function.qualified)?,
        path,
        line: program.line_of(func, pc),
        task,
    })
}

/// The backtrace frame of `func` at the instruction `pc`, in `task`.
pub(crate) fn frame_at(program: &Program, func: FunctionId, pc: u32, task: u32) -> BacktraceFrame {
    // A frame with no names, where the host had no room for them.
    try_frame_at(program, func, pc, task).unwrap_or(BacktraceFrame {
        function: String::new(),
        path: String::new(),
        line: program.line_of(func, pc),
        task,
    })
}

/// A fault met entering or leaving a task's entry function, outside every
/// frame, as a run error located at `frame` (that function).
pub(crate) fn at_entry(fault: Fault, frame: BacktraceFrame) -> RunError {
    let mut error = RunError::new(fault.kind, fault.message);
    error.backtrace.push(frame);
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_record_is_32_bytes_so_a_return_reads_one_aligned_record() {
        assert_eq!(std::mem::size_of::<CallFrame>(), 32);
        assert_eq!(std::mem::align_of::<CallFrame>(), 8);
    }

    #[test]
    fn a_frames_pc_is_the_index_of_the_instruction_it_resumes_at() {
        let code = [cove_ir::op::Instr::ReturnUnit {}; 5];
        let callee = Callee {
            code: code.as_ptr(),
            registers: 2,
            clear_to: 1,
        };
        let mut frame = CallFrame::entry(FunctionId(3), callee, 7);
        assert_eq!(
            (frame.pc(), frame.func, frame.base, frame.clear_to),
            (0, FunctionId(3), 7, 1)
        );
        frame.resume = code[3..].as_ptr();
        assert_eq!(frame.pc(), 3);
        frame.resume = code.as_ptr_range().end;
        assert_eq!(frame.pc(), 5);
    }

    #[test]
    fn no_builtin_reads_an_argument_but_its_receiver_as_an_object() {
        // The dispatch loop tests only the receiver for 0 (see
        // `Digest::object_receivers`); a builtin that read another argument
        // as a list, map, task or channel would need that test too.
        for builtin in Builtin::ALL {
            let signature = builtin.signature();
            assert!(
                !signature.params.iter().copied().any(is_object),
                "{}",
                builtin.name()
            );
        }
    }
}
