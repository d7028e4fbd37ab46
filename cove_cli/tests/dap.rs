//! `cove debug --dap` driven by a DAP client nobody on the project wrote:
//! `@vscode/debugadapter-testsupport`'s `DebugClient`, run by node on the
//! scenarios in `tests/dap/session.js`, over stdio and over `--port`.
//!
//! Node is needed: without it, outside CI, the tests say so and pass; in CI
//! (`CI=true`), where `.ci/run` installs it, they must run. The npm package
//! is installed with `npm ci` from the committed lock file when
//! `node_modules` is missing.

mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::{installed, root};

fn folder() -> PathBuf {
    root().join("cove_cli/tests/dap")
}

/// Whether node and the client package are there, installing the package
/// if need be; false (after a notice) when node is missing outside CI.
fn ready() -> bool {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if !installed("node") || !installed("npm") {
        assert!(!ci, "node and npm are needed in CI: .ci/run installs them");
        eprintln!("notice: node or npm is not installed; skipping the DAP client test");
        return false;
    }
    // The two tests run at once; one of them installs.
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _installing = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    if !folder()
        .join("node_modules/@vscode/debugadapter-testsupport")
        .is_dir()
    {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(folder())
            .status()
            .expect("npm runs");
        assert!(status.success(), "npm ci failed in {}", folder().display());
    }
    true
}

/// Waits for `child`, killing it if it is not done in `limit`: a guard
/// against a hung session, not a measurement.
fn finish(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    while child
        .try_wait()
        .expect("the child can be waited on")
        .is_none()
    {
        if start.elapsed() > limit {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("the child's output")
}

fn node(args: &[&str]) -> Child {
    Command::new("node")
        .arg("session.js")
        .args(args)
        .current_dir(folder())
        .env("COVE_BIN", env!("CARGO_BIN_EXE_cove"))
        .env("NO_COLOR", "1")
        .env("COVE_FAKE_CLOCK", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_real_dap_client_on_stdio_hits_a_breakpoint_reads_the_stack_and_steps_to_the_end() {
    if !ready() {
        return;
    }
    let out = finish(node(&["stdio"]), Duration::from_secs(180));
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    insta::assert_snapshot!("dap_stdio", text(&out.stdout));
}

#[test]
fn a_real_dap_client_on_a_port_stops_on_entry_at_a_function_and_on_pause() {
    if !ready() {
        return;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_cove"))
        .args(["debug", "--dap", "--port", &port.to_string()])
        .current_dir(root())
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cove starts");
    // It says so once it listens.
    let mut line = String::new();
    let stderr = server.stderr.take().expect("stderr is piped");
    BufReader::new(stderr)
        .read_line(&mut line)
        .expect("cove says where it listens");
    assert_eq!(
        line,
        format!("cove debug: serving DAP on 127.0.0.1:{port}\n")
    );
    let out = finish(node(&["port", &port.to_string()]), Duration::from_secs(180));
    let served = finish(server, Duration::from_secs(30));
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        served.status.success(),
        "the server ends when its client disconnects"
    );
    insta::assert_snapshot!("dap_port", text(&out.stdout));
    assert!(Path::new(&folder()).join("package-lock.json").is_file());
}
