//! One test per verifier rule, each named as the sentence it proves. The
//! programs are written in the printed form: a shared prelude (constants,
//! types, a struct, an enum and a callee) and a function `f1` that breaks
//! one rule.

mod common;

use cove_ir::program::FunctionId;
use cove_ir::verify::{self, VerifyError};
use cove_ir::{parse, print};

const PRELUDE: &str = "\
const k0 int 7
const k1 str \"s\"
type t0 Unit
type t1 Bool
type t2 Int
type t3 Float
type t4 String
type t5 List t2
type t6 Option t2
type t7 Struct s0
type t8 Enum e0
struct s0 P in m
  field x t2
  field name t4
enum e0 E in m
  variant A t2
  variant B
fn f0 callee in m
  params t2 t4
  result t4
  registers 2
  refs r1
  @0 return r1
";

/// The faults of the prelude followed by `rest`.
fn faults(rest: &str) -> Vec<VerifyError> {
    let text = format!("{PRELUDE}{rest}");
    let program = parse::program(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    verify::errors(&program)
}

/// Asserts `main` (the body of `f1`, after its header) has exactly one
/// fault, at `pc` if given, whose message contains `says`.
fn rejects(header: &str, code: &str, pc: Option<u32>, says: &str) {
    let errors = faults(&format!("fn f1 main in m\n{header}{code}"));
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let e = &errors[0];
    assert!(e.message.contains(says), "{e}");
    assert_eq!(e.pc, pc, "{e}");
    if e.pc.is_some() {
        assert_eq!(e.function, Some(FunctionId(1)), "{e}");
    }
}

/// A header with 4 registers: r0, r1 num; r2, r3 ref; result Int.
const H: &str = "  result t2\n  registers 4\n  refs r2 r3\n";

#[test]
fn the_prelude_and_a_plain_function_verify() {
    assert_eq!(
        faults(&format!(
            "fn f1 main in m\n{H}  @0 load.int r0, 1\n  @1 return r0\n"
        )),
        vec![]
    );
}

#[test]
fn every_hand_built_program_verifies() {
    for (name, program) in common::all() {
        assert_eq!(verify::errors(&program), vec![], "{name}");
    }
}

#[test]
fn a_register_past_the_function_count_is_rejected() {
    rejects(
        H,
        "  @0 add.int r0, r4, r1\n  @1 return r0\n",
        Some(0),
        "register r4 is out of range",
    );
}

#[test]
fn a_run_of_registers_reaching_past_the_count_is_rejected() {
    rejects(
        H,
        "  @0 new.list r2, t4, r3, 2\n  @1 return r0\n",
        Some(0),
        "reaches past the 4 registers",
    );
}

#[test]
fn a_jump_outside_the_function_is_rejected() {
    rejects(
        H,
        "  @0 jump @2\n  @1 return r0\n",
        Some(0),
        "outside the function",
    );
}

#[test]
fn a_call_with_the_wrong_number_of_arguments_is_rejected() {
    rejects(
        H,
        "  @0 call r2, m.callee, r1, 1\n  @1 return r0\n",
        Some(0),
        "takes 2 arguments, not 1",
    );
}

#[test]
fn a_call_argument_of_the_wrong_class_is_rejected() {
    rejects(
        H,
        "  @0 call r2, m.callee, r0, 2\n  @1 return r0\n",
        Some(0),
        "parameter of m.callee 1",
    );
}

#[test]
fn a_call_result_register_of_the_wrong_class_is_rejected() {
    rejects(
        H,
        "  @0 call r0, m.callee, r1, 2\n  @1 return r0\n",
        Some(0),
        "the result of m.callee",
    );
}

#[test]
fn a_spawn_with_the_wrong_number_of_arguments_is_rejected() {
    rejects(
        H,
        "  @0 spawn r2, f0, r1, 3\n  @1 return r0\n",
        Some(0),
        "takes 2 arguments, not 3",
    );
}

#[test]
fn a_builtin_call_with_the_wrong_arity_is_rejected() {
    rejects(
        H,
        "  @0 call-builtin r0, String.length, r2, 2\n  @1 return r0\n",
        Some(0),
        "takes 1 arguments, not 2",
    );
}

#[test]
fn a_builtin_argument_of_the_wrong_class_is_rejected() {
    rejects(
        H,
        "  @0 call-builtin r0, println, r1, 1\n  @1 return r0\n",
        Some(0),
        "argument of println 0",
    );
}

#[test]
fn a_builtin_result_register_of_the_wrong_class_is_rejected() {
    rejects(
        H,
        "  @0 call-builtin r2, String.length, r3, 1\n  @1 return r0\n",
        Some(0),
        "the result of String.length",
    );
}

#[test]
fn a_reference_register_used_as_a_number_is_rejected() {
    rejects(
        H,
        "  @0 add.int r0, r0, r2\n  @1 return r0\n",
        Some(0),
        "r2 is used as a number but is a ref register",
    );
}

#[test]
fn a_number_register_used_as_a_reference_is_rejected() {
    rejects(
        H,
        "  @0 concat.str r2, r2, r1\n  @1 return r0\n",
        Some(0),
        "r1 is used as a reference but is a num register",
    );
}

#[test]
fn a_move_between_classes_is_rejected() {
    rejects(
        H,
        "  @0 move r0, r2\n  @1 return r0\n",
        Some(0),
        "the source r2",
    );
}

#[test]
fn a_string_constant_loaded_into_a_number_register_is_rejected() {
    rejects(
        H,
        "  @0 load.const r0, k1\n  @1 return r0\n",
        Some(0),
        "constant k1",
    );
}

#[test]
fn a_field_read_into_a_register_of_the_wrong_class_is_rejected() {
    rejects(
        H,
        "  @0 get.field r0, r2, s0, #1\n  @1 return r0\n",
        Some(0),
        "field `name` of P",
    );
}

#[test]
fn a_field_written_from_a_register_of_the_wrong_class_is_rejected() {
    rejects(
        H,
        "  @0 set.field r2, s0, #0, r3\n  @1 return r0\n",
        Some(0),
        "field `x` of P",
    );
}

#[test]
fn a_payload_read_into_a_register_of_the_wrong_class_is_rejected() {
    rejects(
        H,
        "  @0 get.payload r2, r3, e0, #0, #0\n  @1 return r0\n",
        Some(0),
        "payload field #0",
    );
}

#[test]
fn an_unwrap_into_a_register_of_the_wrong_class_is_rejected() {
    rejects(
        H,
        "  @0 unwrap r2, r3, t2\n  @1 return r0\n",
        Some(0),
        "a value of type t2",
    );
}

#[test]
fn a_list_read_into_a_register_of_the_wrong_class_is_rejected() {
    rejects(
        H,
        "  @0 get.list r0, r2, r1, t4\n  @1 return r0\n",
        Some(0),
        "a value of type t4",
    );
}

#[test]
fn a_some_of_a_register_of_the_wrong_class_is_rejected() {
    rejects(
        H,
        "  @0 some r2, r3, t2\n  @1 return r0\n",
        Some(0),
        "a value of type t2",
    );
}

#[test]
fn a_list_element_of_the_wrong_class_is_rejected() {
    rejects(
        H,
        "  @0 new.list r2, t4, r0, 1\n  @1 return r0\n",
        Some(0),
        "element 0",
    );
}

#[test]
fn a_struct_built_from_registers_of_the_wrong_classes_is_rejected() {
    rejects(
        H,
        "  @0 new.struct r2, s0, r0, 2\n  @1 return r0\n",
        Some(0),
        "field of P 1",
    );
}

#[test]
fn a_struct_built_from_the_wrong_number_of_fields_is_rejected() {
    rejects(
        H,
        "  @0 new.struct r2, s0, r0, 1\n  @1 return r0\n",
        Some(0),
        "has 2 fields, not 1",
    );
}

#[test]
fn a_variant_built_from_the_wrong_number_of_payload_fields_is_rejected() {
    rejects(
        H,
        "  @0 new.variant r2, e0, #1, r0, 1\n  @1 return r0\n",
        Some(0),
        "payload has 0 fields, not 1",
    );
}

#[test]
fn a_return_of_the_wrong_class_is_rejected() {
    rejects(H, "  @0 return r2\n", Some(0), "the function's result");
}

#[test]
fn a_unit_return_from_a_function_whose_result_is_a_reference_is_rejected() {
    rejects(
        "  result t4\n",
        "  @0 return.unit\n",
        Some(0),
        "is a reference",
    );
}

#[test]
fn a_sum_returned_at_once_from_a_function_of_numbers_verifies() {
    for ret in ["return.add.int r0, r1", "return.add.int.imm r0, -1"] {
        assert_eq!(
            faults(&format!(
                "fn f1 main in m\n{H}  @0 load.int r0, 1\n  @1 load.int r1, 2\n  @2 {ret}\n"
            )),
            vec![],
            "{ret}"
        );
    }
}

#[test]
fn a_sum_returned_from_a_function_whose_result_is_a_reference_is_rejected() {
    rejects(
        "  result t4\n  registers 2\n",
        "  @0 load.int r0, 1\n  @1 return.add.int.imm r0, 1\n",
        Some(1),
        "is a reference",
    );
}

#[test]
fn a_sum_returned_of_a_reference_register_is_rejected() {
    rejects(
        H,
        "  @0 load.int r0, 1\n  @1 return.add.int r0, r2\n",
        Some(1),
        "r2",
    );
}

#[test]
fn a_constant_that_does_not_exist_is_rejected() {
    rejects(
        H,
        "  @0 load.const r0, k2\n  @1 return r0\n",
        Some(0),
        "constant k2 does not exist",
    );
}

#[test]
fn a_function_that_does_not_exist_is_rejected() {
    rejects(
        H,
        "  @0 call r0, f9, r0, 0\n  @1 return r0\n",
        Some(0),
        "function f9 does not exist",
    );
}

#[test]
fn a_type_that_does_not_exist_is_rejected() {
    rejects(
        H,
        "  @0 new.channel r2, t9\n  @1 return r0\n",
        Some(0),
        "type t9 does not exist",
    );
}

#[test]
fn a_struct_that_does_not_exist_is_rejected() {
    rejects(
        H,
        "  @0 get.field r0, r2, s1, #0\n  @1 return r0\n",
        Some(0),
        "struct s1 does not exist",
    );
}

#[test]
fn an_enum_that_does_not_exist_is_rejected() {
    rejects(
        H,
        "  @0 get.payload r0, r2, e1, #0, #0\n  @1 return r0\n",
        Some(0),
        "enum e1 does not exist",
    );
}

#[test]
fn a_field_that_does_not_exist_is_rejected() {
    rejects(
        H,
        "  @0 get.field r0, r2, s0, #2\n  @1 return r0\n",
        Some(0),
        "no field #2",
    );
}

#[test]
fn a_variant_that_does_not_exist_is_rejected() {
    rejects(
        H,
        "  @0 get.payload r0, r2, e0, #2, #0\n  @1 return r0\n",
        Some(0),
        "no variant #2",
    );
}

#[test]
fn a_payload_field_that_does_not_exist_is_rejected() {
    rejects(
        H,
        "  @0 get.payload r0, r2, e0, #1, #0\n  @1 return r0\n",
        Some(0),
        "no payload field #0",
    );
}

#[test]
fn a_map_keyed_by_a_type_without_a_key_form_is_rejected() {
    rejects(
        H,
        "  @0 new.map r2, t3, t2\n  @1 return r0\n",
        Some(0),
        "key must be Int, String or Bool",
    );
}

#[test]
fn a_reference_map_of_the_wrong_length_is_rejected() {
    rejects(
        "  result t2\n  registers 2\n  refmap nnn\n",
        "  @0 return r0\n",
        None,
        "3 entries for 2 registers",
    );
}

#[test]
fn a_line_table_of_the_wrong_length_is_rejected() {
    rejects(
        &format!("{H}  lines 1 2\n"),
        "  @0 return r0\n",
        None,
        "2 entries for 1 instructions",
    );
}

#[test]
fn a_parameter_in_a_register_of_the_wrong_class_is_rejected() {
    rejects(
        &format!("  params t4\n{H}"),
        "  @0 return r0\n",
        None,
        "but r0 is a num register",
    );
}

#[test]
fn more_parameters_than_registers_are_rejected() {
    rejects(
        "  params t2 t2\n  result t2\n  registers 1\n",
        "  @0 return r0\n",
        None,
        "do not fit in 1 registers",
    );
}

#[test]
fn a_parameter_of_a_type_that_does_not_exist_is_rejected() {
    rejects(
        &format!("  params t9\n{H}"),
        "  @0 return r0\n",
        None,
        "parameter 0 has type t9",
    );
}

#[test]
fn a_result_type_that_does_not_exist_is_rejected() {
    rejects(
        "  result t9\n  registers 1\n",
        "  @0 return.unit\n",
        None,
        "result type t9 does not exist",
    );
}

#[test]
fn code_that_can_run_off_its_end_is_rejected() {
    rejects(H, "  @0 load.int r0, 1\n", Some(0), "run off the end");
}

#[test]
fn a_function_without_code_is_rejected() {
    rejects(H, "", None, "has no code");
}

#[test]
fn a_local_in_a_register_that_does_not_exist_is_rejected() {
    rejects(
        &format!("{H}  local x t2 r7 @0..@1\n"),
        "  @0 return r0\n",
        None,
        "past the 4 registers",
    );
}

#[test]
fn a_local_in_a_register_of_the_wrong_class_is_rejected() {
    rejects(
        &format!("{H}  local s t4 r0 @0..@1\n"),
        "  @0 return r0\n",
        None,
        "but lives in r0, a num register",
    );
}

#[test]
fn a_local_live_past_the_code_is_rejected() {
    rejects(
        &format!("{H}  local x t2 r0 @0..@2\n"),
        "  @0 return r0\n",
        None,
        "not a range of the 1 instructions",
    );
}

/// The faults of a program whose type table is `types`, then the prelude's
/// struct and enum.
fn type_table_faults(types: &str) -> Vec<VerifyError> {
    let text = format!("{types}struct s0 P in m\n  field x t2\nenum e0 E in m\n  variant B\n");
    verify::errors(&parse::program(&text).unwrap())
}

const BASICS: &str = "type t0 Unit\ntype t1 Bool\ntype t2 Int\ntype t3 Float\ntype t4 String\n";

#[test]
fn a_type_table_without_the_basic_types_first_is_rejected() {
    let errors = type_table_faults("type t0 Int\n");
    assert!(
        errors[0].message.contains("must start with ()"),
        "{errors:?}"
    );
}

#[test]
fn a_type_made_of_a_later_type_is_rejected() {
    let errors = type_table_faults(&format!("{BASICS}type t5 List t5\n"));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].message.contains("does not come before it"));
}

#[test]
fn a_map_type_with_a_key_without_a_key_form_is_rejected() {
    let errors = type_table_faults(&format!("{BASICS}type t5 Map t3 t2\n"));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]
            .message
            .contains("key t3 is not Int, String or Bool")
    );
}

#[test]
fn a_type_naming_a_struct_or_enum_that_does_not_exist_is_rejected() {
    let errors = type_table_faults(&format!("{BASICS}type t5 Struct s1\ntype t6 Enum e1\n"));
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0]
            .message
            .contains("struct s1, which does not exist")
    );
    assert!(errors[1].message.contains("enum e1, which does not exist"));
}

#[test]
fn a_struct_field_or_payload_of_a_type_that_does_not_exist_is_rejected() {
    let text = format!("{BASICS}struct s0 P in m\n  field x t9\nenum e0 E in m\n  variant A t8\n");
    let errors = verify::errors(&parse::program(&text).unwrap());
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0]
            .message
            .contains("field `x` of struct s0 has type t9")
    );
    assert!(errors[1].message.contains("variant `A` of enum e0"));
}

#[test]
fn every_fault_is_collected_not_just_the_first() {
    let errors = faults(&format!(
        "fn f1 main in m\n{H}  @0 add.int r9, r2, r1\n  @1 jump @7\n  @2 load.int r0, 1\n"
    ));
    assert_eq!(errors.len(), 4, "{errors:#?}");
}

#[test]
fn a_fault_prints_with_its_function_pc_and_instruction() {
    let text = format!("{PRELUDE}fn f1 main in m\n{H}  @0 add.int r0, r0, r2\n  @1 return r0\n");
    let program = parse::program(&text).unwrap();
    let e = verify::program(&program).unwrap_err();
    assert_eq!(
        e.to_string(),
        "m.main@0  add.int r0, r0, r2: r2 is used as a number but is a ref register"
    );
    assert_eq!(
        print::one(&program, FunctionId(1), 0),
        "m.main@0  add.int r0, r0, r2"
    );
}

// ---- the second pass: the types behind references -------------------------

#[test]
fn a_string_operation_on_a_register_holding_a_list_is_rejected() {
    rejects(
        H,
        "  @0 new.list r2, t2, r0, 1\n  @1 concat.str r3, r2, r3\n  @2 return r0\n",
        Some(1),
        "r2 holds a List[Int] here, but `concat.str` needs a String",
    );
}

#[test]
fn a_field_read_from_an_object_that_is_not_that_struct_is_rejected() {
    rejects(
        H,
        "  @0 load.const r2, k1\n  @1 get.field r0, r2, s0, #0\n  @2 return r0\n",
        Some(1),
        "r2 holds a String here, but `get.field` needs a P",
    );
}

#[test]
fn a_tag_read_from_a_value_that_is_not_an_enum_is_rejected() {
    rejects(
        H,
        "  @0 load.const r2, k1\n  @1 tag r0, r2\n  @2 return r0\n",
        Some(1),
        "`tag` needs an enum value",
    );
}

#[test]
fn a_register_holding_different_types_on_two_paths_cannot_be_read() {
    rejects(
        H,
        "  @0 jump-if r0, @3\n  @1 load.const r2, k1\n  @2 jump @4\n  @3 new.list r2, t2, r0, 1\n  @4 len.list r0, r2\n  @5 return r0\n",
        Some(4),
        "r2 holds values of different types on the paths that reach here",
    );
}

#[test]
fn a_register_holding_different_types_on_two_paths_may_be_written_again() {
    let errors = faults(&format!(
        "fn f1 main in m\n{H}  @0 jump-if r0, @3\n  @1 load.const r2, k1\n  @2 jump @4\n  @3 new.list r2, t2, r0, 1\n  @4 load.const r2, k1\n  @5 concat.str r2, r2, r2\n  @6 return r0\n"
    ));
    assert_eq!(errors, vec![]);
}

#[test]
fn a_call_argument_of_the_wrong_type_is_rejected() {
    rejects(
        H,
        "  @0 new.list r2, t2, r0, 1\n  @1 call r3, m.callee, r1, 2\n  @2 return r0\n",
        Some(1),
        "parameter 1 of m.callee needs a String",
    );
}

#[test]
fn a_return_of_a_value_of_the_wrong_type_is_rejected() {
    rejects(
        "  result t4\n  registers 2\n  refs r1\n",
        "  @0 new.list r1, t2, r0, 1\n  @1 return r1\n",
        Some(1),
        "r1 holds a List[Int] here, but the function's result needs a String",
    );
}

#[test]
fn an_unwrap_of_an_option_of_another_type_is_rejected() {
    rejects(
        H,
        "  @0 some r2, r0, t2\n  @1 unwrap r3, r2, t4\n  @2 return r0\n",
        Some(1),
        "r2 holds a Option[Int] here, but `unwrap` needs a Option[String]",
    );
}

#[test]
fn a_fused_test_and_unwrap_of_a_register_of_mixed_types_is_rejected() {
    // r2 is an Option[Int] on one path and a List[Int] on the other: the
    // instruction has no type operand, so it cannot know what it unwraps.
    for op in ["jump-none.unwrap", "jump-some.unwrap"] {
        rejects(
            H,
            &format!(
                "  @0 jump-eq.int.imm r0, 0, @3\n  @1 some r2, r0, t2\n  @2 jump @4\n  \
                 @3 new.list r2, t2, r0, 1\n  @4 {op} r1, r2, @5\n  @5 return r1\n"
            ),
            Some(4),
            "holds values of different types on the paths that reach here",
        );
    }
}

#[test]
fn a_fused_test_and_unwrap_into_a_register_of_the_wrong_class_is_rejected() {
    // An Option[Int] unwrapped into a ref register.
    for op in ["jump-none.unwrap", "jump-some.unwrap"] {
        rejects(
            H,
            &format!("  @0 some r3, r0, t2\n  @1 {op} r2, r3, @2\n  @2 return r0\n"),
            Some(1),
            "r2 is not of the class of Int",
        );
    }
}

#[test]
fn a_fused_test_and_unwrap_of_something_not_an_option_is_rejected() {
    for op in ["jump-none.unwrap", "jump-some.unwrap"] {
        rejects(
            H,
            &format!("  @0 new.list r3, t2, r0, 1\n  @1 {op} r1, r3, @2\n  @2 return r0\n"),
            Some(1),
            &format!("`{op}`"),
        );
    }
}

#[test]
fn a_fused_test_and_unwrap_types_its_register_on_both_paths() {
    // A String taken out of an Option[String] into r3, read as a String
    // after the jump and after falling through; and an Int into r1.
    for op in ["jump-none.unwrap", "jump-some.unwrap"] {
        assert_eq!(
            faults(&format!(
                "fn f1 main in m\n  result t4\n  registers 4\n  refs r2 r3\n  \
                 @0 load.const r2, k1\n  @1 some r2, r2, t4\n  @2 {op} r3, r2, @4\n  \
                 @3 return r3\n  @4 concat.str r3, r3, r3\n  @5 return r3\n"
            )),
            vec![]
        );
    }
}

#[test]
fn a_builtin_argument_that_breaks_its_type_parameter_is_rejected() {
    rejects(
        H,
        "  @0 new.list r2, t2, r0, 1\n  @1 load.const r3, k1\n  @2 call-builtin r0, List.push, r2, 2\n  @3 return r0\n",
        Some(2),
        "r3 holds a String here, which argument 1 of List.push does not take (with T = Int)",
    );
}

#[test]
fn a_number_passed_where_a_builtin_type_parameter_is_a_reference_is_rejected() {
    rejects(
        "  result t2\n  registers 3\n  refs r0\n",
        "  @0 new.list r0, t4, r0, 0\n  @1 load.int r1, 5\n  @2 call-builtin r2, List.push, r0, 2\n  @3 return r2\n",
        Some(2),
        "argument 1 of List.push is a String, a reference, but r1 is a num register",
    );
}

#[test]
fn a_builtin_result_typed_by_a_parameter_must_suit_its_register_class() {
    rejects(
        "  result t2\n  registers 3\n  refs r0 r2\n",
        "  @0 new.list r0, t2, r0, 0\n  @1 load.int r1, 0\n  @2 call-builtin r2, List.remove, r0, 2\n  @3 return r1\n",
        Some(2),
        "List.remove gives a Int, but r2 is a ref register",
    );
}

#[test]
fn values_typed_by_builtin_type_parameters_flow_on_with_their_types() {
    // A List[String]'s element, taken out with List.remove, is a String
    // that concat.str accepts; a loop around it reaches a fixed point.
    let errors = faults(
        "fn f1 main in m\n  result t2\n  registers 4\n  refs r0 r2 r3\n\
         \x20 @0 load.const r2, k1\n\
         \x20 @1 new.list r0, t4, r2, 1\n\
         \x20 @2 load.int r1, 0\n\
         \x20 @3 call-builtin r3, List.remove, r0, 2\n\
         \x20 @4 concat.str r2, r2, r3\n\
         \x20 @5 call-builtin r3, List.pop, r0, 1\n\
         \x20 @6 jump-some r3, @3\n\
         \x20 @7 return r1\n",
    );
    assert_eq!(errors, vec![]);
}

// ---- robustness ------------------------------------------------------------

use cove_ir::builtins::Builtin;
use cove_ir::op::{Instr, Operand, Reg};
use proptest::prelude::*;

/// `operand` replaced by a nearby value of its kind, chosen by `pick`.
fn nudge(operand: Operand, pick: u32, builtin: Builtin) -> Operand {
    let small = pick % 12;
    match operand {
        Operand::Reg(_) => Operand::Reg(Reg(small as u16)),
        Operand::Count(_) => Operand::Count((pick % 4) as u16),
        Operand::Imm(_) => Operand::Imm(pick as i32),
        Operand::Offset(_) => Operand::Offset(pick as i8),
        Operand::Divisor(_) => Operand::Divisor(pick as i16),
        Operand::Const(_) => Operand::Const(cove_ir::program::ConstId(pick % 5)),
        Operand::Target(_) => Operand::Target(pick % 26),
        Operand::Func(_) => Operand::Func(FunctionId(pick % 3)),
        Operand::Builtin(_) => Operand::Builtin(builtin),
        Operand::Type(_) => Operand::Type(cove_ir::types::TypeId(pick % 11)),
        Operand::Struct(_) => Operand::Struct(cove_ir::types::StructId((pick % 2) as u16)),
        Operand::Enum(_) => Operand::Enum(cove_ir::types::EnumId((pick % 2) as u16)),
        Operand::Index(_) => Operand::Index((pick % 3) as u16),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Programs one operand away from valid ones pass the first pass often
    /// enough to drive the second; neither pass may panic on them.
    #[test]
    fn verifying_a_program_one_operand_from_valid_reports_rather_than_panics(
        which in 0usize..4,
        function in any::<prop::sample::Index>(),
        pc in any::<prop::sample::Index>(),
        position in any::<prop::sample::Index>(),
        pick in any::<u32>(),
        builtin in prop::sample::select(Builtin::ALL),
    ) {
        let (_, mut program) = common::all().swap_remove(which);
        let f = function.index(program.functions.len());
        let code = &mut program.functions[f].code;
        let pc = pc.index(code.len());
        let mut operands = code[pc].operands();
        if !operands.is_empty() {
            let i = position.index(operands.len());
            operands[i] = nudge(operands[i], pick, builtin);
            code[pc] = Instr::from_operands(code[pc].opcode(), &operands).unwrap();
        }
        let errors = verify::errors(&program);
        prop_assert_eq!(verify::program(&program).is_ok(), errors.is_empty());
    }
}

#[test]
fn a_division_by_an_immediate_that_can_fail_is_rejected() {
    for op in ["div.int.imm", "rem.int.imm"] {
        for divisor in [0, -1] {
            rejects(
                H,
                &format!("  @0 {op} r0, r1, {divisor}\n  @1 return r0\n"),
                Some(0),
                &format!("the divisor {divisor} can fail"),
            );
        }
    }
}

#[test]
fn a_division_by_any_other_immediate_verifies() {
    for op in ["div.int.imm", "rem.int.imm"] {
        for divisor in [i32::MIN, -2, 1, 2, 7, i32::MAX] {
            assert_eq!(
                faults(&format!(
                    "fn f1 main in m\n{H}  @0 load.int r1, 5\n  @1 {op} r0, r1, {divisor}\n  @2 return r0\n"
                )),
                vec![],
                "{op} {divisor}"
            );
        }
    }
}

#[test]
fn a_division_by_a_power_of_two_outside_2_to_2_62_is_rejected_and_any_inside_verifies() {
    for op in ["div.int.pow2", "rem.int.pow2"] {
        for exponent in [i32::MIN, -1, 0, 63, 64, i32::MAX] {
            rejects(
                H,
                &format!("  @0 {op} r0, r1, {exponent}\n  @1 return r0\n"),
                Some(0),
                &format!("the exponent {exponent} is not in 1..=62"),
            );
        }
        for exponent in [1, 31, 32, 62] {
            assert_eq!(
                faults(&format!(
                    "fn f1 main in m\n{H}  @0 load.int r1, 5\n  @1 {op} r0, r1, {exponent}\n  @2 return r0\n"
                )),
                vec![],
                "{op} {exponent}"
            );
        }
    }
}

#[test]
fn a_fused_remainder_whose_divisor_can_fail_is_rejected_and_any_other_verifies() {
    let fused = [
        "rem-add.int.imm r0, r1, r0, r1",
        "rem-jump-eq.int.imm r0, r1",
        "rem-jump-ne.int.imm r0, r1",
    ];
    for op in fused {
        // The jumps' target, the next instruction, ends the operands.
        let target = if op.contains("jump") { ", @1" } else { "" };
        for divisor in [0, -1] {
            rejects(
                H,
                &format!("  @0 {op}, {divisor}{target}\n  @1 return r0\n"),
                Some(0),
                &format!("the divisor {divisor} can fail"),
            );
        }
        let target = if op.contains("jump") { ", @2" } else { "" };
        for divisor in [-32768, -128, -2, 1, 2, 7, 1000, 32767] {
            assert_eq!(
                faults(&format!(
                    "fn f1 main in m\n{H}  @0 load.int r1, 5\n  @1 {op}, {divisor}{target}\n  @2 return r0\n"
                )),
                vec![],
                "{op} {divisor}"
            );
        }
    }
}

#[test]
fn an_argument_register_cannot_be_read_after_the_call_as_what_it_was() {
    // The callee's parameters are the caller's argument registers, and it
    // may assign them any value of their class.
    rejects(
        H,
        "  @0 load.int r1, 1\n  @1 load.const r2, k1\n  @2 call r3, m.callee, r1, 2\n  @3 concat.str r3, r2, r3\n  @4 load.int r0, 0\n  @5 return r0\n",
        Some(3),
        "r2 holds values of different types on the paths that reach here",
    );
}

#[test]
fn a_ref_register_after_a_calls_arguments_holds_none_after_the_call() {
    // r3, a list before the call, lies inside the callee's frame; the
    // machine zeroes it on return, so reading it as a string is reading
    // `None`, which every read allows.
    assert_eq!(
        faults(&format!(
            "fn f1 main in m\n{H}  @0 load.int r0, 1\n  @1 new.list r3, t2, r0, 1\n  @2 load.int r1, 1\n  @3 load.const r2, k1\n  @4 call r2, m.callee, r1, 2\n  @5 concat.str r2, r2, r3\n  @6 return r0\n"
        )),
        vec![]
    );
}

#[test]
fn a_callers_flow_pass_never_reads_a_callee_parameter_type_past_the_table() {
    // Found by the `ir_roundtrip` fuzz target: `produce`'s second
    // parameter was mutated to t9, one past the type table, and the flow
    // pass of `main`, which spawns `produce`, indexed the table with it
    // and panicked. The fault is reported at `produce` instead.
    // Read as the target reads its input (one byte of a source line is
    // not UTF-8).
    let bytes = include_bytes!("fuzz_findings/a_parameter_type_past_the_table.ir");
    let text = String::from_utf8_lossy(bytes);
    let program = parse::program(&text).expect("it parses");
    let error = verify::program(&program).expect_err("t9 does not exist");
    assert!(
        error
            .to_string()
            .contains("parameter 1 has type t9, which does not exist"),
        "{error}"
    );
}

#[test]
fn a_class_fixed_by_context_is_checked_only_where_control_can_reach() {
    // `to-str.int` wants a num source; r2 is a ref register. After an
    // endless loop (`@0 jump @0`) it can never run, as a compiler leaves
    // the lowering of a use of `x` after `let x = loop {}`.
    let wrong = "  @1 to-str.int r3, r2\n  @2 return r0\n";
    assert_eq!(
        faults(&format!("fn f1 main in m\n{H}  @0 jump @0\n{wrong}")),
        vec![]
    );
    // Reached by a jump, the same instruction is rejected.
    rejects(
        H,
        &format!("  @0 jump @1\n{wrong}"),
        Some(1),
        "r2 is used as a number but is a ref register",
    );
}

/// A header with 3 registers: r0 num, r1 and r2 ref; result `P` (`t7`,
/// struct `s0`: `x: Int`, `name: String`), which `return.unpacked` returns
/// the fields of.
const HP: &str = "  params t2\n  result t7\n  registers 3\n  refs r1 r2\n";

/// Callees for `call.unpack`, after `f1`: `f2` returns the fields of its
/// `P` to a caller that takes them apart; `f3` returns its `P` plainly;
/// `f4` returns fields too, but a jump reaches its `return` past the
/// `return.unpacked`.
const UNPACKED_CALLEES: &str = "\
fn f2 pair in m
  params t2
  result t7
  registers 3
  refs r1 r2
  @0 load.const r1, k1
  @1 return.unpacked r0, 2
  @2 new.struct r2, s0, r0, 2
  @3 return r2
fn f3 plain in m
  params t2
  result t7
  registers 3
  refs r1 r2
  @0 load.const r1, k1
  @1 new.struct r2, s0, r0, 2
  @2 return r2
fn f4 jumps in m
  params t2
  result t7
  registers 3
  refs r1 r2
  @0 load.const r1, k1
  @1 new.struct r2, s0, r0, 2
  @2 jump-eq.int.imm r0, 0, @5
  @3 return.unpacked r0, 2
  @4 new.struct r2, s0, r0, 2
  @5 return r2
";

#[test]
fn a_call_unpack_takes_a_struct_result_apart_into_registers_of_its_fields() {
    assert_eq!(
        faults(&format!(
            "fn f1 main in m\n{H}  @0 load.int r0, 1\n  @1 call.unpack r1, m.pair, r0, 1\n  @2 return r1\n{UNPACKED_CALLEES}"
        )),
        vec![]
    );
}

#[test]
fn a_call_unpack_of_a_callee_that_returns_its_struct_plainly_is_rejected() {
    rejects(
        H,
        &format!("  @0 call.unpack r1, m.plain, r0, 1\n  @1 return r1\n{UNPACKED_CALLEES}"),
        Some(0),
        "m.plain has a return that does not come right after a `return.unpacked`",
    );
}

#[test]
fn a_call_unpack_of_a_callee_whose_return_a_jump_reaches_is_rejected() {
    rejects(
        H,
        &format!("  @0 call.unpack r1, m.jumps, r0, 1\n  @1 return r1\n{UNPACKED_CALLEES}"),
        Some(0),
        "m.jumps has a return that does not come right after a `return.unpacked`",
    );
}

#[test]
fn a_call_unpack_of_a_result_that_is_not_a_struct_is_rejected() {
    rejects(
        H,
        "  @0 call.unpack r0, m.callee, r1, 2\n  @1 return r0\n",
        Some(0),
        "m.callee returns String, not a struct of 1 to 4 fields",
    );
}

#[test]
fn a_call_unpack_whose_fields_reach_past_the_frame_is_rejected() {
    rejects(
        H,
        &format!("  @0 call.unpack r3, m.pair, r0, 1\n  @1 return r0\n{UNPACKED_CALLEES}"),
        Some(0),
        "the result's 2 fields from r3 reach past the 4 registers",
    );
}

#[test]
fn a_call_unpack_into_a_register_of_another_class_than_its_field_is_rejected() {
    rejects(
        H,
        &format!("  @0 call.unpack r0, m.pair, r0, 1\n  @1 return r0\n{UNPACKED_CALLEES}"),
        Some(0),
        "r1 is a num register, but field 1 of the result of m.pair is of a ref class",
    );
}

#[test]
fn a_return_unpacked_of_another_count_than_the_results_fields_is_rejected() {
    rejects(
        HP,
        "  @0 load.const r1, k1\n  @1 return.unpacked r0, 1\n  @2 new.struct r2, s0, r0, 2\n  @3 return r2\n",
        Some(1),
        "`return.unpacked` of 1 registers in a function whose result, P, is not a struct of 1 fields",
    );
}

#[test]
fn a_return_unpacked_in_a_function_whose_result_is_not_a_struct_is_rejected() {
    rejects(
        H,
        "  @0 load.int r0, 1\n  @1 return.unpacked r0, 1\n  @2 return r0\n",
        Some(1),
        "in a function whose result, Int, is not a struct of 1 fields",
    );
}

#[test]
fn a_return_unpacked_field_of_another_type_is_rejected() {
    rejects(
        HP,
        "  @0 new.list r1, t2, r0, 0\n  @1 return.unpacked r0, 2\n  @2 load.const r1, k1\n  @3 new.struct r2, s0, r0, 2\n  @4 return r2\n",
        Some(1),
        "field `name` of the function's result",
    );
}

/// A callee of one `Int` returning an `Int`, `f1`, for `add-call`, and a
/// `main`, `f2`, with the header `header` and the code `code`.
fn with_inc(header: &str, code: &str) -> Vec<VerifyError> {
    faults(&format!(
        "fn f1 inc in m\n  params t2\n  result t2\n  registers 1\n  @0 return r0\n\
         fn f2 main in m\n{header}{code}"
    ))
}

#[test]
fn an_add_call_into_a_num_register_of_a_callee_taking_and_giving_a_num_verifies() {
    assert_eq!(
        with_inc(
            "  result t2\n  registers 2\n",
            "  @0 load.int r0, 5\n  @1 add-call m.inc, r1, 1, r0, -1\n  @2 return r1\n"
        ),
        vec![]
    );
}

#[test]
fn an_add_call_whose_sum_would_land_in_a_ref_register_is_rejected() {
    let errors = with_inc(
        "  result t2\n  registers 2\n  refs r1\n",
        "  @0 load.int r0, 5\n  @1 add-call m.inc, r1, 1, r0, -1\n  @2 return r0\n",
    );
    assert!(
        errors
            .iter()
            .any(|e| e.pc == Some(1) && e.message.contains("the sum `add-call` writes")),
        "{errors:#?}"
    );
}

#[test]
fn an_add_call_of_a_callee_giving_a_reference_is_rejected() {
    // m.callee takes (Int, String) and gives a String: its result cannot
    // come back into the num register the sum is in.
    let errors = faults(
        "fn f1 main in m\n  result t2\n  registers 2\n  refs r1\n  \
         @0 load.int r0, 5\n  @1 load.const r1, k1\n  \
         @2 add-call m.callee, r0, 2, r0, 1\n  @3 return r0\n",
    );
    assert!(
        errors
            .iter()
            .any(|e| e.pc == Some(2) && e.message.contains("the result of m.callee")),
        "{errors:#?}"
    );
}
