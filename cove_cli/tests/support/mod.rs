//! Running the built `cove` binary the way a user does.
//!
//! Every test runs the real executable from the workspace root, so paths in
//! the output read `examples/fib.cove` as they do in the docs, with colour
//! off and the profiler's deterministic clock on, so outputs are stable
//! enough to snapshot.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The workspace root, where `examples/` is.
pub fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// `cove` with `args`, ready to run from the workspace root.
pub fn cove(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cove"));
    command
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env("COVE_FAKE_CLOCK", "1")
        .env_remove("COVE_GC_STRESS");
    command
}

/// Runs `cove debug FILE` with `script` on stdin; gives stdout (the
/// transcript, with the program's own output where it was written),
/// stderr and the exit status.
pub fn debug_session(file: &str, script: &str) -> (String, String, i32) {
    let mut child = cove(&["debug", file])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cove starts");
    let written = child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(script.as_bytes());
    // A program that does not compile ends the session before it reads
    // its script, and may do so before the script is written: that is a
    // broken pipe here, and the session's output says the rest.
    if let Err(e) = written {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "the script is written: {e}"
        );
    }
    let out = child.wait_with_output().expect("cove ends");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        status(&out),
    )
}

/// Runs `cove` with `args` to the end.
pub fn run(args: &[&str]) -> Output {
    cove(args).output().expect("cove runs")
}

/// What a run wrote to stdout.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What a run wrote to stderr.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The exit status, or -1 when a signal ended the process.
pub fn status(output: &Output) -> i32 {
    output.status.code().unwrap_or(-1)
}

/// Whether `tool` runs here.
pub fn installed(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}
pub mod covefmt;
