//! Malformed uses of every v1.1 construct — truncated, of the wrong arity,
//! of the wrong types, or in the wrong place — each compiled on its own:
//! each must get at least one located diagnostic with a code, none of them
//! an internal error (the compiler's panic turned into `E9000`), and the
//! whole report is one snapshot, so a change in what a newcomer is told
//! shows up in review.

/// Each case: a name, then the body of `main` (or, for a case that starts
/// with `fn`, `struct`, `enum`, `impl`, `const` or `import`, a whole module
/// whose `main` is added after it).
const CASES: &[(&str, &str)] = &[
    // Function types, values and closures.
    ("closure truncated", "let f = fn(x: Int) -> Int {"),
    ("closure without body", "let f = fn(x: Int) -> Int"),
    ("closure with bars", "let f = |x| x + 1"),
    ("closure untyped without context", "let f = fn(x) { x + 1 }"),
    (
        "closure called with too many arguments",
        "let f = fn(x: Int) { x }\n  f(1, 2)",
    ),
    (
        "closure called with a wrong type",
        "let f = fn(x: Int) { x }\n  f(\"a\")",
    ),
    (
        "closure result mismatch",
        "let f: fn(Int) -> String = fn(x) { x + 1 }",
    ),
    (
        "function type truncated",
        "let f: fn(Int -> Int = fn(x: Int) { x }",
    ),
    ("calling a non-function", "let n = 3\n  n(1)"),
    (
        "assigning a captured let",
        "let k = 1\n  let f = fn() { k = 2 }\n  f()",
    ),
    (
        "return of the wrong type in a closure",
        "let f = fn(x: Int) -> Int { return \"s\" }\n  f(1)",
    ),
    // Methods.
    (
        "impl of an unknown type",
        "impl Nope {\n  fn f(self) {}\n}\n",
    ),
    (
        "impl holding a field",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  x: Int\n}\n",
    ),
    (
        "impl truncated",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn get(self) -> Int {\n",
    ),
    (
        "method unknown",
        "struct P {\n  x: Int,\n}\n\nfn main2() {\n  let p = P { x: 1 }\n  p.nope()\n}\n",
    ),
    (
        "method arity",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn get(self) -> Int {\n    self.x\n  }\n}\n\nfn main2() {\n  let p = P { x: 1 }\n  p.get(2)\n}\n",
    ),
    (
        "static called on a value",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn new() -> P {\n    P { x: 0 }\n  }\n}\n\nfn main2() {\n  let p = P.new()\n  p.new()\n}\n",
    ),
    (
        "method called through the type without receiver",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn get(self) -> Int {\n    self.x\n  }\n}\n\nfn main2() {\n  P.get()\n}\n",
    ),
    ("self outside impl", "fn f(self) -> Int {\n  1\n}\n"),
    ("trait", "trait Show {\n  fn show(self) -> String\n}\n"),
    ("generics", "fn first[T](xs: List[T]) -> T {\n  xs[0]\n}\n"),
    // Tuples.
    ("tuple truncated", "let t = (1, 2"),
    ("tuple field out of range", "let t = (1, 2)\n  println(t.2)"),
    (
        "tuple destructured into too many names",
        "let (a, b, c) = (1, 2)",
    ),
    ("tuple destructuring of a non-tuple", "let (a, b) = 5"),
    ("tuple type mismatch", "let t: (Int, String) = (\"a\", 1)"),
    (
        "for over pairs of a list of ints",
        "for (a, b) in [1, 2] {\n    println(a)\n  }",
    ),
    // Tuple patterns.
    (
        "tuple pattern arity",
        "match (1, 2) {\n    (a, b, c) => println(a),\n    _ => println(0),\n  }",
    ),
    (
        "tuple pattern on an Int",
        "match 3 {\n    (a, b) => println(a),\n    _ => println(0),\n  }",
    ),
    (
        "tuple pattern part of the wrong type",
        "match (1, \"s\") {\n    (1, 2) => println(1),\n    _ => println(0),\n  }",
    ),
    (
        "tuple pattern not exhaustive",
        "match (true, false) {\n    (true, _) => println(1),\n    (false, true) => println(2),\n  }",
    ),
    (
        "tuple pattern truncated",
        "match (1, 2) {\n    (a, => println(a),\n  }",
    ),
    // Map iteration.
    (
        "for with one name over a map then a tuple field",
        "let m = Map[String, Int]()\n  for (k, v, w) in m {\n    println(k)\n  }",
    ),
    (
        "entries with arguments",
        "let m = Map[String, Int]()\n  println(m.entries(1))",
    ),
    // Equality.
    (
        "equality of different types",
        "println((1, 2) == (1, \"a\"))",
    ),
    (
        "equality on channels",
        "let c = Channel[Int]()\n  println(c == c)",
    ),
    (
        "equality on functions",
        "let f = fn() { 1 }\n  println(f == f)",
    ),
    // Patterns: guards and alternatives.
    (
        "guard not Bool",
        "match 3 {\n    n if n => println(n),\n    _ => println(0),\n  }",
    ),
    (
        "alternative binding",
        "let o: Option[Int] = None\n  match o {\n    Some(x) | None => println(1),\n  }",
    ),
    (
        "guard truncated",
        "match 3 {\n    n if => println(n),\n    _ => println(0),\n  }",
    ),
    // loop and break value.
    ("loop truncated", "loop {\n    break"),
    ("break value in while", "while true {\n    break 3\n  }"),
    (
        "break values of two types",
        "let x = loop {\n    if true {\n      break 1\n    }\n    break \"s\"\n  }",
    ),
    ("break outside a loop", "break 3"),
    ("continue outside a loop", "continue"),
    // Constants.
    ("const without type", "const N = 3\n"),
    (
        "const of a call",
        "const N: Int = f()\n\nfn f() -> Int {\n  1\n}\n",
    ),
    ("const overflow", "const N: Int = Int.MAX + 1\n"),
    ("const cycle", "const A: Int = B\nconst B: Int = A\n"),
    ("const of a list type", "const XS: List[Int] = [1]\n"),
    (
        "const assigned",
        "const N: Int = 1\n\nfn main2() {\n  N = 2\n}\n",
    ),
    ("const inside a function", "let x = 1\n  const N: Int = x"),
    // Format specs.
    ("format spec malformed", "let x = 1\n  println(\"{x:>>>}\")"),
    (
        "format type on a string",
        "let s = \"a\"\n  println(\"{s:x}\")",
    ),
    ("format binary on a float", "println(\"{1.5:b}\")"),
    ("format spec empty expression", "println(\"{:5}\")"),
    ("format spec unclosed", "let x = 1\n  println(\"{x:5\")"),
    // Text, lists and numbers.
    ("char literal", "let c = 'a'"),
    ("to_char on a string", "println(\"a\".to_char())"),
    (
        "sort_by with a wrong comparator",
        "let xs = [1, 2]\n  xs.sort_by(fn(a: Int) { a })",
    ),
    (
        "sort_by_key with a Bool key",
        "let xs = [1, 2]\n  xs.sort_by_key(fn(x) { x > 1 })",
    ),
    (
        "map without a function",
        "let xs = [1, 2]\n  println(xs.map(3))",
    ),
    (
        "fold with its arguments swapped",
        "let xs = [1, 2]\n  println(xs.fold(fn(a, x) { a + x }, 0))",
    ),
    ("pow of a Float on an Int", "println(2.pow(0.5))"),
    ("sort of a list of bools", "let xs = [true]\n  xs.sort()"),
    // Compound assignment and the missing operators.
    ("compound assignment on a let", "let x = 1\n  x <<= 2"),
    ("compound assignment of a string", "var x = 1\n  x /= \"2\""),
    ("increment", "var x = 1\n  x++"),
    ("question mark", "let o: Option[Int] = None\n  let v = o?"),
    (
        "loop with its brace on the next line",
        "var i = 0\n  loop\n  {\n    i = 1\n  }",
    ),
    ("double colon path", "let o: Option[Int] = Option::None"),
    (
        "double colon path to an enum variant",
        "enum Color {\n  Red,\n  Blue,\n}\n\nfn main2() -> Color {\n  Color::Red\n}\n",
    ),
    // Input.
    ("read_line with an argument", "println(read_line(1))"),
    ("read_line used as a String", "let s: String = read_line()"),
    ("read_stdin as an Int", "let n: Int = read_stdin()"),
];

/// The module a case stands for.
fn module_of(body: &str) -> String {
    let whole = [
        "fn ", "struct ", "enum ", "impl ", "const ", "import ", "trait ",
    ]
    .iter()
    .any(|k| body.starts_with(k));
    if whole {
        format!("{body}\nfn main() {{\n}}\n")
    } else {
        format!("fn main() {{\n  {body}\n}}\n")
    }
}

#[test]
fn every_malformed_use_of_a_v1_1_construct_gets_a_located_diagnostic_and_no_panic() {
    let mut report = String::new();
    let mut problems = Vec::new();
    for (name, body) in CASES {
        let source = module_of(body);
        let errors = match cove_compiler::compile_module("m", &source) {
            Ok(_) => {
                problems.push(format!("{name}: compiled, but it is malformed:\n{source}"));
                continue;
            }
            Err(errors) => errors,
        };
        if errors.is_empty() {
            problems.push(format!("{name}: no diagnostic"));
        }
        for d in errors.iter() {
            if d.code() == "E9000" || !d.code().starts_with('E') {
                problems.push(format!("{name}: {d:?}"));
            }
            if d.line() < 1 || d.column() < 1 {
                problems.push(format!("{name}: not located: {d:?}"));
            }
        }
        report.push_str(&format!("=== {name}\n{errors}\n"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    insta::assert_snapshot!(report);
}
