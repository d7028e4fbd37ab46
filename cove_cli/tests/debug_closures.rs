//! `cove debug` on function values, tuples and methods: a closure prints
//! as its function and what it captured, a captured `var` as its value
//! and type, a tuple as a tuple, and `step` enters a closure and a method.

mod support;

const CLOSURES: &str = "cove_cli/tests/fixtures/debug/closures.cove";

/// The transcript of `cove debug FILE` with `script` on stdin, which
/// writes nothing to stderr.
fn session(file: &str, script: &str) -> String {
    let (out, err, _) = support::debug_session(file, script);
    assert_eq!(err, "");
    out
}

#[test]
fn closures_tuples_and_captured_vars_print_with_their_types_and_step_enters_closures_and_methods() {
    let out = session(
        CLOSURES,
        "break 18\ncontinue\ninfo locals\nprint t.1\nstep\nstep\nstep\nbacktrace\nquit\n",
    );
    insta::assert_snapshot!("closures", out);
}

#[test]
fn a_closure_met_again_in_its_own_captures_prints_as_its_name_and_where_it_is() {
    let out = session(
        "cove_cli/tests/fixtures/debug/recursive_closures.cove",
        "break 14\ncontinue\ninfo locals\nquit\n",
    );
    assert!(!out.contains("<cycle>"), "{out}");
    insta::assert_snapshot!("recursive_closures", out);
}
