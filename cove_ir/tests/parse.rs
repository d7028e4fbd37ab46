//! The parser of the printed form on text written by hand: what it fills in,
//! and where it says the text is wrong.

mod common;

use cove_ir::op::{Instr, Reg};
use cove_ir::program::{FunctionId, Program};
use cove_ir::{parse, print};

#[test]
fn a_program_written_by_hand_needs_neither_the_basic_types_nor_line_directives() {
    let p = parse::program(
        "fn f0 main in m export\n  result t2\n  registers 1\n  refs\n  @0 load.int r0, 42\n  @1 return r0\n",
    )
    .unwrap();
    assert_eq!(p.types, Program::new().types);
    assert_eq!(p.functions[0].lines, vec![0, 0]);
    assert_eq!(p.functions[0].qualified, "m.main");
    assert!(p.functions[0].exported);
    assert_eq!(cove_ir::verify::errors(&p), vec![]);
}

#[test]
fn a_call_may_name_a_function_defined_further_down() {
    let p = parse::program(
        "fn f0 main in m\n  registers 1\n  @0 call r0, m.later, r0, 0\n  @1 return r0\n\
         fn f1 later in m\n  registers 1\n  @0 return r0\n",
    )
    .unwrap();
    assert_eq!(
        p.functions[0].code[0],
        Instr::Call {
            dst: Reg(0),
            func: FunctionId(1),
            base: Reg(0),
            count: 0
        }
    );
}

/// The error parsing `text` gives, as `line:column: message`.
fn error(text: &str) -> String {
    parse::program(text).unwrap_err().to_string()
}

#[test]
fn an_unknown_mnemonic_is_reported_at_its_line_and_column() {
    let e = error("fn f0 main in m\n  registers 1\n  @0  frobnicate r0\n");
    assert_eq!(e, "3:7: `frobnicate` is not an opcode");
}

#[test]
fn an_operand_of_the_wrong_kind_is_reported_at_the_operand() {
    let e = error("fn f0 main in m\n  @0 add.int r0, k1, r2\n");
    assert_eq!(
        e,
        "2:18: operand 2 of `add.int` is a register, `r3`, not `k1`"
    );
}

#[test]
fn a_missing_operand_is_reported_at_the_end_of_the_line() {
    let e = error("fn f0 main in m\n  @0 add.int r0, r1\n");
    assert_eq!(e, "2:20: expected `,`, found the end of the line");
}

#[test]
fn instructions_out_of_order_are_reported() {
    let e = error("fn f0 main in m\n  @1 return.unit\n");
    assert_eq!(e, "2:3: expected the next pc, `@0`, not `@1`");
}

#[test]
fn a_function_named_by_a_name_no_function_has_is_reported() {
    let e = error("fn f0 main in m\n  registers 1\n  @0 call r0, m.nowhere, r0, 0\n");
    assert_eq!(e, "3:15: no function is named `m.nowhere`");
}

#[test]
fn an_unclosed_string_is_reported_where_it_opens() {
    let e = error("const k0 str \"abc\n");
    assert_eq!(e, "1:14: this string is not closed");
}

#[test]
fn tables_numbered_out_of_order_are_reported() {
    assert_eq!(
        error("const k1 int 3\n"),
        "1:7: expected constant `k0` next, not `k1`"
    );
}

#[test]
fn a_source_line_outside_a_module_is_reported() {
    assert_eq!(
        error("fn f0 main in m\n| text\n"),
        "2:1: a source line (`|`) belongs under a `module` line"
    );
}

#[test]
fn one_instruction_parses_against_a_program_and_prints_back() {
    let p = common::arith();
    let i = parse::instr(&p, "call r2, m.square, r2, 1").unwrap();
    assert_eq!(
        i,
        Instr::Call {
            dst: Reg(2),
            func: FunctionId(0),
            base: Reg(2),
            count: 1
        }
    );
    assert_eq!(print::instruction(&p, &i), "call r2, m.square, r2, 1");
    assert_eq!(parse::instr(&p, "call r2, f0, r2, 1"), Ok(i));
}

#[test]
fn a_function_whose_name_is_shared_prints_by_number() {
    let mut p = common::arith();
    let mut twin = p.functions[0].clone();
    twin.name = "square".to_string();
    p.add_function(twin);
    let i = Instr::Call {
        dst: Reg(2),
        func: FunctionId(0),
        base: Reg(2),
        count: 1,
    };
    assert_eq!(print::instruction(&p, &i), "call r2, f0, r2, 1");
    assert!(parse::instr(&p, "call r2, m.square, r2, 1").is_err());
}

#[test]
fn a_function_listing_shows_its_header_and_source_lines() {
    let p = common::arith();
    insta::assert_snapshot!(print::function(&p, FunctionId(0)));
}
