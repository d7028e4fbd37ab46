//! Arbitrary bytes, read as source text, through the compiler: a program or
//! diagnostics, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    if let Err(diagnostics) = cove_compiler::compile_module("m", &source) {
        let _ = diagnostics.to_string();
    }
});
