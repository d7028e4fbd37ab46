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
    assert!(
        stderr(&out).contains("exit with status 128"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn hello_to_dev_full_exits_with_the_io_status_and_says_why() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens");
    let out = support::cove(&["run", "examples/hello.cove"])
        .stdout(full)
        .output()
        .expect("cove runs");
    assert_eq!(status(&out), 74, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot write the program's output: No space left on device"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_printing_loop_to_dev_full_stops_with_the_io_status() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens");
    let out = support::cove(&["run", "cove_cli/tests/fixtures/chatter.cove"])
        .stdout(full)
        .output()
        .expect("cove runs");
    assert_eq!(status(&out), 74, "{}", stderr(&out));
}

#[test]
fn two_ctrl_cs_in_a_row_exit_130_with_the_buffered_output_written() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ready = dir.path().join("ready");
    let ready_arg = ready.display().to_string();
    let child = support::cove(&[
        "run",
        "cove_cli/tests/fixtures/rel/started_then_waits.cove",
        &ready_arg,
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("cove starts");
    while !ready.exists() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    for _ in 0..2 {
        let sent = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success());
    }
    let out = child.wait_with_output().expect("it ends");
    assert_eq!(status(&out), 130, "{}", stderr(&out));
    // However the two presses were taken (the run stopped by the first, or
    // the second exiting at once), the line printed before is there.
    assert_eq!(stdout(&out), "started\n", "{}", stderr(&out));
}

#[test]
fn a_hoarder_under_a_small_address_space_ends_with_the_heap_status_and_its_output_intact() {
    // 500 MB of address space: less than the default heap bound needs, so
    // the host runs out first, and that must be an error, not an abort.
    let cove = env!("CARGO_BIN_EXE_cove");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 500000 && exec {cove} run cove_cli/tests/fixtures/rel/hoard_after_output.cove"
        ))
        .current_dir(support::root())
        .env("NO_COLOR", "1")
        .output()
        .expect("sh runs");
    assert_eq!(status(&out), 125, "{}", stderr(&out));
    assert_eq!(stdout(&out), "before the hoard\n");
    assert!(
        stderr(&out).contains("error: out of memory"),
        "{}",
        stderr(&out)
    );
}
