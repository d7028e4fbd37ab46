//! A module's non-exported items — constant, function, struct, enum,
//! method, function of an `impl` — used from another module, in every place
//! a newcomer writes one: each use gets one located E0305 that says the item
//! is not exported (never "unknown type" or a second, derived error), a
//! path that names no constant in a pattern says what it names instead, and
//! an `impl` of the other module's type says where it goes. One
//! snapshot holds the whole report, so a change in the wording shows up in
//! review; exported items in the same places must compile.

use std::fs;

/// The imported module: one private item of each kind beside exported ones.
const GEO: &str = r#"const PRIVATE: Int = 3
export const PUB: Int = 4

struct Hidden {
  x: Int,
}

enum Secret {
  A,
  B(Int),
}

export struct Point {
  x: Int,
  y: Int,
}

impl Point {
  fn hidden_new(x: Int) -> Point {
    Point { x: x, y: x }
  }

  fn hidden_norm(self) -> Int {
    self.x + self.y
  }

  export fn new(x: Int, y: Int) -> Point {
    Point { x: x, y: y }
  }
}

export enum Dir {
  N,
  S,
}

impl Dir {
  fn hidden_flip(self) -> Dir {
    Dir.S
  }
}

fn helper() -> Int {
  1
}

export fn mk() -> Int {
  helper() + PRIVATE + Hidden { x: 1 }.x + Point.hidden_new(1).hidden_norm() + secret()
}

fn secret() -> Int {
  match Dir.N.hidden_flip() {
    Dir.N => 0,
    Dir.S => match Secret.B(2) {
      Secret.A => 1,
      Secret.B(n) => n,
    },
  }
}
"#;

/// Each case: a name, then the body of `main` (or, starting with `fn`,
/// `const` or `impl`, the items of the module after `import geo`).
const CASES: &[(&str, &str)] = &[
    (
        "a private constant as a pattern",
        "match 3 {\n    geo.PRIVATE => println(\"a\"),\n    _ => println(\"b\"),\n  }",
    ),
    (
        "a private constant inside a tuple pattern",
        "match (1, 2) {\n    (geo.PRIVATE, _) => println(\"a\"),\n    _ => println(\"b\"),\n  }",
    ),
    (
        "a private constant inside Some",
        "match Some(3) {\n    Some(geo.PRIVATE) => println(\"a\"),\n    _ => println(\"b\"),\n  }",
    ),
    (
        "a private constant in an alternative",
        "match 3 {\n    1 | geo.PRIVATE => println(\"a\"),\n    _ => println(\"b\"),\n  }",
    ),
    (
        "a missing constant as a pattern",
        "match 3 {\n    geo.NOPE => println(\"a\"),\n    _ => println(\"b\"),\n  }",
    ),
    (
        "a function as a pattern",
        "match 3 {\n    geo.mk => println(\"a\"),\n    _ => println(\"b\"),\n  }",
    ),
    (
        "a type as a pattern",
        "match 3 {\n    geo.Point => println(\"a\"),\n    _ => println(\"b\"),\n  }",
    ),
    ("a private constant as a value", "println(geo.PRIVATE)"),
    (
        "a method called on a private constant",
        "println(geo.PRIVATE.abs())",
    ),
    (
        "a private constant in a format spec",
        "println(\"{geo.PRIVATE:>4}\")",
    ),
    (
        "a private constant in a guard",
        "match 3 {\n    n if n > geo.PRIVATE => println(\"a\"),\n    _ => println(\"b\"),\n  }",
    ),
    (
        "a private constant in a constant",
        "const X: Int = geo.PRIVATE + 1\n\nfn main2() {\n  println(X)\n}",
    ),
    ("a private function called", "println(geo.helper())"),
    (
        "a private function as a value",
        "let f = geo.helper\n  println(f())",
    ),
    (
        "a private function passed to map",
        "println([1].map(fn(x) { x + geo.helper() }))",
    ),
    (
        "a private function spawned",
        "let t = spawn geo.helper()\n  println(t.join())",
    ),
    ("a private struct literal", "let h = geo.Hidden { x: 1 }"),
    (
        "a private struct as a parameter type",
        "fn f(h: geo.Hidden) -> Int {\n  1\n}",
    ),
    (
        "a private struct in a list type",
        "let xs = List[geo.Hidden]()",
    ),
    ("a private enum's variant", "let s = geo.Secret.A"),
    (
        "a private enum's variant as a pattern",
        "match geo.Dir.N {\n    geo.Secret.A => println(\"a\"),\n    _ => println(\"b\"),\n  }",
    ),
    (
        "a private function of an impl",
        "let p = geo.Point.hidden_new(1)",
    ),
    (
        "a private function of an impl as a value",
        "let f = geo.Point.hidden_new",
    ),
    (
        "a private method",
        "let p = geo.Point.new(1, 2)\n  println(p.hidden_norm())",
    ),
    (
        "a private method as a value",
        "let f = geo.Point.hidden_norm",
    ),
    (
        "a private method inside a closure",
        "let p = geo.Point.new(1, 2)\n  let f = fn() { p.hidden_norm() }\n  println(f())",
    ),
    (
        "a private method spawned",
        "let p = geo.Point.new(1, 2)\n  let t = spawn p.hidden_norm()\n  println(t.join())",
    ),
    (
        "a private function of an impl spawned",
        "let t = spawn geo.Point.hidden_new(1)\n  println(t.join().x)",
    ),
    (
        "a private method of an enum",
        "println(geo.Dir.N.hidden_flip() == geo.Dir.S)",
    ),
    (
        "an impl of the other module's exported type",
        "impl geo.Point {\n  fn extra(self) -> Int {\n    1\n  }\n}",
    ),
];

/// The same places with exported items, which must compile (the
/// conformance program `modules/exported_constants_as_values` runs them).
const FINE: &str = r#"import geo

fn main() {
  match 4 {
    geo.PUB => println("pub"),
    _ => println("other"),
  }
  println("{geo.PUB.abs()} {geo.PUB.pow(2)} {geo.PUB.to_string().length()} {geo.mk()}")
  let t = spawn geo.mk()
  println(t.join())
}
"#;

fn module_of(body: &str) -> String {
    if ["fn ", "const ", "impl "]
        .iter()
        .any(|k| body.starts_with(k))
    {
        format!("import geo\n\n{body}\n\nfn main() {{\n  println(geo.PUB)\n}}\n")
    } else {
        format!("import geo\n\nfn main() {{\n  {body}\n}}\n")
    }
}

#[test]
fn each_private_item_used_from_another_module_is_one_not_exported_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("geo.cove"), GEO).unwrap();
    let main = dir.path().join("main.cove");
    let mut report = String::new();
    let mut problems = Vec::new();
    for (name, body) in CASES {
        let source = module_of(body);
        fs::write(&main, &source).unwrap();
        let errors = match cove_compiler::compile_files(&main) {
            Ok(_) => {
                problems.push(format!("{name}: compiled:\n{source}"));
                continue;
            }
            Err(errors) => errors,
        };
        if errors.len() != 1 {
            problems.push(format!("{name}: {} diagnostics:\n{errors}", errors.len()));
        }
        for d in errors.iter() {
            if d.code() == "E9000" || d.line() < 1 || d.column() < 1 {
                problems.push(format!("{name}: {d:?}"));
            }
        }
        // The temporary directory's name differs from run to run.
        let text = errors
            .to_string()
            .replace(&*dir.path().to_string_lossy(), "DIR");
        report.push_str(&format!("=== {name}\n{text}\n"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    insta::assert_snapshot!(report);
}

#[test]
fn exported_items_in_the_same_places_compile() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("geo.cove"), GEO).unwrap();
    let main = dir.path().join("main.cove");
    fs::write(&main, FINE).unwrap();
    if let Err(errors) = cove_compiler::compile_files(&main) {
        panic!("{errors}");
    }
}
