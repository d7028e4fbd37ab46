//! Every ` ```cove ` example of `docs/LANGUAGE.md` compiles: the reference
//! cannot drift from the compiler.

use std::path::Path;

fn examples() -> Vec<(usize, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/LANGUAGE.md");
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut current {
            None if line.trim_start() == "```cove" => current = Some((i + 1, String::new())),
            None => {}
            Some(_) if line.trim_start() == "```" => out.extend(current.take()),
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    out
}

#[test]
fn every_example_of_the_language_reference_compiles() {
    let examples = examples();
    assert!(examples.len() >= 20, "only {} examples", examples.len());
    for (line, source) in examples {
        if let Err(errors) = cove_compiler::compile_module("example", &source) {
            panic!("the example at docs/LANGUAGE.md:{line} does not compile:\n{errors}");
        }
    }
}
