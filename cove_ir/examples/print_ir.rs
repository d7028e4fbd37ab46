//! Prints the IR of a small Cove program, built by hand as the compiler
//! would build it: `cargo run -p cove_ir --example print_ir`.
//!
//! The program sums the squares of 0 to 9:
//!
//! ```text
//! fn square(x: Int) -> Int { x * x }
//! export fn main() -> Int { ... }
//! ```

use cove_ir::op::Instr;
use cove_ir::program::{Function, Local, Module, Program};
use cove_ir::{print, verify};

const SOURCE: &str = "\
fn square(x: Int) -> Int { x * x }

export fn main() -> Int {
  var total = 0
  for i in 0..10 {
    total = total + square(i)
  }
  total
}
";

fn main() {
    let mut program = Program::new();
    program.modules.push(Module {
        name: "squares".to_string(),
        path: "squares.cove".to_string(),
        source: SOURCE.to_string(),
    });

    let mut square = Function::new("squares", "square");
    square.params = vec![Program::INT];
    square.result = Program::INT;
    let x = square.add_register(false);
    let y = square.add_register(false);
    square.emit(Instr::MulInt { dst: y, a: x, b: x }, 1);
    square.emit(Instr::Return { src: y }, 1);
    square.locals.push(Local {
        name: "x".to_string(),
        ty: Program::INT,
        register: x,
        live: 0..2,
    });
    let square = program.add_function(square);

    let mut main = Function::new("squares", "main");
    main.exported = true;
    main.result = Program::INT;
    let total = main.add_register(false);
    let i = main.add_register(false);
    let arg = main.add_register(false);
    main.emit(
        Instr::LoadInt {
            dst: total,
            value: 0,
        },
        4,
    );
    main.emit(Instr::LoadInt { dst: i, value: 0 }, 5);
    main.emit(
        Instr::JumpGeIntImm {
            a: i,
            value: 10,
            target: 8,
        },
        5,
    );
    main.emit(Instr::Move { dst: arg, src: i }, 6);
    main.emit(
        Instr::Call {
            dst: arg,
            func: square,
            base: arg,
            count: 1,
        },
        6,
    );
    main.emit(
        Instr::AddInt {
            dst: total,
            a: total,
            b: arg,
        },
        6,
    );
    main.emit(
        Instr::AddIntImm {
            dst: i,
            a: i,
            value: 1,
        },
        5,
    );
    main.emit(Instr::Jump { target: 2 }, 5);
    main.emit(Instr::Return { src: total }, 8);
    main.locals.push(Local {
        name: "total".to_string(),
        ty: Program::INT,
        register: total,
        live: 1..9,
    });
    main.locals.push(Local {
        name: "i".to_string(),
        ty: Program::INT,
        register: i,
        live: 2..8,
    });
    program.add_function(main);

    if let Err(e) = verify::program(&program) {
        eprintln!("the example program does not verify: {e}");
        std::process::exit(1);
    }
    print!("{}", print::program(&program));
}
