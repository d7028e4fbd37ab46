//! No input makes the compiler panic: random token soup and mutations of
//! real programs all come back as a program or as diagnostics.
//!
//! A seeded generator rather than shrinking property tests: the point is
//! breadth (thousands of inputs in a couple of seconds) and a failure is
//! reproduced from its printed case number.

use std::path::Path;

/// xorshift64*: small, fast, and the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "fn",
    "main",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "->",
    "Int",
    "String",
    "List",
    "Map",
    "Option",
    "let",
    "var",
    "x",
    "y",
    "=",
    "+=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<",
    "<=",
    "==",
    "!=",
    "&&",
    "||",
    "!",
    ".",
    "..",
    ",",
    ":",
    "=>",
    "if",
    "else",
    "while",
    "for",
    "in",
    "match",
    "return",
    "break",
    "continue",
    "struct",
    "enum",
    "Point",
    "Token",
    "Some",
    "None",
    "spawn",
    "import",
    "export",
    "true",
    "false",
    "0",
    "1",
    "42",
    "0xff",
    "3.5",
    "\"s\"",
    "\"n={x}\"",
    "\"{",
    "_",
    "\n",
    "\n",
    " ",
    "println",
    "push",
    "length",
    "Channel",
    "[]",
    "//c\n",
    "\"",
    "}\"",
    "\\",
];

fn corpus() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut sources = Vec::new();
    for dir in ["programs", "diagnostics"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "cove"))
            .collect();
        paths.sort();
        for p in paths {
            sources.push(std::fs::read_to_string(p).unwrap());
        }
    }
    sources
}

fn mutate(rng: &mut Rng, source: &str) -> String {
    let mut bytes = source.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len();
        let at = rng.below(len + 1);
        match rng.below(5) {
            0 if len > 0 => {
                let end = (at + 1 + rng.below(20)).min(len);
                bytes.drain(at.min(end)..end);
            }
            1 => {
                let piece = PIECES[rng.below(PIECES.len())];
                bytes.splice(at..at, piece.bytes());
            }
            2 if len > 0 => {
                let start = rng.below(len);
                let end = (start + rng.below(40)).min(len);
                let copy = bytes[start..end].to_vec();
                bytes.splice(at..at, copy);
            }
            3 if at < len => bytes[at] = b"(){}[]\"\n.,"[rng.below(10)],
            _ => bytes.insert(at.min(len), rng.next() as u8),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn soup(rng: &mut Rng) -> String {
    (0..rng.below(60))
        .map(|_| PIECES[rng.below(PIECES.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

fn assert_no_internal_error(case: usize, source: &str) {
    // What the compiler accepts must verify: it does not check that itself.
    let compiled = cove_compiler::compile_module("m", source);
    if let Ok(program) = &compiled {
        let faults = cove_ir::verify::errors(program);
        assert!(
            faults.is_empty(),
            "case {case}: compiled to a program that does not verify: {}\n--- source ---\n{source}",
            faults[0]
        );
    }
    if let Err(errors) = compiled {
        assert!(
            !errors.is_empty(),
            "case {case}: an error result with no diagnostics"
        );
        let internal = errors.iter().find(|d| d.code() == "E9000");
        assert!(
            internal.is_none(),
            "case {case}: {errors}\n--- source ---\n{source}"
        );
        // Rendering must not fail on any span.
        let _ = errors.to_string();
    }
}

#[test]
fn mutated_programs_give_diagnostics_never_a_panic() {
    let corpus = corpus();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for case in 0..2000 {
        let base = &corpus[rng.below(corpus.len())];
        let source = mutate(&mut rng, base);
        assert_no_internal_error(case, &source);
    }
}

#[test]
fn random_token_soup_gives_diagnostics_never_a_panic() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for case in 0..1500 {
        let source = soup(&mut rng);
        assert_no_internal_error(case, &source);
        let wrapped = format!("fn main() {{\n{source}\n}}\n");
        assert_no_internal_error(case, &wrapped);
    }
}

#[test]
fn pathological_nesting_and_long_chains_are_diagnosed_not_overflowed() {
    let deep = |open: &str, close: &str, n: usize| {
        format!(
            "fn main() {{\n  let x = {}1{}\n}}\n",
            open.repeat(n),
            close.repeat(n)
        )
    };
    for source in [
        deep("(", ")", 100_000),
        deep("[", "]", 50_000),
        deep("-", "", 100_000),
        deep("!", "", 100_000),
        deep("{", "}", 50_000),
        deep("if true { ", " } else { 0 }", 5_000),
        format!("fn main() {{\n  let x = 1{}\n}}\n", " + 1".repeat(50_000)),
        format!("fn main() {{\n  let x = y{}\n}}\n", ".a".repeat(50_000)),
        format!("fn main() {{\n  let x = f{}\n}}\n", "()".repeat(50_000)),
        format!(
            "fn main() {{\n  println(\"{}\")\n}}\n",
            "{\"{".repeat(10_000)
        ),
        format!(
            "fn f(x: {}Int{}) {{}}\n",
            "List[".repeat(10_000),
            "]".repeat(10_000)
        ),
        format!(
            "fn main() {{\n  match 1 {{\n    {}_{} => 0\n  }}\n}}\n",
            "Some(".repeat(10_000),
            ")".repeat(10_000)
        ),
    ] {
        match cove_compiler::compile_module("m", &source) {
            Ok(_) => {}
            Err(errors) => assert!(
                errors.iter().all(|d| d.code() != "E9000"),
                "{}",
                &errors.to_string()[..500.min(errors.to_string().len())]
            ),
        }
    }
}

#[test]
fn huge_literals_and_argument_lists_are_diagnosed_not_overflowed() {
    let big_list = format!(
        "fn main() {{\n  let xs = [{}]\n}}\n",
        vec!["1"; 20_000].join(", ")
    );
    let big_call = format!(
        "fn f() {{}}\nfn main() {{\n  f({})\n}}\n",
        vec!["1"; 20_000].join(", ")
    );
    let big_struct = format!(
        "struct S {{\n{}\n}}\nfn main() {{}}\n",
        (0..20_000)
            .map(|i| format!("  f{i}: Int,"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let many_locals = format!(
        "fn main() {{\n{}\n}}\n",
        (0..66_000)
            .map(|i| format!("  let v{i} = \"{i}\""))
            .collect::<Vec<_>>()
            .join("\n")
    );
    for (source, code) in [
        (big_list, "E0114"),
        (big_call, "E0211"),
        (big_struct, "E0311"),
        (many_locals, "E0403"),
    ] {
        let errors = cove_compiler::compile_module("m", &source).unwrap_err();
        let codes: Vec<&str> = errors.iter().map(|d| d.code()).collect();
        assert!(codes.contains(&code), "expected {code}, got {codes:?}");
        assert!(!codes.contains(&"E9000"), "{codes:?}");
    }
}

#[test]
fn a_long_else_if_chain_compiles_and_an_endless_one_is_diagnosed() {
    let chain = |n: usize| {
        let mut s = String::from("fn f(x: Int) -> Int {\n  if x == 0 {\n    0\n  }");
        for i in 1..n {
            s.push_str(&format!(" else if x == {i} {{\n    {i}\n  }}"));
        }
        s.push_str(" else {\n    -1\n  }\n}\nfn main() {}\n");
        s
    };
    cove_compiler::compile_module("m", &chain(1000)).unwrap();
    let errors = cove_compiler::compile_module("m", &chain(5000)).unwrap_err();
    assert_eq!(
        errors.iter().map(|d| d.code()).collect::<Vec<_>>(),
        ["E0013"]
    );
}
