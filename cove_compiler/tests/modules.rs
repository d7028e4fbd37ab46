//! `compile_files`: programs of several modules read from a directory.

use std::fs;
use std::path::Path;

fn write(dir: &Path, name: &str, source: &str) {
    fs::write(dir.join(format!("{name}.cove")), source).unwrap();
}

const LEXER: &str = r#"
export enum Token {
  Word(String),
  Number(Int),
  End,
}

export struct Span {
  start: Int,
  end: Int,
}

export fn tokenize(text: String) -> List[Token] {
  var out = List[Token]()
  for w in text.split(" ") {
    out.push(Token.Word(w))
  }
  out.push(Token.End)
  out
}

fn helper() -> Int {
  1
}
"#;

#[test]
fn an_imported_module_is_compiled_first_and_the_entry_last() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lexer", LEXER);
    write(
        dir.path(),
        "main",
        r#"
import lexer

fn count(tokens: List[lexer.Token]) -> Int {
  var n = 0
  for t in tokens {
    match t {
      lexer.Token.Word(w) => n += w.length(),
      lexer.Token.Number(x) => n += x,
      lexer.Token.End => n += 0,
    }
  }
  n
}

export fn main() -> Int {
  let span = lexer.Span { start: 0, end: 1 }
  let extra = lexer.Token.Number(2)
  count(lexer.tokenize("a bb ccc")) + span.end
}
"#,
    );
    let program = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap();
    let names: Vec<&str> = program.modules.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["lexer", "main"]);
    assert!(program.modules[1].source.contains("import lexer"));
    assert!(program.find_function("lexer", "tokenize").is_some());
    let main = program.find_function("main", "main").unwrap();
    assert_eq!(program.function_name(main), "main.main");
}

#[test]
fn a_module_imported_by_two_others_is_compiled_once() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "util", "export fn one() -> Int {\n  1\n}\n");
    write(
        dir.path(),
        "a",
        "import util\nexport fn a() -> Int {\n  util.one()\n}\n",
    );
    write(
        dir.path(),
        "b",
        "import util\nexport fn b() -> Int {\n  util.one()\n}\n",
    );
    write(
        dir.path(),
        "main",
        "import a\nimport b\nfn main() -> Int {\n  a.a() + b.b()\n}\n",
    );
    let program = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap();
    let names: Vec<&str> = program.modules.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["util", "a", "b", "main"]);
}

#[test]
fn a_missing_module_is_reported_at_its_import() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "main", "import nowhere\n\nfn main() {}\n");
    let errors = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap_err();
    let d = errors.iter().next().unwrap();
    assert_eq!(d.code(), "E0601");
    assert_eq!((d.line(), d.column()), (1, 8));
    assert!(
        d.message().contains("cannot find module `nowhere`"),
        "{errors}"
    );
    assert!(d.file().ends_with("main.cove"));
}

/// Every diagnostic as `file:line:col code`, the file by its name alone.
fn places(errors: &cove_compiler::Diagnostics) -> Vec<String> {
    errors
        .iter()
        .map(|d| {
            let file = Path::new(d.file()).file_name().unwrap().to_string_lossy();
            format!("{file}:{}:{} {}", d.line(), d.column(), d.code())
        })
        .collect()
}

#[test]
fn a_missing_module_imported_by_two_modules_is_reported_at_each_import() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a", "import nowhere\n\nexport fn f() {}\n");
    write(dir.path(), "b", "\nimport nowhere\n\nexport fn g() {}\n");
    write(
        dir.path(),
        "main",
        "import a\nimport b\n\nfn main() {\n  a.f()\n  b.g()\n}\n",
    );
    let errors = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap_err();
    assert_eq!(
        places(&errors),
        ["a.cove:1:8 E0601", "b.cove:2:8 E0601"],
        "{errors}"
    );
    for d in errors.iter() {
        assert!(
            d.message().contains("cannot find module `nowhere`"),
            "{errors}"
        );
    }
}

#[test]
fn a_missing_module_imported_twice_by_one_file_is_reported_at_both_imports() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "main",
        "import nowhere\nimport nowhere\n\nfn main() {}\n",
    );
    let errors = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap_err();
    assert_eq!(
        places(&errors),
        ["main.cove:1:8 E0601", "main.cove:2:8 E0601"],
        "{errors}"
    );
}

#[test]
fn a_module_importing_itself_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "main", "import main\nfn main() {}\n");
    let errors = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap_err();
    let d = errors.iter().next().unwrap();
    assert_eq!(d.code(), "E0602", "{errors}");
    assert_eq!((d.line(), d.column()), (1, 8));
}

#[test]
fn a_private_function_used_from_another_module_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lexer", LEXER);
    write(
        dir.path(),
        "main",
        "import lexer\nfn main() -> Int {\n  lexer.helper()\n}\n",
    );
    let errors = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap_err();
    let d = errors.iter().next().unwrap();
    assert_eq!(d.code(), "E0305");
    assert_eq!(d.line(), 3);
    assert!(
        d.message()
            .contains("`helper` is private to module `lexer`"),
        "{errors}"
    );
    assert!(d.help().unwrap().contains("export"));
}

#[test]
fn a_private_type_used_from_another_module_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "shapes",
        "struct Secret {\n  x: Int,\n}\nexport fn f() {}\n",
    );
    write(
        dir.path(),
        "main",
        "import shapes\nfn main() {\n  let s = shapes.Secret { x: 1 }\n}\n",
    );
    let errors = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap_err();
    assert!(
        errors
            .iter()
            .any(|d| d.code() == "E0305" && d.message().contains("`Secret` is private")),
        "{errors}"
    );
}

#[test]
fn an_unreadable_entry_file_is_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let errors = cove_compiler::compile_files(&dir.path().join("absent.cove")).unwrap_err();
    let d = errors.iter().next().unwrap();
    assert_eq!(d.code(), "E0600");
    assert!(d.message().contains("cannot read"), "{errors}");
    assert!(errors.to_string().contains("absent.cove"));
}

#[test]
fn errors_in_several_modules_are_all_reported_with_their_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "lib", "export fn f() -> Int {\n  \"text\"\n}\n");
    write(
        dir.path(),
        "main",
        "import lib\nfn main() {\n  let x: Bool = 1\n}\n",
    );
    let errors = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap_err();
    let files: Vec<&str> = errors.iter().map(|d| d.file()).collect();
    assert_eq!(errors.len(), 2, "{errors}");
    assert!(files[0].ends_with("lib.cove") && files[1].ends_with("main.cove"));
}

#[test]
fn colour_rendering_adds_escapes_and_plain_rendering_does_not() {
    let errors =
        cove_compiler::compile_module("m", "fn main() {\n  let x: Int = true\n}\n").unwrap_err();
    assert!(errors.render(true).contains('\u{1b}'));
    assert!(!errors.render(false).contains('\u{1b}'));
    assert_eq!(errors.render(false), errors.to_string());
    let text = errors.to_string();
    assert!(text.contains("m.cove:2:16"), "{text}");
    assert!(text.contains("E0100"), "{text}");
}

#[test]
fn the_module_example_of_the_language_reference_compiles() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "lexer",
        "export enum Token {\n  Word(String),\n  End,\n}\n\nexport fn tokenize(text: String) -> List[Token] {\n  var out = List[Token]()\n  for w in text.split(\" \") {\n    out.push(Token.Word(w))\n  }\n  out.push(Token.End)\n  out\n}\n",
    );
    write(
        dir.path(),
        "main",
        "import lexer\n\nfn main() -> Int {\n  let tokens = lexer.tokenize(\"a b\")\n  match tokens[0] {\n    lexer.Token.Word(w) => w.length(),\n    lexer.Token.End => 0,\n  }\n}\n",
    );
    cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap();
}

#[test]
fn a_diagnostic_has_a_one_line_form_for_editors_and_logs() {
    let errors =
        cove_compiler::compile_module("m", "fn main() {\n  let x: Int = true\n}\n").unwrap_err();
    let lines: Vec<String> = (&errors).into_iter().map(|d| d.to_string()).collect();
    assert_eq!(
        lines,
        ["m.cove:2:16: error[E0100]: type mismatch: expected Int, found Bool"]
    );
    let d = errors.iter().next().unwrap();
    assert_eq!(d.label(), "this is Bool");
    assert_eq!(d.span(), 27..31);
}

#[test]
fn the_error_example_of_the_language_brief_renders_as_it_shows() {
    let dir = tempfile::tempdir().unwrap();
    let examples = dir.path().join("examples");
    fs::create_dir(&examples).unwrap();
    write(
        &examples,
        "bad",
        "export fn main() -> Int {\n  var total = 0\n  let text = \"abc\"\n  total = total + text\n  total\n}\n",
    );
    let errors = cove_compiler::compile_files(&examples.join("bad.cove")).unwrap_err();
    let text = errors.to_string();
    let path = examples.join("bad.cove").display().to_string();
    let expected = format!(
        "error[E0100]: type mismatch: expected Int, found String\n  --> {path}:4:11\n  |\n4 |   total = total + text\n  |           ^^^^^^^^^^^^ this is String\n"
    );
    assert!(text.starts_with(&expected), "{text}");
    assert_eq!(errors.len(), 1);
}

#[test]
fn the_uses_of_a_missing_module_are_not_reported_again() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "main",
        "import nowhere\n\nfn f(t: nowhere.T) {}\n\nfn main() {\n  nowhere.go()\n  println(nowhere.size(1))\n}\n",
    );
    let errors = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap_err();
    let codes: Vec<&str> = errors.iter().map(|d| d.code()).collect();
    assert_eq!(codes, ["E0601"], "{errors}");
}

#[test]
fn an_entry_file_that_is_not_utf8_is_reported_at_the_bad_bytes_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.cove");
    let mut bytes = b"fn main() -> Int {\n  let s = \"ok\"\n  let t = \"".to_vec();
    bytes.extend([0xff, 0xfe]);
    bytes.extend(b"\"\n  0\n}\n");
    std::fs::write(&path, bytes).unwrap();
    let errors = cove_compiler::compile_files(&path).unwrap_err();
    let d = errors.iter().next().unwrap();
    assert_eq!(d.code(), "E0600");
    assert_eq!((d.line(), d.column()), (3, 12), "{errors}");
    assert!(d.message().contains("not UTF-8"), "{errors}");
}
