//! `cove debug` at a real terminal, driven under tmux: the line editor
//! (history with the up arrow), and Ctrl-C pausing a running program.
//!
//! tmux is needed: without it, outside CI, the tests say so and pass; in CI
//! (`CI=true`), where `.ci/run` installs it, they must run. Each test uses a
//! tmux server of its own (`-L`), so nothing else's sessions are touched.

mod support;

use std::process::Command;
use std::time::{Duration, Instant};

use support::root;

/// A tmux server and session of this test's own.
struct Tmux {
    socket: String,
    _alone: std::sync::MutexGuard<'static, ()>,
}

/// The tests take turns: two tmux servers started at once by one process
/// were seen to lose a Ctrl-C sent to one of them.
static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Tmux {
    /// Starts `cove debug FILE` in a detached 160×50 pane.
    fn start(name: &str, file: &str) -> Option<Tmux> {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        let present = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        if !present {
            assert!(!ci, "tmux is needed in CI: .ci/run installs it");
            eprintln!("notice: tmux is not installed; skipping the terminal test");
            return None;
        }
        let tmux = Tmux {
            socket: format!("cove-test-{}-{name}", std::process::id()),
            _alone: TURN.lock().unwrap_or_else(|e| e.into_inner()),
        };
        let command = format!(
            "cd {} && NO_COLOR=1 COVE_FAKE_CLOCK=1 {} debug {file}; sleep 30",
            root().display(),
            env!("CARGO_BIN_EXE_cove")
        );
        let started = tmux
            .run(&[
                "new-session",
                "-d",
                "-s",
                "t",
                "-x",
                "160",
                "-y",
                "50",
                &command,
            ])
            .status
            .success();
        assert!(started, "tmux starts a session");
        Some(tmux)
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend(keys);
        assert!(self.run(&args).status.success());
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    /// Waits until the pane shows `text` `count` times; a hang guard, not
    /// a measurement.
    fn wait_for(&self, text: &str, count: usize) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.matches(text).count() >= count {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "`{text}` never appeared {count} times:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

#[test]
fn a_terminal_session_edits_lines_and_recalls_history_with_the_up_arrow() {
    let Some(tmux) = Tmux::start("history", "cove_cli/tests/fixtures/debug/shapes.cove") else {
        return;
    };
    tmux.wait_for("(cove)", 1);
    tmux.keys(&["break square", "Enter"]);
    tmux.wait_for("Breakpoint 1 at shapes.square", 1);
    tmux.keys(&["continue", "Enter"]);
    tmux.wait_for("Breakpoint 1, shapes.square", 1);
    // A typo mended with the line editor: left, a backspace, the end.
    tmux.keys(&["prinnt n", "Left", "Left", "Left", "BSpace", "End", "Enter"]);
    tmux.wait_for("n: Int = 0", 1);
    tmux.keys(&["continue", "Enter"]);
    tmux.wait_for("Breakpoint 1, shapes.square", 2);
    // Up twice is `print n` again, from the history.
    tmux.keys(&["Up", "Up", "Enter"]);
    let screen = tmux.wait_for("n: Int = 1", 1);
    assert!(screen.contains("(cove) print n\nn: Int = 0"), "{screen}");
    tmux.keys(&["quit", "Enter"]);
}

#[test]
fn ctrl_c_pauses_a_running_program_and_the_prompt_comes_back() {
    let Some(tmux) = Tmux::start("pause", "cove_cli/tests/fixtures/forever.cove") else {
        return;
    };
    tmux.wait_for("(cove)", 1);
    tmux.keys(&["continue", "Enter"]);
    tmux.wait_for("started", 1);
    tmux.keys(&["C-c"]);
    let screen = tmux.wait_for("Paused in forever.main", 1);
    assert!(screen.contains("forever.cove:"), "{screen}");
    tmux.keys(&["print i >= 0", "Enter"]);
    tmux.wait_for("i >= 0: Bool = true", 1);
    tmux.keys(&["quit", "Enter"]);
}
