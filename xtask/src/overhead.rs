//! `cargo xtask bench-overhead`: what watching a run costs, measured three
//! ways in one command.
//!
//! 1. **Exact, per Cove instruction.** The native instructions of one
//!    program at two sizes, counted by callgrind, under every configuration:
//!    `cove run` (the unwatched loop), the same built without the profiler
//!    linked in, the same built with the design the seed rejected (an
//!    `Option` profile field on `Machine`, sampled at the safepoint: the
//!    runtime's `sampled-profile` feature), a no-op debugger, and `cove
//!    profile` under each clock. The report is each configuration's slope —
//!    Δ native instructions over Δ Cove instructions — and its ratio to the
//!    unwatched loop's (see [`crate::slope`]): "off means off" is the
//!    profiler-linked-in row reading 1.0000×, and the seed's "2.9% on
//!    `arith`" question about the rejected shape gets its exact answer.
//! 2. **Time, per mode.** CPU and wall time of `cove profile` under every
//!    `--clock` and of the no-op debugger, over `cove run`, on every
//!    benchmark and the covefmt workload, interleaved (see
//!    [`crate::modes`]), with the geometric mean of each mode.
//! 3. **Anchors.** The same kind of ratio for Lua 5.4's count hook,
//!    Python's cProfile and callgrind itself, measured side by side on
//!    `fib` (see [`crate::anchors`]).
//!
//! Nothing is asserted: timings on a shared machine are evidence, and the
//! counts are exact but only mean something beside each other. The report
//! starts with the date, the command and the machine's load, so a table
//! pasted into `docs/PROFILING.md` says where it came from. The whole
//! command takes some minutes: three release builds, some twenty runs under
//! valgrind and a few repetitions of the suite under six configurations;
//! `--parts` picks the sections and `--small` shrinks the suite.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::anchors;
use crate::build::{self, Variant};
use crate::modes::{self, Runner};
use crate::native;
use crate::ratios::Measure;
use crate::slope::{Counted, SlopeTable};

/// The sections of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Native instructions at two sizes, as slopes.
    Count,
    /// Every profile mode timed on the suite.
    Time,
    /// Lua's hook, cProfile and callgrind, timed on `fib`.
    Anchors,
}

impl Part {
    fn parse(word: &str) -> Result<Part, String> {
        match word {
            "count" => Ok(Part::Count),
            "time" => Ok(Part::Time),
            "anchors" => Ok(Part::Anchors),
            other => Err(format!(
                "--parts: unknown part {other} (count, time, anchors)"
            )),
        }
    }
}

/// What to measure, from the command line.
#[derive(Debug, PartialEq)]
pub struct Options {
    /// Interleaved repetitions of every timed run.
    pub reps: usize,
    /// The sections to run, in the report's order.
    pub parts: Vec<Part>,
    /// Whether the timed suite runs at its check sizes.
    pub small: bool,
    /// The program whose native instructions are counted.
    pub program: PathBuf,
    /// Its two size arguments, smaller first.
    pub sizes: [String; 2],
    /// The configurations the time part runs beside `cove run`: all when
    /// `None`.
    pub modes: Option<Vec<Runner>>,
}

/// The counted program when none is given: the seed measured its 2.9% on
/// it.
const DEFAULT_PROGRAM: &str = "examples/bench/arith.cove";
/// `arith`'s two sizes: about 1.1 and 3.3 million Cove instructions, which
/// keeps the slowest configuration under callgrind to a minute.
const DEFAULT_SIZES: [&str; 2] = ["100000", "300000"];

impl Options {
    /// Reads `[--reps N] [--parts P,..] [--modes M,..] [--small] [--sizes A,B]
    /// [PROGRAM]`.
    pub fn parse(words: &[String]) -> Result<Options, String> {
        let mut reps = 3;
        let mut parts = vec![Part::Count, Part::Time, Part::Anchors];
        let mut small = false;
        let mut program = None;
        let mut sizes = None;
        let mut modes = None;
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
                "--parts" => {
                    let list = words
                        .next()
                        .ok_or("--parts needs a list: count,time,anchors")?;
                    parts = list.split(',').map(Part::parse).collect::<Result<_, _>>()?;
                }
                "--sizes" => {
                    let list = words.next().ok_or("--sizes needs two sizes: A,B")?;
                    sizes = Some(parse_sizes(list)?);
                }
                "--modes" => {
                    let list = words
                        .next()
                        .ok_or("--modes needs a list: noop,none,sampled,real,counter")?;
                    modes = Some(
                        list.split(',')
                            .map(Runner::parse)
                            .collect::<Result<Vec<_>, _>>()?,
                    );
                }
                "--small" => small = true,
                "-h" | "--help" => return Err(USAGE.to_string()),
                flag if flag.starts_with('-') => {
                    return Err(format!("unknown option {flag}\n{USAGE}"));
                }
                path => {
                    if program.is_some() {
                        return Err(format!("one program only (the second: {path})\n{USAGE}"));
                    }
                    program = Some(PathBuf::from(path));
                }
            }
        }
        let sizes = match (sizes, &program) {
            (Some(sizes), _) => sizes,
            (None, None) => DEFAULT_SIZES.map(String::from),
            (None, Some(path)) => {
                return Err(format!(
                    "{}: give its two sizes with --sizes A,B\n{USAGE}",
                    path.display()
                ));
            }
        };
        let program = program.unwrap_or_else(|| build::workspace_root().join(DEFAULT_PROGRAM));
        Ok(Options {
            reps,
            parts,
            small,
            program,
            sizes,
            modes,
        })
    }
}

/// Two size arguments, `A,B`, whole numbers with A below B.
fn parse_sizes(list: &str) -> Result<[String; 2], String> {
    let sizes: Vec<&str> = list.split(',').collect();
    let [a, b] = sizes[..] else {
        return Err(format!("--sizes: two sizes, A,B, not {list}"));
    };
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) if x < y => Ok([a.to_string(), b.to_string()]),
        _ => Err(format!(
            "--sizes: two whole numbers, the smaller first, not {list}"
        )),
    }
}

/// The task's help text.
pub const USAGE: &str = "\
usage: cargo xtask bench-overhead [--reps N] [--parts count,time,anchors]
                                  [--modes noop,none,sampled,real,counter]
                                  [--small] [--sizes A,B] [PROGRAM]

count    native instructions (callgrind) of PROGRAM (default
         examples/bench/arith.cove, sizes 100000,300000) at the two sizes
         under every configuration: cove run, without the profiler linked
         in, the rejected shape, a no-op debugger and cove profile under
         each clock; prints each slope per Cove instruction and its ratio
         to the unwatched loop's
time     CPU and wall time of every profile mode and the no-op debugger
         over cove run, on every examples/bench program and the covefmt
         workload (--small: at their check sizes; --modes: only those
         beside cove run), N interleaved repetitions (default 3),
         medians [min–max], geomeans
anchors  Lua 5.4's count hook, python3 -m cProfile and callgrind on cove
         run, each over its plain run, on fib, timed the same way

Asserts nothing; exits 0 unless a run fails.";

/// Runs the chosen sections and prints the report.
pub fn run(options: &Options) -> Result<(), String> {
    let root = build::workspace_root();
    if !options.program.exists() {
        return Err(format!("{}: no such program", options.program.display()));
    }
    let today = build::build(&root, Variant::Today)?;
    let (without, rejected) = if options.parts.contains(&Part::Count) {
        (
            build::build(&root, Variant::NoProfiler),
            build::build(&root, Variant::Sampled),
        )
    } else {
        (Err("not built".to_string()), Err("not built".to_string()))
    };
    println!("bench-overhead, {}", today_utc());
    println!(
        "command: cargo xtask bench-overhead {}",
        std::env::args().skip(2).collect::<Vec<_>>().join(" ")
    );
    println!(
        "machine: {} cores, load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_average()
    );
    for part in &options.parts {
        println!();
        match part {
            Part::Count => count(&root, &today, without.as_ref(), rejected.as_ref(), options)?,
            Part::Time => {
                let suite = modes::suite(&root, options.small)?;
                let table = modes::measure(&today, &suite, options.reps, options.modes.as_deref())?;
                println!(
                    "every profile mode over cove run, {} interleaved repetitions{}; \
                     cove profile -o /dev/null; ratios of paired runs, median [min–max]",
                    options.reps,
                    if options.small { ", check sizes" } else { "" }
                );
                println!();
                println!("CPU time (user+sys, wait4):");
                println!();
                print!("{}", table.render(Measure::Cpu));
                println!();
                println!("wall time:");
                println!();
                print!("{}", table.render(Measure::Wall));
            }
            Part::Anchors => {
                let table = anchors::measure(&root, &today, options.reps)?;
                println!(
                    "anchors on fib (examples/bench/fib.{{cove,lua,py}}, fib(32)), {} interleaved \
                     repetitions, ratios of paired runs, median [min–max]",
                    options.reps
                );
                println!();
                println!("CPU time (user+sys, wait4):");
                println!();
                print!("{}", table.render(Measure::Cpu));
                println!();
                println!("wall time:");
                println!();
                print!("{}", table.render(Measure::Wall));
            }
        }
    }
    println!();
    println!("load average at the end: {}", load_average());
    Ok(())
}

/// The counting section: every configuration's slope on the program.
fn count(
    root: &Path,
    today: &Path,
    without: Result<&PathBuf, &String>,
    rejected: Result<&PathBuf, &String>,
    options: &Options,
) -> Result<(), String> {
    let program = &options.program;
    let mut cove = [0; 2];
    for (n, size) in cove.iter_mut().zip(&options.sizes) {
        *n = cove_instructions(today, program, size)?;
    }
    let configs: Vec<(String, Result<&Path, String>, Runner)> = vec![
        (
            "cove run (the unwatched loop)".into(),
            Ok(today),
            Runner::Run,
        ),
        (
            "cove run, built without the profiler linked in".into(),
            without.map(PathBuf::as_path).map_err(Clone::clone),
            Runner::Run,
        ),
        (
            "cove run, rejected shape (Option field sampled at the safepoint)".into(),
            rejected.map(PathBuf::as_path).map_err(Clone::clone),
            Runner::Run,
        ),
        (
            "no-op debugger (bench-run --debugger noop)".into(),
            Ok(today),
            Runner::Noop,
        ),
        (
            "cove profile --clock none".into(),
            Ok(today),
            Runner::Profile(Some("none")),
        ),
        (
            "cove profile (sampled, the default)".into(),
            Ok(today),
            Runner::Profile(None),
        ),
        (
            "cove profile --clock real".into(),
            Ok(today),
            Runner::Profile(Some("real")),
        ),
        (
            "cove profile --clock counter".into(),
            Ok(today),
            Runner::Profile(Some("counter")),
        ),
    ];
    let mut rows = Vec::new();
    let mut jitter = None;
    let mut how = "";
    for (label, binary, runner) in configs {
        let native = binary.and_then(|binary| {
            let mut counts = [0; 2];
            for (n, size) in counts.iter_mut().zip(&options.sizes) {
                eprintln!("bench-overhead: counting {label} at size {size} (valgrind; slow)");
                let c =
                    native::count(&runner.command(binary, program, std::slice::from_ref(size)))?;
                how = c.how;
                *n = c.instructions;
            }
            if runner == Runner::Run {
                // Once more at the large size: how far two counts of one
                // command differ.
                let again = native::count(&runner.command(
                    binary,
                    program,
                    std::slice::from_ref(&options.sizes[1]),
                ))?;
                let apart = again.instructions.abs_diff(counts[1]);
                jitter = Some(jitter.map_or(apart, |j: u64| j.max(apart)));
            }
            Ok(counts)
        });
        rows.push(Counted { label, native });
    }
    let table = SlopeTable {
        program: format!(
            "{}, counted by {how}, whole process",
            relative(root, program)
        ),
        sizes: options.sizes.clone(),
        cove,
        rows,
        base: 0,
        jitter,
    };
    print!("{}", table.render());
    println!(
        "(The sampled mode's sampler thread wakes on a timer, so its count moves with \
         the wall time a run takes under valgrind; the others count the same work every time.)"
    );
    Ok(())
}

/// The Cove instructions a run of `program SIZE` executes, from `cove
/// bench-run`'s report line.
fn cove_instructions(cove: &Path, program: &Path, size: &str) -> Result<u64, String> {
    let output = Command::new(cove)
        .args(["bench-run", "--debugger", "off"])
        .arg(program)
        .arg(size)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", cove.display()))?;
    let said = String::from_utf8_lossy(&output.stderr);
    parse_instructions(&said).ok_or_else(|| {
        format!(
            "{} {size} reported no instruction count (status {}):\n{said}",
            program.display(),
            output.status
        )
    })
}

/// Reads M from `bench-run: nanos N instructions M`.
fn parse_instructions(stderr: &str) -> Option<u64> {
    let line = stderr.lines().find(|l| l.starts_with("bench-run:"))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "instructions")?;
    words.get(at + 1)?.parse().ok()
}

/// The machine's load averages, as `/proc/loadavg` gives them.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_string())
}

/// Today's date in UTC, `YYYY-MM-DD`.
fn today_utc() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((seconds / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02} UTC")
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
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

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn a_runs_instruction_count_is_read_back() {
        let said = "hello\nbench-run: nanos 1200 instructions 34\n";
        assert_eq!(parse_instructions(said), Some(34));
        assert_eq!(parse_instructions("error: division by zero\n"), None);
    }

    #[test]
    fn by_default_every_part_runs_on_arith_at_its_two_sizes() {
        let o = Options::parse(&[]).expect("defaults");
        assert!(o.program.ends_with("examples/bench/arith.cove"));
        assert_eq!(o.sizes, DEFAULT_SIZES.map(String::from));
        assert_eq!(o.parts, [Part::Count, Part::Time, Part::Anchors]);
        assert_eq!((o.reps, o.small), (3, false));
    }

    #[test]
    fn options_read_reps_parts_modes_small_sizes_and_a_program() {
        let o = Options::parse(&words(
            "--reps 5 --parts time,count --modes none,sampled --small --sizes 10,20 p.cove",
        ))
        .expect("valid");
        assert_eq!(
            o,
            Options {
                reps: 5,
                parts: vec![Part::Time, Part::Count],
                small: true,
                program: PathBuf::from("p.cove"),
                sizes: ["10".to_string(), "20".to_string()],
                modes: Some(vec![Runner::Profile(Some("none")), Runner::Profile(None)]),
            }
        );
    }

    #[test]
    fn a_program_without_sizes_is_refused_since_its_sizes_cannot_be_guessed() {
        let why = Options::parse(&words("p.cove")).expect_err("no sizes");
        assert!(why.contains("--sizes"), "{why}");
    }

    #[test]
    fn sizes_must_be_two_whole_numbers_the_smaller_first() {
        for bad in ["10", "10,20,30", "20,10", "10,10", "a,20"] {
            assert!(parse_sizes(bad).is_err(), "{bad}");
        }
        assert!(parse_sizes("10,20").is_ok());
    }

    #[test]
    fn bad_options_are_usage_errors() {
        for bad in [
            "--reps 0",
            "--reps",
            "--parts colour",
            "--frobnicate",
            "a.cove b.cove",
        ] {
            assert!(Options::parse(&words(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_day_count_becomes_its_calendar_date() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_788), (2026, 12, 1));
    }
}
