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

// ---- bounds on what a compile reports --------------------------------------

/// The diagnostics of a module `m` that must not compile.
fn errors_of(source: &str) -> cove_compiler::Diagnostics {
    cove_compiler::compile_module("m", source).expect_err("it must not compile")
}

#[test]
fn a_run_of_bad_characters_is_one_diagnostic_spanning_the_run() {
    let run = "\u{1}".repeat(1000);
    let source = format!("fn main() {{\n  let x = 1 {run}\n}}\n");
    let errors = errors_of(&source);
    let found: Vec<_> = errors
        .iter()
        .map(|d| (d.code(), d.line(), d.column(), d.span()))
        .collect();
    assert_eq!(found, [("E0001", 2, 13, 24..1024)], "{errors}");
    let d = errors.iter().next().unwrap();
    assert!(
        d.message()
            .starts_with("1000 unexpected characters in a row"),
        "{d}"
    );
    // The message quotes the start of the run, not all of it.
    assert!(d.message().len() < 200, "{d}");
}

#[test]
fn a_compile_reports_at_most_max_errors_and_a_note_that_it_stopped() {
    let line = "$ ".repeat(cove_compiler::MAX_ERRORS * 3);
    let errors = errors_of(&format!("fn main() {{\n  let x = {line}1\n}}\n"));
    assert_eq!(errors.len(), cove_compiler::MAX_ERRORS);
    assert!(errors.truncated());
    // The first ones, in order.
    let columns: Vec<u32> = errors.iter().map(|d| d.column()).collect();
    let expected: Vec<u32> = (0..cove_compiler::MAX_ERRORS as u32)
        .map(|i| 11 + 2 * i)
        .collect();
    assert_eq!(columns, expected);
    let text = errors.to_string();
    assert!(
        text.ends_with(&format!(
            "note: too many errors; stopping after {}\n\n",
            cove_compiler::MAX_ERRORS
        )),
        "{text}"
    );
}

#[test]
fn a_compile_at_the_limit_is_not_marked_truncated() {
    let line = "$ ".repeat(cove_compiler::MAX_ERRORS);
    let errors = errors_of(&format!("fn main() {{\n  let x = {line}1\n}}\n"));
    assert_eq!(errors.len(), cove_compiler::MAX_ERRORS);
    assert!(!errors.truncated());
    assert!(!errors.to_string().contains("too many errors"));
}

#[test]
fn columns_of_many_errors_on_one_line_count_characters_from_the_line_start() {
    // Two-byte characters between the errors: a column is in characters.
    let line = "é $ ".repeat(20);
    let errors = errors_of(&format!("fn main() {{\n  {line}\n}}\n"));
    let dollars: Vec<u32> = errors
        .iter()
        .filter(|d| d.message() == "unexpected character `$`")
        .map(|d| d.column())
        .collect();
    let expected: Vec<u32> = (0..20).map(|i| 5 + 4 * i).collect();
    assert_eq!(dollars, expected, "{errors}");
}

#[test]
fn the_snippet_of_a_long_line_is_a_window_around_the_error_at_its_real_column() {
    let line = format!("{}$ 1", "1 + ".repeat(1 << 16));
    let errors = errors_of(&format!("fn main() {{\n  let x = {line}\n}}\n"));
    let d = errors.iter().next().unwrap();
    let column = 11 + 4 * (1 << 16);
    assert_eq!(
        (d.code(), d.line(), d.column()),
        ("E0001", 2, column),
        "{d}"
    );
    let text = errors.to_string();
    assert!(text.contains(&format!("--> m.cove:2:{column}\n")), "{text}");
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(
        widest < 200,
        "a snippet line of {widest} characters:\n{text}"
    );
    // The window shows where the line was cut, and the caret under the `$`.
    let snippet: Vec<&str> = text.lines().skip(3).take(2).collect();
    assert!(
        snippet[0].starts_with("2 | ...1 + ") && snippet[0].ends_with("$ 1"),
        "{text}"
    );
    let caret = snippet[1].find('^').unwrap();
    assert_eq!(&snippet[0][caret..caret + 1], "$", "{text}");
}
