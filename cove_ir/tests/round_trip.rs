//! The printed form is a faithful encoding: for random programs, printing,
//! parsing and printing again gives the same text, and the parsed program
//! equals the one printed. The programs are random in shape, not meaning —
//! registers past the count, dangling indices, odd names and sources — since
//! the printer and parser must carry malformed programs too, for the
//! verifier to reject. The same programs show that the verifier and the
//! parser report bad input rather than panic on it.

use cove_ir::builtins::Builtin;
use cove_ir::op::{Instr, Opcode, Operand, OperandKind, Reg};
use cove_ir::program::{
    ConstId, Constant, EnumDef, Field, Function, FunctionId, Local, Module, Program, StructDef,
    Variant,
};
use cove_ir::types::{EnumId, StructId, Type, TypeId};
use cove_ir::{parse, print};
use proptest::prelude::*;

/// A name: usually an identifier, sometimes any text at all.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z_][a-z0-9_]{0,6}",
        1 => any::<String>(),
    ]
}

fn type_id() -> impl Strategy<Value = TypeId> {
    prop_oneof![4 => (0u32..12).prop_map(TypeId), 1 => any::<u32>().prop_map(TypeId)]
}

fn constant() -> impl Strategy<Value = Constant> {
    prop_oneof![
        any::<i64>().prop_map(Constant::Int),
        any::<f64>()
            .prop_filter("NaN is not equal to itself", |v| !v.is_nan())
            .prop_map(Constant::Float),
        any::<String>().prop_map(Constant::Str),
    ]
}

fn ty() -> impl Strategy<Value = Type> {
    prop_oneof![
        Just(Type::Int),
        Just(Type::Str),
        type_id().prop_map(Type::List),
        (type_id(), type_id()).prop_map(|(k, v)| Type::Map(k, v)),
        type_id().prop_map(Type::Option),
        type_id().prop_map(Type::Task),
        type_id().prop_map(Type::Channel),
        any::<u16>().prop_map(|s| Type::Struct(StructId(s % 4))),
        any::<u16>().prop_map(|e| Type::Enum(EnumId(e))),
    ]
}

fn module() -> impl Strategy<Value = Module> {
    (
        name(),
        any::<String>(),
        prop_oneof![
            "[a-z =(){}\n]{0,60}",
            any::<String>(),
            Just(String::new()),
            Just("\n".to_string())
        ],
    )
        .prop_map(|(name, path, source)| Module { name, path, source })
}

/// One operand of `kind`, any value of its type.
fn operand(kind: OperandKind, functions: u32) -> BoxedStrategy<Operand> {
    match kind {
        OperandKind::Count => any::<u16>().prop_map(Operand::Count).boxed(),
        OperandKind::Imm => any::<i32>().prop_map(Operand::Imm).boxed(),
        OperandKind::Const => any::<u32>()
            .prop_map(|k| Operand::Const(ConstId(k)))
            .boxed(),
        OperandKind::Target => any::<u32>().prop_map(Operand::Target).boxed(),
        OperandKind::Func => prop_oneof![
            (0..functions + 1).prop_map(|f| Operand::Func(FunctionId(f))),
            any::<u32>().prop_map(|f| Operand::Func(FunctionId(f))),
        ]
        .boxed(),
        OperandKind::Builtin => prop::sample::select(Builtin::ALL)
            .prop_map(Operand::Builtin)
            .boxed(),
        OperandKind::Type => any::<u32>().prop_map(|t| Operand::Type(TypeId(t))).boxed(),
        OperandKind::Struct => any::<u16>()
            .prop_map(|s| Operand::Struct(StructId(s)))
            .boxed(),
        OperandKind::Enum => any::<u16>().prop_map(|e| Operand::Enum(EnumId(e))).boxed(),
        OperandKind::Index => any::<u16>().prop_map(Operand::Index).boxed(),
        OperandKind::Offset => any::<i8>().prop_map(Operand::Offset).boxed(),
        OperandKind::Divisor => any::<i16>().prop_map(Operand::Divisor).boxed(),
        _ => any::<u16>().prop_map(|r| Operand::Reg(Reg(r))).boxed(),
    }
}

/// Any instruction: a random opcode with random operands of its kinds.
fn instr(functions: u32) -> impl Strategy<Value = Instr> {
    prop::sample::select(Opcode::ALL).prop_flat_map(move |opcode| {
        let operands: Vec<BoxedStrategy<Operand>> = opcode
            .operand_kinds()
            .iter()
            .map(|k| operand(*k, functions))
            .collect();
        operands.prop_map(move |ops| {
            Instr::from_operands(opcode, &ops).expect("operands of the opcode's kinds")
        })
    })
}

fn function(functions: u32) -> impl Strategy<Value = Function> {
    (
        (
            name(),
            name(),
            any::<bool>(),
            prop::option::weighted(0.1, name()),
        ),
        (prop::collection::vec(type_id(), 0..4), type_id(), 0u16..12),
        prop::collection::vec((instr(functions), 0u32..8), 0..24),
        prop::collection::vec((name(), type_id(), 0u16..12, 0u32..30, 0u32..30), 0..3),
        (any::<u64>(), 0u8..10),
    )
        .prop_map(
            move |(
                (fname, module, exported, qualified),
                (params, result, registers),
                code,
                locals,
                (bits, odd),
            )| {
                let mut f = Function::new(&module, &fname);
                if let Some(q) = qualified {
                    f.qualified = q;
                }
                f.exported = exported;
                f.params = params;
                f.result = result;
                f.registers = registers;
                f.refs = (0..registers).map(|r| bits >> (r % 64) & 1 == 1).collect();
                // Now and then a ref map or line table of the wrong length,
                // which must print and parse faithfully too.
                if odd == 0 {
                    f.refs.push(true);
                }
                for (i, line) in code {
                    f.emit(i, line);
                }
                if odd == 1 {
                    f.lines.push(3);
                }
                f.locals = locals
                    .into_iter()
                    .map(|(name, ty, r, start, end)| Local {
                        name,
                        ty,
                        register: Reg(r),
                        live: start..end,
                    })
                    .collect();
                f
            },
        )
}

fn program() -> impl Strategy<Value = Program> {
    (
        prop::collection::vec(module(), 0..3),
        prop::collection::vec(constant(), 0..5),
        prop::collection::vec(ty(), 0..6),
        prop::collection::vec(
            (
                name(),
                name(),
                any::<bool>(),
                prop::collection::vec((name(), type_id()), 0..3),
            ),
            0..3,
        ),
        prop::collection::vec(
            (
                name(),
                name(),
                any::<bool>(),
                prop::collection::vec((name(), prop::collection::vec(type_id(), 0..3)), 0..3),
            ),
            0..3,
        ),
        prop::collection::vec(function(4), 0..4),
    )
        .prop_map(|(modules, constants, types, structs, enums, functions)| {
            let mut p = Program::new();
            p.modules = modules;
            p.constants = constants;
            p.types.extend(types);
            p.structs = structs
                .into_iter()
                .map(|(name, module, exported, fields)| StructDef {
                    name,
                    module,
                    exported,
                    fields: fields
                        .into_iter()
                        .map(|(name, ty)| Field { name, ty })
                        .collect(),
                })
                .collect();
            p.enums = enums
                .into_iter()
                .map(|(name, module, exported, variants)| EnumDef {
                    name,
                    module,
                    exported,
                    variants: variants
                        .into_iter()
                        .map(|(name, fields)| Variant { name, fields })
                        .collect(),
                })
                .collect();
            p.functions = functions;
            p
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn printing_a_parsed_program_gives_back_the_text_and_the_program(p in program()) {
        let text = print::program(&p);
        let parsed = parse::program(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(print::program(&parsed), text);
        prop_assert_eq!(parsed, p);
    }

    #[test]
    fn verifying_any_program_reports_rather_than_panics(p in program()) {
        let errors = cove_ir::verify::errors(&p);
        prop_assert_eq!(cove_ir::verify::program(&p).is_ok(), errors.is_empty());
    }

    #[test]
    fn parsing_a_damaged_printed_program_reports_rather_than_panics(
        p in program(),
        cut in any::<prop::sample::Index>(),
        junk in any::<String>(),
    ) {
        let mut text = print::program(&p);
        let mut at = cut.index(text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.insert_str(at, &junk);
        let _ = parse::program(&text);
    }

    #[test]
    fn every_instruction_parses_back_from_its_printed_form(i in instr(2)) {
        let mut p = Program::new();
        p.add_function(Function::new("m", "a"));
        p.add_function(Function::new("m", "b"));
        let text = print::instruction(&p, &i);
        prop_assert_eq!(parse::instr(&p, &text), Ok(i), "{}", text);
    }
}

#[test]
fn a_nan_constant_keeps_its_bits_through_the_printed_form() {
    let mut p = Program::new();
    let bits = 0x7ff8_0000_dead_beef_u64;
    p.constants.push(Constant::Float(f64::from_bits(bits)));
    let text = print::program(&p);
    let parsed = parse::program(&text).unwrap();
    match parsed.constants[0] {
        Constant::Float(v) => assert_eq!(v.to_bits(), bits),
        ref other => panic!("{other:?}"),
    }
    assert_eq!(print::program(&parsed), text);
}
