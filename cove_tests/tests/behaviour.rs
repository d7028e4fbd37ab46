//! The emitted code computes the right answers: each program is compiled
//! and run on the VM (plainly, under GC stress, watched and profiled, which
//! must agree: `cove_tests::outcome`), and its output and result compared
//! with what the language says.

use cove_tests::output;

macro_rules! behaves {
    ($($test:ident: $source:expr => $expected:expr;)*) => {$(
        #[test]
        fn $test() {
            assert_eq!(output($source), $expected);
        }
    )*};
}

behaves! {
    a_loop_totals_the_lengths_of_the_texts_it_interpolates:
        "export fn main() -> Int {\n  var total = 0\n  var i = 0\n  while i < 200 {\n    let text = \"n={i}\"\n    total = total + text.length()\n    i = i + 1\n  }\n  total\n}\n"
        => "=> 890";
    recursion_computes_fibonacci:
        "fn fib(n: Int) -> Int {\n  if n < 2 { n } else { fib(n - 1) + fib(n - 2) }\n}\nfn main() -> Int {\n  fib(15)\n}\n"
        => "=> 610";
    integer_division_and_remainder_truncate_toward_zero:
        "fn main() {\n  println(\"{-7 / 2} {-7 % 2} {7 / -2} {7 % -2}\")\n}\n"
        => "-3 -1 -3 1\n=> ()";
    overflow_is_a_runtime_error:
        "fn main() -> Int {\n  let big = 9223372036854775807\n  big + 1\n}\n"
        => "error: integer overflow in addition";
    assignment_reading_its_own_target_keeps_the_old_value:
        "fn main() -> Int {\n  var x = 5\n  var y = 3\n  x = y + x\n  y = x * y - y\n  x = if x > 3 { x - 1 } else { x + 1 }\n  x * 100 + y\n}\n"
        => "=> 721";
    interpolation_assigned_to_a_variable_it_reads:
        "fn main() {\n  var s = \"b\"\n  let a = \"a\"\n  s = \"{a}{s}{a}\"\n  s = \"<{s}>\"\n  println(s)\n}\n"
        => "<aba>\n=> ()";
    short_circuit_skips_the_right_hand_side:
        "fn loud(x: Bool) -> Bool {\n  println(\"ran\")\n  x\n}\nfn main() {\n  let a = false && loud(true)\n  let b = true || loud(false)\n  let c = true && loud(false)\n  let d = !(false || loud(true))\n  println(\"{a} {b} {c} {d}\")\n}\n"
        => "ran\nran\nfalse true false false\n=> ()";
    conditions_with_literals_on_either_side_branch_correctly:
        "fn f(x: Int) -> Int {\n  var n = 0\n  if 3 < x { n += 1 }\n  if x <= 3 { n += 10 }\n  if 5 == x { n += 100 }\n  if x != 5 { n += 1000 }\n  if x >= -1 && !(x > 7) { n += 10000 }\n  n\n}\nfn main() {\n  println(\"{f(2)} {f(5)} {f(9)}\")\n}\n"
        => "11010 10101 1001\n=> ()";
    loops_break_and_continue:
        "fn main() -> Int {\n  var s = 0\n  for i in 0..20 {\n    if i % 3 == 0 { continue }\n    if i > 10 { break }\n    s += i\n  }\n  var j = 0\n  while true {\n    j += 1\n    if j == 7 { break }\n  }\n  s * 100 + j\n}\n"
        => "=> 3707";
    a_for_range_reads_its_end_once:
        "fn main() -> Int {\n  var n = 3\n  var rounds = 0\n  for i in 0..n {\n    n += 1\n    rounds += 1\n  }\n  rounds * 10 + n\n}\n"
        => "=> 36";
    a_for_over_a_list_variable_reassigned_in_the_body_keeps_the_old_list:
        "fn main() -> Int {\n  var xs = [1, 2, 3]\n  var s = 0\n  for x in xs {\n    xs = [100]\n    s += x\n  }\n  s + xs[0]\n}\n"
        => "=> 106";
    nested_loops_keep_their_counters_apart:
        "fn main() -> Int {\n  var s = 0\n  for i in 0..4 {\n    for j in i..4 {\n      s += i * 10 + j\n    }\n  }\n  s\n}\n"
        => "=> 120";
    calls_pass_mixed_arguments_in_order:
        "fn f(a: Int, s: String, b: Float, t: Bool, u: String) -> String {\n  \"{a}{s}{b}{t}{u}\"\n}\nfn main() {\n  let x = \"x\"\n  println(f(1 + 1, x, 2.5, 3 > 2, \"{x}{x}\"))\n  println(f(f(1, \"a\", 0.5, false, \"b\").length(), f(2, \"c\", 1.0, true, \"d\"), 0.0, true, x))\n}\n"
        => "2x2.5truexx\n112c1trued0truex\n=> ()";
    structs_are_shared_references:
        "struct P {\n  x: Int,\n  y: Int,\n}\nfn bump(p: P) {\n  p.x += 1\n}\nfn main() -> Int {\n  let p = P { y: 2, x: 1 }\n  let q = p\n  bump(q)\n  p.y *= 10\n  p.x * 100 + q.y\n}\n"
        => "=> 220";
    struct_and_enum_text_forms:
        "struct P {\n  x: Int,\n  name: String,\n}\nenum T {\n  W(String),\n  N(Int, Bool),\n  E,\n}\nfn main() {\n  let p = P { x: 1, name: \"a\" }\n  println(p)\n  println(\"{T.W(\"w\")} {T.N(3, true)} {T.E} {[Some(1)]}\")\n}\n"
        => "P { x: 1, name: \"a\" }\nT.W(\"w\") T.N(3, true) T.E [Some(1)]\n=> ()";
    matches_pick_the_first_matching_arm_and_bind_payloads:
        "enum T {\n  W(String),\n  N(Int),\n  P(Int, Int),\n  E,\n}\nfn score(t: T) -> Int {\n  match t {\n    T.W(w) => w.length(),\n    T.N(0) => -1,\n    T.N(n) => n,\n    T.P(a, b) => a * 10 + b,\n    T.E => 0,\n  }\n}\nfn main() {\n  println(\"{score(T.W(\"abc\"))} {score(T.N(0))} {score(T.N(7))} {score(T.P(4, 2))} {score(T.E)}\")\n}\n"
        => "3 -1 7 42 0\n=> ()";
    nested_option_patterns_match_inner_variants:
        "enum T {\n  W(String),\n  E,\n}\nfn f(o: Option[T]) -> String {\n  match o {\n    Some(T.W(w)) => w\n    Some(T.E) => \"end\"\n    None => \"none\"\n  }\n}\nfn main() {\n  println(f(Some(T.W(\"x\"))) + f(Some(T.E)) + f(None))\n}\n"
        => "xendnone\n=> ()";
    literal_matches_on_ints_strings_and_bools:
        "fn f(n: Int, s: String, b: Bool) -> String {\n  let a = match n {\n    0 => \"zero\"\n    -1 => \"minus\"\n    3000000000 => \"big\"\n    _ => \"other\"\n  }\n  let c = match s {\n    \"hi\" => \"greeting\"\n    other => other\n  }\n  let d = match b {\n    true => \"T\"\n    false => \"F\"\n  }\n  \"{a} {c} {d}\"\n}\nfn main() {\n  println(f(0, \"hi\", true))\n  println(f(-1, \"yo\", false))\n  println(f(3000000000, \"\", true))\n  println(f(5, \"x\", false))\n}\n"
        => "zero greeting T\nminus yo F\nbig  T\nother x F\n=> ()";
    match_arms_may_assign:
        "fn main() -> Int {\n  var total = 0\n  var done = false\n  let xs = [Some(1), Some(2), None, Some(100)]\n  for x in xs {\n    if done { break }\n    match x {\n      Some(v) => total += v,\n      None => done = true,\n    }\n  }\n  total\n}\n"
        => "=> 3";
    a_block_value_outlives_its_scope:
        "fn main() -> Int {\n  let a = {\n    let t = 20\n    t\n  }\n  let b = {\n    let u = [a, a]\n    u\n  }\n  let c = 1\n  let d = 2\n  a + b[1] + c + d\n}\n"
        => "=> 43";
    shadowing_makes_a_new_variable:
        "fn main() -> Int {\n  let x = 1\n  let y = x\n  let x = x + 10\n  let x = \"s{x}\"\n  x.length() * 100 + y\n}\n"
        => "=> 301";
    list_elements_and_compound_assignment_through_index:
        "fn main() {\n  let xs = [1, 2, 3]\n  xs[0] = 10\n  xs[1] += 5\n  xs[2] *= xs[0]\n  xs.push(xs.length())\n  println(xs)\n}\n"
        => "[10, 7, 30, 3]\n=> ()";
    maps_and_options_through_methods:
        "fn main() {\n  let m = Map[String, Int]()\n  m.set(\"a\", 1)\n  m.set(\"b\", 2)\n  m.set(\"a\", 3)\n  println(\"{m.get(\"a\")} {m.get(\"z\")} {m.keys()} {m.values()} {m.get(\"b\").unwrap_or(0)}\")\n  let o: Option[Int] = None\n  println(\"{o.is_none()} {o.unwrap_or(9)}\")\n}\n"
        => "Some(3) None [\"a\", \"b\"] [3, 2] 2\ntrue 9\n=> ()";
    string_methods_chain:
        "fn main() {\n  let s = \" a,b,c \".trim().split(\",\").join(\"-\").to_upper()\n  println(\"{s} {s.length()} {s.find(\"B\")} {\"x\".repeat(3)} {\"42\".parse_int() * 2}\")\n}\n"
        => "A-B-C 5 Some(2) xxx 84\n=> ()";
    floats_compare_and_convert:
        "fn main() {\n  let a = 1.5\n  let b = 2.0\n  if a < b && a != b {\n    println(\"{a * b} {b / a > 1.0} {7.to_float() / 2.0} {(7.9).to_int()} {b.sqrt() * b.sqrt()}\")\n  }\n}\n"
        => "3 true 3.5 7 2.0000000000000004\n=> ()";
    early_return_from_inside_loops_and_matches:
        "fn find(xs: List[Int], want: Int) -> Int {\n  for i in 0..xs.length() {\n    match xs[i] == want {\n      true => return i,\n      false => {}\n    }\n  }\n  -1\n}\nfn main() {\n  println(\"{find([5, 6, 7], 7)} {find([5], 1)}\")\n}\n"
        => "2 -1\n=> ()";
    spawn_and_channels_deliver_values:
        "fn work(n: Int) -> Int {\n  n * 2\n}\nfn produce(ch: Channel[Int]) {\n  ch.send(1)\n  ch.send(2)\n  ch.close()\n}\nfn main() -> Int {\n  let ch = Channel[Int]()\n  let p = spawn produce(ch)\n  let t = spawn work(21)\n  var s = 0\n  var done = false\n  while !done {\n    match ch.recv() {\n      Some(v) => s += v,\n      None => done = true,\n    }\n  }\n  p.join()\n  s + t.join()\n}\n"
        => "=> 45";
    unit_values_print_as_unit:
        "fn nothing() {}\nfn main() {\n  let u = nothing()\n  println(u)\n  println(\"{()}\")\n}\n"
        => "()\n()\n=> ()";
    bitwise_operators_bind_tighter_than_comparisons:
        "fn main() {\n  let x = 6\n  println(\"{x & 1 == 0} {x | 1} {x ^ 3} {1 << 4} {-16 >> 2}\")\n}\n"
        => "true 7 5 16 -4\n=> ()";
    many_live_values_across_calls_keep_their_registers:
        "fn id(x: Int) -> Int {\n  x\n}\nfn main() -> Int {\n  let a = id(1)\n  let b = id(2) + id(3) * id(4)\n  let c = [id(5), id(6) + a, b]\n  let d = id(c[0]) + id(c[1]) + id(c[2])\n  a * 1000 + b * 10 + d\n}\n"
        => "=> 1166";
}

#[test]
fn every_snapshot_program_runs_to_completion() {
    // The compiler's snapshot programs, whose IR `cove_compiler`'s
    // `ir_snapshots` shows: here they run.
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cove_compiler/tests/programs");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for path in paths {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let out = output(&std::fs::read_to_string(&path).unwrap());
        insta::assert_snapshot!(format!("run_{name}"), out);
    }
}

/// A random program of `var` assignments over Int expressions (arithmetic,
/// comparisons in `if`, `match`, calls, blocks) and the value a direct
/// evaluation in Rust gives it: the compiled code must agree.
mod differential {
    use super::output;

    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    const VARS: [&str; 3] = ["a", "b", "c"];

    /// An expression and its value given the variables.
    fn expr(rng: &mut Rng, vars: &[i64; 3], depth: u32) -> (String, i64) {
        let leaf = depth == 0 || rng.below(4) == 0;
        if leaf {
            return if rng.below(2) == 0 {
                let v = rng.below(7) as i64 - 3;
                (format!("({v})"), v)
            } else {
                let i = rng.below(3) as usize;
                (VARS[i].to_string(), vars[i])
            };
        }
        match rng.below(7) {
            0..=2 => {
                let (l, lv) = expr(rng, vars, depth - 1);
                let (r, rv) = expr(rng, vars, depth - 1);
                match rng.below(3) {
                    0 => (format!("({l} + {r})"), lv + rv),
                    1 => (format!("({l} - {r})"), lv - rv),
                    _ => (format!("({l} * {r})"), lv * rv),
                }
            }
            3 => {
                let (l, lv) = expr(rng, vars, depth - 1);
                let (r, rv) = expr(rng, vars, depth - 1);
                let (t, tv) = expr(rng, vars, depth - 1);
                let (e, ev) = expr(rng, vars, depth - 1);
                let (op, holds) = match rng.below(4) {
                    0 => ("<", lv < rv),
                    1 => ("==", lv == rv),
                    2 => (">=", lv >= rv),
                    _ => ("!=", lv != rv),
                };
                (
                    format!("if {l} {op} {r} {{ {t} }} else {{ {e} }}"),
                    if holds { tv } else { ev },
                )
            }
            4 => {
                let (s, sv) = expr(rng, vars, depth - 1);
                let (x, xv) = expr(rng, vars, depth - 1);
                let (y, yv) = expr(rng, vars, depth - 1);
                (
                    format!("match {s} {{\n 0 => {x}\n 1 => {y}\n n => n\n}}"),
                    match sv {
                        0 => xv,
                        1 => yv,
                        n => n,
                    },
                )
            }
            5 => {
                let (x, xv) = expr(rng, vars, depth - 1);
                let (y, yv) = expr(rng, vars, depth - 1);
                (format!("mix({x}, {y})"), xv - 2 * yv)
            }
            _ => {
                let (x, xv) = expr(rng, vars, depth - 1);
                let (y, yv) = expr(rng, vars, depth - 1);
                (format!("{{\n let t = {x}\n t + {y}\n}}"), xv + yv)
            }
        }
    }

    #[test]
    fn random_assignments_compute_what_direct_evaluation_does() {
        let mut rng = Rng(0x1234_5678_9ABC_DEF1);
        for case in 0..300 {
            let mut vars = [1i64, 2, 3];
            let mut body = String::from("  var a = 1\n  var b = 2\n  var c = 3\n");
            for _ in 0..6 {
                let target = rng.below(3) as usize;
                let (e, v) = expr(&mut rng, &vars, 3);
                if v.abs() > 1_000_000 {
                    continue;
                }
                body.push_str(&format!("  {} = {e}\n", VARS[target]));
                vars[target] = v;
            }
            let source = format!(
                "fn mix(x: Int, y: Int) -> Int {{\n  x - 2 * y\n}}\n\nfn main() -> Int {{\n{body}  println(\"{{a}} {{b}}\")\n  c\n}}\n"
            );
            let expected = format!("{} {}\n=> {}", vars[0], vars[1], vars[2]);
            assert_eq!(output(&source), expected, "case {case}:\n{source}");
        }
    }
}

behaves! {
    integer_literals_become_floats_where_a_float_is_expected:
        "fn half(x: Float) -> Float {\n  x / 2\n}\nfn main() {\n  let x: Float = 3\n  let y = 2 * x + 1\n  var z = 0.5\n  for i in 0..2 {\n    z = z * 2 + 1\n  }\n  println(\"{x} {y} {half(5)} {1 + 2.5} {z} {-1 * x} {x > 2}\")\n}\n"
        => "3 7 2.5 3.5 5 -3 true\n=> ()";
}

behaves! {
    exit_fits_where_a_value_is_expected:
        "fn pick(o: Option[Int]) -> Int {\n  match o {\n    Some(v) => v,\n    None => exit(3),\n  }\n}\nfn main() -> Int {\n  println(pick(Some(4)))\n  pick(None)\n}\n"
        => "4\nerror: exit(3)";
    block_comments_nest_and_end_lines:
        "/* a comment\n   /* nested */ still a comment */\nfn main() -> Int {\n  let x = 1 /* inline */ + 2\n  let y = 3 /* a newline\n */\n  x + y\n}\n"
        => "=> 6";
}

behaves! {
    an_if_or_match_starting_with_none_takes_its_type_from_a_later_branch:
        "fn half(n: Int) -> Option[Int] {\n  let r = if n % 2 == 1 { None } else { Some(n / 2) }\n  r\n}\nfn main() {\n  let m = match 3 {\n    0 => None\n    _ => Some(3)\n  }\n  let xs = if true { [] } else { [1] }\n  let os = [None, Some(2)]\n  println(\"{half(3)} {half(4)} {m} {xs} {os}\")\n}\n"
        => "None Some(2) Some(3) [] [None, Some(2)]\n=> ()";
}

behaves! {
    braces_may_open_on_the_next_line:
        "struct P\n{\n  x: Int,\n}\n\nenum E\n{\n  A,\n}\n\nfn main() -> Int\n{\n  let p = P { x: 2 }\n  var n = 0\n  while n < 3\n  {\n    n += 1\n  }\n  for i in 0..2\n  {\n    n += i\n  }\n  if n > 100\n  {\n    n = 0\n  }\n  else\n  {\n    n += p.x\n  }\n  match E.A\n  {\n    E.A => n\n  }\n}\n"
        => "=> 6";
}

behaves! {
    a_compound_assignment_evaluates_its_object_once:
        "struct C {\n  n: Int,\n}\nfn pick(cs: List[C], i: Int) -> C {\n  println(\"pick {i}\")\n  cs[i]\n}\nfn main() -> Int {\n  let cs = [C { n: 1 }, C { n: 10 }]\n  pick(cs, 1).n += 5\n  cs[0].n *= 7\n  cs[0].n + cs[1].n\n}\n"
        => "pick 1\n=> 22";
}

behaves! {
    a_byte_order_mark_and_crlf_line_ends_are_accepted:
        "\u{feff}fn main() -> Int {\r\n  let x = 2\r\n  x * 21\r\n}\r\n"
        => "=> 42";
}

// The compiler folds no arithmetic: an operation on literals runs at run
// time, so it fails exactly as the runtime's would (Rust's checked
// semantics), never as a silently wrapped constant.
behaves! {
    the_remainder_of_int_min_by_minus_one_is_an_overflow_not_a_folded_zero:
        "fn main() {\n  println((-9223372036854775807 - 1) % -1)\n}\n"
        => "error: integer overflow in remainder";
    the_quotient_of_int_min_by_minus_one_is_an_overflow:
        "fn main() {\n  let min = -9223372036854775808\n  println(min / -1)\n}\n"
        => "error: integer overflow in division";
    a_literal_divided_by_a_literal_zero_is_a_division_by_zero:
        "fn main() {\n  println(7 % 0)\n}\n"
        => "error: division by zero";
    negating_int_min_at_run_time_is_an_overflow_though_the_literal_itself_is_fine:
        "fn main() {\n  let min = -9223372036854775808\n  println(min)\n  println(-min)\n}\n"
        => "-9223372036854775808\nerror: integer overflow in negation";
    literal_arithmetic_that_fits_is_exact:
        "fn main() {\n  println(\"{-9223372036854775808 % 7} {9223372036854775807 / -1} {-(-5)} {3 * -4}\")\n}\n"
        => "-1 -9223372036854775807 5 -12\n=> ()";
}

behaves! {
    a_none_takes_its_type_from_a_later_branch_of_an_else_if_chain_or_match:
        "fn main() {\n  let b = if false { None } else if false { None } else { Some(\"x\") }\n  let c = match 3 {\n    0 => None,\n    1 => None,\n    _ => Some(2.5),\n  }\n  let e = [None, Some([None, Some(1)])]\n  let f = [None, None, Some(true)]\n  println(\"{b} {c} {e} {f}\")\n}\n"
        => "Some(\"x\") Some(2.5) [None, Some([None, Some(1)])] [None, None, Some(true)]\n=> ()";
}

behaves! {
    a_struct_literal_may_put_each_field_on_its_own_line:
        "struct Q {\n  a: Int\n  b: String\n}\nfn main() {\n  let q = Q {\n    a: 3\n    b: \"bee\"\n  }\n  println(q)\n  let n = 1\n  println(n)\n}\n"
        => "Q { a: 3, b: \"bee\" }\n1\n=> ()";
    a_struct_literal_may_mix_commas_and_new_lines_and_shorthand_fields:
        "struct Q {\n  a: Int,\n  b: String,\n}\nfn main() {\n  let b = \"s\"\n  let q = Q {\n    b\n    a: 1,\n  }\n  let r = Q {\n    a: 2, b: \"t\"\n    , \n  }\n  let xs = [Q { a: 3\n    b: \"u\" }, Q {\n    a: 4\n    b\n  }]\n  println(\"{q} {r} {xs}\")\n}\n"
        => "Q { a: 1, b: \"s\" } Q { a: 2, b: \"t\" } [Q { a: 3, b: \"u\" }, Q { a: 4, b: \"s\" }]\n=> ()";
    a_struct_literal_on_separate_lines_nests_inside_another:
        "struct In {\n  v: Int\n}\nstruct Out {\n  i: In\n  w: Int\n}\nfn main() -> Int {\n  let o = Out {\n    i: In {\n      v: 40\n    }\n    w: 2\n  }\n  o.i.v + o.w\n}\n"
        => "=> 42";
    every_comma_separated_list_takes_a_trailing_comma:
        "struct P {\n  x: Int,\n}\nenum E {\n  A(Int, Bool,),\n  B\n}\nfn f(a: Int, b: Int,) -> Int {\n  a * 10 + b\n}\nfn main() {\n  let p = P { x: f(1, 2,), }\n  let e = E.A(p.x, true,)\n  let m: Map[String, Int,] = Map[String, Int,]()\n  m.set(\"k\", 3,)\n  let s = match e {\n    E.A(n, true,) => n,\n    _ => 0,\n  }\n  println(\"{s} {[1, 2,]} {m}\")\n}\n"
        => "12 [1, 2] {\"k\": 3}\n=> ()";
}

behaves! {
    a_constant_pinned_for_a_loop_after_a_call_survives_the_callees_frame:
        "fn twice(n: Int) -> Int {\n  let m = n + 0\n  m * 2\n}\nfn main() -> Int {\n  var s = twice(1)\n  for i in 0..5 {\n    s = s + twice(i) * 7 + 3\n  }\n  s\n}\n"
        => "=> 157";
    values_held_across_calls_in_one_expression_survive_them:
        "fn one() -> Int {\n  1\n}\nfn add(a: Int, b: Int) -> Int {\n  a + b\n}\nfn main() {\n  let a = 10\n  let s = \"s\"\n  let x = a + one() * add(a, one()) + add(one(), add(a, a))\n  println(\"{s}{x}{one()}{s}{add(x, a)}\")\n}\n"
        => "s421s52\n=> ()";
}

// A shift count outside 0..=63 is a runtime error (the specification of
// `shl.int` and `shr.int` in `cove_ir::op`), never a count masked to its
// low six bits: the compiler's tests once ran on an interpreter of their
// own that masked it (`1 << 64` gave 1), which is why this is pinned here.
behaves! {
    shifting_left_by_64_is_a_runtime_error_not_a_shift_by_0:
        "fn main() {\n  let n = 64\n  println(1 << n)\n}\n"
        => "error: shift by 64 is outside 0..=63";
    shifting_right_by_64_is_a_runtime_error_not_a_shift_by_0:
        "fn main() {\n  let n = 64\n  println(-8 >> n)\n}\n"
        => "error: shift by 64 is outside 0..=63";
    shifting_by_a_negative_count_is_a_runtime_error:
        "fn main() {\n  let n = -1\n  println(1 << n)\n}\n"
        => "error: shift by -1 is outside 0..=63";
    shifting_by_63_is_the_last_count_in_range:
        "fn main() {\n  let n = 63\n  println(\"{1 << n} {-8 >> n} {1 << 0}\")\n}\n"
        => "-9223372036854775808 -1 1\n=> ()";
}
