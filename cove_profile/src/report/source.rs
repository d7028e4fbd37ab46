//! The profile laid over the source: every file of the program, line by
//! line, with what each line cost and the functions defined in it.
//!
//! Coverage (lcov), the annotated listing and the HTML report all print a
//! file in source order rather than a top-N of rows, so they share this one
//! view instead of each regrouping the instructions. It costs one pass over
//! the instruction rows and one over every function's line table, when a
//! report asks for it; nothing is kept between reports.
//!
//! A line "holds code" when any instruction of the program that control
//! can reach maps to it, whether or not it ran: that is what makes a line
//! that never ran a coverage miss rather than a comment. An instruction
//! nothing reaches (a jump the compiler's threading left behind, code
//! after a `return`) is not code a run could have covered. A line's
//! `hits` is the most times any one of its instructions ran, which for
//! straight-line code is how many times the line was reached (its
//! instruction count, `cost.ran`, counts every instruction of it each
//! time).

use std::collections::BTreeMap;

use cove_ir::program::FunctionId;

use super::Report;
use crate::cost::Charge;

/// One source file of the program, as the listing formats print it.
#[derive(Debug, Clone)]
pub(crate) struct SourceFile<'a> {
    /// The module's path as the program names it.
    pub(crate) path: &'a str,
    /// The module's source text.
    pub(crate) text: &'a str,
    /// Every line that holds code, by line number.
    pub(crate) lines: BTreeMap<u32, LineCost>,
    /// Every function defined in the file, in the order of their first line.
    pub(crate) functions: Vec<FunctionCost>,
}

/// What one line cost.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LineCost {
    /// Its instructions' cost, summed.
    pub(crate) cost: Charge,
    /// The most times one of its instructions ran.
    pub(crate) hits: u64,
}

/// One function of a file, with its totals.
#[derive(Debug, Clone)]
pub(crate) struct FunctionCost {
    pub(crate) function: FunctionId,
    /// `module.function`.
    pub(crate) name: String,
    /// The line it starts on (its first instruction's), or 0.
    pub(crate) line: u32,
    /// The line of its `fn` declaration: the nearest line at or above
    /// `line` that declares it, or `line` if none is found.
    pub(crate) declared: u32,
    /// Frames of it pushed.
    pub(crate) calls: u64,
    /// Its own instructions.
    pub(crate) own: Charge,
    /// Its own and everything they called.
    pub(crate) inclusive: Charge,
}

/// How many lines above a function's first instruction its declaration is
/// looked for (a signature spread over several lines, doc comments aside).
const DECLARATION_REACH: u32 = 16;

impl<'a> Report<'a> {
    /// Every module of the program with its lines and functions, in the
    /// program's module order (imports first, the entry last).
    pub(crate) fn source_files(&self) -> Vec<SourceFile<'a>> {
        let program = self.program;
        let mut files: Vec<SourceFile<'a>> = program
            .modules
            .iter()
            .map(|module| SourceFile {
                path: module.path.as_str(),
                text: module.source.as_str(),
                lines: BTreeMap::new(),
                functions: Vec::new(),
            })
            .collect();
        let file_of = |function: FunctionId| -> Option<usize> {
            let module = &program.functions.get(function.index())?.module;
            program.modules.iter().position(|m| &m.name == module)
        };
        let rows: BTreeMap<FunctionId, &super::FunctionRow> = self
            .functions
            .iter()
            .map(|row| (row.function, row))
            .collect();
        for (index, function) in program.functions.iter().enumerate() {
            let id = FunctionId(index as u32);
            let Some(file) = file_of(id) else { continue };
            let reachable = cove_ir::op::reachable(&function.code);
            for (&line, reached) in function.lines.iter().zip(reachable) {
                if line > 0 && reached {
                    files[file].lines.entry(line).or_default();
                }
            }
            let row = rows.get(&id);
            let line = program.line_of(id, 0).unwrap_or(0);
            let declaration = format!("fn {}", function.name);
            let declared = (line.saturating_sub(DECLARATION_REACH).max(1)..=line)
                .rev()
                .find(|n| {
                    self.printer()
                        .line(&program.modules[file].name, *n)
                        .is_some_and(|t| t.contains(&declaration))
                })
                .unwrap_or(line);
            files[file].functions.push(FunctionCost {
                function: id,
                name: program.function_name(id).to_string(),
                line,
                declared,
                calls: row.map_or(0, |r| r.calls),
                own: row.map_or_else(Charge::default, |r| r.own),
                inclusive: row.map_or_else(Charge::default, |r| r.inclusive),
            });
        }
        for row in &self.instructions {
            let (Some(file), Some(line)) = (file_of(row.function), row.line) else {
                continue;
            };
            if line == 0 {
                continue;
            }
            // Every line of a reachable instruction is in already; one of
            // an unreachable instruction (which no run counts) stays out.
            let Some(at) = files[file].lines.get_mut(&line) else {
                continue;
            };
            at.cost.add(&row.cost);
            at.hits = at.hits.max(row.cost.ran);
        }
        for file in &mut files {
            file.functions.sort_by_key(|f| (f.declared, f.function));
        }
        files
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Profiler, Sample, SteppingClock};

    #[test]
    fn a_line_that_never_ran_still_holds_code_and_a_line_without_code_is_absent() {
        let program = cove_compiler::compile_module(
            "m",
            "fn never() -> Int {\n  7\n}\n\nexport fn main() -> Int {\n  1\n}\n",
        )
        .unwrap();
        let profiler = Profiler::with_clock(SteppingClock::new(1));
        let main = program.find_function("m", "main").unwrap();
        for pc in 0..program.functions[main.index()].code.len() as u32 {
            profiler.record(&Sample {
                task: 0,
                function: main,
                pc,
                depth: 1,
                allocated_words: 0,
                allocations: 0,
                blocked_nanos: 0,
            });
        }
        let report = Report::new(&program, &profiler);
        let files = report.source_files();
        assert_eq!(files.len(), 1);
        let lines = &files[0].lines;
        assert_eq!(lines.get(&2).map(|l| l.hits), Some(0), "never's body");
        assert!(
            lines.get(&6).is_some_and(|l| l.hits == 1),
            "main's body ran once"
        );
        assert!(lines.get(&4).is_none(), "a blank line holds no code");
        let names: Vec<&str> = files[0].functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["m.never", "m.main"]);
    }
}
