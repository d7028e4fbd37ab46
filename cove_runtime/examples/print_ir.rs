//! Prints the IR of Cove programs in the form `cove_ir::parse` reads, one
//! file each: `cargo run -p cove_runtime --example print_ir -- OUT_DIR
//! FILE.cove...`.
//!
//! It makes the seed corpus of the `ir_roundtrip` fuzz target (see
//! `fuzz/README.md`): printed programs the fuzzer mutates, where random
//! bytes would almost never parse. `cove disasm` is not that form (it
//! interleaves source lines and leaves out the type table), so the seed
//! comes from `cove_ir::print::program` itself. A file that does not
//! compile is named on stderr and skipped; the cost is one compile a file.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next() else {
        eprintln!("usage: print_ir OUT_DIR FILE.cove...");
        return ExitCode::from(64);
    };
    let out = Path::new(&out);
    if let Err(e) = std::fs::create_dir_all(out) {
        eprintln!("{}: {e}", out.display());
        return ExitCode::from(73);
    }
    let mut written = 0;
    for file in args {
        let path = Path::new(&file);
        let program = match cove_compiler::compile_files(path) {
            Ok(program) => program,
            Err(_) => {
                eprintln!("{file}: does not compile, skipped");
                continue;
            }
        };
        // The file's path, flattened, names its printed form.
        let name = file.trim_start_matches("./").replace(['/', '\\'], "_");
        let target = out.join(format!("{name}.ir"));
        if let Err(e) = std::fs::write(&target, cove_ir::print::program(&program)) {
            eprintln!("{}: {e}", target.display());
            return ExitCode::from(74);
        }
        written += 1;
    }
    eprintln!("{written} programs printed to {}", out.display());
    ExitCode::SUCCESS
}
