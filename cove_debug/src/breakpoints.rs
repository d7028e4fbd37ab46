//! Where a breakpoint stops: turning `FILE:LINE`, `LINE` or a function's
//! name into the instructions the engine watches for.
//!
//! A line breakpoint is resolved to the first instruction of the line in
//! each function with code on it; a line with no code (a blank, a comment,
//! a closing brace, or only instructions no run can reach) moves to the
//! next line that has some, and the resolution says so. `FILE` may be the
//! module's path as the compiler was given it or just the file's name, as
//! gdb accepts, or the module's name.
//! A function breakpoint is the function's first instruction; it is named
//! `module.function` or, when only one module has it, `function`.
//!
//! # What it costs
//!
//! Resolution reads the program's line tables once, when the breakpoint is
//! set: linear in the code of the file. Nothing of it runs per instruction;
//! the engine keeps the resolved `(function, pc)` pairs in a table it looks
//! up by function.
//!
//! # Why resolve eagerly
//!
//! A Cove program is compiled whole before it runs, so every location is
//! known when the breakpoint is set: an error ("no code at or after line
//! 90") can be given at once, at the prompt, rather than as a breakpoint
//! that silently never hits.

use std::path::Path;

use cove_ir::program::{FunctionId, Program};

/// What a breakpoint was set on, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The instructions it stops before.
    pub pcs: Vec<(FunctionId, u32)>,
    /// The module's source path.
    pub path: String,
    /// The line it stops on, which may be after the line asked for.
    pub line: u32,
    /// The line asked for, when it had no code and the breakpoint moved.
    pub moved_from: Option<u32>,
    /// The function, for a function breakpoint.
    pub function: Option<FunctionId>,
}

/// Resolves `spec`: `FILE:LINE`, `LINE` (in `default_module`'s file) or a
/// function name.
pub fn resolve(program: &Program, spec: &str, default_module: &str) -> Result<Location, String> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err("a breakpoint needs a place: FILE:LINE, LINE or FUNCTION".to_string());
    }
    if let Some((file, line)) = spec.rsplit_once(':')
        && let Ok(line) = line.trim().parse::<u32>()
    {
        return resolve_line(program, file.trim(), line);
    }
    if let Ok(line) = spec.parse::<u32>() {
        let module = program
            .module(default_module)
            .ok_or_else(|| "the program has no entry module".to_string())?;
        return resolve_line(program, &module.path.clone(), line);
    }
    resolve_function(program, spec)
}

/// The module a `FILE` names.
fn module_of<'p>(program: &'p Program, file: &str) -> Option<&'p cove_ir::program::Module> {
    let by = |f: &dyn Fn(&cove_ir::program::Module) -> bool| program.modules.iter().find(|m| f(m));
    by(&|m| m.path == file)
        .or_else(|| by(&|m| Path::new(&m.path) == Path::new(file)))
        .or_else(|| {
            by(&|m| {
                Path::new(&m.path).file_name() == Path::new(file).file_name()
                    && Path::new(file).components().count() == 1
            })
        })
        .or_else(|| by(&|m| m.name == file || format!("{}.cove", m.name) == file))
}

fn resolve_line(program: &Program, file: &str, line: u32) -> Result<Location, String> {
    let module = module_of(program, file).ok_or_else(|| {
        let known: Vec<&str> = program.modules.iter().map(|m| m.path.as_str()).collect();
        format!(
            "no source file `{file}` in the program (its files: {})",
            known.join(", ")
        )
    })?;
    // The nearest line at or after the one asked for with code on it, in
    // any function of the module. Code a run can reach: an instruction
    // nothing jumps or falls to (a jump the compiler's threading passed
    // by, the only one of a `loop {` line) would be a breakpoint that
    // never hits.
    let functions: Vec<(FunctionId, Vec<(usize, u32)>)> = program
        .function_ids()
        .filter(|id| program.function(*id).module == module.name)
        .map(|id| {
            let f = program.function(id);
            let reached = cove_ir::op::reachable(&f.code);
            let lines = f
                .lines
                .iter()
                .zip(reached)
                .enumerate()
                .filter(|(_, (_, reached))| *reached)
                .map(|(pc, (l, _))| (pc, *l))
                .collect();
            (id, lines)
        })
        .collect();
    let best = functions
        .iter()
        .flat_map(|(_, lines)| lines.iter().map(|(_, l)| *l))
        .filter(|l| *l >= line)
        .min()
        .ok_or_else(|| format!("no code at or after line {line} of {}", module.path))?;
    let pcs = functions
        .iter()
        .filter_map(|(id, lines)| {
            lines
                .iter()
                .find(|(_, l)| *l == best)
                .map(|(pc, _)| (*id, *pc as u32))
        })
        .collect();
    Ok(Location {
        pcs,
        path: module.path.clone(),
        line: best,
        moved_from: (best != line).then_some(line),
        function: None,
    })
}

fn resolve_function(program: &Program, name: &str) -> Result<Location, String> {
    let matches: Vec<FunctionId> = program
        .function_ids()
        .filter(|id| {
            let f = program.function(*id);
            f.qualified == name || f.name == name
        })
        .collect();
    let id = match matches.as_slice() {
        [] => return Err(format!("no function `{name}` in the program")),
        [one] => *one,
        many => {
            let names: Vec<&str> = many.iter().map(|id| program.function_name(*id)).collect();
            return Err(format!(
                "`{name}` is ambiguous: say which of {}",
                names.join(", ")
            ));
        }
    };
    let function = program.function(id);
    let path = program
        .module(&function.module)
        .map(|m| m.path.clone())
        .unwrap_or_default();
    Ok(Location {
        pcs: vec![(id, 0)],
        path,
        line: program.line_of(id, 0).unwrap_or(0),
        moved_from: None,
        function: Some(id),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program() -> Program {
        let mut p = cove_compiler::compile_module(
            "m",
            "fn add(a: Int, b: Int) -> Int {\n\n  a + b\n}\n\nfn main() -> Int {\n  add(1, 2)\n}\n",
        )
        .unwrap_or_else(|d| panic!("{d}"));
        p.modules[0].path = "dir/m.cove".to_string();
        p
    }

    #[test]
    fn a_line_is_found_by_path_by_file_name_or_by_module() {
        let p = program();
        for spec in ["dir/m.cove:3", "m.cove:3", "m:3", "3"] {
            let at = resolve(&p, spec, "m").unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert_eq!(at.line, 3, "{spec}");
            assert_eq!(at.moved_from, None);
            assert_eq!(at.pcs.len(), 1);
            assert_eq!(p.function_name(at.pcs[0].0), "m.add");
        }
    }

    #[test]
    fn a_line_whose_only_code_no_run_reaches_moves_to_the_next_line_with_some() {
        // Line 3, `loop {`, holds only the loop's back edge, which the
        // threaded jump at the end of the `Some` arm passes by.
        let p = cove_compiler::compile_module(
            "m",
            "fn walk(o: Option[Int]) -> Int {\n  var cur = o\n  loop {\n    match cur {\n      \
             Some(x) => cur = if x > 0 { Some(x - 1) } else { None }\n      None => break\n    }\n  \
             }\n  0\n}\n",
        )
        .unwrap_or_else(|d| panic!("{d}"));
        let f = &p.functions[0];
        let reached = cove_ir::op::reachable(&f.code);
        assert!(
            f.lines
                .iter()
                .zip(&reached)
                .any(|(line, reached)| *line == 3 && !reached),
            "the premise: line 3 has an unreached instruction"
        );
        // Line 4, `match cur {`, has no code of its own: each arm's test is
        // on the arm's line.
        let at = resolve(&p, "m.cove:3", "m").unwrap();
        assert_eq!((at.line, at.moved_from), (5, Some(3)));
        let (_, pc) = at.pcs[0];
        assert!(reached[pc as usize]);
    }

    #[test]
    fn a_line_without_code_moves_to_the_next_line_with_some() {
        let p = program();
        let at = resolve(&p, "m.cove:2", "m").unwrap();
        assert_eq!((at.line, at.moved_from), (3, Some(2)));
        assert!(
            resolve(&p, "m.cove:90", "m")
                .unwrap_err()
                .contains("no code at or after line 90")
        );
        assert!(
            resolve(&p, "other.cove:1", "m")
                .unwrap_err()
                .contains("no source file")
        );
    }

    #[test]
    fn a_function_is_found_by_its_name_or_qualified_name() {
        let p = program();
        let at = resolve(&p, "add", "m").unwrap();
        assert_eq!(at.pcs, vec![(p.find_function("m", "add").unwrap(), 0)]);
        assert_eq!(resolve(&p, "m.add", "m").unwrap().pcs, at.pcs);
        assert!(
            resolve(&p, "nothing", "m")
                .unwrap_err()
                .contains("no function")
        );
    }
}
