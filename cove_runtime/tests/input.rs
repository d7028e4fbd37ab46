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
