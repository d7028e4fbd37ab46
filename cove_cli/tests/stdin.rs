//! `cove run` gives the program the process's standard input.

use std::io::Write as _;
use std::process::Stdio;

mod support;
use support::{cove, status, stderr, stdout};

#[test]
fn cove_run_reads_the_processs_piped_standard_input() {
    let mut child = cove(&["run", "cove_cli/tests/fixtures/word_count.cove"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cove starts");
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(b"the quick brown fox\njumps over\n\nthe lazy dog")
        .expect("the input is written");
    drop(input);
    let out = child.wait_with_output().expect("it ends");
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "   4 lines    9 words\n");
}
