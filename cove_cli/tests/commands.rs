//! `cove run`, `check`, `disasm` and the help pages, run as a user runs them.

mod support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use support::{cove, run, status, stderr, stdout};

#[test]
fn hello_greets_and_exits_with_zero() {
    let out = run(&["run", "examples/hello.cove"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out), @"Hello, Cove!\n");
}

#[test]
fn the_programs_arguments_are_what_args_returns() {
    let out = run(&["run", "examples/hello.cove", "Ada", "Grace"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "Hello, Ada and Grace!\n");
}

#[test]
fn every_word_after_the_file_is_the_programs_flags_included() {
    let out = run(&["run", "examples/hello.cove", "--fuel", "--help"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "Hello, --fuel and --help!\n");
}

#[test]
fn mains_int_is_the_exit_status() {
    let out = run(&["run", "cove_cli/tests/fixtures/status.cove"]);
    assert_eq!(status(&out), 3, "{}", stderr(&out));
    assert_eq!(stderr(&out), "", "a status is not an error");
}

#[test]
fn exit_n_ends_the_run_with_status_n_and_says_nothing() {
    let out = run(&["run", "cove_cli/tests/fixtures/exits.cove"]);
    assert_eq!(status(&out), 7, "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

#[test]
fn fib_prints_its_answer() {
    let out = run(&["run", "examples/fib.cove", "20"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "fib(20) = 6765\n");
}

#[test]
fn wordfreq_counts_the_words_of_the_file_it_is_given() {
    let out = run(&["run", "examples/wordfreq.cove", "examples/wordfreq.txt"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    insta::assert_snapshot!("wordfreq", stdout(&out));
}

#[test]
fn channels_hands_work_to_two_tasks_and_sums_what_comes_back() {
    let out = run(&["run", "examples/channels.cove"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "10 squares, sum 385\n");
}

#[test]
fn a_runtime_error_prints_its_line_and_backtrace_and_exits_with_70() {
    let out = run(&["run", "examples/fails.cove"]);
    assert_eq!(status(&out), 70);
    assert_eq!(
        stdout(&out),
        "spring: 82\n",
        "what ran before the fault is kept"
    );
    insta::assert_snapshot!("fails_stderr", stderr(&out));
}

#[test]
fn covefmt_lays_out_a_messy_program() {
    let out = run(&[
        "run",
        "examples/covefmt/main.cove",
        "examples/covefmt/sample.cove",
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    insta::assert_snapshot!("covefmt_sample", stdout(&out));
}

#[test]
fn covefmt_check_names_the_files_that_would_change_and_exits_1() {
    let out = run(&[
        "run",
        "examples/covefmt/main.cove",
        "--check",
        "examples/covefmt/format.cove",
        "examples/covefmt/sample.cove",
    ]);
    assert_eq!(status(&out), 1, "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out), @"examples/covefmt/sample.cove");
}

#[test]
fn covefmt_leaves_its_own_sources_as_they_are() {
    for file in ["main.cove", "lexer.cove", "format.cove"] {
        let path = format!("examples/covefmt/{file}");
        let out = run(&["run", "examples/covefmt/main.cove", &path]);
        assert_eq!(status(&out), 0, "{}", stderr(&out));
        let source = std::fs::read_to_string(support::root().join(&path)).expect("source");
        assert_eq!(stdout(&out), source, "{path} is not in covefmt's layout");
    }
}

#[test]
fn running_out_of_fuel_ends_the_run_with_its_own_status() {
    let out = run(&[
        "run",
        "--fuel",
        "100000",
        "cove_cli/tests/fixtures/forever.cove",
    ]);
    assert_eq!(status(&out), 124, "{}", stderr(&out));
    assert!(stderr(&out).contains("forever.main"), "{}", stderr(&out));
}

#[test]
fn a_heap_limit_ends_a_hoarding_program_with_its_own_status() {
    let out = run(&[
        "run",
        "--max-heap",
        "20000",
        "--fuel",
        "100000000",
        "cove_cli/tests/fixtures/hoard.cove",
    ]);
    assert_eq!(status(&out), 125, "{}", stderr(&out));
    assert!(stderr(&out).contains("hoard.main"), "{}", stderr(&out));
}

#[test]
fn a_call_depth_limit_ends_deep_recursion_with_its_own_status() {
    let out = run(&["run", "--max-depth", "10", "examples/fib.cove", "20"]);
    assert_eq!(status(&out), 126, "{}", stderr(&out));
}

#[test]
fn a_runaway_recursion_prints_the_innermost_frames_a_count_and_the_outermost_frames() {
    let out = run(&["run", "cove_cli/tests/fixtures/runaway.cove"]);
    assert_eq!(
        status(&out),
        cove_runtime::ErrorKind::CallDepth.exit_code(),
        "{}",
        stderr(&out)
    );
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    let inner = cove_runtime::RunError::SHOWN_INNERMOST;
    let outer = cove_runtime::RunError::SHOWN_OUTERMOST;
    // The message, the source line between two gutter lines, the frames
    // shown and one line counting the rest.
    assert_eq!(lines.len(), 1 + 3 + inner + 1 + outer, "{err}");
    let depth = cove_runtime::Limits::default().max_call_depth;
    let hidden = format!("  ... {} more frames", depth - inner - outer);
    assert_eq!(lines[4 + inner], hidden, "{err}");
    assert!(
        lines[4..4 + inner]
            .iter()
            .all(|l| l.contains("runaway.down"))
    );
    assert!(lines[lines.len() - 1].contains("runaway.main"), "{err}");
}

#[test]
fn a_closed_stdout_pipe_stops_the_run_quietly_with_status_141() {
    let mut child = cove(&[
        "run",
        "--fuel",
        "20000000000",
        "cove_cli/tests/fixtures/chatter.cove",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("cove starts");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("a line");
    assert_eq!(line, "line 0\n");
    drop(out);
    let ended = child.wait_with_output().expect("it ends");
    let err = String::from_utf8_lossy(&ended.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err, "", "a closed pipe is not announced");
    assert_eq!(ended.status.code(), Some(141), "{err}");
}

#[test]
fn a_pipe_closed_before_the_first_write_does_not_panic_any_command() {
    for args in [
        &[
            "run",
            "--fuel",
            "20000000000",
            "cove_cli/tests/fixtures/chatter.cove",
        ][..],
        &[
            "profile",
            "--fuel",
            "20000000",
            "cove_cli/tests/fixtures/chatter.cove",
        ],
        &["disasm", "examples/covefmt/main.cove"],
        &["--help"],
    ] {
        let mut child = cove(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cove starts");
        drop(child.stdout.take());
        let ended = child.wait_with_output().expect("it ends");
        let err = String::from_utf8_lossy(&ended.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(ended.status.code(), Some(101), "{args:?}: {err}");
    }
}

#[test]
fn an_error_report_to_a_closed_stderr_keeps_the_runs_status() {
    let mut child = cove(&["run", "cove_cli/tests/fixtures/runaway.cove"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cove starts");
    drop(child.stderr.take());
    let code = child.wait().expect("it ends").code();
    assert_eq!(code, Some(cove_runtime::ErrorKind::CallDepth.exit_code()));
}

#[test]
fn the_gc_stress_flag_runs_a_program_to_the_same_answer() {
    let out = run(&[
        "run",
        "--gc-stress",
        "examples/wordfreq.cove",
        "examples/wordfreq.txt",
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let plain = run(&["run", "examples/wordfreq.cove", "examples/wordfreq.txt"]);
    assert_eq!(stdout(&out), stdout(&plain));
}

#[test]
fn ctrl_c_ends_a_run_at_a_safepoint_with_status_130() {
    let mut child = cove(&[
        "run",
        "--fuel",
        "20000000000",
        "cove_cli/tests/fixtures/forever.cove",
    ])
    .stderr(Stdio::piped())
    .stdout(Stdio::null())
    .spawn()
    .expect("cove starts");
    let mut err = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    err.read_line(&mut line).expect("a line");
    assert_eq!(line, "started\n");
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).expect("the rest of stderr");
    let code = child.wait().expect("it ends").code();
    assert_eq!(code, Some(130), "{rest}");
    assert!(rest.contains("interrupted"), "{rest}");
    assert!(rest.contains("forever.main"), "where it was: {rest}");
}

#[test]
fn check_is_silent_and_succeeds_on_a_program_that_compiles() {
    for file in [
        "examples/hello.cove",
        "examples/fib.cove",
        "examples/fails.cove",
        "examples/channels.cove",
        "examples/wordfreq.cove",
        "examples/covefmt/main.cove",
    ] {
        let out = run(&["check", file]);
        assert_eq!(status(&out), 0, "{file}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{file}");
        assert_eq!(stderr(&out), "", "{file}");
    }
}

#[test]
fn check_prints_an_unused_import_and_unreachable_code_and_fails_on_them_only_when_denied() {
    let file = "cove_cli/tests/fixtures/warned/main.cove";
    let out = run(&["check", file]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    insta::assert_snapshot!(stderr(&out));
    let denied = run(&["check", "--deny-warnings", file]);
    assert_eq!(status(&denied), 1);
    assert_eq!(stderr(&denied), stderr(&out));
    let ran = run(&["run", file]);
    assert_eq!(status(&ran), 0);
    assert_eq!(
        (stdout(&ran), stderr(&ran)),
        ("once\n".into(), String::new())
    );
}

#[test]
fn check_reports_every_error_with_file_line_and_column_and_exits_with_1() {
    let out = run(&["check", "cove_cli/tests/fixtures/broken.cove"]);
    assert_eq!(status(&out), 1);
    let err = stderr(&out);
    assert!(
        err.contains("cove_cli/tests/fixtures/broken.cove:3:"),
        "{err}"
    );
    assert!(
        err.contains("cove_cli/tests/fixtures/broken.cove:4:"),
        "{err}"
    );
    assert_eq!(stdout(&out), "");
}

#[test]
fn run_of_a_program_that_does_not_compile_exits_with_1_and_runs_nothing() {
    let out = run(&["run", "cove_cli/tests/fixtures/broken.cove"]);
    assert_eq!(status(&out), 1);
    assert_eq!(stdout(&out), "");
}

#[test]
fn a_program_without_main_compiles_but_does_not_run() {
    assert_eq!(
        status(&run(&["check", "cove_cli/tests/fixtures/nomain.cove"])),
        0
    );
    let out = run(&["run", "cove_cli/tests/fixtures/nomain.cove"]);
    assert_eq!(status(&out), 1);
    assert!(
        stderr(&out).contains("has no `main` to run"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn disasm_lists_every_function_with_its_calls_and_source_lines() {
    let out = run(&["disasm", "examples/fib.cove"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let listing = stdout(&out);
    assert!(listing.contains("call "), "{listing}");
    assert!(listing.contains("fib(n - 1) + fib(n - 2)"), "{listing}");
    assert!(listing.contains("main"), "{listing}");
}

#[test]
fn every_subcommand_has_help_with_examples() {
    let mut subcommands = vec!["run", "check", "disasm"];
    if cfg!(feature = "profiler") {
        subcommands.extend(["profile", "diff", "debug"]);
    }
    for sub in subcommands {
        let out = run(&[sub, "--help"]);
        assert_eq!(status(&out), 0, "{sub}");
        assert!(
            stdout(&out).contains("Examples:"),
            "{sub}: {}",
            stdout(&out)
        );
    }
}

#[test]
fn the_top_level_help_lists_the_exit_statuses() {
    let out = run(&["--help"]);
    assert_eq!(status(&out), 0);
    let help = stdout(&out);
    for kind in [
        cove_runtime::ErrorKind::DivisionByZero,
        cove_runtime::ErrorKind::Io,
        cove_runtime::ErrorKind::OutOfFuel,
        cove_runtime::ErrorKind::HeapLimit,
        cove_runtime::ErrorKind::CallDepth,
        cove_runtime::ErrorKind::Deadlock,
        cove_runtime::ErrorKind::Halted,
        cove_runtime::ErrorKind::Interrupted,
        cove_runtime::ErrorKind::Invalid,
    ] {
        let code = format!("\n  {:<4} ", kind.exit_code());
        assert!(help.contains(&code), "{kind:?} exits with {code:?}: {help}");
    }
}

#[cfg(feature = "profiler")]
#[test]
fn the_top_level_help_reads_as_documented() {
    let out = run(&["--help"]);
    assert_eq!(status(&out), 0);
    insta::assert_snapshot!("help", stdout(&out));
}

#[test]
fn version_prints_the_version() {
    let out = run(&["--version"]);
    assert_eq!(status(&out), 0);
    assert_eq!(
        stdout(&out),
        format!("cove {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_usage_error_exits_with_2() {
    assert_eq!(status(&run(&["run"])), 2);
    assert_eq!(status(&run(&["frobnicate"])), 2);
    assert_eq!(
        status(&run(&["profile", "--by", "colour", "examples/fib.cove"])),
        2
    );
}
