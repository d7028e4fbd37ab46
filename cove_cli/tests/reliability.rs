//! The reliability rows of the command line, each from its reproducer: a
//! program's status never passes for one of `cove`'s, an output that
//! cannot be written ends the run with the I/O status, and what was
//! written before a fault is all there.

mod support;
use support::{run, status, stderr, stdout};

#[test]
fn a_main_returning_101_exits_64_and_says_what_it_returned() {
    let out = run(&["run", "cove_cli/tests/fixtures/rel/status_101.cove"]);
    assert_eq!(status(&out), 64, "{}", stderr(&out));
    assert_eq!(stdout(&out), "about to return 101\n");
    assert_eq!(
        stderr(&out),
        "cove: main returned status 101, outside 0..=63 (the statuses a program may use); \
         exiting with 64\n"
    );
}

#[test]
fn an_exit_with_a_status_of_coves_own_exits_64_instead() {
    let out = run(&["run", "cove_cli/tests/fixtures/rel/exit_128.cove"]);
    assert_eq!(status(&out), 64, "{}", stderr(&out));
    assert!(stderr(&out).contains("exit with status 128"), "{}", stderr(&out));
}
