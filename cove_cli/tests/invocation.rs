//! How the command line reads its words, the way users of other tools
//! expect: `--` ends cove's flags, cove's flags after FILE are warned
//! about, `-` is stdin, a file that is not there is an I/O error naming it,
//! and `-o` is opened before the run.

mod support;

use std::io::Write as _;
use std::process::Stdio;

use support::{cove, run, status, stderr, stdout};

#[test]
fn an_unwritable_output_path_fails_before_the_program_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing/dir/profile.json");
    let out = run(&[
        "profile",
        "--format",
        "json",
        "-o",
        path.to_str().unwrap(),
        "examples/hello.cove",
    ]);
    assert_eq!(status(&out), 74);
    assert_eq!(stdout(&out), "", "the program never ran");
    assert!(stderr(&out).contains("cannot create"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("missing/dir/profile.json"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_missing_file_is_an_io_error_that_names_the_path() {
    for command in ["run", "check", "disasm", "profile"] {
        let out = run(&[command, "no/such/program.cove"]);
        assert_eq!(status(&out), 74, "{command}: {}", stderr(&out));
        let text = stderr(&out);
        assert!(
            text.contains("cannot read no/such/program.cove"),
            "{command}: {text}"
        );
        assert!(!text.contains(":1:1"), "no made-up location: {text}");
    }
}

#[test]
fn a_directory_given_as_the_program_is_an_io_error_too() {
    let out = run(&["run", "examples"]);
    assert_eq!(status(&out), 74, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot read examples"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn cove_run_dash_reads_the_program_from_stdin() {
    let mut child = cove(&["run", "-", "world"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"export fn main() -> Int {\n  println(\"hello, {args()[0]}\")\n  3\n}\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(stdout(&out), "hello, world\n", "{}", stderr(&out));
    assert_eq!(status(&out), 3);
}

#[test]
fn a_program_from_stdin_that_does_not_compile_gets_located_diagnostics() {
    let mut child = cove(&["check", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"export fn main() -> Int {\n  \"no\"\n}\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(status(&out), 1);
    assert!(stderr(&out).contains("stdin.cove:2:3"), "{}", stderr(&out));
}

#[test]
fn a_double_dash_ends_coves_flags_and_the_rest_goes_to_the_program() {
    let out = run(&[
        "profile",
        "--top",
        "1",
        "--",
        "examples/fib.cove",
        "--format",
        "json",
    ]);
    // fib's parse_int of "--format" fails: the words reached the program.
    assert_eq!(status(&out), 70, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot parse \"--format\" as an Int"),
        "{}",
        stderr(&out)
    );
    assert!(
        !stderr(&out).contains("warning"),
        "`--` said so: {}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("by function"), "a table, not JSON");
}

#[test]
fn coves_own_flags_after_file_get_a_warning_that_they_went_to_the_program() {
    let out = run(&["profile", "examples/hello.cove", "--format", "json"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let text = stderr(&out);
    assert!(
        text.contains("warning: `--format` comes after FILE, so it was given to the program"),
        "{text}"
    );
    assert!(stdout(&out).contains("by function"), "a table, not JSON");
    // A flag of the program's own is not cove's, and gets no warning.
    let out = run(&["run", "examples/hello.cove", "--check"]);
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
}
