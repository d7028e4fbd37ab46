//! `cove profile --follow-tasks` under the default clock times spawned
//! tasks: each followed task's thread is sampled as task 0's is, so a
//! program whose work is all in a spawned task has that work's time on the
//! task's rows, not only its counts.

mod support;

use serde_json::Value;
use support::{cove, status, stderr};

/// Main spawns `slow` and joins it: all the work is task 1's.
const JOIN: &str = "cove_cli/tests/fixtures/waiting/join.cove";

/// The JSON profile of `cove profile ARGS --format json FILE` under the
/// real sampler (no fake clock).
fn profile(args: &[&str]) -> Value {
    let mut all = vec!["profile", "--format", "json"];
    all.extend(args);
    all.push(JOIN);
    let out = cove(&all)
        .env_remove("COVE_FAKE_CLOCK")
        .output()
        .expect("cove runs");
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("the profile is JSON")
}

fn task(profile: &Value, n: u64) -> &Value {
    profile["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .find(|t| t["task"] == n)
        .unwrap_or_else(|| panic!("task {n} in {}", profile["tasks"]))
}

#[test]
fn a_followed_tasks_work_is_timed_on_its_own_rows_under_the_default_clock() {
    let profile = profile(&["--follow-tasks"]);
    assert_eq!(profile["clock"], "sampled");
    let worker = task(&profile, 1);
    assert_eq!(worker["roots"][0], "join.slow");
    assert!(worker["total"]["ran"].as_u64().unwrap_or(0) > 1_000_000);
    assert!(
        worker["total"]["nanos"].as_u64().unwrap_or(0) > 0,
        "the worker's time: {worker}"
    );
    let slow = profile["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .find(|f| f["name"] == "join.slow")
        .expect("join.slow ran");
    assert!(slow["self"]["nanos"].as_u64().unwrap_or(0) > 0, "{slow}");
    assert!(
        profile["estimate"]["spawned_samples"].as_u64().unwrap_or(0) > 0,
        "{}",
        profile["estimate"]
    );
}

#[test]
fn without_follow_tasks_only_task_zero_is_profiled_and_no_spawned_task_sampled() {
    let profile = profile(&[]);
    assert_eq!(profile["tasks"].as_array().map(Vec::len), Some(1));
    assert_eq!(profile["estimate"]["spawned_samples"], 0);
}
