//! Runs a Cove program: `cargo run --release -p cove_runtime --example run -- file.cove [args...]`.
//!
//! A stand-in for the `cove` binary, for measuring the runtime alone: it
//! compiles the file (and the modules it imports), runs the entry module's
//! `main`, and exits with its status. The compile is not timed apart; use
//! `hyperfine` on the whole command, which is what a user waits for.

use std::process::ExitCode;

use cove_runtime::{Value, Vm};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run FILE.cove [ARGS...]");
        return ExitCode::from(64);
    };
    let program = match cove_compiler::compile_files(std::path::Path::new(&path)) {
        Ok(program) => program,
        Err(diagnostics) => {
            eprintln!("{diagnostics}");
            return ExitCode::from(65);
        }
    };
    let module = program
        .modules
        .last()
        .map(|m| m.name.clone())
        .unwrap_or_default();
    let mut vm = Vm::new(&program).with_args(args.collect());
    match vm.run_entry(&module, "main", Vec::new()) {
        Ok(Value::Int(status)) => ExitCode::from(status as u8),
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            if !matches!(error.kind, cove_runtime::ErrorKind::Exit(_)) {
                eprintln!("error: {error}");
            }
            ExitCode::from(error.kind.exit_code() as u8)
        }
    }
}
