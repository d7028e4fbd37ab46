//! `cove debug` on function values, tuples and methods: a closure prints
//! as its function and what it captured, a captured `var` as its value
//! and type, a tuple as a tuple, and `step` enters a closure and a method.

mod support;

use std::io::Write;
use std::process::Stdio;

use support::cove;

const CLOSURES: &str = "cove_cli/tests/fixtures/debug/closures.cove";

fn session(file: &str, script: &str) -> String {
    let mut child = cove(&["debug", file])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cove starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(script.as_bytes())
        .expect("the script is written");
    let out = child.wait_with_output().expect("cove ends");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn closures_tuples_and_captured_vars_print_with_their_types_and_step_enters_closures_and_methods() {
    let out = session(
        CLOSURES,
        "break 18\ncontinue\ninfo locals\nprint t.1\nstep\nstep\nstep\nbacktrace\nquit\n",
    );
    insta::assert_snapshot!("closures", out);
}
