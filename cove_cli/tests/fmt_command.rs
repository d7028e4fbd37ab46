//! `cove fmt`: in place, `--check`, `--diff`, directories, and files it
//! refuses, run as a user runs the binary.

use std::fs;
use std::time::{Duration, SystemTime};

mod support;
use support::{run, status, stderr, stdout};

const MESSY: &str = "fn main()->Int{\n\tlet x=1\n        x+1\n}\n";
const TIDY: &str = "fn main() -> Int {\n  let x = 1\n  x + 1\n}\n";

/// A time well in the past, to tell whether a file was written.
fn long_ago() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000)
}

fn set_mtime(path: &std::path::Path, time: SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

fn mtime(path: &std::path::Path) -> SystemTime {
    fs::metadata(path).unwrap().modified().unwrap()
}

#[test]
fn fmt_rewrites_a_messy_file_in_place_and_leaves_a_formatted_one_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let messy = dir.path().join("messy.cove");
    let tidy = dir.path().join("tidy.cove");
    fs::write(&messy, MESSY).unwrap();
    fs::write(&tidy, TIDY).unwrap();
    set_mtime(&tidy, long_ago());
    let output = run(&["fmt", messy.to_str().unwrap(), tidy.to_str().unwrap()]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    assert_eq!(fs::read_to_string(&messy).unwrap(), TIDY);
    assert_eq!(mtime(&tidy), long_ago(), "a formatted file is not written");
}

#[test]
fn fmt_replaces_a_file_whole_through_its_link_keeping_its_permissions_and_no_temporary_file() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let messy = dir.path().join("messy.cove");
    fs::write(&messy, MESSY).unwrap();
    fs::set_permissions(&messy, fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("link.cove");
    std::os::unix::fs::symlink(&messy, &link).unwrap();
    let output = run(&["fmt", link.to_str().unwrap()]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    // The file the link names was replaced, the link kept, and the file's
    // mode with it; the temporary file it was written to is gone.
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&messy).unwrap(), TIDY);
    assert_eq!(
        fs::metadata(&messy).unwrap().permissions().mode() & 0o777,
        0o640
    );
    let mut left: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["link.cove", "messy.cove"]);
}

#[test]
fn fmt_check_names_the_files_that_would_change_exits_1_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let messy = dir.path().join("messy.cove");
    let tidy = dir.path().join("tidy.cove");
    fs::write(&messy, MESSY).unwrap();
    fs::write(&tidy, TIDY).unwrap();
    let output = run(&["fmt", "--check", dir.path().to_str().unwrap()]);
    assert_eq!(status(&output), 1);
    assert_eq!(stdout(&output), format!("{}\n", messy.display()));
    assert_eq!(fs::read_to_string(&messy).unwrap(), MESSY);
    let output = run(&["fmt", "--check", tidy.to_str().unwrap()]);
    assert_eq!(status(&output), 0);
    assert_eq!(stdout(&output), "");
}

#[test]
fn fmt_diff_prints_a_unified_diff_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let messy = dir.path().join("messy.cove");
    fs::write(&messy, MESSY).unwrap();
    let output = run(&["fmt", "--diff", messy.to_str().unwrap()]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    let shown = messy.display().to_string();
    insta::assert_snapshot!(stdout(&output).replace(&shown, "messy.cove"));
    assert_eq!(fs::read_to_string(&messy).unwrap(), MESSY);
}

#[test]
fn fmt_walks_a_directory_for_cove_files_only() {
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("a/b");
    fs::create_dir_all(&nested).unwrap();
    fs::write(nested.join("deep.cove"), MESSY).unwrap();
    fs::write(nested.join("notes.txt"), MESSY).unwrap();
    let output = run(&["fmt", dir.path().to_str().unwrap()]);
    assert_eq!(status(&output), 0, "{}", stderr(&output));
    assert_eq!(fs::read_to_string(nested.join("deep.cove")).unwrap(), TIDY);
    assert_eq!(fs::read_to_string(nested.join("notes.txt")).unwrap(), MESSY);
}

#[test]
fn a_file_that_does_not_lex_is_refused_with_its_place_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.cove");
    let text = "fn main() {\n  let s = \"never closed\n}\n";
    fs::write(&broken, text).unwrap();
    let output = run(&["fmt", broken.to_str().unwrap()]);
    assert_eq!(status(&output), 1);
    assert_eq!(
        stderr(&output),
        format!(
            "error: {}:2:11: this string is never closed on its line; the file is left as it is\n",
            broken.display()
        )
    );
    assert_eq!(fs::read_to_string(&broken).unwrap(), text);
}

#[test]
fn a_path_that_does_not_exist_is_an_io_error() {
    let output = run(&["fmt", "no/such/file.cove"]);
    assert_eq!(status(&output), 74);
    assert!(stderr(&output).contains("no/such/file.cove"));
}

#[test]
fn fmt_check_on_the_repository_finds_nothing_to_change_outside_the_deliberate_exceptions() {
    let output = run(&[
        "fmt",
        "--check",
        "examples",
        "cove_runtime",
        "cove_cli",
        "cove_profile",
    ]);
    assert_eq!(stdout(&output), "examples/covefmt/sample.cove\n");
    assert_eq!(status(&output), 1);
}

/// `cove fmt --check` whose stdout is a full disk (`/dev/full`) exits with
/// the I/O status and says why. It printed the names with `println!`,
/// which panicked (101).
#[test]
fn fmt_check_to_a_full_disk_exits_with_the_io_status_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let messy = dir.path().join("messy.cove");
    fs::write(&messy, MESSY).unwrap();
    let full = fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let output = support::cove(&["fmt", "--check", messy.to_str().unwrap()])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(status(&output), 74, "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "error: cannot write to stdout: No space left on device (os error 28)\n"
    );
    assert_eq!(fs::read_to_string(&messy).unwrap(), MESSY);
}

/// `cove fmt --diff` into a pipe whose reader leaves after one byte
/// (`| head -c 1`) stops quietly with the status it would have had: a
/// diff far larger than a pipe holds is still being written when the
/// reader has gone. It printed with `print!`, which panicked on the
/// closed pipe (101).
#[test]
fn fmt_diff_into_a_pipe_whose_reader_left_ends_quietly_with_its_status() {
    let dir = tempfile::tempdir().unwrap();
    let messy = dir.path().join("messy.cove");
    let text: String = (0..5_000)
        .map(|i| format!("fn g{i}(x:Int)->Int{{ let y=x+{i}\n return y*2 }}\n"))
        .collect();
    fs::write(&messy, &text).unwrap();
    let output = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{} fmt --diff {} | head -c 1 > /dev/null; echo \"${{PIPESTATUS[0]}}\"",
            env!("CARGO_BIN_EXE_cove"),
            messy.display()
        ))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(stdout(&output), "0\n", "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
    assert_eq!(fs::read_to_string(&messy).unwrap(), text);
}
