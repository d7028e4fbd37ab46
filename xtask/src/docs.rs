//! `cargo xtask docs [--bless]`: the pasted command outputs of the docs.
//!
//! The check itself is a test, `cove_cli/tests/docs.rs`, so that `cargo
//! test` (and so CI) runs it with everything else; this task only runs that
//! one test, with `COVE_DOCS_BLESS=1` for `--bless`, which makes the test
//! rewrite each marked block with what its commands print now instead of
//! failing. One implementation of "run the commands and compare", not two.

use std::process::{Command, ExitCode};

/// Runs the docs test, blessing the docs if `bless`.
pub fn run(bless: bool) -> ExitCode {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.args(["test", "-p", "cove_cli", "--test", "docs"]);
    if bless {
        command.env("COVE_DOCS_BLESS", "1");
    }
    match command.status() {
        Ok(status) if status.success() => {
            if bless {
                eprintln!(
                    "docs: every marked block now holds what its commands print; review `git diff`"
                );
            }
            ExitCode::SUCCESS
        }
        Ok(_) => ExitCode::FAILURE,
        Err(why) => {
            eprintln!("docs: cannot run cargo: {why}");
            ExitCode::FAILURE
        }
    }
}
