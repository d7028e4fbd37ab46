//! The callgrind output is read by the real `callgrind_annotate`, when the
//! machine has it (valgrind installs it). Without the tool the test checks
//! nothing it cannot check, and says so on its output.

mod common;

use std::process::Command;

use cove_profile::report::Report;

#[test]
fn callgrind_annotate_reads_the_callgrind_output_and_agrees_on_the_totals() {
    let (profiler, _) = common::profiled(10);
    let program = common::program();
    let report = Report::new(&program, &profiler);
    let text = report.callgrind();
    let dir = std::env::temp_dir().join(format!("cove-profile-callgrind-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let path = dir.join("callgrind.out.m");
    std::fs::write(&path, &text).expect("the file is written");

    let Ok(output) = Command::new("callgrind_annotate")
        .arg("--inclusive=yes")
        .arg("--auto=no")
        .arg(&path)
        .output()
    else {
        eprintln!("callgrind_annotate is not installed: the format was not checked by it");
        return;
    };
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("malformed"), "{stderr}");
    let total = report.total();
    let summary = format!(
        "{} {} {} {}",
        total.ran, total.nanos, total.words, total.allocations
    );
    let figures: Vec<String> = stdout
        .lines()
        .find(|line| line.contains("PROGRAM TOTALS"))
        .expect("a totals line")
        .split_whitespace()
        .filter(|w| w.parse::<u64>().is_ok())
        .map(str::to_string)
        .collect();
    assert_eq!(figures.join(" "), summary, "{stdout}");
    // With --inclusive=yes, main's line carries the whole run.
    let main = stdout
        .lines()
        .find(|line| line.contains("m.main"))
        .expect("main is listed");
    assert!(main.contains(&total.ran.to_string()), "{main}");
    assert!(stdout.contains("m.fib"), "{stdout}");
}
