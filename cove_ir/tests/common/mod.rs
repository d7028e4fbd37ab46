//! Programs built by hand with the builders, one for each family of opcodes,
//! shared by the snapshot, round-trip and verifier tests.

#![allow(dead_code)]

use cove_ir::builtins::Builtin;
use cove_ir::op::Instr;
use cove_ir::program::{
    Constant, EnumDef, Field, Function, Local, Module, Program, StructDef, Variant,
};
use cove_ir::types::{EnumId, StructId, Type};

/// A program of one module `m` with this source.
pub fn with_module(source: &str) -> Program {
    let mut p = Program::new();
    p.modules.push(Module {
        name: "m".to_string(),
        path: "m.cove".to_string(),
        source: source.to_string(),
    });
    p
}

/// Integers and control: a loop with a fused compare-and-branch, a call
/// and an immediate add.
pub fn arith() -> Program {
    let mut p = with_module(
        "fn square(x: Int) -> Int { x * x }\n\
         export fn main() -> Int {\n\
         \x20 var total = 0\n\
         \x20 for i in 0..10 { total = total + square(i) }\n\
         \x20 total\n\
         }\n",
    );
    let mut square = Function::new("m", "square");
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
    let square = p.add_function(square);

    let mut main = Function::new("m", "main");
    main.exported = true;
    main.result = Program::INT;
    let total = main.add_register(false);
    let i = main.add_register(false);
    let arg = main.add_register(false);
    let big = p.intern_constant(Constant::Int(9_000_000_000));
    main.emit(
        Instr::LoadInt {
            dst: total,
            value: 0,
        },
        3,
    );
    main.emit(Instr::LoadInt { dst: i, value: 0 }, 4);
    main.emit(
        Instr::JumpGeIntImm {
            a: i,
            value: 10,
            target: 8,
        },
        4,
    );
    main.emit(Instr::Move { dst: arg, src: i }, 4);
    main.emit(
        Instr::Call {
            dst: arg,
            func: square,
            base: arg,
            count: 1,
        },
        4,
    );
    main.emit(
        Instr::AddInt {
            dst: total,
            a: total,
            b: arg,
        },
        4,
    );
    main.emit(
        Instr::AddIntImm {
            dst: i,
            a: i,
            value: 1,
        },
        4,
    );
    main.emit(Instr::Jump { target: 2 }, 4);
    main.emit(
        Instr::LoadConst {
            dst: arg,
            constant: big,
        },
        5,
    );
    main.emit(
        Instr::JumpLtInt {
            a: total,
            b: arg,
            target: 11,
        },
        5,
    );
    main.emit(
        Instr::NegInt {
            dst: total,
            a: total,
        },
        5,
    );
    main.emit(Instr::Return { src: total }, 5);
    main.locals.push(Local {
        name: "total".to_string(),
        ty: Program::INT,
        register: total,
        live: 1..12,
    });
    main.locals.push(Local {
        name: "i".to_string(),
        ty: Program::INT,
        register: i,
        live: 2..9,
    });
    p.add_function(main);
    p
}

/// Floats, strings and builtin calls: text built from numbers and printed.
pub fn text() -> Program {
    let mut p = with_module(
        "export fn main() {\n\
         \x20 let r = 2.5 * 2.0\n\
         \x20 println(\"r={r}\")\n\
         }\n",
    );
    let mut main = Function::new("m", "main");
    main.exported = true;
    let a = main.add_register(false);
    let b = main.add_register(false);
    let s = main.add_register(true);
    let t = main.add_register(true);
    let unit = main.add_register(false);
    let k_a = p.intern_constant(Constant::Float(2.5));
    let k_b = p.intern_constant(Constant::Float(2.0));
    let k_s = p.intern_constant(Constant::Str("r=\"\n".to_string()));
    main.emit(
        Instr::LoadConst {
            dst: a,
            constant: k_a,
        },
        2,
    );
    main.emit(
        Instr::LoadConst {
            dst: b,
            constant: k_b,
        },
        2,
    );
    main.emit(Instr::MulFloat { dst: a, a, b }, 2);
    main.emit(Instr::LtFloat { dst: b, a, b }, 2);
    main.emit(Instr::NotBool { dst: b, a: b }, 2);
    main.emit(
        Instr::LoadConst {
            dst: s,
            constant: k_s,
        },
        3,
    );
    main.emit(Instr::ToStrFloat { dst: t, src: a }, 3);
    main.emit(Instr::ConcatStr { dst: s, a: s, b: t }, 3);
    main.emit(Instr::EqStr { dst: b, a: s, b: t }, 3);
    main.emit(
        Instr::JumpIfNot {
            cond: b,
            target: 11,
        },
        3,
    );
    main.emit(
        Instr::ToStr {
            dst: t,
            src: b,
            ty: Program::BOOL,
        },
        3,
    );
    main.emit(
        Instr::CallBuiltin {
            dst: unit,
            builtin: Builtin::Println,
            base: s,
            count: 1,
        },
        3,
    );
    main.emit(Instr::ReturnUnit {}, 4);
    main.locals.push(Local {
        name: "r".to_string(),
        ty: Program::FLOAT,
        register: a,
        live: 3..13,
    });
    p.add_function(main);
    p
}

/// Structs, enums, options, lists and maps.
pub fn data() -> Program {
    let mut p = with_module(
        "struct Point { x: Int, y: Int }\n\
         enum Shape { Dot(Point), Empty }\n\
         export fn main() -> Int {\n\
         \x20 let s = Shape.Dot(Point { x: 1, y: 2 })\n\
         \x20 let xs = [s]\n\
         \x20 let m = Map[String, Int]()\n\
         \x20 match xs[0] { Shape.Dot(p) => Some(p.x).unwrap(), _ => 0 }\n\
         }\n",
    );
    p.structs.push(StructDef {
        name: "Point".to_string(),
        module: "m".to_string(),
        exported: false,
        fields: vec![
            Field {
                name: "x".to_string(),
                ty: Program::INT,
            },
            Field {
                name: "y".to_string(),
                ty: Program::INT,
            },
        ],
    });
    let point = p.intern_type(Type::Struct(StructId(0)));
    p.enums.push(EnumDef {
        name: "Shape".to_string(),
        module: "m".to_string(),
        exported: false,
        variants: vec![
            Variant {
                name: "Dot".to_string(),
                fields: vec![point],
            },
            Variant {
                name: "Empty".to_string(),
                fields: vec![],
            },
        ],
    });
    let shape = p.intern_type(Type::Enum(EnumId(0)));
    let shapes = p.intern_type(Type::List(shape));
    let map = p.intern_type(Type::Map(Program::STR, Program::INT));
    let opt = p.intern_type(Type::Option(Program::INT));
    let _ = (shapes, map, opt);

    let mut main = Function::new("m", "main");
    main.exported = true;
    main.result = Program::INT;
    let x = main.add_register(false);
    let y = main.add_register(false);
    let pt = main.add_register(true);
    let s = main.add_register(true);
    let xs = main.add_register(true);
    let m = main.add_register(true);
    let o = main.add_register(true);
    let n = main.add_register(false);
    main.emit(Instr::LoadInt { dst: x, value: 1 }, 4);
    main.emit(Instr::LoadInt { dst: y, value: 2 }, 4);
    main.emit(
        Instr::NewStruct {
            dst: pt,
            ty: StructId(0),
            base: x,
            count: 2,
        },
        4,
    );
    main.emit(
        Instr::SetField {
            obj: pt,
            ty: StructId(0),
            field: 1,
            src: y,
        },
        4,
    );
    main.emit(
        Instr::NewVariant {
            dst: s,
            ty: EnumId(0),
            variant: 0,
            base: pt,
            count: 1,
        },
        4,
    );
    main.emit(
        Instr::NewList {
            dst: xs,
            ty: shape,
            base: s,
            count: 1,
        },
        5,
    );
    main.emit(Instr::LenList { dst: n, list: xs }, 5);
    main.emit(
        Instr::NewMap {
            dst: m,
            key: Program::STR,
            value: Program::INT,
        },
        6,
    );
    main.emit(Instr::LoadInt { dst: n, value: 0 }, 7);
    main.emit(
        Instr::GetList {
            dst: s,
            list: xs,
            index: n,
            ty: shape,
        },
        7,
    );
    main.emit(
        Instr::SetList {
            list: xs,
            index: n,
            src: s,
            ty: shape,
        },
        7,
    );
    main.emit(Instr::Tag { dst: n, obj: s }, 7);
    main.emit(
        Instr::JumpNeIntImm {
            a: n,
            value: 0,
            target: 20,
        },
        7,
    );
    main.emit(
        Instr::GetPayload {
            dst: pt,
            obj: s,
            ty: EnumId(0),
            variant: 0,
            field: 0,
        },
        7,
    );
    main.emit(
        Instr::GetField {
            dst: x,
            obj: pt,
            ty: StructId(0),
            field: 0,
        },
        7,
    );
    main.emit(
        Instr::NewSome {
            dst: o,
            src: x,
            ty: Program::INT,
        },
        7,
    );
    main.emit(Instr::JumpNone { opt: o, target: 20 }, 7);
    main.emit(Instr::JumpSome { opt: o, target: 18 }, 7);
    main.emit(
        Instr::Unwrap {
            dst: x,
            opt: o,
            ty: Program::INT,
        },
        7,
    );
    main.emit(Instr::Return { src: x }, 7);
    main.emit(Instr::LoadNone { dst: o }, 7);
    main.emit(Instr::LoadInt { dst: x, value: 0 }, 7);
    main.emit(Instr::Return { src: x }, 7);
    p.add_function(main);
    p
}

/// Tasks and channels: a worker spawned, joined, and a channel sent on.
pub fn tasks() -> Program {
    let mut p = with_module(
        "fn work(n: Int) -> Int { n + 1 }\n\
         export fn main() -> Int {\n\
         \x20 let ch = Channel[Int]()\n\
         \x20 let t = spawn work(41)\n\
         \x20 ch.send(1)\n\
         \x20 t.join()\n\
         }",
    );
    let task = p.intern_type(Type::Task(Program::INT));
    let channel = p.intern_type(Type::Channel(Program::INT));
    let _ = task;
    let mut work = Function::new("m", "work");
    work.params = vec![Program::INT];
    work.result = Program::INT;
    let n = work.add_register(false);
    work.emit(
        Instr::AddIntImm {
            dst: n,
            a: n,
            value: 1,
        },
        1,
    );
    work.emit(Instr::Return { src: n }, 1);
    let work = p.add_function(work);

    let mut main = Function::new("m", "main");
    main.exported = true;
    main.result = Program::INT;
    let ch = main.add_register(true);
    let arg = main.add_register(false);
    let t = main.add_register(true);
    let unit = main.add_register(false);
    main.emit(
        Instr::NewChannel {
            dst: ch,
            ty: Program::INT,
        },
        3,
    );
    main.emit(
        Instr::LoadInt {
            dst: arg,
            value: 41,
        },
        4,
    );
    main.emit(
        Instr::Spawn {
            dst: t,
            func: work,
            base: arg,
            count: 1,
        },
        4,
    );
    main.emit(Instr::LoadInt { dst: arg, value: 1 }, 5);
    main.emit(
        Instr::Move {
            dst: unit,
            src: arg,
        },
        5,
    );
    main.emit(
        Instr::CallBuiltin {
            dst: unit,
            builtin: Builtin::ChannelSend,
            base: ch,
            count: 2,
        },
        5,
    );
    main.emit(
        Instr::CallBuiltin {
            dst: arg,
            builtin: Builtin::TaskJoin,
            base: t,
            count: 1,
        },
        6,
    );
    main.emit(Instr::Return { src: arg }, 6);
    let _ = channel;
    p.add_function(main);
    p
}

/// Every hand-built program, named.
pub fn all() -> Vec<(&'static str, Program)> {
    vec![
        ("arith", arith()),
        ("text", text()),
        ("data", data()),
        ("tasks", tasks()),
    ]
}
