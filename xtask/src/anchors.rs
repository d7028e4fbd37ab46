//! Anchors: what other languages' watching costs, measured beside Cove's.
//!
//! A profiler's overhead means little without a scale, and a figure quoted
//! from elsewhere was measured on another machine under another load. So
//! the anchors are measured here, in the same command, on the same
//! recursive Fibonacci (`examples/bench/fib.*`, all printing one answer):
//!
//! - Lua 5.4 with a count hook at every instruction, `debug.sethook(f, "",
//!   1)`: the nearest thing Lua has to Cove's debugger seam, a call into a
//!   (Lua) function before each instruction, against plain `lua5.4`;
//! - Python's `cProfile` (`python3 -m cProfile`), a deterministic profiler
//!   per function call, not per instruction, against plain `python3`;
//! - `valgrind --tool=callgrind` on `cove run`, exact native instruction
//!   counts by binary translation, against `cove run`.
//!
//! Each pair is timed as [`crate::modes`] times Cove's modes: whole
//! processes, CPU time from `wait4` and wall time, repetitions interleaved,
//! the ratio of each watched run to the plain run of its repetition. A
//! peer that is not installed is skipped with a notice saying how to
//! install it. First each pair's two answers are compared with Cove's, so
//! every ratio is of the same work. The cost is that of the anchors' runs:
//! callgrind's, some hundred times `cove run fib.cove`, is most of it.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::cputime::{self, Time};
use crate::native;
use crate::ratios::{RatioTable, Row};

/// One anchor: a plain command and the same command watched.
#[derive(Debug)]
pub struct Anchor {
    /// The row's name.
    pub label: &'static str,
    /// The tool it needs, and how to install it on Debian.
    pub tool: (&'static str, &'static str, &'static str),
    /// The unwatched run.
    pub plain: Command,
    /// The watched run.
    pub watched: Command,
}

/// The Lua hook that runs before every instruction and does nothing.
pub const LUA_HOOK: &str = "debug.sethook(function() end, \"\", 1)";

/// The three anchors on `examples/bench/fib` under `root`, with `cove`.
pub fn anchors(root: &Path, cove: &Path) -> Vec<Anchor> {
    let bench = root.join("examples/bench");
    let lua = bench.join("fib.lua");
    let python = bench.join("fib.py");
    let program = bench.join("fib.cove");
    let mut plain_lua = Command::new("lua5.4");
    plain_lua.arg(&lua);
    let mut hooked = Command::new("lua5.4");
    hooked.args(["-e", LUA_HOOK]).arg(&lua);
    let mut plain_python = Command::new("python3");
    plain_python.arg(&python);
    let mut profiled = Command::new("python3");
    profiled
        .args(["-m", "cProfile", "-o", "/dev/null"])
        .arg(&python);
    let mut run = Command::new(cove);
    run.arg("run").arg(&program);
    let mut counted = Command::new("valgrind");
    counted
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(cove)
        .arg("run")
        .arg(&program);
    vec![
        Anchor {
            label: "Lua 5.4 count hook at every instruction, over lua5.4",
            tool: ("lua5.4", "-v", "apt-get install lua5.4"),
            plain: plain_lua,
            watched: hooked,
        },
        Anchor {
            label: "python3 -m cProfile (per call), over python3",
            tool: ("python3", "--version", "apt-get install python3"),
            plain: plain_python,
            watched: profiled,
        },
        Anchor {
            label: "valgrind --tool=callgrind cove run, over cove run",
            tool: ("valgrind", "--version", "apt-get install valgrind"),
            plain: run,
            watched: counted,
        },
    ]
}

/// What a command prints on stdout, or why it failed.
fn answer(command: &mut Command) -> Result<String, String> {
    let output = command
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("{command:?}: {e}"))?;
    if !output.status.success() {
        return Err(format!("{command:?} failed: {}", output.status));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Whether `tool flag` runs.
fn installed(tool: &str, flag: &str) -> bool {
    if flag == "--version" {
        return native::available(tool);
    }
    Command::new(tool)
        .arg(flag)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Times every installed anchor, `reps` repetitions interleaved, after
/// checking that each prints what `cove run fib.cove` prints.
pub fn measure(root: &Path, cove: &Path, reps: usize) -> Result<RatioTable, String> {
    let mut reference = Command::new(cove);
    reference
        .arg("run")
        .arg(root.join("examples/bench/fib.cove"));
    let expected = answer(&mut reference)?;
    let mut kept = Vec::new();
    for mut anchor in anchors(root, cove) {
        let (tool, flag, install) = anchor.tool;
        if !installed(tool, flag) {
            println!(
                "bench-overhead: {tool} is not installed, so its anchor is skipped \
                 (Debian: {install})"
            );
            continue;
        }
        for command in [&mut anchor.plain, &mut anchor.watched] {
            let said = answer(command)?;
            if said != expected {
                return Err(format!(
                    "{command:?} prints {said:?}, cove run fib.cove {expected:?}: \
                     the anchor would not compare the same work"
                ));
            }
        }
        kept.push(anchor);
    }
    let mut rows: Vec<Row> = kept
        .iter()
        .map(|a| Row {
            label: a.label.to_string(),
            base: Vec::new(),
            columns: vec![Vec::new()],
        })
        .collect();
    for rep in 0..reps {
        for (i, anchor) in kept.iter_mut().enumerate() {
            eprintln!(
                "bench-overhead: anchors, repetition {} of {reps}, {}",
                rep + 1,
                anchor.tool.0
            );
            let watched_first = (rep + i) % 2 == 1;
            let (plain, watched): (Time, Time) = if watched_first {
                let w = cputime::timed(&mut anchor.watched)?;
                (cputime::timed(&mut anchor.plain)?, w)
            } else {
                let p = cputime::timed(&mut anchor.plain)?;
                (p, cputime::timed(&mut anchor.watched)?)
            };
            rows[i].base.push(plain);
            rows[i].columns[0].push(watched);
        }
    }
    Ok(RatioTable {
        base: "plain".to_string(),
        columns: vec!["watched ÷ plain".to_string()],
        rows,
        geomean: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;

    fn words(command: &Command) -> Vec<String> {
        std::iter::once(command.get_program())
            .chain(command.get_args())
            .map(|a| {
                let text = a.to_string_lossy();
                // Paths are shown by their file name: the root differs.
                Path::new(&*text)
                    .file_name()
                    .map_or(text.to_string(), |n| n.to_string_lossy().into_owned())
            })
            .collect()
    }

    #[test]
    fn each_anchor_watches_the_same_command_it_runs_plain() {
        let root = build::workspace_root();
        let all = anchors(&root, Path::new("/bin/cove"));
        let shown: Vec<(Vec<String>, Vec<String>)> = all
            .iter()
            .map(|a| (words(&a.plain), words(&a.watched)))
            .collect();
        assert_eq!(
            shown[0],
            (
                vec!["lua5.4".into(), "fib.lua".into()],
                vec![
                    "lua5.4".into(),
                    "-e".into(),
                    LUA_HOOK.into(),
                    "fib.lua".into()
                ]
            )
        );
        assert_eq!(
            shown[1].1,
            ["python3", "-m", "cProfile", "-o", "null", "fib.py"]
        );
        assert_eq!(shown[2].0, ["cove", "run", "fib.cove"]);
        assert_eq!(shown[2].1[0], "valgrind");
        assert_eq!(shown[2].1[3..], ["cove", "run", "fib.cove"]);
    }

    #[test]
    fn every_anchor_program_is_in_the_repository() {
        let root = build::workspace_root();
        for ext in ["cove", "lua", "py"] {
            let path = root.join("examples/bench/fib").with_extension(ext);
            assert!(path.exists(), "{} is missing", path.display());
        }
    }
}
