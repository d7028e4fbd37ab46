//! The locals a compiled function names for a debugger: the program's
//! variables, and none of the hidden ones the compiler's own rewrites
//! declare (the map and key of a `for` over a map, the parts of a tuple
//! assignment), which `info locals` would otherwise show beside them.

#[test]
fn a_for_over_a_map_and_a_tuple_swap_name_only_the_programs_variables() {
    let source = "fn main() {\n  let m = Map[String, Int]()\n  m.set(\"a\", 1)\n  var total = 0\n  for (k, v) in m {\n    total += v + k.length()\n  }\n  var a = 1\n  var b = 2\n  (a, b) = (b, a)\n  println(\"{total} {a} {b}\")\n}\n";
    let program = cove_compiler::compile_module("m", source).expect("it compiles");
    let main = program.function(program.find_function("m", "main").expect("a main"));
    let mut names: Vec<&str> = main.locals.iter().map(|l| l.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names, ["a", "b", "k", "m", "total", "v"]);
}
