//! The verifier's rules for function values, one test each: what
//! `new.closure` and `call.closure` must prove so that the VM can call a
//! closure without checking its type. The programs are in the printed
//! form: a prelude with an environment struct, a function that captures
//! (`m.add`, whose last parameter is its environment) and one that does
//! not (`m.double`), then a `main` that breaks one rule.

use cove_ir::program::FunctionId;
use cove_ir::verify::{self, VerifyError};
use cove_ir::{parse, print};

const PRELUDE: &str = "\
type t0 Unit
type t1 Bool
type t2 Int
type t3 Float
type t4 String
type t5 Struct s0
type t6 Fn 1 t2 t2
struct s0 env in m
  field k t2
fn f0 add in m
  params t2 t5
  result t2
  registers 3
  refs r1
  @0 get.field r2, r1, s0, #0
  @1 add.int r2, r0, r2
  @2 return r2
fn f1 double in m
  params t2
  result t2
  registers 1
  @0 add.int r0, r0, r0
  @1 return r0
";

/// A `main` with five registers: r0, r2, r3 num; r1, r4 ref; result Int.
const H: &str = "fn f2 main in m\n  result t2\n  registers 5\n  refs r1 r4\n";

fn faults(code: &str) -> Vec<VerifyError> {
    faults_under(H, code)
}

fn faults_under(header: &str, code: &str) -> Vec<VerifyError> {
    let text = format!("{PRELUDE}{header}{code}");
    let program = parse::program(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    verify::errors(&program)
}

/// Asserts exactly one fault, in `main` at `pc`, whose message says `says`.
fn rejects(code: &str, pc: u32, says: &str) {
    let errors = faults(code);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let e = &errors[0];
    assert!(e.message.contains(says), "{e}");
    assert_eq!(e.pc, Some(pc), "{e}");
    assert_eq!(e.function, Some(FunctionId(2)), "{e}");
}

const GOOD: &str = "\
  @0 load.int r0, 5
  @1 new.closure r1, m.add, r0, 1
  @2 load.int r3, 2
  @3 call.closure r2, r1, r3, 1
  @4 return r2
";

#[test]
fn a_closure_made_and_called_as_its_type_says_verifies() {
    assert_eq!(faults(GOOD), vec![]);
}

#[test]
fn a_function_without_captures_is_a_value_of_its_own_signature() {
    let code = GOOD.replace(
        "new.closure r1, m.add, r0, 1",
        "new.closure r1, m.double, r0, 0",
    );
    assert_eq!(faults(&code), vec![]);
}

#[test]
fn a_function_type_prints_and_parses_back() {
    let text = format!("{PRELUDE}{H}{GOOD}");
    let program = parse::program(&text).unwrap();
    let printed = print::program(&program);
    assert!(printed.contains("type t6 Fn 1 t2 t2"), "{printed}");
    assert_eq!(parse::program(&printed).unwrap(), program);
}

#[test]
fn captures_that_do_not_match_the_environment_are_rejected() {
    rejects(
        &GOOD.replace("m.add, r0, 1", "m.add, r0, 2"),
        1,
        "environment has 1 fields, not 2",
    );
}

#[test]
fn a_closure_of_a_function_without_an_environment_cannot_capture() {
    rejects(
        &GOOD.replace("m.add, r0, 1", "m.double, r0, 1"),
        1,
        "its last parameter is not a struct",
    );
}

#[test]
fn a_capture_of_the_wrong_class_is_rejected() {
    rejects(
        &GOOD.replace(
            "new.closure r1, m.add, r0, 1",
            "new.closure r1, m.add, r4, 1",
        ),
        1,
        "capture of m.add 0",
    );
}

#[test]
fn calling_a_register_that_holds_no_function_is_rejected() {
    let code = GOOD.replace("@1 new.closure r1, m.add, r0, 1", "@1 to-str.int r1, r0");
    rejects(
        &code,
        3,
        "holds a String here, but `call.closure` needs a function value",
    );
}

#[test]
fn a_closure_call_with_the_wrong_number_of_arguments_is_rejected() {
    let code = GOOD.replace("call.closure r2, r1, r3, 1", "call.closure r2, r1, r2, 2");
    let errors = faults(&code);
    assert!(
        errors
            .iter()
            .any(|e| e.pc == Some(3) && e.message.contains("takes 1 arguments, not 2")),
        "{errors:#?}"
    );
}

#[test]
fn a_closure_call_argument_of_the_wrong_class_is_rejected() {
    // The closure itself passed where an Int goes; r2 is a ref register
    // here, so the slot after the argument is well formed.
    let code = GOOD
        .replace("call.closure r2, r1, r3, 1", "call.closure r0, r1, r1, 1")
        .replace("@4 return r2", "@4 return r0");
    let errors = faults_under(&H.replace("refs r1 r4", "refs r1 r2 r4"), &code);
    assert!(
        errors
            .iter()
            .any(|e| e.pc == Some(3) && e.message.contains("argument 0 in r1 is not of the class")),
        "{errors:#?}"
    );
}

#[test]
fn a_closure_call_result_of_the_wrong_class_is_rejected() {
    let code = GOOD
        .replace("call.closure r2, r1, r3, 1", "call.closure r4, r1, r3, 1")
        .replace("@4 return r2", "@4 return r0");
    let errors = faults(&code);
    assert!(
        errors
            .iter()
            .any(|e| e.pc == Some(3) && e.message.contains("r4 is not of the class of the result")),
        "{errors:#?}"
    );
}

#[test]
fn a_closure_call_whose_slot_after_the_arguments_is_past_the_frame_is_rejected() {
    let code = GOOD.replace("call.closure r2, r1, r3, 1", "call.closure r2, r1, r4, 1");
    let errors = faults(&code);
    assert!(
        errors
            .iter()
            .any(|e| e.pc == Some(3) && e.message.contains("past the frame's 5 registers")),
        "{errors:#?}"
    );
}

#[test]
fn a_closure_call_whose_slot_after_the_arguments_is_a_num_register_verifies() {
    // r2 holds the argument and r3, a num register, the closure's slot: the
    // VM writes the closure there for the callee, and the caller reads
    // nothing there after the call.
    let code = GOOD
        .replace("load.int r3, 2", "load.int r2, 2")
        .replace("call.closure r2, r1, r3, 1", "call.closure r0, r1, r2, 1")
        .replace("@4 return r2", "@4 return r0");
    assert_eq!(faults(&code), vec![]);
}

#[test]
fn a_closure_whose_type_is_not_in_the_table_is_rejected() {
    let text = format!("{PRELUDE}{H}{GOOD}").replace("type t6 Fn 1 t2 t2\n", "");
    let program = parse::program(&text).unwrap();
    let errors = verify::errors(&program);
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("is not in the type table")),
        "{errors:#?}"
    );
}

#[test]
fn a_function_type_made_of_later_types_is_rejected() {
    let text = format!("{PRELUDE}{H}{GOOD}").replace("type t6 Fn 1 t2 t2", "type t6 Fn 1 t7 t2");
    let program = parse::program(&text).unwrap();
    let errors = verify::errors(&program);
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("does not come before it")),
        "{errors:#?}"
    );
}

/// `GOOD` with the argument loaded into r0 and moved into the window by
/// the call itself: `move-call.closure`.
const MOVED: &str = "\
  @0 load.int r0, 5
  @1 new.closure r1, m.add, r0, 1
  @2 load.int r0, 2
  @3 move-call.closure r2, r1, r3, 1, r0
  @4 return r2
";

#[test]
fn a_closure_call_that_moves_its_first_argument_in_verifies() {
    assert_eq!(faults(MOVED), vec![]);
}

#[test]
fn a_moved_first_argument_of_the_wrong_type_is_rejected() {
    // r4 holds the closure, a function value, where the Int goes; r0, the
    // window's first register, is num, so only the type is wrong.
    let code = MOVED
        .replace("@2 load.int r0, 2", "@2 move r4, r1")
        .replace(
            "move-call.closure r2, r1, r3, 1, r0",
            "move-call.closure r2, r1, r3, 1, r4",
        );
    let errors = faults(&code);
    assert!(
        errors
            .iter()
            .any(|e| e.pc == Some(3) && e.message.contains("the first argument r3")),
        "{errors:#?}"
    );
}

#[test]
fn a_moved_first_argument_of_another_ref_type_is_rejected() {
    // A function value moved into a String parameter: the class is right,
    // the type is not, and the flow pass says so of the move's source.
    let text = "\
type t0 Unit
type t1 Bool
type t2 Int
type t3 Float
type t4 String
type t5 Fn 1 t4 t2
fn f0 length in m
  params t4
  result t2
  registers 2
  refs r0
  @0 load.int r1, 0
  @1 return r1
fn f1 main in m
  result t2
  registers 5
  refs r1 r2 r3
  @0 new.closure r1, m.length, r0, 0
  @1 move r2, r1
  @2 move-call.closure r0, r1, r3, 1, r2
  @3 return r0
";
    let program = parse::program(text).unwrap_or_else(|e| panic!("{e}"));
    let errors = verify::errors(&program);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].pc, Some(2), "{errors:#?}");
    assert!(
        errors[0].message.contains("r2 holds a") && errors[0].message.contains("needs a String"),
        "{errors:#?}"
    );
}

#[test]
fn a_closure_call_that_moves_into_no_argument_is_rejected() {
    let code = MOVED.replace(
        "move-call.closure r2, r1, r3, 1, r0",
        "move-call.closure r2, r1, r3, 0, r0",
    );
    let errors = faults(&code);
    assert!(
        errors
            .iter()
            .any(|e| e.pc == Some(3) && e.message.contains("into no argument")),
        "{errors:#?}"
    );
}
