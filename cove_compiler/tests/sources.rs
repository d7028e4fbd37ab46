//! `compile_sources`: a program of several modules whose sources are in
//! memory compiles exactly as the same modules read from files do.

use std::fs;

const LEXER: &str = "
export fn words(text: String) -> List[String] {
  text.split(\" \")
}
";

const MAIN: &str = "
import lexer

export fn main() -> Int {
  lexer.words(\"a bb ccc\").length()
}
";

#[test]
fn modules_in_memory_compile_to_the_program_their_files_compile_to() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("lexer.cove"), LEXER).unwrap();
    fs::write(dir.path().join("main.cove"), MAIN).unwrap();
    let from_files = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap();
    let from_memory =
        cove_compiler::compile_sources("main", &[("main", MAIN), ("lexer", LEXER)]).unwrap();
    let names: Vec<&str> = from_memory
        .modules
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(names, ["lexer", "main"]);
    // The same program, but for the paths the modules are shown by.
    let shown_dir = format!("{}/", dir.path().display());
    assert_eq!(
        cove_ir::print::program(&from_memory),
        cove_ir::print::program(&from_files).replace(&shown_dir, "")
    );
}

#[test]
fn an_import_of_a_module_not_given_is_a_missing_module_at_the_import() {
    let diagnostics = cove_compiler::compile_sources("main", &[("main", MAIN)]).unwrap_err();
    let text = diagnostics.to_string();
    assert!(text.contains("E0601"), "{text}");
    assert!(text.contains("main.cove:2:"), "{text}");
}

#[test]
fn an_entry_not_among_the_sources_is_an_error_not_a_panic() {
    let diagnostics = cove_compiler::compile_sources("main", &[("lexer", LEXER)]).unwrap_err();
    assert!(diagnostics.to_string().contains("no module `main`"));
}
