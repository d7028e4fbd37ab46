//! The reliability rows of issue 16 rerun through the built `cove` binary,
//! each from its reproducer, as a user would meet them: a clean error with
//! the documented exit status, the output written before the fault intact,
//! and Ctrl-C answered inside long work. `docs/RELIABILITY.md` maps each row
//! to its tests here and in the crates.
//!
//! The sizes are the reproducers' where a debug build runs them in a few
//! seconds, and smaller (said at each test) where not; no test reads a
//! clock. An interrupt test sends its SIGINT once the program has said it
//! is ready (by writing a file) and the long work is all that is left, so
//! where the run stops, and with which status, does not depend on timing.

mod support;
use support::{run, status, stderr, stdout};

use std::path::Path;
use std::process::{Child, Output, Stdio};

/// Runs `cove` with the arguments `args` (a command line, split by the
/// shell) in a process of at most `kilobytes` of address space
/// (`ulimit -v`), from the repository's root.
fn run_in_address_space(kilobytes: u32, args: &str) -> Output {
    let cove = env!("CARGO_BIN_EXE_cove");
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kilobytes} && exec {cove} {args}"))
        .current_dir(support::root())
        .env("NO_COLOR", "1")
        .output()
        .expect("sh runs")
}

#[test]
fn a_main_returning_101_exits_64_and_says_what_it_returned() {
    let out = run(&["run", "cove_cli/tests/fixtures/rel/status_101.cove"]);
    assert_eq!(status(&out), 64, "{}", stderr(&out));
    assert_eq!(stdout(&out), "about to return 101\n");
    assert_eq!(
        stderr(&out),
        "cove: main returned status 101, outside 0..=63 (the statuses a program may use); \
         exiting with 64\n"
    );
}

#[test]
fn an_exit_with_a_status_of_coves_own_exits_64_instead() {
    let out = run(&["run", "cove_cli/tests/fixtures/rel/exit_128.cove"]);
    assert_eq!(status(&out), 64, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("exit with status 128"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn hello_to_dev_full_exits_with_the_io_status_and_says_why() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens");
    let out = support::cove(&["run", "examples/hello.cove"])
        .stdout(full)
        .output()
        .expect("cove runs");
    assert_eq!(status(&out), 74, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot write the program's output: No space left on device"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_printing_loop_to_dev_full_stops_with_the_io_status() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens");
    let out = support::cove(&["run", "cove_cli/tests/fixtures/chatter.cove"])
        .stdout(full)
        .output()
        .expect("cove runs");
    assert_eq!(status(&out), 74, "{}", stderr(&out));
}

#[test]
fn two_ctrl_cs_in_a_row_exit_130_with_the_buffered_output_written() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ready = dir.path().join("ready");
    let ready_arg = ready.display().to_string();
    let mut child = support::cove(&[
        "run",
        "cove_cli/tests/fixtures/rel/started_then_waits.cove",
        &ready_arg,
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("cove starts");
    wait_for(&ready, &mut child);
    for _ in 0..2 {
        signal("-INT", &child.id().to_string());
    }
    let out = child.wait_with_output().expect("it ends");
    assert_eq!(status(&out), 130, "{}", stderr(&out));
    // However the two presses were taken (the run stopped by the first, or
    // the second exiting at once), the line printed before is there.
    assert_eq!(stdout(&out), "started\n", "{}", stderr(&out));
}

#[test]
fn a_hoarder_under_a_small_address_space_ends_with_the_heap_status_and_its_output_intact() {
    // 500 MB of address space: less than the default heap bound needs, so
    // the host runs out first, and that must be an error, not an abort.
    let out = run_in_address_space(
        500000,
        "run cove_cli/tests/fixtures/rel/hoard_after_output.cove",
    );
    assert_eq!(status(&out), 125, "{}", stderr(&out));
    assert_eq!(stdout(&out), "before the hoard\n");
    assert!(
        stderr(&out).contains("error: out of memory"),
        "{}",
        stderr(&out)
    );
}

/// Row 2: a recursion whose frames hold 200 registers each, under
/// `--max-heap 1000000`: the register stack counts against the bound, so
/// the run ends with the heap status long before the depth limit.
#[test]
fn a_deep_recursion_of_big_frames_ends_with_the_heap_status_under_max_heap() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let lets: String = (0..200)
        .map(|i| format!("  let a{i} = n + {i}\n"))
        .collect();
    let sum: String = (0..200).map(|i| format!(" + a{i}")).collect();
    let file = dir.path().join("deep.cove");
    std::fs::write(
        &file,
        format!(
            "fn deep(n: Int) -> Int {{\n{lets}  if n == 0 {{\n    return 0\n  }}\n  deep(n - 1){sum}\n}}\n\n\
             fn main() -> Int {{\n  println(\"recursing\")\n  deep(50000)\n}}\n"
        ),
    )
    .expect("the program is written");
    let out = run(&["run", "--max-heap", "1000000", &file.display().to_string()]);
    assert_eq!(status(&out), 125, "{}", stderr(&out));
    assert_eq!(stdout(&out), "recursing\n");
    assert!(
        stderr(&out).starts_with("error: the heap grew past its limit of 1000000 words"),
        "{}",
        stderr(&out)
    );
}

/// Row 4: on a terminal (a pseudo-terminal from `script`), the line a long
/// run prints first is on the screen while it runs. The run is then killed
/// with SIGKILL, which no flush survives, so the line is there only if it
/// was written when it was printed.
#[test]
fn on_a_terminal_a_line_is_shown_while_the_run_goes_on() {
    // `script` is util-linux's (Debian's bsdutils, always installed): a
    // machine without it skips, but CI must run this.
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        assert!(!ci, "script (util-linux) is needed in CI");
        eprintln!("notice: script is not installed; skipping the terminal test");
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ready = dir.path().join("ready");
    let pid_file = dir.path().join("pid");
    let command = format!(
        "echo $$ > {pid} && exec {cove} run cove_cli/tests/fixtures/rel/started_then_spins.cove {ready}",
        pid = pid_file.display(),
        cove = env!("CARGO_BIN_EXE_cove"),
        ready = ready.display(),
    );
    let mut child = std::process::Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .current_dir(support::root())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs");
    wait_for(&ready, &mut child);
    let pid = std::fs::read_to_string(&pid_file).expect("the shell wrote its pid");
    signal("-KILL", pid.trim());
    let out = child.wait_with_output().expect("script ends");
    let shown = stdout(&out);
    assert!(shown.contains("started"), "the terminal showed {shown:?}");
}

/// Waits until the program has written `ready`, or fails if it ended
/// first (it did not compile, say), so that a broken fixture fails the
/// test rather than hanging it.
fn wait_for(ready: &Path, child: &mut Child) {
    while !ready.exists() {
        if let Ok(Some(ended)) = child.try_wait() {
            panic!("the program ended ({ended}) before it was ready");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Sends `signal` (as `kill` spells it: `-INT`) to the process `pid`,
/// with the shell's own `kill`, which every `sh` has.
fn signal(signal: &str, pid: &str) {
    let sent = std::process::Command::new("sh")
        .args(["-c", "kill \"$1\" \"$2\"", "sh", signal, pid])
        .status()
        .expect("sh runs");
    assert!(sent.success(), "kill {signal} {pid}");
}

/// Runs `cove run FIXTURE READY`, sends one Ctrl-C (SIGINT) once the
/// program has written `READY`, and gives what it did.
fn interrupted_when_ready(fixture: &str) -> Output {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ready = dir.path().join("ready");
    let ready_arg = ready.display().to_string();
    let mut child = support::cove(&["run", fixture, &ready_arg])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cove starts");
    wait_for(&ready, &mut child);
    signal("-INT", &child.id().to_string());
    child.wait_with_output().expect("it ends")
}

/// Row 5: a Ctrl-C during a sort of 300,000 strings (3,000,000 in the
/// issue; a tenth keeps a debug build's run short) is answered inside the
/// sort, at its line, with the interrupted status and the line printed
/// before it.
#[test]
fn a_ctrl_c_during_a_long_sort_exits_130_at_the_sorts_line() {
    let out = interrupted_when_ready("cove_cli/tests/fixtures/rel/sort_after_ready.cove");
    assert_eq!(status(&out), 130, "{}", stderr(&out));
    assert_eq!(stdout(&out), "sorting\n");
    assert!(
        stderr(&out).starts_with("interrupted: Ctrl-C stopped the run here"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains(
            "at sort_after_ready.main (cove_cli/tests/fixtures/rel/sort_after_ready.cove:11)"
        ),
        "{}",
        stderr(&out)
    );
}

/// Row 5: a Ctrl-C while a spawn's argument (400,000 strings) is copied
/// into the task's heap is answered inside the copy, at the spawn's line.
#[test]
fn a_ctrl_c_during_a_spawn_arguments_deep_copy_exits_130_at_the_spawns_line() {
    let out = interrupted_when_ready("cove_cli/tests/fixtures/rel/deep_copy_after_ready.cove");
    assert_eq!(status(&out), 130, "{}", stderr(&out));
    assert_eq!(stdout(&out), "copying\n");
    assert!(
        stderr(&out).contains(
            "at deep_copy_after_ready.main (cove_cli/tests/fixtures/rel/deep_copy_after_ready.cove:22)"
        ),
        "{}",
        stderr(&out)
    );
}

/// Row 5: a Ctrl-C while `cove profile` writes a JSON report exits at once
/// with the interrupted status. The report goes to a named pipe that the
/// test opens and reads one byte of, so the run is over and the report is
/// being written, and then reads no more: the report is larger than the
/// pipe holds, so without the exit `cove` would wait on the write forever.
#[test]
fn a_ctrl_c_while_a_json_profile_is_written_exits_130_with_the_output_intact() {
    use std::io::Read;
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Two hundred functions, each called once: a report of about half a
    // megabyte, eight times what a pipe holds.
    let functions: String = (0..200)
        .map(|i| format!("fn f{i}(x: Int) -> Int {{\n  x + {i}\n}}\n\n"))
        .collect();
    let calls: String = (0..200).map(|i| format!("  s += f{i}(s % 7)\n")).collect();
    let file = dir.path().join("many.cove");
    std::fs::write(
        &file,
        format!(
            "{functions}fn main() -> Int {{\n  println(\"ran\")\n  var s = 0\n{calls}  0\n}}\n"
        ),
    )
    .expect("the program is written");
    let fifo = dir.path().join("report.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let child = support::cove(&[
        "profile",
        "--format",
        "json",
        "-o",
        &fifo.display().to_string(),
        &file.display().to_string(),
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("cove starts");
    let pid = child.id().to_string();
    // Once `cove` has ended, the waiter opens the pipe for writing itself:
    // that lets the open below return (and its read fail) if `cove` ended
    // before it opened the pipe, rather than waiting for ever.
    let pipe = fifo.clone();
    let waiter = std::thread::spawn(move || {
        let out = child.wait_with_output().expect("it ends");
        drop(std::fs::OpenOptions::new().write(true).open(&pipe));
        out
    });
    let mut report = std::fs::File::open(&fifo).expect("the pipe opens");
    let mut first = [0u8; 1];
    let started = report.read_exact(&mut first);
    if started.is_ok() {
        signal("-INT", &pid);
    }
    let out = waiter.join().expect("the waiter");
    drop(report);
    assert!(started.is_ok(), "no report: {}", stderr(&out));
    assert_eq!(&first, b"{");
    assert_eq!(status(&out), 130, "{}", stderr(&out));
    assert_eq!(stdout(&out), "ran\n");
    assert!(
        stderr(&out).contains("cove: interrupted"),
        "{}",
        stderr(&out)
    );
}

/// Writes a program of `n` functions, each called once by `main`, which
/// then runs `tail` (Cove statements), to `dir/many.cove`; gives its path.
fn many_functions(dir: &Path, n: usize, tail: &str) -> String {
    let functions: String = (0..n)
        .map(|i| format!("fn f{i}(x: Int) -> Int {{\n  x + {i}\n}}\n\n"))
        .collect();
    let calls: String = (0..n).map(|i| format!("  s += f{i}(s % 7)\n")).collect();
    let file = dir.join("many.cove");
    std::fs::write(
        &file,
        format!("{functions}fn main() -> Int {{\n  println(\"ran\")\n  var s = 0\n{calls}{tail}  0\n}}\n"),
    )
    .expect("the program is written");
    file.display().to_string()
}

/// The names of the files in `dir` that a report's temporary file would
/// have (`.NAME.cove-PID.tmp`).
fn temporary_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("the directory reads")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.') && name.ends_with(".tmp"))
        .collect()
}

/// A report whose write fails (here a file size limit of 8 KiB,
/// `ulimit -f 16`, for a report of about half a megabyte, with SIGXFSZ
/// ignored so that the write fails rather than the process being
/// killed) exits with the I/O status, says the report was not written,
/// and leaves the previous report at the path as it was, with no
/// temporary file beside it. Writing into the path directly truncated it
/// before the run and left the first 8 KiB of the new report.
#[test]
fn a_report_whose_write_fails_leaves_the_previous_report_as_it_was() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = many_functions(dir.path(), 200, "");
    let report = dir.path().join("report.json");
    std::fs::write(&report, "the previous report\n").expect("written");
    let cove = env!("CARGO_BIN_EXE_cove");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ && ulimit -f 16 && exec {cove} profile --clock none --format json -o {} {program}",
            report.display()
        ))
        .current_dir(support::root())
        .env("NO_COLOR", "1")
        .output()
        .expect("sh runs");
    assert_eq!(status(&out), 74, "{}", stderr(&out));
    assert_eq!(stdout(&out), "ran\n");
    assert!(
        stderr(&out).contains(&format!(
            "the report was not written; {} is left as it was",
            report.display()
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&report).expect("the report reads"),
        "the previous report\n"
    );
    assert_eq!(temporary_files(dir.path()), Vec::<String>::new());
}

/// A Ctrl-C while the report is rendered ends `cove` at once with
/// the interrupted status, says the report was not written, and leaves
/// the previous report as it was. The program loops once it is ready; the
/// first Ctrl-C stops it, and once `cove` has said so on stderr the run is
/// over and the report of 10,000 functions is being rendered, which the
/// second Ctrl-C interrupts. The render takes about four seconds in a
/// debug build (3,000 functions took 1.5 s), and the exit spares the test
/// all but the program's own run, so a test thread held off the processor
/// for seconds between reading the line and sending the signal is what it
/// would take to miss it.
#[test]
fn a_ctrl_c_while_a_report_is_rendered_leaves_the_previous_report_as_it_was() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ready = dir.path().join("ready");
    let program = many_functions(
        dir.path(),
        10_000,
        &format!(
            "  write_file(\"{}\", \"ready\")\n  while true {{\n    s += 1\n  }}\n",
            ready.display()
        ),
    );
    let report = dir.path().join("report.json");
    std::fs::write(&report, "the previous report\n").expect("written");
    let mut child = support::cove(&[
        "profile",
        "--format",
        "json",
        "-o",
        &report.display().to_string(),
        &program,
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("cove starts");
    wait_for(&ready, &mut child);
    let pid = child.id().to_string();
    signal("-INT", &pid);
    let mut errors = std::io::BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut said = String::new();
    while !said.contains("interrupted: Ctrl-C stopped the run") {
        let mut line = String::new();
        if errors.read_line(&mut line).expect("stderr reads") == 0 {
            break;
        }
        said.push_str(&line);
    }
    signal("-INT", &pid);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut errors, &mut rest).expect("stderr reads");
    said.push_str(&rest);
    let out = child.wait_with_output().expect("it ends");
    assert_eq!(status(&out), 130, "{said}");
    assert_eq!(stdout(&out), "ran\n");
    assert!(
        said.contains(&format!(
            "cove: interrupted twice; exiting now\n\
             cove: the report was not written; {} is left as it was\n",
            report.display()
        )),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(&report).expect("the report reads"),
        "the previous report\n"
    );
    assert_eq!(temporary_files(dir.path()), Vec::<String>::new());
}

/// A report that is written replaces the previous one whole; one
/// to a symbolic link replaces the file it links to and keeps the link;
/// `/dev/null` is written as it is rather than replaced by a file; and a
/// directory named as the report (one that is there, or a path ending in
/// `/`) fails before the run.
#[test]
fn a_written_report_replaces_the_previous_one_and_a_device_is_written_as_it_is() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = many_functions(dir.path(), 3, "");
    let report = dir.path().join("report.json");
    std::fs::write(&report, "the previous report\n").expect("written");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&report, &link).expect("the link is made");
    let profile_to = |path: &Path| {
        support::cove(&[
            "profile",
            "--format",
            "json",
            "-o",
            &path.display().to_string(),
            &program,
        ])
        .output()
        .expect("cove runs")
    };

    let out = profile_to(&link);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let written = std::fs::read_to_string(&report).expect("the report reads");
    assert!(
        written.starts_with("{\n  \"format\": \"cove-profile\""),
        "{written}"
    );
    assert!(written.trim_end().ends_with('}'), "{written}");
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("the link is there")
            .file_type()
            .is_symlink()
    );

    let out = profile_to(Path::new("/dev/null"));
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(
        !std::fs::metadata("/dev/null")
            .expect("/dev/null is there")
            .is_file()
    );

    let out = profile_to(dir.path());
    assert_eq!(status(&out), 74, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("it is a directory"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&out), "", "the program did not run");
    let out = profile_to(&dir.path().join("missing/"));
    assert_eq!(status(&out), 74, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("it names a directory"),
        "{}",
        stderr(&out)
    );
    assert_eq!(temporary_files(dir.path()), Vec::<String>::new());
}

/// Row 6: `--fuel` is the whole run's: ten tasks of 300,000 turns each
/// cannot share 1,000,000.
#[test]
fn ten_tasks_cannot_share_a_million_fuel_and_the_run_exits_124() {
    let out = run(&[
        "run",
        "--fuel",
        "1000000",
        "cove_cli/tests/fixtures/rel/tasks_share_fuel.cove",
    ]);
    assert_eq!(status(&out), 124, "{}", stderr(&out));
    assert_eq!(stdout(&out), "spawning ten tasks\n");
    assert!(
        stderr(&out).contains("out of fuel after 1000000 instructions"),
        "{}",
        stderr(&out)
    );
}

/// Row 6: `--max-heap` is the whole run's: twenty tasks holding 300,000
/// `Int`s each at once do not fit in 1,000,000 words.
#[test]
fn twenty_hoarding_tasks_pass_a_million_word_heap_bound_and_the_run_exits_125() {
    let out = run(&[
        "run",
        "--max-heap",
        "1000000",
        "cove_cli/tests/fixtures/rel/tasks_share_heap.cove",
    ]);
    assert_eq!(status(&out), 125, "{}", stderr(&out));
    assert_eq!(stdout(&out), "spawning twenty hoarders\n");
    assert!(
        stderr(&out).contains("the heap grew past its limit of 1000000 words"),
        "{}",
        stderr(&out)
    );
}

/// Row 6, the eighth campaign's finding 8: a chain of twenty tasks, each
/// splitting a string of 1,500,000 bytes into 4,500,000 words of
/// characters in one instruction, under a bound of 20,000,000 words. Each
/// heap alone is within the bound, and none collects before its split is
/// done, so the bound asked only after collections let the heaps grow
/// together to 3.4-4.6 GB (12 to 24 s in a release build) before one saw
/// it; a heap's growth is now counted against the run's host memory as it
/// is asked for (`heap/mod.rs`'s unit tests hold the bound on it).
#[test]
fn a_chain_of_tasks_each_splitting_a_long_string_at_once_ends_with_the_heap_status() {
    let out = run(&[
        "run",
        "--max-heap",
        "20000000",
        "cove_cli/tests/fixtures/rel/spawn_chain_of_splits.cove",
    ]);
    assert_eq!(status(&out), 125, "{}", stderr(&out));
    assert_eq!(stdout(&out), "a chain of twenty splitting tasks\n");
    assert!(
        stderr(&out).contains("the heap grew past its limit of 20000000 words"),
        "{}",
        stderr(&out)
    );
}

/// Row 7: fuel bounds the work, not only the instructions: a string grown
/// at its front every turn runs out of 2,000,000 fuel paying for its
/// copies.
#[test]
fn a_string_grown_every_turn_runs_out_of_fuel_paying_for_its_copies() {
    let out = run(&[
        "run",
        "--fuel",
        "2000000",
        "cove_cli/tests/fixtures/rel/string_grows_at_front.cove",
    ]);
    assert_eq!(status(&out), 124, "{}", stderr(&out));
    assert_eq!(stdout(&out), "growing\n");
    assert!(stderr(&out).contains("units of work"), "{}", stderr(&out));
}

/// Row 8: `cove check` of one `match` of 100,000 arms. No clock is read:
/// when every arm rescanned the jumps this took minutes in a debug build.
#[test]
fn cove_check_of_a_match_of_a_hundred_thousand_arms_succeeds() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let arms: String = (0..100_000).map(|i| format!("    {i} => {i}\n")).collect();
    let file = dir.path().join("arms.cove");
    std::fs::write(
        &file,
        format!("fn f(x: Int) -> Int {{\n  match x {{\n{arms}    _ => 0\n  }}\n}}\n\nfn main() -> Int {{\n  f(3)\n}}\n"),
    )
    .expect("the program is written");
    let out = run(&["check", &file.display().to_string()]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
}

/// Row 8: `cove check` of 70,000 `let`s in one function reports E0403
/// (too many registers) with status 1.
#[test]
fn cove_check_of_seventy_thousand_lets_reports_too_many_registers() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let lets: String = (0..70_000).map(|i| format!("  let a{i} = {i}\n")).collect();
    let file = dir.path().join("lets.cove");
    std::fs::write(&file, format!("fn main() -> Int {{\n{lets}  a0\n}}\n"))
        .expect("the program is written");
    let out = run(&["check", &file.display().to_string()]);
    assert_eq!(status(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("E0403"), "{}", stderr(&out));
}

/// Row 9: the task-heap program of the conformance suite under
/// `--max-heap 100000` gives the same report every time.
#[test]
fn a_tasks_heap_limit_reads_the_same_in_every_run() {
    let program =
        "cove_runtime/tests/programs/heap/error_heap_limit_shared_value_returned_by_a_task.cove";
    let runs: Vec<_> = (0..10)
        .map(|_| run(&["run", "--max-heap", "100000", program]))
        .collect();
    for out in &runs {
        assert_eq!(status(out), 125, "{}", stderr(out));
    }
    let reports: std::collections::BTreeSet<String> = runs.iter().map(stderr).collect();
    assert_eq!(reports.len(), 1, "{reports:#?}");
    let report = reports.first().expect("one");
    assert!(
        report.contains("in task 1: a copy of this value"),
        "{report}"
    );
}

/// Row 10: a byte that is not UTF-8 is reported at its line and column.
#[test]
fn a_source_file_with_a_bad_byte_is_reported_at_its_line_and_column() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("bad.cove");
    std::fs::write(&file, b"fn main() {\n  println(\"a\xffb\")\n}\n").expect("written");
    let shown = file.display().to_string();
    let out = run(&["check", &shown]);
    assert_eq!(status(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("E0600"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("{shown}:2:13")),
        "{}",
        stderr(&out)
    );
}

/// Row 11: a task that failed and that nobody joined fails the run even
/// when main then calls `exit(0)`.
#[test]
fn an_unjoined_failed_task_is_reported_when_main_exits_0() {
    let out = run(&[
        "run",
        "cove_cli/tests/fixtures/rel/unjoined_task_then_exit_0.cove",
    ]);
    assert_eq!(status(&out), 70, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "spawning a task that fails\nthe channel closed\n"
    );
    assert!(
        stderr(&out).contains("in task 1, which was never joined"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("out of range"), "{}", stderr(&out));
}

/// Row 11: when main faults as well, both faults are reported.
#[test]
fn an_unjoined_failed_task_is_reported_beside_mains_own_fault() {
    let out = run(&[
        "run",
        "cove_cli/tests/fixtures/rel/unjoined_task_then_main_faults.cove",
    ]);
    assert_eq!(status(&out), 70, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "spawning a task that fails\nthe channel closed\n"
    );
    assert!(
        stderr(&out).contains("division by zero"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("task 1, which was never joined, failed too"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("out of range"), "{}", stderr(&out));
}

#[test]
fn reading_dev_zero_ends_with_the_heap_status_and_the_output_before_it_intact() {
    // Found by the fifth session's mutation campaign: `read_file` of an
    // endless file ran past fuel and the heap bound until it was killed.
    let out = run(&[
        "run",
        "--max-heap",
        "1000000",
        "cove_cli/tests/fixtures/rel/read_dev_zero.cove",
    ]);
    assert_eq!(status(&out), 125, "{}", stderr(&out));
    assert_eq!(stdout(&out), "before the read\n");
    assert!(
        stderr(&out)
            .contains("read_dev_zero.main (cove_cli/tests/fixtures/rel/read_dev_zero.cove:5)"),
        "{}",
        stderr(&out)
    );
    let out = run(&[
        "run",
        "--fuel",
        "2000000",
        "cove_cli/tests/fixtures/rel/read_dev_zero.cove",
    ]);
    assert_eq!(status(&out), 124, "{}", stderr(&out));
    assert_eq!(stdout(&out), "before the read\n");
}

#[test]
fn a_spawn_argument_sharing_a_list_a_million_times_ends_cleanly_under_a_small_address_space() {
    // Found by the fifth session's mutation campaign: the conformance
    // program, run plainly under `ulimit -v 4000000`, aborted (134,
    // "memory allocation of 72000 bytes failed"): its deep copy counted
    // only the words the copy would take in the task's heap, not the
    // host's tree of `Value`s it goes through, nine words an element.
    // Here at an eighth of the default bound and under 1.5 GB (the tree
    // alone took 3.6 GB at this bound before), so a debug build runs it
    // in seconds.
    let out = run_in_address_space(
        1500000,
        "run --max-heap 50000000 \
             cove_runtime/tests/programs/heap/error_heap_limit_shared_value_passed_to_spawn.cove",
    );
    assert_eq!(status(&out), 125, "{}", stderr(&out));
    assert_eq!(stdout(&out), "built\n");
    assert!(
        stderr(&out).contains("a copy of this value between heaps would pass the heap limit"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_use_of_a_name_an_endless_loop_never_binds_runs_what_can_run() {
    // Found by the mutation campaign: the program compiles with a
    // warning, and `cove run` exited 65 (the verifier's status, "a
    // compiler bug") without running a line, because the dead
    // `println(x)` is lowered with a number register. The verifier now
    // proves classes where control can reach, so the run goes on.
    let file = "cove_cli/tests/fixtures/rel/print_a_value_that_never_finishes.cove";
    let out = run(&["check", file]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("warning[W0005]"), "{}", stderr(&out));
    let out = run(&["run", file]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "main\n");
}

#[test]
fn a_long_text_form_under_a_small_address_space_ends_with_the_heap_status() {
    // Found by the fifth session's mutation campaign: the conformance
    // program, run by plain `cove profile` under `ulimit -v 4000000`,
    // aborted (134, "memory allocation of 3932356608 bytes failed") when
    // the text it renders doubled its buffer. Here at a twentieth of the
    // default bound under 250 MB, where it aborted the same way.
    let out = run_in_address_space(
        250000,
        "run --max-heap 12500000 \
             cove_runtime/tests/programs/heap/error_heap_limit_long_text_form.cove",
    );
    assert_eq!(status(&out), 125, "{}", stderr(&out));
    assert_eq!(stdout(&out), "built\n");
}

#[test]
fn a_host_that_refuses_a_tasks_thread_ends_the_run_with_too_many_tasks() {
    // Found by the seventh session's look at the once-seen SIGSEGV: under
    // `ulimit -v` a spawn whose thread the host refused was an `Internal`
    // error, "a bug in the machine", where the host's bound on tasks was
    // met. 2 GB of address space holds the stacks of about thirty of the
    // five hundred waiting tasks this program spawns.
    let out = run_in_address_space(
        2000000,
        "run cove_cli/tests/fixtures/rel/more_tasks_than_threads.cove",
    );
    assert_eq!(status(&out), 70, "{}", stderr(&out));
    assert_eq!(stdout(&out), "started\n");
    let said = stderr(&out);
    assert!(
        said.contains("error: the host would not start a thread for another task"),
        "{said}"
    );
    assert!(
        said.contains("at more_tasks_than_threads.main"),
        "a Cove backtrace: {said}"
    );
}

#[test]
fn sixteen_waiting_tasks_start_where_their_stacks_fit_but_an_arena_each_would_not() {
    // Found by the eighteenth session: glibc gave each thread that
    // allocated a malloc arena of its own, 64 MiB of address space
    // reserved as it was made, so under `ulimit -v` a run's tasks met the
    // limit at about half the threads their stacks had room for (under
    // this limit 12 such tasks could not all start in a debug build, nor
    // 14 in a release one; with the cap 20 can), and a profile's run,
    // after the sampler's thread took one, sometimes could not start at
    // all. `cove` caps the arenas at two (`cove_cli/src/alloc.rs`).
    let out = run_in_address_space(
        1500000,
        "run cove_cli/tests/fixtures/rel/sixteen_tasks_that_wait.cove",
    );
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "16 tasks ended\n");
}

/// Waits until the process `child` has installed a handler for SIGINT
/// (Linux's `/proc/PID/status`, the `SigCgt` mask, bit 2), or fails if it
/// ended first: then a SIGINT sent to it is `cove`'s to answer, not the
/// signal's default action to kill it.
fn wait_for_a_ctrl_c_handler(child: &mut Child) {
    let status = format!("/proc/{}/status", child.id());
    loop {
        let caught = std::fs::read_to_string(&status)
            .ok()
            .and_then(|text| {
                let mask = text.lines().find_map(|l| l.strip_prefix("SigCgt:"))?;
                u64::from_str_radix(mask.trim(), 16).ok()
            })
            .is_some_and(|mask| mask & (1 << (2 - 1)) != 0);
        if caught {
            return;
        }
        if let Ok(Some(ended)) = child.try_wait() {
            panic!("cove ended ({ended}) without a handler for Ctrl-C");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Writes a `main` that matches on one of `arms` arms, to `dir/arms.cove`;
/// gives its path.
fn a_match_of(dir: &Path, arms: usize) -> String {
    let body: String = (0..arms).map(|i| format!("    {i} => {i},\n")).collect();
    let file = dir.join("arms.cove");
    std::fs::write(
        &file,
        format!("fn main() {{\n  let x = 7\n  let y = match x {{\n{body}    _ => 0,\n  }}\n  println(y)\n}}\n"),
    )
    .expect("the program is written");
    file.display().to_string()
}

/// A Ctrl-C while `cove check` compiles a large file ends `cove` with the
/// interrupted status and says so. Before, no handler was installed until
/// a run began, so the signal's default action killed the process, with
/// no status of its own (a shell shows 130 for it, `wait` a signal).
#[test]
fn a_ctrl_c_while_cove_check_compiles_exits_130_and_says_it_was_interrupted() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Seconds of compiling in a debug build.
    let program = a_match_of(dir.path(), 200_000);
    let mut child = support::cove(&["check", &program])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cove starts");
    wait_for_a_ctrl_c_handler(&mut child);
    signal("-INT", &child.id().to_string());
    let out = child.wait_with_output().expect("it ends");
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert_eq!(stderr(&out), "\ncove: interrupted\n");
}

/// A Ctrl-C while `cove fmt` formats a large file ends `cove` with the
/// interrupted status and leaves the file as it was, with no temporary
/// file beside it. Before, the signal killed the process.
#[test]
fn a_ctrl_c_while_cove_fmt_formats_exits_130_and_leaves_the_file_as_it_was() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let messy: String = (0..20_000)
        .map(|i| format!("fn g{i}(x:Int)->Int{{ let y=x+{i}\n return y*2 }}\n"))
        .collect();
    let file = dir.path().join("messy.cove");
    std::fs::write(&file, &messy).expect("written");
    let mut child = support::cove(&["fmt", &file.display().to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cove starts");
    wait_for_a_ctrl_c_handler(&mut child);
    signal("-INT", &child.id().to_string());
    let out = child.wait_with_output().expect("it ends");
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cove: interrupted"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&file).expect("it reads"), messy);
    assert_eq!(temporary_files(dir.path()), Vec::<String>::new());
}

/// A Ctrl-C while `read_line` waits on a pipe nobody writes to (a read in
/// the host, where no safepoint comes) ends `cove` by itself, without a
/// second Ctrl-C: the run is asked to stop, and when it has not within the
/// grace period `cove` exits with the interrupted status, the line printed
/// before written. Before, the first Ctrl-C was never answered. The test
/// gives the process a minute before it calls it a hang; it times nothing.
#[test]
fn a_ctrl_c_while_read_line_waits_on_a_silent_pipe_exits_130_without_a_second_one() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ready = dir.path().join("ready");
    let mut child = support::cove(&[
        "run",
        "cove_cli/tests/fixtures/rel/read_line_after_ready.cove",
        &ready.display().to_string(),
    ])
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("cove starts");
    // Held open and never written to, so the read waits.
    let input = child.stdin.take();
    wait_for(&ready, &mut child);
    signal("-INT", &child.id().to_string());
    let mut waited = 0;
    while child.try_wait().expect("it can be waited on").is_none() && waited < 6000 {
        std::thread::sleep(std::time::Duration::from_millis(10));
        waited += 1;
    }
    if waited == 6000 {
        let _ = child.kill();
    }
    let out = child.wait_with_output().expect("it ends");
    drop(input);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert_eq!(stdout(&out), "waiting for a line\n");
    assert!(
        stderr(&out).contains("the run did not stop within half a second"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_chain_of_tasks_that_each_spawn_first_runs_out_of_fuel_after_as_many_spawns_as_it_pays_for() {
    // Found by this session's mutation campaign (a conformance program
    // with a `spawn main()` dropped in ran 25 s under `--fuel 5000000`):
    // a task whose first act is a spawn reaches no safepoint before it,
    // and the spawn's fuel was only counted, to be paid at the next one,
    // so the chain went on to task 977 of the 1,000 allowed whatever the
    // fuel. Now a spawn pays before its thread starts: 1,000,000 fuel
    // pays for 244 spawns of 4,096.
    let out = run(&[
        "run",
        "--fuel",
        "1000000",
        "cove_cli/tests/fixtures/rel/spawn_chain_joined.cove",
    ]);
    assert_eq!(status(&out), 124, "{}", stderr(&out));
    let said = stderr(&out);
    let task: u64 = said
        .strip_prefix("error: in task ")
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a task ran out of fuel: {said}"));
    assert!(task <= 1_000_000 / 4096 + 1, "{said}");
}

#[test]
fn a_chain_of_spawning_tasks_stops_when_main_returns() {
    // Found with the finding above: `main` returned at once, and the
    // chain, reaching no safepoint before each spawn, ran on to the bound
    // on tasks (999 of them said so) while the run was ending. Now a
    // spawn asks whether the run is ending first.
    let out = run(&[
        "run",
        "cove_cli/tests/fixtures/rel/spawn_chain_unjoined.cove",
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "main returns\n");
    let tasks = stderr(&out)
        .lines()
        .filter(|l| l.starts_with("task "))
        .count();
    assert!(tasks < 100, "{tasks} tasks ran after main returned");
}

#[test]
fn splitting_a_long_string_into_characters_under_a_small_address_space_ends_with_the_heap_status() {
    // Found by this session's audit: `chars()` (and `split_whitespace()`,
    // `bytes()`, a list's `copy()`, `slice`, `repeat`, a sort of strings,
    // a map's keys and values, `join`) built its scratch space on the
    // host with `collect` or `Vec::with_capacity`, which aborted (134,
    // "memory allocation of 320000000 bytes failed", the line printed
    // before lost) when the host refused it. Now it asks with
    // `try_reserve`.
    let out = run_in_address_space(
        250000,
        "run cove_cli/tests/fixtures/rel/chars_of_a_long_string.cove",
    );
    assert_eq!(status(&out), 125, "{}", stderr(&out));
    assert_eq!(stdout(&out), "before the split\n");
    assert!(
        stderr(&out).contains("splitting a string"),
        "{}",
        stderr(&out)
    );
}

// Found by the ninth session's audit: a channel's queue grew on the host
// with `push_back`, which aborted (134, "memory allocation of 83886080
// bytes failed" under 250 MB, the line printed before lost) when the host
// refused its doubling; it asks with `try_reserve` since. Then by the
// twelfth: each message is copied on the host allocation by small
// allocation (its strings, a struct's field names, an option's box), and
// under these limits the host refused one of those first (13 bytes for a
// string in a debug build, 72 for an option's box, 192 for a struct's
// fields), then the fault's own message; the copy asks with `try_reserve`
// now, and the run keeps a megabyte back for the fault (heap/reserve.rs).
// Without that reserve, the flood of options still aborts under 460 MB.

#[test]
fn a_channel_flooded_with_strings_under_small_address_spaces_ends_with_the_heap_status() {
    floods_cleanly("channel_flood");
}

#[test]
fn a_channel_flooded_with_structs_under_small_address_spaces_ends_with_the_heap_status() {
    floods_cleanly("channel_flood_of_structs");
}

#[test]
fn a_channel_flooded_with_options_under_small_address_spaces_ends_with_the_heap_status() {
    floods_cleanly("channel_flood_of_options");
}

#[test]
fn a_channel_flooded_with_variants_under_small_address_spaces_ends_with_the_heap_status() {
    floods_cleanly("channel_flood_of_variants");
}

/// A heap's table of its maps' tables grew with `push`, on the host: a
/// program that keeps making maps aborted with 134 under each of these
/// limits ("memory allocation of 109051904 bytes failed" under 250,000 KB,
/// 218,103,808 under the other two, the line printed before lost) before
/// the table asked for its room with `try_reserve`. The third limit was
/// 460,000 KB until `cove` capped the allocator's arenas (`alloc.rs`):
/// with less address space reserved for them, the heap's own doubling is
/// the first room refused there (a clean 125 too, "growing the heap's
/// space"), and at 500,000 KB the map's table was again. It is 450,000 KB
/// since a map's record grew by its direct index (`heap/entries.rs`): at
/// 500,000 KB the collector's copy of the space is now refused first (a
/// clean 125 as well), at 450,000 and 550,000 KB the map's table. It is
/// 300,000, 400,000 and 450,000 KB since a map's record grew again, by the
/// place for its listed keys' strings: at 250,000 and 350,000 KB the
/// collector's copy is now refused first (a clean 125 too).
#[test]
fn a_list_flooded_with_maps_under_small_address_spaces_ends_with_the_heap_status() {
    for kilobytes in [300000, 400000, 450000] {
        eprintln!("flood_of_maps under {kilobytes} KB of address space");
        refused_cleanly(
            kilobytes,
            "flood_of_maps",
            "before the flood",
            "a map's table",
        );
    }
}

/// A channel's shared state is an `Arc`, which the runtime cannot ask the
/// host for fallibly: a program that kept making channels aborted with
/// 134 under 350,000 and 460,000 KB ("memory allocation of 80 bytes
/// failed", the line printed before lost). The `cove` command's allocator
/// now lets go of a reserve kept for it and asks again (`alloc.rs`), and
/// the run ends at its next safepoint; under 250,000 KB the channels' slot
/// table is refused first, fallibly.
#[test]
fn a_list_flooded_with_channels_under_small_address_spaces_ends_with_the_heap_status() {
    for kilobytes in [250000, 350000, 460000] {
        eprintln!("flood_of_channels under {kilobytes} KB of address space");
        refused_cleanly(
            kilobytes,
            "flood_of_channels",
            "before the flood",
            "out of memory",
        );
    }
}

/// A deep recursion whose frames each hold a list, until the host refuses:
/// the fault's backtrace, a frame and two strings each, asked the host
/// for what the released reserve could not cover, and aborted with 134
/// under these limits ("memory allocation of 23 bytes failed": a frame's
/// path; the line printed before lost). It is built fallibly now, and
/// keeps the innermost frames it has room for.
#[test]
fn a_deep_recursion_that_hoards_under_small_address_spaces_ends_with_the_heap_status() {
    for kilobytes in [200000, 250000] {
        eprintln!("deep_recursion_that_hoards under {kilobytes} KB of address space");
        refused_cleanly(
            kilobytes,
            "deep_recursion_that_hoards",
            "before the descent",
            "out of memory",
        );
    }
}

/// Runs the flood `name` under address spaces where, unmended, it aborted,
/// and asserts each ends as [`refused_cleanly`] says. Which allocation the
/// host refuses first moves with the limit, so what is asserted of the
/// reason is only that it was the host's memory.
fn floods_cleanly(name: &str) {
    for kilobytes in [250000, 350000, 460000] {
        eprintln!("{name} under {kilobytes} KB of address space");
        refused_cleanly(kilobytes, name, "before the flood", "out of memory");
    }
}

/// Runs the fixture `name` of `fixtures/rel/` under `kilobytes` of address
/// space and asserts what a host that refuses memory must give: the heap
/// status, 125, with "out of memory" and `why` (what the refused room was
/// for) on stderr, no abort, and the line the program printed first intact.
fn refused_cleanly(kilobytes: u32, name: &str, first_line: &str, why: &str) {
    let out = run_in_address_space(
        kilobytes,
        &format!("run cove_cli/tests/fixtures/rel/{name}.cove"),
    );
    let err = stderr(&out);
    assert_eq!(status(&out), 125, "{err}");
    assert_eq!(stdout(&out), format!("{first_line}\n"));
    assert!(err.contains("out of memory"), "{err}");
    assert!(err.contains(why), "{err}");
    assert!(!err.contains("memory allocation of"), "{err}");
}

// The tests below are the tenth session's findings under `ulimit -v`: each
// program aborted with 134 ("memory allocation of N bytes failed", a
// native backtrace, the line printed before lost) under the limit its test
// runs it in, where the host refused room that a builtin or the heap
// asked for infallibly; each now asks with `try_reserve`.

#[test]
fn splitting_a_long_string_at_its_commas_under_a_small_address_space_ends_with_the_heap_status() {
    // The pieces' byte ranges grew with `push` (67,108,864 bytes refused).
    refused_cleanly(
        300000,
        "split_on_commas",
        "before the split",
        "splitting a string",
    );
}

#[test]
fn splitting_a_long_string_into_lines_under_a_small_address_space_ends_with_the_heap_status() {
    // The lines' byte ranges grew with `push` (67,108,864 bytes refused).
    refused_cleanly(
        300000,
        "lines_of_a_long_string",
        "before the lines",
        "splitting a string",
    );
}

#[test]
fn a_replace_with_a_long_result_under_a_small_address_space_ends_with_the_heap_status() {
    // `str::replace` built its `String` (80,000,000 bytes refused).
    refused_cleanly(
        300000,
        "replace_in_a_long_string",
        "before the replace",
        "replacing in a string",
    );
}

#[test]
fn lowering_the_case_of_a_long_string_under_a_small_address_space_ends_with_the_heap_status() {
    // `str::to_lowercase` built its `String` (400,000,000 bytes refused,
    // under 1,000,000 KB for a release build, where the debug build that
    // runs this test needs more for itself before the string is made).
    refused_cleanly(
        1200000,
        "lower_case_of_a_long_string",
        "before the lower case",
        "changing a string's case",
    );
}

#[test]
fn a_map_that_only_grows_under_a_small_address_space_ends_with_the_heap_status() {
    // The map's entries and table doubled with `push` and `insert`
    // (100,663,296 bytes refused).
    refused_cleanly(
        300000,
        "map_that_only_grows",
        "before the map",
        "for a map's entries",
    );
}

#[test]
fn the_text_form_of_a_deep_list_under_a_small_address_space_ends_with_the_heap_status() {
    // The render's stack of steps doubled with `push` (117,440,512 bytes
    // refused); its text was asked for with `try_reserve` already. The
    // limit was 300,000 KB until the second megabyte kept back for a
    // rescue (`heap/reserve.rs`) moved the refusal under it to the list's
    // building, before the text.
    refused_cleanly(
        310000,
        "text_of_a_deep_list",
        "before the text",
        "for a text form",
    );
}

#[test]
fn a_spawn_of_a_widely_shared_list_under_a_small_address_space_ends_with_the_heap_status() {
    // The copy's tree took each list's vector with `split_off` (72,000
    // bytes refused); and once the copy was refused, dropping the half-made
    // tree grew the drop's work list infallibly too (73,728 bytes).
    refused_cleanly(
        300000,
        "spawn_of_a_widely_shared_list",
        "before the spawn",
        "copying a value between tasks",
    );
}

#[test]
fn formatting_a_long_string_under_a_small_address_space_ends_with_the_heap_status() {
    // `spec.text` copied the 300,000,000-byte text into a `String` of the
    // host's (refused) before it became the result; a text its spec does
    // not pad is now copied inside the heap.
    refused_cleanly(
        1000000,
        "format_a_long_string",
        "before the format",
        "out of memory",
    );
}

#[test]
fn inserting_at_the_front_for_ever_pays_for_the_moves_and_runs_out_of_fuel() {
    // Found by this session's hoarders: each insert moved every element
    // and paid one unit, so `--fuel 5000000` ran 106 s (28 s of CPU,
    // release build, on a loaded machine) before it ran out. The moves
    // are work now, paid as a copy's bytes are.
    let out = run(&[
        "run",
        "--fuel",
        "2000000",
        "cove_cli/tests/fixtures/rel/insert_at_the_front.cove",
    ]);
    assert_eq!(status(&out), 124, "{}", stderr(&out));
    assert_eq!(stdout(&out), "before the inserts\n");
    assert!(
        stderr(&out).contains("instructions and units of work"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("insert_at_the_front.cove:7"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_split_under_a_heap_bound_meets_the_bound_before_its_byte_ranges_outgrow_the_host() {
    // The pieces' byte ranges are two words a piece, and the pieces will
    // take two words or more each: asked of the bound as the ranges grow,
    // a split meets `--max-heap` before the host refuses its scratch.
    // Before, the ranges of 6,000,000 pieces grew until the host under
    // 300 MB refused them ("out of memory"), the bound 3,000,000 words
    // (24 MB) never asked.
    let out = run_in_address_space(
        300000,
        "run --max-heap 3000000 cove_cli/tests/fixtures/rel/split_on_commas.cove",
    );
    let err = stderr(&out);
    assert_eq!(status(&out), 125, "{err}");
    assert_eq!(stdout(&out), "before the split\n");
    assert!(
        err.contains("the heap grew past its limit of 3000000 words"),
        "{err}"
    );
}
