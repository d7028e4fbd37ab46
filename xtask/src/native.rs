//! Exact native instruction counts of one process, from valgrind or perf.
//!
//! Time cannot show that two binaries do the same work — it moves by more
//! than the difference being looked for — but a count of the machine
//! instructions retired can. `valgrind --tool=callgrind` counts them exactly,
//! in every thread of the process (a Cove run happens on a thread of its
//! own, which rules out counting inside one function with
//! `--toggle-collect`: that is per thread). So the whole process is counted,
//! and the caller takes the difference of two counts of the same command
//! at two sizes of the program (see [`crate::slope`]), which leaves what the
//! larger run's extra instructions took. `perf stat -e instructions:u` is
//! the fallback where valgrind is missing; its counter may be unavailable
//! in a container, and then this says so rather than printing a number.
//! A count costs the run some fifty times its own time under valgrind.

use std::process::{Command, Stdio};

/// A count and the tool that made it.
#[derive(Debug, Clone)]
pub struct Count {
    /// Machine instructions retired.
    pub instructions: u64,
    /// How they were counted, for the report.
    pub how: &'static str,
}

/// Counts the native instructions of one run of `command` (its program and
/// arguments; its other settings are not used).
pub fn count(command: &Command) -> Result<Count, String> {
    if available("valgrind") {
        callgrind(command)
    } else if available("perf") {
        perf(command)
    } else {
        Err("neither valgrind nor perf is installed (Debian: apt-get install valgrind)".to_string())
    }
}

/// Whether `tool --version` runs.
pub fn available(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn callgrind(command: &Command) -> Result<Count, String> {
    let output = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--callgrind-out-file=/dev/null")
        .arg(command.get_program())
        .args(command.get_args())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("could not start valgrind: {e}"))?;
    let said = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!("{command:?} failed under valgrind:\n{said}"));
    }
    // callgrind ends with `==pid== Collected : 123456789`.
    let collected = said
        .lines()
        .find_map(|l| l.split("Collected :").nth(1))
        .and_then(|n| n.trim().parse::<u64>().ok())
        .ok_or_else(|| format!("callgrind printed no count:\n{said}"))?;
    Ok(Count {
        instructions: collected,
        how: "valgrind --tool=callgrind",
    })
}

fn perf(command: &Command) -> Result<Count, String> {
    let output = Command::new("perf")
        .args(["stat", "-x", ",", "-e", "instructions:u", "--"])
        .arg(command.get_program())
        .args(command.get_args())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("could not start perf: {e}"))?;
    let said = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!("{command:?} failed under perf:\n{said}"));
    }
    // `perf stat -x,` prints `123456,,instructions:u,...`, or
    // `<not supported>,,instructions:u` where the counter is unavailable.
    let line = said
        .lines()
        .find(|l| l.contains("instructions"))
        .ok_or_else(|| format!("perf printed no count:\n{said}"))?;
    let first = line.split(',').next().unwrap_or("");
    let instructions = first
        .trim()
        .parse::<u64>()
        .map_err(|_| format!("perf could not count instructions here: {line}"))?;
    Ok(Count {
        instructions,
        how: "perf stat -e instructions:u",
    })
}
