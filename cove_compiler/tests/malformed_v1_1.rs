//! Malformed uses of every v1.1 construct — truncated, of the wrong arity,
//! of the wrong types, or in the wrong place — each compiled on its own:
//! each must get one located diagnostic with a code, not a cascade (the
//! few with two say why in `TWO_ERRORS`), none of them
//! an internal error (the compiler's panic turned into `E9000`), and the
//! whole report is one snapshot, so a change in what a newcomer is told
//! shows up in review.

/// Each case: a name, then the body of `main` (or, for a case that starts
/// with `fn`, `struct`, `enum`, `impl`, `const`, `import` or a `// ` comment,
/// a whole module whose `main` is added after it).
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
        "a closure passed to a method of an unknown name's value",
        "let ps = nope\n  ps.sort_by(fn(a, b) { a < b })",
    ),
    (
        "an unknown function of a type as a value",
        "struct P {\n  x: Int,\n}\n\nfn main2() {\n  let f = P.nope\n}\n",
    ),
    (
        "a function value called with the wrong arguments",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn new(x: Int) -> P {\n    P { x: x }\n  }\n}\n\nfn main2() {\n  let mk = P.new\n  mk(\"a\")\n}\n",
    ),
    (
        "closure with one untyped parameter",
        "let f = fn(x: Int, y) -> Int { x }",
    ),
    (
        "closure with an arrow but no result type",
        "let f = fn(x: Int) -> { x }",
    ),
    (
        "closure called with no arguments",
        "let f = fn(x: Int) -> Int { x }\n  f()",
    ),
    (
        "closure of the wrong parameter type for its annotation",
        "let f = fn(x: Int) -> Int { x }\n  let g: fn(String) -> Int = f",
    ),
    (
        "list of closures of two types",
        "let fs = [fn(x: Int) { x }, fn(x: String) { x }]",
    ),
    ("fn written twice", "let f = fn fn(x: Int) { x }"),
    (
        "map with a function of two parameters",
        "let xs = [1]\n  xs.map(fn(x, y) { x })",
    ),
    (
        "fold with a function of one parameter",
        "let xs = [1]\n  xs.fold(0, fn(a) { a })",
    ),
    (
        "sort_by with a comparator of one untyped parameter",
        "let xs = [1]\n  xs.sort_by(fn(a) { a > 0 })",
    ),
    (
        "filter with a non-Bool predicate",
        "let xs = [1]\n  xs.filter(fn(x) { x })",
    ),
    (
        "break inside a closure inside a loop",
        "loop {\n    let f = fn() { break 1 }\n  }",
    ),
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
        "method reading an unknown field of self",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn get(self) -> Int {\n    self.y\n  }\n}\n",
    ),
    (
        "method with self twice",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn get(self, self) -> Int {\n    1\n  }\n}\n",
    ),
    (
        "method with self not first",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn get(x: Int, self) -> Int {\n    x\n  }\n}\n",
    ),
    (
        "method declared twice",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn get(self) -> Int {\n    1\n  }\n\n  fn get(self) -> Int {\n    2\n  }\n}\n",
    ),
    (
        "assigning self",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn reset(self) {\n    self = P { x: 2 }\n  }\n}\n",
    ),
    (
        "method on an enum value of another enum",
        "enum A {\n  X,\n}\n\nenum B {\n  Y,\n}\n\nimpl A {\n  fn name(self) -> String {\n    \"x\"\n  }\n}\n\nfn main2() {\n  println(B.Y.name())\n}\n",
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
    (
        "tuple field negative",
        "let t = (1, \"a\")\n  println(t.-1)",
    ),
    ("tuple field by name", "let t = (1, \"a\")\n  println(t.x)"),
    ("tuple destructured into no names", "let () = ()"),
    (
        "tuple destructured into one name twice",
        "let (a, a) = (1, 2)\n  println(a)",
    ),
    (
        "nested tuple destructured into one name twice",
        "var ((a, b), a) = ((1, 2), 3)\n  println(a + b)",
    ),
    (
        "for over a map with one name in parentheses",
        "let m = Map[String, Int]()\n  for (k) in m {\n    println(k)\n  }",
    ),
    (
        "for over a map with the same name twice",
        "let m = Map[String, Int]()\n  for (k, k) in m {\n    println(k)\n  }",
    ),
    (
        "for over a map without parentheses",
        "let m = Map[String, Int]()\n  for k, v in m {\n    println(k)\n  }",
    ),
    (
        "assigning a for-tuple name",
        "let m = Map[String, Int]()\n  for (k, v) in m.entries() {\n    v += 1\n  }",
    ),
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
        "tuple pattern binding one name twice",
        "match (1, 2) {\n    (a, a) => println(a),\n  }",
    ),
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
        "alternatives that bind different names",
        "match (1, 2) {\n    (a, 1) | (1, b) => println(1),\n    _ => println(0),\n  }",
    ),
    (
        "alternatives that bind a name at two types",
        "match (1, \"s\") {\n    (a, \"x\") | (2, a) => println(1),\n    _ => println(0),\n  }",
    ),
    (
        "alternative of another type",
        "match 3 {\n    1 | \"a\" => println(1),\n    _ => println(0),\n  }",
    ),
    (
        "alternative missing",
        "match 3 {\n    1 | => println(1),\n    _ => println(0),\n  }",
    ),
    (
        "alternatives inside a variant pattern, the second missing",
        "let o: Option[String] = None\n  match o {\n    Some(\"a\" | ) => println(1),\n    _ => println(0),\n  }",
    ),
    (
        "alternatives inside a tuple pattern not exhaustive",
        "match (true, 2) {\n    (true | false, 1) => println(1),\n    (false, _) => println(0),\n  }",
    ),
    (
        "two guards",
        "match 3 {\n    n if n > 1 if n < 5 => println(n),\n    _ => println(0),\n  }",
    ),
    (
        "string match without a catch-all",
        "match \"a\" {\n    \"a\" => println(1),\n  }",
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
    (
        "bare break then break value",
        "let x = loop {\n    break\n    break 1\n  }",
    ),
    (
        "break value of the wrong type for its annotation",
        "let x: Int = loop {\n    break \"s\"\n  }",
    ),
    (
        "break inside a closure inside a for",
        "for i in 0..3 {\n    let f = fn() { break }\n  }",
    ),
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
    (
        "const of a Float as a pattern",
        "const RATE: Float = 1.5\n\nfn main2() {\n  match 1.5 {\n    RATE => println(1),\n    _ => println(2),\n  }\n}\n",
    ),
    (
        "a Float literal as a pattern",
        "match 1.5 {\n    1.5 => println(1),\n    _ => println(2),\n  }",
    ),
    ("const of the wrong type", "const A: Int = \"s\"\n"),
    ("const without a value", "const A: Int\n"),
    ("const division by zero", "const A: Float = 1 / 0\n"),
    ("const shift too far", "const A: Int = 1 << 64\n"),
    (
        "const of a string times an Int",
        "const A: String = \"a\" * 2\n",
    ),
    ("const of a method call", "const A: Int = [1].length()\n"),
    (
        "const declared twice",
        "const A: Int = 1\nconst A: Int = 2\n",
    ),
    ("const of a tuple type", "const A: (Int, Int) = (1, 2)\n"),
    ("const of an Option type", "const A: Option[Int] = None\n"),
    (
        "const of an if",
        "const A: Int = if true { 1 } else { 2 }\n",
    ),
    // Format specs.
    ("format spec malformed", "let x = 1\n  println(\"{x:>>>}\")"),
    (
        "format type on a string",
        "let s = \"a\"\n  println(\"{s:x}\")",
    ),
    ("format binary on a float", "println(\"{1.5:b}\")"),
    ("format spec empty expression", "println(\"{:5}\")"),
    ("format spec unclosed", "let x = 1\n  println(\"{x:5\")"),
    (
        "format spec precision without digits",
        "let x = 1\n  println(\"{x:5.}\")",
    ),
    (
        "format spec unknown type",
        "let x = 1\n  println(\"{x:q}\")",
    ),
    (
        "format spec width too large",
        "let x = 1\n  println(\"{x:99999}\")",
    ),
    (
        "format spec precision too large",
        "let x = 1\n  println(\"{x:.99999}\")",
    ),
    ("format spec two signs", "let x = 1\n  println(\"{x:+-5}\")"),
    (
        "format spec alternate form",
        "let x = 1\n  println(\"{x:#x}\")",
    ),
    ("format spec twice", "let x = 1\n  println(\"{x:5:5}\")"),
    (
        "format spec with a space",
        "let x = 1\n  println(\"{x: 5}\")",
    ),
    (
        "format spec width from an argument",
        "let x = 1\n  println(\"{x:{5}}\")",
    ),
    ("format type x on a list", "println(\"{[1]:x}\")"),
    (
        "format type e on a Bool",
        "let b = true\n  println(\"{b:e}\")",
    ),
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
    ("to_char with an argument", "println(5.to_char(1))"),
    ("to_char on a Float", "println(5.5.to_char())"),
    ("chars with an argument", "println(\"a\".chars(1))"),
    ("bytes on an Int", "println(3.bytes())"),
    ("an unknown Int constant", "println(Int.NOPE)"),
    ("round on an Int", "println(3.round())"),
    ("is_nan with an argument", "println(3.0.is_nan(1))"),
    ("repeat of a String count", "let xs = [1].repeat(\"a\")"),
    ("copy with an argument", "let xs = [1].copy(1)"),
    ("sort of a list of tuples", "let xs = [(1, 2)]\n  xs.sort()"),
    ("enumerate with an argument", "let xs = [1].enumerate(2)"),
    ("enumerate on an Int", "let xs = 5.enumerate()"),
    (
        "find then an unknown method",
        "let xs = [1]\n  xs.find(fn(x) { x > 0 }).nope()",
    ),
    ("a method unknown on an Int", "let x = 5\n  x.nope()"),
    ("sort of a list of bools", "let xs = [true]\n  xs.sort()"),
    // Compound assignment and the missing operators.
    ("compound assignment on a let", "let x = 1\n  x <<= 2"),
    ("compound assignment of a string", "var x = 1\n  x /= \"2\""),
    ("increment", "var x = 1\n  x++"),
    ("compound shift of a Float", "var x = 1.5\n  x <<= 2"),
    (
        "compound subtraction of strings",
        "var s = \"a\"\n  s -= \"b\"",
    ),
    ("compound and of Bools", "var b = true\n  b &= false"),
    ("compound logical and", "let xs = [1]\n  xs[0] &&= 1"),
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
    // What the last round left giving two errors or a cascade.
    ("const named with two words", "const a b: Int = 1\n"),
    ("const with only a name", "const A\n"),
    (
        "compound assignment of an Int to a let String",
        "let k = \"a\"\n  k += 1",
    ),
    (
        "assignment of an Int to a let String",
        "let k = \"a\"\n  k = 1",
    ),
    (
        "interpolation unclosed at the end of its line, in a call",
        "let x = 1\n  println(\"{x\n  println(\"b\")",
    ),
    (
        "interpolation unclosed around a string literal",
        "println(\"{\"a\"\")",
    ),
    (
        "interpolation unclosed before an escaped quote",
        "let x = 1\n  println(\"{x \\\"a\\\"\")",
    ),
    (
        "interpolation unclosed in the first of two strings added",
        "let x = 1\n  println(\"{x\" + \"y\")",
    ),
    (
        "string unclosed in a call in a list",
        "let xs = [\"x\".contains(\"abc]\n  println(xs)",
    ),
    // Combinations of the new constructs, as programs put them together.
    (
        "a loop whose only break is None",
        "let x = loop {\n    break None\n  }",
    ),
    (
        "a loop that breaks None then an Int",
        "let x = loop {\n    if true {\n      break None\n    }\n    break 5\n  }",
    ),
    (
        "a function field called with a wrong type",
        "struct C {\n  f: fn(Int) -> Int,\n}\n\nfn main2() {\n  let c = C { f: fn(x) { x } }\n  c.f(\"a\")\n}\n",
    ),
    (
        "a function field called with too many arguments",
        "struct C {\n  f: fn(Int) -> Int,\n}\n\nfn main2() {\n  let c = C { f: fn(x) { x } }\n  c.f(1, 2)\n}\n",
    ),
    (
        "a method's tuple taken apart into too many names",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn pair(self) -> (Int, String) {\n    (self.x, \"a\")\n  }\n}\n\nfn main2() {\n  let p = P { x: 1 }\n  let (a, b, c) = p.pair()\n}\n",
    ),
    (
        "a method's tuple field out of range",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn pair(self) -> (Int, String) {\n    (self.x, \"a\")\n  }\n}\n\nfn main2() {\n  let p = P { x: 1 }\n  println(p.pair().2)\n}\n",
    ),
    (
        "a method's tuple used as an Int",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn pair(self) -> (Int, String) {\n    (self.x, \"a\")\n  }\n}\n\nfn main2() {\n  let p = P { x: 1 }\n  let n: Int = p.pair()\n}\n",
    ),
    (
        "for over a method's pairs with three names",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn pair(self) -> (Int, String) {\n    (self.x, \"a\")\n  }\n}\n\nfn main2() {\n  let p = P { x: 1 }\n  for (a, b, c) in [p.pair()] {\n    println(a)\n  }\n}\n",
    ),
    (
        "a format type on a String inside a closure",
        "let f = fn(s: String) -> String { \"{s:x}\" }",
    ),
    (
        "sort_by with a comparator giving an Int",
        "let xs = [3, 1]\n  xs.sort_by(fn(a, b) { a - b })",
    ),
    (
        "sort_by on pairs reading a third part",
        "let ps = [(1, \"a\")]\n  ps.sort_by(fn(a, b) { a.2 < b.0 })",
    ),
    (
        "a String constant as a range bound",
        "const N: String = \"a\"\n\nfn main2() {\n  for i in 0..N {\n    println(i)\n  }\n}\n",
    ),
    (
        "a Float constant as a range bound",
        "const F: Float = 1.5\n\nfn main2() {\n  for i in 0..F {\n    println(i)\n  }\n}\n",
    ),
    (
        "a String constant as a pattern on an Int",
        "const NAME: String = \"a\"\n\nfn main2() {\n  match 3 {\n    NAME => println(1),\n    _ => println(2),\n  }\n}\n",
    ),
    (
        "break value in a match arm inside a while",
        "while true {\n    match 1 {\n      _ => break 2,\n    }\n  }",
    ),
    (
        "a loop in a match arm breaking two types",
        "let v = match 1 {\n    1 => loop {\n      if true {\n        break 1\n      }\n      break \"s\"\n    },\n    _ => 0,\n  }",
    ),
    (
        "parse_int on read_line without unwrapping",
        "let n = read_line().parse_int()",
    ),
    (
        "read_line compared with a String",
        "if read_line() == \"q\" {\n    println(1)\n  }",
    ),
    (
        "equality of maps of different value types",
        "println(Map[String, Int]() == Map[String, String]())",
    ),
    (
        "equality of maps holding channels",
        "let m = Map[String, Channel[Int]]()\n  println(m == m)",
    ),
    (
        "equality of structs holding a function",
        "struct C {\n  f: fn(Int) -> Int,\n}\n\nfn main2() {\n  let c = C { f: fn(x) { x } }\n  println(c == c)\n}\n",
    ),
    (
        "a closure of the wrong type stored in a map of functions",
        "let m = Map[String, fn(Int) -> Int]()\n  m.set(\"a\", fn(x: String) { x })",
    ),
    (
        "calling a map's function without unwrapping",
        "let m = Map[String, fn(Int) -> Int]()\n  m.get(\"a\")(1)",
    ),
    ("a method called on a tuple", "let t = (1, 2)\n  t.first()"),
    (
        "for over a map's keys as pairs",
        "let m = Map[String, Int]()\n  for (k, v) in m.keys() {\n    println(k)\n  }",
    ),
    // What other languages write around loops and calls.
    (
        "a loop label and a break to it",
        "'outer: loop {\n    for i in 0..3 {\n      break 'outer\n    }\n  }",
    ),
    (
        "a break to a label never declared",
        "loop {\n    break 'done\n  }",
    ),
    ("a println macro", "let n = 1\n  println!(\"{n}\")"),
    ("a vec macro", "let xs = vec![1, 2]\n  println(xs)"),
    (
        "a format macro",
        "let n = 1\n  let s = format!(\"n={n}\")\n  println(s)",
    ),
    (
        "spawn of a closure",
        "let f = fn(x: Int) -> Int { x }\n  let t = spawn f(1)",
    ),
    (
        "spawn of a method that is not one",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn get(self) -> Int {\n    self.x\n  }\n}\n\nfn main2() {\n  let p = P { x: 1 }\n  let t = spawn p.nope()\n}\n",
    ),
    (
        "spawn of a method with a wrong argument",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn get(self, k: Int) -> Int {\n    self.x * k\n  }\n}\n\nfn main2() {\n  let p = P { x: 1 }\n  let t = spawn p.get(\"a\")\n}\n",
    ),
    (
        "a closure passed to a call without its closing brace",
        "let xs = [1]\n  let ys = xs.map(fn(x) { x * 2 )\n  println(ys)",
    ),
    (
        "a closure of several lines without its closing brace",
        "let xs = [1]\n  let ys = xs.map(fn(x) {\n    x * 2\n  )\n  println(ys)",
    ),
    (
        "a closure in a list literal without its closing brace",
        "let fs = [fn(x: Int) { x ]\n  println(fs.length())",
    ),
    (
        "a match value without its closing brace, then a call",
        "let s = match 3 {\n    1 => \"a\"\n    _ => \"b\"\n  println(s)",
    ),
    (
        "a match of assignments without its closing brace",
        "var total = 0\n  match 3 {\n    1 => total += 1\n    _ => total += 2\n  total += 5\n  println(total)",
    ),
    (
        "a match with commas without its closing brace, then a let",
        "let o: Option[Int] = None\n  match o {\n    Some(v) => println(v),\n    None => println(0),\n  let x = 1\n  println(x)",
    ),
    (
        "an impl inside a function",
        "struct P {\n  x: Int,\n}\n\nfn main2() {\n  impl P {\n    fn get(self) -> Int {\n      self.x\n    }\n  }\n}\n",
    ),
    (
        "a tuple assignment of the wrong size",
        "var a = 1\n  var b = 2\n  (a, b) = (1, 2, 3)\n  println(a + b)",
    ),
    (
        "a tuple assignment to a let",
        "var a = 1\n  let k = 2\n  (a, k) = (k, a)\n  println(a + k)",
    ),
    (
        "a tuple assignment of a non-tuple",
        "var a = 1\n  var b = 2\n  (a, b) = 5\n  println(a + b)",
    ),
    (
        "a compound tuple assignment",
        "var a = 1\n  var b = 2\n  (a, b) += (1, 1)\n  println(a + b)",
    ),
    // Typos a newcomer from Rust, JavaScript or Python makes (round 6).
    ("an arrow closure", "let f = fn (x) => x"),
    (
        "an arrow closure with a typed parameter",
        "let f = fn(x: Int) => x + 1\n  println(f(1))",
    ),
    (
        "an arrow closure passed to map",
        "let xs = [1, 2]\n  println(xs.map(fn(x) => x * 2))",
    ),
    ("bars after fn", "let f = fn |x| { x }\n  println(f(1))"),
    (
        "a closure with a result type but no arrow",
        "let f = fn(x: Int) Int { x }",
    ),
    (
        "a closure parameter with a default",
        "let f = fn(x: Int = 1) { x }",
    ),
    (
        "an impl of a trait for a struct",
        "struct Point {\n  x: Int,\n}\n\nimpl Display for Point {\n  fn show(self) -> String {\n    \"p\"\n  }\n}\n\nfn main2() {\n  let p = Point { x: 1 }\n  println(p.show())\n}\n",
    ),
    (
        "an impl with for and no trait",
        "struct Point {\n  x: Int,\n}\n\nimpl Point for {\n}\n",
    ),
    (
        "an impl with type parameters",
        "struct Point {\n  x: Int,\n}\n\nimpl[T] Point {\n  fn get(self) -> Int {\n    self.x\n  }\n}\n",
    ),
    (
        "a method with an ampersand self",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn get(&self) -> Int {\n    self.x\n  }\n}\n",
    ),
    (
        "pub instead of export in an impl",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  pub fn get(self) -> Int {\n    self.x\n  }\n}\n",
    ),
    (
        "a pair variable taken apart into three names",
        "let pair = (1, \"a\")\n  let (a, b, c) = pair\n  println(a)",
    ),
    (
        "a triple taken apart into two names",
        "let (a, b) = (1, 2, 3)\n  println(a + b)",
    ),
    (
        "break value in a for over a list",
        "for x in [1, 2] {\n    break x\n  }",
    ),
    (
        "break value in a while with a condition",
        "var i = 0\n  while i < 3 {\n    i += 1\n    break i\n  }",
    ),
    ("const with a colon but no type", "const N: = 5\n"),
    (
        "a top-level let with a type, then used",
        "// top level\nlet LIMIT: Int = 5\n\nfn main2() {\n  println(LIMIT + 1)\n}\n",
    ),
    (
        "a top-level let without a type, then used",
        "// top level\nlet LIMIT = 5\n\nfn main2() {\n  println(LIMIT)\n}\n",
    ),
    (
        "a top-level var",
        "// top level\nvar count: Int = 0\n\nfn main2() {\n  println(count)\n}\n",
    ),
    (
        "a method called on the type without its receiver",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn area(self, k: Int) -> Int {\n    self.x * k\n  }\n}\n\nfn main2() {\n  println(P.area(2))\n}\n",
    ),
    (
        "self in a plain function",
        "fn double(self) -> Int {\n  self * 2\n}\n",
    ),
    ("self in a closure outside an impl", "let f = fn() { self }"),
    ("a field of self outside an impl", "println(self.x)"),
    (
        "a tuple index 5 on a pair",
        "let t = (1, 2)\n  println(t.5)",
    ),
    (
        "a tuple index out of range on a method's result",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn pair(self) -> (Int, Int) {\n    (self.x, 1)\n  }\n}\n\nfn main2() {\n  let p = P { x: 1 }\n  println(p.pair().2)\n}\n",
    ),
    (
        "a tuple index out of range assigned",
        "var t = (1, 2)\n  t.2 = 3",
    ),
    (
        "a tuple index on a list",
        "let xs = [1, 2]\n  println(xs.0)",
    ),
    (
        "a nested tuple index out of range",
        "let t = ((1, 2), 3)\n  println(t.0.5)",
    ),
    (
        "a struct named Task",
        "struct Task {\n  name: String,\n}\n\nfn main2() {\n  let t = Task { name: \"a\" }\n  let ts: List[Task] = [t]\n  println(ts.length())\n}\n",
    ),
    (
        "an enum named Option",
        "enum Option {\n  A,\n}\n\nfn main2() {\n  let o: Option = Option.A\n}\n",
    ),
    (
        "a match arm with a colon",
        "match 3 {\n    1: println(1),\n    _ => println(0),\n  }",
    ),
    (
        "a match guard written with when",
        "match 3 {\n    n when n > 1 => println(n),\n    _ => println(0),\n  }",
    ),
    (
        "alternatives written with two bars",
        "match 3 {\n    1 || 2 => println(1),\n    _ => println(0),\n  }",
    ),
    (
        "a loop with a condition",
        "var i = 0\n  loop i < 3 {\n    i += 1\n  }\n  println(i)",
    ),
    (
        "a loop with true",
        "var i = 0\n  loop true {\n    i += 1\n  }",
    ),
    ("a power operator", "let x = 2 ** 10\n  println(x)"),
    ("a compound power", "var n = 2\n  n **= 3\n  println(n)"),
    (
        "a format spec with a thousands comma",
        "let n = 5\n  println(\"{n:,}\")",
    ),
    (
        "a format spec in printf style",
        "let n = 5\n  println(\"{n:%d}\")",
    ),
    (
        "sort_by with a key function",
        "var xs = [3, 1]\n  xs.sort_by(fn(x) { x })",
    ),
    (
        "sort_by_key with a comparator",
        "var xs = [3, 1]\n  xs.sort_by_key(fn(a, b) { a < b })",
    ),
    (
        "a compound assignment to a map index",
        "let m = Map[String, Int]()\n  m[\"a\"] += 1",
    ),
    (
        "read_line looped over with for",
        "for line in read_line() {\n    println(line)\n  }",
    ),
    (
        "a named function with untyped parameters",
        "fn add(a, b) -> Int {\n  a + b\n}\n",
    ),
    (
        "a function type with parameter names",
        "let f: fn(x: Int) -> Int = fn(x) { x }",
    ),
    (
        "a function type with a fat arrow",
        "let f: fn(Int) => Int = fn(x) { x }",
    ),
    (
        "spawn of a call then join on one line",
        "fn work(x: Int) -> Int {\n  x\n}\n\nfn main2() {\n  println(spawn work(3).join())\n}\n",
    ),
    (
        "an if of None then an Int",
        "let s = \"abc\"\n  let n = if s == \"\" { None } else { s.length() }",
    ),
    (
        "a match of None then a method's Int",
        "let s = \"abc\"\n  let n = match s {\n    \"\" => None,\n    w => w.length(),\n  }",
    ),
    (
        "an if of None then None",
        "let n = if true { None } else { None }",
    ),
    (
        "a closure returning None and an Int",
        "let f = fn(x: Int) {\n    if x > 0 {\n      return 5\n    }\n    None\n  }",
    ),
    (
        "a closure whose only return is None",
        "let f = fn(x: Int) {\n    return None\n  }",
    ),
    (
        "fold from an empty list literal",
        "let xs = [3, 1]\n  let pairs = xs.fold([], fn(acc, x) {\n    acc.push((x, x))\n    acc\n  })",
    ),
    // Found by the seventh round of newcomer programs.
    (
        "a closure calling itself through its own let",
        "let fact = fn(n: Int) -> Int {\n    if n <= 1 {\n      return 1\n    }\n    n * fact(n - 1)\n  }",
    ),
    (
        "a closure calling itself twice through its own var",
        "var fib = fn(n: Int) -> Int {\n    if n < 2 { n } else { fib(n - 1) + fib(n - 2) }\n  }",
    ),
    (
        "a closure assigning a captured for variable",
        "for i in 0..3 {\n    let f = fn() { i += 1 }\n    f()\n  }",
    ),
    (
        "a closure parameter with a default value",
        "let f = fn(x: Int = 3) { x }",
    ),
    (
        "an impl of a misspelt type, its method then called",
        "struct P {\n  x: Int,\n}\n\nimpl Pp {\n  fn area(self) -> Int {\n    self.x\n  }\n\n  fn new(x: Int) -> Pp {\n    Pp { x: x }\n  }\n}\n\nfn main2() {\n  let p = P { x: 1 }\n  println(p.area())\n  let q = Pp.new(2)\n}\n",
    ),
    (
        "a sibling method called without self",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn a(self) -> Int {\n    b() + 1\n  }\n\n  fn b(self) -> Int {\n    self.x\n  }\n}\n",
    ),
    (
        "a field named without self in a method",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn a(self) -> Int {\n    x + 1\n  }\n}\n",
    ),
    (
        "a method named without its call",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn get(self) -> Int {\n    self.x\n  }\n}\n\nfn main2() {\n  let p = P { x: 1 }\n  println(p.get)\n}\n",
    ),
    (
        "self with another type than the impl's",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn area(self: Int) -> Int {\n    self * 2\n  }\n}\n\nfn main2() {\n  let p = P { x: 1 }\n  println(p.area())\n}\n",
    ),
    (
        "self with the impl's own type",
        "struct P {\n  x: Int,\n}\n\nimpl P {\n  fn area(self: P) -> Int {\n    self.x\n  }\n}\n",
    ),
    (
        "a typed self in a plain function",
        "fn twice(self: Int) -> Int {\n  self * 2\n}\n",
    ),
    ("a one-element tuple", "let t = (1,)\n  println(t + 1)"),
    (
        "a one-element tuple type",
        "let t: (Int,) = 1\n  println(t)",
    ),
    (
        "a tuple indexed with brackets",
        "let t = (1, 2)\n  println(t[0])",
    ),
    (
        "a loop ending a function with a bare break",
        "// top level\nfn f() -> Int {\n  loop {\n    break\n  }\n}\n",
    ),
    (
        "continue with a value",
        "var i = 0\n  loop {\n    i += 1\n    if i > 3 {\n      break\n    }\n    continue i\n  }",
    ),
    (
        "a range pattern",
        "let n = 3\n  match n {\n    1..5 => println(1),\n    _ => println(0),\n  }",
    ),
    (
        "a comparison as a pattern",
        "let n = 3\n  match n {\n    n > 2 => println(1),\n    _ => println(0),\n  }",
    ),
    (
        "a Python float format",
        "let x = 2.5\n  println(\"{x:.2f}\")",
    ),
    (
        "a Python integer format",
        "let n = 5\n  println(\"{n:5d}\")",
    ),
    (
        "a format width from a variable",
        "let n = 5\n  let w = 3\n  println(\"{n:>{w}}\")",
    ),
    ("a percent format", "let x = 0.25\n  println(\"{x:.1%}\")"),
    (
        "an alternate hex format",
        "let n = 255\n  println(\"{n:#x}\")",
    ),
    (
        "a compound plus with its characters swapped",
        "var x = 1\n  x =+ 2\n  println(x)",
    ),
    (
        "a compound assignment on a tuple",
        "var t = (1, 2)\n  t += (1, 1)",
    ),
    (
        "a guard without its condition",
        "match Some(3) {\n    Some(x) if => println(x),\n    _ => println(0),\n  }",
    ),
    (
        "a second statement after a one-line if",
        "// top level\nfn sign(n: Int) -> Int {\n  if n < 0 { return -1 } return 1\n}\n",
    ),
    // Input.
    ("read_line with an argument", "println(read_line(1))"),
    ("read_line used as a String", "let s: String = read_line()"),
    ("read_stdin as an Int", "let n: Int = read_stdin()"),
    (
        "read_line unwrapped plus an Int",
        "let s = read_line().unwrap() + 1",
    ),
    ("read_stdin with an argument", "let s = read_stdin(1)"),
];

/// The cases that get two errors, and why that is not a cascade (or, with
/// a FIXME, that it is one still): every other case gets exactly one.
const TWO_ERRORS: &[(&str, &str)] = &[(
    "tuple type mismatch",
    "both parts are of the wrong type: two mistakes, each said at its part",
)];

/// The module a case stands for.
fn module_of(body: &str) -> String {
    let whole = [
        "fn ", "struct ", "enum ", "impl ", "const ", "import ", "trait ", "// ",
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
        let allowed = if TWO_ERRORS.iter().any(|(n, _)| n == name) {
            2
        } else {
            1
        };
        if errors.len() != allowed {
            problems.push(format!(
                "{name}: {} diagnostics, not {allowed}:\n{errors}",
                errors.len()
            ));
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
