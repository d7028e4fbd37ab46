//! `cove profile` of programs that wait: time a task spends parked in
//! `join` or `recv` is reported apart from running time, on the
//! instruction that waited, and stacks of time leave it out unless
//! `--idle` is given.
//!
//! Under `COVE_FAKE_CLOCK=1` every park counts one millisecond, so the
//! snapshots are exact. Whether a task parks at all is up to the threads;
//! the programs make it all but certain (the main task waits on a task
//! that runs hundreds of thousands of instructions first).

mod support;

use std::time::Instant;

use serde_json::Value;
use support::{cove, run, status, stderr, stdout};

const CONSUMER: &str = "cove_cli/tests/fixtures/waiting/consumer.cove";
const JOIN: &str = "cove_cli/tests/fixtures/waiting/join.cove";

/// The report of `cove profile ARGS`, the program's own output (which goes
/// before a table) cut off at its first line.
fn report(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let start = text.find("profile: ").unwrap_or(0);
    text[start..].to_string()
}

/// The JSON profile of `cove profile ARGS --format json`.
fn json(command: &mut std::process::Command) -> Value {
    let out = command.output().expect("cove runs");
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("the profile is JSON")
}

/// The instruction rows of a JSON profile whose text names `builtin`.
fn rows_calling<'a>(profile: &'a Value, builtin: &str) -> Vec<&'a Value> {
    profile["instructions"]
        .as_array()
        .expect("instructions")
        .iter()
        .filter(|row| row["text"].as_str().is_some_and(|t| t.contains(builtin)))
        .collect()
}

fn figure(cost: &Value, name: &str) -> u64 {
    cost[name].as_u64().unwrap_or(0)
}

#[test]
fn a_consumers_waits_are_on_its_recv_row_and_in_the_header() {
    let table = report(&["profile", "--by", "instruction", "--top", "4", CONSUMER]);
    assert!(
        table.contains("blocked: 4,000,000 ns in 4 waits"),
        "{table}"
    );
    let recv = table
        .lines()
        .find(|l| l.contains("Channel.recv"))
        .expect("a recv row");
    assert!(recv.contains("4,000,000"), "{table}");
    insta::assert_snapshot!("consumer_by_instruction", table);
}

#[test]
fn a_join_of_a_slow_task_is_one_wait_on_the_join_summed_into_its_function_and_callee() {
    let by_function = report(&["profile", "--by", "function", JOIN]);
    assert!(by_function.contains("in 1 wait,"), "{by_function}");
    insta::assert_snapshot!("join_by_function", by_function);
    let by_callee = report(&["profile", "--by", "callee", JOIN]);
    let join = by_callee
        .lines()
        .find(|l| l.contains("Task.join"))
        .expect("a join row");
    assert!(join.contains("1,000,000"), "{by_callee}");
}

#[test]
fn a_program_that_never_waits_has_no_blocked_column() {
    let table = report(&["profile", "examples/fib.cove", "10"]);
    assert!(!table.contains("blocked"), "{table}");
}

#[test]
fn folded_stacks_of_time_leave_blocked_time_out_unless_idle_is_given() {
    let folded = |idle: bool| {
        let mut args = vec!["profile", "--format", "folded", "--metric", "nanos"];
        if idle {
            args.push("--idle");
        }
        args.push(CONSUMER);
        let out = run(&args);
        assert_eq!(status(&out), 0, "{}", stderr(&out));
        stdout(&out)
    };
    let working = folded(false);
    let idle = folded(true);
    assert!(!working.contains("(blocked)"), "{working}");
    assert!(idle.contains("consumer.main;(blocked) 4000000\n"), "{idle}");
    // The running time is the same either way: --idle only adds.
    let without: Vec<&str> = idle.lines().filter(|l| !l.contains("(blocked)")).collect();
    assert_eq!(without, working.lines().collect::<Vec<_>>());
    insta::assert_snapshot!("consumer_folded_idle", idle);
    // A flame graph drawn with --idle has the frame too.
    let out = run(&[
        "profile", "--format", "svg", "--metric", "nanos", "--idle", CONSUMER,
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("(blocked)"));
}

#[test]
fn the_json_profile_keeps_blocked_time_on_the_row_the_task_and_the_total() {
    let profile =
        json(cove(&["profile", "--format", "json", CONSUMER]).env("COVE_FAKE_CLOCK", "1"));
    let recv = rows_calling(&profile, "Channel.recv");
    assert_eq!(recv.len(), 1);
    assert_eq!(figure(&recv[0]["cost"], "blocked"), 4_000_000);
    assert_eq!(figure(&profile["total"], "blocked"), 4_000_000);
    assert_eq!(profile["tasks"][0]["waits"], 4);
    // A row that never waited says nothing of it.
    let others = profile["instructions"].as_array().expect("instructions");
    assert!(
        others
            .iter()
            .filter(|row| !row["text"].as_str().unwrap_or("").contains("Channel.recv"))
            .all(|row| row["cost"].get("blocked").is_none())
    );
}

#[test]
fn under_the_real_clock_the_wait_is_not_also_running_time() {
    let started = Instant::now();
    let profile = json(
        cove(&["profile", "--clock", "real", "--format", "json", JOIN])
            .env_remove("COVE_FAKE_CLOCK"),
    );
    let wall = started.elapsed().as_nanos() as u64;
    let join = rows_calling(&profile, "Task.join");
    assert_eq!(join.len(), 1);
    let (running, blocked) = (
        figure(&join[0]["cost"], "nanos"),
        figure(&join[0]["cost"], "blocked"),
    );
    assert!(blocked > 0, "the join waited: {}", join[0]);
    assert!(
        running < blocked,
        "the join's running time ({running} ns) is not its wait ({blocked} ns)"
    );
    // The run's intervals and its waits lie one after the other inside the
    // process's wall time; counting the wait as running too would count
    // the longest part of the run twice.
    let total = figure(&profile["total"], "nanos") + figure(&profile["total"], "blocked");
    assert!(
        total <= wall,
        "running {} + blocked {} ns is more than the {wall} ns the process took",
        figure(&profile["total"], "nanos"),
        figure(&profile["total"], "blocked")
    );
}

#[test]
fn under_the_default_clock_the_wait_shows_as_blocked() {
    let profile =
        json(cove(&["profile", "--format", "json", CONSUMER]).env_remove("COVE_FAKE_CLOCK"));
    assert_eq!(profile["clock"], "sampled");
    let recv = rows_calling(&profile, "Channel.recv");
    assert!(figure(&recv[0]["cost"], "blocked") > 0, "{}", recv[0]);
    assert!(figure(&profile["total"], "blocked") > 0);
}

#[test]
fn clock_none_shows_no_time_blocked_or_running_but_its_json_keeps_the_waits() {
    let out = cove(&["profile", "--clock", "none", "--by", "callee", CONSUMER])
        .env_remove("COVE_FAKE_CLOCK")
        .output()
        .expect("cove runs");
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let table = stdout(&out);
    assert!(!table.contains("blocked"), "{table}");
    assert!(!table.contains("nanos"), "{table}");
    let profile = json(
        cove(&["profile", "--clock", "none", "--format", "json", CONSUMER])
            .env_remove("COVE_FAKE_CLOCK"),
    );
    assert!(figure(&profile["total"], "blocked") > 0);
}
