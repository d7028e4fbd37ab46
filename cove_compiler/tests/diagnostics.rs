//! One snapshot of the rendered diagnostics for each kind of mistake: every
//! `tests/diagnostics/*.cove` file is a program with a mistake, named as
//! the sentence its snapshot proves, and `*.snap` beside it holds what the
//! compiler says about it.

use std::path::Path;

#[test]
fn every_kind_of_mistake_gets_a_located_diagnostic_with_a_code() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cove"))
        .collect();
    files.sort();
    assert!(files.len() >= 40, "only {} cases", files.len());
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(&path).unwrap();
        let errors = match cove_compiler::compile_module("m", &source) {
            Ok(_) => panic!("{name}: compiled, but it has a mistake"),
            Err(errors) => errors,
        };
        assert!(!errors.is_empty(), "{name}: no diagnostics");
        for d in errors.iter() {
            assert!(d.code().starts_with('E'), "{name}: {d:?}");
            assert!(d.line() >= 1 && d.column() >= 1, "{name}: {d:?}");
            assert_eq!(d.file(), "m.cove");
        }
        insta::with_settings!({
            snapshot_path => "diagnostics",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name, errors.to_string());
        });
    }
}
