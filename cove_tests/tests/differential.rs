//! Random typed programs, compiled and run on the VM (every way
//! `cove_tests::outcome` runs them), against the same programs evaluated
//! directly in Rust.
//!
//! The programs mix the two register classes on purpose — Ints and Bools
//! (num) with Strings, lists, options and structs (ref) — in every place a
//! value can be produced into: call windows of mixed classes, list and
//! struct literals, `if` and `match` results, interpolations, assignments
//! to variables they read. A register given the wrong class or reused too
//! early shows up as a wrong answer or a failed run.

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[derive(Clone, Debug, PartialEq)]
enum V {
    I(i64),
    B(bool),
    S(String),
}

#[derive(Clone, Copy, PartialEq)]
enum T {
    Int,
    Bool,
    Str,
}

const VARS: [(&str, T); 6] = [
    ("a", T::Int),
    ("b", T::Int),
    ("p", T::Bool),
    ("q", T::Bool),
    ("s", T::Str),
    ("t", T::Str),
];

fn text(v: &V) -> String {
    match v {
        V::I(i) => i.to_string(),
        V::B(b) => b.to_string(),
        V::S(s) => s.clone(),
    }
}

/// An expression of type `ty`, as Cove source, and its value.
fn expr(rng: &mut Rng, env: &[V; 6], ty: T, depth: u32) -> (String, V) {
    let pick_var = |rng: &mut Rng| {
        let candidates: Vec<usize> = (0..6).filter(|&i| VARS[i].1 == ty).collect();
        candidates[rng.below(candidates.len() as u64) as usize]
    };
    if depth == 0 || rng.below(5) == 0 {
        return match (ty, rng.below(2)) {
            (T::Int, 0) => {
                let v = rng.below(9) as i64 - 4;
                (format!("({v})"), V::I(v))
            }
            (T::Bool, 0) => {
                let v = rng.below(2) == 0;
                (v.to_string(), V::B(v))
            }
            (T::Str, 0) => {
                let v = ["x", "yz", "", "hello"][rng.below(4) as usize].to_string();
                (format!("\"{v}\""), V::S(v))
            }
            _ => {
                let i = pick_var(rng);
                (VARS[i].0.to_string(), env[i].clone())
            }
        };
    }
    let d = depth - 1;
    match (ty, rng.below(6)) {
        (T::Int, 0) => {
            let (x, xv) = expr(rng, env, T::Int, d);
            let (y, yv) = expr(rng, env, T::Int, d);
            let (V::I(xv), V::I(yv)) = (xv, yv) else {
                unreachable!()
            };
            // A division or remainder is by a literal, never 0: most
            // compile to the unchecked immediate forms, -1 to the checked
            // register ones.
            let k = [-7, -3, -2, -1, 1, 2, 3, 5, 7, 1000][rng.below(10) as usize];
            match rng.below(5) {
                0 => (format!("({x} + {y})"), V::I(xv + yv)),
                1 => (format!("({x} - {y})"), V::I(xv - yv)),
                2 => (format!("({x} * {y})"), V::I(xv * yv)),
                3 => (format!("({x} / {k})"), V::I(xv / k)),
                _ => (format!("({x} % {k})"), V::I(xv % k)),
            }
        }
        (T::Int, 1) => {
            let (s, sv) = expr(rng, env, T::Str, d);
            (format!("{s}.length()"), V::I(text(&sv).len() as i64))
        }
        (T::Int, 2) => {
            let items: Vec<(String, V)> = (0..3).map(|_| expr(rng, env, T::Int, d)).collect();
            let k = rng.below(3) as usize;
            let src: Vec<String> = items.iter().map(|(s, _)| s.clone()).collect();
            (format!("[{}][{k}]", src.join(", ")), items[k].1.clone())
        }
        (T::Int, 3) => {
            let (x, xv) = expr(rng, env, T::Int, d);
            let (y, yv) = expr(rng, env, T::Int, d);
            if rng.below(2) == 0 {
                (format!("Some({x}).unwrap_or({y})"), xv)
            } else {
                let none = "None";
                (format!("mk({x}, {none}).unwrap_or({y})"), yv)
            }
        }
        (T::Int, 4) => {
            let (x, xv) = expr(rng, env, T::Int, d);
            let (s, sv) = expr(rng, env, T::Str, d);
            (format!("(R {{ s: {s}, n: {x} }}).n"), {
                let _ = sv;
                xv
            })
        }
        (T::Str, 0) => {
            let (x, xv) = expr(rng, env, T::Str, d);
            let (y, yv) = expr(rng, env, T::Str, d);
            (format!("({x} + {y})"), V::S(text(&xv) + &text(&yv)))
        }
        (T::Str, 1) | (T::Str, 2) => {
            let (x, xv) = expr(rng, env, T::Int, d);
            let (y, yv) = expr(rng, env, T::Bool, d);
            let (z, zv) = expr(rng, env, T::Str, d);
            (
                format!("\"<{{{x}}}|{{{y}}}|{{{z}}}>\""),
                V::S(format!("<{}|{}|{}>", text(&xv), text(&yv), text(&zv))),
            )
        }
        (T::Str, 3) => {
            let (x, xv) = expr(rng, env, T::Int, d);
            let (s, sv) = expr(rng, env, T::Str, d);
            let (b, bv) = expr(rng, env, T::Bool, d);
            (
                format!("join3({x}, {s}, {b})"),
                V::S(format!("{}{}{}", text(&xv), text(&sv), text(&bv))),
            )
        }
        (T::Str, 4) => {
            let (x, xv) = expr(rng, env, T::Int, d);
            let (s, sv) = expr(rng, env, T::Str, d);
            (format!("(R {{ n: {x}, s: {s} }}).s"), {
                let _ = xv;
                sv
            })
        }
        (T::Bool, 0) => {
            let (x, xv) = expr(rng, env, T::Int, d);
            let (y, yv) = expr(rng, env, T::Int, d);
            let (V::I(xv), V::I(yv)) = (xv, yv) else {
                unreachable!()
            };
            match rng.below(3) {
                0 => (format!("({x} < {y})"), V::B(xv < yv)),
                1 => (format!("({x} == {y})"), V::B(xv == yv)),
                _ => (format!("({x} >= {y})"), V::B(xv >= yv)),
            }
        }
        (T::Bool, 1) => {
            let (x, xv) = expr(rng, env, T::Bool, d);
            let (y, yv) = expr(rng, env, T::Bool, d);
            let (V::B(xv), V::B(yv)) = (xv, yv) else {
                unreachable!()
            };
            if rng.below(2) == 0 {
                (format!("({x} && {y})"), V::B(xv && yv))
            } else {
                (format!("(!{x} || {y})"), V::B(!xv || yv))
            }
        }
        (T::Bool, 2) => {
            let (x, xv) = expr(rng, env, T::Str, d);
            let (y, yv) = expr(rng, env, T::Str, d);
            (format!("({x} != {y})"), V::B(xv != yv))
        }
        (_, 5) => {
            // `match` on an Int with arms of the wanted type.
            let (k, kv) = expr(rng, env, T::Int, d);
            let (x, xv) = expr(rng, env, ty, d);
            let (y, yv) = expr(rng, env, ty, d);
            let V::I(kv) = kv else { unreachable!() };
            (
                format!("match {k} {{ 0 => {x}, _ => {y} }}"),
                if kv == 0 { xv } else { yv },
            )
        }
        _ => {
            // `if` with a condition, in any type.
            let (c, cv) = expr(rng, env, T::Bool, d);
            let (x, xv) = expr(rng, env, ty, d);
            let (y, yv) = expr(rng, env, ty, d);
            let V::B(cv) = cv else { unreachable!() };
            (
                format!("if {c} {{ {x} }} else {{ {y} }}"),
                if cv { xv } else { yv },
            )
        }
    }
}

const PRELUDE: &str = "struct R {\n  n: Int,\n  s: String,\n}\n\nfn mk(n: Int, o: Option[Int]) -> Option[Int] {\n  o\n}\n\nfn join3(n: Int, s: String, b: Bool) -> String {\n  \"{n}{s}{b}\"\n}\n\n";

#[test]
fn random_typed_programs_compute_what_direct_evaluation_does() {
    let mut rng = Rng(0xC0FF_EE12_3456_789B);
    for case in 0..400 {
        let mut env = [
            V::I(1),
            V::I(-2),
            V::B(true),
            V::B(false),
            V::S("s".into()),
            V::S("tt".into()),
        ];
        let mut body = String::from(
            "  var a = 1\n  var b = -2\n  var p = true\n  var q = false\n  var s = \"s\"\n  var t = \"tt\"\n",
        );
        for _ in 0..5 {
            let target = rng.below(6) as usize;
            let (src, value) = expr(&mut rng, &env, VARS[target].1, 3);
            if let V::I(i) = value
                && i.abs() > 1_000_000
            {
                continue;
            }
            if let V::S(s) = &value
                && s.len() > 200
            {
                continue;
            }
            body.push_str(&format!("  {} = {src}\n", VARS[target].0));
            env[target] = value;
        }
        let source = format!(
            "{PRELUDE}fn main() {{\n{body}  println(\"{{a}} {{b}} {{p}} {{q}} {{s}} {{t}}\")\n}}\n"
        );
        let expected = format!(
            "{} {} {} {} {} {}\n=> ()",
            text(&env[0]),
            text(&env[1]),
            text(&env[2]),
            text(&env[3]),
            text(&env[4]),
            text(&env[5])
        );
        let program = match cove_compiler::compile_module("m", &source) {
            Ok(p) => p,
            Err(e) => panic!("case {case} did not compile:\n{e}\n{source}"),
        };
        assert_eq!(
            cove_tests::outcome(&program),
            expected,
            "case {case}:\n{source}"
        );
    }
}
