//! A measurement, not part of the VM: tail-call threaded dispatch against
//! the `match` loop, on the five opcodes the `loop` and `sieve` benchmarks'
//! inner loops run, with the same hot state and the same polled safepoint.
//!
//! `cove_runtime`'s loop (`vm/exec.rs`) is one `match` inside a `loop`: the
//! compiler keeps four locals (the instruction pointer, the code base, the
//! register window, the countdown) in machine registers across it, and every
//! handler ends in a jump back to one shared indirect branch. The
//! alternative the issue asks to measure is makepad-stitch's: every handler
//! a function that ends by calling the next instruction's handler through a
//! table, with the hot state as its arguments, so each handler has its own
//! indirect branch and nothing is kept in memory between two of them. On
//! stable Rust that depends on the optimiser turning the final call into a
//! jump (a sibling call); nothing guarantees it, so a run large enough to
//! overflow the stack would show if it did not.
//!
//! Both interpreters run the same program, in the same 12-byte
//! instructions, and print the same checksum:
//!
//! ```text
//! cargo build --release -p cove_runtime --example threaded_dispatch
//! target/release/examples/threaded_dispatch match 50000000
//! target/release/examples/threaded_dispatch threaded 50000000
//! ```
//!
//! This is a prototype on a subset, so its figures bound what threading can
//! win on these opcodes and say nothing of the cost of carrying the rest of
//! the machine (the frame stack, the heap, faults with their locations) to
//! every handler. Its findings are in docs/RUNTIME.md ("Tail-call threaded
//! dispatch").

use std::process::ExitCode;

/// One instruction: an opcode and its operands, 12 bytes as in `cove_ir`.
#[derive(Clone, Copy)]
#[repr(C)]
struct Instr {
    op: u8,
    a: u8,
    b: u8,
    c: u8,
    imm: i32,
    target: u32,
}

const LOAD_INT: u8 = 0;
const ADD_INT: u8 = 1;
const REM_INT_IMM: u8 = 2;
const LOOP_LT_INT_IMM: u8 = 3;
const RETURN: u8 = 4;

/// How often the countdown reaches the safepoint, as in the VM.
const STRIDE: i64 = 1024;

/// The integer loop of `examples/bench/loop.cove`: `for i in 0..n { sum +=
/// i % 7 }`, the loop's limit an immediate.
fn program(n: i32) -> Vec<Instr> {
    let i = |op, a, b, c, imm, target| Instr {
        op,
        a,
        b,
        c,
        imm,
        target,
    };
    vec![
        i(LOAD_INT, 0, 0, 0, 0, 0),        // @0 sum = 0
        i(LOAD_INT, 1, 0, 0, 0, 0),        // @1 i = 0
        i(REM_INT_IMM, 2, 1, 0, 7, 0),     // @2 t = i % 7
        i(ADD_INT, 0, 0, 2, 0, 0),         // @3 sum += t
        i(LOOP_LT_INT_IMM, 1, 0, 0, n, 2), // @4 i += 1; if i < n goto @2
        i(RETURN, 0, 0, 0, 0, 0),          // @5 return sum
    ]
}

/// What a safepoint looks at: here only how many strides ran.
struct World {
    strides: u64,
}

impl World {
    #[inline(never)]
    fn safepoint(&mut self) {
        self.strides += 1;
    }
}

/// The `match` loop, shaped as `vm/exec.rs`'s.
fn run_match(code: &[Instr], regs: &mut [u64], world: &mut World) -> u64 {
    let base = code.as_ptr();
    let mut ip = base;
    let regs = regs.as_mut_ptr();
    let mut remaining = STRIDE;
    loop {
        remaining -= 1;
        // SAFETY: the program ends in a return and its targets are inside it.
        let instr = unsafe { *ip };
        ip = unsafe { ip.add(1) };
        // SAFETY: every register operand is below the frame's size.
        unsafe {
            match instr.op {
                LOAD_INT => *regs.add(instr.a as usize) = instr.imm as i64 as u64,
                ADD_INT => {
                    let (x, y) = (
                        *regs.add(instr.b as usize) as i64,
                        *regs.add(instr.c as usize) as i64,
                    );
                    match x.checked_add(y) {
                        Some(v) => *regs.add(instr.a as usize) = v as u64,
                        None => return u64::MAX,
                    }
                }
                REM_INT_IMM => {
                    let x = *regs.add(instr.b as usize) as i64;
                    *regs.add(instr.a as usize) =
                        x.checked_rem(i64::from(instr.imm)).unwrap_unchecked() as u64
                }
                LOOP_LT_INT_IMM => {
                    let v = (*regs.add(instr.a as usize) as i64).wrapping_add(1);
                    *regs.add(instr.a as usize) = v as u64;
                    if v < i64::from(instr.imm) {
                        ip = base.add(instr.target as usize);
                        if remaining <= 0 {
                            world.safepoint();
                            remaining = STRIDE;
                        }
                    }
                }
                RETURN => return *regs.add(instr.a as usize),
                _ => std::hint::unreachable_unchecked(),
            }
        }
    }
}

/// A threaded handler: the hot state in its arguments, the next handler
/// called last.
type Handler = fn(
    ip: *const Instr,
    base: *const Instr,
    regs: *mut u64,
    remaining: i64,
    world: &mut World,
) -> u64;

const HANDLERS: [Handler; 5] = [load_int, add_int, rem_int_imm, loop_lt_int_imm, ret];

/// Calls the handler of the instruction at `ip`: the sibling call every
/// handler ends with.
#[inline(always)]
fn next(
    ip: *const Instr,
    base: *const Instr,
    regs: *mut u64,
    remaining: i64,
    world: &mut World,
) -> u64 {
    // SAFETY: `ip` is at an instruction, whose opcode indexes the table.
    let op = unsafe { (*ip).op } as usize;
    let handler = unsafe { *HANDLERS.get_unchecked(op) };
    handler(ip, base, regs, remaining - 1, world)
}

fn load_int(
    ip: *const Instr,
    base: *const Instr,
    regs: *mut u64,
    remaining: i64,
    world: &mut World,
) -> u64 {
    // SAFETY: as in `run_match`.
    unsafe {
        let i = *ip;
        *regs.add(i.a as usize) = i.imm as i64 as u64;
        next(ip.add(1), base, regs, remaining, world)
    }
}

fn add_int(
    ip: *const Instr,
    base: *const Instr,
    regs: *mut u64,
    remaining: i64,
    world: &mut World,
) -> u64 {
    // SAFETY: as in `run_match`.
    unsafe {
        let i = *ip;
        let (x, y) = (
            *regs.add(i.b as usize) as i64,
            *regs.add(i.c as usize) as i64,
        );
        match x.checked_add(y) {
            Some(v) => *regs.add(i.a as usize) = v as u64,
            None => return u64::MAX,
        }
        next(ip.add(1), base, regs, remaining, world)
    }
}

fn rem_int_imm(
    ip: *const Instr,
    base: *const Instr,
    regs: *mut u64,
    remaining: i64,
    world: &mut World,
) -> u64 {
    // SAFETY: as in `run_match`; the divisor is neither 0 nor -1.
    unsafe {
        let i = *ip;
        let x = *regs.add(i.b as usize) as i64;
        *regs.add(i.a as usize) = x.checked_rem(i64::from(i.imm)).unwrap_unchecked() as u64;
        next(ip.add(1), base, regs, remaining, world)
    }
}

fn loop_lt_int_imm(
    ip: *const Instr,
    base: *const Instr,
    regs: *mut u64,
    remaining: i64,
    world: &mut World,
) -> u64 {
    // SAFETY: as in `run_match`.
    unsafe {
        let i = *ip;
        let v = (*regs.add(i.a as usize) as i64).wrapping_add(1);
        *regs.add(i.a as usize) = v as u64;
        if v < i64::from(i.imm) {
            let target = base.add(i.target as usize);
            if remaining <= 0 {
                // A tail call too: a handler that made an ordinary call
                // would save and restore the machine registers it uses on
                // every run, not only on the rare one that polls.
                return poll(target, base, regs, remaining, world);
            }
            return next(target, base, regs, remaining, world);
        }
        next(ip.add(1), base, regs, remaining, world)
    }
}

/// The safepoint of a taken back edge, then the jump's target.
#[cold]
#[inline(never)]
fn poll(
    ip: *const Instr,
    base: *const Instr,
    regs: *mut u64,
    _remaining: i64,
    world: &mut World,
) -> u64 {
    world.safepoint();
    next(ip, base, regs, STRIDE, world)
}

fn ret(
    ip: *const Instr,
    _base: *const Instr,
    regs: *mut u64,
    _remaining: i64,
    _world: &mut World,
) -> u64 {
    // SAFETY: as in `run_match`.
    unsafe { *regs.add((*ip).a as usize) }
}

fn run_threaded(code: &[Instr], regs: &mut [u64], world: &mut World) -> u64 {
    next(
        code.as_ptr(),
        code.as_ptr(),
        regs.as_mut_ptr(),
        STRIDE,
        world,
    )
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(how), Some(n)) = (args.get(1), args.get(2).and_then(|n| n.parse::<i32>().ok()))
    else {
        eprintln!("usage: threaded_dispatch match|threaded TURNS");
        return ExitCode::from(2);
    };
    let code = program(n);
    let mut regs = [0u64; 3];
    let mut world = World { strides: 0 };
    let sum = match how.as_str() {
        "match" => run_match(&code, &mut regs, &mut world),
        "threaded" => run_threaded(&code, &mut regs, &mut world),
        _ => {
            eprintln!("usage: threaded_dispatch match|threaded TURNS");
            return ExitCode::from(2);
        }
    };
    println!("{sum} ({} safepoints)", world.strides);
    ExitCode::SUCCESS
}
