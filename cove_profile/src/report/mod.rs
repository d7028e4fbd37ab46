//! Reports: a profile read against the program it ran.
//!
//! The profiler holds function ids and program counters and nothing else; a
//! report is where they meet the [`Program`] and become instructions, opcodes,
//! callees and source lines. [`Report::new`] takes one copy of the profile
//! and groups it once, and each format — an aligned [text table](Report::table),
//! [JSON](Report::json), [callgrind](Report::callgrind),
//! [folded stacks](Report::folded) and a [flame graph](Report::svg) — renders
//! from that.
//!
//! Every grouping is a sum of the flat rows, so it is as exact as they are:
//! counts and heap figures exactly, time as a ratio. Rows are sorted by the
//! figure asked for, largest first, and ties keep the order of the thing's
//! own identity (function, then pc; opcode; path, then line), so an
//! unchanged program reports the same order twice.

mod annotate;
mod callgrind;
mod flame;
mod folded;
mod html;
pub(crate) mod json;
mod lcov;
#[cfg(feature = "pprof")]
pub mod pprof;
mod source;
mod speedscope;
mod subject;
mod text;

use std::collections::BTreeMap;

use cove_ir::op::{Instr, Opcode};
use cove_ir::print::Printer;
use cove_ir::program::{FunctionId, Program};

use crate::context::ROOT;
use crate::cost::{Charge, Cost};
use crate::profiler::{Floor, Profiler};
use crate::shard::TaskProfile;

pub use annotate::Annotate;
pub use folded::{BLOCKED_FRAME, ELIDED_FRAME, FOLDED_MAX_FRAMES};
pub use json::{
    CallEntry, FunctionEntry, Group, InstructionEntry, JSON_SCHEMA, Profile, ProfileError,
    SCHEMA_VERSION, StackEntry, TaskEntry,
};
pub use subject::{Subject, ir_hash};
pub(crate) use text::thousands;

/// What a table groups the instructions of a run by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum By {
    /// Each instruction: function and program counter, printed with its
    /// source line.
    Instruction,
    /// Each function, with its self and its inclusive cost.
    Function,
    /// Each opcode (`add.int`, `call-builtin`, ...).
    Opcode,
    /// The function a `call` or `spawn` names, or the builtin a
    /// `call-builtin` names: the cost of the calling instructions
    /// themselves, which for a builtin is the whole of it.
    Callee,
    /// Each source line.
    Line,
    /// Each caller → callee pair, with the calls made and their inclusive
    /// cost.
    Call,
    /// Each task the profile covers, with the function it started from.
    Task,
}

impl By {
    /// Every grouping, in the order a full report prints them.
    pub const ALL: [By; 7] = [
        By::Task,
        By::Function,
        By::Call,
        By::Instruction,
        By::Line,
        By::Opcode,
        By::Callee,
    ];

    /// The grouping a word names: `instruction`, `function`, `opcode`,
    /// `callee`, `line`, `call` or `task`.
    pub fn from_name(name: &str) -> Option<By> {
        Some(match name {
            "instruction" | "instructions" | "instr" => By::Instruction,
            "function" | "functions" | "fn" => By::Function,
            "opcode" | "opcodes" | "op" => By::Opcode,
            "callee" | "callees" => By::Callee,
            "line" | "lines" => By::Line,
            "call" | "calls" => By::Call,
            "task" | "tasks" => By::Task,
            _ => return None,
        })
    }

    /// The word [`By::from_name`] reads.
    pub fn name(self) -> &'static str {
        match self {
            By::Instruction => "instruction",
            By::Function => "function",
            By::Opcode => "opcode",
            By::Callee => "callee",
            By::Line => "line",
            By::Call => "call",
            By::Task => "task",
        }
    }
}

/// One of the four figures a row carries: what a flame graph's widths, a
/// folded file's counts or a table's order are made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Instructions executed.
    Ran,
    /// Nanoseconds, floor included.
    Nanos,
    /// Heap words handed out.
    Words,
    /// Heap objects handed out.
    Allocations,
}

impl Metric {
    /// Every metric.
    pub const ALL: [Metric; 4] = [
        Metric::Ran,
        Metric::Nanos,
        Metric::Words,
        Metric::Allocations,
    ];

    /// This figure of `cost`.
    pub fn of(self, cost: &Cost) -> u64 {
        match self {
            Metric::Ran => cost.ran,
            Metric::Nanos => cost.nanos,
            Metric::Words => cost.words,
            Metric::Allocations => cost.allocations,
        }
    }

    /// The metric a word names: `ran`, `nanos`, `words` or `allocations`.
    pub fn from_name(name: &str) -> Option<Metric> {
        Some(match name {
            "ran" | "instructions" | "count" => Metric::Ran,
            "nanos" | "ns" | "time" => Metric::Nanos,
            "words" => Metric::Words,
            "allocations" | "allocs" => Metric::Allocations,
            _ => return None,
        })
    }

    /// The word [`Metric::from_name`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Ran => "ran",
            Metric::Nanos => "nanos",
            Metric::Words => "words",
            Metric::Allocations => "allocations",
        }
    }

    /// What one unit of it is, for a flame graph's tooltip.
    pub(crate) fn unit(self) -> &'static str {
        match self {
            Metric::Ran => "instructions",
            Metric::Nanos => "ns",
            Metric::Words => "words",
            Metric::Allocations => "allocations",
        }
    }
}

/// One instruction of the run, with everything a format prints of it.
#[derive(Debug, Clone)]
pub(crate) struct InstructionRow {
    pub(crate) function: FunctionId,
    pub(crate) pc: u32,
    pub(crate) instr: Option<Instr>,
    pub(crate) line: Option<u32>,
    pub(crate) cost: Charge,
}

/// One function of the run.
#[derive(Debug, Clone)]
pub(crate) struct FunctionRow {
    pub(crate) function: FunctionId,
    /// Frames of it pushed.
    pub(crate) calls: u64,
    /// Its own instructions.
    pub(crate) own: Charge,
    /// Its own instructions and everything they called, each instruction
    /// once however deep a recursion went.
    pub(crate) inclusive: Charge,
}

/// One caller → callee pair.
#[derive(Debug, Clone)]
pub(crate) struct EdgeRow {
    pub(crate) caller: FunctionId,
    pub(crate) callee: FunctionId,
    pub(crate) calls: u64,
    /// What the calls cost, callee and all it called, each instruction once
    /// even where the pair recurs on a path.
    pub(crate) inclusive: Charge,
}

/// A row of a grouping, ready to print.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// What the row is: an instruction, a function name, an opcode.
    pub(crate) label: String,
    /// Where: a source location, or the source text of a line.
    pub(crate) place: String,
    pub(crate) cost: Charge,
    /// For functions and calls: the cost with everything called.
    pub(crate) inclusive: Option<Charge>,
    /// For functions and calls: how many calls.
    pub(crate) calls: Option<u64>,
}

/// A profile read against its program, ready to render in any format.
#[derive(Debug)]
pub struct Report<'a> {
    program: &'a Program,
    floor: Floor,
    /// What the reports call the clock: `real`, `counter` or `injected`
    /// for an interval clock, `sampled` or `none`.
    clock: &'static str,
    /// What sampled time rests on, for a sampling profiler.
    estimate: Option<crate::profiler::Estimate>,
    follows_tasks: bool,
    tasks: Vec<TaskProfile>,
    total: Charge,
    instructions: Vec<InstructionRow>,
    functions: Vec<FunctionRow>,
    edges: Vec<EdgeRow>,
    /// The program's identity, when the caller gave it.
    subject: Option<Subject>,
    /// Whether stacks of time show blocked time too ([`Report::with_idle`]).
    idle: bool,
    /// The program's printer, which splits every module's source into
    /// lines and counts the functions' names once, when a report first
    /// shows a line or an instruction: finding each line anew from the
    /// start of its source, and each called function's name by a scan of
    /// every function, made a report of many functions quadratic.
    printer: Printer<'a>,
}

impl<'a> Report<'a> {
    /// Reads `profiler`'s profile against `program`, the program it ran.
    ///
    /// A function id or program counter the program does not have (a
    /// profile read against the wrong program) is printed as unknown rather
    /// than trusted.
    pub fn new(program: &'a Program, profiler: &Profiler) -> Report<'a> {
        let tasks = profiler.snapshot();
        let mut total = Charge::default();
        let mut flat: BTreeMap<(FunctionId, u32), Charge> = BTreeMap::new();
        for task in &tasks {
            total.add(&task.total);
            for (at, cost) in &task.rows {
                flat.entry(*at).or_default().add(cost);
            }
        }
        let instructions = flat
            .into_iter()
            .map(|((function, pc), cost)| InstructionRow {
                function,
                pc,
                instr: program
                    .functions
                    .get(function.index())
                    .and_then(|f| f.code.get(pc as usize))
                    .copied(),
                line: program.line_of(function, pc),
                cost,
            })
            .collect();
        let (functions, edges) = calling_context(&tasks);
        Report {
            program,
            floor: profiler.floor(),
            clock: profiler.clock_name(),
            estimate: profiler.estimate(),
            follows_tasks: profiler.follows_tasks(),
            tasks,
            total,
            instructions,
            functions,
            edges,
            subject: None,
            idle: false,
            printer: Printer::new(program),
        }
    }

    /// The functions the call at `pc` of `function` reached, by name,
    /// `<closure>` if the profile saw none.
    fn reached(&self, function: FunctionId, pc: u32) -> String {
        let mut names: Vec<&str> = self
            .tasks
            .iter()
            .flat_map(|t| t.sites.iter())
            .filter(|((caller, at, _), _)| *caller == function && *at == pc)
            .map(|((_, _, callee), _)| self.program.function_name(*callee))
            .collect();
        names.sort_unstable();
        names.dedup();
        if names.is_empty() {
            "<closure>".to_string()
        } else {
            names.join(", ")
        }
    }

    /// This report, recording what it is a profile of: `program` run from
    /// `entry` with `args` (see [`Subject`]).
    pub fn with_subject(mut self, entry: &str, args: &[String]) -> Report<'a> {
        self.subject = Some(Subject::new(self.program, entry, args));
        self
    }

    /// This report, its stacks of time (folded, SVG, speedscope, pprof)
    /// showing blocked time too when `idle`: each path that waited gets a
    /// leaf frame [`BLOCKED_FRAME`] holding its blocked nanoseconds. By
    /// default they leave it out, as py-spy leaves out idle threads, and
    /// show running time only. Tables and JSON always keep blocked time
    /// apart, in a figure of its own.
    pub fn with_idle(mut self, idle: bool) -> Report<'a> {
        self.idle = idle;
        self
    }

    /// Whether stacks of time show blocked time (see [`Report::with_idle`]).
    pub fn idle(&self) -> bool {
        self.idle
    }

    /// What the profile is of, when [`Report::with_subject`] said.
    pub fn subject(&self) -> Option<&Subject> {
        self.subject.as_ref()
    }

    /// What a report's title calls the program: the entry and its
    /// arguments as [`Report::with_subject`] gave them, or else the entry
    /// module's path.
    pub fn title(&self) -> String {
        match &self.subject {
            Some(subject) => std::iter::once(subject.entry.as_str())
                .chain(subject.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            None => self
                .program
                .modules
                .last()
                .map_or_else(|| "cove".to_string(), |m| m.path.clone()),
        }
    }

    /// What the whole profile cost.
    pub fn total(&self) -> Cost {
        self.total.cost
    }

    /// The floor measured when the profile began.
    pub fn floor(&self) -> Floor {
        self.floor
    }

    /// The program the profile is read against.
    pub fn program(&self) -> &'a Program {
        self.program
    }

    /// The rows of one grouping, in identity order (not yet sorted).
    pub(crate) fn rows(&self, by: By) -> Vec<Row> {
        match by {
            By::Instruction => self
                .instructions
                .iter()
                .map(|row| Row {
                    label: self.instruction_text(row.function, row.pc),
                    place: self.location(row.function, row.line),
                    cost: row.cost,
                    inclusive: None,
                    calls: None,
                })
                .collect(),
            By::Function => self
                .functions
                .iter()
                .map(|row| Row {
                    label: self.program.function_name(row.function).to_string(),
                    place: self.location(row.function, self.program.line_of(row.function, 0)),
                    cost: row.own,
                    inclusive: Some(row.inclusive),
                    calls: Some(row.calls),
                })
                .collect(),
            By::Call => self
                .edges
                .iter()
                .map(|row| Row {
                    label: format!(
                        "{} -> {}",
                        self.program.function_name(row.caller),
                        self.program.function_name(row.callee)
                    ),
                    place: String::new(),
                    cost: Charge::default(),
                    inclusive: Some(row.inclusive),
                    calls: Some(row.calls),
                })
                .collect(),
            By::Task => self
                .tasks
                .iter()
                .map(|task| Row {
                    label: format!("task {}", task.task),
                    place: task.tree.nodes[ROOT as usize]
                        .children
                        .iter()
                        .map(|(f, _)| self.program.function_name(*f))
                        .collect::<Vec<_>>()
                        .join(", "),
                    cost: task.total,
                    inclusive: None,
                    calls: None,
                })
                .collect(),
            By::Opcode => {
                let mut per: BTreeMap<Option<Opcode>, Charge> = BTreeMap::new();
                for row in &self.instructions {
                    per.entry(row.instr.map(|i| i.opcode()))
                        .or_default()
                        .add(&row.cost);
                }
                per.into_iter()
                    .map(|(opcode, cost)| Row {
                        label: opcode.map_or("<unknown>", |o| o.mnemonic()).to_string(),
                        place: String::new(),
                        cost,
                        inclusive: None,
                        calls: None,
                    })
                    .collect()
            }
            By::Callee => {
                let mut per: BTreeMap<(u8, String), Charge> = BTreeMap::new();
                for row in &self.instructions {
                    let direct = row.instr.as_ref().and_then(Instr::direct_callee);
                    let key = match (direct, row.instr) {
                        (Some(func), _) => (0, self.program.function_name(func).to_string()),
                        (_, Some(Instr::CallBuiltin { builtin, .. })) => {
                            (1, builtin.name().to_string())
                        }
                        (_, Some(Instr::Spawn { func, .. })) => {
                            (2, self.program.function_name(func).to_string())
                        }
                        // A call through a function value: the functions
                        // its call sites reached.
                        (_, Some(Instr::CallClosure { .. } | Instr::MoveCallClosure { .. })) => {
                            (3, self.reached(row.function, row.pc))
                        }
                        _ => continue,
                    };
                    per.entry(key).or_default().add(&row.cost);
                }
                per.into_iter()
                    .map(|((kind, name), cost)| Row {
                        label: name,
                        place: ["call", "call-builtin", "spawn", "call.closure"][kind as usize]
                            .to_string(),
                        cost,
                        inclusive: None,
                        calls: None,
                    })
                    .collect()
            }
            By::Line => {
                let mut per: BTreeMap<(String, u32), (FunctionId, Charge)> = BTreeMap::new();
                for row in &self.instructions {
                    let Some(line) = row.line else { continue };
                    let path = self.path_of(row.function).to_string();
                    per.entry((path, line))
                        .or_insert((row.function, Charge::default()))
                        .1
                        .add(&row.cost);
                }
                per.into_iter()
                    .map(|((path, line), (function, cost))| Row {
                        label: format!("{path}:{line}"),
                        place: self.source_line(function, line).trim().to_string(),
                        cost,
                        inclusive: None,
                        calls: None,
                    })
                    .collect()
            }
        }
    }

    /// One instruction as the printer renders it, or a placeholder for one
    /// the program does not have.
    pub(crate) fn instruction_text(&self, function: FunctionId, pc: u32) -> String {
        self.printer.one(function, pc)
    }

    /// `path:line`, or the function's path alone.
    pub(crate) fn location(&self, function: FunctionId, line: Option<u32>) -> String {
        match line {
            Some(line) => format!("{}:{line}", self.path_of(function)),
            None => self.path_of(function).to_string(),
        }
    }

    /// The path of the module that defines `function`.
    pub(crate) fn path_of(&self, function: FunctionId) -> &'a str {
        let program = self.program;
        program
            .functions
            .get(function.index())
            .and_then(|f| program.module(&f.module))
            .map_or("<unknown>", |m| m.path.as_str())
    }

    /// The path of the module that defines `function`, made absolute
    /// against the current directory, as tools that open the source from
    /// wherever they are started need it (KCachegrind, `callgrind_annotate`,
    /// `go tool pprof -list`, `genhtml`). A path that cannot be made
    /// absolute is kept as it is.
    pub(crate) fn absolute_path_of(&self, function: FunctionId) -> String {
        absolute(self.path_of(function))
    }

    /// The text of a source line of `function`'s module.
    pub(crate) fn source_line(&self, function: FunctionId, line: u32) -> &'a str {
        self.printer.function_line(function, line).unwrap_or("")
    }

    /// The program's printer, shared by every format of this report.
    pub(crate) fn printer(&self) -> &Printer<'a> {
        &self.printer
    }

    /// Every node of every task's calling-context tree, task by task and,
    /// within a task, in the tree's own order, in which a node always
    /// comes after its caller: what the formats that show paths of calls
    /// walk. Linear in the number of nodes; a path is never written out
    /// whole here, which is what keeps a deep recursion's reports linear
    /// in its depth rather than quadratic.
    pub(crate) fn contexts(&self) -> impl Iterator<Item = Context<'a>> + '_ {
        let program = self.program;
        self.tasks.iter().flat_map(move |task| {
            task.tree
                .nodes
                .iter()
                .enumerate()
                .skip(1)
                .map(move |(id, node)| Context {
                    task: task.task,
                    id: id as u32,
                    parent: node.parent,
                    function: program.function_name(node.function),
                    calls: node.calls,
                    cost: node.cost,
                })
        })
    }

    /// Whether spawned tasks were followed.
    pub(crate) fn follows_tasks(&self) -> bool {
        self.follows_tasks
    }
}

/// One node of a task's calling-context tree: one function reached by one
/// path of calls.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context<'a> {
    /// The task it ran on.
    pub(crate) task: u32,
    /// Its index in the task's tree; 0 is the task's root, which is no
    /// function and never a context.
    pub(crate) id: u32,
    /// Its caller's index; 0 for a function the task started from.
    pub(crate) parent: u32,
    /// `module.function`.
    pub(crate) function: &'a str,
    /// Frames of it this path pushed.
    pub(crate) calls: u64,
    /// What ran in the function itself on this path.
    pub(crate) cost: Charge,
}

/// `path` made absolute against the current directory (no file is
/// touched), or `path` itself if it cannot be.
pub(crate) fn absolute(path: &str) -> String {
    if path.starts_with('<') {
        return path.to_string();
    }
    std::path::absolute(path).map_or_else(|_| path.to_string(), |p| p.display().to_string())
}

/// Per-function self and inclusive cost and caller → callee pairs, from
/// every task's calling-context tree.
///
/// A function's inclusive cost adds the subtrees of its outermost
/// activations only (nodes with no ancestor of the same function), so each
/// instruction is counted once however deep a recursion went; a caller →
/// callee pair's likewise adds only the subtrees of its outermost
/// occurrences on a path, so `fib -> fib` is what fib's calls to itself
/// cost, each instruction once, and never more than the run. A depth-first
/// walk keeps how many times each function and each pair is on the current
/// path.
fn calling_context(tasks: &[TaskProfile]) -> (Vec<FunctionRow>, Vec<EdgeRow>) {
    let mut functions: BTreeMap<FunctionId, FunctionRow> = BTreeMap::new();
    let mut edges: BTreeMap<(FunctionId, FunctionId), EdgeRow> = BTreeMap::new();
    for task in tasks {
        let tree = &task.tree;
        let inclusive = tree.inclusive();
        let mut on_path: BTreeMap<FunctionId, u32> = BTreeMap::new();
        let mut pairs_on_path: BTreeMap<(FunctionId, FunctionId), u32> = BTreeMap::new();
        // (node, whether its children were pushed)
        let mut walk: Vec<(u32, bool)> = tree.nodes[ROOT as usize]
            .children
            .iter()
            .rev()
            .map(|(_, n)| (*n, false))
            .collect();
        while let Some((id, done)) = walk.pop() {
            let node = &tree.nodes[id as usize];
            let pair = (node.parent != ROOT)
                .then(|| (tree.nodes[node.parent as usize].function, node.function));
            if done {
                if let Some(n) = on_path.get_mut(&node.function) {
                    *n -= 1;
                }
                if let Some(n) = pair.and_then(|pair| pairs_on_path.get_mut(&pair)) {
                    *n -= 1;
                }
                continue;
            }
            let row = functions.entry(node.function).or_insert(FunctionRow {
                function: node.function,
                calls: 0,
                own: Charge::default(),
                inclusive: Charge::default(),
            });
            row.calls += node.calls;
            row.own.add(&node.cost);
            let depth = on_path.entry(node.function).or_insert(0);
            if *depth == 0 {
                row.inclusive.add(&inclusive[id as usize]);
            }
            *depth += 1;
            if let Some((caller, callee)) = pair {
                let edge = edges.entry((caller, callee)).or_insert(EdgeRow {
                    caller,
                    callee,
                    calls: 0,
                    inclusive: Charge::default(),
                });
                edge.calls += node.calls;
                let depth = pairs_on_path.entry((caller, callee)).or_insert(0);
                if *depth == 0 {
                    edge.inclusive.add(&inclusive[id as usize]);
                }
                *depth += 1;
            }
            walk.push((id, true));
            walk.extend(node.children.iter().rev().map(|(_, n)| (*n, false)));
        }
    }
    (
        functions.into_values().collect(),
        edges.into_values().collect(),
    )
}

/// Sorts rows by `metric` (the inclusive figure where a row has one and
/// no self figure), largest first; ties keep their identity order.
pub(crate) fn sort_rows(rows: &mut [Row], metric: Metric) {
    rows.sort_by_key(|row| {
        let cost = if row.cost.is_empty() {
            row.inclusive.unwrap_or_default()
        } else {
            row.cost
        };
        std::cmp::Reverse(metric.of(&cost))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grouping_and_metric_reads_back_from_its_own_name() {
        for by in By::ALL {
            assert_eq!(By::from_name(by.name()), Some(by));
        }
        for metric in Metric::ALL {
            assert_eq!(Metric::from_name(metric.name()), Some(metric));
        }
        assert_eq!(By::from_name("nonsense"), None);
        assert_eq!(Metric::from_name("nonsense"), None);
    }
}
