//! Programs of several modules, read from a directory by
//! `cove_compiler::compile_files` and run on the VM: calls and types cross
//! module lines, and a cycle of imports still runs its entry module's
//! `main`. (How the compiler orders and reports modules is tested in
//! `cove_compiler`'s own `modules.rs`; here the programs run.)

use std::fs;
use std::path::Path;

fn write(dir: &Path, name: &str, source: &str) {
    fs::write(dir.join(format!("{name}.cove")), source).unwrap();
}

#[test]
fn modules_that_import_each_other_may_call_each_other_recursively() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a",
        "import b\n\nexport struct Tree {\n  kids: List[b.Forest],\n}\n\nexport fn even(n: Int) -> Bool {\n  if n == 0 { true } else { b.odd(n - 1) }\n}\n",
    );
    write(
        dir.path(),
        "b",
        "import a\n\nexport struct Forest {\n  trees: List[a.Tree],\n}\n\nexport fn odd(n: Int) -> Bool {\n  if n == 0 { false } else { a.even(n - 1) }\n}\n",
    );
    write(
        dir.path(),
        "main",
        "import a\nimport b\n\nfn main() {\n  let f = b.Forest { trees: [a.Tree { kids: [] }] }\n  println(\"{a.even(10)} {b.odd(7)} {a.even(7)} {f.trees.length()}\")\n}\n",
    );
    let program = match cove_compiler::compile_files(&dir.path().join("main.cove")) {
        Ok(p) => p,
        Err(errors) => panic!("{errors}"),
    };
    let names: Vec<&str> = program.modules.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names.last(), Some(&"main"), "{names:?}");
    assert_eq!(names.len(), 3, "{names:?}");
    assert_eq!(cove_tests::outcome(&program), "true true false 1\n=> ()");
}

#[test]
fn an_entry_module_in_a_cycle_is_still_compiled_last() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "helper",
        "import main\n\nexport fn twice(n: Int) -> Int {\n  if n <= 0 { 0 } else { main.bump(twice(n - 1)) }\n}\n",
    );
    write(
        dir.path(),
        "main",
        "import helper\n\nexport fn bump(n: Int) -> Int {\n  n + 2\n}\n\nfn main() -> Int {\n  helper.twice(5)\n}\n",
    );
    let program = match cove_compiler::compile_files(&dir.path().join("main.cove")) {
        Ok(p) => p,
        Err(errors) => panic!("{errors}"),
    };
    assert_eq!(
        program.modules.last().map(|m| m.name.as_str()),
        Some("main")
    );
    assert_eq!(cove_tests::outcome(&program), "=> 10");
}
