//! `cove diff` timing the two programs side by side
//! (`cove_cli/src/rerun.rs`): when it does, what it reports, and when it
//! refuses, with the real clocks (profiles under the stepping clock have
//! no replay, and a diff of them runs nothing, as the snapshot tests of
//! `profile.rs` show).

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::{root, status, stderr, stdout};

/// `cove` with `args` and the real clocks.
fn cove(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cove"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("COVE_FAKE_CLOCK")
        .env_remove("COVE_GC_STRESS")
        .output()
        .expect("cove runs")
}

/// A JSON profile of `program` written to `out`.
fn profile(program: &str, out: &Path) {
    let ran = cove(&[
        "profile",
        "--format",
        "json",
        "-o",
        &out.display().to_string(),
        program,
    ]);
    assert_eq!(status(&ran), 0, "{}", stderr(&ran));
}

/// The ratio a line prints after `×`, up to the next space.
fn ratio_after(line: &str, marker: &str) -> f64 {
    let at = line
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} in {line}"))
        + marker.len();
    line[at..]
        .split([' ', '('])
        .next()
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("a ratio after {marker} in {line}"))
}

#[test]
fn a_diff_of_two_replayed_profiles_takes_its_verdict_from_the_programs_run_side_by_side() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (before, after) = (
        dir.path().join("bytes.json"),
        dir.path().join("contains.json"),
    );
    profile("cove_profile/examples/story/search_bytes.cove", &before);
    profile("cove_profile/examples/story/search_contains.cove", &after);
    let out = cove(&[
        "diff",
        &before.display().to_string(),
        &after.display().to_string(),
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let verdict = text.lines().next().expect("a verdict line");
    let timed = text
        .lines()
        .find(|l| l.starts_with("side by side  ×"))
        .unwrap_or_else(|| panic!("no side-by-side line:\n{text}"));
    assert!(
        timed.contains("pairs of unwatched runs of the two programs, interleaved"),
        "{timed}"
    );
    // The verdict's ratio is the side-by-side one, to the two places the
    // verdict prints.
    let (said, measured) = (ratio_after(verdict, "time ×"), ratio_after(timed, "×"));
    assert!((said - measured).abs() < 0.006, "{verdict}\n{timed}");
    assert_eq!(stderr(&out), "");
}

#[test]
fn no_rerun_judges_by_the_profiles_totals() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (before, after) = (dir.path().join("a.json"), dir.path().join("b.json"));
    profile("cove_profile/examples/story/search_contains.cove", &before);
    profile("cove_profile/examples/story/search_contains.cove", &after);
    let out = cove(&[
        "diff",
        "--no-rerun",
        &before.display().to_string(),
        &after.display().to_string(),
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(!stdout(&out).contains("side by side"), "{}", stdout(&out));
    assert_eq!(stderr(&out), "");
}

#[test]
fn a_program_edited_since_its_profile_is_not_run_in_its_name() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let program = dir.path().join("count.cove");
    let source =
        "export fn main() {\n  var s = 0\n  for i in 0..20000 { s = s + i }\n  println(s)\n}\n";
    std::fs::write(&program, source).expect("written");
    let (before, after) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let path = program.display().to_string();
    profile(&path, &before);
    profile(&path, &after);
    std::fs::write(&program, source.replace("20000", "20001")).expect("edited");
    let out = cove(&[
        "diff",
        &before.display().to_string(),
        &after.display().to_string(),
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert!(!stdout(&out).contains("side by side"), "{}", stdout(&out));
    assert!(
        stderr(&out)
            .contains("note: the verdict is the profiles' totals', not timed side by side: ")
            && stderr(&out).contains("is not the program its profile was taken of"),
        "{}",
        stderr(&out)
    );
}
