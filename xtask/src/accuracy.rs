//! `cargo xtask profile-accuracy`: does the time a profile reports agree
//! with the run nobody profiled?
//!
//! A profile's time is checked against reality, not against itself. For
//! every benchmark program this runs the program unprofiled (`cove
//! bench-run --debugger off`, which times the run alone, not compiling or
//! starting the process: the main task's processor time and the time it
//! spent blocked, which is what a profile of the main task describes;
//! the process's processor time would hold every task's work, which on
//! two cores is more than the run lasts) and profiled with the
//! default sampled clock (`cove profile --format json`), interleaved,
//! several times each, and prints the median unprofiled time beside the
//! median of the profile's total (its `nanos`, which is net of the
//! profiler's own stops, and the time it spent `blocked`), their ratio,
//! and whether it is within ±25%. The default profile measures its total
//! by replaying the run unwatched (`cove_cli/src/replay.rs`), so the
//! table also prints the profile's estimate from its samples alone
//! (`--no-replay`), the figure every row's share of the total rests on,
//! and its ratio.
//!
//! The time blocked is part of the estimate because it is part of the run:
//! a program whose main task spawns the work and joins it takes as long as
//! the main task waits. The profile reports that time apart from the time
//! running (waiting is not work), and on a program that never waits it is
//! nothing, so the estimate there is the running time alone.
//!
//! Then the split: `cove_profile/examples/split.cove` runs two functions
//! of different cost, `a` and `b`, or both. Each is timed alone unprofiled,
//! and a profile of both says how the time divided between them; the two
//! shares are printed side by side.
//!
//! Nothing here is a test: the machines are shared and noisy, so this
//! prints figures for a person to read and the docs to quote.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::build::{self, Variant};
use crate::stats::Summary;

/// The story's three word searches, checked beside the suite: the worked
/// example of `docs/PROFILING.md` reads their profiles' time.
const STORY: &[&str] = &[
    "cove_profile/examples/story/search_bytes.cove",
    "cove_profile/examples/story/search_contains.cove",
    "cove_profile/examples/story/search_split.cove",
];

/// The programs whose estimates are checked, with their arguments: every
/// program of `examples/bench/` at its default size and the covefmt
/// workload (the suite `cargo xtask bench-overhead` times), then the story.
fn programs(root: &Path) -> Result<Vec<(String, Vec<String>)>, String> {
    let mut all: Vec<(String, Vec<String>)> = crate::modes::suite(root, false)?
        .into_iter()
        .map(|bench| {
            let path = bench.path.strip_prefix(root).unwrap_or(&bench.path);
            (path.display().to_string(), bench.args)
        })
        .collect();
    all.extend(STORY.iter().map(|p| (p.to_string(), Vec::new())));
    Ok(all)
}

/// Runs the task with `reps` interleaved repetitions of each measurement.
pub fn run(reps: usize) -> Result<(), String> {
    let root = build::workspace_root();
    let cove = build::build(&root, Variant::Today)?;
    println!("profile-accuracy: {reps} interleaved repetitions, medians; time of the run alone");
    println!();
    println!(
        "{:<48} {:>12} {:>12} {:>6}  {:>12} {:>6}  within ±25%",
        "program", "unprofiled", "profile", "ratio", "samples", "ratio"
    );
    let mut ratios = Vec::new();
    let mut sampled_ratios = Vec::new();
    let mut costs: Vec<[f64; 5]> = Vec::new();
    for (program, args) in programs(&root)? {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let args = &args[..];
        let path = root.join(&program);
        let mut plain = Vec::new();
        let mut estimate = Vec::new();
        let mut sampled = Vec::new();
        for _ in 0..reps {
            plain.push(unprofiled(&cove, &path, args)? as f64);
            let (nanos, _) = profiled(&cove, &path, args, &[])?;
            estimate.push(nanos as f64);
            let (nanos, rested_on) = profiled(&cove, &path, args, &["--no-replay"])?;
            sampled.push(nanos as f64);
            costs.extend(rested_on);
        }
        let (Some(plain), Some(estimate), Some(sampled)) = (
            Summary::of(&plain),
            Summary::of(&estimate),
            Summary::of(&sampled),
        ) else {
            continue;
        };
        let ratio = estimate.median / plain.median;
        let sampled_ratio = sampled.median / plain.median;
        ratios.push(ratio);
        sampled_ratios.push(sampled_ratio);
        let within = |r: f64| {
            if (0.75..=1.25).contains(&r) {
                "yes"
            } else {
                "NO"
            }
        };
        println!(
            "{:<48} {:>9.1} ms {:>9.1} ms {:>6.2}  {:>9.1} ms {:>6.2}  {} / {}",
            program,
            plain.median / 1e6,
            estimate.median / 1e6,
            ratio,
            sampled.median / 1e6,
            sampled_ratio,
            within(ratio),
            within(sampled_ratio),
        );
    }
    if !ratios.is_empty() {
        let geomean = |rs: &[f64]| (rs.iter().map(|r| r.ln()).sum::<f64>() / rs.len() as f64).exp();
        println!(
            "{:<48} {:>12} {:>12} {:>6.2}  {:>12} {:>6.2}",
            "geomean",
            "",
            "",
            geomean(&ratios),
            "",
            geomean(&sampled_ratios)
        );
    }
    if let [
        Some(fast),
        Some(instruction),
        Some(heavy),
        Some(quick),
        Some(call),
    ] = [0, 1, 2, 3, 4].map(|i| Summary::of(&costs.iter().map(|c| c[i]).collect::<Vec<_>>()))
    {
        println!();
        println!(
            "the calibration the {} profiles rested on, median [least–most], ns: a stop {:.2} \
             [{:.2}–{:.2}], an instruction {:.2} [{:.2}–{:.2}], and beyond a stop's, a stop after \
             an allocation {:.1} [{:.1}–{:.1}], after a builtin that allocated nothing {:.1} \
             [{:.1}–{:.1}], after a call or a return {:.1} [{:.1}–{:.1}]",
            costs.len(),
            fast.median,
            fast.min,
            fast.max,
            instruction.median,
            instruction.min,
            instruction.max,
            heavy.median,
            heavy.min,
            heavy.max,
            quick.median,
            quick.min,
            quick.max,
            call.median,
            call.min,
            call.max
        );
    }

    println!();
    let split = root.join("cove_profile/examples/split.cove");
    let (mut alone_a, mut alone_b, mut share_a) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        alone_a.push(unprofiled(&cove, &split, &["a"])? as f64);
        alone_b.push(unprofiled(&cove, &split, &["b"])? as f64);
        share_a.push(function_share(&cove, &split)?);
    }
    let (Some(a), Some(b), Some(share)) = (
        Summary::of(&alone_a),
        Summary::of(&alone_b),
        Summary::of(&share_a),
    ) else {
        return Ok(());
    };
    let real = a.median / (a.median + b.median);
    println!("split: split.a's share of split.a + split.b");
    println!(
        "  timed alone, unprofiled: {:.1}% ({:.1} ms and {:.1} ms)",
        real * 100.0,
        a.median / 1e6,
        b.median / 1e6
    );
    println!(
        "  the profile of both:     {:.1}% (ratio {:.2}, within ±25%: {})",
        share.median * 100.0,
        share.median / real,
        if (0.75..=1.25).contains(&(share.median / real)) {
            "yes"
        } else {
            "NO"
        }
    );
    Ok(())
}

/// The run's own time, unprofiled, as the profile of its main task
/// describes it: that task's processor time and the time it spent
/// blocked. Where the platform has no clock per thread, the process's
/// processor time, and where it has none at all, the wall time.
fn unprofiled(cove: &Path, program: &Path, args: &[&str]) -> Result<u64, String> {
    let output = Command::new(cove)
        .args(["bench-run", "--debugger", "off"])
        .arg(program)
        .args(args)
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", cove.display()))?;
    let said = String::from_utf8_lossy(&output.stderr);
    let line = said
        .lines()
        .find_map(|l| l.strip_prefix("bench-run: "))
        .ok_or_else(|| format!("{}: no timing in:\n{said}", program.display()))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let figure = |name: &str| -> Option<u64> {
        let at = words.iter().position(|w| *w == name)?;
        words.get(at + 1)?.parse().ok()
    };
    figure("task")
        .map(|task| task + figure("blocked").unwrap_or(0))
        .or_else(|| figure("cpu"))
        .or_else(|| figure("nanos"))
        .ok_or_else(|| format!("{}: no timing in:\n{said}", program.display()))
}

/// The JSON profile of one run.
fn profile_json(
    cove: &Path,
    program: &Path,
    args: &[&str],
    flags: &[&str],
) -> Result<serde_json::Value, String> {
    let out = std::env::temp_dir().join(format!("cove-accuracy-{}.json", std::process::id()));
    let status = Command::new(cove)
        .arg("profile")
        .args(flags)
        .args(["--format", "json", "-o"])
        .arg(&out)
        .arg(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{}: {e}", cove.display()))?;
    if !status.success() {
        return Err(format!(
            "{}: cove profile failed: {status}",
            program.display()
        ));
    }
    let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let _ = std::fs::remove_file(&out);
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", program.display()))
}

/// The profile's estimate of the run's time (running and blocked), and
/// the calibrated costs it rested on (a stop, an instruction, a stop after
/// an allocation, one after a builtin that allocated nothing, one after a
/// call or a return) when the profile says.
fn profiled(
    cove: &Path,
    program: &Path,
    args: &[&str],
    flags: &[&str],
) -> Result<(u64, Option<[f64; 5]>), String> {
    let json = profile_json(cove, program, args, flags)?;
    let nanos = json["total"]["nanos"]
        .as_u64()
        .ok_or_else(|| format!("{}: no total nanos", program.display()))?;
    // Left out where it is nothing, as a cost's `blocked` always is.
    let blocked = json["total"]["blocked"].as_u64().unwrap_or(0);
    let nanos = nanos + blocked;
    let costs = &json["estimate"]["costs"];
    let rested_on = ["fast", "instruction", "heavy", "quick", "call"].map(|k| costs[k].as_f64());
    let rested_on = match rested_on {
        [Some(a), Some(b), Some(c), Some(d), Some(e)] => Some([a, b, c, d, e]),
        _ => None,
    };
    Ok((nanos, rested_on))
}

/// `split.a`'s share of the two functions' inclusive time in a profile of
/// both.
fn function_share(cove: &Path, program: &Path) -> Result<f64, String> {
    let json = profile_json(cove, program, &["both"], &[])?;
    let inclusive = |name: &str| -> f64 {
        json["functions"]
            .as_array()
            .and_then(|fs| fs.iter().find(|f| f["name"] == name))
            .and_then(|f| f["inclusive"]["nanos"].as_u64())
            .unwrap_or(0) as f64
    };
    let (a, b) = (inclusive("split.a"), inclusive("split.b"));
    if a + b == 0.0 {
        return Err("the profile of split.cove recorded no time".to_string());
    }
    Ok(a / (a + b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_benchmark_the_covefmt_workload_and_the_story_are_checked() {
        let root = build::workspace_root();
        let checked: Vec<String> = programs(&root)
            .expect("examples/bench is there")
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        for entry in std::fs::read_dir(root.join("examples/bench")).expect("examples/bench") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "cove") {
                let name = path
                    .strip_prefix(&root)
                    .expect("inside")
                    .display()
                    .to_string();
                assert!(checked.contains(&name), "{name} is not checked");
            }
        }
        assert!(checked.contains(&"examples/bench/covefmt/main.cove".to_string()));
        for story in STORY {
            assert!(checked.contains(&story.to_string()), "{story}");
            assert!(root.join(story).exists(), "{story}");
        }
        assert!(root.join("cove_profile/examples/split.cove").exists());
    }
}
