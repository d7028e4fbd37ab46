//! Running the built `cove` binary the way a user does.
//!
//! Every test runs the real executable from the workspace root, so paths in
//! the output read `examples/fib.cove` as they do in the docs, with colour
//! off and the profiler's deterministic clock on, so outputs are stable
//! enough to snapshot.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
