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
fn a_program_with_errors_reports_only_the_errors() {
    let source = "fn main() {\n  let unused = 1\n  let x: Int = \"no\"\n}\n";
    let errors = cove_compiler::compile_module_with_warnings("m", source).unwrap_err();
    assert!(errors.iter().all(|d| !d.is_warning()), "{errors}");
    assert_eq!(errors.len(), 1, "{errors}");
}
