//! One snapshot of the warnings for each kind: every `tests/warnings/*.cove`
//! file is a program that compiles, named as the sentence its snapshot
//! proves, and `*.snap` beside it holds the warnings the compiler gives.

use std::path::Path;

#[test]
fn every_kind_of_warning_is_located_and_coded_and_the_program_still_compiles() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/warnings");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cove"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(&path).unwrap();
        let warnings = match cove_compiler::compile_module_with_warnings("m", &source) {
            Ok((_, warnings)) => warnings,
            Err(errors) => panic!("{name}: does not compile:\n{errors}"),
        };
        assert!(!warnings.is_empty(), "{name}: no warnings");
        for d in warnings.iter() {
            assert!(d.is_warning() && d.code().starts_with('W'), "{name}: {d:?}");
            assert!(d.line() >= 1 && d.column() >= 1, "{name}: {d:?}");
        }
        insta::with_settings!({
            snapshot_path => "warnings",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name, warnings.to_string());
        });
    }
}

#[test]
fn a_program_without_unused_names_has_no_warnings() {
    let source = "fn main() {\n  var n = 0\n  n += 1\n  let _skip = 2\n  println(n)\n}\n";
    let (_, warnings) = cove_compiler::compile_module_with_warnings("m", source).unwrap();
    assert!(warnings.is_empty(), "{warnings}");
}

#[test]
fn a_var_assigned_only_inside_a_closure_is_assigned() {
    let source = "fn make() -> fn() -> Int {\n  var n = 0\n  fn() -> Int {\n    let inner = fn() { n += 1 }\n    inner()\n    n\n  }\n}\n\nfn main() {\n  var total = 0\n  let add = fn(x: Int) { total += x }\n  add(2)\n  println(\"{total} {make()()}\")\n}\n";
    let (_, warnings) = cove_compiler::compile_module_with_warnings("m", source).unwrap();
    assert!(warnings.is_empty(), "{warnings}");
}

#[test]
fn code_after_a_loop_that_breaks_or_an_if_that_may_fall_through_is_reachable() {
    let source = "fn f(b: Bool) -> Int {\n  var n = 0\n  loop {\n    n += 1\n    if n > 3 {\n      break\n    }\n  }\n  if b {\n    return 1\n  }\n  match n {\n    4 => return 2,\n    _ => {}\n  }\n  n\n}\n\nfn main() {\n  println(f(false))\n}\n";
    let (_, warnings) = cove_compiler::compile_module_with_warnings("m", source).unwrap();
    assert!(warnings.is_empty(), "{warnings}");
}

#[test]
fn an_import_nothing_is_used_of_is_reported_at_the_import() {
    let lib = "export fn twice(x: Int) -> Int {\n  x * 2\n}\n\nexport struct P {\n  x: Int,\n}\n";
    let main = "import lib\nimport spare\nimport typed\n\nfn show(p: typed.P) -> Int {\n  p.x\n}\n\nfn main() {\n  println(\"{lib.twice(2)}\")\n  println(show(typed.P { x: 1 }))\n}\n";
    let (_, warnings) = cove_compiler::compile_sources_with_warnings(
        "main",
        &[("main", main), ("lib", lib), ("spare", lib), ("typed", lib)],
    )
    .unwrap();
    insta::assert_snapshot!(warnings.to_string());
}

#[test]
fn an_import_used_only_inside_an_interpolation_is_used() {
    let lib = "export fn twice(x: Int) -> Int {\n  x * 2\n}\n";
    let main = "import lib\n\nfn main() {\n  println(\"{lib.twice(2)}\")\n}\n";
    let (_, warnings) =
        cove_compiler::compile_sources_with_warnings("main", &[("main", main), ("lib", lib)])
            .unwrap();
    assert!(warnings.is_empty(), "{warnings}");
}

#[test]
fn a_program_with_errors_reports_only_the_errors() {
    let source = "fn main() {\n  let unused = 1\n  let x: Int = \"no\"\n}\n";
    let errors = cove_compiler::compile_module_with_warnings("m", source).unwrap_err();
    assert!(errors.iter().all(|d| !d.is_warning()), "{errors}");
    assert_eq!(errors.len(), 1, "{errors}");
}

#[test]
fn the_hidden_names_of_a_nested_destructuring_get_no_warnings_but_its_names_do() {
    let source = "fn main() {\n  let ((a, b), c) = ((1, 2), 3)\n  var ((x, y), z) = ((1, 2), 3)\n  x += y + z\n  println(a + c + x)\n}\n";
    let (_, warnings) = cove_compiler::compile_module_with_warnings("m", source).unwrap();
    let found: Vec<_> = warnings
        .iter()
        .map(|d| (d.code(), d.line(), d.column()))
        .collect();
    assert_eq!(found, [("W0001", 2, 12)], "{warnings}");
}
