//! Thousands of generated, well-typed Cove programs, seeded so every run
//! tries the same ones: each is compiled, verified and run under fuel and a
//! heap bound, once as it is and once with a collection at every
//! allocation, and the two runs must agree on the output and the ending.
//! No run may panic or end in an internal error.
//!
//! The generator is small and structure-aware: integer and string
//! variables, arithmetic that may overflow or divide by zero, lists grown
//! in loops, a map, a helper function called in a loop, string
//! interpolation and `println`, `Option`s matched and walked, lists
//! scanned by a one-line `while`, closures called on variables, `var`
//! lists filled by pushes, `Int`-keyed maps walked while they lose keys
//! and text taken apart by `chars()` and put back or counted in a
//! `String`-keyed map read by `match`, and a tuple-returning helper's
//! result taken apart and kept whole (each such statement asserts its own
//! answer). Faults are welcome (both runs
//! must fault alike); hangs are not possible (fuel).

use cove_runtime::{ErrorKind, Limits, Vm};

mod support;
use support::Captured;

/// How many programs a `cargo test` tries; `COVE_GENERATED=n` tries the
/// first `n` seeds instead, for a longer run by hand.
const PROGRAMS: u64 = 2_000;

fn programs() -> u64 {
    std::env::var("COVE_GENERATED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(PROGRAMS)
}

/// A small, fast, seeded generator (SplitMix64): the same programs every
/// run, without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// An `Int` expression over the variables `ints`, `depth` deep at most.
fn int_expr(rng: &mut Rng, ints: &[String], depth: u32) -> String {
    if depth == 0 || rng.below(3) == 0 {
        return match rng.below(4) {
            0 => format!("{}", rng.below(200) as i64 - 100),
            1 => "xs.length()".to_string(),
            _ => ints[rng.below(ints.len() as u64) as usize].clone(),
        };
    }
    match rng.below(6) {
        0 => format!("helper({})", int_expr(rng, ints, depth - 1)),
        1 => format!("{}.abs()", paren(int_expr(rng, ints, depth - 1))),
        _ => format!(
            "({} {} {})",
            int_expr(rng, ints, depth - 1),
            rng.pick(&["+", "-", "*", "/", "%", "+", "-"]),
            int_expr(rng, ints, depth - 1)
        ),
    }
}

fn paren(e: String) -> String {
    format!("({e})")
}

/// One statement of `main`'s body.
fn statement(rng: &mut Rng, ints: &mut Vec<String>, depth: u32) -> String {
    let indent = "  ".repeat(depth as usize + 1);
    match rng.below(18) {
        0 | 1 => {
            let name = format!("v{}", ints.len());
            let e = int_expr(rng, ints, 3);
            ints.push(name.clone());
            format!("{indent}var {name} = {e}\n")
        }
        2 => {
            let target = ints[rng.below(ints.len() as u64) as usize].clone();
            format!("{indent}{target} = {}\n", int_expr(rng, ints, 3))
        }
        3 => format!("{indent}xs.push({})\n", int_expr(rng, ints, 2)),
        4 => format!(
            "{indent}s = s + \"{}\" + \"{{{}}}\"\n",
            rng.pick(&["a", "bc", "", "xyz"]),
            int_expr(rng, ints, 2)
        ),
        5 => format!(
            "{indent}m.set(\"k{}\", {})\n",
            rng.below(5),
            int_expr(rng, ints, 2)
        ),
        6 if depth < 2 => {
            let bound = rng.below(20);
            let mut body = String::new();
            let mut inner = ints.clone();
            inner.push(format!("i{depth}"));
            for _ in 0..1 + rng.below(3) {
                body.push_str(&statement(rng, &mut inner, depth + 1));
            }
            format!("{indent}for i{depth} in 0..{bound} {{\n{body}{indent}}}\n")
        }
        7 if depth < 2 => {
            let cond = format!(
                "{} {} {}",
                int_expr(rng, ints, 2),
                rng.pick(&["<", "<=", "==", "!=", ">"]),
                int_expr(rng, ints, 2)
            );
            let mut inner = ints.clone();
            let then = statement(rng, &mut inner, depth + 1);
            format!("{indent}if {cond} {{\n{then}{indent}}}\n")
        }
        8 => list_scan(rng, &indent),
        9 => option_match(rng, ints, &indent),
        10 => option_walk(rng, &indent),
        11 => closure_call(rng, ints, &indent),
        12 => var_pushes(rng, ints, &indent),
        13 => map_walk(rng, &indent),
        14 => chars_reversed(rng, ints, &indent),
        15 => chars_counted(rng, ints, &indent),
        16 => power_of_two_division(rng, ints, &indent),
        17 => tuple_parts(rng, ints, &indent),
        _ => format!(
            "{indent}println(\"{{{}}} {{s.length()}} {{xs.length()}} {{m.length()}}\")\n",
            int_expr(rng, ints, 2)
        ),
    }
}

/// The tuple helper `parts` (an early `return` of a tuple written out, a
/// tuple held in a variable, the tuple of another call) taken apart by a
/// `let` (its fields returned in registers, `call.unpack`) and kept whole
/// by another (`call`, the tuple made): the two must agree, and the parts
/// must be what `parts` says they are.
fn tuple_parts(rng: &mut Rng, ints: &[String], indent: &str) -> String {
    let k = rng.next();
    let e = int_expr(rng, ints, 2);
    format!(
        "{indent}let n{k:x} = {e}
         {indent}let (q{k:x}, t{k:x}) = parts(n{k:x})
         {indent}let w{k:x} = parts(n{k:x})
         {indent}assert(w{k:x}.0 == q{k:x} && w{k:x}.1 == t{k:x})
         {indent}assert(if n{k:x} < 0 {{ q{k:x} == n{k:x} && t{k:x} == \"-\" }} else {{ q{k:x} == n{k:x} / 7 && t{k:x} == \"{{n{k:x} % 7}}\" }})
"
    )
}

/// A `match` on an `Option` made from an `Int`, its arms in either order,
/// then an `assert` that it chose as the same test on the `Int` does: the
/// program checks its own answer, so a test or an `unwrap` the compiler
/// fused wrongly fails the run (alike with and without GC stress, so the
/// assertion, not the comparison, is what catches it).
fn option_match(rng: &mut Rng, ints: &[String], indent: &str) -> String {
    let k = rng.next();
    let e = int_expr(rng, ints, 2);
    let arms = [
        format!("None => p{k:x} = 0 - p{k:x}"),
        format!("Some(w{k:x}) => p{k:x} = w{k:x} * 2"),
    ];
    let (first, second) = if rng.below(2) == 0 {
        (&arms[0], &arms[1])
    } else {
        (&arms[1], &arms[0])
    };
    format!(
        "{indent}var p{k:x} = {e}\n\
         {indent}let q{k:x} = p{k:x}\n\
         {indent}let o{k:x}: Option[Int] = if q{k:x} % 3 == 0 {{ None }} else {{ Some(q{k:x} + 1) }}\n\
         {indent}match o{k:x} {{\n{indent}  {first}\n{indent}  {second}\n{indent}}}\n\
         {indent}assert(p{k:x} == (if q{k:x} % 3 == 0 {{ 0 - q{k:x} }} else {{ (q{k:x} + 1) * 2 }}))\n"
    )
}

/// A countdown kept in an `Option`, walked to `None` by a `loop` over a
/// `match` (arms in either order, leaving by `break`) or by `while
/// o.is_some()` with `o.unwrap()`: the shapes whose jumps the compiler
/// threads and whose tests it fuses. Each allocates a `Some` a turn.
fn option_walk(rng: &mut Rng, indent: &str) -> String {
    let k = rng.next();
    let n = rng.below(12);
    let step = format!("o{k:x} = if x{k:x} > 0 {{ Some(x{k:x} - 1) }} else {{ None }}");
    let walk = match rng.below(3) {
        0 => format!(
            "{indent}loop {{\n{indent}  match o{k:x} {{\n\
             {indent}    Some(x{k:x}) => {{\n{indent}      c{k:x} += 1\n{indent}      {step}\n{indent}    }}\n\
             {indent}    None => break\n{indent}  }}\n{indent}}}\n"
        ),
        1 => format!(
            "{indent}loop {{\n{indent}  match o{k:x} {{\n\
             {indent}    None => break\n\
             {indent}    Some(x{k:x}) => {{\n{indent}      c{k:x} += 1\n{indent}      {step}\n{indent}    }}\n\
             {indent}  }}\n{indent}}}\n"
        ),
        _ => format!(
            "{indent}while o{k:x}.is_some() {{\n{indent}  let x{k:x} = o{k:x}.unwrap()\n\
             {indent}  c{k:x} += 1\n{indent}  {step}\n{indent}}}\n"
        ),
    };
    format!(
        "{indent}var c{k:x} = 0\n{indent}var o{k:x}: Option[Int] = Some({n})\n{walk}\
         {indent}assert(c{k:x} == {})\n",
        n + 1
    )
}

/// A closure that captures a value, called on a variable (the shape the
/// compiler fuses into `move-call.closure`), its answer asserted against
/// the same arithmetic written out.
fn closure_call(rng: &mut Rng, ints: &[String], indent: &str) -> String {
    let k = rng.next();
    let captured = int_expr(rng, ints, 1);
    let arg = ints[rng.below(ints.len() as u64) as usize].clone();
    format!(
        "{indent}let c{k:x} = {captured}\n\
         {indent}let f{k:x} = fn(x: Int) -> Int {{ x * 2 + c{k:x} }}\n\
         {indent}let r{k:x} = f{k:x}({arg})\n\
         {indent}assert(r{k:x} == {arg} * 2 + c{k:x})\n"
    )
}

/// An `Int`-keyed map (keys dense or spread out, negative ones among
/// them) with its first keys removed, then walked by `for (k, v) in map`
/// while the body removes some of the keys it visits, then walked again by
/// a body that removes nothing (it sets each key to the value it has),
/// which reads each value without asking whether its key is still there:
/// each walk's count and sum are asserted. The map's direct index, its sweeps and the turns' position
/// hints (`map.has-at`, `map.value-at`) all take part.
fn map_walk(rng: &mut Rng, indent: &str) -> String {
    let k = rng.next();
    let n = rng.below(40);
    let removed = rng.below(n + 1);
    let stride = rng.pick(&["1", "2", "7", "1000003"]);
    let offset = rng.pick(&["0", "3", "20"]);
    let sum = |m: u64| m * m.saturating_sub(1) / 2;
    // The values the first walk leaves: it removes those divisible by 3.
    let kept: Vec<u64> = (removed..n).filter(|j| j % 3 != 0).collect();
    format!(
        "{indent}let mk{k:x} = Map[Int, Int]()\n\
         {indent}for j{k:x} in 0..{n} {{\n\
         {indent}  mk{k:x}.set(j{k:x} * {stride} - {offset}, j{k:x})\n\
         {indent}}}\n\
         {indent}for j{k:x} in 0..{removed} {{\n\
         {indent}  mk{k:x}.remove(j{k:x} * {stride} - {offset})\n\
         {indent}}}\n\
         {indent}var t{k:x} = 0\n\
         {indent}var c{k:x} = 0\n\
         {indent}for (key{k:x}, v{k:x}) in mk{k:x} {{\n\
         {indent}  t{k:x} += v{k:x}\n\
         {indent}  c{k:x} += 1\n\
         {indent}  if v{k:x} % 3 == 0 {{\n\
         {indent}    mk{k:x}.remove(key{k:x})\n\
         {indent}  }}\n\
         {indent}}}\n\
         {indent}assert(c{k:x} == {} && t{k:x} == {})\n\
         {indent}var u{k:x} = 0\n\
         {indent}var d{k:x} = 0\n\
         {indent}for (key{k:x}, v{k:x}) in mk{k:x} {{\n\
         {indent}  u{k:x} += v{k:x} * 2 - (key{k:x} + {offset}) / {stride}\n\
         {indent}  mk{k:x}.set(key{k:x}, v{k:x})\n\
         {indent}  d{k:x} += 1\n\
         {indent}}}\n\
         {indent}assert(d{k:x} == {} && u{k:x} == {})\n",
        n - removed,
        sum(n) - sum(removed),
        kept.len(),
        kept.iter().sum::<u64>()
    )
}

/// An `Int`, and its product with a large odd number, divided by powers of
/// two beyond 32 bits (`div.int.pow2`, `rem.int.pow2`, by shifts and a
/// mask): quotient and remainder must put the dividend together again,
/// the remainder must have the dividend's sign and be smaller than the
/// divisor, and both must equal the register form's.
fn power_of_two_division(rng: &mut Rng, ints: &[String], indent: &str) -> String {
    let k = rng.next();
    let e = int_expr(rng, ints, 2);
    let pairs = [
        ("2147483648", "4294967311"),
        ("4294967296", "2147483659"),
        ("4611686018427387904", "1000003"),
    ];
    let (divisor, multiplier) = pairs[rng.below(pairs.len() as u64) as usize];
    format!(
        "{indent}let n{k:x} = {e}\n\
         {indent}let d{k:x} = {divisor}\n\
         {indent}for x{k:x} in [n{k:x}, n{k:x} * {multiplier}, 0 - n{k:x} * {multiplier}] {{\n\
         {indent}  let q{k:x} = x{k:x} / {divisor}\n\
         {indent}  let r{k:x} = x{k:x} % {divisor}\n\
         {indent}  assert(q{k:x} * {divisor} + r{k:x} == x{k:x} && r{k:x}.abs() < {divisor})\n\
         {indent}  assert(r{k:x} == 0 || (r{k:x} < 0) == (x{k:x} < 0))\n\
         {indent}  assert(q{k:x} == x{k:x} / d{k:x} && r{k:x} == x{k:x} % d{k:x})\n\
         {indent}}}\n"
    )
}

/// The characters of an `Int`'s text counted in a `String`-keyed map by
/// `match counts.get(ch)` (lowered without its `Option`), then walked
/// twice, by `for (k, v)` and by `keys()` with a `match` again: the
/// counts must add up to the text's length both ways. The lookup the heap
/// remembers for the read after `contains`, and the strings a listing
/// keeps for its keys, take part.
fn chars_counted(rng: &mut Rng, ints: &[String], indent: &str) -> String {
    let k = rng.next();
    let e = int_expr(rng, ints, 2);
    format!(
        "{indent}let text{k:x} = \"<{{{e}}}>\"\n\
         {indent}let counts{k:x} = Map[String, Int]()\n\
         {indent}for ch{k:x} in text{k:x}.chars() {{\n\
         {indent}  match counts{k:x}.get(ch{k:x}) {{\n\
         {indent}    Some(c) => counts{k:x}.set(ch{k:x}, c + 1),\n\
         {indent}    None => counts{k:x}.set(ch{k:x}, 1),\n\
         {indent}  }}\n\
         {indent}}}\n\
         {indent}var total{k:x} = 0\n\
         {indent}for (key{k:x}, v{k:x}) in counts{k:x} {{\n\
         {indent}  total{k:x} += v{k:x} * key{k:x}.length()\n\
         {indent}}}\n\
         {indent}var again{k:x} = 0\n\
         {indent}for key{k:x} in counts{k:x}.keys() {{\n\
         {indent}  match counts{k:x}.get(key{k:x}) {{\n\
         {indent}    None => again{k:x} -= 1000,\n\
         {indent}    Some(v) => again{k:x} += v,\n\
         {indent}  }}\n\
         {indent}}}\n\
         {indent}assert(total{k:x} == text{k:x}.length() && again{k:x} == total{k:x})\n"
    )
}

/// The text of an `Int` taken apart by `chars()` and put together again
/// backwards, then by one-byte slices forwards again: the one-character
/// strings the heap shares must give back the same text.
fn chars_reversed(rng: &mut Rng, ints: &[String], indent: &str) -> String {
    let k = rng.next();
    let e = int_expr(rng, ints, 2);
    format!(
        "{indent}let text{k:x} = \"<{{{e}}}>\"\n\
         {indent}var back{k:x} = \"\"\n\
         {indent}for ch{k:x} in text{k:x}.chars() {{\n\
         {indent}  back{k:x} = ch{k:x} + back{k:x}\n\
         {indent}}}\n\
         {indent}var again{k:x} = \"\"\n\
         {indent}for i{k:x} in 0..back{k:x}.length() {{\n\
         {indent}  again{k:x} = back{k:x}.slice(i{k:x}, i{k:x} + 1) + again{k:x}\n\
         {indent}}}\n\
         {indent}assert(again{k:x} == text{k:x} && back{k:x}.length() == text{k:x}.length())\n"
    )
}

/// A `var` list filled by pushes whose argument assigns nothing (the
/// compiler's `push.list`), its length and last element asserted.
fn var_pushes(rng: &mut Rng, ints: &[String], indent: &str) -> String {
    let k = rng.next();
    let n = rng.below(6);
    let v = ints[rng.below(ints.len() as u64) as usize].clone();
    let last = if n > 0 {
        format!("{indent}assert(w{k:x}[{}] == {} * 3 + {v})\n", n - 1, n - 1)
    } else {
        String::new()
    };
    format!(
        "{indent}var w{k:x} = List[Int]()\n\
         {indent}for j{k:x} in 0..{n} {{\n{indent}  w{k:x}.push(j{k:x} * 3 + {v})\n{indent}}}\n\
         {indent}assert(w{k:x}.length() == {n})\n{last}"
    )
}

/// A list of small `Int`s scanned by a one-line `while` that steps its
/// index and reads the element at once (`while y[i] < 4 { i += 2 }`, the
/// shape the compiler fuses into `step.get.list`), up from the first
/// element or down from the last, by one or two. The index it stops at is
/// asserted as the generator found it; a scan with nothing to stop it
/// runs off the list, a fault, and is followed by an `assert(false)`, so a
/// run that went past it without one fails.
fn list_scan(rng: &mut Rng, indent: &str) -> String {
    let k = rng.next();
    let values: Vec<i64> = (0..1 + rng.below(8))
        .map(|_| rng.below(10) as i64)
        .collect();
    let limit = 1 + rng.below(10) as i64;
    let step = 1 + rng.below(2) as i64;
    let (start, step) = if rng.below(2) == 0 {
        (0, step)
    } else {
        (values.len() as i64 - 1, -step)
    };
    let mut i = start;
    while (0..values.len() as i64).contains(&i) && values[i as usize] < limit {
        i += step;
    }
    let stop = if (0..values.len() as i64).contains(&i) {
        format!("i{k:x} == {i}")
    } else {
        "false".to_string()
    };
    let list: Vec<String> = values.iter().map(i64::to_string).collect();
    let stepped = if step > 0 {
        format!("i{k:x} += {step}")
    } else {
        format!("i{k:x} -= {}", -step)
    };
    format!(
        "{indent}let y{k:x} = [{}]
{indent}var i{k:x} = {start}
         {indent}while y{k:x}[i{k:x}] < {limit} {{ {stepped} }}
         {indent}assert({stop})
",
        list.join(", ")
    )
}

/// The program of seed `seed`.
fn program(seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut ints = vec!["a".to_string(), "b".to_string()];
    let mut body = String::new();
    for _ in 0..3 + rng.below(10) {
        body.push_str(&statement(&mut rng, &mut ints, 0));
    }
    format!(
        "fn helper(n: Int) -> Int {{\n  if n > 1000 {{\n    return n % 1000\n  }}\n  n * 3 - 1\n}}\n\n\
         fn parts(n: Int) -> (Int, String) {{\n  if n < 0 {{\n    return (n, \"-\")\n  }}\n  \
         let t = (n / 7, \"{{n % 7}}\")\n  if n % 2 == 0 {{\n    return t\n  }}\n  again(n)\n}}\n\n\
         fn again(n: Int) -> (Int, String) {{ (n / 7, \"{{n % 7}}\") }}\n\n\
         fn main() -> Int {{\n  var a = {}\n  var b = {}\n  let xs = List[Int]()\n  var s = \"\"\n  \
         let m = Map[String, Int]()\n{body}  println(\"{{a}} {{b}} {{xs}} {{m.length()}}\")\n  (a + b) % 64\n}}\n",
        rng.below(100),
        rng.below(100) as i64 - 50
    )
}

/// Runs the program, plain or under GC stress, and gives its output and
/// how it ended (the error's text, backtrace included).
fn run(program: &cove_ir::program::Program, stress: bool) -> (String, Result<String, String>) {
    let out = Captured::default();
    let limits = Limits {
        fuel: Some(200_000),
        max_heap_words: Some(200_000),
        gc_stress: stress,
        ..Limits::default()
    };
    let mut vm = Vm::new(program)
        .with_limits(limits)
        .with_output(Box::new(out.clone()));
    let ended = vm.run_entry("m", "main", vec![]);
    if let Err(error) = &ended {
        assert_ne!(error.kind, ErrorKind::Internal, "{error}");
        assert_ne!(error.kind, ErrorKind::Invalid, "{error}");
        // Every `assert` the generator writes holds: one that fails is a
        // wrong answer of the compiler or the VM, not the program's.
        assert_ne!(error.kind, ErrorKind::AssertionFailed, "{error}");
    }
    (
        out.text(),
        ended.map(|v| v.to_string()).map_err(|e| e.to_string()),
    )
}

#[test]
fn two_thousand_generated_programs_run_alike_with_and_without_gc_stress() {
    let programs = programs();
    let mut compiled = 0;
    let mut faulted = 0;
    for seed in 0..programs {
        let source = program(seed);
        let Ok(program) = cove_compiler::compile_module("m", &source) else {
            // The generator may make a program the checker rejects (an
            // unused result, say); that is not what this test is about.
            continue;
        };
        compiled += 1;
        let plain = run(&program, false);
        let stressed = run(&program, true);
        assert_eq!(plain, stressed, "seed {seed}:\n{source}");
        faulted += u32::from(plain.1.is_err());
    }
    println!("{compiled} of {programs} compiled, {faulted} faulted");
    // Most programs must compile, or the generator tests nothing; some
    // fault, or it never reaches the error paths.
    assert!(
        compiled > programs * 9 / 10,
        "{compiled} of {programs} compiled"
    );
    assert!(faulted > 0);
}
