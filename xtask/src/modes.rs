//! The time every profile mode costs, on the whole benchmark suite.
//!
//! A user profiles with the command line, so that is what is timed: `cove
//! profile -o /dev/null PROG` under each `--clock` (`none`, the default
//! `sampled`, `real`, `counter`) against `cove run PROG`, beside `cove
//! bench-run --debugger noop PROG`, the dispatch loop's seam with a
//! debugger that does nothing. The processes are whole — start-up,
//! compiling, the report and, for `sampled`, the sampler thread are in
//! every figure — because that is what a profile costs the person waiting
//! for it. The suite is every program of `examples/bench/` at the size it
//! runs at by default (the size `cargo xtask bench-peers` times) and the
//! covefmt workload; `--small` runs each at its `// check: N` size instead,
//! for a quick look that start-up dominates.
//!
//! Each repetition runs every program under every configuration, starting
//! the rotation of configurations at a different place, and the report is
//! the ratio of each run to the `cove run` of its repetition (see
//! [`crate::ratios`]), CPU time and wall time. The sampled profile's
//! calibration, made by the first profile in ten minutes, is kept
//! out of the timed runs (see [`fresh_calibration`]). A full run of the suite
//! costs about forty times the suite's own time a repetition, most of it in
//! the two interval clocks.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cputime::{self, Time};
use crate::ratios::{RatioTable, Row};

/// A program of the suite and the arguments it runs with.
#[derive(Debug, Clone, PartialEq)]
pub struct Bench {
    /// Its name in the table: the file stem, or `covefmt`.
    pub label: String,
    /// The `.cove` file.
    pub path: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
}

/// How a configuration runs a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// `cove run`: the unwatched loop, the base of every ratio.
    Run,
    /// `cove bench-run --debugger noop`: a debugger that answers `Go`.
    Noop,
    /// `cove profile -o /dev/null`, with this `--clock` or the default.
    Profile(Option<&'static str>),
}

impl Runner {
    /// The configurations timed, in the table's order: the base first.
    pub const ALL: [Runner; 6] = [
        Runner::Run,
        Runner::Noop,
        Runner::Profile(Some("none")),
        Runner::Profile(None),
        Runner::Profile(Some("real")),
        Runner::Profile(Some("counter")),
    ];

    /// The configuration a `--modes` word names: `noop`, or a clock of
    /// `cove profile` (`none`, `sampled`, `real`, `counter`).
    pub fn parse(word: &str) -> Result<Runner, String> {
        match word {
            "noop" => Ok(Runner::Noop),
            "none" => Ok(Runner::Profile(Some("none"))),
            "sampled" => Ok(Runner::Profile(None)),
            "real" => Ok(Runner::Profile(Some("real"))),
            "counter" => Ok(Runner::Profile(Some("counter"))),
            other => Err(format!(
                "--modes: noop, none, sampled, real or counter, not {other}"
            )),
        }
    }

    /// The column's name.
    pub fn label(self) -> &'static str {
        match self {
            Runner::Run => "cove run",
            Runner::Noop => "no-op debugger",
            Runner::Profile(Some("none")) => "--clock none",
            Runner::Profile(None) => "sampled (default)",
            Runner::Profile(Some("real")) => "--clock real",
            Runner::Profile(Some("counter")) => "--clock counter",
            Runner::Profile(Some(_)) => "--clock (other)",
        }
    }

    /// The command that runs `path ARGS` this way with `cove`.
    pub fn command(self, cove: &Path, path: &Path, args: &[String]) -> Command {
        let mut command = Command::new(cove);
        match self {
            Runner::Run => {
                command.arg("run");
            }
            Runner::Noop => {
                command.args(["bench-run", "--debugger", "noop"]);
            }
            Runner::Profile(clock) => {
                command.arg("profile");
                if let Some(clock) = clock {
                    command.args(["--clock", clock]);
                }
                command.args(["-o", "/dev/null"]);
            }
        }
        command.arg(path).args(args);
        command
    }
}

/// The argument of a program's `// check: N` line, if it has one.
pub fn check_size(program: &Path) -> Option<String> {
    let text = std::fs::read_to_string(program).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("// check: "))
        .and_then(|rest| rest.split_whitespace().next())
        .map(str::to_string)
}

/// Every `.cove` of `examples/bench/`, sorted, then the covefmt workload;
/// at their default sizes, or with `small` at their check sizes.
pub fn suite(root: &Path, small: bool) -> Result<Vec<Bench>, String> {
    let dir = root.join("examples/bench");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cove"))
        .collect();
    files.sort();
    let mut suite: Vec<Bench> = files
        .into_iter()
        .map(|path| Bench {
            label: path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            args: if small {
                check_size(&path).into_iter().collect()
            } else {
                Vec::new()
            },
            path,
        })
        .collect();
    suite.push(Bench {
        label: "covefmt".to_string(),
        path: dir.join("covefmt/main.cove"),
        args: Vec::new(),
    });
    Ok(suite)
}

/// A program that does nothing, profiled untimed before each timed sampled
/// run: see [`fresh_calibration`].
const NOTHING: &str = "export fn main() {\n}\n";

/// Makes sure `cove profile`'s kept calibration is whole, by profiling a
/// program that does nothing, untimed, as many times as it keeps
/// measurements. A sampled profile measures what being watched costs the
/// loop (about 200 ms) while fewer measurements of the last ten minutes
/// are kept for its build than it keeps; left alone, a measurement would
/// land in whichever timed run found too few, and so in some program's
/// figures at random. With this, no timed run includes one; a user's
/// first sampled profile in ten minutes pays for it.
fn fresh_calibration(cove: &Path, nothing: &Path) -> Result<(), String> {
    for _ in 0..KEPT_MEASUREMENTS {
        cputime::timed(&mut Runner::Profile(None).command(cove, nothing, &[]))?;
    }
    Ok(())
}

/// How many calibrations `cove profile` keeps (`cove_cli/src/calibrate.rs`).
const KEPT_MEASUREMENTS: usize = 1;

/// Times `cove run` and each of `modes` (every configuration after the
/// base, when `None`) on every program of `suite`, `reps` repetitions
/// interleaved, and returns the table.
pub fn measure(
    cove: &Path,
    suite: &[Bench],
    reps: usize,
    modes: Option<&[Runner]>,
) -> Result<RatioTable, String> {
    let folder = std::env::temp_dir().join(format!("cove-bench-overhead-{}", std::process::id()));
    let nothing = folder.join("nothing.cove");
    std::fs::create_dir_all(&folder)
        .and_then(|()| std::fs::write(&nothing, NOTHING))
        .map_err(|e| format!("{}: {e}", nothing.display()))?;
    let mut runners = vec![Runner::Run];
    match modes {
        Some(modes) => runners.extend(modes.iter().filter(|m| **m != Runner::Run)),
        None => runners.extend(&Runner::ALL[1..]),
    }
    let table = measure_with(cove, suite, reps, &nothing, &runners);
    let _ = std::fs::remove_dir_all(&folder);
    table
}

fn measure_with(
    cove: &Path,
    suite: &[Bench],
    reps: usize,
    nothing: &Path,
    runners: &[Runner],
) -> Result<RatioTable, String> {
    let mut runs: Vec<Vec<Vec<Time>>> = vec![vec![Vec::new(); runners.len()]; suite.len()];
    eprintln!("bench-overhead: warming up (one run of each program)");
    for bench in suite {
        cputime::timed(&mut Runner::Run.command(cove, &bench.path, &bench.args))?;
    }
    for rep in 0..reps {
        for (i, bench) in suite.iter().enumerate() {
            eprintln!(
                "bench-overhead: timing modes, repetition {} of {reps}, {}",
                rep + 1,
                bench.label
            );
            for k in 0..runners.len() {
                let j = (k + rep + i) % runners.len();
                if runners[j] == Runner::Profile(None) {
                    fresh_calibration(cove, nothing)?;
                }
                let mut command = runners[j].command(cove, &bench.path, &bench.args);
                runs[i][j].push(cputime::timed(&mut command)?);
            }
        }
    }
    let rows = suite
        .iter()
        .zip(runs)
        .map(|(bench, mut runs)| {
            let base = std::mem::take(&mut runs[0]);
            Row {
                label: bench.label.clone(),
                base,
                columns: runs.into_iter().skip(1).collect(),
            }
        })
        .collect();
    Ok(RatioTable {
        base: Runner::Run.label().to_string(),
        columns: runners[1..].iter().map(|r| r.label().to_string()).collect(),
        rows,
        geomean: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;

    #[test]
    fn each_profile_mode_is_the_cli_command_a_user_types() {
        let words = |runner: Runner| -> Vec<String> {
            let command = runner.command(Path::new("cove"), Path::new("p.cove"), &["7".into()]);
            command
                .get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(words(Runner::Run), ["run", "p.cove", "7"]);
        assert_eq!(
            words(Runner::Noop),
            ["bench-run", "--debugger", "noop", "p.cove", "7"]
        );
        assert_eq!(
            words(Runner::Profile(None)),
            ["profile", "-o", "/dev/null", "p.cove", "7"]
        );
        assert_eq!(
            words(Runner::Profile(Some("counter"))),
            [
                "profile",
                "--clock",
                "counter",
                "-o",
                "/dev/null",
                "p.cove",
                "7"
            ]
        );
    }

    #[test]
    fn every_clock_of_the_profiler_is_timed_after_the_base() {
        assert_eq!(Runner::ALL[0], Runner::Run);
        for clock in [None, Some("none"), Some("real"), Some("counter")] {
            assert!(Runner::ALL.contains(&Runner::Profile(clock)), "{clock:?}");
        }
    }

    #[test]
    fn each_modes_word_names_one_configuration_and_an_unknown_one_is_refused() {
        for runner in &Runner::ALL[1..] {
            let word = match runner {
                Runner::Noop => "noop",
                Runner::Profile(None) => "sampled",
                Runner::Profile(Some(clock)) => clock,
                Runner::Run => unreachable!("the base is not a mode"),
            };
            assert_eq!(Runner::parse(word), Ok(*runner));
        }
        assert!(Runner::parse("fast").is_err());
    }

    #[test]
    fn the_suite_is_every_benchmark_and_the_covefmt_workload() {
        let root = build::workspace_root();
        let suite = suite(&root, false).expect("examples/bench is there");
        let on_disk = std::fs::read_dir(root.join("examples/bench"))
            .expect("examples/bench is there")
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "cove"))
            })
            .count();
        assert_eq!(suite.len(), on_disk + 1);
        assert!(suite.iter().all(|b| b.args.is_empty()));
        assert_eq!(suite.last().map(|b| b.label.as_str()), Some("covefmt"));
        let small = self::suite(&root, true).expect("examples/bench is there");
        let fib = small.iter().find(|b| b.label == "fib").expect("fib");
        assert_eq!(fib.args, ["15"]);
    }
}
