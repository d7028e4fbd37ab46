//! `cargo xtask bench-overhead`: what a profiler costs a run, measured.
//!
//! The seed's profiler documentation quotes one figure — the rejected design,
//! an `Option` profile field on `Machine` sampled at the safepoint, cost
//! 2.9% on `arith` with no profile installed — and makes one promise: the
//! design chosen instead costs an unprofiled run nothing. This task measures
//! both, and the two costs of having a debugger on, in one run:
//!
//! 1. **the rejected shape, off**, against today's runtime, off;
//! 2. **a no-op debugger** (answers `Go` at every stop) against off: the
//!    price of the watched loop itself;
//! 3. **the profiler** against off: the price of a profile.
//!
//! Every figure is a ratio of two runs of the same program made in the same
//! repetition, and the repetitions interleave the configurations (each one
//! starts the rotation at a different place), so drift in the machine's
//! speed over the measurement lands on every configuration alike. The
//! report gives the median ratio and its spread (min, max) over the
//! repetitions; nothing is asserted, because a shared machine's timings are
//! evidence, not facts.
//!
//! Then the exact comparison that time cannot make: the native instructions
//! of the same unprofiled run with `cove` built without the profiler and
//! with it linked in but not installed, counted by callgrind (see
//! [`crate::native`]). Those two numbers are the "off means off" claim.
//!
//! Every run is a process: `cove bench-run --debugger off|noop|profiler
//! FILE`, a hidden subcommand that compiles the program, times only
//! `run_entry`, and prints `bench-run: nanos N instructions M` on stderr.
//! Time is the wall clock of the run, so a busy machine widens the spread:
//! the min and max are printed so that a reader can see how much.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::build::{self, Variant};
use crate::native;
use crate::stats::Summary;

/// What to measure, from the command line.
#[derive(Debug)]
pub struct Options {
    /// Interleaved repetitions of every configuration.
    pub reps: usize,
    /// The program and its arguments.
    pub program: PathBuf,
    /// Arguments for the program.
    pub args: Vec<String>,
}

impl Options {
    /// Reads `[--reps N] [PROGRAM [ARGS...]]`.
    pub fn parse(words: &[String]) -> Result<Options, String> {
        let mut reps = 7;
        let mut rest = Vec::new();
        let mut words = words.iter();
        while let Some(word) = words.next() {
            match word.as_str() {
                "--reps" => {
                    let n = words.next().ok_or("--reps needs a number")?;
                    reps = n
                        .parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| format!("--reps: not a positive number: {n}"))?;
                }
                "-h" | "--help" => return Err(USAGE.to_string()),
                _ => {
                    rest.push(word.clone());
                    rest.extend(words.by_ref().cloned());
                }
            }
        }
        let program = match rest.first() {
            Some(p) => PathBuf::from(p),
            None => build::workspace_root().join("examples/bench/arith.cove"),
        };
        let args = rest.into_iter().skip(1).collect();
        Ok(Options {
            reps,
            program,
            args,
        })
    }
}

/// The task's help text.
pub const USAGE: &str = "\
usage: cargo xtask bench-overhead [--reps N] [PROGRAM [ARGS...]]

Builds cove three ways (today; without the profiler; with the runtime's
sampled-profile feature, the rejected design), runs PROGRAM (default
examples/bench/arith.cove) under each configuration in N interleaved
repetitions (default 7), and prints the median and spread of each ratio to
today's unprofiled run; then the native instruction counts of the unprofiled
run without and with the profiler linked in. Asserts nothing; exits 0.";

/// One way of running the program: a binary and the debugger it installs.
#[derive(Debug, Clone)]
struct Config {
    label: &'static str,
    binary: PathBuf,
    debugger: &'static str,
}

/// What one run reported.
#[derive(Debug, Clone, Copy)]
struct Sample {
    nanos: u64,
    instructions: u64,
}

/// Runs the whole measurement and prints the report.
pub fn run(options: &Options) -> Result<(), String> {
    let root = build::workspace_root();
    if !options.program.exists() {
        return Err(format!(
            "{}: no such program (give one: cargo xtask bench-overhead PROGRAM)",
            options.program.display()
        ));
    }
    let today = build::build(&root, Variant::Today)?;
    let without = build::build(&root, Variant::NoProfiler);
    let sampled = build::build(&root, Variant::Sampled);

    let mut configs = vec![Config {
        label: "today, off",
        binary: today.clone(),
        debugger: "off",
    }];
    match &sampled {
        Ok(binary) => configs.push(Config {
            label: "rejected shape (sampled field), off",
            binary: binary.clone(),
            debugger: "off",
        }),
        Err(why) => eprintln!("bench-overhead: the rejected shape is not measured: {why}"),
    }
    configs.push(Config {
        label: "no-op debugger",
        binary: today.clone(),
        debugger: "noop",
    });
    configs.push(Config {
        label: "profiler, real clock",
        binary: today.clone(),
        debugger: "profiler",
    });
    configs.push(Config {
        label: "profiler, counting (--clock none)",
        binary: today.clone(),
        debugger: "counting",
    });
    configs.push(Config {
        label: "profiler, sampled (the default)",
        binary: today.clone(),
        debugger: "sampling",
    });

    eprintln!("bench-overhead: warming up");
    for config in &configs {
        run_once(config, options)?;
    }
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); configs.len()];
    for rep in 0..options.reps {
        eprintln!("bench-overhead: repetition {} of {}", rep + 1, options.reps);
        for k in 0..configs.len() {
            let i = (rep + k) % configs.len();
            samples[i].push(run_once(&configs[i], options)?);
        }
    }

    println!();
    let mut what = relative(&root, &options.program);
    for arg in &options.args {
        what.push(' ');
        what.push_str(arg);
    }
    println!(
        "bench-overhead: {what}, {} interleaved repetitions",
        options.reps
    );
    println!();
    print_ratios(&configs, &samples);
    println!();
    print_native(
        &today,
        without.as_ref(),
        options,
        samples[0].first().map_or(0, |s| s.instructions),
    );
    Ok(())
}

/// Runs the program once under `config`.
fn run_once(config: &Config, options: &Options) -> Result<Sample, String> {
    let output = Command::new(&config.binary)
        .args(["bench-run", "--debugger", config.debugger])
        .arg(&options.program)
        .args(&options.args)
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", config.binary.display()))?;
    let said = String::from_utf8_lossy(&output.stderr);
    parse_sample(&said).ok_or_else(|| {
        format!(
            "{} ({}) reported no timing (status {}):\n{said}",
            config.label, config.debugger, output.status
        )
    })
}

/// Reads `bench-run: nanos N instructions M` from what a run printed.
fn parse_sample(stderr: &str) -> Option<Sample> {
    let line = stderr.lines().find(|l| l.starts_with("bench-run:"))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let value = |key: &str| -> Option<u64> {
        let at = words.iter().position(|w| *w == key)?;
        words.get(at + 1)?.parse().ok()
    };
    Some(Sample {
        nanos: value("nanos")?,
        instructions: value("instructions")?,
    })
}

fn print_ratios(configs: &[Config], samples: &[Vec<Sample>]) {
    let base = &samples[0];
    let base_ms: Vec<f64> = base.iter().map(|s| s.nanos as f64 / 1e6).collect();
    if let Some(s) = Summary::of(&base_ms) {
        println!(
            "{:<38} {:>10.1} ms   min {:.1}  max {:.1}   ({} Cove instructions)",
            configs[0].label,
            s.median,
            s.min,
            s.max,
            base.first().map_or(0, |s| s.instructions)
        );
    }
    println!();
    println!(
        "{:<38} {:>10} {:>9} {:>9}",
        "ratio to today, off", "median", "min", "max"
    );
    for (config, runs) in configs.iter().zip(samples).skip(1) {
        let ratios: Vec<f64> = runs
            .iter()
            .zip(base)
            .map(|(s, b)| s.nanos as f64 / b.nanos.max(1) as f64)
            .collect();
        if let Some(s) = Summary::of(&ratios) {
            println!(
                "{:<38} {:>9.3}x {:>8.3}x {:>8.3}x",
                config.label, s.median, s.min, s.max
            );
        }
    }
}

/// The empty program the native counts subtract: what starting `cove`,
/// compiling a file and calling `main` cost by themselves.
const EMPTY: &str = "export fn main() {\n}\n";

/// Two counts of the program and one of the empty program, by one binary.
struct Native {
    runs: [u64; 2],
    empty: u64,
    how: &'static str,
}

impl Native {
    fn measure(binary: &Path, empty: &Path, options: &Options) -> Result<Native, String> {
        let first = native::count(binary, &options.program, &options.args)?;
        let second = native::count(binary, &options.program, &options.args)?;
        let nothing = native::count(binary, empty, &[])?;
        Ok(Native {
            runs: [first.instructions, second.instructions],
            empty: nothing.instructions,
            how: first.how,
        })
    }

    /// The first run's count less the empty program's.
    fn net(&self) -> i128 {
        self.runs[0] as i128 - self.empty as i128
    }
}

fn print_native(
    today: &Path,
    without: Result<&PathBuf, &String>,
    options: &Options,
    cove_instructions: u64,
) {
    println!("native instructions of the unprofiled run (exact; the \"off means off\" claim):");
    let without = match without {
        Ok(binary) => binary,
        Err(why) => {
            println!("  not measured: cove without the profiler did not build: {why}");
            return;
        }
    };
    let folder = std::env::temp_dir().join(format!("cove-bench-overhead-{}", std::process::id()));
    let empty = folder.join("empty.cove");
    if let Err(e) = std::fs::create_dir_all(&folder).and_then(|()| std::fs::write(&empty, EMPTY)) {
        println!("  not measured: {}: {e}", empty.display());
        return;
    }
    eprintln!("bench-overhead: counting native instructions (six runs under valgrind; slow)");
    let a = Native::measure(without, &empty, options);
    let b = Native::measure(today, &empty, options);
    let _ = std::fs::remove_dir_all(&folder);
    let (a, b) = match (a, b) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(why), _) | (_, Err(why)) => {
            println!("  not measured: {why}");
            return;
        }
    };
    println!(
        "  counted by {}, every thread of the process; net = run 1 less the same",
        a.how
    );
    println!("  binary running an empty program (start-up, which differs with the binary)");
    println!();
    println!(
        "  {:<48} {:>15} {:>15} {:>13} {:>15}",
        "", "run 1", "run 2", "empty", "net"
    );
    for (label, n) in [
        ("cove without the profiler linked in", &a),
        ("cove with the profiler linked in, not installed", &b),
    ] {
        println!(
            "  {:<48} {:>15} {:>15} {:>13} {:>15}",
            label,
            group(n.runs[0]),
            group(n.runs[1]),
            group(n.empty),
            group(n.net().max(0) as u64)
        );
    }
    let delta = b.net() - a.net();
    let verdict = if delta == 0 {
        "identical".to_string()
    } else {
        format!("{:+.5}%", delta as f64 * 100.0 / a.net().max(1) as f64)
    };
    println!();
    println!("  net difference, with the profiler linked in: {delta:+} ({verdict})");
    if cove_instructions > 0 {
        println!(
            "  per Cove instruction executed ({}): {:+.6} native instructions",
            group(cove_instructions),
            delta as f64 / cove_instructions as f64
        );
    }
    let jitter = (a.runs[0] as i128 - a.runs[1] as i128)
        .abs()
        .max((b.runs[0] as i128 - b.runs[1] as i128).abs());
    println!(
        "  run 1 and run 2 of one binary differ by up to {jitter}: the noise of an exact count \
         (hash seeds, allocation addresses)"
    );
}

/// `n` with thousands separated by commas.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let threes: Vec<&str> = digits
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|three| std::str::from_utf8(three).unwrap_or("?"))
        .collect();
    threes.join(",")
}

/// `path` relative to the workspace root when it is inside it.
fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_timing_line_is_read_back() {
        let s = parse_sample("hello\nbench-run: nanos 1200 instructions 34\n").expect("a line");
        assert_eq!((s.nanos, s.instructions), (1200, 34));
    }

    #[test]
    fn a_run_that_printed_no_timing_has_no_sample() {
        assert!(parse_sample("error: division by zero\n").is_none());
    }

    #[test]
    fn large_counts_are_grouped_by_thousands() {
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
    }

    #[test]
    fn the_default_program_is_arith_and_arguments_follow_the_program() {
        let o = Options::parse(&[]).expect("defaults");
        assert!(o.program.ends_with("examples/bench/arith.cove"));
        let words = ["--reps", "3", "p.cove", "--x"].map(String::from);
        let o = Options::parse(&words).expect("parsed");
        assert_eq!(o.reps, 3);
        assert_eq!(o.program, PathBuf::from("p.cove"));
        assert_eq!(o.args, vec!["--x".to_string()]);
    }
}
