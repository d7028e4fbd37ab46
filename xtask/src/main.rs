//! `cargo xtask`: project chores, run as `cargo xtask TASK`.
//!
//! The `cargo xtask` convention: a binary in the workspace, reached through
//! an alias in `.cargo/config.toml`, so chores are Rust with no tool to
//! install. It builds and runs the other crates as processes and is never
//! a dependency of them.
//!
//! Tasks:
//! - `bench-overhead`: what watching a run costs (see [`overhead`]).
//! - `profile-accuracy [--reps N]`: a profile's estimated time against
//!   the unprofiled run's (see [`accuracy`]).
//! - `bench-peers [--reps N] [--callgrind] [--small] [NAME...]`: Cove
//!   against Lua 5.4 and LuaJIT's interpreter on the benchmark suite (see
//!   [`peers`]).
//! - `opcode-pairs [--small] [--top N] [PROFILE.json...]`: the adjacent
//!   instruction pairs that run most often over the suite, from the
//!   profiler's exact counts (see [`pairs`]).
//! - `docs [--bless]`: check, or refresh, every command output pasted in
//!   `README.md` and `docs/*.md` (see [`docs`]).

mod accuracy;
mod anchors;
mod build;
mod cputime;
mod docs;
mod modes;
mod native;
mod overhead;
mod pairs;
mod peers;
mod ratios;
mod slope;
mod stats;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask TASK

tasks:
  bench-overhead [--reps N] [--parts count,time,anchors] [--modes M,..] [--small] [--sizes A,B] [PROGRAM]
      what watching a run costs: native instructions per Cove instruction
      of every configuration (slopes between two sizes), every profile
      mode's CPU and wall time over cove run on the suite, and anchors
      (Lua's count hook, cProfile, callgrind) measured side by side
  profile-accuracy [--reps N]
      the time a default (sampled) profile estimates against the
      unprofiled run's, for every benchmark, and how a profile splits
      time between two functions against each timed alone
  bench-peers [--reps N] [--callgrind] [--small] [NAME...]
      the benchmark suite under cove, lua5.4 and luajit -joff: checks each
      pair prints the same answer, then CPU and wall time, interleaved,
      medians and ratios; --callgrind adds native instruction counts
  opcode-pairs [--small] [--top N] [PROFILE.json...]
      the adjacent instruction pairs that run most often over the suite,
      counted from `cove profile --format json` (or the profiles given):
      the data superinstructions are chosen from
  docs [--bless]
      check that every command output pasted in README.md and docs/*.md
      (the blocks marked <!-- cove-doc -->) is what the command prints;
      with --bless, rewrite them with what it prints now";

fn main() -> ExitCode {
    let words: Vec<String> = std::env::args().skip(1).collect();
    match words.first().map(String::as_str) {
        Some("bench-overhead") => match overhead::Options::parse(&words[1..]) {
            Ok(options) => match overhead::run(&options) {
                Ok(()) => ExitCode::SUCCESS,
                Err(why) => {
                    eprintln!("bench-overhead: {why}");
                    ExitCode::FAILURE
                }
            },
            Err(usage) => {
                eprintln!("{usage}");
                ExitCode::from(2)
            }
        },
        Some("profile-accuracy") => {
            let reps = match words.get(1).map(String::as_str) {
                None => Ok(5),
                Some("--reps") => words
                    .get(2)
                    .and_then(|n| n.parse::<usize>().ok())
                    .filter(|n| *n > 0)
                    .ok_or(()),
                Some(_) => Err(()),
            };
            match reps {
                Ok(reps) => match accuracy::run(reps) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(why) => {
                        eprintln!("profile-accuracy: {why}");
                        ExitCode::FAILURE
                    }
                },
                Err(()) => {
                    eprintln!("{USAGE}");
                    ExitCode::from(2)
                }
            }
        }
        Some("bench-peers") => match peers::Options::parse(&words[1..]) {
            Ok(options) => match peers::run(&options) {
                Ok(()) => ExitCode::SUCCESS,
                Err(why) => {
                    eprintln!("bench-peers: {why}");
                    ExitCode::FAILURE
                }
            },
            Err(usage) => {
                eprintln!("{usage}");
                ExitCode::from(2)
            }
        },
        Some("opcode-pairs") => match pairs::Options::parse(&words[1..]) {
            Ok(options) => match pairs::run(&options) {
                Ok(()) => ExitCode::SUCCESS,
                Err(why) => {
                    eprintln!("opcode-pairs: {why}");
                    ExitCode::FAILURE
                }
            },
            Err(usage) => {
                eprintln!("{usage}");
                ExitCode::from(2)
            }
        },
        Some("docs") => match words.get(1).map(String::as_str) {
            None => docs::run(false),
            Some("--bless") => docs::run(true),
            Some(_) => {
                eprintln!("{USAGE}");
                ExitCode::from(2)
            }
        },
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
