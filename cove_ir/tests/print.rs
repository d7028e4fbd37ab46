//! Snapshots of printed programs, one for each family of opcodes, and the
//! promise that each parses back to the program it was printed from.

mod common;

use cove_ir::{parse, print};

#[test]
fn each_hand_built_program_prints_as_its_snapshot() {
    for (name, program) in common::all() {
        insta::assert_snapshot!(name, print::program(&program));
    }
}

#[test]
fn each_hand_built_program_parses_back_from_its_printed_form() {
    for (name, program) in common::all() {
        let text = print::program(&program);
        let parsed = parse::program(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        assert_eq!(parsed, program, "{name}");
        assert_eq!(print::program(&parsed), text, "{name}");
    }
}
