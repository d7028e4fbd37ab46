//! The text both debug front ends show: a frame's place, its source line,
//! a window of source or of instructions with the current one marked, a
//! local as `name: Type = value`, and the profile of the run so far.
//!
//! Plain functions of the program and a [`cove_debug::Snapshot`]'s frames, so the
//! terminal prints them and the DAP server sends them (`evaluate`,
//! `disassemble`, the `profile` request) without two spellings of one
//! thing.

use cove_debug::render;
use cove_debug::{FrameView, Variable};
use cove_ir::program::{FunctionId, Program};
use cove_profile::Profiler;
use cove_profile::report::{By, Report};

/// How many lines `list` shows each side of the one it is about.
pub const LIST_RADIUS: u32 = 5;

/// How many instructions `disasm` shows each side of the pc.
pub const DISASM_RADIUS: u32 = 5;

/// `m.add at examples/add.cove:3`.
pub fn place(frame: &FrameView) -> String {
    match frame.line {
        Some(line) => format!("{} at {}:{line}", frame.name, frame.path),
        None => format!("{} at {}", frame.name, frame.path),
    }
}

/// `#1  m.add (a=1, b=2) at examples/add.cove:3`: a backtrace's line, with
/// the parameters' values.
pub fn frame_line(program: &Program, index: usize, frame: &FrameView) -> String {
    let params = program.function(frame.function).params.len();
    let args: Vec<String> = frame
        .locals
        .iter()
        .filter(|v| is_param(program, frame.function, v, params))
        .map(|v| {
            format!(
                "{}={}",
                v.name,
                render::one_line(program, &v.value, Some(v.ty))
            )
        })
        .collect();
    let at = match frame.line {
        Some(line) => format!("{}:{line}", frame.path),
        None => frame.path.clone(),
    };
    format!("#{index}  {} ({}) at {at}", frame.name, args.join(", "))
}

/// Whether `v` is one of the function's parameters: the locals held in the
/// first `params` registers from the function's start.
fn is_param(program: &Program, function: FunctionId, v: &Variable, params: usize) -> bool {
    program
        .function(function)
        .locals
        .iter()
        .any(|l| l.name == v.name && usize::from(l.register.0) < params && l.live.start == 0)
}

/// `count: Int = 0`.
pub fn variable(program: &Program, v: &Variable) -> String {
    format!(
        "{}: {} = {}",
        v.name,
        render::type_name(program, Some(v.ty)),
        render::one_line(program, &v.value, Some(v.ty))
    )
}

/// The text of `line` in the module whose path is `path`.
pub fn source_text<'p>(program: &'p Program, path: &str, line: u32) -> Option<&'p str> {
    program
        .modules
        .iter()
        .find(|m| m.path == path)?
        .line_text(line)
}

/// `   3 |   a + b`, or nothing when the source has no such line.
pub fn source_line(program: &Program, path: &str, line: u32) -> Option<String> {
    source_text(program, path, line)
        .map(|text| format!("{line:>4} | {text}").trim_end().to_string())
}

/// The source around `center` in `path`, `current` marked with `>`.
pub fn list(program: &Program, path: &str, center: u32, current: Option<u32>) -> String {
    let Some(module) = program.modules.iter().find(|m| m.path == path) else {
        return format!("no source for {path}\n");
    };
    let last = module.source.lines().count() as u32;
    if last == 0 {
        return format!("{path} is empty\n");
    }
    let center = center.clamp(1, last);
    let from = center.saturating_sub(LIST_RADIUS).max(1);
    let to = (center + LIST_RADIUS).min(last);
    let mut out = String::new();
    for line in from..=to {
        let mark = if Some(line) == current { '>' } else { ' ' };
        let text = module.line_text(line).unwrap_or("");
        let row = format!("{mark}{line:>4} | {text}");
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

/// The instructions around `pc` of `function`, the one at `pc` marked
/// with `>`, each with its source line.
pub fn disasm(program: &Program, function: FunctionId, pc: u32) -> String {
    let len = program.function(function).code.len() as u32;
    let from = pc.saturating_sub(DISASM_RADIUS);
    let to = (pc + DISASM_RADIUS + 1).min(len);
    let mut out = String::new();
    for at in from..to {
        let mark = if at == pc { '>' } else { ' ' };
        let line = program
            .line_of(function, at)
            .map_or(String::new(), |l| format!("  ; line {l}"));
        out.push_str(&format!(
            "{mark} {}{line}\n",
            cove_ir::print::one(program, function, at)
        ));
    }
    out
}

/// How many rows of each table `profile` prints.
pub const PROFILE_TOP: usize = 10;

/// The profile of the run so far: totals, then by function and by line.
pub fn profile(program: &Program, profiler: &Profiler) -> String {
    let report = Report::new(program, profiler);
    let mut out = report.table(By::Function, PROFILE_TOP);
    out.push('\n');
    let lines = report.table(By::Line, PROFILE_TOP);
    // The header is already there once.
    let body = lines.split_once("\n\n").map_or(lines.as_str(), |(_, b)| b);
    out.push_str(body);
    out
}
