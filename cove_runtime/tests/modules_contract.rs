//! Modules and compile errors through the public API: `compile_files` on a
//! directory of modules, located `Diagnostics` one by one, `run_entry` on an
//! exported function of a module other than the entry, and `compile_module`
//! on garbage input, which must give diagnostics and never panic or overflow
//! the stack of an ordinary (2 MiB) thread.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use cove_compiler::{Diagnostic, Diagnostics};
use cove_runtime::{ErrorKind, Value, Vm};

/// A fresh directory under the system's temporary directory, removed when
/// dropped.
struct Dir(PathBuf);

impl Dir {
    fn new() -> Dir {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "cove-modules-contract-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Dir(path)
    }

    fn write(&self, name: &str, source: &str) -> &Dir {
        std::fs::write(self.0.join(format!("{name}.cove")), source).unwrap();
        self
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(format!("{name}.cove"))
    }

    fn compile(&self, entry: &str) -> Result<cove_ir::program::Program, Diagnostics> {
        cove_compiler::compile_files(&self.path(entry))
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The diagnostics as (file name, line, column, code), in order.
fn located(diags: &Diagnostics) -> Vec<(String, u32, u32, &'static str)> {
    diags
        .iter()
        .map(|d| {
            let file = Path::new(d.file())
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            (file, d.line(), d.column(), d.code())
        })
        .collect()
}

/// Every diagnostic is located in a file, at a 1-based line and column, has
/// a code `E` and four digits, is no internal error, and shows in the
/// rendered whole as `file:line:col`.
///
/// The rendered whole is checked only for a few diagnostics: rendering
/// costs the length of each diagnostic's line, per diagnostic (a known
/// cost, noted on issue #4: a long line of bad characters renders in
/// quadratic time).
fn assert_well_formed(diags: &Diagnostics) {
    assert!(!diags.is_empty(), "an Err holds at least one diagnostic");
    assert_eq!(diags.iter().count(), diags.len());
    let rendered = if diags.len() <= 50 {
        diags.to_string()
    } else {
        String::new()
    };
    for d in diags.iter() {
        let code = d.code();
        assert!(
            code.len() == 5
                && code.starts_with('E')
                && code[1..].chars().all(|c| c.is_ascii_digit()),
            "{d}"
        );
        assert_ne!(code, "E9000", "an internal compiler error: {d}");
        assert!(!d.file().is_empty(), "{d}");
        assert!(d.line() >= 1 && d.column() >= 1, "{d}");
        let place = format!("{}:{}:{}", d.file(), d.line(), d.column());
        assert!(d.to_string().starts_with(&place), "{d}");
        if !rendered.is_empty() {
            assert!(rendered.contains(&format!("error[{code}]")), "{rendered}");
            assert!(
                rendered.contains(&format!("{}:{}:{}", d.file(), d.line(), d.column())),
                "the rendering shows {place}:\n{rendered}"
            );
        }
    }
}

fn codes(diags: &Diagnostics) -> Vec<&'static str> {
    diags.iter().map(Diagnostic::code).collect()
}

const LIB: &str = "export struct Pair {\n  a: Int,\n  b: Int,\n}\n\nexport fn double(n: Int) -> Int {\n  n * 2\n}\n\nexport fn sum(p: Pair) -> Int {\n  p.a + p.b + secret()\n}\n\nfn secret() -> Int {\n  1000\n}\n";

#[test]
fn run_entry_calls_an_exported_function_of_a_module_that_is_not_the_entry() {
    let dir = Dir::new();
    dir.write("lib", LIB).write(
        "main",
        "import lib\n\nfn main() -> Int {\n  lib.double(4)\n}\n",
    );
    let program = dir.compile("main").unwrap_or_else(|d| panic!("{d}"));
    let mut vm = Vm::new(&program);
    assert_eq!(
        vm.run_entry("lib", "double", vec![Value::Int(21)]),
        Ok(Value::Int(42))
    );
    let pair = Value::Struct {
        name: "Pair".to_string(),
        fields: vec![
            ("a".to_string(), Value::Int(1)),
            ("b".to_string(), Value::Int(2)),
        ],
    };
    assert_eq!(vm.run_entry("lib", "sum", vec![pair]), Ok(Value::Int(1003)));
    assert_eq!(vm.run_entry("main", "main", vec![]), Ok(Value::Int(8)));
}

#[test]
fn run_entry_refuses_a_private_function_of_another_module_and_an_unknown_module() {
    let dir = Dir::new();
    dir.write("lib", LIB).write(
        "main",
        "import lib\n\nfn main() -> Int {\n  lib.double(4)\n}\n",
    );
    let program = dir.compile("main").unwrap_or_else(|d| panic!("{d}"));
    let mut vm = Vm::new(&program);
    assert_eq!(
        vm.run_entry("lib", "secret", vec![]).unwrap_err().kind,
        ErrorKind::NotExported
    );
    assert_eq!(
        vm.run_entry("nowhere", "double", vec![Value::Int(1)])
            .unwrap_err()
            .kind,
        ErrorKind::NoSuchEntry
    );
    assert_eq!(
        vm.run_entry("lib", "double", vec![Value::str("x")])
            .unwrap_err()
            .kind,
        ErrorKind::NoSuchEntry,
        "arguments of the wrong type are no such entry, as ErrorKind says"
    );
}

#[test]
fn two_modules_may_declare_items_of_the_same_names_and_each_keeps_its_own() {
    let dir = Dir::new();
    dir.write(
        "a",
        "export struct Point {\n  x: Int,\n}\n\nexport fn make() -> Point {\n  Point { x: 1 }\n}\n\nexport fn value() -> Int {\n  helper() + make().x\n}\n\nfn helper() -> Int {\n  10\n}\n",
    )
    .write(
        "b",
        "export struct Point {\n  x: Int,\n  y: Int,\n}\n\nexport fn make() -> Point {\n  Point { x: 2, y: 3 }\n}\n\nexport fn value() -> Int {\n  helper() + make().x + make().y\n}\n\nfn helper() -> Int {\n  100\n}\n",
    )
    .write(
        "main",
        "import a\nimport b\n\nfn helper() -> Int {\n  1000\n}\n\nexport fn value() -> Int {\n  helper() + a.value() + b.value() + a.make().x + b.make().y\n}\n\nfn main() -> Int {\n  value()\n}\n",
    );
    let program = dir.compile("main").unwrap_or_else(|d| panic!("{d}"));
    let mut vm = Vm::new(&program);
    assert_eq!(vm.run_entry("a", "value", vec![]), Ok(Value::Int(11)));
    assert_eq!(vm.run_entry("b", "value", vec![]), Ok(Value::Int(105)));
    assert_eq!(
        vm.run_entry("main", "value", vec![]),
        Ok(Value::Int(1000 + 11 + 105 + 1 + 3))
    );
}

#[test]
fn an_import_cycle_of_three_modules_compiles_and_runs() {
    let dir = Dir::new();
    dir.write(
        "a",
        "import b\n\nexport fn down(n: Int) -> Int {\n  if n == 0 { 0 } else { 1 + b.down(n - 1) }\n}\n",
    )
    .write(
        "b",
        "import c\n\nexport fn down(n: Int) -> Int {\n  if n == 0 { 0 } else { 10 + c.down(n - 1) }\n}\n",
    )
    .write(
        "c",
        "import a\n\nexport fn down(n: Int) -> Int {\n  if n == 0 { 0 } else { 100 + a.down(n - 1) }\n}\n",
    )
    .write("main", "import a\n\nfn main() -> Int {\n  a.down(6)\n}\n");
    let program = dir.compile("main").unwrap_or_else(|d| panic!("{d}"));
    let mut vm = Vm::new(&program);
    assert_eq!(vm.run_entry("main", "main", vec![]), Ok(Value::Int(222)));
    assert_eq!(
        vm.run_entry("c", "down", vec![Value::Int(3)]),
        Ok(Value::Int(111))
    );
}

#[test]
fn a_module_importing_itself_in_a_cycle_is_located_at_its_import() {
    let dir = Dir::new();
    dir.write(
        "a",
        "import b\nimport a\n\nexport fn f() -> Int {\n  1\n}\n",
    )
    .write("b", "import a\n\nexport fn g() -> Int {\n  a.f()\n}\n")
    .write("main", "import b\n\nfn main() -> Int {\n  b.g()\n}\n");
    let diags = dir.compile("main").unwrap_err();
    assert_well_formed(&diags);
    assert_eq!(located(&diags), [("a.cove".to_string(), 2, 8, "E0602")]);
}

#[test]
fn a_missing_imported_file_is_located_at_the_import_in_the_importing_file() {
    let dir = Dir::new();
    dir.write(
        "lib",
        "import gone\n\nexport fn f() -> Int {\n  gone.g()\n}\n",
    )
    .write("main", "import lib\n\nfn main() -> Int {\n  lib.f()\n}\n");
    let diags = dir.compile("main").unwrap_err();
    assert_well_formed(&diags);
    assert_eq!(located(&diags), [("lib.cove".to_string(), 1, 8, "E0601")]);
}

#[test]
fn a_private_item_used_from_another_module_is_located_at_the_use() {
    let dir = Dir::new();
    dir.write("lib", LIB).write(
        "main",
        "import lib\n\nfn main() -> Int {\n  lib.secret()\n}\n",
    );
    let diags = dir.compile("main").unwrap_err();
    assert_well_formed(&diags);
    let found = located(&diags);
    assert_eq!(found.len(), 1, "{diags}");
    assert_eq!(
        (found[0].0.as_str(), found[0].1, found[0].3),
        ("main.cove", 4, "E0305")
    );
}

#[test]
fn an_item_a_module_does_not_have_is_an_unknown_item_at_the_use() {
    let dir = Dir::new();
    dir.write("lib", LIB).write(
        "main",
        "import lib\n\nfn main() -> Int {\n  let p: lib.Triple = lib.nothing()\n  0\n}\n",
    );
    let diags = dir.compile("main").unwrap_err();
    assert_well_formed(&diags);
    let found = located(&diags);
    assert!(
        found.iter().all(|f| f.0 == "main.cove" && f.1 == 4),
        "{diags}"
    );
    let codes = codes(&diags);
    assert!(codes.contains(&"E0209"), "{diags}");
    assert!(codes.contains(&"E0303") || codes.len() == 2, "{diags}");
}

#[test]
fn a_syntax_error_in_an_imported_file_is_located_in_that_file() {
    let dir = Dir::new();
    dir.write("lib", "export fn f() -> Int {\n  let x = (1 + \n  x\n}\n")
        .write("main", "import lib\n\nfn main() -> Int {\n  lib.f()\n}\n");
    let diags = dir.compile("main").unwrap_err();
    assert_well_formed(&diags);
    let found = located(&diags);
    assert!(found.iter().all(|f| f.0 == "lib.cove"), "{diags}");
    assert!((2..=4).contains(&found[0].1), "{diags}");
}

#[test]
fn errors_in_an_imported_file_and_the_entry_are_all_reported() {
    let dir = Dir::new();
    dir.write("lib", "export fn f() -> Int {\n  $\n}\n").write(
        "main",
        "import lib\n\nfn main() -> Int {\n  let s: String = lib.f()\n  0\n}\n",
    );
    let diags = dir.compile("main").unwrap_err();
    assert_well_formed(&diags);
    let files: std::collections::BTreeSet<String> =
        located(&diags).into_iter().map(|f| f.0).collect();
    assert_eq!(
        files,
        ["lib.cove".to_string(), "main.cove".to_string()].into()
    );
}

#[test]
fn a_missing_entry_file_is_a_located_diagnostic() {
    let dir = Dir::new();
    let diags = dir.compile("absent").unwrap_err();
    assert_well_formed(&diags);
    assert_eq!(codes(&diags), ["E0600"]);
}

#[test]
fn an_import_of_a_directory_or_of_bytes_that_are_not_utf8_is_a_diagnostic() {
    let dir = Dir::new();
    std::fs::create_dir(dir.0.join("folder.cove")).unwrap();
    std::fs::write(dir.path("binary"), [0xff, 0xfe, 0x00, 0x80, b'\n']).unwrap();
    dir.write(
        "main",
        "import folder\nimport binary\n\nfn main() -> Int {\n  0\n}\n",
    );
    let diags = dir.compile("main").unwrap_err();
    assert_well_formed(&diags);
    assert_eq!(
        located(&diags),
        [
            ("main.cove".to_string(), 1, 8, "E0601"),
            ("main.cove".to_string(), 2, 8, "E0601"),
        ]
    );
}

#[test]
fn an_entry_file_named_like_no_identifier_still_compiles_and_runs_by_its_name() {
    let dir = Dir::new();
    dir.write("my-prog", "fn main() -> Int {\n  7\n}\n");
    let program = dir.compile("my-prog").unwrap_or_else(|d| panic!("{d}"));
    let module = program.modules.last().unwrap().name.clone();
    let mut vm = Vm::new(&program);
    assert_eq!(vm.run_entry(&module, "main", vec![]), Ok(Value::Int(7)));
}

// ---- compile_module on garbage ------------------------------------------

/// Runs `f` on a thread with cargo's default test-thread stack (2 MiB) and
/// gives what it returned; a panic or a stack overflow fails the test.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .expect("compile_module panicked")
}

/// `compile_module` on `source` must fail with well-formed diagnostics.
fn rejects(source: String) -> Vec<&'static str> {
    on_small_stack(move || {
        let diags =
            cove_compiler::compile_module("m", &source).expect_err("garbage must not compile");
        assert_well_formed(&diags);
        for d in diags.iter() {
            assert!(d.span().end <= source.len(), "{d}");
            assert!(source.is_char_boundary(d.span().start), "{d}");
        }
        codes(&diags)
    })
}

/// A small deterministic generator (xorshift), so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn random_bytes_read_as_text_are_rejected_with_diagnostics() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for len in [1usize, 7, 64, 500, 4096] {
        for _ in 0..10 {
            let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            let mut text = String::from_utf8_lossy(&bytes).into_owned();
            // A program of only whitespace and comments would be valid.
            text.push('$');
            rejects(text);
        }
    }
}

#[test]
fn brackets_nested_a_hundred_thousand_deep_are_rejected_not_overflowed() {
    const DEEP: usize = 100_000;
    for (open, close) in [("(", ")"), ("[", "]"), ("{", "}"), ("[(", ")]")] {
        // Bare at the top level, inside a body, and unclosed.
        rejects(format!("{}{}", open.repeat(DEEP), close.repeat(DEEP)));
        rejects(format!(
            "fn main() {{\n  let x = {}1{}\n}}\n",
            open.repeat(DEEP),
            close.repeat(DEEP)
        ));
        rejects(format!(
            "fn main() {{\n  let x = {}\n}}\n",
            open.repeat(DEEP)
        ));
    }
    rejects(format!(
        "fn main() {{\n{}\n}}\n",
        "if true {\n".repeat(DEEP)
    ));
    rejects(format!(
        "fn f(x: {}Int{}) {{}}\n",
        "List[".repeat(DEEP),
        "]".repeat(DEEP)
    ));
    rejects(format!(
        "fn main() {{\n  let x = {}1\n}}\n",
        "-".repeat(DEEP)
    ));
    rejects(format!(
        "fn main() {{\n  let x = {}true\n}}\n",
        "!".repeat(DEEP)
    ));
    rejects(format!(
        "fn main() {{\n  let x = \"{}\"\n}}\n",
        "{\"".repeat(DEEP)
    ));
}

#[test]
fn a_one_megabyte_line_is_rejected_with_a_located_diagnostic() {
    let line = "a + ".repeat(1 << 18);
    let codes = rejects(format!("fn main() {{\n  let x = {line}$\n}}\n"));
    assert!(!codes.is_empty());
    // One token a megabyte long, and a megabyte of one bad character.
    rejects(format!(
        "fn main() {{\n  let {} = 1 1\n}}\n",
        "x".repeat(1 << 20)
    ));
    // (A megabyte of one bad character is a million diagnostics, which
    // take quadratic time: a known cost, noted on issue #4.)
}

#[test]
fn an_unterminated_string_is_error_e0002() {
    for source in [
        "fn main() {\n  let s = \"never closed\n}\n",
        "fn main() {\n  let s = \"{1 + \n}\n",
        "fn main() {\n  let s = \"ends in a backslash\\",
        "\"",
        "fn main() {\n  let s = \"\\u{",
        "/* a comment never closed\nfn main() {}\n",
    ] {
        let codes = rejects(source.to_string());
        assert!(codes.contains(&"E0002"), "{source:?}: {codes:?}");
    }
}

#[test]
fn non_ascii_identifiers_are_rejected_with_a_column_counted_in_characters() {
    let source = "fn main() {\n  let é = 1\n}\n";
    let diags = cove_compiler::compile_module("m", source).unwrap_err();
    assert_well_formed(&diags);
    let first = diags.iter().next().unwrap();
    assert_eq!((first.line(), first.column()), (2, 7), "{diags}");
    for source in [
        "fn 函数() {}\n",
        "fn main() {\n  let x = λ + 1\n}\n",
        "fn main() {\n  let s = \"ok\" 😀\n}\n",
        "\u{feff}fn main() { \u{200b} }\n",
        "fn main() {\n  let x\u{0} = 1\n}\n",
        "fn main() {\r  let x = 1 $\r}\r",
    ] {
        rejects(source.to_string());
    }
}
