//! `cargo xtask bench-peers`: Cove against Lua 5.4 and LuaJIT's interpreter
//! on the benchmark suite, side by side, in one command anyone can run.
//!
//! It builds `cove` in release mode, then for every program of
//! `examples/bench/` (and the covefmt workload) checks that the Cove program
//! and its Lua twin print the same answer, so the times compare the same
//! work, and runs each of them — `cove run`, `lua5.4`, `luajit -joff` —
//! `--reps` times, interleaved: every repetition runs every program under
//! every runner, starting the rotation of runners at a different place, so
//! drift in the machine's speed lands on all of them alike. A twin LuaJIT
//! answers differently (LuaJIT's numbers are doubles, so a program whose
//! integers pass 2^53 differs) is left out of LuaJIT's column, and said so.
//!
//! Time is taken two ways for each run: the CPU time of the child (user
//! plus system, from `getrusage(RUSAGE_CHILDREN)` read before and after
//! the child is waited for, which counts the child alone since nothing else
//! is waited for between the two readings) and the wall clock. The CPU time
//! is the figure to quote on a shared machine: waiting for a core does not
//! count in it. The report gives medians with the fastest and slowest run,
//! the ratios of the medians, and their geometric means; nothing is
//! asserted, since timings are evidence and not facts.
//!
//! `--callgrind` adds the native instructions of one run of each under
//! `valgrind --tool=callgrind` (the whole process, startup and compiling
//! included): exact where time is noisy, but a run there takes some fifty
//! times as long, so `--small` runs every program at its `// check: N`
//! size instead of its default, and names given on the command line pick
//! programs (`cargo xtask bench-peers --callgrind sieve fannkuch`).
//!
//! Processes rather than one process timing the others' functions because
//! the peers are other programs: the only fair comparison is what a user
//! sees, a command and its answer.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::build;
use crate::stats::Summary;

const USAGE: &str = "\
usage: cargo xtask bench-peers [--reps N] [--callgrind] [--small] [NAME...]

  --reps N     interleaved repetitions of every run (default 5)
  --callgrind  also count each run's native instructions under valgrind
  --small      run every program at its `// check: N` size
  NAME...      only these programs (file stems of examples/bench/)";

/// What to measure, from the command line.
#[derive(Debug, PartialEq)]
pub struct Options {
    /// Interleaved repetitions.
    pub reps: usize,
    /// Whether to count native instructions under callgrind.
    pub callgrind: bool,
    /// Whether to run each program at its small check size.
    pub small: bool,
    /// The programs to run; empty for all.
    pub only: Vec<String>,
}

impl Options {
    /// Reads `[--reps N] [--callgrind] [--small] [NAME...]`.
    pub fn parse(words: &[String]) -> Result<Options, String> {
        let mut options = Options {
            reps: 5,
            callgrind: false,
            small: false,
            only: Vec::new(),
        };
        let mut words = words.iter();
        while let Some(word) = words.next() {
            match word.as_str() {
                "--reps" => {
                    let n = words.next().ok_or("--reps needs a number")?;
                    options.reps = n
                        .parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| format!("--reps: not a positive number: {n}"))?;
                }
                "--callgrind" => options.callgrind = true,
                "--small" => options.small = true,
                "-h" | "--help" => return Err(USAGE.to_string()),
                name if !name.starts_with('-') => options.only.push(name.to_string()),
                other => return Err(format!("unknown option {other}\n{USAGE}")),
            }
        }
        Ok(options)
    }
}

/// One row of the report: a Cove program, its arguments and its twin.
#[derive(Debug, Clone)]
pub(crate) struct Bench {
    /// The row's name: the file stem, or with the size for a scaling row.
    pub(crate) label: String,
    /// The Cove program.
    pub(crate) cove: PathBuf,
    /// Its Lua twin, if it has one.
    pub(crate) twin: Option<PathBuf>,
    /// The arguments both are run with.
    pub(crate) args: Vec<String>,
}

/// A way to run a program: Cove, or one of the peers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Runner {
    Cove,
    Lua,
    LuaJit,
}

impl Runner {
    fn name(self) -> &'static str {
        match self {
            Runner::Cove => "cove",
            Runner::Lua => "lua5.4",
            Runner::LuaJit => "luajit -joff",
        }
    }

    /// The command that runs `bench` this way, if it can.
    fn command(self, cove: &Path, bench: &Bench) -> Option<Command> {
        let mut command = match self {
            Runner::Cove => {
                let mut c = Command::new(cove);
                c.arg("run").arg(&bench.cove);
                c
            }
            Runner::Lua => {
                let mut c = Command::new("lua5.4");
                c.arg(bench.twin.as_ref()?);
                c
            }
            Runner::LuaJit => {
                let mut c = Command::new("luajit");
                c.arg("-joff").arg(bench.twin.as_ref()?);
                c
            }
        };
        command.args(&bench.args);
        Some(command)
    }
}

/// The argument of a program's `// check: N` line, if it has one.
fn check_size(program: &Path) -> Option<String> {
    let text = std::fs::read_to_string(program).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("// check: "))
        .and_then(|rest| rest.split_whitespace().next())
        .map(str::to_string)
}

/// The suite: every `.cove` of `examples/bench/` with its twin, the covefmt
/// workload, and the string appends at two sizes a quarter apart (their
/// ratio shows whether appends are linear).
pub(crate) fn suite(root: &Path, small: bool) -> Result<Vec<Bench>, String> {
    let dir = root.join("examples/bench");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cove"))
        .collect();
    files.sort();
    let mut suite = Vec::new();
    for cove in files {
        let label = cove
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let twin = Some(cove.with_extension("lua")).filter(|t| t.exists());
        let args = if small {
            check_size(&cove).into_iter().collect()
        } else {
            Vec::new()
        };
        if label == "append" && !small {
            for (size, name) in [("100000", "append 100k"), ("400000", "append 400k")] {
                suite.push(Bench {
                    label: name.to_string(),
                    cove: cove.clone(),
                    twin: twin.clone(),
                    args: vec![size.to_string()],
                });
            }
        }
        suite.push(Bench {
            label,
            cove,
            twin,
            args,
        });
    }
    suite.push(Bench {
        label: "covefmt".to_string(),
        cove: dir.join("covefmt/main.cove"),
        twin: None,
        args: Vec::new(),
    });
    Ok(suite)
}

/// Whether `tool` runs with `flag`.
fn installed(tool: &str, flag: &str) -> bool {
    Command::new(tool)
        .arg(flag)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The CPU time, user plus system, of every child waited for so far.
fn children_cpu_seconds() -> f64 {
    // SAFETY: `getrusage` writes one `rusage` into the zeroed struct it is
    // given and reads nothing else.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// One timed run: (CPU seconds, wall seconds), or why it failed.
fn timed(mut command: Command) -> Result<(f64, f64), String> {
    let before = children_cpu_seconds();
    let start = Instant::now();
    let status = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{command:?}: {e}"))?;
    let wall = start.elapsed().as_secs_f64();
    let cpu = children_cpu_seconds() - before;
    if !status.success() {
        return Err(format!("{command:?} failed: {status}"));
    }
    Ok((cpu, wall))
}

/// What a command prints, or why it failed.
fn answer(mut command: Command) -> Result<String, String> {
    let output = command
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("{command:?}: {e}"))?;
    if !output.status.success() {
        return Err(format!("{command:?} failed: {}", output.status));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The native instructions of one run under callgrind.
fn callgrind(command: Command) -> Result<u64, String> {
    let mut valgrind = Command::new("valgrind");
    valgrind
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(command.get_program())
        .args(command.get_args());
    let output = valgrind
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("could not start valgrind: {e}"))?;
    let said = String::from_utf8_lossy(&output.stderr);
    said.lines()
        .find_map(|l| l.split("Collected :").nth(1))
        .and_then(|n| n.trim().parse::<u64>().ok())
        .ok_or_else(|| format!("callgrind printed no count:\n{said}"))
}

/// The geometric mean of some ratios, if there are any.
fn geomean(ratios: &[f64]) -> Option<f64> {
    if ratios.is_empty() {
        return None;
    }
    Some((ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp())
}

/// Samples of one bench under one runner.
#[derive(Debug, Default, Clone)]
struct Samples {
    cpu: Vec<f64>,
    wall: Vec<f64>,
}

/// Builds `cove` in release mode, as users get it, and gives its path.
pub(crate) fn build_cove(root: &Path) -> Result<PathBuf, String> {
    eprintln!("building cove: cargo build --release -p cove_cli");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = Command::new(cargo)
        .current_dir(root)
        .args(["build", "--release", "--quiet", "-p", "cove_cli"])
        .status()
        .map_err(|e| format!("could not start cargo: {e}"))?;
    if !built.success() {
        return Err("the release build failed".to_string());
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target.join("release").join("cove"))
}

/// Runs the task.
pub fn run(options: &Options) -> Result<(), String> {
    let root = build::workspace_root();
    let cove = build_cove(&root)?;

    let mut runners = vec![Runner::Cove];
    for (runner, tool, flag) in [
        (Runner::Lua, "lua5.4", "-v"),
        (Runner::LuaJit, "luajit", "-v"),
    ] {
        if installed(tool, flag) {
            runners.push(runner);
        } else {
            println!(
                "bench-peers: {tool} is not installed, so its column is empty \
                 (Debian: apt-get install lua5.4 luajit)"
            );
        }
    }

    let mut suite = suite(&root, options.small)?;
    if !options.only.is_empty() {
        suite.retain(|b| {
            options
                .only
                .iter()
                .any(|n| b.label.split(' ').next() == Some(n))
        });
    }
    if suite.is_empty() {
        return Err("no program matches".to_string());
    }

    // The answers first: a twin that disagrees with Lua 5.4 is a mistake in
    // the suite, one that disagrees with LuaJIT is left out of its column.
    let mut runs: Vec<Vec<Runner>> = Vec::new();
    for bench in &suite {
        let mine = answer(Runner::Cove.command(&cove, bench).expect("cove runs all"))?;
        let mut these = vec![Runner::Cove];
        for &runner in &runners[1..] {
            let Some(command) = runner.command(&cove, bench) else {
                continue;
            };
            let theirs = match answer(command) {
                Ok(theirs) => theirs,
                Err(why) if runner == Runner::LuaJit => format!("(failed: {why})"),
                Err(why) => return Err(why),
            };
            if theirs == mine {
                these.push(runner);
            } else if runner == Runner::Lua {
                return Err(format!(
                    "{} and its twin print different answers:\n{mine}\n{theirs}",
                    bench.label
                ));
            } else {
                println!(
                    "bench-peers: {} under {} prints another answer or fails; left out of its column",
                    bench.label,
                    runner.name()
                );
            }
        }
        runs.push(these);
    }

    let mut samples = vec![vec![Samples::default(); 3]; suite.len()];
    let slot = |r: Runner| r as usize;
    for rep in 0..options.reps {
        eprintln!("bench-peers: repetition {} of {}", rep + 1, options.reps);
        for (i, bench) in suite.iter().enumerate() {
            let these = &runs[i];
            for k in 0..these.len() {
                let runner = these[(k + rep) % these.len()];
                let command = runner.command(&cove, bench).expect("checked above");
                let (cpu, wall) = timed(command)?;
                let s = &mut samples[i][slot(runner)];
                s.cpu.push(cpu);
                s.wall.push(wall);
            }
        }
    }

    println!(
        "bench-peers: {} interleaved repetitions; CPU time (user+sys) of each child, \
         median [fastest–slowest], in seconds",
        options.reps
    );
    println!();
    println!(
        "| program | cove | lua5.4 | luajit -joff | cove/lua CPU | cove/luajit CPU | cove/lua wall | cove/luajit wall |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut ratios: [Vec<f64>; 4] = Default::default();
    for (i, bench) in suite.iter().enumerate() {
        let cell = |s: &Samples| match Summary::of(&s.cpu) {
            Some(c) => format!("{:.3} [{:.3}–{:.3}]", c.median, c.min, c.max),
            None => "—".to_string(),
        };
        let median = |v: &[f64]| Summary::of(v).map(|s| s.median);
        let ratio = |mine: &[f64], theirs: &[f64]| match (median(mine), median(theirs)) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        };
        let cove_s = &samples[i][slot(Runner::Cove)];
        let lua_s = &samples[i][slot(Runner::Lua)];
        let jit_s = &samples[i][slot(Runner::LuaJit)];
        let row = [
            ratio(&cove_s.cpu, &lua_s.cpu),
            ratio(&cove_s.cpu, &jit_s.cpu),
            ratio(&cove_s.wall, &lua_s.wall),
            ratio(&cove_s.wall, &jit_s.wall),
        ];
        // The two append rows measure scaling, not a peer: they stay out of
        // the geometric means, which the full-size `append` row is in.
        let scaling = bench.label.contains(' ');
        let text: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(k, r)| match r {
                Some(r) => {
                    if !scaling {
                        ratios[k].push(*r);
                    }
                    format!("{r:.2}")
                }
                None => "—".to_string(),
            })
            .collect();
        println!(
            "| {} | {} | {} | {} | {} |",
            bench.label,
            cell(cove_s),
            cell(lua_s),
            cell(jit_s),
            text.join(" | ")
        );
    }
    let means: Vec<String> = ratios
        .iter()
        .map(|r| match geomean(r) {
            Some(g) => format!("**{g:.2}**"),
            None => "—".to_string(),
        })
        .collect();
    println!("| geomean | | | | {} |", means.join(" | "));

    let appends: Vec<f64> = ["append 100k", "append 400k"]
        .iter()
        .filter_map(|name| suite.iter().position(|b| b.label == *name))
        .filter_map(|i| Summary::of(&samples[i][slot(Runner::Cove)].cpu).map(|s| s.median))
        .collect();
    if let [small, large] = appends[..] {
        println!();
        println!(
            "cove: 400 000 appends took {:.1}× the CPU time of 100 000 (linear is 4×, quadratic 16×)",
            large / small
        );
    }

    if options.callgrind {
        if !installed("valgrind", "--version") {
            println!("bench-peers: valgrind is not installed (Debian: apt-get install valgrind)");
            return Ok(());
        }
        println!();
        println!("native instructions under valgrind --tool=callgrind, whole process, millions");
        println!();
        println!("| program | args | cove | lua5.4 | luajit -joff | cove/lua | cove/luajit |");
        println!("|---|---|---:|---:|---:|---:|---:|");
        for (i, bench) in suite.iter().enumerate() {
            eprintln!("bench-peers: callgrind on {}", bench.label);
            let mut counts = [None; 3];
            for &runner in &runs[i] {
                let command = runner.command(&cove, bench).expect("checked above");
                counts[slot(runner)] = Some(callgrind(command)?);
            }
            let m =
                |c: Option<u64>| c.map_or("—".to_string(), |c| format!("{:.1}", c as f64 / 1e6));
            let r = |a: Option<u64>, b: Option<u64>| match (a, b) {
                (Some(a), Some(b)) if b > 0 => format!("{:.2}", a as f64 / b as f64),
                _ => "—".to_string(),
            };
            println!(
                "| {} | {} | {} | {} | {} | {} | {} |",
                bench.label,
                bench.args.join(" "),
                m(counts[0]),
                m(counts[1]),
                m(counts[2]),
                r(counts[0], counts[1]),
                r(counts[0], counts[2])
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn options_read_reps_callgrind_small_and_names() {
        let o = Options::parse(&words("--reps 3 --callgrind --small sieve fib")).expect("valid");
        assert_eq!(
            o,
            Options {
                reps: 3,
                callgrind: true,
                small: true,
                only: vec!["sieve".to_string(), "fib".to_string()],
            }
        );
    }

    #[test]
    fn a_repetition_count_of_zero_is_refused() {
        assert!(Options::parse(&words("--reps 0")).is_err());
    }

    #[test]
    fn the_geometric_mean_of_a_half_and_two_is_one() {
        let g = geomean(&[0.5, 2.0]).expect("ratios");
        assert!((g - 1.0).abs() < 1e-12, "{g}");
        assert_eq!(geomean(&[]), None);
    }

    #[test]
    fn the_suite_pairs_each_program_with_its_twin_and_its_check_size() {
        let suite = suite(&build::workspace_root(), true).expect("the suite is there");
        let sieve = suite.iter().find(|b| b.label == "sieve").expect("sieve");
        assert!(
            sieve
                .twin
                .as_ref()
                .is_some_and(|t| t.ends_with("sieve.lua"))
        );
        assert_eq!(sieve.args, vec!["10000".to_string()]);
        let channels = suite
            .iter()
            .find(|b| b.label == "channels")
            .expect("channels");
        assert_eq!(channels.twin, None);
        assert!(suite.iter().any(|b| b.label == "covefmt"));
    }
}
