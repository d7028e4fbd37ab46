//! A program's output that cannot be written ends the run with an I/O
//! error, instead of the run going on (or ending well) with its output
//! lost.

use std::io::Write;

use cove_runtime::{ErrorKind, Vm};

/// A disk that is full: every write and flush fails with ENOSPC, as
/// `/dev/full` does.
struct Full;

impl Write for Full {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::from_raw_os_error(28))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Err(std::io::Error::from_raw_os_error(28))
    }
}

fn compile(source: &str) -> cove_ir::program::Program {
    cove_compiler::compile_module("m", source).unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn a_println_to_a_full_disk_ends_the_run_with_an_io_error_at_the_println() {
    let program = compile("fn main() {\n  println(\"hello\")\n}\n");
    let mut vm = Vm::new(&program).with_output(Box::new(Full));
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Io);
    assert!(
        error.message.contains("cannot write the program's output"),
        "{error}"
    );
    assert_eq!(error.backtrace[0].line, Some(2));
}

#[test]
fn a_printing_loop_to_a_full_disk_stops_instead_of_running_on() {
    let program = compile("fn main() {\n  while true {\n    print(\"x\")\n  }\n}\n");
    let mut vm = Vm::new(&program).with_output(Box::new(std::io::BufWriter::new(Full)));
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Io);
}

#[test]
fn output_that_only_fails_at_the_last_flush_still_fails_the_run() {
    // The buffer takes the line; only the flush at the end of the run
    // finds the disk full.
    let program = compile("fn main() -> Int {\n  println(\"hello\")\n  0\n}\n");
    let mut vm = Vm::new(&program).with_output(Box::new(std::io::BufWriter::new(Full)));
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Io);
    assert!(error.to_string().contains("os error 28"), "{error}");
}

#[test]
fn an_eprintln_to_a_full_disk_is_an_io_error_too() {
    let program = compile("fn main() {\n  eprintln(\"oops\")\n}\n");
    let mut vm = Vm::new(&program).with_error_output(Box::new(Full));
    let error = vm.run_entry("m", "main", vec![]).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Io);
    assert!(error.message.contains("error output"), "{error}");
}
