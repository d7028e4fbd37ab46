//! Standard input as a program sees it: `read_line()` and `read_stdin()`
//! read what the host gave `Vm::with_input`, line by line and then the
//! rest, and `None` marks the end.

use std::io::Cursor;

use cove_runtime::{Value, Vm};

mod support;
use support::Captured;

/// What the program `source` prints when its standard input is `input`.
fn run_with_input(source: &str, input: &str) -> String {
    let program = cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"));
    let out = Captured::default();
    let mut vm = Vm::new(&program)
        .with_output(Box::new(out.clone()))
        .with_input(Box::new(Cursor::new(input.as_bytes().to_vec())));
    let result = vm.run_entry("m", "main", Vec::new());
    assert!(matches!(result, Ok(Value::Unit)), "{result:?}");
    out.text()
}

const ECHO_LINES: &str = r#"
fn main() {
  var n = 0
  loop {
    match read_line() {
      Some(line) => {
        n += 1
        println("{n}: [{line}] {line.length()}")
      }
      None => break,
    }
  }
  println("{n} lines")
}
"#;

#[test]
fn read_line_gives_each_line_without_its_ending_then_none() {
    let text = run_with_input(ECHO_LINES, "first\r\nsecond\n\nlast without a newline");
    assert_eq!(
        text,
        "1: [first] 5\n2: [second] 6\n3: [] 0\n4: [last without a newline] 22\n4 lines\n"
    );
}

#[test]
fn read_line_at_the_end_of_an_empty_input_is_none() {
    assert_eq!(run_with_input(ECHO_LINES, ""), "0 lines\n");
}

#[test]
fn read_stdin_gives_what_the_lines_read_left() {
    let source = r#"
fn main() {
  let first = read_line().unwrap()
  let rest = read_stdin()
  println("{first}|{rest.split_whitespace()}|{read_stdin().length()}")
}
"#;
    assert_eq!(
        run_with_input(source, "head\nthe  rest\nof it\n"),
        "head|[\"the\", \"rest\", \"of\", \"it\"]|0\n"
    );
}

#[test]
fn input_that_is_not_utf8_is_read_with_replacement_characters() {
    let source = "fn main() {\n  println(read_stdin().chars())\n}\n";
    let program = cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"));
    let out = Captured::default();
    let mut vm = Vm::new(&program)
        .with_output(Box::new(out.clone()))
        .with_input(Box::new(Cursor::new(vec![b'a', 0xff, b'b'])));
    assert!(vm.run_entry("m", "main", Vec::new()).is_ok());
    assert_eq!(out.text(), "[\"a\", \"\u{fffd}\", \"b\"]\n");
}

/// The programs of `tests/stdin_programs/`: each `name.cove` is run with
/// `name.in` as its standard input, plainly and with the collector at
/// every allocation, and must print `name.out`. They live apart from the
/// conformance suite because the harnesses that walk that suite run its
/// programs on the process's own standard input.
#[test]
fn every_program_reading_standard_input_prints_what_it_expects() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stdin_programs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/stdin_programs reads")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cove"))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "only {} programs", files.len());
    let mut failures = Vec::new();
    for path in files {
        let source = std::fs::read_to_string(&path).expect("it reads");
        let input = std::fs::read(path.with_extension("in")).expect("its .in reads");
        let expected = std::fs::read_to_string(path.with_extension("out")).expect("its .out reads");
        let program = cove_compiler::compile_module("m", &source).unwrap_or_else(|d| panic!("{d}"));
        for stress in [false, true] {
            let out = Captured::default();
            let mut vm = Vm::new(&program)
                .with_output(Box::new(out.clone()))
                .with_input(Box::new(Cursor::new(input.clone())))
                .with_limits(cove_runtime::Limits {
                    gc_stress: stress,
                    ..cove_runtime::Limits::default()
                });
            let result = vm.run_entry("m", "main", Vec::new());
            if !matches!(result, Ok(Value::Unit)) || out.text() != expected {
                failures.push(format!(
                    "{} (stress {stress}): {result:?}\n--- expected\n{expected}--- printed\n{}",
                    path.display(),
                    out.text()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
