//! `cove debug` at the terminal: scripted sessions (commands on stdin),
//! their transcripts snapshotted, covering every command.

mod support;

use support::debug_session as session;

const SHAPES: &str = "cove_cli/tests/fixtures/debug/shapes.cove";
const TASKS: &str = "cove_cli/tests/fixtures/debug/tasks.cove";
const FAILS: &str = "examples/fails.cove";

#[test]
fn a_line_breakpoint_in_a_callee_stops_there_at_every_pass() {
    let (out, err, _) = session(
        SHAPES,
        "break shapes.cove:24\ncontinue\nbacktrace\nprint n\ncontinue\nbt\np n\nc\np n\n",
    );
    assert_eq!(err, "");
    insta::assert_snapshot!("every_pass", out);
}

#[test]
fn breakpoints_are_set_listed_hit_counted_and_deleted() {
    let (out, err, status) = session(
        SHAPES,
        "b square\nbreak 30\ntbreak shapes.cove:16\nbreak nowhere.cove:3\nbreak 900\nbreak nosuch\n\
         info breakpoints\nc\nc\ninfo b\ndelete 1\ndelete 7\nc\ninfo breakpoints\nc\np s\n\
         delete\ninfo breakpoints\nbreak shapes.square if n == 3\nbreak 25 if n >\nrun\np n\nc\n",
    );
    assert_eq!(err, "");
    assert_eq!(status, 38, "the last run's status is the session's");
    insta::assert_snapshot!("breakpoints", out);
}

#[test]
fn step_next_finish_and_stepi_move_as_gdb_does() {
    let (out, err, _) = session(
        SHAPES,
        "break 40\nc\nstep\nstep\nstep\nnext\nnext\nnext\nstep\nfinish\nstepi\nsi\ndisasm\nfinish\n",
    );
    assert_eq!(err, "");
    insta::assert_snapshot!("stepping", out);
}

#[test]
fn locals_print_with_their_cove_types_in_any_frame() {
    let (out, err, _) = session(
        SHAPES,
        "break area\nc\ninfo locals\nprint s\nup\ninfo locals\nprint names\np ages\np maybe\np nothing\n\
         p ratio * 2.0\np p.x + p.y * 10\np names.length() > 1 && !(total == 0)\np p.z\np nosuch\n\
         p 1 +\np\nframe 0\ndown\nup 5\nframe 1\nbt\nlist\nlist 3\nlist area\ndisasm\n",
    );
    assert_eq!(err, "");
    insta::assert_snapshot!("inspecting", out);
}

#[test]
fn a_runtime_error_stops_at_the_faulting_frame_before_the_run_ends() {
    let (out, err, status) = session(
        FAILS,
        "continue\nbacktrace\nprint count\ninfo locals\nup\nprint total\ncontinue\ncontinue\n",
    );
    assert_eq!(err, "");
    assert_eq!(status, 70);
    insta::assert_snapshot!("fault", out);
}

#[test]
fn profile_at_the_prompt_counts_the_run_so_far() {
    let (out, err, _) = session(
        SHAPES,
        "profile\nbreak area\nc\nprofile\nc\nc\nc\nprofile\n",
    );
    assert_eq!(err, "");
    insta::assert_snapshot!("profile", out);
}

#[test]
fn run_restart_help_and_quit_drive_the_session() {
    let (out, err, status) = session(
        SHAPES,
        "help\nnext\nrun\ncontinue\nbacktrace\ninfo locals\nrestart\nnext\nrun\nfrobnicate\ninfo nonsense\nquit\ncontinue\n",
    );
    assert_eq!(err, "");
    assert_eq!(status, 38);
    insta::assert_snapshot!("session", out);
}

#[test]
fn a_breakpoint_in_a_spawned_task_stops_that_task_with_its_own_frames() {
    let (out, err, _) = session(
        TASKS,
        "break tasks.cove:6 if n == 5 && i == 2\nc\nbt\ninfo tasks\np s\nnext\np s\ndelete\nc\n",
    );
    assert_eq!(err, "");
    insta::assert_snapshot!("tasks", out);
}

#[test]
fn a_program_that_does_not_compile_gives_its_diagnostics_and_no_session() {
    let (out, err, status) = session("cove_cli/tests/fixtures/broken.cove", "continue\n");
    assert_eq!(out, "");
    assert!(err.contains("type mismatch"), "{err}");
    assert_eq!(status, 1);
}

#[test]
fn the_session_in_debugging_md_is_the_one_a_scripted_run_prints() {
    let (out, _, _) = session(
        FAILS,
        "continue\nbacktrace\nprint count\ninfo locals\nup\nprint total\ncontinue\ncontinue\n",
    );
    let doc = std::fs::read_to_string(support::root().join("docs/DEBUGGING.md")).expect("the doc");
    assert!(
        doc.contains(out.trim_end()),
        "docs/DEBUGGING.md is out of date:\n{out}"
    );
}
