//! The command outputs pasted in `README.md` and `docs/*.md` are the
//! outputs the commands print today.
//!
//! A pasted block is marked by the line `<!-- cove-doc -->` just above its
//! ```` ```console ```` fence. Its lines that start with `$ ` are commands;
//! the lines after each, up to the next command, are what it prints (stdout
//! and stderr together, as a terminal shows them). This test runs every
//! marked block's commands in one `sh`, in order, from the workspace root,
//! with the `cove` just built first on `PATH`, `COVE_FAKE_CLOCK=1` (so
//! times are the deterministic clock's, the same on every machine) and
//! `NO_COLOR=1`, and compares. `$?` reads the status of the command before,
//! so `echo $?` can follow a command as it does in a shell.
//!
//! `cargo xtask docs --bless` (which runs this test with
//! `COVE_DOCS_BLESS=1`) rewrites every marked block with what its commands
//! print now. Unmarked blocks are left alone: a run that needs Ctrl-C or a
//! benchmark's timings cannot be reproduced by a test, and say so where
//! they are pasted.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The line that marks a block this test owns.
const MARKER: &str = "<!-- cove-doc -->";

/// The workspace root.
fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// Every Markdown file the project's docs are: the README and `docs/*.md`.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// A marked block: where its body is in the file's lines, and its commands.
struct Block {
    /// The index of the first line after the opening fence.
    start: usize,
    /// The index of the closing fence.
    end: usize,
}

/// Every marked block of `lines`.
fn blocks(lines: &[&str]) -> Vec<Block> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == MARKER {
            assert!(
                lines.get(i + 1).is_some_and(|l| l.trim() == "```console"),
                "line {}: {MARKER} must be followed by a ```console fence",
                i + 1
            );
            let start = i + 2;
            let end = (start..lines.len())
                .find(|&j| lines[j].trim() == "```")
                .unwrap_or_else(|| panic!("line {}: the block is not closed", i + 2));
            found.push(Block { start, end });
            i = end;
        }
        i += 1;
    }
    found
}

/// `text` quoted for `sh`.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// What the block's commands print, each after its `$ ` line.
fn rerun(body: &[&str]) -> String {
    let mut script = String::from("exec 2>&1\n__status=0\n");
    for line in body {
        if let Some(command) = line.strip_prefix("$ ") {
            script.push_str(&format!(
                "printf '%s\\n' {}\n(exit $__status); {command}\n__status=$?\n",
                quoted(line)
            ));
        }
    }
    let cove = Path::new(env!("CARGO_BIN_EXE_cove"));
    let path = format!(
        "{}:{}",
        cove.parent().expect("the binary's folder").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(root())
        .env("PATH", path)
        .env("COVE_FAKE_CLOCK", "1")
        .env("NO_COLOR", "1")
        .env_remove("COVE_GC_STRESS")
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_command_output_pasted_in_the_docs_is_what_the_command_prints() {
    let bless = std::env::var("COVE_DOCS_BLESS").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    let mut checked = 0;
    for file in documents() {
        let text = std::fs::read_to_string(&file).expect("the doc reads");
        let lines: Vec<&str> = text.lines().collect();
        let mut rewritten: Vec<String> = Vec::new();
        let mut copied = 0;
        for block in blocks(&lines) {
            let body = &lines[block.start..block.end];
            assert!(
                body.first().is_some_and(|l| l.starts_with("$ ")),
                "{}:{}: a marked block starts with a `$ ` command",
                file.display(),
                block.start + 1
            );
            checked += 1;
            let now = rerun(body);
            let pasted: String = body.iter().map(|l| format!("{l}\n")).collect();
            if now != pasted {
                stale.push(format!(
                    "{}:{}\n--- pasted\n{pasted}--- printed now\n{now}",
                    file.display(),
                    block.start + 1
                ));
            }
            rewritten.extend(lines[copied..block.start].iter().map(|l| l.to_string()));
            rewritten.extend(now.lines().map(str::to_string));
            copied = block.end;
        }
        if bless && copied > 0 {
            rewritten.extend(lines[copied..].iter().map(|l| l.to_string()));
            let mut new = rewritten.join("\n");
            new.push('\n');
            if new != text {
                std::fs::write(&file, new).expect("the doc is rewritten");
            }
        }
    }
    assert!(
        checked > 0,
        "no marked block was found: the marker changed?"
    );
    if !bless {
        assert!(
            stale.is_empty(),
            "pasted outputs differ from what the commands print; \
             refresh them with `cargo xtask docs --bless`:\n\n{}",
            stale.join("\n")
        );
    }
}
