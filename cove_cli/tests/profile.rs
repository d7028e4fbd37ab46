//! `cove profile` and `cove diff`, run as a user runs them, with every
//! format checked by a reader other than the profiler itself: serde_json
//! for JSON, inferno for folded stacks, callgrind_annotate for callgrind.

mod support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use support::{cove, run, status, stderr, stdout};

/// A path in a fresh temporary folder.
fn temp(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join(name);
    (dir, path)
}

#[test]
fn the_table_names_the_hot_function_after_the_programs_own_output() {
    let out = run(&["profile", "examples/fib.cove", "15"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("fib(15) = 610\n"), "{text}");
    let table = &text["fib(15) = 610\n".len()..];
    let first_row = table
        .lines()
        .find(|l| l.contains("fib."))
        .expect("a row naming a function");
    assert!(first_row.contains("fib.fib"), "{table}");
    insta::assert_snapshot!("fib_table", table);
}

#[test]
fn every_grouping_makes_a_table() {
    for by in [
        "instruction",
        "function",
        "opcode",
        "callee",
        "line",
        "call",
        "task",
    ] {
        let out = run(&[
            "profile",
            "--by",
            by,
            "--top",
            "5",
            "examples/fib.cove",
            "10",
        ]);
        assert_eq!(status(&out), 0, "{by}: {}", stderr(&out));
        assert!(stdout(&out).lines().count() > 3, "{by}: {}", stdout(&out));
    }
}

#[test]
fn the_instruction_table_names_an_instruction_of_fib() {
    let out = run(&[
        "profile",
        "--by",
        "instruction",
        "--top",
        "3",
        "examples/fib.cove",
        "15",
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("fib.fib@"), "{}", stdout(&out));
}

#[test]
fn the_json_profile_parses_and_the_programs_output_moves_to_stderr() {
    let out = run(&["profile", "--format", "json", "examples/fib.cove", "12"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("stdout is JSON");
    assert!(json.is_object(), "{json}");
    assert!(stderr(&out).contains("fib(12) = 144"), "{}", stderr(&out));
}

#[test]
fn with_an_output_file_stdout_is_the_programs_alone() {
    let (_dir, path) = temp("fib.json");
    let out = run(&[
        "profile",
        "--format",
        "json",
        "-o",
        path.to_str().expect("a UTF-8 path"),
        "examples/fib.cove",
        "12",
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "fib(12) = 144\n");
    let text = std::fs::read_to_string(&path).expect("the report");
    serde_json::from_str::<serde_json::Value>(&text).expect("the file is JSON");
}

#[test]
fn without_format_the_output_files_name_chooses_it_and_an_explicit_format_wins() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let write = |name: &str, flags: &[&str]| -> Vec<u8> {
        let path = dir.path().join(name);
        let mut argv = vec!["profile"];
        argv.extend_from_slice(flags);
        argv.extend([
            "-o",
            path.to_str().expect("a UTF-8 path"),
            "examples/fib.cove",
            "12",
        ]);
        let out = run(&argv);
        assert_eq!(status(&out), 0, "{name}: {}", stderr(&out));
        std::fs::read(&path).expect("the report")
    };
    let json = write("before.json", &[]);
    let json: serde_json::Value = serde_json::from_slice(&json).expect("before.json is JSON");
    assert!(json["instructions"].is_array(), "cove's own JSON: {json}");
    let speedscope = write("fib.speedscope.json", &[]);
    let speedscope: serde_json::Value =
        serde_json::from_slice(&speedscope).expect("speedscope's JSON");
    assert!(
        speedscope["$schema"]
            .as_str()
            .unwrap_or("")
            .contains("speedscope")
    );
    let svg = String::from_utf8(write("fib.svg", &[])).expect("text");
    assert!(svg.contains("<svg"), "{svg}");
    let callgrind = String::from_utf8(write("callgrind.out.fib", &[])).expect("text");
    assert!(callgrind.contains("events:"), "{callgrind}");
    let pprof = write("fib.pb.gz", &[]);
    assert_eq!(pprof[..2], [0x1f, 0x8b], "gzip's magic");
    let table = String::from_utf8(write("fib.txt", &[])).expect("text");
    assert!(
        table.starts_with("profile: "),
        "a name that says nothing keeps the table: {table}"
    );
    let forced = String::from_utf8(write("forced.json", &["--format", "folded"])).expect("text");
    assert!(
        forced.lines().all(|l| l.contains(' ')) && !forced.starts_with('{'),
        "{forced}"
    );
}

#[test]
fn folded_stacks_are_real_call_stacks() {
    let out = run(&["profile", "--format", "folded", "examples/fib.cove", "10"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let folded = stdout(&out);
    assert!(
        folded.contains("fib.main;fib.fib;fib.fib;fib.fib"),
        "{folded}"
    );
    for line in folded.lines() {
        let (stack, count) = line.rsplit_once(' ').expect("`stack count`");
        assert!(!stack.is_empty(), "{line}");
        count.parse::<u64>().expect("a count");
    }
}

#[test]
fn inferno_draws_a_flame_graph_from_the_folded_stacks() {
    let out = run(&["profile", "--format", "folded", "examples/fib.cove", "10"]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let folded = stdout(&out);
    let mut options = inferno::flamegraph::Options::default();
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, folded.lines(), &mut svg)
        .expect("inferno accepts the folded stacks");
    assert!(String::from_utf8_lossy(&svg).contains("fib.fib"));
}

#[test]
fn the_svg_is_a_flame_graph() {
    let (_dir, path) = temp("fib.svg");
    for metric in ["ran", "nanos", "words", "allocations"] {
        let out = run(&[
            "profile",
            "--format",
            "svg",
            "--metric",
            metric,
            "-o",
            path.to_str().expect("a UTF-8 path"),
            "examples/wordfreq.cove",
            "examples/wordfreq.txt",
        ]);
        assert_eq!(status(&out), 0, "{metric}: {}", stderr(&out));
        let svg = std::fs::read_to_string(&path).expect("the SVG");
        assert!(svg.contains("<svg"), "{metric}");
        assert!(svg.trim_end().ends_with("</svg>"), "{metric}");
    }
}

#[test]
fn callgrind_annotate_reads_the_callgrind_output() {
    if !support::installed("callgrind_annotate") {
        println!(
            "note: callgrind_annotate is not installed (apt-get install valgrind); \
             the callgrind output was not checked by it"
        );
        return;
    }
    let (_dir, path) = temp("callgrind.out.fib");
    let out = run(&[
        "profile",
        "--format",
        "callgrind",
        "-o",
        path.to_str().expect("a UTF-8 path"),
        "examples/fib.cove",
        "12",
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let annotated = std::process::Command::new("callgrind_annotate")
        .arg(&path)
        .output()
        .expect("callgrind_annotate runs");
    let text = String::from_utf8_lossy(&annotated.stdout);
    assert!(
        annotated.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&annotated.stderr)
    );
    assert!(text.contains("fib.fib"), "{text}");
}

#[test]
fn a_runtime_error_still_writes_the_profile_of_what_ran() {
    let (_dir, path) = temp("fails.json");
    let out = run(&[
        "profile",
        "--format",
        "json",
        "-o",
        path.to_str().expect("a UTF-8 path"),
        "examples/fails.cove",
    ]);
    assert_eq!(status(&out), 70);
    assert!(stderr(&out).contains("fails.average"), "{}", stderr(&out));
    let text = std::fs::read_to_string(&path).expect("the report was written");
    assert!(text.contains("fails.average"), "{text}");
}

#[test]
fn ctrl_c_ends_a_profiled_run_and_the_profile_is_still_written() {
    let (_dir, path) = temp("forever.folded");
    let mut child = cove(&[
        "profile",
        "--format",
        "folded",
        "--fuel",
        "20000000000",
        "-o",
        path.to_str().expect("a UTF-8 path"),
        "cove_cli/tests/fixtures/forever.cove",
    ])
    .stderr(Stdio::piped())
    .stdout(Stdio::null())
    .spawn()
    .expect("cove starts");
    let mut err = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    err.read_line(&mut line).expect("a line");
    assert_eq!(line, "started\n");
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).expect("stderr");
    assert_eq!(child.wait().expect("it ends").code(), Some(130), "{rest}");
    let folded = std::fs::read_to_string(&path).expect("the profile was written");
    assert!(folded.contains("forever.main"), "{folded}");
}

#[test]
fn follow_tasks_profiles_the_spawned_workers_too() {
    let alone = run(&["profile", "--format", "folded", "examples/channels.cove"]);
    let followed = run(&[
        "profile",
        "--format",
        "folded",
        "--follow-tasks",
        "examples/channels.cove",
    ]);
    assert_eq!(status(&alone), 0, "{}", stderr(&alone));
    assert_eq!(status(&followed), 0, "{}", stderr(&followed));
    assert!(
        !stdout(&alone).contains("channels.worker"),
        "{}",
        stdout(&alone)
    );
    assert!(
        stdout(&followed).contains("channels.worker"),
        "{}",
        stdout(&followed)
    );
}

#[test]
fn diff_of_two_profiles_shows_what_changed() {
    let (dir, before) = temp("before.json");
    let after = dir.path().join("after.json");
    for (path, n) in [(&before, "10"), (&after, "12")] {
        let out = run(&[
            "profile",
            "--format",
            "json",
            "-o",
            path.to_str().expect("a UTF-8 path"),
            "examples/fib.cove",
            n,
        ]);
        assert_eq!(status(&out), 0, "{}", stderr(&out));
    }
    let (before, after) = (
        before.to_str().expect("a UTF-8 path"),
        after.to_str().expect("a UTF-8 path"),
    );
    // fib(10) and fib(12) are one program on two workloads: refused...
    let refused = run(&["diff", before, after]);
    assert_eq!(status(&refused), 2, "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("different arguments") && stderr(&refused).contains("--force"),
        "{}",
        stderr(&refused)
    );
    assert!(stdout(&refused).is_empty(), "{}", stdout(&refused));
    // ...unless asked.
    let out = run(&["diff", "--force", before, after]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).starts_with("verdict: "), "{}", stdout(&out));
    assert!(stdout(&out).contains("fib.fib"), "{}", stdout(&out));
}

#[test]
fn diff_of_two_versions_of_the_story_in_two_files_pairs_their_entry_modules() {
    let (dir, before) = temp("bytes.json");
    let after = dir.path().join("split.json");
    for (path, version) in [(&before, "bytes"), (&after, "split")] {
        let out = run(&[
            "profile",
            "--format",
            "json",
            "-o",
            path.to_str().expect("a UTF-8 path"),
            &format!("cove_profile/examples/story/search_{version}.cove"),
        ]);
        assert_eq!(status(&out), 0, "{}", stderr(&out));
    }
    let out = run(&[
        "diff",
        "--top",
        "3",
        before.to_str().expect("a UTF-8 path"),
        after.to_str().expect("a UTF-8 path"),
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let mut lines = text.lines();
    let verdict = lines.next().unwrap_or_default();
    assert!(
        verdict.starts_with("verdict: ") && verdict.contains("instructions ×0.122"),
        "{text}"
    );
    assert_eq!(
        lines.next(),
        Some("paired: entry module `search_split` (after) is read as `search_bytes` (before)"),
        "{text}"
    );
    assert!(text.contains("search_bytes.has_fox"), "{text}");
    assert!(!text.contains("search_split.has_fox"), "{text}");
    // Under the stepping clock every instruction costs exactly its floor,
    // so nothing is left to estimate: the verdict says so, and the counts
    // and heap figures are the ones docs/PROFILING.md shows.
    assert!(verdict.contains("too little time"), "{text}");
    insta::assert_snapshot!("story_diff", text);
}

#[test]
fn diff_of_two_different_programs_is_refused_with_a_usage_status() {
    let (dir, fib) = temp("fib.json");
    let channels = dir.path().join("channels.json");
    for (path, program) in [
        (&fib, "examples/fib.cove"),
        (&channels, "examples/channels.cove"),
    ] {
        let out = run(&[
            "profile",
            "--follow-tasks",
            "--format",
            "json",
            "-o",
            path.to_str().expect("a UTF-8 path"),
            program,
        ]);
        assert_eq!(status(&out), 0, "{}", stderr(&out));
    }
    let (fib, channels) = (
        fib.to_str().expect("a UTF-8 path"),
        channels.to_str().expect("a UTF-8 path"),
    );
    // Each has a main (paired) and one other function: one of three in
    // common.
    let refused = run(&["diff", fib, channels]);
    assert_eq!(status(&refused), 2, "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("two different programs"),
        "{}",
        stderr(&refused)
    );
    let forced = run(&["diff", "--force", fib, channels]);
    assert_eq!(status(&forced), 0, "{}", stderr(&forced));
}

#[test]
fn diff_of_a_file_that_is_not_a_profile_is_an_error_naming_it() {
    let out = run(&["diff", "examples/hello.cove", "examples/fib.cove"]);
    assert_ne!(status(&out), 0);
    assert!(
        stderr(&out).contains("examples/hello.cove"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_html_page_of_a_run_with_several_tasks_has_a_section_per_task() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("channels.html");
    let out = run(&[
        "profile",
        "--format",
        "html",
        "--follow-tasks",
        "-o",
        page.to_str().unwrap(),
        "examples/channels.cove",
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("id=\"task-0\""), "the main task's section");
    assert!(html.contains("id=\"task-1\""), "a spawned task's section");
}

#[test]
fn with_follow_tasks_the_table_by_task_has_a_row_a_task_and_the_folded_stacks_a_root_a_task() {
    let table = run(&[
        "profile",
        "--follow-tasks",
        "--by",
        "task",
        "examples/channels.cove",
    ]);
    assert_eq!(status(&table), 0, "{}", stderr(&table));
    let text = stdout(&table);
    for row in ["task 0", "task 1", "task 2"] {
        assert!(text.contains(row), "{row}: {text}");
    }
    assert!(text.contains("channels.worker"), "{text}");
    let folded = run(&[
        "profile",
        "--follow-tasks",
        "--format",
        "folded",
        "examples/channels.cove",
    ]);
    assert_eq!(status(&folded), 0, "{}", stderr(&folded));
    let lines = stdout(&folded);
    assert!(lines.lines().all(|l| l.starts_with("task ")), "{lines}");
    assert!(lines.contains("task 0;channels.main"), "{lines}");
    assert!(lines.contains("task 1;channels.worker"), "{lines}");
}

/// The JSON profile of the runaway recursion in `fixture`, ended by a
/// depth limit of 20,000: its size in bytes and its `stacks` entries,
/// which stand for at least the 20,000 levels.
fn runaway_profile(fixture: &str) -> (u64, Vec<serde_json::Value>) {
    let (_dir, path) = temp("runaway.json");
    let out = run(&[
        "profile",
        "--max-depth",
        "20000",
        "--format",
        "json",
        "-o",
        path.to_str().expect("a UTF-8 path"),
        fixture,
    ]);
    assert_eq!(status(&out), 126, "{}", stderr(&out));
    let bytes = std::fs::metadata(&path)
        .expect("the profile was written")
        .len();
    let text = std::fs::read_to_string(&path).expect("UTF-8");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let stacks = json["stacks"].as_array().expect("stacks").clone();
    let nodes: u64 = stacks
        .iter()
        .map(|entry| entry.get("repeat").and_then(|r| r.as_u64()).unwrap_or(1))
        .sum();
    assert!(nodes >= 20_000, "{nodes} nodes in {} entries", stacks.len());
    (bytes, stacks)
}

#[test]
fn a_runaway_recursion_ended_by_the_depth_limit_still_writes_a_small_json_profile_of_every_level() {
    let (bytes, _) = runaway_profile("cove_cli/tests/fixtures/runaway.cove");
    // Alike levels are one entry, and levels differ only where a sample
    // landed: well under a megabyte. A node a level was about 5 MB, whole
    // paths 20,000²/2 names, gigabytes.
    assert!(bytes < 1 << 20, "{bytes} bytes for 20,000 frames");
}

#[test]
fn a_runaway_mutual_recursion_ended_by_the_depth_limit_still_writes_a_small_json_profile() {
    let (bytes, stacks) = runaway_profile("cove_cli/tests/fixtures/runaway_cycle.cove");
    // The cycle's alike levels are one entry: a node a level, as before a
    // chain could repeat a cycle, was about 5 MB.
    assert!(bytes < 1 << 20, "{bytes} bytes for 20,000 frames");
    assert!(
        stacks.iter().any(|entry| entry.get("cycle").is_some()),
        "the levels are written as a cycle"
    );
}
