//! Bytes drive a generator of well-typed Cove programs; each is compiled,
//! verified and run under fuel and a heap bound, plainly and under GC
//! stress, and the two runs must print and end alike (differential). The
//! seeded version of this generator runs in `cargo test`
//! (`cove_runtime/tests/generated_programs.rs`).
#![no_main]

use arbitrary::{Result, Unstructured};
use cove_runtime::{ErrorKind, Limits, Vm};
use libfuzzer_sys::fuzz_target;

fn int_expr(u: &mut Unstructured<'_>, ints: &[String], depth: u32) -> Result<String> {
    if depth == 0 || u.ratio(1, 3)? {
        return Ok(match u.int_in_range(0..=3)? {
            0 => format!("{}", u.int_in_range(-100i64..=100)?),
            1 => "xs.length()".to_string(),
            _ => u.choose(ints)?.clone(),
        });
    }
    Ok(match u.int_in_range(0..=5)? {
        0 => format!("helper({})", int_expr(u, ints, depth - 1)?),
        1 => format!("({}).abs()", int_expr(u, ints, depth - 1)?),
        _ => format!(
            "({} {} {})",
            int_expr(u, ints, depth - 1)?,
            u.choose(&["+", "-", "*", "/", "%"])?,
            int_expr(u, ints, depth - 1)?
        ),
    })
}

fn statement(u: &mut Unstructured<'_>, ints: &mut Vec<String>, depth: u32) -> Result<String> {
    let indent = "  ".repeat(depth as usize + 1);
    Ok(match u.int_in_range(0..=8)? {
        0 | 1 => {
            let name = format!("v{}", ints.len());
            let e = int_expr(u, ints, 3)?;
            ints.push(name.clone());
            format!("{indent}var {name} = {e}\n")
        }
        2 => {
            let target = u.choose(ints)?.clone();
            format!("{indent}{target} = {}\n", int_expr(u, ints, 3)?)
        }
        3 => format!("{indent}xs.push({})\n", int_expr(u, ints, 2)?),
        4 => format!("{indent}s = s + \"x{{{}}}\"\n", int_expr(u, ints, 2)?),
        5 => format!(
            "{indent}m.set(\"k{}\", {})\n",
            u.int_in_range(0..=4)?,
            int_expr(u, ints, 2)?
        ),
        6 if depth < 2 => {
            let bound = u.int_in_range(0..=20)?;
            let mut inner = ints.clone();
            inner.push(format!("i{depth}"));
            let body = statement(u, &mut inner, depth + 1)?;
            format!("{indent}for i{depth} in 0..{bound} {{\n{body}{indent}}}\n")
        }
        7 if depth < 2 => {
            let cond = format!("{} < {}", int_expr(u, ints, 2)?, int_expr(u, ints, 2)?);
            let mut inner = ints.clone();
            let then = statement(u, &mut inner, depth + 1)?;
            format!("{indent}if {cond} {{\n{then}{indent}}}\n")
        }
        _ => format!(
            "{indent}println(\"{{{}}} {{s.length()}}\")\n",
            int_expr(u, ints, 2)?
        ),
    })
}

fn program(u: &mut Unstructured<'_>) -> Result<String> {
    let mut ints = vec!["a".to_string(), "b".to_string()];
    let mut body = String::new();
    for _ in 0..u.int_in_range(1..=12)? {
        body.push_str(&statement(u, &mut ints, 0)?);
    }
    Ok(format!(
        "fn helper(n: Int) -> Int {{\n  if n > 1000 {{\n    return n % 1000\n  }}\n  n * 3 - 1\n}}\n\n\
         fn main() -> Int {{\n  var a = 1\n  var b = 2\n  let xs = List[Int]()\n  var s = \"\"\n  \
         let m = Map[String, Int]()\n{body}  println(\"{{a}} {{b}} {{xs}}\")\n  0\n}}\n"
    ))
}

fn run(program: &cove_ir::program::Program, stress: bool) -> (Vec<u8>, Result<String, String>) {
    #[derive(Clone, Default)]
    struct Out(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Out {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("lock").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let out = Out::default();
    let limits = Limits {
        fuel: Some(200_000),
        max_heap_words: Some(200_000),
        gc_stress: stress,
        ..Limits::default()
    };
    let mut vm = Vm::new(program)
        .with_limits(limits)
        .with_output(Box::new(out.clone()));
    let ended = vm.run_entry("m", "main", vec![]);
    if let Err(error) = &ended {
        assert_ne!(error.kind, ErrorKind::Internal, "{error}");
    }
    let printed = out.0.lock().expect("lock").clone();
    (
        printed,
        ended.map(|v| v.to_string()).map_err(|e| e.to_string()),
    )
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(source) = program(&mut u) else {
        return;
    };
    let Ok(program) = cove_compiler::compile_module("m", &source) else {
        return;
    };
    assert_eq!(run(&program, false), run(&program, true), "{source}");
});
