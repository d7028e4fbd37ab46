//! What the compiler makes of methods and function expressions that other
//! parts rely on: their names (which every report and backtrace prints),
//! and who may call a method across modules.

use std::path::Path;

fn write(dir: &Path, name: &str, source: &str) {
    std::fs::write(dir.join(format!("{name}.cove")), source).unwrap();
}

const GEO: &str = "\
export struct P {
  x: Int,
}

impl P {
  export fn get(self) -> Int {
    self.x
  }

  fn hidden(self) -> Int {
    0
  }
}
";

#[test]
fn a_private_method_called_from_another_module_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "geo", GEO);
    write(
        dir.path(),
        "main",
        "import geo\nfn main() -> Int {\n  let p = geo.P { x: 1 }\n  p.get() + p.hidden()\n}\n",
    );
    let errors = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap_err();
    let d = errors.iter().next().unwrap();
    assert_eq!(d.code(), "E0305", "{errors}");
    assert_eq!((d.line(), d.column()), (4, 15), "{errors}");
    assert!(
        d.message()
            .contains("`P.hidden` is private to module `geo`"),
        "{errors}"
    );
    assert_eq!(errors.iter().count(), 1, "{errors}");
}

#[test]
fn an_exported_method_of_another_module_is_called_through_the_value() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "geo", GEO);
    write(
        dir.path(),
        "main",
        "import geo\nfn main() -> Int {\n  let p = geo.P { x: 1 }\n  p.get()\n}\n",
    );
    let program = cove_compiler::compile_files(&dir.path().join("main.cove")).unwrap();
    let names: Vec<&str> = program
        .functions
        .iter()
        .map(|f| f.qualified.as_str())
        .collect();
    assert!(names.contains(&"geo.P.get"), "{names:?}");
}

#[test]
fn methods_and_closures_are_named_as_the_source_reads() {
    let source = "\
struct Point {
  x: Int,
}

impl Point {
  fn norm(self) -> Int {
    let f = fn(k: Int) -> Int { k * self.x }
    f(2)
  }
}

fn main() {
  let g = fn() { println(\"hi\") }
  let h = fn() { println(\"ho\") }
  g()
  h()
  println(\"{Point { x: 3 }.norm()}\")
}
";
    let program = cove_compiler::compile_module("m", source).unwrap();
    let names: Vec<&str> = program
        .functions
        .iter()
        .map(|f| f.qualified.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "m.Point.norm",
            "m.main",
            "m.Point.norm.<closure@7>",
            "m.main.<closure@13>",
            "m.main.<closure@14>",
        ]
    );
}

#[test]
fn a_function_expression_ending_in_a_statement_returns_unit_without_loading_it() {
    // `{ total += x }` has no result type written: it is inferred `()`,
    // and the body's last statement leaves nothing to load for the return.
    let source = "\
fn main() {
  var total = 0
  let count = fn(x: Int) { total += x }
  let shout = fn() { println(\"hi\") }
  count(2)
  shout()
  println(\"{total}\")
}
";
    let program = cove_compiler::compile_module("m", source).unwrap();
    let count = program
        .functions
        .iter()
        .find(|f| f.qualified == "m.main.<closure@3>")
        .expect("the closure is compiled");
    assert!(
        !count
            .code
            .iter()
            .any(|i| matches!(i, cove_ir::op::Instr::LoadInt { .. })),
        "{:?}",
        count.code
    );
    assert!(matches!(
        count.code.last(),
        Some(cove_ir::op::Instr::ReturnUnit {})
    ));
}
