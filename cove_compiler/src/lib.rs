//! The Cove compiler: source text to a [`cove_ir`] program, with located
//! diagnostics. The program is verified where it is run
//! (`cove_runtime::Vm::new` runs `cove_ir::verify`), once.
//!
//! Two entry points: [`compile_module`] compiles one module from a string,
//! [`compile_files`] an entry file and every module it imports (found
//! beside it). Either returns the [`Program`] or every error found, as
//! [`Diagnostics`]: a malformed program gets all its errors in one run (up
//! to [`MAX_ERRORS`]), each with a code, a line and column, a caret snippet
//! and, where one helps, a `help:` line; no input makes the compiler panic.
//!
//! ```
//! let program = cove_compiler::compile_module("m", r#"
//! export fn main() -> Int {
//!   var total = 0
//!   for i in 0..10 {
//!     total += i
//!   }
//!   println("total={total}")
//!   total
//! }
//! "#).unwrap();
//! assert!(program.find_function("m", "main").is_some());
//!
//! let errors = cove_compiler::compile_module("bad", "fn main() -> Int { \"no\" }").unwrap_err();
//! let first = errors.iter().next().unwrap();
//! assert_eq!(first.code(), "E0100");
//! assert_eq!((first.line(), first.column()), (1, 20));
//! assert!(errors.to_string().contains("type mismatch: expected Int, found String"));
//! ```
//!
//! The passes, in order: [`lexer`](crate) (newline rules, string
//! interpolation), parser (recursive descent with error recovery), the
//! declaration passes (modules, types, signatures), then one walk per
//! function body that type-checks and lowers at once (register allocation,
//! fused compare-and-branch, line tables, reference maps, debug locals).
//! See `docs/LANGUAGE.md` for the language and `README.md` for the design.

// Every `pub` item is part of the API an embedder sees; anything else is
// `pub(crate)`, so the lint keeps the two from drifting apart.
#![warn(unreachable_pub)]

mod ast;
mod consts;
mod diagnostics;
mod driver;
mod emit;
mod internal;
mod lexer;
mod lines;
mod lower;
mod parser;
mod resolve;

use std::path::Path;

pub use cove_ir::program::Program;
pub use diagnostics::{Diagnostic, Diagnostics, LONG_LINE, MAX_ERRORS};

/// The native stack the compiler runs on. The parser bounds nesting (and
/// `else if` chains), so the recursive passes need a bounded stack; this
/// is generous for those bounds in a debug build, whatever stack the
/// caller's thread has. It is address space reserved, not memory used.
const STACK_BYTES: usize = 256 << 20;

/// Compiles one module named `name` (its path is `{name}.cove`) from
/// `source`. It can import nothing; use [`compile_files`] for programs of
/// several modules.
pub fn compile_module(name: &str, source: &str) -> Result<Program, Diagnostics> {
    on_own_stack(|| {
        let unit = driver::Unit::parse(name, &format!("{name}.cove"), source.to_string());
        driver::compile_units(vec![unit], true)
    })
}

/// Compiles the module `entry` of `modules` (each a module's name and its
/// source) and every module it imports from among them, as
/// [`compile_files`] does with files: for a program whose sources are in
/// memory, such as one built into a binary with `include_str!`. A module
/// `m` is shown in diagnostics as `m.cove`; an import of a name not among
/// `modules` is a missing module (`E0601`). The entry module is last in
/// [`Program::modules`].
pub fn compile_sources(entry: &str, modules: &[(&str, &str)]) -> Result<Program, Diagnostics> {
    on_own_stack(|| {
        let units = driver::load_sources(entry, modules)?;
        driver::compile_units(units, false)
    })
}

/// Compiles the file at `entry` and every module it imports, read from
/// files beside it (`import lexer` reads `lexer.cove`). The entry module is
/// last in [`Program::modules`].
pub fn compile_files(entry: &Path) -> Result<Program, Diagnostics> {
    on_own_stack(|| {
        let units = driver::load(entry)?;
        driver::compile_units(units, false)
    })
}

/// Compiles the file at `entry` and every module it imports, as
/// [`compile_files`] does, and gives the warnings of a program that
/// compiles beside it: unused variables and parameters (`W0001`,
/// `W0002`), `var`s never assigned again (`W0003`), unused imports
/// (`W0004`) and code that can never run (`W0005`). A name starting
/// with `_` is exempt. [`Diagnostic::is_warning`] tells them from errors.
pub fn compile_files_with_warnings(entry: &Path) -> Result<(Program, Diagnostics), Diagnostics> {
    on_own_stack(|| {
        let units = driver::load(entry)?;
        driver::compile_units_warned(units, false)
    })
}

/// Compiles the module `entry` of `modules`, as [`compile_sources`] does,
/// with its warnings (see [`compile_files_with_warnings`]).
pub fn compile_sources_with_warnings(
    entry: &str,
    modules: &[(&str, &str)],
) -> Result<(Program, Diagnostics), Diagnostics> {
    on_own_stack(|| {
        let units = driver::load_sources(entry, modules)?;
        driver::compile_units_warned(units, false)
    })
}

/// Compiles one module, as [`compile_module`] does, with its warnings
/// (see [`compile_files_with_warnings`]).
pub fn compile_module_with_warnings(
    name: &str,
    source: &str,
) -> Result<(Program, Diagnostics), Diagnostics> {
    on_own_stack(|| {
        let unit = driver::Unit::parse(name, &format!("{name}.cove"), source.to_string());
        driver::compile_units_warned(vec![unit], true)
    })
}

/// Runs the compiler on a thread with a stack of [`STACK_BYTES`] (on the
/// caller's thread if no thread can be started); a bug that panics
/// becomes an internal-error diagnostic, not a crash.
fn on_own_stack<T: Send>(
    work: impl FnOnce() -> Result<T, Diagnostics> + Send,
) -> Result<T, Diagnostics> {
    let panicked = || {
        Err(internal::error(
            &Program::new(),
            "input",
            "the compiler panicked",
        ))
    };
    let slot = std::sync::Mutex::new(Some(work));
    let take = || slot.lock().ok().and_then(|mut w| w.take());
    let spawned = std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("cove-compiler".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(s, || take().map(|work| work()));
        handle.ok().map(|h| h.join())
    });
    match spawned {
        Some(Ok(Some(result))) => result,
        Some(Ok(None)) | Some(Err(_)) => panicked(),
        // No thread: compile here, still catching a panic.
        None => match take() {
            Some(work) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
                .unwrap_or_else(|_| panicked()),
            None => panicked(),
        },
    }
}
