//! Bytes read as printed IR: a program the parser and the verifier accept
//! must run without a panic and without an internal error, under fuel and a
//! heap bound so that every run ends.
#![no_main]

use cove_runtime::{ErrorKind, Limits, Vm};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(program) = cove_ir::parse::program(&text) else {
        return;
    };
    if cove_ir::verify::program(&program).is_err() {
        return;
    }
    let limits = Limits {
        fuel: Some(100_000),
        max_heap_words: Some(100_000),
        ..Limits::default()
    };
    for module in program
        .modules
        .iter()
        .map(|m| m.name.clone())
        .collect::<Vec<_>>()
    {
        let mut vm = Vm::new(&program)
            .with_limits(limits.clone())
            .with_output(Box::new(std::io::sink()));
        if let Err(error) = vm.run_entry(&module, "main", vec![]) {
            assert_ne!(error.kind, ErrorKind::Internal, "{error}");
        }
    }
});
