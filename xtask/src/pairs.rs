//! `cargo xtask opcode-pairs`: which two instructions run one after the
//! other most often over the benchmark suite, the data superinstructions
//! are chosen from.
//!
//! A pair is counted from a profile's exact per-instruction counts, not by
//! tracing: when an instruction always goes on to the next one (it neither
//! jumps, branches nor returns), every time it ran the next one ran right
//! after it, so the pair `(pc, pc + 1)` ran exactly as often as `pc`. A call
//! or an allocation ends a profiler's stretch but still goes on to the next
//! instruction (after the callee returns), so it counts too. A branch's
//! fall-through is left out: its count is not in a profile, and a guess
//! would rank pairs by something other than what ran.
//!
//! It reads the JSON profiles `cove profile --format json --clock none`
//! writes (the cheapest mode that still counts every instruction), so it
//! needs nothing of the profiler's inside and costs one profiled run of
//! each program; given files instead, it reads those. The table ranks pairs
//! by their mean share of each program's instructions, so a long program
//! does not outweigh the rest, and gives the summed count beside it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cove_ir::op::{Opcode, OperandKind};

use crate::build;
use crate::peers;

const USAGE: &str = "\
usage: cargo xtask opcode-pairs [--small] [--top N] [PROFILE.json...]

  --small       profile every program at its `// check: N` size
  --top N       print the N most frequent pairs (default 30)
  PROFILE.json  read these profiles instead of profiling the suite";

/// What to count, from the command line.
#[derive(Debug, PartialEq)]
pub struct Options {
    /// Whether to run each program at its small check size.
    pub small: bool,
    /// How many rows to print.
    pub top: usize,
    /// Profiles to read; empty to profile the suite.
    pub files: Vec<PathBuf>,
}

impl Options {
    /// Reads `[--small] [--top N] [PROFILE.json...]`.
    pub fn parse(words: &[String]) -> Result<Options, String> {
        let mut options = Options {
            small: false,
            top: 30,
            files: Vec::new(),
        };
        let mut words = words.iter();
        while let Some(word) = words.next() {
            match word.as_str() {
                "--small" => options.small = true,
                "--top" => {
                    let n = words.next().ok_or("--top needs a number")?;
                    options.top = n.parse().map_err(|_| format!("--top: not a number: {n}"))?;
                }
                "-h" | "--help" => return Err(USAGE.to_string()),
                file if !file.starts_with('-') => options.files.push(PathBuf::from(file)),
                other => return Err(format!("unknown option {other}\n{USAGE}")),
            }
        }
        Ok(options)
    }
}

/// One instruction of a profile: where it is, its opcode, how often it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    /// `module.function`.
    pub function: String,
    /// Its program counter.
    pub pc: u32,
    /// Its opcode.
    pub opcode: Opcode,
    /// How many times it ran.
    pub ran: u64,
}

/// Whether an instruction of `opcode`, having run, always goes on to the
/// next one: it has no jump target and does not return.
fn falls_through(opcode: Opcode) -> bool {
    !opcode.operand_kinds().contains(&OperandKind::Target)
        && !matches!(
            opcode,
            Opcode::Return
                | Opcode::ReturnUnit
                | Opcode::ReturnIfEqIntImm
                | Opcode::ReturnIfNeIntImm
                | Opcode::ReturnIfLtIntImm
                | Opcode::ReturnIfLeIntImm
                | Opcode::ReturnIfGtIntImm
                | Opcode::ReturnIfGeIntImm
        )
}

/// The instructions of one JSON profile, or why it is not one.
pub fn instructions_of(json: &str) -> Result<Vec<Ran>, String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    let rows = value
        .get("instructions")
        .and_then(|v| v.as_array())
        .ok_or("no `instructions` array: not a cove profile")?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let field = |name: &str| {
            row.get(name)
                .ok_or(format!("an instruction has no `{name}`"))
        };
        let function = field("function")?.as_str().unwrap_or_default().to_string();
        let pc = field("pc")?.as_u64().ok_or("`pc` is not a number")? as u32;
        let ran = field("cost")?
            .get("ran")
            .and_then(|v| v.as_u64())
            .ok_or("`cost.ran` is not a number")?;
        // The printed form is `m.main@7  add.int r2, r2, r1`.
        let text = field("text")?.as_str().unwrap_or_default();
        let mnemonic = text.split_whitespace().nth(1).unwrap_or_default();
        let opcode = Opcode::from_mnemonic(mnemonic)
            .ok_or_else(|| format!("unknown opcode {mnemonic:?} in {text:?}"))?;
        out.push(Ran {
            function,
            pc,
            opcode,
            ran,
        });
    }
    Ok(out)
}

/// Every pair of adjacent instructions whose count is exact, with how often
/// it ran, summed by opcode pair; and the run's total instructions.
pub fn pairs(instructions: &[Ran]) -> (BTreeMap<(Opcode, Opcode), u64>, u64) {
    let mut at: BTreeMap<(&str, u32), &Ran> = BTreeMap::new();
    for i in instructions {
        at.insert((i.function.as_str(), i.pc), i);
    }
    let mut counts = BTreeMap::new();
    let mut total = 0;
    for i in instructions {
        total += i.ran;
        if !falls_through(i.opcode) {
            continue;
        }
        if let Some(next) = at.get(&(i.function.as_str(), i.pc + 1)) {
            *counts.entry((i.opcode, next.opcode)).or_insert(0) += i.ran;
        }
    }
    (counts, total)
}

/// The JSON profile of one run of `bench`, written by `cove profile`.
fn profile(cove: &Path, bench: &peers::Bench, out: &Path) -> Result<String, String> {
    let status = Command::new(cove)
        .args(["profile", "--format", "json", "--clock", "none", "-o"])
        .arg(out)
        .arg(&bench.cove)
        .args(&bench.args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("could not start {}: {e}", cove.display()))?;
    if !status.success() {
        return Err(format!("cove profile of {} failed: {status}", bench.label));
    }
    std::fs::read_to_string(out).map_err(|e| format!("{}: {e}", out.display()))
}

/// Runs the task.
pub fn run(options: &Options) -> Result<(), String> {
    let mut profiles: Vec<(String, String)> = Vec::new();
    if options.files.is_empty() {
        let root = build::workspace_root();
        let cove = peers::build_cove(&root)?;
        let dir = std::env::temp_dir().join(format!("cove-opcode-pairs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for bench in peers::suite(&root, options.small)? {
            // The two scaling rows of `append` repeat its full-size row.
            if bench.label.contains(' ') {
                continue;
            }
            eprintln!("opcode-pairs: profiling {}", bench.label);
            let out = dir.join(format!("{}.json", bench.label));
            profiles.push((bench.label.clone(), profile(&cove, &bench, &out)?));
        }
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        for file in &options.files {
            let text =
                std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            profiles.push((file.display().to_string(), text));
        }
    }

    // Per pair: the summed count, the summed share, and the program it is
    // heaviest in.
    let mut table: BTreeMap<(Opcode, Opcode), (u64, f64, f64, String)> = BTreeMap::new();
    for (name, json) in &profiles {
        let (counts, total) = pairs(&instructions_of(json).map_err(|e| format!("{name}: {e}"))?);
        for (pair, n) in counts {
            let share = n as f64 / total.max(1) as f64;
            let row = table.entry(pair).or_insert((0, 0.0, 0.0, String::new()));
            row.0 += n;
            row.1 += share;
            if share > row.2 {
                row.2 = share;
                row.3 = name.clone();
            }
        }
    }
    let mut rows: Vec<_> = table.into_iter().collect();
    rows.sort_by(|a, b| b.1.1.total_cmp(&a.1.1).then(a.0.cmp(&b.0)));
    println!(
        "opcode-pairs: {} profiles; a pair's count is its first instruction's \
         (branches' fall-throughs left out)",
        profiles.len()
    );
    println!();
    println!("| first | second | runs | mean share | heaviest in |");
    println!("|---|---|---:|---:|---|");
    let n = profiles.len().max(1) as f64;
    for ((a, b), (count, share, most, name)) in rows.iter().take(options.top) {
        println!(
            "| `{a}` | `{b}` | {count} | {:.2}% | {name} ({:.1}%) |",
            100.0 * share / n,
            100.0 * most
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(function: &str, pc: u32, opcode: Opcode, ran: u64) -> Ran {
        Ran {
            function: function.to_string(),
            pc,
            opcode,
            ran,
        }
    }

    #[test]
    fn a_pair_runs_as_often_as_its_first_instruction_when_that_falls_through() {
        let code = [
            ran("m.f", 0, Opcode::AddInt, 10),
            ran("m.f", 1, Opcode::LtInt, 10),
            ran("m.f", 2, Opcode::JumpIf, 10),
            ran("m.f", 3, Opcode::Move, 4),
            ran("m.f", 4, Opcode::Return, 10),
        ];
        let (counts, total) = pairs(&code);
        assert_eq!(total, 44);
        assert_eq!(counts.get(&(Opcode::AddInt, Opcode::LtInt)), Some(&10));
        assert_eq!(counts.get(&(Opcode::LtInt, Opcode::JumpIf)), Some(&10));
        assert_eq!(counts.get(&(Opcode::Move, Opcode::Return)), Some(&4));
        // A branch's fall-through is not counted: it is not in the profile.
        assert_eq!(counts.get(&(Opcode::JumpIf, Opcode::Move)), None);
        assert_eq!(counts.len(), 3);
    }

    #[test]
    fn pairs_of_one_opcode_pair_in_two_functions_are_summed_and_never_cross_functions() {
        let code = [
            ran("m.f", 0, Opcode::Move, 3),
            ran("m.f", 1, Opcode::Move, 3),
            ran("m.g", 2, Opcode::Move, 5),
            ran("m.g", 3, Opcode::Move, 5),
        ];
        let (counts, _) = pairs(&code);
        assert_eq!(counts.get(&(Opcode::Move, Opcode::Move)), Some(&8));
    }

    #[test]
    fn a_profiles_instructions_are_read_with_their_opcodes() {
        let json = r#"{"instructions": [
            {"function": "m.main", "pc": 7, "line": 3,
             "text": "m.main@7  add.int r2, r2, r1",
             "cost": {"ran": 12, "nanos": 0, "words": 0, "allocations": 0}}
        ]}"#;
        assert_eq!(
            instructions_of(json),
            Ok(vec![ran("m.main", 7, Opcode::AddInt, 12)])
        );
        assert!(instructions_of("{}").is_err());
    }

    #[test]
    fn options_read_small_top_and_files() {
        let words: Vec<String> = ["--small", "--top", "5", "a.json"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            Options::parse(&words),
            Ok(Options {
                small: true,
                top: 5,
                files: vec![PathBuf::from("a.json")],
            })
        );
    }
}
