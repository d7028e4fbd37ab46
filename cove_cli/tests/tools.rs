//! Every report format read by the real tool its users open it with:
//! `go tool pprof`, speedscope's own file-format schema, `genhtml`,
//! `callgrind_annotate` started from another directory, and headless
//! Chromium for the HTML page.
//!
//! A tool that is not installed skips its test with a notice, but only
//! outside CI: `.ci/run` installs every one of them and sets `CI=true`,
//! under which a missing tool fails the test instead of passing unseen.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{run, status, stderr, stdout};

/// Whether `tool` can be started (`probe` is an argument it answers
/// quickly; some tools exit non-zero even for `--version`, so only
/// starting counts); a missing tool is a failure in CI and a printed
/// notice elsewhere.
fn have(tool: &str, probe: &[&str]) -> bool {
    let found = Command::new(tool).args(probe).output().is_ok();
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "{tool} is missing in CI: .ci/run installs it"
        );
        eprintln!("{tool} is not installed: this test checked nothing");
    }
    found
}

/// A scratch folder and the report `cove profile --format FORMAT` wrote
/// into it for `examples/fib.cove 12`.
fn report(format: &str, name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let path = dir.path().join(name);
    let out = run(&[
        "profile",
        "--format",
        format,
        "-o",
        path.to_str().expect("a UTF-8 path"),
        "examples/fib.cove",
        "12",
    ]);
    assert_eq!(status(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "fib(12) = 144\n", "the program's own output");
    (dir, path)
}

/// `go tool pprof` with `args`, offline and in `dir`.
fn pprof(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("go")
        .args(["tool", "pprof"])
        .args(args)
        .current_dir(dir)
        .env("GOTOOLCHAIN", "local")
        .env("HOME", dir)
        .output()
        .expect("go runs")
}

#[test]
fn go_tool_pprof_top_reads_the_pprof_file_and_names_the_hot_function() {
    if !have("go", &["version"]) {
        return;
    }
    let (dir, path) = report("pprof", "fib.pb.gz");
    let out = pprof(dir.path(), &["-top", path.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(text.contains("Type: instructions"), "{text}");
    let first = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("flat"))
        .nth(1)
        .expect("a first row");
    assert!(first.ends_with("fib.fib"), "the hottest row is fib: {text}");
    // Every sample type is there to choose.
    let words = pprof(
        dir.path(),
        &["-top", "-sample_index=words", path.to_str().unwrap()],
    );
    assert!(words.status.success(), "{}", stderr(&words));
    assert!(stdout(&words).contains("fib.main"), "{}", stdout(&words));
}

#[test]
fn go_tool_pprof_list_shows_the_source_lines_with_their_counts() {
    if !have("go", &["version"]) {
        return;
    }
    let (dir, path) = report("pprof", "fib.pb.gz");
    let out = pprof(dir.path(), &["-list", "fib.fib", path.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    let line = text
        .lines()
        .find(|l| l.contains("fib(n - 1) + fib(n - 2)"))
        .unwrap_or_else(|| panic!("pprof found the source: {text}"));
    let flat: u64 = line
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a count on the hot line: {line}"));
    assert!(flat > 0, "{line}");
}

/// speedscope's file-format schema, from the npm package `.ci/run`
/// installs, if it is installed.
fn speedscope_schema() -> Option<PathBuf> {
    let root = Command::new("npm").args(["root", "-g"]).output().ok()?;
    let root = String::from_utf8_lossy(&root.stdout).trim().to_string();
    let path = Path::new(&root).join("speedscope/dist/release/file-format-schema.json");
    path.exists().then_some(path)
}

#[test]
fn the_speedscope_file_is_valid_against_speedscopes_own_schema() {
    let Some(schema) = speedscope_schema() else {
        assert!(
            std::env::var("CI").is_err(),
            "speedscope (npm) is missing in CI: .ci/run installs it"
        );
        eprintln!("the speedscope npm package is not installed: this test checked nothing");
        return;
    };
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("speedscope's schema compiles");
    let (_dir, path) = report("speedscope", "fib.speedscope.json");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&file)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(file["name"], "cove profile examples/fib.cove 12");
}

#[test]
fn genhtml_reads_the_lcov_file_and_finds_every_line_covered() {
    if !have("genhtml", &["--version"]) {
        return;
    }
    let (dir, path) = report("lcov", "fib.info");
    let html = dir.path().join("html");
    let out = Command::new("genhtml")
        .arg("-o")
        .arg(&html)
        .arg(&path)
        .current_dir(dir.path())
        .output()
        .expect("genhtml runs");
    let text = stdout(&out);
    assert!(out.status.success(), "{}{}", text, stderr(&out));
    assert!(
        text.contains("functions..: 100.0% (2 of 2 functions)"),
        "{text}"
    );
    assert!(html.join("index.html").exists());
}

#[test]
fn callgrind_annotate_run_from_another_directory_annotates_the_source() {
    if !have("callgrind_annotate", &["--version"]) {
        return;
    }
    let (dir, path) = report("callgrind", "callgrind.out.fib");
    let elsewhere = tempfile::tempdir().unwrap();
    let out = Command::new("callgrind_annotate")
        .arg("--auto=yes")
        .arg(&path)
        .current_dir(elsewhere.path())
        .output()
        .expect("callgrind_annotate runs");
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!text.contains("could not be found"), "{text}");
    let hot = text
        .lines()
        .find(|l| l.contains("fib(n - 1) + fib(n - 2)"))
        .unwrap_or_else(|| panic!("the source is annotated: {text}"));
    assert!(
        hot.trim_start().starts_with(|c: char| c.is_ascii_digit()),
        "{hot}"
    );
    drop(dir);
}

/// Headless Chromium on `page` with `args`.
fn chromium(page: &Path, args: &[&str]) -> std::process::Output {
    Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
        ])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .env("HOME", page.parent().unwrap())
        .output()
        .expect("chromium runs")
}

#[test]
fn headless_chromium_renders_the_html_pages_tables_and_source() {
    if !have("chromium", &["--version"]) {
        return;
    }
    let (dir, page) = report("html", "fib.html");
    let html = std::fs::read_to_string(&page).unwrap();
    for external in ["src=\"http", "href=\"http", "<link", "url(http"] {
        assert!(!html.contains(external), "the page reaches out: {external}");
    }
    let out = chromium(&page, &["--dump-dom"]);
    let dom = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dom.contains("cove profile: examples/fib.cove 12"), "{dom}");
    assert!(dom.contains("id=\"function-table\""), "{dom}");
    assert!(dom.contains("<td class=\"name\">fib.fib</td>"), "{dom}");
    assert!(dom.contains("fib(n - 1) + fib(n - 2)"), "{dom}");
    // The flame graph is inline, not a file beside the page.
    assert!(dom.contains("id=\"frames\""), "{dom}");

    let shot = dir.path().join("shot.png");
    let out = chromium(
        &page,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1000,800",
        ],
    );
    assert!(shot.exists(), "{}", stderr(&out));
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).expect("a frame");
    let pixels = &pixels[..info.buffer_size()];
    let step = info.color_type.samples();
    let first = &pixels[..step];
    let differing = pixels.chunks(step).filter(|p| p != &first).count();
    assert!(
        differing * 100 > pixels.len() / step,
        "more than 1% of the screenshot is drawn ({differing} pixels)"
    );
}
