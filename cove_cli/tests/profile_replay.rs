//! The replay: a sampled profile's total measured by running the program
//! again unwatched (`cove_cli/src/replay.rs`), as a user's `cove profile`
//! does it, with the real clocks (these tests are the ones that do not set
//! `COVE_FAKE_CLOCK`). What the figures are is `cargo xtask
//! profile-accuracy`'s to check against `cove run`; these check what the
//! replay is given and when it is made.

mod support;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use support::{root, status, stderr, stdout};

/// `cove profile --format json` with `flags` of the program and arguments
/// `words`, fed `input`, with the real clocks; gives the output and the
/// profile.
fn profile(flags: &[&str], words: &[&str], input: &str) -> (Output, serde_json::Value) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cove"))
        .arg("profile")
        .args(["--format", "json"])
        .args(flags)
        .args(words)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("COVE_FAKE_CLOCK")
        .env_remove("COVE_GC_STRESS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cove starts");
    let mut stdin = child.stdin.take().expect("a pipe");
    stdin
        .write_all(input.as_bytes())
        .expect("the input is written");
    drop(stdin);
    let out = child.wait_with_output().expect("cove ends");
    let json = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{e}: not a profile:\n{}\n{}", stdout(&out), stderr(&out)));
    (out, json)
}

/// A program in a fresh temporary folder.
fn program(source: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("program.cove");
    std::fs::write(&path, source).expect("the program is written");
    (dir, path.display().to_string())
}

#[test]
fn a_sampled_profiles_total_is_the_processor_time_of_its_unwatched_replay() {
    let (out, json) = profile(&[], &["examples/bench/fib.cove", "18"], "");
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let replay = &json["estimate"]["replay"];
    assert_eq!(replay["runs"].as_u64(), Some(1), "{replay}");
    let fastest = replay["fastest_nanos"].as_u64().expect("its fastest run");
    assert!(fastest <= replay["slowest_nanos"].as_u64().expect("its slowest"));
    // Each row is rounded to a nanosecond on its own.
    let total = json["total"]["nanos"].as_u64().expect("the total");
    let rows = json["instructions"].as_array().map_or(0, Vec::len) as u64;
    assert!(total.abs_diff(fastest) <= rows, "{total} against {fastest}");
    assert!(json["estimate"]["fitted"].as_f64().is_some(), "{json}");
    assert!(!stderr(&out).contains("not measured"), "{}", stderr(&out));
    // The replay's fields are the schema's.
    let schema: serde_json::Value =
        serde_json::from_str(cove_profile::report::JSON_SCHEMA).expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let complaints: Vec<String> = validator
        .iter_errors(&json)
        .map(|e| e.to_string())
        .collect();
    assert!(complaints.is_empty(), "{complaints:?}");
}

#[test]
fn the_table_says_its_time_was_measured_by_the_replay() {
    let out = Command::new(env!("CARGO_BIN_EXE_cove"))
        .args(["profile", "examples/bench/fib.cove", "18"])
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("COVE_FAKE_CLOCK")
        .output()
        .expect("cove runs");
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let header = text
        .lines()
        .find(|l| l.starts_with("time: "))
        .unwrap_or_else(|| panic!("no time line:\n{text}"));
    assert!(
        header.starts_with("time: measured, an unwatched run (")
            && header.contains("the calibration fitted to the run ×"),
        "{header}"
    );
}

#[test]
fn the_replay_reads_the_input_the_profiled_run_read() {
    // Without the same input the replay would run fewer instructions and
    // be refused as a run that went another way.
    let (_dir, path) = program(
        "export fn main() {\n  var total = 0\n  while true {\n    match read_line() {\n      \
         Some(line) => { total = total + line.length() }\n      None => { break }\n    }\n  }\n  \
         println(total)\n}\n",
    );
    let input: String = (0..2000).map(|i| format!("line {i}\n")).collect();
    let (out, json) = profile(&[], &[&path], &input);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(!stderr(&out).contains("not measured"), "{}", stderr(&out));
    assert!(
        json["estimate"]["replay"]["runs"].as_u64().is_some(),
        "{json}"
    );
}

#[test]
fn a_program_that_can_write_files_but_did_not_is_replayed_with_writes_refused() {
    // The write never happens, so the replay (which may not write) runs
    // the same path.
    let (_dir, path) = program(
        "export fn main() {\n  var s = 0\n  for i in 0..1000 { s = s + i }\n  \
         if s < 0 { write_file(\"never\", \"x\") }\n  println(s)\n}\n",
    );
    let (out, json) = profile(&[], &[&path], "");
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(
        json["estimate"]["replay"]["runs"].as_u64().is_some(),
        "{json}"
    );
    assert!(!stderr(&out).contains("note:"), "{}", stderr(&out));
}

#[test]
fn a_run_that_wrote_a_file_is_not_replayed_and_the_profile_says_why() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let written = dir.path().join("written.txt");
    let source = format!(
        "export fn main() {{\n  write_file(\"{}\", \"once\")\n  println(\"done\")\n}}\n",
        written.display()
    );
    let path = dir.path().join("writes.cove");
    std::fs::write(&path, source).expect("the program is written");
    let (out, json) = profile(&[], &[&path.display().to_string()], "");
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(json["estimate"]["replay"].is_null(), "{json}");
    assert!(
        stderr(&out).contains(
            "note: the total time is estimated from the samples, not measured by a replay: \
             the run wrote files"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&written).ok().as_deref(),
        Some("once")
    );
}

#[test]
fn no_replay_leaves_the_total_to_the_estimate_without_a_word() {
    let (out, json) = profile(&["--no-replay"], &["examples/bench/fib.cove", "18"], "");
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(json["estimate"]["replay"].is_null(), "{json}");
    assert!(json["estimate"]["samples"].as_u64().is_some(), "{json}");
    // The program's own output is on stderr, where a JSON report on
    // stdout sends it; nothing else is.
    assert_eq!(stderr(&out), "2584\n");
}

#[test]
fn a_run_that_fails_is_replayed_to_the_same_fault() {
    // The replay runs under the same limits, so it ends where the
    // profiled run did, on the same count of instructions.
    let (out, json) = profile(
        &["--fuel", "100000"],
        &["examples/bench/fib.cove", "25"],
        "",
    );
    assert_ne!(status(&out), 0);
    assert!(stderr(&out).contains("fuel"), "{}", stderr(&out));
    assert!(
        json["estimate"]["replay"]["runs"].as_u64().is_some(),
        "{json}"
    );
}

/// A main task that spawns a task of some tens of millions of
/// instructions and waits for it.
const SPAWNS: &str = "fn work(n: Int) -> Int {\n  var s = 0\n  for i in 0..n {\n    \
                      s = (s + i) % 1000003\n  }\n  s\n}\n\nexport fn main() {\n  \
                      let t = spawn work(20000000)\n  println(t.join())\n}\n";

/// The processor time of `cove bench-run --debugger off` of `path`: every
/// task's, and the main task's own.
fn bench_run_times(path: &str) -> (u64, u64) {
    let out = Command::new(env!("CARGO_BIN_EXE_cove"))
        .args(["bench-run", "--debugger", "off", "--quiet", path])
        .output()
        .expect("cove runs");
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let said = stderr(&out);
    let line = said
        .lines()
        .find_map(|l| l.strip_prefix("bench-run: "))
        .unwrap_or_else(|| panic!("no timing in {said}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let figure = |name: &str| -> u64 {
        let at = words.iter().position(|w| *w == name).expect(name);
        words[at + 1].parse().expect(name)
    };
    (figure("cpu"), figure("task"))
}

#[test]
#[cfg(unix)]
fn a_program_that_spawns_is_replayed_and_its_total_is_the_main_tasks_own_time() {
    let (_dir, path) = program(SPAWNS);
    let (out, json) = profile(&[], &[&path], "");
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(!stderr(&out).contains("not measured"), "{}", stderr(&out));
    let fastest = json["estimate"]["replay"]["fastest_nanos"]
        .as_u64()
        .unwrap_or_else(|| panic!("no replay: {json}"));
    // The spawned task's work is the process's, not the main task's: the
    // replay measured the main task alone, a small part of what the
    // process spends on the same program.
    let (process, _) = bench_run_times(&path);
    assert!(
        fastest * 4 < process,
        "the replay took {fastest} ns for the main task; the process spends {process} ns"
    );
    // And the main task's waiting is reported apart, as blocked.
    assert!(json["total"]["blocked"].as_u64().unwrap_or(0) > 0, "{json}");
}

#[test]
fn a_program_that_spawns_profiled_following_its_tasks_is_not_replayed_and_the_profile_says_why() {
    let (_dir, path) = program(SPAWNS);
    let (out, json) = profile(&["--follow-tasks"], &[&path], "");
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(json["estimate"]["replay"].is_null(), "{json}");
    assert!(
        stderr(&out).contains(
            "not measured by a replay: the profile follows the tasks the program spawns, \
             and a replay times only the main task"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
#[cfg(unix)]
fn bench_run_reports_the_main_tasks_time_apart_from_the_processs() {
    let (_dir, path) = program(SPAWNS);
    let (process, task) = bench_run_times(&path);
    assert!(
        task * 4 < process,
        "the main task ran {task} ns; the process {process} ns"
    );
}
