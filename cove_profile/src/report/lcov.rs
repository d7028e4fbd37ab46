//! Coverage in the lcov tracefile format, which `genhtml` and coverage
//! services (Codecov, Coveralls) read.
//!
//! A sampling profiler cannot say a line did not run; Cove's counts are
//! exact, so a coverage report is only a different print of them, and it
//! costs nothing a profile did not already pay. Every line that holds code
//! is a `DA:` record with its hit count (see [`super::source`] for what a
//! hit is) and every function an `FN:`/`FNDA:` pair with its calls, so a
//! function or a line that never ran shows as a miss. Files are named by
//! absolute path, which is what `genhtml` opens. No branch records: the
//! profile counts instructions, and a branch's two ways are two lines or two
//! instructions of one, which `DA:` already shows.

use std::fmt::Write as _;

use super::{Report, absolute};

impl Report<'_> {
    /// Line and function coverage, as an lcov tracefile (`.info`).
    pub fn lcov(&self) -> String {
        let mut out = String::new();
        out.push_str("TN:cove\n");
        for file in self.source_files() {
            if file.lines.is_empty() && file.functions.is_empty() {
                continue;
            }
            let _ = writeln!(out, "SF:{}", absolute(file.path));
            for function in &file.functions {
                let _ = writeln!(out, "FN:{},{}", function.declared.max(1), function.name);
            }
            for function in &file.functions {
                let _ = writeln!(out, "FNDA:{},{}", function.calls, function.name);
            }
            let hit = file.functions.iter().filter(|f| f.calls > 0).count();
            let _ = writeln!(out, "FNF:{}", file.functions.len());
            let _ = writeln!(out, "FNH:{hit}");
            for (line, cost) in &file.lines {
                let _ = writeln!(out, "DA:{line},{}", cost.hits);
            }
            let hit = file.lines.values().filter(|l| l.hits > 0).count();
            let _ = writeln!(out, "LF:{}", file.lines.len());
            let _ = writeln!(out, "LH:{hit}");
            out.push_str("end_of_record\n");
        }
        out
    }
}
