//! Every benchmark in `examples/bench/` that has a Lua twin prints what its
//! twin prints, at the small size its `// check: N` line names, so the
//! ratios `cargo xtask bench-peers` reports compare programs that do the
//! same work. Lua 5.4 is needed: without it, outside CI, the test says so
//! and passes; in CI (`CI=true`), where `.ci/run` installs it, it must run.
//! Every benchmark, twin or not, must name its check size and run at it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/bench")
}

/// The benchmark programs: every `.cove` file of the folder.
fn programs() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(bench_dir())
        .expect("examples/bench is there")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cove"))
        .collect();
    found.sort();
    found
}

/// The argument of the program's `// check: N` line.
fn check_size(program: &Path) -> String {
    let text = std::fs::read_to_string(program).expect("the program reads");
    text.lines()
        .find_map(|l| l.strip_prefix("// check: "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("{} has no `// check: N` line", program.display()))
        .to_string()
}

fn stdout_of(command: &mut Command) -> String {
    let output = command.output().expect("the command starts");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the output is UTF-8")
}

fn lua_installed() -> bool {
    Command::new("lua5.4")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn every_benchmark_prints_what_its_lua_twin_prints() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let lua = lua_installed();
    if !lua {
        assert!(!ci, "lua5.4 is needed in CI: .ci/run installs it");
        eprintln!("notice: lua5.4 is not installed; checking the Cove programs alone");
    }
    let mut twins = 0;
    for program in programs() {
        let size = check_size(&program);
        let cove = stdout_of(
            Command::new(env!("CARGO_BIN_EXE_cove"))
                .arg("run")
                .arg(&program)
                .arg(&size),
        );
        assert!(!cove.is_empty(), "{} printed nothing", program.display());
        let twin = program.with_extension("lua");
        if lua && twin.exists() {
            let answer = stdout_of(Command::new("lua5.4").arg(&twin).arg(&size));
            assert_eq!(
                cove,
                answer,
                "{} and its twin differ at {size}",
                program.display()
            );
            twins += 1;
        }
    }
    if lua {
        assert!(twins >= 13, "only {twins} twins were compared");
    }
}
