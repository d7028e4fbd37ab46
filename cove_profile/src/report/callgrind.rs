//! The callgrind format, which `callgrind_annotate` and KCachegrind read.
//!
//! Events are the four figures, `Ir ns words allocs`, `Ir` being the name
//! those tools already give "instructions executed". Positions are
//! `instr line`: an instruction's address is its function's base plus its
//! pc, the bases laid end to end in function order so that every
//! instruction of the program has an address of its own, and the line is
//! its source line (0 where the program has none). Each function is a
//! `fn=` block under the `fl=` of its module's path; each call site is a
//! `cfn=` / `calls=` pair at the address and line of its `call`, carrying
//! the inclusive cost of the calls it made. As in callgrind itself, a
//! recursive call's cost is also inside the call that contains it.
//!
//! Files are named by absolute path (made so against the current
//! directory when the report is written), so that `callgrind_annotate
//! --auto=yes` and KCachegrind find the source from wherever they are
//! started, not only from the directory the profile was taken in.
//!
//! Names are compressed (`fn=(3) m.fib` the first time, `fn=(3)` after), as
//! the format allows, to keep a profile of a big program small.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use cove_ir::program::FunctionId;

use super::Report;
use crate::cost::Cost;
use crate::shard::SiteCost;

/// The compressed-name tables of one file.
#[derive(Default)]
struct Names {
    files: HashMap<String, usize>,
    functions: HashMap<FunctionId, usize>,
}

impl Names {
    fn file(&mut self, path: &str) -> String {
        if let Some(id) = self.files.get(path) {
            return format!("({id})");
        }
        let id = self.files.len() + 1;
        self.files.insert(path.to_string(), id);
        format!("({id}) {path}")
    }

    fn function(&mut self, id: FunctionId, name: &str) -> String {
        if let Some(n) = self.functions.get(&id) {
            return format!("({n})");
        }
        let n = self.functions.len() + 1;
        self.functions.insert(id, n);
        format!("({n}) {}", name.replace(char::is_whitespace, "_"))
    }
}

fn costs(cost: &Cost) -> String {
    format!(
        "{} {} {} {}",
        cost.ran, cost.nanos, cost.words, cost.allocations
    )
}

impl Report<'_> {
    /// The profile in the callgrind format: save it as `callgrind.out.NAME`
    /// and open it with `callgrind_annotate` or KCachegrind.
    pub fn callgrind(&self) -> String {
        let program = self.program;
        // Each function's first address.
        let mut base = Vec::with_capacity(program.functions.len());
        let mut next = 0u64;
        for function in &program.functions {
            base.push(next);
            next += function.code.len() as u64;
        }
        let address = |f: FunctionId, pc: u32| -> u64 {
            base.get(f.index()).copied().unwrap_or(next) + u64::from(pc)
        };

        let mut sites: BTreeMap<(FunctionId, u32, FunctionId), SiteCost> = BTreeMap::new();
        for task in &self.tasks {
            for (site, cost) in &task.sites {
                let kept = sites.entry(*site).or_default();
                kept.calls += cost.calls;
                kept.inclusive.add(&cost.inclusive);
            }
        }

        let mut out = String::new();
        out.push_str("# callgrind format\n");
        out.push_str("version: 1\n");
        let _ = writeln!(out, "creator: cove_profile {}", env!("CARGO_PKG_VERSION"));
        let _ = writeln!(out, "cmd: {}", self.title());
        let _ = writeln!(
            out,
            "desc: Timing: ns include a floor of ~{:.1} ns an instruction ({} clock); Ir, words and allocs are exact",
            self.floor.nanos, self.clock
        );
        out.push_str("positions: instr line\n");
        out.push_str("events: Ir ns words allocs\n");
        let _ = writeln!(out, "summary: {}", costs(&self.total));

        let mut names = Names::default();
        let mut by_function: BTreeMap<FunctionId, Vec<usize>> = BTreeMap::new();
        for (i, row) in self.instructions.iter().enumerate() {
            by_function.entry(row.function).or_default().push(i);
        }
        for (function, rows) in by_function {
            out.push('\n');
            let _ = writeln!(out, "fl={}", names.file(&self.absolute_path_of(function)));
            let _ = writeln!(
                out,
                "fn={}",
                names.function(function, program.function_name(function))
            );
            for i in rows {
                let row = &self.instructions[i];
                let _ = writeln!(
                    out,
                    "{:#x} {} {}",
                    address(function, row.pc),
                    row.line.unwrap_or(0),
                    costs(&row.cost)
                );
                for ((_, _, callee), site) in sites.range(
                    (function, row.pc, FunctionId(0))..=(function, row.pc, FunctionId(u32::MAX)),
                ) {
                    let callee_path = self.absolute_path_of(*callee);
                    if callee_path != self.absolute_path_of(function) {
                        let _ = writeln!(out, "cfl={}", names.file(&callee_path));
                    }
                    let _ = writeln!(
                        out,
                        "cfn={}",
                        names.function(*callee, program.function_name(*callee))
                    );
                    let _ = writeln!(
                        out,
                        "calls={} {:#x} {}",
                        site.calls,
                        address(*callee, 0),
                        program.line_of(*callee, 0).unwrap_or(0)
                    );
                    let _ = writeln!(
                        out,
                        "{:#x} {} {}",
                        address(function, row.pc),
                        row.line.unwrap_or(0),
                        costs(&site.inclusive)
                    );
                }
            }
        }
        out
    }
}
