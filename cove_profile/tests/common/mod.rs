//! A fixed program and a tiny interpreter of it, so that report tests have a
//! real-looking profile without a virtual machine: every stop the interpreter
//! makes is handed to the profiler exactly as the debugger adapter would.

#![allow(dead_code)]

use std::sync::Arc;

use cove_ir::builtins::Builtin;
use cove_ir::op::{Instr, Reg};
use cove_ir::program::{Function, FunctionId, Module, Program};
use cove_profile::{Profiler, Sample, SteppingClock};

pub const SOURCE: &str = "fn fib(n: Int) -> Int {
  if n < 2 { return n }
  fib(n - 1) + fib(n - 2)
}
export fn main() -> Int {
  let s = \"{fib(3)}\"
  println(s)
  s.length()
}
";

/// `m.fib` is f0 and `m.main` f1, compiled by hand from [`SOURCE`].
pub fn program() -> Program {
    let mut program = Program::new();
    program.modules.push(Module {
        name: "m".to_string(),
        path: "m.cove".to_string(),
        source: SOURCE.to_string(),
    });
    let fib = FunctionId(0);
    let mut f = Function::new("m", "fib");
    f.params = vec![Program::INT];
    f.result = Program::INT;
    f.registers = 6;
    f.refs = vec![false; 6];
    f.code = vec![
        Instr::JumpGeIntImm {
            a: Reg(0),
            value: 2,
            target: 2,
        },
        Instr::Return { src: Reg(0) },
        Instr::AddIntImm {
            dst: Reg(1),
            a: Reg(0),
            value: -1,
        },
        Instr::Call {
            dst: Reg(2),
            func: fib,
            base: Reg(1),
            count: 1,
        },
        Instr::AddIntImm {
            dst: Reg(3),
            a: Reg(0),
            value: -2,
        },
        Instr::Call {
            dst: Reg(4),
            func: fib,
            base: Reg(3),
            count: 1,
        },
        Instr::AddInt {
            dst: Reg(5),
            a: Reg(2),
            b: Reg(4),
        },
        Instr::Return { src: Reg(5) },
    ];
    f.lines = vec![2, 2, 3, 3, 3, 3, 3, 3];
    program.add_function(f);
    let mut m = Function::new("m", "main");
    m.exported = true;
    m.result = Program::INT;
    m.registers = 5;
    m.refs = vec![false, false, true, false, false];
    m.code = vec![
        Instr::LoadInt {
            dst: Reg(0),
            value: 3,
        },
        Instr::Call {
            dst: Reg(1),
            func: fib,
            base: Reg(0),
            count: 1,
        },
        Instr::ToStrInt {
            dst: Reg(2),
            src: Reg(1),
        },
        Instr::CallBuiltin {
            dst: Reg(3),
            builtin: Builtin::Println,
            base: Reg(2),
            count: 1,
        },
        Instr::CallBuiltin {
            dst: Reg(4),
            builtin: Builtin::StrLength,
            base: Reg(2),
            count: 1,
        },
        Instr::Return { src: Reg(4) },
    ];
    m.lines = vec![6, 6, 6, 7, 8, 8];
    program.add_function(m);
    program
}

/// How much dearer than one step the builtin `println` is made, so that a
/// report has one instruction that stands out by time and not by count.
pub const PRINTLN_EXTRA: u64 = 400;

/// Runs `main` of [`program`] under a profiler timed by a clock stepping
/// `step` nanoseconds a read, `println` made [`PRINTLN_EXTRA`] dearer, and
/// returns the profiler and the value `main` returned.
pub fn profiled(step: u64) -> (Profiler, i64) {
    let clock = Arc::new(SteppingClock::new(step));
    let profiler = Profiler::with_clock(Arc::clone(&clock));
    let program = program();
    let result = run(&program, &mut |sample, instr| {
        profiler.record(sample);
        if let Instr::CallBuiltin {
            builtin: Builtin::Println,
            ..
        } = instr
        {
            clock.advance(PRINTLN_EXTRA);
        }
    });
    (profiler, result)
}

/// Interprets the few opcodes [`program`] uses, calling `stop` before every
/// instruction. `to-str.int` allocates one object of three words.
pub fn run(program: &Program, stop: &mut dyn FnMut(&Sample, &Instr)) -> i64 {
    struct Frame {
        function: FunctionId,
        pc: u32,
        regs: Vec<i64>,
        dst: Reg,
    }
    let main = program.find_function("m", "main").expect("main");
    let mut stack = vec![Frame {
        function: main,
        pc: 0,
        regs: vec![0; 5],
        dst: Reg(0),
    }];
    let (mut words, mut allocations) = (0u64, 0u64);
    loop {
        let depth = stack.len();
        let frame = stack.last_mut().expect("a frame");
        let instr = program.function(frame.function).code[frame.pc as usize];
        stop(
            &Sample {
                task: 0,
                function: frame.function,
                pc: frame.pc,
                depth,
                allocated_words: words,
                allocations,
                blocked_nanos: 0,
            },
            &instr,
        );
        frame.pc += 1;
        let r = &mut frame.regs;
        match instr {
            Instr::LoadInt { dst, value } => r[dst.0 as usize] = i64::from(value),
            Instr::AddInt { dst, a, b } => r[dst.0 as usize] = r[a.0 as usize] + r[b.0 as usize],
            Instr::AddIntImm { dst, a, value } => {
                r[dst.0 as usize] = r[a.0 as usize] + i64::from(value)
            }
            Instr::JumpGeIntImm { a, value, target } => {
                if r[a.0 as usize] >= i64::from(value) {
                    frame.pc = target;
                }
            }
            Instr::ToStrInt { dst, src } => {
                words += 3;
                allocations += 1;
                r[dst.0 as usize] = r[src.0 as usize];
            }
            Instr::CallBuiltin { dst, .. } => r[dst.0 as usize] = 1,
            Instr::Call {
                dst,
                func,
                base,
                count,
            } => {
                let registers = program.function(func).registers as usize;
                let mut regs = vec![0; registers];
                regs[..count as usize]
                    .copy_from_slice(&r[base.0 as usize..(base.0 + count) as usize]);
                stack.push(Frame {
                    function: func,
                    pc: 0,
                    regs,
                    dst,
                });
            }
            Instr::Return { src } => {
                let value = r[src.0 as usize];
                let done = stack.pop().expect("a frame");
                match stack.last_mut() {
                    Some(caller) => caller.regs[done.dst.0 as usize] = value,
                    None => return value,
                }
            }
            other => panic!("the test interpreter does not run {other:?}"),
        }
    }
}
